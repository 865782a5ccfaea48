//! Shell builtins: commands that read or change the shell itself (`cd`, `export`, `read`,
//! `set`...), one file each, listed in one explicit registry. A builtin is an async function
//! of a [`Ctx`] resolving to a [`Flow`], so `return`, `exit`, `break` are data.

mod alias;
mod bash;
mod builtin;
mod cd;
mod command;
mod complete;
mod declare;
mod dirs;
mod echo;
mod enable;
mod eval;
mod exec;
mod exit;
mod export;
mod getopts;
mod hash;
mod help;
mod history;
mod jobs;
mod kill;
mod let_;
mod local;
mod loopctl;
mod mapfile;
mod printf;
mod pwd;
mod read;
pub(crate) use read::read_reply;
mod readonly;
mod return_;
mod set;
mod shift;
mod shopt;
mod source;
mod test;
mod time;
mod tool;
mod trap;
mod trivial;
mod type_;
mod ulimit;
mod umask;
mod unset;
mod wait;
mod which;

use crate::shell::interp::exec::simple::ArgValue;
use crate::shell::interp::io::Fds;
use crate::shell::interp::{Flow, Sh};
use crate::task::LocalFuture;

/// What a builtin runs with.
pub(crate) struct Ctx {
    /// The shell it runs in.
    pub sh: Sh,
    /// Its name and arguments, as text.
    pub argv: Vec<String>,
    /// The arguments as expanded (assignments kept for declaration commands).
    pub args: Vec<ArgValue>,
    /// Its descriptors.
    pub fds: Fds,
}

impl Ctx {
    /// The name it was invoked as.
    pub fn name(&self) -> &str {
        self.argv.first().map_or("", String::as_str)
    }

    /// The arguments after the name.
    pub fn operands(&self) -> &[String] {
        self.argv.get(1..).unwrap_or_default()
    }

    /// Writes to stdout; false if that failed. A refused write (a quota, a bad descriptor) is
    /// reported like bash's `NAME: write error: ...`; a broken pipe is quiet.
    pub async fn out(&self, text: &str) -> bool {
        match self.fds.write(1, text.as_bytes()).await {
            Ok(()) => true,
            Err(crate::task::WriteError::BrokenPipe) => false,
            Err(crate::task::WriteError::Refused(message)) => {
                let line = format!("{}: write error: {message}", self.name());
                self.sh.report(&self.fds, &line).await;
                false
            }
        }
    }

    /// Prints `bash: line N: NAME: message` and returns `status`.
    pub async fn fail(&self, message: &str, status: i32) -> Flow {
        let line = format!("{}: {message}", self.name());
        self.sh.report(&self.fds, &line).await;
        Flow::Normal(status)
    }

    /// Reports an invalid option the way bash does (status 2).
    pub async fn bad_option(&self, option: &str, usage: &str) -> Flow {
        let line = format!("{}: {option}: invalid option", self.name());
        self.sh.report(&self.fds, &line).await;
        self.fds
            .eprint(&format!("{}: usage: {usage}\n", self.name()))
            .await;
        Flow::Normal(2)
    }

    /// Status 0 if stdout took the text, else 1.
    pub async fn print_status(&self, text: &str) -> Flow {
        Flow::Normal(i32::from(!self.out(text).await))
    }
}

/// A builtin: name, one-line synopsis for `help`, and its entry point.
pub(crate) struct Builtin {
    /// The command name.
    pub name: &'static str,
    /// Usage and a one-line description (`help` lists it).
    pub synopsis: &'static str,
    /// Runs the builtin.
    pub run: fn(Ctx) -> LocalFuture<'static, Flow>,
}

/// Every builtin, in `help` order.
const BUILTINS: &[&Builtin] = &[
    &trivial::COLON,
    &source::DOT,
    &test::BRACKET,
    &alias::ALIAS,
    &bash::BASH,
    &loopctl::BREAK,
    &builtin::BUILTIN,
    &trivial::CALLER,
    &cd::CD,
    &command::COMMAND,
    &complete::COMPGEN,
    &complete::COMPLETE,
    &complete::COMPOPT,
    &loopctl::CONTINUE,
    &declare::DECLARE,
    &dirs::DIRS,
    &echo::ECHO,
    &enable::ENABLE,
    &eval::EVAL,
    &exec::EXEC,
    &exit::EXIT,
    &export::EXPORT,
    &trivial::FALSE,
    &getopts::GETOPTS,
    &hash::HASH,
    &help::HELP,
    &history::HISTORY,
    &jobs::JOBS,
    &kill::KILL,
    &let_::LET,
    &local::LOCAL,
    &exit::LOGOUT,
    &mapfile::MAPFILE,
    &dirs::POPD,
    &printf::PRINTF,
    &dirs::PUSHD,
    &pwd::PWD,
    &read::READ,
    &mapfile::READARRAY,
    &readonly::READONLY,
    &return_::RETURN,
    &set::SET,
    &bash::SH,
    &shift::SHIFT,
    &shopt::SHOPT,
    &source::SOURCE,
    &test::TEST,
    &time::TIME,
    &trivial::TIMES,
    &tool::TOOL,
    &trap::TRAP,
    &trivial::TRUE,
    &type_::TYPE,
    &declare::TYPESET,
    &ulimit::ULIMIT,
    &umask::UMASK,
    &alias::UNALIAS,
    &unset::UNSET,
    &wait::WAIT,
    &which::WHICH,
];

/// The builtin called `name`.
pub(crate) fn lookup(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name).copied()
}

/// Every builtin.
pub(crate) fn all() -> impl Iterator<Item = &'static Builtin> {
    BUILTINS.iter().copied()
}

/// Splits leading `-abc` option words from the operands (`--` ends them). Returns the option
/// letters and the index of the first operand.
pub(crate) fn short_options(args: &[String]) -> (Vec<char>, usize) {
    let mut letters = Vec::new();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        if arg == "--" {
            i += 1;
            break;
        }
        let Some(flags) = arg.strip_prefix('-') else {
            break;
        };
        if flags.is_empty() {
            break;
        }
        letters.extend(flags.chars());
        i += 1;
    }
    (letters, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_sorted_for_help() {
        let names: Vec<&str> = all().map(|b| b.name).collect();
        let mut sorted = names.clone();
        sorted.dedup();
        assert_eq!(sorted.len(), names.len());
        assert!(lookup("cd").is_some() && lookup("nope").is_none());
    }
}
