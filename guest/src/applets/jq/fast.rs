//! A direct evaluator for the commonest filters run on each item of a big array (`select`
//! over comparisons of `.key`s and literals, `.a.b`, `and`/`or`/`not`, arithmetic): jaq
//! runs each `.key` through its path machinery (a dozen boxed iterators and allocations),
//! this looks the key up in place.
//!
//! jaq stays the reference: an expression evaluates only where jaq yields at most one value
//! without an error, and gives up ([`Expr::run`] returns None) everywhere else, before any
//! output; the caller then runs jaq's filter on the same input. Results and errors are thus
//! jaq's by construction, and this module only has to agree with jaq on successful steps,
//! each of which calls the same code jaq does (`Val`'s indexing, order, arithmetic, truth).

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Term};
use jaq_core::ops::{Cmp, Math};
use jaq_core::path::{Opt, Part};
use jaq_core::ValT;

use super::engine::Filter;
use super::val::Val;

/// A filter as jaq compiled it, and its direct evaluation when it has one of this module's
/// shapes (tried first; jaq's runs where it gives up).
pub struct Program {
    /// jaq's filter.
    pub filter: Filter,
    /// The direct evaluation.
    pub fast: Option<Expr>,
}

impl Program {
    /// `filter`, compiled by jaq from `code`.
    pub fn new(filter: Filter, code: &str) -> Self {
        let fast = compile(code);
        Program { filter, fast }
    }
}

/// A filter of at most one output, evaluated directly.
pub enum Expr {
    /// `.`
    Id,
    /// A number or string literal, `true`, `false`, `null`.
    Lit(Val),
    /// `f[k]` (`.a` is `.["a"]`), `k` run on the input of `f`.
    Index(Box<Expr>, Box<Expr>),
    /// `-f`
    Neg(Box<Expr>),
    /// `f | g`
    Pipe(Box<Expr>, Box<Expr>),
    /// `select(f)`
    Select(Box<Expr>),
    /// `not`
    Not,
    /// `length`
    Length,
    /// `add` (of an array)
    Add,
    /// `f and g` (`stop` false), `f or g` (`stop` true).
    Logic(Box<Expr>, bool, Box<Expr>),
    /// `f < g`, `f == g`...
    Cmp(Box<Expr>, Cmp, Box<Expr>),
    /// `f + g`, `f * g`...
    Math(Box<Expr>, Math, Box<Expr>),
}

/// Nesting deeper than this is left to jaq (the evaluator recurses).
const DIRECT_DEPTH: usize = 32;

/// `code` (the text jaq compiles) as an [`Expr`], when every part of it is one.
pub fn compile(code: &str) -> Option<Expr> {
    let term = jaq_core::load::parse(code, |p| p.term())?;
    expr(&term, 0)
}

fn boxed(term: &Term<&str>, depth: usize) -> Option<Box<Expr>> {
    expr(term, depth).map(Box::new)
}

fn expr(term: &Term<&str>, depth: usize) -> Option<Expr> {
    let depth = depth + 1;
    if depth > DIRECT_DEPTH {
        return None;
    }
    Some(match term {
        Term::Id => Expr::Id,
        Term::Neg(f) => Expr::Neg(boxed(f, depth)?),
        Term::Num(_) | Term::Str(None, _) => Expr::Lit(literal(term)?),
        Term::Call("true", args) if args.is_empty() => Expr::Lit(Val::Bool(true)),
        Term::Call("false", args) if args.is_empty() => Expr::Lit(Val::Bool(false)),
        Term::Call("null", args) if args.is_empty() => Expr::Lit(Val::Null),
        Term::Call("not", args) if args.is_empty() => Expr::Not,
        Term::Call("length", args) if args.is_empty() => Expr::Length,
        Term::Call("add", args) if args.is_empty() => Expr::Add,
        Term::Call("select", args) => match args.as_slice() {
            [f] => Expr::Select(boxed(f, depth)?),
            _ => return None,
        },
        Term::Path(base, path) => {
            let mut e = expr(base, depth)?;
            for (part, opt) in &path.0 {
                match (part, opt) {
                    (Part::Index(k), Opt::Essential) => {
                        e = Expr::Index(Box::new(e), boxed(k, depth)?);
                    }
                    _ => return None,
                }
            }
            e
        }
        Term::BinOp(l, op, r) => {
            let (l, r) = (boxed(l, depth)?, boxed(r, depth)?);
            match op {
                BinaryOp::Pipe(None) => Expr::Pipe(l, r),
                BinaryOp::And => Expr::Logic(l, false, r),
                BinaryOp::Or => Expr::Logic(l, true, r),
                BinaryOp::Cmp(op) => Expr::Cmp(l, *op, r),
                BinaryOp::Math(op) => Expr::Math(l, *op, r),
                _ => return None,
            }
        }
        _ => return None,
    })
}

/// A number or string literal's value, as jaq's compiler makes it (an integer when the text
/// is one, else jq's number from the text; a string's parts joined).
fn literal(term: &Term<&str>) -> Option<Val> {
    match term {
        Term::Num(n) => match n.parse::<isize>() {
            Ok(i) => Some(Val::from(i)),
            Err(_) => Val::from_num(n).ok(),
        },
        Term::Str(None, parts) => {
            let mut s = String::new();
            for part in parts {
                match part {
                    StrPart::Str(text) => s.push_str(text),
                    StrPart::Char(c) => s.push(*c),
                    StrPart::Term(_) => return None,
                }
            }
            Some(Val::from(s))
        }
        _ => None,
    }
}

impl Expr {
    /// The output of this filter on `v` (None inside: no output), or None where jaq may
    /// do otherwise (an error): the caller then runs jaq.
    pub fn run(&self, v: &Val) -> Option<Option<Val>> {
        Some(Some(match self {
            Expr::Id => v.clone(),
            Expr::Lit(x) => x.clone(),
            Expr::Index(f, k) => match (f.run(v)?, k.run(v)?) {
                (Some(x), Some(k)) => x.get(&k).ok()?.unwrap_or_default(),
                _ => return Some(None),
            },
            Expr::Neg(f) => match f.run(v)? {
                Some(x) => (-x).ok()?,
                None => return Some(None),
            },
            Expr::Pipe(f, g) => match f.run(v)? {
                Some(x) => return g.run(&x),
                None => return Some(None),
            },
            Expr::Select(f) => match f.run(v)? {
                Some(x) if x.as_bool() => v.clone(),
                _ => return Some(None),
            },
            Expr::Not => Val::Bool(!v.as_bool()),
            Expr::Length => super::funs::length(v).ok()?,
            // `reduce .[] as $x (null; . + $x)`
            Expr::Add => match v {
                Val::Arr(items) => {
                    let mut sum = Val::Null;
                    for x in items.iter() {
                        sum = (sum + x.clone()).ok()?;
                    }
                    sum
                }
                _ => return None,
            },
            Expr::Logic(f, stop, g) => match f.run(v)? {
                Some(x) if x.as_bool() == *stop => Val::Bool(*stop),
                Some(_) => match g.run(v)? {
                    Some(y) => Val::Bool(y.as_bool()),
                    None => return Some(None),
                },
                None => return Some(None),
            },
            Expr::Cmp(f, op, g) => match (f.run(v)?, g.run(v)?) {
                (Some(x), Some(y)) => Val::Bool(op.run(&x, &y)),
                _ => return Some(None),
            },
            Expr::Math(f, op, g) => match (f.run(v)?, g.run(v)?) {
                (Some(x), Some(y)) => op.run(x, y).ok()?,
                _ => return Some(None),
            },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::applets::testing::run;

    /// Programs of every shape, each run directly (at the top level) and through jaq (`[p] |
    /// .[]` has no direct shape) on every input: the same outputs, errors and statuses.
    const PROGRAMS: &[&str] = &[
        ".",
        ".a",
        ".a.b",
        ".[\"a\"]",
        ".\"a b\"",
        ".a[0]",
        ".[-1]",
        ".a[.n]",
        "-.n",
        ".a | .b",
        "select(.a)",
        "select(.a) | .b",
        "select(.a and .n > 500) | .v",
        "select(.a or .n < 1)",
        "select(.n == 1.0)",
        "select(.n != null)",
        "select(.n >= \"x\")",
        "select(.n <= .v)",
        ".a | not",
        ".n + 1",
        ".n * 2 - .n / 4",
        ".n % 7",
        ".a + .b",
        ".s + \"\\u00e9\\n\"",
        "1e1000",
        "100000000000000000001",
        "-0",
        "true",
        "false",
        "null | not",
        "length",
        ".a | length",
        "add",
        ".a | add",
        ".v | add",
        ".b | add",
    ];

    const INPUTS: &[&str] = &[
        "{\"a\": true, \"n\": 501, \"v\": 7, \"s\": \"x\"}",
        "{\"a\": 1, \"n\": 500, \"v\": [1], \"b\": {\"b\": 2}}",
        "{\"a\": null, \"n\": -0, \"b\": \"y\"}",
        "{\"a\": false, \"n\": 100000000000000000001, \"s\": 1}",
        "{\"a\": {\"b\": [1]}, \"n\": 1e1000, \"b\": [2]}",
        "{\"a\": [3, 4], \"n\": \"str\", \"v\": {\"k\": 1}}",
        "{\"b\": 1, \"a\": \"s\", \"n\": [1], \"n\": 2}",
        "null",
        "3",
        "-0",
        "\"text\"",
        "[1, 2]",
        "{}",
        "[1, 2.5, -0]",
        "[\"a\", \"b\"]",
        "[[1], [2, 3]]",
        "[{\"a\": 1}, {\"b\": 2, \"a\": 3}]",
        "[null, 1, \"x\"]",
        "[]",
    ];

    #[test]
    fn direct_runs_are_jaqs() {
        for program in PROGRAMS {
            let through_jaq = format!("[{program}] | .[]");
            assert!(compile(&through_jaq).is_none(), "{through_jaq}");
            for input in INPUTS {
                let direct = run("jq", &["-c", program], input);
                let jaq = run("jq", &["-c", &through_jaq], input);
                assert_eq!(direct, jaq, "jq {program:?} <<< {input}");
            }
        }
    }

    #[test]
    fn the_shapes_run_directly() {
        let inputs: Vec<Val> = INPUTS
            .iter()
            .flat_map(|text| super::super::json::parse_all(text.as_bytes()).unwrap_or_default())
            .collect();
        assert_eq!(inputs.len(), INPUTS.len());
        for program in PROGRAMS {
            let direct =
                compile(program).is_some_and(|expr| inputs.iter().any(|v| expr.run(v).is_some()));
            assert!(direct, "{program}");
        }
        for program in [
            ".[]",
            ".a?",
            ".a, .b",
            "def f: .; f",
            "$__loc__",
            "{a}",
            "[.a]",
            ".a // 1",
        ] {
            assert!(compile(program).is_none(), "{program}");
        }
    }
}
