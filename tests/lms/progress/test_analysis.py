"""Item analysis checked against a class of 10 worked out by hand.

The quiz has four questions:

* Q1 multiple choice, options a b c d, right b;
* Q2 "which periods", options a b c, right a and b (partial credit: each right tick +1/2,
  each wrong tick −1/2, never below 0);
* Q3 multiple choice, options a b c, right a;
* Q4 a name to type (right or wrong).

The answers, the score of each (as a fraction of the question's one point) and the totals::

    student  Q1        Q2           Q3        Q4      total
    s1       b  1      a b    1     a  1      wrong   3
    s2       b  1      a b    1     a  1      right   4
    s3       b  1      a      0.5   a  1      wrong   2.5
    s4       b  1      a b    1     b  0      wrong   2
    s5       c  0      a      0.5   a  1      wrong   1.5
    s6       b  1      a c    0     a  1      right   3
    s7       a  0      b      0.5   c  0      wrong   0.5
    s8       c  0      a      0.5   b  0      right   1.5
    s9       —  0      a b c  0.5   b  0      right   1.5
    s10      c  0      —      0     —  0      —       0

Groups: 27 % of 10 is 2.7, so 3 students each.  By total: s2 (4), s1 and s6 (3), s3 (2.5),
s4 (2), s5 s8 s9 (1.5), s7 (0.5), s10 (0).  Upper: s2, s1, s6.  Lower: s10, s7 and one of
the three tied at 1.5; ties go by account (lower id ranks higher), so s9 is the lowest of
them and joins the lower group.

Share correct, upper, lower, discrimination (upper − lower):

* Q1: right s1 s2 s3 s4 s6 → 5/10 = 0.5; upper 3/3 = 1; lower (s9 none, s7 a, s10 c) 0; D = 1.
* Q2: 1+1+.5+1+.5+0+.5+.5+.5+0 = 5.5 → 0.55; upper (1, 1, 0) 2/3; lower (.5, .5, 0) 1/3;
  D = 1/3.
* Q3: right s1 s2 s3 s5 s6 → 0.5; upper 1; lower (b, c, none) 0; D = 1.
* Q4: right s2 s6 s8 s9 → 0.4; upper (s2 1, s1 0, s6 1) 2/3; lower (s9 1, s7 0, s10 0) 1/3;
  D = 1/3.

Choices (each student's picks; a Q2 tick counts once per ticked option):

* Q1: a 1 (s7), b 5, c 3 (s5 s8 s10), d 0, no choice 1 (s9).
* Q2: a 8 (all but s7 s10), b 5 (s1 s2 s4 s7 s9), c 2 (s6 s9), no choice 1 (s10).
* Q3: a 5, b 3 (s4 s8 s9), c 1 (s7), no choice 1 (s10).

Time: seconds from the student's previous answer (or the start) to their first answer to
the question; everyone answers in order Q1 → Q4 except s4 (Q3, Q1, Q2, Q4); s9 never
answers Q1, s10 answers Q1 only::

    student  Q1  Q2  Q3  Q4
    s1       20  30  15  40
    s2       25  35  10  30
    s3       30  40  20  50
    s4       18  45  12  60      (answered Q3 at 12 s, Q1 at 30 s, Q2 at 75 s, Q4 at 135 s)
    s5       40  50  25  35
    s6       15  20  10  25
    s7       60  70  30  45
    s8       35  30  20  55
    s9       —   80  40  20
    s10      50  —   —   —

Medians: Q1 of 15 18 20 25 30 35 40 50 60 → 30; Q2 of 20 30 30 35 40 45 50 70 80 → 40;
Q3 of 10 10 12 15 20 20 25 30 40 → 20; Q4 of 20 25 30 35 40 45 50 55 60 → 40.
"""

from __future__ import annotations

import doctest
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from lms.progress import analysis
from lms.progress.analysis import Answer

STUDENTS = [f"s{n}" for n in range(1, 11)]

#: Per student: (Q1 choice, Q2 ticks, Q3 choice, Q4 typed right?); None is no answer.
ANSWERS: dict[str, tuple[str | None, tuple[str, ...], str | None, bool | None]] = {
    "s1": ("b", ("a", "b"), "a", False),
    "s2": ("b", ("a", "b"), "a", True),
    "s3": ("b", ("a",), "a", False),
    "s4": ("b", ("a", "b"), "b", False),
    "s5": ("c", ("a",), "a", False),
    "s6": ("b", ("a", "c"), "a", True),
    "s7": ("a", ("b",), "c", False),
    "s8": ("c", ("a",), "b", True),
    "s9": (None, ("a", "b", "c"), "b", True),
    "s10": ("c", (), None, None),
}
FRACTIONS = {  # by hand, from the table in the docstring
    "s1": (1, 1, 1, 0),
    "s2": (1, 1, 1, 1),
    "s3": (1, 0.5, 1, 0),
    "s4": (1, 1, 0, 0),
    "s5": (0, 0.5, 1, 0),
    "s6": (1, 0, 1, 1),
    "s7": (0, 0.5, 0, 0),
    "s8": (0, 0.5, 0, 1),
    "s9": (0, 0.5, 0, 1),
    "s10": (0, 0, 0, 0),
}
TOTALS = {"s1": 3, "s2": 4, "s3": 2.5, "s4": 2, "s5": 1.5, "s6": 3, "s7": 0.5, "s8": 1.5, "s9": 1.5, "s10": 0}
#: Seconds per question (Q1..Q4); None: no time.
SECONDS = {
    "s1": (20, 30, 15, 40),
    "s2": (25, 35, 10, 30),
    "s3": (30, 40, 20, 50),
    "s4": (18, 45, 12, 60),
    "s5": (40, 50, 25, 35),
    "s6": (15, 20, 10, 25),
    "s7": (60, 70, 30, 45),
    "s8": (35, 30, 20, 55),
    "s9": (None, 80, 40, 20),
    "s10": (50, None, None, None),
}
OPTIONS = {1: ("a", "b", "c", "d"), 2: ("a", "b", "c"), 3: ("a", "b", "c"), 4: ()}

#: What the analysis must say, worked out by hand in the module docstring.
EXPECTED: dict[int, dict[str, Any]] = {
    1: {"share": 0.5, "upper": 1.0, "lower": 0.0, "d": 1.0, "median": 30.0, "timed": 9,
        "choices": {"a": 1, "b": 5, "c": 3, "d": 0}, "no_choice": 1},
    2: {"share": 0.55, "upper": 2 / 3, "lower": 1 / 3, "d": 1 / 3, "median": 40.0, "timed": 9,
        "choices": {"a": 8, "b": 5, "c": 2}, "no_choice": 1},
    3: {"share": 0.5, "upper": 1.0, "lower": 0.0, "d": 1.0, "median": 20.0, "timed": 9,
        "choices": {"a": 5, "b": 3, "c": 1}, "no_choice": 1},
    4: {"share": 0.4, "upper": 2 / 3, "lower": 1 / 3, "d": 1 / 3, "median": 40.0, "timed": 9,
        "choices": {}, "no_choice": 0},
}  # fmt: skip


def class_of_ten() -> list[Answer]:
    answers = []
    for student in STUDENTS:
        q1, q2, q3, _q4 = ANSWERS[student]
        picks: list[tuple[str, ...]] = [(q1,) if q1 else (), q2, (q3,) if q3 else (), ()]
        for number in range(1, 5):
            answers.append(
                Answer(
                    student=student,
                    item=number,
                    fraction=FRACTIONS[student][number - 1],
                    choices=picks[number - 1],
                    seconds=SECONDS[student][number - 1],
                )
            )
    return answers


def _tie_break(student: Any) -> int:
    return int(str(student)[1:])  # s1 < s2 < … < s10, as account ids


def test_the_totals_of_the_hand_computed_class_add_up():
    assert {student: sum(FRACTIONS[student]) for student in STUDENTS} == TOTALS


def test_the_groups_are_the_top_and_bottom_27_percent_with_ties_broken_by_account():
    groups = analysis.groups_form(TOTALS, tie_break=_tie_break)
    assert groups.upper == ("s2", "s1", "s6")
    # Ranked: s2 s1 s6 s3 s4 s5 s8 s9 s7 s10 (s5 s8 s9 tied at 1.5, by account).
    assert groups.lower == ("s9", "s7", "s10")


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_item_statistics_match_the_hand_computed_class(number: int):
    groups = analysis.groups_form(TOTALS, tie_break=_tie_break)
    stats = analysis.item_stats(class_of_ten(), TOTALS, item=number, options=OPTIONS[number], groups=groups)
    want = EXPECTED[number]
    assert stats.answered == 10
    assert stats.share_correct == pytest.approx(want["share"])
    assert stats.upper == pytest.approx(want["upper"])
    assert stats.lower == pytest.approx(want["lower"])
    assert stats.discrimination == pytest.approx(want["d"])
    assert stats.median_seconds == want["median"]
    assert stats.timed == want["timed"]
    assert stats.choices == want["choices"]
    assert stats.no_choice == want["no_choice"]


def test_an_answer_waiting_for_the_teachers_mark_is_left_out_until_marked():
    answers = [a if (a.student, a.item) != ("s2", 4) else Answer("s2", 4, None) for a in class_of_ten()]
    stats = analysis.item_stats(
        answers, TOTALS, item=4, groups=analysis.groups_form(TOTALS, tie_break=_tie_break)
    )
    assert stats.answered == 9
    assert stats.share_correct == pytest.approx(3 / 9)  # s6 s8 s9 of the nine marked
    assert stats.upper == pytest.approx(1 / 2)  # s1 0, s6 1; s2 waits


def test_group_sizes_for_small_classes():
    assert [analysis.group_size(n) for n in (0, 1, 2, 3, 4, 10, 11, 30)] == [0, 0, 1, 1, 1, 3, 3, 8]
    stats = analysis.item_stats([Answer("solo", 1, 1.0)], {"solo": 1.0}, item=1)
    assert stats.share_correct == 1.0 and stats.discrimination is None


def test_time_taken_is_measured_from_the_previous_answer_in_the_order_given():
    start = datetime(2026, 3, 2, 10, 0)
    at = {
        number: start + timedelta(seconds=seconds)
        for number, seconds in {3: 12, 1: 30, 2: 75, 4: 135}.items()
    }
    assert analysis.answer_seconds(start, at) == {3: 12.0, 1: 18.0, 2: 45.0, 4: 60.0}  # s4's row


def test_answers_first_sent_with_the_hand_in_have_no_time():
    start = datetime(2026, 3, 2, 10, 0)
    handed_in = start + timedelta(seconds=300)
    at = {1: start + timedelta(seconds=20), 2: handed_in, 3: None}
    assert analysis.answer_seconds(start, at, handed_in=handed_in) == {1: 20.0, 2: None, 3: None}


def test_mastery_by_week_replays_the_reviews_week_by_week():
    start = datetime(2026, 3, 2, 0, 0, tzinfo=UTC)
    weeks = [start + timedelta(days=7 * n) for n in (1, 2, 3)]
    reviews = [
        analysis.ReviewRow("ala", "symbol:1", 1.0, start + timedelta(days=1)),
        analysis.ReviewRow("ala", "symbol:1", 1.0, start + timedelta(days=9)),
        analysis.ReviewRow("ola", "symbol:2", 0.0, start + timedelta(days=10)),
    ]
    result = analysis.mastery_by_week(reviews, {"symbol:1": ["PRL"], "symbol:2": ["PRL", "II RP"]}, weeks)
    assert result["II RP"][0] is None and result["II RP"][1] is not None
    prl = result["PRL"]
    assert prl[0] is not None and prl[1] is not None
    # Week 2: ola's wrong answer joins and pulls the mean down; week 3: memories fade.
    assert prl[1] < prl[0]
    assert prl[2] < prl[1]


def test_the_examples_in_the_docstrings_hold():
    assert doctest.testmod(analysis).failed == 0
