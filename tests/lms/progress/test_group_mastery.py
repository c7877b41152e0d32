"""The numbers a progress column shows: a student's mastery of a period or theme, 0–100."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from content.models import Period
from lms.progress import memory
from lms.progress.models import MemoryState
from lms.progress.selectors import mastery_percent, students_group_mastery
from lms.progress.services import memory_review
from tests.factories import SymbolFactory, ThemeFactory, UserFactory


def test_mastery_percent_is_the_rounded_mean_of_the_items_met():
    assert mastery_percent([0.9, 0.6]) == 75
    assert mastery_percent([1.0]) == 100
    assert mastery_percent([0.0, 0.0]) == 0
    assert mastery_percent([0.333]) == 33


def test_mastery_percent_of_nothing_met_is_none_not_zero():
    assert mastery_percent([]) is None


@pytest.mark.django_db
def test_group_mastery_is_the_mean_over_the_symbols_of_the_period_or_theme_the_student_met():
    now = timezone.now()
    ii_rp, prl = Period.objects.get(slug="ii-rp"), Period.objects.get(slug="prl")
    people = ThemeFactory(name="People")
    first = SymbolFactory(periods=[ii_rp])
    second = SymbolFactory(periods=[ii_rp])
    first.themes.add(people)
    never_met = SymbolFactory(periods=[ii_rp])
    student, other = UserFactory(), UserFactory()
    at = now - timedelta(hours=1)
    memory_review(user=student, item_key=f"symbol:{first.pk}", correct=True, reviewed_at=at)
    memory_review(user=student, item_key=f"symbol:{second.pk}", correct=False, reviewed_at=at)
    memory_review(user=other, item_key=f"symbol:{never_met.pk}", correct=True, reviewed_at=at)

    found = students_group_mastery([student, other], periods=[ii_rp.pk, prl.pk], themes=[people.pk], now=now)

    def of(symbol, user):
        return memory.mastery(MemoryState.objects.get(user=user, item_key=f"symbol:{symbol.pk}").card, now)

    right, wrong = of(first, student), of(second, student)
    assert right > wrong
    assert found[student.pk] == {
        ("period", ii_rp.pk): round(100 * (right + wrong) / 2),
        ("period", prl.pk): None,  # met nothing of PRL
        ("theme", people.pk): round(100 * right),
    }
    assert found[other.pk][("period", ii_rp.pk)] == round(100 * of(never_met, other))
    assert found[other.pk][("theme", people.pk)] is None


@pytest.mark.django_db
def test_group_mastery_rises_after_a_right_answer():
    ii_rp = Period.objects.get(slug="ii-rp")
    symbol = SymbolFactory(periods=[ii_rp])
    student = UserFactory()
    start = timezone.now() - timedelta(days=3)
    memory_review(user=student, item_key=f"symbol:{symbol.pk}", correct=False, reviewed_at=start)
    before = students_group_mastery([student], periods=[ii_rp.pk])[student.pk][("period", ii_rp.pk)]
    memory_review(user=student, item_key=f"symbol:{symbol.pk}", correct=True)
    after = students_group_mastery([student], periods=[ii_rp.pk])[student.pk][("period", ii_rp.pk)]
    assert before is not None and after is not None and after > before
