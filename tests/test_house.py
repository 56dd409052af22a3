"""Issue #38, the house: page scripts read top to bottom (controls, calls, layout), and no page script or chart
builder builds a sentence of its own (sentences live in explorer/text/<page>.py, tested there)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
CHARTS = sorted((ROOT / "explorer" / "charts").glob("*.py"))
#: f-strings of chart builders that the check reads as sentences but are not built here: (file, a piece of
#: their fixed text) -> why.
NOT_BUILT_HERE = {
    ("rope.py", "\\begin{aligned}"): "a KaTeX formula: its words are LaTeX commands",
}
MAX_LINES = 200


def sentences_built(path: Path, *, raised: bool = True) -> list[str]:
    """f-strings in ``path`` that read like a sentence: at least six words of fixed text around the
    values (a label such as f"Pair {j}" or a file name such as f"pe_{d}_{b}.csv" is not one).
    ``raised=False`` leaves out the messages of ``raise`` (errors for the programmer, not the page)."""
    tree = ast.parse(path.read_text())
    in_raise = set() if raised else {id(n) for r in ast.walk(tree) if isinstance(r, ast.Raise) for n in ast.walk(r)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr) and id(node) not in in_raise:
            text = " ".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            # a word, not code: no attribute (datum.theta), no object before one, no call (log(…))
            if len(re.findall(r"(?<![\w.])[A-Za-z][a-z]+(?!\w|\.\w|\()", text)) >= 6:
                found.append(f"{path.name}:{node.lineno}: {text[:60]!r}")
    return found


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_a_page_script_is_at_most_200_lines(script):
    n = len(script.read_text().splitlines())
    assert n <= MAX_LINES, f"{script.relative_to(ROOT)} has {n} lines (at most {MAX_LINES}: move code out)"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_a_page_script_builds_no_sentence(script):
    assert sentences_built(script) == []


def test_the_sentence_check_can_fail(tmp_path):
    page = tmp_path / "page.py"
    page.write_text('x = 3\nst.write(f"{x} of the pairs never complete a turn inside the window.")\n')
    assert len(sentences_built(page)) == 1
    page.write_text('j = 1\nlabel = f"Pair {j}"\n')
    assert sentences_built(page) == []
    page.write_text(
        's = "2"\nexpr = f"(datum.theta / {s}) * datum.ramp + datum.theta * (1 - datum.ramp) + log(datum.pair)"\n'
    )
    assert sentences_built(page) == []  # a Vega expression is code, not a sentence


def sentences_left(path: Path) -> list[str]:
    return [
        s
        for s in sentences_built(path, raised=False)
        if not any(path.name == name and piece in s for name, piece in NOT_BUILT_HERE)
    ]


@pytest.mark.parametrize("chart", CHARTS, ids=lambda p: p.name)
def test_a_chart_builder_builds_no_sentence(chart):
    """Titles, subtitles and descriptions that are sentences come from explorer/text/<page>.py."""
    assert sentences_left(chart) == []


def test_every_exception_to_the_chart_check_is_still_needed():
    found = [s for chart in CHARTS for s in sentences_built(chart, raised=False)]
    for name, piece in NOT_BUILT_HERE:
        assert any(s.startswith(f"{name}:") and piece in s for s in found), (name, piece)


def test_the_chart_check_can_fail(tmp_path):
    chart = tmp_path / "chart.py"
    chart.write_text('n = 3\ntitle = f"{n} of the pairs never complete a turn inside the window"\n')
    assert len(sentences_left(chart)) == 1
    chart.write_text('n = 3\nif n:\n    raise ValueError(f"n must be one of the values in 0 … 2, got {n}")\n')
    assert sentences_left(chart) == [] and len(sentences_built(chart)) == 1
