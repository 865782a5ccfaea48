"""amla-sandbox's offline examples run unchanged with corral (their imports renamed).

The table of every example, with its status and the output it must print, is in
``amla_examples.py``; the examples that need a framework run in
``tests/integrations/test_amla_framework_examples.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amla_examples import EXAMPLES, FOLDER, check_output, example_names, named, require_folder
from amla_examples import run_example as run

pytestmark = pytest.mark.needs_native("runs each example as a subprocess")


def test_the_table_lists_every_example() -> None:
    require_folder()
    assert sorted(EXAMPLES) == example_names()


def test_every_example_has_a_known_status() -> None:
    statuses = {"offline", "framework", "api-key"}
    assert {name: e.status for name, e in EXAMPLES.items() if e.status not in statuses} == {}
    assert all(e.reason for e in EXAMPLES.values() if e.status != "offline")
    assert all(e.needs for e in EXAMPLES.values() if e.status == "framework")


@pytest.mark.parametrize("name", named("offline"))
def test_offline_example_runs_and_prints_what_it_promises(name: str, tmp_path: Path) -> None:
    require_folder()
    check_output(name, run(name, tmp_path))


def test_the_folder_is_found_beside_the_repository() -> None:
    assert FOLDER.parts[-3:] == ("shared", "compat", "amla-examples")
