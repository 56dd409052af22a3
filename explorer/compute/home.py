"""What the home page (app.py) computes, cached: one attention head on the sentence and on its
shuffle (posenc.attention, numpy float64: the home page never imports torch), at the page's d and at
every d its chart's slider reaches (`every_dim`: the chart carries them all, issue #36)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from explorer.charts.home import token_labels
from explorer.layout import cached
from explorer.site.home import MAX_TOKENS
from explorer.widgets import get
from posenc import attention as att

#: The largest vector size d on this page: every even d from the registry's least up to it is in the chart.
MAX_DIM = 64
#: The page's range and default of d (explorer.liveparam limits: the URL's d is clamped into it, with a notice).
LIMITS = {"d_model": {"max": MAX_DIM, "default": 16}}
#: The three attention heatmaps: (name, whose weights, whether its rows are the shuffled sentence's words).
#: The columns of `every_dim`'s tables.
COLUMNS = {
    "points": ("d", "expected", "actual", "difference"),
    "weights": ("d", "heatmap", "query", "key", "row", "col", "weight", "vmax"),
    "gaps": ("d", "output_gap", "weight_gap"),
}
HEATMAPS = (("A(X)", "original", False), ("A(PX)", "shuffled", True), ("P·A(X)·Pᵀ", "expected", True))


def dims() -> list[int]:
    """Every d the home page's slider reaches: the registry's d_model from its least, in its steps, to MAX_DIM."""
    param = get("d_model")
    return list(range(int(param.min or 0), MAX_DIM + 1, int(param.step or 1)))


@cached(max_entries=64)
def experiment(words: tuple[str, ...], dim: int, seed: int, shuffle_seed: int, pe: str) -> dict:
    """Run the head on the sentence and on its shuffle (`att.shuffle_experiment`)."""
    return att.shuffle_experiment(words, dim, seed=seed, shuffle_seed=shuffle_seed, pe=pe, max_tokens=MAX_TOKENS)


@cached(max_entries=16)
def every_dim(words: tuple[str, ...], seed: int, shuffle_seed: int, pe: str) -> dict[str, pd.DataFrame]:
    """`att.shuffle_experiment` at every d of `dims()`, as the chart's tables (one row per number):

    - "points": d, expected (P·Y(X)), actual (Y(PX)), difference: every output coordinate;
    - "weights": d, heatmap (a name of HEATMAPS), query, key (labels "i word"), row, col (their places),
      weight, vmax (the largest weight of both orders at that d: the three heatmaps' shared scale);
    - "gaps": d, output_gap, weight_gap."""
    parts: dict[str, list[tuple]] = {"points": [], "weights": [], "gaps": []}
    for d in dims():
        r = att.shuffle_experiment(words, d, seed=seed, shuffle_seed=shuffle_seed, pe=pe, max_tokens=MAX_TOKENS)
        e, a = r["outputs_expected"].ravel(), r["outputs_shuffled"].ravel()
        parts["points"].append((np.full(e.size, d), e, a, a - e))
        vmax = max(float(r["weights_original"].max()), float(r["weights_shuffled"].max()))
        for name, which, shuffled in HEATMAPS:
            w = r[f"weights_{which}"]
            n = w.shape[0]
            row, col = (i.ravel() for i in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
            labels = np.array(token_labels(r["shuffled"] if shuffled else words), dtype=object)
            parts["weights"].append(
                (
                    np.full(n * n, d),
                    np.full(n * n, name, dtype=object),
                    labels[row],
                    labels[col],
                    row,
                    col,
                    w.ravel(),
                    np.full(n * n, vmax if vmax > 0 else 1.0),
                )
            )
        parts["gaps"].append(([d], [r["output_gap"]], [r["weight_gap"]]))
    return {
        table: pd.DataFrame({c: np.concatenate([p[i] for p in parts[table]]) for i, c in enumerate(columns)})
        for table, columns in COLUMNS.items()
    }
