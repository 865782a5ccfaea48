//! A host for interpreter tests: a few tools with schemas, canned results and a denial;
//! sleeps return at once; the clock stands still unless a sleep moves it.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use serde_json::json;

use crate::applets::{Host, HostError, ToolInfo};
use crate::task::LocalFuture;
use crate::vfs::Vfs;

/// The test host.
pub struct CaseHost {
    /// Calls made: (tool, arguments JSON).
    pub calls: RefCell<Vec<(String, String)>>,
    now: Rc<Cell<f64>>,
    _vfs: Rc<RefCell<Vfs>>,
}

impl CaseHost {
    /// A host at time 1,700,000,000 s.
    pub fn new(vfs: Rc<RefCell<Vfs>>) -> CaseHost {
        CaseHost {
            calls: RefCell::new(Vec::new()),
            now: Rc::new(Cell::new(1_700_000_000_000.0)),
            _vfs: vfs,
        }
    }
}

impl Host for CaseHost {
    fn call_tool(
        &self,
        name: &str,
        args_json: String,
    ) -> LocalFuture<'static, Result<String, HostError>> {
        self.calls
            .borrow_mut()
            .push((name.to_string(), args_json.clone()));
        let result = match name {
            "weather/get" => Ok(json!({"city": serde_json::from_str::<serde_json::Value>(&args_json).ok().and_then(|v| v.get("city").cloned()), "temp": 21.5}).to_string()),
            "echo" => Ok(args_json),
            "text" => Ok("\"plain\"".into()),
            "transfer_money" => Err(HostError {
                kind: "capability".into(),
                message: "transfer_money denied: amount <= 1000 failed (amount = 5000)".into(),
            }),
            // Like the real host, messages name the tool.
            _ => Err(HostError {
                kind: "tool".into(),
                message: format!("{name} failed: RuntimeError: it broke"),
            }),
        };
        Box::pin(async move { result })
    }

    fn sleep(&self, ms: f64) -> LocalFuture<'static, ()> {
        let now = Rc::clone(&self.now);
        Box::pin(async move { now.set(now.get() + ms) })
    }

    fn now_ms(&self) -> f64 {
        self.now.get()
    }

    fn tools(&self) -> Vec<ToolInfo> {
        vec![
            ToolInfo {
                name: "weather/get".into(),
                description: "Current weather for a city.".into(),
                parameters: json!({
                    "type": "object",
                    "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                    "required": ["city"]
                }),
            },
            ToolInfo {
                name: "echo".into(),
                description: "Returns its arguments.".into(),
                parameters: json!({
                    "type": "object",
                    "properties": {
                        "n": {"type": "integer"},
                        "x": {"type": "number"},
                        "flag": {"type": "boolean"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                        "obj": {"type": "object"},
                        "s": {"type": "string"}
                    }
                }),
            },
            ToolInfo {
                name: "text".into(),
                description: "Returns a string.".into(),
                parameters: json!({"type": "object", "properties": {}}),
            },
            ToolInfo {
                name: "transfer_money".into(),
                description: "Moves money.".into(),
                parameters: json!({"type": "object", "properties": {"amount": {"type": "integer"}}}),
            },
            ToolInfo {
                name: "broken".into(),
                description: "Always fails.".into(),
                parameters: json!({"type": "object", "properties": {}}),
            },
        ]
    }
}
