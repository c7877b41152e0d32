"""Exports (content/resources.py, the export view and the admin action).

An export imports back to identical content, and holds only what the user may see.
"""

from __future__ import annotations

import csv
import io
import zipfile

import pytest
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse
from openpyxl import load_workbook

from content.admin_actions import ImportExportLinksMixin, export_selected
from content.imports import import_job_apply
from content.models import (
    ActivityCard,
    ActivityTerm,
    ImportJob,
    KnowledgeQuestion,
    Period,
    Status,
    Symbol,
    Tag,
)
from content.services import picture_file
from tests.content.test_imports import (
    CARDS,
    HOSTILE_SVG,
    QUESTIONS,
    SYMBOLS,
    png_bytes,
    run_import,
)
from tests.factories import (
    ActivityCardFactory,
    CollectionFactory,
    KnowledgeQuestionFactory,
    SymbolFactory,
    ThemeFactory,
)


@pytest.fixture(autouse=True)
def _plain_static(settings):
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


def download(client, kind: str, file_format: str):
    response = client.get(reverse("content:export"), {"kind": kind, "format": file_format})
    assert response.status_code == 200, response.content
    return response, b"".join(response.streaming_content)


def csv_rows(data: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def picture_bytes(symbol: Symbol) -> bytes | None:
    if not symbol.picture:
        return None
    with symbol.picture.open("rb") as file:
        return file.read()


def symbols_state() -> dict:
    return {
        (s.collection.slug, s.number): (
            s.name,
            s.alternative_names,
            s.description,
            s.outline,
            sorted(p.slug for p in s.periods.all()),
            sorted(t.slug for t in s.themes.all()),
            s.portal_url,
            s.language,
            s.status,
            s.owner_id,
            picture_bytes(s),
        )
        for s in Symbol.objects.select_related("collection")
    }


def cards_state() -> dict:
    return {
        c.pk: (
            c.title,
            c.language,
            c.status,
            c.owner_id,
            sorted(t.slug for t in c.tags.all()),
            sorted((t.slot, t.kind, t.text, t.points) for t in c.terms.all()),
        )
        for c in ActivityCard.objects.all()
    }


def questions_state() -> dict:
    return {
        q.pk: (
            q.category,
            q.front,
            q.back,
            q.answer,
            q.source,
            q.language,
            q.status,
            q.owner_id,
            sorted(t.slug for t in q.tags.all()),
        )
        for q in KnowledgeQuestion.objects.all()
    }


@pytest.fixture
def symbols(teacher):
    collection = CollectionFactory()
    people = ThemeFactory(slug="people")
    ThemeFactory(slug="army")
    wwii, prl = Period.objects.get(slug="ii-wojna-swiatowa"), Period.objects.get(slug="prl")
    first = SymbolFactory(
        collection=collection,
        number=1,
        owner=teacher,
        name="Orzeł w koronie",
        alternative_names="godło\norzeł",
        description='An emblem; with "quotes", commas.',
        outline="Line one.\nLine two — with a dash.",
        portal_url="https://example.org/orzel",
        language="en",
        periods=[wwii, prl],
    )
    first.themes.set([people])
    first.picture.save("orzel.png", picture_file(png_bytes(), "orzel.png"))
    second = SymbolFactory(
        collection=collection,
        number=12,
        owner=teacher,
        status=Status.DRAFT,
        name="=SUM(A1:A2)",
        description="+48 starts like a formula",
    )
    second.picture.save("flag.svg", picture_file(HOSTILE_SVG, "flag.svg"))
    SymbolFactory(collection=collection, number=999, owner=teacher, name="No picture")
    return collection


def test_symbols_zip_export_imports_back_identically_with_pictures(
    client, teacher, symbols, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    before = symbols_state()
    response, data = download(client, SYMBOLS, "zip")
    assert response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = sorted(archive.namelist())
        [table_name] = [n for n in names if n.endswith(".csv")]
        table = archive.read(table_name)
    assert names == sorted(
        [table_name, "pictures/test-collection/001.png", "pictures/test-collection/012.svg"]
    )
    pictures = {row["number"]: row["picture"] for row in csv_rows(table)}
    assert pictures == {
        "1": "pictures/test-collection/001.png",
        "12": "pictures/test-collection/012.svg",
        "999": "",
    }

    for symbol in Symbol.objects.all():
        symbol.picture.delete(save=False)
        symbol.delete()
    job = run_import(
        django_capture_on_commit_callbacks, teacher, SYMBOLS, table, pictures=data
    )  # the exported ZIP is the pictures ZIP as it is
    assert job.state == ImportJob.State.CHECKED, job.preview
    import_job_apply(job=job)

    assert symbols_state() == before


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_symbols_table_export_imports_back_unchanged(
    client, teacher, symbols, file_format, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    before = symbols_state()
    _, data = download(client, SYMBOLS, file_format)

    job = run_import(django_capture_on_commit_callbacks, teacher, SYMBOLS, data, name=f"export.{file_format}")

    assert job.state == ImportJob.State.CHECKED, job.preview
    assert [row["action"] for row in job.preview["rows"]] == ["skip"] * 3
    job = import_job_apply(job=job)
    assert job.result == {"rows": 3, "new": 0, "update": 0, "skip": 3}
    assert symbols_state() == before  # an empty picture column keeps the pictures


@pytest.fixture
def cards(teacher):
    first = ActivityCardFactory(owner=teacher, title="Legiony", language="pl")
    first.tags.set([Tag.objects.create(slug="wwi"), Tag.objects.create(slug="army")])
    ActivityTerm.objects.filter(card=first, slot="D").update(kind="chain", points=None, text="Sierpień")
    ActivityTerm.objects.filter(card=first, slot="E").update(kind="rhyme", points=None, text='Wolność, "hej"')
    ActivityTerm.objects.filter(card=first, slot="F").update(points=6, text="-1 degrees")
    ActivityCardFactory(owner=teacher, status=Status.DRAFT, title="")
    return first


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_activity_cards_export_imports_back_to_identical_cards(
    client, teacher, cards, file_format, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    before = cards_state()
    _, data = download(client, CARDS, file_format)
    # Change the cards after the export; importing the export restores them.
    ActivityTerm.objects.filter(card=cards, slot="A").update(text="changed", points=3)
    ActivityTerm.objects.filter(card=cards, slot="D").update(kind="term", points=5)
    cards.tags.clear()
    ActivityCard.objects.filter(pk=cards.pk).update(title="Changed", status=Status.DRAFT)

    job = run_import(django_capture_on_commit_callbacks, teacher, CARDS, data, name=f"export.{file_format}")

    assert job.state == ImportJob.State.CHECKED, job.preview
    assert sorted(row["action"] for row in job.preview["rows"]) == ["skip", "update"]
    import_job_apply(job=job)
    assert cards_state() == before


@pytest.mark.parametrize("file_format", ["csv", "xlsx"])
def test_knowledge_questions_export_imports_back_to_identical_questions(
    client, teacher, file_format, django_capture_on_commit_callbacks
):
    KnowledgeQuestionFactory(owner=teacher, category="number", answer=0, source="IPN")
    letter = KnowledgeQuestionFactory(
        owner=teacher,
        category="letter",
        answer=["C", "D"],
        front="=1+1 is not a formula",
        status=Status.DRAFT,
    )
    letter.tags.set([Tag.objects.create(slug="wwii")])
    colour = KnowledgeQuestionFactory(
        owner=teacher, category="colour", answer=["blue", "white"], back="Line 1\nLine 2"
    )
    client.force_login(teacher)
    before = questions_state()
    _, data = download(client, QUESTIONS, file_format)
    KnowledgeQuestion.objects.filter(pk=colour.pk).update(answer=["red"], front="changed")
    letter.tags.clear()

    job = run_import(
        django_capture_on_commit_callbacks, teacher, QUESTIONS, data, name=f"export.{file_format}"
    )

    assert job.state == ImportJob.State.CHECKED, job.preview
    assert sorted(row["action"] for row in job.preview["rows"]) == ["skip", "update", "update"]
    import_job_apply(job=job)
    assert questions_state() == before


def test_cards_and_questions_copy_to_another_installation_with_the_id_column_cleared(
    client, teacher, cards, django_capture_on_commit_callbacks
):
    KnowledgeQuestionFactory(owner=teacher, category="letter", answer=["A"])
    client.force_login(teacher)
    for kind, state in ((CARDS, cards_state), (QUESTIONS, questions_state)):
        before = sorted(state().values())
        _, data = download(client, kind, "csv")
        rows = csv_rows(data)
        for row in rows:
            row["id"] = ""
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
        model = ActivityCard if kind == CARDS else KnowledgeQuestion
        model.objects.all().delete()

        job = run_import(django_capture_on_commit_callbacks, teacher, kind, buffer.getvalue().encode())
        assert job.state == ImportJob.State.CHECKED, job.preview
        import_job_apply(job=job)

        assert sorted(state().values()) == before


@pytest.mark.parametrize("kind", [SYMBOLS, CARDS, QUESTIONS])
def test_export_holds_only_the_rows_the_user_may_see(client, teacher, other_teacher, kind):
    if kind == SYMBOLS:
        collection = CollectionFactory()

        def make(number, **kwargs):
            return SymbolFactory(collection=collection, number=number, name=f"S{number}", **kwargs)

        label = "name"
    elif kind == CARDS:

        def make(number, **kwargs):
            return ActivityCardFactory(title=f"S{number}", **kwargs)

        label = "title"
    else:

        def make(number, **kwargs):
            return KnowledgeQuestionFactory(front=f"S{number}", **kwargs)

        label = "front"
    make(1, owner=teacher, status=Status.DRAFT)
    make(2, owner=teacher, status=Status.PUBLISHED)
    make(3, owner=other_teacher, status=Status.PUBLISHED)
    make(4, owner=other_teacher, status=Status.DRAFT)  # not for this teacher's eyes
    make(5, owner=other_teacher, status=Status.DRAFT).editors.add(teacher)
    make(6, owner=None, status=Status.PUBLISHED)
    client.force_login(teacher)

    _, data = download(client, kind, "csv")

    assert sorted(row[label] for row in csv_rows(data)) == ["S1", "S2", "S3", "S5", "S6"]


def test_csv_export_escapes_formulas_and_xlsx_keeps_them_as_text(client, teacher, symbols):
    client.force_login(teacher)

    _, data = download(client, SYMBOLS, "csv")
    assert data.startswith(b"\xef\xbb\xbf")  # Excel reads UTF-8 with a BOM
    row = next(r for r in csv_rows(data) if r["number"] == "12")
    assert row["name"] == "'=SUM(A1:A2)"
    assert row["description"] == "'+48 starts like a formula"

    response, data = download(client, SYMBOLS, "xlsx")
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    sheet = load_workbook(io.BytesIO(data)).worksheets[0]
    cell = next(r[2] for r in sheet.iter_rows(min_row=2) if r[1].value == 12)
    assert cell.value == "=SUM(A1:A2)" and cell.data_type == "s"


def test_export_file_is_named_by_kind_and_date(client, teacher, symbols):
    from django.utils import timezone

    client.force_login(teacher)
    response, _ = download(client, CARDS, "xlsx")

    today = timezone.localdate().isoformat()
    assert response["Content-Disposition"] == (f'attachment; filename="talia-activity-cards-{today}.xlsx"')


@pytest.mark.parametrize("query", [{"kind": "users", "format": "csv"}, {"kind": "symbols", "format": "pdf"}])
def test_export_with_unknown_kind_or_format_is_400(client, teacher, query):
    client.force_login(teacher)

    response = client.get(reverse("content:export"), query)

    assert response.status_code == 400
    assert b"Choose kind=" in response.content


def test_admin_action_asks_for_the_format_then_exports_the_visible_selection(teacher, other_teacher):
    from content.admin import SymbolAdmin

    collection = CollectionFactory()
    mine = SymbolFactory(collection=collection, number=1, owner=teacher, status=Status.DRAFT)
    SymbolFactory(collection=collection, number=2, owner=other_teacher, status=Status.DRAFT)
    model_admin = SymbolAdmin(Symbol, admin.site)
    factory = RequestFactory()

    request = factory.post("/admin/content/symbol/", {"action": "export_selected"})
    request.user = teacher
    page = export_selected(model_admin, request, Symbol.objects.all())
    page.render()
    html = page.content.decode()
    assert '<input type="radio" name="format" value="zip"' in html
    assert f'name="_selected_action" value="{mine.pk}"' in html

    request = factory.post(
        "/admin/content/symbol/", {"action": "export_selected", "talia_export": "1", "format": "csv"}
    )
    request.user = teacher
    response = export_selected(model_admin, request, Symbol.objects.all())
    rows = csv_rows(b"".join(response.streaming_content))
    assert [row["number"] for row in rows] == ["1"]


def test_changelist_mixin_adds_import_and_export_buttons(teacher):
    model_admin = admin.site._registry[KnowledgeQuestion]
    assert isinstance(model_admin, ImportExportLinksMixin)

    request = RequestFactory().get("/admin/content/knowledgequestion/")
    request.user = teacher
    response = model_admin.changelist_view(request)
    response.render()
    html = response.content.decode()

    assert f'href="{reverse("content:import_start")}?kind=knowledge_questions"' in html
    assert f"{reverse('content:export')}?kind=knowledge_questions&amp;format=xlsx" in html
    assert "format=zip" not in html  # pictures are for symbols only


def test_import_template_lists_every_column(client, teacher):
    client.force_login(teacher)
    for kind in (SYMBOLS, CARDS, QUESTIONS):
        response = client.get(reverse("content:import_template", args=[kind]))
        _, data = download(client, kind, "csv")
        assert response.content.splitlines()[0] == data.splitlines()[0]


def test_export_of_a_picture_whose_file_is_gone_leaves_the_column_empty(client, teacher, symbols):
    symbol = Symbol.objects.get(number=1)
    symbol.picture.storage.delete(symbol.picture.name)
    client.force_login(teacher)

    _, data = download(client, SYMBOLS, "zip")

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        table = archive.read(next(n for n in archive.namelist() if n.endswith(".csv")))
    assert {r["number"]: r["picture"] for r in csv_rows(table)}["1"] == ""


def test_export_action_works_through_the_admin_changelist(client, teacher, monkeypatch):
    from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME

    model_admin = admin.site._registry[Symbol]
    monkeypatch.setattr(model_admin, "actions", [*model_admin.actions, export_selected])
    collection = CollectionFactory()
    first = SymbolFactory(collection=collection, number=1, owner=teacher)
    SymbolFactory(collection=collection, number=2, owner=teacher)
    client.force_login(teacher)
    url = reverse("admin:content_symbol_changelist")

    page = client.post(url, {"action": "export_selected", "index": "0", ACTION_CHECKBOX_NAME: [first.pk]})
    assert page.status_code == 200
    assert b'name="talia_export"' in page.content

    response = client.post(
        url,
        {
            "action": "export_selected",
            ACTION_CHECKBOX_NAME: [first.pk],
            "talia_export": "1",
            "format": "xlsx",
        },
    )
    assert response.status_code == 200
    sheet = load_workbook(io.BytesIO(b"".join(response.streaming_content))).worksheets[0]
    assert [row[1] for row in sheet.iter_rows(min_row=2, values_only=True)] == [1]
