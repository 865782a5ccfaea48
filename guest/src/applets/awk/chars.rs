//! Character-level views of byte strings: awk counts characters (UTF-8, as gawk does in a
//! UTF-8 locale) for `length`, `substr`, `index`, `match`; a stray byte counts as one.

/// Whether `b` continues a UTF-8 sequence.
fn is_continuation(b: u8) -> bool {
    b & 0xc0 == 0x80
}

/// The number of characters in `s`.
pub fn count(s: &[u8]) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    s.iter().filter(|&&b| !is_continuation(b)).count()
}

/// The byte offset of character `n` (0-based), or `s.len()` past the end.
pub fn byte_offset(s: &[u8], n: usize) -> usize {
    if s.is_ascii() {
        return n.min(s.len());
    }
    let mut seen = 0;
    for (i, &b) in s.iter().enumerate() {
        if !is_continuation(b) {
            if seen == n {
                return i;
            }
            seen += 1;
        }
    }
    s.len()
}

/// The character index (0-based) of byte offset `at`.
pub fn char_index(s: &[u8], at: usize) -> usize {
    count(&s[..at.min(s.len())])
}

/// The length in bytes of the character starting at `at` (1 for a stray byte).
pub fn len_at(s: &[u8], at: usize) -> usize {
    let Some(&b) = s.get(at) else { return 1 };
    if b < 0x80 {
        return 1;
    }
    let mut end = at + 1;
    while end < s.len() && end < at + 4 && is_continuation(s[end]) {
        end += 1;
    }
    end - at
}

pub use crate::applets::common::map_case;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_characters() {
        assert_eq!(count("héllo".as_bytes()), 5);
        assert_eq!(byte_offset("héllo".as_bytes(), 2), 3);
        assert_eq!(char_index("héllo".as_bytes(), 3), 2);
        assert_eq!(len_at("é".as_bytes(), 0), 2);
        assert_eq!(
            map_case("héllo".as_bytes(), true),
            "HÉLLO".as_bytes().to_vec()
        );
        // One character for one, as towupper: ß has no single upper case.
        assert_eq!(map_case("straße".as_bytes(), true), "STRAßE".as_bytes());
    }
}
