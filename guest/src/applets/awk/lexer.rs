//! The awk lexer: source text to tokens, deciding `/` (division or regex) from the previous
//! token, dropping newlines where the grammar allows them (after `{ , && || do else`), and
//! joining backslash-newline continuations.

use super::ere::escape_byte;

/// Assignment operators' arithmetic (`+=` is `Some(Add)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `^`
    Pow,
}

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// End of a line (a statement terminator).
    Newline,
    /// End of the program.
    Eof,
    /// `{`
    LBrace,
    /// `}`
    RBrace,
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `[`
    LBracket,
    /// `]`
    RBracket,
    /// `;`
    Semi,
    /// `,`
    Comma,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `^` or `**`
    Caret,
    /// `!`
    Not,
    /// `>`
    Gt,
    /// `<`
    Lt,
    /// `|`
    Pipe,
    /// `|&`
    PipeAmp,
    /// `?`
    Question,
    /// `:`
    Colon,
    /// `~`
    Tilde,
    /// `!~`
    NoMatch,
    /// `$`
    Dollar,
    /// `=` (None) or an arithmetic assignment.
    Assign(Option<Arith>),
    /// `++`
    Incr,
    /// `--`
    Decr,
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `>>`
    Append,
    /// A number constant.
    Number(f64),
    /// A string constant (escapes processed).
    Str(Vec<u8>),
    /// A regex constant (raw text between the slashes).
    Regex(Vec<u8>),
    /// A variable or function name.
    Name(String),
    /// A user function name directly followed by `(`.
    FuncName(String),
    /// A built-in function name.
    Builtin(String),
    /// A keyword (`BEGIN`, `if`, `getline`, `print`...).
    Keyword(Kw),
}

/// Keywords.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kw {
    /// `BEGIN`
    Begin,
    /// `END`
    End,
    /// `BEGINFILE`
    BeginFile,
    /// `ENDFILE`
    EndFile,
    /// `function` / `func`
    Function,
    /// `if`
    If,
    /// `else`
    Else,
    /// `while`
    While,
    /// `for`
    For,
    /// `do`
    Do,
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `next`
    Next,
    /// `nextfile`
    NextFile,
    /// `exit`
    Exit,
    /// `return`
    Return,
    /// `delete`
    Delete,
    /// `in`
    In,
    /// `getline`
    Getline,
    /// `print`
    Print,
    /// `printf`
    Printf,
}

/// The built-in functions' names.
pub const BUILTINS: &[&str] = &[
    "length", "substr", "index", "split", "sub", "gsub", "gensub", "match", "sprintf", "sin",
    "cos", "atan2", "exp", "log", "sqrt", "int", "rand", "srand", "tolower", "toupper", "system",
    "close", "fflush", "systime", "strftime", "mktime", "asort", "asorti", "and", "or", "xor",
    "lshift", "rshift", "compl", "strtonum",
];

fn keyword(name: &str) -> Option<Kw> {
    Some(match name {
        "BEGIN" => Kw::Begin,
        "END" => Kw::End,
        "BEGINFILE" => Kw::BeginFile,
        "ENDFILE" => Kw::EndFile,
        "function" | "func" => Kw::Function,
        "if" => Kw::If,
        "else" => Kw::Else,
        "while" => Kw::While,
        "for" => Kw::For,
        "do" => Kw::Do,
        "break" => Kw::Break,
        "continue" => Kw::Continue,
        "next" => Kw::Next,
        "nextfile" => Kw::NextFile,
        "exit" => Kw::Exit,
        "return" => Kw::Return,
        "delete" => Kw::Delete,
        "in" => Kw::In,
        "getline" => Kw::Getline,
        "print" => Kw::Print,
        "printf" => Kw::Printf,
        _ => return None,
    })
}

/// A token and where it ends in the source (for error carets).
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// 1-based line.
    pub line: usize,
    /// Byte offset of the token's first byte.
    pub start: usize,
    /// Byte offset just past the token.
    pub end: usize,
}

/// A lexing error: message, line, byte offset.
pub type LexError = (String, usize, usize);

/// Warnings found while lexing: (line, message).
pub type Warnings = Vec<(usize, String)>;

/// gawk's warning for a backslash before a character that needs none.
pub fn escape_warning(c: &str) -> String {
    format!("escape sequence `\\{c}' treated as plain `{c}'")
}

/// Splits `src` into tokens.
pub fn tokenize(src: &[u8]) -> Result<(Vec<Token>, Warnings), LexError> {
    let mut lx = Lexer {
        src,
        i: 0,
        start: 0,
        line: 1,
        out: Vec::new(),
        warnings: Vec::new(),
    };
    lx.run()?;
    Ok((lx.out, lx.warnings))
}

struct Lexer<'a> {
    src: &'a [u8],
    i: usize,
    /// Where the token being lexed starts.
    start: usize,
    line: usize,
    out: Vec<Token>,
    warnings: Warnings,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> u8 {
        self.src.get(self.i + ahead).copied().unwrap_or(0)
    }

    fn push(&mut self, tok: Tok) {
        self.out.push(Token {
            tok,
            line: self.line,
            start: self.start,
            end: self.i,
        });
    }

    /// Whether a `/` here divides (after an operand) rather than starts a regex.
    fn divides(&self) -> bool {
        matches!(
            self.out.last().map(|t| &t.tok),
            Some(
                Tok::Name(_)
                    | Tok::Number(_)
                    | Tok::Str(_)
                    | Tok::RParen
                    | Tok::RBracket
                    | Tok::Builtin(_)
                    | Tok::Incr
                    | Tok::Decr
            )
        )
    }

    /// Newlines after these tokens continue the statement.
    fn newline_ignored(&self) -> bool {
        matches!(
            self.out.last().map(|t| &t.tok),
            Some(
                Tok::Comma
                    | Tok::LBrace
                    | Tok::And
                    | Tok::Or
                    | Tok::Keyword(Kw::Do)
                    | Tok::Keyword(Kw::Else)
            )
        )
    }

    fn run(&mut self) -> Result<(), LexError> {
        loop {
            let c = self.peek(0);
            self.start = self.i;
            if self.i >= self.src.len() {
                self.push(Tok::Eof);
                return Ok(());
            }
            match c {
                b' ' | b'\t' | b'\r' => self.i += 1,
                b'\\' if self.peek(1) == b'\n' => {
                    self.i += 2;
                    self.line += 1;
                }
                b'\\' if self.peek(1) == b'\r' && self.peek(2) == b'\n' => {
                    self.i += 3;
                    self.line += 1;
                }
                b'#' => {
                    while self.i < self.src.len() && self.src[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                b'\n' => {
                    self.i += 1;
                    if !self.newline_ignored() {
                        self.push(Tok::Newline);
                    }
                    self.line += 1;
                }
                b'"' => self.string()?,
                b'/' if !self.divides() => self.regex()?,
                b'0'..=b'9' | b'.' if c != b'.' || self.peek(1).is_ascii_digit() => self.number(),
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.word(),
                _ => self.operator()?,
            }
        }
    }

    /// An unterminated regex (gawk's caret is just after the slash) or string (at the quote).
    fn error<T>(&self, msg: &str) -> Result<T, LexError> {
        let at = if msg.contains("regexp") {
            self.start + 1
        } else {
            self.start
        };
        Err((msg.to_string(), self.line, at))
    }

    fn string(&mut self) -> Result<(), LexError> {
        self.i += 1;
        let mut s = Vec::new();
        loop {
            let Some(&c) = self.src.get(self.i) else {
                return self.error("unterminated string");
            };
            self.i += 1;
            match c {
                b'"' => break,
                b'\n' => return self.error("unterminated string"),
                b'\\' => self.string_escape(&mut s),
                _ => s.push(c),
            }
        }
        self.push(Tok::Str(s));
        Ok(())
    }

    fn string_escape(&mut self, s: &mut Vec<u8>) {
        let rest = &self.src[self.i..];
        if rest.first() == Some(&b'/') {
            self.warn_escape();
        }
        if let Some((b, len)) = escape_byte(rest) {
            s.push(b);
            self.i += len;
            return;
        }
        match rest.first() {
            Some(b'\n') => {
                self.i += 1;
                self.line += 1;
            }
            Some(b'\\') => {
                s.push(b'\\');
                self.i += 1;
            }
            Some(_) => {
                // gawk keeps the character and drops the backslash (with a warning).
                let len = super::chars::len_at(rest, 0);
                s.extend_from_slice(&rest[..len]);
                self.warn_escape();
                self.i += len;
            }
            None => s.push(b'\\'),
        }
    }

    /// Records gawk's warning for the needless escape of the character at `self.i`.
    fn warn_escape(&mut self) {
        let len = super::chars::len_at(&self.src[self.i..], 0);
        let shown = String::from_utf8_lossy(&self.src[self.i..self.i + len]).into_owned();
        self.warnings.push((self.line, escape_warning(&shown)));
    }

    fn regex(&mut self) -> Result<(), LexError> {
        self.i += 1;
        let start = self.i;
        let mut in_bracket = false;
        loop {
            let Some(&c) = self.src.get(self.i) else {
                return self.error("unterminated regexp");
            };
            match c {
                b'\n' => return self.error("unterminated regexp"),
                b'\\' => self.i += 1,
                b'[' if !in_bracket => {
                    in_bracket = true;
                    if self.peek(1) == b'^' {
                        self.i += 1;
                    }
                    if self.peek(1) == b']' {
                        self.i += 1;
                    }
                }
                b'[' if self.peek(1) == b':' => {
                    if let Some(end) = self.src[self.i + 2..].windows(2).position(|w| w == b":]") {
                        self.i += end + 3;
                    }
                }
                b']' if in_bracket => in_bracket = false,
                b'/' if !in_bracket => break,
                _ => {}
            }
            self.i += 1;
        }
        let text = self.src[start..self.i].to_vec();
        self.i += 1;
        self.push(Tok::Regex(text));
        Ok(())
    }

    fn number(&mut self) {
        let rest = &self.src[self.i..];
        if rest.len() > 2
            && rest[0] == b'0'
            && (rest[1] | 0x20) == b'x'
            && rest[2].is_ascii_hexdigit()
        {
            let len = rest[2..]
                .iter()
                .take_while(|b| b.is_ascii_hexdigit())
                .count();
            let text = String::from_utf8_lossy(&rest[2..2 + len]).into_owned();
            self.i += 2 + len;
            let n = u64::from_str_radix(&text, 16).map_or(f64::INFINITY, |v| v as f64);
            self.push(Tok::Number(n));
            return;
        }
        let mut len = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        let int_len = len;
        if rest.get(len) == Some(&b'.') {
            len += 1;
            len += rest[len..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
        }
        if matches!(rest.get(len), Some(b'e' | b'E')) {
            let mut j = len + 1;
            if matches!(rest.get(j), Some(b'+' | b'-')) {
                j += 1;
            }
            let digits = rest[j..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 {
                len = j + digits;
            }
        }
        let text = String::from_utf8_lossy(&rest[..len]).into_owned();
        self.i += len;
        let octal = len == int_len
            && len > 1
            && text.starts_with('0')
            && text.bytes().all(|b| (b'0'..=b'7').contains(&b));
        let n = if octal {
            u64::from_str_radix(&text, 8).map_or(0.0, |v| v as f64)
        } else {
            text.parse().unwrap_or(0.0)
        };
        self.push(Tok::Number(n));
    }

    fn word(&mut self) {
        let rest = &self.src[self.i..];
        let len = rest
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let name = String::from_utf8_lossy(&rest[..len]).into_owned();
        self.i += len;
        let tok = if let Some(kw) = keyword(&name) {
            Tok::Keyword(kw)
        } else if BUILTINS.contains(&name.as_str()) {
            Tok::Builtin(name)
        } else if self.peek(0) == b'(' {
            Tok::FuncName(name)
        } else {
            Tok::Name(name)
        };
        self.push(tok);
    }

    fn operator(&mut self) -> Result<(), LexError> {
        let (c, n1, n2) = (self.peek(0), self.peek(1), self.peek(2));
        let (tok, len) = match (c, n1) {
            (b'*', b'*') if n2 == b'=' => (Tok::Assign(Some(Arith::Pow)), 3),
            (b'*', b'*') => (Tok::Caret, 2),
            (b'+', b'+') => (Tok::Incr, 2),
            (b'-', b'-') => (Tok::Decr, 2),
            (b'+', b'=') => (Tok::Assign(Some(Arith::Add)), 2),
            (b'-', b'=') => (Tok::Assign(Some(Arith::Sub)), 2),
            (b'*', b'=') => (Tok::Assign(Some(Arith::Mul)), 2),
            (b'/', b'=') => (Tok::Assign(Some(Arith::Div)), 2),
            (b'%', b'=') => (Tok::Assign(Some(Arith::Mod)), 2),
            (b'^', b'=') => (Tok::Assign(Some(Arith::Pow)), 2),
            (b'=', b'=') => (Tok::Eq, 2),
            (b'!', b'=') => (Tok::Ne, 2),
            (b'!', b'~') => (Tok::NoMatch, 2),
            (b'<', b'=') => (Tok::Le, 2),
            (b'>', b'=') => (Tok::Ge, 2),
            (b'>', b'>') => (Tok::Append, 2),
            (b'&', b'&') => (Tok::And, 2),
            (b'|', b'|') => (Tok::Or, 2),
            (b'|', b'&') => (Tok::PipeAmp, 2),
            _ => (single(c).ok_or_else(|| self.invalid(c))?, 1),
        };
        self.i += len;
        self.push(tok);
        Ok(())
    }

    fn invalid(&self, c: u8) -> LexError {
        let shown = if c.is_ascii_graphic() {
            format!("invalid char '{}' in expression", char::from(c))
        } else {
            "invalid character in expression".to_string()
        };
        (shown, self.line, self.i)
    }
}

fn single(c: u8) -> Option<Tok> {
    Some(match c {
        b'{' => Tok::LBrace,
        b'}' => Tok::RBrace,
        b'(' => Tok::LParen,
        b')' => Tok::RParen,
        b'[' => Tok::LBracket,
        b']' => Tok::RBracket,
        b';' => Tok::Semi,
        b',' => Tok::Comma,
        b'+' => Tok::Plus,
        b'-' => Tok::Minus,
        b'*' => Tok::Star,
        b'/' => Tok::Slash,
        b'%' => Tok::Percent,
        b'^' => Tok::Caret,
        b'!' => Tok::Not,
        b'>' => Tok::Gt,
        b'<' => Tok::Lt,
        b'|' => Tok::Pipe,
        b'?' => Tok::Question,
        b':' => Tok::Colon,
        b'~' => Tok::Tilde,
        b'$' => Tok::Dollar,
        b'=' => Tok::Assign(None),
        _ => return None,
    })
}
