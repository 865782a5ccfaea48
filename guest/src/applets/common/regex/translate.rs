//! The translation itself: one pass over the pattern that writes `regex` crate syntax.
//!
//! It keeps capture-group numbering (only `\(` / `(` open capturing groups; every group
//! added here is `(?:...)`), reports errors with glibc's messages (`Unmatched ( or \(`), and
//! collects GNU grep's warnings (`* at start of expression`). Back-references cannot be
//! expressed in the `regex` crate: each `\N` becomes a group named `bN_K`, which
//! [`super::backtrack`] matches (find's and awk's patterns refuse them).

use super::{escape_byte, Dialect, Syntax, Tool};

/// A translated pattern.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Translation {
    /// The pattern in `regex` crate syntax (flags such as `(?i)` are the caller's).
    pub pattern: String,
    /// How many capturing groups it has.
    pub groups: usize,
    /// The top-level alternatives of `pattern` (one entry when there is no top-level `|`):
    /// POSIX prefers the longest of them where the `regex` crate takes the first.
    pub branches: Vec<String>,
    /// Whether it has any alternation (`|`), at any depth.
    pub alternation: bool,
    /// Whether it has any assertion (`^`, `$`, `\b`, `\<`...), anywhere.
    pub asserts: bool,
    /// What follows a match's end matters to it (a `$`, `\b`, `\>`... not at the start):
    /// testing it on a text cut at that end needs care (see [`Translation::cut_ok`]).
    pub ends: EndChecks,
    /// The same, for each of `branches`.
    pub branch_ends: Vec<EndChecks>,
    /// The most bytes a match can span (None: no limit): a match this long cannot be
    /// extended, so the longest-alternative search can be skipped.
    pub max_len: Option<u64>,
    /// GNU-style warnings (`* at start of expression`), without the tool's name.
    pub warnings: Vec<String>,
    /// It has back-references: only [`super::backtrack`] matches it correctly.
    pub backrefs: bool,
}

/// Maximum match lengths in a group: over its finished alternatives, and of the current one.
#[derive(Clone, Copy, Debug)]
struct Lengths {
    best: Option<u64>,
    seq: Option<u64>,
}

impl Default for Lengths {
    fn default() -> Self {
        Lengths {
            best: Some(0),
            seq: Some(0),
        }
    }
}

impl Lengths {
    fn total(&self) -> Option<u64> {
        max(self.best, self.seq)
    }
}

/// Sum of two maximum lengths (None: unbounded).
fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    a?.checked_add(b?)
}

fn max(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    Some(a?.max(b?))
}

/// Which assertions a pattern makes about the text after a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndChecks {
    /// `$` (or `\'`).
    pub line_end: bool,
    /// `\b`, `\B`, `\<`, `\>`.
    pub word: bool,
}

impl EndChecks {
    /// Whether there is nothing to check.
    pub fn none(&self) -> bool {
        !self.line_end && !self.word
    }

    /// Whether matching on `text[..k]` (to find a match ending at `k`) gives the answer
    /// the whole text would: the cut only changes what assertions see at `k`, and `eol`
    /// (the byte `$` matches before, if any) tells where `$` can really match.
    pub fn cut_ok(&self, text: &[u8], k: usize, eol: Option<u8>) -> bool {
        let Some(&next) = text.get(k) else {
            return true;
        };
        if self.line_end && Some(next) != eol {
            return false;
        }
        !self.word || !is_word_start(&text[k..])
    }
}

/// Whether the character starting `text` is a word character.
fn is_word_start(text: &[u8]) -> bool {
    let n = text.len().min(4);
    let head = (1..=n).find_map(|len| std::str::from_utf8(&text[..len]).ok());
    head.and_then(|s| s.chars().next())
        .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// The message for an unsupported back-reference.
pub const BACKREF_UNSUPPORTED: &str = "back-references (\\1..\\9) in a regular expression are not supported here; match the text explicitly or use a second pass";

/// Translates POSIX pattern `src` in `dialect`; the error is glibc's message.
pub fn translate(src: &str, dialect: Dialect) -> Result<Translation, String> {
    let chars: Vec<(char, bool)> = src.chars().map(|c| (c, false)).collect();
    translate_marked(&chars, dialect)
}

/// Translates a pattern given as bytes (awk's): a byte that is not part of UTF-8 text
/// matches itself.
pub fn translate_bytes(src: &[u8], dialect: Dialect) -> Result<Translation, String> {
    let mut chars = Vec::with_capacity(src.len());
    for chunk in src.utf8_chunks() {
        chars.extend(chunk.valid().chars().map(|c| (c, false)));
        chars.extend(chunk.invalid().iter().map(|&b| (byte_char(b), false)));
    }
    translate_marked(&chars, dialect)
}

/// Translates a pattern whose characters marked `true` are literal (quoted in the shell).
pub fn translate_marked(src: &[(char, bool)], dialect: Dialect) -> Result<Translation, String> {
    let mut t = Translator {
        chars: src.iter().map(|p| p.0).collect(),
        quoted: src.iter().map(|p| p.1).collect(),
        i: 0,
        dialect,
        out: String::with_capacity(src.len() + 8),
        asserts: false,
        atom: 0,
        last: Last::Start,
        anchor_at_start: false,
        open: Vec::new(),
        groups: 0,
        splits: Vec::new(),
        alternation: false,
        ends: EndChecks::default(),
        branch_ends: vec![EndChecks::default()],
        lens: vec![Lengths::default()],
        last_len: Some(0),
        leading: true,
        warnings: Vec::new(),
        backrefs: false,
    };
    t.run()?;
    let mut branches = Vec::with_capacity(t.splits.len() + 1);
    let mut from = 0;
    for &at in &t.splits {
        branches.push(t.out[from..at].to_string());
        from = at + 1;
    }
    branches.push(t.out[from..].to_string());
    Ok(Translation {
        pattern: t.out,
        groups: t.groups,
        branches,
        alternation: t.alternation,
        asserts: t.asserts,
        ends: t.ends,
        branch_ends: t.branch_ends,
        max_len: t.lens.first().and_then(Lengths::total),
        warnings: t.warnings,
        backrefs: t.backrefs,
    })
}

/// What was emitted last: decides whether `*` is a quantifier and `^` an anchor.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Last {
    /// The start of the pattern.
    Start,
    /// Just after an opening group.
    Open,
    /// Just after an alternation bar.
    Alt,
    /// An anchor (`^`, `$`, `\b`...).
    Anchor,
    /// An atom (literal, class, group).
    Atom,
    /// A quantifier.
    Quant,
}

struct Translator {
    chars: Vec<char>,
    /// Which of `chars` are literal whatever they are.
    quoted: Vec<bool>,
    i: usize,
    dialect: Dialect,
    out: String,
    /// An assertion was emitted.
    asserts: bool,
    /// Where in `out` the last atom (what a quantifier applies to) starts.
    atom: usize,
    last: Last,
    /// The last anchor began an expression (`^*` warns like `*` at the start).
    anchor_at_start: bool,
    /// `out` positions and group numbers of the open groups.
    open: Vec<usize>,
    groups: usize,
    /// Positions in `out` of top-level `|`.
    splits: Vec<usize>,
    alternation: bool,
    ends: EndChecks,
    branch_ends: Vec<EndChecks>,
    /// Maximum match lengths of the open groups (the first is the whole pattern).
    lens: Vec<Lengths>,
    /// The maximum length of the last atom (what a quantifier multiplies).
    last_len: Option<u64>,
    /// Only anchors so far in this top-level alternative: they look at its start only.
    leading: bool,
    warnings: Vec<String>,
    /// A back-reference was written.
    backrefs: bool,
}

const UNMATCHED_BRACKET: &str = "Unmatched [, [^, [:, [., or [=";
const UNMATCHED_OPEN: &str = "Unmatched ( or \\(";
const UNMATCHED_CLOSE: &str = "Unmatched ) or \\)";
const BAD_INTERVAL: &str = "Invalid content of \\{\\}";
const BAD_PRECEDING: &str = "Invalid preceding regular expression";
/// Where [`byte_char`] puts the bytes that are not UTF-8 text.
const BYTE_BASE: u32 = 0x10_ff00;
/// glibc's RE_DUP_MAX.
const DUP_MAX: u32 = 0x7fff;

impl Translator {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.chars.get(self.i + k).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    /// ERE: `( ) | { }` unescaped, anchors anywhere.
    fn ere(&self) -> bool {
        self.dialect.syntax == Syntax::Extended
    }

    /// `+` and `?` are operators without a backslash (ERE and Emacs).
    fn plain_ops(&self) -> bool {
        self.dialect.syntax != Syntax::Basic
    }

    fn awk(&self) -> bool {
        self.dialect.tool == Tool::Awk
    }

    fn run(&mut self) -> Result<(), String> {
        while let Some(c) = self.next() {
            if self.quoted[self.i - 1] {
                self.literal_char(c);
                continue;
            }
            match c {
                '\\' => self.escape()?,
                '[' => self.bracket()?,
                '.' => self.atom_str("."),
                '*' => self.star()?,
                '^' => self.caret(),
                '$' => self.dollar(),
                '(' if self.ere() => self.open_group(),
                ')' if self.ere() && (!self.open.is_empty() || self.dialect.tool == Tool::Sed) => {
                    self.close_group()?
                }
                '|' if self.ere() => self.alternate(),
                '+' | '?' if self.plain_ops() => self.ere_quantifier(c)?,
                '{' if self.ere() && self.dialect.intervals => self.ere_brace()?,
                c => self.literal_char(c),
            }
        }
        if !self.open.is_empty() {
            return Err(UNMATCHED_OPEN.into());
        }
        Ok(())
    }

    /// Emits an atom: something a following quantifier applies to. It matches one
    /// character (up to 4 bytes) unless [`Translator::literal_char`] says less.
    fn atom_str(&mut self, text: &str) {
        self.add_len(Some(4));
        self.leading = false;
        self.atom = self.out.len();
        self.out.push_str(text);
        self.last = Last::Atom;
    }

    fn anchor(&mut self, text: &str) {
        self.asserts = true;
        if !self.leading {
            match text {
                "^" | "\\A" => {}
                "$" | "\\z" => self.ends.line_end = true,
                _ => self.ends.word = true,
            }
            if let Some(branch) = self.branch_ends.last_mut() {
                branch.line_end |= self.ends.line_end && matches!(text, "$" | "\\z");
                branch.word |= !matches!(text, "^" | "\\A" | "$" | "\\z");
            }
        }
        self.anchor_at_start = self.at_start();
        self.atom = self.out.len();
        self.out.push_str(text);
        self.last = Last::Anchor;
        self.last_len = Some(0);
    }

    fn literal_char(&mut self, c: char) {
        if let Some(b) = char_byte(c) {
            self.atom_str(&format!("(?-u:\\x{b:02x})"));
            self.replace_last_len(Some(1));
            return;
        }
        let mut buf = [0u8; 4];
        let escaped = regex::escape(c.encode_utf8(&mut buf));
        self.atom_str(&escaped);
        self.replace_last_len(Some(c.len_utf8() as u64));
    }

    /// Counts an atom of at most `len` bytes into the current sequence.
    fn add_len(&mut self, len: Option<u64>) {
        if let Some(frame) = self.lens.last_mut() {
            frame.seq = add(frame.seq, len);
        }
        self.last_len = len;
    }

    /// The last atom matches at most `len` bytes after all (a quantifier, a literal).
    fn replace_last_len(&mut self, len: Option<u64>) {
        let last = self.last_len;
        if let Some(frame) = self.lens.last_mut() {
            frame.seq = match (frame.seq, last) {
                (Some(seq), Some(last)) => add(Some(seq - last), len),
                _ => None,
            };
        }
        self.last_len = len;
    }

    fn at_start(&self) -> bool {
        matches!(self.last, Last::Start | Last::Open | Last::Alt)
    }

    /// Applies quantifier `q` to the last atom; a quantified atom is grouped first, since
    /// POSIX `a**` is `(a*)*` while the `regex` crate rejects it (or reads `*?` as lazy).
    fn quantify(&mut self, q: &str) {
        if matches!(self.last, Last::Quant | Last::Anchor) {
            self.out.insert_str(self.atom, "(?:");
            self.out.push(')');
        }
        self.out.push_str(q);
        self.last = Last::Quant;
        let times = match q {
            "?" => Some(1),
            "*" | "+" => None,
            _ => q
                .trim_matches(|c| c == '{' || c == '}')
                .rsplit(',')
                .next()
                .and_then(|n| n.parse::<u64>().ok()),
        };
        let len = match (self.last_len, times) {
            (Some(0), _) => Some(0),
            (Some(len), Some(times)) => len.checked_mul(times),
            _ => None,
        };
        self.replace_last_len(len);
    }

    /// A strict BRE (sed's) refuses `*` or an interval right after another quantifier.
    fn check_repeat(&self) -> Result<(), String> {
        if self.dialect.strict() && self.dialect.syntax == Syntax::Basic && self.last == Last::Quant
        {
            return Err(BAD_PRECEDING.into());
        }
        Ok(())
    }

    /// Whether an operator here has nothing to repeat: at the start of an expression, or
    /// after an anchor that starts one (after any anchor, for awk and outside ERE).
    fn nothing_to_repeat(&self) -> bool {
        let after_anchor = self.last == Last::Anchor;
        self.at_start() || (after_anchor && (self.anchor_at_start || self.awk() || !self.ere()))
    }

    /// An ERE operator `c` with nothing to repeat: literal for awk, an error for the strict
    /// tools, skipped with a warning by grep (true: the operator is done with).
    fn misplaced(&mut self, c: char) -> Result<bool, String> {
        if self.awk() {
            self.literal_char(c);
            return Ok(true);
        }
        if self.dialect.strict() {
            return Err(BAD_PRECEDING.into());
        }
        let what = if c == '{' { "{...}" } else { &c.to_string() };
        self.warnings.push(format!("{what} at start of expression"));
        Ok(self.at_start())
    }

    fn star(&mut self) -> Result<(), String> {
        if self.nothing_to_repeat() {
            if !self.ere() {
                self.literal_char('*');
                return Ok(());
            }
            if self.misplaced('*')? {
                return Ok(());
            }
        }
        self.check_repeat()?;
        self.quantify("*");
        Ok(())
    }

    /// Unescaped `+` or `?` (ERE, Emacs).
    fn ere_quantifier(&mut self, c: char) -> Result<(), String> {
        if self.nothing_to_repeat() {
            if !self.ere() {
                self.literal_char(c);
                return Ok(());
            }
            if self.misplaced(c)? {
                return Ok(());
            }
        }
        let mut buf = [0u8; 4];
        self.quantify(c.encode_utf8(&mut buf));
        Ok(())
    }

    fn caret(&mut self) {
        if self.ere() || self.at_start() {
            self.anchor("^");
        } else {
            self.literal_char('^');
        }
    }

    fn dollar(&mut self) {
        let at_end = match self.peek() {
            None => true,
            Some('\\') => matches!(self.peek_at(1), Some(')') | Some('|')),
            _ => false,
        };
        if self.ere() || at_end {
            self.anchor("$");
        } else {
            self.literal_char('$');
        }
    }

    fn open_group(&mut self) {
        self.leading = false;
        self.open.push(self.out.len());
        self.groups += 1;
        self.out.push('(');
        self.last = Last::Open;
        self.lens.push(Lengths::default());
    }

    fn close_group(&mut self) -> Result<(), String> {
        let start = self.open.pop().ok_or(UNMATCHED_CLOSE)?;
        self.out.push(')');
        self.atom = start;
        self.last = Last::Atom;
        let len = self.lens.pop().and_then(|frame| frame.total());
        self.add_len(len);
        Ok(())
    }

    fn alternate(&mut self) {
        self.alternation = true;
        if self.open.is_empty() {
            self.splits.push(self.out.len());
            self.branch_ends.push(EndChecks::default());
            self.leading = true;
        }
        self.out.push('|');
        self.last = Last::Alt;
        if let Some(frame) = self.lens.last_mut() {
            frame.best = max(frame.best, frame.seq);
            frame.seq = Some(0);
        }
    }

    /// ERE `{`: an interval when one follows, otherwise a literal brace (as GNU does).
    /// ERE `{`: an interval when one follows; otherwise a literal brace for grep and awk
    /// (as GNU's do), an error for the strict tools.
    fn ere_brace(&mut self) -> Result<(), String> {
        let save = self.i;
        if self.nothing_to_repeat() && self.dialect.strict() {
            return Err(BAD_PRECEDING.into());
        }
        match self.interval("}")? {
            Some(_) if self.nothing_to_repeat() && self.awk() => {
                self.i = save;
                self.literal_char('{');
            }
            Some(q) if self.nothing_to_repeat() => {
                if !self.misplaced('{')? {
                    self.quantify(&q);
                }
            }
            Some(q) => self.quantify(&q),
            None if self.dialect.strict() => {
                self.i = save;
                return Err(self.interval_error("}"));
            }
            None => {
                self.i = save;
                self.literal_char('{');
            }
        }
        Ok(())
    }

    /// BRE `\{`: an interval, or an error when malformed.
    fn bre_brace(&mut self) -> Result<(), String> {
        if self.at_start() {
            if self.dialect.strict() {
                return Err(BAD_PRECEDING.into());
            }
            self.literal_char('{');
            return Ok(());
        }
        match self.interval("\\}")? {
            Some(q) => {
                self.check_repeat()?;
                self.quantify(&q);
                Ok(())
            }
            None => Err(self.interval_error("\\}")),
        }
    }

    /// Why an interval failed: no closing `close` at all, or bad content.
    fn interval_error(&self, close: &str) -> String {
        let rest: String = self.chars[self.i..].iter().collect();
        if rest.contains(close) {
            BAD_INTERVAL.into()
        } else {
            "Unmatched \\{".into()
        }
    }

    /// Parses `m`, `m,`, `,n` or `m,n` and the closing `close`; None when it is not one.
    fn interval(&mut self, close: &str) -> Result<Option<String>, String> {
        let min = self.number();
        let comma = self.peek() == Some(',');
        if comma {
            self.i += 1;
        }
        let max = if comma { self.number() } else { min };
        if min.is_none() && (!comma || max.is_none() && !self.ere()) {
            return Ok(None);
        }
        for expected in close.chars() {
            if self.next() != Some(expected) {
                return Ok(None);
            }
        }
        let lo = min.unwrap_or(0);
        if max.is_some_and(|hi| hi < lo) {
            return Err(BAD_INTERVAL.into());
        }
        if lo > DUP_MAX || max.is_some_and(|hi| hi > DUP_MAX) {
            return Err("Regular expression too big".into());
        }
        Ok(Some(match (comma, max) {
            (false, _) => format!("{{{lo}}}"),
            (true, None) => format!("{{{lo},}}"),
            (true, Some(hi)) => format!("{{{lo},{hi}}}"),
        }))
    }

    fn number(&mut self) -> Option<u32> {
        let start = self.i;
        let mut value: u32 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            value = value.saturating_mul(10).saturating_add(d);
            self.i += 1;
        }
        (self.i > start).then_some(value)
    }

    fn escape(&mut self) -> Result<(), String> {
        let Some(c) = self.next() else {
            if self.awk() {
                self.literal_char('\\');
                return Ok(());
            }
            return Err("Trailing backslash".into());
        };
        if self.awk() {
            self.awk_escape(c);
            return Ok(());
        }
        let basic = self.dialect.syntax == Syntax::Basic;
        match c {
            '(' if !self.ere() => self.open_group(),
            ')' if !self.ere() => self.close_group()?,
            '|' if !self.ere() => self.alternate(),
            '{' if basic && self.dialect.intervals => self.bre_brace()?,
            '+' | '?' if basic => {
                if self.at_start() {
                    self.literal_char(c);
                } else {
                    let mut buf = [0u8; 4];
                    self.quantify(c.encode_utf8(&mut buf));
                }
            }
            '1'..='9' => self.backref(c)?,
            'w' => self.atom_str("\\w"),
            'S' => self.atom_str("\\S"),
            'W' => self.atom_str(&self.excluding("\\W")),
            's' => self.atom_str(&self.excluding("\\s")),
            'b' => self.anchor("\\b"),
            'B' => self.anchor("\\B"),
            '<' => self.anchor("\\b{start}"),
            '>' => self.anchor("\\b{end}"),
            '`' => self.anchor(if self.dialect.exclude.is_some() {
                "^"
            } else {
                "\\A"
            }),
            '\'' => self.anchor(if self.dialect.exclude.is_some() {
                "$"
            } else {
                "\\z"
            }),
            _ if self.dialect.tool == Tool::Sed => self.sed_escape(c)?,
            c => self.literal_char(c),
        }
        Ok(())
    }

    /// Awk's escapes: those of its strings (`\/`, `\t`, octal...), then gawk's regex
    /// operators (`\y` is a word boundary); any other character stands for itself.
    fn awk_escape(&mut self, c: char) {
        if let Some(b) = self.awk_escape_byte() {
            self.literal_char(byte_char(b));
            return;
        }
        match c {
            'y' => self.anchor("\\b"),
            'B' => self.anchor("\\B"),
            '<' => self.anchor("\\b{start}"),
            '>' => self.anchor("\\b{end}"),
            '`' => self.anchor("\\A"),
            '\'' => self.anchor("\\z"),
            's' => self.atom_str("\\s"),
            'S' => self.atom_str("\\S"),
            'w' => self.atom_str("\\w"),
            'W' => self.atom_str("\\W"),
            c => self.literal_char(c),
        }
    }

    /// The byte of a string-style escape whose letter was just read, consuming the rest.
    fn awk_escape_byte(&mut self) -> Option<u8> {
        let mut buf = [0u8; 4];
        let text = self.chars[self.i - 1..].iter().take(4);
        let n = text
            .take_while(|c| c.is_ascii())
            .zip(buf.iter_mut())
            .map(|(c, b)| *b = *c as u8)
            .count();
        let (b, len) = escape_byte(&buf[..n])?;
        self.i += len - 1;
        Some(b)
    }

    fn backref(&mut self, c: char) -> Result<(), String> {
        let n = c.to_digit(10).unwrap_or(0) as usize;
        if n > self.groups {
            return Err("Invalid back reference".into());
        }
        if matches!(self.dialect.tool, Tool::Find | Tool::Awk) {
            return Err(BACKREF_UNSUPPORTED.into());
        }
        // Group names must differ: the second `\1` is `b1_1`.
        let id = self.out.matches("(?P<b").count();
        self.backrefs = true;
        self.atom_str(&format!("(?P<b{n}_{id}>\\x{{FFFF}})"));
        self.replace_last_len(None); // as long as the group's match, unknown here
        Ok(())
    }

    /// `\W` / `\s` without the excluded line terminator.
    fn excluding(&self, class: &str) -> String {
        match self.dialect.exclude {
            Some(end) => format!("[{class}&&[^{}]]", class_char(end)),
            None => class.to_string(),
        }
    }

    /// GNU sed's character escapes outside brackets.
    fn sed_escape(&mut self, c: char) -> Result<(), String> {
        match self.sed_char_escape(c) {
            Some(ch) => self.literal_char(ch),
            None => self.literal_char(c),
        }
        Ok(())
    }

    /// The character a sed escape `\c...` stands for (`\n`, `\t`, `\x41`...), if it is one;
    /// consumes the digits of numeric escapes.
    fn sed_char_escape(&mut self, c: char) -> Option<char> {
        match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            'a' => Some('\x07'),
            'd' => self.radix_escape(10, 3),
            'o' => self.radix_escape(8, 3),
            'x' => self.radix_escape(16, 2),
            'c' => {
                let x = self.next()?;
                char::from_u32(u32::from(x.to_ascii_uppercase()) ^ 0x40)
            }
            _ => None,
        }
    }

    fn radix_escape(&mut self, radix: u32, max: usize) -> Option<char> {
        let mut value = 0u32;
        let mut n = 0;
        while n < max {
            let Some(d) = self.peek().and_then(|c| c.to_digit(radix)) else {
                break;
            };
            value = value * radix + d;
            self.i += 1;
            n += 1;
        }
        if n == 0 {
            return None;
        }
        char::from_u32(value)
    }

    /// A bracket expression `[...]`, from just after the `[`.
    fn bracket(&mut self) -> Result<(), String> {
        let start = self.i;
        let negated = self.peek() == Some('^');
        if negated {
            self.i += 1;
        }
        let mut items = String::new();
        let mut first = true;
        loop {
            let c = self.next().ok_or(UNMATCHED_BRACKET)?;
            if c == ']' && !first {
                break;
            }
            first = false;
            let classes = self.dialect.syntax != Syntax::Emacs;
            let named = match self.peek() {
                Some('=' | '.') => true,
                Some(':') => classes,
                _ => false,
            };
            if c == '[' && named {
                let kind = self.next().unwrap_or(':');
                let name = self.bracket_name(kind)?;
                if kind == ':' {
                    items.push_str(class_items(&name).ok_or("Invalid character class name")?);
                    continue;
                }
                let single = single_char(&name).ok_or("Invalid collation character")?;
                self.range_or_char(single, &mut items)?;
                continue;
            }
            let c = self.bracket_escape(c);
            self.range_or_char(c, &mut items)?;
        }
        let raw: String = self.chars[start..self.i - 1].iter().collect();
        let grep = self.dialect.tool == Tool::Grep;
        if grep && raw.len() >= 2 && raw.starts_with(':') && raw.ends_with(':') {
            return Err(format!("character class syntax is [[{raw}]], not [{raw}]"));
        }
        if items.is_empty() {
            // Only empty ranges (`[z-a]` where that is allowed): a class of nothing.
            items.push_str("a&&b");
        }
        let class = self.class_text(negated, &items);
        self.atom_str(&class);
        Ok(())
    }

    /// The regex crate class for POSIX bracket items.
    fn class_text(&self, negated: bool, items: &str) -> String {
        match (negated, self.dialect.exclude) {
            (true, Some(end)) => format!("[^{items}{}]", class_char(end)),
            (true, None) => format!("[^{items}]"),
            (false, Some(end)) => format!("[{items}&&[^{}]]", class_char(end)),
            (false, None) => format!("[{items}]"),
        }
    }

    /// A backslash inside brackets: literal, except that sed reads `\n`, `\t`, `\\`... and
    /// awk its string escapes (and `\]`, `\\`, any `\c` as `c`).
    fn bracket_escape(&mut self, c: char) -> char {
        let Some(next) = self.peek().filter(|_| c == '\\') else {
            return c;
        };
        if self.awk() {
            self.i += 1;
            return self.awk_escape_byte().map_or(next, byte_char);
        }
        if self.dialect.tool != Tool::Sed {
            return c;
        }
        let mapped = match next {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'f' => '\x0c',
            'v' => '\x0b',
            'a' => '\x07',
            '\\' => '\\',
            _ => return c,
        };
        self.i += 1;
        mapped
    }

    /// The name inside `[:name:]`, `[=c=]` or `[.c.]`, consuming the closing `:]`.
    fn bracket_name(&mut self, kind: char) -> Result<String, String> {
        let mut name = String::new();
        loop {
            let c = self.next().ok_or(UNMATCHED_BRACKET)?;
            if c == kind && self.peek() == Some(']') {
                self.i += 1;
                return Ok(name);
            }
            name.push(c);
        }
    }

    /// A character, or a range when `-x` follows (a `-` before `]` is literal).
    fn range_or_char(&mut self, lo: char, items: &mut String) -> Result<(), String> {
        if self.peek() == Some('-') && self.peek_at(1).is_some_and(|c| c != ']') {
            self.i += 1;
            let mut hi = self.next().ok_or(UNMATCHED_BRACKET)?;
            if hi == '[' && self.peek() == Some('.') {
                self.i += 1;
                let name = self.bracket_name('.')?;
                hi = single_char(&name).ok_or("Invalid collation character")?;
            } else {
                hi = self.bracket_escape(hi);
            }
            if hi < lo {
                // expr and the Emacs syntax take an empty range as matching nothing.
                if self.dialect.tool == Tool::Expr || self.dialect.syntax == Syntax::Emacs {
                    return Ok(());
                }
                return Err("Invalid range end".into());
            }
            items.push_str(&class_char(lo));
            items.push('-');
            items.push_str(&class_char(hi));
            return Ok(());
        }
        items.push_str(&class_char(lo));
        Ok(())
    }
}

/// One character as a class member of the `regex` crate (escaped when it could be syntax;
/// `<` and `>` cannot be, the crate keeps `\<` and `\>` for word boundaries).
fn class_char(c: char) -> String {
    if let Some(b) = char_byte(c) {
        format!("\\x{{{b:x}}}")
    } else if c.is_ascii_punctuation() && !matches!(c, '<' | '>') {
        format!("\\{c}")
    } else if c.is_control() || c == ' ' {
        format!("\\x{{{:x}}}", u32::from(c))
    } else {
        c.to_string()
    }
}

/// The character that stands for byte `b` of a pattern: itself below 0x80, otherwise one
/// of the last private-use code points (a byte that is not UTF-8 text matches itself).
fn byte_char(b: u8) -> char {
    if b < 0x80 {
        return char::from(b);
    }
    char::from_u32(BYTE_BASE + u32::from(b)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// The byte `c` stands for, if [`byte_char`] made it.
fn char_byte(c: char) -> Option<u8> {
    u32::from(c)
        .checked_sub(BYTE_BASE)
        .and_then(|b| u8::try_from(b).ok())
        .filter(|&b| b >= 0x80)
}

fn single_char(name: &str) -> Option<char> {
    let mut chars = name.chars();
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

/// A POSIX class name as `regex` class items, as glibc's C.UTF-8 locale has them: letters,
/// digits, punctuation and spaces beyond ASCII count (other scripts' digits are letters, not
/// `[:digit:]`; a no-break space is neither blank nor space, but graphic and punctuation).
fn class_items(name: &str) -> Option<&'static str> {
    Some(match name {
        "alpha" => "\\p{Alphabetic}[\\p{Nd}&&[^0-9]]",
        "alnum" => "\\p{Alphabetic}\\p{Nd}",
        "upper" => "\\p{Uppercase}",
        "lower" => "\\p{Lowercase}",
        "digit" => "0-9",
        "xdigit" => "0-9A-Fa-f",
        "space" => "\\t\\n\\x{b}\\x{c}\\r\\x{20}\\x{1680}\\x{2000}-\\x{2006}\\x{2008}-\\x{200a}\\x{2028}\\x{2029}\\x{205f}\\x{3000}",
        "blank" => "\\t\\x{20}\\x{1680}\\x{2000}-\\x{2006}\\x{2008}-\\x{200a}\\x{205f}\\x{3000}",
        "punct" => "[:punct:]\\p{P}\\p{S}\\x{a0}",
        "print" => "[:print:][^\\x00-\\x7f\\p{C}]",
        "graph" => "[:graph:]\\x{a0}[^\\x00-\\x7f\\p{C}\\p{Z}]",
        "cntrl" => "[:cntrl:]",
        _ => return None,
    })
}

/// `pattern` (a translation) with each back-reference relaxed to any text (on the line, with
/// `eol`): it matches wherever the pattern itself can, and the fast engine searches it, so that
/// the backtracking search only runs from where a match may start, and not at all where none
/// can (`sed 's/\(a*\)*\1b//'` over lines without a `b` spent its whole step budget on each).
pub fn relaxed(pattern: &str, eol: Option<u8>) -> String {
    const OPEN: &str = "(?P<b";
    const CLOSE: &str = ">\\x{FFFF})";
    let any = match eol {
        Some(eol) => format!("(?:(?-u:[^\\x{eol:02X}])*)"),
        None => "(?:(?s-u:.)*)".to_string(),
    };
    let mut out = String::with_capacity(pattern.len());
    let mut rest = pattern;
    while let Some(at) = rest.find(OPEN) {
        out.push_str(&rest[..at]);
        let tail = &rest[at + OPEN.len()..];
        match tail.find(CLOSE) {
            Some(end) if tail[..end].bytes().all(|b| b.is_ascii_digit() || b == b'_') => {
                out.push_str(&any);
                rest = &tail[end + CLOSE.len()..];
            }
            _ => {
                out.push_str(OPEN);
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bre(p: &str) -> String {
        translate(p, Dialect::posix(false, Tool::Grep))
            .map_or_else(|e| format!("ERR {e}"), |t| t.pattern)
    }

    fn ere(p: &str) -> String {
        let d = Dialect::posix(true, Tool::Grep);
        translate(p, d).map_or_else(|e| format!("ERR {e}"), |t| t.pattern)
    }

    #[test]
    fn back_references_relax_to_any_text() {
        let line = "(?:(?-u:[^\\x0A])*)";
        let any = "(?:(?s-u:.)*)";
        let pattern = "(a)(?P<b1_0>\\x{FFFF})*x(?P<b12_3>\\x{FFFF})";
        assert_eq!(relaxed(pattern, Some(b'\n')), format!("(a){line}*x{line}"));
        assert_eq!(relaxed(pattern, None), format!("(a){any}*x{any}"));
        assert_eq!(relaxed("\\(\\?P<b1_0>", None), "\\(\\?P<b1_0>");
        assert_eq!(relaxed("(?P<bad>x)", None), "(?P<bad>x)");
    }

    #[test]
    fn bre_translations() {
        let cases = [
            ("abc", "abc"),
            ("a.c", "a.c"),
            ("*a", "\\*a"),
            ("a*", "a*"),
            ("a**", "(?:a*)*"),
            ("\\(ab\\)*", "(ab)*"),
            ("a\\{2,3\\}", "a{2,3}"),
            ("a\\{,3\\}", "a{0,3}"),
            ("a\\{2,\\}", "a{2,}"),
            ("a\\|b", "a|b"),
            ("a+?|(){}", "a\\+\\?\\|\\(\\)\\{\\}"),
            ("a\\+", "a+"),
            ("^a^$b$", "^a\\^\\$b$"),
            ("\\(^a$\\)", "(^a$)"),
            ("^*", "^\\*"),
            ("\\<w\\>", "\\b{start}w\\b{end}"),
            ("[]a]", "[\\]a]"),
            ("[^a-c]", "[^a-c]"),
            ("[[:digit:]x]", "[0-9x]"),
            (
                "[^[:blank:]]",
                "[^\\t\\x{20}\\x{1680}\\x{2000}-\\x{2006}\\x{2008}-\\x{200a}\\x{205f}\\x{3000}]",
            ),
            ("[a-]", "[a\\-]"),
            ("[\\]", "[\\\\]"),
            ("<[^>]*>", "<[^>]*>"),
            ("a\\.b", "a\\.b"),
            ("x\\{1\\}\\{2\\}", "(?:x{1}){2}"),
        ];
        for (input, want) in cases {
            assert_eq!(bre(input), want, "BRE {input}");
        }
    }

    #[test]
    fn ere_translations() {
        let cases = [
            ("(a|b)+", "(a|b)+"),
            ("a{2}", "a{2}"),
            ("a{", "a\\{"),
            ("a{1", "a\\{1"),
            ("a{,2}", "a{0,2}"),
            ("a)", "a\\)"),
            ("*a", "a"),
            ("a+?", "(?:a+)?"),
            ("^*x", "(?:^)*x"),
            ("\\(", "\\("),
            ("a|", "a|"),
        ];
        for (input, want) in cases {
            assert_eq!(ere(input), want, "ERE {input}");
        }
    }

    #[test]
    fn errors_use_glibc_messages() {
        let cases = [
            ("a\\", "Trailing backslash"),
            ("\\(a", "Unmatched ( or \\("),
            ("a\\)", "Unmatched ) or \\)"),
            ("[a", "Unmatched [, [^, [:, [., or [="),
            (
                "[:space:]",
                "character class syntax is [[:space:]], not [:space:]",
            ),
            ("a\\{1", "Unmatched \\{"),
            ("a\\{x\\}", "Invalid content of \\{\\}"),
            ("a\\{2,1\\}", "Invalid content of \\{\\}"),
            ("[[:foo:]]", "Invalid character class name"),
            ("[z-a]", "Invalid range end"),
            ("\\1", "Invalid back reference"),
        ];
        for (input, want) in cases {
            assert_eq!(bre(input), format!("ERR {want}"), "BRE {input}");
        }
        assert_eq!(ere("(a"), "ERR Unmatched ( or \\(");
        assert_eq!(ere("a{2,1}"), "ERR Invalid content of \\{\\}");
    }

    #[test]
    fn back_references_become_named_groups_except_for_find_and_awk() {
        assert_eq!(
            bre("\\(a\\)\\1*\\1"),
            "(a)(?P<b1_0>\\x{FFFF})*(?P<b1_1>\\x{FFFF})"
        );
        assert_eq!(
            tr("(a)\\1", Syntax::Extended, Tool::Find),
            format!("ERR {BACKREF_UNSUPPORTED}")
        );
    }

    fn tr(p: &str, syntax: Syntax, tool: Tool) -> String {
        translate(p, Dialect::new(syntax, tool)).map_or_else(|e| format!("ERR {e}"), |t| t.pattern)
    }

    #[test]
    fn strict_tools_refuse_misplaced_operators() {
        use Syntax::{Basic, Extended};
        for tool in [Tool::Sed, Tool::Bash, Tool::Find] {
            let ere = |p: &str| tr(p, Extended, tool);
            assert_eq!(ere("*a"), "ERR Invalid preceding regular expression");
            assert_eq!(ere("^*a"), "ERR Invalid preceding regular expression");
            assert_eq!(ere("a|+b"), "ERR Invalid preceding regular expression");
            assert_eq!(ere("a{"), "ERR Unmatched \\{");
            assert_eq!(ere("a{1"), "ERR Unmatched \\{");
            assert_eq!(ere("a{x}"), "ERR Invalid content of \\{\\}");
            assert_eq!(ere("a{,2}"), "a{0,2}");
        }
        assert_eq!(
            tr("\\{1\\}a", Basic, Tool::Sed),
            "ERR Invalid preceding regular expression"
        );
        assert_eq!(tr("\\{1\\}a", Basic, Tool::Grep), "\\{1\\}a");
        assert_eq!(tr("a)", Extended, Tool::Sed), "ERR Unmatched ) or \\)");
        assert_eq!(tr("a)", Extended, Tool::Bash), "a\\)");
        assert_eq!(tr("a{", Extended, Tool::Grep), "a\\{");
    }

    #[test]
    fn awk_reads_misplaced_operators_and_escapes_literally() {
        let awk = |p: &str| tr(p, Syntax::Extended, Tool::Awk);
        assert_eq!(awk("*a"), "\\*a");
        assert_eq!(awk("+"), "\\+");
        assert_eq!(awk("^*"), "^\\*");
        assert_eq!(awk("{2}"), "\\{2\\}");
        assert_eq!(awk("a{"), "a\\{");
        assert_eq!(awk("a\\"), "a\\\\");
        assert_eq!(awk("\\/\\t\\101"), "/\tA");
        assert_eq!(awk("\\y\\B"), "\\b\\B");
        assert_eq!(awk("[a\\]]"), "[a\\]]");
        assert_eq!(awk("(a)\\1"), "(a)\u{1}");
        let bytes = translate_bytes(b"a\xffb\\377", Dialect::posix(true, Tool::Awk));
        assert_eq!(
            bytes.map(|t| t.pattern),
            Ok("a(?-u:\\xff)b(?-u:\\xff)".into())
        );
    }

    #[test]
    fn emacs_syntax_for_find() {
        let find = |p: &str| {
            let d = Dialect::find("findutils-default").unwrap_or(Dialect::posix(true, Tool::Find));
            translate(p, d).map_or_else(|e| format!("ERR {e}"), |t| t.pattern)
        };
        assert_eq!(find("./a\\{2\\}"), "./a\\{2\\}");
        assert_eq!(find("a+b?"), "a+b?");
        assert_eq!(find("\\(a\\|b\\)(c)"), "(a|b)\\(c\\)");
        assert_eq!(find("*a\\+"), "\\*a\\+");
        assert_eq!(find("[[:upper:]]"), "[\\[\\:upper\\:]\\]");
        assert_eq!(find("[z-a]"), "[a&&b]");
        assert!(Dialect::find("perl").is_none());
    }

    #[test]
    fn expr_takes_an_empty_range_as_matching_nothing() {
        assert_eq!(tr("[z-a]", Syntax::Basic, Tool::Expr), "[a&&b]");
        assert_eq!(
            tr("[z-a]", Syntax::Basic, Tool::Grep),
            "ERR Invalid range end"
        );
        assert!(regex::Regex::new("[a&&b]").is_ok_and(|r| !r.is_match("ab")));
    }

    #[test]
    fn quoted_characters_are_literal() {
        let chars = [('a', false), ('.', true), ('*', true), ('[', true)];
        let t = translate_marked(&chars, Dialect::posix(true, Tool::Bash));
        assert_eq!(t.map(|t| t.pattern), Ok("a\\.\\*\\[".into()));
    }

    #[test]
    fn sed_brackets_read_its_escapes_but_not_a_closing_bracket() {
        let sed = |p: &str| tr(p, Syntax::Basic, Tool::Sed);
        assert_eq!(sed("[\\n]"), "[\\x{a}]");
        assert_eq!(sed("[\\]]"), "[\\\\]\\]");
        assert_eq!(tr("[\\n]", Syntax::Basic, Tool::Grep), "[\\\\n]");
    }

    #[test]
    fn classes_are_those_of_a_utf8_locale() {
        let matches = |class: &str, c: char| {
            let t = translate(
                &format!("^[[:{class}:]]$"),
                Dialect::posix(false, Tool::Grep),
            );
            let re = t.ok().and_then(|t| regex::Regex::new(&t.pattern).ok());
            re.is_some_and(|re| re.is_match(&c.to_string()))
        };
        let cases = [
            ("punct", '…', true),
            ("punct", '€', true),
            ("punct", 'é', false),
            ("punct", '\u{a0}', true),
            ("alpha", '٣', true),
            ("alnum", '٣', true),
            ("digit", '٣', false),
            ("blank", '\u{2003}', true),
            ("blank", '\u{a0}', false),
            ("space", '\u{a0}', false),
            ("graph", '\u{a0}', true),
            ("graph", '\u{2003}', false),
            ("print", '\u{2003}', true),
        ];
        for (class, c, want) in cases {
            assert_eq!(matches(class, c), want, "[[:{class}:]] on {c:?}");
        }
    }

    #[test]
    fn maximum_match_lengths() {
        let len = |p: &str, extended: bool| {
            let d = Dialect::posix(extended, Tool::Grep);
            translate(p, d).map(|t| t.max_len).unwrap_or(Some(999))
        };
        assert_eq!(len("INFO|WARN", true), Some(4));
        assert_eq!(len("(GET|POST) x", true), Some(6));
        assert_eq!(len("a{2,3}b?", true), Some(4));
        assert_eq!(len("a+|b", true), None);
        assert_eq!(len("^ab$", true), Some(2));
        assert_eq!(len("x\\{2\\}é", false), Some(4));
        assert_eq!(len("[ab](c|de)*", true), None);
        assert_eq!(len("(a|bc)?(d)", true), Some(3));
    }

    #[test]
    fn every_translation_compiles() {
        for p in [
            "a**",
            "(?:^)*x",
            "[[:alpha:][:space:]]",
            "[^[:punct:]]",
            "\\b{start}x",
        ] {
            assert!(regex::Regex::new(p).is_ok(), "{p}");
        }
        let grep = Dialect {
            exclude: Some('\n'),
            ..Dialect::posix(false, Tool::Grep)
        };
        for p in ["[^a]", "\\W\\s", "[[:space:]]x", "[.]"] {
            let t = translate(p, grep).map(|t| t.pattern).unwrap_or_default();
            assert!(regex::Regex::new(&t).is_ok(), "{p} -> {t}");
        }
    }
}
