"""``python manage.py replay FILE``: replay a game log and print the final state as JSON.

The format and the exit status are those of ``docs/replay.md``: 0 when every action was
legal; otherwise 2, the state before the first refused action on standard output
(``null`` when the log could not start a game), and one line of JSON on standard error:
``{"index": N, "error": "illegal_action" | "invalid_action" | "invalid_log", "reason": ...}``
(``index`` is ``null`` when the log as a whole is at fault). ``-`` reads standard input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from games.replay import Replay, log_replay

EXIT_REFUSED = 2


class Command(BaseCommand):
    help = "Replay a game log (FILE, or - for standard input) and print the final state as JSON."
    # Pure replay: no database, so no system checks either.
    requires_system_checks: list[str] = []

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", help="the game log (JSON); - reads standard input")

    def handle(self, *args: Any, file: str, **options: Any) -> None:
        replay = self._replay(file)
        self.stdout.write(json.dumps(replay.state, ensure_ascii=False, indent=2))
        if replay.error is not None:
            self.stderr.write(json.dumps(replay.error, ensure_ascii=False), style_func=lambda text: text)
            sys.exit(EXIT_REFUSED)

    def _replay(self, file: str) -> Replay:
        try:
            text = sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            return _invalid_log(f"Cannot read {file}: {error}")
        try:
            log = json.loads(text)
        except json.JSONDecodeError as error:
            return _invalid_log(f"Not JSON: {error}")
        return log_replay(log)


def _invalid_log(reason: str) -> Replay:
    return Replay(None, {"index": None, "error": "invalid_log", "reason": reason})
