"""Progress pages and the selectors behind them: what I know, what is due, a class's weak spots."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from content.models import Period
from lms.progress import selectors
from lms.progress.services import memory_review
from tests.factories import SymbolFactory, ThemeFactory, UserFactory
from tests.games.test_sessions import signed_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def symbols() -> dict[str, Any]:
    ii_rp, prl = Period.objects.get(slug="ii-rp"), Period.objects.get(slug="prl")
    theme = ThemeFactory(name="Symbole narodowe")
    orzel = SymbolFactory(name="Orzeł Biały", periods=[ii_rp])
    orzel.themes.set([theme])
    kotwica = SymbolFactory(name="Kotwica", periods=[prl])
    return {"orzel": orzel, "kotwica": kotwica, "ii_rp": ii_rp, "prl": prl, "theme": theme}


def test_summary_splits_items_into_due_learning_and_known(student: Any, symbols: dict[str, Any]) -> None:
    now = timezone.now()
    start = now - timedelta(days=40)
    orzel, kotwica = symbols["orzel"], symbols["kotwica"]
    state = memory_review(user=student, item_key=f"symbol:{orzel.pk}", correct=True, reviewed_at=start)
    while state.due < now - timedelta(days=3):  # keep it remembered until it is known
        state = memory_review(
            user=student, item_key=f"symbol:{orzel.pk}", correct=True, reviewed_at=state.due
        )
    memory_review(
        user=student, item_key=f"symbol:{kotwica.pk}", correct=False, reviewed_at=now - timedelta(days=2)
    )
    summary = selectors.student_summary(student, now=now)
    assert [entry.item.label for entry in summary.due] == ["Kotwica"]
    assert [entry.item.label for entry in summary.known + summary.learning] == ["Orzeł Biały"]
    assert summary.due[0].mastery < 0.9


def test_review_keys_put_due_items_first(student: Any, symbols: dict[str, Any]) -> None:
    now = timezone.now()
    memory_review(user=student, item_key=f"symbol:{symbols['orzel'].pk}", correct=True, reviewed_at=now)
    memory_review(
        user=student,
        item_key=f"symbol:{symbols['kotwica'].pk}",
        correct=False,
        reviewed_at=now - timedelta(days=1),
    )
    assert selectors.review_keys(student, limit=5, now=now)[0] == f"symbol:{symbols['kotwica'].pk}"
    assert len(selectors.review_keys(student, limit=1, now=now)) == 1


def test_class_mastery_by_symbol_period_and_theme(student: Any, symbols: dict[str, Any]) -> None:
    other = UserFactory()
    now = timezone.now()
    for user in (student, other):
        memory_review(user=user, item_key=f"symbol:{symbols['orzel'].pk}", correct=True, reviewed_at=now)
    memory_review(user=student, item_key=f"symbol:{symbols['kotwica'].pk}", correct=False, reviewed_at=now)
    table = selectors.class_mastery([student, other], now=now)
    assert [row.label for row in table["symbols"]] == ["Kotwica", "Orzeł Biały"]  # weakest first
    periods = {row.label: row for row in table["periods"]}
    assert periods["II RP"].students == 2 and periods["PRL"].students == 1
    assert periods["PRL"].mean < periods["II RP"].mean
    assert [row.label for row in table["themes"]] == ["Symbole narodowe"]


def test_items_wrong_most_ranks_by_share_of_wrong_answers(student: Any, symbols: dict[str, Any]) -> None:
    other = UserFactory()
    orzel, kotwica = (f"symbol:{symbols[name].pk}" for name in ("orzel", "kotwica"))
    memory_review(user=student, item_key=orzel, correct=False)
    memory_review(user=other, item_key=orzel, correct=True)
    memory_review(user=student, item_key=kotwica, correct=False)
    rows = selectors.items_wrong_most([student, other])
    assert [(row.item.label, row.wrong_percent) for row in rows] == [("Kotwica", 100), ("Orzeł Biały", 50)]
    assert selectors.items_wrong_most([other]) == []


def test_my_progress_needs_a_sign_in(client: Any) -> None:
    response = client.get(reverse("progress:mine"))
    assert response.status_code == 302 and "login" in response["Location"]


def test_my_progress_shows_only_my_items(student: Any, symbols: dict[str, Any]) -> None:
    other = UserFactory()
    memory_review(user=student, item_key=f"symbol:{symbols['orzel'].pk}", correct=False)
    memory_review(user=other, item_key=f"symbol:{symbols['kotwica'].pk}", correct=False)
    page = signed_in(student).get(reverse("progress:mine")).content.decode()
    assert "Orzeł Biały" in page and "Kotwica" not in page
    assert "<svg" in page  # the chart


def test_my_progress_when_nothing_was_answered_yet(student: Any) -> None:
    page = signed_in(student).get(reverse("progress:mine")).content.decode()
    assert "Nothing here yet" in page


# --- a teacher's class --------------------------------------------------------------------------


@pytest.fixture
def school_class(teacher: Any, student: Any) -> Any:
    from lms.classes.services import class_create, class_join

    school_class = class_create(teacher=teacher, name="7b")
    class_join(code=school_class.join_code, student=student)
    return school_class


def test_class_progress_shows_mastery_wrong_items_and_students(
    teacher: Any, student: Any, school_class: Any, symbols: dict[str, Any]
) -> None:
    outsider = UserFactory(username="outsider")
    memory_review(user=student, item_key=f"symbol:{symbols['kotwica'].pk}", correct=False)
    memory_review(user=outsider, item_key=f"symbol:{symbols['orzel'].pk}", correct=False)
    page = signed_in(teacher).get(reverse("progress:class", args=[school_class.pk])).content.decode()
    assert "Kotwica" in page and "PRL" in page
    assert "Orzeł Biały" not in page and "outsider" not in page  # not in the class
    assert reverse("progress:class_student", args=[school_class.pk, student.pk]) in page


def test_class_progress_is_the_class_teachers_only(
    other_teacher: Any, student: Any, school_class: Any
) -> None:
    for url in (
        reverse("progress:class", args=[school_class.pk]),
        reverse("progress:class_student", args=[school_class.pk, student.pk]),
        reverse("progress:class_export", args=[school_class.pk, "csv"]),
    ):
        assert signed_in(other_teacher).get(url).status_code == 404
        assert signed_in(student).get(url).status_code == 404


def test_a_student_outside_the_class_is_not_shown(teacher: Any, school_class: Any) -> None:
    outsider = UserFactory()
    url = reverse("progress:class_student", args=[school_class.pk, outsider.pk])
    assert signed_in(teacher).get(url).status_code == 404


def test_class_progress_exports_csv_and_xlsx(
    teacher: Any, student: Any, school_class: Any, symbols: dict[str, Any]
) -> None:
    import csv
    import io

    import openpyxl

    memory_review(user=student, item_key=f"symbol:{symbols['orzel'].pk}", correct=True)
    client = signed_in(teacher)
    response = client.get(reverse("progress:class_export", args=[school_class.pk, "csv"]))
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0][:3] == ["Student", "Username", "Items met"] and "Period: II RP" in rows[0]
    assert rows[1][1] == student.username and rows[1][2] == "1"
    response = client.get(reverse("progress:class_export", args=[school_class.pk, "xlsx"]))
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    assert sheet.cell(row=2, column=2).value == student.username


def test_class_progress_export_is_formula_safe_and_opens_in_excel_as_utf8(
    teacher: Any, school_class: Any, symbols: dict[str, Any]
) -> None:
    import csv
    import io

    import openpyxl

    from lms.classes.services import class_join

    attacker = UserFactory(first_name="=cmd|' /C calc'!A0", last_name="", username="mallory")
    class_join(code=school_class.join_code, student=attacker)
    memory_review(user=attacker, item_key=f"symbol:{symbols['orzel'].pk}", correct=True)
    client = signed_in(teacher)
    response = client.get(reverse("progress:class_export", args=[school_class.pk, "csv"]))
    assert response.content.startswith("\ufeff".encode())  # Excel then reads "Orzeł" as UTF-8
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    names = [row[0] for row in rows[1:]]
    assert "'=cmd|' /C calc'!A0" in names
    assert not any(cell[:1] in "=+-@" for row in rows for cell in row if cell)
    response = client.get(reverse("progress:class_export", args=[school_class.pk, "xlsx"]))
    sheet = openpyxl.load_workbook(io.BytesIO(response.content)).active
    cells = [cell.value for row in sheet.iter_rows() for cell in row]
    assert "'=cmd|' /C calc'!A0" in cells
    assert not any(isinstance(v, str) and v[:1] in "=+-@" for v in cells)


def test_the_class_export_knows_only_csv_and_xlsx(teacher: Any, school_class: Any) -> None:
    response = signed_in(teacher).get(reverse("progress:class_export", args=[school_class.pk, "ods"]))
    assert response.status_code == 404


def test_a_students_page_shows_their_mastery_by_period_and_by_theme(
    teacher: Any, student: Any, school_class: Any, symbols: dict[str, Any]
) -> None:
    memory_review(user=student, item_key=f"symbol:{symbols['orzel'].pk}", correct=True)
    url = reverse("progress:class_student", args=[school_class.pk, student.pk])
    response = signed_in(teacher).get(url)
    page = response.content.decode()
    assert "By period" in page and "II RP" in page
    assert "By theme" in page and "Symbole narodowe" in page
    assert response.context["theme_chart"] is not None  # drawn, as on the class's page
    assert "Mastery by theme" in str(response.context["theme_chart"])


# --- reads never write ----------------------------------------------------------------------------


def test_progress_pages_only_read_namings_in_play_wait_for_their_game_or_the_sweep(
    teacher: Any, student: Any, school_class: Any, symbols: dict[str, Any]
) -> None:
    """Issue 17: opening a page takes nobody's namings in: their game's end or the sweep does."""
    from games.models import NamingRecord
    from lms.progress.models import MemoryState, NamingWatermark, Review
    from tests.games.test_sessions import create_session
    from tests.writes import get_writing

    session = create_session(teacher, seed=3)
    NamingRecord.objects.create(
        session=session,
        user=student,
        action_index=1,
        symbol=symbols["orzel"],
        correct=True,
        symbol_key="k",
        symbol_name="n",
        dont_know=False,
    )
    pk = school_class.pk
    pages = [
        (student, reverse("progress:mine")),
        (teacher, reverse("progress:class", args=[pk])),
        (teacher, reverse("progress:class_student", args=[pk, student.pk])),
        (teacher, reverse("progress:class_export", args=[pk, "csv"])),
        (teacher, reverse("progress:class_export", args=[pk, "xlsx"])),
        (teacher, reverse("progress:class_weeks_export", args=[pk, "csv"])),
    ]
    for user, url in pages:
        response, writes = get_writing(signed_in(user), url)
        assert (response.status_code, writes) == (200, []), url
    assert not (MemoryState.objects.exists() or Review.objects.exists() or NamingWatermark.objects.exists())
