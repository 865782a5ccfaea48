//! sed's behaviour beyond what a recorded script holds: streaming, special files, timings.
//! The cases recorded from GNU sed 4.9 run through the public API, in
//! `tests/differential/sed-gnu.cases`.

use crate::applets::testing::{run_in, vfs_with};

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
    let out = sed(&["$!N;/^\\(.*\\)\\n\\1$/!P;D"], "a\na\nb\na\n");
    assert_eq!(out.stdout, "a\nb\na\n");
    assert_eq!(
        sed(&["-E", "s/(ab)\\1/<&>/g"], "ababxabab\n").stdout,
        "<abab>x<abab>\n"
    );
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

/// In-place editing of a file with several names replaces this name only, as GNU sed's
/// rename of a new file does: the other hard links keep the old contents.
#[test]
fn in_place_breaks_hard_links() {
    let vfs = vfs_with(&[("a", "x\n")]);
    let _ = vfs.borrow_mut().link("/workspace", "a", "b", false);
    let _ = vfs.borrow_mut().set_mode("/workspace", "a", 0o600);
    let out = run_in(&vfs, "sed", &["-i", "s/x/y/", "b"], "");
    assert_eq!(out.status, 0, "{out:?}");
    let vfs = vfs.borrow();
    let read = |p: &str| vfs.read("/workspace", p).map(<[u8]>::to_vec);
    assert_eq!(
        (read("a"), read("b")),
        (Ok(b"x\n".to_vec()), Ok(b"y\n".to_vec()))
    );
    let stat = |p: &str| vfs.stat("/workspace", p).map(|s| (s.nlink, s.mode));
    assert_eq!((stat("a"), stat("b")), (Ok((1, 0o600)), Ok((1, 0o600))));
    assert_eq!(vfs.read_dir("/workspace", ".").map(|d| d.len()), Ok(2));
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
    let vfs = vfs_with(&[]);
    let sed = |script: &str| run_in(&vfs, "sed", &["-n", script], "x\ny\nx\n").stdout;
    assert_eq!(sed("/x/{ p; b }"), "x\nx\n");
    assert_eq!(sed("/x/{p;b end};p;:end"), "x\ny\nx\n");
    assert_eq!(sed("/x/{ s/x/z/; t }; p"), "y\n");
}
