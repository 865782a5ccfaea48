"""amla-sandbox's examples that need a framework adapter, or a model provider's key.

The framework ones run here (``nox -s integrations``, where the frameworks are installed); the
ones that need an API key are listed and skipped with the reason. See
``tests/amla_examples.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amla_examples import EXAMPLES, check_output, named, require_folder
from amla_examples import run_example as run


@pytest.mark.parametrize("name", named("framework"))
def test_framework_example_runs(name: str, tmp_path: Path) -> None:
    require_folder()
    pytest.importorskip(EXAMPLES[name].needs, reason=EXAMPLES[name].reason)
    check_output(name, run(name, tmp_path))


@pytest.mark.parametrize("name", named("api-key"))
def test_api_key_example(name: str) -> None:
    pytest.skip(f"{name} {EXAMPLES[name].reason}: not run offline")
