"""Naming a symbol: when a typed name counts as the symbol's name.

ZnajZnak is played aloud at the table ("points to the symbol on their card and names
it"); on screen the player picks the symbol and types its name.  The reading of
``../shared/rules/README.md`` (ZnajZnak, naming) decides when the typed text counts:

    A typed name matches when it equals the symbol's name or one of its accepted
    alternative names, ignoring case, Polish diacritics, punctuation and extra spaces.

How each part is read here:

* case: compared after ``str.casefold`` ("CHOINKA" is "choinka");
* Polish diacritics: ą ć ę ł ń ó ś ź ż become a c e l n o s z z (ł has no Unicode
  decomposition, so it is mapped by hand; other accents are dropped the same way);
* punctuation: every punctuation mark or symbol character (. , : ; ! ? ( ) „ ” " « »
  - – — / & ...) separates words, except apostrophes, which join them;
* spaces: runs of spaces are one space, and spaces are then ignored altogether, so a
  dash may be typed as a space or left out ("Biało-Czerwona", "bialo czerwona" and
  "bialoczerwona" all match).  No two real names differ only by spacing.
* An empty name (nothing left after normalising) never matches anything.

Pure Python, standard library only.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

__all__ = ["name_matches", "normalise_name"]

#: Letters that Unicode does not decompose into a base letter and an accent.
_UNDECOMPOSABLE = str.maketrans({"ł": "l", "đ": "d", "ø": "o", "ħ": "h", "ı": "i", "æ": "ae", "œ": "oe"})

#: Apostrophes join the parts of a word ("O'Neill" is "oneill"), unlike other punctuation.
_APOSTROPHES = frozenset("'’ʼ‘`´")


def normalise_name(text: str) -> str:
    """The comparable form of a name: casefolded, without diacritics or punctuation.

    Punctuation separates words; runs of spaces become one space.

    >>> normalise_name("Choinka bożonarodzeniowa")
    'choinka bozonarodzeniowa'
    >>> normalise_name("  3. Dywizja   Strzelców Karpackich ")
    '3 dywizja strzelcow karpackich'
    >>> normalise_name("„Solidarność” — NSZZ")
    'solidarnosc nszz'
    >>> normalise_name("ŁÓDŹ")
    'lodz'
    >>> normalise_name("?!")
    ''
    """
    folded = unicodedata.normalize("NFKD", text.casefold().translate(_UNDECOMPOSABLE))
    kept: list[str] = []
    for char in folded:
        category = unicodedata.category(char)
        if category in ("Mn", "Me"):  # a combining accent: ó is o + U+0301
            continue
        if char in _APOSTROPHES:
            continue
        if category[0] in "PSZC":  # punctuation, symbols, separators, control characters
            kept.append(" ")
        else:
            kept.append(char)
    # NFKD may leave a letter that decomposes only after casefolding; fold once more.
    return " ".join("".join(kept).translate(_UNDECOMPOSABLE).split())


def _compact(text: str) -> str:
    return normalise_name(text).replace(" ", "")


def name_matches(typed: str, name: str, alternatives: Iterable[str] | None = ()) -> bool:
    """Whether ``typed`` names the symbol called ``name`` (or one of ``alternatives``).

    >>> name_matches("choinka bozonarodzeniowa", "Choinka bożonarodzeniowa")
    True
    >>> name_matches("3 dywizja strzelcow karpackich", "3. Dywizja Strzelców Karpackich")
    True
    >>> name_matches("AK", "Armia Krajowa", ["AK"])
    True
    >>> name_matches("choinka", "Choinka bożonarodzeniowa")
    False
    >>> name_matches("", "Choinka bożonarodzeniowa")
    False
    """
    wanted = _compact(typed)
    if not wanted:
        return False
    candidates = [name, *(alternatives or ())]
    return any(wanted == _compact(candidate) for candidate in candidates)
