//! Saving and restoring a session (cwd, variables with arrays and attributes, functions as
//! source text, options, positional parameters, traps), so the host can recover it after a
//! crash and copy it for `fork()`. The format is JSON; restoring validates everything before
//! changing the session.
//!
//! The session is saved after every execution that ran shell code, into the reply to the host
//! (an execution that ran none left it as it was): saving measures the session, then writes
//! it once, straight into the reply. Each small variable and function keeps its JSON in a
//! [`Cache`] between saves, so an execution pays for formatting only what it changed.
//! [`bound`] keeps the saved bytes under [`MAX_SESSION`].

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::assoc::Assoc;
use super::state::{is_name, Attrs, Function, Options, State, Value, Var};
use super::unparse;
use crate::limits::{MAX_SAVED_SESSION, MAX_SESSION};
use crate::protocol::{FrameWriter, Range};
use crate::shell::ast::CommandKind;
use crate::sort::{cmp_bytes, eq_bytes};

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
    /// The `shopt` options set against the way bash starts that are not in `options`
    /// (`autocd` on, `sourcepath` or `globskipdots` off).
    #[serde(default)]
    flipped: Vec<Cow<'a, str>>,
    #[serde(default)]
    readonly_functions: Cow<'a, BTreeSet<String>>,
    #[serde(default = "default_umask")]
    umask: u32,
}

fn default_umask() -> u32 {
    0o022
}

/// [`Saved::flipped`] of `state`.
fn flipped(state: &State) -> Vec<Cow<'_, str>> {
    let mut names: Vec<Cow<'_, str>> = state
        .shopt_flipped
        .iter()
        .map(|n| Cow::Borrowed(&**n))
        .collect();
    if !state.opts.globskipdots {
        names.push(Cow::Borrowed("globskipdots"));
    }
    names
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
    let mut cache = Cache::default();
    cache.refresh(state);
    let mut out = Vec::new();
    write_session(state, &cache, &mut out);
    out
}

/// Appends the saved session to `writer`'s blob, written once in place; returns its range.
pub fn save_to(state: &State, cache: &mut Cache, writer: &mut FrameWriter) -> Range {
    cache.refresh(state);
    let size = session_size(state, cache);
    writer.push_with(size, |blob| write_session(state, cache, blob))
}

/// [`save_to`] after [`bound`]: the session is measured once, and bounded only when it is
/// over [`MAX_SESSION`]. Returns its range and what [`bound`] dropped, if anything.
pub fn save_bounded_to(
    state: &mut State,
    cache: &mut Cache,
    writer: &mut FrameWriter,
) -> (Range, Option<String>) {
    cache.refresh(state);
    let size = session_size(state, cache);
    if size <= MAX_SESSION {
        return (
            writer.push_with(size, |blob| write_session(state, cache, blob)),
            None,
        );
    }
    let dropped = bound(state, size);
    (save_to(state, cache, writer), Some(dropped))
}

/// A variable or function saved at most this many bytes keeps its JSON in the [`Cache`]
/// (with a copy of its value): bash's ~40 default variables take 2.7 KB in all.
const CACHE_MAX: usize = 4096;

/// The JSON of each global variable and function as the last save wrote it, with what it
/// was made from: saving after every execution copies what did not change instead of
/// formatting it again (~half of `echo hi`'s guest time). An entry is reused only while its
/// variable compares equal (or its function is the same `Rc`), so no change can go unseen.
/// (Sorted lists, not maps: a `BTreeMap` per value type grew the module by ~8 KB.)
#[derive(Default)]
pub struct Cache {
    /// Every global, sorted by name (the saved order); None for one too large to keep.
    vars: Entries<Var>,
    /// Every function, sorted by name.
    functions: Entries<Function>,
    /// Where the last refresh found each global and each function in its list, in the
    /// order the session's maps went through them: a map that did not change goes the
    /// same way, so one comparison finds each name instead of a binary search.
    hints: [Vec<usize>; 2],
}

/// What a name held when saved, with its saved JSON (None: not kept).
type Entry<T> = Option<(T, Vec<u8>)>;

/// Entries by name.
type Entries<T> = Vec<(String, Entry<T>)>;

impl Cache {
    /// Brings every entry up to date with `state`'s globals and functions.
    fn refresh(&mut self, state: &State) {
        let globals = &state.globals;
        let [var_hints, function_hints] = &mut self.hints;
        refresh(
            &mut self.vars,
            var_hints,
            globals,
            same_var,
            encode_var,
            &|n| globals.contains_key(n),
        );
        let funcs = &state.funcs;
        refresh(
            &mut self.functions,
            function_hints,
            funcs,
            Rc::ptr_eq,
            encode_function,
            &|n| funcs.contains_key(n),
        );
    }
}

/// Brings `list` up to date with `items`: an entry is kept while `same` finds its item
/// unchanged, else made again by `encode`; entries whose name `exists` no more go. `hints`
/// holds where each item was found the last time (see [`Cache`]).
fn refresh<'a, T: 'a>(
    list: &mut Entries<T>,
    hints: &mut Vec<usize>,
    items: impl IntoIterator<Item = (&'a String, &'a T)> + Copy,
    same: fn(&T, &T) -> bool,
    encode: fn(&str, &T) -> Entry<T>,
    exists: &dyn Fn(&str) -> bool,
) {
    let known = list.len();
    let mut count = 0;
    for (name, item) in items {
        let hint = hints.get(count).copied();
        count += 1;
        let found = match hint {
            Some(i) if i < known && eq_bytes(list[i].0.as_bytes(), name.as_bytes()) => Ok(i),
            _ => list[..known].binary_search_by(|(n, _)| cmp_bytes(n.as_bytes(), name.as_bytes())),
        };
        match found {
            Ok(i) => {
                match hints.get_mut(count - 1) {
                    Some(hint) => *hint = i,
                    None => hints.push(i),
                }
                let slot = &mut list[i].1;
                if !matches!(slot, Some((saved, _)) if same(saved, item)) {
                    *slot = encode(name, item);
                }
            }
            Err(_) => list.push((name.clone(), encode(name, item))),
        }
    }
    let added = list.len() > known;
    if list.len() != count {
        list.retain(|(name, _)| exists(name));
        hints.clear(); // the entries moved
    }
    if added {
        crate::sort::sort_by(list, |a, b| cmp_bytes(a.0.as_bytes(), b.0.as_bytes()));
        hints.clear();
    }
}

/// `var` with its JSON, when that is small enough to keep.
fn encode_var(name: &str, var: &Var) -> Entry<Var> {
    let text = match &var.value {
        Some(Value::Str(s)) => s.len(),
        Some(Value::Indexed(map)) => map.values().map(|v| v.len() + 8).sum(),
        Some(Value::Assoc(map)) => map.iter().map(|(k, v)| k.len() + v.len()).sum(),
        None => 0,
    };
    if text > CACHE_MAX / 6 {
        return None; // escaped, it might take six bytes a byte
    }
    let mut json = Vec::new();
    let _ = write_json(&mut json, &saved_var(name, var));
    Some((var.clone(), json))
}

/// The function with its JSON (name and source text).
fn encode_function(name: &str, body: &Function) -> Entry<Function> {
    let saved = SavedFunction {
        name: name.to_string(),
        source: unparse::function(name, body),
    };
    let mut json = Vec::new();
    let _ = write_json(&mut json, &saved);
    Some((Rc::clone(body), json))
}

/// Whether two variables save alike. An array is unchanged while it is still the one the
/// cache shares (a change copies it first: `Rc::make_mut`); comparing contents instead
/// grew the module by ~900 bytes.
fn same_var(a: &Var, b: &Var) -> bool {
    a.attrs == b.attrs
        && match (&a.value, &b.value) {
            (Some(Value::Str(x)), Some(Value::Str(y))) => eq_bytes(x.as_bytes(), y.as_bytes()),
            (Some(Value::Indexed(x)), Some(Value::Indexed(y))) => Rc::ptr_eq(x, y),
            (Some(Value::Assoc(x)), Some(Value::Assoc(y))) => Rc::ptr_eq(x, y),
            (None, None) => true,
            _ => false,
        }
}

/// Bytes of the saved session, counted without keeping them.
fn session_size(state: &State, cache: &Cache) -> usize {
    let mut count = Count(0);
    write_session(state, cache, &mut count);
    count.0
}

/// Writes the session as [`Saved`] would serialize, the cached parts copied: `cache` must
/// have been refreshed from `state`.
fn write_session(state: &State, cache: &Cache, out: &mut dyn Write) {
    // Writing our own plain values into a Vec or a counter cannot fail.
    let _ = try_write_session(state, cache, out);
}

fn try_write_session(state: &State, cache: &Cache, out: &mut dyn Write) -> io::Result<()> {
    let mut opts = state.opts.clone();
    let options: Vec<&str> = OPTION_NAMES
        .iter()
        .copied()
        .filter(|n| opts.flag(n).is_some_and(|f| *f))
        .collect();
    out.write_all(b"{\"version\":")?;
    write_json(out, &VERSION)?;
    out.write_all(b",\"cwd\":")?;
    write_json(out, &state.cwd)?;
    out.write_all(b",\"arg0\":")?;
    write_json(out, &state.arg0)?;
    out.write_all(b",\"positional\":")?;
    write_json(out, &state.positional)?;
    out.write_all(b",\"status\":")?;
    write_json(out, &state.status)?;
    out.write_all(b",\"options\":")?;
    write_json(out, &options)?;
    out.write_all(b",\"vars\":[")?;
    for (i, (name, entry)) in cache.vars.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        // Only a variable too large to keep is looked up (hashing every name was ~5 % of
        // `echo hi`'s guest time).
        if let Some((_, bytes)) = entry {
            out.write_all(bytes)?;
        } else if let Some((name, var)) = state.globals.get_key_value(name) {
            write_json(out, &saved_var(name, var))?;
        }
    }
    out.write_all(b"],\"functions\":[")?;
    for (i, (_, entry)) in cache.functions.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        if let Some((_, bytes)) = entry {
            out.write_all(bytes)?;
        }
    }
    out.write_all(b"],\"traps\":")?;
    write_json(out, &state.traps)?;
    out.write_all(b",\"dirstack\":")?;
    write_json(out, &state.dirstack)?;
    out.write_all(b",\"flipped\":")?;
    write_json(out, &flipped(state))?;
    out.write_all(b",\"readonly_functions\":")?;
    write_json(out, &state.readonly_funcs)?;
    out.write_all(b",\"umask\":")?;
    write_json(out, &state.umask)?;
    out.write_all(b"}")
}

/// Writes `value` as JSON (always through `dyn Write`: one serializer in the module).
fn write_json<T: Serialize + ?Sized>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer(out, value).map_err(io::Error::from)
}

/// The session as [`Saved`], borrowing its strings: what [`write_session`] must write.
#[cfg(test)]
fn saved(state: &State) -> Saved<'_> {
    let mut opts = state.opts.clone();
    let options = OPTION_NAMES
        .iter()
        .filter(|n| opts.flag(n).is_some_and(|f| *f))
        .map(|n| n.to_string())
        .collect();
    let mut vars: Vec<SavedVar<'_>> = state
        .globals
        .iter()
        .map(|(name, var)| saved_var(name, var))
        .collect();
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
        flipped: flipped(state),
        readonly_functions: Cow::Borrowed(&state.readonly_funcs),
        umask: state.umask,
    }
}

fn saved_var<'a>(name: &'a str, var: &'a Var) -> SavedVar<'a> {
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

/// Counts the bytes written to it.
struct Count(usize);

impl Write for Count {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Bytes of `value` as JSON, counted without keeping them.
fn json_size<T: Serialize>(value: &T) -> usize {
    let mut count = Count(0);
    let _ = write_json(&mut count, value);
    count.0
}

/// Keeps the saved session, `total` bytes now (over [`MAX_SESSION`]), within [`MAX_SESSION`]
/// bytes: unsets the global variables (readonly ones too) that take the most room, then, if
/// that is not enough, forgets the positional parameters and the directory stack. Returns the
/// message naming what was dropped.
fn bound(state: &mut State, mut total: usize) -> String {
    let mut sizes: Vec<(usize, String)> = state
        .globals
        .iter()
        .map(|(name, var)| (json_size(&saved_var(name, var)) + 1, name.clone()))
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
    let mut opts = Options::initial();
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
    for name in saved.flipped {
        if name.is_empty() || !name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()) {
            return Err(format!(
                "invalid saved shell state: bad option name {name:?}"
            ));
        }
        fresh.set_shopt(&name, !fresh.shopt_value(&name));
    }
    fresh.readonly_funcs = saved.readonly_functions.into_owned();
    fresh.umask = saved.umask & 0o777;
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

    /// The session saved through `cache` (kept between saves), checked against [`Saved`]'s
    /// own serialization.
    fn saved_through(s: &mut State, cache: &mut Cache) -> Vec<u8> {
        let mut writer = FrameWriter::default();
        let _ = writer.push(b"before");
        let (range, message) = save_bounded_to(s, cache, &mut writer);
        let frame = writer.finish(&serde_json::json!({"data": range}));
        let decoded = crate::protocol::Frame::decode(&frame).expect("frame");
        assert_eq!((range.0, message), (6, None)); // right after "before"
        let bytes = decoded.bytes(range).map(<[u8]>::to_vec).unwrap_or_default();
        let expected = serde_json::to_vec(&saved(s)).unwrap_or_default();
        assert_eq!(
            String::from_utf8_lossy(&bytes),
            String::from_utf8_lossy(&expected)
        );
        bytes
    }

    fn define(s: &mut State, source: &str) {
        let program = crate::shell::parse(source).expect("parses");
        if let CommandKind::Function(def) = &program.items[0].and_or.first.commands[0].kind {
            s.funcs
                .insert(def.name.clone(), Rc::new((*def.body).clone()));
        }
    }

    #[test]
    fn saving_in_place_matches_and_the_bound_counts_saved_bytes() {
        let mut s = state();
        let mut cache = Cache::default();
        assert_eq!(s.assign("small", "x \" y".into(), false), Ok(()));
        assert_eq!(saved_through(&mut s, &mut cache), save(&s));
        // A control character takes six bytes saved (\u0001): what the bound counts.
        let big = "\u{1}".repeat(MAX_SESSION / 6 + 1);
        assert_eq!(s.assign("big", big, false), Ok(()));
        let (_, message) = save_bounded_to(&mut s, &mut cache, &mut FrameWriter::default());
        let message = message.unwrap_or_default();
        assert!(message.contains("unset big ("), "{message}");
        assert_eq!(
            (s.get("big"), s.get("small").as_deref()),
            (None, Some("x \" y"))
        );
        assert_eq!(saved_through(&mut s, &mut cache), save(&s));
    }

    #[test]
    fn every_change_is_saved_through_the_cache() {
        let mut s = state();
        let mut cache = Cache::default();
        let worst = "\u{1}\"\\é".repeat(50);
        type Step<'a> = Box<dyn Fn(&mut State) + 'a>;
        let steps: Vec<Step<'_>> = vec![
            Box::new(|_| {}),
            Box::new(|s| assert_eq!(s.assign("v", worst.clone(), false), Ok(()))),
            Box::new(|s| assert_eq!(s.assign("v", "w".into(), true), Ok(()))),
            Box::new(|s| {
                let elements = vec![
                    (Some(Key::Index(i64::MIN)), worst.clone()),
                    (None, "".into()),
                ];
                assert_eq!(s.assign_array("arr", elements, false), Ok(()));
            }),
            Box::new(|s| {
                assert_eq!(
                    s.assign_element("arr", Key::Index(3), "e".into(), false),
                    Ok(())
                )
            }),
            Box::new(|s| assert_eq!(s.unset_element("arr", &Key::Index(3)), Ok(()))),
            Box::new(|s| {
                assert_eq!(s.assign_array("m", vec![], false), Ok(()));
                s.var_entry("m").attrs.export = true;
            }),
            Box::new(|s| assert_eq!(s.unset("v"), Ok(()))),
            // The same names, likely in another order: the map grew and shrank (hints miss).
            Box::new(|s| {
                for i in 0..200 {
                    assert_eq!(s.assign(&format!("t{i}"), "t".into(), false), Ok(()));
                }
                for i in 0..200 {
                    assert_eq!(s.unset(&format!("t{i}")), Ok(()));
                }
            }),
            Box::new(|s| s.set_last_arg("last")),
            Box::new(|s| s.var_entry("PATH").attrs.readonly = true),
            Box::new(|s| assert_eq!(s.assign("big", "\u{1}".repeat(CACHE_MAX), false), Ok(()))),
            Box::new(|s| assert_eq!(s.assign("big", "small now".into(), false), Ok(()))),
            Box::new(|s| define(s, "f() { echo \"\x01\"; }")),
            Box::new(|s| define(s, "g() { echo g; }")),
            Box::new(|s| define(s, "f() { echo redefined; }")),
            Box::new(|s| {
                s.funcs.remove("g");
            }),
            Box::new(|s| {
                s.positional = vec![worst.clone(), String::new()];
                s.dirstack = vec![worst.clone()];
                s.traps.insert("EXIT".into(), worst.clone());
                s.cwd = worst.clone();
                s.status = i32::MIN;
                s.opts.errexit = true;
            }),
            Box::new(|s| s.reset()),
        ];
        for step in steps {
            step(&mut s);
            saved_through(&mut s, &mut cache);
        }
    }

    #[test]
    fn round_trip_and_garbage() {
        let mut s = state();
        assert_eq!(s.assign("x", "a b".into(), false), Ok(()));
        let elements = vec![(None, "1".into()), (Some(Key::Index(5)), "2".into())];
        assert_eq!(s.assign_array("arr", elements, false), Ok(()));
        s.opts.errexit = true;
        s.set_shopt("autocd", true);
        s.set_shopt("sourcepath", false);
        s.set_shopt("globskipdots", false);
        s.readonly_funcs.insert("f".into());
        s.umask = 0o077;
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
        let shopts = ["autocd", "sourcepath", "globskipdots"].map(|n| t.shopt_value(n));
        assert_eq!(shopts, [true, false, false]);
        assert!(t.readonly_funcs.contains("f") && t.umask == 0o077);
        assert_eq!(save(&t), bytes);
        let bad_option = br#"{"version":1,"cwd":"/","arg0":"","positional":[],"status":0,"options":[],"vars":[],"functions":[],"traps":{},"dirstack":[],"flipped":["a b"]}"#;
        for garbage in [
            &b""[..],
            b"{}",
            b"\xff\x00",
            b"{\"version\":1}",
            b"[1,2]",
            bad_option,
        ] {
            let before = save(&t);
            assert!(restore(&mut t, garbage).is_err());
            assert_eq!(save(&t), before);
        }
    }
}
