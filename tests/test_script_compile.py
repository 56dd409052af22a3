"""Streamlit's "magic" is off (.streamlit/config.toml, ``runner.magicEnabled = false``), and switching it
off hides nothing: no script has a bare expression statement that magic would draw with st.write.

Why off (issue #12): Streamlit forgets its compiled scripts whenever no session is connected, so the
next visitor's first run compiles app.py and the page again, and magic's rewrite of the syntax tree
made that compile 4-6x slower (bench/RESULTS.md section 7)."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from streamlit.runtime.scriptrunner import magic

from explorer.manifest import PAGES

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ["app.py", *sorted({p.script for p in PAGES})]


def magic_writes(source: str) -> int:
    """How many expression statements magic would draw (calls of its st.write stand-in)."""
    tree = magic.add_magic(source, "<script>")
    return sum(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "__streamlitmagic__"
        for node in ast.walk(tree)
    )


def test_magic_is_switched_off_in_the_served_config():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["magicEnabled"] is False


def test_the_count_sees_what_magic_would_draw():
    # the checker itself: a bare name, a bare string after code and a tuple are drawn; calls,
    # docstrings and assignments are not
    assert magic_writes('"""doc"""\nx = 1\nx\n') == 1
    assert magic_writes('x = 1\n"text"\nx, x\n') == 2
    assert magic_writes('"""doc"""\nimport streamlit as st\nst.write(1)\nprint(2)\n') == 0


@pytest.mark.parametrize("script", SCRIPTS)
def test_no_script_relies_on_magic(script):
    source = (ROOT / script).read_text()
    assert magic_writes(source) == 0, f"{script} has a bare expression that magic would draw; draw it explicitly"
