//! POSIX basic regular expressions (with GNU's `\+ \? \|` extensions) translated to the
//! `regex` crate's syntax, for `expr STRING : REGEX` and `nl -b pREGEX`.

/// Translates a BRE; the error says what cannot be expressed (back-references).
pub fn translate(bre: &str) -> Result<String, String> {
    let chars: Vec<char> = bre.chars().collect();
    let mut out = String::with_capacity(bre.len() + 8);
    let mut at = 0;
    // Where `*` is literal and `^` an anchor: the start, after `\(` and after `\|`.
    let mut at_start = true;
    while at < chars.len() {
        let c = chars[at];
        let was_start = at_start;
        at_start = false;
        match c {
            '\\' => {
                let (text, next, starts) = escape(&chars, at)?;
                out.push_str(&text);
                at = next;
                at_start = starts;
                continue;
            }
            '[' => {
                let (text, next) = bracket(&chars, at);
                out.push_str(&text);
                at = next;
                continue;
            }
            '*' if was_start => out.push_str("\\*"),
            '^' if was_start => {
                out.push('^');
                at_start = true;
            }
            '$' if ends_here(&chars, at + 1) => out.push('$'),
            '.' | '*' => out.push(c),
            _ => push_literal(&mut out, c),
        }
        at += 1;
    }
    Ok(out)
}

/// Whether a `$` before `at` is at the end of the pattern or of a group/alternative.
fn ends_here(chars: &[char], at: usize) -> bool {
    at == chars.len() || (chars[at] == '\\' && matches!(chars.get(at + 1), Some(')') | Some('|')))
}

fn push_literal(out: &mut String, c: char) {
    if "\\.+*?()|[]{}^$#&-~".contains(c) {
        out.push('\\');
    }
    out.push(c);
}

/// A backslash sequence at `at`: its translation, where the pattern resumes, and whether
/// what follows is at the start of a (sub)expression.
fn escape(chars: &[char], at: usize) -> Result<(String, usize, bool), String> {
    let Some(&c) = chars.get(at + 1) else {
        return Err("trailing backslash (\\)".to_string());
    };
    let text = match c {
        '(' => return Ok(("(".to_string(), at + 2, true)),
        '|' => return Ok(("|".to_string(), at + 2, true)),
        ')' => ")".to_string(),
        '{' => {
            let close = (at + 2..chars.len().saturating_sub(1))
                .find(|&i| chars[i] == '\\' && chars[i + 1] == '}')
                .ok_or("Unmatched \\{")?;
            let body: String = chars[at + 2..close].iter().collect();
            return Ok((format!("{{{body}}}"), close + 2, false));
        }
        '+' | '?' => c.to_string(),
        '<' => "\\b{start}".to_string(),
        '>' => "\\b{end}".to_string(),
        'b' | 'B' | 'w' | 'W' | 's' | 'S' => format!("\\{c}"),
        'n' => "\\n".to_string(),
        '1'..='9' => return Err("back-references (\\1) are not supported".to_string()),
        _ => {
            let mut text = String::new();
            push_literal(&mut text, c);
            text
        }
    };
    Ok((text, at + 2, false))
}

/// A bracket expression copied with the regex crate's extra metacharacters escaped.
fn bracket(chars: &[char], at: usize) -> (String, usize) {
    let mut out = String::from("[");
    let mut i = at + 1;
    if chars.get(i) == Some(&'^') {
        out.push('^');
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        out.push_str("\\]");
        i += 1;
    }
    while i < chars.len() {
        let c = chars[i];
        if c == ']' {
            out.push(']');
            return (out, i + 1);
        }
        if c == '[' && matches!(chars.get(i + 1), Some(':') | Some('=') | Some('.')) {
            let kind = chars[i + 1];
            let end = (i + 2..chars.len().saturating_sub(1))
                .find(|&j| chars[j] == kind && chars[j + 1] == ']');
            if let Some(end) = end {
                let body: String = chars[i + 2..end].iter().collect();
                if kind == ':' {
                    out.push_str(&format!("[:{body}:]"));
                } else {
                    push_escaped_in_class(&mut out, &body);
                }
                i = end + 2;
                continue;
            }
        }
        if "\\[&~".contains(c) || (c == '-' && chars.get(i + 1) == Some(&'-')) {
            out.push('\\');
        }
        out.push(c);
        i += 1;
    }
    // No closing bracket: a literal `[` and the rest as it was.
    let mut literal = String::from("\\[");
    literal.push_str(&translate(&chars[at + 1..].iter().collect::<String>()).unwrap_or_default());
    (literal, chars.len())
}

fn push_escaped_in_class(out: &mut String, body: &str) {
    for c in body.chars() {
        if "\\[]&~-^".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn translations() {
        assert_eq!(translate("a\\(b*\\)c").unwrap_or_default(), "a(b*)c");
        assert_eq!(translate("*a").unwrap_or_default(), "\\*a");
        assert_eq!(translate("a\\{2,3\\}").unwrap_or_default(), "a{2,3}");
        assert_eq!(translate("(x)+?").unwrap_or_default(), "\\(x\\)\\+\\?");
        assert_eq!(translate("a\\+b\\?").unwrap_or_default(), "a+b?");
        assert_eq!(translate("a^b$").unwrap_or_default(), "a\\^b$");
        assert_eq!(
            translate("^[[:digit:]]*$").unwrap_or_default(),
            "^[[:digit:]]*$"
        );
        assert_eq!(translate("[]a\\]").unwrap_or_default(), "[\\]a\\\\]");
        assert_eq!(translate("a\\|b").unwrap_or_default(), "a|b");
        assert!(translate("\\(a\\)\\1").is_err());
    }
}
