"""The build backend: setuptools', asking for mypy as well when the compiled build is asked for.

``PAOHUZI_COMPILE=1 pip install .`` compiles the hot modules with mypyc (``setup.py``):
mypy (which brings mypyc) is then a build requirement, installed by pip in the isolated
build environment. A plain ``pip install .`` needs setuptools only, and installs the
pure-Python package.
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 (the hooks pip calls, unchanged)
    build_editable,
    build_sdist,
    build_wheel,
    get_requires_for_build_sdist,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

COMPILE_REQUIRES = ["mypy>=2.4"]
"""mypyc ships with mypy; the compiled build was tested with mypy 2.4."""


def compile_requested() -> bool:
    """Whether ``PAOHUZI_COMPILE`` asks for the compiled build (``1``, ``true``, ``yes``)."""
    return os.environ.get("PAOHUZI_COMPILE", "").strip().lower() in ("1", "true", "yes")


def get_requires_for_build_wheel(config_settings: dict[str, object] | None = None) -> list[str]:
    if compile_requested():
        # not setuptools' hook: it runs setup.py, which needs mypyc, not installed yet
        return list(COMPILE_REQUIRES)
    return list(_setuptools.get_requires_for_build_wheel(config_settings))


def get_requires_for_build_editable(
    config_settings: dict[str, object] | None = None,
) -> list[str]:
    if compile_requested():
        # not setuptools' hook: it runs setup.py, which needs mypyc, not installed yet
        return list(COMPILE_REQUIRES)
    return list(_setuptools.get_requires_for_build_editable(config_settings))
