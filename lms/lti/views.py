"""LTI pages: login initiation, launch, deep-linking picker, JWKS, dynamic registration, roster, scores.

Thin views: the checks live in ``launch``, the writes in ``services``/``scores``/``roster``
(``services.launch_accept`` turns a launch into a user, class and link; ``services.launch_pick``
makes the picked assignment and signs the deep-linking response).
Every refusal renders ``lms/lti/refused.html`` with a 4xx status and what to do next.
"""

from __future__ import annotations

import logging
import secrets
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth import login as auth_login
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config import limits
from lms.classes.errors import ClassError
from lms.classes.selectors import class_for_teacher

from . import columns, keys, registration, roster, scores, services
from .errors import LaunchRefused, launch_gone
from .launch import (
    STATE_TTL,
    CookiesBlocked,
    launch_form,
    launch_validate,
    login_start,
    state_cookie_name,
)
from .middleware import SESSION_ORIGINS
from .selectors import class_roster, class_scores, registration_origins

log = logging.getLogger(__name__)

SESSION_LAUNCHES = "lti_launches"
KEEP_LAUNCHES = 5


def tool_urls(request: HttpRequest) -> dict[str, str]:
    """The absolute URLs an LMS admin enters (or dynamic registration sends)."""
    return {
        "login": request.build_absolute_uri(reverse("lti:login")),
        "launch": request.build_absolute_uri(reverse("lti:launch")),
        "deep_link": request.build_absolute_uri(reverse("lti:deep_link")),
        "jwks": request.build_absolute_uri(reverse("lti:jwks")),
    }


def refusal_log(error: LaunchRefused) -> None:
    """One warning line per refusal, no traceback: refusals are expected, their count is watched."""
    detail = f" [{error.detail}]" if error.detail else ""
    log.warning("LTI refused: %s (%s)%s", error.code, " ".join(str(error).split())[:300], detail)


def refused(request: HttpRequest, error: LaunchRefused) -> HttpResponse:
    refusal_log(error)
    status = error.status if 400 <= error.status < 500 else 400
    return render(request, "lms/lti/refused.html", {"error": error}, status=status)


# --- login and launch ----------------------------------------------------------------------------


@csrf_exempt
@never_cache
@require_http_methods(["GET", "POST"])
def login(request: HttpRequest) -> HttpResponse:
    """OIDC third-party login initiation: answered with a GET redirect (Moodle's Lax session cookie).

    Per address: refused initiations are few (a misconfigured LMS, someone probing), and
    every initiation keeps a state in the cache until its launch spends it, so both are
    limited; the launch takes its initiation's count back, so a school's students count only
    while their logins wait for their launches.
    """
    for limit in (limits.lti_logins(), limits.lti_logins_pending()):
        wait = limit.retry_after(request)
        if wait is not None:
            return limits.too_many(request, wait, what=_("Too many LMS logins came from this address."))
    bucket = limits.lti_logins_pending().note(request)
    try:
        params = launch_form(request).dict()
        auth_url, state = login_start(request=request, params=params, limit_bucket=bucket)
    except LaunchRefused as error:
        limits.lti_logins().note(request)
        return refused(request, error)
    response = HttpResponseRedirect(auth_url)
    secure = request.is_secure()
    response.set_cookie(
        state_cookie_name(state),
        state,
        max_age=STATE_TTL,
        path="/lti/",
        secure=secure,
        httponly=True,
        # In the LMS's iframe the launch is a cross-site POST: SameSite=None (Secure) under HTTPS.
        samesite="None" if secure else None,
    )
    return response


def _remember_launch(request: HttpRequest, data: dict[str, Any]) -> str:
    key = secrets.token_urlsafe(12)
    launches = dict(request.session.get(SESSION_LAUNCHES) or {})
    launches[key] = data
    request.session[SESSION_LAUNCHES] = dict(list(launches.items())[-KEEP_LAUNCHES:])
    return key


def _launch_data(request: HttpRequest, key: str) -> dict[str, Any]:
    data = (request.session.get(SESSION_LAUNCHES) or {}).get(key)
    if data is None or not request.user.is_authenticated or data.get("user") != request.user.pk:
        raise launch_gone()
    return data


@csrf_exempt
@never_cache
@require_http_methods(["GET", "POST"])
def launch(request: HttpRequest) -> HttpResponse:
    """The platform's form post with the id_token: resource-link and deep-linking launches."""
    if request.method != "POST":
        return refused(
            request,
            LaunchRefused(
                "not_a_launch",
                _("This page is opened by an LMS, not directly."),
                status=405,
                hint=_("Open the activity from your course in the LMS."),
            ),
        )
    try:
        message = launch_validate(request)
        if message.limit_bucket:
            # The login's state is spent (once: its nonce is): its initiation holds nothing now.
            limits.lti_logins_pending().forgive(message.limit_bucket)
        accepted = services.launch_accept(
            registration=message.registration, deployment=message.deployment, claims=message.claims
        )
    except CookiesBlocked as blocked:
        refusal_log(blocked)
        login_url = request.build_absolute_uri(reverse("lti:login")) + "?" + urlencode(blocked.login_params)
        return render(request, "lms/lti/new_window.html", {"login_url": login_url}, status=blocked.status)
    except LaunchRefused as error:
        return refused(request, error)
    auth_login(request, accepted.user, backend="django.contrib.auth.backends.ModelBackend")
    request.session[SESSION_ORIGINS] = registration_origins(accepted.registration)
    if accepted.pick is not None:
        return redirect("lti:pick", key=_remember_launch(request, accepted.pick))
    assert accepted.page is not None
    name, kwargs = accepted.page
    return redirect(name, **kwargs)


# --- deep linking --------------------------------------------------------------------------------


def _points(value: str) -> Decimal | None:
    if not value:
        return None
    try:
        points = Decimal(value)
    except InvalidOperation:
        raise ClassError("invalid_points", _("Points are a number, for example 10.")) from None
    if not points.is_finite() or points <= 0 or points > Decimal("99999"):
        raise ClassError("invalid_points", _("Points are a number above 0, for example 10."))
    return points


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def pick(request: HttpRequest, key: str) -> HttpResponse:
    """The teacher picks the quiz, game or homework template an LMS activity opens."""
    try:
        data = _launch_data(request, key)
    except LaunchRefused as error:
        return refused(request, error)
    school_class = class_for_teacher(request.user, data["class"])
    if school_class is None:
        return refused(
            request,
            LaunchRefused("not_teacher", _("Only the class's teachers choose its activities."), status=403),
        )
    templates = services.templates_for(request.user)  # type: ignore[arg-type]
    error = ""
    if request.method == "POST":
        try:
            done = services.launch_pick(
                launch=data,
                key=request.POST.get("template", ""),
                school_class=school_class,
                teacher=request.user,  # type: ignore[arg-type]
                points=_points(request.POST.get("points", "").strip()),
                launch_url=tool_urls(request)["launch"],
            )
        except ClassError as exc:
            error = str(exc)
        except LaunchRefused as refusal:
            return refused(request, refusal)
        else:
            if done.jwt:
                return render(
                    request,
                    "lms/lti/deep_link_return.html",
                    {"return_url": done.return_url, "jwt": done.jwt, "assignment": done.assignment},
                )
            messages.success(
                request, _("The LMS activity now opens “%(title)s”.") % {"title": done.assignment.title}
            )
            return redirect("lms:class", pk=school_class.pk)
    return render(
        request,
        "lms/lti/pick.html",
        {
            "school_class": school_class,
            "templates": templates,
            "error": error,
            "deep_linking": data["message_type"] == "LtiDeepLinkingRequest",
            "chosen": request.POST.get("template", ""),
            "points": request.POST.get("points", ""),
        },
        status=400 if error else 200,
    )


# --- keys and registration -----------------------------------------------------------------------


@require_GET
def jwks(request: HttpRequest) -> JsonResponse:
    """Talia's public keys: the signing key and rotated-out keys still in their grace period."""
    response = JsonResponse(keys.jwks())
    response["Cache-Control"] = "public, max-age=300"
    return response


@csrf_exempt
@never_cache
@require_http_methods(["GET", "POST"])
def register(request: HttpRequest, token: str) -> HttpResponse:
    """LTI Dynamic Registration: the LMS opens this URL with its configuration's address."""
    try:
        registration.invitation_check(token)
        config_url = request.GET.get("openid_configuration", "")
        if not config_url:
            raise LaunchRefused(
                "registration_no_config",
                _("This address is pasted into the LMS's tool registration, not opened directly."),
                hint=_(
                    "In Moodle: Site administration → Plugins → Manage tools → Tool URL. See docs/lms.md."
                ),
            )
        reg = registration.registration_dynamic(
            openid_configuration_url=config_url,
            registration_token=request.GET.get("registration_token", ""),
            base_url=request.build_absolute_uri("/"),
            urls=tool_urls(request),
        )
    except LaunchRefused as error:
        return refused(request, error)
    return render(request, "lms/lti/registered.html", {"registration": reg})


# --- the teacher's roster and scores -------------------------------------------------------------


@login_required
@require_POST
def roster_sync(request: HttpRequest, pk: int) -> HttpResponse:
    """Read the class's roster from the LMS now."""
    school_class = class_for_teacher(request.user, pk)
    if school_class is None:
        raise Http404
    total, failed = roster.class_roster_sync(school_class=school_class)
    if failed:
        messages.error(request, _("The LMS did not send the roster; try again later."))
    else:
        messages.success(request, _("Roster read from the LMS: %(n)d people.") % {"n": total})
    return redirect("lms:class", pk=school_class.pk)


@login_required
@never_cache
def class_scores_page(request: HttpRequest, pk: int) -> HttpResponse:
    """Each score sent to the LMS for this class, with its delivery status."""
    school_class = class_for_teacher(request.user, pk)
    if school_class is None:
        raise Http404
    return render(
        request,
        "lms/lti/scores.html",
        {
            "school_class": school_class,
            "scores": class_scores(school_class),
            "roster": class_roster(school_class),
        },
    )


@login_required
@require_POST
def score_resend(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        row = scores.score_resend(outbox_id=pk, by=request.user)
    except LaunchRefused as error:
        if error.status == 404:
            raise Http404 from None
        return refused(request, error)
    messages.success(request, _("The score is on its way to the LMS again."))
    return redirect("lti:class_scores", pk=row.school_class.pk)


# --- progress columns in the LMS gradebook -----------------------------------------------------


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def progress_columns_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The teacher chooses periods and themes whose mastery the LMS gradebook shows."""
    school_class = class_for_teacher(request.user, pk)
    if school_class is None:
        raise Http404
    error = ""
    if request.method == "POST":
        try:
            published = columns.progress_columns_publish(
                school_class=school_class, by=request.user, keys=request.POST.getlist("column")
            )
        except ClassError as refusal:
            if refusal.code == "not_found":
                raise Http404 from None
            error = str(refusal)
        else:
            messages.success(
                request,
                ngettext(
                    "%(n)d progress column is published in the LMS gradebook.",
                    "%(n)d progress columns are published in the LMS gradebook.",
                    len(published),
                )
                % {"n": len(published)},
            )
            return redirect("lti:progress_columns", pk=school_class.pk)
    choices = columns.column_choices(school_class)
    return render(
        request,
        "lms/lti/progress_columns.html",
        {
            "school_class": school_class,
            "published": [choice for choice in choices if choice.published],
            "unpublished": [choice for choice in choices if not choice.published],
            "gradebook": bool(columns.class_links_with_ags(school_class)),
            "chosen": set(request.POST.getlist("column")),
            "error": error,
        },
        status=400 if error else 200,
    )


@login_required
@require_POST
def progress_column_unpublish(request: HttpRequest, pk: int) -> HttpResponse:
    try:
        column = columns.progress_column_unpublish(column_id=pk, by=request.user)
    except ClassError:
        raise Http404 from None
    messages.success(
        request,
        _("“%(label)s” is no longer kept current; the LMS keeps the column and its scores.")
        % {"label": column.label},
    )
    return redirect("lti:progress_columns", pk=column.class_link.school_class_id)
