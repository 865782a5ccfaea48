//! Compiling a jq program with jaq (our value type, jq's definitions and natives) and the
//! data its natives share with the command line: inputs, stderr, the clock.

use std::cell::RefCell;

use jaq_core::load::parse::Def;
use jaq_core::load::{Arena, File, Import, Loader};
use jaq_core::{Compiler, DataT, Native};

use super::funs;
use super::input::{Inputs, Next};
pub use super::modules::Modules;
use super::val::Val;

/// The data type of our filters.
pub struct JqData;

/// A compiled filter.
pub type Filter = jaq_core::Filter<JqData>;
/// The lookup table of a compiled filter.
pub type Lut = jaq_core::Lut<JqData>;

impl DataT for JqData {
    type V<'a> = Val;
    type Data<'a> = &'a Env<'a>;
}

impl<'a> jaq_core::data::HasLut<'a, JqData> for &'a Env<'a> {
    fn lut(&self) -> &'a Lut {
        self.lut
    }
}

/// What natives may touch while a filter runs.
pub struct Shared {
    /// The input stream (`input`, `inputs`).
    pub inputs: Inputs,
    /// The file of the current input (`input_filename`).
    pub filename: Option<String>,
    /// Bytes for stderr (`debug`, `stderr`, `halt_error`), written out after each output.
    pub stderr: Vec<u8>,
    /// Seconds since the epoch (`now`).
    pub now: f64,
    /// Whether `input` may read (the inputs were loaded into memory first).
    pub input_ok: bool,
    /// The module files (`modulemeta`).
    pub modules: Modules,
    /// The local time zone (`TZ`): `localtime`, `strflocaltime`.
    pub zone: crate::applets::common::Zone,
}

/// The run-time environment handed to natives.
pub struct Env<'a> {
    /// The compiled program's table.
    pub lut: &'a Lut,
    /// Mutable shared state.
    pub shared: &'a RefCell<Shared>,
}

impl Shared {
    /// The next input for `input`, or the error message jq gives (`break` at the end).
    pub fn next_input(&mut self) -> Result<Val, String> {
        if !self.input_ok {
            return Err("break".into());
        }
        match self.inputs.next_now() {
            Next::Item(item) => {
                self.filename = Some(item.file.unwrap_or_else(|| "<stdin>".to_string()));
                Ok(item.val)
            }
            Next::Error(e) => Err(e),
            Next::End => Err("break".into()),
        }
    }
}

/// A compile error, already in jq's words (`foo/0 is not defined`), and the line it is on.
pub struct CompileError {
    /// The message after `jq: error: `.
    pub message: String,
}

/// Names of the global variables, in the order their values are passed.
pub fn global_names(named: &[(String, Val)]) -> Vec<String> {
    let mut names = vec![
        "$ENV".to_string(),
        "$__loc__".to_string(),
        "$ARGS".to_string(),
    ];
    names.extend(named.iter().map(|(k, _)| format!("${k}")));
    names
}

/// Compiles `code`; global variables `names` must be given values in that order at run time,
/// followed by the returned values of the data modules it imports (`import "x" as $x`).
pub fn compile(
    code: &str,
    names: &[String],
    modules: &Modules,
) -> Result<(Filter, Vec<Val>), Vec<CompileError>> {
    let refused =
        super::desugar::escape_error(code).or_else(|| super::desugar::directive_error(code));
    if let Some((at, message)) = refused.or_else(|| super::desugar::constant_key_error(code)) {
        return Err(vec![super::errors::located(
            code,
            &message,
            at.start,
            at.len(),
        )]);
    }
    let rewritten = super::desugar::rewrite(code);
    compile_rewritten(&rewritten, names, modules).or_else(|errors| {
        // Messages quote the program: compile it again with `..` as written (the errors are
        // the same, `_recurse_all` being a defined name), so that they quote what was written.
        let as_written = super::desugar::rewrite_keeping_recursion(code);
        if as_written == rewritten {
            return Err(errors);
        }
        compile_rewritten(&as_written, names, modules)
    })
}

/// [`compile`] after the checks and rewrites of `desugar`.
pub fn compile_rewritten(
    code: &str,
    names: &[String],
    modules: &Modules,
) -> Result<(Filter, Vec<Val>), Vec<CompileError>> {
    let arena = Arena::default();
    let defs = prelude();
    let loader =
        Loader::new(defs).with_read(|import: Import<&str, String>| modules.find(&import, "jq"));
    let program = File {
        code,
        path: String::new(),
    };
    let search = modules;
    let modules = loader
        .load(&arena, program)
        .map_err(|errs| super::errors::load_errors(code, errs))?;
    let mut data = Vec::new();
    jaq_core::load::import(&modules, |import| {
        data.push(search.data(&import)?);
        Ok(())
    })
    .map_err(|errs| super::errors::load_errors(code, errs))?;
    let funs = funs::all();
    let compiler: Compiler<&str, JqData> = Compiler::default()
        .with_funs(funs)
        .with_global_vars(names.iter().map(String::as_str));
    let filter = compiler
        .compile(modules)
        .map_err(|errs| super::errors::compile_errors(code, errs))?;
    Ok((filter, data))
}

/// jaq's standard definitions that call jaq natives we do not link in (its regex, time, format
/// and log natives, which ours replace): they are not loaded, since jaq compiles every
/// definition. Each is either defined again in our `defs.jq` or not a jq builtin at all
/// (`scan_`, `@htmld`, `@urid`).
const DROPPED: [&str; 20] = [
    "stderr",
    "debug",
    "halt_error",
    "test",
    "scan_",
    "scan",
    "match",
    "capture",
    "split",
    "splits",
    "sub",
    "gsub",
    "todate",
    "fromdate",
    "@html",
    "@htmld",
    "@uri",
    "@urid",
    "@base64",
    "@base64d",
];

/// jaq's core and standard definitions, then ours (later ones shadow earlier ones).
fn prelude() -> impl Iterator<Item = Def<&'static str>> {
    let ours = jaq_core::load::parse(funs::DEFS, |p| p.defs()).unwrap_or_default();
    let jaq_std = jaq_std::defs().filter(|d| !DROPPED.contains(&d.name));
    jaq_core::defs().chain(jaq_std).chain(ours)
}

/// `builtins`: `name/arity` of every public definition and native (no `_` helpers, no
/// `@formats`), each once.
pub fn builtin_names() -> Vec<String> {
    let defs = prelude().map(|d| (d.name, d.args.len()));
    let natives = funs::all()
        .into_iter()
        .map(|(name, args, _)| (name, args.len()));
    let mut names: Vec<String> = defs
        .chain(natives)
        .filter(|(name, _)| !name.starts_with(['_', '@', '!']))
        .map(|(name, arity)| format!("{name}/{arity}"))
        .collect();
    crate::sort::sort(&mut names);
    names.dedup();
    names
}

/// Our native filters, our overrides first.
pub type NativeFun = (&'static str, Box<[jaq_core::Bind]>, Native<JqData>);
