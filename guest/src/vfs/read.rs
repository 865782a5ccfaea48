//! Queries: contents, metadata, listings, links. None of them reads the clock.

use std::rc::Rc;

use super::error::{at, Errno, VfsError};
use super::node::{Data, Device, FileKind, Ino, Node, Stat};
use super::tree::Tree;
use super::Vfs;

impl Vfs {
    /// A file's contents, borrowed (no copy). `/dev/null` reads as empty; a directory is EISDIR.
    pub fn read(&self, cwd: &str, path: &str) -> Result<&[u8], VfsError> {
        self.followed(cwd, path)
            .and_then(Node::bytes)
            .map_err(at(path))
    }

    /// A file's contents as a shared buffer: a cheap handle that stays valid, unchanged, across
    /// later writes, so a pipeline can stream it in chunks without holding a borrow of the VFS.
    pub fn read_shared(&self, cwd: &str, path: &str) -> Result<Rc<Vec<u8>>, VfsError> {
        let node = self.followed(cwd, path).map_err(at(path))?;
        match &node.data {
            Data::File(bytes) => Ok(Rc::clone(bytes)),
            _ => node.bytes().map(|_| Rc::default()).map_err(at(path)),
        }
    }

    /// Up to `len` bytes of a file from `offset` (fewer at the end, none past it).
    pub fn read_at(
        &self,
        cwd: &str,
        path: &str,
        offset: u64,
        len: usize,
    ) -> Result<&[u8], VfsError> {
        let bytes = self.read(cwd, path)?;
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(bytes.len());
        let end = start.saturating_add(len).min(bytes.len());
        Ok(bytes.get(start..end).unwrap_or_default())
    }

    /// Metadata, following symlinks.
    pub fn stat(&self, cwd: &str, path: &str) -> Result<Stat, VfsError> {
        self.stat_with(cwd, path, true)
    }

    /// Metadata of the path itself: a symlink is reported, not followed.
    pub fn lstat(&self, cwd: &str, path: &str) -> Result<Stat, VfsError> {
        self.stat_with(cwd, path, false)
    }

    fn stat_with(&self, cwd: &str, path: &str, follow: bool) -> Result<Stat, VfsError> {
        let stat = |tree: &Tree| tree.stat(tree.locate(cwd, path, follow)?.existing()?);
        stat(&self.tree).map_err(at(path))
    }

    /// Whether `path` leads to something (following symlinks: a dangling link does not exist).
    pub fn exists(&self, cwd: &str, path: &str) -> bool {
        self.followed(cwd, path).is_ok()
    }

    /// Whether `path` leads to `/dev/null`, so a writer can skip producing the bytes.
    pub fn is_dev_null(&self, cwd: &str, path: &str) -> bool {
        self.device(cwd, path) == Some(Device::Null)
    }

    /// The device `path` leads to, if it is one.
    pub fn device(&self, cwd: &str, path: &str) -> Option<Device> {
        match self.followed(cwd, path).ok()?.data {
            Data::Device(device) => Some(device),
            _ => None,
        }
    }

    /// A directory's entries, sorted by name (bytewise), with their own kinds (a symlink is a
    /// `Symlink`, whatever it points to). `.` and `..` are not listed.
    pub fn read_dir(&self, cwd: &str, path: &str) -> Result<Vec<(String, FileKind)>, VfsError> {
        let entries = self.followed(cwd, path).and_then(Node::entries);
        let entries = entries.map_err(at(path))?;
        let kind = |ino: Ino| self.tree.node(ino).map_or(FileKind::File, Node::kind);
        Ok(entries
            .iter()
            .map(|(name, &ino)| (name.clone(), kind(ino)))
            .collect())
    }

    /// A symlink's target, as it was given; EINVAL when `path` is not a symlink.
    pub fn read_link(&self, cwd: &str, path: &str) -> Result<String, VfsError> {
        let loc = self.tree.locate(cwd, path, false).map_err(at(path))?;
        let node = loc.existing().and_then(|ino| self.tree.node(ino));
        match &node.map_err(at(path))?.data {
            Data::Symlink(target) => Ok(target.clone()),
            _ => Err(VfsError::new(Errno::EINVAL, path)),
        }
    }

    /// The absolute path with every symlink, `.` and `..` resolved (`realpath`); the path must
    /// exist.
    pub fn canonicalize(&self, cwd: &str, path: &str) -> Result<String, VfsError> {
        let loc = self.tree.locate(cwd, path, true).map_err(at(path))?;
        loc.existing().map_err(at(path))?;
        Ok(loc.path())
    }

    /// The node `path` leads to, following symlinks.
    fn followed(&self, cwd: &str, path: &str) -> Result<&Node, Errno> {
        let ino = self.tree.locate(cwd, path, true)?.existing()?;
        self.tree.node(ino)
    }
}

impl Tree {
    /// The metadata of node `ino`.
    pub fn stat(&self, ino: Ino) -> Result<Stat, Errno> {
        let node = self.node(ino)?;
        Ok(Stat {
            kind: node.kind(),
            size: node.size(),
            mtime_ms: node.mtime_ms,
            mode: node.mode,
            ino: ino as u64 + 1,
            nlink: self.nlink(node),
            device: match node.data {
                Data::Device(device) => Some(device),
                _ => None,
            },
        })
    }

    /// A file's names; for a directory, its entry in the parent, its `.`, and each child's `..`.
    fn nlink(&self, node: &Node) -> u64 {
        let Ok(entries) = node.entries() else {
            return u64::from(node.links);
        };
        let is_dir = |ino: &Ino| self.node(*ino).is_ok_and(Node::is_dir);
        2 + entries.values().filter(|ino| is_dir(ino)).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{FileKind, WORKSPACE};
    use super::*;

    const W: &str = WORKSPACE;

    #[test]
    fn reads_whole_and_in_chunks() {
        let mut vfs = vfs();
        put(&mut vfs, "f", "hello world");
        assert_eq!(vfs.read(W, "f"), Ok(&b"hello world"[..]));
        assert_eq!(vfs.read_at(W, "f", 6, 3), Ok(&b"wor"[..]));
        assert_eq!(vfs.read_at(W, "f", 9, 100), Ok(&b"ld"[..]));
        assert_eq!(vfs.read_at(W, "f", u64::MAX, 5), Ok(&b""[..]));
        let shared = vfs.read_shared(W, "/workspace/f").map(|b| b.len());
        assert_eq!(shared, Ok(11));
    }

    #[test]
    fn read_errors() {
        let vfs = vfs();
        assert_eq!(code(vfs.read(W, "missing")), Some(Errno::ENOENT));
        assert_eq!(code(vfs.read(W, "/etc")), Some(Errno::EISDIR));
        assert_eq!(code(vfs.read_shared(W, "/etc")), Some(Errno::EISDIR));
        assert_eq!(code(vfs.read(W, "")), Some(Errno::ENOENT));
        assert_eq!(code(vfs.read(W, "a\0")), Some(Errno::EINVAL));
        let e = vfs.read(W, "nope/x").err().map(|e| e.posix_message("cat"));
        assert_eq!(e.as_deref(), Some("cat: nope/x: No such file or directory"));
    }

    #[test]
    fn dev_null_reads_empty() {
        let vfs = vfs();
        assert_eq!(vfs.read(W, "/dev/null"), Ok(&b""[..]));
        assert_eq!(vfs.read_shared(W, "/dev/null").map(|b| b.len()), Ok(0));
        assert!(vfs.is_dev_null(W, "../dev/null") && !vfs.is_dev_null(W, "/dev"));
        let stat = vfs.stat(W, "/dev/null").map(|s| (s.kind, s.mode, s.size));
        assert_eq!(stat, Ok((FileKind::CharDevice, 0o666, 0)));
    }

    #[test]
    fn endless_devices_have_no_whole_contents() {
        let vfs = vfs();
        assert_eq!(vfs.device(W, "/dev/zero"), Some(Device::Zero));
        assert_eq!(vfs.device(W, "/dev/urandom"), Some(Device::Random));
        assert_eq!(vfs.device(W, "/dev"), None);
        assert_eq!(code(vfs.read(W, "/dev/zero")), Some(Errno::EFBIG));
        assert_eq!(code(vfs.read_shared(W, "/dev/random")), Some(Errno::EFBIG));
        let numbers = vfs
            .stat(W, "/dev/zero")
            .map(|s| s.device.map(Device::numbers));
        assert_eq!(numbers, Ok(Some((1, 5))));
    }

    #[test]
    fn stat_reports_kind_size_mode_links() {
        let mut vfs = vfs();
        put(&mut vfs, "f", "abc");
        let file = vfs.stat(W, "f");
        let file = file.map(|s| (s.kind, s.size, s.mode, s.nlink, s.mtime_ms));
        assert_eq!(file, Ok((FileKind::File, 3, 0o644, 1, 1001.0)));
        let ok = vfs.mkdir(W, "d").and(vfs.mkdir(W, "d/e"));
        assert_eq!(ok, Ok(()));
        let dir = vfs.stat(W, "d").map(|s| (s.kind, s.size, s.mode, s.nlink));
        assert_eq!(dir, Ok((FileKind::Dir, 4096, 0o755, 3)));
        assert_eq!(vfs.symlink(W, "f", "l"), Ok(()));
        let link = vfs.lstat(W, "l").map(|s| (s.kind, s.size, s.mode));
        assert_eq!(link, Ok((FileKind::Symlink, 1, 0o777)));
        assert_eq!(
            vfs.stat(W, "l").map(|s| s.ino),
            vfs.stat(W, "f").map(|s| s.ino)
        );
        assert_eq!(vfs.stat(W, "/usr/bin").map(|s| s.mode), Ok(0o755));
        assert_eq!(code(vfs.stat(W, "nope")), Some(Errno::ENOENT));
    }

    #[test]
    fn read_dir_sorts_and_reports_own_kinds() {
        let mut vfs = vfs();
        put(&mut vfs, "b", "");
        put(&mut vfs, "a", "");
        put(&mut vfs, "B", "");
        assert_eq!(vfs.mkdir(W, "c"), Ok(()));
        assert_eq!(vfs.symlink(W, "c", "d"), Ok(()));
        assert_eq!(ls(&vfs, "."), ["B", "a", "b", "c/", "d@"]);
        assert_eq!(ls(&vfs, "d/"), Vec::<String>::new());
        assert_eq!(code(vfs.read_dir(W, "a")), Some(Errno::ENOTDIR));
        assert_eq!(code(vfs.read_dir(W, "zz")), Some(Errno::ENOENT));
    }

    #[test]
    fn links_and_realpath() {
        let mut vfs = vfs();
        assert_eq!(vfs.mkdir_all(W, "x/y"), Ok(()));
        assert_eq!(vfs.symlink(W, "x/y", "l"), Ok(()));
        assert_eq!(vfs.symlink(W, "/nowhere", "dangling"), Ok(()));
        assert_eq!(vfs.read_link(W, "l").as_deref(), Ok("x/y"));
        assert_eq!(code(vfs.read_link(W, "x")), Some(Errno::EINVAL));
        assert_eq!(code(vfs.read_link(W, "zz")), Some(Errno::ENOENT));
        // `..` after a link is physical: the parent of where the link leads.
        assert_eq!(vfs.canonicalize(W, "l/..").as_deref(), Ok("/workspace/x"));
        assert_eq!(resolve_logical("l/.."), "/workspace");
        assert_eq!(
            vfs.canonicalize(W, "./l//").as_deref(),
            Ok("/workspace/x/y")
        );
        assert_eq!(vfs.canonicalize("/", "../../..").as_deref(), Ok("/"));
        assert_eq!(code(vfs.canonicalize(W, "dangling")), Some(Errno::ENOENT));
        assert!(vfs.exists(W, "l") && !vfs.exists(W, "dangling"));
        assert!(vfs.lstat(W, "dangling").is_ok());
    }

    fn resolve_logical(path: &str) -> String {
        super::super::resolve(W, path)
    }
}
