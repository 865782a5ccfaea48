//! A word seen character by character: unquoted literal text as single characters, every
//! other part whole. Brace expansion and assignment detection look at words this way, because
//! what they look for (`{`, `,`, `=`, `[`) counts only in unquoted text but may sit between
//! other parts (`{a,$x}`, `a[$i]=v`).

use super::super::ast::WordPart;
use super::word::Parts;

/// One unquoted character, or a whole non-literal part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Atom<'a> {
    /// A character of unquoted literal text.
    Char(char),
    /// Any other part.
    Part(&'a WordPart),
}

/// The atoms of `parts`.
pub fn atoms(parts: &[WordPart]) -> Vec<Atom<'_>> {
    let mut out = Vec::new();
    for part in parts {
        match part {
            WordPart::Literal(text) => out.extend(text.chars().map(Atom::Char)),
            _ => out.push(Atom::Part(part)),
        }
    }
    out
}

/// Parts again from atoms (adjacent characters merged into literals).
pub fn to_parts(atoms: &[Atom<'_>]) -> Vec<WordPart> {
    let mut parts = Parts::default();
    for atom in atoms {
        push(&mut parts, atom);
    }
    parts.finish()
}

/// Appends one atom.
pub fn push(parts: &mut Parts, atom: &Atom<'_>) {
    match atom {
        Atom::Char(c) => parts.literal(*c),
        Atom::Part(part) => parts.push((*part).clone()),
    }
}

/// The index of the `]` closing the `[` at `open`, counting nested brackets.
pub fn closing_bracket(atoms: &[Atom<'_>], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, atom) in atoms.iter().enumerate().skip(open) {
        match atom {
            Atom::Char('[') => depth += 1,
            Atom::Char(']') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}
