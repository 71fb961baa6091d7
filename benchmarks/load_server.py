"""The server process of ``benchmarks/server.py``: ``paohuzi serve`` with the rate limits
off (one address opens every table), on a loopback port, its collector tuned the same
way (``paohuzi.server.serve.tune_gc``).

Run: ``python benchmarks/load_server.py PORT DATABASE [REDIS]`` with the sources to
measure on ``PYTHONPATH`` (the benchmark may run an older tree the same way, for a
ratio); with a ``redis://`` URL (and a ``postgresql://`` DATABASE) the process is one of
several (``--processes``, docs/scaling.md), reachable at ``http://127.0.0.1:PORT``. With
``PAOHUZI_PROFILE=FILE`` set, the process runs under cProfile, timed in CPU time (a
loaded machine's waits are not counted; ``PAOHUZI_PROFILE_WALL=1``: in wall time, to
see where the event loop waits), and writes its statistics to FILE when it is
stopped (SIGTERM).
"""

from __future__ import annotations

import cProfile
import os
import signal
import sys
import time

import uvicorn

from paohuzi.server.app import create_app
from paohuzi.server.limits import Limits
from paohuzi.server.transport import uvicorn_config

UNLIMITED = Limits(players_per_address=None, rooms_per_account=None, rooms_per_address=None,
                   connections_per_account=None, connections_per_address=None,
                   max_open_rooms_per_player=None, max_open_rooms_per_address=None,
                   max_rooms=None,
                   # (older trees measured with --src have no budget of frames)
                   **({"frames_per_address": None}
                      if "frames_per_address" in Limits.__dataclass_fields__ else {}))
"""The load comes from one address and one account per seat: no rate limit or room cap
applies (nor the budget of frames per address)."""


def main() -> None:
    port, database = int(sys.argv[1]), sys.argv[2]
    redis = sys.argv[3] if len(sys.argv) > 3 else None
    if redis:  # (an older tree measured with --src may not take these)
        app = create_app(database=database, limits=UNLIMITED, redis=redis,
                         address=f"http://127.0.0.1:{port}")
    else:
        app = create_app(database=database, limits=UNLIMITED)
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, UNLIMITED,
                                           log_level="warning"))
    try:  # what `paohuzi serve` does (older trees measured with --src may lack it)
        from paohuzi.server.serve import tune_gc
    except ImportError:
        pass
    else:
        tune_gc()
    # uvicorn raises the stopping signal again once it has shut down: let that one pass,
    # so the profile below is written
    signal.signal(signal.SIGTERM, lambda *_: None)
    profile = os.environ.get("PAOHUZI_PROFILE")
    # CPU time by default; PAOHUZI_PROFILE_WALL=1: wall time (where the event loop waits)
    clock = time.perf_counter if os.environ.get("PAOHUZI_PROFILE_WALL") == "1" \
        else time.process_time
    profiler = cProfile.Profile(clock) if profile else None
    if profiler is not None:
        profiler.enable()
    server.run()
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(str(profile))


if __name__ == "__main__":
    main()
