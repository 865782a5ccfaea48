"""Record the "Agent at work" session the demo page replays (``web/agent_session.json``).

The session is what a model working in code mode produces: a task, one script that calls the
demo's tools (in parallel, and once outside its constraints), and the final answer. It is run
here, natively, in a :class:`corral.Sandbox` with the demo's tools and capabilities, and the
sandbox's trace is saved with it; the page replays that trace with :func:`corral.replay_all`
(no model, no server, no tool called) and shows the recorded calls as they come. Run it again
when the guest module changes in a way that makes the replay diverge (``tests/test_web_demo.py``
checks that the saved trace still replays)::

    python web/record_agent_session.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from corral import Sandbox

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corral_demo import CAPABILITIES, get_weather, sales_records

SESSION = Path(__file__).resolve().parent / "agent_session.json"
TASK = (
    "Which region sold more units in its 10 latest sales, EU or US? Also check the weather in "
    "Paris for Friday's review, and whether APAC figures are available."
)
SCRIPT = """\
// Both regions at once: one round trip for the model, two tool calls in the sandbox.
const [eu, us] = await Promise.all([
  sales_records({region: "EU", limit: 10}),
  sales_records({region: "US", limit: 10}),
]);
const units = (rows) => rows.reduce((sum, row) => sum + row.units, 0);
const weather = await get_weather({city: "Paris"});
let apac;
try {
  apac = await sales_records({region: "APAC", limit: 10});
} catch (error) {
  apac = error.message; // outside the capabilities: denied, and the script goes on
}
const winner = units(eu) > units(us) ? "EU" : "US";
return `${winner} sold more: EU ${units(eu)} units, US ${units(us)} units. ` +
  `Paris: ${weather.temp_c} °C, ${weather.sky}. APAC: ${apac}`;
"""


def record() -> dict[str, object]:
    """Run the script once and return the session: task, script, answer and trace."""
    with Sandbox(tools=[sales_records, get_weather], capabilities=list(CAPABILITIES)) as sandbox:
        result = sandbox.execute(SCRIPT, "javascript")
        if not result.ok:
            raise RuntimeError(f"the recorded script failed: {result.error}")
        return {
            "task": TASK,
            "language": "javascript",
            "code": SCRIPT,
            "answer": result.return_value,
            "trace": sandbox.trace.to_jsonl(),
        }


def main() -> int:
    SESSION.write_text(json.dumps(record(), indent=1, ensure_ascii=False) + "\n")
    print(f"recorded {SESSION}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
