"""What the Sinusoidal heatmap page (pages/1_Sinusoidal_heatmap.py) computes: cached calls into posenc."""

import numpy as np

import posenc
from explorer.charts.sinusoidal import overview_blocks
from explorer.layout import cached


@cached(max_entries=8)
def overview(seq_len: int, d_model: int, base: float, layout: str):
    """(values, rows, pair_block): the whole table, averaged over blocks of positions and of pairs where it
    has more cells than the chart (explorer.charts.sinusoidal.overview_blocks); exact otherwise."""
    rows, pair_block = overview_blocks(seq_len, d_model)
    if rows == seq_len and pair_block == 1:
        return posenc.sinusoidal_encoding(np.arange(seq_len), d_model, base=base, layout=layout), rows, pair_block
    values = posenc.block_mean_encoding(seq_len, d_model, rows=rows, base=base, layout=layout, pair_block=pair_block)
    return values, rows, pair_block


@cached(max_entries=16)
def window_rows(p0: int, n: int, d_model: int, base: float, layout: str):
    """Exact rows PE(p0 … p0+n−1), all d_model columns. (n, d)"""
    return posenc.sinusoidal_encoding(np.arange(p0, p0 + n), d_model, base=base, layout=layout)


@cached(max_entries=8)
def first_n_matrices(n: int, d_model: int, base: float):
    """Similarity and distance of positions 0 … n−1 (both independent of the column layout), and the
    largest spread along a diagonal of the similarity."""
    pe = posenc.sinusoidal_encoding(np.arange(n), d_model, base=base)
    sim = posenc.similarity_matrix(pe)
    return sim, posenc.distance_matrix(pe), posenc.toeplitz_deviation(sim)


@cached(max_entries=8)
def offset_distances(seq_len: int, d_model: int, base: float):
    """(k, ‖PE(p) − PE(p + k)‖) for k = 1 … seq_len − 1."""
    k = np.arange(1, seq_len)
    return k, posenc.distance_by_offset(k, d_model, base=base)


def closest(seq_len: int, d_model: int, base: float) -> tuple[int, float] | None:
    """(k, distance) of the closest two distinct positions among the first seq_len (None for fewer than two)."""
    if seq_len < 2:
        return None
    k, dist = offset_distances(seq_len, d_model, base)
    i = int(np.argmin(dist))
    return int(k[i]), float(dist[i])
