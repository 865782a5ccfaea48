//! jq's numbers: IEEE doubles that remember the literal they were read from (jq 1.7 prints
//! an unchanged input number as its canonical decimal literal: `1.50`, `1E+2`, big integers).

use std::cmp::Ordering;
use std::rc::Rc;

/// A number: its double value and, when it came from a literal, that literal in canonical form.
#[derive(Clone, Debug)]
pub struct Num {
    /// The value used for arithmetic.
    pub f: f64,
    /// The canonical literal (decNumber's to-scientific-string), if unchanged since parsing.
    pub lit: Option<Rc<str>>,
}

impl Num {
    /// A computed number (no literal).
    pub fn new(f: f64) -> Self {
        Num { f, lit: None }
    }

    /// A number from literal text (`1.50`, `1e2`, `-0`), or None if the text is no number.
    pub fn parse(text: &str) -> Option<Self> {
        if let Some(f) = small_integer(text) {
            // Prints, negates and compares the same with or without its literal: keep none
            // (no allocation for the commonest numbers in JSON).
            return Some(Num::new(f));
        }
        if text.eq_ignore_ascii_case("nan") {
            return Some(Num::new(f64::NAN));
        }
        let dec = Decimal::parse(text)?;
        let f = text.parse::<f64>().ok().or_else(|| dec.to_f64())?;
        Some(Num {
            f,
            lit: Some(Rc::from(dec.canonical())),
        })
    }

    /// `-n`: a literal stays a literal with the other sign (jq 1.8 negates decimal literals
    /// exactly), except zero.
    pub fn negated(&self) -> Self {
        let lit =
            self.lit
                .as_ref()
                .filter(|_| self.f != 0.0)
                .map(|lit| match lit.strip_prefix('-') {
                    Some(positive) => Rc::from(positive),
                    None => Rc::from(format!("-{lit}")),
                });
        Num { f: -self.f, lit }
    }

    /// The text jq prints for this number.
    pub fn to_json(&self) -> String {
        if self.f.is_nan() {
            return "null".to_string();
        }
        match &self.lit {
            Some(lit) => lit.to_string(),
            None => format_f64(self.f),
        }
    }

    /// Orders two numbers the way jq does (nan below everything, literals compared exactly).
    pub fn cmp(&self, other: &Num) -> Ordering {
        if let (Some(a), Some(b)) = (&self.lit, &other.lit) {
            if self.f == other.f && !self.f.is_nan() {
                if let (Some(x), Some(y)) = (Decimal::parse(a), Decimal::parse(b)) {
                    return x.cmp_value(&y);
                }
            }
        }
        cmp_f64(self.f, other.f)
    }
}

/// The value of an integer literal of at most 15 digits (`-?[0-9]{1,15}`): exact as a double,
/// and what [`format_f64`] prints for it is its canonical literal.
fn small_integer(text: &str) -> Option<f64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || digits.len() > 15 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let value = digits
        .bytes()
        .fold(0u64, |n, b| n * 10 + u64::from(b - b'0')) as f64;
    Some(if digits.len() < text.len() {
        -value
    } else {
        value
    })
}

/// jq's order on doubles: nan is smaller than any number (and than itself).
pub fn cmp_f64(a: f64, b: f64) -> Ordering {
    if a.is_nan() {
        Ordering::Less
    } else if b.is_nan() {
        Ordering::Greater
    } else {
        a.partial_cmp(&b).unwrap_or(Ordering::Equal)
    }
}

/// Formats a double like jq (shortest round-trip digits, `1e+17`, `1e-05`, infinities clamped).
pub fn format_f64(f: f64) -> String {
    if f.is_nan() {
        return "null".to_string();
    }
    let f = f.clamp(f64::MIN, f64::MAX);
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let decpt = exp.parse::<i32>().unwrap_or(0) + 1;
    let mut out = String::new();
    if f < 0.0 {
        out.push('-');
    }
    layout_digits(&mut out, &digits, decpt);
    out
}

/// jvp_dtoa_fmt's layout of `digits` with the decimal point after `decpt` digits.
fn layout_digits(out: &mut String, digits: &str, decpt: i32) {
    let n = digits.len() as i32;
    if decpt <= -4 || decpt > n + 15 {
        out.push_str(&digits[..1]);
        if n > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let e = decpt - 1;
        out.push('e');
        out.push(if e < 0 { '-' } else { '+' });
        out.push_str(&format!("{:02}", e.abs()));
    } else if decpt <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-decpt) as usize));
        out.push_str(digits);
    } else if decpt >= n {
        out.push_str(digits);
        out.extend(std::iter::repeat_n('0', (decpt - n) as usize));
    } else {
        out.push_str(&digits[..decpt as usize]);
        out.push('.');
        out.push_str(&digits[decpt as usize..]);
    }
}

/// A decimal literal split into sign, coefficient digits and exponent.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    /// Coefficient digits without leading zeros ("0" for zero).
    coef: String,
    exp: i64,
}

impl Decimal {
    /// Parses `[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?`.
    fn parse(text: &str) -> Option<Self> {
        let bytes = text.as_bytes();
        let mut i = 0;
        let negative = match bytes.first() {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let int_start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        let int_part = &text[int_start..i];
        let mut frac_part = "";
        if i < bytes.len() && bytes[i] == b'.' {
            i += 1;
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            frac_part = &text[start..i];
        }
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let mut exp: i64 = 0;
        if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
            let rest = &text[i + 1..];
            let digits = rest.strip_prefix(['+', '-']).unwrap_or(rest);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            exp = rest.parse::<i64>().unwrap_or(if rest.starts_with('-') {
                -999_999_999
            } else {
                999_999_999
            });
            i = bytes.len();
        }
        if i != bytes.len() {
            return None;
        }
        let all = format!("{int_part}{frac_part}");
        let trimmed = all.trim_start_matches('0');
        let coef = if trimmed.is_empty() { "0" } else { trimmed };
        Some(Decimal {
            negative,
            coef: coef.to_string(),
            exp: exp - frac_part.len() as i64,
        })
    }

    fn to_f64(&self) -> Option<f64> {
        let sign = if self.negative { "-" } else { "" };
        format!("{sign}{}e{}", self.coef, self.exp).parse().ok()
    }

    /// decNumber's to-scientific-string.
    fn canonical(&self) -> String {
        let mut out = String::new();
        if self.negative {
            out.push('-');
        }
        let len = self.coef.len() as i64;
        let adjusted = self.exp + len - 1;
        if self.exp <= 0 && adjusted >= -6 {
            if self.exp == 0 {
                out.push_str(&self.coef);
            } else if len > -self.exp {
                let point = (len + self.exp) as usize;
                out.push_str(&self.coef[..point]);
                out.push('.');
                out.push_str(&self.coef[point..]);
            } else {
                out.push_str("0.");
                out.extend(std::iter::repeat_n('0', (-self.exp - len) as usize));
                out.push_str(&self.coef);
            }
        } else {
            out.push_str(&self.coef[..1]);
            if len > 1 {
                out.push('.');
                out.push_str(&self.coef[1..]);
            }
            out.push('E');
            out.push(if adjusted < 0 { '-' } else { '+' });
            out.push_str(&adjusted.abs().to_string());
        }
        out
    }

    /// Compares the exact values.
    fn cmp_value(&self, other: &Decimal) -> Ordering {
        let zero = |d: &Decimal| d.coef == "0";
        let sign = |d: &Decimal| {
            if zero(d) {
                0
            } else if d.negative {
                -1
            } else {
                1
            }
        };
        let (sa, sb) = (sign(self), sign(other));
        if sa != sb || sa == 0 {
            return sa.cmp(&sb);
        }
        let magnitude = self.cmp_magnitude(other);
        if sa < 0 {
            magnitude.reverse()
        } else {
            magnitude
        }
    }

    fn cmp_magnitude(&self, other: &Decimal) -> Ordering {
        let adj = |d: &Decimal| d.exp + d.coef.len() as i64;
        adj(self).cmp(&adj(other)).then_with(|| {
            let a = self.coef.trim_end_matches('0');
            let b = other.coef.trim_end_matches('0');
            a.cmp(b)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(text: &str) -> String {
        Num::parse(text).map(|n| n.to_json()).unwrap_or_default()
    }

    #[test]
    fn literals_print_in_canonical_form() {
        let cases = [
            ("1.000", "1.000"),
            ("1.5e3", "1.5E+3"),
            ("500000e-1", "50000.0"),
            ("99999999999999e1", "9.9999999999999E+14"),
            ("5e-6", "0.000005"),
            ("1e-7", "1E-7"),
            ("100e-7", "0.0000100"),
            ("1e1000", "1E+1000"),
            ("-0", "-0"),
            ("-0.0", "-0.0"),
            ("0e5", "0E+5"),
            ("01", "1"),
            ("1.", "1"),
            ("100000000000000000001", "100000000000000000001"),
        ];
        for (text, want) in cases {
            assert_eq!(lit(text), want, "{text}");
        }
        assert!(Num::parse("1e").is_none());
        assert!(Num::parse("-").is_none());
    }

    #[test]
    fn small_integers_behave_as_their_literals() {
        let texts = [
            "0",
            "-0",
            "7",
            "007",
            "-42",
            "500",
            "123456789012345",
            "-999999999999999",
        ];
        for text in texts {
            let fast = Num::parse(text).expect("a number");
            assert!(fast.lit.is_none(), "{text}");
            let dec = Decimal::parse(text).expect("a decimal");
            let slow = Num {
                f: fast.f,
                lit: Some(Rc::from(dec.canonical())),
            };
            assert_eq!(fast.to_json(), slow.to_json(), "{text}");
            assert_eq!(fast.negated().to_json(), slow.negated().to_json(), "{text}");
            assert_eq!(fast.f.is_sign_negative(), text.starts_with('-'), "{text}");
            for other in ["-1", "0", "42", "1.5", "1e3", "123456789012345.0"] {
                let other = Num::parse(other).expect("a number");
                assert_eq!(fast.cmp(&other), slow.cmp(&other), "{text}");
            }
        }
        // 16 digits and more keep their literal (the double may print differently).
        assert!(Num::parse("1000000000000000")
            .expect("a number")
            .lit
            .is_some());
    }

    #[test]
    fn doubles_print_like_jvp_dtoa_fmt() {
        let cases = [
            (1.0, "1"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e17, "1e+17"),
            (1.23e17, "123000000000000000"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e100, "1e+100"),
            (-2.5, "-2.5"),
            (f64::INFINITY, "1.7976931348623157e+308"),
            (12345678901234567890123.0, "12345678901234568000000"),
        ];
        for (f, want) in cases {
            assert_eq!(format_f64(f), want, "{f}");
        }
    }

    #[test]
    fn literals_compare_exactly() {
        let a = Num::parse("12345678901234567890123").unwrap_or(Num::new(0.0));
        let b = Num::parse("12345678901234567890124").unwrap_or(Num::new(0.0));
        assert_eq!(a.cmp(&b), Ordering::Less);
        assert_eq!(Num::new(f64::NAN).cmp(&Num::new(1.0)), Ordering::Less);
    }
}
