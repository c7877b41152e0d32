"""Every bad launch of the 1EdTech LTI 1.3 tool certification, and other forged, replayed,
expired or misdirected launches, is refused with a 4xx page a person can read; nothing is written."""

from __future__ import annotations

import base64
import json
import time
from urllib.parse import urlsplit

import pytest
from lti_tool.models import LtiDeployment, LtiUser

from lms.lti.launch import LAUNCH_MAX_BYTES, state_cookie_name
from lms.models import SchoolClass, User
from tests.lms.lti.conftest import student_person, teacher_person
from tests.lms.lti.platform import PendingLaunch, rsa_pem_pair

pytestmark = pytest.mark.django_db

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"


def _pending(tamper=None, **kwargs):
    return PendingLaunch(teacher_person(), "c1", "History", resource_link_id="rl-1", tamper=tamper, **kwargs)


def assert_refused(response, status, words):
    assert response.status_code == status, (response.status_code, response.content[:800])
    text = response.content.decode()
    assert "Talia could not open this" in text
    assert words in text, text
    assert not LtiUser.objects.exists() and not SchoolClass.objects.exists()
    assert not User.objects.filter(username__startswith="lti-").exists()


def _set(name, value):
    def tamper(payload, headers):
        payload[name] = value

    return tamper


def _drop(name):
    def tamper(payload, headers):
        payload.pop(name, None)

    return tamper


def _header(name, value):
    def tamper(payload, headers):
        headers[name] = value

    return tamper


CASES = {
    "no_kid": (_header("kid", None), 401, "without naming its key"),
    "unknown_kid": (_header("kid", "no-such-key"), 401, "key the LMS does not publish"),
    "wrong_lti_version": (_set(CLAIM + "version", "1.1.0"), 400, "not LTI version 1.3.0"),
    "missing_lti_version": (_drop(CLAIM + "version"), 400, "not LTI version 1.3.0"),
    "invalid_message_type": (
        _set(CLAIM + "message_type", "LtiNoSuchRequest"),
        400,
        "does not know this kind of LTI message",
    ),
    "missing_message_type": (_drop(CLAIM + "message_type"), 400, "what kind of message"),
    "missing_roles": (_drop(CLAIM + "roles"), 400, "roles"),
    "missing_deployment_id": (_drop(CLAIM + "deployment_id"), 400, "deployment"),
    "missing_resource_link_id": (_set(CLAIM + "resource_link", {"title": "x"}), 400, "resource link id"),
    "missing_sub": (_drop("sub"), 400, "who the user is"),
    "iat_in_the_future": (_set("iat", int(time.time()) + 3600), 401, "dated in the future"),
    "missing_iat": (_drop("iat"), 401, "lacks the claim iat"),
    "expired": (_set("exp", int(time.time()) - 3600), 401, "has expired"),
    "missing_exp": (_drop("exp"), 401, "lacks the claim exp"),
    "nbf_in_the_future": (_set("nbf", int(time.time()) + 3600), 401, "dated in the future"),
    "wrong_aud": (_set("aud", "another-tool"), 401, "addressed to another tool"),
    "several_aud_without_azp": (None, 401, "several audiences"),
    "wrong_azp": (_set("azp", "another-tool"), 401, "another tool"),
    "wrong_iss": (_set("iss", "https://evil.example"), 401, "another LMS"),
    "wrong_nonce": (_set("nonce", "not-the-login-nonce"), 401, "nonce"),
}


def _several_aud(payload, headers):
    payload["aud"] = [payload["aud"], "another-tool"]
    payload.pop("azp", None)


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_payload_is_refused(browser, registration, case):
    tamper, status, words = CASES[case]
    if case == "several_aud_without_azp":
        tamper = _several_aud
    response = browser.launch(_pending(tamper))
    assert_refused(response, status, words)


def test_a_token_whose_header_names_another_algorithm_is_refused(browser, registration):
    """alg confusion: the header says HS256 (or none); only RS256 is accepted."""
    action, fields = browser.authenticate(browser.login(_pending()))
    header, payload, signature = fields["id_token"].split(".")
    decoded = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    decoded["alg"] = "HS256"
    forged = base64.urlsafe_b64encode(json.dumps(decoded).encode()).decode().rstrip("=")
    fields["id_token"] = ".".join([forged, payload, signature])
    assert_refused(browser.post_launch(action, fields), 401, "RS256")


def test_a_launch_signed_with_another_key_is_refused(browser, registration):
    forged_private, _public = rsa_pem_pair()
    response = browser.launch(_pending(sign_with=forged_private))
    assert_refused(response, 401, "signature is not valid")


def test_a_replayed_launch_is_refused(browser, registration):
    action, fields = browser.authenticate(browser.login(_pending()))
    first = browser.post_launch(action, fields)
    assert first.status_code == 302
    again = browser.post_launch(action, fields)
    assert again.status_code == 401
    assert b"expired, was already used" in again.content


def test_a_replayed_nonce_under_a_fresh_state_is_refused(browser, registration):
    """The id_token of one login cannot be posted with another login's state."""
    action, fields = browser.authenticate(browser.login(_pending()))
    browser.post_launch(action, fields)
    _action2, fields2 = browser.authenticate(browser.login(_pending()))
    fields["state"] = fields2["state"]
    response = browser.post_launch(action, fields)
    assert response.status_code == 401
    assert b"nonce" in response.content


def test_state_mismatch_is_refused(browser, registration, client):
    action, fields = browser.authenticate(browser.login(_pending()))
    client.cookies[state_cookie_name(fields["state"])] = "another-state"
    assert_refused(browser.post_launch(action, fields), 401, "does not belong to this browser")


def test_unknown_state_is_refused(browser, registration):
    action, fields = browser.authenticate(browser.login(_pending()))
    fields["state"] = "made-up"
    assert_refused(browser.post_launch(action, fields), 401, "expired, was already used")


def test_an_id_token_that_is_not_a_jwt_is_refused(browser, registration):
    action, fields = browser.authenticate(browser.login(_pending()))
    fields["id_token"] = "not.a-jwt"
    assert_refused(browser.post_launch(action, fields), 400, "not valid")


def test_missing_id_token_is_refused(browser, registration):
    action, fields = browser.authenticate(browser.login(_pending()))
    del fields["id_token"]
    assert_refused(browser.post_launch(action, fields), 400, "no id_token")


def test_the_platforms_error_answer_is_shown(browser, registration, client):
    response = client.post(
        "/lti/launch/", {"error": "login_required", "error_description": "Sign in to the LMS", "state": "x"}
    )
    assert_refused(response, 400, "Sign in to the LMS")


def test_a_get_to_the_launch_url_is_refused(client, db, scheme):
    assert_refused(client.get("/lti/launch/"), 405, "opened by an LMS")


def test_unknown_issuer_at_login_is_refused(browser, registration, client, tool):
    response = client.get(
        "/lti/login/",
        {
            "iss": "https://unknown.example",
            "login_hint": "x",
            "target_link_uri": tool + "/lti/launch/",
        },
    )
    assert_refused(response, 403, "does not know this LMS")


def test_unknown_client_id_at_login_is_refused(browser, registration, client, tool):
    response = client.get(
        "/lti/login/",
        {
            "iss": browser.platform.issuer,
            "client_id": "other",
            "login_hint": "x",
            "target_link_uri": tool + "/lti/launch/",
        },
    )
    assert_refused(response, 403, "client id other")


def test_login_without_client_id_works_when_the_issuer_has_one_registration(browser, registration):
    assert browser.launch(_pending(), client_id=False).status_code == 302


def test_a_login_for_a_foreign_target_is_refused(browser, registration, client):
    response = client.get(
        "/lti/login/",
        {
            "iss": browser.platform.issuer,
            "login_hint": "x",
            "target_link_uri": "https://evil.example/lti/launch/",
        },
    )
    assert_refused(response, 400, "an address that is not Talia")


def test_login_without_its_parameters_is_refused(client, db, scheme):
    assert_refused(client.get("/lti/login/"), 400, "without its issuer")


def test_an_unknown_deployment_is_refused_and_waits_for_the_admin(browser, registration, admin_client):
    LtiDeployment.objects.all().delete()
    response = browser.launch(_pending())
    assert_refused(response, 403, "not yet switched on")
    waiting = LtiDeployment.objects.get()
    assert waiting.deployment_id == browser.platform.deployment_id and not waiting.is_active
    listing = admin_client.get("/admin/lti_tool/ltideployment/?is_active__exact=0")
    assert browser.platform.deployment_id in listing.content.decode()
    admin_client.post(
        "/admin/lti_tool/ltideployment/", {"action": "activate", "_selected_action": [waiting.pk]}
    )
    waiting.refresh_from_db()
    assert waiting.is_active
    assert browser.launch(_pending()).status_code == 302


def test_a_role_talia_does_not_know_is_refused(browser, registration):
    pending = _pending()
    pending.person.roles = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"]
    assert_refused(browser.launch(pending), 403, "neither")


def test_a_student_cannot_deep_link(browser, registration):
    pending = PendingLaunch(student_person(), "c1", "History", deep_link=True)
    response = browser.launch(pending)
    assert response.status_code == 403 and b"Only teachers add" in response.content


def test_blocked_cookies_lead_to_a_new_window(browser, registration, client, tool):
    """Without the state cookie (third-party cookies blocked) the page offers a top-level re-launch.

    The launch did not happen: the page is a refusal (403) like any other, with the way on.
    """
    action, fields = browser.authenticate(browser.login(_pending()))
    client.cookies.clear()
    response = browser.post_launch(action, fields)
    assert response.status_code == 403
    text = response.content.decode()
    assert "Open Talia in a new window" in text and 'target="_blank"' in text
    assert not LtiUser.objects.exists()
    # The button re-runs the login top-level, where cookies are kept: the launch succeeds.
    link = text.split(f'href="{tool}', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    again = client.get(link)
    assert again.status_code == 302 and again["Location"].startswith(browser.platform.url)
    action2, fields2 = browser.authenticate(again)
    assert browser.post_launch(action2, fields2).status_code == 302


def test_a_deactivated_platform_is_refused(browser, registration, client):
    registration.is_active = False
    registration.save()
    url = urlsplit(browser.platform.launch(_pending()))
    assert_refused(client.get(url.path + "?" + url.query), 403, "does not know this LMS")


# --- malformed tokens and claims ---------------------------------------------------------------


def _b64(value):
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


@pytest.mark.parametrize("body", [[1, 2], "a string", 123, None], ids=["list", "string", "number", "null"])
def test_an_unsigned_token_whose_payload_is_not_an_object_is_refused(browser, registration, body):
    action, fields = browser.authenticate(browser.login(_pending()))
    fields["id_token"] = ".".join([_b64({"alg": "RS256", "kid": "x"}), _b64(body), "sig"])
    assert_refused(browser.post_launch(action, fields), 400, "must be JSON objects")


@pytest.mark.parametrize("header", [["RS256"], "RS256", 5, None], ids=["list", "string", "number", "null"])
def test_an_unsigned_token_whose_header_is_not_an_object_is_refused(browser, registration, header):
    action, fields = browser.authenticate(browser.login(_pending()))
    fields["id_token"] = ".".join([_b64(header), _b64({"iss": browser.platform.issuer}), "sig"])
    assert_refused(browser.post_launch(action, fields), 400, "must be JSON objects")


def _in(claim, name, value):
    def tamper(payload, headers):
        payload[claim] = {**payload[claim], name: value}

    return tamper


AGS = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
NRPS = "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice"
DL_SETTINGS = "https://purl.imsglobal.org/spec/lti-dl/claim/deep_linking_settings"
OBJECT = "is not a JSON object"
STRINGS = "is not a list of strings"
ID = "is not text of at most 255 characters"

MALFORMED_CLAIMS = {
    "context_string": (_set(CLAIM + "context", "c1"), "claim context " + OBJECT),
    "context_list": (_set(CLAIM + "context", ["c1"]), "claim context " + OBJECT),
    "resource_link_string": (_set(CLAIM + "resource_link", "rl-1"), "claim resource_link " + OBJECT),
    "custom_string": (_set(CLAIM + "custom", "talia_assignment=1"), "claim custom " + OBJECT),
    "ags_endpoint_string": (_set(AGS, "https://lms.example/lineitems"), "claim AGS endpoint " + OBJECT),
    "ags_scope_string": (_in(AGS, "scope", "score"), "claim AGS endpoint scope " + STRINGS),
    "ags_lineitem_number": (_in(AGS, "lineitem", 5), "claim AGS endpoint lineitem is not text"),
    "nrps_string": (_set(NRPS, "https://lms.example/members"), "claim NRPS namesroleservice " + OBJECT),
    "nrps_url_too_long": (
        _in(NRPS, "context_memberships_url", "https://lms.example/" + "m" * 300),
        "claim NRPS context_memberships_url is not text of at most 200 characters",
    ),
    "roles_string": (_set(CLAIM + "roles", "Instructor"), "claim roles " + STRINGS),
    "roles_with_an_object": (_set(CLAIM + "roles", [{"role": "Instructor"}]), "claim roles " + STRINGS),
    "sub_number": (_set("sub", 12345), "claim sub " + ID),
    "sub_too_long": (_set("sub", "s" * 256), "claim sub " + ID),
    "iat_string": (_set("iat", "now"), "claim iat is not a number"),
    "deployment_id_object": (_set(CLAIM + "deployment_id", {"id": 1}), "claim deployment_id " + ID),
    "deployment_id_number": (_set(CLAIM + "deployment_id", 1), "claim deployment_id " + ID),
    "deployment_id_too_long": (_set(CLAIM + "deployment_id", "d" * 256), "claim deployment_id " + ID),
    "context_id_object": (_in(CLAIM + "context", "id", {"id": "c1"}), "claim context id " + ID),
    "context_id_too_long": (_in(CLAIM + "context", "id", "c" * 256), "claim context id " + ID),
    "resource_link_id_object": (
        _in(CLAIM + "resource_link", "id", ["rl-1"]),
        "claim resource_link id " + ID,
    ),
    "resource_link_id_too_long": (
        _in(CLAIM + "resource_link", "id", "r" * 256),
        "claim resource_link id " + ID,
    ),
    "given_name_number": (_set("given_name", 5), "claim given_name is not text"),
    "family_name_list": (_set("family_name", ["Nowak"]), "claim family_name is not text"),
    "name_object": (_set("name", {"full": "Anna"}), "claim name is not text"),
    "email_object": (_set("email", {"address": "anna@school.example"}), "claim email is not text"),
    "message_type_list": (
        _set(CLAIM + "message_type", ["LtiResourceLinkRequest"]),
        "claim message_type is not text",
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_CLAIMS))
def test_a_signed_launch_with_a_malformed_claim_is_refused(browser, registration, case):
    """Signed by the LMS, but a claim Talia reads has the wrong shape or does not fit its column."""
    tamper, words = MALFORMED_CLAIMS[case]
    response = browser.launch(_pending(tamper))
    assert_refused(response, 400, words)
    assert list(LtiDeployment.objects.values_list("deployment_id", flat=True)) == ["deployment-1"]


MALFORMED_DEEP_LINKING = {
    "settings_string": (
        _set(DL_SETTINGS, "https://lms.example/return"),
        "claim deep_linking_settings " + OBJECT,
    ),
    "return_url_number": (
        _in(DL_SETTINGS, "deep_link_return_url", 5),
        "claim deep_link_return_url is not text",
    ),
    "return_url_javascript": (
        _in(DL_SETTINGS, "deep_link_return_url", "javascript:alert(1)"),
        "claim deep_link_return_url is not an http or https URL",
    ),
    "accept_types_string": (
        _in(DL_SETTINGS, "accept_types", "ltiResourceLink"),
        "claim deep_linking_settings accept_types " + STRINGS,
    ),
}


@pytest.mark.parametrize("case", sorted(MALFORMED_DEEP_LINKING))
def test_a_deep_linking_request_with_malformed_settings_is_refused(browser, registration, case):
    tamper, words = MALFORMED_DEEP_LINKING[case]
    response = browser.launch(PendingLaunch(teacher_person(), "c1", "History", deep_link=True, tamper=tamper))
    assert_refused(response, 400, words)


def test_long_names_from_the_lms_are_cut_to_fit(browser, registration):
    """Names are shown, not matched: longer than their columns, they are shortened, not refused."""

    def long_names(payload, headers):
        payload["given_name"] = "A" * 600
        payload["name"] = "N" * 600
        payload["email"] = "a" * 300 + "@school.example"

    assert browser.launch(_pending(long_names)).status_code == 302
    lti_user = LtiUser.objects.get()
    assert (len(lti_user.given_name), len(lti_user.name), lti_user.email) == (500, 500, "")


# --- misdirected launches ------------------------------------------------------------------------


def test_a_launch_for_another_deployment_than_its_login_is_refused(browser, registration):
    LtiDeployment.objects.create(registration=registration, deployment_id="deployment-2", is_active=True)
    response = browser.launch(_pending(_set(CLAIM + "deployment_id", "deployment-2")))
    assert_refused(response, 401, "another deployment (deployment-2) than its login (deployment-1)")


def test_a_launch_whose_target_link_is_another_host_is_refused(browser, registration):
    response = browser.launch(_pending(_set(CLAIM + "target_link_uri", "https://evil.example/lti/launch/")))
    assert_refused(response, 400, "meant for another address")


def test_a_launch_whose_target_link_is_talias_deep_linking_page_is_accepted(browser, registration, tool):
    """The host decides; a platform may name either of Talia's launch pages."""
    response = browser.launch(_pending(_set(CLAIM + "target_link_uri", tool + "/lti/deep-link/")))
    assert response.status_code == 302


def test_a_target_link_on_talias_host_with_another_port_or_case_is_accepted(browser, registration):
    """Behind a proxy that ends TLS, the LMS's https://host/ reaches Talia as http on another
    port: the host decides, not the port or its case."""
    target = "https://TESTSERVER:443/lti/launch/"
    assert browser.launch(_pending(_set(CLAIM + "target_link_uri", target))).status_code == 302


# --- oversize launches ---------------------------------------------------------------------------


def _pad(size):
    def tamper(payload, headers):
        payload[CLAIM + "custom"] = {"pad": "x" * size}

    return tamper


def test_an_oversize_signed_launch_is_refused_before_it_is_read(browser, registration, caplog):
    """Signed by the LMS and valid in every other way, but larger than any LMS sends."""
    response = browser.launch(_pending(_pad(LAUNCH_MAX_BYTES)))
    assert_refused(response, 413, "larger than any LMS sends")
    assert "_auth_user_id" not in browser.client.session
    refusals = [r for r in caplog.records if r.name == "lms.lti.views"]
    assert [r.getMessage().split(" (")[0] for r in refusals] == ["LTI refused: too_large"]
    assert refusals[0].levelname == "WARNING" and refusals[0].exc_info is None


def test_a_launch_just_under_the_size_cap_is_accepted(browser, registration):
    """The cap leaves room for a launch carrying far more custom data than a real one."""
    assert browser.launch(_pending(_pad(LAUNCH_MAX_BYTES // 2))).status_code == 302


def test_an_oversize_form_around_a_small_id_token_is_refused(browser, registration):
    action, fields = browser.authenticate(browser.login(_pending()))
    fields["padding"] = "x" * LAUNCH_MAX_BYTES
    assert_refused(browser.post_launch(action, fields), 413, "larger than any LMS sends")


def test_an_oversize_login_post_is_refused(browser, registration, client, tool):
    response = client.post(
        "/lti/login/",
        {
            "iss": browser.platform.issuer,
            "login_hint": "x",
            "target_link_uri": tool + "/lti/launch/",
            "lti_message_hint": "x" * LAUNCH_MAX_BYTES,
        },
    )
    assert_refused(response, 413, "larger than any LMS sends")


def test_a_login_whose_target_is_not_a_url_is_refused(browser, registration, client):
    response = client.get(
        "/lti/login/",
        {"iss": browser.platform.issuer, "login_hint": "x", "target_link_uri": "http://[testserver/lti/"},
    )
    assert_refused(response, 400, "an address that is not Talia")


def test_a_launch_form_with_too_many_fields_is_refused(browser, registration):
    action, fields = browser.authenticate(browser.login(_pending()))
    fields.update({f"f{n}": "" for n in range(1001)})
    assert_refused(browser.post_launch(action, fields), 400, "a form Talia cannot read")


@pytest.mark.parametrize("path", ["/lti/launch/", "/lti/login/"])
def test_a_form_that_is_not_multipart_as_it_claims_is_refused(client, db, scheme, path):
    response = client.generic("POST", path, b"id_token=x", content_type="multipart/form-data")
    assert_refused(response, 400, "a form Talia cannot read")


# --- how refusals are logged ---------------------------------------------------------------------


def test_every_refusal_is_one_warning_line_without_a_traceback(browser, registration, client, caplog):
    browser.launch(_pending(_header("kid", "no-such-key")))
    client.post("/lti/launch/", {"error": "x", "error_description": "two\nlines", "state": "s"})
    action, fields = browser.authenticate(browser.login(_pending()))
    fields["id_token"] = ".".join([_b64({"alg": "RS256", "kid": "x"}), "%%%", "sig"])
    browser.post_launch(action, fields)
    refusals = [r for r in caplog.records if r.name.startswith("lms.lti") and r.levelname != "DEBUG"]
    assert [r.getMessage().split(" (")[0] for r in refusals] == [
        "LTI refused: unknown_kid",
        "LTI refused: platform_error",
        "LTI refused: invalid_launch",
    ]
    for record in refusals:
        assert record.levelname == "WARNING" and record.exc_info is None
        assert "\n" not in record.getMessage()
