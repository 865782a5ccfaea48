//! The shell's state: variables (scalars, indexed and associative arrays, attributes, local
//! scopes), functions, positional parameters, options, the working directory and `$?`.
//!
//! A subshell is a clone of the whole state (arrays and functions are shared until written, so
//! a clone is cheap). Nothing here does I/O; the expander and executor read and write it
//! between awaits, never across one.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::assoc::Assoc;
use crate::limits::{MAX_EXPORT, MAX_NAMEREF_HOPS, MAX_VALUE};
use crate::shell::arith::{self, ArithError, ArithVars, ArrayIndex};
use crate::shell::ast::Command;

/// The error for `what` (a variable, `$(...)`, an expansion) growing past [`MAX_VALUE`].
pub fn too_large(what: &str) -> String {
    format!(
        "{what}: value too large (more than {MAX_VALUE} bytes); keep large data in a file \
         (cmd > /tmp/data.txt) and pass commands its name"
    )
}

/// The error for exporting `name` with a value longer than [`MAX_EXPORT`].
pub fn too_large_to_export(name: &str) -> String {
    format!(
        "{name}: value too large to export (more than {MAX_EXPORT} bytes, as on Linux); keep \
         large data in a file, or in a variable that is not exported"
    )
}
/// What a variable holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A string.
    Str(String),
    /// An indexed array (sparse).
    Indexed(Rc<BTreeMap<i64, String>>),
    /// An associative array.
    Assoc(Rc<Assoc>),
}

/// Variable attributes (`declare -x -r -i -l -u -a -A -n`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Attrs {
    /// `-x`: passed to commands' environment.
    pub export: bool,
    /// `-r`: cannot be assigned or unset.
    pub readonly: bool,
    /// `-i`: assignments are evaluated arithmetically.
    pub integer: bool,
    /// `-l`: values are lower-cased.
    pub lower: bool,
    /// `-u`: values are upper-cased.
    pub upper: bool,
    /// `-a`: an indexed array (possibly still empty).
    pub array: bool,
    /// `-A`: an associative array.
    pub assoc: bool,
    /// `-n`: a name reference: its value names the variable it stands for.
    pub nameref: bool,
}

/// A variable: its value (None: declared but unset) and attributes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Var {
    /// The value.
    pub value: Option<Value>,
    /// The attributes.
    pub attrs: Attrs,
}

impl Var {
    /// The value as a string: a scalar, or element 0 / key "0" of an array.
    pub fn scalar(&self) -> Option<String> {
        match self.value.as_ref()? {
            Value::Str(s) => Some(s.clone()),
            Value::Indexed(map) => map.get(&0).cloned(),
            Value::Assoc(map) => map.get("0").cloned(),
        }
    }

    /// Every element (one for a scalar), in index order.
    pub fn elements(&self) -> Vec<String> {
        match &self.value {
            None => Vec::new(),
            Some(Value::Str(s)) => vec![s.clone()],
            Some(Value::Indexed(map)) => map.values().cloned().collect(),
            Some(Value::Assoc(map)) => map.iter().map(|(_, v)| v.clone()).collect(),
        }
    }

    /// The indices or keys of every element.
    pub fn keys(&self) -> Vec<String> {
        match &self.value {
            None => Vec::new(),
            Some(Value::Str(_)) => vec!["0".into()],
            Some(Value::Indexed(map)) => map.keys().map(i64::to_string).collect(),
            Some(Value::Assoc(map)) => map.keys().cloned().collect(),
        }
    }

    fn is_array(&self) -> bool {
        self.attrs.array
            || self.attrs.assoc
            || matches!(self.value, Some(Value::Indexed(_) | Value::Assoc(_)))
    }
}

/// `set -o` and `shopt` options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `shopt extglob`: a script's lines that use extended patterns (outside `[[ ]]`) need it.
    pub extglob: bool,
    /// `-e`.
    pub errexit: bool,
    /// `-E`: functions, substitutions and subshells inherit the `ERR` trap.
    pub errtrace: bool,
    /// `-T`: functions, substitutions and subshells inherit the `DEBUG` trap.
    pub functrace: bool,
    /// `-u`.
    pub nounset: bool,
    /// `-o pipefail`.
    pub pipefail: bool,
    /// `-x`.
    pub xtrace: bool,
    /// `-f`.
    pub noglob: bool,
    /// `-C`.
    pub noclobber: bool,
    /// `-a`.
    pub allexport: bool,
    /// `-v` (accepted; input lines are not echoed).
    pub verbose: bool,
    /// `shopt nullglob`.
    pub nullglob: bool,
    /// `shopt failglob`.
    pub failglob: bool,
    /// `shopt dotglob`.
    pub dotglob: bool,
    /// `shopt nocaseglob`.
    pub nocaseglob: bool,
    /// `shopt nocasematch`.
    pub nocasematch: bool,
    /// `shopt globstar`.
    pub globstar: bool,
    /// `shopt globskipdots` (on in bash 5.2): `.` and `..` never match.
    pub globskipdots: bool,
    /// `shopt lastpipe`: the last command of a pipeline runs in this shell.
    pub lastpipe: bool,
    /// `shopt expand_aliases` (off in a non-interactive bash, as here).
    pub expand_aliases: bool,
    /// `-n`: the script's later lines are read and not run (until the execution ends).
    pub noexec: bool,
    /// `-o posix`: prefix assignments to special builtins stay, special builtins come
    /// before functions, and a function may not take a special builtin's name.
    pub posix: bool,
    /// The shell runs a `bash -c` string: `$-` shows `c`, and a fatal error exits 127.
    pub command_string: bool,
    /// The shell runs a script file (`bash f.sh`, `./f.sh`); otherwise, like the sandbox's
    /// own script or `bash < f.sh`, it reads commands from its input and `$-` shows `s`.
    pub script_file: bool,
}

/// The `set -o` names, with their one-letter flags.
pub const SET_OPTIONS: &[(&str, Option<char>)] = &[
    ("allexport", Some('a')),
    ("errexit", Some('e')),
    ("errtrace", Some('E')),
    ("functrace", Some('T')),
    ("noclobber", Some('C')),
    ("noexec", Some('n')),
    ("noglob", Some('f')),
    ("nounset", Some('u')),
    ("pipefail", None),
    ("posix", None),
    ("verbose", Some('v')),
    ("xtrace", Some('x')),
];

/// The `shopt` names this shell knows (others are accepted and ignored by `shopt -s`).
pub const SHOPT_OPTIONS: &[&str] = &[
    "dotglob",
    "expand_aliases",
    "extglob",
    "failglob",
    "globskipdots",
    "globstar",
    "lastpipe",
    "nocaseglob",
    "nocasematch",
    "nullglob",
];

/// The options a non-interactive bash 5.2 starts with on, besides [`SHOPT_OPTIONS`].
const BASHOPTS_DEFAULT: &[&str] = &[
    "checkwinsize",
    "cmdhist",
    "complete_fullquote",
    "extquote",
    "force_fignore",
    "globasciiranges",
    "hostcomplete",
    "interactive_comments",
    "patsub_replacement",
    "progcomp",
    "promptvars",
    "sourcepath",
];

/// Variables computed when read ([`State::dynamic`]), for listings such as `${!BASH*}`.
const DYNAMIC_NAMES: &[&str] = &[
    "BASHOPTS",
    "BASHPID",
    "BASH_ARGV0",
    "BASH_COMMAND",
    "BASH_SUBSHELL",
    "EPOCHREALTIME",
    "EPOCHSECONDS",
    "LINENO",
    "RANDOM",
    "SECONDS",
    "SHELLOPTS",
];

impl Options {
    /// The options a non-interactive bash starts with.
    pub fn initial() -> Options {
        Options {
            globskipdots: true,
            ..Options::default()
        }
    }

    /// Takes the `set -o` options (not the `shopt` ones) from `saved`.
    pub fn restore_set_options(&mut self, saved: &Options) {
        let mut saved = saved.clone();
        for (name, _) in SET_OPTIONS {
            if let (Some(now), Some(then)) = (self.flag(name), saved.flag(name)) {
                *now = *then;
            }
        }
    }

    /// The flag behind a `set -o` or `shopt` name.
    pub fn flag(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "errexit" => &mut self.errexit,
            "errtrace" => &mut self.errtrace,
            "functrace" => &mut self.functrace,
            "nounset" => &mut self.nounset,
            "pipefail" => &mut self.pipefail,
            "xtrace" => &mut self.xtrace,
            "noglob" => &mut self.noglob,
            "noclobber" => &mut self.noclobber,
            "allexport" => &mut self.allexport,
            "verbose" => &mut self.verbose,
            "nullglob" => &mut self.nullglob,
            "extglob" => &mut self.extglob,
            "failglob" => &mut self.failglob,
            "dotglob" => &mut self.dotglob,
            "nocaseglob" => &mut self.nocaseglob,
            "nocasematch" => &mut self.nocasematch,
            "globstar" => &mut self.globstar,
            "globskipdots" => &mut self.globskipdots,
            "lastpipe" => &mut self.lastpipe,
            "expand_aliases" => &mut self.expand_aliases,
            "noexec" => &mut self.noexec,
            "posix" => &mut self.posix,
            _ => return None,
        })
    }

    /// The value of a `set -o` or `shopt` name.
    pub fn get(&self, name: &str) -> Option<bool> {
        self.clone().flag(name).map(|f| *f)
    }

    /// The flag behind a one-letter `set` option.
    pub fn letter(&mut self, c: char) -> Option<&mut bool> {
        let name = SET_OPTIONS.iter().find(|(_, l)| *l == Some(c))?.0;
        self.flag(name)
    }

    /// `$-`, in bash's order.
    pub fn letters(&self) -> String {
        [
            (self.allexport, 'a'),
            (self.errexit, 'e'),
            (self.noglob, 'f'),
            (true, 'h'),
            (self.noexec, 'n'),
            (self.nounset, 'u'),
            (self.verbose, 'v'),
            (self.xtrace, 'x'),
            (true, 'B'),
            (self.noclobber, 'C'),
            (self.errtrace, 'E'),
            (self.functrace, 'T'),
            (self.command_string, 'c'),
            (!self.command_string && !self.script_file, 's'),
        ]
        .iter()
        .filter(|(on, _)| *on)
        .map(|(_, c)| *c)
        .collect()
    }
}

/// A function: its definition (shared by every copy of the state).
pub type Function = Rc<Command>;

/// An alias: its text, and the code unit and line of the `alias` command that defined it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alias {
    /// What the name expands to.
    pub value: String,
    /// [`State::code_unit`] when it was defined.
    pub unit: usize,
    /// The line of the definition.
    pub line: usize,
}

impl State {
    /// `set -e` ran with errexit off: as in bash it applies at once inside `! pipeline`
    /// (not inside a condition, where it waits until the condition ends).
    pub fn errexit_turned_on(&mut self) {
        if self.errexit_off == self.negated_off {
            self.errexit_off = 0;
            self.negated_off = 0;
        }
    }

    /// Keeps descriptor `fd` (see [`State::kept_fds`]) pointing at `to` after its command.
    pub fn keep_fd(&mut self, fd: u32, to: Option<super::io::Fd>) {
        // One counter for every shell, so a subshell's generations stay above its tables'.
        static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let gen = GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        self.kept_fds.retain(|(kept, _, _)| *kept != fd);
        self.kept_fds.push((fd, gen, to));
    }

    /// Whether `fds` misses descriptors kept after it was made.
    pub fn kept_fds_newer(&self, fds: &super::io::Fds) -> bool {
        self.kept_fds.iter().any(|(_, gen, _)| *gen > fds.synced)
    }

    /// Applies to `fds` the descriptors kept after it was made.
    pub fn apply_kept_fds(&self, fds: &mut super::io::Fds) {
        for (fd, gen, to) in &self.kept_fds {
            if *gen > fds.synced {
                fds.set(*fd, to.clone());
                fds.synced = fds.synced.max(*gen);
            }
        }
    }
    /// Starts a new piece of code (an `eval`, `source`, alias text); returns the one to go
    /// back to.
    pub fn enter_unit(&mut self) -> usize {
        self.units += 1;
        std::mem::replace(&mut self.code_unit, self.units)
    }

    /// The text of alias `name` if it applies to a command on `line` of the running code.
    pub fn alias_for(&self, name: &str, line: usize) -> Option<String> {
        let alias = self.aliases.get(name)?;
        let later = alias.unit != self.code_unit || line > alias.line;
        (later && self.opts.expand_aliases && !self.expanding.iter().any(|n| n == name))
            .then(|| alias.value.clone())
    }
}

/// The state of one shell (the session, or a subshell's copy).
#[derive(Clone)]
pub struct State {
    /// Global variables.
    pub globals: HashMap<String, Var>,
    /// Local scopes, innermost last: one per running function.
    pub frames: Vec<HashMap<String, Var>>,
    /// The options saved by `local -`, with the depth of the frame that saved them: the
    /// function's return restores them.
    pub saved_options: Vec<(usize, Options)>,
    /// Functions by name.
    pub funcs: BTreeMap<String, Function>,
    /// `$1`...
    pub positional: Vec<String>,
    /// `$0`.
    pub arg0: String,
    /// Options.
    pub opts: Options,
    /// The working directory (absolute, logical).
    pub cwd: String,
    /// `$?`.
    pub status: i32,
    /// The line of the command running (`$LINENO`, error messages).
    pub line: usize,
    /// Nesting of everything that runs code again (see [`crate::limits::MAX_COMMAND_DEPTH`]).
    pub depth: usize,
    /// Names of the running functions, innermost last (`FUNCNAME`).
    pub call_stack: Vec<String>,
    /// Nesting of loops (for `break` and `continue`).
    pub loop_depth: usize,
    /// Inside a condition (`if`, `while`, `&&`...): `set -e` does not apply.
    pub errexit_off: usize,
    /// The part of `errexit_off` that only `! pipeline` adds.
    pub negated_off: usize,
    /// `$BASH_SUBSHELL`.
    pub subshell: usize,
    /// The status of the last command substitution of the current command.
    pub subst_status: Option<i32>,
    /// Traps set (accepted, never run except `EXIT`).
    pub traps: BTreeMap<String, String>,
    /// The random generator's state (`$RANDOM`).
    pub random: Rc<Cell<u64>>,
    /// When the session started, ms since the epoch (`$SECONDS`).
    pub start_ms: f64,
    /// Milliseconds since the epoch, through the host.
    pub clock: Rc<dyn Fn() -> f64>,
    /// Files being sourced, innermost last (`return` is allowed; messages name the file).
    pub sourcing: Vec<String>,
    /// `pushd` directories.
    pub dirstack: Vec<String>,
    /// Aliases by name: their text and where they were defined.
    pub aliases: BTreeMap<String, Alias>,
    /// The piece of code running now (the script, or one `eval`, `source` or alias text): an
    /// alias applies to commands read after its definition, as bash reads one line at a time.
    pub code_unit: usize,
    /// Units handed out so far.
    pub units: usize,
    /// Aliases being expanded now (an alias is not expanded inside its own text).
    pub expanding: Vec<String>,
    /// The line the running simple command ends on (see [`crate::shell::ast::SimpleCommand`]).
    pub command_end: usize,
    /// While an `ERR` trap runs: the line of the command that failed (its `$LINENO`).
    pub trap_line: Option<usize>,
    /// The file creation mask `umask` shows and sets, given to the VFS before each command.
    pub umask: u32,
    /// `getopts`: the `OPTIND` it last saw and the position inside a group of letters.
    pub getopts: (usize, usize),
    /// Command substitutions deep (`set -x` repeats the first character of `PS4` per level).
    pub xtrace_level: usize,
    /// The process id of the newest background job (`$!`).
    pub last_job: Option<u32>,
    /// Which jobs are this shell's own (see [`super::jobs::Jobs`]): 0 for the script, the
    /// job's pid inside a background job.
    pub job_owner: u32,
    /// Redirections made permanent by `exec`, picked up by the running list.
    pub exec_fds: Option<super::io::Fds>,
    /// Descriptors that outlive the command that opened them (`exec 3>f`, `cmd {fd}>f`):
    /// descriptor, generation, what it now refers to. Every running list applies to its
    /// table the ones newer than the table (see [`super::io::Fds::synced`]), so they reach
    /// the lists around a function and the next turns of a loop too.
    pub kept_fds: Vec<(u32, u64, Option<super::io::Fd>)>,
    /// `>(...)` substitutions waiting for their command to end, innermost command last.
    pub pending_outputs: Vec<super::io::PendingOutput>,
    /// Command paths remembered by `hash` and by running commands.
    pub hash: super::path::HashTable,
    /// Completion specifications set by `complete`, oldest first.
    pub completions: Vec<(String, CompSpec)>,
    /// Functions with the trace attribute (`declare -ft`): they inherit the `DEBUG` trap.
    pub traced: std::collections::BTreeSet<String>,
    /// Options accepted without effect that `shopt` set away from bash's default.
    pub shopt_flipped: std::collections::BTreeSet<String>,
    /// Readonly functions (`readonly -f`, `declare -fr`): they cannot be redefined or unset.
    pub readonly_funcs: std::collections::BTreeSet<String>,
    /// Builtins turned off by `enable -n` (a command of that name is looked for in `PATH`).
    pub disabled: std::collections::BTreeSet<String>,
    /// Resource limits `ulimit` changed: (soft, hard) by resource, None for unlimited.
    pub ulimits: BTreeMap<usize, (Option<u64>, Option<u64>)>,
    /// The `Flow::Exit(1)` going up is bash's "discard": an error (assigning a readonly
    /// variable, bad arithmetic, a bad substitution) that abandons the rest of the line being
    /// run, not the shell (see [`super::Sh::run_lines`]).
    pub discarding: bool,
    /// While the `EXIT` trap runs: the status the shell was exiting with, which a bare `exit`
    /// in the trap keeps (as in bash, where it is `$?` before the trap ran).
    pub exiting_with: Option<i32>,
}

/// A completion specification (`complete`): `-o` options and actions as indices into the
/// builtin's tables, and the option arguments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompSpec {
    /// `-o` options set, as bits.
    pub options: u32,
    /// Actions (`-A`, `-d`, `-f`...), as bits.
    pub actions: u32,
    /// `-G`, `-W`, `-P`, `-S`, `-X`, `-C`, `-F`, in that order.
    pub args: [Option<String>; 7],
}

/// Whether `name` is a valid variable name.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

impl State {
    /// A fresh session state with bash's default variables.
    pub fn new(clock: Rc<dyn Fn() -> f64>) -> State {
        let now = clock();
        let mut state = State {
            globals: HashMap::new(),
            frames: Vec::new(),
            saved_options: Vec::new(),
            funcs: BTreeMap::new(),
            positional: Vec::new(),
            arg0: "bash".into(),
            opts: Options::initial(),
            cwd: crate::vfs::WORKSPACE.into(),
            status: 0,
            line: 0,
            depth: 0,
            call_stack: Vec::new(),
            loop_depth: 0,
            errexit_off: 0,
            negated_off: 0,
            subshell: 0,
            subst_status: None,
            traps: BTreeMap::new(),
            random: Rc::new(Cell::new(crate::entropy::random_u64())),
            start_ms: now,
            clock,
            sourcing: Vec::new(),
            dirstack: Vec::new(),
            umask: 0o022,
            command_end: 0,
            trap_line: None,
            aliases: BTreeMap::new(),
            code_unit: 0,
            units: 0,
            expanding: Vec::new(),
            getopts: (1, 0),
            exec_fds: None,
            kept_fds: Vec::new(),
            pending_outputs: Vec::new(),
            last_job: None,
            job_owner: 0,
            xtrace_level: 0,
            discarding: false,
            exiting_with: None,
            hash: super::path::HashTable::default(),
            completions: Vec::new(),
            traced: std::collections::BTreeSet::new(),
            readonly_funcs: std::collections::BTreeSet::new(),
            shopt_flipped: std::collections::BTreeSet::new(),
            ulimits: BTreeMap::new(),
            disabled: std::collections::BTreeSet::new(),
        };
        state.set_defaults();
        state
    }

    fn set_defaults(&mut self) {
        let exported = [
            ("HOME", crate::vfs::WORKSPACE),
            ("PWD", crate::vfs::WORKSPACE),
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("USER", "user"),
            ("LOGNAME", "user"),
            ("SHELL", "/bin/bash"),
            ("LANG", "C.UTF-8"),
            ("TERM", "dumb"),
            ("SHLVL", "1"),
        ];
        for (name, value) in exported {
            self.put_global(name, value, true);
        }
        // bash starts with `OLDPWD` exported and unset: the first `cd` exports it.
        let oldpwd = Var {
            value: None,
            attrs: Attrs {
                export: true,
                ..Attrs::default()
            },
        };
        self.globals.insert("OLDPWD".into(), oldpwd);
        let plain = [
            ("IFS", " \t\n"),
            ("PS4", "+ "),
            ("HOSTNAME", "sandbox"),
            ("HOSTTYPE", "wasm32"),
            ("OSTYPE", "linux-gnu"),
            ("MACHTYPE", "wasm32-unknown-linux-gnu"),
            ("BASH", "/bin/bash"),
            ("BASH_VERSION", "5.2.15(1)-release"),
            ("BASH_LOADABLES_PATH", "/usr/local/lib/bash:/usr/lib/bash"),
            ("UID", "1000"),
            ("EUID", "1000"),
            ("PPID", "999"),
            ("OPTIND", "1"),
            ("_", "/bin/bash"),
        ];
        for (name, value) in plain {
            self.put_global(name, value, false);
        }
        let versinfo = ["5", "2", "15", "1", "release", "wasm32-unknown-linux-gnu"];
        let arrays = [
            ("BASH_VERSINFO", indexed(&versinfo)),
            ("BASH_ARGC", indexed(&["0"])),
            ("BASH_ARGV", indexed(&[])),
            ("BASH_LINENO", indexed(&[])),
            ("BASH_SOURCE", indexed(&[])),
            ("BASH_ALIASES", Value::Assoc(Rc::default())),
            ("BASH_CMDS", Value::Assoc(Rc::default())),
        ];
        // bash's bookkeeping arrays are present but stay empty here: there are no script
        // files, and aliases and hashed commands are not mirrored into them.
        for (name, value) in arrays {
            let attrs = Attrs {
                readonly: name == "BASH_VERSINFO",
                ..Attrs::default()
            };
            let var = Var {
                value: Some(value),
                attrs,
            };
            self.globals.insert(name.into(), var);
        }
    }

    fn put_global(&mut self, name: &str, value: &str, export: bool) {
        self.globals.insert(
            name.into(),
            Var {
                value: Some(Value::Str(value.into())),
                attrs: Attrs {
                    export,
                    ..Attrs::default()
                },
            },
        );
    }

    /// Sets `$_`, the last argument of the previous simple command (in place: this runs
    /// after every command).
    pub fn set_last_arg(&mut self, arg: &str) {
        match self.globals.get_mut("_") {
            Some(Var {
                value: Some(Value::Str(s)),
                ..
            }) => {
                s.clear();
                s.push_str(arg);
            }
            _ => self.put_global("_", arg, false),
        }
    }

    /// Forgets variables, functions and options; back to `/workspace`.
    pub fn reset(&mut self) {
        let fresh = State::new(Rc::clone(&self.clock));
        *self = fresh;
    }

    /// The variable `name` stands for: itself, or where its name references lead (a chain
    /// ends at a variable that is not a reference, or after a few hops, as a loop would).
    pub fn resolve<'a>(&self, name: &'a str) -> Cow<'a, str> {
        let mut name = Cow::Borrowed(name);
        for _ in 0..MAX_NAMEREF_HOPS {
            match self.reference_target(&name) {
                Some(target) => name = Cow::Owned(target.to_string()),
                None => break,
            }
        }
        name
    }

    /// The name the name reference `name` refers to, when that is another variable's name.
    fn reference_target(&self, name: &str) -> Option<&str> {
        match self.raw_var(name) {
            Some(Var {
                value: Some(Value::Str(target)),
                attrs,
            }) if attrs.nameref && is_name(target) && target != name => Some(target),
            _ => None,
        }
    }

    /// Whether the name references from `name` go round in a loop (`declare -n a=b b=a`):
    /// bash then reads nothing and refuses to assign.
    pub fn is_circular(&self, name: &str) -> bool {
        self.reference_target(name).is_some()
            && self.reference_target(&self.resolve(name)).is_some()
    }

    /// The array and subscript text a name reference to an element (`declare -n r='a[2]'`,
    /// `'A[$k]'`) names, the subscript not yet expanded.
    pub fn nameref_element_text(&self, name: &str) -> Option<(String, String)> {
        let end = self.resolve(name);
        let var = self.raw_var(&end).filter(|v| v.attrs.nameref)?;
        let Some(Value::Str(target)) = &var.value else {
            return None;
        };
        let (base, key) = split_element(target)?;
        Some((base.to_string(), key.to_string()))
    }

    /// Where `name` leads when a name reference ends at an array element, for writers that
    /// cannot expand (the subscript is taken literally: a number, a variable holding one, or
    /// a key, quotes removed); the shell itself expands it first (`Sh::key_from_text`).
    pub fn nameref_element(&self, name: &str) -> Option<(String, Key)> {
        let (base, key) = self.nameref_element_text(name)?;
        let key = if self.is_assoc(&base) {
            Key::Assoc(key.trim_matches(|c| c == '"' || c == '\'').to_string())
        } else {
            let text = key.trim();
            let index = text
                .parse::<i64>()
                .ok()
                .or_else(|| self.get(text).and_then(|v| v.trim().parse().ok()))
                .unwrap_or(0);
            Key::Index(index)
        };
        Some((base, key))
    }

    /// The variable called `name` itself (a name reference is not followed).
    pub fn raw_var(&self, name: &str) -> Option<&Var> {
        for frame in self.frames.iter().rev() {
            if let Some(var) = frame.get(name) {
                return Some(var);
            }
        }
        self.globals.get(name)
    }

    /// The variable `name` as the current scope sees it.
    pub fn var(&self, name: &str) -> Option<&Var> {
        let var = self.raw_var(name)?;
        if !var.attrs.nameref {
            return Some(var);
        }
        let end = self.resolve(name);
        if self.reference_target(&end).is_some() {
            return None;
        }
        self.raw_var(&end)
    }

    /// The variable `name`, mutable, where the current scope sees it.
    pub fn var_mut(&mut self, name: &str) -> Option<&mut Var> {
        let name = self.resolve(name).into_owned();
        let at = self.frames.iter().rposition(|f| f.contains_key(&name));
        match at {
            Some(i) => self.frames[i].get_mut(&name),
            None => self.globals.get_mut(&name),
        }
    }

    /// The variable `name`, created (unset, no attributes) in the global scope if it does not
    /// exist in any scope.
    pub fn var_entry(&mut self, name: &str) -> &mut Var {
        let name = self.resolve(name).into_owned();
        self.raw_entry(&name)
    }

    /// Like [`State::var_entry`], without following a name reference.
    pub fn raw_entry(&mut self, name: &str) -> &mut Var {
        let at = self.frames.iter().rposition(|f| f.contains_key(name));
        match at {
            Some(i) => self.frames[i].entry(name.into()).or_default(),
            None => self.globals.entry(name.into()).or_default(),
        }
    }

    /// Creates `name` as a local of the innermost function (or returns it if it already is).
    pub fn local_entry(&mut self, name: &str) -> &mut Var {
        let Some(frame) = self.frames.last_mut() else {
            return self.globals.entry(name.into()).or_default();
        };
        if !frame.contains_key(name) {
            // A new local starts unset but keeps the export attribute of what it shadows.
            frame.insert(name.into(), Var::default());
        }
        frame.entry(name.into()).or_default()
    }

    /// The value of a dynamic variable (`RANDOM`, `SECONDS`, `LINENO`...), if `name` is one.
    pub fn dynamic(&self, name: &str) -> Option<String> {
        Some(match name {
            "RANDOM" => self.next_random().to_string(),
            "SECONDS" => (((self.clock)() - self.start_ms) / 1000.0)
                .floor()
                .to_string(),
            "EPOCHSECONDS" => ((self.clock)() / 1000.0).floor().to_string(),
            "EPOCHREALTIME" => format!("{:.6}", (self.clock)() / 1000.0),
            "LINENO" => self.line.to_string(),
            "BASH_SUBSHELL" => self.subshell.to_string(),
            "BASHPID" => (1000 + self.subshell).to_string(),
            "SHELLOPTS" => self.shellopts(),
            "BASHOPTS" => self.bashopts(),
            "BASH_ARGV0" => self.arg0.clone(),
            "BASH_COMMAND" => String::new(),
            _ => return None,
        })
    }

    fn shellopts(&self) -> String {
        let mut on: Vec<&str> = vec!["braceexpand", "hashall", "interactive-comments"];
        for (name, _) in SET_OPTIONS {
            if self.opts.get(name) == Some(true) {
                on.push(name);
            }
        }
        crate::sort::sort(&mut on);
        on.join(":")
    }

    /// Whether `shopt` option `name` is on (for one accepted without effect: bash's
    /// default, unless `shopt` changed it).
    pub fn shopt_value(&self, name: &str) -> bool {
        let flipped = self.shopt_flipped.contains(name);
        self.opts
            .get(name)
            .unwrap_or_else(|| BASHOPTS_DEFAULT.contains(&name) != flipped)
    }

    /// `shopt -s name` (`on`) or `shopt -u name`.
    pub fn set_shopt(&mut self, name: &str, on: bool) {
        if let Some(flag) = self.opts.flag(name) {
            *flag = on;
        } else if on == BASHOPTS_DEFAULT.contains(&name) {
            self.shopt_flipped.remove(name);
        } else {
            self.shopt_flipped.insert(name.to_string());
        }
    }

    /// `$BASHOPTS`: the `shopt` options on, those accepted without effect included.
    fn bashopts(&self) -> String {
        let flipped = |n: &&str| self.shopt_flipped.contains(*n);
        let mut on: Vec<&str> = BASHOPTS_DEFAULT
            .iter()
            .copied()
            .filter(|n| !flipped(n))
            .collect();
        on.extend(
            self.shopt_flipped
                .iter()
                .map(|n| &**n)
                .filter(|n| !BASHOPTS_DEFAULT.contains(n)),
        );
        on.extend(
            SHOPT_OPTIONS
                .iter()
                .filter(|n| self.opts.get(n) == Some(true)),
        );
        crate::sort::sort(&mut on);
        on.dedup();
        on.join(":")
    }

    /// The next `$RANDOM` (0..32767).
    pub fn next_random(&self) -> u32 {
        // xorshift64*, reduced to 15 bits.
        let mut x = self.random.get().max(1);
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.random.set(x);
        (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 49) as u32 & 0x7fff
    }

    /// The scalar value of `name` (element 0 of an array); dynamic variables included.
    pub fn get(&self, name: &str) -> Option<String> {
        if let Some(var) = self.var(name) {
            return var.scalar();
        }
        self.dynamic(name)
    }

    /// Whether `name` is set (an array with elements, a scalar, or a dynamic variable).
    pub fn is_set(&self, name: &str) -> bool {
        match self.var(name) {
            Some(var) => match &var.value {
                Some(Value::Indexed(m)) => !m.is_empty(),
                Some(Value::Assoc(m)) => !m.is_empty(),
                Some(Value::Str(_)) => true,
                None => false,
            },
            None => self.dynamic(name).is_some(),
        }
    }

    /// `$IFS` (the default when unset).
    pub fn ifs(&self) -> String {
        match self.var("IFS") {
            Some(var) => var.scalar().unwrap_or_default(),
            None => " \t\n".into(),
        }
    }

    /// Fails if `name` is readonly.
    pub fn check_writable(&self, name: &str) -> Result<(), String> {
        match self.var(name) {
            Some(var) if var.attrs.readonly => Err(format!("{name}: readonly variable")),
            // bash's `$SHELLOPTS` is readonly (here it is computed, never stored).
            None if name == "SHELLOPTS" => Err(format!("{name}: readonly variable")),
            _ => Ok(()),
        }
    }

    /// Applies `-i`, `-l`, `-u` to a value about to be stored in `name`.
    fn transform(
        &mut self,
        name: &str,
        value: String,
        append_to: Option<&str>,
    ) -> Result<String, String> {
        let attrs = self.var(name).map(|v| v.attrs).unwrap_or_default();
        let mut value = value;
        if attrs.integer {
            let n = self.arith(&value).map_err(|e| e.to_string())?;
            let base = match append_to {
                Some(old) => self.arith(old).map_err(|e| e.to_string())?,
                None => 0,
            };
            return Ok(base.wrapping_add(n).to_string());
        }
        if let Some(old) = append_to {
            value = format!("{old}{value}");
        }
        if attrs.lower || attrs.upper {
            value = super::expand::change_case(value, Some(!attrs.lower), true, None);
        }
        if value.len() > MAX_VALUE {
            return Err(too_large(name));
        }
        Ok(value)
    }

    fn arith(&mut self, text: &str) -> Result<i64, ArithError> {
        arith::eval_str(text, &mut ArithEnv { state: self })
    }

    /// A `for` loop's variable: a name reference takes each word as the name it refers to
    /// (as in bash); any other variable is assigned.
    pub fn assign_loop_var(&mut self, name: &str, value: String) -> Result<(), String> {
        let is_ref = self.raw_var(name).is_some_and(|v| v.attrs.nameref);
        if !is_ref {
            return self.assign(name, value, false);
        }
        self.raw_entry(name).value = Some(Value::Str(value));
        Ok(())
    }

    /// Whether `name` is a name reference to an array element or a whole array (`'a[1]'`,
    /// `'a[@]'`): a subscript on it (`${ref[@]}`) names nothing, as in bash.
    pub fn nameref_into_array(&self, name: &str) -> bool {
        let end = self.resolve(name);
        self.raw_var(&end)
            .filter(|v| v.attrs.nameref)
            .and_then(Var::scalar)
            .is_some_and(|target| target.contains('['))
    }

    /// The whole array a name reference such as `declare -n r='a[@]'` stands for: the
    /// array's name and whether it was written with `*`.
    pub fn nameref_whole_array(&self, name: &str) -> Option<(String, bool)> {
        let end = self.resolve(name);
        let target = self.raw_var(&end).filter(|v| v.attrs.nameref)?.scalar()?;
        let (base, key) = target.split_once('[')?;
        match key {
            "@]" => Some((base.to_string(), false)),
            "*]" => Some((base.to_string(), true)),
            _ => None,
        }
    }

    /// `name=value` (or `name+=value`): sets the scalar, or element 0 of an array.
    pub fn assign(&mut self, name: &str, value: String, append: bool) -> Result<(), String> {
        if self.is_circular(name) {
            return Err(format!("warning: {name}: circular name reference"));
        }
        if let Some((base, key)) = self.nameref_element(name) {
            return self.assign_element(&base, key, value, append);
        }
        self.check_writable(name)?;
        if name == "PATH" {
            self.hash.entries.clear();
        }
        if name == "RANDOM" {
            if let Ok(seed) = value.trim().parse::<u64>() {
                self.random.set(seed ^ 0x5DEE_CE66);
            }
        }
        let is_array = self.var(name).is_some_and(Var::is_array);
        if is_array {
            let key = match self.var(name) {
                Some(v) if v.attrs.assoc || matches!(v.value, Some(Value::Assoc(_))) => {
                    Key::Assoc("0".into())
                }
                _ => Key::Index(0),
            };
            return self.assign_element(name, key, value, append);
        }
        let plain = self
            .var(name)
            .is_none_or(|v| !(v.attrs.integer || v.attrs.lower || v.attrs.upper));
        if append && plain {
            // `s+=x` in a loop: append in place.
            let allexport = self.opts.allexport;
            let var = self.var_entry(name);
            let exported = var.attrs.export || allexport;
            match &mut var.value {
                Some(Value::Str(s)) => {
                    let len = s.len() + value.len();
                    if len > MAX_VALUE {
                        return Err(too_large(name));
                    }
                    if exported && len > MAX_EXPORT {
                        return Err(too_large_to_export(name));
                    }
                    s.push_str(&value);
                }
                slot => *slot = Some(Value::Str(value)),
            }
            var.attrs.export |= allexport;
            return Ok(());
        }
        let old = if append { self.get(name) } else { None };
        let value = self.transform(name, value, old.as_deref().or(append.then_some("")))?;
        let allexport = self.opts.allexport;
        let exported = allexport || self.var(name).is_some_and(|v| v.attrs.export);
        if exported && value.len() > MAX_EXPORT {
            return Err(too_large_to_export(name));
        }
        let var = self.var_entry(name);
        var.value = Some(Value::Str(value));
        var.attrs.export |= allexport;
        Ok(())
    }

    /// `name[key]=value` (or `+=`).
    pub fn assign_element(
        &mut self,
        name: &str,
        key: Key,
        value: String,
        append: bool,
    ) -> Result<(), String> {
        self.check_writable(name)?;
        let old = if append {
            self.element(name, &key)
        } else {
            None
        };
        let value = self.transform(name, value, old.as_deref().or(append.then_some("")))?;
        let var = self.var_entry(name);
        match (&mut var.value, key) {
            (Some(Value::Assoc(map)), key) => {
                Rc::make_mut(map).insert(key.text(), value);
            }
            (slot, Key::Assoc(key)) if var.attrs.assoc || slot.is_none() => {
                let mut map = Assoc::default();
                map.insert(key, value);
                *slot = Some(Value::Assoc(Rc::new(map)));
            }
            (slot, key) => {
                let mut map = match slot.take() {
                    Some(Value::Indexed(map)) => map,
                    Some(Value::Str(s)) => Rc::new(BTreeMap::from([(0, s)])),
                    _ => Rc::default(),
                };
                let index = match key {
                    Key::Index(i) => i,
                    Key::Assoc(text) => text.trim().parse().unwrap_or(0),
                };
                let index = match index {
                    i if i < 0 => {
                        let end = map.keys().next_back().map_or(0, |k| k + 1);
                        if end + i < 0 {
                            *slot = Some(Value::Indexed(map));
                            return Err(format!("{name}[{i}]: bad array subscript"));
                        }
                        end + i
                    }
                    i => i,
                };
                Rc::make_mut(&mut map).insert(index, value);
                *slot = Some(Value::Indexed(map));
            }
        }
        Ok(())
    }

    /// Replaces (or with `append`, extends) `name` with array elements: `(index, value)`
    /// pairs, where a `None` index means "after the last one".
    pub fn assign_array(
        &mut self,
        name: &str,
        elements: Vec<(Option<Key>, String)>,
        append: bool,
    ) -> Result<(), String> {
        self.check_writable(name)?;
        let assoc = self
            .var(name)
            .is_some_and(|v| v.attrs.assoc || matches!(v.value, Some(Value::Assoc(_))));
        // The old value is taken out and changed in place (no copy unless a subshell shares
        // it), so `a+=(x)` in a loop stays linear.
        let old = if append {
            self.var_entry(name).value.take()
        } else {
            None
        };
        if assoc {
            let mut map = match old {
                Some(Value::Assoc(map)) => Rc::try_unwrap(map).unwrap_or_else(|rc| (*rc).clone()),
                _ => Assoc::default(),
            };
            let mut result = Ok(());
            // `A=(k1 v1 k2 v2)` without any `[key]=`: keys and values alternate (bash 5.1).
            let elements = if elements.iter().all(|(k, _)| k.is_none()) {
                let mut words = elements.into_iter().map(|(_, v)| v);
                let mut pairs = Vec::new();
                while let Some(key) = words.next() {
                    pairs.push((Some(Key::Assoc(key)), words.next().unwrap_or_default()));
                }
                pairs
            } else {
                elements
            };
            for (key, value) in elements {
                let key = key.map(Key::text).unwrap_or_default();
                match self.transform(name, value, None) {
                    Ok(value) => map.insert(key, value),
                    Err(e) => {
                        result = Err(e);
                        break;
                    }
                }
            }
            self.var_entry(name).value = Some(Value::Assoc(Rc::new(map)));
            return result;
        }
        let mut map = match old {
            Some(Value::Indexed(map)) => Rc::try_unwrap(map).unwrap_or_else(|rc| (*rc).clone()),
            Some(Value::Str(s)) => BTreeMap::from([(0, s)]),
            _ => BTreeMap::new(),
        };
        let mut next = map.keys().next_back().map_or(0, |k| k + 1);
        let mut result = Ok(());
        for (key, value) in elements {
            let index = match key {
                Some(Key::Index(i)) if i < 0 => next + i,
                Some(Key::Index(i)) => i,
                Some(Key::Assoc(text)) => text.trim().parse().unwrap_or(0),
                None => next,
            };
            match self.transform(name, value, None) {
                Ok(value) => {
                    map.insert(index, value);
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
            next = index + 1;
        }
        let allexport = self.opts.allexport;
        let var = self.var_entry(name);
        var.value = Some(Value::Indexed(Rc::new(map)));
        var.attrs.array = true;
        var.attrs.export |= allexport;
        result
    }

    /// Element `key` of `name` (a scalar is element 0).
    pub fn element(&self, name: &str, key: &Key) -> Option<String> {
        let var = self.var(name)?;
        match (&var.value, key) {
            (Some(Value::Assoc(map)), key) => map.get(&key.as_text()).cloned(),
            (Some(Value::Indexed(map)), Key::Index(i)) => {
                let i = if *i < 0 {
                    map.keys().next_back().map_or(0, |k| k + 1) + i
                } else {
                    *i
                };
                map.get(&i).cloned()
            }
            (Some(Value::Str(s)), Key::Index(0 | -1)) => Some(s.clone()),
            _ => None,
        }
    }

    /// Whether `name` is an associative array.
    pub fn is_assoc(&self, name: &str) -> bool {
        self.var(name)
            .is_some_and(|v| v.attrs.assoc || matches!(v.value, Some(Value::Assoc(_))))
    }

    /// `unset name`: removes it from the innermost scope that has it (a local of the running
    /// function stays declared, unset).
    pub fn unset(&mut self, name: &str) -> Result<(), String> {
        if self.is_circular(name) {
            return self.unset_exact(name);
        }
        if let Some((base, key)) = self.nameref_element(name) {
            return self.unset_element(&base, &key);
        }
        let resolved = self.resolve(name).into_owned();
        self.unset_exact(&resolved)
    }

    /// Removes the variable `name` itself, even when it is a name reference (`unset -n`).
    pub fn unset_exact(&mut self, name: &str) -> Result<(), String> {
        if let Some(var) = self.raw_var(name) {
            if var.attrs.readonly {
                return Err(format!("{name}: cannot unset: readonly variable"));
            }
        }
        let at = self.frames.iter().rposition(|f| f.contains_key(name));
        match at {
            Some(i) if i + 1 == self.frames.len() => {
                if let Some(var) = self.frames[i].get_mut(name) {
                    var.value = None;
                    var.attrs = Attrs::default();
                }
            }
            Some(i) => {
                self.frames[i].remove(name);
            }
            None => {
                self.globals.remove(name);
            }
        }
        Ok(())
    }

    /// `unset 'name[key]'`.
    pub fn unset_element(&mut self, name: &str, key: &Key) -> Result<(), String> {
        self.check_writable(name)?;
        let Some(var) = self.var_mut(name) else {
            return Ok(());
        };
        match (&mut var.value, key) {
            (Some(Value::Assoc(map)), key) => {
                Rc::make_mut(map).remove(&key.as_text());
            }
            (Some(Value::Indexed(map)), Key::Index(i)) => {
                let i = if *i < 0 {
                    let end = map.keys().next_back().map_or(0, |k| k + 1);
                    if end + i < 0 {
                        return Err(format!("[{i}]: bad array subscript"));
                    }
                    end + i
                } else {
                    *i
                };
                Rc::make_mut(map).remove(&i);
            }
            (Some(Value::Str(_)), Key::Index(0)) => var.value = None,
            _ => {}
        }
        Ok(())
    }

    /// Refuses (and un-exports) `name` if it is exported with a value longer than
    /// [`MAX_EXPORT`].
    pub fn check_export(&mut self, name: &str) -> Result<(), String> {
        let Some(var) = self.var_mut(name) else {
            return Ok(());
        };
        let len = match &var.value {
            Some(Value::Str(s)) => s.len(),
            Some(Value::Indexed(map)) => map.get(&0).map_or(0, String::len),
            Some(Value::Assoc(map)) => map.get("0").map_or(0, String::len),
            None => 0,
        };
        if var.attrs.export && len > MAX_EXPORT {
            var.attrs.export = false;
            return Err(too_large_to_export(name));
        }
        Ok(())
    }

    /// The exported variables, as commands see their environment.
    pub fn environment(&self) -> BTreeMap<String, String> {
        let mut env = BTreeMap::new();
        let scopes = std::iter::once(&self.globals).chain(self.frames.iter());
        for scope in scopes {
            for (name, var) in scope {
                // Arrays are never exported, even with the attribute (as in bash).
                match (var.attrs.export, &var.value) {
                    (true, Some(Value::Str(value))) => {
                        env.insert(name.clone(), value.clone());
                    }
                    _ => {
                        env.remove(name);
                    }
                }
            }
        }
        env
    }

    /// Every variable name visible, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.globals.keys().cloned().collect();
        names.extend(DYNAMIC_NAMES.iter().map(|n| n.to_string()));
        for frame in &self.frames {
            names.extend(frame.keys().cloned());
        }
        crate::sort::sort(&mut names);
        names.dedup();
        names
    }

    /// Evaluates arithmetic text against the variables.
    pub fn eval_arith(&mut self, text: &str) -> Result<i64, ArithError> {
        self.arith(text)
    }
}

/// An indexed array of `items`.
fn indexed(items: &[&str]) -> Value {
    // `extend`, not `collect`: collecting into a map compiles a sort per call site.
    let mut map = BTreeMap::new();
    map.extend(
        items
            .iter()
            .enumerate()
            .map(|(i, v)| (i as i64, v.to_string())),
    );
    Value::Indexed(Rc::new(map))
}

/// `a[2]` as `("a", "2")`: a name, then a subscript that runs to the final `]`.
pub fn split_element(text: &str) -> Option<(&str, &str)> {
    let (base, rest) = text.split_once('[')?;
    let key = rest.strip_suffix(']')?;
    (is_name(base) && !key.is_empty()).then_some((base, key))
}

/// An array subscript, resolved: a number for indexed arrays, text for associative ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    /// An index (negative counts from the end).
    Index(i64),
    /// A key.
    Assoc(String),
}

impl Key {
    /// The key as text.
    pub fn as_text(&self) -> String {
        self.clone().text()
    }

    /// The key as text.
    pub fn text(self) -> String {
        match self {
            Key::Index(i) => i.to_string(),
            Key::Assoc(s) => s,
        }
    }
}

/// The state as arithmetic sees it: unset is 0, `nounset` makes it an error.
pub struct ArithEnv<'a> {
    /// The state.
    pub state: &'a mut State,
}

impl ArithEnv<'_> {
    fn key(&self, name: &str, index: ArrayIndex<'_>) -> Key {
        match index {
            // `(( A['k'] ))`: quotes around a key are removed, as bash does.
            ArrayIndex::Key(k) => Key::Assoc(k.replace(['\'', '"'], "")),
            ArrayIndex::Int(i) if self.state.is_assoc(name) => Key::Assoc(i.to_string()),
            ArrayIndex::Int(i) => Key::Index(i),
        }
    }
}

impl ArithVars for ArithEnv<'_> {
    fn get(
        &mut self,
        name: &str,
        index: Option<ArrayIndex<'_>>,
    ) -> Result<Option<String>, ArithError> {
        let value = match index {
            None => self.state.get(name),
            Some(i) => {
                let key = self.key(name, i);
                self.state.element(name, &key)
            }
        };
        if value.is_none() && self.state.opts.nounset {
            let shown = match index {
                Some(ArrayIndex::Int(i)) => format!("{name}[{i}]"),
                Some(ArrayIndex::Key(k)) => format!("{name}[{k}]"),
                None => name.to_string(),
            };
            return Err(ArithError::new(format!("{shown}: unbound variable")));
        }
        Ok(value)
    }

    fn set(
        &mut self,
        name: &str,
        index: Option<ArrayIndex<'_>>,
        value: i64,
    ) -> Result<(), ArithError> {
        let result = match index {
            None => self.state.assign(name, value.to_string(), false),
            Some(i) => {
                let key = self.key(name, i);
                self.state
                    .assign_element(name, key, value.to_string(), false)
            }
        };
        result.map_err(ArithError::new)
    }

    fn is_associative(&mut self, name: &str) -> bool {
        self.state.is_assoc(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> State {
        State::new(Rc::new(|| 1_700_000_000_000.0))
    }

    #[test]
    fn locals_shadow_and_unset_reveals() {
        let mut s = state();
        assert_eq!(s.assign("x", "0".into(), false), Ok(()));
        s.frames.push(HashMap::new());
        s.local_entry("x").value = Some(Value::Str("1".into()));
        assert_eq!(s.get("x").as_deref(), Some("1"));
        s.frames.push(HashMap::new());
        assert_eq!(s.assign("x", "2".into(), false), Ok(()));
        assert_eq!(s.unset("x"), Ok(()));
        assert_eq!(s.get("x").as_deref(), Some("0"));
    }

    #[test]
    fn integer_and_case_attributes() {
        let mut s = state();
        s.var_entry("i").attrs.integer = true;
        assert_eq!(s.assign("i", "3+4".into(), false), Ok(()));
        assert_eq!(s.assign("i", "1".into(), true), Ok(()));
        assert_eq!(s.get("i").as_deref(), Some("8"));
        s.var_entry("l").attrs.lower = true;
        assert_eq!(s.assign("l", "AbC".into(), false), Ok(()));
        assert_eq!(s.get("l").as_deref(), Some("abc"));
    }

    #[test]
    fn sparse_arrays_and_negative_indices() {
        let mut s = state();
        let elements = vec![
            (None, "a".into()),
            (Some(Key::Index(5)), "b".into()),
            (None, "c".into()),
        ];
        assert_eq!(s.assign_array("a", elements, false), Ok(()));
        assert_eq!(
            s.var("a").map(Var::keys),
            Some(vec!["0".into(), "5".into(), "6".into()])
        );
        assert_eq!(s.element("a", &Key::Index(-1)).as_deref(), Some("c"));
        assert!(s
            .assign_element("a", Key::Index(-9), "x".into(), false)
            .is_err());
        assert_eq!(s.get("a").as_deref(), Some("a"));
    }

    #[test]
    fn readonly_refuses() {
        let mut s = state();
        s.var_entry("r").attrs.readonly = true;
        assert_eq!(
            s.assign("r", "1".into(), false),
            Err("r: readonly variable".into())
        );
        assert_eq!(
            s.unset("r"),
            Err("r: cannot unset: readonly variable".into())
        );
    }

    #[test]
    fn name_references_follow_to_the_target() {
        let mut s = state();
        let r = s.raw_entry("r");
        r.attrs.nameref = true;
        r.value = Some(Value::Str("t".into()));
        assert_eq!(s.assign("r", "1".into(), false), Ok(()));
        assert_eq!(
            (s.get("t").as_deref(), s.resolve("r")),
            (Some("1"), "t".into())
        );
        s.raw_entry("t").attrs.nameref = true;
        s.raw_entry("t").value = Some(Value::Str("r".into()));
        assert_eq!(s.resolve("r").len(), 1, "a loop ends after a few hops");
    }
}
