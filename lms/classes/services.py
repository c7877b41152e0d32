"""Writes to classes, members, assignments and submissions; the only place that changes them.

Grades are written by ``lms.grading`` (the games report a graded attempt there); this
module starts attempts and grades what was still in progress when homework was due.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from content.models import Deck
from games import selectors as game_selectors
from games import services as game_services
from games.lobby import code_claim, code_release, join_code_normalise
from games.models import PracticeAssignment
from games.play.knowledge.services import KnowledgeOptions, homework_token, knowledge_solo_start
from games.play.znajznak.practice import practice_assignment_create, practice_start
from lms import grading
from lms.models import Assignment, ClassMember, Grade, SchoolClass, Submission

from . import quizzes, tasks
from .errors import ClassError
from .selectors import when_shown

#: What a class's code opens in the code space (``games.lobby``).
CODE_KIND = "class"
NAME_MAX_LENGTH = 120
TITLE_MAX_LENGTH = 160
POINTS_MAX = Decimal("10000")
ATTEMPTS_MAX = 50
TIME_LIMIT_MAX_MINUTES = 600


# --- who may do what -----------------------------------------------------------------------------


def is_class_teacher(school_class: SchoolClass, user: Any) -> bool:
    """The class's owner or a co-teacher."""
    if not getattr(user, "is_authenticated", False):
        return False
    if school_class.teacher_id == user.pk:
        return True
    return ClassMember.objects.filter(
        school_class=school_class, user=user, role=ClassMember.Role.TEACHER
    ).exists()


def _require_teacher(school_class: SchoolClass, user: Any) -> None:
    # A teacher who does not teach the class may not know it exists.
    if not is_class_teacher(school_class, user):
        raise ClassError("not_found", _("No such class."))


# --- classes -------------------------------------------------------------------------------------


def _name_clean(name: str) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise ClassError("invalid_name", _("Give the class a name, for example “3b History”."))
    if len(name) > NAME_MAX_LENGTH:
        raise ClassError(
            "invalid_name", _("A class name has at most %(n)d characters.") % {"n": NAME_MAX_LENGTH}
        )
    return name


def class_create(*, teacher: Any, name: str) -> SchoolClass:
    """A new class of ``teacher`` with a fresh join code."""
    if not getattr(teacher, "can_author", False):
        raise ClassError("not_allowed", _("Only teachers create classes."))
    name = _name_clean(name)
    with transaction.atomic():
        school_class = SchoolClass.objects.create(name=name, teacher=teacher)
        code_claim(kind=CODE_KIND, obj=school_class, error=ClassError)
    return school_class


@transaction.atomic
def class_update(
    *,
    school_class: SchoolClass,
    by: Any,
    name: str | None = None,
    archived: bool | None = None,
    signup: str | None = None,
) -> SchoolClass:
    """Rename, archive or bring back a class, or say whether students make their own accounts
    with its code (``SchoolClass.Signup``). A class brought back gets a fresh code if its own is taken."""
    school_class = SchoolClass.objects.select_for_update().get(pk=school_class.pk)
    _require_teacher(school_class, by)
    fields = []
    if name is not None:
        school_class.name = _name_clean(name)
        fields.append("name")
    if signup is not None:
        if signup not in SchoolClass.Signup.values:
            raise ClassError("invalid", _("Choose whether students make their own accounts with the code."))
        school_class.signup = signup
        fields.append("signup")
    if archived is not None and archived != school_class.archived:
        school_class.archived = archived
        fields.append("archived")
    if fields:
        school_class.save(update_fields=fields)
    if "archived" in fields and archived:
        code_release(kind=CODE_KIND, obj=school_class)
    elif "archived" in fields:
        code_claim(kind=CODE_KIND, obj=school_class, error=ClassError, prefer=school_class.join_code)
    return school_class


@transaction.atomic
def class_code_renew(*, school_class: SchoolClass, by: Any) -> SchoolClass:
    """A new join code (the old one stops working), for a code that went round too far."""
    school_class = SchoolClass.objects.select_for_update().get(pk=school_class.pk)
    _require_teacher(school_class, by)
    if school_class.archived:
        raise ClassError("archived", _("An archived class has no join code; bring it back first."))
    code_claim(kind=CODE_KIND, obj=school_class, error=ClassError)
    return school_class


def class_join(*, code: str, student: Any) -> ClassMember:
    """``student`` joins the class whose code they typed; joining twice is harmless."""
    if not getattr(student, "is_authenticated", False):
        raise ClassError("not_allowed", _("Sign in to join a class: your homework is kept for you."))
    if getattr(student, "role", None) != "student":
        raise ClassError(
            "not_allowed",
            _(
                "Only students join classes with a code. "
                "A teacher is added as a co-teacher by the class's teacher."
            ),
        )
    normalised = join_code_normalise(code or "")
    if not normalised:
        raise ClassError("invalid_code", _("Type the class code your teacher shows, for example K7M2QX."))
    with transaction.atomic():
        candidates = list(SchoolClass.objects.select_for_update().filter(join_code=normalised))
        active = next((c for c in candidates if not c.archived), None)
        if active is None:
            # An archived class's code answers as an unknown one: whoever guesses codes
            # must not learn which ones were ever used.
            raise ClassError(
                "unknown_code",
                _(
                    "No class has the code %(code)s. "
                    "Check it with your teacher (0 and O, 1 and I are never used)."
                )
                % {"code": normalised},
            )
        member, created = ClassMember.objects.get_or_create(
            school_class=active, user=student, defaults={"role": ClassMember.Role.STUDENT}
        )
        return member


@transaction.atomic
def class_member_add(*, school_class: SchoolClass, user: Any, role: str, by: Any = None) -> ClassMember:
    """Add ``user`` to the class (or change their role): a co-teacher, or a student from a roster.

    ``by`` is the teacher doing it; ``None`` when a trusted system does (an LMS roster).
    """
    school_class = SchoolClass.objects.select_for_update().get(pk=school_class.pk)
    if by is not None:
        _require_teacher(school_class, by)
    if role not in ClassMember.Role.values:
        raise ClassError("invalid_role", _("A member is a student or a co-teacher."))
    if role == ClassMember.Role.TEACHER and not getattr(user, "can_author", False):
        raise ClassError("not_allowed", _("Only a teacher can be a co-teacher."))
    if role == ClassMember.Role.TEACHER and by is not None and by.pk != school_class.teacher_id:
        # A co-teacher sees and runs the owner's quizzes, decks and games: the owner decides who.
        raise ClassError("not_allowed", _("Only the class's own teacher adds co-teachers."))
    if user.pk == school_class.teacher_id:
        raise ClassError("owner", _("The class's own teacher is not a member of it."))
    member, created = ClassMember.objects.get_or_create(
        school_class=school_class, user=user, defaults={"role": role}
    )
    if not created and member.role != role:
        member.role = role
        member.save(update_fields=["role"])
    return member


@transaction.atomic
def class_member_remove(*, school_class: SchoolClass, user: Any, by: Any) -> None:
    """Take ``user`` out of the class. Their submissions and grades stay, for the record.

    A co-teacher may also leave a class themselves."""
    school_class = SchoolClass.objects.select_for_update().get(pk=school_class.pk)
    _require_teacher(school_class, by)
    members = ClassMember.objects.filter(school_class=school_class, user=user)
    leaving = by.pk == getattr(user, "pk", None)
    if (
        by.pk != school_class.teacher_id
        and not leaving
        and members.filter(role=ClassMember.Role.TEACHER).exists()
    ):
        raise ClassError("not_allowed", _("Only the class's own teacher removes a co-teacher."))
    deleted, _rows = members.delete()
    if not deleted:
        raise ClassError("not_member", _("That person is not in this class."))


# --- handing a class over --------------------------------------------------------------------------


def _require_owner(school_class: SchoolClass, by: Any) -> None:
    _require_teacher(school_class, by)
    if school_class.teacher_id != by.pk:
        raise ClassError("not_allowed", _("Only the class's own teacher hands it over."))


@transaction.atomic
def class_handover_offer(*, school_class: SchoolClass, to: Any, by: Any) -> SchoolClass:
    """The owner offers the class to another teacher; it is theirs once they accept.

    The other teacher must accept because the class's co-teachers (the old owner among
    them) will see and run their quizzes, decks and games.
    """
    school_class = SchoolClass.objects.select_for_update().get(pk=school_class.pk)
    _require_owner(school_class, by)
    if to is None or not getattr(to, "can_author", False):
        raise ClassError("unknown_user", _("No teacher has that username."))
    if to.pk == by.pk:
        raise ClassError("owner", _("The class is yours already; type another teacher's username."))
    school_class.handover_to = to
    school_class.save(update_fields=["handover_to"])
    return school_class


@transaction.atomic
def class_handover_cancel(*, school_class: SchoolClass, by: Any) -> SchoolClass:
    school_class = SchoolClass.objects.select_for_update().get(pk=school_class.pk)
    _require_owner(school_class, by)
    school_class.handover_to = None
    school_class.save(update_fields=["handover_to"])
    return school_class


@transaction.atomic
def class_handover_answer(*, school_class: SchoolClass, by: Any, accept: bool) -> SchoolClass:
    """The teacher the class was offered to takes it (the old owner stays as a co-teacher) or declines."""
    school_class = SchoolClass.objects.select_for_update().get(pk=school_class.pk)
    if not getattr(by, "is_authenticated", False) or school_class.handover_to_id != by.pk:
        raise ClassError("not_found", _("No such class."))
    if not getattr(by, "can_author", False):
        raise ClassError("not_allowed", _("Only a teacher takes over a class."))
    school_class.handover_to = None
    if accept:
        previous = school_class.teacher
        # The new owner is no member of their own class; the old one becomes a co-teacher.
        ClassMember.objects.filter(school_class=school_class, user=by).delete()
        school_class.teacher = by
        ClassMember.objects.update_or_create(
            school_class=school_class, user=previous, defaults={"role": ClassMember.Role.TEACHER}
        )
    school_class.save(update_fields=["handover_to", "teacher"])
    return school_class


# --- assignments ---------------------------------------------------------------------------------


def _decimal(value: Any, *, message: str) -> Decimal:
    """``value`` as a finite number; ``message`` (a whole sentence naming the field) if not."""
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise ClassError("invalid", message) from None
    if not number.is_finite():
        raise ClassError("invalid", message)
    return number


def _assignment_check(fields: dict[str, Any]) -> dict[str, Any]:
    """The assignment's settings, checked together; refusals say what to change."""
    title = " ".join((fields.get("title") or "").split())
    if not title:
        raise ClassError("invalid_title", _("Give the homework a title."))
    if len(title) > TITLE_MAX_LENGTH:
        raise ClassError(
            "invalid_title", _("A title has at most %(n)d characters.") % {"n": TITLE_MAX_LENGTH}
        )
    fields["title"] = title
    opens_at, due_at = fields.get("opens_at"), fields.get("due_at")
    if opens_at and due_at and opens_at >= due_at:
        raise ClassError("invalid_dates", _("The homework must open before it is due."))
    max_attempts = fields.get("max_attempts")
    if max_attempts is not None and not 1 <= int(max_attempts) <= ATTEMPTS_MAX:
        raise ClassError(
            "invalid_attempts",
            _("Allow 1 to %(n)d attempts, or leave it empty for no limit.") % {"n": ATTEMPTS_MAX},
        )
    if fields.get("policy") not in Assignment.Policy.values:
        raise ClassError("invalid_policy", _("Choose which attempt counts: the best, the last or the first."))
    limit = fields.get("time_limit_minutes")
    if limit is not None and not 1 <= int(limit) <= TIME_LIMIT_MAX_MINUTES:
        raise ClassError(
            "invalid_time_limit",
            _("A time limit is 1 to %(n)d minutes, or empty for none.") % {"n": TIME_LIMIT_MAX_MINUTES},
        )
    points = _decimal(fields.get("points_possible", 10), message=_("Points possible must be a number."))
    if not Decimal(0) < points <= POINTS_MAX or points != points.quantize(Decimal("0.01")):
        raise ClassError(
            "invalid_points",
            _("Points possible are more than 0 and at most %(n)s, in hundredths at most.")
            % {"n": POINTS_MAX},
        )
    fields["points_possible"] = points
    return fields


def _quiz_check(quiz: Any, by: Any) -> None:
    if quiz is None:
        raise ClassError("no_quiz", _("Choose the quiz to assign."))
    if not quizzes.available() or not quizzes.quizzes_assignable_by(by).filter(pk=quiz.pk).exists():
        raise ClassError("no_quiz", _("That quiz is not one of your published quizzes."))


#: What a ZnajZnak practice assignment keeps in ``game_options``, with its defaults.
PRACTICE_OPTIONS = {
    "deck": None,
    "card_set": "",
    "mode": PracticeAssignment.Mode.EITHER.value,
    "cards_per_player": 5,
    "bot_seconds": "8",
    "bot_accuracy": 80,
}


def _practice_create(*, by: Any, title: str, options: dict[str, Any], time_limit_minutes: int | None) -> Any:
    """The ``games`` practice behind a game assignment, made from a deck the teacher may use."""
    options = {**PRACTICE_OPTIONS, **(options or {})}
    deck = options.get("deck")
    deck_pk = deck.pk if isinstance(deck, Deck) else deck
    # Only a deck the teacher may play (theirs, or the owner's of a class they co-teach).
    deck = game_selectors.decks_playable_by(by).filter(pk=deck_pk).first() if deck_pk else None
    if deck is None:
        raise ClassError("no_deck", _("Choose the deck the practice duel is dealt from."))
    try:
        practice = practice_assignment_create(
            owner=by,
            title=title,
            deck=deck,
            card_set=str(options["card_set"] or ""),
            mode=options["mode"],
            cards_per_player=int(options["cards_per_player"]),
            bot_seconds=_decimal(
                options["bot_seconds"], message=_("The opponent's seconds must be a number.")
            ),
            bot_accuracy=int(options["bot_accuracy"]),
            timer=time_limit_minutes * 60 if time_limit_minutes else None,
        )
    except game_services.SessionError as error:
        raise ClassError(error.code, str(error)) from None
    stored = {
        **options,
        "deck": deck.pk,
        "bot_seconds": str(practice.bot_seconds),
        "card_set": practice.card_set,
    }
    return practice, stored


#: What a Knowledge? homework keeps in ``game_options``, with its defaults.
KNOWLEDGE_OPTIONS = {"board": None, "variant": "basic", "harder_start": False}


def knowledge_options(options: dict[str, Any]) -> Any:
    """The ``games`` Knowledge? options of a homework's ``game_options``."""
    options = {**KNOWLEDGE_OPTIONS, **(options or {})}
    board = options["board"]
    return KnowledgeOptions(
        board_id=int(getattr(board, "pk", board) or 0),
        variant=str(options["variant"]),
        harder_start=bool(options["harder_start"]),
    )


def _knowledge_check(*, by: Any, options: dict[str, Any]) -> dict[str, Any]:
    """Refuse a Knowledge? game the teacher's board and questions cannot deal."""
    options = {**KNOWLEDGE_OPTIONS, **(options or {})}
    if not options["board"]:
        raise ClassError("no_board", _("Choose the board the Knowledge? game is played on."))
    chosen = knowledge_options(options)
    try:
        homework_token(teacher=by, options=chosen)
    except game_services.SessionError as error:
        raise ClassError(error.code, str(error)) from None
    return {"board": chosen.board_id, "variant": chosen.variant, "harder_start": chosen.harder_start}


def _kind_setup(*, by: Any, fields: dict[str, Any]) -> dict[str, Any]:
    kind = fields.get("kind")
    if kind == Assignment.Kind.QUIZ:
        _quiz_check(fields.get("quiz"), by)
        return {"game": "", "game_options": {}, "practice": None, "quiz": fields.get("quiz")}
    if kind == Assignment.Kind.REVIEW:
        # Adaptive homework: each student's quiz is built from their own memory when they start.
        return {"game": "", "game_options": {}, "practice": None, "quiz": None}
    if kind == Assignment.Kind.GAME and fields.get("game") == Assignment.Game.KNOWLEDGE_SOLO:
        options = _knowledge_check(by=by, options=fields.get("game_options") or {})
        return {"game": fields["game"], "game_options": options, "practice": None, "quiz": None}
    if kind == Assignment.Kind.GAME:
        if fields.get("game") != Assignment.Game.ZNAJZNAK_PRACTICE:
            raise ClassError("invalid_game", _("Choose the game to assign."))
        practice, options = _practice_create(
            by=by,
            title=fields["title"],
            options=fields.get("game_options") or {},
            time_limit_minutes=fields.get("time_limit_minutes"),
        )
        return {"game": fields["game"], "game_options": options, "practice": practice, "quiz": None}
    raise ClassError("invalid_kind", _("Assign a quiz or a game."))


ASSIGNMENT_FIELDS = (
    "title",
    "instructions",
    "opens_at",
    "due_at",
    "max_attempts",
    "policy",
    "time_limit_minutes",
    "points_possible",
)


def _set_quiz(assignment: Assignment, quiz: Any) -> None:
    assignment.quiz = quiz


def assignment_create(
    *,
    school_class: SchoolClass,
    by: Any,
    title: str,
    kind: str,
    quiz: Any = None,
    game: str = "",
    game_options: dict[str, Any] | None = None,
    instructions: str = "",
    opens_at: datetime | None = None,
    due_at: datetime | None = None,
    max_attempts: int | None = 1,
    policy: str = Assignment.Policy.BEST,
    time_limit_minutes: int | None = None,
    points_possible: Any = 10,
    publish: bool = False,
) -> Assignment:
    """New homework for a class, a draft unless ``publish``; a game gets its practice made now."""
    fields = _assignment_check(
        {
            "title": title,
            "instructions": instructions or "",
            "opens_at": opens_at,
            "due_at": due_at,
            "max_attempts": max_attempts,
            "policy": policy,
            "time_limit_minutes": time_limit_minutes,
            "points_possible": points_possible,
            "kind": kind,
            "quiz": quiz,
            "game": game,
            "game_options": game_options,
        }
    )
    with transaction.atomic():
        school_class = SchoolClass.objects.select_for_update().get(pk=school_class.pk)
        _require_teacher(school_class, by)
        if school_class.archived:
            raise ClassError("archived", _("An archived class gets no new homework."))
        setup = _kind_setup(by=by, fields=fields)
        assignment = Assignment(
            school_class=school_class,
            kind=kind,
            game=setup["game"],
            game_options=setup["game_options"],
            practice=setup["practice"],
            **{name: fields[name] for name in ASSIGNMENT_FIELDS},
        )
        _set_quiz(assignment, setup["quiz"])
        assignment.save()
        if publish:
            assignment = assignment_publish(assignment=assignment, by=by)
        return assignment


@transaction.atomic
def assignment_update(*, assignment: Assignment, by: Any, **changes: Any) -> Assignment:
    """Change homework's settings. What was assigned and its points stay once a student started.

    A new attempt policy takes effect at once: every student's counted grade is chosen
    again (and sent to the LMS where it changed). A due time moved later lets students
    start again; attempts already graded at the old due time stay graded.
    """
    assignment = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("school_class")
        .get(pk=assignment.pk)
    )
    _require_teacher(assignment.school_class, by)
    unknown = set(changes) - set(ASSIGNMENT_FIELDS) - {"kind", "quiz", "game", "game_options"}
    if unknown:
        raise TypeError(f"assignment_update() does not change {', '.join(sorted(unknown))}")
    fields = {name: getattr(assignment, name) for name in ASSIGNMENT_FIELDS}
    fields.update(
        kind=assignment.kind,
        quiz=assignment.quiz,
        game=assignment.game,
        game_options=dict(assignment.game_options),
    )
    fields.update(changes)
    fields = _assignment_check(fields)
    started = assignment.submissions.exists()
    what_changed = (
        fields["kind"] != assignment.kind
        or fields["game"] != assignment.game
        or getattr(fields["quiz"], "pk", None) != assignment.quiz_id
        or (
            fields["game"] == Assignment.Game.ZNAJZNAK_PRACTICE
            and "game_options" in changes
            and _options_normal(assignment.game_options) != _options_normal(changes["game_options"])
        )
        or (
            fields["game"] == Assignment.Game.KNOWLEDGE_SOLO
            and "game_options" in changes
            and knowledge_options(assignment.game_options) != knowledge_options(changes["game_options"])
        )
        or (
            assignment.game == Assignment.Game.ZNAJZNAK_PRACTICE
            and fields["time_limit_minutes"] != assignment.time_limit_minutes
        )
    )
    if started and what_changed:
        raise ClassError(
            "started",
            _("Students have started this homework, so what it assigns stays. Make new homework instead."),
        )
    if started and fields["points_possible"] != assignment.points_possible:
        raise ClassError(
            "started",
            _("Students have been graded out of %(n)s points; the points stay.")
            % {"n": assignment.points_possible},
        )
    if what_changed:
        setup = _kind_setup(by=by, fields=fields)
        assignment.kind = fields["kind"]
        assignment.game = setup["game"]
        assignment.game_options = setup["game_options"]
        assignment.practice = setup["practice"]
        _set_quiz(assignment, setup["quiz"])
    old_policy, old_due = assignment.policy, assignment.due_at
    for name in ASSIGNMENT_FIELDS:
        setattr(assignment, name, fields[name])
    if assignment.due_at != old_due:
        assignment.due_graded_at = None
    assignment.save()
    if assignment.policy != old_policy:
        students = assignment.submissions.values_list("student", flat=True).distinct()
        for student_id in students:
            grading.grade_recompute(assignment=assignment, student_id=student_id)
    if assignment.published and assignment.due_at != old_due:
        _due_schedule(assignment)
    return assignment


def _options_normal(options: dict[str, Any] | None) -> tuple[Any, ...]:
    """A practice's options in one spelling, to tell whether an edit changes them."""
    o = {**PRACTICE_OPTIONS, **(options or {})}
    deck = o["deck"]
    try:
        seconds = Decimal(str(o["bot_seconds"])).normalize()
    except InvalidOperation:
        seconds = o["bot_seconds"]
    return (
        str(getattr(deck, "pk", deck)),
        str(o["card_set"] or "").strip().upper(),
        str(o["mode"]),
        str(o["cards_per_player"]),
        seconds,
        str(o["bot_accuracy"]),
    )


@transaction.atomic
def assignment_publish(*, assignment: Assignment, by: Any, published: bool = True) -> Assignment:
    """Show the homework to the class (or hide it again while nobody has started it)."""
    assignment = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("school_class")
        .get(pk=assignment.pk)
    )
    _require_teacher(assignment.school_class, by)
    if not published and assignment.submissions.exists():
        raise ClassError("started", _("Students have started this homework; it stays published."))
    if published and assignment.school_class.archived:
        raise ClassError("archived", _("An archived class gets no new homework."))
    assignment.published = published
    assignment.published_at = timezone.now() if published else None
    assignment.save(update_fields=["published", "published_at", "updated"])
    if published:
        _due_schedule(assignment)
    return assignment


def _due_schedule(assignment: Assignment) -> None:
    """Grade what is in progress when the homework is due: a task at ``due_at`` (pages sweep too).

    A due time further away than ``TASK_ETA_MAX_SECONDS`` is reached in hops (the task,
    run early, schedules the next one): a task waiting longer than Redis's visibility
    timeout would be handed out again while it waits (config/settings.py).
    """
    if assignment.due_at is None:
        return
    assignment_id = assignment.pk
    eta = min(assignment.due_at, timezone.now() + timedelta(seconds=settings.TASK_ETA_MAX_SECONDS))
    transaction.on_commit(lambda: tasks.assignment_due_grade_task.apply_async((assignment_id,), eta=eta))


def assignment_due_schedule_next(*, assignment_id: int) -> None:
    """The due-time task ran before the due time (a hop, or the time was moved): schedule the next.

    Not when tasks run in-process: an eager task cannot wait, so it would run again at once
    (the sweep and the pages grade the homework when it is due).
    """
    if tasks.assignment_due_grade_task.app.conf.task_always_eager:
        return
    assignment = Assignment.objects.filter(pk=assignment_id).first()
    if assignment is not None and assignment.due_at is not None and timezone.now() < assignment.due_at:
        _due_schedule(assignment)


# --- attempts ------------------------------------------------------------------------------------


def _refuse_unless_student(assignment: Assignment, student: Any) -> None:
    is_student = ClassMember.objects.filter(
        school_class=assignment.school_class_id, user=student, role=ClassMember.Role.STUDENT
    ).exists()
    if not (is_student and assignment.published):
        raise ClassError("not_found", _("No such homework."))


def submission_start(
    *, assignment: Assignment, student: Any, mode: str | None = None, now: datetime | None = None
) -> Submission:
    """Start an attempt, or give back the one in progress (resuming it).

    Refused before ``opens_at``, from ``due_at`` on, and once ``max_attempts`` are used,
    each with the reason and nothing written. ``mode`` is the practice duel's opponent
    when the teacher left the choice to the student.
    """
    now = now or timezone.now()
    assignments_due_sweep(assignments=Assignment.objects.filter(pk=assignment.pk), now=now)
    with transaction.atomic():
        assignment = (
            Assignment.objects.select_for_update(of=("self",))
            .select_related("school_class", "practice")
            .get(pk=assignment.pk)
        )
        _refuse_unless_student(assignment, student)
        mine = Submission.objects.filter(assignment=assignment, student=student)
        in_progress = mine.filter(status=Submission.Status.IN_PROGRESS).order_by("-number").first()
        if assignment.opens_at and now < assignment.opens_at:
            raise ClassError(
                "not_open", _("This homework opens on %(when)s.") % {"when": when_shown(assignment.opens_at)}
            )
        if assignment.due_at and now >= assignment.due_at:
            raise ClassError(
                "due",
                _("This homework was due on %(when)s; no more attempts can be made.")
                % {"when": when_shown(assignment.due_at)},
            )
        if in_progress is not None:
            return in_progress
        used = mine.count()
        if assignment.max_attempts is not None and used >= assignment.max_attempts:
            raise ClassError(
                "no_attempts_left",
                ngettext(
                    "You have used your only attempt at this homework.",
                    "You have used all %(n)d attempts at this homework.",
                    assignment.max_attempts,
                )
                % {"n": assignment.max_attempts},
            )
        if assignment.school_class.archived:
            raise ClassError("archived", _("This class is archived; its homework is closed."))
        number = (mine.aggregate(top=Max("number"))["top"] or 0) + 1
        submission = Submission(assignment=assignment, student=student, number=number)
        if assignment.kind in (Assignment.Kind.QUIZ, Assignment.Kind.REVIEW):
            try:
                quiz = assignment.quiz
                if assignment.kind == Assignment.Kind.REVIEW:
                    quiz = quizzes.review_quiz_create(
                        student=student, teacher=assignment.school_class.teacher
                    )
                attempt = quizzes.attempt_start(
                    quiz=quiz,
                    student=student,
                    deadline=assignment.due_at,
                    time_limit_minutes=assignment.time_limit_minutes,
                )
            except Exception as error:  # the quiz engine's refusal, in its own words
                code = getattr(error, "code", None)
                if code is None:
                    raise
                raise ClassError(code, str(error)) from None
            submission.quiz_attempt = attempt
        elif assignment.game == Assignment.Game.KNOWLEDGE_SOLO:
            try:
                submission.session = knowledge_solo_start(
                    student=student,
                    options=knowledge_options(assignment.game_options),
                    teacher=assignment.school_class.teacher,
                )
            except game_services.SessionError as error:
                raise ClassError(error.code, str(error)) from None
        else:
            if assignment.practice is None:
                raise ClassError("no_game", _("This homework has no game set up; tell your teacher."))
            try:
                run = practice_start(assignment=assignment.practice, student=student, mode=mode)
            except game_services.SessionError as error:
                raise ClassError(error.code, str(error)) from None
            submission.practice_run = run
        submission.save()
        return submission


# --- the due time --------------------------------------------------------------------------------


def assignment_due_grade(*, assignment_id: int, now: datetime | None = None) -> int:
    """Grade every attempt still in progress at the due time; how many were graded.

    Safe to run early (it does nothing before ``due_at``) and more than once (only
    attempts in progress are graded, and ``due_graded_at`` is stamped).
    """
    now = now or timezone.now()
    assignment = Assignment.objects.filter(pk=assignment_id).first()
    if assignment is None or assignment.due_at is None or now < assignment.due_at:
        return 0
    graded = 0
    if assignment.kind in (Assignment.Kind.QUIZ, Assignment.Kind.REVIEW) and quizzes.available():
        # The quiz engine grades its overdue attempts; each reports to lms.grading.
        open_before = assignment.submissions.filter(status=Submission.Status.IN_PROGRESS).count()
        quizzes.attempts_grade_overdue(
            now=now,
            attempt_ids=assignment.submissions.filter(
                status=Submission.Status.IN_PROGRESS, quiz_attempt__isnull=False
            ).values("quiz_attempt_id"),
        )
        graded += open_before - assignment.submissions.filter(status=Submission.Status.IN_PROGRESS).count()
    with transaction.atomic():
        assignment = Assignment.objects.select_for_update().get(pk=assignment_id)
        if assignment.due_at is None or now < assignment.due_at:
            return graded  # moved later meanwhile
        for submission in (
            assignment.submissions.select_for_update(of=("self",))
            .filter(status=Submission.Status.IN_PROGRESS, session__isnull=False)
            .select_related("session")
        ):
            assert submission.session is not None
            grading.submission_score(
                submission=submission,
                fraction=grading.knowledge_fraction(submission.session),
                at_due=True,
                now=now,
            )
            graded += 1
        pending = assignment.submissions.select_for_update(of=("self",)).filter(
            status=Submission.Status.IN_PROGRESS, practice_run__isnull=False
        )
        for submission in pending.select_related("practice_run__session"):
            run = submission.practice_run
            assert run is not None
            grading.submission_score(
                submission=submission,
                fraction=grading.practice_fraction_at(run, assignment.due_at),
                at_due=True,
                now=now,
            )
            graded += 1
        assignment.due_graded_at = now
        assignment.save(update_fields=["due_graded_at"])
    return graded


def assignments_due_sweep(*, assignments: Any = None, now: datetime | None = None) -> int:
    """Grade the due homework nobody graded yet (no worker ran the due-time task), and the
    timed quiz attempts whose time is up (homework or not); how many attempts.

    Also notes the quiz attempts handed in that wait for the teacher's marks: they are no
    longer in progress (the student cannot resume them), nor graded yet.
    """
    now = now or timezone.now()
    scope = assignments if assignments is not None else Assignment.objects.all()
    graded = 0
    if quizzes.available():
        # Timed attempts abandoned before their time ran out: graded as they stand when the
        # time is up, due time or not (without ``assignments``, standalone quizzes too).
        attempt_ids = None
        if assignments is not None:
            attempt_ids = Submission.objects.filter(
                assignment__in=scope, status=Submission.Status.IN_PROGRESS, quiz_attempt__isnull=False
            ).values("quiz_attempt_id")
        graded += quizzes.attempts_grade_overdue(now=now, attempt_ids=attempt_ids)
    Submission.objects.filter(
        assignment__in=scope, status=Submission.Status.IN_PROGRESS, quiz_attempt__status="marking"
    ).update(status=Submission.Status.SUBMITTED)
    finished_games = Submission.objects.filter(
        assignment__in=scope, status=Submission.Status.IN_PROGRESS, session__status="finished"
    ).values_list("pk", flat=True)
    for pk in finished_games:
        grading.knowledge_submission_grade(submission_id=pk, now=now)
    due = scope.filter(published=True, due_at__lte=now, due_graded_at__isnull=True)
    return graded + sum(
        assignment_due_grade(assignment_id=pk, now=now) for pk in due.values_list("pk", flat=True)
    )


def assignment_open(*, assignment: Assignment, now: datetime | None = None) -> int:
    """The one homework a page opens (its teacher's page, or a student's), its attempts settled
    first; how many were graded.

    A teacher who opens a homework just after its due time expects the grades, not "in
    progress" until the due-time task or the sweep (``homework-due-sweep``) comes by; so do
    the students. Only this homework, and only when it has attempts in progress: otherwise
    opening it writes nothing. Pages showing several homeworks (the class's gradebook, a
    student's list) only read; they show an attempt in progress past the due time as being
    graded (``selectors.gradebook``, ``selectors.homework_of``).
    """
    if not assignment.submissions.filter(status=Submission.Status.IN_PROGRESS).exists():
        return 0
    return assignments_due_sweep(assignments=Assignment.objects.filter(pk=assignment.pk), now=now)


__all__ = [
    "ClassError",
    "Grade",
    "assignment_create",
    "assignment_due_grade",
    "assignment_open",
    "assignment_publish",
    "assignment_update",
    "assignments_due_sweep",
    "class_code_renew",
    "class_create",
    "class_handover_answer",
    "class_handover_cancel",
    "class_handover_offer",
    "class_join",
    "class_member_add",
    "class_member_remove",
    "class_update",
    "is_class_teacher",
    "submission_start",
]
