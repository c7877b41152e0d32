"""Game content authored by curators and teachers.

Names follow the rulebooks (``../shared/rules/``): a ZnajZnak ``Symbol`` has a
picture, a name in bold, an explanatory description, a short historical outline,
a three-digit number and its chronological marking (``Period``); an
``ActivityCard`` carries six ``ActivityTerm`` slots A–F; a ``KnowledgeQuestion``
is a quiz card with a category, a front, a back and the answer that moves a marker.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from games.engines.activity import MAX_POINTS, MIN_POINTS
from games.engines.base import InvalidSetup
from games.engines.knowledge_board import board_from_dict

from .answers import AnswerError, answer_format, answer_validate
from .media import random_name
from .validators import validate_event_date, validate_picture_file

LANGUAGES = [("pl", _("Polish")), ("en", _("English")), ("cs", _("Czech")), ("de", _("German"))]
HEX_COLOUR = RegexValidator(r"^#[0-9a-fA-F]{6}$", _("Enter a colour as #rrggbb, e.g. #c8102e."))


class Status(models.TextChoices):
    DRAFT = "draft", _("Draft")
    PUBLISHED = "published", _("Published")


class AuthoredContent(models.Model):
    """Owned content: its owner and the editors they grant may change it.

    Published content is visible to every teacher (a shared library); drafts only to
    the owner, the editors and admins. Rules in ``content/permissions.py``.
    """

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("owner"),
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
        help_text=_("Who authored this. Leave empty for content of the shared library."),
    )
    editors = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("editors"),
        related_name="+",
        blank=True,
        help_text=_("Teachers granted the right to edit this besides its owner."),
    )
    #: Stays with the content wherever it travels: a package (``content/packages``) carries
    #: it, and importing the package elsewhere matches it before any name.
    uid = models.UUIDField(
        _("stable identifier"),
        default=uuid.uuid4,
        unique=True,
        editable=False,
        help_text=_("The same in every Talia this content is exported to."),
    )
    #: The library entry this row was copied from ("Copy to my content", ``content.library``).
    copied_from = models.ForeignKey(
        "content.LibraryEntry",
        verbose_name=_("copied from the library"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        abstract = True


class Period(models.Model):
    """A chronological marking: II RP, II wojna światowa, PRL (the three period fields)."""

    slug = models.SlugField(_("key"), unique=True)
    name = models.CharField(_("name"), max_length=80)
    start_year = models.PositiveSmallIntegerField(_("start year"))
    end_year = models.PositiveSmallIntegerField(_("end year"))
    label = models.CharField(
        _("years as printed"),
        max_length=40,
        blank=True,
        help_text=_("How the years are printed, e.g. 1944/45–1989. Empty: start–end."),
    )
    colour = models.CharField(_("colour"), max_length=7, validators=[HEX_COLOUR])
    position = models.PositiveSmallIntegerField(_("position"), default=0)

    class Meta:
        ordering = ["position", "start_year"]
        verbose_name = _("period")
        verbose_name_plural = _("periods")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(start_year__lte=models.F("end_year")),
                name="period_years_in_order",
                violation_error_message=_("The start year must not be after the end year."),
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.years})"

    @property
    def years(self) -> str:
        return self.label or f"{self.start_year}–{self.end_year}"


class Theme(models.Model):
    """A key for grouping symbols: people, WWII symbols, PRL events ("Connect the symbols")."""

    slug = models.SlugField(_("key"), unique=True)
    name = models.CharField(_("name"), max_length=80)
    description = models.TextField(_("description"), blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("theme")
        verbose_name_plural = _("themes")

    def __str__(self) -> str:
        return self.name


class Tag(models.Model):
    """A free label for Activity cards and Knowledge? questions (filters, decks, quizzes)."""

    slug = models.SlugField(_("tag"), unique=True)

    class Meta:
        ordering = ["slug"]
        verbose_name = _("tag")
        verbose_name_plural = _("tags")

    def __str__(self) -> str:
        return self.slug


class Collection(models.Model):
    """An edition of symbols such as "ZnajZnak 1918–1989"; symbol numbers are unique within it."""

    slug = models.SlugField(_("key"), unique=True)
    name = models.CharField(_("name"), max_length=120)
    description = models.TextField(_("description"), blank=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("collection")
        verbose_name_plural = _("collections")

    def __str__(self) -> str:
        return self.name


def symbol_picture_path(instance: Symbol, filename: str) -> str:
    """A random name: the uploaded file's name is often the symbol's (media is private too)."""
    return random_name("symbols", filename)


def import_file_path(instance: ImportJob, filename: str) -> str:
    """A random name for an uploaded table or ZIP of pictures (they hold the answers)."""
    return random_name("imports", filename)


#: A symbol's number is printed with three digits (002), so 1 to 999.
SYMBOL_NUMBERS = range(1, 1000)


class Symbol(AuthoredContent):
    """A ZnajZnak symbol, as on the game card's back and the auxiliary card."""

    # No index of its own: symbol_number_unique_in_collection leads with it (tests/test_indexes.py).
    collection = models.ForeignKey(
        Collection,
        verbose_name=_("collection"),
        on_delete=models.PROTECT,
        related_name="symbols",
        db_index=False,
    )
    number = models.PositiveSmallIntegerField(
        _("number"),
        validators=[MinValueValidator(SYMBOL_NUMBERS[0]), MaxValueValidator(SYMBOL_NUMBERS[-1])],
        help_text=_("Printed with three digits (002); unique within the collection."),
    )
    name = models.CharField(_("name"), max_length=120, help_text=_("Printed in bold."))
    alternative_names = models.TextField(
        _("accepted alternative names"),
        blank=True,
        help_text=_("One per line. A typed answer matching any of them counts as right."),
    )
    description = models.TextField(
        _("explanatory description"),
        max_length=400,
        help_text=_("Printed after the name on the game card's back; one sentence."),
    )
    outline = models.TextField(
        _("short historical outline"),
        max_length=1500,
        blank=True,
        help_text=_("Printed on the auxiliary card's back."),
    )
    picture = models.FileField(
        _("picture"),
        upload_to=symbol_picture_path,
        blank=True,
        validators=[validate_picture_file],
        help_text=_("PNG, JPEG, WebP or SVG; at most 5 MB. SVGs are cleaned of scripts."),
    )
    periods = models.ManyToManyField(Period, verbose_name=_("periods"), related_name="symbols")
    themes = models.ManyToManyField(Theme, verbose_name=_("themes"), related_name="symbols", blank=True)
    portal_url = models.URLField(
        _("education portal page"),
        blank=True,
        help_text=_("The page on the topic; printed as a QR code on the auxiliary card."),
    )
    date = models.CharField(
        _("date"),
        max_length=10,
        blank=True,
        validators=[validate_event_date],
        help_text=_(
            "When the event the symbol stands for happened: YYYY, YYYY-MM or YYYY-MM-DD "
            "(1944-08-01). Quizzes put dated symbols in order; leave it empty for a symbol "
            "without one date, such as most people."
        ),
    )
    language = models.CharField(_("language"), max_length=5, choices=LANGUAGES, default="pl")
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)

    class Meta:
        ordering = ["collection", "number"]
        verbose_name = _("symbol")
        verbose_name_plural = _("symbols")
        constraints = [
            models.UniqueConstraint(
                fields=["collection", "number"],
                name="symbol_number_unique_in_collection",
                violation_error_message=_("This collection already has a symbol with this number."),
            )
        ]

    def __str__(self) -> str:
        return f"{self.code} {self.name}"

    @property
    def code(self) -> str:
        """The number as printed on the cards: three digits."""
        return f"{self.number:03d}" if self.number is not None else "---"

    @property
    def alternative_name_list(self) -> list[str]:
        return [line.strip() for line in self.alternative_names.splitlines() if line.strip()]


class Visibility(models.TextChoices):
    PRIVATE = "private", _("Private: only me and the editors I grant")
    SHARED = "shared", _("Shared: every teacher can see and use it")


class SymbolSet(AuthoredContent):
    """A curated, ordered list of symbols; a deck is built from it in this order."""

    name = models.CharField(_("name"), max_length=120)
    slug = models.SlugField(_("key"), unique=True, help_text=_("Used in URLs and commands."))
    description = models.TextField(_("description"), blank=True)
    visibility = models.CharField(
        _("visibility"), max_length=10, choices=Visibility.choices, default=Visibility.PRIVATE
    )
    symbols = models.ManyToManyField(
        Symbol, through="SymbolSetMember", related_name="symbol_sets", verbose_name=_("symbols")
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("symbol set")
        verbose_name_plural = _("symbol sets")

    def __str__(self) -> str:
        return self.name


class SymbolSetMember(models.Model):
    # No index of its own: symbol_once_per_set leads with it (tests/test_indexes.py).
    symbol_set = models.ForeignKey(
        SymbolSet, on_delete=models.CASCADE, related_name="members", db_index=False
    )
    symbol = models.ForeignKey(
        Symbol, verbose_name=_("symbol"), on_delete=models.PROTECT, related_name="memberships"
    )
    position = models.PositiveIntegerField(_("position"), default=0, db_index=True)

    class Meta:
        ordering = ["position", "id"]
        verbose_name = _("symbol in the set")
        verbose_name_plural = _("symbols in the set")
        constraints = [
            models.UniqueConstraint(
                fields=["symbol_set", "symbol"],
                name="symbol_once_per_set",
                violation_error_message=_("This symbol is already in the set."),
            )
        ]

    def __str__(self) -> str:
        return str(self.symbol)


class ActivityCard(AuthoredContent):
    """An Activity term card: six terms A–F, one for each area of the board."""

    title = models.CharField(
        _("title"),
        max_length=120,
        blank=True,
        help_text=_("Optional; shown in lists. Empty: the card's terms."),
    )
    language = models.CharField(_("language"), max_length=5, choices=LANGUAGES, default="pl")
    tags = models.ManyToManyField(Tag, verbose_name=_("tags"), blank=True, related_name="+")
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)

    class Meta:
        ordering = ["id"]
        verbose_name = _("Activity card")
        verbose_name_plural = _("Activity cards")

    def __str__(self) -> str:
        if self.title:
            return self.title
        terms = [t.text for t in self.terms.all()[:3]] if self.pk else []
        return " · ".join(terms) or _("Activity card")


class ActivityForm(models.TextChoices):
    """How the term must be presented, by the letter of the board area."""

    DRAW = "draw", _("draw")
    DESCRIBE = "describe", _("describe")
    MIME = "mime", _("mime")


SLOT_FORMS = {
    "A": ActivityForm.DRAW,
    "B": ActivityForm.DESCRIBE,
    "C": ActivityForm.MIME,
    "D": ActivityForm.DRAW,
    "E": ActivityForm.DESCRIBE,
    "F": ActivityForm.MIME,
}
SLOTS = tuple(SLOT_FORMS)

#: Activity rulebook, Play: a term scores 3 to 6 points (6 opens the game to all teams);
#: the engine's numbers, so the game and the authoring agree.
TERM_POINTS_MIN, TERM_POINTS_MAX = MIN_POINTS, MAX_POINTS


def term_points_problem(kind: str, points: int | None) -> str | None:
    """What is wrong with a term's points, by its kind, or None: ``"missing"`` (a term
    without points), ``"range"`` (a term outside 3–6) or ``"unexpected"`` (a chain or a
    rhyme with points). Activity rulebook, Play. Each writer words it for its own format.

    >>> term_points_problem("term", 7), term_points_problem("chain", None)
    ('range', None)
    """
    if kind != ActivityTerm.Kind.TERM:
        return None if points is None else "unexpected"
    if points is None:
        return "missing"
    return None if TERM_POINTS_MIN <= points <= TERM_POINTS_MAX else "range"


def card_slots_problem(slots: list[str]) -> str | None:
    """Why these slots do not make a card, or None: a card has six terms, one in each slot
    A–F (Activity rulebook, Play)."""
    doubled = sorted({slot for slot in slots if slots.count(slot) > 1})
    if doubled:
        return _("Each slot appears once; %(slots)s appear more than once.") % {"slots": ", ".join(doubled)}
    missing = [slot for slot in SLOTS if slot not in slots]
    if missing:
        return _("A card has six terms, A to F; fill in %(slots)s.") % {"slots": ", ".join(missing)}
    return None


class ActivityTerm(models.Model):
    """One slot A–F of an Activity card: a term with its points, or a chain or a rhyme.

    Activity rulebook, Play: a term scores its points (3–6; 6 opens the game to all
    teams); CHAIN starts from the word on the card (+4 for the last valid word);
    RHYME hides the word on the card (+5 when guessed).
    """

    class Kind(models.TextChoices):
        TERM = "term", _("term")
        CHAIN = "chain", _("chain")
        RHYME = "rhyme", _("rhyme")

    # No index of its own: one_term_per_slot leads with it (tests/test_indexes.py).
    card = models.ForeignKey(ActivityCard, on_delete=models.CASCADE, related_name="terms", db_index=False)
    slot = models.CharField(_("slot"), max_length=1, choices=[(s, s) for s in SLOTS])
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices, default=Kind.TERM)
    text = models.CharField(_("text"), max_length=120)
    points = models.PositiveSmallIntegerField(
        _("points"),
        null=True,
        blank=True,
        validators=[MinValueValidator(TERM_POINTS_MIN), MaxValueValidator(TERM_POINTS_MAX)],
        help_text=_("3–6 for a term; empty for chain and rhyme."),
    )

    class Meta:
        ordering = ["card", "slot"]
        verbose_name = _("term")
        verbose_name_plural = _("terms")
        constraints = [
            models.UniqueConstraint(fields=["card", "slot"], name="one_term_per_slot"),
            models.CheckConstraint(
                condition=(
                    models.Q(kind="term", points__gte=TERM_POINTS_MIN, points__lte=TERM_POINTS_MAX)
                    | (~models.Q(kind="term") & models.Q(points__isnull=True))
                ),
                name="term_points_rule",
                violation_error_message=_("A term needs points from 3 to 6; chain and rhyme have no points."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.slot}: {self.text}"

    @property
    def form(self) -> str:
        return SLOT_FORMS[self.slot]

    def clean(self) -> None:
        # A term's points out of 3–6 are the field validators' to report.
        problem = term_points_problem(self.kind, self.points)
        if problem == "missing":
            raise ValidationError({"points": _("Give the term its points, from 3 to 6.")})
        if problem == "unexpected":
            raise ValidationError({"points": _("Chain and rhyme have no points: leave the field empty.")})


class KnowledgeCategory(models.TextChoices):
    NUMBER = "number", _("number (123)")
    LETTER = "letter", _("letter (ABC)")
    COLOUR = "colour", _("colour")


KNOWLEDGE_LETTERS = ("A", "B", "C", "D", "E")
KNOWLEDGE_COLOURS = ("red", "yellow", "green", "blue", "white")


class KnowledgeQuestion(AuthoredContent):
    """A Knowledge? quiz card.

    Knowledge? rulebook, The Quiz Cards: a number card's answer is 0–5 steps; a letter
    card's answer is one of A–E; a colour card's one of five colours. Several letters
    or colours mean "the nearest available of these". ``answer`` holds an int for
    number cards and a list of letters or colours otherwise (see ``answer_parse``).
    """

    category = models.CharField(_("category"), max_length=8, choices=KnowledgeCategory.choices)
    front = models.TextField(_("front (the question)"), max_length=1000)
    back = models.TextField(_("back (answer and explanation)"), max_length=1500)
    answer = models.JSONField(_("answer"))
    source = models.CharField(_("source"), max_length=300, blank=True)
    language = models.CharField(_("language"), max_length=5, choices=LANGUAGES, default="pl")
    tags = models.ManyToManyField(Tag, verbose_name=_("tags"), blank=True, related_name="+")
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)

    class Meta:
        ordering = ["id"]
        verbose_name = _("Knowledge? question")
        verbose_name_plural = _("Knowledge? questions")

    def __str__(self) -> str:
        return self.front[:80]

    @property
    def answer_display(self) -> str:
        return answer_format(self.category, self.answer)

    def clean(self) -> None:
        try:
            self.answer = answer_validate(self.category, self.answer)
        except AnswerError as error:
            raise ValidationError({"answer": str(error)}) from error


class KnowledgeBoard(AuthoredContent):
    """A Knowledge? game board: a closed loop of spaces (rules README, Knowledge?: the board
    is data).

    ``spaces`` is the loop clockwise, each ``{"colour", "letter"}`` or ``null`` for a space
    showing neither (the finish may be such); ``finish`` is the start/finish space,
    ``opponent_start`` the opponents' start space (they stand on it and the 4 behind it)
    and ``opponent_start_hard`` the harder start ("in the lower area of the board"). The
    format is the game log's (``docs/replay.md``); the checks are the engine's
    (``games.engines.knowledge_board.board_from_dict``).
    """

    name = models.CharField(_("name"), max_length=120)
    description = models.TextField(_("description"), blank=True)
    spaces = models.JSONField(
        _("spaces"),
        help_text=_("The loop clockwise from space 0: a colour and a letter for each space, or none."),
    )
    finish = models.PositiveSmallIntegerField(_("start/finish space"), default=0)
    opponent_start = models.PositiveSmallIntegerField(
        _("opponents' start space"), help_text=_("The opponents stand on it and on the 4 spaces behind it.")
    )
    opponent_start_hard = models.PositiveSmallIntegerField(
        _("opponents' harder start space"),
        null=True,
        blank=True,
        help_text=_("Optional: the start space for a more challenging game, further ahead."),
    )
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)

    class Meta:
        ordering = ["name", "id"]
        verbose_name = _("Knowledge? board")
        verbose_name_plural = _("Knowledge? boards")

    def __str__(self) -> str:
        return self.name

    def as_setup(self) -> dict[str, object]:
        """The board as a game setup and a game log write it (``setup["board"]``)."""
        return {
            "spaces": self.spaces,
            "finish": self.finish,
            "opponent_start": self.opponent_start,
            "opponent_start_hard": self.opponent_start_hard,
        }

    def clean(self) -> None:
        """Refuse a board the game cannot be played on, saying what to change."""
        spaces = self.spaces if isinstance(self.spaces, list) else []
        shown = [space for space in spaces if isinstance(space, dict)]
        colours = [c for c in KNOWLEDGE_COLOURS if not any(space.get("colour") == c for space in shown)]
        letters = [x for x in KNOWLEDGE_LETTERS if not any(space.get("letter") == x for space in shown)]
        if spaces and (colours or letters):
            raise ValidationError(
                {
                    "spaces": _(
                        "Every colour and every letter must occur on the board, or a card asking for "
                        "it could never be played. Missing: %(missing)s."
                    )
                    % {"missing": ", ".join([*colours, *letters])}
                }
            )
        try:
            board_from_dict(self.as_setup())
        except InvalidSetup as error:
            raise ValidationError(str(error)) from error


class KnowQuestion(AuthoredContent):
    """A question of the Know question bank, kept from a game played in class.

    Know rulebook, Resolution: "the facilitator marks the best answers against the agreed
    source"; after the game the questions with their best-marked answers are kept here,
    edited in the admin and used for follow-up quizzes. Fields for other code (quizzes):

    - ``text``: the question as the team wrote it (or as the teacher edited it);
    - ``answers``: a JSON list of strings, the accepted (best-marked) answers, best first;
      it may be empty when no answer won (the teacher fills it in);
    - ``source``: the agreed source of answers of the game;
    - ``language``, ``tags``, ``status`` (only published questions are shared with other
      teachers), ``owner`` (the teacher who kept it);
    - ``created_from`` and ``question_number``: the Know session and the Question Number
      the question came from (nothing says which team wrote it or gave an answer).
    """

    text = models.TextField(_("question"), max_length=500)
    answers = models.JSONField(
        _("accepted answers"),
        default=list,
        blank=True,
        help_text=_("The best-marked answers, one per line in the admin; any of them is right."),
    )
    source = models.CharField(_("agreed source of answers"), max_length=300, blank=True)
    language = models.CharField(_("language"), max_length=5, choices=LANGUAGES, default="pl")
    tags = models.ManyToManyField(Tag, verbose_name=_("tags"), blank=True, related_name="+")
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)
    created_from = models.ForeignKey(
        "games.GameSession",
        verbose_name=_("kept from game"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    question_number = models.PositiveSmallIntegerField(
        _("Question Number in that game"), null=True, blank=True
    )

    class Meta:
        ordering = ["-created", "id"]
        verbose_name = _("Know question")
        verbose_name_plural = _("Know questions")
        constraints = [
            # Keeping a game's questions twice does not copy them twice.
            models.UniqueConstraint(
                fields=["created_from", "question_number"],
                condition=models.Q(created_from__isnull=False),
                name="content_knowquestion_once_per_game",
            )
        ]

    def __str__(self) -> str:
        return self.text[:80]

    def clean(self) -> None:
        if not isinstance(self.answers, list) or not all(isinstance(a, str) for a in self.answers):
            raise ValidationError({"answers": _("The accepted answers are a list of texts.")})


def question_picture_path(instance: QuizQuestion | QuizQuestionOption, filename: str) -> str:
    """A random name: a picture's file name could give the answer away (media is private too)."""
    return random_name("questions", filename)


class QuizQuestion(AuthoredContent):
    """A question a teacher writes for quizzes: multiple choice, chronology or matching.

    Its ``options`` (:class:`QuizQuestionOption`, 2–6 of them) are the choices, one marked
    right; the events, each with its date; or the pairs, a left-hand side (text or picture)
    and the right-hand side it goes with. A question students could not answer fairly (no
    right option, two alike, two events of one date, a side without its pair) is refused
    where it is written and imported (``content/questions.py``, with the engine's rules in
    ``games.engines.quiz.question_problems``). Quizzes ask it as ``question:<pk>``.
    """

    class Kind(models.TextChoices):
        CHOICE = "choice", _("Multiple choice")
        CHRONOLOGY = "chronology", _("Chronology: put the events in order")
        MATCHING = "matching", _("Matching: pair the two sides")

    kind = models.CharField(_("kind"), max_length=12, choices=Kind.choices, default=Kind.CHOICE)
    text = models.TextField(
        _("question"),
        max_length=1000,
        blank=True,
        help_text=_(
            "What the student reads. A chronology or a matching may leave it empty: the page says what to do."
        ),
    )
    picture = models.FileField(
        _("picture"),
        upload_to=question_picture_path,
        blank=True,
        validators=[validate_picture_file],
        help_text=_("Optional. PNG, JPEG, WebP or SVG; at most 5 MB."),
    )
    explanation = models.TextField(
        _("explanation"),
        max_length=1500,
        blank=True,
        help_text=_("Shown with the right answer after the student hands in, and in the answer key."),
    )
    language = models.CharField(_("language"), max_length=5, choices=LANGUAGES, default="pl")
    tags = models.ManyToManyField(Tag, verbose_name=_("tags"), blank=True, related_name="+")
    status = models.CharField(_("status"), max_length=12, choices=Status.choices, default=Status.DRAFT)

    class Meta:
        ordering = ["-created", "id"]
        verbose_name = _("quiz question")
        verbose_name_plural = _("quiz questions")

    def __str__(self) -> str:
        if self.text.strip():
            return self.text[:80]
        texts = [o.text for o in self.options.all()[:3] if o.text] if self.pk else []
        return " · ".join(texts) or str(self.get_kind_display())

    def clean(self) -> None:
        if self.kind == self.Kind.CHOICE and not self.text.strip() and not self.picture:
            raise ValidationError(
                {"text": _("Write the question (or give it a picture): the student must know what is asked.")}
            )


class QuizQuestionOption(models.Model):
    """One option of a :class:`QuizQuestion`: a choice, an event with its date, or a pair."""

    question = models.ForeignKey(QuizQuestion, on_delete=models.CASCADE, related_name="options")
    position = models.PositiveSmallIntegerField(_("position"), default=0, db_index=True)
    text = models.CharField(
        _("text"), max_length=300, blank=True, help_text=_("The option, the event or the left-hand side.")
    )
    picture = models.FileField(
        _("picture"), upload_to=question_picture_path, blank=True, validators=[validate_picture_file]
    )
    correct = models.BooleanField(
        _("right answer"), default=False, help_text=_("Multiple choice: tick the one right option.")
    )
    date = models.CharField(
        _("date"),
        max_length=10,
        blank=True,
        validators=[validate_event_date],
        help_text=_("Chronology: YYYY, YYYY-MM or YYYY-MM-DD."),
    )
    match = models.CharField(
        _("pairs with"),
        max_length=300,
        blank=True,
        help_text=_("Matching: the right-hand side that goes with this one."),
    )

    class Meta:
        ordering = ["position", "id"]
        verbose_name = _("option")
        verbose_name_plural = _("options")

    def __str__(self) -> str:
        return self.text or self.match or str(_("(picture)"))


class LibraryEntry(models.Model):
    """Content a teacher published to the school's library (``content.library``).

    Other teachers find it by game (``kind``), theme, period and language, preview it and
    copy it into their own content; each copy names its entry (``copied_from``). The entry
    points at the publisher's live content: unpublishing hides it and keeps the copies.
    """

    class Kind(models.TextChoices):
        SYMBOL_SET = "symbol_set", _("ZnajZnak: a symbol set")
        ACTIVITY_CARDS = "activity_cards", _("Activity: cards")
        KNOWLEDGE = "knowledge", _("Knowledge?: questions and boards")
        KNOW_QUESTIONS = "know_questions", _("Know: questions")

    kind = models.CharField(_("game"), max_length=20, choices=Kind.choices)
    title = models.CharField(_("title"), max_length=120)
    description = models.TextField(_("description"), max_length=2000, blank=True)
    language = models.CharField(_("language"), max_length=5, choices=LANGUAGES, default="pl")
    themes = models.ManyToManyField(Theme, verbose_name=_("themes"), blank=True, related_name="+")
    periods = models.ManyToManyField(Period, verbose_name=_("periods"), blank=True, related_name="+")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("published by"), on_delete=models.PROTECT, related_name="+"
    )
    published = models.BooleanField(_("in the library"), default=True)
    symbol_set = models.ForeignKey(
        SymbolSet,
        verbose_name=_("symbol set"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    activity_cards = models.ManyToManyField(
        ActivityCard, verbose_name=_("Activity cards"), blank=True, related_name="+"
    )
    knowledge_questions = models.ManyToManyField(
        KnowledgeQuestion, verbose_name=_("Knowledge? questions"), blank=True, related_name="+"
    )
    knowledge_boards = models.ManyToManyField(
        KnowledgeBoard, verbose_name=_("Knowledge? boards"), blank=True, related_name="+"
    )
    know_questions = models.ManyToManyField(
        KnowQuestion, verbose_name=_("Know questions"), blank=True, related_name="+"
    )
    created = models.DateTimeField(_("published"), auto_now_add=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        ordering = ["-created", "-id"]
        verbose_name = _("library entry")
        verbose_name_plural = _("library entries")

    def __str__(self) -> str:
        return self.title


class CheckedImport(models.Model):
    """What a table import and a package import share: a check (nothing written) with a
    preview, then a write in one transaction, each step in a Celery task that records its
    progress here (``content.imports``, ``content.packages.services``).

    The states are CHECKING → CHECKED (or INVALID) → IMPORTING → DONE (or FAILED); each
    kind names them in its own words (``State``) with the same values, so the sweep of
    lost jobs (``imports.imports_sweep``) serves both.
    """

    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    preview = models.JSONField(_("preview"), default=dict, blank=True)
    result = models.JSONField(_("result"), default=dict, blank=True)
    error = models.TextField(_("error"), blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)
    #: When a worker took the current step (check or import); empty while it waits in
    #: the queue, so the sweep of lost jobs (``imports.imports_sweep``) tells the two apart.
    started = models.DateTimeField(_("started"), null=True, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created"]

    @property
    def finished(self) -> bool:
        return self.state in ("invalid", "done", "failed")  # type: ignore[attr-defined]


class ImportJob(CheckedImport):
    """One import of a file by a curator: preview first (nothing written), then apply.

    The rows are checked in a Celery task that records its progress here; the preview
    lists every row's errors; only a confirmed, error-free preview is written, in one
    transaction, so a bad file changes nothing.
    """

    class Kind(models.TextChoices):
        SYMBOLS = "symbols", _("Symbols")
        ACTIVITY_CARDS = "activity_cards", _("Activity cards")
        KNOWLEDGE_QUESTIONS = "knowledge_questions", _("Knowledge? questions")
        QUIZ_QUESTIONS = "quiz_questions", _("Quiz questions")

    class State(models.TextChoices):
        CHECKING = "checking", _("Checking the rows")
        CHECKED = "checked", _("Ready to import")
        INVALID = "invalid", _("The file has errors")
        IMPORTING = "importing", _("Importing")
        DONE = "done", _("Imported")
        FAILED = "failed", _("Failed")

    kind = models.CharField(_("what"), max_length=24, choices=Kind.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("curator"),
        on_delete=models.CASCADE,
        related_name="+",
    )
    data_file = models.FileField(_("table (CSV or XLSX)"), upload_to=import_file_path)
    pictures_zip = models.FileField(_("pictures (ZIP)"), upload_to=import_file_path, blank=True)
    state = models.CharField(_("state"), max_length=12, choices=State.choices, default=State.CHECKING)
    total_rows = models.PositiveIntegerField(_("rows"), default=0)

    class Meta(CheckedImport.Meta):
        verbose_name = _("import")
        verbose_name_plural = _("imports")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} · {timezone.localtime(self.created):%Y-%m-%d %H:%M}"


def package_file_path(instance: PackageImport, filename: str) -> str:
    """A random name for an uploaded package (it holds the answers)."""
    return random_name("packages", filename)


class PackageImport(CheckedImport):
    """One import of a Talia package (``docs/packages.md``): check, preview, choose, apply.

    Between the check and the write the teacher chooses, per item of the preview, to
    import it, use the matching content already here, import it as a copy, or skip it
    (``choices``, keyed by the item's ``ref``).
    """

    class State(models.TextChoices):
        CHECKING = "checking", _("Checking the package")
        CHECKED = "checked", _("Ready to import")
        INVALID = "invalid", _("The package has problems")
        IMPORTING = "importing", _("Importing")
        DONE = "done", _("Imported")
        FAILED = "failed", _("Failed")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("teacher"), on_delete=models.CASCADE, related_name="+"
    )
    package = models.FileField(_("package (ZIP)"), upload_to=package_file_path)
    language = models.CharField(
        _("language of the messages"), max_length=12, blank=True, help_text=_("The teacher's, at upload.")
    )
    kind = models.CharField(_("what"), max_length=24, blank=True)
    title = models.CharField(_("title"), max_length=200, blank=True)
    state = models.CharField(_("state"), max_length=12, choices=State.choices, default=State.CHECKING)
    choices = models.JSONField(_("choices"), default=dict, blank=True)

    class Meta(CheckedImport.Meta):
        verbose_name = _("package import")
        verbose_name_plural = _("package imports")

    def __str__(self) -> str:
        return f"{self.title or _('Package')} · {timezone.localtime(self.created):%Y-%m-%d %H:%M}"


class BuildState(models.TextChoices):
    QUEUED = "queued", _("Waiting for a worker")
    RUNNING = "running", _("Building")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class BuildJob(models.Model):
    """Long work that renders files: its options, state, progress and the files made."""

    options = models.JSONField(_("options"), default=dict, blank=True)
    files = models.JSONField(_("files"), default=dict, blank=True)
    state = models.CharField(_("state"), max_length=10, choices=BuildState.choices, default=BuildState.QUEUED)
    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    message = models.TextField(_("message"), blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        abstract = True
        ordering = ["-created"]


class Deck(BuildJob):
    """A ZnajZnak deck built from a symbol set: cards, lesson card sets, layouts, PDFs.

    ``snapshot`` keeps what the deck was built from (every symbol's texts, periods and a
    copy of its picture), so a later edit of a symbol does not silently change a
    printed deck; ``plan`` keeps the built cards, card sets and face layouts.
    """

    name = models.CharField(_("name"), max_length=160)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("owner"), on_delete=models.PROTECT, related_name="+"
    )
    symbol_set = models.ForeignKey(
        SymbolSet,
        verbose_name=_("symbol set"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="decks",
    )
    seed = models.PositiveIntegerField(_("seed"), default=0)
    snapshot = models.JSONField(_("built from"), default=dict, blank=True)
    plan = models.JSONField(_("cards and sets"), default=dict, blank=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("ZnajZnak deck")
        verbose_name_plural = _("ZnajZnak decks")

    def __str__(self) -> str:
        return self.name


class PrintJob(BuildJob):
    """Print-ready PDFs of Activity cards, Knowledge? cards or Know's blank cards."""

    class Kind(models.TextChoices):
        ACTIVITY = "activity", _("Activity cards")
        KNOWLEDGE = "knowledge", _("Knowledge? cards")
        KNOW = "know", _("Know: blank question and answer cards")

    kind = models.CharField(_("what"), max_length=12, choices=Kind.choices)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("owner"), on_delete=models.CASCADE, related_name="+"
    )
    snapshot = models.JSONField(_("printed from"), default=dict, blank=True)

    class Meta:
        ordering = ["-created"]
        verbose_name = _("print")
        verbose_name_plural = _("prints")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} · {timezone.localtime(self.created):%Y-%m-%d %H:%M}"
