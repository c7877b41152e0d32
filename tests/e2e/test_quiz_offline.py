"""A quiz attempt in chromium when the connection drops: nothing the student answers is lost.

The student answers one item online (saved at once), the browser goes offline, two more
answers wait in this browser's localStorage while the page says so plainly (in its polite
status region), and when the connection returns the page sends them by itself: the
server's attempt holds all three and a reload resumes with them. Answers given offline
in a tab that is then closed are sent when the student opens the attempt again on the
same device. axe (WCAG 2.2 AA) checks the page in its offline state.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import expect

from games.quiz.models import QuizAttempt, QuizResponse
from tests.e2e.browsing import PageWatch, axe_violations, describe_violations, open_page
from tests.lms.factories_classes import knowledge_quiz

pytestmark = pytest.mark.e2e

SAVED = "All answers saved."
OFFLINE = "Not saved yet: no connection. Your answers are kept here and sent when it is back."


def answer_saved(response: Any) -> bool:
    return response.url.endswith("/answers") and response.status == 200


def server_answers(attempt: QuizAttempt) -> dict[int, Any]:
    return {r.item_id: r.answer for r in QuizResponse.objects.filter(attempt=attempt)}


def kept_in_browser(page: Any, attempt: QuizAttempt) -> dict[str, Any]:
    raw = page.evaluate("key => window.localStorage.getItem(key)", f"talia-quiz-{attempt.pk}")
    return json.loads(raw) if raw else {}


def start_attempt(page: Any, url: str, quiz: Any) -> QuizAttempt:
    open_page(page, f"{url}/games/quizzes/take/{quiz.code}")
    with page.expect_navigation():
        page.get_by_role("button", name="Start").click()
    attempt = QuizAttempt.objects.get(quiz=quiz)
    expect(page).to_have_url(f"{url}/games/quizzes/attempts/{attempt.pk}/")
    return attempt


def choose(page: Any, item: Any, choice: str) -> None:
    """Go to ``item`` with "Next" (one item at a time) and pick ``choice``."""
    block = page.locator(f".quiz-item[data-item='{item.pk}']")
    if not block.is_visible():
        page.get_by_role("button", name="Next").click()
    expect(block).to_be_visible()
    block.get_by_role("radio", name=choice, exact=True).check()


def only_offline_failures(problems: list[str]) -> None:
    """While offline the answers' requests fail (and chromium says so): nothing else may."""
    unexpected = [p for p in problems if "/answers" not in p or "ERR_INTERNET_DISCONNECTED" not in p]
    assert not unexpected, unexpected


def assert_offline_note(page: Any) -> None:
    note = page.locator("#quiz-saved")
    expect(note).to_have_text(OFFLINE)
    expect(note).to_be_visible()
    # A status region: screen readers announce the change politely, without interrupting.
    expect(note).to_have_attribute("role", "status")
    assert note.get_attribute("aria-live") in (None, "polite")
    expect(page.get_by_role("status").filter(has_text=OFFLINE)).to_have_count(1)


def test_answers_given_offline_are_kept_and_sent_when_the_connection_returns(
    browsing, student_page, demo_users_site
):
    page = student_page
    quiz = knowledge_quiz(demo_users_site.teacher_user, (3, 1, 4, 2))
    items = list(quiz.items.order_by("position"))
    attempt = start_attempt(page, demo_users_site.url, quiz)

    # Online: the first answer is on the server at once.
    with page.expect_response(answer_saved):
        choose(page, items[0], "3")
    expect(page.locator("#quiz-saved")).to_have_text(SAVED)
    assert server_answers(attempt) == {items[0].pk: {"choice": "3"}}

    # The connection drops: two more answers wait in this browser, and the page says so.
    page.context.set_offline(True)
    choose(page, items[1], "1")
    assert_offline_note(page)
    choose(page, items[2], "5")
    assert_offline_note(page)
    assert kept_in_browser(page, attempt) == {
        str(items[1].pk): {"choice": "1"},
        str(items[2].pk): {"choice": "5"},
    }
    assert server_answers(attempt) == {items[0].pk: {"choice": "3"}}
    violations = axe_violations(page)
    assert not violations, describe_violations("quiz attempt, offline", violations)
    only_offline_failures(browsing.problems(page))

    # The connection returns: the page sends what it kept, with nothing for the student to do.
    page.context.set_offline(False)
    expect(page.locator("#quiz-saved")).to_have_text(SAVED)
    assert server_answers(attempt) == {
        items[0].pk: {"choice": "3"},
        items[1].pk: {"choice": "1"},
        items[2].pk: {"choice": "5"},
    }
    assert kept_in_browser(page, attempt) == {}
    only_offline_failures(browsing.problems(page))

    # Resuming: a reload shows the three answers from the server, at the fourth item.
    page.reload(wait_until="load")
    for item, choice in zip(items[:3], ("3", "1", "5"), strict=True):
        expect(page.locator(f"#item-{item.pk} input[value='{choice}']")).to_be_checked()
    expect(page.locator('.quiz-item[data-current="true"]')).to_have_attribute("data-item", str(items[3].pk))
    attempt.refresh_from_db()
    assert attempt.submitted_at is None
    assert not browsing.problems(page)


def test_answers_given_offline_in_a_closed_tab_are_sent_when_the_attempt_is_reopened(
    browsing, student_page, demo_users_site
):
    page = student_page
    context = page.context
    quiz = knowledge_quiz(demo_users_site.teacher_user, (3, 1, 4))
    items = list(quiz.items.order_by("position"))
    attempt = start_attempt(page, demo_users_site.url, quiz)
    attempt_url = page.url

    # Offline from the first answer; then the tab is closed before the connection returns.
    context.set_offline(True)
    choose(page, items[0], "3")
    assert_offline_note(page)
    choose(page, items[1], "2")
    assert_offline_note(page)
    page.close()
    only_offline_failures(browsing.problems(page))
    assert server_answers(attempt) == {}

    # Back online, the student opens the attempt again in the same browser: the kept
    # answers are filled in and sent by the page itself.
    context.set_offline(False)
    reopened = context.new_page()
    watch = PageWatch(origin=demo_users_site.url)
    watch.attach(reopened)
    with reopened.expect_response(answer_saved):
        open_page(reopened, attempt_url)
    expect(reopened.locator("#quiz-saved")).to_have_text(SAVED)
    assert server_answers(attempt) == {items[0].pk: {"choice": "3"}, items[1].pk: {"choice": "2"}}
    assert kept_in_browser(reopened, attempt) == {}

    # And the server's answers are what a later visit resumes from.
    reopened.reload(wait_until="load")
    expect(reopened.locator(f"#item-{items[0].pk} input[value='3']")).to_be_checked()
    expect(reopened.locator(f"#item-{items[1].pk} input[value='2']")).to_be_checked()
    expect(reopened.locator('.quiz-item[data-current="true"]')).to_have_attribute(
        "data-item", str(items[2].pk)
    )
    assert not watch.take()
