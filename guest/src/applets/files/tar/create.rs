//! `tar -c`: write headers and contents, depth first in name order, through gzip with `-z`.
//! A file's second and later names are hard-link members, as GNU tar writes them.

use std::collections::HashMap;
use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;

use super::header::{encode, padding, Kind, Member, BLOCK};
use super::read::long_line;
use super::{exit_status, tar_usage, Options};
use crate::applets::common::warn;
use crate::applets::common::{err_str, join, out_str, quote_if_needed, Exit, Res};
use crate::applets::Ctx;
use crate::task::{Output, Sink, WriteError};
use crate::vfs::{resolve, FileKind};

/// Where archive bytes go: stdout or a file, optionally through gzip.
pub struct ArchiveOut {
    output: Output,
    gzip: Option<GzEncoder<Vec<u8>>>,
    /// Uncompressed bytes written, for the final record padding.
    written: u64,
}

impl ArchiveOut {
    async fn put(&mut self, data: &[u8]) -> Result<(), WriteError> {
        self.written += data.len() as u64;
        match &mut self.gzip {
            Some(encoder) => {
                // Writing into a Vec cannot fail.
                let _ = encoder.write_all(data);
                let packed = std::mem::take(encoder.get_mut());
                self.output.write(&packed).await
            }
            None => self.output.write(data).await,
        }
    }

    async fn finish(&mut self) -> Result<(), WriteError> {
        let record = 20 * BLOCK as u64;
        let end = (self.written + 2 * BLOCK as u64).div_ceil(record) * record;
        let zeros = vec![0u8; (end - self.written) as usize];
        self.put(&zeros).await?;
        if let Some(encoder) = &mut self.gzip {
            let _ = encoder.try_finish();
            let packed = std::mem::take(encoder.get_mut());
            self.output.write(&packed).await?;
        }
        self.output.flush().await
    }
}

/// Maps a failed archive write to the exit status (and reports a refused one).
async fn write_failed(ctx: &mut Ctx, err: WriteError) -> Exit {
    match err {
        WriteError::BrokenPipe => Exit(141),
        WriteError::Refused(message) => {
            warn(ctx, message).await;
            Exit(2)
        }
    }
}

/// Runs `tar -c`.
pub async fn create(ctx: &mut Ctx, o: &Options, operands: &[String]) -> Res<i32> {
    if operands.is_empty() {
        return Ok(tar_usage(ctx, "Cowardly refusing to create an empty archive").await);
    }
    let base = match &o.directory {
        Some(dir) => resolve(&ctx.cwd, dir),
        None => ctx.cwd.clone(),
    };
    if !ctx
        .vfs
        .borrow()
        .stat("/", &base)
        .is_ok_and(|s| s.kind == FileKind::Dir)
    {
        let dir = o.directory.clone().unwrap_or_default();
        warn(ctx, format_args!("{dir}: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now")).await;
        return Ok(2);
    }
    let to_stdout = o.archive == "-";
    let output = if to_stdout {
        std::mem::replace(&mut ctx.stdout, Output::new(Sink::Null))
    } else {
        let created = ctx.vfs.borrow_mut().write(&ctx.cwd, &o.archive, b"");
        if let Err(e) = created {
            let message = format!(
                "{}: Cannot open: {}\ntar: Error is not recoverable: exiting now",
                o.archive, e.code
            );
            warn(ctx, message).await;
            return Ok(2);
        }
        Output::new(Sink::File {
            vfs: ctx.vfs.clone(),
            cwd: ctx.cwd.clone(),
            path: o.archive.clone(),
        })
    };
    let gzip = o
        .gzip
        .then(|| GzEncoder::new(Vec::new(), Compression::new(6)));
    let mut archive = ArchiveOut {
        output,
        gzip,
        written: 0,
    };
    let archive_path = if to_stdout {
        None
    } else {
        ctx.vfs.borrow().canonicalize(&ctx.cwd, &o.archive).ok()
    };
    let result = add_all(
        ctx,
        o,
        operands,
        &base,
        archive_path.as_deref(),
        &mut archive,
        to_stdout,
    )
    .await;
    let finished = match result {
        Ok(failed) => archive.finish().await.map(|()| failed),
        Err(e) => Err(e),
    };
    if to_stdout {
        ctx.stdout = archive.output;
    }
    match finished {
        Ok(failed) => Ok(exit_status(ctx, failed).await),
        Err(e) => Err(write_failed(ctx, e).await),
    }
}

/// Adds every operand; Ok(true) when some could not be archived.
async fn add_all(
    ctx: &mut Ctx,
    o: &Options,
    operands: &[String],
    base: &str,
    archive_path: Option<&str>,
    archive: &mut ArchiveOut,
    to_stdout: bool,
) -> Result<bool, WriteError> {
    let mut failed = false;
    // The prefixes removed from member names so far: each is reported once, as GNU's does.
    let mut removed: Vec<String> = Vec::new();
    let mut widths = 19;
    // The member name of each file with several names, by inode: its other names are stored
    // as hard-link members (typeflag '1') pointing at it.
    let mut linked: HashMap<u64, String> = HashMap::new();
    for operand in operands {
        let mut stack = vec![operand.clone()];
        let mut members = 0u32;
        while let Some(path) = stack.pop() {
            let (name, prefix) = stored_name(&path, o.absolute);
            if !prefix.is_empty() && !removed.contains(&prefix) {
                let message = format!("Removing leading `{prefix}' from member names");
                warn(ctx, message).await;
                removed.push(prefix);
            }
            // Writes to a file never wait: yield now and then, for the deadline (`tar -ch` of
            // a directory holding two links to itself walks 2^40 paths, as GNU's does).
            members = members.wrapping_add(1);
            if members.is_multiple_of(256) {
                crate::task::yield_now().await;
            }
            if o.excluded(&name) {
                continue;
            }
            let stat = {
                let vfs = ctx.vfs.borrow();
                if o.dereference {
                    vfs.stat(base, &path)
                } else {
                    vfs.lstat(base, &path)
                }
            };
            let stat = match stat {
                Ok(stat) => stat,
                Err(e) => {
                    warn(
                        ctx,
                        format_args!("{}: Cannot stat: {}", quote_if_needed(&path), e.code),
                    )
                    .await;
                    failed = true;
                    continue;
                }
            };
            let canonical = ctx.vfs.borrow().canonicalize(base, &path).ok();
            if archive_path.is_some() && canonical.as_deref() == archive_path {
                warn(ctx, format_args!("{path}: file is the archive; not dumped")).await;
                continue;
            }
            let mut member = Member {
                name: name.clone(),
                kind: Kind::File,
                mode: stat.mode,
                size: 0,
                mtime: (stat.mtime_ms / 1000.0).floor() as i64,
                link: String::new(),
                owner: ("user".to_string(), "user".to_string()),
            };
            let mut data = None;
            match stat.kind {
                FileKind::Dir => {
                    member.kind = Kind::Dir;
                    if !member.name.ends_with('/') {
                        member.name.push('/');
                    }
                    let entries = ctx.vfs.borrow().read_dir(base, &path).unwrap_or_default();
                    for (child, _) in entries.iter().rev() {
                        stack.push(join(&path, child));
                    }
                }
                FileKind::Symlink => {
                    member.kind = Kind::Symlink;
                    member.link = ctx.vfs.borrow().read_link(base, &path).unwrap_or_default();
                }
                FileKind::File if stat.nlink > 1 && linked.contains_key(&stat.ino) => {
                    member.kind = Kind::HardLink;
                    member.link = linked.get(&stat.ino).cloned().unwrap_or_default();
                }
                FileKind::File => {
                    if stat.nlink > 1 {
                        linked.insert(stat.ino, member.name.clone());
                    }
                    let bytes = ctx
                        .vfs
                        .borrow()
                        .read_shared(base, &path)
                        .unwrap_or_default();
                    member.size = bytes.len() as u64;
                    data = Some(bytes);
                }
                FileKind::CharDevice => {
                    member.kind = Kind::Other(b'3');
                }
            }
            if o.verbose > 0 {
                // GNU's lists the name as given, before the prefix is removed.
                let mut shown = member.clone();
                shown.name = path.clone();
                if member.kind == Kind::Dir && !path.ends_with('/') {
                    shown.name.push('/');
                }
                let line = if o.verbose > 1 {
                    long_line(&shown, &mut widths)
                } else {
                    format!("{}\n", shown.name)
                };
                if to_stdout {
                    err_str(ctx, &line).await;
                } else if let Err(e) = out_str(ctx, &line).await {
                    return Err(match e {
                        Exit(141) => WriteError::BrokenPipe,
                        _ => WriteError::Refused("write error".to_string()),
                    });
                }
            }
            archive.put(&encode(&member)).await?;
            if let Some(bytes) = data {
                archive.put(&bytes).await?;
                archive.put(&vec![0u8; padding(bytes.len() as u64)]).await?;
            }
        }
    }
    Ok(failed)
}

/// The member name of a path and the prefix removed from it: unless `-P`, GNU's tar drops
/// everything up to the last `..` component and then leading `/`s, so that extracting the
/// archive cannot climb out of the directory it is extracted in.
fn stored_name(path: &str, absolute: bool) -> (String, String) {
    if absolute {
        return (path.to_string(), String::new());
    }
    let mut cut = 0;
    let mut start = 0;
    for part in path.split('/') {
        let end = start + part.len();
        if part == ".." {
            cut = end;
        }
        start = end + 1;
    }
    let rest = path[cut..].trim_start_matches('/');
    let prefix = path[..path.len() - rest.len()].to_string();
    let name = if rest.is_empty() { "." } else { rest };
    (name.to_string(), prefix)
}
