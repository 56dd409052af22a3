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


@pytest.fixture(scope="session", autouse=True)
def _real_model_disk_cache():
    """Write the real model's disk cache once, before any test or test server needs the model: the first load
    reads the GGUF file (≈ 20 s, more on a busy machine), later loads read the cache (≈ 3 s). In a subprocess,
    so this process does not hold the model's memory. Nothing to do where the model is not installed."""
    from posenc import realmodel

    ok, _ = realmodel.available()
    if not ok:
        return
    import fcntl
    import subprocess

    # pytest-xdist runs this in every worker: the first takes the lock and writes, the others wait and find it written.
    realmodel.cache_dir().parent.mkdir(parents=True, exist_ok=True)
    with open(realmodel.cache_dir().parent / ".posenc-test-cache.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (realmodel.cache_dir() / "stamp.json").is_file():
            code = "from posenc import realmodel; realmodel.load()"
            subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, timeout=600)
