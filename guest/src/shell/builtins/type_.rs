//! `type [-t|-p|-P|-a] name ...`: what a name runs as: keyword, function, builtin, or the
//! applet's path.

use super::{Builtin, Ctx};
use crate::shell::interp::unparse;
use crate::shell::interp::{Flow, Sh};
use crate::task::LocalFuture;

/// `type`.
pub(crate) const TYPE: Builtin = Builtin {
    name: "type",
    synopsis:
        "type [-t|-p|-a] name ... — say whether a name is a keyword, function, builtin or command",
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
    Keyword,
    Function,
    Builtin,
    /// An applet or a file: its path.
    File(String),
}

/// Everything `name` could run as (keyword first, then function, builtin, file).
pub(crate) fn kinds(sh: &Sh, name: &str) -> Vec<Kind> {
    let mut out = Vec::new();
    if KEYWORDS.contains(&name) {
        out.push(Kind::Keyword);
    }
    if sh.state.borrow().funcs.contains_key(name) {
        out.push(Kind::Function);
    }
    if super::lookup(name).is_some() {
        out.push(Kind::Builtin);
    }
    if let Some(path) = file_path(sh, name) {
        out.push(Kind::File(path));
    }
    out
}

/// The path a command name resolves to: `/usr/bin/NAME` for applets, the file itself for a
/// path that exists.
pub(crate) fn file_path(sh: &Sh, name: &str) -> Option<String> {
    if name.contains('/') {
        let cwd = sh.state.borrow().cwd.clone();
        let exists = sh
            .world
            .vfs
            .borrow()
            .stat(&cwd, name)
            .is_ok_and(|s| s.kind == crate::vfs::FileKind::File);
        let applet = ["/bin/", "/usr/bin/"].iter().any(|d| {
            name.strip_prefix(d)
                .is_some_and(|n| crate::applets::lookup(n).is_some())
        });
        return (exists || applet).then(|| name.to_string());
    }
    crate::applets::lookup(name).map(|_| format!("/usr/bin/{name}"))
}

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (mut terse, mut path_only, mut all, mut force_path) = (false, false, false, false);
        let mut names = Vec::new();
        for arg in ctx.operands() {
            match arg.as_str() {
                "-t" => terse = true,
                "-p" => path_only = true,
                "-P" => force_path = true,
                "-a" => all = true,
                "-f" => {}
                a if a.starts_with('-') && a.len() > 1 => {
                    return ctx.bad_option(a, "type [-afptP] name [name ...]").await;
                }
                a => names.push(a.to_string()),
            }
        }
        let mut status = 0;
        let mut out = String::new();
        for name in &names {
            let mut found = kinds(&ctx.sh, name);
            if force_path {
                found.retain(|k| matches!(k, Kind::File(_)));
            }
            if !all {
                found.truncate(1);
            }
            if found.is_empty() {
                status = 1;
                if !terse && !path_only && !force_path {
                    ctx.out(&out).await;
                    out.clear();
                    ctx.fail(&format!("{name}: not found"), 1).await;
                }
                continue;
            }
            for kind in found {
                let line = match (&kind, terse, path_only || force_path) {
                    (Kind::File(p), _, true) => format!("{p}\n"),
                    (_, _, true) => String::new(),
                    (Kind::Keyword, true, _) => "keyword\n".into(),
                    (Kind::Function, true, _) => "function\n".into(),
                    (Kind::Builtin, true, _) => "builtin\n".into(),
                    (Kind::File(_), true, _) => "file\n".into(),
                    (Kind::Keyword, false, _) => format!("{name} is a shell keyword\n"),
                    (Kind::Builtin, false, _) => format!("{name} is a shell builtin\n"),
                    (Kind::File(p), false, _) => format!("{name} is {p}\n"),
                    (Kind::Function, false, _) => {
                        let body = ctx.sh.state.borrow().funcs.get(name).cloned();
                        match body {
                            Some(body) => format!(
                                "{name} is a function\n{}\n",
                                unparse::function(name, &body)
                            ),
                            None => String::new(),
                        }
                    }
                };
                out.push_str(&line);
            }
        }
        ctx.out(&out).await;
        Flow::Normal(status)
    })
}
