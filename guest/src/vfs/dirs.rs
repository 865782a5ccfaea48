//! Changing the shape of the tree: directories, symlinks, removal, rename.

use super::error::{at, Errno, VfsError};
use super::node::{Ino, Node};
use super::path;
use super::walk::Loc;
use super::Vfs;

impl Vfs {
    /// Creates a directory; its parent must exist. EEXIST when anything is already there.
    pub fn mkdir(&mut self, cwd: &str, path: &str) -> Result<(), VfsError> {
        self.generation += 1;
        let loc = self.tree.locate(cwd, path, false).map_err(at(path))?;
        self.mkdir_at(&loc, None).map_err(at(path))
    }

    /// Creates a directory and any missing parents (`mkdir -p`); an existing directory (or a
    /// link to one) is fine, anything else in the way is EEXIST (or ENOTDIR above the end).
    /// Directories made before a failure stay, as with `mkdir -p`.
    pub fn mkdir_all(&mut self, cwd: &str, path: &str) -> Result<(), VfsError> {
        self.generation += 1;
        path::check(path).map_err(at(path))?;
        let prefixes: Vec<&str> = prefixes(path).collect();
        let mut now = None;
        for (i, prefix) in prefixes.iter().enumerate() {
            let is_last = i + 1 == prefixes.len();
            self.mkdir_step(cwd, prefix, is_last, &mut now)
                .map_err(at(path))?;
        }
        Ok(())
    }

    /// One step of [`Vfs::mkdir_all`]; `now` is read on the first creation and reused.
    fn mkdir_step(
        &mut self,
        cwd: &str,
        prefix: &str,
        is_last: bool,
        now: &mut Option<f64>,
    ) -> Result<(), Errno> {
        let loc = self.tree.locate(cwd, prefix, false)?;
        if loc.ino.is_none() {
            let at = *now.get_or_insert_with(|| (self.clock)());
            return self.mkdir_at(&loc, Some(at));
        }
        let target = self.tree.locate(cwd, prefix, true)?.ino;
        match target.map(|ino| self.tree.node(ino)).transpose()? {
            Some(node) if node.is_dir() => Ok(()),
            _ if is_last => Err(Errno::EEXIST),
            _ => Err(Errno::ENOTDIR),
        }
    }

    fn mkdir_at(&mut self, loc: &Loc, now: Option<f64>) -> Result<(), Errno> {
        if loc.ino.is_some() {
            return Err(Errno::EEXIST);
        }
        self.tree.check_writable(loc)?;
        let parent = loc.parent().ok_or(Errno::EEXIST)?;
        self.tree.fits(1, 0, 0)?;
        let now = now.unwrap_or_else(|| self.now());
        let mut node = Node::dir(now);
        node.mode = 0o777 & !self.umask;
        self.tree.attach(parent, &loc.name, node, now).map(drop)
    }

    /// Creates symlink `link` pointing at `target`, stored as given (it need not exist).
    pub fn symlink(&mut self, cwd: &str, target: &str, link: &str) -> Result<(), VfsError> {
        self.generation += 1;
        self.symlink_at(cwd, target, link).map_err(at(link))
    }

    fn symlink_at(&mut self, cwd: &str, target: &str, link: &str) -> Result<(), Errno> {
        path::check(target)?;
        let loc = self.tree.locate(cwd, link, false)?;
        if loc.ino.is_some() {
            return Err(Errno::EEXIST);
        }
        let (parent, name) = self.new_entry(&loc)?;
        self.tree.fits(1, 0, target.len() as u64)?;
        let now = self.now();
        self.tree
            .attach(parent, &name, Node::symlink(target, now), now)
            .map(drop)
    }

    /// Makes `link` one more name of the file `target` names (a hard link, as `link(2)`): the
    /// names share contents, mode, mtime and inode number, and the data stays until the last
    /// name is removed. A symlink `target` is itself linked unless `follow` (`ln -L`).
    /// Fails with EPERM for a directory, EEXIST when `link` exists, EXDEV when `target` is
    /// outside the writable areas (another filesystem), EACCES when `link` would be.
    /// Errors about `target` name it; the others name `link`.
    pub fn link(
        &mut self,
        cwd: &str,
        target: &str,
        link: &str,
        follow: bool,
    ) -> Result<(), VfsError> {
        self.link_with(cwd, target, link, follow, false)
    }

    /// Like [`Vfs::link`], but an existing non-directory at `link` is replaced in the same
    /// step (`ln -f`), so a link that cannot be made leaves it in place; EISDIR for a
    /// directory there. Already a name of the same file, `link` stays as it is.
    pub fn link_replacing(
        &mut self,
        cwd: &str,
        target: &str,
        link: &str,
        follow: bool,
    ) -> Result<(), VfsError> {
        self.link_with(cwd, target, link, follow, true)
    }

    fn link_with(
        &mut self,
        cwd: &str,
        target: &str,
        link: &str,
        follow: bool,
        replace: bool,
    ) -> Result<(), VfsError> {
        self.generation += 1;
        let src = self.tree.locate(cwd, target, follow).map_err(at(target))?;
        let ino = src.existing().map_err(at(target))?;
        self.tree.check_link(ino).map_err(at(target))?;
        self.link_at(&src, ino, cwd, link, replace)
            .map_err(at(link))
    }

    fn link_at(
        &mut self,
        src: &Loc,
        ino: Ino,
        cwd: &str,
        link: &str,
        replace: bool,
    ) -> Result<(), Errno> {
        let dst = self.tree.locate(cwd, link, false)?;
        let old = match dst.ino {
            Some(_) if !replace => return Err(Errno::EEXIST),
            Some(old) if old == ino => return Ok(()),
            Some(old) if self.tree.node(old)?.is_dir() => return Err(Errno::EISDIR),
            Some(old) => Some(old),
            // `link(2)` to a missing `new/` finds no directory there.
            None if dst.must_dir => return Err(Errno::ENOENT),
            None => None,
        };
        self.tree.check_writable(&dst)?;
        let parent = dst.parent().ok_or(Errno::EACCES)?;
        if !self.tree.writable(src) {
            return Err(Errno::EXDEV);
        }
        let now = self.now();
        if let Some(old) = old {
            self.tree.detach(parent, &dst.name, now)?;
            self.tree.free(old);
        }
        self.tree.link(parent, &dst.name, ino, now)
    }

    /// Removes a file or symlink (not what it points to); EISDIR for a directory.
    pub fn remove_file(&mut self, cwd: &str, path: &str) -> Result<(), VfsError> {
        self.unlink_at(cwd, path, Removal::File)
    }

    /// Removes an empty directory: ENOTDIR for anything else, ENOTEMPTY when it has entries.
    pub fn remove_dir(&mut self, cwd: &str, path: &str) -> Result<(), VfsError> {
        self.unlink_at(cwd, path, Removal::EmptyDir)
    }

    /// Removes a file, symlink or whole directory tree (`rm -r`; ENOENT when missing, which
    /// `rm -f` ignores).
    pub fn remove_all(&mut self, cwd: &str, path: &str) -> Result<(), VfsError> {
        self.unlink_at(cwd, path, Removal::Tree)
    }

    /// Removes the entry `path` names if it is of the kind `removal` accepts.
    fn unlink_at(&mut self, cwd: &str, path: &str, removal: Removal) -> Result<(), VfsError> {
        self.generation += 1;
        let removed = self
            .removable(cwd, path)
            .and_then(|(loc, ino)| match removal {
                Removal::File if self.tree.node(ino)?.is_dir() => Err(Errno::EISDIR),
                Removal::EmptyDir if !self.tree.entries(ino)?.is_empty() => Err(Errno::ENOTEMPTY),
                _ => self.unlink(&loc, ino),
            });
        removed.map_err(at(path))
    }

    /// The entry `path` names (not following a final symlink), if it may be removed.
    /// `.` and `..` never may (EINVAL), like `rmdir` and `rm` refuse them.
    fn removable(&self, cwd: &str, path: &str) -> Result<(Loc, Ino), Errno> {
        if path::ends_in_dots(path) {
            return Err(Errno::EINVAL);
        }
        let loc = self.tree.locate(cwd, path, false)?;
        let ino = loc.existing()?;
        self.tree.check_writable(&loc)?;
        Ok((loc, ino))
    }

    /// Detaches `ino` from its parent and frees it with everything below it.
    fn unlink(&mut self, loc: &Loc, ino: Ino) -> Result<(), Errno> {
        let parent = loc.parent().ok_or(Errno::EACCES)?;
        let now = self.now();
        self.tree.detach(parent, &loc.name, now)?;
        self.tree.free(ino);
        Ok(())
    }

    /// Moves `from` to `to` with POSIX `rename` semantics: an existing file at `to` is
    /// replaced, and so is an empty directory when `from` is one; a directory cannot replace
    /// a file (ENOTDIR) nor a file a directory (EISDIR), nor go inside itself (EINVAL).
    /// Errors name the path they are about: `from` when it is missing or read-only, else `to`.
    pub fn rename(&mut self, cwd: &str, from: &str, to: &str) -> Result<(), VfsError> {
        self.generation += 1;
        let (src, ino) = self.removable(cwd, from).map_err(at(from))?;
        let dst = self.rename_target(cwd, to, ino).map_err(at(to))?;
        if dst.ino == Some(ino) {
            return Ok(());
        }
        self.move_entry(&src, ino, &dst).map_err(at(to))
    }

    /// Where `ino` would go when renamed to `to`, checked for every conflict.
    fn rename_target(&self, cwd: &str, to: &str, ino: Ino) -> Result<Loc, Errno> {
        if path::ends_in_dots(to) {
            return Err(Errno::EINVAL);
        }
        let dst = self.tree.locate(cwd, to, false)?;
        self.tree.check_writable(&dst)?;
        let is_dir = self.tree.node(ino)?.is_dir();
        if is_dir && dst.dirs.contains(&ino) {
            return Err(Errno::EINVAL);
        }
        match dst.ino {
            Some(old) if old != ino => self.check_replace(is_dir, old)?,
            None if dst.must_dir && !is_dir => return Err(Errno::ENOTDIR),
            _ => {}
        }
        Ok(dst)
    }

    /// Whether a directory (`is_dir`) or file may replace node `old`.
    fn check_replace(&self, is_dir: bool, old: Ino) -> Result<(), Errno> {
        let old = self.tree.node(old)?;
        match (is_dir, old.entries()) {
            (true, Err(_)) => Err(Errno::ENOTDIR),
            (false, Ok(_)) => Err(Errno::EISDIR),
            (true, Ok(entries)) if !entries.is_empty() => Err(Errno::ENOTEMPTY),
            _ => Ok(()),
        }
    }

    /// Moves the checked entry: frees what it replaces, then relinks it.
    fn move_entry(&mut self, src: &Loc, ino: Ino, dst: &Loc) -> Result<(), Errno> {
        let (from, to) = (src.parent(), dst.parent());
        let (from, to) = from.zip(to).ok_or(Errno::EACCES)?;
        let now = self.now();
        if let Some(old) = dst.ino {
            self.tree.detach(to, &dst.name, now)?;
            self.tree.free(old);
        }
        self.tree.detach(from, &src.name, now)?;
        let entries = self.tree.nodes.get_mut(to)?.entries_mut()?;
        entries.insert(dst.name.clone(), ino);
        self.tree.touch(to, now);
        Ok(())
    }
}

/// The prefixes of `path` that end a component, shortest first: `a/b/c` gives `a`, `a/b`,
/// `a/b/c` (and `/a` for `/a`).
fn prefixes(path: &str) -> impl Iterator<Item = &str> {
    let ends = path
        .char_indices()
        .filter(|&(i, c)| c == '/' && i > 0)
        .map(|(i, _)| i);
    ends.chain([path.len()])
        .filter_map(|end| path.get(..end))
        .filter(|prefix| !prefix.ends_with('/'))
}

/// What a removal accepts: the one difference between `unlink`, `rmdir` and `rm -r`.
#[derive(Clone, Copy)]
enum Removal {
    /// Anything but a directory.
    File,
    /// An empty directory only.
    EmptyDir,
    /// Anything, a directory with everything below it.
    Tree,
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{VfsUsage, WORKSPACE};
    use super::*;

    const W: &str = WORKSPACE;

    #[test]
    fn prefixes_of_paths() {
        let all = |p| prefixes(p).collect::<Vec<_>>();
        assert_eq!(all("a/b//c/"), ["a", "a/b", "a/b//c"]);
        assert_eq!(all("/a/b"), ["/a", "/a/b"]);
        assert_eq!(all("/"), Vec::<&str>::new());
    }

    #[test]
    fn mkdir_cases() {
        let mut vfs = vfs();
        assert_eq!(vfs.mkdir(W, "d"), Ok(()));
        assert_eq!(vfs.mkdir(W, "d/e/"), Ok(()));
        assert_eq!(code(vfs.mkdir(W, "d")), Some(Errno::EEXIST));
        assert_eq!(code(vfs.mkdir(W, "x/y")), Some(Errno::ENOENT));
        assert_eq!(code(vfs.mkdir(W, "/etc")), Some(Errno::EEXIST));
        assert_eq!(code(vfs.mkdir(W, "/etc/x")), Some(Errno::EACCES));
        assert_eq!(code(vfs.mkdir(W, "/")), Some(Errno::EEXIST));
        assert_eq!(code(vfs.mkdir(W, "/new")), Some(Errno::EACCES));
        put(&mut vfs, "f", "");
        assert_eq!(code(vfs.mkdir(W, "f/x")), Some(Errno::ENOTDIR));
        assert_eq!(vfs.usage(), VfsUsage { bytes: 0, files: 3 });
    }

    #[test]
    fn mkdir_all_cases() {
        let mut vfs = vfs();
        assert_eq!(vfs.mkdir_all(W, "a/b/../c/./d/"), Ok(()));
        assert_eq!(ls(&vfs, "a"), ["b/", "c/"]);
        assert_eq!(vfs.mkdir_all(W, "a/c/d"), Ok(()));
        assert_eq!(vfs.mkdir_all("/", "/usr/bin"), Ok(()));
        assert_eq!(vfs.symlink(W, "a", "l"), Ok(()));
        assert_eq!(vfs.mkdir_all(W, "l/x"), Ok(()));
        assert!(vfs.exists(W, "a/x"));
        put(&mut vfs, "f", "");
        assert_eq!(code(vfs.mkdir_all(W, "f")), Some(Errno::EEXIST));
        assert_eq!(code(vfs.mkdir_all(W, "./f/")), Some(Errno::EEXIST));
        assert_eq!(vfs.mkdir_all(W, "/"), Ok(()));
        assert_eq!(code(vfs.mkdir_all(W, "f/g")), Some(Errno::ENOTDIR));
        assert_eq!(code(vfs.mkdir_all(W, "/etc/x/y")), Some(Errno::EACCES));
        let e = vfs.mkdir_all(W, "f/g/h").err();
        assert_eq!(e, Some(VfsError::new(Errno::ENOTDIR, "f/g/h")));
    }

    #[test]
    fn mkdir_all_reads_the_clock_once() {
        let mut vfs = vfs();
        assert_eq!(vfs.mkdir_all(W, "a/b/c"), Ok(()));
        let times: Vec<_> = ["a", "a/b", "a/b/c"]
            .iter()
            .map(|p| vfs.stat(W, p).map(|s| s.mtime_ms))
            .collect();
        assert_eq!(times, vec![Ok(1001.0); 3]);
    }

    #[test]
    fn symlink_cases() {
        let mut vfs = vfs();
        assert_eq!(vfs.symlink(W, "/etc", "etc"), Ok(()));
        assert_eq!(ls(&vfs, "etc"), Vec::<String>::new());
        assert_eq!(code(vfs.symlink(W, "x", "etc")), Some(Errno::EEXIST));
        assert_eq!(code(vfs.symlink(W, "", "e")), Some(Errno::ENOENT));
        assert_eq!(code(vfs.symlink(W, "x", "/bin/x")), Some(Errno::EACCES));
        assert_eq!(code(vfs.write(W, "etc/passwd", b"")), Some(Errno::EACCES));
        assert_eq!(vfs.usage(), VfsUsage { bytes: 4, files: 1 });
    }

    #[test]
    fn symlink_loops_end_in_eloop() {
        let mut vfs = vfs();
        assert_eq!(vfs.symlink(W, "b", "a"), Ok(()));
        assert_eq!(vfs.symlink(W, "a", "b"), Ok(()));
        assert_eq!(vfs.symlink(W, "self/x", "self"), Ok(()));
        for path in ["a", "b/", "self", "a/x"] {
            assert_eq!(code(vfs.stat(W, path)), Some(Errno::ELOOP), "{path}");
        }
        assert_eq!(code(vfs.write(W, "a", b"")), Some(Errno::ELOOP));
        assert_eq!(vfs.lstat(W, "a").map(|s| s.size), Ok(1));
        assert_eq!(vfs.remove_file(W, "a"), Ok(()));
        // A chain of exactly 40 links resolves; 41 do not.
        put(&mut vfs, "l0", "end");
        for i in 1..=41 {
            assert_eq!(
                vfs.symlink(W, &format!("l{}", i - 1), &format!("l{i}")),
                Ok(())
            );
        }
        assert_eq!(text(&vfs, "l40"), "end");
        assert_eq!(text(&vfs, "l41"), "ELOOP");
    }

    #[test]
    fn remove_cases() {
        let mut vfs = vfs();
        assert_eq!(vfs.mkdir_all(W, "d/e"), Ok(()));
        put(&mut vfs, "d/e/f", "x");
        assert_eq!(vfs.symlink(W, "d", "l"), Ok(()));
        assert_eq!(code(vfs.remove_file(W, "d")), Some(Errno::EISDIR));
        assert_eq!(code(vfs.remove_dir(W, "d")), Some(Errno::ENOTEMPTY));
        assert_eq!(code(vfs.remove_dir(W, "d/e/f")), Some(Errno::ENOTDIR));
        assert_eq!(code(vfs.remove_dir(W, "l")), Some(Errno::ENOTDIR));
        assert_eq!(code(vfs.remove_dir(W, "d/e/..")), Some(Errno::EINVAL));
        assert_eq!(code(vfs.remove_all(W, ".")), Some(Errno::EINVAL));
        assert_eq!(code(vfs.remove_file(W, "nope")), Some(Errno::ENOENT));
        assert_eq!(code(vfs.remove_all(W, "/workspace")), Some(Errno::EACCES));
        assert_eq!(code(vfs.remove_dir("/", "tmp")), Some(Errno::EACCES));
        assert_eq!(code(vfs.remove_file(W, "/dev/null")), Some(Errno::EACCES));
        assert_eq!(vfs.remove_file(W, "l"), Ok(()));
        assert!(vfs.exists(W, "d/e/f"));
        assert_eq!(vfs.remove_file(W, "d/e/f"), Ok(()));
        assert_eq!(vfs.remove_dir(W, "d/e"), Ok(()));
        assert_eq!(vfs.usage(), VfsUsage { bytes: 0, files: 1 });
        put(&mut vfs, "d/g", "xyz");
        assert_eq!(vfs.remove_all(W, "d"), Ok(()));
        assert_eq!(vfs.usage(), VfsUsage::default());
        assert!(ls(&vfs, ".").is_empty());
    }

    #[test]
    fn remove_all_of_a_deep_tree() {
        let mut vfs = vfs();
        let mut cwd = W.to_string();
        for _ in 0..2000 {
            assert_eq!(vfs.mkdir(&cwd, "d"), Ok(()));
            cwd.push_str("/d");
        }
        assert_eq!(vfs.usage().files, 2000);
        // Snapshots walk it without recursion too.
        let snapshot = vfs.snapshot();
        assert_eq!(vfs.restore(&snapshot), Ok(()));
        assert_eq!(vfs.usage().files, 2000);
        assert_eq!(vfs.remove_all(W, "d"), Ok(()));
        assert_eq!(vfs.usage().files, 0);
    }

    #[test]
    fn rename_files() {
        let mut vfs = vfs();
        put(&mut vfs, "a", "A");
        put(&mut vfs, "b", "B");
        assert_eq!(vfs.rename(W, "a", "b"), Ok(()));
        assert_eq!(
            (text(&vfs, "a"), text(&vfs, "b")),
            ("ENOENT".into(), "A".into())
        );
        assert_eq!(vfs.usage(), VfsUsage { bytes: 1, files: 1 });
        assert_eq!(vfs.rename(W, "b", "/tmp/c"), Ok(()));
        assert_eq!(vfs.rename("/tmp", "c", "c"), Ok(()));
        assert_eq!(text(&vfs, "/tmp/c"), "A");
        assert_eq!(vfs.symlink(W, "/tmp/c", "l"), Ok(()));
        assert_eq!(vfs.rename(W, "l", "m"), Ok(()));
        assert_eq!(vfs.read_link(W, "m").as_deref(), Ok("/tmp/c"));
    }

    /// Inode number and link count.
    fn ino(vfs: &Vfs, path: &str) -> Result<(u64, u64), VfsError> {
        vfs.lstat(W, path).map(|s| (s.ino, s.nlink))
    }

    #[test]
    fn hard_links_share_one_node() {
        let mut vfs = vfs();
        put(&mut vfs, "a", "data");
        assert_eq!(vfs.mkdir(W, "d"), Ok(()));
        assert_eq!(vfs.link(W, "a", "d/b", false), Ok(()));
        assert_eq!(vfs.link(W, "d/b", "/tmp/c", false), Ok(()));
        let a = ino(&vfs, "a");
        assert_eq!(a.as_ref().map(|a| a.1), Ok(3));
        assert_eq!(
            (ino(&vfs, "d/b"), ino(&vfs, "/tmp/c")),
            (a.clone(), a.clone())
        );
        assert_eq!(vfs.usage(), VfsUsage { bytes: 4, files: 4 });
        assert_eq!(vfs.append(W, "/tmp/c", b"+"), Ok(()));
        assert_eq!(vfs.set_mode(W, "d/b", 0o600), Ok(()));
        assert_eq!(vfs.set_mtime(W, "a", Some(7.0)), Ok(()));
        let seen = vfs.stat(W, "/tmp/c").map(|s| (s.mode, s.mtime_ms, s.size));
        assert_eq!(seen, Ok((0o600, 7.0, 5)));
        assert_eq!(text(&vfs, "a"), "data+");
        assert_eq!(vfs.usage(), VfsUsage { bytes: 5, files: 4 });
        assert_eq!(vfs.remove_file(W, "a"), Ok(()));
        assert_eq!(text(&vfs, "d/b"), "data+");
        assert_eq!(ino(&vfs, "/tmp/c").map(|c| c.1), Ok(2));
        assert_eq!(vfs.remove_all(W, "d"), Ok(()));
        assert_eq!(ino(&vfs, "/tmp/c").map(|c| c.1), Ok(1));
        assert_eq!(vfs.usage(), VfsUsage { bytes: 5, files: 1 });
        assert_eq!(vfs.remove_file("/tmp", "c"), Ok(()));
        assert_eq!(vfs.usage(), VfsUsage::default());
    }

    #[test]
    fn hard_link_errors() {
        let mut vfs = vfs();
        put(&mut vfs, "f", "x");
        assert_eq!(vfs.mkdir(W, "d"), Ok(()));
        assert_eq!(vfs.symlink(W, "d", "ld"), Ok(()));
        let l = |vfs: &mut Vfs, from: &str, to: &str| vfs.link(W, from, to, false).err();
        let e = |code, path: &str| Some(VfsError::new(code, path));
        assert_eq!(l(&mut vfs, "d", "x"), e(Errno::EPERM, "d"));
        assert_eq!(vfs.link(W, "ld", "x", true).err(), e(Errno::EPERM, "ld"));
        assert_eq!(l(&mut vfs, "nope", "x"), e(Errno::ENOENT, "nope"));
        assert_eq!(l(&mut vfs, "f", "d"), e(Errno::EEXIST, "d"));
        assert_eq!(l(&mut vfs, "f", "f"), e(Errno::EEXIST, "f"));
        assert_eq!(l(&mut vfs, "f", "/etc/f"), e(Errno::EACCES, "/etc/f"));
        assert_eq!(l(&mut vfs, "/dev/null", "n"), e(Errno::EXDEV, "n"));
        assert_eq!(l(&mut vfs, "f", "no/x"), e(Errno::ENOENT, "no/x"));
        assert_eq!(l(&mut vfs, "f", "new/"), e(Errno::ENOENT, "new/"));
        assert_eq!(l(&mut vfs, "f/", "x"), e(Errno::ENOTDIR, "f/"));
        assert_eq!(ls(&vfs, "."), ["d/", "f", "ld@"]);
        // Replacing: never a directory, and a link that cannot be made keeps what is there.
        let r = |vfs: &mut Vfs, from: &str, to: &str| vfs.link_replacing(W, from, to, false).err();
        assert_eq!(r(&mut vfs, "f", "d"), e(Errno::EISDIR, "d"));
        assert_eq!(r(&mut vfs, "/dev/null", "f"), e(Errno::EXDEV, "f"));
        assert_eq!(r(&mut vfs, "d", "f"), e(Errno::EPERM, "d"));
        assert_eq!(text(&vfs, "f"), "x");
        put(&mut vfs, "g", "y");
        assert_eq!(r(&mut vfs, "f", "g"), None);
        assert_eq!(r(&mut vfs, "g", "f"), None);
        assert_eq!(
            (text(&vfs, "g"), ino(&vfs, "f").map(|f| f.1)),
            ("x".into(), Ok(2))
        );
        // A symlink is linked itself; following it links what it points to.
        assert_eq!(vfs.symlink(W, "f", "lf"), Ok(()));
        assert_eq!(vfs.link(W, "lf", "hl", false), Ok(()));
        assert_eq!(vfs.link(W, "lf", "hf", true), Ok(()));
        assert_eq!(vfs.read_link(W, "hl").as_deref(), Ok("f"));
        assert_eq!(ino(&vfs, "hf"), ino(&vfs, "f"));
        assert_eq!(ino(&vfs, "hl"), ino(&vfs, "lf"));
        assert_eq!(vfs.usage(), VfsUsage { bytes: 3, files: 7 });
    }

    #[test]
    fn hard_links_respect_the_quotas() {
        let limits = super::super::VfsLimits {
            max_files: 3,
            ..super::super::VfsLimits::default()
        };
        let mut vfs = vfs_with(limits);
        put(&mut vfs, "a", "12345");
        assert_eq!(vfs.link(W, "a", "b", false), Ok(()));
        assert_eq!(vfs.link(W, "a", "c", false), Ok(()));
        assert_eq!(code(vfs.link(W, "a", "d", false)), Some(Errno::ENOSPC));
        assert_eq!(vfs.usage(), VfsUsage { bytes: 5, files: 3 });
        let mut vfs = super::super::testing::vfs();
        put(&mut vfs, "a", "");
        for i in 1..crate::limits::MAX_LINKS {
            assert_eq!(vfs.link(W, "a", &format!("l{i}"), false), Ok(()));
        }
        assert_eq!(code(vfs.link(W, "a", "more", false)), Some(Errno::EMLINK));
        assert_eq!(ino(&vfs, "l9").map(|l| l.1), Ok(65_000));
    }

    #[test]
    fn rename_over_a_hard_link() {
        let mut vfs = vfs();
        put(&mut vfs, "a", "A");
        put(&mut vfs, "x", "X");
        assert_eq!(vfs.link(W, "a", "b", false), Ok(()));
        let a = ino(&vfs, "a");
        // Two names of one file: rename does nothing, as POSIX says.
        assert_eq!(vfs.rename(W, "a", "b"), Ok(()));
        assert_eq!(ls(&vfs, "."), ["a", "b", "x"]);
        assert_eq!(vfs.rename(W, "x", "b"), Ok(()));
        assert_eq!(ino(&vfs, "a").map(|a| a.1), Ok(1));
        assert_eq!(text(&vfs, "b"), "X");
        assert_eq!(vfs.rename(W, "a", "/tmp/moved"), Ok(()));
        assert_eq!(ino(&vfs, "/tmp/moved"), a.map(|a| (a.0, 1)));
        assert_eq!(vfs.usage(), VfsUsage { bytes: 2, files: 2 });
    }

    #[test]
    fn rename_errors_name_the_right_path() {
        let mut vfs = vfs();
        assert_eq!(vfs.mkdir_all(W, "d/sub"), Ok(()));
        assert_eq!(vfs.mkdir(W, "empty"), Ok(()));
        put(&mut vfs, "f", "");
        let r = |vfs: &mut Vfs, from: &str, to: &str| vfs.rename(W, from, to).err();
        let e = |code, path: &str| Some(VfsError::new(code, path));
        assert_eq!(r(&mut vfs, "nope", "x"), e(Errno::ENOENT, "nope"));
        assert_eq!(r(&mut vfs, "f", "no/x"), e(Errno::ENOENT, "no/x"));
        assert_eq!(r(&mut vfs, "f", "d"), e(Errno::EISDIR, "d"));
        assert_eq!(r(&mut vfs, "d", "f"), e(Errno::ENOTDIR, "f"));
        assert_eq!(r(&mut vfs, "empty", "d"), e(Errno::ENOTEMPTY, "d"));
        assert_eq!(r(&mut vfs, "d", "d/sub/x"), e(Errno::EINVAL, "d/sub/x"));
        assert_eq!(r(&mut vfs, "d", "d/sub"), e(Errno::EINVAL, "d/sub"));
        assert_eq!(r(&mut vfs, "f", "x/"), e(Errno::ENOTDIR, "x/"));
        assert_eq!(r(&mut vfs, "f/", "x"), e(Errno::ENOTDIR, "f/"));
        assert_eq!(r(&mut vfs, "f", "/etc/f"), e(Errno::EACCES, "/etc/f"));
        assert_eq!(r(&mut vfs, "/etc", "e"), e(Errno::EACCES, "/etc"));
        assert_eq!(
            r(&mut vfs, "/workspace", "/tmp/w"),
            e(Errno::EACCES, "/workspace")
        );
        assert_eq!(r(&mut vfs, "d/..", "x"), e(Errno::EINVAL, "d/.."));
        assert_eq!(r(&mut vfs, "f", "."), e(Errno::EINVAL, "."));
        assert_eq!(ls(&vfs, "."), ["d/", "empty/", "f"]);
    }

    #[test]
    fn rename_directories() {
        let mut vfs = vfs();
        assert_eq!(vfs.mkdir_all(W, "d/sub"), Ok(()));
        put(&mut vfs, "d/sub/f", "x");
        assert_eq!(vfs.mkdir(W, "empty"), Ok(()));
        assert_eq!(vfs.rename(W, "d", "empty"), Ok(()));
        assert_eq!(text(&vfs, "empty/sub/f"), "x");
        assert_eq!(vfs.rename(W, "empty/sub", "moved/"), Ok(()));
        assert_eq!(ls(&vfs, "."), ["empty/", "moved/"]);
        assert_eq!(vfs.rename(W, "moved", "./moved"), Ok(()));
        assert_eq!(vfs.usage(), VfsUsage { bytes: 1, files: 3 });
        let moved = vfs.stat("/", "/workspace").map(|s| s.nlink);
        assert_eq!(moved, Ok(4));
    }
}
