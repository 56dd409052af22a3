"""A freshly started server imports the app's modules from several threads at once (one per session
opening a page). With CPython 3.11's per-module import locks, a package whose __init__ imports its
submodules lets one thread hold a submodule's lock while waiting for the package another thread is
initialising, and that thread then gets a half-made module: "ImportError: cannot import name … from
partially initialized module 'posenc.methods'" (seen in tests/test_proxy.py with ten sessions).
posenc's __init__ therefore loads its names on first use; these tests hold it to that.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Each thread runs one script's top-level imports, all threads released at the same moment.
RACE = r"""
import sys, threading, traceback
sys.path.insert(0, {root!r})
codes = {codes!r}
barrier = threading.Barrier(len(codes))
errors = []
def run(code):
    barrier.wait()
    try:
        exec(code, {{}})
    except Exception:
        errors.append(traceback.format_exc(limit=3))
threads = [threading.Thread(target=run, args=(c,)) for c in codes]
for t in threads: t.start()
for t in threads: t.join()
print("\n".join(errors) if errors else "OK")
"""


def top_level_imports(path: Path) -> str:
    tree = ast.parse(path.read_text())
    return "\n".join(ast.unparse(n) for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)))


def test_every_page_importing_at_once_on_a_fresh_process():
    scripts = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    codes = [top_level_imports(s) for s in scripts]
    # and the submodules by name, as explorer's modules import them
    codes += [
        "from posenc.methods import ROPE_METHODS",
        "from posenc.config import parse_model_config",
        "import posenc",
    ]
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", RACE.format(root=str(ROOT), codes=codes)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert out.stdout.strip() == "OK", out.stdout[-3000:] + out.stderr[-2000:]


def test_posenc_init_imports_nothing_and_loads_each_listed_name_on_first_use():
    """posenc/__init__.py imports no submodule at run time, and every name its TYPE_CHECKING block
    lists (once) is the package attribute at run time: the same object as in its submodule."""
    import importlib

    import posenc

    tree = ast.parse((ROOT / "posenc" / "__init__.py").read_text())
    runtime = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert all(isinstance(n, ast.Import) or (n.module in ("__future__", "typing") and n.level == 0) for n in runtime), [
        ast.unparse(n) for n in runtime
    ]
    (block,) = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    listed = [(n.module, a.name) for n in block.body if isinstance(n, ast.ImportFrom) for a in n.names]
    names = [name for _, name in listed]
    assert len(names) == len(set(names)) > 80
    fresh = subprocess.run(
        [sys.executable, "-c", "import sys, posenc; print(sorted(m for m in sys.modules if m.startswith('posenc.')))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert fresh == "[]", fresh
    assert sorted(posenc.__all__) == sorted(names) and set(names) <= set(dir(posenc))
    for module, name in listed:
        expected = importlib.import_module(f"posenc.{name}" if module is None else f"posenc.{module}")
        assert getattr(posenc, name) is (expected if module is None else getattr(expected, name)), name
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        posenc.not_a_name
