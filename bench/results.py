"""Verdicts of the benches, for ``make bench``'s one table (``bench/summary.py``).

Each bench calls :func:`record` once per target it judges: the measured figure, the
target and whether it was met. The line goes to the file named by ``BENCH_RESULTS`` (one
JSON object a line; ``make bench`` sets it), and nowhere when that is unset, so a bench
run on its own prints its own verdicts only. The load average goes with every line.
"""

from __future__ import annotations

import json
import os
import time

__all__ = ["load_average", "record"]


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def record(bench: str, figure: str, measured: str, target: str, met: bool) -> bool:
    """Note one judged target; returns ``met`` (so ``ok &= record(...)`` reads well)."""
    path = os.environ.get("BENCH_RESULTS")
    if path:
        line = {
            "bench": bench,
            "figure": figure,
            "measured": measured,
            "target": target,
            "met": bool(met),
            "load": load_average(),
            "cpus": os.cpu_count(),
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return met
