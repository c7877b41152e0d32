"""``manage.py deck_plane N`` and ``manage.py deck_build --symbol-set SLUG --out DIR``."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from pypdf import PdfReader

from content.models import BuildState, Deck
from tests.content.test_building import assert_one_shared, make_set

MANAGE = Path(settings.BASE_DIR) / "manage.py"


def deck_plane(order: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(MANAGE), "deck_plane", order],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_deck_plane_7_prints_the_57_cards_of_8_points():
    out = io.StringIO()
    call_command("deck_plane", "7", stdout=out)

    cards = json.loads(out.getvalue())
    assert len(cards) == 57 and all(len(card) == 8 for card in cards)
    assert sorted({p for card in cards for p in card}) == list(range(57))
    for a, b in combinations(cards, 2):
        assert len(set(a) & set(b)) == 1


def test_deck_plane_of_an_order_with_no_plane_exits_2_naming_the_nearest_orders():
    with pytest.raises(CommandError) as caught:
        call_command("deck_plane", "6", stdout=io.StringIO())
    assert caught.value.returncode == 2
    assert "The nearest orders that work are 5 and 7." in str(caught.value)

    result = deck_plane("6")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "There is no ZnajZnak deck of order 6" in result.stderr
    assert "5 and 7" in result.stderr


def test_deck_plane_runs_from_the_shell():
    result = deck_plane("2")
    assert result.returncode == 0, result.stderr
    cards = json.loads(result.stdout)
    assert len(cards) == 7 and all(len(card) == 3 for card in cards)
    assert sorted({p for card in cards for p in card}) == list(range(7))
    lines = result.stdout.splitlines()
    assert (lines[0], lines[-1], len(lines)) == ("[", "]", 9)  # one card per line


@pytest.mark.django_db
def test_deck_build_writes_deck_json_and_the_pdfs(teacher, tmp_path):
    symbol_set = make_set(57, owner=teacher, slug="znajznak-demo-57")
    out = tmp_path / "out"
    stdout = io.StringIO()

    call_command(
        "deck_build",
        "--symbol-set",
        "znajznak-demo-57",
        "--out",
        str(out),
        "--sets",
        "7",
        stdout=stdout,
        stderr=io.StringIO(),
    )

    assert sorted(p.name for p in out.iterdir()) == ["auxiliary-cards.pdf", "deck.json", "game-cards.pdf"]
    document = json.loads((out / "deck.json").read_text(encoding="utf-8"))
    assert document["order"] == 7 and document["symbols_per_card"] == 8
    assert len(document["cards"]) == 57
    assert_one_shared(document["cards"])
    assert {n for card in document["cards"] for n in card} == set(range(1, 58))
    assert [s["label"] for s in document["sets"]] == list("ABCDEFG")
    assert sum(len(s["cards"]) for s in document["sets"]) == 57
    assert document["symbol_set"]["slug"] == symbol_set.slug
    game = PdfReader(out / "game-cards.pdf")
    auxiliary = PdfReader(out / "auxiliary-cards.pdf")
    assert len(game.pages) >= 2 and len(auxiliary.pages) >= 2
    deck = Deck.objects.get()
    assert deck.state == BuildState.DONE and deck.owner == teacher
    assert str(out / "deck.json") in stdout.getvalue()


@pytest.mark.django_db
def test_deck_build_without_pdfs_and_with_options(teacher, tmp_path):
    make_set(133, owner=teacher, slug="ipn")
    out = tmp_path / "out"
    call_command(
        "deck_build",
        "--symbol-set",
        "ipn",
        "--out",
        str(out),
        "--cards",
        "132",
        "--sets",
        "13",
        "--labels",
        "A B C D E F G H I J K L N",
        "--seed",
        "3",
        "--no-pdf",
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )

    document = json.loads((out / "deck.json").read_text(encoding="utf-8"))
    assert document["order"] == 11 and len(document["cards"]) == 132
    assert document["seed"] == 3
    assert [s["label"] for s in document["sets"]][-2:] == ["L", "N"]
    assert [p.name for p in out.iterdir()] == ["deck.json"]


@pytest.mark.django_db
def test_deck_build_says_what_is_wrong(teacher, tmp_path):
    make_set(57, owner=teacher, slug="small")
    tmp_path = tmp_path / "out"
    with pytest.raises(CommandError, match="There is no symbol set 'nope'"):
        call_command("deck_build", "--symbol-set", "nope", "--out", str(tmp_path))
    with pytest.raises(CommandError, match="There is no user 'ghost'"):
        call_command("deck_build", "--symbol-set", "small", "--out", str(tmp_path), "--user", "ghost")
    with pytest.raises(CommandError) as caught:
        call_command(
            "deck_build", "--symbol-set", "small", "--out", str(tmp_path), "--order", "6", "--bleed-mm", "9"
        )
    message = str(caught.value)
    assert message.startswith("The deck was not built:")
    assert "order: There is no ZnajZnak deck of order 6" in message
    assert "bleed_mm: The bleed must be from 0 to 5 mm" in message
    assert Deck.objects.count() == 0
    assert not tmp_path.exists()
