"""A pseudo-locale: every string Talia (and Django) can translate, transformed so that a
page in it shows at a glance which text went through a catalogue and which did not.

``pseudo("Join the %(game)s game")`` gives ``"⟦Ĵöîñ ţĥé %(game)s ĝåɱé⟧"``: the letters
change, the placeholders, HTML tags and entities stay, and the markers show where each
translated string begins and ends. A page walked in this locale may still show content
(a symbol's name, a student's name, a join code), never an untransformed word of the
interface.

The source of the msgids is Talia's Polish catalogue (so a string missing from it, which
``make messages`` would add, shows up as untransformed) and the Polish catalogues of
Django and of every installed app, for the strings they contribute to Talia's pages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import polib

CODE = "qps"
OPEN, CLOSE = "⟦", "⟧"

# Kept as they are: printf- and format-style placeholders, HTML tags, entities.
_KEEP = re.compile(r"%\([^)]*\)[-#0 +]*\d*(?:\.\d+)?[sdifr]|%[sdifr%]|\{[^{}]*\}|<[^<>]*>|&#?\w+;")
_LETTERS = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "åƀçđéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇĐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ",
)


def pseudo(text: str) -> str:
    """The pseudo-translation of one msgid (empty stays empty)."""
    if not text:
        return text
    parts: list[str] = []
    position = 0
    for kept in _KEEP.finditer(text):
        parts.append(text[position : kept.start()].translate(_LETTERS))
        parts.append(kept.group())
        position = kept.end()
    parts.append(text[position:].translate(_LETTERS))
    body = "".join(parts)
    # Leading and trailing whitespace stays outside the markers, as translators keep it.
    stripped = body.strip()
    if not stripped:
        return body
    start = body.index(stripped[0])
    return body[:start] + OPEN + stripped + CLOSE + body[start + len(stripped) :]


def catalogue(sources: Iterable[Path]) -> polib.POFile:
    """One catalogue with the pseudo-translation of every msgid of ``sources`` (.po files)."""
    result = polib.POFile()
    result.metadata = {
        "Content-Type": "text/plain; charset=UTF-8",
        "Language": CODE,
        "Plural-Forms": "nplurals=2; plural=(n != 1);",
    }
    seen: set[tuple[str | None, str]] = set()
    for source in sources:
        for entry in polib.pofile(str(source)):
            key = (entry.msgctxt, entry.msgid)
            if not entry.msgid or key in seen or entry.obsolete:
                continue
            seen.add(key)
            if entry.msgid_plural:
                result.append(
                    polib.POEntry(
                        msgctxt=entry.msgctxt,
                        msgid=entry.msgid,
                        msgid_plural=entry.msgid_plural,
                        msgstr_plural={0: pseudo(entry.msgid), 1: pseudo(entry.msgid_plural)},
                    )
                )
            else:
                result.append(
                    polib.POEntry(msgctxt=entry.msgctxt, msgid=entry.msgid, msgstr=pseudo(entry.msgid))
                )
    return result


def polish_sources(domain: str, locale_dirs: Iterable[Path]) -> list[Path]:
    """The Polish ``domain`` catalogues (.po) found under ``locale_dirs``, in their order."""
    found = []
    for directory in locale_dirs:
        path = directory / "pl" / "LC_MESSAGES" / f"{domain}.po"
        if path.is_file():
            found.append(path)
    return found


def write_locale(target: Path, locale_dirs: Iterable[Path]) -> Path:
    """Compile the pseudo-locale's django.mo and djangojs.mo under ``target``/qps/."""
    directories = list(locale_dirs)
    messages = target / CODE / "LC_MESSAGES"
    messages.mkdir(parents=True, exist_ok=True)
    for domain in ("django", "djangojs"):
        catalogue(polish_sources(domain, directories)).save_as_mofile(str(messages / f"{domain}.mo"))
    return target
