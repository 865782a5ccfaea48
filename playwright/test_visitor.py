"""What a demanding visitor stumbled on (visit13), on a phone-sized page with touch: the
loading card hid the prompt being typed at, wide characters (CJK, emoji) garbled the line being
edited, `clear` was "command not found", the agent replay's notes broke mid-word, and the
JavaScript REPL printed its own envelope for a function or a symbol.

The tests of this module share one page (one sandbox), in order.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Route, ViewportSize
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from conftest import READY_TIMEOUT_MS, Demo, OutsideRequests, new_demo, screenshot

PHONE: ViewportSize = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def phone(browser: Browser, outside: OutsideRequests) -> Iterator[Demo]:
    """The demo at a phone's width with touch, not loaded yet; the agent replay typing at once."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    context.route("**/*", outside.route)
    demo = new_demo(context)
    yield demo
    assert not demo.errors, f"uncaught errors in the page: {demo.errors}"
    context.close()


def screen(demo: Demo) -> list[str]:
    """The terminal's rows as shown (trailing blanks trimmed)."""
    return list(demo.page.evaluate("window.corralDemo.screen"))


def test_the_prompt_typed_at_while_loading_is_not_under_the_loading_card(
    phone: Demo, base_url: str
) -> None:
    held: list[Route] = []  # the worker's script, held so that the page stays loading

    def hold(route: Route) -> None:
        held.append(route)

    phone.page.route("**/worker.js", hold)
    phone.page.goto(f"{base_url}?typing=0", wait_until="domcontentloaded")
    phone.page.wait_for_function("window.corralDemo && window.corralDemo.promptMs !== null")
    phone.page.locator("#terminal").tap()
    phone.page.keyboard.type("echo early")
    assert phone.page.is_visible("#overlay")
    card = phone.page.locator(".overlay-box").bounding_box()
    row = phone.page.locator(".xterm-rows > div", has_text="corral$ echo early").bounding_box()
    assert card is not None and row is not None
    overlaps = row["y"] < card["y"] + card["height"] and card["y"] < row["y"] + row["height"]
    assert not overlaps, (row, card)
    screenshot(phone.page, "20-phone-typing-while-loading")
    for route in held:
        route.continue_()
    phone.page.unroute("**/worker.js")
    mark = len(phone.transcript)  # the entry goes to the transcript on Enter
    phone.page.keyboard.press("Enter")
    phone.page.wait_for_function("window.corralDemo.ready", timeout=READY_TIMEOUT_MS)
    assert phone.wait_prompt(mark).endswith("early\n")


def test_wide_characters_are_edited_in_place(phone: Demo) -> None:
    keys = phone.page.keyboard
    text = "漢字" * 30 + " 😀 end"  # wider than the terminal: it wraps
    keys.type(f"echo {text}")
    for _ in range(len(" 😀 end")):
        keys.press("ArrowLeft")
    keys.type("X")
    keys.press("End")
    keys.type("!")
    edited = f"echo {text[:-6]}X{text[-6:]}!"
    assert phone.page.evaluate("window.corralDemo.line") == edited
    cols = phone.page.evaluate("window.corralDemo.cols")
    want = f"corral$ {edited}".replace(" ", "")  # wide cells that do not fit leave a blank
    settled = """(want) => {  // the terminal draws what it is given asynchronously
        const rows = window.corralDemo.screen;
        const start = rows.findLastIndex((row) => row.startsWith("corral$ "));
        return start >= 0 && rows.slice(start).join("").replaceAll(" ", "") === want;
    }"""
    with contextlib.suppress(PlaywrightTimeoutError):
        phone.page.wait_for_function(settled, arg=want, timeout=5000)
    rows = screen(phone)
    start = max(i for i, row in enumerate(rows) if row.startswith("corral$ "))
    assert "".join(rows[start:]).replace(" ", "") == want, rows[start:]
    assert len(rows) - start > 2 and all(len(row) <= cols for row in rows)
    mark = len(phone.transcript)
    keys.press("Enter")
    assert phone.wait_prompt(mark) == f"{text[:-6]}X{text[-6:]}!\n"
    screenshot(phone.page, "21-phone-wide-characters")


def test_clear_and_reset_clear_the_terminal(phone: Demo) -> None:
    cleared = """() => {  // the terminal draws the new prompt asynchronously
        const rows = window.corralDemo.screen.filter((row) => row);
        return rows.length === 1 && rows[0] === "corral$ ";
    }"""
    for command in ("clear", "reset"):
        phone.run("echo before")
        assert phone.run(command) == ""
        with contextlib.suppress(PlaywrightTimeoutError):
            phone.page.wait_for_function(cleared, timeout=5000)
        rows = [row for row in screen(phone) if row]
        assert rows == ["corral$ "], rows
    assert "command not found" not in phone.transcript


def test_the_agent_replay_breaks_its_notes_at_spaces(phone: Demo) -> None:
    cols = phone.page.evaluate("window.corralDemo.cols")
    mark = len(phone.transcript)
    phone.page.tap("#agent")
    out = phone.wait_prompt(mark)
    assert "✓ identical to the recording" in out  # never broken: other tests look for it
    script = out.index("// Both regions")  # the script the model wrote wraps as code does
    lines = (out[:script] + out[out.index("Answer:") :]).split("\n")
    assert all(len(line) <= cols for line in lines), lines


def test_the_repl_shows_functions_symbols_and_bigints(phone: Demo) -> None:
    phone.mode("javascript")
    assert phone.run("get_weather") == "[Function: get_weather]\n"
    assert phone.run("Symbol('q')") == "Symbol(q)\n"
    assert phone.run("let n = 2n ** 70n") == ""
    assert phone.run("n + 1n") == "1180591620717411303425n\n"
    assert phone.run("[NaN, undefined]") == "[NaN,undefined]\n"
    phone.mode("shell")


def test_a_pasted_script_keeps_its_tabs(phone: Demo) -> None:
    """A `<<-` here-document strips the tabs its lines start with: a paste once made them
    spaces, so its delimiter never came and the entry waited for more."""
    mark = len(phone.transcript)
    script = "cat <<-END\n\tindented\n\tEND\nprintf 'a\\tb\\n' | od -c | head -1\n"
    phone.page.evaluate("(text) => window.corralDemo.paste(text)", script)
    out = phone.wait_prompt(mark)
    assert out.endswith("indented\n0000000   a  \\t   b  \\n\n"), out
    keys = phone.page.keyboard
    keys.press("ArrowUp")  # recalled with its line breaks and tabs shown, and run the same
    assert phone.page.evaluate("window.corralDemo.line").startswith("cat <<-END⏎⇥indented⏎⇥END⏎")
    mark = len(phone.transcript)
    keys.press("Enter")
    assert phone.wait_prompt(mark).endswith("indented\n0000000   a  \\t   b  \\n\n")


def test_word_keys_move_and_ctrl_d_deletes(phone: Demo) -> None:
    keys = phone.page.keyboard
    keys.type("echo one two")
    for key in ("Alt+b", "Control+ArrowLeft"):  # Alt-B once typed a "b"
        keys.press(key)
    keys.press("Control+d")
    keys.press("Alt+f")
    keys.type("!")
    assert phone.page.evaluate("window.corralDemo.line") == "echo ne! two"
    mark = len(phone.transcript)
    keys.press("Enter")
    assert phone.wait_prompt(mark) == "ne! two\n"


def test_here_strings_and_shifts_are_not_taken_for_here_documents(phone: Demo) -> None:
    """`<<<` and a `<<` inside `$((...))` once made Enter wait for a here-document's end."""
    cases = {
        "grep b <<< abc": False,
        "echo $((1 << 3)) $((2<<1))": False,
        "((x = 1 << 2))": False,
        "cat <<EOF": True,
        "echo $(cat <<EOF": True,
        "for ((i = 0; i < 3; i++)); do": True,
    }
    found = phone.page.evaluate(
        """async (texts) => {
            const { shellIncomplete } = await import("./incomplete.js");
            return texts.map(shellIncomplete);
        }""",
        list(cases),
    )
    assert dict(zip(cases, found, strict=True)) == cases
    assert phone.run("grep --color=never b <<< abc") == "abc\n"


def test_replay_last_in_the_sandbox_the_page_opened_first(phone: Demo) -> None:
    """The first sandbox was opened from no snapshot: the worker passed Python a JavaScript
    null for it, which Pyodide makes a JsNull, not None, and the replay failed."""
    assert phone.run("echo $((6 * 7))") == "42\n"
    assert phone.page.evaluate("window.corralDemo.restarts") == 0
    mark = len(phone.transcript)
    phone.page.tap("#replay")
    replayed = phone.wait_prompt(mark)
    assert "✓ output identical to the original run" in replayed, replayed


def test_an_arrow_pressed_while_a_command_runs_is_not_typed(phone: Demo) -> None:
    """Keys typed during a command wait for the next prompt; an arrow among them once became
    the text `[A` at the start of the next command."""
    keys = phone.page.keyboard
    mark = phone.type("sleep 1")
    phone.page.wait_for_function("window.corralDemo.busy")
    keys.press("ArrowUp")
    keys.type("echo typed ahead")
    keys.press("Enter")
    phone.page.wait_for_function(
        "(mark) => window.corralDemo.transcript.slice(mark).includes('typed ahead\\n')", arg=mark
    )
    assert "[A" not in phone.transcript[mark:]
    phone.wait_prompt(mark)
