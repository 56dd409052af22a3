"""Learned absolute position embeddings (GPT-2, BERT): one trainable row per position.

A table of shape (max_len, d_model) holds max_len·d_model parameters. A position ≥ max_len has
no row, so the honest answer for it is an error: a learned table cannot extrapolate.
Here the table is a seeded random draw, standing in for trained weights.
"""

from __future__ import annotations

import numpy as np

from . import _validate as v

MAX_TABLE_ENTRIES = 50_000_000


def learned_table(max_len, d_model, *, seed=0, std=0.02) -> np.ndarray:
    """A seeded N(0, std²) table of shape (max_len, d_model), like a freshly initialised nn.Embedding."""
    max_len = v.integer("max_len", max_len, minimum=1)
    d = v.dimension("d_model", d_model)
    seed = v.integer("seed", seed, minimum=0)
    std = v.positive_float("std", std)
    if max_len * d > MAX_TABLE_ENTRIES:
        raise ValueError(f"max_len * d_model must be <= {MAX_TABLE_ENTRIES}, got {max_len * d}")
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, std, size=(max_len, d))


def learned_lookup(table, positions) -> np.ndarray:
    """Rows of ``table`` for integer ``positions``; shape (len(positions), d_model)."""
    table = v.float_array("table", table, ndim=2)
    pos = v.positions_array("positions", positions)
    if not np.all(pos == np.round(pos)):
        bad = pos[pos != np.round(pos)][0]
        raise ValueError(f"positions must be whole numbers for a learned table (one row per token), got {bad}")
    max_len = table.shape[0]
    if np.any(pos < 0):
        raise ValueError(f"positions must be >= 0, got {int(pos.min())}")
    if np.any(pos >= max_len):
        bad = int(pos.max())
        raise ValueError(
            f"positions must be < max_len={max_len}, got {bad}: a learned table has no row for "
            f"position {bad}, so it cannot extrapolate beyond the length it was trained on"
        )
    return table[pos.astype(np.int64)]
