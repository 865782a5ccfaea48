//! POSIX regular expressions (GNU flavour, BRE and ERE) translated to the `regex` crate's
//! syntax, shared by grep and sed.
//!
//! The translation keeps capture-group numbering (only `\(` / `(` open capturing groups; every
//! group added here is `(?:...)`), reports errors with glibc's messages (`Unmatched ( or \(`),
//! and collects GNU grep's warnings (`* at start of expression`). Back-references cannot be
//! expressed in the `regex` crate: they are reported as an error that says so.

/// Which dialect a pattern is written in, and for which tool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Dialect {
    /// ERE (`grep -E`, `sed -E`) instead of BRE.
    pub extended: bool,
    /// sed's escapes: `\n`, `\t`, `\xHH`... and `` \` `` / `\'` as buffer anchors.
    pub sed: bool,
    /// A byte no match may contain (grep's line terminator): negated classes, `\s` and `\W`
    /// leave it out so a match never spans two lines of a buffer searched as a whole.
    pub exclude: Option<char>,
}

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
    let mut t = Translator {
        chars: src.chars().collect(),
        i: 0,
        dialect,
        out: String::with_capacity(src.len() + 8),
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
        ends: t.ends,
        branch_ends: t.branch_ends,
        max_len: t.lens.first().and_then(Lengths::total),
        warnings: t.warnings,
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
    i: usize,
    dialect: Dialect,
    out: String,
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
}

const UNMATCHED_BRACKET: &str = "Unmatched [, [^, [:, [., or [=";
const UNMATCHED_OPEN: &str = "Unmatched ( or \\(";
const UNMATCHED_CLOSE: &str = "Unmatched ) or \\)";
const BAD_INTERVAL: &str = "Invalid content of \\{\\}";
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

    fn ere(&self) -> bool {
        self.dialect.extended
    }

    fn run(&mut self) -> Result<(), String> {
        while let Some(c) = self.next() {
            match c {
                '\\' => self.escape()?,
                '[' => self.bracket()?,
                '.' => self.atom_str("."),
                '*' => self.star()?,
                '^' => self.caret(),
                '$' => self.dollar(),
                '(' if self.ere() => self.open_group(),
                ')' if self.ere() && !self.open.is_empty() => self.close_group()?,
                '|' if self.ere() => self.alternate(),
                '+' | '?' if self.ere() => self.ere_quantifier(c),
                '{' if self.ere() => self.ere_brace()?,
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

    /// GNU sed's BRE refuses `*` or an interval right after another quantifier.
    fn check_repeat(&self) -> Result<(), String> {
        if self.dialect.sed && !self.ere() && self.last == Last::Quant {
            return Err("Invalid preceding regular expression".into());
        }
        Ok(())
    }

    fn star(&mut self) -> Result<(), String> {
        if self.at_start() || (!self.ere() && self.last == Last::Anchor) {
            if self.ere() {
                self.warnings.push("* at start of expression".into());
                return Ok(());
            }
            self.literal_char('*');
            return Ok(());
        }
        if self.ere() && self.last == Last::Anchor && self.anchor_at_start {
            self.warnings.push("* at start of expression".into());
        }
        self.check_repeat()?;
        self.quantify("*");
        Ok(())
    }

    fn ere_quantifier(&mut self, c: char) {
        if self.at_start() {
            self.warnings.push(format!("{c} at start of expression"));
            return;
        }
        let mut buf = [0u8; 4];
        self.quantify(c.encode_utf8(&mut buf));
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
    fn ere_brace(&mut self) -> Result<(), String> {
        let save = self.i;
        match self.interval("}")? {
            Some(q) if self.at_start() => {
                let _ = q;
                self.warnings.push("{...} at start of expression".into());
            }
            Some(q) => self.quantify(&q),
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
            self.literal_char('{');
            return Ok(());
        }
        match self.interval("\\}")? {
            Some(q) => {
                self.check_repeat()?;
                self.quantify(&q);
                Ok(())
            }
            None => Err(self.bre_interval_error()),
        }
    }

    /// Why a BRE interval failed: no closing `\}` at all, or bad content.
    fn bre_interval_error(&self) -> String {
        let rest: String = self.chars[self.i..].iter().collect();
        if rest.contains("\\}") {
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
        if min.is_none() && (!comma || max.is_none() && !self.dialect.extended) {
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
            return Err("Trailing backslash".into());
        };
        match c {
            '(' if !self.ere() => self.open_group(),
            ')' if !self.ere() => self.close_group()?,
            '|' if !self.ere() => self.alternate(),
            '{' if !self.ere() => self.bre_brace()?,
            '+' | '?' if !self.ere() => {
                if self.at_start() {
                    self.literal_char(c);
                } else {
                    let mut buf = [0u8; 4];
                    self.quantify(c.encode_utf8(&mut buf));
                }
            }
            '1'..='9' => return Err(self.backref(c)),
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
            _ if self.dialect.sed => self.sed_escape(c)?,
            c => self.literal_char(c),
        }
        Ok(())
    }

    fn backref(&self, c: char) -> String {
        let n = c.to_digit(10).unwrap_or(0) as usize;
        if n > self.groups {
            "Invalid back reference".into()
        } else {
            BACKREF_UNSUPPORTED.into()
        }
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
            if c == '[' && matches!(self.peek(), Some(':' | '=' | '.')) {
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
        if raw.len() >= 2 && raw.starts_with(':') && raw.ends_with(':') {
            return Err(format!("character class syntax is [[{raw}]], not [{raw}]"));
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

    /// sed reads `\n`, `\t`, `\\` and `\]` inside brackets as GNU sed does.
    fn bracket_escape(&mut self, c: char) -> char {
        if c != '\\' || !self.dialect.sed {
            return c;
        }
        let Some(next) = self.peek() else {
            return c;
        };
        let mapped = match next {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'f' => '\x0c',
            'v' => '\x0b',
            'a' => '\x07',
            '\\' => '\\',
            ']' => ']',
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
    if c.is_ascii_punctuation() && !matches!(c, '<' | '>') {
        format!("\\{c}")
    } else if c.is_control() || c == ' ' {
        format!("\\x{{{:x}}}", u32::from(c))
    } else {
        c.to_string()
    }
}

fn single_char(name: &str) -> Option<char> {
    let mut chars = name.chars();
    let c = chars.next()?;
    chars.next().is_none().then_some(c)
}

/// A POSIX class name as `regex` class items (Unicode letters count, as in a UTF-8 locale).
fn class_items(name: &str) -> Option<&'static str> {
    Some(match name {
        "alpha" => "\\p{Alphabetic}",
        "alnum" => "\\p{Alphabetic}0-9",
        "upper" => "\\p{Uppercase}",
        "lower" => "\\p{Lowercase}",
        "digit" => "0-9",
        "xdigit" => "0-9A-Fa-f",
        "space" => "\\s",
        "blank" => "\\x{20}\\t",
        "punct" => "[:punct:]",
        "print" => "[:print:]\\x{a0}-\\x{10ffff}",
        "graph" => "[:graph:]\\x{a1}-\\x{10ffff}",
        "cntrl" => "[:cntrl:]",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bre(p: &str) -> String {
        translate(p, Dialect::default()).map_or_else(|e| format!("ERR {e}"), |t| t.pattern)
    }

    fn ere(p: &str) -> String {
        let d = Dialect {
            extended: true,
            ..Dialect::default()
        };
        translate(p, d).map_or_else(|e| format!("ERR {e}"), |t| t.pattern)
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
            ("\\(a\\)\\1", BACKREF_UNSUPPORTED),
        ];
        for (input, want) in cases {
            assert_eq!(bre(input), format!("ERR {want}"), "BRE {input}");
        }
        assert_eq!(ere("(a"), "ERR Unmatched ( or \\(");
        assert_eq!(ere("a{2,1}"), "ERR Invalid content of \\{\\}");
    }

    #[test]
    fn maximum_match_lengths() {
        let len = |p: &str, extended: bool| {
            let d = Dialect {
                extended,
                ..Dialect::default()
            };
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
            ..Dialect::default()
        };
        for p in ["[^a]", "\\W\\s", "[[:space:]]x", "[.]"] {
            let t = translate(p, grep).map(|t| t.pattern).unwrap_or_default();
            assert!(regex::Regex::new(&t).is_ok(), "{p} -> {t}");
        }
    }
}
