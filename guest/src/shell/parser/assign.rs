//! Recognising assignments: `name=v`, `name+=v`, `name[i]=v`, and array elements `[k]=v`.
//!
//! A word is an assignment when it starts with an unquoted valid name, optionally followed
//! by a subscript, then an unquoted `=` or `+=`.

use super::super::ast::{ArrayElement, AssignValue, Assignment, Word, WordPart};
use super::atoms::{atoms, closing_bracket, to_parts, Atom};
use super::brace::mark_tilde;

/// A word split at its assignment operator.
#[derive(Debug, Clone, PartialEq)]
pub struct AssignSplit {
    /// The variable name.
    pub name: String,
    /// The subscript, if any.
    pub index: Option<Word>,
    /// `+=`.
    pub append: bool,
    /// Everything up to and including the `=`.
    pub prefix: Vec<WordPart>,
    /// Everything after the `=`.
    pub value: Vec<WordPart>,
}

/// Splits `parts` if they form an assignment.
pub fn split_assignment(parts: &[WordPart]) -> Option<AssignSplit> {
    if !may_be_assignment(parts) {
        return None;
    }
    let atoms = atoms(parts);
    let name_len = atoms
        .iter()
        .enumerate()
        .take_while(|(i, atom)| match atom {
            Atom::Char(c) => *c == '_' || c.is_ascii_alphabetic() || (*i > 0 && c.is_ascii_digit()),
            Atom::Part(_) => false,
        })
        .count();
    if name_len == 0 {
        return None;
    }
    let name = to_text(&atoms[..name_len]);
    let mut i = name_len;
    let mut index = None;
    if atoms.get(i) == Some(&Atom::Char('[')) {
        let close = closing_bracket(&atoms, i)?;
        index = Some(Word {
            parts: to_parts(atoms.get(i + 1..close)?),
        });
        i = close + 1;
    }
    let append = atoms.get(i) == Some(&Atom::Char('+'));
    if append {
        i += 1;
    }
    if atoms.get(i) != Some(&Atom::Char('=')) {
        return None;
    }
    Some(AssignSplit {
        name,
        index,
        append,
        prefix: to_parts(atoms.get(..=i)?),
        value: to_parts(atoms.get(i + 1..)?),
    })
}

/// A cheap test that rules out most words: a name must start the first part, and some
/// unquoted text must hold `=`.
fn may_be_assignment(parts: &[WordPart]) -> bool {
    let name_first = matches!(
        parts.first(),
        Some(WordPart::Literal(text)) if text.starts_with(|c: char| c == '_' || c.is_ascii_alphabetic())
    );
    name_first
        && parts
            .iter()
            .any(|part| matches!(part, WordPart::Literal(text) if text.contains('=')))
}

fn to_text(atoms: &[Atom<'_>]) -> String {
    atoms
        .iter()
        .filter_map(|atom| match atom {
            Atom::Char(c) => Some(*c),
            Atom::Part(_) => None,
        })
        .collect()
}

/// `word` as a scalar assignment (tilde prefixes marked in the value), if it is one.
pub fn scalar_assignment(word: &Word) -> Option<Assignment> {
    let split = split_assignment(&word.parts)?;
    Some(Assignment {
        name: split.name,
        index: split.index,
        append: split.append,
        value: AssignValue::Scalar(Word {
            parts: mark_tilde(split.value, true),
        }),
    })
}

/// `prefix(elements)` as an array assignment; `prefix` ends with `=`.
pub fn array_assignment(prefix: &Word, elements: Vec<ArrayElement>) -> Option<Assignment> {
    let split = split_assignment(&prefix.parts)?;
    Some(Assignment {
        name: split.name,
        index: split.index,
        append: split.append,
        value: AssignValue::Array(elements),
    })
}

/// An array element written `[index]=value` or `[index]+=value`, if `word` is one.
pub fn split_element(word: &Word) -> Option<ArrayElement> {
    let atoms = atoms(&word.parts);
    if atoms.first() != Some(&Atom::Char('[')) {
        return None;
    }
    let close = closing_bracket(&atoms, 0)?;
    let append = atoms.get(close + 1) == Some(&Atom::Char('+'));
    let equals = close + 1 + usize::from(append);
    if atoms.get(equals) != Some(&Atom::Char('=')) {
        return None;
    }
    Some(ArrayElement {
        index: Some(Word {
            parts: to_parts(atoms.get(1..close)?),
        }),
        append,
        value: Word {
            parts: mark_tilde(to_parts(atoms.get(equals + 1..)?), true),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(src: &str) -> String {
        let parts = vec![WordPart::Literal(src.to_string())];
        match split_assignment(&parts) {
            None => "-".to_string(),
            Some(s) => format!(
                "{}{}{}={:?}",
                s.name,
                s.index
                    .map(|w| format!("[{:?}]", w.parts))
                    .unwrap_or_default(),
                if s.append { "+" } else { "" },
                s.value
            ),
        }
    }

    macro_rules! splits {
        ($($name:ident: $src:expr => $out:expr;)*) => {$(
            #[test]
            fn $name() {
                assert_eq!(split($src), $out);
            }
        )*};
    }

    splits! {
        assign_plain: "x=1" => "x=[Literal(\"1\")]";
        assign_empty: "x=" => "x=[]";
        assign_append: "x+=a" => "x+=[Literal(\"a\")]";
        assign_index: "a[1]=v" => "a[[Literal(\"1\")]]=[Literal(\"v\")]";
        assign_nested_index: "a[b[1]]=v" => "a[[Literal(\"b[1]\")]]=[Literal(\"v\")]";
        assign_value_with_equals: "x=a=b" => "x=[Literal(\"a=b\")]";
        assign_underscore_digits: "_a1=2" => "_a1=[Literal(\"2\")]";
        assign_digit_start: "1x=2" => "-";
        assign_no_equals: "abc" => "-";
        assign_bad_name: "a-b=1" => "-";
        assign_plus_alone: "x+y=1" => "-";
        assign_unclosed_index: "a[1=v" => "-";
    }

    #[test]
    fn assign_quoted_equals_is_not_assignment() {
        let parts = vec![
            WordPart::Literal("x".into()),
            WordPart::SingleQuoted("=1".into()),
        ];
        assert_eq!(split_assignment(&parts), None);
    }

    #[test]
    fn assign_element_with_index() {
        let word = Word::literal("[k]=v");
        let element = split_element(&word);
        assert_eq!(
            element,
            Some(ArrayElement {
                index: Some(Word::literal("k")),
                append: false,
                value: Word::literal("v"),
            })
        );
        let appended = split_element(&Word::literal("[k]+=v")).map(|e| e.append);
        assert_eq!(appended, Some(true));
        assert_eq!(split_element(&Word::literal("[k]")), None);
    }
}
