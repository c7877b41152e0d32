"""Quiz services: the only writers of quizzes, items, attempts and responses.

Generation runs in Celery (``tasks.quiz_generate_task``, enqueued on commit); every
grading happens here, on the server, with the answer keys that never left it. Grading an
attempt reports to the homework gradebook (``games.signals.quiz_attempt_graded``) and to
progress (``games.signals.item_answered``, once per graded item) in the same transaction.
"""

from __future__ import annotations

import dataclasses
import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, gettext_noop, ngettext

from content import jobs
from content.models import BuildState, KnowledgeQuestion, KnowQuestion, QuizQuestion, Status, Symbol
from content.permissions import content_visible_to, runs_for
from games.engines import quiz as engine
from games.engines.base import rng_for
from games.lobby import LobbyError, code_claim
from games.models import GameSession
from games.play.know.services import know_questions_keep
from games.services import SessionError
from games.signals import item_answered, items_answered, quiz_attempt_graded

from . import selectors, tasks
from .models import KIND_LABELS, Quiz, QuizAttempt, QuizItem, QuizResponse

DEFAULT_ITEMS = 20
MAX_ITEMS = 60
#: A follow-up quiz is made from what was played: a short game gives a shorter quiz, but
#: fewer items than this is no quiz worth setting as homework.
FOLLOWUP_MIN_ITEMS = 3
SEED_MAX = 2**31 - 1


class QuizError(LobbyError):
    """A quiz request was refused; ``code`` for programs, ``str(error)`` for people."""


#: What a quiz's code opens in the code space (``games.lobby``).
CODE_KIND = "quiz"


#: What each kind needs from the pool (``games.engines.quiz.TOO_SMALL``), for teachers.
TOO_SMALL_REASONS = {
    engine.PICTURE_NAME: gettext_lazy(
        "it needs symbols with a picture and at least 2 others whose names cannot be taken for theirs"
    ),
    engine.PICTURE_NAME_TYPED: gettext_lazy("it needs symbols with a picture"),
    engine.NAME_PICTURE: gettext_lazy(
        "it needs symbols with a picture and at least 2 others with different pictures"
    ),
    engine.PERIODS: gettext_lazy("it needs symbols with a period, and at least 2 periods to choose from"),
    engine.TEXT_SYMBOL: gettext_lazy(
        "it needs symbols with a description or outline that still says something "
        "once the name is blanked out"
    ),
    engine.KNOWLEDGE: gettext_lazy("it needs Knowledge? cards"),
    engine.KNOW: gettext_lazy("it needs Know questions"),
    engine.CONNECT: gettext_lazy(
        "it needs handfuls of 4 symbols in 2 periods or themes, 2 per group, each in only one group"
    ),
    engine.PERIOD: gettext_lazy(
        "it needs symbols of exactly one period, and at least 3 periods to choose from"
    ),
    engine.CHRONOLOGY: gettext_lazy(
        "it needs chronology questions, or handfuls of 3 symbols with dates that can be told apart"
    ),
    engine.MATCHING: gettext_lazy(
        "it needs matching questions, or handfuls of 3 symbols, each with its own period, "
        "theme or description"
    ),
    engine.CHOICE: gettext_lazy("it needs multiple-choice questions written by teachers"),
}


def _too_small_message(error: engine.QuizTooSmall) -> str:
    """The engine's reason, in the teacher's language."""
    if not error.kind:
        return ngettext(
            "What this quiz is built from gives only %(made)d item, not %(wanted)d. Add symbols (with "
            "pictures, periods and descriptions) or Knowledge? questions, or ask for fewer items.",
            "What this quiz is built from gives only %(made)d items, not %(wanted)d. Add symbols (with "
            "pictures, periods and descriptions) or Knowledge? questions, or ask for fewer items.",
            error.available,
        ) % {"made": error.available, "wanted": error.wanted}
    return _(
        "Too few for “%(kind)s” items: %(made)d can be made, not %(wanted)d: %(reason)s. "
        "Ask for fewer of them or build from more content."
    ) % {
        "kind": KIND_LABELS[error.kind],
        "made": error.available,
        "wanted": error.wanted,
        "reason": TOO_SMALL_REASONS[error.kind],
    }


def _counts_check(counts: Mapping[str, int] | None, total: int) -> dict[str, int] | None:
    if not 1 <= total <= MAX_ITEMS:
        raise QuizError("bad_total", _("A quiz has from 1 to %(max)d items.") % {"max": MAX_ITEMS})
    if counts is None:
        return None
    clean = {}
    for kind, count in counts.items():
        if kind not in engine.KINDS:
            raise QuizError("bad_kind", _("Unknown item kind %(kind)s.") % {"kind": kind})
        if not isinstance(count, int) or count < 0:
            raise QuizError("bad_count", _("Give a whole number of items of each kind, 0 or more."))
        if count:
            clean[kind] = count
    if not clean:
        raise QuizError("no_items", _("Ask for at least one item."))
    if sum(clean.values()) > MAX_ITEMS:
        raise QuizError("bad_total", _("A quiz has from 1 to %(max)d items.") % {"max": MAX_ITEMS})
    return clean


# --- creating and generating --------------------------------------------------------------------


def quiz_create(
    *,
    owner: Any,
    title: str,
    source: str,
    pool: engine.Pool,
    source_description: str = "",
    session: GameSession | None = None,
    student: Any = None,
    total: int = DEFAULT_ITEMS,
    counts: Mapping[str, int] | None = None,
    seed: int | None = None,
    enqueue: bool = True,
) -> Quiz:
    """A quiz waiting to be generated from ``pool``; the Celery task is enqueued on commit.

    ``counts`` (items per kind) wins over ``total``; without it the total is shared out
    among the kinds the pool allows (``games.engines.quiz.counts_plan``).
    """
    if not getattr(owner, "can_author", False):
        raise QuizError("not_teacher", _("Only teachers make quizzes."))
    clean = _counts_check(counts, total)
    if not pool.symbols and not pool.knowledge and not pool.know and not pool.questions:
        raise QuizError(
            "empty_pool", _("There is nothing to build a quiz from: no symbols, cards or questions.")
        )
    title = (title or "").strip()[:160] or _("Quiz")
    with transaction.atomic():
        quiz = Quiz.objects.create(
            title=title,
            owner=owner,
            source=source,
            source_description=source_description[:300],
            session=session,
            student=student,
            seed=seed if seed is not None else secrets.randbelow(SEED_MAX),
            pool=selectors.pool_to_dict(pool),
            # The worker has no request: it writes its messages in the teacher's language.
            options={"total": total, "counts": clean, "language": translation.get_language()},
            state=BuildState.QUEUED,
        )
        code_claim(kind=CODE_KIND, obj=quiz, error=QuizError)
        if enqueue:
            transaction.on_commit(lambda: tasks.quiz_generate_task.delay(quiz.pk))
    return quiz


def quiz_create_imported(
    *,
    owner: Any,
    uid: Any,
    title: str,
    source: str,
    source_description: str,
    seed: int,
    options: Mapping[str, Any],
    pool: Mapping[str, Any],
    items: Iterable[engine.Item],
) -> Quiz:
    """A quiz made elsewhere, from a package (``games.quiz.packages``): built already, a
    draft of ``owner`` with a code of its own; its items are the package's, in order.

    The caller checked the items (their kinds and shapes, that they grade) and turned
    the package's content keys and pictures into this installation's.
    """
    if not getattr(owner, "can_author", False):
        raise QuizError("not_teacher", _("Only teachers make quizzes."))
    quiz = Quiz.objects.create(
        uid=uid,
        title=title[:160] or _("Quiz"),
        owner=owner,
        source=source,
        source_description=source_description[:300],
        seed=seed,
        pool=dict(pool),
        options=dict(options),
        state=BuildState.DONE,
        progress=100,
    )
    code_claim(kind=CODE_KIND, obj=quiz, error=QuizError)
    QuizItem.objects.bulk_create(
        QuizItem(
            quiz=quiz, position=position, kind=item.kind, prompt=item.prompt, key=item.key, points=item.points
        )
        for position, item in enumerate(items, start=1)
    )
    return quiz


def _know_questions_keep(session: GameSession, by: Any) -> None:
    """Know: every question asked in the quiz gets a row in ``by``'s question bank, so its
    answers report to progress as ``know:<pk>`` (the Know "keep these questions" service;
    keeping twice adds nothing)."""
    if session.game != "know":
        return

    try:
        know_questions_keep(session=session, by=by)
    except SessionError as error:
        raise QuizError(error.code, str(error)) from error


def _session_check(session: GameSession, by: Any) -> None:
    if not runs_for(by, session.facilitator_id):
        raise QuizError("not_yours", _("Only the teacher who ran this game makes its follow-up quiz."))
    if reason := selectors.followup_unavailable(session):
        raise QuizError("no_followup", reason)
    if session.status != GameSession.Status.FINISHED:
        raise QuizError("not_finished", _("The game is not over yet; make its quiz when it has ended."))


def _followup_title(session: GameSession) -> str:
    when = timezone.localtime(session.finished_at or session.updated)
    return _("Follow-up: %(game)s, %(when)s") % {
        "game": session.get_game_display(),
        "when": f"{when:%Y-%m-%d}",
    }


def quiz_create_from_session(*, session: GameSession, by: Any, total: int = DEFAULT_ITEMS) -> Quiz:
    """The follow-up quiz of a finished game: its symbols (wrongly named ones weigh more),
    the Knowledge? cards drawn, the Know questions with their best-marked answers (kept in
    the teacher's question bank first, in the same transaction)."""
    _session_check(session, by)
    with transaction.atomic():
        _know_questions_keep(session, by)
        return quiz_create(
            owner=by,
            title=_followup_title(session),
            source=Quiz.Source.SESSION,
            source_description=str(session),
            session=session,
            pool=selectors.pool_from_session(session),
            total=total,
        )


def quizzes_create_from_session_for_students(
    *, session: GameSession, by: Any, students: Iterable[Any], total: int = DEFAULT_ITEMS
) -> list[Quiz]:
    """One follow-up quiz per student who played ``session`` (signed in), each weighing that
    student's own wrongly named symbols more; built together in one Celery task.

    Refused when a student did not play the game or none is chosen; nothing is written then.
    """
    _session_check(session, by)
    students = list(students)
    if not students:
        raise QuizError("no_students", _("Choose at least one student who played the game."))
    played = set(selectors.session_students(session).values_list("pk", flat=True))
    if any(getattr(student, "pk", None) not in played for student in students):
        raise QuizError("not_a_player", _("Quizzes per student are only for students who played this game."))
    _counts_check(None, total)
    with transaction.atomic():
        _know_questions_keep(session, by)
        return quizzes_create_for_students(
            owner=by,
            students=students,
            title=_followup_title(session),
            source=Quiz.Source.SESSION,
            pool=selectors.pool_from_session(session),
            total=total,
            session=session,
            source_description=str(session),
        )


def quizzes_create_for_students(
    *,
    owner: Any,
    students: Iterable[Any],
    title: str,
    source: str,
    pool: engine.Pool,
    total: int = DEFAULT_ITEMS,
    session: GameSession | None = None,
    source_description: str = "",
) -> list[Quiz]:
    """One quiz per student, each with its own seed (and, after a game, that student's own
    wrongly named symbols weighing more), generated together in one Celery task."""
    quizzes = []
    with transaction.atomic():
        for student in students:
            own = pool
            if session is not None:
                own = selectors.pool_from_session(session, student=student)
            quizzes.append(
                quiz_create(
                    owner=owner,
                    title=f"{title} · {student.get_username()}",
                    source=source,
                    source_description=source_description,
                    session=session,
                    student=student,
                    pool=own,
                    total=total,
                    enqueue=False,
                )
            )
        pks = [quiz.pk for quiz in quizzes]
        transaction.on_commit(lambda: tasks.quizzes_generate_task.delay(pks))
    return quizzes


def _progress(quiz_id: int, progress: int, state: str = BuildState.RUNNING, message: str = "") -> None:
    Quiz.objects.filter(pk=quiz_id).update(
        state=state, progress=progress, message=message, updated=timezone.now()
    )


def quiz_generate(*, quiz: Quiz, plan_cache: dict[str, Any] | None = None) -> Quiz:
    """Generate the items of ``quiz`` in the language it was asked for (``_generate``)."""
    with translation.override((quiz.options or {}).get("language") or None):
        return _generate(quiz=quiz, plan_cache=plan_cache)


def _followup_shorter(quiz: Quiz, pool: engine.Pool, error: engine.QuizTooSmall) -> tuple[list[Any], str]:
    """A follow-up quiz whose game gave fewer items than asked: as many as it gives, down to
    ``FOLLOWUP_MIN_ITEMS``, with a note that says so; otherwise ``error`` stands."""
    if quiz.source != Quiz.Source.SESSION or error.kind or error.available < FOLLOWUP_MIN_ITEMS:
        raise error
    counts = engine.counts_plan(pool, error.available, seed=quiz.seed)
    items = engine.generate(pool, counts, quiz.seed)
    note = ngettext(
        "The game gave only %(made)d item, so the quiz has %(made)d, not %(wanted)d.",
        "The game gave only %(made)d items, so the quiz has %(made)d, not %(wanted)d.",
        len(items),
    ) % {"made": len(items), "wanted": error.wanted}
    return items, note


def _generate(*, quiz: Quiz, plan_cache: dict[str, Any] | None = None) -> Quiz:
    """Generate the items of ``quiz`` from its pool snapshot (deterministic for its seed).

    A pool too small for the quiz leaves it FAILED with the reason for the teacher and
    no items, except a follow-up quiz, which is made shorter (``_followup_shorter``): a
    short game is no reason to send the class away with nothing. ``plan_cache`` lets a
    batch share the share-out of one pool.

    Only a QUEUED quiz is generated, or a RUNNING one whose worker died before the sweep
    got to it (a task the broker handed out again); a FAILED one waits for
    :func:`quiz_retry`, a DONE one is left alone.
    """
    with transaction.atomic():
        locked = Quiz.objects.select_for_update().get(pk=quiz.pk)
        lost = locked.state == BuildState.RUNNING and locked.updated < jobs.stale_cutoff()
        if locked.state != BuildState.QUEUED and not lost:
            return locked
        _progress(quiz.pk, 10)
    pool = selectors.pool_from_dict(quiz.pool)
    counts: dict[str, int] = (quiz.options or {}).get("counts") or {}
    chosen = bool(counts)
    total = int((quiz.options or {}).get("total") or DEFAULT_ITEMS)
    note = ""
    try:
        try:
            if not chosen:
                cache_key = repr((sorted(quiz.pool.items(), key=lambda kv: kv[0]), total))
                cached = (plan_cache or {}).get(cache_key)
                if cached is None:
                    cached = engine.counts_plan(pool, total, seed=quiz.seed)
                    if plan_cache is not None:
                        plan_cache[cache_key] = cached
                counts = cached
            _progress(quiz.pk, 50)
            try:
                items = engine.generate(pool, counts, quiz.seed)
            except engine.QuizTooSmall:
                if chosen:
                    raise
                # A share-out found for another seed may not fit this one: find its own.
                counts = engine.counts_plan(pool, total, seed=quiz.seed)
                items = engine.generate(pool, counts, quiz.seed)
        except engine.QuizTooSmall as error:
            if chosen:
                raise
            items, note = _followup_shorter(quiz, pool, error)
    except engine.QuizTooSmall as error:
        _progress(quiz.pk, 100, BuildState.FAILED, _too_small_message(error))
        quiz.refresh_from_db()
        return quiz
    with transaction.atomic():
        locked = Quiz.objects.select_for_update().get(pk=quiz.pk)
        if locked.state == BuildState.DONE:
            return locked  # a redelivered task: the quiz was generated already
        QuizItem.objects.filter(quiz=locked).delete()
        QuizItem.objects.bulk_create(
            QuizItem(
                quiz=locked,
                position=position,
                kind=item.kind,
                prompt=dict(item.prompt),
                key=dict(item.key),
                points=item.points,
            )
            for position, item in enumerate(items, start=1)
        )
        locked.state = BuildState.DONE
        locked.progress = 100
        locked.message = note
        locked.save(update_fields=["state", "progress", "message", "updated"])
    return locked


def quiz_fail(*, quiz_id: int, message: str) -> None:
    _progress(quiz_id, 100, BuildState.FAILED, message)


#: What a quiz whose worker died says (``quizzes_sweep``); translated where it is shown.
STOPPED = gettext_noop(
    "The worker generating this quiz stopped before it finished: it may have been "
    "restarted. Try again; tell an admin if it happens again."
)


def quiz_retry(*, quiz: Quiz, by: Any) -> Quiz:
    """ "Try again" for a quiz whose generation FAILED: queue it again, from its pool snapshot."""
    with transaction.atomic():
        locked = Quiz.objects.select_for_update().get(pk=quiz.pk)
        if not runs_for(by, locked.owner_id):
            raise QuizError("not_yours", _("This is another teacher's quiz."))
        if locked.state != BuildState.FAILED:
            raise QuizError("not_failed", _("Only a quiz whose generation failed can be tried again."))
        locked.state, locked.progress, locked.message = BuildState.QUEUED, 0, ""
        locked.save(update_fields=["state", "progress", "message", "updated"])
        transaction.on_commit(lambda: tasks.quiz_generate_task.delay(locked.pk))
    return locked


def quizzes_requeue(*, now: datetime | None = None) -> int:
    """Send again to the queue every quiz waiting there too long (``content.jobs.queued_cutoff``):
    the rest of a batch whose worker died, a task the broker lost."""
    now = now or timezone.now()
    with transaction.atomic():
        waiting = list(
            Quiz.objects.select_for_update(skip_locked=True)
            .filter(state=BuildState.QUEUED, updated__lt=jobs.queued_cutoff(now))
            .values_list("pk", flat=True)
        )
        Quiz.objects.filter(pk__in=waiting).update(updated=now)
        for pk in waiting:
            transaction.on_commit(partial(tasks.quiz_generate_task.delay, pk))
    return len(waiting)


def quizzes_sweep(*, now: datetime | None = None) -> int:
    """Mark FAILED every quiz still RUNNING whose heartbeat stopped (its worker died)."""
    stale = Quiz.objects.filter(state=BuildState.RUNNING, updated__lt=jobs.stale_cutoff(now))
    return stale.update(state=BuildState.FAILED, message=STOPPED, updated=timezone.now())


# --- editing and publishing ---------------------------------------------------------------------


def _editable(quiz: Quiz, by: Any) -> Quiz:
    locked = Quiz.objects.select_for_update().get(pk=quiz.pk)
    if not runs_for(by, locked.owner_id):
        raise QuizError("not_yours", _("This is another teacher's quiz."))
    if locked.state != BuildState.DONE:
        raise QuizError("not_built", _("The quiz is still being generated."))
    if locked.status != Quiz.Status.DRAFT:
        raise QuizError("published", _("A published quiz cannot be changed; students may be taking it."))
    return locked


def _renumber(quiz: Quiz) -> None:
    items = list(quiz.items.order_by("position"))
    # Two passes keep the (quiz, position) constraint satisfied at every step.
    for offset, item in enumerate(items, start=1):
        item.position = 1000 + offset
    QuizItem.objects.bulk_update(items, ["position"])
    for offset, item in enumerate(items, start=1):
        item.position = offset
    QuizItem.objects.bulk_update(items, ["position"])


def quiz_item_drop(*, item: QuizItem, by: Any) -> Quiz:
    """Remove an item from a draft quiz (the last item stays: a quiz is never empty)."""
    with transaction.atomic():
        quiz = _editable(item.quiz, by)
        if quiz.items.count() <= 1:
            raise QuizError("last_item", _("A quiz keeps at least one item; replace it instead."))
        set_aside = set(quiz.options.get("set_aside", [])) | set(item.as_engine_item().subjects)
        QuizItem.objects.filter(pk=item.pk, quiz=quiz).delete()
        _renumber(quiz)
        quiz.options = {**quiz.options, "set_aside": sorted(set_aside)}
        quiz.save(update_fields=["options", "updated"])
    return quiz


def quiz_item_replace(*, item: QuizItem, by: Any, kind: str | None = None) -> QuizItem:
    """Replace an item with a new one (of ``kind``, or the same kind) about a subject no
    other item of the quiz asks about and that the teacher has not replaced or dropped."""
    with transaction.atomic():
        quiz = _editable(item.quiz, by)
        kind = kind or item.kind
        if kind not in engine.KINDS:
            raise QuizError("bad_kind", _("Unknown item kind %(kind)s.") % {"kind": kind})
        others = quiz.items.exclude(pk=item.pk)
        used = {subject for other in others for subject in other.as_engine_item().subjects}
        # What the teacher replaced or dropped is not offered again.
        set_aside = set(quiz.options.get("set_aside", [])) | set(item.as_engine_item().subjects)
        used |= set_aside
        pool = selectors.pool_from_dict(quiz.pool)
        replacements = quiz.options.get("replacements", 0) + 1
        new = engine.item_new(pool, kind, rng_for(quiz.seed, "replace", replacements), used)
        if new is None:
            raise QuizError(
                "too_small",
                _("No other “%(kind)s” item can be made from what this quiz was built from.")
                % {"kind": KIND_LABELS[kind]},
            )
        item.kind, item.prompt, item.key, item.points = new.kind, dict(new.prompt), dict(new.key), new.points
        item.save(update_fields=["kind", "prompt", "key", "points"])
        quiz.options = {**quiz.options, "replacements": replacements, "set_aside": sorted(set_aside)}
        quiz.save(update_fields=["options", "updated"])
    return item


def quiz_publish(*, quiz: Quiz, by: Any, time_limit_minutes: int | None = None) -> Quiz:
    """Open the quiz to students (its items no longer change).

    ``time_limit_minutes`` applies to attempts started from the quiz's own link; homework
    sets its own (``attempt_start(time_limit=...)``).
    """
    if time_limit_minutes is not None and not 1 <= time_limit_minutes <= 600:
        raise QuizError("bad_time_limit", _("A time limit is from 1 to 600 minutes."))
    with transaction.atomic():
        locked = _editable(quiz, by)
        if not locked.items.exists():
            raise QuizError("empty", _("A quiz without items cannot be published."))
        locked.status = Quiz.Status.PUBLISHED
        locked.published_at = timezone.now()
        locked.options = {**locked.options, "time_limit_minutes": time_limit_minutes}
        locked.save(update_fields=["status", "published_at", "options", "updated"])
    return locked


# --- taking -------------------------------------------------------------------------------------


def attempt_start(
    *,
    quiz: Quiz,
    student: Any,
    deadline: datetime | None = None,
    time_limit: timedelta | None = None,
    now: datetime | None = None,
) -> QuizAttempt:
    """A new attempt of ``student`` at a published ``quiz``.

    The attempt closes at the earlier of ``deadline`` and now + ``time_limit``; the
    server refuses answers after that and grades what was saved.
    """
    now = now or timezone.now()
    if quiz.status != Quiz.Status.PUBLISHED or quiz.state != BuildState.DONE:
        raise QuizError("not_published", _("This quiz is not open yet."))
    if quiz.student_id is not None and quiz.student_id != getattr(student, "pk", None):
        raise QuizError("not_yours", _("This quiz was made for another student."))
    if deadline is not None and deadline <= now:
        raise QuizError("deadline_passed", _("The time for this quiz is over."))
    if time_limit is not None and time_limit <= timedelta(0):
        raise QuizError("bad_time_limit", _("A time limit is a positive number of minutes."))
    ends = [when for when in (deadline, now + time_limit if time_limit else None) if when is not None]
    with transaction.atomic():
        return QuizAttempt.objects.create(
            quiz=quiz,
            student=student,
            started_at=now,
            deadline=min(ends) if ends else None,
            max_score=quiz.max_score,
        )


def attempt_resume_or_start(*, quiz: Quiz, student: Any, time_limit: timedelta | None = None) -> QuizAttempt:
    """The student's open attempt at ``quiz`` if there is one, a new one otherwise."""
    with transaction.atomic():
        open_attempt = selectors.attempt_open_for(quiz=quiz, student=student)
        if open_attempt is not None:
            return open_attempt
        return attempt_start(quiz=quiz, student=student, time_limit=time_limit)


def _overdue(attempt: QuizAttempt, now: datetime) -> bool:
    return attempt.deadline is not None and now >= attempt.deadline


def attempt_answer_save(
    *, attempt: QuizAttempt, item_id: int, answer: Any, now: datetime | None = None
) -> QuizResponse:
    """Save one answer as the student goes (autosave); a later save replaces it.

    Refused once the attempt is submitted or its deadline has passed (the attempt is
    then graded as it stands).
    """
    now = now or timezone.now()
    with transaction.atomic():
        locked = QuizAttempt.objects.select_for_update().get(pk=attempt.pk)
        if not locked.is_open:
            raise QuizError("submitted", _("This attempt has been handed in; answers can no longer change."))
        if _overdue(locked, now):
            raise QuizError("time_up", _("Time is up: answers are no longer taken."))
        item = QuizItem.objects.filter(pk=item_id, quiz_id=locked.quiz_id).first()
        if item is None:
            raise QuizError("bad_item", _("This item is not part of the quiz."))
        try:
            clean = engine.answer_clean(item.as_engine_item(), answer)
        except engine.InvalidAnswer as error:
            raise QuizError("bad_answer", str(error)) from error
        response, _created = QuizResponse.objects.update_or_create(
            attempt=locked, item=item, defaults={"answer": clean, "saved_at": now}
        )
        if response.first_answered_at is None and _answered(clean):
            response.first_answered_at = now
            response.save(update_fields=["first_answered_at"])
    return response


def _answered(clean: Mapping[str, Any]) -> bool:
    """Whether a stored answer says something (autosave also stores a cleared one)."""
    return any(value not in (None, "", [], {}) for value in clean.values())


def attempt_submit(
    *, attempt: QuizAttempt, answers: Mapping[int, Any] | None = None, now: datetime | None = None
) -> QuizAttempt:
    """Hand the attempt in (saving ``answers`` first, as a page without JavaScript sends
    them) and grade it."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = QuizAttempt.objects.select_for_update().get(pk=attempt.pk)
        if not locked.is_open:
            return locked
        if _overdue(locked, now):
            # Late: what was saved before the deadline counts, nothing sent now.
            return _grade_locked(locked, submitted_at=locked.deadline or now, now=now)
        for item_id, answer in (answers or {}).items():
            attempt_answer_save(attempt=locked, item_id=item_id, answer=answer, now=now)
        return _grade_locked(locked, submitted_at=now, now=now)


def attempt_grade(*, attempt: QuizAttempt, now: datetime | None = None) -> QuizAttempt:
    """Grade a submitted attempt again from its responses (after a teacher's mark, say)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = QuizAttempt.objects.select_for_update().get(pk=attempt.pk)
        return _grade_locked(locked, submitted_at=locked.submitted_at or now, now=now)


def _grade_locked(attempt: QuizAttempt, *, submitted_at: datetime, now: datetime) -> QuizAttempt:
    items = list(QuizItem.objects.filter(quiz_id=attempt.quiz_id).order_by("position"))
    responses = selectors.attempt_responses(attempt)
    self_marked = bool((attempt.quiz.options or {}).get(SELF_MARKED))
    total = 0.0
    waiting = False
    for item in items:
        response = responses.get(item.pk)
        if response is None:
            response = QuizResponse.objects.create(
                attempt=attempt, item=item, answer={}, saved_at=submitted_at
            )
        engine_item = item.as_engine_item()
        needs_marking, score = _response_grade(engine_item, response, self_marked=self_marked)
        if not needs_marking and not response.reviewed:
            fraction = score / item.points if item.points else 0.0
            _review(attempt, engine_item, response.answer, fraction, now)
            response.reviewed = True
        response.save(update_fields=["score", "needs_marking", "feedback", "reviewed"])
        waiting = waiting or needs_marking
        total += 0.0 if needs_marking else float(score)
    attempt.submitted_at = attempt.submitted_at or submitted_at
    attempt.score = round(total, 2)
    attempt.max_score = sum(item.points for item in items)
    attempt.graded_at = None if waiting else now
    attempt.status = QuizAttempt.Status.MARKING if waiting else QuizAttempt.Status.GRADED
    attempt.save(update_fields=["submitted_at", "score", "max_score", "graded_at", "status"])
    if not waiting:
        quiz_attempt_graded.send(sender=QuizAttempt, attempt=attempt)
    return attempt


def _response_grade(
    engine_item: engine.Item, response: QuizResponse, *, self_marked: bool
) -> tuple[bool, float]:
    """Grade one response in hand (score, feedback; not saved): whether it waits for the
    teacher's mark, and its score."""
    result = engine.grade(engine_item, response.answer)
    if result.needs_marking and self_marked:
        result = dataclasses.replace(result, needs_marking=False)  # scored 0: wrong
    needs_marking = result.needs_marking and response.teacher_mark is None
    score = response.teacher_mark if response.teacher_mark is not None else result.score
    response.score = None if needs_marking else score
    response.needs_marking = result.needs_marking
    response.feedback = [
        {"label": p.label, "correct": p.correct, "given": p.given, "expected": p.expected}
        for p in result.parts
    ]
    return needs_marking, score


def _review_results(item: engine.Item, answer: Any, fraction: float) -> list[tuple[str, float]]:
    """What progress hears of one graded item: each subject it knows, and how right."""
    if item.kind in engine.SPLIT_KINDS:
        results = engine.subject_results(item, answer)
    else:
        results = {subject: fraction for subject in item.subjects}
    return [
        (subject, max(0.0, min(1.0, correct)))
        for subject, correct in results.items()
        if selectors.progress_key(subject)
    ]


def _review(attempt: QuizAttempt, item: engine.Item, answer: Any, fraction: float, now: datetime) -> None:
    """Tell progress about each subject of one graded item (keys progress knows only)."""
    for subject, correct in _review_results(item, answer, fraction):
        item_answered.send(
            sender=QuizAttempt,
            user=attempt.student,
            item_key=subject,
            correct=correct,
            reviewed_at=now,
            source="quiz",
        )


def attempts_record(
    *, quiz: Quiz, answers_of: Sequence[tuple[Any, Mapping[int, Any]]], now: datetime | None = None
) -> list[QuizAttempt]:
    """One attempt per student, started, answered and handed in at once: a class's results.

    ``answers_of`` holds ``(student, answers)`` pairs, ``answers`` as ``attempt_submit``
    takes them.  The attempts, responses, grades and signals are those of ``attempt_start``
    then ``attempt_submit`` for each student in turn, but the statements do not grow with
    the answers: the attempts and their responses are inserted in bulk, each item is read
    once, and progress hears every answer in one ``items_answered``.  Refused as a whole
    (``QuizError``, nothing written) if the quiz is not open to every student or an answer
    is not one the item takes.
    """
    now = now or timezone.now()
    if quiz.status != Quiz.Status.PUBLISHED or quiz.state != BuildState.DONE:
        raise QuizError("not_published", _("This quiz is not open yet."))
    if quiz.student_id is not None and any(quiz.student_id != student.pk for student, _a in answers_of):
        raise QuizError("not_yours", _("This quiz was made for another student."))
    items = list(QuizItem.objects.filter(quiz_id=quiz.pk).order_by("position"))
    engine_items = {item.pk: item.as_engine_item() for item in items}
    self_marked = bool((quiz.options or {}).get(SELF_MARKED))
    attempts: list[QuizAttempt] = []
    responses_of: list[list[QuizResponse]] = []
    reviews: list[tuple[Any, str, float]] = []
    for student, answers in answers_of:
        clean_of = {}
        for item_id, answer in answers.items():
            if item_id not in engine_items:
                raise QuizError("bad_item", _("This item is not part of the quiz."))
            try:
                clean_of[item_id] = engine.answer_clean(engine_items[item_id], answer)
            except engine.InvalidAnswer as error:
                raise QuizError("bad_answer", str(error)) from error
        responses = []
        total = 0.0
        waiting = False
        for item in items:
            clean = clean_of.get(item.pk, {})
            answered = item.pk in clean_of and _answered(clean)
            response = QuizResponse(
                item=item, answer=clean, saved_at=now, first_answered_at=now if answered else None
            )
            engine_item = engine_items[item.pk]
            needs_marking, score = _response_grade(engine_item, response, self_marked=self_marked)
            if not needs_marking:
                fraction = score / item.points if item.points else 0.0
                reviews.extend(
                    (student, key, correct) for key, correct in _review_results(engine_item, clean, fraction)
                )
                response.reviewed = True
            responses.append(response)
            waiting = waiting or needs_marking
            total += 0.0 if needs_marking else float(score)
        attempts.append(
            QuizAttempt(
                quiz=quiz,
                student=student,
                started_at=now,
                deadline=None,
                submitted_at=now,
                score=round(total, 2),
                max_score=sum(item.points for item in items),
                graded_at=None if waiting else now,
                status=QuizAttempt.Status.MARKING if waiting else QuizAttempt.Status.GRADED,
            )
        )
        responses_of.append(responses)
    with transaction.atomic():
        QuizAttempt.objects.bulk_create(attempts)
        for attempt, responses in zip(attempts, responses_of, strict=True):
            for response in responses:
                response.attempt = attempt
        QuizResponse.objects.bulk_create([response for responses in responses_of for response in responses])
        if reviews:
            items_answered.send(sender=QuizAttempt, answers=reviews, reviewed_at=now, source="quiz")
        for attempt in attempts:
            if attempt.status == QuizAttempt.Status.GRADED:
                quiz_attempt_graded.send(sender=QuizAttempt, attempt=attempt)
    return attempts


def attempt_mark(*, response: QuizResponse, mark: float, by: Any, now: datetime | None = None) -> QuizAttempt:
    """The teacher marks a typed Know answer that did not match the best answers; the
    attempt is graded again (and, once nothing waits, reported)."""
    now = now or timezone.now()
    with transaction.atomic():
        locked = (
            QuizResponse.objects.select_for_update()
            .select_related("attempt__quiz", "item")
            .get(pk=response.pk)
        )
        if not runs_for(by, locked.attempt.quiz.owner_id):
            raise QuizError(
                "not_yours",
                _("Only the quiz's teacher and the co-teachers of their classes mark its answers."),
            )
        if not locked.needs_marking or locked.attempt.is_open:
            raise QuizError("not_waiting", _("This answer does not wait for a mark."))
        if not 0 <= mark <= locked.item.points:
            raise QuizError("bad_mark", _("A mark is from 0 to %(points)d.") % {"points": locked.item.points})
        locked.teacher_mark = float(mark)
        locked.marked_by = by
        locked.save(update_fields=["teacher_mark", "marked_by"])
        return attempt_grade(attempt=locked.attempt, now=now)


def attempts_grade_overdue(
    now: datetime | None = None, *, attempts: QuerySet[QuizAttempt] | None = None
) -> int:
    """Grade every open attempt whose deadline has passed, as it stands; how many.

    The deadline is the due time or the end of the time limit, whichever comes first, so
    this also closes timed attempts nobody came back to, with or without a due time.
    ``attempts`` narrows the search (a class's homework); all attempts otherwise.
    """
    now = now or timezone.now()
    count = 0
    scope = attempts if attempts is not None else QuizAttempt.objects.all()
    for pk in scope.filter(
        status=QuizAttempt.Status.IN_PROGRESS, deadline__isnull=False, deadline__lte=now
    ).values_list("pk", flat=True):
        with transaction.atomic():
            locked = QuizAttempt.objects.select_for_update().get(pk=pk)
            if locked.is_open:
                _grade_locked(locked, submitted_at=locked.deadline or now, now=now)
                count += 1
    return count


def attempt_close_if_overdue(attempt: QuizAttempt, now: datetime | None = None) -> QuizAttempt:
    """The attempt a student opens, graded as it stands if its time is up.

    Only this attempt: opening a page never grades anyone else's work (the beat task
    ``homework-due-sweep`` and the due-time task grade the others).
    """
    now = now or timezone.now()
    if attempt.is_open and attempt.deadline and now >= attempt.deadline:
        attempts_grade_overdue(now, attempts=QuizAttempt.objects.filter(pk=attempt.pk))
        attempt.refresh_from_db()
    return attempt


# --- review: a student's own items ---------------------------------------------------------------

#: ``Quiz.options`` flag of a review the student asked for: no teacher marks it, so a typed
#: Know answer that matches none of the accepted answers is wrong rather than queued.
SELF_MARKED = "self_marked"

#: A review quiz has at most this many items: a few minutes' work.
REVIEW_ITEMS = 10
#: Symbols that only lend their names and pictures as distractors weigh next to nothing, so
#: the items ask about the items due (``games.engines.quiz`` picks heavier subjects first).
WEIGHT_DUE = 1000.0
WEIGHT_DISTRACTOR = 1e-6


def review_quiz_create(*, student: Any, item_keys: Iterable[str], owner: Any = None) -> Quiz:
    """A published quiz on ``student``'s own items (due and weakest first), generated now.

    ``item_keys`` come from ``lms.progress.selectors.review_keys``; the symbols, Knowledge?
    cards and Know questions among them are asked about, the other symbols the student may
    see supply the distractors. A Know answer is typed and right when it matches an accepted
    answer; otherwise it waits for the assigning teacher's mark, or, in a review the student
    asked for (no teacher), counts as wrong (:data:`SELF_MARKED`).
    ``owner`` is the teacher who assigned it ("assign review"), or the student who asked
    for it ("review now"). Raises ``QuizError`` when nothing can be asked.
    """
    keys = list(item_keys)[:REVIEW_ITEMS]
    symbol_ids = {int(key.split(":")[1]) for key in keys if key.startswith("symbol:")}
    knowledge_ids = {int(key.split(":")[1]) for key in keys if key.startswith("knowledge:")}
    know_ids = {int(key.split(":")[1]) for key in keys if key.startswith("know:")}
    question_ids = {int(key.split(":")[1]) for key in keys if key.startswith("question:")}
    visible = content_visible_to(student, Symbol.objects.filter(status=Status.PUBLISHED))
    symbols = selectors.symbols_with_relations(Symbol.objects.filter(pk__in=symbol_ids))
    distractors = selectors.symbols_with_relations(visible.exclude(pk__in=symbol_ids))
    weights = {pk: WEIGHT_DUE for pk in symbol_ids}
    weights.update({symbol.pk: WEIGHT_DISTRACTOR for symbol in distractors})
    knowledge = selectors.knowledge_entries(
        KnowledgeQuestion.objects.filter(pk__in=knowledge_ids).order_by("pk")
    )
    know = selectors.know_entries(KnowQuestion.objects.filter(pk__in=know_ids).order_by("pk"))
    # A teacher's question the student answered before is asked again as it reads now (each
    # one in the pool is asked: ``engine.counts_plan``).
    questions = selectors.question_entries(
        selectors.questions_with_options(QuizQuestion.objects.filter(pk__in=question_ids))
    )
    self_review = owner is None or getattr(owner, "pk", None) == getattr(student, "pk", None)
    if self_review:
        # "Review now" has no teacher to mark a typed answer: a Know question is asked only
        # if it has accepted answers, and an answer matching none of them counts as wrong.
        know = [entry for entry in know if entry.best_answers]
    pool = selectors.pool_build(
        symbols=[*symbols, *distractors], weights=weights, knowledge=knowledge, know=know, questions=questions
    )
    asked = len(symbols) + len(knowledge) + len(know) + sum(engine.capacity_of_questions(pool).values())
    if not asked and know_ids:
        raise QuizError(
            "nothing_due",
            _(
                "Nothing to review now: your items due are Know questions without accepted answers "
                "yet, which only your teacher can mark."
            ),
        )
    if not asked:
        raise QuizError("nothing_due", _("Nothing to review yet: play a game or do a quiz first."))
    symbol_share = 6 * len(symbols)
    mix = {
        engine.PICTURE_NAME: 2 * symbol_share,
        engine.PICTURE_NAME_TYPED: symbol_share,
        engine.NAME_PICTURE: symbol_share,
        engine.PERIODS: symbol_share,
        engine.PERIOD: symbol_share,
        engine.TEXT_SYMBOL: symbol_share,
        engine.KNOWLEDGE: 36 * len(knowledge),
        engine.KNOW: 36 * len(know),
        # Chronology and matching items made of symbols would ask about the distractors too:
        # a review asks the student's own items only. Teachers' questions are asked anyway.
    }
    seed = secrets.randbelow(SEED_MAX)
    try:
        counts = engine.counts_plan(pool, asked, seed=seed, mix=mix)
    except engine.QuizTooSmall as error:
        raise QuizError("too_small", _too_small_message(error)) from error
    with transaction.atomic():
        quiz = Quiz.objects.create(
            title=_("Review"),
            owner=owner or student,
            source=Quiz.Source.REVIEW,
            source_description=", ".join(keys)[:300],
            student=student,
            seed=seed,
            pool=selectors.pool_to_dict(pool),
            options={"total": asked, "counts": counts, SELF_MARKED: self_review},
            state=BuildState.QUEUED,
        )
        code_claim(kind=CODE_KIND, obj=quiz, error=QuizError)
        quiz = quiz_generate(quiz=quiz)
        if quiz.state != BuildState.DONE:
            raise QuizError("too_small", quiz.message)
        Quiz.objects.filter(pk=quiz.pk).update(status=Quiz.Status.PUBLISHED, published_at=timezone.now())
        quiz.refresh_from_db()
    return quiz
