//! `mapfile`/`readarray [-t] [-d delim] [-n count] [-s skip] [-O origin] [-u fd] [-C code
//! [-c quantum]] [array]`: read lines into an indexed array (`MAPFILE` by default).

use super::{Builtin, Ctx};
use crate::shell::interp::io::IS_A_DIRECTORY;
use crate::shell::interp::quote;
use crate::shell::interp::state::{is_name, Key};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `mapfile`.
pub(crate) const MAPFILE: Builtin = Builtin {
    name: "mapfile",
    synopsis: "mapfile [-t] [-d delim] [-n count] [-s skip] [-O origin] [array] — read lines into an array",
    run,
};

/// `readarray`.
pub(crate) const READARRAY: Builtin = Builtin {
    name: "readarray",
    synopsis:
        "readarray [-t] [-d delim] [-n count] [-s skip] [-O origin] [array] — same as mapfile",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let args = ctx.operands().to_vec();
        let (mut trim, mut delim, mut count, mut skip, mut origin, mut fd) =
            (false, b'\n', 0usize, 0usize, None, 0u32);
        let mut i = 0;
        let mut name = "MAPFILE".to_string();
        // `-C code -c quantum`: code run with the index and the line every quantum lines.
        let (mut callback, mut quantum) = (None, 5000usize);
        while i < args.len() {
            let arg = &args[i];
            let value = |i: &mut usize| -> Option<String> {
                *i += 1;
                args.get(*i).cloned()
            };
            match arg.as_str() {
                "-t" => trim = true,
                "-d" => delim = value(&mut i).and_then(|v| v.bytes().next()).unwrap_or(0),
                "-n" => count = value(&mut i).and_then(|v| v.parse().ok()).unwrap_or(0),
                "-s" => skip = value(&mut i).and_then(|v| v.parse().ok()).unwrap_or(0),
                "-O" => origin = value(&mut i).and_then(|v| v.parse::<i64>().ok()),
                "-u" => fd = value(&mut i).and_then(|v| v.parse().ok()).unwrap_or(0),
                "-C" => callback = value(&mut i),
                "-c" => match value(&mut i)
                    .and_then(|v| v.parse().ok())
                    .filter(|&q| q > 0)
                {
                    Some(q) => quantum = q,
                    None => return ctx.fail("invalid callback quantum", 1).await,
                },
                a if a.starts_with('-') && a.len() > 1 => {
                    return ctx.bad_option(a, "mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]").await;
                }
                a => name = a.to_string(),
            }
            i += 1;
        }
        if !is_name(&name) {
            return ctx
                .fail(&format!("`{name}': not a valid identifier"), 1)
                .await;
        }
        let Some(input) = ctx.fds.input(fd).cloned() else {
            return ctx
                .fail(
                    &format!("{fd}: invalid file descriptor: Bad file descriptor"),
                    1,
                )
                .await;
        };
        let mut lines = Vec::new();
        let mut seen = 0usize;
        while count == 0 || lines.len() < count {
            let chunk = match input.read_until(Some(delim), None).await {
                Ok(Some(chunk)) => chunk,
                // bash's mapfile takes a read error for the end (`mapfile x < dir`).
                Ok(None) => break,
                Err(message) if message == IS_A_DIRECTORY => break,
                Err(message) => return ctx.fail(&message, 1).await,
            };
            seen += 1;
            if seen <= skip {
                continue;
            }
            let mut bytes = chunk.bytes;
            // bash's strings end at a NUL: a line holding one keeps what comes before it (a
            // NUL delimiter never stays either).
            if let Some(nul) = bytes.iter().position(|&b| b == 0) {
                bytes.truncate(nul);
            } else if chunk.delimited && !trim && delim != 0 {
                bytes.push(delim);
            }
            let line = crate::shell::bytes::decode(&bytes);
            if let Some(code) = callback
                .as_ref()
                .filter(|_| (lines.len() + 1) % quantum == 0)
            {
                let index = origin.unwrap_or(0) + lines.len() as i64;
                let call = format!("{code} {index} {}", quote::single(&line));
                if let Flow::Exit(status) = super::eval::run_code(&ctx, &call, None).await {
                    return Flow::Exit(status);
                }
            }
            lines.push(line);
        }
        let start = origin.unwrap_or(0);
        let elements = lines
            .into_iter()
            .enumerate()
            .map(|(i, v)| (Some(Key::Index(start + i as i64)), v))
            .collect();
        let result = ctx
            .sh
            .state
            .borrow_mut()
            .assign_array(&name, elements, origin.is_some());
        match result {
            Ok(()) => Flow::Normal(0),
            Err(message) => ctx.fail(&message, 1).await,
        }
    })
}
