"""What the RoPE rotation page (pages/3_RoPE_rotation.py) computes, cached: one pair's rotation and
the whole head's d×d matrix, calling posenc."""

from __future__ import annotations

import numpy as np

import posenc
from explorer.layout import cached
from explorer.widgets import get


def pair_vector(mode: str, a: float, b: float) -> np.ndarray:
    """q's or k's pair as its two numbers in `mode` (the live plane's sliders): x and y, or ("polar") degrees and
    length."""
    return posenc.polar_to_xy(a, b, degrees=True) if mode == "polar" else np.array([a, b], dtype=np.float64)


def default_vector(name: str) -> np.ndarray:
    """q's or k's default pair, from the registry's defaults of its x and y sliders."""
    return np.array([get(f"{name}x").default, get(f"{name}y").default], dtype=np.float64)


@cached(max_entries=64)
def plane_numbers(q: np.ndarray, k: np.ndarray, m: int, n: int, theta: float, traj_m: int) -> dict:
    """Pair j's q and k rotated to m and n, q's trajectory over 0 … traj_m, the angles and both scores
    (the data of `explorer.charts.rope.plane_frames`)."""
    pos_traj = np.arange(traj_m + 1, dtype=np.float64)
    return {
        "q_rot": posenc.apply_rope(q[None, :], [m], inv_freq=[theta])[0],
        "k_rot": posenc.apply_rope(k[None, :], [n], inv_freq=[theta])[0],
        "trajectory": posenc.apply_rope(np.tile(q, (pos_traj.size, 1)), pos_traj, inv_freq=[theta]),
        "angles": posenc.pair_angles(q, k, m, n, theta),
        "score": float(posenc.rope_score_matrix(q, k, [m], [n], inv_freq=[theta])[0, 0]),
        "score_rel": float(posenc.rope_score_matrix(q, k, [0], [n - m], inv_freq=[theta])[0, 0]),
        "rotation": posenc.rotation_2x2(m * theta),
        "turn": float(posenc.wrap_angle(m * theta)),  # q's turn m·θ, modulo full turns
    }


@cached(max_entries=16)
def full_matrix(m: int, head_dim: int, base: float, layout: str) -> tuple[np.ndarray, np.ndarray]:
    """R_m for the whole head (d×d) and the pairs' coordinates (d/2, 2) in `layout`."""
    return posenc.rope_matrix(m, head_dim, base=base, layout=layout), posenc.pair_indices(head_dim, layout=layout)
