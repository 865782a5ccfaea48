//! Pathname expansion on the VFS: `*.txt`, `src/*/mod.rs`, `/tmp/[ab]*`, `**` with globstar.
//!
//! Names are matched per directory level; names starting with `.` only match a pattern that
//! starts with a literal `.` (unless dotglob). Results are sorted bytewise (the C locale), as
//! written (`./x` stays relative). The number of results and of directories read is bounded.

use super::pattern::{has_glob, unescape, PChar, Pattern};
use crate::limits::{MAX_GLOB_DIRS, MAX_GLOB_RESULTS};
use crate::vfs::{FileKind, Vfs};

/// Options that change matching.
#[derive(Clone, Copy, Debug, Default)]
pub struct GlobOpts {
    /// Dotfiles match without a leading `.` in the pattern.
    pub dotglob: bool,
    /// Letters match regardless of case.
    pub nocase: bool,
    /// `**` matches any depth of directories.
    pub globstar: bool,
    /// `.` and `..` match a pattern starting with `.` (`shopt -u globskipdots`).
    pub dots: bool,
}

/// A path found so far: as displayed, and as the VFS resolves it (relative to `cwd`).
#[derive(Clone)]
struct Found {
    shown: String,
}

fn join(base: &str, name: &str) -> String {
    match base {
        "" => name.to_string(),
        b if b.ends_with('/') => format!("{b}{name}"),
        b => format!("{b}/{name}"),
    }
}

/// Expands `chars`; an empty result means no match (the caller keeps the word or drops it).
/// Errors only when a bound is exceeded.
pub fn expand(
    vfs: &Vfs,
    cwd: &str,
    chars: &[PChar],
    opts: GlobOpts,
) -> Result<Vec<String>, String> {
    let components: Vec<&[PChar]> = chars.split(|&(c, _)| c == '/').collect();
    let absolute = chars.first().map(|p| p.0) == Some('/');
    let mut found = vec![Found {
        shown: if absolute { "/".into() } else { String::new() },
    }];
    let mut dirs_read = 0usize;
    let start = usize::from(absolute);
    let last = components.len().saturating_sub(1);
    let mut last_literal = false;
    for (i, comp) in components.iter().enumerate().skip(start) {
        let is_last = i == last;
        if comp.is_empty() {
            if is_last {
                // A trailing slash: directories only.
                found.retain(|f| is_dir(vfs, cwd, &f.shown));
                for f in &mut found {
                    if !f.shown.ends_with('/') {
                        f.shown.push('/');
                    }
                }
            }
            continue;
        }
        if !has_glob(comp) {
            let name = unescape(comp);
            for f in &mut found {
                f.shown = join(&f.shown, &name);
            }
            last_literal = true;
            continue;
        }
        last_literal = false;
        let star2 = opts.globstar && comp.len() == 2 && comp.iter().all(|&(c, q)| c == '*' && !q);
        let mut pattern = Pattern::new(comp);
        pattern.nocase = opts.nocase;
        let mut next = Vec::new();
        for f in &found {
            if star2 {
                descend(vfs, cwd, f, is_last, opts, &mut next, &mut dirs_read)?;
                continue;
            }
            dirs_read += 1;
            if dirs_read > MAX_GLOB_DIRS {
                return Err("pathname expansion read too many directories".into());
            }
            let dir = if f.shown.is_empty() {
                "."
            } else {
                f.shown.as_str()
            };
            let Ok(mut entries) = vfs.read_dir(cwd, dir) else {
                continue;
            };
            if opts.dots && pattern.starts_with_dot() {
                entries.extend([".", ".."].map(|n| (n.to_string(), FileKind::Dir)));
            }
            for (name, kind) in entries {
                if name.starts_with('.') && !opts.dotglob && !pattern.starts_with_dot() {
                    continue;
                }
                if !pattern.matches(&name) {
                    continue;
                }
                let shown = join(&f.shown, &name);
                if !is_last && kind != FileKind::Dir && !is_dir(vfs, cwd, &shown) {
                    continue;
                }
                next.push(Found { shown });
                if next.len() > MAX_GLOB_RESULTS {
                    return Err(format!(
                        "pathname expansion matched more than {MAX_GLOB_RESULTS} paths"
                    ));
                }
            }
        }
        found = next;
        if found.is_empty() {
            return Ok(Vec::new());
        }
    }
    if last_literal {
        found.retain(|f| vfs.lstat(cwd, &f.shown).is_ok());
    }
    let mut out: Vec<String> = found.into_iter().map(|f| f.shown).collect();
    crate::sort::sort(&mut out);
    out.dedup();
    Ok(out)
}

fn is_dir(vfs: &Vfs, cwd: &str, path: &str) -> bool {
    let path = if path.is_empty() { "." } else { path };
    vfs.stat(cwd, path).is_ok_and(|s| s.kind == FileKind::Dir)
}

/// `**`: the directory itself and every directory below (and, as the last component, every
/// file below too).
fn descend(
    vfs: &Vfs,
    cwd: &str,
    from: &Found,
    is_last: bool,
    opts: GlobOpts,
    out: &mut Vec<Found>,
    dirs_read: &mut usize,
) -> Result<(), String> {
    let mut stack = vec![from.shown.clone()];
    if !is_last {
        out.push(from.clone());
    }
    while let Some(dir) = stack.pop() {
        *dirs_read += 1;
        if *dirs_read > MAX_GLOB_DIRS {
            return Err("pathname expansion read too many directories".into());
        }
        let shown_dir = if dir.is_empty() { "." } else { dir.as_str() };
        let Ok(entries) = vfs.read_dir(cwd, shown_dir) else {
            continue;
        };
        let mut subdirs = Vec::new();
        for (name, kind) in entries {
            if name.starts_with('.') && !opts.dotglob {
                continue;
            }
            let shown = join(&dir, &name);
            let dir_like = kind == FileKind::Dir;
            if dir_like || is_last {
                out.push(Found {
                    shown: shown.clone(),
                });
            }
            if dir_like {
                subdirs.push(shown);
            }
            if out.len() > MAX_GLOB_RESULTS {
                return Err(format!(
                    "pathname expansion matched more than {MAX_GLOB_RESULTS} paths"
                ));
            }
        }
        stack.extend(subdirs.into_iter().rev());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::applets::testing::vfs_with;

    fn glob(pattern: &str) -> Vec<String> {
        let vfs = vfs_with(&[
            ("a.txt", ""),
            ("b.txt", ""),
            ("c.md", ""),
            (".hidden.txt", ""),
            ("src/x.rs", ""),
            ("src/y.rs", ""),
            ("src/deep/z.rs", ""),
            ("doc/readme.md", ""),
        ]);
        let chars: Vec<PChar> = pattern.chars().map(|c| (c, false)).collect();
        let opts = GlobOpts {
            globstar: true,
            ..GlobOpts::default()
        };
        let vfs = vfs.borrow();
        expand(&vfs, "/workspace", &chars, opts).unwrap_or_default()
    }

    #[test]
    fn levels_hidden_files_and_sorting() {
        assert_eq!(glob("*.txt"), ["a.txt", "b.txt"]);
        assert_eq!(glob(".*"), [".hidden.txt"]);
        assert_eq!(glob("*/*.rs"), ["src/x.rs", "src/y.rs"]);
        assert_eq!(glob("*/"), ["doc/", "src/"]);
        assert_eq!(glob("./[ab]*"), ["./a.txt", "./b.txt"]);
        assert_eq!(
            glob("/workspace/src/*.rs"),
            ["/workspace/src/x.rs", "/workspace/src/y.rs"]
        );
        assert_eq!(glob("*/readme.md"), ["doc/readme.md"]);
        assert!(glob("*.none").is_empty());
        assert_eq!(
            glob("src/**/*.rs"),
            ["src/deep/z.rs", "src/x.rs", "src/y.rs"]
        );
    }
}
