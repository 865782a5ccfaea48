//! `tool NAME --key value ...`: call a host tool from the shell.
//!
//! Arguments are coerced by the tool's JSON Schema (integer, number, boolean, array, object,
//! string); `--key=value`, repeated keys for arrays, `--json '{...}'` (`--json -` reads it from
//! stdin), or a JSON object on stdin when there are no flags. The result prints as indented JSON (like `jq .`). Errors are
//! one line on stderr, `tool: NAME: message`, status 1.

use serde_json::{Map, Value};

use super::{Builtin, Ctx};
use crate::applets::ToolInfo;
use crate::protocol::js_name;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `tool`.
pub(crate) const TOOL: Builtin = Builtin {
    name: "tool",
    synopsis: "tool NAME [--key value ...] | tool --list | tool --help NAME — call a host tool; prints its JSON result",
    run,
};

const USAGE: &str = "usage: tool NAME [--key value ...] [--json '{...}' | --json -]\n       tool --list\n       tool --help NAME\n\
Arguments are converted by the tool's schema; with no flags or with --json -, a JSON object\n\
is read from stdin.\n";

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let args = ctx.operands().to_vec();
        let Some(first) = args.first() else {
            ctx.fds.eprint(USAGE).await;
            return Flow::Normal(2);
        };
        let tools = ctx.sh.world.host.tools();
        match first.as_str() {
            "--list" | "-l" => return list(&ctx, &tools).await,
            "--help" | "-h" => {
                let Some(name) = args.get(1) else {
                    return ctx.print_status(USAGE).await;
                };
                return match find(&tools, name) {
                    Some(tool) => ctx.print_status(&describe(tool)).await,
                    None => unknown(&ctx, name).await,
                };
            }
            _ => {}
        }
        let Some(tool) = find(&tools, first) else {
            return unknown(&ctx, first).await;
        };
        let name = tool.name.clone();
        let flags = &args[1..];
        if flags.iter().any(|a| a == "--help" || a == "-h") {
            return ctx.print_status(&describe(tool)).await;
        }
        // stdin holds the arguments when there are no flags, or where `--json -` says so.
        let stdin = if flags.is_empty() || json_from_stdin(flags) {
            let text = match ctx.fds.input(0) {
                Some(input) => input.read_all().await,
                None => Vec::new(),
            };
            Some(String::from_utf8_lossy(&text).into_owned())
        } else {
            None
        };
        let params = match (&stdin, flags.is_empty()) {
            (Some(text), true) if text.trim().is_empty() => Ok(Map::new()),
            (Some(text), true) => object(text, "stdin"),
            _ => build(tool, flags, stdin.as_deref()),
        };
        let params = match params {
            Ok(p) => p,
            Err(message) => return fail(&ctx, &name, &message).await,
        };
        let json = Value::Object(params).to_string();
        match ctx.sh.world.host.call_tool(&name, json).await {
            Ok(result) => {
                let pretty = match serde_json::from_str::<Value>(&result) {
                    Ok(value) => serde_json::to_string_pretty(&value).unwrap_or(result),
                    Err(_) => result,
                };
                ctx.print_status(&format!("{pretty}\n")).await
            }
            Err(e) => {
                // The host's messages name the tool already.
                ctx.fds.eprint(&format!("tool: {}\n", e.message)).await;
                Flow::Normal(1)
            }
        }
    })
}

async fn fail(ctx: &Ctx, name: &str, message: &str) -> Flow {
    ctx.fds.eprint(&format!("tool: {name}: {message}\n")).await;
    Flow::Normal(1)
}

async fn unknown(ctx: &Ctx, name: &str) -> Flow {
    ctx.fds
        .eprint(&format!("tool: unknown tool '{name}' (try tool --list)\n"))
        .await;
    Flow::Normal(1)
}

/// The tool `name` refers to: its canonical name or any JavaScript spelling of it.
fn find<'a>(tools: &'a [ToolInfo], name: &str) -> Option<&'a ToolInfo> {
    tools
        .iter()
        .find(|t| t.name == name)
        .or_else(|| tools.iter().find(|t| js_name(&t.name) == js_name(name)))
}

async fn list(ctx: &Ctx, tools: &[ToolInfo]) -> Flow {
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(0);
    let mut out = String::new();
    for t in tools {
        let summary = t.description.lines().next().unwrap_or_default();
        out.push_str(&format!("{:<width$}  {summary}\n", t.name));
    }
    ctx.print_status(&out).await
}

fn type_name(schema: &Value) -> String {
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => {
            let item = schema
                .get("items")
                .map(type_name)
                .unwrap_or_else(|| "any".into());
            format!("array of {item}")
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join("|"),
        _ if schema.get("enum").is_some() => "enum".into(),
        _ => "any".into(),
    }
}

fn describe(tool: &ToolInfo) -> String {
    let mut out = format!("{}\n", tool.name);
    if !tool.description.is_empty() {
        out.push_str(&format!("  {}\n", tool.description.replace('\n', "\n  ")));
    }
    let required: Vec<&str> = tool
        .parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = tool.parameters.get("properties").and_then(Value::as_object) {
        out.push_str("Parameters:\n");
        for (key, schema) in props {
            let mut line = format!("  --{key} <{}>", type_name(schema));
            if required.contains(&key.as_str()) {
                line.push_str(" (required)");
            }
            if let Some(values) = schema.get("enum").and_then(Value::as_array) {
                let shown: Vec<String> = values.iter().map(Value::to_string).collect();
                line.push_str(&format!(" one of {}", shown.join(", ")));
            }
            if let Some(d) = schema.get("description").and_then(Value::as_str) {
                line.push_str(&format!("  {d}"));
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
    out.push_str(&format!("Example: tool {}", tool.name));
    for key in &required {
        out.push_str(&format!(" --{key} ..."));
    }
    out.push('\n');
    out
}

/// The property schema for a flag name (`--max-results` finds `max_results`).
fn property<'a>(tool: &'a ToolInfo, key: &str) -> (String, Option<&'a Value>) {
    let props = tool.parameters.get("properties").and_then(Value::as_object);
    if let Some(schema) = props.and_then(|p| p.get(key)) {
        return (key.to_string(), Some(schema));
    }
    let alt = key.replace('-', "_");
    if let Some(schema) = props.and_then(|p| p.get(&alt)) {
        return (alt, Some(schema));
    }
    (key.to_string(), None)
}

/// Whether the flags say `--json -` (or `--json=-`): the arguments are on stdin.
fn json_from_stdin(flags: &[String]) -> bool {
    flags.iter().any(|f| f == "--json=-")
        || flags.windows(2).any(|w| w[0] == "--json" && w[1] == "-")
}

/// `text` as a JSON object of arguments; `source` names where it came from in errors.
fn object(text: &str, source: &str) -> Result<Map<String, Value>, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(format!("{source} must hold a JSON object of arguments")),
        Err(e) => Err(format!("{source}: invalid JSON: {e}")),
    }
}

/// The JSON object of arguments from the flags; `stdin` is what `--json -` reads.
fn build(
    tool: &ToolInfo,
    flags: &[String],
    stdin: Option<&str>,
) -> Result<Map<String, Value>, String> {
    let mut params = Map::new();
    let mut i = 0;
    while i < flags.len() {
        let flag = &flags[i];
        let Some(body) = flag.strip_prefix("--") else {
            return Err(format!("unexpected argument '{flag}' (use --key value)"));
        };
        i += 1;
        if let Some(inline) = body.strip_prefix("json=") {
            params.extend(json_argument(inline, stdin)?);
            continue;
        }
        if body == "json" {
            let text = flags
                .get(i)
                .ok_or("--json needs a JSON object (or - to read stdin)")?;
            i += 1;
            params.extend(json_argument(text, stdin)?);
            continue;
        }
        let (key, inline) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (body, None),
        };
        let (key, schema) = property(tool, key);
        let is_bool = schema.is_some_and(|s| primary_type(s) == "boolean");
        let raw = match inline {
            Some(v) => v,
            None => match flags.get(i) {
                Some(v) if !(is_bool && v.starts_with("--")) => {
                    i += 1;
                    v.clone()
                }
                _ if is_bool => "true".into(),
                _ => return Err(format!("--{key} needs a value")),
            },
        };
        let value = match schema {
            Some(s) => coerce(s, &raw).map_err(|m| format!("--{key}: {m}"))?,
            None => Value::String(raw),
        };
        let array = schema.is_some_and(|s| primary_type(s) == "array");
        match (params.get_mut(&key), value, array) {
            (Some(Value::Array(existing)), Value::Array(more), true) => existing.extend(more),
            (_, value, _) => {
                params.insert(key, value);
            }
        }
    }
    Ok(params)
}

/// The arguments a `--json` flag's text gives: the object itself, or stdin's for `-`.
fn json_argument(text: &str, stdin: Option<&str>) -> Result<Map<String, Value>, String> {
    match (text, stdin) {
        ("-", Some(input)) => object(input, "stdin"),
        _ => object(text, "--json"),
    }
}

fn primary_type(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(t)) => t,
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string"),
        _ => "",
    }
}

/// Converts a flag's text by its schema.
fn coerce(schema: &Value, raw: &str) -> Result<Value, String> {
    match primary_type(schema) {
        "integer" => raw
            .trim()
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("expected an integer, got '{raw}'")),
        "number" => {
            // An integral number stays an integer, as JSON written by hand would.
            if let Ok(i) = raw.trim().parse::<i64>() {
                return Ok(Value::from(i));
            }
            let n: f64 = raw
                .trim()
                .parse()
                .map_err(|_| format!("expected a number, got '{raw}'"))?;
            Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
        }
        "boolean" => match raw.trim().to_lowercase().as_str() {
            "true" | "1" | "yes" | "y" | "on" => Ok(Value::Bool(true)),
            "false" | "0" | "no" | "n" | "off" => Ok(Value::Bool(false)),
            _ => Err(format!("expected true or false, got '{raw}'")),
        },
        "array" => {
            if raw.trim_start().starts_with('[') {
                return serde_json::from_str::<Value>(raw)
                    .map_err(|e| format!("invalid JSON array: {e}"));
            }
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            let parts: Result<Vec<Value>, String> = raw
                .split(',')
                .map(|part| {
                    if items.is_null() {
                        Ok(Value::String(part.to_string()))
                    } else {
                        coerce(&items, part)
                    }
                })
                .collect();
            parts.map(Value::Array)
        }
        "object" => match serde_json::from_str::<Value>(raw) {
            Ok(v @ Value::Object(_)) => Ok(v),
            _ => Err("expected a JSON object".into()),
        },
        "null" => Ok(Value::Null),
        _ => Ok(Value::String(raw.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool() -> ToolInfo {
        ToolInfo {
            name: "files/search".into(),
            description: "Search files.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer"},
                    "score": {"type": "number"},
                    "exact": {"type": "boolean"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "ids": {"type": "array", "items": {"type": "integer"}},
                    "opts": {"type": "object"},
                    "max_results": {"type": ["integer", "null"]}
                },
                "required": ["query"]
            }),
        }
    }

    fn args(flags: &[&str]) -> Result<Value, String> {
        let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        build(&tool(), &flags, None).map(Value::Object)
    }

    #[test]
    fn json_flag_reads_inline_text_or_stdin() {
        let flags: Vec<String> = ["--json", "-", "--limit", "2"].map(String::from).to_vec();
        assert!(json_from_stdin(&flags));
        assert_eq!(
            build(&tool(), &flags, Some(r#"{"query": "q"}"#)).map(Value::Object),
            Ok(json!({"query": "q", "limit": 2}))
        );
        assert_eq!(
            args(&[r#"--json={"query": "q"}"#]),
            Ok(json!({"query": "q"}))
        );
        assert!(!json_from_stdin(&[r#"--json={"query": "-"}"#.to_string()]));
        assert_eq!(
            args(&["--json"]),
            Err("--json needs a JSON object (or - to read stdin)".into())
        );
    }

    #[test]
    fn flags_are_coerced_by_schema() {
        assert_eq!(
            args(&[
                "--query",
                "x",
                "--limit",
                "5",
                "--score=0.5",
                "--exact",
                "--tags",
                "a,b",
                "--tags",
                "c"
            ]),
            Ok(
                json!({"query": "x", "limit": 5, "score": 0.5, "exact": true, "tags": ["a", "b", "c"]})
            )
        );
        assert_eq!(
            args(&["--ids", "[1,2]", "--opts", "{\"k\":1}"]),
            Ok(json!({"ids": [1, 2], "opts": {"k": 1}}))
        );
        assert_eq!(
            args(&["--ids", "3,4", "--exact", "no"]),
            Ok(json!({"ids": [3, 4], "exact": false}))
        );
        assert_eq!(
            args(&["--max-results", "7", "--other", "v"]),
            Ok(json!({"max_results": 7, "other": "v"}))
        );
        assert_eq!(
            args(&["--json", "{\"query\":\"q\"}", "--limit", "1"]),
            Ok(json!({"query": "q", "limit": 1}))
        );
        assert_eq!(
            args(&["--limit", "x"]),
            Err("--limit: expected an integer, got 'x'".into())
        );
        assert_eq!(args(&["--query"]), Err("--query needs a value".into()));
    }

    #[test]
    fn names_match_js_spellings() {
        let tools = vec![tool()];
        assert!(find(&tools, "files_search").is_some());
        assert!(find(&tools, "files/search").is_some());
        assert!(find(&tools, "files").is_none());
        assert!(describe(&tools[0]).contains("--query <string> (required)"));
    }
}
