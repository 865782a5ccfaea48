//! Host requests on the sandbox's files, without running guest code: read, write, append,
//! list, stat, exists, remove, mkdir, link (a hard link), snapshot and restore. Bulk bytes travel as raw blob
//! ranges.

use serde::{Deserialize, Serialize};

use crate::protocol::{Frame, FrameWriter, ProtocolError, Range};
use crate::vfs::{FileKind, Piece, Stat, Vfs, VfsError};

/// Paths given by the host are relative to the starting directory.
const CWD: &str = "/workspace";

/// One file request from the host.
#[derive(Deserialize)]
struct Request {
    op: String,
    #[serde(default)]
    path: String,
    #[serde(default)]
    data: Option<Range>,
    #[serde(default)]
    recursive: bool,
    /// `link`: the existing file that `path` becomes another name of.
    #[serde(default)]
    target: String,
}

/// A directory entry or a stat result, as the host sees it.
#[derive(Serialize)]
struct StatReply {
    kind: &'static str,
    size: u64,
    mtime_ms: f64,
    mode: u32,
    ino: u64,
    nlink: u64,
}

#[derive(Serialize)]
struct EntryReply {
    name: String,
    kind: &'static str,
}

#[derive(Serialize, Default)]
struct Reply {
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<ErrorReply>,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Range>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stat: Option<StatReply>,
    #[serde(skip_serializing_if = "Option::is_none")]
    entries: Option<Vec<EntryReply>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    exists: Option<bool>,
    /// A snapshot, in order: `[0, offset, length]` a range of the blob, `[1, address, length]`
    /// bytes in linear memory (a large file's contents, not copied), valid until the next call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pieces: Option<Vec<(u8, u32, u32)>>,
    generation: u64,
}

/// Files at least this large are referenced in a snapshot, not copied. Only inside the module
/// is an address something the host can read, so elsewhere (unit tests) everything is copied.
const SHARE_FROM: usize = if cfg!(target_arch = "wasm32") {
    64 * 1024
} else {
    usize::MAX
};

fn snapshot_pieces(vfs: &Vfs, writer: &mut FrameWriter) -> Vec<(u8, u32, u32)> {
    let pieces = vfs.snapshot_pieces(SHARE_FROM);
    let (base, _) = writer.push(&pieces.bytes);
    let pieces = pieces.pieces.iter().map(|piece| match piece {
        Piece::Copied(range) => (0, base + range.start as u32, range.len() as u32),
        Piece::Shared(contents) => (1, contents.as_ptr() as usize as u32, contents.len() as u32),
    });
    pieces.collect()
}

#[derive(Serialize)]
struct ErrorReply {
    code: &'static str,
    message: String,
}

fn kind_name(kind: FileKind) -> &'static str {
    match kind {
        FileKind::File => "file",
        FileKind::Dir => "dir",
        FileKind::Symlink => "symlink",
        FileKind::CharDevice => "device",
    }
}

fn stat_reply(stat: Stat) -> StatReply {
    StatReply {
        kind: kind_name(stat.kind),
        size: stat.size,
        mtime_ms: stat.mtime_ms,
        mode: stat.mode,
        ino: stat.ino,
        nlink: stat.nlink,
    }
}

/// Handles one request frame; returns the reply frame.
pub fn handle(vfs: &mut Vfs, frame: &Frame<'_>) -> Result<Vec<u8>, ProtocolError> {
    let request: Request = frame.parse()?;
    let mut writer = FrameWriter::default();
    let mut reply = Reply::default();
    if let Err(error) = apply(vfs, frame, &request, &mut writer, &mut reply)? {
        reply.error = Some(ErrorReply {
            code: error.code.name(),
            message: error.to_string(),
        });
    }
    reply.generation = vfs.generation();
    Ok(writer.finish(&reply))
}

/// A `write` request whose contents are at least `from` bytes long: the path and the contents
/// (inside the request's bytes). The caller moves the contents into a buffer of their own
/// and hands it to [`write_owned`], so that the file is not held twice in linear memory (the
/// host's message, then the file's copy).
pub fn large_write<'a>(
    frame: &Frame<'a>,
    from: usize,
) -> Result<Option<(String, &'a [u8])>, ProtocolError> {
    let request: Request = frame.parse()?;
    match request.data {
        Some(range) if request.op == "write" && range.1 as usize >= from => {
            Ok(Some((request.path, frame.bytes(range)?)))
        }
        _ => Ok(None),
    }
}

/// `write` with contents the guest owns already: kept as the file's buffer, not copied.
pub fn write_owned(vfs: &mut Vfs, path: &str, contents: Vec<u8>) -> Vec<u8> {
    let mut reply = Reply::default();
    if let Err(error) = vfs.write_shared(CWD, path, std::rc::Rc::new(contents)) {
        reply.error = Some(ErrorReply {
            code: error.code.name(),
            message: error.to_string(),
        });
    }
    reply.generation = vfs.generation();
    FrameWriter::default().finish(&reply)
}

/// Performs the request; the outer error is a malformed request, the inner a VFS refusal.
fn apply(
    vfs: &mut Vfs,
    frame: &Frame<'_>,
    request: &Request,
    writer: &mut FrameWriter,
    reply: &mut Reply,
) -> Result<Result<(), VfsError>, ProtocolError> {
    let path = request.path.as_str();
    let data = match request.data {
        Some(range) => frame.bytes(range)?,
        None => &[],
    };
    let result = match request.op.as_str() {
        "read" => vfs
            .read(CWD, path)
            .map(|bytes| reply.data = Some(writer.push(bytes))),
        "write" => vfs.write(CWD, path, data),
        "append" => vfs.append(CWD, path, data),
        "mkdir" if request.recursive => vfs.mkdir_all(CWD, path),
        "mkdir" => vfs.mkdir(CWD, path),
        "remove" if request.recursive => vfs.remove_all(CWD, path),
        "remove" => remove(vfs, path),
        "link" => vfs.link(CWD, &request.target, path, false),
        "stat" => vfs
            .stat(CWD, path)
            .map(|s| reply.stat = Some(stat_reply(s))),
        "exists" => {
            reply.exists = Some(vfs.exists(CWD, path));
            Ok(())
        }
        "list" => vfs.read_dir(CWD, path).map(|entries| {
            let listed = entries.into_iter().map(|(name, kind)| EntryReply {
                name,
                kind: kind_name(kind),
            });
            reply.entries = Some(listed.collect());
        }),
        "snapshot" => {
            reply.pieces = Some(snapshot_pieces(vfs, writer));
            Ok(())
        }
        "restore" => vfs.restore(data),
        other => return Err(ProtocolError(format!("unknown host request {other:?}"))),
    };
    Ok(result)
}

/// `remove` without `recursive`: a file, a link or an empty directory.
fn remove(vfs: &mut Vfs, path: &str) -> Result<(), VfsError> {
    match vfs.lstat(CWD, path) {
        Ok(stat) if stat.kind == FileKind::Dir => vfs.remove_dir(CWD, path),
        Ok(_) => vfs.remove_file(CWD, path),
        Err(error) => Err(error),
    }
}
