//! `tar` cases, checked against GNU tar 1.34 (its member order re-sorted by name, the order
//! directories are read in here; owner `root` replaced by the sandbox's `user`).

use std::cell::RefCell;
use std::rc::Rc;

use crate::applets::files::testutil::{both, err, run_bytes, tree};
use crate::applets::testing::{ok, run_in, vfs_with};
use crate::vfs::Vfs;

/// `d/a` = hello, `d/e/b` = x, `d/l -> a`.
fn setup() -> Rc<RefCell<Vfs>> {
    let vfs = vfs_with(&[("d/a", "hello"), ("d/e/b", "x")]);
    let _ = vfs.borrow_mut().symlink("/workspace", "a", "d/l");
    vfs
}

const LIST: &str = "d/\nd/a\nd/e/\nd/e/b\nd/l\n";
const LONG: &str = "drwxr-xr-x user/user         0 2023-11-14 22:13 d/\n-rw-r--r-- user/user         5 2023-11-14 22:13 d/a\ndrwxr-xr-x user/user         0 2023-11-14 22:13 d/e/\n-rw-r--r-- user/user         1 2023-11-14 22:13 d/e/b\nlrwxrwxrwx user/user         0 2023-11-14 22:13 d/l -> a\n";

#[test]
fn create_and_list() {
    let vfs = setup();
    assert_eq!(run_in(&vfs, "tar", &["-cf", "t.tar", "d"], ""), ok(""));
    let size = vfs
        .borrow()
        .stat("/workspace", "t.tar")
        .map(|s| s.size)
        .unwrap_or(0);
    assert_eq!(size, 10240);
    assert_eq!(run_in(&vfs, "tar", &["-tf", "t.tar"], ""), ok(LIST));
    assert_eq!(run_in(&vfs, "tar", &["-tvf", "t.tar"], ""), ok(LONG));
    assert_eq!(
        run_in(&vfs, "tar", &["tf", "t.tar", "d/a"], ""),
        ok("d/a\n")
    );
    assert_eq!(
        run_in(&vfs, "tar", &["-tf", "t.tar", "d/e"], ""),
        ok("d/e/\nd/e/b\n")
    );
    assert_eq!(
        run_in(&vfs, "tar", &["-tf", "t.tar", "--exclude=*b"], ""),
        ok("d/\nd/a\nd/e/\nd/l\n")
    );
    assert_eq!(run_in(&vfs, "tar", &["-cvf", "t2.tar", "d"], ""), ok(LIST));
    assert_eq!(
        run_in(&vfs, "tar", &["-tf", "t.tar", "nope"], ""),
        err("tar: nope: Not found in archive\ntar: Exiting with failure status due to previous errors\n", 2)
    );
}

#[test]
fn gzip_and_pipes() {
    let vfs = setup();
    assert_eq!(run_in(&vfs, "tar", &["-czf", "t.tgz", "d"], ""), ok(""));
    let magic = vfs
        .borrow()
        .read("/workspace", "t.tgz")
        .map(|d| d[..2].to_vec())
        .unwrap_or_default();
    assert_eq!(magic, vec![0x1f, 0x8b]);
    assert_eq!(run_in(&vfs, "tar", &["-tzf", "t.tgz"], ""), ok(LIST));
    assert_eq!(run_in(&vfs, "tar", &["-tf", "t.tgz"], ""), ok(LIST));
    assert_eq!(run_in(&vfs, "tar", &["czf", "z.tgz", "d/e"], ""), ok(""));
    assert_eq!(
        run_in(&vfs, "tar", &["tzf", "z.tgz"], ""),
        ok("d/e/\nd/e/b\n")
    );
    assert_eq!(
        run_in(&vfs, "tar", &["-xzf", "t.tgz", "-O", "d/a"], ""),
        ok("hello")
    );
    let (archive, _, status) = run_bytes(&vfs, "tar", &["-cf", "-", "d"], b"");
    assert_eq!((archive.len(), status), (10240, 0));
    let (listing, _, _) = run_bytes(&vfs, "tar", &["-tf", "-"], &archive);
    assert_eq!(String::from_utf8_lossy(&listing), LIST);
    let (_, stderr, _) = run_bytes(&vfs, "tar", &["-cvf", "-", "d/a"], b"");
    assert_eq!(stderr, "d/a\n");
    assert_eq!(
        run_in(&vfs, "tar", &["-caf", "auto.tar.gz", "d/a"], ""),
        ok("")
    );
    assert_eq!(
        run_in(&vfs, "tar", &["-tvzf", "auto.tar.gz"], ""),
        ok("-rw-r--r-- user/user         5 2023-11-14 22:13 d/a\n")
    );
}

#[test]
fn extract() {
    let vfs = setup();
    assert_eq!(run_in(&vfs, "tar", &["-cf", "t.tar", "d"], ""), ok(""));
    assert_eq!(run_in(&vfs, "mkdir", &["x", "y"], ""), ok(""));
    assert_eq!(
        run_in(&vfs, "tar", &["-xf", "t.tar", "-C", "x"], ""),
        ok("")
    );
    assert_eq!(
        run_in(
            &vfs,
            "tar",
            &["-xvf", "t.tar", "-C", "y", "--strip-components=1"],
            ""
        ),
        ok("d/a\nd/e/\nd/e/b\nd/l\n")
    );
    assert_eq!(run_in(&vfs, "rm", &["-r", "d"], ""), ok(""));
    assert_eq!(run_in(&vfs, "tar", &["xf", "t.tar", "d/e"], ""), ok(""));
    assert_eq!(
        tree(&vfs),
        "d/\nd/e/\nd/e/b=x\nt.tar=".to_string() + &String::from_utf8_lossy(vfs.borrow().read("/workspace", "t.tar").unwrap_or_default()) + "\nx/\nx/d/\nx/d/a=hello\nx/d/e/\nx/d/e/b=x\nx/d/l->a\ny/\ny/a=hello\ny/e/\ny/e/b=x\ny/l->a"
    );
    assert_eq!(crate::applets::files::testutil::mtime(&vfs, "x/d/e"), 1.7e9);
    assert_eq!(run_in(&vfs, "tar", &["-xkf", "t.tar", "-C", "x", "d/a"], ""), err("tar: d/a: Cannot open: File exists\ntar: Exiting with failure status due to previous errors\n", 2));
}

#[test]
fn dot_dot_prefixes_leave_member_names() {
    let vfs = setup();
    let run_at = crate::applets::files::testutil::run_at;
    assert_eq!(
        run_at(&vfs, "/workspace/d/e", "tar", &["-cvf", "../../up.tar", "../a", "./../e/b"]),
        both(
            "../a\n./../e/b\n",
            "tar: Removing leading `../' from member names\ntar: Removing leading `./../' from member names\n",
            0
        )
    );
    assert_eq!(run_in(&vfs, "tar", &["-tf", "up.tar"], ""), ok("a\ne/b\n"));
}

#[test]
fn absolute_and_long_names() {
    let vfs = setup();
    assert_eq!(
        run_in(&vfs, "tar", &["-cf", "abs.tar", "/workspace/d/a"], ""),
        err("tar: Removing leading `/' from member names\n", 0)
    );
    assert_eq!(
        run_in(&vfs, "tar", &["-tf", "abs.tar"], ""),
        ok("workspace/d/a\n")
    );
    let long = format!("{}/{}", "n".repeat(60), "m".repeat(120));
    assert_eq!(run_in(&vfs, "mkdir", &["-p", &long], ""), ok(""));
    assert_eq!(
        run_in(
            &vfs,
            "tar",
            &[
                "-cf",
                "long.tar",
                "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
            ],
            ""
        ),
        ok("")
    );
    assert_eq!(
        run_in(&vfs, "tar", &["-tf", "long.tar"], ""),
        ok(&format!("{}/\n{long}/\n", "n".repeat(60)))
    );
    assert_eq!(
        run_in(&vfs, "tar", &["-cf", "self.tar", "."], ""),
        err("tar: ./self.tar: file is the archive; not dumped\n", 0)
    );
    assert_eq!(
        run_in(&vfs, "tar", &["-cf", "c.tar", "-C", "d", "a", "e"], ""),
        ok("")
    );
    assert_eq!(
        run_in(&vfs, "tar", &["-tf", "c.tar"], ""),
        ok("a\ne/\ne/b\n")
    );
}

#[test]
fn errors() {
    let vfs = setup();
    let fatal = "tar: Error is not recoverable: exiting now\n";
    assert_eq!(
        run_in(&vfs, "tar", &["-xf", "nope.tar"], ""),
        err(
            &format!("tar: nope.tar: Cannot open: No such file or directory\n{fatal}"),
            2
        )
    );
    assert_eq!(
        run_in(&vfs, "tar", &["-tf"], ""),
        err(
            "tar: option requires an argument -- 'f'\nTry 'tar --help' for more information.\n",
            2
        )
    );
    assert_eq!(run_in(&vfs, "tar", &[], ""), err("tar: You must specify one of the '-Acdtrux', '--delete' or '--test-label' options\nTry 'tar --help' or 'tar --usage' for more information.\n", 2));
    assert_eq!(run_in(&vfs, "tar", &["-cf", "x.tar"], ""), err("tar: Cowardly refusing to create an empty archive\nTry 'tar --help' or 'tar --usage' for more information.\n", 2));
    assert_eq!(run_in(&vfs, "tar", &["-cf", "y.tar", "nope"], ""), err("tar: nope: Cannot stat: No such file or directory\ntar: Exiting with failure status due to previous errors\n", 2));
    assert_eq!(run_in(&vfs, "tar", &["-tf", "-"], "hi\n"), err("tar: This does not look like a tar archive\ntar: Exiting with failure status due to previous errors\n", 2));
    assert_eq!(
        run_in(&vfs, "tar", &["-xf", "y.tar", "-C", "nonexist"], ""),
        err(
            &format!("tar: nonexist: Cannot open: No such file or directory\n{fatal}"),
            2
        )
    );
    assert_eq!(run_in(&vfs, "tar", &["-cjf", "b.tbz", "d"], "").status, 2);
    assert_eq!(run_in(&vfs, "tar", &["-ctf", "b.tar", "d"], "").status, 2);
    let _ = both;
}

#[test]
fn a_member_linked_to_itself_keeps_the_file() {
    let vfs = setup();
    let _ = vfs.borrow_mut().link("/workspace", "d/a", "d/h", false);
    assert_eq!(
        run_in(&vfs, "tar", &["-cf", "t.tar", "d/a", "d/h", "d/a"], ""),
        ok("")
    );
    assert_eq!(run_in(&vfs, "tar", &["-xf", "t.tar"], ""), ok(""));
    let links = |p: &str| vfs.borrow().stat("/workspace", p).map(|s| (s.ino, s.nlink));
    assert_eq!(links("d/h"), links("d/a"));
    assert_eq!(links("d/a").map(|l| l.1), Ok(2));
}

#[test]
fn hard_links_are_link_members() {
    let vfs = setup();
    let _ = vfs.borrow_mut().link("/workspace", "d/a", "d/e/h", false);
    assert_eq!(run_in(&vfs, "tar", &["-cf", "t.tar", "d"], ""), ok(""));
    let listed = run_in(&vfs, "tar", &["-tvf", "t.tar"], "").stdout;
    assert!(
        listed.contains("\nhrw-r--r-- user/user         0 2023-11-14 22:13 d/e/h link to d/a\n"),
        "{listed}"
    );
    let _ = vfs.borrow_mut().remove_all("/workspace", "d");
    assert_eq!(run_in(&vfs, "tar", &["-xf", "t.tar"], ""), ok(""));
    let links = |p: &str| vfs.borrow().stat("/workspace", p).map(|s| (s.ino, s.nlink));
    assert_eq!(links("d/e/h"), links("d/a"));
    assert_eq!(links("d/a").map(|l| l.1), Ok(2));
    let _ = vfs.borrow_mut().remove_all("/workspace", "d");
    assert_eq!(
        run_in(&vfs, "tar", &["-xf", "t.tar", "d/e/h"], ""),
        err("tar: d/e/h: Cannot hard link to 'd/a': No such file or directory\ntar: Exiting with failure status due to previous errors\n", 2)
    );
}
