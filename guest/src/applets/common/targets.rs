//! Where `cp`, `mv` (and `ln`) put each source: `SRC DEST`, `SRC... DIR`, `-t DIR SRC...`,
//! `-T SRC DEST`, with GNU's messages for the ways that can be wrong.

use super::names::{basename, join, quote};
use crate::applets::common::{usage_error, warn, Opt};
use crate::applets::Ctx;
use crate::vfs::FileKind;

/// The options `cp`, `mv` and `ln` share: where the sources go (`-t DIR`, `-T`), `-v`, and
/// for `cp` and `mv` what to do with an existing destination (`-f`, `-n`, `-i`, `-u`).
#[derive(Default)]
pub struct Placing {
    /// `-t DIR`: every source goes into DIR.
    pub target_dir: Option<String>,
    /// `-T`: the destination is a file name, never a directory to put the source in.
    pub no_target_dir: bool,
    /// `-v`: tell each step.
    pub verbose: bool,
    /// `-n`: never overwrite.
    pub no_clobber: bool,
    /// `-i`: ask before overwriting (the last of `-f`, `-n`, `-i` wins).
    pub interactive: bool,
    /// `-u`: replace only an older destination.
    pub update: bool,
}

impl Placing {
    /// Takes `opt` when it is one of these (with `overwrite`, also `-f -n -i -u`, which
    /// `ln` means otherwise); false when it is the applet's own.
    pub fn take(&mut self, opt: &Opt, overwrite: bool) -> bool {
        if opt.is('t', "target-directory") {
            self.target_dir = Some(opt.value().to_string());
        } else if opt.is('T', "no-target-directory") {
            self.no_target_dir = true;
        } else if opt.is('v', "verbose") {
            self.verbose = true;
        } else if !overwrite {
            return false;
        } else if opt.is('f', "force") {
            (self.no_clobber, self.interactive) = (false, false);
        } else if opt.is('n', "no-clobber") {
            (self.no_clobber, self.interactive) = (true, false);
        } else if opt.is('i', "interactive") {
            (self.interactive, self.no_clobber) = (true, false);
        } else if opt.is('u', "update") {
            self.update = true;
        } else {
            return false;
        }
        true
    }

    /// Pairs each source with its destination (see [`plan_targets`]).
    pub async fn plan(
        &self,
        ctx: &mut Ctx,
        operands: &[String],
    ) -> Result<Vec<(String, String)>, i32> {
        plan_targets(
            ctx,
            operands,
            self.target_dir.as_deref(),
            self.no_target_dir,
        )
        .await
    }
}

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
