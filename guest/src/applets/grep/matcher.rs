//! Turns grep's pattern list into one `regex::bytes::Regex` that is searched over a whole
//! buffer at once: multi-line anchors, the line terminator excluded from every class, `-w`
//! and `-x` as half word boundaries and anchors, all patterns as one alternation (literal
//! alternations become a fast multi-literal search inside the `regex` crate).

use regex::bytes::{Regex, RegexBuilder};

use super::bytes::memchr;
use super::options::Syntax;
use crate::applets::common::regex::{
    longest_end, regex_error, relaxed, translate, Backtrack, Dialect, EndChecks, Syntax as Posix,
    Tool,
};
use crate::limits::MAX_GREP_BRANCHES;

/// How patterns are interpreted and combined.
#[derive(Clone, Copy, Debug)]
pub struct MatchSpec {
    /// BRE, ERE, fixed strings or Perl-like.
    pub syntax: Syntax,
    /// `-i`.
    pub ignore_case: bool,
    /// `-w`.
    pub word: bool,
    /// `-x`.
    pub line: bool,
    /// The line terminator (`\n`, or NUL with `-z`).
    pub eol: u8,
}

/// The compiled patterns, plus the warnings GNU grep would print.
pub struct Matcher {
    /// None when there are no patterns at all (`-f /dev/null`): nothing matches.
    regex: Option<Regex>,
    /// The top-level alternatives compiled one by one, when there are a few: `-o` prefers
    /// the longest of the matches starting at the leftmost position, as POSIX does.
    branches: Vec<Regex>,
    /// The whole pattern anchored at the end of the text, when it has alternatives (and no
    /// assertion about what follows): finds longer matches than the first alternative's.
    anchored_end: Option<Regex>,
    /// The same for the alternatives with no assertion after their end: tried at the ends
    /// where the whole one cannot be.
    anchored_safe: Option<Regex>,
    /// What the pattern asserts after a position, for the longest-match search.
    ends: EndChecks,
    /// The line terminator, before which `$` matches.
    eol: u8,
    /// The most bytes a match can span (None: unknown or unbounded).
    max_len: Option<u64>,
    /// `-P` with `\K` or an edge look-around: the part `-o` prints is this group.
    keep: Option<usize>,
    /// Warnings such as `* at start of expression`.
    pub warnings: Vec<String>,
    /// Some pattern has back-references: every pattern compiled for backtracking (`regex`
    /// ignores them), the leftmost-longest of their matches wins.
    backtrack: Vec<Backtrack>,
}

/// The name of the group that holds what `-o` prints for an emulated look-around.
const KEEP: &str = "corral_keep";

impl Matcher {
    /// The leftmost match at or after `at` in `hay` (the `regex` crate's preference).
    pub fn find_at(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        if !self.backtrack.is_empty() {
            return self.backtrack_at(hay, at);
        }
        let m = self.regex.as_ref()?.find_at(hay, at)?;
        Some((m.start(), m.end()))
    }

    /// The leftmost match at or after `at`, extended to the longest alternative there; with
    /// an emulated look-around, only the part outside the look-around.
    pub fn longest_at(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        if !self.backtrack.is_empty() {
            return self.backtrack_at(hay, at);
        }
        if let (Some(group), Some(regex)) = (self.keep, &self.regex) {
            let caps = regex.captures_at(hay, at)?;
            let m = caps.get(group)?;
            return Some((m.start(), m.end()));
        }
        let (start, mut end) = self.find_at(hay, at)?;
        for branch in &self.branches {
            if let Some(m) = branch.find_at(hay, start) {
                if m.start() == start && m.end() > end {
                    end = m.end();
                }
            }
        }
        if let Some(anchored) = &self.anchored_end {
            let eol = Some(self.eol);
            end = longest_end(anchored, hay, (start, end), self.max_len, |k| {
                self.ends.cut_ok(hay, k, eol)
            });
        }
        if let Some(safe) = &self.anchored_safe {
            let eol = Some(self.eol);
            end = longest_end(safe, hay, (start, end), self.max_len, |k| {
                !self.ends.cut_ok(hay, k, eol)
            });
        }
        Some((start, end))
    }

    /// The leftmost-longest match of the backtracking patterns at or after `at`, searched a
    /// line at a time: no match spans a line end, and each search has its own step budget
    /// (a whole buffer would spend it before reaching a match far into the file).
    fn backtrack_at(&self, hay: &[u8], at: usize) -> Option<(usize, usize)> {
        let mut start = at;
        loop {
            // No match starts before the relaxed pattern's first one (see `relaxed`).
            start = self.regex.as_ref()?.find_at(hay, start)?.start();
            let end = memchr(self.eol, &hay[start..]).map_or(hay.len(), |i| start + i);
            let found = self
                .backtrack
                .iter()
                .filter_map(|b| b.find_at(&hay[..end], start));
            let found = found.min_by_key(|&(s, e)| (s, std::cmp::Reverse(e)));
            if found.is_some() || end == hay.len() {
                return found;
            }
            start = end + 1;
        }
    }
}

/// Compiles `patterns` (each one line) under `spec`; the error is the message to print.
pub fn build(patterns: &[String], spec: MatchSpec) -> Result<Matcher, String> {
    if patterns.is_empty() {
        return Ok(Matcher::nothing(spec));
    }
    if spec.syntax == Syntax::Perl {
        return perl(patterns, spec);
    }
    let mut all = Combined {
        max_len: Some(0),
        ..Combined::default()
    };
    for pattern in patterns {
        let one = one_pattern(pattern, spec, &mut all.warnings)?;
        all.add(one);
    }
    if spec.syntax == Syntax::Fixed {
        // Longer strings first: the first alternative that matches is then the longest.
        crate::sort::sort_by_key(&mut all.parts, |p| std::cmp::Reverse(p.len()));
    }
    let joined = join(&all.parts);
    let mut backtrack = Vec::new();
    if all.backrefs {
        for part in &all.parts {
            let wrapped = wrap(part, spec);
            backtrack.push(Backtrack::new(&wrapped, spec.ignore_case, true, spec.eol)?);
        }
        // The backtracking search does all the matching; the fast engine only skips the
        // lines that cannot match.
        all.branches.clear();
        all.nested = false;
    }
    let regex = if all.backrefs {
        compile(&relaxed(&joined, Some(spec.eol)), spec)?
    } else {
        compile(&joined, spec)?
    };
    let longest = all.nested && !spec.word && !spec.line;
    let anchored_end = if longest {
        Some(compile(&format!("(?:{joined})\\z"), spec)?)
    } else {
        None
    };
    let anchored_safe = if longest && !all.ends.none() && !all.safe.is_empty() {
        Some(compile(&format!("(?:{})\\z", join(&all.safe)), spec)?)
    } else {
        None
    };
    let branches =
        if all.branches.len() > 1 && all.branches.len() <= MAX_GREP_BRANCHES && !spec.line {
            all.branches
                .iter()
                .map(|b| compile(b, spec))
                .collect::<Result<Vec<_>, _>>()?
        } else {
            Vec::new()
        };
    Ok(Matcher {
        regex: Some(regex),
        branches,
        anchored_end,
        anchored_safe,
        ends: all.ends,
        eol: spec.eol,
        max_len: all.max_len,
        keep: None,
        warnings: all.warnings,
        backtrack,
    })
}

/// The translated patterns, gathered for one combined regex.
#[derive(Default)]
struct Combined {
    /// Each pattern in `regex` syntax.
    parts: Vec<String>,
    /// Every top-level alternative of every pattern.
    branches: Vec<String>,
    /// The alternatives that assert nothing after their end.
    safe: Vec<String>,
    /// Some pattern has an alternation inside.
    nested: bool,
    /// What the patterns assert after a position.
    ends: EndChecks,
    /// The most bytes a match can span.
    max_len: Option<u64>,
    warnings: Vec<String>,
    /// Some pattern has back-references.
    backrefs: bool,
}

impl Combined {
    fn add(&mut self, one: OnePattern) {
        self.parts.push(one.whole);
        for (branch, checks) in one.branches.iter().zip(&one.branch_ends) {
            if checks.none() {
                self.safe.push(branch.clone());
            }
        }
        self.branches.extend(one.branches);
        self.max_len = self.max_len.zip(one.max_len).map(|(a, b)| a.max(b));
        self.nested |= one.alternation;
        self.backrefs |= one.backrefs;
        self.ends.line_end |= one.ends.line_end;
        self.ends.word |= one.ends.word;
    }
}

impl Matcher {
    /// No patterns at all: nothing matches.
    fn nothing(spec: MatchSpec) -> Self {
        Matcher {
            regex: None,
            branches: Vec::new(),
            anchored_end: None,
            anchored_safe: None,
            ends: EndChecks::default(),
            eol: spec.eol,
            max_len: None,
            keep: None,
            warnings: Vec::new(),
            backtrack: Vec::new(),
        }
    }
}

/// `-P`: one pattern in the `regex` crate's own syntax, with `\K`, a leading `(?<=...)` and a
/// trailing `(?=...)` emulated by matching them and printing only the rest.
fn perl(patterns: &[String], spec: MatchSpec) -> Result<Matcher, String> {
    let [pattern] = patterns else {
        return Err("the -P option only supports a single pattern".into());
    };
    let (pattern, keep) = match split_lookarounds(pattern) {
        Some((before, body, after)) => (format!("(?:{before})(?P<{KEEP}>{body})(?:{after})"), true),
        None => (pattern.clone(), false),
    };
    let regex = compile(&pattern, spec)?;
    let keep = if keep {
        regex.capture_names().position(|n| n == Some(KEEP))
    } else {
        None
    };
    Ok(Matcher {
        regex: Some(regex),
        keep,
        ..Matcher::nothing(spec)
    })
}

/// Splits a Perl pattern into (look-behind or text before `\K`, body, look-ahead) when it has
/// a top-level `\K`, starts with `(?<=...)` or ends with `(?=...)`.
fn split_lookarounds(pattern: &str) -> Option<(String, String, String)> {
    let groups = top_level(pattern);
    let mut body_start = 0;
    let mut before = String::new();
    if let Some(&(start, end)) = groups.first() {
        if start == 0 && pattern[start..].starts_with("(?<=") {
            before = pattern[4..end].to_string();
            body_start = end + 1;
        }
    }
    let mut body_end = pattern.len();
    let mut after = String::new();
    if let Some(&(start, end)) = groups.last() {
        if end + 1 == pattern.len() && start >= body_start && pattern[start..].starts_with("(?=") {
            after = pattern[start + 3..end].to_string();
            body_end = start;
        }
    }
    let mut body = pattern[body_start..body_end].to_string();
    if let Some(k) = top_level_k(&body) {
        before = format!("{before}(?:{})", &body[..k]);
        body = body[k + 2..].to_string();
    }
    let split = body_start > 0 || body_end < pattern.len() || !before.is_empty();
    split.then_some((before, body, after))
}

/// The (open, close) byte positions of the top-level groups of a Perl pattern.
fn top_level(pattern: &str) -> Vec<(usize, usize)> {
    let mut groups = Vec::new();
    let mut depth = 0usize;
    let mut open = 0;
    walk_perl(pattern, |at, c| match c {
        '(' => {
            if depth == 0 {
                open = at;
            }
            depth += 1;
        }
        ')' => {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                groups.push((open, at));
            }
        }
        _ => {}
    });
    groups
}

/// Where a top-level `\K` is.
fn top_level_k(pattern: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut found = None;
    walk_perl(pattern, |at, c| match c {
        '(' => depth += 1,
        ')' => depth = depth.saturating_sub(1),
        'K' if depth == 0 && found.is_none() => found = Some(at),
        _ => {}
    });
    found
}

/// Calls `f` with the syntax characters of a Perl pattern outside classes: `(`, `)`, and
/// `K` for an escaped `\K` (at the backslash's position).
fn walk_perl(pattern: &str, mut f: impl FnMut(usize, char)) {
    let bytes = pattern.as_bytes();
    let mut i = 0;
    let mut class = 0usize;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                if class == 0 && bytes.get(i + 1) == Some(&b'K') {
                    f(i, 'K');
                }
                i += 2;
                continue;
            }
            b'[' => class += 1,
            b']' if class > 0 => class -= 1,
            b'(' if class == 0 => f(i, '('),
            b')' if class == 0 => f(i, ')'),
            _ => {}
        }
        i += 1;
    }
}

fn join(parts: &[String]) -> String {
    if parts.len() == 1 {
        return parts[0].clone();
    }
    parts
        .iter()
        .map(|p| format!("(?:{p})"))
        .collect::<Vec<_>>()
        .join("|")
}

/// `pattern` wrapped for `-x` / `-w`.
fn wrap(pattern: &str, spec: MatchSpec) -> String {
    if spec.line {
        format!("^(?:{pattern})$")
    } else if spec.word {
        format!("\\b{{start-half}}(?:{pattern})\\b{{end-half}}")
    } else {
        pattern.to_string()
    }
}

/// Compiles one pattern with grep's flags, `-x` / `-w` wrapping and size limits.
fn compile(pattern: &str, spec: MatchSpec) -> Result<Regex, String> {
    crate::applets::common::regex::check_unrolled(pattern)?;
    RegexBuilder::new(&wrap(pattern, spec))
        .multi_line(true)
        .line_terminator(spec.eol)
        .case_insensitive(spec.ignore_case)
        .size_limit(1 << 28)
        .dfa_size_limit(1 << 28)
        .build()
        .map_err(|e| regex_error(&e))
}

/// One pattern in `regex` syntax.
struct OnePattern {
    whole: String,
    /// Its top-level alternatives.
    branches: Vec<String>,
    /// It has an alternation somewhere.
    alternation: bool,
    /// What it asserts about what follows a position.
    ends: EndChecks,
    /// The same for each of its branches.
    branch_ends: Vec<EndChecks>,
    /// The most bytes it can match.
    max_len: Option<u64>,
    /// It has back-references.
    backrefs: bool,
}

fn one_pattern(
    pattern: &str,
    spec: MatchSpec,
    warnings: &mut Vec<String>,
) -> Result<OnePattern, String> {
    let syntax = match spec.syntax {
        Syntax::Fixed | Syntax::Perl => {
            let p = if spec.syntax == Syntax::Fixed {
                regex::escape(pattern)
            } else {
                pattern.to_string()
            };
            return Ok(OnePattern {
                whole: p.clone(),
                branches: vec![p],
                alternation: false,
                ends: EndChecks::default(),
                branch_ends: vec![EndChecks::default()],
                max_len: None,
                backrefs: false,
            });
        }
        Syntax::Basic => Posix::Basic,
        Syntax::Extended => Posix::Extended,
    };
    let dialect = Dialect {
        exclude: Some(char::from(spec.eol)),
        ..Dialect::new(syntax, Tool::Grep)
    };
    let t = translate(pattern, dialect)?;
    warnings.extend(t.warnings);
    Ok(OnePattern {
        whole: t.pattern,
        branches: t.branches,
        alternation: t.alternation,
        ends: t.ends,
        branch_ends: t.branch_ends,
        max_len: t.max_len,
        backrefs: t.backrefs,
    })
}
