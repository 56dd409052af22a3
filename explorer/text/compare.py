"""The sentences of "Compare methods" (pages/8_Compare_methods.py): the summary table, whose every
cell states a verdict and the number behind it, the captions and the notices.

Input everywhere is :func:`posenc.attention.method_checks` results (one per method), computed with
the page's current settings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: A deviation below RELATIVE_TOL·max(1, |score|) is rounding error.
RELATIVE_TOL = 1e-9

METHOD_LABELS = {
    "sinusoidal": "Sinusoidal",
    "learned": "Learned absolute",
    "rope": "RoPE",
    "alibi": "ALiBi",
    "nope": "NoPE (none)",
}

COLUMNS = (
    "Method",
    "Relative? (score depends only on m − n)",
    "Sees word order? (shuffle gap)",
    "Runs beyond the trained length L?",
    "Parameters",
    "Injects position where?",
)

INTRO = (
    "Five ways to tell attention where tokens are, tested on the same seeded query and key. "
    "Each cell below is a check run just now with these settings: the tick or cross comes with "
    "the number that decided it. Change d, L or the seed and the checks run again."
)


def fmt(x: float) -> str:
    """Short number: exact 0 as "0", tiny values in e-notation, others with 3 significant digits."""
    x = float(x)
    return "0" if x == 0 else f"{x:.0e}" if abs(x) < 1e-3 else f"{x:.3g}"


def relative_cell(check: dict) -> str:
    """✓/✗ from the shift test s(m, n) vs s(m+t, n+t), with its max deviation."""
    if check["method"] == "nope":
        return (
            f"— no position signal: the score is the same at every (m, n) "
            f"(spread {fmt(check['score_spread'])}), so trivially relative"
        )
    dev = check["shift_deviation"]
    mark = "✓" if dev < RELATIVE_TOL * max(1.0, check["score_scale"]) else "✗"
    cell = f"{mark} max dev {fmt(dev)} (shift by {check['shift_offset']})"
    if check.get("bias_toeplitz_deviation") is not None:
        cell += f"; bias −slope·|m−n| constant along diagonals (dev {fmt(check['bias_toeplitz_deviation'])})"
    return cell


def order_cell(check: dict) -> str:
    gap = check["permutation_gap"]
    return f"✗ gap {fmt(gap)}: blind to word order" if gap < RELATIVE_TOL else f"✓ gap {fmt(gap)}"


def extrapolation_cell(check: dict, *, test_len: int, trained_len: int) -> str:
    """✓ when scoring keys at 0 … T−1 worked; ✗ with the reason in plain words when it raised
    (the raw ValueError text is in `check["extrapolation_error"]` and the Python snippet)."""
    if check["extrapolation_error"] is not None:
        if check["method"] == "learned":
            return (
                f"✗ a learned table has no row for positions ≥ L = {trained_len}, "
                f"so position {test_len - 1} cannot be scored"
            )
        return f"✗ could not score positions up to {test_len - 1}"
    peak = float(np.max(np.abs(check["scores"])))
    return f"✓ scores finite up to position {test_len - 1} (max |s| {fmt(peak)})"


def parameters_cell(check: dict, *, trained_len: int, dim: int) -> str:
    p = check["parameters"]
    if p == 0:
        return "0 (fixed slopes)" if check["method"] == "alibi" else "0 (fixed formula)"
    return f"{p:,} = L·d = {trained_len}·{dim}"


def injects_cell(check: dict) -> str:
    """Where position enters, read off which quantities change when a token moves by t."""
    f, t, tol = check["footprint"], check["shift_offset"], RELATIVE_TOL
    if f["input"] > tol:
        return f"added to the input vector (moving {t} places: Δx {fmt(f['input'])}, so q, k, v all change)"
    if f["query"] > tol or f["key"] > tol:
        return f"rotates q and k (moving {t} places: Δq {fmt(f['query'])}, Δk {fmt(f['key'])}, Δv {fmt(f['value'])})"
    if f["bias"] > tol:
        return f"bias on the attention logits (moving {t} places: bias Δ {fmt(f['bias'])}; Δq = Δk = Δv = 0)"
    return "nowhere (moving a token changes nothing)"


def summary_table(checks: list[dict], *, trained_len: int, test_len: int, dim: int) -> pd.DataFrame:
    """One row per method, columns `COLUMNS`; every cell states its verdict and its number."""
    rows = [
        [
            METHOD_LABELS[c["method"]],
            relative_cell(c),
            order_cell(c),
            extrapolation_cell(c, test_len=test_len, trained_len=trained_len),
            parameters_cell(c, trained_len=trained_len, dim=dim),
            injects_cell(c),
        ]
        for c in checks
    ]
    return pd.DataFrame(rows, columns=list(COLUMNS))


def shift_caption(check: dict) -> str:
    """What the table's first column tests: positions 0 … n−1 shifted by t (any method's check)."""
    n, t = check["shift_positions"], check["shift_offset"]
    return (
        f"Relative means s(m + t, n + t) = s(m, n) for every m, n, t. The shift test measures the largest "
        f"violation over m, n < {n} with t = {t} (= L − {n}, so the learned table still has rows)."
    )


def settings_caption(*, dim, trained_len, test_len, base, seed, alibi_head, slope: float, heads: int) -> str:
    """The page's settings, ALiBi head `alibi_head`'s slope among its `heads`, and what the checks mean."""
    return (
        f"d = {dim}, L = {trained_len}, T = {test_len}, base {base:,.0f}, seed {seed}, ALiBi slope "
        f"{slope:g} (head {alibi_head} of {heads}). Tolerance: {RELATIVE_TOL:g} × the "
        "score scale. Shuffle gap = max |A(PX) − P·A(X)·Pᵀ| for 8 seeded tokens. “Runs” means the "
        "numbers can be computed; whether a model trained at L still works there is another question."
    )


def notices(checks: list[dict]) -> list[str]:
    """The "What to notice" list; the first names the methods carrying position whose shift test passes."""
    passing = [METHOD_LABELS[c["method"]] for c in checks if c["method"] != "nope" and relative_cell(c).startswith("✓")]
    return [
        (
            f"Of the methods that carry position, {' and '.join(f'**{p}**' for p in passing)} pass the shift test "
            "here: their score depends on m − n alone (deviation at rounding level). "
            if passing
            else "No method that carries position passes the shift test with these settings. "
        )
        + "Added encodings also mix position with content (x·p cross terms), so their score depends on where "
        "the pair sits.",
        "**Learned** is the only method with parameters (L·d) and the only one that cannot even be "
        "evaluated past L: the table has no row there.",
        "**NoPE** passes the shift test for the wrong reason: its scores never change, and the shuffle gap is "
        "rounding error. That holds without a causal mask, as in this test; a decoder's causal mask already breaks "
        "the symmetry (a token sees how many came before it), which is how trained NoPE decoders can still use order.",
        "Computing beyond L is not the same as working beyond L: RoPE models usually need "
        "frequency scaling to stretch (see *Context extension*); ALiBi was designed to extrapolate.",
        "A test met in tutorials: the cosine similarity of PE(p + k) − PE(p) across p. It cannot tell a "
        "relative encoding from one that is not; the shift test above compares the scores themselves.",
    ]


#: The score chart's title and subtitle: true at every setting (NoPE's score has no position in it; ALiBi's
#: falls by its slope per position; the learned table has L rows).
CHART_TITLE = "How the score of one fixed query–key pair changes with distance"
CHART_SUBTITLE = (
    "Learned stops at L (no table rows beyond it); ALiBi falls in a straight line; NoPE is flat; RoPE and "
    "sinusoidal wiggle."
)


def head_slope_labels(slopes) -> list[str]:
    """The second line of the ALiBi panel's name for each head h = 1, 2, … (`slopes`, one per head): "head h: slope
    1/k = x", the slope as the power of two it is where it is one (every head of ALiBi's 8), else as a decimal."""
    out = []
    for h, s in enumerate(slopes, start=1):
        s = float(s)
        inverse = 1 / s if s > 0 else 0.0
        exact = s > 0 and inverse.is_integer() and 1 / inverse == s
        out.append(f"head {h}: slope 1/{inverse:.0f} = {s:g}" if exact else f"head {h}: slope {s:.4g}")
    return out


def trained_label_expr(train_len: str) -> str:
    """The label beside the chart's rule at L, as a Vega expression of `train_len` (the expression for L:
    the chart's own slider moves it)."""
    return f"'trained length L = ' + format({train_len}, ',d')"
