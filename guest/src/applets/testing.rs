//! Running an applet in unit tests: given arguments, stdin and files, get stdout, stderr and
//! the exit status. `run("cat", &["-n"], "a\nb\n")` is the one-line form.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::task::Poll;

use super::{lookup, Commands, Ctx, Host, HostError, ToolInfo};
use crate::task::{run_until_stalled, Input, LocalFuture, Output, Sink};
use crate::vfs::{Vfs, VfsLimits};

/// What an applet produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Everything written to stdout.
    pub stdout: String,
    /// Everything written to stderr.
    pub stderr: String,
    /// The exit status.
    pub status: i32,
}

/// A host for tests: tools echo their arguments, time stands at 1,700,000,000 s, sleep returns
/// at once, and commands run as applets directly (there is no shell here).
pub struct TestHost {
    /// The filesystem commands run against.
    pub vfs: Rc<RefCell<Vfs>>,
}

impl Host for TestHost {
    fn call_tool(
        &self,
        name: &str,
        args_json: String,
    ) -> LocalFuture<'static, Result<String, HostError>> {
        let reply = format!(
            "{{\"tool\":{},\"args\":{args_json}}}",
            serde_json::Value::from(name)
        );
        Box::pin(async move { Ok(reply) })
    }

    fn sleep(&self, _ms: f64) -> LocalFuture<'static, ()> {
        Box::pin(async {})
    }

    fn now_ms(&self) -> f64 {
        1_700_000_000_000.0
    }

    fn tools(&self) -> Vec<ToolInfo> {
        Vec::new()
    }
}

impl Commands for TestHost {
    fn exec(
        &self,
        argv: Vec<String>,
        cwd: String,
        env: Option<BTreeMap<String, String>>,
        stdin: Input,
        stdout: Output,
        stderr: Output,
    ) -> LocalFuture<'static, i32> {
        let vfs = Rc::clone(&self.vfs);
        // There is no shell here: `sh -c "applet args"` runs the applet with the words.
        let argv = match argv.as_slice() {
            [sh, c, line] if sh == "sh" && c == "-c" => {
                line.split_whitespace().map(str::to_string).collect()
            }
            _ => argv,
        };
        Box::pin(async move {
            let Some((name, args)) = argv.split_first() else {
                return 0;
            };
            let Some(applet) = lookup(name) else {
                return 127;
            };
            let host = Rc::new(TestHost {
                vfs: Rc::clone(&vfs),
            });
            let commands = Rc::clone(&host);
            let ctx = Ctx {
                name: name.clone(),
                args: args.to_vec(),
                stdin,
                stdout,
                stderr,
                cwd,
                env: Rc::new(env.unwrap_or_default()),
                vfs,
                host,
                commands,
            };
            applet.start(ctx).await
        })
    }
}

/// A fresh VFS with `files` (path, contents) written under `/workspace`.
pub fn vfs_with(files: &[(&str, &str)]) -> Rc<RefCell<Vfs>> {
    let mut vfs = Vfs::new(VfsLimits::default(), Box::new(|| 1_700_000_000_000.0));
    for (path, contents) in files {
        if let Some((dir, _)) = path.rsplit_once('/') {
            let _ = vfs.mkdir_all("/workspace", dir);
        }
        let _ = vfs.write("/workspace", path, contents.as_bytes());
    }
    Rc::new(RefCell::new(vfs))
}

/// Runs applet `name` with `args` and `stdin` in `/workspace` of `vfs`.
pub fn run_in(vfs: &Rc<RefCell<Vfs>>, name: &str, args: &[&str], stdin: &str) -> Outcome {
    let out = Rc::new(RefCell::new(Vec::new()));
    let err = Rc::new(RefCell::new(Vec::new()));
    let host = TestHost {
        vfs: Rc::clone(vfs),
    };
    let argv = std::iter::once(name)
        .chain(args.iter().copied())
        .map(str::to_string)
        .collect();
    let mut future = host.exec(
        argv,
        "/workspace".to_string(),
        None,
        Input::bytes(Rc::new(stdin.as_bytes().to_vec())),
        Output::new(Sink::Buffer(Rc::clone(&out))),
        Output::new(Sink::Buffer(Rc::clone(&err))),
    );
    let status = match run_until_stalled(&mut future) {
        Poll::Ready(status) => status,
        Poll::Pending => -1, // blocked forever: a bug in the applet or the test
    };
    let text = |buf: &Rc<RefCell<Vec<u8>>>| String::from_utf8_lossy(&buf.borrow()).into_owned();
    Outcome {
        stdout: text(&out),
        stderr: text(&err),
        status,
    }
}

/// Runs applet `name` with `args` and `stdin` in an empty `/workspace`.
pub fn run(name: &str, args: &[&str], stdin: &str) -> Outcome {
    run_in(&vfs_with(&[]), name, args, stdin)
}

/// The outcome of a successful run that printed `stdout` only.
pub fn ok(stdout: &str) -> Outcome {
    Outcome {
        stdout: stdout.to_string(),
        stderr: String::new(),
        status: 0,
    }
}
