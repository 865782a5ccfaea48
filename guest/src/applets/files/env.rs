//! `env [-i] [-u NAME] [NAME=VALUE]... [COMMAND [ARG]...]` and `printenv [NAME]...`.

use crate::applets::common::{conclude, out, parse_args, Res};
use crate::applets::common::{run_forwarded, status_after, Child, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture};
use std::collections::BTreeMap;

/// The `env` applet.
pub const ENV: Applet = Applet {
    name: "env",
    usage: "env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]\nPrint the environment, or run COMMAND in it.\n  -i, --ignore-environment  start with an empty environment\n  -u, --unset=NAME          remove NAME from the environment\n  -0, --null                end each output line with NUL, not newline\nCOMMAND runs with the changed environment.",
    help: Help::BeforeOperand,
    run: run_env,
};

/// The `printenv` applet.
pub const PRINTENV: Applet = Applet {
    name: "printenv",
    usage: "printenv [OPTION]... [VARIABLE]...\nPrint the values of the given environment variables, or all of them.\n  -0, --null  end each output line with NUL, not newline",
    help: Help::Anywhere,
    run: run_printenv,
};

const ENV_SPEC: OptSpec = OptSpec {
    short: "i0",
    short_val: "u",
    long: &["ignore-environment", "null"],
    long_val: &["unset"],
    digits: None,
    stop_at_operand: true,
};

fn run_env(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, mut operands) = match parse_args(&mut ctx, &ENV_SPEC, 125).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut env: BTreeMap<String, String> = (*ctx.env).clone();
        let mut changed = false;
        let mut nul = false;
        for opt in &opts {
            if opt.is('i', "ignore-environment") {
                env.clear();
                changed = true;
            } else if opt.is('u', "unset") {
                env.remove(opt.value());
                changed = true;
            } else if opt.is('0', "null") {
                nul = true;
            }
        }
        if operands.first().is_some_and(|a| a == "-") {
            operands.remove(0);
            env.clear();
            changed = true;
        }
        let mut rest = operands.as_slice();
        while let Some((first, tail)) = rest.split_first() {
            let Some((name, value)) = first.split_once('=') else {
                break;
            };
            env.insert(name.to_string(), value.to_string());
            changed = true;
            rest = tail;
        }
        if rest.is_empty() {
            let result = print_all(&mut ctx, &env, nul).await;
            return conclude(&mut ctx, result.map(|()| 0)).await;
        }
        let stdin = std::mem::replace(&mut ctx.stdin, Input::empty());
        let cwd = ctx.cwd.clone();
        let child = Child {
            cwd: &cwd,
            env: changed.then_some(env),
        };
        let commands = ctx.commands.clone();
        let ran = run_forwarded(
            &*commands,
            child,
            rest.to_vec(),
            stdin,
            &mut ctx.stdout,
            &mut ctx.stderr,
        );
        let ran = ran.await;
        status_after(&mut ctx, ran, 125).await
    })
}

async fn print_all(ctx: &mut Ctx, env: &BTreeMap<String, String>, nul: bool) -> Res {
    let end = if nul { "\0" } else { "\n" };
    for (name, value) in env {
        out(ctx, format!("{name}={value}{end}").as_bytes()).await?;
    }
    Ok(())
}

const PRINTENV_SPEC: OptSpec = OptSpec {
    short: "0",
    short_val: "",
    long: &["null"],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

fn run_printenv(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, names) = match parse_args(&mut ctx, &PRINTENV_SPEC, 2).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let nul = !opts.is_empty();
        let env = std::rc::Rc::clone(&ctx.env);
        let result = if names.is_empty() {
            print_all(&mut ctx, &env, nul).await.map(|()| 0)
        } else {
            print_values(&mut ctx, &env, &names, nul).await
        };
        conclude(&mut ctx, result).await
    })
}

async fn print_values(
    ctx: &mut Ctx,
    env: &BTreeMap<String, String>,
    names: &[String],
    nul: bool,
) -> Res<i32> {
    let mut status = 0;
    for name in names {
        match env.get(name) {
            Some(value) if !name.contains('=') => {
                let end = if nul { "\0" } else { "\n" };
                out(ctx, format!("{value}{end}").as_bytes()).await?;
            }
            _ => status = 1,
        }
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{err, run_full};
    use crate::applets::testing::{ok, run, vfs_with, Outcome};

    fn with_env(name: &str, args: &[&str]) -> Outcome {
        let vfs = vfs_with(&[]);
        let env = [("HOME", "/home/user"), ("A", "1"), ("PATH", "/bin")];
        let (out, stderr, status) = run_full(&vfs, "/workspace", &env, name, args, b"in\n");
        Outcome {
            stdout: String::from_utf8_lossy(&out).into_owned(),
            stderr,
            status,
        }
    }

    #[test]
    fn env_cases() {
        assert_eq!(
            with_env("env", &[]),
            ok("A=1\nHOME=/home/user\nPATH=/bin\n")
        );
        assert_eq!(with_env("env", &["-i"]), ok(""));
        assert_eq!(with_env("env", &["-i", "X=1", "B=2"]), ok("B=2\nX=1\n"));
        assert_eq!(with_env("env", &["-u", "HOME", "-u", "PATH"]), ok("A=1\n"));
        assert_eq!(
            with_env("env", &["--unset=A", "-0"]),
            ok("HOME=/home/user\0PATH=/bin\0")
        );
        assert_eq!(with_env("env", &["-", "Z=9"]), ok("Z=9\n"));
        assert_eq!(
            with_env("env", &["A=2"]),
            ok("A=2\nHOME=/home/user\nPATH=/bin\n")
        );
        assert_eq!(with_env("env", &["echo", "hi", "-n"]), ok("hi -n\n"));
        assert_eq!(with_env("env", &["cat"]), ok("in\n"));
        assert_eq!(with_env("env", &["nope-cmd"]).status, 127);
        assert_eq!(with_env("env", &["-i", "Y=2", "env"]), ok("Y=2\n"));
        assert_eq!(
            with_env("env", &["-u", "HOME", "A=3", "printenv"]),
            ok("A=3\nPATH=/bin\n")
        );
        assert_eq!(
            run("env", &["-x"], ""),
            err(
                "env: invalid option -- 'x'\nTry 'env --help' for more information.\n",
                125
            )
        );
    }

    #[test]
    fn printenv_cases() {
        assert_eq!(
            with_env("printenv", &[]),
            ok("A=1\nHOME=/home/user\nPATH=/bin\n")
        );
        assert_eq!(with_env("printenv", &["HOME"]), ok("/home/user\n"));
        assert_eq!(with_env("printenv", &["PATH", "A"]), ok("/bin\n1\n"));
        assert_eq!(with_env("printenv", &["-0", "A"]), ok("1\0"));
        let missing = with_env("printenv", &["NOPE", "A"]);
        assert_eq!((missing.stdout.as_str(), missing.status), ("1\n", 1));
        assert_eq!(with_env("printenv", &["A=1"]).status, 1);
        assert_eq!(
            run("printenv", &["-x"], ""),
            err(
                "printenv: invalid option -- 'x'\nTry 'printenv --help' for more information.\n",
                2
            )
        );
    }
}
