"""Fixtures of the print renderer's tests (helpers in ``helpers.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from content.printing.data import GameCard, PeriodData, SymbolData

from .helpers import PERIODS, make_cards, make_symbols


@pytest.fixture
def symbols(tmp_path: Path) -> dict[str, SymbolData]:
    """13 symbols: the order-3 plane, 13 cards of 4 symbols."""
    return make_symbols(tmp_path, 13)


@pytest.fixture
def cards(symbols: dict[str, SymbolData]) -> list[GameCard]:
    return make_cards(symbols, order=3)


@pytest.fixture
def periods() -> tuple[PeriodData, ...]:
    return PERIODS
