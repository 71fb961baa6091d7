"""Shared test helpers: the compact card notation used by every test; throwaway
PostgreSQL and Redis servers (services.py) and a database of either backend."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from services import ThrowawayPostgres, ThrowawayRedis

_services: dict[str, object] = {}


def _started(name: str, make: type) -> object:
    if name not in _services:
        _services[name] = make()
    return _services[name]


def pytest_sessionfinish(session: object, exitstatus: object) -> None:
    for service in _services.values():
        service.stop()  # type: ignore[attr-defined]


@pytest.fixture
def postgres_url() -> str:
    """A fresh, empty database in the session's throwaway PostgreSQL."""
    pg = _started("postgres", ThrowawayPostgres)
    return pg.fresh_database()  # type: ignore[attr-defined]


@pytest.fixture
def redis_url() -> str:
    """The session's throwaway Redis (flushed for each test)."""
    server = _started("redis", ThrowawayRedis)
    import redis

    client = redis.Redis.from_url(server.url)  # type: ignore[attr-defined]
    client.flushall()
    client.close()
    return server.url  # type: ignore[attr-defined]


@pytest.fixture(params=["sqlite", "postgres"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database of each backend: a SQLite file, a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "game.db")
    return str(request.getfixturevalue("postgres_url"))


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def module_database(request: pytest.FixtureRequest,
                    tmp_path_factory: pytest.TempPathFactory) -> str:
    """As :func:`database`, one per test module and backend (for a module's shared live
    server)."""
    if request.param == "sqlite":
        return str(tmp_path_factory.mktemp("db") / "game.db")
    pg = _started("postgres", ThrowawayPostgres)
    return pg.fresh_database()  # type: ignore[attr-defined]
