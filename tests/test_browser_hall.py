"""The hall in a real browser (issue 16): three people press 快速开始 in one 场次, are
seated together, see each other's presence, say a quick phrase that the other two see
beside that seat (unless one has muted him), and play one hand to the settlement.

All three browsers come from 127.0.0.1: this server lets one address fill a table
(``distinct_addresses=False``); the one-address rule is tested in
tests/test_server_matchmaking.py.
"""

from __future__ import annotations

import pytest
from server_util import live_server
from test_browser import ARGS, CHROMIUM, DESKTOP, enter, play_until_settlement, shot

from paohuzi.server.matchmaking import MatchSettings

playwright = pytest.importorskip("playwright.sync_api")

SETTINGS = MatchSettings(wait=60.0, tick=0.2, distinct_addresses=False,
                         options={"claim_window": 0.05, "bot_delay": 0.0, "next_delay": 30.0})


@pytest.fixture
def srv(tmp_path):
    with live_server(str(tmp_path / "hall.db"), match=SETTINGS) as server:
        yield server


def test_three_people_quick_match_chat_and_play_a_hand(srv):
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            pages = []
            for name in ("阿甲", "阿乙", "阿丙"):
                page = browser.new_context(viewport=DESKTOP).new_page()
                enter(page, srv.base, name)
                page.wait_for_selector("[data-changci=xinshou] [data-name=match-xinshou]")
                pages.append(page)
            shot(pages[0], "hall-lobby")
            for page in pages:
                page.click("[data-name=match-xinshou]")
            for page in pages:
                page.wait_for_selector(".seat.bottom .hand .card", timeout=30_000)
            codes = {page.url.rsplit("/", 1)[-1] for page in pages}
            assert len(codes) == 1  # one table for the three
            seats = srv.server.runtimes[codes.pop()].table.seats
            assert [s.kind for s in seats] == ["human"] * 3

            # presence: everyone shown connected at the others' tables
            for page in pages:
                page.wait_for_function(
                    "document.querySelectorAll('[data-presence=connected]').length === 3",
                    timeout=10_000)
            # a quick phrase from the first is seen beside his seat by the two others
            pages[0].click("[data-name=chat]")
            pages[0].click(".quickchat-list [data-chat=hello]")
            for page in pages[1:]:
                bubble = page.wait_for_selector(".seat .chat-bubble[data-chat=hello]",
                                                timeout=10_000)
                assert "大家好" in bubble.inner_text()
            shot(pages[1], "hall-chat")
            # the third mutes the first (remembered after a reload): he no longer sees him
            seat = pages[0].get_attribute(".seat.bottom", "data-seat")
            pages[2].click(f"[data-name=mute-{seat}]")
            pages[2].reload()
            pages[2].wait_for_selector(f"[data-name=mute-{seat}].muted", timeout=10_000)
            pages[0].click("[data-name=chat]")
            pages[0].click(".quickchat-list [data-chat=nice]")
            pages[1].wait_for_selector(".seat .chat-bubble[data-chat=nice]", timeout=10_000)
            pages[2].wait_for_timeout(500)
            assert pages[2].query_selector(".chat-bubble[data-chat=nice]") is None

            play_until_settlement(pages)
            for page in pages:
                assert page.query_selector(".settlement") is not None
            shot(pages[2], "hall-settlement")
        finally:
            browser.close()


def test_one_who_no_longer_meets_the_entry_minimum_is_told_why(tmp_path):
    """He queued for 初级场 (1,000 beans to sit) holding 2,000 and lost 1,500 elsewhere
    while he waited: he is not seated, and the lobby says why (it polled on for ever,
    showing nothing, before the server told it)."""
    import dataclasses

    quick = MatchSettings(wait=1.0, tick=0.2, computer="random", distinct_addresses=False,
                          options={"claim_window": 0.05, "bot_delay": 0.0})
    with live_server(str(tmp_path / "refused.db"), match=quick) as srv, \
            playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_context(viewport=DESKTOP).new_page()
            enter(page, srv.base, "阿丁")
            page.wait_for_selector("[data-changci=chuji] [data-name=match-chuji]")
            storage = srv.server.storage
            stored = storage.player

            def player(pid: int):  # type: ignore[no-untyped-def]
                rec = stored(pid)
                return None if rec is None else dataclasses.replace(rec, beans=500)

            storage.player = player  # every beans read from now on: 500
            page.click("[data-name=match-chuji]")
            refused = page.wait_for_selector("[data-name=match-refused]", timeout=10_000)
            # in the page's language (a Chinese page showed the server's English)
            assert "初级场入场至少需要 1000 欢乐豆，你现有 500 欢乐豆" in refused.inner_text()
            assert "#/room/" not in page.url
            assert not any(rt.table.seat_of_player(1) is not None
                           for rt in srv.server.runtimes.values())
        finally:
            browser.close()
