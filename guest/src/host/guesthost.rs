//! The [`Host`] the shell and its applets see: tool calls and sleeps become host operations
//! (checked and answered by the host), time comes from the host's clock. Running a command
//! is not the host's business: the shell does it (`applets::Commands`).

use std::rc::Rc;

use crate::applets::{Host, HostError, ToolInfo};
use crate::host::ops::{HostQueue, OpKind, Owner};
use crate::protocol::ToolSpec;
use crate::task::LocalFuture;

/// Host operations for shell tasks, through the guest's one queue.
pub struct GuestHost {
    queue: Rc<HostQueue>,
    tools: Vec<ToolSpec>,
}

impl GuestHost {
    /// A host over `queue`, offering `tools`.
    pub fn new(queue: Rc<HostQueue>, tools: Vec<ToolSpec>) -> Self {
        GuestHost { queue, tools }
    }
}

impl Host for GuestHost {
    fn call_tool(
        &self,
        name: &str,
        args_json: String,
    ) -> LocalFuture<'static, Result<String, HostError>> {
        let queue = Rc::clone(&self.queue);
        let kind = OpKind::Call {
            tool: name.to_string(),
            args: args_json,
        };
        let id = queue.submit(Owner::Shell, kind);
        let result = queue.wait(id); // from now on, dropping the future abandons the call
        Box::pin(async move {
            result
                .await
                .map_err(|(kind, message)| HostError { kind, message })
        })
    }

    fn sleep(&self, ms: f64) -> LocalFuture<'static, ()> {
        let queue = Rc::clone(&self.queue);
        let ms = if ms.is_finite() { ms.max(0.0) } else { 0.0 };
        let id = queue.submit(Owner::Shell, OpKind::Sleep { ms });
        let ended = queue.wait(id); // a killed job's sleep no longer holds the execution
        Box::pin(async move {
            // A cancelled sleep ends the execution anyway; its result does not matter.
            let _ = ended.await;
        })
    }

    fn now_ms(&self) -> f64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    }

    fn tools(&self) -> Vec<ToolInfo> {
        self.tools
            .iter()
            .map(|t| ToolInfo {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.parameters.clone(),
            })
            .collect()
    }
}
