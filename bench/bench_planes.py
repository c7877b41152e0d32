"""Cold build times of ZnajZnak planes and card layouts (pure Python, no Django).

Run: ``.venv/bin/python bench/bench_planes.py`` (a few seconds).

Every run starts cold: all caches (fields, planes, deck plans, layout templates)
are cleared first, so a figure is what the first request after a restart pays.
The best of ``--runs`` runs is printed (the least disturbed by the machine).
Targets: order 11 under 5 ms, order 31 under 1 s; the 133-card layout is
reported cold (templates computed) and warm.  The exit status is 1 when a
target is missed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from results import record

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from content.decks import build_deck, clear_caches, deck_layouts, projective_plane  # noqa: E402


def best_of(runs: int, work: Callable[[], object], *, cold: bool = True) -> float:
    best = float("inf")
    for _ in range(runs):
        if cold:
            clear_caches()
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return best * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per figure (best is shown)")
    args = parser.parse_args()

    cards = build_deck([f"symbol-{i:03d}" for i in range(133)]).cards
    rows: list[tuple[str, float, float | None]] = [
        ("plane of order 11, cold", best_of(args.runs, lambda: projective_plane(11)), 5.0),
        ("plane of order 31, cold", best_of(args.runs, lambda: projective_plane(31)), 1000.0),
        (
            "deck of 133 symbols (order 11), cold",
            best_of(args.runs, lambda: build_deck([f"s{i}" for i in range(133)])),
            None,
        ),
        (
            "133-card layout (round), cold templates",
            best_of(args.runs, lambda: deck_layouts(cards, seed=1, shape="round")),
            1000.0,
        ),
        (
            "133-card layout (square), cold templates",
            best_of(args.runs, lambda: deck_layouts(cards, seed=1, shape="square")),
            1000.0,
        ),
    ]
    deck_layouts(cards, seed=1)
    rows.append(
        (
            "133-card layout (round), warm templates",
            best_of(args.runs, lambda: deck_layouts(cards, seed=2), cold=False),
            None,
        )
    )

    failed = False
    width = max(len(name) for name, _, _ in rows)
    print(f"best of {args.runs} runs (ms)")
    for name, ms, target in rows:
        verdict = ""
        if target is not None:
            ok = record("bench_planes.py", name, f"{ms:.2f} ms", f"< {target:g} ms", ms < target)
            failed |= not ok
            verdict = f"  target < {target:g} ms: {'ok' if ok else 'MISSED'}"
        print(f"{name:<{width}}  {ms:9.2f}{verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
