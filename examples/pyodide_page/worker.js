// Loads Pyodide, installs the corral wheel served next to this page, and runs one sandbox.
// PYODIDE: where pyodide.js is served (the npm package "pyodide", or its CDN); WHEEL: the wheel.
const PYODIDE = "./pyodide/pyodide.js";
const WHEEL = new URL("./corral-0.1.0-py3-none-any.whl", self.location).href;

importScripts(PYODIDE);

async function main() {
  const pyodide = await loadPyodide();
  await pyodide.loadPackage("micropip");
  const micropip = pyodide.pyimport("micropip");
  await micropip.install(WHEEL);
  const text = await pyodide.runPythonAsync(`
import corral

def get_weather(city: str) -> dict:
    """Current weather for a city."""
    return {"city": city, "temp": {"Paris": 18, "Lima": 24}.get(city, 20)}

sandbox = corral.Sandbox(tools=[get_weather])
result = await sandbox.aexecute("""
    const r = await Promise.all(["Paris", "Lima"].map((city) => get_weather({city})));
    return r.map((w) => w.city + ": " + w.temp + "C").join("\\\\n");
""")
str(result)
`);
  self.postMessage(text);
}

main().catch((error) => self.postMessage(`error: ${error}`));
