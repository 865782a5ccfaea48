//! A tiny single-threaded executor and the byte pipes between shell tasks.
//!
//! Shell jobs (pipeline stages, command substitutions) are futures. The executor polls every
//! live task in turn until a whole round makes no progress: then each task is blocked on a
//! pipe or on the host, and `step` can report the host operations. Pipes are bounded, so a
//! stage that races ahead waits for its reader, and `yes | head -n 1` ends because `head`
//! closing its end makes `yes`'s next write fail.

mod backstop;
mod io;

pub use backstop::{memory_left, out_of_time, out_of_time_now, set_memory_cap, Running};
pub use io::{
    open_line, pipe, watch_lines, Input, Output, PipeReader, PipeWriter, Sink, WriteError,
    LINE_TOO_LONG, PIPE_CAPACITY,
};

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

/// A boxed future that lives on the guest's one thread.
pub type LocalFuture<'a, T> = Pin<Box<dyn Future<Output = T> + 'a>>;

thread_local! {
    /// Bumped whenever a task could have become runnable (bytes moved, a pipe closed, a host
    /// result arrived); a full polling round with no bump means every task is blocked.
    static PROGRESS: Cell<u64> = const { Cell::new(0) };
}

/// Records that some blocked task may now proceed.
pub fn progress() {
    PROGRESS.with(|p| p.set(p.get().wrapping_add(1)));
}

fn progress_count() -> u64 {
    PROGRESS.with(Cell::get)
}

/// The monotonic clock as a time since its origin: what [`Deadline`] counts in, so that a
/// reading the host sends (a resume's `clock`) compares with the guest's own.
pub fn now() -> Duration {
    #[cfg(target_os = "wasi")]
    {
        #[link(wasm_import_module = "wasi_snapshot_preview1")]
        unsafe extern "C" {
            fn clock_time_get(id: u32, precision: u64, time: *mut u64) -> u16;
        }
        let mut ns = 0;
        // SAFETY: the import writes one u64 at the address given (the monotonic clock, 1).
        unsafe { clock_time_get(1, 1, &mut ns) };
        Duration::from_nanos(ns)
    }
    #[cfg(not(target_os = "wasi"))]
    {
        // Tests: an origin a day back, so that they can subtract from a reading.
        static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        ORIGIN.get_or_init(std::time::Instant::now).elapsed() + Duration::from_secs(86_400)
    }
}

/// An execution's deadline, checked by long-running shell code (loops, pipelines). Reading
/// the clock goes through the host, so only every `CHECK_EVERY`-th call looks at it.
#[derive(Default)]
pub struct Deadline {
    at: Cell<Option<Duration>>,
    /// Armed by [`Deadline::start_lazily`]: the budget, counted from the first clock reading.
    budget: Cell<Option<std::time::Duration>>,
    calls: Cell<u32>,
    expired: Cell<bool>,
    /// When a clock reading first found the execution out of time: the allocator's backstop
    /// counts its grace from here, not from the deadline, so that a guest the machine's load
    /// kept from running at the deadline gets to stop itself when it runs again.
    noticed: Cell<Option<Duration>>,
}

const CHECK_EVERY: u32 = 64;

impl Deadline {
    /// Arms (or disarms) the deadline for a new execution.
    pub fn set(&self, at: Option<Duration>) {
        self.at.set(at);
        self.budget.set(None);
        self.calls.set(0);
        self.expired.set(false);
        self.noticed.set(None);
    }

    /// Arms the deadline `budget` after the first clock reading (the `CHECK_EVERY`-th check),
    /// not now: a short script then never reads the clock (a call out to the host, a good
    /// part of a trivial execution's cost). What runs before that reading is at most
    /// `CHECK_EVERY` checks' worth of work, and the host's own deadline still bounds it.
    pub fn start_lazily(&self, budget: std::time::Duration) {
        self.set(None);
        self.budget.set(Some(budget));
    }

    /// Whether the deadline is armed but has not started (no clock reading yet): the
    /// execution is about to wait on the host, and the wait must count against its time, so
    /// the step reply asks the host for the time, sent with the resume ([`Deadline::start`]):
    /// a reading without a call out of the guest.
    pub fn unstarted(&self) -> bool {
        self.budget.get().is_some()
    }

    /// Starts a lazily armed deadline at `now` (a reading of [`now`]'s clock) if it has not
    /// started yet.
    pub fn start(&self, now: Duration) {
        if let Some(budget) = self.budget.take() {
            self.at.set(Some(now + budget));
        }
    }

    /// Whether [`Deadline::expired`] has found the execution out of time.
    pub fn fired(&self) -> bool {
        self.expired.get()
    }

    /// Whether the execution is out of time; once true, stays true until [`Deadline::set`].
    pub fn expired(&self) -> bool {
        if self.expired.get() {
            return true;
        }
        let calls = self.calls.get().wrapping_add(1);
        self.calls.set(calls);
        calls.is_multiple_of(CHECK_EVERY) && self.look()
    }

    /// [`Deadline::expired`], reading the clock every time: for callers between which much
    /// can run (the executor between two polls of a task tree, where a `sed` loop that grows
    /// its pattern space does more work at every yield).
    pub fn expired_now(&self) -> bool {
        self.expired.get() || self.look()
    }

    /// Makes this the deadline that [`out_of_time`] and the allocator's backstop check until
    /// the returned guard is dropped: while the execution's own code runs.
    pub fn enter(self: &std::rc::Rc<Self>) -> Running {
        backstop::enter(std::rc::Rc::clone(self))
    }

    /// Whether the execution is still running `grace` after it was first found out of time
    /// (reads the clock).
    fn overdue(&self, grace: std::time::Duration) -> bool {
        self.expired_now()
            && self
                .noticed
                .get()
                .is_some_and(|noticed| now() >= noticed + grace)
    }

    /// Reads the clock (unless no deadline is armed): whether the execution is out of time.
    fn look(&self) -> bool {
        if self.at.get().is_none() && self.budget.get().is_none() {
            return false;
        }
        let now = now();
        self.start(now);
        let late = self.at.get().is_some_and(|at| now >= at);
        self.expired.set(late);
        if late && self.noticed.get().is_none() {
            self.noticed.set(Some(now));
        }
        late
    }
}

/// Polls `future` once with a waker that does nothing: readiness is found by polling again.
pub fn poll_once<T>(future: &mut LocalFuture<'_, T>) -> Poll<T> {
    let mut cx = Context::from_waker(Waker::noop());
    future.as_mut().poll(&mut cx)
}

/// Runs `future` (and anything it drives) until it finishes or every task is blocked.
///
/// Returns `Poll::Pending` when no further progress is possible without the host.
pub fn run_until_stalled<T>(future: &mut LocalFuture<'_, T>) -> Poll<T> {
    run_until_stalled_within(future, &Deadline::default())
}

/// [`run_until_stalled`], but also `Poll::Pending` once `deadline` has passed: tasks that keep
/// each other busy (`seq 1 1000000000000 | tail -1`) make progress forever, and only this check
/// stops them where no host backstop does (the browser).
pub fn run_until_stalled_within<T>(
    future: &mut LocalFuture<'_, T>,
    deadline: &Deadline,
) -> Poll<T> {
    loop {
        let before = progress_count();
        if let Poll::Ready(value) = poll_once(future) {
            return Poll::Ready(value);
        }
        if progress_count() == before || deadline.expired_now() {
            return Poll::Pending;
        }
    }
}

/// Polls several futures together (a pipeline's stages) until all finish; yields whenever
/// none of them can move.
pub async fn join_all<'a, T: 'a>(futures: Vec<LocalFuture<'a, T>>) -> Vec<T> {
    JoinAll {
        slots: futures.into_iter().map(Slot::Running).collect(),
    }
    .await
}

enum Slot<'a, T> {
    Running(LocalFuture<'a, T>),
    Done(Option<T>),
}

struct JoinAll<'a, T> {
    slots: Vec<Slot<'a, T>>,
}

// The futures are boxed and the outputs are only moved, never pinned: safe to move.
impl<T> Unpin for JoinAll<'_, T> {}

impl<T> Future for JoinAll<'_, T> {
    type Output = Vec<T>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Vec<T>> {
        let mut pending = false;
        for slot in self.slots.iter_mut() {
            if let Slot::Running(future) = slot {
                match future.as_mut().poll(cx) {
                    Poll::Ready(value) => {
                        *slot = Slot::Done(Some(value));
                        progress();
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            return Poll::Pending;
        }
        let values = self
            .slots
            .iter_mut()
            .filter_map(|slot| match slot {
                Slot::Done(value) => value.take(),
                Slot::Running(_) => None,
            })
            .collect();
        Poll::Ready(values)
    }
}

/// A future that is pending once, so a long-running task lets others run.
pub async fn yield_now() {
    let mut yielded = false;
    std::future::poll_fn(move |_| {
        if yielded {
            Poll::Ready(())
        } else {
            yielded = true;
            progress(); // yielding is not being blocked
            Poll::Pending
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_that_always_progresses_stops_at_the_deadline() {
        let deadline = Deadline::default();
        deadline.set(Some(now()));
        let mut busy: LocalFuture<'_, ()> = Box::pin(async {
            loop {
                yield_now().await;
            }
        });
        assert!(run_until_stalled_within(&mut busy, &deadline).is_pending());
        assert!(deadline.fired());
    }

    #[test]
    fn a_lazy_deadline_starts_at_the_first_clock_reading() {
        let deadline = Deadline::default();
        deadline.start_lazily(std::time::Duration::ZERO);
        let checks: Vec<bool> = (0..CHECK_EVERY).map(|_| deadline.expired()).collect();
        assert!(!checks[..CHECK_EVERY as usize - 1].iter().any(|&late| late));
        assert!(checks[CHECK_EVERY as usize - 1] && deadline.fired());
        deadline.start_lazily(std::time::Duration::from_secs(3600));
        assert!(!(0..3 * CHECK_EVERY).any(|_| deadline.expired()));
        deadline.set(None);
        assert!(!(0..2 * CHECK_EVERY).any(|_| deadline.expired()));
    }

    #[test]
    fn a_lazy_deadline_starts_at_the_hosts_reading_before_a_wait() {
        let deadline = Deadline::default();
        deadline.start_lazily(std::time::Duration::from_secs(1));
        assert!(deadline.unstarted());
        deadline.start(now() - std::time::Duration::from_secs(2)); // the host waited 2 s
        assert!(!deadline.unstarted() && deadline.expired_now());
        deadline.start(now()); // started already: no effect
        assert!(deadline.expired_now());
    }

    #[test]
    fn pipeline_stages_stream_through_a_bounded_pipe() {
        let (mut reader, mut writer) = pipe();
        let producer: LocalFuture<'_, usize> = Box::pin(async move {
            let mut sent = 0;
            // An endless producer, stopped by the reader going away.
            while writer.write(&[b'y'; 1000]).await.is_ok() {
                sent += 1000;
            }
            sent
        });
        let consumer: LocalFuture<'_, usize> = Box::pin(async move {
            let mut got = 0;
            while got < 200_000 {
                match reader.read_chunk().await {
                    Some(chunk) => got += chunk.len(),
                    None => break,
                }
            }
            got
        });
        let mut both = Box::pin(join_all(vec![producer, consumer])) as LocalFuture<'_, Vec<usize>>;
        let Poll::Ready(counts) = run_until_stalled(&mut both) else {
            unreachable!("a producer and a consumer never stall")
        };
        assert!(counts[1] >= 200_000);
        // The producer ran at most one pipe's worth ahead of what was read.
        assert!(counts[0] <= counts[1] + PIPE_CAPACITY + 1000);
    }

    #[test]
    fn a_reader_waiting_on_an_open_empty_pipe_stalls() {
        let (mut reader, _writer) = pipe();
        let mut waiting: LocalFuture<'_, Option<Vec<u8>>> =
            Box::pin(async move { reader.read_chunk().await });
        assert!(run_until_stalled(&mut waiting).is_pending());
    }
}
