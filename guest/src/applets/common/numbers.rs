//! Counts given as option values: plain decimal, or with GNU's size suffixes.

/// Parses a non-negative decimal count (an option's value), GNU-style errors aside.
pub fn parse_count(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Parses a count with GNU's optional multiplier suffix: `b` 512, `K`/`KiB` 1024, `KB`
/// 1000, and likewise M, G, T, P, E. None when it is not such a number.
pub fn parse_size(text: &str) -> Option<u64> {
    let digits_end = text
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(text.len());
    if digits_end == 0 {
        return None;
    }
    let value: u64 = text[..digits_end].parse().ok()?;
    let factor = size_suffix(&text[digits_end..])?;
    Some(value.saturating_mul(factor))
}

fn size_suffix(suffix: &str) -> Option<u64> {
    if suffix.is_empty() {
        return Some(1);
    }
    if suffix == "b" {
        return Some(512);
    }
    let mut chars = suffix.chars();
    let unit = chars.next()?;
    let power = "kKMGTPEZY".find(unit).map(|at| at.max(1) as u32)?;
    let base: u64 = match chars.as_str() {
        "" | "iB" => 1024,
        "B" => 1000,
        _ => return None,
    };
    Some(base.saturating_pow(power))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_counts() {
        assert_eq!(parse_size("10"), Some(10));
        assert_eq!(parse_size("2K"), Some(2048));
        assert_eq!(parse_size("2KB"), Some(2000));
        assert_eq!(parse_size("1MiB"), Some(1 << 20));
        assert_eq!(parse_size("3b"), Some(1536));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("5Q"), None);
        assert_eq!(parse_count("12"), Some(12));
        assert_eq!(parse_count("-1"), None);
    }
}
