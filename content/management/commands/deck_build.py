"""Build a ZnajZnak deck from a symbol set and write deck.json and the PDFs to a folder.

The same service as the admin's deck page (``content.building``): the deck is stored
(it appears in the admin) and then built here, in this process, without a worker.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.storage import default_storage
from django.core.management.base import BaseCommand, CommandError, CommandParser

from content import building
from content.models import BuildState, SymbolSet


class Command(BaseCommand):
    help = (
        "Build a ZnajZnak deck from a symbol set: writes deck.json (the cards as symbol "
        "numbers and the lesson sets) and the PDFs (game cards, auxiliary cards) to --out."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--symbol-set", required=True, metavar="SLUG", help="the set's key")
        parser.add_argument("--out", required=True, metavar="DIR", help="folder for the files")
        parser.add_argument("--user", metavar="USERNAME", help="whose deck it is (default: the set's owner)")
        parser.add_argument("--name", help="the deck's name (default: the set's name)")
        parser.add_argument("--seed", type=int, default=0, help="the seed (default 0)")
        parser.add_argument("--order", type=int, help="the order (default: best for the set)")
        parser.add_argument(
            "--cards",
            dest="cards_to_print",
            type=int,
            help="cards to print (default: all; the box prints 132 of 133)",
        )
        parser.add_argument("--sets", type=int, help="number of lesson sets (default: 1 per 10 cards)")
        parser.add_argument("--labels", help='labels of the sets, e.g. "A B C" (default A, B, C, …)')
        parser.add_argument("--paper", choices=building.PAPERS)
        parser.add_argument("--card-mm", dest="card_mm", type=float, help="card size in mm (50-120)")
        parser.add_argument("--shape", choices=building.SHAPES)
        parser.add_argument("--no-cut-marks", dest="cut_marks", action="store_false", default=None)
        parser.add_argument("--bleed-mm", dest="bleed_mm", type=float, help="bleed in mm (0-5)")
        parser.add_argument("--duplex", choices=building.DUPLEX)
        parser.add_argument("--language")
        parser.add_argument(
            "--no-pdf", dest="render", action="store_false", default=None, help="write deck.json only"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        symbol_set = SymbolSet.objects.filter(slug=options["symbol_set"]).first()
        if symbol_set is None:
            raise CommandError(f"There is no symbol set {options['symbol_set']!r}.")
        if options["user"]:
            user = User.objects.filter(username=options["user"]).first()
            if user is None:
                raise CommandError(f"There is no user {options['user']!r}.")
        else:
            user = symbol_set.owner
            if user is None or not user.can_author:
                raise CommandError("The set has no owner who may build decks; name one with --user.")
        deck_options = {
            key: options[key]
            for key in (
                "order",
                "cards_to_print",
                "sets",
                "labels",
                "paper",
                "card_mm",
                "shape",
                "cut_marks",
                "bleed_mm",
                "duplex",
                "language",
                "render",
            )
            if options[key] is not None
        }
        try:
            deck = building.deck_create(
                user=user,
                symbol_set=symbol_set,
                name=options["name"],
                seed=options["seed"],
                options=deck_options,
                enqueue=False,
            )
        except PermissionDenied as error:
            raise CommandError(str(error)) from error
        except ValidationError as error:
            problems = [
                f"{'' if field == '__all__' else field + ': '}{message}"
                for field, messages in error.message_dict.items()
                for message in messages
            ]
            raise CommandError("The deck was not built:\n  " + "\n  ".join(problems)) from error

        self.stderr.write(f"Deck {deck.pk}: building {deck.name} …")
        deck = building.deck_build(deck=deck)
        if deck.state != BuildState.DONE:
            raise CommandError(f"Deck {deck.pk} failed: {deck.message}")

        out = Path(options["out"])
        out.mkdir(parents=True, exist_ok=True)
        for name, stored in deck.files.items():
            with default_storage.open(stored, "rb") as source:
                (out / name).write_bytes(source.read())
            self.stdout.write(str(out / name))
        self.stderr.write(deck.message)
