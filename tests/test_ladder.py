"""``benchmarks/ladder.py``: every level against every other on the same duplicate deals."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

LEVELS = ["random", "easy", "heuristic"]


def ladder_module() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "ladder.py"
    spec = importlib.util.spec_from_file_location("ladder_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(ladder: ModuleType, out: Path, capsys: pytest.CaptureFixture[str],
        *extra: str) -> str:
    assert ladder.main(["--levels", ",".join(LEVELS), "--deals", "3", "--seed", "5",
                        "--out", str(out), *extra]) == 0
    return capsys.readouterr().out


def test_ladder_output_and_resume(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    ladder = ladder_module()
    out = tmp_path / "ladder.json"
    text = run(ladder, out, capsys)
    data = json.loads(out.read_text())
    pairs = {f"{a} vs {b}" for a in LEVELS for b in LEVELS if a != b}
    assert set(data["pairings"]) == pairs
    assert (data["seed"], data["deals"]) == (5, 3)
    for key, r in data["pairings"].items():
        assert key == f"{r['a']} vs {r['b']}"
        assert r["hands"] == 9 and r["low"] <= r["points"] <= r["high"]
        assert sum(r["cpu_a"].values()) > 0 and sum(r["cpu_b"].values()) > 0
    # the matrix: one row per level, a dash on the diagonal, every cell filled
    assert "| A \\ two B | random | easy | heuristic |" in text
    rows = [line for line in text.splitlines() if line.startswith(("| random |", "| easy |",
                                                                   "| heuristic |"))]
    matrix = rows[:3]
    assert [row.count("—") for row in matrix] == [1, 1, 1]
    r = data["pairings"]["heuristic vs easy"]
    assert f"{r['points']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]" in matrix[2]
    assert "| easy > random |" in text and "| heuristic > easy |" in text
    assert "| level | decision CPU p50 | CPU p99 | wall p50 | wall p99 |" in text
    assert "Missing pairings: none." in text

    # resuming: a finished pairing is not played again, a missing one is (the same deals)
    removed = data["pairings"].pop("easy vs heuristic")
    out.write_text(json.dumps(data))
    played: list[tuple[str, str]] = []
    original = ladder.play_pairing

    def spy(a: str, b: str, *args: Any) -> dict[str, Any]:
        played.append((a, b))
        result: dict[str, Any] = original(a, b, *args)
        return result

    monkeypatch.setattr(ladder, "play_pairing", spy)
    run(ladder, out, capsys)
    assert played == [("easy", "heuristic")]
    again = json.loads(out.read_text())["pairings"]
    assert again["easy vs heuristic"]["points"] == removed["points"]
    assert {k: v["points"] for k, v in again.items()} == \
        {k: v["points"] for k, v in data["pairings"].items()} | {"easy vs heuristic":
                                                                   removed["points"]}
    run(ladder, out, capsys)
    assert played == [("easy", "heuristic")]  # nothing left to play

    # a file of other settings is refused, not mixed in
    with pytest.raises(ladder.LadderFileMismatch, match="seed=5"):
        ladder.main(["--levels", ",".join(LEVELS), "--deals", "3", "--seed", "6",
                     "--out", str(out)])


def test_missing_pairings_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ladder = ladder_module()
    out = tmp_path / "ladder.json"
    run(ladder, out, capsys)
    data = json.loads(out.read_text())
    text = ladder.markdown(data, [*LEVELS, "normal"])
    assert "| normal | missing | missing | missing | — |" in text
    assert "| normal > heuristic | missing |" in text
    assert "| normal | missing | | | | 0 | 0 |" in text  # no decision times made up
    assert "Missing pairings: random vs normal, easy vs normal, heuristic vs normal, " \
        "normal vs random, normal vs easy, normal vs heuristic." in text


def test_percentiles_from_histograms() -> None:
    ladder = ladder_module()
    # the arena's rule: the sample of rank int(q * n) in sorted order, here 1 ms, 10 ms, 1 s
    counts = ladder.histogram([0.001] * 51 + [0.010] * 48 + [1.0])
    assert sum(counts.values()) == 100
    assert 1.0 <= ladder.percentile_ms(counts, 0.5) <= 1.05
    assert 10.0 <= ladder.percentile_ms(counts, 0.98) <= 10.5
    assert 1000.0 <= ladder.percentile_ms(counts, 0.99) <= 1050.0
    assert ladder.percentile_ms({}, 0.99) == 0.0


def test_two_ladders_of_the_same_deals_compare_deal_by_deal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each pairing keeps A's points per deal; ``--compare`` pairs two runs deal by deal
    (here the same players: the difference is exactly 0), and refuses other deals."""
    ladder = ladder_module()
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    run(ladder, first, capsys)
    data = json.loads(first.read_text())
    r = data["pairings"]["heuristic vs random"]
    assert len(r["deal_points_a"]) == 3
    assert sum(r["deal_points_a"]) / 9 == pytest.approx(r["points"])
    text = run(ladder, second, capsys, "--compare", str(first))
    assert "heuristic vs random: +0.00 [+0.00, +0.00] points per hand against the other " \
        "ladder, paired over 3 deals" in text
    # a changed player shows up as a difference (one deal's points moved by 9)
    other = json.loads(second.read_text())
    other["pairings"]["heuristic vs random"]["deal_points_a"][0] += 9
    line = next(x for x in ladder.compare(other, data) if x.startswith("heuristic vs random"))
    assert line.startswith("heuristic vs random: +1.00 [")
    other["deals"] = 4
    with pytest.raises(ladder.LadderFileMismatch, match="deals"):
        ladder.compare(other, data)


def test_a_pairing_played_in_chunks_is_the_pairing_played_at_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    ladder = ladder_module()
    whole, parts = tmp_path / "whole.json", tmp_path / "parts.json"
    args = ["--levels", "easy,random", "--deals", "5", "--seed", "11"]
    assert ladder.main([*args, "--out", str(whole)]) == 0
    capsys.readouterr()

    # stop after the first chunk (as a run cut short would): it is saved, the rest is not
    original = ladder.play_pairing
    played: list[int] = []

    def stop_after_one(*a: Any, **kw: Any) -> dict[str, Any]:
        if played:
            raise KeyboardInterrupt
        played.append(kw["first"])
        result: dict[str, Any] = original(*a, **kw)
        return result

    monkeypatch.setattr(ladder, "play_pairing", stop_after_one)
    with pytest.raises(KeyboardInterrupt):
        ladder.main([*args, "--out", str(parts), "--chunk", "2"])
    saved = json.loads(parts.read_text())
    assert saved["pairings"] == {}
    assert [c["first"] for c in saved["partial"]["easy vs random"]] == [0]
    text = capsys.readouterr().out
    assert text == ""  # the run was cut before printing

    # the report shows the deals played so far; a later run goes on from there
    assert ladder.main([*args, "--out", str(parts), "--report-only"]) == 0
    text = capsys.readouterr().out
    assert "(2 of 5 deals so far)" in text and "easy vs random (2 of 5 deals played)" in text
    firsts: list[int] = []

    def spy(*a: Any, **kw: Any) -> dict[str, Any]:
        firsts.append(kw["first"])
        result: dict[str, Any] = original(*a, **kw)
        return result

    monkeypatch.setattr(ladder, "play_pairing", spy)
    assert ladder.main([*args, "--out", str(parts), "--chunk", "2"]) == 0
    assert firsts[:2] == [2, 4]  # easy vs random's last two chunks, then random vs easy's
    one = json.loads(whole.read_text())["pairings"]
    merged = json.loads(parts.read_text())
    assert "partial" not in merged
    for key in ("easy vs random", "random vs easy"):
        a, b = one[key], merged["pairings"][key]
        assert b["deal_points_a"] == a["deal_points_a"]
        for field in ("points", "low", "high", "hu_a", "hu_b", "draw_rate"):
            assert b[field] == pytest.approx(a[field]), field
        assert (b["hands"], b["deals"]) == (a["hands"], a["deals"]) == (15, 5)
        assert sum(b["cpu_a"].values()) == sum(a["cpu_a"].values())
        assert b["build"] == a["build"] in ("sources", "compiled")
