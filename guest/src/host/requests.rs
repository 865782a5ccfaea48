//! Host requests: what the host asks of the guest between executions, through the
//! `corral_request` export. `shell_reset`, `shell_save` (the session's state in the blob),
//! `shell_restore` and `info` (the names of the shell's commands) are answered here; every
//! other operation is a file operation ([`super::files`]). Each reply carries the
//! filesystem's change counter, `generation`.

use std::cell::RefCell;

use serde::{Deserialize, Serialize};

use crate::protocol::{Frame, FrameWriter, ProtocolError, Range};
use crate::shell::interp::Shell;
use crate::vfs::Vfs;

/// The fields of a request that this module reads (file operations read theirs).
#[derive(Deserialize)]
struct Request {
    op: String,
    #[serde(default)]
    data: Option<Range>,
}

#[derive(Serialize, Default)]
struct Reply {
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Range>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    commands: Option<Vec<String>>,
    generation: u64,
}

/// Answers one request frame with a reply frame.
pub fn handle(
    vfs: &RefCell<Vfs>,
    shell: &Shell,
    frame: &Frame<'_>,
) -> Result<Vec<u8>, ProtocolError> {
    let request: Request = frame.parse()?;
    let mut writer = FrameWriter::default();
    let mut reply = Reply::default();
    match request.op.as_str() {
        "shell_reset" => shell.reset(),
        "shell_save" => reply.data = Some(shell.save_state_to(&mut writer)),
        "shell_restore" => {
            let bytes = match request.data {
                Some(range) => frame.bytes(range)?,
                None => &[],
            };
            reply.error = shell.restore_state(bytes).err();
        }
        "info" => reply.commands = Some(commands()),
        _ => return super::files::handle(&mut vfs.borrow_mut(), frame),
    }
    reply.generation = vfs.borrow().generation();
    Ok(writer.finish(&reply))
}

/// Every command name the shell knows: applets and builtins.
fn commands() -> Vec<String> {
    let mut names: Vec<String> = crate::applets::all().map(|a| a.name.to_string()).collect();
    names.extend(crate::shell::builtins::all().map(|b| b.name.to_string()));
    crate::sort::sort(&mut names);
    names.dedup();
    names
}
