//! The sandbox's filesystem, in guest memory: directories, files and symlinks.
//!
//! The [`WRITABLE`] areas, `/workspace` (the starting directory), `/tmp`, and the agent layout's
//! `/state` and `/cache`, are writable and count against the quotas in [`VfsLimits`]; everything else is a read-only skeleton (`/bin`, `/usr/bin`, `/etc`, `/dev`
//! with `null`, `zero`, `random` and `urandom`, `/home`) where any mutation fails with EACCES.
//! Every operation takes the caller's working directory and a path, resolves symlinks like the
//! kernel, and fails with a [`VfsError`] that prints the way a POSIX tool or Node.js would.
//!
//! Files keep their bytes in an `Rc<Vec<u8>>`: reading hands out the buffer (or a slice of it)
//! without copying, copying a file shares it, and writing to a shared buffer copies it first, so
//! a reader streaming a large file across scheduler yields never sees it change underneath.
//!
//! Hard links are real: a file (or symlink) may have several names in the writable areas, all
//! naming one node, so they share contents, mode, mtime and inode number; the node lives until
//! its last name is removed. Its data counts once against the byte quota; each name takes one
//! entry of the file-count quota (names are what cost memory). Directories cannot be linked
//! (EPERM), and neither can the read-only skeleton's files (EXDEV: another filesystem).
//!
//! Time comes from the clock given to [`Vfs::new`] (the host's, so a replay is exact). A
//! mutation reads it at most once (a refused one usually not at all); queries never do.
//!
//! Inside, in dependency order: `error`, `path` (lexical) → `node` (the arena) → `tree` (quotas)
//! → `walk` (resolution) → the operations in `read`, `write`, `dirs` → `snapshot`.

mod dirs;
mod error;
mod node;
mod path;
mod read;
mod snapshot;
mod tree;
mod walk;
mod write;

pub use error::{Errno, VfsError};
pub use node::{Device, FileKind, Stat};
pub use path::{resolve, NAME_MAX, PATH_MAX};
pub use snapshot::{Piece, Pieces};
pub use tree::{VfsLimits, VfsUsage};

use std::rc::Rc;

use tree::Tree;

/// The starting directory, writable.
pub const WORKSPACE: &str = "/workspace";
/// Scratch space, writable.
pub const TMP: &str = "/tmp";
/// The writable areas, in the order snapshots record them: the starting directory, scratch
/// space, and the agent layout's `/state` (kept between turns) and `/cache` (fetched data).
pub const WRITABLE: [&str; 4] = [WORKSPACE, TMP, "/state", "/cache"];

/// Milliseconds since the Unix epoch, as the VFS stamps modification times.
pub type Clock = Box<dyn Fn() -> f64>;

/// The filesystem of one sandbox.
pub struct Vfs {
    tree: Tree,
    clock: Clock,
    /// Bumped by every call that may change the tree, so the host snapshots only after change.
    generation: u64,
    /// The file creation mask of the shell running now: new files and directories get
    /// 0666 and 0777 less these bits.
    umask: u32,
}

impl Vfs {
    /// An empty filesystem: the read-only skeleton, and the empty [`WRITABLE`] areas.
    pub fn new(limits: VfsLimits, clock: Clock) -> Self {
        let now = clock();
        Vfs {
            tree: Tree::skeleton(limits, now),
            clock,
            generation: 0,
            umask: 0o022,
        }
    }

    /// The file creation mask.
    pub fn umask(&self) -> u32 {
        self.umask
    }

    /// Sets the file creation mask (the shell's `umask`, before a command runs).
    pub fn set_umask(&mut self, mask: u32) {
        self.umask = mask & 0o777;
    }

    /// Adds a read-only file at absolute `path` outside the [`WRITABLE`] areas (the host's
    /// `/tools/index.d.ts`): not counted against the quotas, not in snapshots, and kept
    /// across restores. Fails with EINVAL for a path inside the writable areas.
    pub fn add_system_file(&mut self, path: &str, bytes: Vec<u8>) -> Result<(), VfsError> {
        self.tree
            .add_system_file(path, Rc::new(bytes))
            .map_err(|code| VfsError::new(code, path))
    }

    /// Stamps every node with `now_ms` (see [`Tree::restamp`]).
    pub fn restamp(&mut self, now_ms: f64) {
        self.tree.restamp(now_ms);
    }

    /// A number that changes whenever the filesystem may have changed.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The quotas in force.
    pub fn limits(&self) -> VfsLimits {
        self.tree.limits
    }

    /// What the writable areas use of the quotas.
    pub fn usage(&self) -> VfsUsage {
        self.tree.usage
    }

    /// Reads the clock: at most once per mutation.
    fn now(&self) -> f64 {
        (self.clock)()
    }
}

/// The system clock. In the guest, `SystemTime` is WASI's `clock_time_get`, which the host
/// answers (and records), so replays see the same times.
pub fn wall_clock() -> Clock {
    Box::new(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    })
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers shared by the unit tests of every submodule.

    use std::cell::Cell;
    use std::rc::Rc;

    use super::*;

    /// A VFS whose clock ticks 1000, 1001, ... one millisecond per read.
    pub fn vfs_with(limits: VfsLimits) -> Vfs {
        let tick = Rc::new(Cell::new(1000.0));
        Vfs::new(
            limits,
            Box::new(move || {
                let now = tick.get();
                tick.set(now + 1.0);
                now
            }),
        )
    }

    /// A VFS with the default quotas.
    pub fn vfs() -> Vfs {
        vfs_with(VfsLimits::default())
    }

    /// The error code of a result, or `None` when it succeeded.
    pub fn code<T>(result: Result<T, VfsError>) -> Option<Errno> {
        result.err().map(|e| e.code)
    }

    /// A file's contents as text; errors as their code name.
    pub fn text(vfs: &Vfs, path: &str) -> String {
        match vfs.read(WORKSPACE, path) {
            Ok(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Err(e) => e.code.name().to_string(),
        }
    }

    /// Writes text, panicking on failure (tests only).
    #[allow(clippy::panic)]
    pub fn put(vfs: &mut Vfs, path: &str, data: &str) {
        if let Err(e) = vfs.write(WORKSPACE, path, data.as_bytes()) {
            panic!("write {path}: {e}");
        }
    }

    /// A directory listing as `name/` for directories, `name@` for links, `name` otherwise.
    pub fn ls(vfs: &Vfs, path: &str) -> Vec<String> {
        let entries = vfs.read_dir(WORKSPACE, path).unwrap_or_default();
        entries
            .into_iter()
            .map(|(name, kind)| match kind {
                FileKind::Dir => format!("{name}/"),
                FileKind::Symlink => format!("{name}@"),
                _ => name,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn starts_with_the_skeleton_and_empty_writable_areas() {
        let vfs = vfs();
        assert_eq!(
            ls(&vfs, "/"),
            [
                "bin/",
                "cache/",
                "dev/",
                "etc/",
                "home/",
                "state/",
                "tmp/",
                "usr/",
                "workspace/"
            ]
        );
        assert_eq!(ls(&vfs, "/dev"), ["null", "random", "urandom", "zero"]);
        assert!(WRITABLE.iter().all(|area| ls(&vfs, area).is_empty()));
        assert_eq!(vfs.usage(), VfsUsage::default());
        assert_eq!(vfs.stat("/", "/etc").map(|s| s.mtime_ms), Ok(1000.0));
    }

    #[test]
    fn state_and_cache_are_writable_within_the_quotas() {
        let mut vfs = vfs_with(VfsLimits {
            max_files: 3,
            ..VfsLimits::default()
        });
        put(&mut vfs, "/state/user.json", "{}");
        assert_eq!(vfs.mkdir_all("/", "/cache/api"), Ok(()));
        assert_eq!(text(&vfs, "/state/user.json"), "{}");
        assert_eq!(vfs.usage(), VfsUsage { bytes: 2, files: 2 });
        put(&mut vfs, "/tmp/t", "");
        let full = vfs.write("/cache", "api/x", b"");
        assert_eq!(code(full), Some(Errno::ENOSPC));
        for area in ["/state", "/cache"] {
            assert_eq!(code(vfs.remove_all("/", area)), Some(Errno::EACCES));
        }
        assert_eq!(code(vfs.write("/", "/statefile", b"")), Some(Errno::EACCES));
    }

    #[test]
    fn dot_dot_stays_at_the_root_and_overlong_names_fail() {
        let mut vfs = vfs();
        put(&mut vfs, "/../../tmp/../workspace/./a", "x");
        assert_eq!(text(&vfs, "../../../../workspace/a"), "x");
        assert_eq!(vfs.canonicalize("/", "..").as_deref(), Ok("/"));
        let long = "n".repeat(256);
        assert_eq!(
            code(vfs.write(WORKSPACE, &long, b"")),
            Some(Errno::ENAMETOOLONG)
        );
        assert_eq!(code(vfs.mkdir(WORKSPACE, &long)), Some(Errno::ENAMETOOLONG));
        let e = vfs.stat(WORKSPACE, &long).err().map(|e| e.to_string());
        assert_eq!(e, Some(format!("{long}: File name too long")));
    }

    #[test]
    fn wall_clock_reads_the_system_time() {
        assert!(wall_clock()() > 1.6e12);
    }
}
