"""Knowledge? in a real browser: the renderer's words and drawing for engine move records.

``static/games/knowledge.js`` explains each move from the engine's record (``explain``) and
draws the board from the view (``render``).  Here a loaded game page imports that very module
and is fed records and views built by the engine from hand-checked setups: the golden basic
playthrough (a flag turned, an abandoned move, a move out of a stack) and the rule tests'
letter move skipping the team marker; and a crafted view with a stack and a flag.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.browsing import open_page, sign_in
from tests.e2e.test_knowledge_round import solo_game
from tests.e2e.test_znajznak_duel import page_problems

pytestmark = pytest.mark.e2e

GOLDEN = Path(__file__).resolve().parents[1] / "games" / "engines" / "golden" / "knowledge_basic.json"

#: The renderer module as the page loaded it; ``ctx.t`` returns the English text.
IMPORT = """async () => {
  const url = performance.getEntriesByType("resource").map((e) => e.name)
    .find((name) => /\\/games\\/knowledge\\.js(\\?|$)/.test(name));
  window.knowledgeModule = await import(url);
  return url;
}"""

EXPLAIN = """(plays) => plays.map((play) => window.knowledgeModule.explain(play, { t: (text) => text }))"""


def golden_history() -> list[dict[str, Any]]:
    from games.engines import knowledge

    log = json.loads(GOLDEN.read_text(encoding="utf-8"))
    state = knowledge.new_game(log["setup"], seed=log["seed"], variant=log["variant"])
    for action in log["actions"]:
        state = knowledge.apply_action(state, None, action)
    return state.to_dict()["history"]


def letter_skip_record() -> dict[str, Any]:
    """The rule test's move: white moves by D from space 1; the team on space 3 covers the
    blue marker (front D), so white passes it and stops on the D printed on space 4."""
    from tests.games.engines.test_knowledge import play, start

    opponents = [("white", 1), ("green", 11), ("blue", 3), ("yellow", 9), ("red", 10)]
    return play(start(["D"], team=3, opponents=opponents), "c1", "white").to_dict()["history"][-1]


def stack_and_flag_view() -> dict[str, Any]:
    """A view with white, green and blue stacked on space 3 (blue on top) and red on its flag
    side after crossing the finish."""
    from games.engines import knowledge
    from tests.games.engines.test_knowledge import play, start

    opponents = [("white", 3), ("green", 3), ("blue", 3), ("yellow", 9), ("red", 10)]
    state = play(start([3], team=5, opponents=opponents), "c1", "red")  # 10 -> 1: the finish crossed
    assert state.stacks_dict() == {"3": ["white", "green", "blue"]}
    assert state.opponent("red").flag
    return knowledge.player_view(state, None)


@pytest.fixture
def game_page(browsing, demo_site):
    site = demo_site
    session = solo_game(site)
    page = browsing.new_page()
    sign_in(page, site.url, site.students[0].username, site.students[0].password)
    open_page(page, f"{site.url}/games/sessions/{session.pk}/")
    expect(page.locator("svg.knowledge-board")).to_be_visible()
    assert page.evaluate(IMPORT)
    yield page
    assert not page_problems(browsing, page)


def test_move_explanations_say_what_the_move_record_says(game_page):
    history = golden_history()
    by_card = {play["card"]: play for play in history}
    flag, abandoned, out_of_stack = by_card["c2"], by_card["c6"], by_card["c19"]
    # The records are what the sentences below claim (the golden log is hand-checked).
    assert (flag["marker"], flag["matched"], flag["steps"], flag["flag_turned"]) == ("white", "A", 2, True)
    assert (abandoned["marker"], abandoned["movement"]) == ("red", "abandoned")
    assert (out_of_stack["marker"], out_of_stack["steps"], out_of_stack["from_stack"]) == ("blue", 1, True)
    skip_number = by_card["c16"]
    assert (skip_number["answer"], skip_number["steps"], skip_number["skipped_team"]) == (2, 3, True)
    assert skip_number["from_stack"]
    skip_letter = letter_skip_record()
    assert (skip_letter["matched"], skip_letter["steps"], skip_letter["skipped_team"]) == ("D", 3, True)

    sentences = game_page.evaluate(EXPLAIN, [skip_letter, skip_number, out_of_stack, flag, abandoned])
    assert sentences == [
        # The example: "blue moves to the next E: 4 spaces, skipping the team marker".
        "The white opponent moves to the next D: 3 spaces, skipping the team marker.",
        "The white opponent moves 2 spaces: its last step would land on the team marker, so it "
        "moves on to the next space (3 in all). It was taken out from under other markers and moves alone.",
        "The blue opponent moves 1 space. It was taken out from under other markers and moves alone.",
        "The white opponent moves to the next A: 2 spaces. It passes the finish for the first time "
        "and is turned to its flag side.",
        "No E is visible for the red opponent: the move is abandoned. A replacement card is drawn; "
        "assign it to any marker that has not moved.",
    ]


def test_the_board_draws_stacked_markers_and_the_flag(game_page):
    view = stack_and_flag_view()
    drawn = game_page.evaluate(
        """(view) => {
          const root = document.createElement("div");
          document.body.append(root);
          window.knowledgeModule.render(root, { view, you: { role: "spectator" } }, { t: (text) => text });
          const centre = (g) => { const c = g.querySelector("circle, rect"); const b = c.getBBox();
            return [b.x + b.width / 2, b.y + b.height / 2]; };
          const board = root.querySelector("svg.knowledge-board");
          const markers = {};
          for (const g of board.querySelectorAll("g.marker")) {
            const name = [...g.classList].find((c) => c.startsWith("marker-")).slice(7);
            markers[name] = { label: g.querySelector("text").textContent, at: centre(g) };
          }
          const centreOf = board.viewBox.baseVal.width / 2;
          root.remove();
          return { markers, centre: centreOf };
        }""",
        view,
    )
    markers, centre = drawn["markers"], drawn["centre"]
    assert sorted(markers) == ["blue", "green", "red", "team", "white", "yellow"]
    # Front letters (FRONT_LETTERS of the rule tests); the flag only on red, which crossed.
    assert {m: markers[m]["label"] for m in markers} == {
        "team": "T", "white": "A", "green": "B", "yellow": "C", "blue": "D", "red": "E⚑",
    }  # fmt: skip

    def distance(marker: str) -> float:
        x, y = markers[marker]["at"]
        return float(((x - centre) ** 2 + (y - centre) ** 2) ** 0.5)

    # The stack on space 3 is drawn inside the loop, bottom to top towards the centre, on one ray.
    assert distance("white") > distance("green") > distance("blue")
    (wx, wy), (bx, by) = markers["white"]["at"], markers["blue"]["at"]
    assert abs((wx - centre) * (by - centre) - (wy - centre) * (bx - centre)) < 1.0
    # Markers alone on their space lie at the first level.
    assert distance("yellow") == pytest.approx(distance("white"), abs=0.5)
