//! The bytecode the compiler emits and the interpreter runs: a flat stack machine, so deep
//! recursion in awk programs never recurses in Rust, and the interpreter can suspend (for
//! output, input, or to let the shell check its deadline) between any two instructions.

use std::rc::Rc;

use super::ast::{Arith, CmpOp};
use super::ere::Ere;
use super::value::Bytes;

/// An array operand: a global slot or a local of the current function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrRef {
    /// Global slot.
    Global(u32),
    /// Local slot in the current frame.
    Local(u32),
}

/// An assignable place. `Field` takes its index from the stack, `Elem` its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LVal {
    /// A global scalar (special variables have hooks on assignment).
    Global(u32),
    /// A local scalar.
    Local(u32),
    /// `$n`
    Field,
    /// `a[key]`
    Elem(ArrRef),
    /// `a[$n]` for a constant n ≥ 1: the key is the field's text, looked up without a copy
    /// when the element is reached (the compiler checks that nothing before that changes
    /// the record).
    ElemField(ArrRef, u32),
}

/// A regex operand: a constant, or a dynamic string from the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Re {
    /// Index into the program's regexes.
    Const(u32),
    /// A string on the stack.
    Dynamic,
}

/// Where print output goes; the file or command name is on the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    /// Standard output.
    Stdout,
    /// `> file`
    Write,
    /// `>> file`
    Append,
    /// `| command`
    Pipe,
}

/// Where getline reads; the file or command name is on the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GetFrom {
    /// The main input.
    Main,
    /// `< file`
    File,
    /// `cmd |`
    Cmd,
}

/// Built-in functions compiled to a plain call (arguments on the stack).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bf {
    /// `length(s)`
    Length,
    /// `substr(s, m[, n])`
    Substr,
    /// `index(s, t)`
    Index,
    /// `sprintf(fmt, ...)`
    Sprintf,
    /// `tolower(s)`
    Tolower,
    /// `toupper(s)`
    Toupper,
    /// `int(x)`
    Int,
    /// `sqrt(x)`
    Sqrt,
    /// `exp(x)`
    Exp,
    /// `log(x)`
    Log,
    /// `sin(x)`
    Sin,
    /// `cos(x)`
    Cos,
    /// `atan2(y, x)`
    Atan2,
    /// `rand()`
    Rand,
    /// `srand([seed])`
    Srand,
    /// `system(cmd)`
    System,
    /// `close(name)`
    Close,
    /// `fflush([name])`
    Fflush,
    /// `systime()`
    Systime,
    /// `strftime([fmt [, ts [, utc]]])`
    Strftime,
    /// `mktime("YYYY MM DD HH MM SS")`
    Mktime,
    /// `and(a, b)`
    And,
    /// `or(a, b)`
    Or,
    /// `xor(a, b)`
    Xor,
    /// `lshift(a, n)`
    Lshift,
    /// `rshift(a, n)`
    Rshift,
    /// `compl(a)`
    Compl,
    /// `strtonum(s)`
    Strtonum,
}

/// One instruction.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    /// Push a number.
    Num(f64),
    /// Push string constant.
    Str(u32),
    /// Push the uninitialized value.
    Uninit,
    /// Drop the top value.
    Pop,
    /// Push a global.
    LoadGlobal(u32),
    /// Push a local.
    LoadLocal(u32),
    /// Push NF (splitting the record if needed).
    LoadNF,
    /// Pop n, push `$n`.
    LoadField,
    /// Push `$n` for a constant n.
    LoadFieldConst(u32),
    /// Push the number of `$n` for a constant n ≥ 1, where only its number is used (an
    /// arithmetic operand): no string is made.
    LoadFieldNum(u32),
    /// Pop a key, push the element (creating it, as awk does).
    LoadElem(ArrRef),
    /// Push an array (as a function argument).
    PushArr(ArrRef),
    /// Pop a key, push whether it is in the array.
    In(ArrRef),
    /// Pop a key, delete it.
    Delete(ArrRef),
    /// Delete every element.
    DeleteAll(ArrRef),
    /// Pop the key/index (if any, pushed last) and the value, assign, push the value.
    Assign(LVal),
    /// `lval op= value`: pop the key (if any, pushed last) and value, push the result.
    AugAssign(LVal, Arith),
    /// `lval = lval a b...`: pop n pieces (and key), append them in place, push the result.
    Append(LVal, u32),
    /// `++`/`--`: pre (push new) or post (push old numeric value).
    Incr(LVal, bool, f64),
    /// Binary arithmetic.
    Arith(Arith),
    /// Unary minus.
    Neg,
    /// Unary plus (to number).
    Plus,
    /// Logical not.
    Not,
    /// Concatenate the top two.
    Concat,
    /// Compare the top two.
    Cmp(CmpOp),
    /// Pop regex (string or constant) and value; push match (or not).
    Match(Re, bool),
    /// Push `$0 ~ /re/`.
    MatchRecord(u32),
    /// Pop n subscripts, push them joined by SUBSEP.
    JoinKey(u32),
    /// Replace the top with 1 or 0.
    ToBool,
    /// Jump.
    Jump(u32),
    /// Pop; jump if false.
    JumpIfFalse(u32),
    /// Pop; jump if true.
    JumpIfTrue(u32),
    /// A plain built-in with n arguments.
    Builtin(Bf, u32),
    /// `length` of `$0`.
    LengthRecord,
    /// `length(array)`
    LengthArr(ArrRef),
    /// `split(s, a [, sep [, seps]])`: the separator is a constant regex, a string, or FS.
    Split(ArrRef, Option<Re>, Option<ArrRef>),
    /// `match(s, re [, arr])`
    MatchFn(Re, Option<ArrRef>),
    /// `sub`/`gsub(re, repl [, target])`: global flag; stack: [re], repl, [key].
    Sub(bool, Re, LVal),
    /// `gensub(re, repl, how [, target])`: with or without the target argument.
    Gensub(Re, bool),
    /// `asort`/`asorti(src [, dest])`: indices flag.
    Asort(ArrRef, Option<ArrRef>, bool),
    /// `getline [var] [< file | cmd |]`
    Getline(GetFrom, Option<LVal>),
    /// Call user function with n arguments.
    Call(u32, u32),
    /// Return the top of the stack from a function.
    Return,
    /// `print` n arguments.
    Print(u32, Dest),
    /// `printf` n arguments (the format first).
    Printf(u32, Dest),
    /// `next`
    Next,
    /// `nextfile`
    NextFile,
    /// `exit` (with a code on the stack when true).
    Exit(bool),
    /// Start a for-in loop over the array's keys.
    ForInStart(ArrRef),
    /// Assign the next key, or jump when done.
    ForInNext(LVal, u32),
    /// End a for-in loop.
    ForInEnd,
    /// End of a chunk (a rule's pattern leaves its value on the stack).
    Halt,
}

/// A compiled user function.
#[derive(Clone, Debug)]
pub struct FuncInfo {
    /// Where its code starts.
    pub entry: u32,
    /// Number of parameters (locals).
    pub nparams: u32,
    /// Which parameters are arrays (filled with a fresh array when not passed).
    pub array_params: Vec<bool>,
    /// Parameter names (for error messages).
    pub params: Vec<String>,
}

/// How a rule matches.
#[derive(Clone, Copy, Debug)]
pub enum CPattern {
    /// Always.
    All,
    /// The chunk at this address leaves a value.
    Expr(u32),
    /// A range between two chunks.
    Range(u32, u32),
}

/// A compiled rule.
#[derive(Clone, Copy, Debug)]
pub struct CRule {
    /// Its pattern.
    pub pattern: CPattern,
    /// Its action chunk.
    pub action: u32,
}

/// A whole compiled program.
#[derive(Default)]
pub struct Compiled {
    /// All instructions.
    pub code: Vec<Op>,
    /// The source line of each instruction (for error messages).
    pub lines: Vec<u32>,
    /// String constants.
    pub strings: Vec<Bytes>,
    /// Regex constants.
    pub regexes: Vec<Rc<Ere>>,
    /// Their source text (recompiled when IGNORECASE is set).
    pub regex_src: Vec<Bytes>,
    /// Global names; `true` when the global is an array.
    pub globals: Vec<(String, bool)>,
    /// BEGIN chunks.
    pub begin: Vec<u32>,
    /// END chunks.
    pub end: Vec<u32>,
    /// BEGINFILE chunks.
    pub begin_file: Vec<u32>,
    /// ENDFILE chunks.
    pub end_file: Vec<u32>,
    /// Main rules.
    pub rules: Vec<CRule>,
    /// User functions.
    pub funcs: Vec<FuncInfo>,
    /// Warnings to print before running (gawk's, e.g. extra call arguments).
    pub warnings: Vec<String>,
}

/// Slots of the special variables: assigning one of the first [`SPECIAL_SCALARS`] runs a
/// hook (re-split the record, rebuild it, change the separators...).
pub mod slot {
    /// `NF`
    pub const NF: u32 = 0;
    /// `NR`
    pub const NR: u32 = 1;
    /// `FNR`
    pub const FNR: u32 = 2;
    /// `FS`
    pub const FS: u32 = 3;
    /// `OFS`
    pub const OFS: u32 = 4;
    /// `ORS`
    pub const ORS: u32 = 5;
    /// `RS`
    pub const RS: u32 = 6;
    /// `FILENAME`
    pub const FILENAME: u32 = 7;
    /// `SUBSEP`
    pub const SUBSEP: u32 = 8;
    /// `RSTART`
    pub const RSTART: u32 = 9;
    /// `RLENGTH`
    pub const RLENGTH: u32 = 10;
    /// `CONVFMT`
    pub const CONVFMT: u32 = 11;
    /// `OFMT`
    pub const OFMT: u32 = 12;
    /// `RT`
    pub const RT: u32 = 13;
    /// `IGNORECASE`
    pub const IGNORECASE: u32 = 14;
    /// `ARGC`
    pub const ARGC: u32 = 15;
    /// `FPAT` (gawk: fields are what matches it)
    pub const FPAT: u32 = 16;
    /// How many slots have assignment hooks.
    pub const SPECIAL_SCALARS: u32 = 17;
    /// `ERRNO` (gawk: why the last `getline < file` failed)
    pub const ERRNO: u32 = 17;
    /// `ENVIRON`
    pub const ENVIRON: u32 = 18;
    /// `ARGV`
    pub const ARGV: u32 = 19;
    /// `PROCINFO`
    pub const PROCINFO: u32 = 20;
    /// The names, by slot.
    pub const NAMES: [&str; 21] = [
        "NF",
        "NR",
        "FNR",
        "FS",
        "OFS",
        "ORS",
        "RS",
        "FILENAME",
        "SUBSEP",
        "RSTART",
        "RLENGTH",
        "CONVFMT",
        "OFMT",
        "RT",
        "IGNORECASE",
        "ARGC",
        "FPAT",
        "ERRNO",
        "ENVIRON",
        "ARGV",
        "PROCINFO",
    ];
}
