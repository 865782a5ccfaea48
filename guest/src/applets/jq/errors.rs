//! Compile errors in jq 1.8's words: `jq: error: foo/0 is not defined at <top-level>, line 1,
//! column 6:`, then the program line indented by four spaces and carets under the culprit.

use jaq_core::compile::Undefined;
use jaq_core::load::{self, lex, parse};

use super::engine::CompileError;

/// Where `part` (a slice of `code`) starts, or None if it is not inside `code`.
fn offset_in(code: &str, part: &str) -> Option<usize> {
    let start = (part.as_ptr() as usize).wrapping_sub(code.as_ptr() as usize);
    (start <= code.len()).then_some(start)
}

/// `message at <top-level>, line N, column C:`, the line, and `^` under `len` bytes.
pub fn located(code: &str, message: &str, offset: usize, len: usize) -> CompileError {
    // At the start of the character `offset` is in: one before the end may be inside the last.
    let offset = (0..=offset.min(code.len()))
        .rev()
        .find(|&i| code.is_char_boundary(i))
        .unwrap_or(0);
    let line_start = code[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = code[offset..].find('\n').map_or(code.len(), |i| offset + i);
    let line_no = code[..offset].matches('\n').count() + 1;
    let column = offset - line_start + 1;
    let carets = "^".repeat(len.clamp(1, (line_end - offset).max(1)));
    let pad = " ".repeat(offset - line_start);
    CompileError {
        message: format!(
            "{message} at <top-level>, line {line_no}, column {column}:\n    {}\n    {pad}{carets}",
            &code[line_start..line_end]
        ),
    }
}

/// What jq's parser would call the token `found`.
fn token_name(found: &str, expect_nothing: bool) -> String {
    let Some(first) = found.chars().next() else {
        return "end of file".into();
    };
    if first.is_ascii_alphabetic() || first == '_' {
        return "IDENT".into();
    }
    if first.is_ascii_digit() {
        return "LITERAL".into();
    }
    if first == '"' {
        return "QQSTRING_START".into();
    }
    if expect_nothing && matches!(first, ')' | ']' | '}') {
        return "INVALID_CHARACTER, expecting end of file".into();
    }
    let text: String = found.chars().take(2).collect();
    if text.len() == 1 || !text.chars().all(|c| c.is_ascii_punctuation()) {
        format!("'{first}'")
    } else {
        format!("'{text}'")
    }
}

fn syntax_error(code: &str, found: &str, expect_nothing: bool, expecting: &str) -> CompileError {
    let offset = offset_in(code, found).unwrap_or(code.len());
    let offset = if found.is_empty() {
        offset.saturating_sub(1)
    } else {
        offset
    };
    let name = token_name(found, expect_nothing);
    let message = format!("syntax error, unexpected {name}{expecting}");
    let len = found.chars().next().map_or(1, char::len_utf8);
    located(code, &message, offset, len)
}

/// Errors from lexing and parsing the program.
pub fn load_errors<P>(code: &str, errs: load::Errors<&str, P>) -> Vec<CompileError> {
    let mut out = Vec::new();
    for (_file, err) in errs {
        match err {
            load::Error::Lex(lex_errs) => {
                for (expect, rest) in lex_errs {
                    let at_end = matches!(expect, lex::Expect::Delim(_));
                    let found = if at_end { &code[code.len()..] } else { rest };
                    let closing = found.starts_with([')', ']', '}']);
                    out.push(syntax_error(code, found, closing, ""));
                }
            }
            load::Error::Parse(parse_errs) => {
                for (expect, found) in parse_errs {
                    let nothing = matches!(expect, parse::Expect::Nothing);
                    let expecting = match expect {
                        parse::Expect::Pattern => ", expecting BINDING or '[' or '{'",
                        _ => "",
                    };
                    out.push(syntax_error(code, found, nothing, expecting));
                }
            }
            load::Error::Io(io_errs) => {
                for (path, msg) in io_errs {
                    let offset = offset_in(code, path).unwrap_or(0);
                    out.push(located(code, &msg, offset, path.len()));
                }
            }
        }
    }
    out
}

/// Errors from resolving names (`foo/0 is not defined`, `$x is not defined`).
pub fn compile_errors<P>(
    code: &str,
    errs: jaq_core::compile::Errors<&str, P>,
) -> Vec<CompileError> {
    let mut out = Vec::new();
    for (_file, undefined) in errs {
        for (name, kind) in undefined {
            let offset = offset_in(code, name).unwrap_or(0);
            if matches!(name, "reduce" | "foreach") {
                // jaq parses `reduce f as $x (init)` and only then finds the arity wrong
                let paren = code[offset..].rfind(')').map_or(code.len(), |i| offset + i);
                let message = "syntax error, unexpected ')'";
                out.push(located(code, message, paren, 1));
                continue;
            }
            let mut start = offset;
            let message = match kind {
                Undefined::Filter(arity) => format!("{name}/{arity} is not defined"),
                Undefined::Label => {
                    // jq underlines the whole `break $name`
                    start = code[..offset].rfind("break").unwrap_or(offset);
                    format!("$*label-{} is not defined", name.trim_start_matches('$'))
                }
                Undefined::Mod => format!("module not found: {name}"),
                _ => format!("{name} is not defined"),
            };
            out.push(located(code, &message, start, offset + name.len() - start));
        }
    }
    out
}
