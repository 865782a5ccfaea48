//! `find` cases, checked against GNU findutils 4.9 (its output re-sorted into name order,
//! which is the order the VFS reads directories in).

use std::cell::RefCell;
use std::rc::Rc;

use crate::applets::files::testutil::{both, err, set_mtime, tree};
use crate::applets::testing::{ok, run_in, vfs_with};
use crate::vfs::Vfs;

/// `mkdir -p a/b/c d; echo x > a/f.txt; echo yy > a/b/g.py; touch e.txt .hid; ln -s a lnk`.
fn setup() -> Rc<RefCell<Vfs>> {
    let vfs = vfs_with(&[
        ("a/f.txt", "x\n"),
        ("a/b/g.py", "yy\n"),
        ("e.txt", ""),
        (".hid", ""),
    ]);
    let _ = vfs.borrow_mut().mkdir_all("/workspace", "a/b/c");
    let _ = vfs.borrow_mut().mkdir("/workspace", "d");
    let _ = vfs.borrow_mut().symlink("/workspace", "a", "lnk");
    vfs
}

fn find(vfs: &Rc<RefCell<Vfs>>, args: &[&str]) -> crate::applets::testing::Outcome {
    run_in(vfs, "find", args, "")
}

#[test]
fn walks_in_name_order() {
    let vfs = setup();
    let all = ".\n./.hid\n./a\n./a/b\n./a/b/c\n./a/b/g.py\n./a/f.txt\n./d\n./e.txt\n./lnk\n";
    assert_eq!(find(&vfs, &[]), ok(all));
    assert_eq!(find(&vfs, &["."]), ok(all));
    assert_eq!(find(&vfs, &["a/", "-type", "f"]), ok("a/b/g.py\na/f.txt\n"));
    assert_eq!(
        find(&vfs, &["a", "-maxdepth", "1"]),
        ok("a\na/b\na/f.txt\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-mindepth", "2", "-type", "d"]),
        ok("./a/b\n./a/b/c\n")
    );
    assert_eq!(find(&vfs, &["a", "d", "-maxdepth", "0"]), ok("a\nd\n"));
    assert_eq!(
        find(&vfs, &["a", "-depth"]),
        ok("a/b/c\na/b/g.py\na/b\na/f.txt\na\n")
    );
    assert_eq!(find(&vfs, &["lnk"]), ok("lnk\n"));
    assert_eq!(
        find(&vfs, &["-L", "lnk", "-type", "f"]),
        ok("lnk/b/g.py\nlnk/f.txt\n")
    );
    assert_eq!(
        find(&vfs, &["-H", "lnk", "-maxdepth", "1"]),
        ok("lnk\nlnk/b\nlnk/f.txt\n")
    );
}

#[test]
fn name_path_type_tests() {
    let vfs = setup();
    assert_eq!(
        find(&vfs, &[".", "-name", "*.txt"]),
        ok("./a/f.txt\n./e.txt\n")
    );
    assert_eq!(find(&vfs, &[".", "-iname", "E.TXT"]), ok("./e.txt\n"));
    assert_eq!(find(&vfs, &[".", "-type", "l"]), ok("./lnk\n"));
    assert_eq!(
        find(&vfs, &[".", "-type", "f,l", "-name", "[el]*"]),
        ok("./e.txt\n./lnk\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-path", "./a/*", "-name", "*.py"]),
        ok("./a/b/g.py\n")
    );
    assert_eq!(find(&vfs, &[".", "-regex", r".*\.py"]), ok("./a/b/g.py\n"));
    assert_eq!(
        find(&vfs, &["a", "-regex", r".*\(f\.txt\|c\)"]),
        ok("a/b/c\na/f.txt\n")
    );
    assert_eq!(
        find(
            &vfs,
            &["a", "-regextype", "posix-extended", "-regex", ".*(txt|py)"]
        ),
        ok("a/b/g.py\na/f.txt\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-name", "*.txt", "-maxdepth", "1"]),
        ok("./e.txt\n")
    );
    assert_eq!(find(&vfs, &["a/", "-name", "a"]), ok("a/\n"));
    assert_eq!(
        find(&vfs, &[".", "-xtype", "d", "-maxdepth", "1", "-name", "l*"]),
        ok("./lnk\n")
    );
}

#[test]
fn operators() {
    let vfs = setup();
    assert_eq!(
        find(
            &vfs,
            &[".", "(", "-name", "*.py", "-o", "-name", "*.txt", ")", "-print"]
        ),
        ok("./a/b/g.py\n./a/f.txt\n./e.txt\n")
    );
    assert_eq!(
        find(&vfs, &[".", "!", "-type", "d", "-not", "-name", "*.txt"]),
        ok("./.hid\n./a/b/g.py\n./lnk\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-path", "./a", "-prune", "-o", "-print"]),
        ok(".\n./.hid\n./d\n./e.txt\n./lnk\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-name", "A", "-o", "-iname", "a"]),
        ok("./a\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-type", "d", "-a", "-name", "c"]),
        ok("./a/b/c\n")
    );
    assert_eq!(
        find(
            &vfs,
            &[".", "-name", "d", "-print", ",", "-name", "e.txt", "-print"]
        ),
        ok("./d\n./e.txt\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-name", "e.txt", "-quit", "-print"]),
        ok("")
    );
    assert_eq!(
        find(&vfs, &[".", "-type", "f", "-print", "-quit"]),
        ok("./.hid\n")
    );
    assert_eq!(find(&vfs, &["-name", "nothing", "-o", "-false"]), ok(""));
}

#[test]
fn size_time_and_emptiness() {
    let vfs = setup();
    assert_eq!(
        find(&vfs, &[".", "-empty"]),
        ok("./.hid\n./a/b/c\n./d\n./e.txt\n")
    );
    assert_eq!(find(&vfs, &[".", "-size", "-1"]), ok("./.hid\n./e.txt\n"));
    assert_eq!(
        find(&vfs, &[".", "-size", "+1c", "-type", "f"]),
        ok("./a/b/g.py\n./a/f.txt\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-size", "-1k", "-type", "f"]),
        ok("./.hid\n./e.txt\n")
    );
    assert_eq!(find(&vfs, &["a", "-size", "3c"]), ok("a/b/g.py\n"));
    set_mtime(&vfs, "a/f.txt", 1_700_000_000.0 - 3.0 * 86_400.0);
    set_mtime(&vfs, "e.txt", 1_700_000_000.0 - 600.0);
    assert_eq!(
        find(&vfs, &[".", "-type", "f", "-mtime", "+1"]),
        ok("./a/f.txt\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-type", "f", "-mtime", "3"]),
        ok("./a/f.txt\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-type", "f", "-mmin", "+5"]),
        ok("./a/f.txt\n./e.txt\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-type", "f", "-mmin", "-5"]),
        ok("./.hid\n./a/b/g.py\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-type", "f", "-newer", "e.txt"]),
        ok("./.hid\n./a/b/g.py\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-type", "f", "-newermt", "2023-11-12"]),
        ok("./.hid\n./a/b/g.py\n./e.txt\n")
    );
}

#[test]
fn perms_links_owners() {
    let vfs = setup();
    let _ = vfs.borrow_mut().set_mode("/workspace", "e.txt", 0o755);
    assert_eq!(
        find(&vfs, &[".", "-type", "f", "-perm", "644"]),
        ok("./.hid\n./a/b/g.py\n./a/f.txt\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-perm", "-u+x", "-type", "f"]),
        ok("./e.txt\n")
    );
    assert_eq!(
        find(
            &vfs,
            &[".", "-perm", "/111", "-maxdepth", "1", "-type", "f"]
        ),
        ok("./e.txt\n")
    );
    assert_eq!(find(&vfs, &["a", "-links", "3"]), ok("a\na/b\n"));
    assert_eq!(find(&vfs, &["d", "-user", "user"]), ok("d\n"));
    assert_eq!(find(&vfs, &["d", "-user", "root"]), ok(""));
    assert_eq!(find(&vfs, &["d", "-executable"]), ok("d\n"));
}

#[test]
fn hard_links_by_count_and_inode() {
    let vfs = setup();
    let _ = vfs.borrow_mut().link("/workspace", "e.txt", "a/e2", false);
    assert_eq!(
        find(&vfs, &[".", "-samefile", "a/e2"]),
        ok("./a/e2\n./e.txt\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-type", "f", "-links", "+1"]),
        ok("./a/e2\n./e.txt\n")
    );
    let ino = vfs.borrow().stat("/workspace", "e.txt").map(|s| s.ino);
    let ino = ino.map(|i| i.to_string()).unwrap_or_default();
    assert_eq!(find(&vfs, &["a", "-inum", &ino]), ok("a/e2\n"));
    assert_eq!(
        find(&vfs, &[".", "-samefile", "nope"]),
        err("find: 'nope': No such file or directory\n", 1)
    );
}

#[test]
fn printing_actions() {
    let vfs = setup();
    set_mtime(&vfs, "a/f.txt", 1_700_000_000.0);
    assert_eq!(
        find(&vfs, &[".", "-type", "f", "-print0"]),
        ok("./.hid\0./a/b/g.py\0./a/f.txt\0./e.txt\0")
    );
    assert_eq!(
        find(
            &vfs,
            &[
                ".",
                "-maxdepth",
                "0",
                "-printf",
                "%p|%f|%h|%P|%s|%d|%m|%M|%y|%Y|%l\\n"
            ]
        ),
        ok(".|.|.||4096|0|755|drwxr-xr-x|d|d|\n")
    );
    assert_eq!(
        find(&vfs, &["a/f.txt", "-printf", "%t|%TY-%Tm-%Td %TH:%TM:%TS|%T+|%T@|%Tc|%k|%b|%n|%u|%g|%-6s|%6s|%06s|%%|\\t\\n"]),
        ok("Tue Nov 14 22:13:20.0000000000 2023|2023-11-14 22:13:20.0000000000|2023-11-14+22:13:20.0000000000|1700000000.0000000000|Tue Nov 14 22:13:20 2023|4|8|1|user|user|2     |     2|000002|%|\t\n")
    );
    assert_eq!(
        find(&vfs, &["a", "-printf", "%h %P %d %y %Y %l\\n"]),
        ok(".  0 d d \na b 1 d d \na/b b/c 2 d d \na/b b/g.py 2 f f \na f.txt 1 f f \n")
    );
    assert_eq!(
        find(&vfs, &["lnk", "-printf", "%y %Y %l\\n"]),
        ok("l d a\n")
    );
    let ino = vfs
        .borrow()
        .lstat("/workspace", "a/f.txt")
        .map(|s| s.ino)
        .unwrap_or(0);
    assert_eq!(
        find(&vfs, &["a/f.txt", "-ls"]),
        ok(&format!(
            "{ino:>9}      4 -rw-r--r--   1 user     user            2 Nov 14 22:13 a/f.txt\n"
        ))
    );
    assert_eq!(
        find(&vfs, &[".", "-maxdepth", "0", "-printf", "%z"]),
        both(
            "%z",
            "find: warning: unrecognized format directive `%z'\n",
            0
        )
    );
}

#[test]
fn exec_and_delete() {
    let vfs = setup();
    assert_eq!(
        find(
            &vfs,
            &[".", "-name", "e.txt", "-exec", "echo", "X", "{}", ";"]
        ),
        ok("X ./e.txt\n")
    );
    assert_eq!(
        find(
            &vfs,
            &[".", "-name", "*.txt", "-exec", "echo", "X", "{}", "+"]
        ),
        ok("X ./a/f.txt ./e.txt\n")
    );
    assert_eq!(
        find(
            &vfs,
            &["a", "-name", "*.py", "-exec", "echo", "file={}", ";"]
        ),
        ok("file=a/b/g.py\n")
    );
    assert_eq!(
        find(&vfs, &["a", "-type", "f", "-execdir", "echo", "{}", ";"]),
        ok("./g.py\n./f.txt\n")
    );
    assert_eq!(
        find(&vfs, &["a", "-type", "f", "-exec", "cat", "{}", ";"]),
        ok("yy\nx\n")
    );
    assert_eq!(
        find(&vfs, &["a", "-type", "d", "-exec", "false", ";", "-print"]),
        ok("")
    );
    assert_eq!(
        find(&vfs, &["a", "-type", "d", "-exec", "false", "{}", "+"]).status,
        1
    );
    assert_eq!(
        find(&vfs, &["a", "-name", "*.txt", "-ok", "echo", "{}", ";"]),
        err("< echo ... a/f.txt > ? ", 0)
    );
    assert_eq!(
        find(
            &vfs,
            &[".", "-type", "f", "-name", "*.py", "-delete", "-print"]
        ),
        ok("./a/b/g.py\n")
    );
    assert_eq!(
        find(&vfs, &[".", "-type", "d", "-empty", "-delete"]),
        ok("")
    );
    assert_eq!(tree(&vfs), ".hid=\na/\na/f.txt=x\n\ne.txt=\nlnk->a");
    assert_eq!(
        find(&vfs, &["a", "-name", "a", "-delete"]),
        err("find: cannot delete 'a': Directory not empty\n", 1)
    );
}

#[test]
fn errors() {
    let vfs = setup();
    let e = |msg: &str| err(&format!("find: {msg}\n"), 1);
    assert_eq!(
        find(&vfs, &["nope"]),
        e("'nope': No such file or directory")
    );
    assert_eq!(
        find(&vfs, &["nope", "d"]),
        both("d\n", "find: 'nope': No such file or directory\n", 1)
    );
    assert_eq!(
        find(&vfs, &[".", "-bogus"]),
        e("unknown predicate `-bogus'")
    );
    assert_eq!(
        find(&vfs, &[".", "-name"]),
        e("missing argument to `-name'")
    );
    assert_eq!(
        find(&vfs, &[".", "-type", "q"]),
        e("Unknown argument to -type: q")
    );
    assert_eq!(
        find(&vfs, &[".", "(", "-name", "x"]),
        e("invalid expression; I was expecting to find a ')' somewhere but did not see one.")
    );
    assert_eq!(
        find(&vfs, &[".", "-exec", "echo", "{}"]),
        e("missing argument to `-exec'")
    );
    assert_eq!(
        find(&vfs, &["-maxdepth", "x"]),
        e("Expected a positive decimal integer argument to -maxdepth, but got 'x'")
    );
    assert_eq!(find(&vfs, &[".", "-name", "a", "b"]), e("paths must precede expression: `b'\nfind: possible unquoted pattern after predicate `-name'?"));
    assert_eq!(
        find(&vfs, &["a", "-name", "f", "-a"]),
        e("expected an expression after '-a'")
    );
    assert_eq!(
        find(&vfs, &["a", "-o"]),
        e("invalid expression; you have used a binary operator '-o' with nothing before it.")
    );
    assert_eq!(
        find(&vfs, &["a", "(", ")"]),
        e("invalid expression; empty parentheses are not allowed.")
    );
    assert_eq!(
        find(&vfs, &["a", "-newer", "nope"]),
        e("'nope': No such file or directory")
    );
    assert_eq!(
        find(&vfs, &[".", "-mtime", "x"]),
        e("invalid argument `x' to `-mtime'")
    );
    assert_eq!(
        find(&vfs, &[".", "-size", "5x"]),
        e("invalid -size type `x'")
    );
    assert!(find(&vfs, &["--help"]).stdout.starts_with("Usage: find"));
}
