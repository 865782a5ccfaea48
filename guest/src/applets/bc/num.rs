//! Arbitrary-precision decimal numbers as GNU bc computes with them: a sign, a magnitude in
//! base 10^9 limbs and a scale (digits after the point); results are truncated, never rounded.

use std::cmp::Ordering;

/// One limb holds nine decimal digits.
const BASE: u64 = 1_000_000_000;
const POW10: [u32; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// A magnitude: little-endian base-10^9 limbs, no high zero limbs (zero is empty).
type Mag = Vec<u32>;

fn trim(m: &mut Mag) {
    while m.last() == Some(&0) {
        m.pop();
    }
}

fn mag_cmp(a: &[u32], b: &[u32]) -> Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.iter().rev().cmp(b.iter().rev()))
}

fn mag_add(a: &[u32], b: &[u32]) -> Mag {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = Vec::with_capacity(long.len() + 1);
    let mut carry = 0u64;
    for (i, &x) in long.iter().enumerate() {
        let sum = u64::from(x) + u64::from(short.get(i).copied().unwrap_or(0)) + carry;
        out.push((sum % BASE) as u32);
        carry = sum / BASE;
    }
    if carry > 0 {
        out.push(carry as u32);
    }
    out
}

/// `a - b` for `a >= b`.
fn mag_sub(a: &[u32], b: &[u32]) -> Mag {
    let mut out = Vec::with_capacity(a.len());
    let mut borrow = 0i64;
    for (i, &x) in a.iter().enumerate() {
        let mut d = i64::from(x) - i64::from(b.get(i).copied().unwrap_or(0)) - borrow;
        borrow = 0;
        if d < 0 {
            d += BASE as i64;
            borrow = 1;
        }
        out.push(d as u32);
    }
    trim(&mut out);
    out
}

fn mag_mul(a: &[u32], b: &[u32]) -> Mag {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut acc = vec![0u64; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u64;
        for (j, &y) in b.iter().enumerate() {
            let cur = acc[i + j] + u64::from(x) * u64::from(y) + carry;
            acc[i + j] = cur % BASE;
            carry = cur / BASE;
        }
        let mut k = i + b.len();
        while carry > 0 {
            let cur = acc[k] + carry;
            acc[k] = cur % BASE;
            carry = cur / BASE;
            k += 1;
        }
    }
    let mut out: Mag = acc.into_iter().map(|d| d as u32).collect();
    trim(&mut out);
    out
}

fn mag_mul_small(a: &[u32], m: u32) -> Mag {
    let mut out = Vec::with_capacity(a.len() + 1);
    let mut carry = 0u64;
    for &x in a {
        let cur = u64::from(x) * u64::from(m) + carry;
        out.push((cur % BASE) as u32);
        carry = cur / BASE;
    }
    if carry > 0 {
        out.push(carry as u32);
    }
    trim(&mut out);
    out
}

/// `(a / d, a % d)` for a small divisor.
fn mag_divmod_small(a: &[u32], d: u32) -> (Mag, u32) {
    let mut out = vec![0u32; a.len()];
    let mut rem = 0u64;
    for i in (0..a.len()).rev() {
        let cur = rem * BASE + u64::from(a[i]);
        out[i] = (cur / u64::from(d)) as u32;
        rem = cur % u64::from(d);
    }
    trim(&mut out);
    (out, rem as u32)
}

/// Long division (Knuth's algorithm D in base 10^9): `(a / b, a % b)`, `b` non-zero.
fn mag_divmod(a: &[u32], b: &[u32]) -> (Mag, Mag) {
    if mag_cmp(a, b) == Ordering::Less {
        return (Vec::new(), a.to_vec());
    }
    if b.len() == 1 {
        let (q, r) = mag_divmod_small(a, b[0]);
        let mut r = vec![r];
        trim(&mut r);
        return (q, r);
    }
    // Normalise so the divisor's top limb is at least BASE / 2.
    let factor = (BASE / (u64::from(b[b.len() - 1]) + 1)) as u32;
    let u = {
        let mut u = mag_mul_small(a, factor);
        u.resize(a.len() + 1, 0);
        u
    };
    let v = mag_mul_small(b, factor);
    let n = v.len();
    let m = u.len() - n;
    let mut u = u;
    let mut q = vec![0u32; m];
    let vtop = u64::from(v[n - 1]);
    let vnext = u64::from(v[n - 2]);
    for j in (0..m).rev() {
        let num = u64::from(u[j + n]) * BASE + u64::from(u[j + n - 1]);
        let mut qhat = num / vtop;
        let mut rhat = num % vtop;
        while qhat >= BASE || qhat * vnext > rhat * BASE + u64::from(u[j + n - 2]) {
            qhat -= 1;
            rhat += vtop;
            if rhat >= BASE {
                break;
            }
        }
        // Multiply and subtract.
        let mut borrow = 0i64;
        let mut carry = 0u64;
        for i in 0..n {
            let p = qhat * u64::from(v[i]) + carry;
            carry = p / BASE;
            let t = i64::from(u[i + j]) - (p % BASE) as i64 - borrow;
            if t < 0 {
                u[i + j] = (t + BASE as i64) as u32;
                borrow = 1;
            } else {
                u[i + j] = t as u32;
                borrow = 0;
            }
        }
        let t = i64::from(u[j + n]) - carry as i64 - borrow;
        if t < 0 {
            u[j + n] = (t + BASE as i64) as u32;
            // Add back: qhat was one too large.
            qhat -= 1;
            let mut carry = 0u64;
            for i in 0..n {
                let s = u64::from(u[i + j]) + u64::from(v[i]) + carry;
                u[i + j] = (s % BASE) as u32;
                carry = s / BASE;
            }
            u[j + n] = ((u64::from(u[j + n]) + carry) % BASE) as u32;
        } else {
            u[j + n] = t as u32;
        }
        q[j] = qhat as u32;
    }
    trim(&mut q);
    u.truncate(n);
    trim(&mut u);
    let (r, _) = mag_divmod_small(&u, factor);
    (q, r)
}

/// `a * 10^n`.
fn mag_shift_up(a: &[u32], n: usize) -> Mag {
    if a.is_empty() {
        return Vec::new();
    }
    let mut out = vec![0u32; n / 9];
    out.extend_from_slice(&mag_mul_small(a, POW10[n % 9]));
    out
}

/// `a / 10^n`, truncated.
fn mag_shift_down(a: &[u32], n: usize) -> Mag {
    let limbs = n / 9;
    if limbs >= a.len() {
        return Vec::new();
    }
    mag_divmod_small(&a[limbs..], POW10[n % 9]).0
}

fn mag_from_u64(mut x: u64) -> Mag {
    let mut out = Vec::new();
    while x > 0 {
        out.push((x % BASE) as u32);
        x /= BASE;
    }
    out
}

fn mag_to_decimal(a: &[u32]) -> String {
    let Some((top, rest)) = a.split_last() else {
        return "0".to_string();
    };
    let mut s = top.to_string();
    for limb in rest.iter().rev() {
        s.push_str(&format!("{limb:09}"));
    }
    s
}

fn mag_from_decimal(digits: &str) -> Mag {
    let bytes = digits.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 9 + 1);
    let mut end = bytes.len();
    while end > 0 {
        let start = end.saturating_sub(9);
        let limb = bytes[start..end]
            .iter()
            .fold(0u32, |acc, b| acc * 10 + u32::from(b - b'0'));
        out.push(limb);
        end = start;
    }
    trim(&mut out);
    out
}

/// Integer square root (floor) by Newton's method.
fn mag_isqrt(n: &[u32]) -> Mag {
    if n.is_empty() {
        return Vec::new();
    }
    let digits = mag_to_decimal(n).len();
    let mut x = mag_shift_up(&[1], digits.div_ceil(2));
    loop {
        let (q, _) = mag_divmod(n, &x);
        let (next, _) = mag_divmod_small(&mag_add(&x, &q), 2);
        if mag_cmp(&next, &x) != Ordering::Less {
            return x;
        }
        x = next;
    }
}

/// A bc number.
#[derive(Clone, Debug, Default)]
pub struct Num {
    neg: bool,
    mag: Mag,
    scale: usize,
}

/// Why an operation failed, in bc's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NumError {
    /// `x / 0`.
    DivideByZero,
    /// `x % 0`.
    ModuloByZero,
    /// `0 ^ -1` (bc's lowercase message).
    RaiseZero,
    /// `sqrt(-1)`.
    NegativeSqrt,
    /// An exponent that does not fit.
    ExponentTooLarge,
}

impl NumError {
    /// The message bc prints.
    pub fn message(&self) -> &'static str {
        match self {
            NumError::DivideByZero => "Divide by zero",
            NumError::ModuloByZero => "Modulo by zero",
            NumError::RaiseZero => "divide by zero",
            NumError::NegativeSqrt => "Square root of a negative number",
            NumError::ExponentTooLarge => "exponent too large in raise",
        }
    }
}

impl Num {
    /// Zero.
    pub fn zero() -> Num {
        Num::default()
    }

    /// An integer.
    pub fn from_i64(i: i64) -> Num {
        Num {
            neg: i < 0,
            mag: mag_from_u64(i.unsigned_abs()),
            scale: 0,
        }
    }

    fn new(neg: bool, mag: Mag, scale: usize) -> Num {
        let neg = neg && !mag.is_empty();
        Num { neg, mag, scale }
    }

    /// Parses a decimal literal (`12`, `1.50`, `.5`).
    pub fn parse_decimal(text: &str) -> Num {
        let (int, frac) = text.split_once('.').unwrap_or((text, ""));
        let digits = format!("{int}{frac}");
        Num::new(false, mag_from_decimal(&digits), frac.len())
    }

    /// Digits after the point.
    pub fn scale(&self) -> usize {
        self.scale
    }

    /// Whether this is zero.
    pub fn is_zero(&self) -> bool {
        self.mag.is_empty()
    }

    /// The value with `scale` digits after the point (padded or truncated).
    pub fn rescale(&self, scale: usize) -> Num {
        let mag = match scale.cmp(&self.scale) {
            Ordering::Greater => mag_shift_up(&self.mag, scale - self.scale),
            Ordering::Less => mag_shift_down(&self.mag, self.scale - scale),
            Ordering::Equal => self.mag.clone(),
        };
        Num::new(self.neg, mag, scale)
    }

    /// The integer part, saturated to i64 (bc's `num2long`).
    pub fn to_i64(&self) -> i64 {
        let int = mag_shift_down(&self.mag, self.scale);
        let mut v: i64 = 0;
        for limb in int.iter().rev() {
            v = match v
                .checked_mul(BASE as i64)
                .and_then(|v| v.checked_add(i64::from(*limb)))
            {
                Some(v) => v,
                None => return if self.neg { i64::MIN } else { i64::MAX },
            };
        }
        if self.neg {
            -v
        } else {
            v
        }
    }

    /// Whether the value fits in an i64 integer part.
    pub fn fits_i64(&self) -> bool {
        mag_shift_down(&self.mag, self.scale).len() <= 2
    }

    /// `length(x)`: significant digits.
    pub fn length(&self) -> usize {
        if self.is_zero() {
            return self.scale.max(1);
        }
        let int = mag_shift_down(&self.mag, self.scale);
        if int.is_empty() {
            return self.scale.max(1);
        }
        mag_to_decimal(&int).len() + self.scale
    }

    /// Compares values (not scales).
    pub fn cmp_value(&self, other: &Num) -> Ordering {
        match (self.neg, other.neg) {
            (false, true) => return Ordering::Greater,
            (true, false) => return Ordering::Less,
            _ => {}
        }
        let s = self.scale.max(other.scale);
        let (a, b) = (self.rescale(s), other.rescale(s));
        let ord = mag_cmp(&a.mag, &b.mag);
        if self.neg {
            ord.reverse()
        } else {
            ord
        }
    }

    /// `-x`.
    pub fn neg(&self) -> Num {
        Num::new(!self.neg, self.mag.clone(), self.scale)
    }

    /// `a + b` (scale: the larger of the two).
    pub fn add(&self, other: &Num) -> Num {
        let s = self.scale.max(other.scale);
        let (a, b) = (self.rescale(s), other.rescale(s));
        if a.neg == b.neg {
            return Num::new(a.neg, mag_add(&a.mag, &b.mag), s);
        }
        match mag_cmp(&a.mag, &b.mag) {
            Ordering::Less => Num::new(b.neg, mag_sub(&b.mag, &a.mag), s),
            _ => Num::new(a.neg, mag_sub(&a.mag, &b.mag), s),
        }
    }

    /// `a - b`.
    pub fn sub(&self, other: &Num) -> Num {
        self.add(&other.neg())
    }

    /// `a * b` with bc's result scale `min(sa + sb, max(scale, sa, sb))`.
    pub fn mul(&self, other: &Num, scale: usize) -> Num {
        let full = self.scale + other.scale;
        let rs = full.min(scale.max(self.scale).max(other.scale));
        let product = Num::new(self.neg != other.neg, mag_mul(&self.mag, &other.mag), full);
        product.rescale(rs)
    }

    /// `a / b` truncated to `scale` digits.
    pub fn div(&self, other: &Num, scale: usize) -> Result<Num, NumError> {
        if other.is_zero() {
            return Err(NumError::DivideByZero);
        }
        let up = other.scale + scale;
        let (num, den) = if up >= self.scale {
            (mag_shift_up(&self.mag, up - self.scale), other.mag.clone())
        } else {
            (self.mag.clone(), mag_shift_up(&other.mag, self.scale - up))
        };
        let (q, _) = mag_divmod(&num, &den);
        Ok(Num::new(self.neg != other.neg, q, scale))
    }

    /// `a % b` = `a - (a / b) * b` with the division at `scale`.
    pub fn rem(&self, other: &Num, scale: usize) -> Result<Num, NumError> {
        if other.is_zero() {
            return Err(NumError::ModuloByZero);
        }
        let rs = self.scale.max(other.scale + scale);
        let q = self.div(other, scale)?;
        let t = q.mul(other, rs);
        Ok(self.sub(&t).rescale(rs.max(self.scale).max(t.scale)))
    }

    /// `a ^ e` for an integer exponent (bc truncates a fractional one, with a warning).
    pub fn pow(&self, exponent: i64, scale: usize) -> Result<Num, NumError> {
        if exponent == 0 {
            return Ok(Num::from_i64(1));
        }
        let e = exponent.unsigned_abs();
        if e > 1 << 40 || (self.mag.len() as u64).saturating_mul(e) > 1 << 22 {
            if self.is_zero() && exponent > 0 {
                return Ok(Num::zero());
            }
            return Err(NumError::ExponentTooLarge);
        }
        let mut result: Mag = vec![1];
        let mut base = self.mag.clone();
        let mut k = e;
        while k > 0 {
            if k & 1 == 1 {
                result = mag_mul(&result, &base);
            }
            k >>= 1;
            if k > 0 {
                base = mag_mul(&base, &base);
            }
        }
        let neg = self.neg && e % 2 == 1;
        let exact = Num::new(neg, result, self.scale * e as usize);
        if exponent < 0 {
            return Num::from_i64(1)
                .div(&exact, scale)
                .map_err(|_| NumError::RaiseZero);
        }
        let rs = (self.scale * e as usize).min(scale.max(self.scale));
        Ok(exact.rescale(rs))
    }

    /// `sqrt(x)` truncated to `max(scale, scale(x))` digits.
    pub fn sqrt(&self, scale: usize) -> Result<Num, NumError> {
        if self.neg {
            return Err(NumError::NegativeSqrt);
        }
        let rs = scale.max(self.scale);
        let n = mag_shift_up(&self.mag, 2 * rs - self.scale);
        Ok(Num::new(false, mag_isqrt(&n), rs))
    }

    /// Decimal text as bc prints it in base 10 (`.5`, `-1.50`, `0`).
    pub fn to_decimal(&self) -> String {
        if self.is_zero() {
            return "0".to_string();
        }
        let digits = mag_to_decimal(&self.mag);
        let mut out = String::new();
        if self.neg {
            out.push('-');
        }
        if digits.len() > self.scale {
            let point = digits.len() - self.scale;
            out.push_str(&digits[..point]);
            if self.scale > 0 {
                out.push('.');
                out.push_str(&digits[point..]);
            }
        } else {
            out.push('.');
            out.extend(std::iter::repeat_n('0', self.scale - digits.len()));
            out.push_str(&digits);
        }
        out
    }

    /// Text in output base `obase` (bc's `out_num`).
    pub fn to_base(&self, obase: u64) -> String {
        if obase == 10 {
            return self.to_decimal();
        }
        if self.is_zero() {
            return "0".to_string();
        }
        let mut out = String::new();
        if self.neg {
            out.push('-');
        }
        let width = (obase - 1).to_string().len();
        let digit = |out: &mut String, d: u64, space: bool| {
            if obase <= 16 {
                out.push(char::from(b"0123456789ABCDEF"[d as usize]));
            } else {
                if space {
                    out.push(' ');
                }
                out.push_str(&format!("{d:0width$}"));
            }
        };
        let mut int = mag_shift_down(&self.mag, self.scale);
        let mut stack = Vec::new();
        let base_mag = mag_from_u64(obase);
        while !int.is_empty() {
            let (q, r) = mag_divmod(&int, &base_mag);
            stack.push(
                r.iter()
                    .rev()
                    .fold(0u64, |acc, &l| acc * BASE + u64::from(l)),
            );
            int = q;
        }
        for d in stack.into_iter().rev() {
            digit(&mut out, d, true);
        }
        if self.scale > 0 {
            out.push('.');
            let int_part = mag_shift_up(&mag_shift_down(&self.mag, self.scale), self.scale);
            let mut frac = mag_sub(&self.mag, &int_part);
            let one = mag_shift_up(&[1], self.scale);
            let limit = mag_shift_up(&[1], self.scale);
            let mut t: Mag = vec![1];
            let mut first = true;
            while mag_cmp(&t, &limit) == Ordering::Less {
                frac = mag_mul(&frac, &base_mag);
                let (d, rest) = mag_divmod(&frac, &one);
                let d = d
                    .iter()
                    .rev()
                    .fold(0u64, |acc, &l| acc * BASE + u64::from(l));
                digit(&mut out, d, !first);
                first = false;
                frac = rest;
                t = mag_mul(&t, &base_mag);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Num {
        match s.strip_prefix('-') {
            Some(rest) => Num::parse_decimal(rest).neg(),
            None => Num::parse_decimal(s),
        }
    }

    #[test]
    fn arithmetic_scales_like_bc() {
        assert_eq!(n("1.5").add(&n("2.25")).to_decimal(), "3.75");
        assert_eq!(n("3").sub(&n("5.5")).to_decimal(), "-2.5");
        assert_eq!(n("1.50").mul(&n("2"), 0).to_decimal(), "3.00");
        assert_eq!(n("1.1").mul(&n("1.1"), 4).to_decimal(), "1.21");
        assert_eq!(
            n("1").div(&n("3"), 5).map(|x| x.to_decimal()),
            Ok(".33333".into())
        );
        assert_eq!(
            n("-3").div(&n("2"), 0).map(|x| x.to_decimal()),
            Ok("-1".into())
        );
        assert_eq!(
            n("10").rem(&n("3.5"), 2).map(|x| x.to_decimal()),
            Ok(".025".into())
        );
        assert_eq!(
            n("1.25").pow(3, 3).map(|x| x.to_decimal()),
            Ok("1.953".into())
        );
        assert_eq!(n("2").pow(-2, 3).map(|x| x.to_decimal()), Ok(".250".into()));
        assert_eq!(
            n("2").sqrt(20).map(|x| x.to_decimal()),
            Ok("1.41421356237309504880".into())
        );
        assert_eq!(n("1").div(&n("0"), 0).err(), Some(NumError::DivideByZero));
    }

    #[test]
    fn long_division_matches_small_cases() {
        let a = n("123456789012345678901234567890123456789");
        let b = n("987654321987654321");
        let q = a.div(&b, 0).map(|x| x.to_decimal());
        assert_eq!(q, Ok("124999998748437501153".into()));
        let back = b
            .mul(&n("124999998748437501153"), 0)
            .add(&a.rem(&b, 0).unwrap_or_default());
        assert_eq!(back.to_decimal(), a.to_decimal());
    }

    #[test]
    fn output_bases() {
        assert_eq!(n("10").to_base(2), "1010");
        assert_eq!(n("0.5").to_base(2), ".1000");
        assert_eq!(n("3.75").to_base(16), "3.C0");
        assert_eq!(n("1000").to_base(20), " 02 10 00");
        assert_eq!(n("12.5").to_base(20), " 12.10");
        assert_eq!(n("-255.5").to_base(16), "-FF.8");
    }
}
