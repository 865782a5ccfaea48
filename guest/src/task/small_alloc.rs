//! Small blocks reused without the system allocator: freed blocks of up to [`MAX_SMALL`]
//! bytes wait on a free list per size class (8, 16, ... 128 bytes) for the next allocation of
//! that class, at most [`KEEP`] per class (about 4 MB in all); the rest go back to the system
//! allocator.
//!
//! Why: jaq evaluates a filter through many short-lived boxed iterators and values, so jq
//! spent a fifth of its time in wasi-libc's `malloc` and `free` (dlmalloc); popping and
//! pushing a list is a few instructions. Only the WebAssembly build installs it (in the
//! guest's global allocator, `backstop.rs`); the tests run it over the host's allocator.

#![cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::ptr;

/// Size classes are multiples of this (and blocks aligned to it).
const GRAIN: usize = 8;
/// The number of size classes.
const CLASSES: usize = 16;
/// The largest block kept on a free list.
const MAX_SMALL: usize = GRAIN * CLASSES;
/// Freed blocks kept per class, at most.
const KEEP: u32 = 4096;

/// One size class's free list: each free block holds the address of the next.
struct Class {
    head: Cell<*mut u8>,
    len: Cell<u32>,
}

thread_local! {
    static FREE: [Class; CLASSES] = const {
        [const { Class { head: Cell::new(ptr::null_mut()), len: Cell::new(0) } }; CLASSES]
    };
}

/// The size class of `layout`, if its blocks are kept.
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size();
    (size > 0 && size <= MAX_SMALL && layout.align() <= GRAIN).then(|| (size - 1) / GRAIN)
}

/// The layout every block of class `class` is allocated with.
fn class_layout(class: usize) -> Layout {
    // SAFETY: a non-zero multiple of GRAIN, a power of two, far below isize::MAX.
    unsafe { Layout::from_size_align_unchecked((class + 1) * GRAIN, GRAIN) }
}

/// Allocates `layout` from the free lists or from `system`.
///
/// # Safety
/// As [`GlobalAlloc::alloc`]; blocks must be freed and resized through this module only.
pub unsafe fn alloc(system: &impl GlobalAlloc, layout: Layout) -> *mut u8 {
    let Some(class) = class_of(layout) else {
        // SAFETY: the caller's contract.
        return unsafe { system.alloc(layout) };
    };
    let reused = FREE.with(|free| {
        let list = &free[class];
        let block = list.head.get();
        if !block.is_null() {
            // SAFETY: a free block of this class holds the address of the next one.
            list.head.set(unsafe { block.cast::<*mut u8>().read() });
            list.len.set(list.len.get() - 1);
        }
        block
    });
    if reused.is_null() {
        // SAFETY: a valid, non-zero layout.
        unsafe { system.alloc(class_layout(class)) }
    } else {
        reused
    }
}

/// Allocates `layout` zeroed, as [`alloc`] does.
///
/// # Safety
/// As [`GlobalAlloc::alloc_zeroed`].
pub unsafe fn alloc_zeroed(system: &impl GlobalAlloc, layout: Layout) -> *mut u8 {
    if class_of(layout).is_none() {
        // SAFETY: the caller's contract.
        return unsafe { system.alloc_zeroed(layout) };
    }
    // SAFETY: the caller's contract; the block has at least `layout.size()` bytes.
    unsafe {
        let block = alloc(system, layout);
        if !block.is_null() {
            ptr::write_bytes(block, 0, layout.size());
        }
        block
    }
}

/// Frees a block of `layout` allocated by [`alloc`] or [`realloc`].
///
/// # Safety
/// As [`GlobalAlloc::dealloc`].
pub unsafe fn dealloc(system: &impl GlobalAlloc, block: *mut u8, layout: Layout) {
    let Some(class) = class_of(layout) else {
        // SAFETY: the caller's contract.
        return unsafe { system.dealloc(block, layout) };
    };
    let kept = FREE.with(|free| {
        let list = &free[class];
        if list.len.get() >= KEEP {
            return false;
        }
        // SAFETY: the block is at least GRAIN bytes, aligned to GRAIN, and no longer in use.
        unsafe { block.cast::<*mut u8>().write(list.head.get()) };
        list.head.set(block);
        list.len.set(list.len.get() + 1);
        true
    });
    if !kept {
        // SAFETY: small blocks are allocated with their class's layout.
        unsafe { system.dealloc(block, class_layout(class)) };
    }
}

/// Resizes a block of `layout` allocated by [`alloc`] to `new_size` bytes.
///
/// # Safety
/// As [`GlobalAlloc::realloc`].
pub unsafe fn realloc(
    system: &impl GlobalAlloc,
    block: *mut u8,
    layout: Layout,
    new_size: usize,
) -> *mut u8 {
    // SAFETY: the caller guarantees `new_size` rounded to the alignment fits in isize.
    let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
    let (old, new) = (class_of(layout), class_of(new_layout));
    if old.is_none() && new.is_none() {
        // SAFETY: the caller's contract; a large block came from `system` as it is.
        return unsafe { system.realloc(block, layout, new_size) };
    }
    if old.is_some() && old == new {
        return block; // the class's block already has room
    }
    // SAFETY: a valid layout; the copy stays within both blocks.
    unsafe {
        let moved = alloc(system, new_layout);
        if !moved.is_null() {
            ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
            dealloc(system, block, layout);
        }
        moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::alloc::System;

    fn layout(size: usize) -> Layout {
        Layout::from_size_align(size, 4).expect("a valid layout")
    }

    #[test]
    fn freed_blocks_are_reused_by_their_class_only() {
        // SAFETY: each block is used within its size and freed once, with its layout.
        unsafe {
            let a = alloc(&System, layout(20));
            dealloc(&System, a, layout(20));
            let b = alloc(&System, layout(24)); // the same class (17..=24)
            assert_eq!(a, b);
            let c = alloc(&System, layout(25)); // the next class
            assert_ne!(b, c);
            dealloc(&System, b, layout(24));
            dealloc(&System, c, layout(25));
            let big = alloc(&System, layout(MAX_SMALL + 1));
            dealloc(&System, big, layout(MAX_SMALL + 1));
            let dirty = alloc(&System, layout(40));
            ptr::write_bytes(dirty, 0xAA, 40);
            dealloc(&System, dirty, layout(40));
            let zeroed = alloc_zeroed(&System, layout(33));
            assert_eq!(zeroed, dirty);
            assert!((0..33).all(|at| *zeroed.add(at) == 0));
            dealloc(&System, zeroed, layout(33));
        }
    }

    #[test]
    fn blocks_keep_their_bytes_across_classes_and_never_overlap() {
        // SAFETY: as above; every block is written only within its current size.
        unsafe {
            let mut blocks: Vec<(*mut u8, usize)> = Vec::new();
            for i in 0..600usize {
                let size = 1 + (i * 37) % (2 * MAX_SMALL);
                let p = alloc(&System, layout(size));
                ptr::write_bytes(p, (i % 251) as u8, size);
                blocks.push((p, size));
                if i % 3 == 0 {
                    let (p, size) = blocks.swap_remove(i % blocks.len());
                    dealloc(&System, p, layout(size));
                }
            }
            for (n, (p, size)) in blocks.iter_mut().enumerate() {
                let fill = *p.add(0);
                let new_size = 1 + (n * 53) % (3 * MAX_SMALL);
                *p = realloc(&System, *p, layout(*size), new_size);
                for at in 0..(*size).min(new_size) {
                    assert_eq!(*p.add(at), fill, "block {n} byte {at}");
                }
                *size = new_size;
                ptr::write_bytes(*p, (n % 251) as u8, new_size);
            }
            for (n, (p, size)) in blocks.iter().enumerate() {
                assert!(
                    (0..*size).all(|at| *p.add(at) == (n % 251) as u8),
                    "block {n}"
                );
                dealloc(&System, *p, layout(*size));
            }
        }
    }
}
