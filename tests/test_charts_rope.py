"""Chart builders of the RoPE-rotation page (explorer/charts/rope.py), checked through to_dict():
marks, encodings, titles, and the data values against numbers computed here with `math`."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import posenc
from _chartspec import find, frame, layers, legible, png_pixels
from explorer.charts import rope as charts
from explorer.imagechart import colorize


# ---------------------------------------------------------------------------------- plane
Q, K = (1.0, 0.5), (-0.4, 1.2)
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


def test_plane_chart_is_to_scale_and_legible():
    spec = plane_spec()
    assert spec["width"] == spec["height"]
    assert spec["autosize"]["type"] == "pad"  # Streamlit must not squeeze one axis
    assert spec["title"]["text"] == "Pair j = 0" and spec["title"]["subtitle"] == "sub"
    domains = {
        tuple(enc["scale"]["domain"])
        for layer in layers(spec)
        for ch, enc in layer.get("encoding", {}).items()
        if ch in ("x", "y") and "scale" in enc
    }
    assert len(domains) == 1  # one shared, symmetric domain for x and y
    (lo, hi), = domains
    assert lo == -hi and hi >= math.hypot(*K)
    legible(spec)


def test_plane_chart_arrows_heads_and_labels():
    spec = plane_spec()
    (shafts,) = find(spec, "rule", strokeWidth=3.5)
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
    texts = find(spec, "text", fontSize=16)
    assert sorted(l for t in texts for l in frame(spec, t)["label"]) == sorted(df["label"])


def test_plane_chart_circles_have_the_norms():
    spec = plane_spec()
    (circles,) = find(spec, "line", strokeWidth=1.5)
    df = frame(spec, circles)
    radii = sorted({round(r, 9) for r in np.hypot(df["x"], df["y"])})
    assert radii == pytest.approx(sorted([math.hypot(*Q), math.hypot(*K)]))


def test_plane_chart_trajectory_and_arc():
    spec = plane_spec(traj_len=16)
    (points,) = find(spec, "circle")
    df = frame(spec, points)
    assert df["position"].tolist() == list(range(17))
    for row in df.itertuples():
        assert (row.x, row.y) == pytest.approx(rotate(Q, row.position * THETA))
    assert points["encoding"]["fill"]["field"] == "position"
    numbers = [t for t in find(spec, "text", fontSize=13)]
    assert sorted(frame(spec, numbers[0])["position"]) == list(range(1, 17))  # 0 is q itself

    (arc,) = find(spec, "line", strokeWidth=2.5)
    pts = frame(spec, arc)
    assert np.hypot(pts["x"], pts["y"]).to_numpy() == pytest.approx(np.full(len(pts), 0.3))
    start = math.atan2(Q[1], Q[0])
    assert math.atan2(pts["y"].iloc[0], pts["x"].iloc[0]) == pytest.approx(start)
    assert math.atan2(pts["y"].iloc[-1], pts["x"].iloc[-1]) == pytest.approx(start + 1.2)


def test_plane_chart_numbers_only_short_trajectories():
    spec = plane_spec(traj_len=100)
    assert not find(spec, "text", fontSize=13) or all(
        "position" not in frame(spec, t) for t in find(spec, "text", fontSize=13)
    )


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
    meta = spec["usermeta"]["imagechart"]
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
    legend = [l["encoding"]["color"]["legend"] for l in layers(spec) if "color" in l.get("encoding", {})]
    assert legend and legend[0]["gradientLength"] <= 400 - 100
    legible(spec)


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
