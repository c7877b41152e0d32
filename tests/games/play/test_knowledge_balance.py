"""The Knowledge? balance simulator on a board's admin page (games/play/knowledge/balance.py,
balance_run.py, games.admin.KnowledgeBoardBalanceAdmin): the same figures as the command,
per-object permissions, refusals, warnings, the sweep and "Try again"."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from content.models import BuildState, KnowledgeQuestion, Status, Tag
from games.knowledge_simulator import TRIVIAL_FROM, UNWINNABLE_BELOW, balance_warning
from games.models import KnowledgeBalanceRun
from games.play.knowledge import balance, balance_run
from games.tasks import knowledge_balance_sweep_task
from tests.content.test_knowledge_board import make_board
from tests.factories import KnowledgeQuestionFactory

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[3]
DEMO_POOL = json.loads((ROOT / "content" / "demo" / "data" / "knowledge_questions.json").read_text("utf-8"))


def publish_demo_pool() -> None:
    """The demo questions, published (the pool both the command and the page read)."""
    KnowledgeQuestion.objects.bulk_create(
        KnowledgeQuestion(
            category=row["category"],
            front=f"Question {number}",
            answer=row["answer"],
            status=Status.PUBLISHED,
        )
        for number, row in enumerate(DEMO_POOL)
    )


@pytest.fixture
def pool() -> None:
    publish_demo_pool()


def start(teacher: Any, board: Any, capture: Any, **options: Any) -> KnowledgeBalanceRun:
    with capture(execute=True):
        run = balance.balance_run_create(user=teacher, board=board, options=options)
    run.refresh_from_db()
    return run


def command_figures(*args: str) -> list[dict[str, Any]]:
    out = StringIO()
    call_command("knowledge_simulate", *args, "--json", stdout=out)
    return json.loads(out.getvalue())["figures"]


def _comparable(row: dict[str, Any]) -> tuple[Any, ...]:
    return (
        row["variant"],
        row["harder_start"],
        row["games"],
        row["won"],
        row["mean_rounds"],
        row["replacements"],
    )


def test_the_pages_figures_are_the_commands_for_the_same_board_seed_and_games(
    teacher: Any, pool: None, django_capture_on_commit_callbacks: Any
) -> None:
    board = make_board(owner=teacher, name="Our board")
    run = start(teacher, board, django_capture_on_commit_callbacks, games=60, seed=7, knowledge=55)
    assert run.state == BuildState.DONE and run.progress == 100, run.message
    assert [(r["variant"], r["harder_start"]) for r in run.figures] == [
        ("basic", False), ("basic", True), ("strategic", False), ("strategic", True)
    ]  # fmt: skip
    expected = command_figures(
        "--board", str(board.pk), "--games", "60", "--seed", "7", "--knowledge", "0.55"
    )
    assert [_comparable(r) for r in run.figures] == [_comparable(r) for r in expected]
    # Another seed plays other games: the agreement is not a coincidence of constant figures.
    other = command_figures("--board", str(board.pk), "--games", "60", "--seed", "8", "--knowledge", "0.55")
    assert [_comparable(r) for r in other] != [_comparable(r) for r in expected]
    assert balance.balance_command(run) == (
        f"python manage.py knowledge_simulate --board {board.pk} --games 60 --seed 7 --knowledge 0.55"
    )


def test_a_run_keeps_the_board_as_it_was_when_it_started(
    teacher: Any, pool: None, django_capture_on_commit_callbacks: Any
) -> None:
    board = make_board(owner=teacher)
    run = start(teacher, board, django_capture_on_commit_callbacks, games=10)
    board.opponent_start_hard = None
    board.save()
    assert run.snapshot["board"]["opponent_start_hard"] is not None
    later = start(teacher, board, django_capture_on_commit_callbacks, games=10)
    assert [r["harder_start"] for r in later.figures] == [False, False]  # only the normal start now


def test_only_a_teacher_who_may_change_the_board_simulates_it(
    teacher: Any, other_teacher: Any, student: Any, pool: None, django_capture_on_commit_callbacks: Any
) -> None:
    board = make_board(owner=teacher, status=Status.PUBLISHED)  # others may see it, not change it
    for who in (other_teacher, student):
        with pytest.raises(PermissionDenied):
            balance.balance_run_create(user=who, board=board, options={"games": 10})
    assert not KnowledgeBalanceRun.objects.exists()
    board.editors.add(other_teacher)
    run = start(other_teacher, board, django_capture_on_commit_callbacks, games=10)
    assert run.state == BuildState.DONE


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"games": 0}, "games"),
        ({"games": 9}, "games"),
        ({"games": 5001}, "games"),
        ({"games": 10**12}, "games"),
        ({"games": "a lot"}, "games"),
        ({"games": "12.5"}, "games"),
        ({"knowledge": 101}, "knowledge"),
        ({"knowledge": -1}, "knowledge"),
        ({"seed": -3}, "seed"),
        ({"language": "xx"}, "language"),
        ({"tag": "no-such-tag"}, "tag"),
    ],
)
def test_bad_options_are_refused_with_a_reason_and_nothing_is_stored(
    teacher: Any, pool: None, options: dict[str, Any], field: str
) -> None:
    board = make_board(owner=teacher)
    with pytest.raises(ValidationError) as refused:
        balance.balance_run_create(user=teacher, board=board, options=options)
    assert field in refused.value.message_dict
    assert not KnowledgeBalanceRun.objects.exists()


def test_a_pool_too_small_is_refused(teacher: Any) -> None:
    tag = Tag.objects.create(slug="few")
    for number in range(5):
        KnowledgeQuestionFactory(answer=number).tags.add(tag)
    with pytest.raises(ValidationError, match="has 5 published question"):
        balance.balance_run_create(user=teacher, board=make_board(owner=teacher), options={"tag": "few"})
    assert not KnowledgeBalanceRun.objects.exists()


def test_a_second_start_waits_for_the_running_one(teacher: Any, pool: None) -> None:
    board = make_board(owner=teacher)
    balance.balance_run_create(user=teacher, board=board, options={"games": 10})  # queued, not run
    with pytest.raises(balance.BalanceRefused, match="still running"):
        balance.balance_run_create(user=teacher, board=board, options={"games": 10})
    assert KnowledgeBalanceRun.objects.count() == 1


def test_the_warning_thresholds() -> None:
    assert balance_warning(0.0) == balance_warning(UNWINNABLE_BELOW - 0.001) == "unwinnable"
    assert balance_warning(UNWINNABLE_BELOW) == balance_warning(TRIVIAL_FROM - 0.001) == ""
    assert balance_warning(TRIVIAL_FROM) == balance_warning(1.0) == "trivial"


def test_a_team_that_never_knows_gets_the_unwinnable_warning_on_the_harder_start(
    teacher: Any, pool: None, django_capture_on_commit_callbacks: Any
) -> None:
    run = start(
        teacher, make_board(owner=teacher), django_capture_on_commit_callbacks, games=100, knowledge=0
    )
    warnings = {(r["variant"], r["harder_start"]): r["warning"] for r in run.figures}
    assert warnings["basic", True] == "unwinnable"
    for row in run.figures:
        assert row["warning"] == balance_warning(row["win_rate"])


# --- The sweep and "Try again" ------------------------------------------------------------------


def test_the_sweep_fails_a_run_whose_worker_died_and_try_again_finishes_it(
    teacher: Any, pool: None, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    board = make_board(owner=teacher)
    run = balance.balance_run_create(user=teacher, board=board, options={"games": 10})
    alive = KnowledgeBalanceRun.objects.create(board=make_board(owner=teacher), owner=teacher)
    KnowledgeBalanceRun.objects.filter(pk__in=[run.pk, alive.pk]).update(
        state=BuildState.RUNNING, progress=30
    )
    KnowledgeBalanceRun.objects.filter(pk=run.pk).update(updated=timezone.now() - timedelta(hours=1))

    knowledge_balance_sweep_task()

    run.refresh_from_db()
    alive.refresh_from_db()
    assert (run.state, run.message) == (BuildState.FAILED, balance_run.STOPPED)
    assert alive.state == BuildState.RUNNING  # its heartbeat is recent
    with django_capture_on_commit_callbacks(execute=True):
        balance.balance_run_retry(run=run, user=teacher)
    run.refresh_from_db()
    assert run.state == BuildState.DONE and len(run.figures) == 4
    with pytest.raises(balance.BalanceRefused):
        balance.balance_run_retry(run=run, user=teacher)


def test_a_run_waiting_too_long_is_sent_again(
    teacher: Any, pool: None, django_capture_on_commit_callbacks: Any
) -> None:
    run = balance.balance_run_create(user=teacher, board=make_board(owner=teacher), options={"games": 10})
    KnowledgeBalanceRun.objects.filter(pk=run.pk).update(updated=timezone.now() - timedelta(hours=2))
    knowledge_balance_sweep_task()  # eager in these tests: the run is played
    run.refresh_from_db()
    assert run.state == BuildState.DONE


# --- The board's admin page ---------------------------------------------------------------------


def test_the_board_page_starts_a_run_and_shows_its_figures(
    client: Any, teacher: Any, pool: None, django_capture_on_commit_callbacks: Any
) -> None:
    board = make_board(owner=teacher)
    client.force_login(teacher)
    page = reverse("admin:content_knowledgeboard_change", args=[board.pk])
    assert 'id="balance-form"' in client.get(page).content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:content_knowledgeboard_balance", args=[board.pk]),
            {"games": "20", "knowledge": "60", "seed": "3", "tag": "", "language": ""},
        )
    assert response.status_code == 302 and response["Location"].endswith("#balance")
    run = KnowledgeBalanceRun.objects.get(board=board)
    html = client.get(page).content.decode()
    assert 'id="balance-figures"' in html
    for row in run.figures:
        assert f"{row['won']} / 20" in html
    status = client.get(
        reverse("admin:content_knowledgeboard_balance_status", args=[board.pk, run.pk])
    ).json()
    assert status == {
        "state": "done",
        "state_label": "Done",
        "progress": 100,
        "working": False,
        "message": "",
    }


def test_the_board_page_shows_a_warning_for_an_unwinnable_start(client: Any, teacher: Any) -> None:
    board = make_board(owner=teacher)
    row = {
        "variant": "basic",
        "harder_start": False,
        "games": 100,
        "won": 0,
        "win_rate": 0.0,
        "mean_rounds": 20.0,
    }
    KnowledgeBalanceRun.objects.create(
        board=board, owner=teacher, state=BuildState.DONE, progress=100, options={"games": 100, "seed": 0,
        "knowledge": 60}, figures=[{**row, "warning": balance_warning(0.0)}],
    )  # fmt: skip
    client.force_login(teacher)
    html = client.get(reverse("admin:content_knowledgeboard_change", args=[board.pk])).content.decode()
    assert "Nearly unwinnable" in html and "0 / 100" in html


def test_an_absurd_game_count_on_the_page_is_refused_clearly(client: Any, teacher: Any, pool: None) -> None:
    board = make_board(owner=teacher)
    client.force_login(teacher)
    response = client.post(
        reverse("admin:content_knowledgeboard_balance", args=[board.pk]), {"games": "1000000000"}, follow=True
    )
    assert response.status_code == 200
    assert "The simulation was not started: The number of games must be from 10 to 5000" in (
        response.content.decode()
    )
    assert not KnowledgeBalanceRun.objects.exists()


def test_a_teacher_who_may_only_see_the_board_gets_no_simulator(
    client: Any, teacher: Any, other_teacher: Any, pool: None
) -> None:
    board = make_board(owner=teacher, status=Status.PUBLISHED)
    mine = KnowledgeBalanceRun.objects.create(board=board, owner=teacher)
    client.force_login(other_teacher)
    page = client.get(reverse("admin:content_knowledgeboard_change", args=[board.pk]))
    assert page.status_code == 200 and "balance-heading" not in page.content.decode()
    start_url = reverse("admin:content_knowledgeboard_balance", args=[board.pk])
    assert client.post(start_url, {"games": "10"}).status_code == 403
    status_url = reverse("admin:content_knowledgeboard_balance_status", args=[board.pk, mine.pk])
    assert client.get(status_url).status_code == 403
    assert KnowledgeBalanceRun.objects.count() == 1


@pytest.mark.parametrize("games", ["0", "-5", "1000001"])
def test_the_command_refuses_an_absurd_number_of_games(games: str) -> None:
    with pytest.raises(CommandError, match="--games must be from 1 to 1,000,000"):
        call_command("knowledge_simulate", "--games", games, "--json", stdout=StringIO())


def test_the_form_offers_the_tags_of_the_knowledge_questions(db: Any) -> None:
    from games.admin import KnowledgeBalanceForm

    question = KnowledgeQuestionFactory()
    question.tags.add(Tag.objects.create(slug="ii-rp"))
    Tag.objects.create(slug="unused")
    choices = dict(KnowledgeBalanceForm().fields["tag"].choices)
    assert choices.get("ii-rp") == "ii-rp"
    assert "unused" not in choices
