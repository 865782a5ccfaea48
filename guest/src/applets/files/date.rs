//! `date [-u] [-d STRING | -r FILE] [-I[FMT] | -R | --rfc-3339=FMT | +FORMAT]`: print the time.
//! The time is the host's (`now_ms`), shown in the zone `TZ` names (see `common/zone.rs`).

use crate::applets::common::{conclude, out_str, parse_args, parse_date_in, strftime_in, Zone};
use crate::applets::common::{usage_error, warn, Opt, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `date` applet.
pub const APPLET: Applet = Applet {
    name: "date",
    usage: "date [OPTION]... [+FORMAT]\nDisplay the date and time (in the zone TZ names: a POSIX rule or a common zone name) in FORMAT (strftime: %Y %m %d %H %M %S %s %N %a %A\n%b %B %j %u %w %Z %z %F %T %D %e %p %I %y %% ...).\n  -d, --date=STRING        show STRING (`@EPOCH`, `2024-01-15 10:30`, `yesterday`, `3 days ago`)\n  -r, --reference=FILE     show the last modification time of FILE\n  -u, --utc, --universal   UTC, whatever TZ says\n  -I[FMT], --iso-8601[=FMT] ISO 8601: FMT is date (default), hours, minutes, seconds or ns\n  -R, --rfc-email          RFC 5322 format, like `Mon, 14 Aug 2006 02:34:56 +0000`\n      --rfc-3339=FMT       RFC 3339: FMT is date, seconds or ns",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "uR",
    short_val: "dr",
    long: &["utc", "universal", "rfc-email", "rfc-2822"],
    long_val: &["date", "reference", "iso-8601", "rfc-3339"],
    digits: None,
    stop_at_operand: false,
};

/// `-I` takes an optional value glued to it, which the option parser cannot express:
/// rewrite `-I`, `-Ixx`, `--iso-8601` to the `--iso-8601=xx` form first.
fn normalize_iso(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut after_dash_dash = false;
    for arg in args {
        if after_dash_dash {
            out.push(arg.clone());
            continue;
        }
        after_dash_dash = arg == "--";
        if let Some(value) = arg.strip_prefix("-I") {
            let value = if value.is_empty() { "date" } else { value };
            out.push(format!("--iso-8601={value}"));
        } else if arg == "--iso-8601" || arg == "--iso" || arg == "--iso-" {
            out.push("--iso-8601=date".to_string());
        } else {
            out.push(arg.clone());
        }
    }
    out
}

/// Unique-prefix matching of the values `--iso-8601` and `--rfc-3339` accept.
fn pick<'a>(value: &str, choices: &[&'a str]) -> Option<&'a str> {
    if let Some(exact) = choices.iter().find(|c| **c == value) {
        return Some(exact);
    }
    let found: Vec<&&str> = choices.iter().filter(|c| c.starts_with(value)).collect();
    match found.as_slice() {
        [one] if !value.is_empty() => Some(one),
        _ => None,
    }
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        ctx.args = normalize_iso(&ctx.args);
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let format = match choose_format(&mut ctx, &opts, &operands).await {
            Ok(format) => format,
            Err(status) => return status,
        };
        let utc = opts
            .iter()
            .any(|o| o.is('u', "utc") || o.is('\0', "universal"));
        let zone = if utc {
            Zone::utc()
        } else {
            Zone::from_tz(ctx.env.get("TZ").map(String::as_str))
        };
        let (secs, nanos) = match moment(&mut ctx, &opts, &zone).await {
            Ok(moment) => moment,
            Err(status) => return status,
        };
        let text = format!("{}\n", strftime_in(&format, secs, nanos, &zone));
        let result = out_str(&mut ctx, &text).await;
        conclude(&mut ctx, result.map(|()| 0)).await
    })
}

/// The output format: `+FORMAT`, an ISO/RFC option, or the default.
async fn choose_format(ctx: &mut Ctx, opts: &[Opt], operands: &[String]) -> Result<String, i32> {
    let mut format = "%a %b %e %H:%M:%S %Z %Y".to_string();
    for opt in opts {
        if opt.is('R', "rfc-email") || opt.is('R', "rfc-2822") {
            format = "%a, %d %b %Y %H:%M:%S %z".into();
        } else if opt.is('\0', "iso-8601") {
            let choices = ["hours", "minutes", "date", "seconds", "ns"];
            format = match pick(opt.value(), &choices) {
                Some("date") => "%Y-%m-%d".into(),
                Some("hours") => "%Y-%m-%dT%H%:z".into(),
                Some("minutes") => "%Y-%m-%dT%H:%M%:z".into(),
                Some("seconds") => "%Y-%m-%dT%H:%M:%S%:z".into(),
                Some(_) => "%Y-%m-%dT%H:%M:%S,%N%:z".into(),
                None => return Err(bad_argument(ctx, opt.value(), "--iso-8601", &choices).await),
            };
        } else if opt.is('\0', "rfc-3339") {
            let choices = ["date", "seconds", "ns"];
            format = match pick(opt.value(), &choices) {
                Some("date") => "%Y-%m-%d".into(),
                Some("seconds") => "%Y-%m-%d %H:%M:%S%:z".into(),
                Some(_) => "%Y-%m-%d %H:%M:%S.%N%:z".into(),
                None => return Err(bad_argument(ctx, opt.value(), "--rfc-3339", &choices).await),
            };
        }
    }
    match operands {
        [] => Ok(format),
        [plus] if plus.starts_with('+') => Ok(plus[1..].to_string()),
        [first, ..] if first.starts_with('+') => {
            let message = format!("extra operand '{}'", operands[1]);
            Err(usage_error(ctx, message, 1).await)
        }
        [_, second, ..] => {
            let message = format!("extra operand '{second}'");
            Err(usage_error(ctx, message, 1).await)
        }
        [_] => {
            warn(ctx, "cannot set date: Operation not permitted").await;
            Err(1)
        }
    }
}

async fn bad_argument(ctx: &mut Ctx, value: &str, option: &str, choices: &[&str]) -> i32 {
    let mut message = format!("invalid argument '{value}' for '{option}'\nValid arguments are:");
    for choice in choices {
        message.push_str(&format!("\n  - '{choice}'"));
    }
    usage_error(ctx, message, 1).await
}

/// The moment to show: `-d`, `-r`, or now.
async fn moment(ctx: &mut Ctx, opts: &[Opt], zone: &Zone) -> Result<(i64, u32), i32> {
    let now_ms = ctx.host.now_ms();
    let (now_secs, now_nanos) = split_ms(now_ms);
    let mut when = (now_secs, now_nanos);
    for opt in opts {
        if opt.is('d', "date") {
            match parse_date_in(opt.value(), now_secs, now_nanos, zone) {
                Ok(moment) => when = moment,
                Err(_) => {
                    warn(ctx, format_args!("invalid date '{}'", opt.value())).await;
                    return Err(1);
                }
            }
        } else if opt.is('r', "reference") {
            let stat = ctx.vfs.borrow().stat(&ctx.cwd, opt.value());
            match stat {
                Ok(stat) => when = split_ms(stat.mtime_ms),
                Err(e) => {
                    warn(ctx, e).await;
                    return Err(1);
                }
            }
        }
    }
    Ok(when)
}

/// Whole seconds and nanoseconds of a time in milliseconds.
fn split_ms(ms: f64) -> (i64, u32) {
    let secs = (ms / 1000.0).floor();
    let nanos = ((ms - secs * 1000.0) * 1_000_000.0)
        .round()
        .clamp(0.0, 999_999_999.0);
    (secs as i64, nanos as u32)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::err;
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    #[test]
    fn date_formats() {
        assert_eq!(run("date", &[], ""), ok("Tue Nov 14 22:13:20 UTC 2023\n"));
        assert_eq!(
            run("date", &["-u"], ""),
            ok("Tue Nov 14 22:13:20 UTC 2023\n")
        );
        assert_eq!(
            run("date", &["+%Y-%m-%d %H:%M:%S"], ""),
            ok("2023-11-14 22:13:20\n")
        );
        assert_eq!(run("date", &["+%s"], ""), ok("1700000000\n"));
        assert_eq!(
            run("date", &["+%F %T %Z %z %j %u %w %a %A %b %B"], ""),
            ok("2023-11-14 22:13:20 UTC +0000 318 2 2 Tue Tuesday Nov November\n")
        );
        assert_eq!(
            run("date", &["+%D %e %p %I %y %% %N"], ""),
            ok("11/14/23 14 PM 10 23 % 000000000\n")
        );
        assert_eq!(run("date", &["-I"], ""), ok("2023-11-14\n"));
        assert_eq!(
            run("date", &["-Iseconds"], ""),
            ok("2023-11-14T22:13:20+00:00\n")
        );
        assert_eq!(
            run("date", &["--iso-8601=min"], ""),
            ok("2023-11-14T22:13+00:00\n")
        );
        assert_eq!(run("date", &["-Ihours"], ""), ok("2023-11-14T22+00:00\n"));
        assert_eq!(
            run("date", &["-d", "@1700000000.5", "-Ins"], ""),
            ok("2023-11-14T22:13:20,500000000+00:00\n")
        );
        assert_eq!(
            run("date", &["-R"], ""),
            ok("Tue, 14 Nov 2023 22:13:20 +0000\n")
        );
        assert_eq!(
            run("date", &["--rfc-3339=seconds"], ""),
            ok("2023-11-14 22:13:20+00:00\n")
        );
        assert_eq!(
            run("date", &["--rfc-3339=ns"], ""),
            ok("2023-11-14 22:13:20.000000000+00:00\n")
        );
    }

    #[test]
    fn date_dates() {
        assert_eq!(
            run("date", &["-d", "@0"], ""),
            ok("Thu Jan  1 00:00:00 UTC 1970\n")
        );
        assert_eq!(
            run("date", &["--date=@5", "+%F %T"], ""),
            ok("1970-01-01 00:00:05\n")
        );
        assert_eq!(
            run("date", &["-d", "2024-01-15", "+%A"], ""),
            ok("Monday\n")
        );
        assert_eq!(
            run("date", &["-d", "yesterday", "+%F"], ""),
            ok("2023-11-13\n")
        );
        assert_eq!(
            run("date", &["-d", "2 days ago", "+%F %T"], ""),
            ok("2023-11-12 22:13:20\n")
        );
        assert_eq!(
            run("date", &["-u", "-d", "2024-02-29 +1 year"], ""),
            ok("Sat Mar  1 00:00:00 UTC 2025\n")
        );
        assert_eq!(
            run("date", &["-d", "2024-01-15T10:30:00+02:00"], ""),
            ok("Mon Jan 15 08:30:00 UTC 2024\n")
        );
        let vfs = vfs_with(&[("f", "")]);
        let _ = vfs
            .borrow_mut()
            .set_mtime("/workspace", "f", Some(1_600_000_000_000.0));
        assert_eq!(
            run_in(&vfs, "date", &["-r", "f", "+%s"], ""),
            ok("1600000000\n")
        );
    }

    #[test]
    fn date_errors() {
        assert_eq!(
            run("date", &["-d", "xyz"], ""),
            err("date: invalid date 'xyz'\n", 1)
        );
        assert_eq!(
            run("date", &["-d", "2024-02-30"], ""),
            err("date: invalid date '2024-02-30'\n", 1)
        );
        assert_eq!(
            run("date", &["+%s", "+%s"], ""),
            err(
                "date: extra operand '+%s'\nTry 'date --help' for more information.\n",
                1
            )
        );
        assert_eq!(run("date", &["-Ix"], ""), err("date: invalid argument 'x' for '--iso-8601'\nValid arguments are:\n  - 'hours'\n  - 'minutes'\n  - 'date'\n  - 'seconds'\n  - 'ns'\nTry 'date --help' for more information.\n", 1));
        assert_eq!(
            run("date", &["-r", "nope"], ""),
            err("date: nope: No such file or directory\n", 1)
        );
        assert_eq!(run("date", &["-d"], ""),
            err("date: option requires an argument -- 'd'\nTry 'date --help' for more information.\n", 1));
        assert_eq!(
            run("date", &["0101"], ""),
            err("date: cannot set date: Operation not permitted\n", 1)
        );
        assert_eq!(run("date", &["-q"], "").status, 1);
    }
}
