"""The package's layers (README, "Layout"), checked on the sources with ``ast``.

core <- game <- players <- apps; the server may use them all. The research environment
(rl) sits on the players, and numpy, PettingZoo and Gymnasium (the ``rl`` extra) are
imported there only. The rules core uses the standard library only; ``import paohuzi``
loads the core and nothing else.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "paohuzi"

ALLOWED = {
    "core": {"core"},
    "game": {"core", "game"},
    "players": {"core", "game", "players"},
    "apps": {"core", "game", "players", "apps"},
    "rl": {"core", "game", "players", "rl"},
}
"""The layers each layer may import from (the server, the top layer, may import all)."""

LAZY_SERVER = {"paohuzi.apps.cli"}
"""Modules that may import the server inside a function (``paohuzi serve``)."""

LAZY_THIRD_PARTY = {("paohuzi.players.arena", "matplotlib"), ("paohuzi.players.expert", "numpy"),
                    ("paohuzi.rl.train", "matplotlib")}
"""Outside the server, the only third-party imports: (module, package), inside a function."""

THIRD_PARTY = {"rl": {"numpy", "pettingzoo", "gymnasium"}}
"""Third-party packages a layer may import anywhere (the ``rl`` extra, in ``paohuzi.rl``)."""

TYPE_ONLY_THIRD_PARTY = {("paohuzi.core.native", "mypy_extensions")}
"""(module, package) imported under ``if TYPE_CHECKING:`` only: read by mypy and mypyc,
never run (``mypyc_attr`` of the compiled build)."""


@dataclass(frozen=True)
class Import:
    target: str
    """The imported module, absolute (``paohuzi.core.cards``, ``json``)."""
    line: int
    lazy: bool
    """Inside a function (run only when called)."""
    type_only: bool = False
    """Under ``if TYPE_CHECKING:`` (never run)."""


def imports_of(source: str) -> list[Import]:
    """Every import in ``source``, with whether it sits inside a function.

    >>> [(i.target, i.lazy) for i in imports_of("import json\\ndef f():\\n    import csv")]
    [('json', False), ('csv', True)]
    >>> typed = "if TYPE_CHECKING:\\n    import a\\nelse:\\n    import b"
    >>> [(i.target, i.type_only) for i in imports_of(typed)]
    [('a', True), ('b', False)]
    """
    found: list[Import] = []

    def visit(node: ast.AST, lazy: bool, type_only: bool = False) -> None:
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Name)
                and node.test.id == "TYPE_CHECKING"):
            for branch, typing in ((node.body, True), (node.orelse, type_only)):
                for stmt in branch:
                    visit(ast.Module(body=[stmt], type_ignores=[]), lazy, typing)
            return
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                found.extend(Import(a.name, child.lineno, lazy, type_only) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    raise AssertionError(f"line {child.lineno}: relative import")
                assert child.module is not None
                if child.module == "paohuzi":
                    # ``from paohuzi import x``: a subpackage x, or a name of the root (core)
                    found.extend(Import(f"paohuzi.{a.name}", child.lineno, lazy, type_only)
                                 for a in child.names)
                else:
                    found.append(Import(child.module, child.lineno, lazy, type_only))
            visit(child, inner, type_only)

    visit(ast.parse(source), False)
    return found


def layer_of(module: str) -> str | None:
    """The layer of a ``paohuzi`` module (the root and its names count as core).

    >>> layer_of("paohuzi.game.engine"), layer_of("paohuzi.Card"), layer_of("json")
    ('game', 'core', None)
    """
    parts = module.split(".")
    if parts[0] != "paohuzi":
        return None
    if len(parts) > 1 and parts[1] in (*ALLOWED, "server"):
        return parts[1]
    return "core"


def violations(module: str, source: str) -> list[str]:
    """What in ``source`` (the text of ``module``) breaks the layering."""
    layer = layer_of(module)
    if module == "paohuzi":
        layer, allowed = "the root", {"core"}
    elif module == "paohuzi.__main__":
        layer, allowed = "__main__", {"apps"}
    else:
        assert layer is not None and layer != "server", module
        allowed = ALLOWED[layer]
    wrong = []
    for imp in imports_of(source):
        top = imp.target.split(".")[0]
        target = layer_of(imp.target)
        where = f"{module}:{imp.line} imports {imp.target}"
        if target is None:
            if top in sys.stdlib_module_names or top == "__future__":
                continue
            if top in THIRD_PARTY.get(layer, ()):
                continue
            if imp.type_only and (module, top) in TYPE_ONLY_THIRD_PARTY:
                continue
            if not (imp.lazy and (module, top) in LAZY_THIRD_PARTY):
                wrong.append(f"{where}: not the standard library")
        elif target not in allowed and not (
                target == "server" and imp.lazy and module in LAZY_SERVER):
            wrong.append(f"{where}: {layer} may import only {sorted(allowed)}")
    return wrong


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layered_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "server" not in p.relative_to(PACKAGE).parts)


@pytest.mark.parametrize("path", layered_modules(), ids=module_name)
def test_module_keeps_to_its_layer(path: Path) -> None:
    assert violations(module_name(path), path.read_text("utf-8")) == []


def test_every_module_is_in_a_layer() -> None:
    flat = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert flat == ["__init__.py", "__main__.py"]
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert packages == sorted([*ALLOWED, "server"])


@pytest.mark.parametrize(("module", "source", "wanted"), [
    ("paohuzi.core.solver", "from paohuzi.game.engine import Hand", "core may import only"),
    ("paohuzi.core.solver", "def f():\n    from paohuzi.players import make_player",
     "core may import only"),
    ("paohuzi.core.cards", "import numpy", "not the standard library"),
    ("paohuzi.game.view", "from paohuzi.players.search import SearchPlayer",
     "game may import only"),
    ("paohuzi.players.arena", "from paohuzi.apps.simulate import simulate",
     "players may import only"),
    ("paohuzi.players.arena", "import matplotlib", "not the standard library"),
    ("paohuzi.apps.play", "def f():\n    from paohuzi.server.serve import main",
     "apps may import only"),
    ("paohuzi.apps.cli", "from paohuzi.server.serve import main", "apps may import only"),
    ("paohuzi", "from paohuzi.game.engine import Hand", "the root may import only"),
    ("paohuzi.core.rules", "from paohuzi.rl.env import PaohuziEnv", "core may import only"),
    ("paohuzi.game.engine", "def f():\n    import paohuzi.rl", "game may import only"),
    ("paohuzi.players.heuristic", "from paohuzi.rl import env", "players may import only"),
    ("paohuzi.players.heuristic", "import numpy", "not the standard library"),
    ("paohuzi.core.cards", "def f():\n    import numpy", "not the standard library"),
    ("paohuzi.rl.env", "from paohuzi.apps.cli import main", "rl may import only"),
    ("paohuzi.rl.env", "import torch", "not the standard library"),
    ("paohuzi.core.cards", "if TYPE_CHECKING:\n    import mypy_extensions",
     "not the standard library"),
    ("paohuzi.core.native", "import mypy_extensions", "not the standard library"),
    ("paohuzi.core.native", "if TYPE_CHECKING:\n    pass\nelse:\n    import mypy_extensions",
     "not the standard library"),
])
def test_checker_finds_a_wrong_import(module: str, source: str, wanted: str) -> None:
    found = violations(module, source)
    assert len(found) == 1 and wanted in found[0], found


@pytest.mark.parametrize(("module", "source"), [
    ("paohuzi.apps.cli", "def f():\n    from paohuzi.server.serve import main"),
    ("paohuzi.players.arena", "def f():\n    import matplotlib"),
    ("paohuzi.game.engine", "from paohuzi import Card\nfrom paohuzi.core import cards"),
    ("paohuzi.rl.env", "import numpy as np\nfrom pettingzoo import AECEnv\n"
                       "from gymnasium import spaces\nfrom paohuzi.players import make_player"),
    ("paohuzi.core.native", "if TYPE_CHECKING:\n    from mypy_extensions import mypyc_attr"),
])
def test_checker_allows_what_the_layers_allow(module: str, source: str) -> None:
    assert violations(module, source) == []


def test_import_paohuzi_loads_only_the_core() -> None:
    code = ("import sys, paohuzi; print(' '.join(sorted(m for m in sys.modules "
            "if m.startswith('paohuzi'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(SRC)}).stdout.split()
    assert "paohuzi.core.solver" in out
    assert [m for m in out if layer_of(m) != "core" or m.startswith("paohuzi.server")] == []
