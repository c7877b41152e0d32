"""Writes to "Połącz symbole" workshops: the only place that changes one.

ZnajZnak rulebook, Teacher's Notes ("Połącz symbole"): each player receives one
auxiliary card from the leader, drawn at random or by a set key; the players form
groups of related symbols by criteria of their own and say by what key they formed
the group; the leader may show other possible connections.

Every service locks the workshop row, so the changes of one workshop apply one after
the other, raises :class:`WorkshopError` (and changes nothing) when a rule says no,
and on success bumps ``Workshop.version`` and, once committed, tells the channel-layer
group ``workshop-<id>`` that version N exists. The pages poll their own view over
HTTP (``selectors``); no state travels over the layer.

Dealing (``workshop_deal``):

- ``random``: any symbol of the source (a symbol set, or the published library),
  narrowed to the workshop's themes and periods when it has any, shuffled with the
  workshop's seed.
- ``by_key``: every card has one of the workshop's keys (themes and periods), and the
  keys take turns, so with "Ludzie" and "PRL" half the class holds people and half
  PRL symbols; a card dealt for a key remembers it (``dealt_for``, the leader's eyes
  only) to help the leader show connections.

Either way each symbol is dealt once per workshop (one box of auxiliary cards), each
participant gets one card and never a second, and dealing again later gives cards
only to those who joined since. Too few symbols for the waiting players is refused.
"""

from __future__ import annotations

import random
import secrets
import unicodedata
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from content.models import Period, Status, Symbol, SymbolSet, Theme
from content.permissions import content_visible_to, runs_for
from games.lobby import LobbyError, Refusals, code_claim, code_release, is_signed_in, newcomer_name
from games.services import notice_send

from .models import Group, Suggestion, Workshop, WorkshopParticipant

SEED_MAX = 2**31 - 1
KEY_MAX_LENGTH = 120
SUGGESTION_MAX_LENGTH = 500


class WorkshopError(LobbyError):
    """A workshop request was refused; ``code`` for programs, ``str(error)`` for people."""


#: What a workshop's code opens in the code space (``games.lobby``).
CODE_KIND = "workshop"
#: A workshop's lobby says no in a workshop's words.
WORKSHOP_REFUSALS = Refusals(
    error=WorkshopError,
    guests_not_allowed=gettext_lazy("Sign in to join this workshop: it does not take guests."),
    nickname_taken=gettext_lazy("Someone in this workshop already uses that nickname."),
)


# --- creating and joining -----------------------------------------------------------------------


def workshop_create(
    *,
    teacher: Any,
    title: str = "",
    symbol_set: SymbolSet | None = None,
    deal_mode: str = Workshop.DealMode.RANDOM,
    themes: list[Theme] | tuple[Theme, ...] = (),
    periods: list[Period] | tuple[Period, ...] = (),
    allow_guests: bool = False,
    seed: int | None = None,
) -> Workshop:
    """A new workshop in the lobby with a fresh join code; ``teacher`` leads it."""
    if not getattr(teacher, "can_author", False):
        raise WorkshopError("not_allowed", _("Only teachers lead workshops."))
    if symbol_set is not None and not content_visible_to(teacher, SymbolSet.objects.filter(pk=symbol_set.pk)):
        raise WorkshopError("not_allowed", _("You cannot use this symbol set."))
    if deal_mode not in Workshop.DealMode.values:
        raise WorkshopError("invalid_deal", _("Deal the cards at random or by a key."))
    if deal_mode == Workshop.DealMode.BY_KEY and not (themes or periods):
        raise WorkshopError("invalid_deal", _("To deal by a key, choose at least one theme or period."))
    if seed is None:
        seed = secrets.randbelow(SEED_MAX + 1)
    with transaction.atomic():
        workshop = Workshop.objects.create(
            title=" ".join(title.split())[:120],
            teacher=teacher,
            symbol_set=symbol_set,
            deal_mode=deal_mode,
            seed=seed,
            allow_guests=allow_guests,
        )
        code_claim(kind=CODE_KIND, obj=workshop, error=WorkshopError)
        workshop.key_themes.set(themes)
        workshop.key_periods.set(periods)
    return workshop


def workshop_join(
    *, workshop: Workshop, user: Any = None, nickname: str | None = None
) -> WorkshopParticipant:
    """``user`` (signed in) or a guest called ``nickname`` joins; joining twice changes nothing.

    A guest's ``token`` must be kept in the guest's own Django session.
    """
    signed_in = is_signed_in(user)
    with transaction.atomic():
        workshop = _lock(workshop)
        if signed_in:
            existing = workshop.participants.filter(user=user).first()
            if existing is not None:
                return existing
            if runs_for(user, workshop.teacher_id):
                raise WorkshopError("leader", _("You lead this workshop; your students join it."))
        if workshop.status == Workshop.Status.CLOSED:
            raise WorkshopError("closed", _("This workshop is over."))
        name, token = newcomer_name(
            user=user,
            nickname=nickname,
            taken=workshop.participants.values_list("nickname", flat=True),
            allow_guests=workshop.allow_guests,
            refusals=WORKSHOP_REFUSALS,
        )
        participant = WorkshopParticipant.objects.create(
            workshop=workshop, user=user if signed_in else None, nickname=name, token=token
        )
        _changed(workshop)
    return participant


# --- the leader: dealing, phases, suggestions -------------------------------------------------------


@dataclass(frozen=True)
class Key:
    """A key to deal by: a theme or a period, as ``theme:<slug>`` or ``period:<slug>``."""

    id: str
    label: str


def workshop_keys(workshop: Workshop) -> list[Key]:
    themes = [Key(f"theme:{t.slug}", t.name) for t in workshop.key_themes.order_by("name")]
    periods = [Key(f"period:{p.slug}", p.name) for p in workshop.key_periods.all()]
    return themes + periods


def symbol_pool(workshop: Workshop) -> QuerySet[Symbol]:
    """The auxiliary cards in the leader's box: the set's symbols, or the published library."""
    if workshop.symbol_set_id is not None:
        symbols = Symbol.objects.filter(memberships__symbol_set_id=workshop.symbol_set_id)
    else:
        symbols = Symbol.objects.filter(status=Status.PUBLISHED)
    return symbols.prefetch_related("themes", "periods").order_by("pk").distinct()


def _symbol_keys(symbol: Symbol) -> set[str]:
    themes = {f"theme:{theme.slug}" for theme in symbol.themes.all()}
    return themes | {f"period:{period.slug}" for period in symbol.periods.all()}


def workshop_deal(*, workshop: Workshop, by: Any) -> int:
    """The leader deals one auxiliary card to each participant without one; how many were dealt.

    "Each player receives one auxiliary card from the leader. The cards may be drawn at
    random or according to a set key" (Teacher's Notes). See the module's docstring.
    """
    with transaction.atomic():
        workshop = _lock(workshop)
        _check_leader(workshop, by)
        _check_open(workshop)
        waiting = list(workshop.participants.filter(symbol__isnull=True).order_by("joined_at", "id"))
        if not waiting:
            raise WorkshopError("nobody_waiting", _("Everyone here has a card already."))
        dealt = set(workshop.participants.exclude(symbol=None).values_list("symbol_id", flat=True))
        pool = [symbol for symbol in symbol_pool(workshop) if symbol.pk not in dealt]
        keys = workshop_keys(workshop)
        # The seed and how many cards are out already: dealing to latecomers stays replayable.
        rng = random.Random(f"{workshop.seed}:{len(dealt)}")
        if workshop.deal_mode == Workshop.DealMode.BY_KEY:
            cards = _deal_by_key(pool, keys, len(waiting), rng, turn=len(dealt))
        else:
            wanted = {key.id for key in keys}
            if wanted:
                pool = [symbol for symbol in pool if _symbol_keys(symbol) & wanted]
            rng.shuffle(pool)
            cards = [(symbol, "") for symbol in pool[: len(waiting)]]
        if len(cards) < len(waiting):
            raise WorkshopError(
                "not_enough_cards",
                _(
                    "Only %(cards)d cards are left for %(players)d players: choose more keys "
                    "or a bigger symbol set."
                )
                % {"cards": len(cards), "players": len(waiting)},
            )
        for participant, (symbol, key) in zip(waiting, cards, strict=True):
            participant.symbol, participant.dealt_for = symbol, key
            participant.save(update_fields=["symbol", "dealt_for"])
        if workshop.status == Workshop.Status.LOBBY:
            workshop.status = Workshop.Status.DEALING
        _changed(workshop, "status")
    return len(waiting)


def _deal_by_key(
    pool: list[Symbol], keys: list[Key], count: int, rng: random.Random, *, turn: int
) -> list[tuple[Symbol, str]]:
    """``count`` cards, the keys taking turns; a key with no card left passes its turn."""
    piles: dict[str, list[Symbol]] = {}
    for key in keys:
        pile = [symbol for symbol in pool if key.id in _symbol_keys(symbol)]
        rng.shuffle(pile)
        piles[key.id] = pile
    used: set[int] = set()
    cards: list[tuple[Symbol, str]] = []
    for index in range(count):
        for step in range(len(keys)):
            key = keys[(turn + index + step) % len(keys)]
            pile = piles[key.id]
            while pile and pile[-1].pk in used:
                pile.pop()
            if pile:
                symbol = pile.pop()
                used.add(symbol.pk)
                cards.append((symbol, key.label))
                break
        else:
            break
    return cards


def workshop_grouping_start(*, workshop: Workshop, by: Any) -> Workshop:
    """The leader opens the groups once the players have read their cards."""
    with transaction.atomic():
        workshop = _lock(workshop)
        _check_leader(workshop, by)
        if workshop.status != Workshop.Status.DEALING:
            raise WorkshopError("wrong_phase", _("Deal the cards first."))
        workshop.status = Workshop.Status.GROUPING
        _changed(workshop, "status")
    return workshop


def workshop_close(*, workshop: Workshop, by: Any) -> Workshop:
    with transaction.atomic():
        workshop = _lock(workshop)
        _check_leader(workshop, by)
        _check_open(workshop)
        workshop.status = Workshop.Status.CLOSED
        _changed(workshop, "status")
        code_release(kind=CODE_KIND, obj=workshop)  # the code may open something else now
    return workshop


def suggestion_add(*, workshop: Workshop, by: Any, text: str, group: Group | None = None) -> Suggestion:
    """The leader shows another possible connection, to one group or to everyone.

    "The leader may only show the players other possible connections" (Teacher's Notes).
    """
    with transaction.atomic():
        workshop = _lock(workshop)
        _check_leader(workshop, by)
        _check_open(workshop)
        if group is not None and group.workshop_id != workshop.pk:
            raise WorkshopError("no_group", _("That group is not in this workshop."))
        suggestion = Suggestion.objects.create(
            workshop=workshop, group=group, text=_text_clean(text, SUGGESTION_MAX_LENGTH, "suggestion")
        )
        _changed(workshop)
    return suggestion


# --- the players: groups and their key ----------------------------------------------------------------


def group_create(*, participant: WorkshopParticipant) -> Group:
    """The player starts a group of their own (leaving the one they were in)."""
    with transaction.atomic():
        workshop, participant = _lock_player(participant)
        number = (workshop.groups.order_by("-number").values_list("number", flat=True).first() or 0) + 1
        group = Group.objects.create(workshop=workshop, number=number)
        _move(participant, group)
        _changed(workshop)
    return group


def group_join(*, participant: WorkshopParticipant, group: Group) -> Group:
    """The player joins ``group``; a player is in one group at a time, so they leave their own."""
    with transaction.atomic():
        workshop, participant = _lock_player(participant)
        if group.workshop_id != workshop.pk or not Group.objects.filter(pk=group.pk).exists():
            raise WorkshopError("no_group", _("That group is not in this workshop any more."))
        if participant.group_id != group.pk:
            _move(participant, group)
            _changed(workshop)
    return group


def group_leave(*, participant: WorkshopParticipant) -> None:
    """The player leaves their group; a group nobody is left in is gone, with its suggestions."""
    with transaction.atomic():
        workshop, participant = _lock_player(participant)
        if participant.group_id is None:
            raise WorkshopError("no_group", _("You are not in a group."))
        _move(participant, None)
        _changed(workshop)


def group_key_name(*, participant: WorkshopParticipant, key: str) -> Group:
    """A member says by what key the group was formed; any member may change it.

    "The leader asks each group to briefly say [...] by what key they formed the group";
    unusual keys are the players' own choice ("the leader does not interfere").
    """
    with transaction.atomic():
        workshop, participant = _lock_player(participant)
        if participant.group_id is None:
            raise WorkshopError("no_group", _("Join or start a group first."))
        group = Group.objects.get(pk=participant.group_id)
        group.key = _text_clean(key, KEY_MAX_LENGTH, "key")
        group.save(update_fields=["key"])
        _changed(workshop)
    return group


# --- helpers ------------------------------------------------------------------------------------------


def _lock(workshop: Workshop) -> Workshop:
    return Workshop.objects.select_for_update().get(pk=workshop.pk)


def _lock_player(participant: WorkshopParticipant) -> tuple[Workshop, WorkshopParticipant]:
    workshop = _lock(participant.workshop)
    participant = WorkshopParticipant.objects.get(pk=participant.pk)
    if workshop.status != Workshop.Status.GROUPING:
        if workshop.status == Workshop.Status.CLOSED:
            raise WorkshopError("closed", _("This workshop is over."))
        raise WorkshopError("wrong_phase", _("Groups open when your teacher says so."))
    if participant.symbol_id is None:
        raise WorkshopError("no_card", _("Wait for your card before you join a group."))
    return workshop, participant


def _move(participant: WorkshopParticipant, group: Group | None) -> None:
    old = participant.group_id
    participant.group = group
    participant.save(update_fields=["group"])
    if old is not None and not WorkshopParticipant.objects.filter(group_id=old).exists():
        Group.objects.filter(pk=old).delete()


def _check_leader(workshop: Workshop, user: Any) -> None:
    if not runs_for(user, workshop.teacher_id):
        raise WorkshopError("not_allowed", _("Only the teacher who leads this workshop does that."))


def _check_open(workshop: Workshop) -> None:
    if workshop.status == Workshop.Status.CLOSED:
        raise WorkshopError("closed", _("This workshop is over."))


def _text_messages(kind: str) -> tuple[str, str]:
    """What to say when a suggestion or a key is empty or too long: whole sentences, so each
    language can word them (a noun put into a sentence cannot agree with it)."""
    if kind == "key":
        return _("Write the key first."), _("The key has at most %(n)d characters.")
    return _("Write the suggestion first."), _("A suggestion has at most %(n)d characters.")


def _text_clean(text: str, limit: int, kind: str) -> str:
    cleaned = " ".join(unicodedata.normalize("NFC", text or "").split())
    empty, too_long = _text_messages(kind)
    if not cleaned:
        raise WorkshopError("empty", empty)
    if len(cleaned) > limit:
        raise WorkshopError("too_long", too_long % {"n": limit})
    if any(unicodedata.category(char) == "Cc" for char in cleaned):
        raise WorkshopError("invalid", _("Remove the invisible characters."))
    return cleaned


def _changed(workshop: Workshop, *fields: str) -> None:
    workshop.version += 1
    workshop.save(update_fields=["version", "updated", *fields])
    group, version = workshop.group_name, workshop.version
    transaction.on_commit(lambda: workshop_publish(group=group, version=version), robust=True)


def workshop_publish(*, group: str, version: int) -> None:
    """Tell everyone watching that the workshop changed; each fetches its own view.

    The games' pattern (``games.services.session_publish``): only the version travels,
    sent as the games send theirs (``notice_send``, also from a thread with an event loop).
    """
    notice_send(group=group, message={"type": "workshop.changed", "version": version})
