"""Reading a class list (lms/accounts/roster.py): pasted lines and CSV files, and every
way a list goes wrong said at once, line by line."""

from __future__ import annotations

import pytest

from lms.accounts.roster import (
    ROSTER_MAX_ROWS,
    RosterError,
    roster_parse,
    roster_parse_csv,
    username_base,
)


def people(rows):
    return [(r.line, r.first_name, r.last_name, r.username) for r in rows]


def test_a_pasted_list_gives_names_and_the_usernames_asked_for():
    text = "Anna Kowalska\nJan Nowak, jnowak\nZofia Maria Wiśniewska\tzosia\nPiotr; p.lis"
    assert people(roster_parse(text)) == [
        (1, "Anna", "Kowalska", ""),
        (2, "Jan", "Nowak", "jnowak"),
        (3, "Zofia Maria", "Wiśniewska", "zosia"),
        (4, "Piotr", "", "p.lis"),
    ]


def test_empty_lines_and_list_numbers_are_skipped_not_made_into_students():
    text = "\n\n1. Anna Kowalska\n   \n2) Jan Nowak\n\t\n"
    assert people(roster_parse(text)) == [(3, "Anna", "Kowalska", ""), (5, "Jan", "Nowak", "")]


def test_a_list_of_only_empty_lines_is_refused():
    with pytest.raises(RosterError) as refusal:
        roster_parse("\n  \n\t\n")
    assert "no names" in str(refusal.value)


def test_duplicate_usernames_are_refused_with_both_lines_whatever_their_case():
    with pytest.raises(RosterError) as refusal:
        roster_parse("Anna Kowalska, anna.k\nAnna Kowalczyk, Anna.K\nJan Nowak, jan")
    assert refusal.value.problems == ["Line 2: the username “Anna.K” is already on line 1."]


def test_duplicate_names_without_usernames_are_two_students():
    assert len(roster_parse("Anna Kowalska\nAnna Kowalska")) == 2


def test_every_bad_line_is_listed_at_once():
    text = "Anna Kowalska, anna k\nJan, Nowak, jnowak\n, lonely\nOla " + "x" * 151
    with pytest.raises(RosterError) as refusal:
        roster_parse(text)
    problems = refusal.value.problems
    assert [p.split(":")[0] for p in problems] == ["Line 2", "Line 3", "Line 4", "Line 1"]
    assert "3 parts" in problems[0] and "name is missing" in problems[1]
    assert "at most 150 characters" in problems[2] and "“anna k” cannot be a username" in problems[3]


def test_too_many_rows_are_refused_with_the_count():
    text = "\n".join(f"Uczeń {n}" for n in range(ROSTER_MAX_ROWS + 1))
    with pytest.raises(RosterError) as refusal:
        roster_parse(text)
    assert refusal.value.problems[0] == (
        f"A list creates at most {ROSTER_MAX_ROWS} students; this one has {ROSTER_MAX_ROWS + 1}. "
        "Split it into smaller lists."
    )
    assert len(roster_parse("\n".join(f"Uczeń {n}" for n in range(ROSTER_MAX_ROWS)))) == ROSTER_MAX_ROWS


# --- CSV ------------------------------------------------------------------------------------------


def test_a_csv_with_name_and_username_columns():
    data = b"Name,Username\nAnna Kowalska,\nJan Nowak,jnowak\n,\n"
    assert people(roster_parse_csv(data)) == [(2, "Anna", "Kowalska", ""), (3, "Jan", "Nowak", "jnowak")]


def test_a_polish_excel_csv_with_first_and_last_name_semicolons_and_windows_1250():
    data = "Imię;Nazwisko;Login\r\nŻaneta;Łęcka;\r\nJan;Nowak;jnowak\r\n".encode("cp1250")
    assert people(roster_parse_csv(data)) == [(2, "Żaneta", "Łęcka", ""), (3, "Jan", "Nowak", "jnowak")]


def test_a_utf8_csv_with_a_byte_order_mark():
    data = "\ufeffname\nZofia Wiśniewska\n".encode()
    assert people(roster_parse_csv(data)) == [(2, "Zofia", "Wiśniewska", "")]


@pytest.mark.parametrize(
    "header",
    ["email,phone", "name,email", "first name,name", "username", "name,name", "Anna Kowalska,anna"],
)
def test_a_csv_with_wrong_columns_says_which_columns_it_wants_and_which_it_has(header):
    with pytest.raises(RosterError) as refusal:
        roster_parse_csv(f"{header}\nAnna Kowalska,anna\n".encode())
    message = str(refusal.value)
    assert "must name its columns: “name” (or “first name” and “last name”)" in message
    assert f"This file's columns are: {', '.join(f'“{c}”' for c in header.split(','))}." in message


def test_a_csv_row_with_more_cells_than_columns_is_refused():
    with pytest.raises(RosterError) as refusal:
        roster_parse_csv(b"name\nAnna Kowalska,anna\n")
    assert refusal.value.problems == ["Line 2 has more cells than the first row has columns."]


def test_a_csv_with_duplicate_usernames_or_too_many_rows_is_refused():
    with pytest.raises(RosterError):
        roster_parse_csv(b"name,username\nAnna,ania\nAnia,ANIA\n")
    rows = "\n".join(f"Ucze\u0144 {n}," for n in range(ROSTER_MAX_ROWS + 1))
    with pytest.raises(RosterError) as refusal:
        roster_parse_csv(f"name,username\n{rows}\n".encode())
    assert "at most 200 students" in refusal.value.problems[0]


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"", "empty"),
        (b"PK\x03\x04\x00\x00binary", "not a CSV file"),
        (b"name\n" + b"x" * 300_000, "bigger than"),
    ],
)
def test_not_a_csv_file_is_refused_with_a_reason(data, said):
    with pytest.raises(RosterError) as refusal:
        roster_parse_csv(data)
    assert said in str(refusal.value)


def test_usernames_made_from_names_are_plain_lower_case_ascii():
    assert username_base("Żaneta", "Łęcka") == "zaneta.lecka"
    assert username_base("Jürgen", "Groß") == "jurgen.gross"
    assert username_base("Анна", "") == "student"
    assert username_base("Al", "") == "studental"
