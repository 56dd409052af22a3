"""How much phase RoPE loses when its angles are computed in low precision.

The angle m·θ_j grows without bound with the position m, while a float keeps a fixed number of
significant bits: at float16 the spacing between representable numbers near 2000 is 1 radian, so
cos(m·θ_j) can be off by order one. The model here: positions and θ are cast to the dtype, the
product is rounded to the dtype, and cos/sin are evaluated and rounded in the dtype, as a cos/sin
cache built in that dtype would be. bfloat16 is computed with torch (imported on demand).
"""

from __future__ import annotations

import numpy as np

from . import _validate as v

DTYPES = ("float64", "float32", "float16", "bfloat16")


def cos_sin(positions, inv_freq, *, dtype="float32") -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of m·θ_j computed at ``dtype``, returned as float64 arrays (len(positions), len(inv_freq))."""
    pos = v.positions_array("positions", positions)
    inv = v.float_array("inv_freq", inv_freq, ndim=1)
    dtype = v.choice("dtype", dtype, DTYPES)
    if dtype == "bfloat16":
        import torch  # lazy: only this precision needs it

        p = torch.tensor(pos, dtype=torch.float64).to(torch.bfloat16)
        t = torch.tensor(inv, dtype=torch.float64).to(torch.bfloat16)
        ang = torch.outer(p, t)  # product rounded to bfloat16
        return ang.cos().double().numpy(), ang.sin().double().numpy()
    np_dtype = np.dtype(dtype)
    limit = float(np.finfo(np_dtype).max)
    if np.max(np.abs(pos)) > limit:
        raise ValueError(
            f"positions must be within ±{limit:g} to be representable in {dtype}, got {np.max(np.abs(pos)):g}"
        )
    ang = np.multiply.outer(pos.astype(np_dtype), inv.astype(np_dtype))  # rounded in dtype
    return np.cos(ang).astype(np.float64), np.sin(ang).astype(np.float64)


def phase_error(positions, inv_freq, *, dtype="float32") -> np.ndarray:
    """Per position, the largest |cos − cos_exact| or |sin − sin_exact| over all pairs (exact = float64)."""
    pos = v.positions_array("positions", positions)
    inv = v.float_array("inv_freq", inv_freq, ndim=1)
    c, s = cos_sin(pos, inv, dtype=dtype)
    exact = np.multiply.outer(pos, inv)
    err = np.maximum(np.abs(c - np.cos(exact)), np.abs(s - np.sin(exact)))
    return err.max(axis=1)
