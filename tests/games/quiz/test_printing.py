"""Worksheets and answer keys render on download: a missing picture still prints (a labelled
box), and a render that fails gives the teacher a clear page, never a 500."""

from __future__ import annotations

import io

import pytest
from django.core.files.storage import default_storage
from django.urls import reverse
from pypdf import PdfReader

from games.quiz import printing
from tests.games.quiz.conftest import signed_in

pytestmark = pytest.mark.django_db


def pdf_text(content: bytes) -> str:
    return " ".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


def test_a_quiz_whose_picture_file_is_missing_still_prints_with_the_box_labelled(built_quiz, teacher):
    item = next(i for i in built_quiz.items.order_by("position") if i.prompt.get("picture"))
    name = item.key["pictures"][item.prompt["picture"]]
    default_storage.delete(name)
    assert not default_storage.exists(name)
    for which in ("worksheet", "answer-key"):
        response = signed_in(teacher).get(reverse("quiz:print", args=[built_quiz.pk, which]))
        assert response.status_code == 200 and response.content.startswith(b"%PDF")
        assert "(picture missing)" in pdf_text(response.content)


def test_a_render_that_fails_gives_a_clear_page_not_a_500(built_quiz, teacher, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("the renderer fell over")

    monkeypatch.setattr(printing, "render_pdf", broken)
    response = signed_in(teacher).get(reverse("quiz:print", args=[built_quiz.pk, "worksheet"]))
    assert response.status_code == 503
    page = response.content.decode()
    assert response["Content-Type"].startswith("text/html")
    assert "The PDF could not be made" in page and "renderer fell over" not in page
    assert reverse("quiz:print", args=[built_quiz.pk, "worksheet"]) in page
    assert reverse("quiz:detail", args=[built_quiz.pk]) in page


def keyed_options(quiz) -> list[tuple[str, str]]:
    """(id, label) of the options whose id is an internal key (a period's slug, a colour)."""
    found = []
    for item in quiz.items.all():
        for option in item.prompt.get("options", []):
            option_id = str(option["id"]) if isinstance(option, dict) else str(option)
            if len(option_id) > 1:
                found.append((option_id, option.get("label", "") if isinstance(option, dict) else ""))
    return found


def test_worksheet_and_answer_key_letter_the_options_and_never_print_their_keys(built_quiz, teacher):
    keyed = keyed_options(built_quiz)
    assert any(label for _, label in keyed), "the quiz should ask about periods"
    assert any(not label for _, label in keyed), "the quiz should ask about a colour"
    for which in ("worksheet", "answer-key"):
        text = pdf_text(signed_in(teacher).get(reverse("quiz:print", args=[built_quiz.pk, which])).content)
        for option_id, label in keyed:
            assert f"{option_id})" not in text
            if label:
                assert label in text
        assert "A)" in text and "B)" in text
