"""A real LTI 1.3 platform for the tests and the bench: ``lti1p3platform`` served over HTTP on 127.0.0.1.

The package builds and signs the launches (OIDC auth response, id_token, deep-linking
claim), issues access tokens (client-credentials with Talia's signed assertion, checked
against Talia's JWKS) and validates deep-linking responses and bearer tokens. What it
leaves to its web adapters is written here in a few lines: the HTTP routes, the launch
form (its bundled Django/FastAPI adapters import ``pkg_resources``), and the storage of
line items, scores and course members that its AGS and NRPS claims point at.

Tests drive it like a browser would: ``Platform.launch(...)`` registers what the next
login should launch and returns the login-initiation URL the LMS would open.
"""

from __future__ import annotations

import html
import json
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
from lti1p3platform.exceptions import LtiException
from lti1p3platform.ltiplatform import LTI1P3PlatformConfAbstract
from lti1p3platform.message_launch import LTIAdvantageMessageLaunchAbstract
from lti1p3platform.registration import Registration
from lti1p3platform.request import Request, TRequest

SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
RESULT_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly"
NRPS_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
INSTRUCTOR = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"


def rsa_pem_pair() -> tuple[str, str]:
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
        self.members: dict[str, list[Person]] = {}
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
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

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

    def lineitem_add(self, *, label: str, score_maximum: float, resource_link_id: str | None) -> LineItem:
        item = LineItem(
            id=f"{self.url}/lineitems/{len(self.lineitems) + 1}",
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
        extra: dict[str, t.Any] = {"given_name": person.given_name, "family_name": person.family_name}
        if pending.deep_link:
            message.set_dl(f"{self.url}/deep_link_return", title="Add", accept_types={"ltiResourceLink"})
            message.set_ags(lineitems_url=f"{self.url}/lineitems")
        else:
            assert pending.resource_link_id
            message.set_resource_link_claim(pending.resource_link_id, title="Activity")
            lineitem = pending.lineitem_id
            if lineitem is None:
                for item in self.lineitems.values():
                    if item.resource_link_id == pending.resource_link_id:
                        lineitem = item.id
            message.set_ags(lineitems_url=f"{self.url}/lineitems", lineitem_url=lineitem)
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

    def _bearer_ok(self, headers: t.Mapping[str, str], scope: str) -> bool:
        auth = headers.get("Authorization", "")
        if not auth.startswith("Bearer "):
            return False
        conf = self.conf()
        conf.get_registration()
        try:
            return conf.validate_token(auth[7:], allowed_scopes=[scope])
        except Exception:  # noqa: BLE001
            return False

    def _score(self, item_id: str, headers: t.Mapping[str, str], body: bytes) -> tuple[int, str, str]:
        if not self._bearer_ok(headers, SCORE_SCOPE):
            return 401, "application/json", '{"error": "invalid token"}'
        if headers.get("Content-Type", "").split(";")[0] != "application/vnd.ims.lis.v1.score+json":
            return 415, "application/json", '{"error": "score media type"}'
        item = self.lineitems.get(item_id)
        if item is None:
            return 404, "application/json", '{"error": "no such line item"}'
        score = json.loads(body)
        # Moodle's requirements: all of these, an ISO 8601 timestamp, a known user.
        for name in (
            "userId",
            "scoreGiven",
            "scoreMaximum",
            "timestamp",
            "activityProgress",
            "gradingProgress",
        ):
            if name not in score:
                return 400, "application/json", json.dumps({"error": f"missing {name}"})
        with self.lock:
            previous = item.scores.get(score["userId"])
            if previous and previous["timestamp"] > score["timestamp"]:
                return 409, "application/json", '{"error": "older timestamp"}'
            item.scores[score["userId"]] = score
            self.scores_posted += 1
        return 200, "application/json", "{}"

    def _results(self, item_id: str, headers: t.Mapping[str, str]) -> tuple[int, str, str]:
        if not self._bearer_ok(headers, RESULT_SCOPE):
            return 401, "application/json", '{"error": "invalid token"}'
        item = self.lineitems.get(item_id)
        if item is None:
            return 404, "application/json", "[]"
        results = [
            {
                "id": f"{item_id}/results/{user}",
                "scoreOf": item_id,
                "userId": user,
                "resultScore": score["scoreGiven"],
                "resultMaximum": score["scoreMaximum"],
                "timestamp": score["timestamp"],
            }
            for user, score in sorted(item.scores.items())
        ]
        return 200, "application/vnd.ims.lis.v2.resultcontainer+json", json.dumps(results)

    def _memberships(self, context_id: str, headers: t.Mapping[str, str]) -> tuple[int, str, str]:
        if not self._bearer_ok(headers, NRPS_SCOPE):
            return 401, "application/json", '{"error": "invalid token"}'
        members = [
            {
                "user_id": p.sub,
                "name": p.name,
                "given_name": p.given_name,
                "family_name": p.family_name,
                "email": p.email,
                "roles": p.roles,
                "status": p.status,
            }
            for p in self.members.get(context_id, [])
        ]
        body = {
            "id": f"{self.url}/memberships/{context_id}",
            "context": {"id": context_id},
            "members": members,
        }
        return 200, "application/vnd.ims.lti-nrps.v2.membershipcontainer+json", json.dumps(body)

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

            def _send(self, status: int, content_type: str, body: str) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
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
                elif m := re.fullmatch(r"/memberships/(.+)", path):
                    self._send(*platform._memberships(m.group(1), self.headers))
                elif m := re.fullmatch(r"(/lineitems/\d+)/results", path):
                    self._send(*platform._results(platform.url + m.group(1), self.headers))
                else:
                    self._send(404, "text/plain", "not found")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
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
                elif m := re.fullmatch(r"(/lineitems/\d+)/scores", path):
                    with platform.lock:
                        delay = platform.score_delays.pop(0) if platform.score_delays else 0.0
                    time.sleep(delay)  # a slow LMS: the tool's read timeout may end the request first
                    if self._flaky():
                        return
                    self._send(*platform._score(platform.url + m.group(1), self.headers, body))
                elif path == "/deep_link_return":
                    self._send(*platform._deep_link_return(form))
                elif path == "/register":
                    self._send(*platform._register(self.headers, body))
                else:
                    self._send(404, "text/plain", "not found")

        return Handler

    # --- reading back, as the LMS's gradebook would show it --------------------------------

    def results(self, item_id: str) -> list[dict[str, t.Any]]:
        """The line item's results, read over HTTP with a token the platform issued."""
        conf = self.conf()
        conf.get_registration()
        token = conf.get_registration().encode_and_sign(
            {"sub": self.client_id, "iss": self.issuer, "scopes": RESULT_SCOPE},
            self.private_key,
            expiration=60,
        )
        response = requests.get(item_id + "/results", headers={"Authorization": f"Bearer {token}"}, timeout=5)
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
