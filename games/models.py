"""Game sessions: a played game is its setup, seed, ordered action log and state snapshot.

Only the services write these rows: ``games/services.py`` and each game's own
(``games/play/<game>/``: class duels, practice). ``GameSession.state`` is the engine's state
after ``version`` actions; replaying ``setup`` + ``seed`` + the ``ActionRecord`` rows in
index order gives the same state (``python manage.py replay``).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from content.models import BuildJob, KnowledgeBoard
from games.engines import GAMES
from games.engines.znajznak import MAX_CARDS_PER_PLAYER, MIN_CARDS_PER_PLAYER
from games.stored_state import GameStateField


class JoinCode(models.Model):
    """One code of the one code space: what a typed join code opens, while it is claimed.

    Sessions, practice, quizzes, workshops and classes draw their codes here
    (``games.lobby.code_claim``); an object's own column (``GameSession.join_code``,
    ``Quiz.code``, ...) is its copy for pages and links. A code opens one thing at a time:
    the constraint below, not a check before the insert, keeps it so under concurrent
    claims. A released code may be claimed again.
    """

    code = models.CharField(_("code"), max_length=6)
    kind = models.CharField(pgettext_lazy("join code", "opens"), max_length=12)
    object_id = models.PositiveBigIntegerField(_("object id"))
    claimed = models.DateTimeField(_("claimed"), default=timezone.now)
    released = models.DateTimeField(_("released"), null=True, blank=True)

    class Meta:
        verbose_name = _("join code")
        verbose_name_plural = _("join codes")
        constraints = [
            models.UniqueConstraint(
                fields=["code"], condition=models.Q(released=None), name="games_joincode_one_live_claim"
            ),
            models.UniqueConstraint(
                fields=["kind", "object_id"],
                condition=models.Q(released=None),
                name="games_joincode_one_code_per_object",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.code} · {self.kind} {self.object_id}"


#: The games as their rulebooks spell them.
GAME_LABELS = {
    "znajznak": "ZnajZnak",
    "know": "Know",
    "activity": "Activity",
    "knowledge": "Knowledge?",
    "quiz_live": _("Live quiz"),
}


# Each game's variants (the engines' VARIANTS) as a teacher reads them in a list of games.
VARIANT_LABELS = {
    "warm_up": pgettext_lazy("ZnajZnak variant", "warm-up"),
    "duel": pgettext_lazy("ZnajZnak variant", "duel"),
    "multiplayer": pgettext_lazy("ZnajZnak variant", "multiplayer"),
    "facilitator_marks": pgettext_lazy("Know variant", "the facilitator marks"),
    "team_marks": pgettext_lazy("Know variant", "the teams mark"),
    "teams": pgettext_lazy("Activity variant", "teams"),
    "three_players": pgettext_lazy("Activity variant", "three players"),
    "basic": pgettext_lazy("Knowledge? variant", "basic"),
    "strategic": pgettext_lazy("Knowledge? variant", "strategic"),
    "standard": pgettext_lazy("Live quiz variant", "standard"),
}


class GameSession(models.Model):
    """One game played in class or alone, from the lobby to its end."""

    class Status(models.TextChoices):
        LOBBY = "lobby", _("Waiting for players")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")

    class Kind(models.TextChoices):
        """What the session is part of, fixed when it is made.

        Only class runs and practice add rows that a player's page shows beside the
        game (``games.selectors.session_payload``); a plain game needs none of them.
        """

        GAME = "game", _("A game of its own")
        CLASS_LOBBY = "class_lobby", _("The lobby of class duels")
        CLASS_DUEL = "class_duel", _("A duel of class duels")
        PRACTICE = "practice", _("Practice alone")

    game = models.CharField(
        _("game"), max_length=16, choices=[(game, GAME_LABELS.get(game, game)) for game in GAMES]
    )
    variant = models.CharField(_("variant"), max_length=32)
    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices, default=Kind.GAME, editable=False)
    setup = models.JSONField(_("setup"), default=dict, blank=True)
    seed = models.BigIntegerField(_("seed"))
    # Stored without the parts the setup holds too (a deck, cards, a board, items), read whole
    # (games.stored_state: FROM_SETUP_PARTS names them by game).
    state = GameStateField(_("state"), null=True, blank=True)
    version = models.PositiveIntegerField(
        _("version"), default=0, help_text=_("How many actions have been applied.")
    )
    status = models.CharField(_("status"), max_length=10, choices=Status.choices, default=Status.LOBBY)
    # Indexed in Meta, without the LIKE twin that ``db_index`` adds on PostgreSQL: codes are
    # looked up whole, and each live action writes every index of this row (its new version
    # does not fit on the old one's page).
    join_code = models.CharField(_("join code"), max_length=6)
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
    # ZnajZnak note c: "a timer may be set". Set when a timed game starts
    # (``games.timers.session_deadline_set``); the time-up is applied once it passes.
    time_up_at = models.DateTimeField(
        _("time is up at"), null=True, blank=True, help_text=_("When the game's timer runs out.")
    )
    # The web processes that have held a socket of this game (``games.sockets``): a process
    # adds itself before its socket reads the state, and the live fast path publishes an
    # action only when the row it stores names another process. It never shrinks.
    live_processes = models.JSONField(_("live processes"), default=list, blank=True, editable=False)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("game session")
        verbose_name_plural = _("game sessions")
        indexes = [models.Index(fields=["join_code"], name="games_session_join_code")]

    def __str__(self) -> str:
        return f"{self.game} · {self.variant} · {self.join_code}"

    @property
    def group_name(self) -> str:
        """The channel-layer group of everyone watching this session."""
        return self.group_name_of(self.pk)

    @staticmethod
    def group_name_of(session_id: int) -> str:
        """:attr:`group_name` of the session ``session_id``, without an instance."""
        return f"session-{session_id}"

    @property
    def variant_label(self) -> str:
        return str(VARIANT_LABELS.get(self.variant, self.variant.replace("_", " ")))

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
        #: A simulated opponent (practice alone): it acts only through ``practice_bot_act``.
        BOT = "bot", _("Simulated opponent")

    # No index of its own: games_participant_nickname_unique_in_session leads with it (tests/test_indexes.py).
    session = models.ForeignKey(
        GameSession, on_delete=models.CASCADE, related_name="participants", db_index=False
    )
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
    # "The youngest player" (ZnajZnak): the facilitator's age order, 1 = the youngest.
    # Only an order, never a birth date: see docs/znajznak.md.
    age_rank = models.PositiveSmallIntegerField(
        _("age order"), null=True, blank=True, help_text=_("1 is the youngest; empty: not known.")
    )
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

    # No index of its own: games_action_index_unique leads with it (tests/test_indexes.py).
    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="actions", db_index=False)
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


class NamingRecord(models.Model):
    """One symbol a player named, right or wrong, or said "I don't know" about.

    Written by ``session_apply_action`` in the transaction of the action that produced
    the naming (the engine's ``namings`` grew). The symbol's number and name are a
    snapshot of the deck the game was dealt from, so a later edit does not rewrite
    what the student saw; ``symbol`` links the row to the library where it can.
    """

    session = models.ForeignKey(GameSession, on_delete=models.CASCADE, related_name="namings")
    participant = models.ForeignKey(
        Participant, on_delete=models.SET_NULL, null=True, blank=True, related_name="namings"
    )
    # No index of its own: games_naming_user_created leads with it (tests/test_indexes.py).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="symbol_namings",
        help_text=_("Empty for a guest."),
        db_index=False,
    )
    action_index = models.PositiveIntegerField(_("action"), help_text=_("The action that gave the name."))
    symbol = models.ForeignKey(
        "content.Symbol",
        verbose_name=_("symbol"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="namings",
    )
    symbol_key = models.CharField(_("symbol key"), max_length=64)
    symbol_number = models.PositiveSmallIntegerField(_("symbol number"), null=True, blank=True)
    symbol_name = models.CharField(_("symbol name"), max_length=200)
    text = models.CharField(_("typed name"), max_length=200, blank=True)
    correct = models.BooleanField(_("correct"))
    dont_know = models.BooleanField(_("did not know"))
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["session", "action_index", "id"]
        verbose_name = _("naming")
        verbose_name_plural = _("namings")
        indexes = [models.Index(fields=["user", "created"], name="games_naming_user_created")]

    def __str__(self) -> str:
        result = "right" if self.correct else ("don't know" if self.dont_know else "wrong")
        return f"{self.symbol_key} {self.symbol_name}: {result}"


class ClassRun(models.Model):
    """Duels for a whole class at once: one lobby, then rounds of automatically paired duels.

    Students join ``lobby`` (a ``GameSession`` that is never played itself) with its
    join code; each round pairs them and gives every pair a duel of its own
    (``ClassDuel``). ``set_mode`` says which cards each duel is dealt from.
    """

    class SetMode(models.TextChoices):
        DECK = "deck", _("The whole deck in every duel")
        ONE = "one", _("One lesson card set in every duel")
        ROTATE = "rotate", _("Tournament: a lesson set per duel, no set twice for a student")

    facilitator = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("facilitator"), on_delete=models.CASCADE, related_name="+"
    )
    lobby = models.OneToOneField(GameSession, on_delete=models.CASCADE, related_name="class_run")
    deck = models.ForeignKey(
        "content.Deck", verbose_name=_("deck"), on_delete=models.PROTECT, related_name="class_runs"
    )
    set_mode = models.CharField(_("cards"), max_length=8, choices=SetMode.choices, default=SetMode.DECK)
    card_set = models.CharField(_("card set"), max_length=3, blank=True)
    timer = models.PositiveIntegerField(_("timer (seconds)"), null=True, blank=True)
    round = models.PositiveSmallIntegerField(_("round"), default=0)
    byes = models.JSONField(
        _("byes"), default=list, blank=True, help_text=_("Per round, the lobby participant who sat out.")
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("class duels")
        verbose_name_plural = _("class duels")

    def __str__(self) -> str:
        return f"{self.lobby.join_code} · round {self.round}"


class ClassDuel(models.Model):
    """One pair's duel in one round of a ``ClassRun``.

    ``players`` are the lobby participants' ids in seating order (p1, p2), which is how
    a student is recognised from round to round, guests included.
    """

    run = models.ForeignKey(ClassRun, on_delete=models.CASCADE, related_name="duels")
    round = models.PositiveSmallIntegerField(_("round"))
    session = models.OneToOneField(GameSession, on_delete=models.CASCADE, related_name="class_duel")
    players = models.JSONField(_("players"), default=list)
    card_set = models.CharField(_("card set"), max_length=3, blank=True)

    class Meta:
        ordering = ["run", "round", "id"]
        verbose_name = _("class duel")
        verbose_name_plural = _("class duels")

    def __str__(self) -> str:
        return f"round {self.round} · {self.session.join_code}"


def validate_cards_per_player(value: int) -> None:
    """ZnajZnak's cards per player, the engine's rule (``games.engines.znajznak``,
    ``MIN_CARDS_PER_PLAYER`` to ``MAX_CARDS_PER_PLAYER``): the practice's field, the practice
    and homework forms and the practice service all refuse with this message."""
    whole = isinstance(value, int) and not isinstance(value, bool)
    if not whole or not MIN_CARDS_PER_PLAYER <= value <= MAX_CARDS_PER_PLAYER:
        raise ValidationError(
            _(
                "Cards per player must be a whole number from %(low)d to %(high)d. The rulebook "
                "deals 5, or 4 when the group has more than 26; with one card the first STOP ends "
                "the game before anyone names a symbol."
            ),
            code="cards_per_player",
            params={"low": MIN_CARDS_PER_PLAYER, "high": MAX_CARDS_PER_PLAYER},
        )


class PracticeAssignment(models.Model):
    """A teacher's practice for students alone: against the clock or a simulated opponent.

    Students open it with its ``code`` (the join form takes it too) and start as many
    practice games as they like; each one is a ``PracticeRun``.
    """

    class Mode(models.TextChoices):
        BOT = "bot", _("Against a simulated opponent")
        CLOCK = "clock", _("Against the clock")
        EITHER = "either", _("The student chooses")

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("teacher"), on_delete=models.CASCADE, related_name="+"
    )
    title = models.CharField(_("title"), max_length=120)
    code = models.CharField(_("code"), max_length=6, db_index=True)
    deck = models.ForeignKey(
        "content.Deck", verbose_name=_("deck"), on_delete=models.PROTECT, related_name="practice_assignments"
    )
    card_set = models.CharField(_("card set"), max_length=3, blank=True)
    mode = models.CharField(_("mode"), max_length=8, choices=Mode.choices, default=Mode.EITHER)
    cards_per_player = models.PositiveSmallIntegerField(
        _("cards"), default=5, validators=[validate_cards_per_player]
    )
    bot_seconds = models.DecimalField(
        _("opponent's seconds per find"), max_digits=5, decimal_places=1, default=8
    )
    bot_accuracy = models.PositiveSmallIntegerField(_("opponent's right names (%)"), default=80)
    timer = models.PositiveIntegerField(_("time limit (seconds)"), null=True, blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("practice assignment")
        verbose_name_plural = _("practice assignments")

    def __str__(self) -> str:
        return f"{self.title} ({self.code})"


class PracticeRun(models.Model):
    """One practice game of one student, and its result once it is over."""

    class Mode(models.TextChoices):
        BOT = "bot", _("Against a simulated opponent")
        CLOCK = "clock", _("Against the clock")

    session = models.OneToOneField(GameSession, on_delete=models.CASCADE, related_name="practice")
    assignment = models.ForeignKey(
        PracticeAssignment, on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("student"), on_delete=models.CASCADE, related_name="+"
    )
    mode = models.CharField(_("mode"), max_length=8, choices=Mode.choices)
    bot_seconds = models.DecimalField(_("opponent's seconds per find"), max_digits=5, decimal_places=1)
    bot_accuracy = models.PositiveSmallIntegerField(_("opponent's right names (%)"))
    started = models.DateTimeField(_("started"), auto_now_add=True)
    finished = models.DateTimeField(_("finished"), null=True, blank=True)
    won = models.BooleanField(_("won"), null=True, blank=True)
    seconds = models.PositiveIntegerField(_("time (seconds)"), null=True, blank=True)
    named_right = models.PositiveSmallIntegerField(_("named right"), default=0)
    named_wrong = models.PositiveSmallIntegerField(_("named wrong or not known"), default=0)
    reason = models.CharField(_("how it ended"), max_length=16, blank=True)

    class Meta:
        ordering = ["-started"]
        verbose_name = _("practice game")
        verbose_name_plural = _("practice games")

    def __str__(self) -> str:
        return f"{self.student} · {self.mode} · {timezone.localtime(self.started):%Y-%m-%d %H:%M}"


class KnowledgeBalanceRun(BuildJob):
    """One run of the Knowledge? balance simulator on a board, started from its admin page
    (a job like a deck build: ``state``, ``progress``, ``message``; no ``files``).

    ``snapshot`` keeps what was simulated (the board as a game setup and the question
    rows, ``{category, answer}``), so the figures stay those of the board as it was;
    ``figures`` holds one row per variant and start (``Figures.to_dict``). Written only by
    ``games.play.knowledge.balance`` and ``balance_run``.
    """

    board = models.ForeignKey(
        KnowledgeBoard, verbose_name=_("board"), on_delete=models.CASCADE, related_name="+"
    )
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("started by"), on_delete=models.CASCADE, related_name="+"
    )
    snapshot = models.JSONField(_("simulated"), default=dict, blank=True)
    figures = models.JSONField(_("figures"), default=list, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name = _("Knowledge? balance simulation")
        verbose_name_plural = _("Knowledge? balance simulations")
        indexes = [models.Index(fields=["state", "updated"], name="games_balance_state_updated")]

    def __str__(self) -> str:
        return f"{self.board_id} · {timezone.localtime(self.created):%Y-%m-%d %H:%M}"
