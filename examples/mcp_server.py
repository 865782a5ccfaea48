"""corral as an MCP server, and a client talking to it over stdio the way an agent host does.

The server is one command; this file is also its tool module (``TOOLS`` below)::

    cd examples
    corral mcp --tools mcp_server --config mcp_corral.toml

An MCP host (Claude Desktop, an IDE, an agent framework) launches that command and gets five
tools: ``run_javascript``, ``run_shell``, ``read_file``, ``write_file`` and ``list_files``.
Running this file does what such a host does, with the MCP SDK's own client: it launches the
server over stdio, lists the tools and calls them. Offline; needs ``pip install 'corral[mcp]'``.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from corral import tool_from_function

ORDERS = {"A-1": {"id": "A-1", "total": 80.0}, "A-2": {"id": "A-2", "total": 250.0}}


def get_order(order_id: str) -> dict[str, object]:
    """Look up an order.

    Args:
        order_id: The order's id, e.g. "A-1".
    """
    return ORDERS[order_id]


def refund(order_id: str, amount: float) -> dict[str, object]:
    """Refund part of an order.

    Args:
        order_id: The order's id.
        amount: How much to refund.
    """
    return {"refunded": amount, "order": order_id}


# What the code may call: with TOOLS, only these (named as the code will call them); without
# it, every public function this module defines.
TOOLS = [
    tool_from_function(get_order, name="orders/get"),
    tool_from_function(refund, name="orders/refund"),
]

HERE = Path(__file__).parent
CODE = """
const order = await orders.get({order_id: "A-2"});
const receipt = await orders.refund({order_id: order.id, amount: 50});
console.log("refunded", receipt.refunded, "of", order.total);
await orders.refund({order_id: order.id, amount: 500});
"""


async def main() -> None:
    from mcp import Client, StdioServerParameters
    from mcp.types import TextContent

    server = StdioServerParameters(
        command=sys.executable,
        args=["-m", "corral", "mcp", "--tools", "mcp_server", "--config", "mcp_corral.toml"],
        cwd=HERE,
    )
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
        print("tools:", ", ".join(tool.name for tool in tools))
        for name, args in [
            ("run_javascript", {"code": CODE}),
            ("write_file", {"path": "notes.txt", "content": "refund A-2: 50\n"}),
            ("run_shell", {"code": "cat notes.txt; tool orders/get --order_id A-1 | jq .total"}),
            ("list_files", {}),
        ]:
            result = await client.call_tool(name, args)
            status = "error" if result.is_error else "ok"
            print(f"\n{name} ({status}):")
            for block in result.content:
                print(block.text.rstrip("\n") if isinstance(block, TextContent) else block)


if __name__ == "__main__":
    asyncio.run(main())
