"""The code-mode prompt: tools as TypeScript declarations, with the capabilities in force."""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, TypedDict

import pytest

from corral import Limits, MethodCapability, Param, Sandbox, create_bash_tool, create_sandbox_tool
from corral.tools import ToolDefinition, tool_from_function, ts_declaration, ts_type


class Weather(TypedDict):
    city: str
    temp: float


def get_weather(city: str, units: Literal["metric", "imperial"] = "metric") -> Weather:
    """Current weather for a city.

    Args:
        city: City name, e.g. "Paris".
        units: Unit system.
    """
    return {"city": city, "temp": 21.5}


def create_charge(amount: int, currency: Literal["USD", "EUR"], note: str | None = None) -> str:
    """Create a charge."""
    return f"ch_{amount}{currency}"


CHARGE = tool_from_function(create_charge, name="stripe/charges/create")

WEATHER_DECLARATION = """\
/** Current weather for a city. */
declare function get_weather(args: {
  /** City name, e.g. "Paris". */
  city: string;
  /** Unit system. Default: "metric". */
  units?: "metric" | "imperial";
}): Promise<{city: string; temp: number}>;"""


def charge_declaration(notes: str) -> str:
    return (
        "/**\n"
        " * Create a charge.\n"
        f" * {notes}\n"
        " * Also callable as stripe_charges_create(args).\n"
        " */\n"
        "declare namespace stripe.charges { function create(args: {amount: number; "
        'currency: "USD" | "EUR"; note?: string}): Promise<string>; }'
    )


JAVASCRIPT_PROMPT = """\
Run JavaScript in an isolated sandbox.
JavaScript: the code is the body of an async function: use await, print with console.log(), \
and `return` a value to output it (objects as JSON). No network, no require(); files through \
the global `fs` (Node-like: `await fs.readFile(path, 'utf8')`, `fs.writeFile`, `fs.readdir`, \
...).
/workspace keeps its files between runs; /tmp is scratch. Limits per run: 30 s, 1 MiB of \
output (more is cut).
Tools: each is an async function taking one object argument; every call is checked on the \
host, and a denied call throws an Error saying why. Their declarations (also in \
/tools/index.d.ts):

{weather}

{charge}"""


def javascript_prompt(charge: str) -> str:
    return JAVASCRIPT_PROMPT.replace("{weather}", WEATHER_DECLARATION).replace("{charge}", charge)


def test_the_whole_javascript_prompt() -> None:
    tool = create_sandbox_tool(
        [get_weather, CHARGE],
        constraints={"stripe/charges/create": {"amount": "<=1000", "currency": ["USD", "EUR"]}},
        max_calls={"stripe/charges/create": 10},
    )
    notes = "Allowed when amount <= 1000 and currency in ['USD', 'EUR']; {} left."
    assert tool.description == javascript_prompt(charge_declaration(notes.format("10 calls")))
    assert tool.run("return await stripe.charges.create({amount: 5, currency: 'EUR'})") == "ch_5EUR"
    assert tool.description == javascript_prompt(charge_declaration(notes.format("9 calls")))
    assert tool.description == tool.sandbox.prompt("javascript")


def test_the_whole_bash_prompt() -> None:
    limits = Limits(timeout=10, max_output=64 * 1024, max_tool_calls=5)
    tool = create_bash_tool([get_weather], limits=limits, max_calls=3)
    assert tool.description == (
        "Run a bash script or JavaScript in an isolated sandbox (the language is detected per "
        "script).\n"
        "JavaScript: the code is the body of an async function: use await, print with "
        "console.log(), and `return` a value to output it (objects as JSON). No network, no "
        "require(); files through the global `fs` (Node-like: `await fs.readFile(path, "
        "'utf8')`, `fs.writeFile`, `fs.readdir`, ...).\n"
        "Shell: a bash-like shell with GNU-like tools (grep, sed, awk, jq, sort, find, ...). "
        "`tool NAME --key value` calls a tool (repeat a key for an array, `--json '{...}'` for "
        "nested values) and prints its result as JSON, e.g. `tool get_weather --city ...`; "
        "`tool --list` lists them.\n"
        "/workspace keeps its files between runs; /tmp is scratch. Limits per run: 10 s, "
        "64 KiB of output (more is cut), 5 tool calls.\n"
        "Tools: each is an async function taking one object argument; every call is checked "
        "on the host, and a denied call throws an Error saying why. Their declarations (also "
        "in /tools/index.d.ts):\n"
        "\n"
        "/**\n"
        " * Current weather for a city.\n"
        " * 3 calls left.\n"
        " */\n" + WEATHER_DECLARATION.split("\n", 1)[1]
    )
    assert tool.run("tool get_weather --city Oslo | jq -c .") == '{"city":"Oslo","temp":21.5}\n'


def test_shell_only_and_no_tools() -> None:
    sandbox = Sandbox()
    assert sandbox.prompt("bash") == (
        "Run a bash script in an isolated sandbox.\n"
        "Shell: a bash-like shell with GNU-like tools (grep, sed, awk, jq, sort, find, ...). "
        "`tool NAME --key value` calls a tool (repeat a key for an array, `--json '{...}'` for "
        "nested values) and prints its result as JSON, e.g. `tool NAME --key value`; "
        "`tool --list` lists them.\n"
        "/workspace keeps its files between runs; /tmp is scratch. Limits per run: 30 s, "
        "1 MiB of output (more is cut).\n"
        "No tools are available."
    )
    with pytest.raises(ValueError) as info:
        sandbox.prompt("python")
    assert str(info.value) == (
        "unsupported language 'python': use 'javascript', 'shell' (or 'bash'), or 'auto'"
    )


def notes_of(sandbox: Sandbox, name: str) -> str:
    """The comment lines of one tool's declaration in the sandbox's prompt."""
    text = sandbox.prompt().split("\n\n", 1)[1]
    block = next(b for b in text.split("\n\n") if f" {name}(" in b or f"{name}(args" in b)
    return block.rsplit("*/", 1)[0]


def plain(name: str) -> ToolDefinition:
    return ToolDefinition(
        name, "", {"type": "object", "properties": {}, "additionalProperties": False}
    )


def test_capability_notes() -> None:
    caps = [
        MethodCapability("pay", [Param("amount") <= 100], max_calls=2),
        MethodCapability("pay", [Param("amount") <= 5]),
        MethodCapability("wipe", requires_approval=True),
        MethodCapability("free"),
    ]
    tools = [plain("pay"), plain("wipe"), plain("free"), plain("secret")]
    sandbox = Sandbox(tools, caps, tool_handler=lambda name, args: name)
    declarations = sandbox.prompt().split("\n\n", 1)[1]
    assert declarations == (
        "/** Allowed when amount <= 100; 2 calls left. Or: Allowed when amount <= 5. */\n"
        "declare function pay(args?: {}): Promise<unknown>;\n"
        "\n"
        "/** Each call waits for a human's approval. */\n"
        "declare function wipe(args?: {}): Promise<unknown>;\n"
        "\n"
        "declare function free(args?: {}): Promise<unknown>;\n"
        "\n"
        "/** No capability allows this tool: every call is denied. */\n"
        "declare function secret(args?: {}): Promise<unknown>;"
    )


def test_budgets_per_tool_and_per_sandbox() -> None:
    sandbox = Sandbox([plain("a")], tool_handler=lambda n, a: 1, max_calls_per_tool={"a": 4})
    assert sandbox.prompt().endswith(
        "/** This tool: 4 calls left. */\ndeclare function a(args?: {}): Promise<unknown>;"
    )
    sandbox.execute("await a()")
    assert "This tool: 3 calls left." in sandbox.prompt()
    assert sandbox.execute("return await a()").return_value == 1


# --------------------------------------------------------------------------------------------
# Schemas to TypeScript


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({}, "unknown"),
        (True, "unknown"),
        (False, "never"),
        ({"type": "integer"}, "number"),
        ({"type": ["string", "null"]}, "string | null"),
        ({"type": "string", "nullable": True}, "string | null"),
        ({"const": "x"}, '"x"'),
        ({"enum": [1, "a", None, True]}, '1 | "a" | null | true'),
        ({"type": "array"}, "unknown[]"),
        (
            {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "number"}]}},
            "(string | number)[]",
        ),
        (
            {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "[string, number]",
        ),
        ({"type": "object"}, "Record<string, unknown>"),
        ({"type": "object", "additionalProperties": {"type": "number"}}, "Record<string, number>"),
        ({"type": "object", "properties": {}, "additionalProperties": False}, "{}"),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": {"type": "integer"},
            },
            "{a?: string; [key: string]: number}",
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}},
                "required": ["a"],
            },
            "{a: string; b?: number | null}",
        ),
        ({"properties": {"my-key": {"type": "boolean"}}}, '{"my-key"?: boolean}'),
        (
            {
                "allOf": [
                    {"properties": {"a": {"type": "string"}}, "required": ["a"]},
                    {"properties": {"b": {"type": "number"}}},
                ]
            },
            "{a: string} & {b?: number}",
        ),
        (
            {"oneOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
            "string[] | null",
        ),
        (
            {
                "type": "object",
                "properties": {
                    "n": {
                        "type": "object",
                        "properties": {
                            "x": {"type": "number", "minimum": 0, "maximum": 9, "description": "X."}
                        },
                    }
                },
            },
            "{n?: {\n  /** X. (>= 0, <= 9) */\n  x?: number;\n}}",
        ),
        (
            {
                "type": "object",
                "properties": {
                    "s": {"type": "string", "format": "date", "maxLength": 10, "default": "today"}
                },
            },
            '{\n  /** Default: "today". (length <= 10, format date) */\n  s?: string;\n}',
        ),
        (
            {
                "$defs": {"P": {"properties": {"x": {"type": "integer"}}}},
                "properties": {"a": {"$ref": "#/$defs/P"}, "b": {"$ref": "#/$defs/P"}},
            },
            "{a?: {x?: number}; b?: {x?: number}}",
        ),
        (
            {
                "definitions": {
                    "Node": {
                        "properties": {
                            "v": {"type": "integer"},
                            "next": {"$ref": "#/definitions/Node"},
                        },
                        "required": ["v"],
                    }
                },
                "$ref": "#/definitions/Node",
            },
            "type Node = {v: number; next?: Node};\nNode",
        ),
        ({"$ref": "https://example.com/elsewhere"}, "unknown"),
        (
            {
                "description": "*/ closes a comment",
                "type": "object",
                "properties": {"a": {"description": "a */ b"}},
            },
            "{\n  /** a *\\/ b */\n  a?: unknown;\n}",
        ),
    ],
)
def test_schema_types(schema: Any, expected: str) -> None:
    assert ts_type(schema) == expected


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)


def returning(annotation: Any) -> str:
    def tool() -> None:
        """A tool."""

    tool.__annotations__ = {"return": annotation}
    return ts_declaration(tool_from_function(tool)).split("): ", 1)[1]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, "Promise<string>;"),
        (None, "Promise<null>;"),
        (list[Point], "Promise<{x: number; y?: number; tags?: string[]}[]>;"),
        (Weather | None, "Promise<{city: string; temp: number} | null>;"),
        (dict[str, int], "Promise<Record<string, number>>;"),
        (object, "Promise<unknown>;"),
        (set[int], "Promise<unknown>;"),  # no JSON Schema for it: shown as unknown
    ],
)
def test_return_types(annotation: Any, expected: str) -> None:
    assert returning(annotation) == expected


def test_pydantic_return_types() -> None:
    pydantic = pytest.importorskip("pydantic")

    class City(pydantic.BaseModel):
        name: str
        population: int | None = None

    class Country(pydantic.BaseModel):
        code: Literal["NO", "SE"]
        cities: list[City]

    assert returning(Country) == (
        'Promise<{code: "NO" | "SE"; cities: {name: string; population?: number | null}[]}>;'
    )


def test_no_namespace_on_a_global() -> None:
    """The guest mounts no namespace on one of its globals (fs/read is only fs_read())."""
    tool = ToolDefinition("fs/read", "Read.", {"type": "object", "properties": {}})
    assert ts_declaration(tool) == (
        "/** Read. */\ndeclare function fs_read(args?: Record<string, unknown>): Promise<unknown>;"
    )
    sandbox = Sandbox([tool], tool_handler=lambda name, args: name)
    assert sandbox.execute("return [typeof fs.read, await fs_read()]").return_value == [
        "undefined",
        "fs/read",
    ]


def test_a_tool_named_like_a_global() -> None:
    """A tool named fetch is the shell's (tool fetch); in JavaScript fetch is the sandbox's."""
    tool = ToolDefinition("fetch", "Fetch.", {"type": "object", "properties": {}})
    assert ts_declaration(tool) == (
        "/**\n"
        " * Fetch.\n"
        " * Not callable from JavaScript, where fetch is the sandbox's own global; from the "
        "shell: tool fetch --key value.\n"
        " */\n"
        "declare function fetch(args?: Record<string, unknown>): Promise<unknown>;"
    )
    sandbox = Sandbox([tool], tool_handler=lambda name, args: "fetched")
    assert sandbox.execute("tool fetch", "shell").stdout == '"fetched"\n'


def test_parameters_stay_strict_about_dataclasses() -> None:
    def tool(point: Point) -> None:
        """A tool."""

    with pytest.raises(ValueError) as info:
        tool_from_function(tool)
    assert str(info.value).startswith("tool 'tool', parameter 'point': unsupported annotation")


# --------------------------------------------------------------------------------------------
# /tools/index.d.ts in the guest

DECLARATIONS_FILE = (
    "// The tools this sandbox's code can call: async functions taking one object.\n"
    "// Every call is checked on the host; a denied call throws an Error saying why.\n"
    "\n"
    "/**\n"
    " * Current weather for a city.\n"
    " * At most 2 calls.\n"
    " */\n" + WEATHER_DECLARATION.split("\n", 1)[1] + "\n"
)


def test_declarations_in_the_guest() -> None:
    sandbox = Sandbox([get_weather], [MethodCapability("get_weather", max_calls=2)])
    js = "return await fs.readFile('/tools/index.d.ts', 'utf8')"
    assert sandbox.execute(js).return_value == DECLARATIONS_FILE
    assert sandbox.execute("cat /tools/index.d.ts", "shell").stdout == DECLARATIONS_FILE
    assert sandbox.fs.read("/tools/index.d.ts") == DECLARATIONS_FILE.encode()
    written = sandbox.execute("echo x > /tools/index.d.ts; rm -f /tools/index.d.ts", "shell")
    assert written.stderr == (
        "bash: line 1: /tools/index.d.ts: Permission denied\n"
        "rm: cannot remove '/tools/index.d.ts': Permission denied\n"
    )
    sandbox.execute("await get_weather({city: 'Oslo'})")
    assert sandbox.execute(js).return_value == DECLARATIONS_FILE  # budgets as configured


def test_declarations_are_outside_the_quota_and_the_snapshot() -> None:
    limits = Limits(max_fs_bytes=10, max_files=2)
    sandbox = Sandbox([get_weather], limits=limits)
    assert sandbox.execute("printf 0123456789 > a; mkdir d", "shell").exit_code == 0
    assert sandbox.execute("ls /tools", "shell").stdout == "index.d.ts\n"
    snapshot = sandbox.snapshot()
    assert b"index.d.ts" not in snapshot
    bare = Sandbox.from_snapshot(snapshot)
    assert bare.execute("ls /workspace; ls / | grep -c tools", "shell").stdout == "a\nd\n0\n"
    sandbox.restore(snapshot)
    assert sandbox.execute("ls; cat /tools/index.d.ts | head -1", "shell").stdout == (
        "a\nd\n// The tools this sandbox's code can call: async functions taking one object.\n"
    )
    assert sandbox.fork().fs.read("/tools/index.d.ts") == sandbox.fs.read("/tools/index.d.ts")


def test_declarations_survive_a_trap() -> None:
    sandbox = Sandbox([get_weather])
    crashed = sandbox.execute("const f = (n) => f(n + 1) + 1; return f(0)")
    assert crashed.error_kind == "stack_overflow"
    assert sandbox.execute("head -1 /tools/index.d.ts", "shell").stdout.startswith("// The tools")
