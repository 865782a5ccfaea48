//! The guest's side of its two conversations with the host.
//!
//! - Host operations, which the guest asks of the host and waits for: tool calls and sleeps
//!   ([`ops`]: one queue and id space for JavaScript and the shell; [`guesthost`]: the same
//!   operations as the shell and its applets see them).
//! - Host requests, which the host makes of the guest between executions (the
//!   `corral_request` export, [`requests`]): the files ([`files`]), the shell session and the
//!   command list.

pub mod files;
pub mod guesthost;
pub mod ops;
pub mod requests;
