//! `od [-A RADIX] [-t TYPE]... [-N COUNT] [-j SKIP] [-w[N]] [-v] [-bcdosx] [FILE]...`: dump
//! bytes in octal, hex, decimal or as characters, laid out byte for byte like GNU `od`.

use crate::applets::common::{finish, open_or_warn, parse_args, quote};
use crate::applets::common::{usage_error, warn, Opt, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `od` applet.
pub const APPLET: Applet = Applet {
    name: "od",
    usage: "od [OPTION]... [FILE]...\nWrite an unambiguous representation, octal bytes by default, of FILE to standard output.\n  -A, --address-radix=RADIX   offsets in d, o, x or n (none)\n  -j, --skip-bytes=BYTES      skip BYTES input bytes first\n  -N, --read-bytes=BYTES      limit dump to BYTES input bytes\n  -t, --format=TYPE           select output format or formats\n  -v, --output-duplicates     do not use * to mark line suppression\n  -w[BYTES], --width[=BYTES]  output BYTES bytes per output line (32 without BYTES)\n  -b  same as -t o1    -c  same as -t c    -d  same as -t u2\n  -o  same as -t o2    -s  same as -t d2   -x  same as -t x2\n  -a  same as -t a     -B  same as -t o2   -D  same as -t u4\n  -h  same as -t x2    -H, -X  same as -t x4   -i  same as -t dI\n  -O  same as -t o4    -I, -L, -l  same as -t dL\nTYPE is made of: a (named characters), c (characters), d[SIZE] (signed decimal),\no[SIZE] (octal), u[SIZE] (unsigned decimal), x[SIZE] (hex); SIZE is 1, 2, 4, 8, C, S,\nI or L; a z suffix adds the printable characters of each line.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "bcdosxvaBDHXiOILlhf",
    short_val: "AjNt",
    long: &["output-duplicates", "traditional"],
    long_val: &["address-radix", "skip-bytes", "read-bytes", "format"],
    digits: None,
    stop_at_operand: false,
};

/// How one output line shows its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Octal,
    Hex,
    Signed,
    Unsigned,
    /// `c`: the character or a C escape or octal.
    Char,
    /// `a`: the character or its ASCII name.
    Named,
    /// `f`: a float (size 4) or a double (8), in the shortest form that reads back.
    Float,
}

/// One `-t` type: `x2`, `d4`, `c`... and whether the `z` trailer follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Format {
    kind: Kind,
    size: usize,
    trailer: bool,
}

impl Format {
    /// Characters in a field, not counting the space before it.
    fn width(self) -> usize {
        let index = self.size.trailing_zeros() as usize;
        match self.kind {
            Kind::Octal => [3, 6, 11, 22][index],
            Kind::Hex => 2 * self.size,
            Kind::Signed => [4, 6, 11, 20][index],
            Kind::Unsigned => [3, 5, 10, 20][index],
            Kind::Char | Kind::Named => 3,
            Kind::Float => [0, 0, 15, 24][index],
        }
    }

    /// One field's text (unpadded) for `bytes` (little-endian, `size` of them).
    fn field(self, bytes: &[u8]) -> String {
        let value = bytes
            .iter()
            .rev()
            .fold(0u64, |v, &b| (v << 8) | u64::from(b));
        let bits = 8 * self.size as u32;
        let digits = self.width();
        match self.kind {
            Kind::Octal => format!("{value:0digits$o}"),
            Kind::Hex => format!("{value:0digits$x}"),
            Kind::Unsigned => value.to_string(),
            // Sign-extend from the field's size.
            Kind::Signed => (((value << (64 - bits)) as i64) >> (64 - bits)).to_string(),
            Kind::Char => char_name(bytes[0]),
            Kind::Named => ascii_name(bytes[0]),
            Kind::Float if self.size == 4 => {
                let x = f32::from_bits(value as u32);
                shortest(f64::from(x), &format!("{x:e}"), x.is_subnormal(), 6)
            }
            Kind::Float => {
                let x = f64::from_bits(value);
                shortest(x, &format!("{x:e}"), x.is_subnormal(), 15)
            }
        }
    }
}

/// A float as GNU `od` shows it: `%.*g` with the fewest digits (at least `min_digits` for a
/// normal number) that read back as the same value. `sci` is Rust's shortest `{:e}` form.
fn shortest(x: f64, sci: &str, subnormal: bool, min_digits: usize) -> String {
    if !x.is_finite() {
        let sign = if x.is_sign_negative() { "-" } else { "" };
        return format!("{sign}{}", if x.is_nan() { "nan" } else { "inf" });
    }
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits = mantissa.replace('.', "");
    let precision = if subnormal {
        digits.len()
    } else {
        digits.len().max(min_digits)
    };
    if exp < -4 || exp >= precision as i32 {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        let esign = if exp < 0 { '-' } else { '+' };
        return format!("{sign}{first}{dot}{rest}e{esign}{:02}", exp.abs());
    }
    let text = if exp < 0 {
        format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
    } else {
        let whole = exp as usize + 1;
        let padded = format!("{digits:0<whole$}");
        let (int, frac) = padded.split_at(whole);
        if frac.is_empty() {
            int.to_string()
        } else {
            format!("{int}.{frac}")
        }
    };
    format!("{sign}{text}")
}

/// `-t c`: printable characters as themselves, C escapes, else three octal digits.
fn char_name(b: u8) -> String {
    match b {
        0 => "\\0".into(),
        7 => "\\a".into(),
        8 => "\\b".into(),
        b'\t' => "\\t".into(),
        b'\n' => "\\n".into(),
        11 => "\\v".into(),
        12 => "\\f".into(),
        b'\r' => "\\r".into(),
        b' '..=b'~' => char::from(b).to_string(),
        _ => format!("{b:03o}"),
    }
}

/// `-t a`: the ASCII names of control characters (the high bit is ignored, as in GNU).
fn ascii_name(b: u8) -> String {
    const NAMES: [&str; 33] = [
        "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "nl", "vt", "ff", "cr",
        "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub",
        "esc", "fs", "gs", "rs", "us", "sp",
    ];
    match b & 0x7f {
        0x7f => "del".into(),
        low => NAMES
            .get(usize::from(low))
            .map_or_else(|| char::from(low).to_string(), |name| name.to_string()),
    }
}

/// Parses a `-t` argument (`x1z`, `d4u1`, `c`) into its formats, or GNU's message.
fn parse_types(text: &str) -> Result<Vec<Format>, String> {
    let mut formats = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        let kind = match c {
            'o' => Kind::Octal,
            'x' => Kind::Hex,
            'd' => Kind::Signed,
            'u' => Kind::Unsigned,
            'c' => Kind::Char,
            'a' => Kind::Named,
            'f' => Kind::Float,
            _ => {
                return Err(format!(
                    "invalid character '{c}' in type string {}",
                    quote(text)
                ))
            }
        };
        let mut size = 1;
        if !matches!(kind, Kind::Char | Kind::Named) {
            let float = kind == Kind::Float;
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let letter = match (rest.chars().next(), float) {
                (Some('C'), false) => Some(1),
                (Some('S'), false) => Some(2),
                (Some('I'), false) | (Some('F'), true) => Some(4),
                (Some('L'), false) | (Some('D'), true) => Some(8),
                (Some('L'), true) => Some(16),
                _ => None,
            };
            size = match letter {
                Some(size) => size,
                None if digits == 0 => 4 << usize::from(float),
                None => rest[..digits].parse().unwrap_or(0),
            };
            let taken = if letter.is_some() { 1 } else { digits };
            let (sizes, what): (&[usize], _) = if float {
                (&[4, 8], "floating point")
            } else {
                (&[1, 2, 4, 8], "integral")
            };
            if !sizes.contains(&size) {
                return Err(format!(
                    "invalid type string {};\nthis system doesn't provide a {size}-byte {what} type",
                    quote(&format!("{c}{}", &rest[..taken]))
                ));
            }
            rest = &rest[taken..];
        }
        let trailer = rest.starts_with('z');
        if trailer {
            rest = &rest[1..];
        }
        formats.push(Format {
            kind,
            size,
            trailer,
        });
    }
    Ok(formats)
}

/// A byte count as GNU reads it: decimal, `0x` hex or `0` octal, with an optional
/// multiplier suffix (`b` 512, `k` 1024, `kB` 1000, `M`...).
fn parse_count(text: &str) -> Option<u64> {
    let (radix, body) = if let Some(hex) = text.strip_prefix("0x").or(text.strip_prefix("0X")) {
        (16, hex)
    } else if text.len() > 1 && text.starts_with('0') {
        (8, &text[1..])
    } else {
        (10, text)
    };
    let end = body
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(body.len());
    let value = u64::from_str_radix(&body[..end], radix).ok()?;
    let factor = crate::applets::common::parse_size(&format!("1{}", &body[end..]))?;
    Some(value.saturating_mul(factor))
}

/// Where lines begin: the offset's radix and digits, or none (`-A n`).
#[derive(Clone, Copy)]
struct Address {
    radix: char,
    width: usize,
    /// `--traditional FILE OFFSET LABEL`: each address is followed by `(LABEL + n)` for the
    /// n-th byte dumped (this is `LABEL - OFFSET`, added to the real address).
    label: Option<u64>,
}

impl Address {
    /// `-A o`, `d` (7 digits), `x` (6) or `n` (none).
    fn parse(radix: &str) -> Option<Address> {
        let width = match radix {
            "o" | "d" => 7,
            "x" => 6,
            "n" => 0,
            _ => return None,
        };
        let radix = radix.chars().next()?;
        Some(Address {
            radix,
            width,
            label: None,
        })
    }

    fn text(self, offset: u64) -> String {
        let number = |offset: u64| {
            let w = self.width;
            match self.radix {
                'o' => format!("{offset:0w$o}"),
                'd' => format!("{offset:0w$}"),
                'x' => format!("{offset:0w$x}"),
                _ => String::new(),
            }
        };
        match self.label {
            Some(delta) => format!(
                "{} ({})",
                number(offset),
                number(offset.wrapping_add(delta))
            ),
            None => number(offset),
        }
    }
}

/// Everything that shapes the dump.
struct Layout {
    formats: Vec<Format>,
    address: Address,
    /// Bytes per line.
    width: usize,
    /// Per format: spaces shared out among its fields so every format spans the same columns.
    pads: Vec<usize>,
    /// Print every line (`-v`) instead of `*` for repeats.
    all: bool,
}

impl Layout {
    fn new(formats: Vec<Format>, address: Address, width: usize, all: bool) -> Self {
        let fields = |f: &Format| width / f.size;
        let line_width = formats
            .iter()
            .map(|f| (f.width() + 1) * fields(f))
            .max()
            .unwrap_or(0);
        let pads = formats
            .iter()
            .map(|f| line_width - f.width() * fields(f))
            .collect();
        Layout {
            formats,
            address,
            width,
            pads,
            all,
        }
    }

    /// The lines for one block of up to `width` bytes at `offset`, one per format.
    fn render(&self, offset: u64, bytes: &[u8], out: &mut String) {
        let mut block = bytes.to_vec();
        block.resize(self.width, 0);
        for (i, (format, &pad)) in self.formats.iter().zip(&self.pads).enumerate() {
            match i {
                0 => out.push_str(&self.address.text(offset)),
                _ => out.push_str(&" ".repeat(self.address.width)),
            }
            let fields = self.width / format.size;
            let shown = fields - (self.width - bytes.len()) / format.size;
            // GNU's spreading of the pad: field i of n gets pad*(n-i)/n - pad*(n-i-1)/n.
            let mut pad_left = pad;
            for (n, chunk) in block.chunks(format.size).take(shown).enumerate() {
                let next_pad = pad * (fields - n - 1) / fields;
                let w = pad_left - next_pad + format.width();
                out.push_str(&format!("{:>w$}", format.field(chunk)));
                pad_left = next_pad;
            }
            if format.trailer {
                out.push_str(&" ".repeat((fields - shown) * (format.width() + 1)));
                out.push_str("  >");
                out.extend(bytes.iter().map(|&b| match b {
                    b' '..=b'~' => char::from(b),
                    _ => '.',
                }));
                out.push('<');
            }
            out.push('\n');
        }
    }
}

/// What the options ask for.
struct Settings {
    formats: Vec<Format>,
    address: Address,
    skip: u64,
    limit: Option<u64>,
    all: bool,
}

impl Settings {
    /// Takes in one option, or says what is wrong with it.
    fn take(&mut self, opt: &Opt) -> Result<(), String> {
        let count = |letter: char| {
            parse_count(opt.value())
                .ok_or_else(|| format!("invalid -{letter} argument {}", quote(opt.value())))
        };
        let types = match opt {
            Opt::Short('b', _) => "o1",
            Opt::Short('c', _) => "c",
            Opt::Short('d', _) => "u2",
            Opt::Short('o', _) => "o2",
            Opt::Short('s', _) => "d2",
            Opt::Short('x', _) => "x2",
            // The traditional letters GNU keeps (BusyBox's suite checks them).
            Opt::Short('a', _) => "a",
            Opt::Short('h', _) => "x2",
            Opt::Short('B', _) => "o2",
            Opt::Short('D', _) => "u4",
            Opt::Short('H' | 'X', _) => "x4",
            Opt::Short('i', _) => "dI",
            Opt::Short('O', _) => "o4",
            Opt::Short('I' | 'L' | 'l', _) => "dL",
            Opt::Short('f', _) => "fF",
            _ if opt.is('t', "format") => opt.value(),
            // Read by `main`: it changes how operands are read.
            Opt::Long(name, _) if name == "traditional" => return Ok(()),
            _ if opt.is('v', "output-duplicates") => {
                self.all = true;
                return Ok(());
            }
            _ if opt.is('A', "address-radix") => {
                self.address = Address::parse(opt.value()).ok_or_else(|| {
                    format!(
                        "invalid output address radix '{}'; it must be one character from [doxn]",
                        opt.value()
                    )
                })?;
                return Ok(());
            }
            _ if opt.is('j', "skip-bytes") => {
                self.skip = count('j')?;
                return Ok(());
            }
            _ => {
                self.limit = Some(count('N')?);
                return Ok(());
            }
        };
        self.formats.extend(parse_types(types)?);
        Ok(())
    }
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (width_arg, args) = width_option(&ctx.args);
    ctx.args = args;
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let mut s = Settings {
        formats: Vec::new(),
        address: Address {
            radix: 'o',
            width: 7,
            label: None,
        },
        skip: 0,
        limit: None,
        all: false,
    };
    for opt in &opts {
        if let Err(message) = s.take(opt) {
            warn(&mut ctx, message).await;
            return 1;
        }
    }
    let traditional = opts.iter().any(|o| o.is('\0', "traditional"));
    // GNU reads old-style offset operands unless a POSIX-only option was given.
    let modern = width_arg.is_some()
        || opts.iter().any(|o| match o {
            Opt::Short(c, _) => "AjNt".contains(*c),
            Opt::Long(l, _) => l != "traditional" && l != "output-duplicates",
        });
    let mut operands = operands;
    if !modern {
        match old_operands(&operands, traditional) {
            Ok(Some((files, skip, label))) => {
                s.skip = skip;
                s.address.label = label.map(|label| label.wrapping_sub(skip));
                operands = files;
            }
            Ok(None) => {}
            Err(extra) => {
                warn(&mut ctx, format!("extra operand {}", quote(&extra))).await;
                let message = "compatibility mode supports at most one file";
                return usage_error(&mut ctx, message, 1).await;
            }
        }
    }
    let Settings {
        mut formats,
        address,
        skip,
        limit,
        all,
    } = s;
    if formats.is_empty() {
        formats.push(Format {
            kind: Kind::Octal,
            size: 2,
            trailer: false,
        });
    }
    // Every line must hold whole fields of every format (sizes are powers of two, so the
    // largest is their least common multiple).
    let lcm = formats.iter().map(|f| f.size).fold(1, usize::max);
    let width = match width_arg {
        None => 16,
        Some(None) => 32,
        Some(Some(text)) => match parse_count(&text) {
            Some(w) if w > 0 && w % lcm as u64 == 0 && usize::try_from(w).is_ok() => {
                usize::try_from(w).unwrap_or(lcm)
            }
            Some(w) => {
                warn(
                    &mut ctx,
                    format!("warning: invalid width {w}; using {lcm} instead"),
                )
                .await;
                lcm
            }
            None => {
                warn(&mut ctx, format!("invalid -w argument {}", quote(&text))).await;
                return 1;
            }
        },
    };
    let layout = Layout::new(formats, address, width, all);
    let result = dump(&mut ctx, &operands, &layout, skip, limit).await;
    finish(&mut ctx, result).await
}

/// GNU's old-style operands, `[FILE] [[+]OFFSET [[+]LABEL]]`, read as GNU does (with
/// `--traditional`, or a last operand that looks like an offset): the files left, the
/// offset to skip and the label, or None when the operands are all files. `Err`: the extra
/// operand `--traditional` refuses (it takes one file).
#[allow(clippy::type_complexity)]
fn old_operands(
    operands: &[String],
    traditional: bool,
) -> Result<Option<(Vec<String>, u64, Option<u64>)>, String> {
    let looks = |s: &str| s.starts_with('+') || s.starts_with(|c: char| c.is_ascii_digit());
    let found = match operands {
        [only] if traditional || only.starts_with('+') => {
            old_offset(only).map(|skip| (Vec::new(), skip, None))
        }
        [file, second] if traditional || looks(second) => match old_offset(second) {
            Some(label) if traditional => match old_offset(file) {
                Some(skip) => Some((Vec::new(), skip, Some(label))),
                None => Some((vec![file.clone()], label, None)),
            },
            Some(skip) => Some((vec![file.clone()], skip, None)),
            None => None,
        },
        [file, offset, label] => match (old_offset(offset), old_offset(label)) {
            (Some(skip), Some(label)) => Some((vec![file.clone()], skip, Some(label))),
            _ => None,
        },
        _ => None,
    };
    let files = found.as_ref().map_or(operands, |(files, _, _)| files);
    match files.get(1) {
        Some(extra) if traditional => Err(extra.clone()),
        _ => Ok(found),
    }
}

/// An old-style offset: `[+]N` in octal (`0x` hex), times 512 with a `b` suffix, 1024 with
/// `B`. (GNU documents a `.` for decimal, but its parser refuses it: so does this one.)
fn old_offset(text: &str) -> Option<u64> {
    let text = text.strip_prefix('+').unwrap_or(text);
    let (text, factor) = match text.strip_suffix('b') {
        Some(rest) => (rest, 512),
        None => match text.strip_suffix('B') {
            Some(rest) => (rest, 1024),
            None => (text, 1),
        },
    };
    let (digits, radix) = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (text, 8),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()?.checked_mul(factor)
}

/// Takes `-w`, `-wN`, `--width` and `--width=N` out of `args` (GNU's optional value, which
/// the shared parser does not have): the last one's value, and the other arguments.
fn width_option(args: &[String]) -> (Option<Option<String>>, Vec<String>) {
    let mut width = None;
    let mut rest = Vec::new();
    let mut options_end = false;
    for arg in args {
        options_end |= arg == "--";
        let value = match arg.strip_prefix("--width") {
            Some("") => Some(None),
            Some(v) => v.strip_prefix('=').map(|v| Some(v.to_string())),
            None => arg
                .strip_prefix("-w")
                .map(|v| (!v.is_empty()).then(|| v.to_string())),
        };
        match value {
            Some(value) if !options_end => width = Some(value),
            _ => rest.push(arg.clone()),
        }
    }
    (width, rest)
}

/// Dumps the operands (stdin without any) as one stream, after `skip` bytes and up to
/// `limit` bytes, ending with the final offset.
async fn dump(
    ctx: &mut Ctx,
    paths: &[String],
    layout: &Layout,
    mut skip: u64,
    limit: Option<u64>,
) -> Result<i32, WriteError> {
    let stdin = ["-".to_string()];
    let paths = if paths.is_empty() { &stdin[..] } else { paths };
    let (mut status, mut opened) = (0, false);
    let mut offset = skip;
    let mut left = limit.unwrap_or(u64::MAX);
    let (mut pending, mut previous) = (Vec::new(), None::<Vec<u8>>);
    let mut starred = false;
    let mut out = String::new();
    for path in paths {
        let Some(mut input) = open_or_warn(ctx, path).await else {
            status = 1;
            continue;
        };
        opened = true;
        while left > 0 {
            let Some(mut chunk) = input.read_chunk().await else {
                break;
            };
            let skipped = skip.min(chunk.len() as u64);
            chunk.drain(..skipped as usize);
            skip -= skipped;
            chunk.truncate(usize::try_from(left).unwrap_or(usize::MAX));
            left -= chunk.len() as u64;
            pending.extend_from_slice(&chunk);
            let whole = pending.len() - pending.len() % layout.width;
            for block in pending[..whole].chunks(layout.width) {
                // GNU marks a run of lines equal to the one before with a single `*`.
                if !layout.all && previous.as_deref() == Some(block) {
                    if !starred {
                        out.push_str("*\n");
                    }
                    starred = true;
                } else {
                    layout.render(offset, block, &mut out);
                    previous = Some(block.to_vec());
                    starred = false;
                }
                offset += block.len() as u64;
            }
            pending.drain(..whole);
            ctx.stdout.write(out.as_bytes()).await?;
            out.clear();
        }
    }
    if skip > 0 {
        warn(ctx, "cannot skip past end of combined input").await;
        return Ok(1);
    }
    if !pending.is_empty() {
        layout.render(offset, &pending, &mut out);
        offset += pending.len() as u64;
    }
    if opened && layout.address.radix != 'n' {
        out.push_str(&layout.address.text(offset));
        out.push('\n');
    }
    ctx.stdout.write(out.as_bytes()).await?;
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::{parse_types, Format, Kind};
    use crate::applets::text::cases::Table;

    #[test]
    fn fields() {
        let f = |kind, size| Format {
            kind,
            size,
            trailer: false,
        };
        assert_eq!(f(Kind::Octal, 2).field(b"ab"), "061141");
        assert_eq!(f(Kind::Hex, 4).field(b"abcd"), "64636261");
        assert_eq!(f(Kind::Signed, 1).field(&[0x80]), "-128");
        assert_eq!(f(Kind::Signed, 2).field(&[0xff, 0xff]), "-1");
        assert_eq!(f(Kind::Unsigned, 8).field(&[0xff; 8]), u64::MAX.to_string());
        assert_eq!(f(Kind::Char, 1).field(&[0o377]), "377");
        assert_eq!(f(Kind::Named, 1).field(&[0xff]), "del");
        assert_eq!(f(Kind::Named, 1).field(b" "), "sp");
        let float = |bits: u32| f(Kind::Float, 4).field(&bits.to_le_bytes());
        assert_eq!(float(0x3dcc_cccd), "0.1");
        assert_eq!(float(0x42c8_0000), "100");
        assert_eq!(float(0x0a03_0201), "6.3077975e-33");
        assert_eq!(float(0xfe43_4241), "-6.4885867e+37");
        assert_eq!(float(0x8000_0000), "-0");
        assert_eq!(float(0x7f80_0000), "inf");
        assert_eq!(float(0xffc0_0000), "-nan");
        let double = |x: f64| f(Kind::Float, 8).field(&x.to_bits().to_le_bytes());
        assert_eq!(double(1e-5), "1e-05");
        assert_eq!(double(123456.5), "123456.5");
    }

    #[test]
    fn type_strings() {
        let kinds = |t: &str| {
            parse_types(t).map(|f| {
                f.iter()
                    .map(|f| (f.kind, f.size, f.trailer))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(
            kinds("x1zd"),
            Ok(vec![(Kind::Hex, 1, true), (Kind::Signed, 4, false)])
        );
        assert_eq!(
            kinds("uLcoS"),
            Ok(vec![
                (Kind::Unsigned, 8, false),
                (Kind::Char, 1, false),
                (Kind::Octal, 2, false)
            ])
        );
        assert_eq!(
            kinds("x9"),
            Err(
                "invalid type string 'x9';\nthis system doesn't provide a 9-byte integral type"
                    .into()
            )
        );
        assert_eq!(
            kinds("q"),
            Err("invalid character 'q' in type string 'q'".into())
        );
    }

    const TABLE: Table = Table {
        name: "od",
        files: &[("f", "abc"), ("z", "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0x")],
        ok: &[
            (&[], "abc\n\u{1}\t ", "0000000 061141 005143 004401 000040\n0000007\n"),
            (&["-c"], "abc\n\u{1}\t \u{7f}", "0000000   a   b   c  \\n 001  \\t     177\n0000010\n"),
            (&["-t", "a"], "a\n\u{1} \u{7f}", "0000000   a  nl soh  sp del\n0000005\n"),
            (&["-An", "-tx1"], "abc", " 61 62 63\n"),
            (&["-t", "d4"], "abcdefg", "0000000  1684234849     6776421\n0000007\n"),
            (&["-Ax", "-tx1z"], "abcdefg", "000000 61 62 63 64 65 66 67                             >abcdefg<\n000007\n"),
            (&["-tx1", "-c", "-tx2"], "abcdefg", "0000000  61  62  63  64  65  66  67\n          a   b   c   d   e   f   g\n           6261    6463    6665    0067\n0000007\n"),
            (&["-An", "-td2", "-tu1"], "abcdefg", "   25185   25699   26213     103\n  97  98  99 100 101 102 103\n"),
            (&["-d", "-w4", "-Ad"], "abcdefg", "0000000 25185 25699\n0000004 26213   103\n0000007\n"),
            (&["-j1", "-N", "3", "-c"], "abcdef", "0000001   b   c   d\n0000004\n"),
            (&["-N", "0x3", "-c"], "abcdefgh", "0000000   a   b   c\n0000003\n"),
            (&["-b", "-x", "-o", "-s"], "ab", "0000000 141 142\n           6261\n         061141\n          25185\n0000002\n"),
            (&["-w", "f"], "", "0000000 061141 000143\n0000003\n"),
            (&["-tx4", "z"], "", "0000000 00000000 00000000 00000000 00000000\n*\n0000040 00000000 00000000 00000078\n0000051\n"),
            (&["-v", "-tx8", "z"], "", "0000000 0000000000000000 0000000000000000\n0000020 0000000000000000 0000000000000000\n0000040 0000000000000000 0000000000000078\n0000051\n"),
            (&[], "", "0000000\n"),
            (&["-a"], "abcdefgh", "0000000   a   b   c   d   e   f   g   h\n0000010\n"),
            (&["-B"], "abcdefgh", "0000000 061141 062143 063145 064147\n0000010\n"),
            (&["-D"], "abcdefgh", "0000000 1684234849 1751606885\n0000010\n"),
            (&["-H"], "abcdefgh", "0000000 64636261 68676665\n0000010\n"),
            (&["-i"], "abcdefgh", "0000000  1684234849  1751606885\n0000010\n"),
            (&["-O"], "abcdefgh", "0000000 14430661141 15031663145\n0000010\n"),
            (&["-L"], "abcdefgh", "0000000  7523094288207667809\n0000010\n"),
            (&["-h"], "abcdefgh", "0000000 6261 6463 6665 6867\n0000010\n"),
            (&["-c", "f", "1"], "", "0000001   b   c\n0000003\n"),
            (&["-c", "f", "+2"], "", "0000002   c\n0000003\n"),
            (&["--traditional", "-c", "f", "1", "10"], "", "0000001 (0000010)   b   c\n0000003 (0000012)\n"),
            (&["--traditional", "-c", "+1"], "xyz", "0000001   y   z\n0000003\n"),
            (&["--traditional", "-c", "f"], "", "0000000   a   b   c\n0000003\n"),
            (&["-tf4", "-tf"], "ABCDEFGH", "0000000        781.0352       204057.08\n                 1.5839800103804824e+40\n0000010\n"),
            (&["-f", "-An"], "\0\0\u{0}\0\0\0\0\0", "               0               0\n"),
            (&["-tfF", "-w4", "-An"], "\0\0HB\u{1}\0\0\0", "              50\n           1e-45\n"),
        ],
        err: &[
            (&["-j", "5"], "abc", "", "od: cannot skip past end of combined input\n", 1),
            (&["-N", "q"], "abc", "", "od: invalid -N argument 'q'\n", 1),
            (&["-w5", "-tx2"], "abcd", "0000000 6261\n0000002 6463\n0000004\n", "od: warning: invalid width 5; using 2 instead\n", 0),
            (&["-Aq"], "", "", "od: invalid output address radix 'q'; it must be one character from [doxn]\n", 1),
            (&["-tq"], "", "", "od: invalid character 'q' in type string 'q'\n", 1),
            (&["-tf2"], "", "", "od: invalid type string 'f2';\nthis system doesn't provide a 2-byte floating point type\n", 1),
            (&["nope"], "", "", "od: nope: No such file or directory\n", 1),
            (&["nope", "f", "-c"], "", "0000000   a   b   c\n0000003\n", "od: nope: No such file or directory\n", 1),
            (&["-c", "-tx1", "f", "1"], "", "0000000   a   b   c\n         61  62  63\n0000003\n", "od: 1: No such file or directory\n", 1),
            (&["--traditional", "f", "g", "h", "i"], "", "", "od: extra operand 'g'\nod: compatibility mode supports at most one file\nTry 'od --help' for more information.\n", 1),
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
