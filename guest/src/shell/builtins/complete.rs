//! Programmable completion: `complete`, `compgen`, `compopt`. There is no line editor here,
//! so `complete` stores specifications (listed by `complete -p` in bash's format and order)
//! and `compgen` prints the matches a specification gives for one word, as bash does.

use super::kill::NAMES as SIGNAL_NAMES;
use super::type_::{is_builtin, KEYWORDS};
use super::{Builtin, Ctx};
use crate::shell::interp::expand::pattern::Pattern;
use crate::shell::interp::expand::{ExpandError, Expanded};
use crate::shell::interp::path::{bash_table_order, APPLET_DIRS};
use crate::shell::interp::quote;
use crate::shell::interp::state::CompSpec;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;
use crate::vfs::FileKind;

const COMPLETE_USAGE: &str = "complete [-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] \
     [-G globpat] [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] \
     [-S suffix] [name ...]";
const COMPGEN_USAGE: &str = "compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] \
     [-W wordlist] [-F function] [-C command] [-X filterpat] [-P prefix] [-S suffix] [word]";

/// `complete`.
pub(crate) const COMPLETE: Builtin = Builtin {
    name: "complete",
    synopsis: "complete [-abcdefgjksuv] [-pr] [-DEI] [-o option] [-A action] [-W wordlist] \
               [-F function] ... [name ...] — set, list (-p) or remove (-r) completions",
    run: run_complete,
};

/// `compgen`.
pub(crate) const COMPGEN: Builtin = Builtin {
    name: "compgen",
    synopsis: "compgen [-abcdefgjksuv] [-A action] [-W wordlist] [-X filterpat] [-P prefix] \
               [-S suffix] ... [word] — print the completions of word",
    run: run_compgen,
};

/// `compopt`.
pub(crate) const COMPOPT: Builtin = Builtin {
    name: "compopt",
    synopsis: "compopt [-o|+o option] [-DEI] [name ...] — change or show completion options",
    run: run_compopt,
};

/// `-o` option names, in the order `complete -p` prints them.
const OPTIONS: &[&str] = &[
    "bashdefault",
    "default",
    "dirnames",
    "filenames",
    "noquote",
    "nosort",
    "nospace",
    "plusdirs",
];

/// Action names (`-A`) with their short letter, alphabetical: `complete -p` prints the
/// lettered ones first, then the others as `-A name`, each group in this order.
const ACTIONS: &[(&str, Option<char>)] = &[
    ("alias", Some('a')),
    ("arrayvar", None),
    ("binding", None),
    ("builtin", Some('b')),
    ("command", Some('c')),
    ("directory", Some('d')),
    ("disabled", None),
    ("enabled", None),
    ("export", Some('e')),
    ("file", Some('f')),
    ("function", None),
    ("group", Some('g')),
    ("helptopic", None),
    ("hostname", None),
    ("job", Some('j')),
    ("keyword", Some('k')),
    ("running", None),
    ("service", Some('s')),
    ("setopt", None),
    ("shopt", None),
    ("signal", None),
    ("stopped", None),
    ("user", Some('u')),
    ("variable", Some('v')),
];

/// The order bash generates actions in.
const GENERATION_ORDER: &[&str] = &[
    "alias",
    "arrayvar",
    "binding",
    "builtin",
    "disabled",
    "enabled",
    "export",
    "function",
    "helptopic",
    "hostname",
    "job",
    "keyword",
    "running",
    "setopt",
    "shopt",
    "signal",
    "stopped",
    "variable",
    "command",
    "file",
    "user",
    "group",
    "service",
    "directory",
];

/// The letters of the option arguments, in [`CompSpec::args`] order.
const ARG_LETTERS: [char; 7] = ['G', 'W', 'P', 'S', 'X', 'C', 'F'];
const GLOB: usize = 0;
const WORDS: usize = 1;
const PREFIX: usize = 2;
const SUFFIX: usize = 3;
const FILTER: usize = 4;
const COMMAND: usize = 5;
const FUNCTION: usize = 6;

/// `set -o` names bash knows (`compgen -A setopt`).
const SETOPTS: &[&str] = &[
    "allexport",
    "braceexpand",
    "emacs",
    "errexit",
    "errtrace",
    "functrace",
    "hashall",
    "histexpand",
    "history",
    "ignoreeof",
    "interactive-comments",
    "keyword",
    "monitor",
    "noclobber",
    "noexec",
    "noglob",
    "nolog",
    "notify",
    "nounset",
    "onecmd",
    "physical",
    "pipefail",
    "posix",
    "privileged",
    "verbose",
    "vi",
    "xtrace",
];

/// `shopt` names bash knows, in its order (`compgen -A shopt`).
const SHOPTS: &[&str] = &[
    "autocd",
    "assoc_expand_once",
    "cdable_vars",
    "cdspell",
    "checkhash",
    "checkjobs",
    "checkwinsize",
    "cmdhist",
    "compat31",
    "compat32",
    "compat40",
    "compat41",
    "compat42",
    "compat43",
    "compat44",
    "complete_fullquote",
    "direxpand",
    "dirspell",
    "dotglob",
    "execfail",
    "expand_aliases",
    "extdebug",
    "extglob",
    "extquote",
    "failglob",
    "force_fignore",
    "globasciiranges",
    "globskipdots",
    "globstar",
    "gnu_errfmt",
    "histappend",
    "histreedit",
    "histverify",
    "hostcomplete",
    "huponexit",
    "inherit_errexit",
    "interactive_comments",
    "lastpipe",
    "lithist",
    "localvar_inherit",
    "localvar_unset",
    "login_shell",
    "mailwarn",
    "no_empty_cmd_completion",
    "nocaseglob",
    "nocasematch",
    "noexpand_translation",
    "nullglob",
    "patsub_replacement",
    "progcomp",
    "progcomp_alias",
    "promptvars",
    "restricted_shell",
    "shift_verbose",
    "sourcepath",
    "varredir_close",
    "xpg_echo",
];

/// Help topics that are not builtins (`compgen -A helptopic`).
const TOPICS: &[&str] = &[
    "%",
    "(( ... ))",
    "[[ ... ]]",
    "case",
    "coproc",
    "for",
    "for ((",
    "function",
    "if",
    "select",
    "time",
    "until",
    "variables",
    "while",
    "{ ... }",
];

/// Builtins bash has that this shell does not, still help topics and completions.
const BASH_ONLY_BUILTINS: &[&str] = &[
    "bg", "bind", "disown", "enable", "fc", "fg", "history", "suspend",
];

/// Special names of `-D`, `-E` and `-I`, as bash stores them.
const SPECIAL: &[(char, &str)] = &[
    ('D', "_DefaultCmD_"),
    ('E', "_EmptycmD_"),
    ('I', "_InitialWorD_"),
];

/// What the options of `complete`/`compgen`/`compopt` said.
#[derive(Default)]
struct Parsed {
    spec: CompSpec,
    print: bool,
    remove: bool,
    special: Vec<&'static str>,
    /// `compopt +o`: options to clear.
    cleared: u32,
    any_option: bool,
    operands: Vec<String>,
}

/// Why parsing failed: the message and whether to print the usage.
struct Bad(String, bool);

fn parse(args: &[String], letters: &str) -> Result<Parsed, Bad> {
    let mut p = Parsed::default();
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        i += 1;
        if arg == "--" {
            break;
        }
        let plus = arg.starts_with('+') && letters.contains('+');
        let Some(flags) = arg.strip_prefix(['-', '+']).filter(|f| !f.is_empty()) else {
            i -= 1;
            break;
        };
        if arg.starts_with('+') && !plus {
            i -= 1;
            break;
        }
        for (at, letter) in flags.char_indices() {
            if !letters.contains(letter) || plus && letter != 'o' {
                return Err(Bad(format!("{}{letter}: invalid option", &arg[..1]), true));
            }
            let takes_arg = "oAGWPSXCF".contains(letter);
            if !takes_arg {
                flag(&mut p, letter);
                continue;
            }
            let value = match &flags[at + letter.len_utf8()..] {
                "" => {
                    let Some(next) = args.get(i) else {
                        let m = format!("-{letter}: option requires an argument");
                        return Err(Bad(m, true));
                    };
                    i += 1;
                    next.clone()
                }
                rest => rest.to_string(),
            };
            with_arg(&mut p, letter, value, plus)?;
            break;
        }
    }
    p.operands = args[i.min(args.len())..].to_vec();
    Ok(p)
}

fn flag(p: &mut Parsed, letter: char) {
    match letter {
        'p' => p.print = true,
        'r' => p.remove = true,
        'D' | 'E' | 'I' => {
            let name = SPECIAL.iter().find(|(l, _)| *l == letter).map(|(_, n)| *n);
            p.special.extend(name);
        }
        _ => {
            let at = ACTIONS.iter().position(|(_, l)| *l == Some(letter));
            p.spec.actions |= at.map_or(0, |i| 1 << i);
        }
    }
}

fn with_arg(p: &mut Parsed, letter: char, value: String, plus: bool) -> Result<(), Bad> {
    match letter {
        'o' => {
            let Some(at) = OPTIONS.iter().position(|o| *o == value) else {
                return Err(Bad(format!("{value}: invalid option name"), false));
            };
            p.any_option = true;
            if plus {
                p.cleared |= 1 << at;
            } else {
                p.spec.options |= 1 << at;
            }
        }
        'A' => {
            let Some(at) = ACTIONS.iter().position(|(a, _)| *a == value) else {
                return Err(Bad(format!("{value}: invalid action name"), false));
            };
            p.spec.actions |= 1 << at;
        }
        _ => {
            let at = ARG_LETTERS.iter().position(|l| *l == letter).unwrap_or(0);
            p.spec.args[at] = Some(value);
        }
    }
    Ok(())
}

async fn report(ctx: &Ctx, bad: Bad, usage: &str) -> Flow {
    ctx.fail(&bad.0, 2).await;
    if bad.1 {
        let name = ctx.name();
        ctx.fds.eprint(&format!("{name}: usage: {usage}\n")).await;
    }
    Flow::Normal(2)
}

/// `complete -p`'s line for one specification.
fn spec_line(name: &str, spec: &CompSpec) -> String {
    let mut out = String::from("complete");
    for (i, option) in OPTIONS.iter().enumerate() {
        if spec.options & (1 << i) != 0 {
            out.push_str(&format!(" -o {option}"));
        }
    }
    let actions = ACTIONS.iter().enumerate();
    for (i, (_, letter)) in actions.clone() {
        if let Some(l) = letter.filter(|_| spec.actions & (1 << i) != 0) {
            out.push_str(&format!(" -{l}"));
        }
    }
    for (i, (action, letter)) in actions {
        if letter.is_none() && spec.actions & (1 << i) != 0 {
            out.push_str(&format!(" -A {action}"));
        }
    }
    for (letter, value) in ARG_LETTERS.iter().zip(&spec.args) {
        match value {
            Some(v) if *letter == 'F' => out.push_str(&format!(" -F {v}")),
            Some(v) => out.push_str(&format!(" -{letter} {}", quote::single(v))),
            None => {}
        }
    }
    let shown = SPECIAL
        .iter()
        .find(|(_, n)| *n == name)
        .map_or_else(|| name.to_string(), |(l, _)| format!("-{l}"));
    format!("{out} {shown}\n")
}

fn run_complete(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let p = match parse(ctx.operands(), "abcdefgjksuvprDEIoAGWPSXCF") {
            Ok(p) => p,
            Err(bad) => return report(&ctx, bad, COMPLETE_USAGE).await,
        };
        let mut names: Vec<String> = p.special.iter().map(|s| (*s).to_string()).collect();
        names.extend(p.operands.iter().cloned());
        let defines = p.spec != CompSpec::default();
        if p.print || (names.is_empty() && !p.remove && !defines) {
            return print_specs(&ctx, &names).await;
        }
        if p.remove {
            // bash has no table until the first `complete`: removing from it succeeds.
            if names.is_empty() || ctx.sh.state.borrow().completions.is_empty() {
                ctx.sh.state.borrow_mut().completions.clear();
                return Flow::Normal(0);
            }
            let mut status = 0;
            for name in &names {
                let removed = {
                    let mut s = ctx.sh.state.borrow_mut();
                    let before = s.completions.len();
                    s.completions.retain(|(n, _)| n != name);
                    s.completions.len() != before
                };
                if !removed {
                    ctx.fail(&format!("{name}: no completion specification"), 1)
                        .await;
                    status = 1;
                }
            }
            return Flow::Normal(status);
        }
        if names.is_empty() {
            let text = format!("complete: usage: {COMPLETE_USAGE}\n");
            ctx.fds.eprint(&text).await;
            return Flow::Normal(2);
        }
        let mut s = ctx.sh.state.borrow_mut();
        for name in names {
            s.completions.retain(|(n, _)| *n != name);
            s.completions.push((name, p.spec.clone()));
        }
        Flow::Normal(0)
    })
}

async fn print_specs(ctx: &Ctx, names: &[String]) -> Flow {
    let all = ctx.sh.state.borrow().completions.clone();
    if names.is_empty() {
        let ordered = bash_table_order(all, 512, |(n, _)| n);
        let text: String = ordered.iter().map(|(n, s)| spec_line(n, s)).collect();
        return ctx.print_status(&text).await;
    }
    let mut status = 0;
    let mut out = String::new();
    for name in names {
        match all.iter().find(|(n, _)| n == name) {
            Some((n, spec)) => out.push_str(&spec_line(n, spec)),
            None => {
                ctx.out(&out).await;
                out.clear();
                ctx.fail(&format!("{name}: no completion specification"), 1)
                    .await;
                status = 1;
            }
        }
    }
    ctx.out(&out).await;
    Flow::Normal(status)
}

fn run_compopt(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let p = match parse(ctx.operands(), "oDEI+") {
            Ok(p) => p,
            Err(bad) => {
                let usage = "compopt [-o|+o option] [-DEI] [name ...]";
                return report(&ctx, bad, usage).await;
            }
        };
        let mut names: Vec<String> = p.special.iter().map(|s| (*s).to_string()).collect();
        names.extend(p.operands.iter().cloned());
        if names.is_empty() {
            return ctx
                .fail("not currently executing completion function", 1)
                .await;
        }
        let mut status = 0;
        let mut out = String::new();
        for name in &names {
            let options = {
                let mut s = ctx.sh.state.borrow_mut();
                let spec = s.completions.iter_mut().find(|(n, _)| n == name);
                spec.map(|(_, spec)| {
                    if p.any_option {
                        spec.options = (spec.options | p.spec.options) & !p.cleared;
                    }
                    spec.options
                })
            };
            let Some(options) = options else {
                ctx.fail(&format!("{name}: no completion specification"), 1)
                    .await;
                status = 1;
                continue;
            };
            if p.any_option {
                continue;
            }
            let mut line = String::from("compopt");
            for (i, option) in OPTIONS.iter().enumerate() {
                let sign = if options & (1 << i) != 0 { '-' } else { '+' };
                line.push_str(&format!(" {sign}o {option}"));
            }
            out.push_str(&format!("{line} {name}\n"));
        }
        ctx.out(&out).await;
        Flow::Normal(status)
    })
}

fn run_compgen(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let p = match parse(ctx.operands(), "abcdefgjksuvoAGWPSXCF") {
            Ok(p) => p,
            Err(bad) => return report(&ctx, bad, COMPGEN_USAGE).await,
        };
        if p.spec == CompSpec::default() {
            return Flow::Normal(0);
        }
        let word = p.operands.first().cloned().unwrap_or_default();
        let matches = match generate(&ctx, &p.spec, &word).await {
            Ok(m) => m,
            Err(flow) => return flow,
        };
        let text: String = matches.iter().map(|m| format!("{m}\n")).collect();
        if matches.is_empty() {
            return Flow::Normal(1);
        }
        ctx.print_status(&text).await
    })
}

/// The matches `spec` gives for `word`: actions, `-G`, `-W`, `-F`, `-C`, then `-X`
/// filtering, then `-P`/`-S`, then `-o plusdirs` (and `dirnames`/`default` when empty).
async fn generate(ctx: &Ctx, spec: &CompSpec, word: &str) -> Result<Vec<String>, Flow> {
    let mut out = Vec::new();
    for action in GENERATION_ORDER {
        let at = ACTIONS.iter().position(|(a, _)| a == action).unwrap_or(0);
        if spec.actions & (1 << at) != 0 {
            out.extend(action_matches(ctx, action, word));
        }
    }
    if let Some(glob) = &spec.args[GLOB] {
        let chars: Vec<(char, bool)> = glob.chars().map(|c| (c, false)).collect();
        out.extend(ctx.sh.glob(&chars).unwrap_or_default());
    }
    if let Some(words) = &spec.args[WORDS] {
        let words = expand_wordlist(ctx, words).await?;
        out.extend(words.into_iter().filter(|w| w.starts_with(word)));
    }
    if let Some(function) = &spec.args[FUNCTION] {
        out.extend(call_function(ctx, function, word).await?);
    }
    if let Some(command) = &spec.args[COMMAND] {
        out.extend(run_command(ctx, command, word).await?);
    }
    if let Some(filter) = &spec.args[FILTER] {
        let (negate, text) = match filter.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, filter.as_str()),
        };
        let pattern = filter_pattern(text, word);
        out.retain(|m| pattern.matches(m) == negate);
    }
    let prefix = spec.args[PREFIX].clone().unwrap_or_default();
    let suffix = spec.args[SUFFIX].clone().unwrap_or_default();
    let mut out: Vec<String> = out
        .into_iter()
        .map(|m| format!("{prefix}{m}{suffix}"))
        .collect();
    let has = |name: &str| {
        spec.options & (1 << OPTIONS.iter().position(|o| *o == name).unwrap_or(0)) != 0
    };
    if has("plusdirs") || out.is_empty() && has("dirnames") {
        out.extend(files(ctx, word, true));
    } else if out.is_empty() && has("default") {
        out.extend(files(ctx, word, false));
    }
    Ok(out)
}

/// A `-X` pattern: `&` stands for the word, `\&` for a literal `&`.
fn filter_pattern(text: &str, word: &str) -> Pattern {
    let mut chars = Vec::new();
    let mut it = text.chars();
    while let Some(c) = it.next() {
        match c {
            '\\' => chars.extend(it.next().map(|n| (n, n == '&'))),
            '&' => chars.extend(word.chars().map(|w| (w, true))),
            c => chars.push((c, false)),
        }
    }
    chars.iter_mut().for_each(|c| {
        if c.0 == '\\' {
            c.1 = true;
        }
    });
    Pattern::new(&chars)
}

/// `-W`'s list: split like shell words and expanded (parameters, substitutions, quotes,
/// splitting), but not globbed, as bash does.
async fn expand_wordlist(ctx: &Ctx, words: &str) -> Result<Vec<String>, Flow> {
    let ifs = ctx.sh.state.borrow().ifs();
    let program = match crate::shell::parse(&format!(": {}", ifs_words(words, &ifs))) {
        Ok(program) => program,
        // bash: an unclosed `${` is a bad substitution; other broken text is taken as words.
        Err(e) if e.message.ends_with("matching `}'") => {
            let from = words.rfind("${").unwrap_or_default();
            let message = format!("{}: bad substitution", &words[from..]);
            ctx.sh.report(&ctx.fds, &message).await;
            return Err(Flow::Normal(1));
        }
        Err(_) => return Ok(words.split_whitespace().map(str::to_string).collect()),
    };
    let Some(simple) =
        program
            .items
            .first()
            .and_then(|item| match &item.and_or.first.commands.first()?.kind {
                crate::shell::ast::CommandKind::Simple(s) => Some(s.clone()),
                _ => None,
            })
    else {
        return Ok(Vec::new());
    };
    let words: Vec<&crate::shell::ast::Word> = simple
        .words
        .iter()
        .skip(1)
        .filter_map(|a| match a {
            crate::shell::ast::Arg::Word(w) => Some(w),
            crate::shell::ast::Arg::Assign(_) => None,
        })
        .collect();
    let noglob = std::mem::replace(&mut ctx.sh.state.borrow_mut().opts.noglob, true);
    let expanded = ctx.sh.expand_fields(&words, &ctx.fds).await;
    ctx.sh.state.borrow_mut().opts.noglob = noglob;
    failed(ctx, expanded).await
}

/// `-F function`: called with the command name, the word and the previous word, with the
/// `COMP_*` variables of an empty line; its `COMPREPLY` array is the result.
async fn call_function(ctx: &Ctx, name: &str, word: &str) -> Result<Vec<String>, Flow> {
    let me = ctx.name().to_string();
    ctx.sh
        .report(
            &ctx.fds,
            &format!("{me}: warning: -F option may not work as you expect"),
        )
        .await;
    let body = ctx.sh.state.borrow().funcs.get(name).cloned();
    let Some(body) = body else {
        let message = format!("completion: function `{name}' not found");
        ctx.sh.report(&ctx.fds, &message).await;
        return Err(Flow::Normal(1));
    };
    let set = |name: &str, value: &str| {
        let _ = ctx
            .sh
            .state
            .borrow_mut()
            .assign(name, value.to_string(), false);
    };
    for (var, value) in [("COMP_LINE", ""), ("COMP_POINT", "0"), ("COMP_CWORD", "-1")] {
        set(var, value);
    }
    for var in ["COMP_TYPE", "COMP_KEY"] {
        set(var, "0");
    }
    let _ = ctx
        .sh
        .state
        .borrow_mut()
        .assign_array("COMP_WORDS", Vec::new(), false);
    let _ = ctx.sh.state.borrow_mut().unset("COMPREPLY");
    let args = vec![me, word.to_string(), String::new()];
    let flow = ctx
        .sh
        .call_function(name, body, args, ctx.fds.clone())
        .await;
    let mut s = ctx.sh.state.borrow_mut();
    let reply = s.var("COMPREPLY").map(|v| v.elements()).unwrap_or_default();
    for var in [
        "COMPREPLY",
        "COMP_LINE",
        "COMP_POINT",
        "COMP_CWORD",
        "COMP_TYPE",
        "COMP_KEY",
        "COMP_WORDS",
    ] {
        let _ = s.unset(var);
    }
    match flow {
        Flow::Exit(_) => Err(flow),
        _ => Ok(reply),
    }
}

/// `words` split at unquoted `IFS` characters, as bash splits a `-W` list, and rewritten as
/// shell words: blanks inside a piece are escaped so that each piece stays one word.
fn ifs_words(words: &str, ifs: &str) -> String {
    let mut out = String::new();
    let mut quote = None;
    // Inside `$(...)` or `${...}`: copied as written.
    let mut depth = 0usize;
    let mut chars = words.chars().peekable();
    while let Some(c) = chars.next() {
        let opens = c == '$' && matches!(chars.peek(), Some('(' | '{'));
        match (quote, c) {
            _ if opens => {
                out.push(c);
                out.extend(chars.next());
                depth += 1;
            }
            (_, '(' | '{') if depth > 0 => {
                depth += 1;
                out.push(c);
            }
            (_, ')' | '}') if depth > 0 => {
                depth -= 1;
                out.push(c);
            }
            _ if depth > 0 => out.push(c),
            (None | Some('"'), '\\') => {
                out.push(c);
                out.extend(chars.next());
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                out.push(c);
            }
            (Some(q), c) if c == q => {
                quote = None;
                out.push(c);
            }
            (None, c) if ifs.contains(c) => out.push(' '),
            (None, ' ' | '\t' | '\n') => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// `-C command`: run with the command name, the word and the previous word as arguments;
/// each line it prints is a match.
async fn run_command(ctx: &Ctx, command: &str, word: &str) -> Result<Vec<String>, Flow> {
    let me = ctx.name().to_string();
    ctx.sh
        .report(
            &ctx.fds,
            &format!("{me}: warning: -C option may not work as you expect"),
        )
        .await;
    let code = format!(
        "{command} {} {} ''",
        quote::single(&me),
        quote::single(word)
    );
    let Ok(program) = crate::shell::parse(&code) else {
        return Ok(Vec::new());
    };
    let text = failed(ctx, ctx.sh.command_subst(&program, &ctx.fds).await).await?;
    Ok(text
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect())
}

/// An expansion's error reported, as the flow the builtin ends with.
async fn failed<T>(ctx: &Ctx, result: Expanded<T>) -> Result<T, Flow> {
    match result {
        Ok(value) => Ok(value),
        Err(ExpandError::Discard(m) | ExpandError::Exit(m) | ExpandError::Failed(m)) => {
            Err(ctx.fail(&m, 1).await)
        }
        Err(ExpandError::Flow(flow)) => Err(flow),
    }
}

/// The names one action gives for `word`.
fn action_matches(ctx: &Ctx, action: &str, word: &str) -> Vec<String> {
    let sh = &ctx.sh;
    let starts = |names: Vec<String>| -> Vec<String> {
        names.into_iter().filter(|n| n.starts_with(word)).collect()
    };
    let owned = |names: &[&str]| names.iter().map(|n| (*n).to_string()).collect::<Vec<_>>();
    match action {
        "alias" => starts(sh.state.borrow().aliases.keys().cloned().collect()),
        "arrayvar" => starts(variables(ctx, |v| {
            matches!(
                v.value,
                Some(crate::shell::interp::state::Value::Indexed(_))
            )
        })),
        "builtin" | "enabled" => starts(builtins()),
        "export" => starts(variables(ctx, |v| v.attrs.export)),
        "function" => starts(sh.state.borrow().funcs.keys().cloned().collect()),
        "helptopic" => {
            let mut topics = builtins();
            topics.extend(owned(TOPICS));
            crate::sort::sort(&mut topics);
            starts(topics)
        }
        "keyword" => starts(owned(KEYWORDS)),
        "setopt" => starts(owned(SETOPTS)),
        "shopt" => starts(owned(SHOPTS)),
        "signal" => {
            let mut names = vec!["EXIT".to_string()];
            names.extend(SIGNAL_NAMES.iter().map(|n| format!("SIG{n}")));
            names.extend(owned(&["DEBUG", "ERR", "RETURN"]));
            starts(names)
        }
        "variable" => starts(variables(ctx, |v| v.value.is_some())),
        "user" | "group" => starts(vec!["user".to_string()]),
        "command" => commands(ctx, word),
        "file" => files(ctx, word, false),
        "directory" => files(ctx, word, true),
        _ => Vec::new(),
    }
}

/// bash's builtins that this shell has, and those it lacks, in bash's order.
fn builtins() -> Vec<String> {
    let mut names: Vec<String> = super::all()
        .map(|b| b.name)
        .filter(|n| is_builtin(n) && *n != "time" && *n != "tool")
        .map(str::to_string)
        .collect();
    names.extend(BASH_ONLY_BUILTINS.iter().map(|n| (*n).to_string()));
    crate::sort::sort_by(&mut names, |a, b| a.as_bytes().cmp(b.as_bytes()));
    names
}

/// Variable names whose variable passes `keep`, sorted.
fn variables(ctx: &Ctx, keep: impl Fn(&crate::shell::interp::state::Var) -> bool) -> Vec<String> {
    let s = ctx.sh.state.borrow();
    let mut names: Vec<String> = s
        .names()
        .into_iter()
        .filter(|n| s.var(n).is_some_and(&keep))
        .collect();
    crate::sort::sort(&mut names);
    names.dedup();
    names
}

/// `compgen -c`: aliases, keywords, functions, builtins, then executables along `$PATH`.
fn commands(ctx: &Ctx, word: &str) -> Vec<String> {
    let sh = &ctx.sh;
    let mut out: Vec<String> = sh.state.borrow().aliases.keys().cloned().collect();
    out.extend(KEYWORDS.iter().map(|k| (*k).to_string()));
    out.extend(sh.state.borrow().funcs.keys().cloned());
    out.extend(builtins());
    out.retain(|n| n.starts_with(word));
    let (path, cwd) = {
        let s = sh.state.borrow();
        (s.get("PATH").unwrap_or_default(), s.cwd.clone())
    };
    for dir in path.split(':') {
        let dir = if dir.is_empty() { "." } else { dir };
        let absolute = crate::vfs::resolve(&cwd, dir);
        let mut names: Vec<String> = if APPLET_DIRS.contains(&absolute.as_str()) {
            let mut names: Vec<String> =
                crate::applets::all().map(|a| a.name.to_string()).collect();
            let programs = crate::shell::interp::path::BUILTIN_FILES.iter();
            names.extend(programs.map(|p| (*p).to_string()));
            crate::sort::sort(&mut names);
            names.dedup();
            names
        } else {
            let vfs = sh.world.vfs.borrow();
            let entries = vfs.read_dir(&cwd, dir).unwrap_or_default();
            entries
                .into_iter()
                .map(|(n, _)| n)
                .filter(|n| {
                    vfs.stat(&cwd, &format!("{dir}/{n}"))
                        .is_ok_and(|s| s.kind == FileKind::File && s.mode & 0o111 != 0)
                })
                .collect()
        };
        names.retain(|n| n.starts_with(word));
        out.extend(names);
    }
    out
}

/// Files (or only directories) completing `word`: the entries of its directory part that
/// start with its last part (`.` and `..` too when that part starts with a dot).
fn files(ctx: &Ctx, word: &str, dirs_only: bool) -> Vec<String> {
    let (dir_part, base) = match word.rfind('/') {
        Some(at) => (&word[..=at], &word[at + 1..]),
        None => ("", word),
    };
    let cwd = ctx.sh.state.borrow().cwd.clone();
    let vfs = ctx.sh.world.vfs.borrow();
    let listed = if dir_part.is_empty() { "." } else { dir_part };
    let Ok(entries) = vfs.read_dir(&cwd, listed) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries.into_iter().map(|(n, _)| n).collect();
    if base.starts_with('.') {
        names.splice(0..0, [".".to_string(), "..".to_string()]);
    }
    names
        .into_iter()
        .filter(|n| n.starts_with(base))
        .map(|n| format!("{dir_part}{n}"))
        .filter(|path| !dirs_only || vfs.stat(&cwd, path).is_ok_and(|s| s.kind == FileKind::Dir))
        .collect()
}
