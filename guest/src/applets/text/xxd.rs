//! `xxd [-p] [-u] [-c COLS] [-g BYTES] [-l LEN] [-s [+-]SEEK] [INFILE [OUTFILE]]` and
//! `xxd -r [-p] [INFILE [OUTFILE]]`: a hex dump, and back, as vim's `xxd` prints it.

use crate::applets::common::warn;
use crate::applets::common::{open, write_and_finish};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `xxd` applet.
pub const APPLET: Applet = Applet {
    name: "xxd",
    usage: "xxd [options] [infile [outfile]]\n    or\n       xxd -r [-p] [infile [outfile]]\nMake a hex dump, or turn one back into bytes.\n    -c cols     format <cols> octets per line (default 16; -p: 30, 0 for one line)\n    -g bytes    number of octets per group in normal output (default 2, 0: no groups)\n    -l len      stop after <len> octets\n    -p          output in plain hexdump style (-ps, -plain, -postscript)\n    -r          reverse operation: convert (or patch) hexdump into binary\n    -s [+-]seek start at <seek> bytes offset (negative: from the end)\n    -u          use upper case hex letters\nNumbers may be written 0x... (hexadecimal) or 0... (octal).",
    help: Help::Anywhere,
    run,
};

#[derive(Default)]
struct Options {
    plain: bool,
    reverse: bool,
    upper: bool,
    cols: Option<usize>,
    group: Option<usize>,
    len: Option<usize>,
    seek: i64,
    files: Vec<String>,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let o = match options(&ctx.args) {
        Ok(o) => o,
        Err(message) => {
            warn(
                &mut ctx,
                format!("{message}\nTry 'xxd --help' for more information."),
            )
            .await;
            return 1;
        }
    };
    let name = o.files.first().map_or("-", String::as_str).to_string();
    let data = match open(&mut ctx, &name) {
        Ok(mut input) => input.read_all().await,
        Err(e) => {
            warn(&mut ctx, format!("{name}: {}", e.reason)).await;
            return 2;
        }
    };
    let output = if o.reverse {
        reverse(&data, o.plain)
    } else {
        dump(&data, &o)
    };
    match o.files.get(1) {
        Some(out) => {
            let written = ctx.vfs.borrow_mut().write(&ctx.cwd, out, &output);
            match written {
                Ok(()) => 0,
                Err(e) => {
                    warn(&mut ctx, format!("{out}: {}", e.code.description())).await;
                    2
                }
            }
        }
        None => write_and_finish(&mut ctx, &output, 0).await,
    }
}

/// Parses xxd's own option syntax: `-l 5`, `-l5`, `-len 5`, numbers in C notation.
fn options(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        let Some(flag) = arg.strip_prefix('-').filter(|f| !f.is_empty()) else {
            o.files.push(arg.clone());
            continue;
        };
        if flag == "-" {
            o.files.extend(args.by_ref().cloned());
            break;
        }
        let key = flag.chars().next().unwrap_or(' ');
        let valued = |args: &mut std::slice::Iter<'_, String>| -> Result<i64, String> {
            let inline = flag.trim_start_matches(|c: char| c.is_ascii_alphabetic());
            let text = if inline.is_empty() {
                args.next()
                    .map(String::as_str)
                    .ok_or(format!("option -{key} needs a value"))?
            } else {
                inline
            };
            number(text).ok_or(format!("invalid number '{text}' for -{key}"))
        };
        let size = |v: i64| usize::try_from(v).map_err(|_| format!("invalid value for -{key}"));
        match key {
            'p' => o.plain = true,
            'r' => o.reverse = true,
            'u' => o.upper = true,
            'c' => o.cols = Some(size(valued(&mut args)?)?),
            'g' => o.group = Some(size(valued(&mut args)?)?),
            'l' => o.len = Some(size(valued(&mut args)?)?),
            's' => o.seek = valued(&mut args)?,
            _ => return Err(format!("invalid option -- '{flag}'")),
        }
    }
    if o.files.len() > 2 {
        return Err(format!("too many arguments: '{}'", o.files[2]));
    }
    Ok(o)
}

/// A number as C's `strtol(_, _, 0)` reads it, with an optional sign (`-s +0x10`).
fn number(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let value = if let Some(hex) = digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
        i64::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        i64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(if negative { -value } else { value })
}

fn dump(data: &[u8], o: &Options) -> Vec<u8> {
    let len = i64::try_from(data.len()).unwrap_or(i64::MAX);
    let start = if o.seek < 0 {
        (len + o.seek).max(0)
    } else {
        o.seek.min(len)
    };
    let start = usize::try_from(start).unwrap_or(0);
    let mut bytes = &data[start..];
    if let Some(limit) = o.len {
        bytes = &bytes[..limit.min(bytes.len())];
    }
    let hex = |b: &u8| {
        if o.upper {
            format!("{b:02X}")
        } else {
            format!("{b:02x}")
        }
    };
    let mut out = String::new();
    if o.plain {
        let cols = o.cols.unwrap_or(30);
        let cols = if cols == 0 { bytes.len().max(1) } else { cols };
        for row in bytes.chunks(cols) {
            row.iter().for_each(|b| out.push_str(&hex(b)));
            out.push('\n');
        }
        return out.into_bytes();
    }
    let cols = o.cols.filter(|&c| c > 0).unwrap_or(16);
    let group = o.group.map_or(2, |g| if g == 0 { cols } else { g });
    let width = cols * 2 + cols.div_ceil(group);
    for (i, row) in bytes.chunks(cols).enumerate() {
        let mut line = format!("{:08x}: ", start + i * cols);
        let mut area = String::new();
        for (j, b) in row.iter().enumerate() {
            area.push_str(&hex(b));
            if (j + 1) % group == 0 {
                area.push(' ');
            }
        }
        line.push_str(&format!("{area:<width$} "));
        line.extend(row.iter().map(|&b| {
            if (0x20..0x7f).contains(&b) {
                char::from(b)
            } else {
                '.'
            }
        }));
        out.push_str(&line);
        out.push('\n');
    }
    out.into_bytes()
}

/// Turns a dump back into bytes: plain hex (`-p`), or `OFFSET: HEX...  TEXT` lines, each
/// written at its offset (gaps are zeros).
fn reverse(data: &[u8], plain: bool) -> Vec<u8> {
    if plain {
        return reverse_plain(data);
    }
    let text = String::from_utf8_lossy(data);
    let mut out = Vec::new();
    for line in text.lines() {
        let Some((offset, rest)) = line.split_once(':') else {
            continue;
        };
        let Ok(offset) = usize::from_str_radix(offset.trim(), 16) else {
            continue;
        };
        // The hex ends where two blanks start the text column.
        let rest = rest.strip_prefix(' ').unwrap_or(rest);
        let hex_part = rest.split("  ").next().unwrap_or("");
        let digits: Vec<u8> = hex_part
            .chars()
            .filter(|c| *c != ' ')
            .map_while(|c| c.to_digit(16))
            .map(|d| d as u8)
            .collect();
        let bytes: Vec<u8> = digits.chunks_exact(2).map(|p| p[0] << 4 | p[1]).collect();
        if out.len() < offset + bytes.len() {
            out.resize(offset + bytes.len(), 0);
        }
        out[offset..offset + bytes.len()].copy_from_slice(&bytes);
    }
    out
}

/// `-r -p`: pairs of hex digits, read as vim's xxd reads them. Blanks and line ends are
/// skipped; other junk drops a half-read byte; junk at the start (or after a skipped line)
/// is ignored, and junk that follows junk where no byte is pending skips the rest of the line.
fn reverse_plain(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    // The last characters' digit values (-1: junk, or a digit already written).
    let (mut n2, mut n1) = (0i16, -1i16);
    let mut ignoring = true;
    let mut bytes = data.iter();
    while let Some(&c) = bytes.next() {
        if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            continue;
        }
        let n3 = n2;
        n2 = n1;
        n1 = (c as char).to_digit(16).map_or(-1, |d| d as i16);
        if n1 < 0 && ignoring {
            continue;
        }
        ignoring = false;
        if n1 >= 0 && n2 >= 0 {
            out.push((n2 << 4 | n1) as u8);
            n1 = -1;
        } else if n1 < 0 && n2 < 0 && n3 < 0 {
            bytes.by_ref().find(|&&c| c == b'\n');
            ignoring = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::applets::testing::{ok, run, Outcome};

    const TEXT: &str = "Hello, world!\nThis is a test of xxd.";

    #[test]
    fn xxd_dumps_like_vim() {
        assert_eq!(
            run("xxd", &[], TEXT),
            ok(
                "00000000: 4865 6c6c 6f2c 2077 6f72 6c64 210a 5468  Hello, world!.Th\n\
                00000010: 6973 2069 7320 6120 7465 7374 206f 6620  is is a test of \n\
                00000020: 7878 642e                                xxd.\n"
            )
        );
        assert_eq!(run("xxd", &["-p", "-l", "3"], TEXT), ok("48656c\n"));
        assert_eq!(
            run("xxd", &["-p", "-c", "4"], "abcdef"),
            ok("61626364\n6566\n")
        );
        assert_eq!(
            run("xxd", &["-s", "0x10", "-l4"], TEXT),
            ok("00000010: 6973 2069                                is i\n")
        );
        assert_eq!(
            run("xxd", &["-s", "-2"], "abc"),
            ok("00000001: 6263                                     bc\n")
        );
        assert_eq!(
            run("xxd", &["-c", "4", "-g", "4", "-l", "8", "-u"], TEXT),
            ok("00000000: 48656C6C  Hell\n00000004: 6F2C2077  o, w\n")
        );
        assert_eq!(run("xxd", &[], ""), ok(""));
        assert_eq!(run("xxd", &["-r", "-p"], "4142 43\n44\n"), ok("ABCD"));
        // Junk as vim's xxd takes it: one is skipped, two in a row end the line, and junk
        // after a half-read byte drops that byte.
        assert_eq!(run("xxd", &["-r", "-p"], "30 !31 !!32\n"), ok("01"));
        assert_eq!(run("xxd", &["-r", "-p"], "33 3!4 3!!5\n36\n"), ok("3C6"));
        assert_eq!(run("xxd", &["-r", "-p"], "zz31!!\nzz32 3"), ok("12"));
        assert_eq!(run("xxd", &["-r"], "00000002: 4142  AB\n"), ok("\0\0AB"));
        assert_eq!(
            run("xxd", &["nope"], ""),
            Outcome {
                stdout: String::new(),
                stderr: "xxd: nope: No such file or directory\n".into(),
                status: 2,
            }
        );
    }
}
