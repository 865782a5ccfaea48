//! Test helpers for this group: runs with a chosen directory or environment, outcomes with
//! stderr, and a dump of a VFS tree to compare whole results.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::task::Poll;

use crate::applets::testing::{Outcome, TestHost};
use crate::applets::{lookup, Ctx};
use crate::task::{run_until_stalled, Input, LocalFuture, Output, Sink};
use crate::vfs::{FileKind, Vfs};

/// A run that printed only `stderr` and exited with `status`.
pub fn err(stderr: &str, status: i32) -> Outcome {
    Outcome {
        stdout: String::new(),
        stderr: stderr.to_string(),
        status,
    }
}

/// A run with both outputs.
pub fn both(stdout: &str, stderr: &str, status: i32) -> Outcome {
    Outcome {
        stdout: stdout.to_string(),
        stderr: stderr.to_string(),
        status,
    }
}

/// Runs `name` in `cwd` with `env` and `stdin`.
pub fn run_full(
    vfs: &Rc<RefCell<Vfs>>,
    cwd: &str,
    env: &[(&str, &str)],
    name: &str,
    args: &[&str],
    stdin: &[u8],
) -> (Vec<u8>, String, i32) {
    let out = Rc::new(RefCell::new(Vec::new()));
    let errs = Rc::new(RefCell::new(Vec::new()));
    let Some(applet) = lookup(name) else {
        return (Vec::new(), format!("{name}: not found"), 127);
    };
    let env: BTreeMap<String, String> = env
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let ctx = Ctx {
        name: name.to_string(),
        args: args.iter().map(|s| s.to_string()).collect(),
        stdin: Input::bytes(Rc::new(stdin.to_vec())),
        stdout: Output::new(Sink::Buffer(Rc::clone(&out))),
        stderr: Output::new(Sink::Buffer(Rc::clone(&errs))),
        cwd: cwd.to_string(),
        env: Rc::new(env),
        vfs: Rc::clone(vfs),
        host: Rc::new(TestHost {
            vfs: Rc::clone(vfs),
        }),
        commands: Rc::new(TestHost {
            vfs: Rc::clone(vfs),
        }),
    };
    let mut future: LocalFuture<'static, i32> = applet.start(ctx);
    let status = match run_until_stalled(&mut future) {
        Poll::Ready(status) => status,
        Poll::Pending => -1,
    };
    drop(future);
    let stdout = out.borrow().clone();
    let stderr = String::from_utf8_lossy(&errs.borrow()).into_owned();
    (stdout, stderr, status)
}

/// Runs `name` with working directory `cwd`.
pub fn run_at(vfs: &Rc<RefCell<Vfs>>, cwd: &str, name: &str, args: &[&str]) -> Outcome {
    let (stdout, stderr, status) = run_full(vfs, cwd, &[], name, args, b"");
    Outcome {
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr,
        status,
    }
}

/// Runs `name` in `/workspace` with binary stdin; stdout comes back as bytes.
pub fn run_bytes(
    vfs: &Rc<RefCell<Vfs>>,
    name: &str,
    args: &[&str],
    stdin: &[u8],
) -> (Vec<u8>, String, i32) {
    run_full(vfs, "/workspace", &[], name, args, stdin)
}

/// Every entry below `/workspace` as `path` (files with `=contents`, `dir/`, `link->target`),
/// one per line, in order.
pub fn tree(vfs: &Rc<RefCell<Vfs>>) -> String {
    let vfs = vfs.borrow();
    let mut lines = Vec::new();
    walk(&vfs, "/workspace", "", &mut lines);
    lines.join("\n")
}

fn walk(vfs: &Vfs, dir: &str, prefix: &str, lines: &mut Vec<String>) {
    for (name, kind) in vfs.read_dir("/", dir).unwrap_or_default() {
        let path = format!("{prefix}{name}");
        let full = format!("{dir}/{name}");
        match kind {
            FileKind::Dir => {
                lines.push(format!("{path}/"));
                walk(vfs, &full, &format!("{path}/"), lines);
            }
            FileKind::Symlink => {
                let target = vfs.read_link("/", &full).unwrap_or_default();
                lines.push(format!("{path}->{target}"));
            }
            _ => {
                let data = vfs.read("/", &full).unwrap_or_default();
                lines.push(format!("{path}={}", String::from_utf8_lossy(data)));
            }
        }
    }
}

/// The mtime of `path` in seconds (or -1 when missing).
pub fn mtime(vfs: &Rc<RefCell<Vfs>>, path: &str) -> f64 {
    vfs.borrow()
        .lstat("/workspace", path)
        .map_or(-1.0, |s| s.mtime_ms / 1000.0)
}

/// Sets the mtime of `path` to `secs`.
pub fn set_mtime(vfs: &Rc<RefCell<Vfs>>, path: &str, secs: f64) {
    let _ = vfs
        .borrow_mut()
        .set_mtime("/workspace", path, Some(secs * 1000.0));
}
