//! The wire format between host and guest.
//!
//! Every message, both ways, is one frame: a little-endian `u32` length, a JSON header of that
//! length, then a blob of raw bytes. The header refers to bulk bytes (code, stdin, tool results,
//! output) by `[offset, length]` ranges into the blob, so they are never escaped or base64-encoded.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A byte range `[offset, length]` into a frame's blob.
pub type Range = (u32, u32);

/// A malformed message from the host.
#[derive(Debug)]
pub struct ProtocolError(pub String);

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "protocol error: {}", self.0)
    }
}

/// A decoded frame: the JSON header and the blob it points into.
pub struct Frame<'a> {
    /// The JSON header.
    pub header: &'a [u8],
    /// The raw bytes the header's ranges point into.
    pub blob: &'a [u8],
}

impl<'a> Frame<'a> {
    /// Splits `bytes` into header and blob.
    pub fn decode(bytes: &'a [u8]) -> Result<Self, ProtocolError> {
        let (len, rest) = bytes
            .split_first_chunk::<4>()
            .ok_or_else(|| ProtocolError("frame shorter than its length prefix".into()))?;
        let len = u32::from_le_bytes(*len) as usize;
        if len > rest.len() {
            return Err(ProtocolError("header length exceeds frame".into()));
        }
        let (header, blob) = rest.split_at(len);
        Ok(Frame { header, blob })
    }

    /// Parses the header as `T`.
    pub fn parse<T: for<'de> Deserialize<'de>>(&self) -> Result<T, ProtocolError> {
        serde_json::from_slice(self.header).map_err(|e| ProtocolError(e.to_string()))
    }

    /// The bytes of `range` in the blob.
    pub fn bytes(&self, range: Range) -> Result<&'a [u8], ProtocolError> {
        let (start, len) = (range.0 as usize, range.1 as usize);
        self.blob
            .get(start..start.saturating_add(len))
            .ok_or_else(|| ProtocolError(format!("range {start}+{len} is outside the blob")))
    }

    /// The UTF-8 text of `range` in the blob.
    pub fn text(&self, range: Range) -> Result<&'a str, ProtocolError> {
        std::str::from_utf8(self.bytes(range)?).map_err(|e| ProtocolError(e.to_string()))
    }
}

/// Room kept after a part pushed with [`FrameWriter::push_with`] for the frame's header.
const HEADER_ROOM: usize = 4096;

/// Builds an outgoing frame: bulk bytes are appended to the blob and referenced by range.
#[derive(Default)]
pub struct FrameWriter {
    blob: Vec<u8>,
}

impl FrameWriter {
    /// Appends `bytes` to the blob and returns their range.
    pub fn push(&mut self, bytes: &[u8]) -> Range {
        let start = self.blob.len() as u32;
        self.blob.extend_from_slice(bytes);
        (start, bytes.len() as u32)
    }

    /// Appends the `size` bytes that `write` writes to the blob, in place (no intermediate
    /// copy), and returns their range; room for the header is kept after them, so that
    /// [`FrameWriter::finish`] need not copy the blob either. For large parts: a saved session.
    pub fn push_with(&mut self, size: usize, write: impl FnOnce(&mut Vec<u8>)) -> Range {
        self.blob.reserve_exact(size + HEADER_ROOM);
        let start = self.blob.len();
        write(&mut self.blob);
        (start as u32, (self.blob.len() - start) as u32)
    }

    /// Serialises `header` and the blob into one frame.
    pub fn finish<T: Serialize>(self, header: &T) -> Vec<u8> {
        // Serialising our own plain structs cannot fail; fall back to an empty object regardless.
        let json = serde_json::to_vec(header).unwrap_or_else(|_| b"{}".to_vec());
        let head = 4 + json.len();
        if self.blob.capacity() - self.blob.len() >= head {
            // The header goes in front of the blob where it is: no second copy of a large blob.
            let mut out = self.blob;
            let len = out.len();
            out.resize(len + head, 0);
            out.copy_within(..len, head);
            out[..4].copy_from_slice(&(json.len() as u32).to_le_bytes());
            out[4..head].copy_from_slice(&json);
            return out;
        }
        let mut out = Vec::with_capacity(head + self.blob.len());
        out.extend_from_slice(&(json.len() as u32).to_le_bytes());
        out.extend_from_slice(&json);
        out.extend_from_slice(&self.blob);
        out
    }
}

/// A tool the guest exposes to code, as the host describes it in [`Config`].
#[derive(Deserialize, Serialize, Clone)]
pub struct ToolSpec {
    /// Canonical name, e.g. `stripe/charges/create`.
    pub name: String,
    /// One-paragraph description.
    #[serde(default)]
    pub description: String,
    /// JSON Schema of the single object argument.
    #[serde(default)]
    pub parameters: serde_json::Value,
}

/// The flat JavaScript name of a tool (and the shell's other spelling of it): each of
/// `. / - :` becomes `_`, so `stripe/charges/create` is `stripe_charges_create`. The host's
/// `corral.tools.js_name` is the same rule; its tool table refuses two tools with one name.
pub fn js_name(name: &str) -> String {
    name.chars()
        .map(|c| {
            if matches!(c, '.' | '/' | '-' | ':') {
                '_'
            } else {
                c
            }
        })
        .collect()
}

/// Namespace form of a tool name: `stripe/charges/create` is `stripe.charges.create`, and
/// `mcp:fs.read-file` is `mcp.fs.read_file` (segments split at `/ . :`, `-` becomes `_`).
pub fn namespace_path(name: &str) -> Vec<String> {
    name.split(['/', '.', ':'])
        .filter(|s| !s.is_empty())
        .map(|s| s.replace('-', "_"))
        .collect()
}

/// `init`: the sandbox configuration.
#[derive(Deserialize)]
pub struct Config {
    /// The tools callable from guest code.
    pub tools: Vec<ToolSpec>,
    /// The guest-side limits.
    pub limits: crate::limits::Limits,
    /// Read-only files to add outside the writable areas, by absolute path (the tools'
    /// TypeScript declarations at `/tools/index.d.ts`).
    #[serde(default)]
    pub files: BTreeMap<String, String>,
}

/// `submit`: one execution.
#[derive(Deserialize)]
pub struct Job {
    /// `javascript` or `shell`.
    pub language: String,
    /// The code, as a blob range.
    pub code: Range,
    /// Standard input, as a blob range.
    pub stdin: Option<Range>,
    /// Wall-clock budget for the execution, in milliseconds.
    pub timeout_ms: u64,
}

/// How a host operation failed, as the host reports it.
#[derive(Deserialize)]
pub struct OpError {
    /// `capability` (denied), `tool` (the tool raised), `argument` (bad arguments), or other.
    pub kind: String,
    /// The message the code sees.
    pub message: String,
}

/// The outcome of one host operation.
#[derive(Deserialize)]
pub struct OpResult {
    /// The operation's id, as `step` reported it.
    pub id: u64,
    /// On success: the result as JSON text, as a blob range.
    pub ok: Option<Range>,
    /// On failure: what went wrong.
    pub error: Option<OpError>,
}

/// `resume`: results for some of the pending operations, or a cancellation.
#[derive(Deserialize)]
pub struct Resume {
    /// Results, in any order; operations not listed stay pending.
    #[serde(default)]
    pub results: Vec<OpResult>,
    /// Ends the execution now with this error kind (the host sends `timeout`).
    pub cancel: Option<ErrorKind>,
}

/// An operation the guest asks the host to perform.
#[derive(Serialize)]
pub struct HostOp {
    /// Unique within the sandbox's lifetime.
    pub id: u64,
    /// `call` (a tool call) or `sleep`.
    pub kind: &'static str,
    /// The canonical tool name (calls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The arguments as JSON text, as a blob range (calls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<Range>,
    /// Milliseconds to wait (sleeps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    /// Who made the call, `js` or `shell` (calls), so the host's hints show the caller's syntax.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<&'static str>,
}

/// How an execution failed: its result's `error_kind`. These are the kinds the guest decides;
/// the host adds its own for failures that stop the guest (traps, unusable replies), and its
/// `corral.results.ErrorKind` lists them all.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// An uncaught exception (JavaScript).
    Exception,
    /// The time limit passed.
    Timeout,
    /// The code waits for something that can never happen.
    Deadlock,
}

impl ErrorKind {
    /// The exit status of an execution that failed this way: 124 for a timeout (as
    /// `timeout(1)` has it), else 1.
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Timeout => 124,
            ErrorKind::Exception | ErrorKind::Deadlock => 1,
        }
    }
}

/// Why an execution failed.
#[derive(Serialize, Clone, Debug)]
pub struct ExecError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// A message for the model: what happened and what to do instead.
    pub message: String,
}

impl ExecError {
    /// The execution ran past its `timeout` (the host's `corral.results.timeout_message` says
    /// the same when its backstop stops the guest).
    pub fn timeout(timeout: Duration) -> Self {
        ExecError {
            kind: ErrorKind::Timeout,
            message: format!(
                "TimeoutError: execution exceeded the {} s time limit and was stopped; do less \
                 work per execution or raise Limits(timeout=...)",
                timeout.as_secs_f64()
            ),
        }
    }

    /// The host ended the execution with `kind` (see [`Resume::cancel`]).
    pub fn cancelled(kind: ErrorKind, timeout: Duration) -> Self {
        match kind {
            ErrorKind::Timeout => ExecError::timeout(timeout),
            kind => ExecError {
                kind,
                message: "execution cancelled by the host".into(),
            },
        }
    }
}

/// The end of an execution.
#[derive(Serialize)]
pub struct Outcome {
    /// 0 on success.
    pub exit_code: i32,
    /// The returned value as JSON text, if the code returned a JSON-representable value.
    pub value: Option<Range>,
    /// Set when the execution failed.
    pub error: Option<ExecError>,
    /// The filesystem's change counter: the host snapshots the files when it moved.
    pub fs_generation: u64,
}

/// What `step` returns.
#[derive(Serialize)]
pub struct StepReply {
    /// `blocked` (waiting on `ops` or earlier ones) or `done`.
    pub status: &'static str,
    /// Operations requested since the last step.
    pub ops: Vec<HostOp>,
    /// Standard output produced since the last step.
    pub stdout: Range,
    /// Standard error produced since the last step.
    pub stderr: Range,
    /// Set when `status` is `done`.
    pub outcome: Option<Outcome>,
    /// With the outcome: the shell session as `shell_save` gives it, so that the host's
    /// checkpoint after an execution needs no second call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<Range>,
}

/// A reply that only says whether a call worked.
#[derive(Serialize)]
pub struct Ack {
    /// `None` when the call succeeded.
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::{js_name, namespace_path, ErrorKind, ExecError, Resume};
    use std::time::Duration;

    #[test]
    fn error_kinds_travel_as_the_hosts_strings() {
        let kinds = [
            ErrorKind::Exception,
            ErrorKind::Timeout,
            ErrorKind::Deadlock,
        ];
        let names: Vec<String> = kinds
            .iter()
            .map(|k| serde_json::to_string(k).unwrap_or_default())
            .collect();
        assert_eq!(names, ["\"exception\"", "\"timeout\"", "\"deadlock\""]);
        assert_eq!(kinds.map(ErrorKind::exit_code), [1, 124, 1]);
    }

    #[test]
    fn a_cancellation_names_a_known_kind() {
        let resume: Resume = serde_json::from_str(r#"{"cancel": "timeout"}"#).expect("resume");
        let error =
            ExecError::cancelled(resume.cancel.expect("cancel"), Duration::from_millis(1500));
        assert_eq!(
            error.message,
            "TimeoutError: execution exceeded the 1.5 s time limit and was stopped; do less work \
             per execution or raise Limits(timeout=...)"
        );
        assert!(serde_json::from_str::<Resume>(r#"{"cancel": "later"}"#).is_err());
    }

    #[test]
    fn js_names_replace_separators() {
        assert_eq!(js_name("stripe/charges/create"), "stripe_charges_create");
        assert_eq!(js_name("mcp:fs.read-file"), "mcp_fs_read_file");
    }

    #[test]
    fn namespace_paths_split_at_separators() {
        assert_eq!(
            namespace_path("stripe/charges/create"),
            ["stripe", "charges", "create"]
        );
        assert_eq!(
            namespace_path("mcp:fs.read-file"),
            ["mcp", "fs", "read_file"]
        );
        assert_eq!(namespace_path("get_weather"), ["get_weather"]);
    }
}
