//! `link FILE1 FILE2` and `unlink FILE`: the bare `link(2)` and `unlink(2)` calls, one name
//! each, without `ln`'s and `rm`'s options.

use crate::applets::common::{conclude, parse_args, quote, usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `link` applet.
pub const LINK: Applet = Applet {
    name: "link",
    usage: "link FILE1 FILE2\nCall the link function to create a link named FILE2 to an existing FILE1\n(a hard link: another name for the same file).",
    help: Help::Anywhere,
    run: run_link,
};

/// The `unlink` applet.
pub const UNLINK: Applet = Applet {
    name: "unlink",
    usage: "unlink FILE\nCall the unlink function to remove the specified FILE (not a directory).",
    help: Help::Anywhere,
    run: run_unlink,
};

/// Neither takes options (but `--help`, and `--` to end them).
const SPEC: OptSpec = OptSpec {
    short: "",
    short_val: "",
    long: &[],
    long_val: &[],
    digits: None,
    stop_at_operand: true,
};

/// The operands, when there are exactly `want`; otherwise the usage error's status.
async fn operands(ctx: &mut Ctx, want: usize) -> Result<Vec<String>, i32> {
    let (_, operands) = parse_args(ctx, &SPEC, 1).await?;
    let message = match (operands.len(), operands.last()) {
        (n, _) if n == want => return Ok(operands),
        (0, _) => "missing operand".to_string(),
        (n, Some(last)) if n < want => format!("missing operand after {}", quote(last)),
        _ => format!("extra operand {}", quote(&operands[want])),
    };
    Err(usage_error(ctx, message, 1).await)
}

fn run_link(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let [target, name] = match operands(&mut ctx, 2).await.as_deref() {
            Ok([target, name]) => [target.clone(), name.clone()],
            Ok(_) => return 1,
            Err(status) => return *status,
        };
        let made = ctx.vfs.borrow_mut().link(&ctx.cwd, &target, &name, false);
        if let Err(e) = made {
            let message = format!(
                "cannot create link {} to {}: {}",
                quote(&name),
                quote(&target),
                e.code
            );
            warn(&mut ctx, message).await;
            return conclude(&mut ctx, Ok(1)).await;
        }
        conclude(&mut ctx, Ok(0)).await
    })
}

fn run_unlink(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let file = match operands(&mut ctx, 1).await {
            Ok(mut operands) => operands.remove(0),
            Err(status) => return status,
        };
        let removed = ctx.vfs.borrow_mut().remove_file(&ctx.cwd, &file);
        if let Err(e) = removed {
            let message = format!("cannot unlink {}: {}", quote(&file), e.code);
            warn(&mut ctx, message).await;
            return conclude(&mut ctx, Ok(1)).await;
        }
        conclude(&mut ctx, Ok(0)).await
    })
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{err, tree};
    use crate::applets::testing::{ok, run_in, vfs_with};

    #[test]
    fn link_makes_one_more_name() {
        let vfs = vfs_with(&[("a", "A"), ("d/x", "")]);
        assert_eq!(run_in(&vfs, "link", &["a", "b"], ""), ok(""));
        let ino = |p: &str| vfs.borrow().stat("/workspace", p).map(|s| (s.ino, s.nlink));
        assert_eq!(ino("a"), ino("b"));
        assert_eq!(ino("b").map(|s| s.1), Ok(2));
        let fails = [
            (
                ["a", "b"],
                "link: cannot create link 'b' to 'a': File exists\n",
            ),
            (
                ["d", "e"],
                "link: cannot create link 'e' to 'd': Operation not permitted\n",
            ),
            (
                ["no", "z"],
                "link: cannot create link 'z' to 'no': No such file or directory\n",
            ),
        ];
        for (args, message) in fails {
            assert_eq!(run_in(&vfs, "link", &args, ""), err(message, 1));
        }
        assert_eq!(
            run_in(&vfs, "link", &["a"], ""),
            err(
                "link: missing operand after 'a'\nTry 'link --help' for more information.\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "link", &["a", "b", "c"], ""),
            err(
                "link: extra operand 'c'\nTry 'link --help' for more information.\n",
                1
            )
        );
        assert_eq!(tree(&vfs), "a=A\nb=A\nd/\nd/x=");
    }

    #[test]
    fn unlink_removes_one_name() {
        let vfs = vfs_with(&[("a", "A"), ("d/x", "")]);
        assert_eq!(run_in(&vfs, "link", &["a", "b"], ""), ok(""));
        assert_eq!(run_in(&vfs, "unlink", &["a"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "unlink", &["a"], ""),
            err("unlink: cannot unlink 'a': No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "unlink", &["d"], ""),
            err("unlink: cannot unlink 'd': Is a directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "unlink", &[], ""),
            err(
                "unlink: missing operand\nTry 'unlink --help' for more information.\n",
                1
            )
        );
        assert_eq!(tree(&vfs), "b=A\nd/\nd/x=");
    }
}
