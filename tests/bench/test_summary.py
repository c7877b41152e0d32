"""make bench's last step: the benches' verdicts in one table (bench/summary.py, bench/results.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_bench_code(tmp_path: Path, code: str) -> None:
    """Run ``code`` as a bench would (bench/ on the path, BENCH_RESULTS set)."""
    subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); {code}"],
        env={"BENCH_RESULTS": str(tmp_path / "results.jsonl"), "PATH": "/usr/bin:/bin"},
        check=True,
    )


def summary(tmp_path: Path, statuses: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "status.txt").write_text(statuses)
    return subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench/summary.py"),
            str(tmp_path / "results.jsonl"),
            str(tmp_path / "status.txt"),
        ],
        capture_output=True,
        text=True,
    )


def test_every_target_met_makes_one_table_and_exit_status_0(tmp_path: Path) -> None:
    run_bench_code(
        tmp_path, "from results import record; record('bench_a.py', 'speed', '3 s', '< 6 s', True)"
    )
    done = summary(tmp_path, "bench_a.py 0\n")
    assert done.returncode == 0, done.stdout
    row = next(line for line in done.stdout.splitlines() if line.startswith("bench_a.py"))
    assert "speed" in row and "3 s" in row and "< 6 s" in row and "met" in row


def test_a_missed_target_is_a_row_and_makes_the_run_fail(tmp_path: Path) -> None:
    run_bench_code(
        tmp_path,
        "from results import record; record('bench_a.py', 'speed', '9 s', '< 6 s', False); "
        "record('bench_b.py', 'errors', '0', '0', True)",
    )
    done = summary(tmp_path, "bench_a.py 1\nbench_b.py 0\n")
    assert done.returncode == 1
    assert "MISSED" in next(line for line in done.stdout.splitlines() if line.startswith("bench_a.py"))
    assert "1 of 2 missed or failed" in done.stdout


def test_a_bench_that_failed_without_a_verdict_is_a_failed_row(tmp_path: Path) -> None:
    run_bench_code(
        tmp_path, "from results import record; record('bench_a.py', 'speed', '3 s', '< 6 s', True)"
    )
    done = summary(tmp_path, "bench_a.py 0\nbench_c.py 1\n")
    assert done.returncode == 1
    row = next(line for line in done.stdout.splitlines() if line.startswith("bench_c.py"))
    assert "FAILED" in row and "exit status 1" in row


def test_without_bench_results_a_bench_writes_nothing(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys; sys.path.insert(0, {str(ROOT / 'bench')!r}); "
            "from results import record; assert record('b', 'f', '1', '1', True)",
        ],
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        check=True,
    )
    assert list(tmp_path.iterdir()) == []
