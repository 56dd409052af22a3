"""Chart builders for the "Sinusoidal heatmap" page (pure: data -> alt.Chart, no st.*).

- `encoding_heatmap`      the table PE(p, i) as one image (the overview, block-averaged when large),
                          with the zoom window's box (`window_box`)
- `dimension_curves`      chosen dimensions i as curves over position
- `wavelength_chart`      λ_j per pair on a log axis, with the sequence length marked
- `matrix_heatmap`        PE(p)·PE(q) or ‖PE(p) − PE(q)‖ for the first N positions (image)
- `offset_distance_chart` ‖PE(p+k) − PE(p)‖ against the offset k, closest offset marked
- `zoom_chart`            the zoom window, every value computed in the browser (`zoom_expressions`);
                          its first position and first dimension, the model dimension d and the
                          base b are the chart's own sliders (`LIVE_PARAMS`, explorer.liveparam)

Data helpers (no maths; the numbers come from posenc): `overview_blocks` (how much to average so
the overview fits the screen), `parse_dims` (the "0, 1, 20" text box), `value_table` (the table
and CSV of the zoom window), `dimension_role` (what a column holds under a layout).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts import live
from explorer.charts.overview_size import OVERVIEW_MAX_COLS, OVERVIEW_MAX_ROWS
from explorer.charts.style import (
    CHAR_EM,
    FIT_X,
    FONT_SCALE_PARAM,
    ChartT,
    chart_config,
    fact_params,
    facts_layer,
    facts_titled,
    font_scale_param,
    label_step_expr,
    on_canvas,
)
from explorer.imagechart import DIVERGING, image_heatmap
from explorer.text.sinusoidal import (
    curves_subtitle,
    curves_title,
    dims_problems,
    distance_subtitle,
    tokens,
    wavelength_subtitle,
    zoom_description,
)

#: Hover readout of the encoding heatmaps: at most this many invisible cells (each reports the
#: exact value at its centre). Every one is a mark the browser builds: 2500 made the 8192 × 2048
#: overview draw ~70 ms slower than 1024 (bench, side by side), for a grid finer than a pointer.
ENCODING_HOVER_CELLS = 1024
#: At most this many curves in the "chosen dimensions" chart (more is unreadable).
MAX_CURVES = 8
#: The value table shows at most this many rows and columns of the zoom window.
TABLE_MAX = 64

#: The zoom window's start is the zoom chart's own pair of sliders (explorer.liveparam): the window
#: moves in the browser while they are dragged, and the URL follows when the drag ends. Its size
#: (zoom_np positions × zoom_nd dimensions) is a pair of the chart's sliders too (issue #36): the browser
#: holds the grid of the largest window and shows its first rows and columns; the Curves and Numbers
#: views follow on release. The model dimension d and the base b are the chart's own sliders too
#: (issue #36): the chart computes each column's pair, function and θ_j = b^(−2j/d) from them
#: (`zoom_expressions`), and the page follows on release. Order: d_model before zoom_d0 and zoom_nd,
#: whose ranges end at d − 1 and d (`zoom_limits`).
WINDOW_PARAMS = ("zoom_p0", "zoom_d0")
SIZE_PARAMS = ("zoom_np", "zoom_nd")
TABLE_PARAMS = ("d_model", "base")
LIVE_PARAMS = (*TABLE_PARAMS, *WINDOW_PARAMS, *SIZE_PARAMS)


def zoom_limits(seq_len: int, size_max: tuple[int, int]):
    """The page's ranges of the zoom chart's sliders (explorer.liveparam.LiveChart's ``limits``): p₀ up
    to seq_len − 1, i₀ up to d − 1 (d read before it), the window at most `size_max` (the registry's
    largest window: positions, dimensions) and at most the table (seq_len positions, d dimensions)."""

    def limits(values: dict) -> dict[str, dict[str, int]]:
        found = {"zoom_p0": {"max": int(seq_len) - 1}, "zoom_np": {"max": min(int(size_max[0]), int(seq_len))}}
        if "d_model" in values:
            found["zoom_d0"] = {"max": int(values["d_model"]) - 1}
            found["zoom_nd"] = {"max": min(int(size_max[1]), int(values["d_model"]))}
        return found

    return limits


def zoom_height(n_positions: int) -> int:
    """The zoom chart's height for a window that starts at `n_positions` rows: about 3 px a row, 240 … 520 px. A drag
    of the window's size keeps the chart and its height (the rows stretch): a new height would be a new spec, and
    Streamlit would rebuild the chart under the hand at a pause mid-drag (`zoom_chart`)."""
    return int(np.clip(3 * n_positions, 240, 520))


#: Each value of the zoom chart is one Vega rect mark; its tooltip prints this many decimals.
ZOOM_DECIMALS = 6

#: The subtitle's sentence naming each layout.
LAYOUT_TITLES = {
    "interleaved": "Interleaved layout: sin on even dimensions, cos on odd ones.",
    "concatenated": "Concatenated layout: all sines first (i < d/2), then all cosines.",
}

#: Projector-legible defaults shared by every chart on the page (fonts ≥ 13 px). Set in one
#: `.properties(config=…)` call: each `configure_*` call deep-copies the whole chart.
#: The title size of every chart on the page (CONFIG).
TITLE_SIZE = 19
_CONFIG_SECTIONS: dict = {"title": {"fontSize": TITLE_SIZE}, "legend": {"titleLimit": 260}, "view": {"stroke": None}}
CONFIG = chart_config(**_CONFIG_SECTIONS)
#: The zoom's cells: a named style of its config (`zoom_chart`).
ZOOM_CELL_STYLE = "zoom_cell"
ZOOM_CONFIG = chart_config(**_CONFIG_SECTIONS, style={ZOOM_CELL_STYLE: {"strokeWidth": 0}})


#: The square matrices sit two side by side: a legend under the plot keeps each narrow.
MATRIX_CONFIG = chart_config(
    title={"fontSize": TITLE_SIZE},
    legend={"titleLimit": 260, "orient": "bottom", "direction": "horizontal", "titleOrient": "top"},
    view={"stroke": None},
)


def _finish(
    chart: ChartT, title: str, subtitle=None, *, fit_width: bool = True, config: alt.Config = CONFIG, **props
) -> ChartT:
    """Title (the point of the chart), optional subtitle lines, the shared config and the sizing,
    in one step.

    Sizing: Streamlit's default autosize "fit" squeezes title, legend and axes into the given
    height, so the plot shrinks. "fit-x" stretches only the width to the container (use
    ``st.altair_chart(..., width="stretch")``) and keeps the plot height; "pad" (fit_width=False)
    keeps the given width and height (use ``width="content"``)."""
    params = alt.TitleParams(title, subtitle=subtitle or alt.Undefined, anchor="start")
    autosize = FIT_X if fit_width else alt.AutoSizeParams(type="pad", contains="padding")
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
        shown = tok if len(tok) <= 12 else tok[:11] + "…"
        if not re.fullmatch(r"[+-]?\d+", tok):
            bad.append(shown)
            continue
        digits = tok.lstrip("+-").lstrip("0")
        value = int(tok) if len(digits) <= 12 else d_model  # a dozen digits (leading zeros aside) are past any d_model
        if not 0 <= value < d_model:
            out_of_range.append(shown)
            continue
        if value in dims:
            continue
        if len(dims) >= limit:
            dropped += 1
            continue
        dims.append(value)
    return dims, dims_problems(bad, out_of_range, d_model, limit, dropped)


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
    box: tuple[int, int, int, int] | None = None,
    dark: bool = False,
) -> alt.LayerChart:
    """The encoding PE(p, i) (rows = positions p, columns = dimensions i) as one image with axes,
    legend and hover readout; the colour domain is fixed to [−1, 1] so the middle colour means 0.

    `positions` / `dims` are the (evenly spaced) centre of each row / column. The subtitle names
    the layout shown; `subtitle` adds a sentence (e.g. how the overview was averaged). The image
    is drawn at the resolution given: the caller decides any averaging. `box` = (first position,
    last position, first dimension, last dimension) outlines those cells (the zoom window). `dark`: drawn
    for the dark card (the page's `explorer.render.dark_theme()`; `explorer.imagechart.image_heatmap`)."""
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
        width=900,
        height=OVERVIEW_MAX_ROWS,
        max_pixels=(max(cols, 1), max(rows, 1)),
        hover_cells=ENCODING_HOVER_CELLS,
        dark=dark,
    )
    if box is not None:
        chart.layer = [*chart.layer, *window_box(*box)]
    sub = [line for line in (layout_line, *([subtitle] if isinstance(subtitle, str) else subtitle)) if line]
    # The title (which names the table's size) travels in the facts row, and the description holds no
    # size of its own: while the table is drawn whole (no averaging note in `subtitle`), another length
    # or width changes only the rows, and the browser redraws this chart in place instead of building
    # it anew (bench/RESULTS.md section 13, session 16).
    return facts_titled(
        chart.layer,
        title=title,
        font_size=TITLE_SIZE,
        subtitle=sub,
        anchor="start",
        description="Chart: the sinusoidal encoding PE(p, i), positions p down the rows and dimensions i "
        "across the columns. " + " ".join(sub),
        width=chart.width,
        height=chart.height,
        config=CONFIG,
        autosize=FIT_X,
    )


def window_box(p_first: int, p_last: int, d_first: int, d_last: int) -> list[alt.Chart]:
    """The outline of the cells p_first … p_last × d_first … d_last on an `encoding_heatmap` (its
    fields x0, x1, y0, y1 are cell edges): a dark line on a light halo, seen on every scheme."""
    if not (0 <= p_first <= p_last and 0 <= d_first <= d_last):
        raise ValueError(
            f"box must be first <= last positions and dimensions >= 0, got {(p_first, p_last, d_first, d_last)}"
        )
    edges = pd.DataFrame(
        {
            "x0": [d_first - 0.5],
            "x1": [d_last + 0.5],
            "y0": [p_first - 0.5],
            "y1": [p_last + 0.5],
        }
    )
    x, y = alt.X("x0:Q").title("dimension i"), alt.Y("y0:Q").title("position p")
    return [
        alt.Chart(edges)
        .mark_rect(filled=False, stroke=colour, strokeWidth=width, clip=True)
        .encode(x=x, x2=alt.X2("x1:Q"), y=y, y2=alt.Y2("y1:Q"))
        for colour, width in (("#FFFFFF", 5), ("#0F172A", 2))
    ]


def dimension_curves(
    positions, values: np.ndarray, dims, *, d_model: int, layout: str, wavelengths, phone: bool = False
) -> alt.Chart:
    """Chosen dimensions as curves over position. `values` is (len(positions), len(dims));
    `wavelengths` holds λ_j for every pair (the legend names each curve's pair and wavelength). On a `phone`
    (`explorer.mode.on_a_phone`) the legend lists one curve a row: two columns of these names are wider than a
    phone's screen, and the second was cut off."""
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
            .legend(orient="bottom", columns=1 if phone else 2, labelLimit=420),
            tooltip=[
                alt.Tooltip("dim:Q", title="dimension i"),
                alt.Tooltip("position:Q", title="position p"),
                alt.Tooltip("value:Q", title="PE(p, i)", format=".4f"),
            ],
        )
    )
    return _finish(
        chart,
        curves_title(dims, pairs, wl),
        curves_subtitle(int(positions[0]), int(positions[-1])),
        height=300,
    )


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
    at_len = alt.Chart(pd.DataFrame({"wavelength": [float(seq_len)], "label": [f"sequence length {seq_len}"]}))
    rule = at_len.mark_rule(color="#B45309", strokeDash=[6, 4], strokeWidth=2).encode(y=y)
    text = at_len.mark_text(align="left", dx=6, dy=-10, fontSize=15, color="#B45309").encode(
        x=alt.datum(0), y=y, text=alt.Text("label:N")
    )
    return _finish(
        alt.LayerChart(layer=[line, rule, text]),
        "Wavelengths grow geometrically: a straight line on a log axis"
        if wl.size > 1
        else "A single pair: one wavelength",
        wavelength_subtitle(wl, seq_len, base, d_model),
        height=320,
    )


def matrix_heatmap(
    matrix: np.ndarray,
    *,
    kind: str,
    scheme: str,
    d_model: int,
    subtitle: str | list[str] = "",
    dark: bool = False,
) -> alt.LayerChart:
    """The first N positions against each other, as one square image.

    kind "similarity": PE(p)·PE(q), colour domain [−d/2, d/2] (the diagonal is d/2 = the
    number of pairs); kind "distance": ‖PE(p) − PE(q)‖ from 0 with a sequential scheme (a
    diverging `scheme` is replaced by viridis: distances have no meaningful middle). `dark`: drawn for the
    dark card (`explorer.imagechart.image_heatmap`)."""
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
        width=300,
        height=300,
        max_pixels=(n, n),
        hover_cells=min(2500, n * n),
        dark=dark,
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
    at_best = alt.Chart(best).encode(x=x, y=y)
    dot = at_best.mark_point(size=160, filled=True, color="#B45309")
    left_half = i_min < 0.6 * k.size
    label = at_best.mark_text(
        align="left" if left_half else "right", dx=10 if left_half else -10, dy=16, fontSize=15, color="#B45309"
    ).encode(text=alt.Text("label:N"))
    return _finish(
        alt.LayerChart(layer=[line, dot, label]),
        "Every position is unique: all distances stay above zero",
        distance_subtitle(seq_len),
        height=300,
    )


# ------------------------------------------------------------------------ the live zoom window
#: What the browser computes for one cell: its angle p·θ (one multiply of two float64 numbers, as
#: posenc does) and the sine or cosine of it (`zoom_expressions`).
ZOOM_VALUE = "datum.fn === 'sin' ? sin(datum.p * datum.theta) : cos(datum.p * datum.theta)"
#: The key of the base's in-chart slider, which runs over the index of the base's options
#: (explorer.liveparam.option_index), as on the clock and RoPE pages.
BASE_KEY = "base"


#: The chart's signals holding the window's first position and dimension as numbers (computed once
#: per slider change from `live.number`, so that no cell evaluates it again).
ZOOM_FIRST = {"zoom_p0": "zoom_first_p", "zoom_d0": "zoom_first_i"}
#: The table's length in the zoom chart: a field of its facts row (`style.fact`) -> the signal that
#: holds it. It travels as data, so another seq_len changes the chart's rows, not its spec, and the
#: browser keeps the chart (issue #23).
ZOOM_SIZE = {"seq_len": "zoom_seq_len"}
#: The table's width d and base b: the chart's own sliders (issue #36) -> the signals holding them as
#: numbers (b is ``options[index]``: `zoom_expressions`).
ZOOM_TABLE = {"d_model": "zoom_d", "base": "zoom_b"}
#: The window's size, rows (positions) × columns (dimensions): the chart's own sliders (issue #36) -> the
#: signals holding them as numbers (the grid's rows and columns shown, `zoom_chart`).
ZOOM_COUNT = {"zoom_np": "zoom_rows", "zoom_nd": "zoom_cols"}


def zoom_expressions(layout: str, base_options: Sequence[float]) -> dict[str, str]:
    """The Vega expressions the zoom chart evaluates in the browser, in terms of its sliders (d_model,
    base as an index into `base_options`) and a cell's column ``datum.i``. Tested against posenc and
    `dimension_role` in tests/test_charts_sinusoidal.py (Python) and tests/test_e2e_sinusoidal_live.py
    (read from the Vega view in Chromium).

    d, b      the signals' expressions: the model dimension and the base ``base_options[index]``
    pair      the pair j column i belongs to (`dimension_role`): interleaved floor(i/2), concatenated
              i, or i − d/2 in the second half
    fn        'sin' or 'cos' (`dimension_role`): interleaved sin at even i, concatenated sin for i < d/2
    theta     θ_j = b^(−2j/d), in terms of the signals (`ZOOM_TABLE`): posenc's float64 operations
              (`posenc.inverse_frequencies`: ``np.power(b, -2.0 * j / d)``; JavaScript's pow may differ
              in the last bit)
    """
    options = tuple(float(b) for b in base_options)
    if not options or not all(math.isfinite(b) and b > 1 for b in options):
        raise ValueError(f"base_options must be finite numbers > 1, got {base_options}")
    d, b = ZOOM_TABLE["d_model"], ZOOM_TABLE["base"]
    if layout == "interleaved":
        pair, fn = "floor(datum.i / 2)", "datum.i % 2 === 0 ? 'sin' : 'cos'"
    elif layout == "concatenated":
        pair, fn = f"datum.i < {d} / 2 ? datum.i : datum.i - {d} / 2", f"datum.i < {d} / 2 ? 'sin' : 'cos'"
    else:
        raise ValueError(f"layout must be 'interleaved' or 'concatenated', got {layout!r}")
    return {
        "d": live.number("d_model"),
        # floor: an index (the input's text read as a number) that Python's lists take too (tests)
        "b": "[" + ", ".join(repr(v) for v in options) + f"][floor({live.number(BASE_KEY)})]",
        "pair": pair,
        "fn": fn,
        "theta": f"pow({b}, -2 * datum.j / {d})",
    }


def zoom_window() -> dict[str, str]:
    """The window as Vega expressions of the in-chart sliders: its first and last position and
    dimension (``p0``, ``p_last``, ``d0``, ``d_last``), cut at seq_len − 1 (`ZOOM_SIZE`) and d − 1
    (the d slider, `ZOOM_TABLE`); its size is the size sliders' (`ZOOM_COUNT`)."""
    p0, d0 = (ZOOM_FIRST[key] for key in WINDOW_PARAMS)
    rows, cols = (ZOOM_COUNT[key] for key in SIZE_PARAMS)
    seq_len, d_model = ZOOM_SIZE["seq_len"], ZOOM_TABLE["d_model"]
    return {
        "p0": p0,
        "p_last": f"min({p0} + {rows}, {seq_len}) - 1",
        "d0": d0,
        "d_last": f"min({d0} + {cols}, {d_model}) - 1",
    }


def zoom_title(window: dict[str, str]) -> str:
    """The Vega expression of the title "Positions a … b, dimensions c … e (d = …, b = …): every value",
    as a list of lines: one to four, as few as the chart's width allows for the digits shown."""
    a = f"'Positions ' + {window['p0']} + ' … ' + ({window['p_last']})"
    b = f"'dimensions ' + {window['d0']} + ' … ' + ({window['d_last']})"
    t = f"'d = ' + {ZOOM_TABLE['d_model']} + ', b = ' + format({ZOOM_TABLE['base']}, ',.0f')"
    em = TITLE_SIZE * CHAR_EM  # the title's size (CONFIG), which its in-browser line breaks are measured in

    def fits(text: str) -> str:  # its width at the title's size (times font_scale in presentation mode)
        return f"width >= length({text}) * {em:g} * {FONT_SCALE_PARAM}"

    candidates = [
        [f"{a} + ', ' + {b} + ' (' + {t} + '): every value'"],
        [f"{a} + ', ' + {b} + ':'", f"'every value (' + {t} + ')'"],
        [f"{a} + ','", f"{b} + ':'", f"'every value (' + {t} + ')'"],
    ]
    last = [f"{a} + ','", f"{b} + ':'", "'every value,'", f"({t})"]
    expr = "[" + ", ".join(last) + "]"
    for lines in reversed(candidates):
        expr = f"{' && '.join(fits(line) for line in lines)} ? [{', '.join(lines)}] : ({expr})"
    return expr


#: The signals holding each axis's label step, `label_step` of the window's rows and columns (`ZOOM_COUNT`).
ZOOM_STEP = {"zoom_np": "zoom_row_step", "zoom_nd": "zoom_col_step"}
#: The window's rows and columns rounded up to whole blocks of `ZOOM_BLOCK`: the signals of the zoom chart's coarse
#: filters, which move once every `ZOOM_BLOCK` steps of a size slider (`zoom_chart`).
ZOOM_BLOCK = 16
ZOOM_COVER = {"zoom_np": "zoom_row_cover", "zoom_nd": "zoom_col_cover"}


def _offset_axis(title: str, offset: str, end: str, count: str, step: str) -> alt.Axis:
    """An axis over the grid's rows or columns 0 … count − 1 labelled with the table's index offset + k
    (offset: the window's first index; count: the window's size; step: `label_step(count)`; all three signals): a tick
    and a label at every multiple of the step of the index, none past the table's last index end − 1 (end: a signal,
    the table's size). While a slider moves, they move with the cells."""
    return alt.Axis(
        title=title,
        grid=False,
        values=alt.ExprRef(f"sequence(({step} - {offset} % {step}) % {step}, min({count}, {end} - {offset}), {step})"),
        labelExpr=f"format(datum.value + {offset}, 'd')",
    )


def zoom_size(seq_len: int) -> pd.DataFrame:
    """The zoom chart's facts row (`ZOOM_SIZE`): the table's length, the one number of the table it is sent."""
    frame = pd.DataFrame({"seq_len": [int(seq_len)]})
    check_zoom_size(frame)
    return frame


def check_zoom_size(frame: pd.DataFrame) -> None:
    """`zoom_size`'s row: one whole seq_len ≥ 1 (the page puts each call's row in a spec built once, render.Rows)."""
    if list(frame.columns) != ["seq_len"] or len(frame) != 1 or not pd.api.types.is_integer_dtype(frame["seq_len"]):
        raise ValueError(f"size: one row of a whole seq_len, got {frame.to_dict('list')}")
    if int(frame["seq_len"].iloc[0]) < 1:
        raise ValueError(f"seq_len must be >= 1, got {int(frame['seq_len'].iloc[0])}")


def zoom_chart(
    *,
    size: pd.DataFrame,
    d_model: int,
    base: float,
    base_options: Sequence[float],
    layout: str,
    scheme: str,
    p0: int,
    d0: int,
    n_positions: int,
    n_dims: int,
    size_max: tuple[int, int],
    d_range: tuple[int, int] = (2, 2048),
    slider_max: tuple[int, int] | None = None,
) -> alt.LayerChart:
    """The zoom window PE(p, i), p0 ≤ p < p0 + n_positions, d0 ≤ i < d0 + n_dims, one rect per value,
    every value computed in the browser.

    Sent: the table's length (`size`, the facts row `zoom_size`, `ZOOM_SIZE`) and nothing else: the spec does not
    depend on it (a page passes it as `explorer.render.Rows`, so another length is new rows in one spec). The window's
    start p0, d0, its size (positions × dimensions), the model dimension d and the base b are the chart's own sliders
    (`LIVE_PARAMS`, starting at `p0`, `d0`, `n_positions`, `n_dims`, `d_model` and `base`): p0 and d0 span
    0 … `slider_max` (default: the table's last position and dimension), the size 1 … `size_max` (positions,
    dimensions), d spans `d_range` in steps of 2, b the indices of `base_options`. The page gives p0 and d0 the widest
    range its controls allow, so that the spec does not depend on the table's size, and narrows them to the table in
    the browser (`explorer.liveparam.LiveChart`); a slider value past the table's edge is read as the edge.

    The browser makes the grid of the largest window, rows r × columns c, once, and keeps its first n_positions rows
    and n_dims columns (a size slider's step adds or removes cells; the size's filters come first, so no other slider
    reruns them). A slider of the start, d or b changes only each cell's position p = p0 + r and dimension i = d0 + c, its pair,
    function and θ_j = b^(−2j/d) (`zoom_expressions`) and its value ``ZOOM_VALUE``: sin or cos of p·θ, the same
    float64 operations as posenc. (The cells keep their place and identity while the window moves, so Vega updates
    them in place; cells made anew at each step cost time growing faster than their number.) Cells past the table's
    last position or dimension are left out: a window cut at the table's edge (or a d dragged below the window) shows
    an empty band there, and so does a window of more positions than the table has (the page allows at most the
    table's length). The chart is `zoom_height(n_positions)` tall, n_positions its size slider's start: while the size
    is dragged the rows stretch, and they stay so until the chart is built at another start."""
    check_zoom_size(size)
    seq_len = int(size["seq_len"].iloc[0])
    options = tuple(float(v) for v in base_options)
    ex = zoom_expressions(layout, options)  # raises for an unknown layout or bad options
    d_lo, d_hi = d_range
    if d_model < 2 or d_model % 2 or not d_lo <= d_model <= d_hi:
        raise ValueError(f"d_model must be even and in {d_lo} … {d_hi}, got {d_model}")
    most_rows, most_cols = (int(v) for v in size_max)
    if not (1 <= n_positions <= most_rows and 1 <= n_dims <= most_cols):
        raise ValueError(f"n_positions and n_dims must be in 1 … size_max = {size_max}, got {n_positions} and {n_dims}")
    p_max, d_max = (seq_len - 1, d_model - 1) if slider_max is None else slider_max
    if p_max < seq_len - 1 or d_max < d_model - 1:
        raise ValueError(
            f"slider_max must reach the table's last position and dimension ({seq_len - 1}, {d_model - 1}), "
            f"got {slider_max}"
        )
    sliders = [  # in the order shown on screen
        live.position("zoom_p0", start=int(p0), lo=0, hi=int(p_max), label="first position p₀ "),
        live.position("zoom_np", start=int(n_positions), lo=1, hi=most_rows, label="positions shown "),
        live.position("zoom_d0", start=int(d0), lo=0, hi=int(d_max), label="first dimension i₀ "),
        live.position("zoom_nd", start=int(n_dims), lo=1, hi=most_cols, label="dimensions shown "),
        live.position("d_model", start=int(d_model), lo=int(d_lo), hi=int(d_hi), step=2, label="model dimension d "),
        live.option_position(BASE_KEY, options, start=base, label="base b "),  # raises for another base
    ]
    size_params = fact_params(ZOOM_SIZE)
    table = [alt.param(name=ZOOM_TABLE[key], expr=ex[name]) for key, name in (("d_model", "d"), ("base", "b"))]
    rows, cols = (ZOOM_COUNT[key] for key in SIZE_PARAMS)
    counts = [alt.param(name=ZOOM_COUNT[key], expr=live.number(key)) for key in SIZE_PARAMS]
    steps = [alt.param(name=ZOOM_STEP[key], expr=label_step_expr(ZOOM_COUNT[key], "12")) for key in SIZE_PARAMS]
    covers = [
        alt.param(name=ZOOM_COVER[key], expr=f"ceil({ZOOM_COUNT[key]} / {ZOOM_BLOCK}) * {ZOOM_BLOCK}")
        for key in SIZE_PARAMS
    ]
    window = zoom_window()
    firsts = [  # a slider value past the table's last position or dimension reads as that last one
        live.at_most_last("zoom_p0", ZOOM_FIRST["zoom_p0"], ZOOM_SIZE["seq_len"]),
        live.at_most_last("zoom_d0", ZOOM_FIRST["zoom_d0"], ZOOM_TABLE["d_model"]),
    ]
    font_scale = font_scale_param()  # style_spec sets it in presentation mode

    # ignore: the stub takes only a Literal of Vega's scheme names; the page's scheme is one
    colours = alt.Scale(scheme=scheme, domain=[-1.0, 1.0], clamp=True)  # type: ignore[arg-type]
    # a cell's edges as expressions of its column c and row r, not fields: Vega-Lite checks a field's values at every
    # step of a slider (a filter over every cell), and a datum channel's not at all. The domains follow the size.
    x = alt.XDatum(alt.ExprRef("datum.c - 0.5"), type="quantitative").scale(
        domain=alt.ExprRef(f"[-0.5, {cols} - 0.5]"), nice=False, zero=False, round=True
    )
    y = alt.YDatum(alt.ExprRef("datum.r - 0.5"), type="quantitative").scale(
        domain=alt.ExprRef(f"[-0.5, {rows} - 0.5]"), nice=False, zero=False, reverse=True, round=True
    )
    cells = (
        alt.Chart(alt.sequence(0, most_cols, as_="c"))
        .transform_calculate(r=f"sequence(0, {most_rows})")
        .transform_flatten(["r"])
        # The window's size next: a step of the start, d or b reruns none of these filters (Vega reruns a transform
        # only when a signal it reads moved, and the ones after it), and a step of the size passes on only the cells it
        # adds or removes. A filter visits all its input when its signal moves: the first two keep whole blocks of
        # `ZOOM_BLOCK` rows and columns, and their signals move once every `ZOOM_BLOCK` steps; the last two visit only
        # those blocks' cells. (Measured in Chromium: one filter over the whole grid cost a size step 1.5-2× a start
        # step; filtered before the flatten, the grid was made anew at each step.)
        .transform_filter(f"datum.c < {ZOOM_COVER['zoom_nd']}")
        .transform_filter(f"datum.r < {ZOOM_COVER['zoom_np']}")
        .transform_filter(f"datum.c < {cols}")
        .transform_filter(f"datum.r < {rows}")
        # A column's dimension, pair, function and θ next, its position last: a p₀ step recomputes p, the
        # filter and the value, not θ (2-3 expressions a cell instead of 7).
        .transform_calculate(i=f"{window['d0']} + datum.c")
        .transform_calculate(j=ex["pair"], fn=ex["fn"])
        .transform_calculate(theta=ex["theta"])
        .transform_calculate(p=f"{window['p0']} + datum.r")
        .transform_filter(f"datum.p < {ZOOM_SIZE['seq_len']} && datum.i < {ZOOM_TABLE['d_model']}")
        .transform_calculate(value=ZOOM_VALUE)
        # no stroke, as a style (a mark property is an encoding Vega evaluates for every cell at every step); no
        # description of each cell (on a canvas Vega writes none into the page; the chart's own description stays)
        .mark_rect(style=ZOOM_CELL_STYLE, aria=False, invalid=None)
        .encode(
            x=x.axis(_offset_axis("dimension i", window["d0"], ZOOM_TABLE["d_model"], cols, ZOOM_STEP["zoom_nd"])),
            x2=alt.X2Datum(alt.ExprRef("datum.c + 0.5")),
            y=y.axis(_offset_axis("position p", window["p0"], ZOOM_SIZE["seq_len"], rows, ZOOM_STEP["zoom_np"])),
            y2=alt.Y2Datum(alt.ExprRef("datum.r + 0.5")),
            color=alt.Color("value:Q").title("PE(p, i)").scale(colours).legend(gradientLength=180),
            tooltip=[
                alt.Tooltip("p:Q", title="position p", format="d"),
                alt.Tooltip("i:Q", title="dimension i", format="d"),
                alt.Tooltip("fn:N", title="function"),
                alt.Tooltip("value:Q", title="PE(p, i)", format=f".{ZOOM_DECIMALS}f"),
            ],
        )
        # Vega lists bound inputs in reverse: p₀ first on screen
        .add_params(*reversed(sliders), *size_params, *table, *counts, *steps, *covers, *firsts, font_scale)
    )
    subtitle = [
        LAYOUT_TITLES[layout],
        "One cell per value, nothing averaged, computed in your browser; hover for the number.",
        "Drag the sliders above. A window past the table's last position or dimension is cut there.",
    ]
    return alt.LayerChart(
        layer=[facts_layer(size), cells],
        title=alt.TitleParams(alt.ExprRef(zoom_title(window)), subtitle=subtitle, anchor="start"),
        description=zoom_description(layout),
        height=zoom_height(n_positions),
        config=ZOOM_CONFIG,
        autosize=FIT_X,
        # Canvas: SVG would be one DOM node per cell, redrawn at every step. (Streamlit picks canvas by
        # itself only when the data sent is large; here the cells are made in the browser.)
        usermeta=on_canvas(),
    )
