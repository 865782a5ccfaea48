//! The sed script parser: reads the joined `-e` / `-f` chunks character by character (as GNU
//! sed does, so error positions match: `-e expression #1, char 3: ...`) into a [`Script`].

use std::collections::HashMap;
use std::rc::Rc;

use super::script::{Addr, Addr2, Address, Case, Cmd, Command, Piece, RegexRef, Script, Subst};
use super::text::char_escape;
use crate::applets::common::regex::{Dialect, Flags, Posix as SedRegex, Tool};

/// Where a piece of script came from, for error messages.
#[derive(Clone, Debug)]
pub enum Origin {
    /// The Nth `-e` (or the script operand).
    Expr(usize),
    /// A `-f` file.
    File(String),
}

/// One `-e` expression or `-f` file.
#[derive(Clone, Debug)]
pub struct Chunk {
    /// Its text.
    pub text: String,
    /// Where it came from.
    pub origin: Origin,
}

/// A script error: the message (without `sed: `) and the exit status.
pub struct ParseError {
    /// The message.
    pub message: String,
    /// The exit status (1, or 4 for a missing label as GNU has it).
    pub status: i32,
    /// The `w` files named before the error: GNU has created them already.
    pub wfiles: Vec<String>,
}

/// Parses the chunks (joined by newlines) with ERE syntax when `extended`.
pub fn parse(chunks: &[Chunk], extended: bool) -> Result<Script, ParseError> {
    let mut chars = Vec::new();
    let mut starts = Vec::new();
    for (i, chunk) in chunks.iter().enumerate() {
        if i > 0 {
            chars.push('\n');
        }
        starts.push(chars.len());
        chars.extend(chunk.text.chars());
    }
    let mut p = Parser {
        chars,
        pos: 0,
        starts,
        chunks,
        extended,
        commands: Vec::new(),
        blocks: Vec::new(),
        labels: HashMap::new(),
        jumps: Vec::new(),
        wfiles: Vec::new(),
        seen_regex: false,
    };
    let quiet = p.chars.starts_with(&['#', 'n']) && matches!(p.chars.get(2), None | Some('\n'));
    let result = p
        .program()
        .map(|()| 1)
        .and_then(|_| p.resolve_jumps().map(|()| 0));
    if let Err(message) = result {
        // GNU exits with 4 for a jump to a missing label, 1 for other script errors.
        let status = if message.starts_with("can't find label") {
            4
        } else {
            1
        };
        return Err(ParseError {
            message,
            status,
            wfiles: p.wfiles,
        });
    }
    Ok(Script {
        commands: p.commands,
        wfiles: p.wfiles,
        quiet,
    })
}

struct Parser<'a> {
    chars: Vec<char>,
    /// Characters consumed so far (GNU's error position).
    pos: usize,
    starts: Vec<usize>,
    chunks: &'a [Chunk],
    extended: bool,
    commands: Vec<Command>,
    /// Indices of the open `{` commands.
    blocks: Vec<usize>,
    labels: HashMap<String, usize>,
    /// Branch commands and the labels they jump to.
    jumps: Vec<(usize, String)>,
    wfiles: Vec<String>,
    /// A regex was compiled already, so `//` has something to refer to.
    seen_regex: bool,
}

/// Characters that end a command.
fn ends_command(c: Option<char>) -> bool {
    matches!(c, None | Some('\n' | ';'))
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
    }

    /// `-e expression #1, char 3: MESSAGE` (or `file F line L: MESSAGE`).
    fn error(&self, message: &str) -> String {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, pos: usize, message: &str) -> String {
        let index = self
            .starts
            .iter()
            .rposition(|&s| s < pos || s == 0)
            .unwrap_or(0);
        let start = self.starts.get(index).copied().unwrap_or(0);
        match self.chunks.get(index).map(|c| &c.origin) {
            Some(Origin::File(name)) => {
                let upto = pos.saturating_sub(1).max(start);
                let line = 1 + self.chars[start..upto]
                    .iter()
                    .filter(|&&c| c == '\n')
                    .count();
                format!("file {name} line {line}: {message}")
            }
            Some(Origin::Expr(n)) => {
                format!("-e expression #{n}, char {}: {message}", pos - start)
            }
            None => format!("-e expression #1, char {pos}: {message}"),
        }
    }

    fn program(&mut self) -> Result<(), String> {
        loop {
            while matches!(self.peek(), Some(' ' | '\t' | '\n' | ';')) {
                self.pos += 1;
            }
            if self.peek().is_none() {
                break;
            }
            self.command()?;
        }
        if !self.blocks.is_empty() {
            return Err(match self.chunks.first().map(|c| &c.origin) {
                Some(Origin::File(name)) => format!("file {name} line 1: unmatched `{{'"),
                _ => "-e expression #1, char 0: unmatched `{'".to_string(),
            });
        }
        Ok(())
    }

    fn command(&mut self) -> Result<(), String> {
        let address = self.address()?;
        let has_address = address.first.is_some();
        let Some(c) = self.next() else {
            return Err(self.error("missing command"));
        };
        let zero = matches!(address.first, Some(Addr::Zero | Addr::Step(0, 0)));
        if zero && !matches!(address.second, Some(Addr2::Regex(_))) {
            return Err(self.error("invalid usage of line address 0"));
        }
        let cmd = match c {
            '#' => {
                if has_address {
                    return Err(self.error("comments don't accept any addresses"));
                }
                while !matches!(self.peek(), None | Some('\n')) {
                    self.pos += 1;
                }
                return Ok(());
            }
            '{' => {
                self.blocks.push(self.commands.len());
                Cmd::Block(0)
            }
            '}' => return self.close_block(has_address),
            ':' => return self.label(has_address),
            's' => Cmd::Subst(Box::new(self.subst()?)),
            'y' => Cmd::Translit(self.translit()?),
            'a' | 'i' | 'c' => {
                let text = self.text()?;
                match c {
                    'a' => Cmd::Append(text),
                    'i' => Cmd::Insert(text),
                    _ => Cmd::Change(text),
                }
            }
            'b' | 't' | 'T' => {
                let label = self.jump_label();
                if !label.is_empty() {
                    self.jumps.push((self.commands.len(), label));
                }
                match c {
                    'b' => Cmd::Branch(None),
                    't' => Cmd::BranchIfSub(None),
                    _ => Cmd::BranchUnlessSub(None),
                }
            }
            'r' | 'R' | 'w' | 'W' => {
                let name = self.file_name()?;
                match c {
                    'r' => Cmd::ReadFile(name),
                    'R' => Cmd::ReadLine(name),
                    'w' => Cmd::Write(self.wfile(name)),
                    _ => Cmd::WriteFirst(self.wfile(name)),
                }
            }
            'q' | 'Q' => {
                if address.second.is_some() {
                    return Err(self.error("command only uses one address"));
                }
                let code = self.number_arg().unwrap_or(0);
                let code = i32::try_from(code).unwrap_or(i32::MAX);
                self.end_of_command()?;
                if c == 'q' {
                    Cmd::Quit(code)
                } else {
                    Cmd::QuitSilent(code)
                }
            }
            'l' => {
                let width = self.number_arg().map(|n| usize::try_from(n).unwrap_or(0));
                self.end_of_command()?;
                Cmd::List(width)
            }
            'v' => {
                self.version()?;
                return Ok(());
            }
            'e' => return Err(self.error("the `e' command (run a shell command) is not supported")),
            _ => {
                let cmd = simple_command(c)
                    .ok_or_else(|| self.error(&format!("unknown command: `{c}'")))?;
                self.end_of_command()?;
                cmd
            }
        };
        self.commands.push(Command { address, cmd });
        Ok(())
    }

    /// After a command: blanks, then the end of the line, `;`, `}` or a comment.
    fn end_of_command(&mut self) -> Result<(), String> {
        self.skip_blanks();
        match self.peek() {
            None | Some('}' | '#') => Ok(()),
            Some('\n' | ';') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => {
                self.pos += 1;
                Err(self.error("extra characters after command"))
            }
        }
    }

    fn close_block(&mut self, has_address: bool) -> Result<(), String> {
        if has_address {
            return Err(self.error("} doesn't want any addresses"));
        }
        let Some(open) = self.blocks.pop() else {
            return Err(self.error("unexpected `}'"));
        };
        let here = self.commands.len();
        if let Some(cmd) = self.commands.get_mut(open) {
            cmd.cmd = Cmd::Block(here + 1);
        }
        self.commands.push(Command {
            address: Address::default(),
            cmd: Cmd::EndBlock,
        });
        self.end_of_command()
    }

    fn label(&mut self, has_address: bool) -> Result<(), String> {
        if has_address {
            return Err(self.error(": doesn't want any addresses"));
        }
        let name = self.label_name();
        if name.is_empty() {
            return Err(self.error("\":\" lacks a label"));
        }
        self.labels.entry(name).or_insert(self.commands.len());
        self.commands.push(Command {
            address: Address::default(),
            cmd: Cmd::Label,
        });
        Ok(())
    }

    /// A label: after blanks, up to a newline or `;` (trailing blanks dropped).
    fn label_name(&mut self) -> String {
        self.skip_blanks();
        let mut name = String::new();
        while !ends_command(self.peek()) {
            name.push(self.next().unwrap_or(' '));
        }
        self.eat(';');
        name.trim_end().to_string()
    }

    /// The label of `b`, `t` or `T`: as [`Self::label_name`], but a `}` also ends it (GNU:
    /// `/x/{ p; b }` closes the block).
    fn jump_label(&mut self) -> String {
        self.skip_blanks();
        let mut name = String::new();
        while !ends_command(self.peek()) && self.peek() != Some('}') {
            name.push(self.next().unwrap_or(' '));
        }
        self.eat(';');
        name.trim_end().to_string()
    }

    fn resolve_jumps(&mut self) -> Result<(), String> {
        for (at, label) in std::mem::take(&mut self.jumps) {
            let Some(&target) = self.labels.get(&label) else {
                return Err(format!("can't find label for jump to `{label}'"));
            };
            if let Some(cmd) = self.commands.get_mut(at) {
                match &mut cmd.cmd {
                    Cmd::Branch(t) | Cmd::BranchIfSub(t) | Cmd::BranchUnlessSub(t) => {
                        *t = Some(target)
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    /// `v [VERSION]`: accepted for any version up to 4.9.
    fn version(&mut self) -> Result<(), String> {
        let name = self.label_name();
        let mut parts = name.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
        let major = parts.next().unwrap_or(0);
        let minor = parts.next().unwrap_or(0);
        if major > 4 || major == 4 && minor > 9 {
            return Err(self.error("expected newer version of sed"));
        }
        Ok(())
    }

    fn number_arg(&mut self) -> Option<u64> {
        self.skip_blanks();
        let start = self.pos;
        let mut n: u64 = 0;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(u64::from(d));
            self.pos += 1;
        }
        (self.pos > start).then_some(n)
    }

    fn file_name(&mut self) -> Result<String, String> {
        self.skip_blanks();
        let mut name = String::new();
        while !matches!(self.peek(), None | Some('\n')) {
            name.push(self.next().unwrap_or(' '));
        }
        if name.is_empty() {
            return Err(self.error("missing filename in r/R/w/W commands"));
        }
        Ok(name)
    }

    fn wfile(&mut self, name: String) -> usize {
        match self.wfiles.iter().position(|f| *f == name) {
            Some(i) => i,
            None => {
                self.wfiles.push(name);
                self.wfiles.len() - 1
            }
        }
    }

    // ----- addresses -----

    fn address(&mut self) -> Result<Address, String> {
        let mut address = Address::default();
        let Some(first) = self.addr1()? else {
            return self.negation(address);
        };
        address.first = Some(first);
        self.skip_blanks();
        if self.eat(',') {
            self.skip_blanks();
            let second = self.addr2()?;
            address.second = Some(second);
        }
        self.skip_blanks();
        self.negation(address)
    }

    fn negation(&mut self, mut address: Address) -> Result<Address, String> {
        if self.eat('!') {
            address.negate = true;
            self.skip_blanks();
            if self.eat('!') {
                return Err(self.error("multiple `!'s"));
            }
        }
        Ok(address)
    }

    fn addr1(&mut self) -> Result<Option<Addr>, String> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                let n = self.number_arg().unwrap_or(0);
                if self.eat('~') {
                    let step = self.number_arg().unwrap_or(0);
                    return Ok(Some(Addr::Step(n, step)));
                }
                Ok(Some(if n == 0 { Addr::Zero } else { Addr::Line(n) }))
            }
            Some('$') => {
                self.pos += 1;
                Ok(Some(Addr::Last))
            }
            Some('/' | '\\') => Ok(Some(Addr::Regex(self.address_regex()?))),
            _ => Ok(None),
        }
    }

    fn addr2(&mut self) -> Result<Addr2, String> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => Ok(Addr2::Line(self.number_arg().unwrap_or(0))),
            Some('$') => {
                self.pos += 1;
                Ok(Addr2::Last)
            }
            Some('/' | '\\') => Ok(Addr2::Regex(self.address_regex()?)),
            Some(c @ ('+' | '~')) => {
                self.pos += 1;
                let n = self
                    .number_arg()
                    .ok_or_else(|| self.error("expected number"))?;
                Ok(if c == '+' {
                    Addr2::Plus(n)
                } else {
                    Addr2::Multiple(n)
                })
            }
            next => {
                if next.is_some() {
                    self.pos += 1;
                }
                Err(self.error("unexpected `,'"))
            }
        }
    }

    /// `/re/flags` or `\%re%flags`.
    fn address_regex(&mut self) -> Result<RegexRef, String> {
        let mut delim = self.next().unwrap_or('/');
        if delim == '\\' {
            delim = match self.next() {
                Some(c) if c != '\n' => c,
                _ => return Err(self.error("unterminated address regex")),
            };
        }
        let Some(src) = self.delimited(delim) else {
            return Err(self.error("unterminated address regex"));
        };
        let (mut icase, mut multi) = (false, false);
        loop {
            match self.peek() {
                Some('I') => icase = true,
                Some('M') => multi = true,
                _ => break,
            }
            self.pos += 1;
        }
        self.compile(&src, icase, multi)
    }

    fn compile(&mut self, src: &str, icase: bool, multi: bool) -> Result<RegexRef, String> {
        if src.is_empty() {
            if !self.seen_regex {
                return Err("-e expression #1, char 0: no previous regular expression".into());
            }
            return Ok(None);
        }
        self.seen_regex = true;
        let dialect = Dialect::posix(self.extended, Tool::Sed);
        let flags = Flags {
            icase,
            multiline: multi,
        };
        let re = SedRegex::new(src, dialect, flags).map_err(|e| self.error(&e))?;
        Ok(Some(Rc::new(re)))
    }

    /// Reads a regex up to the unescaped `delim` (skipped), as GNU's `match_slash` does:
    /// `\delim` is `delim` and `\n` a newline; bracket expressions are read whole, so
    /// `s/[/]/x/` works. None when a newline or the end of the script comes first.
    fn delimited(&mut self, delim: char) -> Option<String> {
        let mut out = String::new();
        loop {
            let c = self.next()?;
            if c == delim {
                return Some(out);
            }
            match c {
                '\n' => return None,
                '\\' => {
                    let n = self.next()?;
                    if n == 'n' {
                        out.push('\n');
                    } else if n != delim && n != '\n' {
                        out.push('\\');
                        out.push(n);
                    } else {
                        out.push(n);
                    }
                }
                '[' => {
                    out.push('[');
                    self.bracket_body(&mut out)?;
                }
                c => out.push(c),
            }
        }
    }

    /// Copies a bracket expression's body (after `[`) through its closing `]`.
    fn bracket_body(&mut self, out: &mut String) -> Option<()> {
        if self.eat('^') {
            out.push('^');
        }
        let mut first = true;
        loop {
            let c = self.next()?;
            if c == '\n' {
                return None;
            }
            out.push(c);
            if c == ']' && !first {
                return Some(());
            }
            first = false;
            if c == '[' && matches!(self.peek(), Some(':' | '.' | '=')) {
                let kind = self.next()?;
                out.push(kind);
                loop {
                    let k = self.next()?;
                    if k == '\n' {
                        return None;
                    }
                    out.push(k);
                    if k == kind && self.eat(']') {
                        out.push(']');
                        break;
                    }
                }
            }
        }
    }

    // ----- s and y -----

    fn subst(&mut self) -> Result<Subst, String> {
        let unterminated = "unterminated `s' command";
        let delim = match self.next() {
            Some(c) if c != '\n' && c != '\\' => c,
            _ => return Err(self.error(unterminated)),
        };
        let Some(pattern) = self.delimited(delim) else {
            return Err(self.error(unterminated));
        };
        let Some(raw) = self.replacement_text(delim) else {
            return Err(self.error(unterminated));
        };
        let mut s = Subst {
            regex: None,
            replacement: Vec::new(),
            global: false,
            occurrence: 1,
            print: false,
            write: None,
        };
        let (icase, multi) = self.subst_flags(&mut s)?;
        s.regex = self.compile(&pattern, icase, multi)?;
        s.replacement = replacement_pieces(&raw);
        let groups = s.regex.as_ref().map_or(9, |r| r.groups);
        if let Some(n) = max_group(&s.replacement).filter(|&n| n > groups) {
            return Err(self.error(&format!("invalid reference \\{n} on `s' command's RHS")));
        }
        Ok(s)
    }

    /// The raw replacement up to `delim`: `\delim` becomes `delim`, `\` newline a newline
    /// (kept as `\` + newline), other escapes are kept for [`replacement_pieces`].
    fn replacement_text(&mut self, delim: char) -> Option<String> {
        let mut out = String::new();
        loop {
            let c = self.next()?;
            if c == delim {
                return Some(out);
            }
            match c {
                '\n' => return None,
                '\\' => {
                    let n = self.next()?;
                    if n == '\n' || n == delim && n != '&' {
                        out.push(n);
                    } else {
                        out.push('\\');
                        out.push(n);
                    }
                }
                c => out.push(c),
            }
        }
    }

    /// The flags after `s/re/rep/`; returns (ignore case, multi-line).
    fn subst_flags(&mut self, s: &mut Subst) -> Result<(bool, bool), String> {
        let (mut icase, mut multi, mut numbered) = (false, false, false);
        loop {
            self.skip_blanks();
            match self.peek() {
                Some('g') => {
                    self.pos += 1;
                    if s.global {
                        return Err(self.error("multiple `g' options to `s' command"));
                    }
                    s.global = true;
                }
                Some('p') => {
                    self.pos += 1;
                    if s.print {
                        return Err(self.error("multiple `p' options to `s' command"));
                    }
                    s.print = true;
                }
                Some('i' | 'I') => {
                    self.pos += 1;
                    icase = true;
                }
                Some('m' | 'M') => {
                    self.pos += 1;
                    multi = true;
                }
                Some('e') => {
                    self.pos += 1;
                    return Err(
                        self.error("the `e' flag of `s' (run a shell command) is not supported")
                    );
                }
                Some(c) if c.is_ascii_digit() => {
                    let n = self.number_arg().unwrap_or(0);
                    if numbered {
                        return Err(self.error("multiple number options to `s' command"));
                    }
                    if n == 0 {
                        return Err(self.error("number option to `s' command may not be zero"));
                    }
                    numbered = true;
                    s.occurrence = usize::try_from(n).unwrap_or(usize::MAX);
                }
                Some('w') => {
                    self.pos += 1;
                    let name = self.file_name()?;
                    s.write = Some(self.wfile(name));
                    return Ok((icase, multi));
                }
                _ => break,
            }
        }
        self.skip_blanks();
        match self.peek() {
            None | Some('}' | '#') => {}
            Some('\n' | ';') => self.pos += 1,
            Some(_) => {
                self.pos += 1;
                return Err(self.error("unknown option to `s'"));
            }
        }
        Ok((icase, multi))
    }

    fn translit(&mut self) -> Result<Vec<(char, char)>, String> {
        let unterminated = "unterminated `y' command";
        let delim = match self.next() {
            Some(c) if c != '\n' && c != '\\' => c,
            _ => return Err(self.error(unterminated)),
        };
        let src = self.y_part(delim).ok_or_else(|| self.error(unterminated))?;
        let dst = self.y_part(delim).ok_or_else(|| self.error(unterminated))?;
        if src.len() != dst.len() {
            return Err(self.error("strings for `y' command are different lengths"));
        }
        self.end_of_command()?;
        Ok(src.into_iter().zip(dst).collect())
    }

    /// One side of `y`: `\delim`, `\\`, `\n` and the other character escapes.
    fn y_part(&mut self, delim: char) -> Option<Vec<char>> {
        let mut out = Vec::new();
        loop {
            let c = self.next()?;
            if c == delim {
                return Some(out);
            }
            if c == '\n' {
                return None;
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let n = self.next()?;
            if n == delim || n == '\\' {
                out.push(n);
            } else if n == '\n' {
                out.push('\n');
            } else {
                let (decoded, used) = char_escape(&self.chars[self.pos - 1..]);
                match decoded {
                    Some(ch) => {
                        out.push(ch);
                        self.pos += used - 1;
                    }
                    None => {
                        out.push('\\');
                        out.push(n);
                    }
                }
            }
        }
    }

    // ----- a, i, c -----

    /// The text of `a`, `i` and `c`, in the one-line GNU form or the classic `a\` form,
    /// ending with a newline (empty for a bare `a\` at the end of the script).
    fn text(&mut self) -> Result<String, String> {
        self.skip_blanks();
        match self.peek() {
            None | Some('\n') => return Err(self.error("expected \\ after `a', `c' or `i'")),
            Some('\\') => {
                self.pos += 1;
                if self.peek().is_none() {
                    return Ok(String::new());
                }
                self.eat('\n');
            }
            _ => {}
        }
        let mut text = String::new();
        while let Some(c) = self.next() {
            match c {
                '\n' => break,
                '\\' => {
                    let Some(n) = self.peek() else {
                        break;
                    };
                    let (decoded, used) = char_escape(&self.chars[self.pos..]);
                    match decoded {
                        Some(ch) => {
                            text.push(ch);
                            self.pos += used;
                        }
                        None => {
                            text.push(n);
                            self.pos += 1;
                        }
                    }
                }
                c => text.push(c),
            }
        }
        text.push('\n');
        Ok(text)
    }
}

/// Commands without arguments.
fn simple_command(c: char) -> Option<Cmd> {
    Some(match c {
        'p' => Cmd::Print,
        'P' => Cmd::PrintFirst,
        'd' => Cmd::Delete,
        'D' => Cmd::DeleteFirst,
        'n' => Cmd::Next,
        'N' => Cmd::NextAppend,
        '=' => Cmd::LineNumber,
        'h' => Cmd::Hold,
        'H' => Cmd::HoldAppend,
        'g' => Cmd::Get,
        'G' => Cmd::GetAppend,
        'x' => Cmd::Exchange,
        'F' => Cmd::FileName,
        'z' => Cmd::Zap,
        _ => return None,
    })
}

/// Splits a raw replacement into literal text, group references and case conversions.
fn replacement_pieces(raw: &str) -> Vec<Piece> {
    let chars: Vec<char> = raw.chars().collect();
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut i = 0;
    let flush = |text: &mut String, pieces: &mut Vec<Piece>| {
        if !text.is_empty() {
            pieces.push(Piece::Text(std::mem::take(text)));
        }
    };
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c == '&' {
            flush(&mut text, &mut pieces);
            pieces.push(Piece::Group(0));
            continue;
        }
        if c != '\\' || i >= chars.len() {
            text.push(c);
            continue;
        }
        let n = chars[i];
        let special = match n {
            '0'..='9' => Some(Piece::Group(n.to_digit(10).unwrap_or(0) as usize)),
            'L' => Some(Piece::Case(Case::Lower)),
            'U' => Some(Piece::Case(Case::Upper)),
            'E' => Some(Piece::Case(Case::End)),
            'l' => Some(Piece::Case(Case::LowerNext)),
            'u' => Some(Piece::Case(Case::UpperNext)),
            _ => None,
        };
        if let Some(piece) = special {
            flush(&mut text, &mut pieces);
            pieces.push(piece);
            i += 1;
            continue;
        }
        if n == '\n' {
            text.push('\n');
            i += 1;
            continue;
        }
        let (decoded, used) = char_escape(&chars[i..]);
        match decoded {
            Some(ch) => {
                text.push(ch);
                i += used;
            }
            None => {
                text.push(n);
                i += 1;
            }
        }
    }
    flush(&mut text, &mut pieces);
    pieces
}

fn max_group(pieces: &[Piece]) -> Option<usize> {
    pieces
        .iter()
        .filter_map(|p| match p {
            Piece::Group(n) => Some(*n),
            _ => None,
        })
        .max()
}
