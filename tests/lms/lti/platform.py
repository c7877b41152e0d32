"""A real LTI 1.3 platform for the tests and the bench: ``lti1p3platform`` served over HTTP on 127.0.0.1.

The package builds and signs the launches (OIDC auth response, id_token, deep-linking
claim), issues access tokens (client-credentials with Talia's signed assertion, checked
against Talia's JWKS) and validates deep-linking responses. Its service classes answer the
AGS endpoints (line items, scores, results) and the NRPS membership endpoint: they check
the bearer token and its scope, the HTTP method, answer 404 for an unknown line item, map a
score's status to its HTTP code and build the paging links. What it leaves to its web
adapters is written here in a few lines: the HTTP routes and rendering, the launch form (its
bundled Django/FastAPI adapters import ``pkg_resources``), and the storage of line items,
scores and course members behind its abstract service methods.

The library's service classes leave some checks to the platform; these are ours, as a real
LMS makes them: the request media type of a score or line item, the score fields Moodle and
Canvas require, the line item fields the AGS requires, the order of score timestamps.

Tests drive it like a browser would: ``Platform.launch(...)`` registers what the next
login should launch and returns the login-initiation URL the LMS would open.
"""

from __future__ import annotations

import html
import itertools
import json
import os
import random
import re
import secrets
import threading
import time
import typing as t
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlencode, urlsplit

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from lti1p3platform.exceptions import LineItemNotFoundException, LtiException, LtiServiceException
from lti1p3platform.lineitem import TLineItem
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.membership import Context
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request, TRequest
from lti1p3platform.response import Response
from lti1p3platform.score import TScore, UpdateScoreStatus
from lti1p3platform.service_connector import AssignmentsGradesService, NamesRoleProvisioningService, TPage

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
RESULT_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
LINEITEM_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem"
LINEITEM_READ_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem.readonly"
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINEITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
# What Moodle requires of a score (Canvas needs the same for a graded one).
SCORE_FIELDS = ("userId", "scoreGiven", "scoreMaximum", "timestamp", "activityProgress", "gradingProgress")
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


# Key pairs already made, and how many of them the current test has been given.
_PAIRS: list[tuple[str, str]] = []
_given = {"test": "", "count": 0}


def rsa_pem_pair() -> tuple[str, str]:
    """An RSA key pair that no other call of the same test has been given.

    Making a 2048-bit key costs about 0.1 CPU seconds, and every platform makes one. Under
    pytest the pairs are kept and given out again in the next test: the n-th pair a test asks
    for is the n-th pair made, so two platforms of one test, a rotated key and a forger's
    key always differ from each other, as fresh keys would. Outside pytest every call makes
    a new pair.
    """
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    if not test:
        return _new_rsa_pem_pair()
    if test != _given["test"]:
        _given["test"], _given["count"] = test, 0
    while len(_PAIRS) <= _given["count"]:
        _PAIRS.append(_new_rsa_pem_pair())
    pair = _PAIRS[_given["count"]]
    _given["count"] += 1
    return pair


def _new_rsa_pem_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


@dataclass
class Person:
    sub: str
    name: str
    roles: list[str]
    given_name: str = ""
    family_name: str = ""
    email: str = ""
    status: str = "Active"


@dataclass
class PendingLaunch:
    """What the platform launches at the next auth request with this message hint."""

    person: Person
    context_id: str
    context_title: str
    resource_link_id: str | None = None
    deep_link: bool = False
    custom: dict[str, str] = field(default_factory=dict)
    lineitem_id: str | None = None
    tamper: t.Callable[[dict[str, t.Any], dict[str, t.Any]], None] | None = None
    sign_with: str | None = None  # another private key (a forged launch)


@dataclass
class LineItem:
    id: str
    label: str
    score_maximum: float
    resource_link_id: str | None
    scores: dict[str, dict[str, t.Any]] = field(default_factory=dict)
    tag: str = ""
    resource_id: str = ""

    def as_json(self) -> TLineItem:
        item: TLineItem = {
            "id": self.id,
            "label": self.label,
            "scoreMaximum": t.cast(int, self.score_maximum),
        }
        if self.resource_link_id:
            item["resourceLinkId"] = self.resource_link_id
        if self.tag:
            item["tag"] = self.tag
        if self.resource_id:
            item["resourceId"] = self.resource_id
        return item


class _Registration(Registration):
    """lti1p3platform's registration; the platform key's kid and JWKS are worked out once,
    and its private key is parsed once. The package hands PyJWT the PEM text at every
    signature (id_token, access token), and parsing an RSA private key (with its
    consistency check) took ~130 ms of the ~560 ms of a whole launch on the loaded bench
    machine: that is the test platform's cost, not Talia's, so it is paid once here."""

    _cached: dict[t.Any, t.Any] = {}

    @staticmethod
    def encode_and_sign(
        payload: dict[str, t.Any],
        private_key: str,
        headers: t.Any | None = None,
        expiration: int | None = None,
    ) -> str:
        entry = ("private", private_key)
        if entry not in _Registration._cached:
            _Registration._cached[entry] = serialization.load_pem_private_key(
                private_key.encode(), password=None
            )
        return Registration.encode_and_sign(
            payload, _Registration._cached[entry], headers, expiration=expiration
        )

    def platform_encode_and_sign(self, payload: dict[str, t.Any], expiration: int | None = None) -> str:
        private_key = self.get_platform_private_key()
        assert private_key is not None
        kid = self.get_kid()
        return self.encode_and_sign(payload, private_key, {"kid": kid} if kid else None, expiration)

    def get_kid(self) -> str | None:
        key = ("kid", self.get_platform_private_key())
        if key not in _Registration._cached:
            _Registration._cached[key] = super().get_kid()
        return t.cast("str | None", _Registration._cached[key])

    def get_jwks(self) -> list[dict[str, t.Any]]:
        key = ("jwks", self.get_platform_public_key())
        if key not in _Registration._cached:
            _Registration._cached[key] = super().get_jwks()
        return t.cast("list[dict[str, t.Any]]", _Registration._cached[key])


class PlatformConf(LTI1P3PlatformConfAbstract):
    """lti1p3platform's platform configuration for one registration of Talia."""

    def init_platform_config(self, **kwargs: t.Any) -> None:
        self._registration = kwargs["registration"]

    def get_registration_by_params(self, **kwargs: t.Any) -> Registration:
        return self._registration

    def validate_token(
        self, token: str, allowed_scopes: list[str] | None = None, audience: str | None = None
    ) -> bool:
        # lti1p3platform 0.1.8: validate_token raises (PyJWT's errors, LtiException) for a
        # token with a bad signature, an expired one or another issuer's, and the services'
        # ``authenticate`` turns only LtiServiceException into an answer: the request would
        # end in a 500. Such a token is as invalid as one without the scope: 401.
        try:
            return super().validate_token(token, allowed_scopes, audience)
        except Exception:  # noqa: BLE001
            return False


class _Request(Request):
    def build_metadata(self, request: dict[str, t.Any]) -> TRequest:
        return t.cast(TRequest, request)


class _Launch(LTIAdvantageMessageLaunchAbstract):
    def render_launch_form(self, launch_data: dict[str, t.Any], **kwargs: t.Any) -> str:
        """The auto-submitted form post of the authentication response (OIDC form_post)."""
        return (
            f'<form id="launch" method="post" action="{html.escape(launch_data["launch_url"])}">'
            f'<input type="hidden" name="id_token" value="{html.escape(launch_data["id_token"])}">'
            f'<input type="hidden" name="state" value="{html.escape(launch_data["state"])}">'
            "</form><script>document.getElementById('launch').submit()</script>"
        )


def _page(items: list[t.Any], page: int = 1, limit: int | None = None) -> TPage:
    if not limit:
        return {"content": items, "has_next": False}
    start = (page - 1) * limit
    return {"content": items[start : start + limit], "has_next": start + limit < len(items)}


def _require_media_type(request: Request | None, media_type: str) -> None:
    # The library's ``authenticate(accept=...)`` sets the answer's media type only; the
    # request's is not checked.
    assert request is not None
    if (request.content_type or "").split(";")[0].strip() != media_type:
        raise LtiServiceException(f"expected {media_type}", 415)


class _Gradebook(AssignmentsGradesService):
    """The AGS line items, scores and results over ``Platform.lineitems``."""

    def __init__(
        self, platform: Platform, request: Request, scopes: list[str], lineitem_url: str | None = None
    ) -> None:
        super().__init__(request, platform.conf(), platform.url + "/lineitems", lineitem_url)
        self.platform = platform
        self.scopes = scopes

    @property
    def allowed_scopes(self) -> list[str]:
        # lti1p3platform 0.1.8: ``authenticate`` accepts a token with any one of the scopes the
        # whole service offers (lineitem, result.readonly, score), so a token for reading
        # results could post scores. Each endpoint is given only the scopes that grant it.
        return self.scopes

    def _item(self, line_item_id: str) -> LineItem:
        item = self.platform.lineitems.get(line_item_id)
        if item is None:
            raise LineItemNotFoundException(line_item_id)
        return item

    def find_lineitems(
        self,
        page: int = 1,
        limit: int | None = None,
        line_item_id: str | None = None,
        resource_link_id: str | None = None,
        resource_id: str | None = None,
        tag: str | None = None,
        **_other: t.Any,  # the line items URL's own query (Moodle's type_id)
    ) -> TPage:
        items = [
            item.as_json()
            for item in self.platform.lineitems.values()
            if resource_link_id in (None, item.resource_link_id)
            and resource_id in (None, item.resource_id)
            and tag in (None, item.tag)
        ]
        return _page(items, page, limit)

    def find_lineitem(self, line_item_id: str) -> TLineItem:
        return self._item(line_item_id).as_json()

    def _fields(self, data: TLineItem) -> tuple[str, float]:
        _require_media_type(self.request, LINEITEM_TYPE)
        label, maximum = data.get("label"), data.get("scoreMaximum")
        if not isinstance(label, str) or not label.strip():
            raise LtiServiceException("a line item needs a label", 400)
        if not isinstance(maximum, (int, float)) or isinstance(maximum, bool) or maximum <= 0:
            raise LtiServiceException("a line item needs a positive scoreMaximum", 400)
        return label, float(maximum)

    def create_lineitem(self, creation_data: TLineItem) -> TLineItem:
        label, maximum = self._fields(creation_data)
        item = self.platform.lineitem_add(
            label=label, score_maximum=maximum, resource_link_id=creation_data.get("resourceLinkId")
        )
        item.tag = creation_data.get("tag", "")
        item.resource_id = creation_data.get("resourceId", "")
        return item.as_json()

    def update_lineitem(self, update_data: TLineItem) -> TLineItem:
        item = self._item(update_data["id"])
        item.label, item.score_maximum = self._fields(update_data)
        item.tag = update_data.get("tag", item.tag)
        item.resource_id = update_data.get("resourceId", item.resource_id)
        return item.as_json()

    def delete_lineitem(self, line_item_id: str) -> None:
        self._item(line_item_id)
        del self.platform.lineitems[line_item_id]

    def update_score(self, line_item_id: str, score: TScore) -> UpdateScoreStatus:
        item = self._item(line_item_id)
        # The library posts the body as it came ("TODO: validate score").
        _require_media_type(self.request, SCORE_TYPE)
        for name in SCORE_FIELDS:
            if name not in score:
                raise LtiServiceException(f"missing {name}", 400)
        with self.platform.lock:
            previous = item.scores.get(str(score["userId"]))
            if previous and previous["timestamp"] > score["timestamp"]:
                return UpdateScoreStatus.OLD_TIMESTAMP
            item.scores[str(score["userId"])] = dict(score)
            self.platform.scores_posted += 1
        return UpdateScoreStatus.SUCCESS

    def get_results(
        self,
        line_item_id: str,
        page: int = 1,
        limit: int | None = None,
        user_id: str | None = None,
        **_other: t.Any,  # the line item URL's own query (Moodle's type_id)
    ) -> TPage:
        item = self._item(line_item_id)
        results = [
            {
                "id": f"{line_item_id.partition('?')[0]}/results/{user}",
                "scoreOf": line_item_id,
                "userId": user,
                "resultScore": score["scoreGiven"],
                "resultMaximum": score["scoreMaximum"],
                "timestamp": score["timestamp"],
            }
            for user, score in sorted(item.scores.items())
            if user_id in (None, user)
        ]
        return _page(results, page, limit)


class _Roster(NamesRoleProvisioningService):
    """The NRPS context membership of one course, over ``Platform.members``."""

    def __init__(self, platform: Platform, request: Request, context_id: str) -> None:
        super().__init__(request, platform.conf(), f"{platform.url}/memberships/{context_id}")
        self.platform = platform
        self.context_id = context_id

    def get_context_by_id(self) -> Context:
        title = self.platform.contexts.get(self.context_id, self.context_id)
        return Context(id=self.context_id, label=title[:10], title=title)

    def is_resource_link_valid(self, context_id: str, resource_link_id: str) -> bool:
        return self.platform.resource_links.get(resource_link_id) == context_id

    def get_member_data_page(
        self,
        page: int = 1,
        limit: int | None = None,
        role: str | None = None,
        since: str | None = None,
        **_other: t.Any,  # rlid, checked by the library
    ) -> TPage:
        members = [
            {
                "user_id": p.sub,
                "name": p.name,
                "given_name": p.given_name,
                "family_name": p.family_name,
                "email": p.email,
                "roles": list(p.roles),
                "status": p.status,
            }
            for p in self.platform.members.get(self.context_id, [])
            if role is None or any(r == role or r.rpartition("#")[2] == role for r in p.roles)
        ]
        return _page(members, page, limit)


def _answer(response: Response, *, quoted: bool = True) -> tuple[int, str, str, dict[str, str]]:
    """The HTTP answer of a library service response: a page's content is the body, and its
    next page a ``Link: <...>; rel="next"`` header (AGS 2.0 §3.2.8, NRPS 2.0 §2.4.2); with
    ``quoted`` off, ``rel=next`` after another link, as RFC 8288 also allows."""
    if response.code >= 400:
        return response.code, "application/json", json.dumps({"error": response.message}), {}
    result = response.result
    headers: dict[str, str] = {}
    if isinstance(result, dict):
        result = dict(result)
        next_url = result.pop("next", None)  # NRPS: the library puts it in the body
        if next_url:
            # Quoted, as Canvas and Moodle send it; the library's generate_next_link leaves
            # the quotes out, which RFC 8288 allows too.
            headers["Link"] = (
                f'<{next_url}>; rel="next"'
                if quoted
                else f"<{next_url.split('?')[0]}>; rel=first, <{next_url}>; rel=next"
            )
        if "content" in result and "has_next" in result:
            result = result["content"]
    body = "" if result is None else json.dumps(result)
    return response.code, response.media_type, body, headers


class Platform:
    """One LMS: issuer, client id and deployment for Talia, with courses, people and a gradebook."""

    def __init__(self, *, tool_base: str, fail_rate: float = 0.0, client_id: str | None = None) -> None:
        self.tool_base = tool_base.rstrip("/")
        self.fail_rate = fail_rate
        self.client_id = client_id or "talia-" + secrets.token_hex(4)
        self.deployment_id = "deployment-1"
        self.private_key, self.public_key = rsa_pem_pair()
        self.pending: dict[str, PendingLaunch] = {}
        self.lineitems: dict[str, LineItem] = {}
        self.lineitem_numbers = itertools.count(1)
        # Moodle's line item URLs carry the tool's type: ``.../lineitems/3/lineitem?type_id=2``.
        self.lineitem_query: str | None = None
        self.members: dict[str, list[Person]] = {}
        self.roster_page_size: int | None = None  # page the roster even when the tool asks no limit
        self.link_quoted = True  # False: Link headers as rel=next, after a rel=first
        self.contexts: dict[str, str] = {}  # context id → title, as launched
        self.resource_links: dict[str, str] = {}  # resource link id → context id, as launched
        self.deep_link_items: list[dict[str, t.Any]] = []
        self.tool_jwks: dict[str, t.Any] | None = None
        self.registrations: list[dict[str, t.Any]] = []
        # Dynamic registration: the token the LMS puts in the registration URL, required to
        # read its configuration and to register (Canvas); a test may replace either answer
        # by the body it gives here.
        self.registration_token: str | None = "registration-token"
        self.configuration_open = False  # True: anyone may read the configuration (Moodle)
        self.openid_configuration_body: str | None = None
        self.registration_body: str | None = None
        self.token_requests = 0
        self.score_delays: list[float] = []  # seconds the next score requests wait before answering
        self.lock = threading.Lock()
        self.requests_failed = 0
        self.scores_posted = 0
        self.jwks_requests = 0
        self.requests_flaky = 0  # token and score requests, each failed with ``fail_rate``
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.issuer = self.url
        # Polled every 20 ms, not the default 0.5 s: stop() waits for the next poll, and a
        # platform is started and stopped around every LTI test.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> Platform:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def registration(self) -> Registration:
        reg = (
            _Registration()
            .set_iss(self.issuer)
            .set_client_id(self.client_id)
            .set_deployment_id(self.deployment_id)
            .set_oidc_login_url(self.tool_base + "/lti/login/")
            .set_launch_url(self.tool_base + "/lti/launch/")
            .set_deeplink_launch_url(self.tool_base + "/lti/deep-link/")
            .set_platform_public_key(self.public_key)
            .set_platform_private_key(self.private_key)
        )
        if self.tool_jwks is not None:
            reg.set_tool_key_set(t.cast(t.Any, self.tool_jwks))
        else:
            reg.set_tool_key_set_url(self.tool_base + "/lti/jwks/")
        return reg

    def rotate_key(self) -> None:
        """The LMS replaces its signing key: launches carry the new kid, the JWKS lists only it."""
        self.private_key, self.public_key = rsa_pem_pair()

    def conf(self) -> PlatformConf:
        return PlatformConf(registration=self.registration())

    @property
    def tool_settings(self) -> dict[str, str]:
        """What an admin enters in Talia for this platform (manual registration)."""
        return {
            "issuer": self.issuer,
            "client_id": self.client_id,
            "auth_url": self.url + "/auth",
            "token_url": self.url + "/token",
            "keyset_url": self.url + "/jwks",
        }

    # --- what the tests call ---------------------------------------------------------------

    def launch(self, pending: PendingLaunch, *, client_id: bool = True) -> str:
        """The login-initiation URL the LMS sends the browser to for ``pending``."""
        hint = secrets.token_urlsafe(8)
        self.pending[hint] = pending
        params = {
            "iss": self.issuer,
            "login_hint": pending.person.sub,
            "target_link_uri": self.tool_base + ("/lti/deep-link/" if pending.deep_link else "/lti/launch/"),
            "lti_message_hint": hint,
            "lti_deployment_id": self.deployment_id,
        }
        if client_id:
            params["client_id"] = self.client_id
        return self.tool_base + "/lti/login/?" + urlencode(params)

    @property
    def lineitems_url(self) -> str:
        return f"{self.url}/lineitems" + (f"?{self.lineitem_query}" if self.lineitem_query else "")

    def lineitem_add(self, *, label: str, score_maximum: float, resource_link_id: str | None) -> LineItem:
        number = next(self.lineitem_numbers)
        item = LineItem(
            id=f"{self.url}/lineitems/{number}"
            + (f"/lineitem?{self.lineitem_query}" if self.lineitem_query else ""),
            label=label,
            score_maximum=score_maximum,
            resource_link_id=resource_link_id,
        )
        self.lineitems[item.id] = item
        return item

    # --- the routes --------------------------------------------------------------------------

    def _auth(self, query: dict[str, str]) -> tuple[int, str, str]:
        """OIDC authorization endpoint: answer the tool's auth request with the launch form."""
        pending = self.pending.get(query.get("lti_message_hint", ""))
        if pending is None or query.get("login_hint") != pending.person.sub:
            return 400, "text/plain", "unknown login"
        conf = self.conf()
        message = _Launch(_Request({"get_data": query, "form_data": {}}), conf)
        person = pending.person
        message.set_user_data(
            person.sub, person.roles, full_name=person.name, email_address=person.email or None
        )
        message.set_launch_context_claim(
            pending.context_id,
            context_types=["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"],
            context_title=pending.context_title,
            context_label=pending.context_title[:10],
        )
        message.set_nrps(f"{self.url}/memberships/{pending.context_id}")
        self.contexts[pending.context_id] = pending.context_title
        extra: dict[str, t.Any] = {"given_name": person.given_name, "family_name": person.family_name}
        if pending.deep_link:
            message.set_dl(f"{self.url}/deep_link_return", title="Add", accept_types={"ltiResourceLink"})
            message.set_ags(lineitems_url=self.lineitems_url)
        else:
            assert pending.resource_link_id
            self.resource_links[pending.resource_link_id] = pending.context_id
            message.set_resource_link_claim(pending.resource_link_id, title="Activity")
            lineitem = pending.lineitem_id
            if lineitem is None:
                for item in self.lineitems.values():
                    if item.resource_link_id == pending.resource_link_id:
                        lineitem = item.id
            message.set_ags(lineitems_url=self.lineitems_url, lineitem_url=lineitem)
            if pending.custom:
                message.set_custom_parameters_claim(pending.custom)
        message.set_extra_claims(extra)
        message._registration = conf.get_registration()
        message.validate_preflight_response(query)
        if pending.tamper is None and pending.sign_with is None:
            return 200, "text/html", message.lti_launch()
        # A forged or broken launch: the same message, changed, then signed.
        payload = message.get_launch_message()
        payload["nonce"] = query["nonce"]
        payload["iat"] = int(time.time())
        payload["exp"] = int(time.time()) + 300
        if pending.deep_link:
            payload["https://purl.imsglobal.org/spec/lti/claim/message_type"] = "LtiDeepLinkingRequest"
            payload.update(message._deep_linking_launch_data or {})
        headers: dict[str, t.Any] = {"kid": conf.get_registration().get_kid()}
        if pending.tamper is not None:
            pending.tamper(payload, headers)
        headers = {k: v for k, v in headers.items() if v is not None}
        import jwt

        token = jwt.encode(payload, pending.sign_with or self.private_key, algorithm="RS256", headers=headers)
        return (
            200,
            "text/html",
            message.render_launch_form(
                {"id_token": token, "state": query["state"], "launch_url": query["redirect_uri"]}
            ),
        )

    def _token(self, form: dict[str, str]) -> tuple[int, str, str]:
        conf = self.conf()
        conf.get_registration()
        try:
            answer = conf.get_access_token(form)
        except (LtiException, Exception) as exc:  # noqa: BLE001 - the platform answers 400 to a bad request
            return 400, "application/json", json.dumps({"error": "invalid_client", "detail": str(exc)})
        return 200, "application/json", json.dumps(answer)

    SERVICE_PATH = re.compile(r"(?P<item>/lineitems/\d+(?:/lineitem)?)(?P<sub>/scores|/results)?")

    def _service(
        self, method: str, target: str, headers: t.Mapping[str, str], body: bytes
    ) -> tuple[int, str, str, dict[str, str]] | None:
        """An AGS or NRPS request, answered by the library's service classes; None: not one."""
        parts = urlsplit(target)
        path = parts.path
        query: dict[str, t.Any] = dict(parse_qsl(parts.query))
        line = self.SERVICE_PATH.fullmatch(path)
        members = re.fullmatch(r"/memberships/(.+)", path)
        if path != "/lineitems" and not line and not members:
            return None
        for name in ("page", "limit"):
            # lti1p3platform 0.1.8 computes the next page as ``page + 1`` from the query as
            # given: the numbers are made ints here (a str there is a TypeError, a 500).
            if name in query:
                if not (query[name].isascii() and query[name].isdigit()) or int(query[name]) < 1:
                    return 400, "application/json", json.dumps({"error": f"bad {name}"}), {}
                query[name] = int(query[name])
        if members and self.roster_page_size and "limit" not in query:
            # The library links the next page only when the tool sent a limit; a platform
            # that pages on its own (Canvas) puts its limit in the link.
            query["limit"] = self.roster_page_size
        try:
            document = json.loads(body) if body else {}
        except ValueError:
            document = {}
        request = _Request(
            {
                "method": method,
                "get_data": query,
                "form_data": {},
                "headers": headers,
                "content_type": headers.get("Content-Type"),
                "path": path,
                "json": document if isinstance(document, dict) else {},
            }
        )
        reading = method == "GET"
        if members:
            roster = _Roster(self, request, members.group(1))
            return _answer(roster.handle_resp(roster.handle_get_members), quoted=self.link_quoted)
        if not line:  # the line items container
            grades = _Gradebook(
                self, request, [LINEITEM_SCOPE, LINEITEM_READ_SCOPE] if reading else [LINEITEM_SCOPE]
            )
            handler = grades.handle_get_lineitems if reading else grades.handle_create_lineitem
            return _answer(grades.handle_resp(handler))
        # The line item's id, whatever host or query it was made with (Moodle's type_id).
        item_id = next(
            (i for i in list(self.lineitems) if urlsplit(i).path == line["item"]), self.url + line["item"]
        )
        lineitem_url = self.url + line["item"]
        if line["sub"] == "/scores":
            grades = _Gradebook(self, request, [SCORE_SCOPE], lineitem_url)
            return _answer(grades.handle_resp(grades.handle_update_score, line_item_id=item_id))
        if line["sub"] == "/results":
            grades = _Gradebook(self, request, [RESULT_SCOPE], lineitem_url)
            return _answer(grades.handle_resp(grades.handle_get_results, line_item_id=item_id))
        grades = _Gradebook(
            self,
            request,
            [LINEITEM_SCOPE, LINEITEM_READ_SCOPE] if reading else [LINEITEM_SCOPE],
            lineitem_url,
        )
        handler = {"PUT": grades.handle_update_lineitem, "DELETE": grades.handle_delete_lineitem}.get(
            method,
            grades.handle_get_lineitem,  # POST: the library answers 405
        )
        return _answer(grades.handle_resp(handler, line_item_id=item_id))

    def _deep_link_return(self, form: dict[str, str]) -> tuple[int, str, str]:
        conf = self.conf()
        conf.get_registration()
        try:
            items = conf.validate_deeplinking_resp(form)
        except Exception as exc:  # noqa: BLE001
            return 400, "text/plain", f"deep linking response refused: {exc}"
        for item in items:
            line = item.get("lineItem")
            resource_link_id = "rl-" + secrets.token_hex(4)
            item["_resource_link_id"] = resource_link_id
            if line:
                added = self.lineitem_add(
                    label=line["label"],
                    score_maximum=float(line["scoreMaximum"]),
                    resource_link_id=resource_link_id,
                )
                item["_lineitem_id"] = added.id
            self.deep_link_items.append(item)
        return 200, "text/plain", "ok"

    def _openid_configuration(self, headers: t.Mapping[str, str]) -> tuple[int, str, str]:
        token_ok = headers.get("Authorization") == f"Bearer {self.registration_token}"
        if self.registration_token and not token_ok and not self.configuration_open:
            return 401, "application/json", '{"error": "registration token"}'
        if self.openid_configuration_body is not None:
            return 200, "application/json", self.openid_configuration_body
        return (
            200,
            "application/json",
            json.dumps(
                {
                    "issuer": self.issuer,
                    "authorization_endpoint": self.url + "/auth",
                    "token_endpoint": self.url + "/token",
                    "jwks_uri": self.url + "/jwks",
                    "registration_endpoint": self.url + "/register",
                    "scopes_supported": [SCORE_SCOPE, RESULT_SCOPE, NRPS_SCOPE],
                    "https://purl.imsglobal.org/spec/lti-platform-configuration": {
                        "product_family_code": "lti1p3platform",
                        "version": "0.1.8",
                    },
                }
            ),
        )

    def _register(self, headers: t.Mapping[str, str], body: bytes) -> tuple[int, str, str]:
        if self.registration_token and headers.get("Authorization") != f"Bearer {self.registration_token}":
            return 401, "application/json", '{"error": "registration token"}'
        document = json.loads(body)
        self.registrations.append(document)
        if self.registration_body is not None:
            return 200, "application/json", self.registration_body
        answer = dict(document)
        answer["client_id"] = self.client_id
        tool = dict(document.get("https://purl.imsglobal.org/spec/lti-tool-configuration", {}))
        tool["deployment_id"] = self.deployment_id
        answer["https://purl.imsglobal.org/spec/lti-tool-configuration"] = tool
        return 200, "application/json", json.dumps(answer)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        platform = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: t.Any) -> None:
                pass

            def _send(
                self, status: int, content_type: str, body: str, headers: dict[str, str] | None = None
            ) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def _flaky(self) -> bool:
                with platform.lock:
                    platform.requests_flaky += 1
                if platform.fail_rate and random.random() < platform.fail_rate:
                    with platform.lock:
                        platform.requests_failed += 1
                    self._send(503, "application/json", '{"error": "try later"}')
                    return True
                return False

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = dict(parse_qsl(parts.query))
                path = parts.path
                if path == "/auth":
                    self._send(*platform._auth(query))
                elif path == "/jwks":
                    with platform.lock:
                        platform.jwks_requests += 1
                    self._send(
                        200, "application/json", json.dumps({"keys": platform.registration().get_jwks()})
                    )
                elif path == "/.well-known/openid-configuration":
                    self._send(*platform._openid_configuration(self.headers))
                else:
                    self._service("GET", b"")

            def _service(self, method: str, body: bytes) -> None:
                """AGS and NRPS; a score waits ``score_delays`` and fails with ``fail_rate``."""
                line = platform.SERVICE_PATH.fullmatch(urlsplit(self.path).path)
                if method == "POST" and line and line["sub"] == "/scores":
                    with platform.lock:
                        delay = platform.score_delays.pop(0) if platform.score_delays else 0.0
                    time.sleep(delay)  # a slow LMS: the tool's read timeout may end the request first
                    if self._flaky():
                        return
                answer = platform._service(method, self.path, self.headers, body)
                if answer is None:
                    self._send(404, "text/plain", "not found")
                else:
                    self._send(*answer)

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def do_PUT(self) -> None:
                self._service("PUT", self._body())

            def do_DELETE(self) -> None:
                self._service("DELETE", self._body())

            def do_POST(self) -> None:
                body = self._body()
                path = urlsplit(self.path).path
                form = (
                    dict(parse_qsl(body.decode())) if "form" in self.headers.get("Content-Type", "") else {}
                )
                if path == "/token":
                    with platform.lock:
                        platform.token_requests += 1
                    if self._flaky():
                        return
                    self._send(*platform._token(form))
                elif path == "/deep_link_return":
                    self._send(*platform._deep_link_return(form))
                elif path == "/register":
                    self._send(*platform._register(self.headers, body))
                else:
                    self._service("POST", body)

        return Handler

    # --- reading back, as the LMS's gradebook would show it --------------------------------

    def access_token(self, *scopes: str) -> str:
        """An access token for ``scopes``, as the token endpoint issues it to Talia."""
        return self.registration().encode_and_sign(
            {"sub": self.client_id, "iss": self.issuer, "scopes": " ".join(scopes)},
            self.private_key,
            expiration=60,
        )

    def results(self, item_id: str) -> list[dict[str, t.Any]]:
        """The line item's results, read over HTTP with a token the platform issued."""
        path, sep, query = item_id.partition("?")
        response = requests.get(
            path + "/results" + sep + query,
            headers={"Authorization": f"Bearer {self.access_token(RESULT_SCOPE)}"},
            timeout=5,
        )
        response.raise_for_status()
        return t.cast(list[dict[str, t.Any]], response.json())


FORM_FIELD = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
AUTO_FORM = re.compile(
    r'<form id="(?:launch|lti-deep-link-return)"[^>]*action="([^"]+)"[^>]*>(.*?)</form>', re.S
)


def form_of(page: str) -> tuple[str, dict[str, str]]:
    """The action and hidden fields of an auto-submitted form (what the browser's script posts)."""
    found = AUTO_FORM.search(page)
    assert found, page[:500]
    fields = {html.unescape(k): html.unescape(v) for k, v in FORM_FIELD.findall(found.group(2))}
    return html.unescape(found.group(1)), fields
