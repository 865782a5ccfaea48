//! sed's behaviour, case by case: tables recorded from GNU sed 4.9, plus hand-written cases
//! for what the tables cannot hold.

mod gnu_cases;

use crate::applets::testing::{run_in, vfs_with, Outcome};
use crate::vfs::WORKSPACE;

/// One recorded run.
pub struct Case {
    args: &'static [&'static str],
    stdin: &'static str,
    stdout: &'static str,
    stderr: &'static str,
    status: i32,
    /// Files and their contents afterwards (None: the file does not exist).
    files: &'static [(&'static str, Option<&'static str>)],
}

/// Runs every case against a fresh fixture; fails listing every mismatch.
fn check(cases: &[Case]) {
    let mut failures = Vec::new();
    for case in cases {
        let vfs = vfs_with(gnu_cases::FILES);
        let got = run_in(&vfs, "sed", case.args, case.stdin);
        let want = Outcome {
            stdout: case.stdout.to_string(),
            stderr: case.stderr.to_string(),
            status: case.status,
        };
        if got != want {
            failures.push(format!(
                "sed {:?} (stdin {:?})\n  want {want:?}\n  got  {got:?}",
                case.args, case.stdin
            ));
        }
        for (path, expected) in case.files {
            let actual = vfs
                .borrow()
                .read(WORKSPACE, path)
                .ok()
                .map(|b| String::from_utf8_lossy(b).into_owned());
            if actual.as_deref() != *expected {
                failures.push(format!(
                    "sed {:?}: file {path}\n  want {expected:?}\n  got  {actual:?}",
                    case.args
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn substitute() {
    check(gnu_cases::SUBSTITUTE);
}

#[test]
fn addresses() {
    check(gnu_cases::ADDRESSES);
}

#[test]
fn commands() {
    check(gnu_cases::COMMANDS);
}

#[test]
fn text_commands() {
    check(gnu_cases::TEXT_COMMANDS);
}

#[test]
fn newlines_and_options() {
    check(gnu_cases::NEWLINES_AND_OPTIONS);
}

#[test]
fn idioms_and_queues() {
    check(gnu_cases::IDIOMS_AND_QUEUES);
}

#[test]
fn longest_match() {
    check(gnu_cases::LONGEST_MATCH);
}

#[test]
fn errors() {
    check(gnu_cases::ERRORS);
}

/// Reading standard input chunk by chunk gives what reading the same bytes from a file gives.
#[test]
fn stdin_streaming_matches_file_input() {
    let mut text = String::new();
    for i in 0..30_000 {
        text.push_str(&format!(
            "row {i} {}\n",
            if i % 7 == 0 { "seven" } else { "other" }
        ));
    }
    text.push_str("last row without newline");
    let vfs = vfs_with(&[("big", text.as_str())]);
    for args in [
        &["-n", "$="][..],
        &["$!N;s/\\n/+/"],
        &["-n", "/seven/{n;p}"],
        &["s/row \\([0-9]*\\)/\\1:/;$!d"],
        &["-z", "s/\\n/,/g"],
        &["1~1000!d;="],
    ] {
        let from_file = run_in(&vfs, "sed", &[args, &["big"]].concat(), "");
        let from_stdin = run_in(&vfs, "sed", args, &text);
        assert_eq!(from_file, from_stdin, "{args:?}");
        assert_eq!(from_file.status, 0, "{args:?}");
    }
}

#[test]
fn special_files_and_unsupported_features() {
    let sed = |args: &[&str], stdin: &str| run_in(&vfs_with(&[("f", "a\n")]), "sed", args, stdin);
    assert_eq!(sed(&["r /dev/stdin", "f"], "in\n").stdout, "a\nin\n");
    let out = sed(&["w /dev/stderr"], "x\n");
    assert_eq!((out.stdout.as_str(), out.stderr.as_str()), ("x\n", "x\n"));
    let out = sed(&["$!N;/^\\(.*\\)\\n\\1$/!P;D"], "a\na\n");
    assert_eq!(out.status, 1);
    assert!(out.stderr.contains("back-references"), "{out:?}");
    let out = sed(&["e date"], "");
    assert_eq!(out.status, 1);
    assert!(out.stderr.contains("not supported"), "{out:?}");
    let out = sed(&["--help"], "");
    assert!(out.stdout.starts_with("Usage: sed [OPTION]..."));
    assert_eq!(out.status, 0);
}

/// In-place editing writes through the VFS: a read-only file fails like GNU (exit 4).
#[test]
fn in_place_on_read_only_paths() {
    let vfs = vfs_with(&[]);
    let out = run_in(&vfs, "sed", &["-i", "s/a/b/", "/etc/hostname"], "");
    assert_eq!(out.status, 2, "{out:?}");
    let out = run_in(&vfs, "sed", &["s/a/b/w /etc/out"], "a\n");
    assert_eq!(out.status, 4, "{out:?}");
    assert!(
        out.stderr.starts_with("sed: couldn't open file /etc/out: "),
        "{out:?}"
    );
}

/// 50 MB of log-like lines; times a few scripts (run with `--ignored --nocapture`).
#[test]
#[ignore]
fn large_input_speed() {
    let mut text = String::with_capacity(52 << 20);
    let mut i = 0u64;
    while text.len() < 50 << 20 {
        text.push_str(&format!(
            "2024-01-{:02} 12:{:02}:{:02} INFO request id={i} path=/api/v1/items/{} status=200\n",
            i % 28 + 1,
            i % 60,
            i % 59,
            i % 977
        ));
        i += 1;
    }
    let vfs = vfs_with(&[("big.log", text.as_str())]);
    for args in [
        &["-n", "$=", "big.log"][..],
        &["s/INFO/WARN/", "big.log"],
        &["-n", "/id=12345 /p", "big.log"],
        &["-E", "s/[0-9]+/N/g", "big.log"],
        &["p", "big.log"],
        &["-E", "s/INFO|WARN/X/", "big.log"],
        &["-E", "s/(GET|POST|INFO) request/X/g", "big.log"],
    ] {
        let start = std::time::Instant::now();
        let out = run_in(&vfs, "sed", args, "");
        eprintln!(
            "{args:?}: {:?} -> {} bytes",
            start.elapsed(),
            out.stdout.len()
        );
    }
}

/// A `}` ends a branch's label, as in GNU sed 4.9 (BusyBox's suite: `/x/{ p; b }`).
#[test]
fn branch_label_ends_at_brace() {
    let vfs = vfs_with(gnu_cases::FILES);
    let sed = |script: &str| run_in(&vfs, "sed", &["-n", script], "x\ny\nx\n").stdout;
    assert_eq!(sed("/x/{ p; b }"), "x\nx\n");
    assert_eq!(sed("/x/{p;b end};p;:end"), "x\ny\nx\n");
    assert_eq!(sed("/x/{ s/x/z/; t }; p"), "y\n");
}
