//! `dd [OPERAND]...`: copy a file block by block (`if= of= bs= ibs= obs= count= skip= seek=
//! conv= status= iflag= oflag=`), with GNU's `N+M records in/out` summary on stderr.
//!
//! Inputs here are whole files or pipes read to the end, so every block but the last is full
//! (as with GNU's `iflag=fullblock`); `seek=` needs `of=` (standard output cannot seek).

use crate::applets::common::parse_size;
use crate::applets::common::{conclude, err_str, out, Exit, Res};
use crate::applets::common::{open_input, usage_error, warn};
use crate::applets::{Applet, Ctx, Help};
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
    let name = o.input.as_deref().unwrap_or("-");
    let at = |n: u64, unit: u64, bytes: bool| {
        usize::try_from(if bytes { n } else { n.saturating_mul(unit) }).unwrap_or(usize::MAX)
    };
    let skip = at(o.skip, o.ibs, o.skip_bytes);
    // Read no more than skip + count asks for: /dev/zero never ends.
    let wanted = o
        .count
        .map(|count| skip.saturating_add(at(count, o.ibs, o.count_bytes)));
    let data = match open_input(ctx, name) {
        Ok(mut input) => {
            let mut data = Vec::new();
            while wanted.is_none_or(|w| data.len() < w) {
                let Some(chunk) = input.read_chunk().await else {
                    break;
                };
                data.extend_from_slice(&chunk);
            }
            data.truncate(wanted.unwrap_or(data.len()));
            data
        }
        Err(e) => {
            let reason = e.rsplit(": ").next().unwrap_or(&e).to_string();
            warn(ctx, format!("failed to open '{name}': {reason}")).await;
            return Ok(1);
        }
    };
    let rest = &data[skip.min(data.len())..];
    let ibs = usize::try_from(o.ibs).unwrap_or(usize::MAX);
    let mut converted = Vec::with_capacity(rest.len());
    for block in rest.chunks(ibs) {
        converted.extend(block.iter().map(|&b| convert(b, o)));
        if o.sync && block.len() < ibs {
            converted.resize(converted.len() + ibs - block.len(), 0);
        }
    }
    let records_in = records(rest.len(), ibs);
    let records_out = if o.bs.is_some() {
        records_in
    } else {
        records(
            converted.len(),
            usize::try_from(o.obs).unwrap_or(usize::MAX),
        )
    };
    let status = write_output(ctx, o, &converted).await?;
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
            summary += &transfer_line(converted.len(), (ctx.host.now_ms() - started) / 1000.0);
        }
        err_str(ctx, &summary).await;
    }
    Ok(status)
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

async fn write_output(ctx: &mut Ctx, o: &Options, bytes: &[u8]) -> Res<i32> {
    let Some(path) = &o.output else {
        if o.seek > 0 {
            warn(ctx, "'standard output': cannot seek: Illegal seek").await;
            return Err(Exit(1));
        }
        out(ctx, bytes).await?;
        return Ok(0);
    };
    let offset = usize::try_from(if o.seek_bytes {
        o.seek
    } else {
        o.seek.saturating_mul(o.obs)
    })
    .unwrap_or(usize::MAX);
    let mut file = ctx
        .vfs
        .borrow()
        .read(&ctx.cwd, path)
        .map(<[u8]>::to_vec)
        .unwrap_or_default();
    if !o.notrunc {
        file.truncate(offset);
    }
    let end = offset.saturating_add(bytes.len());
    if file.len() < end {
        file.resize(end, 0);
    }
    file[offset..end].copy_from_slice(bytes);
    let written = ctx.vfs.borrow_mut().write(&ctx.cwd, path, &file);
    if let Err(e) = written {
        warn(
            ctx,
            format!("failed to open '{path}': {}", e.code.description()),
        )
        .await;
        return Ok(1);
    }
    Ok(0)
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
