"""What the explorer calls each RoPE scaling method and how it sums one up for a reader: page text,
kept out of `posenc.methods` (whose declarations hold the maths only, issue #38).

`label(name)` and `summary(name)` answer for every method `posenc.ROPE_METHODS` declares; a method
declared without text here (a new one, before its words are written) is shown by its rope_type and
has no summary, and tests/test_text_methods.py fails until it has both.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

#: rope_type -> (the name shown on pages, one sentence true for every value of its keys).
TEXT: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "default": (
            "Extrapolation (no scaling)",
            "Plain RoPE: every pair keeps its trained frequency θ_j = b^(−2j/d) at every length, with attention factor 1.",
        ),
        "linear": (
            "Linear (Position Interpolation)",
            "Position Interpolation: every frequency is divided by s, which is the same as dividing every position by s; attention factor 1.",
        ),
        "ntk": (
            "NTK-aware (static)",
            "Static NTK-aware scaling: the base becomes b·s^(d/(d−2)), which keeps the fastest pair and, for d > 2, divides the slowest pair's frequency by exactly s; attention factor 1 (HF transformers has no rope_type 'ntk': a config writes it as rope_type 'default' with that base as rope_theta).",
        ),
        "dynamic": (
            "Dynamic NTK",
            "Dynamic NTK: the base grows with the current length T as b·(s·T/L − (s − 1))^(d/(d−2)) with L = max_position_embeddings, so nothing changes up to L; attention factor 1.",
        ),
        "yarn": (
            "YaRN",
            "YaRN: pairs that turn more than beta_fast times over L keep their frequency, pairs that turn fewer than beta_slow times are divided by s, those between are blended linearly in j, and cos and sin are multiplied by an attention factor (by default 0.1·ln s + 1 for s > 1).",
        ),
        "llama3": (
            "Llama 3.1",
            "Llama 3.1: pairs whose wavelength is shorter than L/high_freq_factor keep their frequency, those longer than L/low_freq_factor are divided by s, and those between are blended by wavelength; attention factor 1.",
        ),
        "longrope": (
            "LongRoPE (Phi-3)",
            "LongRoPE: each pair's frequency is divided by its own factor, from short_factor while the sequence is at most L and from long_factor beyond it, and cos and sin are multiplied by an attention factor (by default √(1 + ln s / ln L) for s > 1).",
        ),
        "proportional": (
            "Proportional (p-RoPE)",
            "Proportional RoPE: the first ⌊p·d/2⌋ pairs keep θ_j = b^(−2j/d) computed with the whole head size d in the exponent, divided by s; the other pairs get frequency 0 and carry no position; attention factor 1.",
        ),
    }
)


def label(name: str) -> str:
    """The method's name on screen ("YaRN"); its rope_type when it has no text yet."""
    return TEXT[name][0] if name in TEXT else name


def summary(name: str) -> str | None:
    """One sentence on what the method does, true for every value of its keys; None without text."""
    return TEXT[name][1] if name in TEXT else None
