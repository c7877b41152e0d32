"""The site over https through nginx: health, the redirect from http, HSTS, secure cookies,
the admin as the first administrator, and a student's page in a real browser."""

from __future__ import annotations

import pytest
import requests
from playwright.sync_api import expect

from tests.e2e.browsing import axe_violations, describe_violations, open_page, sign_in_through_form
from tests.production.conftest import signed_in

pytestmark = pytest.mark.production


def test_healthz_answers_through_the_proxy_with_hsts(production):
    answer = production.session().get(f"{production.url}/healthz", timeout=15)
    assert answer.status_code == 200 and answer.json() == {"status": "ok"}
    assert answer.headers["Strict-Transport-Security"].startswith("max-age=31536000")
    assert answer.headers["Server"].startswith("nginx")


def test_the_certificate_is_checked_against_the_ca(production):
    """The client trusts only the installation's CA: a client with the system's CAs refuses it."""
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(f"{production.url}/healthz", timeout=15)


def test_plain_http_is_redirected_to_https(production):
    plain = production.url.replace("https://", "http://", 1)
    answer = requests.get(f"{plain}/games/join?x=1", allow_redirects=False, timeout=15)
    assert answer.status_code == 301
    assert answer.headers["Location"] == f"{production.url}/games/join?x=1"


def test_a_forwarded_proto_sent_by_the_client_is_overwritten(production):
    """nginx sets X-Forwarded-Proto itself; a client's own says nothing to Talia."""
    plain = production.url.replace("https://", "http://", 1)
    answer = requests.get(
        f"{plain}/healthz", headers={"X-Forwarded-Proto": "https"}, allow_redirects=False, timeout=15
    )
    assert answer.status_code == 301


def test_cookies_are_secure_and_the_session_is_http_only(production, people):
    client = signed_in(production, people["ala"])
    cookies = {cookie.name: cookie for cookie in client.cookies}
    assert set(cookies) >= {"__Secure-sessionid", "__Secure-csrftoken"}
    for cookie in cookies.values():
        assert cookie.secure, cookie.name
    session = cookies["__Secure-sessionid"]
    assert session.has_nonstandard_attr("HttpOnly")
    assert session.get_nonstandard_attr("SameSite") == "None"


def test_the_first_administrator_signs_in_to_the_admin(production, browsing):
    page = browsing.new_page()
    open_page(page, f"{production.url}/admin/login/")
    assert page.title().startswith("Log in")
    page.locator("#id_username").fill("admin")
    page.locator("#id_password").fill(production.admin_password)
    with page.expect_navigation():
        page.locator("#login-form [type=submit]").click()
    assert page.url == f"{production.url}/admin/"
    expect(page.locator("#site-name")).to_be_visible()
    expect(page.get_by_role("link", name="Users").first).to_be_visible()
    assert not browsing.problems(page)


def test_a_student_page_in_the_browser(production, people, browsing):
    page = browsing.new_page()
    sign_in_through_form(page, production.url, people["kuba"].username, people["kuba"].password)
    open_page(page, f"{production.url}/games/join")
    expect(page.get_by_label("Join code")).to_be_visible()
    violations = axe_violations(page)
    assert not violations, describe_violations("join page over https", violations)
    assert not browsing.problems(page)
