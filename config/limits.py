"""Limits on guessing: wrong passwords, wrong join codes, refused LTI logins.

A class of 30 behind one school address joins within a minute, so what is counted is
failures (a code that opens nothing, a refused login), never successes: a client that
guesses runs out of tries, a class that types the right code never does. The counters
live in Django's cache, per client address and per kind of guess, in fixed windows
(Redis in production, shared by every process; one process's memory in the embedded
mode). Sign-ins are django-axes's: its authentication backend refuses a locked-out
client on every login form (the site's and the admin's), ``SignInBackoffHandler`` below
adds the backoff, and its rows let an operator see and lift a lockout
(``manage.py axes_reset_username``). Axes counts one account from one address; on top of
it, failed sign-ins from one address over every account are capped (``signin_addresses``),
so one machine trying many usernames runs out of tries too, while a class signing in
with the right passwords is never counted.

LTI login initiations are counted for what can hurt: each one keeps an OIDC state in the
cache until its launch comes, so an initiation counts against its address until a launch
spends its state (``lti_logins_pending``). The login keeps its bucket's key beside the
state; the launch that passes its checks (signed by the LMS, answering that login, from
the browser holding its state cookie) takes the count back from that bucket
(``FailureLimit.forgive``). A school's students add up only while their logins wait for
their launches, a few seconds each; a client that starts logins and never finishes them runs
out.

A refused client gets ``429 Too Many Requests`` with ``Retry-After`` and a page that says
when to try again (``templates/429.html``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import wraps
from typing import Any

from axes.handlers.database import AxesDatabaseHandler
from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_failure_limit
from django.conf import settings
from django.core.cache import cache
from django.db.models import Max, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext


def client_ip(request: HttpRequest) -> str:
    """The address of whoever sent ``request``, as the proxies in front of Talia saw it.

    Behind ``FORWARDED_PROXY_COUNT`` proxies that each append the address they saw to
    ``X-Forwarded-For`` (nginx's ``$proxy_add_x_forwarded_for``), the client is that many
    entries from the right; entries further left were written by the client and prove
    nothing. Without proxies it is ``REMOTE_ADDR``. DRF's ``NUM_PROXIES`` reads it alike.
    """
    proxies = settings.FORWARDED_PROXY_COUNT
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies > 0 and forwarded:
        addresses = [part.strip() for part in forwarded.split(",") if part.strip()]
        if addresses:
            return addresses[-min(proxies, len(addresses))]
    return str(request.META.get("REMOTE_ADDR", ""))


# --- failures counted per client ---------------------------------------------------------------


@dataclass(frozen=True)
class FailureLimit:
    """At most ``failures`` failures of one kind per client in a window of ``window`` seconds."""

    name: str
    failures: int
    window: int

    def _bucket(self, request: HttpRequest, now: float) -> tuple[str, float]:
        start = math.floor(now / self.window) * self.window
        return f"limits:{self.name}:{client_ip(request)}:{int(start)}", start + self.window

    def retry_after(self, request: HttpRequest) -> int | None:
        """Seconds until this client may try again, or None if it may now."""
        now = time.time()
        key, ends = self._bucket(request, now)
        if (cache.get(key) or 0) < self.failures:
            return None
        return max(1, math.ceil(ends - now))

    def note(self, request: HttpRequest) -> str:
        """Count one failure of this client (a wrong code, a refused login); return the
        key of the bucket it was counted in, for :meth:`forgive`."""
        key, ends = self._bucket(request, time.time())
        # The key lives a little longer than its window: a clock a second off between
        # web processes must not restart a count that is still being read.
        if not cache.add(key, 1, timeout=self.window + 5):
            try:
                cache.incr(key)
            except ValueError:  # expired between add and incr
                cache.add(key, 1, timeout=self.window + 5)
        return key

    def forgive(self, bucket: str) -> None:
        """Take back one failure that :meth:`note` counted in ``bucket``, never below zero.

        The bucket is the one the failure was counted in, whatever the window is now: a
        bucket whose window is over is gone, and nothing is taken from the next. (A bucket
        the cache evicted and a later failure made anew may lose a count that was not the
        forgiven one's: the limit then errs by one towards letting a client in.) Each
        failure must be forgiven at most once; the caller sees to it.
        """
        if not bucket.startswith(f"limits:{self.name}:"):
            return
        try:
            left = cache.decr(bucket)
        except ValueError:  # expired or evicted: nothing left to take back
            return
        if left < 0:
            # The bucket was evicted and counted again since the failure was noted: the
            # take-back is undone, so that no client gains tries beyond the limit. (Redis
            # may also have made the key anew, without expiry, between Django's check and
            # its DECR; it gets one.)
            try:
                cache.incr(bucket)
                cache.touch(bucket, timeout=self.window + 5)
            except ValueError:  # gone meanwhile
                pass


def codes() -> FailureLimit:
    """Wrong join codes, over every code entry (games, workshops, practice, quizzes, classes)."""
    return FailureLimit("codes", settings.LIMIT_CODE_FAILURES, settings.LIMIT_CODE_WINDOW)


def lti_logins() -> FailureLimit:
    """LTI login initiations Talia refused (unknown issuer or client, foreign target)."""
    return FailureLimit(
        "lti-login-refused", settings.LIMIT_LTI_LOGIN_FAILURES, settings.LIMIT_LTI_LOGIN_WINDOW
    )


def lti_logins_pending() -> FailureLimit:
    """LTI login initiations whose state no launch has spent: each one keeps a state in the
    cache for a while. A valid launch forgives its initiation (the login keeps the bucket's
    key beside its state); refused initiations stay counted, here and in :func:`lti_logins`."""
    return FailureLimit("lti-login", settings.LIMIT_LTI_LOGINS, 60)


def signin_addresses() -> FailureLimit:
    """Failed sign-ins from one address, whatever the account: many usernames tried from
    one machine. Axes's per-account lockout cannot do this without also counting a class's
    successes against its shared address, so it is a window of failures like the codes'."""
    return FailureLimit(
        "signin-address", settings.LIMIT_SIGNIN_ADDRESS_FAILURES, settings.LIMIT_SIGNIN_ADDRESS_WINDOW
    )


def too_many(request: HttpRequest, retry_after: int, *, what: str) -> HttpResponse:
    """The 429 page: what was refused, and when to try again (also as ``Retry-After``)."""
    seconds = max(1, int(retry_after))
    if seconds < 60:
        wait = ngettext("%(n)d second", "%(n)d seconds", seconds) % {"n": seconds}
    else:
        minutes = math.ceil(seconds / 60)
        wait = ngettext("%(n)d minute", "%(n)d minutes", minutes) % {"n": minutes}
    response = render(
        request,
        "429.html",
        {"what": what, "wait": wait, "until": timezone.now() + timedelta(seconds=seconds)},
        status=429,
    )
    response["Retry-After"] = str(seconds)
    return response


def codes_limited(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Refuse a client that typed too many wrong codes, before the view looks any code up."""

    @wraps(view)
    def limited(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        wait = codes().retry_after(request)
        if wait is not None:
            return too_many(request, wait, what=_("Too many codes that open nothing were typed here."))
        return view(request, *args, **kwargs)

    return limited


def code_failure(request: HttpRequest) -> None:
    """A code was typed that opens nothing: count it for this client."""
    codes().note(request)


# --- sign-in lockout with backoff (django-axes) ---------------------------------------------


def signin_backoff(failures: int, limit: int) -> timedelta:
    """How long a client stays locked after its ``failures``-th failed sign-in.

    ``limit`` failures lock for ``LIMIT_SIGNIN_LOCKOUT`` seconds; each further failure
    (one try after each lockout ends) doubles it, up to ``LIMIT_SIGNIN_LOCKOUT_MAX``.

    >>> signin_backoff(5, 5), signin_backoff(7, 5)  # with the defaults 60 s and 1 h
    (datetime.timedelta(seconds=60), datetime.timedelta(seconds=240))
    """
    if failures < limit:
        return timedelta(0)
    seconds = settings.LIMIT_SIGNIN_LOCKOUT * 2 ** min(failures - limit, 30)
    return timedelta(seconds=min(seconds, settings.LIMIT_SIGNIN_LOCKOUT_MAX))


class SignInBackoffHandler(AxesDatabaseHandler):
    """django-axes's database handler, locking for a time that doubles with each failure.

    Failures are remembered for ``AXES_COOLOFF_TIME`` (a day) after the last one; a
    client is locked from its last failure for ``signin_backoff(failures)``. Tries during
    a lockout are refused without being counted (``AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT``
    is false), so the time the page gave stays true. The rows are axes's own, so the admin
    lists them and ``axes_reset_username`` lifts a lockout.
    """

    def locked_until(
        self, request: HttpRequest, credentials: dict[str, Any] | None = None
    ) -> datetime | None:
        """When this client's lockout ends, or None if it is not locked."""
        limit = get_failure_limit(request, credentials)
        until: datetime | None = None
        for attempts in self.get_user_attempts(request, credentials):
            totals = attempts.aggregate(failures=Sum("failures_since_start"), last=Max("attempt_time"))
            if not totals["failures"] or totals["failures"] < limit:
                continue
            ends = totals["last"] + signin_backoff(totals["failures"], limit)
            until = ends if until is None else max(until, ends)
        return until if until is not None and until > timezone.now() else None

    def address_locked_until(self, request: HttpRequest) -> datetime | None:
        """When this address may try again after too many failures over every account."""
        wait = signin_addresses().retry_after(request)
        return None if wait is None else timezone.now() + timedelta(seconds=wait)

    def is_locked(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> bool:
        return (
            self.address_locked_until(request) is not None
            or self.locked_until(request, credentials) is not None
        )

    def user_login_failed(
        self, sender: Any, credentials: dict[str, Any], request: HttpRequest | None = None, **kwargs: Any
    ) -> None:
        # A try refused during a lockout is not a new failure (the time given stays true).
        if request is not None and not getattr(request, "axes_locked_out", False):
            signin_addresses().note(request)
        super().user_login_failed(sender, credentials, request, **kwargs)


def signin_locked_response(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    """axes's lockout answer: the 429 page with the time the lockout ends."""
    handler = AxesProxyHandler.get_implementation()
    if isinstance(handler, SignInBackoffHandler):
        address_until = handler.address_locked_until(request)
        until = handler.locked_until(request, credentials)
    else:
        address_until = until = None
    if address_until is not None and (until is None or address_until >= until):
        what = _("Too many wrong passwords were typed here, for several accounts.")
        until = address_until
    else:
        what = _("Too many wrong passwords were typed for this account here.")
    wait = (until - timezone.now()).total_seconds() if until else settings.LIMIT_SIGNIN_LOCKOUT
    return too_many(request, math.ceil(wait), what=what)
