"""Writes for Knowledge? play: sessions from a board and a question pool, solo homework games,
and the guesses kept for each student's progress.

The engine (``games.engines.knowledge``) never picks questions: every setup written here
carries the cards drawn from the question pool the teacher (or the student) chose, in an
order drawn from the session's seed, so the game log replays exactly.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from django.core import signing
from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _

from content.demo.loader import DATA
from content.models import KnowledgeBoard, KnowledgeQuestion
from games import services as game_services
from games.engines import knowledge
from games.engines.base import InvalidSetup, rng_for
from games.lobby import NICKNAME_MAX_LENGTH, code_claim, display_name, unique_name
from games.models import GameSession, Participant
from games.signals import item_answered, knowledge_game_finished

from . import selectors

SessionError = game_services.SessionError

#: Cards a game carries: enough for ~30 rounds (a game lasts ~20 on the default board);
#: should they run out, the engine reshuffles the cards set aside, as players refill the box.
POOL_CARDS_MAX = 180
HOMEWORK_SALT = "talia.knowledge.homework"
#: The player id of a student playing alone.
SOLO_PLAYER = "p1"


@dataclass(frozen=True)
class KnowledgeOptions:
    """What a Knowledge? game is played with: the board, the question pool, the options."""

    board_id: int
    variant: str = "basic"
    harder_start: bool = False
    tags: tuple[int, ...] = ()
    language: str = ""
    owner: str = "any"

    def to_token_data(self) -> dict[str, Any]:
        return {
            "b": self.board_id,
            "v": self.variant,
            "h": self.harder_start,
            "t": list(self.tags),
            "l": self.language,
            "o": self.owner,
        }

    @classmethod
    def from_token_data(cls, data: dict[str, Any]) -> KnowledgeOptions:
        return cls(
            board_id=int(data["b"]),
            variant=str(data["v"]),
            harder_start=bool(data["h"]),
            tags=tuple(int(tag) for tag in data["t"]),
            language=str(data["l"]),
            owner=str(data["o"]),
        )


def _card(question: KnowledgeQuestion) -> dict[str, Any]:
    return {
        "id": f"q{question.pk}",
        "category": question.category,
        "answer": question.answer,
        "front": question.front,
        "back": question.back,
    }


def default_pool_cards(seed: int) -> list[dict[str, Any]]:
    """The draw order of a log whose setup leaves ``cards`` out (``shared/replay.md``: "drawn
    from the default question pool by the seed").

    The default pool is the one every Talia ships: the demo's Knowledge? questions
    (``content/demo/data/knowledge_questions.json``), ``d1``, ``d2``, ... in the file's order,
    shuffled with ``rng_for(seed, "cards")`` as a session shuffles its pool, at most
    ``POOL_CARDS_MAX``. It is read from the file, not the database, so a log replays the same
    on every installation.
    """
    rows = json.loads((DATA / "knowledge_questions.json").read_text(encoding="utf-8"))
    fields = ("category", "answer", "front", "back")
    cards = [{"id": f"d{n}", **{key: row[key] for key in fields}} for n, row in enumerate(rows, start=1)]
    rng_for(seed, "cards").shuffle(cards)
    return cards[:POOL_CARDS_MAX]


def knowledge_setup(
    *, board: KnowledgeBoard, questions: QuerySet[KnowledgeQuestion], seed: int, harder_start: bool
) -> dict[str, Any]:
    """The engine's setup: the board and the pool's cards in a draw order from ``seed``.

    Refuses (``SessionError``) a pool with fewer than 6 questions or a board the engine
    cannot play; nothing is written.
    """
    ids = list(questions.values_list("pk", flat=True))
    if len(ids) < knowledge.CARDS_PER_ROUND:
        raise SessionError(
            "pool_too_small",
            _(
                "The question pool has %(n)d question(s); a round needs %(need)d. "
                "Choose fewer tags, another language or more owners."
            )
            % {"n": len(ids), "need": knowledge.CARDS_PER_ROUND},
        )
    rng_for(seed, "cards").shuffle(ids)
    chosen = ids[:POOL_CARDS_MAX]
    by_pk = {question.pk: question for question in KnowledgeQuestion.objects.filter(pk__in=chosen)}
    if harder_start and board.opponent_start_hard is None:
        raise SessionError("invalid_setup", _("This board has no harder start space."))
    setup = {
        "board": board.as_setup(),
        "harder_start": harder_start,
        "cards": [_card(by_pk[pk]) for pk in chosen],
    }
    try:
        knowledge.new_game(setup, seed=seed, variant="basic")
    except InvalidSetup as error:
        raise SessionError("invalid_setup", str(error)) from error
    return setup


def _resolve(*, user: Any, options: KnowledgeOptions) -> tuple[KnowledgeBoard, QuerySet[KnowledgeQuestion]]:
    """The board and the pool as ``user`` may see them (refused when not)."""
    if options.variant not in knowledge.VARIANTS:
        raise SessionError("unknown_variant", _("Knowledge? is played basic or strategic."))
    board = selectors.boards_playable_by(user).filter(pk=options.board_id).first()
    if board is None:
        raise SessionError("no_board", _("That board is not available (anymore)."))
    pool = selectors.question_pool(
        user=user, tags=list(options.tags), language=options.language, owner=options.owner
    )
    return board, pool


def knowledge_session_create(
    *, facilitator: Any, options: KnowledgeOptions, allow_guests: bool = False
) -> GameSession:
    """A Knowledge? session for the class or a small team: players join by code or QR, the
    facilitator's screen is the projector; it starts when the facilitator starts it."""
    board, pool = _resolve(user=facilitator, options=options)
    seed = secrets.randbelow(game_services.SEED_MAX + 1)
    setup = knowledge_setup(board=board, questions=pool, seed=seed, harder_start=options.harder_start)
    return game_services.session_create(
        facilitator=facilitator,
        game="knowledge",
        variant=options.variant,
        setup=setup,
        seed=seed,
        allow_guests=allow_guests,
        assets={"knowledge": {"board": board.pk, "board_name": board.name}},
    )


def homework_token(*, teacher: Any, options: KnowledgeOptions) -> str:
    """A link's token for students to play alone with the teacher's board and pool.

    Checked now (the pool must deal a game), signed so a student cannot change it.
    """
    if not getattr(teacher, "can_author", False):
        raise SessionError("not_allowed", _("Only teachers set homework."))
    board, pool = _resolve(user=teacher, options=options)
    knowledge_setup(board=board, questions=pool, seed=0, harder_start=options.harder_start)
    return signing.dumps(
        {"teacher": teacher.pk, **options.to_token_data()}, salt=HOMEWORK_SALT, compress=True
    )


def homework_read(token: str) -> tuple[int, KnowledgeOptions]:
    """The teacher and the options of a homework token (``SessionError`` if it is not one)."""
    try:
        data = signing.loads(token, salt=HOMEWORK_SALT)
        return int(data["teacher"]), KnowledgeOptions.from_token_data(data)
    except (signing.BadSignature, KeyError, TypeError, ValueError) as error:
        raise SessionError(
            "bad_link", _("This homework link is not valid; ask your teacher for it again.")
        ) from error


def knowledge_solo_start(*, student: Any, options: KnowledgeOptions, teacher: Any = None) -> GameSession:
    """A game for one student alone, started at once.

    From a teacher's link the teacher runs the session (and can look at it later) with the
    teacher's board and pool; from the student's own page the student runs it, with the
    shared library. The student always plays as ``p1``, so guesses count for their progress.
    """
    if student is None or not getattr(student, "is_authenticated", False):
        raise SessionError("not_allowed", _("Sign in to play: your progress is kept for you."))
    owner = teacher if teacher is not None else student
    board, pool = _resolve(user=owner, options=options)
    seed = secrets.randbelow(game_services.SEED_MAX + 1)
    setup = knowledge_setup(board=board, questions=pool, seed=seed, harder_start=options.harder_start)
    name = display_name(student)[:NICKNAME_MAX_LENGTH] or "?"
    setup["players"] = [{"id": SOLO_PLAYER, "name": name}]
    assets = {"knowledge": {"board": board.pk, "board_name": board.name, "solo": True}}
    with transaction.atomic():
        if teacher is not None:
            session = game_services.session_create(
                facilitator=teacher,
                game="knowledge",
                variant=options.variant,
                setup=setup,
                seed=seed,
                assets=assets,
            )
            if name.casefold() == session.participants.get().nickname.casefold():
                name = unique_name(name, {name.casefold()})
        else:
            session = _session_for_student(
                student=student, variant=options.variant, setup=setup, seed=seed, assets=assets
            )
        Participant.objects.create(
            session=session, user=student, nickname=name, role=Participant.Role.PLAYER, player_id=SOLO_PLAYER
        )
        return game_services.session_start(session=session, by=owner)


def _session_for_student(
    *, student: Any, variant: str, setup: dict[str, Any], seed: int, assets: dict[str, Any]
) -> GameSession:
    """A session a student runs for themself (``session_create`` is for teachers' classes)."""
    with transaction.atomic():
        session = GameSession.objects.create(
            game="knowledge", variant=variant, setup=setup, seed=seed, facilitator=student, assets=assets
        )
        code_claim(kind=game_services.CODE_KIND, obj=session, error=SessionError)
    return session


def knowledge_progress_record(*, session: GameSession) -> int:
    """Keep the guesses the session's players recorded for their progress (idempotent).

    Every guessed card of a signed-in player becomes one review of
    ``knowledge:<question id>``: right when the guess matched the back. A watermark in
    the session's assets (``knowledge.progress``) makes a second call add nothing.
    Returns how many reviews were added.
    """
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session.pk)
        if session.game != "knowledge" or not session.state:
            return 0
        history = session.state.get("history", [])
        info = dict(session.assets.get("knowledge", {}))
        done = int(info.get("progress", 0))
        people = {
            p.player_id: p.user
            for p in session.participants.exclude(player_id="").select_related("user")
            if p.user is not None
        }
        existing = set(
            KnowledgeQuestion.objects.filter(
                pk__in=[int(play["card"][1:]) for play in history[done:] if _question_card(play["card"])]
            ).values_list("pk", flat=True)
        )
        # Each assign action adds one play to the history: a review is dated when its guess
        # was made, not when the progress is recorded.
        made = list(
            session.actions.filter(action__type="assign").order_by("index").values_list("created", flat=True)
        )
        if len(made) != len(history):
            made = []
        added = 0
        for number, play in enumerate(history[done:], start=done):
            user = people.get(play.get("player") or "")
            if user is None or play.get("guess_correct") is None or not _question_card(play["card"]):
                continue
            if int(play["card"][1:]) not in existing:
                continue
            item_answered.send(
                sender=GameSession,
                user=user,
                item_key=f"knowledge:{int(play['card'][1:])}",
                correct=bool(play["guess_correct"]),
                reviewed_at=made[number] if made else None,
                source="play",
            )
            added += 1
        info["progress"] = len(history)
        session.assets = {**session.assets, "knowledge": info}
        session.save(update_fields=["assets"])
        return added


def _question_card(card_id: str) -> bool:
    return card_id.startswith("q") and card_id[1:].isascii() and card_id[1:].isdigit()


def knowledge_game_end(*, session: GameSession) -> None:
    """When a Knowledge? game ends (``games.actions.END_EFFECTS``): every guess counts for
    progress, whether or not anybody opens the results page afterwards (the record is
    idempotent: the page adds nothing), then a homework it was played for hears of it."""
    knowledge_progress_record(session=session)
    session.refresh_from_db(fields=["assets"])
    knowledge_game_finished.send(sender=GameSession, session=session)


def replay_setup(setup: dict[str, Any], seed: int) -> dict[str, Any]:
    """A logged Knowledge? setup without cards plays the default pool (``replay.md``)."""
    return setup if "cards" in setup else {**setup, "cards": default_pool_cards(seed)}
