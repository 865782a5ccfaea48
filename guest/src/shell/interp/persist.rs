//! Saving and restoring a session (cwd, variables with arrays and attributes, functions as
//! source text, options, positional parameters, traps), so the host can recover it after a
//! crash and copy it for `fork()`. The format is JSON; restoring validates everything before
//! changing the session.
//!
//! The session is saved after every execution that ran shell code, into the reply to the host
//! (an execution that ran none left it as it was): saving borrows the
//! session's strings and writes them once, straight into the reply, so it needs no more memory
//! than the saved bytes themselves (at most [`ONE_PASS`] bytes more for a small session).
//! [`bound`] keeps those bytes under [`MAX_SESSION`].

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::assoc::Assoc;
use super::state::{is_name, Attrs, Options, State, Value, Var};
use super::unparse;
use crate::limits::{MAX_SAVED_SESSION, MAX_SESSION};
use crate::protocol::{FrameWriter, Range};
use crate::shell::ast::CommandKind;

const VERSION: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Saved<'a> {
    version: u32,
    cwd: Cow<'a, str>,
    arg0: Cow<'a, str>,
    positional: Cow<'a, [String]>,
    status: i32,
    options: Vec<String>,
    vars: Vec<SavedVar<'a>>,
    functions: Vec<SavedFunction>,
    traps: Cow<'a, BTreeMap<String, String>>,
    dirstack: Cow<'a, [String]>,
}

/// Strings are borrowed when saving; restoring owns them (`Cow` deserializes as owned).
#[derive(Serialize, Deserialize)]
struct SavedVar<'a> {
    name: Cow<'a, str>,
    attrs: String,
    #[serde(default)]
    scalar: Option<Cow<'a, str>>,
    #[serde(default)]
    indexed: Option<Vec<(i64, Cow<'a, str>)>>,
    #[serde(default)]
    assoc: Option<Vec<(Cow<'a, str>, Cow<'a, str>)>>,
}

#[derive(Serialize, Deserialize)]
struct SavedFunction {
    name: String,
    source: String,
}

const OPTION_NAMES: &[&str] = &[
    "errexit",
    "functrace",
    "nounset",
    "pipefail",
    "xtrace",
    "noglob",
    "noclobber",
    "allexport",
    "verbose",
    "nullglob",
    "extglob",
    "failglob",
    "dotglob",
    "nocaseglob",
    "nocasematch",
    "globstar",
    "lastpipe",
    "expand_aliases",
    "posix",
];

fn attrs_text(a: Attrs) -> String {
    [
        (a.export, 'x'),
        (a.readonly, 'r'),
        (a.integer, 'i'),
        (a.lower, 'l'),
        (a.upper, 'u'),
        (a.array, 'a'),
        (a.assoc, 'A'),
        (a.nameref, 'n'),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .map(|(_, c)| *c)
    .collect()
}

fn attrs_parse(s: &str) -> Result<Attrs, String> {
    let mut a = Attrs::default();
    for c in s.chars() {
        match c {
            'x' => a.export = true,
            'r' => a.readonly = true,
            'i' => a.integer = true,
            'l' => a.lower = true,
            'u' => a.upper = true,
            'a' => a.array = true,
            'A' => a.assoc = true,
            'n' => a.nameref = true,
            other => return Err(format!("unknown attribute {other:?}")),
        }
    }
    Ok(a)
}

/// The session as bytes.
pub fn save(state: &State) -> Vec<u8> {
    serde_json::to_vec(&saved(state)).unwrap_or_default()
}

/// Appends the saved session to `writer`'s blob, written once in place; returns its range.
pub fn save_to(state: &State, writer: &mut FrameWriter) -> Range {
    let saved = saved(state);
    write_saved(&saved, json_size(&saved), writer)
}

/// A session that [`most_bytes`] puts at this size or less (a fresh one: ~11 KB for 2.7 KB
/// saved) is written in one pass, into room for that many bytes; a larger one is measured
/// first (a pass that took ~8 % of `echo hi`'s guest time), so that its bytes are allocated
/// once, and exactly.
const ONE_PASS: usize = 64 << 10;

/// [`save_to`] after [`bound`]: the session is measured once, and bounded only when it is
/// over [`MAX_SESSION`]. Returns its range and what [`bound`] dropped, if anything.
pub fn save_bounded_to(state: &mut State, writer: &mut FrameWriter) -> (Range, Option<String>) {
    let total = {
        let saved = saved(state);
        let most = most_bytes(&saved);
        if most <= ONE_PASS {
            return (write_saved(&saved, most, writer), None);
        }
        let size = json_size(&saved);
        if size <= MAX_SESSION {
            return (write_saved(&saved, size, writer), None);
        }
        size
    };
    let dropped = bound(state, total);
    (save_to(state, writer), Some(dropped))
}

fn write_saved(saved: &Saved<'_>, size: usize, writer: &mut FrameWriter) -> Range {
    writer.push_with(size, |blob| {
        // Writing our own plain structs into a Vec cannot fail.
        let _ = serde_json::to_writer(blob, saved);
    })
}

/// The session as [`Saved`], borrowing its strings.
fn saved(state: &State) -> Saved<'_> {
    let mut opts = state.opts.clone();
    let options = OPTION_NAMES
        .iter()
        .filter(|n| opts.flag(n).is_some_and(|f| *f))
        .map(|n| n.to_string())
        .collect();
    let mut vars: Vec<SavedVar<'_>> = state.globals.iter().map(saved_var).collect();
    crate::sort::sort_by(&mut vars, |a, b| a.name.cmp(&b.name));
    let functions = state
        .funcs
        .iter()
        .map(|(name, body)| SavedFunction {
            name: name.clone(),
            source: unparse::function(name, body),
        })
        .collect();
    Saved {
        version: VERSION,
        cwd: Cow::Borrowed(&state.cwd),
        arg0: Cow::Borrowed(&state.arg0),
        positional: Cow::Borrowed(&state.positional),
        status: state.status,
        options,
        vars,
        functions,
        traps: Cow::Borrowed(&state.traps),
        dirstack: Cow::Borrowed(&state.dirstack),
    }
}

fn saved_var<'a>((name, var): (&'a String, &'a Var)) -> SavedVar<'a> {
    let mut saved = SavedVar {
        name: Cow::Borrowed(name),
        attrs: attrs_text(var.attrs),
        scalar: None,
        indexed: None,
        assoc: None,
    };
    match &var.value {
        Some(Value::Str(s)) => saved.scalar = Some(Cow::Borrowed(s)),
        Some(Value::Indexed(map)) => {
            saved.indexed = Some(map.iter().map(|(k, v)| (*k, Cow::Borrowed(&**v))).collect())
        }
        Some(Value::Assoc(map)) => {
            let items = map
                .iter()
                .map(|(k, v)| (Cow::Borrowed(&**k), Cow::Borrowed(&**v)));
            saved.assoc = Some(items.collect())
        }
        None => {}
    }
    saved
}

/// At least the bytes of `saved` as JSON, without writing it: each string escaped at worst
/// (`\u0001`: six bytes a byte) and `ITEM` bytes of names, numbers and punctuation around it.
fn most_bytes(saved: &Saved<'_>) -> usize {
    const ITEM: usize = 128;
    let text = |s: &str| 6 * s.len() + ITEM;
    let var = |v: &SavedVar<'_>| {
        let indexed = v.indexed.iter().flatten().map(|(_, s)| text(s));
        let assoc = v.assoc.iter().flatten().map(|(k, s)| text(k) + text(s));
        text(&v.name)
            + text(&v.attrs)
            + v.scalar.as_deref().map_or(0, text)
            + indexed.sum::<usize>()
            + assoc.sum::<usize>()
    };
    let lists = saved.positional.iter().chain(saved.dirstack.iter());
    let functions = saved
        .functions
        .iter()
        .map(|f| text(&f.name) + text(&f.source));
    let traps = saved.traps.iter().map(|(k, v)| text(k) + text(v));
    text(&saved.cwd)
        + text(&saved.arg0)
        + ITEM
        + saved.options.iter().map(|s| text(s)).sum::<usize>()
        + lists.map(|s| text(s)).sum::<usize>()
        + saved.vars.iter().map(var).sum::<usize>()
        + functions.sum::<usize>()
        + traps.sum::<usize>()
}

/// Bytes of `value` as JSON, counted without keeping them.
fn json_size<T: Serialize>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// Keeps the saved session, `total` bytes now (over [`MAX_SESSION`]), within [`MAX_SESSION`]
/// bytes: unsets the global variables (readonly ones too) that take the most room, then, if
/// that is not enough, forgets the positional parameters and the directory stack. Returns the
/// message naming what was dropped.
fn bound(state: &mut State, mut total: usize) -> String {
    let mut sizes: Vec<(usize, String)> = saved(state)
        .vars
        .iter()
        .map(|var| (json_size(var) + 1, var.name.to_string()))
        .collect();
    crate::sort::sort_by(&mut sizes, |a, b| b.cmp(a));
    let mut dropped = Vec::new();
    for (bytes, name) in sizes {
        if total <= MAX_SESSION {
            break;
        }
        state.globals.remove(&name);
        total = total.saturating_sub(bytes);
        dropped.push(format!("{name} ({bytes} bytes)"));
    }
    if total > MAX_SESSION {
        state.positional.clear();
        state.dirstack.clear();
        dropped.push("the positional parameters and the directory stack".into());
    }
    format!(
        "bash: the session's variables took more than {MAX_SESSION} bytes (saved as JSON), the \
         most kept between executions; unset {}; keep large data in files \
         (cmd > /tmp/data.txt)",
        dropped.join(", ")
    )
}

/// Replaces the session with a saved one; on error the session is unchanged.
pub fn restore(state: &mut State, bytes: &[u8]) -> Result<(), String> {
    if bytes.len() > MAX_SAVED_SESSION {
        return Err("saved shell state is too large".into());
    }
    let saved: Saved =
        serde_json::from_slice(bytes).map_err(|e| format!("invalid saved shell state: {e}"))?;
    if saved.version != VERSION {
        return Err(format!(
            "unsupported saved shell state version {}",
            saved.version
        ));
    }
    if !saved.cwd.starts_with('/') {
        return Err("invalid saved shell state: cwd is not absolute".into());
    }
    let mut fresh = State::new(Rc::clone(&state.clock));
    fresh.globals.clear();
    for v in saved.vars {
        if !is_name(&v.name) {
            return Err(format!(
                "invalid saved shell state: bad variable name {:?}",
                v.name
            ));
        }
        let attrs = attrs_parse(&v.attrs)?;
        let value = match (v.scalar, v.indexed, v.assoc) {
            (Some(s), None, None) => Some(Value::Str(s.into_owned())),
            (None, Some(items), None) => {
                // `extend`, not `collect`: collecting into a map compiles a sort per call site.
                let mut map = BTreeMap::new();
                map.extend(items.into_iter().map(|(k, v)| (k, v.into_owned())));
                Some(Value::Indexed(Rc::new(map)))
            }
            (None, None, Some(items)) => {
                let mut map = Assoc::default();
                for (k, val) in items {
                    map.insert(k.into_owned(), val.into_owned());
                }
                Some(Value::Assoc(Rc::new(map)))
            }
            (None, None, None) => None,
            _ => {
                return Err(format!(
                    "invalid saved shell state: variable {} has two values",
                    v.name
                ))
            }
        };
        fresh
            .globals
            .insert(v.name.into_owned(), Var { value, attrs });
    }
    for f in saved.functions {
        let program = crate::shell::parse(&f.source)
            .map_err(|e| format!("invalid saved function {}: {e}", f.name))?;
        let body = program
            .items
            .first()
            .and_then(|item| item.and_or.first.commands.first())
            .and_then(|c| match &c.kind {
                CommandKind::Function(def) if def.name == f.name => Some(def.body.clone()),
                _ => None,
            })
            .ok_or_else(|| format!("invalid saved function {}", f.name))?;
        fresh.funcs.insert(f.name, Rc::new(*body));
    }
    let mut opts = Options::default();
    for name in &saved.options {
        match opts.flag(name) {
            Some(flag) => *flag = true,
            None => {
                return Err(format!(
                    "invalid saved shell state: unknown option {name:?}"
                ))
            }
        }
    }
    fresh.opts = opts;
    fresh.cwd = saved.cwd.into_owned();
    fresh.arg0 = saved.arg0.into_owned();
    fresh.positional = saved.positional.into_owned();
    fresh.status = saved.status;
    fresh.traps = saved.traps.into_owned();
    fresh.dirstack = saved.dirstack.into_owned();
    fresh.random = Rc::clone(&state.random);
    fresh.start_ms = state.start_ms;
    *state = fresh;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::interp::state::Key;

    fn state() -> State {
        State::new(Rc::new(|| 1_700_000_000_000.0))
    }

    #[test]
    fn saving_in_place_matches_and_the_bound_counts_saved_bytes() {
        let mut s = state();
        assert_eq!(s.assign("small", "x \" y".into(), false), Ok(()));
        let mut writer = FrameWriter::default();
        let range = save_to(&s, &mut writer);
        let frame = writer.finish(&serde_json::json!({"data": range}));
        let decoded = crate::protocol::Frame::decode(&frame).expect("frame");
        assert_eq!(decoded.bytes(range).ok(), Some(&save(&s)[..]));
        // A control character takes six bytes saved (\u0001): what the bound counts.
        let big = "\u{1}".repeat(MAX_SESSION / 6 + 1);
        assert_eq!(s.assign("big", big, false), Ok(()));
        let (_, message) = save_bounded_to(&mut s, &mut FrameWriter::default());
        let message = message.unwrap_or_default();
        assert!(message.contains("unset big ("), "{message}");
        assert_eq!(
            (s.get("big"), s.get("small").as_deref()),
            (None, Some("x \" y"))
        );
        let (range, message) = save_bounded_to(&mut s, &mut FrameWriter::default());
        assert_eq!((range.1 as usize, message), (save(&s).len(), None));
    }

    #[test]
    fn most_bytes_is_at_least_the_saved_size() {
        let mut s = state();
        let worst = "\u{1}\"\\".repeat(50);
        assert_eq!(s.assign("v", worst.clone(), false), Ok(()));
        let elements = vec![
            (Some(Key::Index(i64::MIN)), worst.clone()),
            (None, String::new()),
        ];
        assert_eq!(s.assign_array("arr", elements, false), Ok(()));
        s.positional = vec![worst.clone(), String::new()];
        s.dirstack = vec![worst.clone()];
        s.traps.insert("EXIT".into(), worst.clone());
        s.cwd = worst;
        s.status = i32::MIN;
        s.opts.errexit = true;
        let program = crate::shell::parse("f() { echo \"\x01\"; }").expect("parses");
        if let CommandKind::Function(def) = &program.items[0].and_or.first.commands[0].kind {
            s.funcs.insert("f".into(), Rc::new((*def.body).clone()));
        }
        let saved = saved(&s);
        assert!(most_bytes(&saved) >= json_size(&saved));
        assert!(most_bytes(&super::saved(&state())) <= ONE_PASS);
    }

    #[test]
    fn a_session_is_saved_alike_below_and_above_the_one_pass_size() {
        let mut s = state();
        for value in ["x".repeat(10), "\u{1}é".repeat(ONE_PASS / 4)] {
            assert_eq!(s.assign("v", value, false), Ok(()));
            let mut writer = FrameWriter::default();
            let _ = writer.push(b"before");
            let (range, message) = save_bounded_to(&mut s, &mut writer);
            let frame = writer.finish(&serde_json::json!({"data": range}));
            let decoded = crate::protocol::Frame::decode(&frame).expect("frame");
            assert_eq!((range.0, message), (6, None)); // right after "before"
            assert_eq!(decoded.bytes(range).ok(), Some(&save(&s)[..]));
        }
    }

    #[test]
    fn round_trip_and_garbage() {
        let mut s = state();
        assert_eq!(s.assign("x", "a b".into(), false), Ok(()));
        let elements = vec![(None, "1".into()), (Some(Key::Index(5)), "2".into())];
        assert_eq!(s.assign_array("arr", elements, false), Ok(()));
        s.opts.errexit = true;
        s.cwd = "/tmp".into();
        let program = crate::shell::parse("f() { echo \"$1\" | tr a b; }").expect("parses");
        if let CommandKind::Function(def) = &program.items[0].and_or.first.commands[0].kind {
            s.funcs.insert("f".into(), Rc::new((*def.body).clone()));
        }
        let bytes = save(&s);
        let mut t = state();
        assert_eq!(restore(&mut t, &bytes), Ok(()));
        assert_eq!(t.get("x").as_deref(), Some("a b"));
        assert_eq!(t.element("arr", &Key::Index(5)).as_deref(), Some("2"));
        assert!(t.opts.errexit && t.cwd == "/tmp" && t.funcs.contains_key("f"));
        assert_eq!(save(&t), bytes);
        for garbage in [&b""[..], b"{}", b"\xff\x00", b"{\"version\":1}", b"[1,2]"] {
            let before = save(&t);
            assert!(restore(&mut t, garbage).is_err());
            assert_eq!(save(&t), before);
        }
    }
}
