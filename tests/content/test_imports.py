"""Imports of symbols, Activity cards and Knowledge? questions (content/imports.py).

A file is checked row by row before anything is written; a bad file, a bad row, a
bad ZIP or a hostile picture gets a message a curator can act on and changes
nothing.
"""

from __future__ import annotations

import csv
import io
import time
import zipfile

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from content import imports
from content.imports import (
    ImportRefused,
    import_job_apply,
    import_job_check,
    import_job_create,
)
from content.models import (
    ActivityCard,
    ActivityTerm,
    Collection,
    ImportJob,
    KnowledgeQuestion,
    Period,
    Symbol,
    Tag,
)
from content.resources import ActivityCardResource, KnowledgeQuestionResource, SymbolResource
from tests.factories import (
    ActivityCardFactory,
    CollectionFactory,
    KnowledgeQuestionFactory,
    SymbolFactory,
    TeacherFactory,
    ThemeFactory,
)

SYMBOLS, CARDS, QUESTIONS = "symbols", "activity_cards", "knowledge_questions"


# --- Helpers (test_exports.py uses them too) -------------------------------------------------


def table_bytes(
    rows: list[dict[str, str]],
    *,
    header: list[str] | None = None,
    file_format: str = "csv",
    delimiter: str = ",",
    encoding: str = "utf-8",
) -> bytes:
    header = header or list(rows[0])
    if file_format == "xlsx":
        from openpyxl import Workbook

        workbook = Workbook()
        sheet = workbook.active
        sheet.append(header)
        for row in rows:
            sheet.append([row.get(column, "") for column in header])
        buffer = io.BytesIO()
        workbook.save(buffer)
        return buffer.getvalue()
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter)
    writer.writerow(header)
    for row in rows:
        writer.writerow([row.get(column, "") for column in header])
    return buffer.getvalue().encode(encoding)


def upload(data: bytes, name: str = "table.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data)


def zip_bytes(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def png_bytes(colour: str = "red", size: int = 64) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), colour).save(buffer, "PNG")
    return buffer.getvalue()


SAFE_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">'
    b'<rect width="10" height="10" fill="red"/></svg>'
)
HOSTILE_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    b'viewBox="0 0 10 10" onload="alert(1)">'
    b"<script>alert(2)</script>"
    b'<rect width="10" height="10" fill="red" onclick="alert(3)"/>'
    b'<image href="https://evil.example/track.png" width="5" height="5"/>'
    b'<use xlink:href="https://evil.example/sprite.svg#a"/>'
    b'<a href="javascript:alert(4)"><circle cx="5" cy="5" r="3"/></a>'
    b"</svg>"
)
ENTITY_SVG = (
    b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY lol "lol">]>'
    b'<svg xmlns="http://www.w3.org/2000/svg"><text>&lol;</text></svg>'
)


def symbol_row(**values: str) -> dict[str, str]:
    row = dict.fromkeys(SymbolResource.columns(), "")
    row.update(
        {
            "collection": "test-collection",
            "number": "1",
            "name": "Orzeł Biały",
            "alternative_names": "godło|orzeł",
            "description": "The emblem of Poland.",
            "periods": "ii-rp|prl",
            "language": "pl",
            "status": "published",
        }
    )
    row.update(values)
    return row


def card_row(**values: str) -> dict[str, str]:
    row = dict.fromkeys(ActivityCardResource.columns(), "")
    row.update({"title": "Legiony", "language": "pl", "status": "draft", "tags": "wwi|army"})
    for index, slot in enumerate("abcdef"):
        row[slot] = f"Term {slot.upper()}"
        row[f"{slot}_points"] = str(3 + index % 4)
    row.update({"d_kind": "chain", "d_points": "", "e_kind": "rhyme", "e_points": ""})
    row.update(values)
    return row


def question_row(**values: str) -> dict[str, str]:
    row = dict.fromkeys(KnowledgeQuestionResource.columns(), "")
    row.update(
        {
            "category": "letter",
            "front": "When did WWII start? A 1918 … E 1989",
            "back": "C: 1939.",
            "answer": "C/D",
            "source": "IPN",
            "language": "pl",
            "status": "published",
            "tags": "wwii",
        }
    )
    row.update(values)
    return row


def run_import(
    capture, user, kind, data: bytes, *, name: str = "table.csv", pictures: bytes | None = None
) -> ImportJob:
    """Upload and check, the way the view does (the check runs on commit)."""
    with capture(execute=True):
        job = import_job_create(
            user=user,
            kind=kind,
            data_file=upload(data, name),
            pictures_zip=upload(pictures, "pictures.zip") if pictures is not None else None,
        )
    job.refresh_from_db()
    return job


def content_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Symbol, ActivityCard, ActivityTerm, KnowledgeQuestion, Tag)
    }


def errors_of(job: ImportJob) -> list[str]:
    return [error for row in job.preview["rows"] for error in row["errors"]]


@pytest.fixture
def collection(db):
    return CollectionFactory()


@pytest.fixture(autouse=True)
def _plain_static(settings):
    # The manifest storage needs collectstatic; pages in tests use plain static files.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


# --- Good files ------------------------------------------------------------------------------


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_symbols_file_is_previewed_then_written(
    teacher, collection, file_format, django_capture_on_commit_callbacks
):
    theme = ThemeFactory(slug="people")
    mine = SymbolFactory(collection=collection, number=2, owner=teacher, name="Old name")
    data = table_bytes(
        [symbol_row(themes="people"), symbol_row(number="002", name="New name", status="draft")],
        file_format=file_format,
    )
    before = content_counts()

    job = run_import(
        django_capture_on_commit_callbacks, teacher, SYMBOLS, data, name=f"symbols.{file_format}"
    )

    assert job.state == ImportJob.State.CHECKED, job.error
    assert job.progress == 100 and job.total_rows == 2
    assert [(r["line"], r["action"], r["errors"]) for r in job.preview["rows"]] == [
        (2, "new", []),
        (3, "update", []),
    ]
    assert job.preview["counts"] == {"rows": 2, "new": 1, "update": 1, "skip": 0, "invalid": 0}
    assert content_counts() == before  # the check writes nothing

    job = import_job_apply(job=job)

    assert job.state == ImportJob.State.DONE
    assert job.result == {"rows": 2, "new": 1, "update": 1, "skip": 0}
    new = Symbol.objects.get(collection=collection, number=1)
    assert new.name == "Orzeł Biały" and new.owner == teacher
    assert new.alternative_name_list == ["godło", "orzeł"]
    assert {p.slug for p in new.periods.all()} == {"ii-rp", "prl"}
    assert list(new.themes.all()) == [theme]
    assert new.status == "published" and new.language == "pl"
    mine.refresh_from_db()
    assert mine.name == "New name" and mine.status == "draft" and mine.owner == teacher


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_activity_cards_file_adds_and_updates_cards_with_six_terms(
    teacher, file_format, django_capture_on_commit_callbacks
):
    card = ActivityCardFactory(owner=teacher)
    data = table_bytes(
        [card_row(), card_row(id=str(card.pk), title="Renamed", a="Orzeł")], file_format=file_format
    )

    job = run_import(django_capture_on_commit_callbacks, teacher, CARDS, data, name=f"cards.{file_format}")
    assert job.state == ImportJob.State.CHECKED, errors_of(job)
    assert [r["action"] for r in job.preview["rows"]] == ["new", "update"]
    term_ids = set(card.terms.values_list("pk", flat=True))
    import_job_apply(job=job)

    new = ActivityCard.objects.exclude(pk=card.pk).get()
    assert new.owner == teacher and new.title == "Legiony"
    assert {t.slug for t in new.tags.all()} == {"wwi", "army"}
    terms = {t.slot: (t.kind, t.text, t.points) for t in new.terms.all()}
    assert terms == {
        "A": ("term", "Term A", 3),
        "B": ("term", "Term B", 4),
        "C": ("term", "Term C", 5),
        "D": ("chain", "Term D", None),
        "E": ("rhyme", "Term E", None),
        "F": ("term", "Term F", 4),
    }
    card.refresh_from_db()
    assert card.title == "Renamed" and card.terms.get(slot="A").text == "Orzeł"
    assert set(card.terms.values_list("pk", flat=True)) == term_ids  # terms keep their ids


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_knowledge_questions_file_adds_and_updates_questions(
    teacher, file_format, django_capture_on_commit_callbacks
):
    question = KnowledgeQuestionFactory(owner=teacher)
    data = table_bytes(
        [
            question_row(),
            question_row(category="colour", answer="niebieski / white", tags=""),
            question_row(id=str(question.pk), category="number", answer="4", front="How many?"),
        ],
        file_format=file_format,
    )

    job = run_import(
        django_capture_on_commit_callbacks, teacher, QUESTIONS, data, name=f"questions.{file_format}"
    )
    assert job.state == ImportJob.State.CHECKED, errors_of(job)
    import_job_apply(job=job)

    answers = sorted((q.category, q.answer) for q in KnowledgeQuestion.objects.all())
    assert answers == [("colour", ["blue", "white"]), ("letter", ["C", "D"]), ("number", 4)]
    question.refresh_from_db()
    assert question.front == "How many?" and question.owner == teacher


def test_polish_excel_csv_with_semicolons_in_windows_1250_is_read(
    teacher, collection, django_capture_on_commit_callbacks
):
    data = table_bytes([symbol_row(name="Żołnierz Wyklęty")], delimiter=";", encoding="cp1250")

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data)
    assert job.state == ImportJob.State.CHECKED, job.error
    import_job_apply(job=job)

    assert Symbol.objects.get().name == "Żołnierz Wyklęty"


def test_csv_with_a_bom_and_friendly_header_names_is_read(
    teacher, collection, django_capture_on_commit_callbacks
):
    data = (
        b"\xef\xbb\xbf"
        + (
            "Collection,Number,Name,Alternative names,Description,Periods\r\n"
            "test-collection,7,Orzeł,,The emblem.,prl\r\n"
        ).encode()
    )

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data)

    assert job.state == ImportJob.State.CHECKED, job.error
    assert job.preview["columns"][0] == "collection"


def test_unchanged_rows_are_skipped(teacher, collection, django_capture_on_commit_callbacks):
    symbol = SymbolFactory(
        collection=collection,
        number=1,
        owner=teacher,
        name="Orzeł",
        description="The emblem.",
        status="published",
    )
    data = table_bytes(
        [
            {
                "collection": "test-collection",
                "number": "1",
                "name": "Orzeł",
                "description": "The emblem.",
                "periods": "ii-rp",
            }
        ]
    )

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data)

    assert job.preview["rows"][0]["action"] == "skip"
    updated = symbol.updated
    import_job_apply(job=job)
    symbol.refresh_from_db()
    assert symbol.updated == updated


def test_template_csv_of_each_kind_passes_the_check(
    client, teacher, collection, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    for kind in (SYMBOLS, CARDS, QUESTIONS):
        response = client.get(reverse("content:import_template", args=[kind]))
        assert response.status_code == 200
        assert response["Content-Disposition"].startswith("attachment;")
        job = run_import(django_capture_on_commit_callbacks, teacher, kind, response.content)
        assert job.state == ImportJob.State.CHECKED, (kind, job.error, errors_of(job))


# --- Pictures ----------------------------------------------------------------------------------


def test_pictures_from_the_zip_are_stored_and_svg_cleaned(
    teacher, collection, django_capture_on_commit_callbacks
):
    png = png_bytes()
    data = table_bytes(
        [symbol_row(number="1", picture="orzel.png"), symbol_row(number="2", picture="flags/flaga.svg")]
    )
    pictures = zip_bytes({"orzel.png": png, "flags/flaga.svg": HOSTILE_SVG})

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data, pictures=pictures)
    assert job.state == ImportJob.State.CHECKED, errors_of(job)
    import_job_apply(job=job)

    first, second = Symbol.objects.order_by("number")
    # Stored under a random name: the file's own name ("orzel.png") is not kept.
    assert first.picture.name.startswith("symbols/") and "orzel" not in first.picture.name
    assert first.picture.name.endswith(".png")
    assert first.picture.read() == png
    stored = second.picture.read()
    assert second.picture.name.endswith(".svg")
    assert b"<rect" in stored
    for hostile in (b"script", b"onload", b"onclick", b"evil.example", b"javascript"):
        assert hostile not in stored


def test_svg_that_cannot_be_cleaned_safely_is_a_row_error(
    teacher, collection, django_capture_on_commit_callbacks
):
    data = table_bytes([symbol_row(picture="bomb.svg")])

    job = run_import(
        django_capture_on_commit_callbacks,
        teacher,
        SYMBOLS,
        data,
        pictures=zip_bytes({"bomb.svg": ENTITY_SVG}),
    )

    assert job.state == ImportJob.State.INVALID
    [error] = errors_of(job)
    assert error.startswith("picture: ")
    assert Symbol.objects.count() == 0


def test_picture_named_by_a_row_but_missing_from_the_zip_is_a_row_error(
    teacher, collection, django_capture_on_commit_callbacks
):
    data = table_bytes([symbol_row(picture="missing.png")])

    job = run_import(
        django_capture_on_commit_callbacks,
        teacher,
        SYMBOLS,
        data,
        pictures=zip_bytes({"orzel.png": png_bytes()}),
    )

    assert job.state == ImportJob.State.INVALID
    assert errors_of(job) == [
        'picture: The pictures ZIP has no file "missing.png" (its files are named like '
        '"orzel.png"); add the picture or correct the name.'
    ]


def test_picture_named_without_a_zip_is_a_row_error(teacher, collection, django_capture_on_commit_callbacks):
    job = run_import(
        django_capture_on_commit_callbacks, teacher, SYMBOLS, table_bytes([symbol_row(picture="orzel.png")])
    )

    assert job.state == ImportJob.State.INVALID
    assert "no pictures ZIP was uploaded" in errors_of(job)[0]


def test_too_small_picture_is_a_row_error_with_the_pictures_message(
    teacher, collection, django_capture_on_commit_callbacks
):
    job = run_import(
        django_capture_on_commit_callbacks,
        teacher,
        SYMBOLS,
        table_bytes([symbol_row(picture="tiny.png")]),
        pictures=zip_bytes({"tiny.png": png_bytes(size=8)}),
    )

    assert job.state == ImportJob.State.INVALID
    assert "too small to recognise" in errors_of(job)[0]


# --- Bad rows -----------------------------------------------------------------------------


BAD_SYMBOL_ROWS = [
    ({"name": ""}, "name: Fill this in; it may not be empty."),
    ({"description": ""}, "description: Fill this in; it may not be empty."),
    ({"periods": ""}, 'periods: Give at least one period; separate several with |, e.g. "ii-rp|prl".'),
    (
        {"periods": "ii-rp|1918"},
        'periods: Unknown period "1918"; the known periods are: ii-rp, ii-wojna-swiatowa, prl.',
    ),
    ({"themes": "nope"}, 'themes: Unknown theme "nope": there are none yet; an admin adds them first.'),
    (
        {"collection": "ipn"},
        'collection: Unknown collection "ipn"; the known collections are: test-collection.',
    ),
    ({"number": "0"}, "number: A symbol's number is from 1 to 999, not 0."),
    ({"number": "1000"}, "number: A symbol's number is from 1 to 999, not 1000."),
    ({"number": "one"}, 'number: A symbol\'s number is a whole number from 1 to 999, not "one".'),
    ({"number": ""}, "number: Fill this in; it may not be empty."),
    ({"language": "fr"}, 'language: Use one of pl, en, cs, de, not "fr".'),
    ({"status": "live"}, 'status: Use one of draft, published, not "live".'),
    ({"portal_url": "not a url"}, "portal_url: Enter a valid URL."),
    ({"outline": "x" * 1501}, "outline: Ensure this value has at most 1500 characters (it has 1501)."),
]


@pytest.mark.parametrize(("values", "message"), BAD_SYMBOL_ROWS)
def test_bad_symbol_row_is_reported_per_column_and_nothing_is_written(
    teacher, collection, values, message, django_capture_on_commit_callbacks
):
    data = table_bytes([symbol_row(number="5"), symbol_row(**values)])

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data)

    assert job.state == ImportJob.State.INVALID
    assert job.preview["rows"][0]["errors"] == []
    assert job.preview["rows"][1]["errors"] == [message]
    assert job.error.startswith("1 of 2 rows have errors")
    assert Symbol.objects.count() == 0
    assert Collection.objects.count() == 1  # an unknown collection is never created


def test_several_errors_of_one_row_are_all_reported(teacher, collection, django_capture_on_commit_callbacks):
    data = table_bytes([symbol_row(name="", number="1000", periods="nope", status="x")])

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data)

    columns = [error.split(":")[0] for error in errors_of(job)]
    assert sorted(columns) == ["name", "number", "periods", "status"]


def test_same_symbol_twice_in_a_file_is_a_row_error(teacher, collection, django_capture_on_commit_callbacks):
    data = table_bytes(
        [symbol_row(number="3"), symbol_row(number="4"), symbol_row(number="003", name="Again")]
    )

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data)

    assert job.state == ImportJob.State.INVALID
    assert job.preview["rows"][2]["errors"] == [
        "number: Symbol 003 Again (test-collection) is already in row 2; each symbol may "
        "appear only once in a file."
    ]


def test_same_card_id_twice_in_a_file_is_a_row_error(teacher, django_capture_on_commit_callbacks):
    card = ActivityCardFactory(owner=teacher)
    data = table_bytes([card_row(id=str(card.pk)), card_row(id=str(card.pk))])

    job = run_import(django_capture_on_commit_callbacks, teacher, CARDS, data)

    assert job.state == ImportJob.State.INVALID
    assert "already in row 2" in job.preview["rows"][1]["errors"][0]


BAD_ANSWERS = [
    ("letter", "F", "answer: A letter card's answer is one or more of A–E, not 'F'."),
    ("number", "7", "answer: A number card's answer is a whole number from 0 to 5, not 7."),
    ("number", "C", "answer: A number card's answer is a whole number from 0 to 5, not 'C'."),
    (
        "colour",
        "purple",
        "answer: A colour card's answer is one or more of red, yellow, green, blue, white, not 'purple'.",
    ),
    ("letter", "", "answer: Give the answer."),
    ("shape", "C", 'category: Use one of number, letter, colour, not "shape".'),
]


@pytest.mark.parametrize(("category", "answer", "message"), BAD_ANSWERS)
def test_answer_that_does_not_fit_the_category_is_a_row_error(
    teacher, category, answer, message, django_capture_on_commit_callbacks
):
    data = table_bytes([question_row(category=category, answer=answer)])

    job = run_import(django_capture_on_commit_callbacks, teacher, QUESTIONS, data)

    assert job.state == ImportJob.State.INVALID
    assert errors_of(job) == [message]
    assert KnowledgeQuestion.objects.count() == 0


BAD_CARDS = [
    ({"c": ""}, "c: Slot C is empty; every card needs all six terms, A to F."),
    ({"a_points": "2"}, "a_points: A term scores 3 to 6 points, not 2."),
    ({"b_points": "7"}, "b_points: A term scores 3 to 6 points, not 7."),
    ({"f_points": ""}, "f_points: The term in slot F needs its points, from 3 to 6."),
    ({"f_points": "four"}, 'f_points: Points are a whole number from 3 to 6, not "four".'),
    ({"d_points": "4"}, "d_points: A chain has no points; leave d_points empty."),
    ({"e_points": "5"}, "e_points: A rhyme has no points; leave e_points empty."),
    ({"a_kind": "mime"}, 'a_kind: Use term, chain or rhyme (empty means term), not "mime".'),
    ({"a": "x" * 121}, "a: Ensure this value has at most 120 characters (it has 121)."),
    (
        {"tags": "two words"},
        'tags: "two words" is not a tag: a tag is letters, digits, hyphens and underscores, like "ii-wojna".',
    ),
    (
        {"id": "999999"},
        "id: There is no Activity card with the id 999999 here; leave id "
        "empty to add it as a new Activity card.",
    ),
]


@pytest.mark.parametrize(("values", "message"), BAD_CARDS)
def test_bad_activity_card_row_is_a_row_error(teacher, values, message, django_capture_on_commit_callbacks):
    data = table_bytes([card_row(**values)])

    job = run_import(django_capture_on_commit_callbacks, teacher, CARDS, data)

    assert job.state == ImportJob.State.INVALID
    assert errors_of(job) == [message]
    assert ActivityCard.objects.count() == 0 and ActivityTerm.objects.count() == 0


def test_card_file_without_a_slot_column_is_invalid(teacher, django_capture_on_commit_callbacks):
    header = [c for c in ActivityCardResource.columns() if not c.startswith("f")]

    job = run_import(
        django_capture_on_commit_callbacks, teacher, CARDS, table_bytes([card_row()], header=header)
    )

    assert job.state == ImportJob.State.INVALID
    assert job.error.startswith("The header lacks the columns: f, f_points.")


@pytest.mark.parametrize("kind", [SYMBOLS, CARDS, QUESTIONS])
def test_row_of_another_teacher_is_a_row_error(
    teacher, other_teacher, collection, kind, django_capture_on_commit_callbacks
):
    if kind == SYMBOLS:
        theirs = SymbolFactory(collection=collection, number=9, owner=other_teacher)
        row, label = symbol_row(number="9"), f"Symbol 009 {theirs.name} (test-collection)"
    elif kind == CARDS:
        theirs = ActivityCardFactory(owner=other_teacher)
        row, label = card_row(id=str(theirs.pk)), f"Activity card {theirs.pk}"
    else:
        theirs = KnowledgeQuestionFactory(owner=other_teacher)
        row, label = question_row(id=str(theirs.pk)), f"Question {theirs.pk}: {theirs.front}"
    before = content_counts()

    job = run_import(django_capture_on_commit_callbacks, teacher, kind, table_bytes([row]))

    assert job.state == ImportJob.State.INVALID
    [error] = errors_of(job)
    assert error.startswith(label)
    assert error.endswith("belongs to another teacher; you may not change it.")
    assert content_counts() == before


def test_editor_may_update_a_row_they_were_granted(
    teacher, other_teacher, collection, django_capture_on_commit_callbacks
):
    theirs = SymbolFactory(collection=collection, number=9, owner=other_teacher)
    theirs.editors.add(teacher)

    job = run_import(
        django_capture_on_commit_callbacks,
        teacher,
        SYMBOLS,
        table_bytes([symbol_row(number="9", name="Edited")]),
    )
    import_job_apply(job=job)

    theirs.refresh_from_db()
    assert theirs.name == "Edited" and theirs.owner == other_teacher


def test_admin_may_update_any_row(admin_user, other_teacher, collection, django_capture_on_commit_callbacks):
    theirs = SymbolFactory(collection=collection, number=9, owner=other_teacher)

    job = run_import(
        django_capture_on_commit_callbacks,
        admin_user,
        SYMBOLS,
        table_bytes([symbol_row(number="9", name="Edited")]),
    )
    import_job_apply(job=job)

    theirs.refresh_from_db()
    assert theirs.name == "Edited"


def test_row_with_a_value_outside_the_header_is_a_row_error(
    teacher, collection, django_capture_on_commit_callbacks
):
    data = (
        "collection,number,name,description,periods\ntest-collection,1,Orzeł,The emblem.,prl,surprise\n"
    ).encode()

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data)

    assert job.state == ImportJob.State.INVALID
    assert errors_of(job) == [
        "The row has a value in column F, which has no name in the "
        "header; name the column or clear the value."
    ]


# --- Bad files ------------------------------------------------------------------------------


def _refused(user, kind, data: bytes, name: str = "table.csv", pictures=None) -> dict:
    with pytest.raises(ValidationError) as refused:
        import_job_create(
            user=user,
            kind=kind,
            data_file=upload(data, name),
            pictures_zip=upload(pictures, "p.zip") if pictures else None,
        )
    assert ImportJob.objects.count() == 0
    return refused.value.message_dict


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "The file is empty; upload a table with a header row and rows."),
        (b"  \r\n\r\n", "The file is empty; upload a table with a header row and rows."),
        (b"%PDF-1.7\n...", "The file is not a CSV or XLSX table: it is a PDF document."),
        (png_bytes(), "The file is not a CSV or XLSX table: it is a PNG picture."),
        (
            b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100),
            "The file is not a CSV or XLSX table: it is an old Excel (.xls) or Word (.doc) file; "
            "save it as XLSX or as CSV UTF-8 and upload that.",
        ),
        (
            zip_bytes({"a.png": b"x"}),
            "The file is not a CSV or XLSX table: it is a ZIP archive; "
            "upload the table itself here, and a ZIP of pictures in the pictures field.",
        ),
        (
            bytes(range(256)) * 40,
            "The file is not a CSV or XLSX table: it holds binary data, "
            "not text. Save the table from your spreadsheet as CSV UTF-8 or XLSX.",
        ),
        (
            b"PK\x03\x04garbage-not-really-a-zip",
            "The file is not a CSV or XLSX table: it looks "
            "like a damaged XLSX or ZIP file; save it again and upload it.",
        ),
    ],
)
def test_file_that_is_not_a_table_is_refused_up_front(teacher, data, message):
    assert _refused(teacher, SYMBOLS, data) == {"data_file": [message]}


def test_oversize_file_is_refused_up_front(teacher, settings):
    settings.TALIA_IMPORT_MAX_BYTES = 1024

    errors = _refused(teacher, SYMBOLS, b"collection,number\n" + b"x,1\n" * 400)

    assert errors == {"data_file": ["The table is 0.1 MB; the limit is 0.1 MB. Split it into smaller files."]}


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"name,number\nOrzel,1\n", "The header lacks the columns: collection, description, periods."),
        (
            b"collection,number,name,description,periods,colour\nx,1,a,b,prl\n",
            "The header has columns Talia does not know: colour.",
        ),
        (
            b"collection,number,name,description,periods,name\nx,1,a,b,prl,a\n",
            "The header names the column name more than once; keep one of each.",
        ),
        (
            b"collection,number,,name,description,periods\n",
            "Column C of the header has no name; name it or delete the column.",
        ),
        (b"collection,number,name,description,periods\n\n\n", "The file has a header but no rows."),
    ],
)
def test_file_with_a_wrong_header_is_invalid_with_one_line(
    teacher, collection, data, message, django_capture_on_commit_callbacks
):
    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data)

    assert job.state == ImportJob.State.INVALID
    assert job.error.startswith(message)
    assert "\n" not in job.error
    assert job.preview == {}
    with pytest.raises(ImportRefused):
        import_job_apply(job=job)


def test_damaged_workbook_is_invalid(teacher, django_capture_on_commit_callbacks):
    data = zip_bytes({"xl/workbook.xml": b"<not-a-workbook", "[Content_Types].xml": b"<x/>"})

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data, name="table.xlsx")

    assert job.state == ImportJob.State.INVALID
    assert job.error.startswith("The file is not a CSV or XLSX table: the workbook cannot be read")


def test_students_never_import(student):
    with pytest.raises(PermissionDenied):
        import_job_create(user=student, kind=SYMBOLS, data_file=upload(b"a,b\n1,2\n"))
    assert ImportJob.objects.count() == 0


def test_pictures_zip_is_only_for_symbols_and_quiz_questions(teacher):
    errors = _refused(teacher, CARDS, table_bytes([card_row()]), pictures=zip_bytes({"a.png": png_bytes()}))

    assert errors == {
        "pictures_zip": [
            "Only symbols and quiz questions have pictures; leave the pictures ZIP empty for this kind of file."
        ]
    }


# --- Bad ZIPs ---------------------------------------------------------------------------------


def _zip_with(**entries: bytes) -> bytes:
    return zip_bytes(entries)


def test_pictures_file_that_is_not_a_zip_is_refused(teacher, collection):
    errors = _refused(teacher, SYMBOLS, table_bytes([symbol_row()]), pictures=png_bytes())

    assert errors["pictures_zip"][0].startswith("The pictures file is not a ZIP archive;")


@pytest.mark.parametrize("name", ["../x.png", "pictures/../../x.png", "/etc/x.png", "C:/x.png", "..\\x.png"])
def test_zip_with_a_path_out_of_its_folder_is_refused(teacher, collection, name):
    errors = _refused(teacher, SYMBOLS, table_bytes([symbol_row()]), pictures=zip_bytes({name: png_bytes()}))

    assert errors == {
        "pictures_zip": [
            f'The ZIP holds a file with an unsafe path, "'
            f'{name.replace(chr(92), "/")}"; make the ZIP again '
            "from the folder of pictures."
        ]
    }


def test_zip_bomb_is_refused(teacher, collection):
    errors = _refused(
        teacher,
        SYMBOLS,
        table_bytes([symbol_row()]),
        pictures=zip_bytes({"bomb.png": bytes(50 * 1024 * 1024)}),
    )

    assert "looks like a ZIP bomb" in errors["pictures_zip"][0]


def test_zip_that_unpacks_beyond_the_limit_is_refused(teacher, collection, settings):
    settings.TALIA_IMPORT_MAX_UNPACKED_BYTES = 5_000
    pictures = zip_bytes({f"p{i}.png": png_bytes(colour=c) for i, c in enumerate(["red", "blue"] * 40)})

    errors = _refused(teacher, SYMBOLS, table_bytes([symbol_row()]), pictures=pictures)

    assert errors["pictures_zip"][0].startswith("The ZIP unpacks to")
    assert "it may be a ZIP bomb" in errors["pictures_zip"][0]


def test_zip_with_too_many_files_is_refused(teacher, collection):
    pictures = zip_bytes({f"p{i}.png": b"" for i in range(2001)})

    errors = _refused(teacher, SYMBOLS, table_bytes([symbol_row()]), pictures=pictures)

    assert errors["pictures_zip"] == [
        "The ZIP holds 2001 files; at most 2000 are allowed. Split the pictures into several imports."
    ]


def test_gif_in_the_zip_is_refused(teacher, collection):
    gif = io.BytesIO()
    Image.new("RGB", (64, 64), "red").save(gif, "GIF")
    pictures = zip_bytes(
        {
            "ok.png": png_bytes(),
            "flag.gif": gif.getvalue(),
            "__MACOSX/._ok.png": b"junk",
            ".DS_Store": b"junk",
        }
    )

    errors = _refused(teacher, SYMBOLS, table_bytes([symbol_row()]), pictures=pictures)

    assert errors == {
        "pictures_zip": [
            'The ZIP\'s file "flag.gif": The file "flag.gif" is a GIF picture, which is not '
            "accepted; upload a PNG, JPEG, WebP or SVG picture."
        ]
    }


def test_picture_over_the_size_limit_in_the_zip_is_refused(teacher, collection):
    big = png_bytes() + bytes(6 * 1024 * 1024)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_STORED) as archive:
        archive.writestr("big.png", big)

    errors = _refused(teacher, SYMBOLS, table_bytes([symbol_row()]), pictures=buffer.getvalue())

    assert errors["pictures_zip"] == [
        'The ZIP\'s file "big.png" is 6.1 MB; a picture may be at most 5 MB, so save a smaller version.'
    ]


# --- Apply: all or nothing ------------------------------------------------------------------


def test_apply_on_an_invalid_job_is_refused(teacher, collection, django_capture_on_commit_callbacks):
    job = run_import(
        django_capture_on_commit_callbacks,
        teacher,
        SYMBOLS,
        table_bytes([symbol_row(), symbol_row(number="2", periods="nope")]),
    )
    assert job.state == ImportJob.State.INVALID

    with pytest.raises(ImportRefused, match="it is the file has errors"):
        import_job_apply(job=job)

    job.refresh_from_db()
    assert job.state == ImportJob.State.INVALID and Symbol.objects.count() == 0


def test_apply_twice_is_refused_the_second_time(teacher, collection, django_capture_on_commit_callbacks):
    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, table_bytes([symbol_row()]))
    import_job_apply(job=job)

    with pytest.raises(ImportRefused, match="already done"):
        import_job_apply(job=job)
    assert Symbol.objects.count() == 1


def test_check_runs_once(teacher, collection, django_capture_on_commit_callbacks):
    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, table_bytes([symbol_row()]))

    with pytest.raises(ImportRefused):
        import_job_check(job=job)


def test_nothing_is_written_when_a_row_fails_at_apply_time(
    teacher, other_teacher, collection, settings, django_capture_on_commit_callbacks
):
    ThemeFactory(slug="people")
    rows = [symbol_row(number=str(n), themes="people", picture="orzel.png") for n in range(1, 4)]
    job = run_import(
        django_capture_on_commit_callbacks,
        teacher,
        SYMBOLS,
        table_bytes(rows),
        pictures=zip_bytes({"orzel.png": png_bytes()}),
    )
    assert job.state == ImportJob.State.CHECKED
    # Between the check and the import another teacher takes number 3.
    SymbolFactory(collection=collection, number=3, owner=other_teacher)
    before = content_counts()

    job = import_job_apply(job=job)

    assert job.state == ImportJob.State.FAILED
    assert job.error.startswith("Row 4 no longer passes the checks (Symbol 003")
    assert "nothing was imported" in job.error
    assert content_counts() == before
    assert list((settings.MEDIA_ROOT / "symbols").rglob("*.png")) == []  # removed again


def test_database_error_during_apply_changes_nothing(
    teacher, collection, monkeypatch, django_capture_on_commit_callbacks
):
    from django.db import IntegrityError

    job = run_import(
        django_capture_on_commit_callbacks,
        teacher,
        SYMBOLS,
        table_bytes([symbol_row(number="1"), symbol_row(number="2")]),
    )
    calls = []
    original = SymbolResource.save_row

    def save_then_fail(self, check):
        calls.append(check.line)
        if len(calls) == 2:
            raise IntegrityError("duplicate key value")
        original(self, check)

    monkeypatch.setattr(SymbolResource, "save_row", save_then_fail)

    job = import_job_apply(job=job)

    assert job.state == ImportJob.State.FAILED
    assert job.error.startswith("The database refused the rows (duplicate key value)")
    assert Symbol.objects.count() == 0


def test_unexpected_error_in_the_task_fails_the_job_with_a_message(
    teacher, collection, monkeypatch, django_capture_on_commit_callbacks
):
    def broken(*, job):
        raise RuntimeError("boom")

    monkeypatch.setattr(imports, "import_job_check", broken)

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, table_bytes([symbol_row()]))

    assert job.state == ImportJob.State.FAILED
    assert job.error.startswith(
        "Talia hit an unexpected error while checking the file; nothing was imported."
    )


def test_import_of_a_teacher_who_became_a_student_is_not_written(
    teacher, collection, django_capture_on_commit_callbacks
):
    from lms.services import user_set_role

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, table_bytes([symbol_row()]))
    user_set_role(user=teacher, role="student")

    job = import_job_apply(job=job)

    assert job.state == ImportJob.State.FAILED and Symbol.objects.count() == 0


# --- The pages ----------------------------------------------------------------------------------


def test_a_table_s_and_a_package_s_import_start_under_their_own_breadcrumb_with_the_form_styles(
    client, teacher
):
    client.force_login(teacher)
    for url, title in (
        (reverse("content:import_start"), "Import content"),
        (reverse("content:package_import_start"), "Import a package"),
    ):
        page = client.get(url).content.decode()
        crumbs = page.split('class="breadcrumbs"', 1)[1].split("</nav>", 1)[0]
        assert f'<a href="{reverse("admin:index")}">Home</a> › {title}' in crumbs, url
        assert "admin/css/forms.css" in page


def test_import_pages_flow_from_upload_to_done(
    client, teacher, collection, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    page = client.get(reverse("content:import_start"), {"kind": "symbols"})
    assert page.status_code == 200
    assert b'<label for="id_data_file"' in page.content

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("content:import_start"),
            {
                "kind": SYMBOLS,
                "data_file": upload(table_bytes([symbol_row()])),
            },
        )
    job = ImportJob.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("content:import_detail", args=[job.pk])

    detail = client.get(response["Location"])
    assert detail.status_code == 200
    html = detail.content.decode()
    assert "Ready to import" in html and "Import 1 row" in html
    assert '<th scope="row">2</th>' in html
    assert "talia/progress.js" not in html  # nothing is running

    status = client.get(reverse("content:import_status", args=[job.pk])).json()
    assert status == {
        "state": "checked",
        "state_label": "Ready to import",
        "progress": 100,
        "working": False,
        "total_rows": 1,
        "error": "",
    }

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("content:import_apply", args=[job.pk]))
    assert response.status_code == 302
    job.refresh_from_db()
    assert job.state == ImportJob.State.DONE
    assert Symbol.objects.get().owner == teacher
    assert "1 added, 0 updated, 0 unchanged." in client.get(response["Location"]).content.decode()


def test_running_job_page_shows_a_progress_bar_that_refreshes_itself(client, teacher):
    job = ImportJob.objects.create(kind=SYMBOLS, user=teacher, data_file="imports/x.csv", progress=40)
    client.force_login(teacher)

    html = client.get(reverse("content:import_detail", args=[job.pk])).content.decode()

    assert '<progress id="job-progress" max="100" value="40"' in html
    assert 'aria-valuetext="Checking the rows: 40%"' in html
    assert '<noscript><meta http-equiv="refresh" content="2"></noscript>' in html
    assert "talia/progress.js" in html
    assert client.get(reverse("content:import_status", args=[job.pk])).json()["working"]


def test_invalid_job_page_lists_the_row_errors_in_text(
    client, teacher, collection, django_capture_on_commit_callbacks
):
    job = run_import(
        django_capture_on_commit_callbacks, teacher, SYMBOLS, table_bytes([symbol_row(periods="nope")])
    )
    client.force_login(teacher)

    html = client.get(reverse("content:import_detail", args=[job.pk])).content.decode()

    assert "Not importable" in html
    assert "periods: Unknown period &quot;nope&quot;" in html
    assert "Import 1 row" not in html


def test_bad_upload_shows_the_form_again_with_the_reason(client, teacher):
    client.force_login(teacher)

    response = client.post(
        reverse("content:import_start"),
        {
            "kind": SYMBOLS,
            "data_file": upload(b"%PDF-1.4 ...", "notes.csv"),
        },
    )

    assert response.status_code == 200
    assert "it is a PDF document" in response.content.decode()
    assert 'aria-invalid="true"' in response.content.decode()
    assert ImportJob.objects.count() == 0


def test_apply_view_refuses_an_invalid_job_with_a_message(
    client, teacher, collection, django_capture_on_commit_callbacks
):
    job = run_import(
        django_capture_on_commit_callbacks, teacher, SYMBOLS, table_bytes([symbol_row(periods="nope")])
    )
    client.force_login(teacher)

    response = client.post(reverse("content:import_apply", args=[job.pk]), follow=True)

    assert "cannot be applied" in response.content.decode()
    job.refresh_from_db()
    assert job.state == ImportJob.State.INVALID and Symbol.objects.count() == 0


def test_apply_view_accepts_only_post(client, teacher):
    job = ImportJob.objects.create(
        kind=SYMBOLS, user=teacher, data_file="imports/x.csv", state=ImportJob.State.CHECKED
    )
    client.force_login(teacher)

    assert client.get(reverse("content:import_apply", args=[job.pk])).status_code == 405


def _all_urls(job: ImportJob) -> list[tuple[str, str]]:
    return [
        ("get", reverse("content:import_start")),
        ("get", reverse("content:import_detail", args=[job.pk])),
        ("get", reverse("content:import_status", args=[job.pk])),
        ("post", reverse("content:import_apply", args=[job.pk])),
        ("get", reverse("content:import_template", args=[SYMBOLS])),
        ("get", reverse("content:export") + "?kind=symbols&format=csv"),
    ]


def test_students_get_403_and_anonymous_users_the_login(client, teacher, student):
    job = ImportJob.objects.create(kind=SYMBOLS, user=teacher, data_file="imports/x.csv")
    for method, url in _all_urls(job):
        response = getattr(client, method)(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url
    client.force_login(student)
    for method, url in _all_urls(job):
        assert getattr(client, method)(url).status_code == 403, url


def test_job_of_another_user_is_404(client, teacher, other_teacher, admin_user):
    job = ImportJob.objects.create(
        kind=SYMBOLS, user=teacher, data_file="imports/x.csv", state=ImportJob.State.CHECKED
    )
    client.force_login(other_teacher)
    for method, url in _all_urls(job)[1:4]:
        assert getattr(client, method)(url).status_code == 404, url
    job.refresh_from_db()
    assert job.state == ImportJob.State.CHECKED

    client.force_login(admin_user)
    assert client.get(reverse("content:import_detail", args=[job.pk])).status_code == 200


# --- A real worker -------------------------------------------------------------------------


@pytest.mark.celery
def test_import_job_is_checked_by_a_real_worker(celery_worker_real):
    from django.db import transaction

    teacher = TeacherFactory()
    CollectionFactory()
    assert Period.objects.filter(slug="prl").exists()
    with transaction.atomic():
        job = import_job_create(user=teacher, kind=SYMBOLS, data_file=upload(table_bytes([symbol_row()])))
        # Queued on commit: the worker cannot see the job before this block ends.
        assert ImportJob.objects.get(pk=job.pk).state == ImportJob.State.CHECKING

    deadline = time.monotonic() + 30
    while True:
        job.refresh_from_db()
        if job.state != ImportJob.State.CHECKING or time.monotonic() > deadline:
            break
        time.sleep(0.2)

    assert job.state == ImportJob.State.CHECKED, job.error
    assert job.progress == 100
    assert job.preview["rows"][0]["action"] == "new"
    assert Symbol.objects.count() == 0
