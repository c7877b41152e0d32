"""The school's library (content/library.py): publishing, finding, copying, unpublishing."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.core.files.storage import default_storage
from django.db import DatabaseError

from content import library
from content.models import (
    ActivityCard,
    KnowledgeBoard,
    KnowledgeQuestion,
    LibraryEntry,
    Period,
    Status,
    Symbol,
    SymbolSet,
    Visibility,
)
from content.packages import sections
from tests.factories import (
    ActivityCardFactory,
    CollectionFactory,
    KnowledgeQuestionFactory,
    SymbolFactory,
    ThemeFactory,
    symbol_set_with,
)

from .packaging import picture_set, png_bytes

Kind = LibraryEntry.Kind


@pytest.fixture
def symbol_set(teacher):
    """The teacher's set: a published symbol with a picture and a draft symbol."""
    collection = CollectionFactory(slug="znaki-szkoly", name="Znaki naszej szkoły")
    people = ThemeFactory(slug="ludzie", name="Ludzie")
    shown = SymbolFactory(owner=teacher, collection=collection, number=7, name="Kotwica")
    shown.themes.set([people])
    shown.periods.set([Period.objects.get(slug="ii-wojna-swiatowa")])
    picture_set(shown, png_bytes())
    draft = SymbolFactory(
        owner=teacher, collection=collection, number=2, name="Stocznia", status=Status.DRAFT
    )
    return symbol_set_with([shown, draft], owner=teacher, name="Znaki 1944", slug="znaki-1944")


def _publish_set(teacher, symbol_set, **kwargs):
    values = {"title": "Znaki 1944", "language": "pl", **kwargs}
    return library.library_publish(
        user=teacher, kind=Kind.SYMBOL_SET, rows={"symbol_sets": [symbol_set.pk]}, **values
    )


def test_publish_proposes_the_sets_themes_periods_and_language(teacher, symbol_set):
    initial = library.library_publish_initial(user=teacher, rows={"symbol_sets": [symbol_set.pk]})

    assert initial["title"] == "Znaki 1944"
    assert initial["language"] == "pl"
    assert initial["themes"] == [symbol_set.symbols.get(number=7).themes.get().pk]
    assert set(initial["periods"]) == set(
        Period.objects.filter(symbols__symbol_sets=symbol_set).values_list("pk", flat=True)
    )


def test_only_the_owner_publishes_their_content(teacher, other_teacher, symbol_set):
    with pytest.raises(library.LibraryError, match="only your own content"):
        _publish_set(other_teacher, symbol_set)
    assert not LibraryEntry.objects.exists()


def test_a_student_cannot_publish_or_search(student, symbol_set):
    with pytest.raises(PermissionDenied):
        _publish_set(student, symbol_set)
    with pytest.raises(PermissionDenied):
        library.library_entries(user=student)


def test_an_entry_needs_a_title(teacher, symbol_set):
    with pytest.raises(library.LibraryError, match="title"):
        _publish_set(teacher, symbol_set, title="  ")


def test_entries_are_found_by_game_theme_period_language_and_text(teacher, other_teacher, symbol_set):
    people = ThemeFactory(slug="ludzie")
    war = Period.objects.get(slug="ii-wojna-swiatowa")
    entry = _publish_set(teacher, symbol_set, themes=[people], periods=[war], description="Na 1 sierpnia")
    cards = library.library_publish(
        user=teacher,
        kind=Kind.ACTIVITY_CARDS,
        rows={"activity_cards": [ActivityCardFactory(owner=teacher).pk]},
        title="Cards in English",
        language="en",
    )

    def found(**filters):
        return list(library.library_entries(user=other_teacher, **filters))

    assert found() == [cards, entry]
    assert found(kind=Kind.SYMBOL_SET) == [entry]
    assert found(theme=people) == [entry]
    assert found(period=war) == [entry]
    assert found(period=Period.objects.get(slug="prl")) == []
    assert found(language="en") == [cards]
    assert found(text="sierpnia") == [entry]


def test_a_copy_of_a_set_is_the_teachers_private_draft_and_names_its_entry(
    teacher, other_teacher, symbol_set
):
    entry = _publish_set(teacher, symbol_set)

    _entry, written = library.library_copy(user=other_teacher, entry_id=entry.pk)

    copy = SymbolSet.objects.get(pk__in=written["symbol_sets"])
    assert copy.owner == other_teacher
    assert copy.visibility == Visibility.PRIVATE
    assert copy.copied_from == entry
    assert copy.uid != symbol_set.uid
    assert copy.slug != symbol_set.slug
    names = [s.name for s in copy.symbols.order_by("memberships__position")]
    assert names == ["Kotwica", "Stocznia"]


def test_a_set_copy_uses_the_symbols_the_teacher_sees_and_copies_the_drafts(
    teacher, other_teacher, symbol_set
):
    entry = _publish_set(teacher, symbol_set)

    _entry, written = library.library_copy(user=other_teacher, entry_id=entry.pk)

    copy = SymbolSet.objects.get(pk__in=written["symbol_sets"])
    shared = Symbol.objects.get(owner=teacher, number=7)
    assert shared in copy.symbols.all()  # the same published symbol: its number stays 007
    copied = copy.symbols.get(name="Stocznia")
    assert copied.owner == other_teacher
    assert copied.status == Status.DRAFT
    assert copied.copied_from == entry
    assert written["symbols"] == [copied.pk]


def test_a_copied_symbols_picture_is_a_file_of_its_own(teacher, other_teacher, symbol_set):
    draft_with_picture = Symbol.objects.get(number=7)
    Symbol.objects.filter(pk=draft_with_picture.pk).update(status=Status.DRAFT)
    entry = _publish_set(teacher, symbol_set)

    _entry, written = library.library_copy(user=other_teacher, entry_id=entry.pk)

    copied = Symbol.objects.get(pk__in=written["symbols"], name="Kotwica")
    assert copied.picture.name != draft_with_picture.picture.name
    assert default_storage.exists(copied.picture.name)


def test_activity_cards_knowledge_questions_and_boards_are_copied(teacher, other_teacher):
    card = ActivityCardFactory(owner=teacher, title="Wojna", status=Status.DRAFT)
    question = KnowledgeQuestionFactory(owner=teacher, status=Status.DRAFT)
    default = KnowledgeBoard.objects.get()
    board = KnowledgeBoard.objects.create(
        owner=teacher,
        name="Plansza klasy 7b",
        spaces=default.spaces,
        finish=default.finish,
        opponent_start=default.opponent_start,
        opponent_start_hard=default.opponent_start_hard,
    )
    cards = library.library_publish(
        user=teacher, kind=Kind.ACTIVITY_CARDS, rows={"activity_cards": [card.pk]}, title="Karty"
    )
    knowledge_rows = {"knowledge_questions": [question.pk], "knowledge_boards": [board.pk]}
    knowledge = library.library_publish(
        user=teacher, kind=Kind.KNOWLEDGE, rows=knowledge_rows, title="Pytania"
    )

    library.library_copy(user=other_teacher, entry_id=cards.pk)
    library.library_copy(user=other_teacher, entry_id=knowledge.pk)

    copied_card = ActivityCard.objects.get(owner=other_teacher)
    assert (copied_card.title, copied_card.copied_from) == ("Wojna", cards)
    assert [t.text for t in copied_card.terms.order_by("slot")] == [
        t.text for t in card.terms.order_by("slot")
    ]
    copied_question = KnowledgeQuestion.objects.get(owner=other_teacher)
    assert (copied_question.front, copied_question.copied_from) == (question.front, knowledge)
    copied_board = KnowledgeBoard.objects.get(owner=other_teacher)
    assert (copied_board.name, copied_board.spaces, copied_board.copied_from) == (
        "Plansza klasy 7b",
        board.spaces,
        knowledge,
    )
    assert copied_board.status == Status.DRAFT


def test_an_entry_holds_only_the_content_of_its_game(teacher):
    card = ActivityCardFactory(owner=teacher)
    with pytest.raises(library.LibraryError, match="nothing to publish"):
        library.library_publish(
            user=teacher, kind=Kind.KNOW_QUESTIONS, rows={"activity_cards": [card.pk]}, title="Pomylone"
        )
    assert not LibraryEntry.objects.exists()


def test_an_unpublished_or_missing_entry_is_not_copied(teacher, other_teacher, symbol_set):
    entry = _publish_set(teacher, symbol_set)
    library.library_unpublish(user=teacher, entry=entry)

    with pytest.raises(library.LibraryError, match="not in the library"):
        library.library_copy(user=other_teacher, entry_id=entry.pk)
    with pytest.raises(library.LibraryError, match="not in the library"):
        library.library_copy(user=other_teacher, entry_id=entry.pk + 1000)
    assert not SymbolSet.objects.filter(owner=other_teacher).exists()


def test_a_copy_that_fails_midway_leaves_nothing_written(teacher, other_teacher, symbol_set, monkeypatch):
    Symbol.objects.filter(number=7).update(status=Status.DRAFT)  # its picture is copied too
    entry = _publish_set(teacher, symbol_set)
    files_before = set(default_storage.listdir("symbols")[1])

    def refuse(*args, **kwargs):
        raise DatabaseError("the disk is full")

    monkeypatch.setattr(sections.SymbolSetSection, "write", refuse)
    with pytest.raises(DatabaseError):
        library.library_copy(user=other_teacher, entry_id=entry.pk)

    assert not Symbol.objects.filter(owner=other_teacher).exists()
    assert not SymbolSet.objects.filter(owner=other_teacher).exists()
    assert set(default_storage.listdir("symbols")[1]) == files_before


def test_unpublishing_keeps_the_copies(teacher, other_teacher, symbol_set):
    entry = _publish_set(teacher, symbol_set)
    _entry, written = library.library_copy(user=other_teacher, entry_id=entry.pk)

    library.library_unpublish(user=teacher, entry=entry)

    copy = SymbolSet.objects.get(pk__in=written["symbol_sets"])
    assert copy.copied_from == entry
    assert list(library.library_entries(user=other_teacher)) == []


def test_only_the_publisher_unpublishes(teacher, other_teacher, symbol_set):
    entry = _publish_set(teacher, symbol_set)
    with pytest.raises(PermissionDenied):
        library.library_unpublish(user=other_teacher, entry=entry)
    entry.refresh_from_db()
    assert entry.published


def test_an_entry_whose_content_was_deleted_copies_nothing(teacher, other_teacher):
    card = ActivityCardFactory(owner=teacher)
    entry = library.library_publish(
        user=teacher, kind=Kind.ACTIVITY_CARDS, rows={"activity_cards": [card.pk]}, title="Karty"
    )
    card.delete()

    with pytest.raises(library.LibraryError, match="holds nothing"):
        library.library_copy(user=other_teacher, entry_id=entry.pk)
