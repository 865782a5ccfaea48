"""Records: classes of named fields, made without ``dataclasses`` at import (issue 14).

``@dataclass`` imports ``inspect`` (with ``ast``, ``dis`` and ``tokenize``) and compiles
several methods per class: a large part of a fresh process's first sandbox. A
:class:`Record` subclass gets what ``@dataclass`` gave corral's result and record types: an
``__init__`` compiled once per class from the annotated fields (a real signature, defaults,
``field(default_factory=...)``, ``kw_only``, ``__post_init__``), ``repr``, ``==``, ``hash`` and
immutability when ``frozen=True``, ``__match_args__``, ``__replace__`` and pickling. For
``dataclasses.fields``, ``asdict``, ``replace`` and ``is_dataclass``, ``__dataclass_fields__``
and ``__dataclass_params__`` are taken, the first time one of them is asked for, from a
dataclass that ``dataclasses.make_dataclass`` builds from the same fields: the one place where
``dataclasses`` is imported. Only a direct subclass of :class:`Record` is a record; a subclass
of a record is a plain class that inherits all this, as an undecorated subclass of a dataclass.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Self, dataclass_transform
else:

    def dataclass_transform(**_: object) -> object:
        return lambda cls: cls


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<factory>"  # what a signature shows for a default_factory field, as dataclasses


_MISSING: Any = _Missing()


class _Field:
    """What :func:`field` says about one field."""

    __slots__ = ("compare", "default", "default_factory", "repr")

    def __init__(self, default: Any, default_factory: Any, repr: bool, compare: bool) -> None:
        self.default = default
        self.default_factory = default_factory
        self.repr = repr
        self.compare = compare


def field(
    *,
    default: Any = _MISSING,
    default_factory: Any = _MISSING,
    repr: bool = True,
    compare: bool = True,
) -> Any:
    """A field's default or default factory, and whether ``repr`` and ``==`` use it."""
    return _Field(default, default_factory, repr, compare)


def _frozen_error(message: str) -> Exception:
    from dataclasses import FrozenInstanceError  # a user may catch it, as with a dataclass

    return FrozenInstanceError(message)


class _DataclassAttribute:
    """``__dataclass_fields__`` / ``__dataclass_params__``, made on first access (see the top)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: object, owner: type[Record]) -> Any:
        # Made for the record class itself (a plain subclass inherits its fields), never for
        # Record: that would hand every record not asked yet an empty set of fields.
        record = next((c for c in owner.__mro__ if Record in c.__bases__), None)
        if record is None:
            raise AttributeError(self.name)  # Record itself is no dataclass
        import dataclasses

        owner = record
        specs = []
        for name, spec in owner._specs.items():
            options: dict[str, Any] = {"repr": spec.repr, "compare": spec.compare}
            if spec.default is not _MISSING:
                options["default"] = spec.default
            if spec.default_factory is not _MISSING:
                options["default_factory"] = spec.default_factory
            specs.append((name, owner._annotations[name], dataclasses.field(**options)))
        twin = dataclasses.make_dataclass(
            owner.__name__, specs, frozen=owner._frozen, kw_only=owner._kw_only
        )
        for name in ("__dataclass_fields__", "__dataclass_params__"):
            setattr(owner, name, getattr(twin, name))  # this descriptor is not asked again
        return getattr(owner, self.name)


@dataclass_transform(field_specifiers=(field,))
class Record:
    """The base of a record class: ``class Point(Record, frozen=True): x: int; y: int = 0``."""

    __slots__ = ()
    _specs: ClassVar[dict[str, _Field]] = {}
    _annotations: ClassVar[dict[str, str]] = {}
    _frozen = False
    _kw_only = False
    _compared: tuple[str, ...] = ()
    _shown: tuple[str, ...] = ()
    __dataclass_fields__: Any = _DataclassAttribute("__dataclass_fields__")
    __dataclass_params__: Any = _DataclassAttribute("__dataclass_params__")

    def __init_subclass__(cls, *, frozen: bool = False, kw_only: bool = False) -> None:
        super().__init_subclass__()
        if Record not in cls.__bases__:
            return  # a subclass of a record is a plain class, as one of a dataclass
        annotations = {
            name: annotation
            # not inspect.get_annotations: inspect is what records spare a fresh process
            for name, annotation in cls.__dict__.get("__annotations__", {}).items()  # noqa: RUF063
            if not str(annotation).startswith(("ClassVar", "typing.ClassVar"))
        }
        specs = {}
        slots = cls.__dict__.get("__slots__", ())
        for name in annotations:
            value = _MISSING if name in slots else cls.__dict__.get(name, _MISSING)
            spec = value if isinstance(value, _Field) else _Field(value, _MISSING, True, True)
            if isinstance(value, _Field):
                if spec.default is _MISSING:
                    delattr(cls, name)
                else:
                    setattr(cls, name, spec.default)
            specs[name] = spec
        cls._specs = specs
        cls._annotations = annotations
        cls._frozen = frozen
        cls._kw_only = kw_only
        cls._compared = tuple(name for name, spec in specs.items() if spec.compare)
        cls._shown = tuple(name for name, spec in specs.items() if spec.repr)
        setattr(cls, "__match_args__", () if kw_only else tuple(specs))  # noqa: B010 - for mypy
        init = cls.__dict__.get("__init__")
        if init is None:
            cls.__init__ = _LazyInit(cls)  # type: ignore[method-assign,assignment]
        elif init.__annotations__.get("return") == "None":  # written out: its signature shows
            init.__annotations__["return"] = None  # `-> None` as a compiled one's does
        if frozen:
            cls.__setattr__ = Record._frozen_setattr  # type: ignore[method-assign,assignment]
            cls.__delattr__ = Record._frozen_delattr  # type: ignore[method-assign,assignment]
            if "__hash__" not in cls.__dict__:
                cls.__hash__ = Record._hash  # type: ignore[method-assign,assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._shown)
        return f"{type(self).__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()  # tuples: a field that is the same object is equal

    def _key(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._compared)

    __hash__ = None  # type: ignore[assignment]  # only frozen records are hashable, as dataclasses

    def _hash(self) -> int:
        return hash(self._key())

    def _frozen_setattr(self, name: str, value: object) -> None:
        if self._is_frozen(name):
            raise _frozen_error(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def _frozen_delattr(self, name: str) -> None:
        if self._is_frozen(name):
            raise _frozen_error(f"cannot delete field {name!r}")
        object.__delattr__(self, name)

    def _is_frozen(self, name: str) -> bool:
        # As a frozen dataclass: a plain subclass's instances may have attributes of their own.
        return Record in type(self).__bases__ or name in self._specs

    def __replace__(self, **changes: Any) -> Self:
        """A copy with ``changes`` (``copy.replace``, ``dataclasses.replace``)."""
        return type(self)(**{**{name: getattr(self, name) for name in self._specs}, **changes})


def values(record: Record) -> dict[str, Any]:
    """A record's fields and values, in order (``dataclasses.asdict`` without its deep copy)."""
    return {name: getattr(record, name) for name in record._specs}


class _LazyInit:
    """A record's ``__init__`` until it is first looked up (to make an instance, or for its
    signature): then compiled and put in its place. Compiling is most of what making a record
    class costs, and a fresh process's first sandbox makes instances of only half the records
    it defines."""

    def __init__(self, record: type[Record]) -> None:
        self.record = record

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        init = _make_init(self.record)
        self.record.__init__ = init  # type: ignore[method-assign]  # not asked again
        return init.__get__(instance, owner)


def _make_init(cls: type[Record]) -> Any:
    """``cls.__init__``, compiled from its fields (in the module's globals, as ``dataclasses``
    does, so the string annotations of its signature resolve there)."""
    params, body = [], []
    for name, spec in cls._specs.items():
        if spec.default_factory is not _MISSING:
            params.append(f"{name}=_MISSING")
            body.append(f"{name} = _factories[{name!r}]() if {name} is _MISSING else {name}")
        elif spec.default is not _MISSING:
            params.append(f"{name}=_defaults[{name!r}]")
        else:
            params.append(name)
        body.append(f"_set(self, {name!r}, {name})" if cls._frozen else f"self.{name} = {name}")
    if cls._kw_only and params:
        params.insert(0, "*")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = (
        "def _make(_defaults, _factories, _set, _MISSING):\n"
        f" def __init__(self, {', '.join(params)}):\n"
        + "".join(f"  {line}\n" for line in body or ["pass"])
        + " return __init__\n"
    )
    namespace: dict[str, Any] = {}
    exec(source, sys.modules[cls.__module__].__dict__, namespace)
    specs = cls._specs
    init = namespace["_make"](
        {name: spec.default for name, spec in specs.items()},
        {name: spec.default_factory for name, spec in specs.items()},
        object.__setattr__,
        _MISSING,
    )
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{name: cls._annotations[name] for name in specs}, "return": None}
    return init
