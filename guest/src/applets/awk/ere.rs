//! Awk's regular expressions: the shared POSIX front end (`common::regex`) in its awk
//! dialect (string escapes such as `\/` and octal, gawk's `\y \< \> \B \s \w`, a misplaced
//! `*` or `{` literal), compiled so that `.` matches newlines and the longest of the leftmost
//! matches wins (`/a|ab/`, gawk's FPAT idiom `([^,]*)|("[^"]*")`).

use std::collections::HashMap;
use std::rc::Rc;

use crate::applets::common::regex::{translate_bytes, Dialect, Flags, Posix, Tool};

pub use crate::applets::common::regex::escape_byte;

/// A compiled awk regex.
pub type Ere = Posix;

/// Compiles an awk ERE; the error is the message gawk-style callers print.
pub fn compile(src: &[u8], ignore_case: bool) -> Result<Ere, String> {
    let dialect = Dialect::posix(true, Tool::Awk);
    let flags = Flags {
        icase: ignore_case,
        multiline: false,
    };
    translate_bytes(src, dialect)
        .and_then(|t| Posix::compile(&t, flags))
        .map_err(|e| format!("{e}: /{}/", String::from_utf8_lossy(src)))
}

/// Compiled dynamic regexes (from strings), so a loop does not recompile them.
#[derive(Default)]
pub struct Cache {
    map: HashMap<(Vec<u8>, bool), Rc<Ere>>,
}

impl Cache {
    /// The regex for `src`, compiled once.
    pub fn get(&mut self, src: &[u8], ignore_case: bool) -> Result<Rc<Ere>, String> {
        if let Some(re) = self.map.get(&(src.to_vec(), ignore_case)) {
            return Ok(Rc::clone(re));
        }
        let re = Rc::new(compile(src, ignore_case)?);
        if self.map.len() >= 1000 {
            self.map.clear();
        }
        self.map.insert((src.to_vec(), ignore_case), Rc::clone(&re));
        Ok(re)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(re: &str, text: &str) -> bool {
        compile(re.as_bytes(), false).is_ok_and(|r| r.is_match(text.as_bytes()))
    }

    fn find(re: &str, text: &str) -> Option<(usize, usize)> {
        compile(re.as_bytes(), false)
            .ok()?
            .find_at(text.as_bytes(), 0)
    }

    #[test]
    fn alternations_match_longest() {
        assert_eq!(find("a|ab", "xab"), Some((1, 3)));
        assert_eq!(find("([^,]*)|(\"[^\"]+\")", "\"a, b\",c"), Some((0, 6)));
        assert_eq!(find("(a|ab)c", "abc"), Some((0, 3)));
        // As gawk: the longest, though one alternative is anchored.
        assert_eq!(find("^a|ab", "ab"), Some((0, 2)));
    }

    #[test]
    fn awk_regex_syntax() {
        assert!(matches("+", "a+b"));
        assert!(matches("a**", "a*"));
        assert!(matches("a{1}b", "ab"));
        assert!(matches("a{", "a{"));
        assert!(matches("{x", "{x"));
        assert!(matches("a]", "a]"));
        assert!(matches("[a-]+$", "a-"));
        assert!(matches(r"\/", "x/y"));
        assert!(matches(r"[[]", "["));
        assert!(matches(r"[]a]", "]"));
        assert!(matches(r"[^]a]", "b"));
        assert!(!matches(r"[^]a]", "]"));
        assert!(matches(r"[[:upper:]]", "A"));
        assert!(matches(r"^.$", "é"));
        assert!(matches(r"a.b", "a\nb"));
        assert!(matches(r"\<fo", "a foo"));
        assert!(matches(r"x\y", "x y"));
        assert!(matches(r"[a\]]", "]"));
        assert!(matches(r"[&&]", "&"));
        assert!(matches("a{,2}b", "aab"));
        assert!(compile(b"(a", false).is_err());
        assert!(compile(b"[a", false).is_err());
        assert!(compile(b"[z-a]", false).is_err());
    }
}
