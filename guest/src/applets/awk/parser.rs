//! The awk parser: tokens to a [`Program`] by recursive descent, with awk's precedence
//! (from lowest: `?:`, `||`, `&&`, `in`, `~`, comparison, concatenation, `+ -`, `* / %`,
//! unary, `^`, `++ --`, `$`, grouping) and its special cases: `print a > file`, `print (a, b)`,
//! `getline var < file`, `cmd | getline`, and juxtaposition as concatenation.

use super::ast::{CmpOp, Expr, Function, GetSrc, Pattern, Program, Redirect, Rule, Stmt};
use super::lexer::{tokenize, Kw, Tok, Token};
use crate::limits::MAX_AWK_NESTING;

/// A syntax error: the message and where (line, byte offset of the caret).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// What is wrong (`syntax error`, `unexpected newline or end of string`...).
    pub msg: String,
    /// 1-based line.
    pub line: usize,
    /// Byte offset in the source the caret points at.
    pub offset: usize,
    /// A one-line `error:` message (no source line and caret).
    pub plain: bool,
}

/// Parses a whole program.
pub fn parse(src: &[u8]) -> Result<Program, ParseError> {
    let (toks, warnings) = tokenize(src).map_err(|(msg, line, offset)| ParseError {
        msg,
        line,
        offset,
        plain: false,
    })?;
    let mut parser = Parser {
        toks,
        pos: 0,
        depth: 0,
        src_len: src.len(),
        in_function: false,
    };
    let mut prog = parser.program()?;
    prog.warnings = warnings;
    Ok(prog)
}

/// Expression context: `>` is a redirection in `print` arguments.
#[derive(Clone, Copy, Default)]
struct Flags {
    no_gt: bool,
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    src_len: usize,
    in_function: bool,
}

type PResult<T> = Result<T, ParseError>;

impl Parser {
    fn peek(&self) -> &Tok {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        self.toks
            .get(self.pos + ahead)
            .or(self.toks.last())
            .map_or(&Tok::Eof, |t| &t.tok)
    }

    fn line(&self) -> usize {
        self.toks.get(self.pos).map_or(1, |t| t.line)
    }

    fn advance(&mut self) -> Tok {
        let tok = self.peek().clone();
        if self.pos < self.toks.len() {
            self.pos += 1;
        }
        tok
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == tok {
            self.advance();
            true
        } else {
            false
        }
    }

    fn error<T>(&self) -> PResult<T> {
        let at = self.toks.get(self.pos);
        let (tok, line, end) = at.map_or((&Tok::Eof, 1, self.src_len), |t| (&t.tok, t.line, t.end));
        // gawk has already counted the newline when it reports it.
        let (msg, offset, line) = match tok {
            Tok::Eof => ("unexpected newline or end of string", self.src_len, line),
            Tok::Newline => (
                "unexpected newline or end of string",
                end.saturating_sub(1),
                line + 1,
            ),
            _ => ("syntax error", end.saturating_sub(1), line),
        };
        Err(ParseError {
            msg: msg.to_string(),
            line,
            offset,
            plain: false,
        })
    }

    /// A one-line `error:` about the previous token.
    fn fail<T>(&self, msg: &str) -> PResult<T> {
        let at = self.toks.get(self.pos.saturating_sub(1));
        Err(ParseError {
            msg: msg.to_string(),
            line: at.map_or(1, |t| t.line),
            offset: at.map_or(0, |t| t.end.saturating_sub(1)),
            plain: true,
        })
    }

    /// A caret error at byte `offset`.
    fn fail_at<T>(&self, msg: &str, offset: usize) -> PResult<T> {
        Err(ParseError {
            msg: msg.to_string(),
            line: self
                .toks
                .get(self.pos.saturating_sub(1))
                .map_or(1, |t| t.line),
            offset,
            plain: false,
        })
    }

    fn expect(&mut self, tok: &Tok) -> PResult<()> {
        if self.eat(tok) {
            Ok(())
        } else {
            self.error()
        }
    }

    fn skip_newlines(&mut self) {
        while self.eat(&Tok::Newline) {}
    }

    fn skip_terminators(&mut self) {
        while matches!(self.peek(), Tok::Newline | Tok::Semi) {
            self.advance();
        }
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_AWK_NESTING {
            return self.fail("program nested too deeply");
        }
        Ok(())
    }

    // ---- program structure ----

    fn program(&mut self) -> PResult<Program> {
        let mut prog = Program::default();
        self.skip_terminators();
        while *self.peek() != Tok::Eof {
            self.item(&mut prog)?;
            self.skip_terminators();
        }
        Ok(prog)
    }

    fn item(&mut self, prog: &mut Program) -> PResult<()> {
        let line = self.line();
        match self.peek().clone() {
            Tok::Keyword(kw @ (Kw::Begin | Kw::End | Kw::BeginFile | Kw::EndFile)) => {
                self.advance();
                if *self.peek() != Tok::LBrace {
                    return self.error();
                }
                let body = self.block()?;
                match kw {
                    Kw::Begin => prog.begin.push(body),
                    Kw::End => prog.end.push(body),
                    Kw::BeginFile => prog.begin_file.push(body),
                    _ => prog.end_file.push(body),
                }
            }
            Tok::Keyword(Kw::Function) => {
                let function = self.function(line)?;
                if prog.functions.iter().any(|f| f.name == function.name) {
                    return self.fail(&format!(
                        "function name `{}' previously defined",
                        function.name
                    ));
                }
                prog.functions.push(function);
            }
            Tok::LBrace => {
                let action = self.block()?;
                prog.rules.push(Rule {
                    pattern: Pattern::All,
                    action: Some(action),
                    line,
                });
            }
            _ => {
                let rule = self.rule(line)?;
                prog.rules.push(rule);
            }
        }
        Ok(())
    }

    fn rule(&mut self, line: usize) -> PResult<Rule> {
        let first = self.expr(Flags::default())?;
        let pattern = if self.eat(&Tok::Comma) {
            self.skip_newlines();
            Pattern::Range(first, self.expr(Flags::default())?)
        } else {
            Pattern::Expr(first)
        };
        let action = if *self.peek() == Tok::LBrace {
            Some(self.block()?)
        } else {
            if !matches!(self.peek(), Tok::Newline | Tok::Semi | Tok::Eof) {
                return self.error();
            }
            None
        };
        Ok(Rule {
            pattern,
            action,
            line,
        })
    }

    fn function(&mut self, line: usize) -> PResult<Function> {
        self.advance();
        let name = match self.advance() {
            Tok::Name(n) | Tok::FuncName(n) => n,
            _ => {
                self.pos -= 1;
                return self.error();
            }
        };
        self.expect(&Tok::LParen)?;
        let mut params: Vec<String> = Vec::new();
        if !self.eat(&Tok::RParen) {
            loop {
                self.skip_newlines();
                match self.advance() {
                    Tok::Name(p) | Tok::FuncName(p) => {
                        if p == name {
                            return self.fail(&format!(
                                "function `{name}': cannot use function name as parameter name"
                            ));
                        }
                        if params.contains(&p) {
                            return self.fail(&format!(
                                "function `{name}': parameter #{}, `{p}', duplicates parameter #{}",
                                params.len() + 1,
                                params.iter().position(|q| *q == p).unwrap_or(0) + 1
                            ));
                        }
                        params.push(p);
                    }
                    _ => {
                        self.pos -= 1;
                        return self.error();
                    }
                }
                if self.eat(&Tok::RParen) {
                    break;
                }
                self.expect(&Tok::Comma)?;
            }
        }
        self.skip_newlines();
        if *self.peek() != Tok::LBrace {
            return self.error();
        }
        self.in_function = true;
        let body = self.block();
        self.in_function = false;
        let body = body?;
        Ok(Function {
            name,
            params,
            body,
            line,
        })
    }

    // ---- statements ----

    fn block(&mut self) -> PResult<Vec<Stmt>> {
        self.expect(&Tok::LBrace)?;
        self.enter()?;
        let mut stmts = Vec::new();
        loop {
            self.skip_terminators();
            if self.eat(&Tok::RBrace) {
                break;
            }
            if *self.peek() == Tok::Eof {
                return self.error();
            }
            stmts.push(self.stmt()?);
        }
        self.depth -= 1;
        Ok(stmts)
    }

    /// A statement as the body of `if`/`while`/`for`: newlines may come first.
    fn body(&mut self) -> PResult<Stmt> {
        self.skip_newlines();
        if self.eat(&Tok::Semi) {
            return Ok(Stmt::Block(Vec::new()));
        }
        self.stmt()
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        self.enter()?;
        let stmt = self.stmt_inner()?;
        self.depth -= 1;
        Ok(stmt)
    }

    fn stmt_inner(&mut self) -> PResult<Stmt> {
        match self.peek().clone() {
            Tok::LBrace => Ok(Stmt::Block(self.block()?)),
            Tok::Semi => {
                self.advance();
                Ok(Stmt::Block(Vec::new()))
            }
            Tok::Keyword(Kw::If) => self.if_stmt(),
            Tok::Keyword(Kw::While) => {
                self.advance();
                let cond = self.paren_cond()?;
                if self.eat(&Tok::Semi) {
                    return Ok(Stmt::While(cond, Box::new(Stmt::Block(Vec::new()))));
                }
                Ok(Stmt::While(cond, Box::new(self.body()?)))
            }
            Tok::Keyword(Kw::Do) => self.do_stmt(),
            Tok::Keyword(Kw::For) => self.for_stmt(),
            _ => {
                let stmt = self.simple_stmt()?;
                self.end_simple()?;
                Ok(stmt)
            }
        }
    }

    fn end_simple(&mut self) -> PResult<()> {
        match self.peek() {
            Tok::Semi | Tok::Newline => {
                self.advance();
                Ok(())
            }
            Tok::RBrace | Tok::Eof => Ok(()),
            _ => self.error(),
        }
    }

    fn paren_cond(&mut self) -> PResult<Expr> {
        self.expect(&Tok::LParen)?;
        self.skip_newlines();
        let cond = self.expr(Flags::default())?;
        self.skip_newlines();
        self.expect(&Tok::RParen)?;
        Ok(cond)
    }

    fn if_stmt(&mut self) -> PResult<Stmt> {
        self.advance();
        let cond = self.paren_cond()?;
        let then = self.body()?;
        let save = self.pos;
        self.skip_terminators();
        if self.eat(&Tok::Keyword(Kw::Else)) {
            let other = self.body()?;
            return Ok(Stmt::If(cond, Box::new(then), Some(Box::new(other))));
        }
        self.pos = save;
        Ok(Stmt::If(cond, Box::new(then), None))
    }

    fn do_stmt(&mut self) -> PResult<Stmt> {
        self.advance();
        let body = self.body()?;
        self.skip_terminators();
        self.expect(&Tok::Keyword(Kw::While))?;
        let cond = self.paren_cond()?;
        self.end_simple()?;
        Ok(Stmt::Do(Box::new(body), cond))
    }

    fn for_stmt(&mut self) -> PResult<Stmt> {
        self.advance();
        self.expect(&Tok::LParen)?;
        if let (Tok::Name(var), Tok::Keyword(Kw::In), Tok::Name(arr), Tok::RParen) = (
            self.peek().clone(),
            self.peek_at(1).clone(),
            self.peek_at(2).clone(),
            self.peek_at(3).clone(),
        ) {
            self.pos += 4;
            let body = self.body()?;
            return Ok(Stmt::ForIn(var, arr, Box::new(body)));
        }
        let init = if *self.peek() == Tok::Semi {
            None
        } else {
            Some(Box::new(self.simple_stmt()?))
        };
        self.expect(&Tok::Semi)?;
        self.skip_newlines();
        let cond = if *self.peek() == Tok::Semi {
            None
        } else {
            Some(self.expr(Flags::default())?)
        };
        self.expect(&Tok::Semi)?;
        self.skip_newlines();
        let step = if *self.peek() == Tok::RParen {
            None
        } else {
            Some(Box::new(self.simple_stmt()?))
        };
        self.expect(&Tok::RParen)?;
        if self.eat(&Tok::Semi) {
            return Ok(Stmt::For(
                init,
                cond,
                step,
                Box::new(Stmt::Block(Vec::new())),
            ));
        }
        let body = self.body()?;
        Ok(Stmt::For(init, cond, step, Box::new(body)))
    }

    fn simple_stmt(&mut self) -> PResult<Stmt> {
        match self.peek().clone() {
            Tok::Keyword(Kw::Print) => {
                self.advance();
                let (args, redirect) = self.print_args()?;
                Ok(Stmt::Print(args, redirect))
            }
            Tok::Keyword(Kw::Printf) => {
                self.advance();
                let (args, redirect) = self.print_args()?;
                if args.is_empty() {
                    return self.error();
                }
                Ok(Stmt::Printf(args, redirect))
            }
            Tok::Keyword(Kw::Next) => {
                self.advance();
                Ok(Stmt::Next)
            }
            Tok::Keyword(Kw::NextFile) => {
                self.advance();
                Ok(Stmt::NextFile)
            }
            Tok::Keyword(Kw::Break) => {
                self.advance();
                Ok(Stmt::Break)
            }
            Tok::Keyword(Kw::Continue) => {
                self.advance();
                Ok(Stmt::Continue)
            }
            Tok::Keyword(Kw::Exit) => {
                self.advance();
                Ok(Stmt::Exit(self.opt_expr()?))
            }
            Tok::Keyword(Kw::Return) => {
                if !self.in_function {
                    let start = self.toks.get(self.pos).map_or(0, |t| t.start);
                    return self.fail_at("`return' used outside function context", start);
                }
                self.advance();
                Ok(Stmt::Return(self.opt_expr()?))
            }
            Tok::Keyword(Kw::Delete) => self.delete(),
            _ => Ok(Stmt::Expr(self.expr(Flags::default())?)),
        }
    }

    fn opt_expr(&mut self) -> PResult<Option<Expr>> {
        if matches!(
            self.peek(),
            Tok::Semi | Tok::Newline | Tok::RBrace | Tok::Eof
        ) {
            return Ok(None);
        }
        Ok(Some(self.expr(Flags::default())?))
    }

    fn delete(&mut self) -> PResult<Stmt> {
        self.advance();
        let paren = self.eat(&Tok::LParen);
        let Tok::Name(name) = self.advance() else {
            self.pos -= 1;
            return self.error();
        };
        let subs = if self.eat(&Tok::LBracket) {
            Some(self.subscripts()?)
        } else {
            None
        };
        if paren {
            self.expect(&Tok::RParen)?;
        }
        Ok(Stmt::Delete(name, subs))
    }

    fn print_args(&mut self) -> PResult<(Vec<Expr>, Option<Redirect>)> {
        let flags = Flags { no_gt: true };
        let mut args = Vec::new();
        if *self.peek() == Tok::LParen {
            let save = self.pos;
            if let Ok(list) = self.paren_list() {
                if matches!(
                    self.peek(),
                    Tok::Semi
                        | Tok::Newline
                        | Tok::RBrace
                        | Tok::Eof
                        | Tok::Gt
                        | Tok::Append
                        | Tok::Pipe
                ) {
                    args = list;
                }
            }
            if args.is_empty() {
                self.pos = save;
            }
        }
        if args.is_empty() && !self.at_print_end() {
            args.push(self.expr(flags)?);
            while self.eat(&Tok::Comma) {
                args.push(self.expr(flags)?);
            }
        }
        let redirect = match self.peek() {
            Tok::Gt => {
                self.advance();
                Some(Redirect::Write(self.concat(flags)?))
            }
            Tok::Append => {
                self.advance();
                Some(Redirect::Append(self.concat(flags)?))
            }
            Tok::Pipe => {
                self.advance();
                Some(Redirect::Pipe(self.concat(flags)?))
            }
            _ => None,
        };
        Ok((args, redirect))
    }

    fn at_print_end(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Semi | Tok::Newline | Tok::RBrace | Tok::Eof | Tok::Gt | Tok::Append | Tok::Pipe
        )
    }

    /// `( expr, expr... )`
    fn paren_list(&mut self) -> PResult<Vec<Expr>> {
        self.expect(&Tok::LParen)?;
        let mut list = vec![self.expr(Flags::default())?];
        while self.eat(&Tok::Comma) {
            list.push(self.expr(Flags::default())?);
        }
        self.expect(&Tok::RParen)?;
        Ok(list)
    }

    // ---- expressions ----

    fn expr(&mut self, flags: Flags) -> PResult<Expr> {
        self.enter()?;
        let lhs = self.ternary(flags)?;
        let result = if let Tok::Assign(op) = *self.peek() {
            if !is_lvalue(&lhs) {
                // `a == b = c` and the like; gawk also refuses these.
                return self.error();
            }
            self.advance();
            self.skip_newlines();
            let rhs = self.expr(flags)?;
            Expr::Assign(Box::new(lhs), op, Box::new(rhs))
        } else {
            lhs
        };
        self.depth -= 1;
        Ok(result)
    }

    /// The right operand of `&&`, `||`, `~` or a comparison: an lvalue there may be assigned
    /// (`$1 == $1 = "x"` compares with the assigned value), as gawk's grammar allows.
    fn operand_assign(&mut self, rhs: Expr, flags: Flags) -> PResult<Expr> {
        let Tok::Assign(op) = *self.peek() else {
            return Ok(rhs);
        };
        if !is_lvalue(&rhs) {
            return Ok(rhs);
        }
        self.advance();
        self.skip_newlines();
        let value = self.expr(flags)?;
        Ok(Expr::Assign(Box::new(rhs), op, Box::new(value)))
    }

    fn ternary(&mut self, flags: Flags) -> PResult<Expr> {
        let cond = self.or(flags)?;
        if !self.eat(&Tok::Question) {
            return Ok(cond);
        }
        self.skip_newlines();
        let a = self.expr(flags)?;
        self.skip_newlines();
        self.expect(&Tok::Colon)?;
        self.skip_newlines();
        let b = self.expr(flags)?;
        Ok(Expr::Cond(Box::new(cond), Box::new(a), Box::new(b)))
    }

    /// Counts one more link of a left-associative chain (`a b c...`, `a + b + c...`): the
    /// tree gets one level deeper, so it counts toward the nesting bound.
    fn link(&mut self) -> PResult<()> {
        self.enter()
    }

    fn or(&mut self, flags: Flags) -> PResult<Expr> {
        let saved = self.depth;
        let mut lhs = self.and(flags)?;
        while self.eat(&Tok::Or) {
            self.link()?;
            let rhs = self.and(flags)?;
            let rhs = self.operand_assign(rhs, flags)?;
            lhs = Expr::Or(Box::new(lhs), Box::new(rhs));
        }
        self.depth = saved;
        Ok(lhs)
    }

    fn and(&mut self, flags: Flags) -> PResult<Expr> {
        let saved = self.depth;
        let mut lhs = self.in_expr(flags)?;
        while self.eat(&Tok::And) {
            self.link()?;
            let rhs = self.in_expr(flags)?;
            let rhs = self.operand_assign(rhs, flags)?;
            lhs = Expr::And(Box::new(lhs), Box::new(rhs));
        }
        self.depth = saved;
        Ok(lhs)
    }

    fn in_expr(&mut self, flags: Flags) -> PResult<Expr> {
        let saved = self.depth;
        let mut lhs = self.matching(flags)?;
        while *self.peek() == Tok::Keyword(Kw::In) {
            self.link()?;
            self.advance();
            let Tok::Name(name) = self.advance() else {
                self.pos -= 1;
                return self.error();
            };
            lhs = Expr::In(vec![lhs], name);
        }
        self.depth = saved;
        Ok(lhs)
    }

    fn matching(&mut self, flags: Flags) -> PResult<Expr> {
        let saved = self.depth;
        let mut lhs = self.comparison(flags)?;
        loop {
            let negate = match self.peek() {
                Tok::Tilde => false,
                Tok::NoMatch => true,
                _ => break,
            };
            self.link()?;
            self.advance();
            let rhs = self.comparison(flags)?;
            let rhs = self.operand_assign(rhs, flags)?;
            lhs = Expr::Match(negate, Box::new(lhs), Box::new(rhs));
        }
        self.depth = saved;
        Ok(lhs)
    }

    fn comparison(&mut self, flags: Flags) -> PResult<Expr> {
        let saved = self.depth;
        let mut lhs = self.concat(flags)?;
        while *self.peek() == Tok::Pipe && *self.peek_at(1) == Tok::Keyword(Kw::Getline) {
            self.link()?;
            self.pos += 2;
            let var = self.getline_var()?;
            lhs = Expr::Getline(GetSrc::Cmd(Box::new(lhs)), var);
        }
        self.depth = saved;
        let op = match self.peek() {
            Tok::Lt => CmpOp::Lt,
            Tok::Le => CmpOp::Le,
            Tok::Gt if !flags.no_gt => CmpOp::Gt,
            Tok::Ge => CmpOp::Ge,
            Tok::Eq => CmpOp::Eq,
            Tok::Ne => CmpOp::Ne,
            _ => return Ok(lhs),
        };
        self.advance();
        let rhs = self.concat(flags)?;
        let rhs = self.operand_assign(rhs, flags)?;
        Ok(Expr::Cmp(op, Box::new(lhs), Box::new(rhs)))
    }

    /// Whether the next token can start an operand that concatenates (`a -1` subtracts and
    /// `a !b` is not awk, so signs and `!` do not).
    fn starts_operand(&self) -> bool {
        matches!(
            self.peek(),
            Tok::Number(_)
                | Tok::Str(_)
                | Tok::Regex(_)
                | Tok::Name(_)
                | Tok::FuncName(_)
                | Tok::Builtin(_)
                | Tok::Dollar
                | Tok::LParen
                | Tok::Incr
                | Tok::Decr
        )
    }

    fn concat(&mut self, flags: Flags) -> PResult<Expr> {
        let saved = self.depth;
        let mut lhs = self.additive(flags)?;
        while self.starts_operand() {
            self.link()?;
            let rhs = self.additive(flags)?;
            lhs = Expr::Concat(Box::new(lhs), Box::new(rhs));
        }
        self.depth = saved;
        Ok(lhs)
    }

    fn additive(&mut self, flags: Flags) -> PResult<Expr> {
        let saved = self.depth;
        let mut lhs = self.multiplicative(flags)?;
        loop {
            let op = match self.peek() {
                Tok::Plus => super::ast::Arith::Add,
                Tok::Minus => super::ast::Arith::Sub,
                _ => break,
            };
            self.link()?;
            self.advance();
            let rhs = self.multiplicative(flags)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        self.depth = saved;
        Ok(lhs)
    }

    fn multiplicative(&mut self, flags: Flags) -> PResult<Expr> {
        let saved = self.depth;
        let mut lhs = self.unary(flags)?;
        loop {
            let op = match self.peek() {
                Tok::Star => super::ast::Arith::Mul,
                Tok::Slash => super::ast::Arith::Div,
                Tok::Percent => super::ast::Arith::Mod,
                _ => break,
            };
            self.link()?;
            self.advance();
            let rhs = self.unary(flags)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        self.depth = saved;
        Ok(lhs)
    }

    fn unary(&mut self, flags: Flags) -> PResult<Expr> {
        self.enter()?;
        let e = match self.peek() {
            Tok::Not => {
                self.advance();
                Expr::Not(Box::new(self.unary(flags)?))
            }
            Tok::Minus => {
                self.advance();
                Expr::Neg(Box::new(self.unary(flags)?))
            }
            Tok::Plus => {
                self.advance();
                Expr::Plus(Box::new(self.unary(flags)?))
            }
            _ => self.power(flags)?,
        };
        self.depth -= 1;
        Ok(e)
    }

    fn power(&mut self, flags: Flags) -> PResult<Expr> {
        let base = self.postfix(flags)?;
        if self.eat(&Tok::Caret) {
            // Right-associative, and the exponent may carry a sign: 2^-1, 2^3^2.
            let exp = self.unary(flags)?;
            return Ok(Expr::Binary(
                super::ast::Arith::Pow,
                Box::new(base),
                Box::new(exp),
            ));
        }
        Ok(base)
    }

    fn postfix(&mut self, flags: Flags) -> PResult<Expr> {
        let e = self.primary(flags)?;
        if is_lvalue(&e) {
            let delta = match self.peek() {
                Tok::Incr => 1.0,
                Tok::Decr => -1.0,
                _ => return Ok(e),
            };
            self.advance();
            return Ok(Expr::Incr {
                pre: false,
                delta,
                target: Box::new(e),
            });
        }
        Ok(e)
    }

    fn primary(&mut self, flags: Flags) -> PResult<Expr> {
        self.enter()?;
        let tok = self.advance();
        let e = match tok {
            Tok::Number(n) => Expr::Num(n),
            Tok::Str(s) => Expr::Str(s),
            Tok::Regex(r) => Expr::Regex(r),
            Tok::Dollar => Expr::Field(Box::new(self.dollar_operand()?)),
            Tok::Incr | Tok::Decr => {
                let delta = if tok == Tok::Incr { 1.0 } else { -1.0 };
                let target = self.primary(flags)?;
                if !is_lvalue(&target) {
                    return self.error();
                }
                Expr::Incr {
                    pre: true,
                    delta,
                    target: Box::new(target),
                }
            }
            Tok::Minus => Expr::Neg(Box::new(self.unary(flags)?)),
            Tok::Plus => Expr::Plus(Box::new(self.unary(flags)?)),
            Tok::Not => Expr::Not(Box::new(self.unary(flags)?)),
            Tok::LParen => self.group()?,
            Tok::Name(name) => {
                if self.eat(&Tok::LBracket) {
                    Expr::Index(name, self.subscripts()?)
                } else {
                    Expr::Var(name)
                }
            }
            Tok::FuncName(name) => Expr::Call(name, self.call_args()?),
            Tok::Builtin(name) => {
                if *self.peek() == Tok::LParen {
                    let args = self.call_args()?;
                    self.check_arity(&name, args.len())?;
                    Expr::Builtin(name, args)
                } else if name == "length" {
                    Expr::Builtin(name, Vec::new())
                } else {
                    self.pos -= 1;
                    return self.error();
                }
            }
            Tok::Keyword(Kw::Getline) => self.simple_getline()?,
            _ => {
                self.pos -= 1;
                return self.error();
            }
        };
        self.depth -= 1;
        Ok(e)
    }

    /// What `$` applies to: a primary, with prefix `++`/`--`/`-` but no postfix.
    fn dollar_operand(&mut self) -> PResult<Expr> {
        match self.peek() {
            Tok::Incr | Tok::Decr | Tok::Minus | Tok::Plus | Tok::Not => {
                self.primary(Flags::default())
            }
            _ => self.primary(Flags::default()),
        }
    }

    fn group(&mut self) -> PResult<Expr> {
        self.skip_newlines();
        let first = self.expr(Flags::default())?;
        self.skip_newlines();
        if *self.peek() == Tok::Comma {
            let mut list = vec![first];
            while self.eat(&Tok::Comma) {
                self.skip_newlines();
                list.push(self.expr(Flags::default())?);
            }
            self.expect(&Tok::RParen)?;
            if !self.eat(&Tok::Keyword(Kw::In)) {
                return self.error();
            }
            let Tok::Name(name) = self.advance() else {
                self.pos -= 1;
                return self.error();
            };
            return Ok(Expr::In(list, name));
        }
        self.expect(&Tok::RParen)?;
        Ok(Expr::Group(Box::new(first)))
    }

    fn subscripts(&mut self) -> PResult<Vec<Expr>> {
        let mut subs = vec![self.expr(Flags::default())?];
        while self.eat(&Tok::Comma) {
            subs.push(self.expr(Flags::default())?);
        }
        self.expect(&Tok::RBracket)?;
        Ok(subs)
    }

    fn call_args(&mut self) -> PResult<Vec<Expr>> {
        self.expect(&Tok::LParen)?;
        let mut args = Vec::new();
        self.skip_newlines();
        if self.eat(&Tok::RParen) {
            return Ok(args);
        }
        loop {
            self.skip_newlines();
            args.push(self.expr(Flags::default())?);
            self.skip_newlines();
            if self.eat(&Tok::RParen) {
                return Ok(args);
            }
            self.expect(&Tok::Comma)?;
        }
    }

    /// gawk checks built-in argument counts while parsing.
    fn check_arity(&self, name: &str, n: usize) -> PResult<()> {
        let (min, max) = builtin_arity(name);
        if n < min || n > max {
            let paren = self
                .toks
                .get(self.pos.saturating_sub(1))
                .map_or(0, |t| t.start);
            return self.fail_at(
                &format!("{n} is invalid as number of arguments for {name}"),
                paren,
            );
        }
        Ok(())
    }

    /// `getline [var] [< file]`
    fn simple_getline(&mut self) -> PResult<Expr> {
        let var = self.getline_var()?;
        if self.eat(&Tok::Lt) {
            let file = self.getline_file()?;
            return Ok(Expr::Getline(GetSrc::File(Box::new(file)), var));
        }
        Ok(Expr::Getline(GetSrc::Main, var))
    }

    /// The file after `getline <`: a primary, with `$` allowed, no concatenation.
    fn getline_file(&mut self) -> PResult<Expr> {
        self.primary(Flags::default())
    }

    fn getline_var(&mut self) -> PResult<Option<Box<Expr>>> {
        match self.peek() {
            Tok::Dollar => {
                self.advance();
                let operand = self.dollar_operand()?;
                Ok(Some(Box::new(Expr::Field(Box::new(operand)))))
            }
            Tok::Name(_) => {
                let Tok::Name(name) = self.advance() else {
                    return self.error();
                };
                if self.eat(&Tok::LBracket) {
                    return Ok(Some(Box::new(Expr::Index(name, self.subscripts()?))));
                }
                Ok(Some(Box::new(Expr::Var(name))))
            }
            _ => Ok(None),
        }
    }
}

/// The argument counts a built-in accepts.
fn builtin_arity(name: &str) -> (usize, usize) {
    match name {
        "length" => (0, 1),
        "substr" => (2, 3),
        "index" | "atan2" | "lshift" | "rshift" => (2, 2),
        "split" | "patsplit" => (2, 4),
        "sub" | "gsub" | "match" => (2, 3),
        "gensub" => (3, 4),
        "sprintf" => (1, usize::MAX),
        "rand" | "systime" => (0, 0),
        "srand" | "fflush" => (0, 1),
        "close" | "mktime" | "asort" | "asorti" => (1, 2),
        "strftime" => (0, 3),
        "and" | "or" | "xor" => (2, usize::MAX),
        _ => (1, 1),
    }
}

/// Whether `e` can be assigned to.
pub fn is_lvalue(e: &Expr) -> bool {
    matches!(e, Expr::Var(_) | Expr::Field(_) | Expr::Index(..))
}
