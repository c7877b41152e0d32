"""Progress: every answer, in a quiz or in play, updates the student's memory of that item.

Contract (kept stable for the quizzes and the games):

- Item keys name what was learned: ``symbol:<Symbol pk>``, ``knowledge:<KnowledgeQuestion pk>``,
  ``know:<Know question-bank pk>``, ``question:<QuizQuestion pk>`` (a teacher's multiple
  choice, chronology or matching).
- The games send ``games.signals.item_answered`` once per answered item, inside the
  transaction that graded it (a quiz answer) or recorded it (a Knowledge? guess); its
  receiver calls :func:`lms.progress.services.memory_review`. ``correct`` is a bool or a
  fraction in [0, 1] for partial credit.
- Namings in play (``games.NamingRecord``) are taken in by :func:`lms.progress.services.namings_absorb`
  when their game ends (``games.signals.session_finished``, then a task) or by the sweep
  while it runs, so the play path stays as fast as it is; progress pages only read.

The scheduler is FSRS (the ``fsrs`` package); see :mod:`lms.progress.memory`. The item
analysis of a quiz homework and mastery over the weeks are computed in
:mod:`lms.progress.analysis` (pure), read by :mod:`lms.progress.selectors`.
"""
