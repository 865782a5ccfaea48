//! sed's regular expressions: POSIX BRE/ERE (translated by grep's `posix` module) compiled
//! for a pattern space where `.` matches a newline, with the `I` and `M` flags, and POSIX's
//! preference for the longest match among alternatives.

use regex::bytes::{Regex, RegexBuilder};

use crate::applets::grep::matcher::longest_end;
use crate::applets::grep::posix::{translate, Dialect, EndChecks};

/// A compiled sed regular expression.
pub struct SedRegex {
    regex: Regex,
    /// The pattern anchored at the end of the haystack, when it has alternatives: used to
    /// find the longest match starting where the leftmost-first one starts.
    anchored_end: Option<Regex>,
    /// The alternatives without an assertion after their end, anchored the same way: tried
    /// at the ends where the whole pattern cannot be.
    anchored_safe: Option<Regex>,
    /// What the pattern asserts after a position (for the longest-match search).
    ends: EndChecks,
    /// The most bytes a match can span, if known.
    max_len: Option<u64>,
    /// `M`: `$` also matches before a newline.
    multiline: bool,
    /// Capturing groups, for checking `\N` references.
    pub groups: usize,
}

/// Match positions: group 0 is the whole match.
pub type Spans = Vec<Option<(usize, usize)>>;

impl SedRegex {
    /// Compiles POSIX pattern `src` with the `I` (ignore case) and `M` (multi-line) flags.
    pub fn new(src: &str, extended: bool, icase: bool, multiline: bool) -> Result<Self, String> {
        let dialect = Dialect {
            extended,
            sed: true,
            exclude: None,
        };
        let t = translate(src, dialect)?;
        let build = |pattern: &str| {
            RegexBuilder::new(pattern)
                .dot_matches_new_line(true)
                .multi_line(multiline)
                .case_insensitive(icase)
                .size_limit(1 << 26)
                .dfa_size_limit(1 << 26)
                .build()
                .map_err(|e| first_line(&e.to_string()))
        };
        let regex = build(&t.pattern)?;
        let anchored_end = if t.alternation {
            Some(build(&format!("(?:{})\\z", t.pattern))?)
        } else {
            None
        };
        let safe: Vec<&str> = t
            .branches
            .iter()
            .zip(&t.branch_ends)
            .filter(|(_, ends)| ends.none())
            .map(|(b, _)| b.as_str())
            .collect();
        let anchored_safe = if t.alternation && !t.ends.none() && !safe.is_empty() {
            Some(build(&format!("(?:{})\\z", safe.join("|")))?)
        } else {
            None
        };
        Ok(SedRegex {
            regex,
            anchored_end,
            anchored_safe,
            ends: t.ends,
            max_len: t.max_len,
            multiline,
            groups: t.groups,
        })
    }

    /// Whether `text` contains a match.
    pub fn is_match(&self, text: &[u8]) -> bool {
        self.regex.is_match(text)
    }

    /// The leftmost (then longest) match at or after `at`, without its groups (faster).
    pub fn find_at(&self, text: &[u8], at: usize) -> Option<(usize, usize)> {
        let m = self.regex.find_at(text, at)?;
        let (start, end) = (m.start(), m.end());
        match &self.anchored_end {
            Some(anchored) => Some((start, self.longest(anchored, text, start, end))),
            None => Some((start, end)),
        }
    }

    /// The leftmost (then longest) match at or after `at`, with its groups.
    pub fn captures_at(&self, text: &[u8], at: usize) -> Option<Spans> {
        let caps = self.regex.captures_at(text, at)?;
        let whole = caps.get(0)?;
        let (start, end) = (whole.start(), whole.end());
        if let Some(anchored) = &self.anchored_end {
            let longest = self.longest(anchored, text, start, end);
            if longest > end {
                let caps = anchored.captures_at(&text[..longest], start)?;
                return Some(spans(&caps));
            }
        }
        Some(spans(&caps))
    }
}

impl SedRegex {
    fn longest(&self, anchored: &Regex, text: &[u8], start: usize, end: usize) -> usize {
        let eol = self.multiline.then_some(b'\n');
        let end = longest_end(anchored, text, (start, end), self.max_len, |k| {
            self.ends.cut_ok(text, k, eol)
        });
        match &self.anchored_safe {
            Some(safe) => longest_end(safe, text, (start, end), self.max_len, |k| {
                !self.ends.cut_ok(text, k, eol)
            }),
            None => end,
        }
    }
}

fn spans(caps: &regex::bytes::Captures<'_>) -> Spans {
    caps.iter()
        .map(|m| m.map(|m| (m.start(), m.end())))
        .collect()
}

fn first_line(text: &str) -> String {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("invalid regular expression")
        .trim_start_matches("error: ")
        .to_string()
}
