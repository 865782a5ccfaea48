//! `tail [-n [+]N] [-c [+]N] [-qvz] [FILE]...`: the last lines or bytes of each input.

use std::collections::VecDeque;

use crate::applets::common::{finish, warn, OptSpec};
use crate::applets::text::headtail::{self, HeadedInputs};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture, WriteError};

/// The `tail` applet.
pub const APPLET: Applet = Applet {
    name: "tail",
    usage: "tail [OPTION]... [FILE]...\n  -n, --lines=[+]N  the last N lines (default 10); with +N, from line N on\n  -c, --bytes=[+]N  the last N bytes; with +N, from byte N on\n  -N, +N            same as -n N, -n +N\n  -q, --quiet       never print file name headers\n  -v, --verbose     always print them\n  -z, --zero-terminated  lines end with NUL, not newline\n  -f, -F, --follow  not supported: a sandboxed file does not grow while tail waits",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "qvzfF",
    short_val: "ncs",
    long: &["quiet", "silent", "verbose", "zero-terminated", "retry"],
    long_val: &[
        "lines",
        "bytes",
        "follow",
        "sleep-interval",
        "pid",
        "max-unchanged-stats",
    ],
    digits: Some('n'),
    stop_at_operand: false,
};

/// What to print of each input.
#[derive(Clone, Copy)]
enum Amount {
    LastLines(u64),
    FromLine(u64),
    LastBytes(u64),
    FromByte(u64),
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    // Obsolete `tail +N FILE`: from line N.
    if let Some(first) = ctx.args.first() {
        if first.len() > 1
            && first.starts_with('+')
            && first[1..].bytes().all(|b| b.is_ascii_digit())
        {
            ctx.args[0] = format!("-n{first}");
        }
    }
    if let Some(digit) = misplaced_count(&ctx.args) {
        let message = format!("option used in invalid context -- {digit}");
        warn(&mut ctx, message).await;
        return 1;
    }
    let request = match headtail::parse(&mut ctx, &SPEC, '+').await {
        Ok(request) => request,
        Err(status) => return status,
    };
    if request
        .rest
        .iter()
        .any(|opt| opt.is('f', "follow") || opt.is('F', ""))
    {
        let message = "following files (-f, -F, --follow) is not supported in this sandbox; \
                       read the file again later instead";
        warn(&mut ctx, message).await;
        return 1;
    }
    let amount = match (request.lines, request.signed) {
        (true, false) => Amount::LastLines(request.count),
        (true, true) => Amount::FromLine(request.count),
        (false, false) => Amount::LastBytes(request.count),
        (false, true) => Amount::FromByte(request.count),
    };
    if matches!(amount, Amount::LastLines(0) | Amount::LastBytes(0)) {
        // As GNU: nothing to print, so no input is even opened (no headers, no errors).
        return 0;
    }
    let result = tail_all(
        &mut ctx,
        &request.paths,
        amount,
        request.headers,
        request.delim,
    )
    .await;
    finish(&mut ctx, result).await
}

/// GNU takes the obsolete `-N` only as the first of at most two arguments (`tail -5 FILE`):
/// the digit of one found elsewhere.
fn misplaced_count(args: &[String]) -> Option<char> {
    let mut after_option = false;
    for (i, arg) in args.iter().enumerate() {
        if arg == "--" {
            break;
        }
        let digit = arg.strip_prefix('-').and_then(|rest| rest.chars().next());
        let digit = digit.filter(char::is_ascii_digit);
        let looks_like_option = |a: &String| a.len() > 1 && a.starts_with('-');
        let alone =
            i == 0 && (args.len() == 1 || (args.len() == 2 && !looks_like_option(&args[1])));
        if digit.is_some() && !after_option && !alone {
            return digit;
        }
        after_option = matches!(arg.as_str(), "-n" | "-c" | "-s" | "--lines" | "--bytes");
    }
    None
}

async fn tail_all(
    ctx: &mut Ctx,
    paths: &[String],
    amount: Amount,
    headers: bool,
    delim: u8,
) -> Result<i32, WriteError> {
    let mut inputs = HeadedInputs::new(paths, headers);
    while let Some(input) = inputs.next(ctx).await? {
        tail_one(ctx, input, amount, delim).await?;
    }
    Ok(inputs.status)
}

async fn tail_one(
    ctx: &mut Ctx,
    mut input: Input,
    amount: Amount,
    delim: u8,
) -> Result<(), WriteError> {
    match amount {
        Amount::LastLines(n) => last_lines(ctx, &mut input, n, delim).await,
        Amount::LastBytes(n) => last_bytes(ctx, &mut input, n).await,
        Amount::FromLine(n) => from_line(ctx, &mut input, n, delim).await,
        Amount::FromByte(n) => from_byte(ctx, &mut input, n).await,
    }
}

/// Keeps whole chunks while the ones after the first still hold fewer than `n + 1`
/// terminators; the last `n` lines start after the `(n+1)`-th terminator from the end.
async fn last_lines(ctx: &mut Ctx, input: &mut Input, n: u64, delim: u8) -> Result<(), WriteError> {
    let count = |chunk: &[u8]| chunk.iter().filter(|&&b| b == delim).count() as u64;
    let mut chunks: VecDeque<(Vec<u8>, u64)> = VecDeque::new();
    let mut total = 0u64;
    // Bytes since the last terminator: an endless line fails the command (MAX_LINE).
    let mut line = 0;
    while let Some(chunk) = input.read_chunk().await {
        line = crate::task::open_line(line, &chunk, delim);
        if input.past_limit(line, &mut Vec::new()) {
            return Ok(());
        }
        let lines = count(&chunk);
        total += lines;
        chunks.push_back((chunk, lines));
        while let Some(&(_, front)) = chunks.front() {
            if chunks.len() > 1 && total - front > n {
                total -= front;
                chunks.pop_front();
            } else {
                break;
            }
        }
    }
    let data: Vec<u8> = chunks.into_iter().flat_map(|(chunk, _)| chunk).collect();
    let start = start_of_last_lines(&data, n, delim);
    ctx.stdout.write(&data[start..]).await
}

fn start_of_last_lines(data: &[u8], n: u64, delim: u8) -> usize {
    if n == 0 {
        return data.len();
    }
    // A final terminator ends the last line; it does not start a new one.
    let body = data.strip_suffix(&[delim]).unwrap_or(data);
    let mut seen = 0;
    for (at, &b) in body.iter().enumerate().rev() {
        if b == delim {
            seen += 1;
            if seen == n {
                return at + 1;
            }
        }
    }
    0
}

async fn last_bytes(ctx: &mut Ctx, input: &mut Input, n: u64) -> Result<(), WriteError> {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    let mut held: Vec<u8> = Vec::new();
    while let Some(chunk) = input.read_chunk().await {
        held.extend_from_slice(&chunk);
        if held.len() > n.saturating_mul(2).max(1 << 16) {
            held.drain(..held.len() - n);
        }
    }
    let start = held.len().saturating_sub(n);
    ctx.stdout.write(&held[start..]).await
}

/// From line `n` (1-based; 0 counts as 1) to the end.
async fn from_line(ctx: &mut Ctx, input: &mut Input, n: u64, delim: u8) -> Result<(), WriteError> {
    let mut skip = n.saturating_sub(1);
    while let Some(chunk) = input.read_chunk().await {
        let mut start = 0;
        while skip > 0 {
            match chunk[start..].iter().position(|&b| b == delim) {
                Some(at) => {
                    start += at + 1;
                    skip -= 1;
                }
                None => {
                    start = chunk.len();
                    break;
                }
            }
        }
        ctx.stdout.write(&chunk[start..]).await?;
    }
    Ok(())
}

/// From byte `n` (1-based; 0 counts as 1) to the end.
async fn from_byte(ctx: &mut Ctx, input: &mut Input, n: u64) -> Result<(), WriteError> {
    let mut skip = usize::try_from(n.saturating_sub(1)).unwrap_or(usize::MAX);
    while let Some(chunk) = input.read_chunk().await {
        let start = skip.min(chunk.len());
        skip -= start;
        ctx.stdout.write(&chunk[start..]).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "tail",
        files: &[
            ("a", "1\n2\n3\n"),
            ("b", "x\ny"),
            ("n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"),
        ],
        ok: &[
            (&["n"], "", "3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"),
            (&[], "a\nb\n", "a\nb\n"),
            (&["-n", "2", "b"], "", "x\ny"),
            (&["-n", "1", "b"], "", "y"),
            (&["-n1"], "a\nb\n\n", "\n"),
            (&["-2", "a"], "", "2\n3\n"),
            (&["+2", "a"], "", "2\n3\n"),
            (&["-n", "+2", "a"], "", "2\n3\n"),
            (&["--lines=+0", "a"], "", "1\n2\n3\n"),
            (&["-n", "-2", "a"], "", "2\n3\n"),
            (&["-n", "0", "a"], "", ""),
            (&["-n", "0", "a", "b"], "", ""),
            (&["-c0", "missing", "b"], "", ""),
            (&["-n", "-1", "-v", "a"], "", "==> a <==\n3\n"),
            (&["-n", "99", "a"], "", "1\n2\n3\n"),
            (&["-c", "3", "a"], "", "\n3\n"),
            (&["-c", "+3", "a"], "", "2\n3\n"),
            (&["-c", "2K", "a"], "", "1\n2\n3\n"),
            (&["-n", "1", "a", "b"], "", "==> a <==\n3\n\n==> b <==\ny"),
            (&["-q", "-n", "1", "a", "b"], "", "3\ny"),
            (
                &["-v", "-n", "1", "-"],
                "in\n",
                "==> standard input <==\nin\n",
            ),
            (&["-z", "-n", "1"], "a\0b\0", "b\0"),
            (&["-n", "+3"], "a\nb\nc\nd", "c\nd"),
        ],
        err: &[
            (
                &["-2", "a", "b"],
                "",
                "",
                "tail: option used in invalid context -- 2\n",
                1,
            ),
            (
                &["-q", "-2", "a"],
                "",
                "",
                "tail: option used in invalid context -- 2\n",
                1,
            ),
            (
                &["-n1", "a", "missing", "b"],
                "",
                "==> a <==\n3\n\n==> b <==\ny",
                "tail: cannot open 'missing' for reading: No such file or directory\n",
                1,
            ),
            (
                &["-n", "x", "a"],
                "",
                "",
                "tail: invalid number of lines: 'x'\n",
                1,
            ),
            (
                &["-c", "y", "a"],
                "",
                "",
                "tail: invalid number of bytes: 'y'\n",
                1,
            ),
            (
                &["-k"],
                "",
                "",
                "tail: invalid option -- 'k'\nTry 'tail --help' for more information.\n",
                1,
            ),
        ],
    };

    #[test]
    fn cases() {
        TABLE.check();
    }

    #[test]
    #[ignore = "compares the tables with the real GNU tools"]
    fn gnu() {
        TABLE.check_gnu();
    }

    #[test]
    fn follow_is_refused_and_long_inputs_stream() {
        let out = crate::applets::testing::run("tail", &["-f"], "x\n");
        assert_eq!(out.status, 1);
        assert!(out.stderr.contains("not supported"));
        let big: String = (0..100_000).map(|i| format!("{i}\n")).collect();
        let out = crate::applets::testing::run("tail", &["-n", "2"], &big);
        assert_eq!(out.stdout, "99998\n99999\n");
        let out = crate::applets::testing::run("tail", &["-c", "3"], &big);
        assert_eq!(out.stdout, "99\n");
        let out = crate::applets::testing::run("head", &["-n", "-99999"], &big);
        assert_eq!(out.stdout, "0\n");
    }
}
