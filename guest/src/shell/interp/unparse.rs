//! The syntax tree back to source text: `declare -f`, `type f`, and functions in a saved
//! session. The text parses back to an equivalent tree; the layout follows bash's
//! (`name () ` then the body, four-space indents).

use crate::shell::ast::*;

use super::quote;

/// Where a word is printed: quoting rules differ.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Top,
    Double,
    HereDoc,
}

/// Prints commands.
struct Printer {
    out: String,
    indent: usize,
    /// Here-document bodies to print after the current line: (body, delimiter).
    heredocs: Vec<(String, String)>,
}

/// A function definition as `declare -f` prints it.
pub fn function(name: &str, body: &Command) -> String {
    let mut p = Printer::new();
    p.out.push_str(name);
    p.out.push_str(" () ");
    p.newline();
    p.function_body(body);
    p.flush_heredocs();
    p.out
}

/// A command list as source text.
pub fn list(list: &List) -> String {
    let mut p = Printer::new();
    p.list(list);
    p.flush_heredocs();
    p.out
}

/// One command as source text (`$BASH_COMMAND`).
pub fn command(command: &Command) -> String {
    let mut p = Printer::new();
    p.command(command);
    p.out
}

/// A simple command's assignments and words as source text.
pub fn simple(simple: &SimpleCommand) -> String {
    let mut p = Printer::new();
    p.simple(simple);
    p.out
}

/// One word as source text.
pub fn word(w: &Word) -> String {
    let mut p = Printer::new();
    p.word(w, Ctx::Top);
    p.out
}

impl Printer {
    fn new() -> Printer {
        Printer {
            out: String::new(),
            indent: 0,
            heredocs: Vec::new(),
        }
    }

    fn flush_heredocs(&mut self) {
        if self.heredocs.is_empty() {
            return;
        }
        if !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        for (body, delimiter) in std::mem::take(&mut self.heredocs) {
            self.out.push_str(&body);
            self.out.push_str(&delimiter);
            self.out.push('\n');
        }
    }

    fn newline(&mut self) {
        self.out.push('\n');
        if !self.heredocs.is_empty() {
            for (body, delimiter) in std::mem::take(&mut self.heredocs) {
                self.out.push_str(&body);
                self.out.push_str(&delimiter);
                self.out.push('\n');
            }
            // bash leaves an empty line after the bodies.
            self.out.push('\n');
        }
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
    }

    fn list(&mut self, list: &List) {
        self.list_with(list, false);
    }

    /// Items one per line, each ended by `;` (the last one too when `terminate_last`, as
    /// bash prints the bodies of `if` and loops).
    fn list_with(&mut self, list: &List, terminate_last: bool) {
        for (i, item) in list.items.iter().enumerate() {
            // bash goes on after `cmd &` on the same line.
            if i > 0 && list.items[i - 1].background && self.heredocs.is_empty() {
                self.out.push(' ');
            } else if i > 0 {
                self.newline();
            }
            self.and_or(&item.and_or);
            let last = i + 1 == list.items.len();
            if item.background {
                self.out.push_str(" &");
            } else if (!last || terminate_last) && self.heredocs.is_empty() {
                self.out.push(';');
            }
        }
    }

    fn and_or(&mut self, and_or: &AndOr) {
        self.pipeline(&and_or.first);
        for (op, pipeline) in &and_or.rest {
            self.out.push_str(match op {
                AndOrOp::And => " && ",
                AndOrOp::Or => " || ",
            });
            self.pipeline(pipeline);
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline) {
        if pipeline.negated {
            self.out.push_str("! ");
        }
        if pipeline.timed {
            self.out.push_str("time ");
        }
        for (i, command) in pipeline.commands.iter().enumerate() {
            if i > 0 {
                self.out.push_str(" | ");
            }
            self.command(command);
        }
    }

    fn body(&mut self, list: &List, terminate_last: bool) {
        self.indent += 1;
        self.newline();
        self.list_with(list, terminate_last);
        self.indent -= 1;
        self.newline();
    }

    fn command(&mut self, command: &Command) {
        match &command.kind {
            CommandKind::Simple(simple) => self.simple(simple),
            CommandKind::Subshell(list) => {
                self.out.push_str("( ");
                self.list(list);
                self.out.push_str(" )");
            }
            CommandKind::Group(list) => {
                self.out.push_str("{ ");
                self.body(list, false);
                self.out.push('}');
            }
            CommandKind::If(c) => self.if_command(c),
            CommandKind::For(c) => {
                self.out.push_str(if c.select { "select " } else { "for " });
                self.out.push_str(&c.var);
                if let Some(words) = &c.words {
                    self.out.push_str(" in");
                    for w in words {
                        self.out.push(' ');
                        self.word(w, Ctx::Top);
                    }
                }
                self.out.push(';');
                self.newline();
                self.do_done(&c.body);
            }
            CommandKind::ArithFor(c) => {
                // bash: each part without its leading blanks (an empty one as `1`),
                // joined by `; `.
                self.out.push_str("for ((");
                for (i, part) in [&c.init, &c.cond, &c.step].into_iter().enumerate() {
                    if i > 0 {
                        self.out.push_str("; ");
                    }
                    let mut p = Printer::new();
                    match part {
                        Some(w) => p.word(w, Ctx::Double),
                        None => p.out.push('1'),
                    }
                    self.out.push_str(p.out.trim_start());
                }
                self.out.push_str("))");
                self.newline();
                self.do_done(&c.body);
            }
            CommandKind::While(c) | CommandKind::Until(c) => {
                let kw = if matches!(command.kind, CommandKind::While(_)) {
                    "while "
                } else {
                    "until "
                };
                self.out.push_str(kw);
                self.list(&c.condition);
                self.out.push_str("; ");
                self.do_done(&c.body);
            }
            CommandKind::Case(c) => self.case(c),
            CommandKind::Arith(w) => {
                self.out.push_str("((");
                self.word(w, Ctx::Double);
                self.out.push_str("))");
            }
            CommandKind::Cond(expr) => {
                self.out.push_str("[[ ");
                self.cond(expr);
                self.out.push_str(" ]]");
            }
            CommandKind::Coproc(c) => {
                self.out.push_str("coproc ");
                self.out.push_str(&c.name);
                self.out.push(' ');
                self.command(&c.body);
            }
            CommandKind::Function(def) => {
                // bash names a function defined inside another with the keyword.
                if self.indent > 0 {
                    self.out.push_str("function ");
                }
                self.out.push_str(&def.name);
                self.out.push_str(" () ");
                self.newline();
                self.function_body(&def.body);
            }
        }
        for r in &command.redirects {
            self.out.push(' ');
            self.redirect(r);
        }
    }

    /// A function's body; bash wraps one that is not a `{ }` group (`f() ( ... )`) in one.
    fn function_body(&mut self, body: &Command) {
        if matches!(body.kind, CommandKind::Group(_)) {
            self.command(body);
            return;
        }
        self.out.push_str("{ ");
        self.indent += 1;
        self.newline();
        self.command(body);
        self.indent -= 1;
        self.newline();
        self.out.push('}');
    }

    fn do_done(&mut self, body: &List) {
        self.out.push_str("do");
        self.body(body, true);
        self.out.push_str("done");
    }

    fn if_command(&mut self, c: &IfCommand) {
        self.if_branches(&c.branches, c.else_body.as_ref());
    }

    /// bash prints `elif` as an `if` nested in the `else`.
    fn if_branches(&mut self, branches: &[CondBranch], else_body: Option<&List>) {
        let Some((first, rest)) = branches.split_first() else {
            return;
        };
        self.out.push_str("if ");
        self.list(&first.condition);
        self.out.push_str("; then");
        self.body(&first.body, true);
        if !rest.is_empty() {
            self.out.push_str("else");
            self.indent += 1;
            self.newline();
            self.if_branches(rest, else_body);
            self.out.push(';');
            self.indent -= 1;
            self.newline();
        } else if let Some(body) = else_body {
            self.out.push_str("else");
            self.body(body, true);
        }
        self.out.push_str("fi");
    }

    fn case(&mut self, c: &CaseCommand) {
        self.out.push_str("case ");
        self.word(&c.word, Ctx::Top);
        self.out.push_str(" in ");
        self.indent += 1;
        for arm in &c.arms {
            self.newline();
            if arm
                .patterns
                .first()
                .and_then(|p| p.parts.first())
                .and_then(first_char)
                == Some('(')
            {
                self.out.push('(');
            }
            for (i, p) in arm.patterns.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(" | ");
                }
                self.word(p, Ctx::Top);
            }
            self.out.push(')');
            self.indent += 1;
            if arm.body.items.is_empty() {
                // bash leaves an empty line, unindented.
                self.out.push('\n');
            } else {
                self.newline();
                self.list(&arm.body);
            }
            self.indent -= 1;
            self.newline();
            self.out.push_str(match arm.terminator {
                CaseTerminator::Break => ";;",
                CaseTerminator::FallThrough => ";&",
                CaseTerminator::Continue => ";;&",
            });
        }
        self.indent -= 1;
        self.newline();
        self.out.push_str("esac");
    }

    fn cond(&mut self, expr: &CondExpr) {
        match expr {
            CondExpr::And(a, b) | CondExpr::Or(a, b) => {
                let op = if matches!(expr, CondExpr::And(..)) {
                    " && "
                } else {
                    " || "
                };
                let and = matches!(expr, CondExpr::And(..));
                self.cond_operand(a, and && matches!(**a, CondExpr::Or(..)));
                self.out.push_str(op);
                // `&&` binds tighter than `||`; both group to the left.
                let right_parens = match **b {
                    CondExpr::And(..) => and,
                    CondExpr::Or(..) => true,
                    _ => false,
                };
                self.cond_operand(b, right_parens);
            }
            CondExpr::Not(a) => {
                self.out.push_str("! ");
                self.cond_operand(a, matches!(**a, CondExpr::And(..) | CondExpr::Or(..)));
            }
            CondExpr::Unary(test, w) => {
                self.out.push_str(unary_op(*test));
                self.out.push(' ');
                self.word(w, Ctx::Top);
            }
            CondExpr::Binary(l, op, r) => {
                self.word(l, Ctx::Top);
                self.out.push(' ');
                self.out.push_str(binary_op(*op));
                self.out.push(' ');
                self.word(r, Ctx::Top);
            }
            CondExpr::Word(w) => {
                self.out.push_str("-n ");
                self.word(w, Ctx::Top);
            }
        }
    }

    fn cond_operand(&mut self, expr: &CondExpr, parens: bool) {
        if parens {
            self.out.push_str("( ");
            self.cond(expr);
            self.out.push_str(" )");
        } else {
            self.cond(expr);
        }
    }

    fn simple(&mut self, simple: &SimpleCommand) {
        let mut first = true;
        for a in &simple.assignments {
            if !first {
                self.out.push(' ');
            }
            first = false;
            self.assignment(a);
        }
        for arg in &simple.words {
            if !first {
                self.out.push(' ');
            }
            first = false;
            match arg {
                Arg::Word(w) => self.word(w, Ctx::Top),
                Arg::Assign(a) => self.assignment(a),
            }
        }
    }

    fn assignment(&mut self, a: &Assignment) {
        self.out.push_str(&a.name);
        if let Some(index) = &a.index {
            self.out.push('[');
            self.word(index, Ctx::Top);
            self.out.push(']');
        }
        self.out.push_str(if a.append { "+=" } else { "=" });
        match &a.value {
            AssignValue::Scalar(w) => self.word(w, Ctx::Top),
            AssignValue::Array(elements) => {
                self.out.push('(');
                for (i, e) in elements.iter().enumerate() {
                    if i > 0 {
                        self.out.push(' ');
                    }
                    if let Some(index) = &e.index {
                        self.out.push('[');
                        self.word(index, Ctx::Top);
                        self.out.push_str(if e.append { "]+=" } else { "]=" });
                    }
                    self.word(&e.value, Ctx::Top);
                }
                self.out.push(')');
            }
        }
    }

    /// A redirection as bash prints it: `> file` with a space, `1>&2` with the descriptor.
    fn redirect(&mut self, r: &Redirect) {
        let dup = match r.kind {
            RedirectKind::DupRead(_) => Some(0),
            RedirectKind::DupWrite(_) => Some(1),
            _ => None,
        };
        if let Some(name) = &r.var {
            self.out.push_str(&format!("{{{name}}}"));
        } else if let Some(fd) = r.fd.or(dup) {
            self.out.push_str(&fd.to_string());
        }
        let (op, target) = match &r.kind {
            RedirectKind::Read(w) => ("<", w),
            RedirectKind::Write(w) => (">", w),
            RedirectKind::Clobber(w) => (">|", w),
            RedirectKind::Append(w) => (">>", w),
            RedirectKind::ReadWrite(w) => ("<>", w),
            RedirectKind::DupRead(w) => ("<&", w),
            RedirectKind::DupWrite(w) => (">&", w),
            RedirectKind::WriteBoth(w) => ("&>", w),
            RedirectKind::AppendBoth(w) => ("&>>", w),
            RedirectKind::HereString(w) => ("<<<", w),
            RedirectKind::HereDoc(h) => {
                self.heredoc(h);
                return;
            }
        };
        self.out.push_str(op);
        if dup.is_none() {
            self.out.push(' ');
        }
        self.word(target, Ctx::Top);
    }

    fn heredoc(&mut self, h: &HereDoc) {
        let mut body = Printer::new();
        if h.expand {
            body.word(&h.body, Ctx::HereDoc);
            self.out.push_str(if h.strip_tabs { "<<-" } else { "<<" });
            self.out.push_str(&h.delimiter);
        } else {
            for part in &h.body.parts {
                if let WordPart::SingleQuoted(s) | WordPart::Literal(s) = part {
                    body.out.push_str(s);
                }
            }
            self.out.push_str(if h.strip_tabs { "<<-'" } else { "<<'" });
            self.out.push_str(&h.delimiter);
            self.out.push('\'');
        }
        self.heredocs.push((body.out, h.delimiter.clone()));
    }

    fn word(&mut self, w: &Word, ctx: Ctx) {
        self.parts(&w.parts, ctx);
    }

    /// Parts in a row: a plain `$name` is printed without braces unless the next part would
    /// continue the name.
    fn parts(&mut self, parts: &[WordPart], ctx: Ctx) {
        for (i, part) in parts.iter().enumerate() {
            if let WordPart::Param(pe) = part {
                let next = parts.get(i + 1).and_then(first_char);
                if let Some(short) = short_param(pe, next) {
                    self.out.push_str(&short);
                    continue;
                }
            }
            self.part(part, ctx);
        }
    }

    fn part(&mut self, part: &WordPart, ctx: Ctx) {
        match part {
            WordPart::Literal(s) => match ctx {
                Ctx::Top => self.out.push_str(s),
                Ctx::Double => self.escaped(s, "\\\"$`"),
                Ctx::HereDoc => self.escaped(s, "\\$`"),
            },
            WordPart::SingleQuoted(s) => match ctx {
                // bash prints `$'\t'` as a quoted literal tab.
                Ctx::Top => self.out.push_str(&quote::single(s)),
                Ctx::Double => self.escaped(s, "\\\"$`"),
                Ctx::HereDoc => self.escaped(s, "\\$`"),
            },
            WordPart::DoubleQuoted(parts) => {
                if ctx == Ctx::Top {
                    self.out.push('"');
                }
                self.parts(
                    parts,
                    if ctx == Ctx::HereDoc {
                        ctx
                    } else {
                        Ctx::Double
                    },
                );
                if ctx == Ctx::Top {
                    self.out.push('"');
                }
            }
            WordPart::Param(pe) => self.param(pe),
            WordPart::Backquote { text, .. } => {
                self.out.push('`');
                self.out.push_str(text);
                self.out.push('`');
            }
            WordPart::CommandSubst(program) => {
                let text = list(program);
                self.out.push_str("$(");
                if text.contains('\n') {
                    self.out.push('\n');
                    self.out.push_str(&text);
                    self.out.push('\n');
                } else {
                    // `$( (` must not read as `$((`.
                    if text.starts_with('(') {
                        self.out.push(' ');
                    }
                    self.out.push_str(&text);
                }
                self.out.push(')');
            }
            WordPart::Arith(w) => {
                self.out.push_str("$((");
                self.word(w, Ctx::Double);
                self.out.push_str("))");
            }
            WordPart::ProcessSubst { output, program } => {
                self.out.push_str(if *output { ">(" } else { "<(" });
                self.out.push_str(&list(program));
                self.out.push(')');
            }
            WordPart::Tilde(user) => {
                self.out.push('~');
                self.out.push_str(user);
            }
            WordPart::BraceList(words) => {
                self.out.push('{');
                for (i, w) in words.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.word(w, ctx);
                }
                self.out.push('}');
            }
            WordPart::BraceSeq(seq) => self.out.push_str(&brace_seq(seq)),
            WordPart::BadSubstitution(text) => self.out.push_str(text),
        }
    }

    fn escaped(&mut self, s: &str, special: &str) {
        for c in s.chars() {
            if special.contains(c) {
                self.out.push('\\');
            }
            self.out.push(c);
        }
    }

    fn param(&mut self, pe: &ParamExpansion) {
        self.out.push_str("${");
        if matches!(pe.op, ParamOp::Length) {
            self.out.push('#');
        }
        if pe.indirect || matches!(pe.op, ParamOp::PrefixNames { .. } | ParamOp::Keys) {
            self.out.push('!');
        }
        match &pe.param {
            Param::Var(name) => self.out.push_str(name),
            Param::Positional(n) => self.out.push_str(&n.to_string()),
            Param::Special(s) => self.out.push(special_char(*s)),
            Param::Element { name, index } => {
                self.out.push_str(name);
                self.out.push('[');
                match index {
                    Subscript::All => self.out.push('@'),
                    Subscript::Star => self.out.push('*'),
                    Subscript::Index(w) => self.word(w, Ctx::Top),
                }
                self.out.push(']');
            }
        }
        self.param_op(&pe.op);
        self.out.push('}');
    }

    fn param_op(&mut self, op: &ParamOp) {
        let colon = |c: bool| if c { ":" } else { "" };
        match op {
            ParamOp::Plain | ParamOp::Length | ParamOp::Keys => {}
            ParamOp::PrefixNames { star } => self.out.push(if *star { '*' } else { '@' }),
            ParamOp::Default { colon: c, word } => self.op_word(&format!("{}-", colon(*c)), word),
            ParamOp::Assign { colon: c, word } => self.op_word(&format!("{}=", colon(*c)), word),
            ParamOp::Alternative { colon: c, word } => {
                self.op_word(&format!("{}+", colon(*c)), word)
            }
            ParamOp::Error { colon: c, word } => {
                self.out.push_str(colon(*c));
                self.out.push('?');
                if let Some(w) = word {
                    self.word(w, Ctx::Top);
                }
            }
            ParamOp::RemovePrefix { longest, pattern } => {
                self.op_word(if *longest { "##" } else { "#" }, pattern)
            }
            ParamOp::RemoveSuffix { longest, pattern } => {
                self.op_word(if *longest { "%%" } else { "%" }, pattern)
            }
            ParamOp::Replace {
                mode,
                pattern,
                replacement,
            } => {
                self.op_word(
                    match mode {
                        ReplaceMode::First => "/",
                        ReplaceMode::All => "//",
                        ReplaceMode::Prefix => "/#",
                        ReplaceMode::Suffix => "/%",
                    },
                    pattern,
                );
                self.op_word("/", replacement);
            }
            ParamOp::Substring { offset, length } => {
                let dash = offset.parts.first().and_then(first_char) == Some('-');
                self.out.push_str(if dash { ": " } else { ":" });
                self.word(offset, Ctx::Top);
                if let Some(l) = length {
                    self.out.push(':');
                    self.word(l, Ctx::Top);
                }
            }
            ParamOp::Upper { all, pattern }
            | ParamOp::Lower { all, pattern }
            | ParamOp::Toggle { all, pattern } => {
                let c = match op {
                    ParamOp::Upper { .. } => "^",
                    ParamOp::Lower { .. } => ",",
                    _ => "~",
                };
                self.out.push_str(c);
                if *all {
                    self.out.push_str(c);
                }
                if let Some(p) = pattern {
                    self.word(p, Ctx::Top);
                }
            }
            ParamOp::Transform(c) => {
                self.out.push('@');
                self.out.push(*c);
            }
        }
    }

    fn op_word(&mut self, op: &str, w: &Word) {
        self.out.push_str(op);
        self.word(w, Ctx::Top);
    }
}

/// The first character a part prints as, when it is literal text.
fn first_char(part: &WordPart) -> Option<char> {
    match part {
        WordPart::Literal(s) | WordPart::SingleQuoted(s) => s.chars().next(),
        WordPart::DoubleQuoted(parts) => parts.first().and_then(first_char),
        _ => None,
    }
}

/// `$name`, `$1`, `$@` when that reads back the same before `next`.
fn short_param(pe: &ParamExpansion, next: Option<char>) -> Option<String> {
    if pe.indirect || pe.op != ParamOp::Plain || pe.braced {
        return None;
    }
    match &pe.param {
        Param::Var(name) if !next.is_some_and(|c| c == '_' || c.is_ascii_alphanumeric()) => {
            Some(format!("${name}"))
        }
        Param::Positional(n) if *n < 10 => Some(format!("${n}")),
        Param::Special(s) => Some(format!("${}", special_char(*s))),
        _ => None,
    }
}

fn special_char(s: SpecialParam) -> char {
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

fn brace_seq(seq: &BraceSeq) -> String {
    match *seq {
        BraceSeq::Int {
            start,
            end,
            step,
            width,
        } => {
            let pad = |v: i64| format!("{v:0>width$}");
            format!("{{{}..{}..{step}}}", pad(start), pad(end))
        }
        BraceSeq::Char { start, end, step } => format!("{{{start}..{end}..{step}}}"),
    }
}

fn unary_op(test: UnaryTest) -> &'static str {
    use UnaryTest::*;
    match test {
        Exists => "-e",
        BlockDevice => "-b",
        CharDevice => "-c",
        Directory => "-d",
        RegularFile => "-f",
        SetGid => "-g",
        Symlink => "-L",
        Sticky => "-k",
        Fifo => "-p",
        Readable => "-r",
        NonEmptyFile => "-s",
        Socket => "-S",
        Terminal => "-t",
        SetUid => "-u",
        Writable => "-w",
        Executable => "-x",
        OwnedByUser => "-O",
        OwnedByGroup => "-G",
        ModifiedSinceRead => "-N",
        EmptyString => "-z",
        NonEmptyString => "-n",
        OptionSet => "-o",
        VarSet => "-v",
        NameRef => "-R",
    }
}

fn binary_op(op: BinaryTest) -> &'static str {
    use BinaryTest::*;
    match op {
        Match => "==",
        NoMatch => "!=",
        Regex => "=~",
        Less => "<",
        Greater => ">",
        Eq => "-eq",
        Ne => "-ne",
        Lt => "-lt",
        Le => "-le",
        Gt => "-gt",
        Ge => "-ge",
        NewerThan => "-nt",
        OlderThan => "-ot",
        SameFile => "-ef",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::parse;

    /// Parses, prints, parses again: the trees must be equal (line numbers aside).
    fn round_trip(src: &str) {
        let first =
            parse(src).unwrap_or_else(|e| List { items: vec![] }.tap(|_| eprintln!("{src}: {e}")));
        let text = list(&first);
        let second = parse(&text);
        assert!(second.is_ok(), "{src:?} printed as {text:?}: {second:?}");
        let (a, b) = (
            strip(&format!("{first:?}")),
            strip(&format!("{:?}", second.unwrap_or_default())),
        );
        assert_eq!(a, b, "{src:?} printed as {text:?}");
    }

    trait Tap: Sized {
        fn tap(self, f: impl FnOnce(&Self)) -> Self {
            f(&self);
            self
        }
    }
    impl Tap for List {}

    /// The debug form without line numbers and with adjacent literal parts merged.
    fn strip(debug: &str) -> String {
        let mut out = String::new();
        let mut rest = debug;
        while let Some(at) = rest.find("line: ") {
            out.push_str(&rest[..at]);
            rest = &rest[at + 6..];
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            rest = &rest[digits..];
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn commands_round_trip() {
        for src in [
            "echo a b; x=1 y=(1 2 [5]=x) cmd >out 2>&1",
            "if a && b; then c; else if d; then e; else f; fi; fi",
            "for x in a \"b c\" $y; do echo $x; done; for ((i=0; i<3; i++)); do :; done",
            "while read -r l; do echo \"$l\"; done < f | sort -u || true",
            "case $x in a|b) c;; *.txt) d;& *) e;;& esac",
            "f() { local x=$1; return 2; }; ( cd /tmp && ls ) &",
            "[[ -f $a && ( $b == x* || ! $c =~ ^[0-9]+$ ) ]]; (( x += 2 ))",
            "echo ${x:-d} ${#a[@]} ${!p*} ${a[i+1]} ${x//a/b} ${x:1:2} ${x^^} ${x@Q} ${!r}",
            "cat <<EOF\nhello $x \\$y `pwd`\nEOF\necho after",
            "cat <<'EOF' | wc -l\nraw $x\nEOF",
            "x=$(echo \"$(date)\"); echo 'it'\\''s' $'tab\\there' ~/x {a,b}{1..3}",
            "declare -A m=([k]=v); export P=~/bin:$PATH; echo \"a\\\"b\\\\c\\$d\"",
        ] {
            round_trip(src);
        }
    }

    #[test]
    fn functions_print_like_bash() {
        let program = parse("f() { echo a; echo b; }").unwrap_or_default();
        let CommandKind::Function(def) = &program.items[0].and_or.first.commands[0].kind else {
            unreachable!("a function");
        };
        assert_eq!(
            function(&def.name, &def.body),
            "f () \n{ \n    echo a;\n    echo b\n}"
        );
        let program = parse("f() { if [ -n \"$1\" ]; then echo \"$1\"; fi; for i in 1 2; do echo $i; done; while true; do break; done; case $1 in a) echo a;; esac; { echo g; }; (echo s); echo a && echo b || echo c; }").unwrap_or_default();
        let CommandKind::Function(def) = &program.items[0].and_or.first.commands[0].kind else {
            unreachable!("a function");
        };
        let want = "f () \n{ \n    if [ -n \"$1\" ]; then\n        echo \"$1\";\n    fi;\n    for i in 1 2;\n    do\n        echo $i;\n    done;\n    while true; do\n        break;\n    done;\n    case $1 in \n        a)\n            echo a\n        ;;\n    esac;\n    { \n        echo g\n    };\n    ( echo s );\n    echo a && echo b || echo c\n}";
        assert_eq!(function(&def.name, &def.body), want);
        let program = parse("g() ( if a; then b; elif c; then :; fi; case x in y) ;; esac )")
            .unwrap_or_default();
        let CommandKind::Function(def) = &program.items[0].and_or.first.commands[0].kind else {
            unreachable!("a function");
        };
        let want = "g () \n{ \n    ( if a; then\n        b;\n    else\n        if c; then\n            :;\n        fi;\n    fi;\n    case x in \n        y)\n\n        ;;\n    esac )\n}";
        assert_eq!(function(&def.name, &def.body), want);
    }
}
