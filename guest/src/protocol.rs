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
        self.finish_with(&json)
    }

    /// The frame of `head` (a header already encoded) and the blob.
    pub fn finish_with(self, head: &[u8]) -> Vec<u8> {
        let start = 4 + head.len();
        if self.blob.capacity() - self.blob.len() >= start {
            // The header goes in front of the blob where it is: no second copy of a large blob.
            let mut out = self.blob;
            let len = out.len();
            out.resize(len + start, 0);
            out.copy_within(..len, start);
            out[..4].copy_from_slice(&(head.len() as u32).to_le_bytes());
            out[4..start].copy_from_slice(head);
            return out;
        }
        let mut out = Vec::with_capacity(start + self.blob.len());
        out.extend_from_slice(&(head.len() as u32).to_le_bytes());
        out.extend_from_slice(head);
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

/// Reads a binary header's little-endian fields in order, each checked against its length.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], ProtocolError> {
        let (field, rest) = self
            .0
            .split_first_chunk::<N>()
            .ok_or_else(|| ProtocolError("a header shorter than its fields".into()))?;
        self.0 = rest;
        Ok(*field)
    }

    fn u8(&mut self) -> Result<u8, ProtocolError> {
        Ok(self.take::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, ProtocolError> {
        Ok(u32::from_le_bytes(self.take()?))
    }

    fn u64(&mut self) -> Result<u64, ProtocolError> {
        Ok(u64::from_le_bytes(self.take()?))
    }

    fn range(&mut self) -> Result<Range, ProtocolError> {
        Ok((self.u32()?, self.u32()?))
    }

    /// Fails unless every byte was read (a header of another size is not this one).
    fn end(&self) -> Result<(), ProtocolError> {
        match self.0.len() {
            0 => Ok(()),
            extra => Err(ProtocolError(format!(
                "{extra} bytes after a header's fields"
            ))),
        }
    }
}

/// [`Job::language`]: JavaScript.
pub const JAVASCRIPT: u8 = 0;
/// [`Job::language`]: the shell.
pub const SHELL: u8 = 1;

/// `submit`: one execution. Its header is binary, as the host writes it (`corral.protocol`'s
/// `_JOB`), little-endian, at offset: 0 `u8` the language ([`JAVASCRIPT`], [`SHELL`]); 1
/// `u8` flags (1: stdin); 2 two zeros; 4 `u64` the time limit in milliseconds; 12 the
/// code's range; 20 stdin's range (`u32` start, `u32` length). Serde's JSON parse of it
/// was about 1 % of a tool call's time.
pub struct Job {
    /// [`JAVASCRIPT`] or [`SHELL`] (any other is refused when the job starts).
    pub language: u8,
    /// The code, as a blob range.
    pub code: Range,
    /// Standard input, as a blob range.
    pub stdin: Option<Range>,
    /// Wall-clock budget for the execution, in milliseconds.
    pub timeout_ms: u64,
}

impl Job {
    /// Reads the header of a `submit` frame.
    pub fn decode(frame: &Frame<'_>) -> Result<Self, ProtocolError> {
        let mut fields = Fields(frame.header);
        let (language, flags, _) = (fields.u8()?, fields.u8()?, fields.take::<2>()?);
        let timeout_ms = fields.u64()?;
        let (code, stdin) = (fields.range()?, fields.range()?);
        fields.end()?;
        let stdin = (flags & 1 != 0).then_some(stdin);
        Ok(Job {
            language,
            code,
            stdin,
            timeout_ms,
        })
    }
}

/// A result's ranges in the blob: its JSON, or an error's kind and message.
pub type OpOutcome = Result<Range, (Range, Range)>;

/// The outcome of one host operation.
pub struct OpResult {
    /// The operation's id, as `step` reported it.
    pub id: u64,
    /// On success the result as JSON text; on failure the kind of failure (`capability`:
    /// denied, `tool`: the tool raised, `argument`: bad arguments...) and the message the
    /// code sees: blob ranges.
    pub outcome: OpOutcome,
}

/// The size of a resume's fixed header.
pub const RESUME_HEADER: usize = 16;
/// The size of each result's row after it.
pub const RESULT_ROW: usize = 28;

/// `resume`: results for some of the pending operations, or a cancellation. Its header is
/// binary, as the host writes it (`corral.protocol`'s `_RESUME`), little-endian, at offset: 0
/// `u8` flags (1: cancel, 2: a clock reading); 1 `u8` the cancellation's [`ErrorKind`]; 2
/// two zeros; 4 `u32` the number of results; 8 `u64` the clock reading; 16 one
/// [`RESULT_ROW`]-byte row per result: `u64` id, `u8` 0 (ok: the JSON's range, then a zero
/// range) or 1 (an error: its kind's range, its message's range), three zeros.
pub struct Resume {
    /// Results, in any order; operations not listed stay pending.
    pub results: Vec<OpResult>,
    /// Ends the execution now with this error kind (the host sends a timeout).
    pub cancel: Option<ErrorKind>,
    /// The monotonic clock in nanoseconds when the guest's step reply came back, if it asked
    /// (its deadline starts then: see [`StepReply`]'s flags).
    pub clock: Option<u64>,
}

impl Resume {
    /// Reads the header of a `resume` frame.
    pub fn decode(frame: &Frame<'_>) -> Result<Self, ProtocolError> {
        let mut fields = Fields(frame.header);
        let (flags, cancel, _) = (fields.u8()?, fields.u8()?, fields.take::<2>()?);
        let (count, clock) = (fields.u32()? as usize, fields.u64()?);
        // Checked before anything is allocated for the rows.
        if count.checked_mul(RESULT_ROW) != Some(fields.0.len()) {
            return Err(ProtocolError(format!(
                "a resume of {count} results and {} bytes",
                frame.header.len()
            )));
        }
        let cancel = match (flags & 1 != 0).then_some(cancel) {
            None => None,
            Some(number) => Some(
                ErrorKind::from_number(number)
                    .ok_or_else(|| ProtocolError(format!("unknown error kind {number}")))?,
            ),
        };
        let mut results = Vec::with_capacity(count);
        for _ in 0..count {
            let (id, kind, _) = (fields.u64()?, fields.u8()?, fields.take::<3>()?);
            let (first, second) = (fields.range()?, fields.range()?);
            let outcome = match kind {
                0 => Ok(first),
                1 => Err((first, second)),
                other => return Err(ProtocolError(format!("unknown result kind {other}"))),
            };
            results.push(OpResult { id, outcome });
        }
        let clock = (flags & 2 != 0).then_some(clock);
        Ok(Resume {
            results,
            cancel,
            clock,
        })
    }
}

/// An operation the guest asks the host to perform: a row of [`StepReply`]'s header.
pub struct HostOp {
    /// Unique within the sandbox's lifetime.
    pub id: u64,
    /// [`CALL_FROM_JS`], [`CALL_FROM_SHELL`] (who called: the host's hints use the caller's
    /// syntax) or [`SLEEP`].
    pub kind: u8,
    /// The canonical tool name (calls), as a blob range.
    pub tool: Range,
    /// The arguments as JSON text (calls), as a blob range.
    pub args: Range,
    /// Milliseconds to wait (sleeps).
    pub ms: f64,
}

/// [`HostOp::kind`]: a tool call made by JavaScript.
pub const CALL_FROM_JS: u8 = 0;
/// [`HostOp::kind`]: a tool call made by the shell (`tool NAME ...`).
pub const CALL_FROM_SHELL: u8 = 1;
/// [`HostOp::kind`]: a sleep.
pub const SLEEP: u8 = 2;

/// How an execution failed: its result's `error_kind`. These are the kinds the guest decides;
/// the host adds its own for failures that stop the guest (traps, unusable replies), and its
/// `corral.results.ErrorKind` lists them all.
/// Its number is what travels in [`StepReply`]'s and [`Resume`]'s headers (0 is no error).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ErrorKind {
    /// An uncaught exception (JavaScript).
    Exception = 1,
    /// The time limit passed.
    Timeout = 2,
    /// The code waits for something that can never happen.
    Deadlock = 3,
}

impl ErrorKind {
    /// The kind of number `number` (as the header carries it), if any.
    pub fn from_number(number: u8) -> Option<Self> {
        [Self::Exception, Self::Timeout, Self::Deadlock]
            .into_iter()
            .find(|&kind| kind as u8 == number)
    }

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
#[derive(Clone, Debug)]
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

/// What `step` returns: not JSON but a binary header, read by the host with `struct` (two
/// JSON decodes per tool call were a tenth of the host's time). Little-endian, at offset:
/// 0 `u8` done (1) or blocked (0); 1 `u8` the error kind (0: none); 2 `u8` flags (1: a
/// value, 2: a session, 4: send the clock with the resume); 3 zero; 4 `i32` exit code; 8
/// `u64` the files' generation; 16 five ranges (`u32` start, `u32` length): stdout, stderr,
/// value, error message, session; 56 `u32` the number of operations; 60 one
/// [`OP_ROW`]-byte row per operation: `u64` id, `u8` kind, three zeros, the tool's range,
/// the arguments' range, `f64` milliseconds. The host's `corral.protocol` reads the same.
pub struct StepReply {
    /// Operations requested since the last step (none once done).
    pub ops: Vec<HostOp>,
    /// Standard output produced since the last step.
    pub stdout: Range,
    /// Standard error produced since the last step.
    pub stderr: Range,
    /// Set when the execution is over.
    pub outcome: Option<Outcome>,
    /// With the outcome: the shell session as `shell_save` gives it, so that the host's
    /// checkpoint after an execution needs no second call.
    pub session: Option<Range>,
    /// Whether the guest wants the monotonic clock's reading now in the resume
    /// ([`Resume::clock`]): its deadline has yet to start, and the wait must count (the
    /// host reads it for one less call out of the guest; a trace records it as before).
    pub clock: bool,
}

/// The size of a step reply's fixed header.
pub const STEP_HEADER: usize = 60;
/// The size of each operation's row after it.
pub const OP_ROW: usize = 36;

impl StepReply {
    /// The reply frame: the header above, then `writer`'s blob (the error message is added
    /// to it here).
    pub fn finish(self, mut writer: FrameWriter) -> Vec<u8> {
        let done = self.outcome.as_ref();
        let error = done.and_then(|o| o.error.as_ref());
        let message = error.map_or((0, 0), |e| writer.push(e.message.as_bytes()));
        let value = done.and_then(|o| o.value);
        let flags = u8::from(value.is_some())
            | (u8::from(self.session.is_some()) << 1)
            | (u8::from(self.clock) << 2);
        let mut head = Vec::with_capacity(STEP_HEADER + OP_ROW * self.ops.len());
        let kind = error.map_or(0, |e| e.kind as u8);
        head.extend_from_slice(&[u8::from(done.is_some()), kind, flags, 0]);
        head.extend_from_slice(&done.map_or(0, |o| o.exit_code).to_le_bytes());
        head.extend_from_slice(&done.map_or(0, |o| o.fs_generation).to_le_bytes());
        let ranges = [
            self.stdout,
            self.stderr,
            value.unwrap_or_default(),
            message,
            self.session.unwrap_or_default(),
        ];
        let count = self.ops.len() as u32;
        let words = ranges.iter().flat_map(|&(start, len)| [start, len]);
        for word in words.chain([count]) {
            head.extend_from_slice(&word.to_le_bytes());
        }
        for op in &self.ops {
            head.extend_from_slice(&op.id.to_le_bytes());
            head.extend_from_slice(&[op.kind, 0, 0, 0]);
            for word in [op.tool.0, op.tool.1, op.args.0, op.args.1] {
                head.extend_from_slice(&word.to_le_bytes());
            }
            head.extend_from_slice(&op.ms.to_le_bytes());
        }
        writer.finish_with(&head)
    }
}

/// A reply that only says whether a call worked.
#[derive(Serialize)]
pub struct Ack {
    /// `None` when the call succeeded.
    pub error: Option<String>,
}

/// A step reply as the JSON it used to be (`status`, `ops`, `outcome`...), and its blob: for
/// tests, which read replies by field name.
#[cfg(test)]
pub fn step_reply_json(reply: &[u8]) -> (serde_json::Value, Vec<u8>) {
    use serde_json::json;
    let frame = Frame::decode(reply).expect("a frame");
    let (head, blob) = (frame.header, frame.blob);
    let word = |at: usize| u32::from_le_bytes(head[at..at + 4].try_into().expect("4 bytes"));
    let range = |at: usize| json!([word(at), word(at + 4)]);
    let text = |at: usize| {
        let (start, len) = (word(at) as usize, word(at + 4) as usize);
        String::from_utf8_lossy(&blob[start..start + len]).into_owned()
    };
    let kinds = ["", "exception", "timeout", "deadlock"];
    let ops: Vec<serde_json::Value> = (0..word(56) as usize)
        .map(|index| {
            let at = STEP_HEADER + index * OP_ROW;
            let id = u64::from_le_bytes(head[at..at + 8].try_into().expect("8 bytes"));
            let ms = f64::from_le_bytes(head[at + 28..at + 36].try_into().expect("8 bytes"));
            match head[at + 8] {
                SLEEP => json!({"id": id, "kind": "sleep", "ms": ms}),
                from => {
                    let caller = ["js", "shell"][from as usize];
                    json!({"id": id, "kind": "call", "tool": text(at + 12),
                        "args": range(at + 20), "from": caller})
                }
            }
        })
        .collect();
    let outcome = (head[0] == 1).then(|| {
        let error =
            (head[1] != 0).then(|| json!({"kind": kinds[head[1] as usize], "message": text(40)}));
        json!({
            "exit_code": i32::from_le_bytes(head[4..8].try_into().expect("4 bytes")),
            "value": (head[2] & 1 != 0).then(|| range(32)),
            "error": error,
            "fs_generation": u64::from_le_bytes(head[8..16].try_into().expect("8 bytes")),
        })
    });
    let mut reply = json!({
        "status": if head[0] == 1 { "done" } else { "blocked" },
        "ops": ops, "stdout": range(16), "stderr": range(24), "outcome": outcome,
    });
    if head[2] & 2 != 0 {
        reply["session"] = range(48);
    }
    if head[2] & 4 != 0 {
        reply["clock"] = json!(true);
    }
    (reply, blob.to_vec())
}

/// A `submit` frame as the host writes it (for tests).
#[cfg(test)]
pub fn job_frame(language: u8, code: &str, timeout_ms: u64) -> Vec<u8> {
    let mut head = vec![language, 0, 0, 0];
    head.extend_from_slice(&timeout_ms.to_le_bytes());
    for word in [0, code.len() as u32, 0, 0] {
        head.extend_from_slice(&word.to_le_bytes());
    }
    FrameWriter {
        blob: code.as_bytes().to_vec(),
    }
    .finish_with(&head)
}

/// A `resume` frame as the host writes it (for tests): `(id, Ok(json) or Err((kind,
/// message)))` rows, a cancellation's error kind number, the blob.
#[cfg(test)]
pub fn resume_frame(results: &[(u64, OpOutcome)], cancel: Option<u8>, blob: &[u8]) -> Vec<u8> {
    let mut head = vec![u8::from(cancel.is_some()), cancel.unwrap_or(0), 0, 0];
    head.extend_from_slice(&(results.len() as u32).to_le_bytes());
    head.extend_from_slice(&0u64.to_le_bytes());
    for &(id, outcome) in results {
        head.extend_from_slice(&id.to_le_bytes());
        let (kind, (first, second)) = match outcome {
            Ok(range) => (0, (range, (0, 0))),
            Err(ranges) => (1, ranges),
        };
        head.extend_from_slice(&[kind, 0, 0, 0]);
        for word in [first.0, first.1, second.0, second.1] {
            head.extend_from_slice(&word.to_le_bytes());
        }
    }
    FrameWriter {
        blob: blob.to_vec(),
    }
    .finish_with(&head)
}

#[cfg(test)]
mod tests {
    use super::{
        job_frame, js_name, namespace_path, resume_frame, step_reply_json, ErrorKind, ExecError,
        Frame, FrameWriter, HostOp, Job, Outcome, Resume, StepReply, CALL_FROM_SHELL, JAVASCRIPT,
        OP_ROW, RESULT_ROW, RESUME_HEADER, SLEEP, STEP_HEADER,
    };
    use std::time::Duration;

    #[test]
    fn error_kinds_travel_as_the_hosts_numbers() {
        // The host's corral.protocol reads and sends the numbers (1, 2, 3).
        let kinds = [
            ErrorKind::Exception,
            ErrorKind::Timeout,
            ErrorKind::Deadlock,
        ];
        assert_eq!(kinds.map(|k| k as u8), [1, 2, 3]);
        assert_eq!([1, 2, 3].map(ErrorKind::from_number), kinds.map(Some));
        assert_eq!(ErrorKind::from_number(0), None);
        assert_eq!(ErrorKind::from_number(4), None);
        assert_eq!(kinds.map(ErrorKind::exit_code), [1, 124, 1]);
    }

    #[test]
    fn a_step_reply_header_holds_its_fields_at_fixed_offsets() {
        let mut writer = FrameWriter::default();
        let tool = writer.push(b"a/b");
        let args = writer.push(b"{}");
        let ops = vec![
            HostOp {
                id: 7,
                kind: CALL_FROM_SHELL,
                tool,
                args,
                ms: 0.0,
            },
            HostOp {
                id: 8,
                kind: SLEEP,
                tool: (0, 0),
                args: (0, 0),
                ms: 2.5,
            },
        ];
        let out = writer.push(b"hi");
        let reply = StepReply {
            ops,
            stdout: out,
            stderr: (0, 0),
            outcome: None,
            session: None,
            clock: true,
        };
        let frame = reply.finish(writer);
        let head = Frame::decode(&frame).expect("frame").header;
        assert_eq!((head.len(), head[2]), (STEP_HEADER + 2 * OP_ROW, 4));
        let (json, blob) = step_reply_json(&frame);
        assert_eq!(json["status"], "blocked");
        assert_eq!(json["ops"][0]["tool"], "a/b");
        assert_eq!(json["ops"][0]["from"], "shell");
        assert_eq!(json["ops"][1]["ms"], 2.5);
        assert_eq!(json["clock"], true);
        assert_eq!(&blob[5..7], b"hi");
        let mut writer = FrameWriter::default();
        let value = Some(writer.push(b"3"));
        let error = Some(ExecError {
            kind: ErrorKind::Timeout,
            message: "late".into(),
        });
        let outcome = Some(Outcome {
            exit_code: 124,
            value,
            error,
            fs_generation: 9,
        });
        let reply = StepReply {
            ops: vec![],
            stdout: (0, 0),
            stderr: (0, 0),
            outcome,
            session: Some((0, 1)),
            clock: false,
        };
        let (json, _) = step_reply_json(&reply.finish(writer));
        assert_eq!(json["outcome"]["error"]["kind"], "timeout");
        assert_eq!(json["outcome"]["error"]["message"], "late");
        assert_eq!(json["outcome"]["value"], serde_json::json!([0, 1]));
        assert_eq!(
            (
                json["outcome"]["exit_code"].as_i64(),
                json["outcome"]["fs_generation"].as_u64()
            ),
            (Some(124), Some(9))
        );
        assert_eq!(json["session"], serde_json::json!([0, 1]));
    }

    #[test]
    fn a_cancellation_names_a_known_kind() {
        let bytes = resume_frame(&[], Some(2), b"");
        let resume = Resume::decode(&Frame::decode(&bytes).expect("frame")).expect("resume");
        let error =
            ExecError::cancelled(resume.cancel.expect("cancel"), Duration::from_millis(1500));
        assert_eq!(
            error.message,
            "TimeoutError: execution exceeded the 1.5 s time limit and was stopped; do less work \
             per execution or raise Limits(timeout=...)"
        );
        let bytes = resume_frame(&[], Some(9), b"");
        assert!(Resume::decode(&Frame::decode(&bytes).expect("frame")).is_err());
    }

    #[test]
    fn a_resume_header_holds_its_fields_at_fixed_offsets() {
        let bytes = resume_frame(
            &[(7, Ok((0, 2))), (9, Err(((2, 4), (6, 2))))],
            None,
            b"{}toolno",
        );
        let frame = Frame::decode(&bytes).expect("frame");
        assert_eq!(frame.header.len(), RESUME_HEADER + 2 * RESULT_ROW);
        let resume = Resume::decode(&frame).expect("resume");
        assert_eq!((resume.cancel, resume.clock), (None, None));
        let rows: Vec<_> = resume.results.iter().map(|r| (r.id, r.outcome)).collect();
        assert_eq!(rows, [(7, Ok((0, 2))), (9, Err(((2, 4), (6, 2))))]);
        let mut head = frame.header.to_vec();
        head[0] = 2; // a clock reading
        head[8..16].copy_from_slice(&5u64.to_le_bytes());
        let clocked = Resume::decode(&Frame {
            header: &head,
            blob: b"",
        })
        .expect("resume");
        assert_eq!(clocked.clock, Some(5));
    }

    #[test]
    fn a_malformed_resume_or_job_header_is_an_error() {
        let bytes = resume_frame(&[(7, Ok((0, 2)))], None, b"");
        let header = Frame::decode(&bytes).expect("frame").header;
        let mut bad_kind = header.to_vec();
        bad_kind[RESUME_HEADER + 8] = 2;
        let mut many = header.to_vec();
        many[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        for head in [
            &header[..RESUME_HEADER + 3],
            &header[..3],
            &bad_kind,
            &many,
            b"{}",
        ] {
            assert!(Resume::decode(&Frame {
                header: head,
                blob: b""
            })
            .is_err());
        }
        let bytes = job_frame(JAVASCRIPT, "1", 5);
        let header = Frame::decode(&bytes).expect("frame").header;
        let job = Job::decode(&Frame { header, blob: b"1" }).expect("job");
        assert_eq!(
            (job.language, job.code, job.stdin, job.timeout_ms),
            (0, (0, 1), None, 5)
        );
        let longer = [header, &[0]].concat();
        for head in [&header[..27], &longer] {
            assert!(Job::decode(&Frame {
                header: head,
                blob: b"1"
            })
            .is_err());
        }
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
