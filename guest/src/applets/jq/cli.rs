//! `jq [options] FILTER [FILE...]`: the command line, the input loop and jq's exit statuses.

use std::cell::RefCell;
use std::rc::Rc;

use jaq_core::{Ctx as JaqCtx, Vars};

use super::engine::{self, Env, Filter, Shared};
use super::fast::Program;
use super::funs::object;
use super::input::{Inputs, Next, Source};
use super::items::{self, Split};
use super::json::{self, ArrayItems, Format};
use super::map::Map;
use super::val::Val;
use crate::applets::common::Zone;
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture, WriteError};

/// The `jq` applet.
pub const APPLET: Applet = Applet {
    name: "jq",
    usage: USAGE,
    help: Help::Own,
    run,
};

const USAGE: &str = "Usage:\tjq [OPTIONS] FILTER [FILES...]
\tjq [OPTIONS] --args FILTER [STRINGS...]
\tjq [OPTIONS] --jsonargs FILTER [JSON_TEXTS...]

jq is a tool for processing JSON inputs, applying the given filter to
its JSON text inputs and producing the filter's results as JSON on
standard output.

Command options:
  -n, --null-input          use `null` as the single input value;
  -R, --raw-input           read each line as string instead of JSON;
  -s, --slurp               read all inputs into an array and use it as
                            the single input value;
  -c, --compact-output      compact instead of pretty-printed output;
  -r, --raw-output          output strings without escapes and quotes;
      --raw-output0         implies -r and output NUL after each output;
  -j, --join-output         implies -r and output without newline after
                            each output;
  -a, --ascii-output        output strings by only ASCII characters
                            using escape sequences;
  -S, --sort-keys           sort keys of each object on output;
  -C, --color-output        colorize JSON output;
  -M, --monochrome-output   disable colored output;
      --tab                 use tabs for indentation;
      --indent n            use n spaces for indentation (max 7 spaces);
      --stream              parse the input value in streaming fashion;
      --seq                 parse input/output as application/json-seq;
  -f, --from-file file      load filter from the file;
      --arg name value      set $name to the string value;
      --argjson name value  set $name to the JSON value;
      --slurpfile name file set $name to an array of JSON values read
                            from the file;
      --rawfile name file   set $name to string contents of file;
      --args                consume remaining arguments as positional
                            string values;
      --jsonargs            consume remaining arguments as positional
                            JSON values;
  -e, --exit-status         set exit status code based on the output;
  -V, --version             show the version;
  -h, --help                show the help;
  --                        terminates argument processing;";

const HINT: &str = "Use jq --help for help with command-line options,\nor see the jq manpage, or online docs  at https://jqlang.github.io/jq";

/// Per-input results, as jq's `process` returns them.
const NO_OUTPUT: i32 = -4;
const NULL_KIND: i32 = -1;
const ERROR: i32 = 5;

/// Output layout: the last of `-c`, `--tab`, `--indent N` wins.
#[derive(Clone, Copy, Default)]
enum Layout {
    #[default]
    Default,
    Compact,
    Tab,
    Spaces(usize),
}

#[derive(Default)]
struct Opts {
    filter: Option<String>,
    from_file: Option<String>,
    files: Vec<String>,
    null_input: bool,
    raw_input: bool,
    slurp: bool,
    raw_output: bool,
    join: bool,
    raw0: bool,
    ascii: bool,
    layout: Layout,
    sort_keys: bool,
    color: bool,
    exit_status: bool,
    seq: bool,
    stream: bool,
    help: bool,
    version: bool,
    named: Vec<(String, NamedArg)>,
    positional: Vec<Val>,
    /// `-L DIR`: where `import` and `include` look for modules.
    lib_dirs: Vec<String>,
}

enum NamedArg {
    Text(String),
    Json(Val),
    SlurpFile(String),
    RawFile(String),
}

/// Why the command line was refused: the message, and whether the `Use jq --help` hint follows.
struct ArgError(String, bool);

fn usage(msg: impl Into<String>) -> ArgError {
    ArgError(msg.into(), true)
}

fn short_flag(opts: &mut Opts, c: char) -> bool {
    match c {
        'n' => opts.null_input = true,
        'R' => opts.raw_input = true,
        's' => opts.slurp = true,
        'r' => opts.raw_output = true,
        'j' => (opts.raw_output, opts.join) = (true, true),
        'a' => opts.ascii = true,
        'c' => opts.layout = Layout::Compact,
        'S' => opts.sort_keys = true,
        'C' => opts.color = true,
        'M' => opts.color = false,
        'e' => opts.exit_status = true,
        'h' => opts.help = true,
        'V' => opts.version = true,
        _ => return false,
    }
    true
}

fn long_flag(opts: &mut Opts, name: &str) -> bool {
    match name {
        "null-input" => opts.null_input = true,
        "raw-input" => opts.raw_input = true,
        "slurp" => opts.slurp = true,
        "raw-output" => opts.raw_output = true,
        "raw-output0" => (opts.raw_output, opts.raw0) = (true, true),
        "join-output" => (opts.raw_output, opts.join) = (true, true),
        "ascii-output" => opts.ascii = true,
        "compact-output" => opts.layout = Layout::Compact,
        "sort-keys" => opts.sort_keys = true,
        "color-output" => opts.color = true,
        "monochrome-output" => opts.color = false,
        "tab" => opts.layout = Layout::Tab,
        "exit-status" => opts.exit_status = true,
        "seq" => opts.seq = true,
        "stream" => opts.stream = true,
        "unbuffered" | "stream-errors" => {}
        "help" => opts.help = true,
        "version" => opts.version = true,
        _ => return false,
    }
    true
}

fn parse_args(args: &[String]) -> Result<Opts, ArgError> {
    let mut opts = Opts::default();
    let mut positional_mode: Option<bool> = None; // Some(json?) after --args / --jsonargs
    let mut only_operands = false;
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        // jq takes `-1`, `-.a`, `-"x"` as programs: only `-letter` and `--` start options.
        let second = arg.chars().nth(1);
        let is_option = !only_operands
            && arg.starts_with('-')
            && second.is_some_and(|c| c.is_ascii_alphabetic() || c == '-');
        if !is_option {
            operand(&mut opts, arg, positional_mode)?;
            continue;
        }
        if arg == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            if long_flag(&mut opts, long) {
                continue;
            }
            i = long_with_values(&mut opts, long, args, i, &mut positional_mode)?;
            continue;
        }
        let flags = &arg[1..];
        if flags == "f" || flags == "L" {
            let value = args
                .get(i)
                .ok_or_else(|| usage(format!("-{flags} takes a parameter")))?;
            i += 1;
            if flags == "f" {
                opts.from_file = Some(value.clone());
            } else {
                opts.lib_dirs.push(value.clone());
            }
            continue;
        }
        if let Some(dir) = flags.strip_prefix('L').filter(|d| !d.is_empty()) {
            opts.lib_dirs.push(dir.to_string());
            continue;
        }
        let mut flag_opts = Opts::default();
        if !flags.chars().all(|c| short_flag(&mut flag_opts, c)) {
            return Err(usage(format!("Unknown option {arg}")));
        }
        for c in flags.chars() {
            short_flag(&mut opts, c);
        }
    }
    Ok(opts)
}

fn operand(opts: &mut Opts, arg: &str, positional_mode: Option<bool>) -> Result<(), ArgError> {
    if opts.filter.is_none() && opts.from_file.is_none() {
        opts.filter = Some(arg.to_string());
        return Ok(());
    }
    match positional_mode {
        None => opts.files.push(arg.to_string()),
        Some(false) => opts.positional.push(Val::str(arg)),
        Some(true) => {
            let v = json::parse_one(arg)
                .map_err(|_| usage("Invalid JSON text passed to --jsonargs"))?;
            opts.positional.push(v);
        }
    }
    Ok(())
}

fn long_with_values(
    opts: &mut Opts,
    long: &str,
    args: &[String],
    mut i: usize,
    positional_mode: &mut Option<bool>,
) -> Result<usize, ArgError> {
    let two = |i: usize| -> Result<(String, String), ArgError> {
        match (args.get(i), args.get(i + 1)) {
            (Some(a), Some(b)) => Ok((a.clone(), b.clone())),
            _ => Err(usage(format!(
                "--{long} takes two parameters (e.g. --{long} varname {})",
                if long == "arg" { "value" } else { "filename" }
            ))),
        }
    };
    match long {
        "args" => *positional_mode = Some(false),
        "jsonargs" => *positional_mode = Some(true),
        "arg" => {
            let (name, value) = two(i)?;
            opts.named.push((name, NamedArg::Text(value)));
            i += 2;
        }
        "argjson" => {
            let (name, value) = two(i)?;
            let v = json::parse_one(&value)
                .map_err(|_| usage("invalid JSON text passed to --argjson"))?;
            opts.named.push((name, NamedArg::Json(v)));
            i += 2;
        }
        "slurpfile" | "rawfile" => {
            let (name, file) = two(i)?;
            let arg = if long == "slurpfile" {
                NamedArg::SlurpFile(file)
            } else {
                NamedArg::RawFile(file)
            };
            opts.named.push((name, arg));
            i += 2;
        }
        "indent" => {
            let n = args
                .get(i)
                .ok_or_else(|| usage("--indent takes one parameter"))?;
            let n: i64 = n.parse().map_err(|_| usage("--indent takes a number"))?;
            if !(-1..=7).contains(&n) {
                return Err(usage("--indent takes a number between -1 and 7"));
            }
            opts.layout = Layout::Spaces(n.max(0) as usize);
            i += 1;
        }
        "library-path" => {
            let dir = args
                .get(i)
                .ok_or_else(|| usage("--library-path takes a parameter"))?;
            opts.lib_dirs.push(dir.clone());
            i += 1;
        }
        "from-file" => {
            let file = args
                .get(i)
                .ok_or_else(|| usage("--from-file takes a parameter"))?;
            opts.from_file = Some(file.clone());
            i += 1;
        }
        _ => return Err(usage(format!("Unknown option --{long}"))),
    }
    Ok(i)
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn say(ctx: &mut Ctx, text: &str) {
    let _ = ctx.stderr.write_str(text).await;
}

async fn main(mut ctx: Ctx) -> i32 {
    let mut opts = match parse_args(&ctx.args) {
        Ok(opts) => opts,
        Err(ArgError(msg, hint)) => {
            let hint = if hint {
                format!("\n{HINT}")
            } else {
                String::new()
            };
            say(&mut ctx, &format!("jq: {msg}{hint}\n")).await;
            return 2;
        }
    };
    if opts.help {
        let _ = ctx.stdout.write_str(USAGE).await;
        let _ = ctx.stdout.write_str("\n").await;
        return finish(&mut ctx, 0).await;
    }
    if opts.version {
        let _ = ctx.stdout.write_str("jq-1.8.2\n").await;
        return finish(&mut ctx, 0).await;
    }
    let program = match program_text(&mut ctx, &mut opts) {
        Ok(program) => program,
        Err(msg) => {
            say(&mut ctx, &format!("jq: {msg}\n")).await;
            return 2;
        }
    };
    let named = match named_values(&ctx, &opts) {
        Ok(named) => named,
        Err(msg) => {
            say(&mut ctx, &format!("jq: {msg}\n")).await;
            return 2;
        }
    };
    let names = engine::global_names(&named);
    let (vfs, cwd) = (Rc::clone(&ctx.vfs), ctx.cwd.clone());
    let read = move |path: &str| {
        let data = vfs.borrow().read_shared(&cwd, path).ok()?;
        Some(String::from_utf8_lossy(&data).into_owned())
    };
    let modules = engine::Modules {
        dirs: module_dirs(&ctx, &opts),
        read: Box::new(read),
    };
    let (filter, data) = match engine::compile(&program, &names, &modules) {
        Ok(compiled) => compiled,
        Err(errors) => {
            let mut text = String::new();
            for e in &errors {
                text.push_str(&format!("jq: error: {}\n", e.message));
            }
            let n = errors.len();
            let s = if n == 1 { "" } else { "s" };
            text.push_str(&format!("jq: {n} compile error{s}\n"));
            say(&mut ctx, &text).await;
            return 3;
        }
    };
    let mut globals = global_values(&ctx, &opts, named);
    globals.extend(data);
    // (`input` reads values the items would have to be read before: the whole array first.)
    let whole_inputs = opts.null_input || opts.slurp || opts.stream || opts.raw_input;
    let whole = Program::new(filter, &super::desugar::rewrite(&program));
    let compiled = Compiled {
        program: &whole,
        unsplit: (!whole_inputs && !program.contains("input")).then_some((&program, &names)),
    };
    execute(&mut ctx, &opts, &program, compiled, globals, modules).await
}

/// The module search path: the `-L` directories, or jq's default `~/.jq` (then
/// `$ORIGIN/../lib/jq` and `$ORIGIN/../lib`, which the sandbox does not have).
fn module_dirs(ctx: &Ctx, opts: &Opts) -> Vec<String> {
    let home = ctx.env.get("HOME").cloned().unwrap_or_default();
    let expand = |d: &String| match d.strip_prefix('~') {
        Some(rest) => format!("{home}{rest}"),
        None => d.clone(),
    };
    if opts.lib_dirs.is_empty() {
        return vec![format!("{home}/.jq")];
    }
    opts.lib_dirs.iter().map(expand).collect()
}

/// The program: `-f FILE`'s contents, the FILTER operand, or `.` when there is none.
fn program_text(ctx: &mut Ctx, opts: &mut Opts) -> Result<String, String> {
    if let Some(file) = &opts.from_file {
        if let Some(filter) = opts.filter.take() {
            opts.files.insert(0, filter);
        }
        let data = ctx
            .vfs
            .borrow()
            .read_shared(&ctx.cwd, file)
            .map_err(|e| format!("Could not open {file}: {}", e.code))?;
        return Ok(String::from_utf8_lossy(&data).into_owned());
    }
    Ok(opts.filter.clone().unwrap_or_else(|| ".".to_string()))
}

fn named_values(ctx: &Ctx, opts: &Opts) -> Result<Vec<(String, Val)>, String> {
    let mut out = Vec::new();
    for (name, arg) in &opts.named {
        let v = match arg {
            NamedArg::Text(s) => Val::str(s),
            NamedArg::Json(v) => v.clone(),
            NamedArg::SlurpFile(file) | NamedArg::RawFile(file) => {
                let kind = if matches!(arg, NamedArg::SlurpFile(_)) {
                    "slurpfile"
                } else {
                    "rawfile"
                };
                let data = ctx.vfs.borrow().read_shared(&ctx.cwd, file).map_err(|e| {
                    format!(
                        "Bad JSON in --{kind} {name} {file}: Could not open {file}: {}",
                        e.code
                    )
                })?;
                if kind == "rawfile" {
                    Val::from(String::from_utf8_lossy(&data).into_owned())
                } else {
                    let values = json::parse_all(&data)
                        .map_err(|e| format!("Bad JSON in --{kind} {name} {file}: {e}"))?;
                    Val::arr(values)
                }
            }
        };
        out.push((name.clone(), v));
    }
    Ok(out)
}

fn global_values(ctx: &Ctx, opts: &Opts, named: Vec<(String, Val)>) -> Vec<Val> {
    let env: Map = ctx
        .env
        .iter()
        .map(|(k, v)| (Rc::from(k.as_str()), Val::str(v)))
        .collect();
    let loc = object(vec![
        ("file", Val::str("<top-level>")),
        ("line", Val::num(1.0)),
    ]);
    let named_obj: Map = named
        .iter()
        .map(|(k, v)| (Rc::from(k.as_str()), v.clone()))
        .collect();
    let args = object(vec![
        ("positional", Val::arr(opts.positional.clone())),
        ("named", Val::Obj(Rc::new(named_obj))),
    ]);
    let mut values = vec![Val::Obj(Rc::new(env)), loc, args];
    values.extend(named.into_iter().map(|(_, v)| v));
    values
}

/// Opens the input files (reporting those that cannot be read, as jq does).
async fn open_sources(ctx: &mut Ctx, files: &[String]) -> (Vec<Source>, bool) {
    if files.is_empty() {
        let stdin = std::mem::replace(&mut ctx.stdin, Input::empty());
        return (
            vec![Source {
                name: None,
                input: stdin,
            }],
            true,
        );
    }
    let mut sources = Vec::new();
    let mut ok = true;
    for file in files {
        let data = ctx.vfs.borrow().read_shared(&ctx.cwd, file);
        match data {
            Ok(data) => sources.push(Source {
                name: Some(file.clone()),
                input: Input::bytes(data),
            }),
            Err(e) => {
                ok = false;
                let msg = format!("jq: error: Could not open file {file}: {}\n", e.code);
                say(ctx, &msg).await;
            }
        }
    }
    (sources, ok)
}

/// The compiled program, and its text and global names while it may be split
/// ([`items::split`]).
struct Compiled<'a> {
    program: &'a Program,
    unsplit: Option<(&'a str, &'a [String])>,
}

/// Arrays from this many bytes on are read an item at a time by a program that only iterates
/// them: smaller ones are not worth compiling its parts (about a millisecond each).
const SPLIT_MIN: usize = 1 << 20;

/// Everything about one run that the per-input loop needs.
struct Run<'a> {
    opts: &'a Opts,
    program: &'a Program,
    /// The program's text and global names until it is split (at the first big array).
    unsplit: Option<(&'a str, &'a [String])>,
    /// The split program, once made.
    split: Option<Rc<Split>>,
    env: &'a Env<'a>,
    vars: Vars<Val>,
    format: Format,
    outputs: u64,
}

/// What ended the run early.
enum Stop {
    /// `halt` / `halt_error` with this exit status.
    Halt(i32),
    /// The reader of stdout went away, or stdout refused the bytes.
    Output(i32),
}

async fn execute(
    ctx: &mut Ctx,
    opts: &Opts,
    program: &str,
    compiled: Compiled<'_>,
    globals: Vec<Val>,
    modules: engine::Modules,
) -> i32 {
    let (sources, files_ok) = open_sources(ctx, &opts.files).await;
    let mut inputs = Inputs::new(sources, opts.raw_input);
    let input_ok = program.contains("input");
    if input_ok {
        inputs.preload().await;
    }
    let shared = RefCell::new(Shared {
        inputs,
        filename: None,
        stderr: Vec::new(),
        now: ctx.host.now_ms() / 1000.0,
        input_ok,
        modules,
        zone: Zone::from_tz(ctx.env.get("TZ").map(String::as_str)),
    });
    let env = Env {
        lut: &compiled.program.filter.lut,
        shared: &shared,
    };
    let mut run = Run {
        opts,
        program: compiled.program,
        unsplit: compiled.unsplit,
        split: None,
        env: &env,
        vars: Vars::new(globals),
        format: output_format(opts),
        outputs: 0,
    };
    let result = drive(ctx, &mut run).await;
    flush_stderr(ctx, run.env).await;
    let (mut ret, last_result) = match result {
        Ok(pair) => pair,
        Err(Stop::Halt(code)) => return finish(ctx, code).await,
        Err(Stop::Output(code)) => return code,
    };
    if !files_ok {
        ret = 2;
    }
    let status = if opts.exit_status {
        if ret != NO_OUTPUT {
            ret.abs()
        } else {
            match last_result {
                -1 => 4,
                0 => 1,
                _ => 0,
            }
        }
    } else {
        ret.max(0)
    };
    finish(ctx, status).await
}

async fn finish(ctx: &mut Ctx, status: i32) -> i32 {
    match ctx.stdout.flush().await {
        Ok(()) => status,
        Err(WriteError::BrokenPipe) => 141,
        Err(WriteError::Refused(msg)) => {
            say(ctx, &format!("jq: error: writing output failed: {msg}\n")).await;
            2
        }
    }
}

fn output_format(opts: &Opts) -> Format {
    let (indent, tab) = match opts.layout {
        Layout::Default => (2, false),
        Layout::Compact => (0, false),
        Layout::Tab => (1, true),
        Layout::Spaces(n) => (n, false),
    };
    Format {
        indent,
        tab,
        sort_keys: opts.sort_keys,
        ascii: opts.ascii,
        color: opts.color,
    }
}

/// Feeds the inputs through the filter; returns jq's `ret` and `last_result`.
async fn drive(ctx: &mut Ctx, run: &mut Run<'_>) -> Result<(i32, i32), Stop> {
    let mut ret = NO_OUTPUT;
    let mut last_result = -1;
    if run.opts.null_input {
        ret = process(ctx, run, Val::Null).await?;
        return Ok((ret, last_result));
    }
    if run.opts.slurp {
        return slurp(ctx, run).await;
    }
    loop {
        if let Some((split, items, file)) = next_array(run) {
            run.env.shared.borrow_mut().filename =
                Some(file.unwrap_or_else(|| "<stdin>".to_string()));
            ret = process_items(ctx, run, &split, items).await?;
            if ret <= 0 && ret != NO_OUTPUT {
                last_result = i32::from(ret != NULL_KIND);
            }
            continue;
        }
        match read_next(run.env).await {
            Next::Item(item) => {
                run.env.shared.borrow_mut().filename =
                    Some(item.file.unwrap_or_else(|| "<stdin>".to_string()));
                for v in stream_values(run.opts, item.val) {
                    ret = process(ctx, run, v).await?;
                    if ret <= 0 && ret != NO_OUTPUT {
                        last_result = i32::from(ret != NULL_KIND);
                    }
                }
            }
            Next::Error(msg) => {
                flush_stderr(ctx, run.env).await;
                say(ctx, &format!("jq: parse error: {msg}\n")).await;
                return Ok((ERROR, last_result));
            }
            Next::End => return Ok((ret, last_result)),
        }
    }
}

/// The split program and the items of the next input, when it is an array big enough to be
/// read an item at a time ([`SPLIT_MIN`]) and the program only iterates it.
fn next_array(run: &mut Run<'_>) -> Option<(Rc<Split>, ArrayItems, Option<String>)> {
    let mut shared = run.env.shared.borrow_mut();
    if !shared.inputs.array_ahead(SPLIT_MIN) {
        return None;
    }
    if let Some((program, names)) = run.unsplit.take() {
        run.split = items::split(program, names, &shared.modules).map(Rc::new);
    }
    let split = Rc::clone(run.split.as_ref()?);
    let (items, file) = shared.inputs.next_array()?;
    Some((split, items, file))
}

/// Reads the next input without holding the shared state across the wait.
async fn read_next(env: &Env<'_>) -> Next {
    let mut inputs = {
        let mut shared = env.shared.borrow_mut();
        std::mem::replace(&mut shared.inputs, Inputs::new(Vec::new(), false))
    };
    let next = inputs.next().await;
    env.shared.borrow_mut().inputs = inputs;
    next
}

async fn slurp(ctx: &mut Ctx, run: &mut Run<'_>) -> Result<(i32, i32), Stop> {
    let mut values = Vec::new();
    let mut text = String::new();
    loop {
        match read_next(run.env).await {
            Next::Item(item) => {
                if run.opts.raw_input {
                    text.push_str(item.val.as_str().unwrap_or_default());
                    text.push('\n');
                } else {
                    values.push(item.val);
                }
            }
            Next::Error(msg) => {
                say(ctx, &format!("jq: parse error: {msg}\n")).await;
                return Ok((ERROR, -1));
            }
            Next::End => break,
        }
    }
    let input = if run.opts.raw_input {
        Val::from(text)
    } else {
        Val::arr(values)
    };
    let ret = process(ctx, run, input).await?;
    let last = if ret <= 0 && ret != NO_OUTPUT {
        i32::from(ret != NULL_KIND)
    } else {
        -1
    };
    Ok((ret, last))
}

/// `--stream` turns each input into its stream events; otherwise the input itself.
fn stream_values(opts: &Opts, v: Val) -> Vec<Val> {
    if !opts.stream {
        return vec![v];
    }
    let mut out = Vec::new();
    stream_events(&v, &mut Vec::new(), &mut out, true);
    out
}

fn stream_events(v: &Val, path: &mut Vec<Val>, out: &mut Vec<Val>, top: bool) {
    let children: Vec<(Val, Val)> = match v {
        Val::Arr(a) => a
            .iter()
            .enumerate()
            .map(|(i, x)| (Val::num(i as f64), x.clone()))
            .collect(),
        Val::Obj(o) => o
            .iter()
            .map(|(k, x)| (Val::Str(Rc::clone(k)), x.clone()))
            .collect(),
        _ => Vec::new(),
    };
    if children.is_empty() {
        out.push(Val::arr(vec![Val::arr(path.clone()), v.clone()]));
        return;
    }
    let last = children.len() - 1;
    for (i, (k, x)) in children.into_iter().enumerate() {
        path.push(k);
        stream_events(&x, path, out, false);
        if i == last {
            out.push(Val::arr(vec![Val::arr(path.clone())]));
        }
        path.pop();
    }
    let _ = top;
}

/// Runs the filter on one input and writes its outputs; returns jq's per-input status.
async fn process(ctx: &mut Ctx, run: &mut Run<'_>, input: Val) -> Result<i32, Stop> {
    let mut ret = NO_OUTPUT;
    let program = run.program;
    run_program(ctx, run, program, input, None, &mut ret).await?;
    Ok(ret)
}

/// Runs a split program on the items of one array input, as [`process`] runs the whole
/// program on the array: the same outputs, errors and status.
async fn process_items(
    ctx: &mut Ctx,
    run: &mut Run<'_>,
    split: &Split,
    items: ArrayItems,
) -> Result<i32, Stop> {
    let mut ret = NO_OUTPUT;
    match split {
        Split::Each(f) => {
            for item in items {
                if !run_program(ctx, run, f, item, None, &mut ret).await? {
                    break;
                }
            }
        }
        Split::Collect(f, g) => {
            let mut outputs = Vec::new();
            for item in items {
                if !run_program(ctx, run, f, item, Some(&mut outputs), &mut ret).await? {
                    return Ok(ret);
                }
            }
            run_program(ctx, run, g, Val::arr(outputs), None, &mut ret).await?;
        }
    }
    Ok(ret)
}

/// [`run_filter`] for a [`Program`]: its direct evaluation when that does not give up, else
/// jaq's.
async fn run_program(
    ctx: &mut Ctx,
    run: &mut Run<'_>,
    part: &Program,
    input: Val,
    collect: Option<&mut Vec<Val>>,
    ret: &mut i32,
) -> Result<bool, Stop> {
    match part.fast.as_ref().and_then(|fast| fast.run(&input)) {
        Some(Some(v)) => {
            emit(ctx, run, v, collect, ret).await?;
            Ok(true)
        }
        Some(None) => Ok(true),
        None => run_filter(ctx, run, &part.filter, input, collect, ret).await,
    }
}

/// Runs `filter` on `input`: its outputs go to `collect`, or are written out with `ret` set
/// to jq's status of each. False when it stopped at an error (reported, `ret` is ERROR).
async fn run_filter(
    ctx: &mut Ctx,
    run: &mut Run<'_>,
    filter: &Filter,
    input: Val,
    mut collect: Option<&mut Vec<Val>>,
    ret: &mut i32,
) -> Result<bool, Stop> {
    let env = Env {
        lut: &filter.lut,
        shared: run.env.shared,
    };
    let jctx = JaqCtx::<engine::JqData>::new(&env, run.vars.clone());
    let mut outputs = filter.id.run((jctx, input));
    loop {
        let out = outputs.next();
        if super::val::exhausted() {
            // What came of the cut value is not shown (`debug` lines included): jq aborts.
            run.env.shared.borrow_mut().stderr.clear();
            say(ctx, OUT_OF_MEMORY).await;
            return Err(Stop::Output(ERROR));
        }
        let Some(out) = out else { break };
        match out {
            Ok(v) => emit(ctx, run, v, collect.as_deref_mut(), ret).await?,
            Err(exn) => {
                flush_stderr(ctx, run.env).await;
                match exn.get_err() {
                    Ok(error) => {
                        report(ctx, run.env, error.into_val()).await;
                        *ret = ERROR;
                        return Ok(false);
                    }
                    Err(exn) => {
                        let code = exn.get_halt().unwrap_or(ERROR);
                        return Err(Stop::Halt(code));
                    }
                }
            }
        }
    }
    flush_stderr(ctx, run.env).await;
    Ok(true)
}

/// One output of a filter: into `collect`, or written out with `ret` set to its status.
async fn emit(
    ctx: &mut Ctx,
    run: &mut Run<'_>,
    v: Val,
    collect: Option<&mut Vec<Val>>,
    ret: &mut i32,
) -> Result<(), Stop> {
    if let Some(collect) = collect {
        collect.push(v);
        return Ok(());
    }
    *ret = if matches!(v, Val::Str(_)) && run.opts.raw_output
        || !matches!(v, Val::Null | Val::Bool(false))
    {
        0
    } else {
        NULL_KIND
    };
    write_value(ctx, run, &v).await
}

async fn write_value(ctx: &mut Ctx, run: &mut Run<'_>, v: &Val) -> Result<(), Stop> {
    let mut buf = Vec::new();
    if run.opts.seq {
        buf.push(0x1e);
    }
    match v {
        Val::Str(s) if run.opts.raw_output && !run.opts.ascii => {
            buf.extend_from_slice(s.as_bytes())
        }
        Val::Str(s) if run.opts.raw_output => json::write_string(&mut buf, s, true),
        v => json::write(&mut buf, v, &run.format),
    }
    if !run.opts.join && !run.opts.raw0 {
        buf.push(b'\n');
    }
    if run.opts.raw0 {
        buf.push(0);
    }
    flush_stderr(ctx, run.env).await;
    match ctx.stdout.write(&buf).await {
        Ok(()) => {}
        Err(WriteError::BrokenPipe) => return Err(Stop::Output(141)),
        Err(WriteError::Refused(msg)) => {
            say(ctx, &format!("jq: error: writing output failed: {msg}\n")).await;
            return Err(Stop::Output(2));
        }
    }
    run.outputs += 1;
    if run.outputs.is_multiple_of(4096) {
        crate::task::yield_now().await;
    }
    Ok(())
}

/// What jq says when a value outgrows memory (jq then aborts), and what to do instead.
const OUT_OF_MEMORY: &str = "jq: error: cannot allocate memory: a value outgrew the sandbox's \
    memory; work on less data at once (stream it: `.[]`, `limit`, `reduce`), or raise \
    Limits(memory=...)\n";

async fn flush_stderr(ctx: &mut Ctx, env: &Env<'_>) {
    let pending = std::mem::take(&mut env.shared.borrow_mut().stderr);
    if !pending.is_empty() {
        let _ = ctx.stderr.write(&pending).await;
        let _ = ctx.stderr.flush().await;
    }
}

/// `jq: error (at <stdin>:3): message`, or `(not a string): value` for other error values.
async fn report(ctx: &mut Ctx, env: &Env<'_>, error: Val) {
    let position = {
        let shared = env.shared.borrow();
        match &shared.inputs.position {
            Some((file, line)) if shared.inputs.started => {
                format!("{}:{line}", file.as_deref().unwrap_or("<stdin>"))
            }
            _ => "<unknown>".to_string(),
        }
    };
    let line = match &error {
        Val::Str(s) => format!("jq: error (at {position}): {}\n", jq_message(s)),
        v => format!(
            "jq: error (at {position}) (not a string): {}\n",
            v.to_json()
        ),
    };
    say(ctx, &line).await;
}

/// Rewords the few errors jaq raises itself into jq's phrasing.
fn jq_message(msg: &str) -> String {
    if let Some(rest) = msg.strip_prefix("invalid path expression with input ") {
        return format!(
            "Invalid path expression with result {}",
            super::val::truncated(rest)
        );
    }
    if let Some(rest) = msg.strip_prefix("cannot use ") {
        if let Some((value, kind)) = rest.rsplit_once(" as ") {
            if let Ok(v) = json::parse_one(value) {
                return match kind {
                    "number" => format!("{} number required", v.describe()),
                    _ => format!("{} cannot be used as {kind}", v.describe()),
                };
            }
        }
    }
    msg.to_string()
}
