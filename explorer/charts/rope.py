"""Chart builders for the RoPE-rotation page (pure: data -> alt.Chart / LaTeX text, no st.*).

- `plane_frames`         the data of that plane: arrows, arcs and trajectory from the page's numbers
- `plane_chart`          one rotation plane (pair j): q and k before and after rotation as arrows on
                         the circles of their norms, angle arcs, and the trajectory of q over 0 … M
- `pair_map_chart`       which pair j each coordinate i belongs to (half vs interleaved layout)
- `rope_matrix_heatmap`  the d×d block-rotation matrix R_m as one image, pair j's four cells boxed
- `rotation_latex`       the 2×2 rotation with its numbers, applied to q (for st.latex)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts import live
from explorer.charts.labels import (
    DOT_LABEL_GAP,
    NAME_CHAR,
    NAME_FONT,
    NUMBER_CHAR,
    NUMBER_FONT,
    TIP_LABEL_GAP,
    corner_boxes,
    corner_labels,
    place_labels,
    placed_labels,
    placed_text,
)
from explorer.charts.style import (
    BASE_CONFIG,
    configure,
    fact,
    facts_layer,
    facts_titled,
    when,
)
from explorer.imagechart import fit_heatmap_legend, image_heatmap
from explorer.text import rope as text

#: One colour per vector, used for its arrows, circle, arc and label.
VECTOR_COLORS = {"q": "#1D4ED8", "k": "#C2410C"}
#: States of an arrow; "before" is drawn dashed and faint, "after" solid.
STATES = ("before", "after")
#: The title's font size (`configure`'s default, BASE_CONFIG's), which its line breaks are measured in.
TITLE_SIZE = BASE_CONFIG["title"]["fontSize"]


def _square_scale(lim: str | None = None) -> alt.Scale:
    """−lim … lim on both axes, lim a Vega expression (default: read from the chart's facts row: a new pair keeps the
    spec)."""
    lim = fact("lim") if lim is None else lim
    return alt.Scale(domainMin=alt.ExprRef(f"-{lim}"), domainMax=alt.ExprRef(lim), nice=False, zero=False)


def _arc_points(start: float, end: float, radius: float, n: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """Points along a circular arc from angle `start` to `end` (radians) — drawing geometry only."""
    t = np.linspace(start, end, n)
    return radius * np.cos(t), radius * np.sin(t)


def plane_frames(q: np.ndarray, k: np.ndarray, nums: dict, m: int, n: int) -> dict[str, pd.DataFrame]:
    """`plane_chart`'s arrows, arcs and trajectory for pair j's q and k at positions m and n, from
    `explorer.compute.rope.plane_numbers` (q_rot, k_rot, trajectory, angles, turn): q's arc is its turn
    m·θ modulo full turns, k's arc at n the measured angle k → q."""
    q_rot, k_rot, traj, turn = (nums[key] for key in ("q_rot", "k_rot", "trajectory", "turn"))
    measured = nums["angles"].measured
    arrows = pd.DataFrame(
        [
            ("q", "before", "q", *q),
            ("k", "before", "k", *k),
            ("q", "after", f"q at m={m}", *q_rot),
            ("k", "after", f"k at n={n}", *k_rot),
        ],
        columns=["vector", "state", "label", "x", "y"],
    )
    arcs = pd.DataFrame(
        [
            ("q", f"mθ ≡ {np.degrees(turn):.1f}°", *q, turn, 0.3 * np.hypot(*q)),
            ("k", f"{np.degrees(measured):.1f}°", *k_rot, measured, 0.45 * min(np.hypot(*q), np.hypot(*k))),
        ],
        columns=["vector", "label", "from_x", "from_y", "sweep", "radius"],
    )
    trajectory = pd.DataFrame({"position": np.arange(len(traj)), "x": traj[:, 0], "y": traj[:, 1]})
    return {"arrows": arrows, "arcs": arcs, "trajectory": trajectory}


#: The rotation plane's trajectory slider (issue #36): q is drawn at positions 0 … M, M the chart's own slider.
TRAJ_PARAMS = ("traj_m",)
#: The trajectory's positions are numbered where it has at most this many dots.
NUMBERED_DOTS = 24


def _position_numbers(traj: pd.DataFrame, tips: np.ndarray, reach: float, px: float, boxes: list) -> pd.DataFrame:
    """The position numbers of the trajectory `traj` (its dots 0 … M, in data units), placed beside their dots clear
    of those dots, the arrows' `tips` and the labels' `boxes` (pixels; not changed): the dots under an arrow tip (q
    itself at 0, q at m) are left to the arrow's label; first and last position first, so that crowding drops the
    numbers in between."""
    xy = traj[["x", "y"]].to_numpy(float)
    near_tip = np.hypot(xy[:, None, 0] - tips[:, 0], xy[:, None, 1] - tips[:, 1])
    named = (near_tip < 1e-6 * reach).any(axis=1) if len(tips) else np.zeros(len(traj), bool)
    numbered = traj[~named & (traj["position"] != 0).to_numpy()]
    order = [0, len(numbered) - 1, *range(1, len(numbered) - 1)] if len(numbered) > 1 else [0] * len(numbered)
    numbered = numbered.iloc[order]
    ux, uy, kept = place_labels(
        numbered[["x", "y"]].to_numpy(float) * px,
        [NUMBER_CHAR * len(str(p)) for p in numbered["position"]],
        height=NUMBER_FONT,
        gap=DOT_LABEL_GAP,
        dots=xy * px,
        tips=tips * px,
        boxes=list(boxes),
        drop_crowded=True,
    )
    return placed_labels(numbered, ux, uy, DOT_LABEL_GAP)[kept].sort_values("position")


def plane_chart(
    arrows: pd.DataFrame,
    *,
    trajectory: pd.DataFrame | None = None,
    traj_m: int | None = None,
    arcs: pd.DataFrame | None = None,
    title: str,
    subtitle: str | None = None,
    size: int = 330,
) -> alt.LayerChart:
    """Vectors of one 2-D rotation plane, drawn to scale (equal x and y units).

    arrows      columns vector ("q" | "k"), state ("before" | "after"), label, x, y: one arrow
                from the origin each; every distinct (vector, length) gets its circle.
    trajectory  columns position, x, y: where the vector lands at each position 0, 1, 2 … (points
                coloured by position; numbered when there are at most `NUMBERED_DOTS`, except where
                an arrow's own label already names the point).
    traj_m      with a trajectory: the chart's own slider M (`TRAJ_PARAMS`, issue #36) over its
                positions, starting here; the chart draws positions 0 … M and moves in the browser,
                numbers placed for every M it can take. None: every position drawn, no slider.
    arcs        columns vector, label, from_x, from_y, sweep, radius: an arc of `sweep` radians
                (counter-clockwise if positive) starting at the direction of (from_x, from_y).

    Six layers: the circles and arcs (one line layer), the trajectory dots and their numbers, the
    arrow shafts and heads, and the arrow and arc labels (one text layer). No label sits on a dot,
    an arrow or another label: the arrows' labels, then the position numbers, are placed beside
    their points, outwards unless something is in the way (`place_labels`; a number with no
    free side is left out); the arcs' labels go to the plot's corners (`corner_labels`). The two
    axes through the origin are the grid lines at 0, drawn darker.
    """
    need = {"vector", "state", "label", "x", "y"}
    if not need <= set(arrows.columns):
        raise ValueError(f"arrows must have columns {sorted(need)}, got {list(arrows.columns)}")
    arrows = arrows.copy()
    arrows["length"] = np.hypot(arrows["x"], arrows["y"])
    reach = float(arrows["length"].max()) if len(arrows) else 1.0
    if trajectory is not None and len(trajectory):
        reach = max(reach, float(np.hypot(trajectory["x"], trajectory["y"]).max()))
    reach = max(reach, 1e-9)
    lim = 1.45 * reach  # room for the labels beyond the tips
    px = size / (2 * lim)  # pixels per unit, on both axes
    scale = _square_scale()
    # The axes through the origin: the grid line at 0, darker than the others.
    origin_line: dict[str, Any] = dict(
        gridColor=alt.condition("datum.value === 0", alt.value("#94A3B8"), alt.value("#E2E8F0")),
        gridWidth=alt.condition("datum.value === 0", alt.value(1.5), alt.value(1)),
    )
    x_enc = alt.X("x:Q").scale(scale).title("first coordinate of the pair").axis(**origin_line)
    y_enc = alt.Y("y:Q").scale(scale).title("second coordinate of the pair").axis(**origin_line)
    colour = alt.Color("vector:N").scale(domain=list(VECTOR_COLORS), range=list(VECTOR_COLORS.values())).legend(None)
    layers = []

    # Lines: the circles of the norms (dashed, faint: rotation keeps every arrow on its circle)
    # and the angle arcs (solid), one layer; `kind` sets dash, width and opacity.
    def line_rows(kind: str, vector: str, name: str, xy: tuple[np.ndarray, np.ndarray]) -> pd.DataFrame:
        return pd.DataFrame(
            {"kind": kind, "vector": vector, "line": name, "x": xy[0], "y": xy[1], "i": range(len(xy[0]))}
        )

    lines = [
        line_rows("circle", vec, f"circle {vec}:{length}", _arc_points(0.0, 2 * np.pi, float(length), 181))
        for (vec, length), _ in arrows.groupby(["vector", arrows["length"].round(9)])
    ]
    corner_rows = None
    if arcs is not None and len(arcs):
        start = np.arctan2(arcs["from_y"], arcs["from_x"])
        arcs = arcs.assign(start=start, end=start + arcs["sweep"])
        for i, arc in enumerate(arcs.itertuples(index=False)):
            lines.append(line_rows("arc", arc.vector, f"arc {i}", _arc_points(arc.start, arc.end, arc.radius)))
        # An arc's label would not fit between its two arrows without crossing one of them or the
        # dots on the circle, so it goes to the plot corner in the arc's direction, in its colour.
        mid = (arcs["start"] + arcs["end"]) / 2
        corner_rows = corner_labels(
            pd.DataFrame({"vector": arcs["vector"], "label": arcs["label"], "x": np.cos(mid), "y": np.sin(mid)}), lim
        )

    # Label placement, in pixels (y up): the arcs' labels sit in the corners; then the arrows'
    # labels, then the position numbers, each clear of everything placed before it.
    tips = arrows[["x", "y"]].to_numpy(float)
    if trajectory is not None and not len(trajectory):
        trajectory = None  # an empty trajectory draws nothing
    last = len(trajectory) - 1 if trajectory is not None else 0
    if trajectory is not None and not np.array_equal(trajectory["position"].to_numpy(), np.arange(last + 1)):
        raise ValueError("trajectory's positions must be 0, 1, 2 … in order")
    if traj_m is not None and (trajectory is None or not 0 <= traj_m <= last):
        raise ValueError(f"traj_m must be a position of the trajectory (0 … {last}), got {traj_m}")
    # the arrows' labels clear every dot the chart can draw (at any M of its slider)
    dots_px = trajectory[["x", "y"]].to_numpy(float) * px if trajectory is not None else np.zeros((0, 2))
    boxes: list = corner_boxes(corner_rows, px) if corner_rows is not None else []
    ux, uy, _ = place_labels(
        tips * px,
        [NAME_CHAR * len(str(t)) for t in arrows["label"]],
        height=NAME_FONT,
        gap=TIP_LABEL_GAP,
        dots=dots_px,
        tips=tips * px,
        boxes=boxes,
    )
    text_rows = [placed_labels(arrows[["vector", "label", "x", "y"]], ux, uy, TIP_LABEL_GAP)]
    if corner_rows is not None:
        text_rows.append(corner_rows)

    if lines:
        kinds = ["circle", "arc"]
        layers.append(
            alt.Chart(pd.concat(lines, ignore_index=True))
            .mark_line()
            .encode(
                x=x_enc,
                y=y_enc,
                color=colour,
                detail="line:N",
                order="i:Q",
                strokeDash=alt.StrokeDash("kind:N").scale(domain=kinds, range=[[4, 4], [1, 0]]).legend(None),
                # ordinal, as kinds lists them (Vega-Lite warns that an unsorted nominal field should not set either)
                strokeWidth=alt.StrokeWidth("kind:O", sort=kinds).scale(domain=kinds, range=[1.5, 2.5]).legend(None),
                opacity=alt.Opacity("kind:O", sort=kinds).scale(domain=kinds, range=[0.55, 1.0]).legend(None),
            )
        )

    if trajectory is not None:
        traj = trajectory[["position", "x", "y"]].copy()
        dots = alt.Chart(traj)
        if traj_m is not None:
            m_live = live.position(
                TRAJ_PARAMS[0], start=int(traj_m), lo=0, hi=last, label="trajectory: q at positions 0 … M "
            )
            dots = dots.transform_filter(f"datum.position <= {live.number(TRAJ_PARAMS[0])}").add_params(m_live)
        layers.append(
            dots.mark_circle(size=70, opacity=0.9, stroke="white", strokeWidth=0.5).encode(
                x=x_enc,
                y=y_enc,
                fill=alt.Fill("position:Q")
                .scale(range=["#BFDBFE", "#1E3A8A"], domainMin=0)
                .legend(title="q at position", orient="bottom", gradientLength=220),
                tooltip=[
                    alt.Tooltip("position:Q", title="position"),
                    alt.Tooltip("x:Q", format=".3f"),
                    alt.Tooltip("y:Q", format=".3f"),
                ],
            )
        )
        # The numbers, placed for every M the chart can show with at most NUMBERED_DOTS dots (its last M only, with
        # no slider): each M's own, clear of that M's dots
        shown = range(1, min(last, NUMBERED_DOTS - 1) + 1) if traj_m is not None else [last][: last < NUMBERED_DOTS]
        numbers = [
            _position_numbers(traj.iloc[: upto + 1], tips, reach, px, boxes).assign(for_m=upto) for upto in shown
        ]
        numbers = [n for n in numbers if len(n)]
        if numbers:
            labels = alt.Chart(pd.concat(numbers, ignore_index=True))
            if traj_m is not None:
                labels = labels.transform_filter(f"datum.for_m == {live.number(TRAJ_PARAMS[0])}")
            layers.append(
                labels.mark_text(**placed_text(fontSize=NUMBER_FONT, color="#1E3A8A")).encode(
                    x=x_enc, y=y_enc, text="position:Q"
                )
            )

    # Arrows: shaft (rule from the origin), head (a triangle turned to point along the arrow), label.
    length = arrows["length"].replace(0, 1.0)
    head_back = 0.035 * reach / length  # put the triangle's centre just behind the tip
    arrows = arrows.assign(
        x0=0.0,
        y0=0.0,
        hx=arrows["x"] * (1 - head_back),
        hy=arrows["y"] * (1 - head_back),
        # Vega turns a shape clockwise from "up"; the arrow points at atan2(y, x) counter-clockwise.
        head=(90.0 - np.degrees(np.arctan2(arrows["y"], arrows["x"]))) % 360.0,
        faint=arrows["state"].map({"before": 0.55, "after": 1.0}),
    )
    dash = alt.StrokeDash("state:N").scale(domain=list(STATES), range=[[6, 4], [1, 0]]).legend(None)
    tooltip = [
        alt.Tooltip("label:N", title="vector"),
        alt.Tooltip("x:Q", format=".3f"),
        alt.Tooltip("y:Q", format=".3f"),
        alt.Tooltip("length:Q", format=".4f"),
    ]
    arrow = alt.Chart(arrows).encode(color=colour, opacity=alt.Opacity("faint:Q", scale=None), tooltip=tooltip)
    layers += [
        arrow.mark_rule(strokeWidth=3.5).encode(
            x=alt.X("x0:Q").scale(scale), y=alt.Y("y0:Q").scale(scale), x2="x:Q", y2="y:Q", strokeDash=dash
        ),
        arrow.mark_point(shape="triangle-up", filled=True, size=260).encode(
            x=alt.X("hx:Q").scale(scale), y=alt.Y("hy:Q").scale(scale), angle=alt.Angle("head:Q", scale=None)
        ),
    ]
    # The arrows' and the arcs' labels (placed above).
    layers.append(
        alt.Chart(pd.concat(text_rows, ignore_index=True))
        .mark_text(**placed_text(fontSize=NAME_FONT, fontWeight="bold"))
        .encode(x=x_enc, y=y_enc, text="label:N", color=colour)
    )
    states = [s for s in STATES if s in set(arrows["state"])]
    # One constructor call: .properties() on a layer chart would deep-copy every layer again. The
    # title and the axes' reach come from the facts row (explorer.charts.style.facts_layer), so a new
    # pair or new vectors change the rows only and the browser redraws the chart in place.
    chart = facts_titled(
        layers,
        title=title,
        font_size=TITLE_SIZE,
        subtitle=subtitle or "",
        facts={"lim": lim},
        width=size,
        height=size,
        description=text.plane_description(list(arrows["vector"]), states, subtitle),
        autosize=alt.AutoSizeParams(type="pad"),  # the plot itself stays square: equal x and y units
        # the circles' dashes (circle, arc) and the arrows' (before, after) are two scales: shared, Vega-Lite kept the
        # first's domain and range for both (the "before" arrows drew the circle's dash), with a console warning
        resolve=alt.Resolve(scale=alt.ScaleResolveMap(strokeDash="independent")),
    )
    return configure(chart)


def pair_map_chart(pairs: np.ndarray, *, highlight: int, layout: str, width: int = 420, height: int = 300) -> alt.Chart:
    """Coordinate index i (x) → the pair j it belongs to (y); pair `highlight` in red.

    pairs  (d/2, 2) int: row j holds the two coordinates of pair j (`posenc.pair_indices`).
    """
    pairs = np.asarray(pairs)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise ValueError(f"pairs must have shape (d/2, 2), got {pairs.shape}")
    h = pairs.shape[0]
    if not 0 <= highlight < h:
        raise ValueError(f"highlight must be a pair index in 0 … {h - 1}, got {highlight}")
    j = np.repeat(np.arange(h), 2)
    coord = pairs.ravel()
    role = np.tile(["first", "second"], h)
    df = pd.DataFrame({"coordinate": coord, "pair": j, "role": role, "selected": j == highlight})
    d = 2 * h
    a, b = (int(c) for c in pairs[highlight])
    pattern = "(x_j, x_{j+d/2})" if layout == "half" else "(x_2j, x_2j+1)"
    points = (
        alt.Chart(df)
        .mark_circle(opacity=0.9)
        .encode(
            x=alt.X("coordinate:Q")
            .scale(domain=[-0.5, d - 0.5], nice=False)
            .title("coordinate index i")
            .axis(tickMinStep=1, format="d"),
            y=alt.Y("pair:Q").scale(domain=[-0.5, h - 0.5], nice=False).title("pair j").axis(tickMinStep=1, format="d"),
            color=when("datum.selected", "#DC2626", "#64748B"),
            size=when("datum.selected", 220, max(12, 900 // d), channel=alt.SizeValue),
            tooltip=[
                alt.Tooltip("coordinate:Q", title="coordinate i"),
                alt.Tooltip("pair:Q", title="pair j"),
                alt.Tooltip("role:N", title="role in the pair"),
            ],
        )
    )
    return configure(
        points.properties(
            width=width,
            height=height,
            title=alt.TitleParams(
                f"{layout} layout: pair j = {pattern}",
                subtitle=text.pair_map_subtitle(highlight, a, b, d),
            ),
        )
    )


def rope_matrix_heatmap(
    r: np.ndarray,
    *,
    position: float,
    pair: tuple[int, int],
    layout: str,
    width: int = 380,
    height: int = 400,
    dark: bool = False,
) -> alt.LayerChart:
    """The (d, d) matrix R_m (`posenc.rope_matrix`) as one image; the four cells of `pair` boxed. `dark`: drawn for
    the dark card (the page's `explorer.render.dark_theme()`): redblue's dark variant, whose zero, nearly every cell,
    is a slate close to the card, not a near-white (`explorer.imagechart.image_heatmap`)."""
    r = np.asarray(r, dtype=np.float64)
    if r.ndim != 2 or r.shape[0] != r.shape[1]:
        raise ValueError(f"r must be a square matrix, got shape {r.shape}")
    d = r.shape[0]
    a, b = pair
    if not (0 <= a < d and 0 <= b < d):
        raise ValueError(f"pair must hold two coordinates in 0 … {d - 1}, got {pair}")
    chart = image_heatmap(
        r,
        x_title="input coordinate (column)",
        y_title="output coordinate (row)",
        value_title="value",
        scheme="redblue",
        domain=(-1.0, 1.0),
        width=width,
        height=height,
        title=f"R_m at m = {position:g} ({d} × {d}, {layout} layout)",
        dark=dark,
    )
    # Box the four cells of the chosen pair; same scales as the image layer.
    cells = pd.DataFrame([(c, rr) for rr in (a, b) for c in (a, b)], columns=["col", "row"])
    cells = cells.assign(x0=cells["col"] - 0.5, x1=cells["col"] + 0.5, y0=cells["row"] - 0.5, y1=cells["row"] + 0.5)
    pad = max(0.5, d / 120)  # keep the box visible when a cell is only a pixel or two wide
    cells = cells.assign(
        x0=cells["x0"] - pad + 0.5, x1=cells["x1"] + pad - 0.5, y0=cells["y0"] - pad + 0.5, y1=cells["y1"] + pad - 0.5
    )
    x_scale = alt.Scale(domain=[-0.5, d - 0.5], nice=False, zero=False)
    y_scale = alt.Scale(domain=[-0.5, d - 0.5], nice=False, zero=False, reverse=True)
    boxes = (
        alt.Chart(cells)
        .mark_rect(fill=None, stroke="#111827", strokeWidth=2)
        .encode(x=alt.X("x0:Q").scale(x_scale), x2="x1:Q", y=alt.Y("y0:Q").scale(y_scale), y2="y1:Q")
    )
    chart.layer = [*chart.layer, boxes]
    return configure(fit_heatmap_legend(chart, height - 110))


def _pmatrix(rows) -> str:
    return r"\begin{pmatrix}" + r" \\ ".join(" & ".join(f"{v:.3f}" for v in row) for row in rows) + r"\end{pmatrix}"


def rotation_latex(position: float, theta: float, matrix: np.ndarray, vector: np.ndarray, rotated: np.ndarray) -> str:
    """LaTeX for R(mθ_j) with its numbers, applied to pair j of q: ``R(m θ_j) q = q'``."""
    matrix = np.asarray(matrix, dtype=np.float64)
    if matrix.shape != (2, 2):
        raise ValueError(f"matrix must be 2×2, got shape {matrix.shape}")
    angle = position * theta
    col = lambda v: _pmatrix([[float(v[0])], [float(v[1])]])  # noqa: E731
    return (
        r"\begin{aligned}"
        rf"m\theta_j &= {position:g} \times {theta:.4g} = {angle:.4g}\ \mathrm{{rad}}\\[4pt]"
        rf"R(m\theta_j)\,q &= {_pmatrix(matrix)}{col(vector)} = {col(rotated)}"
        r"\end{aligned}"
    )


# ---------------------------------------------------------------- positions moved in the browser
#: The in-chart sliders: the registry parameters m and n (the positions), and the head size d, the
#: base b and the pair j, which set the pair's frequency θ_j = b^(−2j/d) (explorer.charts.live.position).
#: Order: head_dim before j, whose range ends at head_dim/2 − 1 (explorer.liveparam.LiveChart's limits).
#: b's slider runs over the index of the base's options (explorer.charts.live.option_position), as on the
#: clock page: the chart reads b as ``base_options[index]`` and writes it in its read-out. The pair's q and k
#: are the plane's sliders too (issue #36), after these: `VECTOR_PARAMS`, by how the page gives them.
POSITION_PARAMS = ("m", "n")
FREQUENCY_PARAMS = ("head_dim", "base", "j")
BASE_KEY = "base"
LIVE_PARAMS = (*POSITION_PARAMS, *FREQUENCY_PARAMS)
#: q's and k's two numbers each, q's first, by the page's way of giving them (the registry's ``vec_input``): x and y,
#: or ("polar") the angle in degrees and the length (`vector_expressions`).
VECTOR_PARAMS = {"cartesian": ("qx", "qy", "kx", "ky"), "polar": ("q_angle", "q_len", "k_angle", "k_len")}
#: The Vega signal holding the pair's θ_j in the browser (`live_expressions()["theta"]`).
THETA_SIGNAL = "theta_j"
#: The signals holding q's and k's coordinates before any rotation (`vector_expressions`), and the plane's reach.
VECTOR_SIGNALS = {"qx": "pair_qx", "qy": "pair_qy", "kx": "pair_kx", "ky": "pair_ky"}
LIM_SIGNAL = "pair_lim"


def live_params(vector_input: str) -> tuple[str, ...]:
    """The plane's sliders (`LIVE_PARAMS`, then q's and k's numbers) where the page gives q and k as `vector_input`."""
    if vector_input not in VECTOR_PARAMS:
        raise ValueError(f"vector_input must be one of {tuple(VECTOR_PARAMS)}, got {vector_input!r}")
    return (*LIVE_PARAMS, *VECTOR_PARAMS[vector_input])


def vector_expressions(vector_input: str) -> dict[str, str]:
    """q's and k's coordinates before any rotation (``qx``, ``qy``, ``kx``, ``ky``) as Vega expressions of the plane's
    vector sliders (`VECTOR_PARAMS`): x and y as they stand, or ℓ·cos φ and ℓ·sin φ of the angle φ in degrees and the
    length ℓ: `posenc.polar_to_xy`'s float64 operations (``np.deg2rad``: φ times π/180), with the browser's cos and
    sin (which may differ from the C library's in the last bit)."""
    keys = live_params(vector_input)[len(LIVE_PARAMS) :]  # raises for another input
    if vector_input == "cartesian":
        return {name: live.number(key) for name, key in zip(VECTOR_SIGNALS, keys, strict=True)}
    out = {}
    for name, (angle_key, length_key) in (("q", keys[:2]), ("k", keys[2:])):  # q's angle and length, then k's
        angle, length = live.number(angle_key), live.number(length_key)
        radians = f"({angle} * (PI / 180))"
        out[f"{name}x"], out[f"{name}y"] = f"{length} * cos({radians})", f"{length} * sin({radians})"
    return out


def live_limits(values: dict) -> dict[str, dict[str, int]]:
    """The page's range of j, from the head size read before it: 0 … head_dim/2 − 1
    (`explorer.liveparam.LiveChart`'s ``limits``)."""
    return {"j": {"max": int(values["head_dim"]) // 2 - 1}} if "head_dim" in values else {}


def live_facts(q: np.ndarray, k: np.ndarray) -> dict[str, float]:
    """What the live chart reads from its facts row: the reach of the axes for the page's pair q and k (1.35 times the
    longer one). While a vector slider is dragged past it, the plane widens in the browser (`LIM_SIGNAL`); the page's
    next row fits the plane to the pair it let go at."""
    (qx, qy), (kx, ky) = (float(v) for v in q), (float(v) for v in k)
    reach = max(float(np.hypot(qx, qy)), float(np.hypot(kx, ky)), 1e-9)
    return {"lim": 1.35 * reach}


def live_expressions(base_options: Sequence[float]) -> dict[str, str]:
    """The Vega expressions the live chart evaluates in the browser, in terms of the in-chart m, n,
    d (head_dim), b (an index into `base_options`) and j and the pair's q and k (`VECTOR_SIGNALS`, from the
    plane's vector sliders: `vector_expressions`).

    base                 b = ``base_options[index]``
    pair                 j, read as at most d/2 − 1 (the j slider can stand past a smaller d's last pair)
    theta                θ_j = b^(−2j/d): posenc's float64 operations (`posenc.inverse_frequencies`:
                         ``np.power(b, -2.0 * j / d)``; JavaScript's pow may differ in the last bit)
    q_x, q_y, k_x, k_y   the rotated vectors R(m·θ)q and R(n·θ)k (counter-clockwise, as posenc.apply_rope)
    score                ⟨R_m q, R_n k⟩, from the two rotated vectors
    score_rel            ⟨q, R_(n−m) k⟩, from q and k rotated by the offset only (computed separately)
    offset_deg           (m − n)·θ in degrees, wrapped into (−180°, 180°]
    """
    qx, qy, kx, ky = VECTOR_SIGNALS.values()
    b = live.option(BASE_KEY, base_options)
    m, n = (live.value(key) for key in POSITION_PARAMS)
    d = live.number("head_dim")
    pair = f"min({live.number('j')}, {d} / 2 - 1)"
    t = f"pow({b}, -2 * {pair} / {d})"
    a, bb, c = f"({m} * {t})", f"({n} * {t})", f"(({n} - {m}) * {t})"
    q_x, q_y = f"({qx} * cos({a}) - {qy} * sin({a}))", f"({qx} * sin({a}) + {qy} * cos({a}))"
    k_x, k_y = f"({kx} * cos({bb}) - {ky} * sin({bb}))", f"({kx} * sin({bb}) + {ky} * cos({bb}))"
    rel_x, rel_y = f"({kx} * cos({c}) - {ky} * sin({c}))", f"({kx} * sin({c}) + {ky} * cos({c}))"
    deg = f"(({m} - {n}) * {t} * 180 / PI)"
    return {
        "base": b,
        "pair": pair,
        "theta": t,
        "q_x": q_x,
        "q_y": q_y,
        "k_x": k_x,
        "k_y": k_y,
        "score": f"({q_x} * {k_x} + {q_y} * {k_y})",
        "score_rel": f"({qx} * {rel_x} + {qy} * {rel_y})",
        "offset_deg": f"(180 - ((180 - {deg}) % 360 + 360) % 360)",
    }


#: The live plane's side on a phone (`live_pair_chart`): with its axis it fits a 390-px screen's column.
PHONE_PLANE = 230


def live_pair_chart(
    q: np.ndarray,
    k: np.ndarray,
    *,
    vector_input: str,
    vectors: Mapping[str, float],
    vector_ranges: Mapping[str, tuple[float, float, float, str]],
    base: float,
    base_options: Sequence[float],
    head_dim: int,
    j: int,
    m: int,
    n: int,
    p_max: int,
    d_range: tuple[int, int] = (2, 256),
    size: int = 300,
    phone: bool = False,
):
    """Pair j's q and k, rotated by the positions m and n. m, n, the head size d, the base b and the
    pair j are the chart's own sliders (`explorer.charts.live.position`; m and n over 0 … p_max, d over
    `d_range` in steps of 2, b over the indices of `base_options`, j over 0 … d_range[1]/2 − 1, read as
    at most d/2 − 1), starting at the given values: dragging one turns the arrows, recomputes θ_j = b^(−2j/d) and updates the scores in
    the browser, with no server run; the page hears the values when the drag ends
    (explorer.liveparam). So are q's and k's numbers (`VECTOR_PARAMS[vector_input]`, starting at `vectors`, each over
    its ``(lo, hi, step, label)`` of `vector_ranges`): the arrows, their circles and the scores follow them. `q` and `k`,
    the page's pair, set the plane's reach (its facts row, `live_facts`); a vector dragged past it widens the plane
    in the browser. On a `phone` the plane is `PHONE_PLANE` px (whatever `size` says), the title and the subtitle's two
    sentences take two lines each and θ_j's read-out three: the chart fits a 390-px screen at its own size at every j, d
    and b (it was drawn 478 px wide and shrunk to two thirds, its words about 7 px tall)."""
    q, k = np.asarray(q, dtype=float), np.asarray(k, dtype=float)
    size = PHONE_PLANE if phone else size
    if q.shape != (2,) or k.shape != (2,):
        raise ValueError(f"q and k must be 2-vectors, got shapes {q.shape} and {k.shape}")
    vector_keys = live_params(vector_input)[len(LIVE_PARAMS) :]  # raises for another input
    if set(vectors) != set(vector_keys) or set(vector_ranges) != set(vector_keys):
        raise ValueError(
            f"vectors and vector_ranges must have the keys {vector_keys}, got {sorted(vectors)} and {sorted(vector_ranges)}"
        )
    for key in vector_keys:
        lo, hi, step = (float(v) for v in vector_ranges[key][:3])
        if not (np.isfinite(lo) and np.isfinite(hi) and step > 0 and lo <= float(vectors[key]) <= hi):
            raise ValueError(
                f"vectors[{key!r}] must be in vector_ranges[{key!r}] = {vector_ranges[key]}, got {vectors[key]}"
            )
    options = tuple(float(v) for v in base_options)
    if not options or not all(np.isfinite(v) and v > 1 for v in options):
        raise ValueError(f"base_options must be finite numbers > 1, got {base_options}")
    if not (np.isfinite(base) and base > 1) or float(base) not in options:
        raise ValueError(f"base must be a finite number > 1 and one of base_options {options}, got {base}")
    if not (0 <= m <= p_max and 0 <= n <= p_max):
        raise ValueError(f"m and n must be in 0 … p_max = {p_max}, got m = {m}, n = {n}")
    d_lo, d_hi = d_range
    if not (2 <= d_lo <= head_dim <= d_hi and head_dim % 2 == 0 and d_lo % 2 == 0 and d_hi % 2 == 0):
        raise ValueError(f"head_dim must be even and in d_range = {d_range} (even ends ≥ 2), got {head_dim}")
    if not 0 <= j <= head_dim // 2 - 1:
        raise ValueError(f"j must be in 0 … head_dim/2 − 1 = {head_dim // 2 - 1}, got {j}")
    m_live, n_live = (
        live.position(key, start=int(start), lo=0, hi=int(p_max), label=f"{key} ")
        for key, start in zip(POSITION_PARAMS, (m, n), strict=True)
    )
    d_live = live.position("head_dim", start=int(head_dim), lo=d_lo, hi=d_hi, step=2, label="head size d ")
    j_live = live.position("j", start=int(j), lo=0, hi=d_hi // 2 - 1, label="pair j ")
    b_live = live.option_position(BASE_KEY, options, start=base, label="base b ")
    vector_live = [
        live.position(key, start=vectors[key], lo=lo, hi=hi, step=step, label=f"{label} ")
        for key in vector_keys
        for lo, hi, step, label in [vector_ranges[key]]
    ]
    m_expr, n_expr = (live.value(key) for key in POSITION_PARAMS)
    ex = live_expressions(options)
    pair = [
        alt.VariableParameter(name=VECTOR_SIGNALS[name], expr=expr)
        for name, expr in vector_expressions(vector_input).items()
    ]
    qx, qy, kx, ky = VECTOR_SIGNALS.values()
    q_len, k_len = f"sqrt({qx} * {qx} + {qy} * {qy})", f"sqrt({kx} * {kx} + {ky} * {ky})"
    # the page's reach (its facts row), widened while a vector is dragged past it
    pair.append(alt.VariableParameter(name=LIM_SIGNAL, expr=f"max({fact('lim')}, 1.35 * max({q_len}, {k_len}))"))
    scale = _square_scale(LIM_SIGNAL)
    x_enc = alt.X("x:Q").scale(scale).title("first coordinate of the pair")
    y_enc = alt.Y("y:Q").scale(scale).title("second coordinate of the pair")
    colour = alt.Color("vector:N").scale(domain=list(VECTOR_COLORS), range=list(VECTOR_COLORS.values())).legend(None)

    # each vector's circle, 120 chords, its radius the vector's length in the browser
    circles = pd.DataFrame({"vector": np.repeat(["q", "k"], 121), "i": np.tile(np.arange(121), 2)})
    ring = (
        alt.Chart(circles)
        .transform_calculate(radius=f"datum.vector === 'q' ? {q_len} : {k_len}")
        .transform_calculate(
            x="datum.radius * cos(datum.i * 2 * PI / 120)", y="datum.radius * sin(datum.i * 2 * PI / 120)"
        )
        .mark_line(strokeDash=[4, 4], strokeWidth=1.5, opacity=0.55)
        .encode(x=x_enc, y=y_enc, color=colour, detail="vector:N", order="i:Q")
    )
    tips = alt.Chart(pd.DataFrame({"vector": ["q", "k"]})).transform_calculate(
        x=f"datum.vector === 'q' ? {ex['q_x']} : {ex['k_x']}",
        y=f"datum.vector === 'q' ? {ex['q_y']} : {ex['k_y']}",
        x0="0",
        y0="0",
        label=f"datum.vector === 'q' ? 'q at m = ' + {m_expr} : 'k at n = ' + {n_expr}",
        # the name beyond the tip, on the arrow's own line, so it never sits on a shaft
        lx="datum.x * 1.22",
        ly="datum.y * 1.22",
    )
    shafts = tips.mark_rule(strokeWidth=3.5, strokeCap="round").encode(
        x=x_enc, y=y_enc, x2=alt.X2("x0:Q"), y2=alt.Y2("y0:Q"), color=colour
    )
    heads = tips.mark_circle(size=90, opacity=1).encode(x=x_enc, y=y_enc, color=colour)
    names = tips.mark_text(fontSize=NAME_FONT, fontWeight="bold").encode(
        x=alt.X("lx:Q").scale(scale), y=alt.Y("ly:Q").scale(scale), text="label:N", color=colour
    )
    theta_value = f"'θ_j = b^(−2j/d) = ' + format({THETA_SIGNAL}, '.6~g')"
    pair_line = (
        f"'(j = ' + {ex['pair']} + ', d = ' + {live.value('head_dim')} + ', b = ' + format({ex['base']}, ',.0f') + ')'"
    )
    readout_lines = [
        # one line on a wide screen; three on a phone, each within its column whatever j, d and b are
        *(
            [theta_value, "'radians per position'", pair_line]
            if phone
            else [f"{theta_value} + ' rad per position ' + {pair_line}"]
        ),
        f"'m − n = ' + format({m_expr} - {n_expr}, 'd')",
        f"'angle k → q changed by ' + format({ex['offset_deg']}, '.2f') + '°'",
        f"'⟨R_m q, R_n k⟩ = ' + format({ex['score']}, '.6f')",
        f"'⟨q, R_(n−m) k⟩ = ' + format({ex['score_rel']}, '.6f')",
    ]
    readout = (
        alt.Chart(pd.DataFrame({"line": range(len(readout_lines))}))
        .transform_calculate(
            text=" : ".join(f"datum.line === {i} ? {e}" for i, e in enumerate(readout_lines[:-1]))
            + f" : {readout_lines[-1]}"
        )
        .mark_text(fontSize=NAME_FONT, align="left", baseline="middle", color="#0F172A")
        .encode(
            x=alt.value(0),
            y=alt.Y("line:O").axis(None).scale(paddingOuter=0.2),
            text="text:N",
        )
        .properties(width=size, height=len(readout_lines) * (NAME_FONT + 10))
        # Vega-Lite defines a selection in a unit view (named, so the spec is the same at every build);
        # its value (m.m, n.n) is read in every view
        .properties(name="live_readout")
        # Vega lists the bound inputs in reverse: m first on screen, q's and k's numbers last
        .add_params(*reversed(vector_live), j_live, b_live, d_live, n_live, m_live)
    )
    plane = alt.LayerChart(
        layer=[facts_layer(live_facts(q, k)), ring, shafts, heads, names],
        width=size,
        height=size,
        title=alt.Title(
            ["Drag m, n, d, b, j, q or k", "(the sliders above the plane)"]
            if phone
            else "Drag m, n, d, b, j, q or k (the sliders above the plane)",
            subtitle=[
                *(
                    ["The arrows turn in your browser;", "the page follows when you let go."]
                    if phone
                    else ["The arrows turn in your browser; the page follows when you let go."]
                ),
                *(
                    ["Move m and n by the same amount:", "the two scores stay the same."]
                    if phone
                    else ["Move m and n by the same amount: the two scores stay the same."]
                ),
            ],
        ),
    )
    # The description names no number of the pair's, m, n, d, b or j: a drag would make it stale.
    chart = alt.VConcatChart(
        vconcat=[plane, readout],
        spacing=8,
        description=text.live_plane_description(p_max),
        # θ_j as a signal of its own: the read-out shows it, and a test reads it from the Vega view; q and k too
        params=[*pair, alt.VariableParameter(name=THETA_SIGNAL, expr=ex["theta"])],
    )
    return configure(chart)
