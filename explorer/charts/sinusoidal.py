"""Chart builders for the "Sinusoidal heatmap" page (pure: data -> alt.Chart, no st.*).

- `encoding_heatmap`      the table PE(p, i) as one image (overview, block-averaged when large,
                          and the full-resolution zoom window): one builder, two uses
- `dimension_curves`      chosen dimensions i as curves over position
- `wavelength_chart`      λ_j per pair on a log axis, with the sequence length marked
- `matrix_heatmap`        PE(p)·PE(q) or ‖PE(p) − PE(q)‖ for the first N positions (image)
- `offset_distance_chart` ‖PE(p+k) − PE(p)‖ against the offset k, closest offset marked

Data helpers (no maths; the numbers come from posenc): `overview_blocks` (how much to average so
the overview fits the screen), `parse_dims` (the "0, 1, 20" text box), `value_table` (the table
and CSV of the zoom window), `dimension_role` (what a column holds under a layout).
"""

from __future__ import annotations

import math
import re
from typing import TypeVar

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import chart_config
from explorer.imagechart import DIVERGING, image_heatmap

#: The overview image is at most this many pixels: rows = the chart height (one image row per
#: screen pixel row, so the browser never drops rows), columns = a typical wide chart.
OVERVIEW_MAX_ROWS = 480
OVERVIEW_MAX_COLS = 1024
OVERVIEW_HEIGHT = OVERVIEW_MAX_ROWS
#: Hover readout of the encoding heatmaps: at most this many invisible cells (each reports the
#: exact value at its centre). Every one is a mark the browser builds: 2500 made the 8192 × 2048
#: overview draw ~70 ms slower than 1024 (bench, side by side), for a grid finer than a pointer.
ENCODING_HOVER_CELLS = 1024
#: At most this many curves in the "chosen dimensions" chart (more is unreadable).
MAX_CURVES = 8
#: The value table shows at most this many rows and columns of the zoom window.
TABLE_MAX = 64

LAYOUT_TITLES = {
    "interleaved": "interleaved layout: sin on even dimensions, cos on odd ones",
    "concatenated": "concatenated layout: all sines first (i < d/2), then all cosines",
}

#: Projector-legible defaults shared by every chart on the page (fonts ≥ 13 px). Set in one
#: `.properties(config=…)` call: each `configure_*` call deep-copies the whole chart.
CONFIG = chart_config(title={"fontSize": 19}, legend={"titleLimit": 260}, view={"stroke": None})


#: The square matrices sit two side by side: a legend under the plot keeps each narrow.
MATRIX_CONFIG = alt.Config.from_dict(
    {
        **CONFIG.to_dict(),
        "legend": {**CONFIG.legend.to_dict(), "orient": "bottom", "direction": "horizontal", "titleOrient": "top"},
    }
)


#: Any top-level chart: `_finish` returns the same kind of chart it was given.
_ChartT = TypeVar("_ChartT", bound=alt.TopLevelMixin)


def _finish(
    chart: _ChartT, title: str, subtitle=None, *, fit_width: bool = True, config: alt.Config = CONFIG, **props
) -> _ChartT:
    """Title (the point of the chart), optional subtitle lines, the shared config and the sizing,
    in one step.

    Sizing: Streamlit's default autosize "fit" squeezes title, legend and axes into the given
    height, so the plot shrinks. "fit-x" stretches only the width to the container (use
    ``st.altair_chart(..., width="stretch")``) and keeps the plot height; "pad" (fit_width=False)
    keeps the given width and height (use ``width="content"``)."""
    if subtitle:
        params = alt.TitleParams(title, subtitle=subtitle, anchor="start")
    else:
        params = alt.TitleParams(title, anchor="start")
    autosize = alt.AutoSizeParams(type="fit-x" if fit_width else "pad", contains="padding")
    return chart.properties(title=params, config=config, autosize=autosize, **props)


# ------------------------------------------------------------------------------ data helpers
def overview_blocks(
    seq_len: int, d_model: int, *, max_rows: int = OVERVIEW_MAX_ROWS, max_cols: int = OVERVIEW_MAX_COLS
) -> tuple[int, int]:
    """(rows, pair_block): split the positions into `rows` blocks of (nearly) equal length and
    average `pair_block` neighbouring pairs, so that the overview has at most max_rows × max_cols
    cells. (seq_len, 1) means full resolution."""
    if seq_len < 1 or d_model < 2 or max_rows < 1 or max_cols < 2:
        raise ValueError(
            f"need seq_len >= 1, d_model >= 2, max_rows >= 1, max_cols >= 2, got "
            f"{seq_len}, {d_model}, {max_rows}, {max_cols}"
        )
    rows = min(seq_len, max_rows)
    pair_block = max(1, math.ceil((d_model // 2) / (max_cols // 2)))
    return rows, pair_block


def overview_axes(seq_len: int, d_model: int, rows: int, pair_block: int) -> tuple[np.ndarray, np.ndarray]:
    """(y_values, x_values) for a block-averaged overview: the (nominal) centre position of each
    block of rows, and the centre dimension each column stands for (exact when nothing is
    averaged; within half a token / half a pair group otherwise)."""
    cols = 2 * math.ceil((d_model // 2) / pair_block)
    y = (np.arange(rows) + 0.5) * (seq_len / rows) - 0.5
    x = np.arange(cols) * pair_block + (pair_block - 1) / 2.0
    return y, x


def reduction_note(seq_len: int, d_model: int, rows: int, pair_block: int) -> str:
    """One sentence saying what each pixel of the overview stands for ("" when nothing is averaged)."""
    parts = []
    if rows < seq_len:
        lo, hi = seq_len // rows, -(-seq_len // rows)
        count = f"{lo}" if lo == hi else f"{lo} or {hi}"
        parts.append(f"the mean over {count} consecutive positions")
    if pair_block > 1:
        parts.append(f"over {pair_block} neighbouring pairs (sines with sines, cosines with cosines)")
    if not parts:
        return ""
    return f"{seq_len} × {d_model} values do not fit on screen: each pixel shows " + " and ".join(parts) + "."


def dimension_role(dim: int, d_model: int, layout: str) -> tuple[str, int]:
    """("sin" | "cos", pair j) held by column `dim` of an even-d_model encoding."""
    h = d_model // 2
    if not 0 <= dim < d_model:
        raise ValueError(f"dim must be in 0 … {d_model - 1}, got {dim}")
    if layout == "interleaved":
        return ("sin" if dim % 2 == 0 else "cos"), dim // 2
    if layout == "concatenated":
        return ("sin", dim) if dim < h else ("cos", dim - h)
    raise ValueError(f"layout must be 'interleaved' or 'concatenated', got {layout!r}")


def parse_dims(text: str, d_model: int, *, limit: int = MAX_CURVES) -> tuple[list[int], list[str]]:
    """Parse "0, 1, 20 21" into distinct dimensions (order kept, at most `limit`).

    Returns (dims, problems): problems are plain-text sentences about the entries that were
    skipped (not whole numbers, outside 0 … d_model − 1, repeated, beyond the limit)."""
    tokens = [t for t in re.split(r"[\s,;]+", str(text).strip()) if t]
    dims: list[int] = []
    bad: list[str] = []
    out_of_range: list[str] = []
    dropped = 0
    for tok in tokens:
        if not re.fullmatch(r"\+?\d{1,6}", tok):
            bad.append(tok[:12])
            continue
        value = int(tok)
        if value >= d_model:
            out_of_range.append(str(value))
            continue
        if value in dims:
            continue
        if len(dims) >= limit:
            dropped += 1
            continue
        dims.append(value)
    problems = []
    if bad:
        problems.append(f"not whole numbers, skipped: {', '.join(bad[:5])}")
    if out_of_range:
        problems.append(f"outside 0 … {d_model - 1}, skipped: {', '.join(out_of_range[:5])}")
    if dropped:
        problems.append(f"only the first {limit} dimensions are drawn ({dropped} more skipped)")
    return dims, problems


def value_table(values: np.ndarray, positions, dims) -> pd.DataFrame:
    """The encoding as a table: one row per position, one column per dimension ("dim 7")."""
    values = np.asarray(values, dtype=np.float64)
    positions = np.asarray(positions)
    dims = np.asarray(dims)
    if values.shape != (positions.size, dims.size):
        raise ValueError(f"values must have shape ({positions.size}, {dims.size}), got {values.shape}")
    table = pd.DataFrame(values, columns=[f"dim {int(i)}" for i in dims])
    table.insert(0, "position", positions.astype(np.int64))
    return table


# ----------------------------------------------------------------------------------- charts
# Channels are given as alt.X2(...), alt.Text(...) objects, not "field:Q" strings: Altair turns a
# string into a channel through `from_dict`, which costs milliseconds per call.
def encoding_heatmap(
    values: np.ndarray,
    *,
    positions: np.ndarray,
    dims: np.ndarray,
    layout: str,
    scheme: str = "redblue",
    title: str,
    subtitle: str | list[str] = "",
    value_title: str = "PE(p, i)",
    height: int = OVERVIEW_HEIGHT,
    width: int = 900,
) -> alt.LayerChart:
    """The encoding PE(p, i) (rows = positions p, columns = dimensions i) as one image with axes,
    legend and hover readout; the colour domain is fixed to [−1, 1] so the middle colour means 0.

    `positions` / `dims` are the (evenly spaced) centre of each row / column. The subtitle names
    the layout shown; `subtitle` adds a sentence (e.g. how the overview was averaged). The image
    is drawn at the resolution given: the caller decides any averaging."""
    values = np.asarray(values, dtype=np.float64)
    layout_line = LAYOUT_TITLES.get(layout)
    if layout_line is None:
        raise ValueError(f"layout must be one of {tuple(LAYOUT_TITLES)}, got {layout!r}")
    rows, cols = values.shape
    chart = image_heatmap(
        values,
        x_values=np.asarray(dims, dtype=np.float64),
        y_values=np.asarray(positions, dtype=np.float64),
        x_title="dimension i",
        y_title="position p",
        value_title=value_title,
        scheme=scheme,
        domain=(-1.0, 1.0),
        width=width,
        height=height,
        max_pixels=(max(cols, 1), max(rows, 1)),
        hover_cells=ENCODING_HOVER_CELLS,
    )
    sub = [layout_line[0].upper() + layout_line[1:] + "."]
    sub += [subtitle] if isinstance(subtitle, str) else list(subtitle)
    sub = [line for line in sub if line]
    return _finish(chart, title, sub)


def dimension_curves(positions, values: np.ndarray, dims, *, d_model: int, layout: str, wavelengths) -> alt.Chart:
    """Chosen dimensions as curves over position. `values` is (len(positions), len(dims));
    `wavelengths` holds λ_j for every pair (the legend names each curve's pair and wavelength)."""
    positions = np.asarray(positions, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    dims = [int(i) for i in dims]
    wl = np.asarray(wavelengths, dtype=np.float64)
    if values.shape != (positions.size, len(dims)):
        raise ValueError(f"values must have shape ({positions.size}, {len(dims)}), got {values.shape}")
    names = []
    pairs = []
    for i in dims:
        fn, j = dimension_role(i, d_model, layout)
        pairs.append(j)
        names.append(f"i = {i}: {fn}, pair {j}, λ = {tokens(wl[j])}")
    df = pd.DataFrame(
        {
            "position": np.tile(positions, len(dims)),
            "value": values.T.ravel(),
            "curve": np.repeat(np.array(names, dtype=object), positions.size),
            "dim": np.repeat(np.array(dims), positions.size),
        }
    )
    chart = (
        alt.Chart(df)
        .mark_line(strokeWidth=2.5, point=positions.size <= 80)
        .encode(
            x=alt.X("position:Q").title("position p (tokens)").scale(nice=False, zero=False),
            y=alt.Y("value:Q").title("PE(p, i)").scale(domain=[-1.05, 1.05]),
            color=alt.Color("curve:N")
            .sort(names)
            .title("dimension")
            .legend(orient="bottom", columns=2, labelLimit=420),
            tooltip=[
                alt.Tooltip("dim:Q", title="dimension i"),
                alt.Tooltip("position:Q", title="position p"),
                alt.Tooltip("value:Q", title="PE(p, i)", format=".4f"),
            ],
        )
    )
    fastest, slowest = int(np.argmin(wl[pairs])), int(np.argmax(wl[pairs]))
    if pairs[fastest] == pairs[slowest]:
        title = f"Pair {pairs[0]}: one turn every {tokens(wl[pairs[0]])} tokens"
    else:
        title = (
            f"Dimension {dims[fastest]} turns once every {tokens(wl[pairs[fastest]])} tokens, "
            f"dimension {dims[slowest]} once every {tokens(wl[pairs[slowest]])}"
        )
    return _finish(
        chart,
        title,
        [
            f"Each curve is one column of the table over positions {int(positions[0])} … "
            f"{int(positions[-1])} (the zoom window).",
            "The sin and the cos of one pair are a quarter turn apart.",
        ],
        height=300,
    )


def tokens(wavelength: float) -> str:
    """A wavelength in tokens, as the curves' legend and title write it."""
    return f"{wavelength:.4g}" if wavelength < 1000 else f"{wavelength:,.0f}"


def wavelength_chart(wavelengths, *, seq_len: int, base: float, d_model: int) -> alt.LayerChart:
    """λ_j = 2π·b^(2j/d) per pair j on a log axis (a straight line), with the sequence length as
    a dashed horizontal rule: pairs above it do not complete one turn within the sequence."""
    wl = np.asarray(wavelengths, dtype=np.float64)
    j = np.arange(wl.size)
    df = pd.DataFrame(
        {
            "j": j,
            "wavelength": wl,
            "dims": [f"{2 * k}, {2 * k + 1}" for k in j],
            "turns": seq_len / wl,
        }
    )
    lo = 10.0 ** math.floor(math.log10(min(wl.min(), seq_len)))
    hi = 10.0 ** math.ceil(math.log10(max(wl.max(), seq_len) * 1.01))
    y = alt.Y("wavelength:Q").title("wavelength λ_j (tokens, log scale)").scale(type="log", domain=[lo, hi])
    x = alt.X("j:Q").title("pair j").scale(nice=False, domain=[0, max(1, wl.size - 1)])
    line = (
        alt.Chart(df)
        .mark_line(strokeWidth=3, color="#1D4ED8", point=wl.size <= 64)
        .encode(
            x=x,
            y=y,
            tooltip=[
                alt.Tooltip("j:Q", title="pair j"),
                alt.Tooltip("dims:N", title="dimensions (interleaved)"),
                alt.Tooltip("wavelength:Q", title="λ_j (tokens)", format=",.4~g"),
                alt.Tooltip("turns:Q", title=f"turns within {seq_len} positions", format=",.4~g"),
            ],
        )
    )
    rule_df = pd.DataFrame({"wavelength": [float(seq_len)], "label": [f"sequence length {seq_len}"]})
    rule = alt.Chart(rule_df).mark_rule(color="#B45309", strokeDash=[6, 4], strokeWidth=2).encode(y=y)
    text = (
        alt.Chart(rule_df)
        .mark_text(align="left", dx=6, dy=-10, fontSize=15, color="#B45309")
        .encode(x=alt.datum(0), y=y, text=alt.Text("label:N"))
    )
    above = int(np.sum(wl > seq_len))
    return _finish(
        alt.LayerChart(layer=[line, rule, text]),
        "Wavelengths grow geometrically: a straight line on a log axis"
        if wl.size > 1
        else "A single pair: one wavelength",
        [
            f"λ_j = 2π·b^(2j/d), from 2π ≈ 6.28 to {tokens(wl.max())} tokens (b = {base:,.0f}, d = {d_model}).",
            f"{above} of {wl.size} pairs (above the dashed line) do not finish one turn within {seq_len} positions.",
        ],
        height=320,
    )


def matrix_heatmap(
    matrix: np.ndarray,
    *,
    kind: str,
    scheme: str,
    d_model: int,
    size: int = 300,
    subtitle: str | list[str] = "",
) -> alt.LayerChart:
    """The first N positions against each other, as one square image.

    kind "similarity": PE(p)·PE(q), colour domain [−d/2, d/2] (the diagonal is d/2 = the
    number of pairs); kind "distance": ‖PE(p) − PE(q)‖ from 0 with a sequential scheme (a
    diverging `scheme` is replaced by viridis: distances have no meaningful middle)."""
    m = np.asarray(matrix, dtype=np.float64)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] < 1:
        raise ValueError(f"matrix must be square and non-empty, got shape {m.shape}")
    n = m.shape[0]
    positions = np.arange(n, dtype=np.float64)
    if kind == "similarity":
        half = d_model / 2.0
        domain = (-half, half)
        title = "PE(p)·PE(q) is constant along every diagonal"
        value_title = "PE(p)·PE(q)"
        use_scheme = scheme
    elif kind == "distance":
        hi = float(np.max(m))
        domain = (0.0, hi if hi > 0 else 1.0)
        title = "‖PE(p) − PE(q)‖ is zero only on the diagonal"
        value_title = "‖PE(p) − PE(q)‖"
        use_scheme = "viridis" if scheme in DIVERGING else scheme
    else:
        raise ValueError(f"kind must be 'similarity' or 'distance', got {kind!r}")
    chart = image_heatmap(
        m,
        x_values=positions,
        y_values=positions,
        x_title="position q",
        y_title="position p",
        value_title=value_title,
        scheme=use_scheme,
        domain=domain,
        width=size,
        height=size,
        max_pixels=(n, n),
        hover_cells=min(2500, n * n),
    )
    sub = [subtitle] if isinstance(subtitle, str) else list(subtitle)
    return _finish(chart, title, [line for line in sub if line] or None, fit_width=False, config=MATRIX_CONFIG)


def offset_distance_chart(offsets, distances, *, seq_len: int) -> alt.LayerChart:
    """‖PE(p+k) − PE(p)‖ for k = 1 … seq_len − 1 (independent of p), the smallest one marked."""
    k = np.asarray(offsets, dtype=np.float64)
    dist = np.asarray(distances, dtype=np.float64)
    if k.shape != dist.shape or k.size < 1:
        raise ValueError(f"offsets and distances must be equal-length and non-empty, got {k.shape}, {dist.shape}")
    i_min = int(np.argmin(dist))
    df = pd.DataFrame({"k": k, "distance": dist})
    best = pd.DataFrame(
        {
            "k": [k[i_min]],
            "distance": [dist[i_min]],
            "label": [f"closest: k = {int(k[i_min])}, distance {dist[i_min]:.4g}"],
        }
    )
    x = alt.X("k:Q").title("offset k = q − p (tokens)").scale(nice=False)
    y = alt.Y("distance:Q").title("‖PE(p+k) − PE(p)‖").scale(zero=True)
    line = (
        alt.Chart(df)
        .mark_line(strokeWidth=2, color="#1D4ED8", point=k.size <= 64)
        .encode(
            x=x,
            y=y,
            tooltip=[alt.Tooltip("k:Q", title="offset k"), alt.Tooltip("distance:Q", title="distance", format=".5g")],
        )
    )
    dot = alt.Chart(best).mark_point(size=160, filled=True, color="#B45309").encode(x=x, y=y)
    left_half = i_min < 0.6 * k.size
    label = (
        alt.Chart(best)
        .mark_text(
            align="left" if left_half else "right",
            dx=10 if left_half else -10,
            dy=16,
            fontSize=15,
            color="#B45309",
        )
        .encode(x=x, y=y, text=alt.Text("label:N"))
    )
    return _finish(
        alt.LayerChart(layer=[line, dot, label]),
        "Every position is unique: all distances stay above zero",
        f"The distance between positions p and p + k depends only on k; here every k from 1 to {seq_len - 1}.",
        height=300,
    )
