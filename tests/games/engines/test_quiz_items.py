"""Quiz engine, the history items: chronology, period, matching and teacher-written questions.

One test per rule of ``games/engines/quiz.py`` (and of ``docs/quizzes.md``): how each is
made, what its prompt may show, how it is graded (partial credit included) and which
teacher-written questions are refused as unfair.
"""

from __future__ import annotations

import json
from itertools import permutations

import pytest

from games.engines import quiz
from games.engines.base import rng_for
from games.engines.quiz import (
    Item,
    Label,
    OptionEntry,
    Pool,
    QuestionEntry,
    QuizTooSmall,
    SymbolEntry,
    answer_clean,
    counts_plan,
    date_parse,
    dates_apart,
    generate,
    grade,
    item_new,
    order_pairs,
    question_problems,
    subject_results,
)

PERIODS = (Label("ii-rp", "II RP"), Label("wojna", "II wojna"), Label("prl", "PRL"))
THEMES = (
    Label("ludzie", "Ludzie"),
    Label("miejsca", "Miejsca"),
    Label("znaki", "Znaki"),
    Label("wojsko", "W"),
)
DATES = ["1918-11-11", "1920-08-15", "1926-05", "1939-09-01", "1944-08-01", "1956-06", "1970-12", "1980"]


def symbol(n: int, **kwargs) -> SymbolEntry:
    defaults = dict(
        key=f"symbol:{n}",
        name=f"Symbol numer {n}",
        periods=(PERIODS[n % 3].key,),
        themes=(THEMES[n % 4].key,),
        description=f"Opis {n}: Symbol numer {n} to znak zwany inaczej numerem {n}.",
        picture=f"pictures/{n}.png",
        date=DATES[n % len(DATES)],
    )
    defaults.update(kwargs)
    return SymbolEntry(**defaults)


def pool_of(*symbols: SymbolEntry, questions: tuple[QuestionEntry, ...] = ()) -> Pool:
    return Pool(symbols=symbols, periods=PERIODS, themes=THEMES, questions=questions)


def big_pool(n: int = 12) -> Pool:
    return pool_of(*(symbol(i) for i in range(1, n + 1)))


def choice_question(key: str = "question:1", **kwargs) -> QuestionEntry:
    defaults = dict(
        key=key,
        kind="choice",
        text="Kiedy wybuchło Powstanie Warszawskie?",
        options=(
            OptionEntry("1 sierpnia 1944", correct=True),
            OptionEntry("1 września 1939"),
            OptionEntry("13 grudnia 1981", picture="questions/zegar.png"),
        ),
        picture="questions/kotwica.png",
        explanation="Godzina W: 17.00, 1 sierpnia 1944.",
    )
    defaults.update(kwargs)
    return QuestionEntry(**defaults)


def chronology_question(key: str = "question:2", dates=("1918-11-11", "1920-08", "1939-09-01", "1944")):
    return QuestionEntry(
        key=key,
        kind="chronology",
        text="Od najwcześniejszego",
        options=tuple(OptionEntry(f"Wydarzenie {chr(65 + n)}", date=d) for n, d in enumerate(dates)),
    )


def matching_question(key: str = "question:3") -> QuestionEntry:
    return QuestionEntry(
        key=key,
        kind="matching",
        text="Połącz osoby z rolami",
        options=(
            OptionEntry("Piłsudski", match="Naczelnik Państwa"),
            OptionEntry("Paderewski", match="Premier i pianista", picture="questions/fortepian.png"),
            OptionEntry("Narutowicz", match="Pierwszy prezydent"),
        ),
    )


# --- dates --------------------------------------------------------------------------------------


def test_a_date_is_a_year_a_month_or_a_day_of_the_calendar():
    assert date_parse("1944") == (1944,)
    assert date_parse(" 1944-8 ") == (1944, 8)
    assert date_parse("1944-08-01") == (1944, 8, 1)
    for wrong in ("", "44 r.", "1944-13", "1944-02-30", "1.08.1944", "0"):
        with pytest.raises(ValueError):
            date_parse(wrong)


def test_dates_that_agree_on_every_part_both_give_cannot_be_told_apart():
    assert not dates_apart((1918,), (1918,))
    assert not dates_apart((1918,), (1918, 11, 11))
    assert not dates_apart((1918, 11), (1918, 11, 11))
    assert dates_apart((1918, 3), (1918, 11, 11))
    assert dates_apart((1918,), (1919, 1))


# --- chronology ---------------------------------------------------------------------------------


def test_chronology_partial_credit_is_the_share_of_pairs_in_order():
    item = item_new(pool_of(questions=(chronology_question(),)), "chronology", rng_for(1), set())
    assert item is not None and item.kind == "chronology" and item.points == 1
    right = list(item.key["answer"])
    assert grade(item, {"order": right}).score == 1
    assert grade(item, {"order": right[::-1]}).score == 0
    swapped = [right[1], right[0], *right[2:]]  # one pair of six out of order
    assert grade(item, {"order": swapped}).score == pytest.approx(5 / 6, abs=1e-4)
    last_first = [right[-1], *right[:-1]]  # the latest put first: 3 of 6 pairs wrong
    assert grade(item, {"order": last_first}).score == pytest.approx(3 / 6, abs=1e-4)
    assert grade(item, {"order": []}).score == 0
    assert grade(item, None).score == 0


def test_chronology_score_is_the_pairs_formula_for_every_order_of_four():
    right = ["a", "b", "c", "d"]
    for order in permutations(right):
        good, total = order_pairs(list(order), right)
        inversions = sum(
            1 for i in range(4) for j in range(i + 1, 4) if right.index(order[i]) > right.index(order[j])
        )
        assert total == 6 and good == 6 - inversions


def test_chronology_is_never_shown_in_order_and_its_ids_and_prompt_say_nothing_of_the_dates():
    pool = pool_of(questions=(chronology_question(),))
    for seed in range(40):
        item = item_new(pool, "chronology", rng_for(seed), set())
        assert item is not None
        shown = [event["id"] for event in item.prompt["events"]]
        assert shown != item.key["answer"]
        assert shown == [f"e{n}" for n in range(1, len(shown) + 1)]  # ids follow the shown order
        public = json.dumps(item.prompt)
        assert "answer" not in public and "date" not in public
        assert not any(date in public for date in item.key["dates"].values())


def test_chronology_answer_orders_every_event_once():
    item = item_new(pool_of(questions=(chronology_question(),)), "chronology", rng_for(2), set())
    ids = [event["id"] for event in item.prompt["events"]]
    assert answer_clean(item, {"order": ids[::-1]}) == {"order": ids[::-1]}
    assert answer_clean(item, {}) == {"order": []}
    for wrong in (ids[:-1], [*ids, ids[0]], [*ids[:-1], "e9"], "e1"):
        with pytest.raises(quiz.InvalidAnswer, match="every event"):
            answer_clean(item, {"order": wrong})


def test_chronology_from_symbols_takes_dated_symbols_whose_dates_can_be_told_apart():
    # Only three of these dates are apart from each other: 1918 holds 1918-11 and 1918-11-11.
    pool = pool_of(
        symbol(1, date="1918"),
        symbol(2, date="1918-11"),
        symbol(3, date="1918-11-11"),
        symbol(4, date="1944-08-01"),
        symbol(5, date="1980"),
        symbol(6, date=""),
    )
    for seed in range(20):
        item = item_new(pool, "chronology", rng_for(seed), set())
        assert item is not None and len(item.prompt["events"]) == 3
        dates = [date_parse(d) for d in item.key["dates"].values()]
        assert all(dates_apart(a, b) for i, a in enumerate(dates) for b in dates[i + 1 :])
        assert "symbol:6" not in item.subjects
        assert [item.key["dates"][e] for e in item.key["answer"]] == sorted(
            item.key["dates"].values(), key=date_parse
        )
        # Names only: no item pairs a symbol's name with its picture.
        assert "pictures" not in item.key and all("picture" not in e for e in item.prompt["events"])


def test_chronology_needs_three_dated_symbols():
    pool = pool_of(symbol(1, date="1918"), symbol(2, date="1920"), symbol(3, date=""))
    assert item_new(pool, "chronology", rng_for(1), set()) is None
    with pytest.raises(QuizTooSmall, match="chronology"):
        generate(pool, {"chronology": 1}, 1)


def test_chronology_of_symbols_reports_each_symbol_its_share_of_pairs_in_order():
    item = generate(big_pool(), {"chronology": 1}, 3)[0]
    right = list(item.key["answer"])
    assert len(right) == 4
    swapped = [right[1], right[0], *right[2:]]
    results = subject_results(item, {"order": swapped})
    by_event = {item.key["event_subjects"][e]: results[item.key["event_subjects"][e]] for e in right}
    first, second, *rest = (by_event[item.key["event_subjects"][e]] for e in right)
    # The two swapped events are each wrong in one of their three pairs; the others in none.
    assert first == second == pytest.approx(2 / 3)
    assert rest == [1.0, 1.0]
    assert subject_results(item, {"order": right}) == dict.fromkeys(item.subjects, 1.0)


# --- period -------------------------------------------------------------------------------------


def test_period_asks_only_a_symbol_of_exactly_one_period_and_is_right_or_wrong():
    pool = pool_of(symbol(1, periods=("ii-rp", "wojna")), symbol(2, periods=("prl",)))
    for seed in range(10):
        item = item_new(pool, "period", rng_for(seed), set())
        assert item is not None and item.subjects == ("symbol:2",)
        assert [o["label"] for o in item.prompt["options"]] == ["II RP", "II wojna", "PRL"]
        assert item.prompt["name"] == "Symbol numer 2" and "picture" not in item.prompt
        assert grade(item, {"choice": item.key["answer"]}).score == 1
        assert grade(item, {"choice": "a"}).score == 0
        assert grade(item, {"choice": "a"}).parts[0].expected == "PRL"


def test_period_needs_three_periods_to_choose_from():
    pool = Pool(symbols=(symbol(1, periods=("prl",)),), periods=PERIODS[1:])
    assert item_new(pool, "period", rng_for(1), set()) is None


# --- matching -----------------------------------------------------------------------------------


def test_matching_earns_a_point_per_pair_matched_rightly():
    item = item_new(pool_of(questions=(matching_question(),)), "matching", rng_for(4), set())
    assert item is not None and item.points == 3
    answer = dict(item.key["answer"])
    assert grade(item, {"pairs": answer}).score == 3
    lefts = list(answer)
    two_swapped = {**answer, lefts[0]: answer[lefts[1]], lefts[1]: answer[lefts[0]]}
    assert grade(item, {"pairs": two_swapped}).score == 1
    one_left_out = {left: right for left, right in answer.items() if left != lefts[2]}
    assert grade(item, {"pairs": one_left_out}).score == 2
    same_right_twice = {left: answer[lefts[0]] for left in lefts}
    assert grade(item, {"pairs": same_right_twice}).score == 1
    assert grade(item, None).score == 0
    parts = grade(item, {"pairs": one_left_out}).parts
    assert [p.correct for p in parts].count(True) == 2


def test_matching_sides_are_shuffled_apart_and_ids_follow_the_shown_order():
    pool = pool_of(questions=(matching_question(),))
    for seed in range(30):
        item = item_new(pool, "matching", rng_for(seed), set())
        lefts = [side["id"] for side in item.prompt["left"]]
        rights = [side["id"] for side in item.prompt["right"]]
        assert lefts == ["l1", "l2", "l3"] and rights == ["r1", "r2", "r3"]
        assert item.key["answer"] != dict(zip(lefts, rights, strict=True))  # never pair for pair in line
        assert "answer" not in json.dumps(item.prompt)


def test_matching_answer_pairs_only_the_items_own_sides():
    item = item_new(pool_of(questions=(matching_question(),)), "matching", rng_for(4), set())
    assert answer_clean(item, {"pairs": {"l1": "r2", "l2": ""}}) == {"pairs": {"l1": "r2"}}
    with pytest.raises(quiz.InvalidAnswer, match="left"):
        answer_clean(item, {"pairs": {"l9": "r1"}})
    with pytest.raises(quiz.InvalidAnswer, match="right"):
        answer_clean(item, {"pairs": {"l1": "r9"}})


def test_matching_by_period_or_theme_gives_every_symbol_exactly_one_label_shown():
    pool = big_pool()
    seen = set()
    for seed in range(40):
        item = item_new(pool, "matching", rng_for(seed), set())
        assert item is not None and 3 <= item.points <= 4
        by = item.prompt["by"]
        seen.add(by)
        if by == "description":
            continue
        labels = {label.label: label.key for label in (PERIODS if by == "period" else THEMES)}
        shown = {side["id"]: labels[side["text"]] for side in item.prompt["right"]}
        for left, right in item.key["answer"].items():
            entry = pool.symbol(item.key["pair_subjects"][left])
            held = set(entry.periods if by == "period" else entry.themes)
            assert held & set(shown.values()) == {shown[right]}
    assert {"period", "theme", "description"} <= seen


def test_matching_by_description_blanks_the_names_out():
    pool = pool_of(*(symbol(i) for i in range(1, 5)))
    pool = Pool(symbols=pool.symbols)  # no periods or themes: descriptions only
    item = item_new(pool, "matching", rng_for(1), set())
    assert item is not None and item.prompt["by"] == "description"
    for side in item.prompt["right"]:
        assert "Symbol numer" not in side["text"] and "___" in side["text"]


def test_matching_of_symbols_reports_each_symbol_its_own_pair():
    item = generate(big_pool(), {"matching": 1}, 5)[0]
    answer = dict(item.key["answer"])
    first = next(iter(answer))
    results = subject_results(item, {"pairs": {first: answer[first]}})
    assert results[item.key["pair_subjects"][first]] == 1.0
    assert sorted(results.values()) == [0.0] * (len(answer) - 1) + [1.0]


# --- teacher-written multiple choice ------------------------------------------------------------


def test_choice_is_right_only_for_the_right_option_and_keeps_the_authors_order():
    item = item_new(pool_of(questions=(choice_question(),)), "choice", rng_for(1), set())
    assert item is not None and item.kind == "choice" and item.points == 1
    assert [o["text"] for o in item.prompt["options"]] == [
        "1 sierpnia 1944",
        "1 września 1939",
        "13 grudnia 1981",
    ]
    assert item.key["answer"] == "a"
    assert grade(item, {"choice": "a"}).score == 1
    assert grade(item, {"choice": "b"}).score == 0
    assert grade(item, {"choice": "b"}).parts[0].expected == "1 sierpnia 1944"


def test_choice_pictures_and_explanation_stay_in_the_key():
    item = item_new(pool_of(questions=(choice_question(),)), "choice", rng_for(1), set())
    public = json.dumps(item.prompt, ensure_ascii=False)
    assert item.prompt["picture"] == "q" and item.prompt["options"][2]["picture"] == "c"
    assert "questions/" not in public and "Godzina W" not in public and "correct" not in public
    assert item.key["pictures"] == {"q": "questions/kotwica.png", "c": "questions/zegar.png"}
    assert item.key["explanation"].startswith("Godzina W")


def test_an_option_that_is_a_picture_alone_is_named_by_its_letter():
    question = choice_question(
        options=(OptionEntry(picture="p1.png", correct=True), OptionEntry("Kotwica"), OptionEntry("Orzeł"))
    )
    item = item_new(pool_of(questions=(question,)), "choice", rng_for(1), set())
    assert grade(item, {"choice": "b"}).parts[0].expected == "(A)"


# --- teacher-written questions: what is refused as unfair ----------------------------------------


def codes(
    kind: str, options, text: str = "Pytanie", picture: str = ""
) -> list[tuple[str, tuple[int, ...], str]]:
    return [(p.code, p.options, p.part) for p in question_problems(kind, text, options, picture)]


def test_a_chronology_with_two_events_of_the_same_date_is_refused_naming_the_date():
    same = [
        OptionEntry("A", date="1944-08-01"),
        OptionEntry("B", date="1944-08-01"),
        OptionEntry("C", date="1980"),
    ]
    assert codes("chronology", same) == [("same_date", (0, 1), "date")]
    inside = [OptionEntry("A", date="1944"), OptionEntry("B", date="1944-08"), OptionEntry("C", date="1980")]
    assert codes("chronology", inside) == [("same_date", (0, 1), "date")]
    apart = [
        OptionEntry("A", date="1944-07"),
        OptionEntry("B", date="1944-08"),
        OptionEntry("C", date="1980"),
    ]
    assert codes("chronology", apart) == []


def test_a_chronology_event_needs_a_text_and_a_real_date_and_there_are_3_to_6():
    events = [OptionEntry("A", date="1944"), OptionEntry("", date="1945"), OptionEntry("C", date="sierpień")]
    assert codes("chronology", events) == [("empty_option", (1,), "text"), ("bad_date", (2,), "date")]
    assert codes("chronology", [OptionEntry("A", date="1944"), OptionEntry("B")]) == [
        ("too_few", (), "options"),
        ("no_date", (1,), "date"),
    ]
    seven = [OptionEntry(str(n), date=str(1900 + n)) for n in range(7)]
    assert codes("chronology", seven) == [("too_many", (), "options")]


def test_a_matching_with_an_unpaired_side_is_refused_naming_the_missing_side():
    pairs = [
        OptionEntry("A", match="1"),
        OptionEntry("B"),
        OptionEntry("", match="3"),
        OptionEntry("D", match="4"),
    ]
    assert codes("matching", pairs) == [("unpaired", (1,), "match"), ("unpaired", (2,), "text")]


def test_a_matching_with_two_sides_alike_is_refused():
    pairs = [OptionEntry("A", match="1"), OptionEntry("a ", match="2"), OptionEntry("C", match="2.")]
    assert codes("matching", pairs) == [("same_options", (0, 1), "text"), ("same_options", (1, 2), "match")]


def test_a_multiple_choice_with_no_right_option_is_refused():
    options = [OptionEntry("A"), OptionEntry("B")]
    assert codes("choice", options) == [("no_right", (), "correct")]


def test_a_multiple_choice_with_two_identical_options_is_refused():
    options = [OptionEntry("Kotwica", correct=True), OptionEntry("kotwica!"), OptionEntry("Orzeł")]
    assert codes("choice", options) == [("same_options", (0, 1), "text")]
    # The same words with different pictures are different options.
    pictured = [OptionEntry("Ten", picture="1", correct=True), OptionEntry("Ten", picture="2")]
    assert codes("choice", pictured) == []


def test_a_multiple_choice_has_one_right_option_a_question_and_no_empty_option():
    options = [OptionEntry("A", correct=True), OptionEntry("B", correct=True), OptionEntry("")]
    assert codes("choice", options, text="") == [
        ("no_question", (), "text"),
        ("empty_option", (2,), "text"),
        ("several_right", (0, 1), "correct"),
    ]
    assert codes("choice", [OptionEntry("A", correct=True), OptionEntry("B")], text="", picture="p") == []


def test_an_unfair_question_in_a_pool_is_never_asked():
    unfair = chronology_question(dates=("1944", "1944-08", "1980"))
    pool = pool_of(questions=(unfair,))
    assert item_new(pool, "chronology", rng_for(1), set()) is None
    assert quiz.capacity(pool)["chronology"] == 0


# --- teacher-written questions in a quiz --------------------------------------------------------


def test_every_teacher_question_in_the_pool_is_asked_before_the_share_out():
    questions = (
        choice_question("question:1"),
        chronology_question("question:2"),
        matching_question("question:3"),
    )
    pool = pool_of(*(symbol(i) for i in range(1, 13)), questions=questions)
    for seed in range(5):
        plan = counts_plan(pool, 8, seed=seed)
        assert sum(plan.values()) == 8
        items = generate(pool, plan, seed)
        asked = {s for item in items for s in item.subjects}
        assert {"question:1", "question:2", "question:3"} <= asked
    # A total smaller than the questions asks as many as fit.
    assert counts_plan(pool, 2, seed=1) == {"choice": 1, "chronology": 1}


def test_follow_up_share_out_includes_the_history_items():
    plan = counts_plan(big_pool(24), 12, seed=1)
    assert sum(plan.values()) == 12
    assert plan.get("period", 0) >= 1 and plan.get("chronology", 0) >= 1 and plan.get("matching", 0) >= 1
    assert "choice" not in plan


def test_new_items_round_trip_through_json():
    questions = (choice_question(), chronology_question(), matching_question())
    pool = pool_of(*(symbol(i) for i in range(1, 13)), questions=questions)
    for item in generate(pool, {"choice": 1, "chronology": 2, "matching": 2, "period": 1}, 4):
        assert Item.from_dict(json.loads(json.dumps(item.to_dict()))) == item
