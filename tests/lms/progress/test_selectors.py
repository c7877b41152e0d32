"""Labels of memory items: keys that name no row are left out, never crashed on."""

from __future__ import annotations

from lms.progress.selectors import items_describe
from tests.factories import SymbolFactory


def test_item_keys_with_a_non_ascii_digit_are_left_out(db):
    symbol = SymbolFactory(name="Kotwica")
    # '³'.isdigit() is true but int('³') fails.
    items = items_describe([f"symbol:{symbol.pk}", "symbol:³", "symbol:x"])
    assert list(items) == [f"symbol:{symbol.pk}"]
