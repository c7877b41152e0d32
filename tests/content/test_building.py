"""Building ZnajZnak decks and printing cards (content/building.py, content/tasks_print.py).

Rules checked (rules/znajznak.md and rules/README.md, ZnajZnak): the order fits the
set, symbols map to points in the curator's order, the boxed game prints 132 of the
133 cards of order 11, any two printed cards share exactly one symbol, lesson sets are
reported, everything is deterministic for a set snapshot and seed, and a deck keeps
what it was built from.

Most tests plan without PDFs (``{"render": False}``); the renderer is faked only in
tests of this service's own progress and failure handling; the snapshot test, the
print tests and the real-worker test render for real.
"""

from __future__ import annotations

import io
import itertools
import json
import time
from itertools import combinations

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from pypdf import PdfReader

from content import building
from content.decks import projective_plane
from content.demo.placeholders import placeholder_svg
from content.models import (
    ActivityTerm,
    BuildState,
    Deck,
    KnowledgeQuestion,
    PrintJob,
    Status,
    SymbolSetMember,
    Tag,
    Visibility,
)
from tests.factories import (
    ActivityCardFactory,
    CollectionFactory,
    KnowledgeQuestionFactory,
    SymbolFactory,
    TeacherFactory,
    UserFactory,
    symbol_set_with,
)

pytestmark = pytest.mark.django_db

PLAN_ONLY = {"render": False}
_collections = itertools.count(1)


# --- Helpers (test_deck_commands.py and test_deck_views.py use them too) ----------------------


def make_set(count: int, *, owner=None, pictures: bool = True, start: int = 1, collection=None, **kwargs):
    """A symbol set of ``count`` published symbols numbered from ``start``, with placeholder SVGs.

    Each set gets a collection of its own unless one is given (numbers are unique in one).
    """
    owner = owner or TeacherFactory()
    if collection is None:
        number = next(_collections)
        collection = CollectionFactory(slug=f"collection-{number}", name=f"Collection {number}")
    symbols = []
    for number in range(start, start + count):
        symbol = SymbolFactory(collection=collection, number=number, name=f"Symbol {number}", owner=owner)
        if pictures:
            symbol.picture.save(f"{number:03d}.svg", ContentFile(placeholder_svg(number)))
        symbols.append(symbol)
    return symbol_set_with(symbols, owner=owner, **kwargs)


def build(user, symbol_set, *, seed: int = 0, **options) -> Deck:
    """Create and build a deck in place (the task's work, without the queue)."""
    deck = building.deck_create(
        user=user, symbol_set=symbol_set, seed=seed, options={"render": False, **options}, enqueue=False
    )
    deck = building.deck_build(deck=deck)
    assert deck.state == BuildState.DONE, deck.message
    return deck


def assert_one_shared(cards: list[list[int]]) -> None:
    sets = [set(card) for card in cards]
    assert all(len(card) == len(s) for card, s in zip(cards, sets, strict=True))
    assert len({len(s) for s in sets}) == 1
    for a, b in combinations(sets, 2):
        assert len(a & b) == 1


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)


def stored(name: str) -> bytes:
    with default_storage.open(name, "rb") as handle:
        return handle.read()


# --- The order, the curator's order, the cards printed -------------------------------------


def test_a_set_of_57_makes_the_deck_of_order_7(teacher):
    deck = build(teacher, make_set(57, owner=teacher))

    plan = deck.plan
    assert (plan["order"], plan["symbols_per_card"], plan["card_count"]) == (7, 8, 57)
    assert len(plan["cards"]) == 57 and all(len(card) == 8 for card in plan["cards"])
    assert plan["symbols_dropped"] == [] and plan["cards_dropped"] == []
    assert sorted(plan["symbols_used"]) == list(range(1, 58))
    assert_one_shared(plan["cards"])
    assert deck.progress == 100 and "Order 7" in deck.message


def test_symbols_map_to_points_in_the_curators_order(teacher):
    symbol_set = make_set(60, owner=teacher)
    # The curator puts the last three symbols first: they take points 0, 1, 2.
    members = list(symbol_set.members.order_by("position"))
    for position, member in enumerate(members[-3:] + members[:-3], start=1):
        member.position = position
    SymbolSetMember.objects.bulk_update(members, ["position"])

    plan = build(teacher, symbol_set, order=7).plan

    in_order = [58, 59, 60, *range(1, 58)]
    expected = [[in_order[p] for p in card] for card in projective_plane(7)]
    assert plan["cards"] == expected
    assert [(s["number"], s["reason"]) for s in plan["symbols_dropped"]] == [
        (n, "the deck of order 7 has room for 57 symbols") for n in (55, 56, 57)
    ]


def test_the_boxed_game_prints_132_of_the_133_cards_of_order_11(teacher):
    plan = build(teacher, make_set(133, owner=teacher), cards_to_print=132, sets=13).plan

    assert (plan["order"], plan["card_count"], plan["symbols_per_card"]) == (11, 132, 12)
    assert plan["symbols_dropped"] == []  # every symbol is on 12 cards, 11 of them printed
    assert len(plan["cards_dropped"]) == 1
    assert plan["cards_dropped"][0]["reason"] == "not printed: the deck prints 132 cards"
    assert len(plan["cards_dropped"][0]["symbols"]) == 12
    assert_one_shared(plan["cards"])
    assert [s["label"] for s in plan["sets"]] == list("ABCDEFGHIJKLM")


@pytest.mark.parametrize("size", [3, 7, 13, 20, 31, 70])
def test_any_two_printed_cards_share_exactly_one_symbol(teacher, size):
    plan = build(teacher, make_set(size, owner=teacher)).plan

    assert_one_shared(plan["cards"])
    dropped = {s["number"] for s in plan["symbols_dropped"]}
    assert set(plan["symbols_used"]) | dropped == set(range(1, size + 1))
    assert all(s["reason"] for s in plan["symbols_dropped"])


def test_a_trimmed_plane_says_which_cards_it_drops_and_why(teacher):
    plan = build(teacher, make_set(70, owner=teacher), order=8).plan  # 73 points, 3 missing

    assert plan["order"] == 8 and plan["card_count"] < 73
    assert plan["cards_dropped"]
    assert all("needs a symbol the set does not have" in c["reason"] for c in plan["cards_dropped"])
    assert_one_shared(plan["cards"])


# --- Lesson sets ----------------------------------------------------------------------------


def test_lesson_sets_report_their_cards_symbols_and_pair_symbols(teacher):
    plan = build(teacher, make_set(57, owner=teacher), sets=7, labels="P Q R S T U V").plan

    sets = plan["sets"]
    assert [s["label"] for s in sets] == list("PQRSTUV")
    assert sorted(i for s in sets for i in s["cards"]) == list(range(57))
    assert sorted(len(s["cards"]) for s in sets) == [8, 8, 8, 8, 8, 8, 9]
    for s in sets:
        on_cards = {n for i in s["cards"] for n in plan["cards"][i]}
        assert set(s["symbols"]) == on_cards and len(s["symbols"]) == len(on_cards)
        shared = {
            next(iter(set(plan["cards"][a]) & set(plan["cards"][b]))) for a, b in combinations(s["cards"], 2)
        }
        assert set(s["pair_symbols"]) == shared
        assert len(s["pair_symbols"]) <= s["pairs"]
        assert all(plan["card_labels"][i] == s["label"] for i in s["cards"])
    # Far better than dealing the cards round robin (57 pair-symbols in all).
    assert sum(len(s["pair_symbols"]) for s in sets) > 150


def test_the_default_is_one_lesson_set_per_ten_printed_cards(teacher):
    assert building.deck_set_count(132) == 13
    assert building.deck_set_count(7) == 1
    plan = build(teacher, make_set(57, owner=teacher)).plan
    assert [s["label"] for s in plan["sets"]] == list("ABCDE")


# --- Determinism and the snapshot ----------------------------------------------------------


def _without_paths(snapshot):
    return {
        **snapshot,
        "symbols": [{k: v for k, v in s.items() if k != "picture"} for s in snapshot["symbols"]],
    }


def test_the_same_set_and_seed_make_the_same_deck(teacher):
    symbol_set = make_set(57, owner=teacher)

    first, second = build(teacher, symbol_set, seed=5), build(teacher, symbol_set, seed=5)
    other = build(teacher, symbol_set, seed=6)

    assert first.plan == second.plan
    assert _without_paths(first.snapshot) == _without_paths(second.snapshot)
    assert stored(first.files["deck.json"]) != b""
    assert json.loads(stored(first.files["deck.json"]))["cards"] == first.plan["cards"]
    # Another seed deals other lesson sets and faces from the same cards.
    assert other.plan["cards"] == first.plan["cards"]
    assert other.plan["sets"] != first.plan["sets"] or other.plan["layouts"] != first.plan["layouts"]


def test_a_symbol_edited_after_the_build_does_not_change_the_deck(teacher):
    symbol_set = make_set(7, owner=teacher)
    symbol = symbol_set.members.get(position=1).symbol
    symbol.name = "Orzeł Biały"
    symbol.save()
    deck = building.deck_create(
        user=teacher, symbol_set=symbol_set, options={"shape": "square"}, enqueue=False
    )
    deck = building.deck_build(deck=deck)
    assert deck.state == BuildState.DONE, deck.message
    snapshot, plan = deck.snapshot, deck.plan
    pdfs = {name: stored(path) for name, path in deck.files.items()}
    assert "Orzeł Biały" in pdf_text(pdfs["game-cards.pdf"])

    symbol.name = "Kotwica"
    symbol.description = "Changed later."
    symbol.picture.save("new.svg", ContentFile(placeholder_svg(999)))
    symbol.save()
    deck.refresh_from_db()
    assert deck.snapshot == snapshot
    assert {name: stored(path) for name, path in deck.files.items()} == pdfs

    # Built again, the deck still comes from its snapshot: the old name and picture.
    Deck.objects.filter(pk=deck.pk).update(state=BuildState.QUEUED)
    rebuilt = building.deck_build(deck=deck)
    assert rebuilt.state == BuildState.DONE, rebuilt.message
    assert rebuilt.plan == plan
    text = pdf_text(stored(rebuilt.files["game-cards.pdf"])) + pdf_text(
        stored(rebuilt.files["auxiliary-cards.pdf"])
    )
    assert "Orzeł Biały" in text and "Kotwica" not in text
    first = snapshot["symbols"][0]
    assert first["name"] == "Orzeł Biały"
    assert stored(first["picture"]) == placeholder_svg(1)


# --- Refusals: nothing is stored -----------------------------------------------------------


def _refused(user, symbol_set, **kwargs) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        building.deck_create(user=user, symbol_set=symbol_set, enqueue=False, **kwargs)
    assert Deck.objects.count() == 0
    assert not default_storage.exists("decks")
    return caught.value.message_dict


def test_a_set_too_small_is_refused(teacher):
    errors = _refused(teacher, make_set(2, owner=teacher))
    assert errors == {
        "symbol_set": [
            "A ZnajZnak deck needs at least 3 symbols; this set has 2. Add symbols to the set first."
        ]
    }


def test_invalid_options_are_refused_with_clear_messages_and_no_deck(teacher):
    symbol_set = make_set(57, owner=teacher)

    errors = _refused(teacher, symbol_set, options={"order": 6, "bleed_mm": 9, "sets": 3, "labels": "A B A"})

    assert set(errors) == {"order", "bleed_mm", "labels"}
    assert "no ZnajZnak deck of order 6" in errors["order"][0]
    assert "5 and 7" in errors["order"][0]
    assert errors["bleed_mm"] == ["The bleed must be from 0 to 5 mm; 9 is outside."]
    assert errors["labels"] == ["Each set needs its own label; used more than once: A."]


@pytest.mark.parametrize(
    ("options", "field", "words"),
    [
        ({"order": 10}, "order", "The nearest orders that work are 9 and 11"),
        ({"order": "seven"}, "order", "whole number"),
        ({"cards_to_print": 58}, "cards_to_print", "The deck has 57 cards; print from 1 to 57"),
        ({"cards_to_print": 0}, "cards_to_print", "print from 1 to 57"),
        ({"sets": 58}, "sets", "Split the 57 printed cards into 1 to 57 sets"),
        ({"cards_to_print": 10, "sets": 11}, "sets", "Split the 10 printed cards"),
        ({"sets": 3, "labels": "A B"}, "labels", "Give 3 labels, one per set; you gave 2."),
        ({"sets": 2, "labels": "A LONG"}, "labels", "at most 3 characters"),
        ({"sets": 2, "labels": ["A", ""]}, "labels", "cannot be empty"),
        ({"paper": "A3"}, "paper", "Choose the paper: A4 or Letter"),
        ({"card_mm": 30}, "card_mm", "The card size must be from 50 to 120 mm"),
        ({"shape": "hexagon"}, "shape", "round or square"),
        ({"duplex": "short_edge"}, "duplex", "long_edge or separate"),
        ({"bleed_mm": -1}, "bleed_mm", "from 0 to 5 mm"),
        ({"colour": "red"}, "__all__", "Unknown option 'colour'"),
    ],
)
def test_each_option_is_checked(teacher, options, field, words):
    errors = _refused(teacher, make_set(57, owner=teacher), options=options)
    assert list(errors) == [field]
    assert words in " ".join(errors[field])


def test_an_order_too_big_for_the_set_the_seed_and_the_name_are_checked(teacher):
    symbol_set = make_set(7, owner=teacher)
    errors = _refused(teacher, symbol_set, options={"order": 7})  # 8 symbols a card, 7 in the set
    assert "would keep no card" in errors["order"][0] and "Use order 2 (7 cards)" in errors["order"][0]
    assert "seed" in _refused(teacher, symbol_set, seed=-1)
    assert "name" in _refused(teacher, symbol_set, name="x" * 161)


def test_symbols_without_pictures_or_sharing_a_number_are_refused(teacher):
    errors = _refused(teacher, make_set(7, owner=teacher, pictures=False))
    assert "these symbols have none: 001 Symbol 1" in errors["symbol_set"][0]

    symbol_set = make_set(7, owner=teacher, collection=CollectionFactory(slug="one", name="One"))
    other = make_set(1, owner=teacher, start=3, collection=CollectionFactory(slug="two", name="Two"))
    SymbolSetMember.objects.create(symbol_set=symbol_set, symbol=other.members.get().symbol, position=99)
    errors = _refused(teacher, symbol_set)
    assert "share one: Symbol 3 (One) and Symbol 3 (Two)" in errors["symbol_set"][0]


def test_only_those_who_may_see_the_set_build_from_it(teacher, other_teacher, admin_user):
    private = make_set(7, owner=teacher)
    for user in (other_teacher, UserFactory()):
        with pytest.raises(PermissionDenied):
            building.deck_create(user=user, symbol_set=private, options=PLAN_ONLY, enqueue=False)
    assert Deck.objects.count() == 0

    shared = make_set(7, owner=teacher, visibility=Visibility.SHARED)
    assert build(other_teacher, shared).owner == other_teacher
    assert build(admin_user, private).owner == admin_user


# --- The build: queue, progress, failures --------------------------------------------------


def test_the_build_is_queued_on_commit_and_runs(teacher, django_capture_on_commit_callbacks):
    symbol_set = make_set(7, owner=teacher)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        deck = building.deck_create(user=teacher, symbol_set=symbol_set, options=PLAN_ONLY)
        assert Deck.objects.get(pk=deck.pk).state == BuildState.QUEUED
    assert len(callbacks) == 1
    deck.refresh_from_db()
    assert deck.state == BuildState.DONE and deck.plan["order"] == 2
    assert set(deck.files) == {"deck.json"}


class FakeRenderer:
    """Stands in for content.printing.render in tests of this service's own bookkeeping."""

    def __init__(self, deck_pk=None, fail_in=None):
        self.deck_pk, self.fail_in, self.seen = deck_pk, fail_in, []

    def _run(self, what, count, progress):
        for done in range(1, count + 1):
            progress(done, count)
            if self.deck_pk:
                self.seen.append((what, Deck.objects.get(pk=self.deck_pk).progress))
            if what == self.fail_in and done * 2 >= count:
                raise RuntimeError("the renderer broke")
        return b"%PDF-1.7 " + what.encode()

    def render_game_cards(self, cards, symbols, periods, options, progress=None, parallel=True):
        assert options.paper == "Letter" and options.duplex == "separate"
        assert set(symbols) >= {k for card in cards for k in card.symbols}
        assert all(symbols[k].key == k and symbols[k].picture_path for k in symbols)
        assert all(card.label in "AB" for card in cards)
        return self._run("game", len(cards), progress)

    def render_auxiliary_cards(self, symbols, periods, options, progress=None, parallel=True):
        assert [p.slug for p in periods][:1] == ["ii-rp"]
        return self._run("auxiliary", len(symbols), progress)


@pytest.fixture
def fake_renderer(monkeypatch):
    from content.printing import render

    fake = FakeRenderer()
    for name in ("render_game_cards", "render_auxiliary_cards"):
        monkeypatch.setattr(render, name, getattr(fake, name))
    return fake


def _deck_for_fake(teacher, fake, **options):
    deck = building.deck_create(
        user=teacher,
        symbol_set=make_set(7, owner=teacher),
        enqueue=False,
        options={"paper": "Letter", "duplex": "separate", "sets": 2, **options},
    )
    fake.deck_pk = deck.pk
    return deck


def test_progress_runs_from_planning_to_rendering(teacher, fake_renderer):
    deck = building.deck_build(deck=_deck_for_fake(teacher, fake_renderer))

    assert deck.state == BuildState.DONE and deck.progress == 100
    values = [value for _what, value in fake_renderer.seen]
    assert values == sorted(values) and values[0] > 10 and values[-1] == 100
    assert {what for what, _ in fake_renderer.seen} == {"game", "auxiliary"}
    assert stored(deck.files["game-cards.pdf"]) == b"%PDF-1.7 game"
    assert set(deck.files) == {"deck.json", "game-cards.pdf", "auxiliary-cards.pdf"}


def test_a_failed_build_says_so_and_keeps_its_progress(teacher, fake_renderer):
    fake_renderer.fail_in = "auxiliary"
    deck = building.deck_build(deck=_deck_for_fake(teacher, fake_renderer))

    assert deck.state == BuildState.FAILED
    assert deck.message == building.UNEXPECTED["deck"]
    assert 50 < deck.progress < 100
    assert deck.files == {}


def test_a_missing_picture_copy_fails_with_a_message(teacher, fake_renderer):
    deck = _deck_for_fake(teacher, fake_renderer)
    default_storage.delete(deck.snapshot["symbols"][0]["picture"])
    deck = building.deck_build(deck=deck)
    assert deck.state == BuildState.FAILED
    assert "A file the deck needs is missing (001.svg)" in deck.message


def test_a_deck_already_built_is_not_built_twice(teacher):
    deck = build(teacher, make_set(7, owner=teacher))
    updated = deck.updated
    assert building.deck_build(deck=deck).updated == updated


def test_the_task_records_unexpected_errors(teacher, monkeypatch):
    from content.tasks_print import deck_build_task

    deck = building.deck_create(
        user=teacher, symbol_set=make_set(7, owner=teacher), options=PLAN_ONLY, enqueue=False
    )

    def broken(*, deck):
        raise ConnectionError("database went away")

    monkeypatch.setattr(building, "deck_build", broken)
    deck_build_task.delay(deck.pk)  # eager in unit tests; must not raise
    deck.refresh_from_db()
    assert deck.state == BuildState.FAILED
    assert deck.message.startswith("Talia hit an unexpected error while making the deck.")
    deck_build_task.delay(10**9)  # a deck that is gone is nothing to build


def test_deleting_a_deck_deletes_its_files(teacher, django_capture_on_commit_callbacks):
    deck = build(teacher, make_set(7, owner=teacher))
    names = [*deck.files.values(), *(s["picture"] for s in deck.snapshot["symbols"])]
    assert all(default_storage.exists(name) for name in names)
    with django_capture_on_commit_callbacks(execute=True):
        building.deck_delete(deck=deck)
    assert not any(default_storage.exists(name) for name in names)
    assert Deck.objects.count() == 0


# --- Print jobs ----------------------------------------------------------------------------


def run_print(user, kind, *, options=None, selection=None) -> PrintJob:
    job = building.print_job_create(user=user, kind=kind, options=options, selection=selection, enqueue=False)
    job = building.print_job_run(job=job)
    assert job.state == BuildState.DONE, job.message
    return job


def test_selected_activity_cards_are_printed_as_they_were(teacher):
    cards = [ActivityCardFactory(owner=teacher) for _ in range(3)]
    job = building.print_job_create(
        user=teacher, kind="activity", enqueue=False, selection={"ids": [cards[0].pk, cards[2].pk]}
    )
    ActivityTerm.objects.filter(card=cards[0], slot="A").update(text="edited later")

    job = building.print_job_run(job=job)

    assert job.state == BuildState.DONE, job.message
    assert [c["id"] for c in job.snapshot["cards"]] == [cards[0].pk, cards[2].pk]
    assert job.snapshot["cards"][0]["terms"][0] == ["A", "term", f"term A{cards[0].pk}", 4]
    pdf = stored(job.files["activity-cards.pdf"])
    assert pdf.startswith(b"%PDF")
    assert "edited later" not in pdf_text(pdf)


def test_knowledge_cards_of_a_language_and_tag_are_printed(teacher):
    tag = Tag.objects.create(slug="wwii")
    wanted = KnowledgeQuestionFactory(owner=teacher, language="pl", front="Kiedy wybuchła wojna?")
    wanted.tags.add(tag)
    KnowledgeQuestionFactory(owner=teacher, language="en").tags.add(tag)  # other language
    KnowledgeQuestionFactory(owner=teacher, language="pl")  # no tag
    draft = KnowledgeQuestionFactory(owner=teacher, language="pl", status=Status.DRAFT)
    draft.tags.add(tag)  # drafts are printed only when selected

    job = run_print(teacher, "knowledge", selection={"language": "pl", "tag": "wwii"})

    assert [c["id"] for c in job.snapshot["cards"]] == [wanted.pk]
    assert job.options["language"] == "pl"
    assert "Kiedy wybuchła wojna?" in pdf_text(stored(job.files["knowledge-cards.pdf"]))


def test_know_blank_cards_are_printed_by_count(teacher):
    job = run_print(teacher, "know", options={"questions": 3, "answers": 4})
    assert (job.snapshot["questions"], job.snapshot["answers"]) == (3, 4)
    assert PdfReader(io.BytesIO(stored(job.files["know-blank-cards.pdf"]))).pages


@pytest.mark.parametrize(
    ("kind", "options", "selection", "field", "words"),
    [
        ("poster", {}, None, "kind", "Choose what to print"),
        ("know", {"questions": 0, "answers": 0}, None, "questions", "Print at least one card"),
        ("know", {"questions": 501}, None, "questions", "from 0 to 500"),
        ("activity", {}, {"language": "cs"}, "selection", "No cards match"),
        ("activity", {}, {"tag": "nope"}, "selection", "There is no tag 'nope'"),
        ("knowledge", {"bleed_mm": 6}, None, "bleed_mm", "from 0 to 5 mm"),
        ("know", {"card_width_mm": 300}, None, "card_width_mm", "The card width must be from 40 to 200 mm"),
        ("know", {"card_mm": 90}, None, "__all__", "Unknown option 'card_mm'"),
    ],
)
def test_print_jobs_are_checked(teacher, kind, options, selection, field, words):
    with pytest.raises(ValidationError) as caught:
        building.print_job_create(
            user=teacher, kind=kind, options=options, selection=selection, enqueue=False
        )
    assert words in " ".join(caught.value.message_dict[field])
    assert PrintJob.objects.count() == 0


def test_a_print_selects_only_cards_the_teacher_may_see(teacher, other_teacher):
    hidden = KnowledgeQuestionFactory(owner=other_teacher, status=Status.DRAFT)
    with pytest.raises(ValidationError) as caught:
        building.print_job_create(
            user=teacher, kind="knowledge", selection={"ids": [hidden.pk]}, enqueue=False
        )
    assert "not yours to print" in caught.value.message_dict["selection"][0]
    with pytest.raises(PermissionDenied):
        building.print_job_create(user=UserFactory(), kind="know", enqueue=False)
    assert KnowledgeQuestion.objects.count() == 1 and PrintJob.objects.count() == 0


# --- A real worker -------------------------------------------------------------------------


@pytest.mark.celery
def test_a_deck_is_built_by_a_real_worker(celery_worker_real):
    teacher = TeacherFactory()
    symbol_set = make_set(7, owner=teacher)
    with transaction.atomic():
        deck = building.deck_create(user=teacher, symbol_set=symbol_set, options={"sets": 2})
        # Queued on commit: the worker cannot see the deck before this block ends.
        assert Deck.objects.get(pk=deck.pk).state == BuildState.QUEUED

    deadline = time.monotonic() + 60
    while True:
        deck.refresh_from_db()
        if deck.state in (BuildState.DONE, BuildState.FAILED) or time.monotonic() > deadline:
            break
        time.sleep(0.25)

    assert deck.state == BuildState.DONE, deck.message
    assert deck.progress == 100
    assert set(deck.files) == {"deck.json", "game-cards.pdf", "auxiliary-cards.pdf"}
    for name in ("game-cards.pdf", "auxiliary-cards.pdf"):
        assert stored(deck.files[name]).startswith(b"%PDF")
    assert json.loads(stored(deck.files["deck.json"]))["order"] == 2
