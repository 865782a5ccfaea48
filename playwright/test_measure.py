"""Measured, not asserted: time to a ready prompt with a warm cache, and the round trip of
``echo hi`` from the terminal. Printed at the end of the run and saved as measurements.json.

The warm-cache loads use a browser profile on disk, as a returning visitor has: its HTTP cache,
V8's code cache for Pyodide's WebAssembly, and the Pyodide memory snapshot the first visit's
standby worker stored in Cache Storage (the first load waits for that standby, as a visitor
who stays a few seconds does). Requests there are not intercepted (Playwright's
routing turns the HTTP cache off); outside hosts do not resolve, and any attempt still fails
the test.
"""

from __future__ import annotations

import os
import statistics
from pathlib import Path

from playwright.sync_api import Playwright

from conftest import (
    CHROMIUM,
    CHROMIUM_ARGS,
    MEASUREMENTS,
    READY_TIMEOUT_MS,
    RESOLVE_ONLY_LOCALHOST,
    VIEWPORT,
    Demo,
    OutsideRequests,
    new_demo,
)

WARM_LOADS = 10
ROUND_TRIPS = 30


def test_ready_time_with_a_warm_cache(
    playwright: Playwright, base_url: str, outside: OutsideRequests, tmp_path: Path
) -> None:
    MEASUREMENTS["load_average_1min_before"] = round(os.getloadavg()[0], 2)
    context = playwright.chromium.launch_persistent_context(
        str(tmp_path / "profile"),
        executable_path=CHROMIUM,
        args=[*CHROMIUM_ARGS, RESOLVE_ONLY_LOCALHOST],
        viewport=VIEWPORT,
    )
    context.on("request", outside.saw)  # not context.route: that would turn the cache off
    times = []
    prompts = []
    restored = []
    try:
        for load in range(WARM_LOADS + 1):  # the first load, with an empty profile, fills the cache
            demo = new_demo(context)
            times.append(demo.open(base_url))
            prompts.append(demo.page.evaluate("window.corralDemo.promptMs"))
            stages = demo.page.evaluate("window.corralDemo.timings")
            restored.append(stages["snapshot"])
            if load == 0:
                demo.page.wait_for_function(
                    "window.corralDemo.standbyReady", timeout=READY_TIMEOUT_MS
                )
            demo.page.close()
    finally:
        context.close()
    MEASUREMENTS["prompt_ms_cold_new_profile (typing accepted)"] = round(prompts[0])
    MEASUREMENTS["prompt_ms_warm_median (typing accepted)"] = round(statistics.median(prompts[1:]))
    MEASUREMENTS["ready_ms_cold_new_profile"] = round(times[0])
    MEASUREMENTS["ready_ms_warm_median"] = round(statistics.median(times[1:]))
    MEASUREMENTS["ready_ms_warm_best"] = round(min(times[1:]))
    MEASUREMENTS["ready_ms_warm_all"] = [round(t) for t in times[1:]]
    MEASUREMENTS["ready_stages_ms_last_warm_load (worker clock)"] = stages
    MEASUREMENTS["warm_loads_from_the_pyodide_snapshot"] = f"{sum(restored[1:])}/{WARM_LOADS}"
    MEASUREMENTS["ready_target_ms (warm; cold 3000)"] = 1500


def test_echo_round_trip_from_the_terminal(demo: Demo) -> None:
    for _ in range(5):  # warm up
        assert demo.run("echo hi") == "hi\n"
    before = demo.page.evaluate("window.corralDemo.roundTrips.length")
    for _ in range(ROUND_TRIPS):
        assert demo.run("echo hi") == "hi\n"
    trips = demo.page.evaluate("window.corralDemo.roundTrips")[before:]
    MEASUREMENTS["echo_hi_round_trip_ms_median"] = round(statistics.median(trips), 2)
    MEASUREMENTS["echo_hi_round_trip_ms_min_max"] = [round(min(trips), 2), round(max(trips), 2)]
    MEASUREMENTS["round_trip_target_ms"] = 20
    MEASUREMENTS["load_average_1min_after"] = round(os.getloadavg()[0], 2)
