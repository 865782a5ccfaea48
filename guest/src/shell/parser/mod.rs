//! The parser: recursive descent over the lexer's tokens, producing the [`ast`](super::ast).
//!
//! Files: this one holds the entry points, lists, pipelines and simple commands;
//! `compound` the compound commands; `cond` the `[[ ]]` expression; `word` and `param` the
//! inside of words; `assign` the `name=value` forms; `brace` the brace and tilde marking;
//! `heredoc` the attachment of here-document bodies, which are read after the line that
//! named them, to their redirections.

pub(super) mod assign;
mod atoms;
pub(super) mod brace;
mod compound;
mod cond;
mod heredoc;
mod param;
pub(super) mod word;

#[cfg(test)]
mod sexp;
#[cfg(test)]
mod tests;

use std::fmt;

use super::ast::{
    AndOr, AndOrOp, Arg, Command, CommandKind, HereDoc, Item, List, Pipeline, Program, Redirect,
    RedirectKind, SimpleCommand, Word, WordPart,
};
use super::lexer::{Lexer, Op, Tok, Token};

/// A syntax error, with where it was found (1-based). Its text is bash's where bash has one,
/// e.g. ``syntax error near unexpected token `done'``; print it as `bash: line N: {error}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong.
    pub message: String,
    /// The line.
    pub line: usize,
    /// The column (in characters).
    pub column: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseError {}

/// Parses a script.
pub fn parse(src: &str) -> Result<Program, ParseError> {
    parse_at(src, 1)
}

/// Parses code whose first line is line `line` (the code `eval` runs).
pub fn parse_at(src: &str, line: usize) -> Result<Program, ParseError> {
    let chars = source_chars(src);
    parse_chars(&chars, line, 0)
}

/// Parses a script, with the lines (number and text) that hold extended glob groups outside
/// `[[ ]]`. bash parses a line before it runs any of it, so such a line needs the
/// `shopt -s extglob` of an earlier one.
pub fn parse_script(src: &str) -> Result<(Program, Vec<(usize, String)>), ParseError> {
    let chars = source_chars(src);
    let mut parser = Parser::new(Lexer::new(&chars, 0, 1, 0));
    let list = parser.parse_all()?;
    let mut lines = std::mem::take(&mut parser.lex.extglob_lines);
    lines.dedup();
    let text = |n: usize| src.lines().nth(n - 1).unwrap_or_default().to_string();
    Ok((list, lines.into_iter().map(|n| (n, text(n))).collect()))
}

/// The characters of a script: bash drops the NUL bytes it reads.
fn source_chars(src: &str) -> Vec<char> {
    src.chars().filter(|&c| c != '\0').collect()
}

/// Parses all of `src` (a script, or the text inside backquotes), which starts on `line`,
/// `depth` levels deep.
pub(super) fn parse_chars(src: &[char], line: usize, depth: usize) -> Result<Program, ParseError> {
    Parser::new(Lexer::new(src, 0, line, depth)).parse_all()
}

/// Parses the commands of `$(...)` or `<(...)` from `pos` (just after the `(`) to the
/// closing `)`. Returns them with the offset and line just past the `)`.
pub(super) fn parse_nested(
    src: &[char],
    pos: usize,
    line: usize,
    depth: usize,
) -> Result<(Program, usize, usize), ParseError> {
    let mut lex = Lexer::new(src, pos, line, depth);
    lex.in_substitution = true;
    let mut parser = Parser::new(lex);
    let mut list = parser.parse_list()?;
    let tok = parser.next()?;
    match tok.tok {
        Tok::Op(Op::RParen) => {}
        Tok::Eof => return Err(parser.lex.eof_error(")")),
        _ => return Err(parser.unexpected(&tok)),
    }
    parser.finish(&mut list)?;
    Ok((list, parser.lex.pos, parser.lex.line))
}

/// Reserved words, recognised only where a command may start (and `in`, `]]` by the
/// constructs that expect them).
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for",
    "select", "coproc", "in", "function", "{", "}", "[[", "]]", "!",
];

/// Words that end a list when they appear where a command could start.
const LIST_END: &[&str] = &["then", "else", "elif", "fi", "do", "done", "esac", "}"];

/// The keyword a token spells, if it is an unquoted reserved word.
fn keyword(tok: &Token) -> Option<&'static str> {
    let Tok::Word(word) = &tok.tok else {
        return None;
    };
    let text = word.as_literal()?;
    KEYWORDS.iter().find(|k| **k == text).copied()
}

/// Commands whose `name=value` arguments are assignments.
const DECLARATION_COMMANDS: &[&str] = &["declare", "typeset", "local", "export", "readonly"];

/// The parser state: the lexer and one token of lookahead.
struct Parser<'a> {
    lex: Lexer<'a>,
    peeked: Option<Token>,
}

impl<'a> Parser<'a> {
    fn new(lex: Lexer<'a>) -> Parser<'a> {
        Parser { lex, peeked: None }
    }

    fn peek(&mut self) -> Result<&Token, ParseError> {
        let tok = match self.peeked.take() {
            Some(tok) => tok,
            None => self.lex.next_token()?,
        };
        Ok(self.peeked.insert(tok))
    }

    fn next(&mut self) -> Result<Token, ParseError> {
        match self.peeked.take() {
            Some(tok) => Ok(tok),
            None => self.lex.next_token(),
        }
    }

    fn peek_keyword(&mut self) -> Result<Option<&'static str>, ParseError> {
        Ok(keyword(self.peek()?))
    }

    /// `!(cmd)` where a command starts is `! (cmd)`, as bash reads it with `extglob` off
    /// (the usual case): the word read as an extended glob group is read again from its `(`.
    fn split_bang_paren(&mut self) -> Result<bool, ParseError> {
        let tok = self.peek()?;
        let (word, start, end, line) = (
            matches!(tok.tok, Tok::Word(_)),
            tok.start,
            tok.end,
            tok.line,
        );
        if !word || !self.lex.text(start, end).starts_with("!(") {
            return Ok(false);
        }
        (self.lex.pos, self.lex.line) = (start + 1, line);
        self.lex.extglob_lines.retain(|&l| l != line);
        self.peeked = None;
        Ok(true)
    }

    /// Whether the next token is the unquoted word `text`.
    fn peek_literal(&mut self, text: &str) -> Result<bool, ParseError> {
        Ok(matches!(&self.peek()?.tok, Tok::Word(w) if w.as_literal() == Some(text)))
    }

    fn peek_op(&mut self) -> Result<Option<Op>, ParseError> {
        Ok(match self.peek()?.tok {
            Tok::Op(op) => Some(op),
            _ => None,
        })
    }

    /// The error for a token that cannot appear where it is.
    fn unexpected(&self, tok: &Token) -> ParseError {
        let message = match &tok.tok {
            Tok::Eof => "syntax error: unexpected end of file".to_string(),
            Tok::Newline => "syntax error near unexpected token `newline'".to_string(),
            Tok::Op(op) => format!("syntax error near unexpected token `{}'", op.as_str()),
            Tok::DParen(_) => "syntax error near unexpected token `(('".to_string(),
            Tok::ArrayAssign(..) => "syntax error near unexpected token `('".to_string(),
            Tok::Word(_) | Tok::IoNumber(_) | Tok::IoVar(_) => format!(
                "syntax error near unexpected token `{}'",
                self.lex.text(tok.start, tok.end)
            ),
        };
        self.lex.error_at(tok.start, tok.line, message)
    }

    /// Consumes the next token and fails if it is not the keyword `kw`.
    fn expect_keyword(&mut self, kw: &str) -> Result<(), ParseError> {
        let tok = self.next()?;
        match keyword(&tok) == Some(kw) {
            true => Ok(()),
            false => Err(self.unexpected(&tok)),
        }
    }

    /// Consumes the next token and fails if it is not `op`.
    fn expect_op(&mut self, op: Op) -> Result<(), ParseError> {
        let tok = self.next()?;
        match tok.tok == Tok::Op(op) {
            true => Ok(()),
            false => Err(self.unexpected(&tok)),
        }
    }

    /// Consumes the next token, which must be a word.
    fn expect_word(&mut self) -> Result<Word, ParseError> {
        match self.next()? {
            Token {
                tok: Tok::Word(word),
                ..
            } => Ok(word),
            tok => Err(self.unexpected(&tok)),
        }
    }

    fn skip_newlines(&mut self) -> Result<(), ParseError> {
        while self.peek()?.tok == Tok::Newline {
            self.next()?;
        }
        Ok(())
    }

    /// Attaches here-document bodies once the whole input is parsed.
    /// The whole input as a list.
    fn parse_all(&mut self) -> Result<List, ParseError> {
        let mut list = self.parse_list()?;
        let tok = self.next()?;
        if tok.tok != Tok::Eof {
            return Err(self.unexpected(&tok));
        }
        self.finish(&mut list)?;
        Ok(list)
    }

    fn finish(&mut self, list: &mut List) -> Result<(), ParseError> {
        self.lex.check_heredocs_done()?;
        let bodies = std::mem::take(&mut self.lex.heredoc_bodies);
        heredoc::attach(list, &mut bodies.into_iter());
        Ok(())
    }

    /// Items up to the end of input or a token that closes an enclosing construct; may be
    /// empty (the callers that need a command check).
    fn parse_list(&mut self) -> Result<List, ParseError> {
        let mut items = Vec::new();
        loop {
            self.skip_newlines()?;
            if self.at_list_end()? {
                return Ok(List { items });
            }
            let and_or = self.parse_and_or()?;
            // A newline is left for `skip_newlines`, which reads here-document bodies.
            let (background, more) = match self.peek()?.tok {
                Tok::Op(Op::Amp) => (true, true),
                Tok::Op(Op::Semi) => (false, true),
                Tok::Newline => (false, true),
                _ => (false, false),
            };
            if let Tok::Op(Op::Amp | Op::Semi) = self.peek()?.tok {
                self.next()?;
            }
            items.push(Item { and_or, background });
            if !more {
                return Ok(List { items });
            }
        }
    }

    /// A list that must hold at least one command (the body of a compound command).
    fn parse_compound_list(&mut self) -> Result<List, ParseError> {
        let list = self.parse_list()?;
        if list.items.is_empty() {
            let tok = self.next()?;
            return Err(self.unexpected(&tok));
        }
        Ok(list)
    }

    fn at_list_end(&mut self) -> Result<bool, ParseError> {
        let tok = self.peek()?;
        Ok(match &tok.tok {
            Tok::Eof | Tok::Op(Op::RParen | Op::DSemi | Op::SemiAmp | Op::DSemiAmp) => true,
            Tok::Word(_) => keyword(tok).is_some_and(|k| LIST_END.contains(&k)),
            _ => false,
        })
    }

    fn parse_and_or(&mut self) -> Result<AndOr, ParseError> {
        let first = self.parse_pipeline()?;
        let mut rest = Vec::new();
        loop {
            let op = match self.peek_op()? {
                Some(Op::AndIf) => AndOrOp::And,
                Some(Op::OrIf) => AndOrOp::Or,
                _ => return Ok(AndOr { first, rest }),
            };
            self.next()?;
            self.skip_newlines()?;
            rest.push((op, self.parse_pipeline()?));
        }
    }

    fn parse_pipeline(&mut self) -> Result<Pipeline, ParseError> {
        let (mut negated, mut timed) = (false, false);
        loop {
            if self.peek_keyword()? == Some("!") {
                self.next()?;
                negated = !negated;
            } else if self.split_bang_paren()? {
                negated = !negated;
            } else if !timed && self.peek_literal("time")? {
                // `time` is a reserved word timing the whole pipeline (`time { a; } | b`).
                timed = true;
                self.next()?;
                if self.peek_literal("-p")? {
                    self.next()?;
                }
            } else {
                break;
            }
        }
        if (negated || timed) && self.at_pipeline_end()? {
            // `!` alone negates an empty command (status 1), as in bash.
            let line = self.peek()?.line;
            let empty = Command {
                kind: CommandKind::Simple(SimpleCommand::default()),
                redirects: Vec::new(),
                line,
            };
            return Ok(Pipeline {
                negated,
                timed,
                commands: vec![empty],
            });
        }
        let mut commands = vec![self.parse_command()?];
        loop {
            let stderr_too = match self.peek_op()? {
                Some(Op::Pipe) => false,
                Some(Op::PipeAmp) => true,
                _ => {
                    return Ok(Pipeline {
                        negated,
                        timed,
                        commands,
                    })
                }
            };
            self.next()?;
            if let (true, Some(last)) = (stderr_too, commands.last_mut()) {
                // `a |& b` is `a 2>&1 | b`, applied after a's own redirections.
                last.redirects.push(Redirect {
                    fd: Some(2),
                    var: None,
                    kind: RedirectKind::DupWrite(Word::literal("1")),
                });
            }
            self.skip_newlines()?;
            commands.push(self.parse_command()?);
        }
    }

    fn at_pipeline_end(&mut self) -> Result<bool, ParseError> {
        Ok(matches!(
            self.peek()?.tok,
            Tok::Eof | Tok::Newline | Tok::Op(Op::Semi | Op::Amp | Op::RParen)
        ))
    }

    fn parse_command(&mut self) -> Result<Command, ParseError> {
        self.lex.enter()?;
        let command = self.parse_command_inner();
        self.lex.leave();
        command
    }

    fn parse_command_inner(&mut self) -> Result<Command, ParseError> {
        let tok = self.peek()?;
        let line = tok.line;
        let kind = match (keyword(tok), &tok.tok) {
            (Some("function"), _) => return self.parse_function_keyword(line),
            (Some(kw), _) => self.parse_compound(kw)?,
            (_, Tok::Op(Op::LParen)) => self.parse_subshell()?,
            (_, Tok::DParen(_)) => match self.next()?.tok {
                Tok::DParen(word) => CommandKind::Arith(word),
                _ => CommandKind::Simple(SimpleCommand::default()),
            },
            _ => return self.parse_simple_command(line, None),
        };
        let redirects = self.parse_redirects()?;
        Ok(Command {
            kind,
            redirects,
            line,
        })
    }

    /// A simple command; `first`: its first word, already read (after `coproc`).
    fn parse_simple_command(
        &mut self,
        line: usize,
        first: Option<Token>,
    ) -> Result<Command, ParseError> {
        let mut cmd = SimpleCommand::default();
        let mut redirects = Vec::new();
        let mut first_text = String::new();
        if let Some(tok) = first {
            first_text = self.lex.text(tok.start, tok.end).to_string();
            self.add_word(&mut cmd, tok)?;
        }
        loop {
            self.lex.assign_words = cmd.words.is_empty();
            let peeked = self.peek().map(|_| ());
            self.lex.assign_words = true;
            peeked?;
            match &self.peek()?.tok {
                Tok::IoNumber(_) | Tok::IoVar(_) => redirects.push(self.parse_redirect()?),
                Tok::Op(op) if op.is_redirect() => redirects.push(self.parse_redirect()?),
                Tok::Word(_) | Tok::ArrayAssign(..) => {
                    let tok = self.next()?;
                    let text = self.lex.text(tok.start, tok.end);
                    cmd.end_line = tok.line + text.matches('\n').count();
                    if first_text.is_empty() {
                        first_text = text.to_string();
                    }
                    self.add_word(&mut cmd, tok)?;
                }
                Tok::Op(Op::LParen) if cmd.assignments.is_empty() && redirects.is_empty() => {
                    // bash parses `$x-y() { ...; }` too, and refuses the name when it runs.
                    if let Some(name) = function_name(&cmd, first_text) {
                        return self.parse_function_def(name, line);
                    }
                    break;
                }
                _ => break,
            }
        }
        if cmd.assignments.is_empty() && cmd.words.is_empty() && redirects.is_empty() {
            let tok = self.next()?;
            return Err(self.unexpected(&tok));
        }
        Ok(Command {
            kind: CommandKind::Simple(cmd),
            redirects,
            line,
        })
    }

    /// Adds a word token to a simple command: an assignment while no command name has been
    /// seen (or an argument of a declaration command), else a word.
    fn add_word(&mut self, cmd: &mut SimpleCommand, tok: Token) -> Result<(), ParseError> {
        let naming = cmd.words.is_empty();
        let declaring = cmd.words.first().is_some_and(is_declaration);
        let word = match tok.tok {
            Tok::ArrayAssign(prefix, elements) if naming || declaring => {
                let assignment = self.array_assignment(prefix, elements)?;
                match naming {
                    true => cmd.assignments.push(assignment),
                    false => cmd.words.push(Arg::Assign(assignment)),
                }
                return Ok(());
            }
            // `let x=( 1 + 2 )`: bash reads the parentheses as part of let's expression.
            Tok::ArrayAssign(prefix, elements) if is_let(cmd.words.first()) => {
                let mut parts = prefix.parts;
                parts.push(WordPart::Literal("(".into()));
                for (i, element) in elements.into_iter().enumerate() {
                    if i > 0 {
                        parts.push(WordPart::Literal(" ".into()));
                    }
                    parts.extend(element.parts);
                }
                parts.push(WordPart::Literal(")".into()));
                Word { parts }
            }
            Tok::Word(word) => word,
            _ => return Err(self.unexpected(&tok)),
        };
        if naming || declaring {
            if let Some(assignment) = assign::scalar_assignment(&word) {
                match naming {
                    true => cmd.assignments.push(assignment),
                    false => cmd.words.push(Arg::Assign(assignment)),
                }
                return Ok(());
            }
        }
        let word = self.command_word(word)?;
        cmd.words.push(Arg::Word(word));
        Ok(())
    }

    /// A word as a command argument: tilde prefixes and brace expansions marked.
    fn command_word(&self, word: Word) -> Result<Word, ParseError> {
        // Brace expansion comes first: a word with braces gets its tilde prefixes after it
        // (`~{/a,b}` → `~/a ~b`, both expanded; `expand::brace`).
        let (parts, braces) = self.braced(word)?;
        let parts = if braces {
            parts
        } else {
            brace::mark_tilde_in_argument(parts)
        };
        Ok(Word { parts })
    }

    /// A word's parts with its brace expansions marked, and whether it has any.
    fn braced(&self, word: Word) -> Result<(Vec<WordPart>, bool), ParseError> {
        let parts = brace::mark_braces(word.parts, self.lex.depth)
            .map_err(|message| self.lex.error(message))?;
        let braces = parts
            .iter()
            .any(|p| matches!(p, WordPart::BraceList(_) | WordPart::BraceSeq(_)));
        Ok((parts, braces))
    }

    fn array_assignment(
        &self,
        prefix: Word,
        elements: Vec<Word>,
    ) -> Result<super::ast::Assignment, ParseError> {
        let elements = elements
            .into_iter()
            .map(|element| self.array_element(element))
            .collect::<Result<Vec<_>, _>>()?;
        assign::array_assignment(&prefix, elements)
            .ok_or_else(|| self.lex.error("syntax error near unexpected token `('"))
    }

    fn array_element(&self, element: Word) -> Result<super::ast::ArrayElement, ParseError> {
        match assign::split_element(&element) {
            Some(element) => Ok(element),
            None => Ok(super::ast::ArrayElement {
                index: None,
                append: false,
                value: self.command_word(element)?,
            }),
        }
    }

    /// `coproc [NAME] command`: a name counts only when a compound command follows it;
    /// otherwise it is the simple command's first word.
    pub(super) fn parse_coproc(&mut self) -> Result<CommandKind, ParseError> {
        self.next()?;
        let line = self.peek()?.line;
        let mut name = "COPROC".to_string();
        let is_name = |tok: &Token| match &tok.tok {
            Tok::Word(w) if keyword(tok).is_none() => w
                .as_literal()
                .filter(|n| word::is_name(n))
                .map(str::to_string),
            _ => None,
        };
        let body = match is_name(self.peek()?) {
            Some(word) => {
                let tok = self.next()?;
                if self.at_compound_start()? {
                    name = word;
                    self.parse_command()?
                } else {
                    self.parse_simple_command(line, Some(tok))?
                }
            }
            None => self.parse_command()?,
        };
        Ok(CommandKind::Coproc(super::ast::CoprocCommand {
            name,
            body: Box::new(body),
        }))
    }

    /// `name ( ) body` after the name.
    fn parse_function_def(&mut self, name: String, line: usize) -> Result<Command, ParseError> {
        self.expect_op(Op::LParen)?;
        self.expect_op(Op::RParen)?;
        self.parse_function_body(name, line)
    }

    /// `function name [()] body`.
    fn parse_function_keyword(&mut self, line: usize) -> Result<Command, ParseError> {
        self.next()?;
        let tok = self.next()?;
        let name = match &tok.tok {
            Tok::Word(word) if keyword(&tok).is_none() => word.as_literal().map(str::to_string),
            _ => None,
        };
        let Some(name) = name else {
            return Err(self.unexpected(&tok));
        };
        if self.peek_op()? == Some(Op::LParen) {
            self.next()?;
            self.expect_op(Op::RParen)?;
        }
        self.parse_function_body(name, line)
    }

    fn parse_function_body(&mut self, name: String, line: usize) -> Result<Command, ParseError> {
        self.skip_newlines()?;
        if !self.at_compound_start()? {
            let tok = self.next()?;
            return Err(self.unexpected(&tok));
        }
        let body = self.parse_command()?;
        Ok(Command {
            kind: CommandKind::Function(super::ast::FunctionDef {
                name,
                body: Box::new(body),
            }),
            redirects: Vec::new(),
            line,
        })
    }

    fn at_compound_start(&mut self) -> Result<bool, ParseError> {
        let tok = self.peek()?;
        Ok(match &tok.tok {
            Tok::Op(Op::LParen) | Tok::DParen(_) => true,
            _ => matches!(
                keyword(tok),
                Some("if" | "for" | "select" | "while" | "until" | "case" | "{" | "[[" | "coproc")
            ),
        })
    }

    /// Redirections after a compound command.
    fn parse_redirects(&mut self) -> Result<Vec<Redirect>, ParseError> {
        let mut redirects = Vec::new();
        loop {
            match self.peek()?.tok {
                Tok::IoNumber(_) | Tok::IoVar(_) => redirects.push(self.parse_redirect()?),
                Tok::Op(op) if op.is_redirect() => redirects.push(self.parse_redirect()?),
                _ => return Ok(redirects),
            }
        }
    }

    fn parse_redirect(&mut self) -> Result<Redirect, ParseError> {
        let (fd, var) = match &self.peek()?.tok {
            Tok::IoNumber(fd) => {
                let fd = *fd;
                self.next()?;
                (Some(fd), None)
            }
            Tok::IoVar(name) => {
                let name = name.clone();
                self.next()?;
                (None, Some(name))
            }
            _ => (None, None),
        };
        let tok = self.next()?;
        let op = match tok.tok {
            Tok::Op(op) if op.is_redirect() => op,
            _ => return Err(self.unexpected(&tok)),
        };
        if let Op::DLess | Op::DLessDash = op {
            let mut heredoc = self.parse_heredoc(fd, op == Op::DLessDash)?;
            heredoc.var = var;
            return Ok(heredoc);
        }
        let target = self.expect_word()?;
        // Braces expand in a target too: more than one word is an ambiguous redirect.
        let (parts, braces) = self.braced(target)?;
        let target = Word {
            parts: if braces {
                parts
            } else {
                brace::mark_tilde(parts, false)
            },
        };
        let kind = match op {
            Op::Less => RedirectKind::Read(target),
            Op::Great => RedirectKind::Write(target),
            Op::Clobber => RedirectKind::Clobber(target),
            Op::DGreat => RedirectKind::Append(target),
            Op::LessGreat => RedirectKind::ReadWrite(target),
            Op::LessAnd => RedirectKind::DupRead(target),
            Op::GreatAnd => RedirectKind::DupWrite(target),
            Op::AndGreat => RedirectKind::WriteBoth(target),
            Op::AndDGreat => RedirectKind::AppendBoth(target),
            _ => RedirectKind::HereString(target),
        };
        Ok(Redirect { fd, var, kind })
    }

    /// After `<<` / `<<-`: the delimiter. The body is read by the lexer after the next newline
    /// and attached in [`Parser::finish`].
    fn parse_heredoc(&mut self, fd: Option<u32>, strip_tabs: bool) -> Result<Redirect, ParseError> {
        let Some((delimiter, quoted)) = self.lex.read_heredoc_delimiter() else {
            let tok = self.next()?;
            return Err(self.unexpected(&tok));
        };
        self.lex
            .push_heredoc(delimiter.clone(), strip_tabs, !quoted);
        let body = Word::default();
        Ok(Redirect {
            fd,
            var: None,
            kind: RedirectKind::HereDoc(HereDoc {
                delimiter,
                strip_tabs,
                expand: !quoted,
                body,
            }),
        })
    }
}

/// The name of `name() body`: the word's literal text, or its source text when it holds
/// expansions or quotes (a name [`valid_function_name`] refuses when the definition runs).
fn function_name(cmd: &SimpleCommand, text: String) -> Option<String> {
    match cmd.words.as_slice() {
        [Arg::Word(word)] => word.as_literal().map(str::to_string).or(Some(text)),
        _ => None,
    }
}

/// Whether a function may have this name: bash refuses one written with expansions or quotes.
pub fn valid_function_name(name: &str) -> bool {
    !name.contains(['$', '`', '\'', '"', '\\'])
}

/// Whether a command's first word is `let`.
fn is_let(arg: Option<&Arg>) -> bool {
    matches!(arg, Some(Arg::Word(word)) if word.as_literal() == Some("let"))
}

/// Whether a command's first word names a declaration command.
fn is_declaration(arg: &Arg) -> bool {
    match arg {
        Arg::Word(Word { parts }) => matches!(
            parts.as_slice(),
            [WordPart::Literal(name)] if DECLARATION_COMMANDS.contains(&name.as_str())
        ),
        Arg::Assign(_) => false,
    }
}
