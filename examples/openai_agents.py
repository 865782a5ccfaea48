"""corral in the OpenAI Agents SDK: one tool call runs a whole script of tool calls.

The agent gets corral as a ``FunctionTool`` (its only argument is ``code``) and as the SDK's
``ShellTool``. The model's JavaScript calls ``get_weather`` twice in one run; a refund above the
limit is denied on the host and the model reads why, as text; the shell commands run in
corral's shell, each with its own output and exit code.

Needs ``pip install 'corral[openai-agents]'``. It runs offline: the SDK's ``ScriptedModel``
stands in for the LLM (pass ``model="gpt-..."`` with an API key to use a real one).

Prints::

    model read: SF: 64F, Paris: 71F
    model read: CapabilityError: refund denied: amount <= 100 failed (amount = 250)
    answer: Weather fetched; the refund of 250 needs a human.
    shell: cat report.txt -> exit 0: SF 64
    shell: grep Tokyo report.txt -> exit 1: (no output)
"""

from __future__ import annotations

from agents import Agent, Runner, set_tracing_disabled
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call
from openai.types.responses import ResponseFunctionShellToolCall

from corral import create_bash_tool, create_sandbox_tool
from corral.integrations.openai_agents import as_function_tool, shell_tool


def get_weather(city: str) -> dict[str, object]:
    """Current weather for a city."""
    return {"city": city, "temp": {"SF": 64, "Paris": 71}.get(city, 60)}


def refund(order_id: str, amount: float) -> str:
    """Refund an order."""
    return f"refunded {amount} on {order_id}"


WEATHER_JS = """
const reports = await Promise.all(["SF", "Paris"].map((city) => get_weather({city})));
return reports.map((r) => `${r.city}: ${r.temp}F`).join(", ");
"""


def main() -> None:
    set_tracing_disabled(True)
    sandbox = create_sandbox_tool(
        tools=[get_weather, refund], constraints={"refund": {"amount": "<=100"}}
    )
    model = ScriptedModel(
        [
            [function_call("sandbox", {"code": WEATHER_JS}, call_id="c1")],
            [
                function_call(
                    "sandbox", {"code": "await refund({order_id: 'A1', amount: 250})"}, call_id="c2"
                )
            ],
            ModelStep.respond(lambda call: [assistant_message(summary(call.input))]),
        ]
    )
    result = Runner.run_sync(
        Agent(name="support", tools=[as_function_tool(sandbox)], model=model), "Help"
    )
    for item in model.calls[-1].input:
        if item.get("type") == "function_call_output":
            print("model read:", item["output"].strip())
    print("answer:", result.final_output)

    bash = create_bash_tool()
    bash.run("echo 'SF 64' > report.txt")
    shell_call = ResponseFunctionShellToolCall(
        id="s1",
        call_id="s1",
        type="shell_call",
        status="completed",
        action={"commands": ["cat report.txt", "grep Tokyo report.txt"]},
    )
    model = ScriptedModel([[shell_call], [assistant_message("done")]])
    Runner.run_sync(Agent(name="ops", tools=[shell_tool(bash)], model=model), "Check the report")
    outputs = next(i for i in model.calls[-1].input if i.get("type") == "shell_call_output")
    for command, out in zip(shell_call.action.commands, outputs["output"], strict=True):
        code = out["outcome"]["exit_code"]
        print(f"shell: {command} -> exit {code}:", out["stdout"].strip() or "(no output)")


def summary(conversation: list[dict[str, object]]) -> str:
    """What the scripted model answers once it has read both results."""
    outputs = [str(i["output"]) for i in conversation if i.get("type") == "function_call_output"]
    denied = "denied" in outputs[-1]
    return "Weather fetched; the refund of 250 needs a human." if denied else "All done."


if __name__ == "__main__":
    main()
