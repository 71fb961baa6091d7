"""Red team of the online game (round 5): each test replays an attack a hostile player
could make against a live server and fails on the hole it found (docs/protocol.md).

Not repeated here: test_server_redteam.py, test_server_redteam_rooms.py,
test_server_limits.py (bodies, nicknames, stakes, rates), test_server_fuzz.py (hidden
cards in state messages), test_server_timing.py (claim windows).
"""

from __future__ import annotations

import httpx
import pytest
from server_util import auth, live_server, until

from paohuzi.server.limits import Limits

pytest.importorskip("starlette")


@pytest.fixture
def srv(tmp_path):
    with live_server(str(tmp_path / "game.db")) as server:
        yield server


# ---- HTTP: room options -------------------------------------------------------------

@pytest.mark.parametrize("table", [[], ["qq"], {}, {"qq": 1}])
def test_a_huxi_table_that_is_not_text_is_a_clear_400(srv, table):
    """``rules.huxi_table`` was looked up in a dict before its type was checked: a list or
    an object raised TypeError (unhashable) and the request got a bare 500."""
    _, token = srv.player()
    for path in ("/api/rooms", "/api/rooms/quick"):
        reply = httpx.post(f"{srv.base}{path}", json={"rules": {"huxi_table": table}},
                           headers=auth(token))
        assert reply.status_code == 400, reply.text
        assert "huxi_table must be one of" in reply.json()["error"]
    assert srv.server.runtimes == {}


@pytest.mark.parametrize(("name", "said"), [
    ("qq\u202e", "invisible"),  # a bidi override: reorders what follows it on the page
    ("\u200bqq", "invisible"),  # a zero-width space
    ("q\u0000q", "control"),
    ("qq\n官方", "control"),
    ("\u3164", "blank"),  # a Hangul filler: an empty-looking name
    ("\u0301qq", "combining"),
    ("q\ue000", "private-use"),
    ("\u00a0", "visible character"),  # white space only: a name that shows nothing
    ("\u3000\u3000", "visible character"),
    ("qq\u2028qq", "line separator"),
    ("\u2029", "paragraph separator"),
])
def test_a_rules_name_is_held_to_the_nickname_rules(srv, name, said):
    """A room's ``rules.name`` is text its creator chooses that every seat and spectator
    is shown (the table's rules line, ``presetName`` falls back to it), but only its
    length was checked: bidi overrides, zero-width and control characters — refused in
    nicknames for exactly this reason — reached everyone's page."""
    _, token = srv.player()
    reply = httpx.post(f"{srv.base}/api/rooms", json={"rules": {"name": name}},
                       headers=auth(token))
    assert reply.status_code == 400, reply.text
    assert "rules: name" in reply.json()["error"] and said in reply.json()["error"]
    assert srv.server.runtimes == {}
    ok = httpx.post(f"{srv.base}/api/rooms", json={"rules": {"name": "我的 规则"}},
                    headers=auth(token))
    assert ok.status_code == 200, ok.text


# ---- resource abuse: rooms made through the quick match ------------------------------

def test_the_quick_match_cannot_make_rooms_past_the_caps_of_one_address(tmp_path):
    """Rooms the quick match made had no creator, so only the process's cap (5,000)
    counted them: an account alone in its queue got a room with computers after ``wait``
    seconds, could queue again at once (being seated elsewhere did not stop it) and got
    another — and accounts of one address are never seated together, so each made its
    own. One address filled the server (503 for everyone) in under an hour, past its
    caps of 8 rooms an account and 32 an address. The room is now counted for the
    person it was made for (the longest waiting): his oldest open room nobody is
    connected to ends first, as for a room he creates."""
    from paohuzi.server.matchmaking import MatchSettings

    bounds = Limits(max_open_rooms_per_player=2, max_open_rooms_per_address=3)
    with live_server(str(tmp_path / "g.db"), bounds,
                     MatchSettings(wait=0.0, tick=0.05, computer="random")) as srv:
        tokens = [srv.player(f"p{i}")[1] for i in range(2)]
        made: list[str] = []
        for round_ in range(3):
            for token in tokens:
                reply = httpx.post(f"{srv.base}/api/match", json={"changci": "xinshou"},
                                   headers=auth(token))
                assert reply.status_code == 200, reply.text
                status = until(lambda t=token: (s := httpx.get(
                    f"{srv.base}/api/match", headers=auth(t)).json())["status"] == "seated"
                    and s)
                assert status, f"not seated in round {round_}"
                made.append(status["code"])
        assert len(set(made)) == 6  # a room each time: nobody else was queued
        live = [c for c in made if c in srv.server.runtimes]
        assert len(live) <= 3, f"{len(live)} live quick-match rooms from one address"
        mine = [c for c in made[0::2] if c in srv.server.runtimes]
        assert len(mine) <= 2 and made[-2] in mine  # the newest is kept


def test_a_computers_randomness_cannot_be_foreseen_from_public_facts():
    """A computer's seed (its random moves, the search's worlds) comes from the hand's
    server secret: two rooms of the same code, hand number, seat values and moves but
    other secrets give other seeds, so the room code and the move count (public) no
    longer tell which legal action, in the order of its hidden hand, a random or easy
    computer takes. The same log (a restored room) gives the same seeds."""
    from paohuzi.server.table import RoomConfig, Table

    def dealt(secret: str) -> Table:
        table = Table("424242", RoomConfig.from_json({"seats": ["human", "random", "easy"]}))
        table.apply({"k": "sit", "seat": 0, "player": 1, "nickname": "p0"})
        table.apply({"k": "commit", "hand": 1, "secret": secret, "salt": "00" * 16})
        table.apply({"k": "entropy", "hand": 1, "seat": 0, "value": "ab"})
        table.apply(table.new_start_entry())
        return table

    one, again, other = dealt("11" * 32), dealt("11" * 32), dealt("22" * 32)
    seeds = [[t.computer_seed(s) for s in (1, 2)] for t in (one, again, other)]
    assert seeds[0] == seeds[1]  # replayed from the same log
    assert seeds[0][0] != seeds[2][0] and seeds[0][1] != seeds[2][1]
    assert seeds[0][0] != seeds[0][1]  # each seat its own
