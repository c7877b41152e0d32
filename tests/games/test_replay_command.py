"""``python manage.py replay FILE`` as ``docs/replay.md`` describes it, run as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games.replay import log_replay

ROOT = Path(__file__).resolve().parents[2]

#: A duel to the end (seed 7 deals p1 and p2 two cards each from the order-2 deck).
GOLDEN: dict[str, Any] = {
    "game": "znajznak",
    "variant": "duel",
    "seed": 7,
    "setup": {
        "cards": [["001", "002", "003"], ["001", "004", "005"], ["001", "006", "007"], ["002", "004", "006"],
                  ["002", "005", "007"], ["003", "004", "007"], ["003", "005", "006"]],
        "names": {"001": {"name": "Orzeł Biały"}, "002": {"name": "Kotwica"},
                  "003": {"name": "Choinka bożonarodzeniowa"}, "004": {"name": "Syrenka"},
                  "005": {"name": "Biało-Czerwona"}, "006": {"name": "Tramwaj"}, "007": {"name": "Solidarność"}},
        "players": [{"id": "p1", "name": "Ala"}, {"id": "p2", "name": "Olek"}],
        "cards_per_player": 2,
    },
    "actions": [
        {"type": "stop", "player": "p1", "symbol": "006"},
        {"type": "name", "player": "p1", "text": "Tram"},
        {"type": "stop", "player": "p2", "symbol": "004"},
        {"type": "name", "player": "p2", "text": "syrenka"},
        {"type": "stop", "player": "p2", "symbol": "007"},
    ],
}  # fmt: skip


def replay(argument: str, *, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "replay", argument],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def log_file(tmp_path: Path, log: Any) -> str:
    path = tmp_path / "game.json"
    path.write_text(log if isinstance(log, str) else json.dumps(log, ensure_ascii=False), encoding="utf-8")
    return str(path)


def with_actions(actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {**GOLDEN, "actions": actions}


def test_a_legal_log_prints_the_final_state_and_exits_0(tmp_path):
    result = replay(log_file(tmp_path, GOLDEN))

    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    state = json.loads(result.stdout)
    assert state["terminal"] is True and state["phase"] == "over"
    assert state["outcome"] == {
        "winner": "p2",
        "ranking": ["p2", "p1"],
        "reason": "last_card",
        "cards_in_hand": {"p1": 2, "p2": 0},
    }
    assert [(n["player"], n["symbol"], n["correct"]) for n in state["namings"]] == [
        ("p1", "006", False),
        ("p2", "004", True),
    ]
    assert state["reveal"] == {
        "player": "p2",
        "symbol": "007",
        "name": "Solidarność",
        "result": "not_needed",
        "text": None,
    }
    assert state["stacks"] == {"p1": [3, 6], "p2": []} and state["table"] == {"p1": 5, "p2": 2}


def test_the_first_illegal_action_exits_2_with_the_state_before_it(tmp_path):
    actions = (
        GOLDEN["actions"][:2] + [{"type": "name", "player": "p2", "text": "Syrenka"}] + GOLDEN["actions"][2:]
    )
    result = replay(log_file(tmp_path, with_actions(actions)))

    assert result.returncode == 2
    assert json.loads(result.stdout) == log_replay(with_actions(actions[:2])).state
    assert result.stderr.count("\n") <= 1
    assert json.loads(result.stderr) == {
        "index": 2,
        "error": "illegal_action",
        "reason": "Nobody is naming a symbol: say STOP and point at the common symbol first.",
    }


def test_a_malformed_action_is_an_invalid_action(tmp_path):
    result = replay(
        log_file(tmp_path, with_actions([GOLDEN["actions"][0], {"type": "jump", "player": "p1"}]))
    )

    assert result.returncode == 2
    assert json.loads(result.stderr) == {
        "index": 1,
        "error": "invalid_action",
        "reason": "Unknown action type 'jump'; ZnajZnak knows stop, name, dont_know and time_up.",
    }
    assert json.loads(result.stdout)["claim"] == {"player": "p1", "symbol": "006"}


@pytest.mark.parametrize(
    "bad",
    [
        "stop",
        {"player": "p1"},
        {"type": "stop", "player": 1, "symbol": "006"},
        {"type": "stop", "player": "p1"},
    ],
)
def test_actions_that_are_not_well_formed_are_invalid_actions(bad):
    result = log_replay(with_actions([GOLDEN["actions"][0], GOLDEN["actions"][1], bad]))
    assert result.error is not None and (result.error["index"], result.error["error"]) == (
        2,
        "invalid_action",
    )
    assert result.state == log_replay(with_actions(GOLDEN["actions"][:2])).state


def test_a_file_that_is_no_game_log_is_an_invalid_log(tmp_path):
    for text in ("{not json", json.dumps({"game": "znajznak"})):
        result = replay(log_file(tmp_path, text))
        assert result.returncode == 2
        assert json.loads(result.stdout) is None
        error = json.loads(result.stderr)
        assert (error["index"], error["error"]) == (None, "invalid_log") and error["reason"]
    assert json.loads(replay(str(tmp_path / "missing.json")).stderr)["error"] == "invalid_log"


@pytest.mark.parametrize(
    "change",
    [
        {"game": "chess"},
        {"variant": "blitz"},
        {"seed": "7"},
        {"seed": True},
        {"setup": []},
        {"actions": {}},
        {"setup": {"cards": [["001"]]}},
    ],
)
def test_logs_that_cannot_start_a_game_are_invalid_logs(change):
    result = log_replay({**GOLDEN, **change})
    assert result.state is None and result.error["error"] == "invalid_log"
    assert result.error["index"] is None and result.error["reason"]


def test_a_dash_reads_the_log_from_standard_input():
    result = replay("-", stdin=json.dumps(GOLDEN))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == log_replay(GOLDEN).state


def test_a_knowledge_log_without_cards_draws_them_from_the_default_pool_by_the_seed(tmp_path: Path) -> None:
    """``shared/replay.md``: "cards ... Left out: drawn from the default question pool by the
    seed": the pool Talia ships, read from its file (the same on every installation)."""
    pool = json.loads((ROOT / "content/demo/data/knowledge_questions.json").read_text(encoding="utf-8"))
    first = log_replay({"game": "knowledge", "variant": "basic", "seed": 3, "setup": {}, "actions": []})
    again = log_replay({"game": "knowledge", "variant": "basic", "seed": 3, "setup": {}, "actions": []})
    other = log_replay({"game": "knowledge", "variant": "basic", "seed": 4, "setup": {}, "actions": []})
    assert first.error is None and first.state == again.state
    assert other.state is not None and other.state["round_cards"] != first.state["round_cards"]
    fronts = {row["front"] for row in pool}
    dealt = first.state["round_cards"]
    cards = {card["id"]: card for card in first.state["cards"]}
    assert len(dealt) == 6 and all(card.startswith("d") and cards[card]["front"] in fronts for card in dealt)
    # The command line replays such a log and plays one card of it.
    action = {"type": "assign", "card": dealt[0], "marker": "team"}
    log = {"game": "knowledge", "variant": "basic", "seed": 3, "setup": {}, "actions": [action]}
    result = replay(log_file(tmp_path, log))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["history"][0]["card"] == dealt[0]
