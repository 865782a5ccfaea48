//! jq's modules: finding `import`/`include` files in the search directories (and in an
//! import's own `{search: ...}`), data imports, and `modulemeta`.

use std::rc::Rc;

use jaq_core::load::lex::{Lexer, StrPart, Tok, Token};
use jaq_core::load::parse::Term;
use jaq_core::load::{File, Import};

use super::map::Map;
use super::val::Val;

/// Reads a file's text, if it exists and can be read.
pub type ReadFile = dyn Fn(&str) -> Option<String>;

/// Where `import`/`include` look for modules, and how to read a file there.
pub struct Modules {
    /// The search directories (`-L`), in order.
    pub dirs: Vec<String>,
    /// A file's text, if it exists and can be read.
    pub read: Box<ReadFile>,
}

impl Modules {
    /// jq's search for `import "rel"`: `DIR/rel.EXT`, then `DIR/rel/<last part of rel>.EXT`,
    /// for each search directory in turn (EXT: `jq` for code, `json` for data).
    pub fn find(
        &self,
        import: &Import<&str, String>,
        ext: &str,
    ) -> Result<File<String, String>, String> {
        let own = meta_search(import.meta.as_ref(), import.parent);
        self.find_in(import.path, ext, &own)
    }

    /// [`Modules::find`] in the directories `own`, then in the search directories.
    fn find_in(
        &self,
        rel: &str,
        ext: &str,
        own: &[String],
    ) -> Result<File<String, String>, String> {
        if rel.starts_with('/') {
            return Err("module path must be relative".into());
        }
        let last = rel.rsplit('/').next().unwrap_or(rel);
        for dir in own.iter().chain(&self.dirs) {
            for path in [
                format!("{dir}/{rel}.{ext}"),
                format!("{dir}/{rel}/{last}.{ext}"),
            ] {
                if let Some(code) = (self.read)(&path) {
                    let code = match ext {
                        "jq" => super::desugar::rewrite(&code),
                        _ => code,
                    };
                    return Ok(File { code, path });
                }
            }
        }
        Err(format!("module not found: {rel}"))
    }

    /// `import "rel" as $name`: the JSON texts of `rel.json`, as one array.
    pub fn data(&self, import: &Import<&str, String>) -> Result<Val, String> {
        let file = self.find(import, "json")?;
        let values = super::json::parse_all(file.code.as_bytes())
            .map_err(|e| format!("{}: {e}", file.path))?;
        Ok(Val::arr(values))
    }
}

/// The directories of an import's `{search: "dir"}` (or a list of them): relative ones
/// from the directory of the importing module.
fn meta_search(meta: Option<&Term<&str>>, parent: &str) -> Vec<String> {
    let Some(Term::Obj(entries)) = meta else {
        return Vec::new();
    };
    let base = parent.rsplit_once('/').map_or(".", |(dir, _)| dir);
    let mut dirs = Vec::new();
    for (key, value) in entries {
        if constant_str(key).as_deref() != Some("search") {
            continue;
        }
        let mut found = Vec::new();
        match value {
            Some(Term::Arr(Some(items))) => strings_in(items, &mut found),
            Some(term) => found.extend(constant_str(term)),
            None => {}
        }
        for dir in found {
            dirs.push(if dir.starts_with('/') {
                dir
            } else {
                normalize(&format!("{base}/{dir}"))
            });
        }
    }
    dirs
}

/// The strings of `a, b, ...` (an array's contents).
fn strings_in(term: &Term<&str>, out: &mut Vec<String>) {
    match term {
        Term::BinOp(l, jaq_core::load::parse::BinaryOp::Comma, r) => {
            strings_in(l, out);
            strings_in(r, out);
        }
        term => out.extend(constant_str(term)),
    }
}

/// A string constant (`"x"`, or a bare object key `x`).
fn constant_str(term: &Term<&str>) -> Option<String> {
    match term {
        Term::Str(None, parts) => parts
            .iter()
            .map(|p| match p {
                StrPart::Str(s) => Some((*s).to_string()),
                StrPart::Char(c) => Some(c.to_string()),
                StrPart::Term(_) => None,
            })
            .collect(),
        Term::Call(name, args) if args.is_empty() => Some((*name).to_string()),
        _ => None,
    }
}

/// `path` without `.` parts and with each `..` taking away the part before it.
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if path.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

impl Modules {
    /// `modulemeta`: module `name`'s metadata (the keys of its `module {...}`), `deps` (each
    /// import's metadata with `as`, `is_data` and `relpath`) and `defs` (`name/arity`).
    pub fn meta(&self, name: &Val) -> Result<Val, String> {
        let Val::Str(rel) = name else {
            return Err("modulemeta input module not a string".into());
        };
        let file = self.find_in(rel, "jq", &[])?;
        let tokens = Lexer::new(file.code.as_str())
            .lex()
            .map_err(|_| format!("syntax error in {}", file.path))?;
        let mut out = Map::new();
        let mut deps = Vec::new();
        let mut rest = &tokens[..];
        while let Some(end) = directive_end(rest) {
            match &rest[..end] {
                [m, meta] if m.0 == "module" => {
                    for (k, v) in object(meta).into_entries() {
                        out.insert(k, v);
                    }
                }
                [kind, path, tail @ ..] => deps.push(Val::Obj(Rc::new(dep(kind.0, path, tail)))),
                _ => {}
            }
            rest = &rest[end + 1..];
        }
        out.insert(Rc::from("deps"), Val::arr(deps));
        out.insert(Rc::from("defs"), Val::arr(def_names(rest)));
        Ok(Val::Obj(Rc::new(out)))
    }
}

/// Where the directive (`module`, `import`, `include`) at the start of `tokens` ends.
fn directive_end(tokens: &[Token<&str>]) -> Option<usize> {
    let first = tokens.first()?;
    if !matches!(first.1, Tok::Word) || !matches!(first.0, "module" | "import" | "include") {
        return None;
    }
    tokens
        .iter()
        .position(|t| matches!(t.1, Tok::Sym) && t.0 == ";")
}

/// One entry of `deps`: `import PATH as NAME META` or `include PATH META`.
fn dep(kind: &str, path: &Token<&str>, tail: &[Token<&str>]) -> Map {
    let (name, meta) = match (kind, tail) {
        ("import", [_, name, meta @ ..]) => (Some(name.0), meta.first()),
        (_, meta) => (None, meta.first()),
    };
    let mut dep = meta.map(object).unwrap_or_default();
    if let Some(name) = name {
        dep.insert(Rc::from("as"), Val::str(name.trim_start_matches('$')));
    }
    let is_data = name.is_some_and(|n| n.starts_with('$'));
    dep.insert(Rc::from("is_data"), Val::Bool(is_data));
    dep.insert(Rc::from("relpath"), constant(path));
    dep
}

/// `name/arity` of each top-level `def` in `tokens`.
fn def_names(mut tokens: &[Token<&str>]) -> Vec<Val> {
    let mut names = Vec::new();
    while let [def, name, rest @ ..] = tokens {
        if def.0 != "def" {
            break;
        }
        let arity = match rest.first() {
            Some(Token(args, Tok::Block(inner))) if args.starts_with('(') => {
                1 + inner.iter().filter(|t| t.0 == ";").count()
            }
            _ => 0,
        };
        names.push(Val::from(format!("{}/{arity}", name.0)));
        // The body ends at the `;` that closes this definition (a nested `def` has its own).
        let mut open = 1;
        let end = rest.iter().position(|t| {
            match (&t.1, t.0) {
                (Tok::Word, "def") => open += 1,
                (Tok::Sym, ";") => open -= 1,
                _ => {}
            }
            open == 0
        });
        let Some(end) = end else {
            break;
        };
        tokens = &rest[end + 1..];
    }
    names
}

/// A constant object's entries (`{search: "./"}`); empty for anything else.
fn object(token: &Token<&str>) -> Map {
    let mut map = Map::new();
    let Tok::Block(inner) = &token.1 else {
        return map;
    };
    if !token.0.starts_with('{') {
        return map;
    }
    for entry in inner.split(|t| matches!(t.1, Tok::Sym) && matches!(t.0, "," | "}")) {
        if let [key, colon, value] = entry {
            if colon.0 == ":" {
                let key = match constant(key) {
                    Val::Str(k) => k,
                    _ => Rc::from(key.0),
                };
                map.insert(key, constant(value));
            }
        }
    }
    map
}

/// The value of a constant token (a string, number, `true`/`false`/`null`, array, object).
fn constant(token: &Token<&str>) -> Val {
    match &token.1 {
        Tok::Str(parts) => {
            let mut text = String::new();
            for part in parts {
                match part {
                    StrPart::Str(s) => text.push_str(s),
                    StrPart::Char(c) => text.push(*c),
                    StrPart::Term(_) => {}
                }
            }
            Val::from(text)
        }
        Tok::Num => jaq_core::ValT::from_num(token.0).unwrap_or_default(),
        Tok::Word => match token.0 {
            "true" => Val::Bool(true),
            "false" => Val::Bool(false),
            _ => Val::Null,
        },
        Tok::Block(inner) if token.0.starts_with('[') => inner
            .iter()
            .filter(|t| !matches!(t.1, Tok::Sym))
            .map(constant)
            .collect(),
        Tok::Block(_) => Val::Obj(Rc::new(object(token))),
        _ => Val::Null,
    }
}
