//! Parameter expansion: `$x`, `${x:-w}`, `${#x}`, `${x#pat}`, `${x/pat/rep}`, `${x:1:2}`,
//! `${x^^}`, `${x@Q}`, `${!x}`, `${!pre*}`, `${a[@]}`, `${!a[@]}`... on scalars, arrays and
//! the positional parameters.

use super::pattern::{PChar, Pattern};
use super::{Builder, ExpandError, Expanded, Field};
use crate::applets::common::strftime;
use crate::limits::MAX_VALUE;
use crate::shell::ast::{
    Param, ParamExpansion, ParamOp, ReplaceMode, SpecialParam, Subscript, Word, WordPart,
};
use crate::shell::interp::io::Fds;
use crate::shell::interp::quote;
use crate::shell::interp::state::{is_name, Key, State, Value};
use crate::shell::interp::Sh;
use crate::shell::parser::word::{parse_heredoc_body, parse_subscript};

/// The value of a parameter while operators apply to it.
#[derive(Debug, Clone, PartialEq)]
pub enum PVal {
    /// Unset.
    Unset,
    /// A string.
    Str(String),
    /// Several values (`$@`, `${a[@]}`); `star`: joined when quoted.
    List {
        /// The values.
        items: Vec<String>,
        /// Written with `*`.
        star: bool,
    },
    /// Already expanded fields (an operand word such as `${x:-"a b"}`).
    Fields(Vec<Field>),
}

impl PVal {
    /// A list with no elements (quoted `"$@"` then expands to no word at all).
    pub fn is_empty_list(&self) -> bool {
        matches!(self, PVal::List { items, star: false } if items.is_empty())
    }
}

/// What the parameter was, for slicing and assignment.
enum Base {
    Positional,
    Array(Vec<i64>),
    /// An associative array: bash counts its elements from 1 when slicing.
    Assoc,
    Other,
}

impl Sh {
    /// Expands a `$...` / `${...}`.
    pub(super) async fn param(
        &self,
        pe: &ParamExpansion,
        quoted: bool,
        fds: &Fds,
    ) -> Expanded<PVal> {
        match &pe.op {
            ParamOp::PrefixNames { star } => {
                let Param::Var(prefix) = &pe.param else {
                    return Ok(PVal::Str(String::new()));
                };
                let names = self.state.borrow().names();
                let items = names
                    .into_iter()
                    .filter(|n| n.starts_with(prefix.as_str()))
                    .collect();
                return Ok(self.star_list(items, *star, quoted, ""));
            }
            ParamOp::Keys => {
                let (name, star) = match &pe.param {
                    Param::Element { name, index } => (name, matches!(index, Subscript::Star)),
                    Param::Var(name) => (name, false),
                    _ => return Ok(PVal::Str(String::new())),
                };
                let st = self.state.borrow();
                let items = match st.var(name) {
                    Some(v) if !st.nameref_into_array(name) => v.keys(),
                    _ => Vec::new(),
                };
                drop(st);
                return Ok(self.star_list(items, star, quoted, " "));
            }
            _ => {}
        }
        let (mut value, mut base, mut shown) = self.lookup(&pe.param, fds).await?;
        // What `:=` assigns and `@a` describes: the parameter named, after any indirection.
        let mut param = pe.param.clone();
        if pe.indirect && self.nameref_target(&pe.param).is_some() {
            // `${!ref}` of a name reference is the name it refers to.
            value = self
                .nameref_target(&pe.param)
                .map_or(PVal::Unset, PVal::Str);
        } else if pe.indirect {
            let target = match &value {
                PVal::Str(s) => s.clone(),
                PVal::List { items, .. } => items.join(" "),
                _ => String::new(),
            };
            if value == PVal::Unset {
                // An array without element 0 (`declare -A A`) names nothing: `${!A}` is empty.
                let exists = matches!(&pe.param, Param::Var(n) if self.state.borrow().is_set(n));
                // It names no variable, so `${!A@a}` shows no attributes.
                if exists && pe.op == ParamOp::Transform('a') {
                    return Ok(PVal::Unset);
                }
                if exists {
                    return self
                        .apply(pe, &param, value, base, &shown, quoted, fds)
                        .await;
                }
                return Err(ExpandError::Discard(format!(
                    "{shown}: invalid indirect expansion"
                )));
            }
            param = parse_param(&target)
                .ok_or_else(|| ExpandError::Discard(format!("{target}: invalid variable name")))?;
            (value, base, shown) = self.lookup(&param, fds).await?;
        }
        self.apply(pe, &param, value, base, &shown, quoted, fds)
            .await
    }

    /// The list of `${!prefix*}` or `${!a[*]}`. Unquoted with a null `IFS` bash makes it one
    /// word, the names joined by `null_ifs_joiner` ("" or " ") rather than separate words.
    fn star_list(
        &self,
        items: Vec<String>,
        star: bool,
        quoted: bool,
        null_ifs_joiner: &str,
    ) -> PVal {
        let null_ifs = self
            .state
            .borrow()
            .var("IFS")
            .is_some_and(|v| v.scalar().is_some_and(|s| s.is_empty()));
        if star && !quoted && null_ifs {
            return PVal::Str(items.join(null_ifs_joiner));
        }
        PVal::List { items, star }
    }

    /// The name a name reference refers to, if `param` is one.
    fn nameref_target(&self, param: &Param) -> Option<String> {
        let Param::Var(name) = param else {
            return None;
        };
        let s = self.state.borrow();
        let var = s.raw_var(name).filter(|v| v.attrs.nameref)?;
        var.scalar()
    }

    /// The value of a parameter, its kind, and its name for messages.
    async fn lookup(&self, param: &Param, fds: &Fds) -> Expanded<(PVal, Base, String)> {
        let s = || self.state.borrow();
        Ok(match param {
            Param::Var(name) => {
                if s().is_circular(name) {
                    self.report(fds, &format!("warning: {name}: circular name reference"))
                        .await;
                }
                let whole = s().nameref_whole_array(name);
                if let Some((array, star)) = whole {
                    let items = s().var(&array).map(|v| v.elements()).unwrap_or_default();
                    return Ok((PVal::List { items, star }, Base::Other, name.clone()));
                }
                let element = s().nameref_element_text(name);
                let value = match element {
                    Some((base, text)) => {
                        let key = self.key_from_text(&base, &text, fds).await?;
                        s().element(&base, &key)
                    }
                    None => s().get(name),
                };
                let value = value.map_or(PVal::Unset, PVal::Str);
                (value, Base::Other, name.clone())
            }
            Param::Positional(0) => (PVal::Str(s().arg0.clone()), Base::Other, "0".into()),
            Param::Positional(n) => {
                let value = s()
                    .positional
                    .get(*n as usize - 1)
                    .cloned()
                    .map_or(PVal::Unset, PVal::Str);
                (value, Base::Other, format!("${n}"))
            }
            Param::Special(sp) => {
                let st = s();
                let value = match sp {
                    SpecialParam::At | SpecialParam::Star => PVal::List {
                        items: st.positional.clone(),
                        star: *sp == SpecialParam::Star,
                    },
                    SpecialParam::Count => PVal::Str(st.positional.len().to_string()),
                    SpecialParam::Status => PVal::Str(st.status.to_string()),
                    SpecialParam::Pid => PVal::Str("1000".into()),
                    SpecialParam::LastBackground => st
                        .last_job
                        .map_or(PVal::Unset, |pid| PVal::Str(pid.to_string())),
                    SpecialParam::Flags => PVal::Str(st.opts.letters()),
                };
                let base = match sp {
                    SpecialParam::At | SpecialParam::Star => Base::Positional,
                    _ => Base::Other,
                };
                (value, base, special_name(*sp).into())
            }
            Param::Element { name, index } if s().nameref_into_array(name) => {
                let value = match index {
                    Subscript::Index(_) => PVal::Unset,
                    _ => PVal::List {
                        items: Vec::new(),
                        star: matches!(index, Subscript::Star),
                    },
                };
                (value, Base::Array(Vec::new()), name.clone())
            }
            Param::Element { name, index } => match index {
                Subscript::All | Subscript::Star => {
                    let st = s();
                    let var = st.var(name);
                    let items = var.map(|v| v.elements()).unwrap_or_default();
                    let indices = match var.and_then(|v| v.value.as_ref()) {
                        Some(Value::Indexed(map)) => map.keys().copied().collect(),
                        Some(Value::Str(_)) => vec![0],
                        _ => Vec::new(),
                    };
                    let is_assoc =
                        matches!(var.and_then(|v| v.value.as_ref()), Some(Value::Assoc(_)));
                    let star = matches!(index, Subscript::Star);
                    let base = if is_assoc {
                        Base::Assoc
                    } else {
                        Base::Array(indices)
                    };
                    (
                        PVal::List { items, star },
                        base,
                        format!("{name}[{}]", if star { '*' } else { '@' }),
                    )
                }
                Subscript::Index(word) => {
                    let key = self.subscript(name, word, fds).await?;
                    let shown = format!("{name}[{}]", key.clone().text());
                    let before_start = match key {
                        Key::Index(i) => self.before_start(name, i, fds).await,
                        Key::Assoc(_) => false,
                    };
                    let value = self
                        .state
                        .borrow()
                        .element(name, &key)
                        .filter(|_| !before_start)
                        .map_or(PVal::Unset, PVal::Str);
                    (value, Base::Other, shown)
                }
            },
        })
    }

    /// Whether a negative subscript points before the start of the array (or is used on a
    /// variable that is not an array): bash then warns, and the value is unset.
    async fn before_start(&self, name: &str, i: i64, fds: &Fds) -> bool {
        if i >= 0 {
            return false;
        }
        let end = match self.state.borrow().var(name).and_then(|v| v.value.as_ref()) {
            Some(Value::Indexed(map)) => map.keys().next_back().map_or(0, |k| k + 1),
            _ => 0,
        };
        if end + i < 0 {
            self.report(fds, &format!("{name}: bad array subscript"))
                .await;
            return true;
        }
        false
    }

    /// Resolves a subscript: text for associative arrays, arithmetic for indexed ones.
    pub async fn subscript(&self, name: &str, word: &Word, fds: &Fds) -> Expanded<Key> {
        if self.state.borrow().is_assoc(name) {
            return Ok(Key::Assoc(self.expand_string(word, fds).await?));
        }
        let text = self.index_text(word, fds).await?;
        Ok(Key::Index(self.arith_text(&text)?))
    }

    /// An indexed array's subscript as arithmetic text: as in `$(( ))`, single quotes (and
    /// backslashes) stay in the text, so `a['1']` is an arithmetic error, as in bash.
    pub async fn index_text(&self, word: &Word, fds: &Fds) -> Expanded<String> {
        if !word
            .parts
            .iter()
            .any(|p| matches!(p, WordPart::SingleQuoted(_)))
        {
            return self.expand_string(word, fds).await;
        }
        let parts = word.parts.iter().map(|p| match p {
            WordPart::SingleQuoted(s) => WordPart::Literal(format!("'{s}'")),
            p => p.clone(),
        });
        self.expand_string(
            &Word {
                parts: parts.collect(),
            },
            fds,
        )
        .await
    }

    /// Resolves a subscript given as text at run time (`unset 'A[$k]'`, `printf -v`, a name
    /// reference, `${!ref}`): expanded as the subscript of `${name[...]}` would be.
    pub async fn key_from_text(&self, name: &str, text: &str, fds: &Fds) -> Expanded<Key> {
        let word = parse_subscript(text)
            .map_err(|_| ExpandError::Discard(format!("{name}[{text}]: bad substitution")))?;
        self.subscript(name, &word, fds).await
    }

    /// [`Sh::key_from_text`] for builtins, which report a failure and go on.
    pub async fn element_key(&self, name: &str, text: &str, fds: &Fds) -> Result<Key, String> {
        self.key_from_text(name, text, fds)
            .await
            .map_err(|e| match e {
                ExpandError::Exit(m) | ExpandError::Discard(m) | ExpandError::Failed(m) => m,
                ExpandError::Flow(_) => format!("{name}[{text}]: interrupted"),
            })
    }

    fn unbound(&self, shown: &str) -> ExpandError {
        ExpandError::Exit(format!("{shown}: unbound variable"))
    }

    #[allow(clippy::too_many_arguments)]
    async fn apply(
        &self,
        pe: &ParamExpansion,
        param: &Param,
        value: PVal,
        base: Base,
        shown: &str,
        quoted: bool,
        fds: &Fds,
    ) -> Expanded<PVal> {
        let nounset = self.state.borrow().opts.nounset;
        let unset = value == PVal::Unset;
        let null = match &value {
            PVal::Unset => true,
            PVal::Str(s) => s.is_empty(),
            // Null when the elements joined are: with a blank, or with IFS's first character
            // for a quoted `*` (bash).
            PVal::List { items, star } => match items.as_slice() {
                [] => true,
                [one] => one.is_empty(),
                many => {
                    let joiner_empty = *star && quoted && self.state.borrow().ifs().is_empty();
                    joiner_empty && many.iter().all(String::is_empty)
                }
            },
            PVal::Fields(_) => false,
        };
        // `${@-x}`, `${a[@]+y}`: a list with no elements counts as unset for these operators.
        let absent = unset || matches!(&value, PVal::List { items, .. } if items.is_empty());
        let missing = |colon: bool| absent || (colon && null);
        match &pe.op {
            ParamOp::Default { colon, word } => {
                return if missing(*colon) {
                    self.operand(word, quoted, fds).await
                } else {
                    Ok(value)
                };
            }
            ParamOp::Alternative { colon, word } => {
                return if missing(*colon) {
                    Ok(PVal::Str(String::new()))
                } else {
                    self.operand(word, quoted, fds).await
                };
            }
            ParamOp::Assign { colon, word } => {
                if !missing(*colon) {
                    return Ok(value);
                }
                let text = self.expand_string(word, fds).await?;
                self.assign_param(param, shown, &text, fds).await?;
                return Ok(PVal::Str(text));
            }
            ParamOp::Error { colon, word } => {
                if !missing(*colon) {
                    return Ok(value);
                }
                let message = match word {
                    Some(w) => self.expand_string(w, fds).await?,
                    None if *colon => "parameter null or not set".into(),
                    None => "parameter not set".into(),
                };
                let shown = shown.strip_prefix('$').unwrap_or(shown);
                return Err(ExpandError::Exit(format!("{shown}: {message}")));
            }
            _ => {}
        }
        if unset && nounset && !matches!(pe.op, ParamOp::Keys | ParamOp::PrefixNames { .. }) {
            return Err(self.unbound(shown));
        }
        match &pe.op {
            ParamOp::Plain => Ok(value),
            ParamOp::Length => Ok(PVal::Str(match &value {
                PVal::List { items, .. } => items.len().to_string(),
                PVal::Str(s) => s.chars().count().to_string(),
                _ => "0".into(),
            })),
            ParamOp::RemovePrefix { longest, pattern } => {
                let p = self.expand_pattern(pattern, fds).await?;
                Ok(map(value, |s| remove_prefix(s, &p, *longest)))
            }
            ParamOp::RemoveSuffix { longest, pattern } => {
                let p = self.expand_pattern(pattern, fds).await?;
                Ok(map(value, |s| remove_suffix(s, &p, *longest)))
            }
            ParamOp::Replace {
                mode,
                pattern,
                replacement,
            } => {
                let chars = self.expand_pchars(pattern, fds).await?;
                let anchored = matches!(mode, ReplaceMode::Prefix | ReplaceMode::Suffix);
                if chars.is_empty() && !anchored {
                    return Ok(value);
                }
                let p = Pattern::new(&chars);
                let rep = self.expand_pchars(replacement, fds).await?;
                Ok(map(value, |s| replace(s, &p, &rep, *mode)))
            }
            ParamOp::Substring { offset, length } => {
                let off = self.arith_word(offset, fds).await?;
                let len = match length {
                    Some(w) => Some(self.arith_word(w, fds).await?),
                    None => None,
                };
                self.substring(value, base, off, len)
            }
            ParamOp::Upper { all, pattern }
            | ParamOp::Lower { all, pattern }
            | ParamOp::Toggle { all, pattern } => {
                let upper = match pe.op {
                    ParamOp::Upper { .. } => Some(true),
                    ParamOp::Lower { .. } => Some(false),
                    _ => None,
                };
                let p = match pattern {
                    Some(w) => Some(self.expand_pattern(w, fds).await?),
                    None => None,
                };
                Ok(map(value, |s| change_case(s, upper, *all, p.as_ref())))
            }
            ParamOp::Transform('P') => self.prompt(value, fds).await,
            ParamOp::Transform(c) => Ok(self.transform(*c, value, param)),
            _ => Ok(value),
        }
    }

    /// An operand word (`${x:-word}`), expanded with the quoting of the expansion itself.
    async fn operand(&self, word: &Word, quoted: bool, fds: &Fds) -> Expanded<PVal> {
        let mut b = Builder::default();
        self.expand_parts(&word.parts, &mut b, quoted, true, fds)
            .await?;
        Ok(PVal::Fields(b.finish()))
    }

    async fn assign_param(
        &self,
        param: &Param,
        shown: &str,
        text: &str,
        fds: &Fds,
    ) -> Expanded<()> {
        let result = match param {
            Param::Var(name) => self.state.borrow_mut().assign(name, text.into(), false),
            Param::Element {
                name,
                index: Subscript::Index(w),
            } => {
                let key = self.subscript(name, w, fds).await?;
                self.state
                    .borrow_mut()
                    .assign_element(name, key, text.into(), false)
            }
            _ => Err(format!("{shown}: cannot assign in this way")),
        };
        result.map_err(ExpandError::Discard)
    }

    fn substring(&self, value: PVal, base: Base, off: i64, len: Option<i64>) -> Expanded<PVal> {
        match value {
            PVal::List { items, star } => {
                // A list cannot be cut from its end, unlike a string.
                if let Some(l) = len.filter(|&l| l < 0) {
                    return Err(ExpandError::Discard(format!(
                        "{l}: substring expression < 0"
                    )));
                }
                let items = match base {
                    Base::Positional => {
                        let mut all = vec![self.state.borrow().arg0.clone()];
                        all.extend(items);
                        let start = if off < 0 { all.len() as i64 + off } else { off };
                        if start < 0 {
                            Vec::new()
                        } else {
                            slice_items(all, start, len)
                        }
                    }
                    Base::Array(indices) => {
                        let end = indices.last().map_or(0, |i| i + 1);
                        let start = if off < 0 { end + off } else { off };
                        if start < 0 {
                            Vec::new()
                        } else {
                            let from = indices
                                .iter()
                                .position(|&i| i >= start)
                                .unwrap_or(items.len());
                            slice_items(items.into_iter().skip(from).collect(), 0, len)
                        }
                    }
                    Base::Assoc => {
                        // Counted from 1: offsets 0 and 1 are both the first element, and a
                        // negative one may reach one place before it.
                        let first = if off < 0 {
                            items.len() as i64 + off + 1
                        } else {
                            off
                        };
                        if first < 0 {
                            Vec::new()
                        } else {
                            slice_items(items, (first - 1).max(0), len)
                        }
                    }
                    Base::Other => slice_items(items, off.max(0), len),
                };
                Ok(PVal::List { items, star })
            }
            PVal::Str(s) => {
                let chars: Vec<char> = s.chars().collect();
                let n = chars.len() as i64;
                let start = if off < 0 { n + off } else { off };
                if start < 0 || start > n {
                    return Ok(PVal::Str(String::new()));
                }
                let end = match len {
                    None => n,
                    Some(l) if l < 0 => {
                        let end = n + l;
                        if end < start {
                            return Err(ExpandError::Discard(format!(
                                "{l}: substring expression < 0"
                            )));
                        }
                        end
                    }
                    Some(l) => (start + l).min(n),
                };
                Ok(PVal::Str(
                    chars[start as usize..end as usize].iter().collect(),
                ))
            }
            other => Ok(other),
        }
    }

    fn transform(&self, c: char, value: PVal, param: &Param) -> PVal {
        let state = self.state.borrow();
        let var_name = match param {
            Param::Var(n) | Param::Element { name: n, .. } => Some(n.as_str()),
            _ => None,
        };
        match c {
            'Q' => map(value, |s| quote::q(&s)),
            'E' => map(value, |s| quote::unescape_c(&s)),
            'U' => map(value, |s| change_case(s, Some(true), true, None)),
            'L' => map(value, |s| change_case(s, Some(false), true, None)),
            'u' => map(value, |s| change_case(s, Some(true), false, None)),
            'a' => {
                let flags = var_name
                    .and_then(|n| state.var(n))
                    .map(|v| quote::attr_letters(v).replace('-', ""))
                    .unwrap_or_default();
                match value {
                    // `declare -A m` has attributes but no value yet.
                    PVal::Unset if var_name.is_some() => PVal::Str(flags),
                    value => map(value, |_| flags.clone()),
                }
            }
            'A' => self.assignment_text(value, param, &state),
            'K' | 'k' => {
                let Some(name) = var_name else {
                    return map(value, |s| quote::q(&s));
                };
                let Some(var) = state.var(name) else {
                    return value;
                };
                if !matches!(var.value, Some(Value::Assoc(_) | Value::Indexed(_))) {
                    return map(value, |s| quote::q(&s));
                }
                let pairs: Vec<String> = var
                    .keys()
                    .into_iter()
                    .zip(var.elements())
                    .map(|(k, v)| {
                        if c == 'K' {
                            format!("{k} {}", quote::double(&v))
                        } else {
                            format!("{k} {v}")
                        }
                    })
                    .collect();
                let assoc = matches!(var.value, Some(Value::Assoc(_)));
                // bash ends an associative array's `@K` with a space.
                PVal::Str(pairs.join(" ") + if assoc && c == 'K' { " " } else { "" })
            }
            _ => value,
        }
    }

    /// `${x@P}`: the value expanded as a prompt string: escapes decoded, then parameter,
    /// arithmetic and command substitutions expanded.
    async fn prompt(&self, value: PVal, fds: &Fds) -> Expanded<PVal> {
        let now = (self.world.host.now_ms() / 1000.0).floor() as i64;
        let expand = |s: &str| decode_prompt(s, &self.state.borrow(), now);
        let items = match value {
            PVal::Str(s) => return Ok(PVal::Str(self.expand_prompt(&expand(&s), fds).await?)),
            PVal::List { items, star } => (items, star),
            other => return Ok(other),
        };
        let mut out = Vec::new();
        for item in items.0 {
            out.push(self.expand_prompt(&expand(&item), fds).await?);
        }
        Ok(PVal::List {
            items: out,
            star: items.1,
        })
    }

    /// A prompt string (`PS4`) expanded as `${x@P}` does; as written when that fails.
    pub(crate) async fn expand_prompt_string(&self, text: &str, fds: &Fds) -> String {
        match self.prompt(PVal::Str(text.to_string()), fds).await {
            Ok(PVal::Str(s)) => s,
            _ => text.to_string(),
        }
    }

    /// A decoded prompt string with its expansions done (left as is when it does not parse).
    async fn expand_prompt(&self, decoded: &str, fds: &Fds) -> Expanded<String> {
        let chars: Vec<char> = decoded.chars().collect();
        let line = self.state.borrow().line;
        match parse_heredoc_body(&chars, line, 0) {
            Ok(word) => self.expand_string(&word, fds).await,
            Err(_) => Ok(decoded.to_string()),
        }
    }

    /// `${x@A}`: the statement that would recreate the parameter (`declare -a a=(...)`
    /// for a whole array, `set -- ...` for the positional parameters).
    fn assignment_text(&self, value: PVal, param: &Param, state: &State) -> PVal {
        let (name, whole) = match param {
            Param::Var(n) => (n.as_str(), false),
            Param::Element { name, index } => {
                (name.as_str(), !matches!(index, Subscript::Index(_)))
            }
            Param::Special(SpecialParam::At | SpecialParam::Star) => {
                let PVal::List { items, .. } = value else {
                    return value;
                };
                let words: Vec<String> = items.iter().map(|s| quote::q(s)).collect();
                return PVal::Str(format!("set -- {}", words.join(" ")));
            }
            _ => return value,
        };
        let Some(var) = state.var(name) else {
            return value;
        };
        if whole {
            let line = quote::declaration(name, var);
            return PVal::Str(line.trim_end_matches('\n').to_string());
        }
        let letters = quote::attr_letters(var).replace('-', "");
        let prefix = if letters.is_empty() {
            String::new()
        } else {
            format!("declare -{letters} ")
        };
        match value {
            PVal::Unset if letters.is_empty() => PVal::Unset,
            PVal::Unset => PVal::Str(format!("{prefix}{name}")),
            value => map(value, |s| format!("{prefix}{name}={}", quote::q(&s))),
        }
    }

    /// The separator `"$*"` joins with: IFS's first character (a space when IFS is unset,
    /// nothing when it is empty).
    fn ifs_first(&self) -> String {
        self.state
            .borrow()
            .ifs()
            .chars()
            .next()
            .map(String::from)
            .unwrap_or_default()
    }

    /// Pushes a parameter's value into the builder.
    pub(super) fn push_value(&self, value: PVal, b: &mut Builder, quoted: bool) -> Expanded<()> {
        match value {
            PVal::Unset => Ok(()),
            PVal::Str(s) => b.push(&s, quoted, !quoted),
            PVal::Fields(fields) => b.append_fields(fields),
            PVal::List { items, star } => {
                if !quoted && b.no_split {
                    // `s=$*` joins with IFS's first character, `s=$@` with a space.
                    let sep = if star { self.ifs_first() } else { " ".into() };
                    return b.push(&items.join(&sep), false, false);
                }
                if quoted && star {
                    let sep = self.ifs_first();
                    return b.push(&items.join(&sep), true, false);
                }
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        b.break_field();
                    }
                    b.push(item, quoted, !quoted)?;
                }
                Ok(())
            }
        }
    }
}

/// `${x@P}`'s first step: the backslash escapes of a prompt string (`\\u`, `\\w`, `\\t`,
/// `\\D{fmt}`, octal...) decoded, what they stand for quoted against the expansions that
/// follow (as bash does with `promptvars` on). `\\$` is `$` (the sandbox's user is not
/// root); times are UTC, the sandbox's time zone.
fn decode_prompt(s: &str, state: &State, now: i64) -> String {
    let var = |name: &str| state.get(name).unwrap_or_default();
    let time = |format: &str| strftime(format, now, 0);
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let value = match e {
            'a' => "\x07".into(),
            'e' => "\x1b".into(),
            'n' => "\n".into(),
            'r' => "\r".into(),
            '\\' => "\\".into(),
            '$' => "\\$".into(),
            '[' | ']' => String::new(),
            '0'..='7' => {
                let mut code = e.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            code = code * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                char::from_u32(code & 0xff)
                    .map(String::from)
                    .unwrap_or_default()
            }
            other => {
                let text = match other {
                    's' => "bash".into(),
                    'v' => "5.2".into(),
                    'V' => "5.2.15".into(),
                    'u' => var("USER"),
                    'h' => var("HOSTNAME").split('.').next().unwrap_or("").into(),
                    'H' => var("HOSTNAME"),
                    'w' => tilde_dir(&state.cwd, &var("HOME")),
                    'W' => match state.cwd.as_str() {
                        "/" => "/".into(),
                        pwd if pwd == var("HOME") => "~".into(),
                        pwd => pwd.rsplit('/').next().unwrap_or("").into(),
                    },
                    'd' => time("%a %b %d"),
                    't' => time("%H:%M:%S"),
                    'T' => time("%I:%M:%S"),
                    '@' => time("%I:%M %p"),
                    'A' => time("%H:%M"),
                    'D' if chars.peek() == Some(&'{') => {
                        chars.next();
                        let format: String = chars.by_ref().take_while(|&c| c != '}').collect();
                        time(if format.is_empty() { "%X" } else { &format })
                    }
                    'l' => "tty".into(),
                    'j' | '#' => "0".into(),
                    '!' => "1".into(),
                    other => format!("\\{other}"),
                };
                quote_for_heredoc(&text)
            }
        };
        out.push_str(&value);
    }
    out
}

/// `\\w`: the working directory, `~` for the home directory.
fn tilde_dir(pwd: &str, home: &str) -> String {
    match pwd.strip_prefix(home) {
        Some(rest) if !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) => {
            format!("~{rest}")
        }
        _ => pwd.into(),
    }
}

/// `text` with the characters a here-document body expands (`$`, `` ` ``, `\\`) escaped.
fn quote_for_heredoc(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if matches!(c, '$' | '`' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn slice_items(items: Vec<String>, start: i64, len: Option<i64>) -> Vec<String> {
    let n = items.len() as i64;
    if start >= n {
        return Vec::new();
    }
    let end = match len {
        None => n,
        Some(l) if l < 0 => (n + l).max(start),
        Some(l) => (start + l).min(n),
    };
    items
        .into_iter()
        .skip(start as usize)
        .take((end - start).max(0) as usize)
        .collect()
}

fn special_name(sp: SpecialParam) -> &'static str {
    match sp {
        SpecialParam::At => "@",
        SpecialParam::Star => "*",
        SpecialParam::Count => "#",
        SpecialParam::Status => "?",
        SpecialParam::Pid => "$",
        SpecialParam::LastBackground => "!",
        SpecialParam::Flags => "-",
    }
}

/// `name`, `name[sub]`, a positional number or a special character, as `${!ref}` names them.
fn parse_param(text: &str) -> Option<Param> {
    if let Ok(n) = text.parse::<u32>() {
        return Some(Param::Positional(n));
    }
    let special = match text {
        "@" => Some(SpecialParam::At),
        "*" => Some(SpecialParam::Star),
        "#" => Some(SpecialParam::Count),
        "?" => Some(SpecialParam::Status),
        "$" => Some(SpecialParam::Pid),
        "!" => Some(SpecialParam::LastBackground),
        "-" => Some(SpecialParam::Flags),
        _ => None,
    };
    if let Some(sp) = special {
        return Some(Param::Special(sp));
    }
    if let Some((name, rest)) = text.split_once('[') {
        let sub = rest.strip_suffix(']')?;
        if !is_name(name) {
            return None;
        }
        let index = match sub {
            "@" => Subscript::All,
            "*" => Subscript::Star,
            s => Subscript::Index(parse_subscript(s).ok()?),
        };
        return Some(Param::Element {
            name: name.into(),
            index,
        });
    }
    is_name(text).then(|| Param::Var(text.into()))
}

/// Applies `f` to a string or to every element of a list.
fn map(value: PVal, mut f: impl FnMut(String) -> String) -> PVal {
    match value {
        PVal::Str(s) => PVal::Str(f(s)),
        PVal::List { items, star } => PVal::List {
            items: items.into_iter().map(f).collect(),
            star,
        },
        other => other,
    }
}

/// Whether the execution still has time: the pattern operators below try a match at every
/// position, quadratic work (or worse) over a long value, which never yields to the shell's
/// deadline checks. Once out of time they find nothing, and the shell ends the execution.
fn in_time<T>(_: &T) -> bool {
    !crate::task::out_of_time()
}

fn remove_prefix(s: String, p: &Pattern, longest: bool) -> String {
    if let Some(lit) = p.literal() {
        return match s.strip_prefix(lit.as_str()) {
            Some(rest) => rest.to_string(),
            None => s,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    let ends: Box<dyn Iterator<Item = usize>> = if longest {
        Box::new((0..=n).rev())
    } else {
        Box::new(0..=n)
    };
    match ends
        .take_while(in_time)
        .find(|&i| p.matches_chars(&chars[..i]))
    {
        Some(i) => chars[i..].iter().collect(),
        None => s,
    }
}

fn remove_suffix(s: String, p: &Pattern, longest: bool) -> String {
    if let Some(lit) = p.literal() {
        return match s.strip_suffix(lit.as_str()) {
            Some(rest) => rest.to_string(),
            None => s,
        };
    }
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    let starts: Box<dyn Iterator<Item = usize>> = if longest {
        Box::new(0..=n)
    } else {
        Box::new((0..=n).rev())
    };
    match starts
        .take_while(in_time)
        .find(|&i| p.matches_chars(&chars[i..]))
    {
        Some(i) => chars[..i].iter().collect(),
        None => s,
    }
}

/// The replacement for one match: unquoted `&` stands for the matched text (bash 5.2's
/// `patsub_replacement`).
fn replacement(rep: &[PChar], matched: &[char]) -> String {
    let mut out = String::new();
    for &(c, quoted) in rep {
        if out.len() > MAX_VALUE {
            break; // too large already: the expansion fails (see `too_large`)
        }
        if c == '&' && !quoted {
            out.extend(matched);
        } else {
            out.push(c);
        }
    }
    out
}

fn replace(s: String, p: &Pattern, rep: &[PChar], mode: ReplaceMode) -> String {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    match mode {
        ReplaceMode::Prefix => match (0..=n)
            .rev()
            .take_while(in_time)
            .find(|&j| p.matches_chars(&chars[..j]))
        {
            Some(j) => {
                let mut out = replacement(rep, &chars[..j]);
                out.extend(&chars[j..]);
                out
            }
            None => s,
        },
        ReplaceMode::Suffix => match (0..=n)
            .take_while(in_time)
            .find(|&i| p.matches_chars(&chars[i..]))
        {
            Some(i) => {
                let mut out: String = chars[..i].iter().collect();
                out.push_str(&replacement(rep, &chars[i..]));
                out
            }
            None => s,
        },
        ReplaceMode::First | ReplaceMode::All => {
            let all = mode == ReplaceMode::All;
            let literal = p.literal().map(|l| l.chars().collect::<Vec<char>>());
            // A literal pattern's replacement is the same at every match: made once.
            let fixed = literal.as_ref().map(|lit| replacement(rep, lit));
            let mut out = String::new();
            let mut i = 0;
            let mut replaced = false;
            // Past MAX_VALUE the expansion fails (see `too_large`): `${x//0/$x}` of 100,000
            // zeros would make 10 GB.
            while i < n && out.len() <= MAX_VALUE {
                if replaced && !all {
                    break;
                }
                let end = match &literal {
                    Some(lit) => {
                        (chars[i..].starts_with(lit) && !lit.is_empty()).then_some(i + lit.len())
                    }
                    None => (i + 1..=n)
                        .rev()
                        .take_while(in_time)
                        .find(|&j| p.matches_chars(&chars[i..j])),
                };
                match end {
                    Some(j) => {
                        match &fixed {
                            Some(text) => out.push_str(text),
                            None => out.push_str(&replacement(rep, &chars[i..j])),
                        }
                        i = j;
                        replaced = true;
                    }
                    None => {
                        out.push(chars[i]);
                        i += 1;
                    }
                }
            }
            out.extend(&chars[i..]);
            out
        }
    }
}

/// `upper`: to upper case, to lower case, or (None) swapped. A character whose mapping is
/// more than one character (`ß` to `SS`) stays as it is, as bash's per-character mapping does.
pub(crate) fn change_case(
    s: String,
    upper: Option<bool>,
    all: bool,
    p: Option<&Pattern>,
) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        let eligible = (all || i == 0) && p.is_none_or(|p| p.matches(&c.to_string()));
        if eligible {
            let mut mapped = match upper.unwrap_or(c.is_lowercase()) {
                true => c.to_uppercase().collect::<Vec<_>>(),
                false => c.to_lowercase().collect(),
            };
            out.push(match mapped.len() {
                1 => mapped.remove(0),
                _ => c,
            });
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pat(s: &str) -> Pattern {
        Pattern::from_text(s)
    }

    fn rep(s: &str) -> Vec<PChar> {
        s.chars().map(|c| (c, false)).collect()
    }

    #[test]
    fn prefix_suffix_and_replace() {
        let s = || "path/to/file.tar.gz".to_string();
        assert_eq!(remove_prefix(s(), &pat("*/"), false), "to/file.tar.gz");
        assert_eq!(remove_prefix(s(), &pat("*/"), true), "file.tar.gz");
        assert_eq!(remove_suffix(s(), &pat(".*"), false), "path/to/file.tar");
        assert_eq!(remove_suffix(s(), &pat(".*"), true), "path/to/file");
        assert_eq!(
            replace("abcabc".into(), &pat("b*"), &rep("X"), ReplaceMode::First),
            "aX"
        );
        assert_eq!(
            replace("abcabc".into(), &pat("b"), &rep(""), ReplaceMode::All),
            "acac"
        );
        assert_eq!(
            replace("abcabc".into(), &pat("[ac]"), &rep("."), ReplaceMode::All),
            ".b..b."
        );
        assert_eq!(
            replace("abcabc".into(), &pat("a"), &rep("Z"), ReplaceMode::Prefix),
            "Zbcabc"
        );
        assert_eq!(
            replace("abcabc".into(), &pat("c"), &rep("Z"), ReplaceMode::Suffix),
            "abcabZ"
        );
        assert_eq!(
            replace("abc".into(), &pat("b"), &rep("[&]"), ReplaceMode::First),
            "a[b]c"
        );
    }

    #[test]
    fn case_changes() {
        assert_eq!(
            change_case("abcabc".into(), Some(true), false, None),
            "Abcabc"
        );
        assert_eq!(
            change_case("abcabc".into(), Some(true), true, Some(&pat("[ab]"))),
            "ABcABc"
        );
        assert_eq!(change_case("ABC".into(), Some(false), false, None), "aBC");
        assert_eq!(
            change_case("hello World".into(), None, true, None),
            "HELLO wORLD"
        );
    }

    #[test]
    fn indirect_names() {
        assert_eq!(parse_param("x"), Some(Param::Var("x".into())));
        assert_eq!(parse_param("3"), Some(Param::Positional(3)));
        assert!(matches!(
            parse_param("a[@]"),
            Some(Param::Element {
                index: Subscript::All,
                ..
            })
        ));
        assert_eq!(parse_param("1x"), None);
    }
}
