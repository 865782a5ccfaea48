//! jq objects: string keys in insertion order (what jq prints), with a hash index for big
//! objects so lookups stay fast.

use std::collections::HashMap;
use std::rc::Rc;

use super::val::Val;

/// Objects with at least this many keys get a hash index.
const INDEX_FROM: usize = 16;

/// An insertion-ordered map from strings to values.
#[derive(Clone, Debug, Default)]
pub struct Map {
    entries: Vec<(Rc<str>, Val)>,
    index: Option<HashMap<Rc<str>, usize>>,
}

impl Map {
    /// An empty map.
    pub fn new() -> Self {
        Map::default()
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are no keys.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => index.get(key).copied(),
            // (word-wise: `str ==` goes through wasi-libc's byte-by-byte `memcmp`)
            None => self
                .entries
                .iter()
                .position(|(k, _)| crate::sort::eq_bytes(k.as_bytes(), key.as_bytes())),
        }
    }

    /// The value at `key`.
    pub fn get(&self, key: &str) -> Option<&Val> {
        self.position(key).map(|i| &self.entries[i].1)
    }

    /// The value at `key`, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Val> {
        self.position(key).map(|i| &mut self.entries[i].1)
    }

    /// Sets `key` to `value` (an existing key keeps its place).
    pub fn insert(&mut self, key: Rc<str>, value: Val) {
        if let Some(i) = self.position(&key) {
            self.entries[i].1 = value;
            return;
        }
        if let Some(index) = &mut self.index {
            index.insert(Rc::clone(&key), self.entries.len());
        }
        self.entries.push((key, value));
        if self.index.is_none() && self.entries.len() >= INDEX_FROM {
            self.reindex();
        }
    }

    /// Removes `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &str) -> Option<Val> {
        let i = self.position(key)?;
        let (_, value) = self.entries.remove(i);
        if self.index.is_some() {
            self.reindex();
        }
        Some(value)
    }

    fn reindex(&mut self) {
        let index = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, (k, _))| (Rc::clone(k), i))
            .collect();
        self.index = Some(index);
    }

    /// Key-value pairs in insertion order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Rc<str>, &Val)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// Values in insertion order, mutably.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Val> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// The key-value pairs, consumed.
    pub fn into_entries(mut self) -> Vec<(Rc<str>, Val)> {
        self.index = None;
        std::mem::take(&mut self.entries)
    }

    /// The values, leaving this map empty.
    pub fn take_values(&mut self) -> impl Iterator<Item = Val> {
        self.index = None;
        std::mem::take(&mut self.entries)
            .into_iter()
            .map(|(_, v)| v)
    }

    /// Key-value pairs sorted by key (jq's `keys` order and `-S` output).
    pub fn sorted(&self) -> Vec<(&Rc<str>, &Val)> {
        let mut pairs: Vec<_> = self.iter().collect();
        crate::sort::sort_by(&mut pairs, |a, b| a.0.cmp(b.0));
        pairs
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        if super::deep::nested(self.entries.iter().map(|(_, v)| v)) {
            super::deep::release(self.take_values().collect());
        }
    }
}

impl FromIterator<(Rc<str>, Val)> for Map {
    fn from_iter<T: IntoIterator<Item = (Rc<str>, Val)>>(iter: T) -> Self {
        let iter = iter.into_iter();
        let mut map = Map {
            entries: Vec::with_capacity(iter.size_hint().0),
            index: None,
        };
        for (k, v) in iter {
            map.insert(k, v);
        }
        map
    }
}
