"""The texts a real model reads: texts every Python install has, and the passkey prompt."""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

__all__ = ["DEFAULT_TEXT", "PYDOC_TOPICS", "default_text", "passkey_prompt", "read_text"]

DEFAULT_TEXT = "argparse.py"  # a module of the standard library: installed with Python itself


PYDOC_TOPICS = "pydoc_data.topics"  # English prose every Python install has: the reference manual's topics


def read_text(name: str) -> str:
    """A text every Python has: a stdlib module's source (``"argparse.py"``) or :data:`PYDOC_TOPICS`, the
    reference manual's topic texts (``pydoc_data.topics.topics``) joined in the order of their names."""
    if name == PYDOC_TOPICS:
        from pydoc_data.topics import topics

        return "\n\n".join(topics[k] for k in sorted(topics))
    return default_text(name)


def default_text(name: str = DEFAULT_TEXT) -> str:
    """The source of a standard-library module (the stdlib's own files, so every machine has them)."""
    if not re.fullmatch(r"[a-z_]+\.py", name):
        raise ValueError(f"name must be a stdlib module file such as 'argparse.py', got {name!r}")
    path = Path(sysconfig.get_paths()["stdlib"]) / name
    if not path.is_file():
        raise ValueError(f"name: no such module in this Python's standard library, got {name!r}")
    return path.read_text(encoding="utf-8")


# passkey retrieval (Mohtashami & Jaggi 2023, "Landmark Attention", arXiv:2305.16300, appendix)
FILLER = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again. "
PASSKEY_INTRO = (
    "There is an important info hidden inside a lot of irrelevant text. Find it and memorize it. "
    "I will quiz you about the important information there. "
)


def passkey_prompt(key: int, filler_repeats: int, depth: float) -> tuple[str, str]:
    """(prompt, answer): the landmark-attention passkey prompt with ``filler_repeats`` filler sentences
    groups and the key line inserted at ``depth`` (0 = first, 1 = last) of the filler."""
    if not 0.0 <= float(depth) <= 1.0:
        raise ValueError(f"depth must be in [0, 1], got {depth!r}")
    if int(filler_repeats) < 0:
        raise ValueError(f"filler_repeats must be ≥ 0, got {filler_repeats!r}")
    if not 0 <= int(key) <= 99999:
        raise ValueError(f"key must be an integer in [0, 99999], got {key!r}")
    at = round(float(depth) * int(filler_repeats))
    key_line = f"The pass key is {int(key)}. Remember it. {int(key)} is the pass key. "
    body = FILLER * at + key_line + FILLER * (int(filler_repeats) - at)
    return PASSKEY_INTRO + body + "What is the pass key? The pass key is", f" {int(key)}"
