"""The demo's placeholder pictures: wordless, distinct, deterministic; and demo_load puts
them in place once, replacing the old lettered ones and nothing a curator uploaded."""

from __future__ import annotations

import json
import re
from itertools import combinations
from pathlib import Path

import pytest
from django.core.files.base import ContentFile

from content.demo import placeholders
from content.demo.loader import COLLECTION, demo_content
from content.demo.placeholders import emblem, placeholder_svg
from content.models import Symbol
from content.pictures import sanitise_svg, svg_for_players

DEMO_NUMBERS = [
    row["number"]
    for row in json.loads((Path(placeholders.__file__).parent / "data" / "symbols.json").read_text())
]
ALL = range(1, len(placeholders.SHAPES) * len(placeholders.PATTERNS) + 1)


def test_the_demo_numbers_lie_within_the_range_of_distinct_emblems():
    assert DEMO_NUMBERS and set(DEMO_NUMBERS) <= set(ALL)


@pytest.mark.parametrize("number", DEMO_NUMBERS)
def test_a_placeholder_has_no_text_title_or_digits_in_words(number):
    svg = placeholder_svg(number).decode()
    for tag in ("<text", "<tspan", "<title", "<desc", "<metadata"):
        assert tag not in svg
    # Between the tags there is nothing at all: no letter, no digit.
    assert re.sub(r"<[^>]*>", "", svg).strip() == ""
    # What the player receives is the same drawing: nothing of it is cut as telling.
    assert svg_for_players(svg.encode()).count(b"<") == sanitise_svg(svg.encode()).count(b"<")


def test_placeholders_are_pairwise_distinct_in_shape_pattern_and_colour():
    looks = {number: emblem(number) for number in ALL}
    for a, b in combinations(ALL, 2):
        assert looks[a][:2] != looks[b][:2], (a, b)  # shape and pattern differ
        assert looks[a][2] != looks[b][2], (a, b)  # and the colour too
        assert placeholder_svg(a) != placeholder_svg(b)


def test_a_placeholder_is_the_same_every_time():
    assert placeholder_svg(17) == placeholder_svg(17)


@pytest.mark.django_db
def test_demo_load_puts_them_in_place_once_and_keeps_a_curators_picture(teacher):
    demo_content(owner=teacher)
    symbols = {symbol.number: symbol for symbol in Symbol.objects.filter(collection__slug=COLLECTION[0])}
    assert symbols
    first = {number: symbol.picture.name for number, symbol in symbols.items()}
    assert all(b"<text" not in symbol.picture.read() for symbol in symbols.values())

    # An old lettered placeholder, and a picture a curator uploaded.
    old, curated = symbols[DEMO_NUMBERS[0]], symbols[DEMO_NUMBERS[1]]
    old.picture.save(
        "001-placeholder.svg",
        ContentFile(
            b'<svg xmlns="http://www.w3.org/2000/svg"><title>X (placeholder picture)</title>'
            b"<text>PLACEHOLDER</text></svg>"
        ),
    )
    curated.picture.save("orzel.svg", ContentFile(sanitise_svg(placeholder_svg(999))))
    curated_name = curated.picture.name

    demo_content(owner=teacher)
    again = {symbol.number: symbol for symbol in Symbol.objects.filter(collection__slug=COLLECTION[0])}
    assert again[old.number].picture.read() == sanitise_svg(placeholder_svg(old.number))
    assert again[curated.number].picture.name == curated_name
    unchanged = set(first) - {old.number, curated.number}
    assert all(again[number].picture.name == first[number] for number in unchanged)
