//! JSON text: a push parser that mirrors jq's own (values come out as soon as they are
//! complete; errors read `Unfinished JSON term at EOF at line 2, column 0`), and the writer
//! with jq's layouts (pretty, compact, tabs, sorted keys, ASCII, colours).

use std::borrow::Cow;
use std::rc::Rc;

use super::map::Map;
use super::num::Num;
use super::val::Val;
use crate::limits::MAX_JQ_DEPTH;

enum Frame {
    Arr(Vec<Val>),
    Obj(Map),
    Key(Rc<str>),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Normal,
    Str,
    StrEscape,
}

/// A complete value and where it ended (absolute byte offset of the byte that completed it).
pub struct Parsed {
    /// The value.
    pub val: Val,
    /// jq's "line" for error messages: complete input lines read when the value was done.
    pub line: usize,
}

/// An incremental JSON parser: feed it bytes, take out values.
pub struct Parser {
    stack: Vec<Frame>,
    next: Option<Val>,
    token: Vec<u8>,
    state: State,
    line: usize,
    column: usize,
    failed: bool,
    /// Whether the start of the stream (where a byte-order mark is skipped) has been seen.
    started: bool,
    /// Top-level values completed by the last byte.
    completed: Vec<Val>,
    /// Object keys seen recently, shared by the objects that repeat them.
    keys: KeyCache,
}

impl Default for Parser {
    fn default() -> Self {
        Parser {
            stack: Vec::new(),
            next: None,
            token: Vec::new(),
            state: State::Normal,
            line: 1,
            column: 0,
            failed: false,
            started: false,
            completed: Vec::new(),
            keys: KeyCache::default(),
        }
    }
}

impl Parser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Parser::default()
    }

    /// Lines seen so far (newlines + 1).
    pub fn line(&self) -> usize {
        self.line
    }

    /// Bytes of the token (a string, a number, a literal) not finished yet.
    pub fn open_token(&self) -> usize {
        self.token.len()
    }

    /// Parses `data` (the next bytes of the stream), appending complete values to `out`.
    /// Stops at the first error, which it returns (`Invalid numeric literal at line 1, column 3`).
    pub fn feed(&mut self, data: &[u8], out: &mut Vec<Parsed>) -> Result<(), String> {
        if self.failed {
            return Ok(());
        }
        let mut newline_after: Option<usize> = None;
        let mut i = 0;
        if !self.started && !data.is_empty() {
            // A byte-order mark at the very start is skipped, as jq does.
            self.started = true;
            if data.starts_with("\u{feff}".as_bytes()) {
                i = 3;
            }
        }
        while i < data.len() {
            let ch = data[i];
            if self.state == State::Normal {
                // A number or literal: its bytes go to the token at once (what `scan_normal`
                // does byte by byte).
                let run = data[i..]
                    .iter()
                    .position(|&b| is_delimiter(b))
                    .unwrap_or(data.len() - i);
                if run > 0 {
                    self.token.extend_from_slice(&data[i..i + run]);
                    self.column += run;
                    i += run;
                    continue;
                }
            }
            if self.state == State::Str {
                let run = data[i..]
                    .iter()
                    .position(|&b| b == b'"' || b == b'\\' || b == b'\n')
                    .unwrap_or(data.len() - i);
                if run > 0 {
                    self.token.extend_from_slice(&data[i..i + run]);
                    self.column += run;
                    i += run;
                    continue;
                }
            }
            let result = self.scan(ch);
            if self.completed.is_empty() {
                result.inspect_err(|_| self.failed = true)?;
                i += 1;
                continue;
            }
            for val in std::mem::take(&mut self.completed) {
                let line = self.line_at(data, i, &mut newline_after);
                out.push(Parsed { val, line });
            }
            result.inspect_err(|_| self.failed = true)?;
            i += 1;
        }
        Ok(())
    }

    /// jq counts input lines as it reads them whole: a value on a line with a newline after
    /// it reports that line as read.
    fn line_at(&self, data: &[u8], i: usize, cache: &mut Option<usize>) -> usize {
        let newlines_before = if data[i] == b'\n' {
            self.line - 2
        } else {
            self.line - 1
        };
        if cache.is_none_or(|at| at < i) {
            *cache = data[i..]
                .iter()
                .position(|&b| b == b'\n')
                .map(|p| p + i)
                .or(Some(usize::MAX));
        }
        newlines_before + usize::from(cache.is_some_and(|at| at != usize::MAX))
    }

    /// Ends the stream: the last value, if one is pending, or the error at EOF.
    pub fn finish(&mut self) -> Result<Option<Val>, String> {
        if self.failed {
            return Ok(None);
        }
        self.failed = true;
        if self.state != State::Normal {
            return Err(self.at_eof("Unfinished string"));
        }
        if let Err(msg) = self.check_literal() {
            return Err(self.at_eof(&msg));
        }
        if !self.stack.is_empty() {
            return Err(self.at_eof("Unfinished JSON term"));
        }
        Ok(self.next.take())
    }

    fn at_eof(&self, msg: &str) -> String {
        format!("{msg} at EOF at line {}, column {}", self.line, self.column)
    }

    /// jq's check_done: a complete top-level value leaves the parser at once.
    fn check_done(&mut self) {
        if self.stack.is_empty() {
            if let Some(v) = self.next.take() {
                self.completed.push(v);
            }
        }
    }

    /// One byte of input.
    fn scan(&mut self, ch: u8) -> Result<(), String> {
        self.column += 1;
        if ch == b'\n' {
            self.line += 1;
            self.column = 0;
        }
        let result = match self.state {
            State::Normal => self.scan_normal(ch),
            State::Str if ch == b'"' => {
                self.state = State::Normal;
                let r = self.found_string();
                self.check_done();
                r
            }
            State::Str | State::StrEscape => {
                self.token.push(ch);
                self.state = if ch == b'\\' && self.state == State::Str {
                    State::StrEscape
                } else {
                    State::Str
                };
                Ok(())
            }
        };
        result.map_err(|msg| format!("{msg} at line {}, column {}", self.line, self.column))
    }

    fn scan_normal(&mut self, ch: u8) -> Result<(), String> {
        let structural = matches!(ch, b'[' | b'{' | b':' | b',' | b']' | b'}');
        if !is_delimiter(ch) {
            self.token.push(ch);
            return Ok(());
        }
        self.check_literal()?;
        self.check_done();
        if ch == b'"' {
            self.state = State::Str;
        } else if structural {
            self.structure(ch)?;
            self.check_done();
        }
        Ok(())
    }

    fn value(&mut self, v: Val) -> Result<(), String> {
        if self.next.is_some() {
            return Err("Expected separator between values".into());
        }
        self.next = Some(v);
        Ok(())
    }

    fn push(&mut self, frame: Frame) -> Result<(), String> {
        if self.stack.len() >= MAX_JQ_DEPTH {
            return Err("Exceeds depth limit for parsing".into());
        }
        if self.next.is_some() {
            return Err("Expected separator between values".into());
        }
        self.stack.push(frame);
        Ok(())
    }

    fn structure(&mut self, ch: u8) -> Result<(), String> {
        match ch {
            b'[' => self.push(Frame::Arr(Vec::new())),
            b'{' => self.push(Frame::Obj(Map::new())),
            b':' => self.colon(),
            b',' => self.comma(),
            b']' => self.close_array(),
            _ => self.close_object(),
        }
    }

    fn colon(&mut self) -> Result<(), String> {
        if !matches!(self.stack.last(), Some(Frame::Obj(_))) {
            return Err("':' not as part of an object".into());
        }
        match self.next.take() {
            None => Err("Expected string key before ':'".into()),
            Some(Val::Str(k)) => {
                if self.stack.len() >= MAX_JQ_DEPTH {
                    return Err("Exceeds depth limit for parsing".into());
                }
                self.stack.push(Frame::Key(k));
                Ok(())
            }
            Some(_) => Err("Object keys must be strings".into()),
        }
    }

    fn comma(&mut self) -> Result<(), String> {
        let Some(v) = self.next.take() else {
            return Err("Expected value before ','".into());
        };
        match self.stack.last_mut() {
            None => Err("',' not as part of an object or array".into()),
            Some(Frame::Arr(a)) => {
                a.push(v);
                Ok(())
            }
            Some(Frame::Key(_)) => {
                self.set_field(v);
                Ok(())
            }
            Some(Frame::Obj(_)) => Err("Objects must consist of key:value pairs".into()),
        }
    }

    fn set_field(&mut self, v: Val) {
        if let Some(Frame::Key(k)) = self.stack.pop() {
            if let Some(Frame::Obj(o)) = self.stack.last_mut() {
                o.insert(k, v);
            }
        }
    }

    fn close_array(&mut self) -> Result<(), String> {
        let Some(Frame::Arr(a)) = self.stack.last_mut() else {
            return Err("Unmatched ']'".into());
        };
        match self.next.take() {
            Some(v) => a.push(v),
            None if !a.is_empty() => return Err("Expected another array element".into()),
            None => {}
        }
        if let Some(Frame::Arr(a)) = self.stack.pop() {
            self.next = Some(Val::arr(a));
        }
        Ok(())
    }

    fn close_object(&mut self) -> Result<(), String> {
        if self.stack.is_empty() {
            return Err("Unmatched '}'".into());
        }
        match self.next.take() {
            Some(v) => {
                if !matches!(self.stack.last(), Some(Frame::Key(_))) {
                    return Err("Objects must consist of key:value pairs".into());
                }
                self.set_field(v);
            }
            None => match self.stack.last() {
                Some(Frame::Obj(o)) if !o.is_empty() => {
                    return Err("Expected another key-value pair".into())
                }
                Some(Frame::Obj(_)) => {}
                _ => return Err("Unmatched '}'".into()),
            },
        }
        if let Some(Frame::Obj(o)) = self.stack.pop() {
            self.next = Some(Val::Obj(Rc::new(o)));
        }
        Ok(())
    }

    fn check_literal(&mut self) -> Result<(), String> {
        if self.token.is_empty() {
            return Ok(());
        }
        let v = literal(&self.token);
        self.token.clear();
        self.value(v?)
    }

    fn found_string(&mut self) -> Result<(), String> {
        // In an object, a string where a value cannot be is a key (or an error anyway).
        let key = matches!(self.stack.last(), Some(Frame::Obj(_)));
        let text = unescape(&self.token).map(|text| match key {
            true => self.keys.get(&text),
            false => Rc::from(&*text),
        });
        self.token.clear();
        self.value(Val::Str(text?))
    }
}

/// What the whole-value reader is building: an array, or an object and the key whose value
/// comes next. Their items wait on two stacks shared by all levels, from the index given
/// here, and move into a vector of their exact size when closed (no growth, no slack).
enum Building {
    Arr(usize),
    Obj(usize, Option<Rc<str>>),
}

impl Parser {
    /// Reads one whole array or object from the start of `data` (after blanks) when the
    /// parser is between values, in one pass over bytes already in memory (a file): returns
    /// it and how many bytes it took. None, with nothing changed but the key cache, when the
    /// parser is inside a value, when `data` holds no complete array or object there, or when
    /// the text is anything but plain JSON: the byte-by-byte [`Parser::feed`] then reads the
    /// same bytes, with jq's errors and extensions. The value is the one `feed` would make.
    pub fn whole_value(&mut self, data: &[u8]) -> Option<(Parsed, usize)> {
        if !self.may_read_whole(data, b"[{") {
            return None;
        }
        let (val, end) = read_value(data, &mut self.keys, &mut Stacks::default(), true)?;
        let line = self.passed(data, end);
        Some((Parsed { val, line }, end))
    }

    /// What [`Parser::whole_value`] would read when `data` starts with an array, checked
    /// without building anything (for [`ArrayItems`] to build it an item at a time): jq's line
    /// of the array and how many bytes it took, or None as `whole_value` would say.
    pub fn whole_array(&mut self, data: &[u8]) -> Option<(usize, usize)> {
        if !self.may_read_whole(data, b"[") {
            return None;
        }
        let (_, end) = read_value(data, &mut self.keys, &mut Stacks::default(), false)?;
        Some((self.passed(data, end), end))
    }

    /// Whether the parser is between values with `data` starting (after blanks) with one of
    /// the bytes `open`, outside of the stream's byte-order mark.
    fn may_read_whole(&self, data: &[u8], open: &[u8]) -> bool {
        let between = self.stack.is_empty() && self.next.is_none() && self.token.is_empty();
        if self.failed || !between || self.state != State::Normal || !self.completed.is_empty() {
            return false;
        }
        if !self.started && data.starts_with("\u{feff}".as_bytes()) {
            return false;
        }
        data.get(skip_blanks(data, 0))
            .is_some_and(|b| open.contains(b))
    }

    /// Counts the lines and columns of the `end` bytes of `data` a whole value took; returns
    /// jq's line of that value.
    fn passed(&mut self, data: &[u8], end: usize) -> usize {
        self.started = true;
        let taken = &data[..end];
        match memchr::memrchr(b'\n', taken) {
            Some(last) => {
                self.line += memchr::memchr_iter(b'\n', taken).count();
                self.column = end - last - 1;
            }
            None => self.column += end,
        }
        self.line_at(data, end - 1, &mut None)
    }
}

/// The items of an array that [`Parser::whole_array`] checked, built one at a time: only
/// the item being used is in memory, not the whole array.
pub struct ArrayItems {
    data: Rc<Vec<u8>>,
    at: usize,
    keys: KeyCache,
    stacks: Stacks,
}

impl ArrayItems {
    /// The items of the checked array that starts (after blanks) at `start` in `data`.
    pub fn new(data: Rc<Vec<u8>>, start: usize) -> Self {
        ArrayItems {
            at: skip_blanks(&data, start) + 1,
            data,
            keys: KeyCache::default(),
            stacks: Stacks::default(),
        }
    }
}

impl Iterator for ArrayItems {
    type Item = Val;

    fn next(&mut self) -> Option<Val> {
        let data = &self.data[..];
        let mut at = skip_blanks(data, self.at);
        match data.get(at)? {
            b']' => return None,
            b',' => at = skip_blanks(data, at + 1),
            _ => {}
        }
        let (val, used) = read_value(&data[at..], &mut self.keys, &mut self.stacks, true)?;
        self.at = at + used;
        Some(val)
    }
}

/// The stacks of [`read_value`] (kept for the next value, so that they are allocated once).
#[derive(Default)]
struct Stacks {
    open: Vec<Building>,
    items: Vec<Val>,
    pairs: Vec<(Rc<str>, Val)>,
}

/// The one plain JSON value at the start of `data` (after blanks) and the index after it,
/// for [`Parser::whole_value`]: None where the text is not plain JSON or ends first.
/// Without `build`, only checks it (and gives `null` for it).
fn read_value(
    data: &[u8],
    keys: &mut KeyCache,
    stacks: &mut Stacks,
    build: bool,
) -> Option<(Val, usize)> {
    let mut at = skip_blanks(data, 0);
    let Stacks { open, items, pairs } = stacks;
    open.clear();
    items.clear();
    pairs.clear();
    let unbuilt_key: Option<Rc<str>> = (!build).then(|| Rc::from(""));
    // Whether a value may come next (after `[`, `,` or `:`), rather than `,` or a close,
    // and whether the last byte read was a comma.
    let (mut want_value, mut after_comma) = (true, false);
    loop {
        at = skip_blanks(data, at);
        let &b = data.get(at)?;
        let done: Option<Val> = match b {
            b'[' | b'{' if want_value => {
                // Each array, object and pending key is a level of jq's parser.
                if open.len() * 2 + 2 >= MAX_JQ_DEPTH {
                    return None;
                }
                open.push(if b == b'[' {
                    Building::Arr(items.len())
                } else {
                    Building::Obj(pairs.len(), None)
                });
                after_comma = false;
                at += 1;
                continue;
            }
            b']' | b'}' => {
                match open.last()? {
                    Building::Arr(_) if b == b']' => {}
                    Building::Obj(_, None) if b == b'}' => {}
                    _ => return None,
                }
                // `[1,]` and `{"a":1,}` are errors for `feed` to word.
                if after_comma {
                    return None;
                }
                at += 1;
                Some(match open.pop()? {
                    _ if !build => Val::Null,
                    // The outermost array (all of a big file) is not copied.
                    Building::Arr(0) if open.is_empty() => Val::arr(std::mem::take(items)),
                    Building::Arr(start) => Val::arr(items.drain(start..).collect()),
                    Building::Obj(start, _) => {
                        Val::Obj(Rc::new(pairs.drain(start..).collect::<Map>()))
                    }
                })
            }
            b',' if !want_value => {
                (want_value, after_comma) = (true, true);
                at += 1;
                continue;
            }
            b'"' if want_value => {
                let (raw, end) = string_at(data, at + 1)?;
                let text = match raw {
                    // (what `unescape` checks first, and all it checks of a plain string)
                    _ if !build && !raw.iter().any(|&c| c == b'\\' || (c > 0 && c < 0x1f)) => {
                        Cow::Borrowed("")
                    }
                    _ => unescape(raw).ok()?,
                };
                at = end;
                after_comma = false;
                if let Some(Building::Obj(_, key @ None)) = open.last_mut() {
                    *key = Some(match &unbuilt_key {
                        Some(unbuilt) => Rc::clone(unbuilt),
                        None => keys.get(&text),
                    });
                    at = skip_blanks(data, at);
                    if data.get(at) != Some(&b':') {
                        return None;
                    }
                    at += 1;
                    continue;
                }
                Some(match text {
                    _ if !build => Val::Null,
                    // Short strings repeat (tags, states, codes): shared like keys.
                    text if text.len() <= SHARED_STRING_MAX => Val::Str(keys.get(&text)),
                    text => Val::Str(Rc::from(&*text)),
                })
            }
            _ if want_value && !is_delimiter(b) => {
                let len = data[at..].iter().position(|&b| is_delimiter(b))?;
                let token = &data[at..at + len];
                let v = if !build && plain_integer(token) {
                    Val::Null
                } else {
                    literal(token).ok()?
                };
                at += len;
                Some(v)
            }
            _ => return None,
        };
        let v = done?;
        (want_value, after_comma) = (false, false);
        match open.last_mut() {
            None => return Some((v, at)),
            Some(Building::Arr(_)) if build => items.push(v),
            Some(Building::Obj(_, key)) => {
                let key = key.take()?;
                if build {
                    pairs.push((key, v));
                }
            }
            Some(Building::Arr(_)) => {}
        }
    }
}

/// The index of the first byte from `at` that is not a JSON blank.
fn skip_blanks(data: &[u8], mut at: usize) -> usize {
    while matches!(data.get(at), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        at += 1;
    }
    at
}

/// The raw text of the string that starts at `at` (after its opening quote) and the index
/// after its closing quote; None if it does not end in `data`.
fn string_at(data: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let mut end = at;
    loop {
        end += memchr::memchr2(b'"', b'\\', data.get(end..)?)?;
        match data[end] {
            b'"' => return Some((&data[at..end], end + 1)),
            _ => end += 2,
        }
    }
}

/// Whether `token` is an integer of at most 15 digits without leading zeros (which
/// [`literal`] reads, no need to ask it).
fn plain_integer(token: &[u8]) -> bool {
    let digits = token.strip_prefix(b"-").unwrap_or(token);
    matches!(digits, [b'1'..=b'9', rest @ ..] if rest.len() < 15 && rest.iter().all(u8::is_ascii_digit))
        || digits == b"0"
}

/// The value of a literal token (`true`, `null`, `12.5`...).
fn literal(token: &[u8]) -> Result<Val, String> {
    let (pattern, v): (&[u8], Val) = match token[0] {
        b't' => (b"true", Val::Bool(true)),
        b'f' => (b"false", Val::Bool(false)),
        b'\'' => return Err("Invalid string literal; expected \", but got '".into()),
        b'n' if token.len() == 3 => (b"nan", Val::num(f64::NAN)),
        b'n' => (b"null", Val::Null),
        // jq 1.8 reads these non-standard literals too.
        _ if token == b"NaN" || token == b"-NaN" => return Ok(Val::num(f64::NAN)),
        _ if token == b"Infinity" => return Ok(Val::num(f64::INFINITY)),
        _ if token == b"-Infinity" => return Ok(Val::num(f64::NEG_INFINITY)),
        _ => {
            let num = std::str::from_utf8(token).ok().and_then(Num::parse);
            return num
                .map(Val::Num)
                .ok_or_else(|| "Invalid numeric literal".to_string());
        }
    };
    if token != pattern {
        return Err("Invalid literal".into());
    }
    Ok(v)
}

/// String values of at most this many bytes are shared through [`KeyCache`] too.
const SHARED_STRING_MAX: usize = 8;

/// How many object keys [`KeyCache`] remembers (a power of two).
const KEY_SLOTS: usize = 64;

/// Recently seen object keys, by a hash of their text: an array of objects with the same keys
/// holds one copy of each key instead of one per object (less memory, fewer allocations).
struct KeyCache {
    slots: Vec<Option<Rc<str>>>,
}

impl Default for KeyCache {
    fn default() -> Self {
        KeyCache {
            slots: vec![None; KEY_SLOTS],
        }
    }
}

impl KeyCache {
    /// `key`, shared with the last key of the same text in its slot.
    fn get(&mut self, key: &str) -> Rc<str> {
        let hash = key.bytes().fold(0x811c_9dc5_u32, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        });
        let slot = &mut self.slots[hash as usize % KEY_SLOTS];
        match slot {
            Some(known) if **known == *key => Rc::clone(known),
            _ => Rc::clone(slot.insert(Rc::from(key))),
        }
    }
}

/// Decodes a JSON string body (between the quotes) the way jq does.
fn unescape(raw: &[u8]) -> Result<Cow<'_, str>, String> {
    let plain = !raw.iter().any(|&c| c == b'\\' || (c > 0 && c < 0x1f));
    if plain {
        if let Ok(text) = std::str::from_utf8(raw) {
            return Ok(Cow::Borrowed(text));
        }
    }
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        i += 1;
        if c != b'\\' {
            if c > 0 && c < 0x1f {
                return Err(
                    "Invalid string: control characters from U+0000 through U+001F must be escaped"
                        .into(),
                );
            }
            out.push(c);
            continue;
        }
        let Some(&e) = raw.get(i) else {
            return Err("Expected escape character at end of string".into());
        };
        i += 1;
        match e {
            b'\\' | b'"' | b'/' => out.push(e),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b't' => out.push(b'\t'),
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b'u' => {
                let (c, used) = unicode_escape(&raw[i..])?;
                i += used;
                let mut buf = [0; 4];
                out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            _ => return Err("Invalid escape".into()),
        }
    }
    Ok(Cow::Owned(String::from_utf8_lossy(&out).into_owned()))
}

fn hex4(s: &[u8]) -> Option<u32> {
    let text = std::str::from_utf8(s.get(..4)?).ok()?;
    if !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(text, 16).ok()
}

/// `XXXX` (and a following `\uXXXX` low surrogate) after `\u`; returns the char and bytes used.
fn unicode_escape(rest: &[u8]) -> Result<(char, usize), String> {
    if rest.len() < 4 {
        return Err("Invalid \\uXXXX escape".into());
    }
    let hi = hex4(rest).ok_or("Invalid characters in \\uXXXX escape")?;
    if (0xD800..=0xDBFF).contains(&hi) {
        let pair_error = || "Invalid \\uXXXX\\uXXXX surrogate pair escape".to_string();
        if rest.len() < 10 || rest[4] != b'\\' || rest[5] != b'u' {
            return Err(pair_error());
        }
        let lo = hex4(&rest[6..]).ok_or_else(pair_error)?;
        if !(0xDC00..=0xDFFF).contains(&lo) {
            return Err(pair_error());
        }
        let c = 0x10000 + (((hi - 0xD800) << 10) | (lo - 0xDC00));
        return Ok((char::from_u32(c).unwrap_or('\u{FFFD}'), 10));
    }
    Ok((char::from_u32(hi).unwrap_or('\u{FFFD}'), 4))
}

/// Parses one complete text holding exactly one value (`fromjson`, `--argjson`).
pub fn parse_one(text: &str) -> Result<Val, String> {
    let mut parser = Parser::new();
    let mut out = Vec::new();
    parser.feed(text.as_bytes(), &mut out)?;
    let last = parser.finish()?;
    let mut values = out.into_iter().map(|p| p.val).chain(last);
    match (values.next(), values.next()) {
        (Some(v), None) => Ok(v),
        (None, _) => Err("Expected JSON value".into()),
        (Some(_), Some(_)) => Err("Unexpected extra JSON values".into()),
    }
}

/// Parses every value of a complete text (`--slurpfile`).
pub fn parse_all(text: &[u8]) -> Result<Vec<Val>, String> {
    let mut parser = Parser::new();
    let mut out = Vec::new();
    parser.feed(text, &mut out)?;
    let last = parser.finish()?;
    Ok(out.into_iter().map(|p| p.val).chain(last).collect())
}

/// How values are written.
#[derive(Clone, Debug)]
pub struct Format {
    /// Spaces per level; 0 writes everything on one line.
    pub indent: usize,
    /// Indent with one tab per level.
    pub tab: bool,
    /// Sort object keys.
    pub sort_keys: bool,
    /// Escape non-ASCII characters.
    pub ascii: bool,
    /// ANSI colours.
    pub color: bool,
}

impl Default for Format {
    fn default() -> Self {
        Format {
            indent: 2,
            tab: false,
            sort_keys: false,
            ascii: false,
            color: false,
        }
    }
}

impl Format {
    /// One value per line, no spaces (`-c`, `tojson`).
    pub fn compact() -> Self {
        Format {
            indent: 0,
            ..Format::default()
        }
    }

    fn pretty(&self) -> bool {
        self.tab || self.indent > 0
    }
}

/// Compact JSON text of `v`.
pub fn to_string(v: &Val) -> String {
    let mut out = Vec::new();
    write(&mut out, v, &Format::compact());
    String::from_utf8_lossy(&out).into_owned()
}

/// Appends `v` to `out` in format `fmt` (no trailing newline).
pub fn write(out: &mut Vec<u8>, v: &Val, fmt: &Format) {
    Writer { out, fmt }.value(v);
}

const COL_NULL: &str = "0;90";
const COL_FALSE: &str = "0;39";
const COL_TRUE: &str = "0;39";
const COL_NUM: &str = "0;39";
const COL_STR: &str = "0;32";
const COL_ARR: &str = "1;39";
const COL_OBJ: &str = "1;39";
const COL_FIELD: &str = "1;34";

/// The items of an array or object being written.
enum Items<'v> {
    Arr(std::slice::Iter<'v, Val>),
    Obj(std::vec::IntoIter<(&'v Rc<str>, &'v Val)>),
}

/// A container being written: what is left of it, and whether an item was written.
struct Open<'v> {
    items: Items<'v>,
    started: bool,
}

impl Open<'_> {
    fn color(&self) -> &'static str {
        match self.items {
            Items::Arr(_) => COL_ARR,
            Items::Obj(_) => COL_OBJ,
        }
    }
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
    fmt: &'a Format,
}

impl Writer<'_> {
    fn color(&mut self, code: &str) {
        if self.fmt.color {
            self.out.extend_from_slice(b"\x1b[");
            self.out.extend_from_slice(code.as_bytes());
            self.out.push(b'm');
        }
    }

    fn reset(&mut self) {
        if self.fmt.color {
            self.out.extend_from_slice(b"\x1b[0m");
        }
    }

    fn newline(&mut self, level: usize) {
        if !self.fmt.pretty() {
            return;
        }
        self.out.push(b'\n');
        if self.fmt.tab {
            self.out.extend(std::iter::repeat_n(b'\t', level));
        } else {
            self.out
                .extend(std::iter::repeat_n(b' ', level * self.fmt.indent));
        }
    }

    /// Writes `v` with a stack of open containers on the heap (10,000 levels deep fit).
    fn value(&mut self, v: &Val) {
        let mut open: Vec<Open<'_>> = Vec::new();
        let mut next = Some(v);
        loop {
            if let Some(v) = next.take() {
                if let Some(frame) = self.start(v, open.len()) {
                    open.push(frame);
                }
            }
            let level = open.len();
            let Some(frame) = open.last_mut() else {
                return;
            };
            let code = frame.color();
            if frame.started {
                self.color(code);
            }
            let item = match &mut frame.items {
                Items::Arr(items) => items.next().map(|v| (None, v)),
                Items::Obj(pairs) => pairs.next().map(|(k, v)| (Some(k), v)),
            };
            let Some((key, item)) = item else {
                self.newline(level - 1);
                self.color(code);
                let close = if matches!(frame.items, Items::Arr(_)) {
                    b']'
                } else {
                    b'}'
                };
                self.out.push(close);
                self.reset();
                open.pop();
                continue;
            };
            if frame.started {
                self.out.push(b',');
            }
            frame.started = true;
            self.newline(level);
            if let Some(k) = key {
                self.key(k);
            }
            next = Some(item);
        }
    }

    /// Writes a scalar, an empty container or the opening of one (returned to be filled).
    fn start<'v>(&mut self, v: &'v Val, level: usize) -> Option<Open<'v>> {
        if level > MAX_JQ_DEPTH {
            self.out.extend_from_slice(b"<skipped: too deep>");
            return None;
        }
        match v {
            Val::Null => self.scalar(COL_NULL, "null"),
            Val::Bool(false) => self.scalar(COL_FALSE, "false"),
            Val::Bool(true) => self.scalar(COL_TRUE, "true"),
            Val::Num(n) => self.scalar(COL_NUM, &n.to_json()),
            Val::Str(s) => {
                self.color(COL_STR);
                write_string(self.out, s, self.fmt.ascii);
                self.reset();
            }
            Val::Arr(a) if a.is_empty() => self.scalar(COL_ARR, "[]"),
            Val::Obj(o) if o.is_empty() => self.scalar(COL_OBJ, "{}"),
            Val::Arr(a) => {
                self.color(COL_ARR);
                self.out.push(b'[');
                return Some(Open {
                    items: Items::Arr(a.iter()),
                    started: false,
                });
            }
            Val::Obj(o) => {
                self.color(COL_OBJ);
                self.out.push(b'{');
                let pairs: Vec<_> = if self.fmt.sort_keys {
                    o.sorted()
                } else {
                    o.iter().collect()
                };
                return Some(Open {
                    items: Items::Obj(pairs.into_iter()),
                    started: false,
                });
            }
        }
        None
    }

    fn scalar(&mut self, code: &str, text: &str) {
        self.color(code);
        self.out.extend_from_slice(text.as_bytes());
        self.reset();
    }

    /// An object's key and colon.
    fn key(&mut self, k: &str) {
        if self.fmt.color {
            self.reset();
            self.color(COL_FIELD);
            write_string(self.out, k, self.fmt.ascii);
            self.reset();
            self.color(COL_OBJ);
            self.out.push(b':');
            if self.fmt.pretty() {
                self.out.push(b' ');
            }
            self.reset();
        } else {
            write_string(self.out, k, self.fmt.ascii);
            self.out.push(b':');
            if self.fmt.pretty() {
                self.out.push(b' ');
            }
        }
    }
}

/// Writes `s` as a JSON string literal with jq's escapes.
pub fn write_string(out: &mut Vec<u8>, s: &str, ascii: bool) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let escape: Option<&[u8]> = match c {
            '"' => Some(b"\\\""),
            '\\' => Some(b"\\\\"),
            '\n' => Some(b"\\n"),
            '\t' => Some(b"\\t"),
            '\r' => Some(b"\\r"),
            '\u{8}' => Some(b"\\b"),
            '\u{c}' => Some(b"\\f"),
            _ => None,
        };
        let special =
            escape.is_some() || (c as u32) < 0x20 || c == '\u{7f}' || ascii && !c.is_ascii();
        if !special {
            continue;
        }
        out.extend_from_slice(&bytes[start..i]);
        start = i + c.len_utf8();
        match escape {
            Some(e) => out.extend_from_slice(e),
            None => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
                }
            }
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// Whether `b` ends a number or literal: structure, whitespace or a string's quote.
fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'[' | b'{' | b':' | b',' | b']' | b'}' | b' ' | b'\t' | b'\r' | b'\n' | b'"'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<String>, String> {
        let mut p = Parser::new();
        let mut out = Vec::new();
        p.feed(text.as_bytes(), &mut out)?;
        let last = p.finish()?;
        Ok(out
            .into_iter()
            .map(|p| p.val)
            .chain(last)
            .map(|v| to_string(&v))
            .collect())
    }

    #[test]
    fn parses_streams_and_reports_errors_like_jq() {
        assert_eq!(
            parse("1 2[3]{\"a\":\"b\"}"),
            Ok(vec![
                "1".into(),
                "2".into(),
                "[3]".into(),
                "{\"a\":\"b\"}".into()
            ])
        );
        let errors = [
            ("{a}", "Invalid numeric literal at line 1, column 3"),
            ("[1,2", "Unfinished JSON term at EOF at line 1, column 4"),
            (
                "{\"a\":1,}",
                "Expected another key-value pair at line 1, column 8",
            ),
            ("tru", "Invalid literal at EOF at line 1, column 3"),
            ("\"abc", "Unfinished string at EOF at line 1, column 4"),
            ("\"\\x\"", "Invalid escape at line 1, column 4"),
            (
                "{\"a\" 1}",
                "Expected separator between values at line 1, column 7",
            ),
            ("]", "Unmatched ']' at line 1, column 1"),
            ("[1,2\n", "Unfinished JSON term at EOF at line 2, column 0"),
            ("{1:2}", "Object keys must be strings at line 1, column 3"),
            ("[1,]", "Expected another array element at line 1, column 4"),
            ("[,1]", "Expected value before ',' at line 1, column 2"),
        ];
        for (text, want) in errors {
            assert_eq!(parse(text), Err(want.to_string()), "{text}");
        }
    }

    /// Values (as JSON with their lines) and the error of a stream read as `Inputs` reads a
    /// file: whole values where they can be, else `chunk` bytes at a time.
    fn read_like_inputs(text: &str, chunk: usize) -> (Vec<(String, usize)>, Option<String>) {
        let (data, mut p, mut out, mut at) = (text.as_bytes(), Parser::new(), Vec::new(), 0);
        let mut error = None;
        while at < data.len() {
            if let Some((parsed, used)) = p.whole_value(&data[at..]) {
                out.push(parsed);
                at += used;
                continue;
            }
            let end = (at + chunk).min(data.len());
            if let Err(e) = p.feed(&data[at..end], &mut out) {
                error = Some(e);
                break;
            }
            at = end;
        }
        if error.is_none() {
            match p.finish() {
                Ok(last) => out.extend(last.map(|val| Parsed {
                    val,
                    line: p.line() - 1,
                })),
                Err(e) => error = Some(e),
            }
        }
        let values = out
            .into_iter()
            .map(|p| (to_string(&p.val), p.line))
            .collect();
        (values, error)
    }

    #[test]
    fn whole_values_read_as_the_byte_parser_reads_them() {
        let texts = [
            "[1,2.50,\"a\\u00e9\\n\",{\"k\":[true,false,null],\"k\":1e2}]",
            "{\"a\":1}\n{\"a\":2}\n\n  [ ]  {} [[[]]]\n",
            "\u{feff}[1]\n[2]",
            "1 2 [3] \"x\" {\"b\": {\"c\": [4, 5]}}\n7",
            "[1, 2]\n[1,]\n",
            "{\"a\":1,}",
            "[1 2]",
            "[nan, NaN, -Infinity, 1E+2, 100000000000000000000001]",
            "{\"a\" 1}",
            "{\"a\":}",
            "[\"tab\there\"]",
            "[\"\\x\"]",
            "[1,2\n",
            "[\"é\\ud83d\\ude00\"] [\"\\\"\"]",
            "[{\"a\":[{\"b\":{}}]},\n{\"c\":\"d\"}]\n]",
        ];
        for text in texts {
            let mut whole = Parser::new();
            let mut reference = Vec::new();
            let error = whole.feed(text.as_bytes(), &mut reference).err();
            let error = error.or_else(|| match whole.finish() {
                Ok(last) => {
                    let line = whole.line() - 1;
                    reference.extend(last.map(|val| Parsed { val, line }));
                    None
                }
                Err(e) => Some(e),
            });
            let reference: Vec<(String, usize)> = reference
                .into_iter()
                .map(|p| (to_string(&p.val), p.line))
                .collect();
            // (The byte parser's line of a value depends on its chunk: compared whole only.)
            assert_eq!(
                read_like_inputs(text, 64),
                (reference.clone(), error.clone())
            );
            for chunk in [3, 5] {
                let (values, e) = read_like_inputs(text, chunk);
                let values: Vec<String> = values.into_iter().map(|v| v.0).collect();
                let want: Vec<String> = reference.iter().map(|v| v.0.clone()).collect();
                assert_eq!(
                    (values, e),
                    (want, error.clone()),
                    "{text:?} in chunks of {chunk}"
                );
            }
        }
    }

    #[test]
    fn array_items_are_the_items_of_the_whole_value() {
        let texts = [
            " [1, -0, 012, 1e2, 100000000000000000001, \"a\\u00e9\\n\", {\"k\": [true, null]}, [], {}]\n",
            "[[1,[2]],\n\"x\",\n{\"a\":{\"b\":[]}}] [3]",
            "[]",
            "[1,]",
            "[1 2]",
            "[\"\\x\"]",
            "[nan]",
            "[1,2",
            "{\"a\":1}",
        ];
        for text in texts {
            let whole = Parser::new().whole_value(text.as_bytes());
            let checked = Parser::new().whole_array(text.as_bytes());
            let Some((parsed, used)) = whole else {
                assert!(checked.is_none(), "{text:?}");
                continue;
            };
            if !text.trim_start().starts_with('[') {
                assert!(checked.is_none(), "{text:?}");
                continue;
            }
            assert_eq!(checked, Some((parsed.line, used)), "{text:?}");
            let items: Vec<String> = ArrayItems::new(Rc::new(text.as_bytes().to_vec()), 0)
                .map(|v| to_string(&v))
                .collect();
            let want: Vec<String> = match &parsed.val {
                Val::Arr(whole) => whole.iter().map(to_string).collect(),
                other => vec![to_string(other)],
            };
            assert_eq!(items, want, "{text:?}");
        }
    }

    #[test]
    fn whole_values_are_only_plain_complete_containers() {
        let mut p = Parser::new();
        assert!(p.whole_value(b"[1,2").is_none());
        assert!(p.whole_value(b"12 ").is_none());
        assert!(p.whole_value(b"[nul]").is_none());
        let (parsed, used) = p.whole_value(b" [1]\n[2]").expect("a whole array");
        assert_eq!(
            (to_string(&parsed.val), used, parsed.line),
            ("[1]".into(), 4, 1)
        );
        let deep = "[".repeat(MAX_JQ_DEPTH) + &"]".repeat(MAX_JQ_DEPTH);
        assert!(Parser::new().whole_value(deep.as_bytes()).is_none());
    }

    #[test]
    fn strings_escape_like_jq() {
        let mut out = Vec::new();
        write_string(&mut out, "a\"\\\n\u{7f}\u{1}é😀", false);
        assert_eq!(
            String::from_utf8_lossy(&out),
            "\"a\\\"\\\\\\n\\u007f\\u0001é😀\""
        );
        out.clear();
        write_string(&mut out, "é😀", true);
        assert_eq!(String::from_utf8_lossy(&out), "\"\\u00e9\\ud83d\\ude00\"");
    }
}
