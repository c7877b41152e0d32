"""Talia packages: content that travels between installations as one ZIP file.

A package holds ``manifest.json`` (the format is ``docs/packages.md``, version
``archive.VERSION``) and the pictures the manifest names. ``services.py`` exports one
(a symbol set, Activity cards, Know questions, Knowledge? questions with boards, or a
quiz through ``games.quiz.packages``) and imports one: an up-front check of the file, a
Celery check that previews every item (new, the same as content here, or in conflict
with it), the teacher's choice per item, and a write in one transaction.

- ``archive.py``: reading a package safely (ZIP limits, paths, the manifest's size,
  depth and JSON) and writing one.
- ``schema.py``: the checks of the manifest's fields, with messages naming the item.
- ``sections.py``: one class per part of the manifest (symbols, symbol sets, …): what
  an exported row looks like, how an item is matched, compared and written. Higher
  apps add parts through ``sections.section_register`` (the quizzes do).
- ``services.py``: export, and the import's steps.
"""
