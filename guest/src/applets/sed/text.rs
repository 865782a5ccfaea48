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
    match letter {
        'c' => match s.get(1) {
            Some(&x) => (char::from_u32(u32::from(x.to_ascii_uppercase()) ^ 0x40), 2),
            None => (None, 0),
        },
        'd' => radix(&s[1..], 10, 3),
        'o' => radix(&s[1..], 8, 3),
        'x' => radix(&s[1..], 16, 2),
        _ => (None, 0),
    }
}

/// Up to `max` digits in `radix`: the character and the characters used (with the letter).
fn radix(digits: &[char], radix: u32, max: usize) -> (Option<char>, usize) {
    let mut value = 0u32;
    let mut n = 0;
    while n < max {
        let Some(d) = digits.get(n).and_then(|c| c.to_digit(radix)) else {
            break;
        };
        value = value * radix + d;
        n += 1;
    }
    if n == 0 {
        return (None, 0);
    }
    (char::from_u32(value), n + 1)
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
            out.extend_from_slice(b"\\\n");
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

/// Upper- or lower-cases `text` (Unicode when it is UTF-8, ASCII otherwise).
pub fn convert_case(text: &[u8], upper: bool) -> Vec<u8> {
    match std::str::from_utf8(text) {
        Ok(s) if upper => s.to_uppercase().into_bytes(),
        Ok(s) => s.to_lowercase().into_bytes(),
        Err(_) if upper => text.to_ascii_uppercase(),
        Err(_) => text.to_ascii_lowercase(),
    }
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
        assert_eq!(
            convert_case("straße".as_bytes(), true),
            "STRASSE".as_bytes().to_vec()
        );
        assert_eq!(char_len("é".as_bytes()), 2);
    }
}
