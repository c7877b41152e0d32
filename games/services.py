"""Writes to game sessions; the only place that changes a session, its players or its log.

Every action of every game goes through :func:`session_apply_action`: lock the session
row, rebuild the engine's state, apply the action with the pure engine, store the action
and the new state, and, once the transaction has committed, tell everyone watching that
version N exists. The notice of an action carries every viewer's payload, built here from
the new state (``selectors.session_broadcast``); each watcher's consumer sends its own
participant only theirs, and other notices make watchers read their view afresh
(``games/selectors.py``): the raw state never leaves the server.
"""

from __future__ import annotations

import json
import secrets
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from content.decks import DeckError, build_deck
from content.models import Symbol
from games import classroom, selectors, timers
from games.actions import action_stored
from games.engines import engine_for, znajznak
from games.engines.base import ActionError, IllegalAction, InvalidAction, InvalidSetup, rng_for
from games.signals import practice_run_finished

from .models import (
    ActionRecord,
    ClassDuel,
    ClassRun,
    GameSession,
    NamingRecord,
    Participant,
    PracticeAssignment,
    PracticeRun,
)

#: No 0/O, 1/I/L: a code read off a projector from the back row is typed right.
JOIN_CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
JOIN_CODE_LENGTH = 6
NICKNAME_MAX_LENGTH = 24
#: Characters that mean something in HTML. Nicknames are escaped wherever they are shown;
#: refusing these as well keeps a nickname from even looking like markup.
NICKNAME_FORBIDDEN = frozenset('<>&"')
#: An action is a handful of small fields; anything bigger is not an action.
ACTION_MAX_BYTES = 4096
SEED_MAX = 2**31 - 1


class SessionError(Exception):
    """A session request was refused; ``code`` for programs, ``str(error)`` for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


# --- creating, joining, starting ------------------------------------------------------------


def join_code_normalise(text: str) -> str:
    """The join code as stored: upper case, without the spaces or dashes people type."""
    return "".join(char for char in text.upper() if char.isalnum())


def join_code_new() -> str:
    """A fresh join code from the unambiguous alphabet (games and workshops share it)."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def session_create(
    *,
    facilitator: Any,
    game: str,
    variant: str,
    setup: dict[str, Any],
    seed: int | None = None,
    allow_guests: bool = False,
    assets: dict[str, Any] | None = None,
    kind: str = GameSession.Kind.GAME,
) -> GameSession:
    """A new session in the lobby, with a fresh join code; ``facilitator`` runs it.

    ``seed`` left out is drawn at random and recorded, so the game can be replayed.
    ``kind`` says what the session is part of (a class run, a practice), for good.
    """
    if not getattr(facilitator, "can_author", False):
        raise SessionError("not_allowed", _("Only teachers start game sessions."))
    engine = _engine(game)
    if variant not in engine.VARIANTS:
        raise SessionError(
            "unknown_variant",
            _("%(game)s has no variant %(variant)s.") % {"game": game, "variant": variant},
        )
    if not isinstance(setup, dict):
        raise SessionError("invalid_setup", _("The setup must be a JSON object."))
    if seed is None:
        seed = secrets.randbelow(SEED_MAX + 1)
    for _attempt in range(20):
        try:
            with transaction.atomic():
                session = GameSession.objects.create(
                    game=game,
                    variant=variant,
                    setup=setup,
                    seed=seed,
                    allow_guests=allow_guests,
                    facilitator=facilitator,
                    join_code=join_code_new(),
                    assets=assets or {},
                    kind=kind,
                )
                Participant.objects.create(
                    session=session,
                    user=facilitator,
                    role=Participant.Role.FACILITATOR,
                    nickname=display_name(facilitator)[:NICKNAME_MAX_LENGTH],
                )
                return session
        except IntegrityError:
            # The code is taken by an open session (one chance in millions): draw again.
            continue
    raise SessionError("no_join_code", _("No free join code was found; try again."))


def nickname_clean(nickname: str) -> str:
    """The nickname as shown: NFC, single spaces, 1-24 characters, no markup or controls."""
    text = " ".join(unicodedata.normalize("NFC", nickname or "").split())
    if not text:
        raise SessionError("nickname_invalid", _("Choose a nickname."))
    if len(text) > NICKNAME_MAX_LENGTH:
        raise SessionError(
            "nickname_invalid",
            _("A nickname has at most %(n)d characters.") % {"n": NICKNAME_MAX_LENGTH},
        )
    if any(char in NICKNAME_FORBIDDEN or unicodedata.category(char)[0] == "C" for char in text):
        raise SessionError(
            "nickname_invalid", _('A nickname cannot contain < > & " or invisible characters.')
        )
    return text


def session_join(*, session: GameSession, user: Any = None, nickname: str | None = None) -> Participant:
    """``user`` (signed in) or a guest called ``nickname`` joins ``session``.

    Joining twice returns the same participant. In the lobby a newcomer becomes a
    player; once the game runs, a spectator. A guest's ``token`` must then be kept in
    the guest's own session; it is how the guest is recognised later.
    """
    signed_in = user is not None and getattr(user, "is_authenticated", False)
    with transaction.atomic():
        # The lock serialises joins, so player ids are handed out one at a time.
        session = GameSession.objects.select_for_update().get(pk=session.pk)
        if signed_in:
            existing = session.participants.filter(user=user).first()
            if existing is not None:
                return existing
        if session.status == GameSession.Status.FINISHED:
            raise SessionError("session_finished", _("This game is over."))
        if PracticeRun.objects.filter(session=session).exists():
            raise SessionError("practice", _("This is one student's practice game."))
        class_lobby = ClassRun.objects.filter(lobby=session).exists()
        taken = {name.casefold() for name in session.participants.values_list("nickname", flat=True)}
        if signed_in:
            name = unique_name(display_name(user), taken)
            token = ""
        else:
            if not session.allow_guests:
                raise SessionError(
                    "guests_not_allowed", _("Sign in to join this game: it does not take guests.")
                )
            name = nickname_clean(nickname or "")
            if name.casefold() in taken:
                raise SessionError("nickname_taken", _("Someone in this game already uses that nickname."))
            token = secrets.token_urlsafe(32)
        if session.status == GameSession.Status.LOBBY or class_lobby:
            # A class lobby takes newcomers as players: they play from the next round.
            role = Participant.Role.PLAYER
            player_id = _next_player_id(session)
        else:
            role, player_id = Participant.Role.SPECTATOR, ""
        participant = Participant.objects.create(
            session=session,
            user=user if signed_in else None,
            nickname=name,
            role=role,
            player_id=player_id,
            token=token,
        )
        _publish_on_commit(session)
    return participant


def session_start(*, session: GameSession, by: Any) -> GameSession:
    """The facilitator starts the game with the players who joined.

    Where the setup leaves the players to the session, they are the participants in
    the order they joined, as ``{"id", "name"}`` (their player id and nickname); the
    setup with them is what the log records.
    """
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session.pk)
        if not _is_facilitator(session, by):
            raise SessionError("not_allowed", _("Only the teacher who runs this game starts it."))
        if session.status != GameSession.Status.LOBBY:
            raise SessionError("already_started", _("This game has already started."))
        if ClassRun.objects.filter(lobby=session).exists():
            raise SessionError("class_lobby", _("A class lobby is not played: pair the class instead."))
        players = list(session.participants.filter(role=Participant.Role.PLAYER).order_by("joined_at", "id"))
        setup = dict(session.setup)
        engine = _engine(session.game)
        seats = getattr(engine, "SEATS", {}).get(session.variant)
        if seats is not None and not setup.get("players"):
            # A variant for a fixed number seats the first who joined; the others watch.
            for participant in players[seats:]:
                participant.role, participant.player_id = Participant.Role.SPECTATOR, ""
                participant.save(update_fields=["role", "player_id"])
            players = players[:seats]
        if setup.get("players"):
            # The setup seats its own players: whoever joined under another id watches.
            seated = {e.get("id") if isinstance(e, dict) else e for e in setup["players"]}
            for participant in players:
                if participant.player_id not in seated:
                    participant.role, participant.player_id = Participant.Role.SPECTATOR, ""
                    participant.save(update_fields=["role", "player_id"])
        else:
            setup["players"] = [_seat(p) for p in players]
        try:
            state = engine.new_game(setup, seed=session.seed, variant=session.variant)
        except InvalidSetup as error:
            raise SessionError("invalid_setup", str(error)) from error
        session.setup = setup
        session.state = state.to_dict()
        session.status = (
            GameSession.Status.FINISHED if engine.is_terminal(state) else GameSession.Status.RUNNING
        )
        session.save(update_fields=["setup", "state", "status", "updated"])
        timers.session_deadline_set(session=session)  # note c: a timed game's deadline
        _publish_on_commit(session)
    return session


def _seat(participant: Participant, *, player_id: str | None = None) -> dict[str, Any]:
    """A player as a setup seats them, with the facilitator's age order where it was given
    ("the youngest player", ZnajZnak; ``session_age_order_set``)."""
    seat: dict[str, Any] = {"id": player_id or participant.player_id, "name": participant.nickname}
    if participant.age_rank is not None:
        seat["age_rank"] = participant.age_rank
    return seat


def session_age_order_set(*, session: GameSession, by: Any, ranks: dict[int, int | None]) -> None:
    """The facilitator says who is the youngest: ``ranks`` maps participant ids to 1, 2, ...

    ZnajZnak's "the youngest player" (who lays the first card of a warm-up, who wins a
    tie when the time is up) is decided by this order, kept only as an order: no birth
    date is asked of anyone. Players left out (or ``None``) are not ranked. Only in the
    lobby (a class lobby: until it ends, for the next rounds); refused whole if two
    players get the same place or someone is not a player of this session.
    """
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session.pk)
        if not _is_facilitator(session, by):
            raise SessionError("not_allowed", _("Only the teacher who runs this game sets the age order."))
        class_lobby = ClassRun.objects.filter(lobby=session).exists()
        if session.status == GameSession.Status.FINISHED or (
            session.status != GameSession.Status.LOBBY and not class_lobby
        ):
            raise SessionError("already_started", _("The age order is set before the game starts."))
        players = {p.pk: p for p in session.participants.filter(role=Participant.Role.PLAYER)}
        unknown = set(ranks) - set(players)
        if unknown:
            raise SessionError("not_a_player", _("Only the players of this game are put in age order."))
        given = [rank for rank in ranks.values() if rank is not None]
        if any(not isinstance(rank, int) or rank < 1 for rank in given):
            raise SessionError("invalid_age_order", _("Places in the age order are 1, 2, 3 and so on."))
        if len(set(given)) != len(given):
            raise SessionError(
                "invalid_age_order", _("Two players have the same place: give each place to one player.")
            )
        for pk, participant in players.items():
            rank = ranks.get(pk)
            if participant.age_rank != rank:
                participant.age_rank = rank
                participant.save(update_fields=["age_rank"])
        _publish_on_commit(session)


@dataclass(frozen=True)
class _SymbolInfo:
    name: str
    alternatives: list[str]
    symbol_id: int | None
    picture: str


def _znajznak_setup(
    cards: list[list[str]],
    symbols: dict[str, _SymbolInfo],
    *,
    cards_per_player: int | None,
    timer: int | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    used = sorted({key for card in cards for key in card})
    setup: dict[str, Any] = {
        "cards": cards,
        "names": {
            key: {"name": symbols[key].name, "alternatives": symbols[key].alternatives} for key in used
        },
    }
    if cards_per_player is not None:
        setup["cards_per_player"] = cards_per_player
    if timer is not None:
        setup["timer"] = timer
    # Server-side only: the symbol rows (for the follow-up quiz) and the pictures.
    assets = {
        "symbols": {key: symbols[key].symbol_id for key in used},
        "pictures": {key: symbols[key].picture for key in used if symbols[key].picture},
    }
    return setup, assets


def znajznak_setup_from_symbol_set(
    *, symbol_set: Any, cards_per_player: int | None = None, timer: int | None = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A ZnajZnak setup from a symbol set, and the assets its pages need.

    The deck is built from the set in the curator's order (``content.decks.build_deck``,
    the best order for the set's size). Symbols are known by their printed number
    ("002"), or by collection and number where two collections in the set share one.
    The assets map each key to its symbol and picture; they stay on the server.
    """
    members = [member.symbol for member in symbol_set.members.select_related("symbol__collection")]
    unique = len({symbol.code for symbol in members}) == len(members)
    symbols = {
        (symbol.code if unique else f"{symbol.collection.slug}-{symbol.code}"): _SymbolInfo(
            symbol.name, symbol.alternative_name_list, symbol.pk, symbol.picture.name or ""
        )
        for symbol in members
    }
    try:
        deck = build_deck(list(symbols))
    except DeckError as error:
        raise SessionError("invalid_setup", str(error)) from error
    cards = [list(card) for card in deck.cards]
    return _znajznak_setup(cards, symbols, cards_per_player=cards_per_player, timer=timer)


def znajznak_setup_from_deck(
    *,
    deck: Any,
    card_set: str = "",
    cards_per_player: int | None = None,
    timer: int | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A ZnajZnak setup from a built deck (``content.models.Deck``), or one lesson set of it.

    "In the Duel variant, using the cards from one set during play lets students become
    familiar with the largest possible number of new symbols" (Teacher's notes): with
    ``card_set`` (a letter on the card backs) only that set's cards are dealt. The names
    and pictures are the deck's snapshot, so later edits of a symbol do not show up.
    """
    plan, snapshot = deck.plan or {}, deck.snapshot or {}
    if deck.state != "done" or not plan.get("cards"):
        raise SessionError("invalid_setup", _("This deck is not built yet."))
    indexes = range(len(plan["cards"]))
    if card_set:
        labels = plan.get("card_labels") or []
        indexes = [i for i in indexes if i < len(labels) and labels[i] == card_set]
        if len(indexes) < 2:
            raise SessionError(
                "invalid_setup", _("The deck has no card set %(label)s.") % {"label": card_set}
            )
    cards = [[f"{number:03d}" for number in plan["cards"][i]] for i in indexes]
    symbols = {
        f"{entry['number']:03d}": _SymbolInfo(
            entry["name"],
            list(entry.get("alternative_names") or []),
            entry.get("id"),
            entry.get("picture") or "",
        )
        for entry in snapshot.get("symbols", [])
    }
    setup, assets = _znajznak_setup(cards, symbols, cards_per_player=cards_per_player, timer=timer)
    faces = _card_faces(plan, indexes)
    if faces:
        assets["faces"] = faces
    return setup, assets


def _card_faces(plan: dict[str, Any], indexes: Any) -> dict[str, Any] | None:
    """Each dealt card's face as the deck lays it out (``content.decks.layout``), for the play page.

    Keyed by the card's symbol keys, sorted and joined with commas (a card is known by its
    symbols: any two cards share only one); each picture as ``[key, x, y, size, rotation]``
    in card widths. Only positions and keys: no names.
    """
    layouts = plan.get("layouts") or []
    if len(layouts) != len(plan.get("cards") or []):
        return None
    cards: dict[str, list[list[Any]]] = {}
    for i in indexes:
        placements = [
            [f"{p['symbol']:03d}", p["x"], p["y"], p["size"], p.get("rotation", 0)] for p in layouts[i]
        ]
        cards[",".join(sorted(p[0] for p in placements))] = placements
    return {"shape": plan.get("shape") or "round", "cards": cards}


# --- playing --------------------------------------------------------------------------------


def session_act(*, participant: Participant, action: Any) -> tuple[int, dict[str, Any]]:
    """``participant`` acts: players as themselves, the facilitator as the table.

    Spectators only watch. The acting player always comes from the participant, never
    from the action itself.
    """
    if participant.role == Participant.Role.SPECTATOR:
        raise IllegalAction(_("Spectators watch the game; they do not play."))
    return session_apply_action(
        session_id=participant.session_id,
        player_id=participant.engine_player,
        action=action,
        from_client=True,
    )


def session_apply_action(
    *, session_id: int, player_id: str | None, action: Any, from_client: bool = False
) -> tuple[int, dict[str, Any]]:
    """Apply ``action`` by ``player_id`` and return the new version and that player's view.

    The row lock makes concurrent actions on one session apply one after the other,
    each on the state the previous one stored. ``InvalidAction`` and ``IllegalAction``
    come out unchanged and leave nothing stored. The namings the action produced
    (ZnajZnak) are recorded per student in the same transaction. ``from_client``: the
    action came from a browser, so a clock in it (``at``) is the server's to set.
    """
    action = action_clean(action)
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session_id)
        engine = _engine(session.game)
        if timers.deadline_passed(session):
            # Note c: the time ran out before this action came; the timer ends the game instead.
            state = _apply_locked(session, engine, None, dict(timers.TIME_UP_ACTION))
        else:
            state = _apply_locked(session, engine, player_id, action, from_client=from_client)
        return session.version, engine.player_view(state, player_id)


def _apply_locked(
    session: GameSession,
    engine: Any,
    player_id: str | None,
    action: dict[str, Any],
    *,
    from_client: bool = False,
) -> Any:
    """Apply one cleaned action to ``session``, locked by the caller; store it and its effects.

    What it stores is ``actions.action_stored``'s, as on the fast path (``live.act``).
    """
    if session.state is None and session.status == GameSession.Status.RUNNING:
        # A class lobby runs its duels elsewhere; it is never played itself.
        raise IllegalAction(_("This is the class lobby: the games are played in the duels."))
    participants = list(session.participants.order_by("joined_at", "id"))
    before = engine.state_from_dict(session.state) if session.state is not None else None
    stored = action_stored(
        session, engine, before, player_id, action, participants=participants, from_client=from_client
    )
    ActionRecord.objects.create(
        session=session, index=stored.index, player_id=stored.player_id, action=stored.action
    )
    _namings_record(stored.namings)
    session.state = stored.state.to_dict()
    session.save(update_fields=["state", *stored.session_update(session)])
    if stored.end_effects:
        _end_effects(session, stored.state)
    _publish_on_commit(
        session, selectors.session_broadcast(session=session, participants=participants, state=stored.state)
    )
    return stored.state


#: What the end of a game does beyond its session, by game: a record, the students' grades.
#: Each game's own services register theirs (``games.apps.GamesConfig.ready``), so this
#: module names no game and imports none of ``games/play/``.
END_EFFECTS: dict[str, Callable[..., Any]] = {}
#: What a game's log may leave out of its setup and the replay fills in (``replay.md``), by game.
REPLAY_SETUPS: dict[str, Callable[[dict[str, Any], int], dict[str, Any]]] = {}


def end_effect_register(game: str, effect: Callable[..., Any]) -> None:
    """``effect(session=...)`` runs in the transaction that ends each ``game`` session."""
    END_EFFECTS[game] = effect


def replay_setup_register(game: str, complete: Callable[[dict[str, Any], int], dict[str, Any]]) -> None:
    """``complete(setup, seed)`` gives the setup a replayed ``game`` log starts from."""
    REPLAY_SETUPS[game] = complete


def _end_effects(session: GameSession, state: Any) -> None:
    if session.kind == GameSession.Kind.PRACTICE:
        _practice_result(session, state)
    effect = END_EFFECTS.get(session.game)
    if effect is not None:
        effect(session=session)


def _namings_record(rows: list[NamingRecord]) -> None:
    """Store an action's namings (``actions.naming_rows``); a symbol deleted from the library
    since the deck was built keeps its snapshot, without the link."""
    if not rows:
        return
    existing = set(
        Symbol.objects.filter(pk__in={r.symbol_id for r in rows if r.symbol_id}).values_list("pk", flat=True)
    )
    for row in rows:
        if row.symbol_id not in existing:
            row.symbol_id = None
    NamingRecord.objects.bulk_create(rows)


def action_clean(action: Any) -> dict[str, Any]:
    """An action from outside as the engines take it: a JSON object with a type, not too large,
    without a ``player`` (who acts is the server's to say); ``InvalidAction`` otherwise."""
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise InvalidAction(_("An action is a JSON object with a type."))
    if len(json.dumps(action)) > ACTION_MAX_BYTES:
        raise InvalidAction(_("The action is too large."))
    # Who acts is decided by the server, never by the action.
    return {key: value for key, value in action.items() if key != "player"}


#: The notices of the current call, when its caller sends them itself (``session_publish_deferred``).
_deferred_notices: ContextVar[list[tuple[str, dict[str, Any]]] | None] = ContextVar(
    "games_deferred_notices", default=None
)


def _publish_on_commit(session: GameSession, broadcast: dict[str, Any] | None = None) -> None:
    """Once the transaction commits, tell the session's watchers that it changed.

    ``broadcast`` (``selectors.session_broadcast``): every viewer's payload, built by
    the writer from what it holds, so that watchers need not read the session again.
    """
    group, version = session.group_name, session.version
    transaction.on_commit(
        lambda: session_publish(group=group, version=version, broadcast=broadcast), robust=True
    )
    if session.kind != GameSession.Kind.CLASS_DUEL:
        return
    # A class duel also tells its lobby, whose projector lists every duel's card counts.
    lobby = GameSession.objects.filter(class_run__duels__session=session).values_list("pk", "version").first()
    if lobby is not None:
        lobby_group = GameSession.group_name_of(lobby[0])
        transaction.on_commit(lambda: session_publish(group=lobby_group, version=lobby[1]), robust=True)


def session_notice(*, version: int, broadcast: dict[str, Any] | None = None) -> dict[str, Any]:
    """The channel-layer message that says "version N exists" (``consumers.SessionConsumer``)."""
    notice: dict[str, Any] = {"type": "session.changed", "version": version}
    if broadcast is not None:
        notice["broadcast"] = broadcast
    return notice


def session_publish(*, group: str, version: int, broadcast: dict[str, Any] | None = None) -> None:
    """Tell everyone watching a session that it changed.

    The message stays on the server: each socket's consumer sends its own participant
    only that participant's payload, from ``broadcast`` when it is there, else read
    afresh (``selectors.session_payload``); no browser ever gets another's view.
    Inside ``session_publish_deferred`` the notice is handed to the caller instead.
    """
    notice = session_notice(version=version, broadcast=broadcast)
    pending = _deferred_notices.get()
    if pending is not None:
        pending.append((group, notice))
        return
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, notice)


@contextmanager
def session_publish_deferred() -> Iterator[list[tuple[str, dict[str, Any]]]]:
    """Collect the notices of the block's commits as ``(group, message)`` instead of sending them.

    For a caller on an event loop (the WebSocket consumer): it sends them itself with
    ``await layer.group_send(...)`` once the block's database work is done, so the
    thread that does the database work never waits on the channel layer.
    """
    pending: list[tuple[str, dict[str, Any]]] = []
    token = _deferred_notices.set(pending)
    try:
        yield pending
    finally:
        _deferred_notices.reset(token)


# --- class duels ------------------------------------------------------------------------------


def _deck_card_sets(deck: Any) -> dict[str, int]:
    """The lesson sets of a built deck and how many cards each has, in letter order."""
    labels = (deck.plan or {}).get("card_labels") or []
    return dict(sorted(Counter(label for label in labels if label).items()))


def class_run_create(
    *,
    facilitator: Any,
    deck: Any,
    set_mode: str = ClassRun.SetMode.DECK,
    card_set: str = "",
    timer: int | None = None,
    allow_guests: bool = False,
) -> ClassRun:
    """A class lobby for duels: students join it with one code; rounds are started later.

    ``set_mode`` "deck" deals every duel from the whole deck, "one" from lesson set
    ``card_set``, "rotate" gives each duel a lesson set no player of it has played
    (the tournament of the Teacher's notes).
    """
    if set_mode not in ClassRun.SetMode.values:
        raise SessionError("invalid_setup", _("Choose how the cards are dealt."))
    card_set = card_set.strip().upper() if set_mode == ClassRun.SetMode.ONE else ""
    if set_mode == ClassRun.SetMode.ONE and not card_set:
        raise SessionError("invalid_setup", _("Choose the lesson card set (its letter)."))
    if set_mode == ClassRun.SetMode.ROTATE and not [
        label for label, count in _deck_card_sets(deck).items() if count >= 2
    ]:
        raise SessionError("invalid_setup", _("This deck has no lesson card sets to rotate."))
    setup, assets = znajznak_setup_from_deck(deck=deck, card_set=card_set, timer=timer)
    with transaction.atomic():
        lobby = session_create(
            facilitator=facilitator,
            game="znajznak",
            variant="duel",
            setup=setup,
            allow_guests=allow_guests,
            assets=assets,
            kind=GameSession.Kind.CLASS_LOBBY,
        )
        return ClassRun.objects.create(
            facilitator=facilitator,
            lobby=lobby,
            deck=deck,
            set_mode=set_mode,
            card_set=card_set,
            timer=timer,
        )


def _lobby_index(run: ClassRun, duel: ClassDuel, player_id: str) -> int | None:
    try:
        return duel.players[int(player_id.removeprefix("p")) - 1]
    except (ValueError, IndexError):
        return None


def class_round_start(*, run: ClassRun, by: Any) -> list[ClassDuel]:
    """Pair the students in the lobby and start a duel for each pair: the next round.

    Duels of the previous round still running are closed without a winner (the teacher
    ended the round). Five cards each, four when more than 26 students play; the odd
    one out sits the round out (``games.classroom``).
    """
    with transaction.atomic():
        lobby = GameSession.objects.select_for_update().get(pk=run.lobby_id)
        run = ClassRun.objects.select_for_update().select_related("deck").get(pk=run.pk)
        if not _is_facilitator(lobby, by):
            raise SessionError("not_allowed", _("Only the teacher who runs the class starts a round."))
        if lobby.status == GameSession.Status.FINISHED:
            raise SessionError("session_finished", _("These class duels are over."))
        students = list(lobby.participants.filter(role=Participant.Role.PLAYER).order_by("joined_at", "id"))
        if len(students) < 2:
            raise SessionError("too_few_players", _("A duel needs two students: wait until more join."))
        by_id = {student.pk: student for student in students}
        ids = [str(student.pk) for student in students]
        previous = list(run.duels.select_related("session"))
        wins: Counter[str] = Counter()
        met: list[frozenset[str]] = []
        played: dict[str, set[str]] = {}
        for duel in previous:
            pair = [str(pk) for pk in duel.players]
            met.append(frozenset(pair))
            for pk in pair:
                if duel.card_set:
                    played.setdefault(pk, set()).add(duel.card_set)
            outcome = (duel.session.state or {}).get("outcome") or {}
            winner = _lobby_index(run, duel, outcome.get("winner") or "")
            if winner is not None:
                wins[str(winner)] += 1
        round_number = run.round + 1
        byes = Counter(str(pk) for pk in run.byes if pk is not None)
        pairing = classroom.pairs_make(
            ids, seed=lobby.seed, round_number=round_number, wins=wins, byes=byes, met=met
        )
        if run.set_mode == ClassRun.SetMode.ROTATE:
            sizes = _deck_card_sets(run.deck)
            choices = [label for label, count in sizes.items() if count >= 2]
            card_sets = classroom.card_sets_assign(
                pairing.pairs, choices, played, seed=lobby.seed, round_number=round_number
            )
        else:
            card_sets = [run.card_set] * len(pairing.pairs)
        wanted = classroom.cards_per_player_for(len(students))
        now = timezone.now()
        for duel in previous:
            if duel.session.status != GameSession.Status.FINISHED:
                duel.session.status = GameSession.Status.FINISHED
                duel.session.finished_at = now
                duel.session.save(update_fields=["status", "finished_at", "updated"])
            # Whoever still watches an old duel follows on to the new round.
            _publish_on_commit(duel.session)
        duels = []
        rng = rng_for(lobby.seed, "duel-seeds", round_number)
        for pair, card_set in zip(pairing.pairs, card_sets, strict=True):
            setup, assets = znajznak_setup_from_deck(deck=run.deck, card_set=card_set, timer=run.timer)
            setup["cards_per_player"] = classroom.hand_size(len(setup["cards"]), wanted)
            seated = [by_id[int(pk)] for pk in pair]
            setup["players"] = [
                _seat(student, player_id=f"p{seat + 1}") for seat, student in enumerate(seated)
            ]
            session = session_create(
                facilitator=by,
                game="znajznak",
                variant="duel",
                setup=setup,
                seed=rng.randrange(SEED_MAX + 1),
                allow_guests=lobby.allow_guests,
                assets=assets,
                kind=GameSession.Kind.CLASS_DUEL,
            )
            for seat, student in enumerate(seated):
                Participant.objects.create(
                    session=session,
                    user=student.user,
                    nickname=student.nickname,
                    role=Participant.Role.PLAYER,
                    player_id=f"p{seat + 1}",
                    token=student.token,
                )
            session = session_start(session=session, by=by)
            duels.append(
                ClassDuel.objects.create(
                    run=run,
                    round=round_number,
                    session=session,
                    players=[student.pk for student in seated],
                    card_set=card_set,
                )
            )
        run.round = round_number
        run.byes = [*run.byes, int(pairing.bye) if pairing.bye else None]
        run.save(update_fields=["round", "byes"])
        if lobby.status == GameSession.Status.LOBBY:
            lobby.status = GameSession.Status.RUNNING
            lobby.save(update_fields=["status", "updated"])
        _publish_on_commit(lobby)
    return duels


def class_run_finish(*, run: ClassRun, by: Any) -> None:
    """The teacher ends the class duels: the lobby and any running duel close."""
    with transaction.atomic():
        lobby = GameSession.objects.select_for_update().get(pk=run.lobby_id)
        if not _is_facilitator(lobby, by):
            raise SessionError("not_allowed", _("Only the teacher who runs the class ends it."))
        now = timezone.now()
        for session in [lobby, *(duel.session for duel in run.duels.select_related("session"))]:
            if session.status != GameSession.Status.FINISHED:
                session.status = GameSession.Status.FINISHED
                session.finished_at = now
                session.save(update_fields=["status", "finished_at", "updated"])
                _publish_on_commit(session)


# --- practice alone ----------------------------------------------------------------------------

#: The simulated opponent of self-practice when the teacher set nothing.
BOT_DEFAULT_SECONDS = Decimal("8")
BOT_DEFAULT_ACCURACY = 80


def _code_new() -> str:
    for _attempt in range(20):
        code = join_code_new()
        taken = (
            PracticeAssignment.objects.filter(code=code).exists()
            or GameSession.objects.exclude(status=GameSession.Status.FINISHED).filter(join_code=code).exists()
        )
        if not taken:
            return code
    raise SessionError("no_join_code", _("No free code was found; try again."))


def practice_assignment_create(
    *,
    owner: Any,
    title: str,
    deck: Any,
    card_set: str = "",
    mode: str = PracticeAssignment.Mode.EITHER,
    cards_per_player: int = 5,
    bot_seconds: Decimal | float | int = BOT_DEFAULT_SECONDS,
    bot_accuracy: int = BOT_DEFAULT_ACCURACY,
    timer: int | None = None,
) -> PracticeAssignment:
    """Practice for students alone, with the simulated opponent's speed the teacher sets."""
    if not getattr(owner, "can_author", False):
        raise SessionError("not_allowed", _("Only teachers set practice."))
    card_set = card_set.strip().upper()
    znajznak_setup_from_deck(deck=deck, card_set=card_set)  # refuses a deck or set that cannot deal
    if not 0 <= int(bot_accuracy) <= 100:
        raise SessionError("invalid_setup", _("The opponent's right names are 0 to 100 %."))
    if Decimal(str(bot_seconds)) <= 0:
        raise SessionError("invalid_setup", _("The opponent needs some time to find a symbol."))
    return PracticeAssignment.objects.create(
        owner=owner,
        title=title.strip()[:120] or deck.name[:120],
        code=_code_new(),
        deck=deck,
        card_set=card_set,
        mode=mode,
        cards_per_player=cards_per_player,
        bot_seconds=Decimal(str(bot_seconds)),
        bot_accuracy=int(bot_accuracy),
        timer=timer,
    )


def practice_start(*, assignment: PracticeAssignment, student: Any, mode: str | None = None) -> PracticeRun:
    """A new practice game of ``student``: a duel against the simulated opponent or the clock.

    Against the clock the opponent never looks for symbols: the student plays through
    their own cards, and the time it took is the result.
    """
    if student is None or not getattr(student, "is_authenticated", False):
        raise SessionError("not_allowed", _("Sign in to practise: the result is kept for you."))
    if assignment.mode != PracticeAssignment.Mode.EITHER:
        mode = assignment.mode
    if mode not in PracticeRun.Mode.values:
        raise SessionError("invalid_setup", _("Choose the clock or the simulated opponent."))
    setup, assets = znajznak_setup_from_deck(
        deck=assignment.deck, card_set=assignment.card_set, timer=assignment.timer
    )
    setup["cards_per_player"] = classroom.hand_size(len(setup["cards"]), assignment.cards_per_player)
    with transaction.atomic():
        session = session_create(
            facilitator=assignment.owner,
            game="znajznak",
            variant="duel",
            setup=setup,
            assets=assets,
            kind=GameSession.Kind.PRACTICE,
        )
        taken = {name.casefold() for name in session.participants.values_list("nickname", flat=True)}
        name = unique_name(display_name(student), taken)
        taken.add(name.casefold())
        opponent = unique_name(
            _("The clock") if mode == PracticeRun.Mode.CLOCK else _("Simulated opponent"), taken
        )
        Participant.objects.create(
            session=session, user=student, nickname=name, role=Participant.Role.PLAYER, player_id="p1"
        )
        Participant.objects.create(
            session=session, nickname=opponent, role=Participant.Role.BOT, player_id="p2"
        )
        session.setup = {**setup, "players": [{"id": "p1", "name": name}, {"id": "p2", "name": opponent}]}
        session.save(update_fields=["setup"])
        session = session_start(session=session, by=assignment.owner)
        return PracticeRun.objects.create(
            session=session,
            assignment=assignment,
            student=student,
            mode=mode,
            bot_seconds=assignment.bot_seconds,
            bot_accuracy=assignment.bot_accuracy,
        )


@dataclass(frozen=True)
class BotTurn:
    """What asking the opponent for its move gave: ``acted``, or why not and how long to wait."""

    acted: bool
    reason: str = ""
    wait: float | None = None


def practice_bot_act(*, session_id: int, version: int, now: Any = None) -> BotTurn:
    """The simulated opponent's move, if its time has come and the game is still at ``version``.

    The student's page asks for it after the delay the payload said; the server
    checks both the version (the student may have acted meanwhile) and its own clock,
    so nothing runs in the background and a page cannot make the opponent faster.
    The opponent finds the common symbol after ``bot_seconds`` and names it right in
    ``bot_accuracy`` % of its turns (drawn from the session's seed), else says "I don't
    know". Against the clock it only ends the game when the time is up and lifts the
    penalty of a wrong STOP (by a STOP of its own on a symbol that is not common, which
    note a allows and which penalises the clock, who never plays).
    """
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session_id)
        run = PracticeRun.objects.filter(session=session).first()
        if run is None:
            raise SessionError("not_practice", _("Only practice games have a simulated opponent."))
        if session.status == GameSession.Status.FINISHED:
            return BotTurn(False, "over")
        if session.version != version:
            return BotTurn(False, "stale")
        now = now or timezone.now()
        due = selectors.practice_due(run=run, session=session, now=now)
        if due is None:
            return BotTurn(False, "waiting")
        what, wait = due
        if wait > 0:
            return BotTurn(False, "not_yet", wait)
        engine = _engine(session.game)
        state = engine.state_from_dict(session.state)
        if what == "time_up":
            _apply_locked(session, engine, None, {"type": "time_up"})
        elif what == "lift_penalty":
            own, other = znajznak.compared_cards(state, "p2")
            symbol = next(s for s in state.cards[own] if s not in state.cards[other])
            _apply_locked(session, engine, "p2", {"type": "stop", "symbol": symbol})
        else:
            symbol = znajznak.common_symbol(state, "p2")
            state = _apply_locked(session, engine, "p2", {"type": "stop", "symbol": symbol})
            if not engine.is_terminal(state):
                knows = rng_for(session.seed, "bot", session.version).random() * 100 < run.bot_accuracy
                naming = (
                    {"type": "name", "text": state.names[symbol].name} if knows else {"type": "dont_know"}
                )
                _apply_locked(session, engine, "p2", naming)
        return BotTurn(True)


def _practice_result(session: GameSession, state: Any) -> None:
    """A finished practice game's result, kept for the student."""
    run = PracticeRun.objects.filter(session=session).first()
    if run is None or run.finished is not None:
        return
    outcome = engine_for(session.game).outcome(state) or {}
    mine = [naming for naming in getattr(state, "namings", ()) if naming.player == "p1"]
    run.finished = session.finished_at or timezone.now()
    run.won = outcome.get("winner") == "p1"
    run.seconds = max(0, round((run.finished - run.started).total_seconds()))
    run.named_right = sum(naming.correct for naming in mine)
    run.named_wrong = len(mine) - run.named_right
    run.reason = str(outcome.get("reason") or "")
    run.save(update_fields=["finished", "won", "seconds", "named_right", "named_wrong", "reason"])
    practice_run_finished.send(sender=PracticeRun, run=run)  # homework: the class's gradebook follows


# --- the log --------------------------------------------------------------------------------


def session_log(session: GameSession) -> dict[str, Any]:
    """The session as a game log in the replay format (``docs/replay.md``)."""
    actions = []
    for record in session.actions.order_by("index"):
        entry = {"type": record.action["type"]}
        if record.player_id:
            entry["player"] = record.player_id
        entry.update((key, value) for key, value in record.action.items() if key != "type")
        actions.append(entry)
    return {
        "game": session.game,
        "variant": session.variant,
        "seed": session.seed,
        "setup": session.setup,
        "actions": actions,
    }


@dataclass(frozen=True)
class Replay:
    """What replaying a log gave: the last good state, and the first refusal if any.

    ``state`` is ``None`` only when the log could not start a game at all.
    ``error`` is ``{"index", "error", "reason"}`` with ``error`` one of
    ``illegal_action``, ``invalid_action`` or ``invalid_log`` (``index`` is then the
    action's index, or ``None`` when the log itself is at fault).
    """

    state: dict[str, Any] | None
    error: dict[str, Any] | None = None


def log_replay(log: Any) -> Replay:
    """Replay a game log: setup + seed, then each action in order, with the pure engine.

    >>> log_replay({"game": "chess"}).error["error"]
    'invalid_log'
    """

    def bad_log(reason: str) -> Replay:
        return Replay(None, {"index": None, "error": "invalid_log", "reason": reason})

    if not isinstance(log, dict):
        return bad_log("A game log is a JSON object.")
    missing = [key for key in ("game", "variant", "seed", "setup", "actions") if key not in log]
    if missing:
        return bad_log(f"The log has no {', '.join(missing)}.")
    game, variant, seed, setup, actions = (
        log[key] for key in ("game", "variant", "seed", "setup", "actions")
    )
    try:
        engine = engine_for(game)
    except (KeyError, TypeError) as error:
        return bad_log(str(error.args[0]) if error.args else f"Unknown game {game!r}.")
    if variant not in engine.VARIANTS:
        return bad_log(f"{game} has no variant {variant!r}; it has {', '.join(engine.VARIANTS)}.")
    if isinstance(seed, bool) or not isinstance(seed, int):
        return bad_log("The seed must be an integer.")
    if not isinstance(setup, dict):
        return bad_log("The setup must be a JSON object.")
    if not isinstance(actions, list):
        return bad_log("The actions must be a JSON list.")
    if game in REPLAY_SETUPS:
        setup = REPLAY_SETUPS[game](setup, seed)
    try:
        state = engine.new_game(setup, seed=seed, variant=variant)
    except InvalidSetup as error:
        return bad_log(f"The setup cannot start a game: {error}")
    for index, action in enumerate(actions):
        try:
            if not isinstance(action, dict):
                raise InvalidAction("An action is a JSON object with a type.")
            player = action.get("player")
            if player is not None and not isinstance(player, str):
                raise InvalidAction("The player of an action is a string.")
            state = engine.apply_action(state, player, action_clean(action))
        except ActionError as error:
            return Replay(state.to_dict(), {"index": index, "error": error.code, "reason": str(error)})
    return Replay(state.to_dict())


# --- helpers --------------------------------------------------------------------------------


def _engine(game: str) -> Any:
    try:
        return engine_for(game)
    except KeyError as error:
        raise SessionError("unknown_game", str(error.args[0])) from error


def display_name(user: Any) -> str:
    """How a signed-in person is shown to the class: full name, else username."""
    return (user.get_full_name() or user.get_username()).strip()


def unique_name(name: str, taken: set[str]) -> str:
    """``name`` cut to fit, with " 2", " 3", ... added when someone has it already."""
    base = name[:NICKNAME_MAX_LENGTH] or "?"
    candidate, number = base, 1
    while candidate.casefold() in taken:
        number += 1
        suffix = f" {number}"
        candidate = base[: NICKNAME_MAX_LENGTH - len(suffix)] + suffix
    return candidate


def _next_player_id(session: GameSession) -> str:
    count = session.participants.exclude(player_id="").count()
    return f"p{count + 1}"


def _is_facilitator(session: GameSession, user: Any) -> bool:
    return selectors.facilitates(session=session, user=user)
