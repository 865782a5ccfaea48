"""The ``corral`` command line: ``demo``, ``run``, ``mcp`` and ``precompile``."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence

from ._module import precompile_module
from .capabilities import MethodCapability, Param
from .limits import Limits
from .results import ExecutionResult
from .sandbox import Sandbox

__all__ = ["main"]

DEMO_SCRIPT = """\
// One script, many tool calls: the model writes this once instead of one round trip per call.
const cities = ["SF", "Paris", "Tokyo"];
const reports = await Promise.all(cities.map((city) => get_weather({city})));
const warmest = reports.reduce((a, b) => (a.temp > b.temp ? a : b));
console.log("warmest:", warmest.city, warmest.temp);
const receipt = await payments.transfer({amount: 250, currency: "EUR"});
try {
  await payments.transfer({amount: 5000, currency: "EUR"});
} catch (e) {
  console.log(`${e.name}: ${e.message}`);
}
return {warmest: warmest.city, receipt};
"""


def get_weather(city: str) -> dict[str, object]:
    """Current weather for a city.

    Args:
        city: City name, e.g. "SF".
    """
    temps = {"SF": 64, "Paris": 71, "Tokyo": 77}
    return {"city": city, "temp": temps.get(city, 60)}


async def transfer(amount: float, currency: str) -> dict[str, object]:
    """Transfer money (a pretend payment API).

    Args:
        amount: How much to send.
        currency: ISO currency code.
    """
    await asyncio.sleep(0.01)
    return {"ok": True, "amount": amount, "currency": currency}


def _show(title: str, code: str, result: ExecutionResult) -> None:
    print(f"\n\033[1m## {title}\033[0m")
    for line in code.strip().splitlines():
        print(f"   \033[2m{line}\033[0m")
    if result.stdout:
        print("stdout: " + result.stdout.rstrip("\n").replace("\n", "\n        "))
    if result.stderr:
        print("stderr: " + result.stderr.rstrip("\n").replace("\n", "\n        "))
    for call in result.tool_calls:
        verdict = "allowed" if call.allowed else "DENIED "
        print(f"  tool {verdict} {call.method}({call.params}) — {call.rule}")
    print(f"exit {result.exit_code} in {result.duration_ms:.1f} ms")


def demo() -> int:
    """Run a short tour of the sandbox and print what happens."""
    from .tools import tool_from_function

    started = time.perf_counter()
    sandbox = Sandbox(
        tools=[get_weather, tool_from_function(transfer, name="payments/transfer")],
        capabilities=[
            MethodCapability("get_weather", max_calls=10),
            MethodCapability(
                "payments/*",
                constraints=[Param("amount") <= 1000, Param("currency").is_in(["USD", "EUR"])],
                max_calls=3,
            ),
        ],
        limits=Limits(timeout=0.5),
    )
    print(f"sandbox ready in {(time.perf_counter() - started) * 1000:.0f} ms")
    _show(
        "code mode: parallel tool calls, a constrained payment",
        DEMO_SCRIPT,
        sandbox.execute(DEMO_SCRIPT),
    )
    for title, code in [
        ("a runaway loop hits the time limit", "while (true) {}"),
        ("...and the sandbox still works", "return 6 * 7"),
        ("habits from Node get a clear answer", "const fs = require('fs');"),
    ]:
        _show(title, code, sandbox.execute(code))
    print(f"\nremaining call budgets: {sandbox.remaining_calls()}")
    return 0


def run(code: str | None, language: str, timeout: float) -> int:
    """Run code from an argument or stdin in an empty sandbox; print its output."""
    source = code if code is not None else sys.stdin.read()
    try:
        result = Sandbox(limits=Limits(timeout=timeout)).execute(source, language)
    except ValueError as error:
        print(f"corral: {error}", file=sys.stderr)
        return 2
    stdout = result.stdout
    if stdout and not stdout.endswith("\n"):
        stdout += "\n"  # a returned value has no newline; keep the terminal tidy
    sys.stdout.write(stdout)
    sys.stderr.write(result.stderr)
    return result.exit_code


def mcp(config: str | None, tools: Sequence[str], http: int | None) -> int:
    """Serve the sandbox as an MCP server (see :mod:`corral.integrations.mcp_server`);
    a bad config, tool module or server prints why and returns 2."""
    try:
        from .integrations.mcp_config import ServerConfig, load_config
        from .integrations.mcp_server import SandboxServer

        server = SandboxServer.from_config(load_config(config) if config else ServerConfig(), tools)
    except (ImportError, ValueError, ConnectionError) as error:
        print(f"corral: {error}", file=sys.stderr)
        return 2
    try:
        server.serve(http)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``corral`` and ``python -m corral``."""
    parser = argparse.ArgumentParser(prog="corral", description="corral sandbox")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="a short tour of the sandbox")
    run_cmd = sub.add_parser("run", help="run code (from -c or stdin) in an empty sandbox")
    run_cmd.add_argument("-c", "--code", help="the code; read from stdin when omitted")
    run_cmd.add_argument("-l", "--language", default="javascript")
    run_cmd.add_argument("-t", "--timeout", type=float, default=30.0, help="seconds")
    mcp_cmd = sub.add_parser("mcp", help="serve the sandbox over MCP (stdio, or --http PORT)")
    mcp_cmd.add_argument("--config", help="a TOML file: capabilities, limits, budgets, tools")
    mcp_cmd.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="MODULE",
        help="a Python module whose tools the code may call (repeatable)",
    )
    mcp_cmd.add_argument(
        "--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT/mcp"
    )
    sub.add_parser("precompile", help="compile the guest module into the disk cache")
    args = parser.parse_args(argv)
    if args.command == "demo":
        return demo()
    if args.command == "run":
        return run(args.code, args.language, args.timeout)
    if args.command == "mcp":
        return mcp(args.config, args.tools, args.http)
    path = precompile_module()
    print(path if path is not None else "this platform has no module cache")
    return 0
