"""Move files stored before private media to names nobody can guess (``games.media_rename``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.media_rename import Report, media_rename_old


class Command(BaseCommand):
    help = (
        "Move every stored file whose name is still the old, guessable kind (symbols/<collection>/"
        "<file>, imports/<month>/, decks/<id>/, prints/<id>/) to a new name, rewriting the rows "
        "that name it first and deleting the old file last. Safe to stop and run again."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--dry-run", action="store_true", help="change nothing; list what would move")
        parser.add_argument(
            "--batch-size", type=int, default=50, help="rows moved per transaction (default 50)"
        )

    def handle(self, *args: Any, dry_run: bool, batch_size: int, verbosity: int, **options: Any) -> None:
        if batch_size < 1:
            raise CommandError("--batch-size must be at least 1.")

        def progress(report: Report) -> None:
            if verbosity >= 2:
                self.stdout.write(f"... {report.moved} file(s) moved so far")

        report = media_rename_old(dry_run=dry_run, batch_size=batch_size, progress=progress)
        if dry_run or verbosity >= 2:
            for old, new in report.moves:
                self.stdout.write(f"{old} -> {new}")
        for name in report.missing:
            self.stdout.write(f"missing, left as it is: {name}")
        if dry_run:
            self.stdout.write(
                f"Dry run: {report.moved} file(s) of {report.rows} row(s) would move "
                f"(uploads get a random name then); {len(report.missing)} missing. Nothing was changed."
            )
            return
        self.stdout.write(
            f"Moved {report.moved} file(s): {report.rows} row(s) and {report.references} game "
            f"session(s) or quiz item(s) now name the new files; {len(report.missing)} missing "
            "file(s) kept their names."
        )
        if report.failed:
            for failure in report.failed:
                self.stderr.write(f"failed: {failure}")
            raise CommandError(
                f"{len(report.failed)} batch(es) failed and keep their old names; run the command again."
            )
