//! Errors, with the messages a POSIX tool and Node.js would print for them.

use std::fmt;

/// Why a filesystem operation failed: the POSIX error code (Linux numbering).
// The variants are spelled like the C constants so applets and JS can name them as users know them.
#[allow(clippy::upper_case_acronyms)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Errno {
    /// No such file or directory.
    ENOENT,
    /// Is a directory.
    EISDIR,
    /// Not a directory.
    ENOTDIR,
    /// File exists.
    EEXIST,
    /// Directory not empty.
    ENOTEMPTY,
    /// Permission denied: a mutation outside `/workspace` and `/tmp`.
    EACCES,
    /// No space left on device: the total-bytes or file-count quota.
    ENOSPC,
    /// File too large: the per-file quota.
    EFBIG,
    /// Too many levels of symbolic links.
    ELOOP,
    /// Invalid argument.
    EINVAL,
    /// File name too long.
    ENAMETOOLONG,
    /// Operation not permitted: a hard link to a directory.
    EPERM,
    /// Invalid cross-device link: a hard link between the read-only skeleton and a writable
    /// area, which are different filesystems.
    EXDEV,
    /// Too many links: a file already has [`MAX_LINKS`](crate::limits::MAX_LINKS) names.
    EMLINK,
}

impl Errno {
    /// The constant's name, e.g. `"ENOENT"` (Node's `err.code`).
    pub fn name(self) -> &'static str {
        self.info().0
    }

    /// The Linux errno value, e.g. 2 for `ENOENT` (Node's `err.errno` is its negation).
    pub fn number(self) -> i32 {
        self.info().1
    }

    /// The reason as `strerror` words it, e.g. `"No such file or directory"`.
    pub fn description(self) -> &'static str {
        self.info().2
    }

    /// The reason as libuv (and so Node.js) words it, e.g. `"no such file or directory"`.
    pub fn node_description(self) -> &'static str {
        self.info().3
    }

    /// One table, so the four spellings of a code cannot drift apart.
    fn info(self) -> (&'static str, i32, &'static str, &'static str) {
        use Errno::*;
        match self {
            ENOENT => (
                "ENOENT",
                2,
                "No such file or directory",
                "no such file or directory",
            ),
            EISDIR => (
                "EISDIR",
                21,
                "Is a directory",
                "illegal operation on a directory",
            ),
            ENOTDIR => ("ENOTDIR", 20, "Not a directory", "not a directory"),
            EEXIST => ("EEXIST", 17, "File exists", "file already exists"),
            ENOTEMPTY => (
                "ENOTEMPTY",
                39,
                "Directory not empty",
                "directory not empty",
            ),
            EACCES => ("EACCES", 13, "Permission denied", "permission denied"),
            ENOSPC => (
                "ENOSPC",
                28,
                "No space left on device",
                "no space left on device",
            ),
            EFBIG => ("EFBIG", 27, "File too large", "file too large"),
            ELOOP => (
                "ELOOP",
                40,
                "Too many levels of symbolic links",
                "too many symbolic links encountered",
            ),
            EINVAL => ("EINVAL", 22, "Invalid argument", "invalid argument"),
            ENAMETOOLONG => ("ENAMETOOLONG", 36, "File name too long", "name too long"),
            EPERM => (
                "EPERM",
                1,
                "Operation not permitted",
                "operation not permitted",
            ),
            EXDEV => (
                "EXDEV",
                18,
                "Invalid cross-device link",
                "cross-device link not permitted",
            ),
            EMLINK => ("EMLINK", 31, "Too many links", "too many links"),
        }
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.description())
    }
}

/// A failed operation: the code and the path as the caller gave it (not the resolved one, so
/// messages repeat what the user typed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VfsError {
    /// What went wrong.
    pub code: Errno,
    /// The offending path, as given; empty when no path applies.
    pub path: String,
}

impl VfsError {
    /// An error about `path`.
    pub fn new(code: Errno, path: impl Into<String>) -> Self {
        VfsError {
            code,
            path: path.into(),
        }
    }

    /// The line a shell tool prints: `cat: foo: No such file or directory`.
    pub fn posix_message(&self, tool: &str) -> String {
        format!("{tool}: {self}")
    }

    /// Node's message: `ENOENT: no such file or directory, open 'foo'`.
    pub fn node_message(&self, syscall: &str) -> String {
        let head = format!(
            "{}: {}, {syscall}",
            self.code.name(),
            self.code.node_description()
        );
        match self.path.as_str() {
            "" => head,
            path => format!("{head} '{path}'"),
        }
    }
}

impl fmt::Display for VfsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path.as_str() {
            "" => write!(f, "{}", self.code),
            path => write!(f, "{path}: {}", self.code),
        }
    }
}

impl std::error::Error for VfsError {}

/// Attaches `path` to an internal error code (internals work in bare codes; the public
/// operations know which of their paths a failure is about).
pub(super) fn at(path: &str) -> impl Fn(Errno) -> VfsError + '_ {
    move |code| VfsError::new(code, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_and_node_messages() {
        let e = VfsError::new(Errno::ENOENT, "foo");
        assert_eq!(
            e.posix_message("cat"),
            "cat: foo: No such file or directory"
        );
        assert_eq!(
            e.node_message("open"),
            "ENOENT: no such file or directory, open 'foo'"
        );
        let e = VfsError::new(Errno::EISDIR, "");
        assert_eq!(e.posix_message("cat"), "cat: Is a directory");
        assert_eq!(
            e.node_message("read"),
            "EISDIR: illegal operation on a directory, read"
        );
    }

    #[test]
    fn every_code_has_distinct_spellings() {
        use Errno::*;
        let all = [
            ENOENT,
            EISDIR,
            ENOTDIR,
            EEXIST,
            ENOTEMPTY,
            EACCES,
            ENOSPC,
            EFBIG,
            ELOOP,
            EINVAL,
            ENAMETOOLONG,
        ];
        let names: std::collections::BTreeSet<_> = all.iter().map(|e| e.name()).collect();
        let numbers: std::collections::BTreeSet<_> = all.iter().map(|e| e.number()).collect();
        assert_eq!((names.len(), numbers.len()), (all.len(), all.len()));
        assert!(all.iter().all(|e| format!("{e:?}") == e.name()));
        assert_eq!(ELOOP.to_string(), "Too many levels of symbolic links");
        assert_eq!(ENAMETOOLONG.node_description(), "name too long");
    }
}
