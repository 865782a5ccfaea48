"""Hatch build hook: builds the guest and puts ``corral.wasm`` into the wheel.

The wheel stays ``py3-none-any``: the module is the same on every platform. Set
``CORRAL_WASM=/path/to/corral.wasm`` to package a module built elsewhere.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def _toolchain(root: Path) -> Any:
    spec = importlib.util.spec_from_file_location(
        "corral_toolchain", root / "guest" / "toolchain.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


class CorralBuildHook(BuildHookInterface):  # type: ignore[type-arg]
    """Builds ``corral.wasm`` before the wheel is assembled."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        built = _toolchain(root).build(root / "build" / "corral.wasm")
        if version == "editable":
            # An editable install imports python/corral directly: the module must sit there.
            shutil.copyfile(built, root / "python" / "corral" / "corral.wasm")
        else:
            build_data["force_include"][str(built)] = "corral/corral.wasm"
        build_data["pure_python"] = True
        build_data["tag"] = "py3-none-any"
