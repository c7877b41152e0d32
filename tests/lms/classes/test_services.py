"""Homework made from a ZnajZnak practice keeps the practice's rule for cards per player,
however it is made: the homework page's service or the LMS's activity picker."""

from __future__ import annotations

from typing import Any

import pytest

from games.models import PracticeAssignment
from games.play.znajznak.practice import practice_assignment_create
from lms.classes.errors import ClassError
from lms.lti.services import assignment_from_template
from lms.models import Assignment
from tests.games.test_practice import RULE, small_deck
from tests.lms.factories_classes import class_with_students, practice_homework

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("cards_per_player", [1, 67])
def test_homework_set_through_the_service_deals_two_to_sixty_six_cards_a_player(
    teacher: Any, cards_per_player: int
) -> None:
    school_class = class_with_students(teacher)

    with pytest.raises(ClassError) as refused:
        practice_homework(school_class, game_options={"cards_per_player": cards_per_player})

    assert str(refused.value) == RULE
    assert not Assignment.objects.exists()


def test_homework_picked_from_a_practice_of_one_card_a_player_is_refused_with_the_rule(teacher: Any) -> None:
    """A practice saved with one card a player before the rule cannot become homework
    through the activity picker (``lms.lti.services.assignment_from_template``)."""
    school_class = class_with_students(teacher)
    practice = practice_assignment_create(owner=teacher, title="Dawna", deck=small_deck(teacher))
    PracticeAssignment.objects.filter(pk=practice.pk).update(cards_per_player=1)

    with pytest.raises(ClassError) as refused:
        assignment_from_template(key=f"game:{practice.pk}", school_class=school_class, teacher=teacher)

    assert str(refused.value) == RULE
    assert not Assignment.objects.exists()


def test_homework_picked_from_a_practice_keeps_its_cards_per_player(teacher: Any) -> None:
    school_class = class_with_students(teacher)
    practice = practice_assignment_create(
        owner=teacher, title="Dwie karty", deck=small_deck(teacher), cards_per_player=2
    )

    homework = assignment_from_template(key=f"game:{practice.pk}", school_class=school_class, teacher=teacher)

    assert homework.game_options["cards_per_player"] == 2
