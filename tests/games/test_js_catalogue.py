"""The play pages' JavaScript strings are in the Polish ``djangojs`` catalogue, translated and compiled.

``manage.py makemessages -d djangojs`` finds ``gettext("…")``, ``t("…")`` and ``ctx.t("…")``
(``games/management/commands/makemessages.py``); ``locale/pl/LC_MESSAGES/djangojs.mo`` is
what the ``javascript-catalog`` view serves.
"""

from __future__ import annotations

import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import get_commands, load_command_class

LOCALE = Path(settings.BASE_DIR) / "locale" / "pl" / "LC_MESSAGES"
SCRIPTS = [
    f"static/games/{name}.js"
    for name in (
        "live",
        "znajznak",
        "activity",
        "know",
        "knowledge",
        "classrun",
        "quiz",
        "quiz_live",
        "generic",
    )
]
#: Strings whose Polish is the same word ("Start" is the start field of Activity's board).
SAME_IN_POLISH = {"Start", "start"}
CALL = re.compile(r"""(?<![\w$])(?:ctx\.)?(?:t|gettext)\(\s*"((?:[^"\\]|\\.)*)"\s*\)""")


def strings_in(path: str) -> set[str]:
    text = (Path(settings.BASE_DIR) / path).read_text(encoding="utf-8")
    return {
        match.encode().decode("unicode_escape").encode("latin-1").decode() for match in CALL.findall(text)
    }


@pytest.fixture(scope="module")
def polish() -> gettext.GNUTranslations:
    with (LOCALE / "djangojs.mo").open("rb") as compiled:
        return gettext.GNUTranslations(compiled)


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_string_of_the_play_page_scripts_has_a_polish_translation(script, polish):
    strings = strings_in(script)
    assert strings, f"{script}: no translatable strings found (the pattern is out of date?)"
    untranslated = sorted(s for s in strings if polish.gettext(s) == s and s not in SAME_IN_POLISH)
    assert not untranslated, f"{script}: not in djangojs.mo or not translated: {untranslated}"


def test_the_placeholders_survive_translation(polish):
    for script in SCRIPTS:
        for text in strings_in(script):
            assert sorted(re.findall(r"%\(\w+\)s", polish.gettext(text))) == sorted(
                re.findall(r"%\(\w+\)s", text)
            )


def test_makemessages_reads_t_as_a_keyword_for_javascript_only(monkeypatch):
    from django.core.management.commands import makemessages

    seen: list[list[str]] = []
    monkeypatch.setattr(
        makemessages.Command, "handle", lambda self, *a, **o: seen.append(list(self.xgettext_options))
    )
    command = load_command_class(get_commands()["makemessages"], "makemessages")

    command.handle(domain="djangojs")
    command.handle(domain="django")

    assert "--keyword=t" in seen[0] and "--keyword=nt:1,2" in seen[0]
    assert "--keyword=t" not in seen[1]


PLURAL_CALL = re.compile(
    r"""(?<![\w$])(?:ctx\.)?(?:nt|ngettext)\(\s*"((?:[^"\\]|\\.)*)",\s*"((?:[^"\\]|\\.)*)","""
)


def test_every_count_in_the_scripts_has_polish_plural_forms(polish):
    """A count is shown through ``ctx.nt``/``ngettext`` with the Polish plural forms
    (1 karta, 2 karty, 5 kart), never as "1 cards" or "%(n)s points" through ``t``."""
    pairs = set()
    for script in SCRIPTS:
        pairs |= set(PLURAL_CALL.findall((Path(settings.BASE_DIR) / script).read_text(encoding="utf-8")))
    assert ("%(who)s: %(n)s card in hand", "%(who)s: %(n)s cards in hand") in pairs
    assert ("%(n)s point", "%(n)s points") in pairs
    for one, many in pairs:
        assert polish.ngettext(one, many, 1) != one, f"no Polish for {one!r}"
        assert polish.ngettext(one, many, 5) != many, f"no Polish for {many!r}"
    assert polish.ngettext("%(n)s point", "%(n)s points", 2) == "%(n)s punkty"
    assert polish.ngettext("%(n)s point", "%(n)s points", 5) == "%(n)s punktów"
    counted = re.compile(r"%\(n\)s (cards|points|players|attempts|students)\b")
    for script in SCRIPTS:
        assert not [s for s in strings_in(script) if counted.search(s)], f"{script}: a count through t()"
