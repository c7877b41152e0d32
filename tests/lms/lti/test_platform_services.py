"""The test platform's AGS and NRPS endpoints (lti1p3platform's service classes): what a real LMS
refuses, Moodle's line item URLs with a query string, and paged rosters read by Talia."""

from __future__ import annotations

import pytest
import requests

from lms.lti import connector
from tests.lms.lti.platform import (
    INSTRUCTOR,
    LEARNER,
    LINEITEM_READ_SCOPE,
    LINEITEM_SCOPE,
    NRPS_SCOPE,
    RESULT_SCOPE,
    SCORE_SCOPE,
    SCORE_TYPE,
    Person,
    rsa_pem_pair,
)


def _score(user: str = "s-1", given: float = 4.0, timestamp: str = "2025-03-01T10:00:00+00:00") -> dict:
    return {
        "userId": user,
        "scoreGiven": given,
        "scoreMaximum": 10.0,
        "timestamp": timestamp,
        "activityProgress": "Completed",
        "gradingProgress": "FullyGraded",
    }


def _post(url: str, token: str | None, body: dict, content_type: str = SCORE_TYPE) -> requests.Response:
    headers = {"Content-Type": content_type}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return requests.post(url, json=body, headers=headers, timeout=5)


@pytest.mark.django_db
def test_a_score_posted_with_a_token_without_the_score_scope_is_refused(platform, registration):
    item = platform.lineitem_add(label="Test", score_maximum=10, resource_link_id="rl-1")
    # Issued by the platform's token endpoint to Talia, for reading results only.
    token = connector.access_token(registration, [RESULT_SCOPE])
    refused = _post(item.id + "/scores", token, _score())
    assert refused.status_code == 401
    assert item.scores == {} and platform.scores_posted == 0
    assert (
        requests.get(item.id + "/results", headers={"Authorization": f"Bearer {token}"}, timeout=5).json()
        == []
    )

    connector.score_post(registration, item.id, _score())
    assert item.scores["s-1"]["scoreGiven"] == 4.0
    assert platform.results(item.id)[0]["resultScore"] == 4.0


def test_the_score_endpoint_refuses_what_a_real_lms_refuses(platform):
    item = platform.lineitem_add(label="Test", score_maximum=10, resource_link_id="rl-1")
    url = item.id + "/scores"
    token = platform.access_token(SCORE_SCOPE)
    forged = platform.registration().encode_and_sign(
        {"sub": platform.client_id, "iss": platform.issuer, "scopes": SCORE_SCOPE}, rsa_pem_pair()[0]
    )
    assert _post(url, None, _score()).status_code == 401
    assert _post(url, forged, _score()).status_code == 401  # a bad signature: 401, not a 500
    assert _post(url, token, _score(), "application/json").status_code == 415
    missing = _score()
    del missing["gradingProgress"]
    answer = _post(url, token, missing)
    assert answer.status_code == 400 and "gradingProgress" in answer.json()["error"]
    assert _post(platform.url + "/lineitems/99/scores", token, _score()).status_code == 404
    assert requests.get(url, headers={"Authorization": f"Bearer {token}"}, timeout=5).status_code == 405

    assert _post(url, token, _score(timestamp="2025-03-01T10:00:00+00:00")).status_code == 200
    assert _post(url, token, _score(given=9, timestamp="2025-03-01T09:00:00+00:00")).status_code == 409
    assert item.scores["s-1"]["scoreGiven"] == 4.0 and platform.scores_posted == 1


@pytest.mark.django_db
def test_moodle_line_item_urls_keep_their_query_for_scores_results_and_paging(platform, registration):
    platform.lineitem_query = "type_id=2"
    item = platform.lineitem_add(label="Test", score_maximum=10, resource_link_id="rl-1")
    assert item.id == f"{platform.url}/lineitems/1/lineitem?type_id=2"
    connector.score_post(registration, item.id, _score("s-1"))
    connector.score_post(registration, item.id, _score("s-2", given=7.0))
    assert [r["userId"] for r in platform.results(item.id)] == ["s-1", "s-2"]

    page = requests.get(
        f"{platform.url}/lineitems/1/lineitem/results?type_id=2&limit=1",
        headers={"Authorization": f"Bearer {platform.access_token(RESULT_SCOPE)}"},
        timeout=5,
    )
    assert page.headers["Content-Type"] == "application/vnd.ims.lis.v2.resultcontainer+json"
    assert [r["userId"] for r in page.json()] == ["s-1"]
    assert page.headers["Link"] == (
        f'<{platform.url}/lineitems/1/lineitem/results?type_id=2&limit=1&page=2>; rel="next"'
    )


def test_line_items_are_listed_with_a_read_token_and_created_only_with_the_lineitem_scope(platform):
    platform.lineitem_add(label="A", score_maximum=10, resource_link_id="rl-1")
    platform.lineitem_add(label="B", score_maximum=5, resource_link_id="rl-2")
    read = {"Authorization": f"Bearer {platform.access_token(LINEITEM_READ_SCOPE)}"}
    listed = requests.get(platform.url + "/lineitems?resource_link_id=rl-2", headers=read, timeout=5)
    assert [i["label"] for i in listed.json()] == ["B"]
    new = {"label": "C", "scoreMaximum": 20, "resourceLinkId": "rl-3"}
    content = "application/vnd.ims.lis.v2.lineitem+json"
    assert (
        _post(
            platform.url + "/lineitems", platform.access_token(LINEITEM_READ_SCOPE), new, content
        ).status_code
        == 401
    )
    created = _post(platform.url + "/lineitems", platform.access_token(LINEITEM_SCOPE), new, content)
    assert created.status_code == 201
    assert platform.lineitems[created.json()["id"]].label == "C"


@pytest.mark.django_db
def test_talia_follows_roster_pages_whose_link_is_unquoted_and_not_first(platform, registration):
    """RFC 8288 allows ``rel=next`` without quotes, and other links before it."""
    platform.roster_page_size = 2
    platform.link_quoted = False
    people = [Person(sub=f"s-{n}", name=f"Student {n}", roles=[LEARNER]) for n in range(1, 6)]
    platform.members["c1"] = people
    url = f"{platform.url}/memberships/c1"
    assert [m["user_id"] for m in connector.members_get(registration, url)] == [p.sub for p in people]


def test_talia_follows_the_roster_pages_of_a_platform_that_pages_on_its_own(platform, registration):
    platform.roster_page_size = 2
    people = [Person(sub="t-1", name="Teacher", roles=[INSTRUCTOR])] + [
        Person(sub=f"s-{n}", name=f"Student {n}", roles=[LEARNER]) for n in range(1, 5)
    ]
    platform.members["c1"] = people
    url = f"{platform.url}/memberships/c1"
    assert [m["user_id"] for m in connector.members_get(registration, url)] == [p.sub for p in people]

    token = {"Authorization": f"Bearer {platform.access_token(NRPS_SCOPE)}"}
    first = requests.get(url, headers=token, timeout=5)
    assert first.headers["Link"] == f'<{url}?limit=2&page=2>; rel="next"'
    assert first.json()["context"]["id"] == "c1" and len(first.json()["members"]) == 2
    learners = requests.get(url + "?role=Learner&limit=10", headers=token, timeout=5)
    assert [m["user_id"] for m in learners.json()["members"]] == ["s-1", "s-2", "s-3", "s-4"]
    assert "Link" not in learners.headers
    assert requests.get(url + "?rlid=rl-elsewhere", headers=token, timeout=5).status_code == 403
    scoreless = {"Authorization": f"Bearer {platform.access_token(SCORE_SCOPE)}"}
    assert requests.get(url, headers=scoreless, timeout=5).status_code == 401


def test_every_key_pair_a_test_is_given_differs_from_its_others(platform):
    """The platform's keys are made once and given out again in later tests
    (``rsa_pem_pair``): within one test, the platform's key, a rotated key and a forger's key
    must still be three different keys, or a forged token would pass for the platform's."""
    first = platform.private_key
    platform.rotate_key()
    forged, _public = rsa_pem_pair()
    assert len({first, platform.private_key, forged}) == 3
