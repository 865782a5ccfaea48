//! `type [-afptP] name ...`: what a name runs as: alias, keyword, function, builtin, or a file
//! found along `$PATH` (see [`crate::shell::interp::path`]). `command -v`/`-V` describe the
//! same way.

use super::{Builtin, Ctx};
use crate::shell::interp::path::{in_applet_dirs, PROGRAMS};
use crate::shell::interp::quote;
use crate::shell::interp::unparse;
use crate::shell::interp::{Flow, Sh};
use crate::task::LocalFuture;

/// `type`.
pub(crate) const TYPE: Builtin = Builtin {
    name: "type",
    synopsis: "type [-afptP] name [name ...] — say whether a name is an alias, keyword, \
               function, builtin or file",
    run,
};

/// The shell's reserved words.
pub(crate) const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do",
    "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc",
];

/// What a name is, in lookup order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// An alias (only while `expand_aliases` is on, as in bash): its text.
    Alias(String),
    Keyword,
    Function,
    Builtin,
    /// A file: its path, and whether it came from the `hash` table.
    File(String, bool),
}

/// How a lookup goes: `type -a` lists everything, `-P`/`-p` only files, `-f` skips functions.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Lookup {
    pub all: bool,
    pub files_only: bool,
    pub no_functions: bool,
}

/// Whether `name` is a builtin of this shell that bash has too (not `which`, `bash`...).
pub(crate) fn is_builtin(name: &str) -> bool {
    super::lookup(name).is_some() && !PROGRAMS.contains(&name)
}

/// Everything `name` could run as, in bash's order (alias, keyword, function, builtin, file).
pub(crate) fn kinds(sh: &Sh, name: &str, how: Lookup) -> Vec<Kind> {
    let mut out = Vec::new();
    if !how.files_only {
        let s = sh.state.borrow();
        if let Some(alias) = s.aliases.get(name).filter(|_| s.opts.expand_aliases) {
            out.push(Kind::Alias(alias.value.clone()));
        }
        if KEYWORDS.contains(&name) {
            out.push(Kind::Keyword);
        }
        if !how.no_functions && s.funcs.contains_key(name) {
            out.push(Kind::Function);
        }
        let disabled = s.disabled.contains(name);
        drop(s);
        if is_builtin(name) && !disabled {
            out.push(Kind::Builtin);
        }
    }
    if !how.all && !out.is_empty() {
        // `time` is a keyword and a builtin here: only the first counts.
        out.truncate(1);
        return out;
    }
    if name.contains('/') {
        if is_executable(sh, name) {
            out.push(Kind::File(name.to_string(), false));
        }
    } else if let Some(path) = sh.hashed(name, false).filter(|_| !how.all) {
        out.push(Kind::File(path, true));
    } else if how.all {
        let paths = sh.path_search(name);
        out.extend(paths.into_iter().map(|p| Kind::File(p, false)));
    } else {
        out.extend(sh.path_lookup(name).map(|p| Kind::File(p, false)));
    }
    if !how.all {
        out.truncate(1);
    }
    out
}

/// Whether the path `name` is an executable file (or an applet by its path).
fn is_executable(sh: &Sh, name: &str) -> bool {
    let cwd = sh.state.borrow().cwd.clone();
    let applet = ["/bin/", "/usr/bin/"]
        .iter()
        .any(|d| name.strip_prefix(d).is_some_and(in_applet_dirs));
    applet
        || sh
            .world
            .vfs
            .borrow()
            .stat(&cwd, name)
            .is_ok_and(|s| s.kind == crate::vfs::FileKind::File && s.mode & 0o111 != 0)
}

/// `name is ...`, as `type` and `command -V` say it.
pub(crate) fn describe(sh: &Sh, name: &str, kind: &Kind) -> String {
    match kind {
        Kind::Alias(value) => format!("{name} is aliased to `{value}'\n"),
        Kind::Keyword => format!("{name} is a shell keyword\n"),
        Kind::Builtin => format!("{name} is a shell builtin\n"),
        Kind::File(p, true) => format!("{name} is hashed ({p})\n"),
        Kind::File(p, false) => format!("{name} is {p}\n"),
        Kind::Function => {
            let body = sh.state.borrow().funcs.get(name).cloned();
            body.map_or_else(String::new, |body| {
                format!("{name} is a function\n{}\n", unparse::function(name, &body))
            })
        }
    }
}

/// What `command -v` prints for `name`.
pub(crate) fn short(name: &str, kind: &Kind) -> String {
    match kind {
        Kind::Alias(value) => format!("alias {name}={}\n", quote::single(value)),
        Kind::File(p, _) => format!("{p}\n"),
        _ => format!("{name}\n"),
    }
}

fn terse(kind: &Kind) -> &'static str {
    match kind {
        Kind::Alias(_) => "alias\n",
        Kind::Keyword => "keyword\n",
        Kind::Function => "function\n",
        Kind::Builtin => "builtin\n",
        Kind::File(..) => "file\n",
    }
}

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (mut show_type, mut path_only) = (false, false);
        let mut how = Lookup::default();
        let mut operands = ctx.operands();
        while let Some(arg) = operands.first() {
            if arg == "--" {
                operands = &operands[1..];
                break;
            }
            let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
                break;
            };
            for letter in letters.chars() {
                match letter {
                    't' => show_type = true,
                    'p' => path_only = true,
                    'P' => how.files_only = true,
                    'a' => how.all = true,
                    'f' => how.no_functions = true,
                    _ => {
                        return ctx
                            .bad_option(&format!("-{letter}"), "type [-afptP] name [name ...]")
                            .await;
                    }
                }
            }
            operands = &operands[1..];
        }
        let mut status = 0;
        let mut out = String::new();
        for name in operands {
            let found = kinds(&ctx.sh, name, how);
            if found.is_empty() {
                status = 1;
                if !show_type && !path_only && !how.files_only {
                    ctx.out(&out).await;
                    out.clear();
                    ctx.fail(&format!("{name}: not found"), 1).await;
                }
                continue;
            }
            for kind in &found {
                let line = match kind {
                    Kind::File(p, _) if path_only || how.files_only => format!("{p}\n"),
                    _ if path_only || how.files_only => String::new(),
                    _ if show_type => terse(kind).to_string(),
                    _ => describe(&ctx.sh, name, kind),
                };
                out.push_str(&line);
            }
        }
        ctx.out(&out).await;
        Flow::Normal(status)
    })
}
