//! `uniq [-c] [-d|-D|-u] [-i] [-f N] [-s N] [-w N] [INPUT [OUTPUT]]`: collapse adjacent
//! repeated lines.

use crate::applets::common::{finish, open, parse_args, quote_if_needed, Records};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `uniq` applet.
pub const APPLET: Applet = Applet {
    name: "uniq",
    usage: "uniq [OPTION]... [INPUT [OUTPUT]]\n  -c, --count           prefix lines by the number of occurrences ('%7d ')\n  -d, --repeated        only print one copy of duplicated lines\n  -D                    print all duplicated lines\n      --all-repeated[=METHOD]  like -D (METHOD none only)\n      --group           separate groups with an empty line\n  -u, --unique          only print unique lines\n  -i, --ignore-case     compare case-insensitively\n  -f, --skip-fields=N   skip the first N fields (blanks then non-blanks)\n  -s, --skip-chars=N    then skip N characters\n  -w, --check-chars=N   compare at most N characters\n  -z, --zero-terminated lines end with NUL\nOUTPUT, if given, is a file in the VFS.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "cdDuiz",
    short_val: "fsw",
    long: &[
        "count",
        "repeated",
        "unique",
        "ignore-case",
        "zero-terminated",
        "all-repeated",
        "group",
    ],
    long_val: &[
        "skip-fields",
        "skip-chars",
        "check-chars",
        "all-repeated",
        "group",
    ],
    digits: None,
    stop_at_operand: false,
};

#[derive(Default)]
struct Options {
    count: bool,
    repeated: bool,
    all_repeated: bool,
    group: bool,
    /// Empty lines between the groups printed (`--group`, `-D` with a METHOD)...
    delimit: bool,
    /// ...and before the first one...
    lead: bool,
    /// ...and after the last one.
    trail: bool,
    unique: bool,
    ignore_case: bool,
    skip_fields: usize,
    skip_chars: usize,
    check_chars: Option<usize>,
    eol: u8,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let o = match options(&opts) {
        Ok(o) => o,
        Err((message, true)) => return usage_error(&mut ctx, message, 1).await,
        Err((message, false)) => {
            warn(&mut ctx, message).await;
            return 1;
        }
    };
    if o.group && (o.count || o.repeated || o.all_repeated || o.unique) {
        let message = "--group is mutually exclusive with -c/-d/-D/-u";
        return usage_error(&mut ctx, message, 1).await;
    }
    if o.count && (o.all_repeated || o.group) {
        let message = "printing all duplicated lines and repeat counts is meaningless";
        return usage_error(&mut ctx, message, 1).await;
    }
    if operands.len() > 2 {
        let message = format!("extra operand '{}'", operands[2]);
        return usage_error(&mut ctx, message, 1).await;
    }
    let path = operands.first().map_or("-", String::as_str).to_string();
    let input = match open(&mut ctx, &path) {
        Ok(input) => input,
        Err(e) => {
            warn(
                &mut ctx,
                format!("{}: {}", quote_if_needed(&path), e.reason),
            )
            .await;
            return 1;
        }
    };
    let mut out = Vec::new();
    let mut sink = match operands.get(1) {
        // `-` as the output operand is standard output, as for GNU.
        Some(file) if file != "-" => Sink::File(file.clone()),
        _ => Sink::Stdout,
    };
    let result = uniq(&mut ctx, input, &o, &mut sink, &mut out).await;
    if let (Ok(_), Sink::File(file)) = (&result, &sink) {
        let written = ctx.vfs.borrow_mut().write(&ctx.cwd, file, &out);
        if let Err(e) = written {
            warn(
                &mut ctx,
                format!("{}: {}", quote_if_needed(file), e.code.description()),
            )
            .await;
            return 1;
        }
    }
    finish(&mut ctx, result).await
}

/// Where the output goes: stdout (streamed) or a VFS file (written at the end).
enum Sink {
    Stdout,
    File(String),
}

/// A bad option's message, and whether it is a usage error (with GNU's `Try` hint).
type OptionsError = (String, bool);

fn options(opts: &[crate::applets::common::Opt]) -> Result<Options, OptionsError> {
    let mut o = Options {
        eol: b'\n',
        ..Options::default()
    };
    let number = |value: &str, what: &str| {
        value
            .parse::<usize>()
            .map_err(|_| (format!("{value}: invalid number of {what}"), false))
    };
    for opt in opts {
        let value = opt.value();
        if opt.is('c', "count") {
            o.count = true;
        } else if opt.is('d', "repeated") {
            o.repeated = true;
        } else if opt.is('D', "all-repeated") {
            o.all_repeated = true;
            let method = method(opt, &["none", "prepend", "separate"], "none")?;
            (o.delimit, o.lead) = (method != "none", method == "prepend");
        } else if opt.is('\0', "group") {
            o.group = true;
            let method = method(opt, &["prepend", "append", "separate", "both"], "separate")?;
            o.delimit = true;
            o.lead = matches!(method, "prepend" | "both");
            o.trail = matches!(method, "append" | "both");
        } else if opt.is('u', "unique") {
            o.unique = true;
        } else if opt.is('i', "ignore-case") {
            o.ignore_case = true;
        } else if opt.is('z', "zero-terminated") {
            o.eol = 0;
        } else if opt.is('f', "skip-fields") {
            o.skip_fields = number(value, "fields to skip")?;
        } else if opt.is('s', "skip-chars") {
            o.skip_chars = number(value, "bytes to skip")?;
        } else if opt.is('w', "check-chars") {
            o.check_chars = Some(number(value, "bytes to compare")?);
        }
    }
    Ok(o)
}

/// The METHOD of `--group[=METHOD]` or `--all-repeated[=METHOD]` (a unique prefix of one of
/// `methods`, `default` when none is given); the error is a usage error.
fn method(
    opt: &crate::applets::common::Opt,
    methods: &[&'static str],
    default: &'static str,
) -> Result<&'static str, OptionsError> {
    let crate::applets::common::Opt::Long(name, Some(value)) = opt else {
        return Ok(default);
    };
    let found: Vec<_> = methods
        .iter()
        .filter(|m| m.starts_with(value.as_str()))
        .collect();
    match found[..] {
        [one] if !value.is_empty() => Ok(one),
        _ => {
            let what = if found.len() > 1 {
                "ambiguous"
            } else {
                "invalid"
            };
            let valid: String = methods.iter().map(|m| format!("\n  - '{m}'")).collect();
            let message = format!("{what} argument '{value}' for '--{name}'");
            Err((format!("{message}\nValid arguments are:{valid}"), true))
        }
    }
}

/// The part of a line that is compared.
fn key<'a>(line: &'a [u8], o: &Options) -> &'a [u8] {
    let mut at = 0;
    for _ in 0..o.skip_fields {
        while at < line.len() && (line[at] == b' ' || line[at] == b'\t') {
            at += 1;
        }
        while at < line.len() && !(line[at] == b' ' || line[at] == b'\t') {
            at += 1;
        }
    }
    at = (at + o.skip_chars).min(line.len());
    let end = o
        .check_chars
        .map_or(line.len(), |n| (at + n).min(line.len()));
    &line[at..end]
}

fn same(a: &[u8], b: &[u8], o: &Options) -> bool {
    let (ka, kb) = (key(a, o), key(b, o));
    if o.ignore_case {
        ka.eq_ignore_ascii_case(kb)
    } else {
        crate::sort::eq_bytes(ka, kb)
    }
}

async fn uniq(
    ctx: &mut Ctx,
    input: crate::task::Input,
    o: &Options,
    sink: &mut Sink,
    out: &mut Vec<u8>,
) -> Result<i32, WriteError> {
    let mut records = Records::new(input, o.eol);
    let mut current: Vec<u8> = Vec::new();
    let mut line = Vec::new();
    let mut count = 0u64;
    let mut groups = 0u64;
    // Groups of more than one line so far.
    let mut repeated = 0u64;
    loop {
        line.clear();
        let more = records.next_into(&mut line).await;
        if line.last() == Some(&o.eol) {
            line.pop();
        }
        let body = &line;
        if more && count > 0 && same(&current, body, o) {
            count += 1;
            if o.all_repeated && count == 2 && o.delimit && (o.lead || repeated > 0) {
                out.push(o.eol);
            }
            repeated += u64::from(count == 2);
            if o.all_repeated || o.group {
                emit_repeat(out, &current, body, count, o);
            }
        } else {
            if count > 0 && !(o.all_repeated || o.group) {
                emit(out, &current, count, o);
            }
            if !more {
                if o.group && o.trail && groups > 0 {
                    out.push(o.eol);
                }
                break;
            }
            if o.group {
                if groups > 0 || o.lead {
                    out.push(o.eol);
                }
                out.extend_from_slice(body);
                out.push(o.eol);
            }
            groups += 1;
            // The line becomes the group's first; its buffer is reused for the next line.
            std::mem::swap(&mut current, &mut line);
            count = 1;
        }
        if matches!(sink, Sink::Stdout) && out.len() >= 64 * 1024 {
            ctx.stdout.write(out).await?;
            out.clear();
        }
    }
    if matches!(sink, Sink::Stdout) {
        ctx.stdout.write(out).await?;
        out.clear();
    }
    Ok(0)
}

/// The end of a group: print it as the options ask.
fn emit(out: &mut Vec<u8>, line: &[u8], count: u64, o: &Options) {
    let repeated = count > 1;
    if (o.repeated && !repeated) || (o.unique && repeated) {
        return;
    }
    if o.count {
        out.extend_from_slice(format!("{count:>7} ").as_bytes());
    }
    out.extend_from_slice(line);
    out.push(o.eol);
}

/// `-D` / `--group`: every line of a repeated group (the first when the second arrives).
fn emit_repeat(out: &mut Vec<u8>, first: &[u8], line: &[u8], count: u64, o: &Options) {
    if o.group {
        out.extend_from_slice(line);
        out.push(o.eol);
        return;
    }
    if count == 2 {
        out.extend_from_slice(first);
        out.push(o.eol);
    }
    out.extend_from_slice(line);
    out.push(o.eol);
}

#[cfg(test)]
mod tests {
    use crate::applets::testing::{ok, run_in, vfs_with};
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "uniq",
        files: &[("f", "a\na\nb\n")],
        ok: &[
            (
                &["-c", "-f", "1"],
                "1 a\n2 a\n3 b\n",
                "      2 1 a\n      1 3 b\n",
            ),
            (&["-s", "2", "-w", "1"], "xxa1\nyya2\nzzb\n", "xxa1\nzzb\n"),
            (&[], "a\na\nb\na\n", "a\nb\na\n"),
            (&["-c"], "a\na\nb\n", "      2 a\n      1 b\n"),
            (&["-d"], "a\na\nb\nc\nc\n", "a\nc\n"),
            (&["-u"], "a\na\nb\nc\nc\n", "b\n"),
            (&["-i"], "a\nA\nb\n", "a\nb\n"),
            (&["-f", "1"], "x a\ny a\nz b\n", "x a\nz b\n"),
            (&["-s", "1"], "xa\nya\nzb\n", "xa\nzb\n"),
            (&["-w", "2"], "ab1\nab2\nac\n", "ab1\nac\n"),
            (&["-D"], "a\na\nb\n", "a\na\n"),
            (&["-D"], "a\na\nb\nc\nc\nc\n", "a\na\nc\nc\nc\n"),
            (&["-cd"], "a\na\nb\n", "      2 a\n"),
            (&[], "a\na", "a\n"),
            (&["-c"], "a\n", "      1 a\n"),
            (&["-c"], "", ""),
            (&["--group"], "a\na\nb\nb\n", "a\na\n\nb\nb\n"),
            (&["--group=prepend"], "a\na\nb\n", "\na\na\n\nb\n"),
            (&["--group=append"], "a\na\nb\n", "a\na\n\nb\n\n"),
            (&["--group=both"], "a\nb\n", "\na\n\nb\n\n"),
            (&["--group=b"], "", ""),
            (
                &["--all-repeated=separate"],
                "a\na\nb\nc\nc\n",
                "a\na\n\nc\nc\n",
            ),
            (
                &["--all-repeated=prepend"],
                "a\na\nb\nc\nc\n",
                "\na\na\n\nc\nc\n",
            ),
            (&["--all-repeated"], "a\na\nb\n", "a\na\n"),
            (&["-f1"], "a  b\na c\n", "a  b\na c\n"),
            (&["-f", "1"], "a\tb\na b\n", "a\tb\na b\n"),
            (&["-z"], "a\na\n", "a\na\n\0"),
            (&["-z"], "a\0a\0b\0", "a\0b\0"),
            (&["-du"], "a\na\n", ""),
            (
                &["-c"],
                "x\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\nx\n",
                "     12 x\n",
            ),
            (&["f"], "", "a\nb\n"),
            (&["-c", "-"], "b\nb\n", "      2 b\n"),
            (
                &["--count", "--ignore-case", "--skip-chars=1"],
                "xA\nya\nzb\n",
                "      2 xA\n      1 zb\n",
            ),
            (&["-i", "-u"], "A\na\nB\n", "B\n"),
        ],
        err: &[
            (&["--group=x"], "", "", "uniq: invalid argument 'x' for '--group'\nValid arguments are:\n  - 'prepend'\n  - 'append'\n  - 'separate'\n  - 'both'\nTry 'uniq --help' for more information.\n", 1),
            (&["--group", "-c"], "", "", "uniq: --group is mutually exclusive with -c/-d/-D/-u\nTry 'uniq --help' for more information.\n", 1),
            (
                &["missing"],
                "",
                "",
                "uniq: missing: No such file or directory\n",
                1,
            ),
            (
                &["-f", "x"],
                "a\nb\n",
                "",
                "uniq: x: invalid number of fields to skip\n",
                1,
            ),
            (
                &["a", "b", "c"],
                "",
                "",
                "uniq: extra operand 'c'\nTry 'uniq --help' for more information.\n",
                1,
            ),
            (
                &["-q"],
                "",
                "",
                "uniq: invalid option -- 'q'\nTry 'uniq --help' for more information.\n",
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

    #[test]
    fn output_operand_is_a_file() {
        let vfs = vfs_with(&[]);
        assert_eq!(run_in(&vfs, "uniq", &["-", "out"], "a\na\n"), ok(""));
        let written = vfs.borrow().read("/workspace", "out").map(<[u8]>::to_vec);
        assert_eq!(written.unwrap_or_default(), b"a\n");
        let vfs = vfs_with(&[("in", "a\na\nb\n")]);
        assert_eq!(run_in(&vfs, "uniq", &["in", "-"], ""), ok("a\nb\n"));
    }
}
