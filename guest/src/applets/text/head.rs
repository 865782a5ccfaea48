//! `head [-n [-]N] [-c [-]N] [-qvz] [FILE]...`: the first lines or bytes of each input.

use std::collections::VecDeque;

use crate::applets::common::{finish, OptSpec, Records};
use crate::applets::text::headtail::{self, HeadedInputs};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture, WriteError};

/// The `head` applet.
pub const APPLET: Applet = Applet {
    name: "head",
    usage: "head [OPTION]... [FILE]...\n  -n, --lines=[-]N  the first N lines (default 10); with -N, all but the last N\n  -c, --bytes=[-]N  the first N bytes; with -N, all but the last N\n  -N                same as -n N\n  -q, --quiet       never print file name headers\n  -v, --verbose     always print them\n  -z, --zero-terminated  lines end with NUL, not newline\nN may have a multiplier suffix: b 512, K 1024, KB 1000, M, G...",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "qvz",
    short_val: "nc",
    long: &["quiet", "silent", "verbose", "zero-terminated"],
    long_val: &["lines", "bytes"],
    digits: Some('n'),
    stop_at_operand: false,
};

/// What to print of each input.
#[derive(Clone, Copy)]
enum Amount {
    Lines(u64),
    AllButLines(u64),
    Bytes(u64),
    AllButBytes(u64),
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let request = match headtail::parse(&mut ctx, &SPEC, '-').await {
        Ok(request) => request,
        Err(status) => return status,
    };
    let amount = match (request.lines, request.signed) {
        (true, false) => Amount::Lines(request.count),
        (true, true) => Amount::AllButLines(request.count),
        (false, false) => Amount::Bytes(request.count),
        (false, true) => Amount::AllButBytes(request.count),
    };
    let result = head_all(
        &mut ctx,
        &request.paths,
        amount,
        request.headers,
        request.delim,
    )
    .await;
    finish(&mut ctx, result).await
}

async fn head_all(
    ctx: &mut Ctx,
    paths: &[String],
    amount: Amount,
    headers: bool,
    delim: u8,
) -> Result<i32, WriteError> {
    let mut inputs = HeadedInputs::new(paths, headers);
    while let Some(input) = inputs.next(ctx).await? {
        head_one(ctx, input, amount, delim).await?;
    }
    Ok(inputs.status)
}

async fn head_one(
    ctx: &mut Ctx,
    mut input: Input,
    amount: Amount,
    delim: u8,
) -> Result<(), WriteError> {
    match amount {
        Amount::Lines(n) => first_lines(ctx, &mut input, n, delim).await,
        Amount::Bytes(n) => first_bytes(ctx, &mut input, n).await,
        Amount::AllButLines(n) => all_but_lines(ctx, &mut input, n, delim).await,
        Amount::AllButBytes(n) => all_but_bytes(ctx, &mut input, n).await,
    }
}

async fn first_lines(
    ctx: &mut Ctx,
    input: &mut Input,
    mut left: u64,
    delim: u8,
) -> Result<(), WriteError> {
    while left > 0 {
        let Some(chunk) = input.read_chunk().await else {
            break;
        };
        let mut end = chunk.len();
        for (at, _) in chunk.iter().enumerate().filter(|(_, &b)| b == delim) {
            left -= 1;
            if left == 0 {
                end = at + 1;
                break;
            }
        }
        ctx.stdout.write(&chunk[..end]).await?;
    }
    Ok(())
}

async fn first_bytes(ctx: &mut Ctx, input: &mut Input, mut left: u64) -> Result<(), WriteError> {
    while left > 0 {
        let Some(chunk) = input.read_chunk().await else {
            break;
        };
        let take = usize::try_from(left).unwrap_or(usize::MAX).min(chunk.len());
        ctx.stdout.write(&chunk[..take]).await?;
        left -= take as u64;
    }
    Ok(())
}

/// Everything but the last `n` lines: hold back `n` lines at a time.
async fn all_but_lines(
    ctx: &mut Ctx,
    input: &mut Input,
    n: u64,
    delim: u8,
) -> Result<(), WriteError> {
    let mut held: VecDeque<Vec<u8>> = VecDeque::new();
    let mut records = Records::new(std::mem::replace(input, Input::empty()), delim);
    let mut line = Vec::new();
    while records.next_into(&mut line).await {
        hold(ctx, &mut held, std::mem::take(&mut line), n).await?;
    }
    Ok(())
}

async fn hold(
    ctx: &mut Ctx,
    held: &mut VecDeque<Vec<u8>>,
    line: Vec<u8>,
    n: u64,
) -> Result<(), WriteError> {
    held.push_back(line);
    if held.len() as u64 > n {
        if let Some(out) = held.pop_front() {
            ctx.stdout.write(&out).await?;
        }
    }
    Ok(())
}

/// Everything but the last `n` bytes: keep a tail of `n` bytes back.
async fn all_but_bytes(ctx: &mut Ctx, input: &mut Input, n: u64) -> Result<(), WriteError> {
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    let mut held: Vec<u8> = Vec::new();
    while let Some(chunk) = input.read_chunk().await {
        held.extend_from_slice(&chunk);
        if held.len() > n {
            let out = held.len() - n;
            ctx.stdout.write(&held[..out]).await?;
            held.drain(..out);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "head",
        files: &[
            ("a", "1\n2\n3\n"),
            ("b", "x\ny"),
            ("n", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"),
        ],
        ok: &[
            (
                &[],
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n",
                "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
            ),
            (&["n"], "", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"),
            (&["-n", "2", "a"], "", "1\n2\n"),
            (&["-n2"], "a\nb\nc\n", "a\nb\n"),
            (&["-2"], "a\nb\nc\n", "a\nb\n"),
            (&["--lines=1"], "a\nb\n", "a\n"),
            (&["-n", "-1", "a"], "", "1\n2\n"),
            (&["-n", "-1", "b"], "", "x\n"),
            (&["-n", "-5", "a"], "", ""),
            (&["-n", "+2", "a"], "", "1\n2\n"),
            (&["-n", "0", "a"], "", ""),
            (&["-c", "3", "a"], "", "1\n2"),
            (&["-c", "-2", "a"], "", "1\n2\n"),
            (&["--bytes=-100", "a"], "", ""),
            (&["-c", "1K", "b"], "", "x\ny"),
            (&["-n", "1", "a", "b"], "", "==> a <==\n1\n\n==> b <==\nx\n"),
            (&["-q", "-n", "1", "a", "b"], "", "1\nx\n"),
            (&["-v", "-c", "2", "a"], "", "==> a <==\n1\n"),
            (
                &["-n1", "a", "-"],
                "in\n",
                "==> a <==\n1\n\n==> standard input <==\nin\n",
            ),
            (&["-n", "2", "-c", "3", "a"], "", "1\n2"),
            (&["-c", "3", "-n", "2", "a"], "", "1\n2\n"),
            (&["-z", "-n", "1"], "a\0b\0", "a\0"),
            (&["-z", "-n", "-1"], "a\0b\0c", "a\0b\0"),
            (&["-n", "1"], "no newline", "no newline"),
        ],
        err: &[
            (
                &["-n1", "a", "missing", "b"],
                "",
                "==> a <==\n1\n\n==> b <==\nx\n",
                "head: cannot open 'missing' for reading: No such file or directory\n",
                1,
            ),
            (
                &["-n", "x", "a"],
                "",
                "",
                "head: invalid number of lines: 'x'\n",
                1,
            ),
            (
                &["-c", "1x", "a"],
                "",
                "",
                "head: invalid number of bytes: '1x'\n",
                1,
            ),
            (
                &["-n", "", "a"],
                "",
                "",
                "head: invalid number of lines: ''\n",
                1,
            ),
            (
                &["-y"],
                "",
                "",
                "head: invalid option -- 'y'\nTry 'head --help' for more information.\n",
                1,
            ),
        ],
    };

    #[test]
    fn cases() {
        TABLE.check();
    }

    #[test]
    fn endless_devices_stream() {
        let zeros = crate::applets::testing::run("head", &["-c", "5000", "/dev/zero"], "");
        assert_eq!((zeros.stdout, zeros.status), ("\0".repeat(5000), 0));
        let random = crate::applets::testing::run("head", &["-c", "40", "/dev/urandom"], "");
        assert_eq!(random.status, 0);
        assert!(random.stdout.chars().any(|c| c != '\0'));
    }

    #[test]
    #[ignore = "compares the tables with the real GNU tools"]
    fn gnu() {
        TABLE.check_gnu();
    }
}
