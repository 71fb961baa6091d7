"""The optional compiled build (mypyc): which build is loaded, and the class marks it reads.

The package is one Python source. ``PAOHUZI_COMPILE=1 pip install .`` also compiles the
hot modules with mypyc (``setup.py``); they are then C extensions beside the sources, and
Python loads them first. Without it (or without a C compiler) every module is plain Python.

>>> isinstance(compiled(), bool)
True
>>> set(compiled_modules()) <= set(COMPILED_MODULES)
True

:func:`mypyc_attr` is ``mypy_extensions.mypyc_attr`` to the type checker and to mypyc, and
does nothing at run time, so the rules core needs nothing outside the standard library.
``@mypyc_attr(native_class=False)`` keeps a class a regular Python class inside a compiled
module: the frozen dataclasses (``Group``, ``Arrangement``, ``ChiOption``...) are copied,
pickled, compared and introspected like any Python object.

The engine's mutable state classes are native classes when compiled (``Hand``,
``SeatState``: attributes read without a dictionary). Each has a ``__new__`` of its own, so
that blank ones (``from_seed``, ``resume``, copies, pickles) are made as in Python (mypyc's
default ``__new__`` runs ``__init__``); mypyc keeps no ``__slots__``, so ``SeatState.copy``
reads its native attribute names. The engine's values (the actions, ``Deal``, ``Claim``,
``HandResult``) stay Python classes.

Compiled code checks declared types on entry and would answer a wrongly typed argument
with a bare ``TypeError`` before the package's precise error. So the compiled entry points
that check untrusted values themselves declare them ``object`` (``Hand.verify``, ``can``
and ``act``: a seat that is no int, an action that is none; ``Action.from_text``), and the
modules whose every function does (``cards``: ``parse_cards`` of a non-string; ``rules``:
every option's type; ``kinds``: plain strings for members) are not compiled.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Final

__all__ = ["COMPILED_MODULES", "compiled", "compiled_modules", "mypyc_attr"]

COMPILED_MODULES: Final = (
    "paohuzi.core.groups",
    "paohuzi.core.decompose",
    "paohuzi.core.solver",
    "paohuzi.core.chi",
    "paohuzi.core.cardcount",
    "paohuzi.game.actions",
    "paohuzi.game.deal",
    "paohuzi.game.engine",
    "paohuzi.players.heuristic",
)
"""The modules ``PAOHUZI_COMPILE=1`` compiles (``setup.py`` reads this list)."""

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:

    def mypyc_attr(*attrs, **kwattrs):
        """At run time: a class decorator that returns the class unchanged."""
        return lambda cls: cls


def compiled_modules() -> tuple[str, ...]:
    """Those of :data:`COMPILED_MODULES` loaded from a compiled extension."""
    return tuple(
        name
        for name in COMPILED_MODULES
        if str(getattr(importlib.import_module(name), "__file__", "")).endswith((".so", ".pyd"))
    )


def compiled() -> bool:
    """True when the compiled build is loaded (the solver is a C extension)."""
    return "paohuzi.core.solver" in compiled_modules()
