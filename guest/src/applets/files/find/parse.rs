//! The find expression: tokens to a tree, with GNU's precedence (`!` over `-a` over `-o`
//! over `,`), implicit `-a`, global options, and GNU's messages for malformed expressions.

use regex::bytes::Regex;

use crate::applets::common::regex::{translate, whole_match, Dialect, Flags, Syntax, Tool};
use crate::applets::common::{parse_date, Glob};

/// A numeric argument: `+N` (more than), `-N` (less than), `N` (exactly).
#[derive(Debug, Clone, Copy)]
pub enum Cmp {
    /// Greater than.
    More(i64),
    /// Less than.
    Less(i64),
    /// Equal.
    Exact(i64),
}

impl Cmp {
    /// Whether `value` satisfies the comparison.
    pub fn holds(self, value: i64) -> bool {
        match self {
            Cmp::More(n) => value > n,
            Cmp::Less(n) => value < n,
            Cmp::Exact(n) => value == n,
        }
    }
}

/// How `-perm` compares.
#[derive(Debug, Clone, Copy)]
pub enum Perm {
    /// Exactly these bits.
    Exact(u32),
    /// At least these bits (`-MODE`).
    All(u32),
    /// Any of these bits (`/MODE`).
    Any(u32),
}

/// A test: true or false for an entry, no side effects.
#[derive(Debug, Clone)]
pub enum Test {
    /// `-true` / `-false`.
    Const(bool),
    /// `-name` / `-iname`.
    Name(Glob),
    /// `-path` / `-ipath` / `-wholename`.
    Path(Glob),
    /// `-regex` / `-iregex` (anchored at both ends).
    Regex(Regex),
    /// `-type` (letters, any of).
    Type(Vec<char>),
    /// `-xtype`: the type after following a symlink.
    XType(Vec<char>),
    /// `-size N[ckMGbw]`: the size in units, rounded up.
    Size(Cmp, u64),
    /// `-mtime`/`-mmin` and their a/c twins: age in whole units of this many seconds.
    Age(Cmp, f64),
    /// `-newer FILE` / `-newermt DATE`: modified after this time (ms).
    Newer(f64),
    /// `-empty`.
    Empty,
    /// `-perm`.
    Perm(Perm),
    /// `-user`/`-group`/`-uid`/`-gid`/`-nouser`: whether the sandbox user matches.
    Owner(bool),
    /// `-links N`.
    Links(Cmp),
    /// `-inum N`.
    Inum(Cmp),
    /// `-samefile FILE`: the inode number of FILE (hard links share it).
    SameFile(u64),
    /// `-readable` / `-writable` / `-executable` (by permission bits).
    Access(u32),
}

/// One piece of a `-printf` format.
#[derive(Debug, Clone)]
pub enum Piece {
    /// Literal text.
    Text(String),
    /// A directive: flags/width, the letter, and for `%T`/`%A`/`%C` the time letter.
    Directive {
        /// `-` or `0` and digits, as written.
        spec: String,
        /// The directive letter.
        letter: char,
        /// The time field for `%Tk`.
        time: Option<char>,
    },
}

/// Something an entry makes happen.
#[derive(Debug, Clone)]
pub enum Action {
    /// `-print`.
    Print,
    /// `-print0`.
    Print0,
    /// `-printf FORMAT`.
    Printf(Vec<Piece>),
    /// `-ls`.
    Ls,
    /// `-delete`.
    Delete,
    /// `-prune`.
    Prune,
    /// `-quit`.
    Quit,
    /// `-exec`/`-execdir`/`-ok`: the command with `{}` placeholders; `batch` is the index of
    /// the `+` batch it collects into.
    Exec {
        /// The command words.
        argv: Vec<String>,
        /// `Some(i)` for `{} +`.
        batch: Option<usize>,
        /// `-execdir`: run in the entry's directory, with `./name`.
        in_dir: bool,
        /// `-ok`: ask first.
        ask: bool,
    },
}

/// The expression tree.
#[derive(Debug, Clone)]
pub enum Expr {
    /// Both (the right only when the left is true).
    And(Box<Expr>, Box<Expr>),
    /// Either (the right only when the left is false).
    Or(Box<Expr>, Box<Expr>),
    /// Both, the value is the right's.
    Comma(Box<Expr>, Box<Expr>),
    /// Negation.
    Not(Box<Expr>),
    /// A test.
    Test(Test),
    /// An action.
    Action(Action),
}

/// Options that apply to the whole run, wherever they appear.
#[derive(Debug, Clone)]
pub struct Globals {
    /// `-maxdepth`.
    pub max_depth: usize,
    /// `-mindepth`.
    pub min_depth: usize,
    /// `-depth` (or implied by `-delete`).
    pub depth_first: bool,
    /// `-L` / `-follow`.
    pub follow: bool,
    /// `-H`: follow symlinks given as starting points.
    pub follow_roots: bool,
}

/// A parsed command line.
#[derive(Debug)]
pub struct Command {
    /// Starting points.
    pub roots: Vec<String>,
    /// The expression (with the implicit `-print` added).
    pub expr: Expr,
    /// Global options.
    pub globals: Globals,
    /// How many `{} +` batches the expression has.
    pub batches: usize,
    /// `-printf` directives GNU does not know (warned about once).
    pub warnings: Vec<String>,
}

/// What the parser needs from the outside: the clock, file times for `-newer` and inode
/// numbers for `-samefile`.
pub struct Env<'a> {
    /// Now, in seconds.
    pub now_secs: i64,
    /// The mtime (ms) of a path, or the error message.
    pub mtime: &'a dyn Fn(&str) -> Result<f64, String>,
    /// The inode number of a path (not following a final symlink), or the error message.
    pub inode: &'a dyn Fn(&str) -> Result<u64, String>,
}

struct Parser<'a> {
    args: &'a [String],
    pos: usize,
    globals: Globals,
    batches: usize,
    has_action: bool,
    warnings: Vec<String>,
    env: &'a Env<'a>,
    /// The syntax `-regextype` chose (findutils-default: Emacs).
    regex_type: Dialect,
}

/// Parses `find`'s arguments; `Err` holds the message to print after `find: `.
pub fn parse(args: &[String], env: &Env<'_>) -> Result<Command, String> {
    let mut globals = Globals {
        max_depth: usize::MAX,
        min_depth: 0,
        depth_first: false,
        follow: false,
        follow_roots: false,
    };
    let mut pos = 0;
    while let Some(arg) = args.get(pos) {
        match arg.as_str() {
            "-L" => globals.follow = true,
            "-H" => globals.follow_roots = true,
            "-P" => (globals.follow, globals.follow_roots) = (false, false),
            _ => break,
        }
        pos += 1;
    }
    let mut roots = Vec::new();
    while let Some(arg) = args.get(pos) {
        if arg.starts_with('-') && arg.len() > 1 || arg == "(" || arg == "!" {
            break;
        }
        roots.push(arg.clone());
        pos += 1;
    }
    if roots.is_empty() {
        roots.push(".".to_string());
    }
    let mut p = Parser {
        args,
        pos,
        globals,
        batches: 0,
        has_action: false,
        warnings: Vec::new(),
        env,
        regex_type: Dialect::new(Syntax::Emacs, Tool::Find),
    };
    let expr = if p.pos < args.len() {
        let expr = p.comma()?;
        if let Some(extra) = args.get(p.pos) {
            return Err(match extra.as_str() {
                ")" => "invalid expression; you have too many ')'".to_string(),
                _ => format!("paths must precede expression: `{extra}'"),
            });
        }
        expr
    } else {
        Expr::Test(Test::Const(true))
    };
    let expr = if p.has_action {
        expr
    } else {
        Expr::And(Box::new(expr), Box::new(Expr::Action(Action::Print)))
    };
    Ok(Command {
        roots,
        expr,
        globals: p.globals,
        batches: p.batches,
        warnings: p.warnings,
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.args.get(self.pos).map(String::as_str)
    }

    fn comma(&mut self) -> Result<Expr, String> {
        let mut left = self.or()?;
        while self.peek() == Some(",") {
            self.pos += 1;
            let right = self.or()?;
            left = Expr::Comma(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.and()?;
        while matches!(self.peek(), Some("-o" | "-or")) {
            let op = self.peek().unwrap_or("-o").to_string();
            self.pos += 1;
            if matches!(
                self.peek(),
                None | Some(")" | "-o" | "-or" | "-a" | "-and" | ",")
            ) {
                return Err(format!("expected an expression after '{op}'"));
            }
            let right = self.and()?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut left = self.unary()?;
        loop {
            match self.peek() {
                Some("-a" | "-and") => {
                    let op = self.peek().unwrap_or("-a").to_string();
                    self.pos += 1;
                    if matches!(
                        self.peek(),
                        None | Some(")" | "-o" | "-or" | "-a" | "-and" | ",")
                    ) {
                        return Err(format!("expected an expression after '{op}'"));
                    }
                }
                None | Some(")" | "-o" | "-or" | ",") => return Ok(left),
                Some(_) => {}
            }
            let right = self.unary()?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        let Some(token) = self.peek().map(str::to_string) else {
            return Err("expected an expression at the end".to_string());
        };
        self.pos += 1;
        match token.as_str() {
            "!" | "-not" => {
                if matches!(self.peek(), None | Some(")" | "-o" | "-or" | "-a" | "-and")) {
                    return Err(format!("expected an expression after '{token}'"));
                }
                Ok(Expr::Not(Box::new(self.unary()?)))
            }
            "(" => {
                if self.peek() == Some(")") {
                    return Err("invalid expression; empty parentheses are not allowed.".into());
                }
                let inner = self.comma()?;
                if self.peek() != Some(")") {
                    return Err("invalid expression; I was expecting to find a ')' somewhere but did not see one.".into());
                }
                self.pos += 1;
                Ok(inner)
            }
            "-o" | "-or" | "-a" | "-and" => Err(format!(
                "invalid expression; you have used a binary operator '{token}' with nothing before it."
            )),
            ")" => Err("invalid expression; you have too many ')'".into()),
            _ => self.primary(&token),
        }
    }

    /// The argument of `option`, or GNU's complaint.
    fn value(&mut self, option: &str) -> Result<String, String> {
        let value = self
            .args
            .get(self.pos)
            .cloned()
            .ok_or_else(|| format!("missing argument to `{option}'"))?;
        self.pos += 1;
        Ok(value)
    }

    fn primary(&mut self, token: &str) -> Result<Expr, String> {
        if let Some(expr) = self.global(token)? {
            return Ok(expr);
        }
        if let Some(test) = self.test(token)? {
            return Ok(Expr::Test(test));
        }
        if let Some(action) = self.action(token)? {
            if !matches!(action, Action::Prune) {
                self.has_action = true;
            }
            return Ok(Expr::Action(action));
        }
        if token.starts_with('-') {
            Err(format!("unknown predicate `{token}'"))
        } else {
            let hint = match self
                .args
                .get(self.pos.saturating_sub(3))
                .map(String::as_str)
            {
                Some(p @ ("-name" | "-iname" | "-path" | "-ipath" | "-wholename")) => {
                    format!("\nfind: possible unquoted pattern after predicate `{p}'?")
                }
                _ => String::new(),
            };
            Err(format!("paths must precede expression: `{token}'{hint}"))
        }
    }

    /// Global options: they change the run and evaluate as true.
    fn global(&mut self, token: &str) -> Result<Option<Expr>, String> {
        let yes = Some(Expr::Test(Test::Const(true)));
        match token {
            "-maxdepth" | "-mindepth" => {
                let value = self.value(token)?;
                let depth = value
                    .parse::<usize>()
                    .ok()
                    .filter(|_| value.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(|| {
                        format!("Expected a positive decimal integer argument to {token}, but got '{value}'")
                    })?;
                if token == "-maxdepth" {
                    self.globals.max_depth = depth;
                } else {
                    self.globals.min_depth = depth;
                }
                Ok(yes)
            }
            "-depth" | "-d" => {
                self.globals.depth_first = true;
                Ok(yes)
            }
            "-follow" => {
                self.globals.follow = true;
                Ok(yes)
            }
            "-xdev" | "-mount" | "-noleaf" | "-ignore_readdir_race" | "-nowarn" | "-warn" => {
                Ok(yes)
            }
            "-regextype" => {
                let kind = self.value(token)?;
                self.regex_type = Dialect::find(&kind).ok_or_else(|| format!("Unknown regular expression type {kind}; valid types are findutils-default, ed, emacs, gnu-awk, grep, posix-awk, awk, posix-basic, posix-egrep, egrep, posix-extended, posix-minimal-basic, sed."))?;
                Ok(yes)
            }
            _ => Ok(None),
        }
    }

    fn test(&mut self, token: &str) -> Result<Option<Test>, String> {
        let test = match token {
            "-true" => Test::Const(true),
            "-false" => Test::Const(false),
            "-name" | "-iname" => Test::Name(Glob::new(&self.value(token)?, token == "-iname")),
            "-path" | "-ipath" | "-wholename" | "-iwholename" => {
                Test::Path(Glob::new(&self.value(token)?, token.starts_with("-i")))
            }
            "-regex" | "-iregex" => {
                let pattern = self.value(token)?;
                let flags = Flags {
                    icase: token == "-iregex",
                    multiline: false,
                };
                let re = translate(&pattern, self.regex_type)
                    .and_then(|t| whole_match(&t, flags))
                    .map_err(|e| {
                        format!("failed to compile regular expression '{pattern}': {e}")
                    })?;
                Test::Regex(re)
            }
            "-type" | "-xtype" => {
                let value = self.value(token)?;
                let kinds: Vec<char> = value.split(',').filter_map(|k| k.chars().next()).collect();
                let valid = !value.is_empty()
                    && value
                        .split(',')
                        .all(|k| k.len() == 1 && "fdlcbps".contains(k));
                if !valid {
                    return Err(format!("Unknown argument to {token}: {value}"));
                }
                if token == "-type" {
                    Test::Type(kinds)
                } else {
                    Test::XType(kinds)
                }
            }
            "-size" => self.size()?,
            "-mtime" | "-atime" | "-ctime" => Test::Age(self.cmp(token)?, 86_400.0),
            "-mmin" | "-amin" | "-cmin" => Test::Age(self.cmp(token)?, 60.0),
            "-newer" | "-anewer" | "-cnewer" => {
                let file = self.value(token)?;
                Test::Newer((self.env.mtime)(&file)?)
            }
            "-newermt" | "-neweram" | "-newercm" => {
                let text = self.value(token)?;
                let (secs, nanos) = parse_date(&text, self.env.now_secs, 0).map_err(|_| {
                    format!("I cannot figure out how to interpret `{text}' as a date or time")
                })?;
                Test::Newer(secs as f64 * 1000.0 + f64::from(nanos) / 1e6)
            }
            "-empty" => Test::Empty,
            "-perm" => Test::Perm(self.perm()?),
            "-user" | "-group" => {
                let who = self.value(token)?;
                Test::Owner(who == "user" || who == "1000")
            }
            "-uid" | "-gid" => Test::Owner(self.cmp(token)?.holds(1000)),
            "-nouser" | "-nogroup" => Test::Owner(false),
            "-links" => Test::Links(self.cmp(token)?),
            "-inum" => Test::Inum(self.cmp(token)?),
            "-samefile" => {
                let file = self.value(token)?;
                Test::SameFile((self.env.inode)(&file)?)
            }
            "-readable" => Test::Access(0o444),
            "-writable" => Test::Access(0o222),
            "-executable" => Test::Access(0o111),
            _ => return Ok(None),
        };
        Ok(Some(test))
    }

    fn cmp(&mut self, option: &str) -> Result<Cmp, String> {
        let value = self.value(option)?;
        parse_cmp(&value).ok_or_else(|| format!("invalid argument `{value}' to `{option}'"))
    }

    fn size(&mut self) -> Result<Test, String> {
        let value = self.value("-size")?;
        let (number, unit) = match value.char_indices().last() {
            Some((at, c)) if c.is_ascii_alphabetic() => (&value[..at], c),
            _ => (value.as_str(), 'b'),
        };
        let unit = match unit {
            'c' => 1,
            'w' => 2,
            'b' => 512,
            'k' => 1024,
            'M' => 1 << 20,
            'G' => 1 << 30,
            other => return Err(format!("invalid -size type `{other}'")),
        };
        let cmp =
            parse_cmp(number).ok_or_else(|| format!("invalid argument `{value}' to `-size'"))?;
        Ok(Test::Size(cmp, unit))
    }

    fn perm(&mut self) -> Result<Perm, String> {
        let value = self.value("-perm")?;
        let (kind, mode) = match value.chars().next() {
            Some('-') => ('-', &value[1..]),
            Some('/') => ('/', &value[1..]),
            _ => ('=', value.as_str()),
        };
        let bits = parse_mode_bits(mode).ok_or_else(|| format!("invalid mode `{value}'"))?;
        Ok(match kind {
            '-' => Perm::All(bits),
            '/' => Perm::Any(bits),
            _ => Perm::Exact(bits),
        })
    }

    fn action(&mut self, token: &str) -> Result<Option<Action>, String> {
        let action = match token {
            "-print" => Action::Print,
            "-print0" => Action::Print0,
            "-printf" => {
                let format = self.value(token)?;
                Action::Printf(self.printf_format(&format))
            }
            "-ls" => Action::Ls,
            "-delete" => {
                self.globals.depth_first = true;
                Action::Delete
            }
            "-prune" => Action::Prune,
            "-quit" => Action::Quit,
            "-exec" | "-execdir" | "-ok" | "-okdir" => self.exec(token)?,
            _ => return Ok(None),
        };
        Ok(Some(action))
    }

    fn exec(&mut self, token: &str) -> Result<Action, String> {
        let mut argv = Vec::new();
        loop {
            let Some(word) = self.args.get(self.pos) else {
                return Err(format!("missing argument to `{token}'"));
            };
            self.pos += 1;
            if word == ";" {
                break;
            }
            if word == "+" && argv.last().is_some_and(|w| w == "{}") && !token.starts_with("-ok") {
                argv.pop();
                let batch = self.batches;
                self.batches += 1;
                if argv.is_empty() {
                    return Err(format!("missing argument to `{token}'"));
                }
                return Ok(Action::Exec {
                    argv,
                    batch: Some(batch),
                    in_dir: token.ends_with("dir"),
                    ask: false,
                });
            }
            argv.push(word.clone());
        }
        if argv.is_empty() {
            return Err(format!("missing argument to `{token}'"));
        }
        Ok(Action::Exec {
            argv,
            batch: None,
            in_dir: token.ends_with("dir"),
            ask: token.starts_with("-ok"),
        })
    }

    /// Splits a `-printf` format into text (escapes decoded) and directives.
    fn printf_format(&mut self, format: &str) -> Vec<Piece> {
        let chars: Vec<char> = format.chars().collect();
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            i += 1;
            if c == '\\' {
                let (decoded, used) = escape(&chars[i..]);
                text.push_str(&decoded);
                i += used;
                continue;
            }
            if c != '%' {
                text.push(c);
                continue;
            }
            let mut spec = String::new();
            while let Some(&f) = chars.get(i).filter(|f| "-+ #0123456789.".contains(**f)) {
                spec.push(f);
                i += 1;
            }
            let Some(&letter) = chars.get(i) else {
                text.push('%');
                text.push_str(&spec);
                break;
            };
            i += 1;
            if letter == '%' {
                text.push('%');
                continue;
            }
            let mut time = None;
            if matches!(letter, 'A' | 'C' | 'T') {
                time = chars.get(i).copied();
                i += 1;
            }
            if !"pfhPHsdmMyYlikbnugUGtacTACFDS".contains(letter) {
                self.warnings.push(format!(
                    "warning: unrecognized format directive `%{letter}'"
                ));
                text.push('%');
                text.push(letter);
                continue;
            }
            if !text.is_empty() {
                pieces.push(Piece::Text(std::mem::take(&mut text)));
            }
            pieces.push(Piece::Directive { spec, letter, time });
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        pieces
    }
}

/// A backslash escape of `-printf` (the backslash already consumed): the text and how many
/// characters it used.
fn escape(rest: &[char]) -> (String, usize) {
    let Some(&c) = rest.first() else {
        return ("\\".to_string(), 0);
    };
    let simple = match c {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        'a' => Some('\u{7}'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'v' => Some('\u{b}'),
        '\\' => Some('\\'),
        _ => None,
    };
    if let Some(s) = simple {
        return (s.to_string(), 1);
    }
    if c.is_digit(8) {
        let digits: String = rest.iter().take(3).take_while(|d| d.is_digit(8)).collect();
        let value = u32::from_str_radix(&digits, 8).unwrap_or(0);
        return (
            char::from_u32(value).unwrap_or('?').to_string(),
            digits.len(),
        );
    }
    (format!("\\{c}"), 1)
}

/// `+N`, `-N`, `N`.
pub fn parse_cmp(text: &str) -> Option<Cmp> {
    let (make, digits): (fn(i64) -> Cmp, &str) = match text.as_bytes().first()? {
        b'+' => (Cmp::More, &text[1..]),
        b'-' => (Cmp::Less, &text[1..]),
        _ => (Cmp::Exact, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().map(make)
}

/// Permission bits from an octal or symbolic (`u+x,g=rw`) mode.
fn parse_mode_bits(mode: &str) -> Option<u32> {
    if !mode.is_empty() && mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        return u32::from_str_radix(mode, 8).ok().filter(|m| *m <= 0o7777);
    }
    let mut bits = 0;
    for clause in mode.split(',') {
        let who_end = clause.find(['+', '-', '=']).unwrap_or(clause.len());
        let (who, rest) = clause.split_at(who_end);
        if rest.is_empty() || !who.chars().all(|c| "ugoa".contains(c)) {
            return None;
        }
        let mask = who.chars().fold(0, |m, c| {
            m | match c {
                'u' => 0o700,
                'g' => 0o070,
                'o' => 0o007,
                _ => 0o777,
            }
        });
        let mask = if mask == 0 { 0o777 } else { mask };
        let perms = rest[1..].chars().try_fold(0, |p, c| match c {
            'r' => Some(p | 0o444),
            'w' => Some(p | 0o222),
            'x' | 'X' => Some(p | 0o111),
            's' | 't' => Some(p),
            _ => None,
        })?;
        if !rest.starts_with('-') {
            bits |= perms & mask;
        }
    }
    Some(bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_modes_and_regexes() {
        assert!(matches!(parse_cmp("+3"), Some(Cmp::More(3))));
        assert!(matches!(parse_cmp("-3"), Some(Cmp::Less(3))));
        assert!(matches!(parse_cmp("3"), Some(Cmp::Exact(3))));
        assert!(parse_cmp("x").is_none() && parse_cmp("+").is_none());
        assert_eq!(parse_mode_bits("644"), Some(0o644));
        assert_eq!(parse_mode_bits("u+x"), Some(0o100));
        assert_eq!(parse_mode_bits("a+r,g+w"), Some(0o464));
        assert_eq!(parse_mode_bits("+x"), Some(0o111));
        assert_eq!(parse_mode_bits("q+x"), None);
    }
}
