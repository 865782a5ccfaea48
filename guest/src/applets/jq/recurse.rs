//! `..` (also `recurse`) and `walk(f)` without recursion in Rust. jaq-core runs `..` as
//! iterators nested one inside the other (a Rust frame per level each time a value is
//! pulled), and jq's `walk` recurses in jaq's evaluator: both overflowed the guest's stack
//! near 9,000 levels, where jq goes to 10,000 and beyond. Here a heap stack holds the levels.
//! The program's `..` is rewritten into `_recurse_all` before it is parsed (`desugar`).

use std::rc::Rc;

use jaq_core::box_iter::box_once;
use jaq_core::{Bind, Cv, Exn, Native, ValT, ValXs};

use super::engine::{JqData, NativeFun};
use super::map::Map;
use super::val::Val;

type Out<'a> = ValXs<'a, Val>;
type Children<T> = Box<dyn Iterator<Item = T>>;

/// `..` (`_recurse_all`) and `walk` (`_walk`), with what they do under `path(...)` and `|=`.
pub fn funs() -> [NativeFun; 2] {
    let all = Native::<JqData>::new(|cv| Box::new(preorder(cv.1, values).map(Ok)))
        .with_paths(|cv| {
            let paths = preorder(cv.1, |(v, p)| {
                let p = p.clone();
                let pairs = keyed(v)?.map(move |(k, c)| (c, p.clone().cons(k)));
                Some(Box::new(pairs) as Children<_>)
            });
            Box::new(paths.map(Ok))
        })
        .with_update(|cv, f| update_all(cv.1, &|v| f(v)));
    let walk = Native::<JqData>::new(walk);
    [
        ("_recurse_all", Box::new([]), all),
        ("_walk", Box::new([Bind::Fun(())]), walk),
    ]
}

/// The values of `roots` and everything inside it, parents before their children (jq's
/// `def recurse: def r: ., (.[]? | r); r;`), with `children` giving each one's children.
fn preorder<T: Clone>(
    root: T,
    children: impl Fn(&T) -> Option<Children<T>>,
) -> impl Iterator<Item = T> {
    let mut first = Some(root);
    let mut stack: Vec<Children<T>> = Vec::new();
    std::iter::from_fn(move || {
        let next = match first.take() {
            Some(root) => root,
            None => loop {
                match stack.last_mut()?.next() {
                    Some(next) => break next,
                    None => drop(stack.pop()),
                }
            },
        };
        stack.extend(children(&next));
        Some(next)
    })
}

/// The items of an array or the values of an object (none for other values: `.[]?`).
fn values(v: &Val) -> Option<Children<Val>> {
    Some(Box::new(keyed(v)?.map(|(_, c)| c)))
}

/// The indices or keys of an array or object, each with its value.
fn keyed(v: &Val) -> Option<impl Iterator<Item = (Val, Val)>> {
    let pairs = matches!(v, Val::Arr(_) | Val::Obj(_)).then(|| v.clone().key_values())?;
    Some(pairs.filter_map(Result::ok))
}

/// `.. |= f` as jaq-core does it: children first, then the value holding them; an empty
/// update deletes the child. The updated root gives every output of `f`.
fn update_all<'a>(root: Val, f: &dyn Fn(Val) -> Out<'a>) -> Out<'a> {
    match rebuild(root, f, false) {
        Ok(v) => f(v),
        Err(e) => box_once(Err(e)),
    }
}

/// `walk(f)` as jq 1.8 defines it (`def walk(f): def w: if type == "object" then
/// map_values(w) elif type == "array" then map(w) else . end | f; w;`).
fn walk(mut cv: Cv<'_, JqData>) -> Out<'_> {
    let (f, fc) = cv.0.pop_fun();
    let apply = |v| f.run((fc.clone(), v));
    match rebuild(cv.1, &apply, true) {
        Ok(v) => f.run((fc, v)),
        Err(e) => box_once(Err(e)),
    }
}

/// An array or object whose children are being rebuilt.
struct Level {
    /// Where it goes in the level above.
    key: Val,
    object: bool,
    children: Children<(Val, Val)>,
    done: Vec<(Val, Val)>,
}

impl Level {
    fn open(key: Val, v: &Val) -> Option<Level> {
        Some(Level {
            key,
            object: matches!(v, Val::Obj(_)),
            children: Box::new(keyed(v)?),
            done: Vec::new(),
        })
    }

    /// Puts the outputs of `f` for a child in: an object keeps the first (none deletes the
    /// key), an array all of them when `every`, else the first.
    fn take<'a>(&mut self, key: Val, mut outs: Out<'a>, every: bool) -> Result<(), Exn<'a, Val>> {
        if every && !self.object {
            for out in outs {
                self.done.push((Val::Null, out?));
            }
        } else if let Some(out) = outs.next() {
            self.done.push((key, out?));
        }
        Ok(())
    }

    fn close<'a>(self) -> Result<Val, Exn<'a, Val>> {
        if self.object {
            let mut map = Map::new();
            for (k, v) in self.done {
                if let Val::Str(k) = k {
                    map.insert(k, v);
                }
            }
            return Ok(Val::Obj(Rc::new(map)));
        }
        Ok(Val::arr(self.done.into_iter().map(|(_, v)| v).collect()))
    }
}

/// `root` with each array item and object value replaced by the outputs of `f` on it,
/// deepest first (see [`Level::take`]); `f` is not applied to `root` itself.
fn rebuild<'a>(root: Val, f: &dyn Fn(Val) -> Out<'a>, every: bool) -> Result<Val, Exn<'a, Val>> {
    let Some(level) = Level::open(Val::Null, &root) else {
        return Ok(root);
    };
    drop(root);
    let mut stack = vec![level];
    loop {
        let Some(top) = stack.last_mut() else {
            return Ok(Val::Null);
        };
        if let Some((key, child)) = top.children.next() {
            match Level::open(key.clone(), &child) {
                Some(level) => stack.push(level),
                None => top.take(key, f(child), every)?,
            }
            continue;
        }
        let Some(done) = stack.pop() else {
            return Ok(Val::Null);
        };
        let key = done.key.clone();
        let new = done.close()?;
        match stack.last_mut() {
            Some(parent) => parent.take(key, f(new), every)?,
            None => return Ok(new),
        }
    }
}
