//! Sessions: what persists across runs, reset, saved state, the API, host tools, and the
//! sandbox's own rules (read-only system directories).

use std::cell::RefCell;
use std::rc::Rc;
use std::task::Poll;

use super::{run, Harness, Outcome};
use crate::applets::Commands;
use crate::task::{run_until_stalled, Input, Output, Sink};

fn ok(stdout: &str) -> Outcome {
    Outcome {
        stdout: stdout.into(),
        stderr: String::new(),
        status: 0,
    }
}

fn failed(stderr: &str, status: i32) -> Outcome {
    Outcome {
        stdout: String::new(),
        stderr: stderr.into(),
        status,
    }
}

#[test]
fn state_persists_across_runs() {
    let h = Harness::new();
    assert_eq!(
        h.run("x=1; arr=(a b); f() { echo \"f:$1\"; }; cd src; set -o pipefail; false"),
        failed("", 1)
    );
    assert_eq!(
        h.run("echo $? $x ${arr[1]} $PWD $OLDPWD; f y; false | true; echo $?"),
        ok("1 1 b /workspace/src /workspace\nf:y\n1\n")
    );
    assert_eq!(h.shell.cwd(), "/workspace/src");
    assert!(h.shell.is_command("f") && h.shell.is_command("cd") && !h.shell.is_command("nope"));
}

#[test]
fn exit_and_fatal_errors_end_the_run_not_the_session() {
    let h = Harness::new();
    assert_eq!(h.run("y=2; exit 4; echo no"), failed("", 4));
    assert_eq!(
        h.run("set -u; echo $undefined; echo no"),
        failed("bash: line 1: undefined: unbound variable\n", 1)
    );
    assert_eq!(h.run("echo $y"), ok("2\n"));
}

#[test]
fn reset_forgets_everything() {
    let h = Harness::new();
    h.run("x=1; f() { :; }; cd /tmp; set -e; export E=1");
    h.shell.reset();
    assert_eq!(
        h.run("echo \"[$x]\" $PWD; type f; false; echo still"),
        Outcome {
            stdout: "[] /workspace\nstill\n".into(),
            stderr: "bash: line 1: type: f: not found\n".into(),
            status: 0,
        }
    );
}

#[test]
fn saved_state_restores_into_a_new_session() {
    let h = Harness::new();
    h.run("x='a b'; declare -A m=([k]=v); arr=(1 \"2 3\"); declare -ri n=5; export E=e; cd src; set -eu; f() { local v=$1; echo \"<$v>\" | cat; }; set -- p1 p2");
    let saved = h.shell.save_state();
    let other = Harness::new();
    assert_eq!(other.shell.restore_state(&saved), Ok(()));
    let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
    assert_eq!(text(other.shell.save_state()), text(saved.clone()));
    assert_eq!(
        other.run("echo \"$x|${m[k]}|${arr[1]}|$n|$PWD|$-|$@\"; f arg; bash -c 'echo $E'; n=6"),
        Outcome {
            stdout: "a b|v|2 3|5|/workspace/src|ehuBs|p1 p2\n<arg>\ne\n".into(),
            stderr: "bash: line 1: n: readonly variable\n".into(),
            status: 1,
        }
    );
}

#[test]
fn garbage_state_is_rejected_and_changes_nothing() {
    let h = Harness::new();
    h.run("x=kept");
    for garbage in [
        &b"not json"[..],
        b"{\"version\":99}",
        b"",
        &[0xff; 10],
        b"{\"version\":1,\"cwd\":\"rel\"}",
    ] {
        assert!(h.shell.restore_state(garbage).is_err());
    }
    let bad_function = br#"{"version":1,"cwd":"/","arg0":"bash","positional":[],"status":0,"options":[],"vars":[],"functions":[{"name":"f","source":"f () { if"}],"traps":{},"dirstack":[]}"#;
    assert!(h.shell.restore_state(bad_function).is_err());
    assert_eq!(h.run("echo $x"), ok("kept\n"));
}

#[test]
fn run_writes_to_the_execution_output() {
    let h = Harness::new();
    let out = Rc::new(RefCell::new(crate::output::Output {
        cap: 1 << 20,
        ..crate::output::Output::default()
    }));
    let shell = super::super::Shell::new(
        Rc::clone(&h.vfs),
        h.host.clone(),
        Rc::clone(&out),
        Rc::clone(&h.deadline),
    );
    let mut future = shell.run(
        "echo out; echo err >&2; cat",
        Input::bytes(Rc::new(b"in\n".to_vec())),
    );
    assert_eq!(run_until_stalled(&mut future), Poll::Ready(0));
    let mut o = out.borrow_mut();
    assert_eq!(String::from_utf8_lossy(&o.stdout.take()), "out\nin\n");
    assert_eq!(String::from_utf8_lossy(&o.stderr.take()), "err\n");
}

#[test]
fn syntax_errors_are_status_2_after_the_lines_before_them_ran() {
    let o = run("echo hi\nfor x in; do\n");
    assert_eq!(
        (o.stdout.as_str(), o.stderr.as_str(), o.status),
        (
            "hi\n",
            "bash: line 3: syntax error: unexpected end of file\n",
            2
        )
    );
    // The failing command started on line 2: the `if` does not run, line 1 does.
    let o = run("echo a\nif true; then\necho b\nfi fi\necho c");
    assert_eq!((o.stdout.as_str(), o.status), ("a\n", 2));
    assert_eq!(run("exit 3\nfi").status, 3);
    assert_eq!(
        run("echo a; done"),
        failed("bash: line 1: syntax error near unexpected token `done'\nbash: line 1: `echo a; done'\n", 2)
    );
}

#[test]
fn system_directories_are_read_only() {
    assert_eq!(
        run("echo x > /etc/x; echo \"status $?\"; cd /etc; pwd"),
        Outcome {
            stdout: "status 1\n/etc\n".into(),
            stderr: "bash: line 1: /etc/x: Permission denied\n".into(),
            status: 0,
        }
    );
    assert_eq!(
        run("[ -w /etc ] || echo ro; [ -w /tmp ] && echo rw"),
        ok("ro\nrw\n")
    );
}

#[test]
fn files_written_by_redirections_land_in_the_vfs() {
    let h = Harness::new();
    assert_eq!(
        h.run("echo a > out.txt; echo b >> out.txt; { echo c; echo d >&2; } >> out.txt 2>&1"),
        ok("")
    );
    assert_eq!(h.file("out.txt"), "a\nb\nc\nd\n");
    assert_eq!(h.run("cat > /tmp/h <<EOF\nx $((1+1))\nEOF"), ok(""));
    assert_eq!(
        h.vfs.borrow().read("/", "/tmp/h").map(|b| b.to_vec()),
        Ok(b"x 2\n".to_vec())
    );
}

#[test]
fn process_substitution_files_are_removed_afterwards() {
    let h = Harness::new();
    assert_eq!(h.run("cat <(echo one) <(echo two)"), ok("one\ntwo\n"));
    assert_eq!(h.vfs.borrow().read_dir("/", "/tmp").map(|e| e.len()), Ok(0));
    assert_eq!(
        h.run(
            "printf 'b\\na\\n' | tee >(sort > /tmp/sorted) >(wc -l) > /dev/null; cat /tmp/sorted"
        ),
        ok("2\na\nb\n")
    );
    assert_eq!(h.run("rm /tmp/sorted; ls -A /tmp | wc -l"), ok("0\n"));
}

#[test]
fn output_process_substitution_reads_what_its_command_wrote() {
    let h = Harness::new();
    assert_eq!(
        h.run("echo hello > >(tr a-z A-Z); echo after"),
        ok("HELLO\nafter\n")
    );
    // A compound command's redirection: the substitution runs once the loop has ended.
    assert_eq!(
        h.run("for i in 1 2; do echo $i; done > >(sed s/^/x/)"),
        ok("x1\nx2\n")
    );
    // Nested commands keep their own substitutions: the inner `tee` ends first.
    assert_eq!(
        h.run("{ echo a | tee >(sed s/^/in/); echo b; } > >(sed s/^/out-/)"),
        ok("out-a\nout-ina\nout-b\n")
    );
    let printed = h.run("echo >(cat)").stdout;
    assert!(printed.starts_with("/tmp/.corral-psub-"), "{printed}");
}

#[test]
fn tool_calls_coerce_arguments_and_print_json() {
    let h = Harness::new();
    assert_eq!(
        h.run("tool weather/get --city Paris --days 3"),
        ok("{\n  \"city\": \"Paris\",\n  \"temp\": 21.5\n}\n")
    );
    assert_eq!(
        h.host.calls.borrow().last().cloned(),
        Some((
            "weather/get".into(),
            "{\"city\":\"Paris\",\"days\":3}".into()
        ))
    );
    assert_eq!(
        h.run("tool weather_get --city=Oslo | cat").stdout,
        "{\n  \"city\": \"Oslo\",\n  \"temp\": 21.5\n}\n"
    );
    let printed = h
        .run("tool echo --n 4 --x 1.5 --flag --tags a,b --tags c --obj '{\"k\":[1]}' --s 007 --extra v")
        .stdout;
    assert!(
        printed.starts_with("{\n  \"") && printed.ends_with("\n}\n"),
        "{printed}"
    );
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&printed).ok(),
        Some(
            serde_json::json!({"n": 4, "x": 1.5, "flag": true, "tags": ["a", "b", "c"], "obj": {"k": [1]}, "s": "007", "extra": "v"})
        )
    );
    assert_eq!(
        h.run("echo '{\"s\": \"from stdin\"}' | tool echo").stdout,
        "{\n  \"s\": \"from stdin\"\n}\n"
    );
    assert_eq!(
        h.run("tool echo --json '{\"n\": 1}' --n 2").stdout,
        "{\n  \"n\": 2\n}\n"
    );
    assert_eq!(h.run("r=$(tool text); echo \"$r\""), ok("\"plain\"\n"));
}

#[test]
fn tool_errors_are_one_line() {
    assert_eq!(run("tool"), Outcome {
        stdout: String::new(),
        stderr: "usage: tool NAME [--key value ...] [--json '{...}' | --json -]\n       tool --list\n       tool --help NAME\nArguments are converted by the tool's schema; with no flags or with --json -, a JSON object\nis read from stdin.\n".into(),
        status: 2,
    });
    assert_eq!(
        run("tool nope --a 1"),
        failed("tool: unknown tool 'nope' (try tool --list)\n", 1)
    );
    assert_eq!(
        run("tool transfer_money --amount 5000"),
        failed(
            "tool: transfer_money denied: amount <= 1000 failed (amount = 5000)\n",
            1
        )
    );
    assert_eq!(
        run("tool broken"),
        failed("tool: broken failed: RuntimeError: it broke\n", 1)
    );
    assert_eq!(
        run("tool echo --n five"),
        failed("tool: echo: --n: expected an integer, got 'five'\n", 1)
    );
    assert_eq!(
        run("tool echo positional"),
        failed(
            "tool: echo: unexpected argument 'positional' (use --key value)\n",
            1
        )
    );
}

#[test]
fn tool_list_and_help() {
    let list = run("tool --list").stdout;
    assert!(
        list.starts_with(
            "weather/get     Current weather for a city.\necho            Returns its arguments.\n"
        ),
        "{list}"
    );
    assert_eq!(
        run("tool --help weather_get").stdout,
        "weather/get\n  Current weather for a city.\nParameters:\n  --city <string> (required)\n  --days <integer>\nExample: tool weather/get --city ...\n"
    );
}

#[test]
fn applets_exec_commands_through_the_shell() {
    let h = Harness::new();
    h.run("greet() { echo \"hi $1 from $PWD\"; }");
    let host =
        crate::shell::interp::exec::simple::ShellCommands::new(h.shell.sh.clone(), Vec::new());
    let out = Rc::new(RefCell::new(Vec::new()));
    let mut future = host.exec(
        vec!["greet".into(), "you".into()],
        "/tmp".into(),
        None,
        Input::empty(),
        Output::new(Sink::Buffer(Rc::clone(&out))),
        Output::new(Sink::Null),
    );
    assert_eq!(run_until_stalled(&mut future), Poll::Ready(0));
    assert_eq!(String::from_utf8_lossy(&out.borrow()), "hi you from /tmp\n");
    assert_eq!(h.shell.cwd(), "/workspace");
}

#[test]
fn xtrace_prints_commands() {
    assert_eq!(
        run("set -x; x=$(echo 'a b'); echo \"$x\" '*'; for i in 1; do (( i++ )); done"),
        Outcome {
            stdout: "a b *\n".into(),
            stderr: "++ echo 'a b'\n+ x='a b'\n+ echo 'a b' '*'\n+ for i in 1\n+ ((  i++  ))\n"
                .into(),
            status: 0,
        }
    );
}

#[test]
fn declare_f_and_type_print_functions_like_bash() {
    assert_eq!(
        run("f() { if [ -n \"$1\" ]; then echo \"$1\"; fi; for i in 1 2; do echo $i; done; }; declare -f f").stdout,
        "f () \n{ \n    if [ -n \"$1\" ]; then\n        echo \"$1\";\n    fi;\n    for i in 1 2;\n    do\n        echo $i;\n    done\n}\n"
    );
}

#[test]
fn missing_programs_say_why() {
    assert_eq!(
        run("python3 -c 'print(1)'"),
        failed(
            "bash: line 1: python3: command not found (this sandbox runs the shell and JavaScript only; `help` lists the commands)\n",
            127
        )
    );
    assert_eq!(run("curl -s x").stderr, "bash: line 1: curl: command not found (there is no network here; host tools are called with `tool NAME`, see `tool --list`)\n");
    assert_eq!(
        run("frobnicate").stderr,
        "bash: line 1: frobnicate: command not found\n"
    );
}

#[test]
fn background_jobs_run_beside_the_script() {
    assert_eq!(
        run("(echo one; exit 3) & echo \"launched $?\"; wait $!; echo \"job $?\"; wait 9999; echo $?"),
        Outcome {
            stdout: "launched 0\none\njob 3\n127\n".into(),
            stderr: "bash: line 1: wait: pid 9999 is not a child of this shell\n".into(),
            status: 0,
        }
    );
}

#[test]
fn jobs_interleave_and_the_run_waits_for_them() {
    // Each job yields between lines, so their output interleaves with the script's.
    let script = "for i in 1 2 3; do echo a$i; done & for i in 1 2 3; do echo b$i; done; echo end";
    let out = run(script);
    assert_eq!(out.status, 0);
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 7, "{lines:?}");
    for expected in ["a1", "a2", "a3", "b1", "b2", "b3", "end"] {
        assert!(lines.contains(&expected), "{expected} missing: {lines:?}");
    }
    // The script ended before the job did; the run still waited for the job's output.
    let unwaited = run("{ for i in 1 2 3 4 5 6 7 8; do :; done; echo late; } & echo early");
    assert_eq!(unwaited.stdout, "early\nlate\n");
}

#[test]
fn wait_kill_and_jobs_follow_bash() {
    let script = "false & p=$!; wait $p; echo \"a $?\"; wait $p; echo \"b $?\"; \
                  while :; do :; done & kill $!; wait $!; echo \"c $?\"; \
                  while :; do :; done & kill -INT %1; kill -0 %1 && kill -HUP %1; wait %1; echo \"d $?\"; \
                  (exit 4) & wait -n; echo \"e $?\"; wait -n; echo \"f $?\"; \
                  kill %7; kill 4242; kill; echo \"g $?\"";
    let out = run(script);
    assert_eq!(out.stdout, "a 1\nb 1\nc 143\nd 129\ne 4\nf 127\ng 2\n");
    assert_eq!(
        out.stderr,
        "bash: line 1: kill: %7: no such job\n\
         bash: line 1: kill: (4242) - No such process\n\
         kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n"
    );
}

#[test]
fn a_job_waits_only_for_its_own_jobs() {
    // Without owners, `wait` inside a job would wait for the job itself: a deadlock.
    let script =
        "f() { echo \"in $1\" & wait; echo \"out $1\"; }; f x & f y & wait; jobs; echo done";
    let out = run(script);
    assert_eq!(out.status, 0);
    let mut lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.pop(), Some("done"));
    lines.sort_unstable();
    assert_eq!(lines, ["in x", "in y", "out x", "out y"]);
}

#[test]
fn jobs_lists_running_jobs_with_bash_marks() {
    let script = "while :; do :; done & while :; do :; done & jobs; jobs -p; kill %1 %2";
    assert_eq!(
        run(script).stdout,
        "[1]-  Running                 while :; do\n    :;\ndone &\n\
         [2]+  Running                 while :; do\n    :;\ndone &\n1001\n1002\n"
    );
}

#[test]
fn printf_v_assigns() {
    if crate::applets::lookup("printf").is_none() {
        assert_eq!(run("printf x").status, 127);
        return;
    }
    assert_eq!(
        run("printf -v x '%s-%s' a b; echo \"$x\"; printf -v 'arr[2]' %d 7; echo ${arr[2]}"),
        ok("a-b\n7\n")
    );
}
