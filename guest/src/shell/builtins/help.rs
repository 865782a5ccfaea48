//! `help [-dms] [pattern ...]`: list the builtins and applets, or describe the topics a
//! pattern names with bash's usage lines and descriptions.

use super::{all, lookup, Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `help`.
pub(crate) const HELP: Builtin = Builtin {
    name: "help",
    synopsis: "help [name] — list the builtins and commands, or show how to use one",
    run,
};

/// bash's help topics: name, usage line and one-line description, tab-separated, in bash's
/// order (the builtins, and the compound commands such as `for` and `if`).
const TOPICS: &str = include_str!("help_topics.tsv");

/// A topic: name, usage line, description.
type Topic = (&'static str, &'static str, &'static str);

/// The topics `pattern` names, as bash's `help` finds them: a glob pattern's matches, else the
/// topic of that name, else those it is a prefix of.
fn topics(pattern: &str, glob: bool) -> Vec<Topic> {
    let chars: Vec<(char, bool)> = pattern.chars().map(|c| (c, false)).collect();
    let compiled = crate::shell::interp::expand::pattern::Pattern::new(&chars);
    let all = TOPICS.lines().filter_map(|line| {
        let mut parts = line.split('\t');
        Some((parts.next()?, parts.next()?, parts.next()?))
    });
    if glob {
        return all.filter(|(name, _, _)| compiled.matches(name)).collect();
    }
    let exact: Vec<Topic> = all
        .clone()
        .filter(|(name, _, _)| *name == pattern)
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    all.filter(|(name, _, _)| name.starts_with(pattern))
        .collect()
}

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (mut short, mut describe, mut manpage) = (false, false, false);
        let mut names = ctx.operands();
        while let Some(letters) = names
            .first()
            .and_then(|a| a.strip_prefix('-'))
            .filter(|l| !l.is_empty())
        {
            names = &names[1..];
            if letters == "-" {
                break;
            }
            for letter in letters.chars() {
                match letter {
                    's' => short = true,
                    'd' => describe = true,
                    'm' => manpage = true,
                    _ => {
                        let usage = "help [-dms] [pattern ...]";
                        return ctx.bad_option(&format!("-{letter}"), usage).await;
                    }
                }
            }
        }
        if names.is_empty() {
            return ctx.print_status(&overview()).await;
        }
        let mut out = String::new();
        let mut status = 0;
        for name in names {
            let chars: Vec<(char, bool)> = name.chars().map(|c| (c, false)).collect();
            let glob = crate::shell::interp::expand::pattern::has_glob(&chars);
            let found = topics(name, glob);
            if glob && !found.is_empty() {
                out.push_str(&format!("Shell commands matching keyword `{name}'\n\n"));
            }
            for (topic, usage, description) in &found {
                let text = if describe {
                    format!("{topic} - {description}\n")
                } else if short {
                    format!("{topic}: {usage}\n")
                } else if manpage {
                    format!(
                        "NAME\n    {topic} - {description}\n\nSYNOPSIS\n    {usage}\n\n{}",
                        details(topic)
                    )
                } else {
                    format!("{topic}: {usage}\n    {description}\n{}", details(topic))
                };
                out.push_str(&text);
            }
            if !found.is_empty() {
                continue;
            }
            if let Some(applet) = crate::applets::lookup(name) {
                out.push_str(&format!("{}\n", applet.usage));
                continue;
            }
            ctx.out(&out).await;
            out.clear();
            let message = format!(
                "no help topics match `{name}'.  Try `help help' or `man -k {name}' or `info {name}'."
            );
            ctx.fail(&message, 1).await;
            status = 1;
        }
        ctx.out(&out).await;
        Flow::Normal(status)
    })
}

/// What this shell says of a builtin beyond bash's lines (its own synopsis).
fn details(topic: &str) -> String {
    lookup(topic).map_or_else(String::new, |b| format!("    \n    {}\n", b.synopsis))
}

fn overview() -> String {
    let mut out = String::from(
        "corral shell: a bash-compatible interpreter. Pipes, redirections, here-documents, \
         variables and arrays, $(...), $((...)), [[ ]], functions, if/for/while/case work as in \
         bash. Host tools: tool --list, tool NAME --key value.\n\nShell builtins:\n",
    );
    for b in all() {
        out.push_str(&format!("  {}\n", b.synopsis));
    }
    let mut applets: Vec<&str> = crate::applets::all().map(|a| a.name).collect();
    crate::sort::sort(&mut applets);
    out.push_str("\nCommands (NAME --help for usage):\n");
    let mut line = String::from(" ");
    for name in applets {
        if line.len() + name.len() > 78 {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        line.push(' ');
        line.push_str(name);
    }
    if line.trim().is_empty() {
        out.push_str("  (none)\n");
    } else {
        out.push_str(&line);
        out.push('\n');
    }
    out
}
