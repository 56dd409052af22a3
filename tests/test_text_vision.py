"""The Images-and-video page's sentences (explorer/text/vision.py) against the values they describe:
every number a sentence says is read back out of it and compared with the value computed here from
the formulas (θ_j = b^(−2j/d), the score (1/n)·Σ_j cos(Δ_j θ_j), Qwen2-VL's positions by hand), and
the page's computations (explorer/compute/vision.py) that feed them are checked against the same."""

from __future__ import annotations

import math
import re
from types import SimpleNamespace

import numpy as np
import pytest

import posenc
from explorer.charts.vision import LIVE_LABELS
from explorer.compute import vision as compute
from explorer.text import vision as text
from posenc.mrope import SCHEMES, VISION_PRESETS

NUMBER = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?(?:e[-+]\d+)?%?(?!\w)")


def numbers(sentence: str) -> list[float]:
    """Every number a sentence states, in order (not those inside words such as 2D or Qwen2-VL)."""
    return [float(n.replace(",", "").replace("−", "-").rstrip("%")) for n in NUMBER.findall(sentence)]


# --- independent references ----------------------------------------------------------------------
def thetas(d: int, b: float) -> np.ndarray:
    return np.array([b ** (-2 * j / d) for j in range(d // 2)])


def axes_contiguous(section):
    return [0] * section[0] + [1] * section[1] + [2] * section[2]


def axes_interleaved(section, n):
    """Qwen3-VL: T everywhere, H at 1, 4, 7, … below 3·s_h, W at 2, 5, 8, … below 3·s_w."""
    return [1 if j % 3 == 1 and j < 3 * section[1] else 2 if j % 3 == 2 and j < 3 * section[2] else 0 for j in range(n)]


def score(d, b, dt, dr, dc, scheme, section_c=None, section_i=None, cols=None, frame_size=None):
    """(1/n)·Σ_j cos(Δ_j θ_j) for a key (dt frames, dr rows, dc columns) from the query."""
    th, n = thetas(d, b), d // 2
    if scheme == "raster 1D":
        deltas = [dt * frame_size + dr * cols + dc] * n
    elif scheme == "axial 2D":  # rows first: the first half of the pairs, with b^(−4i/d) in each half
        th = np.tile(np.array([b ** (-4 * i / d) for i in range(n // 2)]), 2)
        deltas = [dr] * (n // 2) + [dc] * (n // 2)
    else:
        axes = axes_contiguous(section_c) if scheme == "M-RoPE contiguous" else axes_interleaved(section_i, n)
        deltas = [(dt, dr, dc)[a] for a in axes]
    return float(np.mean(np.cos(np.asarray(deltas, dtype=float) * th)))


QWEN = compute.Model.of(VISION_PRESETS["qwen2.5-vl-7b"])  # d 128, b 10⁶, (16, 24, 24), (24, 20, 20)


def test_the_model_settings():
    assert (QWEN.head_dim, QWEN.base, QWEN.section_c, QWEN.section_i) == (128, 1e6, (16, 24, 24), (24, 20, 20))
    assert QWEN.own_c and not QWEN.own_i and QWEN.axial_first == "row"
    custom = compute.Model.of(None, 32, 100.0)  # 16 pairs: Qwen2-VL's t = n/4, Qwen3-VL's t = round(3n/8)
    assert (custom.section_c, custom.section_i, custom.own_c, custom.own_i) == ((4, 6, 6), (6, 5, 5), False, False)
    assert compute.Model.of(VISION_PRESETS["rope-vit-b16"]).axial_first == "column"


@pytest.mark.parametrize("frame", [0, 3])
def test_grid_notices_say_the_scores_of_the_neighbours(frame):
    rows, cols, frames = 12, 16, 4
    found = compute.neighbours(rows, cols, frames, frame, QWEN)
    ref = dict(d=128, b=1e6, section_c=(16, 24, 24), section_i=(24, 20, 20), cols=cols, frame_size=rows * cols)
    below = {s: score(dt=frame, dr=1, dc=0, scheme=s, **ref) for s in SCHEMES}
    right = {s: score(dt=frame, dr=0, dc=1, scheme=s, **ref) for s in SCHEMES}
    # a row's last patch and the next row's first, in frame 0: raster 1 apart; axial 1 row and cols − 1 columns
    across = {s: score(dt=0, dr=1, dc=-(cols - 1), scheme=s, **ref) for s in SCHEMES[:2]}
    for key, want in (("below", below), ("right", right), ("across", across)):
        assert found[key] == pytest.approx(want, abs=1e-9), key
    first, row_end, time, move = text.grid_notices(rows, cols, frames, frame, QWEN, found)
    pairs = [round(v, 4) for s in SCHEMES for v in (below[s], right[s])]
    extra = [frame, rows * cols, frame] if frame else []
    assert numbers(first) == pytest.approx([cols, 1, *extra, *pairs], abs=1e-12)
    assert numbers(row_end) == pytest.approx(
        [cols - 1, 0, 1, round(across["raster 1D"], 4), cols - 1, 1, round(across["axial 2D"], 4)]
    )
    assert numbers(time) == [0, 16, 24, rows * cols]  # the sections' time pairs; patches per frame
    assert "Shift test" in move
    one_row = text.grid_notices(1, cols, 1, 0, QWEN, compute.neighbours(1, cols, 1, 0, QWEN))
    assert len(one_row) == 1 and one_row[0] == move  # no neighbour below, no second frame


def test_heatmap_and_strip_words_name_the_sections():
    words = text.heatmap_words(QWEN)
    titles = ["1D RoPE over the raster order", "Axial 2D RoPE (rows first)", "M-RoPE, contiguous [16, 24, 24]",
              "M-RoPE, interleaved [24, 20, 20]"]  # fmt: skip
    assert list(words["notes"]) == titles and all(t in words["description"] for t in titles)
    assert "every patch of the frame shown" in words["description"]  # the chart's own slider picks it
    # the chart's own sliders, at every video length (the chart's words do not depend on it: issue #36)
    assert words["description"].endswith("the video's number of frames and the frame shown.")
    assert all(f"**{label.strip()}**" in text.grid_caption(4) for label in LIVE_LABELS.values())  # every slider
    # a still image: its frame slider has nowhere to go (the page narrows it to frame 0); the others are named
    assert "frame shown" not in text.grid_caption(1) and "**video frames**" in text.grid_caption(1)
    assert words["notes"][titles[2]][1] == "section: this model's"
    assert words["notes"][titles[3]][1] == "section: Qwen3-VL's proportions"  # not Qwen2.5-VL's own
    strip = text.strip_words(QWEN, "pair")
    assert numbers(strip["title"]) == [64] and numbers(strip["description"]) == [64, 128]
    assert numbers(strip["subtitle"][0]) == [128, 1e6, 0] and numbers(strip["subtitle"][1]) == [16, 24, 24, 24, 20, 20]


def test_pair_notices_give_each_axis_its_pairs_and_wavelengths():
    wl = 2 * np.pi / thetas(128, 1e6)
    summary = compute.pairs_summary(compute.pairs_frame(QWEN))
    contiguous, interleaved, axial = text.pair_notices(QWEN, {(r.scheme, r.axis): r for r in summary.itertuples()})
    g = lambda x: float(f"{x:.3g}")  # noqa: E731 (the sentences round to 3 significant digits)
    # contiguous [16, 24, 24]: time pairs 0–15, width 40–63
    assert numbers(contiguous) == [16, 24, 24, 0, 15, g(wl[0]), g(wl[15]), 40, 63, g(wl[40]), g(wl[63]), g(wl[40])]
    axes = np.array(axes_interleaved((24, 20, 20), 64))
    ranges = [v for a in range(3) for v in (g(wl[axes == a].min()), g(wl[axes == a].max()))]
    assert numbers(interleaved) == [24, 20, 20, *ranges]
    axial_wl = [2 * np.pi / 1e6 ** (-4 * i / 128) for i in (0, 31)]  # d/4 = 32 frequencies b^(−4i/d)
    assert numbers(axial) == [4, 32, g(axial_wl[0]), g(axial_wl[1])]  # "d/4 = 32"


def test_shift_notices_say_what_raster_order_sees():
    q, k, d, rows, cols = (5, 7), (8, 12), (2, -5), 12, 16
    table = compute.shift_table(rows, cols, q, k, d, QWEN)
    changes = compute.shift_changes(table)
    wider, now = (score(128, 1e6, 0, 3, 5, "raster 1D", cols=c, frame_size=0) for c in (cols + 1, cols))
    raster = wider - now
    assert changes["raster"] == pytest.approx(raster, abs=1e-12)  # 3·17 + 5 = 56 apart instead of 3·16 + 5 = 53
    assert changes["by_shift"] < 1e-12 and changes["other"] < 1e-12
    words = text.shift_words(rows, cols, q, k, d, changes)
    relative, what, width = words["notices"]
    assert numbers(relative)[:2] == [2, -5] and numbers(relative)[2] == pytest.approx(
        changes["by_shift"], rel=0.06, abs=1e-300
    )
    assert numbers(what)[:6] == [3, 16, 5, 53, 56, round(raster, 4)]
    assert "width" in width
    words = words["chart"]
    assert set(words) == {"description"}  # the diagram's title names Δ and the offset in the browser
    assert numbers(words["description"]) == [12, 16, 5, 7]  # the grid and the query: not the sliders' key and shift


def test_resolution_notices_count_the_unseen_patches():
    train, new = 16, 32
    res = compute.resolution_scores(train, new, QWEN)
    phi = np.array([1e6 ** (-4 * i / 128) for i in range(32)])  # axial: one column step turns half the pairs
    step = lambda dist: float((np.sum(np.cos(dist * phi)) + 32) / 64)  # noqa: E731
    step_t, step_i = compute.centre_steps(res)
    assert (step_t, step_i) == pytest.approx((step(1.0), step(0.5)), abs=1e-12)
    words = text.resolution_words(train, new, step_t, step_i)
    unseen, interpolation, qwen = words["notices"]
    assert numbers(unseen) == [32, 32, 31, 32 * 32 - 16 * 16, 32 * 32, 75, 15]  # 768 of 1,024 (75 %)
    # × 16/32 = 0.5: the last position 31·0.5 = 15.5 is 0.5 past 15
    assert numbers(interpolation) == [16, 32, 0.5, 15.5, 0.5, 15, 0.5, 1, round(step(0.5), 4), round(step(1.0), 4)]
    assert "interpolates nothing" in qwen
    smaller, scaled, _ = text.resolution_words(32, 16, 1.0, 1.0)["notices"]
    assert "not larger" in smaller and numbers(smaller) == [0, 15, 0, 31] and "past the last" not in scaled
    assert "change nothing" in text.resolution_words(16, 16, 1.0, 1.0)["notices"][1]
    assert set(words) == {"notices"}  # the chart names the sides in the browser (charts.live_resolution_chart)
    assert not numbers(text.RESOLUTION_DESCRIPTION)  # its sliders set them: no number a slider can change


def test_sequence_sentences_follow_qwen2vls_positions():
    before, after, frames, rows, cols = 5, 4, 4, 12, 16
    pos = posenc.qwen2vl_position_ids([("text", before), ("video", frames, rows, cols), ("text", after)])
    # by hand (get_rope_index): the video starts at 5 on t, h and w; the text after at 5 + max(4, 12, 16) = 21
    w = pos[2]
    assert w[before] == 5 and w[before + 15] == 20 and w[before + 768] == 21
    words = text.sequence_words(before, after, frames, rows, cols, 1)
    starts, after_it, _ = words["notices"]
    assert numbers(starts) == [5, 5, 8, 5, 16, 5, 20]
    assert numbers(after_it) == [21, 5, 4, 12, 16, 5 + 768, 16, 768] and after_it.startswith("The text after")
    assert text.sequence_words(before, 0, frames, rows, cols, 1)["notices"][1].startswith("A text token after it would")
    assert words["metrics"] == [
        ("Video tokens", "768", "4 × 12 × 16"),
        ("Video starts at", "5", "t, h and w of its first patch: the next free position after the text before it."),
        ("Next text token's position", "21", "start + max(frames, rows, columns)"),
    ]
    big = text.sequence_words(0, 0, 16, 64, 64, math.ceil(16 * 64 * 64 / 1500))["chart"]
    assert "every 44th video token drawn" in big["subtitle"] and "the 65,536 video patches" in big["description"]
    # a stride reads as an English ordinal ("every 2th" before)
    for stride, nth in ((2, "2nd"), (3, "3rd"), (22, "22nd"), (21, "21st"), (12, "12th")):
        assert f"every {nth} video token drawn" in text.sequence_words(0, 0, 8, 64, 64, stride)["chart"]["subtitle"]
    # the title's words around the two text counts the chart's sliders move; the description quotes neither count
    assert text.sequence_words(0, 0, 1, 2, 3, 1)["chart"]["title_words"] == (
        "M-RoPE positions: ",
        " text,",
        "a 1 × 2 × 3 image, ",
    )
    assert "5" not in words["chart"]["description"] and "4 " not in words["chart"]["description"]


def test_about_names_the_source():
    preset = VISION_PRESETS["rope-vit-b16"]
    assert text.about(preset) == f"**{preset.name}**: {preset.notes} Source: {preset.source}."
    custom = text.heatmap_words(compute.Model.of(None, 64, 1e4))["notes"]
    assert [lines[1] for lines in custom.values()][2:] == [
        "section: Qwen2-VL's proportions",
        "section: Qwen3-VL's proportions",
    ]
    assert text.scheme_title("axial 2D", SimpleNamespace(axial_first="column")) == "Axial 2D RoPE (columns first)"


@pytest.mark.parametrize(
    ("frame", "frames", "title"),
    [
        (0, 4, ["Query patch (row 2, column 11)", "keys in the same frame (frames 0 … 3)"]),
        (3, 4, ["Query patch (row 2, column 11)", "keys in frame 3 (frames 0 … 3)"]),
        (0, 1, ["Query patch (row 2, column 11)", "keys in the same frame (a still image)"]),
    ],
)
def test_the_heatmaps_title_expression_names_the_query_and_the_frame(frame, frames, title):
    from _chartspec import spec_value

    assert spec_value({}, text.query_title_expr("2", "11", str(frame), str(frames))) == title
