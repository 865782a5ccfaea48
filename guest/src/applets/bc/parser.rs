//! bc's grammar (GNU bc 1.07) by recursive descent: top-level statement lists end at a
//! newline and run then; `define` adds a function; a syntax error skips to the next newline.

use std::rc::Rc;

use super::lexer::{Tok, Token};
use crate::limits::MAX_BC_NESTING;

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `^`
    Pow,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// Something that can be assigned.
#[derive(Debug, Clone)]
pub enum LValue {
    /// A simple variable.
    Var(String),
    /// An array element.
    Elem(String, Box<Expr>),
    /// `scale`
    Scale,
    /// `ibase`
    Ibase,
    /// `obase`
    Obase,
    /// `last` (or `.`)
    Last,
}

/// A function argument: a value or a whole array (`a[]`).
#[derive(Debug, Clone)]
pub enum Arg {
    /// A value.
    Value(Expr),
    /// An array, passed by value.
    Array(String),
}

/// Expressions.
#[derive(Debug, Clone)]
pub enum Expr {
    /// A literal, converted with `ibase` when evaluated.
    Num(String),
    /// A readable place (variable, element, special variable).
    Load(LValue),
    /// `f(args)`
    Call(String, Vec<Arg>),
    /// `length(x)`
    Length(Box<Expr>),
    /// `sqrt(x)`
    Sqrt(Box<Expr>),
    /// `scale(x)`
    ScaleOf(Box<Expr>),
    /// `read()`
    Read,
    /// `-x`
    Neg(Box<Expr>),
    /// `!x`
    Not(Box<Expr>),
    /// `a op b`
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `a && b`
    And(Box<Expr>, Box<Expr>),
    /// `a || b`
    Or(Box<Expr>, Box<Expr>),
    /// `x = e`, `x op= e`
    Assign(Option<BinOp>, LValue, Box<Expr>),
    /// `++x`, `x--`...
    IncDec {
        /// Prefix form (value after the change).
        pre: bool,
        /// Increment (else decrement).
        inc: bool,
        /// The variable.
        target: LValue,
    },
}

/// Items of a `print` statement.
#[derive(Debug, Clone)]
pub enum PrintItem {
    /// A value.
    Expr(Expr),
    /// A string (escapes already decoded).
    Str(String),
}

/// Statements.
#[derive(Debug, Clone)]
pub enum Stmt {
    /// An expression; printed unless it is an assignment.
    Expr(Expr, bool),
    /// A string, printed as written.
    Str(String),
    /// `print a, "b"`
    Print(Vec<PrintItem>),
    /// `if (c) s else t`
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `while (c) s`
    While(Expr, Box<Stmt>),
    /// `for (a; b; c) s`
    For(Option<Expr>, Option<Expr>, Option<Expr>, Box<Stmt>),
    /// `{ ... }`
    Block(Vec<Stmt>),
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `return` / `return (e)`
    Return(Option<Expr>),
    /// `halt`
    Halt,
    /// `limits`
    Limits,
    /// `warranty`
    Warranty,
}

/// A parameter or auto variable (`x` or `a[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// Its name.
    pub name: String,
    /// Whether it is an array.
    pub array: bool,
}

/// A user function.
#[derive(Debug)]
pub struct Func {
    /// Its name.
    pub name: String,
    /// `define void f()`: calls print nothing.
    pub void: bool,
    /// Parameters.
    pub params: Vec<Param>,
    /// Local (`auto`) variables.
    pub autos: Vec<Param>,
    /// The body.
    pub body: Vec<Stmt>,
}

/// One top-level item.
#[derive(Debug)]
pub enum Item {
    /// Statements of one input line: run now.
    Stmts(Vec<Stmt>),
    /// A function definition.
    Define(Rc<Func>),
    /// A syntax error: the message (without the file/line prefix) and its line.
    Error(usize, String),
    /// `quit`: stop at once.
    Quit,
}

/// The result of parsing buffered input.
pub struct Chunk {
    /// Complete items.
    pub items: Vec<Item>,
    /// Bytes of the text that the complete items used.
    pub consumed: usize,
    /// Whether the rest is an unfinished item (more input may complete it).
    pub incomplete: bool,
}

/// A parse failure: at the end of the tokens (`None`), or at a token.
type Fail = Option<(usize, String)>;
type PResult<T> = Result<T, Fail>;

/// Parses all complete items of `tokens`.
pub fn parse(tokens: &[Token]) -> Chunk {
    let mut p = Parser {
        toks: tokens,
        i: 0,
        loops: 0,
        in_function: false,
        depth: 0,
        lvalue: None,
    };
    let mut chunk = Chunk {
        items: Vec::new(),
        consumed: 0,
        incomplete: false,
    };
    while p.i < tokens.len() {
        match p.item() {
            Ok(Some(item)) => {
                let quit = matches!(item, Item::Quit);
                chunk.items.push(item);
                if quit {
                    return chunk;
                }
            }
            Ok(None) => {}
            Err(None) => {
                chunk.incomplete = true;
                return chunk;
            }
            Err(Some((line, msg))) => {
                if msg == "quit" {
                    chunk.items.push(Item::Quit);
                    return chunk;
                }
                chunk.items.push(Item::Error(line, msg));
                p.recover();
            }
        }
        chunk.consumed = p.consumed();
    }
    chunk
}

struct Parser<'a> {
    toks: &'a [Token],
    i: usize,
    loops: usize,
    in_function: bool,
    depth: usize,
    /// The last named expression read: where it began, what it is, where it ended. An
    /// assignment tries one, and reads the same one again when none follows: without this,
    /// `a[a[a[...]]]` was read 2^n times.
    lvalue: Option<(usize, LValue, usize)>,
}

fn syntax(line: usize) -> Fail {
    Some((line, "syntax error".to_string()))
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.kind)
    }

    fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.toks.get(self.i + n).map(|t| &t.kind)
    }

    fn consumed(&self) -> usize {
        if self.i == 0 {
            0
        } else {
            self.toks[self.i - 1].end
        }
    }

    /// The error for the current token (or the end, which means "incomplete").
    fn fail<T>(&self) -> PResult<T> {
        match self.toks.get(self.i) {
            Some(t) => Err(syntax(t.line)),
            None => Err(None),
        }
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Some(Tok::Keyword(k)) if *k == kw)
    }

    fn expect_op(&mut self, op: &str) -> PResult<()> {
        if self.is_op(op) {
            self.i += 1;
            Ok(())
        } else {
            self.fail()
        }
    }

    fn skip_newlines(&mut self) {
        while matches!(self.peek(), Some(Tok::Newline)) {
            self.i += 1;
        }
    }

    /// Skips to just past the next newline (bc's `error NEWLINE` rule).
    fn recover(&mut self) {
        while let Some(t) = self.toks.get(self.i) {
            self.i += 1;
            if t.kind == Tok::Newline {
                break;
            }
        }
    }

    fn item(&mut self) -> PResult<Option<Item>> {
        if self.is_kw("define") {
            return self.define().map(|f| Some(Item::Define(Rc::new(f))));
        }
        let mut stmts = Vec::new();
        loop {
            match self.peek() {
                None => return Err(None),
                Some(Tok::Newline) => {
                    self.i += 1;
                    break;
                }
                Some(Tok::Op(";")) => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            stmts.push(self.statement()?);
            match self.peek() {
                Some(Tok::Op(";")) => self.i += 1,
                Some(Tok::Newline) | None => {}
                _ => return self.fail(),
            }
        }
        Ok(if stmts.is_empty() {
            None
        } else {
            Some(Item::Stmts(stmts))
        })
    }

    fn define(&mut self) -> PResult<Func> {
        let line = self.toks[self.i].line;
        self.i += 1;
        let void = self.is_kw("void");
        if void {
            self.i += 1;
        }
        let name = match self.peek() {
            Some(Tok::Name(n)) => n.clone(),
            _ => return self.fail(),
        };
        self.i += 1;
        self.expect_op("(")?;
        let params = if self.is_op(")") {
            Vec::new()
        } else {
            self.param_list()?
        };
        self.expect_op(")")?;
        self.skip_newlines();
        self.expect_op("{")?;
        self.skip_newlines();
        let mut autos = Vec::new();
        if self.is_kw("auto") {
            self.i += 1;
            autos = self.param_list()?;
            match self.peek() {
                Some(Tok::Newline | Tok::Op(";")) => self.i += 1,
                _ => return self.fail(),
            }
        }
        if let Some(dup) = autos.iter().find(|a| params.contains(a)) {
            let _ = dup;
            return Err(Some((
                line,
                "variable in both parameter and auto lists".into(),
            )));
        }
        let was = std::mem::replace(&mut self.in_function, true);
        let body = self.block_body();
        self.in_function = was;
        Ok(Func {
            name,
            void,
            params,
            autos,
            body: body?,
        })
    }

    fn param_list(&mut self) -> PResult<Vec<Param>> {
        let mut out = Vec::new();
        loop {
            if self.is_op("*") {
                self.i += 1;
            }
            let name = match self.peek() {
                Some(Tok::Name(n)) => n.clone(),
                _ => return self.fail(),
            };
            self.i += 1;
            let array = self.is_op("[");
            if array {
                self.i += 1;
                self.expect_op("]")?;
            }
            out.push(Param { name, array });
            if !self.is_op(",") {
                return Ok(out);
            }
            self.i += 1;
        }
    }

    /// Statements up to the closing `}` (consumed).
    fn block_body(&mut self) -> PResult<Vec<Stmt>> {
        let mut stmts = Vec::new();
        loop {
            match self.peek() {
                None => return Err(None),
                Some(Tok::Newline | Tok::Op(";")) => {
                    self.i += 1;
                    continue;
                }
                Some(Tok::Op("}")) => {
                    self.i += 1;
                    return Ok(stmts);
                }
                _ => {}
            }
            stmts.push(self.statement()?);
            match self.peek() {
                Some(Tok::Newline | Tok::Op(";") | Tok::Op("}")) => {}
                _ => return self.fail(),
            }
        }
    }

    fn statement(&mut self) -> PResult<Stmt> {
        self.nested(Self::statement_inner)
    }

    /// Runs `f` one nesting level deeper, refusing absurd depths; the levels its operator
    /// chains added ([`Parser::deeper`]) end with it.
    fn nested<T>(&mut self, f: fn(&mut Self) -> PResult<T>) -> PResult<T> {
        let depth = self.depth;
        self.deeper()?;
        let result = f(self);
        self.depth = depth;
        result
    }

    /// One level deeper: for each operator of a chain too (`1+1+...` nests to the left, and
    /// evaluating and dropping the tree recurse on it: 5,000 terms overflowed the stack).
    fn deeper(&mut self) -> PResult<()> {
        if self.depth >= MAX_BC_NESTING {
            return self.fail();
        }
        self.depth += 1;
        Ok(())
    }

    fn statement_inner(&mut self) -> PResult<Stmt> {
        let line = self.toks.get(self.i).map_or(0, |t| t.line);
        let tok = match self.peek() {
            Some(t) => t.clone(),
            None => return Err(None),
        };
        match tok {
            Tok::Str(s) => {
                self.i += 1;
                Ok(Stmt::Str(s))
            }
            Tok::Op("{") => {
                self.i += 1;
                self.block_body().map(Stmt::Block)
            }
            Tok::Keyword(k) => self.keyword_statement(k, line),
            _ => {
                let (e, assign) = self.expression()?;
                Ok(Stmt::Expr(e, !assign))
            }
        }
    }

    fn keyword_statement(&mut self, k: &'static str, line: usize) -> PResult<Stmt> {
        match k {
            "quit" => Err(Some((line, "quit".into()))),
            "break" | "continue" => {
                self.i += 1;
                if self.loops == 0 {
                    let msg = if k == "break" {
                        "Break outside a for/while"
                    } else {
                        "Continue outside a for"
                    };
                    return Err(Some((line, msg.into())));
                }
                Ok(if k == "break" {
                    Stmt::Break
                } else {
                    Stmt::Continue
                })
            }
            "halt" => {
                self.i += 1;
                Ok(Stmt::Halt)
            }
            "limits" => {
                self.i += 1;
                Ok(Stmt::Limits)
            }
            "warranty" => {
                self.i += 1;
                Ok(Stmt::Warranty)
            }
            "return" => self.return_statement(line),
            "print" => self.print_statement(),
            "if" => self.if_statement(),
            "while" => self.while_statement(),
            "for" => self.for_statement(),
            _ => {
                let (e, assign) = self.expression()?;
                Ok(Stmt::Expr(e, !assign))
            }
        }
    }

    fn return_statement(&mut self, line: usize) -> PResult<Stmt> {
        self.i += 1;
        if !self.in_function {
            // bc notices at the end of the statement, on the newline's line
            let _ = line;
            while !matches!(self.peek(), None | Some(Tok::Newline | Tok::Op(";"))) {
                self.i += 1;
            }
            let at = self.toks.get(self.i).map_or(line, |t| t.line);
            return Err(Some((at, "Return outside of a function.".into())));
        }
        match self.peek() {
            None => Err(None),
            Some(Tok::Newline | Tok::Op(";") | Tok::Op("}")) => Ok(Stmt::Return(None)),
            _ => Ok(Stmt::Return(Some(self.expression()?.0))),
        }
    }

    fn print_statement(&mut self) -> PResult<Stmt> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Str(s)) => {
                    items.push(PrintItem::Str(unescape(s)));
                    self.i += 1;
                }
                _ => items.push(PrintItem::Expr(self.expression()?.0)),
            }
            if !self.is_op(",") {
                return Ok(Stmt::Print(items));
            }
            self.i += 1;
        }
    }

    fn condition(&mut self) -> PResult<Expr> {
        self.i += 1;
        self.expect_op("(")?;
        let (e, _) = self.expression()?;
        self.expect_op(")")?;
        Ok(e)
    }

    fn if_statement(&mut self) -> PResult<Stmt> {
        let cond = self.condition()?;
        self.skip_newlines();
        let then = self.statement()?;
        let otherwise = if self.is_kw("else") {
            self.i += 1;
            self.skip_newlines();
            Some(Box::new(self.statement()?))
        } else {
            None
        };
        Ok(Stmt::If(cond, Box::new(then), otherwise))
    }

    fn loop_body(&mut self) -> PResult<Stmt> {
        self.skip_newlines();
        self.loops += 1;
        let body = self.statement();
        self.loops -= 1;
        body
    }

    fn while_statement(&mut self) -> PResult<Stmt> {
        let cond = self.condition()?;
        let body = self.loop_body()?;
        Ok(Stmt::While(cond, Box::new(body)))
    }

    fn for_statement(&mut self) -> PResult<Stmt> {
        self.i += 1;
        self.expect_op("(")?;
        let init = self.optional_expr(";")?;
        self.expect_op(";")?;
        let cond = self.optional_expr(";")?;
        self.expect_op(";")?;
        let step = self.optional_expr(")")?;
        self.expect_op(")")?;
        let body = self.loop_body()?;
        Ok(Stmt::For(init, cond, step, Box::new(body)))
    }

    fn optional_expr(&mut self, end: &str) -> PResult<Option<Expr>> {
        if self.is_op(end) {
            Ok(None)
        } else {
            Ok(Some(self.expression()?.0))
        }
    }

    /// An expression and whether it is a bare assignment (not printed as a statement).
    fn expression(&mut self) -> PResult<(Expr, bool)> {
        self.nested(Self::expression_inner)
    }

    fn expression_inner(&mut self) -> PResult<(Expr, bool)> {
        let depth = self.depth;
        let mut left = self.and_expr()?;
        while self.is_op("||") {
            self.deeper()?;
            self.i += 1;
            let right = self.and_expr()?;
            left = (Expr::Or(Box::new(left.0), Box::new(right.0)), false);
        }
        self.depth = depth;
        Ok(left)
    }

    fn and_expr(&mut self) -> PResult<(Expr, bool)> {
        let depth = self.depth;
        let mut left = self.not_expr()?;
        while self.is_op("&&") {
            self.deeper()?;
            self.i += 1;
            let right = self.not_expr()?;
            left = (Expr::And(Box::new(left.0), Box::new(right.0)), false);
        }
        self.depth = depth;
        Ok(left)
    }

    fn not_expr(&mut self) -> PResult<(Expr, bool)> {
        if self.is_op("!") {
            self.i += 1;
            let inner = self.nested(Self::not_expr)?;
            return Ok((Expr::Not(Box::new(inner.0)), false));
        }
        self.rel_expr()
    }

    fn rel_expr(&mut self) -> PResult<(Expr, bool)> {
        let depth = self.depth;
        let mut left = self.assign_expr()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op("==")) => BinOp::Eq,
                Some(Tok::Op("!=")) => BinOp::Ne,
                Some(Tok::Op("<")) => BinOp::Lt,
                Some(Tok::Op("<=")) => BinOp::Le,
                Some(Tok::Op(">")) => BinOp::Gt,
                Some(Tok::Op(">=")) => BinOp::Ge,
                _ => {
                    self.depth = depth;
                    return Ok(left);
                }
            };
            self.deeper()?;
            self.i += 1;
            let right = self.assign_expr()?;
            left = (Expr::Bin(op, Box::new(left.0), Box::new(right.0)), false);
        }
    }

    fn assign_op(&self) -> Option<Option<BinOp>> {
        Some(match self.peek()? {
            Tok::Op("=") => None,
            Tok::Op("+=") => Some(BinOp::Add),
            Tok::Op("-=") => Some(BinOp::Sub),
            Tok::Op("*=") => Some(BinOp::Mul),
            Tok::Op("/=") => Some(BinOp::Div),
            Tok::Op("%=") => Some(BinOp::Rem),
            Tok::Op("^=") => Some(BinOp::Pow),
            _ => return None,
        })
    }

    fn assign_expr(&mut self) -> PResult<(Expr, bool)> {
        let start = self.i;
        if let Some(target) = self.try_lvalue()? {
            if let Some(op) = self.assign_op() {
                self.i += 1;
                let value = if self.is_op("!") {
                    self.nested(Self::not_expr)?.0
                } else {
                    self.nested(Self::assign_expr)?.0
                };
                return Ok((Expr::Assign(op, target, Box::new(value)), true));
            }
        }
        self.i = start;
        Ok((self.add_expr()?, false))
    }

    /// A named expression at the cursor (consumed), or None (cursor unchanged).
    fn try_lvalue(&mut self) -> PResult<Option<LValue>> {
        let start = self.i;
        if let Some((_, lv, end)) = self.lvalue.as_ref().filter(|m| m.0 == start) {
            let lv = lv.clone();
            self.i = *end;
            return Ok(Some(lv));
        }
        let lv = self.read_lvalue()?;
        if let Some(lv) = &lv {
            self.lvalue = Some((start, lv.clone(), self.i));
        }
        Ok(lv)
    }

    fn read_lvalue(&mut self) -> PResult<Option<LValue>> {
        let lv = match self.peek() {
            Some(Tok::Keyword("scale")) if !matches!(self.peek_at(1), Some(Tok::Op("("))) => {
                LValue::Scale
            }
            Some(Tok::Keyword("ibase")) => LValue::Ibase,
            Some(Tok::Keyword("obase")) => LValue::Obase,
            Some(Tok::Keyword("last")) => LValue::Last,
            Some(Tok::Name(n)) => {
                let n = n.clone();
                match self.peek_at(1) {
                    Some(Tok::Op("(")) => return Ok(None),
                    Some(Tok::Op("[")) => {
                        self.i += 2;
                        let (index, _) = self.expression()?;
                        self.expect_op("]")?;
                        return Ok(Some(LValue::Elem(n, Box::new(index))));
                    }
                    _ => LValue::Var(n),
                }
            }
            _ => return Ok(None),
        };
        self.i += 1;
        Ok(Some(lv))
    }

    fn add_expr(&mut self) -> PResult<Expr> {
        let depth = self.depth;
        let mut left = self.mul_expr()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op("+")) => BinOp::Add,
                Some(Tok::Op("-")) => BinOp::Sub,
                _ => {
                    self.depth = depth;
                    return Ok(left);
                }
            };
            self.deeper()?;
            self.i += 1;
            let right = self.mul_expr()?;
            left = Expr::Bin(op, Box::new(left), Box::new(right));
        }
    }

    fn mul_expr(&mut self) -> PResult<Expr> {
        let depth = self.depth;
        let mut left = self.pow_expr()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Op("*")) => BinOp::Mul,
                Some(Tok::Op("/")) => BinOp::Div,
                Some(Tok::Op("%")) => BinOp::Rem,
                _ => {
                    self.depth = depth;
                    return Ok(left);
                }
            };
            self.deeper()?;
            self.i += 1;
            let right = self.pow_expr()?;
            left = Expr::Bin(op, Box::new(left), Box::new(right));
        }
    }

    fn pow_expr(&mut self) -> PResult<Expr> {
        let base = self.unary()?;
        if self.is_op("^") {
            self.i += 1;
            let exp = self.nested(Self::pow_expr)?;
            return Ok(Expr::Bin(BinOp::Pow, Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn unary(&mut self) -> PResult<Expr> {
        if self.is_op("-") {
            self.i += 1;
            return Ok(Expr::Neg(Box::new(self.nested(Self::unary)?)));
        }
        if self.is_op("++") || self.is_op("--") {
            let inc = self.is_op("++");
            self.i += 1;
            let Some(target) = self.try_lvalue()? else {
                return self.fail();
            };
            return Ok(Expr::IncDec {
                pre: true,
                inc,
                target,
            });
        }
        self.postfix()
    }

    fn postfix(&mut self) -> PResult<Expr> {
        if let Some(target) = self.try_lvalue()? {
            if self.is_op("++") || self.is_op("--") {
                let inc = self.is_op("++");
                self.i += 1;
                return Ok(Expr::IncDec {
                    pre: false,
                    inc,
                    target,
                });
            }
            return Ok(Expr::Load(target));
        }
        self.primary()
    }

    fn primary(&mut self) -> PResult<Expr> {
        let tok = match self.peek() {
            Some(t) => t.clone(),
            None => return Err(None),
        };
        match tok {
            Tok::Number(n) => {
                self.i += 1;
                Ok(Expr::Num(n))
            }
            Tok::Op("(") => {
                self.i += 1;
                let (e, _) = self.expression()?;
                self.expect_op(")")?;
                Ok(e)
            }
            Tok::Name(name) => self.call(name),
            Tok::Keyword(k @ ("length" | "sqrt" | "scale")) => {
                self.i += 1;
                self.expect_op("(")?;
                let (e, _) = self.expression()?;
                self.expect_op(")")?;
                let e = Box::new(e);
                Ok(match k {
                    "length" => Expr::Length(e),
                    "sqrt" => Expr::Sqrt(e),
                    _ => Expr::ScaleOf(e),
                })
            }
            Tok::Keyword("read") => {
                self.i += 1;
                self.expect_op("(")?;
                self.expect_op(")")?;
                Ok(Expr::Read)
            }
            _ => self.fail(),
        }
    }

    fn call(&mut self, name: String) -> PResult<Expr> {
        self.i += 1;
        self.expect_op("(")?;
        let mut args = Vec::new();
        if !self.is_op(")") {
            loop {
                let array = matches!(
                    (self.peek(), self.peek_at(1), self.peek_at(2)),
                    (Some(Tok::Name(_)), Some(Tok::Op("[")), Some(Tok::Op("]")))
                );
                if array {
                    if let Some(Tok::Name(n)) = self.peek() {
                        args.push(Arg::Array(n.clone()));
                    }
                    self.i += 3;
                } else {
                    args.push(Arg::Value(self.expression()?.0));
                }
                if !self.is_op(",") {
                    break;
                }
                self.i += 1;
            }
        }
        self.expect_op(")")?;
        Ok(Expr::Call(name, args))
    }
}

/// Decodes the escapes bc allows in `print` strings.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('a') => out.push('\u{7}'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('q') => out.push('"'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}
