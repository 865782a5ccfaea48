//! `declare`/`typeset` (and the engine `local`, `export`, `readonly` share): set attributes
//! and values, print declarations (`-p`), list functions (`-f`, `-F`).

use std::rc::Rc;

use super::{Builtin, Ctx};
use crate::shell::interp::exec::simple::{ArgValue, AssignArg, AssignVal, Scope};
use crate::shell::interp::quote;
use crate::shell::interp::state::{is_name, Attrs, State, Value, Var};
use crate::shell::interp::unparse;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `declare`.
pub(crate) const DECLARE: Builtin = Builtin {
    name: "declare",
    synopsis: "declare [-aAilurxgpfF] [name[=value] ...] — set variable values and attributes",
    run,
};

/// `typeset`.
pub(crate) const TYPESET: Builtin = Builtin {
    name: "typeset",
    synopsis: "typeset [-aAilurxgpfF] [name[=value] ...] — same as declare",
    run,
};

/// Which command is declaring.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Declare,
    Local,
    Export,
    Readonly,
}

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move { declare_like(&ctx, Mode::Declare).await })
}

/// Attribute changes requested by the options.
#[derive(Default, Clone, Copy)]
struct Flags {
    on: Attrs,
    off: Attrs,
    print: bool,
    functions: bool,
    function_names: bool,
    global: bool,
    /// `-t` / `+t`: set or clear functions' trace attribute.
    trace: Option<bool>,
}

fn set_flag(attrs: &mut Attrs, c: char) -> bool {
    match c {
        'a' => attrs.array = true,
        'A' => attrs.assoc = true,
        'i' => attrs.integer = true,
        'l' => attrs.lower = true,
        'u' => attrs.upper = true,
        'r' => attrs.readonly = true,
        'x' => attrs.export = true,
        'n' => attrs.nameref = true,
        _ => return false,
    }
    true
}

/// The engine of `declare`, `local`, `export` and `readonly`.
pub(crate) async fn declare_like(ctx: &Ctx, mode: Mode) -> Flow {
    let args = ctx.args.get(1..).unwrap_or_default();
    let mut flags = Flags::default();
    match mode {
        Mode::Export => flags.on.export = true,
        Mode::Readonly => flags.on.readonly = true,
        _ => {}
    }
    let mut start = 0;
    for arg in args {
        let ArgValue::Word(word) = arg else {
            break;
        };
        if word == "--" {
            start += 1;
            break;
        }
        let (sign, letters) = match word.chars().next() {
            Some(c @ ('-' | '+')) if word.len() > 1 => (c, &word[1..]),
            _ => break,
        };
        for c in letters.chars() {
            let ok = match (c, mode) {
                ('p', _) => {
                    flags.print = true;
                    true
                }
                ('f', _) => {
                    // As in bash, `+f` does not select functions (`declare +ft f` acts on
                    // a variable f).
                    flags.functions |= sign == '-';
                    true
                }
                ('F', Mode::Declare) => {
                    flags.function_names = true;
                    true
                }
                ('g', Mode::Declare) => {
                    flags.global = true;
                    true
                }
                ('n', Mode::Export) => {
                    flags.off.export = true;
                    flags.on.export = false;
                    true
                }
                ('t', Mode::Declare | Mode::Local) => {
                    flags.trace = Some(sign == '-');
                    true
                }
                (c, _) if sign == '-' => set_flag(&mut flags.on, c),
                (c, _) => set_flag(&mut flags.off, c),
            };
            if !ok {
                let usage = match mode {
                    Mode::Export => "export [-fn] [name[=value] ...] or export -p",
                    Mode::Readonly => "readonly [-aAf] [name[=value] ...] or readonly -p",
                    Mode::Local => "local [option] name[=value] ...",
                    Mode::Declare => "declare [-aAfFgilnrtux] [-p] [name[=value] ...]",
                };
                return ctx.bad_option(&format!("{sign}{c}"), usage).await;
            }
        }
        start += 1;
    }
    let operands = &args[start..];
    let in_function = !ctx.sh.state.borrow().call_stack.is_empty();
    if mode == Mode::Local && !in_function {
        return ctx.fail("can only be used in a function", 1).await;
    }
    if let (true, Some(on), false) = (flags.functions, flags.trace, operands.is_empty()) {
        return trace_functions(ctx, operands, on);
    }
    if let (true, true, false) = (flags.functions, flags.on.readonly, operands.is_empty()) {
        return readonly_functions(ctx, operands, mode).await;
    }
    if flags.functions || flags.function_names {
        let readonly = flags.on.readonly;
        return print_functions(ctx, operands, flags.function_names, readonly).await;
    }
    if operands.is_empty() && mode == Mode::Local {
        return list_locals(ctx).await;
    }
    if operands.is_empty() {
        return list_all(ctx, mode, flags).await;
    }
    // `export -p name` and `readonly -p name` ignore `-p` and act on the names, as bash does.
    if flags.print && matches!(mode, Mode::Declare | Mode::Local) {
        return print_named(ctx, operands, mode == Mode::Local).await;
    }
    let scope = match mode {
        Mode::Local => Scope::Local,
        Mode::Declare if flags.global => Scope::Global,
        Mode::Declare if in_function => Scope::Local,
        _ => Scope::Normal,
    };
    let mut status = 0;
    for arg in operands {
        if mode == Mode::Local && matches!(arg, ArgValue::Word(w) if w == "-") {
            // `local -`: the `set` options come back as they are now when the function returns.
            let mut s = ctx.sh.state.borrow_mut();
            let depth = s.frames.len();
            if s.saved_options.last().is_none_or(|(d, _)| *d != depth) {
                let opts = s.opts.clone();
                s.saved_options.push((depth, opts));
            }
            continue;
        }
        let assign = match arg {
            ArgValue::Assign(a) => Some((**a).clone()),
            ArgValue::Word(w) => parse_word_assignment(w),
        };
        let assign = match assign {
            Some(a) if flags.on.array || flags.on.assoc => Some(list_from_text(ctx, a).await),
            other => other,
        };
        let name = match (&assign, arg) {
            (Some(a), _) => a.name.clone(),
            (None, ArgValue::Word(w)) => w.clone(),
            (None, ArgValue::Assign(a)) => a.name.clone(),
        };
        // `export a[1]=x`, `readonly a[1]`: only `declare`/`local` take a subscript.
        let subscript = assign
            .as_ref()
            .and_then(|a| a.index.as_ref())
            .filter(|_| matches!(mode, Mode::Export | Mode::Readonly))
            .map(|i| format!("{name}[{i}]"));
        if !is_name(&name) || subscript.is_some() {
            let shown = subscript.unwrap_or_else(|| arg.text());
            ctx.fail(&format!("`{shown}': not a valid identifier"), 1)
                .await;
            status = 1;
            continue;
        }
        let mut flags = flags;
        if mode == Mode::Readonly && assign.is_none() && ctx.sh.state.borrow().var(&name).is_none()
        {
            // bash: `readonly -a x` alone makes a readonly variable, not an array.
            flags.on.array = false;
            flags.on.assoc = false;
        }
        if let Err(message) = declare_one(ctx, &name, assign.as_ref(), flags, scope) {
            ctx.fail(&message, 1).await;
            status = 1;
        }
    }
    Flow::Normal(status)
}

/// `declare -a name='(1 2 3)'`: a value written as a parenthesized list, even quoted, is read
/// as the list (its words expanded as in `name=(...)`), as bash does with `-a` and `-A`.
async fn list_from_text(ctx: &Ctx, a: AssignArg) -> AssignArg {
    let AssignVal::Scalar(text) = &a.value else {
        return a;
    };
    if a.index.is_some() || !(text.starts_with('(') && text.ends_with(')')) {
        return a;
    }
    let Ok(program) = crate::shell::parse(&format!("{}={text}", a.name)) else {
        return a;
    };
    let parsed =
        program
            .items
            .first()
            .and_then(|item| match &item.and_or.first.commands.first()?.kind {
                crate::shell::ast::CommandKind::Simple(simple) => {
                    simple.assignments.first().cloned()
                }
                _ => None,
            });
    match parsed {
        Some(assignment) => match ctx.sh.expand_assignment(&assignment, &ctx.fds).await {
            Ok(list) => AssignArg {
                append: a.append,
                ..list
            },
            Err(_) => a,
        },
        None => a,
    }
}

/// `name=value` written as one quoted word (`declare "$k=$v"`).
fn parse_word_assignment(w: &str) -> Option<AssignArg> {
    let (lhs, value) = w.split_once('=')?;
    let (lhs, append) = match lhs.strip_suffix('+') {
        Some(l) => (l, true),
        None => (lhs, false),
    };
    let (name, index) = match lhs.split_once('[') {
        Some((n, rest)) => (n, Some(rest.strip_suffix(']')?.to_string())),
        None => (lhs, None),
    };
    Some(AssignArg {
        name: name.to_string(),
        index,
        append,
        value: AssignVal::Scalar(value.to_string()),
    })
}

/// The variable for `name` in the scope a declaration writes to, created if needed.
fn entry<'a>(state: &'a mut State, name: &str, scope: Scope) -> &'a mut Var {
    match scope {
        Scope::Local => state.local_entry(name),
        Scope::Global => state.globals.entry(name.to_string()).or_default(),
        Scope::Normal => state.var_entry(name),
    }
}

fn declare_one(
    ctx: &Ctx,
    name: &str,
    assign: Option<&AssignArg>,
    flags: Flags,
    scope: Scope,
) -> Result<(), String> {
    if flags.on.nameref {
        return declare_nameref(ctx, name, assign, flags, scope);
    }
    if flags.off.nameref {
        // `declare +n r`: r itself stops being a reference and keeps the name as its value.
        let mut state = ctx.sh.state.borrow_mut();
        let is_ref = state.raw_var(name).is_some_and(|v| v.attrs.nameref);
        if is_ref {
            state.raw_entry(name).attrs.nameref = false;
        }
    }
    {
        let mut state = ctx.sh.state.borrow_mut();
        let readonly = state.var(name).is_some_and(|v| v.attrs.readonly);
        let changes_value = assign.is_some() || flags.on.array || flags.on.assoc;
        if readonly && (changes_value || flags.off.readonly) {
            return Err(format!("{name}: readonly variable"));
        }
        let var = entry(&mut state, name, scope);
        let on = flags.on;
        if on.integer {
            var.attrs.integer = true;
        }
        if on.lower {
            var.attrs.lower = true;
            var.attrs.upper = false;
        }
        if on.upper {
            var.attrs.upper = true;
            var.attrs.lower = false;
        }
        if on.export {
            var.attrs.export = true;
        }
        let off = flags.off;
        if off.export {
            var.attrs.export = false;
        }
        if off.integer {
            var.attrs.integer = false;
        }
        if off.lower {
            var.attrs.lower = false;
        }
        if off.upper {
            var.attrs.upper = false;
        }
        if on.assoc && var.value.is_none() && var.attrs.array {
            return Err(format!(
                "{name}: cannot convert indexed to associative array"
            ));
        }
        if on.array && var.value.is_none() && var.attrs.assoc {
            return Err(format!(
                "{name}: cannot convert associative to indexed array"
            ));
        }
        if on.assoc {
            match var.value.take() {
                Some(Value::Indexed(map)) if !map.is_empty() => {
                    var.value = Some(Value::Indexed(map));
                    return Err(format!(
                        "{name}: cannot convert indexed to associative array"
                    ));
                }
                Some(Value::Str(s)) => {
                    let mut map = crate::shell::interp::assoc::Assoc::default();
                    map.insert("0".into(), s);
                    var.value = Some(Value::Assoc(Rc::new(map)));
                }
                Some(Value::Assoc(map)) => var.value = Some(Value::Assoc(map)),
                Some(Value::Indexed(_)) => var.value = Some(Value::Assoc(Rc::default())),
                // `declare -A a` alone: an associative array without a value yet.
                None => {}
            }
            var.attrs.assoc = true;
        } else if on.array {
            match var.value.take() {
                Some(Value::Assoc(map)) => {
                    var.value = Some(Value::Assoc(map));
                    return Err(format!(
                        "{name}: cannot convert associative to indexed array"
                    ));
                }
                Some(Value::Str(s)) => {
                    let mut map = std::collections::BTreeMap::new();
                    map.insert(0, s);
                    var.value = Some(Value::Indexed(Rc::new(map)))
                }
                Some(Value::Indexed(map)) => var.value = Some(Value::Indexed(map)),
                None => {}
            }
            var.attrs.array = true;
        }
    }
    if let Some(a) = assign {
        let scope = if scope == Scope::Local {
            Scope::Normal
        } else {
            scope
        };
        ctx.sh.apply_assignment(a, scope)?;
    }
    let mut state = ctx.sh.state.borrow_mut();
    let var = entry(
        &mut state,
        name,
        if scope == Scope::Global {
            Scope::Global
        } else {
            Scope::Normal
        },
    );
    if flags.on.readonly {
        var.attrs.readonly = true;
    }
    if flags.on.export {
        var.attrs.export = true;
    }
    state.check_export(name)
}

/// `declare -n name[=target]`: makes `name` itself (not what it refers to) a reference.
fn declare_nameref(
    ctx: &Ctx,
    name: &str,
    assign: Option<&AssignArg>,
    flags: Flags,
    scope: Scope,
) -> Result<(), String> {
    let valid = |target: &str| {
        (is_name(target) && target != name)
            || crate::shell::interp::state::split_element(target)
                .is_some_and(|(base, _)| base != name)
    };
    let target = match assign.map(|a| &a.value) {
        Some(AssignVal::Scalar(target)) if valid(target) => Some(target.clone()),
        Some(AssignVal::Scalar(target)) if target == name => {
            return Err(format!(
                "{name}: nameref variable self references not allowed"
            ));
        }
        Some(AssignVal::Scalar(target)) => {
            return Err(format!(
                "`{target}': invalid variable name for name reference"
            ));
        }
        Some(AssignVal::Array(_)) => {
            return Err(format!("{name}: reference variable cannot be an array"));
        }
        None => None,
    };
    let mut state = ctx.sh.state.borrow_mut();
    let var = match scope {
        Scope::Local => state.local_entry(name),
        Scope::Global => state.globals.entry(name.to_string()).or_default(),
        Scope::Normal => state.raw_entry(name),
    };
    if var.attrs.readonly {
        return Err(format!("{name}: readonly variable"));
    }
    // `x=1; declare -n x`: the value it has must name a variable too.
    match &var.value {
        Some(Value::Str(old))
            if target.is_none() && !var.attrs.nameref && !valid(old) && old != name =>
        {
            return Err(format!("`{old}': invalid variable name for name reference"));
        }
        _ => {}
    }
    var.attrs.nameref = true;
    var.attrs.readonly |= flags.on.readonly;
    // `declare -nx ref=x` exports the reference itself: its value, the name `x`.
    var.attrs.export |= flags.on.export;
    if let Some(target) = target {
        var.value = Some(Value::Str(target));
    }
    Ok(())
}

/// `declare -p name...`; `local -p name...` finds only the running function's variables.
async fn print_named(ctx: &Ctx, operands: &[ArgValue], locals_only: bool) -> Flow {
    let mut out = String::new();
    let mut status = 0;
    for arg in operands {
        let name = arg.text();
        let var = {
            let s = ctx.sh.state.borrow();
            if locals_only {
                s.frames.last().and_then(|frame| frame.get(&name)).cloned()
            } else {
                s.raw_var(&name).cloned()
            }
        };
        match var {
            Some(var) => out.push_str(&quote::declaration(&name, &var)),
            None => {
                ctx.out(&std::mem::take(&mut out)).await;
                ctx.fail(&format!("{name}: not found"), 1).await;
                status = 1;
            }
        }
    }
    ctx.out(&out).await;
    Flow::Normal(status)
}

/// `local` alone: the running function's variables, as `declare -p` shows them.
async fn list_locals(ctx: &Ctx) -> Flow {
    let frame = ctx
        .sh
        .state
        .borrow()
        .frames
        .last()
        .cloned()
        .unwrap_or_default();
    let mut names: Vec<&String> = frame.keys().collect();
    crate::sort::sort(&mut names);
    let text: String = names
        .into_iter()
        .filter_map(|name| Some(quote::declaration(name, frame.get(name)?)))
        .collect();
    ctx.print_status(&text).await
}

async fn list_all(ctx: &Ctx, mode: Mode, flags: Flags) -> Flow {
    let state = ctx.sh.state.borrow().clone();
    let mut out = String::new();
    for name in state.names() {
        let Some(var) = state.raw_var(&name) else {
            continue;
        };
        let wanted = match mode {
            Mode::Export => var.attrs.export,
            Mode::Readonly => var.attrs.readonly,
            _ => {
                let on = flags.on;
                (!on.export || var.attrs.export)
                    && (!on.readonly || var.attrs.readonly)
                    && (!on.integer || var.attrs.integer)
                    && (!on.nameref || var.attrs.nameref)
                    && (!on.lower || var.attrs.lower)
                    && (!on.upper || var.attrs.upper)
                    && (!on.array || matches!(var.value, Some(Value::Indexed(_))))
                    && (!on.assoc || matches!(var.value, Some(Value::Assoc(_))))
            }
        };
        if !wanted {
            continue;
        }
        if mode == Mode::Declare && !flags.print && flags.on == Attrs::default() {
            if let Some(value) = quote::value_text(var, quote::word) {
                out.push_str(&format!("{name}={value}\n"));
            }
        } else {
            out.push_str(&quote::declaration(&name, var));
        }
    }
    ctx.print_status(&out).await
}

/// `declare -ft NAME...`: the functions inherit the `DEBUG` trap (`+t`: no longer).
fn trace_functions(ctx: &Ctx, operands: &[ArgValue], on: bool) -> Flow {
    let mut s = ctx.sh.state.borrow_mut();
    let mut status = 0;
    for name in operands.iter().map(ArgValue::text) {
        if !s.funcs.contains_key(&name) {
            status = 1;
        } else if on {
            s.traced.insert(name);
        } else {
            s.traced.remove(&name);
        }
    }
    Flow::Normal(status)
}

/// `readonly -f NAME...`, `declare -fr NAME...`: the functions can no longer be redefined
/// or unset.
async fn readonly_functions(ctx: &Ctx, operands: &[ArgValue], mode: Mode) -> Flow {
    let mut status = 0;
    for name in operands.iter().map(ArgValue::text) {
        if ctx.sh.state.borrow().funcs.contains_key(&name) {
            ctx.sh.state.borrow_mut().readonly_funcs.insert(name);
            continue;
        }
        status = 1;
        if mode == Mode::Readonly {
            ctx.fail(&format!("{name}: not a function"), 1).await;
        }
    }
    Flow::Normal(status)
}

/// `declare -f`/`-F` (`readonly_only`: `readonly -f`, `declare -fr`): the functions, or
/// their names, with their attributes.
async fn print_functions(
    ctx: &Ctx,
    operands: &[ArgValue],
    names_only: bool,
    readonly_only: bool,
) -> Flow {
    let (funcs, readonly, traced) = {
        let s = ctx.sh.state.borrow();
        (s.funcs.clone(), s.readonly_funcs.clone(), s.traced.clone())
    };
    let mut out = String::new();
    let mut status = 0;
    let wanted: Vec<String> = if operands.is_empty() {
        let listed = funcs
            .keys()
            .filter(|n| !readonly_only || readonly.contains(*n));
        listed.cloned().collect()
    } else {
        operands.iter().map(ArgValue::text).collect()
    };
    for name in wanted {
        let r = if readonly.contains(&name) { "r" } else { "" };
        let t = if traced.contains(&name) { "t" } else { "" };
        match funcs.get(&name) {
            Some(_) if names_only && !operands.is_empty() => out.push_str(&format!("{name}\n")),
            Some(_) if names_only => out.push_str(&format!("declare -f{r}{t} {name}\n")),
            Some(body) => {
                out.push_str(&unparse::function(&name, body));
                out.push('\n');
                if !r.is_empty() && operands.is_empty() {
                    out.push_str(&format!("declare -f{r}{t} {name}\n"));
                }
            }
            None => status = 1,
        }
    }
    ctx.out(&out).await;
    Flow::Normal(status)
}
