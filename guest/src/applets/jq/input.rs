//! jq's input stream: the files (or stdin) read one after another as one stream of JSON
//! values (or raw lines with `-R`), parsed as bytes arrive.

use std::collections::VecDeque;
use std::rc::Rc;

use super::json::{ArrayItems, Parsed, Parser};
use super::val::Val;
use crate::task::{poll_once, Input, LocalFuture};

/// One input value and where it came from (for `input_filename` and error messages).
pub struct Item {
    /// The value.
    pub val: Val,
    /// The file it came from (None for stdin).
    pub file: Option<String>,
    /// jq's line count when the value was complete.
    pub line: usize,
}

/// What the stream yields next.
pub enum Next {
    /// A value.
    Item(Item),
    /// A parse error (`Invalid numeric literal at line 1, column 3`); the stream ends.
    Error(String),
    /// The end.
    End,
}

/// A source of bytes: a name (None for stdin) and its contents.
pub struct Source {
    /// The file name, None for stdin.
    pub name: Option<String>,
    /// Its bytes.
    pub input: Input,
}

/// The stream of input values.
pub struct Inputs {
    sources: VecDeque<Source>,
    current: Option<Option<String>>,
    file_done: bool,
    raw: bool,
    parser: Parser,
    ready: VecDeque<Item>,
    error: Option<String>,
    partial_line: Vec<u8>,
    lines_before_file: usize,
    raw_lines: usize,
    ended: bool,
    /// Whether any input has been read (jq says `<unknown>` in errors before that).
    pub started: bool,
    /// The position of the last value handed out, for error messages.
    pub position: Option<(Option<String>, usize)>,
}

impl Inputs {
    /// A stream over `sources`; `raw` reads lines (`-R`) instead of JSON.
    pub fn new(sources: Vec<Source>, raw: bool) -> Self {
        Inputs {
            sources: sources.into(),
            current: None,
            file_done: true,
            raw,
            parser: Parser::new(),
            ready: VecDeque::new(),
            error: None,
            partial_line: Vec::new(),
            lines_before_file: 0,
            raw_lines: 0,
            ended: false,
            started: false,
            position: None,
        }
    }

    /// Reads every source into memory, so that `input` can be answered without waiting.
    pub async fn preload(&mut self) {
        for source in self.sources.iter_mut() {
            let data = source.input.read_all().await;
            source.input = Input::bytes(Rc::new(data));
        }
    }

    /// The next value, reading more input as needed.
    pub async fn next(&mut self) -> Next {
        loop {
            if let Some(next) = self.take_ready() {
                return next;
            }
            let Some(mut source) = self.sources.pop_front() else {
                self.end_of_input();
                continue;
            };
            if self.whole_value(&mut source) {
                self.sources.push_front(source);
                continue;
            }
            let chunk = source.input.read_chunk().await;
            self.consume(source, chunk);
        }
    }

    /// The next value from what is in memory (after [`Inputs::preload`]); `End` if a pipe
    /// would have to be waited on.
    pub fn next_now(&mut self) -> Next {
        loop {
            if let Some(next) = self.take_ready() {
                return next;
            }
            let Some(mut source) = self.sources.pop_front() else {
                self.end_of_input();
                continue;
            };
            if self.whole_value(&mut source) {
                self.sources.push_front(source);
                continue;
            }
            let chunk = {
                let mut read: LocalFuture<'_, Option<Vec<u8>>> =
                    Box::pin(source.input.read_chunk());
                match poll_once(&mut read) {
                    std::task::Poll::Ready(chunk) => chunk,
                    std::task::Poll::Pending => return Next::End,
                }
            };
            self.consume(source, chunk);
        }
    }

    /// The next input when it is an array in memory that is plain JSON throughout (checked
    /// whole first, since jq parses a value before using it): its items, built one at a
    /// time, and its file. None to read it with [`Inputs::next`].
    pub fn next_array(&mut self) -> Option<(ArrayItems, Option<String>)> {
        if !self.array_ahead(0) {
            return None;
        }
        let mut source = self.sources.pop_front()?;
        let items = self.check_array(&mut source);
        self.sources.push_front(source);
        let items = items?;
        self.started = true;
        self.position = Some((self.file(), items.1));
        Some((items.0, self.file()))
    }

    /// Whether the next input may be an array in memory with at least `min_len` bytes
    /// (blanks after it included) for [`Inputs::next_array`] to read.
    pub fn array_ahead(&self, min_len: usize) -> bool {
        if self.raw || !self.ready.is_empty() || self.error.is_some() || self.ended {
            return false;
        }
        let data = self.sources.front().and_then(|s| s.input.in_memory());
        data.is_some_and(|d| d.len() >= min_len && d.trim_ascii_start().starts_with(b"["))
    }

    /// [`Inputs::next_array`] for one source: the items and jq's line of the array.
    fn check_array(&mut self, source: &mut Source) -> Option<(ArrayItems, usize)> {
        let (data, pos) = source.input.shared_bytes()?;
        self.begin(source);
        let (line, used) = self.parser.whole_array(&data[pos..])?;
        source.input.consume(used);
        Some((ArrayItems::new(data, pos), line - self.lines_before_file))
    }

    fn take_ready(&mut self) -> Option<Next> {
        if let Some(item) = self.ready.pop_front() {
            self.started = true;
            self.position = Some((item.file.clone(), item.line));
            return Some(Next::Item(item));
        }
        if let Some(error) = self.error.take() {
            self.ended = true;
            return Some(Next::Error(error));
        }
        if self.ended {
            // like jq, errors after the inputs ran out are `at <unknown>`
            self.position = None;
            return Some(Next::End);
        }
        None
    }

    /// Reads the next value of an in-memory source in one pass ([`Parser::whole_value`]):
    /// true when it did (the value is ready), false to read the source chunk by chunk.
    fn whole_value(&mut self, source: &mut Source) -> bool {
        if self.raw {
            return false;
        }
        let Some(data) = source.input.in_memory() else {
            return false;
        };
        // (before the parser counts the value's lines)
        self.begin(source);
        let Some((parsed, used)) = self.parser.whole_value(data) else {
            return false;
        };
        source.input.consume(used);
        self.ready.push_back(Item {
            val: parsed.val,
            file: self.file(),
            line: parsed.line - self.lines_before_file,
        });
        true
    }

    /// Notes where a source's values begin when it is read for the first time.
    fn begin(&mut self, source: &Source) {
        if self.file_done || self.current.as_ref() != Some(&source.name) {
            self.current = Some(source.name.clone());
            self.lines_before_file = self.lines_so_far();
            self.file_done = false;
        }
    }

    fn consume(&mut self, source: Source, chunk: Option<Vec<u8>>) {
        self.begin(&source);
        match chunk {
            Some(chunk) => {
                self.feed(&chunk);
                let mut source = source;
                // A token (or `-R` line) that never ends (`cat /dev/zero | jq .`) fails
                // the command past MAX_LINE, with nothing more read.
                let open = self.partial_line.len().max(self.parser.open_token());
                if source.input.past_limit(open, &mut self.partial_line) {
                    self.parser = Parser::new();
                    self.ended = true;
                }
                self.sources.push_front(source);
            }
            None => self.file_done = true,
        }
    }

    fn lines_so_far(&self) -> usize {
        if self.raw {
            self.raw_lines
        } else {
            self.parser.line() - 1
        }
    }

    fn file(&self) -> Option<String> {
        self.current.clone().flatten()
    }

    fn feed(&mut self, chunk: &[u8]) {
        if self.raw {
            self.feed_raw(chunk);
            return;
        }
        let mut out: Vec<Parsed> = Vec::new();
        let result = self.parser.feed(chunk, &mut out);
        let file = self.file();
        for parsed in out {
            let line = parsed.line - self.lines_before_file;
            self.ready.push_back(Item {
                val: parsed.val,
                file: file.clone(),
                line,
            });
        }
        if let Err(e) = result {
            self.error = Some(e);
            self.sources.clear();
        }
    }

    fn feed_raw(&mut self, chunk: &[u8]) {
        let mut rest = chunk;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            self.partial_line.extend_from_slice(&rest[..at]);
            rest = &rest[at + 1..];
            self.raw_lines += 1;
            let line = std::mem::take(&mut self.partial_line);
            let item = Item {
                val: Val::from(String::from_utf8_lossy(&line).into_owned()),
                file: self.file(),
                line: self.raw_lines - self.lines_before_file,
            };
            self.ready.push_back(item);
        }
        self.partial_line.extend_from_slice(rest);
    }

    fn end_of_input(&mut self) {
        if self.ended {
            return;
        }
        self.ended = true;
        if self.raw {
            if !self.partial_line.is_empty() {
                let line = std::mem::take(&mut self.partial_line);
                self.ready.push_back(Item {
                    val: Val::from(String::from_utf8_lossy(&line).into_owned()),
                    file: self.file(),
                    line: self.raw_lines - self.lines_before_file,
                });
            }
            return;
        }
        match self.parser.finish() {
            Ok(Some(val)) => self.ready.push_back(Item {
                val,
                file: self.file(),
                line: self.parser.line() - 1 - self.lines_before_file,
            }),
            Ok(None) => {}
            Err(e) => self.error = Some(e),
        }
    }
}
