//! The current record: `$0` and its fields, split lazily (only when a field or NF is used),
//! kept as byte ranges until a field is assigned, and rebuilt with OFS only when `$0` is read.

use std::rc::Rc;

use super::super::record::{split, FieldSep};
use super::super::value::{str_to_num, Bytes, Value};

/// The record and its fields.
pub struct Fields {
    text: Vec<u8>,
    sep: Rc<FieldSep>,
    split: bool,
    ranges: Vec<(u32, u32)>,
    /// The fields as values, once one was assigned (then `ranges` is unused).
    owned: Option<Vec<Value>>,
    /// `$0` must be rebuilt from `owned`.
    stale: bool,
}

impl Fields {
    /// An empty record.
    pub fn new(sep: Rc<FieldSep>) -> Self {
        Fields {
            text: Vec::new(),
            sep,
            split: true,
            ranges: Vec::new(),
            owned: None,
            stale: false,
        }
    }

    /// Replaces the record, swapping `text` in (the caller's buffer gets the old one).
    pub fn set_swap(&mut self, text: &mut Vec<u8>, sep: &Rc<FieldSep>) {
        std::mem::swap(&mut self.text, text);
        self.reset(sep);
    }

    /// Replaces the record with a copy of `text`.
    pub fn set(&mut self, text: &[u8], sep: &Rc<FieldSep>) {
        self.text.clear();
        self.text.extend_from_slice(text);
        self.reset(sep);
    }

    fn reset(&mut self, sep: &Rc<FieldSep>) {
        if !Rc::ptr_eq(&self.sep, sep) {
            self.sep = Rc::clone(sep);
        }
        self.split = false;
        self.owned = None;
        self.stale = false;
    }

    fn ensure_split(&mut self) {
        if !self.split {
            self.ranges.clear();
            split(&self.text, &self.sep, &mut self.ranges);
            self.split = true;
        }
    }

    /// NF.
    pub fn nf(&mut self) -> usize {
        self.ensure_split();
        match &self.owned {
            Some(fields) => fields.len(),
            None => self.ranges.len(),
        }
    }

    /// `$i` for i ≥ 1 (a missing field is the empty string).
    pub fn get(&mut self, i: usize) -> Value {
        self.ensure_split();
        if let Some(fields) = &self.owned {
            return fields
                .get(i - 1)
                .cloned()
                .unwrap_or_else(|| Value::str(b""));
        }
        match self.ranges.get(i - 1) {
            Some(&(a, b)) => Value::strnum(&self.text[a as usize..b as usize]),
            None => Value::str(b""),
        }
    }

    /// The text of `$i` for i ≥ 1 as it was read (None once a field was assigned: then the
    /// field is a value, see [`Fields::get`]).
    pub fn text_of(&mut self, i: usize) -> Option<&[u8]> {
        self.ensure_split();
        if self.owned.is_some() {
            return None;
        }
        Some(
            self.ranges
                .get(i - 1)
                .map_or(&[][..], |&(a, b)| &self.text[a as usize..b as usize]),
        )
    }

    /// The number of `$i` for i ≥ 1 (`get(i).num()` without making the string).
    pub fn num(&mut self, i: usize) -> f64 {
        self.ensure_split();
        if let Some(fields) = &self.owned {
            return fields.get(i - 1).map_or(0.0, Value::num);
        }
        self.ranges.get(i - 1).map_or(0.0, |&(a, b)| {
            str_to_num(&self.text[a as usize..b as usize])
        })
    }

    /// `$0`, rebuilt with `ofs` first if a field changed.
    pub fn text(&mut self, ofs: &[u8], convfmt: &[u8]) -> &[u8] {
        if self.stale {
            self.rebuild(ofs, convfmt);
        }
        &self.text
    }

    /// `$0` as a value.
    pub fn record(&mut self, ofs: &[u8], convfmt: &[u8]) -> Value {
        Value::StrNum(Bytes::from(self.text(ofs, convfmt)))
    }

    /// Rebuilds `$0` from the fields (when OFS is about to change, gawk rebuilds first).
    pub fn rebuild(&mut self, ofs: &[u8], convfmt: &[u8]) {
        let Some(fields) = &self.owned else {
            self.stale = false;
            return;
        };
        let mut text = Vec::with_capacity(self.text.len() + 16);
        for (i, field) in fields.iter().enumerate() {
            if i > 0 {
                text.extend_from_slice(ofs);
            }
            field.append_to(&mut text, convfmt);
        }
        self.text = text;
        self.stale = false;
    }

    /// Whether `$0` needs a rebuild.
    pub fn is_stale(&self) -> bool {
        self.stale
    }

    fn own(&mut self) -> &mut Vec<Value> {
        self.ensure_split();
        if self.owned.is_none() {
            let fields = self
                .ranges
                .iter()
                .map(|&(a, b)| Value::strnum(&self.text[a as usize..b as usize]))
                .collect();
            self.owned = Some(fields);
        }
        self.owned.get_or_insert_with(Vec::new)
    }

    /// Assigns `$i` for i ≥ 1, extending the record with empty fields if needed.
    pub fn set_field(&mut self, i: usize, value: Value) {
        let fields = self.own();
        if fields.len() < i {
            fields.resize(i, Value::str(b""));
        }
        fields[i - 1] = value;
        self.stale = true;
    }

    /// Assigns NF: drops or adds fields.
    pub fn set_nf(&mut self, n: usize) {
        let fields = self.own();
        fields.resize(n, Value::str(b""));
        self.stale = true;
    }
}
