//! Redirections, applied left to right to a copy of the descriptor table: files in the VFS
//! (`>` creates or truncates at once, `>>` appends, `<` reads), duplication (`2>&1`),
//! closing (`>&-`), here-documents and here-strings, `/dev/null`, and the files bash opens as
//! descriptors itself (`/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`).

use std::rc::Rc;

use super::super::expand::ExpandError;
use super::super::io::{Fd, Fds, InHandle, OutHandle, OutKind};
use super::super::state::{split_element, Key};
use super::super::{Flow, Sh};
use crate::limits::MAX_FD;
use crate::shell::ast::{Redirect, RedirectKind, Word};

/// How a target file is opened for writing.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Truncate { clobber: bool },
    Append,
}

impl Sh {
    /// Applies `redirects` to `fds`; on failure the message is printed and the command must
    /// not run (the flow to return is given).
    pub async fn redirect(&self, redirects: &[Redirect], mut fds: Fds) -> Result<Fds, Flow> {
        for r in redirects {
            if let Err(e) = self.redirect_one(r, &mut fds).await {
                return Err(match e {
                    ExpandError::Flow(f) => f,
                    ExpandError::Discard(m) => {
                        self.report(&fds, &m).await;
                        self.discard()
                    }
                    ExpandError::Exit(m) => {
                        self.report(&fds, &m).await;
                        Flow::Exit(self.fatal_status())
                    }
                    ExpandError::Failed(m) => {
                        self.report(&fds, &m).await;
                        Flow::Normal(1)
                    }
                });
            }
        }
        // `{name}>file` outlives its command, as in bash (`{name}>&-` does not).
        for r in redirects.iter().filter(|r| r.var.is_some() && !closes(r)) {
            let mut state = self.state.borrow_mut();
            let fd = r.var.as_deref().and_then(|name| state.get(name));
            if let Some(fd) = fd.and_then(|fd| fd.trim().parse().ok()) {
                state.keep_fd(fd, fds.get(fd).cloned());
            }
        }
        Ok(fds)
    }

    async fn redirect_one(&self, r: &Redirect, fds: &mut Fds) -> Result<(), ExpandError> {
        let explicit = match &r.var {
            Some(name) => Some(self.named_fd(name, r, fds)?),
            None => r.fd,
        };
        let input_fd = explicit.unwrap_or(0);
        let output_fd = explicit.unwrap_or(1);
        if input_fd > MAX_FD || output_fd > MAX_FD {
            return Err(ExpandError::Failed(format!(
                "{}: Bad file descriptor",
                input_fd.max(output_fd)
            )));
        }
        match &r.kind {
            RedirectKind::Read(w) | RedirectKind::ReadWrite(w) => {
                let path = self.target(w, fds).await?;
                if let Some(source) = dev_fd(&path) {
                    return dup(fds, &[input_fd], source);
                }
                let both = matches!(r.kind, RedirectKind::ReadWrite(_));
                let handle = self.open_read(&path, both)?;
                let fd = match both {
                    true => Fd::Both(handle, self.open_write(&path, Mode::Append)?),
                    false => Fd::In(handle),
                };
                fds.set(input_fd, Some(fd));
            }
            RedirectKind::Write(w) | RedirectKind::Clobber(w) => {
                let path = self.target(w, fds).await?;
                if let Some(source) = dev_fd(&path) {
                    return dup(fds, &[output_fd], source);
                }
                let clobber = matches!(r.kind, RedirectKind::Clobber(_));
                let handle = self.open_write(&path, Mode::Truncate { clobber })?;
                fds.set(output_fd, Some(Fd::Out(handle)));
            }
            RedirectKind::Append(w) => {
                let path = self.target(w, fds).await?;
                if let Some(source) = dev_fd(&path) {
                    return dup(fds, &[output_fd], source);
                }
                let handle = self.open_write(&path, Mode::Append)?;
                fds.set(output_fd, Some(Fd::Out(handle)));
            }
            RedirectKind::WriteBoth(w) | RedirectKind::AppendBoth(w) => {
                let path = self.target(w, fds).await?;
                if let Some(source) = dev_fd(&path) {
                    return dup(fds, &[1, 2], source);
                }
                let mode = match r.kind {
                    RedirectKind::AppendBoth(_) => Mode::Append,
                    _ => Mode::Truncate { clobber: false },
                };
                let handle = self.open_write(&path, mode)?;
                fds.set(1, Some(Fd::Out(Rc::clone(&handle))));
                fds.set(2, Some(Fd::Out(handle)));
            }
            RedirectKind::DupRead(w) | RedirectKind::DupWrite(w) => {
                let text = self.expand_string(w, fds).await?;
                let output = matches!(r.kind, RedirectKind::DupWrite(_));
                let fd = if output { output_fd } else { input_fd };
                if text == "-" {
                    fds.set(fd, None);
                    return Ok(());
                }
                // `N>&M-` moves M to N: a copy, then M is closed.
                let (text, close) = match text.strip_suffix('-') {
                    Some(n) if n.parse::<u32>().is_ok() => (n.to_string(), true),
                    _ => (text, false),
                };
                let Ok(source) = text.parse::<u32>() else {
                    if output && matches!(explicit, None | Some(1)) {
                        // `>& file` is `&> file`.
                        let handle = self.open_write(&text, Mode::Truncate { clobber: false })?;
                        fds.set(1, Some(Fd::Out(Rc::clone(&handle))));
                        fds.set(2, Some(Fd::Out(handle)));
                        return Ok(());
                    }
                    return Err(ExpandError::Failed(format!("{text}: ambiguous redirect")));
                };
                dup(fds, &[fd], source).map_err(|_| {
                    let text = super::super::unparse::word(w);
                    ExpandError::Failed(format!("{text}: Bad file descriptor"))
                })?;
                if close && source != fd {
                    fds.set(source, None);
                    // bash does not reopen a moved descriptor after the command.
                    self.state.borrow_mut().keep_fd(source, None);
                }
            }
            RedirectKind::HereDoc(h) => {
                let text = if h.expand {
                    self.expand_string(&h.body, fds).await?
                } else {
                    literal_text(&h.body)
                };
                fds.set(
                    input_fd,
                    Some(Fd::In(InHandle::bytes(Rc::new(
                        crate::shell::bytes::encode(text.as_bytes()).into_owned(),
                    )))),
                );
            }
            RedirectKind::HereString(w) => {
                let mut text = self.expand_string(w, fds).await?;
                text.push('\n');
                fds.set(
                    input_fd,
                    Some(Fd::In(InHandle::bytes(Rc::new(
                        crate::shell::bytes::encode(text.as_bytes()).into_owned(),
                    )))),
                );
            }
        }
        Ok(())
    }

    /// The descriptor of `{name}>...`: for `{name}>&-` the one `$name` holds, else the first
    /// free one from 10, which `name` is set to.
    fn named_fd(&self, name: &str, r: &Redirect, fds: &Fds) -> Result<u32, ExpandError> {
        let element = split_element(name).and_then(|(base, index)| {
            let index = index.trim().parse().ok()?;
            Some((base, Key::Index(index)))
        });
        if closes(r) {
            let state = self.state.borrow();
            let value = match &element {
                Some((base, key)) => state.element(base, key),
                None => state.get(name),
            };
            let value = value.unwrap_or_default();
            return value
                .trim()
                .parse()
                .map_err(|_| ExpandError::Failed(format!("{value}: ambiguous redirect")));
        }
        let fd = (10..=MAX_FD)
            .find(|&fd| fds.get(fd).is_none())
            .ok_or_else(|| ExpandError::Failed(format!("{name}: Too many open files")))?;
        let mut state = self.state.borrow_mut();
        match element {
            Some((base, key)) => state.assign_element(base, key, fd.to_string(), false),
            None => state.assign(name, fd.to_string(), false),
        }
        .map_err(ExpandError::Failed)?;
        Ok(fd)
    }

    /// A redirection target: expanded, and exactly one word.
    async fn target(&self, w: &Word, fds: &Fds) -> Result<String, ExpandError> {
        let fields = self.expand_fields(&[w], fds).await?;
        match fields.as_slice() {
            [one] if !one.is_empty() => Ok(one.clone()),
            _ => Err(ExpandError::Failed(format!(
                "{}: ambiguous redirect",
                super::super::unparse::word(w)
            ))),
        }
    }

    fn open_read(&self, path: &str, create: bool) -> Result<Rc<InHandle>, ExpandError> {
        let (cwd, umask) = {
            let s = self.state.borrow();
            (s.cwd.clone(), s.umask)
        };
        let mut vfs = self.world.vfs.borrow_mut();
        vfs.set_umask(umask);
        if vfs.device(&cwd, path).is_some() {
            // A stream: `/dev/zero` and `/dev/urandom` never end, `/dev/null` is empty.
            let input = crate::applets::common::open_path(&vfs, &cwd, path);
            return input
                .map(InHandle::stream)
                .map_err(|e| ExpandError::Failed(e.to_string()));
        }
        let dir = vfs
            .stat(&cwd, path)
            .is_ok_and(|s| s.kind == crate::vfs::FileKind::Dir);
        if dir && !create {
            return Ok(InHandle::directory()); // bash opens it; reading it fails
        }
        if create && !vfs.exists(&cwd, path) {
            vfs.write(&cwd, path, b"")
                .map_err(|e| ExpandError::Failed(e.to_string()))?;
        }
        match vfs.read_shared(&cwd, path) {
            Ok(data) => Ok(InHandle::bytes(data)),
            Err(e) => Err(ExpandError::Failed(e.to_string())),
        }
    }

    fn open_write(&self, path: &str, mode: Mode) -> Result<Rc<OutHandle>, ExpandError> {
        let (cwd, noclobber, umask) = {
            let s = self.state.borrow();
            (s.cwd.clone(), s.opts.noclobber, s.umask)
        };
        let mut vfs = self.world.vfs.borrow_mut();
        // A subshell may have left its own mask there.
        vfs.set_umask(umask);
        if vfs.is_dev_null(&cwd, path) {
            return Ok(OutHandle::new(OutKind::Null));
        }
        let failed = |e: crate::vfs::VfsError| ExpandError::Failed(e.to_string());
        match mode {
            Mode::Truncate { clobber } => {
                let is_file = vfs
                    .stat(&cwd, path)
                    .is_ok_and(|s| s.kind == crate::vfs::FileKind::File);
                if noclobber && !clobber && is_file {
                    return Err(ExpandError::Failed(format!(
                        "{path}: cannot overwrite existing file"
                    )));
                }
                vfs.write(&cwd, path, b"").map_err(failed)?;
            }
            Mode::Append => vfs.append(&cwd, path, b"").map_err(failed)?,
        }
        Ok(OutHandle::new(OutKind::File {
            vfs: Rc::clone(&self.world.vfs),
            cwd,
            path: path.to_string(),
        }))
    }
}

/// Whether `r` is `>&-` or `<&-`.
fn closes(r: &Redirect) -> bool {
    matches!(&r.kind, RedirectKind::DupRead(w) | RedirectKind::DupWrite(w)
        if w.as_literal() == Some("-"))
}

/// The descriptor a path stands for when bash opens it itself.
fn dev_fd(path: &str) -> Option<u32> {
    match path {
        "/dev/stdin" => Some(0),
        "/dev/stdout" => Some(1),
        "/dev/stderr" => Some(2),
        _ => path.strip_prefix("/dev/fd/")?.parse().ok(),
    }
}

/// Makes each of `to` a copy of descriptor `source`.
fn dup(fds: &mut Fds, to: &[u32], source: u32) -> Result<(), ExpandError> {
    let Some(target) = fds.get(source).cloned() else {
        return Err(ExpandError::Failed(format!(
            "{source}: Bad file descriptor"
        )));
    };
    for &fd in to {
        fds.set(fd, Some(target.clone()));
    }
    Ok(())
}

/// The text of a quoted here-document body.
fn literal_text(w: &Word) -> String {
    use crate::shell::ast::WordPart;
    w.parts
        .iter()
        .map(|p| match p {
            WordPart::SingleQuoted(s) | WordPart::Literal(s) => s.clone(),
            _ => String::new(),
        })
        .collect()
}
