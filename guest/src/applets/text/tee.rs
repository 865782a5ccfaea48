//! `tee [-a] [-p] [FILE]...`: copy stdin to stdout and to files in the VFS.

use crate::applets::common::{finish, parse_args, quote_if_needed};
use crate::applets::common::{warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `tee` applet.
pub const APPLET: Applet = Applet {
    name: "tee",
    usage: "tee [OPTION]... [FILE]...\n  -a, --append               append to the FILEs, do not overwrite\n  -i, --ignore-interrupts    accepted (there are no signals here)\n  -p                         keep writing the files when stdout's reader goes away",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "aip",
    short_val: "",
    long: &["append", "ignore-interrupts"],
    long_val: &["output-error"],
    digits: None,
    stop_at_operand: false,
};

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let append = opts.iter().any(|o| o.is('a', "append"));
    let keep_going = opts.iter().any(|o| o.is('p', "output-error"));
    let mut status = 0;
    // Create (or truncate) every file first, as GNU opens them all before reading.
    let mut files = Vec::new();
    for path in &operands {
        let opened = {
            let mut vfs = ctx.vfs.borrow_mut();
            if append {
                vfs.append(&ctx.cwd, path, b"")
            } else {
                vfs.write(&ctx.cwd, path, b"")
            }
        };
        match opened {
            Ok(()) => files.push(path.clone()),
            Err(e) => {
                warn(
                    &mut ctx,
                    format!("{}: {}", quote_if_needed(path), e.code.description()),
                )
                .await;
                status = 1;
            }
        }
    }
    let mut stdout_open = true;
    while let Some(chunk) = ctx.stdin.read_chunk().await {
        if stdout_open {
            match ctx.stdout.write(&chunk).await {
                Ok(()) => {}
                Err(WriteError::BrokenPipe) if keep_going => stdout_open = false,
                Err(e) => return finish(&mut ctx, Err(e)).await,
            }
        }
        let mut failed = Vec::new();
        for path in &files {
            let appended = ctx.vfs.borrow_mut().append(&ctx.cwd, path, &chunk);
            if let Err(e) = appended {
                warn(
                    &mut ctx,
                    format!("{}: {}", quote_if_needed(path), e.code.description()),
                )
                .await;
                failed.push(path.clone());
                status = 1;
            }
        }
        files.retain(|f| !failed.contains(f));
        if !stdout_open && files.is_empty() {
            break;
        }
    }
    if !stdout_open {
        // With -p a closed stdout is not an error: the files got everything.
        return status;
    }
    finish(&mut ctx, Ok(status)).await
}

#[cfg(test)]
mod tests {
    use crate::applets::testing::{ok, run_in, vfs_with, Outcome};

    fn file(vfs: &std::rc::Rc<std::cell::RefCell<crate::vfs::Vfs>>, path: &str) -> String {
        let vfs = vfs.borrow();
        String::from_utf8_lossy(vfs.read("/workspace", path).unwrap_or_default()).into_owned()
    }

    #[test]
    fn tee_writes_files_and_stdout() {
        let vfs = vfs_with(&[("old", "before\n")]);
        assert_eq!(run_in(&vfs, "tee", &["a", "b"], "hi\n"), ok("hi\n"));
        assert_eq!(file(&vfs, "a"), "hi\n");
        assert_eq!(file(&vfs, "b"), "hi\n");
        assert_eq!(run_in(&vfs, "tee", &["-a", "old"], "more\n"), ok("more\n"));
        assert_eq!(file(&vfs, "old"), "before\nmore\n");
        assert_eq!(run_in(&vfs, "tee", &["old"], "new\n"), ok("new\n"));
        assert_eq!(file(&vfs, "old"), "new\n");
        assert_eq!(run_in(&vfs, "tee", &[], "x\n"), ok("x\n"));
        assert_eq!(run_in(&vfs, "tee", &["--append", "old"], ""), ok(""));
        assert_eq!(file(&vfs, "old"), "new\n");
        assert_eq!(run_in(&vfs, "tee", &["/dev/null"], "z\n"), ok("z\n"));
        let big = "0123456789".repeat(20_000);
        assert_eq!(run_in(&vfs, "tee", &["big"], &big).stdout.len(), 200_000);
        assert_eq!(file(&vfs, "big"), big);
    }

    #[test]
    fn tee_reports_bad_files_and_options() {
        let vfs = vfs_with(&[]);
        assert_eq!(
            run_in(&vfs, "tee", &["a", "nodir/x", "b"], "hi\n"),
            Outcome {
                stdout: "hi\n".into(),
                stderr: "tee: nodir/x: No such file or directory\n".into(),
                status: 1
            }
        );
        assert_eq!(file(&vfs, "b"), "hi\n");
        assert_eq!(
            run_in(&vfs, "tee", &["/etc/x"], "hi\n").stderr,
            "tee: /etc/x: Permission denied\n"
        );
        assert_eq!(
            run_in(&vfs, "tee", &["-q"], ""),
            Outcome {
                stdout: String::new(),
                stderr: "tee: invalid option -- 'q'\nTry 'tee --help' for more information.\n"
                    .into(),
                status: 1
            }
        );
    }
}
