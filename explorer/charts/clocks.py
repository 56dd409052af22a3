"""Chart builders for the "Frequency clock hands" page (pure: data -> alt.Chart, no st.*).

- `clock_chart`   one clock per chosen pair j, plus the odometer (total turns of every pair on a
                  log axis), both driven by ONE position that moves in the browser: a slider,
                  a play checkbox and a speed menu under the chart, no server round trip per frame
- `pair_table`    the numbers behind the clocks at one position (j, θ_j, λ_j, angle, sin, cos)
- `clock_pairs`   which pairs get a clock (spread evenly from the fastest to the slowest)

How the animation works (and why this way)
------------------------------------------
The chart carries a Vega-Lite parameter ``pos`` bound to a range slider (``alt.binding_range``);
the hands are computed from it in the browser by calculate transforms
(x = sin(pos·θ_j), y = cos(pos·θ_j)). Dragging the slider moves the hands without talking to the
server. For "play", ``pos`` also gets a Vega ``timer`` event handler: every `FRAME_MS` ms it
advances by speed/fps tokens while the bound "play" checkbox is ticked, and the slider follows.

* Vega-Lite has no timer of its own except the experimental animation of Vega-Lite 6 (a ``time``
  encoding with a point selection ``on: "timer"``). Streamlit 1.67 ships Vega-Lite 6.5, and that
  animation works, but only in a single unit chart: with layers (dials + hands + labels) it
  stops with "Animation involving facet, layer, or concat is currently unsupported"; it also steps
  through precomputed frames instead of following a slider.
* vega-embed's ``patch`` option (``usermeta.embedOptions.patch``) could add the handler to the
  compiled Vega spec, but Streamlit 1.67 drops every embed option except theme, renderer and
  padding.
* Vega-Lite copies every key of a top-level variable parameter it does not know into the Vega
  signal it compiles (``{name, value, bind, ...rest}``), so a parameter with an ``on`` key becomes
  a Vega signal with an event handler. Altair's schema does not allow ``on``, so `ClockChart`
  adds it after Altair has validated the rest of the spec. The handler is stored in the chart's
  ``usermeta["client_timer"]`` (free-form, valid Vega-Lite) so it survives Altair's copies.
"""

from __future__ import annotations

import math

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts import live
from explorer.charts.style import chart_config

#: Frames per second of the in-browser animation (Vega timer throttle = 1000 / FPS ms).
FPS = 25
FRAME_MS = 1000 // FPS
#: Playback speeds offered by the in-chart menu, in tokens per second.
SPEEDS = (0.25, 1, 4, 16, 64, 256, 1024, 4096)
DEFAULT_SPEED = 4

SPACING = 2.4  # horizontal distance between clock centres, in dial radii
#: Width of the clock panel, in pixels: with 8 clocks per row a dial is 2·760/(8·2.4) ≈ 79 px
#: across, and the chart (≈ 770 px) still fits the main column of a 1280-px screen with the
#: sidebar open (≈ 790 px).
MAX_WIDTH = 760
#: The odometer's log axis labels at most this many decades (every 2nd, 3rd … beyond).
ODOMETER_MAX_LABELS = 6
LABEL_PX = 36  # height of the two label lines under a clock (14 px font), in pixels
HAND = 0.9  # hand length, in dial radii
_RING_POINTS = 73  # points on each dial circle (72 segments)

#: The in-chart slider: the registry parameter m ("start position p" on this page), the URL's p.
LIVE_KEY = "m"
LIVE_PARAMS = (LIVE_KEY,)  # the chart's own sliders (explorer.liveparam), as on the RoPE page

CONFIG = chart_config(title={"fontSize": 19}, view={"stroke": None}, concat={"spacing": 28})


class ClockChart(alt.VConcatChart):
    """A VConcatChart whose serialised spec gives top-level parameters Vega event handlers.

    ``usermeta["client_timer"]`` maps a parameter name to a list of Vega ``on`` handlers; `to_dict`
    copies them onto the parameters (see the module docstring for why). ``usermeta["client_bind"]``
    maps a parameter name to extra attributes of its input element (Vega sets every key of a
    generic ``input`` binding on the element; Altair's schema lists none: min, max, step).
    Everything else is a plain, Altair-validated Vega-Lite spec."""

    def to_dict(self, *args, **kwargs):
        spec = super().to_dict(*args, **kwargs)
        meta = spec.get("usermeta") or {}
        handlers = meta.get("client_timer") or {}
        attributes = meta.get("client_bind") or {}
        for param in spec.get("params", []):
            if param.get("name") in handlers:
                param["on"] = handlers[param["name"]]
            if param.get("name") in attributes and isinstance(param.get("bind"), dict):
                param["bind"] = {**param["bind"], **attributes[param["name"]]}
        return spec


# ------------------------------------------------------------------------------ data helpers
def clock_pairs(n_pairs: int, n_clocks: int) -> np.ndarray:
    """Pair indices that get a clock: `n_clocks` of 0 … n_pairs − 1 spread evenly, always
    including the fastest (0) and the slowest (n_pairs − 1) pair."""
    if n_pairs < 1 or n_clocks < 1:
        raise ValueError(f"n_pairs and n_clocks must be >= 1, got {n_pairs}, {n_clocks}")
    if n_clocks >= n_pairs:
        return np.arange(n_pairs)
    if n_clocks == 1:
        return np.array([0])
    return np.unique(np.rint(np.linspace(0, n_pairs - 1, n_clocks)).astype(int))


def grid_shape(n: int) -> tuple[int, int]:
    """(columns, rows) of the clock grid: one row up to 6 clocks, at most 8 per row."""
    if n < 1:
        raise ValueError(f"need at least one clock, got {n}")
    cols = n if n <= 6 else min(8, math.ceil(math.sqrt(2 * n)))
    return cols, math.ceil(n / cols)


def odometer_ticks(e_lo: int, e_hi: int, max_labels: int = ODOMETER_MAX_LABELS) -> list[float]:
    """Tick values of the odometer's log axis from 10^e_lo to 10^e_hi: whole decades, every
    k-th one so that at most about `max_labels` get a label (one label per decade crowded the
    axis), always including 1 (= one full turn) when it is in range."""
    if e_hi < e_lo:
        raise ValueError(f"need e_lo <= e_hi, got {e_lo}, {e_hi}")
    step = max(1, math.ceil((e_hi - e_lo) / max_labels))
    return [10.0**e for e in range(e_lo, e_hi + 1) if e % step == 0]


def wavelength_label(lam: float) -> str:
    """ "6.28", "19.9", "628", "54,410": three significant digits, whole tokens from 100 on."""
    return f"{lam:.3g}" if lam < 100 else f"{lam:,.0f}"


def pair_table(pairs, theta, wavelengths, angle, sin, cos) -> pd.DataFrame:
    """The numbers behind the clocks at one position: one row per pair j.

    angle = p·θ_j (radians, not reduced); turns = angle / 2π; sin and cos are the pair's two
    coordinates (x = sin, y = cos on the clock face)."""
    pairs = np.asarray(pairs)
    cols = {
        "pair j": pairs.astype(np.int64),
        "θ_j (rad/token)": np.asarray(theta, dtype=np.float64),
        "λ_j (tokens)": np.asarray(wavelengths, dtype=np.float64),
        "angle p·θ_j (rad)": np.asarray(angle, dtype=np.float64),
    }
    n = pairs.size
    for name, values in cols.items():
        if values.shape != (n,):
            raise ValueError(f"{name} must have {n} entries, got shape {values.shape}")
    table = pd.DataFrame(cols)
    table["turns"] = table["angle p·θ_j (rad)"] / (2.0 * np.pi)
    table["hand angle (° clockwise from 12)"] = np.degrees(np.mod(table["angle p·θ_j (rad)"], 2.0 * np.pi))
    table["sin = x"] = np.asarray(sin, dtype=np.float64)
    table["cos = y"] = np.asarray(cos, dtype=np.float64)
    return table


# ----------------------------------------------------------------------------------- charts
def clock_chart(
    pairs,
    theta,
    wavelengths,
    *,
    all_theta,
    position: float,
    p_max: int,
    base: float,
    d_model: int,
    max_width: int = MAX_WIDTH,
) -> ClockChart:
    """The clocks and the odometer, animated in the browser.

    pairs, theta, wavelengths   the pairs that get a clock, their θ_j and λ_j
    all_theta                   θ_j of every pair (the odometer shows all of them)
    position                    the initial position (the URL's p: the slider, LIVE_KEY, starts there)
    p_max                       the in-chart slider runs over 0 … p_max; playing wraps there
    """
    pairs = np.asarray(pairs, dtype=np.int64)
    theta = np.asarray(theta, dtype=np.float64)
    wl = np.asarray(wavelengths, dtype=np.float64)
    all_theta = np.asarray(all_theta, dtype=np.float64)
    n = pairs.size
    if n < 1 or theta.shape != (n,) or wl.shape != (n,):
        raise ValueError(
            f"pairs, theta and wavelengths must be non-empty and equal-length, got "
            f"{pairs.shape}, {theta.shape}, {wl.shape}"
        )
    if not 0 <= position <= p_max:
        raise ValueError(f"position must be in 0 … p_max = {p_max}, got {position}")

    # ---- the parameters. The slider is the URL's p itself (`explorer.charts.live.position`, key
    # LIVE_KEY): a drag reports its value to the page when it ends. ``pos`` is the position the
    # hands show: it follows the slider, and while playing a Vega timer moves it on by fractions of
    # a token. A timer cannot set a selection (only its input can), so when play stops or a number
    # is typed, the page's script (explorer/assets.py, CLOCK_BRIDGE_JS) moves the slider to
    # floor(pos) with the slider's own input event: the selection, and then the link, follow.
    p_live = live.position(LIVE_KEY, start=int(position), lo=0, hi=int(p_max), label="position p ")
    slider = live.input_signal(LIVE_KEY)
    pos = alt.param(name="pos", value=float(position))
    playing = alt.param(name="playing", value=False, bind=alt.binding_checkbox(name="▶ play "))
    speed = alt.param(
        name="speed",
        value=DEFAULT_SPEED,
        bind=alt.binding_select(options=list(SPEEDS), name="speed (tokens per second) "),
    )
    # Fine control: a number box showing the whole position floor(p); typing a number or
    # stepping it by ±1 (its arrows, the arrow keys) moves p there. The box follows p; p follows
    # the box only when the box says something else than floor(p), so a fractional p while
    # playing slowly is never rounded.
    # (It follows pos by an event handler, not an ``expr``: Vega updates a bound input when its signal
    # is set by a handler, but not when an expression signal is recomputed.)
    exact = alt.param(
        name="exact",
        value=int(math.floor(position)),
        bind=alt.binding(input="number", name="exact p (type, or ±1) "),
    )
    follow_pos = [{"events": {"signal": "pos"}, "update": "floor(pos)"}]
    # Every frame: pos ← pos + speed / FPS while playing, wrapping to 0 after p_max; rounded to
    # 1/100 token so the read-out stays short.
    step = f"(pos + speed / {FPS})"
    typed = "toNumber(event.target.value)"
    timer = [
        {
            "events": {"type": "timer", "throttle": FRAME_MS},
            "update": f"playing ? ({step} > {int(p_max)} ? 0 : round({step} * 100) / 100) : pos",
        },
        {  # the number box (a signal event stream on `exact` would be circular: exact follows pos)
            "events": {"source": "window", "type": "input", "filter": "event.target.name === 'exact'"},
            "update": f"isValid({typed}) && isFinite({typed}) && {typed} != floor(pos) "
            f"? clamp(round({typed}), 0, {int(p_max)}) : pos",
        },
        {  # the slider (dragged, or moved by the bridge): the hands go where it is
            "events": {"signal": slider},
            "update": f"isValid({slider}) ? {slider} : pos",
        },
    ]

    # ---- geometry (dial radius = 1 unit)
    cols, rows = grid_shape(n)
    px = min(64.0, max_width / (cols * SPACING))  # pixels per unit: equal on x and y
    row_pitch = 2.0 + (LABEL_PX + 12) / px + 0.25  # dial, the two label lines, a gap
    idx = np.arange(n)
    cx = (idx % cols) * SPACING
    cy = -(idx // cols) * row_pitch
    faces = pd.DataFrame(
        {
            "j": pairs,
            "theta": theta,
            "wavelength": wl,
            "cx": cx,
            "cy": cy,
            "label": [f"j = {j}\nλ = {wavelength_label(lam)}" for j, lam in zip(pairs, wl)],
        }
    )
    k = np.linspace(0.0, 2.0 * np.pi, _RING_POINTS)
    ring = pd.DataFrame(
        {
            "j": np.repeat(pairs, k.size),
            "order": np.tile(np.arange(k.size), n),
            "x": np.repeat(cx, k.size) + np.tile(np.sin(k), n),
            "y": np.repeat(cy, k.size) + np.tile(np.cos(k), n),
        }
    )
    x_lo, x_hi = -SPACING / 2, (cols - 0.5) * SPACING
    y_lo = -(rows - 1) * row_pitch - 1.12 - (LABEL_PX + 8) / px
    y_hi = 1.0 + 40.0 / px  # room for the position read-out above the first row
    x = alt.X("x:Q").scale(domain=[x_lo, x_hi], nice=False, zero=False).axis(None)
    y = alt.Y("y:Q").scale(domain=[y_lo, y_hi], nice=False, zero=False).axis(None)
    width = int(round((x_hi - x_lo) * px))
    height = int(round((y_hi - y_lo) * px))

    dials = (
        alt.Chart(ring)
        .mark_line(color="#94A3B8", strokeWidth=2)
        .encode(x=x, y=y, detail=alt.Detail("j:N"), order=alt.Order("order:Q"))
    )
    noon = (
        alt.Chart(faces)
        .transform_calculate(x="datum.cx", y="datum.cy + 0.82", y2="datum.cy + 1")
        .mark_rule(color="#64748B", strokeWidth=2)
        .encode(x=x, y=y, y2=alt.Y2("y2:Q"))
    )
    hand_data = (
        alt.Chart(faces)
        .transform_calculate(angle="pos * datum.theta")
        .transform_calculate(
            x="datum.cx",
            y="datum.cy",
            tip_x=f"datum.cx + {HAND} * sin(datum.angle)",
            tip_y=f"datum.cy + {HAND} * cos(datum.angle)",
            sin_value="sin(datum.angle)",
            cos_value="cos(datum.angle)",
            turns="datum.angle / (2 * PI)",
        )
    )
    tooltip = [
        alt.Tooltip("j:Q", title="pair j"),
        alt.Tooltip("wavelength:Q", title="λ_j (tokens)", format=",.4~g"),
        alt.Tooltip("turns:Q", title="turns so far", format=",.4~g"),
        alt.Tooltip("sin_value:Q", title="x = sin(p·θ_j)", format=".4f"),
        alt.Tooltip("cos_value:Q", title="y = cos(p·θ_j)", format=".4f"),
    ]
    hands = hand_data.mark_rule(color="#B91C1C", strokeWidth=4, strokeCap="round").encode(
        x=x, y=y, x2=alt.X2("tip_x:Q"), y2=alt.Y2("tip_y:Q"), tooltip=tooltip
    )
    tips = hand_data.mark_circle(color="#B91C1C", size=70, opacity=1).encode(
        x=alt.X("tip_x:Q").scale(domain=[x_lo, x_hi], nice=False, zero=False).axis(None),
        y=alt.Y("tip_y:Q").scale(domain=[y_lo, y_hi], nice=False, zero=False).axis(None),
        tooltip=tooltip,
    )
    hubs = (
        alt.Chart(faces)
        .transform_calculate(x="datum.cx", y="datum.cy")
        .mark_circle(color="#0F172A", size=40, opacity=1)
        .encode(x=x, y=y)
    )
    labels = (
        alt.Chart(faces)
        .transform_calculate(x="datum.cx", y="datum.cy - 1.12")
        .mark_text(fontSize=14, baseline="top", lineBreak="\n", color="#0F172A")
        .encode(x=x, y=y, text=alt.Text("label:N"))
    )
    readout = (
        alt.Chart(pd.DataFrame({"x": [x_lo + 0.1], "y": [y_hi - 0.05]}))
        .transform_calculate(text="'position p = ' + format(pos, ',.2f')")
        .mark_text(fontSize=20, fontWeight="bold", align="left", baseline="top", color="#0F172A")
        .encode(x=x, y=y, text=alt.Text("text:N"))
        # Vega-Lite defines a selection in a unit view (named, so the spec is the same at every build)
        .properties(name="clock_readout")
        .add_params(p_live)
    )
    # Composite charts are built in one constructor call: every .properties()/.add_params() on a
    # composite deep-copies all its sub-charts (tens of milliseconds here).
    faces_panel = alt.LayerChart(
        layer=[dials, noon, hands, tips, hubs, labels, readout],
        width=width,
        height=height,
        title=alt.TitleParams(
            (
                "One clock per pair: the hand of pair j turns by θ_j per token"
                if n == all_theta.size
                else f"One clock for each of {n} of the {all_theta.size} pairs: the hand of pair j turns by θ_j per token"
            ),
            subtitle=[  # short lines: the panel, not the subtitle, sets the chart's width
                "Tip = (sin p·θ_j, cos p·θ_j): x is dimension 2j, y dimension 2j + 1; at p = 0 every hand",
                "points to 12 o'clock. Under each clock: pair j and its wavelength λ_j in tokens.",
            ],
        ),
    )

    # ---- odometer: total turns of every pair at the current position, log axis
    h = all_theta.size
    odo = pd.DataFrame({"j": np.arange(h), "theta": all_theta, "clock": np.isin(np.arange(h), pairs)})
    e_lo = math.floor(math.log10(all_theta.min() / (2 * np.pi)))  # at p = 1
    e_hi = math.ceil(math.log10(max(p_max, 1) * all_theta.max() / (2 * np.pi)))
    t_lo, t_hi = 10.0**e_lo, 10.0**e_hi
    turns_y = (
        alt.Y("turns:Q")
        .title("turns completed (log scale)")
        .scale(type="log", domain=[t_lo, t_hi], nice=False)
        .axis(values=odometer_ticks(e_lo, e_hi), format=",~g", labelFlush=False, orient="right")
    )
    # half a mark's width of room beyond the first and last pair, so their dots are drawn whole
    pad = 0.5 + 0.02 * max(1, h - 1)
    odo_x = (
        alt.X("j:Q")
        .title("pair j (fast → slow)")
        .scale(domain=[-pad, max(1, h - 1) + pad], nice=False, zero=False)
        .axis(tickMinStep=1, format="d")
    )  # pairs are whole numbers
    odo_base = (
        alt.Chart(odo).transform_calculate(turns="pos * datum.theta / (2 * PI)").transform_filter("datum.turns > 0")
    )
    odo_line = odo_base.mark_line(color="#1D4ED8", strokeWidth=3, clip=True).encode(
        x=odo_x,
        y=turns_y,
        tooltip=[alt.Tooltip("j:Q", title="pair j"), alt.Tooltip("turns:Q", title="turns", format=",.4~g")],
    )
    odo_marks = (
        odo_base.transform_filter("datum.clock")
        .mark_circle(color="#B91C1C", size=80, opacity=1, clip=True)
        .encode(
            x=odo_x,
            y=turns_y,
            tooltip=[
                alt.Tooltip("j:Q", title="pair j (has a clock)"),
                alt.Tooltip("turns:Q", title="turns", format=",.4~g"),
            ],
        )
    )
    one_turn = alt.Chart(pd.DataFrame({"turns": [1.0], "label": ["one full turn"]}))
    odo_rule = one_turn.mark_rule(color="#B45309", strokeDash=[6, 4], strokeWidth=2).encode(y=turns_y)
    odo_text = one_turn.mark_text(align="right", dx=-4, dy=-9, fontSize=14, color="#B45309").encode(
        x=alt.datum(max(1, h - 1)), y=turns_y, text=alt.Text("label:N")
    )
    odometer = alt.LayerChart(
        layer=[odo_rule, odo_text, odo_line, odo_marks],
        # Its y axis on the right: the concatenation aligns the plots' left edges, so a left
        # axis would widen the whole chart by its ~90 px (too wide for a 1280-px screen).
        width=max(width - 90, 360),  # plus its y axis ≈ the clock panel's width
        height=230,
        title=alt.TitleParams(
            "Odometer: how many turns each hand has made by position p",
            subtitle=[
                "Total turns p·θ_j / 2π of every pair at the position above (red: pairs with a clock). Empty at p = 0.",
                f"d = {d_model}, b = {base:,.0f}: the pairs' speeds fall geometrically, so this "
                "is a straight line on the log axis."
                if h > 1
                else f"d = {d_model}: a single pair, turning one radian per token.",
            ],
        ),
    )

    description = (
        f"Clock hands, starting at position p = {position:g} (the in-chart controls move it): "
        + ", ".join(f"pair {j} (wavelength {wavelength_label(lam)} tokens)" for j, lam in zip(pairs, wl))
        + ". Each hand turns clockwise by θ_j radians per token. Below, the odometer: the turns made by "
        + (
            f"every one of the {h} pairs at p, on a log axis, falling from pair 0 to pair {h - 1}."
            if h > 1
            else "the one pair at p."
        )
    )
    return ClockChart(
        vconcat=[faces_panel, odometer],
        # ignore: the stub types Parameter.param as possibly Undefined; alt.param() always sets it
        params=[playing.param, pos.param, exact.param, speed.param],  # type: ignore[list-item]
        config=CONFIG,
        autosize=alt.AutoSizeParams(type="pad", contains="padding"),
        usermeta={
            "client_timer": {"pos": timer, "exact": follow_pos},
            "client_bind": {"exact": {"min": 0, "max": int(p_max), "step": 1}},
        },
        description=description,
    )
