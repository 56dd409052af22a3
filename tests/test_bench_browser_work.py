"""bench/browser_work.py's `busy_ms`: time covered by a thread's tasks in a window, overlaps merged.

Expected values are worked out by hand (trace timestamps are microseconds, the result milliseconds)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from browser_work import busy_ms  # noqa: E402


def test_nested_and_overlapping_tasks_count_once():
    # [0, 4000) holds [1000, 2000) (a nested task); [3000, 6000) overlaps it; [8000, 9000) stands alone
    tasks = [(0, 4000), (1000, 2000), (3000, 6000), (8000, 9000)]
    assert busy_ms(tasks, 0, 10_000) == 7.0  # 0-6000 and 8000-9000


def test_tasks_are_clipped_to_the_window():
    tasks = [(0, 4000), (3000, 6000), (8000, 9000)]
    assert busy_ms(tasks, 2000, 8500) == 4.5  # 2000-6000 and 8000-8500
    assert busy_ms(tasks, 6000, 8000) == 0.0  # between the tasks: idle
    assert busy_ms([], 0, 1000) == 0.0
