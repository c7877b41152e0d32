"""The claims of the codes that existed before the one code space (games 0009, lms 0007).

Not a migration (the loader skips modules whose name starts with "_"): the part the two
data migrations share. It works on the historical models the migration passes in.
"""

from __future__ import annotations

import secrets
from typing import Any

ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # games.lobby.JOIN_CODE_ALPHABET, as it was
LENGTH = 6
#: Each kind's model and the column that keeps its code.
KINDS = {
    "session": ("games", "GameSession", "join_code"),
    "practice": ("games", "PracticeAssignment", "code"),
    "quiz": ("quiz", "Quiz", "code"),
    "workshop": ("workshop", "Workshop", "join_code"),
    "class": ("lms", "SchoolClass", "join_code"),
}


def claims_make(apps: Any, rows: list[tuple[str, Any]]) -> None:
    """Claim the code of each ``(kind, object)``, the oldest object first.

    A code already claimed by a younger object (claimed at its ``created``) moves to the
    older one, and the younger gets a fresh code; a code held by an older one leaves the
    newcomer with a fresh code. An empty code gets a fresh one. A fresh code is written to
    the object's column too, so its pages and links show it.
    """
    join_code = apps.get_model("games", "JoinCode")
    live = {claim.code: claim for claim in join_code.objects.filter(released=None)}

    def fresh() -> str:
        while True:
            code = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
            if code not in live:
                return code

    def copy_set(kind: str, object_id: int, code: str) -> None:
        app, model, field = KINDS[kind]
        apps.get_model(app, model).objects.filter(pk=object_id).update(**{field: code})

    for kind, obj in sorted(rows, key=lambda row: (row[1].created, row[1].pk)):
        code = getattr(obj, KINDS[kind][2])
        holder = live.get(code) if code else None
        if holder is not None and holder.claimed > obj.created:
            holder.code = fresh()
            holder.save(update_fields=["code"])
            copy_set(holder.kind, holder.object_id, holder.code)
            live[holder.code] = holder
        elif holder is not None or not code:
            code = fresh()
            copy_set(kind, obj.pk, code)
        live[code] = join_code.objects.create(code=code, kind=kind, object_id=obj.pk, claimed=obj.created)
