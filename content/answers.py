"""Answers of Knowledge? quiz cards: parsing what a curator types, checking, printing.

Knowledge? rulebook, The Quiz Cards: number cards mean 0–5 steps; letter cards one
of A–E; colour cards one of red, yellow, green, blue, white. A card listing several
letters or colours ("C/D") means the nearest available of these.

>>> answer_parse("letter", "c, D")
['C', 'D']
>>> answer_format("colour", answer_parse("colour", "niebieski / red"))
'red/blue'
"""

from __future__ import annotations

import re
from typing import Any

LETTERS = ("A", "B", "C", "D", "E")
COLOURS = ("red", "yellow", "green", "blue", "white")
COLOUR_NAMES = {
    "red": "red",
    "czerwony": "red",
    "czerwień": "red",
    "czerwien": "red",
    "yellow": "yellow",
    "żółty": "yellow",
    "zolty": "yellow",
    "green": "green",
    "zielony": "green",
    "blue": "blue",
    "niebieski": "blue",
    "white": "white",
    "biały": "white",
    "bialy": "white",
}
_SEPARATORS = re.compile(r"[\s,;/|]+")


class AnswerError(ValueError):
    """The answer does not fit the card's category; the message says what fits."""


def answer_parse(category: str, text: str) -> int | list[str]:
    """Turn what a curator typed (``"3"``, ``"C/D"``, ``"blue, white"``) into an answer."""
    text = (text or "").strip()
    if not text:
        raise AnswerError("Give the answer.")
    if category == "number":
        if not re.fullmatch(r"\d+", text):
            raise AnswerError(f"A number card's answer is a whole number from 0 to 5, not {text!r}.")
        return answer_validate(category, int(text))
    parts = [part for part in _SEPARATORS.split(text) if part]
    return answer_validate(category, parts)


def answer_validate(category: str, value: Any) -> int | list[str]:
    """Check an answer against its category and return it in canonical form."""
    if category == "number":
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 5:
            raise AnswerError(f"A number card's answer is a whole number from 0 to 5, not {value!r}.")
        return value
    if category not in ("letter", "colour"):
        raise AnswerError(f"Unknown category {category!r}; use number, letter or colour.")
    if isinstance(value, str):
        value = [value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise AnswerError(
            f"A {category} card's answer is "
            + (
                "one or more of A–E"
                if category == "letter"
                else "one or more of red, yellow, green, blue, white"
            )
            + f", not the number {value}."
        )
    if not isinstance(value, list) or not value:
        raise AnswerError("Give at least one answer.")
    if category == "letter":
        allowed, found = LETTERS, []
        for item in value:
            letter = str(item).strip().upper()
            if letter not in LETTERS:
                raise AnswerError(f"A letter card's answer is one or more of A–E, not {item!r}.")
            found.append(letter)
    else:
        allowed, found = COLOURS, []
        for item in value:
            colour = COLOUR_NAMES.get(str(item).strip().lower())
            if colour is None:
                raise AnswerError(
                    f"A colour card's answer is one or more of red, yellow, green, blue, white, not {item!r}."
                )
            found.append(colour)
    return [option for option in allowed if option in found]


def answer_format(category: str, value: Any) -> str:
    """The answer as printed on a card's back: ``3``, ``C/D``, ``red/blue``."""
    if isinstance(value, list):
        return "/".join(str(item) for item in value)
    return str(value)
