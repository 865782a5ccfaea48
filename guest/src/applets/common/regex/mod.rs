//! The one POSIX regular-expression front end: BRE, ERE and the Emacs syntax of `find`,
//! with each GNU tool's own rules where they differ (which operators need a backslash, what a
//! misplaced `*` or `{` means, which escapes exist), translated to the `regex` crate.
//!
//! Every tool that takes a POSIX pattern goes through here: grep, sed, awk, expr, nl,
//! find's `-regex` and the shell's `[[ =~ ]]`. [`translate`] gives the `regex` crate syntax
//! (or glibc's error message, which each tool reports its own way); [`Posix`] compiles it
//! with POSIX's preference for the longest of the leftmost matches.

mod backtrack;
mod compiled;
mod translate;

pub use backtrack::Backtrack;
pub use compiled::{
    check_unrolled, longest_end, regex_error, whole_match, Flags, Posix, Spans, LONGEST_WINDOW,
};
pub use translate::{
    relaxed, translate, translate_bytes, translate_marked, EndChecks, Translation,
    BACKREF_UNSUPPORTED,
};

/// How a pattern is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Syntax {
    /// POSIX basic: `\(` `\)` `\{` `\}` (and GNU's `\|` `\+` `\?`).
    #[default]
    Basic,
    /// POSIX extended: `( ) { } | + ?` unescaped.
    Extended,
    /// Emacs (find's default): `\(` `\)` `\|`, unescaped `+ ?`, no intervals, no `[[:class:]]`.
    Emacs,
}

/// Whose rules apply where GNU tools read the same syntax differently.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tool {
    /// grep: a misplaced `*` or `{` is skipped or literal, with a warning.
    #[default]
    Grep,
    /// sed: strict (a misplaced `*` or `{` is an error), `\n` `\t`... escapes, `)` must match.
    Sed,
    /// gawk: string escapes (`\/`, `\t`, octal), `\y` for `\b`, a misplaced operator literal.
    Awk,
    /// bash's `[[ =~ ]]` (glibc's `regcomp`): strict; quoted characters are literal.
    Bash,
    /// find's `-regex`: strict, matched against the whole path.
    Find,
    /// expr's `:` and nl's `-b p`: like grep's BRE, and an empty range (`[z-a]`) matches nothing.
    Expr,
}

/// Which dialect a pattern is written in, and for which tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    /// The syntax.
    pub syntax: Syntax,
    /// The tool whose rules apply.
    pub tool: Tool,
    /// Intervals (`{m,n}`) exist; find's `awk` and `emacs` types have none (`{` is literal).
    pub intervals: bool,
    /// A byte no match may contain (grep's line terminator): negated classes, `\s` and `\W`
    /// leave it out so a match never spans two lines of a buffer searched as a whole.
    pub exclude: Option<char>,
}

impl Dialect {
    /// `syntax` read by `tool`.
    pub fn new(syntax: Syntax, tool: Tool) -> Dialect {
        Dialect {
            syntax,
            tool,
            intervals: syntax != Syntax::Emacs,
            exclude: None,
        }
    }

    /// BRE, or ERE when `extended`, read by `tool`.
    pub fn posix(extended: bool, tool: Tool) -> Dialect {
        let syntax = if extended {
            Syntax::Extended
        } else {
            Syntax::Basic
        };
        Dialect::new(syntax, tool)
    }

    /// find's `-regextype NAME`; None for an unknown name.
    pub fn find(name: &str) -> Option<Dialect> {
        let (syntax, intervals) = match name {
            "findutils-default" | "emacs" => (Syntax::Emacs, false),
            "posix-basic" | "posix-minimal-basic" | "grep" | "sed" | "ed" => (Syntax::Basic, true),
            "posix-extended" | "posix-egrep" | "egrep" | "gnu-awk" | "posix-awk" => {
                (Syntax::Extended, true)
            }
            "awk" => (Syntax::Extended, false),
            _ => return None,
        };
        Some(Dialect {
            intervals,
            ..Dialect::new(syntax, Tool::Find)
        })
    }

    /// Whether a misplaced `*`, `+`, `?` or interval is an error (glibc's
    /// `RE_CONTEXT_INVALID_OPS` / `RE_CONTEXT_INVALID_DUP`), and so is a `{` that does not
    /// start a valid interval.
    fn strict(&self) -> bool {
        matches!(self.tool, Tool::Sed | Tool::Bash | Tool::Find)
    }
}

/// The byte a string-style escape (`\n`, `\t`, `\/`, octal, `\xHH`) stands for, and its
/// length after the backslash; None for the regex-only escapes. Awk uses it in its strings
/// and in its regular expressions.
pub fn escape_byte(src: &[u8]) -> Option<(u8, usize)> {
    let &c = src.first()?;
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'f' => Some(b'\x0c'),
        b'v' => Some(b'\x0b'),
        b'a' => Some(b'\x07'),
        b'b' => Some(b'\x08'),
        b'/' => Some(b'/'),
        b'"' => Some(b'"'),
        _ => None,
    };
    if let Some(b) = simple {
        return Some((b, 1));
    }
    if (b'0'..=b'7').contains(&c) {
        let len = src
            .iter()
            .take(3)
            .take_while(|d| (b'0'..=b'7').contains(d))
            .count();
        let value = src[..len]
            .iter()
            .fold(0u32, |n, d| n * 8 + u32::from(d - b'0'));
        return Some(((value & 0xff) as u8, len));
    }
    if c == b'x' {
        let len = src[1..]
            .iter()
            .take(2)
            .take_while(|d| d.is_ascii_hexdigit())
            .count();
        if len > 0 {
            let text = std::str::from_utf8(&src[1..=len]).ok()?;
            return Some((u8::from_str_radix(text, 16).ok()?, len + 1));
        }
    }
    None
}
