//! Reading the inside of words: quotes, backslashes, `$` expansions, backquotes.
//!
//! These are lexer methods (they move the lexer's cursor), kept here because they parse:
//! `$(...)` recursively parses a whole program with [`parse_nested`].

use super::super::ast::{Param, ParamExpansion, ParamOp, SpecialParam, Word, WordPart};
use super::super::lexer::{is_meta, Lexer};
use super::{parse_chars, parse_nested, ParseError};

/// Collects word parts, merging adjacent text of the same kind.
#[derive(Debug, Default)]
pub struct Parts(Vec<WordPart>);

impl Parts {
    /// Appends an unquoted (or, inside double quotes, plain) character.
    pub fn literal(&mut self, c: char) {
        match self.0.last_mut() {
            Some(WordPart::Literal(text)) => text.push(c),
            _ => self.0.push(WordPart::Literal(c.to_string())),
        }
    }

    /// Appends quoted text.
    pub fn quoted(&mut self, text: &str) {
        match self.0.last_mut() {
            Some(WordPart::SingleQuoted(quoted)) => quoted.push_str(text),
            _ => self.0.push(WordPart::SingleQuoted(text.to_string())),
        }
    }

    /// Appends a part, merging it into the last one if both are text of one kind.
    pub fn push(&mut self, part: WordPart) {
        match part {
            WordPart::Literal(text) => text.chars().for_each(|c| self.literal(c)),
            WordPart::SingleQuoted(text) => self.quoted(&text),
            part => self.0.push(part),
        }
    }

    /// Whether what was collected is a variable's name and nothing else.
    fn is_name(&self) -> bool {
        matches!(self.0.as_slice(), [WordPart::Literal(text)] if is_name(text))
    }

    /// Whether nothing was collected.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The parts.
    pub fn finish(self) -> Vec<WordPart> {
        self.0
    }
}

/// The body of an expanding here-document: `$` expansions and backquotes; a backslash only
/// escapes `$`, `` ` ``, `\` and a newline. Returns one [`WordPart::DoubleQuoted`].
pub fn parse_heredoc_body(chars: &[char], line: usize, depth: usize) -> Result<Word, ParseError> {
    let mut lex = Lexer::new(chars, 0, line, depth);
    let mut parts = Parts::default();
    while let Some(c) = lex.peek() {
        match c {
            '\\' => lex.read_quoted_backslash(&mut parts, &['$', '`', '\\']),
            '$' => lex.read_dollar(&mut parts, true)?,
            '`' => parts.push(lex.read_backquote(false)?),
            _ => {
                lex.bump();
                parts.literal(c);
            }
        }
    }
    Ok(Word {
        parts: vec![WordPart::DoubleQuoted(parts.finish())],
    })
}

/// A subscript given as text at run time (`unset 'a[$k]'`, `declare -n r='A["k"]'`,
/// `${!ref}`): quotes, backslashes, `$` expansions and backquotes as in a word, blanks kept.
pub fn parse_subscript(text: &str) -> Result<Word, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut lex = Lexer::new(&chars, 0, 0, 0);
    let mut parts = Parts::default();
    while let Some(c) = lex.peek() {
        match c {
            '\\' => lex.read_unquoted_backslash(&mut parts),
            '\'' => {
                let text = lex.read_single_quoted()?;
                parts.quoted(&text);
            }
            '"' => parts.push(WordPart::DoubleQuoted(lex.read_double_quoted()?)),
            '$' => lex.read_dollar(&mut parts, false)?,
            '`' => parts.push(lex.read_backquote(false)?),
            _ => {
                lex.bump();
                parts.literal(c);
            }
        }
    }
    Ok(Word {
        parts: parts.finish(),
    })
}

/// The special parameter a character names.
pub fn special_param(c: char) -> Option<SpecialParam> {
    Some(match c {
        '@' => SpecialParam::At,
        '*' => SpecialParam::Star,
        '#' => SpecialParam::Count,
        '?' => SpecialParam::Status,
        '$' => SpecialParam::Pid,
        '!' => SpecialParam::LastBackground,
        '-' => SpecialParam::Flags,
        _ => return None,
    })
}

/// Whether `name` is a valid variable name.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(is_name_start) && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// Whether `c` may start a variable name.
pub fn is_name_start(c: char) -> bool {
    c == '_' || c.is_ascii_alphabetic()
}

fn plain(param: Param) -> WordPart {
    WordPart::Param(ParamExpansion {
        param,
        indirect: false,
        op: ParamOp::Plain,
        braced: false,
    })
}

impl Lexer<'_> {
    /// An unquoted word, up to a blank or metacharacter. With `regex` (the operand of `=~`),
    /// `(`, `)` and `|` are ordinary characters, and so are blanks and the other
    /// metacharacters inside parentheses.
    pub fn read_word(&mut self, regex: bool) -> Result<Vec<WordPart>, ParseError> {
        let mut parts = Parts::default();
        let mut parens = 0usize;
        // `a[1 + 2]=x`: blanks inside the subscript of an assignment belong to the word.
        let mut subscript_end = 0;
        while let Some(c) = self.peek() {
            match c {
                '[' if !regex && self.assign_words && subscript_end == 0 && parts.is_name() => {
                    subscript_end = self.assignment_subscript_end()?.unwrap_or(0);
                    self.bump();
                    parts.literal(c);
                }
                ' ' | '\t' if self.pos < subscript_end => {
                    self.bump();
                    parts.literal(c);
                }
                '\\' => self.read_unquoted_backslash(&mut parts),
                '\'' => {
                    let text = self.read_single_quoted()?;
                    parts.quoted(&text);
                }
                '"' => parts.push(WordPart::DoubleQuoted(self.read_double_quoted()?)),
                '$' => self.read_dollar(&mut parts, false)?,
                '`' => parts.push(self.read_backquote(false)?),
                '<' | '>' if parts.is_empty() && self.peek_at(1) == Some('(') && !regex => {
                    parts.push(self.read_process_subst()?)
                }
                '?' | '*' | '+' | '@' | '!' if self.peek_at(1) == Some('(') && !regex => {
                    self.read_extglob(&mut parts)?
                }
                '(' | '|' if regex => {
                    parens += usize::from(c == '(');
                    self.bump();
                    parts.literal(c);
                }
                ')' if regex && parens > 0 => {
                    parens -= 1;
                    self.bump();
                    parts.literal(c);
                }
                // Inside parentheses of a regex every metacharacter but a newline is text:
                // `(a b)`, `(;|x)`, `(< >)`.
                c if regex && parens > 0 && c != '\n' && is_meta(c) => {
                    self.bump();
                    parts.literal(c);
                }
                c if is_meta(c) => break,
                _ => {
                    self.bump();
                    parts.literal(c);
                }
            }
        }
        Ok(parts.finish())
    }

    /// Where the `]` closing the `[` at the cursor is, when it is directly followed by `=` or
    /// `+=` on the same line (the subscript of an assignment word). Like bash, an `[` that
    /// nothing closes is an error.
    fn assignment_subscript_end(&self) -> Result<Option<usize>, ParseError> {
        let mut depth = 0usize;
        let mut next_line = false;
        for (i, &c) in self.src.iter().enumerate().skip(self.pos) {
            match c {
                '[' => depth += 1,
                ']' if depth == 1 => {
                    let rest = &self.src[i + 1..];
                    let assigns = rest.first() == Some(&'=') || rest.starts_with(&['+', '=']);
                    return Ok((assigns && !next_line).then_some(i));
                }
                ']' => depth -= 1,
                '\n' => next_line = true,
                _ => {}
            }
        }
        Err(self.eof_error("]"))
    }

    /// `$` backslash-newline `?`: bash removes line continuations before it reads the name.
    /// Handles a name or a one-character parameter after them; false (the cursor untouched)
    /// for anything else.
    fn read_split_dollar(&mut self, parts: &mut Parts) -> bool {
        let (pos, line) = (self.pos, self.line);
        self.bump();
        while self.peek() == Some('\\') && self.peek_at(1) == Some('\n') {
            self.bump();
            self.bump();
        }
        match self.peek() {
            Some(c) if is_name_start(c) => parts.push(plain(Param::Var(self.read_name()))),
            Some(c) if c.is_ascii_digit() => {
                self.bump();
                parts.push(plain(Param::Positional(c.to_digit(10).unwrap_or(0))));
            }
            Some(c) if special_param(c).is_some() => {
                self.bump();
                parts.extend_special(c);
            }
            _ => {
                (self.pos, self.line) = (pos, line);
                return false;
            }
        }
        true
    }

    /// An extended glob group such as `@(a|b)` or `!(*.txt)`: unquoted text up to the
    /// matching parenthesis, blanks and `|` included. Always recognised (as if `extglob`
    /// were on); a script's lines that hold one are noted, and fail when they run with the
    /// option off, as bash fails to parse them.
    fn read_extglob(&mut self, parts: &mut Parts) -> Result<(), ParseError> {
        self.enter()?;
        if !self.in_cond {
            self.extglob_lines.push(self.line);
        }
        let mut depth = 0usize;
        loop {
            match self.peek() {
                None => return Err(self.eof_error(")")),
                Some('\\') => self.read_unquoted_backslash(parts),
                Some('\'') => {
                    let text = self.read_single_quoted()?;
                    parts.quoted(&text);
                }
                Some('"') => parts.push(WordPart::DoubleQuoted(self.read_double_quoted()?)),
                Some('$') => self.read_dollar(parts, false)?,
                Some('`') => parts.push(self.read_backquote(false)?),
                Some(c) => {
                    self.bump();
                    parts.literal(c);
                    match c {
                        '(' => depth += 1,
                        ')' if depth <= 1 => break,
                        ')' => depth -= 1,
                        _ => {}
                    }
                }
            }
        }
        self.leave();
        Ok(())
    }

    /// `\c` outside quotes: `c` quoted; a backslash-newline disappears.
    fn read_unquoted_backslash(&mut self, parts: &mut Parts) {
        self.bump();
        match self.bump() {
            None => parts.literal('\\'),
            Some('\n') => {}
            Some(c) => parts.quoted(&c.to_string()),
        }
    }

    /// A backslash where only `special` characters (and a newline) can be escaped; before
    /// anything else it is an ordinary character.
    pub fn read_quoted_backslash(&mut self, parts: &mut Parts, special: &[char]) {
        self.bump();
        match self.peek() {
            Some('\n') => {
                self.bump();
            }
            Some(c) if special.contains(&c) => {
                self.bump();
                parts.literal(c);
            }
            _ => parts.literal('\\'),
        }
    }

    /// `'...'`, at the opening quote: the text inside.
    pub fn read_single_quoted(&mut self) -> Result<String, ParseError> {
        self.bump();
        let mut text = String::new();
        loop {
            match self.bump() {
                None => return Err(self.eof_error("'")),
                Some('\'') => return Ok(text),
                Some(c) => text.push(c),
            }
        }
    }

    /// `"..."`, at the opening quote: the parts inside.
    pub fn read_double_quoted(&mut self) -> Result<Vec<WordPart>, ParseError> {
        self.bump();
        self.enter()?;
        let mut parts = Parts::default();
        loop {
            match self.peek() {
                None => return Err(self.eof_error("\"")),
                Some('"') => break,
                Some('\\') => self.read_quoted_backslash(&mut parts, &['$', '`', '"', '\\']),
                Some('$') => self.read_dollar(&mut parts, true)?,
                Some('`') => parts.push(self.read_backquote(true)?),
                Some(c) => {
                    self.bump();
                    parts.literal(c);
                }
            }
        }
        self.bump();
        self.leave();
        Ok(parts.finish())
    }

    /// Whatever starts with `$`. `quoted`: inside double quotes or a here-document, where
    /// `$'...'` and `$"..."` are not special.
    pub fn read_dollar(&mut self, parts: &mut Parts, quoted: bool) -> Result<(), ParseError> {
        if self.peek_at(1) == Some('\\')
            && self.peek_at(2) == Some('\n')
            && self.read_split_dollar(parts)
        {
            return Ok(());
        }
        match self.peek_at(1) {
            Some('(') if self.peek_at(2) == Some('(') && self.is_arith_at(self.pos + 1) => {
                self.eat_str("$((");
                parts.push(WordPart::Arith(self.read_arith_body()?));
            }
            Some('(') => {
                self.eat_str("$(");
                parts.push(WordPart::CommandSubst(self.read_nested()?));
            }
            Some('[') => {
                self.eat_str("$[");
                let body = self.read_arith_until(('[', ']'), "]")?;
                parts.push(WordPart::Arith(body));
            }
            Some('{') => parts.push(self.read_braced_param(quoted)?),
            Some('\'') if !quoted => {
                self.bump();
                let text = self.read_ansi_c()?;
                parts.quoted(&text);
            }
            Some('"') if !quoted => {
                self.bump();
                parts.push(WordPart::DoubleQuoted(self.read_double_quoted()?));
            }
            Some(c) if is_name_start(c) => {
                self.bump();
                parts.push(plain(Param::Var(self.read_name())));
            }
            Some(c) if c.is_ascii_digit() => {
                self.eat_str("$");
                self.bump();
                parts.push(plain(Param::Positional(c.to_digit(10).unwrap_or(0))));
            }
            Some(c) if special_param(c).is_some() => {
                self.bump();
                self.bump();
                parts.extend_special(c);
            }
            _ => {
                self.bump();
                parts.literal('$');
            }
        }
        Ok(())
    }

    /// A variable name at the cursor (possibly empty).
    pub fn read_name(&mut self) -> String {
        let mut name = String::new();
        while let Some(c) = self
            .peek()
            .filter(|&c| c == '_' || c.is_ascii_alphanumeric())
        {
            self.bump();
            name.push(c);
        }
        name
    }

    /// The commands of `$(...)` or `<(...)`, after the `(`, through the `)`.
    fn read_nested(&mut self) -> Result<super::super::ast::Program, ParseError> {
        // Checked here: the nested parser lexes (and so recurses) before it checks depth.
        self.enter()?;
        let (program, pos, line) = parse_nested(self.src, self.pos, self.line, self.depth)?;
        self.leave();
        self.pos = pos;
        self.line = line;
        Ok(program)
    }

    /// `<(...)` or `>(...)`.
    fn read_process_subst(&mut self) -> Result<WordPart, ParseError> {
        let output = self.bump() == Some('>');
        self.bump();
        let program = self.read_nested()?;
        Ok(WordPart::ProcessSubst { output, program })
    }

    /// `` `...` ``, at the opening backquote. Inside, a backslash escapes `$`, `` ` `` and `\`
    /// (and `"` when the backquotes are inside double quotes); the resulting text is parsed
    /// as a program.
    pub fn read_backquote(&mut self, in_double_quotes: bool) -> Result<WordPart, ParseError> {
        let line = self.line;
        self.bump();
        let start = self.pos;
        let mut text = Vec::new();
        loop {
            match self.bump() {
                None => return Err(self.eof_error("`")),
                Some('`') => break,
                Some('\\') => match self.peek() {
                    Some(c @ ('$' | '`' | '\\')) => {
                        self.bump();
                        text.push(c);
                    }
                    Some('"') if in_double_quotes => {
                        self.bump();
                        text.push('"');
                    }
                    _ => text.push('\\'),
                },
                Some(c) => text.push(c),
            }
        }
        self.enter()?;
        let program = parse_chars(&text, line, self.depth)?;
        self.leave();
        Ok(WordPart::Backquote {
            program,
            text: self.text(start, self.pos - 1),
        })
    }

    /// The text of `((...))` or `$((...))` after the opening parentheses, through `))`:
    /// expansions and double quotes as inside double quotes; parentheses must balance.
    pub fn read_arith_body(&mut self) -> Result<Word, ParseError> {
        self.read_arith_until(('(', ')'), "))")
    }

    /// The body of `$(( ))` (closed by `))`) or of the old form `$[ ]` (closed by `]`): text
    /// with expansions, up to the closing bracket that balances.
    fn read_arith_until(
        &mut self,
        (open, close): (char, char),
        end: &str,
    ) -> Result<Word, ParseError> {
        self.enter()?;
        let mut parts = Parts::default();
        let mut parens = 0usize;
        loop {
            match self.peek() {
                None => return Err(self.eof_error(&close.to_string())),
                Some(c) if c == close && parens == 0 => break,
                Some('\\') => self.read_quoted_backslash(&mut parts, &['$', '`', '"', '\\']),
                Some('$') => self.read_dollar(&mut parts, true)?,
                Some('`') => parts.push(self.read_backquote(true)?),
                Some('"') => parts.push(WordPart::DoubleQuoted(self.read_double_quoted()?)),
                Some(c) => {
                    if c == open {
                        parens += 1;
                    } else if c == close {
                        parens -= 1;
                    }
                    self.bump();
                    parts.literal(c);
                }
            }
        }
        if !self.eat_str(end) {
            return Err(self.error(format!("syntax error near unexpected token `{close}'")));
        }
        self.leave();
        Ok(Word {
            parts: parts.finish(),
        })
    }

    /// `$'...'`, at the quote: the decoded text, which ends at a NUL (`\0`, `\x00`) as in
    /// bash.
    pub(super) fn read_ansi_c(&mut self) -> Result<String, ParseError> {
        self.bump();
        let mut text = String::new();
        let mut bytes = Vec::new();
        loop {
            match self.bump() {
                None => return Err(self.eof_error("'")),
                Some('\'') => {
                    flush_bytes(&mut text, &mut bytes);
                    if let Some(nul) = text.find('\0') {
                        text.truncate(nul);
                    }
                    return Ok(text);
                }
                Some('\\') if matches!(self.peek(), Some('x' | '0'..='7')) => {
                    self.read_ansi_byte(&mut text, &mut bytes);
                }
                Some('\\') => {
                    flush_bytes(&mut text, &mut bytes);
                    self.read_ansi_escape(&mut text);
                }
                Some(c) => {
                    flush_bytes(&mut text, &mut bytes);
                    text.push(c);
                }
            }
        }
    }

    /// `\xHH` or an octal escape, at the `x` or first digit: one byte, kept in `bytes` so that
    /// a run of them spelling UTF-8 (`$'\xce\xbb'`) decodes to its character.
    fn read_ansi_byte(&mut self, text: &mut String, bytes: &mut Vec<u8>) {
        let byte = match self.bump() {
            Some('x') if self.peek().is_some_and(|c| c.is_ascii_hexdigit()) => {
                self.read_digits(16, 2, 0)
            }
            Some('x') => {
                flush_bytes(text, bytes);
                text.push_str("\\x");
                return;
            }
            Some(c) => self.read_digits(8, 2, c.to_digit(8).unwrap_or(0)),
            None => return,
        };
        bytes.push((byte & 0xff) as u8);
    }

    /// One escape of `$'...'` other than a byte (`\xHH`, octal), after the backslash.
    fn read_ansi_escape(&mut self, text: &mut String) {
        let Some(c) = self.bump() else {
            text.push('\\');
            return;
        };
        let simple = match c {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'e' | 'E' => Some('\x1b'),
            'f' => Some('\x0c'),
            'v' => Some('\x0b'),
            '\\' | '\'' | '"' | '?' => Some(c),
            _ => None,
        };
        if let Some(decoded) = simple {
            text.push(decoded);
            return;
        }
        match c {
            'u' => self.push_code(text, 16, 4, "\\u"),
            'U' => self.push_code(text, 16, 8, "\\U"),
            'c' => match self.bump() {
                Some(ctl) => text.extend(char::from_u32(u32::from(ctl) & 0x1f)),
                None => text.push_str("\\c"),
            },
            _ => {
                text.push('\\');
                text.push(c);
            }
        }
    }

    /// Up to `max` digits in `radix` (none: the escape stays as written).
    fn push_code(&mut self, text: &mut String, radix: u32, max: usize, escape: &str) {
        match self.peek().and_then(|c| c.to_digit(radix)) {
            None => text.push_str(escape),
            Some(_) => {
                let value = self.read_digits(radix, max, 0);
                text.push_str(&crate::shell::bytes::code_point(value));
            }
        }
    }

    fn read_digits(&mut self, radix: u32, max: usize, mut value: u32) -> u32 {
        for _ in 0..max {
            let Some(digit) = self.peek().and_then(|c| c.to_digit(radix)) else {
                break;
            };
            self.bump();
            value = value.saturating_mul(radix).saturating_add(digit);
        }
        value
    }
}

/// Appends the bytes of `$'\x..'` escapes to `text`: as UTF-8 when they spell it, each
/// other byte as itself (see [`crate::shell::bytes`]).
fn flush_bytes(text: &mut String, bytes: &mut Vec<u8>) {
    text.push_str(&crate::shell::bytes::decode(bytes));
    bytes.clear();
}

impl Parts {
    /// Appends `$c` for a special parameter character.
    fn extend_special(&mut self, c: char) {
        if let Some(special) = special_param(c) {
            self.push(plain(Param::Special(special)));
        }
    }
}
