//! Marking tilde prefixes and brace expansions in words (see the [`ast`](super::super::ast)
//! module docs for where each applies).
//!
//! Braces are matched like bash does: each `}` closes the nearest open `{`; a pair is an
//! expansion if it holds a `,` of its own (not one inside a nested pair) or is a sequence
//! `x..y[..step]`. Other braces stay literal, though pairs inside them may still expand
//! (`{a{b,c}}` gives `{ab} {ac}`). Only unquoted braces and commas count.

use super::super::ast::{BraceSeq, Word, WordPart};
use super::assign::split_assignment;
use super::atoms::{atoms, push, Atom};
use super::word::Parts;
use crate::limits::MAX_SYNTAX_DEPTH;

/// Marks tilde prefixes: at the start of the word and, for `assignment` values, after every
/// unquoted `:`. A prefix runs to the first unquoted `/` (or `:` in assignments); if quoted
/// text or an expansion comes first, it is not a tilde prefix (`~"x"`, `~$y`).
pub fn mark_tilde(parts: Vec<WordPart>, assignment: bool) -> Vec<WordPart> {
    let count = parts.len();
    let mut out = Parts::default();
    for (i, part) in parts.into_iter().enumerate() {
        match part {
            WordPart::Literal(text) => {
                split_tildes(&text, i == 0, assignment, i + 1 == count, &mut out)
            }
            part => out.push(part),
        }
    }
    out.finish()
}

/// Marks tilde prefixes in a command argument; one that looks like an assignment
/// (`name=~/x:~/y`) also gets them after `=` and `:`, as bash does.
pub fn mark_tilde_in_argument(parts: Vec<WordPart>) -> Vec<WordPart> {
    match split_assignment(&parts) {
        Some(split) => {
            let mut out = split.prefix;
            out.extend(mark_tilde(split.value, true));
            out
        }
        None => mark_tilde(parts, false),
    }
}

/// Marks the tilde prefix of one word that brace expansion made (its text parts may come in
/// pieces: `{x,~}/y` gives `~` and `/y`). Only at its start: bash does not look at such a
/// word as an assignment (`v={~,x}` keeps `v=~`).
pub fn mark_tilde_after_braces(parts: Vec<WordPart>) -> Vec<WordPart> {
    let mut joined = Parts::default();
    parts.into_iter().for_each(|part| joined.push(part));
    mark_tilde(joined.finish(), false)
}

/// Splits the tilde prefixes out of one literal part.
fn split_tildes(text: &str, word_start: bool, assignment: bool, last: bool, out: &mut Parts) {
    let chars: Vec<char> = text.chars().collect();
    // bash ends a tilde prefix at `:` too, in any word (`echo ~:x` → `/home/me:x`).
    let ends_prefix = |c: char| c == '/' || c == ':';
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        let eligible =
            c == '~' && ((i == 0 && word_start) || (assignment && i > 0 && chars[i - 1] == ':'));
        if eligible {
            let end = chars[i + 1..].iter().position(|&c| ends_prefix(c));
            if end.is_some() || last {
                let end = end.map_or(chars.len(), |e| i + 1 + e);
                out.push(WordPart::Tilde(chars[i + 1..end].iter().collect()));
                i = end;
                continue;
            }
        }
        out.literal(c);
        i += 1;
    }
}

/// Marks brace expansions in `parts`, `depth` levels deep already; errs when they nest too
/// deeply.
pub fn mark_braces(parts: Vec<WordPart>, depth: usize) -> Result<Vec<WordPart>, String> {
    let has_brace = parts
        .iter()
        .any(|p| matches!(p, WordPart::Literal(t) if t.contains('{')));
    if !has_brace {
        return Ok(parts);
    }
    let atoms = atoms(&parts);
    let pairs = match_braces(&atoms);
    let marker = Marker {
        atoms: &atoms,
        pairs: &pairs,
    };
    marker.build(0, atoms.len(), depth)
}

/// For each `{` that is closed: where, and the positions of its own commas.
#[derive(Clone, Default)]
struct Pair {
    close: Option<usize>,
    commas: Vec<usize>,
}

fn match_braces(atoms: &[Atom<'_>]) -> Vec<Pair> {
    let mut pairs = vec![Pair::default(); atoms.len()];
    let mut open = Vec::new();
    for (i, atom) in atoms.iter().enumerate() {
        match atom {
            Atom::Char('{') => open.push(i),
            Atom::Char('}') => {
                if let Some(start) = open.pop() {
                    pairs[start].close = Some(i);
                }
            }
            Atom::Char(',') => {
                if let Some(&start) = open.last() {
                    pairs[start].commas.push(i);
                }
            }
            _ => {}
        }
    }
    pairs
}

struct Marker<'a, 'p> {
    atoms: &'a [Atom<'p>],
    pairs: &'a [Pair],
}

impl Marker<'_, '_> {
    /// The parts for atoms `lo..hi`, with their brace expressions marked.
    fn build(&self, lo: usize, hi: usize, depth: usize) -> Result<Vec<WordPart>, String> {
        let mut out = Parts::default();
        let mut i = lo;
        while i < hi {
            match self.expression(i, depth)? {
                Some((part, close)) => {
                    out.push(part);
                    i = close + 1;
                }
                None => {
                    push(&mut out, &self.atoms[i]);
                    i += 1;
                }
            }
        }
        Ok(out.finish())
    }

    /// The brace expression opening at `i`, if there is one, and where it closes.
    fn expression(&self, i: usize, depth: usize) -> Result<Option<(WordPart, usize)>, String> {
        if self.atoms[i] != Atom::Char('{') {
            return Ok(None);
        }
        let Some(close) = self.pairs[i].close else {
            return Ok(None);
        };
        if let Some(seq) = sequence(&self.atoms[i + 1..close]) {
            return Ok(Some((WordPart::BraceSeq(seq), close)));
        }
        let commas = &self.pairs[i].commas;
        if commas.is_empty() {
            return Ok(None);
        }
        if depth >= MAX_SYNTAX_DEPTH {
            return Err(format!(
                "brace expansion nested too deeply (more than {MAX_SYNTAX_DEPTH} levels)"
            ));
        }
        let mut bounds = vec![i];
        bounds.extend(commas);
        bounds.push(close);
        let alternatives = bounds
            .windows(2)
            .map(|w| {
                self.build(w[0] + 1, w[1], depth + 1)
                    .map(|parts| Word { parts })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Some((WordPart::BraceList(alternatives), close)))
    }
}

/// `x..y` or `x..y..step` over integers or single letters.
fn sequence(atoms: &[Atom<'_>]) -> Option<BraceSeq> {
    let text = atoms
        .iter()
        .map(|atom| match atom {
            Atom::Char(c) => Some(*c),
            Atom::Part(_) => None,
        })
        .collect::<Option<String>>()?;
    let pieces: Vec<&str> = text.split("..").collect();
    let (start, end, step) = match pieces.as_slice() {
        [start, end] => (*start, *end, 1),
        [start, end, step] => (*start, *end, step.parse().ok()?),
        _ => return None,
    };
    if let (Some(s), Some(e)) = (letter(start), letter(end)) {
        return Some(BraceSeq::Char {
            start: s,
            end: e,
            step,
        });
    }
    let width = match padded(start) || padded(end) {
        true => start.len().max(end.len()),
        false => 0,
    };
    Some(BraceSeq::Int {
        start: integer(start)?,
        end: integer(end)?,
        step,
        width,
    })
}

fn letter(text: &str) -> Option<char> {
    let mut chars = text.chars();
    let c = chars.next().filter(char::is_ascii_alphabetic)?;
    chars.next().is_none().then_some(c)
}

fn integer(text: &str) -> Option<i64> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Written with a leading zero (`01`, `-05`): the sequence is zero-padded.
fn padded(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    digits.len() > 1 && digits.starts_with('0')
}
