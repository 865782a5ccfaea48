//! `read [-r] [-a array] [-d delim] [-n|-N count] [-p prompt] [-u fd] [name ...]`: read a line
//! and split it on `IFS` into variables (the last one gets the rest). Status 1 at end of
//! input (the variables are still set from what was read).

use super::{Builtin, Ctx};
use crate::shell::interp::io::IS_A_DIRECTORY;
use crate::shell::interp::state::{is_name, Key};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `read`.
pub(crate) const READ: Builtin = Builtin {
    name: "read",
    synopsis: "read [-r] [-a array] [-d delim] [-n count] [-p prompt] [name ...] — read a line into variables (REPLY by default)",
    run,
};

const USAGE: &str = "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]";

#[derive(Default)]
struct Opts {
    raw: bool,
    array: Option<String>,
    delim: Option<u8>,
    count: Option<usize>,
    exact: bool,
    fd: u32,
    /// `-t 0`: only say whether input is there (it always is here: nothing waits on a user).
    poll: bool,
}

fn parse(args: &[String]) -> Result<(Opts, usize), String> {
    let mut o = Opts {
        delim: Some(b'\n'),
        ..Opts::default()
    };
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        let Some(flags) = arg.strip_prefix('-').filter(|f| !f.is_empty()) else {
            break;
        };
        let chars: Vec<char> = flags.chars().collect();
        let mut j = 0;
        while j < chars.len() {
            let c = chars[j];
            j += 1;
            match c {
                'r' => o.raw = true,
                's' | 'e' => {}
                'a' | 'd' | 'n' | 'N' | 'p' | 't' | 'u' | 'i' => {
                    let value: String = if j < chars.len() {
                        let v = chars[j..].iter().collect();
                        j = chars.len();
                        v
                    } else {
                        i += 1;
                        args.get(i)
                            .cloned()
                            .ok_or(format!("-{c}: option requires an argument"))?
                    };
                    match c {
                        'a' => o.array = Some(value),
                        'd' => o.delim = Some(value.bytes().next().unwrap_or(0)),
                        'n' | 'N' => {
                            let n = value
                                .parse()
                                .map_err(|_| format!("{value}: invalid number"))?;
                            o.count = Some(n);
                            o.exact = c == 'N';
                        }
                        't' => {
                            let seconds = value
                                .parse::<f64>()
                                .ok()
                                .filter(|s| *s >= 0.0 && !value.starts_with(['+', '-']))
                                .ok_or(format!("{value}: invalid timeout specification"))?;
                            o.poll = seconds == 0.0;
                        }
                        'u' => {
                            o.fd = value.parse().map_err(|_| {
                                format!("{value}: invalid file descriptor specification")
                            })?
                        }
                        _ => {}
                    }
                }
                c => return Err(format!("-{c}: invalid option")),
            }
        }
        i += 1;
    }
    Ok((o, i))
}

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (opts, start) = match parse(ctx.operands()) {
            Ok(parsed) => parsed,
            // A bad value fails (1); a bad option also shows the usage (2).
            Err(message) if message.contains("specification") || message.ends_with("number") => {
                return ctx.fail(&message, 1).await;
            }
            Err(message) => {
                let flow = ctx.fail(&message, 2).await;
                ctx.fds.eprint(&format!("read: usage: {USAGE}\n")).await;
                return flow;
            }
        };
        let names: Vec<String> = ctx.operands()[start..].to_vec();
        for name in names.iter().chain(opts.array.iter()) {
            if !is_name(name) {
                return ctx
                    .fail(&format!("`{name}': not a valid identifier"), 1)
                    .await;
            }
        }
        let Some(input) = ctx.fds.input(opts.fd).cloned() else {
            return ctx
                .fail(
                    &format!("{}: invalid file descriptor: Bad file descriptor", opts.fd),
                    1,
                )
                .await;
        };
        if opts.poll {
            return Flow::Normal(0);
        }
        let delim = if opts.exact { None } else { opts.delim };
        let (line, complete) = match read_line(&input, delim, opts.count, opts.raw).await {
            Ok(line) => line,
            Err(message) if message == IS_A_DIRECTORY => {
                let message = format!("read error: {}: {message}", opts.fd);
                return ctx.fail(&message, 1).await;
            }
            Err(message) => return ctx.fail(&message, 1).await,
        };
        let ifs = ctx.sh.state.borrow().ifs();
        let result = if let Some(array) = &opts.array {
            let fields = split_all(&line, &ifs);
            let elements = fields
                .into_iter()
                .enumerate()
                .map(|(i, v)| (Some(Key::Index(i as i64)), v))
                .collect();
            ctx.sh
                .state
                .borrow_mut()
                .assign_array(array, elements, false)
        } else if opts.exact && !names.is_empty() {
            // `-N`: the characters read go to the first name whole, unsplit.
            let text = line.text;
            let mut state = ctx.sh.state.borrow_mut();
            let mut result = state.assign(&names[0], text, false);
            for name in &names[1..] {
                result = result.and(state.assign(name, String::new(), false));
            }
            result
        } else if names.is_empty() {
            ctx.sh.state.borrow_mut().assign("REPLY", line.text, false)
        } else {
            let values = split_for(&line, &ifs, names.len());
            let mut result = Ok(());
            for (name, value) in names.iter().zip(values) {
                result = result.and(ctx.sh.state.borrow_mut().assign(name, value, false));
            }
            result
        };
        if let Err(message) = result {
            return ctx.fail(&message, 1).await;
        }
        Flow::Normal(i32::from(!complete))
    })
}

/// A line as `read` with no names reads it into `REPLY` (backslash escapes applied), or
/// None at the end of input: how `select` reads its choice.
pub(crate) async fn read_reply(input: &crate::shell::interp::io::InHandle) -> Option<String> {
    let (line, complete) = read_line(input, Some(b'\n'), None, false).await.ok()?;
    complete.then_some(line.text)
}

/// A line as `read` read it: its text, and a bit per byte of it that marks where a character
/// a backslash escaped begins (IFS never splits there). A flag beside each `char` took 8
/// bytes a character: a 10 MB line needed 80 MB.
#[derive(Default)]
struct Line {
    text: String,
    escaped: Vec<u64>,
    chars: usize,
}

impl Line {
    fn push(&mut self, c: char, escaped: bool) {
        if escaped {
            let at = self.text.len();
            self.escaped.resize(self.escaped.len().max(at / 64 + 1), 0);
            self.escaped[at / 64] |= 1 << (at % 64);
        }
        self.text.push(c);
        self.chars += 1;
    }

    /// The character at byte `pos` if it is before `end`, and whether it was escaped.
    fn at(&self, pos: usize, end: usize) -> Option<(char, bool)> {
        let c = self.text.get(pos..end)?.chars().next()?;
        let escaped = self
            .escaped
            .get(pos / 64)
            .is_some_and(|w| w >> (pos % 64) & 1 == 1);
        Some((c, escaped))
    }

    /// The byte where the character before byte `end` begins.
    fn before(&self, end: usize) -> usize {
        self.text[..end]
            .char_indices()
            .next_back()
            .map_or(0, |(at, _)| at)
    }
}

/// Reads up to the delimiter; backslash escapes (and line continuations) unless `raw`.
/// Returns the line and whether the delimiter (or the count) was reached before the end of
/// input.
async fn read_line(
    input: &crate::shell::interp::io::InHandle,
    delim: Option<u8>,
    count: Option<usize>,
    raw: bool,
) -> Result<(Line, bool), String> {
    let mut out = Line::default();
    // A backslash ended the last chunk: the next character is escaped (`-n` counts
    // characters after escapes, so a chunk may end between the two).
    let mut escaped = false;
    loop {
        let want = count.map(|n| n.saturating_sub(out.chars));
        if want == Some(0) {
            return Ok((out, true));
        }
        let Some(chunk) = input.read_until(delim, want).await? else {
            return Ok((out, false));
        };
        let (text, delimited) = (crate::shell::bytes::decode(&chunk.bytes), chunk.delimited);
        drop(chunk);
        let got = text.chars().count();
        // bash drops NUL bytes from what it reads.
        for c in text.chars().filter(|&c| c != '\0') {
            if escaped {
                escaped = false;
                // A backslash-newline is a line continuation, whatever the delimiter.
                if c != '\n' {
                    out.push(c, true);
                }
            } else if c == '\\' && !raw {
                escaped = true;
            } else {
                out.push(c, false);
            }
        }
        if delimited {
            if escaped && delim == Some(b'\n') {
                // A line continuation: the backslash and the newline vanish.
                escaped = false;
                continue;
            }
            return Ok((out, true));
        }
        if count.is_some_and(|n| out.chars >= n) {
            return Ok((out, true));
        }
        if want.is_none_or(|w| got < w) && !escaped {
            // Short of what was asked: the input ended.
            return Ok((out, false));
        }
    }
}

fn is_sep(c: (char, bool), ifs: &str) -> bool {
    !c.1 && ifs.contains(c.0)
}

fn is_ws_sep(c: (char, bool), ifs: &str) -> bool {
    is_sep(c, ifs) && matches!(c.0, ' ' | '\t' | '\n')
}

/// Moves `pos` past the characters of `line` before `end` that `keep` holds for.
fn skip(line: &Line, pos: &mut usize, end: usize, keep: impl Fn((char, bool)) -> bool) {
    while let Some(c) = line.at(*pos, end).filter(|&c| keep(c)) {
        *pos += c.0.len_utf8();
    }
}

/// One word from `pos` before `end` (bash's `get_word_from_string`): up to a separator, then
/// the separator itself with surrounding IFS whitespace.
fn word(line: &Line, pos: &mut usize, end: usize, ifs: &str) -> String {
    let start = *pos;
    skip(line, pos, end, |c| !is_sep(c, ifs));
    let w = line.text[start..*pos].to_string();
    skip(line, pos, end, |c| is_ws_sep(c, ifs));
    if let Some(c) = line
        .at(*pos, end)
        .filter(|&c| is_sep(c, ifs) && !is_ws_sep(c, ifs))
    {
        *pos += c.0.len_utf8();
        skip(line, pos, end, |c| is_ws_sep(c, ifs));
    }
    w
}

/// Values for `n` variables: one word each, the rest of the line for the last.
fn split_for(line: &Line, ifs: &str, n: usize) -> Vec<String> {
    let len = line.text.len();
    let mut pos = 0;
    skip(line, &mut pos, len, |c| is_ws_sep(c, ifs));
    let mut values = Vec::new();
    for _ in 1..n {
        values.push(word(line, &mut pos, len, ifs));
    }
    let mut end = len;
    while end > pos
        && line
            .at(line.before(end), len)
            .is_some_and(|c| is_ws_sep(c, ifs))
    {
        end = line.before(end);
    }
    let mut p = pos;
    let first = word(line, &mut p, end, ifs);
    let last = if p >= end {
        first
    } else {
        line.text[pos..end].to_string()
    };
    values.push(last);
    values
}

/// Every word, for `read -a`.
fn split_all(line: &Line, ifs: &str) -> Vec<String> {
    let len = line.text.len();
    let mut pos = 0;
    skip(line, &mut pos, len, |c| is_ws_sep(c, ifs));
    let mut out = Vec::new();
    while pos < len {
        out.push(word(line, &mut pos, len, ifs));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(s: &str) -> Line {
        let mut line = Line::default();
        s.chars().for_each(|c| line.push(c, c == 'é'));
        line
    }

    #[test]
    fn splitting_like_bash() {
        assert_eq!(split_for(&chars("1,2,"), ",", 2), ["1", "2"]);
        assert_eq!(split_for(&chars("1,2,3,"), ",", 2), ["1", "2,3,"]);
        assert_eq!(split_for(&chars("  x   y  z  "), " \t\n", 2), ["x", "y  z"]);
        assert_eq!(split_for(&chars("  x  y  "), " \t\n", 1), ["x  y"]);
        assert_eq!(split_for(&chars("a"), " ", 3), ["a", "", ""]);
        assert_eq!(split_all(&chars("p::q"), ":"), ["p", "", "q"]);
        assert_eq!(split_all(&chars(" p q  r"), " "), ["p", "q", "r"]);
        // An escaped character never splits (é stands for one here).
        assert_eq!(split_all(&chars("aébéc"), "é"), ["aébéc"]);
        assert_eq!(split_for(&chars("é a é "), "é ", 2), ["é", "a é"]);
    }
}
