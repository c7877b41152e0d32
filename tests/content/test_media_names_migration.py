"""The data migration that moves files stored before private media to opaque names
(content/migrations/0011_opaque_media_names.py), and every stored reference with them."""

from __future__ import annotations

import importlib
import re

import pytest
from django.apps import apps
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from content.media import private_folder
from content.models import Deck, ImportJob, Symbol
from games.models import GameSession
from games.quiz.models import Quiz, QuizItem
from tests.factories import SymbolFactory, symbol_set_with

migration = importlib.import_module("content.migrations.0011_opaque_media_names")
OPAQUE = re.compile(r"^symbols/[A-Za-z0-9_-]{24}\.png$")


def stored(name: str, data: bytes) -> str:
    saved = default_storage.save(name, ContentFile(data))
    assert saved == name
    return name


@pytest.fixture
def old_files(teacher):
    """Rows as they were before private media: telling and numbered names."""
    symbol = SymbolFactory(owner=teacher, name="Józef Piłsudski")
    old_picture = stored("symbols/ipn/jozef-pilsudski.png", b"picture")
    Symbol.objects.filter(pk=symbol.pk).update(picture=old_picture)
    deck = Deck.objects.create(
        name="Deck", owner=teacher, symbol_set=symbol_set_with([symbol], owner=teacher)
    )
    folder = f"decks/{deck.pk}/"
    files = {
        "deck.json": stored(folder + "deck.json", b"{}"),
        "game-cards.pdf": stored(folder + "game-cards.pdf", b"%PDF"),
    }
    deck_picture = stored(folder + "pictures/001.png", b"deck picture")
    Deck.objects.filter(pk=deck.pk).update(
        files=files, plan={"pictures": {"1": deck_picture}, "cards": [[1]]}
    )
    table = stored("imports/2026/11/symbole.csv", b"number,name")
    job = ImportJob.objects.create(
        kind=ImportJob._meta.get_field("kind").choices[0][0], user=teacher, data_file=table
    )
    session = GameSession.objects.create(
        facilitator=teacher,
        game="znajznak",
        variant="duel",
        setup={},
        seed=1,
        assets={"pictures": {"001": old_picture, "002": deck_picture}, "symbols": {"001": symbol.pk}},
    )
    quiz = Quiz.objects.create(owner=teacher, title="Quiz", source=Quiz.Source.SELECTION, seed=1)
    item = QuizItem.objects.create(
        quiz=quiz, position=1, kind="picture_name", prompt={}, key={"pictures": {"a1": old_picture}}
    )
    return {"symbol": symbol, "deck": deck, "job": job, "session": session, "item": item}


def names_now(rows: dict) -> tuple:
    return (
        Symbol.objects.get(pk=rows["symbol"].pk).picture.name,
        Deck.objects.get(pk=rows["deck"].pk).files,
        ImportJob.objects.get(pk=rows["job"].pk).data_file.name,
        GameSession.objects.get(pk=rows["session"].pk).assets,
    )


def run() -> None:
    migration.opaque_media_names(apps, None)


@pytest.mark.django_db
def test_old_names_become_opaque_and_every_reference_follows(old_files):
    run()
    symbol = Symbol.objects.get(pk=old_files["symbol"].pk)
    assert OPAQUE.match(symbol.picture.name)
    assert symbol.picture.read() == b"picture"
    assert not default_storage.exists("symbols/ipn/jozef-pilsudski.png")

    deck = Deck.objects.get(pk=old_files["deck"].pk)
    folder = private_folder("decks", deck.pk)
    assert deck.files == {"deck.json": f"{folder}/deck.json", "game-cards.pdf": f"{folder}/game-cards.pdf"}
    assert deck.plan == {"pictures": {"1": f"{folder}/pictures/001.png"}, "cards": [[1]]}
    with default_storage.open(f"{folder}/game-cards.pdf") as moved:
        assert moved.read() == b"%PDF"
    assert not default_storage.exists(f"decks/{deck.pk}/deck.json")

    job = ImportJob.objects.get(pk=old_files["job"].pk)
    assert re.match(r"^imports/[A-Za-z0-9_-]{24}\.csv$", job.data_file.name)
    assert job.data_file.read() == b"number,name"

    session = GameSession.objects.get(pk=old_files["session"].pk)
    assert session.assets["pictures"] == {"001": symbol.picture.name, "002": f"{folder}/pictures/001.png"}
    assert session.assets["symbols"] == {"001": symbol.pk}
    assert QuizItem.objects.get(pk=old_files["item"].pk).key == {"pictures": {"a1": symbol.picture.name}}


@pytest.mark.django_db
def test_running_it_again_changes_nothing(old_files):
    run()
    before = names_now(old_files)
    run()
    after = names_now(old_files)
    assert after == before
    assert default_storage.exists(after[0])


@pytest.mark.django_db
def test_a_row_whose_file_is_missing_keeps_its_name(teacher):
    symbol = SymbolFactory(owner=teacher)
    Symbol.objects.filter(pk=symbol.pk).update(picture="symbols/ipn/gone.png")
    run()
    assert Symbol.objects.get(pk=symbol.pk).picture.name == "symbols/ipn/gone.png"
