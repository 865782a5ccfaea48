//! `wc [-clmwL] [FILE]...`: count lines, words, characters, bytes and the longest line.

use crate::applets::common::{finish, open, parse_args, quote_if_needed};
use crate::applets::common::{warn, OptSpec};
use crate::applets::text::width::{char_width, is_unicode_space};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture, WriteError};

/// The `wc` applet.
pub const APPLET: Applet = Applet {
    name: "wc",
    usage: "wc [OPTION]... [FILE]...\n  -l, --lines            newline counts\n  -w, --words            word counts\n  -m, --chars            character counts (UTF-8)\n  -c, --bytes            byte counts\n  -L, --max-line-length  the widest line's display width\nWith no option: -l -w -c. A total line follows when there are several files.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "clmwL",
    short_val: "",
    long: &["bytes", "chars", "lines", "words", "max-line-length"],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

/// Which counts to print, in GNU's column order.
#[derive(Clone, Copy, Default)]
struct Which {
    lines: bool,
    words: bool,
    chars: bool,
    bytes: bool,
    max: bool,
}

impl Which {
    fn how_many(self) -> usize {
        [self.lines, self.words, self.chars, self.bytes, self.max]
            .iter()
            .filter(|&&on| on)
            .count()
    }

    /// Only lines and bytes: no need to decode characters.
    fn simple(self) -> bool {
        !(self.words || self.chars || self.max)
    }
}

/// The counts of one input (or the total).
#[derive(Clone, Copy, Default)]
struct Counts {
    lines: u64,
    words: u64,
    chars: u64,
    bytes: u64,
    max: u64,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.lines += other.lines;
        self.words += other.words;
        self.chars += other.chars;
        self.bytes += other.bytes;
        self.max = self.max.max(other.max);
    }

    fn render(&self, which: Which, width: usize, name: Option<&str>) -> String {
        let fields = [
            (which.lines, self.lines),
            (which.words, self.words),
            (which.chars, self.chars),
            (which.bytes, self.bytes),
            (which.max, self.max),
        ];
        let mut out: Vec<String> = fields
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| format!("{n:>width$}"))
            .collect();
        if let Some(name) = name {
            out.push(name.to_string());
        }
        let mut line = out.join(" ");
        line.push('\n');
        line
    }
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let mut which = Which::default();
    for opt in &opts {
        if opt.is('l', "lines") {
            which.lines = true;
        } else if opt.is('w', "words") {
            which.words = true;
        } else if opt.is('m', "chars") {
            which.chars = true;
        } else if opt.is('c', "bytes") {
            which.bytes = true;
        } else if opt.is('L', "max-line-length") {
            which.max = true;
        }
    }
    if which.how_many() == 0 {
        (which.lines, which.words, which.bytes) = (true, true, true);
    }
    let result = count_all(&mut ctx, &operands, which).await;
    finish(&mut ctx, result).await
}

/// GNU's column width: the digits of the regular files' total size, at least 7 when an
/// input is not a regular file (stdin, a directory), and none for one count of one input.
fn column_width(ctx: &Ctx, operands: &[String], which: Which) -> usize {
    if operands.len() <= 1 && which.how_many() == 1 {
        return 1;
    }
    if operands.is_empty() {
        return 7;
    }
    let vfs = ctx.vfs.borrow();
    let mut minimum = 1;
    let mut total = 0u64;
    for path in operands {
        if path == "-" {
            minimum = 7;
            continue;
        }
        match vfs.stat(&ctx.cwd, path) {
            Ok(stat) if stat.kind == crate::vfs::FileKind::File => total += stat.size,
            Ok(_) => minimum = 7,
            Err(_) => {}
        }
    }
    total.to_string().len().max(minimum)
}

async fn count_all(ctx: &mut Ctx, operands: &[String], which: Which) -> Result<i32, WriteError> {
    let width = column_width(ctx, operands, which);
    if operands.is_empty() {
        let input = std::mem::replace(&mut ctx.stdin, Input::empty());
        let counts = count(input, which).await;
        ctx.stdout
            .write_str(&counts.render(which, width, None))
            .await?;
        return Ok(0);
    }
    let mut status = 0;
    let mut total = Counts::default();
    for path in operands {
        let counts = match open(ctx, path) {
            Ok(input) => count(input, which).await,
            Err(e) => {
                warn(ctx, format!("{}: {}", quote_if_needed(path), e.reason)).await;
                status = 1;
                if !e.is_dir {
                    continue;
                }
                Counts::default()
            }
        };
        total.add(&counts);
        let line = counts.render(which, width, Some(path));
        ctx.stdout.write_str(&line).await?;
    }
    if operands.len() > 1 {
        let line = total.render(which, width, Some("total"));
        ctx.stdout.write_str(&line).await?;
    }
    Ok(status)
}

async fn count(mut input: Input, which: Which) -> Counts {
    let mut counts = Counts::default();
    if which.simple() {
        while let Some(chunk) = input.read_chunk().await {
            counts.bytes += chunk.len() as u64;
            counts.lines += chunk.iter().filter(|&&b| b == b'\n').count() as u64;
        }
        return counts;
    }
    let mut scanner = Scanner::default();
    let mut carry: Vec<u8> = Vec::new();
    while let Some(chunk) = input.read_chunk().await {
        counts.bytes += chunk.len() as u64;
        carry.extend_from_slice(&chunk);
        let used = scanner.scan(&carry, &mut counts, false);
        carry.drain(..used);
    }
    scanner.scan(&carry, &mut counts, true);
    scanner.end_line(&mut counts);
    counts.words += u64::from(scanner.in_word);
    counts
}

/// The character-level state carried across chunks.
#[derive(Default)]
struct Scanner {
    in_word: bool,
    column: u64,
}

impl Scanner {
    /// Scans `data`; returns how many bytes were consumed (an incomplete UTF-8 sequence at
    /// the end waits for the next chunk unless `last`).
    fn scan(&mut self, data: &[u8], counts: &mut Counts, last: bool) -> usize {
        let mut at = 0;
        while at < data.len() {
            let b = data[at];
            if b < 0x80 {
                self.ascii(b, counts);
                at += 1;
                continue;
            }
            match decode(&data[at..]) {
                Decoded::Char(c, len) => {
                    counts.chars += 1;
                    self.wide(c, counts);
                    at += len;
                }
                Decoded::Incomplete if !last => return at,
                // Invalid bytes count as bytes only, and neither start nor end a word.
                Decoded::Incomplete | Decoded::Invalid => at += 1,
            }
        }
        at
    }

    fn ascii(&mut self, b: u8, counts: &mut Counts) {
        counts.chars += 1;
        match b {
            b'\n' => {
                counts.lines += 1;
                self.end_line(counts);
                self.separator(counts);
            }
            b'\r' | b'\x0c' => {
                self.end_line(counts);
                self.separator(counts);
            }
            b'\t' => {
                self.column += 8 - self.column % 8;
                self.separator(counts);
            }
            b' ' => {
                self.column += 1;
                self.separator(counts);
            }
            b'\x0b' => self.separator(counts),
            0x21..=0x7e => {
                self.column += 1;
                self.in_word = true;
            }
            _ => {}
        }
    }

    fn wide(&mut self, c: char, counts: &mut Counts) {
        if c.is_control() {
            return;
        }
        self.column += char_width(c) as u64;
        if is_unicode_space(c) {
            self.separator(counts);
        } else {
            self.in_word = true;
        }
    }

    fn separator(&mut self, counts: &mut Counts) {
        counts.words += u64::from(self.in_word);
        self.in_word = false;
    }

    fn end_line(&mut self, counts: &mut Counts) {
        counts.max = counts.max.max(self.column);
        self.column = 0;
    }
}

enum Decoded {
    Char(char, usize),
    Incomplete,
    Invalid,
}

/// Decodes one UTF-8 sequence at the start of `data` (which starts with a non-ASCII byte).
fn decode(data: &[u8]) -> Decoded {
    let len = match data[0] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Decoded::Invalid,
    };
    if data.len() < len {
        let continuation = data[1..].iter().all(|&b| b & 0xc0 == 0x80);
        return if continuation {
            Decoded::Incomplete
        } else {
            Decoded::Invalid
        };
    }
    match std::str::from_utf8(&data[..len]) {
        Ok(text) => text
            .chars()
            .next()
            .map_or(Decoded::Invalid, |c| Decoded::Char(c, len)),
        Err(_) => Decoded::Invalid,
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "wc",
        files: &[
            ("a", "1\n2\n3\n"),
            ("b", "x\ny"),
            ("c", "hello world\nfoo\n"),
            ("d/e", "in a directory\n"),
        ],
        ok: &[
            (&["-l", "a", "-", "b"], "x\ny\n", "      3 a\n      2 -\n      1 b\n      6 total\n"),
            (&["-c", "a", "b"], "", "6 a\n3 b\n9 total\n"),
            (&["-lc"], "", "      0       0\n"),
            (&["a", "b", "c"], "", " 3  3  6 a\n 1  2  3 b\n 2  3 16 c\n 6  8 25 total\n"),
            (&[], "hello world\nfoo\n", "      2       3      16\n"),
            (&["-l"], "a\nb\n", "2\n"),
            (&["-c"], "abc", "3\n"),
            (&["-l", "c"], "", "2 c\n"),
            (&["-lw", "c"], "", " 2  3 c\n"),
            (&["a", "-"], "hello world\nfoo\n", "      3       3       6 a\n      2       3      16 -\n      5       6      22 total\n"),
            (&["-m", "-c", "c"], "", "16 16 c\n"),
            (&["-w"], "a\u{1}b \u{1} c", "2\n"),
            (&["-m"], "é\u{e9}x", "3\n"),
            (&["-L"], "a\tb\n日本\n", "9\n"),
            (&["-L"], "ab\r\n", "2\n"),
            (&["-L", "a", "b"], "", "1 a\n1 b\n1 total\n"),
            (&["-w"], "a\u{2003}b c\u{3000}d", "4\n"),
            (&["-wL"], "x\u{200b}y", "      1       2\n"),
            (&["-L"], "a\u{e9}\u{301}b\n", "3\n"),
            (&["--lines", "--words"], "one two\nthree", "      1       3\n"),
            (&["-cmlwL"], "héllo\n", "      1       1       6       7       5\n"),
            (&[], "", "      0       0       0\n"),
            (&["-w"], "  lead  and trail  \n\n", "3\n"),
        ],
        err: &[
            (&["missing", "a"], "", "3 3 6 a\n3 3 6 total\n", "wc: missing: No such file or directory\n", 1),
            (&["-l", "a", "d"], "", "      3 a\n      0 d\n      3 total\n", "wc: d: Is a directory\n", 1),
            (&["-c", "d"], "", "0 d\n", "wc: d: Is a directory\n", 1),
            (&["-x"], "", "", "wc: invalid option -- 'x'\nTry 'wc --help' for more information.\n", 1),
        ],
    };

    #[test]
    fn cases() {
        TABLE.check();
    }

    #[test]
    #[ignore = "compares the tables with the real GNU tools"]
    fn gnu() {
        TABLE.check_gnu();
    }

    #[test]
    fn utf8_split_across_chunks_counts_once() {
        let text = "é".repeat(70_000);
        let out = crate::applets::testing::run("wc", &["-m"], &text);
        assert_eq!(out.stdout, "70000\n");
    }
}
