"""Class duels: one lobby for the class, a duel for each pair, round after round.

ZnajZnak rulebook, "Duel (Pojedynek), 1 to 13 Pairs of Players"; who plays whom and with
which lesson card set is ``games/classroom.py`` (pure); this module stores it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import classroom, selectors, services
from games.engines.base import rng_for
from games.models import ClassDuel, ClassRun, GameSession, Participant

from .services import DUEL_CARDS_MIN, duel_cards_check, znajznak_setup_from_deck


def _dealing_sets(deck: Any) -> list[str]:
    """The lesson sets of a built deck that deal a duel (:data:`DUEL_CARDS_MIN` cards or
    more), in letter order."""
    labels = (deck.plan or {}).get("card_labels") or []
    sizes = Counter(label for label in labels if label)
    return sorted(label for label, count in sizes.items() if count >= DUEL_CARDS_MIN)


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
        raise services.SessionError("invalid_setup", _("Choose how the cards are dealt."))
    card_set = card_set.strip().upper() if set_mode == ClassRun.SetMode.ONE else ""
    if set_mode == ClassRun.SetMode.ONE and not card_set:
        raise services.SessionError("invalid_setup", _("Choose the lesson card set (its letter)."))
    if set_mode == ClassRun.SetMode.ROTATE and not _dealing_sets(deck):
        raise services.SessionError("invalid_setup", _("This deck has no lesson card sets to rotate."))
    setup, assets = znajznak_setup_from_deck(deck=deck, card_set=card_set, timer=timer)
    duel_cards_check(len(setup["cards"]), card_set)
    with transaction.atomic():
        lobby = services.session_create(
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
        index: int = duel.players[int(player_id.removeprefix("p")) - 1]  # the lobby participant's pk
    except (ValueError, IndexError):
        return None
    return index


def class_round_start(*, run: ClassRun, by: Any) -> list[ClassDuel]:
    """Pair the students in the lobby and start a duel for each pair: the next round.

    Duels of the previous round still running are closed without a winner (the teacher
    ended the round). Five cards each, four when more than 26 students play; the odd
    one out sits the round out (``games.classroom``).
    """
    with transaction.atomic():
        lobby = GameSession.objects.select_for_update().get(pk=run.lobby_id)
        run = ClassRun.objects.select_for_update().select_related("deck").get(pk=run.pk)
        if not selectors.facilitates(session=lobby, user=by):
            raise services.SessionError(
                "not_allowed", _("Only the teacher who runs the class starts a round.")
            )
        if lobby.status == GameSession.Status.FINISHED:
            raise services.SessionError("session_finished", _("These class duels are over."))
        students = list(lobby.participants.filter(role=Participant.Role.PLAYER).order_by("joined_at", "id"))
        if len(students) < 2:
            raise services.SessionError(
                "too_few_players", _("A duel needs two students: wait until more join.")
            )
        by_id = {student.pk: student for student in students}
        ids = [str(student.pk) for student in students]
        previous = list(run.duels.select_related("session"))
        wins: Counter[str] = Counter()
        met: list[frozenset[str]] = []
        played: dict[str, set[str]] = {}
        for duel in previous:
            pair = tuple(str(pk) for pk in duel.players)
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
            choices = _dealing_sets(run.deck)
            if not choices:  # a run set up before the rule of two cards, on small sets only
                raise services.SessionError(
                    "invalid_setup",
                    _(
                        "No lesson set of this deck deals a duel of two cards each. "
                        "Start a new run with the whole deck."
                    ),
                )
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
                services.session_finished_announce(duel.session)
            # Whoever still watches an old duel follows on to the new round.
            services.session_publish_on_commit(duel.session)
        duels = []
        rng = rng_for(lobby.seed, "duel-seeds", round_number)
        for pair, card_set in zip(pairing.pairs, card_sets, strict=True):
            setup, assets = znajznak_setup_from_deck(deck=run.deck, card_set=card_set, timer=run.timer)
            setup["cards_per_player"] = classroom.hand_size(len(setup["cards"]), wanted)
            seated = [by_id[int(pk)] for pk in pair]
            setup["players"] = [
                services.participant_seat(student, player_id=f"p{seat + 1}")
                for seat, student in enumerate(seated)
            ]
            session = services.session_create(
                facilitator=by,
                game="znajznak",
                variant="duel",
                setup=setup,
                seed=rng.randrange(services.SEED_MAX + 1),
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
            session = services.session_start(session=session, by=by)
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
        services.session_publish_on_commit(lobby)
    return duels


def class_run_finish(*, run: ClassRun, by: Any) -> None:
    """The teacher ends the class duels: the lobby and any running duel close."""
    with transaction.atomic():
        lobby = GameSession.objects.select_for_update().get(pk=run.lobby_id)
        if not selectors.facilitates(session=lobby, user=by):
            raise services.SessionError("not_allowed", _("Only the teacher who runs the class ends it."))
        now = timezone.now()
        for session in [lobby, *(duel.session for duel in run.duels.select_related("session"))]:
            if session.status != GameSession.Status.FINISHED:
                session.status = GameSession.Status.FINISHED
                session.finished_at = now
                session.save(update_fields=["status", "finished_at", "updated"])
                services.session_finished_announce(session)
                services.session_publish_on_commit(session)
