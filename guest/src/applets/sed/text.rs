//! Text helpers: GNU character escapes, the `l` command's format, and case conversion.

/// Decodes the GNU escape whose letter starts `s` (the character after a backslash): `\a \f
/// \n \r \t \v`, `\cX`, `\dNNN`, `\oNNN`, `\xHH`. Returns the character (None when `s` does
/// not start an escape) and how many characters of `s` it used.
pub fn char_escape(s: &[char]) -> (Option<char>, usize) {
    let Some(&letter) = s.first() else {
        return (None, 0);
    };
    let simple = match letter {
        'a' => Some('\x07'),
        'f' => Some('\x0c'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\x0b'),
        _ => None,
    };
    if simple.is_some() {
        return (simple, 1);
    }
    if letter == 'c' {
        return match s.get(1) {
            Some(&x) => (char::from_u32(u32::from(x.to_ascii_uppercase()) ^ 0x40), 2),
            None => (None, 0),
        };
    }
    let Some((value, used)) = byte_escape(s) else {
        return (None, 0);
    };
    match utf8_escapes(s, value, used) {
        Some((c, used)) => (Some(c), used),
        None => (char::from_u32(value), used),
    }
}

/// `dNNN`, `oNNN` or `xHH` at the start of `s`: the value and the characters used.
fn byte_escape(s: &[char]) -> Option<(u32, usize)> {
    let (radix, max) = match s.first()? {
        'd' => (10, 3),
        'o' => (8, 3),
        'x' => (16, 2),
        _ => return None,
    };
    let digits = s[1..].iter().take(max).map_while(|c| c.to_digit(radix));
    let (value, n) = digits.fold((0u32, 0), |(v, n), d| (v * radix + d, n + 1));
    (n > 0).then_some((value, n + 1))
}

/// GNU sed's escapes make bytes: a run of them that spells one UTF-8 character
/// (`\xc3\xa9`) is that character here, where text is characters.
fn utf8_escapes(s: &[char], first: u32, used: usize) -> Option<(char, usize)> {
    let len = match first {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return None,
    };
    let mut bytes = vec![u8::try_from(first).ok()?];
    let mut at = used;
    while bytes.len() < len {
        if s.get(at) != Some(&'\\') {
            return None;
        }
        let (value, n) = byte_escape(&s[at + 1..])?;
        bytes.push(u8::try_from(value).ok()?);
        at += 1 + n;
    }
    let c = std::str::from_utf8(&bytes).ok()?.chars().next()?;
    Some((c, at))
}

/// The `l` command's output for `text`: C escapes, octal for other non-printable bytes (and
/// every byte of a multibyte character, as GNU sed prints them), lines wrapped at `width`
/// (0: never) with a trailing `\`, and a final `$`.
pub fn list(text: &[u8], width: usize, eol: u8) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() + 8);
    let mut col = 0;
    for &b in text {
        let piece = list_byte(b);
        if width > 0 && col + piece.len() > width - 1 {
            // The wrap ends an output line: NUL under -z, as GNU's.
            out.extend_from_slice(&[b'\\', eol]);
            col = 0;
        }
        col += piece.len();
        out.extend_from_slice(&piece);
    }
    out.push(b'$');
    out.push(eol);
    out
}

fn list_byte(b: u8) -> Vec<u8> {
    let escaped: &[u8] = match b {
        b'\\' => b"\\\\",
        0x07 => b"\\a",
        0x08 => b"\\b",
        0x0c => b"\\f",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x0b => b"\\v",
        0x20..=0x7e => return vec![b],
        _ => return format!("\\{b:03o}").into_bytes(),
    };
    escaped.to_vec()
}

/// How many bytes the UTF-8 character starting `text` takes (1 for a stray byte).
pub fn char_len(text: &[u8]) -> usize {
    let Some(&b) = text.first() else {
        return 0;
    };
    let want = match b {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    };
    if want > 1 && text.len() >= want && std::str::from_utf8(&text[..want]).is_ok() {
        want
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esc(s: &str) -> (Option<char>, usize) {
        let chars: Vec<char> = s.chars().collect();
        char_escape(&chars)
    }

    #[test]
    fn escapes() {
        assert_eq!(esc("t"), (Some('\t'), 1));
        assert_eq!(esc("x41z"), (Some('A'), 3));
        assert_eq!(esc("o101"), (Some('A'), 4));
        assert_eq!(esc("d65"), (Some('A'), 3));
        assert_eq!(esc("cA"), (Some('\x01'), 2));
        assert_eq!(esc("q"), (None, 0));
        assert_eq!(esc("x"), (None, 0));
        assert_eq!(esc("xc3\\xa9z"), (Some('é'), 7));
        assert_eq!(esc("xe6\\o227\\d165"), (Some('日'), 13));
        assert_eq!(esc("xc3z"), (Some('Ã'), 3));
    }

    #[test]
    fn list_format() {
        assert_eq!(
            list(b"a\tb\\c\x01", 70, b'\n'),
            b"a\\tb\\\\c\\001$\n".to_vec()
        );
        assert_eq!(list("é".as_bytes(), 70, b'\n'), b"\\303\\251$\n".to_vec());
        assert_eq!(
            list(b"abcdefghij", 5, b'\n'),
            b"abcd\\\nefgh\\\nij$\n".to_vec()
        );
        assert_eq!(list(b"ab", 1, b'\n'), b"\\\na\\\nb$\n".to_vec());
        assert_eq!(list(b"abc", 3, 0), b"ab\\\0c$\0".to_vec());
        assert_eq!(
            crate::applets::common::map_case("straße".as_bytes(), true),
            "STRAßE".as_bytes().to_vec()
        );
        assert_eq!(char_len("é".as_bytes()), 2);
    }
}
