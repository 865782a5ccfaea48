//! `setpath` and `delpaths` with jq's rules (null grows into objects and arrays, arrays are
//! padded, several deletions apply from the last path to the first).

use std::rc::Rc;

use super::map::Map;
use super::val::{array_slot, err, slice_bounds, Res, Val};
use crate::limits::MAX_JQ_DEPTH;

/// `setpath(path; value)`.
pub fn setpath(root: Val, path: &Val, value: Val) -> Res<Val> {
    let Val::Arr(path) = path else {
        return Err(err("Path must be specified as an array"));
    };
    set_in(root, path, value)
}

/// jq's error for a path longer than it nests values.
fn check_length(path: &[Val]) -> Res<()> {
    if path.len() > MAX_JQ_DEPTH {
        return Err(err("Path too deep"));
    }
    Ok(())
}

/// Sets `root` at `path` to `value`: down the path to find each level, then back up.
fn set_in(root: Val, path: &[Val], value: Val) -> Res<Val> {
    check_length(path)?;
    let mut levels = Vec::with_capacity(path.len());
    let mut here = root;
    for key in path {
        let child = jaq_core::ValT::index(here.clone(), key)?;
        levels.push(here);
        here = child;
    }
    drop(here);
    let mut new = value;
    for (level, key) in levels.into_iter().zip(path).rev() {
        new = set_key(level, key, new)?;
    }
    Ok(new)
}

/// `root[key] = value` for one path component.
fn set_key(root: Val, key: &Val, value: Val) -> Res<Val> {
    match (root, key) {
        (Val::Null, Val::Str(_)) => set_key(Val::Obj(Rc::new(Map::new())), key, value),
        (Val::Null, Val::Num(_) | Val::Obj(_)) => set_key(Val::arr(Vec::new()), key, value),
        (Val::Obj(mut o), Val::Str(k)) => {
            Rc::make_mut(&mut o).insert(Rc::clone(k), value);
            Ok(Val::Obj(o))
        }
        (Val::Arr(mut a), Val::Num(n)) => {
            let i = array_slot(n.f, a.len())?;
            let items = Rc::make_mut(&mut a);
            if i >= items.len() {
                items.resize(i + 1, Val::Null);
            }
            items[i] = value;
            Ok(Val::Arr(a))
        }
        (Val::Arr(_), Val::Arr(_)) => Err(err("Cannot update field at array index of array")),
        (root @ Val::Arr(_), Val::Obj(o)) => {
            let range = o.get("start")..o.get("end");
            let put = |_| std::iter::once(Ok(value.clone()));
            jaq_core::ValT::map_range(root, range, jaq_core::path::Opt::Essential, put)
                .map_err(|e| e.get_err().unwrap_or_else(|_| err("Invalid path")))
        }
        (root, key) => jaq_core::ValT::index(root, key).map(|_| Val::Null),
    }
}

/// `delpaths(paths)`: like jq, every index and slice of one array refers to the array as it
/// was before any deletion (`del(.[1], .[-6])` removes two of the original elements).
pub fn delpaths(root: Val, paths: &Val) -> Res<Val> {
    let Val::Arr(paths) = paths else {
        return Err(err("Paths must be specified as an array"));
    };
    let mut list = Vec::new();
    for path in paths.iter() {
        let Val::Arr(path) = path else {
            return Err(err("Path must be specified as an array"));
        };
        check_length(path)?;
        list.push(&path[..]);
    }
    delete_all(root, list)
}

/// One level of [`delete_all`] under way: the value, the groups of deeper paths still to
/// apply (by their first key, last group first), the keys it loses itself, and the key of the
/// group whose child is being rebuilt.
struct Level<'p> {
    root: Val,
    groups: std::vec::IntoIter<(&'p Val, Vec<&'p [Val]>)>,
    here: Vec<&'p Val>,
    pending: Option<&'p Val>,
}

/// Deletes `paths` from `root`: deeper paths first (from the last to the first, so earlier
/// indices stay valid), then the keys `root` itself loses, all at once. Walks down the paths
/// with a stack on the heap: a path may be 10,000 keys long.
fn delete_all(root: Val, paths: Vec<&[Val]>) -> Res<Val> {
    let mut stack = Vec::new();
    let mut done = open_level(root, paths, &mut stack);
    loop {
        let Some(top) = stack.last_mut() else {
            return Ok(done.unwrap_or(Val::Null));
        };
        if let (Some(child), Some(key)) = (done.take(), top.pending.take()) {
            top.root = set_key(std::mem::take(&mut top.root), key, child)?;
        }
        match top.groups.next() {
            Some((key, tails)) => {
                let child = jaq_core::ValT::index(top.root.clone(), key)?;
                if !matches!(child, Val::Null) {
                    top.pending = Some(key);
                    done = open_level(child, tails, &mut stack);
                }
            }
            None => {
                let Some(level) = stack.pop() else {
                    return Ok(Val::Null);
                };
                done = Some(delete_keys(level.root, level.here)?);
            }
        }
    }
}

/// Starts deleting `paths` from `root`: the result at once if a path is empty (`root` goes),
/// else a level pushed on `stack`.
fn open_level<'p>(root: Val, mut paths: Vec<&'p [Val]>, stack: &mut Vec<Level<'p>>) -> Option<Val> {
    if paths.iter().any(|p| p.is_empty()) {
        return Some(Val::Null);
    }
    crate::sort::sort(&mut paths);
    let (here, deeper): (Vec<&[Val]>, Vec<&[Val]>) = paths.into_iter().partition(|p| p.len() == 1);
    let groups: Vec<(&Val, Vec<&[Val]>)> = deeper
        .chunk_by(|a, b| a[0] == b[0])
        .rev()
        .map(|group| (&group[0][0], group.iter().map(|p| &p[1..]).collect()))
        .collect();
    stack.push(Level {
        root,
        groups: groups.into_iter(),
        here: here.iter().map(|p| &p[0]).collect(),
        pending: None,
    });
    None
}

/// Deletes the keys `root` itself loses, all at once.
fn delete_keys(root: Val, keys: Vec<&Val>) -> Res<Val> {
    match root {
        Val::Arr(a) if keys.iter().all(|k| matches!(k, Val::Num(_) | Val::Obj(_))) => {
            let mut gone = vec![false; a.len()];
            for key in keys {
                for i in doomed(key, a.len())? {
                    gone[i] = true;
                }
            }
            let kept = a
                .iter()
                .zip(gone)
                .filter(|(_, g)| !g)
                .map(|(v, _)| v.clone());
            Ok(Val::arr(kept.collect()))
        }
        root => keys.into_iter().rev().try_fold(root, delete_key),
    }
}

/// The indices of an array of `len` that the key `.[n]` or `.[a:b]` names.
fn doomed(key: &Val, len: usize) -> Res<std::ops::Range<usize>> {
    match key {
        Val::Num(n) => {
            let i = if n.f < 0.0 {
                n.f.trunc() + len as f64
            } else {
                n.f.trunc()
            };
            Ok(if i >= 0.0 && i < len as f64 {
                i as usize..i as usize + 1
            } else {
                0..0
            })
        }
        Val::Obj(o) => {
            let (s, e) = slice_bounds(o.get("start")..o.get("end"), len)?;
            Ok(s..e)
        }
        _ => Ok(0..0),
    }
}

fn delete_key(root: Val, key: &Val) -> Res<Val> {
    match (root, key) {
        (Val::Null, _) => Ok(Val::Null),
        (Val::Obj(mut o), Val::Str(k)) => {
            if o.get(k).is_some() {
                Rc::make_mut(&mut o).remove(k);
            }
            Ok(Val::Obj(o))
        }
        (Val::Arr(mut a), Val::Num(n)) => {
            let len = a.len() as f64;
            let mut i = n.f.trunc();
            if i < 0.0 {
                i += len;
            }
            if i >= 0.0 && i < len {
                Rc::make_mut(&mut a).remove(i as usize);
            }
            Ok(Val::Arr(a))
        }
        (root @ Val::Arr(_), Val::Obj(o)) => {
            let range = o.get("start")..o.get("end");
            jaq_core::ValT::map_range(root, range, jaq_core::path::Opt::Essential, |_| {
                std::iter::once(Ok(Val::arr(Vec::new())))
            })
            .map_err(|e| e.get_err().unwrap_or_else(|_| err("Invalid path")))
        }
        (root, key) => jaq_core::ValT::index(root, key).map(|_| Val::Null),
    }
}
