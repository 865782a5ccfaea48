//! `true` and `false`: do nothing, successfully or not.

use crate::applets::common::print_help;
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `true` applet.
pub const TRUE: Applet = Applet {
    name: "true",
    usage: "true [ignored arguments]\nExit with a status code indicating success.",
    help: Help::Own,
    run: run_true,
};

/// The `false` applet.
pub const FALSE: Applet = Applet {
    name: "false",
    usage: "false [ignored arguments]\nExit with a status code indicating failure.",
    help: Help::Own,
    run: run_false,
};

fn run_true(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(answer(ctx, TRUE.usage, 0))
}

fn run_false(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(answer(ctx, FALSE.usage, 1))
}

/// Like GNU, only a lone `--help` is looked at; the help exits with the command's status.
async fn answer(mut ctx: Ctx, usage: &str, status: i32) -> i32 {
    if ctx.args.len() == 1 && ctx.args[0] == "--help" {
        print_help(&mut ctx, usage).await;
    }
    status
}

#[cfg(test)]
mod tests {
    use crate::applets::testing::{ok, run};

    #[test]
    fn true_false_cases() {
        assert_eq!(run("true", &[], ""), ok(""));
        assert_eq!(run("true", &["-x", "--bogus"], ""), ok(""));
        assert_eq!(run("false", &[], "").status, 1);
        assert_eq!(run("false", &["x"], "").stdout, "");
        assert!(run("true", &["--help"], "")
            .stdout
            .starts_with("Usage: true"));
        let help = run("false", &["--help"], "");
        assert_eq!(
            (help.status, help.stdout.starts_with("Usage: false")),
            (1, true)
        );
        assert_eq!(run("true", &["--help", "x"], ""), ok(""));
    }
}
