"""Chart builders for the relative-position-invariance page (pure: data -> alt.Chart, no st.*).

- `score_heatmap`      a score matrix s(m, n) over query × key positions, as one image
- `shift_matrix_heatmap` the sinusoidal shift matrix R_k, as one image
- `deviation_chart`    the shift test: max |s(m, n) − s(m+t, n+t)| per method on a log axis, with
                       the pass mark drawn as a rule, at the N, d, b and t of its own sliders (every t's
                       numbers, and every N, d and b of windows, sent once: `shift_reach` and
                       `arm_window` bound how many)
- `curve_chart`        one line y(x) with an optional log x axis and a marked x (used for the
                       ‖PE(p+k) − R_k·PE(p)‖ residual and for RoFormer's long-term decay bound)

Their words (the headline's phrases, titles with numbers, the page's sentences) are
explorer.text.invariance's.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts import live
from explorer.charts.style import FIT_X, FONT_SCALE_PARAM, HALO, configure, font_scale_param, on_canvas
from explorer.imagechart import coarse_hover_cells, fit_heatmap_legend, image_heatmap
from explorer.imagechart import meta as imagechart_meta
from explorer.text.invariance import (
    SLIDER_NAMES,
    deviation_label_expr,
    shift_chart_description,
    survivors_title,
    table_name_expr,
)

#: A slider's values: whole numbers (N, d) or a parameter's options (the base).
V = TypeVar("V", int, float)
#: Colours of the pass / fail verdicts.
VERDICT_COLORS = {"pass": "#15803D", "fail": "#B91C1C"}


def score_heatmap(
    scores: np.ndarray,
    positions: np.ndarray,
    *,
    title: str,
    subtitle: str | None = None,
    width: int = 330,
    height: int = 420,
    dark: bool = False,
) -> alt.LayerChart:
    """s(m, n) with query position m down the rows and key position n along the columns; the
    legend sits below so that three of these fit side by side. `dark`: drawn for the dark card
    (`explorer.imagechart.image_heatmap`)."""
    scores = np.asarray(scores, dtype=np.float64)
    positions = np.asarray(positions, dtype=np.float64)
    if scores.ndim != 2 or scores.shape != (positions.size, positions.size):
        raise ValueError(
            f"scores must be square with one row per position ({positions.size}), got shape {scores.shape}"
        )
    chart = image_heatmap(
        scores,
        x_values=positions,
        y_values=positions,
        x_title="key position n",
        y_title="query position m",
        value_title="score",
        scheme="redblue",
        width=width,
        height=height,
        title=title,
        # about 20 px a hover cell (256 at N = 64): the default (up to 2,500; 1,024 at N = 64) cost the page
        # 45–70 ms of browser work a press (bench/RESULTS.md section 13, session 16); up to N = 16 every
        # cell is its own
        hover_cells=coarse_hover_cells(width, height),
        dark=dark,
    )
    note = imagechart_meta(chart)["note"]  # set when the image had to be reduced
    if subtitle or note:
        full = " · ".join(part for part in (subtitle, note) if part)
        chart = chart.properties(title=alt.TitleParams(title, subtitle=full, anchor="start"))
    # Canvas, not SVG: the hover grid is a few hundred invisible rects per heatmap, and the page's three
    # heatmaps change at every control; as SVG nodes they took ~110 ms of each redraw in the browser
    # (bench/RESULTS.md section 13, 2026-11-26 10:50). These plots follow the page's width either way.
    chart = chart.properties(usermeta=on_canvas())
    return configure(fit_heatmap_legend(chart, 160, orient="bottom"))


def shift_matrix_heatmap(
    r: np.ndarray, *, k: float, layout: str, width: int = 400, height: int = 400, dark: bool = False
) -> alt.LayerChart:
    """The (d, d) matrix R_k with PE(p + k) = R_k·PE(p) (`posenc.shift_matrix`). `dark`: drawn for the dark card
    (`explorer.imagechart.image_heatmap`)."""
    r = np.asarray(r, dtype=np.float64)
    if r.ndim != 2 or r.shape[0] != r.shape[1]:
        raise ValueError(f"r must be a square matrix, got shape {r.shape}")
    return configure(
        fit_heatmap_legend(
            image_heatmap(
                r,
                x_title="input dimension of PE(p)",
                y_title="output dimension",
                value_title="value",
                scheme="redblue",
                domain=(-1.0, 1.0),
                width=width,
                height=height,
                title=f"R_k for k = {k:g} ({r.shape[0]} × {r.shape[0]}, {layout} layout)",
                dark=dark,
            ),
            height - 110,
        )
    )


# ------------------------------------------------------------- the shift test, moved in the browser
#: The chart's own sliders (explorer.charts.live.position): the registry parameters N, d, b, t and the learned
#: table's rows themselves.
N_KEY, D_KEY, B_KEY, LIVE_KEY, L_KEY = "seq_len", "head_dim", "base", "shift_t", "table_len"
#: All five (b runs over the base's options); with typed q and k, d is the vectors' length and no slider
#: (`live_params`). The table's rows need no data of their own: the rows hold the learned test with a table as long
#: as each point needs (a table's rows do not depend on its length), and the chart hides it where N − 1 + t is past
#: the slider's last row.
LIVE_PARAMS = (N_KEY, D_KEY, B_KEY, LIVE_KEY, L_KEY)
#: The shift test's encodings, in the chart's order: (the sweep's column, the bar's label).
ENCODINGS = (("rope", "RoPE ({dtype})"), ("sinusoidal", "sinusoidal PE added"), ("learned", "learned table added"))
#: The field the chart draws for a column where it differs (`deviation_chart`): the learned test where the table
#: slider's rows reach N − 1 + t.
SHOWN = {"learned": "learned_held"}


def live_params(d_slider: bool) -> tuple[str, ...]:
    """The chart's sliders: N, d, b, t and the table's rows, or all but d where d is fixed by typed vectors."""
    return LIVE_PARAMS if d_slider else tuple(key for key in LIVE_PARAMS if key != D_KEY)


#: How far the chart's slider reaches (`shift_reach`). The chart carries the shift test at every t in
#: 1 … T, computed once (posenc.shift_test_sweep) and sent once: T ≤ 1000 rows of five numbers (≤ 40 kB
#: as Arrow), so the data is small; the bound is the server's work. Per t the
#: sweep does three (N, d)·(d, N) products and compares N² scores three times: measured on this
#: project's 2-core machine, about 0.2–0.3 ns per unit of N²·(d + 16) + SHIFT_CALL (the cost of a
#: window's numpy calls, ~30 µs, when each t was a call of its own; posenc runs the windows in batches
#: now, which made small N and d cheaper: N = 64, d = 8 20 → 12 ms). T·(N²·(d + 16) + SHIFT_CALL) ≤
#: SHIFT_WORK keeps one sweep under about 80 ms (500 values at N = 64, d = 64; 1000 for small heads;
#: 20 at N = d = 256, about 35 ms, the floor).
#: Since posenc's products run on its grid of positions (bench/RESULTS.md section 46) a sweep cuts every window out of
#: one product and costs about a third of this (N = 64, d = 64: 17 ms); the bound was kept as it was measured.
SHIFT_WORK = 2**28
SHIFT_CALL = 2**17
SHIFT_FLOOR = 20


def shift_reach(n_pos: int, d: int, cap: int) -> int:
    """The largest t the chart's slider reaches (and the chart carries) for N = `n_pos` and head dim
    `d`: the most that SHIFT_WORK allows, rounded down to 1, 2 or 5 × 10^k, at least SHIFT_FLOOR,
    at most `cap` (the registry's largest t)."""
    if n_pos < 1 or d < 1 or cap < 1:
        raise ValueError(f"n_pos, d and cap must be >= 1, got {n_pos}, {d}, {cap}")
    most = SHIFT_WORK // (n_pos * n_pos * (d + 16) + SHIFT_CALL)
    nice = max((m * 10**e for e in range(8) for m in (1, 2, 5) if m * 10**e <= most), default=1)
    return min(cap, max(SHIFT_FLOOR, nice))


#: The chart's other three arms (`arm_window`): the test at the t of the slider for every N in a window around the
#: page's N (posenc.shift_test_points), for seeded vectors for every d in a window around its d (new q, k,
#: projections and table per d), and for every base option in a window around its b. Measured on this project's 2-core machine (2026-11-30): a point costs about
#: 0.05 ns per unit of n·d·(4d + 3n) (its two d × d projections of n rows per additive encoding and its three n × n
#: score matrices) plus ARM_CALL units for its numpy calls, and a d of its own ARM_PER_D·d² + ARM_D_CALL more (the
#: seeded projections and table). ARM_WORK units bound each arm (measured 35–50 ms each; `arm_window`): at the
#: default N = d = 64 the arms reach N = 1 … 155 and d = 40 … 84; at N = d = 16, every N and d = 2 … 54; at
#: N = d = 256, the five values up to each (bench/RESULTS.md section 34).
#: The N arm now takes one product for all its N at once (posenc.shift_test_curves) and the server keeps each t's
#: curve over N (compute.invariance.shift_points): the bound was kept as it was measured, an upper one now.
ARM_WORK = 600_000_000
ARM_CALL = 1_000_000
ARM_PER_D = 800
ARM_D_CALL = 20_000_000


def point_cost(n: int, d: int, *, own_vectors: bool = False) -> int:
    """The work units (see ARM_WORK) of one point of an arm: the shift test over N = `n` at head dim `d`; with
    `own_vectors`, the seeded vectors of that d made too."""
    cost = n * d * (4 * d + 3 * n) + ARM_CALL
    return cost + (ARM_PER_D * d * d + ARM_D_CALL if own_vectors else 0)


def arm_window(center: V, values: Sequence[V], cost: Callable[[V], int], budget: int | None = None) -> tuple[V, V]:
    """The first and last of `values` (ascending) in the window around `center` (one of them) that an arm computes:
    grown one value at a time on alternate sides (the lower first), so that a hand can go either way; a side stops
    where its next value would take the costs' sum past `budget` (ARM_WORK by default), and the other side goes on
    alone. `center` itself always."""
    budget = ARM_WORK if budget is None else budget
    values = list(values)
    if center not in values:
        raise ValueError(f"center must be one of the values ({values[0]} … {values[-1]}), got {center}")
    lo = hi = values.index(center)
    spent = cost(center)
    open_sides = [-1, 1]
    while open_sides:
        for side in list(open_sides):
            i = lo - 1 if side < 0 else hi + 1
            if not 0 <= i < len(values) or spent + cost(values[i]) > budget:
                open_sides.remove(side)
                continue
            spent += cost(values[i])
            lo, hi = min(lo, i), max(hi, i)
    return values[lo], values[hi]


def sweep_frame(sweep: dict) -> pd.DataFrame:
    """`posenc.shift_test_sweep`'s result as a table: one row per t (its three deviations and its pass mark)."""
    return pd.DataFrame(
        {
            "t": sweep["offset"],
            "rope": sweep["rope_dev"],
            "sinusoidal": sweep["sinusoidal_dev"],
            "learned": sweep["learned_dev"],
            "tolerance": sweep["tolerance"],
        }
    )


#: The columns of `deviation_chart`'s rows: the point (N, d, b, the slider's t it answers, the t it was computed at),
#: its three deviations and pass mark, and the log axis's ends (the same in every row).
ROW_COLUMNS = ("n", "d", "b", "hand", "t", "rope", "sinusoidal", "learned", "tolerance", "lo", "hi")


def points_frame(points: dict, *, d: int, b: float, hand: int) -> pd.DataFrame:
    """`posenc.shift_test_points`'s result for head dim `d` and base `b`, answering the slider's t = `hand`, as rows
    (without the axis columns)."""
    return points_frames([(d, b, points)], hand=hand)


def points_frames(points: Sequence[tuple[int, float, dict]], *, hand: int) -> pd.DataFrame:
    """`points_frame` of several head dims or bases at once, from (d, b, `posenc.shift_test_points`' result) triples:
    one table built, not one a point (1–2 ms each)."""
    joined = {key: np.concatenate([np.asarray(p[key]) for _, _, p in points]) for key in points[0][2]}
    sizes = [len(p["offset"]) for _, _, p in points]
    dims = np.repeat(np.array([int(d) for d, _, _ in points], dtype=np.int64), sizes)
    bases = np.repeat(np.array([float(b) for _, b, _ in points], dtype=np.float64), sizes)
    return sweep_frame(joined).assign(n=joined["n_positions"], d=dims, b=bases, hand=int(hand))


def live_rows(sweep: pd.DataFrame, *, n_pos: int, d: int, b: float, arms: Sequence[pd.DataFrame] = ()) -> pd.DataFrame:
    """`deviation_chart`'s rows: the sweep (`sweep_frame`, one row per t at N = `n_pos`, head dim `d`, base `b`: the
    slider's t is its t) and the arms (`points_frame`s), a point in several of them once (the sweep's), with the log
    axis (`deviation_axis` over all of them) in columns lo and hi."""
    along_t = sweep.assign(n=int(n_pos), d=int(d), b=float(b), hand=sweep["t"])
    rows = pd.concat([along_t, *arms], ignore_index=True).drop_duplicates(["n", "d", "b", "hand"], keep="first")
    floor, top = deviation_axis(rows)
    rows = rows.assign(lo=floor, hi=top)
    types = {"n": "int64", "d": "int64", "b": "float64", "hand": "int64", "t": "int64"}
    return rows[list(ROW_COLUMNS)].astype(types).reset_index(drop=True)


#: The note drawn where no row answers the sliders (`deviation_chart`), in short lines (a phone's plot is about
#: 330 px wide); the point the rows were computed from goes between the third and the fourth.
NOT_HELD = (
    "No numbers for these slider values.",
    "The chart holds the test along",
    "one slider at a time, from",
    "In the app, letting go of a slider",
    "brings the numbers for it.",
)
#: The columns of `home_frame`: where the rows were computed from (N, d, b, t) and how far each arm reaches.
HOME_COLUMNS = ("n", "d", "b", "t", "t_hi", "n_lo", "n_hi", "d_lo", "d_hi", "b_lo", "b_hi")


def home_frame(n_pos: int, d: int, b: float, shift_t: int, reach: Mapping[str, tuple[float, float]]) -> pd.DataFrame:
    """One row saying which points `live_rows` holds: every t in 1 … t_hi at (n, d, b), every N in n_lo … n_hi at
    (d, b, t), every d in d_lo … d_hi at (n, b, t) (none where `reach`, by parameter, has no head_dim: typed
    vectors), every base option in b_lo … b_hi at (n, d, t)."""
    d_lo, d_hi = reach.get(D_KEY, (d, d))
    row = [n_pos, d, b, shift_t, reach[LIVE_KEY][1], *reach[N_KEY], d_lo, d_hi, *reach[B_KEY]]
    types = {c: "float64" if c.startswith("b") else "int64" for c in HOME_COLUMNS}
    return pd.DataFrame([row], columns=list(HOME_COLUMNS)).astype(types)


def deviation_axis(sweep: pd.DataFrame) -> tuple[float, float]:
    """The log axis (floor, top) of `deviation_chart`, the same at every point of `sweep`: from 100×
    below the smallest positive deviation or pass mark, to 100× above the largest deviation and at
    least 4 decades (and 55 % of the span left of it) right of the largest pass mark, so the labels
    that start at the pass mark fit."""
    tol = sweep["tolerance"].to_numpy(dtype=float)
    devs = sweep[[column for column, _ in ENCODINGS]].to_numpy(dtype=float).ravel()
    positive = devs[np.isfinite(devs) & (devs > 0)]
    floor = 10.0 ** math.floor(math.log10(min([tol.min(), *positive.tolist()]) / 100))
    left = math.log10(tol.max()) - math.log10(floor)
    room = max(4.0, 0.55 * left)
    top = 10.0 ** math.ceil(max([math.log10(tol.max()) + room, *np.log10(positive * 100).tolist()]))
    return floor, top


def survivor_phrases() -> list[str]:
    """`explorer.text.invariance.survivors_title` for every combination of verdicts, indexed by 4·(RoPE passes) + 2·(the
    sinusoid passes) + (the learned table passes): the chart picks one in the browser."""
    return [
        survivors_title(
            {
                key: (0.0 if code & bit else 1.0)
                for key, bit in (("rope_dev", 4), ("sinusoidal_dev", 2), ("learned_dev", 1))
            },
            0.5,
        )
        for code in range(8)
    ]


#: A bar's thickness (px); the encoding's name sits right above it.
BAR_PX = 26
#: The plot width (px, times the font scale) below which the learned table's name takes its short form.
NAME_ROOM = 480
#: The headline's font size, and the chart widths (px) its words are wrapped for, widest first.
HEADLINE_FONT = 17
HEADLINE_ROOMS = (560, 400, 280)
#: The average width of a bold character of the chart font, in ems (for wrapping the headline).
BOLD_EM = 0.62


def _headline_expr(code: str, t: str) -> str:
    """The Vega expression of the headline's lines: the survivors phrase for verdict `code` and
    "by t = …", wrapped to the widest of HEADLINE_ROOMS the chart's width holds (times the
    presentation font scale)."""
    # "by t = 0000" (the widest t) stays on one line: joined by no-break spaces while wrapping
    tail = "\u00a0".join(("", "by", "t", "=", "0000"))
    by_room = []
    for room in HEADLINE_ROOMS:
        per_line = max(int(room / (HEADLINE_FONT * BOLD_EM)), 16)
        by_room.append(
            [
                [line.replace("\u00a0", " ") for line in textwrap.wrap(phrase + tail, per_line)]
                for phrase in survivor_phrases()
            ]
        )
    choice = json.dumps(by_room[-1], ensure_ascii=False)
    for room, table in zip(HEADLINE_ROOMS[-2::-1], by_room[-2::-1]):
        choice = f"(width >= {room} * {FONT_SCALE_PARAM} ? {json.dumps(table, ensure_ascii=False)} : {choice})"
    # "0000" is in one line only (the last word): join, put t in, split again
    return f"split(replace(join({choice}[{code}], '\\n'), '0000', {t}), '\\n')"


def check_rows(rows: pd.DataFrame) -> None:
    """`deviation_chart`'s rows as it needs them (ValueError otherwise): `ROW_COLUMNS`, each (n, d, b, hand) once, a
    finite pass mark > 0 in every row. The page passes it with the rows (render.Rows), so rows put into a spec built
    from others are checked too."""
    need = set(ROW_COLUMNS)
    if not need <= set(rows.columns):
        raise ValueError(f"rows must have columns {sorted(need)}, got {list(rows.columns)}")
    tol = rows["tolerance"].to_numpy(dtype=float)
    if rows.empty or not (np.all(np.isfinite(tol)) and np.all(tol > 0)):
        raise ValueError(f"tolerance must be finite and > 0 in every row, got {tol.size} rows")
    if rows.duplicated(["n", "d", "b", "hand"]).any():
        raise ValueError("rows must answer each (n, d, b, hand) once")


def check_home(home: pd.DataFrame) -> None:
    """`deviation_chart`'s home row as it needs it (ValueError otherwise): one row of `HOME_COLUMNS`."""
    if list(home.columns) != list(HOME_COLUMNS) or len(home) != 1:
        raise ValueError(
            f"home must be one row of columns {list(HOME_COLUMNS)}, got {len(home)} of {list(home.columns)}"
        )


def deviation_chart(
    rows: pd.DataFrame,
    home: pd.DataFrame,
    *,
    starts: Mapping[str, int],
    dtype: str,
    n_max: int,
    d_range: tuple[int, int, int] | None,
    t_cap: int,
    b_options: Sequence[float],
    table_span: tuple[int, int],
    typed_d: int | None = None,
    width: int = 620,
) -> alt.LayerChart:
    """The shift test at the N, d and t of the chart's own sliders: one bar per encoding, its largest score
    change max |s(m, n) − s(m+t, n+t)| on a log axis, the pass mark as a dashed rule, and a headline
    naming the encodings whose scores survive.

    rows     `live_rows`: the test at every t the page's N, d and b reach, and the arms (every N in a window at the
             page's t, every d and every base option in a window at its N and t). All of it is sent once; the sliders
             pick the row in the browser (n, d, b and hand equal to N, d, b and t), with no server run, and the page
             hears the values when a drag ends.
    home     `home_frame`: which points the rows hold. Where none answers the sliders (two of them moved before the
             page caught up, or in a saved file), a note says what the chart holds instead of bars.
    starts   where the sliders start ({seq_len, head_dim, base, shift_t, table_len}; no head_dim where `d_range` is
             None; the base as its value).
    n_max, d_range, t_cap, b_options, table_span   the sliders' spans (N 1 … n_max; d as (least, most, step), None
             for typed vectors of length `typed_d`; t 1 … t_cap; b over the base's options; the learned table's rows
             as (least, most)): the registry's, so that the spec holds none of the page's numbers (the page narrows
             the sliders in the browser: explorer.liveparam.ranges_html) and new rows redraw the chart in place.
             The rows' learned column holds the test with a table as long as each point needs; the chart hides it
             where N − 1 + t is past the table slider's last row (posenc's report has no number there).
    """
    check_rows(rows)
    check_home(home)
    keys = live_params(d_range is not None)
    if set(starts) != set(keys):
        raise ValueError(f"starts must give {list(keys)}, got {sorted(starts)}")
    if d_range is None and typed_d is None:
        raise ValueError("typed_d must be given where d has no slider (d_range None)")
    if float(starts[B_KEY]) not in [float(v) for v in b_options]:
        raise ValueError(f"start of base must be one of {tuple(b_options)}, got {starts[B_KEY]}")
    spans = {N_KEY: (1, n_max, 1), D_KEY: d_range or (0, 0, 1), LIVE_KEY: (1, t_cap, 1), L_KEY: (*table_span, 1)}
    for key in (k for k in keys if k != B_KEY):
        lo, hi, step = spans[key]
        if not (lo <= starts[key] <= hi and (starts[key] - lo) % step == 0):
            raise ValueError(f"start of {key} must be in {lo} … {hi} (step {step}), got {starts[key]}")
    # No row need answer the starts: a chart kept from an earlier run keeps its starts (explorer.liveparam.plan) while
    # its rows follow the sliders where the browser holds them; Streamlit keeps that view, and draws new rows in it.
    labels = [label.format(dtype=dtype) for _, label in ENCODINGS]
    sliders = [
        live.position(N_KEY, start=int(starts[N_KEY]), lo=1, hi=int(n_max), label=SLIDER_NAMES[N_KEY] + " "),
        *(
            [
                live.position(
                    D_KEY,
                    start=int(starts[D_KEY]),
                    lo=d_range[0],
                    hi=d_range[1],
                    step=d_range[2],
                    label=SLIDER_NAMES[D_KEY] + " ",
                )
            ]
            if d_range is not None
            else []
        ),
        live.option_position(B_KEY, b_options, start=float(starts[B_KEY]), label=SLIDER_NAMES[B_KEY] + " "),
        live.position(LIVE_KEY, start=int(starts[LIVE_KEY]), lo=1, hi=int(t_cap), label=SLIDER_NAMES[LIVE_KEY] + " "),
        live.position(
            L_KEY, start=int(starts[L_KEY]), lo=table_span[0], hi=table_span[1], label=SLIDER_NAMES[L_KEY] + " "
        ),
    ]
    b_now = live.option(B_KEY, b_options)
    # the sliders' values as numbers (Vega-Lite resolves a point selection's field to an array of its values:
    # [16], which arithmetic reads as 16 but === does not)
    picks = [f"datum.n === {live.number(N_KEY)}", f"datum.b === {b_now}", f"datum.hand === {live.number(LIVE_KEY)}"]
    if d_range is not None:
        picks.insert(1, f"datum.d === {live.number(D_KEY)}")
    # The rows go to the layer chart, not to each layer: Altair, lifting a dataset its layers share, hashed
    # each unnamed layer's printed DataFrame (pandas' repr, about 1 ms a layer per run) for a name the
    # spec never uses. The spec is byte-identical either way (checked on three sweeps when this changed).
    # the learned test where the slider's table has a row for N − 1 + t (its own field: a calculate that wrote the
    # field it reads would read its own last result when only the table slider moves: tests/test_vega_dataflow.py)
    row = (
        alt.Chart()
        .transform_filter(" && ".join(picks))
        .transform_calculate(
            **{SHOWN["learned"]: f"datum.n - 1 + datum.t < {live.number(L_KEY)} ? datum.learned : NaN"}
        )
    )
    # ---- one row per encoding at this point: its number, verdict, bar end and label
    label_of = " : ".join(
        f"datum.key === '{SHOWN.get(column, column)}' ? '{label}'" for (column, _), label in zip(ENCODINGS, labels)
    )
    per_encoding = row.transform_fold(
        [SHOWN.get(column, column) for column, _ in ENCODINGS], as_=["key", "deviation"]
    ).transform_calculate(
        method=f"{label_of} : ''",
        # in a narrow plot (a phone's) the short form, which fits its width at the chart's font
        name=(
            f"datum.key !== '{SHOWN['learned']}' ? datum.method : "
            + table_name_expr(
                labels[-1],
                f"({live.number(L_KEY)} - 1)",
                "(datum.n - 1 + datum.t)",
                f"width < {NAME_ROOM} * {FONT_SCALE_PARAM}",
            )
        ),
        ok="isValid(datum.deviation) && isFinite(datum.deviation)",
        verdict="!datum.ok ? 'n/a' : datum.deviation <= datum.tolerance ? 'pass' : 'fail'",
        shown="datum.ok ? max(datum.deviation, datum.lo) : datum.lo",
        text=deviation_label_expr(live.sci("datum.deviation", 2)),
        # Every label starts right of the pass mark, never across its rule: a failing bar's at the
        # bar's end (already right of it), a passing bar's and a note's just after the rule.
        text_x="max(datum.shown, datum.tolerance)",
    )
    # The log axis runs from lo to hi (columns of every row, `deviation_axis` of all of them): an invisible rule
    # over the whole table spans it, so the axis is the same at every point and the spec holds no number of it.
    x_scale = alt.Scale(type="log", nice=False)

    def x_of(field: str) -> alt.X:
        return (
            alt.X(f"{field}:Q")
            .scale(x_scale)
            .title("max |s(m, n) − s(m+t, n+t)|  (log scale)")
            .axis(format=".0e", tickCount=8)
        )

    axis = (
        alt.Chart()
        .transform_aggregate(lo="min(lo)", hi="max(hi)")
        .mark_rule(opacity=0)
        .encode(x=x_of("lo"), x2="hi:Q")
        .properties(name="shift_axis")
    )
    # The encodings' names sit above their bars (no y axis: the plot takes the whole width, and the
    # names never need cutting short, in presentation mode's larger text too).
    y = alt.Y("method:N").sort(labels).scale(domain=labels, paddingInner=0.45, paddingOuter=0.35).axis(None)
    verdict_colour = (
        alt.Color("verdict:N")
        .scale(domain=[*VERDICT_COLORS, "n/a"], range=[*VERDICT_COLORS.values(), "#475569"])
        .legend(None)
    )
    bars = (
        per_encoding.transform_filter("datum.ok")
        .mark_bar(height=BAR_PX)
        .encode(
            x=x_of("lo"),
            x2="shown:Q",
            y=y,
            color=verdict_colour,
            tooltip=[alt.Tooltip("method:N"), alt.Tooltip("deviation:Q", format=".3e"), alt.Tooltip("verdict:N")],
        )
        .properties(name="shift_bars")
        .add_params(*reversed(sliders))  # vega-embed lists the inputs in reverse: N, d, b, t from the top
    )
    # each name over a halo in the card's colour, drawn before the bars: it hides the pass mark's rule behind the name
    name_font: dict = dict(align="left", baseline="bottom", dy=-(BAR_PX // 2 + 4), fontSize=15)
    # the learned table's name says how far its rows reach and which row the test needs, so the table slider shows
    # what it does at every value, not only where the bar appears or goes
    name_at: dict = dict(x=alt.value(0), y=y, text="name:N")
    name_halo = per_encoding.mark_text(color=HALO, stroke=HALO, strokeWidth=10, strokeJoin="round", **name_font)
    names = per_encoding.mark_text(color="#0F172A", **name_font).encode(**name_at)
    values = per_encoding.mark_text(align="left", dx=6, fontSize=14, fontWeight="bold").encode(
        x=alt.X("text_x:Q").scale(x_scale), y=y, text="text:N", color=verdict_colour
    )
    mark = row.transform_calculate(label=f"'pass mark ' + {live.sci('datum.tolerance', 1)}").encode(
        x=alt.X("tolerance:Q").scale(x_scale)
    )
    rule = mark.mark_rule(strokeDash=[6, 4], strokeWidth=2, color="#0F172A")
    # the rule again over each bar that reaches it, as long as the bar is tall (the rule itself runs under the bars and
    # the names' halos, which hide it behind a name: it crossed the learned table's long name)
    rule_on_bars = (
        per_encoding.transform_filter("datum.ok && datum.shown > datum.tolerance")
        .mark_rule(strokeDash=[6, 4], strokeWidth=2, color="#0F172A", yOffset=-BAR_PX / 2, y2Offset=BAR_PX / 2)
        .encode(x=alt.X("tolerance:Q").scale(x_scale), y=y.bandPosition(0.5), y2=alt.Y2("method:N", bandPosition=0.5))
    )
    rule_label = mark.mark_text(align="left", dx=4, dy=-6, fontSize=13, color="#0F172A", baseline="bottom").encode(
        y=alt.value(0), text="label:N"
    )
    code = " + ".join(
        f"(isValid(datum.{shown}) && datum.{shown} <= datum.tolerance ? {bit} : 0)"
        for shown, bit in zip((SHOWN.get(column, column) for column, _ in ENCODINGS), (4, 2, 1))
    )
    # The headline's lines end 26 px (times the font scale) above the plot, clear of the pass mark's
    # label: its first line's top is placed that far up plus one line height per further line.
    line_px = f"({HEADLINE_FONT + 5} * {FONT_SCALE_PARAM})"
    headline = (
        row.transform_calculate(code=code)
        .transform_calculate(lines=_headline_expr("datum.code", "datum.t"))
        .transform_calculate(top=f"-26 * {FONT_SCALE_PARAM} - length(datum.lines) * {line_px}")
        .mark_text(
            align="left",
            baseline="top",
            fontSize=HEADLINE_FONT,
            fontWeight="bold",
            color="#0F172A",
            lineHeight=alt.ExprRef(line_px),
        )
        .encode(x=alt.value(0), y=alt.Y("top:Q").scale(None), text="lines:N")
    )
    # ---- where no row answers: say what the chart holds (one row, `home`: one evaluation a press)
    n_now, t_now = live.number(N_KEY), live.number(LIVE_KEY)
    d_now = live.number(D_KEY) if d_range is not None else "datum.d"
    b_home = f"{b_now} === datum.b"
    held = (
        f"({b_home} && {n_now} === datum.n && {d_now} === datum.d && {t_now} >= 1 && {t_now} <= datum.t_hi)"
        f" || ({b_home} && {t_now} === datum.t && {d_now} === datum.d && {n_now} >= datum.n_lo && {n_now} <= datum.n_hi)"
        f" || ({b_home} && {t_now} === datum.t && {n_now} === datum.n && {d_now} >= datum.d_lo && {d_now} <= datum.d_hi)"
        f" || ({t_now} === datum.t && {n_now} === datum.n && {d_now} === datum.d && {b_now} >= datum.b_lo"
        f" && {b_now} <= datum.b_hi)"
    )
    at_home = (
        "'N = ' + datum.n + ("
        + ("', d = ' + datum.d + " if d_range is not None else "")
        + "', b = ' + format(datum.b, ',d') + ' and t = ' + datum.t)"
    )
    note = (
        alt.Chart(home)
        .transform_filter(f"!({held})")
        .transform_calculate(
            note=f"[{', '.join(map(repr, NOT_HELD[:3]))}, {at_home} + '.', {', '.join(map(repr, NOT_HELD[3:]))}]"
        )
        .mark_text(align="left", baseline="top", fontSize=14, color="#0F172A", lineHeight=20)
        .encode(x=alt.value(0), y=alt.value(8), text="note:N")
        .properties(name="shift_not_held")
    )
    chart = alt.LayerChart(
        data=rows[list(ROW_COLUMNS)],
        layer=[axis, rule, name_halo.encode(**name_at), bars, rule_on_bars, names, values, rule_label, headline, note],
        # font_scale: set by style_spec in presentation mode, where every font size grows
        params=[font_scale_param().param],  # type: ignore[list-item]
        width=width,
        height=64 * len(labels),
        description=shift_chart_description(dtype, typed_d if d_range is None else None),
        autosize=FIT_X,
    )
    return configure(chart)


def curve_chart(
    df: pd.DataFrame,
    *,
    x: str,
    y: str,
    x_title: str,
    y_title: str,
    title: str,
    subtitle: str | None = None,
    log_x: bool = False,
    y_format: str | None = None,
    mark_x: float | None = None,
    mark_label: str | None = None,
    width: int = 460,
    height: int = 340,
) -> alt.LayerChart:
    """One line y(x) (with points when there are at most 64), optionally on a log x axis, with an
    optional vertical rule at `mark_x` labelled `mark_label`.

    Keep `y_title` shorter than the plot is tall: a longer axis title overhangs the plot and,
    under Streamlit's "fit" autosize, pushes the chart title out of view."""
    for col in (x, y):
        if col not in df.columns:
            raise ValueError(f"df has no column {col!r}; columns: {list(df.columns)}")
    if log_x and (df[x] <= 0).any():
        raise ValueError(f"a log x axis needs {x} > 0, got min {df[x].min()}")
    x_scale = alt.Scale(type="log", nice=False) if log_x else alt.Scale(zero=False, nice=False)
    y_axis = alt.Axis(format=y_format) if y_format else alt.Axis()
    x_enc = alt.X(f"{x}:Q").scale(x_scale).title(x_title)
    y_enc = alt.Y(f"{y}:Q").scale(alt.Scale()).title(y_title).axis(y_axis)
    tooltip = [alt.Tooltip(f"{x}:Q", title=x_title, format="~g"), alt.Tooltip(f"{y}:Q", title=y_title, format=".3e")]
    line = (
        alt.Chart(df)
        .mark_line(color="#1D4ED8", strokeWidth=2.5, point=len(df) <= 64)
        .encode(x=x_enc, y=y_enc, tooltip=tooltip)
    )
    layers = [line]
    if mark_x is not None:
        mark = alt.Chart(pd.DataFrame({"mx": [mark_x], "label": [mark_label or ""]})).encode(
            x=alt.X("mx:Q").scale(x_scale)
        )
        layers += [
            mark.mark_rule(strokeDash=[6, 4], color="#B91C1C", strokeWidth=2),
            mark.mark_text(align="left", dx=5, baseline="top", fontSize=13, color="#B91C1C").encode(
                y=alt.value(4), text="label:N"
            ),
        ]
    chart = alt.LayerChart(layer=list(layers)).properties(
        width=width, height=height, title=alt.TitleParams(title, subtitle=subtitle or "")
    )
    return configure(chart)
