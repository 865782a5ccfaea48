"""Quick start: give an agent one tool that runs code, and let the code call your functions.

Run: python examples/quick_start.py
"""

from corral import create_bash_tool


def get_weather(city: str) -> dict:
    """Current weather for a city."""
    return {"city": city, "temp": {"Paris": 18, "Lima": 24}.get(city, 20)}


# The one tool an agent gets: it runs JavaScript or bash, and the code may call get_weather.
sandbox = create_bash_tool(tools=[get_weather], max_calls=10)

# What a model would write in JavaScript: two tool calls, one round trip through the model.
print(
    sandbox.run("""
    const reports = await Promise.all(["Paris", "Lima"].map((city) => get_weather({city})));
    return reports.map((r) => `${r.city}: ${r.temp}C`).join("\\n");
""")
)

# ... or in bash, with GNU-like tools, and `tool NAME --key value` to call a tool.
print(sandbox.run("tool get_weather --city Lima | jq .temp"), end="")
print(sandbox.run("echo 'b a c' | tr ' ' '\\n' | sort | paste -sd,"), end="")

# Files persist between runs of one sandbox.
sandbox.run("echo remembered > /workspace/note.txt")
print(sandbox.run("return (await fs.readFile('/workspace/note.txt')).trim()"))
