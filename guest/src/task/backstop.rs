//! The running execution's deadline, guest-wide: for code that never yields to the shell's
//! executor, where the shell's own checks cannot stop it.
//!
//! Two lines of defence, both on every target (the browser has no epoch backstop):
//! - [`out_of_time`], called by interpreter loops that corral controls (bc's loops and calls,
//!   jq's natives): they stop cleanly, and the shell ends the execution with status 124.
//! - The allocator's backstop, for loops inside code corral does not control (jaq's
//!   evaluation of `def f: f; f`): every [`ALLOC_CHECK_EVERY`] allocations it looks at the
//!   clock, and [`GRACE`] after a reading first found the execution out of time it traps, as
//!   the native epoch backstop does. The host recognises the trap by the line it writes first
//!   and recovers as from any trap (a fresh instance, files as of the last completed
//!   execution).

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

use super::Deadline;

thread_local! {
    /// The deadline of the execution whose code is running ([`Deadline::enter`]).
    static CURRENT: Cell<Option<Rc<Deadline>>> = const { Cell::new(None) };
    static SPINS: Cell<u32> = const { Cell::new(0) };
}

/// Allocations counted by the backstop: a plain static, since a `thread_local!` access is a
/// call at the guest's opt-level and this runs at every allocation (relaxed atomics are
/// plain loads and stores on the single-threaded guest).
static ALLOCS: AtomicU32 = AtomicU32::new(0);
/// Bytes asked for since the backstop last looked at the clock (a plain static, as [`ALLOCS`]).
static BYTES: AtomicUsize = AtomicUsize::new(0);

/// Bytes the allocator has handed out and not taken back (the guest's whole heap: QuickJS's,
/// the files', the shell's), and the most its linear memory may hold: what code that builds
/// one big value may still ask for ([`memory_left`]).
static LIVE: AtomicUsize = AtomicUsize::new(0);
static CAP: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Calls of [`out_of_time`] between two clock readings (a reading is a call out to the host).
const SPIN_CHECK_EVERY: u32 = 1024;
/// Allocations between two looks at the clock by the allocator's backstop.
const ALLOC_CHECK_EVERY: u32 = 1 << 14;
/// Bytes allocated between two looks, whatever their count: a builtin that polls nothing but
/// grows a few big buffers (QuickJS parsing a 6 MB `eval`, `JSON.stringify` of a big array)
/// made a handful of allocations a second, so the backstop never looked (nor, the deadline
/// being armed by its first look, started counting) and only the native epoch ended them.
const ALLOC_CHECK_BYTES: usize = 1 << 20;
/// How long after its deadline an execution that has not stopped by itself is trapped: half
/// the host's native backstop grace (`BACKSTOP_GRACE` in python/corral/protocol.py), so that
/// the guest's own backstop comes first on every target.
pub const GRACE: Duration = Duration::from_millis(50);

/// Keeps a deadline current (see [`Deadline::enter`]); dropping it restores the previous one.
#[must_use = "the deadline is current only while the guard lives"]
pub struct Running(Option<Rc<Deadline>>);

pub(super) fn enter(deadline: Rc<Deadline>) -> Running {
    Running(CURRENT.with(|c| c.replace(Some(deadline))))
}

impl Drop for Running {
    fn drop(&mut self) {
        let previous = self.0.take();
        drop(CURRENT.with(|c| c.replace(previous)));
    }
}

/// Runs `f` on the current deadline, if any; never allocates (the allocator calls it).
fn with_current<T>(f: impl FnOnce(&Deadline) -> T) -> Option<T> {
    CURRENT.with(|c| {
        let current = c.take();
        let result = current.as_deref().map(f);
        c.set(current);
        result
    })
}

/// Whether the running execution is out of time: for interpreter loops that run without
/// yielding to the shell's executor. Cheap (it reads the clock every [`SPIN_CHECK_EVERY`]
/// calls). Once true, the shell's deadline has fired too, so the caller only has to stop:
/// the shell reports the timeout (status 124).
pub fn out_of_time() -> bool {
    let spins = SPINS.with(|s| {
        let n = s.get().wrapping_add(1);
        s.set(n);
        n
    });
    with_current(|d| d.fired() || (spins.is_multiple_of(SPIN_CHECK_EVERY) && d.expired_now()))
        .unwrap_or(false)
}

/// [`out_of_time`], reading the clock at every call: for loops that do much work between
/// two calls.
pub fn out_of_time_now() -> bool {
    with_current(|d| d.expired_now()).unwrap_or(false)
}

/// Sets the most bytes the guest's linear memory may hold (from its configuration).
pub fn set_memory_cap(bytes: usize) {
    CAP.store(bytes, Relaxed);
}

/// Bytes the guest may still allocate, about (the allocator's own overhead and the stack
/// are not counted): for code that builds one value big enough to exhaust it, which can
/// then fail with a message instead of trapping. (Unbounded in the unit tests.)
pub fn memory_left() -> usize {
    CAP.load(Relaxed).saturating_sub(LIVE.load(Relaxed))
}

/// Counts `freed` bytes taken back and `taken` handed out.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[inline]
fn account(freed: usize, taken: usize) {
    LIVE.store(
        LIVE.load(Relaxed).wrapping_sub(freed).wrapping_add(taken),
        Relaxed,
    );
}

/// Counts an allocation of `size` bytes; every [`ALLOC_CHECK_EVERY`]-th, and after every
/// [`ALLOC_CHECK_BYTES`], whether the running execution ran on [`GRACE`] after it was found
/// out of time. (Only the WebAssembly build installs the allocator.)
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
#[inline]
fn overdue_at_alloc(size: usize) -> bool {
    let allocs = ALLOCS.load(Relaxed).wrapping_add(1);
    ALLOCS.store(allocs, Relaxed);
    let bytes = BYTES.load(Relaxed).saturating_add(size);
    BYTES.store(if bytes >= ALLOC_CHECK_BYTES { 0 } else { bytes }, Relaxed);
    (allocs.is_multiple_of(ALLOC_CHECK_EVERY) || bytes >= ALLOC_CHECK_BYTES)
        && with_current(|d| d.overdue(GRACE)).unwrap_or(false)
}

#[cfg(target_arch = "wasm32")]
mod allocator {
    use std::alloc::{GlobalAlloc, Layout, System};

    /// The system allocator, with the deadline backstop in front of every allocation.
    struct Backstopped;

    #[global_allocator]
    static ALLOCATOR: Backstopped = Backstopped;

    /// What the backstop writes to stderr before it traps (the host's `GUEST_DEADLINE_TRAP`
    /// is the same).
    const TRAP_LINE: &[u8] = b"corral: the execution ran past its deadline; trapped\n";

    extern "C" {
        /// wasi-libc's `write` (no allocation, unlike Rust's buffered stderr).
        fn write(fd: i32, buf: *const u8, len: usize) -> isize;
    }

    // SAFETY: every call goes straight to `System`; the check before it neither allocates nor
    // touches the memory concerned.
    unsafe impl GlobalAlloc for Backstopped {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if super::overdue_at_alloc(layout.size()) {
                trap();
            }
            // SAFETY: the caller upholds `GlobalAlloc`'s contract, which `System` needs.
            checked(unsafe { System.alloc(layout) }, 0, layout.size())
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            if super::overdue_at_alloc(layout.size()) {
                trap();
            }
            // SAFETY: the caller upholds `GlobalAlloc`'s contract, which `System` needs.
            checked(unsafe { System.alloc_zeroed(layout) }, 0, layout.size())
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: the caller upholds `GlobalAlloc`'s contract, which `System` needs.
            unsafe { System.dealloc(ptr, layout) };
            super::account(layout.size(), 0);
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            if super::overdue_at_alloc(new_size) {
                trap();
            }
            // SAFETY: the caller upholds `GlobalAlloc`'s contract, which `System` needs.
            checked(
                unsafe { System.realloc(ptr, layout, new_size) },
                layout.size(),
                new_size,
            )
        }
    }

    /// `ptr`, after saying on stderr that an allocation of `size` bytes failed when it is
    /// null: the guest is built with `panic=immediate-abort` (guest/toolchain.py), so the
    /// standard library traps on a failed allocation without a word, and the host tells an
    /// out-of-memory trap from others by this line (`memory allocation of`, std's wording).
    /// Else the block (of `size` bytes, replacing one of `freed`) is counted.
    fn checked(ptr: *mut u8, freed: usize, size: usize) -> *mut u8 {
        if ptr.is_null() {
            out_of_memory(size);
        } else {
            super::account(freed, size);
        }
        ptr
    }

    #[cold]
    fn out_of_memory(size: usize) {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = size;
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        let parts: [&[u8]; 3] = [
            b"corral: memory allocation of ",
            &digits[at..],
            b" bytes failed\n",
        ];
        for part in parts {
            // SAFETY: a valid buffer of `part.len()` bytes; a failed write changes nothing.
            unsafe { write(2, part.as_ptr(), part.len()) };
        }
    }

    #[cold]
    fn trap() -> ! {
        let line = TRAP_LINE;
        // SAFETY: a valid buffer of `line.len()` bytes; a failed write changes nothing.
        unsafe { write(2, line.as_ptr(), line.len()) };
        core::arch::wasm32::unreachable()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn out_of_time_follows_the_running_deadline_only() {
        let deadline = Rc::new(Deadline::default());
        deadline.set(Some(crate::task::now()));
        assert!(!(0..2 * SPIN_CHECK_EVERY).any(|_| out_of_time()));
        let running = deadline.enter();
        assert!((0..SPIN_CHECK_EVERY).any(|_| out_of_time()));
        assert!(deadline.fired() && out_of_time());
        drop(running);
        assert!(!out_of_time());
    }

    #[test]
    fn the_backstop_waits_for_the_grace() {
        let deadline = Rc::new(Deadline::default());
        deadline.set(Some(crate::task::now() + Duration::from_secs(3600)));
        let _running = deadline.enter();
        assert!(!(0..2 * ALLOC_CHECK_EVERY).any(|_| overdue_at_alloc(8)));
        deadline.set(Some(crate::task::now()));
        assert!(!(0..2 * ALLOC_CHECK_EVERY).any(|_| overdue_at_alloc(8)));
        deadline.set(Some(crate::task::now() - GRACE));
        // Long past the deadline, but only found out of time now: the grace starts now (a
        // guest that a loaded machine kept from running gets to stop itself first).
        assert!(!(0..2 * ALLOC_CHECK_EVERY).any(|_| overdue_at_alloc(8)));
        std::thread::sleep(GRACE);
        assert!((0..2 * ALLOC_CHECK_EVERY).any(|_| overdue_at_alloc(8))); // counters shared by test threads
    }

    #[test]
    fn the_backstop_looks_after_a_few_big_allocations() {
        let deadline = Rc::new(Deadline::default());
        deadline.set(Some(crate::task::now() - GRACE));
        assert!(deadline.expired_now());
        std::thread::sleep(GRACE);
        let _running = deadline.enter();
        // However many allocations came before: two of a megabyte reach the check.
        assert!((0..2).any(|_| overdue_at_alloc(ALLOC_CHECK_BYTES)));
    }
}
