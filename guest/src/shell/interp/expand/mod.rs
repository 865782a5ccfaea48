//! Word expansion, in bash's order: brace → tilde → parameter, arithmetic and command
//! substitution (left to right) → field splitting on `IFS` (only unquoted expansion results)
//! → pathname expansion → quote removal.
//!
//! A word expands to *fields* made of *pieces*; each piece remembers whether it was quoted
//! (never split, never a pattern character) and whether it came from an unquoted expansion
//! (split on `IFS`). Quoted `"$@"` and array expansions start new fields.

pub mod brace;
pub mod glob;
mod param;
pub(super) use param::change_case;
pub mod pattern;

use std::rc::Rc;

use super::io::{Fds, OutHandle, OutKind};
use super::state::too_large;
use super::{Flow, Sh};
use crate::limits::MAX_VALUE;
use crate::shell::ast::{Word, WordPart};
use pattern::{PChar, Pattern};

/// A stretch of expanded text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Piece {
    /// The text.
    pub text: String,
    /// It was quoted: literal, never split or globbed.
    pub quoted: bool,
    /// It came from an unquoted expansion: split on `IFS`.
    pub split: bool,
}

/// One field before splitting.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Field {
    /// Its pieces.
    pub pieces: Vec<Piece>,
    /// It had quotes: kept even when empty.
    pub keep: bool,
}

impl Field {
    fn text(&self) -> String {
        self.pieces.iter().map(|p| p.text.as_str()).collect()
    }

    fn chars(&self) -> Vec<PChar> {
        self.pieces
            .iter()
            .flat_map(|p| p.text.chars().map(move |c| (c, p.quoted)))
            .collect()
    }
}

/// Why an expansion failed. The message is printed as `bash: line N: message`.
#[derive(Debug, Clone, PartialEq)]
pub enum ExpandError {
    /// The shell must stop (unbound variable, `${x?}`, an expansion too large): exit
    /// status 1.
    Exit(String),
    /// The rest of the line is abandoned (bad arithmetic, a bad substitution): status 1,
    /// and the shell goes on with the next line, as bash does.
    Discard(String),
    /// The command fails with status 1 (ambiguous redirect, failglob...).
    Failed(String),
    /// Stopped by control flow (the deadline inside a substitution).
    Flow(Flow),
}

/// The result of expanding something.
pub type Expanded<T> = Result<T, ExpandError>;

/// Stops an expansion into many words (`{1..200000}`, `$(seq 200000)`) at the deadline: one
/// command's words can take longer than the time limit on a loaded machine.
fn out_of_time() -> Expanded<()> {
    match crate::task::out_of_time() {
        true => Err(ExpandError::Flow(Flow::Exit(super::TIMEOUT_STATUS))),
        false => Ok(()),
    }
}

/// Collects pieces into fields.
#[derive(Default)]
pub struct Builder {
    fields: Vec<Field>,
    cur: Field,
    size: usize,
    /// An assignment or other word that is not split: `$*` and `$@` join into one string.
    no_split: bool,
}

impl Builder {
    fn push(&mut self, text: &str, quoted: bool, split: bool) -> Expanded<()> {
        self.size += text.len();
        if self.size > MAX_VALUE {
            return Err(ExpandError::Exit(too_large("expansion")));
        }
        if quoted {
            self.cur.keep = true;
        }
        match self.cur.pieces.last_mut() {
            Some(last) if last.quoted == quoted && last.split == split => last.text.push_str(text),
            _ => self.cur.pieces.push(Piece {
                text: text.to_string(),
                quoted,
                split: split && !quoted,
            }),
        }
        Ok(())
    }

    fn keep(&mut self) {
        self.cur.keep = true;
    }

    fn break_field(&mut self) {
        let cur = std::mem::take(&mut self.cur);
        self.fields.push(cur);
    }

    fn append_fields(&mut self, fields: Vec<Field>) -> Expanded<()> {
        for (i, field) in fields.into_iter().enumerate() {
            if i > 0 {
                self.break_field();
            }
            if field.keep {
                self.keep();
            }
            for piece in field.pieces {
                self.push(&piece.text, piece.quoted, piece.split)?;
            }
        }
        Ok(())
    }

    fn finish(mut self) -> Vec<Field> {
        self.break_field();
        self.fields
    }
}

/// The words of one command as they are made, with what they will cost.
#[derive(Default)]
struct Words {
    words: Vec<String>,
    bytes: usize,
}

impl Words {
    /// About what a word costs beyond its text while it is held: its `String` and the
    /// allocator's rounding, here and in each copy made of it.
    const OVERHEAD: usize = 32;
    /// How many copies of the words a command may hold at once: these, the command's
    /// arguments, its `argv` and what it makes of them (`set --`, an array, a `for` list).
    const COPIES: usize = 4;

    /// Adds a word, failing when the command's words would no longer fit in the guest's
    /// memory with their copies (`echo $(seq 10000000)`): bash would exhaust the machine's,
    /// or an external command fail with "Argument list too long".
    fn push(&mut self, word: String) -> Expanded<()> {
        self.bytes += word.len() + Self::OVERHEAD;
        self.words.push(word);
        if self.words.len().is_multiple_of(1024)
            && self.bytes.saturating_mul(Self::COPIES) > crate::task::memory_left()
        {
            return Err(ExpandError::Failed(format!(
                "argument list too long: {} words so far would exhaust the sandbox's memory; \
                 pass long lists through a pipe or a file (seq 1000000 | while read -r x; do \
                 ...; done)",
                self.words.len()
            )));
        }
        Ok(())
    }
}

/// Splits a field on `ifs` (only its `split` pieces), handing each field to `out` as it is
/// made: `$(seq 1000000)` makes a million, each a vector of pieces until `out` flattens it.
fn split_field(
    field: Field,
    ifs: &str,
    mut out: impl FnMut(Field) -> Expanded<()>,
) -> Expanded<()> {
    if ifs.is_empty() || !field.pieces.iter().any(|p| p.split) {
        return out(field);
    }
    let is_ws = |c: char| c == ' ' || c == '\t' || c == '\n';
    let mut cur = Field::default();
    let mut has = field.keep && field.pieces.iter().all(|p| !p.split);
    let mut ws_ended = false;
    for piece in field.pieces {
        if !piece.split {
            if piece.quoted {
                cur.keep = true;
            }
            has = has || !piece.text.is_empty() || piece.quoted;
            push_piece(&mut cur, &piece.text, piece.quoted);
            ws_ended = false;
            continue;
        }
        for c in piece.text.chars() {
            if ifs.contains(c) {
                if is_ws(c) {
                    if has {
                        out(std::mem::take(&mut cur))?;
                        has = false;
                        ws_ended = true;
                    }
                } else {
                    if has || !ws_ended {
                        cur.keep = true;
                        out(std::mem::take(&mut cur))?;
                    }
                    has = false;
                    ws_ended = false;
                }
                continue;
            }
            let mut buf = [0u8; 4];
            push_piece(&mut cur, c.encode_utf8(&mut buf), false);
            has = true;
            ws_ended = false;
        }
    }
    if has {
        out(cur)?;
    }
    Ok(())
}

fn push_piece(field: &mut Field, text: &str, quoted: bool) {
    match field.pieces.last_mut() {
        Some(last) if last.quoted == quoted => last.text.push_str(text),
        _ => field.pieces.push(Piece {
            text: text.to_string(),
            quoted,
            split: false,
        }),
    }
}

impl Sh {
    /// Expands command words: brace expansion, then everything else, splitting and globbing.
    pub async fn expand_fields(&self, words: &[&Word], fds: &Fds) -> Expanded<Vec<String>> {
        let mut out = Words::default();
        for word in words {
            if !brace::has_braces(word) {
                let fields = self.expand_word(word, false, fds).await?;
                self.finish_fields(fields, &mut out)?;
                continue;
            }
            let braced = brace::expand(word).map_err(ExpandError::Discard)?;
            for w in &braced {
                out_of_time()?;
                let fields = self.expand_word(w, false, fds).await?;
                self.finish_fields(fields, &mut out)?;
            }
        }
        Ok(out.words)
    }

    /// Splits and globs fields into argument strings.
    fn finish_fields(&self, fields: Vec<Field>, out: &mut Words) -> Expanded<()> {
        let ifs = self.state.borrow().ifs();
        let (noglob, nullglob, failglob) = {
            let s = self.state.borrow();
            (s.opts.noglob, s.opts.nullglob, s.opts.failglob)
        };
        for field in fields {
            split_field(field, &ifs, |f| {
                out_of_time()?;
                if f.pieces.is_empty() && !f.keep {
                    return Ok(());
                }
                let chars = f.chars();
                if noglob || !pattern::has_glob(&chars) {
                    return out.push(f.text());
                }
                let matches = self.glob(&chars)?;
                if matches.is_empty() {
                    if failglob {
                        // Under `set -e` the shell exits (even in a condition, as bash
                        // does); else the line ends.
                        let message = format!("no match: {}", f.text());
                        return Err(if self.state.borrow().opts.errexit {
                            ExpandError::Exit(message)
                        } else {
                            ExpandError::Discard(message)
                        });
                    }
                    if !nullglob {
                        out.push(f.text())?;
                    }
                    return Ok(());
                }
                matches.into_iter().try_for_each(|m| out.push(m))
            })?;
        }
        Ok(())
    }

    /// Pathname expansion of one pattern.
    /// `GLOBIGNORE` (colon-separated patterns), when set and not empty, drops the matches it
    /// names and lets `*` match names starting with `.`, as in bash.
    pub fn glob(&self, chars: &[PChar]) -> Expanded<Vec<String>> {
        let (cwd, opts, ignore) = {
            let s = self.state.borrow();
            let ignore = s.get("GLOBIGNORE").filter(|g| !g.is_empty());
            let opts = glob::GlobOpts {
                dotglob: s.opts.dotglob || ignore.is_some(),
                nocase: s.opts.nocaseglob,
                globstar: s.opts.globstar,
                dots: !s.opts.globskipdots && ignore.is_none(),
            };
            (s.cwd.clone(), opts, ignore)
        };
        let vfs = self.world.vfs.borrow();
        let mut found = glob::expand(&vfs, &cwd, chars, opts).map_err(ExpandError::Failed)?;
        if let Some(ignore) = ignore {
            let patterns: Vec<Pattern> = split_pattern_list(&ignore)
                .iter()
                .map(|p| Pattern::new(&p.chars().map(|c| (c, false)).collect::<Vec<_>>()))
                .collect();
            found.retain(|path| {
                let base = path.rsplit('/').next().unwrap_or(path);
                base != "." && base != ".." && !patterns.iter().any(|p| p.matches(path))
            });
        }
        Ok(found)
    }

    /// Expands a word to one string, without splitting or globbing (assignments, `case`,
    /// `[[ ]]` operands, redirection targets, here-documents).
    pub async fn expand_string(&self, word: &Word, fds: &Fds) -> Expanded<String> {
        let fields = self.expand_word(word, true, fds).await?;
        let texts: Vec<String> = fields.iter().map(Field::text).collect();
        Ok(texts.join(" "))
    }

    /// Expands a word into a pattern: quoted characters match literally.
    pub async fn expand_pattern(&self, word: &Word, fds: &Fds) -> Expanded<Pattern> {
        let chars = self.expand_pchars(word, fds).await?;
        Ok(Pattern::new(&chars))
    }

    /// Expands a word to characters that remember whether they were quoted.
    pub async fn expand_pchars(&self, word: &Word, fds: &Fds) -> Expanded<Vec<PChar>> {
        let fields = self.expand_word(word, true, fds).await?;
        let mut chars = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                chars.push((' ', true));
            }
            chars.extend(f.chars());
        }
        Ok(chars)
    }

    /// Expands a word into fields (before splitting). `assign`: the context of an assignment
    /// or other no-split word (pieces are treated as quoted for splitting purposes by the
    /// caller, which does not split).
    pub async fn expand_word(
        &self,
        word: &Word,
        no_split: bool,
        fds: &Fds,
    ) -> Expanded<Vec<Field>> {
        let mut b = Builder {
            no_split,
            ..Builder::default()
        };
        self.expand_parts(&word.parts, &mut b, false, false, fds)
            .await?;
        Ok(b.finish())
    }

    /// Expands parts into `b`. `quoted`: inside double quotes. `operand`: inside a `${x:-...}`
    /// operand, where unquoted literal text is split like an expansion result.
    fn expand_parts<'a>(
        &'a self,
        parts: &'a [WordPart],
        b: &'a mut Builder,
        quoted: bool,
        operand: bool,
        fds: &'a Fds,
    ) -> crate::task::LocalFuture<'a, Expanded<()>> {
        Box::pin(async move {
            for part in parts {
                self.expand_part(part, b, quoted, operand, fds).await?;
            }
            Ok(())
        })
    }

    async fn expand_part(
        &self,
        part: &WordPart,
        b: &mut Builder,
        quoted: bool,
        operand: bool,
        fds: &Fds,
    ) -> Expanded<()> {
        match part {
            WordPart::Literal(s) => b.push(s, quoted, operand && !quoted),
            WordPart::SingleQuoted(s) => b.push(s, true, false),
            WordPart::DoubleQuoted(inner) => {
                if let [WordPart::Param(pe)] = inner.as_slice() {
                    let value = self.param(pe, true, fds).await?;
                    if value.is_empty_list() {
                        return Ok(());
                    }
                    b.keep();
                    return self.push_value(value, b, true);
                }
                b.push("", true, false)?;
                self.expand_parts(inner, b, true, operand, fds).await
            }
            WordPart::Param(pe) => {
                let value = self.param(pe, quoted, fds).await?;
                self.push_value(value, b, quoted)
            }
            WordPart::CommandSubst(program) | WordPart::Backquote { program, .. } => {
                let text = self.command_subst(program, fds).await?;
                b.push(&text, quoted, !quoted)
            }
            WordPart::Arith(word) => {
                let n = self.arith_word(word, fds).await?;
                b.push(&n.to_string(), quoted, !quoted)
            }
            WordPart::ProcessSubst { output, program } => {
                let path = self.process_subst(*output, program, fds).await?;
                b.push(&path, true, false)
            }
            WordPart::Tilde(user) => {
                let text = self.tilde(user);
                b.push(&text, true, false)
            }
            WordPart::BadSubstitution(text) => {
                Err(ExpandError::Discard(format!("{text}: bad substitution")))
            }
            WordPart::BraceList(_) | WordPart::BraceSeq(_) => {
                let text = super::unparse::word(&Word {
                    parts: vec![part.clone()],
                });
                b.push(&text, quoted, false)
            }
        }
    }

    fn tilde(&self, user: &str) -> String {
        let s = self.state.borrow();
        match user {
            "" => s
                .get("HOME")
                .unwrap_or_else(|| crate::vfs::WORKSPACE.into()),
            "+" => s.get("PWD").unwrap_or_else(|| s.cwd.clone()),
            "-" => s.get("OLDPWD").unwrap_or_else(|| "~-".into()),
            "user" => crate::vfs::WORKSPACE.into(),
            "root" => "/root".into(),
            other => format!("~{other}"),
        }
    }

    /// Evaluates arithmetic text (a word expanded like a double-quoted string).
    pub async fn arith_word(&self, word: &Word, fds: &Fds) -> Expanded<i64> {
        let text = self.expand_arith(word, fds).await?;
        self.arith_text(&text)
    }

    /// Expands arithmetic text, which is read as if double-quoted (`${a[*]}` is joined with
    /// the first character of `IFS`, so `IFS=+; $(( ${a[*]} ))` sums an array).
    pub async fn expand_arith(&self, word: &Word, fds: &Fds) -> Expanded<String> {
        let mut b = Builder::default();
        self.expand_parts(&word.parts, &mut b, true, false, fds)
            .await?;
        let texts: Vec<String> = b.finish().iter().map(Field::text).collect();
        Ok(texts.join(" "))
    }

    /// Evaluates arithmetic text.
    pub fn arith_text(&self, text: &str) -> Expanded<i64> {
        let result = self.state.borrow_mut().eval_arith(text);
        result.map_err(|e| {
            // `set -u` and an unset variable end the shell; other errors, the line.
            if e.expr.is_empty() && e.message.ends_with(": unbound variable") {
                ExpandError::Exit(e.to_string())
            } else {
                ExpandError::Discard(e.to_string())
            }
        })
    }

    /// Runs `$(...)` in a subshell, capturing stdout; trailing newlines removed.
    pub async fn command_subst(
        &self,
        program: &crate::shell::ast::Program,
        fds: &Fds,
    ) -> Expanded<String> {
        if let Some(word) = read_only_redirect(program) {
            return self.read_file_subst(word, fds).await;
        }
        let sub = self.subshell().map_err(ExpandError::Discard)?;
        {
            let mut s = sub.state.borrow_mut();
            s.opts.errexit = false;
            s.xtrace_level += 1;
        }
        let buf = Rc::new(std::cell::RefCell::new(Vec::new()));
        let capture = OutHandle::new(OutKind::Buffer(Rc::clone(&buf)));
        let mut sub_fds = fds.clone();
        sub_fds.set(1, Some(super::io::Fd::Out(Rc::clone(&capture))));
        let flow = sub.run_subshell(program, &sub_fds).await;
        drop(sub_fds);
        let status = flow.status();
        self.state.borrow_mut().subst_status = Some(status);
        if self.world.deadline_hit() {
            return Err(ExpandError::Flow(Flow::Exit(124)));
        }
        if capture.overflowed.get() {
            return Err(ExpandError::Failed(too_large("$(...)")));
        }
        let mut bytes = std::mem::take(&mut *buf.borrow_mut());
        self.drop_nul_bytes(&mut bytes, fds).await;
        // Valid UTF-8 (the usual case) becomes the string without a copy.
        let mut text = crate::shell::bytes::decode_owned(bytes);
        while text.ends_with('\n') {
            text.pop();
        }
        Ok(text)
    }

    /// A captured output loses its NUL bytes, as in bash (which warns): no shell string
    /// holds one.
    async fn drop_nul_bytes(&self, bytes: &mut Vec<u8>, fds: &Fds) {
        if bytes.contains(&0) {
            bytes.retain(|&b| b != 0);
            self.report(
                fds,
                "warning: command substitution: ignored null byte in input",
            )
            .await;
        }
    }

    /// `$(< file)`: the file's contents, trailing newlines removed.
    async fn read_file_subst(&self, word: &Word, fds: &Fds) -> Expanded<String> {
        let path = self.expand_string(word, fds).await?;
        let cwd = self.state.borrow().cwd.clone();
        let read = self
            .world
            .vfs
            .borrow()
            .read(&cwd, &path)
            .map(<[u8]>::to_vec);
        match read {
            Ok(mut bytes) => {
                self.drop_nul_bytes(&mut bytes, fds).await;
                let mut text = crate::shell::bytes::decode_owned(bytes);
                while text.ends_with('\n') {
                    text.pop();
                }
                self.state.borrow_mut().subst_status = Some(0);
                Ok(text)
            }
            Err(e) => {
                self.report(fds, &e.to_string()).await;
                self.state.borrow_mut().subst_status = Some(1);
                Ok(String::new())
            }
        }
    }

    /// `<(cmd)`: runs the command, keeps its output in a temporary file, expands to its path.
    /// `>(cmd)`: expands to the path of an empty temporary file; once the command it is part
    /// of has ended, `cmd` reads what was written there (see `exec::run_pending_outputs`).
    async fn process_subst(
        &self,
        output: bool,
        program: &crate::shell::ast::Program,
        fds: &Fds,
    ) -> Expanded<String> {
        // `<(...)`: what the commands print, now; `>(...)`: nothing yet.
        let text = if output {
            Vec::new()
        } else {
            let sub = self.subshell().map_err(ExpandError::Discard)?;
            let buf = Rc::new(std::cell::RefCell::new(Vec::new()));
            let mut sub_fds = fds.clone();
            sub_fds.set(
                1,
                Some(super::io::Fd::Out(OutHandle::new(OutKind::Buffer(
                    Rc::clone(&buf),
                )))),
            );
            sub.run_list(program, &sub_fds).await;
            let bytes = std::mem::take(&mut *buf.borrow_mut());
            bytes
        };
        let path = self.world.temp_path("psub");
        let written = self.world.vfs.borrow_mut().write("/", &path, &text);
        written.map_err(|e| ExpandError::Failed(e.to_string()))?;
        self.world.temp_files.borrow_mut().push(path.clone());
        if output {
            let pending = super::io::PendingOutput {
                path: path.clone(),
                program: Rc::new(program.clone()),
                fds: fds.clone(),
            };
            self.state.borrow_mut().pending_outputs.push(pending);
        }
        Ok(path)
    }
}

/// The file of `$(< file)`: a program that is one simple command with no words and one `<`.
fn read_only_redirect(program: &crate::shell::ast::Program) -> Option<&Word> {
    use crate::shell::ast::{CommandKind, RedirectKind};
    let [item] = program.items.as_slice() else {
        return None;
    };
    let [command] = item.and_or.first.commands.as_slice() else {
        return None;
    };
    let CommandKind::Simple(simple) = &command.kind else {
        return None;
    };
    let simple_only = item.and_or.rest.is_empty() && !item.and_or.first.negated;
    match command.redirects.as_slice() {
        [r] if simple_only
            && simple.words.is_empty()
            && simple.assignments.is_empty()
            && r.fd.is_none() =>
        {
            match &r.kind {
                RedirectKind::Read(w) => Some(w),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The patterns of a colon-separated list (`GLOBIGNORE`): a `:` inside a bracket expression
/// (`[[:alnum:]]`) or after a backslash does not separate.
fn split_pattern_list(list: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = list.chars().peekable();
    let mut bracket = false;
    while let Some(c) = chars.next() {
        let current = out
            .last_mut()
            .expect("the list always has a current pattern");
        match c {
            ':' if !bracket => {
                out.push(String::new());
                continue;
            }
            '\\' => {
                current.push(c);
                if let Some(next) = chars.next() {
                    current.push(next);
                }
                continue;
            }
            '[' if bracket && chars.peek() == Some(&':') => {
                // A class name `[:alnum:]`, whose colons belong to it.
                current.push(c);
                for d in chars.by_ref() {
                    current.push(d);
                    if d == ']' {
                        break;
                    }
                }
                continue;
            }
            '[' => bracket = true,
            ']' => bracket = false,
            _ => {}
        }
        current.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(pieces: &[(&str, bool, bool)]) -> Field {
        Field {
            pieces: pieces
                .iter()
                .map(|&(t, q, s)| Piece {
                    text: t.into(),
                    quoted: q,
                    split: s,
                })
                .collect(),
            keep: pieces.iter().any(|p| p.1),
        }
    }

    fn split(pieces: &[(&str, bool, bool)], ifs: &str) -> Vec<String> {
        let mut out = Vec::new();
        let split = split_field(field(pieces), ifs, |f| {
            out.push(f.text());
            Ok(())
        });
        assert_eq!(split, Ok(()));
        out
    }

    #[test]
    fn splitting_follows_posix() {
        assert_eq!(split(&[(" a  b ", false, true)], " \t\n"), ["a", "b"]);
        assert_eq!(split(&[(",a,,b,", false, true)], ","), ["", "a", "", "b"]);
        assert_eq!(split(&[("a , b", false, true)], " ,"), ["a", "b"]);
        assert_eq!(
            split(&[("x", false, false), (" a", false, true)], " "),
            ["x", "a"]
        );
        assert_eq!(
            split(&[("", true, false), (" a", false, true)], " "),
            ["", "a"]
        );
        assert_eq!(split(&[("a b", true, false)], " "), ["a b"]);
        assert_eq!(
            split(&[("p", false, true), ("q r", true, false)], " "),
            ["pq r"]
        );
        assert!(split(&[("   ", false, true)], " ").is_empty());
    }
}
