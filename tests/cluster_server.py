"""One process of a test cluster with quick-match settings of its own (``paohuzi serve``
takes none): ``python tests/cluster_server.py PORT DATABASE REDIS WAIT TICK ENTRY_TTL
[LIMITS]`` (``LIMITS``: a JSON object of :class:`~paohuzi.server.limits.Limits` fields,
rates as ``[per second, burst]``)."""

from __future__ import annotations

import json
import sys

import uvicorn

from paohuzi.server.app import create_app
from paohuzi.server.limits import Limits
from paohuzi.server.matchmaking import MatchSettings
from paohuzi.server.transport import uvicorn_config


def main() -> None:
    port, database, redis = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    wait, tick, ttl = (float(x) for x in sys.argv[4:7])
    match = MatchSettings(wait=wait, tick=tick, computer="random", entry_ttl=ttl,
                          options={"claim_window": 0.05, "bot_delay": 0.0})
    fields = json.loads(sys.argv[7]) if len(sys.argv) > 7 else {}
    limits = Limits(**{k: tuple(v) if isinstance(v, list) else v for k, v in fields.items()})
    app = create_app(database=database, redis=redis, address=f"http://127.0.0.1:{port}",
                     match=match, limits=limits)
    uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, limits,
                                 log_level="warning")).run()


if __name__ == "__main__":
    main()
