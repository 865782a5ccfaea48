//! bc's tokens: numbers (digits `0-9A-Z`), names, strings, keywords, operators and the
//! newlines that end statements; comments and `\`-newline continuations are skipped.

/// A token and the line it ends on.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// What it is.
    pub kind: Tok,
    /// Its line (for a newline: the line after it, as bc counts).
    pub line: usize,
    /// Byte offset just past the token.
    pub end: usize,
}

/// Token kinds.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A number literal as written (`12.5`, `FF`).
    Number(String),
    /// A name (`x`, `my_var1`).
    Name(String),
    /// A string literal's contents.
    Str(String),
    /// A keyword (`define`, `if`, `scale`...).
    Keyword(&'static str),
    /// An operator or punctuation (`+`, `<=`, `(`...).
    Op(&'static str),
    /// End of a line.
    Newline,
}

/// Why lexing stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum LexError {
    /// The text ends inside a string (true) or a comment (false): more input may end it.
    Incomplete(bool),
}

/// Tokens, and the characters bc does not know (`illegal character: $`) with their lines.
pub struct Lexed {
    /// The tokens.
    pub tokens: Vec<Token>,
    /// Skipped illegal characters.
    pub illegal: Vec<(usize, char)>,
}

const KEYWORDS: [&str; 21] = [
    "auto", "break", "continue", "define", "else", "for", "halt", "ibase", "if", "last", "length",
    "limits", "obase", "print", "quit", "read", "return", "scale", "sqrt", "void", "warranty",
];
const WHILE: &str = "while";

const OPS: [&str; 32] = [
    "&&", "||", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "+", "-",
    "*", "/", "%", "^", "=", "<", ">", "!", "(", ")", "[", "]", "{", "}", ",", ";",
];

/// Splits `text` into tokens; `line` is the number of the first line.
pub fn lex(text: &str, line: usize) -> Result<Lexed, LexError> {
    let mut lexer = Lexer {
        chars: text.char_indices().peekable(),
        text,
        line,
        out: Vec::new(),
        illegal: Vec::new(),
    };
    lexer.run()?;
    Ok(Lexed {
        tokens: lexer.out,
        illegal: lexer.illegal,
    })
}

struct Lexer<'a> {
    chars: std::iter::Peekable<std::str::CharIndices<'a>>,
    text: &'a str,
    line: usize,
    out: Vec<Token>,
    illegal: Vec<(usize, char)>,
}

impl Lexer<'_> {
    fn push(&mut self, kind: Tok) {
        let end = self.chars.peek().map_or(self.text.len(), |p| p.0);
        self.out.push(Token {
            kind,
            line: self.line,
            end,
        });
    }

    fn run(&mut self) -> Result<(), LexError> {
        while let Some((at, c)) = self.chars.next() {
            match c {
                '\n' => {
                    self.line += 1;
                    self.push(Tok::Newline);
                }
                ' ' | '\t' | '\r' | '\u{c}' | '\u{b}' => {}
                '\\' if self.chars.peek().map(|p| p.1) == Some('\n') => {
                    self.chars.next();
                    self.line += 1;
                }
                '#' => self.skip_line(),
                '/' if self.chars.peek().map(|p| p.1) == Some('*') => self.comment()?,
                '"' => self.string()?,
                '0'..='9' | 'A'..='Z' | '.' => self.number(at, c),
                'a'..='z' => self.word(at),
                _ => self.op(at, c),
            }
        }
        Ok(())
    }

    fn skip_line(&mut self) {
        while let Some(&(_, c)) = self.chars.peek() {
            if c == '\n' {
                break;
            }
            self.chars.next();
        }
    }

    fn comment(&mut self) -> Result<(), LexError> {
        self.chars.next();
        let mut star = false;
        for (_, c) in self.chars.by_ref() {
            if c == '\n' {
                self.line += 1;
            }
            if star && c == '/' {
                return Ok(());
            }
            star = c == '*';
        }
        Err(LexError::Incomplete(false))
    }

    fn string(&mut self) -> Result<(), LexError> {
        let mut s = String::new();
        let start_line = self.line;
        for (_, c) in self.chars.by_ref() {
            if c == '"' {
                let end = self.chars.peek().map_or(self.text.len(), |p| p.0);
                self.out.push(Token {
                    kind: Tok::Str(s),
                    line: start_line,
                    end,
                });
                return Ok(());
            }
            if c == '\n' {
                self.line += 1;
            }
            s.push(c);
        }
        Err(LexError::Incomplete(true))
    }

    fn number(&mut self, start: usize, first: char) {
        let mut end = start + first.len_utf8();
        let mut seen_dot = first == '.';
        while let Some(&(at, c)) = self.chars.peek() {
            let digit = c.is_ascii_digit() || c.is_ascii_uppercase();
            if digit || (c == '.' && !seen_dot) {
                seen_dot |= c == '.';
                end = at + 1;
                self.chars.next();
            } else if c == '\\' && self.text[at..].starts_with("\\\n") {
                self.chars.next();
                self.chars.next();
                self.line += 1;
                end = at + 2;
            } else {
                break;
            }
        }
        let text: String = self.text[start..end]
            .chars()
            .filter(|c| *c != '\\' && *c != '\n')
            .collect();
        if text == "." {
            self.push(Tok::Keyword("last"));
        } else {
            self.push(Tok::Number(text));
        }
    }

    fn word(&mut self, start: usize) {
        let mut end = start + 1;
        while let Some(&(at, c)) = self.chars.peek() {
            if c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' {
                end = at + 1;
                self.chars.next();
            } else {
                break;
            }
        }
        let word = &self.text[start..end];
        if word == WHILE {
            self.push(Tok::Keyword(WHILE));
        } else if let Some(k) = KEYWORDS.iter().find(|k| **k == word) {
            self.push(Tok::Keyword(k));
        } else {
            self.push(Tok::Name(word.to_string()));
        }
    }

    fn op(&mut self, at: usize, c: char) {
        let rest = &self.text[at..];
        let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) else {
            self.illegal.push((self.line, c));
            return;
        };
        for _ in 1..op.len() {
            self.chars.next();
        }
        self.push(Tok::Op(op));
    }
}
