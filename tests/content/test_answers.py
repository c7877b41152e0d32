"""Knowledge? answers (rulebook, The Quiz Cards): numbers 0–5, letters A–E, five colours."""

import pytest

from content.answers import AnswerError, answer_format, answer_parse, answer_validate


@pytest.mark.parametrize("text,expected", [("0", 0), ("5", 5), (" 3 ", 3)])
def test_number_card_answer_is_zero_to_five(text, expected):
    assert answer_parse("number", text) == expected


@pytest.mark.parametrize("text", ["6", "-1", "2.5", "three", ""])
def test_number_card_answer_outside_zero_to_five_is_refused(text):
    with pytest.raises(AnswerError):
        answer_parse("number", text)


def test_letter_card_several_letters_mean_next_available_and_are_kept_in_order():
    assert answer_parse("letter", "d / c") == ["C", "D"]
    assert answer_format("letter", ["C", "D"]) == "C/D"


def test_letter_card_refuses_letters_beyond_e():
    with pytest.raises(AnswerError, match="A–E"):
        answer_parse("letter", "F")


def test_colour_card_accepts_polish_and_english_colour_names():
    assert answer_parse("colour", "biały, czerwony") == ["red", "white"]
    assert answer_parse("colour", "Blue") == ["blue"]


def test_colour_card_refuses_other_colours():
    with pytest.raises(AnswerError, match="red, yellow, green, blue, white"):
        answer_parse("colour", "black")


def test_validate_refuses_a_list_for_a_number_card_with_two_values():
    with pytest.raises(AnswerError):
        answer_validate("number", [1, 2])


def test_validate_refuses_bool_for_a_number_card():
    with pytest.raises(AnswerError):
        answer_validate("number", True)


@pytest.mark.parametrize("text", ["³", "²", " ¹ "])
def test_superscript_digit_is_not_a_number_card_answer(text):
    # '³'.isdigit() is true but int('³') fails: such text is refused, not crashed on.
    with pytest.raises(AnswerError):
        answer_validate("number", text)
    with pytest.raises(AnswerError):
        answer_parse("number", text)
