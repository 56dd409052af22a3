"""What the Frequency clock hands page (pages/2_Clock_hands.py) computes: cached calls into posenc."""

from __future__ import annotations

import posenc
from explorer.layout import cached


@cached(max_entries=16)
def frequencies(d_model: int, base: float):
    """(θ_j, λ_j) for every pair."""
    return posenc.inverse_frequencies(d_model, base=base), posenc.wavelengths(d_model, base=base)


@cached(max_entries=32)
def hands_at(p: int, d_model: int, base: float):
    """Angle p·θ_j, sin and cos of every pair at position p."""
    theta = posenc.inverse_frequencies(d_model, base=base)
    angle = posenc.rope_angles([p], theta)[0]  # (d/2,)
    row = posenc.sinusoidal_encoding([p], d_model, base=base, layout="interleaved")[0]  # (d,)
    return angle, row[0::2], row[1::2]
