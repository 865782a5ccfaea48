//! grep's command line: GNU options, patterns from `-e` / `-f` / the first operand.

use crate::applets::common::{getopt, Opt, OptSpec};

/// The regular-expression syntax of the patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `-G`: POSIX basic (the default).
    Basic,
    /// `-E`: POSIX extended.
    Extended,
    /// `-F`: fixed strings.
    Fixed,
    /// `-P`: Perl-like (the `regex` crate's own syntax).
    Perl,
}

/// What to do with binary files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryFiles {
    /// Say `binary file matches` instead of printing lines.
    Binary,
    /// Search them as text (`-a`).
    Text,
    /// Skip them (`-I`).
    WithoutMatch,
}

/// `-l` / `-L`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListFiles {
    /// `-l`: files with a selected line.
    Matching,
    /// `-L`: files without one.
    NonMatching,
}

/// Everything the command line says.
#[derive(Clone, Debug)]
pub struct Options {
    /// `-G`, `-E`, `-F` or `-P`.
    pub syntax: Syntax,
    /// The syntax was chosen (by an option or by `egrep` / `fgrep`).
    pub syntax_set: bool,
    /// `-e` patterns and `-f` files, in order.
    pub patterns: Vec<PatternSource>,
    /// `-i`.
    pub ignore_case: bool,
    /// `-v`.
    pub invert: bool,
    /// `-w`.
    pub word: bool,
    /// `-x`.
    pub line: bool,
    /// `-c`.
    pub count: bool,
    /// `-l` or `-L`.
    pub list: Option<ListFiles>,
    /// `-o`.
    pub only: bool,
    /// `-q`.
    pub quiet: bool,
    /// `-s`.
    pub no_messages: bool,
    /// `-n`.
    pub line_number: bool,
    /// `-b`.
    pub byte_offset: bool,
    /// `-H` (Some(true)) / `-h` (Some(false)); None: decided by the operands.
    pub with_filename: Option<bool>,
    /// `-r` (or `-R`, `-d recurse`).
    pub recursive: bool,
    /// `-R`: follow symlinks met while recursing.
    pub dereference: bool,
    /// `--binary-files`, `-a`, `-I`.
    pub binary: BinaryFiles,
    /// `-z`.
    pub null_data: bool,
    /// `-Z`.
    pub null_after_name: bool,
    /// `-m` (negative: no limit).
    pub max_count: Option<u64>,
    /// `-B` (or `-C`).
    pub before: Option<usize>,
    /// `-A` (or `-C`).
    pub after: Option<usize>,
    /// The group separator (None: `--no-group-separator`).
    pub separator: Option<String>,
    /// `--include` globs.
    pub include: Vec<String>,
    /// `--exclude` globs.
    pub exclude: Vec<String>,
    /// `--exclude-dir` globs.
    pub exclude_dir: Vec<String>,
    /// `--label`: the name of standard input.
    pub label: String,
    /// `-d skip`.
    pub skip_dirs: bool,
    /// `--help`.
    pub help: bool,
    /// `-V`.
    pub version: bool,
    /// The file operands.
    pub files: Vec<String>,
}

/// Where a pattern list comes from.
#[derive(Clone, Debug)]
pub enum PatternSource {
    /// `-e PATTERNS` (or the first operand): newline-separated patterns.
    Text(String),
    /// `-f FILE`.
    File(String),
}

/// A command-line problem, and whether to add grep's usage lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgError {
    /// What to print after `grep: ` (empty: only the usage lines).
    pub message: String,
    /// Whether the usage lines follow.
    pub usage: bool,
}

fn usage(message: impl Into<String>) -> ArgError {
    ArgError {
        message: message.into(),
        usage: true,
    }
}

fn plain(message: impl Into<String>) -> ArgError {
    ArgError {
        message: message.into(),
        usage: false,
    }
}

const SPEC: OptSpec = OptSpec {
    short: "EFGPiyvwxclLoqsnhHrRaIzZbUV",
    short_val: "efmABCd",
    long: &[
        "extended-regexp",
        "fixed-strings",
        "basic-regexp",
        "perl-regexp",
        "ignore-case",
        "no-ignore-case",
        "invert-match",
        "word-regexp",
        "line-regexp",
        "count",
        "files-with-matches",
        "files-without-match",
        "only-matching",
        "quiet",
        "silent",
        "no-messages",
        "line-number",
        "no-line-number",
        "byte-offset",
        "no-filename",
        "with-filename",
        "recursive",
        "dereference-recursive",
        "text",
        "null-data",
        "null",
        "line-buffered",
        "binary",
        "no-group-separator",
        "help",
        "version",
        "initial-tab",
    ],
    long_val: &[
        "regexp",
        "file",
        "max-count",
        "after-context",
        "before-context",
        "context",
        "include",
        "exclude",
        "exclude-dir",
        "label",
        "binary-files",
        "group-separator",
        "color",
        "colour",
        "directories",
        "devices",
    ],
    digits: Some('C'),
    stop_at_operand: false,
};

impl Options {
    fn new(syntax: Syntax) -> Self {
        Options {
            syntax,
            syntax_set: syntax != Syntax::Basic,
            patterns: Vec::new(),
            ignore_case: false,
            invert: false,
            word: false,
            line: false,
            count: false,
            list: None,
            only: false,
            quiet: false,
            no_messages: false,
            line_number: false,
            byte_offset: false,
            with_filename: None,
            recursive: false,
            dereference: false,
            binary: BinaryFiles::Binary,
            null_data: false,
            null_after_name: false,
            max_count: None,
            before: None,
            after: None,
            separator: Some("--".into()),
            include: Vec::new(),
            exclude: Vec::new(),
            exclude_dir: Vec::new(),
            label: "(standard input)".into(),
            skip_dirs: false,
            help: false,
            version: false,
            files: Vec::new(),
        }
    }
}

/// `--color` may come without a value: give it one so the option parser accepts it.
fn normalize(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut rest = false;
    for arg in args {
        if !rest && (arg == "--color" || arg == "--colour") {
            out.push(format!("{arg}=auto"));
        } else {
            rest |= arg == "--";
            out.push(arg.clone());
        }
    }
    out
}

/// Parses grep's arguments for the applet called `name` (`egrep` means `-E`).
pub fn parse(name: &str, args: &[String]) -> Result<Options, ArgError> {
    let syntax = match name {
        "egrep" => Syntax::Extended,
        "fgrep" => Syntax::Fixed,
        _ => Syntax::Basic,
    };
    let mut o = Options::new(syntax);
    let (opts, mut operands) = getopt(&normalize(args), &SPEC).map_err(usage)?;
    let mut context: Option<usize> = None;
    for opt in &opts {
        apply(&mut o, opt, &mut context)?;
        if o.help || o.version {
            return Ok(o);
        }
    }
    o.before = o.before.or(context);
    o.after = o.after.or(context);
    if o.patterns.is_empty() {
        if operands.is_empty() {
            return Err(usage(""));
        }
        o.patterns.push(PatternSource::Text(operands.remove(0)));
    }
    o.files = operands;
    Ok(o)
}

fn context_len(value: &str) -> Result<usize, ArgError> {
    value
        .parse::<usize>()
        .map_err(|_| plain(format!("{value}: invalid context length argument")))
}

fn apply(o: &mut Options, opt: &Opt, context: &mut Option<usize>) -> Result<(), ArgError> {
    let v = opt.value();
    match opt {
        Opt::Short(c, _) => apply_short(o, *c, v, context),
        Opt::Long(name, _) => apply_long(o, name, v, context),
    }
}

fn apply_short(
    o: &mut Options,
    c: char,
    v: &str,
    context: &mut Option<usize>,
) -> Result<(), ArgError> {
    match c {
        'E' => set_syntax(o, Syntax::Extended)?,
        'F' => set_syntax(o, Syntax::Fixed)?,
        'G' => set_syntax(o, Syntax::Basic)?,
        'P' => set_syntax(o, Syntax::Perl)?,
        'i' | 'y' => o.ignore_case = true,
        'v' => o.invert = true,
        'w' => o.word = true,
        'x' => o.line = true,
        'c' => o.count = true,
        'l' => o.list = Some(ListFiles::Matching),
        'L' => o.list = Some(ListFiles::NonMatching),
        'o' => o.only = true,
        'q' => o.quiet = true,
        's' => o.no_messages = true,
        'n' => o.line_number = true,
        'b' => o.byte_offset = true,
        'h' => o.with_filename = Some(false),
        'H' => o.with_filename = Some(true),
        'r' => o.recursive = true,
        'R' => (o.recursive, o.dereference) = (true, true),
        'a' => o.binary = BinaryFiles::Text,
        'I' => o.binary = BinaryFiles::WithoutMatch,
        'z' => o.null_data = true,
        'Z' => o.null_after_name = true,
        'V' => o.version = true,
        'e' => o.patterns.push(PatternSource::Text(v.to_string())),
        'f' => o.patterns.push(PatternSource::File(v.to_string())),
        'm' => o.max_count = Some(max_count(v)?),
        'A' => o.after = Some(context_len(v)?),
        'B' => o.before = Some(context_len(v)?),
        'C' => *context = Some(context_len(v)?),
        'd' => directories(o, v)?,
        _ => {}
    }
    Ok(())
}

fn apply_long(
    o: &mut Options,
    name: &str,
    v: &str,
    context: &mut Option<usize>,
) -> Result<(), ArgError> {
    let short = match name {
        "extended-regexp" => 'E',
        "fixed-strings" => 'F',
        "basic-regexp" => 'G',
        "perl-regexp" => 'P',
        "ignore-case" => 'i',
        "invert-match" => 'v',
        "word-regexp" => 'w',
        "line-regexp" => 'x',
        "count" => 'c',
        "files-with-matches" => 'l',
        "files-without-match" => 'L',
        "only-matching" => 'o',
        "quiet" | "silent" => 'q',
        "no-messages" => 's',
        "line-number" => 'n',
        "byte-offset" => 'b',
        "no-filename" => 'h',
        "with-filename" => 'H',
        "recursive" => 'r',
        "dereference-recursive" => 'R',
        "text" => 'a',
        "null-data" => 'z',
        "null" => 'Z',
        "version" => 'V',
        "regexp" => 'e',
        "file" => 'f',
        "max-count" => 'm',
        "after-context" => 'A',
        "before-context" => 'B',
        "context" => 'C',
        "directories" => 'd',
        _ => return apply_other_long(o, name, v),
    };
    apply_short(o, short, v, context)
}

fn apply_other_long(o: &mut Options, name: &str, v: &str) -> Result<(), ArgError> {
    match name {
        "no-ignore-case" => o.ignore_case = false,
        "no-line-number" => o.line_number = false,
        "no-group-separator" => o.separator = None,
        "group-separator" => o.separator = Some(v.to_string()),
        "include" => o.include.push(v.to_string()),
        "exclude" => o.exclude.push(v.to_string()),
        "exclude-dir" => o.exclude_dir.push(v.to_string()),
        "label" => o.label = v.to_string(),
        "help" => o.help = true,
        "binary-files" => {
            o.binary = match v {
                "binary" => BinaryFiles::Binary,
                "text" => BinaryFiles::Text,
                "without-match" => BinaryFiles::WithoutMatch,
                _ => return Err(plain("unknown binary-files type")),
            }
        }
        "color" | "colour" if !is_color_when(v) => {
            return Err(usage(format!(
                "invalid argument '{v}' for '--color'\nValid arguments are:\n  - 'always', 'yes', 'force'\n  - 'never', 'no', 'none'\n  - 'auto', 'tty', 'if-tty'"
            )));
        }
        _ => {}
    }
    Ok(())
}

/// GNU refuses two different matchers (`-E -F`, `egrep -G`).
fn set_syntax(o: &mut Options, syntax: Syntax) -> Result<(), ArgError> {
    if o.syntax_set && o.syntax != syntax {
        return Err(plain("conflicting matchers specified"));
    }
    o.syntax = syntax;
    o.syntax_set = true;
    Ok(())
}

fn is_color_when(v: &str) -> bool {
    matches!(
        v,
        "never" | "always" | "auto" | "no" | "none" | "yes" | "force" | "tty" | "if-tty"
    )
}

fn directories(o: &mut Options, v: &str) -> Result<(), ArgError> {
    match v {
        "read" => o.skip_dirs = false,
        "skip" => o.skip_dirs = true,
        "recurse" => o.recursive = true,
        _ => return Err(plain("invalid argument for --directories")),
    }
    Ok(())
}

fn max_count(v: &str) -> Result<u64, ArgError> {
    match v.parse::<i64>() {
        Ok(n) if n < 0 => Ok(u64::MAX),
        Ok(n) => Ok(n.unsigned_abs()),
        Err(_) => Err(plain("invalid max count")),
    }
}
