//! The shell's syntax tree: what [`parse`](super::parse) produces and the interpreter walks.
//!
//! The shape, from the top:
//!
//! ```text
//! Program = List ─ Item* ─ AndOr ─ Pipeline+ ─ Command { kind, redirects, line }
//!                                                 └ CommandKind: Simple | Subshell | Group | If
//!                                                   | For | ArithFor | While | Until | Case
//!                                                   | Arith | Cond | Function
//! Word ─ WordPart*: Literal | SingleQuoted | DoubleQuoted | Param | CommandSubst | Arith
//!                   | ProcessSubst | Tilde | BraceList | BraceSeq | BadSubstitution
//! ```
//!
//! Words keep their structure: quoting is visible, so the expander knows which characters came
//! from quotes (never split, never globbed) and which are unquoted (`*`, `?`, `[` glob there).
//! Expansions that happen at run time in bash happen at run time here too: nothing in this tree
//! has been expanded, and arithmetic text is kept as a [`Word`] (it is expanded, then handed to
//! [`arith::parse_arith`](super::arith::parse_arith)), exactly as bash does it.
//!
//! Parse-time decisions that the expander relies on:
//! - **Brace expansion** is marked here ([`WordPart::BraceList`], [`WordPart::BraceSeq`]), only
//!   where bash performs it: the words of simple commands, `for ... in` word lists and array
//!   elements. Quoted or escaped braces are never marked. Everywhere else (assignment values,
//!   redirection targets, `case`, `[[ ]]`, here-strings) braces stay literal text. Brace
//!   expansion comes first at run time: a word with brace parts becomes several words, each
//!   then expanded normally. Sequences are not expanded here, so the interpreter bounds them.
//! - **Tilde prefixes** are marked ([`WordPart::Tilde`]) at the start of a word, and in
//!   assignment values (and `name=value` arguments) also after `=` and every unquoted `:`.
//! - **`|&`** is desugared: `a |& b` is `a 2>&1 | b` (the `2>&1` is appended to `a`'s
//!   redirections, so it applies after them, as in bash).
//! - **Extended globs** (`@(a|b)`, `!(*.txt)`, `+(...)`, `?(...)`, `*(...)`) are always
//!   recognised, as if `shopt -s extglob` were on, and kept in [`WordPart::Literal`] text
//!   for the pattern matcher (quoted pieces inside them stay quoted parts); the lines that
//!   hold them are noted for the interpreter, which refuses them while the option is off.
//! - **Not special here**: `time` and `coproc` are ordinary command words; `$(<file)` is a
//!   [`WordPart::CommandSubst`] of one simple command with no words and one `<` redirection
//!   (the interpreter may read the file directly); `!` alone negates an empty command.
//! - **Depth**: the parser refuses input nested more than 100 constructs deep, so no path
//!   through the tree is much deeper and a recursive walk is safe; long flat sequences
//!   (lists, pipelines, `&&`/`||` chains, word parts) are vectors.
//! - **Deviations from bash**: a here-document that reaches the end of input is an error
//!   (bash warns and uses what it read); `$(cat <<EOF ... EOF)` with the `)` on the delimiter
//!   line is accepted (bash accepts it with a warning); tilde prefixes inside brace
//!   alternatives (`{~,~/x}`) are not marked.

/// A whole script, or the body of a command substitution: a [`List`].
pub type Program = List;

/// Commands run one after the other: separated by `;`, `&` or newlines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct List {
    /// The commands, in order.
    pub items: Vec<Item>,
}

/// One entry of a [`List`].
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// What to run.
    pub and_or: AndOr,
    /// Ended by `&`: run in the background (the interpreter may refuse).
    pub background: bool,
}

/// Pipelines joined by `&&` and `||`, left-associative and of equal precedence: run `first`,
/// then each of `rest` in order, skipping a pipeline when `&&` follows a failure or `||` a
/// success (the status of the last pipeline that ran is kept).
#[derive(Debug, Clone, PartialEq)]
pub struct AndOr {
    /// The first pipeline.
    pub first: Pipeline,
    /// Each following pipeline with the operator before it.
    pub rest: Vec<(AndOrOp, Pipeline)>,
}

/// The operator between two pipelines of an [`AndOr`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AndOrOp {
    /// `&&`: run the next pipeline only if the last status was 0.
    And,
    /// `||`: run the next pipeline only if the last status was not 0.
    Or,
}

/// Commands joined by `|` (or `|&`), each one's stdout feeding the next one's stdin.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    /// Started with `!`: the status is inverted.
    pub negated: bool,
    /// Started with the `time` reserved word: the elapsed time goes to stderr afterwards.
    pub timed: bool,
    /// The stages, at least one.
    pub commands: Vec<Command>,
}

/// One command with the redirections that apply to it.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// What kind of command it is.
    pub kind: CommandKind,
    /// Redirections in source order; apply them left to right. For a simple command they may
    /// have been written anywhere among its words; for a compound command they follow it
    /// (`while ...; done < file`). Empty for a function definition: redirections written after
    /// a function's body belong to the body ([`FunctionDef::body`]) and apply at each call.
    pub redirects: Vec<Redirect>,
    /// The 1-based line the command starts on (for `$LINENO` and error messages).
    pub line: usize,
}

/// The kinds of command.
#[derive(Debug, Clone, PartialEq)]
pub enum CommandKind {
    /// `X=1 cmd arg ...`, or assignments alone, or only redirections.
    Simple(SimpleCommand),
    /// `( list )`: run in a copy of the shell state.
    Subshell(List),
    /// `{ list; }`: run in the current shell.
    Group(List),
    /// `if ...; then ...; elif ...; else ...; fi`.
    If(IfCommand),
    /// `for name in words; do ...; done` (or over `"$@"`).
    For(ForCommand),
    /// `coproc [NAME] command`: the command runs in the background with its stdin and
    /// stdout connected to the shell by pipes, whose descriptors go in `NAME[1]` and
    /// `NAME[0]`.
    Coproc(CoprocCommand),
    /// `for (( init; cond; step )); do ...; done`.
    ArithFor(ArithForCommand),
    /// `while list; do list; done`.
    While(LoopCommand),
    /// `until list; do list; done`.
    Until(LoopCommand),
    /// `case word in pattern) ... ;; esac`.
    Case(CaseCommand),
    /// `(( expression ))`: the text between the parentheses. Expand it like a double-quoted
    /// word, evaluate it with [`arith`](super::arith); status 0 if the value is non-zero.
    Arith(Word),
    /// `[[ expression ]]`.
    Cond(CondExpr),
    /// `name() body`, `function name body`: defines a function when run.
    Function(FunctionDef),
}

/// A simple command: assignments, then words; redirections are on the enclosing [`Command`].
///
/// With no words, the assignments set shell variables. With words, they are exported to that
/// command only (or, for special builtins and functions, as bash does).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SimpleCommand {
    /// The `name=value` prefixes, in order.
    pub assignments: Vec<Assignment>,
    /// The command name and its arguments, in order; may be empty.
    pub words: Vec<Arg>,
    /// The line its last word ends on: bash runs the code of `eval` as if it started there.
    pub end_line: usize,
}

/// One word of a simple command.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// An ordinary word: expanded, split, globbed.
    Word(Word),
    /// A `name=value` or `name=(...)` argument of a declaration command (`declare`,
    /// `typeset`, `local`, `export`, `readonly`, when that name is written literally as the
    /// command's first word). Its value is expanded like an assignment: no field splitting,
    /// no globbing. Other arguments of those commands (`-a`, `-r`, a bare `name`) stay words.
    Assign(Assignment),
}

/// `name=value`, `name+=value`, `name[index]=value`, `name=(elements)`, `name+=(elements)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    /// The variable name.
    pub name: String,
    /// `name[index]=`: the subscript, as written (arithmetic for indexed arrays, a string
    /// for associative ones; the interpreter decides by the variable's type).
    pub index: Option<Word>,
    /// Written `+=`: append (to the string, or to the array).
    pub append: bool,
    /// The value.
    pub value: AssignValue,
}

/// The right-hand side of an [`Assignment`].
#[derive(Debug, Clone, PartialEq)]
pub enum AssignValue {
    /// `name=word`: expanded without field splitting or globbing.
    Scalar(Word),
    /// `name=(a b [k]=v)`: each element is expanded like a command word (split and globbed).
    Array(Vec<ArrayElement>),
}

/// One element of an array assignment `(...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayElement {
    /// `[index]=value`: the subscript, as written.
    pub index: Option<Word>,
    /// Written `[index]+=value`: append to that element.
    pub append: bool,
    /// The value. Without an index it may expand to several elements; with one, it is expanded
    /// without splitting.
    pub value: Word,
}

/// `if`: the branches are tried in order; the first whose condition succeeds runs.
#[derive(Debug, Clone, PartialEq)]
pub struct IfCommand {
    /// The `if` branch, then every `elif` branch.
    pub branches: Vec<CondBranch>,
    /// The `else` body.
    pub else_body: Option<List>,
}

/// A condition and the body it guards.
#[derive(Debug, Clone, PartialEq)]
pub struct CondBranch {
    /// Run first; its status decides.
    pub condition: List,
    /// Run if the condition succeeded.
    pub body: List,
}

/// `for var in words; do body; done`, or `select var in words; do body; done`.
#[derive(Debug, Clone, PartialEq)]
pub struct ForCommand {
    /// `select`: each iteration shows a numbered menu of the words and reads a choice.
    pub select: bool,
    /// The loop variable.
    pub var: String,
    /// The words after `in`, expanded like command words; `None` when there was no `in`
    /// (loop over `"$@"`). `Some(vec![])` for `for x in; do`: no iterations.
    pub words: Option<Vec<Word>>,
    /// The loop body.
    pub body: List,
}

/// `coproc [NAME] command`.
#[derive(Debug, Clone, PartialEq)]
pub struct CoprocCommand {
    /// The array naming the descriptors (`COPROC` unless a name precedes a compound command).
    pub name: String,
    /// What runs in the background.
    pub body: Box<Command>,
}

/// `for (( init; cond; step )); do body; done`. Each part is arithmetic text (see
/// [`CommandKind::Arith`]); `None` when empty. An absent `cond` is true.
#[derive(Debug, Clone, PartialEq)]
pub struct ArithForCommand {
    /// Evaluated once, first.
    pub init: Option<Word>,
    /// Evaluated before each iteration; the loop stops when it is 0.
    pub cond: Option<Word>,
    /// Evaluated after each iteration.
    pub step: Option<Word>,
    /// The loop body.
    pub body: List,
}

/// The parts of `while` and `until` loops.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopCommand {
    /// Run before each iteration; its status decides whether to go on.
    pub condition: List,
    /// The loop body.
    pub body: List,
}

/// `case word in arms esac`.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseCommand {
    /// The subject: expanded without splitting or globbing.
    pub word: Word,
    /// The arms, tried in order.
    pub arms: Vec<CaseArm>,
}

/// `pat1 | pat2 ) body ;;`.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseArm {
    /// The patterns: expanded without splitting; unquoted glob characters match as patterns.
    pub patterns: Vec<Word>,
    /// The commands to run; may be empty.
    pub body: List,
    /// What happens after the body.
    pub terminator: CaseTerminator,
}

/// How a [`CaseArm`] ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseTerminator {
    /// `;;` (or nothing before `esac`): the `case` is done.
    Break,
    /// `;&`: run the next arm's body too, without testing its patterns.
    FallThrough,
    /// `;;&`: go on testing the following arms.
    Continue,
}

/// A function definition.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDef {
    /// The function's name (bash allows more than identifiers: `a-b`, `a.b`, `a:b`).
    pub name: String,
    /// The body: always a compound command, with the redirections written after it
    /// (applied each time the function runs).
    pub body: Box<Command>,
}

/// The expression of `[[ ... ]]`. Operands are not split or globbed.
#[derive(Debug, Clone, PartialEq)]
pub enum CondExpr {
    /// `a && b` (short-circuit).
    And(Box<CondExpr>, Box<CondExpr>),
    /// `a || b` (short-circuit).
    Or(Box<CondExpr>, Box<CondExpr>),
    /// `! a`.
    Not(Box<CondExpr>),
    /// `-f word` and the other unary tests.
    Unary(UnaryTest, Word),
    /// `left op right`. For [`BinaryTest::Match`] and [`BinaryTest::NoMatch`] the right side
    /// is a pattern (unquoted glob characters are special); for [`BinaryTest::Regex`] it is a
    /// POSIX extended regular expression, in which quoted parts match literally.
    Binary(Word, BinaryTest, Word),
    /// A lone word: true if it expands to a non-empty string.
    Word(Word),
}

/// The unary tests of `[[ ]]` (and of `test`, which the interpreter may share).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryTest {
    /// `-a` / `-e`: the file exists.
    Exists,
    /// `-b`: block device.
    BlockDevice,
    /// `-c`: character device.
    CharDevice,
    /// `-d`: directory.
    Directory,
    /// `-f`: regular file.
    RegularFile,
    /// `-g`: set-group-id.
    SetGid,
    /// `-h` / `-L`: symbolic link.
    Symlink,
    /// `-k`: sticky bit.
    Sticky,
    /// `-p`: named pipe.
    Fifo,
    /// `-r`: readable.
    Readable,
    /// `-s`: size greater than zero.
    NonEmptyFile,
    /// `-S`: socket.
    Socket,
    /// `-t`: the file descriptor is a terminal.
    Terminal,
    /// `-u`: set-user-id.
    SetUid,
    /// `-w`: writable.
    Writable,
    /// `-x`: executable (or searchable).
    Executable,
    /// `-O`: owned by the effective user.
    OwnedByUser,
    /// `-G`: owned by the effective group.
    OwnedByGroup,
    /// `-N`: modified since last read.
    ModifiedSinceRead,
    /// `-z`: the string is empty.
    EmptyString,
    /// `-n`: the string is not empty.
    NonEmptyString,
    /// `-o`: the shell option is on.
    OptionSet,
    /// `-v`: the variable is set.
    VarSet,
    /// `-R`: the variable is a name reference.
    NameRef,
}

impl UnaryTest {
    /// The test for an operator such as `-f`, if it is one.
    pub fn from_op(op: &str) -> Option<UnaryTest> {
        use UnaryTest::*;
        Some(match op {
            "-a" | "-e" => Exists,
            "-b" => BlockDevice,
            "-c" => CharDevice,
            "-d" => Directory,
            "-f" => RegularFile,
            "-g" => SetGid,
            "-h" | "-L" => Symlink,
            "-k" => Sticky,
            "-p" => Fifo,
            "-r" => Readable,
            "-s" => NonEmptyFile,
            "-S" => Socket,
            "-t" => Terminal,
            "-u" => SetUid,
            "-w" => Writable,
            "-x" => Executable,
            "-O" => OwnedByUser,
            "-G" => OwnedByGroup,
            "-N" => ModifiedSinceRead,
            "-z" => EmptyString,
            "-n" => NonEmptyString,
            "-o" => OptionSet,
            "-v" => VarSet,
            "-R" => NameRef,
            _ => return None,
        })
    }
}

/// The binary tests of `[[ ]]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryTest {
    /// `==` or `=`: the left string matches the right pattern.
    Match,
    /// `!=`: the left string does not match the right pattern.
    NoMatch,
    /// `=~`: the left string matches the right regular expression (sets `BASH_REMATCH`).
    Regex,
    /// `<`: sorts before.
    Less,
    /// `>`: sorts after.
    Greater,
    /// `-eq`: arithmetic equality (operands are arithmetic expressions).
    Eq,
    /// `-ne`.
    Ne,
    /// `-lt`.
    Lt,
    /// `-le`.
    Le,
    /// `-gt`.
    Gt,
    /// `-ge`.
    Ge,
    /// `-nt`: the left file is newer.
    NewerThan,
    /// `-ot`: the left file is older.
    OlderThan,
    /// `-ef`: both name the same file.
    SameFile,
}

impl BinaryTest {
    /// The test for an operator such as `-eq` or `==`, if it is one (`<` and `>` are
    /// operator tokens, not words, and are not recognised here).
    pub fn from_op(op: &str) -> Option<BinaryTest> {
        use BinaryTest::*;
        Some(match op {
            "==" | "=" => Match,
            "!=" => NoMatch,
            "=~" => Regex,
            "-eq" => Eq,
            "-ne" => Ne,
            "-lt" => Lt,
            "-le" => Le,
            "-gt" => Gt,
            "-ge" => Ge,
            "-nt" => NewerThan,
            "-ot" => OlderThan,
            "-ef" => SameFile,
            _ => return None,
        })
    }
}

/// A redirection: `fd` (when written) and what to do with it.
#[derive(Debug, Clone, PartialEq)]
pub struct Redirect {
    /// The descriptor written before the operator (`2>`); `None` means the operator's default
    /// (0 for the input forms, 1 for the output forms; both 1 and 2 for `&>`).
    pub fd: Option<u32>,
    /// `{name}>file`: the shell picks a free descriptor (10 or more) and stores its number in
    /// the variable `name`; `{name}>&-` closes the descriptor `$name`.
    pub var: Option<String>,
    /// The operator and its target.
    pub kind: RedirectKind,
}

/// The redirection operators. Targets are expanded without splitting or globbing (bash
/// reports "ambiguous redirect" if a target would expand to several words).
#[derive(Debug, Clone, PartialEq)]
pub enum RedirectKind {
    /// `< file`.
    Read(Word),
    /// `> file`.
    Write(Word),
    /// `>| file`: write even if `noclobber` is set.
    Clobber(Word),
    /// `>> file`.
    Append(Word),
    /// `<> file`: open for reading and writing.
    ReadWrite(Word),
    /// `<& word`: duplicate an input descriptor (`-` closes `fd`).
    DupRead(Word),
    /// `>& word`: duplicate an output descriptor (`-` closes `fd`). Bash treats `>& file`
    /// (no `fd`, target not a number or `-`) as `&> file`.
    DupWrite(Word),
    /// `&> file`: stdout and stderr to the file.
    WriteBoth(Word),
    /// `&>> file`: stdout and stderr appended to the file.
    AppendBoth(Word),
    /// `<<DELIM` and `<<-DELIM`.
    HereDoc(HereDoc),
    /// `<<< word`: the expanded word and a newline on stdin.
    HereString(Word),
}

/// A here-document.
#[derive(Debug, Clone, PartialEq)]
pub struct HereDoc {
    /// The delimiter, with quotes removed.
    pub delimiter: String,
    /// `<<-`: leading tabs were stripped from the body lines and the delimiter line.
    pub strip_tabs: bool,
    /// The delimiter was unquoted: the body has expansions.
    pub expand: bool,
    /// The body, every line ending in a newline. Either one [`WordPart::SingleQuoted`] (a
    /// quoted delimiter: literal text) or one [`WordPart::DoubleQuoted`] (expansions inside;
    /// backslashes already processed). Expand it like any quoted word, to one string.
    pub body: Word,
}

/// A word: a sequence of parts, concatenated after expansion.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Word {
    /// The parts, in order. Adjacent literal text of one kind is merged into one part.
    pub parts: Vec<WordPart>,
}

impl Word {
    /// A word of unquoted literal text.
    pub fn literal(text: &str) -> Word {
        Word {
            parts: vec![WordPart::Literal(text.to_string())],
        }
    }

    /// The text, if the word is one unquoted literal (how keywords, function names and
    /// declaration command names are recognised).
    pub fn as_literal(&self) -> Option<&str> {
        match self.parts.as_slice() {
            [WordPart::Literal(text)] => Some(text),
            _ => None,
        }
    }
}

/// One part of a [`Word`].
#[derive(Debug, Clone, PartialEq)]
pub enum WordPart {
    /// Text. At the top level of a word it is unquoted: `*`, `?` and `[...]` glob, and it is
    /// not split (only expansion results are). Inside [`WordPart::DoubleQuoted`] it is quoted.
    /// In a pattern (`case`, `[[ == ]]`, `${x#pattern}`...) glob characters in it are pattern
    /// characters even inside double quotes of the enclosing word.
    Literal(String),
    /// Quoted literal text: `'...'`, a decoded `$'...'`, or a backslash-escaped character.
    /// Never split, never globbed, never a pattern character. `''` gives an empty part,
    /// which keeps an otherwise empty word as one empty argument.
    SingleQuoted(String),
    /// `"..."`: the parts inside are quoted (no splitting, no globbing); `"$@"` still
    /// expands to one word per positional parameter. `""` is an empty list.
    DoubleQuoted(Vec<WordPart>),
    /// `$name`, `${...}`.
    Param(ParamExpansion),
    /// `$(...)` or `` `...` ``: the parsed commands; the output, minus trailing newlines.
    CommandSubst(Program),
    /// `` `...` ``: as [`WordPart::CommandSubst`], with its text as written (`declare -f`
    /// prints it back so).
    Backquote {
        /// The parsed commands.
        program: Program,
        /// The text between the backquotes.
        text: String,
    },
    /// `$(( ... ))`: the text between the parentheses (see [`CommandKind::Arith`]).
    Arith(Word),
    /// `<(...)` (`output: false`: read what the commands write) or `>(...)` (`output: true`:
    /// write to the commands' stdin). Expands to a file name.
    ProcessSubst {
        /// True for `>(...)`.
        output: bool,
        /// The commands.
        program: Program,
    },
    /// A tilde prefix: `~` (user `""`: `$HOME`), `~user`, `~+` (`$PWD`), `~-` (`$OLDPWD`).
    /// Leave `~user` as written if there is no such user.
    Tilde(String),
    /// `{a,b,c}`: one word per alternative (each itself possibly containing braces).
    BraceList(Vec<Word>),
    /// `{1..5}`, `{a..e}`, `{01..10..2}`.
    BraceSeq(BraceSeq),
    /// A `${...}` that is no valid expansion (`${x!}`, zsh's `${(k)x}`), as written. Bash
    /// parses it and fails only when it is expanded: print `{text}: bad substitution` and
    /// fail the command (status 1) without running it.
    BadSubstitution(String),
}

/// A brace sequence expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BraceSeq {
    /// `{start..end..step}` over integers. `width` is non-zero when either end was written
    /// with a leading zero (`{01..10}`): pad every number to that many digits.
    Int {
        /// First value.
        start: i64,
        /// Last value (inclusive; may be below `start`: count down).
        end: i64,
        /// The increment as written (1 if absent); bash uses its absolute value.
        step: i64,
        /// Zero-padding width, or 0.
        width: usize,
    },
    /// `{a..e..step}` over characters.
    Char {
        /// First character.
        start: char,
        /// Last character (inclusive).
        end: char,
        /// The increment as written (1 if absent).
        step: i64,
    },
}

/// A parameter expansion: `$x`, `${x}`, `${x:-word}`, `${#x}`, `${!x}`, `${a[@]}`...
#[derive(Debug, Clone, PartialEq)]
pub struct ParamExpansion {
    /// Which parameter.
    pub param: Param,
    /// `${!x...}` with an operator other than [`ParamOp::PrefixNames`] / [`ParamOp::Keys`]:
    /// the value of `param` names the variable to use (`${!ref}`, `${!ref:-d}`).
    pub indirect: bool,
    /// What to do with it.
    pub op: ParamOp,
    /// Written `${...}`, not `$name`: kept for `declare -f`, and for brace expansion, which
    /// comes first in bash and so lets `{$a,b}_c` give `$a_c` (the variable `a_c`).
    pub braced: bool,
}

/// The parameter of a [`ParamExpansion`].
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    /// A variable: `$name`, `${name}`.
    Var(String),
    /// `$0` … `$9`, `${10}`.
    Positional(u32),
    /// `$@ $* $# $? $$ $! $-`.
    Special(SpecialParam),
    /// `${name[subscript]}`.
    Element {
        /// The array's name.
        name: String,
        /// The subscript.
        index: Subscript,
    },
}

/// The special parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialParam {
    /// `$@`: the positional parameters, one word each when quoted.
    At,
    /// `$*`: the positional parameters, joined by the first character of `IFS` when quoted.
    Star,
    /// `$#`: their number.
    Count,
    /// `$?`: the last status.
    Status,
    /// `$$`: the shell's process id.
    Pid,
    /// `$!`: the last background job's id.
    LastBackground,
    /// `$-`: the option flags.
    Flags,
}

/// An array subscript.
#[derive(Debug, Clone, PartialEq)]
pub enum Subscript {
    /// `[@]`: every element (one word each when quoted).
    All,
    /// `[*]`: every element (joined when quoted).
    Star,
    /// `[expr]`: arithmetic for indexed arrays (negative counts from the end), a string for
    /// associative arrays.
    Index(Word),
}

/// The operation of a [`ParamExpansion`]. `colon` means "null counts as unset" (`:-` vs `-`).
/// Operand words are expanded without splitting; patterns match like `case` patterns.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamOp {
    /// `$x`, `${x}`: the value.
    Plain,
    /// `${#x}`: the length in characters; `${#a[@]}`: the number of elements.
    Length,
    /// `${x:-word}`, `${x-word}`: the value, or `word` if unset (or null).
    Default {
        /// `:` was written.
        colon: bool,
        /// The default.
        word: Word,
    },
    /// `${x:=word}`, `${x=word}`: like `Default`, and also assign it.
    Assign {
        /// `:` was written.
        colon: bool,
        /// The value to assign.
        word: Word,
    },
    /// `${x:+word}`, `${x+word}`: `word` if set (and non-null), else nothing.
    Alternative {
        /// `:` was written.
        colon: bool,
        /// The alternative.
        word: Word,
    },
    /// `${x:?word}`, `${x?word}`: the value, or fail with `word` as the message (`None`:
    /// "parameter null or not set" / "parameter not set").
    Error {
        /// `:` was written.
        colon: bool,
        /// The message.
        word: Option<Word>,
    },
    /// `${x#pat}` (shortest), `${x##pat}` (longest): remove a matching prefix.
    RemovePrefix {
        /// `##`.
        longest: bool,
        /// The pattern.
        pattern: Word,
    },
    /// `${x%pat}` (shortest), `${x%%pat}` (longest): remove a matching suffix.
    RemoveSuffix {
        /// `%%`.
        longest: bool,
        /// The pattern.
        pattern: Word,
    },
    /// `${x/pat/rep}`, `${x//pat/rep}`, `${x/#pat/rep}`, `${x/%pat/rep}`. Matches are longest.
    Replace {
        /// Which matches to replace.
        mode: ReplaceMode,
        /// The pattern.
        pattern: Word,
        /// The replacement (empty when omitted: `${x/pat}` deletes).
        replacement: Word,
    },
    /// `${x:offset}`, `${x:offset:length}`: both arithmetic text. A negative offset counts
    /// from the end; a negative length is an end offset from the end. On `$@`/arrays, slices
    /// elements.
    Substring {
        /// The offset.
        offset: Word,
        /// The length, if written.
        length: Option<Word>,
    },
    /// `${x^pat}` (first character), `${x^^pat}` (all): upper-case characters matching the
    /// pattern (`None`: any character).
    Upper {
        /// `^^`.
        all: bool,
        /// The pattern.
        pattern: Option<Word>,
    },
    /// `${x,pat}`, `${x,,pat}`: lower-case, like [`ParamOp::Upper`].
    Lower {
        /// `,,`.
        all: bool,
        /// The pattern.
        pattern: Option<Word>,
    },
    /// `${x~pat}`, `${x~~pat}`: swap the case, like [`ParamOp::Upper`].
    Toggle {
        /// `~~`.
        all: bool,
        /// The pattern.
        pattern: Option<Word>,
    },
    /// `${x@Q}` and the other transformations (`Q E P A K a u U L k`): the letter.
    Transform(char),
    /// `${!prefix*}` (`star`) or `${!prefix@}`: the names of the variables starting with the
    /// prefix ([`Param::Var`] holds the prefix).
    PrefixNames {
        /// `*` was written (joined when quoted) rather than `@`.
        star: bool,
    },
    /// `${!a[@]}`, `${!a[*]}`: the array's indices or keys ([`Param::Element`] holds the
    /// array, with [`Subscript::All`] or [`Subscript::Star`]).
    Keys,
}

/// Which matches `${x/pat/rep}` replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplaceMode {
    /// `/`: the first match.
    First,
    /// `//`: every match.
    All,
    /// `/#`: a match at the start.
    Prefix,
    /// `/%`: a match at the end.
    Suffix,
}
