//! Associative arrays that list their keys in the order bash does.
//!
//! Bash keeps an associative array in a hash table (FNV-1 hash, 1024 buckets, growing four-fold
//! once it holds twice as many entries as buckets) and lists it bucket by bucket, newest first
//! within a bucket. Scripts print `${!m[@]}` and `declare -p m`, so the same table shape is
//! kept here and the order matches bash's exactly.

use std::collections::HashMap;

const INITIAL_BUCKETS: usize = 1024;

/// An associative array: string keys to string values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Assoc {
    values: HashMap<String, String>,
    /// The keys per bucket, newest first; empty until the first insert.
    buckets: Vec<Vec<String>>,
}

/// Bash's `hash_string`: 32-bit FNV-1.
fn fnv1(key: &str) -> u32 {
    key.bytes().fold(2_166_136_261u32, |h, b| {
        h.wrapping_mul(16_777_619) ^ u32::from(b)
    })
}

impl Assoc {
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&String> {
        self.values.get(key)
    }

    fn bucket(&self, key: &str) -> usize {
        fnv1(key) as usize & (self.buckets.len().saturating_sub(1))
    }

    /// Sets `key` (a new key goes to the front of its bucket).
    pub fn insert(&mut self, key: String, value: String) {
        if let Some(slot) = self.values.get_mut(&key) {
            *slot = value;
            return;
        }
        if self.buckets.is_empty() {
            self.buckets = vec![Vec::new(); INITIAL_BUCKETS];
        }
        if self.values.len() >= self.buckets.len() * 2 {
            self.grow();
        }
        let at = self.bucket(&key);
        self.buckets[at].insert(0, key.clone());
        self.values.insert(key, value);
    }

    /// Rehashes into four times as many buckets, as bash does.
    fn grow(&mut self) {
        let old = std::mem::take(&mut self.buckets);
        self.buckets = vec![Vec::new(); old.len() * 4];
        for key in old.into_iter().flatten() {
            let at = self.bucket(&key);
            self.buckets[at].insert(0, key);
        }
    }

    /// Removes `key`.
    pub fn remove(&mut self, key: &str) -> Option<String> {
        let value = self.values.remove(key)?;
        let at = self.bucket(key);
        if let Some(bucket) = self.buckets.get_mut(at) {
            bucket.retain(|k| k != key);
        }
        Some(value)
    }

    /// The keys, in bash's order.
    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.buckets.iter().flatten()
    }

    /// The entries, in bash's order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.keys()
            .filter_map(|k| self.values.get(k).map(|value| (k, value)))
    }
}

#[cfg(test)]
mod tests {
    use super::Assoc;

    fn keys(assoc: &Assoc) -> Vec<&str> {
        assoc.keys().map(String::as_str).collect()
    }

    #[test]
    fn keys_come_in_bash_order() {
        let mut m = Assoc::default();
        for k in ["b", "a", "c", "hello", "x"] {
            m.insert(k.into(), "v".into());
        }
        assert_eq!(keys(&m), ["x", "hello", "c", "b", "a"]);
        m.insert("b".into(), "again".into());
        assert_eq!(keys(&m), ["x", "hello", "c", "b", "a"]);
        m.remove("hello");
        assert_eq!(keys(&m), ["x", "c", "b", "a"]);
    }

    #[test]
    fn growth_keeps_bash_order() {
        let mut m = Assoc::default();
        for i in 1..=3000 {
            m.insert(format!("k{i}"), i.to_string());
        }
        let first: Vec<&str> = keys(&m).into_iter().take(3).collect();
        assert_eq!(m.keys().count(), 3000);
        // From `declare -A n; for i in $(seq 1 3000); do n[k$i]=$i; done; echo ${!n[@]}`.
        assert_eq!(first, ["k1698", "k1699", "k1696"]);
    }
}
