"""Progress columns against the real platform: a teacher publishes mastery per period or theme,
the platform's gradebook gets the line item and each student's score, and the score follows
the student's answers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from lti_tool.models import LtiContext, LtiDeployment, LtiUser

from content.models import Period
from lms.classes.errors import ClassError
from lms.lti import columns, connector, tasks
from lms.lti.models import ClassLink, OutboxScore, ProgressColumn
from lms.progress.services import memory_review
from tests.factories import SymbolFactory, TeacherFactory, ThemeFactory
from tests.lms.factories_classes import practice_homework
from tests.lms.lti.conftest import student_person, teacher_person
from tests.lms.lti.platform import PendingLaunch

pytestmark = pytest.mark.django_db


@pytest.fixture
def course(browser, registration, client):
    """A course opened by its teacher and three students; returns the class link and the teacher."""
    platform = browser.platform
    teacher = teacher_person()
    browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    link = ClassLink.objects.get()
    assignment = practice_homework(link.school_class, title="Praca domowa")
    pick = browser.launch(PendingLaunch(teacher, "c9", "Klasa 9", resource_link_id="rl-x"))
    client.post(pick["Location"], {"template": f"assignment:{assignment.pk}"})
    for n in (1, 2, 3):
        browser.launch(PendingLaunch(student_person(n), "c9", "Klasa 9", resource_link_id="rl-x"))
    platform.tool_jwks = client.get("/lti/jwks/").json()
    return link, LtiUser.objects.get(sub="t-1").auth_user


def _student(n):
    return LtiUser.objects.get(sub=f"s-{n}").auth_user


def _answer(n, symbol, correct, **kwargs):
    memory_review(user=_student(n), item_key=f"symbol:{symbol.pk}", correct=correct, **kwargs)


def _gradebook(platform, label):
    """The platform's line item called ``label`` and its results by LMS user, read over AGS."""
    [item] = [item for item in platform.lineitems.values() if item.label == label]
    return item, {r["userId"]: r["resultScore"] for r in platform.results(item.id)}


def test_a_published_column_reaches_the_gradebook_with_each_students_mastery(course, platform):
    link, teacher = course
    ii_rp = Period.objects.get(slug="ii-rp")
    symbol = SymbolFactory(periods=[ii_rp])
    earlier = timezone.now() - timedelta(days=2)
    _answer(1, symbol, True, reviewed_at=earlier)
    _answer(2, symbol, False, reviewed_at=earlier)

    [column] = columns.progress_columns_publish(
        school_class=link.school_class, by=teacher, keys=[f"period:{ii_rp.pk}"]
    )
    assert tasks.scores_sweep() == 2  # no on_commit in a test transaction: the sweep sends them

    item, results = _gradebook(platform, f"Mastery: {ii_rp}")
    assert (
        item.score_maximum == 100 and item.tag == "talia-progress" and item.resource_id == column.resource_id
    )
    assert column.lineitem_url == item.id
    assert set(results) == {"s-1", "s-2"}  # student 3 met no symbol of the period: no score, not 0
    assert results["s-1"] > results["s-2"] >= 0 and results["s-1"] <= 100
    assert set(OutboxScore.objects.filter(column=column).values_list("status", flat=True)) == {"delivered"}


def test_the_column_changes_in_the_gradebook_when_a_students_mastery_changes(
    course, platform, django_capture_on_commit_callbacks
):
    link, teacher = course
    people = ThemeFactory(name="People")
    symbol = SymbolFactory()
    symbol.themes.add(people)
    _answer(1, symbol, False, reviewed_at=timezone.now() - timedelta(days=2))
    columns.progress_columns_publish(school_class=link.school_class, by=teacher, keys=[f"theme:{people.pk}"])
    tasks.scores_sweep()
    _item, results = _gradebook(platform, "Mastery: People")
    before = results["s-1"]

    # The answer is stored as a quiz stores it; after the commit the student's columns are
    # refreshed (tasks run in-process here) and the new score is delivered.
    with django_capture_on_commit_callbacks(execute=True):
        _answer(1, symbol, True)
    _item, results = _gradebook(platform, "Mastery: People")
    assert results["s-1"] > before
    assert list(results) == ["s-1"]
    assert OutboxScore.objects.filter(column__theme=people, status="delivered").count() == 2


def test_a_refresh_sends_only_what_changed(course, platform):
    link, teacher = course
    ii_rp = Period.objects.get(slug="ii-rp")
    symbol = SymbolFactory(periods=[ii_rp])
    _answer(1, symbol, True, reviewed_at=timezone.now() - timedelta(hours=1))
    columns.progress_columns_publish(school_class=link.school_class, by=teacher, keys=[f"period:{ii_rp.pk}"])
    assert OutboxScore.objects.filter(column__isnull=False).count() == 1
    assert columns.progress_scores_refresh() == 0
    assert columns.progress_scores_refresh(student_ids=[_student(1).pk]) == 0
    assert OutboxScore.objects.filter(column__isnull=False).count() == 1


def test_answers_waiting_for_their_first_try_are_coalesced_into_one_row(course, platform):
    link, teacher = course
    ii_rp = Period.objects.get(slug="ii-rp")
    symbol = SymbolFactory(periods=[ii_rp])
    _answer(1, symbol, False, reviewed_at=timezone.now() - timedelta(days=3))
    columns.progress_columns_publish(school_class=link.school_class, by=teacher, keys=[f"period:{ii_rp.pk}"])
    first = OutboxScore.objects.get(column__isnull=False)
    _answer(1, symbol, True)
    assert columns.progress_scores_refresh(student_ids=[_student(1).pk]) == 1
    row = OutboxScore.objects.get(column__isnull=False)
    assert row.pk == first.pk and row.score_given > first.score_given and row.attempts == 0


def test_a_refresh_is_queued_once_per_student_until_it_runs(course, platform, settings, monkeypatch):
    link, teacher = course
    ii_rp = Period.objects.get(slug="ii-rp")
    columns.progress_columns_publish(school_class=link.school_class, by=teacher, keys=[f"period:{ii_rp.pk}"])
    queued = []
    monkeypatch.setattr(tasks.progress_refresh, "apply_async", lambda args, countdown: queued.append(args))
    student = _student(1)
    assert columns.progress_refresh_queue(user_id=student.pk) is True
    assert columns.progress_refresh_queue(user_id=student.pk) is False
    assert queued == [(student.pk,)]
    tasks.progress_refresh.run(student.pk)  # the refresh forgets its key as it starts
    assert columns.progress_refresh_queue(user_id=student.pk) is True
    # A student of no class with a published column queues nothing.
    assert columns.progress_refresh_queue(user_id=teacher.pk) is False


def test_publishing_again_reuses_the_line_item(course, platform):
    link, teacher = course
    ii_rp = Period.objects.get(slug="ii-rp")
    keys = [f"period:{ii_rp.pk}"]
    columns.progress_columns_publish(school_class=link.school_class, by=teacher, keys=keys)
    columns.progress_columns_publish(school_class=link.school_class, by=teacher, keys=keys)
    # A line item made on the LMS whose row Talia lost (a publish that failed half-way) is found again.
    ProgressColumn.objects.all().delete()
    columns.progress_columns_publish(school_class=link.school_class, by=teacher, keys=keys)
    assert [i.label for i in platform.lineitems.values()].count(f"Mastery: {ii_rp}") == 1
    assert ProgressColumn.objects.get().lineitem_url in platform.lineitems


def test_an_unpublished_column_is_no_longer_sent(course, platform):
    link, teacher = course
    ii_rp = Period.objects.get(slug="ii-rp")
    symbol = SymbolFactory(periods=[ii_rp])
    _answer(1, symbol, True, reviewed_at=timezone.now() - timedelta(hours=1))
    [column] = columns.progress_columns_publish(
        school_class=link.school_class, by=teacher, keys=[f"period:{ii_rp.pk}"]
    )
    columns.progress_column_unpublish(column_id=column.pk, by=teacher)
    assert OutboxScore.objects.get(column=column).status == OutboxScore.Status.WITHDRAWN
    assert tasks.scores_sweep() == 0
    _answer(1, symbol, False)
    assert columns.progress_scores_refresh() == 0
    item, results = _gradebook(platform, f"Mastery: {ii_rp}")
    assert results == {}  # the LMS keeps its column; Talia sent nothing
    # Published again: the same column and line item, kept current again.
    [again] = columns.progress_columns_publish(
        school_class=link.school_class, by=teacher, keys=[f"period:{ii_rp.pk}"]
    )
    assert again.pk == column.pk and again.active and again.lineitem_url == item.id
    assert OutboxScore.objects.filter(column=column, status="pending").count() == 1


@pytest.mark.parametrize("broken", ["no lineitems service", "no score scope", "deployment switched off"])
def test_a_class_whose_course_takes_no_columns_is_refused_and_nothing_is_written(course, platform, broken):
    link, teacher = course
    if broken == "no lineitems service":
        LtiContext.objects.update(lineitems_url="")
    elif broken == "no score scope":
        LtiContext.objects.update(can_publish_scores=False)
    else:
        LtiDeployment.objects.update(is_active=False)
    ii_rp = Period.objects.get(slug="ii-rp")
    before = len(platform.lineitems)
    with pytest.raises(ClassError) as refused:
        columns.progress_columns_publish(
            school_class=link.school_class, by=teacher, keys=[f"period:{ii_rp.pk}"]
        )
    assert refused.value.code == "no_gradebook"
    assert "Open Talia from the course in your LMS" in str(refused.value)
    assert not ProgressColumn.objects.exists() and len(platform.lineitems) == before


def test_a_line_item_the_lms_refuses_publishes_nothing(course, platform, monkeypatch):
    link, teacher = course
    ii_rp, prl = Period.objects.get(slug="ii-rp"), Period.objects.get(slug="prl")
    made = []

    def create(registration, url, item):
        if made:
            raise connector.ServiceError("POST answered 403: forbidden", retry=False, status=403)
        made.append(item)
        return {**item, "id": platform.url + "/lineitems/999"}

    monkeypatch.setattr(connector, "lineitem_create", create)
    with pytest.raises(ClassError) as refused:
        columns.progress_columns_publish(
            school_class=link.school_class, by=teacher, keys=[f"period:{ii_rp.pk}", f"period:{prl.pk}"]
        )
    assert refused.value.code == "lms_refused" and "403" in str(refused.value)
    assert (
        not ProgressColumn.objects.exists() and not OutboxScore.objects.filter(column__isnull=False).exists()
    )


@pytest.mark.parametrize("keys", [[], ["period:999999"], ["symbol:1"], ["period:x"]])
def test_a_choice_not_on_the_list_is_refused(course, keys):
    link, teacher = course
    with pytest.raises(ClassError):
        columns.progress_columns_publish(school_class=link.school_class, by=teacher, keys=keys)
    assert not ProgressColumn.objects.exists()


def test_only_the_classs_teachers_publish_and_unpublish(course, client):
    link, teacher = course
    ii_rp = Period.objects.get(slug="ii-rp")
    stranger = TeacherFactory()
    with pytest.raises(ClassError) as refused:
        columns.progress_columns_publish(
            school_class=link.school_class, by=stranger, keys=[f"period:{ii_rp.pk}"]
        )
    assert refused.value.code == "not_found"
    [column] = columns.progress_columns_publish(
        school_class=link.school_class, by=teacher, keys=[f"period:{ii_rp.pk}"]
    )
    with pytest.raises(ClassError):
        columns.progress_column_unpublish(column_id=column.pk, by=stranger)
    client.force_login(stranger)
    assert client.get(f"/lti/class/{link.school_class.pk}/progress-columns/").status_code == 404
    assert client.post(f"/lti/progress-columns/{column.pk}/unpublish/").status_code == 404
    column.refresh_from_db()
    assert column.active


def test_the_teacher_publishes_from_the_page_and_sees_the_delivery_status(course, client, platform):
    link, teacher = course
    ii_rp = Period.objects.get(slug="ii-rp")
    symbol = SymbolFactory(periods=[ii_rp])
    _answer(1, symbol, True, reviewed_at=timezone.now() - timedelta(hours=1))
    client.force_login(teacher)
    page = client.get(f"/lti/class/{link.school_class.pk}/progress-columns/")
    assert page.status_code == 200 and f"period:{ii_rp.pk}" in page.content.decode()
    done = client.post(
        f"/lti/class/{link.school_class.pk}/progress-columns/", {"column": [f"period:{ii_rp.pk}"]}
    )
    assert done.status_code == 302
    scores = client.get(f"/lti/class/{link.school_class.pk}/scores/").content.decode()
    assert f"Mastery: {ii_rp}" in scores
    refused = client.post(f"/lti/class/{link.school_class.pk}/progress-columns/", {"column": ["period:x"]})
    assert (
        refused.status_code == 400 and "Choose periods and themes from the list." in refused.content.decode()
    )
