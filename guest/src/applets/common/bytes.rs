//! Raw bytes in the shell's strings. Shell values are UTF-8 text, but bash's are bytes:
//! `$'\xce'` or `$(printf '\xff')` hold a byte that is not UTF-8. Such a byte is carried as
//! one character of a private-use range (U+10FF80 + byte - 0x80) and turns back into the
//! byte wherever the shell writes (`echo`, redirections, pipes, captures).

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
        out.push_str(chunk.valid());
        out.extend(chunk.invalid().iter().map(|&b| carrier(b)));
    }
    out
}

/// `bytes` (a `Vec`) as a shell string, without a copy when it is UTF-8.
pub fn decode_owned(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| decode(e.as_bytes()))
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
        assert_eq!(decode(&[0xce, b'a']), format!("{}a", carrier(0xce)));
        assert_eq!(
            encode(decode(&[0xce, 0xbb]).as_bytes()).as_ref(),
            &[0xce, 0xbb]
        );
    }
}
