//! `${...}`: the parameter, then its operator and operand words.
//!
//! Operand words run to the closing `}` (braces inside them nest) or, for some operators,
//! to a `/` or `:`. Blanks and metacharacters are ordinary inside them. In an expansion
//! inside double quotes, single quotes in the operand of `:-`, `:=`, `:+` and `:?` are
//! ordinary characters (as in bash); in patterns they still quote.

use super::super::ast::{Param, ParamExpansion, ParamOp, ReplaceMode, Subscript, Word, WordPart};
use super::super::lexer::Lexer;
use super::brace::mark_tilde;
use super::word::{is_name_start, special_param, Parts};
use super::ParseError;

/// Why a `${...}` could not be read.
enum ParamError {
    /// Not a valid expansion: bash reports that only when it is expanded.
    Bad,
    /// A real syntax error (the input ended, nesting too deep...).
    Syntax(ParseError),
}

impl From<ParseError> for ParamError {
    fn from(e: ParseError) -> ParamError {
        ParamError::Syntax(e)
    }
}

/// Where an operand word stops (besides the closing `}`).
#[derive(Clone, Copy)]
struct Operand {
    /// Also stop at this character (at nesting depth 0).
    stop: Option<char>,
    /// The expansion is inside double quotes.
    in_double_quotes: bool,
    /// Single quotes are ordinary characters.
    literal_single_quotes: bool,
    /// A word (`${x:-word}`), which follows double-quote rules inside double quotes; in a
    /// pattern or replacement a backslash quotes any character.
    word: bool,
}

impl Operand {
    fn pattern(in_double_quotes: bool, stop: Option<char>) -> Operand {
        Operand {
            stop,
            in_double_quotes,
            literal_single_quotes: false,
            word: false,
        }
    }
}

impl Lexer<'_> {
    /// `${...}`, at the `$`: a [`WordPart::Param`], or a [`WordPart::BadSubstitution`]
    /// when the text between the braces is no valid expansion.
    pub fn read_braced_param(&mut self, quoted: bool) -> Result<WordPart, ParseError> {
        let saved = (self.pos, self.line, self.depth);
        self.eat_str("${");
        self.enter()?;
        let expansion = self.read_param_body(quoted);
        self.leave();
        match expansion {
            Ok(expansion) => Ok(WordPart::Param(expansion)),
            Err(ParamError::Syntax(e)) => Err(e),
            Err(ParamError::Bad) => {
                (self.pos, self.line, self.depth) = saved;
                self.skip_bad_substitution()
            }
        }
    }

    /// Skips a bad `${...}` by matching braces (outside quotes), as bash does when parsing.
    fn skip_bad_substitution(&mut self) -> Result<WordPart, ParseError> {
        let start = self.pos;
        self.eat_str("${");
        let mut depth = 1usize;
        while depth > 0 {
            match self.bump() {
                None => return Err(self.eof_error("}")),
                Some('\\') => {
                    self.bump();
                }
                Some(quote @ ('\'' | '"')) => self.skip_quoted(quote)?,
                Some('{') => depth += 1,
                Some('}') => depth -= 1,
                Some(_) => {}
            }
        }
        Ok(WordPart::BadSubstitution(self.text(start, self.pos)))
    }

    /// Skips to the end of a quoted string, after its opening `quote`.
    fn skip_quoted(&mut self, quote: char) -> Result<(), ParseError> {
        loop {
            match self.bump() {
                None => return Err(self.eof_error(&quote.to_string())),
                Some('\\') if quote == '"' => {
                    self.bump();
                }
                Some(c) if c == quote => return Ok(()),
                Some(_) => {}
            }
        }
    }

    fn read_param_body(&mut self, quoted: bool) -> Result<ParamExpansion, ParamError> {
        if self.peek() == Some('#') {
            if let Some(param) = self.try_length() {
                return Ok(ParamExpansion {
                    param,
                    indirect: false,
                    op: ParamOp::Length,
                    braced: true,
                });
            }
        }
        if self.peek() == Some('!') && self.peek_at(1) != Some('}') {
            self.bump();
            return self.read_indirect(quoted);
        }
        let param = self.read_param()?;
        let op = self.read_param_op(quoted)?;
        Ok(ParamExpansion {
            param,
            indirect: false,
            op,
            braced: true,
        })
    }

    /// `${#param}`, at the `#`; `None` (and nothing consumed) if this is `$#` with an
    /// operator instead, like `${#:-0}`.
    fn try_length(&mut self) -> Option<Param> {
        let saved = (self.pos, self.line, self.depth);
        self.bump();
        if self.peek() != Some('}') {
            if let Ok(param) = self.read_param() {
                if self.eat('}') {
                    return Some(param);
                }
            }
        }
        (self.pos, self.line, self.depth) = saved;
        None
    }

    /// `${!...}`, after the `!`.
    fn read_indirect(&mut self, quoted: bool) -> Result<ParamExpansion, ParamError> {
        let param = self.read_param()?;
        let names = matches!(param, Param::Var(_)) && matches!(self.peek(), Some('*' | '@'));
        let op = if names && self.peek_at(1) == Some('}') {
            let star = self.bump() == Some('*');
            self.bump();
            ParamOp::PrefixNames { star }
        } else if matches!(
            param,
            Param::Element {
                index: Subscript::All | Subscript::Star,
                ..
            }
        ) && self.eat('}')
        {
            ParamOp::Keys
        } else {
            let op = self.read_param_op(quoted)?;
            return Ok(ParamExpansion {
                param,
                indirect: true,
                op,
                braced: true,
            });
        };
        Ok(ParamExpansion {
            param,
            indirect: false,
            op,
            braced: true,
        })
    }

    /// A name (with an optional subscript), a number or a special character.
    fn read_param(&mut self) -> Result<Param, ParamError> {
        match self.peek() {
            Some(c) if is_name_start(c) => {
                let name = self.read_name();
                if self.peek() != Some('[') {
                    return Ok(Param::Var(name));
                }
                let index = self.read_subscript()?;
                Ok(Param::Element { name, index })
            }
            Some(c) if c.is_ascii_digit() => {
                let mut digits = String::new();
                while let Some(d) = self.peek().filter(char::is_ascii_digit) {
                    self.bump();
                    digits.push(d);
                }
                let n = digits.parse().map_err(|_| ParamError::Bad)?;
                Ok(Param::Positional(n))
            }
            Some(c) => match special_param(c) {
                Some(special) => {
                    self.bump();
                    Ok(Param::Special(special))
                }
                None => Err(ParamError::Bad),
            },
            None => Err(self.eof_error("}").into()),
        }
    }

    /// `[@]`, `[*]` or `[expr]`, at the `[`.
    fn read_subscript(&mut self) -> Result<Subscript, ParseError> {
        self.bump();
        if self.eat_str("@]") {
            return Ok(Subscript::All);
        }
        if self.eat_str("*]") {
            return Ok(Subscript::Star);
        }
        let word = self.read_operand(']', Operand::pattern(false, None))?;
        self.bump();
        Ok(Subscript::Index(word))
    }

    /// The operator and its operands, through the closing `}`.
    fn read_param_op(&mut self, quoted: bool) -> Result<ParamOp, ParamError> {
        let Some(c) = self.bump() else {
            return Err(self.eof_error("}").into());
        };
        let op = match c {
            '}' => return Ok(ParamOp::Plain),
            ':' => match self.peek() {
                Some(d @ ('-' | '=' | '+' | '?')) => {
                    self.bump();
                    self.read_word_op(d, true, quoted)?
                }
                _ => self.read_substring(quoted)?,
            },
            '-' | '=' | '+' | '?' => self.read_word_op(c, false, quoted)?,
            '#' | '%' => {
                let longest = self.eat(c);
                let pattern = self.read_operand('}', Operand::pattern(quoted, None))?;
                match c {
                    '#' => ParamOp::RemovePrefix { longest, pattern },
                    _ => ParamOp::RemoveSuffix { longest, pattern },
                }
            }
            '/' => self.read_replace(quoted)?,
            '^' | ',' | '~' => {
                let all = self.eat(c);
                let pattern = self.read_operand('}', Operand::pattern(quoted, None))?;
                let pattern = (!pattern.parts.is_empty()).then_some(pattern);
                match c {
                    '^' => ParamOp::Upper { all, pattern },
                    ',' => ParamOp::Lower { all, pattern },
                    _ => ParamOp::Toggle { all, pattern },
                }
            }
            '@' => match self.bump() {
                Some(t @ ('Q' | 'E' | 'P' | 'A' | 'K' | 'a' | 'u' | 'U' | 'L' | 'k')) => {
                    ParamOp::Transform(t)
                }
                _ => return Err(ParamError::Bad),
            },
            _ => return Err(ParamError::Bad),
        };
        match self.eat('}') {
            true => Ok(op),
            false => Err(ParamError::Bad),
        }
    }

    /// The operand of `-`, `=`, `+`, `?` (with or without `:`).
    fn read_word_op(&mut self, c: char, colon: bool, quoted: bool) -> Result<ParamOp, ParseError> {
        let operand = Operand {
            stop: None,
            in_double_quotes: quoted,
            literal_single_quotes: quoted,
            word: true,
        };
        let word = self.read_operand('}', operand)?;
        let word = Word {
            parts: mark_tilde(word.parts, false),
        };
        Ok(match c {
            '-' => ParamOp::Default { colon, word },
            '=' => ParamOp::Assign { colon, word },
            '+' => ParamOp::Alternative { colon, word },
            _ => ParamOp::Error {
                colon,
                word: (!word.parts.is_empty()).then_some(word),
            },
        })
    }

    /// `offset[:length]`, after the `:`.
    fn read_substring(&mut self, quoted: bool) -> Result<ParamOp, ParseError> {
        let offset = self.read_operand('}', Operand::pattern(quoted, Some(':')))?;
        let length = match self.eat(':') {
            true => Some(self.read_operand('}', Operand::pattern(quoted, None))?),
            false => None,
        };
        Ok(ParamOp::Substring { offset, length })
    }

    /// `[/#%]pattern[/replacement]`, after the first `/`.
    fn read_replace(&mut self, quoted: bool) -> Result<ParamOp, ParseError> {
        let mode = match self.peek() {
            Some('/') => ReplaceMode::All,
            Some('#') => ReplaceMode::Prefix,
            Some('%') => ReplaceMode::Suffix,
            _ => ReplaceMode::First,
        };
        if mode != ReplaceMode::First {
            self.bump();
        }
        let pattern = self.read_operand('}', Operand::pattern(quoted, Some('/')))?;
        let replacement = match self.eat('/') {
            true => self.read_operand('}', Operand::pattern(quoted, None))?,
            false => Word::default(),
        };
        Ok(ParamOp::Replace {
            mode,
            pattern,
            replacement,
        })
    }

    /// An operand word, up to (not through) `close` or the stop character at depth 0.
    fn read_operand(&mut self, close: char, operand: Operand) -> Result<Word, ParseError> {
        let open = if close == '}' { '{' } else { '[' };
        let mut parts = Parts::default();
        let mut depth = 0usize;
        // `${s: x ? 1 : 2 : 1}`: a `:` that closes a `?` belongs to the offset's arithmetic.
        let mut ternaries = 0usize;
        loop {
            let Some(c) = self.peek() else {
                return Err(self.eof_error(&close.to_string()));
            };
            let stops = Some(c) == operand.stop && !(c == ':' && ternaries > 0);
            if depth == 0 && (c == close || stops) {
                return Ok(Word {
                    parts: parts.finish(),
                });
            }
            match c {
                '\\' => self
                    .read_operand_backslash(&mut parts, operand.in_double_quotes && operand.word),
                '\'' if !operand.literal_single_quotes => {
                    let text = self.read_single_quoted()?;
                    parts.quoted(&text);
                }
                '"' => parts.push(super::super::ast::WordPart::DoubleQuoted(
                    self.read_double_quoted()?,
                )),
                // `$'...'` is ANSI-C quoting in an operand even inside double quotes.
                '$' if self.peek_at(1) == Some('\'') => {
                    self.bump();
                    let text = self.read_ansi_c()?;
                    parts.quoted(&text);
                }
                '$' => self.read_dollar(&mut parts, operand.in_double_quotes)?,
                '`' => parts.push(self.read_backquote(operand.in_double_quotes)?),
                _ => {
                    if c == open {
                        depth += 1;
                    } else if c == close {
                        depth -= 1;
                    } else if c == '?' && operand.stop == Some(':') {
                        ternaries += 1;
                    } else if c == ':' {
                        ternaries = ternaries.saturating_sub(1);
                    }
                    self.bump();
                    parts.literal(c);
                }
            }
        }
    }

    /// A backslash in an operand: quotes the next character; in a word inside double quotes
    /// only before `$ ` " \ }`, else it stays.
    fn read_operand_backslash(&mut self, parts: &mut Parts, dq_word: bool) {
        self.bump();
        match self.bump() {
            None => parts.literal('\\'),
            Some('\n') => {}
            Some(c) if dq_word && !matches!(c, '$' | '`' | '"' | '\\' | '}') => {
                parts.quoted(&format!("\\{c}"));
            }
            Some(c) => parts.quoted(&c.to_string()),
        }
    }
}
