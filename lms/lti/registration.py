"""LTI Dynamic Registration 1.0: one URL an LMS admin pastes into the LMS.

The LMS opens ``/lti/register/<token>/?openid_configuration=…&registration_token=…``.
Talia reads the platform's OpenID configuration (§3.4: its issuer must be the
configuration URL's origin and path prefix), posts its own client registration to the
platform's ``registration_endpoint`` (§3.5) and stores the platform, its client id and
deployment. The token in the path comes from Talia's admin, so only someone an admin gave
the URL to can add a platform.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.core import signing
from django.db import transaction
from django.utils.translation import gettext as _
from lti_tool.models import LtiDeployment, LtiRegistration

from .errors import LaunchRefused
from .models import DynamicRegistration

SALT = "lms.lti.dynamic-registration"
TOKEN_MAX_AGE = 14 * 24 * 3600
TIMEOUT = (5, 20)
URL_MAX = 200  # LtiRegistration's URL columns
LTI_TOOL_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-tool-configuration"
LTI_PLATFORM_CONFIGURATION = "https://purl.imsglobal.org/spec/lti-platform-configuration"
SCOPES = [
    "https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
    "https://purl.imsglobal.org/spec/lti-ags/scope/result.readonly",
    "https://purl.imsglobal.org/spec/lti-ags/scope/score",
    "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly",
]


def invitation_token(*, by: Any) -> str:
    """A registration URL's token, valid for two weeks, naming the admin who made it."""
    return signing.dumps({"by": by.pk}, salt=SALT)


def invitation_check(token: str) -> None:
    try:
        signing.loads(token, salt=SALT, max_age=TOKEN_MAX_AGE)
    except signing.SignatureExpired:
        raise LaunchRefused(
            "registration_expired",
            _("This registration link has expired."),
            status=403,
            hint=_("Ask Talia's administrator for a new one."),
        ) from None
    except signing.BadSignature:
        raise LaunchRefused(
            "registration_forged", _("This is not a registration link made by Talia."), status=403
        ) from None


def _url_allowed(url: str) -> bool:
    parts = urlsplit(url or "")
    return parts.scheme == "https" or (parts.scheme == "http" and not settings.HTTPS)


def openid_configuration_fetch(url: str, registration_token: str = "") -> dict[str, Any]:
    """The platform's OpenID configuration (§3.4), read with the registration token when the
    LMS gave one: Canvas answers 401 to a request without it."""
    if not _url_allowed(url):
        raise LaunchRefused("registration_bad_url", _("The LMS's configuration address must use HTTPS."))
    headers = {"Accept": "application/json"}
    if registration_token:
        headers["Authorization"] = f"Bearer {registration_token}"
    try:
        response = requests.get(url, timeout=TIMEOUT, headers=headers)
    except requests.RequestException:
        raise LaunchRefused(
            "registration_unreachable", _("Talia could not read the LMS's configuration."), status=424
        ) from None
    if response.status_code in (401, 403):
        raise LaunchRefused(
            "registration_unauthorized",
            _("The LMS did not let Talia read its configuration (HTTP %(status)d).")
            % {"status": response.status_code},
            status=424,
            hint=_("Start the registration again from the LMS: its registration token may have expired."),
        )
    try:
        response.raise_for_status()
        config = response.json()
    except (requests.RequestException, ValueError):
        raise LaunchRefused(
            "registration_unreachable", _("Talia could not read the LMS's configuration."), status=424
        ) from None
    if not isinstance(config, dict):
        raise LaunchRefused("registration_invalid", _("The LMS's configuration is not valid."), status=424)
    issuer = config.get("issuer")
    if not isinstance(issuer, str) or not issuer or not url.startswith(issuer.rstrip("/")):
        raise LaunchRefused(
            "registration_issuer",
            _("The LMS's configuration names an issuer other than its own address."),
            status=424,
        )
    if len(issuer) > 255:
        raise LaunchRefused(
            "registration_invalid", _("The LMS's issuer is longer than 255 characters."), status=424
        )
    for field in ("authorization_endpoint", "token_endpoint", "jwks_uri", "registration_endpoint"):
        value = config.get(field)
        if not isinstance(value, str) or not _url_allowed(value) or len(value) > URL_MAX:
            raise LaunchRefused(
                "registration_invalid",
                _("The LMS's configuration lacks its %(field)s.") % {"field": field},
                status=424,
            )
    return config


def tool_configuration(*, base_url: str, urls: dict[str, str], config: dict[str, Any]) -> dict[str, Any]:
    """Talia's client registration document (Dynamic Registration §3.5.2)."""
    host = urlsplit(base_url).netloc.split(":")[0]
    listed = config.get("scopes_supported")
    if not isinstance(listed, list) or not listed:
        listed = SCOPES
    supported = {s for s in listed if isinstance(s, str)}
    return {
        "application_type": "web",
        "response_types": ["id_token"],
        "grant_types": ["implicit", "client_credentials"],
        "initiate_login_uri": urls["login"],
        "redirect_uris": [urls["launch"], urls["deep_link"]],
        "client_name": "Talia",
        "jwks_uri": urls["jwks"],
        "token_endpoint_auth_method": "private_key_jwt",
        "scope": " ".join(s for s in SCOPES if s in supported),
        LTI_TOOL_CONFIGURATION: {
            "domain": host,
            "target_link_uri": urls["launch"],
            "claims": ["iss", "sub", "name", "given_name", "family_name", "email"],
            "messages": [
                {"type": "LtiResourceLinkRequest", "target_link_uri": urls["launch"]},
                {
                    "type": "LtiDeepLinkingRequest",
                    "target_link_uri": urls["deep_link"],
                    "label": "Talia",
                    "placements": ["ContentArea"],
                    "supported_types": ["ltiResourceLink"],
                },
            ],
            "description": "Quizzes and classroom games with grades sent back to the LMS.",
        },
    }


@transaction.atomic
def registration_dynamic(
    *, openid_configuration_url: str, registration_token: str, base_url: str, urls: dict[str, str]
) -> LtiRegistration:
    """Register Talia with the platform and store what it answered (an active registration and deployment)."""
    config = openid_configuration_fetch(openid_configuration_url, registration_token)
    document = tool_configuration(base_url=base_url, urls=urls, config=config)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if registration_token:
        headers["Authorization"] = f"Bearer {registration_token}"
    try:
        response = requests.post(
            config["registration_endpoint"], json=document, headers=headers, timeout=TIMEOUT
        )
        response.raise_for_status()
        answer = response.json()
    except (requests.RequestException, ValueError):
        raise LaunchRefused(
            "registration_refused", _("The LMS did not accept Talia's registration."), status=424
        ) from None
    if not isinstance(answer, dict):
        raise LaunchRefused(
            "registration_refused",
            _("The LMS answered Talia's registration with something other than a JSON object."),
            status=424,
        )
    client_id = answer.get("client_id")
    if not isinstance(client_id, (str, int)) or not str(client_id) or len(str(client_id)) > 255:
        raise LaunchRefused("registration_refused", _("The LMS answered without a client id."), status=424)
    client_id = str(client_id)
    tool_config = answer.get(LTI_TOOL_CONFIGURATION)
    tool_config = tool_config if isinstance(tool_config, dict) else {}
    platform = config.get(LTI_PLATFORM_CONFIGURATION)
    platform = platform if isinstance(platform, dict) else {}
    issuer = str(config["issuer"])
    name = str(platform.get("product_family_code") or urlsplit(issuer).netloc)[:200]
    registration, _created = LtiRegistration.objects.update_or_create(
        issuer=issuer,
        client_id=client_id,
        defaults={
            "name": name,
            "auth_url": config["authorization_endpoint"],
            "token_url": config["token_endpoint"],
            "keyset_url": config["jwks_uri"],
            "audience": str(config.get("authorization_server") or "")[:255],
            "is_active": True,
        },
    )
    deployment_id = tool_config.get("deployment_id")
    deployment_id = str(deployment_id) if isinstance(deployment_id, (str, int)) else ""
    if deployment_id and len(deployment_id) <= 255:
        LtiDeployment.objects.update_or_create(
            registration=registration, deployment_id=deployment_id, defaults={"is_active": True}
        )
    DynamicRegistration.objects.update_or_create(
        registration=registration,
        defaults={
            "openid_configuration_url": openid_configuration_url,
            "product_family_code": str(platform.get("product_family_code") or "")[:100],
        },
    )
    return registration
