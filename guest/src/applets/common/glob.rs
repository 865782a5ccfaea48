//! Shell wildcard patterns (`fnmatch` without flags): `*`, `?`, `[a-z]`, `[!x]`, `[[:digit:]]`,
//! backslash escapes. `*` matches `/` too, as in `find -path`.

/// One element of a compiled pattern.
#[derive(Debug, Clone)]
enum Token {
    Literal(char),
    Any,
    Star,
    Class { negated: bool, items: Vec<Item> },
}

#[derive(Debug, Clone)]
enum Item {
    Char(char),
    Range(char, char),
    Named(String),
}

/// A compiled wildcard pattern.
#[derive(Debug, Clone)]
pub struct Glob {
    tokens: Vec<Token>,
    fold: bool,
}

impl Glob {
    /// Compiles `pattern`; `fold` ignores case (`-iname`).
    pub fn new(pattern: &str, fold: bool) -> Self {
        let chars: Vec<char> = pattern.chars().collect();
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            i += 1;
            match c {
                '*' => tokens.push(Token::Star),
                '?' => tokens.push(Token::Any),
                '\\' if i < chars.len() => {
                    tokens.push(Token::Literal(chars[i]));
                    i += 1;
                }
                '[' => match parse_class(&chars, i) {
                    Some((token, next)) => {
                        tokens.push(token);
                        i = next;
                    }
                    None => tokens.push(Token::Literal('[')),
                },
                c => tokens.push(Token::Literal(c)),
            }
        }
        Glob { tokens, fold }
    }

    /// Whether the whole of `text` matches.
    pub fn matches(&self, text: &str) -> bool {
        let text: Vec<char> = text.chars().collect();
        let (mut t, mut p) = (0usize, 0usize);
        let mut backtrack: Option<(usize, usize)> = None;
        while t < text.len() {
            match self.tokens.get(p) {
                Some(Token::Star) => {
                    backtrack = Some((p, t));
                    p += 1;
                    continue;
                }
                Some(token) if self.one(token, text[t]) => {
                    p += 1;
                    t += 1;
                    continue;
                }
                _ => {}
            }
            match backtrack {
                Some((star, at)) => {
                    p = star + 1;
                    t = at + 1;
                    backtrack = Some((star, at + 1));
                }
                None => return false,
            }
        }
        self.tokens[p..].iter().all(|t| matches!(t, Token::Star))
    }

    fn one(&self, token: &Token, c: char) -> bool {
        match token {
            Token::Literal(l) => *l == c || self.fold && same_folded(*l, c),
            Token::Any => true,
            Token::Star => false,
            Token::Class { negated, items } => {
                let hit = items.iter().any(|item| self.item(item, c));
                hit != *negated
            }
        }
    }

    fn item(&self, item: &Item, c: char) -> bool {
        let variants = if self.fold {
            [c, lower(c), upper(c)]
        } else {
            [c, c, c]
        };
        variants.iter().any(|&v| match item {
            Item::Char(x) => *x == v,
            Item::Range(a, b) => *a <= v && v <= *b,
            Item::Named(name) => named_class(name, v),
        })
    }
}

fn lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

fn upper(c: char) -> char {
    c.to_uppercase().next().unwrap_or(c)
}

fn same_folded(a: char, b: char) -> bool {
    lower(a) == lower(b)
}

/// Parses a bracket expression whose `[` ends just before `start`; None when it never closes
/// (then `[` is an ordinary character).
fn parse_class(chars: &[char], start: usize) -> Option<(Token, usize)> {
    let mut i = start;
    let negated = matches!(chars.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let c = *chars.get(i)?;
        if c == ']' && !first {
            return Some((Token::Class { negated, items }, i + 1));
        }
        first = false;
        if c == '[' && chars.get(i + 1) == Some(&':') {
            if let Some(end) = find_class_end(chars, i + 2) {
                items.push(Item::Named(chars[i + 2..end].iter().collect()));
                i = end + 2;
                continue;
            }
        }
        let (lo, next) = class_char(chars, i)?;
        if chars.get(next) == Some(&'-') && chars.get(next + 1).is_some_and(|&c| c != ']') {
            let (hi, after) = class_char(chars, next + 1)?;
            items.push(Item::Range(lo, hi));
            i = after;
        } else {
            items.push(Item::Char(lo));
            i = next;
        }
    }
}

/// One possibly escaped character inside brackets, and the index after it.
fn class_char(chars: &[char], i: usize) -> Option<(char, usize)> {
    match chars.get(i)? {
        '\\' => chars.get(i + 1).map(|&c| (c, i + 2)),
        &c => Some((c, i + 1)),
    }
}

/// Where `:]` closes a `[:name:]` that starts at `from`.
fn find_class_end(chars: &[char], from: usize) -> Option<usize> {
    (from..chars.len().saturating_sub(1)).find(|&j| chars[j] == ':' && chars[j + 1] == ']')
}

fn named_class(name: &str, c: char) -> bool {
    match name {
        "alpha" => c.is_alphabetic(),
        "digit" => c.is_ascii_digit(),
        "alnum" => c.is_alphanumeric(),
        "upper" => c.is_uppercase(),
        "lower" => c.is_lowercase(),
        "space" => c.is_whitespace(),
        "blank" => c == ' ' || c == '\t',
        "punct" => c.is_ascii_punctuation(),
        "xdigit" => c.is_ascii_hexdigit(),
        "cntrl" => c.is_control(),
        "print" => !c.is_control(),
        "graph" => !c.is_control() && c != ' ',
        _ => false,
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
}
