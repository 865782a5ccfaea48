//! Quoting text back into shell syntax, the ways bash prints it: `'single'`, `$'ansi-c'` and
//! `printf %q`'s backslashes. The shell's `${x@Q}`, `declare -p` and `set -x` build on these.

use super::bytes::raw_byte;

/// Whether `c` cannot be written literally in a quoted word: a control character or a raw
/// (non-UTF-8) byte.
fn unprintable(c: char) -> bool {
    c.is_control() || raw_byte(c).is_some()
}

/// Whether `s` holds a character that only `$'...'` can spell.
pub fn needs_ansi_c(s: &str) -> bool {
    s.chars().any(unprintable)
}

/// `'text'`, with embedded single quotes as `'\''`.
pub fn single(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// `$'text'` with C escapes; other control characters and raw bytes as `\NNN` octal bytes.
pub fn ansi_c(s: &str) -> String {
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0b' => out.push_str("\\v"),
            '\x0c' => out.push_str("\\f"),
            '\x1b' => out.push_str("\\E"),
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            c if unprintable(c) => {
                let mut utf8 = [0; 4];
                let bytes = match raw_byte(c) {
                    Some(b) => vec![b],
                    None => c.encode_utf8(&mut utf8).as_bytes().to_vec(),
                };
                for b in bytes {
                    out.push_str(&format!("\\{b:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

/// `printf %q`: `''` for the empty string, `$'...'` when a character needs it, else a
/// backslash before each character the shell would read specially.
pub fn backslash(s: &str) -> String {
    if s.is_empty() {
        return "''".to_string();
    }
    if needs_ansi_c(s) {
        return ansi_c(s);
    }
    let mut out = String::with_capacity(s.len() + 4);
    for (i, c) in s.chars().enumerate() {
        let special = " !\"$&'()*,;<>?[\\]^`{|}".contains(c) || (i == 0 && "~#".contains(c));
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::applets::common::bytes::decode;

    #[test]
    fn raw_bytes_and_c1_controls_are_octal_bytes() {
        assert_eq!(backslash(&decode(b"a\xce")), "$'a\\316'");
        assert_eq!(backslash(&decode(b"\xce\xce\xbc")), "$'\\316\u{3bc}'");
        assert_eq!(backslash("\u{85}"), "$'\\302\\205'");
        assert_eq!(backslash("\x7f"), "$'\\177'");
    }

    #[test]
    fn printable_text_gets_backslashes() {
        assert_eq!(backslash(""), "''");
        assert_eq!(backslash("~a b~"), "\\~a\\ b~");
        assert_eq!(backslash("é,x"), "é\\,x");
        assert_eq!(single("it's"), "'it'\\''s'");
    }
}
