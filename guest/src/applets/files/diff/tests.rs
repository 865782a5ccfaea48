//! `diff` cases, outputs recorded from GNU diffutils 3.8 (timestamps are the VFS's).

use crate::applets::files::testutil::{both, err};
use crate::applets::testing::{ok, run_in, vfs_with, Outcome};

const T: &str = "2023-11-14 22:13:20.000000000 +0000";

fn diff(files: &[(&str, &str)], args: &[&str]) -> Outcome {
    run_in(&vfs_with(files), "diff", args, "")
}

fn status(stdout: &str, code: i32) -> Outcome {
    both(stdout, "", code)
}

const ONE: &str = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
const TWO: &str = "a\nB\nc\nd\ne\nf\ng\nh\nI\nj\nk\n";

#[test]
fn normal_format() {
    let f = [("1", ONE), ("2", TWO)];
    assert_eq!(
        diff(&f, &["1", "2"]),
        status("2c2\n< b\n---\n> B\n9c9\n< i\n---\n> I\n10a11\n> k\n", 1)
    );
    assert_eq!(diff(&f, &["1", "1"]), ok(""));
    assert_eq!(
        diff(&[("e", ""), ("1", "a\nb\n")], &["e", "1"]),
        status("0a1,2\n> a\n> b\n", 1)
    );
    assert_eq!(
        diff(&[("1", "a\nb\nc\n"), ("2", "a\nc\n")], &["1", "2"]),
        status("2d1\n< b\n", 1)
    );
    assert_eq!(
        diff(&[("3", "x"), ("4", "y")], &["3", "4"]),
        status(
            "1c1\n< x\n\\ No newline at end of file\n---\n> y\n\\ No newline at end of file\n",
            1
        )
    );
    assert_eq!(
        diff(&[("3", "x"), ("5", "x\n")], &["3", "5"]),
        status("1c1\n< x\n\\ No newline at end of file\n---\n> x\n", 1)
    );
}

#[test]
fn unified_format() {
    let f = [("1", ONE), ("2", TWO)];
    let head = format!("--- 1\t{T}\n+++ 2\t{T}\n");
    assert_eq!(
        diff(&f, &["-u", "1", "2"]),
        status(
            &format!(
                "{head}@@ -1,10 +1,11 @@\n a\n-b\n+B\n c\n d\n e\n f\n g\n h\n-i\n+I\n j\n+k\n"
            ),
            1
        )
    );
    assert_eq!(
        diff(&f, &["-U1", "1", "2"]),
        status(
            &format!(
                "{head}@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n@@ -8,3 +8,4 @@\n h\n-i\n+I\n j\n+k\n"
            ),
            1
        )
    );
    assert_eq!(
        diff(&f, &["--unified=0", "1", "2"]),
        status(
            &format!("{head}@@ -2 +2 @@\n-b\n+B\n@@ -9 +9 @@\n-i\n+I\n@@ -10,0 +11 @@\n+k\n"),
            1
        )
    );
    assert_eq!(
        diff(&[("5", "x\n"), ("3", "x")], &["-u", "5", "3"]),
        status(
            &format!("--- 5\t{T}\n+++ 3\t{T}\n@@ -1 +1 @@\n-x\n+x\n\\ No newline at end of file\n"),
            1
        )
    );
    assert_eq!(
        diff(&[("e", ""), ("5", "x\n")], &["-u", "e", "5"]),
        status(&format!("--- e\t{T}\n+++ 5\t{T}\n@@ -0,0 +1 @@\n+x\n"), 1)
    );
    assert_eq!(
        diff(&[("e", ""), ("5", "x\n")], &["-u", "5", "e"]),
        status(&format!("--- 5\t{T}\n+++ e\t{T}\n@@ -1 +0,0 @@\n-x\n"), 1)
    );
    assert_eq!(
        diff(&f, &["-u", "--label", "L1", "--label", "L2", "1", "2"])
            .stdout
            .lines()
            .take(2)
            .collect::<Vec<_>>(),
        vec!["--- L1", "+++ L2"]
    );
    let vfs = vfs_with(&[("2", "b\n")]);
    let from_stdin = run_in(&vfs, "diff", &["-u", "-", "2"], "a\n");
    assert_eq!(
        from_stdin.stdout,
        format!("--- -\t{T}\n+++ 2\t{T}\n@@ -1 +1 @@\n-a\n+b\n")
    );
    assert_eq!(run_in(&vfs, "diff", &["-", "-"], "a\n"), ok(""));
    assert_eq!(
        run_in(&vfs, "diff", &["-s", "-", "-"], "a\n"),
        ok("Files - and - are identical\n")
    );
}

#[test]
fn hunk_choice_matches_gnu() {
    // Repeated lines: GNU's boundary shifting decides which copy is "the" change.
    let a = "x\na\nb\na\nb\ny\n";
    let b = "x\na\nb\ny\n";
    assert_eq!(
        diff(&[("a", a), ("b", b)], &["a", "b"]),
        status("4,5d3\n< a\n< b\n", 1)
    );
    let a = "{\n  foo();\n}\n\n{\n  bar();\n}\n";
    let b = "{\n  foo();\n}\n\n{\n  baz();\n}\n\n{\n  bar();\n}\n";
    assert_eq!(
        diff(&[("a", a), ("b", b)], &["a", "b"]),
        status("5a6,9\n>   baz();\n> }\n> \n> {\n", 1)
    );
    let a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n";
    let b = "1\n2\n3\nx\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\ny\n17\n18\n19\n20\n";
    assert_eq!(
        diff(&[("a", a), ("b", b)], &["-u", "a", "b"]).stdout,
        format!("--- a\t{T}\n+++ b\t{T}\n@@ -1,7 +1,7 @@\n 1\n 2\n 3\n-4\n+x\n 5\n 6\n 7\n@@ -13,7 +13,7 @@\n 13\n 14\n 15\n-16\n+y\n 17\n 18\n 19\n")
    );
}

#[test]
fn ignoring_options() {
    let f = [("1", "a\n\nb\nc  d\nE\n"), ("2", "a\nb\n\nc d\ne\n")];
    assert_eq!(
        diff(&f, &["1", "2"]),
        status("2d1\n< \n4,5c3,5\n< c  d\n< E\n---\n> \n> c d\n> e\n", 1)
    );
    assert_eq!(
        diff(&f, &["-B", "1", "2"]),
        status("4,5c3,5\n< c  d\n< E\n---\n> \n> c d\n> e\n", 1)
    );
    assert_eq!(
        diff(&f, &["-b", "1", "2"]),
        status("2d1\n< \n3a3\n> \n5c5\n< E\n---\n> e\n", 1)
    );
    assert_eq!(
        diff(&f, &["-w", "-i", "1", "2"]),
        status("2d1\n< \n3a3\n> \n", 1)
    );
    assert_eq!(
        diff(&f, &["-i", "1", "2"]),
        status("2d1\n< \n4c3,4\n< c  d\n---\n> \n> c d\n", 1)
    );
    assert_eq!(diff(&f, &["-Bwi", "1", "2"]), ok(""));
    assert_eq!(
        diff(&[("3", "a b\n"), ("4", "ab\n")], &["-b", "3", "4"]),
        status("1c1\n< a b\n---\n> ab\n", 1)
    );
    assert_eq!(
        diff(&[("3", "a b\n"), ("4", "ab\n")], &["-w", "3", "4"]),
        ok("")
    );
    assert_eq!(
        diff(&[("5", "a \n"), ("6", "a\n")], &["-b", "5", "6"]),
        ok("")
    );
    assert_eq!(diff(&[("5", "a"), ("6", "a\n")], &["-b", "5", "6"]), ok(""));
}

#[test]
fn brief_binary_and_errors() {
    let f = [("1", ONE), ("2", TWO), ("b1", "a\0b\n"), ("b2", "a\0c\n")];
    assert_eq!(
        diff(&f, &["-q", "1", "2"]),
        status("Files 1 and 2 differ\n", 1)
    );
    assert_eq!(
        diff(&f, &["-s", "1", "1"]),
        status("Files 1 and 1 are identical\n", 0)
    );
    assert_eq!(
        diff(&f, &["b1", "b2"]),
        status("Binary files b1 and b2 differ\n", 1)
    );
    assert_eq!(
        diff(&f, &["-a", "b1", "b2"]),
        status("1c1\n< a\0b\n---\n> a\0c\n", 1)
    );
    assert_eq!(
        diff(&f, &["1", "nope"]),
        err("diff: nope: No such file or directory\n", 2)
    );
    assert_eq!(
        diff(&f, &["1"]),
        err(
            "diff: missing operand after '1'\ndiff: Try 'diff --help' for more information.\n",
            2
        )
    );
    assert_eq!(
        diff(&f, &["1", "2", "3"]),
        err(
            "diff: extra operand '3'\ndiff: Try 'diff --help' for more information.\n",
            2
        )
    );
    assert_eq!(
        diff(&f, &["-U", "x", "1", "2"]),
        err(
            "diff: invalid context length 'x'\ndiff: Try 'diff --help' for more information.\n",
            2
        )
    );
    assert_eq!(diff(&f, &["-Q", "1", "2"]).status, 2);
    assert_eq!(
        diff(&f, &["-N", "1", "nope"]),
        status(
            "1,10d0\n< a\n< b\n< c\n< d\n< e\n< f\n< g\n< h\n< i\n< j\n",
            1
        )
    );
}

fn tree() -> Vec<(&'static str, &'static str)> {
    vec![
        ("A/f", "x\n"),
        ("B/f", "y\n"),
        ("A/sub/s", "s\n"),
        ("B/sub/s", "s\n"),
        ("A/onlyA/.k", ""),
        ("B/onlyB/.k", ""),
        ("A/onlyfile", "q\n"),
        ("B/g", "q\n"),
        ("A/same", ""),
        ("B/same", ""),
    ]
}

#[test]
fn directories() {
    let only = "Only in B: g\nOnly in A: onlyA\nOnly in B: onlyB\nOnly in A: onlyfile\n";
    assert_eq!(
        diff(&tree(), &["A", "B"]),
        status(
            &format!(
                "diff A/f B/f\n1c1\n< x\n---\n> y\n{only}Common subdirectories: A/sub and B/sub\n"
            ),
            1
        )
    );
    assert_eq!(
        diff(&tree(), &["-r", "A", "B"]),
        status(&format!("diff -r A/f B/f\n1c1\n< x\n---\n> y\n{only}"), 1)
    );
    assert_eq!(
        diff(&tree(), &["-rq", "A", "B"]),
        status(&format!("Files A/f and B/f differ\n{only}"), 1)
    );
    assert_eq!(
        diff(&tree(), &["-r", "-u", "A", "B"]),
        status(
            &format!("diff -r -u A/f B/f\n--- A/f\t{T}\n+++ B/f\t{T}\n@@ -1 +1 @@\n-x\n+y\n{only}"),
            1
        )
    );
    assert_eq!(
        diff(&tree(), &["A/f", "B"]),
        status("1c1\n< x\n---\n> y\n", 1)
    );
    assert_eq!(
        diff(&tree(), &["-q", "A", "B/f"]),
        status("Files A/f and B/f differ\n", 1)
    );
    assert_eq!(
        diff(&tree(), &["--recursive", "--unified=2", "A/sub", "B/sub"]),
        ok("")
    );
}

#[test]
fn directories_new_file_and_nesting() {
    assert_eq!(
        diff(&tree(), &["-rN", "A", "B"]),
        status("diff -rN A/f B/f\n1c1\n< x\n---\n> y\ndiff -rN A/g B/g\n0a1\n> q\ndiff -rN A/onlyfile B/onlyfile\n1d0\n< q\n", 1)
    );
    let nested = [
        ("A/d/x", "1\n"),
        ("B/d/x", "2\n"),
        ("A/e", "1\n"),
        ("B/e", "2\n"),
        ("A/c", "1\n"),
        ("B/c", "2\n"),
    ];
    assert_eq!(
        diff(&nested, &["-rq", "A", "B"]),
        status(
            "Files A/c and B/c differ\nFiles A/d/x and B/d/x differ\nFiles A/e and B/e differ\n",
            1
        )
    );
    let mixed = [("A/g", "y\n"), ("B/g/x", "")];
    assert_eq!(
        diff(&mixed, &["-r", "A", "B"]),
        status(
            "File A/g is a regular file while file B/g is a directory\n",
            1
        )
    );
    assert_eq!(
        diff(&nested, &["-r", "-x", "d", "-x", "e", "A", "B"]),
        status("diff -r -x d -x e A/c B/c\n1c1\n< 1\n---\n> 2\n", 1)
    );
}
