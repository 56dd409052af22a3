"""Chart builders of the Images-and-video page (explorer/charts/vision.py), through to_dict(): marks,
encodings, the data each layer draws, the description, and the input checks. The query heatmaps
compute in the browser: their transforms are evaluated here from the spec as sent (`unit_rows`) and
compared with the formulas, re-typed, and with posenc.angle_scores."""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd
import pytest
from _chartspec import contrast, find, frame, layers, sent_spec, spec_value, unit_rows
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from explorer.charts import vision as charts


def test_grid_height_keeps_patches_roughly_square_within_bounds():
    assert charts.grid_height(12, 16, width=520) == 390
    assert charts.grid_height(1, 64) == 150 and charts.grid_height(64, 1) == 420


def strip_data():
    return pd.DataFrame(
        {
            "scheme": ["a"] * 4 + ["b"] * 4,
            "pair": [0, 1, 2, 3] * 2,
            "axis": ["row (h)", "row (h)", "column (w)", "column (w)", "time (t)", "row (h)", "column (w)", "time (t)"],
            "wavelength": [6.28, 62.8, 6.28, 62.8, 6.28, 20.0, 60.0, 200.0],
        }
    )


@pytest.mark.parametrize("x", ["pair", "wavelength"])
def test_pair_axis_strip(x):
    spec = charts.pair_axis_strip(strip_data(), x=x, title="t", subtitle="s", description="d").to_dict()
    assert spec["description"] == "d"
    (layer,) = layers(spec)
    enc = layer["encoding"]
    assert enc["y"]["field"] == "scheme" and enc["y"]["sort"] == ["a", "b"]
    assert enc["color"]["scale"]["domain"] == ["time (t)", "row (h)", "column (w)"]
    assert enc["color"]["scale"]["range"] == [charts.AXIS_COLORS[a] for a in ("time (t)", "row (h)", "column (w)")]
    if x == "pair":
        assert layer["mark"]["type"] == "rect" and enc["x"]["scale"]["domain"] == [0, 4]
        assert frame(spec, layer)["pair_end"].tolist() == [1, 2, 3, 4] * 2
    else:
        assert layer["mark"]["type"] == "tick" and enc["x"]["scale"]["type"] == "log"
        assert enc["yOffset"]["field"] == "axis"
    assert spec["config"]["legend"]["orient"] == "bottom"
    # the plot's height is its own, not shared with a title a phone wraps to four lines (which squeezed the rows
    # until the axis hid half their names), and the legend takes two columns where four are wider than the plot
    assert spec["autosize"]["type"] == "fit-x" and spec["height"] < 100 * 2
    assert spec_value({**spec, "width": 300}, spec["config"]["legend"]["columns"]["expr"]) == 2


def test_pair_axis_strip_checks_its_input():
    with pytest.raises(ValueError, match="columns"):
        charts.pair_axis_strip(strip_data().drop(columns="axis"), title="t", description="d")
    with pytest.raises(ValueError, match="x must be"):
        charts.pair_axis_strip(strip_data(), x="frequency", title="t", description="d")


def shift_spec(rows: int, cols: int, query: tuple[int, int], key: tuple[int, int], shift: tuple[int, int]) -> dict:
    """The live shift diagram as the page sends it, its sliders starting at `key` and `shift`."""
    chart = charts.live_shift_chart(rows=rows, cols=cols, query=query, key=key, shift=shift, description="d")
    return sent_spec(chart)


def shift_drawn(spec: dict, **sliders: int) -> dict[str, tuple[int, int]]:
    """What the browser draws with the shift sliders at `sliders` (the range inputs' text): {label: (row, col)}."""
    dots = find(spec, "circle")[0]
    rows = unit_rows(spec, dots, **{k: str(v) for k, v in sliders.items()})
    return {r.label: (int(r.row), int(r.col)) for r in rows.itertuples()}


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_the_shift_diagram_in_the_browser_draws_the_patches_the_page_scores(data):
    """At random grids and queries, the chart starts at one key and shift; with its sliders moved anywhere in their
    range, it draws q, k, q + Δ and k + Δ where the shift test puts them: the key on the grid, Δ the slider's value
    clamped (by hand here: −min(q, k) … n − 1 − max(q, k) per axis) so both patches stay on the grid. The title names
    that Δ and the offset k − q."""
    rows, cols = data.draw(st.integers(1, 64)), data.draw(st.integers(1, 64))
    qr, qc = data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1))
    spec = shift_spec(rows, cols, (qr, qc), (qr, qc), (0, 0))
    kr, kc = data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1))
    dr, dc = data.draw(st.integers(-(rows - 1), rows - 1)), data.draw(st.integers(-(cols - 1), cols - 1))
    got = shift_drawn(spec, vis_krow=kr, vis_kcol=kc, vis_drow=dr, vis_dcol=dc)
    er = min(max(dr, -min(qr, kr)), rows - 1 - max(qr, kr))
    ec = min(max(dc, -min(qc, kc)), cols - 1 - max(qc, kc))
    assert got == {"q": (qr, qc), "k": (kr, kc), "q + Δ": (qr + er, qc + ec), "k + Δ": (kr + er, kc + ec)}
    assert all(0 <= r < rows and 0 <= c < cols for r, c in got.values())
    sliders = dict(vis_krow=str(kr), vis_kcol=str(kc), vis_drow=str(dr), vis_dcol=str(dc))
    title = spec_value({**spec, "width": charts.SHIFT_TITLE_ONE_LINE}, spec["title"]["text"]["expr"], **sliders)
    assert title == f"Shift both by Δ = ({er}, {ec}): offset k − q = ({kr - qr}, {kc - qc}) before and after"


def test_the_shift_diagrams_sliders_limits_and_frame():
    """Its four sliders are the registry's key and shift (the key over the grid, the shift over ±(n − 1)), starting
    where the page says; the page's ranges keep both patches on the grid; row 0 is at the top (as in the heatmaps);
    the title takes two lines on a phone; a start off the grid is refused, naming the parameter."""
    spec = shift_spec(12, 16, (5, 7), (8, 12), (2, -5))
    everywhere = [*spec.get("params", []), *(p for layer in spec["layer"] for p in layer.get("params", []))]
    params = {p["name"]: p for p in everywhere if "bind" in p}
    assert list(params) == ["vis_dcol", "vis_drow", "vis_kcol", "vis_krow"]  # in reverse: the key's row first on screen
    assert {k: (p["value"], p["bind"]["min"], p["bind"]["max"]) for k, p in params.items()} == {
        "vis_krow": (8, 0, 11),
        "vis_kcol": (12, 0, 15),
        "vis_drow": (2, -11, 11),
        "vis_dcol": (-5, -15, 15),
    }
    limits = charts.shift_limits({"vis_krow": 8, "vis_kcol": 12}, 12, 16, (5, 7))
    assert limits == {
        "vis_krow": {"min": 0, "max": 11},
        "vis_kcol": {"min": 0, "max": 15},
        "vis_drow": {"min": -5, "max": 3},
        "vis_dcol": {"min": -7, "max": 3},
    }
    (dots,) = find(spec, "circle")
    assert dots["encoding"]["y"]["scale"]["reverse"] is True
    assert dots["encoding"]["x"]["scale"]["domain"] == [-0.5, 15.5]
    (line,) = find(spec, "line")
    assert line["encoding"]["detail"]["field"] == "state"
    narrow = spec_value(
        {**spec, "width": 300}, spec["title"]["text"]["expr"], vis_krow="8", vis_kcol="12", vis_drow="2", vis_dcol="-5"
    )
    assert narrow == ["Shift both by Δ = (2, -5)", "offset k − q = (3, 5) before and after"]
    with pytest.raises(ValueError, match="vis_drow must be in -5 … 3"):
        shift_spec(12, 16, (5, 7), (8, 12), (4, 0))
    with pytest.raises(ValueError, match="query must be on the 12 × 16 grid"):
        shift_spec(12, 16, (12, 0), (8, 12), (0, 0))


def sequence_spec(before: int, after: int, frames: int, rows: int, cols: int) -> dict:
    """The live sequence chart as the page sends it, its sliders starting at `before` and `after`."""
    from explorer.compute import vision as compute
    from explorer.text import vision as text

    video, n_vis, span, stride = compute.sequence_video(frames, rows, cols)
    words = text.sequence_words(before, after, frames, rows, cols, stride)
    chart = charts.live_sequence_chart(
        video, n_vis=n_vis, span=span, text_before=before, text_after=after, most_text=64, **words["chart"]
    )
    return sent_spec(chart)


def sequence_drawn(spec: dict, before: int, after: int) -> tuple[pd.DataFrame, list[list]]:
    """What the browser draws with the sliders at `before` and `after`: the dots (index, axis, position, segment),
    sorted, and the shaded segments [segment, start, end]."""
    sliders = {"vis_text_before": str(before), "vis_text_after": str(after)}
    shade, text_dots, video_dots = spec["layer"][1:]
    dots = pd.concat([unit_rows(spec, layer, **sliders) for layer in (text_dots, video_dots)], ignore_index=True)
    dots = dots[["index", "axis", "position", "segment"]].astype({"index": int, "position": int})
    spans = unit_rows(spec, shade, **sliders)[["segment", "start", "end"]].values.tolist()
    return dots.sort_values(["index", "axis"], ignore_index=True), spans


@pytest.mark.parametrize("width", [220, 260, 300, 600])
def test_the_sequence_charts_subtitle_keeps_t_h_w_on_one_line(width):
    """Wrapped to a phone's chart, the subtitle's "t = h = w" stays whole (a line once ended in "t = h =")."""
    from explorer.charts.style import style_spec

    spec = style_spec(sequence_spec(4, 4, 4, 12, 16))  # as the page draws it: long titles wrap by the chart's width
    subtitle = spec["title"]["subtitle"]
    lines = spec_value({**spec, "width": width}, subtitle["expr"]) if isinstance(subtitle, dict) else subtitle
    lines = [lines] if isinstance(lines, str) else lines
    assert any("t = h = w" in line.replace("\u00a0", " ") for line in lines), lines


def test_the_sequence_charts_row_steps_are_drawn_over_the_column_sawtooth():
    """A canvas draws a mark's rows in the data's order, the last on top. On a phone's plot the column (w) positions,
    0 … cols − 1 again and again, fill a band that hid the row (h) steps drawn before them: the video's dots come
    column first, then row, then time, each axis's dots together."""
    spec = sequence_spec(4, 4, 4, 12, 16)
    video_dots = spec["layer"][3]
    axes = unit_rows(spec, video_dots, vis_text_before="4", vis_text_after="4")["axis"].tolist()
    runs = [a for i, a in enumerate(axes) if i == 0 or axes[i - 1] != a]
    assert runs == ["column (w)", "row (h)", "time (t)"]


@pytest.mark.parametrize(
    "frames, rows, cols", [(4, 12, 16), (1, 2, 3), (16, 64, 64), (3, 1, 1)]
)  # the default video; an image; the largest video (every 44th token drawn); a 1 × 1 grid over 3 frames
@pytest.mark.parametrize("before, after", [(0, 0), (5, 4), (64, 0), (0, 64), (17, 33)])
def test_the_sequence_chart_in_the_browser_numbers_every_token_as_qwen2vl_does(frames, rows, cols, before, after):
    """The chart starts elsewhere (2 and 9 text tokens); with its sliders at `before` and `after`, every dot it draws
    is posenc.qwen2vl_position_ids' position of that token on that axis (the whole text, video, text sequence
    numbered at once), every text token is drawn, every video token drawn is one of the video's, and the segments'
    shading covers exactly the text before, the video and the text after (an empty one left out)."""
    spec = sequence_spec(2, 9, frames, rows, cols)
    dots, spans = sequence_drawn(spec, before, after)
    pos = posenc.qwen2vl_position_ids([("text", before), ("video", frames, rows, cols), ("text", after)])
    n_vis = frames * rows * cols
    axes = {"time (t)": 0, "row (h)": 1, "column (w)": 2}
    want = [int(pos[axes[a], i]) for i, a in zip(dots["index"], dots["axis"], strict=True)]
    assert dots["position"].tolist() == want
    in_video = (dots["index"] >= before) & (dots["index"] < before + n_vis)
    assert (dots["segment"] == np.where(in_video, "image or video", "text")).all()
    text_indices = sorted(set(dots.loc[~in_video, "index"]))
    assert text_indices == [*range(before), *range(before + n_vis, before + n_vis + after)]
    assert (dots.groupby("index")["axis"].count() == 3).all()  # t, h and w for every token drawn
    stride = max(1, math.ceil(n_vis / 1500))
    assert sorted(set(dots.loc[in_video, "index"] - before)) == list(range(0, n_vis, stride))
    expected = [["text", -0.5, before - 0.5]] if before else []
    expected += [["image or video", before - 0.5, before + n_vis - 0.5]]
    expected += [["text", before + n_vis - 0.5, before + n_vis + after - 0.5]] if after else []
    assert spans == expected


def test_the_sequence_charts_sliders_title_and_words():
    """Its two sliders are the registry's text counts (0 … 64, starting at the page's); the title, computed in the
    browser, names the counts the sliders hold; the description names neither."""
    spec = sequence_spec(5, 4, 4, 12, 16)
    everywhere = [*spec.get("params", []), *(p for layer in spec["layer"] for p in layer.get("params", []))]
    params = {p["name"]: p for p in everywhere if "bind" in p}
    assert list(params) == ["vis_text_after", "vis_text_before"]  # Vega lists them in reverse: before first on screen
    assert [(p["value"], p["bind"]["min"], p["bind"]["max"]) for p in params.values()] == [(4, 0, 64), (5, 0, 64)]
    title = spec["title"]["text"]["expr"]
    shown = spec_value({**spec, "width": 600}, title, vis_text_before="12", vis_text_after="0")
    assert shown == "M-RoPE positions: 12 text, a 4 × 12 × 16 video, 0 text"
    narrow = spec_value({**spec, "width": 300}, title, vis_text_before="3", vis_text_after="64")
    assert narrow == ["M-RoPE positions: 3 text,", "a 4 × 12 × 16 video, 64 text"]  # two lines on a phone
    assert "5" not in spec["description"] and "4 text" not in spec["description"]
    with pytest.raises(ValueError, match="text_before and text_after"):
        sequence_spec(65, 0, 1, 2, 3)


# --- a new resolution: both sides live in the chart ----------------------------------------------------
def resolution_spec(m, train: int = 16, new: int = 32, **kw) -> dict:
    from explorer.compute import vision as compute
    from explorer.vocabulary import NEW_GRIDS, TRAINED_GRIDS

    kw.setdefault("domain", None)
    chart = charts.live_resolution_chart(
        compute.resolution_axis(m), trained=TRAINED_GRIDS, new=NEW_GRIDS, train=train, new_side=new,
        description="d", **kw,
    )  # fmt: skip
    return sent_spec(chart)


def resolution_drawn(spec: dict, ti: int, ni: int) -> tuple[list[np.ndarray], pd.DataFrame]:
    """What the browser draws with the sliders at option indices (ti, ni): each heatmap's grid (the cells layer's
    transforms as sent, evaluated here) and the ticks' rows."""
    sliders = {"vis_train": str(ti), "vis_new": str(ni)}
    grids = []
    for k, panel in enumerate(spec["vconcat"][1]["concat"]):
        (cells,) = [v for v in panel["layer"] if v.get("name", "").startswith(f"res_cells_{k}")]
        df = unit_rows(spec, cells, **sliders)
        n = int(math.isqrt(len(df)))
        assert n * n == len(df) and (df["panel"].astype(int) == k).all()
        grid = np.full((n, n), np.nan)
        grid[df["r"].astype(int), df["c"].astype(int)] = df["s"].astype(float)
        grids.append(grid)
    (ticks,) = find(spec["vconcat"][0], "tick")
    return grids, unit_rows(spec, ticks, **sliders)


RES_MODELS = ("qwen2.5-vl-7b", "rope-vit-b16", (32, 500.0))


@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_the_resolution_chart_in_the_browser_draws_posencs_scores_and_positions(data):
    """At random models and sliders: each heatmap the chart computes in the browser (one axis's share looked up twice
    and added) is posenc's axial 2D score of the centre patch (explorer.compute.vision.resolution_scores, which calls
    posenc.axial_rope_angles and posenc.angle_scores) on the trained grid, the new one as is and the new one
    interpolated; the ticks stand at 0 … n − 1 (× train/new for the interpolated row), those past the last trained
    position marked; the titles name both sides."""
    from explorer.compute import vision as compute
    from explorer.vocabulary import NEW_GRIDS, TRAINED_GRIDS
    from posenc.mrope import VISION_PRESETS

    which = data.draw(st.sampled_from(RES_MODELS))
    m = compute.Model.of(None, *which) if isinstance(which, tuple) else compute.Model.of(VISION_PRESETS[which])
    spec = resolution_spec(m)
    ti, ni = data.draw(st.integers(0, len(TRAINED_GRIDS) - 1)), data.draw(st.integers(0, len(NEW_GRIDS) - 1))
    train, new = TRAINED_GRIDS[ti], NEW_GRIDS[ni]
    grids, ticks = resolution_drawn(spec, ti, ni)
    want = compute.resolution_scores(train, new, m)
    for got, name in zip(grids, ("trained", "as is", "interpolated"), strict=True):
        assert got.shape == want[name].shape, name
        np.testing.assert_allclose(got, want[name], rtol=0, atol=1e-12, err_msg=name)
    for g, n, scale in ((0, train, 1.0), (1, new, 1.0), (2, new, train / new)):
        row = ticks[ticks["g"].astype(int) == g].sort_values("i")
        expected = [i * scale for i in range(n)]  # by hand: patch i's row position
        assert row["position"].astype(float).tolist() == pytest.approx(expected, abs=1e-12), g
        assert row["within"].tolist() == [p <= train - 1 for p in expected], g
    sliders = {"vis_train": str(ti), "vis_new": str(ni)}
    titles = [spec_value(spec, p["title"]["text"]["expr"], **sliders) for p in spec["vconcat"][1]["concat"]]
    assert titles == [
        [f"Trained, {train} × {train}", "positions 0, 1, 2 and on"],
        [f"{new} × {new}, as is", "positions 0, 1, 2 and on"],
        [f"{new} × {new}, interpolated", f"positions × {train}/{new}"],
    ]


def test_the_resolution_chart_draws_posencs_scores_at_every_pair_of_sides_rows_turned_last():
    """Every (trained, new) pair of the registry's sides, for RoPE-ViT (its axial pairs turn the column first): each
    heatmap the browser computes is posenc's axial 2D score of the centre patch, computed here from posenc's angles."""
    from explorer.compute import vision as compute
    from explorer.vocabulary import NEW_GRIDS, TRAINED_GRIDS
    from posenc.mrope import VISION_PRESETS

    m = compute.Model.of(VISION_PRESETS["rope-vit-b16"])
    assert m.axial_first != "row"
    spec = resolution_spec(m)
    inv = posenc.axial_inverse_frequencies(m.head_dim, base=m.base)
    for ti, train in enumerate(TRAINED_GRIDS):
        for ni, new in enumerate(NEW_GRIDS):
            grids, _ = resolution_drawn(spec, ti, ni)
            for got, (n, s) in zip(grids, ((train, 1.0), (new, 1.0), (new, train / new)), strict=True):
                a = posenc.axial_rope_angles(n, n, inv, first=m.axial_first, row_scale=s, col_scale=s)
                want = posenc.angle_scores(a[[(n // 2) * n + n // 2]], a)[0].reshape(n, n)
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"{train} {new} × {s}")


def test_the_resolution_chart_keeps_the_centre_of_an_odd_grid():
    """Sides that are odd (none of the registry's are): the query is patch (n // 2, n // 2) as posenc's centre, the
    keys' offsets −(n // 2) … n − 1 − n // 2; the table and the chart agree on the options they are made for, and a
    table of other options is refused by name."""
    from explorer.compute import vision as compute

    trained, new = (7, 9, 15), (5, 9, 13, 31, 63)
    m = compute.Model.of(None, 32, 500.0)
    axis = compute.resolution_axis(m, trained, new)
    kw = dict(trained=trained, new=new, domain=None, description="d")
    spec = sent_spec(charts.live_resolution_chart(axis, train=9, new_side=13, **kw))
    inv = posenc.axial_inverse_frequencies(32, base=500.0)
    for ti, train in enumerate(trained):
        for ni, side in enumerate(new):
            grids, _ = resolution_drawn(spec, ti, ni)
            for got, (n, s) in zip(grids, ((train, 1.0), (side, 1.0), (side, train / side)), strict=True):
                a = posenc.axial_rope_angles(n, n, inv, row_scale=s, col_scale=s)
                want = posenc.angle_scores(a[[(n // 2) * n + n // 2]], a)[0].reshape(n, n)
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-12, err_msg=f"{train} {side} × {s}")
    with pytest.raises(ValueError, match="axis"):
        charts.live_resolution_chart(compute.resolution_axis(m), train=9, new_side=13, **kw)


def test_the_resolution_charts_sliders_run_over_the_registrys_sides():
    """Its two sliders are the registry's vis_train and vis_new over their options' indices, starting where asked;
    a side that is not an option is refused by name; the description names no side (the sliders set them)."""
    from explorer.compute import vision as compute
    from explorer.site.vision import PAGE
    from posenc.mrope import VISION_PRESETS

    options = {p.key: p.options for p in PAGE.params if p.key in charts.RES_PARAMS}
    spec = resolution_spec(compute.Model.of(VISION_PRESETS["qwen2.5-vl-7b"]), train=24, new=56)
    bound = {p["name"]: p for p in spec["params"] if "bind" in p}
    assert set(bound) == set(charts.RES_PARAMS)
    for key, start in (("vis_train", 24), ("vis_new", 56)):
        assert bound[key]["value"] == options[key].index(start)  # the option's index: the slider runs over them
        assert (bound[key]["bind"]["min"], bound[key]["bind"]["max"]) == (0, len(options[key]) - 1)
    assert spec["description"] == "d"
    with pytest.raises(ValueError, match="vis_new"):
        resolution_spec(compute.Model.of(VISION_PRESETS["qwen2.5-vl-7b"]), new=30)
    phone = resolution_spec(compute.Model.of(VISION_PRESETS["qwen2.5-vl-7b"]), phone=True)
    assert phone["vconcat"][1]["columns"] == 1 and spec["vconcat"][1]["columns"] == 3  # one heatmap a row on a phone


@pytest.mark.parametrize(
    "builder, bad",
    [
        (
            lambda df: charts.live_sequence_chart(
                df,
                n_vis=1,
                span=1,
                text_before=0,
                text_after=0,
                most_text=4,
                title_words=("a", "b"),
                subtitle=None,
                description="d",
            ),
            pd.DataFrame({"index": [0]}),
        ),
        (
            lambda df: charts.live_resolution_chart(
                df, trained=(8,), new=(8,), train=8, new_side=8, domain=None, description="d"
            ),
            pd.DataFrame({"key": [0]}),
        ),
    ],
)
def test_builders_name_missing_columns(builder, bad):
    with pytest.raises(ValueError, match="columns"):
        builder(bad)


# --- the query heatmaps: the query patch lives in the chart ----------------------------------------
D, B = 16, 100.0
SCHEMES = ("raster", "axial", "contiguous", "interleaved")
AXES = {"contiguous": [0, 0, 1, 1, 1, 2, 2, 2], "interleaved": [0, 1, 2, 0, 1, 2, 0, 0]}  # [2,3,3] / [4,2,2]


def scheme_angles(rows, cols, frames):
    """Every patch's angles under each scheme (posenc), frame by frame, row by row."""
    inv = posenc.inverse_frequencies(D, base=B)
    vision = posenc.qwen2vl_position_ids([("video", frames, rows, cols)])
    return {
        "raster": posenc.rope_angles(np.arange(frames * rows * cols), inv),
        "axial": np.tile(
            posenc.axial_rope_angles(rows, cols, posenc.axial_inverse_frequencies(D, base=B)), (frames, 1)
        ),
        "contiguous": posenc.mrope_angles(vision, inv, [2, 3, 3]),
        "interleaved": posenc.mrope_angles(vision, inv, [4, 2, 2], interleaved=True),
    }


def reference(scheme, rows, cols, query, frame) -> np.ndarray:
    """The similarity of the query (frame 0) with every patch of `frame`, pair by pair with math."""
    inv = [B ** (-2 * j / D) for j in range(D // 2)]
    inv_ax = [B ** (-4 * i / D) for i in range(D // 4)] * 2
    out = np.zeros((rows, cols))
    for r in range(rows):
        for c in range(cols):
            dt, dr, dc = frame, r - query[0], c - query[1]
            if scheme == "raster":
                deltas, freqs = [dt * rows * cols + dr * cols + dc] * (D // 2), inv
            elif scheme == "axial":
                deltas, freqs = [dr] * (D // 4) + [dc] * (D // 4), inv_ax
            else:
                deltas, freqs = [(dt, dr, dc)[a] for a in AXES[scheme]], inv
            out[r, c] = sum(math.cos(x * t) for x, t in zip(deltas, freqs)) / len(freqs)
    return out


#: The widest grid of the charts built here (the page's is 64: explorer.compute.vision.WIDEST).
G = 6


def grid_tables(frames: int) -> dict:
    """Every score the chart looks up for any grid up to G × G and any of `frames` frames (posenc, as
    explorer.compute.vision.grid_tables arranges them): raster order's scores by position offset; the 2-D schemes'
    offset tables of the G × G grid in frame 0, and M-RoPE's share of each frame."""
    angles = scheme_angles(G, G, frames)
    inv = posenc.inverse_frequencies(D, base=B)
    span = np.arange(1 - G * G, frames * G * G)
    raster = [
        posenc.angle_scores(posenc.rope_angles([max(0, -x)], inv), posenc.rope_angles([max(0, x)], inv))[0, 0]
        for x in span
    ]
    out = {"raster": charts.Lookup(positions=pd.Series(raster, index=span))}
    out["axial"] = charts.Lookup(offsets=posenc.offset_scores(angles["axial"], G, G))
    for name in SCHEMES[2:]:
        corner = angles[name][:: G * G]  # patch (0, 0) of each frame
        time = posenc.angle_scores(corner[[0]], corner)[0]
        out[name] = charts.Lookup(
            offsets=posenc.offset_scores(angles[name], G, G), frames=pd.Series(time - time[0], index=range(frames))
        )
    return out


#: The most frames of the charts built here (the page's: explorer.compute.vision.MAX_FRAMES).
MOST = 3


def live_chart(rows=4, cols=5, frame=1, query=(1, 3), frames=MOST, **kw):
    kw.setdefault("notes", {"raster": ["line one", "line two"]})
    kw.setdefault("domain", None)
    kw.setdefault("description", "what it shows")
    chart = charts.query_heatmaps(grid_tables(MOST), grid=(rows, cols), query=query, frame=frame, frames=frames, **kw)
    return sent_spec(chart)


def cells_of(panel: dict) -> dict:
    (cells,) = [layer for layer in panel["layer"] if any("filter" in t for t in layer.get("transform", []))]
    return cells


def at(grid: tuple[int, int], query: tuple[int, int], frame: int = 1, frames: int = MOST) -> dict:
    """The chart's own sliders at `grid` (rows, cols), `query` (row, column), `frames` (the video's) and `frame`."""
    return dict(zip(charts.LIVE_PARAMS, (*grid, *query, frames, frame), strict=True))


def shown(
    spec: dict, panel: int, query: tuple[int, int], grid: tuple[int, int], frame: int = 1, frames: int = MOST
) -> np.ndarray:
    """Panel `panel`'s heatmap as the browser computes it with the sliders at `grid`, `query`, `frames` and
    `frame`."""
    df = unit_rows(spec, cells_of(spec["concat"][panel]), **at(grid, query, frame, frames))
    rows, cols = grid
    assert len(df) == rows * cols  # one mark per patch of the grid
    out = np.full((rows, cols), np.nan)
    out[df["vis_qrow"].astype(int), df["vis_qcol"].astype(int)] = df["s"]
    return out


def test_the_browser_shows_every_grids_querys_and_frames_scores():
    """For several grids, queries and frames the in-chart sliders reach, every panel's patches (the transforms as
    sent, evaluated here: each patch's score looked up) equal the scheme's formula, re-typed, and
    posenc.angle_scores of that grid, query and frame."""
    spec = live_chart(frame=0, query=(0, 0), frames=3)
    for key_frame in (0, 1, 2):
        for rows, cols in ((4, 5), (3, 3), (1, 6), (1, 1), (G, G), (G, 2)):
            angles = scheme_angles(rows, cols, 3)
            n = rows * cols
            for query in {(0, 0), (rows - 1, cols - 1), (rows // 2, cols // 3), (rows - 1, 0)}:
                for i, scheme in enumerate(SCHEMES):
                    got = shown(spec, i, query, (rows, cols), key_frame)
                    want = reference(scheme, rows, cols, query, key_frame)
                    where = f"{scheme} {rows}x{cols} {query} frame {key_frame}"
                    np.testing.assert_allclose(got, want, atol=1e-12, err_msg=where)
                    direct = posenc.angle_scores(
                        angles[scheme][[query[0] * cols + query[1]]],
                        angles[scheme][key_frame * n : (key_frame + 1) * n],
                    )
                    np.testing.assert_allclose(got.ravel(), direct[0], atol=1e-12, err_msg=where)


def test_the_videos_frames_are_a_slider_and_a_frame_past_the_video_reads_as_its_last():
    """The video's number of frames is the chart's own slider (1 … the most the tables hold): at 1 frame (a still image) every
    frame slider value shows frame 0 and the title says so; at 2 frames the frame slider's last value shows frame 1.
    The page narrows the frame slider to the video in the browser (explorer.liveparam); these are its values past
    that, as a drag of the video's length leaves them."""
    spec = live_chart(frame=0, query=(1, 1), frames=1)
    for frames, slider, key_frame in ((1, 0, 0), (1, 2, 0), (2, 2, 1), (2, 1, 1), (MOST, 2, 2)):
        for i, scheme in enumerate(SCHEMES):
            for grid in ((4, 5), (G, G)):
                want = reference(scheme, *grid, (1, 1), key_frame)
                got = shown(spec, i, (1, 1), grid, slider, frames)
                np.testing.assert_allclose(got, want, atol=1e-12, err_msg=f"{scheme} {frames} {slider}")
    params = {p["name"]: p for p in spec["params"] if "bind" in p}
    assert (params["vis_frame"]["bind"]["min"], params["vis_frame"]["bind"]["max"]) == (0, MOST - 1)
    assert (params["vis_frames"]["bind"]["min"], params["vis_frames"]["bind"]["max"]) == (1, MOST)
    assert params["vis_frames"]["value"] == 1
    title = spec_value(spec, spec["title"]["text"]["expr"], **at((4, 5), (1, 1), 2, 1))
    assert title[1] == "keys in the same frame (a still image)"
    title = spec_value(spec, spec["title"]["text"]["expr"], **at((4, 5), (1, 1), 2, 2))
    assert title[1] == "keys in frame 1 (frames 0 … 1)"
    with pytest.raises(ValueError, match="frames must be in 1 … 3, the most the tables hold"):
        live_chart(frames=4)
    # the slider spans the frames the tables hold: tables of two frames, a slider of two
    words = dict(notes={}, grid=(2, 2), query=(0, 0), frame=0, domain=None, description="")
    two = sent_spec(charts.query_heatmaps(grid_tables(2), frames=1, **words))
    (slider,) = [p for p in two["params"] if p["name"] == "vis_frames"]
    assert (slider["bind"]["min"], slider["bind"]["max"]) == (1, 2)
    with pytest.raises(ValueError, match="frames must be in 1 … 2, the most the tables hold, got 3"):
        charts.query_heatmaps(grid_tables(2), frames=3, **words)


def test_a_lookup_reads_only_offsets_on_the_grid():
    table = grid_tables(1)["axial"]
    dr, dc = np.meshgrid(np.arange(-2, 3), np.arange(-1, 2), indexing="ij")
    # offsets −2 … 2 rows and −1 … 1 columns: a 5 × 3 grid's keys around its patch (2, 1), by the re-typed formula
    np.testing.assert_allclose(table.at(0, dr, dc, 3, 2), reference("axial", 5, 3, (2, 1), 0), atol=1e-12)
    with pytest.raises(ValueError, match="dr and dc must be offsets on the 2 × 2 grid"):
        table.at(0, dr, dc, 2, 2)
    with pytest.raises(ValueError, match=f"at most the widest grid's {G}"):
        table.at(0, np.zeros(1, int), np.zeros(1, int), G + 1, 1)


def test_the_grid_the_query_and_the_frame_are_the_charts_own_sliders_and_a_click_on_a_patch():
    spec = live_chart(rows=4, cols=5, query=(1, 3), frame=1, frames=3)
    params = {p["name"]: p for p in spec["params"] if "select" in p}
    # Vega lists bound inputs in reverse: the grid, the query, the video's frames, the frame on screen
    assert list(params) == ["vis_frame", "vis_frames", "vis_qcol", "vis_qrow", "vis_cols", "vis_rows"]
    for key, start, lo, top in (
        ("vis_rows", 4, 1, G),
        ("vis_cols", 5, 1, G),
        ("vis_qrow", 1, 0, G - 1),
        ("vis_qcol", 3, 0, G - 1),
        ("vis_frames", 3, 1, MOST),
        ("vis_frame", 1, 0, MOST - 1),
    ):
        p = params[key]
        assert p["value"] == start and p["views"] == ["vis_cells_0"]
        assert p["select"]["type"] == "point" and p["select"]["fields"] == [key]
        assert p["select"]["clear"] is False
        # a click sets the query from the patch's own field; nothing but its slider sets the grid or the frames
        assert p["select"]["on"] == (charts.PATCH_CLICK if key in charts.QUERY_PARAMS else "none")
        assert (p["bind"]["input"], p["bind"]["min"], p["bind"]["max"], p["bind"]["step"]) == ("range", lo, top, 1)
    # every patch of the grid carries its row and column under the parameters' names (what a click reads)
    df = unit_rows(spec, cells_of(spec["concat"][2]), **at((4, 5), (0, 0)))
    assert sorted(zip(df["vis_qrow"], df["vis_qcol"])) == [(r, c) for r in range(4) for c in range(5)]
    assert "isValid(event.item.datum.vis_qrow)" in charts.PATCH_CLICK["filter"][0]  # a click elsewhere: ignored
    # the ring and the title follow the query and the frame in the browser
    for panel in spec["concat"]:
        for ring in [layer for layer in panel["layer"] if layer["mark"].get("filled") is False]:
            row = unit_rows(spec, ring, **at((4, 5), (2, 4))).iloc[0]
            assert (row["x0"], row["x1"], row["y0"], row["y1"]) == (3.5, 4.5, 1.5, 2.5)
            assert row["patch"] == "the query's place (it is in frame 0)"
            assert unit_rows(spec, ring, **at((4, 5), (2, 4), 0)).iloc[0]["patch"] == "the query"
            if ring["mark"]["stroke"] != "#FFFFFF":  # the line on its white halo: dashed where the query is not
                dash = ring["mark"]["strokeDash"]["expr"]
                assert spec_value(spec, dash, **at((4, 5), (2, 4), 2)) == [3, 2]
                assert spec_value(spec, dash, **at((4, 5), (2, 4), 0)) == []
            else:
                assert "strokeDash" not in ring["mark"]
    title = spec_value(spec, spec["title"]["text"]["expr"], **at((4, 5), (2, 4)))
    assert title == ["Query patch (row 2, column 4)", "keys in frame 1 (frames 0 … 2)"]
    title = spec_value(spec, spec["title"]["text"]["expr"], **at((4, 5), (2, 4), 0))
    assert title == ["Query patch (row 2, column 4)", "keys in the same frame (frames 0 … 2)"]
    assert spec["description"] == "what it shows"
    assert [p["title"]["text"] for p in spec["concat"]] == list(SCHEMES)
    assert spec["concat"][0]["title"]["subtitle"] == ["line one", "line two"]


def test_colour_ranges():
    own = live_chart()
    assert own["resolve"]["scale"]["color"] == "independent"  # each panel's own lowest … highest, in the browser
    assert cells_of(own["concat"][0])["encoding"]["color"]["scale"]["scheme"] == "viridis"
    fixed = live_chart(domain=(-1.0, 1.0))
    assert "resolve" not in fixed
    scale = cells_of(fixed["concat"][3])["encoding"]["color"]["scale"]
    assert scale["scheme"] == "redblue" and scale["domain"] == [-1.0, 1.0]


def test_the_data_sent_once_holds_every_grid_video_length_and_frame():
    """The ring's row, every patch of the widest grid (once, for every panel), and one lookup table: raster order's
    scores at every position offset of the longest video, three (2G − 1)² offset tables and M-RoPE's share of each
    of its frames, rather than every grid's, query's and frame's heatmaps: the same at every video length. Drawn on
    a canvas."""
    for frames in (1, 3):
        spec = live_chart(frame=0, frames=frames)
        raster = (MOST + 1) * G * G - 1  # Δp = −(G² − 1) … MOST·G² − 1
        want = [1, G * G, raster + 3 * (2 * G - 1) ** 2 + 2 * MOST]
        assert sorted(len(rows_) for rows_ in spec["datasets"].values()) == want
        assert spec["usermeta"]["embedOptions"]["renderer"] == "canvas"
    table = charts.lookup_table(
        {
            "a": charts.Lookup(positions=pd.Series([0.5, 0.25], index=[-1, 0])),
            "b": charts.Lookup(offsets=np.arange(9.0).reshape(3, 3), frames=pd.Series([0.0, -0.5], index=[0, 1])),
        }
    )
    assert table["key"].tolist() == [0, 1, *(charts.KEY_BLOCK + k for k in range(11))]
    assert table["s"].tolist() == [0.5, 0.25, *range(9), 0.0, -0.5]
    assert str(table["key"].dtype) == "int32"  # a number in the browser (int64 would arrive as a BigInt)


def test_another_grid_query_or_video_length_changes_only_where_the_sliders_start():
    """The chart's spec and data depend on neither the grid, the query nor the video's length (issue #36): the
    browser keeps the chart when the page rebuilds it after a drag, and a new one differs only in its sliders' start
    values."""

    def without_starts(**kw):
        spec = live_chart(**kw)
        for p in spec["params"]:
            p.pop("value", None)
        return spec

    for columns, width in ((2, 300), (1, 260)):
        specs = [
            without_starts(rows=r, cols=c, query=q, frame=f, frames=n, columns=columns, panel_width=width)
            for (r, c), q, f, n in (
                ((4, 5), (0, 0), 0, 1),
                ((G, G), (5, 2), 2, 3),
                ((1, 6), (0, 5), 1, 2),
                ((6, 2), (3, 1), 0, 3),
            )
        ]
        assert all(other == specs[0] for other in specs[1:])
        assert {(p["width"], p["height"]) for p in specs[0]["concat"]} == {(width, charts.panel_height(width))}


def axis_place(spec: dict, grid: tuple[int, int]) -> dict:
    """The scale domains, axis values and offsets the browser computes for the grid `grid`."""
    cells = cells_of(spec["concat"][0])
    x, y = cells["encoding"]["x"], cells["encoding"]["y"]
    value = lambda e: spec_value(spec, e, **at(grid, (0, 0)))  # noqa: E731
    return {
        "x": value(x["scale"]["domain"]["expr"]),
        "y": value(y["scale"]["domain"]["expr"]),
        "x_values": value(x["axis"]["values"]["expr"]),
        "y_values": value(y["axis"]["values"]["expr"]),
        "x_offset": value(x["axis"]["offset"]["expr"]),
        "y_offset": value(y["axis"]["offset"]["expr"]),
    }


def test_the_panels_place_the_grid_in_the_browser():
    """The scale domains and axis ticks the browser computes from the grid's sliders: the default 12 × 16
    grid fills a 300 × 225 panel; a square grid is centred with equal room left and right; each axis is
    labelled at whole rows and columns of the grid only."""
    spec = live_chart(frame=0)
    place = axis_place(spec, (12, 16))
    assert place["x"] == [-0.5, 15.5] and place["y"] == [-0.5, 11.5]
    assert cells_of(spec["concat"][0])["encoding"]["y"]["scale"]["reverse"] is True  # row 0 at the top
    # a label at most every 36 px across (300 // 36 = 8 of them) and 30 px down (225 // 30 = 7)
    assert place["x_values"] == [0, 2, 4, 6, 8, 10, 12, 14] and place["y_values"] == [0, 2, 4, 6, 8, 10]
    square = axis_place(spec, (8, 8))
    assert square["y"] == [-0.5, 7.5]  # 225 px tall: 8 patches of 28.125 px
    assert square["x"][0] == pytest.approx(-0.5 - (300 / 28.125 - 8) / 2) and sum(square["x"]) == pytest.approx(7.0)
    assert square["x_values"] == [0, 2, 4, 6]  # 225 px of grid: room for 225 // 36 = 6 labels, so every second column


@functools.cache
def placed_chart(width: int) -> dict:
    """A chart `width` px a panel (built once: only the grid's sliders move in the test below)."""
    return live_chart(frame=0, panel_width=width)


@settings(deadline=None)  # the first example builds the chart
@given(rows=st.integers(1, 64), cols=st.integers(1, 64), width=st.sampled_from([260, 300]))
def test_the_grid_is_placed_with_square_patches_centred(rows, cols, width):
    spec = placed_chart(width)
    height = charts.panel_height(width)
    f = axis_place(spec, (rows, cols))
    (x_lo, x_hi), (y_lo, y_hi) = f["x"], f["y"]
    px_col, px_row = width / (x_hi - x_lo), height / (y_hi - y_lo)  # pixels per column and per row
    box_w, box_h = cols * px_col, rows * px_row
    assert box_w <= width + 1e-9 and box_h <= height + 1e-9  # the grid is inside the panel
    assert max(box_w / width, box_h / height) == pytest.approx(1.0)  # as large as fits
    assert min(box_w, box_h) >= min(charts.LEAST_SIDE, height) - 1e-9
    if min(rows * min(width / cols, height / rows), cols * min(width / cols, height / rows)) >= charts.LEAST_SIDE:
        assert px_col == pytest.approx(px_row)  # square patches
    assert x_lo + x_hi == pytest.approx(cols - 1) and y_lo + y_hi == pytest.approx(rows - 1)
    # labels at whole columns and rows of the grid, from 0, at most one per 36 px across and 30 px down
    for values, count, box, px in ((f["x_values"], cols, box_w, 36), (f["y_values"], rows, box_h, 30)):
        assert values[0] == 0 and values[-1] < count and len(set(np.diff(values))) <= 1
        assert len(values) <= max(1, (box + 1e-9) // px)  # box: rebuilt from the domain, to rounding
    # the axes sit at the grid's edges: moved inwards by the room between the panel's edge and the grid
    assert f["y_offset"] == pytest.approx(-(-0.5 - x_lo) * px_col)
    assert f["x_offset"] == pytest.approx(-(y_hi - (rows - 0.5)) * px_row)


def test_a_slider_past_the_grids_edge_reads_as_the_edge():
    """The query sliders span the widest grid; on a smaller one a value past its last row or column shows
    that row or column (the page narrows the sliders in the browser at once)."""
    spec = live_chart(rows=4, cols=5, frame=0, query=(1, 3))
    np.testing.assert_allclose(shown(spec, 1, (5, 5), (4, 5)), reference("axial", 4, 5, (3, 4), 0), atol=1e-12)
    ring = next(layer for layer in spec["concat"][0]["layer"] if layer["mark"].get("filled") is False)
    row = unit_rows(spec, ring, **at((4, 5), (5, 5))).iloc[0]
    assert (row["x0"], row["y0"]) == (3.5, 2.5)
    assert spec_value(spec, spec["title"]["text"]["expr"], **at((4, 5), (5, 5)))[0] == "Query patch (row 3, column 4)"


def test_a_lookup_holds_positions_or_offsets():
    for bad in (
        dict(),
        dict(positions=pd.Series([1.0]), offsets=np.zeros((3, 3))),
        dict(positions=pd.Series([1.0]), frames=pd.Series([0.0])),
    ):
        with pytest.raises(ValueError, match="positions, or offsets"):
            charts.Lookup(**bad)
    with pytest.raises(ValueError, match=r"offsets: an offset table has shape \(2·G − 1, 2·G − 1\), got \(4, 4\)"):
        charts.Lookup(offsets=np.zeros((4, 4)))


@pytest.mark.parametrize(
    "tables, grid, query, frame, words",
    [
        ({}, (1, 1), (0, 0), 0, "at least one"),
        ({"a": np.zeros((3, 3)), "b": np.zeros((5, 5))}, (1, 1), (0, 0), 0, "one widest grid"),
        ({"a": pd.Series([1.0])}, (1, 1), (0, 0), 0, "one widest grid"),
        ({"a": np.zeros((3, 3))}, (3, 1), (0, 0), 0, r"grid must be in 1 … 2 × 1 … 2, got \(3, 1\)"),
        ({"a": np.zeros((3, 3))}, (2, 2), (2, 0), 0, r"query must be in 0 … 1 × 0 … 1, got \(2, 0\)"),
        ({"a": np.zeros((3, 3))}, (2, 2), (1, 0), 2, r"frame must be in 0 … frames − 1 = 1, got 2"),
    ],
)
def test_query_heatmaps_check_their_input(tables, grid, query, frame, words):
    lookups = {
        k: charts.Lookup(positions=v) if isinstance(v, pd.Series) else charts.Lookup(offsets=v)
        for k, v in tables.items()
    }
    with pytest.raises(ValueError, match=words):
        charts.query_heatmaps(
            lookups,
            notes={},
            grid=grid,
            query=query,
            frame=frame,
            frames=2,
            domain=None,
            description="d",
        )


def test_a_phone_gets_one_heatmap_per_row():
    """Two per row by default; one per row for a phone (a compound chart cannot reflow: two would be
    scaled down to unreadable text); no other count."""
    assert live_chart()["columns"] == 2
    assert live_chart(columns=1, panel_width=260)["columns"] == 1
    assert {p["width"] for p in live_chart(columns=1, panel_width=260)["concat"]} == {260}
    with pytest.raises(ValueError, match="columns must be 1 or 2, got 3"):
        live_chart(columns=3)


def test_the_sequence_charts_segments_are_dark_tints_on_the_dark_card():
    """On the dark theme the segments under the dots were the light card's pale shades kept pale (a scale's range): a
    bright yellow slab under the video, on which the orange and blue dots fell under 2:1. There each band is a tint one
    step off the card, every axis's dots stand out on it more than on the pale shade, and the light card keeps its
    shades."""
    from explorer.charts.style import DARK_BACKGROUND, style_spec

    light, dark = (style_spec(sequence_spec(4, 4, 4, 12, 16), dark=d) for d in (False, True))
    assert light["layer"][1]["encoding"]["fill"]["scale"]["range"] == list(charts.SEGMENT_COLORS.values())
    shade, dots = dark["layer"][1], dark["layer"][3]
    bands = shade["encoding"]["fill"]["scale"]["range"]
    dot_colors = dots["encoding"]["color"]["scale"]["range"]
    assert len(bands) == 2 and len(dot_colors) == 3
    for band, pale in zip(bands, charts.SEGMENT_COLORS.values(), strict=True):
        assert 1.1 <= contrast(band, DARK_BACKGROUND) <= 1.6, band  # seen on the card, not glaring
        for dot in dot_colors:
            assert contrast(dot, band) >= 2.2, (dot, band)
        assert min(contrast(dot, band) for dot in dot_colors) > min(contrast(dot, pale) for dot in dot_colors)
    # the swatches, one step off the card, are outlined legibly on both cards
    outline = shade["encoding"]["fill"]["legend"]["symbolStrokeColor"]
    assert min(contrast(outline, DARK_BACKGROUND), contrast(outline, "#FFFFFF")) >= 3


def test_the_heatmaps_on_the_dark_card_draw_redblue_dark_at_zero():
    """The heatmaps' red–blue (a fixed domain) is Vega's: its near-white zero, most patches far from the query, glared on
    the dark card. On the dark card Vega draws the dark card's red–blue (`style.DARK_DIVERGING`, the images' colours):
    the legend's middle, a score of 0, just off the card, its ends clearly off it; on the light card Vega's redblue, as
    it was; the viridis of a panel's own range is left as it is."""
    import json

    from _chartspec import diverging_on_dark, legend_stops

    from explorer.charts import style

    spec = live_chart(domain=(-1.0, 1.0))

    def stops(styled: dict) -> list[str]:  # the colour legend's gradient as Vega draws it, low to high
        return [colour for _, colour in legend_stops(styled)]

    dark, light = stops(style.style_spec(spec, dark=True)), stops(style.style_spec(spec))
    assert len(dark) == len(light) >= 3 and len(dark) % 2 == 1
    diverging_on_dark([dark[len(dark) // 2]], [dark[0], dark[-1]], style.DARK_BACKGROUND)
    assert [dark[0], dark[-1]] == [c.lower() for c in (style.DARK_REDBLUE[0], style.DARK_REDBLUE[-1])]
    assert (light[0], light[-1]) == ("#8c0d25", "#134b85")  # Vega's redblue on the light card
    assert '"viridis"' in json.dumps(style.style_spec(live_chart(domain=None), dark=True))
