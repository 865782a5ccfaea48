//! Interpreter tests: what bash cannot show (tool calls, deadlines, streaming, limits, saved
//! sessions). Scripts compared with real bash run through the public API, in
//! `tests/differential/*.cases`.

mod host;
mod limits;
mod session;

use std::cell::RefCell;
use std::rc::Rc;
use std::task::Poll;

use super::Shell;
use crate::output;
use crate::task::{run_until_stalled, Deadline, Input};
use crate::vfs::{Vfs, VfsLimits};

/// The files every session starts with, under `/workspace` (as in `shell-gnu.cases`).
pub const FIXTURE: &[(&str, &str)] = &[
    ("a.txt", "apple\nbanana\ncherry\n"),
    ("b.txt", "one\ntwo\n"),
    ("c.md", "# title\n"),
    (".hidden", "secret\n"),
    ("data.csv", "name,age\nalice,30\nbob,25\ncarol,35\n"),
    ("empty.txt", ""),
    ("src/main.rs", "fn main() {}\n"),
    ("src/lib.rs", "pub fn f() {}\n"),
    ("src/util/mod.rs", "mod x;\n"),
    (
        "script.sh",
        "#!/bin/bash\necho \"script: $# ${1:-none}\"\nexit 3\n",
    ),
];

/// What a script printed and its status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub status: i32,
}

/// A session over a fresh fixture.
pub struct Harness {
    pub shell: Shell,
    pub vfs: Rc<RefCell<Vfs>>,
    pub deadline: Rc<Deadline>,
    pub host: Rc<host::CaseHost>,
}

impl Harness {
    pub fn new() -> Harness {
        Harness::with_limits(VfsLimits::default())
    }

    /// A session whose VFS has the quotas `limits`.
    pub fn with_limits(limits: VfsLimits) -> Harness {
        let mut vfs = Vfs::new(limits, Box::new(|| 1_700_000_000_000.0));
        for (path, contents) in FIXTURE {
            if let Some((dir, _)) = path.rsplit_once('/') {
                let _ = vfs.mkdir_all("/workspace", dir);
            }
            let _ = vfs.write("/workspace", path, contents.as_bytes());
        }
        let vfs = Rc::new(RefCell::new(vfs));
        let out = Rc::new(RefCell::new(output::Output {
            cap: 1 << 30,
            ..output::Output::default()
        }));
        let deadline = Rc::new(Deadline::default());
        let host = Rc::new(host::CaseHost::new(Rc::clone(&vfs)));
        let shell = Shell::new(Rc::clone(&vfs), host.clone(), out, Rc::clone(&deadline));
        Harness {
            shell,
            vfs,
            deadline,
            host,
        }
    }

    /// Runs `script` with `stdin`, capturing its output.
    pub fn run_with_stdin(&self, script: &str, stdin: &str) -> Outcome {
        let mut future = self
            .shell
            .capture(script, Input::bytes(Rc::new(stdin.as_bytes().to_vec())));
        match run_until_stalled(&mut future) {
            Poll::Ready((status, out, err)) => Outcome {
                stdout: String::from_utf8_lossy(&out).into_owned(),
                stderr: String::from_utf8_lossy(&err).into_owned(),
                status,
            },
            Poll::Pending => Outcome {
                stdout: String::new(),
                stderr: "STALLED".into(),
                status: -1,
            },
        }
    }

    /// Runs `script` with empty stdin.
    pub fn run(&self, script: &str) -> Outcome {
        self.run_with_stdin(script, "")
    }

    /// A file's contents.
    pub fn file(&self, path: &str) -> String {
        match self.vfs.borrow().read("/workspace", path) {
            Ok(bytes) => String::from_utf8_lossy(bytes).into_owned(),
            Err(e) => format!("<{e}>"),
        }
    }
}

/// Runs one script in a fresh session.
pub fn run(script: &str) -> Outcome {
    Harness::new().run(script)
}

/// Runs `$CORRAL_SCRIPT` in a fresh session and prints the outcome:
/// `CORRAL_SCRIPT='echo hi' cargo test adhoc_script -- --ignored --nocapture`.
#[test]
#[ignore]
fn adhoc_script() {
    let script = std::env::var("CORRAL_SCRIPT").unwrap_or_default();
    let o = run(&script);
    println!(
        "--- stdout\n{}--- stderr\n{}--- status {}",
        o.stdout, o.stderr, o.status
    );
}

/// Runs the cases in the JSON file `$CORRAL_CASES` (a list of `{name, script}`), each in a fresh
/// session over an empty workspace, and prints one JSON line `{name, stdout, status}` per case:
/// a quick native check of `tests/differential/*.cases` before building the module.
#[test]
#[ignore]
fn adhoc_cases() {
    let child = std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(adhoc_cases_run);
    let _ = child.map(|c| c.join());
}

fn adhoc_cases_run() {
    let Ok(path) = std::env::var("CORRAL_CASES") else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap_or_default();
    for case in cases {
        let vfs = Rc::new(RefCell::new(Vfs::new(
            VfsLimits::default(),
            Box::new(|| 1_700_000_000_000.0),
        )));
        let out = Rc::new(RefCell::new(output::Output {
            cap: 1 << 30,
            ..output::Output::default()
        }));
        let deadline = Rc::new(Deadline::default());
        let host = Rc::new(host::CaseHost::new(Rc::clone(&vfs)));
        let shell = Shell::new(Rc::clone(&vfs), host, out, deadline);
        let h = Harness {
            shell,
            vfs,
            deadline: Rc::new(Deadline::default()),
            host: Rc::new(host::CaseHost::new(Rc::new(RefCell::new(Vfs::new(
                VfsLimits::default(),
                Box::new(|| 0.0),
            ))))),
        };
        let o = h.run(case["script"].as_str().unwrap_or(""));
        let line = serde_json::json!({"name": case["name"], "stdout": o.stdout,
            "stderr": o.stderr, "status": o.status});
        println!("CASE {line}");
    }
}
