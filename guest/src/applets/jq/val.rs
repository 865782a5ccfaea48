//! jq's values for the jaq interpreter, with jq's semantics: doubles that keep their literal,
//! insertion-ordered objects, jq's ordering, arithmetic and error messages.

use std::cmp::Ordering;
use std::fmt;
use std::rc::Rc;

use jaq_core::box_iter::{box_once, BoxIter};
use jaq_core::path::Opt;
use jaq_core::{Exn, ValX};

use super::deep;
use super::json;
use super::map::Map;
use super::num::Num;

/// A JSON value as jq sees it.
#[derive(Clone, Debug, Default)]
pub enum Val {
    /// `null`
    #[default]
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number.
    Num(Num),
    /// A string.
    Str(Rc<str>),
    /// An array.
    Arr(Rc<Array>),
    /// An object.
    Obj(Rc<Map>),
}

/// The items of an array value. Dropping one does not recurse into nested values (see
/// [`deep::release`]), so 10,000 levels of nesting fit in the guest's stack.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Array(Vec<Val>);

impl Array {
    /// The items, leaving this array empty.
    pub fn take(&mut self) -> Vec<Val> {
        std::mem::take(&mut self.0)
    }

    /// The items of a shared array: moved out when nothing else holds it, else copied.
    pub fn into_vec(a: Rc<Array>) -> Vec<Val> {
        Rc::try_unwrap(a).map_or_else(|a| a.to_vec(), |mut a| a.take())
    }
}

impl std::ops::Deref for Array {
    type Target = Vec<Val>;
    fn deref(&self) -> &Vec<Val> {
        &self.0
    }
}

impl std::ops::DerefMut for Array {
    fn deref_mut(&mut self) -> &mut Vec<Val> {
        &mut self.0
    }
}

impl Drop for Array {
    fn drop(&mut self) {
        if deep::nested(self.0.iter()) {
            deep::release(self.take());
        }
    }
}

/// A result with a jq error.
pub type Res<T> = Result<T, jaq_core::Error<Val>>;

thread_local! {
    /// Set when a value being built did not fit in the guest's memory (jq's `cannot allocate
    /// memory`, which aborts jq): the command line stops before it shows anything more, so
    /// what evaluation did with the cut value is never seen ([`exhausted`]).
    static EXHAUSTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a value of `bytes` fits in the guest's memory with room for its copies: a string
/// is built, then copied into its `Rc`; an output is written out whole, into a buffer that
/// grows by doubling. (Twice the size let `"a" * 1e8` exhaust 352 MiB.)
fn room_for(bytes: usize) -> bool {
    bytes.saturating_mul(4) <= crate::task::memory_left()
}

/// [`room_for`], noting when not that jq's memory is exhausted.
fn fits(bytes: usize) -> bool {
    room_for(bytes) || {
        EXHAUSTED.with(|e| e.set(true));
        false
    }
}

/// Whether a value did not fit in memory since the last call: checked after every step of
/// evaluation, which is synchronous, so no other jq's evaluation comes between.
pub fn exhausted() -> bool {
    EXHAUSTED.with(|e| e.replace(false))
}

/// The bytes of `n` values in an array.
fn items_size(n: usize) -> usize {
    n.saturating_mul(std::mem::size_of::<Val>())
}

/// A jq runtime error with message `msg` (what `catch` sees).
pub fn err(msg: impl Into<String>) -> jaq_core::Error<Val> {
    jaq_core::Error::new(Val::from(msg.into()))
}

impl Val {
    /// A string value.
    pub fn str(s: &str) -> Val {
        Val::Str(Rc::from(s))
    }

    /// A computed number.
    pub fn num(f: f64) -> Val {
        Val::Num(Num::new(f))
    }

    /// An array value.
    pub fn arr(items: Vec<Val>) -> Val {
        Val::Arr(Rc::new(Array(items)))
    }

    /// jq's name of the value's type.
    pub fn kind(&self) -> &'static str {
        match self {
            Val::Null => "null",
            Val::Bool(_) => "boolean",
            Val::Num(_) => "number",
            Val::Str(_) => "string",
            Val::Arr(_) => "array",
            Val::Obj(_) => "object",
        }
    }

    /// Compact JSON text.
    pub fn to_json(&self) -> String {
        json::to_string(self)
    }

    /// `kind (json...)` as jq's error messages show values (cut at 11 bytes + `...`).
    pub fn describe(&self) -> String {
        format!("{} ({})", self.kind(), truncated(&self.to_json()))
    }

    /// The number, if this is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Val::Num(n) => Some(n.f),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Val::Str(s) => Some(s),
            _ => None,
        }
    }

    fn order(&self) -> u8 {
        match self {
            Val::Null => 0,
            Val::Bool(false) => 1,
            Val::Bool(true) => 2,
            Val::Num(_) => 3,
            Val::Str(_) => 4,
            Val::Arr(_) => 5,
            Val::Obj(_) => 6,
        }
    }

    fn iter_error(&self) -> jaq_core::Error<Val> {
        err(format!("Cannot iterate over {}", self.describe()))
    }

    fn index_error(&self, index: &Val) -> jaq_core::Error<Val> {
        err(format!(
            "Cannot index {} with {}",
            self.kind(),
            index.describe()
        ))
    }

    /// `.[index]`, or None where jq yields null.
    pub(super) fn get(&self, index: &Val) -> Result<Option<Val>, jaq_core::Error<Val>> {
        Ok(match (self, index) {
            (Val::Null, Val::Str(_) | Val::Num(_) | Val::Obj(_)) => None,
            (Val::Obj(o), Val::Str(k)) => o.get(k).cloned(),
            (Val::Arr(a), Val::Num(n)) => array_index(n.f, a.len()).map(|i| a[i].clone()),
            (Val::Arr(a), Val::Arr(b)) => Some(Val::arr(subarray_indices(a, b))),
            (Val::Arr(_) | Val::Str(_), Val::Obj(o)) => {
                let start = o.get("start");
                let end = o.get("end");
                return jaq_core::ValT::range(self.clone(), start..end).map(Some);
            }
            _ => return Err(self.index_error(index)),
        })
    }
}

/// jq's cut of a dumped value in error messages (a 15-byte buffer).
/// A value's JSON text cut as jq 1.8 cuts it in messages: at most 29 bytes, a longer text
/// keeping its first 26 (25 and a closing quote for a string) on a character boundary.
pub fn truncated(text: &str) -> String {
    if text.len() <= 29 {
        return text.to_string();
    }
    let quoted = text.starts_with('"');
    let mut end = if quoted { 25 } else { 26 };
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...{}", &text[..end], if quoted { "\"" } else { "" })
}

/// Where `.[f] = x` writes in an array of `len` (negative counts from the end), or jq's
/// error: a NaN index, one before the start, or one past what jq lets an array grow to.
pub fn array_slot(f: f64, len: usize) -> Res<usize> {
    if f.is_nan() {
        return Err(err("Cannot set array element at NaN index"));
    }
    let mut i = f.trunc();
    if i < 0.0 {
        i += len as f64;
        if i < 0.0 {
            return Err(err("Out of bounds negative array index"));
        }
    }
    if i > f64::from(i32::MAX >> 2) {
        return Err(err("Array index too large"));
    }
    Ok(i as usize)
}

/// The position of array index `f` (negative counts from the end), if inside the array.
fn array_index(f: f64, len: usize) -> Option<usize> {
    let i = f.floor();
    let i = if i < 0.0 { i + len as f64 } else { i };
    (i >= 0.0 && i < len as f64).then_some(i as usize)
}

/// Where the array `needle` starts inside `haystack` (`.[[1,2]]`, `indices([1,2])`).
pub fn subarray_indices(haystack: &[Val], needle: &[Val]) -> Vec<Val> {
    if needle.is_empty() {
        return Vec::new();
    }
    haystack
        .windows(needle.len())
        .enumerate()
        .filter(|(_, w)| *w == needle)
        .map(|(i, _)| Val::num(i as f64))
        .collect()
}

/// Slice bounds `[start, end)` as jq computes them (floor start, ceil end, clamp).
pub fn slice_bounds(
    range: jaq_core::val::Range<&Val>,
    len: usize,
) -> Result<(usize, usize), jaq_core::Error<Val>> {
    let bound = |b: Option<&Val>, default: f64| match b {
        None | Some(Val::Null) => Ok(default),
        Some(Val::Num(n)) => Ok(n.f),
        Some(_) => Err(err(
            "Start and end indices of an array slice must be numbers",
        )),
    };
    let len_f = len as f64;
    let mut start = bound(range.start, 0.0)?;
    let mut end = bound(range.end, len_f)?;
    if start < 0.0 {
        start += len_f;
    }
    if end < 0.0 {
        end += len_f;
    }
    start = start.clamp(0.0, len_f).floor();
    end = end.min(len_f).max(start);
    let s = start as usize;
    let mut e = end as usize;
    if (e as f64) < end {
        e += 1;
    }
    Ok((s, e.min(len)))
}

/// The byte range of characters `[start, end)` in `s`.
fn char_range(s: &str, start: usize, end: usize) -> (usize, usize) {
    let mut offsets = s.char_indices().map(|(i, _)| i).chain([s.len()]);
    let from = offsets.nth(start).unwrap_or(s.len());
    let to = if end > start {
        offsets.nth(end - start - 1).unwrap_or(s.len())
    } else {
        from
    };
    (from, to)
}

fn first_output<'a>(
    mut outputs: impl Iterator<Item = ValX<'a, Val>>,
) -> Result<Option<Val>, Exn<'a, Val>> {
    outputs.next().transpose()
}

impl jaq_core::ValT for Val {
    fn from_num(n: &str) -> Res<Self> {
        Num::parse(n)
            .map(Val::Num)
            .ok_or_else(|| err(format!("Invalid numeric literal {n}")))
    }

    fn from_map<I: IntoIterator<Item = (Self, Self)>>(iter: I) -> Res<Self> {
        let mut map = Map::new();
        for (k, v) in iter {
            match k {
                Val::Str(k) => map.insert(k, v),
                k => return Err(err(format!("Cannot use {} as object key", k.describe()))),
            }
        }
        Ok(Val::Obj(Rc::new(map)))
    }

    fn key_values(self) -> BoxIter<'static, Res<(Self, Self)>> {
        match self {
            Val::Arr(a) => {
                Box::new((0..a.len()).map(move |i| Ok((Val::num(i as f64), a[i].clone()))))
            }
            Val::Obj(o) => {
                let items: Vec<_> = o
                    .iter()
                    .map(|(k, v)| (Val::Str(Rc::clone(k)), v.clone()))
                    .collect();
                Box::new(items.into_iter().map(Ok))
            }
            v => box_once(Err(v.iter_error())),
        }
    }

    fn values(self) -> Box<dyn Iterator<Item = Res<Self>>> {
        match self {
            // A shared array (the input of `.[]` usually is) is walked in place, each item
            // cloned when reached: no copy of the whole item list (24 bytes an item).
            Val::Arr(a) => match Rc::try_unwrap(a) {
                Ok(mut a) => Box::new(a.take().into_iter().map(Ok)),
                Err(a) => Box::new((0..a.len()).map(move |i| Ok(a[i].clone()))),
            },
            Val::Obj(o) => {
                let items: Vec<_> = o.iter().map(|(_, v)| v.clone()).collect();
                Box::new(items.into_iter().map(Ok))
            }
            v => box_once(Err(v.iter_error())),
        }
    }

    fn index(self, index: &Self) -> Res<Self> {
        self.get(index).map(Option::unwrap_or_default)
    }

    fn range(self, range: jaq_core::val::Range<&Self>) -> Res<Self> {
        match &self {
            Val::Null => Ok(Val::Null),
            Val::Arr(a) => {
                let (s, e) = slice_bounds(range, a.len())?;
                Ok(Val::arr(a[s..e].to_vec()))
            }
            Val::Str(text) => {
                let (s, e) = slice_bounds(range, text.chars().count())?;
                let (from, to) = char_range(text, s, e);
                Ok(Val::str(&text[from..to]))
            }
            _ => Err(err(format!("Cannot index {} with object", self.kind()))),
        }
    }

    fn map_values<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        match self {
            Val::Arr(a) => {
                let mut out = Vec::with_capacity(a.len());
                for x in a.iter().cloned() {
                    if let Some(y) = first_output(f(x))? {
                        out.push(y);
                    }
                }
                Ok(Val::arr(out))
            }
            Val::Obj(o) => {
                let mut out = Map::new();
                for (k, v) in o.iter() {
                    if let Some(y) = first_output(f(v.clone()))? {
                        out.insert(Rc::clone(k), y);
                    }
                }
                Ok(Val::Obj(Rc::new(out)))
            }
            v => opt.fail(v, |v| Exn::from(v.iter_error())),
        }
    }

    fn map_index<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        index: &Self,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        match (self, index) {
            (Val::Null, Val::Str(_)) => Val::Obj(Rc::default()).map_index(index, opt, f),
            (Val::Null, Val::Num(_)) => Val::arr(Vec::new()).map_index(index, opt, f),
            (Val::Obj(mut o), Val::Str(k)) => {
                let old = o.get(k).cloned().unwrap_or_default();
                match first_output(f(old))? {
                    Some(y) => Rc::make_mut(&mut o).insert(Rc::clone(k), y),
                    None => {
                        Rc::make_mut(&mut o).remove(k);
                    }
                }
                Ok(Val::Obj(o))
            }
            (Val::Arr(mut a), Val::Num(n)) => {
                let i = match array_slot(n.f, a.len()) {
                    Ok(i) => i,
                    Err(e) => return opt.fail(Val::Arr(a), |_| Exn::from(e)),
                };
                let old = a.get(i).cloned().unwrap_or_default();
                let items = Rc::make_mut(&mut a);
                match first_output(f(old))? {
                    Some(y) => {
                        if i >= items.len() {
                            items.resize(i + 1, Val::Null);
                        }
                        items[i] = y;
                    }
                    None if i < items.len() => {
                        items.remove(i);
                    }
                    None => {}
                }
                Ok(Val::Arr(a))
            }
            (v @ (Val::Arr(_) | Val::Null), Val::Obj(o)) => {
                let range = o.get("start")..o.get("end");
                v.map_range(range, opt, f)
            }
            (v, index) => opt.fail(v, |v| Exn::from(v.index_error(index))),
        }
    }

    fn map_range<'a, I: Iterator<Item = ValX<'a, Self>>>(
        self,
        range: jaq_core::val::Range<&Self>,
        opt: Opt,
        f: impl Fn(Self) -> I,
    ) -> ValX<'a, Self> {
        let mut a = match self {
            Val::Null => Rc::default(),
            Val::Arr(a) => a,
            Val::Str(_) => {
                return opt.fail(self, |_| Exn::from(err("Cannot update string slices")))
            }
            v => {
                let kind = v.kind();
                return opt.fail(v, |_| {
                    Exn::from(err(format!(
                        "Cannot update field at object index of {kind}"
                    )))
                });
            }
        };
        let (s, e) = slice_bounds(range, a.len())?;
        let old = Val::arr(a[s..e].to_vec());
        let new = match first_output(f(old))? {
            Some(Val::Arr(new)) => new.to_vec(),
            Some(_) => {
                return Err(Exn::from(err(
                    "A slice of an array can only be assigned another array",
                )))
            }
            None => Vec::new(),
        };
        Rc::make_mut(&mut a).splice(s..e, new);
        Ok(Val::Arr(a))
    }

    fn as_bool(&self) -> bool {
        !matches!(self, Val::Null | Val::Bool(false))
    }

    fn into_string(self) -> Self {
        match self {
            Val::Str(_) => self,
            v => Val::from(v.to_json()),
        }
    }
}

impl jaq_std::ValT for Val {
    fn into_seq<S: FromIterator<Self>>(self) -> Result<S, Self> {
        match self {
            Val::Arr(a) => Ok(a.iter().cloned().collect()),
            v => Err(v),
        }
    }

    fn is_int(&self) -> bool {
        matches!(self, Val::Num(n) if n.f.is_finite() && n.f.fract() == 0.0)
    }

    fn as_isize(&self) -> Option<isize> {
        match self {
            Val::Num(n) if n.f.is_finite() => Some(n.f as isize),
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        Val::as_f64(self)
    }

    fn is_utf8_str(&self) -> bool {
        matches!(self, Val::Str(_))
    }

    fn as_bytes(&self) -> Option<&[u8]> {
        self.as_str().map(str::as_bytes)
    }

    fn as_sub_str(&self, sub: &[u8]) -> Self {
        if let Val::Str(s) = self {
            let start = (sub.as_ptr() as usize).wrapping_sub(s.as_ptr() as usize);
            if let Some(part) = start
                .checked_add(sub.len())
                .and_then(|end| s.get(start..end))
            {
                return Val::str(part);
            }
        }
        Val::from(String::from_utf8_lossy(sub).into_owned())
    }

    fn from_utf8_bytes(b: impl AsRef<[u8]> + Send + 'static) -> Self {
        Val::from(String::from_utf8_lossy(b.as_ref()).into_owned())
    }
}

impl From<bool> for Val {
    fn from(b: bool) -> Self {
        Val::Bool(b)
    }
}

impl From<isize> for Val {
    fn from(i: isize) -> Self {
        Val::num(i as f64)
    }
}

impl From<usize> for Val {
    fn from(i: usize) -> Self {
        Val::num(i as f64)
    }
}

impl From<f64> for Val {
    fn from(f: f64) -> Self {
        Val::num(f)
    }
}

impl From<String> for Val {
    fn from(s: String) -> Self {
        Val::Str(Rc::from(s))
    }
}

impl From<jaq_core::val::Range<Val>> for Val {
    fn from(r: jaq_core::val::Range<Val>) -> Self {
        let mut map = Map::new();
        map.insert(Rc::from("start"), r.start.unwrap_or_default());
        map.insert(Rc::from("end"), r.end.unwrap_or_default());
        Val::Obj(Rc::new(map))
    }
}

impl FromIterator<Val> for Val {
    /// `[f]`: stops early when the array would not fit in memory ([`exhausted`]).
    fn from_iter<T: IntoIterator<Item = Val>>(iter: T) -> Self {
        let mut items = Vec::new();
        for v in iter {
            if items.len() == items.capacity() && !fits(items_size(items.len().max(4) * 2)) {
                break;
            }
            items.push(v);
        }
        Val::arr(items)
    }
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

impl PartialEq for Val {
    fn eq(&self, other: &Self) -> bool {
        deep::equal(self, other)
    }
}

impl Eq for Val {}

impl PartialOrd for Val {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Val {
    fn cmp(&self, other: &Self) -> Ordering {
        deep::cmp(self, other)
    }
}

impl Val {
    /// jq's order of two values that are not both arrays or both objects.
    pub fn cmp_scalar(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Val::Num(a), Val::Num(b)) => match (a.f.is_nan(), b.f.is_nan()) {
                (true, true) => Ordering::Equal,
                _ => a.cmp(b),
            },
            (Val::Str(a), Val::Str(b)) => a.as_bytes().cmp(b.as_bytes()),
            _ => self.order().cmp(&other.order()),
        }
    }

    /// Equality of two values that are not both arrays or both objects (NaN equals nothing).
    pub fn eq_scalar(&self, other: &Self) -> bool {
        match (self, other) {
            (Val::Num(a), Val::Num(b)) => {
                !a.f.is_nan() && !b.f.is_nan() && a.cmp(b) == Ordering::Equal
            }
            _ => self.cmp_scalar(other) == Ordering::Equal,
        }
    }
}

fn binop_error(l: &Val, r: &Val, what: &str) -> jaq_core::Error<Val> {
    err(format!("{} and {} {what}", l.describe(), r.describe()))
}

impl std::ops::Add for Val {
    type Output = Res<Val>;
    fn add(self, rhs: Self) -> Self::Output {
        match (self, rhs) {
            (Val::Null, x) | (x, Val::Null) => Ok(x),
            (Val::Num(a), Val::Num(b)) => Ok(Val::num(a.f + b.f)),
            (Val::Str(a), Val::Str(b)) if !fits(a.len() + b.len()) => Ok(Val::Null),
            (Val::Str(a), Val::Str(b)) => {
                let mut s = String::with_capacity(a.len() + b.len());
                s.push_str(&a);
                s.push_str(&b);
                Ok(Val::from(s))
            }
            (Val::Arr(a), Val::Arr(b)) if !fits(items_size(a.len() + b.len())) => Ok(Val::Null),
            (Val::Arr(mut a), Val::Arr(b)) => {
                Rc::make_mut(&mut a).extend(b.iter().cloned());
                Ok(Val::Arr(a))
            }
            (Val::Obj(mut a), Val::Obj(b)) => {
                let map = Rc::make_mut(&mut a);
                for (k, v) in b.iter() {
                    map.insert(Rc::clone(k), v.clone());
                }
                Ok(Val::Obj(a))
            }
            (l, r) => Err(binop_error(&l, &r, "cannot be added")),
        }
    }
}

impl std::ops::Sub for Val {
    type Output = Res<Val>;
    fn sub(self, rhs: Self) -> Self::Output {
        match (self, rhs) {
            (Val::Num(a), Val::Num(b)) => Ok(Val::num(a.f - b.f)),
            (Val::Arr(mut a), Val::Arr(b)) => {
                Rc::make_mut(&mut a).retain(|x| !b.contains(x));
                Ok(Val::Arr(a))
            }
            (l, r) => Err(binop_error(&l, &r, "cannot be subtracted")),
        }
    }
}

fn repeat_string(s: &str, times: f64) -> Res<Val> {
    if times.is_nan() || times < 0.0 {
        return Ok(Val::Null);
    }
    let n = if times < 1.0 {
        0
    } else {
        times.min(f64::from(i32::MAX)) as usize
    };
    let len = s.len().saturating_mul(n);
    if len > 1 << 29 || !room_for(len) {
        return Err(err("Repeat string result too long"));
    }
    Ok(Val::from(s.repeat(n)))
}

impl std::ops::Mul for Val {
    type Output = Res<Val>;
    fn mul(self, rhs: Self) -> Self::Output {
        match (self, rhs) {
            (Val::Num(a), Val::Num(b)) => Ok(Val::num(a.f * b.f)),
            (Val::Str(s), Val::Num(n)) | (Val::Num(n), Val::Str(s)) => repeat_string(&s, n.f),
            (Val::Obj(a), Val::Obj(b)) => deep::merge(a, &b),
            (l, r) => Err(binop_error(&l, &r, "cannot be multiplied")),
        }
    }
}

/// Splits `s` at each `sep` (jq's `split/1` and string division).
pub fn split_str(s: &str, sep: &str) -> Vec<Val> {
    if s.is_empty() {
        return Vec::new();
    }
    if sep.is_empty() {
        return s.chars().map(|c| Val::from(c.to_string())).collect();
    }
    s.split(sep).map(Val::str).collect()
}

impl std::ops::Div for Val {
    type Output = Res<Val>;
    fn div(self, rhs: Self) -> Self::Output {
        match (&self, &rhs) {
            (Val::Num(a), Val::Num(b)) => {
                if b.f == 0.0 {
                    Err(binop_error(
                        &self,
                        &rhs,
                        "cannot be divided because the divisor is zero",
                    ))
                } else {
                    Ok(Val::num(a.f / b.f))
                }
            }
            (Val::Str(a), Val::Str(b)) => Ok(Val::arr(split_str(a, b))),
            _ => Err(binop_error(&self, &rhs, "cannot be divided")),
        }
    }
}

/// jq's double to integer conversion for `%` (saturating).
fn to_int(f: f64) -> i64 {
    if f.is_nan() {
        0
    } else {
        f as i64
    }
}

impl std::ops::Rem for Val {
    type Output = Res<Val>;
    fn rem(self, rhs: Self) -> Self::Output {
        match (&self, &rhs) {
            // jq 1.8: a NaN on either side gives NaN.
            (Val::Num(a), Val::Num(b)) if a.f.is_nan() || b.f.is_nan() => Ok(Val::num(f64::NAN)),
            (Val::Num(a), Val::Num(b)) => {
                let d = to_int(b.f);
                if d == 0 {
                    return Err(binop_error(
                        &self,
                        &rhs,
                        "cannot be divided (remainder) because the divisor is zero",
                    ));
                }
                let r = if d == -1 { 0 } else { to_int(a.f) % d };
                Ok(Val::num(r as f64))
            }
            _ => Err(binop_error(&self, &rhs, "cannot be divided (remainder)")),
        }
    }
}

impl std::ops::Neg for Val {
    type Output = Res<Val>;
    fn neg(self) -> Self::Output {
        match self {
            Val::Num(n) => Ok(Val::Num(n.negated())),
            v => Err(err(format!("{} cannot be negated", v.describe()))),
        }
    }
}
