"""Shared pytest setup. Keep this minimal: page/AppTest fixtures belong in their own files."""

import sys
from pathlib import Path

import numpy as np
import pytest

# Make `import posenc` work under plain `pytest` too (not only `python -m pytest` from the repo root).
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture
def rng():
    """A fresh, seeded numpy Generator per test (reproducible, independent of test order)."""
    return np.random.default_rng(20240607)
