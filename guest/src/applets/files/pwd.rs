//! `pwd [-LP]`: print the working directory.

use crate::applets::common::{finish, out_str, parse_args};
use crate::applets::common::{warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `pwd` applet.
pub const APPLET: Applet = Applet {
    name: "pwd",
    usage: "pwd [-LP]\nPrint the name of the current working directory.\n  -L, --logical   use PWD as is, even if it contains symlinks (default)\n  -P, --physical  resolve all symlinks",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "LP",
    short_val: "",
    long: &["logical", "physical"],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        if !operands.is_empty() {
            warn(&mut ctx, "ignoring non-option arguments").await;
        }
        let physical = opts.last().is_some_and(|o| o.is('P', "physical"));
        let mut dir = ctx.cwd.clone();
        if physical {
            let real = ctx.vfs.borrow().canonicalize("/", &dir);
            match real {
                Ok(real) => dir = real,
                Err(e) => {
                    warn(&mut ctx, e).await;
                    return 1;
                }
            }
        }
        if out_str(&mut ctx, &format!("{dir}\n")).await.is_err() {
            return 1;
        }
        finish(&mut ctx, Ok(0)).await
    })
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err, run_at};
    use crate::applets::testing::vfs_with;
    use crate::applets::testing::{ok, run};

    #[test]
    fn pwd_cases() {
        assert_eq!(run("pwd", &[], ""), ok("/workspace\n"));
        assert_eq!(run("pwd", &["-L"], ""), ok("/workspace\n"));
        assert_eq!(run("pwd", &["-P"], ""), ok("/workspace\n"));
        assert_eq!(
            run("pwd", &["extra"], ""),
            both("/workspace\n", "pwd: ignoring non-option arguments\n", 0)
        );
        assert_eq!(
            run("pwd", &["-x"], ""),
            err(
                "pwd: invalid option -- 'x'\nTry 'pwd --help' for more information.\n",
                1
            )
        );
        let vfs = vfs_with(&[("real/f", "")]);
        let _ = vfs.borrow_mut().symlink("/workspace", "real", "link");
        assert_eq!(
            run_at(&vfs, "/workspace/link", "pwd", &[]),
            ok("/workspace/link\n")
        );
        assert_eq!(
            run_at(&vfs, "/workspace/link", "pwd", &["-P"]),
            ok("/workspace/real\n")
        );
        assert_eq!(
            run_at(&vfs, "/workspace/link", "pwd", &["-PL"]),
            ok("/workspace/link\n")
        );
    }
}
