"""Nothing a student receives during a ZnajZnak game, or in a quiz's pictures, names a symbol
before the student has named it.

Built on the demo content (wordless placeholders) with one symbol's picture replaced by an
SVG that names its symbol in ``<title>``, ``<desc>``, ``<text>`` and an ``id``, as curators'
files often do; the stored original keeps all of it (the author sees it as uploaded).

What is covered: for the game, the play page's HTML, the polled ``view.json``, the first
WebSocket state message, and every picture of the game with its headers, while the game is
in its looking phase (after a naming the rules reveal that one name on purpose). For the
quiz, every picture of every item with its headers (the pages themselves, which show names
as answer options by design, are checked by ``tests/games/quiz/test_views.py``). Not
covered: words inside raster pictures (pixels) and metadata inside PNG/JPEG files, which
are sent as uploaded.
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
from games.quiz import selectors as quiz_selectors
from games.quiz import services as quizzes
from games.quiz.models import Quiz, QuizAttempt
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


def demo_with_a_telling_picture(teacher: Any) -> tuple[SymbolSet, Symbol]:
    demo_content(owner=teacher)
    symbol_set = SymbolSet.objects.get(slug=DEMO_SET[0])
    symbol = symbol_set.members.order_by("position").first().symbol
    upload = picture_file(telling_svg(symbol.name), "upload.svg")
    symbol.picture.delete(save=False)
    symbol.picture.save(upload.name, upload)
    with default_storage.open(symbol.picture.name) as stored:
        assert symbol.name.encode() in stored.read()  # the author's copy still says it
    return symbol_set, symbol


def received(response: Any) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    headers = "\n".join(f"{name}: {value}" for name, value in response.items())
    return headers + "\n" + content.decode("utf-8", errors="replace")


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
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    symbol_set, telling = demo_with_a_telling_picture(teacher)
    setup, assets = services.znajznak_setup_from_symbol_set(symbol_set=symbol_set)
    session = services.session_create(
        facilitator=teacher, game="znajznak", variant="duel", setup=setup, assets=assets, seed=3
    )
    ala, olek = UserFactory(first_name="Ala"), UserFactory(first_name="Olek")
    services.session_join(session=session, user=ala)
    services.session_join(session=session, user=olek)
    session = services.session_start(session=session, by=teacher)
    assert znajznak.state_from_dict(session.state).phase == znajznak.LOOKING
    keys = sorted(setup["names"])
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
    served_svgs = 0
    for key in keys:
        url = reverse("games:session_picture", args=[session.pk, key])
        response = client.get(url)
        assert response.status_code == 200 and response["Content-Disposition"] == "inline"
        served_svgs += response["Content-Type"] == "image/svg+xml" and b"<rect" in response.content
        texts[url] = received(response)
    assert served_svgs == len(keys)  # the stored pictures themselves, not stand-ins

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
    assert telling.name in names
    assert leaks(texts, names) == []


@pytest.mark.django_db
def test_a_quiz_takers_pictures_and_their_headers_name_nothing(teacher, django_capture_on_commit_callbacks):
    symbol_set, telling = demo_with_a_telling_picture(teacher)
    members = Symbol.objects.filter(pk__in=symbol_set.members.values("symbol"))
    # The telling symbol and a few others, so that every item kind finds what it needs.
    chosen = [telling.pk, *members.exclude(pk=telling.pk).order_by("number").values_list("pk", flat=True)[:7]]
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
    telling_served = False
    for item in quiz.items.all():
        for token, stored in item.key.get("pictures", {}).items():
            url = reverse("quiz:attempt_picture", args=[attempt.pk, item.pk, token])
            response = client.get(url)
            assert response.status_code == 200 and response["Content-Disposition"] == "inline"
            texts[url] = received(response)
            telling_served |= stored == telling.picture.name
    assert texts and telling_served
    names = list(Symbol.objects.filter(pk__in=chosen).values_list("name", flat=True))
    assert leaks(texts, names) == []
