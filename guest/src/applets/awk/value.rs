//! awk values: numbers, strings, "strnums" (input that may look numeric), the uninitialized
//! value, and arrays (only in variables and function arguments); conversions between them.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::rc::Rc;

use super::array::Array;
use super::format;

/// Shared bytes: awk strings are byte strings (UTF-8 when it is valid). A variable that
/// holds the only reference can grow in place (`s = s x` in a loop stays linear).
#[derive(Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Bytes(Rc<Vec<u8>>);

impl Bytes {
    /// The bytes for appending: in place when unshared, else a copy.
    pub fn make_mut(&mut self) -> &mut Vec<u8> {
        Rc::make_mut(&mut self.0)
    }
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl std::borrow::Borrow<[u8]> for Bytes {
    fn borrow(&self) -> &[u8] {
        &self.0
    }
}

impl From<&[u8]> for Bytes {
    fn from(s: &[u8]) -> Self {
        Bytes(Rc::new(s.to_vec()))
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(v: Vec<u8>) -> Self {
        Bytes(Rc::new(v))
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(&self.0))
    }
}

/// A shared array.
pub type ArrayRef = Rc<RefCell<Array>>;

/// One awk value.
#[derive(Clone, Debug)]
pub enum Value {
    /// Never assigned: "" and 0 at once.
    Uninit,
    /// A number.
    Num(f64),
    /// A string (a constant or the result of a string operation).
    Str(Bytes),
    /// A string from input (fields, getline, ARGV, -v): numeric if it looks like a number.
    StrNum(Bytes),
    /// An array, as held by a variable or passed to a function.
    Arr(ArrayRef),
}

/// The empty string.
pub fn empty() -> Bytes {
    Bytes::default()
}

impl Value {
    /// A string value from bytes.
    pub fn str(bytes: &[u8]) -> Value {
        Value::Str(Bytes::from(bytes))
    }

    /// A strnum value from bytes (input data).
    pub fn strnum(bytes: &[u8]) -> Value {
        Value::StrNum(Bytes::from(bytes))
    }

    /// A number from a boolean.
    pub fn bool(b: bool) -> Value {
        Value::Num(if b { 1.0 } else { 0.0 })
    }

    /// The numeric value (strings convert by their longest numeric prefix).
    pub fn num(&self) -> f64 {
        match self {
            Value::Num(n) => *n,
            Value::Str(s) | Value::StrNum(s) => str_to_num(s),
            Value::Uninit | Value::Arr(_) => 0.0,
        }
    }

    /// The number it compares as, if it compares numerically.
    pub fn numeric(&self) -> Option<f64> {
        match self {
            Value::Num(n) => Some(*n),
            Value::Uninit => Some(0.0),
            Value::StrNum(s) => looks_numeric(s),
            Value::Str(_) | Value::Arr(_) => None,
        }
    }

    /// The string value; numbers format with `convfmt` unless integral.
    pub fn to_bytes(&self, convfmt: &[u8]) -> Bytes {
        match self {
            Value::Str(s) | Value::StrNum(s) => s.clone(),
            Value::Num(n) => Bytes::from(num_to_bytes(*n, convfmt)),
            Value::Uninit | Value::Arr(_) => empty(),
        }
    }

    /// Appends the string value to `out`.
    pub fn append_to(&self, out: &mut Vec<u8>, convfmt: &[u8]) {
        match self {
            Value::Str(s) | Value::StrNum(s) => out.extend_from_slice(s),
            Value::Num(n) => push_num(out, *n, convfmt),
            Value::Uninit | Value::Arr(_) => {}
        }
    }

    /// Awk truth: non-zero numbers, non-empty strings, numeric-looking input by its number.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Num(n) => *n != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::StrNum(s) => match looks_numeric(s) {
                Some(n) => n != 0.0,
                None => !s.is_empty(),
            },
            Value::Uninit => false,
            Value::Arr(_) => true,
        }
    }
}

/// Compares two values the awk way: numerically when both are numeric, else as strings.
pub fn compare(a: &Value, b: &Value, convfmt: &[u8]) -> Ordering {
    if let (Some(x), Some(y)) = (a.numeric(), b.numeric()) {
        return x.partial_cmp(&y).unwrap_or(Ordering::Less);
    }
    a.to_bytes(convfmt).cmp(&b.to_bytes(convfmt))
}

/// Whether two values are equal (the `==` operator).
pub fn equal(a: &Value, b: &Value, convfmt: &[u8]) -> bool {
    if let (Some(x), Some(y)) = (a.numeric(), b.numeric()) {
        return x == y;
    }
    a.to_bytes(convfmt) == b.to_bytes(convfmt)
}

/// The bytes of a number: integers without decimals, others through `fmt` (CONVFMT/OFMT).
pub fn num_to_bytes(n: f64, fmt: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    push_num(&mut out, n, fmt);
    out
}

/// Appends the text of a number (see [`num_to_bytes`]).
pub fn push_num(out: &mut Vec<u8>, n: f64, fmt: &[u8]) {
    if n.is_nan() || n.is_infinite() {
        out.extend_from_slice(special_float(n).as_bytes());
    } else if n == n.trunc() {
        if n.abs() < 1e18 {
            push_int(out, n as i64);
        } else {
            out.extend_from_slice(format!("{n:.0}").as_bytes());
        }
    } else if fmt == b"%.6g" {
        format::push_g(out, n, 6, false, false);
    } else {
        format::sprintf_num(out, fmt, n);
    }
}

/// `+inf`, `-inf`, `+nan`, `-nan` as gawk prints them.
pub fn special_float(n: f64) -> &'static str {
    match (n.is_nan(), n.is_sign_negative()) {
        (true, true) => "-nan",
        (true, false) => "+nan",
        (false, true) => "-inf",
        (false, false) => "+inf",
    }
}

/// Appends a decimal integer without allocating.
pub fn push_int(out: &mut Vec<u8>, n: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&digits[at..]);
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c')
}

/// The number a string starts with, like C's `strtod` (0 when there is none).
pub fn str_to_num(s: &[u8]) -> f64 {
    let start = s.iter().position(|&b| !is_blank(b)).unwrap_or(s.len());
    let s = &s[start..];
    let len = numeric_prefix(s);
    if len == 0 {
        return special_prefix(s).map_or(0.0, |(n, _)| n);
    }
    parse_f64(&s[..len])
}

/// The number a whole string is (blanks around allowed), if it is one.
pub fn looks_numeric(s: &[u8]) -> Option<f64> {
    let start = s.iter().position(|&b| !is_blank(b))?;
    let end = s
        .iter()
        .rposition(|&b| !is_blank(b))
        .map_or(start, |e| e + 1);
    let s = &s[start..end];
    let len = numeric_prefix(s);
    if len == 0 {
        return special_prefix(s).and_then(|(n, l)| (l == s.len()).then_some(n));
    }
    (len == s.len()).then(|| parse_f64(s))
}

/// `+inf`, `-nan`...: gawk only reads these with an explicit sign.
fn special_prefix(s: &[u8]) -> Option<(f64, usize)> {
    let sign = match s.first() {
        Some(b'+') => 1.0,
        Some(b'-') => -1.0,
        _ => return None,
    };
    let word = s.get(1..4)?.to_ascii_lowercase();
    match word.as_slice() {
        b"inf" => Some((sign * f64::INFINITY, 4)),
        b"nan" => Some((if sign < 0.0 { -f64::NAN } else { f64::NAN }, 4)),
        _ => None,
    }
}

fn parse_f64(s: &[u8]) -> f64 {
    // Most input numbers are short integers: exact as f64 up to 15 digits, no float parsing.
    let (negative, digits) = match s {
        [b'-', rest @ ..] => (true, rest),
        [b'+', rest @ ..] => (false, rest),
        _ => (false, s),
    };
    if !digits.is_empty() && digits.len() <= 15 && digits.iter().all(u8::is_ascii_digit) {
        let n = digits
            .iter()
            .fold(0u64, |n, &d| n * 10 + u64::from(d - b'0')) as f64;
        return if negative { -n } else { n };
    }
    std::str::from_utf8(s)
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .unwrap_or(0.0)
}

/// The length of the decimal number at the start of `s` (sign, digits, fraction, exponent).
fn numeric_prefix(s: &[u8]) -> usize {
    let mut i = 0;
    if matches!(s.first(), Some(b'+' | b'-')) {
        i = 1;
    }
    let int_start = i;
    while i < s.len() && s[i].is_ascii_digit() {
        i += 1;
    }
    let mut digits = i - int_start;
    if i < s.len() && s[i] == b'.' {
        let frac_start = i + 1;
        let mut j = frac_start;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        digits += j - frac_start;
        if digits > 0 {
            i = j;
        }
    }
    if digits == 0 {
        return 0;
    }
    if i < s.len() && (s[i] == b'e' || s[i] == b'E') {
        let mut j = i + 1;
        if j < s.len() && (s[j] == b'+' || s[j] == b'-') {
            j += 1;
        }
        let exp_start = j;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        if j > exp_start {
            i = j;
        }
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions() {
        assert_eq!(str_to_num(b" 12abc"), 12.0);
        assert_eq!(str_to_num(b".5e1x"), 5.0);
        assert_eq!(str_to_num(b"1e"), 1.0);
        assert_eq!(str_to_num(b"0x1A"), 0.0);
        assert_eq!(str_to_num(b"-"), 0.0);
        assert_eq!(looks_numeric(b" 12 "), Some(12.0));
        assert_eq!(looks_numeric(b"12a"), None);
        assert_eq!(looks_numeric(b""), None);
        assert_eq!(looks_numeric(b"+inf"), Some(f64::INFINITY));
        assert_eq!(num_to_bytes(3.0, b"%.6g"), b"3".to_vec());
        assert_eq!(num_to_bytes(0.1 + 0.2, b"%.6g"), b"0.3".to_vec());
        assert_eq!(
            num_to_bytes(1e30, b"%.6g"),
            b"1000000000000000019884624838656".to_vec()
        );
        assert_eq!(num_to_bytes(-0.0, b"%.6g"), b"0".to_vec());
    }
}
