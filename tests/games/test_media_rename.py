"""``manage.py media_rename_old``: files stored before private media move to opaque names,
with every stored copy of their names (games/media_rename.py). Real files in the test's
own MEDIA_ROOT."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.core.management.base import CommandError

from content.media import private_folder
from content.models import Deck, ImportJob, Symbol
from games import media_rename
from games.models import GameSession
from games.quiz.models import Quiz, QuizItem
from tests.factories import SymbolFactory, symbol_set_with

pytestmark = pytest.mark.django_db

OLD_PICTURE = "symbols/ipn/jozef-pilsudski.png"
OPAQUE = re.compile(r"^symbols/[A-Za-z0-9_-]{24}\.png$")


def stored(name: str, data: bytes) -> str:
    saved = default_storage.save(name, ContentFile(data))
    assert saved == name
    return name


@pytest.fixture
def old_files(teacher):
    """Rows as they were before private media: telling and numbered names."""
    symbol = SymbolFactory(owner=teacher, name="Józef Piłsudski")
    Symbol.objects.filter(pk=symbol.pk).update(picture=stored(OLD_PICTURE, b"picture"))
    deck = Deck.objects.create(
        name="Deck", owner=teacher, symbol_set=symbol_set_with([symbol], owner=teacher)
    )
    folder = f"decks/{deck.pk}/"
    files = {
        "deck.json": stored(folder + "deck.json", b"{}"),
        "game-cards.pdf": stored(folder + "game-cards.pdf", b"%PDF"),
    }
    copy = stored(folder + "pictures/001.png", b"deck picture")
    Deck.objects.filter(pk=deck.pk).update(
        files=files, snapshot={"symbols": [{"number": 1, "picture": copy}]}, plan={"cards": [[1]]}
    )
    job = ImportJob.objects.create(
        kind=ImportJob._meta.get_field("kind").choices[0][0],
        user=teacher,
        data_file=stored("imports/2026/11/symbole.csv", b"number,name"),
    )
    session = GameSession.objects.create(
        facilitator=teacher,
        game="znajznak",
        variant="duel",
        setup={},
        seed=1,
        assets={"pictures": {"001": copy, "002": OLD_PICTURE}, "symbols": {"001": symbol.pk}},
    )
    quiz = Quiz.objects.create(owner=teacher, title="Quiz", source=Quiz.Source.SELECTION, seed=1)
    item = QuizItem.objects.create(
        quiz=quiz, position=1, kind="picture_name", prompt={}, key={"pictures": {"a1": OLD_PICTURE}}
    )
    return {"symbol": symbol, "deck": deck, "job": job, "session": session, "item": item}


def names_now(rows: dict) -> tuple:
    deck = Deck.objects.get(pk=rows["deck"].pk)
    return (
        Symbol.objects.get(pk=rows["symbol"].pk).picture.name,
        deck.files,
        deck.snapshot,
        ImportJob.objects.get(pk=rows["job"].pk).data_file.name,
        GameSession.objects.get(pk=rows["session"].pk).assets,
        QuizItem.objects.get(pk=rows["item"].pk).key,
    )


def rename(*args: str) -> str:
    out = StringIO()
    call_command("media_rename_old", *args, stdout=out)
    return out.getvalue()


def test_old_names_become_opaque_and_every_copy_of_them_follows(old_files):
    output = rename()

    assert "Moved 5 file(s): 3 row(s) and 2 game session(s) or quiz item(s)" in output
    symbol = Symbol.objects.get(pk=old_files["symbol"].pk)
    assert OPAQUE.match(symbol.picture.name)
    assert symbol.picture.read() == b"picture"
    assert not default_storage.exists(OLD_PICTURE)

    deck = Deck.objects.get(pk=old_files["deck"].pk)
    folder = private_folder("decks", deck.pk)
    assert deck.files == {"deck.json": f"{folder}/deck.json", "game-cards.pdf": f"{folder}/game-cards.pdf"}
    assert deck.snapshot == {"symbols": [{"number": 1, "picture": f"{folder}/pictures/001.png"}]}
    with default_storage.open(f"{folder}/pictures/001.png") as moved:
        assert moved.read() == b"deck picture"
    assert not default_storage.exists(f"decks/{deck.pk}/deck.json")
    assert not default_storage.exists(f"decks/{deck.pk}/pictures/001.png")

    job = ImportJob.objects.get(pk=old_files["job"].pk)
    assert re.match(r"^imports/[A-Za-z0-9_-]{24}\.csv$", job.data_file.name)
    assert job.data_file.read() == b"number,name"

    session = GameSession.objects.get(pk=old_files["session"].pk)
    assert session.assets["pictures"] == {"001": f"{folder}/pictures/001.png", "002": symbol.picture.name}
    assert session.assets["symbols"] == {"001": symbol.pk}
    assert QuizItem.objects.get(pk=old_files["item"].pk).key == {"pictures": {"a1": symbol.picture.name}}


def test_running_it_again_finds_nothing_to_do(old_files):
    rename()
    before = names_now(old_files)

    assert "Moved 0 file(s): 0 row(s)" in rename()
    assert names_now(old_files) == before
    assert default_storage.exists(before[0])


def test_a_dry_run_lists_what_would_move_and_changes_nothing(old_files):
    before = names_now(old_files)

    output = rename("--dry-run")

    assert f"{OLD_PICTURE} -> symbols/" in output
    assert "Dry run: 5 file(s) of 3 row(s) would move" in output
    assert names_now(old_files) == before
    assert default_storage.exists(OLD_PICTURE)


def test_a_row_whose_file_is_missing_keeps_its_name(teacher):
    symbol = SymbolFactory(owner=teacher)
    Symbol.objects.filter(pk=symbol.pk).update(picture="symbols/ipn/gone.png")

    assert "missing, left as it is: symbols/ipn/gone.png" in rename()
    assert Symbol.objects.get(pk=symbol.pk).picture.name == "symbols/ipn/gone.png"


def test_a_batch_that_fails_keeps_its_old_names_and_files_and_a_second_run_finishes(old_files, monkeypatch):
    before = names_now(old_files)
    copies_before = default_storage.listdir("symbols")

    def broken(moves):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(media_rename, "_rewrite_references", broken)
    with pytest.raises(CommandError, match="failed and keep their old names"):
        call_command("media_rename_old", "--batch-size", "1", stdout=StringIO(), stderr=StringIO())

    assert names_now(old_files) == before  # every row still names the old files ...
    for name in (OLD_PICTURE, "imports/2026/11/symbole.csv", f"decks/{old_files['deck'].pk}/deck.json"):
        assert default_storage.exists(name)  # ... which are all there
    assert default_storage.listdir("symbols") == copies_before  # the copies were removed

    monkeypatch.undo()
    rename()
    assert OPAQUE.match(Symbol.objects.get(pk=old_files["symbol"].pk).picture.name)


def test_a_deck_half_moved_by_the_former_migration_is_made_whole(old_files):
    """The former data migration moved a deck's files but not its picture copies, and
    pointed the sessions at where the copies should have gone."""
    deck = old_files["deck"]
    folder = private_folder("decks", deck.pk)
    for name in ("deck.json", "game-cards.pdf"):
        with default_storage.open(f"decks/{deck.pk}/{name}") as old:
            stored(f"{folder}/{name}", old.read())
        default_storage.delete(f"decks/{deck.pk}/{name}")
    Deck.objects.filter(pk=deck.pk).update(
        files={"deck.json": f"{folder}/deck.json", "game-cards.pdf": f"{folder}/game-cards.pdf"}
    )
    broken = f"{folder}/pictures/001.png"
    GameSession.objects.filter(pk=old_files["session"].pk).update(assets={"pictures": {"001": broken}})
    assert not default_storage.exists(broken)

    rename()

    assert Deck.objects.get(pk=deck.pk).snapshot["symbols"][0]["picture"] == broken
    with default_storage.open(broken) as picture:
        assert picture.read() == b"deck picture"
