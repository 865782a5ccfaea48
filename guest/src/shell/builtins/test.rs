//! `test expr` and `[ expr ]`: POSIX test, with its rules by number of arguments, `-a`/`-o`,
//! `!` and parentheses; file tests on the VFS.

use super::{Builtin, Ctx};
use crate::shell::ast::{BinaryTest, UnaryTest};
use crate::shell::interp::expand::ExpandError;
use crate::shell::interp::{Flow, Sh};
use crate::task::LocalFuture;

/// `test`.
pub(crate) const TEST: Builtin = Builtin {
    name: "test",
    synopsis: "test expr — evaluate a condition: -f file, -d dir, -z str, a = b, n -lt m, ! e, e -a e, e -o e",
    run,
};

/// `[`.
pub(crate) const BRACKET: Builtin = Builtin {
    name: "[",
    synopsis: "[ expr ] — same as test; the last argument must be ]",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut args: Vec<String> = ctx.operands().to_vec();
        if ctx.name() == "[" {
            if args.last().map(String::as_str) != Some("]") {
                return ctx.fail("missing `]'", 2).await;
            }
            args.pop();
        }
        for i in 1..args.len() {
            if args[i - 1] == "-v" {
                args[i] = ctx.sh.resolve_var_operand(&args[i], &ctx.fds).await;
            }
        }
        match evaluate(&ctx.sh, &args) {
            Ok(result) => Flow::Normal(i32::from(!result)),
            Err(message) => ctx.fail(&message, 2).await,
        }
    })
}

fn binary_op(op: &str) -> Option<BinaryTest> {
    match op {
        "=" | "==" => Some(BinaryTest::Match),
        "<" => Some(BinaryTest::Less),
        ">" => Some(BinaryTest::Greater),
        "=~" => None,
        op => BinaryTest::from_op(op),
    }
}

fn unary_op(op: &str) -> Option<UnaryTest> {
    UnaryTest::from_op(op)
}

/// Evaluates test arguments (without the closing `]`).
pub(crate) fn evaluate(sh: &Sh, args: &[String]) -> Result<bool, String> {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    match a.as_slice() {
        [] => Ok(false),
        [x] => Ok(!x.is_empty()),
        ["!", x] => Ok(x.is_empty()),
        [op, x] => match unary_op(op) {
            Some(test) => Ok(sh.unary(test, x)),
            None => Err(format!("{op}: unary operator expected")),
        },
        [l, op, r] if binary_op(op).is_some() => binary(sh, l, op, r),
        [l, "-a", r] => Ok(!l.is_empty() && !r.is_empty()),
        [l, "-o", r] => Ok(!l.is_empty() || !r.is_empty()),
        ["!", rest @ ..] if rest.len() == 2 => evaluate(sh, &args[1..]).map(|b| !b),
        ["(", x, ")"] => Ok(!x.is_empty()),
        [_, op, _] => Err(format!("{op}: binary operator expected")),
        ["!", ..] if a.len() == 4 => evaluate(sh, &args[1..]).map(|b| !b),
        ["(", _, _, ")"] => evaluate(sh, &args[1..3]),
        _ => {
            let mut p = Parser {
                sh,
                args: &a,
                pos: 0,
                depth: 0,
            };
            let result = p.or()?;
            if p.pos < a.len() {
                return Err("too many arguments".into());
            }
            Ok(result)
        }
    }
}

fn binary(sh: &Sh, l: &str, op: &str, r: &str) -> Result<bool, String> {
    let Some(test) = binary_op(op) else {
        return Err(format!("{op}: binary operator expected"));
    };
    let test = match (test, op) {
        (BinaryTest::Match, _) => return Ok(l == r),
        (BinaryTest::NoMatch, _) => return Ok(l != r),
        (t, _) => t,
    };
    sh.binary(test, l, r, false).map_err(|e| match e {
        ExpandError::Discard(m) | ExpandError::Exit(m) | ExpandError::Failed(m) => m,
        ExpandError::Flow(_) => "invalid expression".into(),
    })
}

struct Parser<'a> {
    sh: &'a Sh,
    args: &'a [&'a str],
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self, offset: usize) -> Option<&'a str> {
        self.args.get(self.pos + offset).copied()
    }

    fn or(&mut self) -> Result<bool, String> {
        let mut value = self.and()?;
        while self.peek(0) == Some("-o") {
            self.pos += 1;
            let rhs = self.and()?;
            value = value || rhs;
        }
        Ok(value)
    }

    fn and(&mut self) -> Result<bool, String> {
        let mut value = self.not()?;
        while self.peek(0) == Some("-a") {
            self.pos += 1;
            let rhs = self.not()?;
            value = value && rhs;
        }
        Ok(value)
    }

    fn not(&mut self) -> Result<bool, String> {
        if self.peek(0) == Some("!") {
            self.pos += 1;
            self.depth += 1;
            if self.depth > 200 {
                return Err("expression too deeply nested".into());
            }
            let v = self.not()?;
            self.depth -= 1;
            return Ok(!v);
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<bool, String> {
        let Some(first) = self.peek(0) else {
            return Err("argument expected".into());
        };
        if first == "(" {
            self.pos += 1;
            self.depth += 1;
            if self.depth > 200 {
                return Err("expression too deeply nested".into());
            }
            let v = self.or()?;
            self.depth -= 1;
            if self.peek(0) != Some(")") {
                return Err("`)' expected".into());
            }
            self.pos += 1;
            return Ok(v);
        }
        if let (Some(op), Some(r)) = (self.peek(1), self.peek(2)) {
            if binary_op(op).is_some() {
                self.pos += 3;
                return binary(self.sh, first, op, r);
            }
        }
        if let (Some(test), Some(x)) = (unary_op(first), self.peek(1)) {
            self.pos += 2;
            return Ok(self.sh.unary(test, x));
        }
        self.pos += 1;
        Ok(!first.is_empty())
    }
}
