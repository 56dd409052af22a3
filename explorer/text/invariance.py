"""The sentences of the Relative-position invariance page (pages/4_Relative_invariance.py), from the
numbers it computed (explorer.compute.invariance). Pure: values in, markdown out, author-written words
only (a message from the user's text arrives escaped).

``report`` is posenc.shift_test_report's dict at the page's t with ``spreads`` (compute.shift_test).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from explorer.text import join_names

INTRO = (
    "A score that only cares about *how far apart* two tokens are must not change when both move "
    "by the same amount. RoPE has this built in: rotating q by m and k by n leaves exactly the "
    "rotation by n − m between them. Adding a position vector to the input instead mixes absolute "
    "positions into the score, and shifting both tokens changes it. Below, the same q and k go "
    "through all three encodings and the shift test measures the difference."
)
FORMULA_CAPTION = "R_mᵀR_n = R_(n−m) because rotations by the same frequencies compose by adding angles."


#: The shift test chart's sliders, by parameter: their names beside them in the chart and in the page's words.
SLIDER_NAMES = {
    "seq_len": "positions N",
    "head_dim": "head dim d",
    "base": "base b",
    "shift_t": "shift t",
    "table_len": "learned table rows",
}
#: Where the test's other controls are (N, d, b, t and the learned table's rows are the chart's own sliders:
#: `slider_caption`).
SIDEBAR = "q and k, the precision and the sinusoid's layout are in the sidebar (› at the top left)."

LOOK_CLOSER = (
    "Behind the test: the score matrices themselves (Scores), the sinusoid's own shift matrix "
    "(Sinusoid shift), and how the bound on RoPE's scores changes with distance (Decay)."
)
#: The heatmaps of the Scores tab: (score matrix, title, its name in a sentence).
HEATMAPS = (
    ("rope", "RoPE", "RoPE"),
    ("sinusoidal", "sinusoidal PE added", "the added sinusoid"),
    ("learned", "learned table added", "the added learned table"),
)
WHY_ADDITIVE_FAILS = (
    "**Why the additive encodings fail.** Expand the score with the encoding added before the projections:"
)
#: The four terms of an additive encoding's score.
ADDITIVE_LATEX = (
    r"s(m,n) = \underbrace{x_q W_q W_k^\top x_k^\top}_{\text{content}}"
    r" + \underbrace{x_q W_q W_k^\top PE_n^\top}_{\text{depends on } n \text{ alone}}"
    r" + \underbrace{PE_m W_q W_k^\top x_k^\top}_{\text{depends on } m \text{ alone}}"
    r" + \underbrace{PE_m W_q W_k^\top PE_n^\top}_{\text{not a function of } n-m \text{ in general}}"
)
#: The decay bound "shrinks" when its largest value over the last decade of distances is at most
#: this fraction of its value at the first distance; otherwise it only ripples.
DECAY_FALL = 0.9


def typed_dim(d: int) -> str:
    return f"head dim d = {d}, from the typed vectors"


def typed_fallback(message: str, d: int) -> str:
    """Why the typed vectors are not used (`message` escaped by the page) and what is shown instead."""
    return f"Could not use the typed vectors: {message}. Showing seeded random vectors (d = {d}) instead."


def shift_test_intro(n_pos: int, dtype: str) -> str:
    return (
        f"For every pair of positions m, n < {n_pos}, compare the score with the score at m + t, n + t, and "
        f"keep the largest difference. The dashed pass mark is what {dtype} round-off can explain for these q, k "
        "and positions up to P = N − 1 + t: ε·‖q‖‖k‖·(4P + 2d + 8)."
    )


def slider_caption(spans: Mapping[str, tuple[int, int]], full: Mapping[str, tuple[int, int]]) -> str:
    """How to use the chart's sliders: `spans` is where each reaches now, by parameter (seq_len, head_dim: none for
    typed vectors, base, shift_t, table_len), `full` the most each could reach."""
    names = SLIDER_NAMES
    parts = [f"**{names[key]}** ({lo:,.0f} … {hi:,.0f})" for key, (lo, hi) in spans.items()]
    listed = ", ".join(parts[:-1]) + f" or {parts[-1]}"
    short = [names[key] for key, span in spans.items() if tuple(span) != tuple(full.get(key, span))]
    tail = ""
    if short:
        which = short[0] if len(short) == 1 else ", ".join(short[:-1]) + " and " + short[-1]
        tail = (
            f" The chart holds a bounded amount of work, so {which} "
            f"{'stops' if len(short) == 1 else 'stop'} short of the full range; letting go re-centres "
            f"{'it' if len(short) == 1 else 'them'} on the new values."
        )
    return (
        f"Drag {listed} above the chart (or focus one and press ← →): the chart follows in your browser at once; "
        f"when you let go, the numbers below, the tabs and the link follow.{tail}"
    )


def at_t(t: int) -> str:
    return f"**At t = {t}** (these numbers follow the slider when you let go):"


def verdict_badge(dev: float | None, tol: float) -> str:
    """Markdown badge for a shift deviation against the pass mark (author-written text only)."""
    if dev is None:
        return ":gray-badge[cannot run: no row]"
    return ":green-badge[PASS]" if dev <= tol else ":red-badge[FAIL]"


def metrics(report: dict, dtype: str) -> list[tuple[str, str, str, str | None]]:
    """The four metrics under the shift test's chart: (label, value, help, badge or None)."""
    tol, learned = report["tolerance"], report["learned_dev"]
    shown = [
        (f"RoPE ({dtype})", report["rope_dev"], "max |s(m, n) − s(m+t, n+t)|, RoPE scores."),
        ("sinusoidal, added", report["sinusoidal_dev"], "((q + PE_m) W_q)·((k + PE_n) W_k), float64."),
        (
            "learned table, added",
            learned,
            "The table ends before position N − 1 + t."
            if learned is None
            else "((q + P[m]) W_q)·((k + P[n]) W_k) with a seeded table P, float64.",
        ),
    ]
    return [
        (label, "no row" if dev is None else f"{dev:.2e}", why, verdict_badge(dev, tol)) for label, dev, why in shown
    ] + [("pass mark", f"{tol:.1e}", f"ε({dtype}) · ‖q‖ · ‖k‖ · (4P + 2d + 8), P = N − 1 + t.", None)]


def learned_error(message: str, t: int | None = None) -> str:
    """posenc's reason the learned table could not run (at shift t, or for the heatmap when None)."""
    return f"Learned table{'' if t is None else f' at t = {t}'}: {message}."


def additive_explanation(table_len: int) -> str:
    return (
        "The two cross terms see one absolute position each: moving n to n + t changes x·W·PE_n "
        "whatever m is. Even the last term is a function of n − m only if W_q W_kᵀ commutes with "
        "every shift R_k — random (or trained) projections do not. The learned table has the same "
        f"four terms, and worse: it has rows 0 … {table_len - 1} only, so a shifted position past "
        "the end is an error, not a guess."
    )


def shift_caption(t: int) -> str:
    return (
        f"Here k is the shift t, {t} (it follows the slider when you let go). "
        "A fixed matrix R_k moves every sinusoidal encoding k steps along, so a model *could* learn "
        "relative offsets from it. But in the shift test the encoding is added to the content and "
        "projected by W_q, W_k, and nothing forces the network to use R_k: absolute position stays "
        "in the numbers."
    )


def residual_titles(t: int, dtype: str, largest: float) -> tuple[str, str]:
    """The residual chart's (title, subtitle): R_k's shift at t and the largest residual left."""
    return f"PE(p + {t}) = R_k·PE(p) for every p", f"what is left is {dtype} round-off (max {largest:.1e})"


def decay_subtitle(d: int, base: float) -> str:
    return f"RoFormer §3.4.3: (1/(d/2))·Σ_j |Σ_(i<j) e^(i·r·θ_i)|, d = {d}, base = {base:g}"


def decay_summary(distance, bound) -> tuple[str, str]:
    """(chart title, sentence) saying what the decay bound over `distance` does, with its numbers:
    flat (the same value everywhere: one pair), shrinking (the last decade of distances stays at
    or below DECAY_FALL of the first value) or rippling without a clear fall."""
    r = np.asarray(distance, dtype=float)
    y = np.asarray(bound, dtype=float)
    if r.ndim != 1 or r.shape != y.shape or r.size < 2:
        raise ValueError(f"distance and bound must be 1-D of one length ≥ 2, got shapes {r.shape} and {y.shape}")
    first, r0 = float(y[0]), float(r[0])
    tail = r >= r.max() / 10
    far, far_r = float(y[tail].max()), float(r[tail][0])
    if float(y.max() - y.min()) <= 1e-9 * max(abs(first), 1.0):
        return (
            f"RoPE's score bound is flat: {first:.3g} at every distance",
            f"it is {first:.3g} at every distance and does not fall (a single pair: |e^(i·r·θ_0)| = 1)",
        )
    if far <= DECAY_FALL * first:
        return (
            f"RoPE's score bound shrinks with distance: {first:.3g} at r = {r0:g}, "
            f"at most {far:.3g} beyond r = {far_r:,.0f}",
            f"it falls from {first:.3g} at distance {r0:g} to at most {far:.3g} beyond distance {far_r:,.0f}, "
            "so far-apart tokens get a smaller possible score",
        )
    return (
        f"RoPE's score bound ripples without a clear fall: still {far:.3g} beyond r = {far_r:,.0f} "
        f"({first:.3g} at r = {r0:g})",
        f"it ripples without a clear fall: beyond distance {far_r:,.0f} it still reaches {far:.3g} "
        f"({first:.3g} at distance {r0:g})",
    )


def survivors_title(nums: dict, tol: float) -> str:
    """The shift test chart's headline, from the verdicts (`nums`: rope_dev, sinusoidal_dev,
    learned_dev; None for a method that could not run)."""
    names = {"rope_dev": "RoPE's", "sinusoidal_dev": "the added sinusoid's", "learned_dev": "the learned table's"}
    passed = [name for key, name in names.items() if nums[key] is not None and nums[key] <= tol]
    if not passed:
        return "No method's scores survive the shift"
    if passed == ["RoPE's"]:
        return "Only RoPE's scores survive the shift"
    words = join_names(passed)
    return f"{words[0].upper()}{words[1:]} scores survive the shift"


def shift_chart_description(dtype: str, typed_d: int | None) -> str:
    """The shift test chart's description: RoPE's precision `dtype`, and the head dim where typed vectors fix it
    (`typed_d`; None where d is a slider). N, d, b, t and the table's rows are left out: the sliders above the chart show them, and a
    drag would leave them stale."""
    dim = (
        f"with the typed vectors' head dim d = {typed_d}"
        if typed_d is not None
        else "with seeded vectors of head dim d (the slider d above)"
    )
    sliders = (
        "N, b, t and the learned table's rows" if typed_d is not None else "N, d, b, t and the learned table's rows"
    )
    return (
        f"The shift test for RoPE ({dtype}), an added sinusoid and an added learned table over the first N "
        f"positions (the slider N above), {dim}: one bar per encoding, the largest change of a score when both "
        f"tokens move by t, on a log axis, against a dashed pass mark (the learned table has no bar where N − 1 + t "
        f"is past its last row); the sliders {sliders} above the chart move the bars, and the headline names the "
        "encodings whose scores survive the shift."
    )


def diagonal_words(spread: float | None, tol: float, n_pos: int) -> str:
    """A heatmap's subtitle, from the largest change along its diagonals."""
    if n_pos == 1:
        return "one cell: no diagonal to compare"
    if spread is None:
        return ""
    return "constant diagonals" if spread <= tol else f"diagonals drift (by up to {spread:.2g})"


def diagonal_sentence(spreads: dict, tol: float, n_pos: int) -> str:
    """Which heatmaps have one colour per diagonal (`spreads`: score matrix -> largest change along a
    diagonal, None when it could not be drawn)."""
    if n_pos == 1:
        return "With N = 1 the heatmaps (tab **Scores**) have one cell each: there is no diagonal to compare."
    shown = {name: spreads[key] for key, _, name in HEATMAPS if spreads[key] is not None}
    const = [name for name, spread in shown.items() if spread <= tol]
    drift = [name for name, spread in shown.items() if spread > tol]
    parts = []
    if const:
        parts.append(f"{join_names(const)}: every diagonal (fixed n − m) has one colour, to within the pass mark")
    if drift:
        worst = max(shown[name] for name in drift)
        parts.append(f"{join_names(drift)}: the colour drifts along the diagonals (by up to {worst:.2g})")
    return "In the heatmaps (tab **Scores**), " + "; ".join(parts) + "."


def learned_sentence(has_row: bool, *, n_pos: int, t: int, t_reach: int, table_len: int) -> str:
    """The notice on the learned table at shift `t`: whether it had rows for the test there, and if
    it had, from which t on it has none, or that no t the slider reaches (1 … `t_reach`) runs past it."""
    needed = n_pos - 1 + t  # the largest position the test looks up
    if not has_row:
        return (
            f"At t = {t} the learned table has no row for every position the test needs: it has rows 0 … "
            f"{table_len - 1}, the test needs up to N − 1 + t = {needed}. It does not degrade gracefully, it "
            "cannot be looked up at all."
        )
    first = table_len - n_pos + 1  # the first t for which N − 1 + t is past the table's last row
    if first <= t_reach:
        return (
            f"Push t to {first} or more and N − 1 + t passes the learned table's last row ({table_len - 1}): "
            "the learned encoding does not degrade gracefully, it has no row to look up."
        )
    return (
        f"The learned table's rows 0 … {table_len - 1} cover N − 1 + t for every t the slider reaches (up to "
        f"{t_reach}); with fewer rows (sidebar) the shifted positions run past its end, and the learned "
        "encoding, which does not degrade gracefully, has no row to look up."
    )


def notices(
    report: dict, *, n_pos: int, t: int, t_reach: int, table_len: int, dtype: str, d: int, base: float, decay: str
) -> list[str]:
    """The page's "What to notice" list; `decay` is decay_summary's sentence."""
    tol, rope, sinusoid = report["tolerance"], report["rope_dev"], report["sinusoidal_dev"]
    if rope <= tol:
        round_off = f"is round-off, under the pass mark {tol:.1e} that scales with {dtype}'s machine epsilon"
    else:
        round_off = f"is above the pass mark {tol:.1e}: {dtype}'s round-off at these positions is larger than the bound allows for"
    if sinusoid > tol:
        linear = (
            f"yet at t = {t} the added sinusoid's score changes by {sinusoid:.1e} under the "
            "shift: being linearly shiftable is not the same as being relative."
        )
    else:
        linear = f"and at t = {t} the added sinusoid's score also stays within the pass mark ({sinusoid:.1e})."
    return [
        diagonal_sentence(report["spreads"], tol, n_pos),
        f"At t = {t}, RoPE's shift deviation ({rope:.1e} in {dtype}) {round_off}; "
        f"the added sinusoid's is {sinusoid:.1e}.",
        learned_sentence(report["learned_dev"] is not None, n_pos=n_pos, t=t, t_reach=t_reach, table_len=table_len),
        "The sinusoidal shift matrix R_k (tab **Sinusoid shift**) is exact to round-off for every p, " + linear,
        "The decay bound (tab **Decay**) bounds RoPE's score at each distance, up to a constant set by q and k; "
        f"here (d = {d}, base {base:g}) {decay}.",
    ]


#: A bar's label where the learned table has no row for the shift (the deviation is not a number).
NO_ROW = "no row: the table is too short"


def table_name_expr(label: str, last: str, needed: str, narrow: str) -> str:
    """The learned table's name over its bar (`label`, the chart's name of the encoding), as a Vega expression: how
    far its rows reach (``last``: the expression of its last row) and the row the test needs (``needed``), in a short
    form where ``narrow`` holds (a phone's plot, where the long one overflows)."""
    short = f"'learned table (rows 0 … ' + {last} + ', needs ' + {needed} + ')'"
    long = f"'{label} (rows 0 … ' + {last} + '; the test needs row ' + {needed} + ')'"
    return f"{narrow} ? {short} : {long}"


def deviation_label_expr(number: str) -> str:
    """A shift-test bar's label as a Vega expression of its row (``datum.ok``, ``datum.deviation``,
    ``datum.verdict``): the deviation (``number``: its formatting expression) or "0 (exact)", then the
    verdict; `NO_ROW` where there is no number."""
    return f"!datum.ok ? '{NO_ROW}' : (datum.deviation > 0 ? {number} : '0 (exact)') + ' · ' + datum.verdict"
