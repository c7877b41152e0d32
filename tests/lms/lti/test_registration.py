"""Dynamic and manual registration, several platforms, key rotation, and who may frame Talia."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.utils import timezone
from lti_tool.models import Key, LtiDeployment, LtiRegistration

from lms.lti import keys
from lms.lti.registration import invitation_token
from tests.factories import AdminFactory
from tests.lms.lti.conftest import frame_ancestors, register, teacher_person
from tests.lms.lti.platform import PendingLaunch, Platform

pytestmark = pytest.mark.django_db


def _register_url(admin, platform, token="registration-token"):
    query = urlencode(
        {
            "openid_configuration": platform.url + "/.well-known/openid-configuration",
            "registration_token": token,
        }
    )
    return f"/lti/register/{invitation_token(by=admin)}/?{query}"


def test_dynamic_registration_stores_the_platform_and_its_deployment(client, platform, browser, tool):
    admin = AdminFactory()
    response = client.get(_register_url(admin, platform))
    assert response.status_code == 200, response.content[:500]
    # The page tells the LMS it may close it, with a script file (the CSP allows no inline one).
    assert b'src="/static/lms/registered.js"' in response.content
    assert "org.imsglobal.lti.close" in Path(finders.find("lms/registered.js")).read_text()
    registration = LtiRegistration.objects.get()
    assert (registration.issuer, registration.client_id) == (platform.issuer, platform.client_id)
    assert (
        registration.token_url == platform.url + "/token"
        and registration.keyset_url == platform.url + "/jwks"
    )
    assert LtiDeployment.objects.get().is_active
    sent = platform.registrations[-1]
    assert sent["initiate_login_uri"] == tool + "/lti/login/"
    assert sent["jwks_uri"] == tool + "/lti/jwks/"
    assert tool + "/lti/launch/" in sent["redirect_uris"]
    messages = sent["https://purl.imsglobal.org/spec/lti-tool-configuration"]["messages"]
    assert {m["type"] for m in messages} == {"LtiResourceLinkRequest", "LtiDeepLinkingRequest"}
    # The registered platform launches straight away.
    keys.key_signing()
    assert (
        browser.launch(PendingLaunch(teacher_person(), "c1", "Kurs", resource_link_id="rl-1")).status_code
        == 302
    )


def test_dynamic_registration_needs_a_link_from_talias_admin(client, platform):
    query = urlencode({"openid_configuration": platform.url + "/.well-known/openid-configuration"})
    response = client.get(f"/lti/register/forged-token/?{query}")
    assert response.status_code == 403 and b"not a registration link made by Talia" in response.content
    assert not LtiRegistration.objects.exists()


def test_dynamic_registration_with_a_wrong_token_writes_nothing(client, platform):
    """The platform (like Canvas) shows its configuration only to the holder of its token."""
    response = client.get(_register_url(AdminFactory(), platform, token="wrong"))
    assert response.status_code == 424 and b"did not let Talia read its configuration" in response.content
    assert not LtiRegistration.objects.exists() and not platform.registrations


def test_dynamic_registration_refused_by_the_platform_writes_nothing(client, platform):
    """The configuration is open to all (Moodle); the registration needs the token."""
    platform.configuration_open = True
    response = client.get(_register_url(AdminFactory(), platform, token="wrong"))
    assert response.status_code == 424 and b"did not accept" in response.content
    assert not LtiRegistration.objects.exists()


@pytest.mark.parametrize("body", ["[1, 2]", '"registered"', "5", "null", "not json"])
def test_a_registration_answer_that_is_not_an_object_is_refused_without_a_500(client, platform, body):
    platform.registration_body = body
    response = client.get(_register_url(AdminFactory(), platform))
    assert response.status_code == 424, response.content[:300]
    assert b"did not accept" in response.content or b"other than a JSON object" in response.content
    assert not LtiRegistration.objects.exists()


@pytest.mark.parametrize("body", ["[1, 2]", '"config"', "5", "null", "not json"])
def test_a_configuration_that_is_not_an_object_is_refused_without_a_500(client, platform, body):
    platform.openid_configuration_body = body
    response = client.get(_register_url(AdminFactory(), platform))
    assert response.status_code == 424, response.content[:300]
    assert b"configuration" in response.content
    assert not LtiRegistration.objects.exists() and not platform.registrations


def test_a_configuration_with_fields_of_the_wrong_shape_is_refused_without_a_500(client, platform):
    config = json.loads(platform._openid_configuration({"Authorization": "Bearer registration-token"})[2])
    config["scopes_supported"] = [["nested"]]
    config["https://purl.imsglobal.org/spec/lti-platform-configuration"] = "Moodle"
    config["token_endpoint"] = ["https://lms.example/token"]
    platform.openid_configuration_body = json.dumps(config)
    response = client.get(_register_url(AdminFactory(), platform))
    assert response.status_code == 424 and b"lacks its token_endpoint" in response.content


def test_dynamic_registration_with_a_foreign_issuer_is_refused(client, platform):
    platform.issuer = "https://elsewhere.example"
    response = client.get(_register_url(AdminFactory(), platform))
    assert response.status_code == 424 and b"issuer other than its own" in response.content


def test_two_platforms_with_one_issuer_are_told_apart_by_client_id(db, client, scheme, tool):
    """Canvas: every hosted Canvas shares one issuer; the client id decides."""
    first = Platform(tool_base=tool).start()
    second = Platform(tool_base=tool).start()
    try:
        second.issuer = first.issuer
        second.url = first.url  # same issuer and endpoints' host; different client and keys
        r1 = register(first)
        LtiRegistration.objects.create(
            name="Second", **{**second.tool_settings, "keyset_url": first.url + "/jwks"}
        )
        assert LtiRegistration.objects.filter(issuer=first.issuer).count() == 2
        from tests.lms.lti.conftest import Browser

        assert (
            Browser(client, first)
            .launch(PendingLaunch(teacher_person(), "c1", "A", resource_link_id="r"))
            .status_code
            == 302
        )
        assert r1.deployments.count() == 1
    finally:
        first.stop()
        second.stop()


def test_the_admin_shows_talias_urls_for_manual_registration(admin_client, registration, tool):
    page = admin_client.get(f"/admin/lti_tool/ltiregistration/{registration.pk}/change/").content.decode()
    for path in ("/lti/login/", "/lti/launch/", "/lti/deep-link/", "/lti/jwks/", "/lti/register/"):
        assert tool + path in page


def test_manual_registration_in_the_admin(admin_client, platform, tool):
    add_page = admin_client.get("/admin/lti_tool/ltiregistration/add/")
    assert add_page.status_code == 200 and tool + "/lti/login/" in add_page.content.decode()
    data = {
        "name": "Moodle",
        **platform.tool_settings,
        "audience": "",
        "is_active": "on",
        "deployments-TOTAL_FORMS": "1",
        "deployments-INITIAL_FORMS": "0",
        "deployments-0-deployment_id": "7",
        "deployments-0-is_active": "on",
    }
    response = admin_client.post("/admin/lti_tool/ltiregistration/add/", data)
    assert response.status_code == 302, response.content.decode()[:3000]
    registration = LtiRegistration.objects.get()
    assert registration.deployments.get().deployment_id == "7"


def test_rotation_keeps_the_old_key_published_until_its_grace_ends(client, settings, db):
    settings.LTI_KEY_GRACE_DAYS = 7
    old = keys.key_signing()
    call_command("lti_rotate_keys", stdout=__import__("io").StringIO())
    new = keys.key_signing()
    assert new.pk != old.pk
    published = {k["kid"] for k in client.get("/lti/jwks/").json()["keys"]}
    assert published == {str(old), str(new)}
    # Eight days later the old key has dropped out of the JWKS; the next rotation retires it.
    Key.objects.filter(pk=old.pk).update(datetime_created=timezone.now() - timedelta(days=30))
    Key.objects.filter(pk=new.pk).update(datetime_created=timezone.now() - timedelta(days=8))
    assert {str(k) for k in keys.keys_published()} == {str(new)}
    keys.key_rotate()
    old.refresh_from_db()
    assert not old.is_active


def test_lti_pages_may_be_framed_by_registered_platforms_only(client, registration, platform):
    lti_page = client.get("/lti/jwks/")
    assert "X-Frame-Options" not in lti_page.headers
    assert frame_ancestors(lti_page) == f"frame-ancestors 'self' {platform.url}"
    other = client.get("/")
    assert other.headers["X-Frame-Options"] == "DENY"
    assert frame_ancestors(other) == "frame-ancestors 'none'"


def test_pages_opened_from_a_launch_may_be_framed_by_that_platform(browser, registration, client, platform):
    browser.launch(PendingLaunch(teacher_person(), "c1", "Kurs", resource_link_id="rl-1"))
    page = client.get("/")
    assert "X-Frame-Options" not in page.headers
    assert frame_ancestors(page) == f"frame-ancestors 'self' {platform.url}"
