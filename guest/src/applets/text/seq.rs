//! `seq [-w] [-s SEP] [-f FMT] [FIRST [INCR]] LAST`: print a sequence of numbers.
//!
//! Integers are exact (128-bit); anything with a fraction or exponent goes through `f64`
//! and GNU's choice of format (`%.Pf` with P the most fraction digits of FIRST and INCR).

use crate::applets::common::finish;
use crate::applets::common::{getopt, usage_error, OptSpec};
use crate::applets::text::printf::number::{float_prefix, format_float, Spec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `seq` applet.
pub const APPLET: Applet = Applet {
    name: "seq",
    usage: "seq [OPTION]... LAST\n       seq [OPTION]... FIRST LAST\n       seq [OPTION]... FIRST INCREMENT LAST\n  -f, --format=FORMAT      printf-style floating-point FORMAT (%g %f %e)\n  -s, --separator=STRING   separate numbers with STRING (default \\n)\n  -w, --equal-width        pad with leading zeros to equal width",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "w",
    short_val: "fs",
    long: &["equal-width"],
    long_val: &["format", "separator"],
    digits: None,
    stop_at_operand: false,
};

/// An operand as GNU scans it: the value, and the width and precision it was written with.
#[derive(Clone, Copy)]
struct Operand {
    value: f64,
    /// Exact value when the operand is a plain integer.
    int: Option<i128>,
    width: i64,
    /// Fraction digits; None for hex, inf or nan (then `%g` is used).
    precision: Option<i64>,
}

struct Options {
    format: Option<String>,
    sep: String,
    equal: bool,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    // A negative number ends the options: `seq -5 -1 -10`.
    let split = ctx
        .args
        .iter()
        .position(|a| is_negative_number(a))
        .unwrap_or(ctx.args.len());
    let (opts, mut operands) = match getopt(&ctx.args[..split], &SPEC) {
        Ok(parsed) => parsed,
        Err(message) => return usage_error(&mut ctx, message, 1).await,
    };
    operands.extend(ctx.args[split..].iter().cloned());
    let mut options = Options {
        format: None,
        sep: "\n".to_string(),
        equal: false,
    };
    for opt in &opts {
        if opt.is('w', "equal-width") {
            options.equal = true;
        } else if opt.is('f', "format") {
            options.format = Some(opt.value().to_string());
        } else if opt.is('s', "separator") {
            options.sep = opt.value().to_string();
        }
    }
    match plan(&options, &operands) {
        Ok(plan) => {
            let result = print(&mut ctx, &plan, &options.sep).await;
            finish(&mut ctx, result.map(|()| 0)).await
        }
        Err((message, usage)) if usage => usage_error(&mut ctx, message, 1).await,
        Err((message, _)) => {
            crate::applets::common::warn(&mut ctx, message).await;
            1
        }
    }
}

fn is_negative_number(arg: &str) -> bool {
    let b = arg.as_bytes();
    b.len() > 1 && b[0] == b'-' && (b[1].is_ascii_digit() || b[1] == b'.')
}

/// What to print: the operands and how each number is rendered.
struct Plan {
    first: Operand,
    step: Operand,
    last: Operand,
    render: Render,
}

enum Render {
    /// Exact integers, zero-padded to a width (0: none).
    Int(usize),
    /// `printf`-style: text before, the directive, text after.
    Float(String, Spec, u8, String),
}

type PlanError = (String, bool);

fn plan(options: &Options, operands: &[String]) -> Result<Plan, PlanError> {
    let parsed: Vec<Operand> = operands
        .iter()
        .map(|text| scan(text))
        .collect::<Result<_, _>>()?;
    let one = Operand {
        value: 1.0,
        int: Some(1),
        width: 1,
        precision: Some(0),
    };
    let (first, step, last) = match parsed.as_slice() {
        [] => return Err(("missing operand".to_string(), true)),
        [last] => (one, one, *last),
        [first, last] => (*first, one, *last),
        [first, step, last] => (*first, *step, *last),
        _ => return Err((format!("extra operand '{}'", operands[3]), true)),
    };
    if step.value == 0.0 {
        let message = format!("invalid Zero increment value: '{}'", operands[1]);
        return Err((message, true));
    }
    if options.format.is_some() && options.equal {
        let message = "format string may not be specified when printing equal width strings";
        return Err((message.to_string(), true));
    }
    let render = match &options.format {
        Some(format) => parse_format(format)?,
        None => default_render(first, step, last, options.equal),
    };
    Ok(Plan {
        first,
        step,
        last,
        render,
    })
}

/// GNU's `scan_arg`: the value plus the width and precision the text implies.
fn scan(text: &str) -> Result<Operand, PlanError> {
    let invalid = || (format!("invalid floating point argument: '{text}'"), true);
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '+']);
    let len = float_prefix(trimmed);
    if len == 0 || len != trimmed.len() {
        return Err(invalid());
    }
    let lower = trimmed.to_ascii_lowercase();
    let value = if lower.trim_start_matches('-').starts_with("0x") {
        let negative = lower.starts_with('-');
        let hex = lower.trim_start_matches('-').trim_start_matches("0x");
        let magnitude = i128::from_str_radix(hex, 16).map_err(|_| invalid())? as f64;
        if negative {
            -magnitude
        } else {
            magnitude
        }
    } else {
        trimmed.parse::<f64>().map_err(|_| invalid())?
    };
    if value.is_nan() {
        return Err(invalid());
    }
    let special = lower.contains('x') || !value.is_finite();
    let plain_int = !special && trimmed.bytes().all(|b| b.is_ascii_digit() || b == b'-');
    let int = if plain_int {
        trimmed.parse().ok()
    } else {
        None
    };
    let (width, precision) = if special { (0, None) } else { shape(trimmed) };
    Ok(Operand {
        value,
        int,
        width,
        precision,
    })
}

/// Width and precision of a finite decimal operand, as GNU computes them.
fn shape(text: &str) -> (i64, Option<i64>) {
    let mut width = text.len() as i64;
    let mut precision = 0i64;
    if let Some(point) = text.find('.') {
        let fraction = text[point + 1..]
            .find(['e', 'E'])
            .unwrap_or(text.len() - point - 1) as i64;
        precision = fraction;
        let before_digit = point > 0 && text.as_bytes()[point - 1].is_ascii_digit();
        width += if fraction == 0 {
            -1
        } else {
            i64::from(!before_digit)
        };
    }
    if let Some(e) = text.find(['e', 'E']) {
        let exponent: i64 = text[e + 1..].parse().unwrap_or(0);
        precision += if exponent < 0 {
            -exponent
        } else {
            -precision.min(exponent)
        };
        width -= (text.len() - e) as i64;
        width += exponent;
    }
    (width, Some(precision))
}

fn default_render(first: Operand, step: Operand, last: Operand, equal: bool) -> Render {
    let ints = first.int.is_some() && step.int.is_some() && last.int.is_some();
    if ints {
        let width = if equal {
            first.width.max(last.width) as usize
        } else {
            0
        };
        return Render::Int(width);
    }
    let (Some(fp), Some(sp), Some(lp)) = (first.precision, step.precision, last.precision) else {
        return Render::Float(String::new(), Spec::default(), b'g', String::new());
    };
    let prec = fp.max(sp);
    let mut spec = Spec {
        precision: Some(prec),
        ..Spec::default()
    };
    if equal {
        let mut first_width = first.width + (prec - fp);
        let mut last_width = last.width + (prec - lp);
        if lp > 0 && prec == 0 {
            last_width -= 1;
        }
        if lp == 0 && prec > 0 {
            last_width += 1;
        }
        if fp == 0 && prec > 0 {
            first_width += 1;
        }
        spec.width = Some(first_width.max(last_width));
        spec.zero = true;
    }
    Render::Float(String::new(), spec, b'f', String::new())
}

/// A `-f` format: exactly one floating-point directive, `%%` anywhere.
fn parse_format(format: &str) -> Result<Render, PlanError> {
    let bytes = format.as_bytes();
    let mut prefix = String::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            if bytes.get(at + 1) == Some(&b'%') {
                prefix.push('%');
                at += 2;
                continue;
            }
            break;
        }
        let c = format[at..].chars().next().unwrap_or(' ');
        prefix.push(c);
        at += c.len_utf8();
    }
    if at >= bytes.len() {
        return Err((format!("format '{format}' has no % directive"), false));
    }
    let (spec, conv, end) = directive(bytes, at + 1);
    if !b"aAeEfFgG".contains(&conv) {
        let shown = String::from_utf8_lossy(&bytes[at..end.min(bytes.len())]);
        let message = if conv == 0 {
            format!("format '{format}' ends in %")
        } else {
            format!("format '{format}' has unknown {shown} directive")
        };
        return Err((message, false));
    }
    let rest = &format[end..];
    let mut suffix = String::new();
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '%' {
            if chars.peek() == Some(&'%') {
                chars.next();
                suffix.push('%');
                continue;
            }
            return Err((
                format!("format '{format}' has too many % directives"),
                false,
            ));
        }
        suffix.push(c);
    }
    Ok(Render::Float(prefix, spec, conv, suffix))
}

/// Flags, width, precision and conversion from `at` (after the `%`); 0 when it ends early.
fn directive(bytes: &[u8], mut at: usize) -> (Spec, u8, usize) {
    let mut spec = Spec::default();
    while let Some(&b) = bytes.get(at) {
        match b {
            b'-' => spec.left = true,
            b'+' => spec.plus = true,
            b' ' => spec.space = true,
            b'0' => spec.zero = true,
            b'#' => spec.alt = true,
            b'\'' => {}
            _ => break,
        }
        at += 1;
    }
    let number = |at: &mut usize| {
        let start = *at;
        while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        std::str::from_utf8(&bytes[start..*at])
            .ok()
            .and_then(|d| d.parse().ok())
    };
    spec.width = number(&mut at);
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        spec.precision = Some(number(&mut at).unwrap_or(0));
    }
    if bytes.get(at) == Some(&b'L') {
        at += 1;
    }
    match bytes.get(at) {
        Some(&conv) => (spec, conv, at + 1),
        None => (spec, 0, at),
    }
}

fn render_float(render: &Render, value: f64) -> String {
    match render {
        Render::Float(prefix, spec, conv, suffix) => {
            format!("{prefix}{}{suffix}", format_float(value, *conv, spec))
        }
        Render::Int(_) => String::new(),
    }
}

async fn print(ctx: &mut Ctx, plan: &Plan, sep: &str) -> Result<(), WriteError> {
    if let Render::Int(width) = plan.render {
        if let (Some(first), Some(step), Some(last)) =
            (plan.first.int, plan.step.int, plan.last.int)
        {
            return print_ints(ctx, first, step, last, width, sep).await;
        }
    }
    print_floats(ctx, plan, sep).await
}

async fn print_ints(
    ctx: &mut Ctx,
    first: i128,
    step: i128,
    last: i128,
    width: usize,
    sep: &str,
) -> Result<(), WriteError> {
    let past = |x: i128| if step > 0 { x > last } else { x < last };
    if past(first) {
        return Ok(());
    }
    let mut line = String::new();
    let mut x = first;
    loop {
        line.clear();
        if x < 0 {
            line.push_str(&format!("-{:0>w$}", -x, w = width.saturating_sub(1)));
        } else {
            line.push_str(&format!("{x:0>width$}"));
        }
        x += step;
        let done = past(x);
        line.push_str(if done { "\n" } else { sep });
        ctx.stdout.write_str(&line).await?;
        if done {
            return Ok(());
        }
    }
}

/// GNU's loop: `first + i * step` (no drift), and one more number when it prints as LAST.
async fn print_floats(ctx: &mut Ctx, plan: &Plan, sep: &str) -> Result<(), WriteError> {
    let (first, step, last) = (plan.first.value, plan.step.value, plan.last.value);
    let past = |x: f64| if step < 0.0 { x < last } else { last < x };
    if past(first) {
        return Ok(());
    }
    let mut x = first;
    let mut i = 1.0;
    loop {
        let text = render_float(&plan.render, x);
        ctx.stdout.write_str(&text).await?;
        let previous = text;
        x = first + i * step;
        i += 1.0;
        if past(x) {
            let next = render_float(&plan.render, x);
            let equals_last = next.trim().parse::<f64>().is_ok_and(|v| v == last);
            if !(equals_last && next != previous) {
                break;
            }
        }
        ctx.stdout.write_str(sep).await?;
    }
    ctx.stdout.write_str("\n").await
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "seq",
        files: &[],
        ok: &[
            (&["-1", "0.5", "1"], "", "-1.0\n-0.5\n0.0\n0.5\n1.0\n"),
            (&["1", "-0.5", "-1"], "", "1.0\n0.5\n0.0\n-0.5\n-1.0\n"),
            (&["0.1", "0.2", "1"], "", "0.1\n0.3\n0.5\n0.7\n0.9\n"),
            (&["-w", "-1.5", "1", "1"], "", "-1.5\n-0.5\n00.5\n"),
            (&["-w", "0.5", "10"], "", "00.5\n01.5\n02.5\n03.5\n04.5\n05.5\n06.5\n07.5\n08.5\n09.5\n"),
            (&["-f", "%.1f", "0", "0.25", "1"], "", "0.0\n0.2\n0.5\n0.8\n1.0\n"),
            (&["5", "1"], "", ""),
            (&["2", "2"], "", "2\n"),
            (&["3"], "", "1\n2\n3\n"),
            (&["2", "4"], "", "2\n3\n4\n"),
            (&["1", "2", "7"], "", "1\n3\n5\n7\n"),
            (&["5", "-2", "1"], "", "5\n3\n1\n"),
            (&["-2", "0"], "", "-2\n-1\n0\n"),
            (&["0.5", "2"], "", "0.5\n1.5\n"),
            (&["1", "0.5", "2.5"], "", "1.0\n1.5\n2.0\n2.5\n"),
            (&["0.1", "0.1", "0.3"], "", "0.1\n0.2\n0.3\n"),
            (&["-s,", "3"], "", "1,2,3\n"),
            (&["-s", "", "3"], "", "123\n"),
            (&["-w", "8", "10"], "", "08\n09\n10\n"),
            (&["-w", "-1", "1"], "", "-1\n00\n01\n"),
            (&["-w", "1", "0.5", "2"], "", "1.0\n1.5\n2.0\n"),
            (&["-f", "%03g", "3"], "", "001\n002\n003\n"),
            (&["-f", "x%.2fy", "1", "2"], "", "x1.00y\nx2.00y\n"),
            (&["-f", "%e", "1", "2"], "", "1.000000e+00\n2.000000e+00\n"),
            (&["--format=%g%%", "2"], "", "1%\n2%\n"),
            (&["10", "1"], "", ""),
            (&["1e2", "1e2", "3e2"], "", "100\n200\n300\n"),
            (&["1.50", "2"], "", "1.50\n"),
            (&["0x10", "0x12"], "", "16\n17\n18\n"),
            (&["1", "1", "1"], "", "1\n"),
            (&["3", "-1", "1"], "", "3\n2\n1\n"),
            (&["1000000", "1000000"], "", "1000000\n"),
            (&["0.000001", "0.000001"], "", "0.000001\n"),
            (&["1e-5", "1e-5"], "", "0.00001\n"),
            (&["0", "0.000001", "0.000003"], "", "0.000000\n0.000001\n0.000002\n0.000003\n"),
            (&["-5", "-2", "-10"], "", "-5\n-7\n-9\n"),
            (&["99999999999999999998", "99999999999999999999"], "", "99999999999999999998\n99999999999999999999\n"),
            (&["-s", " ", "-w", "9", "11"], "", "09 10 11\n"),
        ],
        err: &[
            (&["x"], "", "", "seq: invalid floating point argument: 'x'\nTry 'seq --help' for more information.\n", 1),
            (&["1", "0", "2"], "", "", "seq: invalid Zero increment value: '0'\nTry 'seq --help' for more information.\n", 1),
            (&[], "", "", "seq: missing operand\nTry 'seq --help' for more information.\n", 1),
            (&["1", "2", "3", "4"], "", "", "seq: extra operand '4'\nTry 'seq --help' for more information.\n", 1),
            (&["-f", "%d", "1"], "", "", "seq: format '%d' has unknown %d directive\n", 1),
            (&["-f", "abc", "1"], "", "", "seq: format 'abc' has no % directive\n", 1),
            (&["-f", "%f%f", "1"], "", "", "seq: format '%f%f' has too many % directives\n", 1),
            (&["-w", "-f", "%f", "1"], "", "", "seq: format string may not be specified when printing equal width strings\nTry 'seq --help' for more information.\n", 1),
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
