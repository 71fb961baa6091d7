"""A page keeps playing when the process it is connected through is killed (issue 13).

Two ``paohuzi serve`` processes, A and B, on one PostgreSQL and one Redis, behind a
tiny layer-4 load balancer (``cluster_util.Balancer``: each new TCP connection goes to
the first process that accepts it) — the page's origin is the balancer, a fixed URL,
as it would be behind the sample ``compose.yaml``'s load balancer. A page plays two
computers in a room created through A (so A owns it, and the page's WebSocket goes to
A). While it is the page's turn, A is killed with ``kill -9``: the page's connection
drops, it reconnects by itself (the frontend's ``TableSocket``, with its backoff) through
the balancer to B, which takes the room's lease over and replays its log; the page
asks for what it missed (``resync``) and the hand goes on to its settlement.

Why a balancer rather than the page's origin being B (which forwards to A): a page
whose own process dies is the case a real deployment meets, and the one where the
client alone must reconnect; a connection forwarded by a surviving process is covered
by ``test_server_cluster.py``.
"""

from __future__ import annotations

import contextlib
import time

import httpx
import pytest
from cluster_util import Balancer, Process, owner_port
from test_browser import (
    ARGS,
    CHROMIUM,
    DESKTOP,
    enter,
    play_one_step,
    play_until_settlement,
    shot,
    turn_in_a_hand,
)

playwright = pytest.importorskip("playwright.sync_api")  # test_browser: skipped without Chromium
pytest.importorskip("psycopg")
pytest.importorskip("redis")


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


def test_a_page_plays_on_after_its_process_is_killed(browser, postgres_url, redis_url):
    a, b = Process(postgres_url, redis_url), Process(postgres_url, redis_url)
    balancer = Balancer([a.port, b.port])
    context = browser.new_context(viewport=DESKTOP)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        enter(page, balancer.base, "集群")
        token = page.evaluate("localStorage.getItem('paohuzi.token')")
        room = httpx.post(f"{balancer.base}/api/rooms", json={
            "seats": ["human", "easy", "easy"], "sit": True, "timer": 120, "bot_delay": 0.1,
            "next_delay": 60}, headers={"authorization": f"Bearer {token}"}).json()["code"]
        assert owner_port(postgres_url, room) == a.port
        page.goto(f"{balancer.base}/#/room/{room}")
        page.wait_for_selector(".seat.bottom .hand .card", timeout=20_000)
        # play a little, then stop on the page's turn: the hand waits for it
        acted, deadline = 0, time.monotonic() + 60
        while acted < 2 and time.monotonic() < deadline:
            with contextlib.suppress(playwright.Error):
                acted += play_one_step(page)
            page.wait_for_timeout(150)
        # the page's turn in a hand in progress (the next hand's if a computer won this
        # one meanwhile: the kill must come mid-hand)
        turn_in_a_hand(page)
        page.wait_for_timeout(500)
        assert page.query_selector(".settlement") is None, "the hand ended too soon"
        before = [page.inner_text(".wall-count"), page.inner_text(".mine .hand")]
        assert page.query_selector(".banner.reconnecting") is None

        a.kill9()
        killed = time.monotonic()
        page.wait_for_selector(".banner.reconnecting", timeout=10_000)
        page.wait_for_selector(".banner.reconnecting", state="detached", timeout=60_000)
        back = time.monotonic() - killed
        print(f"the page is back at its table {back:.2f} s after kill -9 of its process")
        shot(page, "cluster-after-failover")
        assert owner_port(postgres_url, room) == b.port  # B took the room over
        assert b.port in balancer.connections
        # the same hand, where it was: the page's turn, the same wall and hand
        page.wait_for_selector(".hint.your-turn", timeout=30_000)
        page.wait_for_timeout(500)
        assert [page.inner_text(".wall-count"), page.inner_text(".mine .hand")] == before
        play_until_settlement([page])  # the hand goes on, by clicks, to its settlement
        me = httpx.get(f"{balancer.base}/api/me",
                       headers={"authorization": f"Bearer {token}"}).json()
        rooms = [g["room"] for g in me["games"]]  # its records, the last stored by B
        assert rooms and set(rooms) == {room}
        assert errors == []
    finally:
        context.close()
        balancer.stop()
        a.stop()
        b.stop()
