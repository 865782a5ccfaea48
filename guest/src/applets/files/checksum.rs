//! `md5sum`, `sha1sum`, `sha224sum`, `sha256sum`, `sha384sum`, `sha512sum`: print or check
//! message digests (`HASH  NAME` lines; `-c` verifies them). Files are hashed chunk by chunk.

use md5::Digest;

use crate::applets::common::{conclude, out_str, parse_args, quote_if_needed, Res};
use crate::applets::common::{inputs_or_stdin, open_each, open_input, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture};

macro_rules! checksum_applet {
    ($konst:ident, $name:literal, $algo:expr, $run:ident) => {
        /// A checksum applet.
        pub const $konst: Applet = Applet {
            name: $name,
            usage: concat!(
                $name,
                " [OPTION]... [FILE]...\nPrint or check checksums (`-` or no FILE is standard input).\n  -b, --binary          read in binary mode (marks names with *)\n  -c, --check           read checksums from the FILEs and check them\n      --tag             create a BSD-style checksum\n  -t, --text            read in text mode (default)\n  -z, --zero            end each output line with NUL, not newline\nWhile checking:\n      --ignore-missing  don't fail or report status for missing files\n      --quiet           don't print OK for each successfully verified file\n      --status          don't output anything, status code shows success\n      --strict          exit non-zero for improperly formatted checksum lines\n  -w, --warn            warn about improperly formatted checksum lines"
            ),
            help: Help::Anywhere,
            run: $run,
        };

        fn $run(ctx: Ctx) -> LocalFuture<'static, i32> {
            Box::pin(run(ctx, $algo))
        }
    };
}

checksum_applet!(MD5SUM, "md5sum", Algo::Md5, run_md5);
checksum_applet!(SHA1SUM, "sha1sum", Algo::Sha1, run_sha1);
checksum_applet!(SHA224SUM, "sha224sum", Algo::Sha224, run_sha224);
checksum_applet!(SHA256SUM, "sha256sum", Algo::Sha256, run_sha256);
checksum_applet!(SHA384SUM, "sha384sum", Algo::Sha384, run_sha384);
checksum_applet!(SHA512SUM, "sha512sum", Algo::Sha512, run_sha512);

const SPEC: OptSpec = OptSpec {
    short: "bctzw",
    short_val: "",
    long: &[
        "binary",
        "check",
        "tag",
        "text",
        "zero",
        "warn",
        "ignore-missing",
        "quiet",
        "status",
        "strict",
    ],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

/// Which digest.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Algo {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
}

impl Algo {
    /// The tag in BSD lines and messages.
    fn tag(self) -> &'static str {
        match self {
            Algo::Md5 => "MD5",
            Algo::Sha1 => "SHA1",
            Algo::Sha224 => "SHA224",
            Algo::Sha256 => "SHA256",
            Algo::Sha384 => "SHA384",
            Algo::Sha512 => "SHA512",
        }
    }

    /// Hex digits in a digest.
    fn hex_len(self) -> usize {
        match self {
            Algo::Md5 => 32,
            Algo::Sha1 => 40,
            Algo::Sha224 => 56,
            Algo::Sha256 => 64,
            Algo::Sha384 => 96,
            Algo::Sha512 => 128,
        }
    }

    fn hasher(self) -> Hasher {
        match self {
            Algo::Md5 => Hasher::Md5(md5::Md5::new()),
            Algo::Sha1 => Hasher::Sha1(sha1::Sha1::new()),
            Algo::Sha224 => Hasher::Sha224(sha2::Sha224::new()),
            Algo::Sha256 => Hasher::Sha256(sha2::Sha256::new()),
            Algo::Sha384 => Hasher::Sha384(sha2::Sha384::new()),
            Algo::Sha512 => Hasher::Sha512(sha2::Sha512::new()),
        }
    }
}

enum Hasher {
    Md5(md5::Md5),
    Sha1(sha1::Sha1),
    Sha224(sha2::Sha224),
    Sha256(sha2::Sha256),
    Sha384(sha2::Sha384),
    Sha512(sha2::Sha512),
}

impl Hasher {
    fn update(&mut self, data: &[u8]) {
        match self {
            Hasher::Md5(h) => h.update(data),
            Hasher::Sha1(h) => h.update(data),
            Hasher::Sha224(h) => h.update(data),
            Hasher::Sha256(h) => h.update(data),
            Hasher::Sha384(h) => h.update(data),
            Hasher::Sha512(h) => h.update(data),
        }
    }

    fn hex(self) -> String {
        let bytes: Vec<u8> = match self {
            Hasher::Md5(h) => h.finalize().to_vec(),
            Hasher::Sha1(h) => h.finalize().to_vec(),
            Hasher::Sha224(h) => h.finalize().to_vec(),
            Hasher::Sha256(h) => h.finalize().to_vec(),
            Hasher::Sha384(h) => h.finalize().to_vec(),
            Hasher::Sha512(h) => h.finalize().to_vec(),
        };
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

#[derive(Default)]
struct Options {
    check: bool,
    binary: bool,
    tag: bool,
    zero: bool,
    warn: bool,
    ignore_missing: bool,
    quiet: bool,
    status: bool,
    strict: bool,
}

async fn run(mut ctx: Ctx, algo: Algo) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let mut o = Options::default();
    for opt in &opts {
        match opt {
            _ if opt.is('c', "check") => o.check = true,
            _ if opt.is('b', "binary") => o.binary = true,
            _ if opt.is('t', "text") => o.binary = false,
            _ if opt.is('\0', "tag") => o.tag = true,
            _ if opt.is('z', "zero") => o.zero = true,
            _ if opt.is('w', "warn") => o.warn = true,
            _ if opt.is('\0', "ignore-missing") => o.ignore_missing = true,
            _ if opt.is('\0', "quiet") => o.quiet = true,
            _ if opt.is('\0', "status") => o.status = true,
            _ if opt.is('\0', "strict") => o.strict = true,
            _ => {}
        }
    }
    if !o.check && (o.warn || o.quiet || o.status || o.strict || o.ignore_missing) {
        let which = if o.ignore_missing {
            "--ignore-missing"
        } else if o.status {
            "--status"
        } else if o.quiet {
            "--quiet"
        } else if o.strict {
            "--strict"
        } else {
            "--warn"
        };
        warn(
            &mut ctx,
            format_args!("the {which} option is meaningful only when verifying checksums"),
        )
        .await;
        let hint = format!("Try '{} --help' for more information.\n", ctx.name);
        crate::applets::common::err_str(&mut ctx, &hint).await;
        return 1;
    }
    let result = if o.check {
        check_all(&mut ctx, algo, &operands, &o).await
    } else {
        print_all(&mut ctx, algo, &operands, &o).await
    };
    conclude(&mut ctx, result).await
}

async fn digest(input: &mut Input, algo: Algo) -> String {
    let mut hasher = algo.hasher();
    while let Some(chunk) = input.read_chunk().await {
        hasher.update(&chunk);
    }
    hasher.hex()
}

/// GNU escapes names holding `\` or newlines and marks the line with a leading `\`.
fn escape_name(name: &str) -> (bool, String) {
    if !name.contains(['\\', '\n', '\r']) {
        return (false, name.to_string());
    }
    let escaped = name
        .replace('\\', "\\\\")
        .replace('\n', "\\n")
        .replace('\r', "\\r");
    (true, escaped)
}

async fn print_all(ctx: &mut Ctx, algo: Algo, operands: &[String], o: &Options) -> Res<i32> {
    let mut status = 0;
    for path in inputs_or_stdin(operands.to_vec()) {
        let Some(mut input) = open_each(ctx, &path, &mut status).await else {
            continue;
        };
        let hex = digest(&mut input, algo).await;
        let (escaped, name) = if o.zero {
            (false, path.clone())
        } else {
            escape_name(&path)
        };
        let lead = if escaped { "\\" } else { "" };
        let end = if o.zero { "\0" } else { "\n" };
        let line = if o.tag {
            format!("{lead}{} ({name}) = {hex}{end}", algo.tag())
        } else {
            let mark = if o.binary { '*' } else { ' ' };
            format!("{lead}{hex} {mark}{name}{end}")
        };
        out_str(ctx, &line).await?;
    }
    Ok(status)
}

/// Counts over one checklist, for the final warnings.
#[derive(Default)]
struct Tally {
    bad_lines: usize,
    mismatched: usize,
    unreadable: usize,
    verified: usize,
    good_lines: usize,
}

async fn check_all(ctx: &mut Ctx, algo: Algo, operands: &[String], o: &Options) -> Res<i32> {
    let mut status = 0;
    for list in inputs_or_stdin(operands.to_vec()) {
        let Some(mut input) = open_each(ctx, &list, &mut status).await else {
            continue;
        };
        let shown = if list == "-" {
            "standard input".to_string()
        } else {
            list.clone()
        };
        let tally = check_list(ctx, algo, &mut input, &shown, o).await?;
        status = status.max(report(ctx, &tally, &shown, o).await);
    }
    Ok(status)
}

/// Parses `HASH  NAME`, `HASH *NAME` or `TAG (NAME) = HASH`; the name is unescaped.
fn parse_line(line: &str, algo: Algo) -> Option<(String, String)> {
    let (escaped, line) = match line.strip_prefix('\\') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let (hex, name) = if let Some(rest) = line
        .strip_prefix(algo.tag())
        .and_then(|r| r.strip_prefix(" ("))
    {
        let (name, hex) = rest.rsplit_once(") = ")?;
        (hex, name)
    } else {
        let hex = line.get(..algo.hex_len())?;
        let rest = &line[algo.hex_len()..];
        // GNU: a blank (space or tab), then an optional mode character (' ' or '*').
        let rest = rest.strip_prefix([' ', '\t'])?;
        let name = rest.strip_prefix([' ', '*']).unwrap_or(rest);
        (hex, name)
    };
    if hex.len() != algo.hex_len() || !hex.bytes().all(|b| b.is_ascii_hexdigit()) || name.is_empty()
    {
        return None;
    }
    let name = if escaped {
        unescape(name)?
    } else {
        name.to_string()
    };
    Some((hex.to_ascii_lowercase(), name))
}

fn unescape(name: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = name.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            '\\' => out.push('\\'),
            _ => return None,
        }
    }
    Some(out)
}

async fn check_list(
    ctx: &mut Ctx,
    algo: Algo,
    input: &mut Input,
    shown: &str,
    o: &Options,
) -> Res<Tally> {
    let mut tally = Tally::default();
    let mut number = 0;
    while let Some(raw) = input.read_line().await {
        number += 1;
        let text = String::from_utf8_lossy(&raw);
        let line = text.strip_suffix('\n').unwrap_or(&text);
        let line = line.strip_suffix('\r').unwrap_or(line);
        let Some((want, name)) = parse_line(line, algo) else {
            tally.bad_lines += 1;
            if o.warn {
                let message = format!(
                    "{}: {number}: improperly formatted {} checksum line",
                    quote_if_needed(shown),
                    algo.tag()
                );
                warn(ctx, message).await;
            }
            continue;
        };
        tally.good_lines += 1;
        let mut file = match open_input(ctx, &name) {
            Ok(file) => file,
            Err(message) => {
                if o.ignore_missing && message.ends_with("No such file or directory") {
                    continue;
                }
                tally.unreadable += 1;
                warn(ctx, message).await;
                if !o.status {
                    out_str(ctx, &format!("{name}: FAILED open or read\n")).await?;
                }
                continue;
            }
        };
        tally.verified += 1;
        let ok = digest(&mut file, algo).await == want;
        if !ok {
            tally.mismatched += 1;
        }
        if !(o.status || ok && o.quiet) {
            out_str(
                ctx,
                &format!("{name}: {}\n", if ok { "OK" } else { "FAILED" }),
            )
            .await?;
        }
    }
    Ok(tally)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The closing warnings of one checklist; its exit status.
async fn report(ctx: &mut Ctx, t: &Tally, shown: &str, o: &Options) -> i32 {
    if t.good_lines == 0 {
        warn(
            ctx,
            format_args!(
                "{}: no properly formatted checksum lines found",
                quote_if_needed(shown)
            ),
        )
        .await;
        return 1;
    }
    if !o.status {
        if t.bad_lines > 0 {
            let what = plural(t.bad_lines, "line is", "lines are");
            warn(ctx, format_args!("WARNING: {what} improperly formatted")).await;
        }
        if t.unreadable > 0 {
            let what = plural(t.unreadable, "listed file", "listed files");
            warn(ctx, format_args!("WARNING: {what} could not be read")).await;
        }
        if t.mismatched > 0 {
            let what = plural(t.mismatched, "computed checksum", "computed checksums");
            warn(ctx, format_args!("WARNING: {what} did NOT match")).await;
        }
    }
    if o.ignore_missing && t.verified == 0 {
        warn(
            ctx,
            format_args!("{}: no file was verified", quote_if_needed(shown)),
        )
        .await;
        return 1;
    }
    let failed = t.mismatched > 0 || t.unreadable > 0 || (o.strict && t.bad_lines > 0);
    i32::from(failed)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    const A: &str = "60b725f10c9c85c70d97880dfe8191b3";
    const B: &str = "3b5d5c3712955042212316173ccf37be";

    #[test]
    fn digests() {
        let vfs = vfs_with(&[("a", "a\n"), ("b", "b\n"), ("x\\y", ""), ("n\nl", "x\n")]);
        assert_eq!(
            run_in(&vfs, "md5sum", &["a", "b"], ""),
            ok(&format!("{A}  a\n{B}  b\n"))
        );
        assert_eq!(
            run("md5sum", &[], "x"),
            ok("9dd4e461268c8034f5c8564e155c67a6  -\n")
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["-"], "a\n"),
            ok(&format!("{A}  -\n"))
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["nope", "a"], ""),
            both(
                &format!("{A}  a\n"),
                "md5sum: nope: No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["--tag", "a"], ""),
            ok(&format!("MD5 (a) = {A}\n"))
        );
        assert_eq!(
            run_in(&vfs, "sha256sum", &["a"], ""),
            ok("87428fc522803d31065e7bce3cf03fe475096631e5e07bbd7a0fde60c4cf25c7  a\n")
        );
        assert_eq!(
            run_in(&vfs, "sha1sum", &["-b", "a"], ""),
            ok("3f786850e387550fdab836ed7e6dc881de23001b *a\n")
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["x\\y"], ""),
            ok("\\d41d8cd98f00b204e9800998ecf8427e  x\\\\y\n")
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["n\nl"], ""),
            ok("\\401b30e3b8b5d629635a5c613cdb7919  n\\nl\n")
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["-z", "a"], ""),
            ok(&format!("{A}  a\0"))
        );
        assert_eq!(run("sha512sum", &[], "").stdout, "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e  -\n");
        assert_eq!(
            run("sha224sum", &[], "").stdout,
            "d14a028c2a3a2bc9476102bb288234c415a2b01f828ea62ac5b3e42f  -\n"
        );
        assert_eq!(run("sha384sum", &[], "").status, 0);
    }

    #[test]
    fn checking() {
        let sums = format!("{A}  a\n{A}  b\n");
        let one_blank = format!("{A} a\n{A}\t*a\n");
        let vfs = vfs_with(&[
            ("a", "a\n"),
            ("b", "c\n"),
            ("sums", &sums),
            ("one", &one_blank),
        ]);
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c", "one"], ""),
            ok("a: OK\na: OK\n")
        );
        let warn1 = "md5sum: WARNING: 1 computed checksum did NOT match\n";
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c", "sums"], ""),
            both("a: OK\nb: FAILED\n", warn1, 1)
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["--quiet", "-c", "sums"], ""),
            both("b: FAILED\n", warn1, 1)
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["--status", "-c", "sums"], ""),
            err("", 1)
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c", "-"], &format!("{A}  a\n")),
            ok("a: OK\n")
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c"], &format!("MD5 (a) = {A}\n")),
            ok("a: OK\n")
        );
        let garbage = format!("{A}  a\ngarbage\n");
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c"], &garbage),
            both(
                "a: OK\n",
                "md5sum: WARNING: 1 line is improperly formatted\n",
                0
            )
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c", "--strict"], &garbage).status,
            1
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c", "-w"], &garbage),
            both("a: OK\n", "md5sum: 'standard input': 2: improperly formatted MD5 checksum line\nmd5sum: WARNING: 1 line is improperly formatted\n", 0)
        );
    }

    #[test]
    fn checking_problems() {
        let vfs = vfs_with(&[("a", "a\n")]);
        let missing = format!("{A}  nope\n");
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c"], &missing),
            both("nope: FAILED open or read\n", "md5sum: nope: No such file or directory\nmd5sum: WARNING: 1 listed file could not be read\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c", "--ignore-missing"], &missing),
            err("md5sum: 'standard input': no file was verified\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c"], "bad\n"),
            err(
                "md5sum: 'standard input': no properly formatted checksum lines found\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "md5sum", &["-c", "nofile"], ""),
            err("md5sum: nofile: No such file or directory\n", 1)
        );
        assert_eq!(run_in(&vfs, "md5sum", &["--quiet"], ""), err("md5sum: the --quiet option is meaningful only when verifying checksums\nTry 'md5sum --help' for more information.\n", 1));
        assert_eq!(run("sha256sum", &["-q"], "").status, 1);
    }
}
