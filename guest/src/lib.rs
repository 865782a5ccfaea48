//! corral's guest: a WebAssembly reactor that runs JavaScript behind a step/resume protocol.
//!
//! Layers, in the only direction they may depend: `lib.rs` (exports) → `scheduler` →
//! `js` → `output`/`protocol`. This file only translates exports into scheduler calls.
//!
//! Calling convention: the host allocates with [`corral_alloc`], writes a frame (see
//! [`protocol`]), and passes `(ptr, len)`; the guest takes ownership. Every export returns a
//! reply frame packed as `ptr << 32 | len`, valid until the next call into the guest.

pub mod js;
pub mod output;
pub mod protocol;
pub mod scheduler;

use std::cell::RefCell;

use protocol::{Ack, Config, Frame, FrameWriter};
use scheduler::{Guest, GuestError};

thread_local! {
    static GUEST: RefCell<Option<Guest>> = const { RefCell::new(None) };
    static REPLY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Allocates `len` bytes for the host to write a message into.
#[no_mangle]
pub extern "C" fn corral_alloc(len: u32) -> u32 {
    let mut buf = vec![0u8; len as usize].into_boxed_slice();
    let ptr = buf.as_mut_ptr();
    std::mem::forget(buf);
    ptr as u32
}

/// Frees a buffer from [`corral_alloc`] that was not passed to another export.
#[no_mangle]
pub extern "C" fn corral_free(ptr: u32, len: u32) {
    drop(take_input(ptr, len));
}

fn take_input(ptr: u32, len: u32) -> Box<[u8]> {
    if len == 0 {
        return Box::new([]);
    }
    // SAFETY: the host passes back exactly a (ptr, len) pair that corral_alloc returned.
    unsafe {
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(
            ptr as *mut u8,
            len as usize,
        ))
    }
}

fn reply(bytes: Vec<u8>) -> u64 {
    REPLY.with(|r| {
        let mut r = r.borrow_mut();
        *r = bytes;
        ((r.as_ptr() as u64) << 32) | r.len() as u64
    })
}

fn ack(result: Result<(), GuestError>) -> u64 {
    let error = result.err().map(|e| e.0);
    reply(FrameWriter::default().finish(&Ack { error }))
}

fn with_guest<T>(f: impl FnOnce(&mut Guest) -> Result<T, GuestError>) -> Result<T, GuestError> {
    GUEST.with(|g| match g.borrow_mut().as_mut() {
        Some(guest) => f(guest),
        None => Err(GuestError("call corral_init first".into())),
    })
}

/// Configures the sandbox: tools and limits. Replies with an [`Ack`].
#[no_mangle]
pub extern "C" fn corral_init(ptr: u32, len: u32) -> u64 {
    let input = take_input(ptr, len);
    ack((|| {
        let config: Config = Frame::decode(&input)?.parse()?;
        let guest = Guest::new(&config)?;
        GUEST.with(|g| *g.borrow_mut() = Some(guest));
        Ok(())
    })())
}

/// Submits one execution. Replies with an [`Ack`].
#[no_mangle]
pub extern "C" fn corral_submit(ptr: u32, len: u32) -> u64 {
    let input = take_input(ptr, len);
    ack(Frame::decode(&input)
        .map_err(GuestError::from)
        .and_then(|f| with_guest(|g| g.submit(&f))))
}

/// Delivers host results. Replies with an [`Ack`].
#[no_mangle]
pub extern "C" fn corral_resume(ptr: u32, len: u32) -> u64 {
    let input = take_input(ptr, len);
    ack(Frame::decode(&input)
        .map_err(GuestError::from)
        .and_then(|f| with_guest(|g| g.resume(&f))))
}

/// Runs until blocked or done. Replies with a [`protocol::StepReply`] frame, or an [`Ack`]
/// carrying the error when the call itself was wrong.
#[no_mangle]
pub extern "C" fn corral_step() -> u64 {
    match with_guest(|g| g.step()) {
        Ok(frame) => reply(frame),
        Err(e) => ack(Err(e)),
    }
}
