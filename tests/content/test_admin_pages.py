"""Every admin page for every model loads with the demo data, for an admin and a teacher."""

import pytest
from django.contrib import admin
from django.urls import reverse

from content.demo.loader import demo_content
from lms.demo import demo_users
from lms.models import User

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo():
    logins = demo_users()
    teacher = User.objects.get(username=next(x.username for x in logins if x.role == "teacher"))
    demo_content(owner=teacher)
    return teacher


def admin_urls(user):
    urls = [reverse("admin:index")]
    for model, model_admin in admin.site._registry.items():
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        if not model_admin.has_view_or_change_permission(_Request(user)):
            continue
        urls.append(reverse(f"{prefix}_changelist"))
        urls.append(reverse(f"{prefix}_changelist") + "?q=a")
        if model_admin.has_add_permission(_Request(user)):
            urls.append(reverse(f"{prefix}_add"))
        obj = model_admin.get_queryset(_Request(user)).first()
        if obj is not None:
            urls.append(reverse(f"{prefix}_change", args=[obj.pk]))
            urls.append(reverse(f"{prefix}_history", args=[obj.pk]))
            if model_admin.has_delete_permission(_Request(user), obj):
                urls.append(reverse(f"{prefix}_delete", args=[obj.pk]))
    return urls


class _Request:
    def __init__(self, user):
        self.user = user
        self.GET = {}
        self.resolver_match = None


@pytest.mark.parametrize("who", ["admin", "teacher"])
def test_every_admin_page_loads_with_the_demo_data(client, demo, admin_user, who):
    user = admin_user if who == "admin" else demo
    client.force_login(user)
    urls = admin_urls(user)
    assert len(urls) > 20
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, f"{url} answered {response.status_code}"


def test_demo_content_is_worth_looking_at(demo):
    from content.models import ActivityCard, KnowledgeQuestion, Symbol, SymbolSet

    assert Symbol.objects.count() >= 57
    assert Symbol.objects.exclude(picture="").count() == Symbol.objects.count()
    assert ActivityCard.objects.count() >= 30
    assert KnowledgeQuestion.objects.count() >= 60
    for category in ("number", "letter", "colour"):
        assert KnowledgeQuestion.objects.filter(category=category).count() >= 15
    assert SymbolSet.objects.get(slug="znajznak-demo-57").members.count() == 57
    assert len(set(Symbol.objects.values_list("name", flat=True))) == Symbol.objects.count()


def test_demo_load_runs_twice_without_duplicating(demo):
    from content.models import ActivityCard, Symbol

    before = (Symbol.objects.count(), ActivityCard.objects.count())
    demo_content(owner=demo)
    demo_users()
    assert (Symbol.objects.count(), ActivityCard.objects.count()) == before


def test_symbol_set_page_says_which_decks_it_can_make(client, demo):
    from content.models import SymbolSet

    client.force_login(demo)
    symbol_set = SymbolSet.objects.get(slug="znajznak-demo-57")
    page = client.get(reverse("admin:content_symbolset_change", args=[symbol_set.pk]))
    assert "57 symbols: order 7, 8 symbols per card, 57 cards" in page.content.decode()


@pytest.mark.parametrize(
    ("category", "answer", "message"),
    [
        ("number", "7", "a whole number from 0 to 5, not 7."),
        ("colour", "purple", "one or more of red, yellow, green, blue, white, not &#x27;purple&#x27;."),
        ("number", "", "This field is required."),
    ],
)
def test_a_knowledge_answer_that_does_not_fit_is_told_once(client, admin_user, category, answer, message):
    client.force_login(admin_user)
    page = client.post(
        reverse("admin:content_knowledgequestion_add"),
        {"category": category, "front": "Ile?", "back": "Tyle.", "answer": answer, "language": "pl"},
    ).content.decode()
    errors = page[page.index('<div class="form-row errors field-answer') :]
    errors = errors[: errors.index("</ul>")]
    assert message in errors
    assert errors.count("<li>") == 1, errors
    assert "None" not in errors
