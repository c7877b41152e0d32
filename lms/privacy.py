"""A student's data: who may ask for it, a copy of all of it, and its erasure.

GDPR gives a student (through their school) the right of access and portability
(articles 15 and 20: a copy of their data in a machine-readable form) and the right to
erasure (article 17). Talia answers both per student:

- ``student_data_export`` gathers everything Talia holds about one student: account,
  classes, homework attempts and grades, quiz answers, progress and reviews, games played,
  names given in games, workshops and the LMS identity.
- ``student_erase`` removes the account, their answers, attempts, grades and progress, and
  replaces their name wherever a game keeps it (participants, setups, states, action logs)
  by a pseudonym, so that game logs still replay but name nobody. The audit log keeps that
  the erasure happened, by whom, under the pseudonym only.

A teacher may do this for the students of the classes they own or co-teach (erasure only
when every class of the student is theirs); an admin for every student.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from typing import Any

from auditlog.models import LogEntry
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.db.models import Q
from django.http import HttpResponse, JsonResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from lti_tool.models import LtiUser

from games.models import NamingRecord, Participant, PracticeRun
from games.quiz.models import QuizAttempt
from games.workshop.models import WorkshopParticipant
from lms.classes import selectors as class_selectors
from lms.models import ClassMember, Grade, LoginCard, Role, SchoolClass, Submission
from lms.progress.models import MemoryState, Review

#: The version of the export's JSON layout; raise it when a key changes meaning.
EXPORT_FORMAT = 1


class PrivacyRefused(Exception):
    """The request may not be carried out; the message says why, for the person asking."""


def _iso(value: Any) -> str | None:
    return value.isoformat() if value is not None else None


def _number(value: Any) -> float | None:
    return float(value) if value is not None else None


# --- who may ask --------------------------------------------------------------------------------


def student_classes(student: Any) -> list[SchoolClass]:
    """The classes ``student`` is a student in."""
    return list(
        SchoolClass.objects.filter(members__user=student, members__role=ClassMember.Role.STUDENT).order_by(
            "pk"
        )
    )


def _taught(by: Any) -> set[int]:
    return set(class_selectors.classes_taught_by(by).values_list("pk", flat=True))


def student_for_privacy(*, by: Any, student_id: int, erase: bool = False) -> Any:
    """The student ``by`` may export (or, with ``erase``, erase), or ``None``.

    ``None`` also for a student ``by`` may not see, so nobody learns who exists.
    """
    student = get_user_model().objects.filter(pk=student_id, role=Role.STUDENT).first()
    if student is None or by is None or not by.is_authenticated:
        return None
    if by.is_admin:
        return student
    if not by.is_teacher:
        return None
    classes = {c.pk for c in student_classes(student)}
    taught = _taught(by)
    if not classes & taught:
        return None
    if erase and not classes <= taught:
        raise PrivacyRefused(
            _("This student is also in classes you do not teach. Ask an administrator to erase the account.")
        )
    return student


# --- access and portability ---------------------------------------------------------------------


def _participations(student: Any) -> list[dict[str, Any]]:
    rows = Participant.objects.filter(user=student).select_related("session").order_by("joined_at", "pk")
    return [
        {
            "game": p.session.game,
            "variant": p.session.variant,
            "session": p.session_id,
            "role": p.role,
            "nickname": p.nickname,
            "player": p.player_id,
            "joined": _iso(p.joined_at),
            "session_status": p.session.status,
            "finished": _iso(p.session.finished_at),
        }
        for p in rows
    ]


def _attempts(student: Any) -> list[dict[str, Any]]:
    attempts = (
        QuizAttempt.objects.filter(student=student)
        .select_related("quiz")
        .prefetch_related("responses__item")
        .order_by("started_at", "pk")
    )
    return [
        {
            "quiz": attempt.quiz.title,
            "started": _iso(attempt.started_at),
            "submitted": _iso(attempt.submitted_at),
            "graded": _iso(attempt.graded_at),
            "status": attempt.status,
            "score": attempt.score,
            "max_score": attempt.max_score,
            "answers": [
                {
                    "position": response.item.position,
                    "kind": response.item.kind,
                    "answer": response.answer,
                    "score": response.score,
                    "teacher_mark": response.teacher_mark,
                    "saved": _iso(response.saved_at),
                    "first_answered": _iso(response.first_answered_at),
                }
                for response in attempt.responses.all()
            ],
        }
        for attempt in attempts
    ]


def student_data_export(*, student: Any) -> dict[str, Any]:
    """Everything Talia holds about ``student``, as JSON-ready data (GDPR art. 15 and 20)."""
    submissions = Submission.objects.filter(student=student).select_related("assignment").order_by("pk")
    grades = Grade.objects.filter(student=student).select_related("assignment").order_by("pk")
    return {
        "format": EXPORT_FORMAT,
        "exported": timezone.now().isoformat(),
        "account": {
            "username": student.get_username(),
            "first_name": student.first_name,
            "last_name": student.last_name,
            "email": student.email,
            "role": student.role,
            "joined": _iso(student.date_joined),
            "last_login": _iso(student.last_login),
        },
        "lms_identities": [
            {"platform": u.registration.issuer, "name": u.name, "email": u.email}
            for u in LtiUser.objects.filter(auth_user=student).select_related("registration")
        ],
        "classes": [
            {"name": m.school_class.name, "joined": _iso(m.joined)}
            for m in ClassMember.objects.filter(user=student, role=ClassMember.Role.STUDENT).select_related(
                "school_class"
            )
        ],
        "classes_waiting_for_approval": [
            {"name": m.school_class.name, "since": _iso(m.joined)}
            for m in ClassMember.objects.filter(user=student, role=ClassMember.Role.PENDING).select_related(
                "school_class"
            )
        ],
        # When each card was made, used and closed; its one-time password is never stored.
        "login_cards": [
            {
                "class": c.school_class.name if c.school_class else None,
                "made": _iso(c.created),
                "valid_until": _iso(c.expires_at),
                "qr_link_used": _iso(c.link_used_at),
                "closed": _iso(c.closed_at),
            }
            for c in LoginCard.objects.filter(student=student)
            .select_related("school_class")
            .order_by("created")
        ],
        "homework_attempts": [
            {
                "homework": s.assignment.title,
                "attempt": s.number,
                "status": s.status,
                "score": _number(s.score),
                "max_score": _number(s.max_score),
                "started": _iso(s.started),
                "graded": _iso(s.graded_at),
            }
            for s in submissions
        ],
        "grades": [
            {
                "homework": g.assignment.title,
                "score": _number(g.score),
                "max_score": _number(g.max_score),
                "updated": _iso(g.updated),
            }
            for g in grades
        ],
        "quiz_attempts": _attempts(student),
        "games": _participations(student),
        "practice_games": [
            {
                "mode": run.mode,
                "started": _iso(run.started),
                "finished": _iso(run.finished),
                "won": run.won,
                "seconds": run.seconds,
                "named_right": run.named_right,
                "named_wrong": run.named_wrong,
            }
            for run in PracticeRun.objects.filter(student=student).order_by("started", "pk")
        ],
        "names_given_in_games": [
            {
                "session": n.session_id,
                "symbol": n.symbol_name,
                "typed": n.text,
                "correct": n.correct,
                "did_not_know": n.dont_know,
                "at": _iso(n.created),
            }
            for n in NamingRecord.objects.filter(user=student).order_by("created", "pk")
        ],
        "workshops": [
            {"workshop": w.workshop_id, "nickname": w.nickname, "joined": _iso(w.joined_at)}
            for w in WorkshopParticipant.objects.filter(user=student).order_by("joined_at", "pk")
        ],
        "progress": [
            {
                "item": m.item_key,
                "answers": m.reviews,
                "right": m.correct,
                "due": _iso(m.due),
                "last_answered": _iso(m.last_reviewed),
            }
            for m in MemoryState.objects.filter(user=student).order_by("item_key")
        ],
        "reviews": [
            {"item": r.item_key, "score": r.correct, "at": _iso(r.reviewed_at), "source": r.source}
            for r in Review.objects.filter(user=student).order_by("reviewed_at", "pk")
        ],
    }


def student_data_exported(*, student: Any, by: Any) -> None:
    """Record in the audit log that ``by`` took a copy of ``student``'s data."""
    LogEntry.objects.log_create(
        student,
        force_log=True,
        action=LogEntry.Action.ACCESS,
        changes={"data": ["", "exported"]},
        actor=by,
    )


def student_data_download(*, student: Any, by: Any) -> HttpResponse:
    """The export of ``student`` as a JSON download for ``by``, recorded in the audit log."""
    data = student_data_export(student=student)
    student_data_exported(student=student, by=by)
    response = JsonResponse(data, json_dumps_params={"ensure_ascii": False, "indent": 2})
    response["Content-Disposition"] = (
        f'attachment; filename="talia-student-{student.pk}-{timezone.localdate():%Y-%m-%d}.json"'
    )
    return response


# --- erasure ------------------------------------------------------------------------------------


def _replace(value: Any, names: frozenset[str], pseudonym: str) -> Any:
    """``value`` (JSON) with every string equal to one of ``names`` replaced by ``pseudonym``."""
    if isinstance(value, str):
        return pseudonym if value in names else value
    if isinstance(value, list):
        return [_replace(item, names, pseudonym) for item in value]
    if isinstance(value, dict):
        return {key: _replace(item, names, pseudonym) for key, item in value.items()}
    return value


def _names_of(student: Any, nicknames: Iterable[str]) -> frozenset[str]:
    names = {student.get_username(), student.get_full_name().strip(), *nicknames}
    return frozenset(name for name in names if name)


def _pseudonymise_games(student: Any, pseudonym: str) -> int:
    participants = list(
        Participant.objects.select_for_update().filter(user=student).select_related("session")
    )
    for participant in participants:
        session = participant.session
        names = _names_of(student, [participant.nickname])
        session.setup = _replace(session.setup, names, pseudonym)
        session.state = _replace(session.state, names, pseudonym)
        session.save(update_fields=["setup", "state"])
        for record in session.actions.all():
            action = _replace(record.action, names, pseudonym)
            if action != record.action:
                record.action = action
                record.save(update_fields=["action"])
        participant.user = None
        participant.token = ""
        participant.nickname = pseudonym
        participant.save(update_fields=["user", "token", "nickname"])
    for member in WorkshopParticipant.objects.select_for_update().filter(user=student):
        member.user = None
        member.token = ""
        member.nickname = pseudonym
        member.save(update_fields=["user", "token", "nickname"])
    return len(participants)


def _scrub_audit_log(names: frozenset[str], entry_ids: list[int], pseudonym: str) -> None:
    """Entries by the student (``entry_ids``) or naming them keep what happened, not who it was."""
    LogEntry.objects.filter(pk__in=entry_ids).update(actor=None, actor_email=None, remote_addr=None)
    mentions = Q()
    for name in names:
        mentions |= Q(object_repr__contains=name) | Q(changes_text__contains=name)
    longest_first = sorted(names, key=len, reverse=True)
    for entry in LogEntry.objects.filter(mentions):
        for name in longest_first:
            entry.object_repr = entry.object_repr.replace(name, pseudonym)
            entry.changes_text = entry.changes_text.replace(name, pseudonym)
        entry.changes = json.loads(_replace_text(json.dumps(entry.changes), longest_first, pseudonym))
        entry.save(update_fields=["object_repr", "changes_text", "changes"])


def _replace_text(text: str, names: list[str], pseudonym: str) -> str:
    for name in names:
        text = text.replace(json.dumps(name)[1:-1], pseudonym)
    return text


@transaction.atomic
def student_erase(*, student: Any, by: Any) -> str:
    """Erase ``student`` (GDPR art. 17) and return the pseudonym that replaced their name.

    Their account, LMS identity, class memberships, homework attempts, grades, quiz
    answers, names given in games, practice games and progress go. Games they played keep
    their log, with the pseudonym in place of the name, so a game still replays. Scores
    already sent to an LMS stay there: the LMS erases its own copy.
    """
    pseudonym = f"anon-{secrets.token_hex(4)}"
    student = get_user_model().objects.select_for_update().get(pk=student.pk)
    user_id = student.pk
    names = _names_of(student, [])
    games = _pseudonymise_games(student, pseudonym)
    by_student = list(LogEntry.objects.filter(actor=student).values_list("pk", flat=True))
    LtiUser.objects.filter(auth_user=student).delete()
    # The account's own rows follow it (on_delete=CASCADE): memberships, attempts and
    # answers, grades, outbox rows, namings, practice games, memory and reviews. The audit
    # log records those deletions under the student's name: scrubbed right after.
    student.delete()
    _scrub_audit_log(names, by_student, pseudonym)
    LogEntry.objects.create(
        content_type=ContentType.objects.get_for_model(get_user_model()),
        object_pk=str(user_id),
        object_id=user_id,
        object_repr=pseudonym,
        action=LogEntry.Action.DELETE,
        changes={"erased": ["", f"{games} games pseudonymised"]},
        changes_text=f"erased; {games} games pseudonymised",
        actor=by,
        timestamp=timezone.now(),
    )
    return pseudonym
