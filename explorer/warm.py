"""What a freshly started server imports before its first visitor (issue #36: the hall, fast from the first second).

`page_modules` reads the import statements of every page's script (explorer.manifest.PAGES: app.py and pages/*.py)
without running them; `import_all` imports them. serve.py calls it in its st.App lifespan, which Streamlit runs before it accepts a connection, so the
first visitors' runs do not each wait for about a second of imports (altair, pandas, pyarrow, posenc, explorer).
Modules a page imports inside a function (torch, transformers: only where they are used) are not among them.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from explorer.manifest import PAGES

ROOT = Path(__file__).resolve().parent.parent
#: What serve.py prints once the modules are imported (before the server accepts a connection).
READY = "The pages' modules are imported"


def page_modules(root: Path = ROOT) -> list[str]:
    """The absolute imports at any level of every page's script, in order, once each: each ``import m`` and
    ``from m import n`` gives ``m``, and ``m.n`` too (`import_all` skips it where it is not a module)."""
    names: list[str] = []
    for script in (root / page.script for page in PAGES):
        for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"), filename=str(script))):
            if isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.append(node.module)
                names += [f"{node.module}.{alias.name}" for alias in node.names]
    return list(dict.fromkeys(names))


def import_all(names: list[str]) -> list[str]:
    """Import each of `names` that is a module (a name imported from a module may be a function or a class: skipped);
    the modules imported, in order."""
    done = []
    for name in names:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not name.startswith(exc.name):  # a missing dependency of a real module: loud
                raise
            continue
        done.append(name)
    return done
