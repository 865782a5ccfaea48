//! The parsed sed program: a flat list of commands, where blocks and branches are indices.

use std::rc::Rc;

use crate::applets::common::regex::Posix as SedRegex;

/// A regular expression in an address or `s` command: None is the empty regex `//`, which
/// means "the last regular expression used" at run time.
pub type RegexRef = Option<Rc<SedRegex>>;

/// The first (or only) address.
#[derive(Clone)]
pub enum Addr {
    /// Line N (counted across files unless `-s` / `-i`).
    Line(u64),
    /// `$`: the last line.
    Last,
    /// `/re/`.
    Regex(RegexRef),
    /// `first~step` (GNU).
    Step(u64, u64),
    /// `0` in `0,/re/`: the range may end on line 1.
    Zero,
}

/// The second address of a range.
#[derive(Clone)]
pub enum Addr2 {
    /// Up to line N (just one line when N is not after the start).
    Line(u64),
    /// Up to the last line.
    Last,
    /// Up to the next line matching (looked for after the first line).
    Regex(RegexRef),
    /// `addr1,+N`: N more lines.
    Plus(u64),
    /// `addr1,~N`: up to the next line that is a multiple of N.
    Multiple(u64),
}

/// A command's address part.
#[derive(Clone, Default)]
pub struct Address {
    /// The first address, if any.
    pub first: Option<Addr>,
    /// The second address, for a range.
    pub second: Option<Addr2>,
    /// `!`: the command applies where the address does not.
    pub negate: bool,
}

/// A `s` command.
pub struct Subst {
    /// The pattern.
    pub regex: RegexRef,
    /// The replacement.
    pub replacement: Vec<Piece>,
    /// `g`.
    pub global: bool,
    /// `N`: replace the Nth match (and, with `g`, every later one).
    pub occurrence: usize,
    /// `p` (GNU allows it once).
    pub print: bool,
    /// `w FILE`: where to write the pattern space after a substitution.
    pub write: Option<usize>,
}

/// Case conversion in a replacement (GNU `\U \L \E \u \l`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Case {
    /// `\U`: upper case until `\E` or `\L`.
    Upper,
    /// `\L`: lower case until `\E` or `\U`.
    Lower,
    /// `\E`: stop converting.
    End,
    /// `\u`: the next character in upper case.
    UpperNext,
    /// `\l`: the next character in lower case.
    LowerNext,
}

/// One piece of a replacement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Literal text.
    Text(String),
    /// `&` (0) or `\1`..`\9`.
    Group(usize),
    /// A case conversion.
    Case(Case),
}

/// What a command does.
pub enum Cmd {
    /// `{`: when the address does not match, jump past the matching `}` (index given).
    Block(usize),
    /// `}`.
    EndBlock,
    /// `s`.
    Subst(Box<Subst>),
    /// `y`: character pairs.
    Translit(Vec<(char, char)>),
    /// `p`.
    Print,
    /// `P`: up to the first newline.
    PrintFirst,
    /// `d`.
    Delete,
    /// `D`.
    DeleteFirst,
    /// `n`.
    Next,
    /// `N`.
    NextAppend,
    /// `a TEXT`.
    Append(String),
    /// `i TEXT`.
    Insert(String),
    /// `c TEXT`.
    Change(String),
    /// `q [CODE]`.
    Quit(i32),
    /// `Q [CODE]`.
    QuitSilent(i32),
    /// `=`.
    LineNumber,
    /// `l [WIDTH]`.
    List(Option<usize>),
    /// `h`.
    Hold,
    /// `H`.
    HoldAppend,
    /// `g`.
    Get,
    /// `G`.
    GetAppend,
    /// `x`.
    Exchange,
    /// `b`: to a command index (None: the end of the script).
    Branch(Option<usize>),
    /// `t`.
    BranchIfSub(Option<usize>),
    /// `T`.
    BranchUnlessSub(Option<usize>),
    /// `:label` (does nothing when run).
    Label,
    /// `r FILE`.
    ReadFile(String),
    /// `R FILE`: one more line of FILE per use.
    ReadLine(String),
    /// `w FILE` (index into the output files).
    Write(usize),
    /// `W FILE`: the first line of the pattern space.
    WriteFirst(usize),
    /// `F`.
    FileName,
    /// `z`.
    Zap,
}

/// A command and its address.
pub struct Command {
    /// Where it applies.
    pub address: Address,
    /// What it does.
    pub cmd: Cmd,
}

/// A whole program.
pub struct Script {
    /// The commands in order.
    pub commands: Vec<Command>,
    /// Files named by `w`, `W` and `s///w`, opened (truncated) before the first line.
    pub wfiles: Vec<String>,
    /// `#n` on the first line: like `-n`.
    pub quiet: bool,
}
