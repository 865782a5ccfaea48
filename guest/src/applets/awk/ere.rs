//! Awk's extended regular expressions, translated to the `regex` crate's syntax: escapes
//! (`\/`, `\t`, octal), bracket expressions (`[]a]`, `[[:alpha:]]`, `[a\]]`), literal `{`
//! and leading `*`, gawk's `\y \< \> \B \s \w`, and `.` matching newlines.
//!
//! The `regex` crate matches leftmost-first (the first alternative that matches wins);
//! POSIX awk matches leftmost-longest. [`Ere`] restores the longest match for top-level
//! alternations (`/a|ab/`, gawk's FPAT idiom `([^,]*)|("[^"]*")`), which is where the two
//! differ in practice.

use std::collections::HashMap;
use std::rc::Rc;

use regex::bytes::{Captures, Regex, RegexBuilder};

/// A compiled awk regex.
#[derive(Debug)]
pub struct Ere {
    re: Regex,
    /// Each top-level alternative anchored at the start (`\A(?:alt)`), when there are
    /// several and no assertion makes matching a suffix differ from matching in place.
    alts: Vec<Regex>,
    /// `(?:re)\z`, to recover the groups of a longer match than `re` found.
    tail: Option<Regex>,
}

fn build(pattern: &str, ignore_case: bool) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .dot_matches_new_line(true)
        .case_insensitive(ignore_case)
        .size_limit(1 << 24)
        .build()
}

/// Compiles an awk ERE; the error is the message gawk-style callers print.
pub fn compile(src: &[u8], ignore_case: bool) -> Result<Ere, String> {
    let tr = translate_parts(src)?;
    let error = |e: regex::Error| {
        let text = e.to_string();
        let last = text.lines().last().unwrap_or("invalid regexp").trim();
        let last = last.strip_prefix("error: ").unwrap_or(last);
        format!("{last}: /{}/", String::from_utf8_lossy(src))
    };
    let re = build(&tr.pattern, ignore_case).map_err(error)?;
    let mut alts = Vec::new();
    let mut tail = None;
    if tr.alternatives.len() > 1 && !tr.asserts {
        for alt in &tr.alternatives {
            alts.push(build(&format!("\\A(?:{alt})"), ignore_case).map_err(error)?);
        }
        tail = Some(build(&format!("(?:{})\\z", tr.pattern), ignore_case).map_err(error)?);
    }
    Ok(Ere { re, alts, tail })
}

impl Ere {
    /// Whether it matches anywhere in `text`.
    pub fn is_match(&self, text: &[u8]) -> bool {
        self.re.is_match(text)
    }

    /// The longest of the leftmost matches at or after `pos`: (start, end).
    pub fn find_at(&self, text: &[u8], pos: usize) -> Option<(usize, usize)> {
        let m = self.re.find_at(text, pos)?;
        Some((m.start(), self.longest_end(text, m.start(), m.end())))
    }

    fn longest_end(&self, text: &[u8], start: usize, end: usize) -> usize {
        self.alts
            .iter()
            .filter_map(|alt| alt.find(&text[start..]).map(|m| start + m.end()))
            .fold(end, usize::max)
    }

    /// The groups of the longest leftmost match at or after `pos`.
    pub fn captures_at<'t>(&self, text: &'t [u8], pos: usize) -> Option<Captures<'t>> {
        let caps = self.re.captures_at(text, pos)?;
        let (start, end) = caps.get(0).map(|m| (m.start(), m.end()))?;
        let longest = self.longest_end(text, start, end);
        if longest == end {
            return Some(caps);
        }
        let tail = self.tail.as_ref()?;
        tail.captures_at(&text[..longest], start)
            .filter(|c| c.get(0).is_some_and(|m| m.start() == start))
            .or(Some(caps))
    }
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

/// The translation state: output pattern, where the last atom started (for quantifiers).
struct Out {
    pat: String,
    /// Where each top-level alternative starts in `pat`.
    alt_starts: Vec<usize>,
    /// An assertion (`^`, `\<`, `\y`...) was emitted.
    asserts: bool,
    /// Start of the last atom in `pat`, if a quantifier may follow here.
    atom: Option<usize>,
    /// The last thing emitted was a quantifier.
    quantified: bool,
}

impl Out {
    fn atom(&mut self, text: &str) {
        self.atom = Some(self.pat.len());
        self.quantified = false;
        self.pat.push_str(text);
    }

    fn literal(&mut self, c: char) {
        let mut buf = [0u8; 4];
        self.atom(&regex::escape(c.encode_utf8(&mut buf)));
    }

    fn byte(&mut self, b: u8) {
        if b < 0x80 {
            self.literal(char::from(b));
        } else {
            self.atom(&format!("(?-u:\\x{b:02x})"));
        }
    }

    fn anchor(&mut self, text: &str) {
        if text != "|" && text != "(" && text != "$" {
            self.asserts = true;
        }
        self.pat.push_str(text);
        self.atom = None;
        self.quantified = false;
    }

    fn quantifier(&mut self, q: &str) {
        let Some(start) = self.atom else {
            // Nothing to repeat (`/+/`, `/(*a)/`): the character stands for itself.
            for c in q.chars() {
                self.literal(c);
            }
            return;
        };
        if self.quantified {
            // `a**` or `a+?` is a repeat of a repeat, not a lazy quantifier.
            self.pat.insert_str(start, "(?:");
            self.pat.push(')');
        }
        self.pat.push_str(q);
        self.quantified = true;
    }
}

/// A translated pattern and its top-level alternatives.
struct Translated {
    pattern: String,
    alternatives: Vec<String>,
    asserts: bool,
}

/// Translates awk ERE `src` into `regex` crate syntax.
fn translate_parts(src: &[u8]) -> Result<Translated, String> {
    let mut out = Out {
        pat: String::with_capacity(src.len() + 8),
        alt_starts: vec![0],
        asserts: false,
        atom: None,
        quantified: false,
    };
    let mut groups: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < src.len() {
        let b = src[i];
        i += 1;
        match b {
            b'\\' => i = escape(src, i, &mut out),
            b'[' => {
                let (class, next) = bracket(src, i)?;
                out.atom(&class);
                i = next;
            }
            b'(' => {
                groups.push(out.pat.len());
                out.anchor("(");
            }
            b')' => {
                let start = groups.pop().ok_or("Unmatched ) or \\)")?;
                out.pat.push(')');
                out.atom = Some(start);
                out.quantified = false;
            }
            b'|' => {
                out.anchor("|");
                if groups.is_empty() {
                    out.alt_starts.push(out.pat.len());
                }
            }
            b'^' => out.anchor("^"),
            b'$' => out.anchor("$"),
            b'.' => out.atom("."),
            b'*' | b'+' | b'?' => out.quantifier(&char::from(b).to_string()),
            b'{' => match interval(src, i) {
                Some((text, next)) if out.atom.is_some() => {
                    out.quantifier(&text);
                    i = next;
                }
                _ => out.literal('{'),
            },
            _ if b >= 0x80 => i = non_ascii(src, i - 1, &mut out),
            _ => out.literal(char::from(b)),
        }
    }
    if !groups.is_empty() {
        return Err("Unmatched ( or \\(".to_string());
    }
    let mut alternatives = Vec::new();
    for (i, &start) in out.alt_starts.iter().enumerate() {
        let end = out
            .alt_starts
            .get(i + 1)
            .map_or(out.pat.len(), |&next| next - 1);
        alternatives.push(out.pat[start..end].to_string());
    }
    Ok(Translated {
        pattern: out.pat,
        alternatives,
        asserts: out.asserts,
    })
}

/// A UTF-8 character (or a stray byte) starting at `at`; returns the next index.
fn non_ascii(src: &[u8], at: usize, out: &mut Out) -> usize {
    let end = (at + 4).min(src.len());
    for len in (2..=end - at).rev() {
        if let Ok(text) = std::str::from_utf8(&src[at..at + len]) {
            if let Some(c) = text.chars().next().filter(|c| c.len_utf8() == len) {
                out.literal(c);
                return at + len;
            }
        }
    }
    out.byte(src[at]);
    at + 1
}

/// `{n}`, `{n,}`, `{n,m}`, `{,m}` at `src[i..]` (after the `{`): the regex text and the index
/// after the `}`.
fn interval(src: &[u8], i: usize) -> Option<(String, usize)> {
    let close = src[i..].iter().position(|&b| b == b'}')? + i;
    let body = std::str::from_utf8(&src[i..close]).ok()?;
    let (lo, hi) = match body.split_once(',') {
        Some((lo, hi)) => (lo, Some(hi)),
        None => (body, None),
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(lo) || !hi.is_none_or(digits) || (lo.is_empty() && hi.is_none_or(str::is_empty)) {
        return None;
    }
    let lo = if lo.is_empty() { "0" } else { lo };
    let text = match hi {
        None => format!("{{{lo}}}"),
        Some("") => format!("{{{lo},}}"),
        Some(hi) => format!("{{{lo},{hi}}}"),
    };
    Some((text, close + 1))
}

/// The byte a string-style escape (`\n`, `\t`, `\/`, octal...) stands for, and its length
/// after the backslash; None for the regex-only escapes.
pub fn escape_byte(src: &[u8]) -> Option<(u8, usize)> {
    let &c = src.first()?;
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'f' => Some(b'\x0c'),
        b'v' => Some(b'\x0b'),
        b'a' => Some(b'\x07'),
        b'b' => Some(b'\x08'),
        b'/' => Some(b'/'),
        b'"' => Some(b'"'),
        _ => None,
    };
    if let Some(b) = simple {
        return Some((b, 1));
    }
    if (b'0'..=b'7').contains(&c) {
        let len = src
            .iter()
            .take(3)
            .take_while(|d| (b'0'..=b'7').contains(d))
            .count();
        let value = src[..len]
            .iter()
            .fold(0u32, |n, d| n * 8 + u32::from(d - b'0'));
        return Some(((value & 0xff) as u8, len));
    }
    if c == b'x' {
        let len = src[1..]
            .iter()
            .take(2)
            .take_while(|d| d.is_ascii_hexdigit())
            .count();
        if len > 0 {
            let text = std::str::from_utf8(&src[1..=len]).ok()?;
            return Some((u8::from_str_radix(text, 16).ok()?, len + 1));
        }
    }
    None
}

/// A backslash escape outside brackets; `i` is just after the backslash.
fn escape(src: &[u8], i: usize, out: &mut Out) -> usize {
    let Some(&c) = src.get(i) else {
        out.literal('\\');
        return i;
    };
    if let Some((b, len)) = escape_byte(&src[i..]) {
        out.byte(b);
        return i + len;
    }
    match c {
        b'y' => out.anchor(r"\b"),
        b'B' => out.anchor(r"\B"),
        b'<' => out.anchor(r"\b{start}"),
        b'>' => out.anchor(r"\b{end}"),
        b'`' => out.anchor(r"\A"),
        b'\'' => out.anchor(r"\z"),
        b's' => out.atom(r"\s"),
        b'S' => out.atom(r"\S"),
        b'w' => out.atom(r"[\p{Alphabetic}\p{Nd}_]"),
        b'W' => out.atom(r"[^\p{Alphabetic}\p{Nd}_]"),
        _ if c >= 0x80 => return non_ascii(src, i, out),
        _ => out.literal(char::from(c)),
    }
    i + 1
}

/// A bracket expression starting after its `[`: the regex class and the index after `]`.
fn bracket(src: &[u8], mut i: usize) -> Result<(String, usize), String> {
    let mut class = String::from("[");
    if src.get(i) == Some(&b'^') {
        class.push('^');
        i += 1;
    }
    let mut first = true;
    let mut items = 0;
    loop {
        let Some(&b) = src.get(i) else {
            return Err("Unmatched [, [^, [:, [., or [=".to_string());
        };
        if b == b']' && !first {
            break;
        }
        first = false;
        if b == b'[' && matches!(src.get(i + 1), Some(b':' | b'.' | b'=')) {
            if let Some((text, next)) = named_class(src, i) {
                class.push_str(&text);
                items += 1;
                i = next;
                continue;
            }
        }
        let (lo, next) = class_char(src, i);
        i = next;
        if src.get(i) == Some(&b'-') && src.get(i + 1).is_some_and(|&c| c != b']') {
            let (hi, next) = class_char(src, i + 1);
            i = next;
            if hi < lo {
                return Err("Invalid range end".to_string());
            }
            class.push_str(&class_text(lo));
            class.push('-');
            class.push_str(&class_text(hi));
        } else {
            class.push_str(&class_text(lo));
        }
        items += 1;
    }
    if items == 0 {
        return Err("Unmatched [, [^, [:, [., or [=".to_string());
    }
    class.push(']');
    Ok((class, i + 1))
}

/// `[:alpha:]` (and the rarely used `[.x.]`, `[=x=]`) inside a bracket expression.
fn named_class(src: &[u8], i: usize) -> Option<(String, usize)> {
    let kind = src[i + 1];
    let body_start = i + 2;
    let end = src[body_start..]
        .windows(2)
        .position(|w| w[0] == kind && w[1] == b']')?
        + body_start;
    let name = std::str::from_utf8(&src[body_start..end]).ok()?;
    let text = match kind {
        b':' => posix_class(name)?.to_string(),
        _ => name.chars().map(|c| class_text(c as u32)).collect(),
    };
    Some((text, end + 2))
}

/// A POSIX class as a UTF-8 locale sees it (letters and symbols beyond ASCII count).
fn posix_class(name: &str) -> Option<&'static str> {
    Some(match name {
        "alpha" => r"\p{Alphabetic}",
        "upper" => r"\p{Uppercase}",
        "lower" => r"\p{Lowercase}",
        "alnum" => r"\p{Alphabetic}\p{Nd}",
        "digit" => "0-9",
        "xdigit" => "0-9A-Fa-f",
        "space" => r"\s",
        "blank" => r"\t\p{Zs}",
        "punct" => r"[:punct:]\p{P}\p{S}",
        "print" => r"[:print:][^\x00-\x7f\p{C}]",
        "graph" => r"[:graph:][^\x00-\x7f\p{C}\p{Z}]",
        "cntrl" => "[:cntrl:]",
        _ => return None,
    })
}

/// One character in a bracket expression (a code point, or a byte above 0x7f when the
/// input is not UTF-8), with escapes; returns the index after it.
fn class_char(src: &[u8], i: usize) -> (u32, usize) {
    let b = src[i];
    if b == b'\\' {
        if let Some((byte, len)) = escape_byte(&src[i + 1..]) {
            return (u32::from(byte), i + 1 + len);
        }
        if let Some(&c) = src.get(i + 1) {
            if c < 0x80 {
                return (u32::from(c), i + 2);
            }
            return utf8_char(src, i + 1);
        }
        return (u32::from(b'\\'), i + 1);
    }
    if b < 0x80 {
        return (u32::from(b), i + 1);
    }
    utf8_char(src, i)
}

fn utf8_char(src: &[u8], i: usize) -> (u32, usize) {
    let end = (i + 4).min(src.len());
    for len in (2..=end - i).rev() {
        if let Ok(text) = std::str::from_utf8(&src[i..i + len]) {
            if let Some(c) = text.chars().next().filter(|c| c.len_utf8() == len) {
                return (c as u32, i + len);
            }
        }
    }
    (u32::from(src[i]), i + 1)
}

/// A class member escaped for the regex crate.
fn class_text(c: u32) -> String {
    match char::from_u32(c) {
        Some(ch) if ch.is_ascii_alphanumeric() => ch.to_string(),
        Some(ch) if c >= 0x80 => ch.to_string(),
        _ => format!("\\x{{{c:x}}}"),
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
        assert_eq!(find("^a|ab", "ab"), Some((0, 1)));
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
