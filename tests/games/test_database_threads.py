"""The live path's database threads (``games.database_threads``): what a call leaves behind."""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import Iterator

import pytest

from games import database_threads
from games.engines.base import IllegalAction

pytestmark = pytest.mark.django_db(transaction=True)


class _Work:
    """What an action's work holds in the database thread: the session's row, its states."""


@pytest.fixture
def no_garbage_collection() -> Iterator[None]:
    """Only reference counting frees anything while the test runs."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        database_threads.database_threads_close()


def test_a_refusal_leaves_nothing_of_the_threads_work_for_the_garbage_collector(no_garbage_collection):
    held: list[weakref.ref[_Work]] = []

    def refuse() -> None:
        work = _Work()
        held.append(weakref.ref(work))
        raise IllegalAction("Someone else said STOP first.")

    async def answer() -> None:
        with pytest.raises(IllegalAction, match="STOP first"):
            await database_threads.in_database_thread(refuse)

    asyncio.run(answer())

    assert held[0]() is None  # freed once answered, not by a later full collection


def test_an_error_that_is_not_a_refusal_keeps_its_traceback():
    def fail() -> None:
        raise RuntimeError("the database went away")

    async def call() -> BaseException:
        try:
            await database_threads.in_database_thread(fail)
        except RuntimeError as error:
            return error
        raise AssertionError("no error")

    try:
        error = asyncio.run(call())
    finally:
        database_threads.database_threads_close()

    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame.f_code.co_name)
        tb = tb.tb_next
    assert "fail" in frames  # where it happened, for the log
