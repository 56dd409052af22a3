"""The pages' declarations (explorer/site/, collected by explorer.manifest) and the package's shape:
every page script is declared exactly once and calls `page_setup` with its own slug; the
declarations are valid; explorer/ has no import circle (not even one hidden in a function)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from explorer import manifest, widgets
from explorer.pagespec import Page

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ["app.py", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "pages").glob("*.py"))]


def test_every_page_script_is_declared_once_and_every_declaration_has_a_script():
    declared = [p.script for p in manifest.PAGES]
    assert sorted(declared) == sorted(SCRIPTS)
    assert len(set(declared)) == len(declared)


def test_the_declarations_are_valid():
    assert manifest.problems() == []


def test_problems_finds_a_bad_declaration(monkeypatch):
    good = manifest.PAGES[1]
    bad = Page(
        script=good.script,  # a second page with the same script and URL
        slug="other",
        title=good.title,
        icon=good.icon,
        snippet=good.snippet,
        deep_link=type(good.deep_link)({"seq_len": -1, "zzz": 1}, slider="seq_len", chart=0),
        bench=type(good.bench)(max_query={"seq_len": "abc"}),
    )
    monkeypatch.setattr(manifest, "PAGES", (*manifest.PAGES, bad))
    found = "\n".join(manifest.problems())
    for expected in ("the script", "the url_path", "the title", "seq_len=-1", "unknown parameter 'zzz'", "seq_len"):
        assert expected in found, (expected, found)


@pytest.mark.parametrize("page", manifest.PAGES, ids=lambda p: p.slug)
def test_each_script_sets_up_its_own_page(page):
    text = (ROOT / page.script).read_text()
    calls = re.findall(r"page_setup\(\"([a-z_]+)\"\)", text)
    assert calls == [page.slug], f"{page.script} must call page_setup({page.slug!r}) once, found {calls}"


# Imports a page script may make before page_setup: only what page_setup itself needs.
_BEFORE_SETUP = {"__future__", "streamlit", "explorer.layout"}


@pytest.mark.parametrize("page", manifest.PAGES, ids=lambda p: p.slug)
def test_page_setup_comes_before_the_heavy_imports_and_draws_the_only_title(page):
    """page_setup goes first (explorer/layout.py): nothing but Streamlit and explorer.layout is
    imported before it, so a cold server sends the frame before pandas and Altair are loaded; the
    heading is the declared title, drawn by page_setup, so the script draws no title of its own."""
    tree = ast.parse((ROOT / page.script).read_text())
    before = []
    for node in tree.body:
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            func = node.value.func
            if isinstance(func, ast.Name) and func.id == "page_setup":
                break
        if isinstance(node, ast.Import):
            before += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            before.append(node.module or "")
        elif not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):  # the docstring
            raise AssertionError(f"{page.script}: line {node.lineno} runs before page_setup")
    else:
        raise AssertionError(f"{page.script} does not call page_setup at its top level")
    assert set(before) <= _BEFORE_SETUP, (
        f"{page.script} imports {sorted(set(before) - _BEFORE_SETUP)} before page_setup"
    )
    titles = [
        n.lineno
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "title"
        and getattr(n.func.value, "id", None) == "st"
    ]
    assert not titles, f"{page.script} draws a title of its own (line {titles}); page_setup draws {page.title!r}"


def test_the_navigation_order_follows_the_script_numbers():
    assert manifest.PAGES[0].script == "app.py"
    assert [p.order for p in manifest.PAGES] == sorted(p.order for p in manifest.PAGES)


def test_every_page_parameter_is_registered_and_keys_are_not_shared_between_pages():
    owners: dict[str, str] = {}
    for page in manifest.PAGES:
        for param in page.params:
            assert widgets.get(param.key) == param
            assert param.key not in owners, f"{param.key} declared by {owners.get(param.key)} and {page.slug}"
            owners[param.key] = page.slug


# ----------------------------------------------------------------------------- import graph
def _explorer_imports(path: Path) -> tuple[set[str], set[str]]:
    """(module-level, function-level) imports of explorer modules in one file."""
    tree = ast.parse(path.read_text())
    top: set[str] = set()
    inner: set[str] = set()

    def names(node: ast.AST) -> set[str]:
        found = set()
        if isinstance(node, ast.Import):
            found = {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
        return {n for n in found if n.startswith("explorer")}

    for node in tree.body:
        top |= names(node)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner_node in ast.walk(node):
                inner |= names(inner_node)
    return top, inner


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def test_explorer_has_no_import_circle_and_no_import_inside_a_function():
    files = sorted((ROOT / "explorer").rglob("*.py"))
    modules = {_module_name(f): f for f in files}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        top, inner = _explorer_imports(path)
        assert not inner, f"{name} imports {sorted(inner)} inside a function (a hidden import circle?)"
        graph[name] = {m for m in top if m in modules and m != name}

    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                raise AssertionError("import circle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_posenc_imports_without_streamlit_altair_pandas_or_torch():
    code = (
        "import sys, posenc, posenc.config, posenc.models\n"
        "bad = [m for m in ('streamlit', 'altair', 'pandas', 'torch') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
