"""The "Połącz symbole" (Connect the symbols) workshop.

ZnajZnak rulebook, Teacher's Notes: "Each player receives one auxiliary card from the
leader. The cards may be drawn at random or according to a set key [...]. The players
read the information on the backs of the cards [...], then form groups of related
symbols [...]. The leader asks each group to briefly say what symbols its members have
and by what key they formed the group. [...] The leader may only show the players other
possible connections."

A ``Workshop`` is led by one teacher; each ``WorkshopParticipant`` holds at most one
auxiliary card (a ``Symbol``); a participant is in at most one ``Group`` at a time (a
single foreign key); a ``Suggestion`` is a connection the leader shows, to one group or
to everyone. Only ``games/workshop/services.py`` writes these rows.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from content.models import Period, Symbol, SymbolSet, Theme


class Workshop(models.Model):
    """One run of the workshop, from joining to closing."""

    class Status(models.TextChoices):
        LOBBY = "lobby", _("Joining")
        DEALING = "dealing", _("Reading the cards")
        GROUPING = "grouping", _("Forming groups")
        CLOSED = "closed", _("Closed")

    class DealMode(models.TextChoices):
        RANDOM = "random", _("At random")
        BY_KEY = "by_key", _("By a key (themes or periods)")

    title = models.CharField(_("title"), max_length=120, blank=True)
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("leader"),
        on_delete=models.CASCADE,
        related_name="led_workshops",
    )
    symbol_set = models.ForeignKey(
        SymbolSet,
        verbose_name=_("symbol set"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("Empty: the published symbols of the shared library."),
    )
    deal_mode = models.CharField(_("deal"), max_length=8, choices=DealMode.choices, default=DealMode.RANDOM)
    key_themes = models.ManyToManyField(Theme, verbose_name=_("key themes"), blank=True, related_name="+")
    key_periods = models.ManyToManyField(Period, verbose_name=_("key periods"), blank=True, related_name="+")
    seed = models.BigIntegerField(_("seed"))
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.LOBBY)
    version = models.PositiveIntegerField(
        _("version"), default=0, help_text=_("Grows with every change; the pages poll it.")
    )
    join_code = models.CharField(_("join code"), max_length=6, db_index=True)
    allow_guests = models.BooleanField(_("guests may join"), default=False)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("Connect the symbols workshop")
        verbose_name_plural = _("Connect the symbols workshops")

    def __str__(self) -> str:
        return f"{self.title or _('Connect the symbols')} · {self.join_code}"

    @property
    def group_name(self) -> str:
        """The channel-layer group of everyone watching this workshop."""
        return f"workshop-{self.pk}"

    @property
    def is_open(self) -> bool:
        return self.status != self.Status.CLOSED


class Group(models.Model):
    """Players whose symbols belong together, and the key they say they share."""

    # No index of its own: workshop_group_number_unique leads with it (tests/test_indexes.py).
    workshop = models.ForeignKey(Workshop, on_delete=models.CASCADE, related_name="groups", db_index=False)
    number = models.PositiveSmallIntegerField(_("number"))
    key = models.CharField(
        _("key"), max_length=120, blank=True, help_text=_("What the group's symbols have in common.")
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["workshop", "number"]
        verbose_name = _("group")
        verbose_name_plural = _("groups")
        constraints = [
            models.UniqueConstraint(fields=["workshop", "number"], name="workshop_group_number_unique"),
        ]

    def __str__(self) -> str:
        return str(self.label)

    @property
    def label(self) -> str:
        return _("Group %(number)d") % {"number": self.number}


class WorkshopParticipant(models.Model):
    """A player: a signed-in user, or a guest known by a token kept in their Django session."""

    # No index of its own: workshop_participant_nickname_unique leads with it (tests/test_indexes.py).
    workshop = models.ForeignKey(
        Workshop, on_delete=models.CASCADE, related_name="participants", db_index=False
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
    )
    nickname = models.CharField(_("nickname"), max_length=24)
    token = models.CharField(_("guest token"), max_length=64, blank=True, db_index=True)
    symbol = models.ForeignKey(
        Symbol,
        verbose_name=_("auxiliary card"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    dealt_for = models.CharField(
        _("dealt for the key"), max_length=80, blank=True, help_text=_("Shown to the leader only.")
    )
    group = models.ForeignKey(
        Group,
        verbose_name=_("group"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="members",
    )
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        ordering = ["workshop", "joined_at", "id"]
        verbose_name = _("participant")
        verbose_name_plural = _("participants")
        constraints = [
            models.UniqueConstraint(
                fields=["workshop", "user"],
                condition=models.Q(user__isnull=False),
                name="workshop_participant_user_once",
            ),
            models.UniqueConstraint(
                "workshop", Lower("nickname"), name="workshop_participant_nickname_unique"
            ),
            # One auxiliary card of each symbol, as in the printed box.
            models.UniqueConstraint(
                fields=["workshop", "symbol"],
                condition=models.Q(symbol__isnull=False),
                name="workshop_symbol_dealt_once",
            ),
        ]

    def __str__(self) -> str:
        return self.nickname


class Suggestion(models.Model):
    """A connection the leader shows: to one group, or to everyone when ``group`` is empty.

    A group's suggestions go with it when its last member leaves.
    """

    workshop = models.ForeignKey(Workshop, on_delete=models.CASCADE, related_name="suggestions")
    group = models.ForeignKey(
        Group,
        verbose_name=_("to the group"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="suggestions",
    )
    text = models.TextField(_("suggestion"), max_length=500)
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["workshop", "created", "id"]
        verbose_name = _("suggestion")
        verbose_name_plural = _("suggestions")

    def __str__(self) -> str:
        return self.text[:60]
