"""The deck and print pages (content/deck_views.py) and their admin (content/admin_decks.py).

Teachers and admins only: students get 403, anonymous users the login page, and a
deck or print job is a 404 to anyone but its owner and admins.
"""

from __future__ import annotations

import json

import pytest
from django.contrib import admin
from django.urls import reverse

from content import admin_decks, building
from content.models import ActivityCard, BuildState, Deck, KnowledgeQuestion, PrintJob, Visibility
from tests.content.test_building import build, make_set
from tests.factories import ActivityCardFactory, KnowledgeQuestionFactory, SymbolSetFactory

pytestmark = pytest.mark.django_db


def deck_urls(deck: Deck) -> list[str]:
    return [
        reverse("decks:deck_detail", args=[deck.pk]),
        reverse("decks:deck_status", args=[deck.pk]),
        reverse("decks:deck_download", args=[deck.pk, "deck.json"]),
    ]


def print_urls(job: PrintJob) -> list[str]:
    return [
        reverse("decks:print_detail", args=[job.pk]),
        reverse("decks:print_status", args=[job.pk]),
        reverse("decks:print_download", args=[job.pk, "know-blank-cards.pdf"]),
    ]


def form_data(symbol_set, **values) -> dict[str, object]:
    data = {
        "symbol_set": symbol_set.pk,
        "name": "",
        "order": "2",
        "cards_to_print": "",
        "sets": "",
        "labels": "",
        "seed": "0",
        "paper": "A4",
        "card_mm": "90",
        "shape": "round",
        "cut_marks": "on",
        "bleed_mm": "0",
        "duplex": "long_edge",
    }
    data.update(values)
    return data


@pytest.fixture
def deck(teacher):
    return build(teacher, make_set(7, owner=teacher))


@pytest.fixture
def know_job(teacher):
    job = building.print_job_create(
        user=teacher, kind="know", enqueue=False, options={"questions": 1, "answers": 1, "render": False}
    )
    return building.print_job_run(job=job)


# --- Who may come in -----------------------------------------------------------------------


def test_anonymous_users_are_sent_to_the_login(client, deck, know_job):
    for url in [
        reverse("decks:deck_new"),
        reverse("decks:print_new"),
        *deck_urls(deck),
        *print_urls(know_job),
    ]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login")), url


def test_students_are_refused(client, student, deck, know_job):
    client.force_login(student)
    for url in [
        reverse("decks:deck_new"),
        reverse("decks:print_new"),
        *deck_urls(deck),
        *print_urls(know_job),
    ]:
        assert client.get(url).status_code == 403, url
    assert client.post(reverse("decks:deck_new"), form_data(deck.symbol_set)).status_code == 403
    assert Deck.objects.count() == 1


def test_another_teachers_deck_or_print_is_not_found(client, other_teacher, admin_user, deck, know_job):
    client.force_login(other_teacher)
    for url in [*deck_urls(deck), *print_urls(know_job)]:
        assert client.get(url).status_code == 404, url
    client.force_login(admin_user)
    for url in [*deck_urls(deck)[:2], *print_urls(know_job)[:2]]:
        assert client.get(url).status_code == 200, url


# --- Building a deck from the form ---------------------------------------------------------


def test_the_form_offers_the_decks_the_set_can_make(client, teacher):
    symbol_set = make_set(70, owner=teacher)
    client.force_login(teacher)

    page = client.get(reverse("decks:deck_new"), {"symbol_set": symbol_set.pk}).content.decode()

    assert "70 symbols: order 8, 9 symbols per card, 49 cards" in page
    assert "70 symbols: order 7, 8 symbols per card, 57 cards (uses 57 of 70 symbols) — recommended" in page
    assert 'value="7" required id="id_order_1" checked' in page  # the recommended one
    for name in ("name", "cards_to_print", "sets", "labels", "seed", "card_mm", "bleed_mm"):
        assert f'<label for="id_{name}"' in page, name
    assert "<legend>Paper:</legend>" in page and "<legend>Backs:</legend>" in page
    assert 'aria-describedby="id_bleed_mm_helptext"' in page


def test_a_teacher_builds_a_deck_and_sees_the_result(client, teacher, django_capture_on_commit_callbacks):
    symbol_set = make_set(7, owner=teacher)
    client.force_login(teacher)

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("decks:deck_new"),
            form_data(symbol_set, name="Klasa 7b", sets="2", labels="X Y", shape="square", card_mm="70"),
        )

    deck = Deck.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("decks:deck_detail", args=[deck.pk])
    assert deck.state == BuildState.DONE, deck.message
    assert (deck.name, deck.owner, deck.options["shape"], deck.options["card_mm"]) == (
        "Klasa 7b",
        teacher,
        "square",
        70.0,
    )
    page = client.get(response["Location"]).content.decode()
    assert "<dt>Cards printed</dt><dd>7</dd>" in page
    assert '<th scope="row">X</th>' in page and '<th scope="row">Y</th>' in page
    for name in ("game-cards.pdf", "auxiliary-cards.pdf", "deck.json"):
        assert reverse("decks:deck_download", args=[deck.pk, name]) in page
    assert "talia/progress.js" not in page  # done: nothing to poll


def test_form_errors_are_shown_and_nothing_is_built(client, teacher):
    symbol_set = make_set(57, owner=teacher)
    client.force_login(teacher)

    response = client.post(
        reverse("decks:deck_new"), form_data(symbol_set, order="7", bleed_mm="9", sets="2", labels="A A")
    )

    page = response.content.decode()
    assert response.status_code == 200
    assert "The deck was not built. Please correct the errors below." in page
    assert "The bleed must be from 0 to 5 mm" in page
    assert "Each set needs its own label; used more than once: A." in page
    assert 'aria-invalid="true"' in page
    assert Deck.objects.count() == 0


def test_without_a_set_the_page_lists_the_sets_you_may_use(client, teacher, other_teacher):
    mine = make_set(7, owner=teacher, name="Mine")
    SymbolSetFactory(owner=other_teacher, name="Private of another")
    SymbolSetFactory(owner=other_teacher, name="Shared by another", visibility=Visibility.SHARED)
    client.force_login(teacher)

    page = client.get(reverse("decks:deck_new")).content.decode()

    assert f'<option value="{mine.pk}">Mine (7 symbols)</option>' in page
    assert "Shared by another (0 symbols)" in page
    assert "Private of another" not in page
    assert '<label for="id_symbol_set" class="required">' in page


def test_a_set_too_small_or_hidden_gets_no_form(client, teacher, other_teacher):
    small = make_set(2, owner=teacher)
    hidden = make_set(7, owner=other_teacher)
    client.force_login(teacher)

    page = client.get(reverse("decks:deck_new"), {"symbol_set": small.pk}).content.decode()
    assert "has 2 symbols; a ZnajZnak deck needs at least 3" in page
    assert '<form method="post"' not in page
    assert client.get(reverse("decks:deck_new"), {"symbol_set": hidden.pk}).status_code == 404
    assert client.post(reverse("decks:deck_new"), form_data(hidden)).status_code == 404
    assert client.get(reverse("decks:deck_new"), {"symbol_set": "x"}).status_code == 404


def test_each_deck_and_print_page_leads_back_to_its_list(client, teacher, deck, know_job):
    client.force_login(teacher)
    decks, prints = reverse("admin:content_deck_changelist"), reverse("admin:content_printjob_changelist")
    for url, home, other in (
        (reverse("decks:deck_new"), decks, prints),
        (reverse("decks:deck_detail", args=[deck.pk]), decks, prints),
        (reverse("decks:print_new"), prints, decks),
        (reverse("decks:print_detail", args=[know_job.pk]), prints, decks),
    ):
        crumbs = client.get(url).content.decode().split('class="breadcrumbs"', 1)[1].split("</nav>", 1)[0]
        assert f'href="{home}"' in crumbs and other not in crumbs, url


# --- The deck's page, its status and its files ---------------------------------------------


def test_the_deck_page_reports_the_deck_its_sets_and_what_was_dropped(client, teacher):
    deck = build(teacher, make_set(60, owner=teacher), order=7, cards_to_print=50, sets=5)
    client.force_login(teacher)

    page = client.get(reverse("decks:deck_detail", args=[deck.pk])).content.decode()

    assert "<dt>Order</dt><dd>7</dd>" in page
    assert "<dt>Symbols per card</dt><dd>8</dd>" in page
    assert "<dt>Cards printed</dt><dd>50</dd>" in page
    assert "the deck of order 7 has room for 57 symbols" in page
    assert "not printed: the deck prints 50 cards" in page
    assert '<th scope="row">058</th>' in page
    assert page.count('<th scope="col">Distinct pair-symbols</th>') == 1
    for row in deck.plan["sets"]:
        assert (
            f'<tr><th scope="row">{row["label"]}</th><td>{len(row["cards"])}</td>'
            f"<td>{len(row['symbols'])}</td><td>{len(row['pair_symbols'])}</td>"
        ) in page


def test_a_deck_at_work_shows_its_progress_and_a_failed_one_its_message(client, teacher):
    deck = building.deck_create(
        user=teacher, symbol_set=make_set(7, owner=teacher), options={"render": False}, enqueue=False
    )
    Deck.objects.filter(pk=deck.pk).update(state=BuildState.RUNNING, progress=42)
    client.force_login(teacher)

    page = client.get(reverse("decks:deck_detail", args=[deck.pk])).content.decode()
    assert '<label for="job-progress">Progress</label>' in page
    assert 'value="42"' in page and ">42%</progress>" in page
    assert "talia/progress.js" in page and '<meta http-equiv="refresh"' in page
    assert reverse("decks:deck_status", args=[deck.pk]) in page
    assert json.loads(client.get(reverse("decks:deck_status", args=[deck.pk])).content) == {
        "state": "running",
        "state_label": "Building",
        "progress": 42,
        "working": True,
        "message": "",
    }

    Deck.objects.filter(pk=deck.pk).update(state=BuildState.FAILED, message="The renderer broke.")
    page = client.get(reverse("decks:deck_detail", args=[deck.pk])).content.decode()
    assert "It did not work: The renderer broke." in page and "(Stopped at 42%.)" in page
    status = json.loads(client.get(reverse("decks:deck_status", args=[deck.pk])).content)
    assert (status["state"], status["working"], status["progress"]) == ("failed", False, 42)


def test_files_are_downloaded_by_the_owner_or_an_admin(client, teacher, admin_user, deck):
    url = reverse("decks:deck_download", args=[deck.pk, "deck.json"])
    client.force_login(teacher)

    response = client.get(url)

    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    assert 'filename="set-' in response["Content-Disposition"]
    assert json.loads(b"".join(response.streaming_content))["cards"] == deck.plan["cards"]
    assert client.get(reverse("decks:deck_download", args=[deck.pk, "secret.pdf"])).status_code == 404
    assert client.get(reverse("decks:deck_download", args=[deck.pk, "..%2Fdeck.json"])).status_code == 404
    client.force_login(admin_user)
    assert client.get(url).status_code == 200


# --- The admin -----------------------------------------------------------------------------


def test_the_symbol_set_page_has_a_build_button_and_keeps_its_sortable_members(client, teacher):
    symbol_set = make_set(7, owner=teacher)
    client.force_login(teacher)

    page = client.get(reverse("admin:content_symbolset_change", args=[symbol_set.pk])).content.decode()

    link = f"{reverse('decks:deck_new')}?symbol_set={symbol_set.pk}"
    assert f'<a href="{link}">Build a ZnajZnak deck</a>' in page
    assert "adminsortable2/js/adminsortable2" in page
    assert "sortable" in page and "Symbol 7" in page
    add_page = client.get(reverse("admin:content_symbolset_add")).content.decode()
    assert "Build a ZnajZnak deck" not in add_page


def test_the_deck_admin_lists_own_decks_and_leads_to_the_deck_pages(
    client, teacher, other_teacher, admin_user, deck
):
    theirs = build(other_teacher, make_set(7, owner=other_teacher, slug="theirs"))
    client.force_login(teacher)

    page = client.get(reverse("admin:content_deck_changelist")).content.decode()
    assert reverse("decks:deck_detail", args=[deck.pk]) in page
    assert reverse("decks:deck_detail", args=[theirs.pk]) not in page
    assert f'<a href="{reverse("decks:deck_new")}" class="addlink">Build a ZnajZnak deck</a>' in page
    add = client.get(reverse("admin:content_deck_add"))
    assert (add.status_code, add["Location"]) == (302, reverse("decks:deck_new"))
    change = client.get(reverse("admin:content_deck_change", args=[deck.pk]))
    assert change.status_code == 200
    assert reverse("decks:deck_download", args=[deck.pk, "deck.json"]) in change.content.decode()
    assert 'name="name"' not in change.content.decode()  # read-only
    assert client.get(reverse("admin:content_deck_change", args=[theirs.pk])).status_code == 302

    client.force_login(admin_user)
    page = client.get(reverse("admin:content_deck_changelist")).content.decode()
    assert reverse("decks:deck_detail", args=[theirs.pk]) in page


def test_deleting_a_deck_in_the_admin_deletes_its_files(
    client, teacher, deck, django_capture_on_commit_callbacks
):
    from django.core.files.storage import default_storage

    path = deck.files["deck.json"]
    client.force_login(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("admin:content_deck_delete", args=[deck.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert Deck.objects.count() == 0 and not default_storage.exists(path)


# --- Prints --------------------------------------------------------------------------------


def test_a_teacher_prints_blank_know_cards(client, teacher, django_capture_on_commit_callbacks):
    client.force_login(teacher)
    assert client.get(reverse("decks:print_new"), {"kind": "know"}).status_code == 200

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("decks:print_new"),
            {
                "kind": "know",
                "questions": "2",
                "answers": "3",
                "paper": "Letter",
                "card_width_mm": "70",
                "bleed_mm": "0",
                "duplex": "separate",
                "language": "",
                "tag": "",
            },
        )

    job = PrintJob.objects.get()
    assert response["Location"] == reverse("decks:print_detail", args=[job.pk])
    assert job.state == BuildState.DONE, job.message
    page = client.get(response["Location"]).content.decode()
    assert "<dt>Blank question cards</dt><dd>2</dd>" in page
    download = reverse("decks:print_download", args=[job.pk, "know-blank-cards.pdf"])
    assert download in page
    response = client.get(download)
    assert b"".join(response.streaming_content).startswith(b"%PDF")
    status = json.loads(client.get(reverse("decks:print_status", args=[job.pk])).content)
    assert (status["state"], status["progress"], status["working"]) == ("done", 100, False)


def test_print_form_errors_are_shown(client, teacher):
    client.force_login(teacher)
    response = client.post(
        reverse("decks:print_new"),
        {
            "kind": "activity",
            "language": "cs",
            "tag": "",
            "paper": "A4",
            "duplex": "long_edge",
        },
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert "No cards match this selection: nothing to print." in page
    assert PrintJob.objects.count() == 0


@pytest.mark.parametrize(
    ("model", "action_name", "factory", "kind"),
    [
        (ActivityCard, "print_selected_activity_cards", ActivityCardFactory, "activity"),
        (KnowledgeQuestion, "print_selected_knowledge_questions", KnowledgeQuestionFactory, "knowledge"),
    ],
)
def test_the_admin_action_prints_the_selected_cards(
    client, teacher, monkeypatch, model, action_name, factory, kind
):
    action = getattr(admin_decks, action_name)
    model_admin = admin.site._registry[model]
    assert action in model_admin.actions
    rows = [factory(owner=teacher) for _ in range(3)]
    client.force_login(teacher)
    changelist = reverse(f"admin:content_{model._meta.model_name}_changelist")

    response = client.post(
        changelist, {"action": action.__name__, "_selected_action": [rows[0].pk, rows[2].pk]}
    )

    page = response.content.decode()
    assert response.status_code == 200
    assert "The 2 cards you selected." in page
    assert f'action="{reverse("decks:print_new")}"' in page
    assert f'name="ids" value="{rows[0].pk} {rows[2].pk}"' in page
    response = client.post(
        reverse("decks:print_new"),
        {
            "kind": kind,
            "ids": f"{rows[0].pk} {rows[2].pk}",
            "paper": "A4",
            "duplex": "long_edge",
            "card_width_mm": "",
            "bleed_mm": "",
        },
    )
    job = PrintJob.objects.get()
    assert response.status_code == 302
    assert (job.kind, job.snapshot["selection"]) == (kind, {"ids": [rows[0].pk, rows[2].pk]})
    assert [c["id"] for c in job.snapshot["cards"]] == [rows[0].pk, rows[2].pk]


def test_a_prints_title_and_its_started_line_show_the_same_local_time(client, teacher, settings):
    """Late at night in UTC is the next day in Warsaw: the title must not say the UTC time."""
    import datetime

    settings.TIME_ZONE = "Europe/Warsaw"
    job = PrintJob.objects.create(kind=PrintJob.Kind.ACTIVITY, owner=teacher, state=BuildState.DONE)
    PrintJob.objects.filter(pk=job.pk).update(
        created=datetime.datetime(2026, 1, 15, 23, 30, tzinfo=datetime.UTC)
    )
    client.force_login(teacher)
    page = client.get(reverse("decks:print_detail", args=[job.pk])).content.decode()
    assert "2026-01-15 23:30" not in page
    title = page[page.index("<title>") : page.index("</title>")]
    assert "2026-01-16 00:30" in title
    assert "<dt>Started</dt><dd>2026-01-16 00:30" in page
