//! Nodes and the arena that owns them. A node's inode number is its slot in the arena, so
//! directories refer to children by number and a rename moves one map entry.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::error::Errno;

/// A slot in the arena.
pub(super) type Ino = usize;

/// Default permission bits, as a umask of 022 gives them.
pub(super) const FILE_MODE: u32 = 0o644;
/// Default permission bits of directories.
pub(super) const DIR_MODE: u32 = 0o755;
/// Permission bits of symlinks (always rwx on Linux).
pub(super) const LINK_MODE: u32 = 0o777;
/// What `stat` reports as a directory's size (one ext4 block, like a real system).
const DIR_SIZE: u64 = 4096;

/// What kind of node a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link.
    Symlink,
    /// A character device (`/dev/null`, `/dev/zero`...), so `test -f /dev/null` is false like
    /// on Linux.
    CharDevice,
}

/// The character devices in `/dev`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Device {
    /// `/dev/null`: reads are empty, writes vanish.
    Null,
    /// `/dev/zero`: endless zero bytes; writes vanish.
    Zero,
    /// `/dev/random` and `/dev/urandom`: endless bytes from the host's entropy; writes vanish.
    Random,
}

impl Device {
    /// Linux's major and minor numbers (`ls -l` and `stat` show them).
    pub fn numbers(self) -> (u64, u64) {
        match self {
            Device::Null => (1, 3),
            Device::Zero => (1, 5),
            Device::Random => (1, 9),
        }
    }
}

/// Metadata of one node, as `stat` reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct Stat {
    /// File, directory, symlink or device.
    pub kind: FileKind,
    /// Bytes of content; a symlink's target length; 4096 for directories.
    pub size: u64,
    /// Last modification, in milliseconds since the Unix epoch.
    pub mtime_ms: f64,
    /// Permission bits only (`0o644`), without the file-type bits.
    pub mode: u32,
    /// Inode number: stable while the node exists, reused after it is removed.
    pub ino: u64,
    /// Link count: the number of names a file has (hard links), or 2 plus the number of
    /// subdirectories for a directory.
    pub nlink: u64,
    /// The device a `CharDevice` is, None for everything else.
    pub device: Option<Device>,
}

/// A node's content.
#[derive(Clone)]
pub(super) enum Data {
    /// Bytes, shared with readers and copies; a write to a shared buffer copies it first.
    File(Rc<Vec<u8>>),
    /// Entries by name, kept sorted so listings and snapshots are deterministic.
    Dir(BTreeMap<String, Ino>),
    /// The target, as given.
    Symlink(String),
    /// A device: reads come from it, writes vanish.
    Device(Device),
}

/// One file, directory or symlink: an inode. Directory entries name it by its slot; a file or
/// symlink may have several names (hard links), which share everything here.
#[derive(Clone)]
pub(super) struct Node {
    pub data: Data,
    pub mode: u32,
    pub mtime_ms: f64,
    /// How many directory entries name this node; it is freed when the last one goes. Always 1
    /// for a directory (its `stat` link count is computed from its subdirectories).
    pub links: u32,
}

impl Node {
    pub fn file(bytes: Rc<Vec<u8>>, now: f64) -> Self {
        Node::with(Data::File(bytes), FILE_MODE, now)
    }

    pub fn dir(now: f64) -> Self {
        Node::with(Data::Dir(BTreeMap::new()), DIR_MODE, now)
    }

    pub fn symlink(target: &str, now: f64) -> Self {
        Node::with(Data::Symlink(target.to_string()), LINK_MODE, now)
    }

    pub fn with(data: Data, mode: u32, mtime_ms: f64) -> Self {
        Node {
            data,
            mode,
            mtime_ms,
            links: 1,
        }
    }

    pub fn kind(&self) -> FileKind {
        match self.data {
            Data::File(_) => FileKind::File,
            Data::Dir(_) => FileKind::Dir,
            Data::Symlink(_) => FileKind::Symlink,
            Data::Device(_) => FileKind::CharDevice,
        }
    }

    pub fn size(&self) -> u64 {
        match &self.data {
            Data::Dir(_) => DIR_SIZE,
            _ => self.charged(),
        }
    }

    /// Bytes counted against the quota: file contents and symlink targets.
    pub fn charged(&self) -> u64 {
        match &self.data {
            Data::File(bytes) => bytes.len() as u64,
            Data::Symlink(target) => target.len() as u64,
            Data::Dir(_) | Data::Device(_) => 0,
        }
    }

    /// The readable bytes: a file's contents, nothing for `/dev/null`. An endless device
    /// has no whole contents (EFBIG): readers that stream open it with `Input::device`.
    pub fn bytes(&self) -> Result<&[u8], Errno> {
        match &self.data {
            Data::File(bytes) => Ok(bytes),
            Data::Device(Device::Null) => Ok(&[]),
            Data::Device(_) => Err(Errno::EFBIG),
            Data::Dir(_) => Err(Errno::EISDIR),
            Data::Symlink(_) => Err(Errno::EINVAL),
        }
    }

    pub fn entries(&self) -> Result<&BTreeMap<String, Ino>, Errno> {
        match &self.data {
            Data::Dir(entries) => Ok(entries),
            _ => Err(Errno::ENOTDIR),
        }
    }

    pub fn entries_mut(&mut self) -> Result<&mut BTreeMap<String, Ino>, Errno> {
        match &mut self.data {
            Data::Dir(entries) => Ok(entries),
            _ => Err(Errno::ENOTDIR),
        }
    }

    pub fn is_dir(&self) -> bool {
        matches!(self.data, Data::Dir(_))
    }
}

/// Owns every node; freed slots are reused.
#[derive(Clone, Default)]
pub(super) struct Arena {
    slots: Vec<Option<Node>>,
    free: Vec<Ino>,
}

impl Arena {
    pub fn alloc(&mut self, node: Node) -> Ino {
        match self.free.pop() {
            Some(ino) => {
                if let Some(slot) = self.slots.get_mut(ino) {
                    *slot = Some(node);
                }
                ino
            }
            None => {
                self.slots.push(Some(node));
                self.slots.len() - 1
            }
        }
    }

    /// Every live node.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Node> {
        self.slots.iter_mut().flatten()
    }

    pub fn release(&mut self, ino: Ino) -> Option<Node> {
        let node = self.slots.get_mut(ino)?.take()?;
        self.free.push(ino);
        Some(node)
    }

    /// The node in `ino`. Directories only hold live slots, so a miss means a broken invariant;
    /// it reads as "no such file" rather than a crash.
    pub fn get(&self, ino: Ino) -> Result<&Node, Errno> {
        self.slots
            .get(ino)
            .and_then(Option::as_ref)
            .ok_or(Errno::ENOENT)
    }

    pub fn get_mut(&mut self, ino: Ino) -> Result<&mut Node, Errno> {
        self.slots
            .get_mut(ino)
            .and_then(Option::as_mut)
            .ok_or(Errno::ENOENT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arena_reuses_freed_slots() {
        let mut arena = Arena::default();
        let a = arena.alloc(Node::dir(0.0));
        let b = arena.alloc(Node::dir(0.0));
        assert!(arena.release(a).is_some());
        assert!(arena.release(a).is_none());
        assert_eq!(arena.get(a).err(), Some(Errno::ENOENT));
        assert_eq!(arena.alloc(Node::symlink("x", 0.0)), a);
        assert_eq!(arena.get(a).map(Node::kind), Ok(FileKind::Symlink));
        assert_eq!(arena.get(b).map(Node::size), Ok(4096));
    }
}
