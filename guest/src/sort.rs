//! Stable sorting through one compiled routine, for sorts off the hot paths.
//!
//! `slice::sort_by` compiles a copy of the standard library's sort (about 6 KB of wasm) for
//! every element type and comparator it is called with; a few dozen such sorts were a tenth
//! of a megabyte of the module. These functions sort a list of indices instead, with the
//! comparison behind a `dyn` call, so every caller shares one copy of the sort; only a small
//! in-place permutation is compiled per element type. The order is exactly `sort_by`'s
//! (stable). Sorts whose speed matters (the `sort` applet's lines) keep `sort_by`, and compare
//! bytes with [`cmp_bytes`].

use std::cmp::Ordering;

/// Sorts `items` stably by `cmp`, like `items.sort_by(cmp)`.
pub fn sort_by<T>(items: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let order = sorted_indices(items.len(), &mut |a, b| cmp(&items[a], &items[b]));
    permute(items, order);
}

/// Sorts `items` stably in their natural order, like `items.sort()`.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// Sorts `items` stably by the key `key` gives each, like `items.sort_by_key(key)`.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// `a.cmp(b)` for byte strings (bytes in order, then the shorter first), eight bytes at a
/// time. Slices compare through the C library's `memcmp`, which wasi-libc runs byte by byte:
/// sorting lines that share long prefixes (many equal lines) spent most of its time there.
pub fn cmp_bytes(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len());
    let mut i = 0;
    // (a plain loop: iterator adapters are not inlined at the guest's opt-level "s")
    while i + 8 <= n {
        let (x, y) = (word(a, i), word(b, i));
        if x != y {
            return x.cmp(&y);
        }
        i += 8;
    }
    while i < n {
        if a[i] != b[i] {
            return a[i].cmp(&b[i]);
        }
        i += 1;
    }
    a.len().cmp(&b.len())
}

/// Whether two byte strings are equal (see [`cmp_bytes`]).
pub fn eq_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && cmp_bytes(a, b) == Ordering::Equal
}

/// The eight bytes at `at` as a big-endian word: words compare as their bytes do.
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&bytes[at..at + 8]);
    u64::from_be_bytes(w)
}

/// `0..len` sorted stably by `cmp` of two indices: the one instance of the library's sort.
fn sorted_indices(len: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Rearranges `items` so that position `i` holds what was at `order[i]`, following each
/// cycle of the permutation with swaps (`order` is used up as the visited marks).
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..items.len() {
        let mut at = start;
        while order[at] != DONE {
            let from = order[at];
            order[at] = DONE;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator, so the cases cover many permutations and ties.
    fn numbers(seed: u64, len: usize, range: u64) -> Vec<u64> {
        let mut state = seed;
        (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) % range
            })
            .collect()
    }

    #[test]
    fn sorts_like_the_library_and_stays_stable() {
        for seed in 0..200 {
            let len = (seed % 40) as usize;
            // (key, original position): ties on the key show whether the order is stable.
            let items: Vec<(u64, usize)> = numbers(seed, len, 1 + seed % 7)
                .into_iter()
                .zip(0..)
                .collect();
            let mut ours = items.clone();
            let mut library = items.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            library.sort_by_key(|a| a.0);
            assert_eq!(ours, library, "seed {seed}");
        }
    }

    #[test]
    fn sort_and_sort_by_key_match_the_library() {
        let mut words: Vec<String> = numbers(7, 50, 20).iter().map(|n| format!("w{n}")).collect();
        let mut expected = words.clone();
        expected.sort();
        sort(&mut words);
        assert_eq!(words, expected);
        let mut by_len = vec!["ccc", "a", "bb", "dd", "e", "fff"];
        sort_by_key(&mut by_len, |w| std::cmp::Reverse(w.len()));
        assert_eq!(by_len, ["ccc", "fff", "bb", "dd", "a", "e"]);
    }

    #[test]
    fn byte_strings_compare_like_slices() {
        let words: [&[u8]; 12] = [
            b"",
            b"a",
            b"ab",
            b"abcdefgh",
            b"abcdefgh\0",
            b"abcdefghi",
            b"abcdefgi",
            b"abcdefghabcdefgh",
            b"abcdefghabcdefgz",
            b"\xff",
            b"abcdefg",
            b"abcdefghabcdefghx",
        ];
        for a in words {
            for b in words {
                assert_eq!(cmp_bytes(a, b), a.cmp(b), "{a:?} {b:?}");
                assert_eq!(eq_bytes(a, b), a == b, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn empty_and_single_lists_are_left_alone() {
        let mut empty: Vec<u8> = Vec::new();
        sort(&mut empty);
        assert!(empty.is_empty());
        let mut one = vec![String::from("x")];
        sort(&mut one);
        assert_eq!(one, ["x"]);
    }
}
