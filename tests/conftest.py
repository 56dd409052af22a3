"""Shared pytest setup. Keep this minimal: page/AppTest fixtures belong in their own files."""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

# One thread per torch (OpenMP) pool in every test process and every server it starts: pytest-xdist
# already runs a worker per core, and each worker's (and server's) own pool of one thread per core
# oversubscribed the cores, its waiting threads spinning. Measured on 2 cores, the torch-heavy modules
# (real model, lab) side by side: 57.6 s → 43.7 s, CPU 105 s → 75 s. The tests compare torch's numbers
# with tolerances, or numbers made on one thread anyway (the home page's head and the lab set it themselves).
os.environ.setdefault("OMP_NUM_THREADS", "1")

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
    """Write the real model's disk cache once, early: the first load reads the GGUF file (≈ 20 s, more on a
    busy machine), later loads read the cache (≈ 3 s). In a background subprocess, so this process does not
    hold the model's memory and its tests start at once; a test (or test server) that needs the model before
    the cache is written reads the file itself (slower, the same numbers; the cache is written atomically).
    Nothing to do where the model is not installed."""
    from posenc import realmodel

    ok, _ = realmodel.available()
    if not ok or (realmodel.cache_dir() / "stamp.json").is_file():
        yield
        return
    import subprocess

    # pytest-xdist runs this in every worker: the first subprocess takes the lock and writes, the others wait
    # for it there (not here) and find it written.
    realmodel.cache_dir().parent.mkdir(parents=True, exist_ok=True)
    lock = realmodel.cache_dir().parent / ".posenc-test-cache.lock"
    code = (
        "import fcntl, sys\nfrom posenc import realmodel\n"
        "lock = open(sys.argv[1], 'w')\nfcntl.flock(lock, fcntl.LOCK_EX)\n"
        "if not (realmodel.cache_dir() / 'stamp.json').is_file():\n    realmodel.load()\n"
    )
    with open(lock.with_suffix(f".{os.getpid()}.log"), "w") as log:
        build = subprocess.Popen([sys.executable, "-c", code, str(lock)], cwd=ROOT, stdout=log, stderr=log)
        yield
        returncode = build.wait(timeout=600)
    if returncode != 0:
        raise RuntimeError(f"building the real model's cache failed ({returncode}): see {log.name}")
    Path(log.name).unlink()


# ------------------------------------------------------------------------------ no silent skips
#: What a skip may say on a developer's machine: that it lacks something the README names and CI
#: installs (Debian's Chromium, the model package, Node.js for the tests that run a chart's JavaScript).
#: Any other skip fails the run, and in CI (CI=true) every skip does: CI skips nothing.
ALLOWED_SKIPS = ("Chromium not found at", "node", "the model file is not installed", "are not installed: pip install")
_SKIPPED: list[tuple[str, str]] = []


def _skip_reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def pytest_runtest_logreport(report):
    if report.skipped and not hasattr(report, "wasxfail"):
        _SKIPPED.append((report.nodeid, _skip_reason(report)))


def unexpected_skips(skipped, *, ci: bool) -> list[tuple[str, str]]:
    """The skips that fail the run (see `ALLOWED_SKIPS`)."""
    return [(node, why) for node, why in skipped if ci or not any(word in why for word in ALLOWED_SKIPS)]


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workerinput"):  # an xdist worker: the controller sees every report
        return
    bad = unexpected_skips(_SKIPPED, ci=os.environ.get("CI") == "true")
    if bad and session.exitstatus == 0:
        session.exitstatus = 1
    if bad:
        lines = "\n".join(f"  {node}: {why}" for node, why in bad[:30])
        session.config.get_terminal_writer().line(f"\nUnexpected skips ({len(bad)}) fail the run:\n{lines}", red=True)
