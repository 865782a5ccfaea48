//! `expr EXPRESSION`: evaluate arithmetic, comparisons, regex matches and string functions.
//! Exit status 0 when the result is neither empty nor 0, 1 when it is, 2 on an error.

use crate::applets::common::regex::{Dialect, Flags, Posix, Tool};
use crate::applets::common::write_and_finish;
use crate::applets::common::{usage_error, warn};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `expr` applet.
pub const APPLET: Applet = Applet {
    name: "expr",
    usage: "expr EXPRESSION\n  ARG1 | ARG2     ARG1 if it is neither null nor 0, else ARG2\n  ARG1 & ARG2     ARG1 if neither is null or 0, else 0\n  ARG1 < <= = == != >= > ARG2   comparison (numeric when both are integers)\n  ARG1 + - * / % ARG2           integer arithmetic\n  STRING : REGEX  anchored basic-regex match: the \\(group\\) or the matched length\n  match STRING REGEX, substr STRING POS LEN, index STRING CHARS, length STRING\n  + TOKEN         TOKEN as a string even if it is a keyword; ( EXPRESSION )\nExit status: 0 when the result is neither null nor 0, 1 when it is, 2 on an error.",
    help: Help::Alone,
    run,
};

/// Exit status for an invalid expression.
const INVALID: i32 = 2;

/// A value: an integer or a string (strings that look like integers act as numbers).
#[derive(Clone, Debug, PartialEq)]
enum Val {
    Int(i128),
    Str(String),
}

impl Val {
    fn text(&self) -> String {
        match self {
            Val::Int(n) => n.to_string(),
            Val::Str(s) => s.clone(),
        }
    }

    fn as_int(&self) -> Option<i128> {
        match self {
            Val::Int(n) => Some(*n),
            Val::Str(s) => looks_int(s).then(|| s.parse().ok()).flatten(),
        }
    }

    /// GNU's `null`: empty, or an integer zero written as `0`, `00`, `-0`...
    fn is_null(&self) -> bool {
        match self {
            Val::Int(n) => *n == 0,
            Val::Str(s) => {
                let digits = s.strip_prefix('-').unwrap_or(s);
                s.is_empty() || (!digits.is_empty() && digits.bytes().all(|b| b == b'0'))
            }
        }
    }
}

fn looks_int(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A value, or the message of what made the expression invalid.
type EvalResult<T> = Result<T, String>;

struct Parser<'a> {
    args: &'a [String],
    at: usize,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let mut args = ctx.args.clone();
    if args.first().is_some_and(|a| a == "--") {
        args.remove(0);
    }
    if args.is_empty() {
        return usage_error(&mut ctx, "missing operand", INVALID).await;
    }
    let mut parser = Parser { args: &args, at: 0 };
    let result = parser.or().and_then(|value| match args.get(parser.at) {
        None => Ok(value),
        Some(extra) => Err(format!("syntax error: unexpected argument '{extra}'")),
    });
    match result {
        Ok(value) => {
            let line = format!("{}\n", value.text());
            let status = i32::from(value.is_null());
            write_and_finish(&mut ctx, line.as_bytes(), status).await
        }
        Err(message) => {
            warn(&mut ctx, message).await;
            INVALID
        }
    }
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.args.get(self.at).map(String::as_str)
    }

    /// Consumes `token` if it is next.
    fn eat(&mut self, token: &str) -> bool {
        if self.peek() == Some(token) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// The next argument as an operand; the error names the argument before it.
    fn operand(&mut self) -> EvalResult<&str> {
        match self.args.get(self.at) {
            Some(arg) => {
                self.at += 1;
                Ok(arg)
            }
            None => Err(self.missing()),
        }
    }

    fn missing(&self) -> String {
        let before = self
            .args
            .get(self.at.wrapping_sub(1))
            .map_or("", String::as_str);
        format!("syntax error: missing argument after '{before}'")
    }

    fn or(&mut self) -> EvalResult<Val> {
        let mut left = self.and()?;
        while self.eat("|") {
            let right = self.and()?;
            left = if !left.is_null() {
                left
            } else if !right.is_null() {
                right
            } else {
                Val::Int(0)
            };
        }
        Ok(left)
    }

    fn and(&mut self) -> EvalResult<Val> {
        let mut left = self.compare()?;
        while self.eat("&") {
            let right = self.compare()?;
            if left.is_null() || right.is_null() {
                left = Val::Int(0);
            }
        }
        Ok(left)
    }

    fn compare(&mut self) -> EvalResult<Val> {
        let mut left = self.sum()?;
        loop {
            let Some(op) = self
                .peek()
                .filter(|op| matches!(*op, "<" | "<=" | "=" | "==" | "!=" | ">=" | ">"))
            else {
                return Ok(left);
            };
            let op = op.to_string();
            self.at += 1;
            let right = self.sum()?;
            let order = match (left.as_int(), right.as_int()) {
                (Some(a), Some(b)) => a.cmp(&b),
                _ => left.text().as_bytes().cmp(right.text().as_bytes()),
            };
            let truth = match op.as_str() {
                "<" => order.is_lt(),
                "<=" => order.is_le(),
                "=" | "==" => order.is_eq(),
                "!=" => order.is_ne(),
                ">=" => order.is_ge(),
                _ => order.is_gt(),
            };
            left = Val::Int(i128::from(truth));
        }
    }

    fn sum(&mut self) -> EvalResult<Val> {
        let mut left = self.product()?;
        loop {
            let op = match self.peek() {
                Some(op @ ("+" | "-")) => op.to_string(),
                _ => return Ok(left),
            };
            self.at += 1;
            let right = self.product()?;
            left = arithmetic(&left, &op, &right)?;
        }
    }

    fn product(&mut self) -> EvalResult<Val> {
        let mut left = self.matching()?;
        loop {
            let op = match self.peek() {
                Some(op @ ("*" | "/" | "%")) => op.to_string(),
                _ => return Ok(left),
            };
            self.at += 1;
            let right = self.matching()?;
            left = arithmetic(&left, &op, &right)?;
        }
    }

    fn matching(&mut self) -> EvalResult<Val> {
        let mut left = self.atom()?;
        while self.eat(":") {
            let right = self.atom()?;
            left = regex_match(&left.text(), &right.text())?;
        }
        Ok(left)
    }

    fn atom(&mut self) -> EvalResult<Val> {
        let args = self.args;
        let Some(token) = args.get(self.at).map(String::as_str) else {
            return Err(self.missing());
        };
        self.at += 1;
        match token {
            "(" => {
                let value = self.or()?;
                if !self.eat(")") {
                    let before = &self.args[self.at - 1];
                    return Err(match self.peek() {
                        Some(next) => format!("syntax error: expecting ')' instead of '{next}'"),
                        None => format!("syntax error: expecting ')' after '{before}'"),
                    });
                }
                Ok(value)
            }
            ")" => Err("syntax error: unexpected ')'".to_string()),
            "+" => Ok(Val::Str(self.operand()?.to_string())),
            "length" => Ok(Val::Int(self.atom()?.text().chars().count() as i128)),
            "match" => {
                let text = self.atom()?.text();
                let pattern = self.atom()?.text();
                regex_match(&text, &pattern)
            }
            "index" => {
                let text = self.atom()?.text();
                let chars = self.atom()?.text();
                let found = text.chars().position(|c| chars.contains(c));
                Ok(Val::Int(found.map_or(0, |i| i as i128 + 1)))
            }
            "substr" => {
                let text = self.atom()?.text();
                let pos = int_of(&self.atom()?.text())?;
                let len = int_of(&self.atom()?.text())?;
                Ok(Val::Str(substr(&text, pos, len)))
            }
            other => Ok(Val::Str(other.to_string())),
        }
    }
}

fn int_of(text: &str) -> EvalResult<i128> {
    Val::Str(text.to_string())
        .as_int()
        .ok_or_else(|| "non-integer argument".to_string())
}

fn substr(text: &str, pos: i128, len: i128) -> String {
    let count = text.chars().count() as i128;
    if pos < 1 || len < 1 || pos > count {
        return String::new();
    }
    let skip = usize::try_from(pos - 1).unwrap_or(0);
    let take = usize::try_from(len).unwrap_or(usize::MAX);
    text.chars().skip(skip).take(take).collect()
}

fn arithmetic(left: &Val, op: &str, right: &Val) -> EvalResult<Val> {
    let (Some(a), Some(b)) = (left.as_int(), right.as_int()) else {
        return Err("non-integer argument".to_string());
    };
    if matches!(op, "/" | "%") && b == 0 {
        return Err("division by zero".to_string());
    }
    let value = match op {
        "+" => a.checked_add(b),
        "-" => a.checked_sub(b),
        "*" => a.checked_mul(b),
        "/" => a.checked_div(b),
        _ => a.checked_rem(b),
    };
    value
        .map(Val::Int)
        .ok_or_else(|| "result too large".to_string())
}

/// `STRING : REGEX`: anchored at the start; the first group's text, or the matched length.
fn regex_match(text: &str, pattern: &str) -> EvalResult<Val> {
    let re = Posix::new(pattern, Dialect::posix(false, Tool::Expr), Flags::default())?;
    let groups = re.groups > 0;
    // The leftmost match starts at 0 whenever any match does.
    let spans = re.spans_at(text.as_bytes(), 0).filter(|spans| {
        spans
            .first()
            .copied()
            .flatten()
            .is_some_and(|(s, _)| s == 0)
    });
    let group_text = |n: usize| {
        let span = spans
            .as_ref()
            .and_then(|spans| spans.get(n).copied().flatten());
        span.map_or("", |(s, e)| &text[s..e])
    };
    if groups {
        return Ok(Val::Str(group_text(1).to_string()));
    }
    Ok(Val::Int(group_text(0).chars().count() as i128))
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "expr",
        files: &[],
        ok: &[
            (&["1", "+", "2"], "", "3\n"),
            (&["5", "-", "7"], "", "-2\n"),
            (&["3", "*", "4"], "", "12\n"),
            (&["7", "/", "2"], "", "3\n"),
            (&["-7", "/", "2"], "", "-3\n"),
            (&["7", "%", "3"], "", "1\n"),
            (&["-7", "%", "3"], "", "-1\n"),
            (&["2", "<", "10"], "", "1\n"),
            (&["a", "<", "b"], "", "1\n"),
            (&["10", "<", "9a"], "", "1\n"),
            (&["abc", "=", "abc"], "", "1\n"),
            (&["1", "=", "01"], "", "1\n"),
            (&["abc", ":", "a."], "", "2\n"),
            (&["length", "hello"], "", "5\n"),
            (&["substr", "hello", "2", "3"], "", "ell\n"),
            (&["index", "hello", "l"], "", "3\n"),
            (&["match", "abc", "a\\(.*\\)"], "", "bc\n"),
            (&["0", "|", "5"], "", "5\n"),
            (&["3", "&", "4"], "", "3\n"),
            (&["(", "1", "+", "2", ")", "*", "3"], "", "9\n"),
            (
                &["99999999999999999999999", "+", "1"],
                "",
                "100000000000000000000000\n",
            ),
            (&["substr", "hello", "4", "10"], "", "lo\n"),
            (&["+", "length"], "", "length\n"),
            (&["length", "+", "length"], "", "6\n"),
            (&["a", "!=", "b"], "", "1\n"),
            (&["5", ">=", "5"], "", "1\n"),
            (&["abc", ":", "a*"], "", "1\n"),
            (&["x(y)", ":", "x(y)"], "", "4\n"),
            (&["aaa", ":", "a\\{2\\}"], "", "2\n"),
            (&["--", "5"], "", "5\n"),
            (&["5", "+", "-3"], "", "2\n"),
            (&["abc", ":", "\\(a\\)\\(b\\)"], "", "a\n"),
            (&["a|b", ":", "a|b"], "", "3\n"),
            (&["abcabc", ":", ".*c"], "", "6\n"),
            (&["3", ">", "2", "&", "5"], "", "1\n"),
            (&["1", "|", "0", "&", "0"], "", "1\n"),
            (&["2", "+", "3", "*", "4"], "", "14\n"),
            (&["10", "-", "2", "-", "3"], "", "5\n"),
            (&["", "=", ""], "", "1\n"),
            (&["match", "aXb", "a\\(.\\)"], "", "X\n"),
            (&["héllo", ":", "h.l"], "", "3\n"),
            (&["length", "héllo"], "", "5\n"),
            (&["index", "abc", "cb"], "", "2\n"),
            (
                &["9223372036854775807", "+", "1"],
                "",
                "9223372036854775808\n",
            ),
            (&["file.tar.gz", ":", ".*\\.\\(.*\\)"], "", "gz\n"),
            (&["v1.2", ":", "v\\([0-9]*\\)"], "", "1\n"),
        ],
        err: &[
            (&["1", "/", "0"], "", "", "expr: division by zero\n", 2),
            (&["a", "+", "1"], "", "", "expr: non-integer argument\n", 2),
            (
                &["1", "+"],
                "",
                "",
                "expr: syntax error: missing argument after '+'\n",
                2,
            ),
            (
                &[],
                "",
                "",
                "expr: missing operand\nTry 'expr --help' for more information.\n",
                2,
            ),
            (
                &["1", "2"],
                "",
                "",
                "expr: syntax error: unexpected argument '2'\n",
                2,
            ),
            (&["abc", ":", "b"], "", "0\n", "", 1),
            (&["abc", ":", "\\(x\\)"], "", "\n", "", 1),
            (&["abc", ":", "\\(b\\)"], "", "\n", "", 1),
            (&["00"], "", "00\n", "", 1),
            (&["0"], "", "0\n", "", 1),
            (&[""], "", "\n", "", 1),
            (&["-0"], "", "-0\n", "", 1),
            (&["substr", "hello", "0", "2"], "", "\n", "", 1),
            (&["index", "abc", "x"], "", "0\n", "", 1),
            (&["abc", ":", "*a"], "", "0\n", "", 1),
            (&["", "|", "0"], "", "0\n", "", 1),
            (&["3", "&", "0"], "", "0\n", "", 1),
            (&["a", ":", "\\("], "", "", "expr: Unmatched ( or \\(\n", 2),
            (
                &["(", "1"],
                "",
                "",
                "expr: syntax error: expecting ')' after '1'\n",
                2,
            ),
            (
                &["(", ")"],
                "",
                "",
                "expr: syntax error: unexpected ')'\n",
                2,
            ),
            (
                &["(", "1", "2"],
                "",
                "",
                "expr: syntax error: expecting ')' instead of '2'\n",
                2,
            ),
            (
                &["length"],
                "",
                "",
                "expr: syntax error: missing argument after 'length'\n",
                2,
            ),
            (
                &["substr", "abc", "1"],
                "",
                "",
                "expr: syntax error: missing argument after '1'\n",
                2,
            ),
            (&[" 5", "+", "1"], "", "", "expr: non-integer argument\n", 2),
            (&["5", "=", " 5"], "", "0\n", "", 1),
            (&["substr", "abcdef", "2", "-1"], "", "\n", "", 1),
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
