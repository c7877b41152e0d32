"""Talia packages (content/packages, docs/packages.md): export, the checked preview with a
choice per item, the write in one transaction, and hostile packages refused.

The round trips export content, empty the installation (``packaging.installation_empty``:
what a second Talia holds), import the package there as another teacher and export
again: the manifest must come back the same.
"""

from __future__ import annotations

import json
import os

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.storage import default_storage
from django.db import DatabaseError
from django.urls import reverse

from content.imports import ImportRefused
from content.models import (
    ActivityCard,
    ActivityTerm,
    Collection,
    KnowledgeBoard,
    KnowledgeQuestion,
    KnowQuestion,
    PackageImport,
    Period,
    Status,
    Symbol,
    SymbolSet,
    Tag,
    Theme,
    Visibility,
)
from content.packages import archive, sections, services
from tests.factories import (
    ActivityCardFactory,
    AdminFactory,
    CollectionFactory,
    KnowledgeQuestionFactory,
    SymbolFactory,
    TeacherFactory,
    ThemeFactory,
    symbol_set_with,
)

from .packaging import (
    SVG,
    exported,
    installation_empty,
    manifest,
    package_bytes,
    package_check,
    package_import,
    picture_set,
    png_bytes,
    preview_items,
    upload,
    zip_of,
)

State = PackageImport.State


@pytest.fixture
def symbol_set(teacher):
    """A set of three symbols: a PNG, an SVG and no picture; a collection and themes of their own."""
    collection = CollectionFactory(slug="znaki-szkoly", name="Znaki naszej szkoły", description="Kolekcja.")
    people, places = ThemeFactory(slug="ludzie", name="Ludzie"), ThemeFactory(slug="miejsca", name="Miejsca")
    prl = Period.objects.get(slug="prl")
    made = []
    for number, name in ((7, "Kotwica"), (2, "Orzeł Biały"), (15, "Stocznia")):
        symbol = SymbolFactory(
            owner=teacher,
            collection=collection,
            number=number,
            name=name,
            alternative_names="Znak Polski Walczącej\nPW" if number == 7 else "",
            outline=f"Historia: {name}.",
            portal_url="https://example.org/" + str(number),
            periods=[Period.objects.get(slug="ii-wojna-swiatowa"), prl] if number == 7 else [prl],
        )
        symbol.themes.set([people, places] if number == 2 else [places])
        made.append(symbol)
    picture_set(made[0], png_bytes("red"))
    picture_set(made[1], SVG, "orzel.svg")
    return symbol_set_with(
        made, owner=teacher, name="Znaki 1944", slug="znaki-1944", description="Do lekcji."
    )


def _cards(teacher):
    cards = []
    for title in ("Wojna", ""):
        card = ActivityCard.objects.create(owner=teacher, title=title, language="pl", status=Status.PUBLISHED)
        for slot, kind, points in (
            ("A", "term", 4),
            ("B", "term", 5),
            ("C", "chain", None),
            ("D", "term", 3),
            ("E", "rhyme", None),
            ("F", "term", 6),
        ):
            ActivityTerm.objects.create(
                card=card, slot=slot, kind=kind, text=f"{slot} {title or 'bez tytułu'}", points=points
            )
        card.tags.set(
            [Tag.objects.get_or_create(slug="klasa-8")[0], Tag.objects.get_or_create(slug="ii-wojna")[0]]
        )
        cards.append(card)
    return cards


# --- Round trips: export → empty installation → import → export gives the same manifest ----------


def _round_trip(export, teacher, capture) -> tuple[dict, dict, PackageImport, object]:
    first = exported(export(teacher))
    installation_empty()
    other = TeacherFactory()
    job = package_import(other, first, capture)
    assert job.state == State.DONE, job.error
    again = exported(export(other))
    return manifest(first), manifest(again), job, other


def test_symbol_set_round_trip_into_an_empty_installation_gives_the_same_manifest(
    teacher, symbol_set, django_capture_on_commit_callbacks
):
    pictures_before = {
        s.name: default_storage.open(s.picture.name).read() for s in symbol_set.symbols.exclude(picture="")
    }

    def export(user):
        return services.symbol_sets_export(user=user, queryset=SymbolSet.objects.all())

    before, after, job, other = _round_trip(export, teacher, django_capture_on_commit_callbacks)

    assert after == before
    assert before["kind"] == "symbol_set" and before["version"] == archive.VERSION
    assert [s["name"] for s in before["symbols"]] == ["Kotwica", "Orzeł Biały", "Stocznia"]  # the set's order
    assert before["collections"] == [
        {"key": "znaki-szkoly", "name": "Znaki naszej szkoły", "description": "Kolekcja."}
    ]
    assert [t["key"] for t in before["themes"]] == ["ludzie", "miejsca"]
    # In the empty installation everything was new, and is now the importing teacher's draft.
    assert job.preview["counts"] == {"items": 4, "new": 4, "same": 0, "conflict": 0}
    imported = SymbolSet.objects.get()
    assert imported.owner == other and imported.visibility == Visibility.PRIVATE
    assert str(imported.uid) == before["symbol_sets"][0]["uid"]
    assert [m.symbol.name for m in imported.members.order_by("position")] == [
        "Kotwica",
        "Orzeł Biały",
        "Stocznia",
    ]
    assert set(Symbol.objects.values_list("status", flat=True)) == {Status.DRAFT}
    assert Symbol.objects.get(name="Kotwica").alternative_name_list == ["Znak Polski Walczącej", "PW"]
    for symbol in Symbol.objects.exclude(picture=""):
        assert default_storage.open(symbol.picture.name).read() == pictures_before[symbol.name]
    assert Collection.objects.get().name == "Znaki naszej szkoły"
    assert set(Theme.objects.values_list("slug", flat=True)) == {"ludzie", "miejsca"}


def test_activity_deck_round_trip_gives_the_same_manifest(teacher, django_capture_on_commit_callbacks):
    _cards(teacher)

    def export(user):
        return services.activity_cards_export(user=user, queryset=ActivityCard.objects.all())

    before, after, job, other = _round_trip(export, teacher, django_capture_on_commit_callbacks)
    assert after == before
    assert len(before["activity_cards"]) == 2
    card = before["activity_cards"][0]
    assert card["tags"] == ["ii-wojna", "klasa-8"]
    assert card["terms"][2] == {"slot": "C", "kind": "chain", "text": "C Wojna", "points": None}
    assert ActivityCard.objects.filter(owner=other, status=Status.DRAFT).count() == 2


def test_know_question_bank_round_trip_gives_the_same_manifest(teacher, django_capture_on_commit_callbacks):
    for text, answers in (
        ("Kto dowodził obroną Westerplatte?", ["Henryk Sucharski", "Sucharski"]),
        ("Co to PKWN?", []),
    ):
        question = KnowQuestion.objects.create(owner=teacher, text=text, answers=answers, source="podręcznik")
        question.tags.set([Tag.objects.get_or_create(slug="know")[0]])

    def export(user):
        return services.know_questions_export(user=user, queryset=KnowQuestion.objects.all())

    before, after, job, other = _round_trip(export, teacher, django_capture_on_commit_callbacks)
    assert after == before
    assert before["know_questions"][0]["answers"] == ["Henryk Sucharski", "Sucharski"]
    assert KnowQuestion.objects.filter(owner=other).count() == 2


def test_knowledge_questions_with_their_boards_round_trip_gives_the_same_manifest(
    teacher, django_capture_on_commit_callbacks
):
    KnowledgeQuestionFactory(
        owner=teacher, category="letter", front="Która litera?", answer=["C", "D"], source="x"
    )
    KnowledgeQuestionFactory(owner=teacher, category="colour", front="Jaki kolor?", answer=["red", "white"])
    default = KnowledgeBoard.objects.get(owner__isnull=True)
    KnowledgeBoard.objects.create(
        owner=teacher,
        name="Plansza klasy 8",
        spaces=default.spaces,
        finish=default.finish,
        opponent_start=default.opponent_start,
        opponent_start_hard=default.opponent_start_hard,
    )

    def export(user):
        return services.knowledge_export(
            user=user,
            questions=KnowledgeQuestion.objects.all(),
            boards=KnowledgeBoard.objects.filter(owner__isnull=False),
        )

    before, after, job, other = _round_trip(export, teacher, django_capture_on_commit_callbacks)
    assert after == before
    assert [q["answer"] for q in before["knowledge_questions"]] == [["C", "D"], ["red", "white"]]
    assert before["knowledge_boards"][0]["spaces"] == default.spaces
    assert KnowledgeBoard.objects.get(owner=other).name == "Plansza klasy 8"


def test_the_same_content_exported_twice_is_the_same_file(teacher, symbol_set):
    def export():
        return exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))

    assert export() == export()


def test_a_package_holds_only_what_the_teacher_may_see(teacher, other_teacher):
    mine = SymbolFactory(owner=teacher, name="Mój")
    draft = SymbolFactory(owner=other_teacher, name="Szkic kolegi", status=Status.DRAFT)
    shared = symbol_set_with([mine, draft], owner=teacher)
    data = manifest(
        exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.filter(pk=shared.pk)))
    )
    assert [s["name"] for s in data["symbols"]] == ["Mój"]
    assert data["symbol_sets"][0]["symbols"] == [str(mine.uid)]


def test_nothing_to_export_is_said(teacher, other_teacher):
    hidden = ActivityCardFactory(owner=other_teacher, status=Status.DRAFT)
    with pytest.raises(services.PackageExportError, match="nothing to export"):
        services.activity_cards_export(user=teacher, queryset=ActivityCard.objects.filter(pk=hidden.pk))


# --- The preview: new, the same, in conflict; matched by uid or by name -----------------------------


def test_reimported_content_is_already_here_by_its_identifier(
    teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    assert job.state == State.CHECKED, job.error
    assert job.preview["counts"] == {"items": 4, "new": 0, "same": 4, "conflict": 0}
    item = preview_items(job)["Znaki 1944"]
    assert item["matched_by"] == "uid" and item["existing"]["pk"] == symbol_set.pk
    assert item["choices"] == [sections.EXISTING, sections.COPY, sections.SKIP]
    assert item["default"] == sections.EXISTING
    # Every item uses what is here: there is nothing to write.
    with pytest.raises(services.PackageChoiceError, match="Nothing to import"):
        services.package_import_confirm(job=job, user=teacher, choices={})


def test_periods_listed_in_another_order_here_change_nothing(
    teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    for position, period in enumerate(Period.objects.order_by("-position"), start=1):
        Period.objects.filter(pk=period.pk).update(position=position)  # another school's order
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    assert job.preview["counts"]["same"] == 4
    assert manifest(
        exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    ) == (manifest(data))


def test_an_edited_item_is_in_conflict_and_names_the_fields_that_differ(
    teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    Symbol.objects.filter(name="Stocznia").update(description="Zmieniony opis.", outline="Inny zarys.")
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    item = preview_items(job)["015 Stocznia (znaki-szkoly)"]
    assert item["state"] == sections.CONFLICT
    assert item["differences"] == ["description", "outline"]


def test_content_made_here_with_the_same_name_is_matched_by_name(
    teacher, other_teacher, django_capture_on_commit_callbacks
):
    question = KnowledgeQuestionFactory(owner=other_teacher, front="Ile?", answer=3)
    data = exported(
        services.knowledge_export(
            user=other_teacher,
            questions=KnowledgeQuestion.objects.all(),
            boards=KnowledgeBoard.objects.none(),
        )
    )
    KnowledgeQuestion.objects.filter(pk=question.pk).update(owner=teacher, status=Status.DRAFT)
    KnowledgeQuestion.objects.filter(pk=question.pk).update(uid="00000000-0000-4000-8000-000000000001")
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    item = preview_items(job)["Ile?"]
    assert (item["state"], item["matched_by"], item["existing"]["pk"]) == (sections.SAME, "name", question.pk)


def test_another_teachers_draft_is_never_matched_and_its_identifier_is_not_reused(
    teacher, other_teacher, django_capture_on_commit_callbacks
):
    card = _cards(other_teacher)[0]
    data = exported(
        services.activity_cards_export(user=other_teacher, queryset=ActivityCard.objects.filter(pk=card.pk))
    )
    ActivityCard.objects.filter(pk=card.pk).update(status=Status.DRAFT)  # the teacher no longer sees it
    job = package_import(teacher, data, django_capture_on_commit_callbacks)
    assert job.preview["counts"]["new"] == 1
    copy = ActivityCard.objects.get(owner=teacher)
    assert copy.uid != card.uid


# --- Choices --------------------------------------------------------------------------------------


def test_import_as_a_copy_gets_a_new_identifier_and_a_free_number_and_key(
    teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    refs = {label: item["ref"] for label, item in preview_items(job).items()}
    note = preview_items(job)["002 Orzeł Biały (znaki-szkoly)"]["notes"]
    assert note == ["As a copy, it gets the collection's next free number: 002 is taken here."]
    with django_capture_on_commit_callbacks(execute=True):
        services.package_import_confirm(
            job=job,
            user=teacher,
            choices={refs["002 Orzeł Biały (znaki-szkoly)"]: "copy", refs["Znaki 1944"]: "copy"},
        )
    job.refresh_from_db()
    assert job.state == State.DONE, job.error
    assert job.result["counts"] == {"import": 0, "copy": 2, "existing": 2, "skip": 0}
    copy = SymbolSet.objects.exclude(pk=symbol_set.pk).get()
    assert copy.slug == "znaki-1944-2" and copy.uid != symbol_set.uid and copy.owner == teacher
    orzel = Symbol.objects.filter(name="Orzeł Biały").order_by("pk")
    assert [s.number for s in orzel] == [2, 3]
    # The copy of the set holds the copy of the symbol and the existing others, in order.
    assert [m.symbol_id for m in copy.members.order_by("position")] == [
        Symbol.objects.get(name="Kotwica").pk,
        orzel[1].pk,
        Symbol.objects.get(name="Stocznia").pk,
    ]


def test_a_new_symbol_whose_number_is_taken_here_gets_the_next_free_one(
    teacher, other_teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    installation_empty()
    collection = CollectionFactory(slug="znaki-szkoly", name="Nasze")
    SymbolFactory(owner=other_teacher, collection=collection, number=2, status=Status.DRAFT)  # unseen
    job = package_import(teacher, data, django_capture_on_commit_callbacks)
    assert job.state == State.DONE, job.error
    item = preview_items(job)["002 Orzeł Biały (znaki-szkoly)"]
    assert (item["state"], item["notes"]) == (
        sections.NEW,
        ["Imported, it is numbered 003: 002 is taken in this collection here."],
    )
    assert Symbol.objects.get(name="Orzeł Biały").number == 3
    assert Collection.objects.get().name == "Nasze"  # what is here is never changed


def test_a_set_cannot_be_imported_without_one_of_its_symbols(
    teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    installation_empty()
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    refs = {label: item["ref"] for label, item in preview_items(job).items()}
    with pytest.raises(services.PackageChoiceError) as refused:
        services.package_import_confirm(
            job=job, user=teacher, choices={refs["007 Kotwica (znaki-szkoly)"]: "skip"}
        )
    assert refused.value.messages == [
        '"Znaki 1944" holds "007 Kotwica (znaki-szkoly)": import that too, use the existing one, or skip "Znaki 1944" as well.'
    ]
    job.refresh_from_db()
    assert job.state == State.CHECKED
    # Skipping the set too is fine: the other two symbols are imported alone.
    package_confirmed = services.package_import_confirm(
        job=job,
        user=teacher,
        choices={refs["007 Kotwica (znaki-szkoly)"]: "skip", refs["Znaki 1944"]: "skip"},
    )
    assert package_confirmed.state == State.IMPORTING


def test_a_choice_the_item_does_not_offer_is_refused(teacher, symbol_set, django_capture_on_commit_callbacks):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    installation_empty()
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    ref = preview_items(job)["Znaki 1944"]["ref"]
    with pytest.raises(services.PackageChoiceError, match="choose one of the choices offered"):
        services.package_import_confirm(job=job, user=teacher, choices={ref: "existing"})


# --- Nothing half-written -------------------------------------------------------------------------


def test_a_database_error_in_the_middle_writes_nothing_and_deletes_the_pictures(
    teacher, symbol_set, django_capture_on_commit_callbacks, monkeypatch
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    installation_empty()
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    stored = []
    original = sections.ImportContext.picture_store

    def store(self, path, folder):
        stored.append(original(self, path, folder))
        return stored[-1]

    def fail(self, item, ctx, *, copy):
        raise DatabaseError("the disk is full")

    monkeypatch.setattr(sections.ImportContext, "picture_store", store)
    monkeypatch.setattr(sections.SymbolSetSection, "write", fail)  # after the symbols and their pictures
    with django_capture_on_commit_callbacks(execute=True):
        services.package_import_confirm(job=job, user=teacher, choices={})
    job.refresh_from_db()
    assert job.state == State.FAILED
    assert "the disk is full" in job.error and "nothing was imported" in job.error
    assert not Symbol.objects.exists() and not SymbolSet.objects.exists() and not Collection.objects.exists()
    assert len(stored) == 2 and not any(default_storage.exists(name) for name in stored)


def test_content_that_changed_since_the_preview_stops_the_import(
    teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    ref = preview_items(job)["007 Kotwica (znaki-szkoly)"]["ref"]
    with django_capture_on_commit_callbacks(execute=False) as queued:
        services.package_import_confirm(job=job, user=teacher, choices={ref: "copy"})
    SymbolSet.objects.all().delete()  # "use the existing set" has nothing to use any more
    for callback in queued:
        callback()
    job.refresh_from_db()
    assert job.state == State.FAILED
    assert "changed since the preview" in job.error
    assert Symbol.objects.filter(name="Kotwica").count() == 1


def test_apply_runs_only_on_a_confirmed_import(teacher, symbol_set, django_capture_on_commit_callbacks):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    with pytest.raises(ImportRefused):
        services.package_import_apply(job=job)


# --- Reference data -------------------------------------------------------------------------------


def _with_new_period(teacher):
    period = Period.objects.create(
        slug="xix", name="XIX wiek", start_year=1801, end_year=1900, colour="#123456", position=9
    )
    SymbolFactory(owner=teacher, name="Kosynier", periods=[period])
    data = exported(
        services.symbol_sets_export(
            user=teacher,
            queryset=SymbolSet.objects.filter(
                pk=symbol_set_with(list(Symbol.objects.all()), owner=teacher).pk
            ),
        )
    )
    installation_empty()
    period.delete()
    return data


def test_a_period_only_an_admin_adds_makes_a_teachers_package_invalid(
    teacher, django_capture_on_commit_callbacks
):
    data = _with_new_period(teacher)
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    assert job.state == State.INVALID
    assert 'uses the period "XIX wiek" (key xix)' in job.error and "Ask an admin to add it" in job.error


def test_an_admin_imports_a_new_period_with_the_package(teacher, django_capture_on_commit_callbacks):
    data = _with_new_period(teacher)
    job = package_import(AdminFactory(), data, django_capture_on_commit_callbacks)
    assert job.state == State.DONE, job.error
    assert 'The period "XIX wiek" (key xix) is added.' in job.preview["notes"]
    assert Period.objects.get(slug="xix").colour == "#123456"
    assert list(Symbol.objects.get().periods.values_list("slug", flat=True)) == ["xix"]


# --- Hostile packages -----------------------------------------------------------------------------


def _refused_upload(user, data) -> str:
    with pytest.raises(ValidationError) as refused:
        services.package_import_create(user=user, file=upload(data))
    assert not PackageImport.objects.exists()
    return " ".join(refused.value.message_dict["package"])


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"%PDF-1.7 not a zip", "not a Talia package"),
        (b"", "not a Talia package"),
        (zip_of({"pictures/a.png": png_bytes()}), "it has no manifest.json"),
    ],
)
def test_a_file_that_is_not_a_package_is_refused_at_once(teacher, data, message):
    assert message in _refused_upload(teacher, data)


@pytest.mark.parametrize(
    "name", ["../evil.png", "pictures/../../evil.png", "/etc/passwd", "C:/x.png", "..\\x.png"]
)
def test_a_path_out_of_the_package_is_refused(teacher, name):
    data = zip_of({"manifest.json": "{}", name: png_bytes()})
    assert "unsafe path" in _refused_upload(teacher, data)


def test_a_zip_bomb_is_refused(teacher):
    data = zip_of({"manifest.json": "{}", "pictures/bomb.png": b"\0" * (30 * 1024 * 1024)})
    assert "ZIP bomb" in _refused_upload(teacher, data)


def test_a_package_that_unpacks_beyond_the_limit_is_refused(teacher, settings):
    settings.TALIA_IMPORT_MAX_UNPACKED_BYTES = 100_000
    data = zip_of({"manifest.json": "{}", "pictures/a.png": b"x" * 200_000})
    assert "unpacks to" in _refused_upload(teacher, data)


def test_a_package_with_too_many_files_is_refused(teacher):
    entries = {f"pictures/{n}.png": b"x" for n in range(2001)}
    data = zip_of({"manifest.json": "{}", **entries})
    assert "at most 2000" in _refused_upload(teacher, data)


def test_a_huge_manifest_is_refused(teacher, monkeypatch):
    monkeypatch.setattr(archive, "MANIFEST_MAX_BYTES", 10_000)
    data = package_bytes({"format": "talia-package", "version": 1, "title": "x" * 20_000})
    assert "manifest unpacks to" in _refused_upload(teacher, data)


def test_an_oversize_upload_is_refused(teacher, settings):
    settings.TALIA_IMPORT_MAX_BYTES = 1000
    data = package_bytes({}, {"pictures/noise.png": os.urandom(5000)})
    assert "The package is 0.1 MB; the limit is 0.1 MB" in _refused_upload(teacher, data)


def test_an_encrypted_file_is_refused(teacher):
    # zipfile writes no encrypted entries: the "encrypted" flag is set in the bytes.
    data = bytearray(zip_of({"manifest.json": "{}", "pictures/a.png": b"secret"}))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        start = data.rindex(signature)  # the second entry's headers
        data[start + offset] |= 0x1
    assert 'The package\'s file "pictures/a.png" is encrypted' in _refused_upload(teacher, bytes(data))


def test_students_never_import(student):
    with pytest.raises(PermissionDenied):
        services.package_import_create(user=student, file=upload(package_bytes({})))


def _valid(teacher, symbol_set) -> dict:
    return manifest(exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all())))


def _invalid(teacher, data, capture) -> str:
    job = package_check(teacher, data, capture)
    assert job.state == State.INVALID
    assert not Symbol.objects.exclude(owner=teacher).exists()
    return job.error


@pytest.mark.parametrize(
    ("manifest_text", "message"),
    [
        ("{not json", "not valid JSON (line 1, column 2"),
        ('{"format": "talia-package", "version": 1, "title": NaN}', "NaN is not a number JSON allows"),
        ('{"format": "talia-package", "format": "x"}', 'the field "format" is named twice'),
        ("[" * 5000 + "]" * 5000, "nested too deeply"),
        ('{"format": "talia-package", "version": 1, "x": ' + "[" * 30 + "]" * 30 + "}", "nested too deeply"),
        ("[]", "not a JSON object"),
        ('{"format": "zip", "version": 1}', 'does not say "format": "talia-package"'),
        ('{"format": "talia-package", "version": "1"}', '"version" must be a whole number'),
        ('{"format": "talia-package", "version": 2}', "made by a newer Talia (package format version 2)"),
        ('{"format": "talia-package", "version": 1, "kind": "quiz", "title": "x"}', "holds no items"),
    ],
)
def test_a_manifest_that_cannot_be_read_is_invalid_with_the_reason(
    teacher, manifest_text, message, django_capture_on_commit_callbacks
):
    error = _invalid(teacher, package_bytes(manifest_text), django_capture_on_commit_callbacks)
    assert message in error


def _broken(teacher, symbol_set, change) -> bytes:
    data = _valid(teacher, symbol_set)
    pictures = {}
    for symbol in Symbol.objects.exclude(picture=""):
        path = next(s["picture"] for s in data["symbols"] if s["uid"] == str(symbol.uid))
        pictures[path] = default_storage.open(symbol.picture.name).read()
    change(data)
    SymbolSet.objects.all().delete()
    return package_bytes(data, pictures)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda m: m["symbols"][0].update(number="abc"),
            'symbols[0]: "number" must be a whole number from 1 to 999, not abc.',
        ),
        (
            lambda m: m["symbols"][0].update(number=1000),
            '"number" must be a whole number from 1 to 999, not 1000',
        ),
        (lambda m: m.update(symbols={"a": 1}), '"symbols" must be a list […], not an object.'),
        (
            lambda m: m["symbols"][1].update(colour="red"),
            "symbols[1]: it has fields the package format does not have: colour.",
        ),
        (lambda m: m["symbols"][0].update(name=7), '"name" must be text, not a number.'),
        (
            lambda m: m["symbols"][0].update(description="x" * 401),
            '"description" may be at most 400 characters long; it has 401.',
        ),
        (lambda m: m["symbols"][0].update(uid="../../etc"), '"uid" must be a UUID'),
        (
            lambda m: m["symbols"][1].update(uid=m["symbols"][0]["uid"]),
            'its "uid" is that of an earlier item',
        ),
        (lambda m: m["symbols"][0].update(periods=[]), '"periods" must name at least one period.'),
        (lambda m: m["symbols"][0].update(alternative_names=["a\nb"]), "without line breaks"),
        (
            lambda m: m["symbols"][0].update(themes=["nieznany"]),
            'it names the key "nieznany", which is neither in',
        ),
        (
            lambda m: m["symbols"][0].update(portal_url="javascript:alert(1)"),
            '"portal_url": Enter a valid URL.',
        ),
        (
            lambda m: m["symbols"][0].update(picture="pictures/missing.png"),
            'the picture "pictures/missing.png": The package has no file',
        ),
        (
            lambda m: m["symbol_sets"][0].update(symbols=["00000000-0000-4000-8000-000000000009"]),
            "the package does not hold",
        ),
        (lambda m: m.update(kind="everything"), '"kind" must be one of'),
        (lambda m: m.update(extra=1), "manifest: it has fields the package format does not have: extra."),
        (lambda m: m["collections"][0].update(key="zła klucz"), "must be a key of letters, digits"),
        (lambda m: m["periods"][0].update(colour="blue"), '"colour" must be a colour written #rrggbb'),
    ],
)
def test_wrong_types_and_values_are_invalid_and_say_where(
    teacher, symbol_set, change, message, django_capture_on_commit_callbacks
):
    error = _invalid(teacher, _broken(teacher, symbol_set, change), django_capture_on_commit_callbacks)
    assert message in error


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m["activity_cards"][0]["terms"].pop(), "must hold six terms, one for each slot A to F"),
        (
            lambda m: m["activity_cards"][0]["terms"][0].update(points=9),
            '"points" must be a whole number from 3 to 6, not 9.',
        ),
        (lambda m: m["activity_cards"][0]["terms"][2].update(points=4), "Chain and rhyme have no points"),
        (
            lambda m: m["activity_cards"][0]["terms"][0].update(slot="G"),
            '"slot" must be one of A, B, C, D, E, F',
        ),
        (lambda m: m["activity_cards"][0].update(tags=["klasa 8"]), "must list keys of letters, digits"),
    ],
)
def test_wrong_activity_cards_are_invalid(teacher, change, message, django_capture_on_commit_callbacks):
    _cards(teacher)
    data = manifest(
        exported(services.activity_cards_export(user=teacher, queryset=ActivityCard.objects.all()))
    )
    change(data)
    assert message in _invalid(teacher, package_bytes(data), django_capture_on_commit_callbacks)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda m: m["knowledge_questions"][0].update(answer=["F"]),
            "A letter card's answer is one or more of A–E",
        ),
        (lambda m: m["knowledge_questions"][0].update(answer={"a": 1}), '"answer"'),
        (lambda m: m["knowledge_boards"][0].update(spaces=[None, None, None]), "spaces"),
        (lambda m: m["knowledge_boards"][0].update(spaces="lots"), '"spaces" must be a list'),
        (
            lambda m: m["knowledge_boards"][0].update(spaces=[{"colour": ["x"], "letter": 5}] * 20),
            "knowledge_boards[0]",
        ),
        (
            lambda m: m["knowledge_boards"][0].update(opponent_start=None),
            '"opponent_start" must be a whole number',
        ),
    ],
)
def test_wrong_knowledge_questions_and_boards_are_invalid(
    teacher, change, message, django_capture_on_commit_callbacks
):
    KnowledgeQuestionFactory(owner=teacher, category="letter", front="Która?", answer=["C"])
    data = manifest(
        exported(
            services.knowledge_export(
                user=teacher, questions=KnowledgeQuestion.objects.all(), boards=KnowledgeBoard.objects.all()
            )
        )
    )
    change(data)
    assert message in _invalid(teacher, package_bytes(data), django_capture_on_commit_callbacks)


@pytest.mark.parametrize(
    ("picture", "message"),
    [
        (b"%PDF-1.4 a document", "is a PDF document, which is not accepted"),
        (b"GIF89a" + b"\0" * 100, "is a GIF picture, which is not accepted"),
        (png_bytes(size=8), "too small to recognise on a card"),
        (
            b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "b">]><svg xmlns="http://www.w3.org/2000/svg"/>',
            "DOCTYPE",
        ),
        (b"", "is empty"),
    ],
)
def test_a_picture_that_is_not_a_picture_is_invalid(
    teacher, symbol_set, picture, message, django_capture_on_commit_callbacks
):
    data = _valid(teacher, symbol_set)
    path = data["symbols"][0]["picture"]
    SymbolSet.objects.all().delete()
    error = _invalid(
        teacher,
        package_bytes(data, {path: picture, data["symbols"][1]["picture"]: SVG}),
        django_capture_on_commit_callbacks,
    )
    assert f'symbols[0] ("007 Kotwica (znaki-szkoly)"): the picture "{path}"' in error
    assert message in error


def test_an_svg_is_cleaned_of_scripts_on_import(teacher, symbol_set, django_capture_on_commit_callbacks):
    data = _valid(teacher, symbol_set)
    path = data["symbols"][1]["picture"]
    hostile = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script><rect width="10" height="10"/></svg>'
    pictures = {path: hostile, data["symbols"][0]["picture"]: png_bytes("red")}
    installation_empty()
    job = package_import(teacher, package_bytes(data, pictures), django_capture_on_commit_callbacks)
    assert job.state == State.DONE, job.error
    stored = default_storage.open(Symbol.objects.get(name="Orzeł Biały").picture.name).read()
    assert b"script" not in stored and b"onload" not in stored and b"<rect" in stored


def test_problems_are_listed_at_most_fifty_then_counted(
    teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = _valid(teacher, symbol_set)
    data["symbols"] = [
        dict(data["symbols"][2], number="x", uid=f"00000000-0000-4000-8000-{n:012d}") for n in range(80)
    ]
    data["symbol_sets"] = []
    error = _invalid(teacher, package_bytes(data), django_capture_on_commit_callbacks)
    assert error.splitlines()[-1] == "… and 30 more problems."


# --- Jobs: the task, the sweep, retry -------------------------------------------------------------


def test_an_unexpected_error_in_the_check_fails_the_job_with_a_message(
    teacher, symbol_set, django_capture_on_commit_callbacks, monkeypatch
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(services, "_plan", boom)
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    assert job.state == State.FAILED
    assert "unexpected error while checking the package" in job.error
    monkeypatch.undo()
    with django_capture_on_commit_callbacks(execute=True):
        services.package_import_retry(job=job, user=teacher)
    job.refresh_from_db()
    assert job.state == State.CHECKED


def test_a_check_whose_worker_died_is_failed_by_the_sweep(
    teacher, symbol_set, django_capture_on_commit_callbacks, settings
):
    from datetime import timedelta

    from django.utils import timezone

    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    with django_capture_on_commit_callbacks(execute=False):
        job = services.package_import_create(user=teacher, file=upload(data))
    long_ago = timezone.now() - timedelta(seconds=settings.JOBS_STALE_SECONDS + 60)
    PackageImport.objects.filter(pk=job.pk).update(started=long_ago, updated=long_ago)
    assert services.package_imports_sweep() == 1
    job.refresh_from_db()
    assert job.state == State.FAILED and "stopped before it finished" in job.error


# --- Pages ----------------------------------------------------------------------------------------


def test_the_pages_go_from_upload_to_preview_to_done(
    client, teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    installation_empty()
    client.force_login(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("content:package_import_start"), {"package": upload(data)})
    job = PackageImport.objects.get()
    assert response.status_code == 302
    assert response.url == reverse("content:package_import_detail", args=[job.pk])
    page = client.get(response.url).content.decode()
    assert "Choose what to import" in page and "Znaki 1944" in page
    ref = preview_items(PackageImport.objects.get())["Znaki 1944"]["ref"]
    assert f'name="choice-{ref}"' in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("content:package_import_confirm", args=[job.pk]), {f"choice-{ref}": "skip"}
        )
    assert response.status_code == 302
    page = client.get(response.url).content.decode()
    assert "Imported: 3. Imported as copies: 0. Using what was here: 0. Skipped: 1." in page
    assert not SymbolSet.objects.exists()
    assert list(Symbol.objects.order_by("number").values_list("name", flat=True)) == [
        "Orzeł Biały",
        "Kotwica",
        "Stocznia",
    ]
    assert reverse("admin:content_symbol_change", args=[Symbol.objects.get(name="Kotwica").pk]) in page
    status = client.get(reverse("content:package_import_status", args=[job.pk])).json()
    assert status["state"] == "done" and not status["working"]


def test_a_bad_upload_shows_the_form_again_with_the_reason(client, teacher):
    client.force_login(teacher)
    response = client.post(reverse("content:package_import_start"), {"package": upload(b"not a zip")})
    assert response.status_code == 200
    assert "not a Talia package" in response.content.decode()


def test_refused_choices_show_the_preview_again_with_the_reason(
    client, teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    installation_empty()
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    ref = preview_items(job)["007 Kotwica (znaki-szkoly)"]["ref"]
    client.force_login(teacher)
    response = client.post(
        reverse("content:package_import_confirm", args=[job.pk]), {f"choice-{ref}": "skip"}
    )
    page = response.content.decode()
    assert response.status_code == 200 and "These choices cannot be imported" in page
    assert f'id="choice-{ref}-skip" value="skip" checked' in page
    job.refresh_from_db()
    assert job.state == State.CHECKED


def test_another_teachers_import_is_404_and_students_get_403(
    client, teacher, other_teacher, student, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    urls = [
        reverse("content:package_import_detail", args=[job.pk]),
        reverse("content:package_import_status", args=[job.pk]),
    ]
    client.force_login(other_teacher)
    for url in urls:
        assert client.get(url).status_code == 404
    assert client.post(reverse("content:package_import_confirm", args=[job.pk])).status_code == 404
    client.force_login(student)
    assert client.get(reverse("content:package_import_start")).status_code == 403
    assert client.get(reverse("content:symbol_set_package", args=[symbol_set.pk])).status_code == 403


def test_a_symbol_set_downloads_as_a_package_from_its_page(client, teacher, other_teacher, symbol_set):
    client.force_login(teacher)
    page = client.get(reverse("admin:content_symbolset_change", args=[symbol_set.pk])).content.decode()
    url = reverse("content:symbol_set_package", args=[symbol_set.pk])
    assert url in page
    response = client.get(url)
    assert response["Content-Disposition"].startswith(
        'attachment; filename="talia-symbol-set-znaki-1944.zip"'
    )
    assert manifest(b"".join(response.streaming_content))["symbol_sets"][0]["name"] == "Znaki 1944"
    client.force_login(other_teacher)  # a private set of another teacher
    assert client.get(url).status_code == 404


def test_the_admin_action_exports_questions_with_the_boards_chosen(client, teacher):
    question = KnowledgeQuestionFactory(owner=teacher, front="Która?", category="letter", answer=["A"])
    board = KnowledgeBoard.objects.get(owner__isnull=True)
    client.force_login(teacher)
    url = reverse("admin:content_knowledgequestion_changelist")
    form = {"action": "export_package", "_selected_action": [question.pk]}
    page = client.post(url, form).content.decode()
    assert "Boards to include" in page and board.name in page
    response = client.post(url, {**form, "talia_package": "1", "boards": [board.pk]})
    data = manifest(b"".join(response.streaming_content))
    assert [q["front"] for q in data["knowledge_questions"]] == ["Która?"]
    assert [b["name"] for b in data["knowledge_boards"]] == [board.name]


# --- The stable identifier ------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_every_existing_row_its_own_identifier():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    try:
        before = [("content", "0011_opaque_media_names"), ("quiz", "0002_review_source")]
        after = [("content", "0014_package_import"), ("quiz", "0004_quiz_uid_unique")]
        executor = MigrationExecutor(connection)
        executor.migrate(before)
        old = executor.loader.project_state(before).apps
        user = old.get_model("lms", "User").objects.create(username="old-teacher", role="teacher")
        collection = old.get_model("content", "Collection").objects.create(slug="old", name="Old")
        Symbol_ = old.get_model("content", "Symbol")
        for number in (1, 2, 3):
            Symbol_.objects.create(
                collection=collection, number=number, name=f"S{number}", description="d", owner=user
            )
        old.get_model("content", "ActivityCard").objects.create(owner=user)
        old.get_model("quiz", "Quiz").objects.create(
            owner=user, title="Q", source="selection", seed=1, code="OLD001"
        )

        executor = MigrationExecutor(connection)
        executor.migrate(after)
        # The models as they were after the migration: today's have columns added since.
        migrated = executor.loader.project_state(after).apps
        uids = list(migrated.get_model("content", "Symbol").objects.values_list("uid", flat=True))
        assert len(uids) == 3 and None not in uids and len(set(uids)) == 3
        assert migrated.get_model("content", "ActivityCard").objects.get().uid is not None
        assert migrated.get_model("quiz", "Quiz").objects.get(code="OLD001").uid is not None
        json.dumps([str(u) for u in uids])  # plain UUIDs, as a manifest writes them
    finally:
        # Back to the newest schema: the database is shared by the tests that follow.
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def test_the_upload_page_lists_ones_own_imports_and_all_of_them_for_an_admin(
    client, teacher, other_teacher, symbol_set, django_capture_on_commit_callbacks
):
    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    detail = reverse("content:package_import_detail", args=[job.pk])
    client.force_login(teacher)
    assert detail in client.get(reverse("content:package_import_start")).content.decode()
    client.force_login(other_teacher)
    assert detail not in client.get(reverse("content:package_import_start")).content.decode()
    client.force_login(AdminFactory())
    page = client.get(reverse("content:package_import_start")).content.decode()
    assert detail in page and teacher.username in page


@pytest.mark.parametrize(
    ("changelist", "part"),
    [
        ("admin:content_symbolset_changelist", "symbol_sets"),
        ("admin:content_activitycard_changelist", "activity_cards"),
        ("admin:content_knowquestion_changelist", "know_questions"),
        ("admin:content_knowledgeboard_changelist", "knowledge_boards"),
    ],
)
def test_the_admin_action_exports_the_selected_items(client, teacher, symbol_set, changelist, part):
    _cards(teacher)
    KnowQuestion.objects.create(owner=teacher, text="Kto?", answers=["Ja"])
    KnowledgeBoard.objects.create(
        owner=teacher, name="Moja", spaces=KnowledgeBoard.objects.get().spaces, opponent_start=20
    )
    model = {
        "symbol_sets": SymbolSet,
        "activity_cards": ActivityCard,
        "know_questions": KnowQuestion,
        "knowledge_boards": KnowledgeBoard,
    }[part]
    chosen = model.objects.filter(owner=teacher).order_by("pk").first()
    client.force_login(teacher)
    response = client.post(reverse(changelist), {"action": "export_package", "_selected_action": [chosen.pk]})
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    data = manifest(b"".join(response.streaming_content))
    assert [entry["uid"] for entry in data[part]] == [str(chosen.uid)]


def test_the_write_shows_its_progress_outside_its_transaction(
    teacher, symbol_set, django_capture_on_commit_callbacks, monkeypatch
):
    from content.imports import import_job_progress

    data = exported(services.symbol_sets_export(user=teacher, queryset=SymbolSet.objects.all()))
    installation_empty()
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    seen = []
    original = sections.SymbolSetSection.write

    def write(self, item, ctx, *, copy):
        seen.append(import_job_progress(PackageImport.objects.get(pk=job.pk)))
        return original(self, item, ctx, copy=copy)

    monkeypatch.setattr(sections.SymbolSetSection, "write", write)
    with django_capture_on_commit_callbacks(execute=True):
        services.package_import_confirm(job=job, user=teacher, choices={})
    # Checked again (the first half), three symbols written of four items: 50 + 75 / 2.
    assert seen == [87]
    job.refresh_from_db()
    assert job.state == State.DONE and import_job_progress(job) == 100
