//! `touch [-acm] [-d DATE | -t STAMP | -r FILE] FILE...`: create files, set modification times.
//! The VFS keeps one time per file (the mtime): `-a` alone changes nothing but still creates.

use crate::applets::common::{conclude, days_from_civil, parse_args, parse_date, quote};
use crate::applets::common::{usage_error, warn, Opt, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::Errno;

/// The `touch` applet.
pub const APPLET: Applet = Applet {
    name: "touch",
    usage: "touch [OPTION]... FILE...\nUpdate the modification time of each FILE to now; create missing files empty.\n  -a                     change only the access time (not kept here: no change)\n  -c, --no-create        do not create any files\n  -d, --date=STRING      use STRING instead of now (`2024-01-15 10:30`, `@EPOCH`, `yesterday`)\n  -m                     change only the modification time\n  -r, --reference=FILE   use FILE's time instead of now\n  -t STAMP               use [[CC]YY]MMDDhhmm[.ss] instead of now\n  -h, --no-dereference   accepted; symlinks are followed",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "acmhf",
    short_val: "drt",
    long: &["no-create", "no-dereference"],
    long_val: &["date", "reference", "time"],
    digits: None,
    stop_at_operand: false,
};

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let no_create = opts.iter().any(|o| o.is('c', "no-create"));
        let access_only =
            opts.iter().any(|o| o.is('a', "\0")) && !opts.iter().any(|o| o.is('m', "\0"));
        let when = match chosen_time(&mut ctx, &opts).await {
            Ok(when) => when,
            Err(status) => return status,
        };
        if operands.is_empty() {
            return usage_error(&mut ctx, "missing file operand", 1).await;
        }
        let mut status = 0;
        for path in &operands {
            if path == "-" {
                continue; // GNU touches standard output: nothing to do here.
            }
            if let Err(code) = touch_one(&ctx, path, no_create, access_only, when) {
                warn(
                    &mut ctx,
                    format_args!("cannot touch {}: {code}", quote(path)),
                )
                .await;
                status = 1;
            }
        }
        conclude(&mut ctx, Ok(status)).await
    })
}

fn touch_one(
    ctx: &Ctx,
    path: &str,
    no_create: bool,
    access_only: bool,
    when: Option<f64>,
) -> Result<(), Errno> {
    let mut vfs = ctx.vfs.borrow_mut();
    if !vfs.exists(&ctx.cwd, path) {
        if no_create {
            return Ok(());
        }
        vfs.append(&ctx.cwd, path, b"").map_err(|e| e.code)?;
        if when.is_none() || access_only {
            return Ok(());
        }
    } else if access_only {
        return Ok(());
    }
    vfs.set_mtime(&ctx.cwd, path, when).map_err(|e| e.code)
}

/// The time to set in milliseconds (None = now), from `-d`, `-t` or `-r`.
async fn chosen_time(ctx: &mut Ctx, opts: &[Opt]) -> Result<Option<f64>, i32> {
    let now_ms = ctx.host.now_ms();
    let now_secs = (now_ms / 1000.0).floor() as i64;
    let mut when = None;
    for opt in opts {
        let value = opt.value();
        if opt.is('d', "date") {
            let nanos = ((now_ms - now_secs as f64 * 1000.0) * 1e6) as u32;
            match parse_date(value, now_secs, nanos) {
                Ok((secs, nanos)) => when = Some(secs as f64 * 1000.0 + f64::from(nanos) / 1e6),
                Err(_) => return Err(bad_date(ctx, value).await),
            }
        } else if opt.is('t', "\0") {
            match parse_stamp(value, now_secs) {
                Some(secs) => when = Some(secs as f64 * 1000.0),
                None => return Err(bad_date(ctx, value).await),
            }
        } else if opt.is('r', "reference") {
            let stat = ctx.vfs.borrow().stat(&ctx.cwd, value);
            match stat {
                Ok(stat) => when = Some(stat.mtime_ms),
                Err(e) => {
                    let message =
                        format!("failed to get attributes of {}: {}", quote(value), e.code);
                    warn(ctx, message).await;
                    return Err(1);
                }
            }
        }
    }
    Ok(when)
}

async fn bad_date(ctx: &mut Ctx, value: &str) -> i32 {
    warn(ctx, format_args!("invalid date format {}", quote(value))).await;
    1
}

/// `-t [[CC]YY]MMDDhhmm[.ss]` in seconds since the epoch (UTC).
fn parse_stamp(stamp: &str, now_secs: i64) -> Option<i64> {
    let (main, secs) = match stamp.split_once('.') {
        Some((main, ss)) if ss.len() == 2 => (main, ss.parse::<i64>().ok()?),
        Some(_) => return None,
        None => (stamp, 0),
    };
    if !main.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let field = |at: usize| main.get(at..at + 2).and_then(|s| s.parse::<i64>().ok());
    let (year, rest) = match main.len() {
        8 => (crate::applets::common::civil(now_secs).year, 0),
        10 => {
            let yy = field(0)?;
            (if yy < 69 { 2000 + yy } else { 1900 + yy }, 2)
        }
        12 => (main.get(0..4)?.parse().ok()?, 4),
        _ => return None,
    };
    let (month, day, hour, minute) = (
        field(rest)?,
        field(rest + 2)?,
        field(rest + 4)?,
        field(rest + 6)?,
    );
    let valid = (1..=12).contains(&month)
        && day >= 1
        && day <= days_from_civil(year, month + 1, 1) - days_from_civil(year, month, 1)
        && hour < 24
        && minute < 60
        && secs <= 60;
    valid.then(|| days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + secs)
}

#[cfg(test)]
mod tests {
    use super::parse_stamp;
    use crate::applets::files::testutil::{err, mtime, tree};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    #[test]
    fn touch_creates_and_stamps() {
        let vfs = vfs_with(&[("old", "keep")]);
        super::super::testutil::set_mtime(&vfs, "old", 5.0);
        assert_eq!(run_in(&vfs, "touch", &["a", "old"], ""), ok(""));
        assert_eq!((mtime(&vfs, "a"), mtime(&vfs, "old")), (1.7e9, 1.7e9));
        assert_eq!(run_in(&vfs, "touch", &["-c", "nope"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "touch", &["-d", "2024-01-15 10:30", "a"], ""),
            ok("")
        );
        assert_eq!(mtime(&vfs, "a"), 1_705_314_600.0);
        assert_eq!(
            run_in(&vfs, "touch", &["-t", "202401151030.45", "b"], ""),
            ok("")
        );
        assert_eq!(mtime(&vfs, "b"), 1_705_314_645.0);
        assert_eq!(run_in(&vfs, "touch", &["-r", "b", "old"], ""), ok(""));
        assert_eq!(mtime(&vfs, "old"), 1_705_314_645.0);
        assert_eq!(
            run_in(&vfs, "touch", &["-m", "--date=@5", "old"], ""),
            ok("")
        );
        assert_eq!(mtime(&vfs, "old"), 5.0);
        assert_eq!(
            run_in(&vfs, "touch", &["-a", "-d", "@7", "old", "new"], ""),
            ok("")
        );
        assert_eq!((mtime(&vfs, "old"), mtime(&vfs, "new")), (5.0, 1.7e9));
        assert_eq!(run_in(&vfs, "touch", &["-"], ""), ok(""));
        assert_eq!(tree(&vfs), "a=\nb=\nnew=\nold=keep");
    }

    #[test]
    fn touch_errors() {
        let vfs = vfs_with(&[]);
        assert_eq!(
            run_in(&vfs, "touch", &["nodir/x"], ""),
            err(
                "touch: cannot touch 'nodir/x': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "touch", &["-d", "bogus", "a"], ""),
            err("touch: invalid date format 'bogus'\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "touch", &["-t", "99", "a"], ""),
            err("touch: invalid date format '99'\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "touch", &["-r", "nope", "a"], ""),
            err(
                "touch: failed to get attributes of 'nope': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "touch", &["/etc/x"], ""),
            err("touch: cannot touch '/etc/x': Permission denied\n", 1)
        );
        assert_eq!(
            run("touch", &[], ""),
            err(
                "touch: missing file operand\nTry 'touch --help' for more information.\n",
                1
            )
        );
        assert_eq!(tree(&vfs), "");
    }

    #[test]
    fn stamps() {
        let now = 1_795_269_339; // 2026-11-21
        assert_eq!(parse_stamp("01151030", now), Some(1_768_473_000));
        assert_eq!(parse_stamp("2401151030", now), Some(1_705_314_600));
        assert_eq!(parse_stamp("6901010000", now), Some(-31_536_000));
        assert_eq!(parse_stamp("202402301030", now), None);
        assert_eq!(parse_stamp("2024011510301", now), None);
        assert_eq!(parse_stamp("202401151030.5", now), None);
    }
}
