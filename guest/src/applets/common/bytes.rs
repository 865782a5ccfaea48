//! Raw bytes in the shell's strings. Shell values are UTF-8 text, but bash's are bytes:
//! `$'\xce'` or `$(printf '\xff')` hold a byte that is not UTF-8. Such a byte is carried as
//! one character of a private-use range (U+10FF80 + byte - 0x80) and turns back into the
//! byte wherever the shell writes (`echo`, redirections, pipes, captures). A character of
//! that range read as UTF-8 (U+10FFFF) is carried as its four bytes, so it too writes back
//! as it came.

use std::borrow::Cow;

/// The character that stands for byte 0x80; bytes 0x80-0xFF follow it.
const BASE: u32 = 0x10_FF80;

/// The character carrying the byte `b` (0x80-0xFF).
fn carrier(b: u8) -> char {
    char::from_u32(BASE + u32::from(b) - 0x80).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// `bytes` as a shell string: UTF-8 as is, each other byte as its carrier character.
pub fn decode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        push_valid(&mut out, chunk.valid());
        out.extend(chunk.invalid().iter().map(|&b| carrier(b)));
    }
    out
}

/// Appends UTF-8 text, a character of the carriers' range as the carriers of its bytes.
fn push_valid(out: &mut String, text: &str) {
    // Such a character's UTF-8 starts with F4, as does nothing below U+100000.
    if !text.as_bytes().contains(&0xF4) {
        return out.push_str(text);
    }
    for c in text.chars() {
        match raw_byte(c) {
            Some(_) => out.extend(c.encode_utf8(&mut [0; 4]).bytes().map(carrier)),
            None => out.push(c),
        }
    }
}

/// `bytes` (a `Vec`) as a shell string, without a copy when it is UTF-8.
pub fn decode_owned(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(text) if text.as_bytes().contains(&0xF4) => decode(text.as_bytes()),
        Ok(text) => text,
        Err(e) => decode(e.as_bytes()),
    }
}

/// Appends the bytes bash writes for the escape `\U` of `value`: its UTF-8, extended the
/// way the original UTF-8 was for values past U+10FFFF (up to six bytes), nothing past
/// 0x7FFFFFFF.
pub fn code_point_bytes(value: u32, out: &mut Vec<u8>) {
    let len = match value {
        0..=0x7F => return out.push(value as u8),
        0x80..=0x7FF => 2,
        0x800..=0xFFFF => 3,
        0x1_0000..=0x1F_FFFF => 4,
        0x20_0000..=0x3FF_FFFF => 5,
        0x400_0000..=0x7FFF_FFFF => 6,
        _ => return,
    };
    let lead = [0xC0u8, 0xE0, 0xF0, 0xF8, 0xFC][len - 2];
    out.push(lead | (value >> (6 * (len - 1))) as u8);
    for i in (0..len - 1).rev() {
        out.push(0x80 | ((value >> (6 * i)) & 0x3F) as u8);
    }
}

/// The shell string for the escape `\U` of `value` (see [`code_point_bytes`]).
pub fn code_point(value: u32) -> String {
    let mut bytes = Vec::new();
    code_point_bytes(value, &mut bytes);
    decode(&bytes)
}

/// The raw byte `c` carries, if it is a carrier character.
pub fn raw_byte(c: char) -> Option<u8> {
    let offset = u32::from(c).checked_sub(BASE)?;
    u8::try_from(offset + 0x80).ok()
}

/// Whether `s` carries a raw byte.
pub fn has_raw(s: &str) -> bool {
    s.chars().any(|c| raw_byte(c).is_some())
}

/// What a shell string writes: its UTF-8 with each carrier character turned back into its
/// byte.
pub fn encode(data: &[u8]) -> Cow<'_, [u8]> {
    // A carrier's UTF-8 is F4 8F BE|BF xx.
    if !data.windows(2).any(|w| w == [0xF4, 0x8F]) {
        return Cow::Borrowed(data);
    }
    let mut out = Vec::with_capacity(data.len());
    let mut i = 0;
    while i < data.len() {
        if let [0xF4, 0x8F, hi @ (0xBE | 0xBF), lo, ..] = data[i..] {
            if lo & 0xC0 == 0x80 {
                out.push(0x80 | ((hi & 1) << 6) | (lo & 0x3F));
                i += 4;
                continue;
            }
        }
        out.push(data[i]);
        i += 1;
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_survive_the_round_trip() {
        let all: Vec<u8> = (0..=255).collect();
        let text = decode(&all);
        assert_eq!(text.chars().count(), 256);
        assert_eq!(encode(text.as_bytes()).as_ref(), all.as_slice());
        assert_eq!(decode("λ x".as_bytes()), "λ x");
        let top = "\u{10FFFF}".as_bytes();
        assert_eq!(decode(top).chars().count(), 4);
        assert_eq!(encode(decode(top).as_bytes()).as_ref(), top);
        assert_eq!(
            encode(code_point(0x11_0000).as_bytes()).as_ref(),
            [0xF4, 0x90, 0x80, 0x80]
        );
        assert_eq!(code_point(0x8000_0000), "");
        assert_eq!(decode(&[0xce, b'a']), format!("{}a", carrier(0xce)));
        assert_eq!(
            encode(decode(&[0xce, 0xbb]).as_bytes()).as_ref(),
            &[0xce, 0xbb]
        );
    }
}
