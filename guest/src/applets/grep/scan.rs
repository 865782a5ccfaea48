//! The search over one input: finds selected lines by searching the whole buffer for the
//! next match and widening it to its line (no per-line regex calls when there is no context
//! to print), and formats what GNU grep prints for them.
//!
//! A [`Scan`] is resumable: [`Scan::run`] stops when its output buffer is full so the caller
//! can write it out (and notice a closed pipe), then continues where it stopped. Positions are
//! indices into the caller's buffer; a streaming caller that drops consumed bytes calls
//! [`Scan::shift`].

use super::bytes::{count, memchr, memrchr};
use super::matcher::Matcher;
use super::options::BinaryFiles;

/// Output is handed back to the caller once this many bytes are buffered.
pub const FLUSH_AT: usize = 64 * 1024;

/// What to print and when to stop, shared by every input.
pub struct Config {
    /// `-v`.
    pub invert: bool,
    /// Only count, list or test: no lines are printed.
    pub silent_lines: bool,
    /// `-q`, `-l`, `-L`: the first selected line settles the input.
    pub first_only: bool,
    /// `-o`.
    pub only: bool,
    /// `-n`.
    pub line_number: bool,
    /// `-b`.
    pub byte_offset: bool,
    /// Prefix lines with the file name.
    pub with_filename: bool,
    /// `-Z`: a NUL after the file name instead of `:`.
    pub null_after_name: bool,
    /// `-m`.
    pub max_count: Option<u64>,
    /// `-B`.
    pub before: usize,
    /// `-A`.
    pub after: usize,
    /// Printed between non-adjacent groups when context was asked for.
    pub separator: Option<Vec<u8>>,
    /// `-a`, `-I` or the default.
    pub binary: BinaryFiles,
    /// The line terminator.
    pub eol: u8,
}

/// Where the last printed line ended, for `--` separators and overlapping context.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Printed {
    /// Nothing printed from this input yet.
    Nothing,
    /// The position just after the last printed line.
    At(usize),
    /// Something was printed, in bytes the caller has since dropped.
    Before,
}

/// The state of the search over one input.
pub struct Scan {
    /// The next line to look at.
    pos: usize,
    /// The line number of the line starting at `counted`.
    line_no: u64,
    counted: usize,
    /// Absolute offset of the caller's buffer start (for `-b`).
    base: u64,
    after_left: usize,
    printed: Printed,
    /// Selected lines so far.
    pub selected: u64,
    /// Nothing more to do for this input.
    pub done: bool,
    /// `-m` reached: only trailing context is still printed.
    max_reached: bool,
    /// NUL bytes seen: lines are not printed, the first selected line ends the input.
    pub binary: bool,
    /// A selected line was suppressed because the input is binary.
    pub binary_matched: bool,
    /// A line was not printed because it is not valid UTF-8.
    pub encoding_error: bool,
    /// The name printed before lines and in messages.
    name: Vec<u8>,
}

/// The search and its formatting, for one run of grep.
pub struct Searcher<'a> {
    /// The compiled patterns.
    pub matcher: &'a Matcher,
    /// The options.
    pub config: &'a Config,
    /// Something was printed by an earlier input (a separator may be due).
    pub printed_any: bool,
}

impl Scan {
    /// A scan of the input called `name`.
    pub fn new(name: &str) -> Self {
        Scan {
            pos: 0,
            line_no: 1,
            counted: 0,
            base: 0,
            after_left: 0,
            printed: Printed::Nothing,
            selected: 0,
            done: false,
            max_reached: false,
            binary: false,
            binary_matched: false,
            encoding_error: false,
            name: name.as_bytes().to_vec(),
        }
    }

    /// The position of the next line to examine.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The caller is about to drop the first `n` bytes of `hay`, its buffer.
    pub fn shift(&mut self, hay: &[u8], eol: u8, n: usize) {
        if self.counted < n {
            self.line_no += count(eol, &hay[self.counted..n]) as u64;
            self.counted = n;
        }
        self.pos -= n;
        self.counted -= n;
        self.base += n as u64;
        self.printed = match self.printed {
            Printed::At(at) if at >= n => Printed::At(at - n),
            Printed::Nothing => Printed::Nothing,
            _ => Printed::Before,
        };
    }

    /// How many bytes before `pos` must be kept for before-context.
    pub fn keep_from(&self, hay: &[u8], before: usize, eol: u8) -> usize {
        let mut start = self.pos;
        for _ in 0..before {
            if start == 0 {
                break;
            }
            start = memrchr(eol, &hay[..start - 1]).map_or(0, |at| at + 1);
        }
        start
    }

    /// The line number of the line starting at `at` (counting forward lazily).
    fn line_at(&mut self, hay: &[u8], at: usize, eol: u8) -> u64 {
        if at >= self.counted {
            self.line_no += count(eol, &hay[self.counted..at]) as u64;
            self.counted = at;
            return self.line_no;
        }
        self.line_no - count(eol, &hay[at..self.counted]) as u64
    }
}

impl Searcher<'_> {
    /// Searches `hay[scan.pos..end]` (whole lines; at `eof` the last may be unterminated),
    /// appending output to `out` until it holds [`FLUSH_AT`] bytes or the range is done.
    pub fn run(&mut self, scan: &mut Scan, hay: &[u8], end: usize, eof: bool, out: &mut Vec<u8>) {
        let end = end.min(hay.len());
        while !scan.done && out.len() < FLUSH_AT && scan.pos < end {
            if scan.max_reached && scan.after_left == 0 {
                scan.done = true;
                break;
            }
            if scan.after_left > 0 || scan.max_reached {
                self.one_line(scan, hay, end, out);
            } else if self.config.invert {
                self.inverted(scan, hay, end, eof, out);
            } else {
                match self.next_match_line(hay, scan.pos, end, eof) {
                    Some((ls, le)) => {
                        scan.pos = ls;
                        self.select(scan, hay, ls, le, out);
                        scan.pos = next_line(hay, le, end);
                    }
                    None => scan.pos = end,
                }
            }
        }
    }

    /// Examines the line at `scan.pos` on its own (while trailing context is due).
    fn one_line(&mut self, scan: &mut Scan, hay: &[u8], end: usize, out: &mut Vec<u8>) {
        let ls = scan.pos;
        let le = memchr(self.config.eol, &hay[ls..end]).map_or(end, |at| ls + at);
        let selected = !scan.max_reached && self.line_matches(hay, ls, le) != self.config.invert;
        if selected {
            self.select(scan, hay, ls, le, out);
        } else {
            scan.after_left -= 1;
            self.print_line(scan, hay, ls, le, b'-', out);
        }
        scan.pos = next_line(hay, le, end);
    }

    /// `-v`: every line before the next matching one is selected.
    fn inverted(&mut self, scan: &mut Scan, hay: &[u8], end: usize, eof: bool, out: &mut Vec<u8>) {
        let found = self.next_match_line(hay, scan.pos, end, eof);
        let stop = found.map_or(end, |(ls, _)| ls);
        if self.config.silent_lines && !self.config.first_only {
            self.count_bulk(scan, hay, stop, end);
        }
        while scan.pos < stop && !scan.done && out.len() < FLUSH_AT {
            let ls = scan.pos;
            let le = memchr(self.config.eol, &hay[ls..end]).map_or(end, |at| ls + at);
            self.select(scan, hay, ls, le, out);
            scan.pos = next_line(hay, le, end);
            if scan.max_reached || scan.after_left > 0 {
                return;
            }
        }
        if let Some((ls, le)) = found {
            if scan.pos == ls && !scan.done && out.len() < FLUSH_AT {
                scan.pos = next_line(hay, le, end);
            }
        }
    }

    /// `-c -v`: counts the lines in `[pos, stop)` without visiting them one by one.
    fn count_bulk(&mut self, scan: &mut Scan, hay: &[u8], stop: usize, end: usize) {
        let mut lines = count(self.config.eol, &hay[scan.pos..stop]) as u64;
        if stop == end && stop > scan.pos && hay[stop - 1] != self.config.eol {
            lines += 1;
        }
        let room = self
            .config
            .max_count
            .map_or(u64::MAX, |m| m.saturating_sub(scan.selected));
        if lines >= room {
            scan.selected += room;
            scan.done = true;
        } else {
            scan.selected += lines;
        }
        scan.pos = stop;
    }

    /// Whether the line `[ls, le)` contains a match.
    fn line_matches(&self, hay: &[u8], ls: usize, le: usize) -> bool {
        self.matcher.find_at(&hay[..le], ls).is_some()
    }

    /// The bounds `[start, end)` of the next line from `pos` with a match.
    fn next_match_line(
        &self,
        hay: &[u8],
        mut pos: usize,
        end: usize,
        eof: bool,
    ) -> Option<(usize, usize)> {
        let eol = self.config.eol;
        loop {
            let (s, e) = self.matcher.find_at(&hay[..end], pos)?;
            if s == end && (s == pos || hay[s - 1] == eol || !eof) {
                return None;
            }
            let ls = memrchr(eol, &hay[pos..s]).map_or(pos, |at| pos + at + 1);
            let le = memchr(eol, &hay[s..end]).map_or(end, |at| s + at);
            if e <= le || self.line_matches(hay, ls, le) {
                return Some((ls, le));
            }
            // A Perl-style pattern matched across a line end: that line has no match.
            pos = next_line(hay, le, end);
            if pos >= end {
                return None;
            }
        }
    }

    /// A selected line `[ls, le)`.
    fn select(&mut self, scan: &mut Scan, hay: &[u8], ls: usize, le: usize, out: &mut Vec<u8>) {
        scan.selected += 1;
        let config = self.config;
        if config.first_only {
            scan.done = true;
            return;
        }
        let limit_hit = config.max_count.is_some_and(|m| scan.selected >= m);
        if config.silent_lines {
            scan.done |= limit_hit;
            return;
        }
        if scan.binary {
            scan.binary_matched = true;
            scan.done = true;
            // The suppressed line still counts as output for the next `--`.
            self.printed_any = true;
            return;
        }
        self.before_context(scan, hay, ls, out);
        self.print_line(scan, hay, ls, le, b':', out);
        scan.after_left = config.after;
        scan.max_reached = limit_hit;
    }

    /// Prints up to `-B` lines before `ls` that were not printed yet.
    fn before_context(&mut self, scan: &mut Scan, hay: &[u8], ls: usize, out: &mut Vec<u8>) {
        let floor = match scan.printed {
            Printed::At(at) => at,
            _ => 0,
        };
        let mut starts = Vec::new();
        let mut start = ls;
        while starts.len() < self.config.before && start > floor {
            start =
                memrchr(self.config.eol, &hay[floor..start - 1]).map_or(floor, |at| floor + at + 1);
            starts.push(start);
        }
        for &s in starts.iter().rev() {
            let le = memchr(self.config.eol, &hay[s..ls]).map_or(ls, |at| s + at);
            self.print_line(scan, hay, s, le, b'-', out);
        }
    }

    /// The group separator, when this line does not continue the last printed one.
    fn separator(&mut self, scan: &Scan, ls: usize, out: &mut Vec<u8>) {
        if let Some(sep) = &self.config.separator {
            if self.printed_any && scan.printed != Printed::At(ls) {
                out.extend_from_slice(sep);
                out.push(b'\n');
            }
        }
    }

    /// `name:12:` (or with `-` for context lines).
    fn prefix(
        &self,
        scan: &mut Scan,
        hay: &[u8],
        ls: usize,
        at: usize,
        sep: u8,
        out: &mut Vec<u8>,
    ) {
        let config = self.config;
        if config.with_filename {
            out.extend_from_slice(&scan.name);
            out.push(if config.null_after_name { 0 } else { sep });
        }
        if config.line_number {
            let n = scan.line_at(hay, ls, config.eol);
            out.extend_from_slice(n.to_string().as_bytes());
            out.push(sep);
        }
        if config.byte_offset {
            out.extend_from_slice((scan.base + at as u64).to_string().as_bytes());
            out.push(sep);
        }
    }

    /// Prints line `[ls, le)` with separator `sep` (`:` selected, `-` context).
    fn print_line(
        &mut self,
        scan: &mut Scan,
        hay: &[u8],
        ls: usize,
        le: usize,
        sep: u8,
        out: &mut Vec<u8>,
    ) {
        self.separator(scan, ls, out);
        scan.printed = Printed::At(next_line(hay, le, hay.len()));
        self.printed_any = true;
        if self.config.only {
            // GNU prints the matches of context lines too (inverted lines have none).
            self.print_matches(scan, hay, (ls, le), sep, out);
            return;
        }
        let line = &hay[ls..le];
        if self.config.binary != BinaryFiles::Text && std::str::from_utf8(line).is_err() {
            scan.encoding_error = true;
            return;
        }
        self.prefix(scan, hay, ls, ls, sep, out);
        out.extend_from_slice(line);
        out.push(self.config.eol);
    }

    /// `-o`: each non-empty match of the line on its own line, after `sep`.
    fn print_matches(
        &self,
        scan: &mut Scan,
        hay: &[u8],
        (ls, le): (usize, usize),
        sep: u8,
        out: &mut Vec<u8>,
    ) {
        let mut at = ls;
        while at <= le {
            let Some((start, end)) = self.matcher.longest_at(&hay[..le], at) else {
                break;
            };
            if start == end {
                at = end + 1;
                continue;
            }
            let text = &hay[start..end];
            at = end;
            if self.config.binary != BinaryFiles::Text && std::str::from_utf8(text).is_err() {
                scan.encoding_error = true;
                continue;
            }
            self.prefix(scan, hay, ls, start, sep, out);
            out.extend_from_slice(text);
            out.push(self.config.eol);
        }
    }
}

/// The start of the line after the one ending at `le` (its terminator skipped).
fn next_line(hay: &[u8], le: usize, end: usize) -> usize {
    if le < end && le < hay.len() {
        le + 1
    } else {
        end.max(le)
    }
}
