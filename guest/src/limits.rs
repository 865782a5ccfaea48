//! Every limit the guest enforces, in one table.
//!
//! [`Limits`] is what the host configures: `corral.limits.Limits` maps onto it
//! (`Limits.to_guest()`). The constants below are fixed: each bounds a loop, a recursion, an
//! expansion or a buffer that the configurable limits do not cover, so that no input can hang
//! the guest or overflow its stack. The docs page on limits (`docs/limits.rst`) lists them,
//! and a test checks that list against this file. (One more lives in JavaScript, where it is
//! used: the prelude's `MAX_DEPTH`, how deeply `console.log` formats nested values.)

use serde::Deserialize;

/// The limits the host configures (`corral.limits.Limits`, as `Limits.to_guest()` sends it).
/// `Limits.timeout` travels with each job instead (`timeout_ms`), and `Limits.max_tool_calls`
/// is enforced by the host.
#[derive(Deserialize, Clone)]
pub struct Limits {
    /// QuickJS heap limit in bytes (`Limits.memory`).
    pub memory: u64,
    /// Cap on captured stdout and on captured stderr, each, per execution
    /// (`Limits.max_output`).
    pub max_output: u64,
    /// Quotas of the virtual filesystem (`Limits.max_fs_bytes`, `max_files`, `max_file_size`).
    #[serde(default)]
    pub vfs: crate::vfs::VfsLimits,
}

impl Limits {
    /// The guest's memory beyond the heap and the files (the host's `GUEST_OVERHEAD`).
    const OVERHEAD: u64 = 64 << 20;

    /// The most bytes the guest's linear memory may hold (the host's `Limits.wasm_memory`).
    pub fn wasm_memory(&self) -> u64 {
        self.memory
            .saturating_add(self.vfs.max_bytes)
            .saturating_add(Self::OVERHEAD)
    }
}

// --- JavaScript --------------------------------------------------------------------------------

/// The largest value an execution may return, in bytes of JSON: it is copied out of the heap.
pub const MAX_RETURN: usize = 16 << 20;

// --- the shell: parsing --------------------------------------------------------------------------

/// How deeply constructs may nest (commands, quotes, expansions, braces) before the parser
/// gives up with an error instead of risking the stack. Measured under wasmtime, a level
/// costs 1.1 to 1.8 KiB of wasm stack (at most about 175 KiB at the limit, of wasmtime's
/// default 512 KiB); real scripts stay far below 100 levels.
pub const MAX_SYNTAX_DEPTH: usize = 100;

/// How deeply arithmetic may nest (parentheses, operator chains, variables whose values are
/// expressions) before evaluation fails. A level of parentheses costs about 0.35 KiB of wasm
/// stack.
pub const MAX_ARITH_DEPTH: usize = 100;

/// How many lines back from a syntax error to look for where the failing command starts (each
/// line tried is a parse).
pub const MAX_ERROR_LOOKBACK: usize = 256;

// --- the shell: running ------------------------------------------------------------------------

/// Deepest nesting of commands: every command counts one level, and `eval`, `source`,
/// substitutions, subshells and scripts one more each (a function call is its command and
/// its body: `f() { f; }` recurses 100 deep, `f() { if ...; then f; fi; }` 66).
///
/// Polling nested futures nests calls on the machine stack, which under WebAssembly is
/// wasmtime's `max_wasm_stack` (512 KiB by default) or the browser's. Measured on the release
/// wasm build under wasmtime's defaults, the costliest construct (a function whose body is a
/// `for` around a `while` around an `if`) exhausts 512 KiB at about 440 levels; simple
/// recursion (`f() { if ...; then f; fi; }`) at about 530. 200 levels keep the shell under
/// half of that, leaving the rest to the applet running at the deepest level.
pub const MAX_COMMAND_DEPTH: usize = 200;

/// Longest value a variable, one expansion or one `$(...)` may hold, in bytes. The session's
/// variables live in the guest's own memory and are saved after every execution: large data
/// belongs in files.
pub const MAX_VALUE: usize = 16 << 20;

/// Most bytes a command substitution captures before its writer is stopped: the most a
/// variable may hold.
pub const MAX_CAPTURE: usize = MAX_VALUE;

/// Longest value an exported variable may hold, in bytes (Linux's limit on one environment
/// string): every command gets a copy of the environment.
pub const MAX_EXPORT: usize = 128 << 10;

/// Most bytes the saved session may take at the end of an execution (it is saved after every
/// execution, so that it survives a crash). The guest's own memory (64 MiB beyond the heap and
/// the files, the host's `GUEST_OVERHEAD`) holds the session and, while it is saved, its copy.
pub const MAX_SESSION: usize = 24 << 20;

/// Largest saved session the guest accepts to restore, in bytes.
pub const MAX_SAVED_SESSION: usize = 256 << 20;

/// Name references followed before giving up (bash warns of a loop at about this depth).
pub const MAX_NAMEREF_HOPS: usize = 8;

/// The highest file descriptor number accepted in redirections: bash's below the `ulimit -n`
/// soft limit the shell reports (1024). The table is dense, so only scripts that use a high
/// number pay for its slots.
pub const MAX_FD: u32 = 1023;

/// Most background jobs (`cmd &`, `coproc`) of one run that may be running at once; one
/// more fails as a `fork` past `ulimit -u` does. Bounds fork bombs (`f() { f & f & }; f`),
/// whose jobs the executor polls together.
pub const MAX_JOBS: usize = 1000;

/// Most words one brace expansion may produce. A word costs about 240 bytes of the guest's
/// own memory while the command's arguments are built (64 MiB beyond the heap and the files):
/// `: {1..300000}` exhausted it and restarted the sandbox.
pub const MAX_BRACE_WORDS: usize = 200_000;

/// Most paths one glob pattern may expand to.
pub const MAX_GLOB_RESULTS: usize = 100_000;

/// Most directories one glob pattern may read (`**`-like walks of a big tree).
pub const MAX_GLOB_DIRS: usize = 20_000;

/// How deeply extended patterns and stars may nest in the pattern matcher (it recurses).
pub const MAX_PATTERN_DEPTH: usize = 200;

// --- applets -----------------------------------------------------------------------------------

/// awk: nesting depth beyond which a program is refused (a bound on parser recursion).
pub const MAX_AWK_NESTING: usize = 200;

/// awk: the deepest function call nesting (frames live on the heap; this bounds memory).
pub const MAX_AWK_CALL_DEPTH: usize = 20_000;

/// awk: the longest string a program may build, in bytes (bounds memory).
pub const MAX_AWK_STRING: usize = 64 << 20;

/// awk: the most fields a record may be given by assignment (bounds memory).
pub const MAX_AWK_FIELDS: usize = 1_000_000;

/// bc: deeper nesting of parentheses or braces is refused (the parser recurses on it).
pub const MAX_BC_NESTING: usize = 200;

/// bc: the deepest function call nesting (a runtime error past it, as GNU bc gives when it
/// runs out of memory). bc's calls recurse on the machine stack: measured on the release
/// build under wasmtime's 512 KiB `max_wasm_stack`, the simplest recursion
/// (`define f(n) { if (n == 0) return 0; return f(n-1) }`) trapped between 600 and 700
/// levels; the shadow-stack budget in bc's interpreter did not see it coming.
pub const MAX_BC_CALL_DEPTH: usize = 250;

/// grep: at most this many alternatives are tried one by one for the longest match.
pub const MAX_GREP_BRANCHES: usize = 16;

/// Regular expressions with back-references (grep, sed, expr, `[[ =~ ]]`): the most
/// instructions one compiles to (counted repetitions are unrolled).
pub const MAX_BACKREF_PROGRAM: usize = 1 << 16;

/// Regular expressions (grep, sed, awk, expr, find, `[[ =~ ]]`): the most pieces (characters,
/// classes, assertions) one may unroll to once its counted repetitions are written out
/// (`a{1000}{1000}` is a million): compiling more took seconds without a look at the deadline.
pub const MAX_REGEX_UNROLLED: u64 = 1 << 18;

/// Regular expressions with back-references: the most backtracking steps one search may
/// take; a search that needs more matches nothing there (GNU's matcher would run on in
/// exponential time).
pub const MAX_BACKREF_STEPS: u64 = 1 << 25;

/// jq: how many alternatives one program may rewrite (each copies its body once per pattern).
pub const MAX_JQ_REWRITES: usize = 64;

/// jq: nesting deeper than this is refused as jq 1.8 refuses it: input (`Exceeds depth limit
/// for parsing`), output (`<skipped: too deep>`), paths (`Path too deep`). The deep values are
/// walked with stacks on the heap (`applets/jq/deep.rs`), not by recursion.
pub const MAX_JQ_DEPTH: usize = 10_000;

/// The longest line a command reads from a pipe or a device, in bytes: a longer one (an
/// endless input without newlines, `cut -c1 /dev/zero`) fails the command with a message
/// instead of growing one line until the guest's own memory (64 MiB beyond the heap and
/// the files) is gone. GNU's tools have no limit and fail with "memory exhausted"; files
/// are bounded by `max_file_size` already. A command reading a device whole (`tac
/// /dev/zero`) fails the same way at once. awk records (`RS=""`, `RS="^$"`), jq tokens,
/// `read` and `mapfile` lines stop there too (`Input::past_limit`).
pub const MAX_LINE: usize = 16 << 20;

/// xargs: bytes of one command line, GNU's default size limit.
pub const MAX_XARGS_CHARS: usize = 128 * 1024;

/// printf: the widest field width or precision. A directive's text is built in memory;
/// bash would print `%0*d` with a width of 200,000,000, which would exhaust the sandbox's.
/// `date`'s and `%(...)T`'s padding widths stop at it too.
pub const MAX_PRINTF_FIELD: u64 = 16 << 20;

/// dd: the largest `ibs=`/`obs=`/`bs=`. A block is held in memory while it fills; GNU refuses
/// a buffer it cannot allocate the same way ("memory exhausted by input buffer").
pub const MAX_DD_BLOCK: u64 = 64 << 20;

// --- files -------------------------------------------------------------------------------------

/// Symlinks followed in one path resolution before giving up with ELOOP (Linux's limit).
pub const MAX_SYMLINK_HOPS: u32 = 40;
/// Names (hard links) one file may have; one more is EMLINK (ext4's limit).
pub const MAX_LINKS: u32 = 65_000;
