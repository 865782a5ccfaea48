//! `tar -c|-x|-t [-zvO] [-f ARCHIVE] [-C DIR] [FILE]...`: create, extract and list tar
//! archives (POSIX ustar written; ustar, GNU and pax read), gzip-compressed with `-z`
//! (detected automatically when reading). Old-style bundles (`tar czf out.tgz dir`) work.

mod create;
mod header;
mod read;

use crate::applets::common::{conclude, parse_args, parse_count, Glob};
use crate::applets::common::{warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `tar` applet.
pub const APPLET: Applet = Applet {
    name: "tar",
    usage: "tar -c|-x|-t [OPTION]... [FILE]...\nStore files in an archive, list it, or extract from it.\n  -c, --create             create a new archive\n  -t, --list               list the contents of an archive\n  -x, --extract, --get     extract files from an archive\n  -f, --file=ARCHIVE       use archive file ARCHIVE (`-` = stdin/stdout, the default)\n  -z, --gzip               filter the archive through gzip (automatic when reading)\n  -a, --auto-compress      use the archive suffix (.tgz, .tar.gz) to decide on gzip\n  -C, --directory=DIR      change to directory DIR (for all FILEs)\n  -v, --verbose            list files processed (-tv: long listing)\n  -O, --to-stdout          extract files to standard output\n  -m, --touch              don't extract file modified time\n  -k, --keep-old-files     don't replace existing files when extracting\n  -h, --dereference        follow symlinks; archive the files they point to\n      --strip-components=N strip N leading components from file names on extraction\n      --exclude=PATTERN    exclude files matching PATTERN (a wildcard)\n  -X, --exclude-from=FILE  exclude the patterns listed in FILE, one a line\nBzip2 and xz (-j, -J) are not available.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "ctxzvOmkhpaoPjJZrud",
    short_val: "fCTX",
    long: &[
        "create",
        "list",
        "extract",
        "get",
        "gzip",
        "gunzip",
        "ungzip",
        "verbose",
        "to-stdout",
        "touch",
        "keep-old-files",
        "dereference",
        "preserve-permissions",
        "same-permissions",
        "auto-compress",
        "no-same-owner",
        "no-same-permissions",
        "absolute-names",
        "overwrite",
        "bzip2",
        "xz",
        "skip-old-files",
        "numeric-owner",
    ],
    long_val: &[
        "file",
        "directory",
        "strip-components",
        "exclude",
        "exclude-from",
        "owner",
        "group",
        "mode",
        "mtime",
        "files-from",
    ],
    digits: None,
    stop_at_operand: false,
};

/// What to do.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `-c`.
    Create,
    /// `-t`.
    List,
    /// `-x`.
    Extract,
}

/// The options every mode reads.
pub struct Options {
    /// The operation.
    pub mode: Mode,
    /// The archive (`-` = standard input/output).
    pub archive: String,
    /// `-z` (or `-a` with a gzip suffix).
    pub gzip: bool,
    /// `-v` count.
    pub verbose: u8,
    /// `-C`.
    pub directory: Option<String>,
    /// `-O`.
    pub to_stdout: bool,
    /// `-m`.
    pub touch: bool,
    /// `-k` / `--skip-old-files` (the latter silently).
    pub keep_old: Option<bool>,
    /// `-h`.
    pub dereference: bool,
    /// `--strip-components`.
    pub strip: usize,
    /// `--exclude` patterns.
    pub exclude: Vec<Glob>,
    /// `-P`: keep leading `/`.
    pub absolute: bool,
}

impl Options {
    /// Whether `name` (or its last component) matches an `--exclude` pattern.
    pub fn excluded(&self, name: &str) -> bool {
        let trimmed = name.trim_end_matches('/');
        let base = trimmed.rsplit('/').next().unwrap_or(trimmed);
        self.exclude
            .iter()
            .any(|g| g.matches(trimmed) || g.matches(base))
    }
}

/// Old-style arguments: `tar czf out.tgz dir` means `tar -c -z -f out.tgz dir`.
fn expand_bundle(args: &[String]) -> Vec<String> {
    let Some(first) = args.first() else {
        return Vec::new();
    };
    if first.starts_with('-') {
        return args.to_vec();
    }
    let mut out = Vec::new();
    let mut rest = args[1..].iter();
    for c in first.chars() {
        out.push(format!("-{c}"));
        if "fCTX".contains(c) {
            if let Some(value) = rest.next() {
                out.push(value.clone());
            }
        }
    }
    out.extend(rest.cloned());
    out
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        ctx.args = expand_bundle(&ctx.args);
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 2).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let o = match options(&mut ctx, &opts).await {
            Ok(o) => o,
            Err(status) => return status,
        };
        let result = match o.mode {
            Mode::Create => create::create(&mut ctx, &o, &operands).await,
            Mode::List | Mode::Extract => read::read(&mut ctx, &o, &operands).await,
        };
        conclude(&mut ctx, result).await
    })
}

async fn options(ctx: &mut Ctx, opts: &[crate::applets::common::Opt]) -> Result<Options, i32> {
    let mut modes = Vec::new();
    let mut o = Options {
        mode: Mode::List,
        archive: "-".to_string(),
        gzip: false,
        verbose: 0,
        directory: None,
        to_stdout: false,
        touch: false,
        keep_old: None,
        dereference: false,
        strip: 0,
        exclude: Vec::new(),
        absolute: false,
    };
    let mut auto = false;
    for opt in opts {
        match opt {
            _ if opt.is('c', "create") => modes.push(Mode::Create),
            _ if opt.is('t', "list") => modes.push(Mode::List),
            _ if opt.is('x', "extract") || opt.is('x', "get") => modes.push(Mode::Extract),
            _ if opt.is('f', "file") => o.archive = opt.value().to_string(),
            _ if opt.is('z', "gzip") || opt.is('z', "gunzip") || opt.is('z', "ungzip") => {
                o.gzip = true
            }
            _ if opt.is('a', "auto-compress") => auto = true,
            _ if opt.is('v', "verbose") => o.verbose += 1,
            _ if opt.is('C', "directory") => o.directory = Some(opt.value().to_string()),
            _ if opt.is('O', "to-stdout") => o.to_stdout = true,
            _ if opt.is('m', "touch") => o.touch = true,
            _ if opt.is('k', "keep-old-files") => o.keep_old = Some(true),
            _ if opt.is('\0', "skip-old-files") => o.keep_old = Some(false),
            _ if opt.is('h', "dereference") => o.dereference = true,
            _ if opt.is('P', "absolute-names") => o.absolute = true,
            _ if opt.is('\0', "exclude") => o.exclude.push(Glob::new(opt.value(), false)),
            _ if opt.is('X', "exclude-from") => {
                let path = opt.value();
                let read = ctx.vfs.borrow().read(&ctx.cwd, path).map(<[u8]>::to_vec);
                match read {
                    Ok(bytes) => o.exclude.extend(
                        String::from_utf8_lossy(&bytes)
                            .lines()
                            .filter(|line| !line.is_empty())
                            .map(|line| Glob::new(line, false)),
                    ),
                    Err(e) => {
                        let message = format!("{path}: {}", e.code.description());
                        warn(ctx, message).await;
                        warn(ctx, "Error is not recoverable: exiting now").await;
                        return Err(2);
                    }
                }
            }
            _ if opt.is('\0', "strip-components") => match parse_count(opt.value()) {
                Some(n) => o.strip = usize::try_from(n).unwrap_or(usize::MAX),
                None => {
                    let message = format!("Invalid number of elements: '{}'", opt.value());
                    warn(ctx, message).await;
                    return Err(2);
                }
            },
            _ if opt.is('j', "bzip2") || opt.is('J', "xz") || opt.is('Z', "\0") => {
                warn(
                    ctx,
                    "only gzip compression (-z) is available in this sandbox",
                )
                .await;
                return Err(2);
            }
            _ if opt.is('r', "\0")
                || opt.is('u', "\0")
                || opt.is('d', "\0")
                || opt.is('T', "files-from") =>
            {
                warn(
                    ctx,
                    "-r, -u, -d and -T are not supported here; use -c, -t or -x",
                )
                .await;
                return Err(2);
            }
            _ => {}
        }
    }
    modes.dedup();
    match modes.as_slice() {
        [mode] => o.mode = *mode,
        [] => {
            let message =
                "You must specify one of the '-Acdtrux', '--delete' or '--test-label' options";
            return Err(tar_usage(ctx, message).await);
        }
        _ => {
            let message = "You may not specify more than one '-Acdtrux', '--delete' or  '--test-label' option";
            return Err(tar_usage(ctx, message).await);
        }
    }
    if auto && o.mode == Mode::Create {
        o.gzip |= o.archive.ends_with(".tgz")
            || o.archive.ends_with(".tar.gz")
            || o.archive.ends_with(".taz");
    }
    Ok(o)
}

/// GNU tar's usage errors mention `--usage` too.
async fn tar_usage(ctx: &mut Ctx, message: &str) -> i32 {
    warn(ctx, message).await;
    crate::applets::common::err_str(
        ctx,
        "Try 'tar --help' or 'tar --usage' for more information.\n",
    )
    .await;
    2
}

/// Reports the final `Exiting with failure status` line GNU prints after non-fatal errors.
async fn exit_status(ctx: &mut Ctx, failed: bool) -> i32 {
    if failed {
        warn(ctx, "Exiting with failure status due to previous errors").await;
        2
    } else {
        0
    }
}

#[cfg(test)]
mod tests;
