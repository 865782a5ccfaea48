//! `sleep NUMBER[SUFFIX]...`: wait (through the host, so a replay is exact).

use crate::applets::common::parse_args;
use crate::applets::common::{usage_error, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `sleep` applet.
pub const APPLET: Applet = Applet {
    name: "sleep",
    usage: "sleep NUMBER[SUFFIX]...\nPause for the sum of the given times. SUFFIX is s (seconds, the default), m (minutes),\nh (hours) or d (days); NUMBER may be a fraction (`sleep 0.5`) or `infinity`.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "",
    short_val: "",
    long: &[],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

/// What `sleep infinity` waits: long enough to outlast any deadline, yet a finite number.
const FOREVER_MS: f64 = 1e12;

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (_, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        if operands.is_empty() {
            return usage_error(&mut ctx, "missing operand", 1).await;
        }
        let mut total_ms = 0.0;
        for operand in &operands {
            match parse_interval(operand) {
                Some(ms) => total_ms += ms,
                None => {
                    let message = format!("invalid time interval '{operand}'");
                    return usage_error(&mut ctx, message, 1).await;
                }
            }
        }
        ctx.host.sleep(total_ms.min(FOREVER_MS)).await;
        0
    })
}

/// Milliseconds in `5`, `0.5s`, `2m`, `1.5h`, `1d`, `inf`.
pub(super) fn parse_interval(text: &str) -> Option<f64> {
    let (number, scale) = match text.char_indices().last()? {
        (at, 's') => (&text[..at], 1.0),
        (at, 'm') => (&text[..at], 60.0),
        (at, 'h') => (&text[..at], 3600.0),
        (at, 'd') => (&text[..at], 86_400.0),
        _ => (text, 1.0),
    };
    if matches!(number, "inf" | "infinity") {
        return Some(FOREVER_MS);
    }
    let valid = !number.is_empty()
        && number.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && number.bytes().filter(|&b| b == b'.').count() <= 1
        && number != ".";
    if !valid {
        return None;
    }
    number.parse::<f64>().ok().map(|n| n * scale * 1000.0)
}

#[cfg(test)]
mod tests {
    use super::parse_interval;
    use crate::applets::files::testutil::err;
    use crate::applets::testing::{ok, run};

    #[test]
    fn sleep_cases() {
        assert_eq!(run("sleep", &["0"], ""), ok(""));
        assert_eq!(run("sleep", &["0.5", "1m"], ""), ok(""));
        assert_eq!(run("sleep", &["infinity"], ""), ok(""));
        assert_eq!(
            run("sleep", &[], ""),
            err(
                "sleep: missing operand\nTry 'sleep --help' for more information.\n",
                1
            )
        );
        assert_eq!(
            run("sleep", &["x"], ""),
            err(
                "sleep: invalid time interval 'x'\nTry 'sleep --help' for more information.\n",
                1
            )
        );
        assert_eq!(
            run("sleep", &["1x"], ""),
            err(
                "sleep: invalid time interval '1x'\nTry 'sleep --help' for more information.\n",
                1
            )
        );
        assert_eq!(
            run("sleep", &["-1"], ""),
            err(
                "sleep: invalid option -- '1'\nTry 'sleep --help' for more information.\n",
                1
            )
        );
        assert_eq!(parse_interval("1.5h"), Some(5_400_000.0));
        assert_eq!(parse_interval("2d"), Some(172_800_000.0));
        assert_eq!(parse_interval(".5"), Some(500.0));
        assert_eq!(parse_interval("1.2.3"), None);
        assert_eq!(parse_interval("s"), None);
    }
}
