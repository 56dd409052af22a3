"""The Images-and-video page through Streamlit's AppTest: defaults, the deep link, every preset, every
tab, every control at its maximum, garbage and out-of-range URL values, and the numbers it shows
(heatmap cells, tables, metrics, "What to notice") against values computed here from the formulas."""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import numpy as np
import pytest
from _apptest import metrics, run_page
from _chartspec import element_spec, find, frame
from streamlit.testing.v1 import AppTest

from explorer.site.vision import PAGE as DECL

PAGE = str(Path(__file__).resolve().parent.parent / DECL.script)
KEYS = tuple(p.key for p in DECL.params)
MAXIMUM = {
    "vis_model": "custom",
    "vis_head_dim": 256,
    "vis_base": 5000000,
    "vis_rows": 64,
    "vis_cols": 64,
    "vis_qrow": 63,
    "vis_qcol": 63,
    "vis_frames": 16,
    "vis_frame": 15,
    "vis_krow": 63,
    "vis_kcol": 63,
    "vis_train": 32,
    "vis_new": 64,
    "vis_text_before": 64,
    "vis_text_after": 64,
}
TITLES = {
    "qwen2.5-vl-7b": ("M-RoPE, contiguous [16, 24, 24]", "M-RoPE, interleaved [24, 20, 20]", 128, 1e6),
    "qwen3-vl-8b": ("M-RoPE, contiguous [16, 24, 24]", "M-RoPE, interleaved [24, 20, 20]", 128, 5e6),
    "rope-vit-b16": ("M-RoPE, contiguous [8, 12, 12]", "M-RoPE, interleaved [12, 10, 10]", 64, 100.0),
}


def run(at=None, **query):
    return run_page(PAGE, at, **query)


def specs(at) -> list[dict]:
    return [element_spec(c) for c in at.get("vega_lite_chart")]


def notices(at) -> str:
    return next(md.value for md in at.markdown if "What to notice" in md.value)


def cells(spec: dict) -> np.ndarray:
    """The exact value of every cell, from the heatmap's hover layer (one rect per cell)."""
    (hover,) = find(spec, "rect", opacity=0)
    df = frame(spec, hover)
    rows, cols = spec["usermeta"]["imagechart"]["shape"]
    out = np.full((rows, cols), np.nan)
    out[df["yv"].astype(int), df["xv"].astype(int)] = df["value"]
    return out


# --- independent references (formulas, not posenc) ---------------------------------------------
def thetas(d, b):
    return np.array([b ** (-2 * j / d) for j in range(d // 2)])


def mean_cos(deltas, inv):
    """(1/n) Σ_j cos(Δ_j θ_j) for per-pair position differences Δ_j."""
    return float(np.mean(np.cos(np.asarray(deltas) * inv)))


def axes_contiguous(section):
    return [0] * section[0] + [1] * section[1] + [2] * section[2]


def axes_interleaved(section, n):
    a = [0] * n
    for j in range(1, 3 * section[1], 3):
        a[j] = 1
    for j in range(2, 3 * section[2], 3):
        a[j] = 2
    return a


def expected_grids(rows, cols, q, frame, d, b, sec_c, sec_i, first="row"):
    inv = thetas(d, b)
    half = np.array([b ** (-4 * i / d) for i in range(d // 4)])
    inv_ax = np.concatenate([half, half])
    ax_c, ax_i = axes_contiguous(sec_c), axes_interleaved(sec_i, d // 2)
    out = {name: np.zeros((rows, cols)) for name in ("raster", "axial", "contiguous", "interleaved")}
    for r in range(rows):
        for c in range(cols):
            diff = (frame, r - q[0], c - q[1])  # t, h, w differences (query in frame 0)
            out["raster"][r, c] = mean_cos(np.full(d // 2, frame * rows * cols + (r - q[0]) * cols + c - q[1]), inv)
            by_half = [diff[1]] * (d // 4) + [diff[2]] * (d // 4)
            out["axial"][r, c] = mean_cos(by_half if first == "row" else by_half[::-1], inv_ax)
            out["contiguous"][r, c] = mean_cos([diff[a] for a in ax_c], inv)
            out["interleaved"][r, c] = mean_cos([diff[a] for a in ax_i], inv)
    return out


def assert_grids(at, rows, cols, q, frame, d, b, sec_c, sec_i, first="row"):
    shown = specs(at)
    assert len(shown) == 4
    want = expected_grids(rows, cols, q, frame, d, b, sec_c, sec_i, first)
    for spec, name in zip(shown, ("raster", "axial", "contiguous", "interleaved")):
        assert spec["usermeta"]["imagechart"]["shape"] == [rows, cols]
        np.testing.assert_allclose(cells(spec), want[name], atol=1e-9, err_msg=name)
        assert spec["description"].startswith(f"Heatmap over a {rows} by {cols} patch grid")
    return shown


def assert_page_complete(at):
    assert at.title[0].value == "Images and video"
    assert [t.label for t in at.tabs] == list(DECL.params[0].options)
    assert any("What to notice" in md.value for md in at.markdown)
    assert any(e.label == "Reproduce in Python" for e in at.expander)


# --- defaults ----------------------------------------------------------------------------------
def test_defaults_show_four_schemes_with_the_right_scores():
    at = run()
    assert_page_complete(at)
    assert not at.warning and not at.error
    shown = assert_grids(at, 12, 16, (5, 7), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))
    titles = [s["title"]["text"] for s in shown]
    assert titles == [
        "1D RoPE over the raster order",
        "Axial 2D RoPE (rows first)",
        "M-RoPE, contiguous [16, 24, 24]",
        "M-RoPE, interleaved [24, 20, 20]",
    ]
    assert metrics(at) == {"Head dimension d": "128", "Base b": "1,000,000"}
    want = expected_grids(12, 16, (5, 7), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))
    text = notices(at)
    assert f"similarity {want['raster'][6, 7]:.4f} against {want['raster'][5, 8]:.4f}" in text
    assert "patch below the query 16 positions away" in text
    assert f"Axial 2D: {want['axial'][6, 7]:.4f} and {want['axial'][5, 8]:.4f}" in text
    # across the row end: (5, 15) and (6, 0) are raster neighbours
    assert f"(1 apart), similarity {mean_cos(np.ones(64), thetas(128, 1e6)):.4f}" in text
    assert "raster order counts 192 positions per frame" in text


def test_own_range_and_fixed_range_colour_scales():
    own = specs(run())[0]["usermeta"]["imagechart"]
    fixed = specs(run(vis_colour="−1 … 1"))[0]["usermeta"]["imagechart"]
    assert own["scheme"] == "viridis" and own["domain"][1] == pytest.approx(1.0)
    assert fixed["scheme"] == "redblue" and fixed["domain"] == [-1.0, 1.0]


# --- the deep link, presets, frames --------------------------------------------------------------
def test_the_deep_link():
    at = run(**{k: str(v) for k, v in DECL.deep_link.query.items()})
    assert_page_complete(at)
    assert not at.warning
    q = DECL.deep_link.query
    assert at.slider(key="vis_qcol").value == q["vis_qcol"]
    shown = assert_grids(
        at,
        q["vis_rows"],
        q["vis_cols"],
        (q["vis_qrow"], q["vis_qcol"]),
        q["vis_frame"],
        32,
        100.0,
        (4, 6, 6),
        (6, 5, 5),
    )
    assert not find(shown[0], "point")  # the query is in frame 0, the keys shown in frame 1: no ring
    assert "every frame scores exactly like frame 0" in notices(at)


@pytest.mark.parametrize("model", list(TITLES))
def test_every_preset(model):
    at = run(vis_model=model)
    assert_page_complete(at)
    title_c, title_i, d, b = TITLES[model]
    shown = specs(at)
    assert [s["title"]["text"] for s in shown[2:]] == [title_c, title_i]
    sec_c = tuple(int(x) for x in title_c.split("[")[1].rstrip("]").split(", "))
    sec_i = tuple(int(x) for x in title_i.split("[")[1].rstrip("]").split(", "))
    first = "column" if model == "rope-vit-b16" else "row"
    assert_grids(at, 12, 16, (5, 7), 0, d, b, sec_c, sec_i, first)
    assert metrics(at)["Head dimension d"] == str(d)
    assert any(model.split("-")[0][:4].lower() in c.value.lower() for c in at.caption)  # the source is named


def test_custom_model_shows_its_own_controls():
    at = run(vis_model="custom", vis_head_dim=16, vis_base=1000)
    assert at.select_slider(key="vis_head_dim").value == 16 and not metrics(at)
    assert_grids(at, 12, 16, (5, 7), 0, 16, 1000.0, (2, 3, 3), (3, 3, 2))


def test_a_later_frame_turns_only_the_time_pairs():
    at = run(vis_frame=3)
    want = expected_grids(12, 16, (5, 7), 3, 128, 1e6, (16, 24, 24), (24, 20, 20))
    assert_grids(at, 12, 16, (5, 7), 3, 128, 1e6, (16, 24, 24), (24, 20, 20))
    same = expected_grids(12, 16, (5, 7), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))
    np.testing.assert_allclose(want["axial"], same["axial"])  # no time axis
    assert ", plus 3 whole frames of 192 (the keys are in frame 3)" in notices(at)


# --- the other tabs ------------------------------------------------------------------------------
def test_pairs_and_axes():
    at = run(vis_view="Pairs and axes")
    assert_page_complete(at)
    strip, _ = specs(at)
    df = frame(strip, find(strip, "rect")[0])
    counts = df.groupby(["scheme", "axis"]).size().to_dict()
    assert counts[("M-RoPE contiguous", "time (t)")] == 16
    assert counts[("M-RoPE interleaved", "row (h)")] == 20
    assert counts[("axial 2D", "column (w)")] == 32
    assert strip["title"]["subtitle"][1] == "M-RoPE sections: contiguous [16, 24, 24], interleaved [24, 20, 20]"
    inter = df[df["scheme"] == "M-RoPE interleaved"].sort_values("pair")
    assert inter["axis"].tolist()[:6] == ["time (t)", "row (h)", "column (w)"] * 2
    wl = 2 * math.pi / thetas(128, 1e6)
    text = notices(at)
    assert f"time has pairs 0–15, wavelengths {wl[0]:.3g}–{wl[15]:.3g}" in text
    assert f"width has pairs 40–63, wavelengths {wl[40]:.3g}–{wl[63]:.3g}" in text
    table = at.dataframe[0].value
    assert table["pairs"].sum() == 4 * 64


def test_shift_test_numbers():
    at = run(vis_view="Shift test", vis_krow=8, vis_kcol=12, vis_drow=2, vis_dcol=-5)
    assert_page_complete(at)
    table = at.dataframe[0].value.set_index("scheme")
    assert (table["shifted by Δ"] - table["q, k"]).abs().max() < 1e-12
    inv = thetas(128, 1e6)
    # raster: offset 3·16 + 5 = 53 on a 16-wide grid, 3·17 + 5 = 56 on a 17-wide one
    assert table.loc["raster 1D", "q, k"] == pytest.approx(mean_cos(np.full(64, 53), inv), abs=1e-12)
    assert table.loc["raster 1D", "grid 17 wide"] == pytest.approx(mean_cos(np.full(64, 56), inv), abs=1e-12)
    others = table.loc[["axial 2D", "M-RoPE contiguous", "M-RoPE interleaved"]]
    assert (others["grid 17 wide"] == others["q, k"]).all()
    text = notices(at)
    assert "3·16 + 5 = 53" in text and "are 56 apart" in text
    (diagram,) = specs(at)
    (dots,) = find(diagram, "circle")
    assert frame(diagram, dots)[["row", "col"]].values.tolist() == [[5, 7], [8, 12], [7, 2], [10, 7]]


def test_shift_is_clamped_to_keep_both_patches_on_the_grid():
    at = run(vis_view="Shift test", vis_drow=40, vis_dcol=-40)
    assert at.slider(key="vis_drow").value == 12 - 1 - 8  # key row 8 is the lower patch
    assert at.slider(key="vis_dcol").value == -7  # query column 7 is the left one
    assert any("vis\\_drow" in w.value for w in at.warning)


def test_resolution_numbers():
    at = run(vis_view="Resolution", vis_train=16, vis_new=32)
    assert_page_complete(at)
    _, *heatmaps = specs(at)
    assert [h["usermeta"]["imagechart"]["shape"] for h in heatmaps] == [[16, 16], [32, 32], [32, 32]]
    text = notices(at)
    assert "768 of its 1,024 patches (75%)" in text
    assert "largest position is 15.5, 0.5 past the last trained one (15)" in text
    inv = np.concatenate([[1e6 ** (-4 * i / 128) for i in range(32)]] * 2)
    near = mean_cos([0] * 32 + [0.5] * 32, inv)
    assert f"right-hand neighbour scores {near:.4f}" in text
    smaller = notices(run(vis_view="Resolution", vis_train=32, vis_new=16))
    assert "The new grid is not larger" in smaller


def test_sequence_numbers():
    at = run(vis_view="Sequence", vis_text_before=5, vis_text_after=3)
    assert_page_complete(at)
    shown = metrics(at)
    assert shown["Video tokens"] == "768" and shown["Video starts at"] == "5"
    assert shown["Next text token's position"] == str(5 + 16)
    (chart,) = specs(at)
    (dots,) = find(chart, "circle")
    df = frame(chart, dots)
    text_after = df[(df["index"] >= 5 + 768)]
    assert sorted(set(text_after["position"])) == [21, 22, 23]  # t = h = w for text
    assert "continues at 21 = 5 + max(4, 12, 16)" in notices(at)


# --- extremes and bad links ----------------------------------------------------------------------
def test_every_control_at_its_maximum():
    at = run(**{k: str(v) for k, v in MAXIMUM.items()})
    assert_page_complete(at)
    assert not at.warning
    shown = specs(at)
    assert len(shown) == 4 and all(s["usermeta"]["imagechart"]["shape"] == [64, 64] for s in shown)
    for view in DECL.params[0].options[1:]:
        other = run(**{k: str(v) for k, v in MAXIMUM.items()}, vis_view=view)
        assert_page_complete(other)
        assert not other.warning


def test_a_one_patch_image():
    at = run(vis_rows=1, vis_cols=1, vis_frames=1)
    assert_page_complete(at)
    assert_grids(at, 1, 1, (0, 0), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))


def test_garbage_in_every_url_parameter():
    at = run(**{key: "abc" for key in KEYS})
    assert_page_complete(at)
    (warning,) = at.warning
    for key in KEYS:
        if key not in ("vis_head_dim", "vis_base"):  # drawn for the custom model only
            assert key.replace("_", "\\_") in warning.value, key
    assert "<" not in warning.value
    assert_grids(at, 12, 16, (5, 7), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))


@pytest.mark.parametrize("value", ["1e9", "-5", "nan", "inf", "3.5", "<script>", ""])
def test_out_of_range_numbers(value):
    at = run(vis_rows=value, vis_qcol=value, vis_frames=value)
    assert_page_complete(at)
    assert at.slider(key="vis_rows").value == 12 and at.slider(key="vis_frames").value == 4


def test_query_outside_a_smaller_grid_is_clamped():
    at = run(vis_rows=4, vis_cols=5, vis_qrow=30, vis_qcol=30)
    assert_page_complete(at)
    assert (at.slider(key="vis_qrow").value, at.slider(key="vis_qcol").value) == (3, 4)
    assert_grids(at, 4, 5, (3, 4), 0, 128, 1e6, (16, 24, 24), (24, 20, 20))


# --- "Reproduce in Python" -----------------------------------------------------------------------
@pytest.mark.parametrize(
    "query",
    [
        {},
        dict(DECL.deep_link.query),
        {"vis_model": "rope-vit-b16", "vis_qrow": 11, "vis_qcol": 15, "vis_text_after": 0},
    ],
)
def test_the_snippet_reproduces_the_page(query):
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["code_vision"] = True  # open "Reproduce in Python" (drawn only while open)
    for key, value in query.items():
        at.query_params[key] = str(value)
    run(at)
    (code,) = [c.value for c in at.code if c.language == "python"]
    namespace: dict = {"__name__": "__snippet__"}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(code, "<snippet>", "exec"), namespace)
    assert out.getvalue().strip()
    page = specs(at)
    for spec, name in zip(page, namespace["angles"]):
        a = namespace["angles"][name]
        query_index = namespace["q_row"] * namespace["cols"] + namespace["q_col"]
        scores = namespace["posenc"].angle_scores(a[[query_index]], a[namespace["keys"]])[0]
        np.testing.assert_allclose(cells(spec).ravel(), scores, atol=1e-12, err_msg=name)
    pos = namespace["pos"]
    assert pos.shape[1] == namespace["text_before"] + namespace["frames"] * namespace["n"] + namespace["text_after"]


def test_edge_wordings_stay_true():
    same = notices(run(vis_view="Resolution", vis_train=16, vis_new=16))
    assert "would multiply by 1 and change nothing" in same and "past the last trained" not in same
    none_after = notices(run(vis_view="Sequence", vis_text_after=0))
    assert "A text token after it would continue at 20" in none_after
