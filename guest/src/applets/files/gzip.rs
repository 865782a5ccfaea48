//! `gzip`, `gunzip`, `zcat`: compress or expand files in gzip format (deflate from flate2),
//! streaming chunk by chunk. `FILE` becomes `FILE.gz` (and back); with no file, or `-`,
//! standard input goes to standard output.

use std::io::Write;

use flate2::write::{GzEncoder, MultiGzDecoder};
use flate2::{Compression, GzBuilder};

use crate::applets::common::{conclude, err_str, out_str, parse_args, Exit, Res};
use crate::applets::common::{open_input, warn, Opt, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture, Output, Sink, WriteError};
use crate::vfs::FileKind;

/// The `gzip` applet.
pub const GZIP: Applet = Applet {
    name: "gzip",
    usage: "gzip [OPTION]... [FILE]...\nCompress FILEs (by default, in-place: FILE becomes FILE.gz).\n  -c, --stdout      write on standard output, keep original files unchanged\n  -d, --decompress  decompress\n  -f, --force       force overwrite of output file\n  -k, --keep        keep (don't delete) input files\n  -l, --list        list compressed file contents\n  -q, --quiet       suppress all warnings\n  -r, --recursive   operate recursively on directories\n  -S, --suffix=SUF  use suffix SUF on compressed files\n  -t, --test        test compressed file integrity\n  -v, --verbose     verbose mode\n  -1, --fast        compress faster\n  -9, --best        compress better",
    help: Help::Anywhere,
    run: run_gzip,
};

/// The `gunzip` applet.
pub const GUNZIP: Applet = Applet {
    name: "gunzip",
    usage: "gunzip [OPTION]... [FILE]...\nDecompress FILEs (FILE.gz becomes FILE); the options are gzip's.",
    help: Help::Anywhere,
    run: run_gunzip,
};

/// The `zcat` applet.
pub const ZCAT: Applet = Applet {
    name: "zcat",
    usage: "zcat [OPTION]... [FILE]...\nDecompress FILEs (or standard input) to standard output, like `gzip -dc`.",
    help: Help::Anywhere,
    run: run_zcat,
};

const SPEC: OptSpec = OptSpec {
    short: "cdfklqrtvnN123456789",
    short_val: "S",
    long: &[
        "stdout",
        "to-stdout",
        "decompress",
        "uncompress",
        "force",
        "keep",
        "list",
        "quiet",
        "recursive",
        "test",
        "verbose",
        "fast",
        "best",
        "name",
        "no-name",
    ],
    long_val: &["suffix"],
    digits: Some('#'),
    stop_at_operand: false,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Compress,
    Decompress,
    Test,
    List,
}

struct Options {
    mode: Mode,
    to_stdout: bool,
    keep: bool,
    force: bool,
    level: u32,
    verbose: bool,
    quiet: bool,
    recursive: bool,
    suffix: String,
}

fn run_gzip(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(run(ctx, Mode::Compress, false))
}

fn run_gunzip(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(run(ctx, Mode::Decompress, false))
}

fn run_zcat(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(run(ctx, Mode::Decompress, true))
}

fn options(opts: &[Opt], mode: Mode, to_stdout: bool) -> Options {
    let mut o = Options {
        mode,
        to_stdout,
        keep: false,
        force: false,
        level: 6,
        verbose: false,
        quiet: false,
        recursive: false,
        suffix: ".gz".to_string(),
    };
    for opt in opts {
        match opt {
            Opt::Short(c @ '1'..='9', _) => o.level = c.to_digit(10).unwrap_or(6),
            Opt::Short('#', Some(level)) => o.level = level.parse().unwrap_or(6).clamp(1, 9),
            _ if opt.is('c', "stdout") || opt.is('c', "to-stdout") => o.to_stdout = true,
            _ if opt.is('d', "decompress") || opt.is('d', "uncompress") => {
                o.mode = Mode::Decompress
            }
            _ if opt.is('f', "force") => o.force = true,
            _ if opt.is('k', "keep") => o.keep = true,
            _ if opt.is('l', "list") => o.mode = Mode::List,
            _ if opt.is('q', "quiet") => (o.quiet, o.verbose) = (true, false),
            _ if opt.is('r', "recursive") => o.recursive = true,
            _ if opt.is('t', "test") => o.mode = Mode::Test,
            _ if opt.is('v', "verbose") => (o.verbose, o.quiet) = (true, false),
            _ if opt.is('\0', "fast") => o.level = 1,
            _ if opt.is('\0', "best") => o.level = 9,
            _ if opt.is('S', "suffix") => o.suffix = opt.value().to_string(),
            _ => {}
        }
    }
    o
}

async fn run(mut ctx: Ctx, mode: Mode, to_stdout: bool) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let o = options(&opts, mode, to_stdout);
    // GNU gzip reports as `gzip` whatever name it was run as.
    ctx.name = "gzip".to_string();
    let result = run_all(&mut ctx, &operands, &o).await;
    conclude(&mut ctx, result).await
}

async fn run_all(ctx: &mut Ctx, operands: &[String], o: &Options) -> Res<i32> {
    let mut status = 0;
    let mut totals = ListTotals::default();
    if operands.is_empty() {
        return one(ctx, "-", o, &mut totals).await;
    }
    let mut todo: Vec<String> = operands.iter().rev().cloned().collect();
    while let Some(path) = todo.pop() {
        let is_dir = path != "-"
            && ctx
                .vfs
                .borrow()
                .stat(&ctx.cwd, &path)
                .is_ok_and(|s| s.kind == FileKind::Dir);
        if is_dir {
            if !o.recursive {
                if !o.quiet {
                    warn(ctx, format_args!("{path} is a directory -- ignored")).await;
                }
                status = status.max(2);
                continue;
            }
            let entries = ctx
                .vfs
                .borrow()
                .read_dir(&ctx.cwd, &path)
                .unwrap_or_default();
            for (name, _) in entries.iter().rev() {
                todo.push(crate::applets::common::join(&path, name));
            }
            continue;
        }
        status = status.max(one(ctx, &path, o, &mut totals).await?);
    }
    if o.mode == Mode::List && totals.files > 1 {
        let line = list_line(
            totals.compressed,
            totals.uncompressed,
            totals.payload,
            "(totals)",
        );
        out_str(ctx, &line).await?;
    }
    Ok(status)
}

/// Does the work for one operand; its exit status (0, 1 error, 2 warning).
async fn one(ctx: &mut Ctx, path: &str, o: &Options, totals: &mut ListTotals) -> Res<i32> {
    if path == "-" {
        let input = std::mem::replace(&mut ctx.stdin, Input::empty());
        return match o.mode {
            Mode::List => list(ctx, input, "", "stdin", totals).await,
            Mode::Test => test(ctx, input, "stdin").await,
            Mode::Compress => compress_to_stdout(ctx, input, o, None).await,
            Mode::Decompress => decompress_to_stdout(ctx, input, "stdin").await,
        };
    }
    let (source, target) = match names(ctx, path, o).await? {
        Ok(pair) => pair,
        Err(status) => return Ok(status),
    };
    let input = match open_input(ctx, &source) {
        Ok(input) => input,
        Err(message) => {
            warn(ctx, message).await;
            return Ok(1);
        }
    };
    match o.mode {
        Mode::List => list(ctx, input, &target, &source, totals).await,
        Mode::Test => test(ctx, input, &source).await,
        Mode::Compress if o.to_stdout => {
            let header = header_of(ctx, &source);
            compress_to_stdout(ctx, input, o, Some(header)).await
        }
        Mode::Decompress if o.to_stdout => decompress_to_stdout(ctx, input, &source).await,
        _ => to_file(ctx, input, &source, &target, o).await,
    }
}

/// The file to read and the file to write for `path`, or the exit status after a warning.
async fn names(ctx: &mut Ctx, path: &str, o: &Options) -> Res<Result<(String, String), i32>> {
    if o.mode == Mode::Compress {
        if path.ends_with(&o.suffix) && !o.to_stdout {
            if !o.quiet {
                warn(
                    ctx,
                    format_args!("{path} already has {} suffix -- unchanged", o.suffix),
                )
                .await;
            }
            return Ok(Err(0));
        }
        return Ok(Ok((path.to_string(), format!("{path}{}", o.suffix))));
    }
    let suffixes = [
        o.suffix.as_str(),
        ".gz",
        "-gz",
        ".z",
        "-z",
        "_z",
        ".Z",
        ".tgz",
        ".taz",
    ];
    for suffix in suffixes {
        if let Some(stem) = path.strip_suffix(suffix).filter(|s| !s.is_empty()) {
            let stem = if suffix.ends_with("tgz") || suffix.ends_with("taz") {
                format!("{stem}.tar")
            } else {
                stem.to_string()
            };
            return Ok(Ok((path.to_string(), stem)));
        }
    }
    let exists = ctx.vfs.borrow().exists(&ctx.cwd, path);
    if !exists {
        return Ok(Ok((format!("{path}{}", o.suffix), path.to_string())));
    }
    if o.to_stdout || matches!(o.mode, Mode::Test | Mode::List) {
        return Ok(Ok((path.to_string(), path.to_string())));
    }
    if !o.quiet {
        warn(ctx, format_args!("{path}: unknown suffix -- ignored")).await;
    }
    Ok(Err(2))
}

/// The name and mtime a compressed file's header records.
fn header_of(ctx: &Ctx, path: &str) -> (String, u32) {
    let mtime = ctx
        .vfs
        .borrow()
        .stat(&ctx.cwd, path)
        .map_or(0.0, |s| s.mtime_ms / 1000.0);
    let name = crate::applets::common::basename(path).to_string();
    (name, mtime.max(0.0) as u32)
}

/// The stream codec: a gzip encoder or a (multi-member) decoder writing into a buffer.
enum Codec {
    Encode(GzEncoder<Vec<u8>>),
    Decode(MultiGzDecoder<Vec<u8>>),
}

impl Codec {
    fn encoder(level: u32, header: Option<(String, u32)>) -> Codec {
        let builder = match header {
            Some((name, mtime)) => GzBuilder::new().filename(name).mtime(mtime),
            None => GzBuilder::new(),
        };
        Codec::Encode(builder.write(Vec::new(), Compression::new(level)))
    }

    fn decoder() -> Codec {
        Codec::Decode(MultiGzDecoder::new(Vec::new()))
    }

    fn feed(&mut self, data: &[u8]) -> std::io::Result<()> {
        match self {
            Codec::Encode(e) => e.write_all(data),
            Codec::Decode(d) => d.write_all(data),
        }
    }

    fn finish(&mut self) -> std::io::Result<()> {
        match self {
            Codec::Encode(e) => e.try_finish(),
            Codec::Decode(d) => d.try_finish(),
        }
    }

    fn take(&mut self) -> Vec<u8> {
        match self {
            Codec::Encode(e) => std::mem::take(e.get_mut()),
            Codec::Decode(d) => std::mem::take(d.get_mut()),
        }
    }
}

/// Why a stream could not be processed.
enum Failure {
    /// Writing the output failed.
    Write(WriteError),
    /// The input is not gzip, or is damaged: GNU's words for it.
    Data(&'static str),
}

/// Byte counts of one stream.
#[derive(Default, Clone, Copy)]
struct Counts {
    read: u64,
    written: u64,
}

/// Runs `input` through `codec` into `output`.
async fn pump(mut input: Input, output: &mut Output, mut codec: Codec) -> Result<Counts, Failure> {
    let mut counts = Counts::default();
    let decoding = matches!(codec, Codec::Decode(_));
    let mut first = true;
    while let Some(chunk) = input.read_chunk().await {
        if decoding && first && !chunk.starts_with(&[0x1f, 0x8b][..chunk.len().min(2)]) {
            return Err(Failure::Data("not in gzip format"));
        }
        first = false;
        counts.read += chunk.len() as u64;
        let fed = codec.feed(&chunk);
        let data = codec.take();
        counts.written += data.len() as u64;
        output.write(&data).await.map_err(Failure::Write)?;
        if fed.is_err() {
            return Err(Failure::Data("invalid compressed data--format violated"));
        }
    }
    if decoding && (first || counts.read < 2) {
        return Err(Failure::Data("not in gzip format"));
    }
    let finished = codec.finish();
    let data = codec.take();
    counts.written += data.len() as u64;
    output.write(&data).await.map_err(Failure::Write)?;
    if let Err(e) = finished {
        let text = e.to_string();
        let why = if text.contains("checksum") {
            "invalid compressed data--crc error"
        } else {
            "unexpected end of file"
        };
        return Err(Failure::Data(why));
    }
    output.flush().await.map_err(Failure::Write)?;
    Ok(counts)
}

/// Reports a failed stream; the exit status, or `Err` to stop (a broken pipe).
async fn failed(ctx: &mut Ctx, name: &str, failure: Failure) -> Res<i32> {
    match failure {
        Failure::Write(WriteError::BrokenPipe) => Err(Exit(141)),
        Failure::Write(WriteError::Refused(message)) => {
            warn(ctx, message).await;
            Ok(1)
        }
        Failure::Data(why) => {
            warn(ctx, format_args!("{name}: {why}")).await;
            Ok(1)
        }
    }
}

async fn compress_to_stdout(
    ctx: &mut Ctx,
    input: Input,
    o: &Options,
    header: Option<(String, u32)>,
) -> Res<i32> {
    let codec = Codec::encoder(o.level, header);
    match pump(input, &mut ctx.stdout, codec).await {
        Ok(_) => Ok(0),
        Err(failure) => failed(ctx, "stdin", failure).await,
    }
}

async fn decompress_to_stdout(ctx: &mut Ctx, input: Input, name: &str) -> Res<i32> {
    match pump(input, &mut ctx.stdout, Codec::decoder()).await {
        Ok(_) => Ok(0),
        Err(failure) => failed(ctx, name, failure).await,
    }
}

async fn test(ctx: &mut Ctx, input: Input, name: &str) -> Res<i32> {
    let mut sink = Output::new(Sink::Null);
    match pump(input, &mut sink, Codec::decoder()).await {
        Ok(_) => Ok(0),
        Err(failure) => failed(ctx, name, failure).await,
    }
}

/// Compresses or expands `source` into the file `target`, then removes `source`.
async fn to_file(ctx: &mut Ctx, input: Input, source: &str, target: &str, o: &Options) -> Res<i32> {
    let exists = ctx.vfs.borrow().lstat(&ctx.cwd, target).is_ok();
    if exists && !o.force {
        if !o.quiet {
            warn(
                ctx,
                format_args!("{target} already exists;\tnot overwritten"),
            )
            .await;
        }
        return Ok(2);
    }
    let created = ctx.vfs.borrow_mut().write(&ctx.cwd, target, b"");
    if let Err(e) = created {
        warn(ctx, e).await;
        return Ok(1);
    }
    let mut output = Output::new(Sink::File {
        vfs: ctx.vfs.clone(),
        cwd: ctx.cwd.clone(),
        path: target.to_string(),
    });
    let codec = match o.mode {
        Mode::Compress => Codec::encoder(o.level, Some(header_of(ctx, source))),
        _ => Codec::decoder(),
    };
    let counts = match pump(input, &mut output, codec).await {
        Ok(counts) => counts,
        Err(failure) => {
            drop(output);
            let _ = ctx.vfs.borrow_mut().remove_file(&ctx.cwd, target);
            return failed(ctx, source, failure).await;
        }
    };
    drop(output);
    let header = header_len(ctx, source, target, o);
    let mtime = ctx
        .vfs
        .borrow()
        .stat(&ctx.cwd, source)
        .map(|s| s.mtime_ms)
        .ok();
    {
        let mut vfs = ctx.vfs.borrow_mut();
        let _ = vfs.set_mtime(&ctx.cwd, target, mtime);
        if !o.keep {
            let _ = vfs.remove_file(&ctx.cwd, source);
        }
    }
    if o.verbose {
        let (plain, packed) = match o.mode {
            Mode::Compress => (counts.read, counts.written),
            _ => (counts.written, counts.read),
        };
        let ratio = ratio(plain, packed.saturating_sub(header + 8));
        let what = if o.keep { "created" } else { "replaced with" };
        err_str(ctx, &format!("{source}:\t{ratio} -- {what} {target}\n")).await;
    }
    Ok(0)
}

/// The size of the gzip header of the compressed side (the name in it included).
fn header_len(ctx: &Ctx, source: &str, target: &str, o: &Options) -> u64 {
    let packed = if o.mode == Mode::Compress {
        target
    } else {
        source
    };
    let data = ctx
        .vfs
        .borrow()
        .read_shared(&ctx.cwd, packed)
        .unwrap_or_default();
    parse_header_len(&data).unwrap_or(10) as u64
}

/// `-33.3%`: how much smaller the payload is than the original.
fn ratio(plain: u64, payload: u64) -> String {
    let value = if plain == 0 {
        0.0
    } else {
        100.0 * (plain as f64 - payload as f64) / plain as f64
    };
    format!("{value:5.1}%")
}

#[derive(Default)]
struct ListTotals {
    files: usize,
    compressed: u64,
    uncompressed: u64,
    payload: u64,
}

fn list_line(compressed: u64, uncompressed: u64, payload: u64, name: &str) -> String {
    format!(
        "{compressed:>19} {uncompressed:>19} {} {name}\n",
        ratio(uncompressed, payload)
    )
}

/// `gzip -l`: sizes from the header and trailer.
async fn list(
    ctx: &mut Ctx,
    mut input: Input,
    shown: &str,
    source: &str,
    totals: &mut ListTotals,
) -> Res<i32> {
    let data = input.read_all().await;
    let Some(header) = parse_header_len(&data).filter(|_| data.len() >= 18) else {
        warn(ctx, format_args!("{source}: not in gzip format")).await;
        return Ok(1);
    };
    let tail = &data[data.len() - 4..];
    let uncompressed = u64::from(u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]));
    let compressed = data.len() as u64;
    let payload = compressed.saturating_sub(header as u64 + 8);
    if totals.files == 0 {
        out_str(
            ctx,
            "         compressed        uncompressed  ratio uncompressed_name\n",
        )
        .await?;
    }
    totals.files += 1;
    totals.compressed += compressed;
    totals.uncompressed += uncompressed;
    totals.payload += payload;
    out_str(ctx, &list_line(compressed, uncompressed, payload, shown)).await?;
    Ok(0)
}

/// The length of a gzip member header, or None when `data` does not start with one.
fn parse_header_len(data: &[u8]) -> Option<usize> {
    if data.len() < 10 || data[0] != 0x1f || data[1] != 0x8b {
        return None;
    }
    let flags = data[3];
    let mut at = 10;
    if flags & 4 != 0 {
        let len = usize::from(u16::from_le_bytes([*data.get(at)?, *data.get(at + 1)?]));
        at += 2 + len;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            at += data.get(at..)?.iter().position(|&b| b == 0)? + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err, run_bytes, tree};
    use crate::applets::testing::{ok, run_in, vfs_with};

    fn gz(data: &[u8]) -> Vec<u8> {
        let vfs = vfs_with(&[]);
        run_bytes(&vfs, "gzip", &[], data).0
    }

    #[test]
    fn gzip_round_trips() {
        let vfs = vfs_with(&[("a", "hello\n")]);
        assert_eq!(run_in(&vfs, "gzip", &["a"], ""), ok(""));
        let packed = vfs
            .borrow()
            .read("/workspace", "a.gz")
            .map(|d| d[..4].to_vec())
            .unwrap_or_default();
        assert_eq!(packed, vec![0x1f, 0x8b, 8, 8]);
        assert!(!vfs.borrow().exists("/workspace", "a"));
        assert_eq!(run_in(&vfs, "zcat", &["a.gz"], ""), ok("hello\n"));
        assert_eq!(run_in(&vfs, "gunzip", &["a.gz"], ""), ok(""));
        assert_eq!(tree(&vfs), "a=hello\n");
        assert_eq!(run_in(&vfs, "gzip", &["-k", "a"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "gzip", &["a"], ""),
            err("gzip: a.gz already exists;\tnot overwritten\n", 2)
        );
        assert_eq!(run_in(&vfs, "gzip", &["-f", "a"], ""), ok(""));
        assert_eq!(run_in(&vfs, "gunzip", &["-c", "a.gz"], ""), ok("hello\n"));
        assert_eq!(run_in(&vfs, "gzip", &["-d", "a"], ""), ok(""));
        assert_eq!(tree(&vfs), "a=hello\n");
    }

    #[test]
    fn gzip_streams() {
        let vfs = vfs_with(&[]);
        let packed = gz(b"hi\n");
        assert_eq!(&packed[..4], &[0x1f, 0x8b, 8, 0]);
        let (plain, _, status) = run_bytes(&vfs, "gzip", &["-d"], &packed);
        assert_eq!((plain, status), (b"hi\n".to_vec(), 0));
        let (plain, _, _) = run_bytes(
            &vfs,
            "zcat",
            &[],
            &[packed.clone(), packed.clone()].concat(),
        );
        assert_eq!(plain, b"hi\nhi\n".to_vec());
        let big: Vec<u8> = (0..60_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let (round, _, _) = run_bytes(&vfs, "zcat", &[], &gz(&big));
        assert_eq!(round.len(), big.len());
        assert!(round == big);
        let fast = run_bytes(&vfs, "gzip", &["-1"], &big).0;
        let best = run_bytes(&vfs, "gzip", &["--best"], &big).0;
        assert!(best.len() <= fast.len());
        assert_eq!(run_bytes(&vfs, "gzip", &["-t"], &packed).2, 0);
    }

    #[test]
    fn gzip_list_and_verbose() {
        let vfs = vfs_with(&[("a", "hello\n"), ("c", "hello\n")]);
        assert_eq!(run_in(&vfs, "gzip", &["a"], ""), ok(""));
        let size = vfs
            .borrow()
            .stat("/workspace", "a.gz")
            .map(|s| s.size)
            .unwrap_or(0);
        let payload = size as i64 - 20;
        let ratio = format!("{:5.1}%", 100.0 * (6.0 - payload as f64) / 6.0);
        assert_eq!(
            run_in(&vfs, "gzip", &["-l", "a.gz"], ""),
            ok(&format!("         compressed        uncompressed  ratio uncompressed_name\n{size:>19}                   6 {ratio} a\n"))
        );
        assert_eq!(
            run_in(&vfs, "gzip", &["-v", "c"], ""),
            err(&format!("c:\t{ratio} -- replaced with c.gz\n"), 0)
        );
        assert_eq!(
            run_in(&vfs, "gunzip", &["-v", "c.gz"], ""),
            err(&format!("c.gz:\t{ratio} -- replaced with c\n"), 0)
        );
    }

    #[test]
    fn gzip_errors() {
        let vfs = vfs_with(&[("a.gz", "junk"), ("b", "x")]);
        let _ = vfs.borrow_mut().mkdir("/workspace", "dd");
        assert_eq!(
            run_in(&vfs, "gzip", &["a.gz"], ""),
            err("gzip: a.gz already has .gz suffix -- unchanged\n", 0)
        );
        assert_eq!(
            run_in(&vfs, "gunzip", &["a.gz"], ""),
            err("gzip: a.gz: not in gzip format\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "gunzip", &["b"], ""),
            err("gzip: b: unknown suffix -- ignored\n", 2)
        );
        assert_eq!(
            run_in(&vfs, "gzip", &["-d", "nope.gz"], ""),
            err("gzip: nope.gz: No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "zcat", &["nope"], ""),
            err("gzip: nope.gz: No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "gzip", &["dd"], ""),
            err("gzip: dd is a directory -- ignored\n", 2)
        );
        assert_eq!(run_in(&vfs, "gzip", &["-r", "dd"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "zcat", &[], "plain"),
            err("gzip: stdin: not in gzip format\n", 1)
        );
        assert_eq!(run_in(&vfs, "gzip", &["-x"], "").status, 1);
        assert_eq!(tree(&vfs), "a.gz=junk\nb=x\ndd/");
        let truncated = {
            let (mut packed, _, _) = run_bytes(&vfs, "gzip", &[], b"hello hello hello\n");
            packed.truncate(packed.len() - 12);
            packed
        };
        let (_, stderr, status) = run_bytes(&vfs, "zcat", &[], &truncated);
        assert_eq!(
            (stderr.as_str(), status),
            ("gzip: stdin: unexpected end of file\n", 1)
        );
        let _ = both;
    }
}
