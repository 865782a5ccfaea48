//! `eval [arg ...]`: join the arguments and run them as shell code in this shell.

use super::{Builtin, Ctx};
use crate::limits::MAX_COMMAND_DEPTH;
use crate::shell::interp::exec::complete_lines_before;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `eval`.
pub(crate) const EVAL: Builtin = Builtin {
    name: "eval",
    synopsis: "eval [arg ...] — run the arguments, joined by spaces, as shell code",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let args = ctx.operands();
        let args = match args.first() {
            Some(first) if first == "--" => &args[1..],
            // eval takes no options: `-x` is an error, a lone `-` a word.
            Some(first) if first.starts_with('-') && first.len() > 1 => {
                return ctx.bad_option(first, "eval [arg ...]").await;
            }
            _ => args,
        };
        // Read as bash reads it, with a final newline (`eval 'if'` fails at line 2), except
        // after a trailing backslash, which stays literal.
        let mut code = args.join(" ");
        if !code.ends_with('\\') {
            code.push('\n');
        }
        run_code(&ctx, &code, Some("eval: ")).await
    })
}

/// Parses and runs `code` in the current shell (shared with `source`). The code of `eval`
/// (`context` given) starts at the line its command ends on, as in bash; a sourced file at 1.
pub(crate) async fn run_code(ctx: &Ctx, code: &str, context: Option<&str>) -> Flow {
    let first = match context {
        Some(_) => ctx.sh.state.borrow().command_end.max(1),
        None => 1,
    };
    let program = match crate::shell::parse_at(code, first) {
        Ok(p) => p,
        Err(e) => {
            // As bash reads the code line by line, the lines before the error run first.
            let before = complete_lines_before(code, first, e.line);
            let flow = ctx.sh.run_lines(&before, &ctx.fds).await;
            if let Flow::Exit(_) = flow {
                return flow;
            }
            ctx.sh
                .syntax_error_at(code, first, &e, &ctx.fds, context.unwrap_or(""))
                .await;
            return Flow::Normal(2);
        }
    };
    if ctx.sh.state.borrow().depth >= MAX_COMMAND_DEPTH {
        return ctx
            .fail(
                &format!("maximum nesting level exceeded ({MAX_COMMAND_DEPTH})"),
                1,
            )
            .await;
    }
    let (line, unit) = {
        let mut s = ctx.sh.state.borrow_mut();
        s.depth += 1;
        (s.line, s.enter_unit())
    };
    let flow = ctx.sh.run_lines(&program, &ctx.fds).await;
    let mut s = ctx.sh.state.borrow_mut();
    s.code_unit = unit;
    s.depth = s.depth.saturating_sub(1);
    s.line = line;
    flow
}
