"""Student accounts without an LMS: made by the teacher from a class list, or by the student
with the class code; login cards; the student's own password.

An account made here holds a username and a name, nothing else (no e-mail, no birth
date). Class membership is written by ``lms.classes.services``; the accounts, their
passwords and login cards only here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.lobby import join_code_normalise
from lms import privacy
from lms.classes import services as class_services
from lms.classes.errors import ClassError
from lms.models import ClassMember, LoginCard, Role, SchoolClass, User
from lms.services import user_create

from .cards import card_secret_new
from .roster import RosterRow, username_base, username_problem

#: The most new accounts that may wait for the teacher's approval in one class.
PENDING_MAX = 60


class AccountError(ClassError):
    """A refusal with a code and a sentence for the person (``problems``: each, for a list)."""

    def __init__(self, code: str, message: str, problems: list[str] | None = None) -> None:
        super().__init__(code, message)
        self.problems = problems or [message]


def _username_taken(username: str) -> bool:
    return User.objects.filter(username__iexact=username).exists()


def _usernames_for(rows: list[RosterRow]) -> list[str]:
    """A username for each row: the one asked for (refused if taken), or one made from the name."""
    asked = {row.username.casefold() for row in rows if row.username}
    # Case differences count as taken too: "Anna.K" and "anna.k" would be the same child.
    problems = [
        _("Line %(line)d: the username “%(username)s” is taken; choose another or leave it empty.")
        % {"line": row.line, "username": row.username}
        for row in rows
        if row.username and _username_taken(row.username)
    ]
    if problems:
        raise AccountError("username_taken", " ".join(problems), problems)
    usernames = []
    used = set(asked)
    for row in rows:
        if row.username:
            usernames.append(row.username)
            continue
        base = username_base(row.first_name, row.last_name)
        existing = {
            name.casefold()
            for name in User.objects.filter(username__istartswith=base).values_list("username", flat=True)
        }
        candidate, number = base, 1
        while candidate in used or candidate in existing:
            number += 1
            candidate = f"{base}{number}"
        used.add(candidate)
        usernames.append(candidate)
    return usernames


def _expiry() -> Any:
    return timezone.now() + timedelta(days=settings.LOGIN_CARD_DAYS)


def _card_new(*, student: Any, school_class: SchoolClass | None, by: Any) -> LoginCard:
    """Close ``student``'s open card, take their password away, and issue a new card."""
    now = timezone.now()
    LoginCard.objects.filter(student=student, closed_at__isnull=True).update(closed_at=now)
    student.set_unusable_password()  # also signs them out everywhere: the session hash changes
    student.save(update_fields=["password"])
    return LoginCard.objects.create(
        student=student,
        school_class=school_class,
        issued_by=by,
        secret=card_secret_new(),
        expires_at=_expiry(),
    )


def class_students_create(*, school_class: SchoolClass, by: Any, rows: list[RosterRow]) -> list[LoginCard]:
    """An account, a place in the class and a login card for every student of the list.

    All or nothing: a taken username refuses the whole list, with every line that needs
    changing (:class:`AccountError`), and nothing is written.
    """
    try:
        with transaction.atomic():
            return _students_create(school_class=school_class, by=by, rows=rows)
    except IntegrityError:
        # Another list took one of the usernames at the same moment.
        raise AccountError(
            "username_taken",
            _("One of the usernames was taken a moment ago by another list; send the list again."),
        ) from None


def _students_create(*, school_class: SchoolClass, by: Any, rows: list[RosterRow]) -> list[LoginCard]:
    if not class_services.is_class_teacher(school_class, by):
        raise ClassError("not_found", _("No such class."))
    if school_class.archived:
        raise ClassError("archived", _("An archived class takes no new students."))
    if not rows:
        raise AccountError(
            "empty", _("The list has no names. Paste one student a line, or choose a CSV file.")
        )
    cards = []
    for row, username in zip(rows, _usernames_for(rows), strict=True):
        student = user_create(
            username=username,
            password=None,
            role=Role.STUDENT,
            first_name=row.first_name,
            last_name=row.last_name,
        )
        class_services.class_member_add(
            school_class=school_class, user=student, role=ClassMember.Role.STUDENT, by=by
        )
        cards.append(
            LoginCard.objects.create(
                student=student,
                school_class=school_class,
                issued_by=by,
                secret=card_secret_new(),
                expires_at=_expiry(),
            )
        )
    return cards


@transaction.atomic
def class_create_with_students(
    *, teacher: Any, name: str, rows: list[RosterRow]
) -> tuple[SchoolClass, list[LoginCard]]:
    """A new class and its students from a list, in one go: if the list is refused, no class either."""
    school_class = class_services.class_create(teacher=teacher, name=name)
    return school_class, class_students_create(school_class=school_class, by=teacher, rows=rows)


@transaction.atomic
def login_card_issue(*, school_class: SchoolClass, student: Any, by: Any) -> LoginCard:
    """A new login card for a student of the class who forgot their password: the old
    password and any older card stop working at once."""
    if not class_services.is_class_teacher(school_class, by):
        raise ClassError("not_found", _("No such class."))
    student = User.objects.select_for_update().filter(pk=getattr(student, "pk", student)).first()
    in_class = (
        student is not None
        and ClassMember.objects.filter(
            school_class=school_class, user=student, role=ClassMember.Role.STUDENT
        ).exists()
    )
    if student is None or not in_class:
        raise ClassError("not_member", _("That person is not a student of this class."))
    if student.role != Role.STUDENT or student.is_superuser:
        # A teacher's account is never reset from a class: it would open their classes.
        raise ClassError("not_allowed", _("Only a student's password is reset here."))
    return _card_new(student=student, school_class=school_class, by=by)


@transaction.atomic
def login_card_link_use(*, card: LoginCard, now: Any = None) -> Any:
    """The student opened the card's QR link: it is used up, and they are signed in (by the view).

    Refused for a link used before, a card closed or expired.
    """
    now = now or timezone.now()
    card = LoginCard.objects.select_for_update().select_related("student").get(pk=card.pk)
    if card.link_used_at is not None or not card.is_open(now) or not card.student.is_active:
        raise AccountError("link_used", _("This sign-in link was used already, has expired or was replaced."))
    card.link_used_at = now
    card.save(update_fields=["link_used_at"])
    return card.student


def login_card_open(student: Any, *, now: Any = None) -> LoginCard | None:
    """``student``'s card that signs them in now, if any."""
    now = now or timezone.now()
    return LoginCard.objects.filter(student=student, closed_at__isnull=True, expires_at__gt=now).first()


@transaction.atomic
def password_set(*, user: Any, password: str) -> Any:
    """The student chooses their own password (after signing in with a card): the card closes.

    Refused, with the validators' reasons, for a password that is too short, too common,
    all digits or too like the username or name.
    """
    user = User.objects.select_for_update().get(pk=user.pk)
    try:
        validate_password(password, user=user)
    except ValidationError as error:
        raise AccountError("weak_password", " ".join(error.messages), list(error.messages)) from None
    user.set_password(password)
    user.save(update_fields=["password"])
    LoginCard.objects.filter(student=user, closed_at__isnull=True).update(closed_at=timezone.now())
    return user


# --- signing up with the class code -----------------------------------------------------------------


@dataclass(frozen=True)
class Signup:
    """A new account made with a class code: the student, and their place (or their wait) in the class."""

    student: Any
    member: ClassMember

    @property
    def waiting(self) -> bool:
        return self.member.role == ClassMember.Role.PENDING


def _name_parts(name: str) -> tuple[str, str]:
    name = " ".join((name or "").split())
    if not name:
        raise AccountError("invalid_name", _("Type your name, as your teacher knows you."))
    if len(name) > 150:
        raise AccountError("invalid_name", _("A name has at most 150 characters."))
    first, _space, last = name.rpartition(" ")
    return (first, last) if first else (name, "")


@transaction.atomic
def student_signup(*, code: str, name: str, username: str, password: str) -> Signup:
    """A student makes their own account with the class code (if the class lets them).

    The class's ``signup`` setting decides: ``open`` puts them in the class at once,
    ``approval`` makes them wait for the teacher, ``closed`` refuses. A code that opens
    no class is refused as the join page refuses it (``unknown_code``).
    """
    normalised = join_code_normalise(code or "")
    if not normalised:
        raise AccountError("invalid_code", _("Type the class code your teacher shows, for example K7M2QX."))
    school_class = (
        SchoolClass.objects.select_for_update().filter(join_code=normalised, archived=False).first()
    )
    if school_class is None:
        raise AccountError(
            "unknown_code",
            _("No class has the code %(code)s. Check it with your teacher (0 and O, 1 and I are never used).")
            % {"code": normalised},
        )
    if school_class.signup == SchoolClass.Signup.CLOSED:
        raise AccountError(
            "signup_closed",
            _("Accounts are not made with this class's code. Ask your teacher for your login card."),
        )
    waiting = ClassMember.objects.filter(school_class=school_class, role=ClassMember.Role.PENDING).count()
    if school_class.signup == SchoolClass.Signup.APPROVAL and waiting >= PENDING_MAX:
        # Someone who has the code cannot fill the teacher's list with made-up names.
        raise AccountError(
            "too_many_waiting",
            _(
                "Many new accounts already wait for your teacher in this class. "
                "Ask them to let those in first."
            ),
        )
    first_name, last_name = _name_parts(name)
    username = (username or "").strip()
    problem = username_problem(username)
    if problem:
        raise AccountError("invalid_username", problem)
    if _username_taken(username):
        raise AccountError(
            "username_taken",
            _("The username “%(username)s” is taken; choose another.") % {"username": username},
        )
    candidate = User(username=username, first_name=first_name, last_name=last_name)
    try:
        validate_password(password, user=candidate)
    except ValidationError as error:
        raise AccountError("weak_password", " ".join(error.messages), list(error.messages)) from None
    try:
        with transaction.atomic():
            student = user_create(
                username=username,
                password=password,
                role=Role.STUDENT,
                first_name=first_name,
                last_name=last_name,
            )
    except IntegrityError:  # taken a moment ago by someone else signing up
        raise AccountError(
            "username_taken",
            _("The username “%(username)s” is taken; choose another.") % {"username": username},
        ) from None
    role = (
        ClassMember.Role.STUDENT
        if school_class.signup == SchoolClass.Signup.OPEN
        else ClassMember.Role.PENDING
    )
    member = class_services.class_member_add(school_class=school_class, user=student, role=role)
    return Signup(student=student, member=member)


@transaction.atomic
def signup_answer(*, school_class: SchoolClass, student: Any, by: Any, approve: bool) -> None:
    """The teacher lets a waiting student into the class, or turns them away.

    Turned away, an account made for this class alone is erased (``lms.privacy``): a name
    nobody let in is not kept.
    """
    if not class_services.is_class_teacher(school_class, by):
        raise ClassError("not_found", _("No such class."))
    member = ClassMember.objects.filter(
        school_class=school_class, user=student, role=ClassMember.Role.PENDING
    ).first()
    if member is None:
        raise ClassError("not_waiting", _("That student is not waiting to join this class."))
    if approve:
        class_services.class_member_add(
            school_class=school_class, user=student, role=ClassMember.Role.STUDENT, by=by
        )
        return
    class_services.class_member_remove(school_class=school_class, user=student, by=by)
    if not ClassMember.objects.filter(user=student).exists() and student.role == Role.STUDENT:
        privacy.student_erase(student=student, by=by)


@transaction.atomic
def signups_approve_all(*, school_class: SchoolClass, by: Any) -> int:
    """Let every waiting student into the class; how many."""
    if not class_services.is_class_teacher(school_class, by):
        raise ClassError("not_found", _("No such class."))
    waiting = list(
        ClassMember.objects.filter(school_class=school_class, role=ClassMember.Role.PENDING).select_related(
            "user"
        )
    )
    for member in waiting:
        class_services.class_member_add(
            school_class=school_class, user=member.user, role=ClassMember.Role.STUDENT, by=by
        )
    return len(waiting)
