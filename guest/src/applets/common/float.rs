//! Decimal forms of floating-point numbers with any precision: Rust's formatter panics on a
//! precision (or width) past 65,535, and `printf '%.100000f'` asks for more.

/// Digits after the point past which an `f64`'s decimal expansion is all zeros (the smallest
/// subnormal, 2**-1074, has 1,074; a mantissa has at most 767 significant digits).
const EXACT_DIGITS: usize = 1100;

/// `format!("{n:.prec$}")`, for any `prec`.
pub fn fixed(n: f64, prec: usize) -> String {
    let mut text = format!("{:.*}", prec.min(EXACT_DIGITS), n);
    text.extend(std::iter::repeat_n('0', prec.saturating_sub(EXACT_DIGITS)));
    text
}

/// `format!("{n:.prec$e}")`, for any `prec`.
pub fn scientific(n: f64, prec: usize) -> String {
    let text = format!("{:.*e}", prec.min(EXACT_DIGITS), n);
    match text.split_once('e') {
        Some((mantissa, exp)) if prec > EXACT_DIGITS => {
            format!("{mantissa}{}e{exp}", "0".repeat(prec - EXACT_DIGITS))
        }
        _ => text,
    }
}

/// `digits` padded with zeros on the left to `width` (`format!("{digits:0>width$}")`, for any
/// `width`).
pub fn zero_padded(digits: &str, width: usize) -> String {
    let mut text = "0".repeat(width.saturating_sub(digits.len()));
    text.push_str(digits);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_precision_formats_as_the_formatter_would() {
        for prec in [0, 1, 6, 17, 400, 1100] {
            for n in [0.0, 0.1, 1.5, 1e300, 5e-324, 123_456.789] {
                assert_eq!(fixed(n, prec), format!("{n:.prec$}"));
                assert_eq!(scientific(n, prec), format!("{n:.prec$e}"));
            }
        }
        assert_eq!(zero_padded("12", 5), "00012");
        assert_eq!(zero_padded("123", 2), "123");
    }

    #[test]
    fn precisions_past_the_formatters_limit_pad_with_zeros() {
        let big = fixed(0.5, 100_000);
        assert_eq!((big.len(), &big[..3]), (100_002, "0.5"));
        assert!(big[3..].bytes().all(|b| b == b'0'));
        let sci = scientific(1.5, 70_000);
        assert!(sci.starts_with("1.5") && sci.ends_with("0e0") && sci.len() == 70_004);
        assert_eq!(zero_padded("7", 70_000).len(), 70_000);
    }
}
