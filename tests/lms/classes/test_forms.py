"""The homework form deals ZnajZnak cards by the same rule as the practice page and the engine."""

from __future__ import annotations

from typing import Any

import pytest

from games.play.znajznak.forms import PracticeForm
from lms.classes.forms import AssignmentForm
from lms.models import Assignment
from tests.games.test_practice import RULE, small_deck

pytestmark = pytest.mark.django_db


def practice_homework_data(deck: Any, cards_per_player: Any) -> dict[str, Any]:
    return {
        "title": "Pojedynek",
        "kind": Assignment.Kind.GAME,
        "game": Assignment.Game.ZNAJZNAK_PRACTICE,
        "deck": deck.pk,
        "mode": "clock",
        "cards_per_player": cards_per_player,
        "bot_seconds": "8",
        "bot_accuracy": 80,
        "policy": Assignment.Policy.BEST,
        "points_possible": "10",
    }


@pytest.mark.parametrize("cards_per_player", [1, 67, 2.5])
def test_homework_deals_two_to_sixty_six_cards_a_player(teacher: Any, cards_per_player: Any) -> None:
    form = AssignmentForm(practice_homework_data(small_deck(teacher), cards_per_player), user=teacher)

    assert not form.is_valid()
    assert form.errors["cards_per_player"] == (
        [RULE] if isinstance(cards_per_player, int) else ["Enter a whole number."]
    )


@pytest.mark.parametrize("cards_per_player", [2, 5, 66])
def test_homework_takes_two_to_sixty_six_cards_a_player(teacher: Any, cards_per_player: int) -> None:
    form = AssignmentForm(practice_homework_data(small_deck(teacher), cards_per_player), user=teacher)

    assert form.is_valid(), form.errors
    assert form.service_fields()["game_options"]["cards_per_player"] == cards_per_player


def test_the_homework_and_practice_fields_ask_the_same(teacher: Any) -> None:
    """Both pages show the same limits to the browser, the rulebook's five first."""
    homework = AssignmentForm(user=teacher)["cards_per_player"]
    practice = PracticeForm(user=teacher)["cards_per_player"]
    for field in (homework, practice):
        widget = field.field.widget
        assert (widget.attrs["min"], widget.attrs["max"], field.initial) == (2, 66, 5)
