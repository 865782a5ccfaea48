//! Path resolution against the tree, the way the kernel does it: component by component,
//! following symlinks (at most [`MAX_SYMLINK_HOPS`]), with `..` taken physically (the parent of where a
//! link led, not of the link).

use super::error::Errno;
use super::node::{Data, Ino};
use super::path;
use super::tree::{Tree, ROOT};
use crate::limits::MAX_SYMLINK_HOPS;

/// Where a path leads: the entry (if it exists) and the directories above it.
#[derive(Debug)]
pub(super) struct Loc {
    /// Directories from the root down to the entry's parent; empty when the entry is the root.
    pub dirs: Vec<Ino>,
    /// The names of `dirs[1..]`.
    pub names: Vec<String>,
    /// The entry's name in its parent; empty for the root.
    pub name: String,
    /// The entry, when it exists.
    pub ino: Option<Ino>,
    /// The path ended in `/`: the entry must be (or become) a directory.
    pub must_dir: bool,
}

impl Loc {
    /// The directory holding the entry; `None` for the root.
    pub fn parent(&self) -> Option<Ino> {
        self.dirs.last().copied()
    }

    /// The canonical absolute path of the entry.
    pub fn path(&self) -> String {
        let mut names = self.names.clone();
        names.push(self.name.clone());
        format!("/{}", names.join("/"))
    }

    /// The entry, or ENOENT.
    pub fn existing(&self) -> Result<Ino, Errno> {
        self.ino.ok_or(Errno::ENOENT)
    }
}

/// The state of one resolution.
struct Walk<'a> {
    /// Components still to resolve; the next one is last.
    todo: Vec<&'a str>,
    dirs: Vec<Ino>,
    names: Vec<&'a str>,
    hops: u32,
    must_dir: bool,
}

impl<'a> Walk<'a> {
    fn new(cwd: &'a str, path: &'a str) -> Self {
        let mut todo: Vec<&str> = path::joined(cwd, path).collect();
        todo.reverse();
        Walk {
            todo,
            dirs: vec![ROOT],
            names: Vec::new(),
            hops: 0,
            must_dir: path::wants_dir(path),
        }
    }

    fn dir(&self) -> Ino {
        self.dirs.last().copied().unwrap_or(ROOT)
    }

    fn down(&mut self, ino: Ino, name: &'a str) {
        self.dirs.push(ino);
        self.names.push(name);
    }

    /// `..`: the parent, and the root is its own parent.
    fn up(&mut self) {
        if self.dirs.len() > 1 {
            self.dirs.pop();
            self.names.pop();
        }
    }

    /// Continues with the link's target in place of the link.
    fn follow(&mut self, target: &'a str) -> Result<(), Errno> {
        self.hops += 1;
        if self.hops > MAX_SYMLINK_HOPS {
            return Err(Errno::ELOOP);
        }
        if target.starts_with('/') {
            self.dirs.truncate(1);
            self.names.clear();
        }
        self.must_dir |= self.todo.is_empty() && path::wants_dir(target);
        self.todo.extend(path::names(target).rev());
        Ok(())
    }

    /// The result once every component is consumed; `last` is the final name looked up, or
    /// `None` when the walk ended on a directory it entered (`.`, `..`, `/`).
    fn finish(mut self, last: Option<(&str, Option<Ino>)>) -> Loc {
        let (name, ino) = match last {
            Some((name, ino)) => (name.to_string(), ino),
            None => {
                let ino = self.dirs.pop().unwrap_or(ROOT);
                (self.names.pop().unwrap_or("").to_string(), Some(ino))
            }
        };
        Loc {
            dirs: self.dirs,
            names: self.names.into_iter().map(str::to_string).collect(),
            name,
            ino,
            must_dir: self.must_dir,
        }
    }
}

impl Tree {
    /// Resolves `path` from `cwd`. Symlinks in the middle are always followed; the last one
    /// only when `follow` (or when the path ends in `/`). A missing last component is not an
    /// error: the `Loc` then says where it would be created.
    pub fn locate(&self, cwd: &str, path: &str, follow: bool) -> Result<Loc, Errno> {
        path::check(path)?;
        let mut walk = Walk::new(cwd, path);
        let mut last = None;
        while let Some(name) = walk.todo.pop() {
            last = None;
            if name == ".." {
                walk.up();
                continue;
            }
            let is_last = walk.todo.is_empty();
            let follow_link = follow || walk.must_dir || !is_last;
            match self.entries(walk.dir())?.get(name).copied() {
                None if is_last => last = Some((name, None)),
                None => return Err(Errno::ENOENT),
                Some(ino) => match &self.node(ino)?.data {
                    Data::Symlink(target) if follow_link => walk.follow(target)?,
                    Data::Dir(_) if !is_last => walk.down(ino, name),
                    _ if is_last => last = Some((name, Some(ino))),
                    _ => return Err(Errno::ENOTDIR),
                },
            }
        }
        let loc = walk.finish(last);
        self.check_must_dir(&loc)?;
        Ok(loc)
    }

    /// A path ending in `/` cannot name an existing non-directory.
    fn check_must_dir(&self, loc: &Loc) -> Result<(), Errno> {
        match loc.ino {
            Some(ino) if loc.must_dir && !self.node(ino)?.is_dir() => Err(Errno::ENOTDIR),
            _ => Ok(()),
        }
    }

    /// Whether the entry at `loc` may be created, changed or removed: it lies below
    /// `/workspace` or `/tmp` (those two themselves belong to the read-only root).
    pub fn writable(&self, loc: &Loc) -> bool {
        loc.dirs.get(1).is_some_and(|d| self.writable.contains(d))
    }

    /// Fails with EACCES unless `loc` is writable.
    pub fn check_writable(&self, loc: &Loc) -> Result<(), Errno> {
        match self.writable(loc) {
            true => Ok(()),
            false => Err(Errno::EACCES),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vfs::tree::VfsLimits;

    #[test]
    fn locates_skeleton_entries() {
        let tree = Tree::skeleton(VfsLimits::default(), 0.0);
        let loc = tree.locate("/workspace", "../usr/./bin/", true);
        let loc = loc.map(|l| (l.path(), l.ino.is_some(), tree.writable(&l)));
        assert_eq!(loc, Ok(("/usr/bin".to_string(), true, false)));
        let loc = tree.locate("/", "workspace/new", false);
        let loc = loc.map(|l| (l.path(), l.ino, tree.writable(&l)));
        assert_eq!(loc, Ok(("/workspace/new".to_string(), None, true)));
        let root = tree.locate("/tmp", "..", false).map(|l| (l.path(), l.dirs));
        assert_eq!(root, Ok(("/".to_string(), vec![])));
        assert_eq!(tree.locate("/", "nope/x", false).err(), Some(Errno::ENOENT));
        assert_eq!(
            tree.locate("/", "dev/null/", false).err(),
            Some(Errno::ENOTDIR)
        );
    }
}
