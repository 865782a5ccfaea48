//! `hexdump [-Cv] [-e FORMAT]... [-n LENGTH] [-s OFFSET] [FILE]...`: util-linux's hex dump, in
//! its default format (16-bit little-endian words), canonical hex+ASCII (`-C`) or the formats
//! given with `-e` (see `hexfmt`); repeated lines become `*`.

use crate::applets::common::inputs_or_stdin;
use crate::applets::common::{open, parse_args, parse_size, write_and_finish};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `hexdump` applet.
pub const APPLET: Applet = Applet {
    name: "hexdump",
    usage: "hexdump [options] <file>...\nDisplay file contents in hexadecimal.\n -C, --canonical           canonical hex+ASCII display\n -e, --format <format>     format string to be used for displaying data\n -n, --length <length>     interpret only length bytes of input\n -s, --skip <offset>       skip offset bytes from the beginning\n -v, --no-squeezing        output identical lines\nWithout -C: two-byte hexadecimal words (little-endian), 8 to a line.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "Cv",
    short_val: "nse",
    long: &["canonical", "no-squeezing"],
    long_val: &["length", "skip", "format"],
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
    let (mut canonical, mut squeeze, mut length, mut skip) = (false, true, None, 0);
    let mut formats = Vec::new();
    for opt in &opts {
        if opt.is('e', "format") {
            formats.push(opt.value().to_string());
        } else if opt.is('C', "canonical") {
            canonical = true;
        } else if opt.is('v', "no-squeezing") {
            squeeze = false;
        } else if opt.is('n', "length") || opt.is('s', "skip") {
            let Some(n) = parse_size(opt.value()) else {
                let message = format!("invalid number: '{}'", opt.value());
                return usage_error(&mut ctx, message, 1).await;
            };
            if opt.is('n', "length") {
                length = Some(n);
            } else {
                skip = n;
            }
        }
    }
    let formats = match formats.is_empty() {
        true => None,
        false => match super::hexfmt::parse(&formats) {
            Ok(parsed) => Some(parsed),
            Err(message) => {
                warn(&mut ctx, message).await;
                return 1;
            }
        },
    };
    // The files are read as one stream, as util-linux does.
    let (mut data, mut status) = (Vec::new(), 0);
    let names = inputs_or_stdin(operands);
    for name in &names {
        match open(&mut ctx, name) {
            Ok(mut input) => data.extend(input.read_all().await),
            Err(e) => {
                warn(&mut ctx, format!("{name}: {}", e.reason)).await;
                status = 1;
            }
        }
    }
    let start = usize::try_from(skip).unwrap_or(usize::MAX).min(data.len());
    let mut bytes = &data[start..];
    if let Some(n) = length {
        bytes = &bytes[..usize::try_from(n).unwrap_or(usize::MAX).min(bytes.len())];
    }
    let text = match formats {
        Some(formats) => formats.dump(bytes, start, !squeeze),
        None => dump(bytes, start, canonical, squeeze).into_bytes(),
    };
    write_and_finish(&mut ctx, &text, status).await
}

fn dump(bytes: &[u8], start: usize, canonical: bool, squeeze: bool) -> String {
    let mut out = String::new();
    let mut previous: Option<&[u8]> = None;
    let mut starred = false;
    for (i, row) in bytes.chunks(16).enumerate() {
        if squeeze && row.len() == 16 && previous == Some(row) {
            if !starred {
                out.push_str("*\n");
            }
            starred = true;
            continue;
        }
        (previous, starred) = (Some(row), false);
        let offset = start + i * 16;
        out.push_str(&if canonical {
            canonical_line(offset, row)
        } else {
            word_line(offset, row)
        });
    }
    if !bytes.is_empty() || !canonical {
        let end = start + bytes.len();
        out.push_str(&if canonical {
            format!("{end:08x}\n")
        } else {
            format!("{end:07x}\n")
        });
    }
    out
}

fn canonical_line(offset: usize, row: &[u8]) -> String {
    let mut line = format!("{offset:08x} ");
    for i in 0..16 {
        if i == 8 {
            line.push(' ');
        }
        match row.get(i) {
            Some(b) => line.push_str(&format!(" {b:02x}")),
            None => line.push_str("   "),
        }
    }
    let text: String = row
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                char::from(b)
            } else {
                '.'
            }
        })
        .collect();
    format!("{line}  |{text}|\n")
}

fn word_line(offset: usize, row: &[u8]) -> String {
    let mut line = format!("{offset:07x}");
    for i in 0..8 {
        match (row.get(2 * i), row.get(2 * i + 1)) {
            (Some(lo), hi) => {
                let word = u16::from(*lo) | u16::from(hi.copied().unwrap_or(0)) << 8;
                line.push_str(&format!(" {word:04x}"));
            }
            (None, _) => line.push_str("     "),
        }
    }
    line + "\n"
}

#[cfg(test)]
mod tests {
    use crate::applets::testing::{ok, run};

    #[test]
    fn hexdump_formats() {
        assert_eq!(
            run("hexdump", &["-C"], "Hello, world!\nThis"),
            ok(
                "00000000  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 54 68  |Hello, world!.Th|\n\
                00000010  69 73                                             |is|\n00000012\n"
            )
        );
        assert_eq!(
            run("hexdump", &[], "abc"),
            ok("0000000 6261 0063                              \n0000003\n")
        );
        assert_eq!(run("hexdump", &["-C"], ""), ok(""));
        assert_eq!(run("hexdump", &[], ""), ok("0000000\n"));
        let zeros = "\0".repeat(40) + "ab";
        assert_eq!(
            run("hexdump", &[], &zeros),
            ok("0000000 0000 0000 0000 0000 0000 0000 0000 0000\n*\n\
                0000020 0000 0000 0000 0000 6261               \n000002a\n")
        );
        assert_eq!(
            run("hexdump", &["-v", "-C", "-n", "4", "-s", "16"], &zeros),
            ok("00000010  00 00 00 00                                       |....|\n00000014\n")
        );
    }
}
