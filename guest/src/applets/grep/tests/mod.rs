//! grep's behaviour beyond what a recorded script holds: non-UTF-8 files, large inputs,
//! deliberate deviations. The cases recorded from GNU grep 3.8 run through the public API, in
//! `tests/differential/grep-gnu.cases`.

use crate::applets::testing::{run_in, vfs_with, Outcome};

/// 50 MB of log-like lines; times a few searches (run with `--ignored --nocapture`).
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
        if i.is_multiple_of(1000) {
            text.push_str("2024-01-01 00:00:00 ERROR something failed badly\n");
        }
        i += 1;
    }
    let vfs = vfs_with(&[("big.log", text.as_str())]);
    for args in [
        &["-c", "ERROR", "big.log"][..],
        &["-c", "status=200", "big.log"],
        &["-vc", "INFO", "big.log"],
        &["-c", "-i", "error", "big.log"],
        &["-c", "-E", "id=[0-9]+5 ", "big.log"],
        &["-c", "-w", "items", "big.log"],
        &["-n", "ERROR", "big.log"],
        &["-c", "zzz", "big.log"],
    ] {
        let start = std::time::Instant::now();
        let out = run_in(&vfs, "grep", args, "");
        eprintln!(
            "{args:?}: {:?} -> {:?}",
            start.elapsed(),
            out.stdout.lines().next()
        );
    }
}

/// Searching standard input chunk by chunk gives what searching the same bytes as a file
/// gives, whatever falls on a chunk boundary (context, counts, line numbers, offsets).
#[test]
fn stdin_streaming_matches_file_search() {
    let mut text = String::new();
    for i in 0..40_000 {
        text.push_str(&format!(
            "line {i} {}\n",
            if i % 97 == 0 { "hit" } else { "miss" }
        ));
    }
    text.push_str("tail hit without newline");
    let vfs = vfs_with(&[("big", text.as_str())]);
    for args in [
        &["-n", "hit"][..],
        &["-c", "hit"],
        &["-vc", "hit"],
        &["-b", "-C2", "hit"],
        &["-n", "-B3", "-A1", "hit"],
        &["-m5", "-A2", "hit"],
        &["-on", "h.t"],
        &["-v", "-n", "-A1", "miss"],
    ] {
        let from_file = run_in(&vfs, "grep", &[args, &["big"]].concat(), "");
        let from_stdin = run_in(&vfs, "grep", args, &text);
        assert_eq!(from_file, from_stdin, "{args:?}");
        assert_eq!(from_file.status, 0, "{args:?}");
    }
}

#[test]
fn non_utf8_lines_are_binary_matches() {
    let vfs = vfs_with(&[]);
    let written = vfs
        .borrow_mut()
        .write(crate::vfs::WORKSPACE, "latin", b"caf\xe9\nplain cafe\n");
    assert!(written.is_ok());
    let want = |stdout: &str, stderr: &str| Outcome {
        stdout: stdout.into(),
        stderr: stderr.into(),
        status: 0,
    };
    assert_eq!(
        run_in(&vfs, "grep", &["caf", "latin"], ""),
        want("plain cafe\n", "grep: latin: binary file matches\n")
    );
    assert_eq!(
        run_in(&vfs, "grep", &["-c", "caf", "latin"], ""),
        want("2\n", "")
    );
    assert_eq!(
        run_in(&vfs, "grep", &["-o", "caf", "latin"], ""),
        want("caf\ncaf\n", "")
    );
    assert_eq!(
        run_in(&vfs, "grep", &["-a", "plain", "latin"], ""),
        want("plain cafe\n", "")
    );
}

#[test]
fn help_backreferences_and_perl_errors() {
    for name in ["grep", "egrep", "fgrep"] {
        let out = run_in(&vfs_with(&[]), name, &["--help"], "");
        assert!(out
            .stdout
            .starts_with("Usage: grep [OPTION]... PATTERNS [FILE]..."));
        assert_eq!(out.status, 0);
    }
    let grep = |args: &[&str], stdin: &str| run_in(&vfs_with(&[]), "grep", args, stdin).stdout;
    assert_eq!(grep(&["\\(a\\)\\1"], "aa\nab\n"), "aa\n");
    assert_eq!(grep(&["-oE", "(.)\\1"], "abbcdd\n"), "bb\ndd\n");
    assert_eq!(grep(&["-ciE", "^(a)x\\1$"], "AxA\naXa\nAxb\n"), "2\n");
    assert_eq!(
        grep(&["-e", "x", "-e", "(.)\\1", "-E"], "x\naa\nab\n"),
        "x\naa\n"
    );
    assert_eq!(grep(&["-wE", "(a)\\1"], "aa\nbaa\n"), "aa\n");
    let out = run_in(&vfs_with(&[]), "grep", &["-P", "a(?!b)"], "ab\n");
    assert_eq!(out.status, 2);
    assert!(out.stderr.starts_with("grep: "), "{out:?}");
    assert!(!out.stderr.trim_end().contains('\n'), "{out:?}");
}

#[test]
fn quiet_stops_at_the_first_match_and_leftmost_longest_alternatives() {
    let out = run_in(&vfs_with(&[]), "grep", &["-q", "x", "-", "missing"], "x\n");
    assert_eq!(
        out,
        Outcome {
            stdout: String::new(),
            stderr: String::new(),
            status: 0
        }
    );
    let out = run_in(&vfs_with(&[]), "grep", &["-oE", "ab|abcd"], "xabcdx\n");
    assert_eq!(out.stdout, "abcd\n");
    let out = run_in(
        &vfs_with(&[]),
        "grep",
        &["-oF", "-e", "ab", "-e", "abcd"],
        "xabcdx\n",
    );
    assert_eq!(out.stdout, "abcd\n");
}

#[test]
fn perl_look_around_and_keep_are_emulated_for_only_matching() {
    let grep = |args: &[&str], stdin: &str| run_in(&vfs_with(&[]), "grep", args, stdin);
    assert_eq!(
        grep(&["-oP", "version: \\K.*"], "version: 1.2.3\n").stdout,
        "1.2.3\n"
    );
    assert_eq!(
        grep(&["-oP", "(?<=id=)\\d+"], "id=42 id=7\n").stdout,
        "42\n7\n"
    );
    assert_eq!(grep(&["-oP", "\\d+(?=,)"], "1,2,3\n").stdout, "1\n2\n");
    assert_eq!(
        grep(&["-oP", "(?<=<b>)[^<]*(?=</b>)"], "<b>x</b><b>y</b>\n").stdout,
        "x\ny\n"
    );
    assert_eq!(
        grep(&["-P", "(?<=foo=)1"], "foo=1\nbar=1\n").stdout,
        "foo=1\n"
    );
    assert_eq!(grep(&["-cP", "(?<=bar=)1"], "foo=1\n").stdout, "0\n");
    assert_eq!(
        grep(&["-oP", "[(]\\K\\w+(?=[)])"], "f(ab) g(cd)\n").stdout,
        "ab\ncd\n"
    );
    let two = grep(&["-P", "-e", "a", "-e", "x"], "x\n");
    assert_eq!(
        two,
        Outcome {
            stdout: String::new(),
            stderr: "grep: the -P option only supports a single pattern\n".into(),
            status: 2
        }
    );
}

#[test]
fn dereferencing_recursion_stops_at_symlink_loops() {
    let vfs = vfs_with(&[("d/f", "x\n")]);
    let linked = vfs
        .borrow_mut()
        .symlink(crate::vfs::WORKSPACE, "..", "d/up");
    assert!(linked.is_ok());
    assert_eq!(
        run_in(&vfs, "grep", &["-R", "x", "."], ""),
        Outcome {
            stdout: "./d/f:x\n".into(),
            stderr: "grep: ./d/up: warning: recursive directory loop\n".into(),
            status: 0
        }
    );
    assert_eq!(
        run_in(&vfs, "grep", &["-r", "x", "."], "").stdout,
        "./d/f:x\n"
    );
}
