"""Django's ``makemessages``, which also finds the JavaScript's ``t("…")`` and ``ctx.t("…")``.

The play pages' scripts translate with ``window.gettext`` from the ``javascript-catalog``
view, and hand it to each game's renderer as ``ctx.t`` (``static/games/live.js``), so a
renderer needs no globals; counts go through ``ctx.nt(one, many, n)`` (``ngettext``).
xgettext knows only ``gettext`` and its kin; this adds ``t`` and ``nt`` as keywords for
the ``djangojs`` domain, so those strings reach
``locale/<lang>/LC_MESSAGES/djangojs.po``. The ``django`` domain is untouched.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    def handle(self, *args: Any, **options: Any) -> None:
        # From the class's list each time: the other domain never gets the keyword.
        self.xgettext_options = list(makemessages.Command.xgettext_options)
        if options.get("domain") == "djangojs":
            self.xgettext_options += ["--keyword=t", "--keyword=nt:1,2"]
        super().handle(*args, **options)
