"""Writes that follow an LTI launch: LMS users to Talia users, courses to classes, links to homework.

LTI 1.3 Core §5.3 (user identity, roles, context, resource link claims). Only verified
claims reach these functions (``launch.MessageLaunch.claims``).

The three launch writers (``lti_user_sync``, ``class_sync``, ``resource_link_sync``) run
in the caller's transaction without a savepoint of their own (``savepoint=False``): an
error in any of them undoes the whole launch, and a launch saves six round trips to the
database.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import jwt
from django.core import signing
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from lti_tool.lti_core.constants import ContextRole
from lti_tool.lti_core.utils import normalize_role
from lti_tool.models import (
    LtiContext,
    LtiDeployment,
    LtiMembership,
    LtiRegistration,
    LtiResourceLink,
    LtiUser,
)

from content.permissions import teaching_rows
from games.models import PracticeAssignment
from lms.classes import quizzes
from lms.classes import services as class_services
from lms.classes.errors import ClassError
from lms.classes.selectors import classes_taught_by
from lms.models import Assignment, ClassMember, Role, SchoolClass, User
from lms.services import user_create, user_set_role

from . import keys, tasks
from .errors import LaunchRefused, launch_gone
from .launch import AGS_CLAIM, CLAIM, DL_CLAIM, NRPS_CLAIM
from .models import AssignmentLink, ClassLink

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
LINK_SALT = "lms.lti.assignment-link"

TEACHING_ROLES = {ContextRole.INSTRUCTOR, ContextRole.ADMINISTRATOR}
INSTITUTION_ADMIN = {
    "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Administrator",
    "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator",
    "http://purl.imsglobal.org/vocab/lis/v2/system/person#SysAdmin",
}


def role_from_lti(roles: list[str]) -> str | None:
    """Instructor or Administrator (in the course, the institution or the system) teach; Learner learns."""
    normalized = {normalize_role(role) for role in roles if isinstance(role, str)}
    if normalized & TEACHING_ROLES or set(roles) & INSTITUTION_ADMIN:
        return Role.TEACHER
    if ContextRole.LEARNER in normalized:
        return Role.STUDENT
    return None


@dataclass(frozen=True)
class LaunchAccepted:
    """Where a verified launch leads: the person to sign in, and either the picker's launch
    data (``pick``: the teacher chooses what the activity opens) or a page (URL name, kwargs)."""

    user: User
    registration: LtiRegistration
    pick: dict[str, Any] | None = None
    page: tuple[str, dict[str, int]] | None = None


def launch_accept(
    *, registration: LtiRegistration, deployment: LtiDeployment, claims: dict[str, Any]
) -> LaunchAccepted:
    """Turn a verified launch into Talia's user, class and activity link; say where it leads.

    Refused (``LaunchRefused``, nothing written) when the deployment is not switched on,
    the role is neither teacher nor student, the message is not one Talia handles, or a
    student deep-links. The user, class and link are written in one transaction; a
    teacher's first launch in a course with a roster service queues the roster's reading.
    """
    if not deployment.is_active:
        raise LaunchRefused(
            "deployment_inactive",
            _(
                "Talia is not yet switched on for this part of the LMS "
                "(deployment %(deployment)s of %(platform)s)."
            )
            % {"deployment": deployment.deployment_id, "platform": registration.name or registration.issuer},
            status=403,
            hint=_("Talia's administrator activates it under LMS deployments in the admin."),
        )
    role = role_from_lti(list(claims.get(CLAIM + "roles") or []))
    if role is None:
        raise LaunchRefused(
            "no_role",
            _("Talia opens for teachers and students; your role in this course is neither."),
            status=403,
        )
    message_type = claims.get(CLAIM + "message_type")
    if message_type not in ("LtiResourceLinkRequest", "LtiDeepLinkingRequest"):
        raise LaunchRefused(
            "unsupported_message", _("Talia does not handle this kind of LTI message."), status=400
        )
    if message_type == "LtiDeepLinkingRequest" and role != Role.TEACHER:
        raise LaunchRefused("not_teacher", _("Only teachers add Talia activities."), status=403)
    try:
        with transaction.atomic():
            lti_user, user = lti_user_sync(
                registration=registration, sub=str(claims["sub"]), role=role, claims=claims
            )
            context, school_class = class_sync(
                deployment=deployment, claims=claims, lti_user=lti_user, user=user, role=role
            )
            link = None
            resource_link = None
            if message_type == "LtiResourceLinkRequest":
                resource_link, link = resource_link_sync(context=context, claims=claims)
    except ClassError as error:
        raise LaunchRefused(error.code, str(error), status=403) from error
    if not user.is_active:
        raise LaunchRefused("inactive_user", _("Your Talia account is switched off."), status=403)
    if role == Role.TEACHER and context.memberships_url:
        class_link = ClassLink.objects.filter(context=context).first()
        if class_link and class_link.roster_synced_at is None:
            roster_sync_queue(class_link)
    data: dict[str, Any] = {
        "user": user.pk,
        "registration": registration.pk,
        "deployment_id": deployment.deployment_id,
        "context": context.pk,
        "class": school_class.pk,
        "message_type": message_type,
    }
    if message_type == "LtiDeepLinkingRequest":
        data["deep_linking_settings"] = claims.get(DL_CLAIM + "deep_linking_settings") or {}
        return LaunchAccepted(user, registration, pick=data)
    if link is None:
        if role != Role.TEACHER:
            raise LaunchRefused(
                "not_linked",
                _("This activity is not set up in Talia yet."),
                status=409,
                hint=_("Your teacher opens it once and chooses the homework."),
            )
        assert resource_link is not None
        data["resource_link"] = resource_link.pk
        data["lineitem"] = str((claims.get(AGS_CLAIM) or {}).get("lineitem") or "")
        return LaunchAccepted(user, registration, pick=data)
    if role == Role.TEACHER:
        return LaunchAccepted(user, registration, page=("lms:class", {"pk": school_class.pk}))
    return LaunchAccepted(
        user, registration, page=("lms:homework_detail", {"assignment_pk": link.assignment_id})
    )


def roster_sync_queue(class_link: ClassLink) -> None:
    """Read the class's roster in the background once the launch's writes are committed."""
    transaction.on_commit(lambda: tasks.roster_sync.delay(class_link.pk))


def _upsert(model: Any, defaults: dict[str, Any], **lookup: Any) -> tuple[Any, bool]:
    """``update_or_create`` that writes only what changed.

    A launch repeats the same course, link and membership claims almost every time;
    ``update_or_create`` would lock the row and write it (and a savepoint around) each
    time. The row is made (``get_or_create``, safe against a concurrent launch) or, when
    a claim changed, updated with the changed fields only.
    """
    obj, created = model.objects.get_or_create(defaults=defaults, **lookup)
    if not created:
        changed = [name for name, value in defaults.items() if getattr(obj, name) != value]
        if changed:
            for name in changed:
                setattr(obj, name, defaults[name])
            stamps = [f.name for f in model._meta.concrete_fields if getattr(f, "auto_now", False)]
            obj.save(update_fields=[*changed, *stamps])
    return obj, created


def _text(value: Any) -> str:
    """A name or e-mail from a launch or a roster: text, or nothing."""
    return value if isinstance(value, str) else ""


def _username(registration: LtiRegistration, sub: str) -> str:
    digest = hashlib.sha256(f"{registration.issuer}|{registration.client_id}|{sub}".encode()).hexdigest()
    return f"lti-{registration.pk}-{digest[:16]}"


@transaction.atomic(savepoint=False)
def lti_user_sync(
    *, registration: LtiRegistration, sub: str, role: str, claims: dict[str, Any]
) -> tuple[LtiUser, User]:
    """The Talia user of LMS user ``sub`` (by issuer and subject), made on first launch.

    Names and e-mail follow the LMS. The role follows the LMS's roles, except that an
    admin stays an admin and a teacher is never made a student (an instructor who tries
    the student view of a course).
    """
    lti_user, _created = LtiUser.objects.select_for_update().get_or_create(registration=registration, sub=sub)
    # LtiUser's columns: names up to 500 characters, e-mail up to 254 (a longer one is no address).
    email = _text(claims.get("email"))
    names = {
        "given_name": _text(claims.get("given_name"))[:500],
        "family_name": _text(claims.get("family_name"))[:500],
        "name": _text(claims.get("name"))[:500],
        "email": email if len(email) <= 254 else "",
    }
    changed = [field for field, value in names.items() if value and getattr(lti_user, field) != value]
    for field in changed:
        setattr(lti_user, field, names[field])
    user = lti_user.auth_user
    if user is None:
        user = user_create(
            username=_username(registration, sub),
            password=None,
            role=role,
            email=names["email"][:254],
            first_name=names["given_name"][:150],
            last_name=names["family_name"][:150],
        )
        lti_user.auth_user = user
        changed.append("auth_user")
    else:
        if role == Role.TEACHER and user.role == Role.STUDENT:
            user_set_role(user=user, role=Role.TEACHER)
        profile = {"first_name": names["given_name"][:150], "last_name": names["family_name"][:150]}
        updates = [f for f, v in profile.items() if v and getattr(user, f) != v]
        for field in updates:
            setattr(user, field, profile[field])
        if updates:
            user.save(update_fields=updates)
    if changed:
        lti_user.save()
    return lti_user, user


def _context_defaults(claims: dict[str, Any]) -> dict[str, Any]:
    context = claims.get(CLAIM + "context") or {}
    ags = claims.get(AGS_CLAIM) or {}
    nrps = claims.get(NRPS_CLAIM) or {}
    defaults: dict[str, Any] = {
        "title": str(context.get("title") or "")[:500],
        "label": str(context.get("label") or "")[:255],
    }
    if nrps.get("context_memberships_url"):
        defaults["memberships_url"] = nrps["context_memberships_url"]
    if ags.get("lineitems"):
        defaults["lineitems_url"] = ags["lineitems"]
    scopes = ags.get("scope") or []
    defaults["can_publish_scores"] = SCORE_SCOPE in scopes
    return defaults


@transaction.atomic(savepoint=False)
def class_sync(
    *, deployment: Any, claims: dict[str, Any], lti_user: LtiUser, user: User, role: str
) -> tuple[LtiContext, SchoolClass]:
    """The class of the launch's course: made by the first teacher who launches, members added.

    A student launching a course no teacher has opened yet is refused: Talia's class needs
    its teacher (the roster sync adds everyone once the teacher came).
    """
    context_claim = claims.get(CLAIM + "context") or {}
    context_id = str(context_claim.get("id") or "")
    if not context_id:
        raise LaunchRefused("missing_context", _("The launch does not name its course (context)."))
    context, _created = _upsert(
        LtiContext, _context_defaults(claims), deployment=deployment, id_on_platform=context_id
    )
    membership_roles = {normalize_role(r) for r in claims.get(CLAIM + "roles") or []}
    _upsert(
        LtiMembership,
        user=lti_user,
        context=context,
        defaults={
            "is_instructor": ContextRole.INSTRUCTOR in membership_roles,
            "is_administrator": ContextRole.ADMINISTRATOR in membership_roles,
            "is_learner": ContextRole.LEARNER in membership_roles,
            "is_active": True,
        },
    )
    link = ClassLink.objects.select_related("school_class").filter(context=context).first()
    if link is None and role == Role.TEACHER:
        # Two teachers opening a new course at once: the course's row orders them, so the
        # second finds the class the first created instead of failing on the unique link.
        LtiContext.objects.select_for_update().filter(pk=context.pk).first()
        link = ClassLink.objects.select_related("school_class").filter(context=context).first()
    if link is None:
        if role != Role.TEACHER:
            raise LaunchRefused(
                "class_not_ready",
                _("Your teacher has not opened Talia in this course yet."),
                status=409,
                hint=_("Try again after your teacher has opened the activity once."),
            )
        name = context.title or context.label or _("LMS course %(id)s") % {"id": context_id}
        school_class = class_services.class_create(teacher=user, name=name[:120])
        link = ClassLink.objects.create(context=context, school_class=school_class)
    school_class = link.school_class
    member_role = ClassMember.Role.TEACHER if role == Role.TEACHER else ClassMember.Role.STUDENT
    already = ClassMember.objects.filter(school_class=school_class, user=user, role=member_role)
    # A returning member is left alone: class_member_add locks the class row, which would
    # make every launch of a course wait for the one before it.
    if user.pk != school_class.teacher_id and not already.exists():
        try:
            class_services.class_member_add(school_class=school_class, user=user, role=member_role)
        except ClassError as error:
            raise LaunchRefused(error.code, str(error), status=403) from None
    return context, school_class


def link_token(*, assignment: Assignment, context: LtiContext) -> str:
    """The custom parameter a deep-linked activity carries: which assignment, for which course."""
    return signing.dumps({"a": assignment.pk, "c": context.pk}, salt=LINK_SALT, compress=True)


def link_token_read(token: str, *, context: LtiContext) -> Assignment | None:
    """The assignment a deep-linked activity opens, if the token is Talia's and for this course."""
    try:
        data = signing.loads(token, salt=LINK_SALT)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("c") != context.pk or not isinstance(data.get("a"), int):
        return None
    return Assignment.objects.filter(pk=data["a"], school_class__lti_links__context=context).first()


@transaction.atomic(savepoint=False)
def resource_link_sync(
    *, context: LtiContext, claims: dict[str, Any]
) -> tuple[LtiResourceLink, AssignmentLink | None]:
    """The launch's activity and the assignment it opens (None until a teacher chose one)."""
    claim = claims.get(CLAIM + "resource_link") or {}
    resource_link, _created = _upsert(
        LtiResourceLink,
        context=context,
        id_on_platform=str(claim["id"]),
        defaults={
            "title": str(claim.get("title") or "")[:500],
            "description": str(claim.get("description") or ""),
        },
    )
    link = AssignmentLink.objects.select_for_update().filter(resource_link=resource_link).first()
    custom = claims.get(CLAIM + "custom") or {}
    if link is None and isinstance(custom.get("talia_assignment"), str):
        assignment = link_token_read(custom["talia_assignment"], context=context)
        if assignment is not None:
            link = AssignmentLink.objects.create(resource_link=resource_link, assignment=assignment)
    if link is not None:
        ags = claims.get(AGS_CLAIM) or {}
        lineitem = str(ags.get("lineitem") or "")
        can_score = SCORE_SCOPE in (ags.get("scope") or [])
        if (link.lineitem_url, link.score_scope) != (lineitem or link.lineitem_url, can_score):
            link.lineitem_url = lineitem or link.lineitem_url
            link.score_scope = can_score
            link.save(update_fields=["lineitem_url", "score_scope"])
    return resource_link, link


@transaction.atomic
def resource_link_attach(
    *, resource_link: LtiResourceLink, assignment: Assignment, lineitem_url: str = ""
) -> AssignmentLink:
    """Point an LMS activity that was added without deep linking at an assignment of its class."""
    link, _created = AssignmentLink.objects.update_or_create(
        resource_link=resource_link,
        defaults={"assignment": assignment, **({"lineitem_url": lineitem_url} if lineitem_url else {})},
    )
    return link


# --- deep linking --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Template:
    """Something a teacher can add to an LMS course: ``key`` is ``kind:pk``."""

    key: str
    kind: str
    title: str
    detail: str


def templates_for(teacher: User) -> list[Template]:
    """The teacher's homework templates (their assignments), quizzes and practice games."""
    found: list[Template] = []
    classes = classes_taught_by(teacher)
    for assignment in (
        Assignment.objects.filter(school_class__in=classes)
        .select_related("school_class")
        .order_by("-pk")[:100]
    ):
        found.append(
            Template(
                f"assignment:{assignment.pk}", "assignment", assignment.title, assignment.school_class.name
            )
        )
    if quizzes.available():
        for quiz in quizzes.quizzes_assignable_by(teacher)[:100]:
            found.append(Template(f"quiz:{quiz.pk}", "quiz", str(quiz), ""))
    for practice in teaching_rows(teacher, PracticeAssignment.objects.select_related("deck")).order_by("-pk")[
        :100
    ]:
        found.append(Template(f"game:{practice.pk}", "game", practice.title, str(practice.deck)))
    return found


@transaction.atomic
def assignment_from_template(
    *, key: str, school_class: SchoolClass, teacher: User, points: Decimal | None = None
) -> Assignment:
    """A new published assignment for ``school_class`` from one of the teacher's templates."""
    kind, _sep, pk = key.partition(":")
    if not (pk.isascii() and pk.isdigit()):
        raise ClassError("invalid_template", _("Choose one of the activities on the list."))
    try:
        if kind == "assignment":
            template = Assignment.objects.filter(pk=pk, school_class__in=classes_taught_by(teacher)).first()
            if template is None:
                raise ClassError("invalid_template", _("That homework is not one of yours."))
            fields: dict[str, Any] = {
                "title": template.title,
                "kind": template.kind,
                "instructions": template.instructions,
                "max_attempts": template.max_attempts,
                "policy": template.policy,
                "time_limit_minutes": template.time_limit_minutes,
                "points_possible": points or template.points_possible,
            }
            if template.kind == Assignment.Kind.QUIZ:
                fields["quiz"] = getattr(template, "quiz", None)
            else:
                fields["game"] = template.game
                fields["game_options"] = dict(template.game_options)
        elif kind == "quiz" and quizzes.available():
            quiz = quizzes.quizzes_assignable_by(teacher).filter(pk=pk).first()
            fields = {"title": str(quiz)[:160] if quiz else "", "kind": Assignment.Kind.QUIZ, "quiz": quiz}
        elif kind == "game":
            practice = teaching_rows(teacher, PracticeAssignment.objects.filter(pk=pk)).first()
            if practice is None:
                raise ClassError("invalid_template", _("That practice game is not one of yours."))
            fields = {
                "title": practice.title,
                "kind": Assignment.Kind.GAME,
                "game": Assignment.Game.ZNAJZNAK_PRACTICE,
                "game_options": {
                    "deck": practice.deck_id,
                    "card_set": practice.card_set,
                    "mode": practice.mode,
                    "cards_per_player": practice.cards_per_player,
                    "bot_seconds": str(practice.bot_seconds),
                    "bot_accuracy": practice.bot_accuracy,
                },
                "time_limit_minutes": (practice.timer // 60) if practice.timer else None,
            }
        else:
            raise ClassError("invalid_template", _("Choose one of the activities on the list."))
        if points is not None:
            fields["points_possible"] = points
        return class_services.assignment_create(school_class=school_class, by=teacher, publish=True, **fields)
    except ClassError:
        raise


def deep_link_item(*, assignment: Assignment, context: LtiContext, launch_url: str) -> dict[str, Any]:
    """The LtiResourceLink content item for ``assignment`` (LTI Deep Linking 2.0 §3.4.2)."""
    return {
        "type": "ltiResourceLink",
        "title": assignment.title,
        "url": launch_url,
        "text": assignment.instructions[:500],
        "lineItem": {
            "scoreMaximum": float(assignment.points_possible),
            "label": assignment.title,
            "resourceId": f"talia-assignment-{assignment.pk}",
            "tag": "talia",
        },
        "custom": {
            "talia_assignment": link_token(assignment=assignment, context=context),
            "talia_kind": assignment.kind,
        },
        **({"available": {"startDateTime": assignment.opens_at.isoformat()}} if assignment.opens_at else {}),
        **({"submission": {"endDateTime": assignment.due_at.isoformat()}} if assignment.due_at else {}),
    }


def deep_link_response_sign(
    *, registration: LtiRegistration, launch: dict[str, Any], items: list[dict[str, Any]]
) -> str:
    """The signed LtiDeepLinkingResponse JWT (LTI Deep Linking 2.0 §4.2) that answers the
    deep-linking ``launch`` with ``items``, signed with Talia's current key."""
    private_key, kid = keys.signing_material()
    now = int(time.time())
    settings_claim = launch.get("deep_linking_settings") or {}
    message: dict[str, Any] = {
        "iss": registration.client_id,
        "aud": [registration.issuer],
        "azp": registration.issuer,
        "iat": now,
        "exp": now + 600,
        "nonce": uuid.uuid4().hex,
        CLAIM + "deployment_id": launch["deployment_id"],
        CLAIM + "message_type": "LtiDeepLinkingResponse",
        CLAIM + "version": "1.3.0",
        DL_CLAIM + "content_items": items,
    }
    if settings_claim.get("data") is not None:
        message[DL_CLAIM + "data"] = settings_claim["data"]
    return jwt.encode(message, private_key, algorithm="RS256", headers={"kid": kid})


@dataclass(frozen=True)
class Picked:
    """What the teacher's pick made: the new ``assignment`` and, for a deep-linking launch,
    the signed response the page posts back to the LMS (``jwt`` to ``return_url``)."""

    assignment: Assignment
    return_url: str = ""
    jwt: str = ""


@transaction.atomic
def launch_pick(
    *,
    launch: dict[str, Any],
    key: str,
    school_class: SchoolClass,
    teacher: User,
    points: Decimal | None,
    launch_url: str,
) -> Picked:
    """The teacher chose what the LMS activity of ``launch`` (``launch_accept``'s picker
    data) opens: a new published assignment of ``school_class`` from the template ``key``.

    A deep-linking launch is answered with one LtiResourceLink content item, signed
    (``deep_link_response_sign``); a resource-link launch's activity is attached to the new
    assignment (``resource_link_attach``). Refused with ``ClassError`` when the choice is
    not the teacher's (nothing written), and with ``launch_gone`` when the launch's LMS rows
    are no longer there.
    """
    # The launch's LMS rows first: a launch that has lost them copies no template.
    if launch["message_type"] == "LtiDeepLinkingRequest":
        context = LtiContext.objects.filter(pk=launch["context"]).first()
        registration = LtiRegistration.objects.filter(pk=launch["registration"], is_active=True).first()
        if context is None or registration is None:
            raise launch_gone()
        assignment = assignment_from_template(
            key=key, school_class=school_class, teacher=teacher, points=points
        )
        item = deep_link_item(assignment=assignment, context=context, launch_url=launch_url)
        token = deep_link_response_sign(registration=registration, launch=launch, items=[item])
        return Picked(
            assignment, return_url=launch["deep_linking_settings"]["deep_link_return_url"], jwt=token
        )
    resource_link = LtiResourceLink.objects.select_for_update().filter(pk=launch["resource_link"]).first()
    if resource_link is None:
        raise launch_gone()
    assignment = assignment_from_template(key=key, school_class=school_class, teacher=teacher, points=points)
    resource_link_attach(
        resource_link=resource_link, assignment=assignment, lineitem_url=launch.get("lineitem", "")
    )
    return Picked(assignment)


# --- rosters (NRPS) ------------------------------------------------------------------------------


def roster_apply(*, link: ClassLink, members: list[dict[str, Any]]) -> int:
    """Make each LMS member a Talia user and class member; returns how many members were read.

    LTI NRPS 2.0 §2.4: ``user_id``, ``roles``, ``status`` (Active, Inactive, Deleted).
    Inactive or deleted members stay in Talia (their grades stay) but are marked inactive
    on the LMS side (``LtiMembership.is_active``).
    """
    context = link.context
    registration = context.deployment.registration
    count = 0
    for member in members:
        user_id = member.get("user_id")
        sub = str(user_id) if isinstance(user_id, (str, int)) else ""
        roles_claim = member.get("roles")
        if not sub or len(sub) > 255 or not isinstance(roles_claim, list):
            continue  # not a member as NRPS describes one (§2.4): left out rather than a failed sync
        role = role_from_lti(roles_claim)
        if role is None:
            continue
        with transaction.atomic():
            lti_user, user = lti_user_sync(registration=registration, sub=sub, role=role, claims=member)
            roles = {normalize_role(r) for r in roles_claim if isinstance(r, str)}
            LtiMembership.objects.update_or_create(
                user=lti_user,
                context=context,
                defaults={
                    "is_instructor": ContextRole.INSTRUCTOR in roles,
                    "is_administrator": ContextRole.ADMINISTRATOR in roles,
                    "is_learner": ContextRole.LEARNER in roles,
                    "is_active": (member.get("status") or "Active") == "Active",
                },
            )
            if user.pk != link.school_class.teacher_id and (member.get("status") or "Active") == "Active":
                member_role = ClassMember.Role.TEACHER if role == Role.TEACHER else ClassMember.Role.STUDENT
                # An LMS teacher who is a student in Talia cannot co-teach: left out.
                with contextlib.suppress(ClassError):
                    class_services.class_member_add(
                        school_class=link.school_class, user=user, role=member_role
                    )
        count += 1
    ClassLink.objects.filter(pk=link.pk).update(roster_synced_at=timezone.now(), roster_error="")
    return count
