//! `comm [-123] [--check-order|--nocheck-order] FILE1 FILE2`: compare two sorted files line
//! by line, in three columns (only in FILE1, only in FILE2, in both).

use crate::applets::common::{finish, open, parse_args, quote_if_needed, Records};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `comm` applet.
pub const APPLET: Applet = Applet {
    name: "comm",
    usage: "comm [OPTION]... FILE1 FILE2\n  -1                suppress column 1 (lines only in FILE1)\n  -2                suppress column 2 (lines only in FILE2)\n  -3                suppress column 3 (lines in both)\n  --check-order     fail at the first unsorted line\n  --nocheck-order   never check the order\n  --output-delimiter=STR  separate columns with STR (default TAB)\n  --total           print a summary line\n  -z, --zero-terminated  lines end with NUL\nBy default (as GNU) an unsorted input is reported once there are unpairable lines, and\nthe exit status is then 1.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "123z",
    short_val: "",
    long: &["check-order", "nocheck-order", "total", "zero-terminated"],
    long_val: &["output-delimiter"],
    digits: None,
    stop_at_operand: false,
};

#[derive(Clone, Copy, PartialEq)]
enum CheckOrder {
    Default,
    Enabled,
    Disabled,
}

struct Options {
    show: [bool; 3],
    check: CheckOrder,
    delim: String,
    total: bool,
    eol: u8,
}

/// The order-checking state GNU keeps.
struct State {
    seen_unpairable: bool,
    warned: [bool; 2],
    totals: [u64; 3],
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let mut o = Options {
        show: [true; 3],
        check: CheckOrder::Default,
        delim: "\t".to_string(),
        total: false,
        eol: b'\n',
    };
    for opt in &opts {
        match opt {
            crate::applets::common::Opt::Short(c @ '1'..='3', _) => {
                o.show[usize::from(*c as u8 - b'1')] = false;
            }
            _ if opt.is('\0', "check-order") => o.check = CheckOrder::Enabled,
            _ if opt.is('\0', "nocheck-order") => o.check = CheckOrder::Disabled,
            _ if opt.is('\0', "total") => o.total = true,
            _ if opt.is('z', "zero-terminated") => o.eol = 0,
            _ if opt.is('\0', "output-delimiter") => {
                if opt.value().is_empty() {
                    warn(&mut ctx, "empty '--output-delimiter' not allowed").await;
                    return 1;
                }
                o.delim = opt.value().to_string();
            }
            _ => {}
        }
    }
    if operands.len() < 2 {
        let message = match operands.first() {
            None => "missing operand".to_string(),
            Some(last) => format!("missing operand after '{last}'"),
        };
        return usage_error(&mut ctx, message, 1).await;
    }
    if operands.len() > 2 {
        let message = format!("extra operand '{}'", operands[2]);
        return usage_error(&mut ctx, message, 1).await;
    }
    let mut inputs = Vec::new();
    for path in &operands {
        match open(&mut ctx, path) {
            Ok(input) => inputs.push(Records::new(input, o.eol)),
            Err(e) => {
                warn(&mut ctx, format!("{}: {}", quote_if_needed(path), e.reason)).await;
                return 1;
            }
        }
    }
    let mut state = State {
        seen_unpairable: false,
        warned: [false; 2],
        totals: [0; 3],
    };
    let result = compare_files(&mut ctx, &mut inputs, &o, &mut state).await;
    let status = match result {
        Ok(Some(status)) => return finish(&mut ctx, Ok(status)).await,
        Ok(None) => Ok(0),
        Err(e) => Err(e),
    };
    let status = match status {
        Ok(_) if o.total => {
            let [a, b, c] = state.totals;
            let d = &o.delim;
            let line = format!("{a}{d}{b}{d}{c}{d}total{}", char::from(o.eol));
            ctx.stdout.write_str(&line).await.map(|()| 0)
        }
        other => other,
    };
    if status.is_ok() && (state.warned[0] || state.warned[1]) {
        let _ = ctx.stdout.flush().await;
        warn(&mut ctx, "input is not in sorted order").await;
        return 1;
    }
    finish(&mut ctx, status).await
}

async fn next(records: &mut Records, eol: u8) -> Option<Vec<u8>> {
    let mut line = Vec::new();
    if !records.next_into(&mut line).await {
        return None;
    }
    if line.last() == Some(&eol) {
        line.pop();
    }
    Some(line)
}

/// GNU's merge loop; `Ok(Some(1))` when `--check-order` found a disorder (already reported).
async fn compare_files(
    ctx: &mut Ctx,
    inputs: &mut [Records],
    o: &Options,
    state: &mut State,
) -> Result<Option<i32>, WriteError> {
    // The current line of each file and the two before it (for the end-of-file re-check).
    let mut this = [
        next(&mut inputs[0], o.eol).await,
        next(&mut inputs[1], o.eol).await,
    ];
    let mut prev: [Vec<Option<Vec<u8>>>; 2] = [vec![None, None], vec![None, None]];
    while this[0].is_some() || this[1].is_some() {
        let order = match (&this[0], &this[1]) {
            (None, _) => std::cmp::Ordering::Greater,
            (_, None) => std::cmp::Ordering::Less,
            (Some(a), Some(b)) => a.cmp(b),
        };
        let column = match order {
            std::cmp::Ordering::Equal => 2,
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Greater => 1,
        };
        if column != 2 {
            state.seen_unpairable = true;
        }
        let line = if column == 0 { &this[0] } else { &this[1] };
        if let Some(line) = line {
            write_line(ctx, line, column, o).await?;
        }
        state.totals[column] += 1;
        for i in 0..2 {
            let step = match order {
                std::cmp::Ordering::Equal => true,
                std::cmp::Ordering::Less => i == 0,
                std::cmp::Ordering::Greater => i == 1,
            };
            if !step {
                continue;
            }
            let consumed = this[i].take();
            prev[i].remove(0);
            prev[i].push(consumed);
            this[i] = next(&mut inputs[i], o.eol).await;
            let (before, current) = match &this[i] {
                Some(current) => (prev[i][1].as_ref(), Some(current)),
                None => (prev[i][0].as_ref(), prev[i][1].as_ref()),
            };
            if let (Some(before), Some(current)) = (before, current) {
                if check_order(ctx, before, current, i, o, state).await {
                    return Ok(Some(1));
                }
            }
        }
    }
    Ok(None)
}

/// Reports a disorder once per file; true when it is fatal (`--check-order`).
async fn check_order(
    ctx: &mut Ctx,
    before: &[u8],
    current: &[u8],
    file: usize,
    o: &Options,
    state: &mut State,
) -> bool {
    let active =
        o.check == CheckOrder::Enabled || (o.check == CheckOrder::Default && state.seen_unpairable);
    if !active || state.warned[file] || before <= current {
        return false;
    }
    let _ = ctx.stdout.flush().await;
    warn(ctx, format!("file {} is not in sorted order", file + 1)).await;
    state.warned[file] = true;
    o.check == CheckOrder::Enabled
}

async fn write_line(
    ctx: &mut Ctx,
    line: &[u8],
    column: usize,
    o: &Options,
) -> Result<(), WriteError> {
    if !o.show[column] {
        return Ok(());
    }
    let mut out = Vec::with_capacity(line.len() + 3);
    let indent = (0..column).filter(|&c| o.show[c]).count();
    for _ in 0..indent {
        out.extend_from_slice(o.delim.as_bytes());
    }
    out.extend_from_slice(line);
    out.push(o.eol);
    ctx.stdout.write(&out).await
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "comm",
        files: &[
            ("c1", "a\nb\nd\n"),
            ("c2", "b\nc\nd\ne\n"),
            ("uns", "b\na\n"),
            ("uns3", "x\nc\nb\n"),
            ("one", "a\n"),
            ("empty", ""),
        ],
        ok: &[
            (&["c1", "c2"], "", "a\n\t\tb\n\tc\n\t\td\n\te\n"),
            (&["-12", "c1", "c2"], "", "b\nd\n"),
            (&["-3", "c1", "c2"], "", "a\n\tc\n\te\n"),
            (&["-1", "c1", "c2"], "", "\tb\nc\n\td\ne\n"),
            (&["-23", "c1", "c2"], "", "a\n"),
            (&["-13", "c1", "c2"], "", "c\ne\n"),
            (
                &["--output-delimiter=,", "c1", "c2"],
                "",
                "a\n,,b\n,c\n,,d\n,e\n",
            ),
            (&["-", "c2"], "a\nb\nd\n", "a\n\t\tb\n\tc\n\t\td\n\te\n"),
            (
                &["--total", "c1", "c2"],
                "",
                "a\n\t\tb\n\tc\n\t\td\n\te\n1\t2\t2\ttotal\n",
            ),
            (&["-z", "c1", "c2"], "", "a\nb\nd\n\0\tb\nc\nd\ne\n\0"),
            (
                &["--nocheck-order", "uns", "c2"],
                "",
                "\t\tb\na\n\tc\n\td\n\te\n",
            ),
            (&["uns", "uns"], "", "\t\tb\n\t\ta\n"),
            (&["c1", "c1"], "", "\t\ta\n\t\tb\n\t\td\n"),
            (&["c1", "empty"], "", "a\nb\nd\n"),
        ],
        err: &[
            (
                &["uns", "c2"],
                "",
                "\t\tb\na\n\tc\n\td\n\te\n",
                "comm: file 1 is not in sorted order\ncomm: input is not in sorted order\n",
                1,
            ),
            (
                &["--check-order", "uns", "c2"],
                "",
                "\t\tb\n",
                "comm: file 1 is not in sorted order\n",
                1,
            ),
            (
                &["uns3", "one"],
                "",
                "\ta\nx\nc\nb\n",
                "comm: file 1 is not in sorted order\ncomm: input is not in sorted order\n",
                1,
            ),
            (
                &["c1"],
                "",
                "",
                "comm: missing operand after 'c1'\nTry 'comm --help' for more information.\n",
                1,
            ),
            (
                &[],
                "",
                "",
                "comm: missing operand\nTry 'comm --help' for more information.\n",
                1,
            ),
            (
                &["c1", "c2", "c3"],
                "",
                "",
                "comm: extra operand 'c3'\nTry 'comm --help' for more information.\n",
                1,
            ),
            (
                &["c1", "missing"],
                "",
                "",
                "comm: missing: No such file or directory\n",
                1,
            ),
            (
                &["-i", "c1", "c2"],
                "",
                "",
                "comm: invalid option -- 'i'\nTry 'comm --help' for more information.\n",
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
}
