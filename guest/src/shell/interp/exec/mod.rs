//! Execution: lists, `&&`/`||`, pipelines (stages concurrently, through bounded pipes), and
//! the compound commands. Simple commands are in `simple`, redirections in `redirect`,
//! `[[ ]]` and the file tests in `cond`, `select`'s menu in `select`.

pub mod cond;
pub mod redirect;
mod select;
pub mod simple;

use std::cell::RefCell;
use std::rc::Rc;

use super::expand::ExpandError;
use super::io::{Fd, Fds, InHandle, OutHandle, OutKind};
use super::state::{Key, State, Value};
use super::{Flow, Sh, TIMEOUT_STATUS};
use crate::limits::MAX_ERROR_LOOKBACK;
use crate::shell::ast::*;
use crate::task::{join_all, pipe, yield_now, Input, LocalFuture, Output, Sink};

/// Loop iterations between yields, so other pipeline stages get to run.
const YIELD_EVERY: u32 = 256;

impl Sh {
    /// Parses and runs a whole script (the body of [`super::Shell::run`], `bash -c`, `eval`,
    /// `source`). A syntax error prints bash's message and is status 2.
    pub async fn run_script_text(&self, script: &str, fds: Fds) -> i32 {
        self.state.borrow_mut().discarding = false;
        let (program, extglob, error) = match crate::shell::parse_script(script) {
            Ok((program, extglob)) => (program, extglob, None),
            // Like bash, which reads a script command by command: the commands on the lines
            // before the one that does not parse run first.
            Err(e) => (
                complete_lines_before(script, 1, e.line),
                Vec::new(),
                Some(e),
            ),
        };
        let flow = self.run_items(&program, &fds, Some(&extglob)).await;
        let status = match (flow, error) {
            (Flow::Exit(s), _) => s,
            (_, Some(e)) if !self.world.deadline_hit() => {
                self.syntax_error(script, &e, &fds, "").await;
                // bash ends a script on an error inside `[[ ]]` or an unclosed quote or
                // `((` with the status of the command before it, except with 2 when that
                // succeeded and the error is the end of the script; on other syntax
                // errors with 2.
                let before = self.state.borrow().status;
                let last_line = e.line >= script.trim_end_matches('\n').lines().count();
                let at_end = e.message.contains("unexpected EOF")
                    || last_line && e.message.contains("`newline'");
                let shell_syntax = e.message.starts_with("syntax error")
                    && !e.message.starts_with("syntax error in conditional");
                if shell_syntax || at_end && before == 0 {
                    2
                } else {
                    before
                }
            }
            (Flow::Normal(s) | Flow::Return(s) | Flow::Break(_, s), _) => s,
            (Flow::Continue(_), _) => 0,
        };
        let status = if self.world.deadline_hit() {
            TIMEOUT_STATUS
        } else {
            status
        };
        self.state.borrow_mut().status = status;
        let status = self.run_exit_trap(status, &fds).await;
        // A script that ran `set -n` (whose `EXIT` trap did not run either) has ended; the
        // session's next execution runs.
        self.state.borrow_mut().opts.noexec = false;
        self.world.clean_temp_files();
        status
    }

    /// Prints a syntax error like bash: the message, then the offending line.
    pub async fn syntax_error(
        &self,
        script: &str,
        e: &crate::shell::ParseError,
        fds: &Fds,
        context: &str,
    ) {
        self.syntax_error_at(script, 1, e, fds, context).await;
    }

    /// [`Sh::syntax_error`] for code whose first line is line `first` (`eval`'s).
    pub async fn syntax_error_at(
        &self,
        script: &str,
        first: usize,
        e: &crate::shell::ParseError,
        fds: &Fds,
        context: &str,
    ) {
        let head = format!("{}: {context}line {}: ", self.script_name(), e.line.max(1));
        let mut text = format!("{head}{}\n", e.message);
        if let Some(line) = script.lines().nth(e.line.saturating_sub(first)) {
            if e.message.starts_with("syntax error near") {
                // As read: bash keeps the line's blanks.
                text.push_str(&format!("{head}`{line}'\n"));
            }
        }
        fds.eprint(&text).await;
    }

    /// Runs the `EXIT` trap, if one is set, once.
    async fn run_exit_trap(&self, status: i32, fds: &Fds) -> i32 {
        let trap = self.state.borrow_mut().traps.remove("EXIT");
        let Some(code) = trap else {
            return status;
        };
        if let Ok(program) = crate::shell::parse(&code) {
            {
                let mut state = self.state.borrow_mut();
                state.status = status;
                state.exiting_with = Some(status);
            }
            let flow = self.run_list(&program, fds).await;
            let mut state = self.state.borrow_mut();
            state.exiting_with = None;
            // The shell has ended: an `EXIT` trap set by the trap itself never runs (as in
            // bash), nor at the end of the session's next execution.
            state.traps.remove("EXIT");
            drop(state);
            if let Flow::Exit(s) = flow {
                return s;
            }
        }
        status
    }

    /// Runs `list` in the subshell `self` and ends it: an `EXIT` trap set inside runs then
    /// (one inherited from the parent shell does not run there).
    pub(crate) async fn run_subshell(&self, list: &List, fds: &Fds) -> Flow {
        let inherited = self.state.borrow().traps.get("EXIT").cloned();
        let flow = self.run_list(list, fds).await;
        let current = self.state.borrow().traps.get("EXIT").cloned();
        if current.is_none() || current == inherited {
            return flow;
        }
        Flow::Exit(self.run_exit_trap(flow.status(), fds).await)
    }

    /// Runs the items of a list in order.
    pub fn run_list<'a>(&'a self, list: &'a List, fds: &'a Fds) -> LocalFuture<'a, Flow> {
        self.run_items(list, fds, None)
    }

    /// Runs a script, an `eval`'s or a sourced file's code as bash reads it, line by line:
    /// an error that discards (see [`super::state::State::discarding`]) abandons the rest
    /// of its line, and the next line runs with `$?` 1.
    pub fn run_lines<'a>(&'a self, list: &'a List, fds: &'a Fds) -> LocalFuture<'a, Flow> {
        self.run_items(list, fds, Some(&[]))
    }

    /// Runs `list`'s items. With `lines` (a script's, `eval`'s), an error that discards the
    /// rest of a line skips the items left on it, and the lines holding extended glob groups
    /// (see [`crate::shell::parse_script`]) are a syntax error when they come up with
    /// `extglob` off.
    fn run_items<'a>(
        &'a self,
        list: &'a List,
        fds: &'a Fds,
        lines: Option<&'a [(usize, String)]>,
    ) -> LocalFuture<'a, Flow> {
        Box::pin(async move {
            let mut status = 0;
            let mut fds = std::borrow::Cow::Borrowed(fds);
            let mut discarded_line = None;
            let mut parsed_to = 0;
            for (i, item) in list.items.iter().enumerate() {
                let line = item.and_or.first.commands.first().map_or(0, |c| c.line);
                if let Some(extglob) = lines.filter(|e| !e.is_empty() && line > parsed_to) {
                    // bash parses up to the end of the line of the item's last command.
                    parsed_to = list.items[i + 1..]
                        .iter()
                        .filter_map(|next| next.and_or.first.commands.first())
                        .map(|c| c.line)
                        .find(|&l| l > line)
                        .map_or(usize::MAX, |l| l - 1);
                    let found = extglob.iter().find(|(n, _)| (line..=parsed_to).contains(n));
                    if let Some((n, text)) = found.filter(|_| !self.state.borrow().opts.extglob) {
                        let head = format!("{}: line {n}: ", self.script_name());
                        let message = format!(
                            "{head}syntax error near unexpected token `('\n{head}`{text}'\n"
                        );
                        fds.eprint(&message).await;
                        return Flow::Exit(2);
                    }
                }
                if self.state.borrow().kept_fds_newer(&fds) {
                    self.state.borrow().apply_kept_fds(fds.to_mut());
                }
                if self.world.deadline_hit() {
                    return Flow::Exit(TIMEOUT_STATUS);
                }
                let line = Some(line);
                if discarded_line.is_some() && discarded_line == line {
                    continue;
                }
                let flow = if item.background {
                    self.start_job(&item.and_or, &fds).await
                } else {
                    self.run_and_or(&item.and_or, &fds, true).await
                };
                self.keep_exec_fds(&fds);
                match flow {
                    Flow::Normal(s) => {
                        status = s;
                        self.state.borrow_mut().status = s;
                    }
                    Flow::Exit(s) if lines.is_some() && self.state.borrow().discarding => {
                        let mut state = self.state.borrow_mut();
                        state.discarding = false;
                        state.status = s;
                        status = s;
                        discarded_line = line;
                    }
                    other => return other,
                }
            }
            Flow::Normal(status)
        })
    }

    /// Keeps the descriptors an `exec` without a command changed from `fds`, the table of
    /// the list it ran in.
    fn keep_exec_fds(&self, fds: &Fds) {
        let mut state = self.state.borrow_mut();
        let Some(new) = state.exec_fds.take() else {
            return;
        };
        for fd in 0..fds.extent().max(new.extent()) {
            if !super::io::same_fd(fds.get(fd), new.get(fd)) {
                state.keep_fd(fd, new.get(fd).cloned());
            }
        }
    }

    /// `cmd &`: starts `and_or` as a background job in a copy of the shell; `$!` names it.
    /// Status 0, at once. Its stdin is empty unless redirected, as in a non-interactive bash.
    async fn start_job(&self, and_or: &AndOr, fds: &Fds) -> Flow {
        let sub = match self.jobs.full().map_or_else(|| self.subshell(), Err) {
            Ok(sub) => sub,
            Err(message) => {
                self.report(fds, &message).await;
                return Flow::Normal(1);
            }
        };
        let mut job_fds = fds.clone();
        if fds
            .input(0)
            .is_some_and(|stdin| self.jobs.is_script_stdin(stdin))
        {
            job_fds.set(0, Some(Fd::In(InHandle::empty())));
        }
        let and_or = and_or.clone();
        let shown = List {
            items: vec![Item {
                and_or: and_or.clone(),
                background: false,
            }],
        };
        let command = super::unparse::list(&shown).trim_end().to_string();
        let owner = self.state.borrow().job_owner;
        let pid = self.jobs.spawn(owner, command, |pid| {
            let mut state = sub.state.borrow_mut();
            state.job_owner = pid;
            state.depth = self.jobs.job_depth();
            drop(state);
            // The job's own status sets off neither `set -e` nor the `ERR` trap, as in bash.
            Box::pin(async move { sub.run_and_or(&and_or, &job_fds, false).await.status() })
        });
        self.state.borrow_mut().last_job = Some(pid);
        Flow::Normal(0)
    }

    /// `coproc NAME command`: starts the command as a background job reading from one pipe
    /// and writing to another; the shell keeps their other ends open as descriptors 63
    /// (read) and 60 (write), as bash numbers them, in `NAME[0]` and `NAME[1]`, and the
    /// job's id in `NAME_PID`.
    async fn start_coproc(&self, c: &CoprocCommand, fds: &Fds) -> Flow {
        let sub = match self.jobs.full().map_or_else(|| self.subshell(), Err) {
            Ok(sub) => sub,
            Err(message) => {
                self.report(fds, &message).await;
                return Flow::Normal(1);
            }
        };
        let (to_job, job_stdin) = {
            let (r, w) = pipe();
            (w, r)
        };
        let (shell_end, job_stdout) = pipe();
        let writer = |w| {
            OutHandle::new(OutKind::Stream(RefCell::new(Some(Output::new(
                Sink::Pipe(w),
            )))))
        };
        let mut job_fds = fds.clone();
        job_fds.set(0, Some(Fd::In(InHandle::pipe(job_stdin))));
        job_fds.set(1, Some(Fd::Out(writer(job_stdout))));
        let body = (*c.body).clone();
        let command = super::unparse::command(&body).trim_end().to_string();
        let owner = self.state.borrow().job_owner;
        let pid = self.jobs.spawn(owner, command, |pid| {
            let mut state = sub.state.borrow_mut();
            state.job_owner = pid;
            state.depth = self.jobs.job_depth();
            drop(state);
            Box::pin(async move { sub.run_command(&body, job_fds).await.status() })
        });
        let assigned = {
            let mut s = self.state.borrow_mut();
            s.last_job = Some(pid);
            s.keep_fd(63, Some(Fd::In(InHandle::pipe(shell_end))));
            s.keep_fd(60, Some(Fd::Out(writer(to_job))));
            let elements = vec![
                (Some(Key::Index(0)), "63".to_string()),
                (Some(Key::Index(1)), "60".to_string()),
            ];
            s.assign_array(&c.name, elements, false)
                .and_then(|()| s.assign(&format!("{}_PID", c.name), pid.to_string(), false))
        };
        match assigned {
            Ok(()) => Flow::Normal(0),
            Err(message) => {
                self.report(fds, &message).await;
                Flow::Normal(1)
            }
        }
    }

    /// Runs `a && b || c`; `checked`: a failure of the whole may set off `set -e` and the
    /// `ERR` trap.
    async fn run_and_or(&self, and_or: &AndOr, fds: &Fds, checked: bool) -> Flow {
        let total = and_or.rest.len();
        let mut flow = self.run_pipeline(&and_or.first, fds, total > 0).await;
        let mut ran_last = total == 0;
        for (i, (op, pipeline)) in and_or.rest.iter().enumerate() {
            let status = match flow {
                Flow::Normal(s) => s,
                other => return other,
            };
            self.state.borrow_mut().status = status;
            let run = match op {
                AndOrOp::And => status == 0,
                AndOrOp::Or => status != 0,
            };
            if !run {
                continue;
            }
            let last = i + 1 == total;
            flow = self.run_pipeline(pipeline, fds, !last).await;
            ran_last = last;
        }
        if let Flow::Normal(status) = flow {
            let last = and_or.rest.last().map_or(&and_or.first, |(_, p)| p);
            if status != 0
                && checked
                && ran_last
                && !last.negated
                && fails_on_its_own(last)
                && self.state.borrow().errexit_off == 0
            {
                if let Some(exit) = self.run_err_trap(status, fds).await {
                    return exit;
                }
                if self.errexit_applies() {
                    return Flow::Exit(status);
                }
            }
        }
        flow
    }

    /// Runs the `ERR` trap after a failure where `set -e` would apply (see
    /// [`fails_on_its_own`]), not in functions, substitutions or subshells
    /// unless `set -E` makes them inherit it. `$?` is the failure's status in the trap and
    /// after it. Some: the trap exited.
    async fn run_err_trap(&self, status: i32, fds: &Fds) -> Option<Flow> {
        {
            let s = self.state.borrow();
            let top_level = s.call_stack.is_empty() && s.subshell == 0;
            if !(top_level || s.opts.errtrace) {
                return None;
            }
        }
        self.err_trap(status, fds).await
    }

    /// Runs the `ERR` trap, if set, for a failure with `status`.
    async fn err_trap(&self, status: i32, fds: &Fds) -> Option<Flow> {
        // Removed while it runs, so a failure inside does not run it again.
        let code = self.state.borrow_mut().traps.remove("ERR")?;
        let program = crate::shell::parse(&code).ok();
        let pinned = {
            let mut s = self.state.borrow_mut();
            s.status = status;
            // `$LINENO` in the trap is the failed command's line.
            let line = s.line;
            s.trap_line.replace(line)
        };
        let flow = match &program {
            Some(program) => self.run_list(program, fds).await,
            None => Flow::Normal(status),
        };
        let mut s = self.state.borrow_mut();
        s.trap_line = pinned;
        s.traps.entry("ERR".into()).or_insert(code);
        s.status = status;
        match flow {
            Flow::Exit(_) => Some(flow),
            _ => None,
        }
    }

    /// Runs the `DEBUG` trap before a simple command, `[[ ]]` or `(( ))` (see
    /// [`is_traced_command`]).
    /// Also keeps `$BASH_COMMAND` while any trap is set (traps are what read it; without
    /// one the command is not re-printed, to stay fast).
    async fn run_debug_trap(&self, command: &Command, fds: &Fds) -> Option<Flow> {
        let traced = is_traced_command(command);
        let subshell = matches!(command.kind, CommandKind::Subshell(_));
        if !(traced || subshell) || self.state.borrow().traps.is_empty() {
            return None;
        }
        let text = super::unparse::command(command);
        let text = text.trim_end();
        // A subshell is named in `$BASH_COMMAND` but does not run the `DEBUG` trap here.
        if !traced || !self.state.borrow().traps.contains_key("DEBUG") {
            let mut s = self.state.borrow_mut();
            // Inside a trap (which pins `$LINENO`) it keeps naming the trapped command.
            if s.trap_line.is_none() {
                let _ = s.assign("BASH_COMMAND", text.into(), false);
            }
            return None;
        }
        self.debug_trap(Some(text), fds).await
    }

    /// Runs the `DEBUG` trap, if set and inherited here, with `$BASH_COMMAND` set to `text`
    /// (None: unchanged, as at a function's entry); `$?` is kept. Functions, subshells and
    /// substitutions inherit it under `set -T`, a function also with `declare -ft`.
    /// Some: the trap exited.
    pub async fn debug_trap(&self, text: Option<&str>, fds: &Fds) -> Option<Flow> {
        let (code, status) = {
            let mut s = self.state.borrow_mut();
            let traced = s.opts.functrace
                || s.call_stack.last().is_some_and(|f| s.traced.contains(f)) && s.subshell == 0;
            if !s.traps.contains_key("DEBUG")
                || (!s.call_stack.is_empty() || s.subshell != 0) && !traced
            {
                return None;
            }
            // Removed while it runs, so its own commands do not run it again.
            let code = s.traps.remove("DEBUG")?;
            if let Some(text) = text {
                let _ = s.assign("BASH_COMMAND", text.to_string(), false);
            }
            (code, s.status)
        };
        // `$LINENO` in the trap is the coming command's line.
        let pinned = {
            let mut s = self.state.borrow_mut();
            let line = s.line;
            s.trap_line.replace(line)
        };
        let flow = match crate::shell::parse(&code) {
            Ok(program) => self.run_list(&program, fds).await,
            Err(_) => Flow::Normal(status),
        };
        let mut s = self.state.borrow_mut();
        s.trap_line = pinned;
        s.traps.entry("DEBUG".into()).or_insert(code);
        s.status = status;
        match flow {
            Flow::Exit(_) => Some(flow),
            _ => None,
        }
    }

    /// Whether `set -e` should stop the shell after a failure here.
    fn errexit_applies(&self) -> bool {
        let s = self.state.borrow();
        s.opts.errexit && s.errexit_off == 0
    }

    /// Runs a pipeline; `condition`: its status is tested (`set -e` does not apply inside).
    async fn run_pipeline(&self, pipeline: &Pipeline, fds: &Fds, condition: bool) -> Flow {
        let quiet = pipeline.negated || condition;
        let negation = pipeline.negated && !condition;
        if quiet {
            let mut s = self.state.borrow_mut();
            s.errexit_off += 1;
            s.negated_off += usize::from(negation);
        }
        // The clock is a host call: read it only for `time`.
        let start = match pipeline.timed {
            true => self.world.host.now_ms(),
            false => 0.0,
        };
        let result = if pipeline.commands.len() == 1 {
            let flow = self.run_command(&pipeline.commands[0], fds.clone()).await;
            match flow {
                Flow::Normal(s) => Ok(vec![s]),
                other => Err(other),
            }
        } else {
            self.run_stages(&pipeline.commands, fds).await
        };
        if quiet {
            let mut s = self.state.borrow_mut();
            s.errexit_off = s.errexit_off.saturating_sub(1);
            s.negated_off = s.negated_off.saturating_sub(usize::from(negation));
        }
        if pipeline.timed {
            self.report_time(start, fds).await;
        }
        let statuses = match result {
            Ok(statuses) => statuses,
            Err(flow) => return flow,
        };
        if self.world.deadline_hit() {
            return Flow::Exit(TIMEOUT_STATUS);
        }
        let mut status = statuses.last().copied().unwrap_or(0);
        if self.state.borrow().opts.pipefail {
            status = statuses
                .iter()
                .rev()
                .find(|&&s| s != 0)
                .copied()
                .unwrap_or(0);
        }
        self.set_pipestatus(&statuses);
        if pipeline.negated {
            status = i32::from(status == 0);
        }
        Flow::Normal(status)
    }

    /// Prints on stderr the time since `start` (ms) as bash's `time` does.
    pub(crate) async fn report_time(&self, start: f64, fds: &Fds) {
        let elapsed = (self.world.host.now_ms() - start).max(0.0) / 1000.0;
        let (real, zero) = (clock(elapsed), clock(0.0));
        fds.eprint(&format!("\nreal\t{real}\nuser\t{zero}\nsys\t{zero}\n"))
            .await;
    }

    fn set_pipestatus(&self, statuses: &[i32]) {
        let same = match self.state.borrow().var("PIPESTATUS").map(|v| &v.value) {
            Some(Some(Value::Indexed(map))) => {
                map.len() == statuses.len()
                    && map
                        .iter()
                        .zip(statuses)
                        .enumerate()
                        .all(|(i, ((k, v), s))| *k == i as i64 && v.parse::<i32>().ok() == Some(*s))
            }
            _ => false,
        };
        if same {
            return;
        }
        let elements = statuses
            .iter()
            .enumerate()
            .map(|(i, s)| (Some(Key::Index(i as i64)), s.to_string()))
            .collect();
        let mut state = self.state.borrow_mut();
        let _ = state.assign_array("PIPESTATUS", elements, false);
    }

    /// The stages of a multi-command pipeline, each in a copy of the shell, concurrently.
    async fn run_stages(&self, commands: &[Command], fds: &Fds) -> Result<Vec<i32>, Flow> {
        let mut stages: Vec<LocalFuture<'_, i32>> = Vec::new();
        let mut reader = None;
        let last = commands.len() - 1;
        let lastpipe = self.state.borrow().opts.lastpipe;
        for (i, command) in commands.iter().enumerate() {
            // As in bash, the `DEBUG` trap runs in this shell before each stage that is a
            // simple command starts (the stage that runs here under lastpipe runs its own).
            let simple = matches!(command.kind, CommandKind::Simple(_));
            if simple && !(i == last && lastpipe) {
                {
                    let mut s = self.state.borrow_mut();
                    s.line = s.trap_line.unwrap_or(command.line);
                }
                if let Some(exit) = self.run_debug_trap(command, fds).await {
                    return Err(exit);
                }
            }
            let mut stage_fds = fds.clone();
            if let Some(r) = reader.take() {
                stage_fds.set(0, Some(Fd::In(InHandle::pipe(r))));
            }
            if i < last {
                let (r, w) = pipe();
                let out = Output::new(Sink::Pipe(w));
                let handle = OutHandle::new(OutKind::Stream(RefCell::new(Some(out))));
                stage_fds.set(1, Some(Fd::Out(handle)));
                reader = Some(r);
            }
            if i == last && lastpipe {
                stages.push(Box::pin(async move {
                    self.run_command(command, stage_fds).await.status()
                }));
                continue;
            }
            let sub = match self.subshell() {
                Ok(sub) => sub,
                Err(message) => {
                    self.report(fds, &message).await;
                    return Err(Flow::Exit(1));
                }
            };
            if simple {
                // Its `DEBUG` trap already ran above (a `set -T` copy would run it again).
                sub.state.borrow_mut().traps.remove("DEBUG");
            }
            if i < last {
                // bash runs no `ERR` trap in the stages before the last, even under `set -E`.
                sub.state.borrow_mut().traps.remove("ERR");
            }
            let subshell = matches!(command.kind, CommandKind::Subshell(_));
            stages.push(Box::pin(async move {
                let flow = sub.run_command(command, stage_fds.clone()).await;
                let status = flow.status();
                // A failed `( ... )` that ends a pipeline runs the `ERR` trap in its own
                // process too, then the pipeline's failure runs it here: twice, as in bash.
                let quiet = {
                    let s = sub.state.borrow();
                    s.errexit_off != s.negated_off
                };
                if i == last && subshell && status != 0 && !quiet {
                    let _ = sub.err_trap(status, &stage_fds).await;
                }
                status
            }));
        }
        Ok(join_all(stages).await)
    }

    /// Runs one command with its redirections. Every command counts one level of nesting
    /// (see [`crate::limits::MAX_COMMAND_DEPTH`]): nested commands nest futures, and polling them
    /// nests calls on the machine stack, which is small under WebAssembly.
    pub fn run_command<'a>(&'a self, command: &'a Command, fds: Fds) -> LocalFuture<'a, Flow> {
        Box::pin(async move {
            let level = Level::enter(&self.state);
            let depth = level.1;
            let outputs_mark = self.state.borrow().pending_outputs.len();
            let flow = 'run: {
                // `set -n`: the commands after it are only read.
                if self.state.borrow().opts.noexec {
                    break 'run Flow::Normal(0);
                }
                if depth > crate::limits::MAX_COMMAND_DEPTH {
                    break 'run self.too_deep(&fds).await;
                }
                if self.world.deadline_hit() {
                    break 'run Flow::Exit(TIMEOUT_STATUS);
                }
                {
                    let mut s = self.state.borrow_mut();
                    s.line = s.trap_line.unwrap_or(command.line);
                }
                if let Some(exit) = self.run_debug_trap(command, &fds).await {
                    break 'run exit;
                }
                match &command.kind {
                    CommandKind::Simple(simple) => {
                        let mark = self.world.temp_files.borrow().len();
                        let flow = self.run_simple(command, simple, fds).await;
                        self.run_pending_outputs(outputs_mark).await;
                        self.clean_temps_since(mark);
                        break 'run flow;
                    }
                    CommandKind::Function(def) => {
                        if !crate::shell::parser::valid_function_name(&def.name) {
                            let message = format!("`{}': not a valid identifier", def.name);
                            self.report(&fds, &message).await;
                            break 'run Flow::Normal(1);
                        }
                        if self.state.borrow().opts.posix && simple::is_special_builtin(&def.name) {
                            let message = format!("`{}': is a special builtin", def.name);
                            self.report(&fds, &message).await;
                            break 'run Flow::Exit(2);
                        }
                        if self.state.borrow().readonly_funcs.contains(&def.name) {
                            let message = format!("{}: readonly function", def.name);
                            self.report(&fds, &message).await;
                            break 'run Flow::Normal(1);
                        }
                        let body = Rc::new((*def.body).clone());
                        self.state.borrow_mut().funcs.insert(def.name.clone(), body);
                        break 'run Flow::Normal(0);
                    }
                    _ => {}
                }
                let fds = match self.redirect(&command.redirects, fds).await {
                    Ok(fds) => fds,
                    // A group or loop whose redirection fails has no command inside to
                    // fail in its place: `set -e` applies to it (`{ cat; } < missing`).
                    Err(Flow::Normal(s)) if s != 0 && self.errexit_applies() => {
                        break 'run Flow::Exit(s)
                    }
                    Err(flow) => break 'run flow,
                };
                let flow = self.run_compound(&command.kind, &fds).await;
                self.run_pending_outputs(outputs_mark).await;
                if fds.broken() {
                    break 'run Flow::Exit(141);
                }
                flow
            };
            drop(level);
            flow
        })
    }

    /// Runs the `>(...)` substitutions made for the command that just ended (those after
    /// `mark`), each reading what the command wrote to its file.
    async fn run_pending_outputs(&self, mark: usize) {
        let pending: Vec<_> = {
            let mut state = self.state.borrow_mut();
            if state.pending_outputs.len() <= mark {
                return;
            }
            state.pending_outputs.drain(mark..).collect()
        };
        for output in pending {
            let written = self.world.vfs.borrow().read_shared("/", &output.path);
            let sub = match self.subshell() {
                Ok(sub) => sub,
                Err(message) => {
                    self.report(&output.fds, &message).await;
                    continue;
                }
            };
            let mut fds = output.fds.clone();
            let input = Input::bytes(written.unwrap_or_default());
            fds.set(0, Some(Fd::In(InHandle::stream(input))));
            sub.run_list(&output.program, &fds).await;
        }
    }

    /// Reports running out of nesting levels; the shell stops.
    pub async fn too_deep(&self, fds: &Fds) -> Flow {
        let (function, level) = {
            let s = self.state.borrow();
            (s.call_stack.last().cloned(), s.call_stack.len())
        };
        let message = match function {
            Some(name) => format!("{name}: maximum function nesting level exceeded ({level})"),
            None => "maximum nesting level exceeded: commands, functions and substitutions nest too deeply".into(),
        };
        self.report(fds, &message).await;
        Flow::Exit(1)
    }

    async fn run_compound(&self, kind: &CommandKind, fds: &Fds) -> Flow {
        match kind {
            CommandKind::Subshell(list) => match self.subshell() {
                Ok(sub) => {
                    // A new process: `break` there has no loop (bash warns and goes on).
                    sub.state.borrow_mut().loop_depth = 0;
                    Flow::Normal(sub.run_subshell(list, fds).await.status())
                }
                Err(message) => {
                    self.report(fds, &message).await;
                    Flow::Normal(1)
                }
            },
            CommandKind::Group(list) => self.run_list(list, fds).await,
            CommandKind::If(c) => self.run_if(c, fds).await,
            CommandKind::For(c) => self.run_for(c, fds).await,
            CommandKind::ArithFor(c) => self.run_arith_for(c, fds).await,
            CommandKind::Coproc(c) => self.start_coproc(c, fds).await,
            CommandKind::While(c) => self.run_while(c, true, fds).await,
            CommandKind::Until(c) => self.run_while(c, false, fds).await,
            CommandKind::Case(c) => self.run_case(c, fds).await,
            CommandKind::Arith(word) => self.run_arith_command(word, fds).await,
            CommandKind::Cond(expr) => {
                if self.state.borrow().opts.xtrace {
                    let text = super::unparse::list(&List {
                        items: vec![Item {
                            and_or: AndOr {
                                first: Pipeline {
                                    negated: false,
                                    timed: false,
                                    commands: vec![Command {
                                        kind: CommandKind::Cond(expr.clone()),
                                        redirects: Vec::new(),
                                        line: 0,
                                    }],
                                },
                                rest: Vec::new(),
                            },
                            background: false,
                        }],
                    });
                    self.trace_line(fds, &text).await;
                }
                match self.eval_cond(expr, fds).await {
                    Ok(true) => Flow::Normal(0),
                    Ok(false) => Flow::Normal(1),
                    Err(e) => self.expand_failed(e, fds, 1).await,
                }
            }
            CommandKind::Simple(_) | CommandKind::Function(_) => Flow::Normal(0),
        }
    }

    /// A condition list: `set -e` does not apply inside.
    async fn run_condition(&self, list: &List, fds: &Fds) -> Flow {
        self.state.borrow_mut().errexit_off += 1;
        let flow = self.run_list(list, fds).await;
        let mut s = self.state.borrow_mut();
        s.errexit_off = s.errexit_off.saturating_sub(1);
        flow
    }

    async fn run_if(&self, c: &IfCommand, fds: &Fds) -> Flow {
        for branch in &c.branches {
            match self.run_condition(&branch.condition, fds).await {
                Flow::Normal(0) => return self.run_list(&branch.body, fds).await,
                Flow::Normal(_) => {}
                other => return other,
            }
        }
        match &c.else_body {
            Some(body) => self.run_list(body, fds).await,
            None => Flow::Normal(0),
        }
    }

    /// What a loop does after its body: go on, or leave with this flow.
    fn after_body(flow: Flow, status: &mut i32) -> Option<Flow> {
        match flow {
            Flow::Normal(s) => {
                *status = s;
                None
            }
            Flow::Break(n, s) if n > 1 => Some(Flow::Break(n - 1, s)),
            Flow::Break(_, s) => Some(Flow::Normal(s)),
            Flow::Continue(n) if n > 1 => Some(Flow::Continue(n - 1)),
            Flow::Continue(_) => None,
            other => Some(other),
        }
    }

    /// One pass of a `for` or `select` body with its variable set to `value`: None to go
    /// on, else the loop's way out (a variable that cannot be set ends it with status 1).
    async fn loop_pass(
        &self,
        c: &ForCommand,
        value: String,
        status: &mut i32,
        fds: &Fds,
    ) -> Option<Flow> {
        let assigned = self.state.borrow_mut().assign_loop_var(&c.var, value);
        if let Err(message) = assigned {
            self.report(fds, &message).await;
            return Some(Flow::Normal(1));
        }
        let flow = self.run_list(&c.body, fds).await;
        Self::after_body(flow, status)
    }

    async fn loop_tick(&self, iterations: &mut u32) -> Option<Flow> {
        if self.world.deadline_hit() {
            return Some(Flow::Exit(TIMEOUT_STATUS));
        }
        *iterations = iterations.wrapping_add(1);
        if iterations.is_multiple_of(YIELD_EVERY) {
            yield_now().await;
        }
        None
    }

    async fn in_loop(&self, body: impl std::future::Future<Output = Flow>) -> Flow {
        self.state.borrow_mut().loop_depth += 1;
        let flow = body.await;
        let mut s = self.state.borrow_mut();
        s.loop_depth = s.loop_depth.saturating_sub(1);
        flow
    }

    async fn run_while(&self, c: &LoopCommand, is_while: bool, fds: &Fds) -> Flow {
        self.in_loop(async {
            let mut status = 0;
            let mut iterations = 0;
            loop {
                if let Some(flow) = self.loop_tick(&mut iterations).await {
                    return flow;
                }
                match self.run_condition(&c.condition, fds).await {
                    Flow::Normal(s) => {
                        if (s == 0) != is_while {
                            return Flow::Normal(status);
                        }
                    }
                    flow => {
                        if let Some(done) = Self::after_body(flow, &mut status) {
                            return done;
                        }
                        continue;
                    }
                }
                let flow = self.run_list(&c.body, fds).await;
                if let Some(done) = Self::after_body(flow, &mut status) {
                    return done;
                }
            }
        })
        .await
    }

    async fn run_for(&self, c: &ForCommand, fds: &Fds) -> Flow {
        if !super::state::is_name(&c.var) {
            self.report(fds, &format!("`{}': not a valid identifier", c.var))
                .await;
            return Flow::Normal(1);
        }
        let items = match &c.words {
            None => self.state.borrow().positional.clone(),
            Some(words) => {
                let refs: Vec<&Word> = words.iter().collect();
                match self.expand_fields(&refs, fds).await {
                    Ok(items) => items,
                    Err(e) => return self.expand_failed(e, fds, 1).await,
                }
            }
        };
        if c.select {
            return self.run_select(c, items, fds).await;
        }
        // Each iteration starts at the `for` line again (`$LINENO` in a DEBUG trap).
        let line = self.state.borrow().line;
        self.in_loop(async {
            let mut status = 0;
            let mut iterations = 0;
            // The items are not copied for tracing (a long list may be most of the memory).
            for item in &items {
                if let Some(flow) = self.loop_tick(&mut iterations).await {
                    return flow;
                }
                if self.state.borrow().opts.xtrace {
                    let shown: Vec<String> = items.iter().map(|i| super::quote::trace(i)).collect();
                    self.trace_line(fds, &format!("for {} in {}", c.var, shown.join(" ")))
                        .await;
                }
                self.state.borrow_mut().line = line;
                if let Some(flow) = self.debug_trap(Some(&for_text(c)), fds).await {
                    return flow;
                }
                if let Some(done) = self.loop_pass(c, item.clone(), &mut status, fds).await {
                    return done;
                }
            }
            Flow::Normal(status)
        })
        .await
    }

    async fn arith_part(&self, word: &Option<Word>, fds: &Fds) -> Result<i64, Flow> {
        let Some(word) = word else {
            return Ok(1);
        };
        let shown = format!("(({}))", super::unparse::word(word).trim());
        if let Some(flow) = self.debug_trap(Some(&shown), fds).await {
            return Err(flow);
        }
        let text = match self.expand_arith(word, fds).await {
            Ok(text) => text,
            Err(e) => return Err(self.expand_failed(e, fds, 1).await),
        };
        self.trace_line(fds, &format!("(( {} ))", text.trim()))
            .await;
        match self.arith_text(&text) {
            Ok(n) => Ok(n),
            Err(ExpandError::Discard(m)) | Err(ExpandError::Failed(m)) => {
                self.report(fds, &format!("((: {m}")).await;
                Err(Flow::Normal(1))
            }
            Err(e @ ExpandError::Exit(_)) => Err(self.expand_failed(e, fds, 1).await),
            Err(ExpandError::Flow(f)) => Err(f),
        }
    }

    async fn run_arith_for(&self, c: &ArithForCommand, fds: &Fds) -> Flow {
        let line = self.state.borrow().line;
        if let Some(init) = &c.init {
            if let Err(flow) = self.arith_part(&Some(init.clone()), fds).await {
                return flow;
            }
        }
        self.in_loop(async {
            let mut status = 0;
            let mut iterations = 0;
            loop {
                if let Some(flow) = self.loop_tick(&mut iterations).await {
                    return flow;
                }
                self.state.borrow_mut().line = line;
                match self.arith_part(&c.cond, fds).await {
                    Ok(0) => return Flow::Normal(status),
                    Ok(_) => {}
                    Err(flow) => return flow,
                }
                let flow = self.run_list(&c.body, fds).await;
                if let Some(done) = Self::after_body(flow, &mut status) {
                    return done;
                }
                if c.step.is_some() {
                    self.state.borrow_mut().line = line;
                    if let Err(flow) = self.arith_part(&c.step, fds).await {
                        return flow;
                    }
                }
            }
        })
        .await
    }

    async fn run_case(&self, c: &CaseCommand, fds: &Fds) -> Flow {
        let shown = format!("case {} in ", super::unparse::word(&c.word));
        if let Some(flow) = self.debug_trap(Some(&shown), fds).await {
            return flow;
        }
        self.trace_line(fds, &format!("case {} in", super::unparse::word(&c.word)))
            .await;
        let subject = match self.expand_string(&c.word, fds).await {
            Ok(s) => s,
            Err(e) => return self.expand_failed(e, fds, 1).await,
        };
        let nocase = self.state.borrow().opts.nocasematch;
        let mut status = 0;
        let mut fall_into = false;
        for arm in &c.arms {
            let mut hit = fall_into;
            if !hit {
                for p in &arm.patterns {
                    let mut pattern = match self.expand_pattern(p, fds).await {
                        Ok(p) => p,
                        Err(e) => return self.expand_failed(e, fds, 1).await,
                    };
                    pattern.nocase = nocase;
                    if pattern.matches(&subject) {
                        hit = true;
                        break;
                    }
                }
            }
            if !hit {
                continue;
            }
            match self.run_list(&arm.body, fds).await {
                Flow::Normal(s) => status = s,
                other => return other,
            }
            match arm.terminator {
                CaseTerminator::Break => return Flow::Normal(status),
                CaseTerminator::FallThrough => fall_into = true,
                CaseTerminator::Continue => fall_into = false,
            }
        }
        Flow::Normal(status)
    }

    async fn run_arith_command(&self, word: &Word, fds: &Fds) -> Flow {
        let text = match self.expand_arith(word, fds).await {
            Ok(text) => text,
            Err(e) => return self.expand_failed(e, fds, 1).await,
        };
        self.trace_line(fds, &format!("(( {text} ))")).await;
        match self.arith_text(&text) {
            Ok(n) => Flow::Normal(i32::from(n == 0)),
            Err(ExpandError::Discard(m)) | Err(ExpandError::Failed(m)) => {
                let m = if m.contains("unbound variable") {
                    m
                } else {
                    format!("((: {m}")
                };
                self.report(fds, &m).await;
                Flow::Normal(1)
            }
            Err(e @ ExpandError::Exit(_)) => self.expand_failed(e, fds, 1).await,
            Err(ExpandError::Flow(f)) => f,
        }
    }

    /// The status a fatal error ends the shell with: 1, or 127 in a `bash -c` string
    /// (outside its subshells).
    pub fn fatal_status(&self) -> i32 {
        let s = self.state.borrow();
        match s.opts.command_string && s.subshell == 0 {
            true => 127,
            false => 1,
        }
    }

    /// Reports an expansion failure: fatal ones stop the shell (status 1), discarding ones
    /// abandon the line ([`Sh::discard`]), others fail the command with `status`.
    pub async fn expand_failed(&self, e: ExpandError, fds: &Fds, status: i32) -> Flow {
        match e {
            ExpandError::Exit(m) => {
                self.report(fds, &m).await;
                Flow::Exit(self.fatal_status())
            }
            ExpandError::Discard(m) => {
                self.report(fds, &m).await;
                self.discard()
            }
            ExpandError::Failed(m) => {
                self.report(fds, &m).await;
                Flow::Normal(status)
            }
            ExpandError::Flow(f) => f,
        }
    }

    /// Abandons the rest of the line being run (bash's "discard"): status 1, see
    /// [`Sh::run_lines`].
    pub fn discard(&self) -> Flow {
        self.state.borrow_mut().discarding = true;
        Flow::Exit(1)
    }

    /// Sets an indexed array variable (used for `BASH_REMATCH`, `PIPESTATUS`, `mapfile`).
    pub fn set_array(&self, name: &str, items: Vec<String>) {
        let elements = items
            .into_iter()
            .enumerate()
            .map(|(i, v)| (Some(Key::Index(i as i64)), v))
            .collect();
        let mut state = self.state.borrow_mut();
        if let Some(var) = state.var_mut(name) {
            var.value = Some(Value::Indexed(Rc::default()));
        }
        let _ = state.assign_array(name, elements, false);
    }
}

/// The commands of `script` (whose first line is line `first`) that end on the lines before
/// `error_line`: the longest prefix of whole lines (at most [`MAX_ERROR_LOOKBACK`] lines
/// shorter) that parses. Empty if none does.
pub(crate) fn complete_lines_before(script: &str, first: usize, error_line: usize) -> List {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(script.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let last = (error_line + 1)
        .saturating_sub(first + 1)
        .min(starts.len().saturating_sub(1));
    let fewest = last.saturating_sub(MAX_ERROR_LOOKBACK).max(1);
    (fewest..=last)
        .rev()
        .find_map(|lines| crate::shell::parse_at(&script[..starts[lines]], first).ok())
        .unwrap_or(List { items: Vec::new() })
}

/// Whether a failure of `pipeline` counts for `set -e` and the `ERR` trap: a simple command, a
/// subshell, `(( ))`, `[[ ]]` or a multi-command pipeline does; a group, `if`, loop or `case`
/// does not (the commands inside it have had their turn, as in bash, so
/// `{ false && x; }` fails without ending the script).
fn fails_on_its_own(pipeline: &Pipeline) -> bool {
    match pipeline.commands.as_slice() {
        [one] => matches!(
            one.kind,
            CommandKind::Simple(_)
                | CommandKind::Subshell(_)
                | CommandKind::Arith(_)
                | CommandKind::Cond(_)
        ),
        _ => true,
    }
}

/// A `for` loop's first line, as `$BASH_COMMAND` shows it.
fn for_text(c: &ForCommand) -> String {
    match &c.words {
        Some(words) => {
            let words: Vec<String> = words.iter().map(super::unparse::word).collect();
            format!("for {} in {}", c.var, words.join(" "))
        }
        None => format!("for {} in \"$@\"", c.var),
    }
}

/// Whether the `DEBUG` trap runs before `command`: a simple command, `[[ ]]` or `(( ))`.
fn is_traced_command(command: &Command) -> bool {
    matches!(
        command.kind,
        CommandKind::Simple(_) | CommandKind::Cond(_) | CommandKind::Arith(_)
    )
}

/// One level of command nesting, counted while it lives: also a command whose future is
/// dropped unfinished (a `shell.exec` command cancelled at the deadline) gives its level back,
/// where it used to leave the count raised for every later execution of the sandbox.
struct Level<'a>(&'a RefCell<State>, usize);

impl<'a> Level<'a> {
    fn enter(state: &'a RefCell<State>) -> Self {
        let mut s = state.borrow_mut();
        s.depth += 1;
        Level(state, s.depth)
    }
}

impl Drop for Level<'_> {
    fn drop(&mut self) {
        if let Ok(mut s) = self.0.try_borrow_mut() {
            s.depth = s.depth.saturating_sub(1);
        }
    }
}

/// Seconds as `time` reports them: `0m1.234s`.
fn clock(seconds: f64) -> String {
    let minutes = (seconds / 60.0).floor();
    format!("{}m{:.3}s", minutes as u64, seconds - minutes * 60.0)
}
