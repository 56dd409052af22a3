"""What a freshly started server imports before its first visitor (issue #36: the hall, fast from the first second).

`page_modules` reads the import statements of a page's script (by default the home page's, app.py: the link a hall
opens first) without running it; `import_all` imports them. serve.py calls them in its st.App lifespan, which
Streamlit runs before it accepts a connection, so the first visitors' runs do not each wait for the imports (altair,
pandas, posenc, explorer: about 0.7 s on 2 cores). The other pages share most of them. Modules a page imports inside
a function (torch, transformers: only where they are used) are not among them.

Why the home page's only (bench/RESULTS.md section 33): importing every page's modules first made a cold start (from
``streamlit run`` to the home page drawn) 0.35 s slower than app.py's, the home page's 0.20 s; the hall's p95 was the
same with either.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

from explorer.manifest import PAGES

ROOT = Path(__file__).resolve().parent.parent
#: The home page's script (the entry script serve.py serves, whose imports it makes first).
HOME = PAGES[0].script
#: What serve.py prints once the modules are imported (before the server accepts a connection).
READY = "The home page's modules are imported"


def page_modules(scripts: tuple[str, ...] = (HOME,), root: Path = ROOT) -> list[str]:
    """The absolute imports in the module body of `scripts` (paths from `root`; by default the home page's), in order,
    once each: each ``import m`` and ``from m import n`` gives ``m``, and ``m.n`` too (`import_all` skips it where it
    is not a module). An import inside a function, a ``with`` or an ``if`` is not among them."""
    names: list[str] = []
    for script in (root / name for name in scripts):
        for node in ast.parse(script.read_text(encoding="utf-8"), filename=str(script)).body:
            if isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.append(node.module)
                names += [f"{node.module}.{alias.name}" for alias in node.names]
    return list(dict.fromkeys(names))


def import_all(names: list[str]) -> list[str]:
    """Import each of `names` that is a module; the modules imported, in order. A name ``m.n`` that is no module but an
    attribute of the module ``m`` (a function or a class imported by name) is skipped; any other missing module
    raises (ModuleNotFoundError), as the page itself would."""
    done = []
    for name in names:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            parent, _, attr = name.rpartition(".")
            if exc.name != name or not parent or not hasattr(sys.modules.get(parent), attr):
                raise
            continue
        done.append(name)
    return done


def limit_blas_threads() -> list[tuple[str, int]]:
    """Limit the BLAS libraries loaded now (numpy's OpenBLAS) to one thread, process-wide; returns (library, threads)
    after, for the log. serve.py calls it once the modules are imported.

    Why: the pages' matrix products are small (the shift test's, the vision heatmaps'), so numpy's second BLAS thread
    spun beside the first: the invariance page's chart rows took 291 ms of CPU for 150 ms of wall time with two
    threads, 148 ms for 148 ms with one; the invariance and vision pages' first views took 30–45 % less CPU (bench/
    RESULTS.md section 36). Under load, one thread per run leaves the other core to the other sessions. The shift
    test's numbers are the same bit for bit with one thread and with two (tests/test_warm.py, at four sizes). torch's
    threads are set where torch is used (posenc.torch.set_threads)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
    return [(info["internal_api"], info["num_threads"]) for info in threadpool_info() if info["user_api"] == "blas"]
