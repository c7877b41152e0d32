"""What a launch keeps between requests, and that keeping it never weakens a check.

The platform's JWKS (LTI cache, refetched once for an unknown kid), the parsed keys
(per process, keyed by the key itself), the frame-ancestors origins (LTI cache, forgotten
when a registration changes), and the launch's writes (only what changed).
"""

from __future__ import annotations

import hashlib

import jwt
import pytest
from django.core.cache import caches
from lti_tool.models import LtiContext, LtiMembership, LtiRegistration, LtiResourceLink

from lms.lti import keys
from lms.lti.connector import client_assertion
from tests.lms.lti.conftest import frame_ancestors, register, student_person, teacher_person
from tests.lms.lti.platform import PendingLaunch, Platform

pytestmark = pytest.mark.django_db


def _launch(browser, person=None, **kwargs):
    pending = PendingLaunch(person or teacher_person(), "c1", "History 3b", resource_link_id="rl-1", **kwargs)
    return browser.launch(pending)


def _unknown_kid(payload, headers):
    headers["kid"] = "no-such-key"


def test_the_platform_jwks_is_fetched_once_for_many_launches(browser, registration, platform):
    for n in range(3):
        assert _launch(browser, teacher_person(n)).status_code == 302
    assert platform.jwks_requests == 1


def test_an_unknown_kid_refetches_the_jwks_once_then_is_refused_without_fetching(
    browser, registration, platform
):
    assert _launch(browser).status_code == 302
    assert platform.jwks_requests == 1
    first = _launch(browser, tamper=_unknown_kid)
    assert first.status_code == 401 and b"key the LMS does not publish" in first.content
    assert platform.jwks_requests == 2  # one refetch: the LMS may have rotated its key
    again = _launch(browser, tamper=_unknown_kid)
    assert again.status_code == 401 and b"key the LMS does not publish" in again.content
    assert platform.jwks_requests == 2  # made-up kids do not make Talia hammer the LMS


def test_a_platform_that_rotated_its_key_is_trusted_at_its_first_launch_with_the_new_kid(
    browser, registration, platform
):
    assert _launch(browser).status_code == 302
    old_kid = platform.registration().get_kid()
    platform.rotate_key()
    assert platform.registration().get_kid() != old_kid
    assert _launch(browser, teacher_person(2)).status_code == 302
    assert platform.jwks_requests == 2


def test_a_launch_signed_by_the_rotated_out_platform_key_is_refused_once_the_jwks_dropped_it(
    browser, registration, platform
):
    old_private = platform.private_key
    assert _launch(browser).status_code == 302
    old_kid = platform.registration().get_kid()
    platform.rotate_key()
    assert _launch(browser, teacher_person(2)).status_code == 302  # JWKS refetched: new key only

    def old_kid_header(payload, headers):
        headers["kid"] = old_kid

    under_old_kid = _launch(browser, teacher_person(3), sign_with=old_private, tamper=old_kid_header)
    assert under_old_kid.status_code == 401 and b"key the LMS does not publish" in under_old_kid.content
    under_new_kid = _launch(browser, teacher_person(4), sign_with=old_private)
    assert under_new_kid.status_code == 401 and b"signature is not valid" in under_new_kid.content


def test_talia_signs_with_the_new_key_right_after_a_rotation_and_publishes_both(client, db, settings):
    settings.LTI_KEY_GRACE_DAYS = 7
    old = keys.key_signing()
    _private, old_kid = keys.signing_material()
    assert old_kid == old.as_jwk()["kid"]
    new = keys.key_rotate()
    private, kid = keys.signing_material()
    assert kid == new.as_jwk()["kid"] != old_kid
    token = jwt.encode({"sub": "x"}, private, algorithm="RS256", headers={"kid": kid})
    published = {k["kid"]: k for k in client.get("/lti/jwks/").json()["keys"]}
    assert set(published) == {old_kid, kid}
    public = jwt.algorithms.RSAAlgorithm.from_jwk(published[kid])
    assert jwt.decode(token, public, algorithms=["RS256"]) == {"sub": "x"}


def test_the_client_assertion_is_signed_by_the_current_key(registration):
    first_kid = keys.signing_material()[1]
    keys.key_rotate()
    header = jwt.get_unverified_header(client_assertion(registration))
    assert header["kid"] == keys.key_signing().as_jwk()["kid"] != first_kid


def test_a_new_registration_may_frame_the_lti_pages_at_once(client, registration, platform):
    assert frame_ancestors(client.get("/lti/jwks/")) == f"frame-ancestors 'self' {platform.url}"
    other = Platform(tool_base="http://testserver")
    try:
        register(other)
        csp = frame_ancestors(client.get("/lti/jwks/"))
        assert csp == f"frame-ancestors 'self' {' '.join(sorted([platform.url, other.url]))}"
        LtiRegistration.objects.filter(issuer=other.issuer).get().delete()
        assert frame_ancestors(client.get("/lti/jwks/")) == (f"frame-ancestors 'self' {platform.url}")
    finally:
        other._server.server_close()


def test_a_deactivated_registration_no_longer_frames_the_lti_pages(client, registration, platform):
    assert platform.url in frame_ancestors(client.get("/lti/jwks/"))
    registration.is_active = False
    registration.save()
    assert frame_ancestors(client.get("/lti/jwks/")) == "frame-ancestors 'self'"


def test_a_repeated_launch_rewrites_nothing_that_did_not_change(browser, registration):
    assert _launch(browser).status_code == 302
    assert _launch(browser, student_person()).status_code in (302, 409)
    before = {
        model: dict(model.objects.values_list("pk", "datetime_modified"))
        for model in (LtiContext, LtiMembership, LtiResourceLink)
    }
    assert _launch(browser).status_code == 302
    after = {
        model: dict(model.objects.values_list("pk", "datetime_modified"))
        for model in (LtiContext, LtiMembership, LtiResourceLink)
    }
    assert after == before


def test_a_launch_with_a_changed_course_title_updates_it(browser, registration):
    assert _launch(browser).status_code == 302
    pending = PendingLaunch(teacher_person(), "c1", "History 4a", resource_link_id="rl-1")
    assert browser.launch(pending).status_code == 302
    assert LtiContext.objects.get(id_on_platform="c1").title == "History 4a"


def test_a_keyset_entry_that_is_not_an_rsa_key_refuses_the_launch_without_a_500(
    browser, registration, platform, settings
):
    """The kid matches, but the LMS's keyset gives it as an EC key with no RSA numbers."""
    kid = platform.registration().get_kid()
    url = registration.keyset_url
    caches[settings.LTI_CACHE].set(
        "lti:jwks:" + hashlib.sha256(url.encode()).hexdigest(),
        {"keys": [{"kid": kid, "kty": "EC", "alg": "RS256", "crv": "P-256"}]},
        60,
    )
    response = _launch(browser)
    assert response.status_code == 424
    assert b"not a valid RSA key" in response.content
    assert not LtiContext.objects.exists()
