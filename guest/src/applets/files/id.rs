//! `id [-ugGnr] [USER]` and `whoami`: the sandbox's one user. Code here runs as `user`
//! (uid 1000) in group `user` (gid 1000), the same identity `$USER`, `$UID` and `ls -l` show.

use super::system::print_alone;
use crate::applets::common::{conclude, out_str, parse_args};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The sandbox user's name.
pub const USER: &str = "user";
/// The sandbox user's id (also its group's).
pub const UID: u32 = 1000;

/// The `id` applet.
pub const ID: Applet = Applet {
    name: "id",
    usage: "id [OPTION]... [USER]\nPrint user and group information (this sandbox has one user: user, uid 1000, gid 1000).\n  -g, --group    print only the effective group ID\n  -G, --groups   print all group IDs\n  -n, --name     print a name instead of a number, for -ugG\n  -r, --real     print the real ID instead of the effective ID, with -ugG\n  -u, --user     print only the effective user ID",
    help: Help::Anywhere,
    run: run_id,
};

/// The `whoami` applet.
pub const WHOAMI: Applet = Applet {
    name: "whoami",
    usage: "whoami\nPrint the user name (always 'user' in this sandbox).",
    help: Help::Anywhere,
    run: run_whoami,
};

const ID_SPEC: OptSpec = OptSpec {
    short: "ugGnrz",
    short_val: "",
    long: &["user", "group", "groups", "name", "real", "zero"],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

fn run_id(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &ID_SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let has = |c, long| opts.iter().any(|o| o.is(c, long));
        let only = [has('u', "user"), has('g', "group"), has('G', "groups")];
        if only.iter().filter(|&&b| b).count() > 1 {
            return usage_error(&mut ctx, "cannot print \"only\" of more than one choice", 1).await;
        }
        let name = has('n', "name");
        if !only.contains(&true) && (name || has('r', "real")) {
            warn(
                &mut ctx,
                "cannot print only names or real IDs in default format",
            )
            .await;
            return 1;
        }
        if let Some(other) = operands
            .iter()
            .find(|u| u.as_str() != USER && *u != &UID.to_string())
        {
            warn(
                &mut ctx,
                format!("'{other}': no such user (this sandbox has one user: {USER})"),
            )
            .await;
            return 1;
        }
        let line = if only.contains(&true) {
            if name {
                USER.to_string()
            } else {
                UID.to_string()
            }
        } else {
            format!("uid={UID}({USER}) gid={UID}({USER}) groups={UID}({USER})")
        };
        let result = out_str(&mut ctx, &format!("{line}\n")).await;
        conclude(&mut ctx, result.map(|()| 0)).await
    })
}

fn run_whoami(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move { print_alone(&mut ctx, &OptSpec::default(), format!("{USER}\n")).await })
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::err;
    use crate::applets::testing::{ok, run};

    #[test]
    fn the_sandbox_user() {
        assert_eq!(run("whoami", &[], ""), ok("user\n"));
        assert_eq!(
            run("id", &[], ""),
            ok("uid=1000(user) gid=1000(user) groups=1000(user)\n")
        );
        assert_eq!(run("id", &["-u"], ""), ok("1000\n"));
        assert_eq!(run("id", &["-un"], ""), ok("user\n"));
        assert_eq!(run("id", &["-G"], ""), ok("1000\n"));
        assert_eq!(run("id", &["-gn", "user"], ""), ok("user\n"));
        assert_eq!(
            run("id", &["-n"], ""),
            err(
                "id: cannot print only names or real IDs in default format\n",
                1
            )
        );
        assert_eq!(
            run("id", &["root"], ""),
            err(
                "id: 'root': no such user (this sandbox has one user: user)\n",
                1
            )
        );
        assert_eq!(
            run("whoami", &["x"], ""),
            err(
                "whoami: extra operand 'x'\nTry 'whoami --help' for more information.\n",
                1
            )
        );
    }
}
