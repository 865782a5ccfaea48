//! Background jobs: `cmd &` runs `cmd` in a copy of the shell, concurrently with the rest of
//! the script, so `tool a & tool b & wait` sends both tool calls to the host in one step.
//!
//! Each run of a script (an execution, or one JavaScript `shell()` call) has its own table;
//! its subshells share it. The run's future ([`with_jobs`]) polls the jobs beside the script
//! and, unlike `bash -c`, waits for the jobs still running when the script ends, so their
//! output and files are part of the execution (the execution's timeout bounds them). When the
//! run is dropped (a timeout, a cancellation), its jobs are dropped with it.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use super::io::InHandle;
use crate::task::{progress, LocalFuture};

/// The first process id handed out (bash's `$$` is 1000 here).
const FIRST_PID: u32 = 1001;

/// How many ended jobs the table remembers for `wait` and `$?` (the newest ones).
const KEPT_ENDED: usize = 4 * crate::limits::MAX_JOBS;

/// One background job.
pub(crate) struct Job {
    /// Its pretend process id (`$!`).
    pub pid: u32,
    /// The shell that started it: 0 for the script, else the pid of the job that did. `wait`
    /// and `jobs` see only the jobs their shell started, so a job never waits for itself.
    owner: u32,
    /// Its job number (`%N`): as in bash, one more than the highest number among its
    /// owner's running jobs.
    pub number: usize,
    /// The command as source text, for `jobs`.
    pub command: String,
    /// Its status once it ended.
    pub status: Option<i32>,
    /// Whether `wait` has reported its end (`wait -n` reports each job once).
    reported: bool,
    /// When it ended, in the order jobs end (the table forgets the earliest first).
    ended: Option<u64>,
    run: Option<LocalFuture<'static, i32>>,
}

/// The job table of one run.
#[derive(Default)]
pub(crate) struct Jobs {
    /// In pid order.
    table: RefCell<Vec<Job>>,
    started: Cell<u32>,
    ended: Cell<u64>,
    /// The run's own standard input: a job started where it is still stdin reads an empty
    /// file instead, as in a non-interactive bash (a redirected stdin is inherited).
    script_stdin: Option<Rc<InHandle>>,
    /// The run's nesting depth. A job's future is polled by the run's ([`with_jobs`]), not
    /// inside the command that started it, so its shell starts one level above this one:
    /// a job started by a job (`f() { f | f & }`) does not nest deeper on the machine stack.
    /// (Inheriting the starter's depth ended such a fork bomb at the nesting limit, sooner
    /// or later than the time limit depending on the machine's speed.)
    run_depth: usize,
}

impl Jobs {
    /// The table of a run at nesting depth `run_depth` whose standard input is `script_stdin`.
    pub fn new(script_stdin: Option<Rc<InHandle>>, run_depth: usize) -> Jobs {
        Jobs {
            script_stdin,
            run_depth,
            ..Jobs::default()
        }
    }

    /// The nesting depth that a job's shell starts at.
    pub fn job_depth(&self) -> usize {
        self.run_depth + 1
    }

    /// Whether `input` is the run's own standard input.
    pub fn is_script_stdin(&self, input: &Rc<InHandle>) -> bool {
        self.script_stdin
            .as_ref()
            .is_some_and(|stdin| Rc::ptr_eq(stdin, input))
    }

    /// Starts the job that `make` builds from its process id; returns that id.
    pub fn spawn(
        &self,
        owner: u32,
        command: String,
        make: impl FnOnce(u32) -> LocalFuture<'static, i32>,
    ) -> u32 {
        let pid = FIRST_PID + self.started.get();
        self.started.set(self.started.get() + 1);
        let number = 1 + self
            .table
            .borrow()
            .iter()
            .filter(|job| job.owner == owner && job.status.is_none())
            .map(|job| job.number)
            .max()
            .unwrap_or(0);
        let run = make(pid);
        self.table.borrow_mut().push(Job {
            pid,
            owner,
            number,
            command,
            status: None,
            reported: false,
            ended: None,
            run: Some(run),
        });
        progress();
        pid
    }

    /// Polls every running job once; whether any is still running.
    fn poll_all(&self, cx: &mut Context<'_>) -> bool {
        // By pid, not index: while a job is polled it may start jobs, and `wait` or `jobs`
        // may forget ended ones.
        let pids: Vec<u32> = self.table.borrow().iter().map(|job| job.pid).collect();
        for pid in pids {
            let Some(mut run) = self.with_job(pid, |job| job.run.take()).flatten() else {
                continue;
            };
            let poll = run.as_mut().poll(cx);
            self.with_job(pid, |job| match poll {
                Poll::Ready(status) => self.end(job, status),
                Poll::Pending => job.run = Some(run),
            });
            if poll.is_ready() {
                progress();
            }
        }
        self.forget_ended();
        self.table.borrow().iter().any(|job| job.status.is_none())
    }

    /// Keeps the table small, so that a script starting jobs without end (a fork bomb, a
    /// long loop of `cmd &`) does not make every poll and spawn slower: an ended job whose
    /// shell has ended too is forgotten (no `wait` can ask for it), and of the others only the
    /// [`KEPT_ENDED`] that ended last are kept (bash also forgets old statuses; `wait` on a
    /// forgotten pid then says it is not a child of this shell).
    fn forget_ended(&self) {
        let mut table = self.table.borrow_mut();
        let running: HashSet<u32> = table
            .iter()
            .filter(|job| job.status.is_none())
            .map(|job| job.pid)
            .collect();
        table.retain(|job| job.status.is_none() || job.owner == 0 || running.contains(&job.owner));
        let excess = (table.len() - running.len()).saturating_sub(KEPT_ENDED);
        if excess > 0 {
            let mut order: Vec<u64> = table.iter().filter_map(|job| job.ended).collect();
            let (_, &mut first_kept, _) = order.select_nth_unstable(excess);
            table.retain(|job| job.ended.is_none_or(|ended| ended >= first_kept));
        }
    }

    /// The job `pid`: the table is in pid order, so a binary search finds it.
    fn with_job<T>(&self, pid: u32, f: impl FnOnce(&mut Job) -> T) -> Option<T> {
        let mut table = self.table.borrow_mut();
        let index = table.binary_search_by_key(&pid, |job| job.pid).ok()?;
        Some(f(&mut table[index]))
    }

    /// Why no job may start now ([`crate::limits::MAX_JOBS`] are running), if so.
    pub fn full(&self) -> Option<String> {
        let max = crate::limits::MAX_JOBS;
        let running = self
            .table
            .borrow()
            .iter()
            .filter(|j| j.status.is_none())
            .count();
        (running >= max).then(|| {
            format!(
                "fork: Resource temporarily unavailable (at most {max} background jobs run at \
                 once in this sandbox; wait for some to end first)"
            )
        })
    }

    /// Whether any job that `owner` started is still running.
    pub fn any_running(&self, owner: u32) -> bool {
        self.table
            .borrow()
            .iter()
            .any(|job| job.owner == owner && job.status.is_none())
    }

    /// The process id of the job of `owner` that `spec` names: a pid, `%N`, `%%`, `%+` (the
    /// newest) or `%-` (the one before).
    pub fn find(&self, owner: u32, spec: &str) -> Option<u32> {
        let table = self.table.borrow();
        let mut table = table.iter().filter(|job| job.owner == owner);
        let newest = |back: usize| table.clone().rev().nth(back).map(|job| job.pid);
        match spec {
            "%%" | "%+" | "%" => newest(0),
            "%-" => newest(1),
            _ => match spec.strip_prefix('%') {
                Some(number) => {
                    let number = number.parse::<usize>().ok()?;
                    table.rev().find(|job| job.number == number).map(|j| j.pid)
                }
                None => {
                    let pid = spec.parse::<u32>().ok()?;
                    table.any(|job| job.pid == pid).then_some(pid)
                }
            },
        }
    }

    /// The status of job `pid` once it ended, marked as reported (None while it runs or
    /// when there is no such job). Asking again gives the same status, as in bash.
    pub fn reap(&self, pid: u32) -> Option<i32> {
        self.with_job(pid, |job| {
            job.reported |= job.status.is_some();
            job.status
        })
        .flatten()
    }

    /// Whether `owner` has a job that `wait -n` could report: running, or ended unreported.
    pub fn any_unreported(&self, owner: u32) -> bool {
        self.table
            .borrow()
            .iter()
            .any(|job| job.owner == owner && !job.reported)
    }

    /// The status of the first ended, unreported job of `owner` (`wait -n`), now reported.
    pub fn reap_next(&self, owner: u32) -> Option<i32> {
        let mut table = self.table.borrow_mut();
        let job = table
            .iter_mut()
            .find(|job| job.owner == owner && job.status.is_some() && !job.reported)?;
        job.reported = true;
        job.status
    }

    /// Forgets every ended job of `owner` (after a plain `wait`: bash's `wait $pid` then says
    /// the pid is not a child of this shell).
    pub fn reap_all(&self, owner: u32) {
        self.table
            .borrow_mut()
            .retain(|job| job.owner != owner || job.status.is_none());
    }

    /// Whether job `pid` (of any shell) is running.
    pub fn is_running(&self, pid: u32) -> bool {
        self.with_job(pid, |job| job.status.is_none())
            .unwrap_or(false)
    }

    /// Ends job `pid` now with `status` (`kill`: 128 + the signal); false when it is not
    /// running.
    pub fn kill(&self, pid: u32, status: i32) -> bool {
        let killed = self.with_job(pid, |job| {
            let running = job.run.take().is_some();
            if running {
                self.end(job, status);
            }
            running
        }) == Some(true);
        if killed {
            progress();
        }
        killed
    }

    fn end(&self, job: &mut Job, status: i32) {
        job.status = Some(status);
        job.ended = Some(self.ended.get());
        self.ended.set(self.ended.get() + 1);
    }

    /// The `jobs` listing of `owner`'s running jobs, one line each: `[N]+  Running  command &`
    /// (`+` the newest, `-` the one before). `pids_only`: the process ids alone (`jobs -p`).
    pub fn listing(&self, owner: u32, pids_only: bool) -> String {
        let table = self.table.borrow();
        let running: Vec<&Job> = table
            .iter()
            .filter(|job| job.owner == owner && job.status.is_none())
            .collect();
        let mut text = String::new();
        for (i, job) in running.iter().enumerate() {
            if pids_only {
                text.push_str(&format!("{}\n", job.pid));
                continue;
            }
            let mark = match running.len() - i {
                1 => '+',
                2 => '-',
                _ => ' ',
            };
            let state = "Running";
            text.push_str(&format!(
                "[{}]{mark}  {state:<24}{} &\n",
                job.number, job.command
            ));
        }
        text
    }
}

/// Waits until `ready` gives a value. Waiting is not progress: when every task waits, the
/// scheduler hands the host's pending operations over, and a job's result wakes this up.
pub async fn until<T>(mut ready: impl FnMut() -> Option<T>) -> T {
    std::future::poll_fn(move |_| ready().map_or(Poll::Pending, Poll::Ready)).await
}

/// `run` with the jobs of `jobs` polled beside it: resolves to `run`'s value once `run` and
/// every job have ended.
pub(crate) fn with_jobs(run: LocalFuture<'static, i32>, jobs: Rc<Jobs>) -> WithJobs {
    WithJobs {
        run: Some(run),
        value: None,
        jobs,
    }
}

/// The future of [`with_jobs`].
pub(crate) struct WithJobs {
    run: Option<LocalFuture<'static, i32>>,
    value: Option<i32>,
    jobs: Rc<Jobs>,
}

impl Future for WithJobs {
    type Output = i32;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<i32> {
        let mut running = self.jobs.poll_all(cx);
        if let Some(run) = self.run.as_mut() {
            if let Poll::Ready(value) = run.as_mut().poll(cx) {
                self.value = Some(value);
                self.run = None;
                progress();
                // The script may have started jobs in its last poll.
                running = self.jobs.poll_all(cx);
            }
        }
        match self.value {
            Some(value) if !running => Poll::Ready(value),
            _ => Poll::Pending,
        }
    }
}

impl Drop for WithJobs {
    fn drop(&mut self) {
        // Jobs hold copies of the shell that point back at this table: break the cycle.
        let jobs = std::mem::take(&mut *self.jobs.table.borrow_mut());
        drop(jobs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::{poll_once, yield_now};

    fn ready(value: i32) -> LocalFuture<'static, i32> {
        Box::pin(async move { value })
    }

    #[test]
    fn a_run_ends_after_its_jobs() {
        let jobs = Rc::new(Jobs::default());
        let slow = Box::pin(async {
            yield_now().await;
            yield_now().await;
            3
        });
        let pid = jobs.spawn(0, "slow".into(), |_| slow);
        let mut run: LocalFuture<'static, i32> = Box::pin(with_jobs(ready(7), Rc::clone(&jobs)));
        assert!(
            poll_once(&mut run).is_pending(),
            "the script ended, its job runs"
        );
        assert_eq!(jobs.reap(pid), None);
        assert_eq!(poll_once(&mut run), Poll::Ready(7));
        assert_eq!(jobs.reap(pid), Some(3));
    }

    #[test]
    fn specs_name_jobs_by_pid_number_and_recency() {
        let jobs = Jobs::default();
        let first = jobs.spawn(0, "a".into(), |_| ready(0));
        let second = jobs.spawn(0, "b".into(), |_| ready(1));
        let nested = jobs.spawn(second, "c".into(), |_| ready(2));
        assert_eq!(jobs.find(0, "%1"), Some(first));
        assert_eq!(jobs.find(0, "%%"), Some(second));
        assert_eq!(jobs.find(0, "%-"), Some(first));
        assert_eq!(jobs.find(0, &second.to_string()), Some(second));
        assert_eq!(jobs.find(0, "%3"), None);
        assert_eq!(jobs.find(0, "999"), None);
        assert_eq!(
            jobs.find(0, &nested.to_string()),
            None,
            "not started by the script"
        );
        assert_eq!(jobs.find(second, "%%"), Some(nested));
    }

    #[test]
    fn kill_ends_a_running_job_and_listing_shows_running_jobs() {
        let jobs = Jobs::default();
        let pid = jobs.spawn(0, "sleep 5".into(), |_| Box::pin(std::future::pending()));
        let _ = jobs.spawn(0, "sleep 6".into(), |_| Box::pin(std::future::pending()));
        assert_eq!(
            jobs.listing(0, false),
            "[1]-  Running                 sleep 5 &\n[2]+  Running                 sleep 6 &\n"
        );
        assert!(jobs.kill(pid, 143));
        assert!(!jobs.kill(pid, 143));
        assert_eq!(jobs.reap(pid), Some(143));
        assert_eq!(
            jobs.listing(0, false),
            "[2]+  Running                 sleep 6 &\n"
        );
        assert_eq!(jobs.listing(0, true), "1002\n");
    }

    #[test]
    fn job_numbers_restart_when_no_job_runs() {
        let jobs = Jobs::default();
        let first = jobs.spawn(0, "a".into(), |_| ready(0));
        assert_eq!(jobs.find(0, "%1"), Some(first));
        jobs.kill(first, 143);
        let second = jobs.spawn(0, "b".into(), |_| ready(0));
        assert_eq!(jobs.table.borrow()[1].number, 1);
        assert_ne!(first, second, "process ids are never reused");
    }

    #[test]
    fn ended_jobs_of_ended_shells_are_forgotten_and_the_latest_ended_kept() {
        let jobs = Rc::new(Jobs::default());
        let parent = jobs.spawn(0, "parent".into(), |_| Box::pin(std::future::pending()));
        let child = jobs.spawn(parent, "child".into(), |_| ready(5));
        let first = jobs.spawn(0, "first".into(), |_| Box::pin(std::future::pending()));
        let mut waker: LocalFuture<'static, i32> = Box::pin(with_jobs(
            Box::pin(std::future::pending()),
            Rc::clone(&jobs),
        ));
        assert!(poll_once(&mut waker).is_pending());
        assert_eq!(
            jobs.table.borrow().len(),
            3,
            "the child's shell may still wait for it"
        );
        jobs.kill(parent, 143);
        assert!(poll_once(&mut waker).is_pending());
        assert!(
            jobs.with_job(child, |_| ()).is_none(),
            "nobody can wait for it now"
        );
        for _ in 0..KEPT_ENDED + 10 {
            jobs.spawn(0, "true".into(), |_| ready(0));
        }
        assert!(poll_once(&mut waker).is_pending());
        jobs.kill(first, 9);
        assert!(poll_once(&mut waker).is_pending());
        assert_eq!(jobs.table.borrow().len(), KEPT_ENDED);
        assert_eq!(
            jobs.reap(first),
            Some(9),
            "the oldest pid ended last: it is kept"
        );
    }
}
