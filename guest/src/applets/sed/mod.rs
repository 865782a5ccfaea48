//! sed: its own parser (`parse`) into a flat program (`script`), run by `exec` over lines
//! from `input`; regular expressions come from the shared POSIX front end (`common::regex`).

mod exec;
mod input;
mod parse;
mod script;
#[cfg(test)]
mod tests;
mod text;

use crate::applets::common::inputs_or_stdin;
use exec::{Exec, Failure, Settings};
use parse::{parse, Chunk, Origin};

use super::common::open_input;
use super::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::FileKind;

/// `sed --help` (GNU's text; also printed, to stderr, after a usage error).
const USAGE: &str = "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the `l' command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
";

/// The `sed` applet.
pub const APPLET: Applet = Applet {
    name: "sed",
    usage: USAGE,
    help: Help::Own,
    run,
};

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[&APPLET];

/// Where a piece of script comes from on the command line.
enum ScriptArg {
    Expr(String),
    File(String),
}

/// The command line.
#[derive(Default)]
struct Options {
    quiet: bool,
    extended: bool,
    separate: bool,
    in_place: Option<String>,
    null_data: bool,
    line_wrap: Option<usize>,
    scripts: Vec<ScriptArg>,
    operands: Vec<String>,
    help: bool,
    version: bool,
}

/// A usage problem: the message (empty: just the usage).
struct UsageError(String);

const LONG: &[&str] = &[
    "expression",
    "file",
    "line-length",
    "quiet",
    "silent",
    "regexp-extended",
    "separate",
    "in-place",
    "null-data",
    "zero-terminated",
    "unbuffered",
    "posix",
    "debug",
    "sandbox",
    "follow-symlinks",
    "binary",
    "help",
    "version",
];

fn parse_args(args: &[String]) -> Result<Options, UsageError> {
    let mut o = Options::default();
    let mut i = 0;
    while i < args.len() {
        let arg = &args[i];
        i += 1;
        if arg == "--" {
            o.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            i = long_option(&mut o, long, args, i)?;
        } else if arg.len() > 1 && arg.starts_with('-') {
            i = short_options(&mut o, &arg[1..], args, i)?;
        } else {
            o.operands.push(arg.clone());
        }
    }
    Ok(o)
}

fn short_options(
    o: &mut Options,
    bundle: &str,
    args: &[String],
    mut i: usize,
) -> Result<usize, UsageError> {
    for (at, c) in bundle.char_indices() {
        let rest = &bundle[at + c.len_utf8()..];
        match c {
            'n' => o.quiet = true,
            'r' | 'E' => o.extended = true,
            's' => o.separate = true,
            'z' => o.null_data = true,
            'u' | 'b' => {}
            'i' => {
                o.in_place = Some(rest.to_string());
                return Ok(i);
            }
            'e' | 'f' | 'l' => {
                let value = if rest.is_empty() {
                    let value = args.get(i).cloned().ok_or_else(|| {
                        UsageError(format!("option requires an argument -- '{c}'"))
                    })?;
                    i += 1;
                    value
                } else {
                    rest.to_string()
                };
                value_option(o, c, value)?;
                return Ok(i);
            }
            _ => return Err(UsageError(format!("invalid option -- '{c}'"))),
        }
    }
    Ok(i)
}

fn value_option(o: &mut Options, c: char, value: String) -> Result<(), UsageError> {
    match c {
        'e' => o.scripts.push(ScriptArg::Expr(value)),
        'f' => o.scripts.push(ScriptArg::File(value)),
        // GNU reads the number with atoi: anything else is 0 (no wrapping).
        _ => o.line_wrap = Some(value.trim().parse::<usize>().unwrap_or(0)),
    }
    Ok(())
}

fn long_option(
    o: &mut Options,
    long: &str,
    args: &[String],
    mut i: usize,
) -> Result<usize, UsageError> {
    let (name, inline) = match long.split_once('=') {
        Some((name, value)) => (name, Some(value.to_string())),
        None => (long, None),
    };
    let matches: Vec<&str> = LONG
        .iter()
        .copied()
        .filter(|l| l.starts_with(name))
        .collect();
    let name = match matches.as_slice() {
        _ if LONG.contains(&name) => name,
        [only] => only,
        [] => return Err(UsageError(format!("unrecognized option '--{name}'"))),
        _ => return Err(UsageError(format!("option '--{name}' is ambiguous"))),
    };
    let needs_value = matches!(name, "expression" | "file" | "line-length");
    if needs_value {
        let value = match inline {
            Some(v) => v,
            None => {
                let v = args
                    .get(i)
                    .cloned()
                    .ok_or_else(|| UsageError(format!("option '--{name}' requires an argument")))?;
                i += 1;
                v
            }
        };
        let short = match name {
            "expression" => 'e',
            "file" => 'f',
            _ => 'l',
        };
        value_option(o, short, value)?;
        return Ok(i);
    }
    if inline.is_some() && name != "in-place" {
        return Err(UsageError(format!(
            "option '--{name}' doesn't allow an argument"
        )));
    }
    match name {
        "quiet" | "silent" => o.quiet = true,
        "regexp-extended" => o.extended = true,
        "separate" => o.separate = true,
        "in-place" => o.in_place = Some(inline.unwrap_or_default()),
        "null-data" | "zero-terminated" => o.null_data = true,
        "help" => o.help = true,
        "version" => o.version = true,
        _ => {}
    }
    Ok(i)
}

async fn say(ctx: &mut Ctx, message: &str) {
    let line = format!("sed: {message}\n");
    let _ = ctx.stderr.write_str(&line).await;
}

async fn usage_error(ctx: &mut Ctx, message: &str) -> i32 {
    if !message.is_empty() {
        say(ctx, message).await;
    }
    let _ = ctx.stderr.write_str(USAGE).await;
    1
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let mut ctx = ctx;
        main(&mut ctx).await
    })
}

async fn main(ctx: &mut Ctx) -> i32 {
    let mut o = match parse_args(&ctx.args) {
        Ok(o) => o,
        Err(UsageError(message)) => return usage_error(ctx, &message).await,
    };
    if o.help || o.version {
        let text = if o.help {
            format!("{USAGE}E-mail bug reports to: <bug-sed@gnu.org>.\n")
        } else {
            "sed (GNU sed) 4.9\n".to_string()
        };
        let _ = ctx.stdout.write_str(&text).await;
        return i32::from(ctx.stdout.flush().await.is_err());
    }
    if o.scripts.is_empty() {
        if o.operands.is_empty() {
            return usage_error(ctx, "").await;
        }
        o.scripts.push(ScriptArg::Expr(o.operands.remove(0)));
    }
    let chunks = match read_scripts(ctx, &o.scripts).await {
        Ok(chunks) => chunks,
        Err(message) => {
            say(ctx, &message).await;
            return 4;
        }
    };
    let script = match parse(&chunks, o.extended) {
        Ok(script) => script,
        Err(e) => {
            for name in e.wfiles.iter().filter(|n| !n.starts_with("/dev/std")) {
                let _ = ctx.vfs.borrow_mut().write(&ctx.cwd, name, b"");
            }
            say(ctx, &e.message).await;
            return e.status;
        }
    };
    let settings = Settings {
        quiet: o.quiet || script.quiet,
        separate: o.separate || o.in_place.is_some(),
        in_place: o.in_place.clone(),
        eol: if o.null_data { 0 } else { b'\n' },
        line_wrap: o.line_wrap.unwrap_or(70),
    };
    let status = execute(ctx, &script, &settings, o.operands).await;
    let flushed = ctx.stdout.flush().await;
    if flushed.is_err() && status == 0 {
        return 4;
    }
    status
}

/// The `-e` expressions and `-f` files, in order.
async fn read_scripts(ctx: &mut Ctx, scripts: &[ScriptArg]) -> Result<Vec<Chunk>, String> {
    let mut chunks = Vec::with_capacity(scripts.len());
    let mut expr = 0;
    for script in scripts {
        match script {
            ScriptArg::Expr(text) => {
                expr += 1;
                chunks.push(Chunk {
                    text: text.clone(),
                    origin: Origin::Expr(expr),
                });
            }
            ScriptArg::File(path) => {
                let mut input =
                    open_input(ctx, path).map_err(|e| format!("couldn't open file {e}"))?;
                let data = input.read_all().await;
                let text = String::from_utf8_lossy(&data);
                let text = text.strip_suffix('\n').unwrap_or(&text).to_string();
                chunks.push(Chunk {
                    text,
                    origin: Origin::File(path.clone()),
                });
            }
        }
    }
    Ok(chunks)
}

/// Runs the script over the operands (standard input when there are none).
async fn execute(
    ctx: &mut Ctx,
    script: &script::Script,
    settings: &Settings,
    files: Vec<String>,
) -> i32 {
    let mut exec = match Exec::new(ctx, script, settings) {
        Ok(exec) => exec,
        Err(failure) => return report(ctx, failure).await,
    };
    let result = if settings.in_place.is_some() {
        in_place(ctx, &mut exec, settings, files).await
    } else if settings.separate {
        separately(ctx, &mut exec, files).await
    } else {
        let files = inputs_or_stdin(files);
        exec.run_stream(ctx, files).await
    };
    let finished = exec.finish(ctx).await;
    match result.and(finished) {
        Ok(()) => exec.status,
        Err(failure) => report(ctx, failure).await,
    }
}

async fn report(ctx: &mut Ctx, failure: Failure) -> i32 {
    if !failure.message.is_empty() {
        say(ctx, &failure.message).await;
    }
    failure.status
}

/// `-s`: each file is its own stream.
async fn separately(ctx: &mut Ctx, exec: &mut Exec<'_>, files: Vec<String>) -> Result<(), Failure> {
    let files = inputs_or_stdin(files);
    for file in files {
        if exec.quit {
            break;
        }
        exec.run_stream(ctx, vec![file]).await?;
    }
    Ok(())
}

/// `-i`: each file is rewritten with the output (after a backup when a suffix was given).
async fn in_place(
    ctx: &mut Ctx,
    exec: &mut Exec<'_>,
    settings: &Settings,
    files: Vec<String>,
) -> Result<(), Failure> {
    if files.is_empty() {
        return Err(Failure {
            message: "no input files".into(),
            status: 4,
        });
    }
    let suffix = settings.in_place.clone().unwrap_or_default();
    for file in files {
        if exec.quit {
            break;
        }
        let stat = ctx.vfs.borrow().stat(&ctx.cwd, &file);
        match stat {
            Err(e) => {
                say(ctx, &format!("can't read {file}: {}", e.code.description())).await;
                exec.status = exec.status.max(2);
                continue;
            }
            Ok(s) if s.kind != FileKind::File => {
                return Err(Failure {
                    message: format!("couldn't edit {file}: not a regular file"),
                    status: 4,
                });
            }
            Ok(_) => {}
        }
        let output = exec.run_in_place(ctx, &file).await?;
        save(ctx, &file, &suffix, output)?;
    }
    Ok(())
}

/// Writes the edited file, keeping the original as `FILE SUFFIX` (`*` in the suffix is the
/// file's name) when a suffix was given.
fn save(ctx: &mut Ctx, file: &str, suffix: &str, output: Vec<u8>) -> Result<(), Failure> {
    let mut vfs = ctx.vfs.borrow_mut();
    let failure = |e: crate::vfs::VfsError| Failure {
        message: format!("couldn't edit {file}: {}", e.code.description()),
        status: 4,
    };
    if !suffix.is_empty() {
        let backup = backup_name(file, suffix);
        let original = vfs.read_shared(&ctx.cwd, file).map_err(failure)?;
        vfs.write_shared(&ctx.cwd, &backup, original)
            .map_err(failure)?;
    }
    let mode = match vfs.lstat(&ctx.cwd, file) {
        Ok(stat) if stat.nlink > 1 => stat.mode,
        _ => return vfs.write(&ctx.cwd, file, &output).map_err(failure),
    };
    // A file with other names (hard links): GNU sed writes a new file and renames it over
    // FILE, so the other names keep the old contents.
    let dir = crate::applets::common::dirname(file);
    let mut made = Err(crate::vfs::VfsError::new(crate::vfs::Errno::EEXIST, file));
    for i in 0..100 {
        let temp = crate::applets::common::join(dir, &format!(".sed-in-place-{i}"));
        made = vfs
            .create_exclusive(&ctx.cwd, &temp, &output)
            .map(|()| temp);
        if !made
            .as_ref()
            .is_err_and(|e| e.code == crate::vfs::Errno::EEXIST)
        {
            break;
        }
    }
    let temp = made.map_err(failure)?;
    let _ = vfs.set_mode(&ctx.cwd, &temp, mode);
    vfs.rename(&ctx.cwd, &temp, file).map_err(failure)
}

fn backup_name(file: &str, suffix: &str) -> String {
    if !suffix.contains('*') {
        return format!("{file}{suffix}");
    }
    let (dir, base) = match file.rsplit_once('/') {
        Some((dir, base)) => (format!("{dir}/"), base),
        None => (String::new(), file),
    };
    let name = suffix.replace('*', base);
    if name.contains('/') {
        name
    } else {
        format!("{dir}{name}")
    }
}

/// Parses a sed script without running it; true when it is accepted. The entry point of the
/// `sed` fuzz target (`guest/fuzz/`).
pub fn check_script(text: &str, extended: bool) -> bool {
    let chunk = Chunk {
        text: text.to_string(),
        origin: Origin::Expr(1),
    };
    parse(&[chunk], extended).is_ok()
}
