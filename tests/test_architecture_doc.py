"""docs/ARCHITECTURE.md is one screen and names only what exists (issue #38): every file path and
every dotted name in it (`posenc.x.y`, `explorer.x.y`, `compat.NAME`) resolves in this checkout."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"
TEXT = DOC.read_text(encoding="utf-8")
MAX_LINES = 150

#: Inline code spans and the words of the map's code block.
SPANS = re.findall(r"`([^`\n]+)`", TEXT)
MAP = TEXT.split("```")[1]
PATH = re.compile(r"^[A-Za-z0-9_./-]+\.(py|md|toml|txt)$|^[A-Za-z0-9_-]+/([A-Za-z0-9_./-]*)$")
#: A model's config.json is a kind of file, not one in this checkout.
DOTTED = re.compile(r"^(posenc|explorer|compat)(\.[A-Za-z_][A-Za-z0-9_]*)+$")


def candidates() -> list[str]:
    words = [w for span in SPANS for w in re.split(r"[\s(),=]+", span)]
    words += MAP.split()
    out = []
    for word in words:
        word = word.strip(":;,")
        if "<" in word or "N_Title" in word or "…" in word:
            continue  # a pattern such as site/<slug>.py, not one file
        if PATH.match(word) or (DOTTED.match(word) and not word.endswith(".py")):
            out.append(word)
    return sorted(set(out))


def test_one_screen():
    assert len(TEXT.splitlines()) <= MAX_LINES


def test_the_check_sees_the_names():
    names = candidates()
    assert "explorer/liveparam.py" in names and "explorer.charts.extension.browser_theta" in names
    assert len(names) > 40


def _resolve(name: str) -> bool:
    if DOTTED.match(name) and not name.endswith(".py"):
        parts = name.split(".")
        if parts[0] == "compat":
            parts = ["explorer", *parts]
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attr in parts[cut:]:
                if not hasattr(obj, attr):
                    return False
                obj = getattr(obj, attr)
            return True
        return False
    if name.startswith(("sinusoidal.py", "rope.py", "attention.py", "methods.py", "scaling.py")) or name in (
        "config.py",
        "models.py",
        "core.py",
        "model.py",
        "__main__.py",
        "lab/",
        "realmodel/",
    ):
        return any(ROOT.glob(f"posenc/**/{name.rstrip('/')}"))  # named inside the map's posenc/ block
    if "/" not in name.rstrip("/"):
        found = list(ROOT.glob(f"*/{name}")) + list(ROOT.glob(f"*/*/{name}")) + [ROOT / name]
        return any(p.exists() for p in found)
    return (ROOT / name).exists() or any(ROOT.glob(f"*/{name}"))


@pytest.mark.parametrize("name", candidates())
def test_every_name_exists(name):
    assert _resolve(name), f"docs/ARCHITECTURE.md names {name}, which this checkout does not have"


def test_a_missing_name_is_caught():
    assert not _resolve("explorer/no_such_module.py")
    assert not _resolve("posenc.no_such_function")
    assert not _resolve("explorer.liveparam.NoSuchClass")
