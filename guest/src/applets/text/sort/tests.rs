use crate::applets::testing::{run_in, vfs_with};
use crate::applets::text::cases::Table;

const TABLE: Table = Table {
    name: "sort",
    files: &[("f", "c\na\nb\n"), ("g", "2\n1\n"), ("nonl", "z\ny")],
    ok: &[
        (&["-fh"], "1e3\n1.9\n", "1.9\n1e3\n"),
        (&["-h"], "1.9\n1e3\n", "1e3\n1.9\n"),
        (&["-n", "-g", "-k2,2n"], "a 10\nb 9\n", "b 9\na 10\n"),
        (
            &["-t", ":", "-k2.2,2.3"],
            "a:xbc\nb:yab\nc:zaa\n",
            "c:zaa\nb:yab\na:xbc\n",
        ),
        (
            &["-n"],
            "-1.5\n-1.25\n-2\n0\n-0.5\n",
            "-2\n-1.5\n-1.25\n-0.5\n0\n",
        ),
        (
            &["-h"],
            "1.5K\n1K\n100\n2.5M\n0.5G\n",
            "100\n1K\n1.5K\n2.5M\n0.5G\n",
        ),
        (
            &["-g"],
            "1e-3\n0x10\nnan\ninf\n-5\n2\n",
            "nan\n-5\n1e-3\n2\n0x10\ninf\n",
        ),
        (
            &["-V"],
            "1.0.10\n1.0.9\n1.0\n1.0~rc1\n",
            "1.0~rc1\n1.0\n1.0.9\n1.0.10\n",
        ),
        (&["-k2", "-t", " ", "-u"], "a x\nb x\nc y\n", "a x\nc y\n"),
        // whole lines: equal 8-byte prefixes fall back to the bytes; -r and -u on top
        (
            &[],
            "abcdefgh2\nabcdefgh\nb\nabcdefgh1\n\nabcdefgh~\n",
            "\nabcdefgh\nabcdefgh1\nabcdefgh2\nabcdefgh~\nb\n",
        ),
        (
            &["-r", "-u"],
            "abcdefgh2\nb\nabcdefgh2\nabcdefgh\n",
            "b\nabcdefgh2\nabcdefgh\n",
        ),
        (&["-r", "-k1,1", "-s"], "a 1\nb 2\na 3\n", "b 2\na 1\na 3\n"),
        (
            &["-n", "-k2", "-t", ","],
            "x,10\ny,9\nz,\n",
            "z,\ny,9\nx,10\n",
        ),
        (
            &["-f", "-k1,1", "-k2,2n"],
            "B 2\na 3\nb 1\n",
            "a 3\nb 1\nB 2\n",
        ),
        (&["-bk2"], "x   b\ny a\n", "y a\nx   b\n"),
        (&[], "b\na\nc\n", "a\nb\nc\n"),
        (&["f", "g"], "", "1\n2\na\nb\nc\n"),
        (&["nonl", "f"], "", "a\nb\nc\ny\nz\n"),
        (&["-r"], "a\nb\n", "b\na\n"),
        (
            &["-n"],
            "10\n9\n-1\nabc\n\n1.5\n",
            "-1\n\nabc\n1.5\n9\n10\n",
        ),
        (&["-rn"], "2\n10\n1\n", "10\n2\n1\n"),
        (&["-h"], "1K\n2M\n512\n1G\n-1K\n", "-1K\n512\n1K\n2M\n1G\n"),
        (&["-f"], "a\nB\nb\nA\n", "A\na\nB\nb\n"),
        (&["-fu"], "a\nB\nb\nA\n", "a\nB\n"),
        (&["-u"], "b\na\nb\na\n", "a\nb\n"),
        (&["-u", "-k2,2"], "b 1\na 1\n", "b 1\n"),
        (&["-k2n"], "x 2\ny 10\nz 1\n", "z 1\nx 2\ny 10\n"),
        (&["-k2,2nr"], "x 2\ny 10\nz 1\n", "y 10\nx 2\nz 1\n"),
        (&["-t:", "-k2"], "a:3\nb:1\nc:2\n", "b:1\nc:2\na:3\n"),
        (
            &["-t", ":", "-k", "2,2", "-k", "1,1r"],
            "a:1\nb:1\nc:0\n",
            "c:0\nb:1\na:1\n",
        ),
        (&["-V"], "v1.10\nv1.2\nv1.9\n", "v1.2\nv1.9\nv1.10\n"),
        (
            &["-V"],
            "file-1.10.txt\nfile-1.9.txt\nfile-1.tar.gz\nfile.txt\n",
            "file.txt\nfile-1.tar.gz\nfile-1.9.txt\nfile-1.10.txt\n",
        ),
        (&["-g"], "1e3\n5\nabc\n-inf\n", "abc\n-inf\n5\n1e3\n"),
        (&["-M"], "FEB\njan\nxyz\nDec\n", "xyz\njan\nFEB\nDec\n"),
        (&[], " b\na\n", " b\na\n"),
        (&["-b"], " b\na\n", "a\n b\n"),
        (&["-k2"], "a b\na  a\n", "a  a\na b\n"),
        (&["-k2b"], "a b\na  a\n", "a  a\na b\n"),
        (&["-k1.2"], "ab\naa\n", "aa\nab\n"),
        (&["-n"], "1,5\n1.2\n", "1,5\n1.2\n"),
        (&["-n"], " 10\n9\n", "9\n 10\n"),
        (&["-n"], "+5\n3\n", "+5\n3\n"),
        (&["-n"], "0.5\n.4\n", ".4\n0.5\n"),
        (&["-n"], "1e2\n50\n", "1e2\n50\n"),
        (&["-z"], "b\0a\0", "a\0b\0"),
        (&["-k1,1n", "-s"], "10 b\n2 a\n10 a\n", "2 a\n10 b\n10 a\n"),
        (&["-k1,1n"], "10 b\n2 a\n10 a\n", "2 a\n10 a\n10 b\n"),
        (&["-d"], "ab\nAb\n", "Ab\nab\n"),
        (&["-d"], "a-b\nab\n", "a-b\nab\n"),
        (&[], "b\n\na\n", "\na\nb\n"),
        (&["-t", "\t", "-k2"], "a\tz\nb\ty\n", "b\ty\na\tz\n"),
        (
            &["-S", "1M", "--parallel=2", "-T", "/tmp"],
            "b\na\n",
            "a\nb\n",
        ),
        (&["-m", "f", "g"], "", "2\n1\nc\na\nb\n"),
        (&["-m", "-", "nonl"], "a\nx\n", "a\nx\nz\ny\n"),
        (&["-m"], "b\na\n", "b\na\n"),
        (&["-k3"], "a b\nc\n", "a b\nc\n"),
        (&["-n", "-r", "-k2"], "a 1\nb 3\nc 2\n", "b 3\nc 2\na 1\n"),
        (&["-k2,2", "-k1,1r"], "x 1\ny 1\nz 0\n", "z 0\ny 1\nx 1\n"),
        (
            &["-t,", "-k2,2n", "-k1,1"],
            "b,2\na,2\nc,1\n",
            "c,1\na,2\nb,2\n",
        ),
        (&["-k1.2,1.3"], "xcb\nyab\nzba\n", "yab\nzba\nxcb\n"),
        (&["-nu"], "1\n01\n2\n", "1\n2\n"),
        (&["-r", "-u"], "a\nb\na\n", "b\na\n"),
        (&["--reverse", "--numeric-sort"], "1\n3\n2\n", "3\n2\n1\n"),
        (&["-i"], "b\n\u{1}a\n", "\u{1}a\nb\n"),
        (&["-c"], "a\nb\n", ""),
        (&["-C"], "a\nb\nb\n", ""),
        (&["-hr"], "1.5G\n900M\n2K\n", "1.5G\n900M\n2K\n"),
        (&["--sort=version"], "a10\na9\n", "a9\na10\n"),
        (&["-V", "-k2"], "x 1.10\ny 1.9\n", "y 1.9\nx 1.10\n"),
        (
            &["-t", ",", "-k2", "-n"],
            "a,3\nb,10\nc,2\n",
            "c,2\na,3\nb,10\n",
        ),
    ],
    err: &[
        (&["-c"], "b\na\nc\n", "", "sort: -:2: disorder: a\n", 1),
        (&["-c"], "a\nc\nb\n", "", "sort: -:3: disorder: b\n", 1),
        (&["-C"], "a\nc\nb\n", "", "", 1),
        (&["-cu"], "a\na\n", "", "sort: -:2: disorder: a\n", 1),
        (&["-c", "g"], "", "", "sort: g:2: disorder: 1\n", 1),
        (
            &["-k0"],
            "x",
            "",
            "sort: field number is zero: invalid field specification '0'\n",
            2,
        ),
        (
            &["-k", "1.0"],
            "x",
            "",
            "sort: character offset is zero: invalid field specification '1.0'\n",
            2,
        ),
        (
            &["-k", "a"],
            "x",
            "",
            "sort: invalid number at field start: invalid count at start of 'a'\n",
            2,
        ),
        (
            &["-k", "1,0"],
            "x",
            "",
            "sort: field number is zero: invalid field specification '1,0'\n",
            2,
        ),
        (
            &["-k", "1x"],
            "x",
            "",
            "sort: stray character in field spec: invalid field specification '1x'\n",
            2,
        ),
        (
            &["-t", "ab"],
            "x",
            "",
            "sort: multi-character tab 'ab'\n",
            2,
        ),
        (
            &["-t", "\\t"],
            "x",
            "",
            "sort: multi-character tab '\\\\t'\n",
            2,
        ),
        (
            &["missing"],
            "",
            "",
            "sort: cannot read: missing: No such file or directory\n",
            2,
        ),
        (
            &["-c", "-o", "x"],
            "b\na\n",
            "",
            "sort: options '-co' are incompatible\n",
            2,
        ),
        (
            &["-n", "-g"],
            "",
            "",
            "sort: options '-gn' are incompatible\n",
            2,
        ),
        (
            &["-k1,1Vin", "-n"],
            "",
            "",
            "sort: options '-inV' are incompatible\n",
            2,
        ),
        (
            &["-k2,2nR"],
            "",
            "",
            "sort: options '-nR' are incompatible\n",
            2,
        ),
        (
            &["-o"],
            "x",
            "",
            "sort: option requires an argument -- 'o'\nTry 'sort --help' for more information.\n",
            2,
        ),
        (
            &["-c", "f", "g"],
            "",
            "",
            "sort: extra operand 'g' not allowed with -c\n",
            2,
        ),
        (
            &["--bogus"],
            "",
            "",
            "sort: unrecognized option '--bogus'\nTry 'sort --help' for more information.\n",
            2,
        ),
    ],
};

#[test]
fn cases() {
    TABLE.check();
}

#[test]
#[ignore = "compares the tables with the real GNU tools"]
fn gnu() {
    TABLE.check_gnu();
}

#[test]
fn output_file_may_be_an_input() {
    let vfs = vfs_with(&[("f", "c\na\nb\n")]);
    let out = run_in(&vfs, "sort", &["-o", "f", "f"], "");
    assert_eq!(out.status, 0);
    let sorted = vfs.borrow().read("/workspace", "f").map(<[u8]>::to_vec);
    assert_eq!(sorted.unwrap_or_default(), b"a\nb\nc\n");
}

#[test]
fn large_inputs_sort_quickly() {
    let lines: String = (0..200_000).rev().map(|i| format!("{i}\n")).collect();
    let out = crate::applets::testing::run("sort", &["-n"], &lines);
    assert!(out.stdout.starts_with("0\n1\n2\n"));
    assert_eq!(out.stdout.len(), lines.len());
}

/// Piped input is kept in blocks of whole lines, filled to the brim: lines crossing a block's
/// end, a line longer than a block and a missing last newline come out whole, and the blocks
/// hold little more than the input (one buffer grown to its size holds up to twice as much).
#[test]
fn piped_input_is_kept_in_full_blocks_of_whole_lines() {
    use super::{lines_of, read_blocks, BLOCK};
    use crate::task::{join_all, pipe, run_until_stalled, Input, LocalFuture};
    use std::task::Poll;

    let long = "x".repeat(BLOCK + 1000);
    let mut text: String = (0..400_000_u64)
        .map(|i| format!("{}\n", i * 7919 % 100_003))
        .collect();
    text.push_str(&long);
    text.push_str("\nlast");
    let (reader, mut writer) = pipe();
    let data = text.clone();
    let feed: LocalFuture<'_, usize> = Box::pin(async move {
        // Writes of odd sizes, so that lines cross the chunks the reader gets.
        for piece in data.as_bytes().chunks(9_973) {
            writer.write(piece).await.expect("the reader is open");
        }
        0
    });
    let blocks = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let kept = std::rc::Rc::clone(&blocks);
    let read: LocalFuture<'_, usize> = Box::pin(async move {
        let (mut input, mut read) = (Input::pipe(reader), Vec::new());
        read_blocks(&mut input, b'\n', &mut read).await;
        *kept.borrow_mut() = read;
        0
    });
    let mut both: LocalFuture<'_, Vec<usize>> = Box::pin(join_all(vec![feed, read]));
    assert_eq!(run_until_stalled(&mut both), Poll::Ready(vec![0, 0]));
    let blocks = blocks.borrow();
    assert!(blocks.len() > 2, "{} blocks", blocks.len());
    assert!(blocks.iter().all(|b| b.last() == Some(&b'\n')));
    assert_eq!(blocks.concat(), format!("{text}\n").into_bytes());
    let expected: Vec<&str> = text.split('\n').collect();
    let got: Vec<&[u8]> = lines_of(&blocks, b'\n');
    assert_eq!(got.len(), expected.len());
    assert!(got.iter().zip(&expected).all(|(g, e)| *g == e.as_bytes()));
    let held: usize = blocks.iter().map(Vec::capacity).sum();
    // At most a block's worth unused, plus what the long line left (a block it did not fill,
    // and its own block grown to twice a block): one buffer would hold 4 MiB.
    assert!(
        held <= text.len() + long.len() + 2 * BLOCK,
        "{held} bytes held for {}",
        text.len()
    );
}
