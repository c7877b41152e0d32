"""Talia's calls to an LMS: access tokens (cached until they expire), scores, rosters.

1EdTech Security Framework §4.1 (client-credentials grant with a signed JWT assertion),
LTI AGS 2.0 §3.4 (score publish service), LTI NRPS 2.0 §2 (membership service).
Every request has a timeout; an HTTP error or timeout raises :class:`ServiceError`.
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
import uuid
from typing import Any
from urllib.parse import urlencode

import jwt
import requests
from django.conf import settings
from django.core.cache import caches
from lti_tool.models import LtiRegistration

from .keys import signing_material

TIMEOUT = (5, 20)  # connect, read (seconds)
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
RESULT_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
LINEITEM_READ_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINEITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
TOKEN_MARGIN = 60  # seconds: a token this close to expiry is fetched again


class ServiceError(Exception):
    """The LMS did not answer as expected; ``retry`` says whether trying again may help."""

    def __init__(self, message: str, *, retry: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.retry = retry
        self.status = status


_local = threading.local()


def _session() -> requests.Session:
    """One HTTP session per thread: the LMS's connections are kept alive between calls."""
    owned: tuple[int, requests.Session] | None = getattr(_local, "session", None)
    if owned is None or owned[0] != os.getpid():  # never share sockets with a forked parent
        session = requests.Session()
        session.headers["User-Agent"] = "Talia-LTI/1"
        owned = (os.getpid(), session)
        _local.session = owned
    return owned[1]


def _token_key(registration: LtiRegistration, scopes: list[str]) -> str:
    digest = hashlib.sha256(
        f"{registration.pk}|{registration.client_id}|{' '.join(sorted(scopes))}".encode()
    ).hexdigest()
    return "lti:token:" + digest


def client_assertion(registration: LtiRegistration) -> str:
    """The JWT Talia signs to ask the LMS for an access token."""
    private_key, kid = signing_material()
    now = int(time.time())
    claims = {
        "iss": registration.client_id,
        "sub": registration.client_id,
        "aud": registration.audience or registration.token_url,
        "iat": now - 5,
        "exp": now + 300,
        "jti": "talia-" + uuid.uuid4().hex,
    }
    return jwt.encode(claims, private_key, algorithm="RS256", headers={"kid": kid})


def access_token(registration: LtiRegistration, scopes: list[str], *, fresh: bool = False) -> str:
    """A bearer token for ``scopes``, from the cache while it is valid."""
    cache = caches[settings.LTI_CACHE]
    key = _token_key(registration, scopes)
    if not fresh:
        token = cache.get(key)
        if token:
            return str(token)
    try:
        response = _session().post(
            registration.token_url,
            data={
                "grant_type": "client_credentials",
                "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
                "client_assertion": client_assertion(registration),
                "scope": " ".join(scopes),
            },
            timeout=TIMEOUT,
        )
    except requests.RequestException as exc:
        raise ServiceError(f"token request failed: {exc.__class__.__name__}", retry=True) from exc
    if response.status_code != 200:
        raise ServiceError(
            f"token endpoint answered {response.status_code}: {response.text[:200]}",
            retry=response.status_code >= 500 or response.status_code == 429,
            status=response.status_code,
        )
    try:
        body = response.json()
        token = str(body["access_token"])
        expires_in = int(body.get("expires_in") or 3600)
    except (ValueError, KeyError, TypeError) as exc:
        raise ServiceError("token endpoint answered without a token", retry=True) from exc
    cache.set(key, token, max(1, expires_in - TOKEN_MARGIN))
    return token


def _request(
    registration: LtiRegistration,
    scopes: list[str],
    method: str,
    url: str,
    *,
    json_body: Any = None,
    content_type: str = "application/json",
    accept: str = "application/json",
) -> requests.Response:
    for attempt in (1, 2):
        token = access_token(registration, scopes, fresh=attempt == 2)
        headers = {"Authorization": f"Bearer {token}", "Accept": accept}
        if json_body is not None:
            headers["Content-Type"] = content_type
        try:
            response = _session().request(method, url, json=json_body, headers=headers, timeout=TIMEOUT)
        except requests.RequestException as exc:
            raise ServiceError(f"{method} {url} failed: {exc.__class__.__name__}", retry=True) from exc
        if response.status_code == 401 and attempt == 1:
            continue  # the token expired early or was revoked: fetch a new one once
        if response.status_code >= 400:
            raise ServiceError(
                f"{method} {url} answered {response.status_code}: {response.text[:200]}",
                retry=response.status_code >= 500 or response.status_code in (401, 408, 429),
                status=response.status_code,
            )
        return response
    raise AssertionError("unreachable")


def scores_url(lineitem_url: str) -> str:
    """``<line item>/scores``, keeping any query string (Moodle's line item URLs have one)."""
    path, sep, query = lineitem_url.partition("?")
    return path.rstrip("/") + "/scores" + (sep + query if sep else "")


def score_post(registration: LtiRegistration, lineitem_url: str, score: dict[str, Any]) -> None:
    """POST one score to a line item (application/vnd.ims.lis.v1.score+json)."""
    _request(
        registration,
        [SCORE_SCOPE],
        "POST",
        scores_url(lineitem_url),
        json_body=score,
        content_type="application/vnd.ims.lis.v1.score+json",
    )


def _with_query(url: str, **params: str) -> str:
    """``url`` with ``params`` added to its own query (Moodle's line items URL has one)."""
    return url + ("&" if "?" in url else "?") + urlencode(params)


def lineitems_find(
    registration: LtiRegistration, lineitems_url: str, *, resource_id: str
) -> list[dict[str, Any]]:
    """The course's line items with ``resourceId`` ``resource_id`` (AGS 2.0 §3.2, first page)."""
    response = _request(
        registration,
        [LINEITEM_SCOPE],
        "GET",
        _with_query(lineitems_url, resource_id=resource_id),
        accept=LINEITEMS_TYPE,
    )
    body = response.json()
    return [item for item in body if isinstance(item, dict)] if isinstance(body, list) else []


def lineitem_create(
    registration: LtiRegistration, lineitems_url: str, item: dict[str, Any]
) -> dict[str, Any]:
    """POST a new line item to the course's container; returns the LMS's line item (with its ``id``)."""
    response = _request(
        registration,
        [LINEITEM_SCOPE],
        "POST",
        lineitems_url,
        json_body=item,
        content_type=LINEITEM_TYPE,
        accept=LINEITEM_TYPE,
    )
    body = response.json()
    if not isinstance(body, dict) or not isinstance(body.get("id"), str) or not body["id"]:
        raise ServiceError("the LMS made a line item without an id", retry=False)
    return body


def members_get(registration: LtiRegistration, memberships_url: str) -> list[dict[str, Any]]:
    """Every member of a course, following the ``Link: rel="next"`` pages (NRPS 2.0 §2.4.2)."""
    members: list[dict[str, Any]] = []
    url: str | None = memberships_url
    pages = 0
    while url and pages < 200:
        response = _request(
            registration,
            [NRPS_SCOPE],
            "GET",
            url,
            accept="application/vnd.ims.lti-nrps.v2.membershipcontainer+json",
        )
        pages += 1
        body = response.json()
        members.extend(m for m in body.get("members", []) if isinstance(m, dict))
        # RFC 8288: rel="next" or rel=next, among other links in any order (requests parses it).
        url = response.links.get("next", {}).get("url")
    return members
