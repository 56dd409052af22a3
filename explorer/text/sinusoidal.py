"""The sentences of the Sinusoidal heatmap page (pages/1_Sinusoidal_heatmap.py): pure, values in, strings out."""

import numpy as np

from explorer.charts.overview_size import OVERVIEW_MAX_COLS, OVERVIEW_MAX_ROWS

INTRO = (
    "Every position p gets a vector of d numbers. Pair j of that vector is a point going round a "
    "circle at its own speed θ_j = b^(−2j/d): the first pair turns by exactly one radian per token "
    "(a full turn every 2π ≈ 6.3 tokens) whatever d and b are, and each later pair is slower by the "
    "same factor b^(2/d), down to the last pair, which needs 2π·b^((d−2)/d) tokens for one turn. Read "
    "a row of the heatmap like an odometer: the fast pairs tell neighbouring positions apart, the slow "
    "pairs say roughly where in the sequence you are."
)
FORMULA_CAPTION = (
    "That is the interleaved layout of the paper. The concatenated layout (tensor2tensor) puts sin(p·θ_j) "
    "in column j and cos(p·θ_j) in column d/2 + j: the same numbers, columns in another order."
)
WINDOW_CAPTION = (
    "A window of the table, shown exactly (nothing averaged); Curves and Numbers below show the same "
    "window. Its start and its size, and the model dimension d and the base b of the whole page, are the "
    "chart's own sliders."
)
ZOOM_CAPTION = (
    "Drag any slider above the chart: **first position p₀**, **positions shown**, **first dimension i₀**, "
    "**dimensions shown**, the **model dimension d** or the **base b** (or focus one and press ← →). The "
    "window follows in your browser at once; when you let go, the whole table, the views below, the "
    "sentences and the link follow."
)
TOO_FEW_POSITIONS = "Similarity and distance need at least two positions: raise the sequence length."


def tokens(wavelength: float) -> str:
    """A wavelength in tokens, as the sentences and the curves' legend and title write it."""
    return f"{wavelength:.4g}" if wavelength < 1000 else f"{wavelength:,.0f}"


def controls_line(d_model: int, base: float) -> str:
    """The controls' box: d and b, which are the zoom chart's own sliders."""
    return (
        f"Model dimension **d = {d_model}**, base **b = {base:,.0f}**: set them on the zoom chart's own sliders "
        "(Look closer, below)."
    )


def reduction_note(seq_len: int, d_model: int, rows: int, pair_block: int) -> str:
    """One sentence saying what each pixel of the overview stands for ("" when nothing is averaged): `rows`
    blocks of positions, `pair_block` neighbouring pairs per column."""
    lo, hi = seq_len // rows, -(-seq_len // rows)  # positions per block
    blocks = f"the mean over {lo if lo == hi else f'{lo} or {hi}'} consecutive positions"
    pairs = f"over {pair_block} neighbouring pairs (sines with sines, cosines with cosines)"
    parts = [blocks] * (rows < seq_len) + [pairs] * (pair_block > 1)
    if not parts:
        return ""
    return f"{seq_len} × {d_model} values do not fit on screen: each pixel shows " + " and ".join(parts) + "."


def averaging_effect(seq_len: int, rows: int, wl: np.ndarray) -> str:
    """What the overview's averaging does to the pairs, computed: averaging k consecutive positions
    multiplies pair j by D_k(θ_j) = sin(kθ_j/2) / (k·sin(θ_j/2)) (posenc.block_mean_encoding)."""
    exact = "The zoom window below shows exact values."
    if rows >= seq_len:  # only neighbouring pairs are averaged, no positions
        return "Positions are not averaged, only neighbouring pairs. " + exact
    theta = 2 * np.pi / wl
    lo, hi = seq_len // rows, -(-seq_len // rows)  # positions per block

    def gain(k: int) -> np.ndarray:
        return np.abs(np.sin(k * theta / 2) / (k * np.sin(theta / 2)))

    fading = wl <= lo  # a full turn (or more) within every block
    if fading.any():
        most = float(np.max(np.maximum(gain(lo), gain(hi))[fading]))
        return (
            f"{int(fading.sum())} of {wl.size} pairs turn at least once within a block: averaging shrinks each "
            f"of them to at most {most:.0%} of its amplitude, so they fade towards grey. " + exact
        )
    return (
        f"Averaging blocks of up to {hi} positions shrinks the fastest pair to {float(gain(hi)[0]):.0%} of its "
        "amplitude and the slower pairs less. " + exact
    )


def overview_subtitle(seq_len: int, rows: int, wl: np.ndarray, note: str) -> list[str]:
    """The overview's subtitle lines: what a pixel is (`note`) and what averaging does to the pairs of
    wavelengths `wl` (`averaging_effect`), or that every value is drawn (`note` empty)."""
    box = "The box marks the zoom window below; it catches up when you let go of the zoom's sliders."
    if not note:
        return ["Every value is drawn (nothing averaged). Hover for exact values.", box]
    return [note, averaging_effect(seq_len, rows, wl), box]


def averaging_explained(d_model: int, base: float, note: str) -> str:
    """The expander under the overview: why it averages (at most OVERVIEW_MAX_COLS × OVERVIEW_MAX_ROWS
    cells are sent), the factor b^(2/d) between neighbouring pairs, and what is averaged now (`note`)."""
    max_cols, max_rows, step = OVERVIEW_MAX_COLS, OVERVIEW_MAX_ROWS, base ** (2 / d_model)
    return (
        f"At the largest settings the table holds 8192 × 2048 ≈ 16.8 million numbers, far more "
        f"than the chart has pixels (at most {max_cols} × {max_rows} are sent). So the server sends one value "
        "per pixel: the **mean** of the block of positions it covers.\n\n"
        "- **Averaging** (used here) is what your eye does from far away. A pair that turns "
        "several times within one block averages out to about 0 and shows as grey: an honest "
        "*too fast to draw at this scale*. The mean is exact and cheap: averaging k positions "
        "multiplies pair j by D_k(θ_j) = sin(kθ_j/2) / (k·sin(θ_j/2)), about 1 for a pair that turns "
        "little within the k positions and near 0 for one that turns several times. Not exactly 0: the faint "
        "arcs left in the grey area are what remains of the fast waves after averaging.\n"
        "- **Keeping every k-th position** (stride sampling) would show exact values, but a fast "
        "sinusoid sampled every k tokens turns into a slow false wave (aliasing, moiré) that is "
        "not in the data at all. That picture looks sharp and is wrong.\n\n"
        f"Columns are averaged only when there are more than {max_cols} of them, and then sines only with "
        "sines and cosines only with cosines, over neighbouring pairs (whose frequencies differ by the factor "
        f"b^(2/d) = {step:.4g} here). The zoom window below always shows exact values."
        + (f"\n\nNow: {note}" if note else "\n\nNow: nothing is averaged.")
    )


def dims_warning(problems: list[str]) -> str:
    """Over the curves: the typed entries that were skipped (`problems`, markdown-escaped by the page)."""
    return "Dimensions: " + "; ".join(problems)


def dims_problems(bad: list[str], out_of_range: list[str], d_model: int, limit: int, dropped: int) -> list[str]:
    """What charts.parse_dims skipped: entries not whole numbers, entries ≥ d_model, `dropped` beyond `limit`."""
    problems = []
    if bad:
        problems.append(f"not whole numbers, skipped: {', '.join(bad[:5])}")
    if out_of_range:
        problems.append(f"outside 0 … {d_model - 1}, skipped: {', '.join(out_of_range[:5])}")
    if dropped:
        problems.append(f"only the first {limit} dimensions are drawn ({dropped} more skipped)")
    return problems


def curves_title(dims: list[int], pairs: list[int], wl: np.ndarray) -> str:
    """The curves chart's title: the fastest and the slowest of the dimensions `dims` (of pairs `pairs`;
    `wl` holds λ_j of every pair)."""
    lam = wl[pairs]
    fastest, slowest = int(np.argmin(lam)), int(np.argmax(lam))
    if pairs[fastest] == pairs[slowest]:
        return f"Pair {pairs[0]}: one turn every {tokens(lam[0])} tokens"
    return (
        f"Dimension {dims[fastest]} turns once every {tokens(lam[fastest])} tokens, "
        f"dimension {dims[slowest]} once every {tokens(lam[slowest])}"
    )


def curves_subtitle(p0: int, p_last: int) -> list[str]:
    return [
        f"Each curve is one column of the table over positions {p0} … {p_last} (the zoom window).",
        "The sin and the cos of one pair are a quarter turn apart.",
    ]


def wavelength_subtitle(wl: np.ndarray, seq_len: int, base: float, d_model: int) -> list[str]:
    """The wavelength chart's subtitle: the range of λ_j, and how many pairs are longer than the sequence."""
    return [
        f"λ_j = 2π·b^(2j/d), from 2π ≈ 6.28 to {tokens(wl.max())} tokens (b = {base:,.0f}, d = {d_model}).",
        f"{int(np.sum(wl > seq_len))} of {wl.size} pairs (above the dashed line) do not finish one turn within "
        f"{seq_len} positions.",
    ]


def distance_subtitle(seq_len: int) -> str:
    return f"The distance between positions p and p + k depends only on k; here every k from 1 to {seq_len - 1}."


def zoom_description(layout: str) -> str:
    """The zoom chart's description (read by screen readers): true at every slider value."""
    return (
        f"The zoom window of the sinusoidal encoding table ({layout} layout): the positions from the first "
        "position p₀ and the dimensions from the first dimension i₀, as many of each as the positions-shown and "
        "dimensions-shown sliders set, for the model dimension d and the base b set by the last two sliders, "
        "every value shown as one coloured cell."
    )


def no_dims(d_model: int) -> str:
    return f"Type one or more dimension indices between 0 and {d_model - 1}, e.g. 0, 1, 20."


def metric_helps(seq_len: int) -> tuple[str, str, str]:
    """The help of the Similarity tab's three numbers: the closest pair, its offset, the diagonals' spread."""
    return (
        f"The smallest ‖PE(p) − PE(q)‖ over all p ≠ q among the {seq_len} positions. It depends only on k = q − p, "
        "so it is the minimum over k = 1 … seq_len − 1. Above 0: no two positions share an encoding.",
        "The offset at which two positions come closest.",
        "max over k of (largest − smallest) PE(p)·PE(p+k) in the N × N matrix: 0 up to rounding, because the dot "
        "product depends only on the offset.",
    )


def matrix_subtitles(n: int, d_model: int, closest: float, farthest: float) -> tuple[list[str], list[str]]:
    """The subtitles of the similarity and distance matrices of the first `n` positions."""
    return (
        [
            f"First {n} positions. PE(p)·PE(q) = Σ_j cos((q − p)θ_j)",
            f"depends only on q − p; the main diagonal is d/2 = {d_model // 2}.",
        ],
        [
            f"First {n} positions; the closest two distinct ones",
            f"are {closest:.4g} apart, the farthest two {farthest:.4g}.",
        ],
    )


def numbers_caption(p0: int, p_last: int, d0: int, d_last: int, *, cut_to: int | None) -> str:
    """Over the Numbers table: the window it lists, and `cut_to` rows and columns if it is cut."""
    window = f"The window, positions {p0} … {p_last} × dimensions {d0} … {d_last}"
    return window + (
        "." if cut_to is None else f" (the first {cut_to} rows and columns are shown; the CSV has all of it)."
    )


def notices(seq_len: int, d_model: int, layout: str, wl: np.ndarray, closest: tuple[int, float] | None) -> list[str]:
    """ "What to notice", from the settings on screen, the wavelengths λ_j and the closest two distinct
    positions (offset k, distance; None with fewer than two positions)."""
    n_pairs = d_model // 2
    if n_pairs == 1:
        items = [
            "With d = 2 there is a single pair (columns 0 and 1), turning one radian per token: a full turn "
            "every 2π ≈ 6.3 tokens."
        ]
    else:
        if layout == "interleaved":
            where = (
                "Columns 0 and 1 (pair 0) change fastest from row to row; pair j sits in columns 2j and 2j + 1, "
                f"so the speed falls from left to right, down to columns {2 * n_pairs - 2} and {2 * n_pairs - 1}."
            )
        else:
            where = (
                f"Pair j sits in columns j (sine) and {n_pairs} + j (cosine), so each half of the table runs "
                f"from fast to slow: columns 0 and {n_pairs} change fastest, columns {n_pairs - 1} and "
                f"{2 * n_pairs - 1} slowest."
            )
        never = int(np.sum(wl > seq_len))
        items = [
            where + " The speeds form a geometric series (each pair slower than the last by b^(2/d)).",
            f"The wavelengths run from 2π ≈ 6.28 to {tokens(wl.max())} tokens: a straight line on the log axis. "
            f"{never} of {n_pairs} pairs have a wavelength longer than the {seq_len:,} positions shown, so they "
            "never complete a turn inside them.",
        ]
    items.append(
        "The similarity matrix has constant diagonals: how alike two encodings are depends only on how far "
        "apart the positions are, never on where they are."
    )
    if closest is not None:
        k, dist = closest
        items.append(
            f"No two of these {seq_len:,} positions share an encoding: the closest two are k = {k} apart "
            f"and differ by {dist:.3g} (every encoding has length √(d/2) = {np.sqrt(n_pairs):.3g})."
        )
    items.append("Switch the layout: the numbers are the same, only the column order changes.")
    return items
