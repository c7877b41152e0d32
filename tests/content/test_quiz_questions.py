"""Quiz questions written by teachers: authored in the admin, imported and exported.

A question students could not answer fairly (a chronology with two events of one date, a
matching with a side left without its pair, a multiple choice with no right option or two
options alike) is refused where it is written and where it is imported, with a message on
the field it names; nothing is saved.
"""

from __future__ import annotations

import io
import re
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from content.imports import import_job_apply
from content.models import ImportJob, QuizQuestion, QuizQuestionOption, Symbol
from tests.content.test_imports import (
    errors_of,
    png_bytes,
    run_import,
    symbol_row,
    table_bytes,
    zip_bytes,
)
from tests.factories import CollectionFactory

QUIZ_QUESTIONS = "quiz_questions"


@pytest.fixture(autouse=True)
def _plain_static(settings):
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


# --- In the admin ---------------------------------------------------------------------------------


def admin_post(client, *, kind: str, text: str = "", options: list[dict], picture=None, extra=None):
    """The add form of a quiz question as the admin sends it, with its options' rows."""
    data = {
        "kind": kind,
        "text": text,
        "explanation": "",
        "language": "pl",
        "status": "draft",
        "options-TOTAL_FORMS": str(len(options)),
        "options-INITIAL_FORMS": "0",
        "options-MIN_NUM_FORMS": "0",
        "options-MAX_NUM_FORMS": "6",
    }
    for index, option in enumerate(options):
        for name in ("text", "date", "match"):
            data[f"options-{index}-{name}"] = option.get(name, "")
        data[f"options-{index}-position"] = str(index + 1)
        if option.get("correct"):
            data[f"options-{index}-correct"] = "on"
        if option.get("picture") is not None:
            data[f"options-{index}-picture"] = option["picture"]
    if picture is not None:
        data["picture"] = picture
    data.update(extra or {})
    return client.post(reverse("admin:content_quizquestion_add"), data)


def inline_errors(response) -> list[dict]:
    """Per option row, the errors of its fields (the admin's inline formset)."""
    formset = response.context["inline_admin_formsets"][0].formset
    return [dict(form.errors) for form in formset.forms]


def non_form_errors(response) -> list[str]:
    return list(response.context["inline_admin_formsets"][0].formset.non_form_errors())


def picture(name: str, colour: str = "red") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, png_bytes(colour), content_type="image/png")


def test_admin_refuses_a_chronology_with_two_events_of_the_same_date_on_their_date_fields(client, teacher):
    client.force_login(teacher)
    response = admin_post(
        client,
        kind="chronology",
        options=[
            {"text": "Wybuch wojny", "date": "1939-09-01"},
            {"text": "Agresja sowiecka", "date": "1939-09"},
            {"text": "Powstanie", "date": "1944-08-01"},
        ],
    )
    assert response.status_code == 200
    errors = inline_errors(response)
    assert set(errors[0]) == {"date"} and set(errors[1]) == {"date"} and errors[2] == {}
    assert "cannot be told apart" in errors[0]["date"][0] and "“date”" in errors[0]["date"][0]
    assert "row 2" in errors[0]["date"][0] and "row 1" in errors[1]["date"][0]
    assert QuizQuestion.objects.count() == 0 and QuizQuestionOption.objects.count() == 0


def test_admin_refuses_a_matching_with_an_unpaired_side_naming_the_missing_field(client, teacher):
    client.force_login(teacher)
    response = admin_post(
        client,
        kind="matching",
        options=[
            {"text": "Piłsudski", "match": "Naczelnik Państwa"},
            {"text": "Narutowicz"},
            {"match": "Premier"},
        ],
    )
    errors = inline_errors(response)
    assert set(errors[1]) == {"match"} and "“pairs with”" in errors[1]["match"][0]
    assert set(errors[2]) == {"text"} and "no left-hand side" in errors[2]["text"][0]
    assert QuizQuestion.objects.count() == 0


def test_admin_refuses_a_multiple_choice_without_a_right_option(client, teacher):
    client.force_login(teacher)
    response = admin_post(
        client, kind="choice", text="Kiedy?", options=[{"text": "1918"}, {"text": "1920"}, {"text": "1939"}]
    )
    assert response.status_code == 200
    [message] = non_form_errors(response)
    assert "No option is marked right" in message and "“right answer”" in message
    assert QuizQuestion.objects.count() == 0


def test_admin_refuses_a_multiple_choice_with_two_identical_options_on_both(client, teacher):
    client.force_login(teacher)
    response = admin_post(
        client,
        kind="choice",
        text="Który znak?",
        options=[{"text": "Kotwica", "correct": True}, {"text": "Orzeł"}, {"text": " kotwica "}],
    )
    errors = inline_errors(response)
    assert set(errors[0]) == {"text"} and set(errors[2]) == {"text"} and errors[1] == {}
    assert "reads the same as row 3" in errors[0]["text"][0]
    assert QuizQuestion.objects.count() == 0


def test_admin_refuses_two_options_showing_the_same_picture(client, teacher):
    client.force_login(teacher)
    response = admin_post(
        client,
        kind="choice",
        text="Który to orzeł?",
        options=[
            {"picture": picture("a.png", "red"), "correct": True},
            {"picture": picture("b.png", "red")},
            {"picture": picture("c.png", "blue")},
        ],
    )
    errors = inline_errors(response)
    assert "text" in errors[0] and "text" in errors[1] and errors[2] == {}
    assert QuizQuestion.objects.count() == 0


def test_admin_refuses_a_multiple_choice_without_its_question(client, teacher):
    client.force_login(teacher)
    response = admin_post(
        client, kind="choice", text="", options=[{"text": "A", "correct": True}, {"text": "B"}]
    )
    assert "text" in response.context["adminform"].form.errors
    assert QuizQuestion.objects.count() == 0


def test_admin_saves_a_fair_multiple_choice_with_pictures_under_random_names(client, teacher):
    client.force_login(teacher)
    response = admin_post(
        client,
        kind="choice",
        text="Który to znak Polski Walczącej?",
        picture=picture("kotwica.png", "green"),
        options=[
            {"text": "Kotwica", "picture": picture("kotwica.png", "red"), "correct": True},
            {"text": "Orzeł", "picture": picture("orzel.png", "blue")},
            {"text": "Lilijka"},
        ],
    )
    assert response.status_code == 302, inline_errors(response) + non_form_errors(response)
    question = QuizQuestion.objects.get()
    assert question.owner == teacher and question.kind == "choice"
    assert question.picture.name.startswith("questions/") and "kotwica" not in question.picture.name
    options = list(question.options.all())
    assert [o.text for o in options] == ["Kotwica", "Orzeł", "Lilijka"]
    assert [o.correct for o in options] == [True, False, False]
    assert "kotwica" not in options[0].picture.name and options[2].picture.name == ""
    # The author sees the pictures through their private views; another teacher does not.
    change = client.get(reverse("admin:content_quizquestion_change", args=[question.pk]))
    assert change.status_code == 200
    assert client.get(reverse("content:question_picture", args=[question.pk])).status_code == 200
    assert client.get(reverse("content:question_option_picture", args=[options[0].pk])).status_code == 200


def test_a_teachers_draft_question_and_its_pictures_are_hidden_from_other_teachers(
    client, teacher, other_teacher
):
    client.force_login(teacher)
    admin_post(
        client,
        kind="choice",
        text="Pytanie",
        picture=picture("p.png"),
        options=[{"text": "A", "correct": True, "picture": picture("a.png")}, {"text": "B"}],
    )
    question = QuizQuestion.objects.get()
    client.force_login(other_teacher)
    assert client.get(reverse("content:question_picture", args=[question.pk])).status_code == 404
    option = question.options.first()
    assert client.get(reverse("content:question_option_picture", args=[option.pk])).status_code == 404
    assert client.get(reverse("admin:content_quizquestion_change", args=[question.pk])).status_code in (
        302,
        404,
    )


def test_symbol_date_must_be_a_date(client, teacher):
    from content.validators import validate_event_date

    validate_event_date("1944-08-01")
    with pytest.raises(Exception, match="not a date"):
        validate_event_date("sierpień 1944")


# --- Import and export ----------------------------------------------------------------------------


def question_row(**values: str) -> dict[str, str]:
    row = {
        "id": "",
        "kind": "choice",
        "text": "Kiedy wybuchło Powstanie Warszawskie?",
        "picture": "",
        "answer": "B",
        "a": "1939",
        "b": "1944",
        "c": "1945",
        "a_date": "",
        "b_date": "",
        "c_date": "",
        "a_match": "",
        "b_match": "",
        "c_match": "",
        "explanation": "1 sierpnia 1944.",
        "language": "pl",
        "status": "published",
        "tags": "ii-wojna",
    }
    row.update(values)
    return row


def test_import_refuses_each_unfair_question_naming_its_column_and_writes_nothing(
    teacher, django_capture_on_commit_callbacks
):
    rows = [
        question_row(answer=""),  # no right option
        question_row(c="1944."),  # two options alike
        question_row(kind="chronology", answer="", a_date="1944", b_date="1944-08-01", c_date="1989"),
        question_row(kind="matching", answer="", a_match="X", b_match="Y"),  # c unpaired
        question_row(kind="chronology", answer="", a_date="1918", b_date="sierpień", c_date="1989"),
        question_row(answer="D"),  # an empty slot marked right
    ]
    job = run_import(django_capture_on_commit_callbacks, teacher, QUIZ_QUESTIONS, table_bytes(rows))
    assert job.state == ImportJob.State.INVALID
    by_line = {row["line"]: row["errors"] for row in job.preview["rows"]}
    assert [e.split(":")[0] for e in by_line[2]] == ["answer"]
    assert "No option is marked right (answer)" in by_line[2][0]
    assert sorted(e.split(":")[0] for e in by_line[3]) == ["b", "c"]
    assert "reads the same as option C" in by_line[3][0]
    assert sorted(e.split(":")[0] for e in by_line[4]) == ["a_date", "b_date"]
    assert "cannot be told apart" in by_line[4][0]
    assert [e.split(":")[0] for e in by_line[5]] == ["c_match"]
    assert "nothing to pair with (c_match)" in by_line[5][0]
    assert [e.split(":")[0] for e in by_line[6]] == ["b_date"]
    assert "“sierpień” is not a date" in by_line[6][0]
    assert [e.split(":")[0] for e in by_line[7]] == ["answer"]
    assert QuizQuestion.objects.count() == 0


def test_import_writes_fair_questions_with_their_pictures(teacher, django_capture_on_commit_callbacks):
    rows = [
        question_row(picture="q/pytanie.png", a_picture="a.png"),
        question_row(
            kind="chronology",
            text="",
            answer="",
            a="Niepodległość",
            a_date="1918-11-11",
            b="Bitwa Warszawska",
            b_date="1920-08",
            c="Powstanie",
            c_date="1944",
        ),
        question_row(kind="matching", answer="", a_match="jeden", b_match="dwa", c_match="trzy"),
    ]
    pictures = zip_bytes({"q/pytanie.png": png_bytes("green"), "a.png": png_bytes("red")})
    job = run_import(
        django_capture_on_commit_callbacks, teacher, QUIZ_QUESTIONS, table_bytes(rows), pictures=pictures
    )
    assert job.state == ImportJob.State.CHECKED, errors_of(job)
    import_job_apply(job=job)
    choice, chronology, matching = QuizQuestion.objects.order_by("pk")
    assert choice.owner == teacher and choice.picture.name.startswith("questions/")
    assert [o.correct for o in choice.options.all()] == [False, True, False]
    # Stored under a random name of its own (content/media.py), not the archive's "a.png".
    assert re.fullmatch(r"questions/[\w-]{24}\.png", choice.options.first().picture.name)
    assert [o.date for o in chronology.options.all()] == ["1918-11-11", "1920-08", "1944"]
    assert [o.match for o in matching.options.all()] == ["jeden", "dwa", "trzy"]
    assert [t.slug for t in choice.tags.all()] == ["ii-wojna"]


def test_template_of_quiz_questions_passes_the_check(client, teacher, django_capture_on_commit_callbacks):
    client.force_login(teacher)
    response = client.get(reverse("content:import_template", args=[QUIZ_QUESTIONS]))
    job = run_import(django_capture_on_commit_callbacks, teacher, QUIZ_QUESTIONS, response.content)
    assert job.state == ImportJob.State.CHECKED, errors_of(job)


def questions_state() -> list:
    return [
        (
            q.kind,
            q.text,
            q.explanation,
            q.status,
            bool(q.picture),
            [
                (o.text, o.date, o.match, o.correct, o.picture.read() if o.picture else b"")
                for o in q.options.all()
            ],
        )
        for q in QuizQuestion.objects.order_by("pk")
    ]


def test_quiz_questions_zip_export_imports_back_identically(
    client, teacher, django_capture_on_commit_callbacks
):
    rows = [
        question_row(picture="pytanie.png", a_picture="a.png", c_picture="c.png"),
        question_row(kind="chronology", answer="", a_date="1918", b_date="1920", c_date="1939"),
    ]
    pictures = zip_bytes(
        {"pytanie.png": png_bytes("green"), "a.png": png_bytes("red"), "c.png": png_bytes("blue")}
    )
    job = run_import(
        django_capture_on_commit_callbacks, teacher, QUIZ_QUESTIONS, table_bytes(rows), pictures=pictures
    )
    import_job_apply(job=job)
    before = questions_state()

    client.force_login(teacher)
    response = client.get(reverse("content:export"), {"kind": QUIZ_QUESTIONS, "format": "zip"})
    data = b"".join(response.streaming_content)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = archive.namelist()
        [table] = [archive.read(n) for n in names if n.endswith(".csv")]
    first = QuizQuestion.objects.order_by("pk").first()
    assert (
        f"pictures/questions/{first.pk}/question.png" in names
        and f"pictures/questions/{first.pk}/c.png" in names
    )

    # The same table over the same questions changes nothing.
    again = run_import(django_capture_on_commit_callbacks, teacher, QUIZ_QUESTIONS, table, pictures=data)
    assert [row["action"] for row in again.preview["rows"]] == ["skip", "skip"], errors_of(again)

    # Into an empty library (the ids cleared), the ZIP gives back the same questions.
    QuizQuestion.objects.all().delete()
    cleared = (
        table.decode("utf-8-sig")
        .replace(f"\r\n{first.pk},", "\r\n,")
        .replace(f"\r\n{first.pk + 1},", "\r\n,")
    )
    job = run_import(
        django_capture_on_commit_callbacks, teacher, QUIZ_QUESTIONS, cleared.encode(), pictures=data
    )
    assert job.state == ImportJob.State.CHECKED, errors_of(job)
    import_job_apply(job=job)
    assert questions_state() == before


def test_symbol_date_is_imported_and_a_bad_one_is_a_row_error(teacher, django_capture_on_commit_callbacks):
    CollectionFactory(slug="test-collection")
    rows = [symbol_row(number="1", date="1944-08-01"), symbol_row(number="2", date="VIII 1944")]
    job = run_import(django_capture_on_commit_callbacks, teacher, "symbols", table_bytes(rows))
    assert job.state == ImportJob.State.INVALID
    by_line = {row["line"]: row["errors"] for row in job.preview["rows"]}
    assert by_line[2] == [] and [e.split(":")[0] for e in by_line[3]] == ["date"]
    assert Symbol.objects.count() == 0
