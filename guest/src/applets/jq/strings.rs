//! String builtins: the `@format`s, regular expressions (`_match_impl`), and friends.

use std::rc::Rc;

use regex::Regex;

use super::map::Map;
use super::val::{err, Res, Val};

/// `tostring`: strings as they are, anything else as JSON.
pub fn tostring(v: &Val) -> String {
    match v {
        Val::Str(s) => s.to_string(),
        v => v.to_json(),
    }
}

fn row<'a>(v: &'a Val, name: &str) -> Res<&'a [Val]> {
    match v {
        Val::Arr(a) => Ok(a),
        v => Err(err(format!(
            "{} cannot be {name}-formatted, only array",
            v.describe()
        ))),
    }
}

fn scalar_cell(v: &Val) -> Res<String> {
    match v {
        Val::Null => Ok(String::new()),
        Val::Bool(b) => Ok(b.to_string()),
        Val::Num(n) => Ok(n.to_json()),
        v => Err(err(format!("{} is not valid in a csv row", v.describe()))),
    }
}

/// `@csv`.
pub fn csv(v: &Val) -> Res<Val> {
    let mut cells = Vec::new();
    for cell in row(v, "csv")? {
        cells.push(match cell {
            Val::Str(s) => format!("\"{}\"", s.replace('"', "\"\"")),
            v => scalar_cell(v)?,
        });
    }
    Ok(Val::from(cells.join(",")))
}

/// `@tsv`.
pub fn tsv(v: &Val) -> Res<Val> {
    let mut cells = Vec::new();
    for cell in row(v, "tsv")? {
        cells.push(match cell {
            Val::Str(s) => s
                .replace('\\', "\\\\")
                .replace('\t', "\\t")
                .replace('\n', "\\n")
                .replace('\r', "\\r"),
            v => scalar_cell(v)?,
        });
    }
    Ok(Val::from(cells.join("\t")))
}

fn sh_word(v: &Val) -> Res<String> {
    match v {
        Val::Str(s) => Ok(format!("'{}'", s.replace('\'', "'\\''"))),
        Val::Arr(_) | Val::Obj(_) => Err(err(format!(
            "{} can not be escaped for shell",
            v.describe()
        ))),
        v => Ok(v.to_json()),
    }
}

/// `@sh`.
pub fn sh(v: &Val) -> Res<Val> {
    let words = match v {
        Val::Arr(a) => a.iter().map(sh_word).collect::<Res<Vec<_>>>()?,
        v => vec![sh_word(v)?],
    };
    Ok(Val::from(words.join(" ")))
}

/// `@html`.
pub fn html(v: &Val) -> Val {
    let s = tostring(v);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\'' => out.push_str("&apos;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    Val::from(out)
}

/// `@uri`: percent-encodes everything but `A-Za-z0-9-_.~`.
pub fn uri(v: &Val) -> Val {
    let s = tostring(v);
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    Val::from(out)
}

/// `@urid`: `%XX` escapes decoded; the bytes must be UTF-8.
pub fn urid(v: &Val) -> Res<Val> {
    let s = tostring(v);
    let bad = || {
        err(format!(
            "{} is not a valid uri encoding",
            Val::str(&s).describe()
        ))
    };
    let mut bytes = Vec::with_capacity(s.len());
    let mut rest = s.as_bytes();
    while let Some((&b, tail)) = rest.split_first() {
        rest = tail;
        if b != b'%' {
            bytes.push(b);
            continue;
        }
        let hex = rest.get(..2).and_then(|h| std::str::from_utf8(h).ok());
        let byte = hex
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .ok_or_else(bad)?;
        bytes.push(byte);
        rest = &rest[2..];
    }
    String::from_utf8(bytes).map(Val::from).map_err(|_| bad())
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

/// Encodes `data` with `alphabet` (`bits` per symbol, groups padded with `=`).
fn encode_bits(data: &[u8], alphabet: &[u8], bits: u32, group: usize) -> String {
    let mut out = String::new();
    let mut acc: u64 = 0;
    let mut n = 0;
    for &b in data {
        acc = (acc << 8) | u64::from(b);
        n += 8;
        while n >= bits {
            n -= bits;
            out.push(alphabet[((acc >> n) & ((1 << bits) - 1)) as usize] as char);
        }
    }
    if n > 0 {
        out.push(alphabet[((acc << (bits - n)) & ((1 << bits) - 1)) as usize] as char);
    }
    while !out.len().is_multiple_of(group) {
        out.push('=');
    }
    out
}

/// Decodes symbols of `alphabet`; None on a character outside it.
fn decode_bits(text: &str, alphabet: &[u8], bits: u32) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut acc: u64 = 0;
    let mut n = 0;
    for b in text.trim_end_matches('=').bytes() {
        let value = alphabet.iter().position(|&a| a == b)? as u64;
        acc = (acc << bits) | value;
        n += bits;
        if n >= 8 {
            n -= 8;
            out.push((acc >> n) as u8);
        }
    }
    Some(out)
}

/// `@base64`.
pub fn base64(v: &Val) -> Val {
    Val::from(encode_bits(tostring(v).as_bytes(), B64, 6, 4))
}

/// `@base64d`.
pub fn base64d(v: &Val) -> Res<Val> {
    let s = tostring(v);
    match decode_bits(&s, B64, 6) {
        Some(bytes) if s.trim_end_matches('=').len() % 4 != 1 => {
            Ok(Val::from(String::from_utf8_lossy(&bytes).into_owned()))
        }
        Some(_) => Err(err(format!(
            "{} trailing base64 byte found",
            Val::from(s).describe()
        ))),
        None => Err(err(format!(
            "{} is not valid base64 data",
            Val::from(s).describe()
        ))),
    }
}

/// `@base32`.
pub fn base32(v: &Val) -> Val {
    Val::from(encode_bits(tostring(v).as_bytes(), B32, 5, 8))
}

/// `@base32d`.
pub fn base32d(v: &Val) -> Res<Val> {
    let s = tostring(v);
    decode_bits(&s, B32, 5)
        .map(|bytes| Val::from(String::from_utf8_lossy(&bytes).into_owned()))
        .ok_or_else(|| {
            err(format!(
                "{} is not valid base32 data",
                Val::from(s).describe()
            ))
        })
}

/// `_strindices`: byte offsets of `needle` in `hay` (jq 1.7 counts bytes here).
pub fn strindices(hay: &str, needle: &str) -> Val {
    if needle.is_empty() {
        return Val::arr(Vec::new());
    }
    let mut out = Vec::new();
    let (mut from, mut chars) = (0, 0);
    while let Some(at) = hay[from..].find(needle) {
        chars += hay[from..from + at].chars().count();
        out.push(Val::num(chars as f64));
        let step = hay[from + at..].chars().next().map_or(1, char::len_utf8);
        from += at + step;
        chars += 1;
    }
    Val::arr(out)
}

/// `trim`, `ltrim`, `rtrim`.
pub fn trim(v: &Val, left: bool, right: bool) -> Res<Val> {
    let Val::Str(s) = v else {
        return Err(err("trim input must be a string"));
    };
    // jq 1.8 trims Unicode's White_Space, as Rust's `char::is_whitespace` defines it.
    let ws = char::is_whitespace;
    let mut t: &str = s;
    if left {
        t = t.trim_start_matches(ws);
    }
    if right {
        t = t.trim_end_matches(ws);
    }
    Ok(Val::str(t))
}

struct Flags {
    global: bool,
    skip_empty: bool,
    prefix: String,
}

fn parse_flags(flags: &Val) -> Res<Flags> {
    let text = match flags {
        Val::Null => "",
        Val::Str(s) => s,
        v => return Err(err(format!("{} is not a string", v.to_json()))),
    };
    let mut f = Flags {
        global: false,
        skip_empty: false,
        prefix: String::new(),
    };
    for c in text.chars() {
        match c {
            'g' => f.global = true,
            'n' => f.skip_empty = true,
            'i' => f.prefix.push('i'),
            'x' => f.prefix.push('x'),
            's' | 'p' => f.prefix.push('s'),
            'l' => {}
            _ => return Err(err(format!("{text} is not a valid modifier string"))),
        }
    }
    Ok(f)
}

fn compile(re: &str, flags: &Flags) -> Res<Regex> {
    let pattern = if flags.prefix.is_empty() {
        re.to_string()
    } else {
        format!("(?{}){re}", flags.prefix)
    };
    regex::RegexBuilder::new(&pattern)
        .size_limit(1 << 22)
        .build()
        .map_err(|e| err(format!("{re} (at offset 0) is not a valid regex: {e}")))
}

/// Converts byte offsets to character offsets, walking forward only.
struct CharCounter<'a> {
    text: &'a str,
    byte: usize,
    chars: usize,
}

impl CharCounter<'_> {
    fn at(&mut self, byte: usize) -> usize {
        if byte < self.byte {
            return self.text[..byte].chars().count();
        }
        self.chars += self.text[self.byte..byte].chars().count();
        self.byte = byte;
        self.chars
    }
}

fn obj(pairs: Vec<(&str, Val)>) -> Val {
    let map: Map = pairs.into_iter().map(|(k, v)| (Rc::from(k), v)).collect();
    Val::Obj(Rc::new(map))
}

/// `_match_impl(re; flags; test)`: jq's match objects (offsets in characters), or a boolean.
pub fn match_impl(input: &Val, re: &Val, flags: &Val, test: bool) -> Res<Val> {
    let Val::Str(text) = input else {
        return Err(err(format!(
            "{} cannot be matched, as it is not a string",
            input.describe()
        )));
    };
    let Val::Str(re) = re else {
        return Err(err(format!("{} is not a string", re.describe())));
    };
    let flags = parse_flags(flags)?;
    let regex = compile(re, &flags)?;
    if test {
        return Ok(Val::Bool(regex.is_match(text)));
    }
    let names: Vec<Option<&str>> = regex.capture_names().skip(1).collect();
    let mut counter = CharCounter {
        text,
        byte: 0,
        chars: 0,
    };
    let mut out = Vec::new();
    let mut start = 0;
    // jq (Oniguruma) also finds an empty match right where the previous match ended.
    while start <= text.len() {
        let Some(caps) = regex.captures_at(text, start) else {
            break;
        };
        let Some(whole) = caps.get(0) else { break };
        start = if whole.is_empty() {
            whole.end() + text[whole.end()..].chars().next().map_or(1, char::len_utf8)
        } else {
            whole.end()
        };
        if flags.skip_empty && whole.is_empty() {
            continue;
        }
        let offset = counter.at(whole.start());
        let mut captures = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let name = name.map_or(Val::Null, Val::str);
            captures.push(match caps.get(i + 1) {
                Some(m) => obj(vec![
                    ("offset", Val::num(counter.at(m.start()) as f64)),
                    ("length", Val::num(m.as_str().chars().count() as f64)),
                    ("string", Val::str(m.as_str())),
                    ("name", name),
                ]),
                None => obj(vec![
                    ("offset", Val::num(-1.0)),
                    ("length", Val::num(0.0)),
                    ("string", Val::Null),
                    ("name", name),
                ]),
            });
        }
        out.push(obj(vec![
            ("offset", Val::num(offset as f64)),
            ("length", Val::num(whole.as_str().chars().count() as f64)),
            ("string", Val::str(whole.as_str())),
            ("captures", Val::arr(captures)),
        ]));
        if !flags.global {
            break;
        }
    }
    Ok(Val::arr(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_encodings_round_trip() {
        assert_eq!(encode_bits(b"hi", B64, 6, 4), "aGk=");
        assert_eq!(encode_bits(b"ab", B32, 5, 8), "MFRA====");
        assert_eq!(decode_bits("aGk=", B64, 6), Some(b"hi".to_vec()));
        assert_eq!(decode_bits("MFRA====", B32, 5), Some(b"ab".to_vec()));
    }
}
