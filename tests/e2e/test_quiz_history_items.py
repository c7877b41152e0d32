"""The history items in chromium, on a 360×740 touch phone: a student answers a chronology
with the "Move up"/"Move down" buttons (no dragging), a period, a matching and a teacher's
multiple choice with pictures, each saved as it is given; hands in and gets every point.
axe (WCAG 2.2 AA) checks the page at every item; the worksheet prints the items.
"""

from __future__ import annotations

import io

import pytest
from django.core.files.base import ContentFile
from playwright.sync_api import expect
from pypdf import PdfReader

from games.quiz.models import Quiz, QuizAttempt, QuizResponse
from tests.e2e.browsing import open_page, sign_in
from tests.e2e.test_quiz_take import PHONE_WIDTH, assert_accessible, assert_phone_fit

pytestmark = pytest.mark.e2e


def pictured_choice(owner):
    """A multiple choice whose options are pictures with words, as a teacher writes one."""
    from PIL import Image

    from content.models import QuizQuestion, QuizQuestionOption

    def png(colour: str) -> ContentFile:
        out = io.BytesIO()
        Image.new("RGB", (48, 48), colour).save(out, "PNG")
        return ContentFile(out.getvalue())

    question = QuizQuestion.objects.create(
        kind="choice",
        text="Który znak namalowano na murach okupowanej Warszawy?",
        owner=owner,
        status="published",
    )
    question.picture.save("mur.png", png("grey"), save=True)
    for position, (text, colour, right) in enumerate(
        (("Kotwica", "red", True), ("Orzeł bez korony", "blue", False), ("Lilijka", "green", False))
    ):
        option = QuizQuestionOption(question=question, position=position, text=text, correct=right)
        option.picture.save(f"{colour}.png", png(colour), save=False)
        option.save()
    return question


def history_quiz(site) -> Quiz:
    from content.models import QuizQuestion, Symbol
    from games.quiz import selectors, services

    teacher = site.teacher_user
    chosen = [pictured_choice(teacher), *QuizQuestion.objects.filter(kind__in=["chronology", "matching"])]
    pool = selectors.pool_from_symbols(
        user=teacher, queryset=Symbol.objects.filter(status="published"), questions=chosen
    )
    # The teacher's chronology and matching, one chronology of dated symbols, one period.
    quiz = services.quiz_create(
        owner=teacher,
        title="Historia na telefonie",
        source=Quiz.Source.SELECTION,
        pool=pool,
        counts={"choice": 1, "chronology": 2, "matching": 1, "period": 1},
        seed=4,
        enqueue=False,
    )
    quiz = services.quiz_generate(quiz=quiz)
    assert quiz.state == "done", quiz.message
    return services.quiz_publish(quiz=quiz, by=teacher)


def order_by_buttons(item, answer: list[str]) -> None:
    """Put the events in ``answer``'s order by tapping "Move up", as a thumb would."""
    for place, event_id in enumerate(answer):
        event = item.locator(f'.quiz-event[data-event="{event_id}"]')
        now = item.locator(".quiz-event").evaluate_all(
            "(events, id) => events.findIndex(e => e.dataset.event === id)", event_id
        )
        for _ in range(now - place):
            event.get_by_role("button", name="Move up").tap()
        expect(item.locator(".quiz-event").nth(place)).to_have_attribute("data-event", event_id)
        if now > place:
            # The focus stays on the event that moved, and the page says where it is now.
            assert event.evaluate("e => e.contains(document.activeElement)")
            expect(item.locator("[data-order-status]")).to_contain_text(f"is now number {place + 1} of")


def test_a_student_answers_each_history_item_on_a_phone_with_taps_only(browsing, demo_site):
    quiz = history_quiz(demo_site)
    items = {item.pk: item for item in quiz.items.all()}
    assert sorted(item.kind for item in items.values()) == [
        "choice",
        "chronology",
        "chronology",
        "matching",
        "period",
    ]

    page = browsing.new_phone_page()
    login = demo_site.students[0]
    sign_in(page, demo_site.url, login.username, login.password)
    open_page(page, f"{demo_site.url}/games/quizzes/take/{quiz.code}")
    with page.expect_navigation():
        page.get_by_role("button", name="Start").tap()

    for step in range(len(items)):
        if step:
            page.get_by_role("button", name="Next").tap()
        current = page.locator('.quiz-item[data-current="true"]')
        expect(current).to_have_count(1)
        item = items[int(current.get_attribute("data-item"))]
        where = f"the {item.kind} item"
        assert_accessible(browsing, page, where)
        assert_phone_fit(page, where)
        with page.expect_response(lambda r: r.url.endswith("/answers") and r.status == 200):
            if item.kind == "chronology":
                # No drag anywhere: every event has its two buttons, big enough for a thumb.
                expect(current.locator('.quiz-event [draggable="true"]')).to_have_count(0)
                expect(
                    current.locator(".quiz-event").first.get_by_role("button", name="Move up")
                ).to_be_disabled()
                order_by_buttons(current, item.key["answer"])
            elif item.kind == "matching":
                for left, right in item.key["answer"].items():
                    current.locator(f'select[data-left="{left}"]').select_option(right)
            elif item.kind == "choice":
                expect(current.locator(".quiz-option img")).to_have_count(3)
                current.locator(f'input[value="{item.key["answer"]}"]').tap()
            else:
                current.locator(f'input[value="{item.key["answer"]}"]').tap()
        expect(page.locator("#quiz-saved")).to_have_text("All answers saved.")

    attempt = QuizAttempt.objects.get(student__username=login.username)
    saved = {r.item_id: r.answer for r in QuizResponse.objects.filter(attempt=attempt)}
    for item in items.values():
        if item.kind == "chronology":
            assert saved[item.pk] == {"order": item.key["answer"]}
        elif item.kind == "matching":
            assert saved[item.pk] == {"pairs": item.key["answer"]}

    # A reload keeps the chronology in the order the student made.
    page.reload()
    page.get_by_role("button", name="All items on one page").tap()
    for item in items.values():
        if item.kind == "chronology":
            shown = page.locator(f"#item-{item.pk} .quiz-event").evaluate_all(
                "es => es.map(e => e.dataset.event)"
            )
            assert shown == item.key["answer"]
    assert_accessible(browsing, page, "all history items on one page")

    with page.expect_navigation():
        page.get_by_role("button", name="Hand in").tap()
    expect(page.locator("#quiz-score")).to_contain_text(f"{quiz.max_score} / {quiz.max_score}")
    assert_accessible(browsing, page, "the result of the history items")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE_WIDTH


def test_the_keyboard_orders_a_chronology_and_keep_this_order_saves_it(browsing, demo_site):
    quiz = history_quiz(demo_site)
    item = next(
        i for i in quiz.items.filter(kind="chronology") if i.key["subjects"][0].startswith("question:")
    )
    page = browsing.new_page()
    login = demo_site.students[1]
    sign_in(page, demo_site.url, login.username, login.password)
    open_page(page, f"{demo_site.url}/games/quizzes/take/{quiz.code}")
    with page.expect_navigation():
        page.get_by_role("button", name="Start").click()
    if page.get_by_role("button", name="All items on one page").is_visible():
        page.get_by_role("button", name="All items on one page").click()
    block = page.locator(f"#item-{item.pk}")
    shown = block.locator(".quiz-event").evaluate_all("es => es.map(e => e.dataset.event)")
    with page.expect_response(lambda r: r.url.endswith("/answers") and r.status == 200):
        block.get_by_role("button", name="This order is my answer").focus()
        page.keyboard.press("Enter")
    attempt = QuizAttempt.objects.get(student__username=login.username)
    assert QuizResponse.objects.get(attempt=attempt, item=item).answer == {"order": shown}
    # Down with the keyboard: the focus follows the moved event.
    first = block.locator(".quiz-event").first
    moved = first.get_attribute("data-event")
    first.get_by_role("button", name="Move down").focus()
    with page.expect_response(lambda r: r.url.endswith("/answers") and r.status == 200):
        page.keyboard.press("Enter")
    expect(block.locator(".quiz-event").nth(1)).to_have_attribute("data-event", moved)
    assert block.locator(f'.quiz-event[data-event="{moved}"]').evaluate(
        "e => e.contains(document.activeElement)"
    )


def test_the_worksheet_of_the_history_items_prints(browsing, teacher_page, demo_site):
    quiz = history_quiz(demo_site)
    response = teacher_page.request.get(f"{demo_site.url}/games/quizzes/{quiz.pk}/worksheet.pdf")
    assert response.status == 200 and response.body().startswith(b"%PDF")
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(response.body())).pages)
    assert "Number the events" in text and "letter of its pair" in text
    assert "Kotwica" in text and "Which period?" in text
