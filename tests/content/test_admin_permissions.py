"""Roles and per-object rules in the admin (content/permissions.py).

A teacher edits their own content and content they are granted; sees published
content and shared sets of others but no other teacher's private sets or drafts.
Students never reach the admin.
"""

import pytest
from django.urls import reverse

from content.models import Status, Symbol, Visibility
from tests.factories import (
    KnowledgeQuestionFactory,
    SymbolFactory,
    SymbolSetFactory,
)

pytestmark = pytest.mark.django_db


def change_url(obj):
    return reverse(f"admin:content_{obj._meta.model_name}_change", args=[obj.pk])


def test_student_never_reaches_the_admin(client, student):
    client.force_login(student)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302
    assert reverse("admin:login") in response["Location"]
    response = client.get(reverse("admin:content_symbol_changelist"))
    assert response.status_code == 302


def test_anonymous_is_sent_to_the_admin_login(client):
    response = client.get(reverse("admin:content_symbol_changelist"))
    assert response.status_code == 302


def test_teacher_does_not_see_another_teachers_private_set(client, teacher, other_teacher):
    private = SymbolSetFactory(owner=other_teacher, name="Private of B")
    shared = SymbolSetFactory(owner=other_teacher, name="Shared of B", visibility=Visibility.SHARED)
    client.force_login(teacher)
    listing = client.get(reverse("admin:content_symbolset_changelist")).content.decode()
    assert "Shared of B" in listing
    assert "Private of B" not in listing
    assert client.get(change_url(private)).status_code == 302  # "doesn't exist" redirect
    assert client.get(change_url(shared)).status_code == 200


def test_teacher_sees_published_content_of_others_read_only(client, teacher, other_teacher):
    symbol = SymbolFactory(owner=other_teacher, name="Published of B")
    client.force_login(teacher)
    response = client.get(change_url(symbol))
    assert response.status_code == 200
    assert b'name="name"' not in response.content  # a view page, not a form
    response = client.post(change_url(symbol), {"name": "Hacked"})
    assert response.status_code == 403
    symbol.refresh_from_db()
    assert symbol.name == "Published of B"


def test_teacher_does_not_see_another_teachers_draft(client, teacher, other_teacher):
    draft = SymbolFactory(owner=other_teacher, status=Status.DRAFT, name="Draft of B")
    client.force_login(teacher)
    listing = client.get(reverse("admin:content_symbol_changelist")).content.decode()
    assert "Draft of B" not in listing
    assert client.get(change_url(draft)).status_code == 302


def test_granted_editor_may_change_but_not_delete(client, teacher, other_teacher):
    question = KnowledgeQuestionFactory(owner=other_teacher)
    question.editors.add(teacher)
    client.force_login(teacher)
    page = client.get(change_url(question))
    assert page.status_code == 200
    assert b'name="front"' in page.content
    delete_url = reverse("admin:content_knowledgequestion_delete", args=[question.pk])
    assert client.post(delete_url, {"post": "yes"}).status_code == 403
    assert question.__class__.objects.filter(pk=question.pk).exists()


def test_owner_may_delete_own_content(client, teacher):
    question = KnowledgeQuestionFactory(owner=teacher)
    client.force_login(teacher)
    delete_url = reverse("admin:content_knowledgequestion_delete", args=[question.pk])
    assert client.post(delete_url, {"post": "yes"}).status_code == 302
    assert not question.__class__.objects.filter(pk=question.pk).exists()


def test_bulk_publish_skips_rows_the_teacher_may_not_change(client, teacher, other_teacher):
    mine = SymbolFactory(owner=teacher, status=Status.DRAFT)
    theirs = SymbolFactory(owner=other_teacher, status=Status.PUBLISHED)
    client.force_login(teacher)
    client.post(
        reverse("admin:content_symbol_changelist"),
        {"action": "unpublish", "_selected_action": [mine.pk, theirs.pk]},
    )
    theirs.refresh_from_db()
    assert theirs.status == Status.PUBLISHED
    client.post(
        reverse("admin:content_symbol_changelist"), {"action": "publish", "_selected_action": [mine.pk]}
    )
    mine.refresh_from_db()
    assert mine.status == Status.PUBLISHED


def test_new_content_is_owned_by_the_teacher_who_made_it(client, teacher):
    client.force_login(teacher)
    response = client.post(
        reverse("admin:content_knowledgequestion_add"),
        {
            "category": "letter",
            "front": "Which?",
            "back": "Odpowiedź: C.",
            "answer": "c",
            "language": "pl",
            "status": "draft",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    question = teacher.__class__.objects.get(pk=teacher.pk)
    from content.models import KnowledgeQuestion

    created = KnowledgeQuestion.objects.get(front="Which?")
    assert created.owner == question
    assert created.answer == ["C"]


def test_admin_sees_and_changes_everything(client, admin_user, other_teacher):
    private = SymbolSetFactory(owner=other_teacher)
    draft = SymbolFactory(owner=other_teacher, status=Status.DRAFT)
    client.force_login(admin_user)
    assert client.get(change_url(private)).status_code == 200
    page = client.get(change_url(draft))
    assert b'name="name"' in page.content


def test_teacher_cannot_manage_users(client, teacher):
    client.force_login(teacher)
    assert client.get(reverse("admin:lms_user_changelist")).status_code == 403


def test_add_to_set_action_appends_symbols_in_order(client, teacher):
    symbol_set = SymbolSetFactory(owner=teacher)
    symbols = [SymbolFactory(owner=teacher) for _ in range(3)]
    client.force_login(teacher)
    response = client.post(
        reverse("admin:content_symbol_changelist"),
        {
            "action": "add_to_set",
            "apply": "1",
            "symbol_set": symbol_set.pk,
            "_selected_action": [s.pk for s in symbols],
        },
    )
    assert response.status_code == 302
    assert list(symbol_set.members.values_list("symbol_id", flat=True)) == sorted(s.pk for s in symbols)


def test_add_to_set_refuses_another_teachers_set(client, teacher, other_teacher):
    theirs = SymbolSetFactory(owner=other_teacher, visibility=Visibility.SHARED)
    symbol = SymbolFactory(owner=teacher)
    client.force_login(teacher)
    client.post(
        reverse("admin:content_symbol_changelist"),
        {
            "action": "add_to_set",
            "apply": "1",
            "symbol_set": theirs.pk,
            "_selected_action": [symbol.pk],
        },
    )
    assert not theirs.members.exists()
    assert Symbol.objects.count() == 1
