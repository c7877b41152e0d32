"""Read-only queries about game sessions, and what each participant may see of one.

Everything a participant receives about a game, over HTTP or WebSocket, is built by
:func:`session_payload`: the engine's ``player_view`` for that participant's player
(spectators see ``player_view(state, None)``, the facilitator the engine's facilitator
view where it has one, see :func:`viewer_for`), never the
raw state.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import timedelta
from typing import Any

from django.db.models import QuerySet
from django.urls import reverse
from django.utils import timezone

from content.models import BuildState, Deck
from content.permissions import runs_for, teaching_rows
from games import timers
from games.engines import engine_for, znajznak
from games.engines.base import Engine, State
from games.play.know.selectors import know_log_downloadable

from .models import ClassDuel, ClassRun, GameSession, Participant, PracticeAssignment, PracticeRun

#: Where a guest's tokens live in the guest's Django session: {session id: token}.
GUEST_TOKENS_KEY = "games.guest_tokens"


def session_by_code(code: str) -> GameSession | None:
    """The open session with join ``code`` (already normalised), if any."""
    return GameSession.objects.exclude(status=GameSession.Status.FINISHED).filter(join_code=code).first()


def participant_for(
    *, session_id: int, user: Any, guest_tokens: Mapping[str, str] | None, with_session: bool = True
) -> Participant | None:
    """Who this visitor is in the session: by account if signed in, else by guest token.

    ``with_session=False`` leaves ``participant.session`` unread (a socket needs only its id,
    not the session's JSON).
    """
    queryset = Participant.objects.filter(session_id=session_id)
    if with_session:
        queryset = queryset.select_related("session")
    if user is not None and getattr(user, "is_authenticated", False):
        found = queryset.filter(user=user).first()
        if found is not None:
            return found
        if getattr(user, "can_author", False):
            # A co-teacher of the facilitator's classes runs the game as the facilitator does.
            found = teaching_rows(
                user, queryset.filter(role=Participant.Role.FACILITATOR), owner_field="user"
            ).first()
            if found is not None:
                return found
    token = (guest_tokens or {}).get(str(session_id))
    if not isinstance(token, str) or not token:
        return None
    return queryset.filter(user__isnull=True, token=token).first()


def session_participants(session: GameSession) -> QuerySet[Participant]:
    return session.participants.order_by("joined_at", "id")


def viewer_for(engine: Engine, participant: Participant) -> str | None:
    """Whose eyes the engine looks through: a player's own; the facilitator's where the
    engine has a facilitator role (Activity, Know: ``engine.FACILITATOR``); else the table."""
    if participant.role == Participant.Role.FACILITATOR:
        return getattr(engine, "FACILITATOR", None)
    return participant.engine_player


def session_payload(*, session: GameSession, participant: Participant) -> dict[str, Any]:
    """The session as ``participant`` may see it: version, status, people, own view."""
    view = None
    if session.state is not None:
        engine = engine_for(session.game)
        view = engine.player_view(engine.state_from_dict(session.state), viewer_for(engine, participant))
    return {
        **_payload_shared(session, list(session_participants(session))),
        "you": _you(participant),
        "view": view,
        **_payload_around(session, participant),
    }


def _you(participant: Participant) -> dict[str, Any]:
    return {"nickname": participant.nickname, "player": participant.engine_player, "role": participant.role}


def _payload_shared(session: GameSession, participants: list[Participant]) -> dict[str, Any]:
    """The part of every participant's payload that is the same for all of them."""
    return {
        "version": session.version,
        "status": session.status,
        "game": session.game,
        "variant": session.variant,
        "participants": [
            {"nickname": other.nickname, "player": other.engine_player, "role": other.role}
            for other in participants
        ],
        "timer": timers.session_timer_info(session),
    }


def _payload_around(session: GameSession, participant: Participant) -> dict[str, Any]:
    """What a page shows beside the game: a class run's rounds, a practice's opponent.

    Read only for the kinds of session that have them: a plain game's are all empty.
    """
    kind = session.kind
    Kind = GameSession.Kind
    return {
        "class": class_info(session=session, participant=participant) if kind == Kind.CLASS_LOBBY else None,
        "follow": follow_url(session=session, participant=participant)
        if kind in (Kind.CLASS_LOBBY, Kind.CLASS_DUEL)
        else None,
        "practice": practice_info(session=session) if kind == Kind.PRACTICE else None,
    }


#: The kinds of session whose payload is the game's alone while it runs (a class duel has
#: no ``follow`` until a later round closes it): the writer builds every viewer's payload
#: (:func:`session_broadcast`), and the live fast path plays them (``games.live``).
BROADCAST_KINDS = (GameSession.Kind.GAME, GameSession.Kind.CLASS_DUEL)


def session_broadcast(
    *,
    session: GameSession,
    participants: list[Participant],
    state: State | None,
    viewers: Collection[int] | None = None,
) -> dict[str, Any] | None:
    """Every participant's payload of ``session`` at this version, for the change notice.

    Built once by the writer, which holds the new ``state`` (the engine's) and the
    participants, so that the watchers' consumers need not read the session again:
    ``{"shared": ..., "people": {participant id: {"you", "viewer"}}, "views": {viewer: view}}``,
    one ``player_view`` per distinct viewer (a player, the table ``""``, the
    facilitator's role). It travels between server processes only; each consumer sends
    its own participant the payload :func:`payload_from_broadcast` picks
    (``session_payload``'s fields). ``None`` for the kinds of session whose payload
    reads other rows (a class lobby, practice): their watchers read it afresh. A class
    duel's is a game's while it runs (it has no ``follow`` until a later round closes it,
    and that change is published without payloads). ``viewers``: only these participants'
    payloads (by id), where the writer knows that no one else hears the notice; whoever it
    leaves out reads the session afresh.
    """
    if session.kind not in BROADCAST_KINDS:
        return None
    engine = engine_for(session.game)
    people: dict[str, dict[str, Any]] = {}
    views: dict[str, Any] = {}
    for participant in participants:
        if viewers is not None and participant.pk not in viewers:
            continue
        viewer = viewer_for(engine, participant)
        key = viewer or ""
        if key not in views:
            views[key] = None if state is None else engine.player_view(state, viewer)
        people[str(participant.pk)] = {"you": _you(participant), "viewer": key}
    return {"shared": _payload_shared(session, participants), "people": people, "views": views}


def payload_from_broadcast(broadcast: dict[str, Any], participant_id: int) -> dict[str, Any] | None:
    """Participant ``participant_id``'s payload from a :func:`session_broadcast`; ``None``
    when the broadcast does not know them (they joined after it was built)."""
    person = broadcast["people"].get(str(participant_id))
    if person is None:
        return None
    return {
        **broadcast["shared"],
        "you": person["you"],
        "view": broadcast["views"][person["viewer"]],
        "class": None,
        "follow": None,
        "practice": None,
    }


def sessions_facilitated_by(user: Any) -> QuerySet[GameSession]:
    """The sessions ``user`` runs: their own and those of the owners of the classes they co-teach."""
    sessions = teaching_rows(user, GameSession.objects.all(), owner_field="facilitator")
    return sessions.select_related("facilitator").order_by("-created")


def facilitates(*, session: GameSession, user: Any) -> bool:
    """Whether ``user`` runs ``session``: its facilitator, or a co-teacher of the facilitator's classes."""
    return runs_for(user, session.facilitator_id)


def can_download_log(*, session: GameSession, participant: Participant | None) -> bool:
    """Only a finished game's log, and only to the people who were in it."""
    if session.game == "know":
        # A Know log links players to Team IDs and answers: see games.play.know.selectors.

        return know_log_downloadable(session=session, participant=participant)
    if session.game == "quiz_live":
        # Its actions say which player of a team answered: only a quiz answered alone is
        # downloaded, and only by its facilitator (the setup holds the keys of every item).
        return (
            participant is not None
            and participant.role == Participant.Role.FACILITATOR
            and session.status == GameSession.Status.FINISHED
            and not (session.setup or {}).get("team_count")
        )
    return participant is not None and session.status == GameSession.Status.FINISHED


# --- class duels ---------------------------------------------------------------------------------


def class_run_of(session: GameSession) -> ClassRun | None:
    """The class run whose lobby ``session`` is, if any."""
    return ClassRun.objects.filter(lobby=session).first()


def class_duel_of(session: GameSession) -> ClassDuel | None:
    return ClassDuel.objects.select_related("run").filter(session=session).first()


def _cards_in_hand(state: dict[str, Any] | None, player_id: str) -> int | None:
    stacks = (state or {}).get("stacks") or {}
    return len(stacks[player_id]) if player_id in stacks else None


def class_duels(run: ClassRun, *, round_number: int | None = None) -> list[dict[str, Any]]:
    """The duels of a round as the projector lists them: players, cards in hand, winner.

    Only counts and names of people: nothing of the cards themselves.
    """
    number = run.round if round_number is None else round_number
    people = {p.pk: p.nickname for p in run.lobby.participants.all()}
    rows = []
    for duel in run.duels.filter(round=number).select_related("session"):
        state = duel.session.state or {}
        outcome = state.get("outcome") or {}
        players = []
        for seat, pk in enumerate(duel.players):
            player_id = f"p{seat + 1}"
            players.append(
                {
                    "nickname": people.get(pk, "?"),
                    "cards_in_hand": _cards_in_hand(state, player_id),
                    "winner": outcome.get("winner") == player_id,
                }
            )
        rows.append(
            {
                "session": duel.session_id,
                "url": reverse("games:session", args=[duel.session_id]),
                "status": duel.session.status,
                "card_set": duel.card_set,
                "players": players,
                "cards_per_player": (duel.session.setup or {}).get("cards_per_player"),
            }
        )
    return rows


def class_info(*, session: GameSession, participant: Participant) -> dict[str, Any] | None:
    """What a class lobby shows: the teacher every duel of the round, a student their own."""
    run = class_run_of(session)
    if run is None:
        return None
    bye_pk = run.byes[-1] if run.byes else None  # a round with an even number of players has none
    bye = (
        run.lobby.participants.filter(pk=bye_pk).values_list("nickname", flat=True).first()
        if bye_pk is not None
        else None
    )
    info: dict[str, Any] = {
        "round": run.round,
        "set_mode": run.set_mode,
        "players": run.lobby.participants.filter(role=Participant.Role.PLAYER).count(),
    }
    if participant.role == Participant.Role.FACILITATOR:
        info.update({"duels": class_duels(run), "bye": bye})
    else:
        info["bye"] = bye_pk is not None and bye_pk == participant.pk
        info["in_round"] = _current_duel(run, participant) is not None
    return info


def _current_duel(run: ClassRun, member: Participant) -> ClassDuel | None:
    for duel in run.duels.filter(round=run.round).select_related("session"):
        if member.pk in duel.players:
            return duel
    return None


def class_duel_for(*, run: ClassRun, member: Participant) -> ClassDuel | None:
    """``member``'s duel in the current round (``None``: not paired this round)."""
    return _current_duel(run, member)


def follow_url(*, session: GameSession, participant: Participant) -> str | None:
    """Where a student's page should go next: from the lobby into their running duel,
    from a duel of an earlier round on to the current one."""
    if participant.role != Participant.Role.PLAYER:
        return None
    run = class_run_of(session)
    if run is not None:
        duel = _current_duel(run, participant)
        if duel is not None and duel.session.status != GameSession.Status.FINISHED:
            return reverse("games:class_follow", args=[run.pk])
        return None
    duel = class_duel_of(session)
    if duel is not None and duel.run.round > duel.round:
        return reverse("games:class_follow", args=[duel.run_id])
    return None


def class_runs_of(user: Any) -> QuerySet[ClassRun]:
    runs = teaching_rows(user, ClassRun.objects.all(), owner_field="facilitator")
    return runs.select_related("lobby", "deck").order_by("-created")


# --- practice -------------------------------------------------------------------------------------


def practice_info(*, session: GameSession) -> dict[str, Any] | None:
    """For the practice page: who the opponent is and when to ask for its next move."""
    run = PracticeRun.objects.filter(session=session).first()
    if run is None:
        return None
    due = practice_due(run=run, session=session)
    return {
        "mode": run.mode,
        "bot": reverse("games:session_bot", args=[session.pk]),
        "next": due[0] if due else None,
        "wait": round(due[1], 2) if due else None,
        "elapsed": max(0, round((timezone.now() - run.started).total_seconds())),
        "timer": (session.state or {}).get("timer"),
        "result": None
        if run.finished is None
        else {
            "won": run.won,
            "seconds": run.seconds,
            "named_right": run.named_right,
            "named_wrong": run.named_wrong,
        },
    }


def practice_by_code(code: str) -> PracticeAssignment | None:
    return PracticeAssignment.objects.select_related("deck").filter(code=code).first()


def practice_runs(assignment: PracticeAssignment) -> QuerySet[PracticeRun]:
    return assignment.runs.select_related("student").order_by("-started")


def practice_runs_of(student: Any, assignment: PracticeAssignment) -> QuerySet[PracticeRun]:
    return assignment.runs.filter(student=student).order_by("-started")


def practice_assignments_of(user: Any) -> QuerySet[PracticeAssignment]:
    return teaching_rows(user, PracticeAssignment.objects.all()).select_related("deck")


def decks_playable_by(user: Any) -> QuerySet[Deck]:
    """Built decks a teacher may start a game from: their own and those of the owners of
    the classes they co-teach (an admin: all)."""
    decks = Deck.objects.filter(state=BuildState.DONE)
    return decks if getattr(user, "is_admin", False) else teaching_rows(user, decks)


#: Against the clock nobody else says STOP: a wrong STOP's wait (note a) ends after this.
CLOCK_PENALTY_SECONDS = 3


def practice_due(*, run: PracticeRun, session: GameSession, now: Any = None) -> tuple[str, float] | None:
    """When the opponent (or the clock) acts next on ``session`` as stored: (what, seconds from now).

    ``None`` when it waits for the student. Timed from the server's clock: the moment
    of the last action (``session.updated``) and the practice's start.
    """
    if session.status != GameSession.Status.RUNNING or session.state is None:
        return None
    now = now or timezone.now()
    state = znajznak.state_from_dict(session.state)
    candidates: list[tuple[str, float]] = []
    if state.timer:
        ends = session.time_up_at or run.started + timedelta(seconds=float(state.timer))
        candidates.append(("time_up", (ends - now).total_seconds()))
    since = (now - session.updated).total_seconds()
    if state.phase == znajznak.LOOKING:
        if run.mode == PracticeRun.Mode.BOT and "p2" not in state.penalised:
            candidates.append(("find", float(run.bot_seconds) - since))
        elif run.mode == PracticeRun.Mode.CLOCK and "p1" in state.penalised:
            candidates.append(("lift_penalty", CLOCK_PENALTY_SECONDS - since))
    if not candidates:
        return None
    what, wait = min(candidates, key=lambda item: item[1])
    return what, max(0.0, wait)
