//! Bash arithmetic: `$(( ))`, `(( ))`, `let`, array subscripts, `for (( ))`.
//!
//! The interpreter expands the expression text first (like a double-quoted word), then
//! [`parse_arith`] parses it and [`eval`] evaluates it on `i64` with wrapping overflow, as
//! bash does on 64-bit hosts. Variables are read and written through [`ArithVars`]; a
//! variable whose value is not a number is itself evaluated as an expression (`x=1+2;
//! $((x*2))` is 6). Errors read like bash's:
//! `1/0: division by 0 (error token is "0")`.
//!
//! Nesting is bounded by [`MAX_ARITH_DEPTH`] across parsing, evaluation and variables that refer
//! to other expressions, so hostile input ends in an error, never a stack overflow.

use crate::limits::MAX_ARITH_DEPTH;
use std::fmt;

/// A parsed expression, with its source text (for error messages).
#[derive(Debug, Clone, PartialEq)]
pub struct ArithExpr {
    /// The text that was parsed.
    pub source: String,
    /// The expression tree.
    pub node: ArithNode,
}

/// A node of an arithmetic expression.
#[derive(Debug, Clone, PartialEq)]
pub enum ArithNode {
    /// A constant.
    Num(i64),
    /// A variable or array element, read.
    Var(LValue),
    /// `+x`, `-x`, `!x`, `~x`.
    Unary(UnaryOp, Box<ArithNode>),
    /// `++x`, `--x`, `x++`, `x--`.
    IncDec {
        /// The variable.
        target: LValue,
        /// `++` rather than `--`.
        increment: bool,
        /// Written before the variable: the value is the new one.
        prefix: bool,
    },
    /// `a op b op c ...`: operators of one precedence level, applied left to right (a flat
    /// list, so long chains do not nest); `&&` and `||` short-circuit. `**` is
    /// right-associative: its right operand is itself a `Binary`.
    Binary {
        /// The first operand.
        first: Box<ArithNode>,
        /// Each further operator and operand.
        rest: Vec<BinTail>,
    },
    /// `c ? a : b`.
    Cond(Box<ArithNode>, Box<ArithNode>, Box<ArithNode>),
    /// `x = v`, `x += v`, ...
    Assign {
        /// The variable.
        target: LValue,
        /// For `op=`, the operator.
        op: Option<BinOp>,
        /// The right-hand side.
        value: Box<ArithNode>,
        /// Byte offset of the error token if `op` fails.
        at: usize,
    },
    /// `a, b, ...`: all, in order; the value of the last.
    Comma(Vec<ArithNode>),
}

/// An operator and its right operand in [`ArithNode::Binary`].
#[derive(Debug, Clone, PartialEq)]
pub struct BinTail {
    /// The operator.
    pub op: BinOp,
    /// The right operand.
    pub operand: ArithNode,
    /// Byte offset in the source of the error token if this operation fails.
    pub at: usize,
}

/// Something that can be assigned: `name` or `name[index]`.
#[derive(Debug, Clone, PartialEq)]
pub struct LValue {
    /// The variable.
    pub name: String,
    /// The subscript as written: evaluated as arithmetic when the element is used, unless
    /// the array is associative (then it is the key), as bash does.
    pub index: Option<String>,
}

/// Unary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    /// `+`.
    Plus,
    /// `-`.
    Minus,
    /// `!`: 1 if zero, else 0.
    Not,
    /// `~`: bitwise not.
    BitNot,
}

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
    /// `**`
    Pow,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
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
}

/// An arithmetic error. Displays as bash prints it after `bash: line N: `:
/// `expr: message (error token is "token")`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArithError {
    /// The expression being evaluated (empty for errors raised by [`ArithVars`]).
    pub expr: String,
    /// What went wrong.
    pub message: String,
    /// The rest of the expression from where it went wrong.
    pub token: Option<String>,
}

impl ArithError {
    /// An error with only a message (for [`ArithVars`] implementations, e.g.
    /// `x: unbound variable` or `x: readonly variable`).
    pub fn new(message: impl Into<String>) -> ArithError {
        ArithError {
            expr: String::new(),
            message: message.into(),
            token: None,
        }
    }

    fn at(expr: &str, offset: usize, message: impl Into<String>) -> ArithError {
        ArithError {
            // bash shows the expression without its leading blanks.
            expr: expr.trim_start().to_string(),
            message: message.into(),
            token: Some(expr.get(offset..).unwrap_or_default().to_string()),
        }
    }
}

impl fmt::Display for ArithError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.expr.is_empty() || self.token.is_some() {
            write!(f, "{}: ", self.expr)?;
        }
        f.write_str(&self.message)?;
        match &self.token {
            Some(token) => write!(f, " (error token is \"{token}\")"),
            None => Ok(()),
        }
    }
}

impl std::error::Error for ArithError {}

/// An array subscript, as [`ArithVars`] receives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArrayIndex<'a> {
    /// For an indexed array: the evaluated subscript (negative counts from the end).
    Int(i64),
    /// For an associative array (see [`ArithVars::is_associative`]): the subscript as
    /// written, the key.
    Key(&'a str),
}

/// Variable access for [`eval`], supplied by the interpreter.
pub trait ArithVars {
    /// The value of `name`, or of element `index` of array `name`; `None` when unset (it
    /// counts as 0).
    fn get(
        &mut self,
        name: &str,
        index: Option<ArrayIndex<'_>>,
    ) -> Result<Option<String>, ArithError>;
    /// Sets `name` (or element `index` of it) to `value`.
    fn set(
        &mut self,
        name: &str,
        index: Option<ArrayIndex<'_>>,
        value: i64,
    ) -> Result<(), ArithError>;
    /// Whether `name` is an associative array, whose subscripts are keys rather than
    /// arithmetic (`(( count[$word]++ ))`).
    fn is_associative(&mut self, name: &str) -> bool {
        let _ = name;
        false
    }
}

/// Parses an arithmetic expression (already expanded). Empty or blank text is 0.
pub fn parse_arith(src: &str) -> Result<ArithExpr, ArithError> {
    parse_at(src, 0)
}

/// Evaluates `expr`, reading and writing variables through `vars`.
pub fn eval(expr: &ArithExpr, vars: &mut dyn ArithVars) -> Result<i64, ArithError> {
    Evaluator { vars, depth: 0 }.eval(expr)
}

/// Parses and evaluates `src`.
pub fn eval_str(src: &str, vars: &mut dyn ArithVars) -> Result<i64, ArithError> {
    eval(&parse_arith(src)?, vars)
}

fn parse_at(src: &str, depth: usize) -> Result<ArithExpr, ArithError> {
    let tokens = tokenize(src)?;
    let mut parser = Parser {
        src,
        tokens,
        i: 0,
        depth,
    };
    let node = match parser.tokens.len() {
        0 => ArithNode::Num(0),
        _ => parser.parse_expr()?,
    };
    if let Some(tok) = parser.tokens.get(parser.i) {
        let message = match tok.t {
            T::Bad | T::Op("]") | T::Subscript(_) => "syntax error: invalid arithmetic operator",
            _ => "syntax error in expression",
        };
        return Err(ArithError::at(src, tok.start, message));
    }
    Ok(ArithExpr {
        source: src.to_string(),
        node,
    })
}

// ---------------------------------------------------------------------------------------
// Tokens

#[derive(Debug, Clone, PartialEq)]
enum T {
    Num(i64),
    Ident(String),
    Op(&'static str),
    /// `[...]` right after a name: the text inside, as written.
    Subscript(String),
    /// A character that starts no token (the rest is not tokenized).
    Bad,
}

#[derive(Debug, Clone)]
struct Token {
    t: T,
    start: usize,
}

/// Operators, longest first.
const OPERATORS: &[&str] = &[
    "<<=", ">>=", "**", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "+", "-", "*", "/", "%", "<", ">", "&", "|", "^", "!", "~",
    "?", ":", "=", ",", "(", ")", "[", "]",
];

fn tokenize(src: &str) -> Result<Vec<Token>, ArithError> {
    let mut tokens: Vec<Token> = Vec::new();
    let mut rest = src;
    while let Some(c) = rest.chars().next() {
        let start = src.len() - rest.len();
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let (t, len) = if c.is_ascii_digit() {
            let len = word_len(rest, |c| {
                c.is_ascii_alphanumeric() || matches!(c, '#' | '@' | '_')
            });
            // bash names the constant alone: `08: value too great for base`.
            let text = &rest[..len];
            let n = number(text).map_err(|m| ArithError::at(text, 0, m))?;
            (T::Num(n), len)
        } else if c == '_' || c.is_ascii_alphabetic() {
            let len = word_len(rest, |c| c == '_' || c.is_ascii_alphanumeric());
            tokens.push(Token {
                t: T::Ident(rest[..len].to_string()),
                start,
            });
            rest = &rest[len..];
            if let Some(subscript) = rest.strip_prefix('[') {
                let len = subscript_len(subscript)
                    .ok_or_else(|| ArithError::at(src, start, "bad array subscript"))?;
                let t = T::Subscript(subscript[..len].to_string());
                let start = src.len() - subscript.len();
                tokens.push(Token { t, start });
                rest = &subscript[len + 1..];
            }
            continue;
        } else if let Some(op) = OPERATORS.iter().find(|op| rest.starts_with(**op)) {
            let op = split_incdec(op, tokens.last(), &rest[op.len()..]);
            (T::Op(op), op.len())
        } else {
            // Reported where the parser meets it: as a missing operand or a bad operator.
            tokens.push(Token { t: T::Bad, start });
            break;
        };
        tokens.push(Token { t, start });
        rest = &rest[len..];
    }
    Ok(tokens)
}

/// `++`/`--` is an increment only after a variable or before one; otherwise it is two
/// signs (`1++2` is `1 + +2`), as bash reads it.
fn split_incdec(op: &'static str, last: Option<&Token>, after: &str) -> &'static str {
    if op != "++" && op != "--" {
        return op;
    }
    let after_variable = matches!(last.map(|t| &t.t), Some(T::Ident(_) | T::Subscript(_)));
    let before_variable = after
        .trim_start()
        .starts_with(|c: char| c == '_' || c.is_ascii_alphabetic());
    match after_variable || before_variable {
        true => op,
        false => &op[..1],
    }
}

/// The length of a subscript's text, up to its closing `]` (brackets nest).
fn subscript_len(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' if depth == 0 => return Some(i),
            ']' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The length in bytes of the prefix of `s` whose characters satisfy `f`.
fn word_len(s: &str, f: impl Fn(char) -> bool) -> usize {
    s.find(|c| !f(c)).unwrap_or(s.len())
}

/// A numeric constant: decimal, `0x` hex, `0` octal, or `base#digits` (base 2 to 64, digits
/// `0-9a-zA-Z@_`; letters are case-insensitive up to base 36). Overflow wraps.
fn number(text: &str) -> Result<i64, &'static str> {
    if let Some((base, digits)) = text.split_once('#') {
        let base: u32 = base
            .parse()
            .ok()
            .filter(|b| (2..=64).contains(b))
            .ok_or("invalid arithmetic base")?;
        if digits.is_empty() {
            return Err("invalid integer constant");
        }
        return digits_value(digits, base);
    }
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return digits_value(hex, 16);
    }
    match text.strip_prefix('0') {
        Some(octal) if !octal.is_empty() => digits_value(octal, 8),
        _ => digits_value(text, 10),
    }
}

fn digits_value(digits: &str, base: u32) -> Result<i64, &'static str> {
    let mut value: i64 = 0;
    for c in digits.chars() {
        let digit = match c {
            '0'..='9' => u32::from(c) - u32::from('0'),
            'a'..='z' => u32::from(c) - u32::from('a') + 10,
            'A'..='Z' if base <= 36 => u32::from(c) - u32::from('A') + 10,
            'A'..='Z' => u32::from(c) - u32::from('A') + 36,
            '@' => 62,
            '_' => 63,
            _ => return Err("invalid number"),
        };
        if digit >= base {
            return Err("value too great for base");
        }
        value = value
            .wrapping_mul(i64::from(base))
            .wrapping_add(i64::from(digit));
    }
    Ok(value)
}

// ---------------------------------------------------------------------------------------
// Parser: precedence climbing, lowest first: `,`  assignment  `?:`  `||`  `&&`  `|`  `^`
// `&`  `== !=`  `< <= > >=`  `<< >>`  `+ -`  `* / %`  `**` (right)  unary  postfix.

struct Parser<'s> {
    src: &'s str,
    tokens: Vec<Token>,
    i: usize,
    depth: usize,
}

/// Binary operators with their precedence (higher binds tighter).
fn binary_op(op: &str) -> Option<(BinOp, u8)> {
    use BinOp::*;
    Some(match op {
        "||" => (Or, 1),
        "&&" => (And, 2),
        "|" => (BitOr, 3),
        "^" => (BitXor, 4),
        "&" => (BitAnd, 5),
        "==" => (Eq, 6),
        "!=" => (Ne, 6),
        "<" => (Lt, 7),
        "<=" => (Le, 7),
        ">" => (Gt, 7),
        ">=" => (Ge, 7),
        "<<" => (Shl, 8),
        ">>" => (Shr, 8),
        "+" => (Add, 9),
        "-" => (Sub, 9),
        "*" => (Mul, 10),
        "/" => (Div, 10),
        "%" => (Rem, 10),
        "**" => (Pow, 11),
        _ => return None,
    })
}

fn assign_op(op: &str) -> Option<Option<BinOp>> {
    use BinOp::*;
    Some(match op {
        "=" => None,
        "+=" => Some(Add),
        "-=" => Some(Sub),
        "*=" => Some(Mul),
        "/=" => Some(Div),
        "%=" => Some(Rem),
        "<<=" => Some(Shl),
        ">>=" => Some(Shr),
        "&=" => Some(BitAnd),
        "|=" => Some(BitOr),
        "^=" => Some(BitXor),
        _ => return None,
    })
}

impl Parser<'_> {
    fn peek_op(&self) -> Option<&'static str> {
        match self.tokens.get(self.i) {
            Some(Token { t: T::Op(op), .. }) => Some(op),
            _ => None,
        }
    }

    fn eat_op(&mut self, op: &str) -> bool {
        let found = self.peek_op() == Some(op);
        if found {
            self.i += 1;
        }
        found
    }

    /// An error at the current token, or at the last one when the input has ended.
    fn error(&self, message: &str) -> ArithError {
        let tok = self.tokens.get(self.i).or_else(|| self.tokens.last());
        ArithError::at(self.src, tok.map_or(self.src.len(), |t| t.start), message)
    }

    /// The offset of the current token (or the end).
    fn offset(&self) -> usize {
        self.tokens.get(self.i).map_or(self.src.len(), |t| t.start)
    }

    /// Runs `f` one level deeper.
    fn nested<R>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<R, ArithError>,
    ) -> Result<R, ArithError> {
        if self.depth >= MAX_ARITH_DEPTH {
            return Err(self.error("expression recursion level exceeded"));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// `a, b, ...`
    fn parse_expr(&mut self) -> Result<ArithNode, ArithError> {
        self.nested(|p| {
            let first = p.parse_assign()?;
            if p.peek_op() != Some(",") {
                return Ok(first);
            }
            let mut all = vec![first];
            while p.eat_op(",") {
                all.push(p.parse_assign()?);
            }
            Ok(ArithNode::Comma(all))
        })
    }

    fn parse_assign(&mut self) -> Result<ArithNode, ArithError> {
        let lhs = self.parse_cond()?;
        let Some(op) = self.peek_op().and_then(assign_op) else {
            return Ok(lhs);
        };
        let ArithNode::Var(target) = lhs else {
            return Err(self.error("attempted assignment to non-variable"));
        };
        self.i += 1;
        let at = self.offset();
        let value = self.nested(Self::parse_assign)?;
        Ok(ArithNode::Assign {
            target,
            op,
            value: Box::new(value),
            at,
        })
    }

    fn parse_cond(&mut self) -> Result<ArithNode, ArithError> {
        let cond = self.parse_binary(1)?;
        if !self.eat_op("?") {
            return Ok(cond);
        }
        self.nested(|p| {
            if p.tokens.get(p.i).is_none() {
                return Err(p.error("expression expected"));
            }
            let then = p.parse_expr()?;
            if !p.eat_op(":") {
                return Err(p.error("`:' expected for conditional expression"));
            }
            if p.tokens.get(p.i).is_none() {
                return Err(p.error("expression expected"));
            }
            let otherwise = p.parse_cond()?;
            Ok(ArithNode::Cond(
                Box::new(cond),
                Box::new(then),
                Box::new(otherwise),
            ))
        })
    }

    fn parse_binary(&mut self, min_prec: u8) -> Result<ArithNode, ArithError> {
        let lhs = self.parse_unary()?;
        self.parse_binary_rest(lhs, min_prec)
    }

    /// Continues a binary expression whose left operand is `lhs`, with operators of
    /// precedence `min_prec` and above.
    fn parse_binary_rest(&mut self, lhs: ArithNode, min_prec: u8) -> Result<ArithNode, ArithError> {
        let mut lhs = lhs;
        while let Some((op, prec)) = self.peek_op().and_then(binary_op) {
            if prec < min_prec {
                break;
            }
            // Operators of this level join one flat list; tighter ones nest in the operands.
            let mut rest = Vec::new();
            while let Some(written) = self
                .peek_op()
                .filter(|w| binary_op(w).is_some_and(|(_, p)| p == prec))
            {
                rest.push(self.parse_tail(written, prec)?);
                if op == BinOp::Pow {
                    break;
                }
            }
            lhs = ArithNode::Binary {
                first: Box::new(lhs),
                rest,
            };
        }
        Ok(lhs)
    }

    /// The operator `written` (the next token) and its right operand.
    fn parse_tail(&mut self, written: &'static str, prec: u8) -> Result<BinTail, ArithError> {
        let op = binary_op(written).map_or(BinOp::Add, |(op, _)| op);
        self.i += 1;
        let start = self.offset();
        let operand = self.nested(|p| match written {
            "**" => p.parse_binary(prec),
            _ => p.parse_binary(prec + 1),
        })?;
        // bash points at the exponent's last token, at a divisor's first.
        let at = match op {
            BinOp::Pow => self.tokens.get(self.i - 1).map_or(start, |t| t.start),
            _ => start,
        };
        Ok(BinTail { op, operand, at })
    }

    fn parse_unary(&mut self) -> Result<ArithNode, ArithError> {
        let op = match self.peek_op() {
            Some("+") => UnaryOp::Plus,
            Some("-") => UnaryOp::Minus,
            Some("!") => UnaryOp::Not,
            Some("~") => UnaryOp::BitNot,
            Some(written @ ("++" | "--")) => return self.parse_prefix_incdec(written == "++"),
            _ => return self.parse_postfix(),
        };
        self.i += 1;
        let operand = self.nested(Self::parse_unary)?;
        Ok(ArithNode::Unary(op, Box::new(operand)))
    }

    /// `++x` / `--x` (the tokenizer only makes `++` a token next to a variable).
    fn parse_prefix_incdec(&mut self, increment: bool) -> Result<ArithNode, ArithError> {
        self.i += 1;
        let target = self.parse_lvalue()?;
        Ok(ArithNode::IncDec {
            target,
            increment,
            prefix: true,
        })
    }

    fn parse_postfix(&mut self) -> Result<ArithNode, ArithError> {
        let Some(Token { t: T::Ident(_), .. }) = self.tokens.get(self.i) else {
            return self.parse_primary();
        };
        let target = self.parse_lvalue()?;
        let increment = match self.peek_op() {
            Some("++") => true,
            Some("--") => false,
            _ => return Ok(ArithNode::Var(target)),
        };
        self.i += 1;
        Ok(ArithNode::IncDec {
            target,
            increment,
            prefix: false,
        })
    }

    /// `name` or `name[subscript]`, at the name.
    fn parse_lvalue(&mut self) -> Result<LValue, ArithError> {
        let name = match self.tokens.get(self.i) {
            Some(Token {
                t: T::Ident(name), ..
            }) => name.clone(),
            _ => return Err(self.error("syntax error: operand expected")),
        };
        self.i += 1;
        let index = match self.tokens.get(self.i) {
            Some(Token {
                t: T::Subscript(text),
                ..
            }) => Some(text.clone()),
            _ => None,
        };
        self.i += usize::from(index.is_some());
        Ok(LValue { name, index })
    }

    fn parse_primary(&mut self) -> Result<ArithNode, ArithError> {
        match self.tokens.get(self.i).map(|t| &t.t) {
            Some(T::Num(n)) => {
                let n = *n;
                self.i += 1;
                Ok(ArithNode::Num(n))
            }
            Some(T::Op("(")) => {
                self.i += 1;
                let inner = self.parse_expr()?;
                match self.eat_op(")") {
                    true => Ok(inner),
                    false => Err(self.error("missing `)'")),
                }
            }
            _ => Err(self.error("syntax error: operand expected")),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Evaluation

struct Evaluator<'v> {
    vars: &'v mut dyn ArithVars,
    /// Nesting of variables whose values are expressions.
    depth: usize,
}

impl Evaluator<'_> {
    fn eval(&mut self, expr: &ArithExpr) -> Result<i64, ArithError> {
        self.node(&expr.node, &expr.source)
    }

    fn node(&mut self, node: &ArithNode, src: &str) -> Result<i64, ArithError> {
        match node {
            ArithNode::Num(n) => Ok(*n),
            ArithNode::Var(target) => {
                let index = self.index(target)?;
                self.read(&target.name, index)
            }
            ArithNode::Unary(op, operand) => {
                let v = self.node(operand, src)?;
                Ok(match op {
                    UnaryOp::Plus => v,
                    UnaryOp::Minus => v.wrapping_neg(),
                    UnaryOp::Not => i64::from(v == 0),
                    UnaryOp::BitNot => !v,
                })
            }
            ArithNode::IncDec {
                target,
                increment,
                prefix,
            } => self.inc_dec(target, *increment, *prefix),
            ArithNode::Binary { first, rest } => self.binary(first, rest, src),
            ArithNode::Cond(cond, then, otherwise) => match self.node(cond, src)? != 0 {
                true => self.node(then, src),
                false => self.node(otherwise, src),
            },
            ArithNode::Assign {
                target,
                op,
                value,
                at,
            } => self.assign(target, *op, value, *at, src),
            ArithNode::Comma(all) => {
                let mut value = 0;
                for node in all {
                    value = self.node(node, src)?;
                }
                Ok(value)
            }
        }
    }

    fn binary(
        &mut self,
        first: &ArithNode,
        rest: &[BinTail],
        src: &str,
    ) -> Result<i64, ArithError> {
        let mut acc = self.node(first, src)?;
        for tail in rest {
            // Short-circuit: the right side is not evaluated (no side effects, no errors).
            acc = match tail.op {
                BinOp::And if acc == 0 => 0,
                BinOp::Or if acc != 0 => 1,
                op => {
                    let b = self.node(&tail.operand, src)?;
                    apply(op, acc, b).map_err(|message| ArithError::at(src, tail.at, message))?
                }
            };
        }
        Ok(acc)
    }

    fn assign(
        &mut self,
        target: &LValue,
        op: Option<BinOp>,
        value: &ArithNode,
        at: usize,
        src: &str,
    ) -> Result<i64, ArithError> {
        let index = self.index(target)?;
        let v = self.node(value, src)?;
        let new = match op {
            None => v,
            Some(op) => {
                let old = self.read(&target.name, index)?;
                apply(op, old, v).map_err(|message| ArithError::at(src, at, message))?
            }
        };
        self.vars.set(&target.name, index, new)?;
        Ok(new)
    }

    fn inc_dec(
        &mut self,
        target: &LValue,
        increment: bool,
        prefix: bool,
    ) -> Result<i64, ArithError> {
        let index = self.index(target)?;
        let old = self.read(&target.name, index)?;
        let new = match increment {
            true => old.wrapping_add(1),
            false => old.wrapping_sub(1),
        };
        self.vars.set(&target.name, index, new)?;
        Ok(if prefix { new } else { old })
    }

    /// The subscript of `target`: its key for an associative array, else its value.
    fn index<'t>(&mut self, target: &'t LValue) -> Result<Option<ArrayIndex<'t>>, ArithError> {
        let Some(text) = &target.index else {
            return Ok(None);
        };
        if self.vars.is_associative(&target.name) {
            return Ok(Some(ArrayIndex::Key(text)));
        }
        if text.trim().is_empty() {
            let message = format!("{}[{text}]: bad array subscript", target.name);
            return Err(ArithError::new(message));
        }
        Ok(Some(ArrayIndex::Int(self.nested_eval(text)?)))
    }

    /// A variable's value as a number: unset or blank is 0, a number is itself, anything
    /// else is evaluated as an expression.
    fn read(&mut self, name: &str, index: Option<ArrayIndex<'_>>) -> Result<i64, ArithError> {
        let Some(text) = self.vars.get(name, index)? else {
            return Ok(0);
        };
        let text = text.trim();
        if text.is_empty() {
            return Ok(0);
        }
        if let Some(n) = plain_decimal(text) {
            return Ok(n);
        }
        if self.depth >= MAX_ARITH_DEPTH {
            return Err(ArithError::at(
                name,
                0,
                "expression recursion level exceeded",
            ));
        }
        self.nested_eval(text)
    }

    /// Parses and evaluates `text` one level deeper (a variable's value, a subscript).
    fn nested_eval(&mut self, text: &str) -> Result<i64, ArithError> {
        if self.depth >= MAX_ARITH_DEPTH {
            return Err(ArithError::at(
                text,
                0,
                "expression recursion level exceeded",
            ));
        }
        let expr = parse_at(text, self.depth + 1)?;
        self.depth += 1;
        let value = self.eval(&expr);
        self.depth -= 1;
        value
    }
}

/// `text` as a decimal number without a leading zero, if it is one (the common case).
fn plain_decimal(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let plain = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    plain.then(|| text.parse().ok()).flatten()
}

fn apply(op: BinOp, a: i64, b: i64) -> Result<i64, &'static str> {
    use BinOp::*;
    Ok(match op {
        Add => a.wrapping_add(b),
        Sub => a.wrapping_sub(b),
        Mul => a.wrapping_mul(b),
        Div | Rem if b == 0 => return Err("division by 0"),
        Div => a.wrapping_div(b),
        Rem => a.wrapping_rem(b),
        Pow if b < 0 => return Err("exponent less than 0"),
        Pow => power(a, b),
        // Like x86 (and so bash there), shift counts are taken modulo 64.
        Shl => a.wrapping_shl(b as u32),
        Shr => a.wrapping_shr(b as u32),
        BitAnd => a & b,
        BitOr => a | b,
        BitXor => a ^ b,
        Lt => i64::from(a < b),
        Le => i64::from(a <= b),
        Gt => i64::from(a > b),
        Ge => i64::from(a >= b),
        Eq => i64::from(a == b),
        Ne => i64::from(a != b),
        And => i64::from(a != 0 && b != 0),
        Or => i64::from(a != 0 || b != 0),
    })
}

/// `base ** exp` by squaring, wrapping; `exp` is not negative.
fn power(mut base: i64, mut exp: i64) -> i64 {
    let mut result: i64 = 1;
    while exp > 0 {
        if exp & 1 == 1 {
            result = result.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Variables in a map; `a[i]` elements are stored as `a[i]`.
    #[derive(Default)]
    struct Vars(HashMap<String, String>);

    fn key(name: &str, index: Option<ArrayIndex<'_>>) -> String {
        match index {
            Some(ArrayIndex::Int(i)) => format!("{name}[{i}]"),
            Some(ArrayIndex::Key(k)) => format!("{name}[{k}]"),
            None => name.to_string(),
        }
    }

    impl ArithVars for Vars {
        fn get(
            &mut self,
            name: &str,
            index: Option<ArrayIndex<'_>>,
        ) -> Result<Option<String>, ArithError> {
            if name == "unbound" {
                return Err(ArithError::new("unbound: unbound variable"));
            }
            Ok(self.0.get(&key(name, index)).cloned())
        }
        fn set(
            &mut self,
            name: &str,
            index: Option<ArrayIndex<'_>>,
            value: i64,
        ) -> Result<(), ArithError> {
            self.0.insert(key(name, index), value.to_string());
            Ok(())
        }
        /// In these tests, `m` is the associative array.
        fn is_associative(&mut self, name: &str) -> bool {
            name == "m"
        }
    }

    /// Evaluates `src` with variables from `init` (`"x=1 y=a+b"`); the result and the
    /// variables afterwards, or the error as bash prints it.
    fn run(init: &str, src: &str) -> String {
        let mut vars = Vars::default();
        for pair in init.split(';').filter(|p| !p.is_empty()) {
            if let Some((k, v)) = pair.split_once('=') {
                vars.0.insert(k.to_string(), v.to_string());
            }
        }
        match eval_str(src, &mut vars) {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    macro_rules! arith {
        ($($name:ident: $init:expr, $src:expr => $out:expr;)*) => {$(
            #[test]
            fn $name() {
                assert_eq!(run($init, $src), $out);
            }
        )*};
    }

    arith! {
        arith_empty: "", "" => "0";
        arith_blank: "", "   " => "0";
        arith_number: "", "42" => "42";
        arith_hex: "", "0x1F + 0X10" => "47";
        arith_octal: "", "017" => "15";
        arith_base: "", "2#101 + 36#z + 64#_ + 64#@ + 62#Z" => "226";
        arith_base_upper_case_insensitive: "", "16#fF + 36#Z" => "290";
        arith_base_upper_above_36: "", "37#Z" => "error: 37#Z: value too great for base (error token is \"37#Z\")";
        arith_bad_octal: "", "08" => "error: 08: value too great for base (error token is \"08\")";
        arith_bad_base: "", "65#1" => "error: 65#1: invalid arithmetic base (error token is \"65#1\")";
        arith_digit_too_big: "", "2#102" => "error: 2#102: value too great for base (error token is \"2#102\")";
        arith_empty_hex: "", "0x" => "0";
        arith_empty_base_digits: "", "2#" => "error: 2#: invalid integer constant (error token is \"2#\")";
        arith_overflow_literal: "", "99999999999999999999" => "7766279631452241919";
        arith_precedence: "", "1 + 2 * 3 - 4 / 2" => "5";
        arith_parens: "", "(1 + 2) * 3" => "9";
        arith_left_assoc: "", "10 - 3 - 2" => "5";
        arith_pow_right_assoc: "", "2 ** 3 ** 2" => "512";
        arith_unary_minus_pow: "", "-2**2" => "4";
        arith_pow_wraps: "", "2 ** 63" => "-9223372036854775808";
        arith_pow_negative: "", "2**-1" => "error: 2**-1: exponent less than 0 (error token is \"1\")";
        arith_remainder: "", "-7 % 3" => "-1";
        arith_division_truncates: "", "-7 / 2" => "-3";
        arith_div_zero: "", "5/0" => "error: 5/0: division by 0 (error token is \"0\")";
        arith_div_zero_rest: "", "1/0 + 2" => "error: 1/0 + 2: division by 0 (error token is \"0 + 2\")";
        arith_div_zero_paren: "", "1/(0)" => "error: 1/(0): division by 0 (error token is \"(0)\")";
        arith_rem_zero: "", "4 % 0" => "error: 4 % 0: division by 0 (error token is \"0\")";
        arith_min_div_minus_one: "", "(-9223372036854775807-1) / -1" => "-9223372036854775808";
        arith_min_rem_minus_one: "", "(-9223372036854775807-1) % -1" => "0";
        arith_add_wraps: "", "9223372036854775807 + 1" => "-9223372036854775808";
        arith_shifts: "", "1 << 4 | 256 >> 4" => "16";
        arith_shift_mod_64: "", "1 << 64" => "1";
        arith_negative_shift_right: "", "-16 >> 2" => "-4";
        arith_bitwise: "", "6 & 3 ^ 5" => "7";
        arith_comparisons: "", "(1 < 2) + (2 <= 2) + (3 > 4) + (4 >= 4) + (5 == 5) + (5 != 5)" => "4";
        arith_comparison_chain: "", "1 < 2 == 1" => "1";
        arith_and_eq_precedence: "", "2 & 3 == 3" => "0";
        arith_logical: "", "(1 && 0) + (0 || 2) + !0 + !5" => "2";
        arith_bitnot: "", "~5" => "-6";
        arith_ternary: "", "5 > 3 ? 10 : 20" => "10";
        arith_ternary_nested: "", "0 ? 1 : 0 ? 2 : 3" => "3";
        arith_ternary_missing_colon: "", "1 ? 2" => "error: 1 ? 2: `:' expected for conditional expression (error token is \"2\")";
        arith_ternary_missing_else: "", "1 ? 2 : " => "error: 1 ? 2 : : expression expected (error token is \": \")";
        arith_comma: "", "1, 2" => "2";
        arith_var: "x=3", "x * 2" => "6";
        arith_unset_var: "", "nope + 1" => "1";
        arith_blank_var: "x=", "x + 1" => "1";
        arith_spaced_var: "x=  7  ", "x + 1" => "8";
        arith_var_two_numbers: "x=1 2", "x + 1" => "error: 1 2: syntax error in expression (error token is \"2\")";
        arith_var_expression: "x=1+2", "x * 2" => "6";
        arith_var_chain: "a=b;b=c;c=7", "a" => "7";
        arith_var_recursion: "x=x", "x" => "error: x: expression recursion level exceeded (error token is \"x\")";
        arith_var_error_inside: "x=1/0", "x" => "error: 1/0: division by 0 (error token is \"0\")";
        arith_var_bad_value: "x=08", "x" => "error: 08: value too great for base (error token is \"08\")";
        arith_negative_var: "x=-5", "-x" => "5";
        arith_unbound_error: "", "unbound + 1" => "error: unbound: unbound variable";
        arith_assign: "", "x = 5, x * 2" => "10";
        arith_assign_chain: "", "a = b = 4, a + b" => "8";
        arith_assign_ops: "x=10", "x += 5, x -= 1, x *= 2, x /= 7, x %= 3, x" => "1";
        arith_assign_shift_ops: "x=1", "x <<= 4, x >>= 1, x |= 1, x &= 7, x ^= 2, x" => "3";
        arith_assign_div_zero: "x=1", "x /= 0" => "error: x /= 0: division by 0 (error token is \"0\")";
        arith_assign_non_variable: "", "3=4" => "error: 3=4: attempted assignment to non-variable (error token is \"=4\")";
        arith_assign_ternary_non_variable: "", "1 ? 2 : 3 = 4" => "error: 1 ? 2 : 3 = 4: attempted assignment to non-variable (error token is \"= 4\")";
        arith_post_increment: "x=3", "x++ + 1" => "4";
        arith_post_increment_value: "x=3", "x++, x" => "4";
        arith_pre_increment: "x=3", "++x + 1" => "5";
        arith_post_decrement: "x=3", "x--, x" => "2";
        arith_pre_decrement: "x=3", "--x" => "2";
        arith_plus_plus_number: "", "++5" => "5";
        arith_minus_minus_number: "", "--5" => "5";
        arith_plus_plus_between_numbers: "", "1++2" => "3";
        arith_minus_minus_between_numbers: "", "1--1" => "2";
        arith_triple_plus: "x=3", "x+++1, x" => "4";
        arith_number_post_increment: "", "5++" => "error: 5++: syntax error: operand expected (error token is \"+\")";
        arith_pre_increment_in_binary_position: "x=1", "1++x" => "error: 1++x: syntax error in expression (error token is \"++x\")";
        arith_post_decrement_then_number: "x=3", "x--2" => "error: x--2: syntax error in expression (error token is \"2\")";
        arith_pre_decrement_unset: "", "--x, x" => "-1";
        arith_minus_minus_spaced: "", "- -2" => "2";
        arith_element_post_increment: "a[1]=4", "a[1]++ + 1, a[1]" => "5";
        arith_question_without_branch: "", "1 ?" => "error: 1 ?: expression expected (error token is \"?\")";
        arith_comma_without_operand: "", "1 , " => "error: 1 , : syntax error: operand expected (error token is \", \")";
        arith_bitnot_in_operator_position: "", "1 ~ 2" => "error: 1 ~ 2: syntax error in expression (error token is \"~ 2\")";
        arith_array_read: "a[1]=7", "a[1] + 2" => "9";
        arith_array_unset: "", "a[1] + 2" => "2";
        arith_array_assign: "", "a[1] = 3, a[1] * 2" => "6";
        arith_array_index_expr: "i=1;a[2]=5", "a[i+1]" => "5";
        arith_array_increment: "a[0]=1", "a[0]++, a[0]" => "2";
        arith_bad_subscript: "", "x[1" => "error: x[1: bad array subscript (error token is \"x[1\")";
        arith_empty_subscript: "", "x[]" => "error: x[]: bad array subscript";
        arith_nested_subscript: "a[2]=7;b[0]=2", "a[b[0]]" => "7";
        arith_subscript_error: "", "a[1/0]" => "error: 1/0: division by 0 (error token is \"0\")";
        arith_assoc_key: "m[a.b]=4", "m[a.b] * 2" => "8";
        arith_assoc_increment: "", "m[x y]++, m[x y]++, m[x y]" => "2";
        arith_assoc_key_not_evaluated: "k=5;m[k]=3", "m[k]" => "3";
        arith_short_circuit_and: "x=1", "0 && x++, x" => "1";
        arith_short_circuit_or: "x=1", "1 || x++, x" => "1";
        arith_short_circuit_division: "", "0 && 1/0" => "0";
        arith_ternary_untaken_branch: "x=1", "1 ? 2 : x++, x" => "1";
        arith_operand_expected: "", "1 +" => "error: 1 +: syntax error: operand expected (error token is \"+\")";
        arith_operand_expected_trailing_space: "", "1 +  " => "error: 1 +  : syntax error: operand expected (error token is \"+  \")";
        arith_syntax_error: "", "1 2 + 3" => "error: 1 2 + 3: syntax error in expression (error token is \"2 + 3\")";
        arith_invalid_operator: "", "1 @ 2" => "error: 1 @ 2: syntax error: invalid arithmetic operator (error token is \"@ 2\")";
        arith_single_quote: "", "'1' + 2" => "error: '1' + 2: syntax error: operand expected (error token is \"'1' + 2\")";
        arith_missing_paren: "", "(1" => "error: (1: missing `)' (error token is \"1\")";
        arith_stray_bracket: "", "1]" => "error: 1]: syntax error: invalid arithmetic operator (error token is \"]\")";
        arith_stray_paren: "", "1)" => "error: 1): syntax error in expression (error token is \")\")";
        arith_newlines: "", "1 +\n2" => "3";
    }

    #[test]
    fn arith_deep_parens_error() {
        let src = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
        let err = run("", &src);
        assert!(err.contains("expression recursion level exceeded"), "{err}");
    }

    #[test]
    fn arith_deep_unary_error() {
        let src = format!("{}1", "-".repeat(5000));
        assert!(run("", &src).contains("recursion level exceeded"));
    }

    #[test]
    fn arith_long_flat_expression() {
        let src = vec!["1"; 10000].join("+");
        assert_eq!(run("", &src), "10000");
    }

    #[test]
    fn arith_deep_variable_chain_error() {
        let init: Vec<String> = (0..1000).map(|i| format!("v{i}=v{}", i + 1)).collect();
        let out = run(&init.join(";"), "v0");
        assert!(out.contains("recursion level exceeded"), "{out}");
    }

    #[test]
    fn arith_parse_tree() {
        let expr = parse_arith("x = 1 + 2 * 3 - 4").map(|e| e.node);
        let tail = |op, operand, at| BinTail { op, operand, at };
        let product = ArithNode::Binary {
            first: Box::new(ArithNode::Num(2)),
            rest: vec![tail(BinOp::Mul, ArithNode::Num(3), 12)],
        };
        let sum = ArithNode::Binary {
            first: Box::new(ArithNode::Num(1)),
            rest: vec![
                tail(BinOp::Add, product, 8),
                tail(BinOp::Sub, ArithNode::Num(4), 16),
            ],
        };
        let target = LValue {
            name: "x".into(),
            index: None,
        };
        let expected = ArithNode::Assign {
            target,
            op: None,
            value: Box::new(sum),
            at: 4,
        };
        assert_eq!(expr, Ok(expected));
    }

    #[test]
    fn arith_error_without_expression_displays_message() {
        assert_eq!(
            ArithError::new("x: readonly variable").to_string(),
            "x: readonly variable"
        );
    }
}
