//! The orderings of `sort`: numeric (`-n`), general numeric (`-g`), human (`-h`), month
//! (`-M`), version (`-V`, GNU's `filevercmp`), and text with `-f -d -i`.

use std::cmp::Ordering;

use super::key::{is_blank, Flags, Order};

/// Compares two key texts under `flags` (without the key's `-r`).
pub fn compare_keys(a: &[u8], b: &[u8], flags: &Flags, seed: u64) -> Ordering {
    // GNU folds a `-f` key before any comparison: `1e3` reads as `1E3` (1 exa) under -fh.
    if flags.fold && matches!(flags.order, Order::Human | Order::Version) {
        let (a, b) = (a.to_ascii_uppercase(), b.to_ascii_uppercase());
        return compare_keys(
            &a,
            &b,
            &Flags {
                fold: false,
                ..*flags
            },
            seed,
        );
    }
    match flags.order {
        Order::Numeric => numeric(a, b),
        Order::General => general(a, b),
        Order::Human => human(a, b),
        Order::Month => month(a).cmp(&month(b)),
        Order::Version => version(a, b),
        Order::Random => hash(a, seed).cmp(&hash(b, seed)),
        Order::Text if flags.fold || flags.dictionary || flags.printable => text(a, b, flags),
        Order::Text => crate::sort::cmp_bytes(a, b),
    }
}

/// A `-n` key's exact value scaled by 10^18, when it has at most 18 digits on each side
/// of the point (None otherwise: compare the texts).
pub fn fixed_point(text: &[u8]) -> Option<i128> {
    let (negative, int, frac) = decimal(text);
    if int.len() > 18 || frac.len() > 18 {
        return None;
    }
    let digits = |d: &[u8]| d.iter().fold(0i128, |v, &b| v * 10 + i128::from(b - b'0'));
    let scale = 10i128.pow(18 - frac.len() as u32);
    let value = digits(int) * 1_000_000_000_000_000_000 + digits(frac) * scale;
    Some(if negative { -value } else { value })
}

fn skip_blanks(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| !is_blank(b)).unwrap_or(s.len());
    &s[start..]
}

/// A decimal number at the start: negative?, integer digits (no leading zeros), fraction
/// digits (no trailing zeros).
fn decimal(s: &[u8]) -> (bool, &[u8], &[u8]) {
    let s = skip_blanks(s);
    let (negative, s) = match s.first() {
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let int_end = s
        .iter()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(s.len());
    let int = &s[..int_end];
    let int = &int[int.iter().position(|&b| b != b'0').unwrap_or(int.len())..];
    let frac = match s.get(int_end) {
        Some(b'.') => {
            let rest = &s[int_end + 1..];
            let end = rest
                .iter()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(rest.len());
            let digits = &rest[..end];
            let keep = digits.iter().rposition(|&b| b != b'0').map_or(0, |p| p + 1);
            &digits[..keep]
        }
        _ => &[][..],
    };
    let zero = int.is_empty() && frac.is_empty();
    (negative && !zero, int, frac)
}

/// `-n`: compares decimal numbers of any length exactly; text that is no number is 0.
pub fn numeric(a: &[u8], b: &[u8]) -> Ordering {
    let (na, ia, fa) = decimal(a);
    let (nb, ib, fb) = decimal(b);
    decimal_order((na, ia, fa), (nb, ib, fb))
}

fn decimal_order(
    (na, ia, fa): (bool, &[u8], &[u8]),
    (nb, ib, fb): (bool, &[u8], &[u8]),
) -> Ordering {
    let magnitude = ia
        .len()
        .cmp(&ib.len())
        .then_with(|| ia.cmp(ib))
        .then_with(|| fa.cmp(fb));
    match (na, nb) {
        (false, false) => magnitude,
        (true, true) => magnitude.reverse(),
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
    }
}

/// `-g`: `strtod` values; conversion failures first, then NaN, then numbers.
pub fn general(a: &[u8], b: &[u8]) -> Ordering {
    match (float(a), float(b)) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(x), Some(y)) => match x.partial_cmp(&y) {
            Some(order) => order,
            None => x.is_nan().cmp(&y.is_nan()).reverse(),
        },
    }
}

fn float(s: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(skip_blanks(s)).unwrap_or("");
    let len = crate::applets::text::printf::number::float_prefix(text);
    if len == 0 {
        return None;
    }
    let prefix = &text[..len];
    prefix.parse::<f64>().ok().or_else(|| {
        let negative = prefix.starts_with('-');
        let hex = prefix.trim_start_matches(['-', '+']).get(2..)?;
        let value = i128::from_str_radix(hex, 16).ok()? as f64;
        Some(if negative { -value } else { value })
    })
}

/// `-h`: the unit suffix (K < M < G ...) decides first, then the number.
pub fn human(a: &[u8], b: &[u8]) -> Ordering {
    let (a, b) = (skip_blanks(a), skip_blanks(b));
    unit_order(a)
        .cmp(&unit_order(b))
        .then_with(|| numeric(a, b))
}

fn unit_order(s: &[u8]) -> i32 {
    let negative = s.first() == Some(&b'-');
    let mut at = usize::from(negative);
    let mut nonzero = false;
    loop {
        while let Some(d) = s.get(at).filter(|b| b.is_ascii_digit()) {
            nonzero |= *d != b'0';
            at += 1;
        }
        if s.get(at) == Some(&b'.') {
            at += 1;
            continue;
        }
        break;
    }
    if !nonzero {
        return 0;
    }
    let order = match s.get(at) {
        Some(b'k' | b'K') => 1,
        Some(b'M') => 2,
        Some(b'G') => 3,
        Some(b'T') => 4,
        Some(b'P') => 5,
        Some(b'E') => 6,
        Some(b'Z') => 7,
        Some(b'Y') => 8,
        Some(b'R') => 9,
        Some(b'Q') => 10,
        _ => 0,
    };
    if negative {
        -order
    } else {
        order
    }
}

/// `-M`: 1 to 12 for JAN to DEC (any case, after blanks), 0 for anything else.
pub fn month(s: &[u8]) -> usize {
    const MONTHS: [&[u8]; 12] = [
        b"JAN", b"FEB", b"MAR", b"APR", b"MAY", b"JUN", b"JUL", b"AUG", b"SEP", b"OCT", b"NOV",
        b"DEC",
    ];
    let s = skip_blanks(s);
    if s.len() < 3 {
        return 0;
    }
    let head = s[..3].to_ascii_uppercase();
    MONTHS
        .iter()
        .position(|m| *m == head.as_slice())
        .map_or(0, |i| i + 1)
}

/// `-f`, `-d`, `-i`: compare after dropping ignored bytes and folding case.
fn text(a: &[u8], b: &[u8], flags: &Flags) -> Ordering {
    let keep = |c: &u8| {
        let c = *c;
        !(flags.dictionary && !(c.is_ascii_alphanumeric() || is_blank(c)))
            && (!flags.printable || (0x20..0x7f).contains(&c))
    };
    let fold = |c: &u8| {
        if flags.fold {
            c.to_ascii_uppercase()
        } else {
            *c
        }
    };
    let left = a.iter().filter(|c| keep(c)).map(fold);
    let right = b.iter().filter(|c| keep(c)).map(fold);
    left.cmp(right)
}

/// FNV-1a with a seed: `-R` orders by it (equal keys stay together).
fn hash(s: &[u8], seed: u64) -> u64 {
    s.iter().fold(0xcbf2_9ce4_8422_2325 ^ seed, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// GNU's `filevercmp`: `.` and `..` first, then hidden names, then the names without their
/// suffixes (`.tar.gz`) compared by `verrevcmp`, then the whole names.
pub fn version(a: &[u8], b: &[u8]) -> Ordering {
    if a == b {
        return Ordering::Equal;
    }
    if a.is_empty() || b.is_empty() {
        return a.len().cmp(&b.len());
    }
    if let Some(order) = dots_first(a, b) {
        return order;
    }
    let (pa, pb) = (prefix_len(a), prefix_len(b));
    let first = verrevcmp(&a[..pa], &b[..pb]);
    if first != Ordering::Equal || (pa == a.len() && pb == b.len()) {
        return first;
    }
    verrevcmp(a, b)
}

fn dots_first(a: &[u8], b: &[u8]) -> Option<Ordering> {
    let rank = |s: &[u8]| match s {
        b"." => 0,
        b".." => 1,
        [b'.', ..] => 2,
        _ => 3,
    };
    let (ra, rb) = (rank(a), rank(b));
    if ra != rb {
        return Some(ra.cmp(&rb));
    }
    (ra < 2).then_some(Ordering::Equal)
}

/// Length of `s` without its suffix: `(\.[A-Za-z~][A-Za-z0-9~]*)*` at the end.
fn prefix_len(s: &[u8]) -> usize {
    let n = s.len();
    let mut prefix = 0;
    let mut i = 0;
    while i < n {
        i += 1;
        prefix = i;
        while i + 1 < n && s[i] == b'.' && (s[i + 1].is_ascii_alphabetic() || s[i + 1] == b'~') {
            i += 2;
            while i < n && (s[i].is_ascii_alphanumeric() || s[i] == b'~') {
                i += 1;
            }
        }
    }
    prefix
}

fn order(s: &[u8], pos: usize) -> i32 {
    match s.get(pos) {
        None => -1,
        Some(c) if c.is_ascii_digit() => 0,
        Some(c) if c.is_ascii_alphabetic() => i32::from(*c),
        Some(b'~') => -2,
        Some(c) => i32::from(*c) + 256,
    }
}

fn verrevcmp(s1: &[u8], s2: &[u8]) -> Ordering {
    let (mut p1, mut p2) = (0, 0);
    let digit = |s: &[u8], p: usize| s.get(p).is_some_and(u8::is_ascii_digit);
    while p1 < s1.len() || p2 < s2.len() {
        while (p1 < s1.len() && !digit(s1, p1)) || (p2 < s2.len() && !digit(s2, p2)) {
            let (c1, c2) = (order(s1, p1), order(s2, p2));
            if c1 != c2 {
                return c1.cmp(&c2);
            }
            p1 += 1;
            p2 += 1;
        }
        while s1.get(p1) == Some(&b'0') {
            p1 += 1;
        }
        while s2.get(p2) == Some(&b'0') {
            p2 += 1;
        }
        let mut first_diff = Ordering::Equal;
        while digit(s1, p1) && digit(s2, p2) {
            if first_diff == Ordering::Equal {
                first_diff = s1[p1].cmp(&s2[p2]);
            }
            p1 += 1;
            p2 += 1;
        }
        if digit(s1, p1) {
            return Ordering::Greater;
        }
        if digit(s2, p2) {
            return Ordering::Less;
        }
        if first_diff != Ordering::Equal {
            return first_diff;
        }
    }
    Ordering::Equal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orderings() {
        assert_eq!(numeric(b"10", b"9"), Ordering::Greater);
        assert_eq!(numeric(b"-1", b"abc"), Ordering::Less);
        assert_eq!(numeric(b"-0", b"0"), Ordering::Equal);
        assert_eq!(numeric(b"1.50", b"1.5"), Ordering::Equal);
        assert_eq!(numeric(b"-2", b"-10"), Ordering::Greater);
        assert_eq!(human(b"2M", b"1G"), Ordering::Less);
        assert_eq!(human(b"-1K", b"512"), Ordering::Less);
        assert_eq!(general(b"abc", b"-inf"), Ordering::Less);
        assert_eq!(general(b"1e3", b"5"), Ordering::Greater);
        assert_eq!(version(b"v1.10", b"v1.9"), Ordering::Greater);
        assert_eq!(version(b"a.tar.gz", b"a-1.tar.gz"), Ordering::Less);
        assert_eq!(version(b"1.0~rc1", b"1.0"), Ordering::Less);
        assert_eq!(month(b" feb"), 2);
    }
}
