"""Chart builders of the RoPE-rotation page (explorer/charts/rope.py), checked through to_dict():
marks, encodings, titles, and the data values against numbers computed here with `math`."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from _chartspec import (
    by_field,
    drawn,
    facts,
    find,
    frame,
    hex_colour,
    layers,
    legible,
    png_pixels,
    readable_titles,
    rope_vector_sliders,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from explorer import compat, vocabulary
from explorer.charts import labels
from explorer.charts import rope as charts
from explorer.imagechart import colorize
from explorer.imagechart import meta as image_meta
from explorer.render import stable_dataset_names

# ---------------------------------------------------------------------------------- plane
Q, K = (1.0, 0.5), (-0.4, 1.2)
BASE_OPTIONS = tuple(float(b) for b in vocabulary.BASE_OPTIONS)
M, N, THETA = 5, 12, 1.0


def rotate(v, angle):
    c, s = math.cos(angle), math.sin(angle)
    return (v[0] * c - v[1] * s, v[0] * s + v[1] * c)


def plane_spec(traj_len: int = 16) -> dict:
    qm, kn = rotate(Q, M * THETA), rotate(K, N * THETA)
    arrows = pd.DataFrame(
        {
            "vector": ["q", "k", "q", "k"],
            "state": ["before", "before", "after", "after"],
            "label": ["q", "k", "q at m=5", "k at n=12"],
            "x": [Q[0], K[0], qm[0], kn[0]],
            "y": [Q[1], K[1], qm[1], kn[1]],
        }
    )
    traj = [rotate(Q, p * THETA) for p in range(traj_len + 1)]
    trajectory = pd.DataFrame({"position": range(traj_len + 1), "x": [t[0] for t in traj], "y": [t[1] for t in traj]})
    arcs = pd.DataFrame(
        {"vector": ["q"], "label": ["mθ"], "from_x": [Q[0]], "from_y": [Q[1]], "sweep": [1.2], "radius": [0.3]}
    )
    chart = charts.plane_chart(arrows, trajectory=trajectory, arcs=arcs, title="Pair j = 0", subtitle="sub")
    return chart.to_dict()


def test_plane_frames_hold_the_rotated_pair_the_arcs_and_the_trajectory():
    """`plane_frames` from the page's numbers (explorer.compute.rope.plane_numbers, here by hand):
    q and k before and after, q's arc of m·θ modulo full turns, k's arc of the measured angle."""
    m, n, theta, traj = 7, 3, 1.3, 4
    qm, kn = rotate(Q, m * theta), rotate(K, n * theta)
    turn = math.remainder(m * theta, 2 * math.pi)
    measured = math.remainder(math.atan2(qm[1], qm[0]) - math.atan2(kn[1], kn[0]), 2 * math.pi)
    nums = {
        "q_rot": np.array(qm),
        "k_rot": np.array(kn),
        "trajectory": np.array([rotate(Q, p * theta) for p in range(traj + 1)]),
        "turn": turn,
        "angles": SimpleNamespace(measured=measured),
    }
    got = charts.plane_frames(np.array(Q), np.array(K), nums, m, n)
    arrows = got["arrows"].set_index("label")
    assert arrows.loc["q at m=7", ["x", "y"]].tolist() == pytest.approx(qm)
    assert arrows.loc["k at n=3", ["x", "y"]].tolist() == pytest.approx(kn)
    assert arrows.loc["q", ["x", "y"]].tolist() == list(Q) and arrows.loc["k", "state"] == "before"
    arcs = got["arcs"].set_index("vector")
    assert arcs.loc["q", "sweep"] == pytest.approx(turn) and arcs.loc["q", "label"] == f"mθ ≡ {math.degrees(turn):.1f}°"
    assert (
        arcs.loc["k", "sweep"] == pytest.approx(measured) and (arcs.loc["k", "from_x"], arcs.loc["k", "from_y"]) == kn
    )
    assert got["trajectory"]["position"].tolist() == list(range(traj + 1))
    charts.plane_chart(**got, title="t")  # the frames are what the chart takes


def test_plane_chart_is_to_scale_and_legible():
    spec = plane_spec()
    assert spec["width"] == spec["height"]
    assert spec["autosize"]["type"] == "pad"  # Streamlit must not squeeze one axis
    assert readable_titles(spec)["title"]["text"] == "Pair j = 0" and spec["title"]["subtitle"] == "sub"
    domains = {
        (enc["scale"]["domainMin"]["expr"], enc["scale"]["domainMax"]["expr"])
        for layer in layers(spec)
        for ch, enc in layer.get("encoding", {}).items()
        if ch in ("x", "y") and "scale" in enc
    }
    # one shared, symmetric domain for x and y, −lim … lim, lim read from the facts row
    assert domains == {("-data('data-0')[0].lim", "data('data-0')[0].lim")}
    assert facts(spec)["lim"] >= math.hypot(*K)
    legible(spec)


def test_plane_chart_arrows_heads_and_labels():
    spec = plane_spec()
    (shafts,) = by_field(spec, "rule", "strokeDash", "state")  # the arrows: before / after
    df = frame(spec, shafts)
    assert list(df["label"]) == ["q", "k", "q at m=5", "k at n=12"]
    qm = rotate(Q, M * THETA)
    assert df.loc[2, ["x", "y"]].tolist() == pytest.approx(qm)
    assert (df["x0"] == 0).all() and (df["y0"] == 0).all()
    assert shafts["encoding"]["x2"]["field"] == "x" and shafts["encoding"]["y2"]["field"] == "y"
    assert shafts["encoding"]["strokeDash"]["field"] == "state"

    (heads,) = find(spec, "point", shape="triangle-up")
    hd = frame(spec, heads)
    assert heads["encoding"]["angle"]["scale"] is None
    for row in hd.itertuples():  # Vega turns the triangle clockwise from "up"
        expected = (90 - math.degrees(math.atan2(row.y, row.x))) % 360
        assert row.head == pytest.approx(expected)
    assert frame(spec, heads)["length"].tolist() == pytest.approx(
        [math.hypot(*Q), math.hypot(*K), math.hypot(*Q), math.hypot(*K)]
    )
    (texts,) = by_field(spec, "text", "text", "label")  # the arrows' and the arc's labels, one layer
    assert sorted(frame(spec, texts)["label"]) == sorted([*df["label"], "mθ"])


def lines(spec: dict) -> tuple[dict, pd.DataFrame]:
    """The one line layer (circles and arcs) and its rows."""
    (layer,) = find(spec, "line")
    return layer, frame(spec, layer)


def test_plane_chart_circles_have_the_norms():
    spec = plane_spec()
    layer, df = lines(spec)
    circles = df[df["kind"] == "circle"]
    radii = sorted({round(r, 9) for r in np.hypot(circles["x"], circles["y"])})
    assert radii == pytest.approx(sorted([math.hypot(*Q), math.hypot(*K)]))
    # circles dashed and faint, arcs solid and thicker
    enc = layer["encoding"]
    assert enc["strokeDash"]["field"] == enc["strokeWidth"]["field"] == enc["opacity"]["field"] == "kind"
    style = {
        k: dict(zip(enc[ch]["scale"]["domain"], enc[ch]["scale"]["range"]))[k]
        for ch in ("strokeDash",)
        for k in ("circle", "arc")
    }
    assert style == {"circle": [4, 4], "arc": [1, 0]}
    width = dict(zip(enc["strokeWidth"]["scale"]["domain"], enc["strokeWidth"]["scale"]["range"]))
    assert width["arc"] > width["circle"]
    assert enc["detail"]["field"] == "line" and df.groupby("line")["kind"].nunique().max() == 1


def test_plane_chart_has_six_layers_and_marks_the_axes_with_the_zero_grid_line():
    spec = plane_spec()
    assert [layer["mark"]["type"] for layer in drawn(spec)] == ["line", "circle", "text", "rule", "point", "text"]
    for ch in ("x", "y"):
        axis = drawn(spec)[0]["encoding"][ch]["axis"]
        assert axis["gridColor"]["condition"]["test"] == "datum.value === 0"
        assert axis["gridColor"]["condition"]["value"] != axis["gridColor"]["value"]


def test_plane_chart_trajectory_and_arc():
    spec = plane_spec(traj_len=16)
    (points,) = find(spec, "circle")
    df = frame(spec, points)
    assert df["position"].tolist() == list(range(17))
    for row in df.itertuples():
        assert (row.x, row.y) == pytest.approx(rotate(Q, row.position * THETA))
    assert points["encoding"]["fill"]["field"] == "position"
    numbers = by_field(spec, "text", "text", "position")
    # 0 is q itself and 5 is "q at m=5": the arrows' labels name those two dots
    assert sorted(frame(spec, numbers[0])["position"]) == [p for p in range(1, 17) if p != M]

    _, df_lines = lines(spec)
    pts = df_lines[df_lines["kind"] == "arc"]
    assert np.hypot(pts["x"], pts["y"]).to_numpy() == pytest.approx(np.full(len(pts), 0.3))
    start = math.atan2(Q[1], Q[0])
    assert math.atan2(pts["y"].iloc[0], pts["x"].iloc[0]) == pytest.approx(start)
    assert math.atan2(pts["y"].iloc[-1], pts["x"].iloc[-1]) == pytest.approx(start + 1.2)


def label_boxes(spec: dict, layer: dict, px: float, *, font: float, char_w: float) -> list[tuple]:
    """(label, x0, x1, y0, y1) of each text of a layer in plot pixels (y up), from its anchor,
    dx/dy, align and baseline (text width ≈ char_w px per character, height = font)."""
    out = []
    for row in frame(spec, layer).itertuples():
        text = str(getattr(row, "label", None) or row.position)
        x, y = row.x * px + row.dx, row.y * px - row.dy
        w = char_w * len(text)
        x0 = {"left": x, "right": x - w, "center": x - w / 2}[row.align]
        y0 = {"bottom": y, "top": y - font, "middle": y - font / 2}[row.baseline]
        out.append((text, x0, x0 + w, y0, y0 + font))
    return out


def box_distance(box, x, y) -> float:
    _, x0, x1, y0, y1 = box
    return math.hypot(max(x0 - x, 0, x - x1), max(y0 - y, 0, y - y1))


def plane_inputs(theta: float, m: int, n: int, last: int) -> tuple[pd.DataFrame, list, pd.DataFrame]:
    """The rotation plane's arrows (Q, K and both turned by hand: q by m·θ, k by n·θ) and q's trajectory over
    positions 0 … `last`, as points and as the chart's rows."""
    qm, kn = rotate(Q, m * theta), rotate(K, n * theta)
    arrows = pd.DataFrame(
        {
            "vector": ["q", "k", "q", "k"],
            "state": ["before", "before", "after", "after"],
            "label": ["q", "k", f"q at m={m}", f"k at n={n}"],
            "x": [Q[0], K[0], qm[0], kn[0]],
            "y": [Q[1], K[1], qm[1], kn[1]],
        }
    )
    traj = [rotate(Q, p * theta) for p in range(last + 1)]
    trajectory = pd.DataFrame({"position": range(last + 1), "x": [t[0] for t in traj], "y": [t[1] for t in traj]})
    return arrows, traj, trajectory


@pytest.mark.parametrize("theta, traj_len", [(1.0, 16), (0.5623, 16), (0.2371, 12), (0.75, 20)])
def test_plane_chart_labels_never_sit_on_a_dot_or_an_arrow_head(theta, traj_len):
    """Every label is placed by its own row: text edges face their point, at least the dot's
    radius (≈ 5 px) away from every trajectory dot and the head's (≈ 8 px) from every arrow tip."""
    m, n = 5, 12
    arrows, traj, trajectory = plane_inputs(theta, m, n, traj_len)
    arcs = pd.DataFrame(
        {"vector": ["q"], "label": ["mθ ≡ 73.5°"], "from_x": [Q[0]], "from_y": [Q[1]], "sweep": [1.2], "radius": [0.3]}
    )
    spec = charts.plane_chart(arrows, trajectory=trajectory, arcs=arcs, title="t").to_dict()
    lim = facts(spec)["lim"]  # the axes run from −lim to lim
    px = spec["width"] / (2 * lim)
    (numbers,) = by_field(spec, "text", "text", "position")
    (names,) = by_field(spec, "text", "text", "label")
    for layer in (numbers, names):  # placement is read from the rows
        assert layer["mark"]["align"] == {"expr": "datum.align"} and layer["mark"]["dx"] == {"expr": "datum.dx"}
    boxes = label_boxes(spec, numbers, px, font=13, char_w=7) + label_boxes(spec, names, px, font=16, char_w=8.5)
    for box in boxes:
        for x, y in traj:
            assert box_distance(box, x * px, y * px) >= 5, (box, x, y)
        for x, y in zip(arrows["x"], arrows["y"]):
            assert box_distance(box, x * px, y * px) >= 6, (box, x, y)
    # the arc's label sits in a plot corner, clear of every circle (radius ≤ reach)
    (arc_label,) = [b for b in boxes if b[0].startswith("mθ")]
    reach = max(math.hypot(*K), math.hypot(*Q))
    assert box_distance(arc_label, 0, 0) > reach * px
    # no two labels print over each other
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            overlap_x = min(a[2], b[2]) - max(a[1], b[1])
            overlap_y = min(a[4], b[4]) - max(a[3], b[3])
            assert overlap_x <= 1 or overlap_y <= 1, (a, b)


def test_placed_labels_face_their_points():
    df = pd.DataFrame({"x": [1.0, 0.0, -1.0, 0.0, 0.7], "y": [0.0, 1.0, 0.0, -1.0, -0.7]})
    r = np.hypot(df["x"], df["y"])
    out = labels.placed_labels(df, df["x"] / r, df["y"] / r, 10)
    assert out["align"].tolist() == ["left", "center", "right", "center", "left"]
    assert out["baseline"].tolist() == ["middle", "bottom", "middle", "top", "top"]
    assert out["dx"].tolist() == pytest.approx([10, 0, -10, 0, 7.07], abs=0.01)
    assert out["dy"].tolist() == pytest.approx([0, -10, 0, 10, 7.07], abs=0.01)  # pixels grow downwards


def test_place_labels_goes_outwards_unless_blocked():
    # a dot straight right of the origin: its label goes right (outwards)
    dots = np.array([[100.0, 0.0]])
    ux, uy, kept = labels.place_labels(dots, [8.0], height=13, gap=9, dots=dots, tips=np.zeros((0, 2)), boxes=[])
    assert kept.tolist() == [True] and (ux[0], uy[0]) == pytest.approx((1.0, 0.0))
    # an arrow head just outside it: the label turns to a free side instead, clear of the head
    tips = np.array([[118.0, 0.0]])
    boxes = []
    ux, uy, kept = labels.place_labels(dots, [8.0], height=13, gap=9, dots=dots, tips=tips, boxes=boxes)
    assert kept.tolist() == [True] and ux[0] < 0.9
    assert labels.clearance(boxes[0], dots=dots, tips=tips, boxes=[]) >= labels.CLEAR


def test_place_labels_drops_numbers_of_bunched_dots():
    """Dots 1 px apart: the first label takes the outside, the next the inside, and the rest, which
    would print over those two wherever they went, are left out."""
    dots = np.array([[100.0, float(i)] for i in range(6)])
    boxes = []
    _, _, kept = labels.place_labels(
        dots, [8.0] * 6, height=13, gap=9, dots=dots, tips=np.zeros((0, 2)), boxes=boxes, drop_crowded=True
    )
    assert kept[0] and 1 <= kept.sum() < 6
    for i, a in enumerate(boxes):  # the kept labels do not overlap
        for b in boxes[i + 1 :]:
            assert min(a[2], b[2]) - max(a[0], b[0]) <= 0 or min(a[3], b[3]) - max(a[1], b[1]) <= 0


def test_corner_labels_take_the_free_corner_nearest_their_direction():
    df = pd.DataFrame({"label": ["a", "b", "c"], "x": [1.0, 0.9, -0.2], "y": [0.1, 0.2, -1.0]})
    out = labels.corner_labels(df, 2.0)
    assert list(zip(out["x"], out["y"])) == [(2.0, 2.0), (2.0, -2.0), (-2.0, -2.0)]
    assert out["align"].tolist() == ["right", "right", "left"]
    assert out["baseline"].tolist() == ["top", "bottom", "bottom"]
    assert out["dx"].tolist() == [-6, -6, 6] and out["dy"].tolist() == [6, -6, -6]  # inset, inwards


def _boxes(rows: pd.DataFrame, px: float, *, font: float, char_w: float) -> list[tuple]:
    """`label_boxes` of some rows of a text layer."""
    spec = {"datasets": {"d": rows.to_dict("records")}}
    return label_boxes(spec, {"data": {"name": "d"}}, px, font=font, char_w=char_w)


@pytest.mark.parametrize("theta", [1.0, 0.2371, 0.05])
def test_plane_chart_with_its_trajectory_slider_numbers_every_m_clear_of_its_dots(theta):
    """Issue #36: with `traj_m`, M is the chart's own slider (starting there) and the chart holds the numbers of every
    M with at most NUMBERED_DOTS dots, each M's own: positions 1 … M only, clear of that M's dots, of the arrow tips
    and of each other; the arrows' names clear of every dot the slider can show. Past that, no numbers."""
    m, n, last = 5, 12, 60
    arrows, traj, trajectory = plane_inputs(theta, m, n, last)
    spec = charts.plane_chart(arrows, trajectory=trajectory, traj_m=9, title="t").to_dict()
    assert {p["name"]: p["value"] for p in spec["params"] if "bind" in p} == {"traj_m": 9}
    px = spec["width"] / (2 * facts(spec)["lim"])
    (numbers,) = by_field(spec, "text", "text", "position")
    (names,) = by_field(spec, "text", "text", "label")
    held = frame(spec, numbers)
    name_boxes = label_boxes(spec, names, px, font=16, char_w=8.5)
    for box in name_boxes:
        for x, y in traj:
            assert box_distance(box, x * px, y * px) >= 5, (box, x, y)
    assert set(held["for_m"]) <= set(range(1, charts.NUMBERED_DOTS))
    for upto in range(1, last + 1):
        rows = held[held["for_m"] == upto]
        assert set(rows["position"]) <= set(range(1, upto + 1)) - {m}  # q at m is named by its arrow
        if upto >= charts.NUMBERED_DOTS:
            assert rows.empty
            continue
        boxes = _boxes(rows, px, font=13, char_w=7)
        for box in boxes:
            for x, y in traj[: upto + 1]:
                assert box_distance(box, x * px, y * px) >= 5, (upto, box, x, y)
            for x, y in zip(arrows["x"], arrows["y"]):
                assert box_distance(box, x * px, y * px) >= 6, (upto, box, x, y)
        for i, a in enumerate(boxes + name_boxes):
            for b in (boxes + name_boxes)[i + 1 :]:
                assert min(a[2], b[2]) - max(a[1], b[1]) <= 1 or min(a[4], b[4]) - max(a[3], b[3]) <= 1, (upto, a, b)


def test_plane_chart_rejects_a_trajectory_slider_past_its_positions():
    trajectory = pd.DataFrame({"position": range(4), "x": [1.0, 0.0, -1.0, 0.0], "y": [0.0, 1.0, 0.0, -1.0]})
    arrows = pd.DataFrame({"vector": ["q"], "state": ["before"], "label": ["q"], "x": [1.0], "y": [0.0]})
    with pytest.raises(ValueError, match="traj_m must be a position of the trajectory"):
        charts.plane_chart(arrows, trajectory=trajectory, traj_m=4, title="t")
    with pytest.raises(ValueError, match="trajectory's positions must be 0, 1, 2"):
        charts.plane_chart(arrows, trajectory=trajectory.iloc[1:], title="t")


def test_plane_chart_numbers_only_short_trajectories():
    spec = plane_spec(traj_len=100)
    assert not by_field(spec, "text", "text", "position")  # no numbers beside a long trajectory


def test_plane_chart_rejects_missing_columns():
    with pytest.raises(ValueError, match="arrows must have columns"):
        charts.plane_chart(pd.DataFrame({"x": [1.0], "y": [0.0]}), title="t")


# ------------------------------------------------------------------------------- pair map
@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("dim, j", [(8, 0), (8, 3), (64, 17), (256, 127)])
def test_pair_map_matches_loop(layout, dim, j):
    spec = charts.pair_map_chart(posenc.pair_indices(dim, layout=layout), highlight=j, layout=layout).to_dict()
    (points,) = find(spec, "circle")
    df = frame(spec, points)
    assert len(df) == dim
    for row in df.itertuples():  # independent rule for which pair coordinate i belongs to
        expected = row.coordinate % (dim // 2) if layout == "half" else row.coordinate // 2
        assert row.pair == expected
    assert sorted(df.loc[df["selected"], "coordinate"]) == (
        [j, j + dim // 2] if layout == "half" else [2 * j, 2 * j + 1]
    )
    assert points["encoding"]["x"]["title"] == "coordinate index i"
    assert points["encoding"]["y"]["title"] == "pair j"
    assert layout in spec["title"]["text"]
    assert f"pair {j}" in spec["title"]["subtitle"]
    legible(spec)


def test_pair_map_rejects_bad_highlight():
    with pytest.raises(ValueError, match="highlight"):
        charts.pair_map_chart(posenc.pair_indices(8), highlight=4, layout="half")


# ---------------------------------------------------------------------------- d×d heatmap
def ref_rope_matrix(m: float, dim: int, layout: str, base: float = 10000.0) -> np.ndarray:
    r = np.zeros((dim, dim))
    for j in range(dim // 2):
        a, b = (j, j + dim // 2) if layout == "half" else (2 * j, 2 * j + 1)
        ang = m * base ** (-2 * j / dim)
        r[a, a], r[a, b], r[b, a], r[b, b] = math.cos(ang), -math.sin(ang), math.sin(ang), math.cos(ang)
    return r


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("dim", [8, 256])
def test_rope_matrix_heatmap_is_one_image_of_the_matrix(layout, dim):
    m, j = 7, dim // 2 - 1
    pair = tuple(int(c) for c in posenc.pair_indices(dim, layout=layout)[j])
    spec = charts.rope_matrix_heatmap(
        posenc.rope_matrix(m, dim, layout=layout), position=m, pair=pair, layout=layout
    ).to_dict()
    meta = image_meta(spec)
    assert meta["shape"] == [dim, dim] and meta["shown"] == [dim, dim] and meta["domain"] == [-1.0, 1.0]
    assert len(find(spec, "image")) == 1 and not find(spec, "rect", opacity=1)
    pixels = png_pixels(spec)
    expected = colorize(ref_rope_matrix(m, dim, layout), scheme="redblue", domain=(-1.0, 1.0))
    assert pixels.shape == expected.shape
    assert np.mean(np.all(pixels == expected, axis=-1)) > 0.999  # bin edges may round differently
    (boxes,) = find(spec, "rect", stroke="#111827")
    cells = frame(spec, boxes)
    centres = sorted(zip((cells["x0"] + cells["x1"]) / 2, (cells["y0"] + cells["y1"]) / 2))
    a, b = pair
    assert centres == sorted((float(c), float(r)) for r in (a, b) for c in (a, b))
    assert f"m = {m}" in spec["title"]["text"] and layout in spec["title"]["text"]
    legend = [layer["encoding"]["color"]["legend"] for layer in layers(spec) if "color" in layer.get("encoding", {})]
    assert legend and legend[0]["gradientLength"] <= 400 - 100
    legible(spec)


def test_rope_matrix_on_the_dark_card_is_dark_where_it_is_zero_and_keeps_its_numbers():
    """R_m is almost all zeros, and redblue's zero is near-white: on the dark card the matrix was a glaring white square.
    Built for the dark card, its zero cells sit just off the card, its ±1 cells (cos at m = 0 … small angles) stand
    clearly off it, negative cells red and positive blue as on the light card; the numbers (hover, meta) are the
    light chart's, and the light chart's zero cells are still redblue's near-white."""
    from _chartspec import contrast

    from explorer.charts import style

    dim, m, layout = 16, 3, "half"
    r = ref_rope_matrix(m, dim, layout)
    pair = tuple(int(c) for c in posenc.pair_indices(dim, layout=layout)[0])
    light, dark = (
        stable_dataset_names(
            charts.rope_matrix_heatmap(r, position=m, pair=pair, layout=layout, dark=on_dark).to_dict()
        )
        for on_dark in (False, True)
    )
    colours = {name: png_pixels(spec)[..., :3] for name, spec in (("light", light), ("dark", dark))}

    def hexes(name, where):
        return {hex_colour(p) for p in colours[name][where]}

    zero, one, negative, positive = r == 0, np.abs(r) > 0.99, r < -0.3, r > 0.3
    assert zero.mean() > 0.8 and one.any() and negative.any()  # what makes the glare: nearly every cell is 0
    assert all(contrast(c, style.DARK_BACKGROUND) < 1.3 for c in hexes("dark", zero))
    assert all(contrast(c, style.DARK_BACKGROUND) >= 3 for c in hexes("dark", one))
    red_minus_blue = colours["dark"][..., 0].astype(int) - colours["dark"][..., 2].astype(int)
    assert (red_minus_blue[negative] > 0).all() and (red_minus_blue[positive] < 0).all()
    assert all(contrast(c, style.CARD_BACKGROUND) < 1.2 for c in hexes("light", zero))  # the light card: unchanged
    # only the colours differ: the same shape, reduction, domain, hover values and boxes
    assert image_meta(dark) == image_meta(light)
    assert light["datasets"].keys() == dark["datasets"].keys()
    for name in light["datasets"]:
        rows = [{k: v for k, v in row.items() if k != "url"} for row in light["datasets"][name]]
        assert rows == [{k: v for k, v in row.items() if k != "url"} for row in dark["datasets"][name]]


def test_rope_matrix_heatmap_rejects_bad_pair():
    with pytest.raises(ValueError, match="pair"):
        charts.rope_matrix_heatmap(np.eye(4), position=0, pair=(0, 4), layout="half")


# --------------------------------------------------------------------------------- latex
def test_rotation_latex_shows_the_numbers():
    angle = 5 * 1.0
    c, s = math.cos(angle), math.sin(angle)
    q = np.array([1.0, 0.5])
    rotated = np.array([c * 1.0 - s * 0.5, s * 1.0 + c * 0.5])
    tex = charts.rotation_latex(5, 1.0, posenc.rotation_2x2(angle), q, rotated)
    assert tex.startswith(r"\begin{aligned}") and tex.endswith(r"\end{aligned}")
    for number in (c, -s, s, *rotated):
        assert f"{number:.3f}" in tex
    assert r"5 \times 1 = 5\ \mathrm{rad}" in tex
    with pytest.raises(ValueError, match="2×2"):
        charts.rotation_latex(5, 1.0, np.eye(3), q, rotated)


# ------------------------------------------------------------------- live chart (in the browser)
def vega_eval(
    expr: str,
    m: int,
    n: int,
    row: dict | None = None,
    *,
    head_dim: int = 64,
    j: int = 0,
    base_index: int = 4,
    sliders: dict | None = None,
    signals: dict | None = None,
) -> float:
    """A live expression evaluated with Python's math (the names it uses: cos, sin, pow, min, PI,
    toNumber, the in-chart selections m, n, head_dim, base (an option index) and j, whose one field each is the value:
    ``m.m``, and Vega's ``data('data-0')``, the chart's facts row `row`).
    `%` is Python's floored remainder here, JS's truncated one in the browser: the expression wraps with
    ((x % 360) + 360) % 360, which lands in [0, 360) under both (the browser test reads the JS result).
    `sliders`: other in-chart sliders' values ({"qx": 1.5}: ``qx.qx``); `signals`: other signals' values."""

    def data(name: str) -> list:
        assert name == "data-0"
        return [SimpleNamespace(**(row or {}))]

    names = {
        "cos": math.cos,
        "sin": math.sin,
        # numpy's pow, which posenc's θ come from: math.pow differs from it in the last bit now and then (base 10,
        # d = 108, j = 1: hypothesis found it); JavaScript's is read back in Chromium (tests/test_e2e_rope_base.py)
        "pow": lambda x, y: float(np.power(np.float64(x), np.float64(y))),
        "min": min,
        "toNumber": lambda v: v,  # the values are numbers already (an index stays an int)
        "PI": math.pi,
        "m": SimpleNamespace(m=m),
        "n": SimpleNamespace(n=n),
        "head_dim": SimpleNamespace(head_dim=head_dim),
        "j": SimpleNamespace(j=j),
        "base": SimpleNamespace(base=base_index),
        "sqrt": math.sqrt,
        "max": max,
        **{key: SimpleNamespace(**{key: value}) for key, value in (sliders or {}).items()},
        **(signals or {}),
    }
    return eval(expr, {"__builtins__": {}}, {**names, "data": data})


def pair_signals(q, k) -> dict[str, float]:
    """q's and k's signals (`charts.VECTOR_SIGNALS`) as the browser computes them from the plane's x and y sliders."""
    sliders = dict(zip(charts.VECTOR_PARAMS["cartesian"], (*q, *k), strict=True))
    ex = charts.vector_expressions("cartesian")
    return {charts.VECTOR_SIGNALS[name]: vega_eval(ex[name], 0, 0, sliders=sliders) for name in ex}


@settings(max_examples=60, deadline=None)
@given(
    q=st.tuples(st.floats(-5, 5), st.floats(-5, 5)),
    k=st.tuples(st.floats(-5, 5), st.floats(-5, 5)),
    base=st.sampled_from([float(b) for b in BASE_OPTIONS]),
    half=st.integers(1, 128),
    j=st.integers(0, 127),
    m=st.integers(0, 8192),
    n=st.integers(0, 8192),
)
def test_live_expressions_rotate_and_score_like_rope(q, k, base, half, j, m, n):
    head_dim = 2 * half
    ex = charts.live_expressions(BASE_OPTIONS)
    signals = pair_signals(q, k)
    assert signals == dict(zip(charts.VECTOR_SIGNALS.values(), (*q, *k), strict=True))  # x and y as they stand
    pair = min(j, half - 1)  # a j slider past the last pair reads as the last pair
    theta = float(posenc.inverse_frequencies(head_dim, base=base)[pair])
    got = {
        name: vega_eval(ex[name], m, n, head_dim=head_dim, j=j, base_index=BASE_OPTIONS.index(base), signals=signals)
        for name in ex
    }
    assert got["base"] == base and got["pair"] == pair
    assert got["theta"] == theta  # the same float64 operations as posenc (in the browser: to the last bit or so)
    qm, kn, kd = rotate(q, m * theta), rotate(k, n * theta), rotate(k, (n - m) * theta)
    scale = 1 + math.hypot(*q) * math.hypot(*k)
    assert got["q_x"] == pytest.approx(qm[0], abs=1e-9 * scale)
    assert got["q_y"] == pytest.approx(qm[1], abs=1e-9 * scale)
    assert got["k_x"] == pytest.approx(kn[0], abs=1e-9 * scale)
    assert got["k_y"] == pytest.approx(kn[1], abs=1e-9 * scale)
    assert got["score"] == pytest.approx(qm[0] * kn[0] + qm[1] * kn[1], abs=1e-8 * scale)
    assert got["score_rel"] == pytest.approx(q[0] * kd[0] + q[1] * kd[1], abs=1e-8 * scale)
    shown = got["offset_deg"]
    assert -180 < shown <= 180 + 1e-9
    turned = math.degrees((m - n) * theta)
    assert math.remainder(shown - turned, 360) == pytest.approx(0, abs=1e-6)


def test_polar_vectors_in_the_browser_are_posencs_polar_to_xy():
    """Given as angle (whole degrees, the slider's steps) and length, q's coordinates in the browser are
    `posenc.polar_to_xy(degrees=True)`'s: the same radians bit for bit (φ·(π/180), as np.deg2rad), and cos and sin
    (Python's math here, numpy's there: they may differ in the last bit)."""
    ex = charts.vector_expressions("polar")
    for angle in range(-180, 181):
        for length in (0.1, 1.0, 1.7, 3.0):
            sliders = {"q_angle": angle, "q_len": length, "k_angle": -angle, "k_len": 3.1 - length}
            got = [vega_eval(ex[name], 0, 0, sliders=sliders) for name in ("qx", "qy", "kx", "ky")]
            want = [*posenc.polar_to_xy(angle, length, degrees=True), *posenc.polar_to_xy(-angle, 3.1 - length,
                                                                                              degrees=True)]  # fmt: skip
            np.testing.assert_allclose(got, want, rtol=0, atol=4e-16 * 3.1)
            assert angle * (math.pi / 180) == np.deg2rad(np.float64(angle))
    with pytest.raises(ValueError, match="vector_input"):
        charts.vector_expressions("spherical")


def live_chart(**kwargs):
    args = dict(base=10000.0, base_options=BASE_OPTIONS, head_dim=64, j=0, m=M, n=N, p_max=8192)
    args.update(rope_vector_sliders(Q, K))
    args.update(kwargs)
    return charts.live_pair_chart(np.array(Q), np.array(K), **args)


def test_live_chart_sliders_are_m_n_d_and_j_over_their_whole_range():
    """The in-chart sliders are the page's m, n, head_dim and j themselves: point selections named
    after them, each bound to a range input (m and n over every position 0 … p_max, d over 2 … 256 in
    steps of 2, j over 0 … 127, the pairs of the largest d), starting at the given values, set by the
    slider only; the arrows, their labels and the read-out are computed from them."""
    spec = live_chart(head_dim=16, j=5).to_dict()
    params = {p["name"]: p for p in spec["params"] if "bind" in p}
    assert set(params) == {"m", "n", "head_dim", "base", "j", "qx", "qy", "kx", "ky"}
    assert [p["name"] for p in spec["params"] if "bind" in p][::-1] == list(charts.live_params("cartesian"))
    for key, start in zip(("qx", "qy", "kx", "ky"), (*Q, *K), strict=True):  # q's and k's numbers, -3 … 3
        param = params[key]
        assert param["value"] == start and (param["bind"]["min"], param["bind"]["max"], param["bind"]["step"]) == (
            -3.0,
            3.0,
            0.1,
        )
    polar = live_chart(**rope_vector_sliders((30, 1.5), (-120, 0.5), "polar")).to_dict()
    bound = {p["name"]: (p["value"], p["bind"]["min"], p["bind"]["max"]) for p in polar["params"] if "bind" in p}
    assert {key: bound[key] for key in charts.VECTOR_PARAMS["polar"]} == {
        "q_angle": (30, -180, 180),
        "q_len": (1.5, 0.1, 3.0),
        "k_angle": (-120, -180, 180),
        "k_len": (0.5, 0.1, 3.0),
    }
    (theta,) = [p for p in spec["params"] if p["name"] == charts.THETA_SIGNAL]
    assert theta["expr"] == charts.live_expressions(BASE_OPTIONS)["theta"]  # the formula tested above
    last = len(BASE_OPTIONS) - 1
    ranges = {"m": (0, 8192, 1), "n": (0, 8192, 1), "head_dim": (2, 256, 2), "j": (0, 127, 1), "base": (0, last, 1)}
    start_b = BASE_OPTIONS.index(10000)  # b's slider runs over the options' indices
    for key, start in (("m", M), ("n", N), ("head_dim", 16), ("j", 5), ("base", start_b)):
        param = params[key]
        assert param["select"]["type"] == "point" and param["select"]["fields"] == [key]
        assert param["select"]["on"] == "none" and param["select"]["clear"] is False
        assert param["value"] == start
        assert param["bind"]["input"] == "range"
        assert (param["bind"]["min"], param["bind"]["max"], param["bind"]["step"]) == ranges[key]
    plane, readout = spec["vconcat"]
    tips = next(  # arrows, heads, names: the layers that label their tips
        layer["transform"]
        for layer in plane["layer"]
        if any(t.get("as") == "label" for t in layer.get("transform", []))
    )
    calculated = " ".join(t["calculate"] for t in tips if "calculate" in t)
    for name in ("m.m", "n.n", "head_dim.head_dim", "j.j", "base.base"):
        assert name in calculated and name in str(readout["transform"])
    high = live_chart(m=8192, n=0).to_dict()
    assert {p["name"]: p["value"] for p in high["params"] if "bind" in p} == {
        "m": 8192,
        "n": 0,
        "head_dim": 64,
        "j": 0,
        "base": start_b,
        "qx": Q[0],
        "qy": Q[1],
        "kx": K[0],
        "ky": K[1],
    }


@pytest.mark.parametrize(
    "kwargs, word",
    [
        (dict(q=np.zeros(3), k=np.ones(2)), "q and k"),
        (dict(base=float("nan")), "base"),
        (dict(base=1.0), "base"),
        (dict(base=12345.0), "one of base_options"),
        (dict(base_options=(10.0, 1.0)), "base_options"),
        (dict(m=8193), "m and n"),
        (dict(head_dim=7), "head_dim"),
        (dict(head_dim=258), "head_dim"),
        (dict(head_dim=8, j=4), "j must be in 0 … head_dim/2 − 1 = 3, got 4"),
        (dict(vector_input="spherical"), "vector_input"),
        (dict(vector_input="polar"), "vectors and vector_ranges must have the keys"),
        (dict(vectors={"qx": 4.0, "qy": 0.0, "kx": 0.0, "ky": 1.0}), r"vectors\['qx'\] must be in"),
    ],
)
def test_live_chart_rejects_bad_input_by_name(kwargs, word):
    args = dict(
        q=np.array(Q), k=np.array(K), base=10000.0, base_options=BASE_OPTIONS, head_dim=64, j=0, m=M, n=N, p_max=8192
    )
    args.update(rope_vector_sliders(Q, K))
    args.update(kwargs)
    q, k = args.pop("q"), args.pop("k")
    with pytest.raises(ValueError, match=word):
        charts.live_pair_chart(q, k, **args)


def test_the_live_plane_describes_itself_and_keeps_the_pages_pair_in_its_rows():
    """The page's pair (q, k) reaches the live plane as its reach only, in its facts row: the description names no
    number of the pair's (nor m, n, d or j, which a drag would make stale); q's and k's numbers are the starts of its
    own sliders, so a new pair with the same starts changes the rows only."""
    kw = dict(base_options=BASE_OPTIONS, head_dim=16, j=3, m=3, n=7, p_max=100)
    spec = charts.live_pair_chart(
        np.array([1.0, 0.5]), np.array([-0.25, 2.0]), base=500.0, **rope_vector_sliders((1.0, 0.5), (-0.25, 2.0)), **kw
    ).to_dict()
    text = spec["description"]
    assert "query q" in text and "key k" in text and "from 0 to 100" in text and "pair j" in text
    assert "the last four sliders set q and k" in text
    assert "m = 3" not in text and "n = 7" not in text and "500" not in text and "16" not in text
    assert facts(spec) == {"lim": 1.35 * math.hypot(-0.25, 2.0)}

    def sent(q, k, base, starts=((1.0, 0.5), (-0.25, 2.0))):  # what the browser gets, without the rows
        sliders = rope_vector_sliders(*starts)
        chart = charts.live_pair_chart(np.array(q), np.array(k), base=base, **sliders, **kw)
        return {key: v for key, v in stable_dataset_names(compat.vega_lite_spec(chart)).items() if key != "datasets"}

    # b is the plane's own slider: its start is in the spec like d's and j's; a new page's pair is rows only
    assert sent([0.3, -2.0], [1.0, 1.0], 500.0) == sent([1.0, 0.5], [-0.25, 2.0], 500.0)
    assert sent([1.0, 0.5], [-0.25, 2.0], 10.0) != sent([1.0, 0.5], [-0.25, 2.0], 500.0)
    assert sent([1.0, 0.5], [-0.25, 2.0], 500.0, ((0.3, -2.0), (1.0, 1.0))) != sent([1.0, 0.5], [-0.25, 2.0], 500.0)


def test_the_live_planes_reach_widens_in_the_browser_past_the_pages_pair():
    """The axes span ± the page's reach (1.35 × its longer vector) or, once a vector slider takes q or k past it, ± 1.35
    × the longer of the dragged pair; each vector's circle is drawn at its length as the browser has it."""
    chart = live_chart().to_dict()
    (lim,) = [p["expr"] for p in chart["params"] if p["name"] == charts.LIM_SIGNAL]
    row = charts.live_facts(np.array(Q), np.array(K))
    assert row == {"lim": 1.35 * math.hypot(*K)}
    for q, k, want in (
        (Q, K, 1.35 * math.hypot(*K)),  # the page's own pair
        ((0.1, 0.0), (0.0, 0.2), 1.35 * math.hypot(*K)),  # shorter: the plane keeps its reach until the release
        ((3.0, -3.0), K, 1.35 * math.hypot(3.0, 3.0)),  # past it: widened
        ((0.0, 0.0), (0.0, 0.0), 1.35 * math.hypot(*K)),
    ):
        assert vega_eval(lim, 0, 0, row, signals=pair_signals(q, k)) == pytest.approx(want, rel=1e-15), (q, k)
    ring = next(layer for layer in chart["vconcat"][0]["layer"] if layer.get("mark", {}).get("type") == "line")
    radius = next(t["calculate"] for t in ring["transform"] if t.get("as") == "radius")
    test, both = radius.split(" ? ")
    assert test == "datum.vector === 'q'"
    for expr, want in zip(both.split(" : "), (math.hypot(2.0, -1.5), math.hypot(0.3, 0.4)), strict=True):
        assert vega_eval(expr, 0, 0, signals=pair_signals((2.0, -1.5), (0.3, 0.4))) == pytest.approx(want, rel=1e-15)


def test_the_arrows_and_the_circles_dash_by_their_own_scales():
    """The circles (dotted circle, solid arc) and the arrows (dashed before, solid after) set their dashes by two
    different fields. In one shared scale Vega-Lite kept the first's domain and range for both, with a console warning,
    and the "before" arrows drew the circle's dash. Compiled to Vega, each field has its own scale."""
    import vl_convert as vlc

    scales = {
        tuple(s["domain"]): s["range"]
        for s in vlc.vegalite_to_vega(plane_spec())["scales"]
        if s["name"].endswith("strokeDash")
    }
    assert scales == {("circle", "arc"): [[4, 4], [1, 0]], ("before", "after"): [[6, 4], [1, 0]]}
