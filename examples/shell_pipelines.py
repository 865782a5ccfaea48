"""Shell pipelines: grep, sort, uniq, awk, jq over files in the sandbox.

Run: python examples/shell_pipelines.py
"""

from corral import Sandbox

LOG = """\
2024-05-01T10:00:01 INFO  api GET /users 200 12ms
2024-05-01T10:00:02 ERROR db  timeout after 5000ms
2024-05-01T10:00:03 INFO  api GET /orders 200 40ms
2024-05-01T10:00:04 WARN  api GET /orders 429 1ms
2024-05-01T10:00:05 ERROR api POST /orders 500 88ms
2024-05-01T10:00:06 INFO  api GET /users 200 15ms
"""
sandbox = Sandbox()
sandbox.fs.write("/workspace/app.log", LOG)
sandbox.fs.write(
    "/workspace/orders.json",
    '[{"status": "paid", "amount": 30}, {"status": "open", "amount": 5}, '
    '{"status": "paid", "amount": 12}]',
)


def sh(title: str, script: str) -> None:
    print(f"# {title}")
    print(sandbox.execute(script, language="shell").text(), end="")


sh("errors", "grep -c ERROR app.log")
sh("lines per level", "awk '{print $2}' app.log | sort | uniq -c | sort -rn")
sh("api calls per path", "grep ' api ' app.log | awk '{print $5}' | sort | uniq -c")
sh(
    "slowest call per api path",
    "awk '$3 == \"api\" {print $5, $7 + 0}' app.log | sort -k2,2rn | sort -u -k1,1",
)
sh(
    "orders per status, with jq",
    "jq -c 'group_by(.status) | map({(.[0].status): (map(.amount) | add)}) | add' orders.json",
)
sh("a loop", "for level in INFO ERROR; do printf '%s=%s\\n' $level $(grep -c $level app.log); done")
sh("the first error's time", "sed -n '2p' app.log | cut -d' ' -f1 | tr T ' '")
