"""A deck built and printed by the real Celery worker, asked for and downloaded over https.

The web processes only queue the work (their broker is Redis); nothing but the worker
started from ``deploy/systemd/talia-worker.service`` runs it, so a finished PDF is the
worker's.
"""

from __future__ import annotations

import io
import re
import time
from typing import Any

import pytest
from pypdf import PdfReader

from tests.production.conftest import csrf_of, signed_in

pytestmark = pytest.mark.production

DEMO_SET = "ZnajZnak: 57 symboli (demo)"


def finished(client: Any, status_url: str, *, wait: float = 240.0) -> dict[str, Any]:
    """The job's status once it stops working (the page polls the same URL)."""
    deadline = time.monotonic() + wait
    while True:
        status = client.get(status_url, timeout=30).json()
        if not status["working"] or time.monotonic() > deadline:
            return status
        time.sleep(1)


def worker_finished(production: Any, task: str) -> int:
    """How many ``task`` runs the worker's log reports as succeeded."""
    log = (production.logs / "worker.log").read_text(errors="replace")
    return len(re.findall(rf"Task content\.tasks_print\.{task}\[[^]]+\] succeeded", log))


def worker_finished_one_more(production: Any, task: str, before: int) -> int:
    """The count once the worker has logged one more success, or after 15 s, whichever is
    first. The task marks its job done before it returns, and the worker logs the success
    only after: the job's page can say "done" a moment before the log does."""
    deadline = time.monotonic() + 15
    while (count := worker_finished(production, task)) <= before and time.monotonic() < deadline:
        time.sleep(0.2)
    return count


def pdf_of(client: Any, url: str) -> PdfReader:
    answer = client.get(url, timeout=60)
    assert answer.status_code == 200, (url, answer.status_code)
    assert answer.headers["Content-Type"] == "application/pdf"
    assert answer.headers["Content-Disposition"].startswith("attachment;")
    assert answer.content.startswith(b"%PDF")
    return PdfReader(io.BytesIO(answer.content))


def test_a_teacher_builds_a_deck_and_the_worker_prints_it(production, people):
    url = production.url
    before = worker_finished(production, "deck_build_task")
    client = signed_in(production, people["teacher"])
    listing = client.get(f"{url}/content/decks/new/", timeout=30).text
    found = re.search(rf'<option value="(\d+)">{re.escape(DEMO_SET)} \(57 symbols\)</option>', listing)
    assert found, listing[:2000]
    form = client.get(f"{url}/content/decks/new/", params={"symbol_set": found.group(1)}, timeout=30)
    posted = client.post(
        f"{url}/content/decks/new/",
        data={
            "csrfmiddlewaretoken": csrf_of(form.text),
            "symbol_set": found.group(1),
            "name": "Klasa 7b (https)",
            "order": "5",  # the smaller deck the set offers (31 cards), of which 6 are printed
            "cards_to_print": "6",
            "sets": "",
            "labels": "",
            "seed": "0",
            "paper": "A4",
            "card_mm": "90",
            "shape": "round",
            "cut_marks": "on",
            "bleed_mm": "0",
            "duplex": "long_edge",
        },
        headers={"Origin": url, "Referer": form.url},
        allow_redirects=False,
        timeout=30,
    )
    assert posted.status_code == 302, posted.text[:2000]
    deck_url = url + posted.headers["Location"]
    deck = re.fullmatch(rf"{re.escape(url)}/content/decks/(\d+)/", deck_url)
    assert deck, deck_url

    status = finished(client, f"{deck_url}status/")
    assert status["state"] == "done", status
    assert worker_finished_one_more(production, "deck_build_task", before) == before + 1
    page = client.get(deck_url, timeout=30).text
    assert "<dt>Cards printed</dt><dd>6</dd>" in page
    cards = pdf_of(client, f"{deck_url}files/game-cards.pdf")
    assert len(cards.pages) >= 1
    assert "%PDF" not in page


def test_a_teacher_prints_blank_know_cards_on_the_worker(production, people):
    url = production.url
    before = worker_finished(production, "print_job_run_task")
    client = signed_in(production, people["teacher"])
    form = client.get(f"{url}/content/decks/prints/new/", params={"kind": "know"}, timeout=30)
    assert form.status_code == 200
    posted = client.post(
        f"{url}/content/decks/prints/new/",
        data={
            "csrfmiddlewaretoken": csrf_of(form.text),
            "kind": "know",
            "questions": "2",
            "answers": "3",
            "paper": "A4",
            "card_width_mm": "70",
            "bleed_mm": "0",
            "duplex": "separate",
            "language": "",
            "tag": "",
        },
        headers={"Origin": url, "Referer": form.url},
        allow_redirects=False,
        timeout=30,
    )
    assert posted.status_code == 302, posted.text[:2000]
    job_url = url + posted.headers["Location"]
    status = finished(client, f"{job_url}status/")
    assert (status["state"], status["progress"]) == ("done", 100), status
    assert worker_finished_one_more(production, "print_job_run_task", before) == before + 1
    page = client.get(job_url, timeout=30).text
    assert "<dt>Blank question cards</dt><dd>2</dd>" in page
    assert len(pdf_of(client, f"{job_url}files/know-blank-cards.pdf").pages) >= 1
