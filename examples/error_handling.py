"""Error handling: guest failures come back in the result, never as Python exceptions.

Each result says what happened (exit_code, error, error_kind) and str(result) is the text a
model should read to fix its code.

Run: python examples/error_handling.py
"""

from corral import Limits, MethodCapability, Param, Sandbox


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b


sandbox = Sandbox(
    tools=[divide],
    capabilities=[MethodCapability("divide", [Param("b") != 0], max_calls=5)],
    limits=Limits(timeout=0.5),
)
cases = {
    "exception": "throw new Error('bad input')",
    "syntax": "const x = {",
    "denied": "return await divide({a: 1, b: 0})",
    "bad argument": "return await divide({a: 1, c: 2})",
    "caught": "try { await divide({a: 1, b: 0}) } catch (e) { return 'handled: ' + e.name }",
    "timeout": "while (true) {}",
    "shell exit": ("grep -q needle /workspace/missing.txt", "shell"),
}
for name, case in cases.items():
    code, language = case if isinstance(case, tuple) else (case, "javascript")
    result = sandbox.execute(code, language)
    print(f"{name}: exit {result.exit_code}, kind {result.error_kind}")
    print("  " + str(result).strip().splitlines()[0].split(";")[0])

# The sandbox stays usable after every one of them.
print(sandbox.execute("return await divide({a: 6, b: 3})").return_value)
