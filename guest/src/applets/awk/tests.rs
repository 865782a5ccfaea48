//! What whole programs do beyond what a recorded script holds: streaming, deep nesting, hosts,
//! timings. The one-liners recorded from GNU Awk 5.2.1 run through the public API, in
//! `tests/differential/awk-gnu.cases`.

use std::cell::RefCell;
use std::rc::Rc;
use std::task::Poll;

use crate::applets::testing::{ok, run, run_in, vfs_with, Outcome, TestHost};
use crate::applets::Commands;
use crate::task::{join_all, pipe, poll_once, run_until_stalled, Input, LocalFuture, Output, Sink};

/// The 50 MB CSV the brief asks to be fast (run with `--ignored --nocapture` in release).
#[test]
#[ignore]
fn bench_50mb_csv() {
    let mut data = String::with_capacity(52 << 20);
    let mut i = 0u64;
    while data.len() < 50 << 20 {
        data.push_str(&format!(
            "row{i},{},{},some more text here\n",
            i % 1000,
            ["alpha", "beta", "gamma", "delta"][(i % 4) as usize]
        ));
        i += 1;
    }
    let vfs = vfs_with(&[("big.csv", &data)]);
    for prog in [
        "{s[$3]+=$2} END {for (k in s) print k, s[k]}",
        "{n++} END {print n}",
        "/gamma/ {c++} END {print c}",
        "{print $1}",
        "{ $2 = $2 * 2; x = $0 } END { print x }",
        "{ t += length($0) } END { print t }",
        "{ all = all $0 \"\\n\" } END { print length(all) }",
        "{ g[$3] = g[$3] $1 \",\" } END { print length(g[\"beta\"]) }",
    ] {
        let start = std::time::Instant::now();
        let out = run_in(&vfs, "awk", &["-F,", prog, "big.csv"], "");
        eprintln!(
            "{prog}: {:?} -> {} bytes, status {}",
            start.elapsed(),
            out.stdout.len(),
            out.status
        );
    }
}

/// Runs `program` on a thread with a small stack: a quarter of the wasm default (1 MiB) in
/// release builds, where frames are as small as in the wasm build; debug frames are much
/// bigger, so debug runs only check that limits are enforced.
fn on_small_stack(program: String) -> Outcome {
    let size = if cfg!(debug_assertions) {
        64 << 20
    } else {
        256 << 10
    };
    let handle = std::thread::Builder::new()
        .stack_size(size)
        .spawn(move || run("awk", &[&program], ""));
    match handle.map(|h| h.join()) {
        Ok(Ok(outcome)) => outcome,
        _ => Outcome {
            stdout: String::new(),
            stderr: "thread failed".to_string(),
            status: -2,
        },
    }
}

#[test]
fn deep_programs_run_or_are_refused_never_overflow() {
    let too_deep = "awk: cmd. line:1: error: program nested too deeply\n";
    for depth in [40, 150, 5000] {
        let programs = [
            format!(
                "BEGIN {{ x = {}1{}; print x }}",
                "(".repeat(depth / 3),
                ")".repeat(depth / 3)
            ),
            format!(
                "BEGIN {{ x = {}; print length(x) }}",
                vec!["\"a\""; depth].join(" ")
            ),
            format!("BEGIN {{ x = {}; print x }}", vec!["1"; depth].join(" + ")),
            format!("BEGIN {{ {} print 1 }}", "if (1) ".repeat(depth)),
            format!(
                "BEGIN {{ {} print 1 {} }}",
                "{".repeat(depth),
                "}".repeat(depth)
            ),
            format!("BEGIN {{ print {}1 }}", "- ".repeat(depth)),
        ];
        for program in programs {
            let out = on_small_stack(program.clone());
            let refused = out.status == 1 && out.stderr == too_deep;
            assert!(out.status == 0 || refused, "{program:.60}: {out:?}");
            if depth != 150 {
                assert_eq!(refused, depth > 150, "{program:.60}");
            }
        }
    }
}

// ---- behaviour that gawk cannot show: the sandbox, streaming, limits ----

fn fails(args: &[&str], stderr: &str, status: i32) {
    let out = run("awk", args, "x\n");
    assert_eq!(
        (out.stderr.as_str(), out.status),
        (stderr, status),
        "awk {args:?}"
    );
}

#[test]
fn commands_run_through_the_host() {
    let vfs = vfs_with(&[("f", "b\na\n")]);
    let out = run_in(
        &vfs,
        "awk",
        &[
            "BEGIN { print \"x\"; print system(\"cat f\"); \"sort f\" | getline l; \
           print l, NR; print close(\"sort f\"); print \"z\" | \"cat\"; print \"y\" | \"cat\"; \
           print close(\"cat\"), close(\"cat\"); print \"w\" | \"tac\" }",
        ],
        "",
    );
    assert_eq!(out, ok("x\nb\na\n0\na 1\n0\nz\ny\n0 -1\nw\n"));
    let out = run(
        "awk",
        &["BEGIN { print system(\"nosuch\"); \"nosuch\" | getline; print NR }"],
        "",
    );
    assert_eq!((out.stdout.as_str(), out.status), ("127\n0\n", 0));
}

#[test]
fn limits_end_runaway_programs_with_errors() {
    fails(
        &["function f(n) { return f(n + 1) } BEGIN { f(1) }"],
        "awk: cmd. line:1: fatal: function call nesting too deep (more than 20000 levels)\n",
        2,
    );
    fails(
        &["BEGIN { s = \"x\"; while (1) s = s s }"],
        "awk: cmd. line:1: fatal: string too long (over 64 MiB)\n",
        2,
    );
    fails(
        &["BEGIN { NF = 1e9 }"],
        "awk: cmd. line:1: fatal: NF set to 1000000000: too many fields\n",
        2,
    );
    fails(
        &["BEGIN { $(2^40) = 1 }"],
        "awk: cmd. line:1: fatal: field index 1099511627776 is too large\n",
        2,
    );
}

#[test]
fn help_version_and_usage() {
    let help = run("awk", &["--help"], "");
    assert!(help.stdout.starts_with("Usage: awk [-F fs]"), "{help:?}");
    assert_eq!(help.status, 0);
    assert!(run("awk", &["--version"], "")
        .stdout
        .contains("GNU Awk 5.2"));
    let bad = run("awk", &["-q", "1"], "");
    assert_eq!(
        (bad.stderr.as_str(), bad.status),
        (
            "awk: invalid option -- 'q'\nTry 'awk --help' for more information.\n",
            1
        )
    );
    let none = run("awk", &[], "");
    assert!(none.stderr.starts_with("Usage: awk"), "{none:?}");
    assert_eq!(none.status, 1);
}

#[test]
fn long_options_and_source_text() {
    assert_eq!(
        run(
            "awk",
            &["--field-separator=,", "--assign", "x=1", "{ print $2 + x }"],
            "a,2\n"
        ),
        ok("3\n")
    );
    assert_eq!(
        run(
            "awk",
            &[
                "-e",
                "function f() { return 7 }",
                "-e",
                "BEGIN { print f() }"
            ],
            ""
        ),
        ok("7\n")
    );
    let vfs = vfs_with(&[("data", "a b\n")]);
    assert_eq!(
        run_in(&vfs, "awk", &["-f", "-", "data"], "{ print $2 }"),
        ok("b\n")
    );
}

#[test]
fn for_in_visits_keys_in_insertion_order() {
    assert_eq!(
        run(
            "awk",
            &["{ n[$1]++ } END { for (k in n) print k, n[k] }"],
            "b\na\nc\na\n"
        ),
        ok("b 1\na 2\nc 1\n")
    );
}

#[test]
fn deterministic_rand_per_seed() {
    let a = run("awk", &["BEGIN { srand(3); print rand(), rand() }"], "");
    let b = run("awk", &["BEGIN { srand(3); print rand(), rand() }"], "");
    assert_eq!(a, b);
    assert_ne!(
        a,
        run("awk", &["BEGIN { srand(4); print rand(), rand() }"], "")
    );
    let now = run("awk", &["BEGIN { srand(); print srand() }"], "");
    assert_eq!(now, ok("1700000000\n"));
}

/// Records and fields split the same whatever the chunk boundaries of the input are.
#[test]
fn records_span_input_chunks() {
    let mut text = String::new();
    for i in 0..20_000 {
        text.push_str(&format!("line {i} {}\n", "x".repeat(i % 37)));
    }
    let expected: usize = text.lines().map(|l| l.split_whitespace().count()).sum();
    let out = run("awk", &["{ n += NF } END { print NR, n }"], &text);
    assert_eq!(out, ok(&format!("20000 {expected}\n")));
    let paragraphs = text.replace("x\n", "x\n\n");
    let out = run(
        "awk",
        &["BEGIN { RS = \"\" } END { print NR }"],
        &paragraphs,
    );
    let count = paragraphs
        .split("\n\n")
        .filter(|p| !p.trim().is_empty())
        .count();
    assert_eq!(out, ok(&format!("{count}\n")));
    let out = run("awk", &["BEGIN { RS = \"x+\\n\" } END { print NR }"], &text);
    let separators = text.matches("x\n").count();
    let records = separators + usize::from(!text.ends_with("x\n"));
    assert_eq!(out, ok(&format!("{records}\n")));
}

fn exec_awk(args: &[&str], stdin: Input, stdout: Output) -> LocalFuture<'static, i32> {
    let host = TestHost { vfs: vfs_with(&[]) };
    let argv = std::iter::once("awk")
        .chain(args.iter().copied())
        .map(str::to_string)
        .collect();
    let err = Output::new(Sink::Buffer(Rc::new(RefCell::new(Vec::new()))));
    host.exec(argv, "/workspace".to_string(), None, stdin, stdout, err)
}

/// `awk 'BEGIN { while (1) print "y" }' | head -c 10` ends: a closed pipe stops awk (141).
#[test]
fn a_closed_pipe_stops_an_endless_printer() {
    let (mut reader, writer) = pipe();
    let awk = exec_awk(
        &["BEGIN { while (1) print \"y\" }"],
        Input::empty(),
        Output::new(Sink::Pipe(writer)),
    );
    let head: LocalFuture<'_, i32> = Box::pin(async move {
        let got = reader.read_chunk().await.map_or(0, |c| c.len());
        drop(reader);
        i32::from(got > 0)
    });
    let mut both: LocalFuture<'_, Vec<i32>> = Box::pin(join_all(vec![awk, head]));
    assert_eq!(run_until_stalled(&mut both), Poll::Ready(vec![141, 1]));
}

/// An endless loop yields to the scheduler (so the shell's deadline can stop it).
#[test]
fn endless_loops_yield() {
    let sink = Output::new(Sink::Null);
    let mut awk = exec_awk(&["BEGIN { while (1) x++ }"], Input::empty(), sink);
    for _ in 0..3 {
        assert!(poll_once(&mut awk).is_pending());
    }
    let mut rec = exec_awk(
        &["function f() { f() } BEGIN { while (1) f() }"],
        Input::empty(),
        Output::new(Sink::Null),
    );
    assert!(poll_once(&mut rec).is_pending());
}

/// Input from a pipe is read as it arrives, record by record.
#[test]
fn reads_a_pipe_as_it_arrives() {
    let (reader, mut writer) = pipe();
    let out = Rc::new(RefCell::new(Vec::new()));
    let mut awk = exec_awk(
        &["{ print NR \": \" $2 }"],
        Input::pipe(reader),
        Output::new(Sink::Buffer(Rc::clone(&out))),
    );
    assert!(poll_once(&mut awk).is_pending());
    let mut feed: LocalFuture<'_, ()> = Box::pin(async move {
        let _ = writer.write(b"a b\nc ").await;
        let _ = writer.write(b"d\n").await;
    });
    assert!(poll_once(&mut feed).is_ready());
    assert_eq!(run_until_stalled(&mut awk), Poll::Ready(0));
    assert_eq!(String::from_utf8_lossy(&out.borrow()), "1: b\n2: d\n");
}
