//! `[[ s =~ re ]]`: the right-hand side is a POSIX ERE read as glibc's `regcomp` does (the
//! shared front end's bash dialect); its quoted parts match literally.

use super::expand::pattern::PChar;
use crate::applets::common::regex::{translate_marked, Dialect, Flags, Posix, Tool};

/// Matches `text` against a `=~` right-hand side: the whole match and its groups (what
/// `BASH_REMATCH` holds, an unset group as empty), None when it does not match; the error
/// is glibc's message for a bad pattern.
pub fn rematch(chars: &[PChar], nocase: bool, text: &str) -> Result<Option<Vec<String>>, String> {
    let t = translate_marked(chars, Dialect::posix(true, Tool::Bash))?;
    let flags = Flags {
        icase: nocase,
        multiline: false,
    };
    let re = Posix::compile(&t, flags)?;
    let Some(spans) = re.spans_at(text.as_bytes(), 0) else {
        return Ok(None);
    };
    let group = |span: Option<(usize, usize)>| {
        span.map_or_else(String::new, |(s, e)| text[s..e].to_string())
    };
    Ok(Some(spans.into_iter().map(group).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn re(src: &str, s: &str) -> Result<Option<Vec<String>>, String> {
        let chars: Vec<PChar> = src.chars().map(|c| (c, false)).collect();
        rematch(&chars, false, s)
    }

    fn is(src: &str, s: &str) -> bool {
        re(src, s).is_ok_and(|m| m.is_some())
    }

    #[test]
    fn posix_constructs() {
        assert!(is("^[0-9]+$", "123") && !is("^[0-9]+$", "12a"));
        assert!(is("^[[:alpha:]_][[:alnum:]_]*$", "foo_1"));
        assert!(is("a{2}", "aa") && is("x}", "x}"));
        assert!(is("[\\]", "\\") && is("[]a]", "]"));
        assert!(is("^(ab|cd)+$", "abcd"));
        assert!(is("\\.", ".") && !is("\\.", "a"));
        assert!(is("a.b", "a\nb"));
        assert!(is("(a|b)\\1", "xbb") && !is("(a|b)\\1", "ab"));
        for bad in ["\\1(a)", "a(", "a{", "*a", "[a", "a\\"] {
            assert!(re(bad, "a").is_err(), "{bad}");
        }
    }

    #[test]
    fn longest_match_and_groups() {
        let groups = |src: &str, s: &str| re(src, s).ok().flatten().unwrap_or_default();
        assert_eq!(groups("ab|abcd", "abcd"), ["abcd"]);
        assert_eq!(groups("(a|ab)(c|bcd)", "xabcd"), ["abcd", "a", "bcd"]);
        assert_eq!(groups("(x)?b", "b"), ["b", ""]);
    }

    #[test]
    fn quoted_parts_are_literal() {
        let chars: Vec<PChar> = vec![('a', false), ('.', true), ('*', true)];
        assert_eq!(rematch(&chars, false, "a.*"), Ok(Some(vec!["a.*".into()])));
        assert_eq!(rematch(&chars, false, "ab"), Ok(None));
    }
}
