"""Classes and homework without an LMS: a teacher's class, its join code, assignments and grades.

``services`` writes, ``selectors`` reads, ``views`` are the pages, ``quizzes`` is the one
place that talks to the quiz engine (``games`` quizzes), ``tasks`` grade what was still in
progress when the homework was due.
"""
