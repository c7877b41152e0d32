"""``/api/v1/knowledge-questions/``: quiz cards and the answers that move a marker."""

from __future__ import annotations

import pytest

from content.models import KnowledgeQuestion
from tests.factories import KnowledgeQuestionFactory

from .helpers import url


def question(**overrides) -> dict:
    return {"category": "letter", "front": "Which letter?", "back": "C or D.", "answer": "C/D", **overrides}


def test_teacher_creates_reads_updates_and_deletes_a_knowledge_question(api, teacher):
    client = api(teacher)
    response = client.post(url("knowledge-question"), question(), format="json")
    assert response.status_code == 201, response.content
    created = response.json()
    assert created["answer"] == ["C", "D"]
    assert created["answer_display"] == "C/D"
    assert created["owner"] == teacher.pk
    row = KnowledgeQuestion.objects.get(pk=created["id"])
    assert row.answer == ["C", "D"]

    assert client.get(url("knowledge-question", row.pk)).json() == created

    response = client.put(
        url("knowledge-question", row.pk), question(category="number", answer=4), format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["answer"] == 4

    assert client.delete(url("knowledge-question", row.pk)).status_code == 204
    assert not KnowledgeQuestion.objects.filter(pk=row.pk).exists()


@pytest.mark.parametrize(
    ("category", "given", "stored"),
    [
        ("number", 3, 3),
        ("number", "0", 0),
        ("number", [5], 5),
        ("letter", "d, c", ["C", "D"]),
        ("letter", ["e"], ["E"]),
        ("letter", "B", ["B"]),
        ("colour", "niebieski / red", ["red", "blue"]),
        ("colour", ["white", "green"], ["green", "white"]),
    ],
)
def test_answer_accepts_a_number_a_list_or_text(api, teacher, category, given, stored):
    response = api(teacher).post(
        url("knowledge-question"), question(category=category, answer=given), format="json"
    )
    assert response.status_code == 201, response.content
    assert response.json()["answer"] == stored
    assert KnowledgeQuestion.objects.get().answer == stored


@pytest.mark.parametrize(
    ("category", "given", "message"),
    [
        ("number", 6, "A number card's answer is a whole number from 0 to 5, not 6."),
        ("number", -1, "A number card's answer is a whole number from 0 to 5, not '-1'."),
        ("number", "C", "A number card's answer is a whole number from 0 to 5, not 'C'."),
        ("letter", "C/F", "A letter card's answer is one or more of A–E, not 'F'."),
        ("letter", 3, "A letter card's answer is one or more of A–E, not '3'."),
        ("letter", [], "Give at least one answer."),
        ("letter", "", "Give the answer."),
        (
            "colour",
            ["pink"],
            "A colour card's answer is one or more of red, yellow, green, blue, white, not 'pink'.",
        ),
        ("number", True, 'Give the answer as a number, a list or text such as "C/D".'),
        ("letter", {"a": 1}, 'Give the answer as a number, a list or text such as "C/D".'),
    ],
)
def test_bad_answer_gives_400_with_the_message(api, teacher, category, given, message):
    response = api(teacher).post(
        url("knowledge-question"), question(category=category, answer=given), format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"answer": [message]}
    assert not KnowledgeQuestion.objects.exists()


def test_changing_the_category_checks_the_stored_answer(api, teacher):
    row = KnowledgeQuestionFactory(owner=teacher, category="number", answer=3)
    client = api(teacher)
    response = client.patch(url("knowledge-question", row.pk), {"category": "letter"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"answer": ["A letter card's answer is one or more of A–E, not '3'."]}
    row.refresh_from_db()
    assert row.category == "number"
    response = client.patch(
        url("knowledge-question", row.pk), {"category": "letter", "answer": "A"}, format="json"
    )
    assert response.status_code == 200
    row.refresh_from_db()
    assert (row.category, row.answer) == ("letter", ["A"])


def test_answer_alone_is_checked_against_the_stored_category(api, teacher):
    row = KnowledgeQuestionFactory(owner=teacher, category="number", answer=3)
    response = api(teacher).patch(url("knowledge-question", row.pk), {"answer": "C"}, format="json")
    assert response.status_code == 400
    response = api(teacher).patch(url("knowledge-question", row.pk), {"answer": "5"}, format="json")
    assert response.status_code == 200
    assert response.json()["answer"] == 5


def test_knowledge_questions_filter_by_status(api, teacher):
    published = KnowledgeQuestionFactory(owner=teacher)
    KnowledgeQuestionFactory(owner=teacher, status="draft")
    found = api(teacher).get(url("knowledge-question", status="published")).json()["results"]
    assert [row["id"] for row in found] == [published.pk]
