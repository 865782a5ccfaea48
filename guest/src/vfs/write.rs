//! Changing file contents and metadata: write, append, exclusive create, truncate, copy, touch,
//! chmod. Each checks everything (existence, permission, quotas) before changing anything.

use std::rc::Rc;

use super::error::{at, Errno, VfsError};
use super::node::{Data, Ino, Node};
use super::walk::Loc;
use super::Vfs;

/// Where bytes written to a path land.
enum Target {
    /// A device (`/dev/null`, `/dev/zero`...): the bytes vanish.
    Sink,
    /// An existing regular file.
    File(Ino),
    /// A new file to create as `name` in directory `parent`.
    New { parent: Ino, name: String },
}

impl Vfs {
    /// Creates or truncates a file and writes `data` (symlinks are followed, so writing
    /// through a dangling link creates its target).
    pub fn write(&mut self, cwd: &str, path: &str, data: &[u8]) -> Result<(), VfsError> {
        self.generation += 1;
        self.put(cwd, path, data.len() as u64, || Rc::new(data.to_vec()))
            .map_err(at(path))
    }

    /// Like [`Vfs::write`], but keeps `data` itself: no copy (copies of a file share it).
    pub fn write_shared(
        &mut self,
        cwd: &str,
        path: &str,
        data: Rc<Vec<u8>>,
    ) -> Result<(), VfsError> {
        self.generation += 1;
        self.put(cwd, path, data.len() as u64, || data)
            .map_err(at(path))
    }

    /// Appends `data`, creating the file if needed.
    pub fn append(&mut self, cwd: &str, path: &str, data: &[u8]) -> Result<(), VfsError> {
        self.generation += 1;
        let len = data.len() as u64;
        let appended = match self.target(cwd, path) {
            Ok(Target::File(ino)) => self.tree.append(ino, data, self.now()),
            Ok(Target::Sink) => Ok(()),
            Ok(Target::New { parent, name }) => {
                self.create(parent, &name, len, || Rc::new(data.to_vec()))
            }
            Err(e) => Err(e),
        };
        appended.map_err(at(path))
    }

    /// Creates a new file holding `data`; EEXIST when anything (even a dangling symlink) is
    /// already there (`O_CREAT | O_EXCL`).
    pub fn create_exclusive(&mut self, cwd: &str, path: &str, data: &[u8]) -> Result<(), VfsError> {
        self.generation += 1;
        self.create_new(cwd, path, data).map_err(at(path))
    }

    fn create_new(&mut self, cwd: &str, path: &str, data: &[u8]) -> Result<(), Errno> {
        let loc = self.tree.locate(cwd, path, false)?;
        if loc.ino.is_some() {
            return Err(Errno::EEXIST);
        }
        let (parent, name) = self.new_entry(&loc)?;
        self.create(parent, &name, data.len() as u64, || Rc::new(data.to_vec()))
    }

    /// Cuts a file to `len` bytes, or extends it with zero bytes.
    pub fn truncate(&mut self, cwd: &str, path: &str, len: u64) -> Result<(), VfsError> {
        self.generation += 1;
        let resized = match self.target(cwd, path) {
            Ok(Target::File(ino)) => self.tree.resize(ino, len, self.now()),
            Ok(Target::Sink) => Ok(()),
            Ok(Target::New { .. }) => Err(Errno::ENOENT),
            Err(e) => Err(e),
        };
        resized.map_err(at(path))
    }

    /// Copies a file's contents to `to` (created or truncated, following symlinks). The copy
    /// shares the buffer until either side changes, but counts against the quota in full.
    pub fn copy_file(&mut self, cwd: &str, from: &str, to: &str) -> Result<(), VfsError> {
        self.generation += 1;
        let data = self.read_shared(cwd, from)?;
        self.write_shared(cwd, to, data)
    }

    /// Sets the modification time (`touch`): to `mtime_ms`, or to now when `None`. A time
    /// that is not a finite number is EINVAL.
    pub fn set_mtime(
        &mut self,
        cwd: &str,
        path: &str,
        mtime_ms: Option<f64>,
    ) -> Result<(), VfsError> {
        self.generation += 1;
        if mtime_ms.is_some_and(|t| !t.is_finite()) {
            return Err(VfsError::new(Errno::EINVAL, path));
        }
        let ino = self.existing_writable(cwd, path).map_err(at(path))?;
        let mtime = mtime_ms.unwrap_or_else(|| self.now());
        self.tree.touch(ino, mtime);
        Ok(())
    }

    /// Sets the permission bits (`chmod`); bits above `0o7777` are ignored. The VFS reports
    /// modes but does not enforce them: the sandbox has a single user.
    pub fn set_mode(&mut self, cwd: &str, path: &str, mode: u32) -> Result<(), VfsError> {
        self.generation += 1;
        let ino = self.existing_writable(cwd, path).map_err(at(path))?;
        let node = self.tree.nodes.get_mut(ino).map_err(at(path))?;
        node.mode = mode & 0o7777;
        Ok(())
    }

    /// The node `path` leads to (following symlinks), if it may be changed.
    fn existing_writable(&self, cwd: &str, path: &str) -> Result<Ino, Errno> {
        let loc = self.tree.locate(cwd, path, true)?;
        let ino = loc.existing()?;
        self.tree.check_writable(&loc)?;
        Ok(ino)
    }

    /// Where writing to `path` lands, following symlinks.
    fn target(&self, cwd: &str, path: &str) -> Result<Target, Errno> {
        let loc = self.tree.locate(cwd, path, true)?;
        let Some(ino) = loc.ino else {
            let (parent, name) = self.new_entry(&loc)?;
            return Ok(Target::New { parent, name });
        };
        match self.tree.node(ino)?.data {
            Data::Device(_) => Ok(Target::Sink),
            Data::Dir(_) => Err(Errno::EISDIR),
            _ => self.tree.check_writable(&loc).map(|()| Target::File(ino)),
        }
    }

    /// The directory and name a missing `loc` would be created as, if that is allowed.
    /// A missing path ending in `/` names a directory, which a file cannot become.
    pub(super) fn new_entry(&self, loc: &Loc) -> Result<(Ino, String), Errno> {
        self.tree.check_writable(loc)?;
        if loc.must_dir {
            return Err(Errno::EISDIR);
        }
        let parent = loc.parent().ok_or(Errno::EACCES)?;
        Ok((parent, loc.name.clone()))
    }

    /// Writes `len` bytes made by `data` to `path`. The quotas are checked first, so a
    /// refused write never copies its input.
    fn put(
        &mut self,
        cwd: &str,
        path: &str,
        len: u64,
        data: impl FnOnce() -> Rc<Vec<u8>>,
    ) -> Result<(), Errno> {
        match self.target(cwd, path)? {
            Target::Sink => Ok(()),
            Target::File(ino) => {
                self.tree.fits_file(len)?;
                self.tree.fits(0, self.tree.node(ino)?.charged(), len)?;
                self.tree.set_contents(ino, data(), self.now())
            }
            Target::New { parent, name } => self.create(parent, &name, len, data),
        }
    }

    /// Creates file `name` in `parent` with `len` bytes made by `data`, quotas first.
    fn create(
        &mut self,
        parent: Ino,
        name: &str,
        len: u64,
        data: impl FnOnce() -> Rc<Vec<u8>>,
    ) -> Result<(), Errno> {
        self.tree.fits_file(len)?;
        self.tree.fits(1, 0, len)?;
        let now = self.now();
        let mut node = Node::file(data(), now);
        node.mode = 0o666 & !self.umask;
        self.tree.attach(parent, name, node, now).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{VfsLimits, WORKSPACE};
    use super::*;

    const W: &str = WORKSPACE;

    #[test]
    fn write_creates_and_truncates() {
        let mut vfs = vfs();
        put(&mut vfs, "f", "long content");
        put(&mut vfs, "f", "short");
        assert_eq!(text(&vfs, "f"), "short");
        assert_eq!(vfs.write("/tmp", "g", b"x"), Ok(()));
        assert_eq!(text(&vfs, "/tmp/g"), "x");
        assert_eq!(vfs.usage().bytes, 6);
        assert_eq!(vfs.usage().files, 2);
    }

    #[test]
    fn write_errors() {
        let mut vfs = vfs();
        let w = |vfs: &mut Vfs, path: &str| code(vfs.write(W, path, b"x"));
        assert_eq!(w(&mut vfs, "nodir/f"), Some(Errno::ENOENT));
        assert_eq!(w(&mut vfs, "/etc"), Some(Errno::EISDIR));
        assert_eq!(w(&mut vfs, "."), Some(Errno::EISDIR));
        assert_eq!(w(&mut vfs, "newdir/"), Some(Errno::EISDIR));
        assert_eq!(w(&mut vfs, "/etc/passwd"), Some(Errno::EACCES));
        assert_eq!(w(&mut vfs, "/new"), Some(Errno::EACCES));
        put(&mut vfs, "file", "");
        assert_eq!(w(&mut vfs, "file/x"), Some(Errno::ENOTDIR));
        assert_eq!(w(&mut vfs, "file/"), Some(Errno::ENOTDIR));
        let e = vfs.write(W, "/usr/bin/x", b"").err();
        let e = e.map(|e| e.node_message("open"));
        assert_eq!(
            e.as_deref(),
            Some("EACCES: permission denied, open '/usr/bin/x'")
        );
    }

    #[test]
    fn dev_null_swallows_writes() {
        let mut vfs = vfs();
        assert_eq!(vfs.write(W, "/dev/null", b"gone"), Ok(()));
        assert_eq!(vfs.append(W, "/dev/null", b"gone"), Ok(()));
        assert_eq!(vfs.truncate(W, "/dev/null", 0), Ok(()));
        assert_eq!(vfs.read(W, "/dev/null"), Ok(&b""[..]));
        assert_eq!(vfs.write(W, "/dev/zero", b"gone"), Ok(()));
        assert_eq!(vfs.usage().bytes, 0);
        assert_eq!(
            code(vfs.create_exclusive(W, "/dev/null", b"")),
            Some(Errno::EEXIST)
        );
    }

    #[test]
    fn append_creates_then_extends() {
        let mut vfs = vfs();
        assert_eq!(vfs.append(W, "log", b"a"), Ok(()));
        assert_eq!(vfs.append(W, "log", b"b"), Ok(()));
        assert_eq!(text(&vfs, "log"), "ab");
        assert_eq!(code(vfs.append(W, "/", b"x")), Some(Errno::EISDIR));
        assert_eq!(code(vfs.append(W, "/etc/x", b"x")), Some(Errno::EACCES));
    }

    #[test]
    fn appending_keeps_a_readers_snapshot() {
        let mut vfs = vfs();
        put(&mut vfs, "f", "old");
        let reader = vfs.read_shared(W, "f").unwrap_or_default();
        assert_eq!(vfs.append(W, "f", b"+new"), Ok(()));
        put(&mut vfs, "f", "replaced");
        assert_eq!(
            (reader.as_slice(), text(&vfs, "f")),
            (&b"old"[..], "replaced".into())
        );
    }

    #[test]
    fn create_exclusive_refuses_existing() {
        let mut vfs = vfs();
        assert_eq!(vfs.create_exclusive(W, "f", b"1"), Ok(()));
        assert_eq!(
            code(vfs.create_exclusive(W, "f", b"2")),
            Some(Errno::EEXIST)
        );
        assert_eq!(vfs.symlink(W, "missing", "l"), Ok(()));
        assert_eq!(code(vfs.create_exclusive(W, "l", b"")), Some(Errno::EEXIST));
        assert!(!vfs.exists(W, "missing"));
        assert_eq!(
            code(vfs.create_exclusive(W, "/etc/x", b"")),
            Some(Errno::EACCES)
        );
        assert_eq!(text(&vfs, "f"), "1");
    }

    #[test]
    fn writing_through_a_dangling_link_creates_the_target() {
        let mut vfs = vfs();
        assert_eq!(vfs.symlink(W, "target", "l"), Ok(()));
        put(&mut vfs, "l", "via link");
        assert_eq!(text(&vfs, "target"), "via link");
        assert_eq!(vfs.symlink(W, "/etc/x", "out"), Ok(()));
        assert_eq!(code(vfs.write(W, "out", b"")), Some(Errno::EACCES));
    }

    #[test]
    fn truncate_shrinks_and_zero_extends() {
        let mut vfs = vfs();
        put(&mut vfs, "f", "hello");
        assert_eq!(vfs.truncate(W, "f", 2), Ok(()));
        assert_eq!(text(&vfs, "f"), "he");
        assert_eq!(vfs.truncate(W, "f", 4), Ok(()));
        assert_eq!(vfs.read(W, "f"), Ok(&b"he\0\0"[..]));
        assert_eq!(vfs.usage().bytes, 4);
        assert_eq!(code(vfs.truncate(W, "nope", 0)), Some(Errno::ENOENT));
        assert_eq!(code(vfs.truncate(W, "/tmp", 0)), Some(Errno::EISDIR));
    }

    #[test]
    fn copy_shares_until_changed() {
        let mut vfs = vfs();
        put(&mut vfs, "a", "data");
        assert_eq!(vfs.copy_file(W, "a", "b"), Ok(()));
        assert_eq!(vfs.append(W, "b", b"!"), Ok(()));
        assert_eq!(
            (text(&vfs, "a"), text(&vfs, "b")),
            ("data".into(), "data!".into())
        );
        assert_eq!(vfs.usage().bytes, 9);
        let e = vfs.copy_file(W, "zz", "c").err();
        assert_eq!(e, Some(VfsError::new(Errno::ENOENT, "zz")));
        let e = vfs.copy_file(W, "a", "/etc/c").err();
        assert_eq!(e, Some(VfsError::new(Errno::EACCES, "/etc/c")));
        assert_eq!(code(vfs.copy_file(W, "/tmp", "c")), Some(Errno::EISDIR));
    }

    #[test]
    fn new_nodes_take_the_umask_and_old_ones_keep_their_mode() {
        let mut vfs = vfs();
        put(&mut vfs, "old", "");
        vfs.set_umask(0o027);
        put(&mut vfs, "new", "");
        put(&mut vfs, "old", "x");
        assert_eq!(vfs.mkdir_all(W, "d/e"), Ok(()));
        let mode = |vfs: &Vfs, p| vfs.stat(W, p).map(|s| s.mode);
        let modes = ["old", "new", "d", "d/e"].map(|p| mode(&vfs, p));
        assert_eq!(modes, [Ok(0o644), Ok(0o640), Ok(0o750), Ok(0o750)]);
    }

    #[test]
    fn touch_and_chmod() {
        let mut vfs = vfs();
        put(&mut vfs, "f", "");
        assert_eq!(vfs.set_mtime(W, "f", Some(5.5)), Ok(()));
        assert_eq!(vfs.stat(W, "f").map(|s| s.mtime_ms), Ok(5.5));
        assert_eq!(vfs.set_mtime(W, "f", None), Ok(()));
        assert_eq!(vfs.stat(W, "f").map(|s| s.mtime_ms), Ok(1002.0));
        assert_eq!(vfs.set_mode(W, "f", 0o100755), Ok(()));
        assert_eq!(vfs.stat(W, "f").map(|s| s.mode), Ok(0o755));
        assert_eq!(code(vfs.set_mtime(W, "nope", None)), Some(Errno::ENOENT));
        assert_eq!(
            code(vfs.set_mtime(W, "f", Some(f64::NAN))),
            Some(Errno::EINVAL)
        );
        assert_eq!(code(vfs.set_mode(W, "/etc", 0o777)), Some(Errno::EACCES));
    }

    #[test]
    fn clock_is_read_once_per_successful_mutation() {
        let mut vfs = vfs();
        put(&mut vfs, "f", "x");
        assert_eq!(code(vfs.write(W, "/etc/x", b"")), Some(Errno::EACCES));
        assert_eq!(vfs.append(W, "f", b"y"), Ok(()));
        // Creation stamps file and directory with the same reading.
        let times = (vfs.stat(W, "f"), vfs.stat("/", W));
        let times = (times.0.map(|s| s.mtime_ms), times.1.map(|s| s.mtime_ms));
        assert_eq!(times, (Ok(1002.0), Ok(1001.0)));
    }

    #[test]
    fn quotas_refuse_and_leave_old_content() {
        let limits = VfsLimits {
            max_bytes: 9,
            max_files: 3,
            max_file_size: 6,
        };
        let mut vfs = vfs_with(limits);
        put(&mut vfs, "a", "12345");
        assert_eq!(code(vfs.write(W, "a", b"1234567")), Some(Errno::EFBIG));
        assert_eq!(code(vfs.append(W, "a", b"67")), Some(Errno::EFBIG));
        assert_eq!(code(vfs.truncate(W, "a", 7)), Some(Errno::EFBIG));
        put(&mut vfs, "b", "1234");
        assert_eq!(code(vfs.write(W, "b", b"123456")), Some(Errno::ENOSPC));
        assert_eq!(code(vfs.append(W, "b", b"12")), Some(Errno::ENOSPC));
        assert_eq!(code(vfs.copy_file(W, "a", "b")), Some(Errno::ENOSPC));
        assert_eq!(
            (text(&vfs, "a"), text(&vfs, "b")),
            ("12345".into(), "1234".into())
        );
        put(&mut vfs, "c", "");
        assert_eq!(code(vfs.write(W, "d", b"")), Some(Errno::ENOSPC));
        assert_eq!(code(vfs.mkdir(W, "e")), Some(Errno::ENOSPC));
        assert_eq!(code(vfs.symlink(W, "a", "f")), Some(Errno::ENOSPC));
        assert!(!vfs.exists(W, "d") && !vfs.exists(W, "e"));
        assert_eq!(vfs.usage(), super::super::VfsUsage { bytes: 9, files: 3 });
        assert_eq!(vfs.remove_file(W, "a"), Ok(()));
        assert_eq!(vfs.usage(), super::super::VfsUsage { bytes: 4, files: 2 });
        assert_eq!(code(vfs.write(W, "a", b"123456")), Some(Errno::ENOSPC));
        put(&mut vfs, "a", "12345");
    }

    #[test]
    fn fifty_megabytes_in_chunks() {
        let limits = VfsLimits {
            max_bytes: 200 << 20,
            max_file_size: 64 << 20,
            ..VfsLimits::default()
        };
        let mut vfs = vfs_with(limits);
        let chunk: Vec<u8> = (0..=255u8).cycle().take(1 << 20).collect();
        let started = std::time::Instant::now();
        assert_eq!(vfs.write(W, "big", b""), Ok(()));
        for _ in 0..50 {
            assert_eq!(vfs.append(W, "big", &chunk), Ok(()));
        }
        let mut read = 0usize;
        loop {
            let part = vfs
                .read_at(W, "big", read as u64, 64 << 10)
                .unwrap_or_default();
            if part.is_empty() {
                break;
            }
            // 64 KiB parts never straddle two 1 MiB chunks: compare bytes, not a sum (a
            // byte-by-byte loop is what made this test slow in a debug build).
            let at = read % chunk.len();
            assert_eq!(part[..], chunk[at..at + part.len()]);
            read += part.len();
        }
        assert_eq!(read, 50 << 20);
        assert_eq!(vfs.copy_file(W, "big", "/tmp/big2"), Ok(()));
        assert_eq!(vfs.usage().bytes, 100 << 20);
        // Linear appends and reads take well under a second here even in a debug build; an
        // append that copied the file each time would copy 1.25 GB. The bound leaves room for a
        // loaded 2-core machine.
        assert!(
            started.elapsed().as_secs_f64() < 10.0,
            "{:?}",
            started.elapsed()
        );
    }
}
