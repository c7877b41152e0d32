"""The Knowledge? balance simulator on a board's admin page: the teacher's services.

A teacher who may change a board (``content.permissions.can_change``) starts a run
(:func:`balance_run_create`): the options are checked, the board and the question pool
are copied into the run's snapshot, and the job is queued on commit. The worker plays it
(``balance_run.py``); the page shows its progress and then :func:`balance_rows`, one row
per variant and start with a warning when a start is nearly unwinnable or trivial
(``games.knowledge_simulator.UNWINNABLE_BELOW`` and ``TRIVIAL_FROM``).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from content.models import LANGUAGES, BuildState, KnowledgeBoard, Tag
from content.permissions import can_change
from games.engines import knowledge
from games.engines.base import InvalidSetup
from games.engines.knowledge_board import board_from_dict
from games.knowledge_simulator import cards_from_rows
from games.models import KnowledgeBalanceRun
from games.tasks import knowledge_balance_task

from .balance_run import balance_pool

__all__ = [
    "BALANCE_GAMES_MAX",
    "BALANCE_GAMES_MIN",
    "SEED_MAX",
    "BalanceRefused",
    "balance_command",
    "balance_latest",
    "balance_options_check",
    "balance_rows",
    "balance_run_create",
    "balance_run_retry",
]

#: Games per variant and start a teacher may ask for: fewer than 10 say nothing, more
#: than 5,000 (20,000 games a run) take a worker minutes for no better advice.
BALANCE_GAMES_MIN = 10
BALANCE_GAMES_MAX = 5_000
BALANCE_GAMES_DEFAULT = 1_000
SEED_MAX = 2_147_483_647
WORKING = (BuildState.QUEUED, BuildState.RUNNING)


class BalanceRefused(Exception):
    """A run cannot be started or tried again now; the message says why."""


def _whole(raw: Mapping[str, Any], name: str, default: int, low: int, high: int, what: str) -> int:
    value = raw.get(name)
    if value is None or value == "":
        return default
    try:
        if isinstance(value, bool) or isinstance(value, float) and not value.is_integer():
            raise ValueError
        number = int(str(value).strip()) if not isinstance(value, float) else int(value)
    except ValueError:
        raise ValidationError({name: _("%(what)s: enter a whole number.") % {"what": what}}) from None
    if not low <= number <= high:
        raise ValidationError(
            {
                name: _("%(what)s must be from %(low)s to %(high)s; %(value)s is outside.")
                % {"what": what, "low": low, "high": high, "value": number}
            }
        )
    return number


def balance_options_check(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The run's options from what the teacher typed, or a ``ValidationError`` keyed by option.

    ``games`` per variant and start (10 to 5,000), ``knowledge``: how often the team knows
    an answer, in per cent (0 to 100), ``seed``, ``tag`` (a slug) and ``language``.
    """
    options = {
        "games": _whole(
            raw,
            "games",
            BALANCE_GAMES_DEFAULT,
            BALANCE_GAMES_MIN,
            BALANCE_GAMES_MAX,
            _("The number of games"),
        ),
        "knowledge": _whole(raw, "knowledge", 60, 0, 100, _("How often the team knows an answer (%)")),
        "seed": _whole(raw, "seed", 0, 0, SEED_MAX, _("The seed")),
        "tag": str(raw.get("tag") or "").strip(),
        "language": str(raw.get("language") or "").strip(),
    }
    if options["language"] and options["language"] not in dict(LANGUAGES):
        raise ValidationError({"language": _("Choose a language from the list.")})
    if options["tag"] and not Tag.objects.filter(slug=options["tag"]).exists():
        raise ValidationError({"tag": _("Choose a tag from the list.")})
    return options


def _enqueue(run_id: int) -> None:
    knowledge_balance_task.delay(run_id)


def balance_run_create(
    *, user: Any, board: KnowledgeBoard, options: Mapping[str, Any]
) -> KnowledgeBalanceRun:
    """Check the options, copy the board and its question pool, and queue the run on commit.

    Refuses (``PermissionDenied``) a board the user may not change, and (``ValidationError``)
    options out of range, a board the game cannot be played on, a pool too small; then
    nothing is stored. ``BalanceRefused`` while a run of this board is still working.
    """
    if not can_change(user, board):
        raise PermissionDenied(_("Only the teachers who may change this board can simulate it."))
    checked = balance_options_check(options)
    setup = board.as_setup()
    try:
        board_from_dict(setup)
    except InvalidSetup as error:
        raise ValidationError(_("The board cannot be played: %(error)s") % {"error": error}) from error
    rows = balance_pool(tags=[checked["tag"]] if checked["tag"] else None, language=checked["language"])
    if len(rows) < knowledge.CARDS_PER_ROUND:
        raise ValidationError(
            _(
                "The question pool has %(count)d published question(s); a game needs at least "
                "%(needed)d. Publish more questions or choose another tag or language."
            )
            % {"count": len(rows), "needed": knowledge.CARDS_PER_ROUND}
        )
    try:
        cards_from_rows(rows)
    except InvalidSetup as error:
        raise ValidationError(
            _("The question pool cannot be played: %(error)s") % {"error": error}
        ) from error
    with transaction.atomic():
        KnowledgeBoard.objects.select_for_update().filter(pk=board.pk).first()  # one start at a time
        if KnowledgeBalanceRun.objects.filter(board=board, state__in=WORKING).exists():
            raise BalanceRefused(_("A simulation of this board is still running; wait for its figures."))
        run = KnowledgeBalanceRun.objects.create(
            board=board,
            owner=user,
            options=checked,
            snapshot={"board": setup, "board_name": board.name, "questions": rows},
        )
        transaction.on_commit(partial(_enqueue, run.pk))
    return run


def balance_run_retry(*, run: KnowledgeBalanceRun, user: Any) -> KnowledgeBalanceRun:
    """ "Try again" on a run that failed: queue it again, from its snapshot."""
    if not can_change(user, run.board):
        raise PermissionDenied(_("Only the teachers who may change this board can simulate it."))
    with transaction.atomic():
        locked = KnowledgeBalanceRun.objects.select_for_update().get(pk=run.pk)
        if locked.state != BuildState.FAILED:
            raise BalanceRefused(_("Only a simulation that failed can be tried again."))
        locked.state, locked.progress, locked.message = BuildState.QUEUED, 0, ""
        locked.save(update_fields=["state", "progress", "message", "updated"])
        transaction.on_commit(partial(_enqueue, locked.pk))
    return locked


# --- Reads for the board's page -------------------------------------------------------------


def balance_latest(*, board: KnowledgeBoard) -> KnowledgeBalanceRun | None:
    """The board's newest run (by any teacher who may change the board)."""
    return KnowledgeBalanceRun.objects.filter(board=board).select_related("owner").first()


def balance_rows(run: KnowledgeBalanceRun) -> list[dict[str, Any]]:
    """The run's figures as the page's table shows them: variant, start, games won of
    played, the win rate in per cent, rounds a game, and the warning if any."""
    variants = {"basic": _("Basic"), "strategic": _("Strategic")}
    warnings = {
        "unwinnable": _("Nearly unwinnable: the team wins fewer than 1 game in 10."),
        "trivial": _("Trivial: the team wins 95 games in 100 or more."),
    }
    return [
        {
            "variant": variants.get(row["variant"], row["variant"]),
            "start": _("Harder start") if row["harder_start"] else _("Normal start"),
            "won": row["won"],
            "games": row["games"],
            "win_rate": row["win_rate"] * 100,
            "rounds": row["mean_rounds"],
            "warning": row.get("warning", ""),
            "warning_text": warnings.get(row.get("warning", ""), ""),
        }
        for row in run.figures
    ]


def balance_command(run: KnowledgeBalanceRun) -> str:
    """The command line that plays the same games as ``run`` (while the board and the pool
    are unchanged): ``python manage.py knowledge_simulate ...``."""
    options = run.options
    words = [
        "python manage.py knowledge_simulate",
        f"--board {run.board_id}",
        f"--games {options['games']}",
        f"--seed {options['seed']}",
        f"--knowledge {options['knowledge'] / 100}",
    ]
    if options.get("tag"):
        words.append(f"--tag {options['tag']}")
    if options.get("language"):
        words.append(f"--language {options['language']}")
    return " ".join(words)
