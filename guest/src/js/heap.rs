//! The JavaScript heap: every block QuickJS allocates, counted, and a way to put the whole
//! heap back as it was at one moment.
//!
//! Every execution must start in a realm that no earlier execution touched. Building one (a
//! context with every intrinsic, the prelude) costs about a millisecond; putting the heap back
//! costs a copy of the bytes it held then. So the engine takes a [`Heap::snapshot`] of the
//! sandbox's realm before its first execution, and after each execution [`Heap::rewind`]s to
//! it: every block allocated since is freed, and every block allocated before gets back the
//! bytes it had. The runtime, its realm, its atoms and shapes, the memory accounting, all of
//! it is then bit for bit what it was, whatever the execution did to the built-ins.
//!
//! What makes that sound:
//! - A block that existed at the snapshot ("pinned") is never freed while the snapshot lives:
//!   QuickJS may free it, but the memory stays, for the rewind to bring it back.
//! - Nothing outside this heap may refer to a block allocated after the snapshot once the
//!   execution is over (the engine holds no JavaScript value across executions but the ones it
//!   held at the snapshot), and nothing outside may be freed by a finalizer of a pinned object:
//!   the engine keeps every native function reachable from Rust, so none is ever finalized.
//! - Copying the bytes between two adjacent pinned blocks (the system allocator's headers) is
//!   harmless: both stay allocated, so those bytes never change (see [`MERGE_GAP`]).

use std::alloc::{alloc, alloc_zeroed, dealloc, realloc, Layout};
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use rquickjs::allocator::Allocator;

/// What every block is aligned to: the largest value QuickJS stores is 8 bytes.
const ALIGN: usize = std::mem::align_of::<u64>();

/// In front of every block: its size and its place in the list of live blocks.
#[repr(C)]
struct Header {
    /// The bytes after the header (the size QuickJS asked for, rounded up to [`ALIGN`]).
    size: usize,
    /// The block's index in [`Heap::live`], or [`PINNED`].
    slot: usize,
}

/// The header's size, a multiple of [`ALIGN`] (8 bytes on wasm32).
const HEADER: usize = std::mem::size_of::<Header>();
/// The slot of a block that existed at the snapshot.
const PINNED: usize = usize::MAX;
/// Pinned blocks closer than this are copied as one range, with the bytes between them: the
/// system allocator's smallest block is 16 bytes plus its own header, so nothing else fits in
/// such a gap, and the gap holds only the headers of two blocks that both stay allocated.
const MERGE_GAP: usize = 16;
/// Snapshot bytes are looked at in chunks this large: a chunk of zeros is kept as a length
/// only (nearly half of a fresh realm's bytes are zeros).
const ZERO_CHUNK: usize = 64;
/// A list of live blocks with room for more than this many is freed at a rewind.
const LIVE_KEPT: usize = 1 << 16;

/// The heap's blocks, its accounting and its snapshot (shared by the allocator and the engine).
#[derive(Default)]
pub struct Heap {
    /// Bytes allocated now.
    current: Cell<usize>,
    /// The most bytes allocated at once since the execution started.
    peak: Cell<usize>,
    /// The blocks allocated since the snapshot (before one: every block).
    live: RefCell<Vec<*mut Header>>,
    snapshot: RefCell<Option<Snapshot>>,
}

/// The heap as it was: its pinned blocks and their bytes.
struct Snapshot {
    /// Every pinned block (freed when the heap goes).
    blocks: Vec<*mut Header>,
    /// Runs of memory as `(address, length)`; their bytes lie back to back in `bytes`.
    ranges: Vec<(usize, usize)>,
    bytes: Vec<u8>,
    /// Runs of memory that held only zeros, as `(address, length)`.
    zeros: Vec<(usize, usize)>,
    /// [`Heap::current`] at the snapshot.
    current: usize,
}

impl Heap {
    /// Marks the start of an execution (for [`Heap::was_full`]).
    pub fn start_execution(&self) {
        self.peak.set(self.current.get());
    }

    /// Whether the execution came within `slack` bytes of `limit`.
    pub fn was_full(&self, limit: usize, slack: usize) -> bool {
        self.peak.get().saturating_add(slack) >= limit
    }

    /// Whether a snapshot was taken.
    pub fn has_snapshot(&self) -> bool {
        self.snapshot.borrow().is_some()
    }

    /// Takes the snapshot that [`Heap::rewind`] returns to: every live block is pinned, and
    /// its bytes are copied.
    pub fn snapshot(&self) {
        let blocks = std::mem::take(&mut *self.live.borrow_mut());
        let mut starts: Vec<usize> = blocks.iter().map(|&block| block as usize).collect();
        starts.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::new();
        for start in starts {
            // SAFETY: every address in `starts` is a live block's header.
            let end = start + HEADER + unsafe { (*(start as *mut Header)).size };
            match merged.last_mut() {
                Some((first, len)) if start - (*first + *len) < MERGE_GAP => *len = end - *first,
                _ => merged.push((start, end - start)),
            }
        }
        for &block in &blocks {
            // SAFETY: a live block's header (marked before the copy, so the copy says so too).
            unsafe { (*block).slot = PINNED };
        }
        let (mut ranges, mut zeros) = (Vec::new(), Vec::new());
        for &(start, len) in &merged {
            // SAFETY: a range covers live blocks and the allocator's headers between them.
            let memory = unsafe { std::slice::from_raw_parts(start as *const u8, len) };
            for (i, chunk) in memory.chunks(ZERO_CHUNK).enumerate() {
                let zero = chunk.len() == ZERO_CHUNK && chunk.iter().all(|&b| b == 0);
                let runs: &mut Vec<(usize, usize)> = if zero { &mut zeros } else { &mut ranges };
                let at = start + i * ZERO_CHUNK;
                match runs.last_mut() {
                    Some((first, run)) if *first + *run == at => *run += chunk.len(),
                    _ => runs.push((at, chunk.len())),
                }
            }
        }
        let mut bytes = Vec::with_capacity(ranges.iter().map(|(_, len)| len).sum());
        for &(start, len) in &ranges {
            // SAFETY: a part of one of the ranges above.
            bytes.extend_from_slice(unsafe { std::slice::from_raw_parts(start as *const u8, len) });
        }
        let current = self.current.get();
        *self.snapshot.borrow_mut() = Some(Snapshot {
            blocks,
            ranges,
            bytes,
            zeros,
            current,
        });
    }

    /// Puts the heap back as it was at the snapshot: frees every block allocated since and
    /// writes the pinned blocks' bytes back. False (and nothing done) without a snapshot.
    pub fn rewind(&self) -> bool {
        let snapshot = self.snapshot.borrow();
        let Some(snapshot) = snapshot.as_ref() else {
            return false;
        };
        let mut live = self.live.borrow_mut();
        for &block in live.iter() {
            // SAFETY: a live block allocated by `new_block` with this size.
            unsafe { dealloc(block.cast(), layout_of((*block).size)) };
        }
        live.clear();
        if live.capacity() > LIVE_KEPT {
            *live = Vec::new();
        }
        let mut offset = 0;
        for &(start, len) in &snapshot.ranges {
            // SAFETY: the range's memory is still allocated (pinned blocks are never freed
            // while the snapshot lives), and `bytes` holds `len` bytes for it at `offset`.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    snapshot.bytes.as_ptr().add(offset),
                    start as *mut u8,
                    len,
                );
            }
            offset += len;
        }
        for &(start, len) in &snapshot.zeros {
            // SAFETY: as above, for memory that held zeros.
            unsafe { std::ptr::write_bytes(start as *mut u8, 0, len) };
        }
        self.current.set(snapshot.current);
        self.peak.set(snapshot.current);
        true
    }

    fn grew(&self, bytes: usize) {
        let current = self.current.get() + bytes;
        self.current.set(current);
        self.peak.set(self.peak.get().max(current));
    }

    fn shrank(&self, bytes: usize) {
        self.current.set(self.current.get().saturating_sub(bytes));
    }

    /// A new block of at least `size` bytes (zeroed if asked), or null.
    fn new_block(&self, size: usize, zeroed: bool) -> *mut u8 {
        let size = size.div_ceil(ALIGN) * ALIGN;
        let Ok(layout) = Layout::from_size_align(HEADER.saturating_add(size), ALIGN) else {
            return std::ptr::null_mut();
        };
        // SAFETY: the layout is not zero-sized (it holds the header).
        let block = unsafe {
            if zeroed {
                alloc_zeroed(layout)
            } else {
                alloc(layout)
            }
        };
        if block.is_null() {
            return block;
        }
        let header = block.cast::<Header>();
        let mut live = self.live.borrow_mut();
        // SAFETY: the block is fresh, aligned and at least HEADER bytes long.
        unsafe {
            header.write(Header {
                size,
                slot: live.len(),
            })
        };
        live.push(header);
        self.grew(size);
        // SAFETY: the block is HEADER + size bytes long.
        unsafe { block.add(HEADER) }
    }

    /// Frees the block at `ptr` (a pinned block only leaves the count).
    ///
    /// # Safety
    /// `ptr` was returned by this heap and not freed since.
    unsafe fn free(&self, ptr: *mut u8) {
        // SAFETY: the caller's contract: a header lies in front of `ptr`.
        let header = unsafe { ptr.sub(HEADER) }.cast::<Header>();
        // SAFETY: as above.
        let Header { size, slot } = unsafe { header.read() };
        self.shrank(size);
        if slot == PINNED {
            return;
        }
        let mut live = self.live.borrow_mut();
        live.swap_remove(slot);
        if let Some(&moved) = live.get(slot) {
            // SAFETY: `moved` is a live block's header.
            unsafe { (*moved).slot = slot };
        }
        // SAFETY: the block was allocated by `new_block` with this size.
        unsafe { dealloc(header.cast(), layout_of(size)) };
    }

    /// Resizes the block at `ptr` (null: a new block); null if there is no room, the old
    /// block then unchanged.
    ///
    /// # Safety
    /// `ptr` is null or was returned by this heap and not freed since.
    unsafe fn resize(&self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        if ptr.is_null() {
            return self.new_block(new_size, false);
        }
        // SAFETY: the caller's contract: a header lies in front of `ptr`.
        let header = unsafe { ptr.sub(HEADER) }.cast::<Header>();
        // SAFETY: as above.
        let Header { size, slot } = unsafe { header.read() };
        if slot == PINNED {
            // The pinned block stays as it is; the data moves to a new one.
            let new = self.new_block(new_size, false);
            if !new.is_null() {
                // SAFETY: both blocks hold at least the bytes copied.
                unsafe { std::ptr::copy_nonoverlapping(ptr, new, size.min(new_size)) };
                self.shrank(size);
            }
            return new;
        }
        let new_size = new_size.div_ceil(ALIGN) * ALIGN;
        if Layout::from_size_align(HEADER.saturating_add(new_size), ALIGN).is_err() {
            return std::ptr::null_mut();
        }
        // SAFETY: the block was allocated with `layout_of(size)`; the new size is valid.
        let block = unsafe { realloc(header.cast(), layout_of(size), HEADER + new_size) };
        if block.is_null() {
            return block;
        }
        let header = block.cast::<Header>();
        // SAFETY: the header moved with the block.
        unsafe { (*header).size = new_size };
        self.live.borrow_mut()[slot] = header;
        self.shrank(size);
        self.grew(new_size);
        // SAFETY: the block is HEADER + new_size bytes long.
        unsafe { block.add(HEADER) }
    }
}

impl Drop for Heap {
    fn drop(&mut self) {
        // QuickJS has freed every block by now, except that freeing a pinned one kept it.
        if let Some(snapshot) = self.snapshot.get_mut().take() {
            for block in snapshot.blocks {
                // SAFETY: a pinned block, allocated by `new_block` with this size.
                unsafe { dealloc(block.cast(), layout_of((*block).size)) };
            }
        }
    }
}

/// The layout of a block of `size` bytes after its header.
///
/// # Safety
/// `HEADER + size` was checked to be a valid layout size when the block was allocated.
unsafe fn layout_of(size: usize) -> Layout {
    // SAFETY: the caller's contract.
    unsafe { Layout::from_size_align_unchecked(HEADER + size, ALIGN) }
}

/// QuickJS's allocator: the [`Heap`]'s blocks.
pub struct HeapAllocator(pub Rc<Heap>);

// SAFETY: every block is a fresh allocation of the global allocator, aligned to 8 and at least
// as large as asked; `usable_size` reports the size written in its header.
unsafe impl Allocator for HeapAllocator {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        self.0.new_block(size, false)
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        match count.checked_mul(size) {
            Some(0) | None => std::ptr::null_mut(),
            Some(total) => self.0.new_block(total, true),
        }
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        // SAFETY: the caller's contract.
        unsafe { self.0.free(ptr) }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract.
        unsafe { self.0.resize(ptr, new_size) }
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: the caller's contract: a header lies in front of `ptr`.
        unsafe { (*ptr.sub(HEADER).cast::<Header>()).size }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(ptr: *mut u8, byte: u8, len: usize) {
        // SAFETY: the tests write only within blocks of at least `len` bytes.
        unsafe { std::ptr::write_bytes(ptr, byte, len) };
    }

    fn bytes(ptr: *mut u8, len: usize) -> Vec<u8> {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts(ptr, len).to_vec() }
    }

    #[test]
    fn a_rewind_frees_what_came_after_and_restores_what_was_before() {
        let heap = Rc::new(Heap::default());
        let mut a = HeapAllocator(Rc::clone(&heap));
        let kept: Vec<*mut u8> = (0..50u8)
            .map(|i| {
                let p = a.alloc(24 + usize::from(i));
                fill(p, i, 24);
                p
            })
            .collect();
        let zeroed = a.calloc(1, 4096);
        let before = heap.current.get();
        heap.snapshot();
        for _ in 0..3 {
            fill(zeroed, 0x11, 4096);
            // Change, free and move pinned blocks, and leave new ones allocated.
            fill(kept[0], 0xEE, 24);
            // SAFETY: blocks of this heap, each freed or moved once per round.
            let moved = unsafe {
                a.dealloc(kept[1]);
                a.realloc(kept[2], 4096)
            };
            fill(moved, 0xDD, 4096);
            let fresh = a.calloc(10, 100);
            assert_eq!(bytes(fresh, 1000), vec![0; 1000]);
            assert!(heap.current.get() > before);
            assert!(heap.rewind());
            assert_eq!(heap.current.get(), before);
            assert!(heap.live.borrow().is_empty());
            for (i, &p) in kept.iter().enumerate() {
                assert_eq!(bytes(p, 24), vec![i as u8; 24]);
            }
            assert_eq!(bytes(zeroed, 4096), vec![0; 4096]);
        }
    }

    #[test]
    fn without_a_snapshot_blocks_come_and_go() {
        let heap = Rc::new(Heap::default());
        let mut a = HeapAllocator(Rc::clone(&heap));
        let p = a.alloc(10);
        // SAFETY: a block of this heap, freed once.
        let q = unsafe { a.realloc(p, 100) };
        assert_eq!(heap.live.borrow().len(), 1);
        // SAFETY: as above.
        unsafe { a.dealloc(q) };
        assert_eq!((heap.current.get(), heap.live.borrow().len()), (0, 0));
        assert!(!heap.rewind());
    }
}
