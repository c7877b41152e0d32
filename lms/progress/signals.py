"""What progress tells other apps: a student's memory changed.

``memory_reviewed`` is sent by ``services.memory_review`` inside its transaction, once per
answer (in a quiz, a review, or a naming in play taken in by ``namings_absorb``), with
``user`` and ``item_key``; ``services.memory_review_many`` (a class's answers at once, the
end of a live quiz) sends it once per student, with the last ``item_key`` and
``item_keys``, every item answered. A receiver that acts on it after the answer is stored
uses ``transaction.on_commit`` (the LMS's progress columns, ``lms.lti.columns``).
"""

from __future__ import annotations

from django.dispatch import Signal

memory_reviewed = Signal()
