//! `split [-l N | -b SIZE | -C SIZE | -n N] [-d] [-a LEN] [FILE [PREFIX]]`: cut an input
//! into pieces written as files in the VFS (`xaa`, `xab`, ...).

use crate::applets::common::{finish, open, parse_args, parse_size, quote_if_needed};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `split` applet.
pub const APPLET: Applet = Applet {
    name: "split",
    usage: "split [OPTION]... [FILE [PREFIX]]\n  -l, --lines=N          N lines per file (default 1000)\n  -b, --bytes=SIZE       SIZE bytes per file (K, M, G, KB, MB suffixes)\n  -C, --line-bytes=SIZE  at most SIZE bytes of whole lines per file\n  -n, --number=N         N files of (nearly) equal size\n  -a, --suffix-length=N  suffixes of N letters (default 2, growing as needed)\n  -d, --numeric-suffixes numeric suffixes (00, 01, ...)\n  -x, --hex-suffixes     hexadecimal suffixes\n      --additional-suffix=SUFFIX  append SUFFIX to the file names\n  -e, --elide-empty-files  no empty files with -n\n      --verbose          print 'creating file' for each file\nPREFIX defaults to 'x'; FILE '-' or none is stdin.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "dxe",
    short_val: "lbCna",
    long: &[
        "numeric-suffixes",
        "hex-suffixes",
        "elide-empty-files",
        "verbose",
    ],
    long_val: &[
        "lines",
        "bytes",
        "line-bytes",
        "number",
        "suffix-length",
        "additional-suffix",
    ],
    digits: Some('l'),
    stop_at_operand: false,
};

/// How to cut.
#[derive(Clone, Copy)]
enum By {
    Lines(u64),
    Bytes(u64),
    LineBytes(u64),
    Chunks(u64),
}

/// Output file names: PREFIX, a suffix from an alphabet, and the extra suffix. Without an
/// explicit length the suffix grows like GNU's (`xyz` is followed by `xzaaa`).
struct Names {
    prefix: String,
    alphabet: &'static [u8],
    digits: Vec<usize>,
    auto: bool,
    extra: String,
    started: bool,
}

impl Names {
    /// The next name, or None when the suffixes are exhausted.
    fn next(&mut self) -> Option<String> {
        if self.started && !self.increment() {
            return None;
        }
        self.started = true;
        let suffix: String = self
            .digits
            .iter()
            .map(|&d| char::from(self.alphabet[d]))
            .collect();
        Some(format!("{}{suffix}{}", self.prefix, self.extra))
    }

    fn increment(&mut self) -> bool {
        let base = self.alphabet.len();
        let mut i = self.digits.len();
        loop {
            if i == 0 {
                return false;
            }
            i -= 1;
            self.digits[i] += 1;
            if self.digits[i] < base {
                break;
            }
            self.digits[i] = 0;
        }
        if self.auto && self.digits[0] == base - 1 {
            // The first character reached the last letter: keep it, widen the rest.
            self.prefix.push(char::from(self.alphabet[base - 1]));
            self.digits = vec![0; self.digits.len() + 1];
        }
        true
    }
}

/// The file being written, buffered so the VFS sees few large appends.
struct Writer {
    names: Names,
    current: Option<String>,
    buf: Vec<u8>,
    verbose: bool,
    out: String,
}

const FLUSH_AT: usize = 64 * 1024;

impl Writer {
    /// Starts the next file (created empty at once, as GNU does).
    fn start(&mut self, ctx: &Ctx) -> Result<(), String> {
        self.flush(ctx)?;
        let name = self
            .names
            .next()
            .ok_or_else(|| "output file suffixes exhausted".to_string())?;
        ctx.vfs
            .borrow_mut()
            .write(&ctx.cwd, &name, b"")
            .map_err(|e| format!("{}: {}", quote_if_needed(&name), e.code.description()))?;
        if self.verbose {
            self.out.push_str(&format!("creating file '{name}'\n"));
        }
        self.current = Some(name);
        Ok(())
    }

    fn write(&mut self, ctx: &Ctx, data: &[u8]) -> Result<(), String> {
        self.buf.extend_from_slice(data);
        if self.buf.len() >= FLUSH_AT {
            self.flush(ctx)?;
        }
        Ok(())
    }

    fn flush(&mut self, ctx: &Ctx) -> Result<(), String> {
        let Some(name) = &self.current else {
            return Ok(());
        };
        if self.buf.is_empty() {
            return Ok(());
        }
        let appended = ctx.vfs.borrow_mut().append(&ctx.cwd, name, &self.buf);
        self.buf.clear();
        appended.map_err(|e| format!("{}: {}", quote_if_needed(name), e.code.description()))
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
    let mut by = By::Lines(1000);
    let (mut length, mut alphabet, mut extra) = (None, &b"abcdefghijklmnopqrstuvwxyz"[..], "");
    let (mut elide, mut verbose) = (false, false);
    for opt in &opts {
        let value = opt.value();
        let count = |what: &str| {
            parse_size(value)
                .filter(|&n| n > 0)
                .ok_or_else(|| invalid_count(what, value))
        };
        let parsed = if opt.is('l', "lines") {
            count("lines").map(|n| by = By::Lines(n))
        } else if opt.is('b', "bytes") {
            count("bytes").map(|n| by = By::Bytes(n))
        } else if opt.is('C', "line-bytes") {
            count("bytes").map(|n| by = By::LineBytes(n))
        } else if opt.is('n', "number") {
            count("chunks").map(|n| by = By::Chunks(n))
        } else if opt.is('a', "suffix-length") {
            value
                .parse::<usize>()
                .map(|n| length = Some(n.max(1)))
                .map_err(|_| format!("invalid suffix length: '{value}'"))
        } else {
            if opt.is('d', "numeric-suffixes") {
                alphabet = b"0123456789";
            } else if opt.is('x', "hex-suffixes") {
                alphabet = b"0123456789abcdef";
            } else if opt.is('e', "elide-empty-files") {
                elide = true;
            } else if opt.is('\0', "verbose") {
                verbose = true;
            } else if opt.is('\0', "additional-suffix") {
                extra = value;
            }
            Ok(())
        };
        if let Err(message) = parsed {
            warn(&mut ctx, message).await;
            return 1;
        }
    }
    if operands.len() > 2 {
        let message = format!("extra operand '{}'", operands[2]);
        return usage_error(&mut ctx, message, 1).await;
    }
    let path = operands.first().map_or("-", String::as_str).to_string();
    let prefix = operands.get(1).map_or("x", String::as_str).to_string();
    let mut writer = Writer {
        names: Names {
            prefix,
            alphabet,
            digits: vec![0; length.unwrap_or(2)],
            auto: length.is_none(),
            extra: extra.to_string(),
            started: false,
        },
        current: None,
        buf: Vec::new(),
        verbose,
        out: String::new(),
    };
    let mut input = match open(&mut ctx, &path) {
        Ok(input) => input,
        Err(e) => {
            let message = format!("cannot open '{path}' for reading: {}", e.reason);
            warn(&mut ctx, message).await;
            return 1;
        }
    };
    let mut cutter = Cutter::new(by);
    let mut result = Ok(());
    if let By::Chunks(n) = by {
        let data = input.read_all().await;
        result = by_chunks(&ctx, &mut writer, &data, n, elide);
    } else {
        while let Some(chunk) = input.read_chunk().await {
            result = cutter.feed(&ctx, &mut writer, &chunk);
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result = cutter.finish(&ctx, &mut writer);
        }
    }
    let result = result.and_then(|()| writer.flush(&ctx));
    let shown = std::mem::take(&mut writer.out);
    let written = ctx.stdout.write_str(&shown).await;
    if let Err(message) = result {
        warn(&mut ctx, message).await;
        return finish(&mut ctx, written.map(|()| 1)).await;
    }
    finish(&mut ctx, written.map(|()| 0)).await
}

fn invalid_count(what: &str, value: &str) -> String {
    if value.bytes().all(|b| b.is_ascii_digit()) && !value.is_empty() {
        format!("invalid number of {what}: '{value}': Numerical result out of range")
    } else {
        format!("invalid number of {what}: '{value}'")
    }
}

/// Streaming state of a cut by lines, bytes or line-bytes.
struct Cutter {
    by: By,
    /// Lines or bytes in the current file (starts "full", so the first byte opens a file).
    used: u64,
    /// `-C`: the line being assembled across chunks.
    line: Vec<u8>,
}

impl Cutter {
    fn new(by: By) -> Self {
        let used = match by {
            By::Lines(n) | By::Bytes(n) | By::LineBytes(n) | By::Chunks(n) => n,
        };
        Cutter {
            by,
            used,
            line: Vec::new(),
        }
    }

    fn feed(&mut self, ctx: &Ctx, w: &mut Writer, chunk: &[u8]) -> Result<(), String> {
        match self.by {
            By::Lines(n) => self.lines(ctx, w, chunk, n),
            By::Bytes(n) => self.bytes(ctx, w, chunk, n),
            By::LineBytes(n) => {
                let mut start = 0;
                while let Some(at) = chunk[start..].iter().position(|&b| b == b'\n') {
                    self.line.extend_from_slice(&chunk[start..start + at + 1]);
                    let line = std::mem::take(&mut self.line);
                    self.whole_line(ctx, w, &line, n)?;
                    start += at + 1;
                }
                self.line.extend_from_slice(&chunk[start..]);
                Ok(())
            }
            By::Chunks(_) => Ok(()),
        }
    }

    fn finish(&mut self, ctx: &Ctx, w: &mut Writer) -> Result<(), String> {
        match self.by {
            By::LineBytes(n) if !self.line.is_empty() => {
                let line = std::mem::take(&mut self.line);
                self.whole_line(ctx, w, &line, n)
            }
            _ => Ok(()),
        }
    }

    fn lines(&mut self, ctx: &Ctx, w: &mut Writer, chunk: &[u8], n: u64) -> Result<(), String> {
        let mut start = 0;
        while start < chunk.len() {
            let (end, complete) = match chunk[start..].iter().position(|&b| b == b'\n') {
                Some(at) => (start + at + 1, true),
                None => (chunk.len(), false),
            };
            if self.used == n {
                w.start(ctx)?;
                self.used = 0;
            }
            w.write(ctx, &chunk[start..end])?;
            // A line cut by the chunk boundary continues in this file.
            self.used += u64::from(complete);
            start = end;
        }
        Ok(())
    }

    fn bytes(&mut self, ctx: &Ctx, w: &mut Writer, mut chunk: &[u8], n: u64) -> Result<(), String> {
        while !chunk.is_empty() {
            if self.used == n {
                w.start(ctx)?;
                self.used = 0;
            }
            let room = usize::try_from(n - self.used).unwrap_or(usize::MAX);
            let take = room.min(chunk.len());
            w.write(ctx, &chunk[..take])?;
            self.used += take as u64;
            chunk = &chunk[take..];
        }
        Ok(())
    }

    /// `-C`: whole lines while they fit; a longer line is cut into `n`-byte pieces.
    fn whole_line(&mut self, ctx: &Ctx, w: &mut Writer, line: &[u8], n: u64) -> Result<(), String> {
        let len = line.len() as u64;
        if self.used + len <= n {
            self.used += len;
            return w.write(ctx, line);
        }
        if len <= n {
            w.start(ctx)?;
            self.used = len;
            return w.write(ctx, line);
        }
        let size = usize::try_from(n).unwrap_or(usize::MAX);
        for piece in line.chunks(size) {
            w.start(ctx)?;
            w.write(ctx, piece)?;
            self.used = piece.len() as u64;
        }
        Ok(())
    }
}

/// `n` files: the first ones `len / n` bytes each (at least 1), the last the rest.
fn by_chunks(ctx: &Ctx, w: &mut Writer, data: &[u8], n: u64, elide: bool) -> Result<(), String> {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    let size = (data.len() / n).max(1);
    let mut start = 0;
    for i in 0..n {
        let end = if i + 1 == n {
            data.len()
        } else {
            (start + size).min(data.len())
        };
        if !(elide && start == end) {
            w.start(ctx)?;
            w.write(ctx, &data[start..end])?;
        }
        start = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::rc::Rc;

    use crate::applets::testing::{ok, run_in, vfs_with, Outcome};
    use crate::vfs::Vfs;

    /// Every file in the working directory but `input`, as "name:contents" lines.
    fn files(vfs: &Rc<RefCell<Vfs>>) -> String {
        let vfs = vfs.borrow();
        let entries = vfs.read_dir("/workspace", ".").unwrap_or_default();
        let mut out = String::new();
        for (name, _) in entries.iter().filter(|(n, _)| n != "input") {
            let data = vfs.read("/workspace", name).unwrap_or_default();
            out.push_str(&format!("{name}:{}|", String::from_utf8_lossy(data)));
        }
        out
    }

    /// Runs split with stdin `input`; the files it made.
    fn split(args: &[&str], input: &str) -> String {
        let vfs = vfs_with(&[("input", input)]);
        let out = run_in(&vfs, "split", args, input);
        assert_eq!(out.status, 0, "{out:?}");
        files(&vfs)
    }

    #[test]
    fn split_cases() {
        let five = "1\n2\n3\n4\n5\n";
        assert_eq!(split(&["-l", "2"], five), "xaa:1\n2\n|xab:3\n4\n|xac:5\n|");
        assert_eq!(
            split(&["-l", "2", "-d", "-", "pre"], five),
            "pre00:1\n2\n|pre01:3\n4\n|pre02:5\n|"
        );
        assert_eq!(
            split(&["-2", "input", "p."], five),
            "p.aa:1\n2\n|p.ab:3\n4\n|p.ac:5\n|"
        );
        assert_eq!(
            split(&["-b", "4", "-a", "3"], "abcdefghij"),
            "xaaa:abcd|xaab:efgh|xaac:ij|"
        );
        assert_eq!(
            split(&["-l1", "--additional-suffix=.txt"], "a\nb\n"),
            "xaa.txt:a\n|xab.txt:b\n|"
        );
        assert_eq!(
            split(&["-C", "4"], "ab\nccccccc\nd\n"),
            "xaa:ab\n|xab:cccc|xac:ccc\n|xad:d\n|"
        );
        assert_eq!(
            split(&["-n", "3", "input"], "abcdefghij"),
            "xaa:abc|xab:def|xac:ghij|"
        );
        assert_eq!(split(&["-n", "4", "-e", "input"], "ab"), "xaa:a|xab:b|");
        assert_eq!(split(&["-n", "4", "input"], "ab"), "xaa:a|xab:b|xac:|xad:|");
        assert_eq!(
            split(&["-n", "3", "input"], "abcde"),
            "xaa:a|xab:b|xac:cde|"
        );
        assert_eq!(split(&["-b", "1K"], "abc"), "xaa:abc|");
        assert_eq!(split(&[], ""), "");
        assert_eq!(
            split(&["-l", "2", "-x"], "1\n2\n3\n"),
            "x00:1\n2\n|x01:3\n|"
        );
        assert_eq!(
            split(&["-b", "2", "-x", "-a", "1"], &"z".repeat(32))
                .matches('|')
                .count(),
            16
        );
    }

    #[test]
    fn split_names_grow_and_run_out() {
        let lines: String = (1..=700).map(|i| format!("{i}\n")).collect();
        let made = split(&["-l", "1"], &lines);
        assert_eq!(made.matches('|').count(), 700);
        assert!(made.contains("xyz:650\n|xzaaa:651\n|"));
        assert!(made.ends_with("xzabx:700\n|"));
        let vfs = vfs_with(&[]);
        let sixty: String = (1..=60).map(|i| format!("{i}\n")).collect();
        let out = run_in(&vfs, "split", &["-l", "2", "-a", "1"], &sixty);
        assert_eq!(
            out,
            Outcome {
                stdout: String::new(),
                stderr: "split: output file suffixes exhausted\n".into(),
                status: 1
            }
        );
        assert_eq!(files(&vfs).matches('|').count(), 26);
    }

    #[test]
    fn split_errors_and_verbose() {
        let vfs = vfs_with(&[]);
        assert_eq!(
            run_in(&vfs, "split", &["--verbose", "-l", "3"], "1\n2\n3\n4\n"),
            ok("creating file 'xaa'\ncreating file 'xab'\n")
        );
        assert_eq!(
            run_in(&vfs, "split", &["missing"], "").stderr,
            "split: cannot open 'missing' for reading: No such file or directory\n"
        );
        assert_eq!(
            run_in(&vfs, "split", &["-l", "0"], "").stderr,
            "split: invalid number of lines: '0': Numerical result out of range\n"
        );
        assert_eq!(
            run_in(&vfs, "split", &["-b", "1x"], "").stderr,
            "split: invalid number of bytes: '1x'\n"
        );
        assert_eq!(run_in(&vfs, "split", &["a", "b", "c"], "").status, 1);
        assert_eq!(run_in(&vfs, "split", &["-q"], "").status, 1);
        assert_eq!(
            run_in(&vfs, "split", &["-l", "1", "-", "nodir/p"], "x\n").stderr,
            "split: nodir/paa: No such file or directory\n"
        );
    }
}
