"""Helpers for the "Reproduce in Python" snippets: each page declares its own snippet function
(`explorer.site.<page>.snippet`, values -> a script using posenc); these write its literals.

Every snippet is complete (imports included), uses only numpy, posenc (and posenc.torch on the
home page), and prints the numbers the page shows. Values are written with ``repr`` (floats
round-trip exactly); the only text that can come from a user are the home page's words, which
``posenc.attention.tokenize`` has reduced to letters, digits, ``'`` and ``-``, written as Python
string literals. tests/test_snippets.py runs every snippet and compares its variables with the
numbers the page shows.

    explorer.manifest.page(slug).snippet(values) -> str

Pages and the values they pass (explorer.exports.page_footer):

    home        words, dim, seed, shuffle_seed, pe
    sinusoidal  seq_len, d_model, base, layout, zoom_p0, zoom_np, zoom_d0, zoom_nd
    clocks      d_model, base, p, n_clocks
    rope        q, k (the 2-D pair), m, n, j, head_dim, base, layout
    invariance  q, k, seed, n_pos, shift_t, dtype, base, layout_sin, table_len
    extension   block (the rope block used), head_dim, train_len, target_len
    compare     dim, trained_len, test_len, seed, base, alibi_head
    configs     head_dim, base, alpha; optional block and max_position_embeddings (parsed config)
"""

from __future__ import annotations

from collections.abc import Mapping
from string import Template
from typing import Any

import numpy as np

HEADER = "import numpy as np\nimport posenc\n"


def lit(value: Any) -> str:
    """A Python literal for a value: numbers exactly (repr), arrays as np.array([...])."""
    if isinstance(value, np.ndarray):
        return "np.array([" + ", ".join(lit(v) for v in value.tolist()) + "])"
    if isinstance(value, (np.floating, float)):
        return repr(float(value))
    if isinstance(value, (np.integer,)):
        return repr(int(value))
    if isinstance(value, (list, tuple)):
        inner = ", ".join(lit(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (bool, int, str)) or value is None:
        return repr(value)
    raise TypeError(f"no literal for {type(value).__name__}")


def ints(values: Mapping[str, Any], *keys: str) -> dict[str, int]:
    """{key: int(values[key])} for each of `keys`: a snippet's whole-number settings, as `fill` takes them."""
    return {key: int(values[key]) for key in keys}


def fill(template: str, **values: Any) -> str:
    return Template(template).substitute({k: lit(v) for k, v in values.items()})
