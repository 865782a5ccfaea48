//! `hexdump -e FORMAT`: the format language of BSD and util-linux hexdump. A format is a list
//! of units `[ITERATIONS/][BYTES] "TEXT"`; TEXT holds printf conversions (`%02x`, `%d`,
//! `%c`, `%e`...) and hexdump's own (`%_a[dox]` and `%_A[dox]` the offset, `%_c` a character
//! or its escape, `%_p` a printable character or `.`, `%_u` a character or its ASCII name).
//! Every format runs on each block of input (as many bytes as the longest format takes); a
//! block equal to the one before shows as one `*`, and conversions past the end of the input
//! print as blanks of their width.

use super::printf::number::{format_float, format_int, Spec};

/// One conversion: printf's flags, width and precision, what it shows and its byte count.
#[derive(Clone, Debug)]
struct Conv {
    spec: Spec,
    kind: u8,
    size: usize,
}

#[derive(Clone, Debug)]
enum Piece {
    Text(Vec<u8>),
    Conv(Conv),
    /// `%_a` (`end` false) or `%_A` (`end` true), with the radix letter.
    Address {
        spec: Spec,
        radix: u8,
        end: bool,
    },
}

#[derive(Clone, Debug)]
struct Unit {
    reps: usize,
    /// Whether the iteration count was written (else the last unit fills the block).
    counted: bool,
    bytes: usize,
    pieces: Vec<Piece>,
}

impl Unit {
    /// Whether the unit shows the end offset (`%_A`).
    fn ends(&self) -> bool {
        let end = |p: &Piece| matches!(p, Piece::Address { end: true, .. });
        self.pieces.iter().any(end)
    }
}

/// The formats of one `hexdump` run.
pub struct Formats {
    lines: Vec<Vec<Unit>>,
    block: usize,
}

/// Parses the `-e` arguments; the error is util-linux's message.
pub fn parse(formats: &[String]) -> Result<Formats, String> {
    let mut lines = Vec::new();
    for text in formats {
        lines.push(parse_line(text)?);
    }
    let width = |line: &Vec<Unit>| line.iter().map(|u| u.reps * u.bytes).sum::<usize>();
    let block = lines.iter().map(width).max().unwrap_or(0);
    for line in &mut lines {
        let used = width(line);
        if let Some(last) = line.last_mut() {
            if !last.counted && last.bytes > 0 && used < block {
                last.reps += (block - used) / last.bytes;
            }
        }
    }
    Ok(Formats { lines, block })
}

fn parse_line(text: &str) -> Result<Vec<Unit>, String> {
    let mut units = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let number = |s: &str| -> (Option<usize>, usize) {
            let n = s.bytes().take_while(u8::is_ascii_digit).count();
            (s[..n].parse().ok(), n)
        };
        let (mut reps, mut counted) = (1, false);
        let (first, n) = number(rest);
        let mut bytes = None;
        if rest[n..].trim_start().starts_with('/') {
            (reps, counted) = (first.unwrap_or(1), true);
            rest = rest[n..].trim_start()[1..].trim_start();
            let (count, n) = number(rest);
            bytes = count;
            rest = rest[n..].trim_start();
        } else if first.is_some() {
            bytes = first;
            rest = rest[n..].trim_start();
        }
        let Some(body) = rest.strip_prefix('"') else {
            return Err(format!("bad format {{{text}}}"));
        };
        let Some(end) = body.find('"') else {
            return Err(format!("missing closing quote in {{{text}}}"));
        };
        let pieces = parse_pieces(&body[..end], bytes)?;
        let sizes = pieces.iter().map(|p| match p {
            Piece::Conv(c) => c.size,
            _ => 0,
        });
        let bytes = bytes.unwrap_or_else(|| sizes.sum());
        units.push(Unit {
            reps,
            counted,
            bytes,
            pieces,
        });
        rest = body[end + 1..].trim_start();
    }
    Ok(units)
}

fn parse_pieces(text: &str, bytes: Option<usize>) -> Result<Vec<Piece>, String> {
    let (mut pieces, mut literal) = (Vec::new(), Vec::new());
    let s = text.as_bytes();
    let mut at = 0;
    while at < s.len() {
        match s[at] {
            b'\\' if at + 1 < s.len() => {
                literal.push(match s[at + 1] {
                    b'n' => b'\n',
                    b't' => b'\t',
                    b'a' => 7,
                    b'b' => 8,
                    b'f' => 12,
                    b'r' => b'\r',
                    b'v' => 11,
                    b'0' => 0,
                    other => other,
                });
                at += 2;
            }
            b'%' if s.get(at + 1) == Some(&b'%') => {
                literal.push(b'%');
                at += 2;
            }
            b'%' => {
                if !literal.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut literal)));
                }
                let (piece, next) = conversion(s, at + 1, bytes)?;
                pieces.push(piece);
                at = next;
            }
            b => {
                literal.push(b);
                at += 1;
            }
        }
    }
    if !literal.is_empty() {
        pieces.push(Piece::Text(literal));
    }
    Ok(pieces)
}

/// One conversion from just after its `%`; returns it and where the text goes on.
fn conversion(s: &[u8], mut at: usize, bytes: Option<usize>) -> Result<(Piece, usize), String> {
    let mut spec = Spec::default();
    while let Some(&flag) = s.get(at).filter(|b| b"-+ #0".contains(b)) {
        match flag {
            b'-' => spec.left = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'#' => spec.alt = true,
            _ => spec.zero = true,
        }
        at += 1;
    }
    let digits = |at: &mut usize| {
        let start = *at;
        while s.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        std::str::from_utf8(&s[start..*at])
            .ok()?
            .parse::<i64>()
            .ok()
    };
    spec.width = digits(&mut at);
    if s.get(at) == Some(&b'.') {
        at += 1;
        spec.precision = Some(digits(&mut at).unwrap_or(0));
    }
    let bad = |c: &[u8]| format!("bad conversion character %{}", String::from_utf8_lossy(c));
    let kind = *s.get(at).ok_or_else(|| bad(b""))?;
    if kind == b'_' {
        let kind = *s.get(at + 1).ok_or_else(|| bad(b"_"))?;
        if matches!(kind, b'a' | b'A') {
            let radix = *s
                .get(at + 2)
                .filter(|r| b"dox".contains(r))
                .ok_or_else(|| bad(b"_a"))?;
            let end = kind == b'A';
            return Ok((Piece::Address { spec, radix, end }, at + 3));
        }
        if !matches!(kind, b'c' | b'p' | b'u') {
            return Err(bad(&[b'_', kind]));
        }
        let conv = Conv {
            spec,
            kind: kind.to_ascii_uppercase(),
            size: 1,
        };
        return Ok((Piece::Conv(conv), at + 2));
    }
    let size = match kind {
        b'c' => 1,
        b'd' | b'i' | b'o' | b'u' | b'x' | b'X' => {
            bytes.filter(|b| [1, 2, 4, 8].contains(b)).unwrap_or(4)
        }
        b'e' | b'E' | b'f' | b'g' | b'G' => bytes.filter(|&b| b == 4).unwrap_or(8),
        _ => return Err(bad(&[kind])),
    };
    Ok((Piece::Conv(Conv { spec, kind, size }), at + 1))
}

impl Formats {
    /// Dumps `data` (starting at offset `start`), squeezing repeated blocks unless `all`.
    pub fn dump(&self, data: &[u8], start: usize, all: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if self.block == 0 || data.is_empty() {
            return out;
        }
        let (mut previous, mut starred) = (None, false);
        for (i, block) in data.chunks(self.block).enumerate() {
            if !all && block.len() == self.block && previous == Some(block) {
                if !starred {
                    out.extend_from_slice(b"*\n");
                }
                starred = true;
                continue;
            }
            (previous, starred) = (Some(block), false);
            for line in &self.lines {
                self.line(line, block, start + i * self.block, &mut out);
            }
        }
        // A unit with `%_A` (and what follows it) shows once, after the last block.
        let end = start + data.len();
        for unit in self
            .lines
            .iter()
            .filter_map(|line| line.iter().find(|u| u.ends()))
        {
            for piece in &unit.pieces {
                match piece {
                    Piece::Text(text) => out.extend_from_slice(text),
                    Piece::Address {
                        spec,
                        radix,
                        end: true,
                    } => {
                        out.extend(format_int(end as i64, *radix, spec).bytes());
                    }
                    _ => {}
                }
            }
        }
        out
    }

    fn line(&self, units: &[Unit], block: &[u8], offset: usize, out: &mut Vec<u8>) {
        let mut at = 0;
        for unit in units.iter().take_while(|u| !u.ends()) {
            for rep in 0..unit.reps {
                let last_rep = unit.reps > 1 && rep + 1 == unit.reps;
                let mut used = 0;
                for (i, piece) in unit.pieces.iter().enumerate() {
                    match piece {
                        // The last iteration of a repeated unit drops its trailing blanks.
                        Piece::Text(text) if last_rep && i + 1 == unit.pieces.len() => {
                            let kept = text.iter().rposition(|b| !b.is_ascii_whitespace());
                            out.extend_from_slice(&text[..kept.map_or(0, |k| k + 1)]);
                        }
                        Piece::Text(text) => out.extend_from_slice(text),
                        Piece::Address {
                            spec,
                            radix,
                            end: false,
                        } => {
                            out.extend(
                                format_int((offset + at + used) as i64, *radix, spec).bytes(),
                            );
                        }
                        Piece::Address { .. } => {}
                        Piece::Conv(conv) => {
                            let from = at + used;
                            match block.get(from..) {
                                Some(rest) if !rest.is_empty() => {
                                    let mut bytes = [0u8; 8];
                                    let n = conv.size.min(rest.len());
                                    bytes[..n].copy_from_slice(&rest[..n]);
                                    convert(conv, &bytes[..conv.size], out);
                                }
                                _ => {
                                    let width = conv.spec.width.unwrap_or(0) as usize;
                                    out.resize(out.len() + width, b' ');
                                }
                            }
                            used += conv.size;
                        }
                    }
                }
                at += unit.bytes;
            }
        }
    }
}

/// Formats one conversion of `bytes` (little-endian, `conv.size` of them).
fn convert(conv: &Conv, bytes: &[u8], out: &mut Vec<u8>) {
    let value = bytes
        .iter()
        .rev()
        .fold(0u64, |v, &b| (v << 8) | u64::from(b));
    let bits = 8 * bytes.len() as u32;
    let spec = &conv.spec;
    let text = match conv.kind {
        b'd' | b'i' => format_int(((value << (64 - bits)) as i64) >> (64 - bits), b'd', spec),
        b'o' | b'u' | b'x' | b'X' => format_int(value as i64, conv.kind, spec),
        b'e' | b'E' | b'f' | b'g' | b'G' => {
            let x = match bytes.len() {
                4 => f64::from(f32::from_bits(value as u32)),
                _ => f64::from_bits(value),
            };
            format_float(x, conv.kind, spec)
        }
        kind => return pad(character(kind, bytes[0]), spec, out),
    };
    out.extend(text.bytes());
}

/// `%c`, `%_c`, `%_p` and `%_u` of one byte, before padding.
fn character(kind: u8, b: u8) -> Vec<u8> {
    const NAMES: [&str; 32] = [
        "nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs", "ht", "lf", "vt", "ff", "cr",
        "so", "si", "dle", "dc1", "dc2", "dc3", "dc4", "nak", "syn", "etb", "can", "em", "sub",
        "esc", "fs", "gs", "rs", "us",
    ];
    let printable = (0x20..0x7f).contains(&b);
    match kind {
        b'C' if printable => vec![b],
        b'C' => match b"\0\x07\x08\x0c\n\r\t\x0b".iter().position(|&c| c == b) {
            Some(i) => vec![b'\\', b"0abfnrtv"[i]],
            None => format!("{b:03o}").into_bytes(),
        },
        b'P' => vec![if printable { b } else { b'.' }],
        b'U' if b < 0x20 => NAMES[usize::from(b)].as_bytes().to_vec(),
        b'U' if b == 0x7f => b"del".to_vec(),
        b'U' if !printable => format!("{b:x}").into_bytes(),
        _ => vec![b],
    }
}

/// Pads `text` to the conversion's width (on the left, or the right with `-`).
fn pad(text: Vec<u8>, spec: &Spec, out: &mut Vec<u8>) {
    let width = spec.width.unwrap_or(0) as usize;
    let fill = width.saturating_sub(text.len());
    if !spec.left {
        out.resize(out.len() + fill, b' ');
    }
    out.extend_from_slice(&text);
    if spec.left {
        out.resize(out.len() + fill, b' ');
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::testing::{ok, run};

    fn dump(format: &str, input: &str) -> String {
        let out = run("hexdump", &["-e", format], input);
        assert_eq!((out.status, out.stderr.as_str()), (0, ""), "{format}");
        out.stdout
    }

    #[test]
    fn formats_like_util_linux() {
        let pairs = r#"1/1 "%02x|" 1/1 "%02x!\n""#;
        assert_eq!(dump(pairs, &"\0".repeat(11)), "00|00!\n*\n00|  !\n");
        assert_eq!(dump(pairs, &"\0".repeat(12)), "00|00!\n*\n");
        assert_eq!(dump(r#"4/1 "%3_u" "\n""#, "\0\x7f A"), "nuldel     A\n");
        assert_eq!(
            dump(r#"4/1 "%-4_c" "|\n""#, "\n\x01x\t"),
            "\\n  001 x   \\t  |\n"
        );
        assert_eq!(
            dump(r#""%_ad: " 4/1 "%_p" "\n""#, "ab\x01cdef"),
            "0: ab.c\n4: def\n"
        );
        assert_eq!(dump(r#"2/2 "%04x " "\n""#, "abcd"), "6261 6463\n");
        assert_eq!(dump(r#"1/4 "%d " "%_Ax\n""#, "\x01\x01\0\0"), "257 4\n");
        assert_eq!(dump(r#"4 "%u" "\n""#, "\u{1}\0\0\0"), "1\n");
        assert_eq!(dump(r#"1/1 "%02x" "[%_Ax]\n" 1/1 "z""#, "ab"), "61[2]\n");
        assert_eq!(dump(r#""%_Ad" 1/1 "%02x\n""#, "ab"), "2");
        assert_eq!(dump(r#""%_Ad""#, ""), "");
    }

    #[test]
    fn bad_formats_are_refused() {
        let bad = run("hexdump", &["-e", r#""%y""#], "");
        assert_eq!(
            (bad.status, bad.stderr.as_str()),
            (1, "hexdump: bad conversion character %y\n")
        );
        assert_eq!(run("hexdump", &["-e", "x"], "a").status, 1);
        assert_eq!(run("hexdump", &["-v", "-e", r#"1/1 "%c""#], "aa"), ok("aa"));
    }
}
