//! Saving and restoring a session (cwd, variables with arrays and attributes, functions as
//! source text, options, positional parameters, traps), so the host can recover it after a
//! crash and copy it for `fork()`. The format is JSON; restoring validates everything before
//! changing the session.

use std::collections::BTreeMap;
use std::rc::Rc;

use serde::{Deserialize, Serialize};

use super::assoc::Assoc;
use super::state::{is_name, Attrs, Options, State, Value, Var};
use super::unparse;
use crate::shell::ast::CommandKind;

const VERSION: u32 = 1;
/// Largest saved session accepted.
const MAX_BYTES: usize = 256 << 20;

#[derive(Serialize, Deserialize)]
struct Saved {
    version: u32,
    cwd: String,
    arg0: String,
    positional: Vec<String>,
    status: i32,
    options: Vec<String>,
    vars: Vec<SavedVar>,
    functions: Vec<SavedFunction>,
    traps: BTreeMap<String, String>,
    dirstack: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct SavedVar {
    name: String,
    attrs: String,
    #[serde(default)]
    scalar: Option<String>,
    #[serde(default)]
    indexed: Option<Vec<(i64, String)>>,
    #[serde(default)]
    assoc: Option<Vec<(String, String)>>,
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
    "failglob",
    "dotglob",
    "nocaseglob",
    "nocasematch",
    "globstar",
    "lastpipe",
    "expand_aliases",
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
    let mut opts = state.opts.clone();
    let options = OPTION_NAMES
        .iter()
        .filter(|n| opts.flag(n).is_some_and(|f| *f))
        .map(|n| n.to_string())
        .collect();
    let mut vars: Vec<SavedVar> = state
        .globals
        .iter()
        .map(|(name, var)| {
            let mut saved = SavedVar {
                name: name.clone(),
                attrs: attrs_text(var.attrs),
                scalar: None,
                indexed: None,
                assoc: None,
            };
            match &var.value {
                Some(Value::Str(s)) => saved.scalar = Some(s.clone()),
                Some(Value::Indexed(map)) => {
                    saved.indexed = Some(map.iter().map(|(k, v)| (*k, v.clone())).collect())
                }
                Some(Value::Assoc(map)) => {
                    saved.assoc = Some(map.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                }
                None => {}
            }
            saved
        })
        .collect();
    vars.sort_by(|a, b| a.name.cmp(&b.name));
    let functions = state
        .funcs
        .iter()
        .map(|(name, body)| SavedFunction {
            name: name.clone(),
            source: unparse::function(name, body),
        })
        .collect();
    let saved = Saved {
        version: VERSION,
        cwd: state.cwd.clone(),
        arg0: state.arg0.clone(),
        positional: state.positional.clone(),
        status: state.status,
        options,
        vars,
        functions,
        traps: state.traps.clone(),
        dirstack: state.dirstack.clone(),
    };
    serde_json::to_vec(&saved).unwrap_or_default()
}

/// Replaces the session with a saved one; on error the session is unchanged.
pub fn restore(state: &mut State, bytes: &[u8]) -> Result<(), String> {
    if bytes.len() > MAX_BYTES {
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
            (Some(s), None, None) => Some(Value::Str(s)),
            (None, Some(items), None) => Some(Value::Indexed(Rc::new(items.into_iter().collect()))),
            (None, None, Some(items)) => {
                let mut map = Assoc::default();
                for (k, val) in items {
                    map.insert(k, val);
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
        fresh.globals.insert(v.name, Var { value, attrs });
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
    fresh.cwd = saved.cwd;
    fresh.arg0 = saved.arg0;
    fresh.positional = saved.positional;
    fresh.status = saved.status;
    fresh.traps = saved.traps;
    fresh.dirstack = saved.dirstack;
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
