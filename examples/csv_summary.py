"""Summarise a 50 MB CSV inside the sandbox with a shell pipeline, and time it.

The CSV is written into the sandbox's in-memory files from Python; awk, sort and head do the
work inside the WebAssembly module; only the summary comes back.

Run: python examples/csv_summary.py
"""

import time

from corral import Sandbox

REGIONS = ["north", "south", "east", "west", "central"]
PRODUCTS = ["widget", "gadget", "gizmo", "doohickey"]
TARGET = 50 * 1024 * 1024

rows = ["date,region,product,units,price"]
size = len(rows[0]) + 1
i = 0
while size < TARGET:
    day = f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}"
    row = f"{day},{REGIONS[i % 5]},{PRODUCTS[i % 4]},{1 + i % 9},{5 + i % 7}.50"
    rows.append(row)
    size += len(row) + 1
    i += 1
data = "\n".join(rows) + "\n"

sandbox = Sandbox()
started = time.perf_counter()
sandbox.fs.write("/workspace/sales.csv", data)
wrote = time.perf_counter() - started
print(f"wrote {len(data) / 2**20:.1f} MB, {len(rows) - 1} rows into the sandbox")

pipeline = r"""
wc -l < sales.csv
awk -F, 'NR > 1 { revenue[$2] += $4 * $5; units[$2] += $4 }
         END { for (r in revenue) printf "%s %d %.2f\n", r, units[r], revenue[r] }' sales.csv |
  sort -k3,3 -rn | head -n 3
"""
started = time.perf_counter()
result = sandbox.execute(pipeline, language="shell")
summary = time.perf_counter() - started
print(result.stdout, end="")
print(f"timings: write {wrote:.2f} s, pipeline {summary:.2f} s", flush=True)
