"""Build hook: the pure-Python package by default; ``PAOHUZI_COMPILE=1`` also compiles
the hot core modules with mypyc (same sources, C extensions beside them).

The compiled build needs a C compiler, the Python headers and ``mypy`` at build time
(the in-tree build backend ``build_backend/paohuzi_build.py`` asks pip for it).
"""

from __future__ import annotations

import ast
import os
import shutil
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
BUILD_BASE = "build/compiled"
"""Where the compiled build's C sources and objects go, emptied before each build: a module
taken off the list must not come back from an earlier build's leftovers."""


def compile_requested() -> bool:
    return os.environ.get("PAOHUZI_COMPILE", "").strip().lower() in ("1", "true", "yes")


def compiled_modules() -> list[str]:
    """``paohuzi.core.native.COMPILED_MODULES``, read without importing the package."""
    tree = ast.parse((ROOT / "src/paohuzi/core/native.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "COMPILED_MODULES":
            return [str(name) for name in ast.literal_eval(node.value)]
    raise RuntimeError("COMPILED_MODULES not found in src/paohuzi/core/native.py")


def _ext_modules() -> list[object]:
    if not compile_requested():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as error:
        raise RuntimeError("PAOHUZI_COMPILE=1: the compiled build needs mypy (mypyc) at build "
                           "time: pip install mypy, or build without PAOHUZI_COMPILE") from error

    shutil.rmtree(ROOT / BUILD_BASE, ignore_errors=True)
    paths = [f"src/{name.replace('.', '/')}.py" for name in compiled_modules()]
    # one shared library, paohuzi_native__mypyc.*.so, beside the package
    return list(mypycify(paths, opt_level="3", group_name="paohuzi_native",
                         target_dir=f"{BUILD_BASE}/c"))


if __name__ == "__main__":  # pip's build backend and ``python setup.py`` run it as __main__
    setup(ext_modules=_ext_modules(),
          options={"build": {"build_base": BUILD_BASE}} if compile_requested() else {})
