"""Chart builders for the context-extension page: data -> alt.Chart, no Streamlit calls.

One builder per chart kind: `per_pair_chart` draws every "one value per frequency pair" view
(largest angles, wavelengths, frequency ratio, angle step), `line_chart` every curve against a
continuous x (score against distance, attention factor against s, phase error against position);
`interpolation_strip_chart` is the Position-Interpolation picture. The thin wrappers below choose
the titles (which state the point, with the numbers) and the reference lines.

Speed: the page draws eight charts per run, so encodings are built with constructor keywords
(``alt.X("pair:Q", title=...)``) rather than chained methods or shorthand strings, and title,
size and config are passed when the layer is created: each chained call deep-copies the spec and
each shorthand string is parsed against the schema, which together cost ~30 ms per chart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

import posenc
from explorer import ropeblock
from explorer.charts import live
from explorer.charts.style import (
    FIT_X,
    FONT_SCALE_PARAM,
    HALO,
    chart_config,
    fact,
    facts_titled,
)
from explorer.ropeblock import AF_KNOBS, BROWSER_KNOBS, LIVE_SLIDERS, SHAPE_SLIDERS
from explorer.text import extension as text
from explorer.text.extension import ratio_title
from explorer.vocabulary import BASE_OPTIONS, BLOCK_KEY_WIDGETS, TARGET_STOPS

# Colours: trained/original in slate, scaled in blue, "problem" in red (colour-blind safe pairs).
BEFORE = "#64748b"
AFTER = "#1d4ed8"
WARN = "#dc2626"
EXTRA = "#f59e0b"
BAND_COLORS = {"kept": "#16a34a", "smoothed": "#f59e0b", "divided": "#1d4ed8"}
DTYPE_COLORS = {"float32": "#16a34a", "float16": "#dc2626", "bfloat16": "#7c3aed"}

PAIR_AXIS = "pair j (0 = fastest … d/2 − 1 = slowest)"
#: The plot's height (px; title, legend and axes come on top: `style.FIT_X`).
HEIGHT = 200
#: The title's font size (CONFIG's), which its line breaks are measured in.
TITLE_SIZE = 19


#: The narrowest plot (px, at font scale 1) whose legend keeps its entries in one row.
LEGEND_ROW_PX = 560

#: Projector-legible fonts (every text ≥ 14 px), legend on top, no frame.
CONFIG = chart_config(
    title={"fontSize": TITLE_SIZE, "subtitleFontSize": 15, "offset": 10},
    axis={"grid": True, "gridColor": "#e2e8f0"},
    legend={
        "labelFontSize": 15,
        "titleFontSize": 15,
        "orient": "top",
        "labelLimit": 500,
        "symbolSize": 140,
        "symbolStrokeWidth": 3,
        # one row where it fits, else one entry per line (a phone), instead of cutting the row off
        "columns": {"expr": f"width < {LEGEND_ROW_PX} * {FONT_SCALE_PARAM} ? 1 : 0"},
    },
    view={"strokeWidth": 0},
)

#: The legend of a chart whose first series is drawn translucent (wide, underneath): Vega-Lite gives every swatch that
#: layer's opacity, which dimmed the others' colours (most on the dark card, where a translucent swatch turns dark).
OPAQUE_KEY = alt.Legend(symbolOpacity=1)


def _finish(
    layers: Sequence[alt.Chart],
    *,
    title: str,
    subtitle: str | Sequence[str] = (),
    height: int = HEIGHT,
    facts: Mapping[str, Any] | None = None,
) -> alt.LayerChart:
    """Layer the marks with the title, height and CONFIG (one construction, no copies).

    The title, which states the chart's point with its numbers, travels in the facts row
    (`style.title_facts`) with any other `facts` the layers read (`style.fact`), so that new numbers
    leave the spec as it was; the description (what a screen reader announces) is the subtitle,
    which holds no number that changes with the data's size."""
    subtitle = [subtitle] if isinstance(subtitle, str) else list(subtitle)
    return facts_titled(
        layers,
        title=title,
        font_size=TITLE_SIZE,
        subtitle=subtitle,
        facts=dict(facts or {}),
        description="Chart: " + " ".join(subtitle) if subtitle else "Chart",
        height=height,
        config=CONFIG,
        autosize=FIT_X,
    )


Rule = tuple  # (value, label) or (value, label, side); side "right"/"left" (horizontal), "top"/"bottom"


def _rules(rules: Sequence[Rule], *, axis: str, log: bool = False) -> list[alt.Chart]:
    """Dashed reference lines, each with a label at one end: axis "y" (horizontal rules; label at
    the "right" (default) or "left" end, above the line, or under it with "right below" / "left below") or "x" (vertical rules; label at the "top" (default) or
    "bottom"). Pick the end the data leaves free. log: the rule's axis is a log scale."""
    if not rules:
        return []
    default = "right" if axis == "y" else "top"
    frame = pd.DataFrame(
        {
            "rule_at": [float(r[0]) for r in rules],
            "label": [r[1] for r in rules],
            "side": [r[2] if len(r) > 2 else default for r in rules],
        }
    )
    scale = alt.Scale(type="log") if log else alt.Undefined
    at = alt.Y("rule_at:Q", scale=scale) if axis == "y" else alt.X("rule_at:Q", scale=scale)
    layers = [alt.Chart(frame).mark_rule(color="#334155", strokeDash=[6, 4], strokeWidth=1.5).encode(at)]
    text = alt.Text("label:N")
    style: dict[str, Any] = {"fontSize": 14, "color": "#1e293b", "fontWeight": "bold"}
    for side, part in frame[frame.label != ""].groupby("side", sort=False):
        if axis == "y":
            # "... below": the label hangs under its line (two close rules' labels then never meet)
            left, below = side.startswith("left"), side.endswith("below")
            mark = alt.Chart(part).mark_text(
                align="left" if left else "right",
                dx=4 if left else -4,
                baseline="top" if below else "bottom",
                dy=3 if below else -3,
                **style,
            )
            layers.append(mark.encode(at, alt.XValue(0 if left else "width"), text))
        else:
            # labels sit left of their line, so a rule at the right edge keeps its label inside
            bottom = side == "bottom"
            mark = alt.Chart(part).mark_text(
                align="right", baseline="bottom" if bottom else "top", dx=-4, dy=-4 if bottom else 4, **style
            )
            layers.append(mark.encode(at, alt.YValue("height" if bottom else 0), text))
    return layers


def log_axis(
    lo: float, hi: float, *, base: int = 10, fractions: bool = False, max_ticks: int = 8
) -> tuple[alt.Axis, list[float]]:
    """An axis with ticks and grid lines only at powers of `base` covering [lo, hi] (a log axis
    otherwise draws a grid line at every 2…9 × 10^k). fractions: label values below 1 as "1/4"."""
    lo_k = math.floor(math.log(lo, base) + 1e-9)
    hi_k = math.ceil(math.log(hi, base) - 1e-9)
    if hi_k == lo_k:
        lo_k, hi_k = lo_k - 1, hi_k + 1
    step = max(1, math.ceil((hi_k - lo_k + 1) / max_ticks))
    values = [float(base) ** k for k in range(lo_k, hi_k + 1, step)]
    label = (
        "datum.value >= 1 ? format(datum.value, ',~g') : '1/' + format(1 / datum.value, ',~g')"
        if fractions
        else alt.Undefined
    )
    # labels that would come closer than 6 px (many decades in a short plot) are left out
    axis = alt.Axis(values=values, labelExpr=label, labelOverlap="greedy", labelSeparation=6)
    return axis, [float(base) ** lo_k, float(base) ** hi_k]


def _pair_x(last: str | None = None) -> alt.X:
    """The pair axis of a per-pair chart. It ends at the last pair, a fact (or the Vega expression `last`: a slider's
    d/2 − 1): a new head dimension leaves the spec as it was."""
    end = fact("last_pair") if last is None else last
    # a domain of its own, not domainMin/domainMax: with those Vega still takes the data's extent, and a layer filtered
    # to no rows (no ringed pair) logged "Infinite extent" in the console
    scale = alt.Scale(domain=alt.ExprRef(f"[0, {end}]"), nice=False)
    return alt.X("pair:Q", title=PAIR_AXIS, scale=scale, axis=alt.Axis(tickMinStep=1))  # pairs are whole: no 0.5


def _pair_tooltip(y_title: str) -> list[alt.Tooltip]:
    """A per-pair point's tooltip: the pair, its curve and its value."""
    return [
        alt.Tooltip("pair:Q", title="pair j"),
        alt.Tooltip("series:N", title="curve"),
        alt.Tooltip("value:Q", title=y_title, format=".4g"),
    ]


def _calc(field: str, expr: str) -> alt.CalculateTransform:
    """The transform that sets each datum's `field` to the Vega expression `expr` (``as`` is a Python keyword)."""
    return alt.CalculateTransform(calculate=expr, **{"as": field})


def _log_x(x_lo: float, x_hi: float, title: str) -> alt.X:
    """A log x axis over exactly [x_lo, x_hi] (the curve spans the whole width), ticks at the powers of 10 inside."""
    axis, _ = log_axis(x_lo, x_hi)
    axis.values = [v for v in axis.values if x_lo <= v <= x_hi]
    return alt.X("x:Q", title=title, axis=axis, scale=alt.Scale(type="log", domain=[x_lo, x_hi], nice=False))


def _curve_tooltip(x_title: str, y_title: str) -> list[alt.Tooltip]:
    """A curve's tooltip: its name, x and y."""
    return [
        alt.Tooltip("curve:N", title="curve"),
        alt.Tooltip("x:Q", title=x_title, format=",.4g"),
        alt.Tooltip("y:Q", title=y_title, format=".4g"),
    ]


def _knob_slider(key: str, start: float, label: str) -> Any:
    """The in-chart slider of a method's knob `key`, starting at `start`, over its widget's range."""
    w = BLOCK_KEY_WIDGETS[key]
    return live.position(
        key, start=float(start), lo=float(w.min or 0), hi=float(w.max or 0), step=float(w.step or 0), label=label
    )


def per_pair_chart(
    series: Mapping[str, np.ndarray],
    *,
    title: str,
    subtitle: str | Sequence[str],
    y_title: str,
    colors: Mapping[str, str],
    y_log_base: int = 10,
    y_fractions: bool = False,
    hrules: Sequence[Rule] = (),
    vrules: Sequence[Rule] = (),
    highlight: np.ndarray | None = None,
    highlight_series: str | None = None,
    categories: np.ndarray | None = None,
    category_title: str = "",
    category_colors: Mapping[str, str] | None = None,
) -> alt.LayerChart:
    """One value per pair j, one line (with points) per entry of `series`, on a log y axis.

    highlight      boolean mask over pairs: those points of `highlight_series` (default: the last
                   series) get a red ring.
    categories     labels per pair (needs exactly one series): the points are coloured by them,
                   the line stays grey (e.g. Llama 3's kept / smoothed / divided bands).
    """
    names = list(series)
    n_pairs = len(next(iter(series.values())))
    frame = pd.concat(
        [
            pd.DataFrame({"pair": np.arange(n_pairs), "value": np.asarray(v, dtype=float), "series": k})
            for k, v in series.items()
        ],
        ignore_index=True,
    )
    x = _pair_x()
    # a pair with frequency 0 (proportional RoPE's unrotated pairs) has no point on a log axis
    drawable = np.isfinite(frame["value"].to_numpy()) & (frame["value"].to_numpy() > 0)
    frame = frame[drawable]
    span = np.concatenate([frame["value"].to_numpy(), [r[0] for r in hrules]])
    axis, domain = log_axis(span.min(), span.max(), base=y_log_base, fractions=y_fractions)
    y = alt.Y("value:Q", title=y_title, axis=axis, scale=alt.Scale(type="log", domain=domain, nice=False))
    tooltip = _pair_tooltip(y_title)
    layers = []
    if categories is None:
        color = alt.Color(
            "series:N", title=None, scale=alt.Scale(domain=names, range=[colors[k] for k in names]), legend=OPAQUE_KEY
        )
        # the first series is drawn wider underneath, so where two series coincide both stay visible
        for i, name in enumerate(names):
            base = alt.Chart(frame[frame["series"] == name])
            under = i == 0 and len(names) > 1
            dots = alt.OverlayMarkDef(filled=True, size=120 if under else 40, opacity=0.6 if under else 1)
            layers.append(
                base.mark_line(strokeWidth=6 if under else 2.5, opacity=0.6 if under else 1, point=dots).encode(
                    x, y, color, tooltip=tooltip
                )
            )
    else:
        if len(names) != 1:
            raise ValueError(f"categories need exactly one series, got {len(names)}")
        frame["category"] = np.asarray(categories).astype(str)[drawable]
        cat_names = list(dict.fromkeys(frame["category"]))
        cat_colors = category_colors or {}
        color = alt.Color(
            "category:N",
            title=category_title or None,
            scale=alt.Scale(domain=cat_names, range=[cat_colors.get(c, AFTER) for c in cat_names]),
        )
        base = alt.Chart(frame)
        layers.append(base.mark_line(strokeWidth=2, color="#94a3b8").encode(x, y))
        layers.append(
            base.mark_point(filled=True, size=80, opacity=1).encode(
                x, y, color, tooltip=tooltip + [alt.Tooltip("category:N", title=category_title)]
            )
        )
    if highlight is not None and np.any(highlight):
        target = highlight_series or names[-1]
        mask = np.tile(np.asarray(highlight, dtype=bool), len(names))[drawable]
        ringed = frame[(frame["series"] == target).to_numpy() & mask]
        layers.append(
            alt.Chart(ringed).mark_point(size=260, strokeWidth=2.5, color=WARN, opacity=1).encode(x, y, tooltip=tooltip)
        )
    layers += _rules(hrules, axis="y", log=True)
    layers += _rules(vrules, axis="x")
    return _finish(layers, title=title, subtitle=subtitle, facts={"last_pair": max(n_pairs - 1, 1)})


def line_chart(
    curves: Mapping[str, tuple[np.ndarray, np.ndarray]],
    *,
    title: str,
    subtitle: str | Sequence[str],
    x_title: str,
    y_title: str,
    colors: Mapping[str, str],
    log_x: bool = False,
    log_y: bool = False,
    y_zero: bool = True,
    vrules: Sequence[Rule] = (),
    hrules: Sequence[Rule] = (),
    marks: Mapping[str, tuple[float, float]] | None = None,
    dashed: Sequence[str] = (),
    height: int = HEIGHT,
) -> alt.LayerChart:
    """Curves y(x), one per entry of `curves` (name -> (x, y)); optional labelled points `marks`
    (name -> (x, y), drawn as large red dots with their name) and dashed reference lines."""
    names = list(curves)
    frame = pd.concat(
        [
            pd.DataFrame({"x": np.asarray(xs, dtype=float), "y": np.asarray(ys, dtype=float), "curve": k})
            for k, (xs, ys) in curves.items()
        ],
        ignore_index=True,
    )
    x_lo, x_hi = float(frame["x"].min()), float(frame["x"].max())
    if log_x:
        x = _log_x(x_lo, x_hi, x_title)
    else:
        x = alt.X("x:Q", title=x_title, scale=alt.Scale(domain=[x_lo, x_hi], nice=False))
    if log_y:
        span = np.concatenate([frame["y"].to_numpy(), [r[0] for r in hrules]])
        axis, domain = log_axis(span.min(), span.max())
        y = alt.Y("y:Q", title=y_title, axis=axis, scale=alt.Scale(type="log", domain=domain, nice=False))
    else:
        y = alt.Y("y:Q", title=y_title, scale=alt.Scale(zero=y_zero))
    color = alt.Color("curve:N", title=None, scale=alt.Scale(domain=names, range=[colors[k] for k in names]))
    # same field and title as the colour: Vega-Lite merges both into one legend (dashes shown)
    dash = alt.StrokeDash(
        "curve:N", title=None, scale=alt.Scale(domain=names, range=[[7, 4] if k in dashed else [1, 0] for k in names])
    )
    tooltip = _curve_tooltip(x_title, y_title)
    layers = [alt.Chart(frame).mark_line(strokeWidth=2.5).encode(x, y, color, dash, tooltip=tooltip)]
    if marks:
        rows = [(float(x), float(y), name) for name, (x, y) in marks.items()]
        mark_base = alt.Chart(pd.DataFrame(rows, columns=["x", "y", "label"]))
        layers.append(mark_base.mark_point(filled=True, size=160, color=WARN, opacity=1).encode(x, y))
        layers.append(
            mark_base.mark_text(align="right", dx=-10, dy=-14, fontSize=15, color=WARN, fontWeight="bold").encode(
                x, y, alt.Text("label:N")
            )
        )
    layers += _rules(hrules, axis="y", log=log_y)
    layers += _rules(vrules, axis="x", log=log_x)
    return _finish(layers, title=title, subtitle=subtitle, height=height)


# ---------------------------------------------------------------------------------- the charts
def _fmt_len(n: float) -> str:
    return f"{int(round(n)):,}"


#: The largest-angle charts' subtitle: one sentence pair, wrapped to the chart's width in the browser (a forced break
#: after "in training —" stood in the middle of a phone's wrapped lines).
ANGLE_SUBTITLE = (
    "Largest rotation angle per pair. Red rings: beyond the training maximum in a pair that never completed a full "
    "turn (2π) in training — the model has never seen those angles. Pairs above the 2π line have seen every angle "
    "already.",
)


def _angle_names(train_len: int, target_len: int) -> tuple[str, str]:
    """The largest-angle charts' two series: in training (L·θ_j) and at the target (T·θ′_j)."""
    return f"in training: L·θ_j (L = {_fmt_len(train_len)})", f"at the target: T·θ′_j (T = {_fmt_len(target_len)})"


def angle_reach_chart(
    train_angle, target_angle, out_of_distribution, *, train_len: int, target_len: int
) -> alt.LayerChart:
    """(1) Each pair's largest angle at T against the largest angle of training, log y."""
    ood = np.asarray(out_of_distribution, dtype=bool)
    train_name, target_name = _angle_names(train_len, target_len)
    return per_pair_chart(
        {train_name: train_angle, target_name: target_angle},
        title=text.angle_reach_title(int(ood.sum()), ood.size, target_len),
        subtitle=ANGLE_SUBTITLE,
        y_title="largest angle (radians, log scale)",
        colors={train_name: BEFORE, target_name: AFTER},
        # under its line at the left: the angles fall from left to right, so the curves cross the line there from
        # above (both curves' fast pairs sat on the label above it on a phone's plot)
        hrules=[(2 * np.pi, "one full turn, 2π", "left below")],
        highlight=ood,
        highlight_series=target_name,
    )


#: Below this plot width (px) the live angle chart's read-out takes a smaller font.
READOUT_NARROW_PX = 420
#: The read-out's font size (px) in a narrow plot and a wide one, its offset from the plot's top (dy), and the room
#: (px) a narrow plot leaves between its last line and the highest point's centre (more than a point's radius).
READOUT_FONT, READOUT_DY, READOUT_GAP = {"narrow": 12, "wide": 15}, 6, 10


def readout_headroom_top(top: float, foot: str, n_lines: int) -> str:
    """The y domain's top (a Vega expression) of a log axis from `foot` (an expression) to `top` that leaves the read-out
    of `n_lines` room above every point in a narrow plot (width < `READOUT_NARROW_PX`): there the read-out spans most of
    the plot's width, and at a large T the fast pairs' curve ran behind it (a phone). The top decade grows so that the
    data's decades fill the plot's height less the read-out's lines (Vega's line height: font size + 2), its offset and
    `READOUT_GAP`; a wide plot keeps `top`. The data keep at least half the plot's height, whatever its height."""
    room = f"({n_lines * (READOUT_FONT['narrow'] + 2) + READOUT_DY + READOUT_GAP} * {FONT_SCALE_PARAM})"
    decades = f"({math.log10(top)!r} - log({foot}) / LN10)"
    raised = f"pow(10, {math.log10(top)!r} + {decades} * {room} / max(height - {room}, height / 2))"
    return f"width < {READOUT_NARROW_PX} ? {raised} : {top!r}"


#: The in-chart sliders of the live angle chart: the registry parameters factor, target_len and train_len
#: themselves (explorer.charts.live; explorer.liveparam reports them when a drag ends). L and T run over their stops.
FACTOR_KEY, TARGET_KEY, TRAIN_KEY = LIVE_SLIDERS
#: The sliders of the model's sizes, d and b (ropeblock.SHAPE_SLIDERS): b runs over its options (BASE_OPTIONS)
HEAD_DIM_KEY, BASE_KEY = SHAPE_SLIDERS
#: Each method's own knobs that are the chart's sliders where the browser computes its θ′ (`browser_theta`), and how
#: the slider and the read-out name them
KNOBS = BROWSER_KNOBS
KNOB_KEYS = tuple(k for keys in KNOBS.values() for k in keys)
LIVE_PARAMS = (FACTOR_KEY, TARGET_KEY, TRAIN_KEY, HEAD_DIM_KEY, BASE_KEY, *KNOB_KEYS)
KNOB_LABELS = {
    "beta_fast": "β_fast (turns) ",
    "beta_slow": "β_slow (turns) ",
    "low_freq_factor": "low_freq_factor ",
    "high_freq_factor": "high_freq_factor ",
    "partial_rotary_factor": "rotary fraction p ",
}
#: HF's values for the keys a block leaves out (posenc.methods' declarations; Llama 3 requires its keys)
DEFAULTS = {k: posenc.ROPE_METHODS["yarn"].key(k).default for k in ("beta_fast", "beta_slow", "truncate")} | {
    k: posenc.ROPE_METHODS["proportional"].key(k).default for k in ("partial_rotary_factor", "factor")
}


def yarn_theta(*, dim: str, base: str, truncate: bool, s: str, length: str, beta_fast: str, beta_slow: str) -> list:
    """The calculate transforms that give each datum (fields ``theta`` = θ_j, ``pair`` = j) YaRN's θ′_j as ``inv``,
    in posenc.methods._yarn's float64 steps (HF's ``_compute_yarn_parameters``): the correction dimensions
    d·ln(L/(β·2π)) / (2·ln b) of β_fast and β_slow, floored and ceiled when `truncate`, clamped to 0 … d − 1
    (0.001 apart when equal), the ramp clip((j − low)/(high − low), 0, 1), and θ′_j = (θ_j/s)·ramp_j +
    θ_j·(1 − ramp_j). `dim`, `base`, `s`, `length`, `beta_fast` and `beta_slow` are Vega expressions (a slider's
    value, a fact of the chart's data, or a fixed number's repr). Only ``log`` can differ from numpy's (JavaScript's Math.log against the C library's, in
    the last bit at most); it reaches θ′ only through floor and ceil, or, without truncation, through the ramp
    (tests/test_e2e_extension_live.py reads the drawn values back from Chromium at random settings)."""

    def correction_dim(beta: str) -> str:  # posenc.methods.yarn_correction_dim
        return f"({dim} * log({length} / ({beta} * 2 * PI))) / (2 * log({base}))"

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = f"floor({low})", f"ceil({high})"
    return [
        _calc("yarn_low", f"max({low}, 0)"),
        _calc("yarn_high", f"min({high}, {dim} - 1)"),
        # a field of its own: Vega writes into the datum, and a calculate that read the field it writes would read
        # its own earlier result where only a later input changed
        _calc("yarn_top", "datum.yarn_low === datum.yarn_high ? datum.yarn_high + 0.001 : datum.yarn_high"),
        _calc("ramp", "clamp((datum.pair - datum.yarn_low) / (datum.yarn_top - datum.yarn_low), 0, 1)"),
        _calc("inv", f"(datum.theta / {s}) * datum.ramp + datum.theta * (1 - datum.ramp)"),
    ]


def llama3_theta(*, s: str, length: str, low_freq_factor: str, high_freq_factor: str) -> list:
    """The calculate transforms that give each datum (field ``theta`` = θ_j) Llama 3's θ′_j as ``inv``, in
    posenc.methods._llama3's float64 steps (HF's ``_compute_llama3_parameters``): the wavelength λ_j = 2π/θ_j; θ_j/s
    where λ_j > L/low, θ_j where λ_j < L/high, and between them (1 − sm)·θ_j/s + sm·θ_j with sm = (L/λ_j − low) /
    (high − low) (nothing lies between when high = low). The arguments are Vega expressions."""
    lo, hi = low_freq_factor, high_freq_factor
    smoothed = f"(1 - datum.smooth) * datum.theta / {s} + datum.smooth * datum.theta"
    between = f"{hi} !== {lo} && !(datum.wavelen < {length} / {hi}) && !(datum.wavelen > {length} / {lo})"
    return [
        _calc("wavelen", "2 * PI / datum.theta"),
        # a field of its own (see yarn_theta): the last calculate reads it, and writes inv
        _calc("inv_band", f"datum.wavelen > {length} / {lo} ? datum.theta / {s} : datum.theta"),
        # not needed (and 0/0) when high = low
        _calc("smooth", f"{hi} !== {lo} ? ({length} / datum.wavelen - {lo}) / ({hi} - {lo}) : 0"),
        _calc("inv", f"{between} ? {smoothed} : datum.inv_band"),
    ]


def proportional_theta(*, n_pairs: str, s: str, partial_rotary_factor: str) -> list:
    """The calculate transform that gives each datum (fields ``pair`` = j, ``theta_p`` = b^(−2j/d) as proportional RoPE
    computes it for the whole head: 1/b^(2j/d)) proportional RoPE's θ′_j as ``inv``, in posenc.methods._proportional's
    float64 steps (HF's ``_compute_proportional_rope_parameters``): the first ⌊p·d/2⌋ pairs keep it, the rest stop
    (0), and each is divided by s. The arguments are Vega expressions (d = 2·n_pairs)."""
    kept = f"floor({partial_rotary_factor} * (2 * {n_pairs}) / 2)"
    return [_calc("inv", f"datum.pair < {kept} ? datum.theta_p / {s} : 0 / {s}")]


def dynamic_theta(*, n_pairs: str, base: str, s: str, length: str, target: str) -> list:
    """The calculate transform that gives each datum (field ``pair`` = j) dynamic NTK's θ′_j as ``inv``, in
    posenc.methods.dynamic_base's float64 steps (HF's ``_compute_dynamic_ntk_parameters``): t = T where T > L, else
    L; b′ = b·((s·t/L) − (s − 1))^(d/(d−2)); θ′_j = b′^(−2j/d). The arguments are Vega expressions (d = 2·n_pairs).
    JavaScript's pow and the C library's may round the last bit differently, twice (b′, then θ′_j): the drawn
    values are posenc's within a few ulps (tests/test_e2e_extension_live.py reads them back from Chromium)."""
    dim = f"(2 * {n_pairs})"
    t = f"({target} > {length} ? {target} : {length})"
    new_base = f"({base} * pow(({s} * {t} / {length}) - ({s} - 1), {dim} / ({dim} - 2)))"
    return [_calc("inv", f"pow({new_base}, -2.0 * datum.pair / {dim})")]


def ntk_theta(*, dim: str, base: str, s: str) -> list:
    """The calculate transform that gives each datum (field ``pair`` = j) static NTK's θ′_j as ``inv``, in
    posenc.methods._ntk's float64 steps (HF's ``_compute_default_rope_parameters`` with the new base a config.json
    writes): b′ = b·s^(d/(d−2)) (b·s where d = 2), θ′_j = b′^(−2j/d). The arguments are Vega expressions. Two pows, as
    dynamic NTK's: within a few ulps of posenc's (tests/test_e2e_extension_live.py reads them back from Chromium)."""
    new_base = f"({dim} > 2 ? {base} * pow({s}, {dim} / ({dim} - 2)) : {base} * {s})"
    return [_calc("inv", f"pow({new_base}, -2.0 * datum.pair / {dim})")]


def longrope_entry(kind: str, *, s: str, n_pairs: str) -> str:
    """The Vega expression of entry j (the datum's ``pair``) of explorer.ropeblock.longrope_factors(kind, n, s) in
    numpy's float64 steps: "ones" 1, "constant" s, "ramp" numpy.linspace(1, s, n): 1 + j·((s − 1)/(n − 1)), its last
    entry s itself, and 1 for a list of one. The arguments are Vega expressions."""
    if kind == "ones":
        return "1"
    if kind == "constant":
        return f"({s})"
    if kind == "ramp":
        step = f"(({s}) - 1) / ({n_pairs} - 1)"
        return f"({n_pairs} === 1 ? 1 : datum.pair === {n_pairs} - 1 ? ({s}) : datum.pair * ({step}) + 1)"
    raise ValueError(f"kind must be one of ones, constant, ramp, got {kind!r}")


def browser_theta(
    block: Mapping[str, Any],
    *,
    n_pairs: str,
    s: str,
    length: str,
    target: str,
    knobs: Mapping[str, str],
    list_kinds: Mapping[str, str] | None = None,
    base: str | None = None,
) -> list:
    """The transforms for `block`'s θ′ (a method of `KNOBS`), with its knobs' Vega expressions `knobs`; `length` is
    L's expression, `target` T's (dynamic NTK's θ′ read T), `n_pairs` d/2's and `base` b's (default: the facts row's
    ``rope_theta``). LongRoPE's lists are the block's (fields theta_short, theta_long), or, with `list_kinds` ({list
    key: generator}), made from s here (`longrope_entry`)."""
    method = posenc.rope_type_of(block)
    base = fact("rope_theta") if base is None else base
    if method == "default":  # posenc.methods._default: θ_j itself
        return [_calc("inv", "datum.theta")]
    if method == "linear":  # posenc.methods._linear: θ_j / s, one float64 division
        return [_calc("inv", f"datum.theta / {s}")]
    if method == "ntk":
        return ntk_theta(dim=f"(2 * {n_pairs})", base=base, s=s)
    if method == "longrope" and list_kinds:  # posenc.methods._longrope: θ′_j = θ_j / entry j (float64), the long list
        short, long_ = (  # where T > L
            f"datum.theta / {longrope_entry(list_kinds[key], s=s, n_pairs=n_pairs)}"
            for key in ("short_factor", "long_factor")
        )
        return [_calc("inv", f"{target} > {length} ? {long_} : {short}")]
    if method == "longrope":  # posenc.methods._longrope: the long list where T > L (fields theta_short, theta_long)
        return [_calc("inv", f"{target} > {length} ? datum.theta_long : datum.theta_short")]
    if method == "dynamic":
        return dynamic_theta(n_pairs=n_pairs, base=base, s=s, length=length, target=target)
    if method == "yarn":
        return yarn_theta(
            dim=f"(2 * {n_pairs})",
            base=base,
            truncate=bool(block.get("truncate", DEFAULTS["truncate"])),
            s=s,
            length=length,
            beta_fast=knobs["beta_fast"],
            beta_slow=knobs["beta_slow"],
        )
    if method == "llama3":
        return llama3_theta(s=s, length=length, **knobs)
    if method == "proportional":
        return proportional_theta(n_pairs=n_pairs, s=s, **knobs)
    raise ValueError(f"block: the browser computes θ′ for {', '.join(KNOBS)} only, got {method!r}")


def _factor_of(block: Mapping[str, Any]) -> float:
    """The block's s (proportional RoPE's default 1 where it has none)."""
    factor = block.get("factor")
    return float(DEFAULTS["factor"] if factor is None else factor)


#: posenc.out_of_distribution_pairs' allowance for rounding ("further" means > L·θ_j·(1 + 1e-9))
OOD_SLACK = 1e-9


def readout_layers(base: alt.Chart, *, corner: str) -> list[alt.Chart]:
    """A live chart's read-out: `base`'s field ``text`` (lines split at "\\n"), bold red in the plot's top `corner`
    ("left" or "right"), over the same text stroked wide in the card's colour (a halo: where a curve passes behind it,
    the figures stay legible; the dark theme darkens the halo too)."""
    font: dict[str, Any] = dict(
        align=corner,
        baseline="top",
        lineBreak="\n",  # each line fits a phone's plot
        fontSize=alt.ExprRef(
            f"(width < {READOUT_NARROW_PX} ? {READOUT_FONT['narrow']} : {READOUT_FONT['wide']}) * {FONT_SCALE_PARAM}"
        ),
        fontWeight="bold",
        dx=-6 if corner == "right" else 6,
        dy=READOUT_DY,
    )
    place: dict[str, Any] = dict(x=alt.XValue("width" if corner == "right" else 0), y=alt.YValue(0), text="text:N")
    return [
        base.mark_text(color=HALO, stroke=HALO, strokeWidth=5, strokeJoin="round", **font).encode(**place),
        base.mark_text(color=WARN, **font).encode(**place),
    ]


def angle_reach_live_chart(
    inv_freq,
    *,
    train_len: int,
    target_len: int,
    browser_block: Mapping[str, Any],
    factors=None,
    start: float | None = None,
    t_window: tuple[int, int] | None = None,
    l_window: tuple[int, int] | None = None,
    knob_starts: Mapping[str, float] | None = None,
    columns: Mapping[str, Any] | None = None,
    list_kinds: Mapping[str, str] | None = None,
    shape_starts: Mapping[str, float] | None = None,
) -> alt.LayerChart:
    """(1), live: each pair's largest angle at T against training's, with the chart's own sliders (issue #36).

    `inv_freq` is θ_j as trained (posenc's, at the page's d and b). `browser_block`, a rope block of `KNOBS` (HF's
    defaults where a key is absent): the browser computes θ'_j itself from θ_j, s, L, T and the method's knobs
    (`browser_theta`), and the factor slider runs over the grid `factors` (lo, lo + step, …), starting at `start`
    (None: s is fixed at the block's); `knob_starts` makes each knob it names a slider starting there (over its
    widget's range), the others stay at the block's value; `shape_starts` ({"head_dim": d, "base": b}, either or
    both) makes the head dimension and the base sliders too (over `ropeblock.head_dim_range` and the base's options):
    the browser then computes θ_j = b^(−2j/d) as well (`explorer.charts.live.pair_theta`), posenc's own θ_j where they
    stand at the page's d and b. `t_window` (first, last) of the target length's stops (`TARGET_STOPS`) adds a T
    slider over them (it starts at `target_len`); `l_window` an L slider (it starts at `train_len`); None keeps that
    length fixed.

    The browser draws L·θ_j and T·θ'_j for the sliders' values, rings the pairs posenc.out_of_distribution_pairs would
    flag (T·θ'_j > L·θ_j·(1 + 1e-9) where L·θ_j < 2π) and counts them, with no server run. The y axis spans every
    value s, L and T reach, so it stays put while they move; its foot follows d and b where they are sliders, and on a
    narrow plot its top rises with the foot to leave the read-out room above the points (`readout_headroom_top`).

    `columns`: more per-pair values the method's θ′ are computed from (proportional RoPE's ``theta_p``, LongRoPE's
    ``theta_short`` and ``theta_long``), one per pair (explorer.compute.extension.browser_columns). `list_kinds`:
    LongRoPE's lists' generators, where the browser makes the lists from s (`browser_theta`; the factor slider then
    moves them)."""
    theta = np.asarray(inv_freq, dtype=float)
    n_p = theta.size
    shape = dict(shape_starts or {})
    if factors is None and t_window is None and l_window is None and not knob_starts and not shape:
        raise ValueError("the live chart needs a factor grid, a T window, an L window or more")
    if theta.ndim != 1 or n_p < 1:
        raise ValueError(f"inv_freq must be one θ_j per pair, got shape {theta.shape}")
    if set(shape) - set(ropeblock.SHAPE_SLIDERS):
        raise ValueError(f"shape_starts: only {ropeblock.SHAPE_SLIDERS}, got {sorted(shape)}")
    if factors is not None:
        factors = np.asarray(factors, dtype=float)
        if factors.ndim != 1 or factors.size < 2:
            raise ValueError(f"factors must be a grid of two or more, got shape {factors.shape}")
        lo, step = float(factors[0]), float(factors[1] - factors[0])
        if not np.array_equal(factors, lo + step * np.arange(factors.size)):
            raise ValueError("factors must be an evenly spaced grid lo + i·step")
        if start is None or not factors[0] <= start <= factors[-1]:
            raise ValueError(f"start must be in {factors[0]:g} … {factors[-1]:g}, got {start}")
    method = posenc.rope_type_of(browser_block)
    params = []
    if factors is not None and start is not None:
        params.append(
            live.position(
                FACTOR_KEY, start=float(start), lo=lo, hi=float(factors[-1]), step=step, label="scaling factor s "
            )
        )
    t_slider, t_expr, t_values = live.stop_slider(
        TARGET_KEY, TARGET_STOPS, value=target_len, window=t_window, label="target length T "
    )
    l_slider, l_expr, l_values = live.stop_slider(
        TRAIN_KEY, TARGET_STOPS, value=train_len, window=l_window, label="trained length L "
    )
    params += [*t_slider, *l_slider]
    # the model's sizes: d (its slider's range) and b (its options); otherwise the facts row's
    d_lo, d_hi, d_step = ropeblock.head_dim_range(method)
    d_expr, n_pairs = f"(2 * {fact('n_pairs')})", fact("n_pairs")
    b_expr = fact("rope_theta")
    # listed under L, T and s, above the knobs (the bindings come in the reverse order of the list)
    if "head_dim" in shape:
        params.insert(0, live.position(HEAD_DIM_KEY, start=int(shape["head_dim"]), lo=d_lo, hi=d_hi, step=d_step,
                                       label="head dimension d "))  # fmt: skip
        d_expr = live.number(HEAD_DIM_KEY)
        n_pairs = f"({d_expr} / 2)"
    if "base" in shape:
        params.insert(0, live.option_position(BASE_KEY, BASE_OPTIONS, start=float(shape["base"]), label="base b "))
        b_expr = live.option(BASE_KEY, BASE_OPTIONS)
    knobs: dict[str, str] = {}  # the method's knobs: each one's Vega expression (its slider's value, or the block's)
    for key in KNOBS[method]:
        start_at = (knob_starts or {}).get(key)
        if start_at is None:  # fixed at the block's value (HF: a β of 0 or null means its default)
            value: Any = browser_block.get(key)
            if value is None or (key in KNOBS["yarn"] and not value):
                value = DEFAULTS[key]
            knobs[key] = repr(float(value))
            continue
        # first in the list, so listed last under the chart (the bindings come in the reverse order)
        params.insert(0, _knob_slider(key, start_at, KNOB_LABELS[key]))
        knobs[key] = live.number(key)
    train_name, target_name = _angle_names(train_len, target_len)
    if l_window is not None:
        train_name = "in training: L·θ_j"
    if t_window is not None:
        target_name = "at the target: T·θ′_j"
    names = [train_name, target_name]
    color = alt.Color("series:N", title=None, scale=alt.Scale(domain=names, range=[BEFORE, AFTER]), legend=OPAQUE_KEY)
    # θ_j wherever d and b can go: the largest d and every option of b where they are sliders (the slowest pair's
    # θ_j = b^(−(d−2)/d) falls as d and b grow; the fastest's is 1)
    if shape:
        d_reach = [d_hi] if "head_dim" in shape else [2 * n_p]
        b_reach = [float(b) for b in BASE_OPTIONS] if "base" in shape else [float(browser_block["rope_theta"])]
        theta_reach = np.concatenate([posenc.inverse_frequencies(d, base=b) for d in d_reach for b in b_reach])
    else:
        theta_reach = theta
    reach_inv = theta_reach[None, :]
    if columns and "theta_long" in columns:  # LongRoPE's own lists: θ′ is one of the two columns (a factor may be < 1)
        reach_inv = np.asarray([columns["theta_short"], columns["theta_long"]], dtype=float)
    turning = reach_inv[reach_inv > 0]  # none: every pair stands still (a partial rotary factor of 0)
    # YaRN's and Llama 3's θ′_j lie between θ_j/s and θ_j (a blend, s ≥ 1), linear's and NTK's slowest is θ_last/s,
    # LongRoPE's made lists' entries are 1 … s: the largest s bounds them below. Dynamic NTK's T·θ′_j ≥ T·θ_last/(s·(T/L
    # − 1) + 1) ≥ min(T, L/s)·θ_last for T > L (θ′ = θ for T ≤ L): the shortest L counts
    s_most, shortest = 1.0, min(t_values)
    if "theta_long" not in (columns or {}):
        s_most = float(factors[-1]) if factors is not None else _factor_of(browser_block)
        if method == "dynamic":
            shortest = min(shortest, min(l_values))
    reach = [turning.min() / s_most * shortest, turning.max() * max(t_values)] if turning.size else []
    span = np.concatenate([theta_reach * min(l_values), theta_reach * max(l_values), reach, [2 * np.pi]])
    parts: list[str] = []  # the sliders' values: lengths and s on one line, d and b on the next, then the knobs
    if l_window is not None:
        parts.append(f"'L = ' + format({l_expr}, ',d')")
    if t_window is not None:
        parts.append(f"'T = ' + format({t_expr}, ',d')")
    if factors is not None:
        parts.append(f"'s = ' + format({live.number(FACTOR_KEY)}, '.2~f')")
    dims = [f"'d = ' + {d_expr}"] if "head_dim" in shape else []
    dims += [f"'b = ' + format({b_expr}, ',d')"] if "base" in shape else []
    betas = [f"'{text.KNOB_NAMES[k]} = ' + format({knobs[k]}, '.2~f')" for k in knobs if k in (knob_starts or {})]
    count = (
        f"(datum.n_ood === 0 ? {text.NO_UNSEEN_ANGLE!r} : datum.n_ood + ' of ' + {n_pairs} + {text.UNSEEN_ANGLES!r})"
    )
    lines = [" + ' · ' + ".join(line) for line in (parts, dims, betas) if line]  # each line fits a phone's plot
    y_title = "largest angle (radians, log scale)"
    if shape:  # the axis's foot follows d and b (the slowest pair's θ_j = b^(−(d−2)/d)); s, L and T leave it put
        axis, domain = log_axis(span[span > 0].min(), span.max(), base=10, fractions=False, max_ticks=64)
        slowest = f"pow({b_expr}, -({d_expr} - 2) / {d_expr})"
        lows = [f"{slowest} * {min(l_values)!r}", f"{slowest} / {s_most!r} * {shortest!r}", repr(2 * np.pi)]
        foot = f"pow(10, floor(log(min({', '.join(lows)})) / LN10 + 1e-9))"  # log_axis's decade below
    else:
        axis, domain = log_axis(span[span > 0].min(), span.max(), base=10, fractions=False)
        foot = repr(domain[0])
    top = readout_headroom_top(domain[1], foot, len(lines) + 1)  # room for the read-out's lines and its count
    scale = alt.Scale(type="log", domain=alt.ExprRef(f"[{foot}, ({top})]"), nice=False)  # as `_pair_x`'s
    y = alt.Y("value:Q", title=y_title, axis=axis, scale=scale)
    x = _pair_x(f"max({n_pairs} - 1, 1)" if "head_dim" in shape else None)
    tooltip = _pair_tooltip(y_title)
    # the training side per pair, computed by the browser from θ_j and L as posenc.out_of_distribution_pairs does
    # (to the bit: the same float64 steps): L·θ_j, the limit it must exceed, and whether the pair turned in training
    trained = f"{l_expr} * datum.theta"
    # one row per pair the d slider reaches (posenc's numbers for the page's pairs, none past them)
    n_rows = d_hi // 2 if "head_dim" in shape else n_p
    per_pair = {"theta": theta, **{k: np.asarray(v, dtype=float) for k, v in (columns or {}).items()}}
    if shape:  # posenc's numbers at the page's d and b, beside the fields the browser computes (live.pair_theta)
        per_pair = {f"{k}_page" if k in ("theta", "theta_p") else k: v for k, v in per_pair.items()}
    train = pd.DataFrame(
        {"pair": np.arange(n_rows), **{k: np.pad(v, (0, n_rows - n_p), constant_values=np.nan) for k, v in
                                       per_pair.items()}}
    )  # fmt: skip
    sizes: list[Any] = []  # where d or b are sliders: the pairs d reaches, and θ_j computed from d and b
    if shape:
        at_page = f"{d_expr} === 2 * {fact('n_pairs')} && {b_expr} === {fact('rope_theta')}"
        sizes = [
            alt.FilterTransform(filter=f"datum.pair < {n_pairs}"),
            *live.pair_theta(dim=d_expr, base=b_expr, at_page=at_page, proportional=method == "proportional"),
        ]
    train_side = [
        _calc("trained", trained),
        _calc("limit", f"datum.trained * {1 + OOD_SLACK!r}"),
        _calc("turned", f"!(datum.trained < {2 * np.pi!r})"),
    ]
    # a pair that no longer turns (θ' = 0) has no point on a log axis, and is never out of distribution (T·0 = 0)
    target_rows = train
    s_expr = live.number(FACTOR_KEY) if factors is not None else repr(_factor_of(browser_block))
    # d and b travel in the facts row (or are sliders): another d or b keeps the spec (issue #23)
    theta_side = browser_theta(
        browser_block,
        n_pairs=n_pairs,
        s=s_expr,
        length=l_expr,
        target=t_expr,
        knobs=knobs,
        list_kinds=list_kinds,
        base=b_expr,
    )
    drawn = [
        *sizes,
        *theta_side,
        *train_side,
        _calc("value", f"{t_expr} * datum.inv"),
        _calc("ood", "!datum.turned && datum.value > datum.limit"),
        _calc("series", repr(target_name)),
    ]
    under = alt.OverlayMarkDef(filled=True, size=120, opacity=0.6)
    layers = [
        alt.Chart(
            train,
            transform=[
                *sizes,
                _calc("value", trained),
                _calc("series", repr(train_name)),
            ],
        )
        .mark_line(strokeWidth=6, opacity=0.6, point=under)
        .encode(x, y, color, tooltip=tooltip)
        # Vega-Lite defines a selection in a unit view (named, so the spec is the same at every build)
        .properties(name="ext_live_angles")
        .add_params(*params),
        # a pair that stops (θ′ = 0: proportional RoPE) has no point on the log axis; the read-out counts every pair
        alt.Chart(target_rows, transform=[*drawn, alt.FilterTransform(filter="datum.inv > 0")])
        .mark_line(strokeWidth=2.5, point=alt.OverlayMarkDef(filled=True, size=40))
        .encode(x, y, color, tooltip=tooltip),
        alt.Chart(target_rows, transform=[*drawn, alt.FilterTransform(filter="datum.ood")])
        .mark_point(size=260, strokeWidth=2.5, color=WARN, opacity=1)
        .encode(x, y, tooltip=tooltip),
    ]
    layers += _rules([(2 * np.pi, "one full turn, 2π", "left below")], axis="y", log=True)  # as in `angle_reach_chart`
    readout = " + '\\n' + ".join([*lines, count])
    # top right, its lines downwards: the angles fall from left to right, so the slow pairs' curves leave that corner
    # free (a phone's narrow plot at a large T excepted: the halo keeps the figures legible there)
    counted = alt.Chart(
        target_rows,
        transform=[
            *drawn,
            _calc("one", "datum.ood ? 1 : 0"),
            alt.AggregateTransform(aggregate=[alt.AggregatedFieldDef(op="sum", field="one", **{"as": "n_ood"})]),
            _calc("text", readout),
        ],
    )
    layers += readout_layers(counted, corner="right")
    return _finish(
        layers,
        title=text.live_angle_title(
            factors is not None,
            t_window is not None,
            target_len,
            l_window is not None,
            tuple(k for k in knobs if k in (knob_starts or {})),
            tuple(shape),
        ),
        subtitle=ANGLE_SUBTITLE,
        facts={
            "last_pair": max(n_p - 1, 1),
            "n_pairs": n_p,
            "rope_theta": float(browser_block["rope_theta"]),
        },
    )


def wavelength_chart(inv_freq, scaled_inv_freq, *, train_len: int, target_len: int) -> alt.LayerChart:
    """(2) Wavelength 2π/θ per pair before and after scaling, log y, with L and T marked."""
    before = 2 * np.pi / np.asarray(inv_freq, dtype=float)
    with np.errstate(divide="ignore"):  # a pair p-RoPE stops (θ′ = 0) never turns: λ′ = ∞, left off the log axis
        after = 2 * np.pi / np.asarray(scaled_inv_freq, dtype=float)
    stretched = int(np.sum(after > before * (1 + 1e-9)))
    return per_pair_chart(
        {"before: λ_j = 2π/θ_j": before, "after: λ′_j = 2π/θ′_j": after},
        title=text.wavelength_title(stretched, before.size, int(np.sum(before > train_len))),
        subtitle="Wavelength per pair in tokens (log scale): how many tokens one full turn takes.",
        y_title="wavelength (tokens, log scale)",
        colors={"before: λ_j = 2π/θ_j": BEFORE, "after: λ′_j = 2π/θ′_j": AFTER},
        hrules=[
            # both labels at the left, where the wavelengths are short: L under its line, T above
            (train_len, f"L = {_fmt_len(train_len)}", "left below"),
            (target_len, f"T = {_fmt_len(target_len)}", "left"),
        ],
    )


def frequency_ratio_chart(
    inv_freq,
    scaled_inv_freq,
    *,
    rope_type: str,
    factor: float | None = None,
    bands=None,
    yarn_range: tuple[float, float] | None = None,
    target_len: int | None = None,
) -> alt.LayerChart:
    """(3) θ′_j/θ_j per pair (log y): YaRN's ramp with low/high, Llama 3's bands, 1 and 1/s marked."""
    ratio = np.asarray(scaled_inv_freq, dtype=float) / np.asarray(inv_freq, dtype=float)
    hrules = [(1.0, "1: unchanged", "right")]
    if factor and factor != 1:
        hrules.append((1.0 / factor, f"1/s = 1/{factor:g}", "left"))
    vrules = []
    if yarn_range is not None:
        low, high = yarn_range
        vrules = [(low, f"low = {low:g}", "bottom"), (high, f"high = {high:g}", "bottom")]
    names = {
        "kept": "kept (λ < L/high_freq_factor)",
        "smoothed": "smoothed",
        "divided": "divided by s (λ > L/low_freq_factor)",
    }
    band_labels = None if bands is None else np.array([names[str(b)] for b in bands])
    subtitle = {
        "yarn": "θ′_j / θ_j (log scale). Between the dashed lines low and high YaRN blends θ_j and "
        "θ_j/s; fast pairs (left) keep their resolution.",
        "llama3": "θ′_j / θ_j (log scale), coloured by band: the wavelength λ_j against L/high_freq_factor "
        "and L/low_freq_factor.",
    }.get(rope_type, "θ′_j / θ_j per pair (log scale): 1 means the pair is untouched, 1/s fully interpolated.")
    return per_pair_chart(
        {"θ′_j / θ_j": ratio},
        title=ratio_title(rope_type, ratio, factor, bands, yarn_range, target_len),
        subtitle=subtitle,
        y_title="frequency ratio θ′_j / θ_j (log scale)",
        colors={"θ′_j / θ_j": AFTER},
        hrules=hrules,
        vrules=vrules,
        y_log_base=2,
        y_fractions=True,
        categories=band_labels,
        category_title="Llama 3 band",
        category_colors=None if bands is None else {names[band]: BAND_COLORS[band] for band in names},
    )


def angle_step_chart(inv_freq, scaled_inv_freq) -> alt.LayerChart:
    """(4) θ_j vs θ′_j: the angle between neighbouring positions (PI shrinks even the fast pairs)."""
    before = np.asarray(inv_freq, dtype=float)
    after = np.asarray(scaled_inv_freq, dtype=float)
    return per_pair_chart(
        {"before: θ_j": before, "after: θ′_j": after},
        title=text.angle_step_title(float(before[0]), float(after[0])),
        subtitle="Angle between neighbouring positions, per pair (radians per token, log scale).",
        y_title="angle step (rad per token, log scale)",
        colors={"before: θ_j": BEFORE, "after: θ′_j": AFTER},
    )


def score_chart(
    distances,
    score_before,
    score_after,
    *,
    train_len: int,
    target_len: int,
    attention_factor: float,
    n_pairs: int | None = None,
) -> alt.LayerChart:
    """(5) RoPE score of q = k = ones against distance r, before (split at L) and after (× a²);
    `n_pairs` (d/2) words the subtitle for a single pair, whose score never decays."""
    r = np.asarray(distances, dtype=float)
    before = np.asarray(score_before, dtype=float)
    seen = r <= train_len
    # the last trained distance is repeated so the two "before" pieces join up
    unseen = r >= (r[seen][-1] if seen.any() else 0)
    names = (
        "original θ, r ≤ L (trained)",
        "original θ, r > L (never trained)",
        f"scaled θ′, × a² = {attention_factor**2:.4g}",
    )
    curves = {names[0]: (r[seen], before[seen])}
    if np.any(r > train_len):
        curves[names[1]] = (r[unseen], before[unseen])
    curves[names[2]] = (r, score_after)
    scaled = not np.allclose(score_after, before)
    if scaled:
        title = "Scaling reshapes the score curve over the distances up to T"
    elif target_len > train_len:
        title = "No scaling: distances beyond L get scores the model never saw in training"
    else:
        title = "No scaling, and T ≤ L: every distance up to T was seen in training"
    return line_chart(
        curves,
        title=title,
        subtitle=[
            "RoPE score of q = k = (1, …, 1) per |q|²: a²·mean_j cos(r·θ′_j), a = attention factor.",
            "Log x: one pair (d = 2), so the score is a²·cos(r·θ′_0): it oscillates at every distance, nothing decays."
            if n_pairs == 1
            else "Log x: the fast pairs oscillate at short distances, the slow pairs set the long-range decay.",
        ],
        x_title="relative distance r (tokens, log scale)",
        y_title="score per |q|²",
        colors={names[0]: BEFORE, names[1]: EXTRA, names[2]: AFTER},
        log_x=True,
        dashed=(names[1],),
        # L's label at the foot of its line, T's at the top: on a narrow plot the two lines come close
        vrules=[(train_len, f"L = {_fmt_len(train_len)}", "bottom"), (target_len, f"T = {_fmt_len(target_len)}")],
    )


def attention_factor_chart(
    factors, curves: Mapping[str, np.ndarray], *, factor: float, attention_factor: float, reference: str | None = None
) -> alt.LayerChart:
    """(6) Attention factor a against the scaling factor s, one curve per entry of `curves`; the point
    (s, a) of the first curve is marked. `reference`, beside another curve, is drawn dashed in grey."""
    current = next(iter(curves))
    dashed: tuple[str, ...] = (reference,) if reference is not None and reference in curves and len(curves) > 1 else ()
    return line_chart(
        {name: (factors, values) for name, values in curves.items()},
        title=text.attention_factor_title(current, attention_factor, factor),
        subtitle="The model multiplies cos and sin by a, so q·k (and the softmax sharpness) scales by a².",
        x_title="scaling factor s (log scale)",
        y_title="attention factor a",
        colors={name: BEFORE if name in dashed else AFTER for name in curves},
        log_x=True,
        dashed=dashed,
        y_zero=False,
        marks={f"s = {factor:g}": (factor, attention_factor)},
        height=170,
    )


def yarn_attention_factor(*, s: str, mscale: str, mscale_all_dim: str, attention_factor: str) -> str:
    """The Vega expression of YaRN's attention factor at s, in posenc.methods._yarn's float64 steps (HF's
    ``_compute_yarn_parameters``): attention_factor where it is set (not 0); else g(s, mscale) / g(s, mscale_all_dim)
    where both are set (not 0), else g(s, 1); g(s, m) = 0.1·m·ln s + 1 for s > 1, else 1 (posenc.yarn_get_mscale).
    The arguments are Vega expressions. Only ``log`` can differ from the C library's (in the last bit)."""

    def g(m: str) -> str:
        return f"({s} <= 1 ? 1.0 : 0.1 * {m} * log({s}) + 1.0)"

    computed = f"({mscale} !== 0 && {mscale_all_dim} !== 0 ? {g(mscale)} / {g(mscale_all_dim)} : {g('1.0')})"
    return f"({attention_factor} !== 0 ? {attention_factor} : {computed})"


#: The attention-factor chart's own sliders' labels: the keys' widget labels (explorer.vocabulary), in AF_KNOBS' order
AF_LABELS = {k: f"{BLOCK_KEY_WIDGETS[k].label} " for k in AF_KNOBS["yarn"]}


def attention_factor_live_chart(
    factors, reference, *, factor: float, knob_starts: Mapping[str, float], fixed: Mapping[str, float]
) -> alt.LayerChart:
    """(6), live: YaRN's attention factor a against s (`factors`), computed by the browser from mscale,
    mscale_all_dim and attention_factor (`yarn_attention_factor`), each key of `knob_starts` a slider starting there
    (over its widget's range), each of `fixed` a fixed value (0: not set); dashed, `reference`: YaRN with HF's defaults
    (posenc's, at `factors`). The block's s (`factor`) is marked, and a read-out says a and a² there."""
    if not knob_starts:
        raise ValueError("the live attention-factor chart needs at least one slider (knob_starts)")
    if set(knob_starts) & set(fixed) or set(knob_starts) | set(fixed) != set(AF_LABELS):
        raise ValueError(f"knob_starts and fixed must share out {', '.join(AF_LABELS)}, got {knob_starts}, {fixed}")
    params: list[Any] = []
    knobs: dict[str, str] = {}
    for key in AF_LABELS:
        if key in fixed:
            knobs[key] = repr(float(fixed[key]))
            continue
        # the bindings come in the reverse order: mscale listed first
        params.insert(0, _knob_slider(key, knob_starts[key], AF_LABELS[key]))
        knobs[key] = live.number(key)
    names = [text.AF_LIVE_CURVE, text.YARN_REFERENCE]
    x_title, y_title = "scaling factor s (log scale)", "attention factor a"
    x = _log_x(float(np.min(factors)), float(np.max(factors)), x_title)
    y = alt.Y("y:Q", title=y_title, scale=alt.Scale(zero=False))
    color = alt.Color("curve:N", title=None, scale=alt.Scale(domain=names, range=[AFTER, BEFORE]))
    dash = alt.StrokeDash("curve:N", title=None, scale=alt.Scale(domain=names, range=[[1, 0], [7, 4]]))
    tooltip = _curve_tooltip(x_title, y_title)
    a_of = yarn_attention_factor(s="datum.x", **knobs)
    curve = pd.DataFrame({"x": np.asarray(factors, dtype=float), "ref": np.asarray(reference, dtype=float)})
    ours = [
        _calc("y", a_of),
        _calc("curve", repr(text.AF_LIVE_CURVE)),
    ]
    theirs = [
        _calc("y", "datum.ref"),
        _calc("curve", repr(text.YARN_REFERENCE)),
    ]
    at_s = alt.Chart(pd.DataFrame({"x": [float(factor)]}), transform=[_calc("y", a_of)])
    # a and a² at the block's s (the sliders show their own values beside them; a phone's plot holds one line)
    readout = (
        f"'a = ' + format(datum.y, '.4~g') + ' at s = {factor:g}: logits × a² = ' + format(datum.y * datum.y, '.4~g')"
    )
    layers = [
        alt.Chart(curve, transform=theirs)
        .mark_line(strokeWidth=2.5)
        .encode(x, y, color, dash, tooltip=tooltip)
        .properties(name="ext_af_curves")
        .add_params(*params),
        alt.Chart(curve, transform=ours).mark_line(strokeWidth=2.5).encode(x, y, color, dash, tooltip=tooltip),
        at_s.mark_point(filled=True, size=160, color=WARN, opacity=1).encode(x, y),
        *readout_layers(at_s.transform_calculate(text=readout), corner="left"),
    ]
    return _finish(
        layers,
        title=text.af_live_title(tuple(k for k in AF_LABELS if k not in fixed)),
        subtitle="The model multiplies cos and sin by a, so q·k (and the softmax sharpness) scales by a².",
        height=170,
    )


#: Plot widths (px at font scale 1) for which the strip's bottom labels are thinned, and the room a
#: slanted bottom label needs from the last one (its 15 px text at 40°: 15 / sin 40° ≈ 23 px).
STRIP_WIDTHS = (0, 160, 200, 240, 280, 340, 400, 480, 560, 680, 800, 1000, 1200)
STRIP_LABEL_PX = 26


def _strip_label_filter() -> str:
    """The bottom labels kept at the plot's width: the thinning of the widest `STRIP_WIDTHS` entry
    that the plot (in font-scaled px) reaches. Entry 0 keeps what any width can show: the first."""
    plot = f"(width / {FONT_SCALE_PARAM})"
    expr = "datum.k0"
    for i, w in enumerate(STRIP_WIDTHS[1:], start=1):
        expr = f"({plot} >= {w} ? datum.k{i} : {expr})"
    return expr


def interpolation_strip_chart(positions, interpolated, *, factor: float, train_len: int) -> alt.LayerChart:
    """(7) Position Interpolation: token m (top row) is rotated as if it sat at m/s (bottom row).

    Bottom-row labels are slanted and thinned where the squeezed dots crowd (large s, a narrow
    plot): each label is drawn only where it is `STRIP_LABEL_PX` from the last one drawn, at the
    plot's width in the browser (`_strip_label_filter`)."""
    m = np.asarray(positions, dtype=float)
    mi = np.asarray(interpolated, dtype=float)
    top, bottom = "token position m", "model sees m/s"
    lo, hi = float(min(m.min(), mi.min())), float(max(m.max(), mi.max()))
    span = hi - lo + 0.6  # the x domain below
    n = m.size
    kept = {}
    for i, plot_px in enumerate(STRIP_WIDTHS):
        keep: list[bool] = []
        last = None
        for v in mi:  # label a bottom dot only if it is STRIP_LABEL_PX from the last label at this width
            keep.append(last is None or (v - last) * plot_px / span >= STRIP_LABEL_PX)
            last = v if keep[-1] else last
        kept[f"k{i}"] = np.concatenate([np.ones(n, dtype=bool), keep])
    dots = pd.DataFrame(
        {
            "x": np.concatenate([m, mi]),
            "row": np.repeat([1.0, 0.0], n),
            **kept,
            "label": [f"{v:g}" for v in m] + [f"{v:.3g}" for v in mi],
            "m": np.concatenate([m, m]),
            "mi": np.concatenate([mi, mi]),
            "side": np.repeat(["m", "m/s"], n),
        }
    )
    links = pd.DataFrame({"x": m, "x2": mi, "row": 1.0, "row2": 0.0})
    x = alt.X(
        "x:Q", title="position (pair j turns by position·θ_j)", scale=alt.Scale(domain=[lo - 0.3, hi + 0.3], nice=False)
    )
    y = alt.Y(
        "row:Q",
        scale=alt.Scale(domain=[-1.1, 1.5]),
        title=None,
        axis=alt.Axis(
            values=[0, 1],
            labelExpr=f"datum.value == 1 ? '{top}' : '{bottom}'",
            grid=False,
            labelFontSize=15,
            ticks=False,
            domain=False,
            labelPadding=8,
            labelLimit=300,
        ),
    )
    color = alt.Color("side:N", legend=None, scale=alt.Scale(domain=["m", "m/s"], range=[BEFORE, AFTER]))
    link_layer = (
        alt.Chart(links).mark_rule(color="#94a3b8", strokeWidth=1.5).encode(x, y, alt.X2("x2:Q"), alt.Y2("row2:Q"))
    )
    base = alt.Chart(dots)
    tooltip = [alt.Tooltip("m:Q", title="m"), alt.Tooltip("mi:Q", title="m/s", format=".4g")]
    dot_layer = base.mark_point(filled=True, size=140, opacity=1).encode(x, y, color, tooltip=tooltip)
    top_text = alt.Chart(dots[dots.row == 1]).mark_text(fontSize=15, dy=-17).encode(x, y, color, alt.Text("label:N"))
    bottom_text = (
        alt.Chart(dots[dots.row == 0])
        .transform_filter(_strip_label_filter())
        .mark_text(fontSize=15, angle=320, align="right", dy=12, dx=-2)
        .encode(x, y, color, alt.Text("label:N"))
    )
    return _finish(
        [link_layer, dot_layer, top_text, bottom_text],
        title=text.strip_title(factor),
        subtitle=text.strip_subtitle(factor, train_len),
        height=120,
    )


def phase_error_chart(positions, errors: Mapping[str, np.ndarray], *, floor: float = 1e-9) -> alt.LayerChart:
    """(8) Largest cos/sin error over pairs against position, per dtype (log y; 0 drawn at `floor`)."""
    curves = {k: (positions, np.maximum(np.asarray(v, dtype=float), floor)) for k, v in errors.items()}
    return line_chart(
        curves,
        title=text.phase_error_title(positions, errors),
        subtitle=text.phase_error_subtitle(floor),
        x_title="position m",
        y_title="phase error (log scale)",
        colors={k: DTYPE_COLORS.get(k, AFTER) for k in errors},
        log_y=True,
        dashed=("bfloat16",),
        hrules=[(1.0, "")],
    )


def temperature_chart(
    lengths: np.ndarray,
    llama4_multiplier: np.ndarray,
    yarn_multiplier: np.ndarray,
    *,
    floor_scale: float,
    attn_scale: float,
    train_len: int,
) -> alt.LayerChart:
    """Logit multiplier against position: Llama 4's NoPE-layer temperature (q only, so logits × τ)
    beside YaRN's a² when s is set to T / L for a context of that length (cos and sin, so logits × a²)."""
    # Short legend entries (a phone's plot is ~300 px wide); the formulas go in the subtitle, which wraps.
    llama4, yarn = "Llama 4 NoPE layers: τ", f"YaRN: a² with s = T/{train_len:,}"
    return line_chart(
        {llama4: (lengths, llama4_multiplier), yarn: (lengths, yarn_multiplier)},
        title="Two ways to sharpen attention far out: Llama 4's temperature and YaRN's attention factor",
        subtitle=text.temperature_subtitle(attn_scale, floor_scale),
        x_title="position p (log scale)",
        y_title="attention-logit multiplier",
        colors={llama4: AFTER, yarn: BEFORE},
        log_x=True,
        y_zero=False,
        dashed=(yarn,),
    )
