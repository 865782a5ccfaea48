//! The tree: the arena plus quota accounting. Every change to the writable areas goes through
//! the primitives here, which check the quotas before touching anything, so a failed operation
//! leaves the tree as it was.

use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::error::Errno;
use super::node::{Arena, Data, Device, Ino, Node, DIR_MODE};
use super::{TMP, WRITABLE};
use crate::limits::MAX_LINKS;

/// The root directory's slot: the first node allocated.
pub(super) const ROOT: Ino = 0;

/// Quotas over the writable areas ([`WRITABLE`](super::WRITABLE)), all of them together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct VfsLimits {
    /// Total bytes of file contents (and symlink targets); beyond it writes fail with ENOSPC.
    pub max_bytes: u64,
    /// Number of names of files, directories and symlinks (each hard link counts); beyond it
    /// creation fails with ENOSPC.
    pub max_files: u64,
    /// Size of one file; beyond it writes fail with EFBIG.
    pub max_file_size: u64,
}

impl Default for VfsLimits {
    fn default() -> Self {
        VfsLimits {
            max_bytes: 256 << 20,
            max_files: 100_000,
            max_file_size: 64 << 20,
        }
    }
}

/// What the writable areas use, in the units of [`VfsLimits`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VfsUsage {
    /// Bytes of file contents and symlink targets.
    pub bytes: u64,
    /// Names of files, directories and symlinks, a hard link being one more (not counting the
    /// writable areas themselves).
    pub files: u64,
}

/// Nodes, quotas and what is used of them.
#[derive(Clone)]
pub(super) struct Tree {
    pub nodes: Arena,
    pub limits: VfsLimits,
    pub usage: VfsUsage,
    /// The [`WRITABLE`] areas, in order: an entry is writable when one is among its ancestors.
    pub writable: [Ino; WRITABLE.len()],
    /// When the read-only skeleton was made: its mtimes, kept across restores.
    pub boot_ms: f64,
    /// Read-only files the host added to the skeleton (path, contents), kept across restores.
    pub system: Vec<(String, Rc<Vec<u8>>)>,
}

impl Tree {
    /// The fixed layout: a read-only skeleton around the empty writable directories.
    pub fn skeleton(limits: VfsLimits, now: f64) -> Tree {
        let mut tree = Tree {
            nodes: Arena::default(),
            limits,
            usage: VfsUsage::default(),
            writable: [ROOT; WRITABLE.len()],
            boot_ms: now,
            system: Vec::new(),
        };
        tree.nodes.alloc(Node::dir(now));
        for name in ["bin", "etc", "home"] {
            tree.fixture(ROOT, name, Node::dir(now));
        }
        let usr = tree.fixture(ROOT, "usr", Node::dir(now));
        tree.fixture(usr, "bin", Node::dir(now));
        let dev = tree.fixture(ROOT, "dev", Node::dir(now));
        for (name, device) in [
            ("null", Device::Null),
            ("random", Device::Random),
            ("urandom", Device::Random),
            ("zero", Device::Zero),
        ] {
            tree.fixture(dev, name, Node::with(Data::Device(device), 0o666, now));
        }
        for (slot, path) in WRITABLE.iter().enumerate() {
            let name = path.trim_start_matches('/');
            // /tmp is sticky and world-writable, like every /tmp.
            let mode = if *path == TMP { 0o1777 } else { DIR_MODE };
            let dir = Node::with(Data::Dir(Default::default()), mode, now);
            tree.writable[slot] = tree.fixture(ROOT, name, dir);
        }
        tree
    }

    /// Stamps every node, and the boot time, with `now`: a sandbox made from a
    /// pre-initialized image starts at its own time, not the image's.
    pub fn restamp(&mut self, now: f64) {
        self.boot_ms = now;
        for node in self.nodes.iter_mut() {
            node.mtime_ms = now;
        }
    }

    /// Whether `name`, an entry of the root, is one of the writable areas.
    fn is_writable_root(name: &str) -> bool {
        WRITABLE
            .iter()
            .any(|path| path.strip_prefix('/') == Some(name))
    }

    /// Adds a read-only file to the skeleton at absolute `path` (outside the writable areas),
    /// with its directories; outside the quotas, and kept across restores.
    pub fn add_system_file(&mut self, path: &str, bytes: Rc<Vec<u8>>) -> Result<(), Errno> {
        let names: Vec<&str> = path.split('/').filter(|n| !n.is_empty()).collect();
        let Some((file, dirs)) = names.split_last() else {
            return Err(Errno::EINVAL);
        };
        if Tree::is_writable_root(names[0]) || names.iter().any(|n| matches!(*n, "." | "..")) {
            return Err(Errno::EINVAL);
        }
        let mut parent = ROOT;
        for name in dirs {
            self.entries(parent)?;
            parent = self.fixture(parent, name, Node::dir(self.boot_ms));
        }
        self.entries(parent)?;
        let node = Node::with(Data::File(Rc::clone(&bytes)), 0o444, self.boot_ms);
        self.fixture(parent, file, node);
        self.system.push((path.to_string(), bytes));
        Ok(())
    }

    /// Adds a node outside the quotas (the skeleton); an existing entry is kept.
    fn fixture(&mut self, parent: Ino, name: &str, node: Node) -> Ino {
        if let Some(&ino) = self.entries(parent).ok().and_then(|e| e.get(name)) {
            return ino;
        }
        let ino = self.nodes.alloc(node);
        if let Ok(entries) = self.nodes.get_mut(parent).and_then(Node::entries_mut) {
            entries.insert(name.to_string(), ino);
        }
        ino
    }

    pub fn node(&self, ino: Ino) -> Result<&Node, Errno> {
        self.nodes.get(ino)
    }

    pub fn entries(&self, ino: Ino) -> Result<&std::collections::BTreeMap<String, Ino>, Errno> {
        self.nodes.get(ino)?.entries()
    }

    /// Fails unless `new_files` more nodes and a change from `freed` to `added` bytes fit.
    pub fn fits(&self, new_files: u64, freed: u64, added: u64) -> Result<(), Errno> {
        let files = self.usage.files.saturating_add(new_files);
        let bytes = self.usage.bytes.saturating_sub(freed).saturating_add(added);
        if files > self.limits.max_files || bytes > self.limits.max_bytes {
            return Err(Errno::ENOSPC);
        }
        Ok(())
    }

    /// Fails unless one file of `len` bytes is allowed.
    pub fn fits_file(&self, len: u64) -> Result<(), Errno> {
        match len > self.limits.max_file_size {
            true => Err(Errno::EFBIG),
            false => Ok(()),
        }
    }

    /// Adds `node` as `name` in directory `parent`, within the quotas.
    pub fn attach(&mut self, parent: Ino, name: &str, node: Node, now: f64) -> Result<Ino, Errno> {
        let bytes = node.charged();
        if matches!(node.data, Data::File(_)) {
            self.fits_file(bytes)?;
        }
        self.fits(1, 0, bytes)?;
        if self.entries(parent)?.contains_key(name) {
            return Err(Errno::EEXIST);
        }
        let ino = self.nodes.alloc(node);
        self.nodes
            .get_mut(parent)?
            .entries_mut()?
            .insert(name.to_string(), ino);
        self.usage.files += 1;
        self.usage.bytes += bytes;
        self.touch(parent, now);
        Ok(ino)
    }

    /// Adds `name` in directory `parent` as one more name of the existing file or symlink `ino`
    /// (a hard link): one more entry of the file quota, no bytes. EPERM for a directory,
    /// EMLINK past [`MAX_LINKS`].
    pub fn link(&mut self, parent: Ino, name: &str, ino: Ino, now: f64) -> Result<(), Errno> {
        self.check_link(ino)?;
        self.fits(1, 0, 0)?;
        if self.entries(parent)?.contains_key(name) {
            return Err(Errno::EEXIST);
        }
        self.nodes
            .get_mut(parent)?
            .entries_mut()?
            .insert(name.to_string(), ino);
        self.nodes.get_mut(ino)?.links += 1;
        self.usage.files += 1;
        self.touch(parent, now);
        Ok(())
    }

    /// Fails unless node `ino` may have one more name: EPERM for a directory, EMLINK when it
    /// has [`MAX_LINKS`] already.
    pub fn check_link(&self, ino: Ino) -> Result<(), Errno> {
        let node = self.node(ino)?;
        if node.is_dir() {
            return Err(Errno::EPERM);
        }
        match node.links >= MAX_LINKS {
            true => Err(Errno::EMLINK),
            false => Ok(()),
        }
    }

    /// Removes entry `name` from `parent` and returns it; the node itself stays allocated.
    pub fn detach(&mut self, parent: Ino, name: &str, now: f64) -> Result<Ino, Errno> {
        let entries = self.nodes.get_mut(parent)?.entries_mut()?;
        let ino = entries.remove(name).ok_or(Errno::ENOENT)?;
        self.touch(parent, now);
        Ok(ino)
    }

    /// Drops one name of a detached node, and of everything below it: a node whose last name
    /// goes is freed. Iterative: depth is up to the guest.
    pub fn free(&mut self, ino: Ino) {
        let mut stack = vec![ino];
        while let Some(ino) = stack.pop() {
            let Ok(node) = self.nodes.get_mut(ino) else {
                continue;
            };
            self.usage.files = self.usage.files.saturating_sub(1);
            if node.links > 1 {
                node.links -= 1;
                continue;
            }
            let Some(node) = self.nodes.release(ino) else {
                continue;
            };
            self.usage.bytes = self.usage.bytes.saturating_sub(node.charged());
            if let Data::Dir(entries) = node.data {
                stack.extend(entries.into_values());
            }
        }
    }

    /// Sets a node's mtime (a missing node is ignored: there is nothing to stamp).
    pub fn touch(&mut self, ino: Ino, now: f64) {
        if let Ok(node) = self.nodes.get_mut(ino) {
            node.mtime_ms = now;
        }
    }

    /// Replaces a file's contents, within the quotas.
    pub fn set_contents(&mut self, ino: Ino, bytes: Rc<Vec<u8>>, now: f64) -> Result<(), Errno> {
        let len = bytes.len() as u64;
        self.fits_file(len)?;
        let old = self.contents(ino)?.len() as u64;
        self.fits(0, old, len)?;
        *self.contents_mut(ino)? = bytes;
        self.recharge(old, len);
        self.touch(ino, now);
        Ok(())
    }

    /// Appends to a file, within the quotas. A buffer shared with a reader is copied first.
    pub fn append(&mut self, ino: Ino, data: &[u8], now: f64) -> Result<(), Errno> {
        let old = self.contents(ino)?.len() as u64;
        self.fits_file(old.saturating_add(data.len() as u64))?;
        self.fits(0, 0, data.len() as u64)?;
        Rc::make_mut(self.contents_mut(ino)?).extend_from_slice(data);
        self.usage.bytes += data.len() as u64;
        self.touch(ino, now);
        Ok(())
    }

    /// Cuts a file to `len` bytes or extends it with zeros, within the quotas.
    pub fn resize(&mut self, ino: Ino, len: u64, now: f64) -> Result<(), Errno> {
        self.fits_file(len)?;
        let old = self.contents(ino)?.len() as u64;
        self.fits(0, old, len)?;
        let size = usize::try_from(len).map_err(|_| Errno::EFBIG)?;
        resize_shared(self.contents_mut(ino)?, size);
        self.recharge(old, len);
        self.touch(ino, now);
        Ok(())
    }

    /// Accounts for a file going from `old` to `new` bytes.
    fn recharge(&mut self, old: u64, new: u64) {
        self.usage.bytes = self.usage.bytes.saturating_sub(old).saturating_add(new);
    }

    fn contents(&self, ino: Ino) -> Result<&Rc<Vec<u8>>, Errno> {
        match &self.nodes.get(ino)?.data {
            Data::File(bytes) => Ok(bytes),
            _ => Err(Errno::EISDIR),
        }
    }

    fn contents_mut(&mut self, ino: Ino) -> Result<&mut Rc<Vec<u8>>, Errno> {
        match &mut self.nodes.get_mut(ino)?.data {
            Data::File(bytes) => Ok(bytes),
            _ => Err(Errno::EISDIR),
        }
    }
}

/// Resizes a shared buffer, copying only the part that survives when a reader shares it.
fn resize_shared(bytes: &mut Rc<Vec<u8>>, len: usize) {
    if len <= bytes.len() && Rc::strong_count(bytes) > 1 {
        *bytes = Rc::new(bytes.get(..len).unwrap_or_default().to_vec());
    } else {
        Rc::make_mut(bytes).resize(len, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skeleton_has_the_expected_layout() {
        let tree = Tree::skeleton(VfsLimits::default(), 5.0);
        let names: Vec<&str> = tree
            .entries(ROOT)
            .map(|e| e.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            names,
            [
                "bin",
                "cache",
                "dev",
                "etc",
                "home",
                "state",
                "tmp",
                "usr",
                "workspace"
            ]
        );
        assert_eq!(tree.usage, VfsUsage::default());
    }

    #[test]
    fn system_files_are_read_only_and_outside_the_quotas() {
        let mut tree = Tree::skeleton(VfsLimits::default(), 5.0);
        let text = Rc::new(b"declare function f(): void;".to_vec());
        assert_eq!(tree.add_system_file("/tools/index.d.ts", text), Ok(()));
        let root: Vec<&str> = tree
            .entries(ROOT)
            .map(|e| e.keys().map(String::as_str).collect())
            .unwrap_or_default();
        assert_eq!(
            root,
            [
                "bin",
                "cache",
                "dev",
                "etc",
                "home",
                "state",
                "tmp",
                "tools",
                "usr",
                "workspace"
            ]
        );
        assert_eq!(tree.usage, VfsUsage::default());
        assert_eq!(tree.system.len(), 1);
        let bad = [
            "/",
            "/workspace/x",
            "/tmp/x",
            "/state/x",
            "/cache/a/b",
            "/a/../b",
            "/dev/null/x",
        ];
        for bad in bad {
            let refused = tree.add_system_file(bad, Rc::new(Vec::new())).is_err();
            assert!(refused, "{bad}");
        }
    }

    #[test]
    fn shrinking_a_shared_buffer_leaves_the_reader_alone() {
        let reader = Rc::new(b"hello".to_vec());
        let mut file = Rc::clone(&reader);
        resize_shared(&mut file, 2);
        assert_eq!(
            (reader.as_slice(), file.as_slice()),
            (&b"hello"[..], &b"he"[..])
        );
        resize_shared(&mut file, 4);
        assert_eq!(file.as_slice(), b"he\0\0");
    }
}
