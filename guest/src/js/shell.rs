//! JavaScript's `shell(cmd)` and `await shell.exec(cmd)`: the same shell session as shell
//! executions (cwd, variables, files).
//!
//! `shell(cmd)` runs synchronously, so it cannot wait for the host: a command that calls a
//! tool or sleeps must use `shell.exec`, which runs as a task beside the JavaScript and
//! settles its promise when the command ends.

use std::cell::RefCell;
use std::rc::Rc;
use std::task::Poll;

use rquickjs::{Ctx, Function, Object, Value};

use crate::host::ops::HostQueue;
use crate::shell::interp::Shell;
use crate::task::{run_until_stalled_within, Deadline, Input, LocalFuture};

/// A finished command: its exit status, stdout and stderr.
pub type Captured = (i32, Vec<u8>, Vec<u8>);

/// A running `shell.exec`: the promise id and the command's future.
pub type ShellTask = (u64, LocalFuture<'static, Captured>);

/// The `shell.exec` commands in flight.
#[derive(Default)]
pub struct ShellTasks(RefCell<Vec<ShellTask>>);

impl ShellTasks {
    /// Whether any command is still running.
    pub fn any(&self) -> bool {
        !self.0.borrow().is_empty()
    }

    /// Runs every task as far as it goes, or until `deadline`; returns the finished ones.
    pub fn poll(&self, deadline: &Deadline) -> Vec<(u64, Captured)> {
        let mut tasks = std::mem::take(&mut *self.0.borrow_mut());
        let mut done = Vec::new();
        tasks.retain_mut(
            |(id, future)| match run_until_stalled_within(future, deadline) {
                Poll::Ready(result) => {
                    done.push((*id, result));
                    false
                }
                Poll::Pending => true,
            },
        );
        // Tasks started while polling (a nested shell.exec) were pushed meanwhile.
        self.0.borrow_mut().extend(tasks);
        done
    }

    /// Drops every task (the execution ended).
    pub fn clear(&self) {
        self.0.borrow_mut().clear();
    }
}

/// `{"stdout", "stderr", "exitCode"}` as JSON text, for settling a `shell.exec` promise.
pub fn result_json(status: i32, stdout: &[u8], stderr: &[u8]) -> String {
    serde_json::json!({
        "stdout": String::from_utf8_lossy(stdout),
        "stderr": String::from_utf8_lossy(stderr),
        "exitCode": status,
    })
    .to_string()
}

/// Defines `native.shellSync` and `native.shellStart`.
pub fn install<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    shell: &Shell,
    queue: &Rc<HostQueue>,
    tasks: &Rc<ShellTasks>,
    deadline: &Rc<Deadline>,
) -> rquickjs::Result<()> {
    let (sh, q, d) = (shell.clone(), Rc::clone(queue), Rc::clone(deadline));
    native.set(
        "shellSync",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, cmd: String| -> rquickjs::Result<Value<'js>> {
                let keep = q.queued();
                let mut run = sh.capture(&cmd, Input::empty());
                match run_until_stalled_within(&mut run, &d) {
                    Poll::Ready((status, out, err)) => {
                        let json = result_json(status, &out, &err);
                        ctx.json_parse(json)
                    }
                    Poll::Pending => {
                        // Nothing the host has seen: just drop it. `false` says the deadline
                        // stopped the command; `null`, that it must wait on the host.
                        q.forget_queued_after(keep);
                        if d.fired() {
                            Ok(Value::new_bool(ctx, false))
                        } else {
                            Ok(Value::new_null(ctx))
                        }
                    }
                }
            },
        )?,
    )?;
    let (sh, q, t) = (shell.clone(), Rc::clone(queue), Rc::clone(tasks));
    native.set(
        "shellStart",
        Function::new(ctx.clone(), move |cmd: String| {
            let id = q.reserve_id();
            t.0.borrow_mut()
                .push((id, sh.capture(&cmd, Input::empty())));
            id as f64
        })?,
    )?;
    Ok(())
}
