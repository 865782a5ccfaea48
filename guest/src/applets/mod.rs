//! The shell's commands written in Rust ("applets"): an explicit registry, one file per
//! small applet, shared helpers in `common/`, and big applets (grep, sed, awk) in folders.
//!
//! Every applet is an async function of a [`Ctx`]: its arguments, its standard streams, the
//! working directory, the exported environment, the VFS, the [`Host`] (tool calls, sleep,
//! the clock) and [`Commands`] (running other commands). It returns the exit status. Applets never block the
//! guest: reading an empty pipe or waiting on the host suspends the task.

pub mod common;

mod awk;
mod bc;
mod files;
mod grep;
mod jq;
mod sed;
mod text;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use crate::task::{Input, LocalFuture, Output};
use crate::vfs::Vfs;
pub use common::Help;
pub use text::echo_text;

/// How a host operation failed: `capability`, `tool`, `argument`, ... and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostError {
    /// The failure kind, as the host reported it.
    pub kind: String,
    /// The message for the user.
    pub message: String,
}

/// A tool the host offers, as `tool --list` shows it.
#[derive(Debug, Clone)]
pub struct ToolInfo {
    /// Canonical name.
    pub name: String,
    /// One-paragraph description.
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: serde_json::Value,
}

/// What an applet may ask of the world outside the guest: host tools, sleeps and the clock.
/// Each becomes a host operation (checked and answered by the host) or a host import.
pub trait Host {
    /// Calls host tool `name` with a JSON object; resolves to the result's JSON text.
    fn call_tool(
        &self,
        name: &str,
        args_json: String,
    ) -> LocalFuture<'static, Result<String, HostError>>;
    /// Waits `ms` milliseconds (through the host, so replay is exact).
    fn sleep(&self, ms: f64) -> LocalFuture<'static, ()>;
    /// Milliseconds since the Unix epoch (through the host).
    fn now_ms(&self) -> f64;
    /// The tools the code may call.
    fn tools(&self) -> Vec<ToolInfo>;
}

/// Running another command, as `xargs`, `find -exec`, `env CMD` and awk's `system()` do: the
/// shell provides it (a subshell of the one running the applet).
pub trait Commands {
    /// Runs a command line (a builtin, function or applet) with these streams, as `xargs` and
    /// `find -exec` need; resolves to its exit status. `env`: the exported environment it gets
    /// instead of the shell's (`env -i`, `env NAME=VALUE`).
    fn exec(
        &self,
        argv: Vec<String>,
        cwd: String,
        env: Option<BTreeMap<String, String>>,
        stdin: Input,
        stdout: Output,
        stderr: Output,
    ) -> LocalFuture<'static, i32>;
}

/// Everything an applet runs with.
pub struct Ctx {
    /// The name it was invoked as (`egrep`, `[`...).
    pub name: String,
    /// Its arguments (without the name).
    pub args: Vec<String>,
    /// Standard input.
    pub stdin: Input,
    /// Standard output.
    pub stdout: Output,
    /// Standard error.
    pub stderr: Output,
    /// The working directory (absolute).
    pub cwd: String,
    /// The exported environment.
    pub env: Rc<BTreeMap<String, String>>,
    /// The filesystem.
    pub vfs: Rc<RefCell<Vfs>>,
    /// The world outside.
    pub host: Rc<dyn Host>,
    /// Running other commands.
    pub commands: Rc<dyn Commands>,
}

/// An applet: its name, a one-line usage for `--help`, where it looks for `--help`, and its
/// entry point.
pub struct Applet {
    /// The command name.
    pub name: &'static str,
    /// Usage and the flags it supports, printed by `NAME --help`.
    pub usage: &'static str,
    /// Where `--help` asks for the usage (the registry answers it: see [`Applet::start`]).
    pub help: Help,
    /// Runs the applet; resolves to the exit status.
    pub run: fn(Ctx) -> LocalFuture<'static, i32>,
}

impl Applet {
    /// Runs the applet with `ctx`: the one way in. It answers `--help` (printing `Usage: `
    /// and the usage) and `--version` by the applet's [`Help`] rule, so applets never check
    /// for them.
    pub fn start(&'static self, mut ctx: Ctx) -> LocalFuture<'static, i32> {
        if self.help.asked(&ctx.args, "--help") {
            return Box::pin(async move { common::print_help(&mut ctx, self.usage).await });
        }
        if self.help.asked(&ctx.args, "--version") {
            return Box::pin(async move { common::print_version(&mut ctx, self.name).await });
        }
        let mut stderr = ctx.stderr.dup();
        let run = (self.run)(ctx);
        Box::pin(async move {
            let (status, long) = crate::task::watch_lines(run).await;
            if !long {
                return status;
            }
            let message = format!("{}: {}\n", self.name, crate::task::LINE_TOO_LONG);
            let _ = stderr.write_str(&message).await;
            let _ = stderr.flush().await;
            1
        })
    }
}

/// Builtins that also exist as programs in `/usr/bin` (`type -a test` lists both, and
/// `/bin/test` runs the builtin): the shell runs them, `busybox` knows them.
pub const BUILTIN_FILES: &[&str] = &[
    "[", "bash", "echo", "false", "kill", "printf", "pwd", "sh", "test", "true", "which",
];

/// Whether `/usr/bin/NAME` (and `/bin/NAME`) exists: an applet or a builtin's program.
pub fn in_applet_dirs(name: &str) -> bool {
    lookup(name).is_some() || BUILTIN_FILES.contains(&name)
}

/// Every group's applets; each group lists its own in its `mod.rs`.
const GROUPS: &[&[&Applet]] = &[
    text::APPLETS,
    files::APPLETS,
    grep::APPLETS,
    sed::APPLETS,
    awk::APPLETS,
    jq::APPLETS,
    bc::APPLETS,
];

/// Every applet, in registry order.
pub fn all() -> impl Iterator<Item = &'static Applet> {
    GROUPS.iter().flat_map(|group| group.iter().copied())
}

/// The applet called `name`, if there is one.
pub fn lookup(name: &str) -> Option<&'static Applet> {
    all().find(|applet| applet.name == name)
}

#[cfg(test)]
pub mod testing;

/// Parse-only entry points of the applets that have a language of their own: each parses (and
/// compiles) a program without running it. The fuzz targets (`guest/fuzz/`) call them.
pub mod parsers {
    pub use super::awk::check_program as awk;
    pub use super::bc::check_program as bc;
    pub use super::jq::{check_filter as jq, check_input as jq_json};
    pub use super::sed::check_script as sed;
}

#[cfg(test)]
mod tests {
    use super::testing::run;
    use super::{all, Help};

    #[test]
    fn the_registry_answers_version_where_it_answers_help() {
        let version = |name: &str, args: &[&str]| run(name, args, "").stdout;
        assert!(version("ls", &["--version"]).starts_with("ls (GNU coreutils) 9.1\n"));
        assert!(version("cat", &["x", "--version"]).starts_with("cat (GNU coreutils) 9.1\n"));
        assert!(version("find", &["--version"]).starts_with("find (GNU findutils) 4.9.0\n"));
        assert!(version("patch", &["--version"]).starts_with("GNU patch 2.7.6\n"));
        // Where `--help` is not an option, neither is `--version`.
        assert_eq!(version("printf", &["%s", "--version"]), "--version");
        assert_eq!(version("echo", &["--version"]), "--version\n");
    }

    #[test]
    fn the_registry_answers_help_by_each_applets_rule() {
        for applet in all().filter(|a| a.help != Help::Own) {
            let out = run(applet.name, &["--help"], "");
            let want = format!("Usage: {}", applet.name);
            assert!(out.stdout.starts_with(&want), "{}: {out:?}", applet.name);
            assert_eq!(
                (out.status, out.stderr.as_str()),
                (0, ""),
                "{}",
                applet.name
            );
        }
        // Applets with a rule of their own: echo prints it, false still fails.
        assert_eq!(run("echo", &["--help"], "").stdout, "--help\n");
        let help = run("false", &["--help"], "");
        assert_eq!(
            (help.status, help.stdout.starts_with("Usage: false")),
            (1, true)
        );
        assert!(run("grep", &["--help"], "")
            .stdout
            .starts_with("Usage: grep"));
        // Where each rule looks.
        assert!(run("cat", &["x", "--help"], "")
            .stdout
            .starts_with("Usage: cat"));
        assert_eq!(run("cat", &["--", "--help"], "").status, 1);
        assert_eq!(run("printf", &["%s", "--help"], "").stdout, "--help");
        assert_eq!(run("expr", &["--help", "=", "x"], "").stdout, "0\n");
        assert_eq!(run("env", &["echo", "--help"], "").stdout, "--help\n");
        assert!(run("env", &["-i", "--help"], "")
            .stdout
            .starts_with("Usage: env"));
    }

    #[test]
    fn registry_names_are_unique() {
        let mut names: Vec<_> = all().map(|a| a.name).collect();
        let count = names.len();
        crate::sort::sort(&mut names);
        names.dedup();
        assert_eq!(names.len(), count);
    }
}
