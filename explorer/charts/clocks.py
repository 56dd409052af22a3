"""Chart builders for the "Frequency clock hands" page (pure: data -> alt.Chart, no st.*).

- `clock_chart`   one clock per chosen pair j, plus the odometer (total turns of every pair on a
                  log axis), both driven by ONE position that moves in the browser: a slider,
                  a play checkbox and a speed menu under the chart, no server round trip per frame
- `pair_table`    the numbers behind the clocks at one position (j, θ_j, λ_j, angle, sin, cos)

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
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts import live
from explorer.charts.style import chart_config
from explorer.text.clocks import clocks_description, clocks_title_expr

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

#: The in-chart sliders (explorer.liveparam): the registry parameters m (the position p, the URL's p),
#: and, since issue #36, the head size d_model, the base b and the number of clocks n_clocks. Order:
#: d_model before n_clocks, whose range ends at d/2 (`live_limits`).
LIVE_KEY = "m"
SETTING_PARAMS = ("d_model", "base", "n_clocks")
LIVE_PARAMS = (LIVE_KEY, *SETTING_PARAMS)
#: The base slider runs over the index of the parameter's options (a range input moves in even steps;
#: the options are not evenly spaced): the chart reads b as ``BASE_OPTIONS[index]`` and the page hears
#: the index (explorer.liveparam.from_selection maps it back to the option).
BASE_KEY = "base"
#: Radius of a dial in pixels when few clocks share a row (the panel has `MAX_WIDTH`; more columns
#: make them smaller: `clock_expressions`'s ``radius``).
MAX_RADIUS = 64
#: Height of a row of clocks in pixels: the largest dial, the two label lines under it and a gap.
ROW_PX = 2 * MAX_RADIUS + LABEL_PX + 28
#: The Vega signals the chart computes its layout in (`clock_expressions`), read by the marks.
COLS_SIGNAL, RADIUS_SIGNAL = "clock_cols", "clock_radius"


def live_limits(values: dict) -> dict[str, dict[str, int]]:
    """The page's range of n_clocks, from the head size read before it: 1 … min(64, d/2)
    (`explorer.liveparam.LiveChart`'s ``limits``)."""
    return {"n_clocks": {"max": min(64, int(values["d_model"]) // 2)}} if "d_model" in values else {}


#: A phone's panel (`explorer.mode.on_a_phone`): narrow enough to be shown at about its own size on a
#: 390-px screen (a 760-px panel was scaled to under half, its labels unreadable), at most 3 clocks a row.
PHONE_WIDTH, PHONE_COLS = 380, 3


def clock_expressions(base_options, *, width: int = MAX_WIDTH, max_cols: int = 8) -> dict[str, str]:
    """The Vega expressions the chart evaluates in the browser, in terms of its own sliders (d_model,
    base as an index into `base_options`, n_clocks) and ``datum.i`` (a clock's slot, 0 … 63) or
    ``datum.j`` (a pair). Tested against posenc and `posenc.spread_pairs` / `grid_shape` in
    tests/test_charts_clocks.py (Python) and tests/test_e2e_clocks_live.py (read from the Vega view).

    d, b, pairs   the head size, the base ``base_options[index]`` and the number of pairs d/2
    clocks        the clocks drawn: min(n_clocks, d/2) (the slider can stand past a smaller d's last pair)
    theta         θ_j = b^(−2j/d) of ``datum.j``: posenc's float64 operations
                  (`posenc.inverse_frequencies`: ``np.power(b, -2.0 * j / d)``; JavaScript's pow may
                  differ in the last bit)
    spread        clock i's pair before rounding: i·((d/2 − 1)/(clocks − 1)), as np.linspace
    pair          `spread` rounded half to even (np.rint): `posenc.spread_pairs`
    cols, radius  `grid_shape`'s columns for that many clocks (at most `max_cols`), and the dial radius in
                  pixels that fits them into the panel's `width` (at most `MAX_RADIUS`)
    """
    d = live.number("d_model")
    b = live.option(BASE_KEY, base_options)
    pairs = f"({d} / 2)"
    clocks = f"min({live.number('n_clocks')}, {pairs})"
    spread = f"(datum.i * (({pairs} - 1) / max({clocks} - 1, 1)))"
    low = f"floor({spread})"
    pair = f"({low} + ({spread} - {low} > 0.5) + ({spread} - {low} == 0.5) * ({low} % 2))"
    cols = f"min({int(max_cols)}, ({clocks} <= 6) * {clocks} + ({clocks} > 6) * min(8, ceil(sqrt(2 * {clocks}))))"
    return {
        "d": d,
        "b": b,
        "pairs": pairs,
        "clocks": clocks,
        "theta": f"pow({b}, -2 * datum.j / {d})",
        "spread": spread,
        "pair": pair,
        "cols": cols,
        "radius": f"min({MAX_RADIUS}, {int(width)} / ({COLS_SIGNAL} * {SPACING}))",
    }


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
def grid_shape(n: int, max_cols: int = 8) -> tuple[int, int]:
    """(columns, rows) of the clock grid: one row up to 6 clocks, at most `max_cols` per row (8; a phone's
    narrow panel takes `PHONE_COLS`)."""
    if n < 1:
        raise ValueError(f"need at least one clock, got {n}")
    cols = min(max_cols, n if n <= 6 else min(8, math.ceil(math.sqrt(2 * n))))
    return cols, math.ceil(n / cols)


def odometer_ticks(e_lo: int, e_hi: int, max_labels: int = ODOMETER_MAX_LABELS) -> list[float]:
    """Tick values of the odometer's log axis from 10^e_lo to 10^e_hi: whole decades, every
    k-th one so that at most about `max_labels` get a label (one label per decade crowded the
    axis), always including 1 (= one full turn) when it is in range."""
    if e_hi < e_lo:
        raise ValueError(f"need e_lo <= e_hi, got {e_lo}, {e_hi}")
    step = max(1, math.ceil((e_hi - e_lo) / max_labels))
    return [10.0**e for e in range(e_lo, e_hi + 1) if e % step == 0]


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
    *,
    position: float,
    d_model: int,
    base: float,
    n_clocks: int,
    p_max: int,
    d_range: tuple[int, int] = (2, 2048),
    base_options,
    slowest_theta: float,
    n_max: int = 64,
    phone: bool = False,
) -> ClockChart:
    """The clocks and the odometer, moved in the browser by the chart's own sliders (issue #36).

    position      the initial position (the URL's p: the slider, LIVE_KEY, starts there); the slider
                  runs over 0 … p_max, and playing wraps there
    d_model       the initial head size (slider over `d_range` in steps of 2)
    base          the initial base, one of `base_options` (the slider runs over their index)
    n_clocks      the initial number of clocks (slider over 1 … n_max, read as at most d/2)
    slowest_theta the smallest θ_j the sliders can reach (posenc's, at the largest d and base): the
                  odometer's axis spans every setting
    phone         the narrow panel (`PHONE_WIDTH`, at most `PHONE_COLS` clocks a row)

    Nothing is computed here from the settings but their starts: θ_j, λ_j, which pairs get a clock
    and the grid they sit in are Vega expressions (`clock_expressions`) over rows sent once (a slot
    per possible clock, a row per possible pair), so a drag of any slider redraws the chart with no
    server run, and the spec is the same whatever the sliders say (explorer.liveparam)."""
    d_lo, d_hi = d_range
    if not (2 <= d_lo <= d_model <= d_hi and d_model % 2 == 0 and d_lo % 2 == 0 and d_hi % 2 == 0):
        raise ValueError(f"d_model must be even and in d_range = {d_range} (even ends ≥ 2), got {d_model}")
    options = tuple(float(b) for b in base_options)
    if not 1 <= n_clocks <= n_max:
        raise ValueError(f"n_clocks must be in 1 … n_max = {n_max}, got {n_clocks}")
    if not 0 <= position <= p_max:
        raise ValueError(f"position must be in 0 … p_max = {p_max}, got {position}")
    if not (math.isfinite(slowest_theta) and 0 < slowest_theta <= 1):
        raise ValueError(f"slowest_theta must be in (0, 1], got {slowest_theta}")
    width = PHONE_WIDTH if phone else MAX_WIDTH
    ex = clock_expressions(options, width=width, max_cols=PHONE_COLS if phone else 8)

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

    d_live = live.position("d_model", start=int(d_model), lo=d_lo, hi=d_hi, step=2, label="head size d ")
    b_live = live.option_position(BASE_KEY, options, start=base, label="base b ")  # raises for another base
    n_live = live.position("n_clocks", start=int(n_clocks), lo=1, hi=int(n_max), label="clocks ")
    cols_param = alt.param(name=COLS_SIGNAL, expr=ex["cols"])
    radius_param = alt.param(name=RADIUS_SIGNAL, expr=ex["radius"])
    r = RADIUS_SIGNAL

    # ---- geometry, in pixels: one row per slot a clock can take; the browser keeps the first
    # `clocks` of them, gives each its pair, θ_j and λ_j, and places it in the grid (column i % cols,
    # row i // cols; the rows are a point scale of ROW_PX each, so the panel grows with them)
    slots = pd.DataFrame({"i": np.arange(n_max, dtype=np.int16)})
    faces = (
        alt.Chart(slots)
        .transform_filter(f"datum.i < {ex['clocks']}")
        .transform_calculate(j=ex["pair"])
        .transform_calculate(theta=ex["theta"])
        .transform_calculate(
            wavelength="2 * PI / datum.theta",
            angle="pos * datum.theta",
            col=f"datum.i % {COLS_SIGNAL}",
            row=f"floor(datum.i / {COLS_SIGNAL})",
        )
        .transform_calculate(
            cx=f"(datum.col + 0.5) * {SPACING} * {r}",
            deg="(datum.angle % (2 * PI)) * 180 / PI",
            sin_value="sin(datum.angle)",
            cos_value="cos(datum.angle)",
            turns="datum.angle / (2 * PI)",
            label="'j = ' + datum.j + '\\nλ = ' + (datum.wavelength < 100 ? format(datum.wavelength, '.3~g') "
            ": format(datum.wavelength, ',.0f'))",
        )
    )
    x = alt.X("cx:Q").scale(domain=[0, width], nice=False, zero=False).axis(None)
    y = alt.Y("row:O").scale(type="point", padding=0.5).axis(None)
    # every clock mark sits at its dial's centre: the top of its row plus a gap and the largest radius
    centre = alt.ExprRef(f"{r} + 10 - {ROW_PX / 2}")
    size = alt.ExprRef(f"pow(2 * {r}, 2)")  # a symbol of this area spans the dial: path units are radii
    on_dial: dict[str, Any] = {"opacity": 1, "size": size, "yOffset": centre}
    dials = faces.mark_point(shape="circle", filled=False, color="#94A3B8", strokeWidth=2, **on_dial).encode(x=x, y=y)
    noon = faces.mark_point(shape="M0,-1L0,-0.82", filled=False, color="#64748B", strokeWidth=2, **on_dial).encode(
        x=x, y=y
    )
    tooltip = [
        alt.Tooltip("j:Q", title="pair j"),
        alt.Tooltip("wavelength:Q", title="λ_j (tokens)", format=",.4~g"),
        alt.Tooltip("turns:Q", title="turns so far", format=",.4~g"),
        alt.Tooltip("sin_value:Q", title="x = sin(p·θ_j)", format=".4f"),
        alt.Tooltip("cos_value:Q", title="y = cos(p·θ_j)", format=".4f"),
    ]
    # a hand and its tip are paths pointing to 12, turned clockwise by the angle (tip = (sin, cos))
    angle = alt.Angle("deg:Q").scale(None)
    hands = faces.mark_point(
        shape=f"M0,0L0,-{HAND}", filled=False, color="#B91C1C", strokeWidth=4, strokeCap="round", **on_dial
    ).encode(x=x, y=y, angle=angle, tooltip=tooltip)
    tip_r = 0.08
    tips = faces.mark_point(
        shape=f"M{-tip_r},-{HAND}a{tip_r},{tip_r} 0 1,0 {2 * tip_r},0a{tip_r},{tip_r} 0 1,0 {-2 * tip_r},0Z",
        filled=True,
        color="#B91C1C",
        **on_dial,
    ).encode(x=x, y=y, angle=angle, tooltip=tooltip)
    hubs = faces.mark_circle(color="#0F172A", size=40, opacity=1, yOffset=centre).encode(x=x, y=y)
    labels = faces.mark_text(
        fontSize=14,
        baseline="top",
        lineBreak="\n",
        color="#0F172A",
        yOffset=alt.ExprRef(f"{r} + 10 - {ROW_PX / 2} + 1.12 * {r}"),
    ).encode(x=x, y=y, text=alt.Text("label:N"))
    settings = (
        f"'b = ' + format({ex['b']}, ',.0f') + ' · d = ' + {ex['d']} + ' · ' + {ex['clocks']} + ' of ' + "
        f"{ex['pairs']} + ' pairs'"
    )
    readout = (
        alt.Chart(pd.DataFrame({"row": [0]}))
        .transform_calculate(text="'position p = ' + format(pos, ',.2f')")
        .mark_text(fontSize=20, fontWeight="bold", align="left", baseline="bottom", color="#0F172A", dy=-6)
        .encode(x=alt.XValue(0), y=alt.YValue(0), text=alt.Text("text:N"))
        # Vega-Lite defines a selection in a unit view (named, so the spec is the same at every build)
        .properties(name="clock_readout")
        .add_params(n_live, b_live, d_live, p_live)  # Vega lists the bound inputs in reverse: p first
    )
    # the settings the sliders stand at, b as its value (its slider's own read-out is an index)
    settings_readout = (
        alt.Chart(pd.DataFrame({"row": [0]}))
        .transform_calculate(text=settings)
        # on a phone's narrow panel: its own line above the position's (the two side by side collide)
        .mark_text(
            fontSize=15 if phone else 17,
            align="left" if phone else "right",
            baseline="bottom",
            color="#0F172A",
            dy=-34 if phone else -7,
        )
        .encode(x=alt.XValue(0 if phone else "width"), y=alt.YValue(0), text=alt.Text("text:N"))
    )
    title = clocks_title_expr(ex["clocks"], ex["pairs"], phone=phone)  # two lines on a phone's narrow panel
    subtitle = (
        [
            "Tip = (sin p·θ_j, cos p·θ_j): x is dimension 2j,",
            "y dimension 2j + 1; at p = 0 every hand points",
            "to 12 o'clock. Under each clock: pair j and its",
            "wavelength λ_j in tokens.",
        ]
        if phone
        else [  # short lines: the panel, not the subtitle, sets the chart's width
            "Tip = (sin p·θ_j, cos p·θ_j): x is dimension 2j, y dimension 2j + 1; at p = 0 every hand",
            "points to 12 o'clock. Under each clock: pair j and its wavelength λ_j in tokens.",
        ]
    )
    faces_panel = alt.LayerChart(
        layer=[dials, noon, hands, tips, hubs, labels, readout, settings_readout],
        width=width,
        height=alt.Step(ROW_PX),
        title=alt.TitleParams(
            alt.ExprRef(title),
            subtitle=subtitle,
            offset=60 if phone else 34,  # room for the read-out (two lines on a phone) above the first row
        ),
    )

    # ---- odometer: total turns of every pair at the current position, log axis. One row per pair
    # the largest d has; the browser keeps the first d/2. Its y axis spans every setting the sliders
    # reach (posenc's slowest θ at the largest d and base, θ_0 = 1 at p_max), so it stays put while
    # d or b are dragged and the line's slope shows the change.
    j_max = d_hi // 2
    e_lo = math.floor(math.log10(slowest_theta / (2 * np.pi)))  # at p = 1
    e_hi = math.ceil(math.log10(max(p_max, 1) / (2 * np.pi)))  # θ_0 = b^0 = 1 at every setting
    t_lo, t_hi = 10.0**e_lo, 10.0**e_hi
    turns_y = (
        alt.Y("turns:Q")
        .title("turns completed (log scale)")
        .scale(type="log", domain=[t_lo, t_hi], nice=False)
        .axis(values=odometer_ticks(e_lo, e_hi), format=",~g", labelFlush=False, orient="right")
    )
    # half a mark's width of room beyond the first and last pair, so their dots are drawn whole
    last = f"max(1, {ex['pairs']} - 1)"
    odo_x = (
        alt.X("j:Q")
        .title("pair j (fast → slow)")
        .scale(
            domainMin=alt.ExprRef(f"-(0.5 + 0.02 * {last})"),
            domainMax=alt.ExprRef(f"{last} + 0.5 + 0.02 * {last}"),
            nice=False,
            zero=False,
        )
        .axis(tickMinStep=1, format="d")
    )  # pairs are whole numbers
    odo = pd.DataFrame({"j": np.arange(j_max, dtype=np.int16)})
    odo_line = (
        alt.Chart(odo)
        .transform_filter(f"datum.j < {ex['pairs']}")
        .transform_calculate(theta=ex["theta"])
        .transform_calculate(turns="pos * datum.theta / (2 * PI)")
        .transform_filter("datum.turns > 0")
        .mark_line(color="#1D4ED8", strokeWidth=3, clip=True)
        .encode(
            x=odo_x,
            y=turns_y,
            tooltip=[alt.Tooltip("j:Q", title="pair j"), alt.Tooltip("turns:Q", title="turns", format=",.4~g")],
        )
    )
    odo_marks = (
        faces.transform_filter("datum.turns > 0")
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
        x=alt.XValue("width"), y=turns_y, text=alt.Text("label:N")
    )
    odometer = alt.LayerChart(
        layer=[odo_rule, odo_text, odo_line, odo_marks],
        # Its y axis on the right: the concatenation aligns the plots' left edges, so a left
        # axis would widen the whole chart by its ~90 px (too wide for a 1280-px screen).
        width=width - 90,  # plus its y axis ≈ the clock panel's width
        height=230,
        title=alt.TitleParams(
            ["Odometer: how many turns each hand", "has made by position p"]
            if phone
            else "Odometer: how many turns each hand has made by position p",
            subtitle=[
                "Total turns p·θ_j / 2π of every pair at the",
                "position above (red: pairs with a clock).",
                "Empty at p = 0. The pairs' speeds fall",
                "geometrically: a straight line on the log axis",
                "(a dot when d = 2).",
            ]
            if phone
            else [
                "Total turns p·θ_j / 2π of every pair at the position above (red: pairs with a clock). Empty at p = 0.",
                "The pairs' speeds fall geometrically, so this is a straight line on the log axis (a dot when d = 2).",
            ],
        ),
    )

    return ClockChart(
        vconcat=[faces_panel, odometer],
        # ignore: the stub types Parameter.param as possibly Undefined; alt.param() always sets it
        params=[playing.param, pos.param, exact.param, speed.param, cols_param.param, radius_param.param],  # type: ignore[list-item]
        config=CONFIG,
        autosize=alt.AutoSizeParams(type="pad", contains="padding"),
        usermeta={
            "client_timer": {"pos": timer, "exact": follow_pos},
            "client_bind": {"exact": {"min": 0, "max": int(p_max), "step": 1}},
        },
        description=clocks_description(position, d_model, base, n_clocks),
    )
