//! The lexer: turns source text into tokens (words, operators, newlines) for the parser.
//!
//! Shell lexing depends on context, so the parser drives it one token at a time and, in a few
//! places, asks for a special read directly (a here-document delimiter, the regular
//! expression after `=~`). The structure inside a word (quotes, `$...` expansions) is read by
//! [`parser::word`](super::parser::word), which calls back into the parser for `$(...)`.
//! Here-document bodies are collected when the newline that ends their line is lexed.

use super::ast::{Word, WordPart};
use super::parser::assign::split_assignment;
use super::parser::word::is_name;
use super::parser::ParseError;
use crate::limits::MAX_SYNTAX_DEPTH;

/// The operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `;`
    Semi,
    /// `;;`
    DSemi,
    /// `;&`
    SemiAmp,
    /// `;;&`
    DSemiAmp,
    /// `&`
    Amp,
    /// `&&`
    AndIf,
    /// `|`
    Pipe,
    /// `|&`
    PipeAmp,
    /// `||`
    OrIf,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `<`
    Less,
    /// `>`
    Great,
    /// `>>`
    DGreat,
    /// `>|`
    Clobber,
    /// `<&`
    LessAnd,
    /// `>&`
    GreatAnd,
    /// `<>`
    LessGreat,
    /// `&>`
    AndGreat,
    /// `&>>`
    AndDGreat,
    /// `<<`
    DLess,
    /// `<<-`
    DLessDash,
    /// `<<<`
    TLess,
}

/// Operators by spelling, longest first so that the first match is the longest.
const OPS: &[(&str, Op)] = &[
    (";;&", Op::DSemiAmp),
    ("&>>", Op::AndDGreat),
    ("<<<", Op::TLess),
    ("<<-", Op::DLessDash),
    (";;", Op::DSemi),
    (";&", Op::SemiAmp),
    ("&&", Op::AndIf),
    ("&>", Op::AndGreat),
    ("||", Op::OrIf),
    ("|&", Op::PipeAmp),
    ("<<", Op::DLess),
    ("<&", Op::LessAnd),
    ("<>", Op::LessGreat),
    (">>", Op::DGreat),
    (">&", Op::GreatAnd),
    (">|", Op::Clobber),
    (";", Op::Semi),
    ("&", Op::Amp),
    ("|", Op::Pipe),
    ("(", Op::LParen),
    (")", Op::RParen),
    ("<", Op::Less),
    (">", Op::Great),
];

impl Op {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        OPS.iter()
            .find(|(_, op)| *op == self)
            .map_or("", |(text, _)| text)
    }

    /// Whether this operator starts a redirection.
    pub fn is_redirect(self) -> bool {
        use Op::*;
        matches!(
            self,
            Less | Great
                | DGreat
                | Clobber
                | LessAnd
                | GreatAnd
                | LessGreat
                | AndGreat
                | AndDGreat
                | DLess
                | DLessDash
                | TLess
        )
    }
}

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A word (keywords are words too; the parser recognises them by position).
    Word(Word),
    /// `name=(` ... `)`: the word up to and including `=`, and the element words.
    ArrayAssign(Word, Vec<Word>),
    /// Digits directly before `<` or `>`: the descriptor of a redirection.
    IoNumber(u32),
    /// `{name}` directly before `<` or `>`: a variable to hold the redirection's descriptor.
    IoVar(String),
    /// `(( ... ))` read at the start of a token: the text inside.
    DParen(Word),
    /// An operator.
    Op(Op),
    /// A newline (outside words).
    Newline,
    /// The end of the input.
    Eof,
}

/// A token and where it is in the source.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Offset of its first character.
    pub start: usize,
    /// Offset just past its last character.
    pub end: usize,
    /// The 1-based line it starts on.
    pub line: usize,
}

/// A here-document whose body has not been read yet.
#[derive(Debug, Clone)]
struct PendingHereDoc {
    delimiter: String,
    strip_tabs: bool,
    expand: bool,
    line: usize,
}

/// A cursor over the source with the state lexing needs.
pub struct Lexer<'a> {
    /// The whole source.
    pub src: &'a [char],
    /// The current offset.
    pub pos: usize,
    /// The current 1-based line.
    pub line: usize,
    /// The current nesting depth (see [`MAX_SYNTAX_DEPTH`]).
    pub depth: usize,
    pending: Vec<PendingHereDoc>,
    /// Here-document bodies read so far, in source order.
    pub heredoc_bodies: Vec<Word>,
    /// Lexing the inside of `$(...)`.
    pub in_substitution: bool,
    /// A word here may be an assignment (no command name yet): blanks inside the subscript
    /// of `a[1 + 2]=x` belong to the word.
    pub assign_words: bool,
    /// Inside `[[ ]]`, where extended glob groups need no `shopt -s extglob`.
    pub in_cond: bool,
    /// The lines of the extended glob groups read outside `[[ ]]` (see
    /// [`crate::shell::parse_script`]).
    pub extglob_lines: Vec<usize>,
}

/// Characters that end an unquoted word.
pub fn is_meta(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
    )
}

impl<'a> Lexer<'a> {
    /// A lexer at `pos` (on `line`) of `src`, already `depth` levels deep.
    pub fn new(src: &'a [char], pos: usize, line: usize, depth: usize) -> Lexer<'a> {
        Lexer {
            src,
            pos,
            line,
            depth,
            pending: Vec::new(),
            heredoc_bodies: Vec::new(),
            in_substitution: false,
            assign_words: true,
            in_cond: false,
            extglob_lines: Vec::new(),
        }
    }

    /// The current character.
    pub fn peek(&self) -> Option<char> {
        self.src.get(self.pos).copied()
    }

    /// The character `n` places ahead.
    pub fn peek_at(&self, n: usize) -> Option<char> {
        self.src.get(self.pos + n).copied()
    }

    /// Consumes the current character.
    pub fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    /// Consumes `c` if it is next.
    pub fn eat(&mut self, c: char) -> bool {
        let found = self.peek() == Some(c);
        if found {
            self.bump();
        }
        found
    }

    /// Whether the input continues with `s`.
    pub fn starts_with(&self, s: &str) -> bool {
        s.chars()
            .enumerate()
            .all(|(i, c)| self.peek_at(i) == Some(c))
    }

    /// Consumes `s` if the input continues with it.
    pub fn eat_str(&mut self, s: &str) -> bool {
        let found = self.starts_with(s);
        if found {
            s.chars().for_each(|_| {
                self.bump();
            });
        }
        found
    }

    /// The source text between two offsets.
    pub fn text(&self, start: usize, end: usize) -> String {
        self.src
            .get(start..end)
            .unwrap_or_default()
            .iter()
            .collect()
    }

    /// An error at the current position.
    pub fn error(&self, message: impl Into<String>) -> ParseError {
        self.error_at(self.pos, self.line, message)
    }

    /// An error at `pos`, on `line`.
    pub fn error_at(&self, pos: usize, line: usize, message: impl Into<String>) -> ParseError {
        let before = self.src.get(..pos).unwrap_or_default();
        let column = before.iter().rev().take_while(|&&c| c != '\n').count() + 1;
        ParseError {
            message: message.into(),
            line,
            column,
        }
    }

    /// The error for input that ends inside a construct opened by `open`.
    pub fn eof_error(&self, open: &str) -> ParseError {
        self.error(format!(
            "unexpected EOF while looking for matching `{open}'"
        ))
    }

    /// Goes one level deeper, failing past [`MAX_SYNTAX_DEPTH`]. Pair with [`Lexer::leave`].
    pub fn enter(&mut self) -> Result<(), ParseError> {
        if self.depth >= MAX_SYNTAX_DEPTH {
            return Err(self.error(format!(
                "syntax error: nesting too deep (more than {MAX_SYNTAX_DEPTH} levels)"
            )));
        }
        self.depth += 1;
        Ok(())
    }

    /// Comes back up one level.
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skips blanks, line continuations and a comment (but not the newline ending it).
    pub fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t') => {
                    self.bump();
                }
                Some('\\') if self.peek_at(1) == Some('\n') => {
                    self.bump();
                    self.bump();
                }
                Some('#') => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.bump();
                    }
                }
                _ => return,
            }
        }
    }

    /// Reads the next token.
    pub fn next_token(&mut self) -> Result<Token, ParseError> {
        self.skip_blanks();
        let (start, line) = (self.pos, self.line);
        let tok = self.read_token()?;
        Ok(Token {
            tok,
            start,
            end: self.pos,
            line,
        })
    }

    fn read_token(&mut self) -> Result<Tok, ParseError> {
        let Some(c) = self.peek() else {
            return self.end_of_input();
        };
        if c == '\n' {
            self.bump();
            self.read_heredoc_bodies()?;
            return Ok(Tok::Newline);
        }
        if self.starts_with("((") && self.is_arith_at(self.pos) {
            self.bump();
            self.bump();
            return Ok(Tok::DParen(self.read_arith_body()?));
        }
        if self.starts_with("<(") || self.starts_with(">(") {
            return self.read_word_token();
        }
        if let Some(op) = self.read_operator() {
            return Ok(Tok::Op(op));
        }
        self.read_word_token()
    }

    fn end_of_input(&self) -> Result<Tok, ParseError> {
        match self.pending.first() {
            Some(doc) => Err(self.unterminated_heredoc(doc)),
            None => Ok(Tok::Eof),
        }
    }

    fn unterminated_heredoc(&self, doc: &PendingHereDoc) -> ParseError {
        self.error(format!(
            "here-document at line {} delimited by end-of-file (wanted `{}')",
            doc.line, doc.delimiter
        ))
    }

    fn read_operator(&mut self) -> Option<Op> {
        let (text, op) = OPS.iter().find(|(text, _)| self.starts_with(text))?;
        text.chars().for_each(|_| {
            self.bump();
        });
        Some(*op)
    }

    /// A word, which may turn out to be a redirection's descriptor or an array assignment.
    fn read_word_token(&mut self) -> Result<Tok, ParseError> {
        let parts = self.read_word(false)?;
        if self.peek() == Some('(') {
            if let Some(prefix) = split_assignment(&parts) {
                if prefix.value.is_empty() {
                    let elements = self.read_array_elements()?;
                    return Ok(Tok::ArrayAssign(Word { parts }, elements));
                }
            }
        }
        if matches!(self.peek(), Some('<' | '>')) {
            if let [WordPart::Literal(digits)] = parts.as_slice() {
                if let Some(fd) = digits
                    .bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| digits.parse().ok())
                    .flatten()
                {
                    return Ok(Tok::IoNumber(fd));
                }
                let name = digits.strip_prefix('{').and_then(|d| d.strip_suffix('}'));
                // `{fd}>file`, or an array element: `exec {COPROC[1]}>&-`.
                let element = |n: &str| {
                    n.split_once('[')
                        .is_some_and(|(base, rest)| is_name(base) && rest.ends_with(']'))
                };
                if let Some(name) = name.filter(|n| is_name(n) || element(n)) {
                    return Ok(Tok::IoVar(name.to_string()));
                }
            }
        }
        Ok(Tok::Word(Word { parts }))
    }

    /// After `name=`: the words of `( ... )`, up to the closing parenthesis.
    fn read_array_elements(&mut self) -> Result<Vec<Word>, ParseError> {
        self.bump();
        let mut elements = Vec::new();
        loop {
            self.skip_blanks();
            match self.peek() {
                None => return Err(self.eof_error("(")),
                Some(')') => {
                    self.bump();
                    return Ok(elements);
                }
                Some('\n') => {
                    self.bump();
                }
                Some(c) if is_meta(c) => {
                    return Err(self.error(format!("syntax error near unexpected token `{c}'")))
                }
                Some(_) => elements.push(Word {
                    parts: self.read_word(false)?,
                }),
            }
        }
    }

    /// Whether the `((` at `pos` opens arithmetic (closed by `))`) rather than two
    /// subshells or a command substitution of a subshell: the `)` that brings the depth back
    /// to one must be directly followed by another `)`. A linear scan that skips quotes.
    pub fn is_arith_at(&self, pos: usize) -> bool {
        let mut depth = 0usize;
        let mut i = pos;
        while let Some(&c) = self.src.get(i) {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth <= 1 {
                        return self.src.get(i + 1) == Some(&')');
                    }
                }
                '\\' => i += 1,
                '\'' | '"' => i = self.skip_quote(i),
                _ => {}
            }
            i += 1;
        }
        // Unterminated: let the arithmetic reader report the missing `)`.
        true
    }

    /// The offset of the quote closing the one at `i` (or the end).
    fn skip_quote(&self, i: usize) -> usize {
        let quote = self.src.get(i).copied();
        let mut j = i + 1;
        while let Some(&c) = self.src.get(j) {
            if Some(c) == quote {
                return j;
            }
            if c == '\\' && quote == Some('"') {
                j += 1;
            }
            j += 1;
        }
        j
    }

    /// After `<<` or `<<-`: reads the delimiter word, returning its text with quotes removed
    /// and whether any part of it was quoted.
    pub fn read_heredoc_delimiter(&mut self) -> Option<(String, bool)> {
        self.skip_blanks();
        let mut text = String::new();
        let mut quoted = false;
        while let Some(c) = self.peek().filter(|&c| !is_meta(c)) {
            self.bump();
            match c {
                '\'' | '"' => {
                    quoted = true;
                    while let Some(d) = self.bump() {
                        if d == c {
                            break;
                        }
                        text.push(d);
                    }
                }
                '\\' => {
                    quoted = true;
                    text.extend(self.bump());
                }
                // `<<$(a)`, `<<${x}`: bash takes the text as written.
                '$' if matches!(self.peek(), Some('(' | '{')) => {
                    text.push(c);
                    let mut depth = 0usize;
                    while let Some(d) = self.bump() {
                        text.push(d);
                        match d {
                            '(' | '{' => depth += 1,
                            ')' | '}' => depth -= 1,
                            _ => {}
                        }
                        if depth == 0 {
                            break;
                        }
                    }
                }
                _ => text.push(c),
            }
        }
        (!text.is_empty() || quoted).then_some((text, quoted))
    }

    /// Registers a here-document whose body starts after the next newline token.
    pub fn push_heredoc(&mut self, delimiter: String, strip_tabs: bool, expand: bool) {
        self.pending.push(PendingHereDoc {
            delimiter,
            strip_tabs,
            expand,
            line: self.line,
        });
    }

    /// Fails if here-documents are still waiting for their bodies.
    pub fn check_heredocs_done(&self) -> Result<(), ParseError> {
        match self.pending.first() {
            Some(doc) => Err(self.unterminated_heredoc(doc)),
            None => Ok(()),
        }
    }

    fn read_heredoc_bodies(&mut self) -> Result<(), ParseError> {
        for doc in std::mem::take(&mut self.pending) {
            let body_line = self.line;
            let text = self.read_heredoc_lines(&doc)?;
            let body = if doc.expand && !text.contains(['$', '`', '\\']) && !text.is_empty() {
                // Nothing to expand: the text as is, without a copy four times its size.
                Word {
                    parts: vec![WordPart::DoubleQuoted(vec![WordPart::Literal(text)])],
                }
            } else if doc.expand {
                let chars: Vec<char> = text.chars().collect();
                super::parser::word::parse_heredoc_body(&chars, body_line, self.depth)?
            } else {
                Word {
                    parts: vec![WordPart::SingleQuoted(text)],
                }
            };
            self.heredoc_bodies.push(body);
        }
        Ok(())
    }

    /// The raw body of `doc`: every line up to its delimiter line (tabs stripped for `<<-`).
    fn read_heredoc_lines(&mut self, doc: &PendingHereDoc) -> Result<String, ParseError> {
        let mut body = String::new();
        loop {
            if self.peek().is_none() {
                return Err(self.unterminated_heredoc(doc));
            }
            let start = self.pos;
            let end = (start..self.src.len())
                .find(|&i| self.src.get(i) == Some(&'\n'))
                .unwrap_or(self.src.len());
            let line = self.text(start, end);
            let text = match doc.strip_tabs {
                true => line.trim_start_matches('\t'),
                false => &line,
            };
            if text == doc.delimiter {
                self.pos = end;
                self.eat('\n');
                return Ok(body);
            }
            if self.in_substitution && closes_substitution(text, &doc.delimiter) {
                // `$(cat <<EOF ... EOF)`: bash accepts the `)` on the delimiter line.
                let stripped = line.chars().count() - text.chars().count();
                self.pos = start + stripped + doc.delimiter.chars().count();
                return Ok(body);
            }
            self.pos = end;
            self.eat('\n');
            body.push_str(text);
            body.push('\n');
        }
    }
}

/// Whether a here-document line is its delimiter followed by the `)` of the enclosing
/// command substitution.
fn closes_substitution(line: &str, delimiter: &str) -> bool {
    line.strip_prefix(delimiter)
        .is_some_and(|rest| rest.trim_start().starts_with(')'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(src: &str) -> Vec<String> {
        let chars: Vec<char> = src.chars().collect();
        let mut lexer = Lexer::new(&chars, 0, 1, 0);
        let mut out = Vec::new();
        loop {
            match lexer.next_token() {
                Ok(Token { tok: Tok::Eof, .. }) => return out,
                Ok(Token {
                    tok, start, end, ..
                }) => out.push(match tok {
                    Tok::Op(op) => format!("op:{}", op.as_str()),
                    Tok::Newline => "nl".into(),
                    Tok::IoNumber(n) => format!("fd:{n}"),
                    Tok::DParen(_) => format!("arith:{}", lexer.text(start, end)),
                    Tok::ArrayAssign(_, elems) => format!("array:{}", elems.len()),
                    _ => lexer.text(start, end),
                }),
                Err(e) => {
                    out.push(format!("error:{e}"));
                    return out;
                }
            }
        }
    }

    macro_rules! lexes {
        ($($name:ident: $src:expr => [$($tok:expr),*];)*) => {$(
            #[test]
            fn $name() {
                let expected: Vec<String> = vec![$($tok.to_string()),*];
                assert_eq!(tokens($src), expected);
            }
        )*};
    }

    lexes! {
        lex_words: "echo  a\tb" => ["echo", "a", "b"];
        lex_operators: "a;b&&c||d|e|&f&" => ["a", "op:;", "b", "op:&&", "c", "op:||", "d", "op:|", "e", "op:|&", "f", "op:&"];
        lex_case_ops: ";; ;& ;;&" => ["op:;;", "op:;&", "op:;;&"];
        lex_redirect_ops: "< > >> >| <& >& <> &> &>> <<< " => ["op:<", "op:>", "op:>>", "op:>|", "op:<&", "op:>&", "op:<>", "op:&>", "op:&>>", "op:<<<"];
        lex_io_number: "2>err 10<in 2x>y" => ["fd:2", "op:>", "err", "fd:10", "op:<", "in", "2x", "op:>", "y"];
        lex_comment: "echo a#b #c d\nx" => ["echo", "a#b", "nl", "x"];
        lex_continuation: "ec\\\nho a \\\n b" => ["ec\\\nho", "a", "b"];
        lex_quoted_spaces: "'a b' \"c d\" e\\ f" => ["'a b'", "\"c d\"", "e\\ f"];
        lex_dparen: "((1+(2)))x" => ["arith:((1+(2)))", "x"];
        lex_nested_subshells: "((a) )" => ["op:(", "op:(", "a", "op:)", "op:)"];
        lex_array: "a=(1 2 3) b" => ["array:3", "b"];
        lex_process_subst: "<(a) >(b)" => ["<(a)", ">(b)"];
        lex_parens: "f() { :; }" => ["f", "op:(", "op:)", "{", ":", "op:;", "}"];
    }
}
