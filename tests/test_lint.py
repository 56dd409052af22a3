"""Lint, format and type checks, as tests: so the README's test command (and CI, which runs it) covers them.

Each tool runs from the repository root with the settings in pyproject.toml ([tool.ruff],
[tool.mypy]: files = posenc, explorer), through this interpreter so the versions pinned in
requirements-dev.txt are the ones used.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

CHECKS = {
    "ruff check": ["ruff", "check", "--no-fix", "--output-format", "concise", "."],
    "ruff format": ["ruff", "format", "--check", "--diff", "."],
    "mypy": ["mypy"],
}


@pytest.mark.parametrize("name", list(CHECKS))
def test_tool_passes(name):
    args = CHECKS[name]
    if importlib.util.find_spec(args[0]) is None:
        pytest.fail(f"{args[0]} is not installed: pip install -r requirements-dev.txt")
    cmd = [sys.executable, "-m", *args]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, f"`{' '.join(args)}` failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
