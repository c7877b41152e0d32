"""Private media: no URL serves the media folder, every kind of stored file goes only to
those its view allows, under names nobody can guess; the proxy sends the bytes when
PRIVATE_MEDIA_PREFIX is set."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import FileSystemStorage, default_storage
from django.test import Client
from django.urls import Resolver404, resolve, reverse
from django.utils import timezone

from content import building
from content.media import private_folder, random_name
from content.models import BuildState, Deck, PrintJob, Status
from games import services as game_services
from games.models import GameSession
from games.play.znajznak.services import znajznak_setup_from_deck
from lms.classes import services as class_services
from lms.progress.models import MemoryState
from tests.content.test_building import make_set
from tests.content.test_imports import png_bytes
from tests.factories import SymbolFactory, TeacherFactory, UserFactory

pytestmark = pytest.mark.django_db

TELLING_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><title>Kotwica</title>'
    b'<rect id="kotwica" width="10" height="10" fill="red"/></svg>'
)


def client_for(user: Any | None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def body(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def refused(response: Any) -> bool:
    """Not served: a 403 or 404, or (for pages behind the login) a redirect to the login."""
    if response.status_code in (403, 404):
        return True
    return response.status_code == 302 and reverse("login") in response["Location"]


@pytest.fixture
def drawn_symbol(teacher: Any) -> Any:
    """A draft symbol of ``teacher`` with an SVG that names it (as curators' files do)."""
    symbol = SymbolFactory(owner=teacher, name="Kotwica", status=Status.DRAFT)
    symbol.picture.save("kotwica.svg", ContentFile(TELLING_SVG))
    return symbol


@pytest.fixture
def deck(teacher: Any) -> Deck:
    """A real deck, built (without the PDFs) from a set of 13 symbols with pictures."""
    symbol_set = make_set(13, owner=teacher)
    deck = building.deck_create(user=teacher, symbol_set=symbol_set, options={"render": False}, enqueue=False)
    deck = building.deck_build(deck=deck)
    assert deck.state == BuildState.DONE, deck.message
    # The PDFs themselves are rendered elsewhere (tests/content/printing); stored the same way.
    pdf = default_storage.save(f"{private_folder('decks', deck.pk)}/game-cards.pdf", ContentFile(b"%PDF-1.7"))
    deck.files = {**deck.files, "game-cards.pdf": pdf}
    deck.save(update_fields=["files"])
    return deck


# --- no public URL, no guessable name ----------------------------------------------------------


def test_no_url_pattern_serves_the_media_folder(drawn_symbol, deck, admin_user):
    names = [drawn_symbol.picture.name, *deck.files.values()]
    for name in names:
        with pytest.raises(Resolver404):
            resolve(f"/media/{name}")
        for user in (None, admin_user):
            assert client_for(user).get(f"/media/{name}").status_code == 404


def test_new_files_get_names_nobody_can_guess(drawn_symbol, deck):
    picture = drawn_symbol.picture.name
    assert picture.startswith("symbols/") and picture.endswith(".svg")
    assert "kotwica" not in picture and drawn_symbol.collection.slug not in picture
    assert random_name("symbols", "a.png") != random_name("symbols", "a.png")
    for name in [*deck.files.values(), *(s["picture"] for s in deck.snapshot["symbols"])]:
        assert not name.startswith(f"decks/{deck.pk}/"), name
        assert name.startswith(private_folder("decks", deck.pk) + "/")
    # The folder is keyed: another deck's number does not lead to it.
    assert private_folder("decks", deck.pk) != private_folder("decks", deck.pk + 1)
    assert len(private_folder("decks", deck.pk).split("/")[1]) == 32


# --- who gets which file -----------------------------------------------------------------------


def test_a_symbols_picture_goes_to_those_who_may_see_the_symbol(
    drawn_symbol, teacher, other_teacher, student, admin_user
):
    url = reverse("content:symbol_picture", args=[drawn_symbol.pk])
    for user in (None, other_teacher, student):
        assert client_for(user).get(url).status_code == 404
    for user in (teacher, admin_user):
        response = client_for(user).get(url)
        assert response.status_code == 200
        # The author's original, title and all.
        assert body(response) == default_storage.open(drawn_symbol.picture.name).read() == TELLING_SVG
        assert response["Content-Disposition"] == "inline"
    drawn_symbol.status = Status.PUBLISHED  # the shared library: every teacher sees it
    drawn_symbol.save()
    assert client_for(other_teacher).get(url).status_code == 200
    assert client_for(student).get(url).status_code == 404


@pytest.mark.parametrize("name", ["deck.json", "game-cards.pdf"])
def test_a_decks_files_go_to_its_owner_and_admins_only(
    deck, name, teacher, other_teacher, student, admin_user
):
    url = reverse("decks:deck_download", args=[deck.pk, name])
    for user in (None, other_teacher, student):
        assert refused(client_for(user).get(url))
    for user in (teacher, admin_user):
        response = client_for(user).get(url)
        assert response.status_code == 200
        assert body(response) == default_storage.open(deck.files[name]).read()
        assert response["Content-Disposition"].startswith("attachment;")


def test_a_print_jobs_files_go_to_its_owner_and_admins_only(teacher, other_teacher, student, admin_user):
    job = PrintJob.objects.create(kind=PrintJob.Kind.ACTIVITY, owner=teacher, state=BuildState.DONE)
    name = default_storage.save(
        f"{private_folder('prints', job.pk)}/activity-cards.pdf", ContentFile(b"%PDF")
    )
    job.files = {"activity-cards.pdf": name}
    job.save()
    url = reverse("decks:print_download", args=[job.pk, "activity-cards.pdf"])
    for user in (None, other_teacher, student):
        assert refused(client_for(user).get(url))
    for user in (teacher, admin_user):
        response = client_for(user).get(url)
        assert response.status_code == 200 and body(response) == b"%PDF"


def test_a_games_pictures_go_to_its_players_only(deck, teacher, other_teacher):
    setup, assets = znajznak_setup_from_deck(deck=deck)
    session = game_services.session_create(
        facilitator=teacher, game="znajznak", variant="duel", setup=setup, assets=assets
    )
    player, outsider = UserFactory(), UserFactory()
    game_services.session_join(session=session, user=player)
    key = next(iter(assets["pictures"]))
    url = reverse("games:session_picture", args=[session.pk, key])
    for user in (None, outsider, other_teacher):
        assert client_for(user).get(url).status_code == 404
    for user in (player, teacher):
        response = client_for(user).get(url)
        assert response.status_code == 200 and response["Content-Type"] == "image/svg+xml"
        assert response["Content-Disposition"] == "inline"
    # A key the game does not use is refused even to its players.
    assert (
        client_for(player).get(reverse("games:session_picture", args=[session.pk, "999"])).status_code == 404
    )
    assert GameSession.objects.filter(pk=session.pk).exists()


def test_a_progress_pictures_go_to_the_student_who_has_the_item_and_their_teacher(drawn_symbol, teacher):
    learner, stranger, other_teacher = UserFactory(), UserFactory(), TeacherFactory()
    MemoryState.objects.create(
        user=learner, item_key=f"symbol:{drawn_symbol.pk}", due=timezone.now(), last_reviewed=timezone.now()
    )
    school_class = class_services.class_create(teacher=other_teacher, name="7a")
    class_services.class_join(code=school_class.join_code, student=learner)
    url = reverse("progress:picture", args=[drawn_symbol.pk])
    assert refused(client_for(None).get(url))
    assert client_for(stranger).get(url).status_code == 404
    for user in (learner, other_teacher, teacher):  # teacher: the symbol's author
        response = client_for(user).get(url)
        assert response.status_code == 200, user
        assert b"Kotwica" not in body(response)


# --- the proxy sends the bytes -----------------------------------------------------------------


def test_with_a_private_prefix_the_answer_is_an_empty_x_accel_redirect(deck, teacher, settings):
    settings.PRIVATE_MEDIA_PREFIX = "/_private/"
    response = client_for(teacher).get(reverse("decks:deck_download", args=[deck.pk, "deck.json"]))
    assert response.status_code == 200
    assert response["X-Accel-Redirect"] == "/_private/" + deck.files["deck.json"]
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith("attachment;")
    assert body(response) == b""
    pdf = client_for(teacher).get(reverse("decks:deck_download", args=[deck.pk, "game-cards.pdf"]))
    assert pdf["X-Accel-Redirect"] == "/_private/" + deck.files["game-cards.pdf"]
    assert pdf["Content-Type"] == "application/pdf"


def test_with_a_private_prefix_players_pictures_are_still_cleaned_here_not_by_the_proxy(
    teacher, settings, drawn_symbol
):
    settings.PRIVATE_MEDIA_PREFIX = "/_private/"
    raster = SymbolFactory(owner=teacher, status=Status.DRAFT)
    raster.picture.save("orzel.png", ContentFile(png_bytes()))
    png = client_for(teacher).get(reverse("progress:picture", args=[raster.pk]))
    assert not png.has_header("X-Accel-Redirect")  # the proxy would send the metadata too
    assert png["Content-Type"] == "image/png" and body(png).startswith(b"\x89PNG")
    assert png["Content-Disposition"] == "inline"
    svg = client_for(teacher).get(reverse("progress:picture", args=[drawn_symbol.pk]))
    assert not svg.has_header("X-Accel-Redirect")
    assert b"<rect" in body(svg) and b"Kotwica" not in body(svg)


def test_without_the_prefix_django_streams_the_file(deck, teacher, settings):
    settings.PRIVATE_MEDIA_PREFIX = ""
    response = client_for(teacher).get(reverse("decks:deck_download", args=[deck.pk, "deck.json"]))
    assert response.streaming and not response.has_header("X-Accel-Redirect")
    assert body(response)


class _BucketLike(FileSystemStorage):
    """A storage with no local paths whose URLs are signed, as a bucket's are (the branch
    ``file_response`` takes for S3; it proves that branch, not django-storages itself)."""

    def path(self, name: str) -> str:
        raise NotImplementedError

    def exists(self, name: str) -> bool:
        return Path(super().path(name)).exists()

    def url(self, name: str | None, parameters: dict[str, str] | None = None) -> str:
        query = urlencode({"signature": "x", **(parameters or {})})
        return f"https://bucket.example/{name}?{query}"


def test_from_a_bucket_downloads_redirect_to_a_signed_url_only_after_the_check(
    deck, teacher, other_teacher, settings
):
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": f"{__name__}._BucketLike", "OPTIONS": {"location": str(settings.MEDIA_ROOT)}},
    }
    url = reverse("decks:deck_download", args=[deck.pk, "deck.json"])
    assert client_for(other_teacher).get(url).status_code == 404
    response = client_for(teacher).get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(f"https://bucket.example/{deck.files['deck.json']}?signature=")
    assert "ResponseContentDisposition=attachment" in response["Location"]
