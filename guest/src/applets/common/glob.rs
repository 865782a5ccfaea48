//! Wildcards as `fnmatch` without flags matches them (`find -name`, `tar --exclude`,
//! `diff -x`): `*`, `?`, `[a-z]`, `[!x]`, `[[:digit:]]`, backslash escapes, through the
//! shell's pattern matcher. `*` matches `/` too, as in `find -path`.

use super::pattern::{PChar, Pattern};

/// A compiled wildcard pattern.
#[derive(Debug, Clone)]
pub struct Glob(Pattern);

impl Glob {
    /// Compiles `pattern`; `fold` ignores case (`-iname`).
    pub fn new(pattern: &str, fold: bool) -> Self {
        // Without bash's extglob, `@(x)` and the like are plain characters: a quoted `(`
        // never opens an extended pattern, and matches itself as an unquoted one would.
        let chars: Vec<PChar> = pattern.chars().map(|c| (c, c == '(')).collect();
        let mut compiled = Pattern::new(&chars);
        compiled.nocase = fold;
        Glob(compiled)
    }

    /// Whether the whole of `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        self.0.matches(text)
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    fn fnmatch(pattern: &str, text: &str, fold: bool) -> bool {
        Glob::new(pattern, fold).matches(text)
    }

    #[test]
    fn wildcards() {
        let cases = [
            ("*.txt", "a.txt", true),
            ("*.txt", "a.txt.bak", false),
            ("*", ".hidden", true),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("[a-c]x", "bx", true),
            ("[!a-c]x", "bx", false),
            ("[^a-c]x", "dx", true),
            ("[]]", "]", true),
            ("[[:digit:]]*", "9lives", true),
            ("\\*", "*", true),
            ("\\*", "a", false),
            ("[", "[", true),
            ("*/b/*", "./a/b/c", true),
            ("a*b*c", "aXbYbZc", true),
            ("a*b*c", "aXbYbZ", false),
            ("", "", true),
            ("**", "", true),
        ];
        for (pattern, text, want) in cases {
            assert_eq!(fnmatch(pattern, text, false), want, "{pattern} {text}");
        }
        assert!(fnmatch("*.TXT", "a.txt", true));
        assert!(fnmatch("[A-C]x", "bX", true));
        assert!(!fnmatch("*.TXT", "a.txt", false));
    }

    #[test]
    fn extended_patterns_are_plain_characters() {
        // fnmatch without FNM_EXTMATCH, as find and tar call it.
        assert!(fnmatch("@(a|b)", "@(a|b)", false));
        assert!(!fnmatch("@(a|b)", "a", false));
        assert!(fnmatch("*(x)", "a(x)", false));
        assert!(fnmatch("!(y)", "!(y)", false));
        assert!(fnmatch("[(]*", "(z", false));
    }
}
