//! A translated pattern compiled for sed, awk, expr, find and `[[ =~ ]]`: `.` matches a
//! newline, and of the matches starting leftmost the longest wins, as POSIX wants (the
//! `regex` crate prefers the first alternative: `ab|abcd` on `abcd` finds `ab`).

use regex::bytes::{Captures, Regex, RegexBuilder};
use regex_syntax::hir::{Hir, HirKind};
use regex_syntax::ParserBuilder;

use super::backtrack::Backtrack;
use super::{relaxed, translate, Dialect, EndChecks, Translation};
use crate::limits::MAX_REGEX_UNROLLED;

/// How a pattern matches beyond its text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// Letters match either case.
    pub icase: bool,
    /// `^` and `$` also match after and before a newline (sed's `M`).
    pub multiline: bool,
}

/// Largest compiled program accepted (bounds memory on hostile patterns).
const SIZE_LIMIT: usize = 1 << 26;

/// A compiled POSIX regular expression.
#[derive(Debug)]
pub struct Posix {
    regex: Regex,
    /// Each top-level alternative anchored at the start, when there are several, none nests
    /// another alternation and nothing asserts about its surroundings: the longest of their
    /// matches where the leftmost match starts is the POSIX match.
    alts: Vec<Regex>,
    /// The pattern anchored at the end of the haystack, when it has alternatives: gives the
    /// groups of a longer match, and finds one where `alts` cannot (`scan`).
    anchored_end: Option<Regex>,
    /// Find longer matches by trying each end with `anchored_end` (nested alternations).
    scan: bool,
    /// The alternatives without an assertion after their end, anchored the same way: tried
    /// at the ends where the whole pattern cannot be.
    anchored_safe: Option<Regex>,
    /// What the pattern asserts after a position (for the longest-match search).
    ends: EndChecks,
    /// The most bytes a match can span, if known.
    max_len: Option<u64>,
    /// `^` and `$` also match at newlines.
    multiline: bool,
    /// Capturing groups, for checking `\N` references.
    pub groups: usize,
    /// The pattern has back-references: this matches it (`regex` above ignores them), from
    /// where the relaxed pattern (each back-reference relaxed to any text), if it compiled,
    /// matches.
    backtrack: Option<Box<(Backtrack, Option<Regex>)>>,
}

/// Match positions: group 0 is the whole match.
pub type Spans = Vec<Option<(usize, usize)>>;

impl Posix {
    /// Translates and compiles `src`; the error is glibc's message (or the `regex` crate's).
    pub fn new(src: &str, dialect: Dialect, flags: Flags) -> Result<Self, String> {
        Posix::compile(&translate(src, dialect)?, flags)
    }

    /// Compiles a translated pattern.
    pub fn compile(t: &Translation, flags: Flags) -> Result<Self, String> {
        let build = |pattern: &str| {
            RegexBuilder::new(pattern)
                .dot_matches_new_line(true)
                .multi_line(flags.multiline)
                .case_insensitive(flags.icase)
                .size_limit(SIZE_LIMIT)
                .dfa_size_limit(SIZE_LIMIT)
                .build()
                .map_err(|e| regex_error(&e))
        };
        check_unrolled(&t.pattern)?;
        let regex = build(&t.pattern)?;
        let backtrack = if t.backrefs {
            let b = Backtrack::new(&t.pattern, flags.icase, flags.multiline, b'\n')?;
            Some(Box::new((b, build(&relaxed(&t.pattern, None)).ok())))
        } else {
            None
        };
        let nested = t.branches.iter().any(|b| b.contains('|'));
        let mut alts = Vec::new();
        if t.alternation && !nested && !t.asserts {
            for alt in &t.branches {
                alts.push(build(&format!("\\A(?:{alt})"))?);
            }
        }
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
        let scan = t.alternation && alts.is_empty();
        let anchored_safe = if scan && !t.ends.none() && !safe.is_empty() {
            Some(build(&format!("(?:{})\\z", safe.join("|")))?)
        } else {
            None
        };
        Ok(Posix {
            regex,
            alts,
            anchored_end,
            scan,
            anchored_safe,
            ends: t.ends,
            max_len: t.max_len,
            multiline: flags.multiline,
            groups: t.groups,
            backtrack,
        })
    }

    /// Whether `text` contains a match.
    pub fn is_match(&self, text: &[u8]) -> bool {
        match &self.backtrack {
            Some(_) => self.find_at(text, 0).is_some(),
            None => self.regex.is_match(text),
        }
    }

    /// The leftmost (then longest) match at or after `at`, without its groups (faster).
    pub fn find_at(&self, text: &[u8], at: usize) -> Option<(usize, usize)> {
        if self.backtrack.is_some() {
            return self.spans_at(text, at).and_then(|spans| spans[0]);
        }
        let m = self.regex.find_at(text, at)?;
        Some((m.start(), self.longest(text, m.start(), m.end())))
    }

    /// The groups of the leftmost (then longest) match at or after `at`; never for a
    /// pattern with back-references (awk's, which cannot have them): use
    /// [`Posix::spans_at`].
    pub fn captures_at<'t>(&self, text: &'t [u8], at: usize) -> Option<Captures<'t>> {
        let caps = self.regex.captures_at(text, at)?;
        let (start, end) = caps.get(0).map(|m| (m.start(), m.end()))?;
        let longest = self.longest(text, start, end);
        if longest == end {
            return Some(caps);
        }
        let anchored = self.anchored_end.as_ref()?;
        anchored
            .captures_at(&text[..longest], start)
            .filter(|c| c.get(0).is_some_and(|m| m.start() == start))
            .or(Some(caps))
    }

    /// [`Posix::captures_at`] as positions.
    pub fn spans_at(&self, text: &[u8], at: usize) -> Option<Spans> {
        if let Some((b, relaxed)) = self.backtrack.as_deref() {
            // No match starts before the relaxed pattern's first one.
            let start = match relaxed {
                Some(relaxed) => relaxed.find_at(text, at)?.start(),
                None => at,
            };
            return b.spans_at(text, start);
        }
        let caps = self.captures_at(text, at)?;
        Some(
            caps.iter()
                .map(|m| m.map(|m| (m.start(), m.end())))
                .collect(),
        )
    }

    /// The end of the longest match starting at `start`, given one that ends at `end`.
    fn longest(&self, text: &[u8], start: usize, end: usize) -> usize {
        if !self.alts.is_empty() {
            return self
                .alts
                .iter()
                .filter_map(|alt| alt.find(&text[start..]).map(|m| start + m.end()))
                .fold(end, usize::max);
        }
        let Some(anchored) = self.anchored_end.as_ref().filter(|_| self.scan) else {
            return end;
        };
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

/// A regex that matches only a whole text (find's `-regex`, matched against the whole path):
/// no longest-match search is needed.
pub fn whole_match(t: &Translation, flags: Flags) -> Result<Regex, String> {
    RegexBuilder::new(&format!("\\A(?:{})\\z", t.pattern))
        .dot_matches_new_line(true)
        .case_insensitive(flags.icase)
        .size_limit(SIZE_LIMIT)
        .build()
        .map_err(|e| regex_error(&e))
}

/// The end of the longest match starting at `start` (at least `end`), trying ends up to
/// [`LONGEST_WINDOW`] bytes from the start with `anchored` (the pattern followed by `\z`).
/// Ends where `testable` is false are skipped (the cut text would not tell the truth there).
/// `max_len` (the most a match can span, if known) narrows the search or skips it.
pub fn longest_end(
    anchored: &Regex,
    text: &[u8],
    (start, end): (usize, usize),
    max_len: Option<u64>,
    testable: impl Fn(usize) -> bool,
) -> usize {
    let window = max_len.map_or(LONGEST_WINDOW, |m| {
        usize::try_from(m).unwrap_or(usize::MAX).min(LONGEST_WINDOW)
    });
    let limit = text.len().min(start.saturating_add(window));
    let mut best = end;
    for k in end + 1..=limit {
        if testable(k)
            && anchored
                .find_at(&text[..k], start)
                .is_some_and(|m| m.start() == start)
        {
            best = k;
        }
    }
    best
}

/// How far past a match's start a longer alternative is looked for (the search is
/// quadratic in this).
pub const LONGEST_WINDOW: usize = 256;

/// Refuses a pattern whose counted repetitions unroll past [`MAX_REGEX_UNROLLED`] pieces
/// (`a{1000}{1000}`), as `regular expression is too big`: the `regex` crate unrolls them while
/// it compiles, which took seconds without a look at the deadline before its size limit
/// refused them (GNU's grep runs on for minutes). A pattern that does not parse is left to
/// the compiler's own message.
pub fn check_unrolled(pattern: &str) -> Result<(), String> {
    fn pieces(hir: &Hir) -> u64 {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) | HirKind::Class(_) => 1,
            HirKind::Literal(l) => l.0.len() as u64,
            HirKind::Capture(c) => pieces(&c.sub),
            HirKind::Repetition(r) => {
                pieces(&r.sub).saturating_mul(u64::from(r.max.unwrap_or(r.min).max(1)))
            }
            HirKind::Concat(all) | HirKind::Alternation(all) => {
                all.iter().map(pieces).fold(0, u64::saturating_add)
            }
        }
    }
    let hir = ParserBuilder::new().utf8(false).build().parse(pattern);
    match hir.map(|h| pieces(&h)) {
        Ok(n) if n > MAX_REGEX_UNROLLED => Err("regular expression is too big".into()),
        _ => Ok(()),
    }
}

/// The `regex` crate's error, on one line.
pub fn regex_error(e: &regex::Error) -> String {
    match e {
        regex::Error::CompiledTooBig(_) => "regular expression is too big".into(),
        _ => {
            let text = e.to_string();
            let last = text
                .lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("invalid regular expression");
            last.trim_start_matches("error: ").to_string()
        }
    }
}
