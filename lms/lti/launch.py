"""OIDC login initiation and id_token validation, closing the gaps the LTI libraries leave.

LTI 1.3 Core §5.1 (third-party initiated login) and 1EdTech Security Framework §5.1.3
(authentication response validation). PyLTI1p3 does the decoding and the message-type
checks; Talia adds what it leaves out:

- the state is bound to this browser (a cookie) *and* to the login that issued it, and
  the nonce must be the one that login issued; both are used once (no replays);
- ``aud`` must contain the registration's client id, ``azp`` must name it whenever present
  (and be present when there are several audiences), ``iss`` must be the registration's
  issuer, ``exp`` and ``iat`` are required, checked with a small leeway;
- the id_token's header needs a ``kid`` the platform publishes and the RS256 algorithm;
- the token names the deployment the login named (``lti_deployment_id``) and a
  ``target_link_uri`` on this host;
- every claim Talia reads has the shape LTI gives it, and ids fit their columns;
- every claim Talia uses afterwards comes from the verified token, never from the form.
Every refusal is a :class:`LaunchRefused` with a message a person can act on.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from typing import Any
from urllib.parse import urlencode, urlsplit

import jwt
import requests
from django.conf import settings
from django.core.cache import caches
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest, QueryDict, UnreadablePostError
from django.http.multipartparser import MultiPartParserError
from django.http.request import split_domain_port
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from jwt.algorithms import RSAAlgorithm
from lti_tool.models import LtiDeployment, LtiRegistration
from lti_tool.utils import DjangoToolConfig
from pylti1p3.contrib.django import DjangoMessageLaunch
from pylti1p3.contrib.django.launch_data_storage.cache import DjangoCacheDataStorage
from pylti1p3.deployment import Deployment
from pylti1p3.exception import LtiException
from pylti1p3.registration import Registration

from .errors import LaunchRefused

log = logging.getLogger(__name__)

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
DL_CLAIM = "https://purl.imsglobal.org/spec/lti-dl/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS_CLAIM = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"

STATE_TTL = 10 * 60  # seconds a login waits for its launch
LEEWAY = 60  # seconds of clock difference tolerated on exp, iat and nbf
JWKS_TTL = 5 * 60  # a platform's keys are fetched again after this, or on an unknown kid
JWKS_REFETCH_INTERVAL = 30  # seconds between two fetches of one platform's keys for unknown kids
HTTP_TIMEOUT = 10
ID_MAX = 255  # the columns of sub, deployment id, course (context) id and resource link id
URL_MAX = 200  # LtiContext's memberships and line items URLs
LINEITEM_MAX = 1000  # AssignmentLink.lineitem_url
# The largest login or launch form post (and so id_token) Talia reads, checked before the
# form is parsed or the token decoded: real launches are a few kilobytes (docs/lms.md).
LAUNCH_MAX_BYTES = 128 * 1024


def cache() -> Any:
    return caches[settings.LTI_CACHE]


def state_cookie_name(state: str) -> str:
    """One cookie per login, so two launches in two tabs do not overwrite each other."""
    return "lti-state-" + hashlib.sha256(state.encode()).hexdigest()[:16]


def _state_key(state: str) -> str:
    return "lti:state:" + hashlib.sha256(state.encode()).hexdigest()


def _nonce_used_key(nonce: str) -> str:
    return "lti:nonce-used:" + hashlib.sha256(nonce.encode()).hexdigest()


# --- registrations and deployments ---------------------------------------------------------------


def registration_find(*, issuer: str, client_id: str | None) -> LtiRegistration:
    """The active registration for ``issuer`` and ``client_id``.

    Canvas uses one issuer for every hosted Canvas, so the client id decides; without a
    client id (some platforms omit it at login) the issuer must name exactly one platform.
    """
    registrations = LtiRegistration.objects.active().filter(issuer=issuer)
    if client_id:
        registrations = registrations.filter(client_id=client_id)
    found = list(registrations[:2])
    if len(found) == 1:
        return found[0]
    if not found:
        raise LaunchRefused(
            "unknown_platform",
            _("Talia does not know this LMS (issuer %(issuer)s, client id %(client_id)s).")
            % {"issuer": issuer or "—", "client_id": client_id or "—"},
            status=403,
            hint=_("An administrator of Talia registers the LMS first (docs/lms.md)."),
        )
    raise LaunchRefused(
        "ambiguous_platform",
        _("Several LMS registrations share the issuer %(issuer)s; the LMS must send its client id.")
        % {"issuer": issuer},
        status=400,
    )


def launch_registration(registration: LtiRegistration) -> Registration:
    """PyLTI1p3's view of a registration for checking a launch.

    ``LtiRegistration.to_registration`` also loads Talia's signing key (a query) for the
    messages Talia would sign through PyLTI1p3; a launch only verifies the platform's
    signature, and Talia signs its own messages (``keys.signing_material``).
    """
    reg = Registration()
    reg.set_auth_login_url(registration.auth_url)
    reg.set_auth_token_url(registration.token_url)
    reg.set_client_id(registration.client_id)
    reg.set_key_set_url(registration.keyset_url)
    reg.set_issuer(registration.issuer)
    if registration.audience:
        reg.set_auth_audience(registration.audience)
    return reg


class ToolConfig(DjangoToolConfig):
    """django-lti's configuration, looked up by issuer and client id (Canvas's shared issuer).

    ``login_registration`` is the registration of the login the launch answers (already
    read, and checked against the token's issuer and audience): it is used as is rather
    than looked up again.
    """

    def __init__(self, login_registration: LtiRegistration | None = None) -> None:
        super().__init__()
        self.login_registration = login_registration

    def find_registration_by_params(self, iss: str, client_id: str | None, *args: Any, **kwargs: Any) -> Any:
        known = self.login_registration
        if known is not None and known.is_active and known.issuer == iss and known.client_id == client_id:
            self.registration = known
            return launch_registration(known)
        try:
            self.registration = registration_find(issuer=iss, client_id=client_id)
        except LaunchRefused:
            return None
        return launch_registration(self.registration)

    def find_deployment_by_params(
        self, iss: str, deployment_id: str, client_id: str | None, *args: Any, **kwargs: Any
    ) -> Any:
        """Any deployment of the registration; an unknown one is recorded as inactive.

        The admin sees it in the list of deployments and activates it; until then the
        launch view refuses it.
        """
        assert self.registration is not None
        self.deployment, _created = LtiDeployment.objects.get_or_create(
            registration=self.registration, deployment_id=deployment_id
        )
        return Deployment().set_deployment_id(deployment_id)


def launch_form(request: HttpRequest) -> QueryDict:
    """The parameters of a login (query or form) or launch (form), read only when small enough.

    A form post larger than ``LAUNCH_MAX_BYTES`` is refused before it is read: Django would
    parse (and PyLTI1p3 decode) up to ``DATA_UPLOAD_MAX_MEMORY_SIZE``, sized for imports;
    no LMS sends a launch a hundredth of that. A form Django cannot parse (a broken
    multipart body, too many fields) is a refusal like any other, with Talia's page.
    """
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > LAUNCH_MAX_BYTES:
        raise _too_large()
    try:
        return request.GET if request.method == "GET" else request.POST
    except (SuspiciousOperation, MultiPartParserError, UnreadablePostError) as exc:
        raise LaunchRefused(
            "malformed_form",
            _("The LMS sent a form Talia cannot read."),
            hint=_("Open the activity again from the LMS."),
            detail=_exception_line(exc),
        ) from exc


def _too_large() -> LaunchRefused:
    return LaunchRefused(
        "too_large",
        _("The LMS sent a launch larger than any LMS sends (%(limit)d KiB at most).")
        % {"limit": LAUNCH_MAX_BYTES // 1024},
        status=413,
        hint=_(
            "Open the activity again from the LMS; if this page comes back, "
            "its administrator checks the tool's custom parameters."
        ),
    )


# --- login initiation ----------------------------------------------------------------------------


def login_start(
    *, request: HttpRequest, params: dict[str, str], limit_bucket: str | None = None
) -> tuple[str, str]:
    """Check a third-party login initiation; return the platform's auth URL and the state.

    The state's record (nonce, issuer, client id, the login's own parameters for a
    re-launch in a new window, and ``limit_bucket``: where the login was counted,
    ``config.limits``) waits in the cache; the caller sets the state cookie.
    """
    issuer = params.get("iss", "")
    login_hint = params.get("login_hint", "")
    target = params.get("target_link_uri", "")
    client_id = params.get("client_id") or None
    if not issuer or not login_hint or not target:
        raise LaunchRefused(
            "login_incomplete",
            _("The LMS started a login without its issuer, user hint or target link."),
            hint=_("Open the activity again from the LMS."),
        )
    registration = registration_find(issuer=issuer, client_id=client_id)
    if not on_this_host(target, request) or not urlsplit(target).path.startswith("/lti/"):
        raise LaunchRefused(
            "foreign_target",
            _("The LMS asked Talia to log in for an address that is not Talia's launch page."),
            hint=_("Check the launch URL in the LMS's tool settings (docs/lms.md)."),
        )
    state = secrets.token_urlsafe(32)
    nonce = secrets.token_urlsafe(32)
    login_params = {
        k: params[k]
        for k in (
            "iss",
            "login_hint",
            "target_link_uri",
            "lti_message_hint",
            "client_id",
            "lti_deployment_id",
        )
        if params.get(k)
    }
    cache().set(
        _state_key(state),
        {
            "nonce": nonce,
            "registration": registration.pk,
            "params": login_params,
            "limit_bucket": limit_bucket,
        },
        STATE_TTL,
    )
    query = {
        "scope": "openid",
        "response_type": "id_token",
        "response_mode": "form_post",
        "prompt": "none",
        "client_id": registration.client_id,
        "redirect_uri": target,
        "login_hint": login_hint,
        "state": state,
        "nonce": nonce,
    }
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    separator = "&" if "?" in registration.auth_url else "?"
    return registration.auth_url + separator + urlencode(query), state


def state_record(state: str) -> dict[str, Any] | None:
    """The login that issued ``state``, if it has not expired or been used."""
    if not state:
        return None
    return cache().get(_state_key(state))


# --- the launch ----------------------------------------------------------------------------------

_public_keys: dict[str, Any] = {}
PUBLIC_KEYS_MAX = 64  # parsed platform keys kept per process


def public_key_parsed(jwk: dict[str, Any]) -> Any:
    """``jwk`` as a key object for PyJWT, parsed once per process (keyed by the whole JWK)."""
    entry = json.dumps(jwk, sort_keys=True)
    found = _public_keys.get(entry)
    if found is None:
        found = RSAAlgorithm.from_jwk(entry)
        if len(_public_keys) >= PUBLIC_KEYS_MAX:
            _public_keys.clear()
        _public_keys[entry] = found
    return found


class StateBoundStorage(DjangoCacheDataStorage):
    """PyLTI1p3's cache storage for one launch, keyed by Talia's login state.

    Over HTTPS PyLTI1p3's own storage ties its cache keys to a ``lti1p3-session-id``
    cookie that only PyLTI1p3's OIDC login sets; Talia's login sets its state cookie
    instead, so that storage would refuse every secure launch before any check ran. Here
    the keys are tied to the login's state, which :func:`launch_validate` has already
    matched against this browser's state cookie: the same binding, one cookie, and the
    same path over HTTP and HTTPS.
    """

    def __init__(self, *, state: str) -> None:
        super().__init__(cache_name=settings.LTI_CACHE)
        self.set_session_id(hashlib.sha256(state.encode()).hexdigest())

    def get_session_cookie_name(self) -> str | None:
        return None  # no cookie of PyLTI1p3's own to look for: the session id is set above


class MessageLaunch(DjangoMessageLaunch):
    """PyLTI1p3's launch with Talia's stricter checks (module docstring)."""

    def __init__(self, request: HttpRequest, *, record: dict[str, Any], state: str) -> None:
        self.login_registration = LtiRegistration.objects.filter(pk=record["registration"]).first()
        self.tool_config = ToolConfig(self.login_registration)
        super().__init__(request, self.tool_config, launch_data_storage=StateBoundStorage(state=state))
        self._record = record
        self._http_request = request
        self._verified: dict[str, Any] = {}

    # PyLTI1p3 takes aud[0] as the client id; with several audiences azp names it.
    def get_client_id(self) -> str:
        body = self._jwt.get("body", {})
        aud = body.get("aud")
        if isinstance(aud, list):
            azp = body.get("azp")
            return str(azp) if azp in aud else str(aud[0] if aud else "")
        return str(aud or "")

    def validate(self) -> MessageLaunch:
        if self._restored:
            raise LaunchRefused("restored", _("This launch was already used."))
        self._validated = True
        try:
            self.validate_jwt_format()
            self._check_format()
            self._check_header()
            self._check_login_binding()
            self.validate_registration()
            self.validate_jwt_signature()
            claims_check(self._jwt["body"])
            self._check_misdirection()
            self.validate_nonce()
            self.validate_deployment()
            self.validate_message()
            self._check_message_details()
        except LaunchRefused:
            self._validated = False
            raise
        except LtiException as exc:
            self._validated = False
            raise _refusal_from_library(str(exc)) from exc
        except (TypeError, ValueError, AttributeError, KeyError, jwt.PyJWTError) as exc:
            # A shape no check above foresaw: still a refusal, never a 500; what went wrong is logged.
            self._validated = False
            raise LaunchRefused(
                "invalid_launch", _("The launch is not valid."), detail=_exception_line(exc)
            ) from exc
        return self

    def _check_format(self) -> None:
        """The header and payload decode to JSON objects (a list or a string is no JWT)."""
        if not isinstance(self._jwt.get("header"), dict) or not isinstance(self._jwt.get("body"), dict):
            raise LaunchRefused(
                "malformed_token",
                _("The launch's id_token is not valid: its header and payload must be JSON objects."),
            )

    def _check_header(self) -> None:
        header = self._jwt.get("header", {})
        if not header.get("kid"):
            raise LaunchRefused(
                "no_kid", _("The LMS signed the launch without naming its key (no kid)."), status=401
            )
        if header.get("alg") != "RS256":
            raise LaunchRefused(
                "bad_alg", _("The launch is not signed with RS256, the algorithm LTI requires."), status=401
            )

    def _check_login_binding(self) -> None:
        """The token answers the login Talia started: same issuer and client."""
        body = self._jwt.get("body", {})
        registration = self.login_registration
        if registration is None or body.get("iss") != registration.issuer:
            raise LaunchRefused(
                "wrong_issuer",
                _("The launch comes from another LMS than the login that started it."),
                status=401,
            )
        if self.get_client_id() != registration.client_id:
            raise LaunchRefused(
                "wrong_audience", _("The launch is addressed to another tool (aud or azp)."), status=401
            )

    def _check_misdirection(self) -> None:
        """The launch is for the deployment the login named, and for this tool's address."""
        body = self._jwt["body"]
        login_deployment = self._record.get("params", {}).get("lti_deployment_id")
        deployment_id = body.get(CLAIM + "deployment_id")
        if login_deployment and deployment_id and deployment_id != login_deployment:
            raise LaunchRefused(
                "wrong_deployment",
                _("The launch names another deployment (%(token)s) than its login (%(login)s).")
                % {"token": deployment_id, "login": login_deployment},
                status=401,
                hint=_("Open the activity again from the LMS."),
            )
        target = body.get(CLAIM + "target_link_uri")
        if target and not on_this_host(target, self._http_request):
            raise LaunchRefused(
                "foreign_target",
                _("The launch is meant for another address (target_link_uri %(target)s), not Talia.")
                % {"target": target[:200]},
                hint=_("Check the launch URL in the LMS's tool settings (docs/lms.md)."),
            )

    def fetch_public_key(self, key_set_url: str) -> Any:
        """The platform's JWKS from the LTI cache (``JWKS_TTL``); fetched again when the token
        names a kid not in it, at most once per ``JWKS_REFETCH_INTERVAL`` and platform.

        A platform that rotated its key is seen at its first launch with the new kid; a
        stream of made-up kids costs the platform one request per interval, not one each.
        """
        digest = hashlib.sha256(key_set_url.encode()).hexdigest()
        key = "lti:jwks:" + digest
        kid = self._jwt.get("header", {}).get("kid")
        cached = cache().get(key)
        if cached and any(isinstance(k, dict) and k.get("kid") == kid for k in cached.get("keys", [])):
            return cached
        if cached and not cache().add("lti:jwks-refetched:" + digest, True, JWKS_REFETCH_INTERVAL):
            return cached  # refetched a moment ago: the kid is unknown (refused by the caller)
        try:
            response = requests.get(key_set_url, timeout=HTTP_TIMEOUT)
            response.raise_for_status()
            keys = response.json()
        except (requests.RequestException, ValueError) as exc:
            raise LaunchRefused(
                "jwks_unreachable",
                _("Talia could not read the LMS's public keys to check the launch."),
                status=424,
                hint=_("Check the LMS's keyset URL in Talia's admin."),
            ) from exc
        if not isinstance(keys, dict) or not isinstance(keys.get("keys"), list):
            raise LaunchRefused("jwks_invalid", _("The LMS's public keys are not a JWK set."), status=424)
        cache().set(key, keys, JWKS_TTL)
        return keys

    def get_public_key(self) -> tuple[Any, str]:
        """The platform's public key named by the token's kid, parsed once per process.

        PyLTI1p3 turns the JWK into PEM (which PyJWT parses again) at every launch; the
        parsed key is kept, keyed by the JWK itself, so a rotated or changed key is a new
        entry and which keys count is still decided by the (cached) JWKS.
        """
        assert self._registration is not None
        jwks = self._registration.get_key_set()
        if not jwks:
            url = self._registration.get_key_set_url()
            if not url or not url.startswith(("http://", "https://")):
                raise LtiException("Invalid URL: " + str(url))
            jwks = self.fetch_public_key(url)
            self._registration.set_key_set(jwks)
        header = self._jwt.get("header", {})
        kid, alg = header.get("kid"), header.get("alg")
        for jwk in jwks.get("keys", []):
            if isinstance(jwk, dict) and jwk.get("kid") == kid and jwk.get("alg", "RS256") == alg:
                return public_key_parsed(jwk), alg
        raise LtiException("Unable to find public key")

    def validate_jwt_signature(self) -> MessageLaunch:
        assert self._registration is not None
        try:
            public_key, _alg = self.get_public_key()
        except LtiException as exc:
            raise LaunchRefused(
                "unknown_kid", _("The launch is signed with a key the LMS does not publish."), status=401
            ) from exc
        except (jwt.PyJWTError, ValueError, TypeError, KeyError) as exc:
            raise LaunchRefused(
                "jwks_invalid", _("The LMS's key for this launch is not a valid RSA key."), status=424
            ) from exc
        client_id = self._registration.get_client_id()
        try:
            body = jwt.decode(
                self._get_id_token(),
                public_key,
                algorithms=["RS256"],
                audience=client_id,
                issuer=self._registration.get_issuer(),
                leeway=LEEWAY,
                options={"require": ["exp", "iat", "iss", "aud", "nonce"]},
            )
        except jwt.ExpiredSignatureError as exc:
            raise LaunchRefused(
                "expired", _("The launch has expired."), status=401, hint=_("Open it again from the LMS.")
            ) from exc
        except jwt.ImmatureSignatureError as exc:
            raise LaunchRefused(
                "not_yet_valid", _("The launch is dated in the future (iat or nbf)."), status=401
            ) from exc
        except jwt.InvalidAudienceError as exc:
            raise LaunchRefused(
                "wrong_audience", _("The launch is addressed to another tool (aud)."), status=401
            ) from exc
        except jwt.InvalidIssuerError as exc:
            raise LaunchRefused(
                "wrong_issuer", _("The launch's issuer is not the LMS's."), status=401
            ) from exc
        except jwt.exceptions.InvalidSubjectError as exc:
            raise _malformed("sub", _("text of at most %(limit)d characters") % {"limit": ID_MAX}) from exc
        except jwt.InvalidIssuedAtError as exc:
            raise _malformed("iat", _("a number")) from exc
        except jwt.MissingRequiredClaimError as exc:
            raise LaunchRefused(
                "missing_claim", _("The launch lacks the claim %(claim)s.") % {"claim": exc.claim}, status=401
            ) from exc
        except jwt.InvalidTokenError as exc:
            raise LaunchRefused(
                "bad_signature", _("The launch's signature is not valid."), status=401
            ) from exc
        aud = body["aud"]
        azp = body.get("azp")
        if azp is not None and azp != client_id:
            raise LaunchRefused("wrong_azp", _("The launch is meant for another tool (azp)."), status=401)
        if isinstance(aud, list) and len(aud) > 1 and azp is None:
            raise LaunchRefused(
                "missing_azp",
                _("The launch names several audiences but no authorized party (azp)."),
                status=401,
            )
        # From here on only the verified claims are used.
        self._jwt["body"] = body
        self._verified = body
        return self

    def validate_nonce(self) -> MessageLaunch:
        """The nonce is the one this login issued, and it is spent now."""
        nonce = self._jwt.get("body", {}).get("nonce")
        if not nonce or not secrets.compare_digest(str(nonce), str(self._record["nonce"])):
            raise LaunchRefused(
                "bad_nonce", _("The launch does not answer Talia's login (nonce)."), status=401
            )
        if not cache().add(_nonce_used_key(str(nonce)), True, STATE_TTL * 2):
            raise LaunchRefused(
                "replayed",
                _("This launch was already used."),
                status=401,
                hint=_("Open it again from the LMS."),
            )
        return self

    def _check_message_details(self) -> None:
        body = self._jwt["body"]
        message_type = body.get(CLAIM + "message_type")
        if message_type == "LtiDeepLinkingRequest":
            settings_claim = body.get(DL_CLAIM + "deep_linking_settings") or {}
            if not settings_claim.get("deep_link_return_url"):
                raise LaunchRefused(
                    "dl_no_return", _("The LMS did not say where to return the chosen activity.")
                )
        roles = body.get(CLAIM + "roles")
        if not isinstance(roles, list):
            raise LaunchRefused("missing_roles", _("The launch does not say the user's roles."))

    # --- what the views read -----------------------------------------------------------------

    @property
    def claims(self) -> dict[str, Any]:
        assert self._verified, "validate() first"
        return self._verified

    @property
    def registration(self) -> LtiRegistration:
        assert self.tool_config.registration is not None
        return self.tool_config.registration

    @property
    def deployment(self) -> LtiDeployment:
        assert self.tool_config.deployment is not None
        return self.tool_config.deployment

    @property
    def limit_bucket(self) -> str | None:
        """Where the login this launch answers was counted (``config.limits``), if anywhere."""
        bucket = self._record.get("limit_bucket")
        return bucket if isinstance(bucket, str) else None


def on_this_host(url: str, request: HttpRequest) -> bool:
    """``url`` names the host this request came to (case and port aside: behind a proxy that
    ends TLS, the LMS's https://host/ reaches Django as http on another port)."""
    host, _port = split_domain_port(request.get_host())
    try:
        hostname = urlsplit(url).hostname
    except ValueError:  # "http://[not-an-address/": no host at all
        return False
    return (hostname or "").lower() == host.lower()


def _malformed(claim: str, expected: str) -> LaunchRefused:
    return LaunchRefused(
        "malformed_claim",
        _("The launch's claim %(claim)s is not %(expected)s.") % {"claim": claim, "expected": expected},
        hint=_("The LMS sent a launch LTI 1.3 does not allow; its administrator can report it to its maker."),
    )


def _object(container: dict[str, Any], key: str, claim: str) -> dict[str, Any]:
    value = container.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise _malformed(claim, _("a JSON object"))
    return value


def _text(container: dict[str, Any], key: str, claim: str, limit: int | None = None) -> None:
    value = container.get(key)
    if value is None:
        return
    if limit is None and not isinstance(value, str):
        raise _malformed(claim, _("text"))
    if limit is not None and (not isinstance(value, str) or len(value) > limit):
        raise _malformed(claim, _("text of at most %(limit)d characters") % {"limit": limit})


def _url(container: dict[str, Any], key: str, claim: str, limit: int | None = None) -> None:
    _text(container, key, claim, limit)
    value = container.get(key)
    if value and urlsplit(value).scheme not in ("http", "https"):
        raise _malformed(claim, _("an http or https URL"))


def _strings(container: dict[str, Any], key: str, claim: str) -> None:
    value = container.get(key)
    if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
        raise _malformed(claim, _("a list of strings"))


def claims_check(body: dict[str, Any]) -> None:
    """Every claim Talia reads has its LTI shape (LTI 1.3 Core §5.3–5.4, AGS §3.1, NRPS §3.6,
    Deep Linking §4.4), and the ids fit Talia's columns: a signed launch with a list for its
    course or a 5000-character subject is refused here, not by the database.

    A missing claim is left to the checks after this one, which name what is missing.
    """
    _text(body, "sub", "sub", ID_MAX)
    _text(body, CLAIM + "deployment_id", "deployment_id", ID_MAX)
    _text(body, CLAIM + "message_type", "message_type")
    _text(body, CLAIM + "target_link_uri", "target_link_uri")
    _strings(body, CLAIM + "roles", "roles")
    for name in ("given_name", "family_name", "name", "email"):
        _text(body, name, name)
    context = _object(body, CLAIM + "context", "context")
    _text(context, "id", "context id", ID_MAX)
    resource_link = _object(body, CLAIM + "resource_link", "resource_link")
    _text(resource_link, "id", "resource_link id", ID_MAX)
    _object(body, CLAIM + "custom", "custom")
    ags = _object(body, AGS_CLAIM, "AGS endpoint")
    _url(ags, "lineitems", "AGS endpoint lineitems", URL_MAX)
    _url(ags, "lineitem", "AGS endpoint lineitem", LINEITEM_MAX)
    _strings(ags, "scope", "AGS endpoint scope")
    nrps = _object(body, NRPS_CLAIM, "NRPS namesroleservice")
    _url(nrps, "context_memberships_url", "NRPS context_memberships_url", URL_MAX)
    deep_linking = _object(body, DL_CLAIM + "deep_linking_settings", "deep_linking_settings")
    _url(deep_linking, "deep_link_return_url", "deep_link_return_url")
    _strings(deep_linking, "accept_types", "deep_linking_settings accept_types")
    _strings(
        deep_linking,
        "accept_presentation_document_targets",
        "deep_linking_settings accept_presentation_document_targets",
    )


_LIBRARY_REFUSALS = {
    "Invalid message type": (
        "missing_message_type",
        gettext_lazy("The launch does not say what kind of message it is."),
    ),
    "Unrecognized message type": (
        "bad_message_type",
        gettext_lazy("Talia does not know this kind of LTI message."),
    ),
    "Incorrect version, expected 1.3.0": (
        "bad_version",
        gettext_lazy("The launch is not LTI version 1.3.0."),
    ),
    "Must have a user (sub)": ("missing_sub", gettext_lazy("The launch does not say who the user is (sub).")),
    "Missing Roles Claim": ("missing_roles", gettext_lazy("The launch does not say the user's roles.")),
    "Missing Resource Link Id": (
        "missing_resource_link",
        gettext_lazy("The launch does not name its activity (resource link id)."),
    ),
    "deployment_id is not set in jwt body": (
        "missing_deployment",
        gettext_lazy("The launch does not name its deployment."),
    ),
    "Registration not found.": ("unknown_platform", gettext_lazy("Talia does not know this LMS.")),
    "Client id not registered for this issuer": (
        "wrong_audience",
        gettext_lazy("The launch is addressed to another tool."),
    ),
    "Missing Deep Linking Settings": (
        "dl_no_settings",
        gettext_lazy("The deep-linking request has no settings."),
    ),
    "Must support resource link placement types": (
        "dl_no_resource_link",
        gettext_lazy("The LMS does not accept LTI resource links from this request."),
    ),
    "Must support a presentation type": (
        "dl_no_target",
        gettext_lazy("The LMS accepts no way to show the activity."),
    ),
}


def _refusal_from_library(message: str) -> LaunchRefused:
    code, text = _LIBRARY_REFUSALS.get(message, ("invalid_launch", gettext_lazy("The launch is not valid.")))
    return LaunchRefused(
        code,
        str(text),
        status=401 if code in ("unknown_platform", "wrong_audience") else 400,
        detail="LtiException: " + message[:200],
    )


def _exception_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def launch_validate(request: HttpRequest) -> MessageLaunch:
    """Validate the platform's form post (``id_token``, ``state``) against the login and this browser.

    Raises :class:`CookiesBlocked` when the browser did not send the state cookie but the
    state is known: the launch can succeed in a new window.
    """
    form = launch_form(request)
    state = form.get("state", "")
    if form.get("error"):
        raise LaunchRefused(
            "platform_error",
            _("The LMS refused the login: %(error)s")
            % {"error": form.get("error_description") or form["error"]},
        )
    if not form.get("id_token"):
        raise LaunchRefused("missing_id_token", _("The LMS sent no id_token."))
    if len(form["id_token"]) > LAUNCH_MAX_BYTES:  # a body sent without its length
        raise _too_large()
    record = state_record(state)
    if record is None:
        raise LaunchRefused(
            "unknown_state",
            _("This launch has expired, was already used, or was not started by Talia."),
            status=401,
            hint=_("Open the activity again from the LMS."),
        )
    cookie = request.COOKIES.get(state_cookie_name(state))
    if cookie is None:
        raise CookiesBlocked(record)
    if not secrets.compare_digest(cookie, state):
        raise LaunchRefused(
            "state_mismatch", _("The launch does not belong to this browser's login."), status=401
        )
    try:
        launch = MessageLaunch(request, record=record, state=state)
    except LtiException as exc:
        raise _refusal_from_library(str(exc)) from exc
    launch.validate()
    cache().delete(_state_key(state))
    return launch


class CookiesBlocked(LaunchRefused):
    """The browser did not keep Talia's cookie inside the LMS's frame."""

    def __init__(self, record: dict[str, Any]) -> None:
        super().__init__(
            "cookies_blocked",
            _("Your browser blocks Talia's cookies inside the LMS page."),
            # A refusal like any other (the launch did not happen); the page offers the way on.
            status=403,
        )
        self.login_params = record["params"]
