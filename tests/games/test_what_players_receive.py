"""Nothing a student receives during a ZnajZnak game, or in a quiz's pictures, names a symbol
before the student has named it.

Built on the demo content (wordless placeholders) with one symbol's picture replaced by an
SVG that names its symbol in ``<title>``, ``<desc>``, ``<text>`` and an ``id``, a second's by
a PNG and a third's by a JPEG whose metadata names theirs (EXIF, PNG text chunks, XMP, a
JPEG comment, the ICC profile's description), as curators' files often do; the stored
originals keep all of it (the author sees them as uploaded).

What is covered: for the game, the play page's HTML, the polled ``view.json``, the first
WebSocket state message, and every picture of the game with its headers, while the game is
in its looking phase (after a naming the rules reveal that one name on purpose). For the
quiz, every picture of every item with its headers (the pages themselves, which show names
as answer options by design, are checked by ``tests/games/quiz/test_views.py``). Not
covered: words drawn in a raster picture's pixels.
"""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.core.files.storage import default_storage
from django.urls import reverse
from django.utils.text import slugify

from content.demo.loader import DEMO_SET, demo_content
from content.models import Symbol, SymbolSet
from content.services import picture_file
from games import consumers, services
from games.engines import znajznak
from games.play.znajznak.services import znajznak_setup_from_symbol_set
from games.quiz import selectors as quiz_selectors
from games.quiz import services as quizzes
from games.quiz.models import Quiz, QuizAttempt
from tests.content.telling_pictures import telling_jpeg, telling_png, words_beside_pixels
from tests.factories import UserFactory
from tests.games.test_live import TIMEOUT, socket
from tests.games.test_sessions import signed_in


def telling_svg(name: str) -> bytes:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">'
        f"<title>{name}</title><desc>{name}, a symbol</desc>"
        f'<g id="{slugify(name)}"><rect width="100" height="100" fill="#c00"/></g>'
        f'<text x="50" y="50" aria-label="{name}">{name}</text></svg>'
    ).encode()


def replace_picture(symbol: Symbol, data: bytes, filename: str) -> None:
    upload = picture_file(data, filename)
    symbol.picture.delete(save=False)
    symbol.picture.save(upload.name, upload)
    with default_storage.open(symbol.picture.name) as stored:
        original = stored.read()
    # The author's copy still says it.
    assert (
        symbol.name.lower()
        in (original.decode("utf-8", "replace") + words_beside_pixels_of(original)).lower()
    )


def words_beside_pixels_of(data: bytes) -> str:
    return "" if data.lstrip().startswith(b"<") else words_beside_pixels(data)


def demo_with_telling_pictures(teacher: Any) -> tuple[SymbolSet, list[Symbol]]:
    """The demo set with its first three symbols' pictures naming them: an SVG, a PNG and
    a JPEG."""
    demo_content(owner=teacher)
    symbol_set = SymbolSet.objects.get(slug=DEMO_SET[0])
    symbols = [member.symbol for member in symbol_set.members.order_by("position")[:3]]
    svg, png, jpeg = symbols
    replace_picture(svg, telling_svg(svg.name), "upload.svg")
    replace_picture(png, telling_png(png.name), "upload.png")
    replace_picture(jpeg, telling_jpeg(jpeg.name), "upload.jpg")
    return symbol_set, symbols


def received(response: Any) -> str:
    """Headers and body as text (UTF-8, Latin-1 and UTF-16 readings of the bytes), and for a
    raster picture every word Pillow reads beside its pixels (compressed text included)."""
    content = b"".join(response.streaming_content) if response.streaming else response.content
    headers = "\n".join(f"{name}: {value}" for name, value in response.items())
    readings = [
        content.decode(codec, errors="ignore") for codec in ("utf-8", "latin-1", "utf-16-le", "utf-16-be")
    ]
    if response.get("Content-Type", "").startswith("image/") and "svg" not in response["Content-Type"]:
        readings.append(words_beside_pixels(content))
    return headers + "\n" + "\n".join(readings)


def leaks(texts: dict[str, str], names: list[str]) -> list[tuple[str, str]]:
    found = []
    for where, text in texts.items():
        lowered = text.lower()
        for name in names:
            if name.lower() in lowered or slugify(name) in lowered:
                found.append((where, name))
    return found


@pytest.fixture
def _sockets_closed() -> Any:
    yield
    consumers.database_threads_close()


@pytest.mark.django_db(transaction=True)
def test_a_znajznak_player_receives_no_symbol_name_while_looking(teacher, settings, _sockets_closed):
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    symbol_set, tellings = demo_with_telling_pictures(teacher)
    setup, assets = znajznak_setup_from_symbol_set(symbol_set=symbol_set)
    session = services.session_create(
        facilitator=teacher, game="znajznak", variant="duel", setup=setup, assets=assets, seed=3
    )
    ala, olek = UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
    services.session_join(session=session, user=ala)
    services.session_join(session=session, user=olek)
    session = services.session_start(session=session, by=teacher)
    assert znajznak.state_from_dict(session.state).phase == znajznak.LOOKING
    keys = sorted(setup["names"])
    for telling in tellings:
        assert assets["pictures"][next(k for k in keys if assets["symbols"][k] == telling.pk)]

    client = signed_in(ala)
    texts: dict[str, str] = {}
    for url in (
        reverse("games:session", args=[session.pk]),
        reverse("games:session_view", args=[session.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        texts[url] = received(response)
    served = {"image/svg+xml": 0, "image/png": 0, "image/jpeg": 0}
    for key in keys:
        url = reverse("games:session_picture", args=[session.pk, key])
        response = client.get(url)
        assert response.status_code == 200 and response["Content-Disposition"] == "inline"
        kind = response["Content-Type"]
        served[kind] += kind != "image/svg+xml" or b"<rect" in response.content
        texts[url] = received(response)
    # The stored pictures themselves, not stand-ins.
    assert served == {"image/svg+xml": len(keys) - 2, "image/png": 1, "image/jpeg": 1}

    async def first_socket_message() -> str:
        communicator = socket(session, client)
        accepted, _ = await communicator.connect(timeout=TIMEOUT)
        assert accepted
        message = await communicator.receive_from(timeout=TIMEOUT)
        await communicator.disconnect()
        return message

    message = async_to_sync(first_socket_message)()
    assert '"type": "state"' in message or '"type":"state"' in message
    texts["websocket"] = message

    names = [entry["name"] for entry in setup["names"].values()]
    assert {telling.name for telling in tellings} <= set(names)
    assert leaks(texts, names) == []


@pytest.mark.django_db
def test_a_quiz_takers_pictures_and_their_headers_name_nothing(teacher, django_capture_on_commit_callbacks):
    symbol_set, tellings = demo_with_telling_pictures(teacher)
    members = Symbol.objects.filter(pk__in=symbol_set.members.values("symbol"))
    # The telling symbols and a few others, so that every item kind finds what it needs.
    telling_pks = [telling.pk for telling in tellings]
    others = members.exclude(pk__in=telling_pks).order_by("number").values_list("pk", flat=True)[:5]
    chosen = [*telling_pks, *others]
    pool = quiz_selectors.pool_from_symbols(user=teacher, queryset=Symbol.objects.filter(pk__in=chosen))
    counts = {"picture_name_typed": 3, "picture_name": 3, "name_picture": 2}
    with django_capture_on_commit_callbacks(execute=True):
        quiz = quizzes.quiz_create(
            owner=teacher, title="Pictures", source=Quiz.Source.SELECTION, pool=pool, counts=counts, seed=2
        )
    quiz.refresh_from_db()
    assert quiz.state == "done", quiz.message
    quiz = quizzes.quiz_publish(quiz=quiz, by=teacher)
    student = UserFactory()
    client = signed_in(student)
    take = reverse("quiz:take", args=[quiz.code])
    assert client.post(take).status_code == 302
    attempt = QuizAttempt.objects.get(student=student)

    texts: dict[str, str] = {}
    telling_served = set()
    for item in quiz.items.all():
        for token, stored in item.key.get("pictures", {}).items():
            url = reverse("quiz:attempt_picture", args=[attempt.pk, item.pk, token])
            response = client.get(url)
            assert response.status_code == 200 and response["Content-Disposition"] == "inline"
            texts[url] = received(response)
            telling_served |= {telling.pk for telling in tellings if stored == telling.picture.name}
    assert texts and telling_served == set(telling_pks)
    names = list(Symbol.objects.filter(pk__in=chosen).values_list("name", flat=True))
    assert leaks(texts, names) == []
