//! Unit tests of patch's parser and hunk placement; its behaviour against GNU patch is in
//! `tests/differential/patch.cases`.

use super::apply::{first_guess, lines_of, locate, Compare, Place};
use super::parse::{parse, Format, Op};

const EXACT: Compare = Compare {
    ignore_whitespace: false,
};

fn numbers(range: std::ops::RangeInclusive<u32>) -> Vec<u8> {
    range
        .map(|n| format!("{n}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn unified_hunks_and_names() {
    let text = b"--- a/f\t2024-01-01\n+++ b/f\t2024-01-02\n@@ -1,3 +1,3 @@\n 1\n-2\n+two\n 3\n";
    let patches = parse(text).expect("a patch");
    assert_eq!(patches.len(), 1);
    let p = &patches[0];
    assert_eq!(p.old.as_deref(), Some("a/f"));
    assert_eq!(p.new.as_deref(), Some("b/f"));
    assert_eq!(p.hunk_line, 3);
    assert_eq!(p.hunks[0].context(), (1, 1));
    assert!(matches!(&p.hunks[0].ops[1], Op::Del(l) if l.text == b"2"));
}

#[test]
fn context_hunk_with_one_half_left_out() {
    let text = b"*** a\n--- b\n***************\n*** 1,2 ****\n--- 1,3 ----\n  x\n+ new\n  y\n";
    let p = &parse(text).expect("a patch")[0];
    assert_eq!(p.format, Format::Context);
    assert_eq!(p.hunks[0].old_len(), 2);
    assert_eq!(p.hunks[0].new_len(), 3);
}

#[test]
fn normal_hunks() {
    let p = &parse(b"2c2\n< b\n---\n> B\n4a5\n> e\n").expect("a patch")[0];
    assert_eq!(p.format, Format::Normal);
    assert_eq!(p.hunks.len(), 2);
    assert_eq!(first_guess(&p.hunks[1]), 5);
}

#[test]
fn garbage_only_is_an_error() {
    assert!(parse(b"hello\nworld\n").is_err());
}

#[test]
fn cut_short_hunk_is_malformed() {
    let p = &parse(b"--- f\n+++ f\n@@ -1,2 +1,2 @@\n a\n").expect("a patch")[0];
    assert!(p
        .broken
        .as_deref()
        .is_some_and(|m| m.starts_with("malformed patch at line 4")));
}

#[test]
fn placement_with_offset_and_fuzz() {
    let hunk_text = b"--- a\n+++ a\n@@ -7,7 +7,7 @@\n 7\n 8\n 9\n-10\n+ten\n 11\n 12\n 13\n";
    let hunk = &parse(hunk_text).expect("a patch")[0].hunks[0];
    let file = lines_of(&numbers(1..=20));
    assert_eq!(
        locate(&file, hunk, 7, 1, 2, EXACT),
        Some(Place { line: 7, fuzz: 0 })
    );
    let mut shifted = b"0\n0\n".to_vec();
    shifted.extend(numbers(1..=20));
    let file = lines_of(&shifted);
    assert_eq!(
        locate(&file, hunk, 7, 1, 2, EXACT),
        Some(Place { line: 9, fuzz: 0 })
    );
    let changed = String::from_utf8_lossy(&numbers(1..=20)).replace("\n8\n", "\neight\n");
    let file = lines_of(changed.as_bytes());
    assert_eq!(
        locate(&file, hunk, 7, 1, 2, EXACT),
        Some(Place { line: 7, fuzz: 2 })
    );
    assert_eq!(locate(&file, hunk, 7, 1, 1, EXACT), None);
}
