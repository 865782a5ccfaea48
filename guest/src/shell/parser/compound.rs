//! Compound commands: `if`, `for`, `select`, `while`, `until`, `case`, `{ }`, `( )`.

use super::super::ast::{
    ArithForCommand, CaseArm, CaseCommand, CaseTerminator, CommandKind, CondBranch, ForCommand,
    IfCommand, List, LoopCommand, Word, WordPart,
};
use super::super::lexer::{Op, Tok, Token};
use super::{brace, keyword, ParseError, Parser};

impl Parser<'_> {
    /// The compound command opened by the keyword `kw` (the next token). Other keywords
    /// cannot start a command.
    pub(super) fn parse_compound(&mut self, kw: &str) -> Result<CommandKind, ParseError> {
        match kw {
            "if" => self.parse_if(),
            "for" | "select" => self.parse_for(kw == "select"),
            "coproc" => self.parse_coproc(),
            "while" => Ok(CommandKind::While(self.parse_loop()?)),
            "until" => Ok(CommandKind::Until(self.parse_loop()?)),
            "case" => self.parse_case(),
            "{" => self.parse_group(),
            "[[" => self.parse_cond_command(),
            _ => {
                let tok = self.next()?;
                Err(self.unexpected(&tok))
            }
        }
    }

    fn parse_if(&mut self) -> Result<CommandKind, ParseError> {
        self.next()?;
        let mut branches = vec![self.parse_branch()?];
        loop {
            let tok = self.next()?;
            match keyword(&tok) {
                Some("elif") => branches.push(self.parse_branch()?),
                Some("else") => {
                    let else_body = Some(self.parse_compound_list()?);
                    self.expect_keyword("fi")?;
                    return Ok(CommandKind::If(IfCommand {
                        branches,
                        else_body,
                    }));
                }
                Some("fi") => {
                    return Ok(CommandKind::If(IfCommand {
                        branches,
                        else_body: None,
                    }))
                }
                _ => return Err(self.unexpected(&tok)),
            }
        }
    }

    /// `condition then body`, after `if` or `elif`.
    fn parse_branch(&mut self) -> Result<CondBranch, ParseError> {
        let condition = self.parse_compound_list()?;
        self.expect_keyword("then")?;
        let body = self.parse_compound_list()?;
        Ok(CondBranch { condition, body })
    }

    fn parse_for(&mut self, select: bool) -> Result<CommandKind, ParseError> {
        self.next()?;
        let tok = self.next()?;
        let var = match &tok.tok {
            Tok::DParen(word) if !select => return self.parse_arith_for(word.clone()),
            Tok::Word(word) => word.as_literal().map(str::to_string),
            _ => return Err(self.unexpected(&tok)),
        };
        // Like bash, a name that is not an identifier fails when the loop runs.
        let var = var.unwrap_or_else(|| self.lex.text(tok.start, tok.end));
        self.skip_newlines()?;
        let words = self.parse_for_words()?;
        let body = self.parse_for_body()?;
        Ok(CommandKind::For(ForCommand {
            select,
            var,
            words,
            body,
        }))
    }

    /// `in words ;` (or nothing, or just `;`) before `do`.
    fn parse_for_words(&mut self) -> Result<Option<Vec<Word>>, ParseError> {
        if self.peek_keyword()? != Some("in") {
            if self.peek_op()? == Some(Op::Semi) {
                self.next()?;
            }
            return Ok(None);
        }
        self.next()?;
        let mut words = Vec::new();
        loop {
            let tok = self.next()?;
            match tok.tok {
                Tok::Word(word) => words.push(self.command_word(word)?),
                Tok::Op(Op::Semi) | Tok::Newline => return Ok(Some(words)),
                _ => return Err(self.unexpected(&tok)),
            }
        }
    }

    /// `do list done`, after optional newlines.
    fn parse_do_group(&mut self) -> Result<List, ParseError> {
        self.skip_newlines()?;
        self.expect_keyword("do")?;
        let body = self.parse_compound_list()?;
        self.expect_keyword("done")?;
        Ok(body)
    }

    /// The body of a `for` loop: `do list done`, or `{ list }` as bash also allows.
    fn parse_for_body(&mut self) -> Result<List, ParseError> {
        self.skip_newlines()?;
        if self.peek_keyword()? != Some("{") {
            return self.parse_do_group();
        }
        self.next()?;
        let body = self.parse_compound_list()?;
        self.expect_keyword("}")?;
        Ok(body)
    }

    fn parse_arith_for(&mut self, word: Word) -> Result<CommandKind, ParseError> {
        let [init, cond, step] = split_arith_for(word).map_err(|_| {
            self.lex
                .error("syntax error: arithmetic for needs `((init; cond; step))'")
        })?;
        if self.peek_op()? == Some(Op::Semi) {
            self.next()?;
        }
        let body = self.parse_for_body()?;
        Ok(CommandKind::ArithFor(ArithForCommand {
            init,
            cond,
            step,
            body,
        }))
    }

    fn parse_loop(&mut self) -> Result<LoopCommand, ParseError> {
        self.next()?;
        let condition = self.parse_compound_list()?;
        let body = self.parse_do_group()?;
        Ok(LoopCommand { condition, body })
    }

    fn parse_group(&mut self) -> Result<CommandKind, ParseError> {
        self.next()?;
        let body = self.parse_compound_list()?;
        self.expect_keyword("}")?;
        Ok(CommandKind::Group(body))
    }

    pub(super) fn parse_subshell(&mut self) -> Result<CommandKind, ParseError> {
        self.next()?;
        let body = self.parse_compound_list()?;
        self.expect_op(Op::RParen)?;
        Ok(CommandKind::Subshell(body))
    }

    fn parse_case(&mut self) -> Result<CommandKind, ParseError> {
        self.next()?;
        let word = self.expect_word()?;
        let word = Word {
            parts: brace::mark_tilde(word.parts, false),
        };
        self.skip_newlines()?;
        self.expect_keyword("in")?;
        let mut arms = Vec::new();
        loop {
            self.skip_newlines()?;
            if self.peek_keyword()? == Some("esac") {
                self.next()?;
                return Ok(CommandKind::Case(CaseCommand { word, arms }));
            }
            let arm = self.parse_case_arm()?;
            let last = arm.terminator.is_none();
            arms.push(CaseArm {
                patterns: arm.patterns,
                body: arm.body,
                terminator: arm.terminator.unwrap_or(CaseTerminator::Break),
            });
            if last {
                self.expect_keyword("esac")?;
                return Ok(CommandKind::Case(CaseCommand { word, arms }));
            }
        }
    }

    /// `[(] pattern [| pattern]... ) list [;; | ;& | ;;&]`. No terminator means the arm
    /// must be the last.
    fn parse_case_arm(&mut self) -> Result<PartialArm, ParseError> {
        if self.peek_op()? == Some(Op::LParen) {
            self.next()?;
        }
        let mut patterns = Vec::new();
        loop {
            let pattern = self.expect_word()?;
            patterns.push(Word {
                parts: brace::mark_tilde(pattern.parts, false),
            });
            if self.peek_op()? != Some(Op::Pipe) {
                break;
            }
            self.next()?;
        }
        self.expect_op(Op::RParen)?;
        let body = self.parse_list()?;
        let terminator = match self.peek()? {
            Token {
                tok: Tok::Op(Op::DSemi),
                ..
            } => Some(CaseTerminator::Break),
            Token {
                tok: Tok::Op(Op::SemiAmp),
                ..
            } => Some(CaseTerminator::FallThrough),
            Token {
                tok: Tok::Op(Op::DSemiAmp),
                ..
            } => Some(CaseTerminator::Continue),
            _ => None,
        };
        if terminator.is_some() {
            self.next()?;
        }
        Ok(PartialArm {
            patterns,
            body,
            terminator,
        })
    }
}

/// A case arm whose terminator may be missing.
struct PartialArm {
    patterns: Vec<Word>,
    body: List,
    terminator: Option<CaseTerminator>,
}

type ArithParts = [Option<Word>; 3];

/// Splits the text of `for (( a; b; c ))` at its two top-level `;` (in unquoted text);
/// empty parts are `None`.
fn split_arith_for(word: Word) -> Result<ArithParts, ()> {
    let mut pieces: Vec<Vec<WordPart>> = vec![Vec::new()];
    for part in word.parts {
        let WordPart::Literal(text) = part else {
            pieces.last_mut().ok_or(())?.push(part);
            continue;
        };
        for (i, chunk) in text.split(';').enumerate() {
            if i > 0 {
                pieces.push(Vec::new());
            }
            if !chunk.is_empty() {
                let piece = pieces.last_mut().ok_or(())?;
                piece.push(WordPart::Literal(chunk.to_string()));
            }
        }
    }
    let [init, cond, step]: [Vec<WordPart>; 3] = pieces.try_into().map_err(|_| ())?;
    Ok([init, cond, step].map(non_blank))
}

/// `None` for text that is empty or only blanks.
fn non_blank(parts: Vec<WordPart>) -> Option<Word> {
    let blank = parts
        .iter()
        .all(|p| matches!(p, WordPart::Literal(t) if t.trim().is_empty()));
    (!blank).then_some(Word { parts })
}
