"""The Knowledge? balance simulator on a board's admin page, in chromium: the teacher starts
it, a real Celery worker plays the games, the page follows the progress and shows the table
of win rates; then a run in progress shows its bar and the page shows the figures by itself
when it ends. Every state of the page has 0 axe violations."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from content.models import BuildState
from games.models import KnowledgeBalanceRun
from tests.content.test_knowledge_board import make_board
from tests.e2e.browsing import axe_violations, describe_violations, sign_in
from tests.games.play.test_knowledge_balance import publish_demo_pool

pytestmark = pytest.mark.e2e

#: Playing 4 x 40 games on a busy machine takes a worker a few seconds.
PLAYED_MS = 90_000


def no_violations(page: Any, where: str) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(where, violations)


@pytest.mark.celery
def test_the_teacher_simulates_her_board_and_reads_the_win_rates(
    browsing: Any, demo_users_site: Any, celery_worker_real: Any
) -> None:
    site = demo_users_site
    publish_demo_pool()
    board = make_board(owner=site.teacher_user, name="Our class board")
    page = browsing.new_page()
    sign_in(page, site.url, site.teacher.username, site.teacher.password)
    page.goto(site.url + reverse("admin:content_knowledgeboard_change", args=[board.pk]))
    expect(page.get_by_role("heading", name="Balance simulator")).to_be_visible()
    no_violations(page, "the board's page")

    page.get_by_label("Games per variant and start").fill("40")
    page.get_by_label("Seed").fill("3")
    with page.expect_navigation():
        page.get_by_role("button", name="Simulate").click()
    table = page.locator("#balance-figures")
    expect(table).to_be_visible(timeout=PLAYED_MS)  # the page reloads itself when the run ends
    run = KnowledgeBalanceRun.objects.get(board=board)
    assert run.state == BuildState.DONE
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(4)
    for number, figure in enumerate(run.figures):
        expect(rows.nth(number).locator("td").nth(1)).to_have_text(f"{figure['won']} / 40")
    expect(rows.nth(0).locator("th")).to_have_text("Basic")
    expect(rows.nth(1).locator("td").nth(0)).to_have_text("Harder start")
    expect(page.locator("#balance code")).to_contain_text(f"knowledge_simulate --board {board.pk} --games 40")
    no_violations(page, "the board's page with the figures")


def test_a_run_in_progress_shows_its_bar_and_the_figures_when_it_ends(
    browsing: Any, demo_users_site: Any
) -> None:
    site = demo_users_site
    board = make_board(owner=site.teacher_user)
    run = KnowledgeBalanceRun.objects.create(
        board=board,
        owner=site.teacher_user,
        state=BuildState.RUNNING,
        progress=30,
        options={"games": 100, "seed": 0, "knowledge": 60},
    )
    page = browsing.new_page()
    sign_in(page, site.url, site.teacher.username, site.teacher.password)
    page.goto(site.url + reverse("admin:content_knowledgeboard_change", args=[board.pk]))
    expect(page.locator("#job-progress-text")).to_have_text("Building: 30%")
    expect(page.locator("#balance-form")).to_have_count(0)  # one run at a time
    no_violations(page, "the board's page, simulating")
    KnowledgeBalanceRun.objects.filter(pk=run.pk).update(progress=70)
    expect(page.locator("#job-progress")).to_have_js_property("value", 70)

    figure = {"variant": "basic", "harder_start": True, "games": 100, "won": 4, "win_rate": 0.04}
    KnowledgeBalanceRun.objects.filter(pk=run.pk).update(
        state=BuildState.DONE,
        progress=100,
        figures=[{**figure, "mean_rounds": 22.0, "replacements": 0, "warning": "unwinnable"}],
    )
    expect(page.locator("#balance-figures")).to_be_visible()
    expect(page.locator("#balance .messagelist")).to_contain_text("Nearly unwinnable")
    no_violations(page, "the board's page with a warning")
