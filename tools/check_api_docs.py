"""Check that every public name of the package is documented.

Run after the Sphinx HTML build (the docs session does): every name in the ``__all__`` of a
public module (no part of its dotted name starts with ``_``) must have a docstring and an
entry in the build's ``objects.inv``, under its own module or the module it comes from.

    python tools/check_api_docs.py docs/_build/html/objects.inv
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

from sphinx.util.inventory import InventoryFile

import corral


# Plain values and type aliases are documented on their page (``py:data``, with the text
# under them); only functions and classes carry their own docstring.
def needs_docstring(value: object) -> bool:
    return inspect.isfunction(value) or inspect.isclass(value)


def documented_names(inventory: Path) -> set[str]:
    with inventory.open("rb") as stream:
        entries = InventoryFile.load(stream, "", lambda base, uri: uri)
    return {name for kind, names in entries.items() if kind.startswith("py:") for name in names}


def public_modules() -> list[str]:
    found = pkgutil.walk_packages(corral.__path__, "corral.")
    names = [m.name for m in found if not any(p.startswith("_") for p in m.name.split("."))]
    return ["corral", *sorted(names)]


def problems(inventory: Path) -> list[str]:
    documented = documented_names(inventory)
    found: list[str] = []
    for module_name in public_modules():
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # an integration whose framework is not installed here
            continue
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            origin = getattr(value, "__module__", module_name)
            places = {f"{module_name}.{name}", f"{origin}.{name}"}
            if not places & documented:
                found.append(f"{module_name}.{name}: on no docs page")
            if needs_docstring(value) and not inspect.getdoc(value):
                found.append(f"{module_name}.{name}: no docstring")
    return found


def main() -> int:
    inventory = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/_build/html/objects.inv")
    found = problems(inventory)
    for line in found:
        print(line, file=sys.stderr)
    print(f"{len(found)} undocumented public names" if found else "every public name documented")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
