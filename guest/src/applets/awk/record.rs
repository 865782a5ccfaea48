//! Records and fields: reading records by RS (newline, one character, paragraph mode, or a
//! regex) from a streamed input, and splitting them by FS (blanks, one character, a regex, or
//! every character) into byte ranges without allocating per field.

use std::rc::Rc;

use super::chars;
use super::ere::{self, Ere};
use crate::applets::grep::bytes::memchr;
use crate::task::Input;

/// How a record splits into fields.
#[derive(Clone, Debug)]
pub enum FieldSep {
    /// FS = " ": runs of blanks and newlines; leading and trailing ones ignored.
    Space,
    /// A single byte (FS = ",", "\t", "|"...), taken literally.
    Byte(u8),
    /// A single multibyte character, taken literally.
    Literal(Vec<u8>),
    /// A regex (any FS longer than one character).
    Regex(Rc<Ere>),
    /// FS = "": every character is a field.
    Chars,
    /// FPAT: the fields are the matches of a regex.
    Pattern(Rc<Ere>),
}

impl FieldSep {
    /// The separator FS (or a `split` separator string) stands for; in paragraph mode
    /// (RS = "") newlines separate fields too.
    pub fn new(fs: &[u8], ignore_case: bool, paragraph: bool) -> Result<FieldSep, String> {
        let single = !fs.is_empty() && chars::len_at(fs, 0) == fs.len();
        let sep = match fs {
            b" " => FieldSep::Space,
            b"" => FieldSep::Chars,
            [b] if !(ignore_case && b.is_ascii_alphabetic()) && *b != b'\\' => FieldSep::Byte(*b),
            _ if single && fs[0] >= 0x80 => FieldSep::Literal(fs.to_vec()),
            _ => {
                let pattern: Vec<u8> = if fs.len() == 1 {
                    // One character that is special in a regex (`\`, or a letter when
                    // ignoring case) still means itself.
                    let mut p = b"[".to_vec();
                    p.extend_from_slice(if fs == b"\\" { b"\\\\" } else { fs });
                    p.push(b']');
                    p
                } else {
                    fs.to_vec()
                };
                FieldSep::Regex(Rc::new(ere::compile(&pattern, ignore_case)?))
            }
        };
        if !paragraph {
            return Ok(sep);
        }
        Ok(match sep {
            FieldSep::Space | FieldSep::Chars => sep,
            FieldSep::Byte(b'\n') => sep,
            FieldSep::Byte(b) => FieldSep::Regex(Rc::new(ere::compile(
                &[b"[\n".as_slice(), &escape_in_class(b), b"]"].concat(),
                ignore_case,
            )?)),
            FieldSep::Literal(text) => {
                let mut p = text;
                p.extend_from_slice(b"|\n");
                FieldSep::Regex(Rc::new(ere::compile(&p, ignore_case)?))
            }
            FieldSep::Pattern(_) => sep,
            FieldSep::Regex(_) => {
                let mut p = b"(".to_vec();
                p.extend_from_slice(fs);
                p.extend_from_slice(b")|\n");
                FieldSep::Regex(Rc::new(ere::compile(&p, ignore_case)?))
            }
        })
    }
}

fn escape_in_class(b: u8) -> Vec<u8> {
    match b {
        b'\\' | b']' | b'^' | b'-' | b'[' => vec![b'\\', b],
        _ => vec![b],
    }
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n'
}

/// Splits `text` by `sep` into byte ranges appended to `out`.
pub fn split(text: &[u8], sep: &FieldSep, out: &mut Vec<(u32, u32)>) {
    if text.is_empty() {
        return;
    }
    match sep {
        FieldSep::Space => split_space(text, out),
        FieldSep::Byte(b) => split_byte(text, *b, out),
        FieldSep::Literal(lit) => split_literal(text, lit, out),
        FieldSep::Regex(re) => split_regex(text, re, out),
        FieldSep::Pattern(re) => split_pattern(text, re, out),
        FieldSep::Chars => {
            let mut at = 0;
            while at < text.len() {
                let len = chars::len_at(text, at);
                out.push((at as u32, (at + len) as u32));
                at += len;
            }
        }
    }
}

fn split_space(text: &[u8], out: &mut Vec<(u32, u32)>) {
    let mut i = 0;
    let n = text.len();
    loop {
        while i < n && is_space(text[i]) {
            i += 1;
        }
        if i >= n {
            return;
        }
        let start = i;
        while i < n && !is_space(text[i]) {
            i += 1;
        }
        out.push((start as u32, i as u32));
    }
}

fn split_byte(text: &[u8], sep: u8, out: &mut Vec<(u32, u32)>) {
    let mut start = 0;
    for (i, &b) in text.iter().enumerate() {
        if b == sep {
            out.push((start as u32, i as u32));
            start = i + 1;
        }
    }
    out.push((start as u32, text.len() as u32));
}

fn split_literal(text: &[u8], lit: &[u8], out: &mut Vec<(u32, u32)>) {
    let mut start = 0;
    let mut i = 0;
    while i + lit.len() <= text.len() {
        if &text[i..i + lit.len()] == lit {
            out.push((start as u32, i as u32));
            i += lit.len();
            start = i;
        } else {
            i += 1;
        }
    }
    out.push((start as u32, text.len() as u32));
}

fn split_regex(text: &[u8], re: &Ere, out: &mut Vec<(u32, u32)>) {
    let mut start = 0;
    let mut pos = 0;
    while pos < text.len() {
        let Some((a, b)) = re.find_at(text, pos) else {
            break;
        };
        if a == b {
            // An empty match separates nothing.
            pos = a + chars::len_at(text, a);
            continue;
        }
        out.push((start as u32, a as u32));
        start = b;
        pos = b;
    }
    out.push((start as u32, text.len() as u32));
}

/// FPAT splitting: each match is a field; an empty match right after a field is not one.
fn split_pattern(text: &[u8], re: &Ere, out: &mut Vec<(u32, u32)>) {
    let mut pos = 0;
    let mut last_end = None;
    while pos <= text.len() {
        let Some((a, b)) = re.find_at(text, pos) else {
            break;
        };
        if a == b && last_end == Some(a) {
            pos = a + chars::len_at(text, a);
            continue;
        }
        out.push((a as u32, b as u32));
        last_end = Some(b);
        pos = if a == b {
            b + chars::len_at(text, b)
        } else {
            b
        };
    }
}

/// How the input splits into records.
#[derive(Clone, Debug)]
pub enum RecSep {
    /// A single byte (newline by default).
    Byte(u8),
    /// RS = "": records separated by blank lines.
    Paragraph,
    /// A regex (any RS longer than one character).
    Regex(Rc<Ere>),
}

impl RecSep {
    /// The separator RS stands for.
    pub fn new(rs: &[u8], ignore_case: bool) -> Result<RecSep, String> {
        Ok(match rs {
            b"" => RecSep::Paragraph,
            [b] => RecSep::Byte(*b),
            _ => RecSep::Regex(Rc::new(ere::compile(rs, ignore_case)?)),
        })
    }
}

/// Reads records from an input, buffering only what a record needs.
pub struct Reader {
    input: Input,
    buf: Vec<u8>,
    pos: usize,
    eof: bool,
}

impl Reader {
    /// A reader over `input`.
    pub fn new(input: Input) -> Self {
        Reader {
            input,
            buf: Vec::new(),
            pos: 0,
            eof: false,
        }
    }

    /// Reads more input into the buffer; false at the end.
    async fn fill(&mut self) -> bool {
        if self.eof {
            return false;
        }
        if self.pos > 0 && self.pos * 2 >= self.buf.len() {
            self.buf.drain(..self.pos);
            self.pos = 0;
        }
        match self.input.read_chunk().await {
            // Only a record still unfinished is held: RS="" or RS="^$" (the whole input)
            // stop at the same limit as a line.
            Some(chunk)
                if !self
                    .input
                    .past_limit(self.buf.len() - self.pos, &mut self.buf) =>
            {
                self.buf.extend_from_slice(&chunk);
                true
            }
            _ => {
                self.pos = self.pos.min(self.buf.len());
                self.eof = true;
                false
            }
        }
    }

    /// The next record into `rec` and its terminator into `rt`; false at the end.
    pub async fn next(&mut self, rs: &RecSep, rec: &mut Vec<u8>, rt: &mut Vec<u8>) -> bool {
        rec.clear();
        rt.clear();
        match rs {
            RecSep::Byte(b) => self.next_byte(*b, rec, rt).await,
            RecSep::Paragraph => self.next_paragraph(rec, rt).await,
            RecSep::Regex(re) => self.next_regex(re, rec, rt).await,
        }
    }

    async fn next_byte(&mut self, sep: u8, rec: &mut Vec<u8>, rt: &mut Vec<u8>) -> bool {
        let mut scanned = self.pos;
        loop {
            if let Some(at) = memchr(sep, &self.buf[scanned..]) {
                let end = scanned + at;
                rec.extend_from_slice(&self.buf[self.pos..end]);
                rt.push(sep);
                self.pos = end + 1;
                return true;
            }
            let seen = self.buf.len() - self.pos;
            if !self.fill().await {
                return self.rest(rec);
            }
            scanned = self.pos + seen;
        }
    }

    /// The unterminated last record, if any.
    fn rest(&mut self, rec: &mut Vec<u8>) -> bool {
        if self.pos >= self.buf.len() {
            return false;
        }
        rec.extend_from_slice(&self.buf[self.pos..]);
        self.pos = self.buf.len();
        true
    }

    async fn next_paragraph(&mut self, rec: &mut Vec<u8>, rt: &mut Vec<u8>) -> bool {
        // Leading newlines never start a record.
        loop {
            while self.pos < self.buf.len() && self.buf[self.pos] == b'\n' {
                self.pos += 1;
            }
            if self.pos < self.buf.len() || !self.fill().await {
                break;
            }
        }
        // Bytes after `pos` already searched (less one: a "\n\n" may straddle chunks).
        let mut seen: usize = 0;
        loop {
            let from = self.pos + seen.saturating_sub(1);
            if let Some(at) = self.buf[from..].windows(2).position(|w| w == b"\n\n") {
                let start = from + at;
                let mut end = start;
                while end < self.buf.len() && self.buf[end] == b'\n' {
                    end += 1;
                }
                if end == self.buf.len() && !self.eof {
                    // The newline run may go on in the next chunk: read it, then look again.
                    seen = start - self.pos;
                    self.fill().await;
                    continue;
                }
                rec.extend_from_slice(&self.buf[self.pos..start]);
                rt.extend_from_slice(&self.buf[start..end]);
                self.pos = end;
                return true;
            }
            seen = self.buf.len() - self.pos;
            if !self.fill().await {
                let got = self.rest(rec);
                while rec.last() == Some(&b'\n') {
                    rec.pop();
                    rt.push(b'\n');
                }
                return got && !rec.is_empty();
            }
        }
    }

    async fn next_regex(&mut self, re: &Ere, rec: &mut Vec<u8>, rt: &mut Vec<u8>) -> bool {
        loop {
            let found = first_nonempty(re, &self.buf, self.pos);
            match found {
                // A match touching the end of the buffer might grow with more input.
                Some((start, end)) if end < self.buf.len() || self.eof => {
                    rec.extend_from_slice(&self.buf[self.pos..start]);
                    rt.extend_from_slice(&self.buf[start..end]);
                    self.pos = end;
                    return true;
                }
                _ => {
                    if !self.fill().await {
                        if found.is_some() {
                            continue;
                        }
                        return self.rest(rec);
                    }
                }
            }
        }
    }
}

/// The first non-empty match at or after `pos`.
fn first_nonempty(re: &Ere, text: &[u8], mut pos: usize) -> Option<(usize, usize)> {
    while pos <= text.len() {
        let (a, b) = re.find_at(text, pos)?;
        if a != b {
            return Some((a, b));
        }
        pos = a + chars::len_at(text, a);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(text: &str, fs: &str) -> Vec<String> {
        let sep = FieldSep::new(fs.as_bytes(), false, false).unwrap_or(FieldSep::Space);
        let mut out = Vec::new();
        split(text.as_bytes(), &sep, &mut out);
        out.iter()
            .map(|&(a, b)| text[a as usize..b as usize].to_string())
            .collect()
    }

    #[test]
    fn splits_by_each_kind_of_separator() {
        assert_eq!(fields("  a b\t c  ", " "), ["a", "b", "c"]);
        assert_eq!(fields("a,,b,", ","), ["a", "", "b", ""]);
        assert_eq!(fields("a|b", "|"), ["a", "b"]);
        assert_eq!(fields("a1b22c", "[0-9]+"), ["a", "b", "c"]);
        assert_eq!(fields("héj", ""), ["h", "é", "j"]);
        assert_eq!(fields("a→b", "→"), ["a", "b"]);
        assert_eq!(fields("", ","), Vec::<String>::new());
    }
}
