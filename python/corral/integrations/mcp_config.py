"""The config file of ``corral mcp`` (``--config corral.toml``): capabilities, limits, budgets,
tool modules and other MCP servers, checked before anything is served.

>>> parse_config({"limits": {"timeout": 5}, "session": {"max_calls": 10}}).max_calls
10
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..capabilities import MethodCapability, capabilities_from_dict, constraint_from_spec
from ..limits import Limits
from . import require

__all__ = ["ConfigError", "ServerConfig", "load_config", "parse_config"]

_LIMIT_KEYS = tuple(f.name for f in fields(Limits))
_SECTIONS = (
    "tools",
    "limits",
    "session",
    "capabilities",
    "constraints",
    "max_calls",
    "mcp_servers",
)
_CAPABILITY_KEYS = ("method", "constraints", "max_calls")
_STDIO_KEYS = ("command", "args", "env", "cwd")


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file and the key.

    Attributes:
        key: The dotted key at fault, e.g. ``limits.timeout`` or ``capabilities[1].method``.
    """

    def __init__(self, source: str, key: str, problem: str) -> None:
        """Build the error for ``key`` of ``source``."""
        super().__init__(f"{source}: {key}: {problem}")
        self.key = key


@dataclass(frozen=True)
class ServerConfig:
    """What ``corral.toml`` says (see :func:`parse_config` for the schema).

    Attributes:
        tools: Python modules whose tools the code may call.
        limits: The limits of every execution.
        capabilities: What the code may call (None: every tool, unconstrained).
        max_calls: Tool calls allowed per session, all tools together (None: no budget).
        mcp_servers: Other MCP servers whose tools the code may call, by prefix.
    """

    tools: tuple[str, ...] = ()
    limits: Limits = field(default_factory=Limits)
    capabilities: tuple[MethodCapability, ...] | None = None
    max_calls: int | None = None
    mcp_servers: Mapping[str, Any] = field(default_factory=dict)


def load_config(path: str | Path) -> ServerConfig:
    """Read and check a TOML config file (see :func:`parse_config`).

    Raises:
        ConfigError: naming the file and the key at fault (or the TOML syntax error).
    """
    source = str(path)
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except OSError as error:
        raise ConfigError(source, "(file)", f"cannot be read: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(source, "(syntax)", f"not valid TOML: {error}") from None
    return parse_config(data, source)


def parse_config(data: Mapping[str, Any], source: str = "config") -> ServerConfig:
    """Check a parsed config and build a :class:`ServerConfig`.

    The schema (every part optional)::

        tools = ["myapp.tools"]          # modules, as for --tools
        [limits]                         # any field of corral.Limits
        timeout = 10.0                   # seconds per execution
        memory = 67108864                # bytes of JavaScript heap
        max_output = 65536               # bytes of stdout and of stderr
        max_tool_calls = 20              # tool calls per execution
        [session]
        max_calls = 100                  # tool calls per client session, all tools together
        [[capabilities]]                 # what the code may call; anything else is denied
        method = "payments/*"            # a method pattern (* one segment, ** any number)
        constraints = { amount = "<=1000", currency = ["USD", "EUR"] }
        max_calls = 3                    # calls per session under this capability
        [constraints.get_weather]        # or the compact form: one capability per tool,
        city = ["Paris", "Tokyo"]        #   with these constraints
        [max_calls]                      #   and these budgets (or max_calls = N for each)
        get_weather = 10
        [mcp_servers.github]             # tools of another MCP server, as github/TOOL
        command = "github-mcp"           # launched over stdio (also args, env, cwd)
        [mcp_servers.search]
        url = "http://127.0.0.1:9000/mcp"   # or reached over streamable HTTP

    Constraint specs are those of :func:`~corral.capabilities.constraint_from_spec`.
    ``[[capabilities]]`` and the compact form exclude each other. Without either, every tool
    may be called without constraints.

    Raises:
        ConfigError: naming the key at fault and what to write instead.
    """
    _known(source, "", data, _SECTIONS)
    tools = _strings(source, "tools", data.get("tools", []))
    limits = _limits(source, _table(source, "limits", data.get("limits", {})))
    session = _table(source, "session", data.get("session", {}))
    _known(source, "session", session, ("max_calls",))
    max_calls = _count(source, "session.max_calls", session.get("max_calls"))
    return ServerConfig(
        tools=tuple(tools),
        limits=limits,
        capabilities=_capabilities(source, data),
        max_calls=max_calls,
        mcp_servers=_mcp_servers(
            source, _table(source, "mcp_servers", data.get("mcp_servers", {}))
        ),
    )


def _known(source: str, where: str, table: Mapping[str, Any], known: Sequence[str]) -> None:
    for key in table:
        if key not in known:
            dotted = f"{where}.{key}" if where else key
            raise ConfigError(source, dotted, f"unknown key (known here: {', '.join(known)})")


def _table(source: str, key: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(source, key, f"must be a table, not {_kind(value)}")
    return value


def _strings(source: str, key: str, value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(
            source, key, f'must be a list of strings, e.g. ["pkg.module"], not {_kind(value)}'
        )
    return list(value)


def _count(source: str, key: str, value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(source, key, f"must be an integer >= 0, not {value!r}")
    return value


def _kind(value: object) -> str:
    names = {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "a boolean",
        list: "an array",
    }
    return names.get(type(value), "a table" if isinstance(value, Mapping) else repr(value))


def _limits(source: str, table: Mapping[str, Any]) -> Limits:
    _known(source, "limits", table, _LIMIT_KEYS)
    for key, value in table.items():  # one at a time, so the error names its key
        try:
            Limits(**{key: value})
        except ValueError as error:
            problem = str(error).replace(f"Limits.{key} ", "")
            raise ConfigError(source, f"limits.{key}", problem) from None
        except TypeError:
            raise ConfigError(
                source, f"limits.{key}", f"must be a number, not {_kind(value)}"
            ) from None
    return Limits(**table)


def _capabilities(source: str, data: Mapping[str, Any]) -> tuple[MethodCapability, ...] | None:
    explicit = data.get("capabilities")
    compact = [key for key in ("constraints", "max_calls") if key in data]
    if explicit is not None and compact:
        raise ConfigError(
            source,
            compact[0],
            "cannot be used together with [[capabilities]]: write the constraints and budget "
            "inside each [[capabilities]] entry instead",
        )
    if explicit is not None:
        if not isinstance(explicit, list):
            raise ConfigError(
                source, "capabilities", "must be an array of tables: [[capabilities]]"
            )
        return tuple(
            _capability(source, f"capabilities[{i}]", item) for i, item in enumerate(explicit)
        )
    if compact:
        return tuple(_compact(source, data))
    return None


def _capability(source: str, where: str, item: object) -> MethodCapability:
    entry = _table(source, where, item)
    _known(source, where, entry, _CAPABILITY_KEYS)
    if not isinstance(entry.get("method"), str):
        raise ConfigError(
            source, f"{where}.method", 'is required: a method pattern such as "payments/*"'
        )
    specs = _table(source, f"{where}.constraints", entry.get("constraints", {}))
    constraints = []
    for param, spec in specs.items():
        try:
            constraints.append(constraint_from_spec(param, spec))
        except ValueError as error:
            raise ConfigError(source, f"{where}.constraints.{param}", str(error)) from None
    budget = _count(source, f"{where}.max_calls", entry.get("max_calls"))
    try:
        return MethodCapability(entry["method"], constraints, budget)
    except ValueError as error:
        raise ConfigError(source, f"{where}.method", str(error)) from None


def _compact(source: str, data: Mapping[str, Any]) -> list[MethodCapability]:
    constraints = _table(source, "constraints", data.get("constraints", {}))
    budgets = data.get("max_calls")
    if budgets is not None and not isinstance(budgets, (int, Mapping)):
        raise ConfigError(
            source, "max_calls", "must be a table {tool = N} or one integer for every tool"
        )
    names = list(dict.fromkeys([*constraints, *(budgets if isinstance(budgets, Mapping) else {})]))
    try:
        return capabilities_from_dict(names, constraints, budgets)
    except (ValueError, TypeError) as error:
        raise ConfigError(
            source, "constraints" if constraints else "max_calls", str(error)
        ) from None


def _mcp_servers(source: str, table: Mapping[str, Any]) -> dict[str, Any]:
    servers: dict[str, Any] = {}
    for prefix, entry in table.items():
        where = f"mcp_servers.{prefix}"
        spec = _table(source, where, entry)
        if "url" in spec:
            _known(source, where, spec, ("url",))
            if not isinstance(spec["url"], str):
                raise ConfigError(source, f"{where}.url", "must be a string")
            servers[prefix] = spec["url"]
            continue
        _known(source, where, spec, _STDIO_KEYS)
        if not isinstance(spec.get("command"), str):
            raise ConfigError(
                source, f"{where}.command", "is required (or url = ...): the program to launch"
            )
        args = _strings(source, f"{where}.args", spec.get("args", []))
        env = _table(source, f"{where}.env", spec.get("env", {}))
        stdio = require("mcp", "mcp").StdioServerParameters
        servers[prefix] = stdio(
            command=spec["command"], args=args, env=dict(env) or None, cwd=spec.get("cwd")
        )
    return servers
