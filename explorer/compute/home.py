"""What the home page (app.py) computes, cached: one attention head on the sentence and on its
shuffle (posenc.attention, numpy float64: the home page never imports torch), at the page's d and at
every d its chart's slider reaches (`every_dim`: the chart carries them all, issue #36)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from explorer.charts.home import HEATMAP_TITLES, token_labels
from explorer.layout import cached
from explorer.site.home import MAX_TOKENS
from explorer.widgets import get
from posenc import attention as att

#: The largest vector size d on this page: every even d from the registry's least up to it is in the chart.
MAX_DIM = 64
#: The page's range and default of d (explorer.liveparam limits: the URL's d is clamped into it, with a notice).
LIMITS = {"d_model": {"max": MAX_DIM, "default": 16}}
#: The columns of `every_dim`'s tables.
COLUMNS = {
    "points": ("d", "expected", "actual"),
    "weights": ("d", "heatmap", "row", "col", "weight"),
    "gaps": ("d", "output_gap", "vmax"),
}
#: The three attention heatmaps (their names: the chart's): (name, whose weights, whether its rows are the shuffled
#: sentence's words).
HEATMAPS = tuple(zip(HEATMAP_TITLES, ("original", "shuffled", "expected"), (False, True, True), strict=True))


def dim_range() -> tuple[int, int, int]:
    """The slider's (least, most, step) over `dims()`."""
    found = dims()
    return found[0], found[-1], found[1] - found[0]


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
    """`att.shuffle_experiment` at every d of `dims()`, as the chart's tables, lean (the chart carries every d:
    a 24-word sentence has 55,296 weights; words travel once, as labels):

    - "points": d, expected (P·Y(X)), actual (Y(PX)): every output coordinate;
    - "weights": d, heatmap (a name of HEATMAPS), row, col (the query's and the key's places), weight;
    - "labels": heatmap, place, label ("i word": its rows' and columns' words, in its order);
    - "gaps": d, output_gap, vmax (the largest weight of both orders: the heatmaps' shared scale)."""
    parts: dict[str, list[tuple]] = {"points": [], "weights": [], "gaps": []}
    n = len(words)
    row, col = (i.ravel().astype(np.int8) for i in np.meshgrid(np.arange(n), np.arange(n), indexing="ij"))
    for d in dims():
        r = att.shuffle_experiment(words, d, seed=seed, shuffle_seed=shuffle_seed, pe=pe, max_tokens=MAX_TOKENS)
        at_d = np.int16(d)
        parts["points"].append(
            (np.full(r["outputs_expected"].size, at_d), r["outputs_expected"].ravel(), r["outputs_shuffled"].ravel())
        )
        for name, which, _ in HEATMAPS:
            parts["weights"].append(
                (np.full(n * n, at_d), np.full(n * n, name, dtype=object), row, col, r[f"weights_{which}"].ravel())
            )
        vmax = max(float(r["weights_original"].max()), float(r["weights_shuffled"].max()))
        parts["gaps"].append(([d], [r["output_gap"]], [vmax if vmax > 0 else 1.0]))
    tables = {
        table: pd.DataFrame({c: np.concatenate([p[i] for p in parts[table]]) for i, c in enumerate(columns)})
        for table, columns in COLUMNS.items()
    }
    shuffled = r["shuffled"]  # the same at every d
    tables["labels"] = pd.DataFrame(
        [
            (name, place, label)
            for name, _, moved in HEATMAPS
            for place, label in enumerate(token_labels(shuffled if moved else words))
        ],
        columns=["heatmap", "place", "label"],
    )
    return tables
