"""Every string of the interface goes through a catalogue: the pages walked in a
pseudo-locale (tests/i18n/pseudo.py) show no untransformed word.

A browser that asks for the pseudo-locale gets it from Django's LocaleMiddleware as it
would get Polish, Czech or German; the pages are walked as an anonymous visitor, a
student and the teacher, with a game of each kind opened from its form and joined by a
student. Every text node (visible or waiting to be shown), every label a screen reader
reads (aria-label, title, alt, placeholder, button values) and the document's title is
read; what is left after the pseudo-translated parts and the content (the database's own
words: names of symbols, people, classes, codes) must hold no word of the interface.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import locale as django_locale
from django.db import models
from django.urls import reverse

from tests.e2e.browsing import open_page, sign_in
from tests.i18n import pseudo

pytestmark = pytest.mark.e2e

# Names that are the same in every language: the product, the games' own names, formats.
PROPER_NAMES = {
    "Talia",
    "ZnajZnak",
    "IPN",
    "QR",
    "LTI",
    "API",
    "PDF",
    "CSV",
    "JSON",
    "ZIP",
    "Moodle",
    "Canvas",
}

# Everything a person reads on a page, including what scripts keep hidden until needed.
COLLECT_TEXT = """() => {
  const out = [document.title];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const parent = node.parentElement;
    if (!parent || parent.closest('script, style, noscript, code, pre, [data-content]')) continue;
    const text = node.textContent.trim();
    if (text) out.push(text);
  }
  for (const el of document.querySelectorAll('[aria-label], [title], [alt], [placeholder]')) {
    for (const name of ['aria-label', 'title', 'alt', 'placeholder']) {
      const value = (el.getAttribute(name) || '').trim();
      if (value) out.push(value);
    }
  }
  for (const el of document.querySelectorAll('input[type=submit][value], input[type=button][value]')) {
    out.push(el.value);
  }
  return out;
}"""

_WORD = re.compile(r"[A-Za-z]{2,}")
_MARKED = re.compile(r"⟦[^⟦⟧]*⟧")
_URL = re.compile(r"\bhttps?://\S+")


def untransformed(text: str, allowed: set[str]) -> list[str]:
    """The words of ``text`` that no catalogue transformed and no content explains."""
    text = _URL.sub(" ", text)  # an address is not a sentence
    while True:  # innermost first: a translated sentence may hold a translated part
        reduced = _MARKED.sub(" ", text)
        if reduced == text:
            break
        text = reduced
    return [word for word in _WORD.findall(text) if word not in allowed]


def content_words() -> set[str]:
    """Every word stored in a text field of any row: content, names, codes."""
    words: set[str] = set()
    for model in apps.get_models():
        fields = [
            f.attname
            for f in model._meta.concrete_fields
            # Fields with choices hold keys ("duel", "lobby"), whose labels must be translated.
            if isinstance(f, models.CharField | models.TextField | models.SlugField) and not f.choices
        ]
        if not fields:
            continue
        for row in model._default_manager.values_list(*fields):
            for value in row:
                if value:
                    words.update(_WORD.findall(str(value)))
    return words


@pytest.fixture
def pseudo_locale(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The pseudo-locale, compiled from today's catalogues and offered like any language."""
    import django

    locale_dirs = [*map(Path, settings.LOCALE_PATHS), Path(django.__file__).parent / "conf" / "locale"]
    locale_dirs += [Path(app.path) / "locale" for app in apps.get_app_configs()]
    target = pseudo.write_locale(tmp_path / "locale", locale_dirs)
    monkeypatch.setitem(
        django_locale.LANG_INFO,
        pseudo.CODE,
        {"bidi": False, "code": pseudo.CODE, "name": "Pseudo", "name_local": "Pseudo"},
    )
    settings.LOCALE_PATHS = [target, *settings.LOCALE_PATHS]
    settings.LANGUAGES = [*settings.LANGUAGES, (pseudo.CODE, "Pseudo")]
    return pseudo.CODE


class Walk:
    """Pages read in the pseudo-locale, and the words in them that escaped translation."""

    def __init__(self, browsing: Any, base_url: str, allowed: set[str]) -> None:
        self.browsing = browsing
        self.base_url = base_url
        self.allowed = allowed
        self.found: dict[str, set[str]] = {}

    def page(self) -> Any:
        return self.browsing.new_page(locale=pseudo.CODE, extra_http_headers={"Accept-Language": pseudo.CODE})

    def read(self, page: Any, where: str | None = None) -> None:
        where = where or page.url.removeprefix(self.base_url)
        # Scripts that draw the page from the server's state have drawn it once loaded.
        page.wait_for_load_state("networkidle")
        allowed = self.allowed | content_words()  # read once a page: a game opened adds words
        for text in page.evaluate(COLLECT_TEXT):
            words = untransformed(text, allowed)
            if words:
                self.found.setdefault(where, set()).add(f"{' '.join(words)}  ⟵  {text[:120]!r}")
        self.browsing.problems(page)  # a 403/404 on purpose is not this test's subject

    def visit(self, page: Any, url: str) -> None:
        open_page(page, self.base_url + url)
        self.read(page)

    def report(self) -> str:
        lines = [""]
        for where, texts in sorted(self.found.items()):
            lines.append(where)
            lines += [f"    {t}" for t in sorted(texts)]
        return "\n".join(lines)


TEACHER_PAGES = (
    "home",
    "lms:classes",
    "lms:class_new",
    "games:session_new",
    "games:know_new",
    "games:knowledge_new",
    "games:activity_new",
    "games:class_new",
    "games:practice_new",
    "workshop:new",
    "quiz:list",
    "quiz:new",
    "quiz:mine",
    "decks:deck_new",
    "decks:print_new",
    "content:import_start",
    "progress:mine",
    "games:join",
)
STUDENT_PAGES = ("home", "lms:homework", "progress:mine", "games:join", "lms:join", "quiz:mine")
ANONYMOUS_PAGES = ("home", "login", "games:join")
# The forms that open a game: the teacher submits each with its defaults.
# A teacher's choice in each list the form leaves empty (a deck, a set): the first offered;
# each empty required text a made-up one (already "translated", so the walk does not flag it).
PICK_FIRST_CHOICES = """() => {
  for (const select of document.querySelectorAll('main form select')) {
    if (!select.value) {
      const first = [...select.options].find(o => o.value);
      if (first) select.value = first.value;
    }
  }
  for (const field of document.querySelectorAll('main form input[type=text][required], main form textarea[required]')) {
    if (!field.value) field.value = '⟦ţéšţ⟧';
  }
}"""
NEW_GAMES = ("games:session_new", "games:know_new", "games:knowledge_new", "games:activity_new")


def test_the_pseudo_locale_transforms_a_known_string(pseudo_locale):
    from django.utils import translation

    with translation.override(pseudo_locale):
        assert translation.gettext("Sign in") == pseudo.pseudo("Sign in")


def test_every_page_speaks_through_a_catalogue(browsing, demo_site, pseudo_locale):
    from games.models import GameSession

    walk = Walk(browsing, demo_site.url, set(PROPER_NAMES))
    language_names = {
        info.get("name_local", "") for info in django_locale.LANG_INFO.values() if "name_local" in info
    }
    walk.allowed |= {w for name in language_names for w in _WORD.findall(name)}

    anonymous = walk.page()
    for name in ANONYMOUS_PAGES:
        walk.visit(anonymous, reverse(name))

    teacher = walk.page()
    sign_in(teacher, demo_site.url, demo_site.teacher.username, demo_site.teacher.password)
    for name in TEACHER_PAGES:
        walk.visit(teacher, reverse(name))

    student = walk.page()
    login = demo_site.students[0]
    sign_in(student, demo_site.url, login.username, login.password)
    for name in STUDENT_PAGES:
        walk.visit(student, reverse(name))

    for name in NEW_GAMES:
        open_page(teacher, demo_site.url + reverse(name))
        teacher.evaluate(PICK_FIRST_CHOICES)
        before = GameSession.objects.order_by("-pk").values_list("pk", flat=True).first()
        with teacher.expect_navigation():
            teacher.locator("main form button[type=submit]").first.click()
        walk.read(teacher, f"{reverse(name)} → {teacher.url.removeprefix(demo_site.url)}")
        session = GameSession.objects.order_by("-pk").first()
        if session is None or session.pk == before:
            errors = teacher.locator("main .errors, main .errorlist").all_inner_texts()
            pytest.fail(f"{reverse(name)} with its first choices opened no game: {errors}")
        open_page(student, demo_site.url + reverse("games:join_code", args=[session.join_code]))
        walk.read(student)
        joined = student.locator("main form button[type=submit]")
        if joined.count():
            with student.expect_navigation():
                joined.first.click()
            walk.read(
                student,
                f"{session.get_game_display()} as a student: {student.url.removeprefix(demo_site.url)}",
            )

    for page in (anonymous, teacher, student):
        # The live server speaks no WebSocket: the pages fall back to polling, and their
        # failed sockets are not this test's subject.
        browsing.problems(page)
    assert not walk.found, "Text that no catalogue translated:" + walk.report()
