//! jq syntax that jaq's parser lacks, rewritten into forms it has before the program is
//! parsed:
//!
//! - alternatives `T as P1 ?// P2 | BODY` become
//!   `T as $__altN | null as [$every, $variable] | try ($__altN as P1 | BODY) catch ($__altN
//!   as P2 | BODY)`: every variable of every pattern is bound (null where its pattern did not
//!   bind it), and an error while trying one pattern (binding or body) tries the next; the
//!   last one's error stands;
//! - `{$name: PATTERN}` in an object pattern becomes `{$name, name: PATTERN}`;
//! - a number written with a leading dot (`.5`) gets its `0`;
//! - `..` becomes `_recurse_all`, which walks values without recursion (jaq-core's own `..`
//!   overflows the guest's stack thousands of levels before jq's 10,000);
//! - `$name::name`, how jq names the data of `import "file" as $name`, becomes `$name`;
//! - the source of `reduce`/`foreach` written with binary operators (`reduce .[] / .[] as
//!   $x (...)`, which jq's grammar takes) gets parentheses (jaq's takes one term there).
//!
//! The rewriting works on jaq's tokens (slices of the program), so strings and comments are
//! never touched. A program without these forms is returned unchanged.

use crate::limits::MAX_JQ_REWRITES;
use jaq_core::load::lex::{Lexer, StrPart, Tok, Token};
use jaq_core::load::span;

/// `code` with every `?//` chain and `$name:` pattern rewritten (or unchanged).
pub fn rewrite(code: &str) -> String {
    rewrite_with(code, true)
}

/// `code` rewritten as [`rewrite`] does, but with `..` kept: what compile errors quote.
pub fn rewrite_keeping_recursion(code: &str) -> String {
    rewrite_with(code, false)
}

fn rewrite_with(code: &str, recursion: bool) -> String {
    let mut code = code.to_string();
    for n in 0..MAX_JQ_REWRITES {
        let Ok(tokens) = Lexer::new(&code).lex() else {
            return code;
        };
        let Some((range, text)) = first_rewrite(&code, &tokens, n, recursion) else {
            return code;
        };
        code.replace_range(range, &text);
    }
    code
}

type Range = std::ops::Range<usize>;

/// A constant object key that is not a string (`{(0): 1}`), which jq refuses when compiling:
/// where it is, and jq's message.
pub fn constant_key_error(code: &str) -> Option<(Range, String)> {
    let tokens = Lexer::new(code).lex().ok()?;
    find_constant_key(code, &tokens)
}

fn find_constant_key(code: &str, tokens: &[Token<&str>]) -> Option<(Range, String)> {
    for token in tokens {
        let Tok::Block(inner) = &token.1 else {
            continue;
        };
        if token.0.starts_with('{') {
            let entries = inner.split(|t| matches!(t.1, Tok::Sym) && t.0 == ",");
            for entry in entries {
                if let [key, colon, ..] = entry {
                    if let (Tok::Block(k), true) = (&key.1, is_sym(Some(colon), ":")) {
                        if let [value, close] = &k[..] {
                            if key.0.starts_with('(') && close.0 == ")" {
                                if let Some(kind) = constant_kind(value) {
                                    let message =
                                        format!("Cannot use {kind} ({}) as object key", value.0);
                                    return Some((span(code, value.0), message));
                                }
                            }
                        }
                    }
                }
            }
        }
        if let Some(found) = find_constant_key(code, inner) {
            return Some(found);
        }
    }
    None
}

/// jq's compile errors in the directives that start a program: metadata (`module M;`,
/// `import "p" as x M;`, `include "p" M;`) that is not a constant object, and an import
/// path with interpolation. Where it is, and jq's message.
pub fn directive_error(code: &str) -> Option<(Range, String)> {
    let tokens = Lexer::new(code).lex().ok()?;
    let mut rest = &tokens[..];
    while let Some(first) = rest.first() {
        let end = rest.iter().position(|t| is_sym(Some(t), ";"))?;
        let directive = &rest[..end];
        let meta = match (first.0, directive) {
            ("module", [_, meta]) => Some(meta),
            ("include", [_, path, tail @ ..]) | ("import", [_, path, tail @ ..]) => {
                if let Tok::Str(parts) = &path.1 {
                    if parts.iter().any(|p| matches!(p, StrPart::Term(_))) {
                        let message = "Import path must be constant".to_string();
                        return Some((span(code, path.0), message));
                    }
                }
                match (first.0, tail) {
                    ("include", [meta]) | ("import", [_, _, meta]) => Some(meta),
                    _ => None,
                }
            }
            _ => return None,
        };
        if let Some(meta) = meta.filter(|m| !m.0.starts_with('{')) {
            let message = if is_constant(meta) {
                "Module metadata must be an object"
            } else {
                "Module metadata must be constant"
            };
            return Some((span(code, meta.0), message.to_string()));
        }
        rest = &rest[end + 1..];
    }
    None
}

/// Whether a token is a literal: a number, a string without interpolation, `true`, `false`,
/// `null`, or an array of literals.
fn is_constant(token: &Token<&str>) -> bool {
    match &token.1 {
        Tok::Num => true,
        Tok::Str(parts) => !parts.iter().any(|p| matches!(p, StrPart::Term(_))),
        Tok::Word => matches!(token.0, "true" | "false" | "null"),
        Tok::Block(inner) if token.0.starts_with('[') => inner
            .iter()
            .all(|t| is_constant(t) || is_sym(Some(t), ",") || is_sym(Some(t), "]")),
        _ => false,
    }
}

/// jq's compile error for a string literal with an escape JSON does not have (`"\\v"`):
/// where the escape is, and jq's message (which quotes the escape as a JSON text).
pub fn escape_error(code: &str) -> Option<(Range, String)> {
    let bytes = code.as_bytes();
    // Open interpolations `\(...)`: the depth of parentheses inside each.
    let mut open: Vec<usize> = Vec::new();
    let (mut in_str, mut i) = (false, 0);
    while i < bytes.len() {
        match (in_str, bytes[i]) {
            (true, b'"') => in_str = false,
            (true, b'\\') => {
                let next = *bytes.get(i + 1)?;
                if next == b'(' {
                    open.push(0);
                    in_str = false;
                } else if !b"\"\\/bfnrtu".contains(&next) {
                    let end = i + 1 + code[i + 1..].chars().next()?.len_utf8();
                    let escape = &code[i..end];
                    let message = format!(
                        "Invalid escape at line 1, column 4 (while parsing '\"{escape}\"')"
                    );
                    return Some((i..end, message));
                }
                i += 1;
            }
            (false, b'"') => in_str = true,
            (false, b'#') => {
                i += code[i..].find('\n').unwrap_or(code.len() - i);
            }
            (false, b'(') => {
                if let Some(depth) = open.last_mut() {
                    *depth += 1;
                }
            }
            (false, b')') => match open.last_mut() {
                Some(0) => {
                    open.pop();
                    in_str = true;
                }
                Some(depth) => *depth -= 1,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    None
}

fn constant_kind(token: &Token<&str>) -> Option<&'static str> {
    match (&token.1, token.0) {
        (Tok::Num, _) => Some("number"),
        (Tok::Word, "true" | "false") => Some("boolean"),
        (Tok::Word, "null") => Some("null"),
        _ => None,
    }
}

/// The first rewrite in `tokens` (searching nested blocks too): the byte range to replace and
/// its replacement.
fn first_rewrite(
    code: &str,
    tokens: &[Token<&str>],
    n: usize,
    recursion: bool,
) -> Option<(Range, String)> {
    for (i, token) in tokens.iter().enumerate() {
        if let Some(found) = leading_dot(code, token, tokens.get(i + 1)) {
            return Some(found);
        }
        if let Some(found) = data_import_name(code, token) {
            return Some(found);
        }
        if let Some(found) = recurse_all(code, token).filter(|_| recursion) {
            return Some(found);
        }
        if matches!(token.1, Tok::Word) && matches!(token.0, "reduce" | "foreach") {
            if let Some(found) = fold_source(code, &tokens[i + 1..]) {
                return Some(found);
            }
        }
        if token.0 == "as" && matches!(token.1, Tok::Word) {
            if let Some(found) = binding(code, &tokens[i + 1..], n) {
                return Some(found);
            }
        }
        if let Tok::Block(inner) = &token.1 {
            if let Some(found) = first_rewrite(code, inner, n, recursion) {
                return Some(found);
            }
        }
    }
    None
}

fn is_sym(token: Option<&Token<&str>>, sym: &str) -> bool {
    token.is_some_and(|t| matches!(t.1, Tok::Sym) && t.0 == sym)
}

/// After `as`: patterns separated by `?//`, then `|` and the body.
fn binding(code: &str, rest: &[Token<&str>], n: usize) -> Option<(Range, String)> {
    let mut patterns = vec![rest.first()?];
    let mut i = 1;
    while is_sym(rest.get(i), "?") && is_sym(rest.get(i + 1), "//") {
        patterns.push(rest.get(i + 2)?);
        i += 3;
    }
    if patterns.len() == 1 {
        return named_pattern(code, patterns[0]);
    }
    if !is_sym(rest.get(i), "|") {
        return None;
    }
    let body = &rest[i + 1..];
    let end = body_end(body).unwrap_or(body.len());
    let first = span(code, patterns[0].0).start;
    let stop = match body.get(end) {
        Some(t) => span(code, t.0).start,
        None if body.is_empty() => span(code, rest[i].0).end,
        None => block_end(code, body),
    };
    let body_text = &code[span(code, rest[i].0).end..stop];
    let mut vars: Vec<&str> = Vec::new();
    for p in &patterns {
        collect_vars(p, &mut vars);
    }
    let alt = format!("$__alt{n}");
    let mut chain = String::new();
    for (k, p) in patterns.iter().enumerate() {
        let attempt = format!("{alt} as {} |{body_text}", p.0);
        if k + 1 < patterns.len() {
            chain.push_str(&format!("try ({attempt}) catch ("));
        } else {
            chain.push_str(&attempt);
        }
    }
    chain.push_str(&")".repeat(patterns.len() - 1));
    let text = format!("{alt} | null as [{}] | {chain}", vars.join(", "));
    Some((first..stop, text))
}

/// `$name::name` (a variable token followed by `::name`): the `::name` to remove.
fn data_import_name(code: &str, var: &Token<&str>) -> Option<(Range, String)> {
    if !matches!(var.1, Tok::Var) {
        return None;
    }
    let end = span(code, var.0).end;
    let name = var.0.strip_prefix('$')?;
    let after = code[end..].strip_prefix("::")?.strip_prefix(name)?;
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if after.starts_with(ident) {
        return None;
    }
    Some((end..end + 2 + name.len(), String::new()))
}

/// After `reduce`/`foreach`: the source up to `as`, in parentheses, when it has a binary
/// operator.
fn fold_source(code: &str, rest: &[Token<&str>]) -> Option<(Range, String)> {
    let end = rest
        .iter()
        .position(|t| matches!(t.1, Tok::Word) && t.0 == "as")?;
    let binary = rest[..end].iter().any(|t| match t.1 {
        Tok::Sym => matches!(
            t.0,
            "+" | "-" | "*" | "/" | "%" | "==" | "!=" | "<" | "<=" | ">" | ">=" | "//"
        ),
        Tok::Word => matches!(t.0, "and" | "or"),
        _ => false,
    });
    if !binary {
        return None;
    }
    let range = span(code, rest[0].0).start..span(code, rest[end - 1].0).end;
    let text = format!("({})", &code[range.clone()]);
    Some((range, text))
}

/// `.` right before a number (`.5`): the number it means.
fn leading_dot(
    code: &str,
    dot: &Token<&str>,
    next: Option<&Token<&str>>,
) -> Option<(Range, String)> {
    let next = next.filter(|t| matches!(t.1, Tok::Num))?;
    let at = span(code, dot.0);
    let adjacent = matches!(dot.1, Tok::Sym) && dot.0 == "." && at.end == span(code, next.0).start;
    adjacent.then(|| (at, "0.".to_string()))
}

/// `..`: `_recurse_all`, spaced from a word it would otherwise run into.
fn recurse_all(code: &str, token: &Token<&str>) -> Option<(Range, String)> {
    if !(matches!(token.1, Tok::Sym) && token.0 == "..") {
        return None;
    }
    let at = span(code, token.0);
    let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '$');
    let before = if code[..at.start].ends_with(word) {
        " "
    } else {
        ""
    };
    let after = if code[at.end..].starts_with(word) {
        " "
    } else {
        ""
    };
    Some((at, format!("{before}_recurse_all{after}")))
}

/// The end of the last token of `body`, which ends its enclosing block or the program.
fn block_end(code: &str, body: &[Token<&str>]) -> usize {
    body.last().map_or(code.len(), |t| span(code, t.0).end)
}

/// Where the body (a pipe) ends in `tokens`: at a closing delimiter or `;`, or a keyword of
/// an enclosing form (`then`, `else`, `end`, `catch`...), skipping the forms the body opens
/// itself (`if ... end`, `try ... catch`, `def f: ...;`).
fn body_end(tokens: &[Token<&str>]) -> Option<usize> {
    let (mut ifs, mut tries, mut defs) = (0, 0, 0);
    for (i, token) in tokens.iter().enumerate() {
        match (&token.1, token.0) {
            (Tok::Sym, ")" | "]" | "}") => return Some(i),
            (Tok::Sym, ";") if defs == 0 => return Some(i),
            (Tok::Sym, ";") => defs -= 1,
            (Tok::Word, "def") => defs += 1,
            (Tok::Word, "if") => ifs += 1,
            (Tok::Word, "end") if ifs > 0 => ifs -= 1,
            (Tok::Word, "then" | "elif" | "else") if ifs > 0 => {}
            (Tok::Word, "try") => tries += 1,
            (Tok::Word, "catch") if tries > 0 => tries -= 1,
            (Tok::Word, "then" | "elif" | "else" | "end" | "catch") => return Some(i),
            _ => {}
        }
    }
    None
}

fn collect_vars<'a>(pattern: &Token<&'a str>, vars: &mut Vec<&'a str>) {
    match &pattern.1 {
        Tok::Var if !vars.contains(&pattern.0) => vars.push(pattern.0),
        Tok::Block(inner) => inner.iter().for_each(|t| collect_vars(t, vars)),
        _ => {}
    }
}

/// `{$name: P}` inside the object patterns of `pattern`: the first one, rewritten.
fn named_pattern(code: &str, pattern: &Token<&str>) -> Option<(Range, String)> {
    let Tok::Block(inner) = &pattern.1 else {
        return None;
    };
    for (i, token) in inner.iter().enumerate() {
        if pattern.0.starts_with('{')
            && matches!(token.1, Tok::Var)
            && is_sym(inner.get(i + 1), ":")
        {
            let name = &token.0[1..];
            let range = span(code, token.0).start..span(code, inner[i + 1].0).end;
            return Some((range, format!("{}, {name}:", token.0)));
        }
        if let Some(found) = named_pattern(code, token) {
            return Some(found);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::rewrite;

    #[test]
    fn recursion_becomes_a_native() {
        assert_eq!(rewrite("[..]"), "[_recurse_all]");
        assert_eq!(rewrite("..|.a?, \"..\""), "_recurse_all|.a?, \"..\"");
        assert_eq!(rewrite("1 as $x|..?"), "1 as $x|_recurse_all?");
        assert_eq!(rewrite("true and.."), "true and _recurse_all");
        assert_eq!(super::rewrite_keeping_recursion("[..] | .5"), "[..] | 0.5");
    }

    #[test]
    fn alternatives_become_try_chains() {
        assert_eq!(
            rewrite(".[] as [$a] ?// $b | [$a, $b]"),
            ".[] as $__alt0 | null as [$a, $b] | try ($__alt0 as [$a] | [$a, $b]) catch \
             ($__alt0 as $b | [$a, $b])"
        );
        assert_eq!(
            rewrite("[.[] as $a ?// [$a] | $a], 1"),
            "[.[] as $__alt0 | null as [$a] | try ($__alt0 as $a | $a) catch \
             ($__alt0 as [$a] | $a)], 1"
        );
    }

    #[test]
    fn bodies_keep_their_own_keywords() {
        assert_eq!(
            rewrite("(. as [$a] ?// $a | if $a then try 1 catch 2 else 3 end), 4"),
            "(. as $__alt0 | null as [$a] | try ($__alt0 as [$a] | if $a then try 1 catch 2 \
             else 3 end) catch ($__alt0 as $a | if $a then try 1 catch 2 else 3 end)), 4"
        );
    }

    #[test]
    fn named_object_patterns_bind_the_name_too() {
        assert_eq!(
            rewrite(". as {$a, $b:[$c, $d]} | $b"),
            ". as {$a, $b, b:[$c, $d]} | $b"
        );
    }

    #[test]
    fn fold_sources_with_operators_get_parentheses() {
        assert_eq!(
            rewrite("[reduce .[] / .[] as $i (0; . + $i)]"),
            "[reduce (.[] / .[]) as $i (0; . + $i)]"
        );
        assert_eq!(
            rewrite("foreach .[] - 1 as [$a] (0; 1)"),
            "foreach (.[] - 1) as [$a] (0; 1)"
        );
    }

    #[test]
    fn data_imports_may_be_named_with_their_module() {
        assert_eq!(
            rewrite("[$d::d[].a, $d::e, $d::dd]"),
            "[$d[].a, $d::e, $d::dd]"
        );
    }

    #[test]
    fn numbers_may_start_with_a_dot() {
        assert_eq!(rewrite("select(.>.00005)"), "select(.>0.00005)");
    }

    #[test]
    fn constant_keys_that_are_not_strings_are_refused() {
        use super::constant_key_error;
        assert_eq!(
            constant_key_error("{a: 1, (0): 1}"),
            Some((8..9, "Cannot use number (0) as object key".to_string()))
        );
        assert_eq!(
            constant_key_error(". as {(true): $x} | $x"),
            Some((7..11, "Cannot use boolean (true) as object key".to_string()))
        );
        assert_eq!(constant_key_error("{(\"a\"): 1, (.b): 2}"), None);
    }

    #[test]
    fn directives_need_constant_metadata_and_paths() {
        use super::directive_error;
        let error = directive_error;
        assert_eq!(
            error("module (.+1); 0"),
            Some((7..12, "Module metadata must be constant".to_string()))
        );
        assert_eq!(
            error("include \"a\" []; 0"),
            Some((12..14, "Module metadata must be an object".to_string()))
        );
        assert_eq!(
            error("include \"\\(a)\"; 0"),
            Some((8..14, "Import path must be constant".to_string()))
        );
        assert_eq!(
            error("module {a: 1}; import \"x\" as y {search: \"./\"}; 0"),
            None
        );
        assert_eq!(error("import \"x\" as $y; [1]"), None);
    }

    #[test]
    fn escapes_json_lacks_are_refused() {
        use super::escape_error;
        let message =
            |e: &str| format!("Invalid escape at line 1, column 4 (while parsing '\"{e}\"')");
        assert_eq!(escape_error(r#""u\vw""#), Some((2..4, message(r"\v"))));
        assert_eq!(
            escape_error(r#"include "\ "; 0"#),
            Some((9..11, message(r"\ ")))
        );
        assert_eq!(escape_error(r#""a\("\x")""#), Some((5..7, message(r"\x"))));
        for ok in [r#""\n\t\u00e9\\\"\/""#, r#""\(1 + (2)) \n" # "\v""#, "1"] {
            assert_eq!(escape_error(ok), None, "{ok}");
        }
    }

    #[test]
    fn other_programs_are_unchanged() {
        for code in [
            ". as [$a] | $a",
            "\"?//\" | . // 1",
            "{a: 1} as {$a} | $a",
            ".a?//1",
            ". 5",
            "reduce .[] as $x (0; . + $x)",
            "foreach (1 + 2) as $x (0; $x)",
        ] {
            assert_eq!(rewrite(code), code);
        }
    }
}
