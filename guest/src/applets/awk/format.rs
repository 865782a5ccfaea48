//! `printf`/`sprintf` formatting like C's (and gawk's): `%d %i %o %x %X %u %c %s %e %E %f %F
//! %g %G %%` with flags `- + space # 0`, widths, precisions and `*`.

use super::value::{push_int, special_float, Value};
use crate::applets::common::float;

/// One conversion's flags, width and precision.
#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

/// Formats `args` by `fmt` into `out`; the error is gawk's message when arguments run out.
pub fn sprintf(
    out: &mut Vec<u8>,
    fmt: &[u8],
    args: &[Value],
    convfmt: &[u8],
) -> Result<(), String> {
    let mut next = 0;
    let mut i = 0;
    while i < fmt.len() {
        let b = fmt[i];
        if b != b'%' {
            let run = fmt[i..]
                .iter()
                .position(|&c| c == b'%')
                .unwrap_or(fmt.len() - i);
            out.extend_from_slice(&fmt[i..i + run]);
            i += run;
            continue;
        }
        let start = i;
        i += 1;
        let mut spec = Spec::default();
        while let Some(&f) = fmt.get(i) {
            match f {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                // Thousands grouping: none in the C.UTF-8 locale the sandbox has.
                b'\'' => {}
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            i += 1;
            let w = take_arg(args, &mut next, fmt, start)?.num();
            if w < 0.0 {
                spec.left = true;
            }
            spec.width = w.abs().min(1e6) as usize;
        } else {
            spec.width = read_count(fmt, &mut i);
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                let p = take_arg(args, &mut next, fmt, start)?.num();
                spec.prec = (p >= 0.0).then_some(p.min(1e6) as usize);
            } else {
                spec.prec = Some(read_count(fmt, &mut i));
            }
        }
        if matches!(fmt.get(i), Some(b'h' | b'l' | b'L')) {
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        if conv == b'%' {
            out.push(b'%');
            continue;
        }
        if !b"diouxXcseEfFgGaA".contains(&conv) {
            out.extend_from_slice(&fmt[start..i]);
            continue;
        }
        let arg = take_arg(args, &mut next, fmt, start)?;
        convert(out, conv, &spec, arg, convfmt);
    }
    Ok(())
}

fn read_count(fmt: &[u8], i: &mut usize) -> usize {
    let mut n: usize = 0;
    while let Some(d) = fmt.get(*i).filter(|d| d.is_ascii_digit()) {
        n = n
            .saturating_mul(10)
            .saturating_add(usize::from(d - b'0'))
            .min(1_000_000);
        *i += 1;
    }
    n
}

fn take_arg<'a>(
    args: &'a [Value],
    next: &mut usize,
    fmt: &[u8],
    at: usize,
) -> Result<&'a Value, String> {
    let arg = args.get(*next).ok_or_else(|| {
        format!(
            "not enough arguments to satisfy format string\n\t`{}'\n\t{}^ ran out for this one",
            String::from_utf8_lossy(fmt),
            " ".repeat(at + 1)
        )
    })?;
    *next += 1;
    Ok(arg)
}

fn convert(out: &mut Vec<u8>, conv: u8, spec: &Spec, arg: &Value, convfmt: &[u8]) {
    match conv {
        b'c' => {
            let text = char_of(arg);
            let text = truncate_chars(&text, spec.prec);
            pad(out, b"", text, spec, false);
        }
        b's' => {
            let text = arg.to_bytes(convfmt);
            let text = truncate_chars(&text, spec.prec);
            pad(out, b"", text, spec, false);
        }
        b'd' | b'i' => format_int(out, arg.num(), spec),
        b'o' | b'u' | b'x' | b'X' => format_unsigned(out, arg.num(), conv, spec),
        _ => format_float(out, arg.num(), conv, spec),
    }
}

/// `%c`: a number is a code point, a string gives its first character.
fn char_of(arg: &Value) -> Vec<u8> {
    let number = match arg {
        Value::Num(n) => Some(*n),
        Value::StrNum(s) => super::value::looks_numeric(s),
        _ => None,
    };
    match number {
        Some(n) => {
            let code = n as u32;
            if code < 128 {
                vec![code as u8]
            } else {
                char::from_u32(code).map_or(vec![code as u8], |c| c.to_string().into_bytes())
            }
        }
        None => {
            let s = arg.to_bytes(b"%.6g");
            match s.first() {
                Some(&b) => s[..utf8_len(&s, b)].to_vec(),
                // gawk prints a NUL for the empty string.
                None => vec![0],
            }
        }
    }
}

fn utf8_len(s: &[u8], first: u8) -> usize {
    let want = match first {
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf7 => 4,
        _ => 1,
    };
    if want > 1 && s.len() >= want && std::str::from_utf8(&s[..want]).is_ok() {
        want
    } else {
        1
    }
}

/// The first `prec` characters (UTF-8 aware) of `s`.
fn truncate_chars(s: &[u8], prec: Option<usize>) -> &[u8] {
    let Some(prec) = prec else { return s };
    let mut at = 0;
    for _ in 0..prec {
        match s.get(at) {
            Some(&b) => at += utf8_len(&s[at..], b),
            None => break,
        }
    }
    &s[..at]
}

fn char_count(s: &[u8]) -> usize {
    s.iter().filter(|&&b| b & 0xc0 != 0x80).count()
}

/// Writes `sign` + `body` padded to the width; zeros go between sign and body.
fn pad(out: &mut Vec<u8>, sign: &[u8], body: &[u8], spec: &Spec, zero_ok: bool) {
    let len = sign.len() + char_count(body);
    let fill = spec.width.saturating_sub(len);
    if spec.left {
        out.extend_from_slice(sign);
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if spec.zero && zero_ok {
        out.extend_from_slice(sign);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(sign);
        out.extend_from_slice(body);
    }
}

fn sign_of(negative: bool, spec: &Spec) -> &'static [u8] {
    if negative {
        b"-"
    } else if spec.plus {
        b"+"
    } else if spec.space {
        b" "
    } else {
        b""
    }
}

fn format_special(out: &mut Vec<u8>, n: f64, spec: &Spec) {
    let text = special_float(n);
    let no_zero = Spec {
        zero: false,
        ..*spec
    };
    pad(out, b"", text.as_bytes(), &no_zero, false);
}

fn format_int(out: &mut Vec<u8>, n: f64, spec: &Spec) {
    if !n.is_finite() {
        return format_special(out, n, spec);
    }
    let t = n.trunc();
    let mut digits = Vec::new();
    if t.abs() < 9.2e18 {
        push_int(&mut digits, (t as i64).abs());
    } else {
        digits.extend_from_slice(format!("{:.0}", t.abs()).as_bytes());
    }
    let digits = with_precision(digits, spec.prec);
    pad(
        out,
        sign_of(t < 0.0, spec),
        &digits,
        spec,
        spec.prec.is_none(),
    );
}

/// An integer's digits padded with zeros to `prec` digits (`%.0d` of 0 is empty).
fn with_precision(digits: Vec<u8>, prec: Option<usize>) -> Vec<u8> {
    match prec {
        Some(0) if digits == b"0" => Vec::new(),
        Some(p) if p > digits.len() => {
            let mut padded = vec![b'0'; p - digits.len()];
            padded.extend_from_slice(&digits);
            padded
        }
        _ => digits,
    }
}

fn format_unsigned(out: &mut Vec<u8>, n: f64, conv: u8, spec: &Spec) {
    if !n.is_finite() {
        return format_special(out, n, spec);
    }
    let t = n.trunc();
    if !(-9.2e18..1.8e19).contains(&t) {
        return format_float(out, n, b'g', spec);
    }
    let u = if t < 0.0 { (t as i64) as u64 } else { t as u64 };
    let text = match conv {
        b'o' => format!("{u:o}"),
        b'x' => format!("{u:x}"),
        b'X' => format!("{u:X}"),
        _ => u.to_string(),
    };
    let mut digits = with_precision(text.into_bytes(), spec.prec);
    let mut prefix: &[u8] = b"";
    if spec.alt && u != 0 {
        match conv {
            b'o' if !digits.starts_with(b"0") => digits.insert(0, b'0'),
            b'x' => prefix = b"0x",
            b'X' => prefix = b"0X",
            _ => {}
        }
    }
    pad(out, prefix, &digits, spec, spec.prec.is_none());
}

fn format_float(out: &mut Vec<u8>, n: f64, conv: u8, spec: &Spec) {
    if !n.is_finite() {
        return format_special(out, n, spec);
    }
    let prec = spec.prec.unwrap_or(6);
    let mut body = Vec::new();
    let upper = conv.is_ascii_uppercase();
    match conv {
        b'e' | b'E' => push_e(&mut body, n.abs(), prec, upper),
        b'f' | b'F' => body.extend_from_slice(float::fixed(n.abs(), prec).as_bytes()),
        b'a' | b'A' => push_hex_float(&mut body, n.abs(), spec.prec, upper),
        _ => push_g(&mut body, n.abs(), prec, upper, spec.alt),
    }
    if spec.alt && prec == 0 && matches!(conv, b'e' | b'E' | b'f' | b'F') {
        let at = body
            .iter()
            .position(|&b| b == b'e' || b == b'E')
            .unwrap_or(body.len());
        body.insert(at, b'.');
    }
    pad(out, sign_of(n.is_sign_negative(), spec), &body, spec, true);
}

/// `%e`: `d.ddde+XX`.
fn push_e(out: &mut Vec<u8>, n: f64, prec: usize, upper: bool) {
    let text = float::scientific(n, prec);
    let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
    out.extend_from_slice(mantissa.as_bytes());
    push_exponent(out, exp.parse().unwrap_or(0), upper);
}

fn push_exponent(out: &mut Vec<u8>, exp: i32, upper: bool) {
    out.push(if upper { b'E' } else { b'e' });
    out.push(if exp < 0 { b'-' } else { b'+' });
    if exp.abs() < 10 {
        out.push(b'0');
    }
    push_int(out, i64::from(exp.abs()));
}

/// `%g` of a non-negative number (also the default CONVFMT/OFMT `%.6g`).
pub fn push_g(out: &mut Vec<u8>, n: f64, prec: usize, upper: bool, alt: bool) {
    if n < 0.0 {
        out.push(b'-');
        return push_g(out, -n, prec, upper, alt);
    }
    let p = prec.max(1);
    let exp = if n == 0.0 {
        0
    } else {
        let text = float::scientific(n, p - 1);
        text.split_once('e')
            .and_then(|(_, e)| e.parse::<i32>().ok())
            .unwrap_or(0)
    };
    let start = out.len();
    if exp < -4 || exp >= p as i32 {
        push_e(out, n, p - 1, upper);
    } else {
        let decimals = (p as i32 - 1 - exp).max(0) as usize;
        out.extend_from_slice(float::fixed(n, decimals).as_bytes());
    }
    if !alt {
        strip_zeros(out, start);
    }
}

/// Removes trailing zeros of the fraction (and a bare `.`) before any exponent.
fn strip_zeros(out: &mut Vec<u8>, start: usize) {
    let text = &out[start..];
    if !text.contains(&b'.') {
        return;
    }
    let exp_at = text
        .iter()
        .position(|&b| b == b'e' || b == b'E')
        .map_or(out.len(), |p| start + p);
    let mut end = exp_at;
    while end > start && out[end - 1] == b'0' {
        end -= 1;
    }
    if end > start && out[end - 1] == b'.' {
        end -= 1;
    }
    let exponent = out[exp_at..].to_vec();
    out.truncate(end);
    out.extend_from_slice(&exponent);
}

/// `%a`: hexadecimal floating point, as glibc prints it.
fn push_hex_float(out: &mut Vec<u8>, n: f64, prec: Option<usize>, upper: bool) {
    let bits = n.to_bits();
    let raw_exp = ((bits >> 52) & 0x7ff) as i64;
    let mut mantissa = bits & ((1u64 << 52) - 1);
    let (lead, exp) = match (raw_exp, mantissa) {
        (0, 0) => (0, 0),
        (0, _) => (0, -1022),
        _ => (1, raw_exp - 1023),
    };
    let mut digits = format!("{mantissa:013x}");
    if let Some(p) = prec.filter(|&p| p < 13) {
        let shift = (13 - p) * 4;
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
    let mut text = format!("0x{lead}");
    if !digits.is_empty() {
        text.push('.');
        text.push_str(&digits);
    }
    text.push_str(&format!("p{exp:+}"));
    if upper {
        text = text.to_uppercase();
    }
    out.extend_from_slice(text.as_bytes());
}

/// Formats one number with a CONVFMT/OFMT format (falling back to `%.6g` when the format is
/// not a single numeric conversion).
pub fn sprintf_num(out: &mut Vec<u8>, fmt: &[u8], n: f64) {
    let args = [Value::Num(n)];
    let mut text = Vec::new();
    if sprintf(&mut text, fmt, &args, b"%.6g").is_ok() {
        out.extend_from_slice(&text);
    } else {
        push_g(out, n, 6, false, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(fmt: &str, args: &[Value]) -> String {
        let mut out = Vec::new();
        let _ = sprintf(&mut out, fmt.as_bytes(), args, b"%.6g");
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn formats_like_c() {
        let n = Value::Num;
        assert_eq!(
            f("%5.2f|%-4d|%04d", &[n(1.23456), n(7.0), n(-7.0)]),
            " 1.23|7   |-007"
        );
        assert_eq!(
            f("%e|%G|%g", &[n(12345.678), n(0.0001), n(1e-5)]),
            "1.234568e+04|0.0001|1e-05"
        );
        assert_eq!(
            f("%g|%g|%#g", &[n(100000.0), n(1e6), n(1.5)]),
            "100000|1e+06|1.50000"
        );
        assert_eq!(
            f("%x|%o|%u|%#x", &[n(-1.0), n(8.0), n(3.0), n(255.0)]),
            "ffffffffffffffff|10|3|0xff"
        );
        assert_eq!(f("%.0f %.0f %a", &[n(2.5), n(3.5), n(1.0)]), "2 4 0x1p+0");
        assert_eq!(
            f("%c%c%c", &[n(65.0), n(233.0), Value::str(b"hello")]),
            "Aéh"
        );
        assert_eq!(f("%5%|%z|%.2d", &[n(5.0)]), "%|%z|05");
    }
}
