"""``make bench``'s last step: one table of every bench's figures, targets and verdicts.

Reads the JSON lines the benches wrote (``bench/results.py``) and the exit status of each
bench (``name status`` lines that the Makefile appends). A bench that exited non-zero
without recording a miss (it crashed, or a service was missing) is a row of its own.
Exit status 1 when any target was missed or any bench failed.

Run: ``.venv/bin/python bench/summary.py RESULTS STATUSES``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(results: Path, statuses: Path) -> int:
    rows = []
    if results.exists():
        rows = [json.loads(line) for line in results.read_text(encoding="utf-8").splitlines() if line.strip()]
    exits: dict[str, int] = {}
    if statuses.exists():
        for line in statuses.read_text(encoding="utf-8").splitlines():
            name, _, status = line.rpartition(" ")
            if name:
                exits[name] = int(status)
    table = [("bench", "figure", "measured", "target", "verdict", "load average")]
    for row in rows:
        verdict = "met" if row["met"] else "MISSED"
        table.append((row["bench"], row["figure"], row["measured"], row["target"], verdict, row["load"]))
    judged = {row["bench"] for row in rows}
    for name, status in exits.items():
        if status and not any(not row["met"] for row in rows if row["bench"] == name):
            what = "judged nothing" if name not in judged else "met its targets"
            table.append(
                (name, "(the bench)", f"exit status {status}", "0", "FAILED", f"{what}; see its output")
            )
        elif not status and name not in judged:
            table.append((name, "(the bench)", "exit status 0", "no target", "-", "figures in its output"))
    widths = [max(len(str(row[i])) for row in table) for i in range(len(table[0]))]
    print()
    for n, row in enumerate(table):
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            print("  ".join("-" * width for width in widths))
    missed = sum(1 for row in table[1:] if row[4] in ("MISSED", "FAILED"))
    print(f"\n{missed} of {len(table) - 1} missed or failed." if missed else f"\nAll {len(table) - 1} met.")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
