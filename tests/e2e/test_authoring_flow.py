"""A teacher signs in, opens the admin and authors; a student never gets in."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.e2e.browsing import open_page

pytestmark = pytest.mark.e2e


def save(page, button: str = "_save") -> None:
    with page.expect_navigation():
        page.locator(f"#content-main input[type=submit][name={button}]").click()


def test_teacher_authors_a_knowledge_question(browsing, teacher_page, demo_site):
    from content.models import KnowledgeQuestion

    page = teacher_page
    open_page(page, demo_site.url + "/")
    with page.expect_navigation():
        page.get_by_role("link", name="Authoring").click()
    expect(page.locator("#content-main")).to_contain_text("Knowledge? questions")
    with page.expect_navigation():
        page.locator("#content-main a[href$='/knowledgequestion/add/']").click()

    before = KnowledgeQuestion.objects.count()
    page.locator("#id_category").select_option("letter")
    page.locator("#id_front").fill("Which letter marks the answer to this E2E question?")
    page.locator("#id_back").fill("C or D: the nearest available of the two.")
    page.locator("#id_answer").fill("C/F")
    save(page)

    # A bad answer: the form comes back with the rule, and nothing is saved.
    expect(page.locator(".errornote")).to_be_visible()
    expect(page.locator(".field-answer .errorlist")).to_contain_text(
        "A letter card's answer is one or more of A–E"
    )
    assert KnowledgeQuestion.objects.count() == before
    # What the teacher typed is still there to correct.
    expect(page.locator("#id_front")).to_have_value("Which letter marks the answer to this E2E question?")

    page.locator("#id_answer").fill("C/D")
    save(page)
    expect(page.locator(".messagelist .success")).to_be_visible()
    assert re.search(r"/admin/content/knowledgequestion/$", page.url)
    question = KnowledgeQuestion.objects.get(front__startswith="Which letter marks")
    assert question.category == "letter"
    assert question.answer == ["C", "D"]
    assert question.owner == demo_site.teacher_user
    assert KnowledgeQuestion.objects.count() == before + 1


def test_teacher_authors_an_activity_card_by_filling_the_six_slots(browsing, teacher_page, demo_site):
    from content.models import ActivityCard

    page = teacher_page
    open_page(page, demo_site.url + reverse("admin:content_activitycard_add"))
    page.locator("#id_title").fill("E2E card")
    terms = {
        "A": ("term", "Orzeł Biały", "4"),
        "B": ("term", "Konstytucja 3 maja", "5"),
        "C": ("chain", "Solidarność", ""),
        "D": ("term", "Westerplatte", "3"),
        "E": ("rhyme", "Okrągły Stół", ""),
        "F": ("term", "Bitwa Warszawska", "6"),
    }
    # A new card comes with its six slots A–F laid out.
    for index, slot in enumerate(terms):
        expect(page.locator(f"#id_terms-{index}-slot")).to_have_value(slot)
    for index, (kind, text, points) in enumerate(terms.values()):
        page.locator(f"#id_terms-{index}-kind").select_option(kind)
        page.locator(f"#id_terms-{index}-text").fill(text)
        page.locator(f"#id_terms-{index}-points").fill(points)
    save(page)

    expect(page.locator(".messagelist .success")).to_be_visible()
    card = ActivityCard.objects.get(title="E2E card")
    saved = {t.slot: (t.kind, t.text, str(t.points or "")) for t in card.terms.all()}
    assert saved == terms
    assert card.owner == demo_site.teacher_user


def test_teacher_reorders_a_symbol_set_by_keyboard_and_saves_it(browsing, teacher_page, demo_site):
    from content.models import SymbolSet

    symbol_set = SymbolSet.objects.get(slug="znajznak-demo-57")
    members = list(symbol_set.members.order_by("position"))
    first, second = members[0].symbol, members[1].symbol

    page = teacher_page
    open_page(page, demo_site.url + reverse("admin:content_symbolset_change", args=[symbol_set.pk]))
    rows = page.locator("fieldset.sortable tr.has_original")
    expect(rows).to_have_count(57)
    # "Move to last position" on the first symbol, by keyboard: focus it and press Enter.
    move_end = rows.first.locator(".sort .move-end")
    expect(move_end).to_have_attribute("tabindex", "0")  # a Tab stop
    move_end.focus()
    expect(move_end).to_be_focused()
    page.keyboard.press("Enter")
    expect(rows.last).to_contain_text(first.name)
    save(page, "_continue")

    expect(page.locator(".messagelist .success")).to_be_visible()
    order = list(symbol_set.members.order_by("position").values_list("symbol_id", flat=True))
    assert len(order) == 57
    assert order[-1] == first.pk
    assert order[0] == second.pk


def test_a_student_never_reaches_the_admin(browsing, student_page, demo_users_site):
    page = student_page
    for url in ("/admin/", "/admin/content/symbol/"):
        open_page(page, demo_users_site.url + url)
        assert "/admin/login/" in page.url, f"a student reached {url}"
        expect(page.locator("#content-main")).to_contain_text("not authorized to access this page")
        expect(page.locator("#result_list")).to_have_count(0)
    # The site hides the way in, too.
    open_page(page, demo_users_site.url + "/")
    expect(page.get_by_role("link", name="Authoring")).to_have_count(0)
