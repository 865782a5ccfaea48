//! The awk interpreter: program state (variables, the record, separators, files), the run
//! order (BEGIN, the main input record by record through every rule, END), the main input
//! (ARGV operands, `var=value` assignments between files, stdin), and fatal errors.

mod builtins;
mod fields;
mod input;
mod vm;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::array::Array;
use super::code::{slot, CPattern, Compiled};
use super::ere;
use super::io::{Io, IoStop};
use super::record::{FieldSep, Reader, RecSep};
use super::value::{Bytes, Value};
use crate::applets::common::Zone;
use crate::applets::Host;
use crate::limits::MAX_AWK_FIELDS;
use crate::task::yield_now;
use fields::Fields;
pub use input::{process_escapes, split_assignment};

/// Instructions between two yields to the scheduler (so the shell can check its deadline).
const TICKS_PER_YIELD: u32 = 4096;

/// How an action ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Ran to its end.
    Halt,
    /// `next`
    Next,
    /// `nextfile`
    NextFile,
    /// `exit`
    Exit,
}

/// Why the program stopped early.
#[derive(Debug)]
pub enum Stop {
    /// A fatal error: the message, gawk's word for it (`fatal`/`error`), and the exit status.
    Fatal(String, &'static str, i32),
    /// Standard output's reader went away.
    BrokenPipe,
}

impl Stop {
    /// A `fatal:` error (exit status 2).
    pub fn fatal(msg: impl Into<String>) -> Stop {
        Stop::Fatal(msg.into(), "fatal", 2)
    }
}

impl From<IoStop> for Stop {
    fn from(e: IoStop) -> Stop {
        match e {
            IoStop::BrokenPipe => Stop::BrokenPipe,
            IoStop::Fatal(msg) => Stop::fatal(msg),
        }
    }
}

/// What the command line set up.
pub struct Setup {
    /// The compiled program.
    pub prog: Compiled,
    /// ARGV (ARGV[0] is "awk").
    pub argv: Vec<String>,
    /// `-F`
    pub fs: Option<Vec<u8>>,
    /// `-v` assignments, in order.
    pub assigns: Vec<(String, Vec<u8>)>,
    /// "cmd. line" or the program file's name, for messages.
    pub source: String,
}

/// The main input: ARGV operands in turn, or stdin when there are none.
#[derive(Default)]
struct MainInput {
    reader: Option<Reader>,
    next_arg: usize,
    opened_any: bool,
    done: bool,
}

/// A for-in loop in progress: the keys as they were when it started.
struct ForIn {
    keys: Vec<Bytes>,
    at: usize,
}

/// A function call in progress.
struct Frame {
    /// Where to continue in the caller.
    ret: usize,
    /// The caller's locals base.
    caller_lbase: usize,
    /// Where this call's locals start (truncated on return).
    locals: usize,
    /// The value stack height before the arguments.
    stack: usize,
    /// The for-in loops open in the caller.
    iters: usize,
    /// The function (for error messages).
    func: u32,
}

/// A running awk program.
pub struct Interp {
    prog: Rc<Compiled>,
    globals: Vec<Value>,
    stack: Vec<Value>,
    locals: Vec<Value>,
    frames: Vec<Frame>,
    iters: Vec<ForIn>,
    fields: Fields,
    fs: Rc<FieldSep>,
    rs: RecSep,
    ofs: Bytes,
    ors: Bytes,
    subsep: Bytes,
    convfmt: Bytes,
    ofmt: Bytes,
    ignore_case: bool,
    regexes: ere::Cache,
    io: Io,
    main: MainInput,
    nr: f64,
    fnr: f64,
    rng: u64,
    seed: f64,
    exit_code: i32,
    ticks: u32,
    host: Rc<dyn Host>,
    /// The zone `TZ` names, for strftime and mktime.
    zone: Zone,
    rec_buf: Vec<u8>,
    rt_buf: Vec<u8>,
    range_on: Vec<bool>,
    source: String,
    /// Whether the main input has been opened (for `(FILENAME=... FNR=...)` in messages).
    in_main: bool,
    exiting: bool,
    /// Where the current function's locals start.
    lbase: usize,
    /// Fields come from FPAT (last assigned) rather than FS.
    use_fpat: bool,
    out_buf: Vec<u8>,
    pending_assigns: Vec<(String, Vec<u8>)>,
}

fn bytes(s: &[u8]) -> Bytes {
    Bytes::from(s)
}

impl Interp {
    /// A program ready to run with these files and this environment.
    pub fn new(setup: Setup, io: Io, env: &BTreeMap<String, String>, host: Rc<dyn Host>) -> Self {
        let prog = Rc::new(setup.prog);
        let fs = Rc::new(FieldSep::Space);
        let mut interp = Interp {
            globals: Vec::new(),
            stack: Vec::with_capacity(64),
            locals: Vec::new(),
            frames: Vec::new(),
            iters: Vec::new(),
            fields: Fields::new(Rc::clone(&fs)),
            fs,
            rs: RecSep::Byte(b'\n'),
            ofs: bytes(b" "),
            ors: bytes(b"\n"),
            subsep: bytes(b"\x1c"),
            convfmt: bytes(b"%.6g"),
            ofmt: bytes(b"%.6g"),
            ignore_case: false,
            regexes: ere::Cache::default(),
            io,
            main: MainInput::default(),
            nr: 0.0,
            fnr: 0.0,
            rng: 0,
            seed: 0.0,
            exit_code: 0,
            ticks: 0,
            host,
            zone: Zone::from_tz(env.get("TZ").map(String::as_str)),
            rec_buf: Vec::new(),
            rt_buf: Vec::new(),
            range_on: vec![false; prog.rules.len()],
            source: setup.source,
            in_main: false,
            exiting: false,
            lbase: 0,
            use_fpat: false,
            out_buf: Vec::new(),
            pending_assigns: Vec::new(),
            prog,
        };
        interp.init_globals(&setup.argv, env);
        interp.main.next_arg = 1;
        interp.seed_rng(1.0);
        if let Some(fs) = setup.fs {
            interp.globals[slot::FS as usize] = Value::Str(bytes(&fs));
        }
        interp.pending_assigns = setup.assigns;
        interp
    }

    fn init_globals(&mut self, argv: &[String], env: &BTreeMap<String, String>) {
        for (_, is_array) in &self.prog.globals {
            self.globals.push(if *is_array {
                Value::Arr(Rc::new(RefCell::new(Array::default())))
            } else {
                Value::Uninit
            });
        }
        let set = |g: &mut Vec<Value>, s: u32, v: Value| g[s as usize] = v;
        set(&mut self.globals, slot::FS, Value::str(b" "));
        set(&mut self.globals, slot::OFS, Value::str(b" "));
        set(&mut self.globals, slot::ORS, Value::str(b"\n"));
        set(&mut self.globals, slot::RS, Value::str(b"\n"));
        set(&mut self.globals, slot::SUBSEP, Value::str(b"\x1c"));
        set(&mut self.globals, slot::CONVFMT, Value::str(b"%.6g"));
        set(&mut self.globals, slot::OFMT, Value::str(b"%.6g"));
        set(&mut self.globals, slot::FILENAME, Value::str(b""));
        set(&mut self.globals, slot::RT, Value::str(b""));
        set(&mut self.globals, slot::FPAT, Value::str(b"[^[:space:]]+"));
        for s in [
            slot::NF,
            slot::NR,
            slot::FNR,
            slot::RSTART,
            slot::IGNORECASE,
        ] {
            set(&mut self.globals, s, Value::Num(0.0));
        }
        set(&mut self.globals, slot::RLENGTH, Value::Num(0.0));
        set(&mut self.globals, slot::ARGC, Value::Num(argv.len() as f64));
        if let Value::Arr(a) = &self.globals[slot::ENVIRON as usize] {
            let mut a = a.borrow_mut();
            for (k, v) in env {
                a.set(&bytes(k.as_bytes()), Value::strnum(v.as_bytes()));
            }
        }
        if let Value::Arr(a) = &self.globals[slot::ARGV as usize] {
            let mut a = a.borrow_mut();
            for (i, arg) in argv.iter().enumerate() {
                a.set(
                    &bytes(i.to_string().as_bytes()),
                    Value::strnum(arg.as_bytes()),
                );
            }
        }
        if let Value::Arr(a) = &self.globals[slot::PROCINFO as usize] {
            let mut a = a.borrow_mut();
            a.set(&bytes(b"version"), Value::str(b"5.2.1"));
            a.set(&bytes(b"FS"), Value::str(b"FS"));
            a.set(&bytes(b"pid"), Value::Num(1.0));
        }
    }

    /// Runs the whole program; resolves to the exit status. Errors are printed to stderr.
    pub async fn run_program(mut self) -> i32 {
        let status = match self.run_all().await {
            Ok(()) => self.exit_code,
            Err(Stop::BrokenPipe) => return 141,
            Err(Stop::Fatal(msg, kind, status)) => {
                let line = self.error_line(&msg, kind);
                let _ = self.io.stderr.write_str(&line).await;
                status
            }
        };
        match self.io.finish().await {
            Ok(()) => status,
            Err(IoStop::BrokenPipe) => 141,
            Err(IoStop::Fatal(msg)) => {
                let line = self.error_line(&msg, "fatal");
                let _ = self.io.stderr.write_str(&line).await;
                let _ = self.io.stderr.flush().await;
                2
            }
        }
    }

    /// gawk's message shapes: `awk: cmd. line:1: (FILENAME=f FNR=n) fatal: msg` while
    /// reading input, `error:` for division by zero, `awk: fatal:` for a first input that
    /// cannot be opened.
    fn error_line(&self, msg: &str, kind: &str) -> String {
        if kind == "open" {
            if self.in_main {
                return format!("awk: {}:1: fatal: {msg}\n", self.source);
            }
            return format!("awk: fatal: {msg}\n");
        }
        let place = if self.in_main && kind == "fatal" {
            let name = self.globals[slot::FILENAME as usize].to_bytes(b"%.6g");
            format!(
                "(FILENAME={} FNR={}) ",
                String::from_utf8_lossy(&name),
                self.fnr
            )
        } else {
            String::new()
        };
        format!("awk: {}:1: {place}{kind}: {msg}\n", self.source)
    }

    async fn run_all(&mut self) -> Result<(), Stop> {
        self.apply_settings()?;
        for (name, value) in std::mem::take(&mut self.pending_assigns) {
            self.assign_var(&name, &value).await?;
        }
        let prog = Rc::clone(&self.prog);
        for &chunk in &prog.begin {
            if self.run_chunk(chunk).await? == Flow::Exit {
                return self.run_end(&prog).await;
            }
        }
        let reads_input = !prog.rules.is_empty()
            || !prog.end.is_empty()
            || !prog.begin_file.is_empty()
            || !prog.end_file.is_empty();
        if reads_input && self.main_loop(&prog).await? == Flow::Exit {
            return self.run_end(&prog).await;
        }
        self.run_end(&prog).await
    }

    async fn run_end(&mut self, prog: &Compiled) -> Result<(), Stop> {
        if self.exiting {
            return Ok(());
        }
        self.exiting = true;
        for &chunk in &prog.end {
            if self.run_chunk(chunk).await? == Flow::Exit {
                break;
            }
        }
        Ok(())
    }

    /// Runs a BEGIN/END/BEGINFILE chunk: `next` there is not meaningful and ends it.
    async fn run_chunk(&mut self, pc: u32) -> Result<Flow, Stop> {
        // Boxed: BEGINFILE/ENDFILE chunks run from inside `getline`, itself inside `run`.
        let chunk: crate::task::LocalFuture<'_, Result<Flow, Stop>> =
            Box::pin(self.run(pc as usize));
        chunk.await
    }

    async fn main_loop(&mut self, prog: &Compiled) -> Result<Flow, Stop> {
        while self.next_main_record().await? {
            self.tick().await;
            match self.run_rules(prog).await? {
                Flow::Exit => return Ok(Flow::Exit),
                Flow::NextFile => self.end_file().await?,
                _ => {}
            }
        }
        Ok(Flow::Halt)
    }

    async fn run_rules(&mut self, prog: &Compiled) -> Result<Flow, Stop> {
        for (i, rule) in prog.rules.iter().enumerate() {
            let matched = match rule.pattern {
                CPattern::All => Ok(true),
                CPattern::Expr(pc) => self.test(pc).await?,
                CPattern::Range(start, stop) => self.in_range(i, start, stop).await?,
            };
            let matched = match matched {
                Ok(matched) => matched,
                // A pattern that calls a function that runs `next` or `exit`.
                Err(flow) => return Ok(flow),
            };
            if !matched {
                continue;
            }
            match self.run(rule.action as usize).await? {
                Flow::Halt => {}
                Flow::Next => return Ok(Flow::Next),
                other => return Ok(other),
            }
        }
        Ok(Flow::Halt)
    }

    /// A pattern's truth, or the flow (`next`, `exit`) that interrupted it.
    async fn test(&mut self, pc: u32) -> Result<Result<bool, Flow>, Stop> {
        Ok(match self.run(pc as usize).await? {
            Flow::Halt => Ok(self.pop().truthy()),
            flow => Err(flow),
        })
    }

    async fn in_range(
        &mut self,
        i: usize,
        start: u32,
        stop: u32,
    ) -> Result<Result<bool, Flow>, Stop> {
        if !self.range_on[i] {
            match self.test(start).await? {
                Ok(true) => self.range_on[i] = true,
                other => return Ok(other),
            }
        }
        match self.test(stop).await? {
            Ok(true) => self.range_on[i] = false,
            Ok(false) => {}
            Err(flow) => return Ok(Err(flow)),
        }
        Ok(Ok(true))
    }

    /// Lets other tasks (and the shell's deadline check) run now and then.
    async fn tick(&mut self) {
        self.ticks += 1;
        if self.ticks >= TICKS_PER_YIELD {
            self.ticks = 0;
            yield_now().await;
        }
    }

    // ---- special variables ----

    /// Assigns a global, running the special variables' hooks.
    fn set_global(&mut self, s: u32, value: Value) -> Result<(), Stop> {
        if s >= slot::SPECIAL_SCALARS {
            self.globals[s as usize] = value;
            return Ok(());
        }
        match s {
            slot::NF => {
                let n = value.num();
                if n < 0.0 {
                    return Err(Stop::fatal("NF set to negative value"));
                }
                if n > MAX_AWK_FIELDS as f64 {
                    return Err(Stop::fatal(format!("NF set to {n}: too many fields")));
                }
                self.fields.set_nf(n as usize);
                self.globals[s as usize] = value;
                return Ok(());
            }
            slot::NR => self.nr = value.num().trunc(),
            slot::FS => self.use_fpat = false,
            slot::FPAT => self.use_fpat = true,
            slot::FNR => self.fnr = value.num().trunc(),
            slot::OFS if self.fields.is_stale() => {
                // gawk rebuilds $0 with the old OFS before it changes.
                let (ofs, convfmt) = (self.ofs.clone(), self.convfmt.clone());
                self.fields.rebuild(&ofs, &convfmt);
            }
            _ => {}
        }
        self.globals[s as usize] = value;
        self.apply_settings()
    }

    /// Re-reads the separators and formats from their variables.
    fn apply_settings(&mut self) -> Result<(), Stop> {
        let g = |s: u32| self.globals[s as usize].to_bytes(b"%.6g");
        let (fs, rs) = (g(slot::FS), g(slot::RS));
        self.ofs = g(slot::OFS);
        self.ors = g(slot::ORS);
        self.subsep = g(slot::SUBSEP);
        self.convfmt = g(slot::CONVFMT);
        self.ofmt = g(slot::OFMT);
        self.ignore_case = self.globals[slot::IGNORECASE as usize].truthy();
        self.rs = RecSep::new(&rs, self.ignore_case).map_err(Stop::fatal)?;
        let paragraph = matches!(self.rs, RecSep::Paragraph);
        let sep = if self.use_fpat {
            let fpat = g(slot::FPAT);
            FieldSep::Pattern(Rc::new(
                ere::compile(&fpat, self.ignore_case).map_err(Stop::fatal)?,
            ))
        } else {
            FieldSep::new(&fs, self.ignore_case, paragraph).map_err(Stop::fatal)?
        };
        self.fs = Rc::new(sep);
        Ok(())
    }

    // ---- the value stack ----

    fn pop(&mut self) -> Value {
        self.stack.pop().unwrap_or(Value::Uninit)
    }

    fn push(&mut self, v: Value) {
        self.stack.push(v);
    }

    fn seed_rng(&mut self, seed: f64) {
        self.seed = seed;
        // splitmix64 of the seed: a deterministic sequence per seed.
        self.rng = (seed.to_bits()).wrapping_add(0x9e37_79b9_7f4a_7c15);
    }

    fn next_rand(&mut self) -> f64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}
