//! `timeout DURATION COMMAND...`, `nice [-n N] COMMAND...`, `nohup COMMAND...` and
//! `busybox APPLET...`: commands that run another command. `timeout` stops it when the time is up, as GNU's does with
//! SIGTERM; there is one process here, so stopping it means dropping it where it waits or
//! yields (the shell's loops yield regularly), and its output so far stays written. `nice` and
//! `nohup` only run it: there is no scheduler priority to lower and no hangup to ignore.

use std::future::{poll_fn, Future};
use std::task::Poll;

use crate::applets::common::{
    parse_args, print_help, run_child, status_after, usage_error, warn, OptSpec,
};
use crate::applets::files::sleep::parse_interval;
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture};

/// The `timeout` applet.
pub const TIMEOUT: Applet = Applet {
    name: "timeout",
    usage: "timeout [OPTION] DURATION COMMAND [ARG]...\nRun COMMAND and stop it if it still runs after DURATION (a number with an optional\nsuffix s, m, h or d; 0 disables the limit). Exit status 124 when it timed out.\n  -k, --kill-after=DURATION  accepted (the command is stopped at once)\n  -p, --preserve-status      exit with the status of a stopped command (128+signal)\n  -s, --signal=SIGNAL        the signal named in -v's message and in -p's status (TERM)\n  -f, --foreground           accepted (there is no process group)\n  -v, --verbose              say on stderr when the command is stopped",
    help: Help::BeforeOperand,
    run: run_timeout,
};

/// The `nice` applet.
pub const NICE: Applet = Applet {
    name: "nice",
    usage: "nice [-n N] [COMMAND [ARG]...]\nRun COMMAND (its priority stays as it is: the sandbox runs one command at a time);\nwith no COMMAND, print the niceness (0).\n  -n, --adjustment=N  the adjustment (checked, then ignored)",
    help: Help::BeforeOperand,
    run: run_nice,
};

/// The `nohup` applet.
pub const NOHUP: Applet = Applet {
    name: "nohup",
    usage: "nohup COMMAND [ARG]...\nRun COMMAND (nothing here sends hangups; output is not a terminal, so it stays where\nit goes).",
    help: Help::BeforeOperand,
    run: run_nohup,
};

/// The `busybox` applet: BusyBox's multi-call form, which scripts (BusyBox's own testsuite
/// among them) use to reach the applet rather than a shell builtin or function.
pub const BUSYBOX: Applet = Applet {
    name: "busybox",
    usage: "busybox APPLET [ARG]...\n   or: busybox --list\n   or: busybox --help [APPLET]\nRun APPLET (a command of /bin: not a function or builtin of that name) with ARGs;\nlist the applets; show this help or APPLET's.",
    help: Help::Own,
    run: run_busybox,
};

const TIMEOUT_SPEC: OptSpec = OptSpec {
    short: "fpv",
    short_val: "ks",
    long: &["foreground", "preserve-status", "verbose"],
    long_val: &["kill-after", "signal"],
    digits: None,
    stop_at_operand: true,
};

/// GNU timeout's own failures (a bad option or duration).
const TIMEOUT_FAILED: i32 = 125;
/// What `timeout` exits with when the command ran out of time.
const TIMED_OUT: i32 = 124;

/// Signals `-s` accepts, with their numbers (for `--preserve-status`).
const SIGNALS: [(&str, i32); 8] = [
    ("HUP", 1),
    ("INT", 2),
    ("QUIT", 3),
    ("KILL", 9),
    ("USR1", 10),
    ("USR2", 12),
    ("ALRM", 14),
    ("TERM", 15),
];

fn signal_number(name: &str) -> Option<(&'static str, i32)> {
    let bare = name.strip_prefix("SIG").unwrap_or(name);
    SIGNALS
        .iter()
        .find(|(n, number)| n.eq_ignore_ascii_case(bare) || bare == number.to_string())
        .copied()
}

fn run_timeout(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &TIMEOUT_SPEC, TIMEOUT_FAILED).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut signal = ("TERM", 15);
        for opt in &opts {
            let value = opt.value().to_string();
            if opt.is('s', "signal") {
                match signal_number(&value) {
                    Some(found) => signal = found,
                    None => {
                        let message = format!("'{value}': invalid signal");
                        return usage_error(&mut ctx, message, TIMEOUT_FAILED).await;
                    }
                }
            } else if opt.is('k', "kill-after") && parse_interval(&value).is_none() {
                let message = format!("invalid time interval '{value}'");
                return usage_error(&mut ctx, message, TIMEOUT_FAILED).await;
            }
        }
        let (duration, argv) = match operands.split_first() {
            Some((duration, argv)) if !argv.is_empty() => (duration, argv.to_vec()),
            // GNU's timeout gives only the hint here.
            _ => {
                let _ = ctx
                    .stderr
                    .write_str("Try 'timeout --help' for more information.\n")
                    .await;
                return TIMEOUT_FAILED;
            }
        };
        let Some(ms) = parse_interval(duration) else {
            let message = format!("invalid time interval '{duration}'");
            return usage_error(&mut ctx, message, TIMEOUT_FAILED).await;
        };
        let name = argv[0].clone();
        let stdin = std::mem::replace(&mut ctx.stdin, Input::empty());
        let started = ctx.host.now_ms();
        let host = ctx.host.clone();
        let ran = {
            let child = run_child(&mut ctx, argv, stdin);
            if ms > 0.0 {
                within(child, host.sleep(ms), || host.now_ms() - started >= ms).await
            } else {
                Some(child.await)
            }
        };
        match ran {
            Some(ran) => status_after(&mut ctx, ran, TIMEOUT_FAILED).await,
            None => {
                if opts.iter().any(|o| o.is('v', "verbose")) {
                    let message = format!("sending signal {} to command '{name}'", signal.0);
                    warn(&mut ctx, message).await;
                }
                if opts.iter().any(|o| o.is('p', "preserve-status")) {
                    128 + signal.1
                } else {
                    TIMED_OUT
                }
            }
        }
    })
}

/// Runs `task` until it ends or the time is up: when `timer` (a host sleep, for a task that
/// waits) fires or `expired()` (the clock, read whenever the task yields while it computes)
/// says so. None when the time ran out; the task is then dropped.
async fn within<T>(
    task: impl Future<Output = T>,
    timer: LocalFuture<'static, ()>,
    expired: impl Fn() -> bool,
) -> Option<T> {
    let mut task = std::pin::pin!(task);
    let mut timer = timer;
    poll_fn(move |cx| {
        if let Poll::Ready(value) = task.as_mut().poll(cx) {
            return Poll::Ready(Some(value));
        }
        if timer.as_mut().poll(cx).is_ready() || expired() {
            return Poll::Ready(None);
        }
        Poll::Pending
    })
    .await
}

const NICE_SPEC: OptSpec = OptSpec {
    short: "",
    short_val: "n",
    long: &[],
    long_val: &["adjustment"],
    digits: None,
    stop_at_operand: true,
};

fn run_nice(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &NICE_SPEC, TIMEOUT_FAILED).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        if let Some(bad) = opts
            .iter()
            .map(|o| o.value().to_string())
            .find(|n| n.parse::<i64>().is_err())
        {
            warn(&mut ctx, format!("invalid adjustment '{bad}'")).await;
            return TIMEOUT_FAILED;
        }
        if operands.is_empty() {
            if !opts.is_empty() {
                let message = "a command must be given with an adjustment";
                return usage_error(&mut ctx, message, TIMEOUT_FAILED).await;
            }
            return print_line(&mut ctx, "0").await;
        }
        run_plain(&mut ctx, operands).await
    })
}

fn run_nohup(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let spec = OptSpec {
            stop_at_operand: true,
            ..OptSpec::default()
        };
        let operands = match parse_args(&mut ctx, &spec, TIMEOUT_FAILED).await {
            Ok((_, operands)) => operands,
            Err(status) => return status,
        };
        if operands.is_empty() {
            return usage_error(&mut ctx, "missing operand", TIMEOUT_FAILED).await;
        }
        run_plain(&mut ctx, operands).await
    })
}

fn run_busybox(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let mut argv = ctx.args.clone();
        match argv.first().map(String::as_str) {
            None | Some("--help") if argv.len() < 2 => {
                return print_help(&mut ctx, BUSYBOX.usage).await;
            }
            Some("--help") => argv = vec![argv[1].clone(), "--help".to_string()],
            Some("--list") => {
                let mut names: Vec<&str> = crate::applets::all().map(|a| a.name).collect();
                names.extend(crate::applets::BUILTIN_FILES);
                names.sort_unstable();
                return print_line(&mut ctx, &names.join("\n")).await;
            }
            _ => {}
        }
        let name = &mut argv[0];
        if name.contains('/') || !crate::applets::in_applet_dirs(name) {
            // BusyBox's message, without its name.
            let _ = ctx
                .stderr
                .write_str(&format!("{name}: applet not found\n"))
                .await;
            return 127;
        }
        // The program file, as `/bin/NAME` runs it: the applet, or a builtin's program.
        *name = format!("/bin/{name}");
        run_plain(&mut ctx, argv).await
    })
}

/// Runs `argv` with our streams; its exit status is ours.
async fn run_plain(ctx: &mut Ctx, argv: Vec<String>) -> i32 {
    let stdin = std::mem::replace(&mut ctx.stdin, Input::empty());
    let ran = run_child(ctx, argv, stdin).await;
    status_after(ctx, ran, TIMEOUT_FAILED).await
}

async fn print_line(ctx: &mut Ctx, line: &str) -> i32 {
    let result = crate::applets::common::out_str(ctx, &format!("{line}\n")).await;
    crate::applets::common::conclude(ctx, result.map(|()| 0)).await
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::err;
    use crate::applets::testing::{ok, run};

    #[test]
    fn timeout_runs_the_command_and_passes_its_status_on() {
        assert_eq!(run("timeout", &["5", "echo", "hi"], ""), ok("hi\n"));
        assert_eq!(run("timeout", &["0", "false"], "").status, 1);
        assert_eq!(run("timeout", &["1", "nope"], "").status, 127);
        assert_eq!(
            run("timeout", &["x", "true"], ""),
            err(
                "timeout: invalid time interval 'x'\nTry 'timeout --help' for more information.\n",
                125
            )
        );
        assert_eq!(
            run("timeout", &["5"], ""),
            err("Try 'timeout --help' for more information.\n", 125)
        );
    }

    #[test]
    fn nice_and_nohup_run_the_command() {
        assert_eq!(run("nice", &[], ""), ok("0\n"));
        assert_eq!(run("nice", &["-n", "5", "echo", "x"], ""), ok("x\n"));
        assert_eq!(run("nohup", &["echo", "y"], ""), ok("y\n"));
        assert_eq!(run("nohup", &["false"], "").status, 1);
    }

    #[test]
    fn busybox_runs_lists_and_explains_its_applets() {
        let help = run("busybox", &[], "");
        assert!(help.stdout.starts_with("Usage: busybox APPLET"), "{help:?}");
        assert_eq!(run("busybox", &["--help"], ""), help);
        let list = run("busybox", &["--list"], "").stdout;
        assert!(list.starts_with("[\narch\nawk\n"), "{list}");
        assert!(list.contains("\ntest\n"), "{list}");
        for name in ["../x", "nope", ""] {
            let message = format!("{name}: applet not found\n");
            assert_eq!(run("busybox", &[name], ""), err(&message, 127));
            assert_eq!(run("busybox", &["--help", name], ""), err(&message, 127));
        }
    }
}
