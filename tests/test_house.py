"""Issue #38, the house: page scripts read top to bottom (controls, calls, layout), and no page
script builds a sentence of its own (sentences live in explorer/text/<page>.py, tested there)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
MAX_LINES = 200


def sentences_built(path: Path) -> list[str]:
    """f-strings in ``path`` that read like a sentence: at least six words of fixed text around the
    values (a label such as f"Pair {j}" or a file name such as f"pe_{d}_{b}.csv" is not one)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.JoinedStr):
            text = " ".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if len(re.findall(r"(?<!\w)[A-Za-z][a-z]+(?!\w)", text)) >= 6:
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
