//! `[[ s =~ re ]]`: POSIX extended regular expressions translated to the `regex` crate's
//! syntax. Quoted parts of the right-hand side match literally.
//!
//! Differences handled: inside brackets a backslash is literal and `[`, `&`, `~` have no set
//! meaning; `{` that does not start a valid interval is literal. Not supported: back
//! references (an error, status 2). The crate matches leftmost-first where POSIX wants
//! leftmost-longest, which only changes which alternative `BASH_REMATCH` reports.

use super::expand::pattern::PChar;

/// Largest compiled program accepted (bounds memory on hostile patterns).
const SIZE_LIMIT: usize = 8 << 20;

/// Compiles a `=~` right-hand side.
pub fn compile(chars: &[PChar], nocase: bool) -> Result<regex::Regex, String> {
    let source = translate(chars)?;
    regex::RegexBuilder::new(&source)
        .case_insensitive(nocase)
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| e.to_string())
}

/// The regex crate's syntax for a POSIX ERE.
pub fn translate(chars: &[PChar]) -> Result<String, String> {
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let (c, quoted) = chars[i];
        if quoted {
            out.push_str(&regex::escape(&c.to_string()));
            i += 1;
            continue;
        }
        match c {
            '\\' => {
                let Some(&(next, _)) = chars.get(i + 1) else {
                    out.push_str("\\\\");
                    i += 1;
                    continue;
                };
                if next.is_ascii_digit() && next != '0' {
                    return Err("back references are not supported".into());
                }
                if next.is_ascii_alphanumeric() && !"wWsSdDbB".contains(next) {
                    out.push_str(&regex::escape(&next.to_string()));
                } else if next.is_ascii_alphanumeric() {
                    out.push('\\');
                    out.push(next);
                } else {
                    out.push_str(&regex::escape(&next.to_string()));
                }
                i += 2;
            }
            '[' => i = bracket(chars, i, &mut out),
            '{' => {
                if let Some(end) = interval(chars, i) {
                    out.extend(chars[i..end].iter().map(|p| p.0));
                    i = end;
                } else {
                    out.push_str("\\{");
                    i += 1;
                }
            }
            '}' => {
                out.push_str("\\}");
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// `{n}`, `{n,}`, `{n,m}` at `start`: the position after it.
fn interval(chars: &[PChar], start: usize) -> Option<usize> {
    let mut i = start + 1;
    let mut digits = 0;
    while chars.get(i).is_some_and(|p| p.0.is_ascii_digit()) {
        i += 1;
        digits += 1;
    }
    if digits == 0 {
        return None;
    }
    if chars.get(i).map(|p| p.0) == Some(',') {
        i += 1;
        while chars.get(i).is_some_and(|p| p.0.is_ascii_digit()) {
            i += 1;
        }
    }
    (chars.get(i).map(|p| p.0) == Some('}')).then_some(i + 1)
}

/// A bracket expression from `start` (at `[`); returns the position after it. An unclosed
/// `[` is a literal.
fn bracket(chars: &[PChar], start: usize, out: &mut String) -> usize {
    let mut i = start + 1;
    let mut body = String::from("[");
    if chars.get(i).map(|p| p.0) == Some('^') {
        body.push('^');
        i += 1;
    }
    let mut first = true;
    while let Some(&(c, _)) = chars.get(i) {
        if c == ']' && !first {
            body.push(']');
            out.push_str(&body);
            return i + 1;
        }
        first = false;
        if c == '[' {
            if let Some(&(kind @ (':' | '.' | '='), _)) = chars.get(i + 1) {
                let rest: String = chars[i + 2..].iter().map(|p| p.0).collect();
                if let Some(end) = rest.find(&format!("{kind}]")) {
                    let name: String = rest[..end].to_string();
                    if kind == ':' {
                        body.push_str(&format!("[:{name}:]"));
                    } else {
                        body.push_str(&regex::escape(&name));
                    }
                    i += 2 + name.chars().count() + 2;
                    continue;
                }
            }
        }
        match c {
            '\\' | '[' | '&' | '~' | ']' => {
                body.push('\\');
                body.push(c);
            }
            '-' if chars.get(i + 1).map(|p| p.0) == Some('-') => body.push_str("\\-"),
            c => body.push(c),
        }
        i += 1;
    }
    out.push_str("\\[");
    start + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn re(src: &str) -> Result<regex::Regex, String> {
        let chars: Vec<PChar> = src.chars().map(|c| (c, false)).collect();
        compile(&chars, false)
    }

    fn is(src: &str, s: &str) -> bool {
        re(src).is_ok_and(|r| r.is_match(s))
    }

    #[test]
    fn posix_constructs() {
        assert!(is("^[0-9]+$", "123") && !is("^[0-9]+$", "12a"));
        assert!(is("^[[:alpha:]_][[:alnum:]_]*$", "foo_1"));
        assert!(is("a{2}", "aa") && is("a{", "a{") && is("x}", "x}"));
        assert!(is("[\\]", "\\") && is("[]a]", "]"));
        assert!(is("^(ab|cd)+$", "abcd"));
        assert!(is("\\.", ".") && !is("\\.", "a"));
        assert!(re("(a)\\1").is_err());
        assert!(re("a(").is_err());
    }

    #[test]
    fn quoted_parts_are_literal() {
        let chars: Vec<PChar> = vec![('a', false), ('.', true), ('*', true)];
        assert!(compile(&chars, false).is_ok_and(|r| r.is_match("a.*") && !r.is_match("ab")));
    }
}
