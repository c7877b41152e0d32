"""Game sessions: a played game is its setup, seed, ordered action log and state snapshot.

Only ``games/services.py`` writes these rows. ``GameSession.state`` is the engine's state
after ``version`` actions; replaying ``setup`` + ``seed`` + the ``ActionRecord`` rows in
index order gives the same state (``python manage.py replay``).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from games.engines import GAMES

#: The games as their rulebooks spell them.
GAME_LABELS = {"znajznak": "ZnajZnak", "know": "Know", "activity": "Activity", "knowledge": "Knowledge?"}


class GameSession(models.Model):
    """One game played in class or alone, from the lobby to its end."""

    class Status(models.TextChoices):
        LOBBY = "lobby", _("Waiting for players")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    game = models.CharField(
        _("game"), max_length=16, choices=[(game, GAME_LABELS.get(game, game)) for game in GAMES]
    )
    variant = models.CharField(_("variant"), max_length=32)
    setup = models.JSONField(_("setup"), default=dict, blank=True)
    seed = models.BigIntegerField(_("seed"))
    state = models.JSONField(_("state"), null=True, blank=True)
    version = models.PositiveIntegerField(
        _("version"), default=0, help_text=_("How many actions have been applied.")
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.LOBBY)
    join_code = models.CharField(_("join code"), max_length=6, db_index=True)
    allow_guests = models.BooleanField(
        _("guests may join"),
        default=False,
        help_text=_("Students without an account join with a nickname."),
    )
    # What the pages need but the engine does not, kept on the server: for ZnajZnak the
    # pictures of the symbols by number (their file names may give the names away).
    assets = models.JSONField(_("assets"), default=dict, blank=True)
    facilitator = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("facilitator"),
        on_delete=models.CASCADE,
        related_name="facilitated_sessions",
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)
    finished_at = models.DateTimeField(_("finished"), null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("game session")
        verbose_name_plural = _("game sessions")
        constraints = [
            # A code is reused only once its session has finished.
            models.UniqueConstraint(
                fields=["join_code"],
                condition=~models.Q(status="finished"),
                name="games_session_join_code_unique_while_open",
            )
        ]

    def __str__(self) -> str:
        return f"{self.game} · {self.variant} · {self.join_code}"

    @property
    def group_name(self) -> str:
        """The channel-layer group of everyone watching this session."""
        return f"session-{self.pk}"

    @property
    def variant_label(self) -> str:
        return self.variant.replace("_", " ")

    @property
    def is_open(self) -> bool:
        return self.status != self.Status.FINISHED


class Participant(models.Model):
    """Someone in a session: the facilitator, a player, or a spectator.

    A signed-in user is recognised by ``user``; a guest by ``token``, a secret kept in
    the guest's own Django session and nowhere else on the client.
    """

    class Role(models.TextChoices):
        FACILITATOR = "facilitator", _("Facilitator")
        PLAYER = "player", _("Player")
        SPECTATOR = "spectator", _("Spectator")

    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="participants")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="game_participations",
    )
    nickname = models.CharField(_("nickname"), max_length=24)
    player_id = models.CharField(
        _("player"), max_length=16, blank=True, help_text=_("The engine's id of this player.")
    )
    role = models.CharField(_("role"), max_length=12, choices=Role.choices, default=Role.PLAYER)
    token = models.CharField(_("guest token"), max_length=64, blank=True, db_index=True)
    joined_at = models.DateTimeField(_("joined"), auto_now_add=True)

    class Meta:
        ordering = ["session", "joined_at", "id"]
        verbose_name = _("participant")
        verbose_name_plural = _("participants")
        constraints = [
            models.UniqueConstraint(
                fields=["session", "user"],
                condition=models.Q(user__isnull=False),
                name="games_participant_user_once_per_session",
            ),
            models.UniqueConstraint(
                fields=["session", "player_id"],
                condition=~models.Q(player_id=""),
                name="games_participant_player_once_per_session",
            ),
            models.UniqueConstraint(
                "session",
                Lower("nickname"),
                name="games_participant_nickname_unique_in_session",
            ),
        ]

    def __str__(self) -> str:
        return self.nickname

    @property
    def engine_player(self) -> str | None:
        """The player the engine sees acting and viewing: ``None`` for the table itself."""
        return self.player_id or None


class ActionRecord(models.Model):
    """One applied action, in order: the session's log is these rows by ``index``."""

    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="actions")
    index = models.PositiveIntegerField(_("index"))
    player_id = models.CharField(_("player"), max_length=16, blank=True)
    action = models.JSONField(_("action"))
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["session", "index"]
        verbose_name = _("action")
        verbose_name_plural = _("actions")
        constraints = [
            models.UniqueConstraint(fields=["session", "index"], name="games_action_index_unique"),
        ]

    def __str__(self) -> str:
        return f"#{self.index} {self.action.get('type', '?')}"
