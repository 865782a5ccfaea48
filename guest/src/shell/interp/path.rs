//! Command search along `$PATH`, and bash's table of remembered command paths (`hash`).
//!
//! The applets live in `/usr/bin` and `/bin`, as on a merged-/usr Linux (`type -a ls` lists
//! both); any other directory on `$PATH` holds the VFS's own files. A name not found along
//! `$PATH` is no command, as in bash (`PATH=/nowhere; ls` fails with 127).

use super::Sh;
use crate::vfs::FileKind;

/// The `PATH` bash sets when its environment has none (not exported).
pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.";

/// The directories that hold every applet.
pub const APPLET_DIRS: &[&str] = &["/usr/bin", "/bin"];

/// Builtins of this shell that are programs only on a Linux box: `type which` says
/// `/usr/bin/which`, and `compgen -b` does not list them.
pub const PROGRAMS: &[&str] = &["bash", "sh", "which"];

pub use crate::applets::{in_applet_dirs, BUILTIN_FILES};

/// A name remembered by `hash`: where it was found and how often it was looked up since.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hashed {
    /// The command name.
    pub name: String,
    /// Its path.
    pub path: String,
    /// Lookups since it was remembered.
    pub hits: u32,
}

/// The remembered paths, in the order they were added, and the `$PATH` they were found on
/// (assigning `PATH` forgets them, as in bash).
#[derive(Debug, Clone, Default)]
pub struct HashTable {
    /// The entries, oldest first.
    pub entries: Vec<Hashed>,
    /// `$PATH` when they were found.
    pub path: String,
}

/// A table's entries (given oldest first) in the order bash lists its hash tables
/// (`hash` has 256 buckets, `complete -p` 512): by bucket of the name's 32-bit FNV-1 hash,
/// newest first within a bucket.
pub fn bash_table_order<T>(items: Vec<T>, buckets: u32, name: impl Fn(&T) -> &str) -> Vec<T> {
    let bucket = |s: &str| {
        let hash = s.bytes().fold(2_166_136_261_u32, |h, b| {
            h.wrapping_mul(16_777_619) ^ u32::from(b)
        });
        hash % buckets
    };
    let mut keyed: Vec<(u32, std::cmp::Reverse<usize>, T)> = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| (bucket(name(&item)), std::cmp::Reverse(i), item))
        .collect();
    crate::sort::sort_by_key(&mut keyed, |(b, i, _)| (*b, *i));
    keyed.into_iter().map(|(_, _, item)| item).collect()
}

impl Sh {
    /// Every executable called `name` along `$PATH`, in order (`type -a`, `which -a`).
    pub fn path_search(&self, name: &str) -> Vec<String> {
        self.search(name, true, true)
    }

    /// The first command `name` along `$PATH`: an executable file, else (as bash does) the
    /// first file without the execute bit, which runs here as modes are not enforced.
    pub fn path_lookup(&self, name: &str) -> Option<String> {
        let path = self.search(name, false, true).into_iter().next();
        path.or_else(|| self.search(name, false, false).into_iter().next())
    }

    /// [`Sh::path_lookup`] through the `hash` table, which remembers what it finds.
    pub fn find_command(&self, name: &str) -> Option<String> {
        if let Some(path) = self.hashed(name, true) {
            return Some(path);
        }
        let path = self.path_lookup(name)?;
        self.remember(name, &path, 1);
        Some(path)
    }

    /// The remembered path of `name`, counting a hit if `hit`.
    pub fn hashed(&self, name: &str, hit: bool) -> Option<String> {
        let mut s = self.state.borrow_mut();
        let current = s.get("PATH").unwrap_or_default();
        if s.hash.path != current {
            s.hash = HashTable {
                entries: Vec::new(),
                path: current,
            };
        }
        let entry = s.hash.entries.iter_mut().find(|e| e.name == name)?;
        if hit {
            entry.hits += 1;
        }
        Some(entry.path.clone())
    }

    /// Remembers `path` for `name` with `hits` lookups.
    pub fn remember(&self, name: &str, path: &str, hits: u32) {
        let _ = self.hashed(name, false);
        let mut s = self.state.borrow_mut();
        s.hash.entries.retain(|e| e.name != name);
        s.hash.entries.push(Hashed {
            name: name.to_string(),
            path: path.to_string(),
            hits,
        });
    }

    fn search(&self, name: &str, all: bool, executable: bool) -> Vec<String> {
        let (path_var, cwd) = {
            let s = self.state.borrow();
            (s.get("PATH").unwrap_or_default(), s.cwd.clone())
        };
        let mut found = Vec::new();
        if name.is_empty() || name.contains('/') {
            return found;
        }
        for dir in path_var.split(':') {
            let dir = if dir.is_empty() { "." } else { dir };
            let full = format!("{}/{name}", dir.trim_end_matches('/'));
            let absolute = crate::vfs::resolve(&cwd, dir);
            let applet = APPLET_DIRS.contains(&absolute.as_str()) && in_applet_dirs(name);
            let file =
                || {
                    self.world.vfs.borrow().stat(&cwd, &full).is_ok_and(|s| {
                        s.kind == FileKind::File && (!executable || s.mode & 0o111 != 0)
                    })
                };
            if applet || file() {
                found.push(full);
                if !all {
                    break;
                }
            }
        }
        found
    }
}
