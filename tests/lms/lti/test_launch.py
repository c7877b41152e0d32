"""Login, launch, deep linking, grade passback and rosters against a real LTI 1.3 platform."""

from __future__ import annotations

import importlib.metadata
from decimal import Decimal
from pathlib import Path

import pylti1p3
import pytest
import requests
from lti_tool.models import LtiUser

from lms import grading
from lms.lti import scores
from lms.lti.models import AssignmentLink, ClassLink, LtiResourceLink, OutboxScore
from lms.models import Assignment, ClassMember, Grade, Role, Submission
from tests.lms.factories_classes import class_with_students, practice_homework
from tests.lms.lti.conftest import student_person, teacher_person
from tests.lms.lti.platform import PendingLaunch, form_of

pytestmark = pytest.mark.django_db


def test_the_lti_core_is_pylti1p3_2_0_0_not_the_fork():
    """Both distributions install ``pylti1p3/``; the files Talia runs are PyLTI1p3 2.0.0's."""
    dist = importlib.metadata.distribution("PyLTI1p3")
    assert dist.version == "2.0.0"
    files = {str(dist.locate_file(f)) for f in dist.files or []}
    assert str(Path(pylti1p3.__file__)) in files
    with pytest.raises(importlib.metadata.PackageNotFoundError):
        importlib.metadata.distribution("pylti1p3next")


def test_login_initiation_answers_with_a_get_redirect_and_a_state_cookie(browser, registration):
    response = browser.login(PendingLaunch(teacher_person(), "c1", "History 3b", resource_link_id="rl-1"))
    assert response.status_code == 302
    assert response["Location"].startswith(browser.platform.url + "/auth?")
    assert "response_mode=form_post" in response["Location"]
    assert any(name.startswith("lti-state-") for name in response.cookies)


def test_teacher_first_launch_makes_the_class_and_lands_on_its_dashboard(browser, registration):
    response = browser.launch(PendingLaunch(teacher_person(), "c1", "History 3b", resource_link_id="rl-1"))
    # No assignment yet for this activity: the teacher chooses one.
    assert response.status_code == 302 and "/lti/pick/" in response["Location"]
    lti_user = LtiUser.objects.get(registration=registration, sub="t-1")
    assert lti_user.auth_user.role == Role.TEACHER
    link = ClassLink.objects.get(context__id_on_platform="c1")
    assert link.school_class.name == "History 3b"
    assert link.school_class.teacher == lti_user.auth_user


def test_student_before_any_teacher_is_told_to_wait(browser, registration):
    response = browser.launch(PendingLaunch(student_person(), "c1", "History 3b", resource_link_id="rl-1"))
    assert response.status_code == 409
    assert b"teacher has not opened Talia" in response.content


def test_deep_link_then_student_launch_then_score_read_back_then_roster(
    browser, registration, client, django_capture_on_commit_callbacks
):
    platform = browser.platform
    teacher = teacher_person()
    # The teacher's homework template, in a Talia class of their own.
    first = browser.launch(PendingLaunch(teacher, "course-7", "Historia 7a", deep_link=True))
    assert first.status_code == 302 and "/lti/pick/" in first["Location"]
    lti_teacher = LtiUser.objects.get(sub="t-1").auth_user
    template = practice_homework(
        class_with_students(lti_teacher, name="Szablony"), title="Symbole PRL", points_possible=20
    )

    # The picker lists it; choosing it answers the LMS with a signed deep-linking response.
    picker = client.get(first["Location"])
    assert picker.status_code == 200 and "Symbole PRL" in picker.content.decode()
    answer = client.post(first["Location"], {"template": f"assignment:{template.pk}", "points": "25"})
    assert answer.status_code == 200
    action, fields = form_of(answer.content.decode())
    returned = requests.post(action, data=fields, timeout=5)
    assert returned.status_code == 200, returned.text
    item = platform.deep_link_items[-1]
    assert item["type"] == "ltiResourceLink"
    assert item["lineItem"]["scoreMaximum"] == 25.0 and item["lineItem"]["label"] == "Symbole PRL"
    assert "talia_assignment" in item["custom"]
    made = Assignment.objects.get(school_class__lti_links__context__id_on_platform="course-7")
    assert made.points_possible == Decimal("25") and made.published

    # The student opens the activity the LMS made from the content item.
    student = student_person()
    launched = browser.launch(
        PendingLaunch(
            student,
            "course-7",
            "Historia 7a",
            resource_link_id=item["_resource_link_id"],
            custom=item["custom"],
        )
    )
    assert launched.status_code == 302
    assert launched["Location"].endswith(f"/classes/homework/{made.pk}/")
    lti_student = LtiUser.objects.get(sub="s-1").auth_user
    assert lti_student.role == Role.STUDENT
    assert ClassMember.objects.filter(
        school_class=made.school_class, user=lti_student, role="student"
    ).exists()
    link = AssignmentLink.objects.get(assignment=made)
    assert link.lineitem_url == item["_lineitem_id"]

    # A graded attempt goes to the LMS's gradebook: posted by the task, read back from the platform.
    platform.tool_jwks = client.get("/lti/jwks/").json()
    submission = Submission.objects.create(assignment=made, student=lti_student, number=1)
    with django_capture_on_commit_callbacks(execute=True):
        grading.submission_score(submission=submission, fraction=Decimal("0.8"))
    row = OutboxScore.objects.get()
    assert row.status == OutboxScore.Status.DELIVERED, row.last_error
    results = platform.results(item["_lineitem_id"])
    assert [(r["userId"], r["resultScore"], r["resultMaximum"]) for r in results] == [("s-1", 20.0, 25.0)]
    score = platform.lineitems[item["_lineitem_id"]].scores["s-1"]
    assert score["activityProgress"] == "Completed" and score["gradingProgress"] == "FullyGraded"
    assert "T" in score["timestamp"]

    # The teacher lands on the class dashboard; the roster lists students who never launched.
    platform.members["course-7"] = [teacher, student, student_person(2), student_person(3)]
    back = browser.launch(
        PendingLaunch(
            teacher,
            "course-7",
            "Historia 7a",
            resource_link_id=item["_resource_link_id"],
            custom=item["custom"],
        )
    )
    assert back.status_code == 302 and back["Location"].endswith(f"/classes/{made.school_class.pk}/")
    synced = client.post(f"/lti/class/{made.school_class.pk}/roster/")
    assert synced.status_code == 302
    subs = set(
        LtiUser.objects.filter(auth_user__class_memberships__school_class=made.school_class).values_list(
            "sub", flat=True
        )
    )
    assert {"s-1", "s-2", "s-3"} <= subs
    page = client.get(f"/lti/class/{made.school_class.pk}/scores/")
    assert page.status_code == 200 and "Accepted by the LMS" in page.content.decode()


def test_a_failed_score_is_shown_and_can_be_resent(
    browser, registration, client, django_capture_on_commit_callbacks, settings
):
    settings.LTI_SCORE_MAX_ATTEMPTS = 2
    platform = browser.platform
    teacher, student = teacher_person(), student_person()
    browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    school_class = ClassLink.objects.get().school_class
    assignment = practice_homework(school_class, title="Praca domowa")
    item = platform.lineitem_add(label="Praca domowa", score_maximum=10, resource_link_id="rl-x")
    # Attach the activity to the homework (the teacher's picker, without deep linking).
    pick = browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    client.post(pick["Location"], {"template": f"assignment:{assignment.pk}"})
    link = AssignmentLink.objects.get(resource_link__id_on_platform="rl-x")
    browser.launch(PendingLaunch(student, "c9", "Klasa 9", resource_link_id="rl-x"))
    lti_student = LtiUser.objects.get(sub="s-1").auth_user
    platform.tool_jwks = client.get("/lti/jwks/").json()
    platform.fail_rate = 1.0
    submission = Submission.objects.create(assignment=link.assignment, student=lti_student, number=1)
    with django_capture_on_commit_callbacks(execute=True):
        grading.submission_score(submission=submission, fraction=Decimal("0.5"))
    row = OutboxScore.objects.get()
    assert row.status == OutboxScore.Status.PENDING and row.attempts == 1 and row.next_attempt_at
    # The retry (a worker's countdown, or the sweep in the embedded mode) fails again: given up.
    assert scores.score_deliver(outbox_id=row.pk) is None
    row.refresh_from_db()
    assert row.status == OutboxScore.Status.FAILED and row.attempts == 2 and "503" in row.last_error
    assert "s-1" not in platform.lineitems[item.id].scores

    browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    platform.fail_rate = 0.0
    with django_capture_on_commit_callbacks(execute=True):
        resent = client.post(f"/lti/scores/{row.pk}/resend/")
    assert resent.status_code == 302
    row.refresh_from_db()
    assert row.status == OutboxScore.Status.DELIVERED
    assert platform.lineitems[item.id].scores["s-1"]["scoreGiven"] == float(Grade.objects.get().score)


def test_one_attempt_is_queued_once(browser, registration, client, django_capture_on_commit_callbacks):
    from lms.lti.outbox import score_enqueue

    platform = browser.platform
    teacher, student = teacher_person(), student_person()
    browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    school_class = ClassLink.objects.get().school_class
    assignment = practice_homework(school_class, title="Praca domowa")
    platform.lineitem_add(label="Praca domowa", score_maximum=10, resource_link_id="rl-x")
    pick = browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    client.post(pick["Location"], {"template": f"assignment:{assignment.pk}"})
    link = AssignmentLink.objects.get()
    browser.launch(PendingLaunch(student, "c9", "Klasa 9", resource_link_id="rl-x"))
    lti_student = LtiUser.objects.get(sub="s-1").auth_user
    platform.fail_rate = 1.0  # keep the row pending
    submission = Submission.objects.create(assignment=link.assignment, student=lti_student, number=1)
    grade = grading.submission_score(submission=submission, fraction=Decimal("0.5"))
    score_enqueue(grade=grade)
    score_enqueue(grade=grade)
    assert OutboxScore.objects.count() == 1


def test_a_newer_score_supersedes_an_older_one_still_waiting(
    browser, registration, client, django_capture_on_commit_callbacks
):
    """The LMS ends with the newest counted grade; the older row is never sent after it."""
    platform = browser.platform
    teacher, student = teacher_person(), student_person()
    browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    school_class = ClassLink.objects.get().school_class
    assignment = practice_homework(school_class, title="Praca domowa", policy="last", max_attempts=3)
    item = platform.lineitem_add(label="Praca domowa", score_maximum=10, resource_link_id="rl-x")
    pick = browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    client.post(pick["Location"], {"template": f"assignment:{assignment.pk}"})
    link = AssignmentLink.objects.get()
    browser.launch(PendingLaunch(student, "c9", "Klasa 9", resource_link_id="rl-x"))
    lti_student = LtiUser.objects.get(sub="s-1").auth_user
    platform.tool_jwks = client.get("/lti/jwks/").json()
    first = Submission.objects.create(assignment=link.assignment, student=lti_student, number=1)
    second = Submission.objects.create(assignment=link.assignment, student=lti_student, number=2)
    grading.submission_score(submission=first, fraction=Decimal("0.3"))  # queued, not yet sent
    grading.submission_score(submission=second, fraction=Decimal("0.9"))
    older, newer = OutboxScore.objects.order_by("timestamp", "pk")
    assert scores.score_deliver(outbox_id=newer.pk) is None
    assert scores.score_deliver(outbox_id=older.pk) is None
    older.refresh_from_db()
    newer.refresh_from_db()
    assert (older.status, newer.status) == (OutboxScore.Status.SUPERSEDED, OutboxScore.Status.DELIVERED)
    assert platform.lineitems[item.id].scores["s-1"]["scoreGiven"] == 9.0


def test_a_teacher_cannot_use_another_persons_launch_page(browser, registration, client):
    first = browser.launch(PendingLaunch(teacher_person(1), "c1", "A", resource_link_id="rl-1"))
    pick_url = first["Location"]
    browser.launch(PendingLaunch(teacher_person(2), "c2", "B", resource_link_id="rl-2"))
    response = client.get(pick_url)
    assert response.status_code == 403 and b"launch that has ended" in response.content


@pytest.mark.parametrize("deep_link", [False, True])
def test_a_pick_whose_lms_rows_were_removed_is_refused_and_makes_no_homework(
    browser, registration, client, deep_link
):
    """The picker's launch lost its LMS rows (an administrator removed the activity or the
    registration) before the teacher chose: refused, and the chosen template is not copied."""
    launch = PendingLaunch(teacher_person(), "c1", "A", deep_link=deep_link, resource_link_id="rl-1")
    first = browser.launch(launch)
    template = practice_homework(
        class_with_students(LtiUser.objects.get(sub="t-1").auth_user, name="Szablony"), title="Symbole"
    )
    before = Assignment.objects.count()
    if deep_link:
        registration.is_active = False
        registration.save(update_fields=["is_active"])
    else:
        LtiResourceLink.objects.filter(id_on_platform="rl-1").delete()
    response = client.post(first["Location"], {"template": f"assignment:{template.pk}"})
    assert response.status_code == 403 and b"launch that has ended" in response.content
    assert Assignment.objects.count() == before
    assert not AssignmentLink.objects.exists()


def test_an_unknown_template_is_refused_with_a_message(browser, registration, client):
    first = browser.launch(PendingLaunch(teacher_person(), "c1", "A", resource_link_id="rl-1"))
    response = client.post(first["Location"], {"template": "assignment:999999"})
    assert response.status_code == 400 and b"not one of yours" in response.content
    assert not AssignmentLink.objects.exists()


def test_the_login_state_and_session_cookies_are_secure_and_cross_site_under_https(
    browser, registration, client, scheme, settings
):
    """Inside the LMS's frame the launch is a cross-site POST: under HTTPS the cookies it needs
    are Secure and SameSite=None; over plain HTTP (development) neither can be."""
    login = browser.login(PendingLaunch(teacher_person(), "c1", "History 3b", resource_link_id="rl-1"))
    (state_cookie,) = [c for name, c in login.cookies.items() if name.startswith("lti-state-")]
    launched = browser.post_launch(*browser.authenticate(login))
    assert launched.status_code == 302
    session_cookie = launched.cookies[settings.SESSION_COOKIE_NAME]
    if scheme == "https":
        assert settings.SESSION_COOKIE_NAME == "__Secure-sessionid"
        for cookie in (state_cookie, session_cookie):
            assert cookie["secure"] is True and cookie["samesite"] == "None"
    else:
        assert not state_cookie["secure"] and not session_cookie["secure"]
    assert client.session["_auth_user_id"] == str(LtiUser.objects.get(sub="t-1").auth_user.pk)
