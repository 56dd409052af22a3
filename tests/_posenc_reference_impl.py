"""Independent reference implementations used by the posenc tests.

Everything here is written from shared/REFERENCE.md (and the papers it cites) with plain Python
`math` and explicit per-element loops, deliberately *not* vectorised and *not* importing posenc,
so that the tests compare posenc against something that shares none of its code.

Notation follows REFERENCE.md: d = dim, pairs j = 0 … d/2−1, base b, θ_j = b^(−2j/d),
λ_j = 2π/θ_j, s = factor, L = original_max_position_embeddings.
"""

from __future__ import annotations

import math

# ----------------------------------------------------------------------------------------------
# Sinusoidal (Vaswani et al. 2017), applied literally to every existing index i (odd d allowed)
# ----------------------------------------------------------------------------------------------


def ref_inverse_frequencies(dim: int, base: float = 10000.0) -> list[float]:
    """θ_j = b^(−2j/d) for j = 0 … dim//2 − 1."""
    return [base ** (-2.0 * j / dim) for j in range(dim // 2)]


def ref_sinusoidal_row(p: float, d: int, base: float = 10000.0, layout: str = "interleaved") -> list[float]:
    """PE(p, i) = sin(p·b^(−2⌊i/2⌋/d)) for even i, cos(…) for odd i (interleaved).

    Concatenated: the ⌈d/2⌉ sin columns (even i, in order) followed by the ⌊d/2⌋ cos columns.
    """
    row = []
    for i in range(d):
        angle = p * base ** (-2.0 * (i // 2) / d)
        row.append(math.sin(angle) if i % 2 == 0 else math.cos(angle))
    if layout == "interleaved":
        return row
    assert layout == "concatenated"
    return [row[i] for i in range(0, d, 2)] + [row[i] for i in range(1, d, 2)]


# ----------------------------------------------------------------------------------------------
# RoPE (Su et al. 2021), one vector at one position, per-pair loop
# ----------------------------------------------------------------------------------------------


def ref_pairs(rotary_dim: int, layout: str) -> list[tuple[int, int]]:
    """Coordinates that rotate together: half → (j, j + r/2); interleaved → (2j, 2j+1)."""
    h = rotary_dim // 2
    if layout == "half":
        return [(j, j + h) for j in range(h)]
    assert layout == "interleaved"
    return [(2 * j, 2 * j + 1) for j in range(h)]


def ref_rope_vector(x, m: float, inv_freq, layout: str = "half", attention_factor: float = 1.0) -> list[float]:
    """Rotate each pair (a, b) of x by angle m·θ_j: (a, b) → (a cos − b sin, a sin + b cos).

    Only the first 2·len(inv_freq) coordinates rotate (partial rotary); the rest pass through.
    cos and sin are multiplied by attention_factor (HF's post-scaling), the tail is not.
    """
    out = [float(v) for v in x]
    for j, (a, b) in enumerate(ref_pairs(2 * len(inv_freq), layout)):
        c = attention_factor * math.cos(m * inv_freq[j])
        s = attention_factor * math.sin(m * inv_freq[j])
        out[a] = x[a] * c - x[b] * s
        out[b] = x[a] * s + x[b] * c
    return out


def ref_permutation(dim: int) -> list[int]:
    """[0, 2, 4, …, 1, 3, 5, …]: interleaved order → half-split order."""
    return list(range(0, dim, 2)) + list(range(1, dim, 2))


# ----------------------------------------------------------------------------------------------
# Context extension, HF `rope_type` semantics as written in REFERENCE.md
# ----------------------------------------------------------------------------------------------


def ref_linear(dim, base, factor):
    return [t / factor for t in ref_inverse_frequencies(dim, base)], 1.0


def ref_ntk(dim, base, factor):
    """NTK-aware (static): base' = b·s^(d/(d−2))."""
    new_base = base * factor ** (dim / (dim - 2))
    return ref_inverse_frequencies(dim, new_base), 1.0


def ref_dynamic_base(dim, base, factor, max_position_embeddings, seq_len):
    """T = max(seq_len, M); base' = b·(s·T/M − (s−1))^(d/(d−2)).  seq_len None → T = M (HF)."""
    t = max_position_embeddings if seq_len is None else max(seq_len, max_position_embeddings)
    return base * (factor * t / max_position_embeddings - (factor - 1)) ** (dim / (dim - 2))


def ref_dynamic(dim, base, factor, max_position_embeddings, seq_len):
    return ref_inverse_frequencies(dim, ref_dynamic_base(dim, base, factor, max_position_embeddings, seq_len)), 1.0


def ref_yarn_correction_dim(r, dim, base, L):
    """cd(r) = d·ln(L/(2πr)) / (2·ln b)."""
    return dim * math.log(L / (2 * math.pi * r)) / (2 * math.log(base))


def ref_yarn_correction_range(dim, base, L, beta_fast=32, beta_slow=1, truncate=True):
    low = ref_yarn_correction_dim(beta_fast, dim, base, L)
    high = ref_yarn_correction_dim(beta_slow, dim, base, L)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def ref_yarn_get_mscale(scale, mscale=1.0):
    """g(s, m) = 1 if s ≤ 1 else 0.1·m·ln s + 1."""
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def ref_yarn(
    dim,
    base,
    factor,
    L,
    *,
    beta_fast=32,
    beta_slow=1,
    truncate=True,
    mscale=None,
    mscale_all_dim=None,
    attention_factor=None,
):
    low, high = ref_yarn_correction_range(dim, base, L, beta_fast, beta_slow, truncate)
    if low == high:
        high += 0.001
    inv = []
    for j, theta in enumerate(ref_inverse_frequencies(dim, base)):
        ramp = min(max((j - low) / (high - low), 0.0), 1.0)
        inv.append((theta / factor) * ramp + theta * (1 - ramp))
    if attention_factor is not None:
        af = attention_factor
    elif mscale and mscale_all_dim:
        af = ref_yarn_get_mscale(factor, mscale) / ref_yarn_get_mscale(factor, mscale_all_dim)
    else:
        af = ref_yarn_get_mscale(factor)
    return inv, af


def ref_llama3(dim, base, factor, low_freq_factor, high_freq_factor, L):
    """Returns (inv_freq, attention_factor, bands) with bands in {"kept", "smoothed", "divided"}."""
    lam_lo = L / low_freq_factor
    lam_hi = L / high_freq_factor
    inv, bands = [], []
    for theta in ref_inverse_frequencies(dim, base):
        lam = 2 * math.pi / theta
        # HF's order: "wavelen > low_freq_wavelen" is decided first (it matters when high <= low)
        if lam > lam_lo:
            inv.append(theta / factor)
            bands.append("divided")
        elif lam < lam_hi:
            inv.append(theta)
            bands.append("kept")
        else:
            sm = (L / lam - low_freq_factor) / (high_freq_factor - low_freq_factor)
            inv.append((1 - sm) * theta / factor + sm * theta)
            bands.append("smoothed")
    return inv, 1.0, bands


def ref_longrope(dim, base, factor, L, short_factor, long_factor, seq_len, attention_factor=None):
    """ext = long if seq_len > L else short; inv_j = 1/(ext_j·b^(2j/d)); af = √(1 + ln s / ln L)."""
    ext = long_factor if (seq_len is not None and seq_len > L) else short_factor
    inv = [1.0 / (ext[j] * base ** (2.0 * j / dim)) for j in range(dim // 2)]
    if attention_factor is not None:
        af = attention_factor
    elif factor <= 1:
        af = 1.0
    else:
        af = math.sqrt(1 + math.log(factor) / math.log(L))
    return inv, af


# ----------------------------------------------------------------------------------------------
# Relative-position helpers
# ----------------------------------------------------------------------------------------------


def ref_rope_decay_bound(r, dim, base=10000.0):
    """RoFormer §3.4.3: (1/(d/2))·Σ_{j=1}^{d/2} |S_j|, S_j = Σ_{i<j} e^{i·r·θ_i}."""
    thetas = ref_inverse_frequencies(dim, base)
    total = 0.0
    for j in range(1, dim // 2 + 1):
        re = sum(math.cos(r * thetas[i]) for i in range(j))
        im = sum(math.sin(r * thetas[i]) for i in range(j))
        total += math.hypot(re, im)
    return total / (dim // 2)


def ref_alibi_slopes(n):
    """Verbatim from ofirpress/attention_with_linear_biases (Press et al. 2022)."""

    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    if math.log2(n).is_integer():
        return get_slopes_power_of_2(n)
    closest_power_of_2 = 2 ** math.floor(math.log2(n))
    return (
        get_slopes_power_of_2(closest_power_of_2)
        + ref_alibi_slopes(2 * closest_power_of_2)[0::2][: n - closest_power_of_2]
    )
