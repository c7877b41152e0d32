"""Quizzes in Talia packages (games/quiz/packages.py): a quiz travels with the content it
asks about; its content keys and pictures become the other installation's."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.urls import reverse

from content.models import KnowledgeQuestion, KnowQuestion, PackageImport, Symbol
from content.packages import services as packages
from games.quiz import selectors, services
from games.quiz.models import Quiz
from games.quiz.packages import quiz_package_export
from tests.content.packaging import (
    exported,
    installation_empty,
    manifest,
    package_bytes,
    package_check,
    package_import,
    png_bytes,
    preview_items,
)
from tests.factories import TeacherFactory, UserFactory

from .conftest import signed_in

State = PackageImport.State
COUNTS = {
    "picture_name": 2,
    "picture_name_typed": 1,
    "name_picture": 2,
    "periods": 1,
    "text_symbol": 1,
    "connect": 1,
    "knowledge": 2,
    "know": 2,
}


@pytest.fixture
def quiz(teacher, symbols, knowledge_questions, django_capture_on_commit_callbacks) -> Quiz:
    """A built quiz of every kind of item; the pictures are as big as an upload must be."""
    colours = ["red", "green", "blue", "yellow", "purple", "orange", "pink", "brown"]
    for index, symbol in enumerate(symbols):
        colour = colours[index % len(colours)]
        symbol.picture.save("p.png", ContentFile(png_bytes(colour, size=64 + index)), save=True)
    know = [
        KnowQuestion.objects.create(
            owner=teacher, text="Kto dowodził na Westerplatte?", answers=["Sucharski"]
        ),
        KnowQuestion.objects.create(owner=teacher, text="Co to PKWN?", answers=[]),
    ]
    pool = selectors.pool_build(
        symbols=selectors.symbols_with_relations(Symbol.objects.filter(pk__in=[s.pk for s in symbols])),
        knowledge=selectors.knowledge_entries(knowledge_questions),
        know=selectors.know_entries(know),
    )
    with django_capture_on_commit_callbacks(execute=True):
        made = services.quiz_create(
            owner=teacher, title="Po grze", source=Quiz.Source.SELECTION, pool=pool, counts=COUNTS, seed=3
        )
    made.refresh_from_db()
    assert made.state == "done", made.message
    first = made.items.get(position=1)
    services.quiz_item_replace(item=first, by=teacher)  # the quiz remembers what was set aside
    made.refresh_from_db()
    return made


def _export(user, quiz) -> bytes:
    return exported(quiz_package_export(user=user, quiz=quiz))


def test_a_quiz_round_trip_into_an_empty_installation_gives_the_same_manifest(
    teacher, quiz, django_capture_on_commit_callbacks
):
    before_data = _export(teacher, quiz)
    before = manifest(before_data)
    exported_quiz = before["quizzes"][0]
    # Every content key the quiz had travels as the content's uid, with the content.
    travelling = {
        f"{kind}:{entry['uid']}"
        for kind, part in (
            ("symbol", "symbols"),
            ("knowledge", "knowledge_questions"),
            ("know", "know_questions"),
        )
        for entry in before[part]
    }
    subjects = [key for item in exported_quiz["items"] for key in item["key"]["subjects"]]
    assert subjects and set(subjects) <= travelling
    assert exported_quiz["options"]["set_aside"] and set(exported_quiz["options"]["set_aside"]) <= travelling
    assert {
        e["key"] for part in ("symbols", "knowledge", "know") for e in exported_quiz["pool"][part]
    } <= travelling
    assert (len(before["symbols"]), len(before["knowledge_questions"]), len(before["know_questions"])) == (
        24,
        3,
        2,
    )

    installation_empty()
    other = TeacherFactory()
    job = package_import(other, before_data, django_capture_on_commit_callbacks)
    assert job.state == State.DONE, job.error
    imported = Quiz.objects.get()
    assert imported.owner == other and imported.status == Quiz.Status.DRAFT and imported.state == "done"
    assert imported.items.count() == len(exported_quiz["items"]) == 12 and imported.code != quiz.code

    after = manifest(_export(other, imported))
    assert after == before


def test_an_imported_quiz_asks_about_the_imported_content(teacher, quiz, django_capture_on_commit_callbacks):
    data = _export(teacher, quiz)
    installation_empty()
    other = TeacherFactory()
    package_import(other, data, django_capture_on_commit_callbacks)
    imported = Quiz.objects.get()
    local = {f"symbol:{pk}" for pk in Symbol.objects.values_list("pk", flat=True)}
    local |= {f"knowledge:{pk}" for pk in KnowledgeQuestion.objects.values_list("pk", flat=True)}
    local |= {f"know:{pk}" for pk in KnowQuestion.objects.values_list("pk", flat=True)}
    for item in imported.items.all():
        assert item.key["subjects"] and set(item.key["subjects"]) <= local
        assert all(selectors.progress_key(subject) for subject in item.key["subjects"])
    assert {entry["key"] for entry in imported.pool["symbols"]} <= local
    # The pictures are the imported symbols' own files.
    names = set(Symbol.objects.values_list("picture", flat=True))
    pictures = [name for item in imported.items.all() for name in (item.key.get("pictures") or {}).values()]
    assert pictures and set(pictures) <= names
    # The teacher sees them, and can replace an item from the pool as at home.
    item = imported.items.filter(kind="name_picture").first()
    client = signed_in(other)
    token = next(iter(item.key["pictures"]))
    response = client.get(reverse("quiz:teacher_picture", args=[imported.pk, item.pk, token]))
    assert response.status_code == 200
    replaced = services.quiz_item_replace(item=imported.items.get(position=2), by=other)
    assert set(replaced.key["subjects"]) <= local


def test_a_quiz_whose_content_is_skipped_keeps_its_pictures_and_follows_no_progress(
    teacher, quiz, django_capture_on_commit_callbacks
):
    data = _export(teacher, quiz)
    installation_empty()
    other = TeacherFactory()
    job = package_check(other, data, django_capture_on_commit_callbacks)
    skip = {
        item["ref"]: "skip"
        for label, item in preview_items(job).items()
        if item["ref"].startswith("symbols-")
    }
    with django_capture_on_commit_callbacks(execute=True):
        packages.package_import_confirm(job=job, user=other, choices=skip)
    job.refresh_from_db()
    assert job.state == State.DONE, job.error
    assert not Symbol.objects.exists()
    imported = Quiz.objects.get()
    for item in imported.items.filter(kind__in=["picture_name", "name_picture", "periods"]):
        assert all(subject.startswith("unlinked:") for subject in item.key["subjects"])
        assert not any(selectors.progress_key(subject) for subject in item.key["subjects"])
        for name in (item.key.get("pictures") or {}).values():
            assert name.startswith("quizzes/") and default_storage.exists(name)


def test_a_quiz_imported_twice_is_already_here_and_can_be_copied(
    teacher, quiz, django_capture_on_commit_callbacks
):
    data = _export(teacher, quiz)
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    item = preview_items(job)["Po grze"]
    assert (item["state"], item["matched_by"]) == ("same", "uid")
    with django_capture_on_commit_callbacks(execute=True):
        packages.package_import_confirm(job=job, user=teacher, choices={item["ref"]: "copy"})
    job.refresh_from_db()
    assert job.state == State.DONE, job.error
    copy = Quiz.objects.exclude(pk=quiz.pk).get()
    assert copy.uid != quiz.uid and copy.title == "Po grze"
    # The copy uses the content that was already here.
    assert {i.key["subjects"][0] for i in copy.items.all()} == {
        i.key["subjects"][0] for i in quiz.items.all()
    }


def _broken(teacher, quiz, change) -> bytes:
    original = _export(teacher, quiz)
    data = manifest(original)
    change(data["quizzes"][0])
    Quiz.objects.all().delete()
    with zipfile.ZipFile(io.BytesIO(original)) as archive:
        pictures = {name: archive.read(name) for name in archive.namelist() if name != "manifest.json"}
    return package_bytes(data, pictures)


def _first(kind):
    def pick(quiz_entry):
        return next(item for item in quiz_entry["items"] if item["kind"] == kind)

    return pick


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda q: q["items"][0].update(kind="essay"), '"kind" must be one of'),
        (lambda q: q["items"][0].update(prompt=[1, 2]), '"prompt" must be a JSON object'),
        (lambda q: q["items"][0].update(points=1000), '"points" must be a whole number from 0 to 100'),
        (
            lambda q: q["items"][0]["key"].update(subjects="symbol:1"),
            'its key\'s "subjects" must be a list of texts.',
        ),
        (
            lambda q: q["items"][0]["key"].update(pictures={"q": 5}),
            'its key\'s "pictures" must map texts to texts.',
        ),
        (
            lambda q: _first("picture_name")(q)["prompt"].update(options="abc"),
            'its prompt\'s "options" must be a list',
        ),
        (lambda q: _first("connect")(q)["key"].update(answer=["a"]), "its key's answer must map each symbol"),
        (
            lambda q: (
                _first("know")(q)["key"].pop("best_answers")
                and _first("know")(q)["key"].update(best_answers=7)
            ),
            '"best_answers" must be a list',
        ),
        (lambda q: _first("periods")(q)["key"].update(answer="ii-rp"), "its key's answer must be a list"),
        (lambda q: _first("picture_name")(q)["key"].pop("answer"), "its key has no answer"),
        (lambda q: q["pool"].update(symbols=[{"key": "x", "name": 5}]), '"pool" is not the pool of a quiz'),
        (lambda q: q["pool"].update(extra=[]), '"pool" is not the pool of a quiz'),
        (
            lambda q: q["options"].update(time_limit_minutes="soon"),
            '"options": "time_limit_minutes" has a value',
        ),
        (lambda q: q["options"].update(admin=True), '"options" has a field quizzes do not have: admin.'),
        (lambda q: q.update(seed="x"), '"seed" must be a whole number'),
        (lambda q: q.update(source="elsewhere"), '"source" must be one of'),
        (lambda q: q.update(items=[]), '"items" must hold at least one item.'),
        (
            lambda q: _first("name_picture")(q)["key"]["pictures"].update(a="pictures/none.png"),
            'the picture "pictures/none.png"',
        ),
    ],
)
def test_a_hostile_quiz_is_invalid_and_says_where(
    teacher, quiz, change, message, django_capture_on_commit_callbacks
):
    data = _broken(teacher, quiz, change)
    job = package_check(teacher, data, django_capture_on_commit_callbacks)
    assert job.state == State.INVALID
    assert message in job.error, job.error
    assert "quizzes[0]" in job.error
    assert not Quiz.objects.exists()


def test_the_quiz_page_exports_the_quiz_as_a_package(teacher, other_teacher, quiz):
    client = signed_in(teacher)
    url = reverse("quiz:package", args=[quiz.pk])
    assert url in client.get(reverse("quiz:detail", args=[quiz.pk])).content.decode()
    response = client.get(url)
    assert response.status_code == 200
    assert manifest(b"".join(response.streaming_content))["quizzes"][0]["title"] == "Po grze"
    assert signed_in(other_teacher).get(url).status_code == 404
    assert signed_in(UserFactory()).get(url).status_code in (403, 404)


def test_a_quiz_not_built_yet_is_not_exported(teacher, quiz):
    Quiz.objects.filter(pk=quiz.pk).update(state="running")
    response = signed_in(teacher).get(reverse("quiz:package", args=[quiz.pk]), follow=True)
    assert "The quiz is not built yet" in response.content.decode()


def test_a_pool_with_dated_symbols_and_a_teachers_question_fits_and_a_bad_option_does_not():
    from games.quiz.packages import _pool_fits

    question = {
        "key": "question:1",
        "kind": "choice",
        "text": "Która?",
        "options": [{"text": "A", "picture": "pictures/a.png", "correct": True}, {"text": "B"}],
        "picture": "",
        "explanation": "",
        "weight": 1.0,
    }
    symbol = {"key": "symbol:1", "name": "Orzeł", "date": "1918-11-11", "weight": 1.0}
    assert _pool_fits({"symbols": [symbol], "questions": [question]})
    bad = {**question, "options": [{"text": "A", "correct": "yes"}]}
    assert not _pool_fits({"questions": [bad]})
    assert not _pool_fits({"questions": [{**question, "options": [{"text": "A", "secret": "x"}]}]})
