"""The web demo's copy of Pyodide's runtime, with only what the page's JavaScript uses.

``pyodide.asm.wasm`` is built as a dynamic-linking main module: it exports its 8,560 symbols
so that a package's side module can link against any of them, and so no function in it is
dead code. The demo loads no package, so no side module ever links against its copy.
:func:`trim` writes that copy: the module keeps only the exports that some JavaScript of the
page names (Pyodide's own, the page's, corral's; Emscripten binds export ``name`` as
``_name``), then binaryen's ``wasm-opt`` removes every function no kept export, table entry
or start code reaches and shrinks the rest (``-Oz``), and ``pyodide.asm.mjs`` loses the
bindings (``_name=Module["_name"]=wasmExports["name"]``) of the exports that went. Every
table entry stays (function pointers held in memory are table indices), and the memory
snapshot of Python is made from the trimmed module (web/build.py does), since the exports
Emscripten adds to the table at start-up are fewer.

A name is looked for in the JavaScript as any identifier or word in a string, so a lookup
such as ``Module["_PyFoo"]`` or ``wasmExports["PyFoo"]`` keeps ``PyFoo`` too; only a name
built at run time would be missed, and Pyodide's JavaScript builds none (``ccall``'s, from a
string, is only ever called by side modules' code).

Usage: ``python tools/pyodide_trim.py DIST OUT [SOURCE...]`` (web/build.py imports it).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "WASM_OPT_FLAGS",
    "TrimError",
    "exports",
    "kept_exports",
    "names_in",
    "trim",
    "trim_javascript",
    "used_exports",
]

# The WebAssembly features Pyodide's module uses (wasm-opt must neither reject them nor emit
# others: the module has no target_features section to tell it).
FEATURES = (
    "--mvp-features",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-exception-handling",
    "--enable-reference-types",
)
WASM_OPT_FLAGS = (*FEATURES, "--remove-unused-module-elements", "-Oz")
# Export kinds (the WebAssembly binary format): only these two are ever dropped.
FUNCTION, GLOBAL = 0, 3
EXPORT_SECTION = 7
DATA_SECTION = 11
I32_CONST, END = 0x41, 0x0B  # the opcodes of a data segment's constant address
# pyodide.asm.mjs declares the export bindings in one statement and assigns them in one
# function, which names every export it binds: left out of what is searched for names.
BINDINGS = re.compile(
    r"var (?P<names>[\w$]+(?:,[\w$]+)*);"
    r"function assignWasmExports\(wasmExports\)\{(?P<body>[^{}]*)\}"
)
# (The memory and the table are also bound to a variable or two of Emscripten's own.)
BINDING = re.compile(
    r'(?P<name>[\w$]+)=Module\["(?P=name)"\]=(?:[\w$]+=|Module\["[\w$]+"\]=)*'
    r'wasmExports\["(?P<export>[\w$]+)"\](?:\.value(?:>>>0)?)?'
)
WORD = re.compile(r"[A-Za-z_$][\w$]*")


class TrimError(RuntimeError):
    """Pyodide's files are not what this trimming knows (another Emscripten's output)."""


def _leb(data: bytes, at: int) -> tuple[int, int]:
    """The unsigned LEB128 number at ``at`` and the offset after it."""
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def _uleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _sections(wasm: bytes) -> Iterable[tuple[int, int, int, int]]:
    """Each section as (id, start, payload start, end)."""
    at = 8
    while at < len(wasm):
        size, payload = _leb(wasm, at + 1)
        yield wasm[at], at, payload, payload + size
        at = payload + size


def _export_entries(wasm: bytes) -> tuple[int, int, list[tuple[str, int, bytes]]]:
    """The export section's (start, end) and its entries as (name, kind, encoded entry)."""
    for section, start, payload, end in _sections(wasm):
        if section == EXPORT_SECTION:
            count, at = _leb(wasm, payload)
            entries = []
            for _ in range(count):
                length, name_at = _leb(wasm, at)
                kind = wasm[name_at + length]
                _, after = _leb(wasm, name_at + length + 1)
                name = wasm[name_at : name_at + length].decode()
                entries.append((name, kind, wasm[at:after]))
                at = after
            return start, end, entries
    return len(wasm), len(wasm), []


def exports(wasm: bytes) -> dict[str, int]:
    """The module's export names and their kinds (0 function, 1 table, 2 memory, 3 global,
    4 tag)."""
    return {name: kind for name, kind, _ in _export_entries(wasm)[2]}


def keep_exports(wasm: bytes, keep: set[str]) -> bytes:
    """``wasm`` with only the exports named in ``keep`` (the rest byte for byte)."""
    start, end, entries = _export_entries(wasm)
    kept = [entry for name, _, entry in entries if name in keep]
    payload = _uleb(len(kept)) + b"".join(kept)
    section = bytes([EXPORT_SECTION]) + _uleb(len(payload)) + payload
    return wasm[:start] + section + wasm[end:]


def _active_data(wasm: bytes) -> Iterable[tuple[int, int, int]]:
    """Each active data segment placed at a constant address, as (address, file offset,
    size)."""
    for section, _, payload, _ in _sections(wasm):
        if section != DATA_SECTION:
            continue
        count, at = _leb(wasm, payload)
        for _ in range(count):
            flags, at = _leb(wasm, at)
            if flags == 1:  # passive: no address
                size, at = _leb(wasm, at)
                at += size
                continue
            if flags == 2:  # with a memory index
                _, at = _leb(wasm, at)
            opcode, at = wasm[at], at + 1
            address, at = _leb(wasm, at)  # i32.const (small positive: unsigned = signed)
            if opcode != I32_CONST or wasm[at] != END or address >= 1 << 31:
                raise TrimError("a data segment's address is not a constant")
            size, at = _leb(wasm, at + 1)
            yield address, at, size
            at += size


def zero_data(wasm: bytes, ranges: Iterable[tuple[int, int]]) -> bytes:
    """``wasm`` with the memory in each [start, end) of ``ranges`` zeros as instantiated, where
    active data segments fill it (tools/pyodide_snapshot.mjs: the frozen modules' code)."""
    out = bytearray(wasm)
    segments = list(_active_data(wasm))
    for start, end in ranges:
        for address, offset, size in segments:
            low, high = max(start, address), min(end, address + size)
            if low < high:
                out[offset + low - address : offset + high - address] = bytes(high - low)
    return bytes(out)


def names_in(texts: Iterable[str]) -> set[str]:
    """Every identifier, and every word in a string, of the JavaScript (or Python) ``texts``."""
    found: set[str] = set()
    for text in texts:
        found.update(WORD.findall(text))
    return found


def _bindings(javascript: str) -> re.Match[str]:
    match = BINDINGS.search(javascript)
    if match is None:
        raise TrimError("pyodide.asm.mjs has no `function assignWasmExports` after its bindings")
    return match


def used_exports(wasm: bytes, javascript: str, sources: Iterable[str]) -> set[str]:
    """The exports of ``wasm`` to keep: its memory, table and tags, and each function or
    global that ``javascript`` (pyodide.asm.mjs, without its export bindings) or one of
    ``sources`` names, as ``name`` or ``_name``."""
    bindings = _bindings(javascript)
    rest = javascript[: bindings.start()] + javascript[bindings.end() :]
    names = names_in([rest, *sources])
    return {
        name
        for name, kind in exports(wasm).items()
        if kind not in (FUNCTION, GLOBAL) or name in names or f"_{name}" in names
    }


def trim_javascript(javascript: str, kept: set[str]) -> str:
    """pyodide.asm.mjs without the declarations and assignments of the export bindings that
    name an export not in ``kept``."""
    bindings = _bindings(javascript)
    statements = bindings["body"].split(";")
    parsed = [BINDING.fullmatch(statement) for statement in statements]
    strange = [s for s, match in zip(statements, parsed, strict=True) if match is None]
    if strange:
        raise TrimError(f"pyodide.asm.mjs binds an export in an unknown way: {strange[0][:80]}")
    kept_statements = [m[0] for m in parsed if m is not None and m["export"] in kept]
    dropped = {m["name"] for m in parsed if m is not None and m["export"] not in kept}
    names = [name for name in bindings["names"].split(",") if name not in dropped]
    replacement = (
        f"var {','.join(names)};"
        f"function assignWasmExports(wasmExports){{{';'.join(kept_statements)}}}"
    )
    return javascript[: bindings.start()] + replacement + javascript[bindings.end() :]


def kept_exports(dist: Path, sources: Iterable[str]) -> set[str]:
    """The exports of the Pyodide distribution ``dist``'s module that ``sources`` (the page's
    JavaScript, and Python that holds JavaScript) or Pyodide's own JavaScript use."""
    wasm = (dist / "pyodide.asm.wasm").read_bytes()
    javascript = (dist / "pyodide.asm.mjs").read_text()
    return used_exports(wasm, javascript, [(dist / "pyodide.mjs").read_text(), *sources])


def trim(dist: Path, out: Path, kept: set[str], wasm_opt: str) -> Path:
    """Write to ``out`` a copy of the Pyodide distribution ``dist`` (its loader, lockfile and
    package.json) whose ``pyodide.asm.wasm`` exports only ``kept`` (:func:`kept_exports`),
    optimized with ``wasm_opt``, and whose ``pyodide.asm.mjs`` binds only those; return
    ``out``."""
    wasm = (dist / "pyodide.asm.wasm").read_bytes()
    javascript = (dist / "pyodide.asm.mjs").read_text()
    trimmed_javascript = trim_javascript(javascript, kept)
    out.mkdir(parents=True, exist_ok=True)
    unoptimized = out / "exports-trimmed.wasm"
    unoptimized.write_bytes(keep_exports(wasm, kept))
    subprocess.run(
        [wasm_opt, *WASM_OPT_FLAGS, str(unoptimized), "-o", str(out / "pyodide.asm.wasm")],
        check=True,
    )
    unoptimized.unlink()
    if set(exports((out / "pyodide.asm.wasm").read_bytes())) != kept:
        raise TrimError("wasm-opt changed the module's exports")
    (out / "pyodide.asm.mjs").write_text(trimmed_javascript)
    for name in ("pyodide.mjs", "pyodide-lock.json", "package.json"):
        shutil.copyfile(dist / name, out / name)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", type=Path, help="a Pyodide distribution (pyodide_dist.py)")
    parser.add_argument("out", type=Path, help="where the trimmed copy goes")
    parser.add_argument("sources", type=Path, nargs="*", help="other JavaScript that runs")
    args = parser.parse_args(argv)
    wasm_opt = shutil.which("wasm-opt")
    if wasm_opt is None:
        print("pyodide_trim.py: wasm-opt is needed (apt-get install binaryen)", file=sys.stderr)
        return 1
    kept = kept_exports(args.dist, [path.read_text() for path in args.sources])
    trim(args.dist, args.out, kept, wasm_opt)
    return 0


if __name__ == "__main__":
    sys.exit(main())
