//! Shell patterns: `*`, `?`, `[...]` (ranges, `!`/`^`, `[:class:]`), backslash escapes and
//! the extended forms `?(…) *(…) +(…) @(…) !(…)`, as the shell's `case`, `[[ == ]]`,
//! `${x#pat}` and pathname expansion use them, and the applets' wildcards through [`Glob`].
//!
//! [`Glob`]: super::Glob
//!
//! A pattern is compiled from characters that each remember whether they were quoted: quoted
//! characters always match themselves. Matching is bounded (a step budget and a depth limit),
//! so a hostile pattern ends in "no match", never in a hang or a stack overflow.

use crate::limits::MAX_PATTERN_DEPTH;

/// A character of pattern source and whether it was quoted.
pub type PChar = (char, bool);

/// How many matching steps one match may take before giving up.
const STEP_BUDGET: u64 = 5_000_000;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Char(char),
    Any,
    Star,
    Class {
        negated: bool,
        items: Vec<ClassItem>,
    },
    Ext(ExtKind, Vec<Vec<Tok>>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExtKind {
    ZeroOrOne,
    ZeroOrMore,
    OneOrMore,
    One,
    Not,
}

#[derive(Clone, Debug, PartialEq)]
enum ClassItem {
    Char(char),
    Range(char, char),
    Named(String),
}

/// A compiled pattern.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    toks: Vec<Tok>,
    has_ext: bool,
    /// Match letters regardless of case.
    pub nocase: bool,
}

/// Whether unquoted characters of `chars` make a pattern (anything but literal text).
pub fn has_glob(chars: &[PChar]) -> bool {
    chars.iter().enumerate().any(|(i, &(c, quoted))| {
        !quoted
            && (matches!(c, '*' | '?' | '[')
                || (matches!(c, '@' | '!' | '+') && chars.get(i + 1) == Some(&('(', false))))
    })
}

/// The literal text of `chars` (unquoted backslashes escape the next character).
pub fn unescape(chars: &[PChar]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let (c, quoted) = chars[i];
        if c == '\\' && !quoted && i + 1 < chars.len() {
            out.push(chars[i + 1].0);
            i += 2;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
}

impl Pattern {
    /// Compiles `chars`.
    pub fn new(chars: &[PChar]) -> Pattern {
        let mut pos = 0;
        let toks = parse_seq(chars, &mut pos, false, 0);
        let has_ext = toks_have_ext(&toks);
        Pattern {
            toks,
            has_ext,
            nocase: false,
        }
    }

    /// A pattern from unquoted text (glob characters are special).
    #[cfg(test)]
    pub fn from_text(text: &str) -> Pattern {
        let chars: Vec<PChar> = text.chars().map(|c| (c, false)).collect();
        Pattern::new(&chars)
    }

    /// The text it matches, if it has no pattern characters at all.
    pub fn literal(&self) -> Option<String> {
        self.toks
            .iter()
            .map(|t| match t {
                Tok::Char(c) => Some(*c),
                _ => None,
            })
            .collect()
    }

    /// Whether all of `s` matches.
    pub fn matches(&self, s: &str) -> bool {
        let chars: Vec<char> = s.chars().collect();
        self.matches_chars(&chars)
    }

    /// Whether all of `s` matches.
    pub fn matches_chars(&self, s: &[char]) -> bool {
        if !self.has_ext {
            return simple_match(&self.toks, s, self.nocase);
        }
        let mut m = Matcher {
            steps: 0,
            nocase: self.nocase,
        };
        m.seq(&self.toks, s, 0)
    }

    /// Whether the pattern starts with a literal `.` (so it may match dotfiles).
    pub fn starts_with_dot(&self) -> bool {
        matches!(self.toks.first(), Some(Tok::Char('.')))
    }
}

fn toks_have_ext(toks: &[Tok]) -> bool {
    toks.iter().any(|t| matches!(t, Tok::Ext(..)))
}

// ---------------------------------------------------------------------------------------
// Parsing

/// Tokens up to the end, or (inside an extended pattern) up to an unquoted `|` or `)`.
fn parse_seq(chars: &[PChar], pos: &mut usize, nested: bool, depth: usize) -> Vec<Tok> {
    let mut toks = Vec::new();
    while let Some(&(c, quoted)) = chars.get(*pos) {
        if quoted {
            toks.push(Tok::Char(c));
            *pos += 1;
            continue;
        }
        if nested && (c == '|' || c == ')') {
            break;
        }
        if let Some(kind) = ext_kind(c) {
            if chars.get(*pos + 1) == Some(&('(', false)) && depth < MAX_PATTERN_DEPTH {
                if let Some((alts, end)) = parse_ext(chars, *pos + 2, depth + 1) {
                    toks.push(Tok::Ext(kind, alts));
                    *pos = end;
                    continue;
                }
            }
        }
        *pos += 1;
        match c {
            '*' => {
                if toks.last() != Some(&Tok::Star) {
                    toks.push(Tok::Star);
                }
            }
            '?' => toks.push(Tok::Any),
            '[' => match parse_class(chars, *pos) {
                Some((tok, end)) => {
                    toks.push(tok);
                    *pos = end;
                }
                None => toks.push(Tok::Char('[')),
            },
            '\\' => match chars.get(*pos) {
                Some(&(next, _)) => {
                    toks.push(Tok::Char(next));
                    *pos += 1;
                }
                None => toks.push(Tok::Char('\\')),
            },
            c => toks.push(Tok::Char(c)),
        }
    }
    toks
}

fn ext_kind(c: char) -> Option<ExtKind> {
    Some(match c {
        '?' => ExtKind::ZeroOrOne,
        '*' => ExtKind::ZeroOrMore,
        '+' => ExtKind::OneOrMore,
        '@' => ExtKind::One,
        '!' => ExtKind::Not,
        _ => return None,
    })
}

/// `alt|alt|...)` from `start`; returns the alternatives and the position after `)`.
fn parse_ext(chars: &[PChar], start: usize, depth: usize) -> Option<(Vec<Vec<Tok>>, usize)> {
    let mut pos = start;
    let mut alts = Vec::new();
    loop {
        alts.push(parse_seq(chars, &mut pos, true, depth));
        match chars.get(pos) {
            Some(('|', false)) => pos += 1,
            Some((')', false)) => return Some((alts, pos + 1)),
            _ => return None,
        }
    }
}

/// A bracket expression after `[`; None if it is not closed (then `[` is literal).
fn parse_class(chars: &[PChar], start: usize) -> Option<(Tok, usize)> {
    let mut pos = start;
    let mut negated = false;
    if let Some(&(c, false)) = chars.get(pos) {
        if c == '!' || c == '^' {
            negated = true;
            pos += 1;
        }
    }
    let mut items = Vec::new();
    let mut first = true;
    loop {
        let &(c, quoted) = chars.get(pos)?;
        if c == ']' && !quoted && !first {
            return Some((Tok::Class { negated, items }, pos + 1));
        }
        first = false;
        if c == '[' && !quoted {
            if let Some(&(kind @ (':' | '=' | '.'), false)) = chars.get(pos + 1) {
                if let Some((name, end)) = bracket_name(chars, pos + 2, kind) {
                    items.push(match kind {
                        ':' => ClassItem::Named(name),
                        _ => ClassItem::Char(name.chars().next().unwrap_or(' ')),
                    });
                    pos = end;
                    continue;
                }
            }
        }
        let (c, next) = match (c, quoted) {
            ('\\', false) => match chars.get(pos + 1) {
                Some(&(escaped, _)) => (escaped, pos + 2),
                None => return None,
            },
            _ => (c, pos + 1),
        };
        pos = next;
        if let (Some(&('-', false)), Some(&(hi, hi_quoted))) = (chars.get(pos), chars.get(pos + 1))
        {
            if hi != ']' || hi_quoted {
                items.push(ClassItem::Range(c, hi));
                pos += 2;
                continue;
            }
        }
        items.push(ClassItem::Char(c));
    }
}

/// `name:]` (or `=]`, `.]`) from `start`.
fn bracket_name(chars: &[PChar], start: usize, kind: char) -> Option<(String, usize)> {
    let mut name = String::new();
    let mut pos = start;
    loop {
        let &(c, _) = chars.get(pos)?;
        if c == kind && chars.get(pos + 1).map(|p| p.0) == Some(']') {
            return Some((name, pos + 2));
        }
        if name.len() > 16 {
            return None;
        }
        name.push(c);
        pos += 1;
    }
}

// ---------------------------------------------------------------------------------------
// Matching

fn eq(a: char, b: char, nocase: bool) -> bool {
    a == b || (nocase && a.to_lowercase().eq(b.to_lowercase()))
}

fn class_has(items: &[ClassItem], c: char, nocase: bool) -> bool {
    items.iter().any(|item| match item {
        ClassItem::Char(x) => eq(*x, c, nocase),
        ClassItem::Range(lo, hi) => {
            (*lo..=*hi).contains(&c)
                || (nocase
                    && c.to_lowercase()
                        .chain(c.to_uppercase())
                        .any(|x| (*lo..=*hi).contains(&x)))
        }
        ClassItem::Named(name) => named_class(name, c),
    })
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
        "print" => !c.is_control(),
        "graph" => !c.is_control() && !c.is_whitespace(),
        "cntrl" => c.is_control(),
        "xdigit" => c.is_ascii_hexdigit(),
        "word" => c.is_alphanumeric() || c == '_',
        _ => false,
    }
}

fn single(tok: &Tok, c: char, nocase: bool) -> bool {
    match tok {
        Tok::Char(x) => eq(*x, c, nocase),
        Tok::Any => true,
        Tok::Class { negated, items } => class_has(items, c, nocase) != *negated,
        Tok::Star | Tok::Ext(..) => false,
    }
}

/// Stars and single characters only: linear backtracking on the last star.
fn simple_match(toks: &[Tok], s: &[char], nocase: bool) -> bool {
    let (mut ti, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    let mut retries = 0u32;
    while si < s.len() {
        match toks.get(ti) {
            Some(Tok::Star) => {
                star = Some((ti, si));
                ti += 1;
                continue;
            }
            Some(tok) if single(tok, s[si], nocase) => {
                ti += 1;
                si += 1;
                continue;
            }
            _ => {}
        }
        match star {
            // Quadratic at worst: over a long subject, look at the deadline now and then.
            Some(_) if retries & 0xFF == 0xFF && crate::task::out_of_time() => return false,
            Some((sti, ssi)) => {
                retries = retries.wrapping_add(1);
                ti = sti + 1;
                si = ssi + 1;
                star = Some((sti, ssi + 1));
            }
            None => return false,
        }
    }
    toks[ti.min(toks.len())..].iter().all(|t| *t == Tok::Star)
}

struct Matcher {
    steps: u64,
    nocase: bool,
}

impl Matcher {
    /// Whether `toks` matches all of `s[si..]`.
    fn seq(&mut self, toks: &[Tok], s: &[char], si: usize) -> bool {
        self.seq_depth(toks, s, si, 0)
    }

    fn seq_depth(&mut self, toks: &[Tok], s: &[char], mut si: usize, depth: usize) -> bool {
        let mut ti = 0;
        loop {
            self.steps += 1;
            if self.steps.is_multiple_of(1 << 8) && crate::task::out_of_time() {
                self.steps = STEP_BUDGET; // out of time: unwind as when out of steps
            }
            if self.steps > STEP_BUDGET || depth > MAX_PATTERN_DEPTH {
                return false;
            }
            let Some(tok) = toks.get(ti) else {
                return si == s.len();
            };
            match tok {
                Tok::Star => {
                    let rest = &toks[ti + 1..];
                    if rest.is_empty() {
                        return true;
                    }
                    return (si..=s.len()).any(|k| self.seq_depth(rest, s, k, depth + 1));
                }
                Tok::Ext(kind, alts) => {
                    return self.ext(*kind, alts, &toks[ti + 1..], s, si, depth + 1);
                }
                tok => {
                    if si < s.len() && single(tok, s[si], self.nocase) {
                        ti += 1;
                        si += 1;
                    } else {
                        return false;
                    }
                }
            }
        }
    }

    /// Whether one of `alts` matches exactly `s[from..to]`.
    fn any_alt(
        &mut self,
        alts: &[Vec<Tok>],
        s: &[char],
        from: usize,
        to: usize,
        depth: usize,
    ) -> bool {
        let part = &s[from..to];
        alts.iter().any(|alt| self.seq_depth(alt, part, 0, depth))
    }

    fn ext(
        &mut self,
        kind: ExtKind,
        alts: &[Vec<Tok>],
        rest: &[Tok],
        s: &[char],
        si: usize,
        depth: usize,
    ) -> bool {
        match kind {
            ExtKind::One | ExtKind::ZeroOrOne => {
                if kind == ExtKind::ZeroOrOne && self.seq_depth(rest, s, si, depth) {
                    return true;
                }
                (si..=s.len()).any(|end| {
                    self.any_alt(alts, s, si, end, depth) && self.seq_depth(rest, s, end, depth)
                })
            }
            ExtKind::ZeroOrMore | ExtKind::OneOrMore => {
                if kind == ExtKind::ZeroOrMore && self.seq_depth(rest, s, si, depth) {
                    return true;
                }
                (si + 1..=s.len()).any(|end| {
                    self.any_alt(alts, s, si, end, depth)
                        && self.ext(ExtKind::ZeroOrMore, alts, rest, s, end, depth + 1)
                })
            }
            ExtKind::Not => (si..=s.len()).any(|end| {
                !self.any_alt(alts, s, si, end, depth) && self.seq_depth(rest, s, end, depth)
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, s: &str) -> bool {
        Pattern::from_text(pattern).matches(s)
    }

    #[test]
    fn stars_questions_and_brackets() {
        assert!(m("*.txt", "a.txt") && !m("*.txt", "a.txt.bak"));
        assert!(m("a?c", "abc") && !m("a?c", "ac"));
        assert!(m("[a-c]x", "bx") && !m("[!a-c]x", "bx") && m("[^a-c]x", "dx"));
        assert!(m("[]]", "]") && m("[a-]", "-") && m("[[:digit:]]*", "7up"));
        assert!(m("*a*b*c*", "xxaxxbxxcxx") && !m("*a*b*c*", "xxaxxcxxbxx"));
        assert!(m("[", "[") && m("a[", "a[") && m("\\*", "*") && !m("\\*", "x"));
        assert!(m("", "") && !m("", "a") && m("*", ""));
    }

    #[test]
    fn quoted_characters_are_literal() {
        let chars: Vec<PChar> = vec![('*', true), ('.', false), ('*', false)];
        let p = Pattern::new(&chars);
        assert!(p.matches("*.c") && !p.matches("a.c"));
        assert!(!has_glob(&[('*', true)]) && has_glob(&[('[', false)]));
        assert_eq!(unescape(&[('\\', false), ('*', false)]), "*");
    }

    #[test]
    fn extended_patterns() {
        assert!(m("@(a|b)c", "bc") && !m("@(a|b)c", "abc"));
        assert!(m("+([0-9])", "123") && !m("+([0-9])", "") && !m("+([0-9])", "12a"));
        assert!(m("*(ab)", "") && m("*(ab)", "abab") && !m("*(ab)", "aba"));
        assert!(m("?(x)y", "y") && m("?(x)y", "xy") && !m("?(x)y", "xxy"));
        assert!(m("!(*.txt)", "a.md") && !m("!(*.txt)", "a.txt"));
        assert!(m("*.@(jpg|png)", "x.png"));
    }

    #[test]
    fn hostile_patterns_end() {
        let p = "*a".repeat(40) + "b";
        assert!(!m(&p, &"a".repeat(200)));
        let p = "+(a|aa)".repeat(20) + "b";
        assert!(!m(&p, &"a".repeat(60)));
        let deep = "@(".repeat(500) + &")".repeat(500);
        let _ = m(&deep, "x");
    }

    #[test]
    fn long_matches_look_at_the_deadline() {
        let deadline = std::rc::Rc::new(crate::task::Deadline::default());
        deadline.set(Some(crate::task::now()));
        let _running = deadline.enter();
        // A clock reading every 1,024 looks, a look every 256 steps: 2**18 steps at least.
        assert!(!m("*a*a*b", &"a".repeat(1 << 19)));
        assert!(deadline.fired(), "a star match never looked at the clock");
        deadline.set(Some(crate::task::now()));
        assert!(!m("*(a)*(a)b", &"a".repeat(1 << 12)));
        assert!(
            deadline.fired(),
            "an extended match never looked at the clock"
        );
    }

    #[test]
    fn case_insensitive() {
        let mut p = Pattern::from_text("*.TXT");
        p.nocase = true;
        assert!(p.matches("a.txt"));
    }
}
