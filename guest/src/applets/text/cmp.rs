//! `cmp [-bls] [-i SKIP[:SKIP2]] [-n LIMIT] FILE1 [FILE2 [SKIP1 [SKIP2]]]`: compare two files
//! byte by byte, as GNU diffutils' `cmp` does (status 0 same, 1 different, 2 trouble).

use crate::applets::common::{finish, open, parse_args, parse_size};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `cmp` applet.
pub const APPLET: Applet = Applet {
    name: "cmp",
    usage: "cmp [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]\nCompare two files byte by byte ('-' or a missing FILE2 is standard input).\n  -b, --print-bytes          print differing bytes\n  -i, --ignore-initial=SKIP[:SKIP2]  skip the first SKIP bytes of both inputs (or of each)\n  -l, --verbose              output byte numbers and differing byte values\n  -n, --bytes=LIMIT          compare at most LIMIT bytes\n  -s, --quiet, --silent      suppress all normal output\nExit status is 0 if inputs are the same, 1 if different, 2 if trouble.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "bls",
    short_val: "in",
    long: &["print-bytes", "verbose", "quiet", "silent"],
    long_val: &["ignore-initial", "bytes"],
    digits: None,
    stop_at_operand: false,
};

#[derive(Default)]
struct Options {
    bytes: bool,
    verbose: bool,
    quiet: bool,
    limit: Option<u64>,
    skip: [u64; 2],
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        // A bad option is trouble (2), as for GNU cmp.
        Err(status) => return if status == 1 { 2 } else { status },
    };
    let o = match options(&opts, &operands) {
        Ok(o) => o,
        Err(message) => return usage_error(&mut ctx, message, 2).await,
    };
    if operands.is_empty() {
        return usage_error(&mut ctx, "missing operand after 'cmp'", 2).await;
    }
    let names = [
        operands[0].clone(),
        operands.get(1).cloned().unwrap_or_else(|| "-".into()),
    ];
    let mut data = [Vec::new(), Vec::new()];
    for (i, name) in names.iter().enumerate() {
        match open(&mut ctx, name) {
            Ok(mut input) => data[i] = input.read_all().await,
            Err(e) => {
                warn(&mut ctx, format!("{name}: {}", e.reason)).await;
                return 2;
            }
        }
    }
    let a = tail(&data[0], o.skip[0], o.limit);
    let b = tail(&data[1], o.skip[1], o.limit);
    let result = compare(&mut ctx, &o, &names, a, b).await;
    finish(&mut ctx, result).await
}

/// Reads the options and the SKIP operands.
fn options(opts: &[crate::applets::common::Opt], operands: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    for opt in opts {
        match opt {
            _ if opt.is('b', "print-bytes") => o.bytes = true,
            _ if opt.is('l', "verbose") => o.verbose = true,
            _ if opt.is('s', "quiet") || opt.is('s', "silent") => o.quiet = true,
            _ if opt.is('n', "bytes") => {
                let n = parse_size(opt.value());
                o.limit = Some(n.ok_or(format!("invalid --bytes value '{}'", opt.value()))?);
            }
            _ if opt.is('i', "ignore-initial") => {
                let (first, second) = opt.value().split_once(':').unwrap_or((opt.value(), ""));
                o.skip[0] = skip_value(first)?;
                o.skip[1] = if second.is_empty() {
                    o.skip[0]
                } else {
                    skip_value(second)?
                };
            }
            _ => {}
        }
    }
    if operands.len() > 4 {
        return Err(format!("invalid --ignore-initial value '{}'", operands[4]));
    }
    for (i, skip) in operands.iter().skip(2).enumerate() {
        o.skip[i] = skip_value(skip)?;
    }
    Ok(o)
}

fn skip_value(text: &str) -> Result<u64, String> {
    parse_size(text).ok_or(format!("invalid --ignore-initial value '{text}'"))
}

/// The bytes after `skip`, at most `limit` of them.
fn tail(data: &[u8], skip: u64, limit: Option<u64>) -> &[u8] {
    let rest = &data[usize::try_from(skip).unwrap_or(usize::MAX).min(data.len())..];
    let len = limit.map_or(rest.len(), |l| usize::try_from(l).unwrap_or(usize::MAX));
    &rest[..len.min(rest.len())]
}

async fn compare(
    ctx: &mut Ctx,
    o: &Options,
    names: &[String; 2],
    a: &[u8],
    b: &[u8],
) -> Result<i32, WriteError> {
    let common = a.len().min(b.len());
    let mut differ = false;
    if o.verbose && !o.quiet {
        let width = common.to_string().len();
        for (i, (x, y)) in a.iter().zip(b).enumerate().filter(|(_, (x, y))| x != y) {
            differ = true;
            let line = if o.bytes {
                format!(
                    "{:>width$} {x:>3o} {:<4} {y:>3o} {}\n",
                    i + 1,
                    show(*x),
                    show(*y)
                )
            } else {
                format!("{:>width$} {x:>3o} {y:>3o}\n", i + 1)
            };
            ctx.stdout.write_str(&line).await?;
        }
    } else if let Some(i) = (0..common).find(|&i| a[i] != b[i]) {
        if !o.quiet {
            let line = 1 + a[..i].iter().filter(|&&c| c == b'\n').count();
            // GNU says `char` in the C locale, unless -b shows the bytes.
            let unit = if posix_messages(ctx) && !o.bytes {
                "char"
            } else {
                "byte"
            };
            let mut text = format!(
                "{} {} differ: {unit} {}, line {line}",
                names[0],
                names[1],
                i + 1
            );
            if o.bytes {
                let (x, y) = (a[i], b[i]);
                text += &format!(" is {x:>3o} {} {y:>3o} {}", show(x), show(y));
            }
            ctx.stdout.write_str(&(text + "\n")).await?;
        }
        return Ok(1);
    }
    if a.len() == b.len() {
        return Ok(i32::from(differ));
    }
    if !o.quiet {
        let (name, short) = if a.len() < b.len() {
            (&names[0], a)
        } else {
            (&names[1], b)
        };
        let message = eof_message(name, short, o.verbose);
        ctx.stdout.flush().await?;
        warn(ctx, message).await;
    }
    Ok(1)
}

/// Whether messages follow the C/POSIX locale, where GNU cmp says `char 3` (POSIX's words)
/// instead of `byte 3` (this sandbox's default locale is C.UTF-8).
fn posix_messages(ctx: &Ctx) -> bool {
    let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(|name| ctx.env.get(*name))
        .find(|value| !value.is_empty());
    locale.is_none_or(|l| l == "C" || l == "POSIX")
}

/// GNU's wording for the shorter input ending first.
fn eof_message(name: &str, short: &[u8], verbose: bool) -> String {
    let n = short.len();
    if n == 0 {
        return format!("EOF on {name} which is empty");
    }
    if verbose {
        return format!("EOF on {name} after byte {n}");
    }
    let lines = short.iter().filter(|&&c| c == b'\n').count();
    if short.ends_with(b"\n") {
        format!("EOF on {name} after byte {n}, line {lines}")
    } else {
        format!("EOF on {name} after byte {n}, in line {}", lines + 1)
    }
}

/// A byte as `cat -v` shows it (`^I`, `M-^@`, `a`).
pub fn show(byte: u8) -> String {
    let (meta, low) = if byte >= 0x80 {
        ("M-", byte - 0x80)
    } else {
        ("", byte)
    };
    match low {
        0..=31 => format!("{meta}^{}", char::from(low + 64)),
        127 => format!("{meta}^?"),
        _ => format!("{meta}{}", char::from(low)),
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::run_full;
    use crate::applets::testing::{ok, run, run_in, vfs_with, Outcome};

    fn out(stdout: &str, stderr: &str, status: i32) -> Outcome {
        Outcome {
            stdout: stdout.into(),
            stderr: stderr.into(),
            status,
        }
    }

    #[test]
    fn cmp_reports_like_gnu() {
        let vfs = vfs_with(&[
            ("a", "abc\n"),
            ("b", "abd\nx\n"),
            ("c", "abc"),
            ("t", "a\tb\u{7f}\n"),
            ("u", "a b\u{1}\n"),
            ("e", ""),
        ]);
        assert_eq!(run_in(&vfs, "cmp", &["a", "a"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "cmp", &["a", "b"], ""),
            out("a b differ: char 3, line 1\n", "", 1)
        );
        assert_eq!(run_in(&vfs, "cmp", &["-s", "a", "b"], ""), out("", "", 1));
        assert_eq!(
            run_in(&vfs, "cmp", &["-l", "a", "b"], ""),
            out("3 143 144\n", "cmp: EOF on a after byte 4\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cmp", &["c", "a"], ""),
            out("", "cmp: EOF on c after byte 3, in line 1\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cmp", &["a", "-"], "abc\nd"),
            out("", "cmp: EOF on a after byte 4, line 1\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cmp", &["e", "a"], ""),
            out("", "cmp: EOF on e which is empty\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cmp", &["-b", "t", "u"], ""),
            out("t u differ: byte 2, line 1 is  11 ^I  40  \n", "", 1)
        );
        assert_eq!(
            run_in(&vfs, "cmp", &["-bl", "t", "u"], ""),
            out("2  11 ^I    40  \n4 177 ^?     1 ^A\n", "", 1)
        );
        assert_eq!(run_in(&vfs, "cmp", &["-n", "2", "a", "b"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "cmp", &["a", "b", "2", "2"], ""),
            out("a b differ: char 1, line 1\n", "", 1)
        );
        assert_eq!(
            run_in(&vfs, "cmp", &["-i", "1:1", "c", "a"], ""),
            out("", "cmp: EOF on c after byte 2, in line 1\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cmp", &["a", "nope"], ""),
            out("", "cmp: nope: No such file or directory\n", 2)
        );
        assert_eq!(run("cmp", &["-z"], "").status, 2);
        let utf8 = |lang| {
            run_full(
                &vfs,
                "/workspace",
                &[("LANG", lang)],
                "cmp",
                &["a", "b"],
                b"",
            )
        };
        assert_eq!(utf8("C.UTF-8").0, b"a b differ: byte 3, line 1\n");
        assert_eq!(utf8("POSIX").0, b"a b differ: char 3, line 1\n");
        assert_eq!(
            run("cmp", &[], ""),
            out(
                "",
                "cmp: missing operand after 'cmp'\nTry 'cmp --help' for more information.\n",
                2
            )
        );
    }
}
