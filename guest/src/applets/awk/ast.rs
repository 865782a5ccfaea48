//! The syntax tree the parser builds and the compiler turns into bytecode.

pub use super::lexer::Arith;

/// Comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
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
}

/// Where `getline` reads.
#[derive(Clone, Debug)]
pub enum GetSrc {
    /// The main input (`getline`, `getline var`).
    Main,
    /// A file (`getline < file`).
    File(Box<Expr>),
    /// A command (`cmd | getline`): not supported in the sandbox.
    Cmd(Box<Expr>),
}

/// An expression.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A number constant.
    Num(f64),
    /// A string constant.
    Str(Vec<u8>),
    /// A regex constant; alone it means `$0 ~ /re/`.
    Regex(Vec<u8>),
    /// A variable.
    Var(String),
    /// `$expr`
    Field(Box<Expr>),
    /// `name[subscripts]`
    Index(String, Vec<Expr>),
    /// `lvalue = expr` or `lvalue op= expr`.
    Assign(Box<Expr>, Option<Arith>, Box<Expr>),
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a && b`
    And(Box<Expr>, Box<Expr>),
    /// `a || b`
    Or(Box<Expr>, Box<Expr>),
    /// `!a`
    Not(Box<Expr>),
    /// `-a`
    Neg(Box<Expr>),
    /// `+a`
    Plus(Box<Expr>),
    /// Arithmetic.
    Binary(Arith, Box<Expr>, Box<Expr>),
    /// Comparison.
    Cmp(CmpOp, Box<Expr>, Box<Expr>),
    /// `a ~ b` (negated for `!~`).
    Match(bool, Box<Expr>, Box<Expr>),
    /// Concatenation.
    Concat(Box<Expr>, Box<Expr>),
    /// `(subscripts) in name`
    In(Vec<Expr>, String),
    /// `++x`, `x--`...: pre or post, +1 or -1.
    Incr {
        /// Whether the result is the new value.
        pre: bool,
        /// +1 or -1.
        delta: f64,
        /// The lvalue.
        target: Box<Expr>,
    },
    /// A user function call.
    Call(String, Vec<Expr>),
    /// A built-in function call (`length` without parentheses has no arguments).
    Builtin(String, Vec<Expr>),
    /// `getline`, in its forms.
    Getline(GetSrc, Option<Box<Expr>>),
    /// A parenthesized expression (kept so `print (a) > f` and `(x) in` parse right).
    Group(Box<Expr>),
}

/// An output redirection.
#[derive(Clone, Debug)]
pub enum Redirect {
    /// `> file`
    Write(Expr),
    /// `>> file`
    Append(Expr),
    /// `| command` (not supported in the sandbox).
    Pipe(Expr),
}

/// A statement.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// An expression evaluated for its effect.
    Expr(Expr),
    /// `print args [redirect]`
    Print(Vec<Expr>, Option<Redirect>),
    /// `printf fmt, args [redirect]`
    Printf(Vec<Expr>, Option<Redirect>),
    /// `if (c) a else b`
    If(Expr, Box<Stmt>, Option<Box<Stmt>>),
    /// `while (c) body`
    While(Expr, Box<Stmt>),
    /// `do body while (c)`
    Do(Box<Stmt>, Expr),
    /// `for (init; cond; step) body`
    For(
        Option<Box<Stmt>>,
        Option<Expr>,
        Option<Box<Stmt>>,
        Box<Stmt>,
    ),
    /// `for (var in array) body`
    ForIn(String, String, Box<Stmt>),
    /// `{ ... }`
    Block(Vec<Stmt>),
    /// `next`
    Next,
    /// `nextfile`
    NextFile,
    /// `exit [code]`
    Exit(Option<Expr>),
    /// `return [value]`
    Return(Option<Expr>),
    /// `break`
    Break,
    /// `continue`
    Continue,
    /// `delete a[k]` or `delete a`
    Delete(String, Option<Vec<Expr>>),
}

/// A rule's pattern.
#[derive(Clone, Debug)]
pub enum Pattern {
    /// No pattern: every record.
    All,
    /// An expression pattern.
    Expr(Expr),
    /// `start, stop`
    Range(Expr, Expr),
}

/// A pattern-action rule; a missing action prints the record.
#[derive(Clone, Debug)]
pub struct Rule {
    /// The pattern.
    pub pattern: Pattern,
    /// The action.
    pub action: Option<Vec<Stmt>>,
    /// The line the rule starts on.
    pub line: usize,
}

/// A user-defined function.
#[derive(Clone, Debug)]
pub struct Function {
    /// Its name.
    pub name: String,
    /// Its parameters (extra ones are locals by convention).
    pub params: Vec<String>,
    /// Its body.
    pub body: Vec<Stmt>,
    /// The line it starts on.
    pub line: usize,
}

/// A whole program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// `BEGIN` actions, in order.
    pub begin: Vec<Vec<Stmt>>,
    /// `END` actions, in order.
    pub end: Vec<Vec<Stmt>>,
    /// `BEGINFILE` actions.
    pub begin_file: Vec<Vec<Stmt>>,
    /// `ENDFILE` actions.
    pub end_file: Vec<Vec<Stmt>>,
    /// The main rules.
    pub rules: Vec<Rule>,
    /// Function definitions.
    pub functions: Vec<Function>,
    /// Warnings from lexing: (line, message).
    pub warnings: Vec<(usize, String)>,
}
