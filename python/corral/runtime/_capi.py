"""The few functions of wasmtime's C API that corral uses, bound with ctypes.

The library is the one the ``wasmtime`` wheel ships (the dependency stays: it is what installs
it), found without importing wasmtime-py: its ``__init__`` declares every function of the C
API with ctypes and costs a fresh process tens of milliseconds, more than everything else its
first sandbox does. Only the C API of the releases in :data:`SUPPORTED` is bound; another
release is refused at load with an error that names both (its structures and signatures are
not checked at run time, so running against another could corrupt memory silently).
Pointers are plain integers (``c_void_p``); nothing here owns anything: the backend frees
what it creates.
"""

from __future__ import annotations

import ctypes
import os
import sys

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CALLBACK",
    "EXTERN_FUNC",
    "EXTERN_MEMORY",
    "FINALIZER",
    "OPT_LEVEL_SPEED",
    "SUPPORTED",
    "TRAP_INTERRUPT",
    "TRAP_MEMORY_OUT_OF_BOUNDS",
    "TRAP_STACK_OVERFLOW",
    "Extern",
    "Library",
    "Raw",
    "Vec",
    "WasmtimeError",
    "load",
    "machine",
]

SUPPORTED = (50,)
"""The wasmtime major releases whose C API this module binds (``wasmtime_val_raw_t``,
``wasmtime_extern_t`` and the signatures below are theirs)."""

OPT_LEVEL_SPEED = 1
VALKIND_I32, VALKIND_I64 = 0, 1
EXTERN_FUNC, EXTERN_MEMORY = 0, 3
TRAP_STACK_OVERFLOW, TRAP_MEMORY_OUT_OF_BOUNDS, TRAP_INTERRUPT = 0, 1, 10


class WasmtimeError(Exception):
    """wasmtime refused something (a ``wasmtime_error_t``), with wasmtime's message."""


class Raw(ctypes.Union):
    """``wasmtime_val_raw_t``: an argument or result of an unchecked call (16 bytes)."""

    _fields_ = [("i32", ctypes.c_int32), ("i64", ctypes.c_int64), ("v128", ctypes.c_uint8 * 16)]


class Extern(ctypes.Structure):
    """``wasmtime_extern_t``: a kind, then the item (a function or a memory: opaque here)."""

    _fields_ = [("kind", ctypes.c_uint8), ("of", ctypes.c_uint64 * 3)]


class Vec(ctypes.Structure):
    """Any ``wasm_*_vec_t``: a size and a pointer to the items."""

    _fields_ = [("size", ctypes.c_size_t), ("data", ctypes.c_void_p)]


P = ctypes.c_void_p
_SIZE, _U8, _U64, _I64, _BOOL = (
    ctypes.c_size_t,
    ctypes.c_uint8,
    ctypes.c_uint64,
    ctypes.c_int64,
    ctypes.c_bool,
)
CALLBACK = ctypes.CFUNCTYPE(P, P, P, ctypes.POINTER(Raw), _SIZE)
"""``wasmtime_func_unchecked_callback_t``: (env, caller, arguments and results, their count)
to a ``wasm_trap_t *`` (None for none)."""
DEADLINE_CALLBACK = ctypes.CFUNCTYPE(P, P, P, ctypes.POINTER(_U64), ctypes.POINTER(_U8))
"""The epoch deadline callback: (context, env, the new deadline's delta in ticks, continue
(0) or yield (1)) to a ``wasmtime_error_t *`` that ends the call (None to go on)."""
FINALIZER = ctypes.CFUNCTYPE(None, P)
"""A finalizer of host data (``FINALIZER()`` is none)."""

# name: (result, arguments), as in wasmtime.h of the SUPPORTED releases.
_SIGNATURES: dict[str, tuple[Any, tuple[Any, ...]]] = {
    "wasm_config_new": (P, ()),
    "wasmtime_config_epoch_interruption_set": (None, (P, _BOOL)),
    "wasmtime_config_cranelift_opt_level_set": (None, (P, _U8)),
    "wasmtime_config_memory_reservation_set": (None, (P, _U64)),
    "wasmtime_config_memory_guard_size_set": (None, (P, _U64)),
    "wasmtime_config_memory_reservation_for_growth_set": (None, (P, _U64)),
    "wasm_engine_new_with_config": (P, (P,)),
    "wasm_engine_delete": (None, (P,)),
    "wasmtime_engine_increment_epoch": (None, (P,)),
    "wasmtime_module_new": (P, (P, ctypes.c_char_p, _SIZE, P)),
    "wasmtime_module_deserialize_file": (P, (P, ctypes.c_char_p, P)),
    "wasmtime_module_serialize": (P, (P, P)),
    "wasmtime_module_imports": (None, (P, P)),
    "wasmtime_module_delete": (None, (P,)),
    "wasm_importtype_module": (P, (P,)),
    "wasm_importtype_name": (P, (P,)),
    "wasm_importtype_vec_delete": (None, (P,)),
    "wasm_valtype_new": (P, (_U8,)),
    "wasm_valtype_vec_new": (None, (P, _SIZE, P)),
    "wasm_valtype_kind": (_U8, (P,)),
    "wasm_functype_new": (P, (P, P)),
    "wasm_functype_params": (P, (P,)),
    "wasm_functype_results": (P, (P,)),
    "wasm_functype_delete": (None, (P,)),
    "wasmtime_linker_new": (P, (P,)),
    "wasmtime_linker_define_func_unchecked": (
        P,
        (P, ctypes.c_char_p, _SIZE, ctypes.c_char_p, _SIZE, P, CALLBACK, P, FINALIZER),
    ),
    "wasmtime_linker_instantiate": (P, (P, P, P, P, P)),
    "wasmtime_linker_delete": (None, (P,)),
    "wasmtime_store_new": (P, (P, P, FINALIZER)),
    "wasmtime_store_context": (P, (P,)),
    "wasmtime_store_limiter": (None, (P, _I64, _I64, _I64, _I64, _I64)),
    "wasmtime_store_delete": (None, (P,)),
    "wasmtime_context_set_epoch_deadline": (None, (P, _U64)),
    "wasmtime_store_epoch_deadline_callback": (None, (P, DEADLINE_CALLBACK, P, FINALIZER)),
    "wasmtime_error_new": (P, (ctypes.c_char_p,)),
    "wasmtime_instance_export_get": (_BOOL, (P, P, ctypes.c_char_p, _SIZE, P)),
    "wasmtime_func_type": (P, (P, P)),
    "wasmtime_func_call_unchecked": (P, (P, P, P, _SIZE, P)),
    "wasmtime_memory_data": (P, (P, P)),
    "wasmtime_memory_data_size": (_SIZE, (P, P)),
    "wasmtime_memory_grow": (P, (P, P, _U64, P)),
    "wasmtime_trap_new": (P, (ctypes.c_char_p, _SIZE)),
    "wasmtime_trap_code": (_BOOL, (P, P)),
    "wasm_trap_message": (None, (P, P)),
    "wasm_trap_delete": (None, (P,)),
    "wasmtime_error_message": (None, (P, P)),
    "wasmtime_error_delete": (None, (P,)),
    "wasm_byte_vec_delete": (None, (P,)),
}

_FULL_NAMES = {name.removeprefix("wasmtime_").removeprefix("wasm_"): name for name in _SIGNATURES}


class Library:
    """wasmtime's shared library with :data:`_SIGNATURES` declared: each is an attribute,
    named without its ``wasmtime_`` or ``wasm_`` prefix."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._dll = ctypes.CDLL(path)

    def __getattr__(self, name: str) -> Any:
        # Declared when first used (then an attribute): a first sandbox uses about half.
        full = _FULL_NAMES.get(name)
        if full is None:
            raise AttributeError(name)
        function = self._dll[full]
        function.restype, function.argtypes = _SIGNATURES[full]
        setattr(self, name, function)
        return function

    def error(self, error: int) -> WasmtimeError:
        """The :class:`WasmtimeError` of ``error`` (a ``wasmtime_error_t *``, then freed)."""
        vec = Vec()
        self.error_message(error, ctypes.byref(vec))
        message = ctypes.string_at(vec.data, vec.size).decode("utf-8", "replace")
        self.byte_vec_delete(ctypes.byref(vec))
        self.error_delete(error)
        return WasmtimeError(message)

    def check(self, error: int | None) -> None:
        """Raise :class:`WasmtimeError` if ``error`` (a ``wasmtime_error_t *``) is set."""
        if error:
            raise self.error(error)

    def trap(self, trap: int) -> tuple[int | None, str]:
        """The code (None if it has none) and message of ``trap`` (then freed)."""
        code = ctypes.c_uint8()
        has_code = self.trap_code(trap, ctypes.byref(code))
        vec = Vec()
        self.trap_message(trap, ctypes.byref(vec))
        message = ctypes.string_at(vec.data, vec.size).rstrip(b"\0").decode("utf-8", "replace")
        self.byte_vec_delete(ctypes.byref(vec))
        self.trap_delete(trap)
        return (code.value if has_code else None), message

    def imports(self, module: int) -> list[tuple[str, str]]:
        """The (module, name) of each import of ``module``, in order."""
        vec = Vec()
        self.module_imports(module, ctypes.byref(vec))
        try:
            items = ctypes.cast(vec.data, ctypes.POINTER(P))
            return [
                (
                    self._name(self.importtype_module(items[i])),
                    self._name(self.importtype_name(items[i])),
                )
                for i in range(vec.size)
            ]
        finally:
            self.importtype_vec_delete(ctypes.byref(vec))

    @staticmethod
    def _name(vec: int) -> str:
        name = Vec.from_address(vec)
        return ctypes.string_at(name.data, name.size).decode("utf-8", "replace")

    def functype(self, params: str, results: str) -> int:
        """A new ``wasm_functype_t *`` (``"i"`` = i32, ``"I"`` = i64); the caller frees it."""
        vecs = []
        for kinds in (params, results):
            types = (P * max(1, len(kinds)))(
                *[self.valtype_new(VALKIND_I32 if k == "i" else VALKIND_I64) for k in kinds]
            )
            vec = Vec()
            self.valtype_vec_new(ctypes.byref(vec), len(kinds), types)
            vecs.append(vec)
        return int(self.functype_new(ctypes.byref(vecs[0]), ctypes.byref(vecs[1])))

    def signature(self, context: int, func: int) -> tuple[str, str]:
        """The parameter and result kinds of function ``func`` (``"i"``, ``"I"``, or ``"?"``
        for any other type)."""
        functype = self.func_type(context, func)
        try:
            return self._kinds(self.functype_params(functype)), self._kinds(
                self.functype_results(functype)
            )
        finally:
            self.functype_delete(functype)

    def _kinds(self, vec_address: int) -> str:
        vec = Vec.from_address(vec_address)
        items = ctypes.cast(vec.data, ctypes.POINTER(P))
        kinds = [self.valtype_kind(items[i]) for i in range(vec.size)]
        return "".join({VALKIND_I32: "i", VALKIND_I64: "I"}.get(k, "?") for k in kinds)


def load() -> Library:
    """The library of the installed ``wasmtime`` wheel, checked to be a :data:`SUPPORTED`
    release; ImportError (saying what to install) when it is missing or another release."""
    package = _package_dir()
    version = _version(package)
    wanted = " or ".join(f"{major}.x" for major in SUPPORTED)
    install = f"pip install 'wasmtime>={SUPPORTED[0]},<{SUPPORTED[-1] + 1}'"
    if version is None or int(version.split(".")[0]) not in SUPPORTED:
        found = f"wasmtime {version}" if version else "a wasmtime whose version is unknown"
        raise ImportError(
            f"corral binds the C API of wasmtime {wanted}, and {found} is installed: {install}"
        )
    path = os.path.join(package, *_library_location())
    if not os.path.exists(path):
        raise ImportError(f"the wasmtime package has no library for this platform at {path}")
    return Library(path)


def _package_dir() -> str:
    """Where the ``wasmtime`` package is, found as ``import`` would, without importing it."""
    for finder in sys.meta_path:
        find_spec = getattr(finder, "find_spec", None)
        spec = find_spec("wasmtime", None) if find_spec else None
        if spec is not None and spec.submodule_search_locations:
            return str(spec.submodule_search_locations[0])
    raise ImportError(
        f"the wasmtime package is not installed: pip install 'wasmtime=={SUPPORTED[-1]}.*'"
    )


def _version(package: str) -> str | None:
    """The installed wasmtime's version, from its wheel's ``.dist-info`` directory beside the
    package (``importlib.metadata`` would cost a fresh process ~10 ms); None if not found."""
    site = os.path.dirname(package)
    for name in os.listdir(site):
        if name.startswith("wasmtime-") and name.endswith(".dist-info"):
            return name[len("wasmtime-") : -len(".dist-info")]
    return None


def machine() -> str:
    """``platform.machine()``, without importing :mod:`platform` where ``os.uname`` exists."""
    if hasattr(os, "uname"):
        return os.uname().machine
    import platform  # Windows

    return platform.machine()


def _library_location() -> tuple[str, str]:
    """The library's directory and file name inside the package (as the wheel lays it out)."""
    if sys.platform == "win32":
        name = "_wasmtime.dll"
    else:
        name = "_libwasmtime.dylib" if sys.platform == "darwin" else "_libwasmtime.so"
    arch = machine()
    arch = {"AMD64": "x86_64", "arm64": "aarch64", "ARM64": "aarch64"}.get(arch, arch)
    return f"{sys.platform}-{arch}", name
