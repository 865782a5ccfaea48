//! Byte scanning helpers: word-at-a-time searches for one byte (forward and backward), line
//! counting, and shell glob matching for `--include` / `--exclude`.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `word` is zero (the classic SWAR test).
#[inline(always)]
fn has_zero(word: u64) -> bool {
    word.wrapping_sub(LO) & !word & HI != 0
}

/// The 8 bytes at `at`, as one load (`copy_from_slice` stays a call at opt-level "s").
#[inline(always)]
fn word_at(hay: &[u8], at: usize) -> u64 {
    let w = &hay[at..at + 8];
    u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]])
}

/// The index of the first `needle` in `hay`.
pub fn memchr(needle: u8, hay: &[u8]) -> Option<usize> {
    let splat = LO.wrapping_mul(u64::from(needle));
    let mut i = 0;
    while i + 8 <= hay.len() {
        if has_zero(word_at(hay, i) ^ splat) {
            break;
        }
        i += 8;
    }
    hay[i..].iter().position(|&b| b == needle).map(|at| i + at)
}

/// The index of the last `needle` in `hay`.
pub fn memrchr(needle: u8, hay: &[u8]) -> Option<usize> {
    let splat = LO.wrapping_mul(u64::from(needle));
    let mut end = hay.len();
    while end >= 8 {
        if has_zero(word_at(hay, end - 8) ^ splat) {
            break;
        }
        end -= 8;
    }
    hay[..end].iter().rposition(|&b| b == needle)
}

/// How many `needle` bytes `hay` holds.
pub fn count(needle: u8, hay: &[u8]) -> usize {
    hay.iter().filter(|&&b| b == needle).count()
}

/// Whether `name` matches shell glob `pattern` (`*`, `?`, `[...]`, `\x`), as fnmatch does
/// without flags (so `*` also matches `/` and a leading `.`).
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    glob_at(&p, &n)
}

/// Iterative matching with one backtrack point per `*` (linear in practice).
fn glob_at(p: &[char], n: &[char]) -> bool {
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && p[pi] == '*' {
            star = Some((pi + 1, ni));
            pi += 1;
            continue;
        }
        if let Some(len) = glob_one(&p[pi..], n[ni]) {
            pi += len;
            ni += 1;
            continue;
        }
        match star {
            Some((sp, sn)) => {
                pi = sp;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// If the pattern's first element matches `c`, how many pattern chars it used.
fn glob_one(p: &[char], c: char) -> Option<usize> {
    match p.first()? {
        '?' => Some(1),
        '[' => match glob_class(p, c) {
            Some((true, len)) => Some(len),
            Some((false, _)) => None,
            None => (c == '[').then_some(1),
        },
        '\\' if p.len() > 1 => (p[1] == c).then_some(2),
        &lit => (lit == c).then_some(1),
    }
}

/// A `[...]` set: whether it matches `c` and its length; None when it is not closed.
fn glob_class(p: &[char], c: char) -> Option<(bool, usize)> {
    let mut i = 1;
    let negated = matches!(p.get(i), Some('!' | '^'));
    if negated {
        i += 1;
    }
    let mut matched = false;
    let mut first = true;
    while let Some(&ch) = p.get(i) {
        if ch == ']' && !first {
            return Some((matched != negated, i + 1));
        }
        first = false;
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            let hi = p[i + 2];
            matched |= ch <= c && c <= hi;
            i += 3;
        } else {
            matched |= ch == c;
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_searches_agree_with_naive_ones() {
        let hay: Vec<u8> = (0..200u32).map(|i| (i * 7 % 13) as u8 + b'a').collect();
        for needle in [b'a', b'b', b'm', b'z'] {
            assert_eq!(memchr(needle, &hay), hay.iter().position(|&b| b == needle));
            assert_eq!(
                memrchr(needle, &hay),
                hay.iter().rposition(|&b| b == needle)
            );
            for start in [0, 3, 9, 17, 150, 199] {
                assert_eq!(
                    memchr(needle, &hay[start..]),
                    hay[start..].iter().position(|&b| b == needle)
                );
                assert_eq!(
                    memrchr(needle, &hay[..start]),
                    hay[..start].iter().rposition(|&b| b == needle)
                );
            }
        }
        assert_eq!(memchr(b'\n', b""), None);
        assert_eq!(count(b'\n', b"a\nb\n\n"), 3);
    }

    #[test]
    fn globs() {
        let cases = [
            ("*.txt", "a.txt", true),
            ("*.txt", "a.txt.bak", false),
            ("a?c", "abc", true),
            ("[ab]*", "beta", true),
            ("[!ab]*", "beta", false),
            ("*", ".hidden", true),
            ("a\\*", "a*", true),
            ("*a*b*", "xxaxxbxx", true),
            ("*a*b", "xxaxxbxx", false),
            ("[a-c].rs", "b.rs", true),
        ];
        for (p, n, want) in cases {
            assert_eq!(glob_match(p, n), want, "{p} {n}");
        }
    }
}
