"""Every bad launch of the 1EdTech LTI 1.3 tool certification, and other forged, replayed,
expired or misdirected launches, is refused with a 4xx page a person can read; nothing is written."""

from __future__ import annotations

import base64
import json
import time
from urllib.parse import urlsplit

import pytest
from lti_tool.models import LtiDeployment, LtiUser

from lms.lti.launch import state_cookie_name
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


def test_a_get_to_the_launch_url_is_refused(client, db):
    assert_refused(client.get("/lti/launch/"), 405, "opened by an LMS")


def test_unknown_issuer_at_login_is_refused(browser, registration, client):
    response = client.get(
        "/lti/login/",
        {
            "iss": "https://unknown.example",
            "login_hint": "x",
            "target_link_uri": "http://testserver/lti/launch/",
        },
    )
    assert_refused(response, 403, "does not know this LMS")


def test_unknown_client_id_at_login_is_refused(browser, registration, client):
    response = client.get(
        "/lti/login/",
        {
            "iss": browser.platform.issuer,
            "client_id": "other",
            "login_hint": "x",
            "target_link_uri": "http://testserver/lti/launch/",
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


def test_login_without_its_parameters_is_refused(client, db):
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


def test_blocked_cookies_lead_to_a_new_window(browser, registration, client):
    """Without the state cookie (third-party cookies blocked) the page offers a top-level re-launch."""
    action, fields = browser.authenticate(browser.login(_pending()))
    client.cookies.clear()
    response = browser.post_launch(action, fields)
    assert response.status_code == 200
    text = response.content.decode()
    assert "Open Talia in a new window" in text and 'target="_blank"' in text
    assert not LtiUser.objects.exists()
    # The button re-runs the login top-level, where cookies are kept: the launch succeeds.
    link = text.split('href="http://testserver', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    again = client.get(link)
    assert again.status_code == 302 and again["Location"].startswith(browser.platform.url)
    action2, fields2 = browser.authenticate(again)
    assert browser.post_launch(action2, fields2).status_code == 302


def test_a_deactivated_platform_is_refused(browser, registration, client):
    registration.is_active = False
    registration.save()
    url = urlsplit(browser.platform.launch(_pending()))
    assert_refused(client.get(url.path + "?" + url.query), 403, "does not know this LMS")
