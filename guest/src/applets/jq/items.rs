//! Programs whose only use of their input is to iterate it (`.[] | f`, `[.[] | f] | g`,
//! `map(f) | g`...), split into filters that run on an array's items one at a time: the
//! command line then builds one item at a time from the input's bytes instead of the whole
//! array first (memory for one item, not the whole tree).
//!
//! The shape is read from jaq's parse of the program; jaq's tokens say where its parts are.
//! Each part is compiled from the program's text with everything else blanked out (newlines
//! kept), so that `$__loc__` and messages see the same lines and columns.

use std::ops::Range;

use jaq_core::load::lex::{Lexer, Tok, Token};
use jaq_core::load::parse::{BinaryOp, Term};
use jaq_core::load::span;
use jaq_core::path::Part;

use super::engine::{compile_rewritten, Modules};
use super::fast::Program;

/// How a split program runs on the items of an array.
pub enum Split {
    /// `.[] | f` (`.[]` is `.[] | .`): `f` on each item, its outputs as they come.
    Each(Program),
    /// `[.[] | f] | g`, `map(f) | g` (`| g` may be left out): `g` on the array of the
    /// outputs of `f` on each item.
    Collect(Program, Program),
}

/// Where a part of the program is: a range of its text, or None for `.`.
type Piece = Option<Range<usize>>;

/// `code` split, when it has one of [`Split`]'s shapes; compiled as `engine::compile` does
/// (globals `names`, `modules`).
pub fn split(code: &str, names: &[String], modules: &Modules) -> Option<Split> {
    let code = super::desugar::rewrite(code);
    let tokens = Lexer::new(code.as_str()).lex().ok()?;
    let term = jaq_core::load::parse(&code, |p| p.term())?;
    let text = |piece: Piece| match piece {
        Some(range) => blank_except(&code, range),
        None => Some(".".to_string()),
    };
    let part = |piece: Piece| {
        let text = text(piece)?;
        let (filter, _) = compile_rewritten(&text, names, modules).ok()?;
        Some(Program::new(filter, &text))
    };
    if let Some(f) = each(&code, &term, &tokens, code.len()) {
        return Some(Split::Each(part(f)?));
    }
    let (lhs, piped) = match &term {
        Term::BinOp(lhs, BinaryOp::Pipe(None), _) => (&**lhs, true),
        t => (t, false),
    };
    let (f, used) = match (lhs, tokens.as_slice()) {
        (Term::Arr(Some(inner)), [Token(s, Tok::Block(inner_tokens)), ..])
            if s.starts_with('[') =>
        {
            let (close, inside) = inner_tokens.split_last()?;
            (each(&code, inner, inside, span(&code, close.0).start)?, 1)
        }
        (Term::Call("map", args), [Token("map", Tok::Word), Token(s, Tok::Block(_)), ..])
            if args.len() == 1 && s.starts_with('(') =>
        {
            let r = span(&code, s);
            (Some(r.start + 1..r.end - 1), 2)
        }
        _ => return None,
    };
    let g = rest(&code, &tokens, used, code.len())?;
    if g.is_some() != piped {
        return None;
    }
    Some(Split::Collect(part(f)?, part(g)?))
}

/// `.[] | f` or `.[]` (also `.[]?`) as `term` and `tokens` (which end at `end`): where `f`
/// is.
fn each(code: &str, term: &Term<&str>, tokens: &[Token<&str>], end: usize) -> Option<Piece> {
    let (lhs, piped) = match term {
        Term::BinOp(lhs, BinaryOp::Pipe(None), _) => (&**lhs, true),
        t => (t, false),
    };
    let Term::Path(id, path) = lhs else {
        return None;
    };
    if !matches!(**id, Term::Id) || !matches!(path.0.as_slice(), [(Part::Range(None, None), _)]) {
        return None;
    }
    let used = match tokens {
        [Token(".", Tok::Sym), Token(b, Tok::Block(inner)), more @ ..]
            if b.starts_with('[') && inner.len() == 1 =>
        {
            if matches!(more.first(), Some(Token("?", Tok::Sym))) {
                3
            } else {
                2
            }
        }
        _ => return None,
    };
    let f = rest(code, tokens, used, end)?;
    (f.is_some() == piped).then_some(f)
}

/// What follows the first `used` tokens: nothing (`Some(None)`), or `| rest` (the range of
/// `rest`, up to `end`); None for anything else.
fn rest(code: &str, tokens: &[Token<&str>], used: usize, end: usize) -> Option<Piece> {
    match &tokens[used..] {
        [] => Some(None),
        [Token("|", Tok::Sym), first, ..] => Some(Some(span(code, first.0).start..end)),
        _ => None,
    }
}

/// `code` with every byte outside `keep` a blank, newlines kept.
fn blank_except(code: &str, keep: Range<usize>) -> Option<String> {
    let bytes = code
        .bytes()
        .enumerate()
        .map(|(i, b)| match b {
            _ if keep.contains(&i) => b,
            b'\n' => b'\n',
            _ => b' ',
        })
        .collect();
    String::from_utf8(bytes).ok()
}
