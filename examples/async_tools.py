"""Async tools: calls the code issues together run concurrently on the host.

Run: python examples/async_tools.py
"""

import asyncio
import time

from corral import Sandbox


async def fetch_user(user_id: int) -> dict:
    """Fetch a user (a slow service: 0.2 s per call)."""
    await asyncio.sleep(0.2)
    return {"id": user_id, "name": f"user{user_id}"}


async def main() -> None:
    sandbox = Sandbox(tools=[fetch_user])
    started = time.perf_counter()
    # Five calls issued by Promise.all reach the host as one batch and are awaited together.
    result = await sandbox.aexecute("""
        const users = await Promise.all([1, 2, 3, 4, 5].map((id) => fetch_user({user_id: id})));
        return users.map((u) => u.name).join(", ");
    """)
    elapsed = time.perf_counter() - started
    print(result.return_value)
    print(f"5 calls of 0.2 s took {'less' if elapsed < 1.0 else 'more'} than 1 s: concurrent")

    # Sandboxes run side by side on one event loop.
    results = await asyncio.gather(
        *(
            Sandbox(tools=[fetch_user]).aexecute(
                f"return (await fetch_user({{user_id: {i}}})).name"
            )
            for i in range(3)
        )
    )
    print([r.return_value for r in results])

    # The synchronous execute() runs async tools too, on its own loop.
    print(sandbox.execute("return (await fetch_user({user_id: 9})).name").return_value)


asyncio.run(main())
