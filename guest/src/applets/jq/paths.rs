//! `setpath` and `delpaths` with jq's rules (null grows into objects and arrays, arrays are
//! padded, several deletions apply from the last path to the first).

use std::rc::Rc;

use super::map::Map;
use super::val::{err, Res, Val};

/// `setpath(path; value)`.
pub fn setpath(root: Val, path: &Val, value: Val) -> Res<Val> {
    let Val::Arr(path) = path else {
        return Err(err("Path must be specified as an array"));
    };
    set_in(root, path, value)
}

fn set_in(root: Val, path: &[Val], value: Val) -> Res<Val> {
    let Some((key, rest)) = path.split_first() else {
        return Ok(value);
    };
    let child = jaq_core::ValT::index(root.clone(), key)?;
    let new_child = set_in(child, rest, value)?;
    set_key(root, key, new_child)
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
            let len = a.len() as f64;
            let mut i = n.f.trunc();
            if i < 0.0 {
                i += len;
                if i < 0.0 {
                    return Err(err("Out of bounds negative array index"));
                }
            }
            let i = i as usize;
            let items = Rc::make_mut(&mut a);
            if i >= items.len() {
                items.resize(i + 1, Val::Null);
            }
            items[i] = value;
            Ok(Val::Arr(a))
        }
        (root @ Val::Arr(_), Val::Obj(o)) => {
            let range = o.get("start")..o.get("end");
            let put = |_| std::iter::once(Ok(value.clone()));
            jaq_core::ValT::map_range(root, range, jaq_core::path::Opt::Essential, put)
                .map_err(|e| e.get_err().unwrap_or_else(|_| err("Invalid path")))
        }
        (root, key) => jaq_core::ValT::index(root, key).map(|_| Val::Null),
    }
}

/// `delpaths(paths)`: deletes the longest / last paths first so earlier indices stay valid.
pub fn delpaths(root: Val, paths: &Val) -> Res<Val> {
    let Val::Arr(paths) = paths else {
        return Err(err("Paths must be specified as an array"));
    };
    let mut paths: Vec<&Val> = paths.iter().collect();
    paths.sort();
    let mut root = root;
    for path in paths.into_iter().rev() {
        let Val::Arr(path) = path else {
            return Err(err("Path must be specified as an array"));
        };
        root = delete_in(root, path)?;
    }
    Ok(root)
}

fn delete_in(root: Val, path: &[Val]) -> Res<Val> {
    match path {
        [] => Ok(Val::Null),
        [key] => delete_key(root, key),
        [key, rest @ ..] => {
            let child = jaq_core::ValT::index(root.clone(), key)?;
            if matches!(child, Val::Null) {
                return Ok(root);
            }
            let new_child = delete_in(child, rest)?;
            set_key(root, key, new_child)
        }
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
