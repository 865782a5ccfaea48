//! Limits: the deadline, recursion and nesting bounds, expansion sizes, streaming pipelines
//! that must end.

use super::{run, Harness, Outcome};
use crate::vfs::VfsLimits;

fn runs_on_big_stack(script: &'static str) -> Outcome {
    // Debug builds poll nested futures with large frames; release wasm is far leaner.
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run(script));
    match handle.map(|h| h.join()) {
        Ok(Ok(outcome)) => outcome,
        _ => Outcome {
            stdout: String::new(),
            stderr: "thread failed".into(),
            status: -1,
        },
    }
}

#[test]
fn deadline_stops_loops_with_124() {
    let h = Harness::new();
    h.deadline.set(Some(crate::task::now()));
    let o = h.run("echo start; while true; do :; done; echo never");
    assert_eq!((o.stdout.as_str(), o.status), ("start\n", 124));
    let h = Harness::new();
    h.deadline.set(Some(crate::task::now()));
    let o = h.run("for ((;;)); do x=$((x+1)); done | cat; f() { f; }; echo never");
    assert_eq!(o.status, 124);
    let h = Harness::new();
    h.deadline.set(Some(crate::task::now()));
    assert_eq!(h.run("x=$(while :; do :; done); echo never").status, 124);
}

#[test]
fn function_recursion_is_bounded() {
    let o = runs_on_big_stack("f() { f; }; f; echo never");
    assert_eq!(
        o,
        Outcome {
            stdout: String::new(),
            stderr: "bash: line 1: f: maximum function nesting level exceeded (100)\n".into(),
            status: 1,
        }
    );
    let o = runs_on_big_stack(
        "f() { if (( $1 < 40 )); then f $(( $1 + 1 )); else echo deep $1; fi; }; f 0",
    );
    assert_eq!((o.stdout.as_str(), o.status), ("deep 40\n", 0));
    let o = runs_on_big_stack("f() { echo $(f); }; f; echo never");
    assert!(o.stderr.contains("maximum"), "{o:?}");
    let o = runs_on_big_stack("f() { eval f; }; f");
    assert!(o.stderr.contains("maximum"), "{o:?}");
    let o = runs_on_big_stack("echo 'source s.sh' > s.sh; source s.sh");
    assert!(o.stderr.contains("maximum"), "{o:?}");
    let o = runs_on_big_stack("echo 'bash s.sh' > s.sh; bash s.sh");
    assert!(o.stderr.contains("maximum"), "{o:?}");
}

/// A job is polled by its run, not inside the command that started it: a chain of jobs each
/// starting the next does not nest deeper (it ended at the nesting limit, about 60 jobs down).
#[test]
fn a_job_started_by_a_job_starts_at_the_runs_depth() {
    let o = runs_on_big_stack(
        "f() { if (( $1 < 300 )); then f $(( $1 + 1 )) & else echo reached $1; fi; }; f 0",
    );
    assert_eq!(
        o,
        Outcome {
            stdout: "reached 300\n".into(),
            stderr: String::new(),
            status: 0
        }
    );
    let o = runs_on_big_stack(
        "f() { if (( $1 < 300 )); then coproc f $(( $1 + 1 )); else echo reached $1 >&2; fi; }; f 0",
    );
    assert_eq!((o.stderr.as_str(), o.status), ("reached 300\n", 0));
}

#[test]
fn deep_nesting_in_the_source_is_an_error() {
    let deep = format!("{}echo x{}", "( ".repeat(500), " )".repeat(500));
    let o = run(&deep);
    assert_eq!(o.status, 2);
    assert!(o.stderr.contains("nesting too deep"), "{o:?}");
}

#[test]
fn huge_expansions_fail_cleanly() {
    assert_eq!(
        run("echo {1..300000}; echo after"),
        Outcome {
            stdout: String::new(),
            stderr: "bash: line 1: brace expansion: more than 200000 words; for a long \
                     sequence use seq or a counting loop (for ((i = 1; i <= n; i++)))\n"
                .into(),
            status: 1,
        }
    );
    let o = run("x=aaaaaaaaaaaaaaaa; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23; do x=$x$x; done; echo ${#x}");
    assert_eq!(o.status, 1, "{o:?}");
    assert!(o.stderr.contains("too large"), "{o:?}");
}

#[test]
fn endless_writers_stop_when_the_reader_leaves() {
    assert_eq!(
        run("while true; do echo y; done | { read a; read b; echo \"$a$b\"; }; echo ${PIPESTATUS[@]}"),
        Outcome {
            stdout: "yy\n141 0\n".into(),
            stderr: String::new(),
            status: 0,
        }
    );
    if crate::applets::lookup("yes").is_some() && crate::applets::lookup("head").is_some() {
        assert_eq!(run("yes | head -n 2").stdout, "y\ny\n");
    }
}

#[test]
fn pipelines_stream_without_buffering_everything() {
    // 20,000 lines through four stages; each stage holds at most a pipe's worth.
    let o = run("for ((i = 0; i < 20000; i++)); do echo \"line $i\"; done | cat | while read -r a b; do echo $b; done | { n=0; while read -r _; do n=$((n+1)); done; echo $n; }");
    assert_eq!(o.stdout, "20000\n");
}

#[test]
fn loop_body_commands_do_not_swallow_the_loop_input() {
    assert_eq!(
        run("for i in 1 2 3 4 5; do echo \"l$i\"; done | while read -r l; do echo \"$l\" | cat; cat a.txt > /dev/null; done").stdout,
        "l1\nl2\nl3\nl4\nl5\n"
    );
    assert_eq!(
        run("while read -r l; do echo \"<$l>\"; cat b.txt > /dev/null; done < a.txt").stdout,
        "<apple>\n<banana>\n<cherry>\n"
    );
}

/// Scripts made of random shell tokens: whatever they do, the interpreter must not panic,
/// stall or overflow; each runs under a short deadline.
#[test]
fn random_scripts_never_panic_or_stall() {
    const TOKENS: &[&str] = &[
        "echo",
        "x=1",
        "$x",
        "${x:-a}",
        "${#x}",
        "${x/a/b}",
        "$((1+2))",
        "$(echo hi)",
        "\"",
        "'",
        "|",
        "||",
        "&&",
        ";",
        "&",
        "(",
        ")",
        "{",
        "}",
        "[[",
        "]]",
        "[",
        "]",
        "if",
        "then",
        "fi",
        "for",
        "in",
        "do",
        "done",
        "while",
        "case",
        "esac",
        ")",
        ";;",
        "f()",
        "return",
        "break",
        "*",
        "?",
        "~",
        "<",
        ">",
        ">>",
        "2>&1",
        "<<<",
        "a",
        "b",
        "\n",
        "read",
        "cat",
        "local",
        "declare",
        "-A",
        "arr=(1 2)",
        "${arr[@]}",
        "set",
        "-e",
        "-u",
        "eval",
        "shift",
        "!",
        "$@",
        "\"$@\"",
        "exit",
        "true",
        "false",
        "{1..3}",
        "$?",
        "trap",
        "test",
        "-f",
    ];
    let mut seed: u64 = 0x1234_5678;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            for _ in 0..400 {
                let n = 1 + (next() % 14) as usize;
                let script: Vec<&str> = (0..n)
                    .map(|_| TOKENS[(next() % TOKENS.len() as u64) as usize])
                    .collect();
                let script = script.join(" ");
                let h = Harness::new();
                h.deadline.set(Some(
                    crate::task::now() + std::time::Duration::from_millis(200),
                ));
                let o = h.run(&script);
                assert_ne!(o.stderr, "STALLED", "stalled: {script:?}");
            }
        });
    let joined = handle.map(|h| h.join());
    assert!(matches!(joined, Ok(Ok(()))), "a random script panicked");
}

#[test]
fn a_redirect_past_a_quota_fails_loudly_and_keeps_the_data() {
    let h = Harness::with_limits(VfsLimits {
        max_file_size: 100,
        ..VfsLimits::default()
    });
    let o = h.run(
        "echo keep > small; seq 100 > big; echo \"big $?\"; seq 100 >> small; echo \"small $?\"\n\
         { seq 100; } > grp; echo \"grp $?\"; echo $(seq 60) > b2; echo \"echo $?\"; cat small",
    );
    assert_eq!(o.stdout, "big 1\nsmall 1\ngrp 1\necho 1\nkeep\n");
    assert_eq!(
        o.stderr,
        "seq: write error: big: File too large\n\
         seq: write error: small: File too large\n\
         seq: write error: grp: File too large\n\
         bash: line 2: echo: write error: File too large\n" // a builtin, as in bash
    );
}
