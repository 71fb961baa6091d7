"""Issue 11 in a real browser: a `hunan` room with the 醒家 and a `luzhou` room (4 seats,
one 坐底) created from the lobby's own form, played to the settlement on a phone held
sideways (844×390). Screenshots go to ``artifacts/screenshots/``."""

from __future__ import annotations

from typing import Any

import pytest
import test_browser as tb  # skips this module too where no Chromium is installed
from server_util import live_server
from test_browser import PHONE_LANDSCAPE, console_errors, enter, play_until_settlement, shot


@pytest.fixture(scope="module")
def browser():
    with tb.playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=tb.CHROMIUM, args=tb.ARGS)
        yield b
        b.close()


@pytest.fixture
def srv(tmp_path):
    with live_server(str(tmp_path / "variants.db")) as server:
        yield server


def create_from_lobby(page: Any, preset: str, xingjia: bool) -> None:
    """The lobby's create-room form: the preset, the 醒家 box, computers in every seat
    but the creator's (the form's default), quick computers."""
    page.select_option("select[name=preset]", preset)
    box = page.locator("input[name=xingjia]")
    assert box.is_visible()  # the 醒家 applies to hunan and luzhou
    if box.is_checked() != xingjia:
        box.click()
    assert len(page.query_selector_all(".seats select")) == 4  # 3 playing + the 醒家/坐底
    assert page.eval_on_selector("select[name=seat0]", "s => s.value") == "human"
    page.fill("input[name=bot_delay]", "0.05")
    page.fill("input[name=next_delay]", "600")
    page.click("[data-name=create]")
    page.wait_for_selector(".board .seat", timeout=20_000)


def settlement_seats(page: Any) -> tuple[list[str], list[str]]:
    """The settlement window's seat numbers: the playing rows, the 醒家's row."""
    playing = [r.get_attribute("data-seat") or "" for r in
               page.query_selector_all(".settlement table.points tr[data-seat]:not(.xingjia)")]
    xingjia = [r.get_attribute("data-seat") or "" for r in
               page.query_selector_all(".settlement table.points tr.xingjia")]
    return playing, xingjia


def play_variant(browser: Any, srv: Any, preset: str) -> tuple[Any, Any, dict[str, Any]]:
    context = browser.new_context(viewport=PHONE_LANDSCAPE)
    page = context.new_page()
    errors = console_errors(page)
    enter(page, srv.base, f"{preset}玩家")
    create_from_lobby(page, preset, xingjia=True)
    shot(page, f"{preset}-table-phone-landscape")
    # every playing seat is on the board, the dealer's included, whoever sits out
    page.wait_for_function("document.querySelectorAll('.board .seat').length >= 3")
    table = page.eval_on_selector_all(".board .seat", "seats => seats.map(s => s.dataset.seat)")
    assert len(set(table)) == 3, table
    play_until_settlement([page])
    shot(page, f"{preset}-settlement-phone-landscape")
    assert errors == []
    return context, page, {"board": table}


def test_hunan_room_with_the_xingjia_from_the_lobby(browser, srv):
    context, page, _ = play_variant(browser, srv, "hunan")
    playing, xingjia = settlement_seats(page)
    assert len(playing) == 3 and len(xingjia) == 1
    assert set(playing) | set(xingjia) == {"0", "1", "2", "3"}  # four seats, each once
    assert "醒家" in page.inner_text(".settlement tr.xingjia")
    # the creator's level title beside his name (computers have none), at the table too
    assert page.query_selector(".settlement .level-title") is not None
    if page.query_selector(".board .seat.mine") is not None:  # he played (not the 醒家)
        assert page.query_selector(".board .seat.mine header .level-title") is not None
    # the quick chat's phrases, opened, never cover the settlement window
    page.eval_on_selector("[data-name=chat]", "b => b.click()")
    page.wait_for_selector(".quickchat-list .btn-phrase", state="attached")
    covered = page.evaluate("""() => {
      const r = document.querySelector('.settlement').getBoundingClientRect();
      const out = [];
      for (let i = 0; i <= 10; i++) for (let j = 0; j <= 10; j++) {
        // 14 px in: the window's rounded corners are not part of it
        const x = r.left + 14 + (r.width - 28) * i / 10, y = r.top + 14 + (r.height - 28) * j / 10;
        if (y >= innerHeight || x >= innerWidth) continue;
        const hit = document.elementFromPoint(x, y);
        if (!hit || !hit.closest('.settlement')) out.push([x, y, hit && hit.className]);
      }
      return out;
    }""")
    assert covered == []
    shot(page, "hunan-settlement-chat-phone-landscape")
    context.close()


def test_luzhou_room_with_the_zuodi_from_the_lobby(browser, srv):
    context, page, _ = play_variant(browser, srv, "luzhou")
    playing, sitting_out = settlement_seats(page)
    # the 坐底 sits this hand out: his row is not among the playing seats (the settlement
    # names the finished hand's, not the next hand's once the deal has moved)
    assert len(playing) == 3 and len(sitting_out) == 1 and sitting_out[0] not in playing
    # the 底牌 (the wall's last card, never won) lies on the table for everyone to see
    dipai = page.query_selector("[data-name=dipai]")
    assert dipai is not None and dipai.query_selector(".card") is not None
    assert dipai.is_visible()  # shown at 844x390 too, where the 亮张 box is hidden
    context.close()


@pytest.mark.parametrize(("players", "seats"), [(2, 2), (3, 4)])
def test_luzhou_for_two_from_the_lobby_has_no_zuodi(browser, srv, players, seats):
    """§9.1: 泸州 for 4 (one 坐底), 3 or 2. The 坐底 needs three players: with two the
    form once kept its box (ticked by the preset) and a third seat, and the server,
    which drops the preset's 坐底 for another player count (N19), refused the room."""
    context = browser.new_context(viewport=PHONE_LANDSCAPE)
    page = context.new_page()
    enter(page, srv.base, "泸州二人")
    page.select_option("select[name=preset]", "luzhou")
    page.fill("input[name=players]", str(players))
    page.dispatch_event("input[name=players]", "change")
    assert page.locator("input[name=xingjia]").is_visible() is (players == 3)
    assert len(page.query_selector_all(".seats select")) == seats
    page.fill("input[name=bot_delay]", "0.05")
    page.click("[data-name=create]")
    page.wait_for_selector(".board .seat", timeout=20_000)
    code = page.url.rsplit("/", 1)[-1]
    table = srv.server.runtimes[code].table
    assert len(table.seats) == seats and table.config.ruleset.players == players
    context.close()


def test_two_player_rules_for_three_from_the_lobby(browser, srv):
    """The set-aside cards need two players: the lobby hides that option for three, and
    the preset's 20 then went on to a refused room (set_aside ... got 20). The preset's
    value goes back to the default where an override leaves it without what it needs."""
    context = browser.new_context(viewport=PHONE_LANDSCAPE)
    page = context.new_page()
    enter(page, srv.base, "二人规则三人")
    page.select_option("select[name=preset]", "two-player")
    assert page.locator("input[name=set_aside]").is_visible()
    page.fill("input[name=players]", "3")
    page.dispatch_event("input[name=players]", "change")
    assert not page.locator("input[name=set_aside]").is_visible()
    assert len(page.query_selector_all(".seats select")) == 3
    page.fill("input[name=bot_delay]", "0.05")
    page.click("[data-name=create]")
    page.wait_for_selector(".board .seat", timeout=20_000)
    rules = srv.server.runtimes[page.url.rsplit("/", 1)[-1]].table.config.ruleset
    assert (rules.players, rules.set_aside, rules.min_huxi) == (3, 0, 21)
    context.close()


def test_a_match_of_four_hands_ends_with_the_match_summary(browser, srv):
    """局数 4 from the lobby's form: after the fourth hand the settlement window holds the
    大结算, one row per seat with the server's totals, wins and best hand."""
    context = browser.new_context(viewport=PHONE_LANDSCAPE)
    page = context.new_page()
    errors = console_errors(page)
    enter(page, srv.base, "四局玩家")
    page.select_option("select[name=preset]", "qq")
    page.select_option("select[name=hands]", "4")
    page.fill("input[name=bot_delay]", "0.05")
    page.fill("input[name=next_delay]", "600")
    page.click("[data-name=create]")
    totals = [0, 0, 0]
    for hand in range(1, 5):
        page.wait_for_selector(".board .seat", timeout=20_000)
        play_until_settlement([page])
        for row in page.query_selector_all(".settlement table.points tr[data-seat]"):
            totals[int(row.get_attribute("data-seat") or "")] += int(row.query_selector(
                "td.pts").inner_text())
        if hand < 4:
            assert page.query_selector(".match-summary") is None  # only when the match ends
            page.click("[data-name=next-hand]")
            page.wait_for_function("!document.querySelector('.settlement')", timeout=30_000)
    page.wait_for_selector(".match-summary", timeout=10_000)
    shot(page, "match-summary-phone-landscape")
    rows = page.query_selector_all(".match-summary tr.summary-row")
    assert [r.get_attribute("data-seat") for r in rows] == ["0", "1", "2"]
    # each total is the sum of the four hands' points the windows showed
    assert [int(r.query_selector("td.pts").inner_text()) for r in rows] == totals
    wins = sum(int(r.query_selector("td.wins").inner_text()) for r in rows)
    assert 0 <= wins <= 4
    assert errors == []
    context.close()


@pytest.mark.parametrize("viewport", [PHONE_LANDSCAPE, {"width": 568, "height": 320}])
def test_each_presets_help_page_shows_its_own_tables(browser, srv, viewport):
    """The help page of every preset, on phones held sideways: its own 胡息 table (泸州's
    垅/招/列 and its black and red values), each 名堂 with its condition in words, how
    名堂 combine, and 海底 where the preset has it — all from /api/rules/{preset}."""
    import httpx

    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    errors = console_errors(page)
    enter(page, srv.base, "规则")
    presets = httpx.get(f"{srv.base}/api/rules/qq").json()["presets"]
    for name in presets:
        rules = httpx.get(f"{srv.base}/api/rules/{name}").json()
        page.goto(f"{srv.base}/#/help/{name}")
        page.wait_for_selector(f".presets a[data-preset={name}]")
        page.wait_for_function(
            "n => document.querySelectorAll('.huxi-table tr[data-kind]').length === n",
            arg=len(rules["huxi"]))
        shown = page.query_selector_all(".huxi-table tr[data-kind]")
        for row, tr in zip(rules["huxi"], shown, strict=True):
            assert tr.get_attribute("data-kind") == row["kind"]
            assert tr.query_selector("th").inner_text().startswith(row["label"])
            assert tr.query_selector(".huxi-small").inner_text() == str(row["small_huxi"])
            assert tr.query_selector(".huxi-big").inner_text() == str(row["big_huxi"])
        whens = [tr.inner_text() for tr in page.query_selector_all(".mingtang-when")]
        assert len(whens) == len(rules["mingtang"])
        for m, text in zip(rules["mingtang"], whens, strict=True):
            when = m["when"]
            if "count" in when:
                assert {"red": "红字", "big": "大字", "small": "小字"}[when["count"]] in text
                numbers = when["is"] if "is" in when else [when["at_least"]]
                assert all(str(n) in text for n in numbers), text
        notes = {li.get_attribute("data-note"): li.inner_text()
                 for li in page.query_selector_all(".mingtang-notes li")}
        assert ("haidi" in notes) == rules["haidi"]
        if rules["mingtang"]:
            assert ("最大" in notes["combine"]) == (rules["combine"] == "best")
            assert "含胡的那张" in notes["counts"]  # §7.2: the winning card counts
        duidui = any(m["when"].get("all_identical") for m in rules["mingtang"])
        assert ("tianhu-duidui" in notes) == duidui  # §7.2's 天胡 对对胡 decision
        scoring = rules["scoring"]
        rows = page.query_selector_all(".scoring-table tr[data-from]")
        assert [(r.get_attribute("data-from"), r.query_selector(".di").inner_text(),
                 r.query_selector(".di-zimo").inner_text()) for r in rows] == [
            (str(r["from"]), str(r["di"]), str(r["di_zimo"])) for r in scoring["di"]]
        pays = page.inner_text(".scoring-pays")
        assert f"底分 {scoring['base']}" in pays and scoring["di_name"] in pays
        deal = rules["deal"]  # who deals, 天胡/地胡, discards, escapes: from the API
        said = {li.get_attribute("data-rule"): li.inner_text()
                for li in page.query_selector_all(".deal-rules li")}
        passes = deal["draws_to_pass"]
        assert ("连庄" in said["dealer"]) == (passes != 1)
        assert (f"连续 {passes} 局荒庄" in said["dealer"]) == (passes not in (None, 1))
        assert f"{deal['tianhu']['ti']} 提" in said["tianhu"]
        assert f"共 {deal['tianhu']['kan']} 个" in said["tianhu"]
        assert ("亮张" in said["tianhu"]) == deal["liangzhang_win"]
        assert ("不能胡别人打出的牌" in said["discard"]) != deal["win_on_discard"]
        assert ("地胡" in said.get("tianhu-pays", "")) == deal["dihu"]
        assert ("胡息加倍" in said.get("tianhu-pays", "")) == deal["tianhu_huxi_doubled"]
        assert f"+ {deal['escape']['bonus']}" in said["escape"]
        assert ("对家" in said["escape"]) == (deal["players"] == 2)  # one other player
        # who gains the penalty (§7.4): the other player, or the two others by halves
        assert ("各得一半" in said["escape"]) == (deal["players"] == 3)
        assert "算自摸" in said["tianhu"]  # §6.4's decision
        # a red 底牌 goes back to the top (泸州), and the seat sitting out says who pays him
        assert ("底牌" in said.get("dipai", "")) == deal["dipai_shown"]
        out = deal["seat_out"]
        assert ("seat-out" in said) == (out is not None)
        if out is not None:
            assert out["name"] in said["seat-out"]
            assert ("不收也不付" in said["seat-out"]) == (out["paid"] == 0)
        assert "自己偎/提的牌" in said["discard"]  # every preset wins on its own 偎/提
        # only the options that do something in these rules (the 花样 is 常德's)
        listed = {tr.get_attribute("data-option")
                  for tr in page.query_selector_all(".options tr[data-option]")}
        assert listed <= set(rules["applying"]) and "min_huxi" in listed
        assert ("huayang" in listed) == (name == "changde")
        # how a hand is played: the 门子, forced moves, priority, 臭牌, 臭胡, 相公
        play = {li.get_attribute("data-rule"): li.inner_text()
                for li in page.query_selector_all(".play-rules li")}
        assert {"menzi", "auto", "priority", "bi", "win-group", "chou", "chouhu",
                "xianggong"} <= set(play)
        assert ("还可以碰" in play["chou"]) != deal["chou_blocks_peng"]
        assert "臭偎" in play["chou"] and "破跑不破提" in play["auto"]  # §4.2, §4.5
        assert ("打牌者的下家" in play["priority"]) == deal["win_on_discard"]  # §9.1
        current = page.query_selector_all(".presets a[aria-current=page]")
        assert [a.get_attribute("data-preset") for a in current] == [name]
        # nothing runs off the screen's right edge
        width = page.evaluate("document.documentElement.clientWidth")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if name == "luzhou":
            assert page.inner_text(".huxi-table tr[data-kind=ti][data-colour=red] .huxi-big") \
                == "18"
            shot(page, f"help-luzhou-{viewport['width']}x{viewport['height']}")
    assert errors == []
    context.close()


def test_a_tables_help_shows_its_rooms_rules_and_leads_back(browser, srv):
    """A review: the table's 帮助 opened the QQ rules whatever the room played (a 泸州
    player read "15 胡息", "不能胡别人打出的牌"), and led back to the lobby. It shows the
    room's own rules (a 常德 room's 可胡提/偎的牌 off said the opposite; a 泸州 `deng`
    room showed an empty 名堂 table); another preset's button keeps the way back."""
    context = browser.new_context(viewport=PHONE_LANDSCAPE, has_touch=True)
    page = context.new_page()
    errors = console_errors(page)
    enter(page, srv.base, "看规则")
    token = page.evaluate("localStorage.getItem('paohuzi.token')")
    # the computers wait the longest bot_delay before each discard: a hand they won at
    # once (泸州 wins on others' discards) put its settlement over the 帮助 link (CI,
    # 2026-12-07)
    code = srv.quick(token, level="easy", rules={"name": "luzhou", "luzhou_mode": "deng"},
                     bot_delay=10, next_delay=600, timer=60)
    page.goto(f"{srv.base}/#/room/{code}")
    page.wait_for_selector(".board .seat")
    page.click(".topbar .help-link")
    page.wait_for_selector(".help-page .deal-rules")
    assert f"#/help/luzhou?room={code}" in page.url
    said = {li.get_attribute("data-rule"): li.inner_text()
            for li in page.query_selector_all(".deal-rules li")}
    assert "也可以胡别人打出的牌" in said["discard"] and "坐底" in said["seat-out"]
    assert page.inner_text(".options tr[data-option=min_huxi] td") == "10"
    assert not page.is_visible(".mingtang-table")  # no 名堂 in this mode: said in words
    assert "番数为 1" in page.inner_text(".mingtang-notes li[data-note=none]")
    page.click(".presets a[data-preset=qq]")
    page.wait_for_selector(".presets a[data-preset=qq][aria-current=page]")
    assert page.inner_text(".options tr[data-option=min_huxi] td") == "15"
    back = page.query_selector(".topbar [data-name=back]")
    assert back.get_attribute("href") == f"#/room/{code}"
    back.click()
    page.wait_for_selector(".board .seat")
    # a 常德 room without wins on one's own 提/偎 says so
    other = srv.room(token, rules={"name": "changde", "win_on_ti_wei": False})
    page.goto(f"{srv.base}/#/help/changde?room={other}")
    page.wait_for_selector(".deal-rules li[data-rule=discard]")
    text = page.inner_text(".deal-rules li[data-rule=discard]")
    assert "自己要偎/提的牌不能胡" in text and "自己偎/提的牌" not in text, text
    grouped = page.inner_text(".play-rules li[data-rule=win-group]")
    assert "偎胡" not in grouped and "提胡" not in grouped and "碰胡" in grouped, grouped
    # a room's own rules name may hold any text: the table's links still lead to its rules
    odd = srv.quick(token, level="easy", rules={"name": "百分百%规则?x", "min_huxi": 12},
                    bot_delay=10, next_delay=600, timer=60)
    page.goto(f"{srv.base}/#/room/{odd}")
    page.wait_for_selector(".board .seat")
    page.click(".topbar .help-link")
    page.wait_for_selector(".options tr[data-option=min_huxi]")
    assert page.inner_text(".options tr[data-option=min_huxi] td") == "12"
    assert errors == []
    context.close()


def test_quick_play_shows_the_presets_own_zuodi_and_sends_what_it_shows(browser, srv):
    """A review: quick play with 泸州 showed the 坐底 box unticked but the room still had
    the 坐底 (the box only ever added it). It is ticked as the preset has it, and what it
    shows is what the room gets."""
    context = browser.new_context(viewport=PHONE_LANDSCAPE, has_touch=True)
    page = context.new_page()
    enter(page, srv.base, "快速泸州")
    # the levels weaker than the hall's computer are practice: their hands count for no
    # level, said when one is chosen
    note = page.locator("[data-name=practice-note]")
    assert not note.is_visible()  # normal, the default
    for level, practice in (("easy", True), ("random", True), ("hard", False)):
        page.select_option("select[name=level]", level)
        assert note.is_visible() == practice, level
    page.select_option("select[name=level]", "easy")
    assert "练习" in note.inner_text() and "不计" in note.inner_text()
    page.select_option("select[name=level]", "normal")
    page.select_option("select[name=quick-preset]", "luzhou")
    box = page.locator("input[name=quick-xingjia]")
    assert box.is_visible() and box.is_checked()
    page.select_option("select[name=quick-preset]", "hunan")
    assert box.is_visible() and not box.is_checked()
    page.select_option("select[name=quick-preset]", "luzhou")
    box.click()  # unticked: three seats, nobody sits out
    page.click("[data-name=quick]")
    page.wait_for_selector(".board .seat", timeout=20_000)
    code = page.url.split("#/room/")[1]
    import httpx

    rules = httpx.get(f"{srv.base}/api/rooms/{code}/rules").json()["options"]
    assert (rules["players"], rules["xingjia"]) == (3, False)
    context.close()
