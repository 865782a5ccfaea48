//! Where `cp`, `mv` (and `ln`) put each source: `SRC DEST`, `SRC... DIR`, `-t DIR SRC...`,
//! `-T SRC DEST`, with GNU's messages for the ways that can be wrong.

use super::names::{basename, join, quote};
use crate::applets::common::{usage_error, warn};
use crate::applets::Ctx;
use crate::vfs::FileKind;

/// Pairs each source with its destination path, or reports the problem and returns the exit
/// status (1).
pub async fn plan_targets(
    ctx: &mut Ctx,
    operands: &[String],
    target_dir: Option<&str>,
    no_target_dir: bool,
) -> Result<Vec<(String, String)>, i32> {
    let is_dir = |ctx: &Ctx, path: &str| {
        ctx.vfs
            .borrow()
            .stat(&ctx.cwd, path)
            .is_ok_and(|s| s.kind == FileKind::Dir)
    };
    if let Some(dir) = target_dir {
        if operands.is_empty() {
            return Err(usage_error(ctx, "missing file operand", 1).await);
        }
        if !is_dir(ctx, dir) {
            let why = missing_or_not_dir(ctx, dir);
            warn(ctx, format_args!("target directory {}: {why}", quote(dir))).await;
            return Err(1);
        }
        return Ok(into(dir, operands));
    }
    match operands {
        [] => Err(usage_error(ctx, "missing file operand", 1).await),
        [only] => {
            let message = format!("missing destination file operand after {}", quote(only));
            Err(usage_error(ctx, message, 1).await)
        }
        [src, dst] if no_target_dir || !is_dir(ctx, dst) => Ok(vec![(src.clone(), dst.clone())]),
        [_, _, extra, ..] if no_target_dir => {
            Err(usage_error(ctx, format!("extra operand {}", quote(extra)), 1).await)
        }
        [sources @ .., dir] if is_dir(ctx, dir) => Ok(into(dir, sources)),
        [.., dir] => {
            let why = missing_or_not_dir(ctx, dir);
            warn(ctx, format_args!("target {}: {why}", quote(dir))).await;
            Err(1)
        }
    }
}

fn missing_or_not_dir(ctx: &Ctx, path: &str) -> &'static str {
    if ctx.vfs.borrow().exists(&ctx.cwd, path) {
        "Not a directory"
    } else {
        "No such file or directory"
    }
}

fn into(dir: &str, sources: &[String]) -> Vec<(String, String)> {
    sources
        .iter()
        .map(|s| (s.clone(), join(dir, basename(s))))
        .collect()
}
