//! Numbers for `printf` (and `seq -f`): C-style parsing of arguments (`0x1f`, `010`, `'c`)
//! and C-style formatting of integers and floating point (`%d`, `%08.3f`, `%g`, `%e`).

use crate::applets::common::float;

/// Flags, width and precision of one directive.
#[derive(Clone, Copy, Default, Debug)]
pub struct Spec {
    /// `-`: pad on the right.
    pub left: bool,
    /// `+`: a sign even for non-negative numbers.
    pub plus: bool,
    /// ` `: a space where a `+` would go.
    pub space: bool,
    /// `0`: pad with zeros after the sign.
    pub zero: bool,
    /// `#`: the alternate form (`0x`, a kept `.`, kept trailing zeros).
    pub alt: bool,
    /// The minimum field width (negative from `*` means left-justified).
    pub width: Option<i64>,
    /// The precision.
    pub precision: Option<i64>,
}

/// What was wrong with a numeric argument (the value is still used, as C does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumError {
    /// Not a number, or trailing garbage: `printf: ARG: invalid number` (or `octal number`,
    /// `hex number`, as the argument's own prefix suggests).
    Invalid(&'static str),
    /// Too large: clamped (`Numerical result out of range`).
    Range,
}

/// A parsed argument and what was wrong with it.
pub struct Parsed<T> {
    /// The value (as far as it could be read).
    pub value: T,
    /// The problem, if any.
    pub error: Option<NumError>,
}

/// `'c` and `"c` stand for the character's code.
fn char_code(text: &str) -> Option<i64> {
    let rest = text.strip_prefix('\'').or_else(|| text.strip_prefix('"'))?;
    Some(rest.chars().next().map_or(0, |c| i64::from(u32::from(c))))
}

/// An integer the way bash's `printf` reads one for `%d` (`strtoimax`): blanks, a sign, then
/// decimal, `0` octal, or `0x` hex; `'c` for a character code; an empty argument is 0.
pub fn parse_int(text: &str) -> Parsed<i64> {
    parse_integer(text, false)
}

/// An integer for `%u`, `%o`, `%x`, `%X` (`strtoumax`), as the bits of an `i64`: up to
/// `2^64 - 1`, a negative one wraps (`-1` → `2^64 - 1`), a larger one is `2^64 - 1` with a
/// range warning.
pub fn parse_uint(text: &str) -> Parsed<i64> {
    parse_integer(text, true)
}

fn parse_integer(text: &str, unsigned: bool) -> Parsed<i64> {
    if let Some(code) = char_code(text) {
        return Parsed {
            value: code,
            error: None,
        };
    }
    if text.is_empty() {
        return Parsed {
            value: 0,
            error: None,
        };
    }
    let trimmed = text.trim_start_matches([' ', '\t', '\n']);
    let (negative, body) = match trimmed.as_bytes().first() {
        Some(b'-') => (true, &trimmed[1..]),
        Some(b'+') => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let (radix, digits) = if let Some(hex) = body
        .strip_prefix("0x")
        .or_else(|| body.strip_prefix("0X"))
        .filter(|h| h.bytes().next().is_some_and(|b| b.is_ascii_hexdigit()))
    {
        (16, hex)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let end = digits
        .bytes()
        .position(|b| !(b as char).is_digit(radix))
        .unwrap_or(digits.len());
    let mut magnitude: u128 = 0;
    let mut overflow = false;
    for b in digits[..end].bytes() {
        let d = u128::from((b as char).to_digit(radix).unwrap_or(0));
        magnitude = magnitude * u128::from(radix) + d;
        if magnitude > u128::from(u64::MAX) + 1 {
            overflow = true;
            magnitude = u128::from(u64::MAX) + 1;
        }
    }
    let no_digits = end == 0 && radix != 8;
    let value = if unsigned {
        clamp_unsigned(negative, magnitude, &mut overflow)
    } else {
        clamp(negative, magnitude, &mut overflow)
    };
    let error = if no_digits || end < digits.len() {
        Some(NumError::Invalid(invalid_kind(text)))
    } else if overflow {
        Some(NumError::Range)
    } else {
        None
    };
    Parsed { value, error }
}

/// bash names the base the argument itself announces.
fn invalid_kind(text: &str) -> &'static str {
    if text.starts_with("0x") || text.starts_with("0X") {
        "invalid hex number"
    } else if text.starts_with('0') {
        "invalid octal number"
    } else {
        "invalid number"
    }
}

/// A signed magnitude clamped to `i64`, as `strtoimax` does.
fn clamp(negative: bool, magnitude: u128, overflow: &mut bool) -> i64 {
    if negative {
        if magnitude > 1u128 << 63 {
            *overflow = true;
            return i64::MIN;
        }
        return (magnitude as i128).wrapping_neg() as i64;
    }
    if magnitude > i64::MAX as u128 {
        *overflow = true;
        return i64::MAX;
    }
    magnitude as i64
}

/// A magnitude read by `strtoumax`: clamped to `u64`, negated modulo `2^64`.
fn clamp_unsigned(negative: bool, magnitude: u128, overflow: &mut bool) -> i64 {
    if magnitude > u128::from(u64::MAX) {
        *overflow = true;
        return -1;
    }
    let bits = magnitude as u64;
    (if negative { bits.wrapping_neg() } else { bits }) as i64
}

/// A floating-point argument the way `strtold` reads one, plus `'c` codes.
pub fn parse_float(text: &str) -> Parsed<f64> {
    if let Some(code) = char_code(text) {
        return Parsed {
            value: code as f64,
            error: None,
        };
    }
    if text.is_empty() {
        return Parsed {
            value: 0.0,
            error: None,
        };
    }
    let trimmed = text.trim_start_matches([' ', '\t', '\n']);
    let len = float_prefix(trimmed);
    let value = trimmed[..len].parse::<f64>().unwrap_or_else(|_| {
        let int = parse_int(&trimmed[..len]);
        int.value as f64
    });
    let error = (len == 0 || len < trimmed.len()).then_some(NumError::Invalid("invalid number"));
    Parsed { value, error }
}

/// How long the floating-point number at the start of `text` is (0 if there is none).
pub fn float_prefix(text: &str) -> usize {
    let b = text.as_bytes();
    let mut at = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let lower = text[at..].to_ascii_lowercase();
    for word in ["infinity", "inf", "nan"] {
        if lower.starts_with(word) {
            return at + word.len();
        }
    }
    if let Some(hex) = lower.strip_prefix("0x") {
        let hex_end = hex
            .bytes()
            .position(|c| !c.is_ascii_hexdigit())
            .map_or(lower.len(), |p| p + 2);
        if hex_end > 2 {
            return at + hex_end;
        }
    }
    let digits = |from: usize| {
        b[from..]
            .iter()
            .position(|c| !c.is_ascii_digit())
            .map_or(b.len(), |p| from + p)
    };
    let int_end = digits(at);
    let mut end = int_end;
    if b.get(end) == Some(&b'.') {
        end = digits(end + 1);
    }
    if end == at || (end == at + 1 && int_end == at) {
        return 0;
    }
    at = end;
    if matches!(b.get(at), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(at + 1), Some(b'+' | b'-')));
        let exp_end = digits(at + 1 + sign);
        if exp_end > at + 1 + sign {
            at = exp_end;
        }
    }
    at
}

/// `%d %i %u %o %x %X` of `value` with `spec`'s flags.
pub fn format_int(value: i64, conv: u8, spec: &Spec) -> String {
    let signed = matches!(conv, b'd' | b'i');
    let (sign, digits) = if signed {
        let sign = if value < 0 {
            "-"
        } else if spec.plus {
            "+"
        } else if spec.space {
            " "
        } else {
            ""
        };
        (sign, value.unsigned_abs().to_string())
    } else {
        let bits = value as u64;
        let digits = match conv {
            b'o' => format!("{bits:o}"),
            b'x' => format!("{bits:x}"),
            b'X' => format!("{bits:X}"),
            _ => bits.to_string(),
        };
        ("", digits)
    };
    let mut digits = match spec.precision {
        Some(0) if value == 0 => String::new(),
        Some(p) => float::zero_padded(&digits, usize::try_from(p).unwrap_or(0)),
        None => digits,
    };
    let mut prefix = sign.to_string();
    if spec.alt {
        match conv {
            b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
            b'x' if value != 0 => prefix.push_str("0x"),
            b'X' if value != 0 => prefix.push_str("0X"),
            _ => {}
        }
    }
    let zero = spec.zero && spec.precision.is_none();
    pad(&prefix, &digits, spec, zero)
}

/// Joins a sign/prefix and digits into the field: spaces before (or after, with `-`), or
/// zeros between the prefix and the digits.
pub fn pad(prefix: &str, body: &str, spec: &Spec, zero: bool) -> String {
    let width = spec.width.map_or(0, |w| w.unsigned_abs() as usize);
    let len = prefix.len() + body.len();
    let fill = width.saturating_sub(len);
    if spec.left {
        format!("{prefix}{body}{}", " ".repeat(fill))
    } else if zero {
        format!("{prefix}{}{body}", "0".repeat(fill))
    } else {
        format!("{}{prefix}{body}", " ".repeat(fill))
    }
}

/// `%f %e %g %a` (and upper-case forms) of `value` with `spec`'s flags.
pub fn format_float(value: f64, conv: u8, spec: &Spec) -> String {
    let upper = conv.is_ascii_uppercase();
    let sign = if value.is_sign_negative() && !value.is_nan() {
        "-"
    } else if spec.plus {
        "+"
    } else if spec.space {
        " "
    } else {
        ""
    };
    let magnitude = value.abs();
    if !magnitude.is_finite() {
        let word = if magnitude.is_nan() { "nan" } else { "inf" };
        let word = if upper {
            word.to_ascii_uppercase()
        } else {
            word.to_string()
        };
        return pad(sign, &word, spec, false);
    }
    let precision = spec.precision.map(|p| usize::try_from(p).unwrap_or(0));
    let body = match conv.to_ascii_lowercase() {
        b'f' => fixed(magnitude, precision.unwrap_or(6), spec.alt),
        b'e' => exponent(magnitude, precision.unwrap_or(6), spec.alt),
        b'a' => hex_float(magnitude, precision),
        _ => general(magnitude, precision.unwrap_or(6), spec.alt),
    };
    let body = if upper {
        body.to_ascii_uppercase()
    } else {
        body
    };
    pad(sign, &body, spec, spec.zero)
}

/// `%f`: `precision` digits after the point (no point at 0 unless `#`).
pub fn fixed(magnitude: f64, precision: usize, alt: bool) -> String {
    let mut text = float::fixed(magnitude, precision);
    if alt && precision == 0 {
        text.push('.');
    }
    text
}

/// `%e`: `d.ddde+XX` with at least two exponent digits.
pub fn exponent(magnitude: f64, precision: usize, alt: bool) -> String {
    let text = float::scientific(magnitude, precision);
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    let point = if alt && precision == 0 { "." } else { "" };
    format!("{mantissa}{point}e{sign}{:02}", exp.unsigned_abs())
}

/// `%g`: `%e` or `%f`, whichever C picks for this exponent, trailing zeros removed
/// (kept with `#`).
pub fn general(magnitude: f64, precision: usize, alt: bool) -> String {
    let p = precision.max(1);
    let probe = exponent(magnitude, p - 1, false);
    let exp: i64 = probe
        .rsplit_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let text = if exp < -4 || exp >= p as i64 {
        exponent(magnitude, p - 1, alt)
    } else {
        let decimals = usize::try_from(p as i64 - 1 - exp).unwrap_or(0);
        fixed(magnitude, decimals, alt)
    };
    if alt {
        return text;
    }
    strip_zeros(&text)
}

/// Removes trailing zeros of the fraction (and a bare point), keeping any exponent.
fn strip_zeros(text: &str) -> String {
    let (mantissa, exp) = match text.find('e') {
        Some(at) => text.split_at(at),
        None => (text, ""),
    };
    if !mantissa.contains('.') {
        return text.to_string();
    }
    let trimmed = mantissa.trim_end_matches('0').trim_end_matches('.');
    format!("{trimmed}{exp}")
}

/// `%a`: hexadecimal floating point (`0x1.8p+1`), as glibc prints a double.
fn hex_float(magnitude: f64, precision: Option<usize>) -> String {
    if magnitude == 0.0 {
        return match precision {
            Some(p) if p > 0 => format!("0x0.{}p+0", "0".repeat(p)),
            _ => "0x0p+0".to_string(),
        };
    }
    let bits = magnitude.to_bits();
    let raw_exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mantissa = bits & ((1u64 << 52) - 1);
    let (lead, exp) = if raw_exp == 0 {
        (0, -1022)
    } else {
        (1, raw_exp - 1023)
    };
    let mut digits = format!("{mantissa:013x}");
    if let Some(p) = precision.filter(|&p| p < 13) {
        let shift = 4 * (13 - p) as u32;
        let round = (mantissa >> (shift - 1)) & 1;
        mantissa = (mantissa >> shift) + round;
        digits = if p == 0 {
            String::new()
        } else {
            format!("{mantissa:0p$x}")
        };
    } else {
        digits = digits.trim_end_matches('0').to_string();
    }
    let point = if digits.is_empty() { "" } else { "." };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("0x{lead}{point}{digits}p{sign}{}", exp.unsigned_abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(width: Option<i64>, precision: Option<i64>) -> Spec {
        Spec {
            width,
            precision,
            ..Spec::default()
        }
    }

    #[test]
    fn formats_like_c() {
        assert_eq!(format_float(0.5, b'f', &spec(None, Some(0))), "0");
        assert_eq!(format_float(1.5, b'f', &spec(None, Some(0))), "2");
        assert_eq!(format_float(2.5, b'f', &spec(None, Some(0))), "2");
        assert_eq!(
            format_float(12345.678, b'e', &spec(None, None)),
            "1.234568e+04"
        );
        assert_eq!(format_float(0.0001, b'g', &spec(None, None)), "0.0001");
        assert_eq!(format_float(1e20, b'g', &spec(None, None)), "1e+20");
        assert_eq!(format_float(123456.0, b'g', &spec(None, None)), "123456");
        assert_eq!(
            format_float(1234567.0, b'g', &spec(None, None)),
            "1.23457e+06"
        );
        assert_eq!(format_float(1.0, b'a', &spec(None, None)), "0x1p+0");
        assert_eq!(format_float(3.0, b'a', &spec(None, None)), "0x1.8p+1");
        assert_eq!(format_int(255, b'x', &spec(Some(6), Some(4))), "  00ff");
        assert_eq!(parse_int("0x1f").value, 31);
        assert_eq!(parse_int("010").value, 8);
        assert_eq!(
            parse_int("12abc").error,
            Some(NumError::Invalid("invalid number"))
        );
        assert_eq!(
            parse_int("08").error,
            Some(NumError::Invalid("invalid octal number"))
        );
        assert_eq!(
            parse_float("1e3x").error,
            Some(NumError::Invalid("invalid number"))
        );
        assert_eq!(parse_float(" -2.5").value, -2.5);
        assert_eq!(float_prefix("."), 0);
        assert_eq!(float_prefix("5."), 2);
    }
}
