//! Brace expansion, the first expansion: `a{b,c}d` → `abd acd`, `{1..5}`, `{a..e..2}`,
//! `{01..10}`. The parser has marked where it applies; this produces the words, bounded.

use crate::limits::MAX_BRACE_WORDS;
use crate::shell::ast::{BraceSeq, Param, ParamOp, Word, WordPart};
use crate::shell::parser::brace::mark_tilde_after_braces;

/// Whether `word` has brace expansions.
pub fn has_braces(word: &Word) -> bool {
    word.parts
        .iter()
        .any(|p| matches!(p, WordPart::BraceList(_) | WordPart::BraceSeq(_)))
}

/// The words `word` expands to (itself when it has no braces).
pub fn expand(word: &Word) -> Result<Vec<Word>, String> {
    if !has_braces(word) {
        return Ok(vec![word.clone()]);
    }
    let mut budget = 0usize;
    let lists = expand_parts(&word.parts, &mut budget, 0)?;
    Ok(lists
        .into_iter()
        .map(|parts| Word {
            parts: mark_tilde_after_braces(join_names(parts)),
        })
        .collect())
}

/// Joins a `$name` with the name characters that brace expansion put right after it: bash
/// expands braces in the text first, so `{$a,b}_c` reads the variable `a_c`.
fn join_names(parts: Vec<WordPart>) -> Vec<WordPart> {
    let mut out: Vec<WordPart> = Vec::with_capacity(parts.len());
    for part in parts {
        if let (WordPart::Literal(text), Some(WordPart::Param(pe))) = (&part, out.last_mut()) {
            if let (Param::Var(name), ParamOp::Plain, false, false) =
                (&mut pe.param, &pe.op, pe.indirect, pe.braced)
            {
                let end = text
                    .find(|c: char| c != '_' && !c.is_ascii_alphanumeric())
                    .unwrap_or(text.len());
                name.push_str(&text[..end]);
                if end < text.len() {
                    out.push(WordPart::Literal(text[end..].to_string()));
                }
                continue;
            }
        }
        out.push(part);
    }
    out
}

fn too_many() -> String {
    format!(
        "brace expansion: more than {MAX_BRACE_WORDS} words; for a long sequence use seq or a \
         counting loop (for ((i = 1; i <= n; i++)))"
    )
}

fn expand_parts(
    parts: &[WordPart],
    budget: &mut usize,
    depth: usize,
) -> Result<Vec<Vec<WordPart>>, String> {
    if depth > 100 {
        return Err("brace expansion: nested too deeply".into());
    }
    let mut acc: Vec<Vec<WordPart>> = vec![Vec::new()];
    for part in parts {
        let alternatives: Vec<Vec<WordPart>> = match part {
            WordPart::BraceList(words) => {
                let mut alts = Vec::new();
                for w in words {
                    alts.extend(expand_parts(&w.parts, budget, depth + 1)?);
                    if alts.len() > MAX_BRACE_WORDS {
                        return Err(too_many());
                    }
                }
                alts
            }
            WordPart::BraceSeq(seq) => sequence(seq)?
                .into_iter()
                .map(|s| vec![WordPart::Literal(s)])
                .collect(),
            other => {
                for prefix in &mut acc {
                    prefix.push(other.clone());
                }
                continue;
            }
        };
        let total = acc.len().saturating_mul(alternatives.len());
        *budget = budget.saturating_add(total);
        if total > MAX_BRACE_WORDS || *budget > MAX_BRACE_WORDS * 4 {
            return Err(too_many());
        }
        let mut next = Vec::with_capacity(total);
        for prefix in &acc {
            for alt in &alternatives {
                let mut parts = prefix.clone();
                parts.extend(alt.iter().cloned());
                next.push(parts);
            }
        }
        acc = next;
    }
    Ok(acc)
}

/// The elements of a sequence expression.
pub fn sequence(seq: &BraceSeq) -> Result<Vec<String>, String> {
    match *seq {
        BraceSeq::Int {
            start,
            end,
            step,
            width,
        } => {
            let step = step.unsigned_abs().max(1);
            let count = start.abs_diff(end) / step + 1;
            if count > MAX_BRACE_WORDS as u64 {
                return Err(too_many());
            }
            let mut out = Vec::with_capacity(count as usize);
            let mut v = i128::from(start);
            let (end, step) = (i128::from(end), i128::from(step));
            let up = start <= end as i64;
            while (up && v <= end) || (!up && v >= end) {
                out.push(pad(v, width));
                v = if up { v + step } else { v - step };
            }
            Ok(out)
        }
        BraceSeq::Char { start, end, step } => {
            let step = step.unsigned_abs().max(1) as usize;
            let (a, b) = (start as u32, end as u32);
            let chars: Vec<char> = if a <= b {
                (a..=b).step_by(step).filter_map(char::from_u32).collect()
            } else {
                (b..=a)
                    .rev()
                    .step_by(step)
                    .filter_map(char::from_u32)
                    .collect()
            };
            Ok(chars.into_iter().map(String::from).collect())
        }
    }
}

fn pad(v: i128, width: usize) -> String {
    if width == 0 {
        return v.to_string();
    }
    if v < 0 {
        format!("-{:0>w$}", -v, w = width.saturating_sub(1))
    } else {
        format!("{v:0>width$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::ast::Arg;
    use crate::shell::parse;

    fn words(src: &str) -> Vec<String> {
        let program = parse(&format!("echo {src}")).expect("parses");
        let crate::shell::ast::CommandKind::Simple(cmd) =
            &program.items[0].and_or.first.commands[0].kind
        else {
            return vec![];
        };
        let Some(Arg::Word(word)) = cmd.words.get(1) else {
            return vec![];
        };
        match expand(word) {
            Ok(ws) => ws
                .iter()
                .map(|w| {
                    w.parts
                        .iter()
                        .map(|p| match p {
                            WordPart::Literal(s) | WordPart::SingleQuoted(s) => s.clone(),
                            _ => "?".into(),
                        })
                        .collect()
                })
                .collect(),
            Err(e) => vec![e],
        }
    }

    #[test]
    fn lists_sequences_and_nesting() {
        assert_eq!(words("a{b,c}d"), ["abd", "acd"]);
        assert_eq!(words("{1..3}"), ["1", "2", "3"]);
        assert_eq!(words("{3..1}"), ["3", "2", "1"]);
        assert_eq!(words("{1..10..4}"), ["1", "5", "9"]);
        assert_eq!(words("{01..3}"), ["01", "02", "03"]);
        assert_eq!(words("{-1..1}"), ["-1", "0", "1"]);
        assert_eq!(words("{a..e..2}"), ["a", "c", "e"]);
        assert_eq!(words("{e..c}"), ["e", "d", "c"]);
        assert_eq!(words("{a,b{1,2}}"), ["a", "b1", "b2"]);
        assert_eq!(words("{x,y}{1,2}"), ["x1", "x2", "y1", "y2"]);
    }

    #[test]
    fn huge_expansions_fail() {
        assert_eq!(words("{1..2000000}"), [too_many()]);
        assert_eq!(words("{1..1000}{1..1000}{1..10}"), [too_many()]);
    }
}
