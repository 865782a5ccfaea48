//! Quoting values back into shell syntax, the ways bash prints them: `${x@Q}`, `declare -p`,
//! `set -x` traces, on top of the applets' shared quoting (`printf %q` uses it too).

use super::state::{Value, Var};
pub use crate::applets::common::quote::{ansi_c, needs_ansi_c, single};

/// Characters that make a word need quoting in a `set -x` trace.
fn needs_quotes(s: &str) -> bool {
    s.is_empty()
        || s.chars().any(|c| {
            matches!(
                c,
                ' ' | '\t'
                    | '\n'
                    | '\''
                    | '"'
                    | '\\'
                    | '$'
                    | '`'
                    | '|'
                    | '&'
                    | ';'
                    | '('
                    | ')'
                    | '<'
                    | '>'
                    | '*'
                    | '?'
                    | '['
                    | ']'
                    | '{'
                    | '}'
                    | '!'
                    | '^'
            )
        })
        || needs_ansi_c(s)
        || s.starts_with('#')
        || s.starts_with('~')
}

/// `${x@Q}`: always quoted, `$'...'` when control characters need it.
pub fn q(s: &str) -> String {
    if needs_ansi_c(s) {
        ansi_c(s)
    } else {
        single(s)
    }
}

/// A word in a `set -x` trace: bare when safe, else single-quoted (`$'...'` for control
/// characters other than tab and newline, and for raw bytes).
pub fn trace(s: &str) -> String {
    // Tabs and newlines stay literal inside single quotes.
    if needs_ansi_c(&s.replace(['\n', '\t'], "")) {
        ansi_c(s)
    } else if needs_quotes(s) {
        single(s)
    } else {
        s.to_string()
    }
}

/// A value in `declare -p`: `"text"` with `\ " $ `` ` `` escaped, or `$'...'`.
pub fn double(s: &str) -> String {
    if needs_ansi_c(s) {
        return ansi_c(s);
    }
    let mut out = String::from("\"");
    for c in s.chars() {
        if matches!(c, '\\' | '"' | '$' | '`') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// `printf %q` / `${x@Q}`-like quoting that leaves safe words bare (for `declare -f` output
/// and messages that show a command).
pub fn word(s: &str) -> String {
    if !needs_quotes(s) {
        return s.to_string();
    }
    if needs_ansi_c(s) {
        return ansi_c(s);
    }
    single(s)
}

/// Decodes C escapes as `$'...'`, `echo -e` and `${x@E}` do: `\n \t \\ \e \xHH \uHHHH
/// \NNN \cX`...
pub fn unescape_c(s: &str) -> String {
    let mut out = String::new();
    // A run of `\xHH` and octal escapes: bytes, decoded together (`\xce\xbb` is `λ`).
    let mut bytes = Vec::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        let is_byte = c == '\\'
            && chars.get(i).is_some_and(|&e| {
                matches!(e, '0'..='7')
                    || e == 'x' && chars.get(i + 1).is_some_and(char::is_ascii_hexdigit)
            });
        if !is_byte && !bytes.is_empty() {
            out.push_str(&crate::shell::bytes::decode(&bytes));
            bytes.clear();
        }
        if c != '\\' || i >= chars.len() {
            out.push(c);
            continue;
        }
        let e = chars[i];
        i += 1;
        let simple = match e {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            'e' | 'E' => Some('\x1b'),
            '\\' => Some('\\'),
            '\'' => Some('\''),
            '"' => Some('"'),
            '?' => Some('?'),
            _ => None,
        };
        if let Some(c) = simple {
            out.push(c);
            continue;
        }
        let digits = |i: &mut usize, max: usize, radix: u32| {
            let mut v = 0u32;
            let mut n = 0;
            while n < max && *i < chars.len() {
                match chars[*i].to_digit(radix) {
                    Some(d) => {
                        v = v * radix + d;
                        *i += 1;
                        n += 1;
                    }
                    None => break,
                }
            }
            (v, n)
        };
        match e {
            'x' => match digits(&mut i, 2, 16) {
                (v, n) if n > 0 => bytes.push((v & 0xff) as u8),
                _ => out.push_str("\\x"),
            },
            'u' | 'U' => {
                let max = if e == 'u' { 4 } else { 8 };
                match digits(&mut i, max, 16) {
                    (v, n) if n > 0 => out.push_str(&crate::shell::bytes::code_point(v)),
                    _ => {
                        out.push('\\');
                        out.push(e);
                    }
                }
            }
            '0'..='7' => {
                i -= 1;
                let (v, _) = digits(&mut i, 3, 8);
                bytes.push((v & 0xff) as u8);
            }
            'c' if i < chars.len() => {
                let ctl = chars[i];
                i += 1;
                out.push(char::from_u32(ctl.to_ascii_uppercase() as u32 ^ 0x40).unwrap_or('?'));
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out.push_str(&crate::shell::bytes::decode(&bytes));
    out
}

/// The attribute letters of a variable, as `declare -p` prints them.
pub fn attr_letters(var: &Var) -> String {
    let a = var.attrs;
    let array = a.array || matches!(var.value, Some(Value::Indexed(_)));
    let assoc = a.assoc || matches!(var.value, Some(Value::Assoc(_)));
    let mut s = String::new();
    for (on, c) in [
        (array && !assoc, 'a'),
        (assoc, 'A'),
        (a.integer, 'i'),
        (a.lower, 'l'),
        (a.nameref, 'n'),
        (a.readonly, 'r'),
        (a.upper, 'u'),
        (a.export, 'x'),
    ] {
        if on {
            s.push(c);
        }
    }
    if s.is_empty() {
        s.push('-');
    }
    s
}

/// An array's or scalar's value as `declare -p` and `set` print it.
pub fn value_text(var: &Var, style: fn(&str) -> String) -> Option<String> {
    Some(match var.value.as_ref()? {
        Value::Str(s) => style(s),
        Value::Indexed(map) => {
            let items: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("[{k}]={}", double(v)))
                .collect();
            format!("({})", items.join(" "))
        }
        Value::Assoc(map) => {
            let items: String = map
                .iter()
                .map(|(k, v)| format!("[{}]={} ", key(k), double(v)))
                .collect();
            format!("({items})")
        }
    })
}

/// An associative array's key in `declare -p` and `set`: bare when safe, else `"key"`.
fn key(k: &str) -> String {
    if needs_quotes(k) {
        double(k)
    } else {
        k.to_string()
    }
}

/// `declare -p`-style line for a variable.
pub fn declaration(name: &str, var: &Var) -> String {
    let letters = attr_letters(var);
    match value_text(var, double) {
        Some(value) => format!("declare -{letters} {name}={value}\n"),
        None => format!("declare -{letters} {name}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_styles() {
        assert_eq!(q("a b"), "'a b'");
        assert_eq!(q("it's"), "'it'\\''s'");
        assert_eq!(q("t\tab"), "$'t\\tab'");
        assert_eq!(q(""), "''");
        assert_eq!(trace("a=b"), "a=b");
        assert_eq!(trace("-n"), "-n");
        assert_eq!(trace("a*"), "'a*'");
        assert_eq!(trace("#x"), "'#x'");
        assert_eq!(trace("x#"), "x#");
        assert_eq!(double("it's \"q\" $x"), "\"it's \\\"q\\\" \\$x\"");
        assert_eq!(double("a\tb"), "$'a\\tb'");
    }
}
