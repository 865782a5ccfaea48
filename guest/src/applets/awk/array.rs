//! Awk's associative arrays: string keys, iteration in insertion order (gawk's order is
//! unspecified; insertion order is predictable and what people expect), fast hashing.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::value::{Bytes, Value};

/// A small, fast, non-cryptographic hash (the Fx hash of rustc): keys are program data, and
/// hash flooding is no threat inside a sandbox that is already the attacker's own.
#[derive(Default)]
pub struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        for &b in chunks.remainder() {
            self.add(u64::from(b));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The hasher factory for awk's maps.
pub type FxBuild = BuildHasherDefault<FxHasher>;

/// An awk array.
#[derive(Default, Debug)]
pub struct Array {
    index: HashMap<Bytes, usize, FxBuild>,
    entries: Vec<Option<(Bytes, Value)>>,
}

impl Array {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// The element at `key`, if there is one.
    pub fn get(&self, key: &[u8]) -> Option<&Value> {
        let at = *self.index.get(key)?;
        self.entries[at].as_ref().map(|(_, v)| v)
    }

    /// Whether `key` is present.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.index.contains_key(key)
    }

    /// The element at `key`, created (uninitialized) if missing.
    pub fn entry(&mut self, key: &Bytes) -> &mut Value {
        self.entry_by(key, || key.clone())
    }

    /// The element at `key`, created (uninitialized, with a copy of the key) if missing.
    pub fn entry_slice(&mut self, key: &[u8]) -> &mut Value {
        self.entry_by(key, || Bytes::from(key))
    }

    fn entry_by(&mut self, key: &[u8], owned: impl FnOnce() -> Bytes) -> &mut Value {
        let at = match self.index.get(key) {
            Some(&at) => at,
            None => {
                let owned = owned();
                self.entries.push(Some((owned.clone(), Value::Uninit)));
                let at = self.entries.len() - 1;
                self.index.insert(owned, at);
                at
            }
        };
        match &mut self.entries[at] {
            Some((_, value)) => value,
            // Indexes only point at live entries; this arm is never taken.
            slot => &mut slot.insert((Bytes::from(key), Value::Uninit)).1,
        }
    }

    /// Sets `key` to `value`.
    pub fn set(&mut self, key: &Bytes, value: Value) {
        *self.entry(key) = value;
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &[u8]) {
        if let Some(at) = self.index.remove(key) {
            self.entries[at] = None;
            if self.entries.len() > 32 && self.index.len() * 2 < self.entries.len() {
                self.compact();
            }
        }
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.index.clear();
        self.entries.clear();
    }

    /// The keys, in insertion order.
    pub fn keys(&self) -> Vec<Bytes> {
        self.entries
            .iter()
            .flatten()
            .map(|(k, _)| k.clone())
            .collect()
    }

    /// The elements, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&Bytes, &Value)> {
        self.entries.iter().flatten().map(|(k, v)| (k, v))
    }

    fn compact(&mut self) {
        self.entries.retain(Option::is_some);
        for (at, entry) in self.entries.iter().enumerate() {
            if let Some((key, _)) = entry {
                self.index.insert(key.clone(), at);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(s: &str) -> Bytes {
        Bytes::from(s.as_bytes())
    }

    #[test]
    fn insertion_order_survives_deletes_and_compaction() {
        let mut a = Array::default();
        for i in 0..100 {
            a.set(&key(&i.to_string()), Value::Num(f64::from(i)));
        }
        for i in 0..90 {
            a.remove(i.to_string().as_bytes());
        }
        let keys: Vec<String> = a
            .keys()
            .iter()
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect();
        assert_eq!(keys, (90..100).map(|i| i.to_string()).collect::<Vec<_>>());
        assert_eq!(a.get(b"95").map(Value::num), Some(95.0));
        assert!(!a.contains(b"5"));
        assert_eq!(a.len(), 10);
    }
}
