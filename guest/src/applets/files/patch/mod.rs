//! `patch [OPTION]... [ORIGFILE [PATCHFILE]]`: apply a diff (unified, context, normal, or
//! git's) to files, as GNU patch 2.7 does: offsets and fuzz, reversed-patch detection,
//! reject files, backups. It never asks questions: where GNU would ask a terminal, it takes
//! the default answer, as GNU does when it has none.

mod apply;
mod parse;

use apply::{bytes_of, first_guess, lines_of, locate, rejects, splice, Compare, Place};
use parse::{FilePatch, Hunk, Line, DEV_NULL};

use crate::applets::common::{err_str, getopt, out_str, quote, warn, Opt, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{resolve, FileKind};

/// The `patch` applet.
pub const APPLET: Applet = Applet {
    name: "patch",
    usage: "patch [OPTION]... [ORIGFILE [PATCHFILE]]\nApply a diff file (unified, context, normal or git format) to the originals; reads the\npatch from standard input unless -i or PATCHFILE names it.\n  -p, --strip=NUM          strip NUM leading components from file names (default: all\n                           directories)\n  -i, --input=PATCHFILE    read the patch from PATCHFILE\n  -d, --directory=DIR      change to DIR first\n  -o, --output=FILE        write the result to FILE instead of patching in place\n  -r, --reject-file=FILE   write rejected hunks to FILE (default: FILE.rej)\n  -R, --reverse            apply the patch in reverse\n  -N, --forward            skip patches that look reversed or already applied\n  -t, --batch              assume reversed patches are reversed (apply them with -R)\n  -f, --force              never assume a patch is reversed\n  -F, --fuzz=NUM           ignore up to NUM outer context lines when a hunk does not match\n                           (default 2)\n  -l, --ignore-whitespace  compare lines ignoring runs of blanks\n  -E, --remove-empty-files remove files left empty\n  -b, --backup             keep the original as FILE.orig (-z SUFFIX: another suffix)\n      --backup-if-mismatch / --no-backup-if-mismatch\n                           back up only when a hunk did not match exactly (default on)\n      --dry-run            say what would happen, change nothing\n  -s, --quiet, --silent    say only what went wrong\n      --verbose            say more\n  -u, -c, -n, --posix      accepted for compatibility\nExit status is 0 if every hunk applied, 1 if some were rejected, 2 on trouble.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "RNtfElbsucne",
    short_val: "pidorFzBVD",
    long: &[
        "reverse",
        "forward",
        "batch",
        "force",
        "remove-empty-files",
        "ignore-whitespace",
        "backup",
        "quiet",
        "silent",
        "dry-run",
        "verbose",
        "unified",
        "context",
        "normal",
        "ed",
        "posix",
        "binary",
        "backup-if-mismatch",
        "no-backup-if-mismatch",
    ],
    long_val: &[
        "strip",
        "input",
        "directory",
        "output",
        "reject-file",
        "fuzz",
        "suffix",
        "prefix",
        "version-control",
        "ifdef",
        "quoting-style",
        "reject-format",
        "read-only",
        "follow-symlinks",
    ],
    digits: None,
    stop_at_operand: false,
};

/// What the options ask for.
struct Options {
    strip: Option<usize>,
    input: Option<String>,
    directory: Option<String>,
    output: Option<String>,
    reject_file: Option<String>,
    reverse: bool,
    forward: bool,
    batch: bool,
    force: bool,
    fuzz: usize,
    compare: Compare,
    remove_empty: bool,
    backup: bool,
    backup_if_mismatch: bool,
    suffix: String,
    dry_run: bool,
    quiet: bool,
    verbose: bool,
}

fn options(opts: &[Opt]) -> Result<Options, String> {
    let mut o = Options {
        strip: None,
        input: None,
        directory: None,
        output: None,
        reject_file: None,
        reverse: false,
        forward: false,
        batch: false,
        force: false,
        fuzz: 2,
        compare: Compare {
            ignore_whitespace: false,
        },
        remove_empty: false,
        backup: false,
        backup_if_mismatch: true,
        suffix: ".orig".to_string(),
        dry_run: false,
        quiet: false,
        verbose: false,
    };
    let number = |what: &str, v: &str| -> Result<usize, String> {
        v.parse()
            .map_err(|_| format!("**** {what} {} is not a number", quote(v)))
    };
    for opt in opts {
        match opt {
            _ if opt.is('p', "strip") => o.strip = Some(number("strip count", opt.value())?),
            _ if opt.is('i', "input") => o.input = Some(opt.value().to_string()),
            _ if opt.is('d', "directory") => o.directory = Some(opt.value().to_string()),
            _ if opt.is('o', "output") => o.output = Some(opt.value().to_string()),
            _ if opt.is('r', "reject-file") => o.reject_file = Some(opt.value().to_string()),
            _ if opt.is('R', "reverse") => o.reverse = true,
            _ if opt.is('N', "forward") => o.forward = true,
            _ if opt.is('t', "batch") => o.batch = true,
            _ if opt.is('f', "force") => o.force = true,
            _ if opt.is('F', "fuzz") => o.fuzz = number("fuzz factor", opt.value())?,
            _ if opt.is('l', "ignore-whitespace") => o.compare.ignore_whitespace = true,
            _ if opt.is('E', "remove-empty-files") => o.remove_empty = true,
            _ if opt.is('b', "backup") => o.backup = true,
            _ if opt.is('z', "suffix") => {
                o.suffix = opt.value().to_string();
                o.backup = true;
            }
            _ if opt.is('\0', "backup-if-mismatch") => o.backup_if_mismatch = true,
            _ if opt.is('\0', "no-backup-if-mismatch") => o.backup_if_mismatch = false,
            _ if opt.is('\0', "posix") => o.backup_if_mismatch = false,
            _ if opt.is('\0', "dry-run") => o.dry_run = true,
            _ if opt.is('s', "quiet") || opt.is('\0', "silent") => o.quiet = true,
            _ if opt.is('\0', "verbose") => o.verbose = true,
            _ if opt.is('e', "ed") => return Err("**** ed-style diffs are not supported".into()),
            _ => {}
        }
    }
    Ok(o)
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match getopt(&ctx.args, &SPEC) {
            Ok(parsed) => parsed,
            Err(message) => {
                warn(&mut ctx, message).await;
                err_str(
                    &mut ctx,
                    "patch: Try 'patch --help' for more information.\n",
                )
                .await;
                return 2;
            }
        };
        let mut o = match options(&opts) {
            Ok(o) => o,
            Err(message) => {
                warn(&mut ctx, message).await;
                return 2;
            }
        };
        if operands.len() > 2 {
            let message = format!("**** extra operand {}", quote(&operands[2]));
            warn(&mut ctx, message).await;
            return 2;
        }
        let target = operands.first().cloned();
        if let Some(input) = operands.get(1) {
            o.input = Some(input.clone());
        }
        if let Some(dir) = o.directory.clone() {
            let cwd = resolve(&ctx.cwd, &dir);
            if ctx.vfs.borrow().stat("/", &cwd).map(|s| s.kind) != Ok(FileKind::Dir) {
                warn(
                    &mut ctx,
                    format!("**** Can't change to directory {dir} : No such file or directory"),
                )
                .await;
                return 2;
            }
            ctx.cwd = cwd;
        }
        let text = match o.input.as_deref() {
            None | Some("-") => {
                let mut stdin = std::mem::replace(&mut ctx.stdin, crate::task::Input::empty());
                stdin.read_all().await
            }
            Some(path) => {
                let read = ctx.vfs.borrow().read(&ctx.cwd, path).map(<[u8]>::to_vec);
                match read {
                    Ok(bytes) => bytes,
                    Err(e) => {
                        let why = e.code.description();
                        let message = format!("**** Can't open patch file {path} : {why}");
                        return fatal(&mut ctx, message).await;
                    }
                }
            }
        };
        if text.is_empty() {
            return 0;
        }
        let mut patches = match parse::parse(&text) {
            Ok(patches) => patches,
            Err(message) => return fatal(&mut ctx, format!("**** {message}")).await,
        };
        if target.is_none() {
            // Hunks that name no file are noise unless `patch FILE` says where they go.
            patches.retain(FilePatch::named);
            if patches.is_empty() {
                let message = "**** Only garbage was found in the patch input.".to_string();
                return fatal(&mut ctx, message).await;
            }
        }
        let mut run = Run {
            o,
            target,
            status: 0,
            output_written: false,
            said: String::new(),
        };
        for patch in &patches {
            // Each file's messages are gathered, then written at once (before a fatal error).
            let result = run.file(&ctx, patch);
            let said = std::mem::take(&mut run.said);
            if out_str(&mut ctx, &said).await.is_err() {
                return 2;
            }
            if let Err(message) = result {
                return fatal(&mut ctx, message).await;
            }
        }
        run.status
    })
}

/// GNU's fatal message for a file it cannot write.
fn cannot_create(name: &str, e: &crate::vfs::VfsError) -> String {
    format!("**** Can't create file {name} : {}", e.code.description())
}

async fn fatal(ctx: &mut Ctx, message: String) -> i32 {
    warn(ctx, message).await;
    2
}

/// One invocation's state across its file patches.
struct Run {
    o: Options,
    /// The ORIGFILE operand: every hunk goes to it.
    target: Option<String>,
    status: i32,
    /// Whether `-o FILE` has been written once (later files are appended to it).
    output_written: bool,
    /// What the current file's patching has to say on stdout.
    said: String,
}

/// `1 hunk` / `2 hunks`.
fn hunks(n: usize) -> String {
    format!("{n} hunk{}", if n == 1 { "" } else { "s" })
}

impl Run {
    fn say(&mut self, text: &str) {
        self.said.push_str(text);
    }

    /// `-p N` (or, without `-p`, GNU's default: the name without its directories); `None`
    /// when the name has fewer components than asked to strip.
    fn strip(&self, name: &str) -> Option<String> {
        match self.o.strip {
            None => Some(name.rsplit('/').next().unwrap_or(name).to_string()),
            Some(0) => Some(name.to_string()),
            // The smallest prefix holding N slashes goes (runs of slashes count once).
            Some(n) => {
                let mut rest = name;
                for _ in 0..n {
                    let (_, after) = rest.split_once('/')?;
                    rest = after.trim_start_matches('/');
                }
                (!rest.is_empty()).then(|| rest.to_string())
            }
        }
    }

    /// Whether the patch, in the direction it is applied, creates its file.
    fn creates(&self, p: &FilePatch) -> bool {
        if self.o.reverse {
            p.deletes()
        } else {
            p.creates()
        }
    }

    fn exists(&self, ctx: &Ctx, name: &str) -> bool {
        ctx.vfs
            .borrow()
            .stat(&ctx.cwd, name)
            .is_ok_and(|s| s.kind == FileKind::File)
    }

    /// The file a patch applies to (GNU's choice: among the names that exist, the one with
    /// the fewest components, then the shortest base name, then the shortest).
    fn choose(&self, ctx: &Ctx, p: &FilePatch) -> Option<String> {
        if let Some(target) = &self.target {
            return Some(target.clone());
        }
        let names: Vec<String> = [&p.old, &p.new, &p.index]
            .into_iter()
            .flatten()
            .filter(|n| n.as_str() != DEV_NULL)
            .filter_map(|n| self.strip(n))
            .collect();
        if let Some(g) = &p.git {
            // git says which: the old name to read, the new one to write.
            let pick = if g.new_file { &g.new } else { &g.old };
            return self.strip(pick);
        }
        let best = |names: &[&String]| -> Option<String> {
            names
                .iter()
                .min_by_key(|n| {
                    let parts = n.split('/').count();
                    let base = n.rsplit('/').next().unwrap_or(n).len();
                    (parts, base, n.len())
                })
                .map(|n| (*n).clone())
        };
        let existing: Vec<&String> = names.iter().filter(|n| self.exists(ctx, n)).collect();
        if !existing.is_empty() {
            return best(&existing);
        }
        if self.creates(p) {
            let made = if self.o.reverse { &p.old } else { &p.new };
            let made = made
                .as_deref()
                .filter(|n| *n != DEV_NULL)
                .and_then(|n| self.strip(n));
            return made.or_else(|| names.first().cloned());
        }
        None
    }

    /// Applies one file's patch; `Err(message)` is fatal (status 2).
    fn file(&mut self, ctx: &Ctx, p: &FilePatch) -> Result<(), String> {
        let Some(name) = self.choose(ctx, p) else {
            self.cannot_find(p);
            return Ok(());
        };
        let git = p.git.as_ref();
        let renamed_from = git
            .filter(|g| g.rename || g.copy)
            .and_then(|g| self.strip(&g.old));
        let write_name = match (git, &renamed_from) {
            (Some(g), Some(_)) => self.strip(&g.new).unwrap_or(name.clone()),
            _ => name.clone(),
        };
        let verb = if self.o.dry_run {
            "checking"
        } else {
            "patching"
        };
        let shown = self.o.output.clone().unwrap_or(write_name.clone());
        let mut line = format!("{verb} file {shown}");
        if let Some(from) = &renamed_from {
            let how = if git.is_some_and(|g| g.copy) {
                "copied"
            } else {
                "renamed"
            };
            line.push_str(&format!(" ({how} from {from})"));
        } else if self.o.output.is_some() {
            line.push_str(&format!(" (read from {name})"));
        }
        line.push('\n');
        let mut reverse = self.o.reverse;
        let existed = self.exists(ctx, &name);
        if self.creates(p) && existed && self.size(ctx, &name) > 0 && !self.o.force {
            let mut text =
                format!("The next patch would create the file {name},\nwhich already exists!");
            let assume = if self.o.forward {
                text.push_str("  Skipping patch.\n");
                false
            } else if self.o.batch {
                text.push_str("  Assuming -R.\n");
                true
            } else {
                text.push_str("  Assume -R? [n] \nApply anyway? [n] \nSkipping patch.\n");
                false
            };
            self.say(&text);
            if !assume {
                let n = p.hunks.len();
                self.say(&format!("{} out of {} ignored\n", n, hunks(n)));
                self.status = self.status.max(1);
                return Ok(());
            }
            reverse = true;
        }
        if !self.o.quiet {
            self.say(&line);
        }
        if let Some(message) = &p.broken {
            if p.hunks.is_empty() {
                return Err(format!("**** {message}"));
            }
        }
        let source = renamed_from.clone().unwrap_or(name.clone());
        let original = if self.exists(ctx, &source) {
            lines_of(ctx.vfs.borrow().read(&ctx.cwd, &source).unwrap_or_default())
        } else {
            Vec::new()
        };
        let mut hunk_list: Vec<Hunk> = p
            .hunks
            .iter()
            .map(|h| if reverse { h.reversed() } else { h.clone() })
            .collect();
        let mut outcome = self.apply(&original, &hunk_list);
        let mut flipped = false;
        if let Outcome::Reversed = outcome {
            let message = if reverse {
                "Unreversed patch detected!"
            } else {
                "Reversed (or previously applied) patch detected!"
            };
            let flip = if self.o.forward {
                self.say(&format!("{message}  Skipping patch.\n"));
                false
            } else if self.o.batch {
                let what = if reverse {
                    "Ignoring -R."
                } else {
                    "Assuming -R."
                };
                self.say(&format!("{message}  {what}\n"));
                true
            } else {
                let ask = if reverse { "Ignore -R?" } else { "Assume -R?" };
                self.say(&format!(
                    "{message}  {ask} [n] \nApply anyway? [n] \nSkipping patch.\n"
                ));
                false
            };
            if flip {
                reverse = !reverse;
                flipped = true;
                hunk_list = hunk_list.iter().map(Hunk::reversed).collect();
                outcome = self.apply(&original, &hunk_list);
            } else {
                let n = hunk_list.len();
                let rej = self.reject_name(&write_name);
                let text = if self.o.dry_run {
                    format!("{} out of {} ignored\n", n, hunks(n))
                } else {
                    format!(
                        "{} out of {} ignored -- saving rejects to file {rej}\n",
                        n,
                        hunks(n)
                    )
                };
                self.say(&text);
                let all: Vec<(&Hunk, i64)> = hunk_list.iter().map(|h| (h, 0)).collect();
                self.write_rejects(ctx, p, reverse, &rej, &all)?;
                self.status = self.status.max(1);
                return Ok(());
            }
        }
        let Outcome::Applied {
            lines,
            failed,
            inexact,
        } = outcome
        else {
            return Ok(());
        };
        if let Some(message) = &p.broken {
            return Err(format!("**** {message}"));
        }
        if !self.o.dry_run {
            self.save(
                ctx,
                p,
                &name,
                &source,
                &write_name,
                existed,
                reverse,
                lines,
                !failed.is_empty() || inexact || flipped,
            )?;
        }
        if !failed.is_empty() {
            let rej = self.reject_name(&write_name);
            let (k, n) = (failed.len(), hunk_list.len());
            let text = if self.o.dry_run {
                format!("{k} out of {} FAILED\n", hunks(n))
            } else {
                format!(
                    "{k} out of {} FAILED -- saving rejects to file {rej}\n",
                    hunks(n)
                )
            };
            self.say(&text);
            let rejected: Vec<(&Hunk, i64)> = failed
                .iter()
                .map(|&(i, moved)| (&hunk_list[i], moved))
                .collect();
            self.write_rejects(ctx, p, reverse, &rej, &rejected)?;
            self.status = self.status.max(1);
        }
        Ok(())
    }

    fn size(&self, ctx: &Ctx, name: &str) -> u64 {
        ctx.vfs.borrow().stat(&ctx.cwd, name).map_or(0, |s| s.size)
    }

    fn reject_name(&self, name: &str) -> String {
        self.o
            .reject_file
            .clone()
            .unwrap_or_else(|| format!("{}.rej", self.o.output.as_deref().unwrap_or(name)))
    }

    fn write_rejects(
        &self,
        ctx: &Ctx,
        p: &FilePatch,
        reverse: bool,
        rej: &str,
        hunks: &[(&Hunk, i64)],
    ) -> Result<(), String> {
        if self.o.dry_run || hunks.is_empty() {
            return Ok(());
        }
        // The names in the headers as stripped; their timestamps stay.
        let header = |h: &str| -> String {
            let end = h.find('\t').unwrap_or(h.len());
            let (raw, rest) = h.split_at(end);
            match self.strip(raw) {
                Some(name) if raw != DEV_NULL => format!("{name}{rest}"),
                _ => h.to_string(),
            }
        };
        let (a, b) = (header(&p.headers.0), header(&p.headers.1));
        let headers = if reverse {
            (b.as_str(), a.as_str())
        } else {
            (a.as_str(), b.as_str())
        };
        let text = rejects(p.format, headers, hunks);
        ctx.vfs
            .borrow_mut()
            .write(&ctx.cwd, rej, &text)
            .map_err(|e| cannot_create(rej, &e))
    }

    /// Writes the result (and the backup), removes a file the patch deletes.
    #[allow(clippy::too_many_arguments)]
    fn save(
        &mut self,
        ctx: &Ctx,
        p: &FilePatch,
        name: &str,
        source: &str,
        write_name: &str,
        existed: bool,
        reverse: bool,
        lines: Vec<Line>,
        mismatch: bool,
    ) -> Result<(), String> {
        let data = bytes_of(&lines);
        let mut vfs = ctx.vfs.borrow_mut();
        let cwd = &ctx.cwd;
        if existed
            && (self.o.backup || (mismatch && self.o.backup_if_mismatch))
            && self.o.output.is_none()
        {
            let backup = format!("{name}{}", self.o.suffix);
            if let Ok(bytes) = vfs.read_shared(cwd, name) {
                let _ = vfs.write_shared(cwd, &backup, bytes);
            }
        }
        if let Some(out) = &self.o.output {
            let result = if self.output_written {
                vfs.append(cwd, out, &data)
            } else {
                vfs.write(cwd, out, &data)
            };
            self.output_written = true;
            return result.map_err(|e| cannot_create(out, &e));
        }
        let deletes = if reverse { p.creates() } else { p.deletes() };
        if (deletes || self.o.remove_empty) && data.is_empty() {
            let _ = vfs.remove_file(cwd, source);
            return Ok(());
        }
        if let Some(dir) = write_name
            .rsplit_once('/')
            .map(|(d, _)| d)
            .filter(|d| !d.is_empty())
        {
            let _ = vfs.mkdir_all(cwd, dir);
        }
        vfs.write(cwd, write_name, &data)
            .map_err(|e| cannot_create(write_name, &e))?;
        if source != write_name && p.git.as_ref().is_some_and(|g| g.rename) {
            let _ = vfs.remove_file(cwd, source);
        }
        Ok(())
    }

    /// Places every hunk; `Reversed` when the first one only fits undone.
    fn apply(&mut self, file: &[Line], hunks: &[Hunk]) -> Outcome {
        let mut out = Vec::with_capacity(file.len());
        let mut pos = 0usize;
        let mut offset = 0i64;
        let mut failed = Vec::new();
        let mut inexact = false;
        for (i, hunk) in hunks.iter().enumerate() {
            let guess = first_guess(hunk) as i64 + offset;
            match locate(file, hunk, guess, pos + 1, self.o.fuzz, self.o.compare) {
                Some(Place { line, fuzz }) => {
                    out.extend_from_slice(&file[pos..line - 1]);
                    let at_out = out.len() + 1;
                    pos = splice(file, line, hunk, &mut out);
                    let this_offset = line as i64 - first_guess(hunk) as i64;
                    offset = this_offset;
                    if fuzz > 0 || this_offset != 0 {
                        inexact = true;
                    }
                    if (fuzz > 0 || this_offset != 0 || self.o.verbose) && !self.o.quiet {
                        let mut text = format!("Hunk #{} succeeded at {}", i + 1, at_out.max(1));
                        if fuzz > 0 {
                            text.push_str(&format!(" with fuzz {fuzz}"));
                        }
                        if this_offset != 0 {
                            let n = this_offset;
                            text.push_str(&format!(
                                " (offset {this_offset} line{})",
                                if n == 1 { "" } else { "s" }
                            ));
                        }
                        text.push_str(".\n");
                        self.say(&text);
                    }
                }
                None => {
                    let undone = hunk.reversed();
                    if i == 0 && !self.o.force && undone.old_len() > 0 {
                        let guess = first_guess(&undone) as i64;
                        if locate(file, &undone, guess, 1, 0, self.o.compare).is_some() {
                            return Outcome::Reversed;
                        }
                    }
                    // GNU names the line the hunk's header gives, moved by the lines added so far.
                    let at = hunk.old_start as i64 + out.len() as i64 - pos as i64;
                    if !self.o.quiet {
                        self.say(&format!("Hunk #{} FAILED at {}.\n", i + 1, at.max(1)));
                    }
                    failed.push((i, out.len() as i64 - pos as i64));
                }
            }
        }
        out.extend_from_slice(&file[pos..]);
        Outcome::Applied {
            lines: out,
            failed,
            inexact,
        }
    }

    /// GNU's report of a patch whose file is nowhere, with the text that led up to it.
    fn cannot_find(&mut self, p: &FilePatch) {
        let hint = if self.o.strip.is_some() {
            "Perhaps you used the wrong -p or --strip option?"
        } else {
            "Perhaps you should have used the -p or --strip option?"
        };
        let mut text = String::new();
        if !self.o.quiet {
            text.push_str(&format!(
                "can't find file to patch at input line {}\n{hint}\n",
                p.hunk_line
            ));
        }
        text.push_str("The text leading up to this was:\n--------------------------\n");
        for line in &p.leading {
            text.push_str(&format!("|{line}\n"));
        }
        text.push_str("--------------------------\nFile to patch: \nSkip this patch? [y] \n");
        if !self.o.quiet {
            text.push_str("Skipping patch.\n");
        }
        let n = p.hunks.len();
        text.push_str(&format!("{n} out of {} ignored\n", hunks(n)));
        self.say(&text);
        self.status = self.status.max(1);
    }
}

/// How placing a file's hunks went.
enum Outcome {
    Applied {
        lines: Vec<Line>,
        /// The hunks that did not apply, each with the lines added before it.
        failed: Vec<(usize, i64)>,
        inexact: bool,
    },
    /// The first hunk fits only undone (the patch is reversed or already applied).
    Reversed,
}

#[cfg(test)]
mod tests;
