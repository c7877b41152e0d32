"""The library's pages (content/library_views.py): who may use them, the filters, the
preview, one-click copy, publishing from the admin and taking out again."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from content import library
from content.models import LibraryEntry, Period, Status, SymbolSet
from tests.factories import (
    ActivityCardFactory,
    CollectionFactory,
    SymbolFactory,
    ThemeFactory,
    symbol_set_with,
)

from .packaging import picture_set, png_bytes

Kind = LibraryEntry.Kind


@pytest.fixture
def entry(teacher):
    collection = CollectionFactory(slug="znaki-szkoly", name="Znaki naszej szkoły")
    anchor = SymbolFactory(
        owner=teacher, collection=collection, number=7, name="Kotwica", status=Status.DRAFT
    )
    picture_set(anchor, png_bytes())
    symbol_set = symbol_set_with([anchor], owner=teacher, name="Znaki 1944", slug="znaki-1944")
    return library.library_publish(
        user=teacher,
        kind=Kind.SYMBOL_SET,
        rows={"symbol_sets": [symbol_set.pk]},
        title="Znaki Powstania",
        language="pl",
        themes=[ThemeFactory(slug="symbole", name="Symbole")],
        periods=[Period.objects.get(slug="ii-wojna-swiatowa")],
    )


def _messages(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_a_student_gets_403_and_an_anonymous_user_the_login(client, student, entry):
    pages = [
        reverse("content:library"),
        reverse("content:library_entry", args=[entry.pk]),
        f"{reverse('content:library_publish')}?model=symbolset&ids={entry.symbol_set_id}",
    ]
    for url in pages:
        assert client.get(url).status_code == 302
    client.force_login(student)
    for url in pages:
        assert client.get(url).status_code == 403
    assert client.post(reverse("content:library_copy", args=[entry.pk])).status_code == 403
    assert not SymbolSet.objects.filter(owner=student).exists()


def test_the_library_lists_entries_by_the_filters(client, teacher, other_teacher, entry):
    cards = library.library_publish(
        user=teacher,
        kind=Kind.ACTIVITY_CARDS,
        rows={"activity_cards": [ActivityCardFactory(owner=teacher).pk]},
        title="Cards for English lessons",
        language="en",
    )
    client.force_login(other_teacher)

    def titles(**query) -> str:
        return client.get(reverse("content:library"), query).content.decode()

    everything = titles()
    assert "Znaki Powstania" in everything and "Cards for English lessons" in everything
    by_game = titles(kind="activity_cards")
    assert "Cards for English lessons" in by_game and "Znaki Powstania" not in by_game
    by_theme = titles(theme=entry.themes.get().pk)
    assert "Znaki Powstania" in by_theme and "Cards for English lessons" not in by_theme
    by_period = titles(period=Period.objects.get(slug="prl").pk)
    assert "Znaki Powstania" not in by_period and "Nothing in the library matches" in by_period
    by_language = titles(language="en")
    assert "Cards for English lessons" in by_language and "Znaki Powstania" not in by_language
    assert cards.pk


def test_a_bad_filter_is_a_message_not_a_500(client, other_teacher, entry):
    client.force_login(other_teacher)
    response = client.get(reverse("content:library"), {"theme": "999999", "language": "xx"})
    assert response.status_code == 200
    assert "Select a valid choice" in response.content.decode()


def test_the_preview_shows_the_items_and_their_pictures(client, other_teacher, entry):
    client.force_login(other_teacher)
    page = client.get(reverse("content:library_entry", args=[entry.pk])).content.decode()
    symbol = entry.symbol_set.symbols.get()
    picture = reverse("content:library_symbol_picture", args=[entry.pk, symbol.pk])
    assert "007 Kotwica" in page
    assert picture in page
    assert "Copy to my content" in page
    assert "Take out of the library" not in page  # only the publisher
    response = client.get(picture)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    # The picture of a symbol outside the entry is not served through it.
    other = SymbolFactory(number=8)
    assert client.get(reverse("content:library_symbol_picture", args=[entry.pk, other.pk])).status_code == 404


def test_copy_makes_the_teachers_own_set_and_opens_it(client, other_teacher, entry):
    client.force_login(other_teacher)
    response = client.post(reverse("content:library_copy", args=[entry.pk]))

    copy = SymbolSet.objects.get(owner=other_teacher)
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:content_symbolset_change", args=[copy.pk])
    assert copy.copied_from == entry
    page = client.get(response["Location"]).content.decode()
    assert "From the library" in page
    assert "Znaki Powstania" in page
    assert reverse("content:library_entry", args=[entry.pk]) in page


def test_copy_of_cards_lists_the_copies(client, teacher, other_teacher):
    card = ActivityCardFactory(owner=teacher, title="Wojna")
    cards = library.library_publish(
        user=teacher, kind=Kind.ACTIVITY_CARDS, rows={"activity_cards": [card.pk]}, title="Karty"
    )
    client.force_login(other_teacher)
    response = client.post(reverse("content:library_copy", args=[cards.pk]), follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0].endswith(f"?copied_from__id__exact={cards.pk}")
    assert "Wojna" in response.content.decode()


def test_copying_an_unpublished_or_missing_entry_says_so(client, teacher, other_teacher, entry):
    library.library_unpublish(user=teacher, entry=entry)
    client.force_login(other_teacher)
    for pk in (entry.pk, entry.pk + 1000):
        response = client.post(reverse("content:library_copy", args=[pk]))
        assert response.status_code == 302
        assert response["Location"] == reverse("content:library")
        assert any("not in the library" in m for m in _messages(response))
    assert not SymbolSet.objects.filter(owner=other_teacher).exists()
    # Taken out: other teachers no longer open it; its publisher does.
    assert client.get(reverse("content:library_entry", args=[entry.pk])).status_code == 404
    client.force_login(teacher)
    assert client.get(reverse("content:library_entry", args=[entry.pk])).status_code == 200


def test_copy_is_post_only(client, other_teacher, entry):
    client.force_login(other_teacher)
    assert client.get(reverse("content:library_copy", args=[entry.pk])).status_code == 405


def test_only_the_publisher_takes_an_entry_out(client, teacher, other_teacher, entry):
    client.force_login(other_teacher)
    assert client.post(reverse("content:library_unpublish", args=[entry.pk])).status_code == 403
    entry.refresh_from_db()
    assert entry.published
    client.force_login(teacher)
    assert client.post(reverse("content:library_unpublish", args=[entry.pk])).status_code == 302
    entry.refresh_from_db()
    assert not entry.published


def test_the_admin_action_leads_to_the_publish_page_which_publishes(client, teacher):
    card = ActivityCardFactory(owner=teacher, language="en")
    client.force_login(teacher)
    response = client.post(
        reverse("admin:content_activitycard_changelist"),
        {"action": "publish_to_library", "_selected_action": [card.pk]},
    )
    assert response.status_code == 302
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert 'value="en" selected' in page.content.decode()  # the cards' language proposed

    posted = client.post(
        reverse("content:library_publish"),
        {"model": "activitycard", "ids": str(card.pk), "title": "Angielskie karty", "language": "en"},
    )
    entry = LibraryEntry.objects.get()
    assert posted["Location"] == reverse("content:library_entry", args=[entry.pk])
    assert list(entry.activity_cards.all()) == [card]


def test_publishing_another_teachers_content_is_refused_with_a_message(client, teacher, other_teacher):
    card = ActivityCardFactory(owner=teacher)
    client.force_login(other_teacher)
    response = client.post(
        reverse("content:library_publish"),
        {"model": "activitycard", "ids": str(card.pk), "title": "Cudze", "language": "pl"},
    )
    assert response.status_code == 200
    assert "only your own content" in response.content.decode()
    assert not LibraryEntry.objects.exists()


def test_admins_see_the_library_in_the_admin_and_take_entries_out_teachers_do_not(
    client, admin_user, other_teacher, entry
):
    changelist = reverse("admin:content_libraryentry_changelist")
    client.force_login(other_teacher)
    assert client.get(changelist).status_code == 403
    client.force_login(admin_user)
    assert "Znaki Powstania" in client.get(changelist).content.decode()
    assert client.get(reverse("admin:content_libraryentry_change", args=[entry.pk])).status_code == 200

    client.post(changelist, {"action": "take_out", "_selected_action": [entry.pk]})

    entry.refresh_from_db()
    assert not entry.published
