//! Deeply nested values: jq 1.8 handles 10,000 levels and reports its depth errors past
//! that ("Path too deep", "Comparison too deep"...). The guest's stack holds far fewer
//! recursive calls, so everything here walks values with a stack on the heap: dropping,
//! comparing, flattening and merging.

use std::cell::Cell;
use std::cmp::Ordering;
use std::rc::Rc;

use super::map::Map;
use super::val::{err, Res, Val};

use crate::limits::MAX_JQ_DEPTH;

/// Drops `pending` without recursion: a nested array or object that nothing else holds is
/// emptied into the list before it is dropped, so its own drop has nothing left to do.
pub fn release(mut pending: Vec<Val>) {
    while let Some(v) = pending.pop() {
        match v {
            Val::Arr(a) => {
                if let Ok(mut a) = Rc::try_unwrap(a) {
                    pending.append(&mut a.take());
                }
            }
            Val::Obj(o) => {
                if let Ok(mut o) = Rc::try_unwrap(o) {
                    pending.extend(o.take_values());
                }
            }
            _ => {}
        }
    }
}

/// Whether dropping `items` could recurse more than one level: one of them is an array or
/// object that nothing else holds and that holds an array or object itself. (One holding only
/// scalars, like `{"tags": ["a", "b"]}`'s, drops in one step, without [`release`]'s list.)
pub fn nested<'a>(mut items: impl Iterator<Item = &'a Val>) -> bool {
    items.any(|v| match v {
        Val::Arr(a) => Rc::strong_count(a) == 1 && a.iter().any(is_container),
        Val::Obj(o) => Rc::strong_count(o) == 1 && o.iter().any(|(_, v)| is_container(v)),
        _ => false,
    })
}

thread_local! {
    /// Set when a comparison went deeper than jq allows (`Ord` cannot return an error).
    static CMP_TOO_DEEP: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (which sorts or compares values) and turns a comparison that went too deep into
/// jq's error.
pub fn comparing<T>(f: impl FnOnce() -> T) -> Res<T> {
    CMP_TOO_DEEP.with(|c| c.set(false));
    let out = f();
    if CMP_TOO_DEEP.with(|c| c.replace(false)) {
        return Err(err("Comparison too deep"));
    }
    Ok(out)
}

/// The pairs of values still to compare inside two arrays or two objects, and the order
/// that stands when they are all equal.
struct Pairs<'a> {
    pairs: PairsOf<'a>,
    rest: Ordering,
}

enum PairsOf<'a> {
    Arr(std::slice::Iter<'a, Val>, std::slice::Iter<'a, Val>),
    Obj(std::vec::IntoIter<(&'a Val, &'a Val)>),
}

impl<'a> Iterator for PairsOf<'a> {
    type Item = (&'a Val, &'a Val);
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            PairsOf::Arr(x, y) => Some((x.next()?, y.next()?)),
            PairsOf::Obj(pairs) => pairs.next(),
        }
    }
}

/// Two arrays or two objects opened for comparison, or the order already known.
fn open<'a>(a: &'a Val, b: &'a Val) -> Result<Pairs<'a>, Ordering> {
    match (a, b) {
        (Val::Arr(x), Val::Arr(y)) => Ok(Pairs {
            pairs: PairsOf::Arr(x.iter(), y.iter()),
            rest: x.len().cmp(&y.len()),
        }),
        (Val::Obj(x), Val::Obj(y)) => {
            let (sx, sy) = (x.sorted(), y.sorted());
            let keys = sx.iter().map(|p| p.0).cmp(sy.iter().map(|p| p.0));
            if keys.is_ne() {
                return Err(keys);
            }
            let pairs: Vec<_> = sx.into_iter().zip(sy).map(|(p, q)| (p.1, q.1)).collect();
            Ok(Pairs {
                pairs: PairsOf::Obj(pairs.into_iter()),
                rest: Ordering::Equal,
            })
        }
        _ => Err(a.cmp_scalar(b)),
    }
}

/// jq's order of two values, walking nested arrays and objects with a heap stack: elements
/// in order (then length) for arrays; sorted keys, then values in key order, for objects.
pub fn cmp(a: &Val, b: &Val) -> Ordering {
    let mut current = match open(a, b) {
        Ok(pairs) => pairs,
        Err(order) => return order,
    };
    let mut outer: Vec<Pairs<'_>> = Vec::new();
    loop {
        let Some((a, b)) = current.pairs.next() else {
            if current.rest.is_ne() {
                return current.rest;
            }
            match outer.pop() {
                Some(pairs) => current = pairs,
                None => return Ordering::Equal,
            }
            continue;
        };
        match open(a, b) {
            Ok(_) if outer.len() >= MAX_JQ_DEPTH => {
                CMP_TOO_DEEP.with(|c| c.set(true));
                return Ordering::Equal;
            }
            Ok(inner) => outer.push(std::mem::replace(&mut current, inner)),
            Err(Ordering::Equal) => {}
            Err(order) => return order,
        }
    }
}

/// Whether two values are equal (numbers by value, NaN equal to nothing, objects whatever
/// their key order), walking nested arrays and objects with a heap stack.
pub fn equal(a: &Val, b: &Val) -> bool {
    let mut work = Vec::new();
    let mut next = Some((a, b));
    while let Some((a, b)) = next.take().or_else(|| work.pop()) {
        match (a, b) {
            (Val::Arr(x), Val::Arr(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (v, w) in x.iter().zip(y.iter()) {
                    if is_container(v) && is_container(w) {
                        work.push((v, w));
                    } else if !v.eq_scalar(w) {
                        return false;
                    }
                }
            }
            (Val::Obj(x), Val::Obj(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (k, v) in x.iter() {
                    match y.get(k) {
                        Some(w) if is_container(v) && is_container(w) => work.push((v, w)),
                        Some(w) if v.eq_scalar(w) => {}
                        _ => return false,
                    }
                }
            }
            (a, b) => {
                if !a.eq_scalar(b) {
                    return false;
                }
            }
        }
    }
    true
}

fn is_container(v: &Val) -> bool {
    matches!(v, Val::Arr(_) | Val::Obj(_))
}

/// Whether `v` nests arrays and objects more than `max` levels deep.
pub fn deeper_than(v: &Val, max: usize) -> bool {
    let mut work = vec![(v, 0)];
    while let Some((v, level)) = work.pop() {
        let children: Box<dyn Iterator<Item = &Val>> = match v {
            Val::Arr(a) => Box::new(a.iter()),
            Val::Obj(o) => Box::new(o.iter().map(|(_, v)| v)),
            _ => continue,
        };
        if level > max {
            return true;
        }
        work.extend(children.map(|c| (c, level + 1)));
    }
    false
}

/// `flatten($depth)` as jq defines it (`reduce .[] as $i ([]; if $i is an array and $depth
/// != 0 then . + ($i | flatten($depth - 1)) else . + [$i] end)`), without recursion.
pub fn flatten(v: &Val, depth: &Val) -> Res<Val> {
    let top: Vec<&Val> = match v {
        Val::Arr(a) => a.iter().collect(),
        Val::Obj(o) => o.iter().map(|(_, v)| v).collect(),
        v => return Err(err(format!("Cannot iterate over {}", v.describe()))),
    };
    let mut out = Vec::new();
    let mut stack = vec![(top.into_iter(), depth.clone())];
    while let Some((items, depth)) = stack.last_mut() {
        let Some(item) = items.next() else {
            stack.pop();
            continue;
        };
        match item {
            Val::Arr(a) if *depth != Val::num(0.0) => {
                let inner = (depth.clone() - Val::num(1.0))?;
                stack.push((a.iter().collect::<Vec<_>>().into_iter(), inner));
            }
            item => out.push(item.clone()),
        }
    }
    Ok(Val::arr(out))
}

/// One level of a merge: the merged map so far, the entries of `b` left, and the key it goes
/// under in the level above.
type Merging = (Rc<Map>, std::vec::IntoIter<(Rc<str>, Val)>, Option<Rc<str>>);

/// `a * b` on objects: `b`'s keys replace `a`'s, objects under the same key merge
/// recursively (jq: "Object merge too deep" past its depth).
pub fn merge(a: Rc<Map>, b: &Map) -> Res<Val> {
    let mut stack: Vec<Merging> = Vec::new();
    stack.push((a, entries(b), None));
    loop {
        let depth = stack.len();
        let Some((map, rest, _)) = stack.last_mut() else {
            return Err(err("Object merge too deep"));
        };
        match rest.next() {
            Some((k, Val::Obj(new))) if matches!(map.get(&k), Some(Val::Obj(_))) => {
                if depth > MAX_JQ_DEPTH {
                    return Err(err("Object merge too deep"));
                }
                let old = Rc::make_mut(map).get_mut(&k).map(std::mem::take);
                let Some(Val::Obj(old)) = old else {
                    return Err(err("Object merge too deep"));
                };
                stack.push((old, entries(&new), Some(k)));
            }
            Some((k, v)) => Rc::make_mut(map).insert(k, v),
            None => {
                let Some((done, _, key)) = stack.pop() else {
                    return Err(err("Object merge too deep"));
                };
                match (stack.last_mut(), key) {
                    (Some((parent, _, _)), Some(key)) => {
                        Rc::make_mut(parent).insert(key, Val::Obj(done));
                    }
                    _ => return Ok(Val::Obj(done)),
                }
            }
        }
    }
}

fn entries(m: &Map) -> std::vec::IntoIter<(Rc<str>, Val)> {
    let items: Vec<_> = m.iter().map(|(k, v)| (Rc::clone(k), v.clone())).collect();
    items.into_iter()
}
