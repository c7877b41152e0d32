"""Every language of the interface is complete: each catalogue translates every string the
others do, with nothing left empty or fuzzy, the same placeholders as its source, the
plural forms its language needs, and a compiled .mo that matches its .po."""

from __future__ import annotations

import re
from pathlib import Path

import polib
import pytest
from django.conf import settings

LOCALE = Path(settings.BASE_DIR) / "locale"
TRANSLATED = [code for code, _ in settings.LANGUAGES if code != settings.LANGUAGE_CODE]
DOMAINS = ("django", "djangojs")
PLURAL_FORMS = {"pl": 3, "cs": 3, "de": 2}
_PLACEHOLDER = re.compile(r"%\([^)]*\)[-#0 +]*\d*(?:\.\d+)?[sdifr]|%[sdif]|\{[^{}]*\}|<[^<>]*>")


def catalogue(code: str, domain: str) -> polib.POFile:
    path = LOCALE / code / "LC_MESSAGES" / f"{domain}.po"
    assert path.is_file(), f"{path.relative_to(settings.BASE_DIR)} is missing"
    return polib.pofile(str(path))


def keys(po: polib.POFile) -> set[tuple[str | None, str]]:
    return {(e.msgctxt, e.msgid) for e in po if not e.obsolete}


def test_the_interface_offers_czech_and_german_beside_polish():
    assert {"pl", "cs", "de"} <= set(TRANSLATED)


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("code", TRANSLATED)
def test_every_entry_is_translated_and_none_is_fuzzy(code, domain):
    po = catalogue(code, domain)
    untranslated = [e.msgid for e in po.untranslated_entries()]
    fuzzy = [e.msgid for e in po.fuzzy_entries()]
    assert not untranslated, f"{code}/{domain}: {len(untranslated)} untranslated, e.g. {untranslated[:5]}"
    assert not fuzzy, f"{code}/{domain}: {len(fuzzy)} fuzzy, e.g. {fuzzy[:5]}"


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_language_translates_the_same_strings(domain):
    sets = {code: keys(catalogue(code, domain)) for code in TRANSLATED}
    first, *others = TRANSLATED
    for code in others:
        assert sets[code] == sets[first], (
            f"{domain}: only in {first}: {sorted(sets[first] - sets[code])[:5]}; "
            f"only in {code}: {sorted(sets[code] - sets[first])[:5]}"
        )


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("code", TRANSLATED)
def test_translations_keep_their_placeholders(code, domain):
    """A translation has its source's placeholders, tags included; in a plural, the forms
    for several keep every placeholder of the plural source, and the singular may say
    "one" instead of its number."""
    wrong = []
    for entry in catalogue(code, domain):
        if entry.obsolete or not entry.translated():
            continue
        if not entry.msgid_plural:
            if set(_PLACEHOLDER.findall(entry.msgstr)) != set(_PLACEHOLDER.findall(entry.msgid)):
                wrong.append(f"{entry.msgid!r} → {entry.msgstr!r}")
            continue
        allowed = set(_PLACEHOLDER.findall(entry.msgid)) | set(_PLACEHOLDER.findall(entry.msgid_plural))
        needed = set(_PLACEHOLDER.findall(entry.msgid_plural))
        for index, text in entry.msgstr_plural.items():
            found = set(_PLACEHOLDER.findall(text))
            if not found <= allowed or (int(index) > 0 and not needed <= found):
                wrong.append(f"{entry.msgid_plural!r} [{index}] → {text!r}")
    assert not wrong, f"{code}/{domain}: placeholders differ:\n" + "\n".join(wrong[:10])


@pytest.mark.parametrize("code", TRANSLATED)
def test_plural_forms_match_the_language(code):
    for domain in DOMAINS:
        po = catalogue(code, domain)
        header = po.metadata.get("Plural-Forms", "")
        assert f"nplurals={PLURAL_FORMS.get(code, 2)};" in header.replace(" ", ""), (
            f"{code}/{domain}: {header}"
        )
        for entry in po:
            if entry.msgid_plural and not entry.obsolete:
                assert len(entry.msgstr_plural) == PLURAL_FORMS.get(code, 2), f"{code}: {entry.msgid!r}"


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("code", TRANSLATED)
def test_the_compiled_catalogue_matches_its_source(code, domain):
    mo_path = LOCALE / code / "LC_MESSAGES" / f"{domain}.mo"
    assert mo_path.is_file(), f"{mo_path} is missing: manage.py compilemessages"
    compiled = {
        (e.msgctxt, e.msgid): (e.msgstr, dict(e.msgstr_plural)) for e in polib.mofile(str(mo_path)) if e.msgid
    }
    source = {
        (e.msgctxt, e.msgid): (e.msgstr, {int(k): v for k, v in e.msgstr_plural.items()})
        for e in catalogue(code, domain)
        if not e.obsolete and e.translated()
    }
    stale = [k[1] for k in source if compiled.get(k) != source[k]]
    assert not stale, f"{code}/{domain}.mo is older than its .po (compilemessages): {stale[:5]}"
