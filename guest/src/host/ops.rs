//! Operations the guest asks of the host (tool calls, sleeps), from JavaScript and the shell
//! alike: one queue, one id space, results delivered by id.
//!
//! A JavaScript call settles a promise when its result arrives; a shell task instead awaits
//! [`HostQueue::wait`], which stays pending until `resume` delivers the result.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::Poll;

use crate::task::progress;

/// Who is waiting for an operation's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A JavaScript promise (settled through the prelude).
    Js,
    /// A shell task (awaiting [`HostQueue::wait`]).
    Shell,
}

/// What the host is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum OpKind {
    /// Call tool `tool` with `args` (JSON text of an object).
    Call {
        /// Canonical tool name.
        tool: String,
        /// Arguments as JSON text.
        args: String,
    },
    /// Wait `ms` milliseconds.
    Sleep {
        /// How long.
        ms: f64,
    },
}

/// A new operation, not yet reported to the host.
#[derive(Debug, Clone, PartialEq)]
pub struct NewOp {
    /// Unique within the sandbox.
    pub id: u64,
    /// Who waits for it.
    pub owner: Owner,
    /// What to do.
    pub kind: OpKind,
}

/// An operation's result: JSON text, or `(kind, message)` for a failure.
pub type OpOutcome = Result<String, (String, String)>;

/// The guest's queue of host operations.
#[derive(Default)]
pub struct HostQueue {
    next_id: Cell<u64>,
    new_ops: RefCell<Vec<NewOp>>,
    results: RefCell<HashMap<u64, OpOutcome>>,
    /// Reported operations nobody waits for any more (see [`HostQueue::abandon`]).
    abandoned: RefCell<Vec<u64>>,
}

impl HostQueue {
    /// Queues an operation; returns its id.
    pub fn submit(&self, owner: Owner, kind: OpKind) -> u64 {
        let id = self.next_id.get() + 1;
        self.next_id.set(id);
        self.new_ops.borrow_mut().push(NewOp { id, owner, kind });
        id
    }

    /// A fresh id that no operation uses (for JavaScript promises settled by the guest itself,
    /// such as `shell.exec`).
    pub fn reserve_id(&self) -> u64 {
        let id = self.next_id.get() + 1;
        self.next_id.set(id);
        id
    }

    /// How many operations are queued and not yet taken.
    pub fn queued(&self) -> usize {
        self.new_ops.borrow().len()
    }

    /// Drops the operations queued after the first `keep` (work that was abandoned before the
    /// host ever saw it).
    pub fn forget_queued_after(&self, keep: usize) {
        self.new_ops.borrow_mut().truncate(keep);
    }

    /// The operations queued since the last call.
    pub fn take_new(&self) -> Vec<NewOp> {
        std::mem::take(&mut *self.new_ops.borrow_mut())
    }

    /// Stores a shell-owned operation's result and wakes the tasks.
    pub fn deliver(&self, id: u64, outcome: OpOutcome) {
        self.results.borrow_mut().insert(id, outcome);
        progress();
    }

    /// Nobody waits for `id` any more (a killed shell job, a cleared timer): not reported to
    /// the host if it has not been yet; else the execution no longer waits for it, and its
    /// result, if one comes, is dropped.
    pub fn abandon(&self, id: u64) {
        let mut new_ops = self.new_ops.borrow_mut();
        if let Some(at) = new_ops.iter().position(|op| op.id == id) {
            new_ops.remove(at);
            return;
        }
        self.abandoned.borrow_mut().push(id);
        self.results.borrow_mut().remove(&id);
        progress();
    }

    /// The operations abandoned since the last call.
    pub fn take_abandoned(&self) -> Vec<u64> {
        std::mem::take(&mut *self.abandoned.borrow_mut())
    }

    /// Forgets everything (an execution ended).
    pub fn clear(&self) {
        self.new_ops.borrow_mut().clear();
        self.results.borrow_mut().clear();
        self.abandoned.borrow_mut().clear();
    }

    /// Resolves once the result of `id` has been delivered. Dropping the future first
    /// abandons the operation.
    pub fn wait(self: Rc<Self>, id: u64) -> impl std::future::Future<Output = OpOutcome> {
        let mut waiting = Waiting {
            queue: self,
            id,
            done: false,
        };
        poll_fn(move |_| {
            let outcome = waiting.queue.results.borrow_mut().remove(&id);
            match outcome {
                Some(outcome) => {
                    waiting.done = true;
                    Poll::Ready(outcome)
                }
                None => Poll::Pending,
            }
        })
    }
}

/// A shell task's claim on an operation's result; abandons the operation when dropped early.
struct Waiting {
    queue: Rc<HostQueue>,
    id: u64,
    done: bool,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if !self.done {
            self.queue.abandon(self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{run_until_stalled, LocalFuture};

    #[test]
    fn a_shell_wait_resolves_after_delivery() {
        let queue = Rc::new(HostQueue::default());
        let id = queue.submit(Owner::Shell, OpKind::Sleep { ms: 5.0 });
        assert_eq!(
            queue.take_new(),
            vec![NewOp {
                id,
                owner: Owner::Shell,
                kind: OpKind::Sleep { ms: 5.0 }
            }]
        );
        let mut waiting: LocalFuture<'_, OpOutcome> = Box::pin(Rc::clone(&queue).wait(id));
        assert!(run_until_stalled(&mut waiting).is_pending());
        queue.deliver(id, Ok("null".into()));
        assert_eq!(
            run_until_stalled(&mut waiting),
            Poll::Ready(Ok("null".into()))
        );
    }
}
