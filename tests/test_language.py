"""The documented rule that picks the shell or JavaScript when no language is given."""

from __future__ import annotations

import pytest

from corral.language import detect_language

COMMANDS = {"ls", "echo", "grep", "cat", "cd", "export", "let", "return", "printf", "find"}


@pytest.mark.parametrize(
    ("code", "language"),
    [
        ("echo hi", "shell"),
        ("ls -la /tmp", "shell"),
        ("ls .", "shell"),
        ('return "hello"', "javascript"),
        ("const x = 42;", "javascript"),
        ("console.log(1)", "javascript"),
        ("let x = 5", "javascript"),
        ('let "x=5"', "shell"),
        ("export FOO=1", "shell"),
        ("export default 1", "javascript"),
        ("X=5 echo $X", "shell"),
        ("if [ -f x ]; then echo y; fi", "shell"),
        ("if (x) { }", "javascript"),
        ("for f in *; do echo $f; done", "shell"),
        ("for (const x of y) {}", "javascript"),
        ('await get_weather({city: "SF"})', "javascript"),
        ('get_weather({city: "SF"})', "javascript"),
        ("# comment\nls", "shell"),
        ("#!/bin/bash\necho", "shell"),
        ("#!/usr/bin/env node\nconsole.log(1)", "javascript"),
        ("tool get_weather --city SF", "shell"),
        ("cat <<EOF\nx\nEOF", "shell"),
        ("function f() { echo hi; }", "shell"),
        ("function f(a) { return a }", "javascript"),
        ("[[ -f x ]] && echo y", "shell"),
        ("x = 5", "javascript"),
        ("\n\n  grep -c x f\n", "shell"),
        ("", "javascript"),
    ],
)
def test_detect_language(code: str, language: str) -> None:
    assert detect_language(code, COMMANDS) == language
