"""What the games tell the layer above them (``lms``): domain events.

``games`` imports nothing from ``lms`` (``make lint`` checks it, ``docs/architecture.md``).
Where a game's change matters to a class's gradebook or to a student's progress, the game
sends one of these signals in the transaction that made the change; ``lms`` connects its
receivers in ``LmsConfig.ready`` (``lms/receivers.py``) and ``ProgressConfig.ready``. They are
sent with ``Signal.send``: receivers run in the same transaction, and an error in one rolls
the change back, as a direct call would.
"""

from __future__ import annotations

from django.dispatch import Signal

#: A quiz attempt was graded and waits for no teacher's mark. ``attempt``: the ``QuizAttempt``.
quiz_attempt_graded = Signal()

#: A practice game ended; ``run``: its ``PracticeRun``, holding the result.
practice_run_finished = Signal()

#: A Knowledge? game ended (a homework's attempt, perhaps); ``session``: its ``GameSession``.
knowledge_game_finished = Signal()

#: A game ended: its last action, its timer, or the teacher ending a class's duels;
#: ``session``: its ``GameSession``. Sent by the one service (``games.services``) in the
#: transaction that ends it, and by the live fast path (``games.live``) once the statement
#: that ended it has committed.
session_finished = Signal()

#: A student answered one item, in a quiz or in play. ``user``, ``item_key`` (``symbol:<pk>``,
#: ``knowledge:<pk>``, ``know:<pk>``, ``question:<pk>``), ``correct`` (a bool or a fraction in [0, 1]),
#: ``reviewed_at`` (when it was answered, or None for now) and ``source`` (``"quiz"`` or ``"play"``).
item_answered = Signal()

#: Many answers at once (the end of a live quiz): ``answers``, a list of ``(user, item_key,
#: correct)``, with ``reviewed_at`` and ``source`` as for ``item_answered``.  A receiver
#: treats it as one ``item_answered`` per answer, in the list's order, done in bulk.
items_answered = Signal()
