//! The `[[ expression ]]` command: `||` below `&&` below `!`, parentheses, unary and binary
//! tests. After `=~` the operand is read as a regular expression, in which `(`, `)` and `|`
//! are ordinary characters.

use super::super::ast::{BinaryTest, CommandKind, CondExpr, UnaryTest, Word};
use super::super::lexer::{Op, Tok, Token};
use super::{brace, keyword, ParseError, Parser};

impl Parser<'_> {
    pub(super) fn parse_cond_command(&mut self) -> Result<CommandKind, ParseError> {
        self.next()?;
        let outer = std::mem::replace(&mut self.lex.in_cond, true);
        let expr = self.cond_or();
        self.lex.in_cond = outer;
        let expr = expr?;
        self.skip_newlines()?;
        let tok = self.next()?;
        if keyword(&tok) == Some("]]") {
            return Ok(CommandKind::Cond(expr));
        }
        match tok.tok {
            Tok::Word(_) | Tok::IoNumber(_) => {
                Err(self.cond_error(&tok, "conditional binary operator expected"))
            }
            // bash: after a lone word, a token that cannot follow it asks for an operator;
            // anywhere else the expression is malformed. Neither is a shell syntax error:
            // the script ends with the status it had.
            Tok::Op(op) => {
                let text = self.token_text(&tok);
                let lone = matches!(expr, CondExpr::Word(_))
                    && !matches!(op, Op::RParen | Op::AndIf | Op::OrIf);
                let message = match lone {
                    true => {
                        format!("unexpected token `{text}', conditional binary operator expected")
                    }
                    false => {
                        format!("syntax error in conditional expression: unexpected token `{text}'")
                    }
                };
                Err(self.cond_error(&tok, &message))
            }
            _ => Err(self.unexpected(&tok)),
        }
    }

    fn cond_or(&mut self) -> Result<CondExpr, ParseError> {
        let first = self.cond_and()?;
        self.cond_chain(first, Op::OrIf, Self::cond_and, CondExpr::Or)
    }

    fn cond_and(&mut self) -> Result<CondExpr, ParseError> {
        let first = self.cond_not()?;
        self.cond_chain(first, Op::AndIf, Self::cond_not, CondExpr::And)
    }

    /// `first op next op next ...`, left-associative. Each link makes the tree one level
    /// deeper, so each counts against the nesting limit.
    fn cond_chain(
        &mut self,
        first: CondExpr,
        op: Op,
        next: fn(&mut Self) -> Result<CondExpr, ParseError>,
        join: fn(Box<CondExpr>, Box<CondExpr>) -> CondExpr,
    ) -> Result<CondExpr, ParseError> {
        let mut left = first;
        let mut links = 0;
        let result = loop {
            // `[[ a == a` newline `&& b == b ]]`: newlines may come before an operator.
            match self.skip_newlines().and_then(|_| self.peek_op()) {
                Ok(Some(found)) if found == op => {}
                Ok(_) => break Ok(left),
                Err(e) => break Err(e),
            }
            if let Err(e) = self.next().and_then(|_| self.lex.enter()) {
                break Err(e);
            }
            links += 1;
            match next(self) {
                Ok(right) => left = join(Box::new(left), Box::new(right)),
                Err(e) => break Err(e),
            }
        };
        (0..links).for_each(|_| self.lex.leave());
        result
    }

    fn cond_not(&mut self) -> Result<CondExpr, ParseError> {
        self.skip_newlines()?;
        if self.peek_keyword()? != Some("!") {
            return self.cond_primary();
        }
        self.next()?;
        self.lex.enter()?;
        let inner = self.cond_not();
        self.lex.leave();
        Ok(CondExpr::Not(Box::new(inner?)))
    }

    fn cond_primary(&mut self) -> Result<CondExpr, ParseError> {
        let tok = self.next()?;
        let word = match tok.tok {
            Tok::Op(Op::LParen) => return self.cond_group(),
            Tok::Word(ref word) if keyword(&tok) != Some("]]") => word.clone(),
            Tok::Eof | Tok::Newline => return Err(self.unexpected(&tok)),
            _ => {
                let text = self.token_text(&tok);
                let message = format!("unexpected token `{text}' in conditional command");
                return Err(self.cond_error(&tok, &message));
            }
        };
        let word = cond_word(word);
        if let Some(test) = word.as_literal().and_then(UnaryTest::from_op) {
            if !self.peek_is_binary_op()? {
                let operand = self.cond_operand("unary")?;
                return Ok(CondExpr::Unary(test, operand));
            }
        }
        self.cond_binary(word)
    }

    /// `( expr )`, after the `(`.
    fn cond_group(&mut self) -> Result<CondExpr, ParseError> {
        self.lex.enter()?;
        let inner = self.cond_or();
        self.lex.leave();
        let inner = inner?;
        self.skip_newlines()?;
        let tok = self.next()?;
        match tok.tok {
            Tok::Op(Op::RParen) => Ok(inner),
            _ => {
                let text = self.token_text(&tok);
                Err(self.cond_error(&tok, &format!("unexpected token `{text}', expected `)'")))
            }
        }
    }

    /// `left op right`, or `left` alone.
    fn cond_binary(&mut self, left: Word) -> Result<CondExpr, ParseError> {
        let Some(op) = self.peek_binary_op()? else {
            return Ok(CondExpr::Word(left));
        };
        let op_tok = self.next()?;
        // `[[ -f == ]]`: bash reads a unary operator with the operator word as its operand.
        if let Some(test) = left.as_literal().and_then(UnaryTest::from_op) {
            if keyword(self.peek()?) == Some("]]") && op != BinaryTest::Regex {
                if let Tok::Word(word) = op_tok.tok {
                    return Ok(CondExpr::Unary(test, word));
                }
            }
        }
        let right = match op {
            BinaryTest::Regex => self.cond_regex()?,
            _ => self.cond_operand("binary")?,
        };
        Ok(CondExpr::Binary(left, op, right))
    }

    fn peek_binary_op(&mut self) -> Result<Option<BinaryTest>, ParseError> {
        Ok(match &self.peek()?.tok {
            Tok::Op(Op::Less) => Some(BinaryTest::Less),
            Tok::Op(Op::Great) => Some(BinaryTest::Greater),
            Tok::Word(word) => word.as_literal().and_then(BinaryTest::from_op),
            _ => None,
        })
    }

    fn peek_is_binary_op(&mut self) -> Result<bool, ParseError> {
        Ok(self.peek_binary_op()?.is_some())
    }

    /// The word after a unary or binary operator; `]]` there is an error.
    fn cond_operand(&mut self, kind: &str) -> Result<Word, ParseError> {
        let tok = self.next()?;
        match tok.tok {
            Tok::Word(ref word) if keyword(&tok) != Some("]]") => Ok(cond_word(word.clone())),
            Tok::Eof => Err(self.unexpected(&tok)),
            _ => {
                let text = self.token_text(&tok);
                let message =
                    format!("unexpected argument `{text}' to conditional {kind} operator");
                Err(self.cond_error(&tok, &message))
            }
        }
    }

    /// The operand of `=~`, read directly from the lexer (no token is peeked here).
    fn cond_regex(&mut self) -> Result<Word, ParseError> {
        self.lex.skip_blanks();
        let (start, line) = (self.lex.pos, self.lex.line);
        let parts = self.lex.read_word(true)?;
        if parts.is_empty() || self.lex.text(start, self.lex.pos) == "]]" {
            let tok = self.next()?;
            let text = if parts.is_empty() {
                self.token_text(&tok)
            } else {
                "]]".to_string()
            };
            let message = format!("unexpected argument `{text}' to conditional binary operator");
            return Err(self.lex.error_at(start, line, message));
        }
        // `[[ $HOME =~ ~ ]]`: a leading tilde is expanded here too.
        Ok(cond_word(Word { parts }))
    }

    fn cond_error(&self, tok: &Token, message: &str) -> ParseError {
        self.lex.error_at(tok.start, tok.line, message)
    }

    /// A token as written, for messages.
    pub(super) fn token_text(&self, tok: &Token) -> String {
        match &tok.tok {
            Tok::Op(op) => op.as_str().to_string(),
            Tok::Newline => "newline".to_string(),
            Tok::Eof => "EOF".to_string(),
            _ => self.lex.text(tok.start, tok.end),
        }
    }
}

/// Operands of `[[ ]]` get tilde expansion but no brace expansion.
fn cond_word(word: Word) -> Word {
    Word {
        parts: brace::mark_tilde(word.parts, false),
    }
}
