//! `umask` keeps the mask bash would (octal or symbolic, shown with `-S`, `-p`); the VFS
//! applies it to the files and directories commands create.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `umask`.
pub(crate) const UMASK: Builtin = Builtin {
    name: "umask",
    synopsis: "umask [-p] [-S] [mode] — show or set the file creation mask",
    run: run_umask,
};

fn run_umask(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (mut symbolic, mut reusable) = (false, false);
        let mut args = ctx.operands();
        while let Some(arg) = args.first().filter(|a| a.starts_with('-') && a.len() > 1) {
            for letter in arg[1..].chars() {
                match letter {
                    'S' => symbolic = true,
                    'p' => reusable = true,
                    _ => return ctx.bad_option(arg, "umask [-p] [-S] [mode]").await,
                }
            }
            args = &args[1..];
        }
        let mask = ctx.sh.state.borrow().umask;
        let Some(mode) = args.first() else {
            let shown = if symbolic {
                symbolic_text(mask)
            } else {
                format!("{mask:04o}")
            };
            let prefix = if reusable { "umask " } else { "" };
            let flag = if reusable && symbolic { "-S " } else { "" };
            return ctx.print_status(&format!("{prefix}{flag}{shown}\n")).await;
        };
        let parsed = if mode.starts_with(|c: char| c.is_ascii_digit()) {
            u32::from_str_radix(mode, 8)
                .ok()
                .filter(|m| *m <= 0o7777)
                .map(|m| m & 0o777)
                .ok_or(format!("{mode}: octal number out of range"))
        } else {
            apply_symbolic(mask, mode)
        };
        match parsed {
            Ok(new) => {
                ctx.sh.state.borrow_mut().umask = new;
                Flow::Normal(0)
            }
            Err(message) => ctx.fail(&message, 1).await,
        }
    })
}

/// `u=rwx,g=rx,o=rx` for the mask 022: the permissions it lets through.
fn symbolic_text(mask: u32) -> String {
    let allowed = !mask & 0o777;
    let who = ["u", "g", "o"];
    let parts: Vec<String> = who
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let bits = (allowed >> (6 - 3 * i)) & 7;
            let letters: String = [(4, 'r'), (2, 'w'), (1, 'x')]
                .iter()
                .filter(|(bit, _)| bits & bit != 0)
                .map(|(_, c)| *c)
                .collect();
            format!("{w}={letters}")
        })
        .collect();
    parts.join(",")
}

/// A symbolic mode (`u=rwx,g-w,o=`) applied to the permissions `mask` lets through; the
/// new mask. As in bash, each comma-separated clause has one operator, then permission
/// letters up to the next comma (`u+r+w` is an invalid character, not two operations).
fn apply_symbolic(mask: u32, mode: &str) -> Result<u32, String> {
    let mut allowed = !mask & 0o777;
    for clause in mode.split(',') {
        let mut chars = clause.chars().peekable();
        let mut who = 0;
        while let Some(c) = chars.next_if(|c| "ugoa".contains(*c)) {
            who |= match c {
                'u' => 0o700,
                'g' => 0o070,
                'o' => 0o007,
                _ => 0o777,
            };
        }
        let op = chars.next().unwrap_or('\0');
        if !"+-=".contains(op) {
            return Err(format!("`{op}': invalid symbolic mode operator"));
        }
        let mut bits = 0;
        for c in chars {
            bits |= match c {
                'r' => 0o444,
                'w' => 0o222,
                'x' => 0o111,
                _ => return Err(format!("`{c}': invalid symbolic mode character")),
            };
        }
        let who = if who == 0 { 0o777 } else { who };
        match op {
            '+' => allowed |= bits & who,
            '-' => allowed &= !(bits & who),
            _ => allowed = (allowed & !who) | (bits & who),
        }
    }
    Ok(!allowed & 0o777)
}
