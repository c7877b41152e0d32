"""Quiz engine: generation rules, grading per item kind (partial credit included), properties."""

from __future__ import annotations

import doctest
import json
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engines import quiz
from games.engines.base import rng_for
from games.engines.names import name_matches, normalise_name
from games.engines.quiz import (
    Item,
    KnowEntry,
    KnowledgeEntry,
    Label,
    Pool,
    QuizTooSmall,
    SymbolEntry,
    answer_clean,
    counts_plan,
    generate,
    grade,
    item_new,
    redact,
)

PERIODS = (Label("ii-rp", "II RP"), Label("wojna", "II wojna"), Label("prl", "PRL"))
THEMES = (Label("ludzie", "Ludzie"), Label("miejsca", "Miejsca"), Label("znaki", "Znaki"))


def symbol(n: int, **kwargs) -> SymbolEntry:
    period = PERIODS[n % 3].key
    theme = THEMES[(n // 3) % 3].key
    defaults = dict(
        key=f"symbol:{n}",
        name=f"Symbol numer {n}",
        periods=(period,),
        themes=(theme,),
        description=f"Opis {n}: Symbol numer {n} był znany w okresie {period}.",
        outline=f"Zarys dziejów numer {n}.",
        picture=f"pictures/{n}.png",
    )
    defaults.update(kwargs)
    return SymbolEntry(**defaults)


def big_pool(n: int = 18) -> Pool:
    return Pool(
        symbols=tuple(symbol(i) for i in range(1, n + 1)),
        knowledge=(
            KnowledgeEntry("knowledge:1", "number", "Ile?", 3, "Trzy."),
            KnowledgeEntry("knowledge:2", "letter", "Która litera?", ("C", "D")),
            KnowledgeEntry("knowledge:3", "colour", "Jaki kolor?", ("blue",)),
        ),
        know=(KnowEntry("know:1", "Kto dowodził?", ("Piłsudski",)), KnowEntry("know:2", "Gdzie?", ())),
        periods=PERIODS,
        themes=THEMES,
    )


def one(kind: str, pool: Pool | None = None, seed: int = 1) -> Item:
    (item,) = generate(pool or big_pool(), {kind: 1}, seed)
    return item


# --- generation rules ---------------------------------------------------------------------------


def test_generation_is_deterministic_for_a_seed():
    counts = {"picture_name": 3, "periods": 2, "connect": 1, "knowledge": 2, "know": 1}
    first = [item.to_dict() for item in generate(big_pool(), counts, 5)]
    again = [item.to_dict() for item in generate(big_pool(), counts, 5)]
    other = [item.to_dict() for item in generate(big_pool(), counts, 6)]
    assert first == again
    assert first != other


def test_counts_per_kind_are_honoured():
    counts = {"picture_name": 2, "picture_name_typed": 1, "name_picture": 2, "text_symbol": 2, "knowledge": 3}
    items = generate(big_pool(), counts, 1)
    assert {kind: sum(1 for i in items if i.kind == kind) for kind in counts} == counts


def test_no_subject_is_asked_twice_connect_symbols_included():
    counts = {"connect": 1, "picture_name": 3, "name_picture": 3, "periods": 3, "text_symbol": 3}
    items = generate(big_pool(), counts, 2)
    subjects = [s for item in items for s in item.subjects]
    assert len(subjects) == len(set(subjects))


def test_weighted_symbols_come_up_more_often():
    pool = big_pool()
    heavy = "symbol:7"
    pool = replace(
        pool, symbols=tuple(replace(s, weight=50.0) if s.key == heavy else s for s in pool.symbols)
    )
    chosen = sum(
        generate(pool, {"picture_name_typed": 1}, seed)[0].subjects == (heavy,) for seed in range(60)
    )
    assert chosen > 30  # 1 in 18 without the weight


def test_distractor_never_equals_the_answer_or_an_alias_of_it():
    symbols = (
        symbol(1, name="Armia Krajowa", alternatives=("AK",)),
        symbol(2, name="ARMIA KRAJOWA!"),  # the same name, written otherwise
        symbol(3, name="Ak"),  # another symbol named like the alias
        symbol(4, name="Kotwica"),
        symbol(5, name="Orzeł"),
        symbol(6, name="Orzel"),  # two lookalikes: only one may be offered
        symbol(7, name="Szare Szeregi"),
    )
    pool = Pool(symbols=symbols, periods=PERIODS, themes=THEMES)
    for seed in range(30):
        used = {s.key for s in symbols if s.key != "symbol:1"}
        item = item_new(pool, "picture_name", rng_for(seed), used)
        assert item is not None
        texts = [o["text"] for o in item.prompt["options"] if o["id"] != item.key["answer"]]
        assert not any(name_matches(text, "Armia Krajowa", ["AK"]) for text in texts)
        assert len({normalise_name(o["text"]).replace(" ", "") for o in item.prompt["options"]}) == len(
            item.prompt["options"]
        )


def test_distractors_are_plausible_same_period_or_theme_first():
    pool = big_pool()
    for seed in range(10):
        item = item_new(pool, "picture_name", rng_for(seed), set())
        assert item is not None
        answer = pool.symbol(item.subjects[0])
        others = [pool.symbol(f"symbol:{o['text'].split()[-1]}") for o in item.prompt["options"]]
        shared = [
            o
            for o in others
            if o.key != answer.key
            and (set(o.periods) & set(answer.periods) or set(o.themes) & set(answer.themes))
        ]
        assert len(shared) == 3


def test_name_picture_distractors_have_other_pictures():
    symbols = tuple(symbol(i, picture="same.png" if i in (2, 3) else f"{i}.png") for i in range(1, 7))
    pool = Pool(symbols=symbols, periods=PERIODS)
    for seed in range(20):
        item = item_new(
            pool, "name_picture", rng_for(seed), {"symbol:2", "symbol:4", "symbol:5", "symbol:6", "symbol:1"}
        )
        assert item is not None
        pictures = list(item.key["pictures"].values())
        assert len(set(pictures)) == len(pictures)


def test_prompts_hold_no_answer_no_symbol_key_and_no_picture_key():
    pool = big_pool(24)
    counts = counts_plan(pool, 20, seed=3)
    for item in generate(pool, counts, 3):
        public = json.dumps(item.prompt, ensure_ascii=False)
        assert "symbol:" not in public and "knowledge:" not in public and "know:" not in public
        assert "pictures/" not in public
        assert '"answer"' not in public
        if item.kind in ("picture_name_typed", "text_symbol", "picture_name"):
            answer = pool.symbol(item.subjects[0]).name
            if item.kind == "picture_name_typed":
                assert answer not in public
            if item.kind == "text_symbol":
                assert normalise_name(answer) not in normalise_name(item.prompt["text"])


def test_text_symbol_redacts_the_name_inflected_and_the_alternatives():
    assert redact("Znak Polski Walczącej namalowano.", ["Znak Polski Walczącej"]) == "___ namalowano."
    assert redact("Członkowie Szarych Szeregów i harcerze", ["Szare Szeregi"]) == "Członkowie ___ i harcerze"
    assert redact("Biało-czerwona flaga; BIALOCZERWONA", ["Biało-Czerwona"]) == "___ flaga; ___"
    # Whole words only: "Pakt" keeps its letters when the name is "AK".
    assert redact("Pakt i AK.", ["AK"]) == "Pakt i ___."


def test_text_symbol_skips_a_text_that_would_still_give_the_name_away():
    giveaway = symbol(1, name="Kotwica", description="Kotwica", outline="")
    pool = Pool(symbols=(giveaway, *(symbol(i) for i in range(2, 6))), periods=PERIODS)
    item = item_new(pool, "text_symbol", rng_for(1), {"symbol:2", "symbol:3", "symbol:4", "symbol:5"})
    assert item is None  # only the name was left to show


def test_a_pool_too_small_says_which_kind_and_how_many():
    pool = Pool(symbols=(symbol(1), symbol(2)), periods=PERIODS)
    with pytest.raises(QuizTooSmall) as raised:
        generate(pool, {"picture_name": 1}, 1)
    assert raised.value.kind == "picture_name" and raised.value.available == 0
    assert "picture → name" in str(raised.value) and "at least 2 others" in str(raised.value)
    with pytest.raises(QuizTooSmall) as raised:
        generate(pool, {"picture_name_typed": 3}, 1)
    assert raised.value.available == 2 and raised.value.wanted == 3


def test_a_pool_without_knowledge_cards_cannot_give_knowledge_items():
    with pytest.raises(QuizTooSmall, match="Knowledge\\? cards"):
        generate(Pool(symbols=(symbol(1),)), {"knowledge": 1}, 1)


def test_unknown_kind_or_negative_count_is_refused():
    with pytest.raises(ValueError, match="Unknown item kind"):
        generate(big_pool(), {"essay": 1}, 1)
    with pytest.raises(ValueError, match="0 or more"):
        generate(big_pool(), {"picture_name": -1}, 1)


def test_counts_plan_fills_the_total_from_what_the_pool_allows():
    plan = counts_plan(big_pool(24), 20, seed=1)
    assert sum(plan.values()) == 20
    assert plan.get("knowledge", 0) <= 3 and plan.get("know", 0) <= 2
    only_symbols = Pool(symbols=tuple(symbol(i) for i in range(1, 25)), periods=PERIODS, themes=THEMES)
    plan = counts_plan(only_symbols, 20, seed=1)
    assert sum(plan.values()) == 20 and "knowledge" not in plan


def test_counts_plan_explains_a_pool_too_small_for_the_total():
    with pytest.raises(QuizTooSmall, match="gives only 3 quiz items, not 20"):
        counts_plan(Pool(symbols=(symbol(1), symbol(2), symbol(3))), 20)


def test_connect_groups_each_symbol_into_exactly_one_shown_group():
    pool = big_pool()
    for seed in range(15):
        item = item_new(pool, "connect", rng_for(seed), set())
        assert item is not None
        groups = {g["id"] for g in item.prompt["groups"]}
        assert 2 <= len(groups) <= 3 and 4 <= len(item.prompt["symbols"]) <= 6
        by = item.prompt["by"]
        for symbol_id, group in item.key["answer"].items():
            entry = pool.symbol(item.key["symbol_subjects"][symbol_id])
            held = set(entry.periods if by == "period" else entry.themes)
            assert held & groups == {group}
        placed = list(item.key["answer"].values())
        assert all(placed.count(group) >= 2 for group in groups)


def test_connect_needs_two_symbols_in_each_of_two_groups():
    pool = Pool(symbols=(symbol(1), symbol(2), symbol(3)), periods=PERIODS, themes=THEMES)
    assert item_new(pool, "connect", rng_for(1), set()) is None


# --- grading per kind -----------------------------------------------------------------------------


def test_picture_name_choice_is_right_only_for_the_answer():
    item = one("picture_name")
    wrong = next(o["id"] for o in item.prompt["options"] if o["id"] != item.key["answer"])
    assert grade(item, {"choice": item.key["answer"]}).score == 1
    assert grade(item, {"choice": wrong}).score == 0
    assert grade(item, None).score == 0


def test_typed_name_matches_as_in_play_diacritics_case_and_aliases():
    pool = Pool(symbols=(symbol(1, name="Znak Polski Walczącej", alternatives=("kotwica",)),))
    item = one("picture_name_typed", pool)
    assert grade(item, {"text": "znak polski walczacej"}).score == 1
    assert grade(item, {"text": "  KOTWICA "}).score == 1
    assert grade(item, {"text": "Znak Polski"}).score == 0
    feedback = grade(item, {"text": "Znak"}).parts[0]
    assert feedback.expected == "Znak Polski Walczącej" and feedback.given == "Znak" and not feedback.correct


def test_name_picture_is_right_only_for_the_symbols_own_picture():
    item = one("name_picture")
    assert set(item.key["pictures"]) == {o["id"] for o in item.prompt["options"]}
    assert grade(item, {"choice": item.key["answer"]}).score == 1
    wrong = next(o["id"] for o in item.prompt["options"] if o["id"] != item.key["answer"])
    assert grade(item, {"choice": wrong}).score == 0


def periods_item(right: list[str]) -> Item:
    options = [{"id": p.key, "label": p.label} for p in PERIODS]
    return Item("periods", {"name": "X", "options": options}, {"answer": right, "subjects": ["symbol:1"]})


def test_periods_partial_credit_right_ticks_earn_wrong_ticks_cost_never_below_zero():
    two = periods_item(["ii-rp", "wojna"])
    assert grade(two, {"choices": ["ii-rp", "wojna"]}).score == 1
    assert grade(two, {"choices": ["ii-rp"]}).score == 0.5
    assert grade(two, {"choices": ["ii-rp", "prl"]}).score == 0
    assert grade(two, {"choices": ["ii-rp", "wojna", "prl"]}).score == 0.5
    assert grade(two, {"choices": ["prl"]}).score == 0
    assert grade(two, {"choices": []}).score == 0
    single = periods_item(["prl"])
    assert grade(single, {"choices": ["prl", "wojna", "ii-rp"]}).score == 0  # ticking all is no strategy
    assert grade(single, {"choices": ["prl"]}).score == 1


def test_periods_item_lists_every_period_and_knows_the_symbols():
    pool = Pool(symbols=(symbol(1, periods=("wojna", "prl")),), periods=PERIODS)
    item = one("periods", pool)
    assert [o["id"] for o in item.prompt["options"]] == ["ii-rp", "wojna", "prl"]
    assert item.key["answer"] == ["wojna", "prl"]


def test_text_symbol_right_for_the_answer_only():
    item = one("text_symbol")
    assert item.prompt["source"] in ("description", "outline")
    assert grade(item, {"choice": item.key["answer"]}).score == 1


def knowledge_item(category: str, answer) -> Item:
    pool = Pool(knowledge=(KnowledgeEntry("knowledge:9", category, "Q?", answer),))
    return one("knowledge", pool)


def test_knowledge_number_card_checks_the_number_0_to_5():
    item = knowledge_item("number", 0)
    assert item.prompt["options"] == ["0", "1", "2", "3", "4", "5"]
    assert grade(item, {"choice": "0"}).score == 1
    assert grade(item, {"choice": "3"}).score == 0


def test_knowledge_card_with_several_letters_takes_any_of_them():
    item = knowledge_item("letter", ("C", "D"))
    assert grade(item, {"choice": "C"}).score == 1
    assert grade(item, {"choice": "D"}).score == 1
    assert grade(item, {"choice": "E"}).score == 0
    assert grade(item, {"choice": "D"}).parts[0].expected == "C/D"


def test_knowledge_colour_card():
    item = knowledge_item("colour", ("blue",))
    assert item.prompt["options"] == ["red", "yellow", "green", "blue", "white"]
    assert grade(item, {"choice": "blue"}).score == 1
    with pytest.raises(quiz.InvalidAnswer):
        answer_clean(item, {"choice": "purple"})


def test_knowledge_card_with_an_answer_outside_its_category_is_not_used():
    pool = Pool(knowledge=(KnowledgeEntry("knowledge:1", "number", "Q?", 9),))
    with pytest.raises(QuizTooSmall):
        generate(pool, {"knowledge": 1}, 1)


def test_know_answer_matching_a_best_answer_is_marked_at_once():
    pool = Pool(know=(KnowEntry("know:1", "Kto?", ("Józef Piłsudski", "Piłsudski")),))
    item = one("know", pool)
    result = grade(item, {"text": "jozef pilsudski"})
    assert result.score == 1 and not result.needs_marking


def test_know_other_answers_wait_for_the_teacher_and_empty_ones_do_not():
    pool = Pool(know=(KnowEntry("know:1", "Kto?", ("Piłsudski",)),))
    item = one("know", pool)
    waiting = grade(item, {"text": "Marszałek"})
    assert waiting.needs_marking and waiting.score == 0
    empty = grade(item, {"text": "   "})
    assert not empty.needs_marking and empty.score == 0


def test_know_question_nobody_answered_best_always_waits_for_the_teacher():
    item = one("know", Pool(know=(KnowEntry("know:1", "Gdzie?", ()),)))
    assert grade(item, {"text": "Warszawa"}).needs_marking


def test_connect_earns_a_point_per_symbol_placed_rightly():
    item = one("connect")
    answer = dict(item.key["answer"])
    assert item.points == len(answer)
    assert grade(item, {"groups": answer}).score == item.points
    first = next(iter(answer))
    other_group = next(g["id"] for g in item.prompt["groups"] if g["id"] != answer[first])
    half = {**answer, first: other_group}
    assert grade(item, {"groups": half}).score == item.points - 1
    assert grade(item, {"groups": {}}).score == 0
    results = quiz.subject_results(item, {"groups": half})
    assert sorted(results.values()).count(0.0) == 1 and len(results) == item.points


def test_answers_of_the_wrong_shape_are_refused_on_save_and_count_as_empty_when_graded():
    item = one("picture_name")
    with pytest.raises(quiz.InvalidAnswer):
        answer_clean(item, {"choice": "z"})
    with pytest.raises(quiz.InvalidAnswer):
        answer_clean(item, ["a"])
    assert grade(item, {"choice": "z"}).score == 0
    typed = one("picture_name_typed")
    with pytest.raises(quiz.InvalidAnswer, match="at most 200"):
        answer_clean(typed, {"text": "x" * 201})
    periods = one("periods")
    with pytest.raises(quiz.InvalidAnswer):
        answer_clean(periods, {"choices": ["nope"]})


def test_items_round_trip_through_json():
    for item in generate(big_pool(), counts_plan(big_pool(), 12, seed=4), 4):
        assert Item.from_dict(json.loads(json.dumps(item.to_dict()))) == Item.from_dict(item.to_dict())


def test_docstring_examples():
    result = doctest.testmod(quiz)
    assert result.failed == 0 and result.attempted > 5


# --- properties -----------------------------------------------------------------------------------

names = st.text(alphabet="abcdeółęż -AK", min_size=1, max_size=12).filter(lambda t: normalise_name(t))


@st.composite
def pools(draw):
    count = draw(st.integers(min_value=3, max_value=14))
    symbols = []
    for n in range(count):
        symbols.append(
            SymbolEntry(
                key=f"symbol:{n}",
                name=draw(names),
                alternatives=tuple(draw(st.lists(names, max_size=2))),
                periods=tuple(draw(st.sets(st.sampled_from([p.key for p in PERIODS]), min_size=1))),
                themes=tuple(draw(st.sets(st.sampled_from([t.key for t in THEMES]), max_size=2))),
                description=draw(st.text(max_size=40)),
                picture=draw(st.sampled_from(["", f"{n}.png", "shared.png"])),
                weight=draw(st.sampled_from([1.0, 3.0])),
                date=draw(st.sampled_from(["", "1918", "1918-11", "1918-11-11", "1944-08-01", "1980"])),
            )
        )
    return Pool(symbols=tuple(symbols), periods=PERIODS, themes=THEMES)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pool=pools(), seed=st.integers(min_value=0, max_value=2**32))
def test_property_any_pool_gives_a_deterministic_quiz_without_repeats_or_leaks(pool, seed):
    try:
        plan = counts_plan(pool, 6, seed=seed)
    except QuizTooSmall:
        return
    items = generate(pool, plan, seed)
    assert [i.to_dict() for i in items] == [i.to_dict() for i in generate(pool, plan, seed)]
    subjects = [s for item in items for s in item.subjects]
    assert len(subjects) == len(set(subjects))
    for item in items:
        public = json.dumps(item.prompt, ensure_ascii=False)
        assert "symbol:" not in public and ".png" not in public
        if item.kind == "chronology":
            assert "dates" not in public and not any(d in public for d in item.key["dates"].values())
        if "options" in item.prompt and item.kind not in ("periods", "period"):
            answer = pool.symbol(item.subjects[0])
            for option in item.prompt["options"]:
                if option["id"] == item.key["answer"]:
                    continue
                if "text" in option:
                    assert not name_matches(option["text"], answer.name, answer.alternatives)
                else:  # name → picture: the distractor's own name, kept in the key
                    assert not name_matches(item.key["names"][option["id"]], answer.name, answer.alternatives)
        if item.kind == "text_symbol":
            answer = pool.symbol(item.subjects[0])
            shown = " " + normalise_name(item.prompt["text"]) + " "
            assert all(f" {normalise_name(n)} " not in shown for n in (answer.name, *answer.alternatives))
        full = grade(item, _right_answer(item))
        assert full.score == item.points


def _right_answer(item: Item) -> dict:
    if item.kind in ("picture_name", "name_picture", "text_symbol"):
        return {"choice": item.key["answer"]}
    if item.kind == "picture_name_typed":
        return {"text": item.key["name"]}
    if item.kind == "periods":
        return {"choices": item.key["answer"]}
    if item.kind == "connect":
        return {"groups": item.key["answer"]}
    if item.kind in ("period", "choice"):
        return {"choice": item.key["answer"]}
    if item.kind == "chronology":
        return {"order": item.key["answer"]}
    if item.kind == "matching":
        return {"pairs": item.key["answer"]}
    raise AssertionError(item.kind)
