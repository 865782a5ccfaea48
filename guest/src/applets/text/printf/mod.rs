//! `printf FORMAT [ARGUMENT]...`: formatted output, as bash's builtin does it (agents' shells
//! run the builtin, not coreutils'): `%q` quotes with backslashes, a bad number prints
//! `printf: ARG: invalid number` and sets status 1, and the format is reused while
//! arguments remain.

/// C-style number parsing and formatting, shared with `seq -f`.
pub mod number;

use crate::applets::common::finish;
use crate::applets::common::warn;
use crate::applets::common::Zone;
use crate::applets::{Applet, Ctx, Help};
use crate::limits::MAX_PRINTF_FIELD;
use crate::task::LocalFuture;

use number::{format_float, format_int, parse_float, parse_int, Spec};

/// The size of bash's buffer for `%(fmt)T`: a longer result prints as nothing.
const STRFTIME_BUFFER: usize = 128;

/// The `printf` applet.
pub const APPLET: Applet = Applet {
    name: "printf",
    usage: "printf FORMAT [ARGUMENTS]...\n  Conversions: %s %b (escapes in the argument) %q (shell-quoted) %c %d %i %u %o %x %X\n  %f %e %E %g %G %%; %(FMT)T: the argument (seconds; -1 or none: now) as strftime FMT (in TZ);\n  flags - + space 0 #; width and precision (or * from an argument).\n  Escapes in FORMAT: \\n \\t \\\\ \\a \\b \\e \\f \\r \\v \\NNN \\xHH \\uHHHH.\n  The format is reused until every argument is consumed; missing ones count as \"\" or 0.\n  'c or \"c as a number is the character's code. (printf -v VAR is a shell builtin job.)",
    help: Help::First,
    run,
};

/// bash's one-line usage, printed after a usage error.
const USAGE_LINE: &str = "printf: usage: printf [-v var] format [arguments]\n";

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let mut args = ctx.args.clone();
    // The builtin runs this applet under bash's message prefix (`bash: line 1: printf`);
    // run as a program (`/usr/bin/printf`, `xargs printf`, `busybox printf`) it is
    // coreutils', with its messages, where `\c` in the format ends the output too.
    let program = !ctx.name.contains(": ");
    if args.first().is_some_and(|a| a == "--") {
        args.remove(0);
    } else if program && args.is_empty() {
        warn(&mut ctx, "missing operand").await;
        let _ = ctx
            .stderr
            .write_str("Try 'printf --help' for more information.\n")
            .await;
        return 1;
    } else if let Some(letter) = option_letter(&args).filter(|_| !program) {
        // Like bash: a first argument that looks like an option is one.
        let message = if letter == 'v' {
            "-v: assigning to a variable needs the shell's printf builtin".to_string()
        } else {
            format!("-{letter}: invalid option")
        };
        warn(&mut ctx, message).await;
        let _ = ctx.stderr.write_str(USAGE_LINE).await;
        return 2;
    }
    let Some((format, rest)) = args.split_first() else {
        let _ = ctx.stderr.write_str(USAGE_LINE).await;
        return 2;
    };
    // Only a `%(...)T` directive reads the clock (every reading is an event of the trace).
    let now = format
        .contains("%(")
        .then(|| ctx.host.now_ms().div_euclid(1000.0) as i64);
    let mut printer = Printer::new(rest, now.unwrap_or(0));
    printer.program = program;
    if now.is_some() {
        printer.zone = Zone::from_tz(ctx.env.get("TZ").map(String::as_str));
    }
    // Each pass over the format is written out before the next: the output of a long
    // argument list streams instead of piling up in memory.
    let mut more = true;
    let mut written = Ok(());
    let mut passes = 0u32;
    while more && written.is_ok() {
        // A write to a file or a capture never waits: yield now and then, for the deadline.
        passes = passes.wrapping_add(1);
        if passes.is_multiple_of(1024) {
            crate::task::yield_now().await;
        }
        more = printer.pass(format.as_bytes());
        // Like bash, a pass's warnings come before its (buffered) output; coreutils writes
        // what it printed before each message first.
        let mut from = 0;
        for (at, message) in std::mem::take(&mut printer.errors) {
            if program && at > from && written.is_ok() {
                written = ctx.stdout.write(&printer.out[from..at]).await;
                from = at;
            }
            warn(&mut ctx, message).await;
        }
        if written.is_ok() {
            written = ctx.stdout.write(&printer.out[from..]).await;
        }
        printer.out.clear();
    }
    if printer.status == STOP_STATUS {
        printer.status = 1;
    }
    finish(&mut ctx, written.map(|()| printer.status)).await
}

/// `%q` as coreutils does it: quoted only when a shell would need it, `'a b'`.
fn shell_quote(text: &str) -> String {
    let safe = |(i, c): (usize, char)| {
        c.is_alphanumeric()
            || "%+,-./:@_".contains(c)
            || !c.is_ascii()
            || (i > 0 && "~#".contains(c))
    };
    if !text.is_empty() && text.char_indices().all(safe) {
        text.to_string()
    } else {
        crate::applets::common::quote(text)
    }
}

/// The option letter of a first argument like `-x` (not `-` alone).
fn option_letter(args: &[String]) -> Option<char> {
    args.first()?.strip_prefix('-')?.chars().next()
}

/// What the rest of the output should do after a piece of the format.
#[derive(PartialEq)]
pub(super) enum Flow {
    Go,
    /// `\c` in a `%b` argument (or in the program's format): print nothing more.
    Stop,
}

/// Formats into a buffer, consuming the arguments.
struct Printer<'a> {
    args: &'a [String],
    next: usize,
    out: Vec<u8>,
    /// Messages, each with the length of the output when it arose.
    errors: Vec<(usize, String)>,
    status: i32,
    /// The time `%(fmt)T` shows for `-1`, `-2` or no argument, in seconds since the epoch.
    now: i64,
    /// The zone `%(fmt)T` shows times in (`TZ`'s).
    zone: Zone,
    /// Whether this is the program rather than bash's builtin.
    program: bool,
}

impl<'a> Printer<'a> {
    fn new(args: &'a [String], now: i64) -> Self {
        Printer {
            args,
            next: 0,
            out: Vec::new(),
            errors: Vec::new(),
            status: 0,
            now,
            zone: Zone::utc(),
            program: false,
        }
    }

    fn error(&mut self, message: String) {
        self.errors.push((self.out.len(), message));
    }

    /// Applies the format once; true if it should be applied again (arguments remain and
    /// this pass used some).
    fn pass(&mut self, format: &[u8]) -> bool {
        let before = self.next;
        if self.once(format) == Flow::Stop || self.status == STOP_STATUS {
            return false;
        }
        if self.program && self.next == 0 && before == 0 {
            if let Some(first) = self.args.first() {
                let first = crate::applets::common::quote(first);
                let message = format!("warning: ignoring excess arguments, starting with {first}");
                self.error(message);
            }
        }
        self.next < self.args.len() && self.next != before
    }

    fn arg(&mut self) -> Option<&'a str> {
        let arg = self.args.get(self.next)?;
        self.next += 1;
        Some(arg)
    }

    fn once(&mut self, format: &[u8]) -> Flow {
        let mut at = 0;
        while at < format.len() {
            match format[at] {
                b'\\' if self.program && format.get(at + 1) == Some(&b'c') => return Flow::Stop,
                b'\\' => at = escape(format, at + 1, &mut self.out, Escapes::Format),
                b'%' => match self.conversion(format, at + 1) {
                    Some((next, flow)) => {
                        if flow == Flow::Stop {
                            return Flow::Stop;
                        }
                        at = next;
                    }
                    None => return Flow::Stop,
                },
                b => {
                    self.out.push(b);
                    at += 1;
                }
            }
        }
        Flow::Go
    }

    /// One `%...` directive starting after the `%`; None on an invalid directive (reported).
    fn conversion(&mut self, format: &[u8], start: usize) -> Option<(usize, Flow)> {
        let mut spec = Spec::default();
        let mut at = start;
        while let Some(&b) = format.get(at) {
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
        (spec.width, at) = self.count(format, at);
        if spec.width.is_some_and(|w| w < 0) {
            spec.left = true;
        }
        if format.get(at) == Some(&b'.') {
            let (precision, next) = self.count(format, at + 1);
            // A negative precision from `*` counts as none.
            spec.precision = match precision {
                Some(p) if p < 0 => None,
                p => Some(p.unwrap_or(0)),
            };
            at = next;
        }
        for (what, value) in [("width", spec.width), ("precision", spec.precision)] {
            let value = value.map_or(0, i64::unsigned_abs);
            if value > MAX_PRINTF_FIELD {
                // bash would print it; the sandbox's memory could not hold it.
                self.error(format!(
                    "{value}: field {what} too large (at most {MAX_PRINTF_FIELD} in this sandbox)"
                ));
                self.status = STOP_STATUS;
                return None;
            }
        }
        if format.get(at) == Some(&b'(') {
            return self.time(format, at + 1, &spec);
        }
        while format.get(at).is_some_and(|b| b"hlLjzt".contains(b)) {
            at += 1;
        }
        let directive = &format[start - 1..format.len().min(at + 1)];
        let Some(&conv) = format.get(at) else {
            self.invalid(directive, "`%': missing format character");
            return None;
        };
        let flow = match conv {
            b'%' if at != start => None,
            _ => self.convert(conv, &spec),
        };
        let Some(flow) = flow else {
            let text = String::from_utf8_lossy(std::slice::from_ref(&conv));
            self.invalid(directive, &format!("`{text}': invalid format character"));
            return None;
        };
        Some((at + 1, flow))
    }

    /// `%(fmt)T` from `fmt`'s first byte: the argument (seconds since the epoch; `-1`, `-2` or
    /// none: now) formatted by `strftime(fmt)` in the zone `TZ` names, `%X` for an empty `fmt`.
    fn time(&mut self, format: &[u8], start: usize, spec: &Spec) -> Option<(usize, Flow)> {
        let Some(length) = format[start..].windows(2).position(|w| w == b")T") else {
            self.error("`(': invalid time format specification".to_string());
            self.status = STOP_STATUS;
            return None;
        };
        let pattern = String::from_utf8_lossy(&format[start..start + length]);
        let pattern = if pattern.is_empty() {
            "%X".into()
        } else {
            pattern
        };
        let secs = match self.arg() {
            None | Some("" | "-1" | "-2") => self.now,
            Some(text) => self.int_arg(text, b'd'),
        };
        let mut text = crate::applets::common::strftime_in(&pattern, secs, 0, &self.zone);
        // bash formats into a 128-byte buffer and prints nothing when the result fills it.
        if text.len() >= STRFTIME_BUFFER {
            text.clear();
        }
        self.pad_text(text.as_bytes(), spec);
        Some((start + length + 2, Flow::Go))
    }

    /// A width or precision: digits, or `*` taken from the next argument.
    fn count(&mut self, format: &[u8], mut at: usize) -> (Option<i64>, usize) {
        if format.get(at) == Some(&b'*') {
            let value = match self.arg() {
                Some(text) => self.int_arg(text, b'd'),
                None => 0,
            };
            return (Some(value), at + 1);
        }
        let begin = at;
        while format.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        let digits = std::str::from_utf8(&format[begin..at]).unwrap_or("");
        (digits.parse().ok(), at)
    }

    fn convert(&mut self, conv: u8, spec: &Spec) -> Option<Flow> {
        match conv {
            b'%' => self.out.push(b'%'),
            b's' => {
                let text = self.arg().unwrap_or("");
                self.pad_text(text.as_bytes(), spec);
            }
            b'b' => {
                let text = self.arg().unwrap_or("");
                let mut decoded = Vec::new();
                let flow = expand_b(text.as_bytes(), &mut decoded, Escapes::B);
                self.pad_text(&decoded, spec);
                return Some(flow);
            }
            b'q' => {
                let arg = self.arg().unwrap_or("");
                let quoted = if self.program {
                    shell_quote(arg)
                } else {
                    crate::applets::common::quote::backslash(arg)
                };
                let unlimited = Spec {
                    precision: None,
                    ..*spec
                };
                self.pad_text(quoted.as_bytes(), &unlimited);
            }
            b'c' => {
                let text = self.arg().unwrap_or("");
                // An empty argument is the NUL character, as in bash.
                let first = text
                    .as_bytes()
                    .first()
                    .map_or(&[0][..], std::slice::from_ref);
                let whole = Spec {
                    precision: None,
                    ..*spec
                };
                self.pad_text(first, &whole);
            }
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => {
                let value = match self.arg() {
                    Some(text) => self.int_arg(text, conv),
                    None => 0,
                };
                let text = format_int(value, conv, spec);
                self.out.extend_from_slice(text.as_bytes());
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                let value = match self.arg() {
                    Some(text) => self.float_arg(text),
                    None => 0.0,
                };
                let text = format_float(value, conv, spec);
                self.out.extend_from_slice(text.as_bytes());
            }
            _ => return None,
        }
        Some(Flow::Go)
    }

    /// A bad directive ends the output: bash says `message`, coreutils names the directive.
    fn invalid(&mut self, directive: &[u8], message: &str) {
        self.error(if self.program {
            let text = String::from_utf8_lossy(directive);
            format!("{text}: invalid conversion specification")
        } else {
            message.to_string()
        });
        self.status = STOP_STATUS;
    }

    fn int_arg(&mut self, text: &str, conv: u8) -> i64 {
        let parsed = if matches!(conv, b'd' | b'i') {
            parse_int(text)
        } else {
            number::parse_uint(text)
        };
        self.note(text, parsed.error);
        parsed.value
    }

    fn float_arg(&mut self, text: &str) -> f64 {
        let parsed = parse_float(text);
        self.note(text, parsed.error);
        parsed.value
    }

    fn note(&mut self, text: &str, error: Option<number::NumError>) {
        if self.program && error.is_some() {
            // coreutils: status 1 for a number out of range too.
            let what = match error {
                Some(number::NumError::Range) => "Numerical result out of range",
                _ if text
                    .trim_start()
                    .trim_start_matches(['-', '+'])
                    .starts_with(|c: char| c.is_ascii_digit() || c == '.') =>
                {
                    "value not completely converted"
                }
                _ => "expected a numeric value",
            };
            let text = crate::applets::common::quote(text);
            self.error(format!("{text}: {what}"));
            self.status = self.status.max(1);
            return;
        }
        match error {
            Some(number::NumError::Invalid(what)) => {
                self.error(format!("{text}: {what}"));
                if self.status == 0 {
                    self.status = 1;
                }
            }
            Some(number::NumError::Range) => {
                self.error(format!("warning: {text}: Numerical result out of range"));
            }
            None => {}
        }
    }

    /// Text with precision (a byte limit) and width (padding), as `%s` does.
    fn pad_text(&mut self, text: &[u8], spec: &Spec) {
        let limit = spec.precision.map_or(text.len(), |p| {
            usize::try_from(p).unwrap_or(0).min(text.len())
        });
        let text = &text[..limit];
        let width = spec.width.map_or(0, |w| w.unsigned_abs() as usize);
        let pad = width.saturating_sub(text.len());
        if !spec.left {
            self.out.resize(self.out.len() + pad, b' ');
        }
        self.out.extend_from_slice(text);
        if spec.left {
            self.out.resize(self.out.len() + pad, b' ');
        }
    }
}

/// Status marking "stop formatting" after an invalid directive (reported as 1).
const STOP_STATUS: i32 = -1;

/// Which backslash escapes apply.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Escapes {
    /// A format string: `\NNN`, `\"`, `\'`, `\?` too.
    Format,
    /// A `%b` argument: `\0NNN` or `\NNN`.
    B,
    /// `echo -e`: octal only as `\0NNN`.
    Echo,
}

/// Decodes the escape after a backslash at `at` into `out`; returns where the text resumes.
fn escape(text: &[u8], at: usize, out: &mut Vec<u8>, rules: Escapes) -> usize {
    let in_b = rules != Escapes::Format;
    let Some(&c) = text.get(at) else {
        out.push(b'\\');
        return at;
    };
    let simple = match c {
        b'a' => Some(7),
        b'b' => Some(8),
        b'e' | b'E' => Some(0x1b),
        b'f' => Some(0x0c),
        b'n' => Some(b'\n'),
        b'r' => Some(b'\r'),
        b't' => Some(b'\t'),
        b'v' => Some(0x0b),
        b'\\' => Some(b'\\'),
        b'\'' | b'"' | b'?' if !in_b => Some(c),
        _ => None,
    };
    if let Some(byte) = simple {
        out.push(byte);
        return at + 1;
    }
    match c {
        b'1'..=b'7' if rules == Escapes::Echo => {
            out.push(b'\\');
            at
        }
        b'0'..=b'7' => {
            // `%b` reads `\0` plus up to three digits; elsewhere up to three digits in all.
            let (skip, max) = if in_b && c == b'0' { (1, 3) } else { (0, 3) };
            let (value, end) = digits(text, at + skip, max, 8);
            out.push((value & 0xff) as u8);
            end
        }
        b'x' => match digits(text, at + 1, 2, 16) {
            (_, end) if end == at + 1 => {
                out.extend_from_slice(b"\\x");
                end
            }
            (value, end) => {
                out.push(value as u8);
                end
            }
        },
        b'u' | b'U' => {
            let max = if c == b'u' { 4 } else { 8 };
            match digits(text, at + 1, max, 16) {
                (_, end) if end == at + 1 => {
                    out.push(b'\\');
                    out.push(c);
                    end
                }
                (value, end) => {
                    crate::applets::common::bytes::code_point_bytes(value, out);
                    end
                }
            }
        }
        _ => {
            out.push(b'\\');
            out.push(c);
            at + 1
        }
    }
}

/// Up to `max` digits in `radix` from `at`: their value and where they end.
fn digits(text: &[u8], at: usize, max: usize, radix: u32) -> (u32, usize) {
    let mut value = 0u32;
    let mut end = at;
    while end < at + max {
        let Some(d) = text.get(end).and_then(|&b| (b as char).to_digit(radix)) else {
            break;
        };
        value = value.wrapping_mul(radix).wrapping_add(d);
        end += 1;
    }
    (value, end)
}

/// `%b` (and `echo -e`): the argument's escapes expanded; `\c` stops all further output
/// (the result is then [`Flow::Stop`]).
pub(super) fn expand_b(text: &[u8], out: &mut Vec<u8>, rules: Escapes) -> Flow {
    let mut at = 0;
    while at < text.len() {
        if text[at] != b'\\' {
            out.push(text[at]);
            at += 1;
            continue;
        }
        if text.get(at + 1) == Some(&b'c') {
            return Flow::Stop;
        }
        at = escape(text, at + 1, out, rules);
    }
    Flow::Go
}

#[cfg(test)]
mod tests;
