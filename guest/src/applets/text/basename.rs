//! `basename NAME [SUFFIX]`, `basename -a [-s SUFFIX] NAME...`: strip directories (and a
//! suffix) from file names.

use crate::applets::common::{parse_args, quote, write_and_finish};
use crate::applets::common::{usage_error, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `basename` applet.
pub const APPLET: Applet = Applet {
    name: "basename",
    usage: "basename NAME [SUFFIX]\n       basename OPTION... NAME...\n  -a, --multiple       support multiple NAMEs\n  -s, --suffix=SUFFIX  remove a trailing SUFFIX; implies -a\n  -z, --zero           end each output line with NUL, not newline",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "az",
    short_val: "s",
    long: &["multiple", "zero"],
    long_val: &["suffix"],
    digits: None,
    stop_at_operand: false,
};

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let (mut multiple, mut eol, mut suffix) = (false, '\n', None);
    for opt in &opts {
        if opt.is('a', "multiple") {
            multiple = true;
        } else if opt.is('z', "zero") {
            eol = '\0';
        } else if opt.is('s', "suffix") {
            suffix = Some(opt.value().to_string());
            multiple = true;
        }
    }
    if operands.is_empty() {
        return usage_error(&mut ctx, "missing operand", 1).await;
    }
    let names: Vec<&String> = if multiple {
        operands.iter().collect()
    } else {
        if operands.len() > 2 {
            let message = format!("extra operand {}", quote(&operands[2]));
            return usage_error(&mut ctx, message, 1).await;
        }
        suffix = operands.get(1).cloned();
        vec![&operands[0]]
    };
    let mut out = String::new();
    for name in names {
        out.push_str(&base_name(name, suffix.as_deref()));
        out.push(eol);
    }
    write_and_finish(&mut ctx, out.as_bytes(), 0).await
}

/// The last component of `name` without trailing slashes, minus `suffix` unless that is
/// all of it; `/` for a name of only slashes.
pub fn base_name(name: &str, suffix: Option<&str>) -> String {
    if name.is_empty() {
        return String::new();
    }
    let trimmed = name.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/".to_string();
    }
    let base = trimmed.rsplit('/').next().unwrap_or(trimmed);
    match suffix {
        Some(s) if !s.is_empty() && base.len() > s.len() && base.ends_with(s) => {
            base[..base.len() - s.len()].to_string()
        }
        _ => base.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "basename",
        files: &[],
        ok: &[
            (&["/a/b/c.txt"], "", "c.txt\n"),
            (&["/a/b/c.txt", ".txt"], "", "c\n"),
            (&["c.txt", "c.txt"], "", "c.txt\n"),
            (&["/"], "", "/\n"),
            (&["//"], "", "/\n"),
            (&["a/b/"], "", "b\n"),
            (&[""], "", "\n"),
            (&["-a", "a/x", "b/y"], "", "x\ny\n"),
            (&["-s", ".c", "a/x.c", "b/y.c"], "", "x\ny\n"),
            (&["--suffix=.c", "a/x.c", "b/y.h"], "", "x\ny.h\n"),
            (&["-z", "a"], "", "a\0"),
            (&["--", "-x"], "", "-x\n"),
            (&["///a//b//"], "", "b\n"),
            (&["file"], "", "file\n"),
        ],
        err: &[
            (
                &[],
                "",
                "",
                "basename: missing operand\nTry 'basename --help' for more information.\n",
                1,
            ),
            (
                &["a", "b", "c"],
                "",
                "",
                "basename: extra operand 'c'\nTry 'basename --help' for more information.\n",
                1,
            ),
            (
                &["-x", "a"],
                "",
                "",
                "basename: invalid option -- 'x'\nTry 'basename --help' for more information.\n",
                1,
            ),
        ],
    };

    #[test]
    fn cases() {
        TABLE.check();
    }

    #[test]
    #[ignore = "compares the tables with the real GNU tools"]
    fn gnu() {
        TABLE.check_gnu();
    }
}
