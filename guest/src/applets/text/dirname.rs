//! `dirname NAME...`: strip the last component from file names.

use crate::applets::common::{parse_args, write_and_finish};
use crate::applets::common::{usage_error, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `dirname` applet.
pub const APPLET: Applet = Applet {
    name: "dirname",
    usage: "dirname [OPTION] NAME...\n  Print each NAME without its last component ('.' when it has no slash).\n  -z, --zero  end each output line with NUL, not newline",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "z",
    short_val: "",
    long: &["zero"],
    long_val: &[],
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
    let eol = if opts.iter().any(|o| o.is('z', "zero")) {
        '\0'
    } else {
        '\n'
    };
    if operands.is_empty() {
        return usage_error(&mut ctx, "missing operand", 1).await;
    }
    let mut out = String::new();
    for name in &operands {
        out.push_str(dir_name(name));
        out.push(eol);
    }
    write_and_finish(&mut ctx, out.as_bytes(), 0).await
}

/// gnulib's `dir_name`: everything before the last component, without the slashes that
/// separate it (but keeping a leading `/`); `.` when there is no directory part.
pub fn dir_name(name: &str) -> &str {
    let bytes = name.as_bytes();
    let prefix = usize::from(bytes.first() == Some(&b'/'));
    let mut len = last_component(bytes);
    while len > prefix && bytes[len - 1] == b'/' {
        len -= 1;
    }
    if len == 0 {
        "."
    } else {
        &name[..len]
    }
}

/// Where the last component starts (after leading slashes; trailing slashes ignored).
fn last_component(bytes: &[u8]) -> usize {
    let mut base = bytes.iter().position(|&b| b != b'/').unwrap_or(bytes.len());
    let mut saw_slash = false;
    for (at, &b) in bytes.iter().enumerate().skip(base) {
        if b == b'/' {
            saw_slash = true;
        } else if saw_slash {
            base = at;
            saw_slash = false;
        }
    }
    base
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "dirname",
        files: &[],
        ok: &[
            (&["a/b"], "", "a\n"),
            (&["a"], "", ".\n"),
            (&["/"], "", "/\n"),
            (&["/a"], "", "/\n"),
            (&["a/b/"], "", "a\n"),
            (&["//a"], "", "/\n"),
            (&["a//b"], "", "a\n"),
            (&[""], "", ".\n"),
            (&["a/b", "c/d"], "", "a\nc\n"),
            (&["//"], "", "/\n"),
            (&["///a//b//"], "", "///a\n"),
            (&["."], "", ".\n"),
            (&[".."], "", ".\n"),
            (&["../x"], "", "..\n"),
            (&["-z", "a/b"], "", "a\0"),
            (&["/usr/local/bin/tool"], "", "/usr/local/bin\n"),
        ],
        err: &[
            (
                &[],
                "",
                "",
                "dirname: missing operand\nTry 'dirname --help' for more information.\n",
                1,
            ),
            (
                &["-x"],
                "",
                "",
                "dirname: invalid option -- 'x'\nTry 'dirname --help' for more information.\n",
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
