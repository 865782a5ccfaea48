//! Table-driven tests for the text applets, and the same tables replayed against the real GNU
//! tools (`cargo test applets::text -- --ignored`) so every expected output is checked
//! against the reference, not typed from memory.

use std::fmt::Write as _;

use crate::applets::testing::{run_in, vfs_with, Outcome};

/// A successful case: arguments, stdin, expected stdout (stderr empty, status 0).
pub type Pass = (&'static [&'static str], &'static str, &'static str);

/// A failing case: arguments, stdin, expected stdout, stderr and exit status.
pub type Fail = (
    &'static [&'static str],
    &'static str,
    &'static str,
    &'static str,
    i32,
);

/// Every case of one applet, with the files they may read.
pub struct Table {
    /// The applet (and the GNU tool) name.
    pub name: &'static str,
    /// Files (path, contents) present in the working directory.
    pub files: &'static [(&'static str, &'static str)],
    /// Cases that succeed.
    pub ok: &'static [Pass],
    /// Cases that fail (or write to stderr).
    pub err: &'static [Fail],
}

impl Table {
    fn expected(&self) -> impl Iterator<Item = (&'static [&'static str], &'static str, Outcome)> {
        let ok = self.ok.iter().map(|&(args, stdin, stdout)| {
            let outcome = Outcome {
                stdout: stdout.into(),
                stderr: String::new(),
                status: 0,
            };
            (args, stdin, outcome)
        });
        let err = self
            .err
            .iter()
            .map(|&(args, stdin, stdout, stderr, status)| {
                let outcome = Outcome {
                    stdout: stdout.into(),
                    stderr: stderr.into(),
                    status,
                };
                (args, stdin, outcome)
            });
        ok.chain(err)
    }

    /// Runs every case against the applet; fails listing every mismatch.
    pub fn check(&self) {
        let mut failures = String::new();
        for (args, stdin, expected) in self.expected() {
            let vfs = vfs_with(self.files);
            let got = run_in(&vfs, self.name, args, stdin);
            if got != expected {
                let _ = writeln!(
                    failures,
                    "{} {args:?} <<< {stdin:?}\n  want {expected:?}\n  got  {got:?}",
                    self.name
                );
            }
        }
        assert!(failures.is_empty(), "\n{failures}");
    }

    /// Runs every case against the real GNU tool in a scratch directory holding the files.
    pub fn check_gnu(&self) {
        let mut failures = String::new();
        for (args, stdin, expected) in self.expected() {
            let got = gnu(self.name, self.files, args, stdin);
            if got != expected {
                let _ = writeln!(
                    failures,
                    "GNU {} {args:?} <<< {stdin:?}\n  want {expected:?}\n  gnu  {}",
                    self.name,
                    literal(args, stdin, &got)
                );
            }
        }
        assert!(failures.is_empty(), "\n{failures}");
    }
}

/// The case GNU's outcome makes, written as a table row.
fn literal(args: &[&str], stdin: &str, got: &Outcome) -> String {
    if got.stderr.is_empty() && got.status == 0 {
        format!("(&{args:?}, {stdin:?}, {:?}),", got.stdout)
    } else {
        format!(
            "(&{args:?}, {stdin:?}, {:?}, {:?}, {}),",
            got.stdout, got.stderr, got.status
        )
    }
}

/// Runs the real tool (bash's builtin for printf and echo, as agents' shells do).
fn gnu(name: &str, files: &[(&str, &str)], args: &[&str], stdin: &str) -> Outcome {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::sync::atomic::{AtomicUsize, Ordering};
    static SERIAL: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "corral-gnu-{}-{}",
        std::process::id(),
        SERIAL.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::create_dir_all(&dir);
    for (path, contents) in files {
        let path = dir.join(path);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let _ = std::fs::write(path, contents);
    }
    let builtin = matches!(name, "printf" | "echo");
    let mut command = if builtin {
        let mut c = Command::new("bash");
        c.arg("-c").arg(format!("{name} \"$@\"")).arg(name);
        c
    } else {
        Command::new(name)
    };
    let child = command
        .args(args)
        .current_dir(&dir)
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        return Outcome {
            stdout: String::new(),
            stderr: format!("cannot run {name}"),
            status: -1,
        };
    };
    if let Some(mut pipe) = child.stdin.take() {
        let _ = pipe.write_all(stdin.as_bytes());
    }
    let output = child.wait_with_output();
    let _ = std::fs::remove_dir_all(&dir);
    let Ok(output) = output else {
        return Outcome {
            stdout: String::new(),
            stderr: String::new(),
            status: -1,
        };
    };
    // Error messages quote the C locale's way (GNU uses curly quotes in UTF-8 locales).
    let mut stderr = String::from_utf8_lossy(&output.stderr).replace(['\u{2018}', '\u{2019}'], "'");
    if builtin {
        stderr = stderr.replace(&format!("{name}: line 1: "), "");
    }
    Outcome {
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr,
        status: output.status.code().unwrap_or(-1),
    }
}
