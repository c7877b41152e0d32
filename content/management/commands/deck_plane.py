"""Print the projective plane of order N: the cards of a ZnajZnak deck as point numbers."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from content.decks import ImpossibleOrder, projective_plane


class Command(BaseCommand):
    requires_system_checks: list[str] = []  # pure arithmetic: no database, no settings
    help = (
        "Print the plane of order N as JSON: a list of n²+n+1 cards, each a list of the "
        "n+1 point numbers (0 … n²+n) on it; any two cards share exactly one point. "
        "An order with no plane (6, 10, …) exits with status 2 and says why."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("order", type=int, help="the order n, a prime power (2, 3, 4, 5, 7, 8, 9, 11, …)")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            plane = projective_plane(options["order"])
        except ImpossibleOrder as error:
            raise CommandError(str(error), returncode=2) from error
        # One card per line: valid JSON that still reads (and diffs) well.
        self.stdout.write("[\n" + ",\n".join(json.dumps(card) for card in plane) + "\n]")
