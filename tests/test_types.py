"""mypy over posenc/ and explorer/ (its settings: pyproject.toml), as one of the tests.

It runs here rather than before pytest in the README's test command: on 2 cores its 15-20 s of one
core then overlap the browser tests' waits instead of adding to the command's time.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_finds_no_type_errors(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "mypy-cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Success: no issues found" in done.stdout
