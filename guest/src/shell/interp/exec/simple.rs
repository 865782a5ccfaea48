//! Simple commands: expansion, assignments, `set -x` traces, redirections, and finding what
//! to run: a function, a builtin, an applet (`NAME`, `/bin/NAME`, `/usr/bin/NAME`), or a
//! script file in the VFS.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use super::super::expand::Expanded;
use super::super::io::{applet_io, drive, Fds, InHandle, OutHandle, OutKind};
use super::super::quote;
use super::super::state::{Attrs, Key, State, Value, Var};
use super::super::{Flow, Sh};
use crate::applets::{self, Applet, Commands, Ctx};
use crate::limits::MAX_COMMAND_DEPTH;
use crate::shell::ast::*;
use crate::shell::builtins;
use crate::shell::parser::brace::mark_braces;
use crate::task::{Input, LocalFuture, Output};

/// An argument after expansion: a word, or (for declaration commands) an assignment.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgValue {
    /// A field.
    Word(String),
    /// `name=value` or `name=(...)`.
    Assign(Box<AssignArg>),
}

impl ArgValue {
    /// The argument as text (`name=value` for assignments).
    pub fn text(&self) -> String {
        match self {
            ArgValue::Word(w) => w.clone(),
            ArgValue::Assign(a) => a.text(),
        }
    }

    /// What `$_` becomes when this is a command's last argument (an array assignment
    /// leaves just the name, as in bash).
    fn last_arg(&self) -> String {
        match self {
            ArgValue::Assign(a) if matches!(a.value, AssignVal::Array(_)) => a.name.clone(),
            arg => arg.text(),
        }
    }
}

/// An expanded assignment.
#[derive(Debug, Clone, PartialEq)]
pub struct AssignArg {
    /// The variable.
    pub name: String,
    /// `name[index]=`: the subscript text.
    pub index: Option<String>,
    /// `+=`.
    pub append: bool,
    /// The value.
    pub value: AssignVal,
}

/// The value of an expanded assignment.
#[derive(Debug, Clone, PartialEq)]
pub enum AssignVal {
    /// A string.
    Scalar(String),
    /// Array elements.
    Array(Vec<ArrayItem>),
}

/// One expanded element of an array assignment `(...)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayItem {
    /// `[key]=`: the subscript text.
    pub key: Option<String>,
    /// Written `[key]+=`: append to that element.
    pub append: bool,
    /// The value.
    pub value: String,
}

impl AssignArg {
    /// As `name=value` text.
    pub fn text(&self) -> String {
        let mut out = self.name.clone();
        if let Some(i) = &self.index {
            out.push_str(&format!("[{i}]"));
        }
        out.push_str(if self.append { "+=" } else { "=" });
        out.push_str(&self.scalar());
        out
    }

    /// The value as one string: a prefix assignment's environment value, where a list is
    /// its text, `(a [k]=v)`, as in bash.
    pub fn scalar(&self) -> String {
        match &self.value {
            AssignVal::Scalar(s) => s.clone(),
            AssignVal::Array(items) => {
                let parts: Vec<String> = items.iter().map(ArrayItem::text).collect();
                format!("({})", parts.join(" "))
            }
        }
    }
}

impl ArrayItem {
    /// As written: `[k]=v`, `[k]+=v` or `v`.
    pub fn text(&self) -> String {
        match &self.key {
            Some(k) => {
                let op = if self.append { "+=" } else { "=" };
                format!("[{k}]{op}{}", self.value)
            }
            None => self.value.clone(),
        }
    }
}

/// Where an assignment goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The innermost scope that has the variable, else global.
    Normal,
    /// A local of the running function.
    Local,
    /// The global scope (`declare -g`).
    Global,
}

impl Sh {
    /// Runs a simple command.
    /// Removes the temporary files of process substitutions made since `mark`.
    pub fn clean_temps_since(&self, mark: usize) {
        let created: Vec<String> = {
            let mut files = self.world.temp_files.borrow_mut();
            if files.len() > mark {
                files.drain(mark..).collect()
            } else {
                return;
            }
        };
        for f in created {
            let _ = self.world.vfs.borrow_mut().remove_file("/", &f);
        }
    }

    /// Runs a simple command (the caller cleans up process substitution files).
    pub async fn run_simple(&self, command: &Command, simple: &SimpleCommand, fds: Fds) -> Flow {
        if let Some((text, names)) = self.alias_text(command, simple) {
            return self.run_alias(command, &text, names, fds).await;
        }
        {
            let mut s = self.state.borrow_mut();
            s.subst_status = None;
            s.command_end = s.line.max(simple.end_line);
            self.world.vfs.borrow_mut().set_umask(s.umask);
        }
        let args = match self.expand_args(&simple.words, &fds).await {
            Ok(args) => args,
            Err(e) => return self.expand_failed(e, &fds, 1).await,
        };
        if args.is_empty() {
            // Each assignment is expanded after the ones before it took effect.
            for a in &simple.assignments {
                let t = match self.expand_assignment(a, &fds).await {
                    Ok(t) => t,
                    Err(e) => return self.expand_failed(e, &fds, 1).await,
                };
                self.trace(std::slice::from_ref(&t), &args, &fds).await;
                let applied = match self.through_nameref(t, &fds).await {
                    Ok(t) => self.apply_assignment(&t, Scope::Normal),
                    Err(message) => Err(message),
                };
                if let Err(message) = applied {
                    self.report(&fds, &message).await;
                    // A failed assignment is a failed command for `set -e`, which bash
                    // checks before it abandons the line; in POSIX mode it ends the shell.
                    return if self.errexit_applies() {
                        Flow::Exit(1)
                    } else if self.state.borrow().opts.posix {
                        Flow::Exit(self.fatal_status())
                    } else {
                        self.discard()
                    };
                }
            }
            let status = self.state.borrow().subst_status.unwrap_or(0);
            self.state.borrow_mut().set_last_arg("");
            return match self.redirect(&command.redirects, fds).await {
                Ok(_) => Flow::Normal(status),
                Err(flow) => flow,
            };
        }
        let temps = match self.expand_temps(&simple.assignments, &fds).await {
            Ok(temps) => temps,
            Err(e) => return self.expand_failed(e, &fds, 1).await,
        };
        self.trace(&temps, &args, &fds).await;
        let fds = match self.redirect(&command.redirects, fds).await {
            Ok(fds) => fds,
            Err(flow) => return flow,
        };
        let last = args.last().map(ArgValue::last_arg).unwrap_or_default();
        let flow = self.dispatch_with(args, temps, fds, true).await;
        self.state.borrow_mut().set_last_arg(&last);
        flow
    }

    /// The command with its aliases expanded, as source text, if its name is an alias that
    /// applies (see [`super::super::state::State::alias_for`]): the assignments, the alias
    /// text, then the arguments; an alias whose text ends in a blank lets the next word be
    /// an alias too.
    fn alias_text(
        &self,
        command: &Command,
        simple: &SimpleCommand,
    ) -> Option<(String, Vec<String>)> {
        let s = self.state.borrow();
        if !s.opts.expand_aliases || s.aliases.is_empty() {
            return None;
        }
        let name = |arg: Option<&Arg>| match arg {
            Some(Arg::Word(w)) => w.as_literal().map(str::to_string),
            _ => None,
        };
        let mut text = String::new();
        let mut used = Vec::new();
        let mut rest = simple.words.as_slice();
        while let Some(word) = name(rest.first()) {
            let Some(value) = s.alias_for(&word, command.line) else {
                break;
            };
            text.push_str(&value);
            used.push(word);
            rest = &rest[1..];
            if !value.ends_with([' ', '\t']) {
                break;
            }
        }
        if used.is_empty() {
            return None;
        }
        let before = SimpleCommand {
            assignments: simple.assignments.clone(),
            ..SimpleCommand::default()
        };
        let after = SimpleCommand {
            words: rest.to_vec(),
            ..SimpleCommand::default()
        };
        let before = super::super::unparse::simple(&before);
        let after = super::super::unparse::simple(&after);
        Some((format!("{before} {text} {after}").trim().to_string(), used))
    }

    /// Runs a command whose aliases (`names`) were expanded to `text`, with the command's
    /// redirections; those aliases do not expand again inside it.
    async fn run_alias(&self, command: &Command, text: &str, names: Vec<String>, fds: Fds) -> Flow {
        let program = match crate::shell::parse(text) {
            Ok(program) => program,
            Err(e) => {
                self.syntax_error(text, &e, &fds, "").await;
                return Flow::Normal(2);
            }
        };
        let fds = match self.redirect(&command.redirects, fds).await {
            Ok(fds) => fds,
            Err(flow) => return flow,
        };
        let (unit, depth) = {
            let mut s = self.state.borrow_mut();
            let depth = s.expanding.len();
            s.expanding.extend(names);
            (s.enter_unit(), depth)
        };
        let flow = self.run_list(&program, &fds).await;
        let mut s = self.state.borrow_mut();
        s.code_unit = unit;
        s.expanding.truncate(depth);
        flow
    }

    /// Expands the assignments before a command in order, each seeing the ones before it (as
    /// bash's temporary environment does: `a=1 b=$a cmd` gives `b=1`).
    async fn expand_temps(
        &self,
        assignments: &[Assignment],
        fds: &Fds,
    ) -> Expanded<Vec<AssignArg>> {
        let mut temps = Vec::new();
        let depth = {
            let mut s = self.state.borrow_mut();
            s.frames.push(HashMap::new());
            s.frames.len()
        };
        let mut failure = None;
        for a in assignments {
            match self.expand_assignment(a, fds).await {
                Ok(mut t) => {
                    // `A+=x cmd`: the command sees the old value with `x` appended.
                    if let (true, None, AssignVal::Scalar(v)) = (t.append, &t.index, &mut t.value) {
                        let old = self.state.borrow().get(&t.name).unwrap_or_default();
                        v.insert_str(0, &old);
                        t.append = false;
                    }
                    if let Some(frame) = self.state.borrow_mut().frames.get_mut(depth - 1) {
                        frame.insert(t.name.clone(), temp_var(&t));
                    }
                    temps.push(t);
                }
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        self.state.borrow_mut().frames.truncate(depth - 1);
        match failure {
            Some(e) => Err(e),
            None => Ok(temps),
        }
    }

    async fn trace(&self, temps: &[AssignArg], args: &[ArgValue], fds: &Fds) {
        if !self.state.borrow().opts.xtrace {
            return;
        }
        for t in temps {
            self.trace_line(fds, &quote_assign(t)).await;
        }
        if args.is_empty() {
            return;
        }
        let words: Vec<String> = args
            .iter()
            .map(|a| match a {
                ArgValue::Word(w) => quote::trace(w),
                ArgValue::Assign(a) => quote_assign(a),
            })
            .collect();
        self.trace_line(fds, &words.join(" ")).await;
    }

    /// Expands command arguments: words split and globbed, declaration assignments kept.
    async fn expand_args(&self, args: &[Arg], fds: &Fds) -> Expanded<Vec<ArgValue>> {
        let mut out = Vec::new();
        for arg in args {
            match arg {
                Arg::Word(w) => {
                    let fields = self.expand_fields(&[w], fds).await?;
                    out.extend(fields.into_iter().map(ArgValue::Word));
                }
                Arg::Assign(a) => {
                    // `declare -A A=(...)`: the list is an associative array's already.
                    let assoc = out.iter().any(|arg| {
                        matches!(arg, ArgValue::Word(w) if w.starts_with('-') && w.contains('A'))
                    });
                    let a = self.expand_assignment_as(a, fds, assoc, true).await?;
                    out.push(ArgValue::Assign(Box::new(a)));
                }
            }
        }
        Ok(out)
    }

    /// Expands the parts of an assignment.
    pub async fn expand_assignment(&self, a: &Assignment, fds: &Fds) -> Expanded<AssignArg> {
        self.expand_assignment_as(a, fds, false, false).await
    }

    /// [`Sh::expand_assignment`], the variable taken for an associative array also when
    /// `assoc` (a declaration command given `-A`); `declaration`: an argument of one.
    async fn expand_assignment_as(
        &self,
        a: &Assignment,
        fds: &Fds,
        assoc: bool,
        declaration: bool,
    ) -> Expanded<AssignArg> {
        // A declaration's argument has had its quotes removed (`declare a['1']=x` is fine);
        // an assignment's indexed subscript is arithmetic text that keeps them.
        let index = match &a.index {
            Some(w) if declaration || self.state.borrow().is_assoc(&a.name) => {
                Some(self.expand_string(w, fds).await?)
            }
            Some(w) => Some(self.index_text(w, fds).await?),
            None => None,
        };
        let value = match &a.value {
            AssignValue::Scalar(w) => AssignVal::Scalar(self.expand_string(w, fds).await?),
            AssignValue::Array(elements) => {
                let assoc = assoc || self.state.borrow().is_assoc(&a.name);
                let mut items = Vec::new();
                for e in elements {
                    let braced = if assoc { None } else { braced_element(e) };
                    match (&e.index, braced) {
                        (Some(i), None) => items.push(ArrayItem {
                            key: Some(self.expand_string(i, fds).await?),
                            append: e.append,
                            // An associative array's values get no tilde expansion (bash).
                            value: if assoc {
                                self.expand_string(&untilde(&e.value), fds).await?
                            } else {
                                self.expand_string(&e.value, fds).await?
                            },
                        }),
                        (_, braced) => {
                            let word = braced.as_ref().unwrap_or(&e.value);
                            for value in self.expand_fields(&[word], fds).await? {
                                items.push(ArrayItem {
                                    key: None,
                                    append: false,
                                    value,
                                });
                            }
                        }
                    }
                }
                AssignVal::Array(items)
            }
        };
        Ok(AssignArg {
            name: a.name.clone(),
            index,
            append: a.append,
            value,
        })
    }

    /// An assignment to a name reference that refers to an array element
    /// (`declare -n r='A[$k]'; r=v`), made an assignment to that element, its subscript
    /// expanded now; a subscript or a list cannot be assigned through such a reference.
    async fn through_nameref(&self, a: AssignArg, fds: &Fds) -> Result<AssignArg, String> {
        let target = self.state.borrow().nameref_element_text(&a.name);
        let Some((base, text)) = target else {
            return Ok(a);
        };
        if a.index.is_some() || matches!(a.value, AssignVal::Array(_)) || text == "@" || text == "*"
        {
            return Err(format!("`{base}[{text}]': not a valid identifier"));
        }
        let key = self.element_key(&base, &text, fds).await?;
        Ok(AssignArg {
            name: base,
            index: Some(key.text()),
            ..a
        })
    }

    /// The key a subscript text names in array `name`.
    pub fn key_for(&self, name: &str, text: &str) -> Result<Key, String> {
        if self.state.borrow().is_assoc(name) {
            return Ok(Key::Assoc(text.to_string()));
        }
        let n = self.state.borrow_mut().eval_arith(text);
        n.map(Key::Index).map_err(|e| e.to_string())
    }

    /// Performs an assignment.
    pub fn apply_assignment(&self, a: &AssignArg, scope: Scope) -> Result<(), String> {
        if scope == Scope::Local {
            let mut s = self.state.borrow_mut();
            s.check_writable(&a.name)?;
            s.local_entry(&a.name);
        }
        if scope == Scope::Global {
            let frames = std::mem::take(&mut self.state.borrow_mut().frames);
            let result = self.apply_assignment(a, Scope::Normal);
            self.state.borrow_mut().frames = frames;
            return result;
        }
        match (&a.index, &a.value) {
            (Some(index), _) if index.is_empty() && self.state.borrow().is_assoc(&a.name) => {
                Err(format!("{}[{index}]: bad array subscript", a.name))
            }
            (Some(index), AssignVal::Scalar(v)) => {
                let key = self.key_for(&a.name, index)?;
                self.state
                    .borrow_mut()
                    .assign_element(&a.name, key, v.clone(), a.append)
            }
            (None, AssignVal::Scalar(v)) => {
                self.state.borrow_mut().assign(&a.name, v.clone(), a.append)
            }
            (Some(index), AssignVal::Array(_)) => Err(format!(
                "{}[{index}]: cannot assign list to array member",
                a.name
            )),
            (None, AssignVal::Array(items)) if self.element_by_element(a, items) => {
                self.assign_one_by_one(a, items)
            }
            (None, AssignVal::Array(items)) => {
                // An associative array's list that starts with a plain word is all words,
                // keys and values in turn, `[k]=v` included as text (bash).
                let pairs = items.first().is_some_and(|item| item.key.is_none())
                    && self.state.borrow().is_assoc(&a.name);
                let mut elements = Vec::new();
                for item in items {
                    if pairs {
                        elements.push((None, item.text()));
                        continue;
                    }
                    let key = match &item.key {
                        Some(k) => Some(self.key_for(&a.name, k)?),
                        None => None,
                    };
                    elements.push((key, item.value.clone()));
                }
                self.state
                    .borrow_mut()
                    .assign_array(&a.name, elements, a.append)
            }
        }
    }

    /// Whether a list must be stored element by element: an element appends to one before
    /// it (`[k]+=v`); an indexed array's subscript is not a number (`a=([0]=5 [a[0]]=x)`),
    /// so it may read the elements stored before it; an associative array's list starts
    /// with `[k]=v` and has plain words after, which bash skips.
    fn element_by_element(&self, a: &AssignArg, items: &[ArrayItem]) -> bool {
        let numeric = |k: &str| k.trim().parse::<i64>().is_ok();
        let keyed = items.iter().filter(|item| item.key.is_some()).count();
        if self.state.borrow().is_assoc(&a.name) {
            let first_keyed = items.first().is_some_and(|item| item.key.is_some());
            return first_keyed && (keyed < items.len() || items.iter().any(|item| item.append));
        }
        items
            .iter()
            .any(|item| item.append || item.key.as_deref().is_some_and(|k| !numeric(k)))
    }

    /// `a=(...)` stored element by element, as bash does, so that each subscript is worked
    /// out with the elements before it in place.
    fn assign_one_by_one(&self, a: &AssignArg, items: &[ArrayItem]) -> Result<(), String> {
        // bash: in `A=(...)`, an associative array's `[k]+=v` appends to the value `k` had
        // before the assignment, not to one set earlier in the list.
        let assoc = self.state.borrow().is_assoc(&a.name);
        let before: Vec<Option<String>> = items
            .iter()
            .map(|item| match &item.key {
                Some(k) if assoc && item.append && !a.append => Some(
                    self.state
                        .borrow()
                        .element(&a.name, &Key::Assoc(k.clone()))
                        .unwrap_or_default(),
                ),
                _ => None,
            })
            .collect();
        self.state
            .borrow_mut()
            .assign_array(&a.name, Vec::new(), a.append)?;
        let last = match self
            .state
            .borrow()
            .var(&a.name)
            .and_then(|v| v.value.as_ref())
        {
            Some(Value::Indexed(map)) => map.keys().next_back().copied(),
            _ => None,
        };
        let mut next = last.map_or(0, |i| i + 1);
        for (item, before) in items.iter().zip(before) {
            let key = match &item.key {
                Some(k) => self.key_for(&a.name, k)?,
                // bash: "must use subscript when assigning associative array", and skips it.
                None if assoc => continue,
                None => Key::Index(next),
            };
            if let Key::Index(i) = key {
                next = i + 1;
            }
            let (value, append) = match before {
                Some(old) => (old + &item.value, false),
                None => (item.value.clone(), item.append),
            };
            self.state
                .borrow_mut()
                .assign_element(&a.name, key, value, append)?;
        }
        Ok(())
    }

    /// Runs expanded arguments: a function, a builtin, an applet or a script.
    pub fn dispatch_with(
        &self,
        args: Vec<ArgValue>,
        temps: Vec<AssignArg>,
        fds: Fds,
        functions: bool,
    ) -> LocalFuture<'_, Flow> {
        Box::pin(self.dispatch_inner(args, temps, fds, functions))
    }

    async fn dispatch_inner(
        &self,
        args: Vec<ArgValue>,
        temps: Vec<AssignArg>,
        fds: Fds,
        functions: bool,
    ) -> Flow {
        let argv: Vec<String> = args.iter().map(ArgValue::text).collect();
        let Some(name) = argv.first().cloned() else {
            return Flow::Normal(0);
        };
        let stdout = fds.out(1).map(Rc::downgrade);
        let posix_special = self.state.borrow().opts.posix && is_special_builtin(&name);
        let func = if functions && !posix_special {
            self.state.borrow().funcs.get(&name).cloned()
        } else {
            None
        };
        let temps = if posix_special {
            // POSIX: assignments before a special builtin stay (bash keeps them exported).
            for t in &temps {
                if let Err(message) = self.apply_assignment(t, Scope::Normal) {
                    self.report(&fds, &message).await;
                    return Flow::Normal(1);
                }
                if let Some(var) = self.state.borrow_mut().var_mut(&t.name) {
                    var.attrs.export = true;
                }
            }
            Vec::new()
        } else {
            temps
        };
        // A function or builtin runs in the shell itself: a write of theirs that finds the
        // reader gone ends the shell (SIGPIPE); a command run as a process dies alone.
        let builtin =
            builtins::lookup(&name).filter(|_| !self.state.borrow().disabled.contains(&name));
        let in_shell = func.is_some() || builtin.is_some_and(|b| !matches!(b.name, "bash" | "sh"));
        let flow = if let Some(body) = func {
            let call = self.call_function(&name, body, argv[1..].to_vec(), fds);
            if temps.is_empty() {
                call.await
            } else {
                self.with_temps(&temps, call).await
            }
        } else if let Some(builtin) = builtin {
            let ctx = builtins::Ctx {
                sh: self.clone(),
                argv,
                args,
                fds,
            };
            if temps.is_empty() {
                (builtin.run)(ctx).await
            } else {
                self.with_temps(&temps, (builtin.run)(ctx)).await
            }
        } else if name.contains('/') {
            self.run_path(&name, argv, &temps, fds).await
        } else if let Some(path) = self.find_with(&name, &temps).await {
            self.run_path(&path, argv, &temps, fds).await
        } else {
            let message = format!("{name}: command not found{}", missing_hint(&name));
            self.report(&fds, &message).await;
            Flow::Normal(127)
        };
        match stdout.and_then(|w| w.upgrade()).filter(|h| h.broken.get()) {
            Some(_) if in_shell => Flow::Exit(141),
            Some(h) => {
                h.broken.set(false);
                flow
            }
            None => flow,
        }
    }

    /// The file `name` runs, looked up in the `PATH` of a prefix assignment if there is one
    /// (`PATH=./bin:$PATH tool`).
    async fn find_with(&self, name: &str, temps: &[AssignArg]) -> Option<String> {
        let temps = match temps.iter().any(|t| t.name == "PATH") {
            true => temps,
            false => &[],
        };
        self.with_temps(temps, async { self.find_command(name) })
            .await
    }

    /// Runs `body` with prefix assignments as a temporary scope (`IFS=, read a b`).
    pub(crate) async fn with_temps<T, F: std::future::Future<Output = T>>(
        &self,
        temps: &[AssignArg],
        body: F,
    ) -> T {
        if temps.is_empty() {
            return body.await;
        }
        // `a[0]=x f` binds nothing (bash: "not a valid identifier", and runs `f`).
        let frame = temps
            .iter()
            .filter(|t| t.index.is_none())
            .map(|t| (t.name.clone(), temp_var(t)))
            .collect();
        self.state.borrow_mut().frames.push(frame);
        let depth = self.state.borrow().frames.len();
        let flow = body.await;
        let mut s = self.state.borrow_mut();
        if s.frames.len() >= depth {
            let mut frame = s.frames.drain(depth - 1..).next().unwrap_or_default();
            // What the command declared there (`E=x local v`) belongs to the scope below.
            frame.retain(|name, _| !temps.iter().any(|t| &t.name == name));
            match s.frames.last_mut() {
                Some(below) => below.extend(frame),
                None => s.globals.extend(frame),
            }
        }
        flow
    }

    /// Calls a shell function with `args` as its positional parameters.
    pub async fn call_function(
        &self,
        name: &str,
        body: Rc<Command>,
        args: Vec<String>,
        fds: Fds,
    ) -> Flow {
        let (saved_positional, saved_loops) = {
            let mut s = self.state.borrow_mut();
            let positional = std::mem::replace(&mut s.positional, args);
            s.frames.push(HashMap::new());
            s.call_stack.push(name.to_string());
            (positional, std::mem::replace(&mut s.loop_depth, 0))
        };
        self.update_funcname();
        let entry_trap = self.state.borrow().traps.get("RETURN").cloned();
        let line = std::mem::replace(&mut self.state.borrow_mut().line, body.line);
        // The trap at a function's entry sees the definition's line, as in bash.
        let flow = match self.debug_trap(None, &fds).await {
            Some(exit) => exit,
            None => self.run_command(&body, fds.clone()).await,
        };
        let flow = match flow {
            Flow::Exit(_) => flow,
            flow => self.return_trap(name, entry_trap, flow, &fds).await,
        };
        {
            let mut s = self.state.borrow_mut();
            s.positional = saved_positional;
            s.loop_depth = saved_loops;
            let depth = s.frames.len();
            if s.saved_options.last().is_some_and(|(d, _)| *d == depth) {
                if let Some((_, saved)) = s.saved_options.pop() {
                    s.opts.restore_set_options(&saved);
                }
            }
            s.frames.pop();
            s.call_stack.pop();
            s.line = line;
        }
        self.update_funcname();
        match flow {
            Flow::Normal(s) | Flow::Return(s) => Flow::Normal(s),
            Flow::Exit(s) => Flow::Exit(s),
            Flow::Break(_, s) => Flow::Normal(s),
            Flow::Continue(_) => Flow::Normal(0),
        }
    }

    /// Runs the `RETURN` trap as a function returns, when the function is traced (`set -T`,
    /// `declare -ft`) or set it (it differs from `entry_trap`, the one at its entry), as bash
    /// does; `$?` in it is the last command's status (`return N` has not set it yet).
    async fn return_trap(
        &self,
        name: &str,
        entry_trap: Option<String>,
        flow: Flow,
        fds: &Fds,
    ) -> Flow {
        let traced = {
            let s = self.state.borrow();
            s.opts.functrace
                || s.traced.contains(name)
                || s.traps.get("RETURN") != entry_trap.as_ref()
        };
        if !traced {
            return flow;
        }
        self.run_return_trap(flow, fds).await
    }

    /// Runs the `RETURN` trap as `source` finishes, where the trap applies: at top level,
    /// or in a function that inherits it (`set -T`, `declare -ft`). `$?` in it is the last
    /// command's status, as in bash (not the `return` status).
    pub async fn source_return_trap(&self, flow: Flow, fds: &Fds) -> Flow {
        let applies = {
            let s = self.state.borrow();
            s.subshell == 0
                && (s.opts.functrace || s.call_stack.last().is_none_or(|f| s.traced.contains(f)))
        };
        if !applies || matches!(flow, Flow::Exit(_)) {
            return flow;
        }
        self.run_return_trap(flow, fds).await
    }

    /// Runs the `RETURN` trap's code (`$?` unchanged); `flow` stands unless the trap exits.
    async fn run_return_trap(&self, flow: Flow, fds: &Fds) -> Flow {
        // Removed while it runs, so its own function calls do not run it again.
        let Some(code) = self.state.borrow_mut().traps.remove("RETURN") else {
            return flow;
        };
        let ran = match crate::shell::parse(&code) {
            Ok(program) => self.run_list(&program, fds).await,
            Err(_) => Flow::Normal(0),
        };
        let mut s = self.state.borrow_mut();
        s.traps.entry("RETURN".into()).or_insert(code);
        match ran {
            Flow::Exit(_) => ran,
            _ => flow,
        }
    }

    fn update_funcname(&self) {
        let names: Vec<String> = self
            .state
            .borrow()
            .call_stack
            .iter()
            .rev()
            .cloned()
            .collect();
        if names.is_empty() {
            self.state.borrow_mut().globals.remove("FUNCNAME");
            return;
        }
        // `extend`, not `collect`: collecting into a map compiles a sort per call site.
        let mut map = BTreeMap::new();
        map.extend(names.into_iter().enumerate().map(|(i, n)| (i as i64, n)));
        self.state.borrow_mut().globals.insert(
            "FUNCNAME".into(),
            Var {
                value: Some(Value::Indexed(Rc::new(map))),
                attrs: Attrs {
                    array: true,
                    ..Attrs::default()
                },
            },
        );
    }

    /// Runs an applet with the descriptor table (consumed: handles only it holds are moved in).
    pub async fn run_applet(
        &self,
        applet: &'static Applet,
        argv: Vec<String>,
        temps: &[AssignArg],
        fds: Fds,
    ) -> Flow {
        let shown = argv.first().cloned().unwrap_or_default();
        self.run_applet_as(applet, argv, temps, fds, shown).await
    }

    /// [`Sh::run_applet`], the applet naming itself `shown` in its messages (a builtin that
    /// runs an applet passes `bash: line N: printf`).
    pub async fn run_applet_as(
        &self,
        applet: &'static Applet,
        argv: Vec<String>,
        temps: &[AssignArg],
        fds: Fds,
        shown: String,
    ) -> Flow {
        // `a[0]=x cmd` puts nothing in the command's environment (bash).
        let temps: Vec<(String, String)> = temps
            .iter()
            .filter(|t| t.index.is_none())
            .map(|t| (t.name.clone(), t.scalar()))
            .collect();
        let (env, cwd) = {
            let s = self.state.borrow();
            let mut env = s.environment();
            env.extend(temps.iter().cloned());
            (env, s.cwd.clone())
        };
        let name = argv.first().cloned().unwrap_or_default();
        let raw = argv.iter().any(|a| crate::shell::bytes::has_raw(a));
        let io = applet_io(fds, &name, &self.world.deadline, raw);
        let (stdin, stdout, stderr, tasks) = io.split();
        let ctx = Ctx {
            name: shown,
            args: argv.get(1..).unwrap_or_default().to_vec(),
            stdin,
            stdout,
            stderr,
            cwd,
            env: Rc::new(env),
            vfs: Rc::clone(&self.world.vfs),
            host: Rc::clone(&self.world.host),
            commands: Rc::new(ShellCommands::new(self.clone(), temps)),
        };
        Flow::Normal(drive(applet.start(ctx), tasks).await)
    }

    /// A command given as a path: `/bin/NAME` and `/usr/bin/NAME` are applets; anything else
    /// is a file in the VFS, run as a script.
    async fn run_path(
        &self,
        path: &str,
        mut argv: Vec<String>,
        temps: &[AssignArg],
        fds: Fds,
    ) -> Flow {
        for dir in [
            "/bin/",
            "/usr/bin/",
            "/usr/local/bin/",
            "/sbin/",
            "/usr/sbin/",
        ] {
            let Some(name) = path.strip_prefix(dir) else {
                continue;
            };
            if let Some(applet) = applets::lookup(name) {
                argv[0] = name.to_string();
                return self.run_applet(applet, argv, temps, fds).await;
            }
            let program = crate::shell::interp::path::BUILTIN_FILES.contains(&name);
            if let Some(builtin) = builtins::lookup(name).filter(|_| program) {
                // The program runs the builtin's code, even when `enable -n` turned the
                // builtin off (or a function has its name).
                argv[0] = name.to_string();
                let args = argv.iter().cloned().map(ArgValue::Word).collect();
                let ctx = builtins::Ctx {
                    sh: self.clone(),
                    argv,
                    args,
                    fds,
                };
                return self.with_temps(temps, (builtin.run)(ctx)).await;
            }
        }
        let cwd = self.state.borrow().cwd.clone();
        let read = self.world.vfs.borrow().read_shared(&cwd, path);
        let data = match read {
            Ok(data) => data,
            Err(e) => {
                let status = if e.code == crate::vfs::Errno::ENOENT {
                    127
                } else {
                    126
                };
                self.report(&fds, &e.to_string()).await;
                return Flow::Normal(status);
            }
        };
        // (The execute bit is not required: files the host writes have none, and scripts
        // given to the sandbox that way are meant to run.)
        if !data.starts_with(b"#!") && is_binary(&data) {
            let message = format!("{path}: cannot execute binary file: Exec format error");
            self.report(&fds, &message).await;
            return Flow::Normal(126);
        }
        let text = crate::shell::bytes::decode(&data);
        let args = argv.get(1..).unwrap_or_default().to_vec();
        self.exec_script(path, &text, args, temps, fds).await
    }

    /// Runs a script file's text as a new process would: `#!` names the interpreter (a shell,
    /// or an applet such as awk); otherwise it is a shell script.
    pub async fn exec_script(
        &self,
        path: &str,
        text: &str,
        args: Vec<String>,
        temps: &[AssignArg],
        fds: Fds,
    ) -> Flow {
        if let Some(line) = text.strip_prefix("#!") {
            let line = line.lines().next().unwrap_or_default();
            let mut words = line.split_whitespace();
            let interp = words.next().unwrap_or_default();
            let mut program = interp.rsplit('/').next().unwrap_or_default().to_string();
            let mut extra: Vec<String> = words.map(str::to_string).collect();
            if program == "env" {
                extra.retain(|w| !w.starts_with('-'));
                if extra.is_empty() {
                    program.clear();
                } else {
                    program = extra.remove(0);
                }
            }
            if !matches!(
                program.as_str(),
                "bash" | "sh" | "dash" | "ksh" | "zsh" | ""
            ) {
                let Some(applet) = applets::lookup(&program) else {
                    let message =
                        format!("{path}: {interp}: bad interpreter: No such file or directory");
                    self.report(&fds, &message).await;
                    return Flow::Normal(126);
                };
                let mut argv = vec![program.clone()];
                argv.extend(extra);
                argv.push(path.to_string());
                argv.extend(args);
                return self.run_applet(applet, argv, temps, fds).await;
            }
        }
        let child = match self.child_shell(path, args, temps) {
            Ok(child) => child,
            Err(message) => {
                self.report(&fds, &message).await;
                return Flow::Normal(1);
            }
        };
        child.state.borrow_mut().opts.script_file = true;
        Flow::Normal(child.run_script_text(text, fds).await)
    }

    /// The working directory a new shell starts in, as bash finds it: an inherited `$PWD`
    /// that names `cwd`, else `cwd`'s physical path (no symlinks).
    fn startup_cwd(&self, cwd: &str, inherited: Option<String>) -> String {
        let vfs = self.world.vfs.borrow();
        let Ok(physical) = vfs.canonicalize("/", cwd) else {
            return cwd.to_string();
        };
        match inherited {
            Some(pwd) if vfs.canonicalize("/", &pwd).is_ok_and(|p| p == physical) => pwd,
            _ => physical,
        }
    }

    /// A new shell process: the exported variables, the working directory, no functions or
    /// options; `$0` and the positional parameters given.
    pub fn child_shell(
        &self,
        arg0: &str,
        args: Vec<String>,
        temps: &[AssignArg],
    ) -> Result<Sh, String> {
        let parent = self.state.borrow();
        if parent.depth >= MAX_COMMAND_DEPTH {
            return Err(format!(
                "{arg0}: maximum nesting level exceeded ({MAX_COMMAND_DEPTH})"
            ));
        }
        let mut child = State::new(Rc::clone(&parent.clock));
        for (name, value) in parent.environment() {
            let _ = child.assign(&name, value, false);
            if let Some(var) = child.var_mut(&name) {
                var.attrs.export = true;
            }
        }
        for t in temps {
            let _ = child.assign(&t.name, t.scalar(), false);
            if let Some(var) = child.var_mut(&t.name) {
                var.attrs.export = true;
            }
        }
        let level = parent
            .get("SHLVL")
            .and_then(|v| v.parse::<i64>().ok())
            .unwrap_or(1)
            + 1;
        let _ = child.assign("SHLVL", level.to_string(), false);
        child.cwd = self.startup_cwd(&parent.cwd, child.get("PWD"));
        if child.get("PWD").as_deref() != Some(child.cwd.as_str()) {
            let _ = child.assign("PWD", child.cwd.clone(), false);
        }
        child.depth = parent.depth + 1;
        child.arg0 = arg0.to_string();
        child.positional = args;
        child.random = Rc::clone(&parent.random);
        child.start_ms = parent.start_ms;
        drop(parent);
        Ok(Sh {
            state: Rc::new(RefCell::new(child)),
            world: Rc::clone(&self.world),
            jobs: Rc::clone(&self.jobs),
        })
    }
}

/// A hint for programs people expect on a Linux box that this sandbox does not have.
/// POSIX's special builtins (`set -o posix` treats them apart).
pub fn is_special_builtin(name: &str) -> bool {
    matches!(
        name,
        "break"
            | ":"
            | "."
            | "continue"
            | "eval"
            | "exec"
            | "exit"
            | "export"
            | "readonly"
            | "return"
            | "set"
            | "shift"
            | "source"
            | "times"
            | "trap"
            | "unset"
    )
}

fn missing_hint(name: &str) -> &'static str {
    match name {
        "python" | "python3" | "pip" | "pip3" | "node" | "npm" | "npx" | "ruby" | "perl" | "go"
        | "cargo" | "rustc" | "gcc" | "cc" | "make" | "java" => {
            " (this sandbox runs the shell and JavaScript only; `help` lists the commands)"
        }
        "curl" | "wget" | "ssh" | "scp" | "git" | "nc" | "ping" => {
            " (there is no network here; host tools are called with `tool NAME`, see `tool --list`)"
        }
        "sudo" | "su" | "apt" | "apt-get" | "yum" | "apk" | "brew" | "docker" | "systemctl" => {
            " (nothing can be installed or administered in this sandbox; `help` lists the commands)"
        }
        _ => "",
    }
}

/// Makes `env` the exported environment of `state`: the other exported variables are unset
/// (`env -i`, `env -u NAME`), the given ones set and exported.
fn replace_environment(state: &mut State, env: BTreeMap<String, String>) {
    for name in state.names() {
        let exported = state.var(&name).is_some_and(|v| v.attrs.export);
        if exported && !env.contains_key(&name) {
            let _ = state.unset(&name);
        }
    }
    export_all(state, env);
}

/// Sets and exports each variable (a readonly one keeps its value).
fn export_all(state: &mut State, vars: impl IntoIterator<Item = (String, String)>) {
    for (name, value) in vars {
        if state.assign(&name, value, false).is_ok() {
            state.var_entry(&name).attrs.export = true;
        }
    }
}

/// A variable of a command's temporary environment.
/// `[k]=v` with a brace expansion in it: for an indexed array bash expands the whole word
/// as plain elements (`[k]=-{a,b}-` gives `[k]=-a-` and `[k]=-b-`); `None` without braces.
fn braced_element(e: &ArrayElement) -> Option<Word> {
    let index = e.index.as_ref()?;
    let op = if e.append { "]+=" } else { "]=" };
    let mut parts = vec![WordPart::Literal("[".into())];
    parts.extend(index.parts.iter().cloned());
    parts.push(WordPart::Literal(op.into()));
    parts.extend(untilde(&e.value).parts);
    let parts = mark_braces(parts, 0).ok()?;
    let braces = parts
        .iter()
        .any(|p| matches!(p, WordPart::BraceList(_) | WordPart::BraceSeq(_)));
    braces.then_some(Word { parts })
}

/// `word` with its tilde prefixes as the text they were written as.
fn untilde(word: &Word) -> Word {
    let parts = word.parts.iter().map(|part| match part {
        WordPart::Tilde(user) => WordPart::Literal(format!("~{user}")),
        part => part.clone(),
    });
    Word {
        parts: parts.collect(),
    }
}

fn temp_var(t: &AssignArg) -> Var {
    Var {
        value: Some(Value::Str(t.scalar())),
        attrs: Attrs {
            export: true,
            ..Attrs::default()
        },
    }
}

fn quote_assign(a: &AssignArg) -> String {
    let mut out = a.name.clone();
    if let Some(i) = &a.index {
        out.push_str(&format!("[{i}]"));
    }
    out.push_str(if a.append { "+=" } else { "=" });
    match &a.value {
        AssignVal::Scalar(s) => out.push_str(&quote::trace(s)),
        AssignVal::Array(items) => {
            let parts: Vec<String> = items.iter().map(|item| quote::trace(&item.value)).collect();
            out.push_str(&format!("({})", parts.join(" ")));
        }
    }
    out
}

/// How applets run other commands (`xargs`, `find -exec`, `env CMD`, awk's `system()`): a
/// command line in this shell (a subshell of it), with the streams the applet gives.
pub struct ShellCommands {
    sh: Sh,
    /// The applet's temporary environment (`V=x xargs CMD`): its commands inherit it.
    temps: Vec<(String, String)>,
}

impl ShellCommands {
    /// The commands an applet of `sh` run with these temporary variables runs.
    pub fn new(sh: Sh, temps: Vec<(String, String)>) -> ShellCommands {
        ShellCommands { sh, temps }
    }
}

/// Whether `name` is a builtin whose program (`/usr/bin/NAME`) is an applet of its own.
fn is_program_too(name: &str) -> bool {
    crate::shell::interp::path::BUILTIN_FILES.contains(&name) && applets::lookup(name).is_some()
}

impl Commands for ShellCommands {
    fn exec(
        &self,
        argv: Vec<String>,
        cwd: String,
        env: Option<BTreeMap<String, String>>,
        stdin: Input,
        stdout: Output,
        stderr: Output,
    ) -> LocalFuture<'static, i32> {
        let sh = self.sh.clone();
        let temps = self.temps.clone();
        Box::pin(async move {
            let sub = match sh.subshell() {
                Ok(sub) => sub,
                Err(_) => return 126,
            };
            {
                let mut s = sub.state.borrow_mut();
                let _ = s.assign("PWD", cwd.clone(), false);
                s.cwd = cwd;
                match env {
                    Some(env) => {
                        replace_environment(&mut s, env);
                        if s.get("PATH").is_none() {
                            // A new bash without PATH in its environment sets this one.
                            let path = super::super::path::DEFAULT_PATH.to_string();
                            let _ = s.assign("PATH", path, false);
                        }
                    }
                    None => export_all(&mut s, temps),
                }
            }
            let fds = Fds::new(
                InHandle::stream(stdin),
                OutHandle::new(OutKind::Stream(RefCell::new(Some(stdout)))),
                OutHandle::new(OutKind::Stream(RefCell::new(Some(stderr)))),
            );
            let mut argv = argv;
            if let Some(name) = argv.first_mut().filter(|n| is_program_too(n)) {
                // A child is a program: `env printf`, `xargs echo` run coreutils' printf and
                // echo, not bash's builtins of those names.
                *name = format!("/usr/bin/{name}");
            }
            let args = argv.into_iter().map(ArgValue::Word).collect();
            sub.dispatch_with(args, Vec::new(), fds, true)
                .await
                .status()
        })
    }
}

/// Whether bash refuses to run `data` as a script: a NUL in its first 80 bytes before the
/// end of the first line (of the second after a `#!` line).
pub fn is_binary(data: &[u8]) -> bool {
    let head = &data[..data.len().min(80)];
    let lines = if head.starts_with(b"#!") { 2 } else { 1 };
    head.split(|&b| b == b'\n')
        .take(lines)
        .any(|line| line.contains(&0))
}
