//! corral's guest: a WebAssembly reactor that runs JavaScript and a bash-like shell behind a
//! step/resume protocol.
//!
//! Layers, in the only direction they may depend: `lib.rs` (exports) → `scheduler` →
//! `js` / `shell` → `applets` → `task` (executor, pipes) → `vfs`, `output`, `protocol`
//! (and `sort`, used by all).
//! This file only translates exports into scheduler calls.
//!
//! Calling convention: the host writes a frame (see [`protocol`]) into the inbox
//! ([`corral_inbox`]) and passes its length. Every export returns a reply frame packed as
//! `ptr << 32 | len`, valid until the next call into the guest. `submit` and `resume` also
//! step, so an execution without tool calls is one call into the guest.

pub mod applets;
pub mod entropy;
pub mod host;
pub mod js;
pub mod limits;
pub mod output;
pub mod protocol;
pub mod scheduler;
pub mod shell;
pub mod sort;
pub mod task;
pub mod vfs;

use std::cell::RefCell;

use protocol::{Ack, Config, Frame, FrameWriter};
use scheduler::{Guest, GuestError};

thread_local! {
    static GUEST: RefCell<Option<Guest>> = const { RefCell::new(None) };
    static INBOX: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static REPLY: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// The address of the inbox, grown to hold at least `len` bytes. The host writes each message
/// there and passes its length; the address stays valid until the inbox grows again.
#[no_mangle]
pub extern "C" fn corral_inbox(len: u32) -> u32 {
    release_reply();
    INBOX.with(|inbox| {
        let mut inbox = inbox.borrow_mut();
        if inbox.len() < len as usize {
            inbox.resize(len as usize, 0);
        }
        inbox.as_ptr() as u32
    })
}

/// An inbox up to this size is kept between calls; a larger one is freed after the call that
/// used it, and the host asks for a new one (the host's `INBOX_KEPT` is the same).
const INBOX_KEPT: usize = 4 * 1024 * 1024;

/// Runs `f` on the first `len` bytes of the inbox.
fn with_inbox<T>(len: u32, f: impl FnOnce(&[u8]) -> T) -> T {
    release_reply();
    // Taken out while in use: nothing writes to the inbox during a call into the guest.
    let inbox = INBOX.with(|inbox| std::mem::take(&mut *inbox.borrow_mut()));
    let result = f(inbox.get(..len as usize).unwrap_or_default());
    if inbox.len() <= INBOX_KEPT {
        INBOX.with(|slot| *slot.borrow_mut() = inbox);
    }
    result
}

/// Frees the previous reply (the host has read it by now), so that a large one (a saved
/// session) is not held while the next is built.
fn release_reply() {
    REPLY.with(|r| *r.borrow_mut() = Vec::new());
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
pub extern "C" fn corral_init(len: u32) -> u64 {
    ack(with_inbox(len, |input| {
        let config: Config = Frame::decode(input)?.parse()?;
        let guest = Guest::new(&config)?;
        GUEST.with(|g| *g.borrow_mut() = Some(guest));
        Ok(())
    }))
}

/// Gives this sandbox its own randomness and clock after `corral_init`: `Math.random`'s and
/// `$RANDOM`'s seeds, the shell's start time, the files' times, all from the inbox (an
/// [`entropy::Seeds`] message, [`entropy::Seeds::LEN`] bytes; nothing is asked of the host
/// meanwhile). The host calls it once per sandbox, so a sandbox restored from a
/// pre-initialized memory image (made once, with the host's throwaway entropy) differs from
/// its siblings exactly as one initialized afresh would. Replies with an [`Ack`].
#[no_mangle]
pub extern "C" fn corral_reseed(len: u32) -> u64 {
    ack(with_inbox(len, |input| {
        let seeds = entropy::Seeds::parse(input).ok_or_else(|| {
            GuestError(format!(
                "corral_reseed takes {} bytes of seeds, got {len}",
                entropy::Seeds::LEN
            ))
        })?;
        with_guest(|g| {
            g.reseed(&seeds);
            Ok(())
        })
    }))
}

/// Submits one execution and runs it until blocked or done: replies like [`corral_step`].
#[no_mangle]
pub extern "C" fn corral_submit(len: u32) -> u64 {
    step_after(with_inbox(len, |input| {
        Frame::decode(input)
            .map_err(GuestError::from)
            .and_then(|f| with_guest(|g| g.submit(&f)))
    }))
}

/// Delivers host results, then runs until blocked or done: replies like [`corral_step`].
#[no_mangle]
pub extern "C" fn corral_resume(len: u32) -> u64 {
    step_after(with_inbox(len, |input| {
        Frame::decode(input)
            .map_err(GuestError::from)
            .and_then(|f| with_guest(|g| g.resume(&f)))
    }))
}

/// Runs until blocked or done. Replies with a [`protocol::StepReply`] frame, or an [`Ack`]
/// carrying the error when the call itself was wrong.
#[no_mangle]
pub extern "C" fn corral_step() -> u64 {
    release_reply();
    step_after(Ok(()))
}

/// A host request: the files, the shell session, the command list (see [`host::requests`]);
/// refused while an execution runs.
#[no_mangle]
pub extern "C" fn corral_request(len: u32) -> u64 {
    let result = large_write(len).unwrap_or_else(|| {
        with_inbox(len, |input| {
            let frame = Frame::decode(input)?;
            with_guest(|g| g.host_request(&frame))
        })
    });
    match result {
        Ok(frame) => reply(frame),
        Err(e) => ack(Err(e)),
    }
}

/// A host `write` of a file larger than the inbox kept between calls: the inbox (freed after
/// the call anyway) becomes the file's buffer, its contents moved to its start, so linear
/// memory holds the file once. `None` for any other request.
fn large_write(len: u32) -> Option<Result<Vec<u8>, GuestError>> {
    let found = INBOX.with(|inbox| -> Result<_, protocol::ProtocolError> {
        let inbox = inbox.borrow();
        if inbox.len() <= INBOX_KEPT {
            return Ok(None);
        }
        let base = inbox.as_ptr() as usize;
        let frame = Frame::decode(inbox.get(..len as usize).unwrap_or_default())?;
        let write = host::files::large_write(&frame, INBOX_KEPT)?;
        Ok(write.map(|(path, data)| (path, data.as_ptr() as usize - base, data.len())))
    });
    let (path, start, size) = match found {
        Ok(found) => found?,
        Err(e) => return Some(Err(GuestError::from(e))),
    };
    release_reply();
    let mut contents = INBOX.with(|inbox| std::mem::take(&mut *inbox.borrow_mut()));
    contents.copy_within(start..start + size, 0);
    contents.truncate(size);
    contents.shrink_to_fit();
    Some(with_guest(|g| g.host_write(&path, contents)))
}

fn step_after(previous: Result<(), GuestError>) -> u64 {
    match previous.and_then(|()| with_guest(|g| g.step())) {
        Ok(frame) => reply(frame),
        Err(e) => ack(Err(e)),
    }
}
