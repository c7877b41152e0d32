"""What ``make run``'s worker does reaches the open pages, as Redis carries it in production.

The embedded mode's web server keeps its sockets in memory and the Celery worker beside it
is another process (``config.embedded``). Here the teacher's projector shows a class
round's duels; the worker ends both by their timer, and the page must say so within 2 s
of the deadline, through the socket it has open (it polls only while sockets are blocked).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.config.embedded_run import make_run, manage, prepare
from tests.e2e.browsing import sign_in_through_form
from tests.e2e.conftest import Browsing

pytestmark = [pytest.mark.e2e, pytest.mark.embedded]

#: The duels' timer: long enough to open the page and start the round before it runs out.
TIMER_SECONDS = 6
#: How long after the deadline the page may learn that a duel is over.
HEARD_WITHIN_SECONDS = 2.0

# A teacher and a class lobby with four students, in the embedded database (the tests'
# own factories, run by manage.py shell against it).
CLASS_LOBBY = f"""
import json
from tests.factories import TeacherFactory
from tests.games.test_classroom import class_with
teacher = TeacherFactory(username="embedded-teacher")
run, _students = class_with(teacher, 4, timer={TIMER_SECONDS})
print(json.dumps({{"lobby": run.lobby_id, "username": teacher.username, "password": "pass-word-123"}}))
"""


def test_the_worker_ending_duels_by_time_reaches_the_projector_within_2_s(browser: Any, tmp_path: Path):
    var = tmp_path / "var"
    prepare(var)
    lobby = json.loads(manage(var, "shell", "--command", CLASS_LOBBY).strip().splitlines()[-1])

    with make_run(var) as running:
        browsing = Browsing(browser, running.url.rstrip("/"))
        try:
            page = browsing.new_page()
            sign_in_through_form(page, browsing.base_url, lobby["username"], lobby["password"])
            page.goto(f"/games/sessions/{lobby['lobby']}/")
            page.get_by_role("button", name="Pair and start").click()
            expect(page.get_by_text("0 of 2 duels over.")).to_be_visible()
            # The round started before this moment, so both deadlines are at most TIMER_SECONDS away.
            latest_deadline = time.monotonic() + TIMER_SECONDS

            expect(page.get_by_text("2 of 2 duels over.")).to_be_visible(
                timeout=(latest_deadline + HEARD_WITHIN_SECONDS - time.monotonic()) * 1000
            )

            assert "Warm shutdown" not in running.output()  # the worker did it, and is still there
            assert browsing.problems(page) == []
        finally:
            left = browsing.close()
        assert left == []
