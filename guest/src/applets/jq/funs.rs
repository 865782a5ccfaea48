//! jq's builtins that are written in C in jq: native filters over our values, listed before
//! jaq's own so ours win, plus jq-language definitions (`defs.jq`) that shadow jaq's.

use std::rc::Rc;

use jaq_core::box_iter::box_once;
use jaq_core::native::{bome, run, unary, v, Filter};
use jaq_core::{Bind, Cv, Exn, RunPtr, ValXs};

use super::deep;
use super::engine::{JqData, NativeFun};
use super::map::Map;
use super::math;
use super::paths;
use super::strings;
use super::time;
use super::val::{err, split_str, subarray_indices, Array, Res, Val};
use crate::applets::common::Zone;
use crate::limits::MAX_JQ_DEPTH;

/// Our jq-language definitions (loaded after jaq's, so they take precedence).
pub const DEFS: &str = include_str!("defs.jq");

type Cvj<'a> = Cv<'a, JqData>;
type Out<'a> = ValXs<'a, Val>;

/// Every native filter: ours (math included), then jaq's core and base standard library, and
/// jaq's `limit` again as `_limit` for our `limit`, which handles negative counts like jq.
pub fn all() -> Vec<NativeFun> {
    let mut funs: Vec<NativeFun> = (ours().into_vec().into_iter())
        .chain(math::funs().into_vec())
        .map(run::<JqData>)
        .collect();
    funs.extend(super::recurse::funs());
    funs.extend(jaq_core::funs::<JqData>());
    let limit = jaq_core::funs::<JqData>().find(|(name, _, _)| *name == "limit");
    funs.extend(limit.map(|(_, args, f)| ("_limit", args, f)));
    let skip = jaq_core::funs::<JqData>().find(|(name, _, _)| *name == "skip");
    funs.extend(skip.map(|(_, args, f)| ("_skip", args, f)));
    funs.extend(jaq_std::base_funs::<JqData>());
    funs
}

fn f1() -> Box<[Bind]> {
    [Bind::Fun(())].into()
}

fn ours() -> Box<[Filter<RunPtr<JqData>>]> {
    Box::new([
        ("length", v(0), |cv| bome(length(&cv.1))),
        ("utf8bytelength", v(0), |cv| bome(utf8bytelength(&cv.1))),
        ("_keys", v(0), |cv| bome(keys(&cv.1, true))),
        ("keys_unsorted", v(0), |cv| bome(keys(&cv.1, false))),
        ("has", v(1), |cv| unary(cv, |v, k| has(&v, &k))),
        ("contains", v(1), |cv| {
            unary(cv, |a, b| contains_checked(&a, &b))
        }),
        ("tojson", v(0), |cv| bome(Ok(Val::from(cv.1.to_json())))),
        ("fromjson", v(0), |cv| bome(fromjson(&cv.1))),
        ("_tonumber", v(0), |cv| bome(tonumber(cv.1))),
        ("_type", v(0), |cv| bome(Ok(Val::str(cv.1.kind())))),
        ("_isnan", v(0), |cv| bome(classify(&cv.1, f64::is_nan))),
        ("_isinfinite", v(0), |cv| {
            bome(classify(&cv.1, f64::is_infinite))
        }),
        ("_isnormal", v(0), |cv| {
            bome(classify(&cv.1, f64::is_normal))
        }),
        ("_nan", v(0), |_| bome(Ok(Val::num(f64::NAN)))),
        ("_infinite", v(0), |_| bome(Ok(Val::num(f64::INFINITY)))),
        ("sort", v(0), |cv| bome(sort(cv.1))),
        ("modulemeta", v(0), modulemeta),
        ("_flatten", v(1), |cv| {
            unary(cv, |v, d| deep::flatten(&v, &d))
        }),
        ("_sort_by_impl", v(1), |cv| unary(cv, |v, k| sort_by(v, &k))),
        ("_group_by_impl", v(1), |cv| {
            unary(cv, |v, k| group_by(v, &k))
        }),
        ("_min_by_impl", v(1), |cv| {
            unary(cv, |v, k| extreme_by(v, &k, false))
        }),
        ("_max_by_impl", v(1), |cv| {
            unary(cv, |v, k| extreme_by(v, &k, true))
        }),
        ("floor", v(0), |cv| bome(math(&cv.1, "floor", f64::floor))),
        ("ceil", v(0), |cv| bome(math(&cv.1, "ceil", f64::ceil))),
        ("round", v(0), |cv| bome(math(&cv.1, "round", f64::round))),
        ("fabs", v(0), |cv| bome(math(&cv.1, "fabs", f64::abs))),
        ("sqrt", v(0), |cv| bome(math(&cv.1, "sqrt", f64::sqrt))),
        ("explode", v(0), |cv| bome(explode(&cv.1))),
        ("implode", v(0), |cv| bome(implode(&cv.1))),
        ("ascii_downcase", v(0), |cv| bome(ascii_case(&cv.1, false))),
        ("ascii_upcase", v(0), |cv| bome(ascii_case(&cv.1, true))),
        ("ltrimstr", v(1), |cv| {
            unary(cv, |v, p| trim_fix(v, &p, true))
        }),
        ("rtrimstr", v(1), |cv| {
            unary(cv, |v, s| trim_fix(v, &s, false))
        }),
        ("toboolean", v(0), |cv| bome(toboolean(&cv.1))),
        ("_builtins", v(0), |_| {
            let names = super::engine::builtin_names().into_iter().map(Val::from);
            bome(Ok(Val::arr(names.collect())))
        }),
        ("startswith", v(1), |cv| {
            unary(cv, |v, s| fix_test(&v, &s, true))
        }),
        ("endswith", v(1), |cv| {
            unary(cv, |v, s| fix_test(&v, &s, false))
        }),
        ("trim", v(0), |cv| bome(strings::trim(&cv.1, true, true))),
        ("ltrim", v(0), |cv| bome(strings::trim(&cv.1, true, false))),
        ("rtrim", v(0), |cv| bome(strings::trim(&cv.1, false, true))),
        ("_split1", v(1), |cv| unary(cv, |v, s| split1(&v, &s))),
        ("_strindices", v(1), |cv| {
            unary(cv, |v, s| strindices(&v, &s))
        }),
        ("_match_impl", v(3), match_impl),
        ("_fmt_csv", v(0), |cv| bome(strings::csv(&cv.1))),
        ("_fmt_tsv", v(0), |cv| bome(strings::tsv(&cv.1))),
        ("_fmt_sh", v(0), |cv| bome(strings::sh(&cv.1))),
        ("_fmt_html", v(0), |cv| bome(Ok(strings::html(&cv.1)))),
        ("_fmt_uri", v(0), |cv| bome(Ok(strings::uri(&cv.1)))),
        ("_fmt_urid", v(0), |cv| bome(strings::urid(&cv.1))),
        ("_fmt_base64", v(0), |cv| bome(Ok(strings::base64(&cv.1)))),
        ("_fmt_base64d", v(0), |cv| bome(strings::base64d(&cv.1))),
        ("_fmt_base32", v(0), |cv| bome(Ok(strings::base32(&cv.1)))),
        ("_fmt_base32d", v(0), |cv| bome(strings::base32d(&cv.1))),
        ("_setpath", v(2), setpath),
        ("_delpaths", v(1), |cv| {
            unary(cv, |v, p| paths::delpaths(v, &p))
        }),
        ("bsearch", v(1), |cv| unary(cv, |v, x| bsearch(&v, &x))),
        ("range", v(3), range),
        ("_input", v(0), input),
        ("inputs", v(0), inputs),
        ("input_filename", v(0), input_filename),
        ("input_line_number", v(0), input_line_number),
        ("_debug", v(0), debug),
        ("_stderr", v(0), stderr),
        ("_halt_error", v(1), halt_error),
        ("now", v(0), now),
        ("mktime", v(0), |cv| bome(time::mktime(&cv.1))),
        ("gmtime", v(0), |cv| {
            bome(time::gmtime(&cv.1, &Zone::utc(), "gmtime"))
        }),
        ("localtime", v(0), |cv| {
            bome(time::gmtime(&cv.1, &shared(&cv).borrow().zone, "localtime"))
        }),
        ("strftime", v(1), |cv| {
            unary(cv, |v, f| time::strftime(&v, &f, "strftime", &Zone::utc()))
        }),
        ("strflocaltime", v(1), |cv| {
            let shared = shared(&cv);
            unary(cv, move |v, f| {
                time::strftime(&v, &f, "strflocaltime", &shared.borrow().zone)
            })
        }),
        ("strptime", v(1), |cv| {
            unary(cv, |v, f| time::strptime(&v, &f))
        }),
        ("_last", f1(), last),
    ])
}

pub(super) fn length(v: &Val) -> Res<Val> {
    Ok(match v {
        Val::Null => Val::num(0.0),
        Val::Bool(_) => return Err(err(format!("{} has no length", v.describe()))),
        // the absolute value, a literal kept as one (jq 1.8)
        Val::Num(n) if n.f == 0.0 => Val::num(0.0),
        Val::Num(n) if n.f < 0.0 => Val::Num(n.negated()),
        Val::Num(_) => v.clone(),
        Val::Str(s) => Val::num(s.chars().count() as f64),
        Val::Arr(a) => Val::num(a.len() as f64),
        Val::Obj(o) => Val::num(o.len() as f64),
    })
}

fn utf8bytelength(v: &Val) -> Res<Val> {
    match v {
        Val::Str(s) => Ok(Val::num(s.len() as f64)),
        v => Err(err(format!(
            "{} only strings have UTF-8 byte length",
            v.describe()
        ))),
    }
}

fn keys(v: &Val, sorted: bool) -> Res<Val> {
    match v {
        Val::Obj(o) => {
            let keys: Vec<Val> = if sorted {
                o.sorted()
                    .into_iter()
                    .map(|(k, _)| Val::Str(Rc::clone(k)))
                    .collect()
            } else {
                o.iter().map(|(k, _)| Val::Str(Rc::clone(k))).collect()
            };
            Ok(Val::arr(keys))
        }
        Val::Arr(a) => Ok(Val::arr((0..a.len()).map(|i| Val::num(i as f64)).collect())),
        v => Err(err(format!("{} has no keys", v.describe()))),
    }
}

fn has(v: &Val, k: &Val) -> Res<Val> {
    match (v, k) {
        (Val::Obj(o), Val::Str(s)) => Ok(Val::Bool(o.get(s).is_some())),
        (Val::Arr(a), Val::Num(n)) => Ok(Val::Bool(n.f >= 0.0 && n.f < a.len() as f64)),
        _ => Err(err(format!(
            "Cannot check whether {} has a {} key",
            v.kind(),
            k.kind()
        ))),
    }
}

fn same_kind(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Bool(x), Val::Bool(y)) => x == y,
        _ => a.kind() == b.kind(),
    }
}

/// What `contains` still has to check, walking nested values with a heap stack.
enum Check<'a> {
    /// `a` contains `b`.
    Pair(&'a Val, &'a Val),
    /// Some element of the array contains `b`.
    Any(&'a [Val], &'a Val),
    /// A key of `b` that `a` lacks.
    Fail,
}

/// A check under way: all of these must hold, or any element must contain the value.
enum Open<'a> {
    All(std::vec::IntoIter<Check<'a>>),
    Any(std::slice::Iter<'a, Val>, &'a Val),
}

/// `a | contains(b)` as jq defines it (objects: every key of `b`, each value contained;
/// arrays: every element of `b` contained in some element of `a`; strings: substrings),
/// without recursion.
fn contains(a: &Val, b: &Val) -> bool {
    let mut stack: Vec<Open<'_>> = Vec::new();
    let mut answer = open_check(Check::Pair(a, b), &mut stack);
    loop {
        let Some(top) = stack.last_mut() else {
            return answer.unwrap_or(true);
        };
        let next = match (top, answer) {
            (Open::All(_), Some(false)) | (Open::Any(..), Some(true)) => Err(answer),
            (Open::All(checks), _) => checks.next().ok_or(Some(true)),
            (Open::Any(items, b), _) => items.next().map(|a| Check::Pair(a, b)).ok_or(Some(false)),
        };
        answer = match next {
            Ok(check) => open_check(check, &mut stack),
            Err(done) => {
                stack.pop();
                done
            }
        };
    }
}

/// The answer of `check` if it is immediate; else it is pushed on `stack` (and `None`).
fn open_check<'a>(check: Check<'a>, stack: &mut Vec<Open<'a>>) -> Option<bool> {
    let opened = match check {
        Check::Fail => return Some(false),
        Check::Any(items, b) => Open::Any(items.iter(), b),
        Check::Pair(a, b) if !same_kind(a, b) => return Some(false),
        Check::Pair(Val::Obj(a), Val::Obj(b)) => Open::All(
            b.iter()
                .map(|(k, bv)| a.get(k).map_or(Check::Fail, |av| Check::Pair(av, bv)))
                .collect::<Vec<_>>()
                .into_iter(),
        ),
        Check::Pair(Val::Arr(a), Val::Arr(b)) => Open::All(
            b.iter()
                .map(|bv| Check::Any(&a[..], bv))
                .collect::<Vec<_>>()
                .into_iter(),
        ),
        Check::Pair(Val::Str(a), Val::Str(b)) => return Some(a.contains(&**b)),
        Check::Pair(a, b) => return Some(a == b),
    };
    stack.push(opened);
    None
}

fn contains_checked(a: &Val, b: &Val) -> Res<Val> {
    // jq's check recurses into `b` where `a` has the same shape: it can only go too deep
    // when both are too deep.
    if deep::deeper_than(b, MAX_JQ_DEPTH) && deep::deeper_than(a, MAX_JQ_DEPTH) {
        return Err(err("Containment check too deep"));
    }
    if same_kind(a, b) {
        Ok(Val::Bool(contains(a, b)))
    } else {
        Err(err(format!(
            "{} and {} cannot have their containment checked",
            a.describe(),
            b.describe()
        )))
    }
}

fn fromjson(v: &Val) -> Res<Val> {
    match v {
        Val::Str(s) => {
            super::json::parse_one(s).map_err(|e| err(format!("{e} (while parsing '{s}')")))
        }
        v => Err(err(format!("{} only strings can be parsed", v.describe()))),
    }
}

/// A decimal number as C's `strtod` reads one that fills the whole string (`.5`, `+1`).
fn strtod(s: &str) -> Option<f64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    let ok = digits.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && digits
            .chars()
            .all(|c| c.is_ascii_digit() || "+-.eE".contains(c));
    ok.then(|| s.parse().ok()).flatten()
}

fn tonumber(v: Val) -> Res<Val> {
    match &v {
        Val::Num(_) => Ok(v),
        Val::Str(s) => match super::json::parse_one(s) {
            Ok(n @ Val::Num(_)) if s.trim() == &**s => Ok(n),
            _ => strtod(s)
                .map(Val::num)
                .ok_or_else(|| err(format!("{} cannot be parsed as a number", v.describe()))),
        },
        _ => Err(err(format!(
            "{} cannot be parsed as a number",
            v.describe()
        ))),
    }
}

fn classify(v: &Val, test: fn(f64) -> bool) -> Res<Val> {
    match v {
        Val::Num(n) => Ok(Val::Bool(test(n.f))),
        v => Err(err(format!("{} number required", v.describe()))),
    }
}

fn math(v: &Val, _name: &str, f: fn(f64) -> f64) -> Res<Val> {
    match v {
        Val::Num(n) => Ok(Val::num(f(n.f))),
        v => Err(err(format!("{} number required", v.describe()))),
    }
}

fn items(v: Val, what: &str) -> Res<Vec<Val>> {
    match v {
        Val::Arr(a) => Ok(Array::into_vec(a)),
        v => Err(err(format!(
            "{} cannot be {what}, as it is not an array",
            v.describe()
        ))),
    }
}

fn sort(v: Val) -> Res<Val> {
    let mut items = items(v, "sorted")?;
    deep::comparing(|| crate::sort::sort(&mut items))?;
    Ok(Val::arr(items))
}

/// Pairs each item with its key (from `map([f])`), checking the shapes.
fn keyed(v: Val, keys: &Val, what: &str) -> Res<Vec<(Val, Val)>> {
    let items = items(v, what)?;
    let Val::Arr(keys) = keys else {
        return Err(err(format!("{} cannot be {what}", keys.describe())));
    };
    if keys.len() != items.len() {
        return Err(err("Internal error: keys and items differ in length"));
    }
    Ok(keys.iter().cloned().zip(items).collect())
}

fn sort_by(v: Val, keys: &Val) -> Res<Val> {
    let mut pairs = keyed(v, keys, "sorted")?;
    deep::comparing(|| crate::sort::sort_by(&mut pairs, |a, b| a.0.cmp(&b.0)))?;
    Ok(Val::arr(pairs.into_iter().map(|(_, v)| v).collect()))
}

fn group_by(v: Val, keys: &Val) -> Res<Val> {
    let mut pairs = keyed(v, keys, "grouped")?;
    deep::comparing(|| crate::sort::sort_by(&mut pairs, |a, b| a.0.cmp(&b.0)))?;
    let mut groups: Vec<Val> = Vec::new();
    let mut current: Vec<Val> = Vec::new();
    let mut last_key: Option<Val> = None;
    for (k, v) in pairs {
        if last_key.as_ref().is_some_and(|last| last.cmp(&k).is_ne()) {
            groups.push(Val::arr(std::mem::take(&mut current)));
        }
        last_key = Some(k);
        current.push(v);
    }
    if !current.is_empty() {
        groups.push(Val::arr(current));
    }
    Ok(Val::arr(groups))
}

fn extreme_by(v: Val, keys: &Val, max: bool) -> Res<Val> {
    let pairs = keyed(v, keys, "iterated over")?;
    let mut best: Option<(Val, Val)> = None;
    for (k, v) in pairs {
        let replace = match &best {
            None => true,
            Some((bk, _)) if max => k.cmp(bk).is_ge(),
            Some((bk, _)) => k.cmp(bk).is_lt(),
        };
        if replace {
            best = Some((k, v));
        }
    }
    Ok(best.map(|(_, v)| v).unwrap_or_default())
}

fn explode(v: &Val) -> Res<Val> {
    match v {
        Val::Str(s) => Ok(Val::arr(
            s.chars().map(|c| Val::num(f64::from(c as u32))).collect(),
        )),
        _ => Err(err("explode input must be a string")),
    }
}

fn implode(v: &Val) -> Res<Val> {
    let Val::Arr(a) = v else {
        return Err(err("implode input must be an array"));
    };
    let mut out = String::new();
    for x in a.iter() {
        let Some(n) = x.as_f64().filter(|f| !f.is_nan()) else {
            return Err(err(format!(
                "{} can't be imploded, unicode codepoint needs to be numeric",
                x.describe()
            )));
        };
        let c = if n >= 0.0 && n <= f64::from(u32::MAX) {
            char::from_u32(n as u32)
        } else {
            None
        };
        out.push(c.unwrap_or('\u{FFFD}'));
    }
    Ok(Val::from(out))
}

fn ascii_case(v: &Val, upper: bool) -> Res<Val> {
    match v {
        Val::Str(s) if upper => Ok(Val::from(s.to_ascii_uppercase())),
        Val::Str(s) => Ok(Val::from(s.to_ascii_lowercase())),
        _ => Err(err("explode input must be a string")),
    }
}

/// `ltrimstr` / `rtrimstr`: jq 1.8 refuses non-strings with `startswith`'s message.
fn trim_fix(v: Val, fix: &Val, prefix: bool) -> Res<Val> {
    fix_test(&v, fix, prefix)?;
    let (Val::Str(s), Val::Str(f)) = (&v, fix) else {
        return Ok(v);
    };
    let stripped = if prefix {
        s.strip_prefix(&**f)
    } else {
        s.strip_suffix(&**f)
    };
    Ok(stripped.map(Val::str).unwrap_or(v))
}

/// `toboolean`: booleans, and the strings `"true"` and `"false"`.
fn toboolean(v: &Val) -> Res<Val> {
    match v {
        Val::Bool(_) => Ok(v.clone()),
        Val::Str(s) if &**s == "true" => Ok(Val::Bool(true)),
        Val::Str(s) if &**s == "false" => Ok(Val::Bool(false)),
        _ => Err(err(format!(
            "{} cannot be parsed as a boolean",
            v.describe()
        ))),
    }
}

fn fix_test(v: &Val, fix: &Val, prefix: bool) -> Res<Val> {
    match (v, fix) {
        (Val::Str(s), Val::Str(f)) if prefix => Ok(Val::Bool(s.starts_with(&**f))),
        (Val::Str(s), Val::Str(f)) => Ok(Val::Bool(s.ends_with(&**f))),
        _ if prefix => Err(err("startswith() requires string inputs")),
        _ => Err(err("endswith() requires string inputs")),
    }
}

fn split1(v: &Val, sep: &Val) -> Res<Val> {
    match (v, sep) {
        (Val::Str(s), Val::Str(sep)) => Ok(Val::arr(split_str(s, sep))),
        _ => Err(err("split input and separator must be strings")),
    }
}

fn strindices(v: &Val, needle: &Val) -> Res<Val> {
    match (v, needle) {
        (Val::Str(s), Val::Str(n)) => Ok(strings::strindices(s, n)),
        (Val::Arr(a), Val::Arr(b)) => Ok(Val::arr(subarray_indices(a, b))),
        (Val::Str(_), _) => Err(err(format!("{} is not a string", needle.describe()))),
        _ => Err(err(format!(
            "{} cannot be searched, as it is not a string",
            v.describe()
        ))),
    }
}

fn match_impl(mut cv: Cvj<'_>) -> Out<'_> {
    let test = cv.0.pop_var();
    let flags = cv.0.pop_var();
    let re = cv.0.pop_var();
    bome(strings::match_impl(&cv.1, &re, &flags, test.as_bool_jq()))
}

fn setpath(mut cv: Cvj<'_>) -> Out<'_> {
    let value = cv.0.pop_var();
    let path = cv.0.pop_var();
    bome(paths::setpath(cv.1, &path, value))
}

fn bsearch(v: &Val, x: &Val) -> Res<Val> {
    let Val::Arr(a) = v else {
        return Err(err(format!("{} cannot be searched from", v.describe())));
    };
    let i = match a.binary_search(x) {
        Ok(i) => i as f64,
        Err(i) => -1.0 - i as f64,
    };
    Ok(Val::num(i))
}

fn range(mut cv: Cvj<'_>) -> Out<'_> {
    let by = cv.0.pop_var();
    let upto = cv.0.pop_var();
    let from = cv.0.pop_var();
    let (Some(mut x), Some(to), Some(step)) = (from.as_f64(), upto.as_f64(), by.as_f64()) else {
        return bome(Err(err("Range bounds must be numeric")));
    };
    if step == 0.0 {
        return Box::new(std::iter::empty());
    }
    let mut first = Some(from);
    Box::new(std::iter::from_fn(move || {
        let more = if step > 0.0 { x < to } else { x > to };
        if !more {
            return None;
        }
        if crate::task::out_of_time() {
            return Some(Err(out_of_time().into()));
        }
        let out = first.take().unwrap_or_else(|| Val::num(x));
        x += step;
        Some(Ok(out))
    }))
}

/// The error that ends a loop of values that never reaches the output (`last(range(1e12))`)
/// once the execution's deadline has passed: the shell then reports the timeout.
fn out_of_time() -> jaq_core::Error<Val> {
    err("the execution's time limit was exceeded")
}

fn shared<'a>(cv: &Cvj<'a>) -> &'a std::cell::RefCell<super::engine::Shared> {
    cv.0.data().shared
}

fn modulemeta(cv: Cvj<'_>) -> Out<'_> {
    let meta = shared(&cv).borrow().modules.meta(&cv.1);
    bome(meta.map_err(err))
}

fn input(cv: Cvj<'_>) -> Out<'_> {
    let next = shared(&cv).borrow_mut().next_input();
    bome(next.map_err(err))
}

fn inputs(cv: Cvj<'_>) -> Out<'_> {
    let cell = shared(&cv);
    Box::new(std::iter::from_fn(move || {
        match cell.borrow_mut().next_input() {
            Ok(v) => Some(Ok(v)),
            Err(e) if e == "break" => None,
            Err(e) => Some(Err(Exn::from(err(e)))),
        }
    }))
}

fn input_filename(cv: Cvj<'_>) -> Out<'_> {
    let name = shared(&cv).borrow().filename.clone();
    bome(Ok(name.map_or(Val::Null, Val::from)))
}

fn input_line_number(cv: Cvj<'_>) -> Out<'_> {
    let line = shared(&cv)
        .borrow()
        .inputs
        .position
        .as_ref()
        .map_or(0, |p| p.1);
    bome(Ok(Val::num(line as f64)))
}

fn debug(cv: Cvj<'_>) -> Out<'_> {
    let line = format!("[\"DEBUG:\",{}]\n", cv.1.to_json());
    shared(&cv)
        .borrow_mut()
        .stderr
        .extend_from_slice(line.as_bytes());
    bome(Ok(cv.1))
}

fn stderr(cv: Cvj<'_>) -> Out<'_> {
    let text = cv.1.to_json();
    shared(&cv)
        .borrow_mut()
        .stderr
        .extend_from_slice(text.as_bytes());
    bome(Ok(cv.1))
}

fn halt_error(mut cv: Cvj<'_>) -> Out<'_> {
    let code = cv.0.pop_var();
    let Some(code) = code.as_f64() else {
        return bome(Err(err("halt_error/1: number required")));
    };
    let message = match &cv.1 {
        Val::Str(s) => s.to_string(),
        Val::Null => String::new(),
        v => format!("{}\n", v.to_json()),
    };
    shared(&cv)
        .borrow_mut()
        .stderr
        .extend_from_slice(message.as_bytes());
    box_once(Err(Exn::halt(code as i32)))
}

fn now(cv: Cvj<'_>) -> Out<'_> {
    let now = shared(&cv).borrow().now;
    bome(Ok(Val::num(now)))
}

/// `last(f)`: the last output of `f`, or null (jq 1.7) when it has none.
fn last(mut cv: Cvj<'_>) -> Out<'_> {
    let (f, fc) = cv.0.pop_fun();
    let mut last = None;
    for out in f.run((fc, cv.1)) {
        if crate::task::out_of_time() {
            return box_once(Err(out_of_time().into()));
        }
        match out {
            Ok(v) => last = Some(v),
            Err(e) => return box_once(Err(e)),
        }
    }
    Box::new(last.map(Ok).into_iter())
}

impl Val {
    /// jq truthiness (not null, not false).
    fn as_bool_jq(&self) -> bool {
        !matches!(self, Val::Null | Val::Bool(false))
    }
}

/// A `{key: value}` object from pairs (for tests and `$__loc__`).
pub fn object(pairs: Vec<(&str, Val)>) -> Val {
    let map: Map = pairs.into_iter().map(|(k, v)| (Rc::from(k), v)).collect();
    Val::Obj(Rc::new(map))
}
