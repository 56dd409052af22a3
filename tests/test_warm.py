"""explorer.warm and serve.py: what a freshly started server imports before its first visitor (issue #36)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from e2e_support import ROOT

from explorer import warm
from explorer.manifest import PAGES


def test_the_modules_are_the_home_pages_imports_and_no_heavy_one():
    names = warm.page_modules()
    # what the home page imports at the top, read from its script; not another page's
    for name in ("streamlit", "explorer.layout", "explorer.charts.home", "posenc.attention", "explorer.liveparam"):
        assert name in names, name
    assert "explorer.charts.compare" not in names
    assert len(names) == len(set(names))
    every = warm.page_modules(tuple(page.script for page in PAGES))
    assert "explorer.charts.compare" in every and set(names) <= set(every)
    # torch and transformers are imported only where they are used (inside functions): not before the first visitor,
    # on no page
    assert not any(n.split(".")[0] in ("torch", "transformers", "gguf") for n in every)


def test_import_all_in_a_fresh_interpreter_loads_the_home_pages_modules_and_not_torch():
    """In a new Python process (as serve.py's lifespan runs it): after `import_all`, the home page's modules are
    loaded, names that are functions or classes are skipped, and torch is not loaded."""
    code = textwrap.dedent(
        """
        import sys
        from explorer import warm
        done = warm.import_all(warm.page_modules())
        print(len(done), "explorer.charts.home" in sys.modules, "altair" in sys.modules, "torch" in sys.modules)
        print("explorer.widgets.widget" in done)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True
    )
    count, home, altair, torch = out.stdout.split("\n")[0].split()
    assert int(count) >= 10 and (home, altair, torch) == ("True", "True", "False")
    assert out.stdout.split("\n")[1] == "False"  # a function imported by name is not a module


def test_a_missing_module_is_skipped_but_a_broken_one_raises(tmp_path, monkeypatch):
    (tmp_path / "warm_broken_mod.py").write_text("import warm_no_such_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert warm.import_all(["json", "json.dumps"]) == ["json"]  # a function imported from a module by name: skipped
    with pytest.raises(ModuleNotFoundError, match=r"json\.no_such_name"):
        warm.import_all(["json", "json.no_such_name"])  # neither a module nor a name of json: loud, as the page
    with pytest.raises(ModuleNotFoundError, match="warm_no_such_dependency"):
        warm.import_all(["warm_broken_mod"])  # a real module whose dependency is missing: loud


def test_serve_py_imports_the_pages_modules_before_it_answers():
    """`streamlit run serve.py` (the README's server; the browser tests' too, tests/e2e_support.SERVE): by the time
    its health check first answers, its lifespan has imported the pages' modules."""
    from e2e_support import SERVE, StreamlitServer, require_browser

    require_browser()  # the browser tests' conditions: a server may be started here
    assert SERVE == "serve.py"
    with StreamlitServer() as server:
        log = server.log_tail()
    assert warm.READY in log, log
    assert "BLAS threads: openblas 1)" in log, log  # explorer.warm.limit_blas_threads


def test_one_blas_thread_gives_the_same_numbers():
    """`limit_blas_threads` (serve.py calls it): in a fresh interpreter, numpy's BLAS runs one thread after it, and the
    shift test's score matrices and deviations (its products, at sizes the page reaches) are the same, bit for bit, as
    with the threads numpy started with."""
    code = textwrap.dedent(
        """
        import numpy as np
        import posenc
        from explorer import warm
        from threadpoolctl import threadpool_info

        def numbers():
            out = []
            for d, n in ((8, 16), (64, 64), (256, 256), (128, 200)):
                q, k = posenc.seeded_normal((2, d), seed=d)
                rep = posenc.shift_test_report(q, k, n_positions=n, offset=9, table_len=n + 9, seed=1)
                out += [rep[key] for key in ("rope", "sinusoidal", "learned", "rope_dev", "sinusoidal_dev", "learned_dev")]
            return out

        before = [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]
        first = numbers()
        after = warm.limit_blas_threads()
        second = numbers()
        same = all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(first, second, strict=True))
        print(before, after, same)
        """
    )
    # two BLAS threads to start with, as numpy starts on this project's 2-core machines (tests/conftest.py sets
    # OMP_NUM_THREADS=1 for the suite's own processes)
    two = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    two["OPENBLAS_NUM_THREADS"] = "2"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300, check=True, env=two
    )
    line = out.stdout.strip().splitlines()[-1]
    assert line.endswith("[('openblas', 1)] True"), out.stdout  # one thread after, and the same numbers
    assert line.startswith("[2] "), out.stdout  # the numbers before were made by two threads
