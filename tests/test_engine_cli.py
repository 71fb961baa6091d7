"""`paohuzi simulate` and `paohuzi replay` end to end (subprocess), and action text."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paohuzi.core.cards import Card
from paohuzi.game.actions import Action, ActionTextError, Chi, Discard, Hu, Pass, Peng
from paohuzi.game.record import replay


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "paohuzi", *args], capture_output=True,
                          text=True, timeout=300)


def stable(output: str) -> list[str]:
    """The report without its timing line."""
    return [line for line in output.splitlines() if not line.startswith("hands:")]


def test_simulate_reports_and_is_deterministic(tmp_path):
    first = run("simulate", "--games", "60", "--seed", "5", "--records", str(tmp_path))
    second = run("simulate", "--games", "60", "--seed", "5")
    assert first.returncode == 0, first.stderr
    assert stable(first.stdout) == stable(second.stdout)
    text = first.stdout
    assert "hands/s" in text and "won:" in text and "荒庄" in text
    assert "mean winning 胡息" in text and "名堂" in text and "天胡" in text
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 60
    for path in files[:20]:
        record = json.loads(path.read_text())
        hand = replay(record)  # raises if the record does not reach its result
        assert hand.ended
    other = run("simulate", "--games", "60", "--seed", "6")
    assert stable(other.stdout) != stable(first.stdout)


@pytest.mark.parametrize("preset", ["changde", "hunan", "two-player"])
def test_simulate_every_preset(preset):
    out = run("simulate", "--games", "20", "--seed", "1", "--rules", preset)
    assert out.returncode == 0, out.stderr
    assert f"rules: {preset}" in out.stdout


def test_simulate_bad_arguments():
    out = run("simulate", "--games", "5", "--rules", "mahjong")
    assert out.returncode == 2 and "unknown preset 'mahjong'" in out.stderr
    assert run("simulate", "--games", "0").returncode == 2


def test_replay_prints_steps_and_settlement(tmp_path):
    run("simulate", "--games", "40", "--seed", "11", "--records", str(tmp_path))
    won = [p for p in sorted(tmp_path.glob("*.json"))
           if json.loads(p.read_text())["result"]["reason"] == "hu"]
    assert won, "no won hand in 40 games"
    out = run("replay", str(won[0]))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("rules: qq")
    assert any(line.startswith("seat ") and ": discard " in line for line in lines)
    assert any("胡息" in line and "底" in line and "番" in line for line in lines)
    assert lines[-1].strip().startswith("points:")
    record = json.loads(won[0].read_text())
    points = record["result"]["points"]
    assert all(f"seat {i}: {p:+d}" in lines[-1] for i, p in enumerate(points))


def test_replay_refuses_a_tampered_or_malformed_record(tmp_path):
    run("simulate", "--games", "3", "--seed", "2", "--records", str(tmp_path))
    path = sorted(tmp_path.glob("*.json"))[0]
    record = json.loads(path.read_text())
    record["result"]["points"] = [99, -99, 0]
    bad = tmp_path / "tampered.json"
    bad.write_text(json.dumps(record))
    out = run("replay", str(bad))
    assert out.returncode == 2 and "the record says" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    record = json.loads(path.read_text())
    record["actions"][0]["action"] = "discard 龍"
    bad.write_text(json.dumps(record))
    out = run("replay", str(bad))
    assert out.returncode == 2 and "龍" in out.stderr and "action 0" in out.stderr
    bad.write_text("{not json")
    assert run("replay", str(bad)).returncode == 2
    assert run("replay", str(tmp_path / "missing.json")).returncode == 2


@pytest.mark.parametrize(
    "action",
    [Discard(Card.parse("三")), Peng(), Hu(), Pass(),
     Action.from_text("chi 一二三"), Action.from_text("chi 二贰贰 比一二三 比二三四")],
)
def test_action_text_round_trip(action):
    assert Action.from_text(action.text) == action
    assert Action.from_text(action.text.replace("三", "x3")) == action


def test_chi_text_orders_bi_groups():
    a = Action.from_text("chi 二贰贰 比二三四 比一二三")
    b = Action.from_text("chi 二贰贰 比一二三 比二三四")
    assert a == b and isinstance(a, Chi)


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "empty"), ("gang 三", "unknown action 'gang'"), ("discard", "exactly one card"),
     ("discard 三四", "exactly one card"), ("peng 三", "takes no argument"),
     ("chi 一二四", "not a sentence"), ("chi 比一二三", "eating group first"),
     ("discard Q", "unknown card character 'Q'")],
)
def test_action_text_errors(text, message):
    with pytest.raises(ActionTextError, match=message):
        Action.from_text(text)


def test_play_in_the_terminal_to_the_end_of_a_hand():
    """`paohuzi play`: numbered choices on stdin, one full hand, the settlement line."""
    out = subprocess.run([sys.executable, "-m", "paohuzi", "play", "--seed", "3",
                          "--hands", "1"], input="x\n9999\n" + "0\n" * 300,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "你的手牌" in out.stdout and "[0]" in out.stdout
    assert "请输入 0 到" in out.stdout  # bad input is answered, not fatal
    assert "总分" in out.stdout
    assert out.stdout.count("本局") == 1


def test_play_quit_is_an_escape():
    out = subprocess.run([sys.executable, "-m", "paohuzi", "play", "--seed", "4"],
                         input="q\n", capture_output=True, text=True, timeout=60)
    assert out.returncode == 0
    assert "逃跑" in out.stdout
