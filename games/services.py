"""Writes to game sessions; the only place that changes a session, its players or its log.

Every action of every game goes through :func:`session_apply_action`: lock the session
row, rebuild the engine's state, apply the action with the pure engine, store the action
and the new state, and, once the transaction has committed, tell everyone watching that
version N exists. Watchers then fetch their own player's view (``games/selectors.py``):
the raw state never leaves the server.
"""

from __future__ import annotations

import json
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from content.decks import DeckError, build_deck
from games.engines import engine_for
from games.engines.base import ActionError, IllegalAction, InvalidAction, InvalidSetup

from .models import ActionRecord, GameSession, Participant

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


def _join_code_new() -> str:
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
) -> GameSession:
    """A new session in the lobby, with a fresh join code; ``facilitator`` runs it.

    ``seed`` left out is drawn at random and recorded, so the game can be replayed.
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
                    join_code=_join_code_new(),
                    assets=assets or {},
                )
                Participant.objects.create(
                    session=session,
                    user=facilitator,
                    role=Participant.Role.FACILITATOR,
                    nickname=_display_name(facilitator)[:NICKNAME_MAX_LENGTH],
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
        taken = {name.casefold() for name in session.participants.values_list("nickname", flat=True)}
        if signed_in:
            name = _unique_name(_display_name(user), taken)
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
        if session.status == GameSession.Status.LOBBY:
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
        players = list(session.participants.filter(role=Participant.Role.PLAYER).order_by("joined_at", "id"))
        setup = dict(session.setup)
        if setup.get("players"):
            # The setup seats its own players: whoever joined under another id watches.
            seated = {e.get("id") if isinstance(e, dict) else e for e in setup["players"]}
            for participant in players:
                if participant.player_id not in seated:
                    participant.role, participant.player_id = Participant.Role.SPECTATOR, ""
                    participant.save(update_fields=["role", "player_id"])
        else:
            setup["players"] = [{"id": p.player_id, "name": p.nickname} for p in players]
        engine = _engine(session.game)
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
        _publish_on_commit(session)
    return session


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
    return _znajznak_setup(cards, symbols, cards_per_player=cards_per_player, timer=timer)


# --- playing --------------------------------------------------------------------------------


def session_act(*, participant: Participant, action: Any) -> tuple[int, dict[str, Any]]:
    """``participant`` acts: players as themselves, the facilitator as the table.

    Spectators only watch. The acting player always comes from the participant, never
    from the action itself.
    """
    if participant.role == Participant.Role.SPECTATOR:
        raise IllegalAction(_("Spectators watch the game; they do not play."))
    return session_apply_action(
        session_id=participant.session_id, player_id=participant.engine_player, action=action
    )


def session_apply_action(
    *, session_id: int, player_id: str | None, action: Any
) -> tuple[int, dict[str, Any]]:
    """Apply ``action`` by ``player_id`` and return the new version and that player's view.

    The row lock makes concurrent actions on one session apply one after the other,
    each on the state the previous one stored. ``InvalidAction`` and ``IllegalAction``
    come out unchanged and leave nothing stored.
    """
    action = _action_clean(action)
    with transaction.atomic():
        session = GameSession.objects.select_for_update().get(pk=session_id)
        if session.status == GameSession.Status.LOBBY:
            raise IllegalAction(_("The game has not started yet."))
        if session.status == GameSession.Status.FINISHED:
            raise IllegalAction(_("The game is over."))
        engine = _engine(session.game)
        state = engine.apply_action(engine.state_from_dict(session.state), player_id, action)
        ActionRecord.objects.create(
            session=session, index=session.version, player_id=player_id or "", action=action
        )
        session.state = state.to_dict()
        session.version += 1
        fields = ["state", "version", "updated"]
        if engine.is_terminal(state):
            session.status = GameSession.Status.FINISHED
            session.finished_at = timezone.now()
            fields += ["status", "finished_at"]
        session.save(update_fields=fields)
        _publish_on_commit(session)
        return session.version, engine.player_view(state, player_id)


def _action_clean(action: Any) -> dict[str, Any]:
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise InvalidAction(_("An action is a JSON object with a type."))
    if len(json.dumps(action)) > ACTION_MAX_BYTES:
        raise InvalidAction(_("The action is too large."))
    # Who acts is decided by the server, never by the action.
    return {key: value for key, value in action.items() if key != "player"}


def _publish_on_commit(session: GameSession) -> None:
    group, version = session.group_name, session.version
    transaction.on_commit(lambda: session_publish(group=group, version=version), robust=True)


def session_publish(*, group: str, version: int) -> None:
    """Tell everyone watching a session that it changed; each fetches its own view.

    Only the version travels: no view and no state is ever broadcast.
    """
    layer = get_channel_layer()
    if layer is not None:
        async_to_sync(layer.group_send)(group, {"type": "session.changed", "version": version})


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
            state = engine.apply_action(state, player, _action_clean(action))
        except ActionError as error:
            return Replay(state.to_dict(), {"index": index, "error": error.code, "reason": str(error)})
    return Replay(state.to_dict())


# --- helpers --------------------------------------------------------------------------------


def _engine(game: str) -> Any:
    try:
        return engine_for(game)
    except KeyError as error:
        raise SessionError("unknown_game", str(error.args[0])) from error


def _display_name(user: Any) -> str:
    return (user.get_full_name() or user.get_username()).strip()


def _unique_name(name: str, taken: set[str]) -> str:
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
    return bool(getattr(user, "is_authenticated", False)) and session.facilitator_id == user.pk
