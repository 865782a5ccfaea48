//! Lexical path handling: joining with the working directory, normalising, and the checks every
//! path argument passes before it reaches the tree.

use super::error::Errno;

/// Longest path argument accepted, in bytes (Linux's `PATH_MAX`, less the terminating NUL).
pub const PATH_MAX: usize = 4095;
/// Longest name of one entry, in bytes (Linux's `NAME_MAX`).
pub const NAME_MAX: usize = 255;

/// `path` made absolute against `cwd` and normalised without looking at the filesystem:
/// `.` and repeated or trailing `/` vanish, `..` removes the previous name (and stays at `/`
/// above the root). This is the shell's logical view (`cd -L`, `$PWD`); symlinks are not
/// followed, so `link/..` becomes the directory that holds `link`.
pub fn resolve(cwd: &str, path: &str) -> String {
    let mut names: Vec<&str> = Vec::new();
    for name in joined(cwd, path) {
        match name {
            ".." => {
                names.pop();
            }
            name => names.push(name),
        }
    }
    format!("/{}", names.join("/"))
}

/// The components of `path` after `cwd` when `path` is relative, without empty names and `.`.
pub(super) fn joined<'a>(cwd: &'a str, path: &'a str) -> impl Iterator<Item = &'a str> {
    let base = if path.starts_with('/') { "" } else { cwd };
    names(base).chain(names(path))
}

/// The non-empty, non-`.` components of `path`.
pub(super) fn names(path: &str) -> impl DoubleEndedIterator<Item = &str> {
    path.split('/').filter(|n| !n.is_empty() && *n != ".")
}

/// Whether `path` must name a directory: it ends in `/` or `/.` (or is `.`).
pub(super) fn wants_dir(path: &str) -> bool {
    path.ends_with('/') || path == "." || path.ends_with("/.")
}

/// Whether the last component of `path` is `.` or `..`, which no removal or rename may name.
pub(super) fn ends_in_dots(path: &str) -> bool {
    let last = path.trim_end_matches('/').rsplit('/').next().unwrap_or("");
    last == "." || last == ".."
}

/// Rejects what no operation accepts: an empty path (ENOENT, like the kernel), a NUL byte
/// (EINVAL), and an overlong path or name (ENAMETOOLONG).
pub(super) fn check(path: &str) -> Result<(), Errno> {
    if path.is_empty() {
        return Err(Errno::ENOENT);
    }
    if path.contains('\0') {
        return Err(Errno::EINVAL);
    }
    if path.len() > PATH_MAX || path.split('/').any(|name| name.len() > NAME_MAX) {
        return Err(Errno::ENAMETOOLONG);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_normalises_lexically() {
        let cases = [
            ("/workspace", "a/b", "/workspace/a/b"),
            ("/workspace", "/tmp//x/./y/", "/tmp/x/y"),
            ("/workspace", "../..", "/"),
            ("/workspace", "a/../../../../etc", "/etc"),
            ("/workspace/", ".", "/workspace"),
            ("/workspace", "", "/workspace"),
            ("", "x", "/x"),
            ("/", "/", "/"),
        ];
        for (cwd, path, want) in cases {
            assert_eq!(resolve(cwd, path), want, "resolve({cwd:?}, {path:?})");
        }
    }

    #[test]
    fn checks_reject_bad_arguments() {
        assert_eq!(check(""), Err(Errno::ENOENT));
        assert_eq!(check("a\0b"), Err(Errno::EINVAL));
        assert_eq!(check(&"a".repeat(256)), Err(Errno::ENAMETOOLONG));
        assert_eq!(check(&"a/".repeat(2048)), Err(Errno::ENAMETOOLONG));
        assert_eq!(check(&"a".repeat(255)), Ok(()));
    }

    #[test]
    fn dots_and_trailing_slashes() {
        assert!(wants_dir("a/") && wants_dir("a/.") && wants_dir(".") && !wants_dir("a"));
        assert!(ends_in_dots("a/..") && ends_in_dots("./") && ends_in_dots(".."));
        assert!(!ends_in_dots("a/.b") && !ends_in_dots("..a"));
    }
}
