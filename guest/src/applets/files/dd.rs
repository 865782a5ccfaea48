//! `dd [OPERAND]...`: copy a file block by block (`if= of= bs= ibs= obs= count= skip= seek=
//! conv= status= iflag= oflag=`), with GNU's `N+M records in/out` summary on stderr.
//!
//! Inputs here are whole files or pipes read to the end, so every block but the last is full
//! (as with GNU's `iflag=fullblock`); `seek=` needs `of=` (standard output cannot seek).

use crate::applets::common::parse_size;
use crate::applets::common::{conclude, err_str, out, Exit, Res};
use crate::applets::common::{open_input, usage_error, warn};
use crate::applets::{Applet, Ctx, Help};
use crate::limits::MAX_DD_BLOCK;
use crate::task::LocalFuture;

/// The `dd` applet.
pub const APPLET: Applet = Applet {
    name: "dd",
    usage: "dd [OPERAND]...\nCopy a file, converting and formatting according to the operands.\n  bs=BYTES        read and write up to BYTES bytes at a time (default: 512)\n  count=N         copy only N input blocks\n  conv=CONVS      convert the file as per the comma separated symbol list\n  ibs=BYTES       read up to BYTES bytes at a time (default: 512)\n  if=FILE         read from FILE instead of stdin\n  iflag=FLAGS     read as per the comma separated symbol list\n  obs=BYTES       write BYTES bytes at a time (default: 512)\n  of=FILE         write to FILE instead of stdout\n  oflag=FLAGS     write as per the comma separated symbol list\n  seek=N          skip N obs-sized blocks at start of output\n  skip=N          skip N ibs-sized blocks at start of input\n  status=LEVEL    none: no summary; noxfer: no byte count; progress: as the default\nN and BYTES may be followed by c=1, w=2, b=512, kB=1000, K=1024, MB, M, GB, G...,\nand may be products: 2x512.\nCONVS: lcase, ucase, notrunc, sync (pad every input block to ibs with NULs),\n  and fsync, fdatasync, noerror (accepted, nothing to do here).\nFLAGS: fullblock (always the case here), skip_bytes, count_bytes, seek_bytes.",
    help: Help::First,
    run,
};

#[derive(Default)]
struct Options {
    input: Option<String>,
    output: Option<String>,
    bs: Option<u64>,
    ibs: u64,
    obs: u64,
    count: Option<u64>,
    skip: u64,
    seek: u64,
    ucase: bool,
    lcase: bool,
    notrunc: bool,
    sync: bool,
    skip_bytes: bool,
    count_bytes: bool,
    seek_bytes: bool,
    status: Status,
}

#[derive(Default, PartialEq, Eq, Clone, Copy)]
enum Status {
    #[default]
    Default,
    NoXfer,
    None,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let mut ctx = ctx;
        let o = match options(&ctx.args) {
            Ok(o) => o,
            Err((message, usage)) if usage => return usage_error(&mut ctx, message, 1).await,
            Err((message, _)) => {
                warn(&mut ctx, message).await;
                return 1;
            }
        };
        let result = copy(&mut ctx, &o).await;
        conclude(&mut ctx, result).await
    })
}

type Bad = (String, bool);

fn options(args: &[String]) -> Result<Options, Bad> {
    let mut o = Options {
        ibs: 512,
        obs: 512,
        ..Options::default()
    };
    for arg in args {
        let Some((key, value)) = arg.split_once('=') else {
            return Err((format!("unrecognized operand '{arg}'"), true));
        };
        let num = || number(value).ok_or((format!("invalid number: '{value}'"), false));
        let size = || {
            num().and_then(|n| {
                if n == 0 {
                    Err((format!("invalid number: '{value}'"), false))
                } else {
                    Ok(n)
                }
            })
        };
        match key {
            "if" => o.input = Some(value.to_string()),
            "of" => o.output = Some(value.to_string()),
            "bs" => o.bs = Some(size()?),
            "ibs" => o.ibs = size()?,
            "obs" => o.obs = size()?,
            "count" => o.count = Some(num()?),
            "skip" | "iseek" => o.skip = num()?,
            "seek" | "oseek" => o.seek = num()?,
            "conv" => conversions(&mut o, value)?,
            "iflag" | "oflag" => flags(&mut o, value)?,
            "status" => {
                o.status = match value {
                    "none" => Status::None,
                    "noxfer" => Status::NoXfer,
                    "progress" => Status::Default,
                    _ => return Err((format!("invalid status level: '{value}'"), true)),
                }
            }
            _ => return Err((format!("unrecognized operand '{arg}'"), true)),
        }
    }
    if o.ucase && o.lcase {
        return Err(("cannot combine lcase and ucase".into(), true));
    }
    if let Some(bs) = o.bs {
        (o.ibs, o.obs) = (bs, bs);
    }
    Ok(o)
}

fn conversions(o: &mut Options, list: &str) -> Result<(), Bad> {
    for conv in list.split(',') {
        match conv {
            "ucase" => o.ucase = true,
            "lcase" => o.lcase = true,
            "notrunc" => o.notrunc = true,
            "sync" => o.sync = true,
            "fsync" | "fdatasync" | "noerror" => {}
            _ => return Err((format!("invalid conversion: '{conv}'"), true)),
        }
    }
    Ok(())
}

fn flags(o: &mut Options, list: &str) -> Result<(), Bad> {
    for flag in list.split(',') {
        match flag {
            "skip_bytes" => o.skip_bytes = true,
            "count_bytes" => o.count_bytes = true,
            "seek_bytes" => o.seek_bytes = true,
            "fullblock" => {}
            _ => return Err((format!("invalid input flag: '{flag}'"), true)),
        }
    }
    Ok(())
}

/// A dd number: a size with GNU's suffixes (`c`, `w`, `b`, `K`, `kB`...), or a product `AxB`.
fn number(text: &str) -> Option<u64> {
    text.split('x').try_fold(1u64, |product, factor| {
        let value = match factor
            .strip_suffix('c')
            .or(factor.strip_suffix('w').map(|_| ""))
        {
            Some(bare) if !bare.is_empty() => parse_size(bare)?,
            Some(_) => parse_size(factor.strip_suffix('w')?)?.checked_mul(2)?,
            None => parse_size(factor)?,
        };
        product.checked_mul(value)
    })
}

async fn copy(ctx: &mut Ctx, o: &Options) -> Res<i32> {
    let started = ctx.host.now_ms();
    for (size, which) in [(o.ibs, "input"), (o.obs, "output")] {
        if size > MAX_DD_BLOCK {
            let message = format!(
                "memory exhausted by {which} buffer of size {size} bytes ({}) \
                 (at most {MAX_DD_BLOCK} in this sandbox)",
                binary_size(size)
            );
            warn(ctx, message).await;
            return Ok(1);
        }
    }
    if o.output.is_none() && o.seek > 0 {
        warn(ctx, "'standard output': cannot seek: Illegal seek").await;
        return Err(Exit(1));
    }
    let name = o.input.as_deref().unwrap_or("-");
    let mut input = match open_input(ctx, name) {
        Ok(input) => input,
        Err(e) => {
            let reason = e.rsplit(": ").next().unwrap_or(&e).to_string();
            warn(ctx, format!("failed to open '{name}': {reason}")).await;
            return Ok(1);
        }
    };
    let bytes = |n: u64, bytes: bool| if bytes { n } else { n.saturating_mul(o.ibs) };
    let mut to_skip = bytes(o.skip, o.skip_bytes);
    // Read no more than count asks for: /dev/zero never ends.
    let mut to_copy = o.count.map(|count| bytes(count, o.count_bytes));
    let ibs = usize::try_from(o.ibs).unwrap_or(usize::MAX);
    let mut sink = Sink::open(ctx, o);
    let mut pending = Vec::new();
    let mut records_in = (0, 0);
    // Blocks go out as they fill, so memory holds one block and one chunk, whatever the size.
    while to_copy != Some(0) && !sink.full {
        let Some(chunk) = input.read_chunk().await else {
            break;
        };
        let skipped = usize::try_from(to_skip).map_or(chunk.len(), |n| n.min(chunk.len()));
        to_skip -= skipped as u64;
        let mut chunk = &chunk[skipped..];
        if let Some(left) = &mut to_copy {
            chunk = &chunk[..usize::try_from(*left).map_or(chunk.len(), |n| n.min(chunk.len()))];
            *left -= chunk.len() as u64;
        }
        pending.extend_from_slice(chunk);
        let whole = pending.len() / ibs * ibs;
        if whole > 0 {
            // Blocks past a full file's end were never read.
            let accepted = sink.put(ctx, o, &pending[..whole]).await?;
            records_in.0 += accepted.div_ceil(ibs);
            pending.drain(..whole);
        }
    }
    if !pending.is_empty() && !sink.full {
        records_in.1 = 1;
        if o.sync {
            pending.resize(ibs, 0);
        }
        sink.put(ctx, o, &pending).await?;
    }
    let copied = sink.written;
    let records_out = if o.bs.is_some() && !sink.full {
        records_in
    } else {
        records(copied, usize::try_from(o.obs).unwrap_or(usize::MAX))
    };
    let status = sink.close(ctx, o).await?;
    // The data goes out before the summary, as with GNU (`dd ... 2>&1`).
    match ctx.stdout.flush().await {
        Ok(()) => {}
        Err(crate::task::WriteError::BrokenPipe) => return Err(Exit(141)),
        Err(crate::task::WriteError::Refused(message)) => {
            warn(ctx, format!("write error: {message}")).await;
            return Err(Exit(1));
        }
    }
    if o.status != Status::None {
        let mut summary = format!(
            "{}+{} records in\n{}+{} records out\n",
            records_in.0, records_in.1, records_out.0, records_out.1
        );
        if o.status == Status::Default {
            summary += &transfer_line(copied, (ctx.host.now_ms() - started) / 1000.0);
        }
        err_str(ctx, &summary).await;
    }
    Ok(status)
}

/// `91 TiB`: a size as GNU's messages word it (`-h`'s figure, rounded up, with its unit).
fn binary_size(bytes: u64) -> String {
    let short = crate::applets::common::human(bytes);
    match short.strip_suffix(|c: char| c.is_ascii_alphabetic()) {
        Some(number) => format!("{number} {}iB", &short[number.len()..]),
        None => format!("{bytes} bytes"),
    }
}

/// Full and partial blocks of `size` in `len` bytes.
fn records(len: usize, size: usize) -> (usize, usize) {
    (len / size, usize::from(!len.is_multiple_of(size)))
}

fn convert(byte: u8, o: &Options) -> u8 {
    if o.ucase {
        byte.to_ascii_uppercase()
    } else if o.lcase {
        byte.to_ascii_lowercase()
    } else {
        byte
    }
}

/// Where the copy goes: standard output as it comes, or a file built in memory (up to the
/// sandbox's file size limit) and written once at the end.
struct Sink {
    /// The file's new contents, for `of=`.
    file: Option<Vec<u8>>,
    /// Where the next byte goes in `file`.
    at: usize,
    /// Bytes copied so far.
    written: usize,
    /// The file reached the size limit: the copy stops there, as on a full disk.
    full: bool,
}

impl Sink {
    fn open(ctx: &Ctx, o: &Options) -> Sink {
        let mut sink = Sink {
            file: None,
            at: 0,
            written: 0,
            full: false,
        };
        if let Some(path) = &o.output {
            let at = if o.seek_bytes {
                o.seek
            } else {
                o.seek.saturating_mul(o.obs)
            };
            let vfs = ctx.vfs.borrow();
            let mut file = vfs
                .read(&ctx.cwd, path)
                .map(<[u8]>::to_vec)
                .unwrap_or_default();
            if !o.notrunc {
                file.truncate(usize::try_from(at).unwrap_or(usize::MAX));
            }
            sink.at = usize::try_from(at.min(vfs.limits().max_file_size.saturating_add(1)))
                .unwrap_or(usize::MAX);
            sink.full = sink.at as u64 > vfs.limits().max_file_size;
            sink.file = Some(file);
        }
        sink
    }

    /// Copies `block` out: how many bytes of it were taken (fewer once the file is full).
    async fn put(&mut self, ctx: &mut Ctx, o: &Options, block: &[u8]) -> Res<usize> {
        let converted: Vec<u8>;
        let block = if o.ucase || o.lcase {
            converted = block.iter().map(|&b| convert(b, o)).collect();
            &converted[..]
        } else {
            block
        };
        let Some(file) = &mut self.file else {
            self.written += block.len();
            return out(ctx, block).await.map(|()| block.len());
        };
        let limit = usize::try_from(ctx.vfs.borrow().limits().max_file_size).unwrap_or(usize::MAX);
        let room = limit.saturating_sub(self.at);
        let block = &block[..block.len().min(room)];
        self.full = block.len() == room;
        let end = self.at + block.len();
        if file.len() < end {
            file.resize(end, 0);
        }
        file[self.at..end].copy_from_slice(block);
        self.at = end;
        self.written += block.len();
        Ok(block.len())
    }

    /// Writes the file, if any: the exit status, 1 when it could not be written whole.
    async fn close(self, ctx: &mut Ctx, o: &Options) -> Res<i32> {
        let (Some(path), Some(mut file)) = (&o.output, self.file) else {
            return Ok(0);
        };
        if file.len() < self.at {
            file.resize(self.at, 0); // seek= past the end, nothing copied: the file grows to it
        }
        let written = ctx.vfs.borrow_mut().write(&ctx.cwd, path, &file);
        if let Err(e) = written {
            let reason = e.code.description();
            warn(ctx, format!("failed to open '{path}': {reason}")).await;
            return Ok(1);
        }
        if self.full {
            warn(ctx, format!("error writing '{path}': File too large")).await;
            return Ok(1);
        }
        Ok(0)
    }
}

/// `N bytes (1.0 kB, 1.0 KiB) copied, T s, R/s`, as GNU words it.
fn transfer_line(bytes: usize, seconds: f64) -> String {
    let n = bytes as f64;
    let sizes = if bytes >= 1000 {
        format!(
            " ({}B, {}iB)",
            human(n, 1000.0),
            human(n, 1024.0).replace('k', "K")
        )
    } else {
        String::new()
    };
    let rate = if seconds > 0.0 {
        format!("{}B/s", human(n / seconds, 1000.0))
    } else {
        "Infinity B/s".into()
    };
    format!("{bytes} bytes{sizes} copied, {seconds} s, {rate}\n")
}

/// `2.0 k`, `245 M`: three significant digits and a unit prefix.
fn human(mut value: f64, base: f64) -> String {
    let mut prefix = "";
    for next in ["k", "M", "G", "T", "P", "E"] {
        if value < base {
            break;
        }
        (value, prefix) = (value / base, next);
    }
    let number = if value < 100.0 && !prefix.is_empty() || value < 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.0}")
    };
    format!("{number} {prefix}")
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{err, tree};
    use crate::applets::testing::{run, run_in, vfs_with, Outcome};

    fn dd(
        vfs: &std::rc::Rc<std::cell::RefCell<crate::vfs::Vfs>>,
        args: &[&str],
        stdin: &str,
    ) -> Outcome {
        run_in(vfs, "dd", args, stdin)
    }

    #[test]
    fn dd_copies_blocks() {
        let vfs = vfs_with(&[("a", "XY"), ("b", "abcdef")]);
        let out = dd(&vfs, &["bs=4", "count=2"], "hello world\n");
        assert_eq!((out.stdout.as_str(), out.status), ("hello wo", 0));
        assert!(out
            .stderr
            .starts_with("2+0 records in\n2+0 records out\n8 bytes copied, "));
        let out = dd(&vfs, &["ibs=3", "obs=5", "status=noxfer"], "hello world\n");
        assert_eq!(out.stderr, "4+0 records in\n2+1 records out\n");
        let out = dd(
            &vfs,
            &["bs=4", "skip=1", "conv=ucase", "status=none"],
            "hello world\n",
        );
        assert_eq!(
            (out.stdout.as_str(), out.stderr.as_str()),
            ("O WORLD\n", "")
        );
        assert_eq!(
            dd(
                &vfs,
                &[
                    "if=a",
                    "of=b",
                    "bs=1",
                    "seek=2",
                    "conv=notrunc",
                    "status=none"
                ],
                ""
            )
            .status,
            0
        );
        assert_eq!(tree(&vfs), "a=XY\nb=abXYef");
        assert_eq!(
            dd(&vfs, &["if=a", "of=b", "bs=1", "seek=2", "status=none"], "").status,
            0
        );
        assert_eq!(tree(&vfs), "a=XY\nb=abXY");
        assert_eq!(
            dd(&vfs, &["if=a", "of=c", "bs=4", "seek=1", "status=none"], "").status,
            0
        );
        assert_eq!(tree(&vfs), "a=XY\nb=abXY\nc=\0\0\0\0XY");
        assert_eq!(
            dd(&vfs, &["conv=lcase,sync", "ibs=4", "status=none"], "ABCDEF").stdout,
            "abcdef\0\0"
        );
        assert_eq!(
            dd(&vfs, &["bs=2x2", "count=1", "status=none"], "abcdef").stdout,
            "abcd"
        );
        assert_eq!(
            dd(&vfs, &["if=nope"], ""),
            err("dd: failed to open 'nope': No such file or directory\n", 1)
        );
        assert_eq!(
            run("dd", &["foo=1"], ""),
            err(
                "dd: unrecognized operand 'foo=1'\nTry 'dd --help' for more information.\n",
                1
            )
        );
        assert_eq!(
            run("dd", &["bs=0"], ""),
            err("dd: invalid number: '0'\n", 1)
        );
        assert_eq!(
            run("dd", &["conv=lcase,ucase"], ""),
            err(
                "dd: cannot combine lcase and ucase\nTry 'dd --help' for more information.\n",
                1
            )
        );
    }

    #[test]
    fn dd_streams_and_bounds_memory() {
        // A block too big to hold is refused up front, as GNU refuses to allocate it.
        assert_eq!(
            run("dd", &["bs=99999999999999", "count=1", "if=/dev/zero"], ""),
            err(
                "dd: memory exhausted by input buffer of size 99999999999999 bytes (91 TiB) \
                 (at most 67108864 in this sandbox)\n",
                1
            )
        );
        assert_eq!(super::binary_size(1536), "1.5 KiB");
        // An endless input is read no further than count asks.
        let out = run(
            "dd",
            &["if=/dev/zero", "bs=1M", "count=3", "status=none"],
            "",
        );
        assert_eq!((out.stdout.len(), out.status), (3 << 20, 0));
        // A file stops at the sandbox's size limit, as on a full disk, and keeps what fit.
        let mut vfs = crate::vfs::Vfs::new(
            crate::vfs::VfsLimits {
                max_file_size: 10,
                ..crate::vfs::VfsLimits::default()
            },
            Box::new(|| 0.0),
        );
        vfs.mkdir_all("/", "/workspace").expect("mkdir");
        let vfs = std::rc::Rc::new(std::cell::RefCell::new(vfs));
        let out = dd(&vfs, &["if=/dev/zero", "of=f", "bs=4", "status=noxfer"], "");
        assert_eq!(
            (out.stderr.as_str(), out.status),
            (
                "dd: error writing 'f': File too large\n3+0 records in\n2+1 records out\n",
                1
            )
        );
        assert_eq!(
            vfs.borrow().read("/workspace", "f").map(<[u8]>::len),
            Ok(10)
        );
        // seek= past the end with nothing to copy still grows the file.
        dd(&vfs, &["of=g", "bs=2", "seek=3", "status=none"], "");
        assert_eq!(vfs.borrow().read("/workspace", "g").map(<[u8]>::len), Ok(6));
    }

    #[test]
    fn dd_summary_sizes() {
        assert_eq!(
            super::transfer_line(2000, 0.5),
            "2000 bytes (2.0 kB, 2.0 KiB) copied, 0.5 s, 4.0 kB/s\n"
        );
        assert_eq!(
            super::transfer_line(12, 0.0),
            "12 bytes copied, 0 s, Infinity B/s\n"
        );
    }
}
