"""Homework grading hooks: the games report a graded attempt, the class's gradebook follows.

Contract (kept stable for the games and the LTI tool):

- ``games`` sends ``games.signals.quiz_attempt_graded`` or ``practice_run_finished`` inside
  the transaction that graded a quiz attempt or finished a practice run, and
  ``lms/receivers.py`` calls :func:`submission_graded`. If that attempt belongs to an assignment, the
  submission's score is stored, the assignment's attempt policy (best, last, first) picks
  the counted grade, and, when the counted grade changed, the LTI outbox gets a row
  (``lms.lti.outbox.score_enqueue``) in the same transaction.
- Attempts that belong to no assignment (a teacher's preview, a "review now" quiz) are
  ignored here.

Scores are kept out of the assignment's ``points_possible``: an attempt's share of its own
points (a quiz's items, a practice duel's namings) times the assignment's points.
"""

from __future__ import annotations

from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from games.models import NamingRecord
from lms.classes import quizzes
from lms.lti import outbox
from lms.models import Grade, Submission

CENT = Decimal("0.01")


def practice_fraction(run: Any, *, right: int, wrong: int) -> Decimal:
    """A ZnajZnak practice duel's share: right namings out of those a whole game needs.

    Getting rid of a hand of ``n`` cards takes ``n - 1`` namings (the last card is won by
    STOP alone, ZnajZnak rulebook, the duel), so a student who names all of those right
    scores 1; wrong namings and "I don't know" count against, and so do the namings a
    game cut short (by the clock or the opponent) never reached.
    """
    hand = int((run.session.setup or {}).get("cards_per_player") or 1)
    needed = max(1, hand - 1, right + wrong)
    return Decimal(right) / Decimal(needed)


def knowledge_fraction(session: Any) -> Decimal:
    """A Knowledge? game alone: the student's right guesses out of the cards they guessed.

    Each card the student resolved records whether the guess matched the card's back
    (Knowledge? rulebook, resolving a card); cards not guessed yet do not count.
    """
    history = (session.state or {}).get("history", [])
    guesses = [
        play for play in history if play.get("player") == "p1" and play.get("guess_correct") is not None
    ]
    if not guesses:
        return Decimal(0)
    return Decimal(sum(bool(play["guess_correct"]) for play in guesses)) / Decimal(len(guesses))


def practice_fraction_at(run: Any, until: datetime) -> Decimal:
    """A practice game's score from the namings made up to ``until`` (the due time)."""
    namings = NamingRecord.objects.filter(
        session_id=run.session_id, participant__player_id="p1", created__lte=until
    )
    right = namings.filter(correct=True).count()
    return practice_fraction(run, right=right, wrong=namings.count() - right)


def submission_graded(*, quiz_attempt: Any = None, practice_run: Any = None) -> None:
    """Record the score of a graded quiz attempt or finished practice run for its assignment."""
    if (quiz_attempt is None) == (practice_run is None):
        raise TypeError("submission_graded() takes one of quiz_attempt= or practice_run=")
    with transaction.atomic():
        submissions = Submission.objects.select_for_update(of=("self",)).select_related("assignment")
        if quiz_attempt is not None:
            submission = submissions.filter(quiz_attempt=quiz_attempt).first()
            if submission is None:
                return
            due_at = submission.assignment.due_at
            handed_in = quiz_attempt.submitted_at
            at_due = due_at is not None and handed_in is not None and handed_in >= due_at
            submission_score(
                submission=submission, fraction=quizzes.attempt_fraction(quiz_attempt), at_due=at_due
            )
            return
        submission = submissions.filter(practice_run=practice_run).first()
        if submission is None or submission.graded_at_due:
            return  # not homework, or already graded as it stood at the due time
        due_at = submission.assignment.due_at
        if due_at is not None and practice_run.finished is not None and practice_run.finished > due_at:
            # Finished after the due time before anything graded it: count what was done by then.
            submission_score(
                submission=submission, fraction=practice_fraction_at(practice_run, due_at), at_due=True
            )
            return
        fraction = practice_fraction(
            practice_run, right=practice_run.named_right, wrong=practice_run.named_wrong
        )
        submission_score(submission=submission, fraction=fraction)


def submission_score(
    *, submission: Any, fraction: Decimal, at_due: bool = False, now: datetime | None = None
) -> Any:
    """Store ``submission``'s score (its ``fraction`` of the points) and choose the counted grade again.

    The caller holds the submission's row lock inside its transaction.
    """
    assignment = submission.assignment
    fraction = max(Decimal(0), min(Decimal(1), fraction))
    submission.max_score = assignment.points_possible
    submission.score = (fraction * assignment.points_possible).quantize(CENT, rounding=ROUND_HALF_UP)
    submission.status = submission.Status.GRADED
    submission.graded_at = now or timezone.now()
    submission.graded_at_due = submission.graded_at_due or at_due
    submission.save(update_fields=["max_score", "score", "status", "graded_at", "graded_at_due"])
    return grade_recompute(assignment=assignment, student_id=submission.student_id)


def counted_submission(assignment: Any, graded: list[Any]) -> Any:
    """The attempt that counts under the assignment's policy, from its graded attempts.

    best: the highest score (the earlier attempt on a tie); last: the highest attempt
    number; first: the lowest.
    """
    if not graded:
        return None
    if assignment.policy == assignment.Policy.LAST:
        return max(graded, key=lambda s: s.number)
    if assignment.policy == assignment.Policy.FIRST:
        return min(graded, key=lambda s: s.number)
    return max(graded, key=lambda s: (s.score, -s.number))


@transaction.atomic
def grade_recompute(*, assignment: Any, student_id: int) -> Any:
    """Choose the counted grade again; queue it for the LMS when it changed. Returns the grade."""
    graded = list(
        Submission.objects.filter(
            assignment=assignment, student_id=student_id, status=Submission.Status.GRADED
        ).order_by("number")
    )
    counted = counted_submission(assignment, graded)
    grade = Grade.objects.select_for_update().filter(assignment=assignment, student_id=student_id).first()
    if counted is None:
        return grade
    if grade is None:
        grade = Grade(assignment=assignment, student_id=student_id)
    elif (grade.submission_id, grade.score, grade.max_score) == (
        counted.pk,
        counted.score,
        counted.max_score,
    ):
        return grade
    changed_score = grade.pk is None or (grade.score, grade.max_score) != (counted.score, counted.max_score)
    grade.submission = counted
    grade.score = counted.score
    grade.max_score = counted.max_score
    grade.save()
    if changed_score:
        outbox.score_enqueue(grade=grade)
    return grade


def game_session_finished(*, session: Any) -> None:
    """A game set as homework ended (a Knowledge? game alone): grade its submission now.

    Called (``lms/receivers.py``) in the transaction that finished the game; a game that is
    no homework's attempt is ignored.
    """
    pks = Submission.objects.filter(session=session, status=Submission.Status.IN_PROGRESS).values_list(
        "pk", flat=True
    )
    for pk in pks:
        knowledge_submission_grade(submission_id=pk, now=timezone.now())


def knowledge_submission_grade(*, submission_id: int, now: datetime) -> None:
    """Grade a finished Knowledge? game of a homework (once; the games report no result of their own)."""
    with transaction.atomic():
        submission = (
            Submission.objects.select_for_update(of=("self",))
            .select_related("assignment", "session")
            .filter(pk=submission_id, status=Submission.Status.IN_PROGRESS)
            .first()
        )
        if submission is None or submission.session is None:
            return
        submission_score(submission=submission, fraction=knowledge_fraction(submission.session), now=now)
