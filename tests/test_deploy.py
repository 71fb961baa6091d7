"""The sample deployment's image (deploy/Dockerfile) builds the package from what it copies.

No Docker daemon runs in the tests: the build context is reproduced from the Dockerfile's
``COPY`` lines (and checked against ``.dockerignore``), and ``pip wheel`` builds the
package there as the image's ``pip install`` would (with pip's isolated build environment:
setuptools from the package index).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "deploy" / "Dockerfile"


def copy_lines() -> list[tuple[list[str], str]]:
    """The Dockerfile's ``COPY`` instructions: ``(sources, destination)``."""
    found = []
    for line in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words and words[0].upper() in ("COPY", "ADD"):
            assert not any(w.startswith("--from") for w in words), line
            found.append((words[1:-1], words[-1]))
    return found


def test_the_image_copies_what_the_build_reads() -> None:
    copied = {source.rstrip("/") for sources, _ in copy_lines() for source in sources}
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    needed = {"pyproject.toml", "setup.py", "src", project["project"]["readme"],
              *project["build-system"]["backend-path"]}
    assert needed <= copied, f"deploy/Dockerfile does not copy {sorted(needed - copied)}"
    kept = {line[1:].rstrip("/") for line in
            (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
            if line.startswith("!")}
    assert copied <= kept, f".dockerignore leaves out {sorted(copied - kept)}"


def test_the_package_builds_from_the_images_copies(tmp_path: Path) -> None:
    context = tmp_path / "image"
    context.mkdir()
    for sources, destination in copy_lines():
        for source in sources:
            src = ROOT / source
            target = context / destination / (src.name if destination.endswith("/") else "")
            if src.is_dir():
                shutil.copytree(src, target, ignore=shutil.ignore_patterns(
                    "__pycache__", "*.so", "*.egg-info"))
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, target)
    out = tmp_path / "wheels"
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                          "--disable-pip-version-check", "-w", str(out), "."],
                         cwd=context, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    [wheel] = out.glob("paohuzi-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"paohuzi/server/app.py", "paohuzi/core/solver.py"} <= names
    assert any(n.startswith("paohuzi/server/static/") for n in names), "no static assets"


def compose_commands() -> dict[str, list[str]]:
    """Each service's folded ``command: >-`` of deploy/compose.yaml, as words."""
    commands: dict[str, list[str]] = {}
    service, words = None, None
    for line in (ROOT / "deploy" / "compose.yaml").read_text(encoding="utf-8").splitlines():
        if line.startswith("  ") and not line.startswith("   ") and line.rstrip().endswith(":"):
            service, words = line.strip()[:-1], None
        elif line.strip() == "command: >-" and service is not None:
            words = commands.setdefault(service, [])
        elif words is not None and line.startswith("      ") and line.strip():
            words += line.split()
        else:
            words = None
    return commands


def test_the_sample_clusters_processes_start_with_flags_the_cli_has() -> None:
    from paohuzi.apps.cli import build_parser

    served = {name: words for name, words in compose_commands().items()
              if words[:2] == ["paohuzi", "serve"]}
    assert len(served) >= 2, served
    for name, words in served.items():
        args = build_parser().parse_args(words[1:])  # exits (fails the test) on an unknown flag
        assert args.database.startswith("postgresql://") and args.redis.startswith("redis://")
        assert args.advertise == f"http://{name}:{args.port}"


def test_the_load_balancer_sends_to_those_processes_and_checks_a_real_route() -> None:
    from starlette.routing import Route

    from paohuzi.server.app import create_app

    caddy = (ROOT / "deploy" / "Caddyfile").read_text(encoding="utf-8")
    upstreams = next(line.split()[1:-1] for line in caddy.splitlines()
                     if line.strip().startswith("reverse_proxy"))
    served = [name for name, words in compose_commands().items()
              if words[:2] == ["paohuzi", "serve"]]
    assert sorted(upstreams) == sorted(f"{name}:8000" for name in served)
    health = next(line.split()[1] for line in caddy.splitlines()
                  if line.strip().startswith("health_uri"))
    app = create_app(database=":memory:", computer_processes=False)
    paths = {r.path for r in app.routes if isinstance(r, Route)}
    assert health in paths
