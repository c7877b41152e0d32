"""Knowledge? boards as content: the shipped default board, validation, the admin with its
drawn preview, and the same per-object rules as other content (content/permissions.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from content.models import KnowledgeBoard, Status
from content.permissions import content_visible_to
from games.engines import knowledge
from games.engines.knowledge_board import DEFAULT_BOARD, board_from_dict

pytestmark = pytest.mark.django_db

DEFAULT_NAME = "Talia default board"


def spaces_text(spaces: list[Any]) -> str:
    return "\n".join("-" if space is None else f"{space['colour']} {space['letter']}" for space in spaces)


def board_post(**change: Any) -> dict[str, Any]:
    spaces = [None if s is None else dict(s) for s in DEFAULT_BOARD["spaces"]]
    data = {
        "name": "Our class board",
        "description": "",
        "status": Status.DRAFT,
        "spaces": spaces_text(spaces),
        "finish": "0",
        "opponent_start": "7",
        "opponent_start_hard": "17",
    }
    data.update(change)
    return data


def make_board(owner: Any = None, status: str = Status.PUBLISHED, name: str = "Board") -> KnowledgeBoard:
    data = {key: value for key, value in DEFAULT_BOARD.items()}
    return KnowledgeBoard.objects.create(
        name=name,
        owner=owner,
        status=status,
        spaces=[None if s is None else dict(s) for s in data["spaces"]],
        finish=data["finish"],
        opponent_start=data["opponent_start"],
        opponent_start_hard=data["opponent_start_hard"],
    )


def test_the_default_board_is_shipped_published_and_is_the_engine_default() -> None:
    board = KnowledgeBoard.objects.get(name=DEFAULT_NAME, owner__isnull=True)
    assert board.status == Status.PUBLISHED
    assert board_from_dict(board.as_setup()) == board_from_dict(DEFAULT_BOARD)
    cards = [{"id": f"c{n}", "category": "number", "answer": n % 6} for n in range(6)]
    state = knowledge.new_game({"board": board.as_setup(), "cards": cards}, seed=1, variant="basic")
    assert state.board.length == 41


@pytest.mark.parametrize(
    ("colour", "letter", "missing"),
    [("blue", None, "blue"), (None, "E", "E")],
)
def test_a_board_where_some_colour_or_letter_never_occurs_is_refused_with_a_clear_message(
    colour: str | None, letter: str | None, missing: str
) -> None:
    board = make_board()
    for space in board.spaces:
        if space is not None and space["colour"] == colour:
            space["colour"] = "red"
        if space is not None and space["letter"] == letter:
            space["letter"] = "A"
    with pytest.raises(ValidationError) as refused:
        board.full_clean()
    message = " ".join(refused.value.message_dict["spaces"])
    assert "Every colour and every letter must occur" in message and f"Missing: {missing}." in message


def test_a_board_the_engine_refuses_is_refused_by_the_model_too() -> None:
    board = make_board()
    board.opponent_start = 2  # the opponents would stand on the finish
    with pytest.raises(ValidationError, match="the finish space 0 must not be one of them"):
        board.full_clean()


def test_the_admin_draws_the_loop_preview_of_a_saved_board(client: Any, teacher: Any) -> None:
    board = make_board(owner=teacher, status=Status.DRAFT)
    client.force_login(teacher)
    page = client.get(reverse("admin:content_knowledgeboard_change", args=[board.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    start = html.index('<svg xmlns="http://www.w3.org/2000/svg"')
    svg = html[start : html.index("</svg>", start)]
    assert svg.count("<circle") == 41 + 1  # each space, and the loop
    assert "At most 6 spaces" in html
    assert "green B" in html  # the spaces as text, one per line


def test_a_teacher_adds_a_board_in_the_admin_and_owns_it(client: Any, teacher: Any) -> None:
    client.force_login(teacher)
    response = client.post(reverse("admin:content_knowledgeboard_add"), board_post())
    assert response.status_code == 302, response.content.decode()[:2000]
    board = KnowledgeBoard.objects.get(name="Our class board")
    assert board.owner == teacher and len(board.spaces) == 41 and board.spaces[0] is None
    assert board.spaces[1] == {"colour": "green", "letter": "B"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"spaces": "-\npurple B\n" + "green B\n" * 12}, "write a colour and a letter"),
        ({"spaces": "-\n" + "red A\n" * 12}, "Missing: yellow, green, blue, white, B, C, D, E."),
        ({"opponent_start": "99"}, "&#x27;opponent_start&#x27; must be a space number from 0 to 40"),
    ],
)
def test_the_admin_refuses_a_bad_board_and_saves_nothing(
    client: Any, teacher: Any, change: dict[str, str], message: str
) -> None:
    client.force_login(teacher)
    before = KnowledgeBoard.objects.count()
    response = client.post(reverse("admin:content_knowledgeboard_add"), board_post(**change))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert KnowledgeBoard.objects.count() == before


def test_teachers_see_their_own_and_published_boards_but_not_others_drafts(
    teacher: Any, other_teacher: Any, student: Any
) -> None:
    mine = make_board(owner=teacher, status=Status.DRAFT, name="Mine")
    theirs = make_board(owner=other_teacher, status=Status.DRAFT, name="Theirs")
    shared = make_board(owner=other_teacher, status=Status.PUBLISHED, name="Shared")
    visible = set(content_visible_to(teacher, KnowledgeBoard.objects.all()))
    assert {mine, shared} <= visible and theirs not in visible
    assert not content_visible_to(student, KnowledgeBoard.objects.all()).exists()


def test_a_teacher_cannot_change_another_teachers_board_in_the_admin(
    client: Any, teacher: Any, other_teacher: Any
) -> None:
    shared = make_board(owner=other_teacher, status=Status.PUBLISHED, name="Shared")
    client.force_login(teacher)
    response = client.post(
        reverse("admin:content_knowledgeboard_change", args=[shared.pk]), board_post(name="Taken over")
    )
    assert response.status_code in (302, 403)
    shared.refresh_from_db()
    assert shared.name == "Shared"
    page = client.get(reverse("admin:content_knowledgeboard_change", args=[shared.pk])).content.decode()
    assert not re.search(r'<textarea[^>]*name="spaces"', page)  # read-only for this teacher
