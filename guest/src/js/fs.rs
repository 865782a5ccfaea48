//! The native half of JavaScript's `fs` module: synchronous operations on the sandbox's VFS,
//! and `utf8(bytes)`, the lossy UTF-8 decoding behind a read buffer's `toString()`.
//!
//! Each binding returns `[error, result]`: `error` is null or `{code, message}` (Node's
//! message shape, `ENOENT: no such file or directory, open 'x'`), and the prelude turns it into
//! a thrown `Error` with `code`, `syscall` and `path`, as Node does.

use std::cell::RefCell;
use std::rc::Rc;

use rquickjs::{ArrayBuffer, Ctx, FromJs, Function, IntoJs, Object, TypedArray, Value};

use crate::vfs::{FileKind, Stat, Vfs, VfsError};

/// Where relative paths point: the shell's working directory, read at each call.
pub type Cwd = Rc<dyn Fn() -> String>;

type Reply<'js> = rquickjs::Result<Value<'js>>;

/// Defines `native.fs_*` on `native`.
pub fn install<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    vfs: &Rc<RefCell<Vfs>>,
    cwd: &Cwd,
) -> rquickjs::Result<()> {
    let (v, c) = (Rc::clone(vfs), Rc::clone(cwd));
    native.set(
        "fsRead",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, path: String, text: bool| {
                read(&ctx, &v.borrow(), &c(), &path, text)
            },
        )?,
    )?;
    let (v, c) = (Rc::clone(vfs), Rc::clone(cwd));
    native.set(
        "fsWrite",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, path: String, data: Value<'js>, append: bool| {
                let bytes = bytes_of(&data);
                let mut vfs = v.borrow_mut();
                let cwd = c();
                let result = if append {
                    vfs.append(&cwd, &path, &bytes)
                } else {
                    vfs.write(&cwd, &path, &bytes)
                };
                reply(&ctx, result.map_err(|e| (e, "open")), ())
            },
        )?,
    )?;
    native.set(
        "utf8",
        Function::new(ctx.clone(), |data: Value<'js>| {
            String::from_utf8_lossy(&bytes_of(&data)).into_owned()
        })?,
    )?;
    let (v, c) = (Rc::clone(vfs), Rc::clone(cwd));
    native.set(
        "fsOp",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, op: String, path: String, other: String, flag: bool| {
                operation(&ctx, &mut v.borrow_mut(), &c(), &op, &path, &other, flag)
            },
        )?,
    )?;
    Ok(())
}

/// The bytes of a string (UTF-8), an `ArrayBuffer` or a typed array.
fn bytes_of(data: &Value<'_>) -> Vec<u8> {
    if data.is_string() {
        // A lone surrogate is written as U+FFFD (it used to empty the file).
        let text = super::text::Text::from_js(data.ctx(), data.clone());
        return text.map(|t| t.0.into_bytes()).unwrap_or_default();
    }
    if let Some(object) = data.as_object() {
        if let Ok(array) = TypedArray::<u8>::from_object(object.clone()) {
            // SAFETY: the array is alive for this call and the bytes are copied at once.
            return unsafe { array.as_bytes() }
                .map(<[u8]>::to_vec)
                .unwrap_or_default();
        }
        if let Some(buffer) = ArrayBuffer::from_object(object.clone()) {
            // SAFETY: as above.
            return unsafe { buffer.as_bytes() }
                .map(<[u8]>::to_vec)
                .unwrap_or_default();
        }
    }
    Vec::new()
}

fn read<'js>(ctx: &Ctx<'js>, vfs: &Vfs, cwd: &str, path: &str, text: bool) -> Reply<'js> {
    match vfs.read(cwd, path) {
        Ok(bytes) if text => reply(ctx, Ok(()), String::from_utf8_lossy(bytes).into_owned()),
        Ok(bytes) => reply(ctx, Ok(()), ArrayBuffer::new_copy(ctx.clone(), bytes)?),
        Err(error) => reply(ctx, Err((error, "open")), ()),
    }
}

fn operation<'js>(
    ctx: &Ctx<'js>,
    vfs: &mut Vfs,
    cwd: &str,
    op: &str,
    path: &str,
    other: &str,
    flag: bool,
) -> Reply<'js> {
    match op {
        "mkdir" if flag => reply(ctx, vfs.mkdir_all(cwd, path).map_err(|e| (e, "mkdir")), ()),
        "mkdir" => reply(ctx, vfs.mkdir(cwd, path).map_err(|e| (e, "mkdir")), ()),
        "readdir" => match vfs.read_dir(cwd, path) {
            Ok(entries) => {
                let names: Vec<String> = entries.into_iter().map(|(name, _)| name).collect();
                reply(ctx, Ok(()), names)
            }
            Err(error) => reply(ctx, Err((error, "scandir")), ()),
        },
        "stat" | "lstat" => {
            let result = if op == "stat" {
                vfs.stat(cwd, path)
            } else {
                vfs.lstat(cwd, path)
            };
            match result {
                Ok(stat) => reply(ctx, Ok(()), stat_object(ctx, &stat)?),
                Err(error) => reply(ctx, Err((error, op_name(op))), ()),
            }
        }
        "exists" => reply(ctx, Ok(()), vfs.exists(cwd, path)),
        "unlink" => reply(
            ctx,
            vfs.remove_file(cwd, path).map_err(|e| (e, "unlink")),
            (),
        ),
        "rmdir" => reply(ctx, vfs.remove_dir(cwd, path).map_err(|e| (e, "rmdir")), ()),
        "rm" => reply(ctx, remove(vfs, cwd, path, flag).map_err(|e| (e, "rm")), ()),
        "rename" => reply(
            ctx,
            vfs.rename(cwd, path, other).map_err(|e| (e, "rename")),
            (),
        ),
        "link" => reply(
            ctx,
            vfs.link(cwd, path, other, false).map_err(|e| (e, "link")),
            (),
        ),
        "copy" => reply(
            ctx,
            vfs.copy_file(cwd, path, other).map_err(|e| (e, "copyfile")),
            (),
        ),
        _ => Err(rquickjs::Exception::throw_type(
            ctx,
            &format!("unknown fs operation {op}"),
        )),
    }
}

fn op_name(op: &str) -> &'static str {
    if op == "stat" {
        "stat"
    } else {
        "lstat"
    }
}

/// `rm`: a file or link, or with `recursive` a whole tree.
fn remove(vfs: &mut Vfs, cwd: &str, path: &str, recursive: bool) -> Result<(), VfsError> {
    match vfs.lstat(cwd, path) {
        Ok(stat) if stat.kind == FileKind::Dir && !recursive => {
            Err(VfsError::new(crate::vfs::Errno::EISDIR, path))
        }
        Ok(stat) if stat.kind == FileKind::Dir => vfs.remove_all(cwd, path),
        Ok(_) => vfs.remove_file(cwd, path),
        Err(error) => Err(error),
    }
}

fn stat_object<'js>(ctx: &Ctx<'js>, stat: &Stat) -> rquickjs::Result<Object<'js>> {
    let object = Object::new(ctx.clone())?;
    let kind = match stat.kind {
        FileKind::File => "file",
        FileKind::Dir => "dir",
        FileKind::Symlink => "symlink",
        FileKind::CharDevice => "device",
    };
    object.set("kind", kind)?;
    object.set("size", stat.size as f64)?;
    object.set("mtimeMs", stat.mtime_ms)?;
    object.set("mode", stat.mode)?;
    object.set("ino", stat.ino as f64)?;
    object.set("nlink", stat.nlink as f64)?;
    Ok(object)
}

/// `[null, value]` or `[{code, message}, null]`.
fn reply<'js, T: IntoJs<'js>>(
    ctx: &Ctx<'js>,
    status: Result<(), (VfsError, &str)>,
    value: T,
) -> Reply<'js> {
    let pair = rquickjs::Array::new(ctx.clone())?;
    match status {
        Ok(()) => {
            pair.set(0, Value::new_null(ctx.clone()))?;
            pair.set(1, value)?;
        }
        Err((error, syscall)) => {
            let info = Object::new(ctx.clone())?;
            info.set("code", error.code.name())?;
            info.set("errno", -error.code.number())?;
            info.set("message", error.node_message(syscall))?;
            info.set("syscall", syscall)?;
            info.set("path", error.path.clone())?;
            pair.set(0, info)?;
            pair.set(1, Value::new_null(ctx.clone()))?;
        }
    }
    Ok(pair.into_value())
}
