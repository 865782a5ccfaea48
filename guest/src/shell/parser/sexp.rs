//! A compact, unambiguous rendering of the syntax tree, so that parser tests fit on one line.
//!
//! Commands: simple `[words]` with assignments as `%name=value` (declaration arguments too),
//! `(sub ...)`, `(group ...)`, `(if C then B elif C then B else E)`, `(for x in w.. do B)`,
//! `(for x do B)`, `(for ((i;c;s)) do B)`, `(while C do B)`, `(until C do B)`,
//! `(case W (P|P) B ;; ...)`, `((W))`, `[[ E ]]`, `(fn name BODY)`; redirections after the
//! command, `{fd}op target`. Words: literal text as is, `'quoted'`, `"..."`, `${...}`,
//! `$(...)`, `$((...))`, `<(...)`, `<~user>`, `<{a,b}>`, `<{1..5..1}>` (`%02` when padded).

use super::super::ast::*;

/// A program.
pub fn list(list: &List) -> String {
    list.items
        .iter()
        .map(|item| {
            let text = and_or(&item.and_or);
            match item.background {
                true => format!("{text} &"),
                false => text,
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn and_or(and_or: &AndOr) -> String {
    let mut out = pipeline(&and_or.first);
    for (op, p) in &and_or.rest {
        let op = match op {
            AndOrOp::And => "&&",
            AndOrOp::Or => "||",
        };
        out = format!("{out} {op} {}", pipeline(p));
    }
    out
}

fn pipeline(p: &Pipeline) -> String {
    let commands: Vec<String> = p.commands.iter().map(command).collect();
    let text = commands.join(" | ");
    let text = match p.timed {
        true => format!("time {text}"),
        false => text,
    };
    match p.negated {
        true => format!("! {text}"),
        false => text,
    }
}

fn command(c: &Command) -> String {
    let mut out = kind(&c.kind);
    for r in &c.redirects {
        out.push(' ');
        out.push_str(&redirect(r));
    }
    out
}

fn kind(kind: &CommandKind) -> String {
    match kind {
        CommandKind::Simple(s) => simple(s),
        CommandKind::Subshell(l) => format!("(sub {})", list(l)),
        CommandKind::Group(l) => format!("(group {})", list(l)),
        CommandKind::If(c) => if_command(c),
        CommandKind::For(f) => {
            let kw = if f.select { "select" } else { "for" };
            match &f.words {
                Some(ws) => format!(
                    "({kw} {} in{} do {})",
                    f.var,
                    words_after(ws),
                    list(&f.body)
                ),
                None => format!("({kw} {} do {})", f.var, list(&f.body)),
            }
        }
        CommandKind::ArithFor(f) => format!(
            "(for (({};{};{})) do {})",
            opt_word(&f.init),
            opt_word(&f.cond),
            opt_word(&f.step),
            list(&f.body)
        ),
        CommandKind::While(l) => format!("(while {} do {})", list(&l.condition), list(&l.body)),
        CommandKind::Until(l) => format!("(until {} do {})", list(&l.condition), list(&l.body)),
        CommandKind::Case(c) => case(c),
        CommandKind::Arith(w) => format!("(({}))", word(w)),
        CommandKind::Cond(e) => format!("[[ {} ]]", cond(e)),
        CommandKind::Function(f) => format!("(fn {} {})", f.name, command(&f.body)),
        CommandKind::Coproc(c) => format!("(coproc {} {})", c.name, command(&c.body)),
    }
}

fn simple(s: &SimpleCommand) -> String {
    let mut parts: Vec<String> = s.assignments.iter().map(assignment).collect();
    parts.extend(s.words.iter().map(|arg| match arg {
        Arg::Word(w) => word(w),
        Arg::Assign(a) => assignment(a),
    }));
    format!("[{}]", parts.join(" "))
}

fn assignment(a: &Assignment) -> String {
    let index = a.index.as_ref().map(|w| format!("[{}]", word(w)));
    let op = if a.append { "+=" } else { "=" };
    let value = match &a.value {
        AssignValue::Scalar(w) => word(w),
        AssignValue::Array(elements) => {
            let elements: Vec<String> = elements
                .iter()
                .map(|e| match &e.index {
                    Some(i) => format!(
                        "[{}]{}={}",
                        word(i),
                        if e.append { "+" } else { "" },
                        word(&e.value)
                    ),
                    None => word(&e.value),
                })
                .collect();
            format!("({})", elements.join(" "))
        }
    };
    format!("%{}{}{op}{value}", a.name, index.unwrap_or_default())
}

fn if_command(c: &IfCommand) -> String {
    let mut out = String::from("(if");
    for (i, b) in c.branches.iter().enumerate() {
        let kw = if i == 0 { "" } else { " elif" };
        out.push_str(&format!(
            "{kw} {} then {}",
            list(&b.condition),
            list(&b.body)
        ));
    }
    if let Some(e) = &c.else_body {
        out.push_str(&format!(" else {}", list(e)));
    }
    out.push(')');
    out
}

fn case(c: &CaseCommand) -> String {
    let mut out = format!("(case {}", word(&c.word));
    for arm in &c.arms {
        let patterns: Vec<String> = arm.patterns.iter().map(word).collect();
        let term = match arm.terminator {
            CaseTerminator::Break => ";;",
            CaseTerminator::FallThrough => ";&",
            CaseTerminator::Continue => ";;&",
        };
        out.push_str(&format!(
            " ({}) {} {term}",
            patterns.join("|"),
            list(&arm.body)
        ));
    }
    out.push(')');
    out
}

fn cond(e: &CondExpr) -> String {
    match e {
        CondExpr::And(a, b) => format!("({} && {})", cond(a), cond(b)),
        CondExpr::Or(a, b) => format!("({} || {})", cond(a), cond(b)),
        CondExpr::Not(a) => format!("!{}", cond(a)),
        CondExpr::Unary(t, w) => format!("{t:?} {}", word(w)),
        CondExpr::Binary(a, t, b) => format!("{} {t:?} {}", word(a), word(b)),
        CondExpr::Word(w) => word(w),
    }
}

fn redirect(r: &Redirect) -> String {
    let fd = match (&r.var, r.fd) {
        (Some(name), _) => format!("{{{name}}}"),
        (None, fd) => fd.map(|fd| fd.to_string()).unwrap_or_default(),
    };
    let (op, target) = match &r.kind {
        RedirectKind::Read(w) => ("<", word(w)),
        RedirectKind::Write(w) => (">", word(w)),
        RedirectKind::Clobber(w) => (">|", word(w)),
        RedirectKind::Append(w) => (">>", word(w)),
        RedirectKind::ReadWrite(w) => ("<>", word(w)),
        RedirectKind::DupRead(w) => ("<&", word(w)),
        RedirectKind::DupWrite(w) => (">&", word(w)),
        RedirectKind::WriteBoth(w) => ("&>", word(w)),
        RedirectKind::AppendBoth(w) => ("&>>", word(w)),
        RedirectKind::HereString(w) => ("<<<", word(w)),
        RedirectKind::HereDoc(h) => {
            let op = if h.strip_tabs { "<<-" } else { "<<" };
            let delim = match h.expand {
                true => h.delimiter.clone(),
                false => format!("'{}'", h.delimiter),
            };
            return format!("{fd}{op}{delim}({})", word(&h.body));
        }
    };
    format!("{fd}{op}{target}")
}

fn words_after(ws: &[Word]) -> String {
    ws.iter().map(|w| format!(" {}", word(w))).collect()
}

fn opt_word(w: &Option<Word>) -> String {
    w.as_ref().map(word).unwrap_or_default()
}

/// A word.
pub fn word(w: &Word) -> String {
    parts(&w.parts)
}

fn parts(ps: &[WordPart]) -> String {
    ps.iter().map(part).collect()
}

fn part(p: &WordPart) -> String {
    match p {
        WordPart::Literal(s) => s.clone(),
        WordPart::SingleQuoted(s) => format!("'{s}'"),
        WordPart::DoubleQuoted(ps) => format!("\"{}\"", parts(ps)),
        WordPart::Param(e) => param(e),
        WordPart::CommandSubst(l) | WordPart::Backquote { program: l, .. } => {
            format!("$({})", list(l))
        }
        WordPart::Arith(w) => format!("$(({}))", word(w)),
        WordPart::ProcessSubst { output, program } => {
            format!("{}({})", if *output { ">" } else { "<" }, list(program))
        }
        WordPart::Tilde(user) => format!("<~{user}>"),
        WordPart::BraceList(ws) => {
            let ws: Vec<String> = ws.iter().map(word).collect();
            format!("<{{{}}}>", ws.join(","))
        }
        WordPart::BraceSeq(BraceSeq::Int {
            start,
            end,
            step,
            width,
        }) => {
            let pad = if *width > 0 {
                format!(" %0{width}")
            } else {
                String::new()
            };
            format!("<{{{start}..{end}..{step}{pad}}}>")
        }
        WordPart::BraceSeq(BraceSeq::Char { start, end, step }) => {
            format!("<{{{start}..{end}..{step}}}>")
        }
        WordPart::BadSubstitution(text) => format!("<bad {text}>"),
    }
}

fn param(e: &ParamExpansion) -> String {
    let name = match &e.param {
        Param::Var(n) => n.clone(),
        Param::Positional(n) => n.to_string(),
        Param::Special(s) => special(*s).to_string(),
        Param::Element { name, index } => match index {
            Subscript::All => format!("{name}[@]"),
            Subscript::Star => format!("{name}[*]"),
            Subscript::Index(w) => format!("{name}[{}]", word(w)),
        },
    };
    let bang = if e.indirect { "!" } else { "" };
    let colon = |c: &bool| if *c { ":" } else { "" };
    let body = match &e.op {
        ParamOp::Plain => format!("{bang}{name}"),
        ParamOp::Length => format!("#{name}"),
        ParamOp::Default { colon: c, word: w } => format!("{bang}{name}{}-{}", colon(c), word(w)),
        ParamOp::Assign { colon: c, word: w } => format!("{bang}{name}{}={}", colon(c), word(w)),
        ParamOp::Alternative { colon: c, word: w } => {
            format!("{bang}{name}{}+{}", colon(c), word(w))
        }
        ParamOp::Error { colon: c, word: w } => {
            format!("{bang}{name}{}?{}", colon(c), opt_word(w))
        }
        ParamOp::RemovePrefix { longest, pattern } => {
            format!(
                "{bang}{name}{}{}",
                if *longest { "##" } else { "#" },
                word(pattern)
            )
        }
        ParamOp::RemoveSuffix { longest, pattern } => {
            format!(
                "{bang}{name}{}{}",
                if *longest { "%%" } else { "%" },
                word(pattern)
            )
        }
        ParamOp::Replace {
            mode,
            pattern,
            replacement,
        } => {
            let mode = match mode {
                ReplaceMode::First => "/",
                ReplaceMode::All => "//",
                ReplaceMode::Prefix => "/#",
                ReplaceMode::Suffix => "/%",
            };
            format!("{bang}{name}{mode}{}/{}", word(pattern), word(replacement))
        }
        ParamOp::Substring { offset, length } => match length {
            Some(l) => format!("{bang}{name}:{}:{}", word(offset), word(l)),
            None => format!("{bang}{name}:{}", word(offset)),
        },
        ParamOp::Upper { all, pattern } => {
            format!(
                "{bang}{name}{}{}",
                if *all { "^^" } else { "^" },
                opt_word(pattern)
            )
        }
        ParamOp::Lower { all, pattern } => {
            format!(
                "{bang}{name}{}{}",
                if *all { ",," } else { "," },
                opt_word(pattern)
            )
        }
        ParamOp::Toggle { all, pattern } => {
            format!(
                "{bang}{name}{}{}",
                if *all { "~~" } else { "~" },
                opt_word(pattern)
            )
        }
        ParamOp::Transform(c) => format!("{bang}{name}@{c}"),
        ParamOp::PrefixNames { star } => format!("!{name}{}", if *star { "*" } else { "@" }),
        ParamOp::Keys => format!("!{name}"),
    };
    format!("${{{body}}}")
}

fn special(s: SpecialParam) -> char {
    match s {
        SpecialParam::At => '@',
        SpecialParam::Star => '*',
        SpecialParam::Count => '#',
        SpecialParam::Status => '?',
        SpecialParam::Pid => '$',
        SpecialParam::LastBackground => '!',
        SpecialParam::Flags => '-',
    }
}
