//! Attaching here-document bodies to their redirections.
//!
//! A body is read after the line that names its delimiter, when the parser has already built
//! the command (possibly deep inside a compound command). Bodies are collected in source
//! order; this walk visits here-document redirections in the same order and fills them in.

use super::super::ast::{Command, CommandKind, List, RedirectKind, Word};

/// Fills the here-documents of `list`, in source order, from `bodies`.
pub fn attach(list: &mut List, bodies: &mut impl Iterator<Item = Word>) {
    for item in &mut list.items {
        let and_or = &mut item.and_or;
        let pipelines =
            std::iter::once(&mut and_or.first).chain(and_or.rest.iter_mut().map(|(_, p)| p));
        for pipeline in pipelines {
            for command in &mut pipeline.commands {
                attach_command(command, bodies);
            }
        }
    }
}

fn attach_command(command: &mut Command, bodies: &mut impl Iterator<Item = Word>) {
    match &mut command.kind {
        CommandKind::Simple(_) | CommandKind::Arith(_) | CommandKind::Cond(_) => {}
        CommandKind::Subshell(list) | CommandKind::Group(list) => attach(list, bodies),
        CommandKind::If(cmd) => {
            for branch in &mut cmd.branches {
                attach(&mut branch.condition, bodies);
                attach(&mut branch.body, bodies);
            }
            if let Some(list) = &mut cmd.else_body {
                attach(list, bodies);
            }
        }
        CommandKind::For(cmd) => attach(&mut cmd.body, bodies),
        CommandKind::ArithFor(cmd) => attach(&mut cmd.body, bodies),
        CommandKind::While(cmd) | CommandKind::Until(cmd) => {
            attach(&mut cmd.condition, bodies);
            attach(&mut cmd.body, bodies);
        }
        CommandKind::Case(cmd) => {
            for arm in &mut cmd.arms {
                attach(&mut arm.body, bodies);
            }
        }
        CommandKind::Function(def) => attach_command(&mut def.body, bodies),
        CommandKind::Coproc(c) => attach_command(&mut c.body, bodies),
    }
    for redirect in &mut command.redirects {
        if let RedirectKind::HereDoc(doc) = &mut redirect.kind {
            if let Some(body) = bodies.next() {
                doc.body = body;
            }
        }
    }
}
