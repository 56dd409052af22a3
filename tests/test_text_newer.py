"""The Newer encodings page's sentences and charts (explorer/text/newer.py, explorer/charts/newer.py) on results
made up here, whose numbers the test knows: each sentence states the values it is given, makes claims only for
rows that learned, compares with RoPE only where RoPE learned, and counts its comparisons; each caption is the
number it claims on a hand-made picture."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from explorer.charts import newer as charts
from explorer.text import newer as text
from posenc import stats

LENS = [64, 128, 256, 512]
SEEDS = ["0", "1", "2", "3", "4"]


def _entry(values: dict[str, list[float]], learned: dict[str, bool]) -> dict:
    """A flip-flop entry: per method one value per length, the same at every seed but for a small spread."""
    runs, scored = {}, {}
    for m, per_len in values.items():
        runs[m] = {s: {str(n): v - 0.001 * i for n, v in zip(LENS, per_len, strict=True)} for i, s in enumerate(SEEDS)}
        scored[m] = {s: {str(n): 400 for n in LENS} for s in SEEDS}
    beyond = {
        m: {s: {k: v for k, v in per.items() if int(k) > 64} for s, per in seeds.items()} for m, seeds in runs.items()
    }
    return {
        "metric": "accuracy",
        "runs": runs,
        "beyond": beyond,
        "scored": scored,
        "learned": learned,
        "references": {"perfect": 1.0, "uniform": 0.5},
        "steps": 3000,
    }


def _data(**entries) -> dict:
    return {"settings": {"train_len": 64, "eval_lens": LENS, "seeds": 5}, "tasks": entries}


VALUES = {
    "rope": [1.0, 0.90, 0.80, 0.70],
    "cope": [1.0, 0.995, 0.99, 0.95],
    "drope": [0.60, 0.58, 0.57, 0.56],
}
LEARNED = {"rope": True, "cope": True, "drope": False}


def test_a_learned_encoding_states_its_value_and_its_seed_paired_verdicts_against_rope():
    by_task = text.shown_tasks(_data(flipflop=_entry(VALUES, LEARNED)))
    line = text.sentence("cope", by_task, past=False)
    values = [VALUES["cope"][3] - 0.001 * i for i in range(5)]
    expected = stats.share_interval(values, trials=[400] * 5)
    assert expected is not None and f"{expected.mean:.3f}" in line and "8L" in line
    assert "better at 2L" in line and "better at 8L" in line  # 0.995 vs 0.90, 0.95 vs 0.70 at every seed
    assert line.startswith("**CoPE** (Golovneva et al. 2024")


def test_no_claim_for_an_encoding_that_did_not_learn_and_no_comparison_with_a_rope_that_did_not():
    by_task = text.shown_tasks(_data(flipflop=_entry(VALUES, LEARNED)))
    line = text.sentence("drope", by_task, past=False)
    assert "did not learn" in line and "paired by seed" not in line and "0.598" in line  # its value at L, as evidence
    # through several tasks the paragraph names each task it did not learn, and leaves the rule to learned_line
    two = text.shown_tasks(_data(flipflop=_entry(VALUES, LEARNED), kback=_entry(VALUES, LEARNED)))
    line = text.sentence("drope", two, past=False)
    assert "did not learn the flipflop task" in line and "did not learn the kback task" in line
    assert "learned means" not in line and "learned means" in text.learned_line(two).lower()
    unlearned_rope = text.shown_tasks(_data(flipflop=_entry(VALUES, {**LEARNED, "rope": False})))
    line = text.sentence("cope", unlearned_rope, past=False)
    assert "RoPE did not learn this task, so there is no comparison" in line and "better" not in line


def test_an_encoding_not_shipped_says_so_and_the_comparisons_are_counted():
    by_task = text.shown_tasks(_data(flipflop=_entry(VALUES, LEARNED)))
    assert "not shipped on these tasks" in text.sentence("ssmax", by_task, past=False)
    lines = text.sentences(by_task, past=False)
    assert len(lines) == 7  # six encodings and the count of comparisons
    assert "prints 2 seed-paired comparisons" in lines[-1]  # CoPE against RoPE at 2L and 8L


def test_past_l_uses_the_positions_past_l():
    by_task = text.shown_tasks(_data(flipflop=_entry(VALUES, LEARNED)))
    rows = text.grid_rows(by_task["flipflop"], past=True)
    assert {r["length"] for r in rows} == {128, 256, 512}
    assert {r["encoding"] for r in rows} == {"rope", "cope", "drope"}
    line = text.sentence("cope", by_task, past=True)
    assert "past L" in line


def test_grid_rows_carry_the_intervals_and_the_learned_flags():
    by_task = text.shown_tasks(_data(flipflop=_entry(VALUES, LEARNED)))
    rows = text.grid_rows(by_task["flipflop"], past=False)
    assert [r["encoding"] for r in rows[:: len(LENS)]] == ["rope", "cope", "drope"]  # baselines first
    cell = next(r for r in rows if r["encoding"] == "rope" and r["length"] == 512)
    expected = stats.share_interval([0.70 - 0.001 * i for i in range(5)], trials=[400] * 5)
    assert cell["mean"] == pytest.approx(expected.mean) and cell["lo"] == pytest.approx(expected.lo)
    assert 0 <= cell["lo"] <= cell["mean"] <= cell["hi"] <= 1
    assert cell["value_text"] == f"{expected.mean:.2f}" and cell["interval_text"].startswith("[")
    assert [r["learned"] for r in rows if r["encoding"] == "drope"] == [False] * 4
    words = text.grid_chart(by_task["flipflop"], past=False)
    assert words["floor"] == 0.5 and "drope" in words["subtitle"][1]


def test_the_grid_chart_greys_the_rows_that_did_not_learn():
    by_task = text.shown_tasks(_data(flipflop=_entry(VALUES, LEARNED)))
    s = by_task["flipflop"]
    spec = charts.grid_chart(
        charts.grid_frame(text.grid_rows(s, past=False)), **text.grid_chart(s, past=False)
    ).to_dict()
    filters = [t["filter"] for layer in spec["layer"] for t in layer.get("transform", [])]
    assert filters == ["datum.learned", "!datum.learned", *["datum.learned"] * 2, *["!datum.learned"] * 2]
    rows = next(iter(spec["datasets"].values()))
    grey = {r["encoding"] for r in rows if not r["learned"]}
    assert grey == {"drope"}
    # the grey rows' fill and text are the spec's own colours (not data), so the dark theme maps them: there the
    # grey cells are dark, not the near-white that glared on a dark slide
    grey_cell = spec["layer"][1]["encoding"]["fill"]
    assert grey_cell == {"value": charts.UNLEARNED_FILL}
    assert [layer["mark"].get("color") for layer in spec["layer"][4:]] == [charts.UNLEARNED_TEXT] * 2
    from _chartspec import contrast, luminance

    from explorer.charts.style import style_spec

    dark = style_spec(spec, dark=True)
    assert luminance(dark["layer"][1]["encoding"]["fill"]["value"]) < 0.05
    for layer in dark["layer"][4:]:
        assert contrast(layer["mark"]["color"], dark["layer"][1]["encoding"]["fill"]["value"]) >= 4.5
    white_ink = {(r["encoding"], r["length"]) for r in rows if r["ink"] == "#ffffff"}  # the blue cells' text
    assert ("cope", "512") in white_ink


# ------------------------------------------------------------------ the pictures' captions
def test_cope_caption_reads_the_last_querys_count_to_the_first_token():
    pos = np.tril(np.full((10, 10), 2.0))
    pos[-1, 0] = 4.25
    gates = np.tril(np.full((10, 10), 0.3))
    line = text.cope_caption({"positions": pos, "gates": gates, "npos_max": 65}, head=5)
    assert "layer 1, head 1" in line and "4.2 positions back" in line and "would say 9" in line
    assert "average 0.30" in line and "cap" not in line
    pos[-1, 0] = 64
    assert "the cap" in text.cope_caption({"positions": pos, "gates": gates, "npos_max": 65}, head=0)


def test_path_caption_measures_the_distance_from_identity_and_orthogonality():
    beta = np.array([0.5, 1.0, 2.0])
    line = text.path_caption({"matrix": np.eye(4), "beta": beta}, head=0)
    assert "identity is 0.00 and from an orthogonal matrix 0.00" in line and "0.50 to 2.00" in line
    reflection = np.eye(4) - 2 * np.outer([1, 0, 0, 0], [1, 0, 0, 0])  # orthogonal, 2 away in one entry
    line = text.path_caption({"matrix": reflection, "beta": beta}, head=0)
    assert f"identity is {2 / math.sqrt(4):.2f} and from an orthogonal matrix 0.00" in line


def test_ssmax_caption_follows_the_sign_of_s():
    n = np.arange(1, 513)
    s = np.array([[0.2, 0.5], [0.3, 0.4]])
    line = text.ssmax_caption({"s": s, "n": n}, 64)
    assert "0.20 to 0.50" in line and f"{0.2 * math.log(64):.2f}" in line and "does not flatten" in line
    mixed = np.array([[0.2, -0.1], [0.3, 0.4]])
    assert "3 heads sharpen with n and 1 do not" in text.ssmax_caption({"s": mixed, "n": n}, 64)


def test_fope_caption_counts_the_clipped_frequencies():
    freqs = 10000.0 ** (-np.arange(8) / 8)
    waves = 2 * np.pi / freqs
    clipped = waves > 64
    raw = {"clipped": clipped, "wavelengths": waves, "magnitude": np.ones((3, 3)), "pairs": 8, "train_len": 64}
    line = text.fope_caption(raw, head=0)
    assert f"{int(clipped.sum())} of its 8 frequencies" in line and "5 of the 8 pairs do not rotate" in line


def test_drope_caption_reports_the_jump_at_the_drop_and_the_runs_that_learned_again():
    drops = {
        "0": {"first_after_drop": 2, "losses": [1.0, 0.1, 0.9, 0.5], "reached": 40},
        "1": {"first_after_drop": 1, "losses": [0.2, 0.5, 0.4], "reached": None},
    }
    line = text.drope_caption(drops)
    assert "+0.30 to +0.80 nats" in line and "1 of 2 recalibrated models learned" in line


@pytest.mark.parametrize("encoding", ["cope", "path", "hybrid", "fope", "ssmax", "drope"])
def test_every_picture_builds(encoding):
    m = np.tril(np.random.default_rng(0).random((6, 6)))
    raw = {
        "cope": {"gates": m, "positions": 3 * m, "npos_max": 65},
        "path": {"matrix": m, "beta": np.ones(6)},
        "hybrid": {"maps": [m, m], "plan": ("rope", "nope")},
        "fope": {"magnitude": m[:3], "clipped": np.array([False] * 6 + [True] * 2)},
        "ssmax": {"s": np.ones((2, 4)), "n": np.arange(1, 65), "scale": np.ones((2, 4, 64))},
        "drope": {"rows": [{"seed": "seed 0", "steps from the drop": -10, "training loss": 0.1}], "drops": {}},
    }[encoding]
    shown = charts.picture_charts(encoding, raw, title="t", subtitle=["s"], train_len=64)
    assert len(shown) == (2 if encoding in ("cope", "hybrid") else 1)
    for chart in shown:
        spec = chart.to_dict()
        assert spec["title"]["text"].startswith("t") and spec["title"]["subtitle"] == ["s"]
    # each chart alone (the page builds each once, shared across sessions), its panel named in its title
    panels = {
        "cope": ["t: the gates σ(q·k)", "t: the positions they count"],
        "path": ["t: H(T−1) ⋯ H(1)"],
        "hybrid": ["t: layer 0, RoPE", "t: layer 1, no position"],
        "fope": ["t: learned weights (blank: clipped)"],
    }.get(encoding, ["t"])
    assert charts.picture_count(encoding, raw) == len(panels)
    for i, want in enumerate(panels):
        alone = charts.picture_chart(encoding, raw, index=i, title="t", subtitle=["s"], train_len=64).to_dict()
        assert alone["title"]["text"] == want and alone["title"]["subtitle"] == ["s"]
    with pytest.raises(ValueError, match="index must be in 0"):
        charts.picture_chart(encoding, raw, index=len(shown), title="t", subtitle=["s"], train_len=64)


def test_drope_caption_names_the_recalibration_budget_when_the_file_has_it():
    drops = {"0": {"first_after_drop": 1, "losses": [0.2, 0.5], "reached": 40}}
    assert "within 3,000 steps" in text.drope_caption(drops, 3000)


def test_hybrid_caption_reads_the_share_on_the_nearest_keys_and_never_all_of_them():
    w = np.tril(np.ones((40, 40)))
    w /= w.sum(axis=1, keepdims=True)  # uniform over the 40 keys of the last query
    local = np.eye(40)
    line = text.hybrid_caption([local, w], 1, ("rope", "nope"))
    assert (
        "layer 0 (RoPE) puts 100 %" in line and "layer 1 (no position) puts 20 %" in line and "nearest 8 keys" in line
    )
    short = np.tril(np.ones((8, 8))) / np.arange(1, 9)[:, None]
    line = text.hybrid_caption([short, short], 1, ("rope", "nope"))
    assert "nearest 2 keys" in line and "puts 25 %" in line


#: Vega's "blues" scheme (vega-scale's schemes: eleven colours, interpolated in RGB), re-typed: a grid cell's colour
#: from its share of the scale.
BLUES = (
    "#cfe1f2", "#bed8ec", "#a8cee5", "#8fc1de", "#74b2d7", "#5ba3cf", "#4592c6", "#3181bd", "#206fb2", "#125ca4", "#0a4a90",
)  # fmt: skip


def _blues(share: float) -> str:
    x = share * (len(BLUES) - 1)
    i = min(int(x), len(BLUES) - 2)
    a, b = (np.array([int(h[k : k + 2], 16) for k in (1, 3, 5)]) for h in BLUES[i : i + 2])
    return "#" + "".join(f"{round(v):02x}" for v in a + (x - i) * (b - a))


def test_the_numbers_in_a_grid_cell_contrast_with_its_colour_at_every_share():
    """White numbers on a mid-blue cell (a share of 0.55–0.70 of the scale) contrasted 3.1–4.2:1; each cell's numbers
    now take the ink that contrasts more with its blue, at least 4:1 (the two inks meet at about 4.2:1)."""
    from _chartspec import contrast

    floor = 0.5
    means = np.linspace(floor, 1.0, 41)
    frame = pd.DataFrame(
        {
            "encoding": [f"e{i}" for i in range(means.size)],
            "length": ["64"] * means.size,
            "mean": means,
            "lo": means,
            "hi": means,
            "seeds": 3,
            "learned": True,
            "value_text": [f"{m:.2f}" for m in means],
            "interval_text": "[x]",
        }
    )
    spec = charts.grid_chart(frame, title="t", subtitle=["s"], floor=floor, description="d").to_dict()
    rows = next(iter(spec["datasets"].values()))
    for row, mean in zip(rows, means, strict=True):
        cell = _blues((mean - floor) / (1 - floor))
        other = "#0f172a" if row["ink"] == "#ffffff" else "#ffffff"
        assert contrast(row["ink"], cell) >= max(4.0, contrast(other, cell) - 0.6), (mean, row["ink"], cell)


def test_paths_transform_on_the_dark_card_is_dark_where_it_is_zero_and_the_other_pictures_are_as_they_were():
    """PaTH's H(T−1) ⋯ H(1) is drawn on redblue: near the identity, nearly every entry is 0, and redblue's near-white
    zero made it a white square on the dark card. Drawn for the dark card, its zero entries sit just off the card and
    its ±1 stand clearly off it (its colour domain is ±the largest entry); the numbers are the light chart's, and the
    light chart is as it was. The pictures on a sequential map (CoPE's, the hybrid's, FoPE's) are the same charts on
    either card."""
    from _chartspec import contrast, diverging_on_dark, hex_colour, png_pixels

    from explorer.charts import style
    from explorer.imagechart import meta as image_meta

    h = np.eye(8)
    h[0, 7], h[7, 0] = -1.0, 0.5  # a reflection's −1 and a half-way entry beside the identity's ones

    def picture(encoding, raw, **kw):
        return charts.picture_chart(encoding, raw, index=0, title="t", subtitle=["s"], train_len=64, **kw).to_dict()

    plain, light, dark = (
        picture("path", {"matrix": h, "beta": np.ones(8)}, **kw) for kw in ({}, {"dark": False}, {"dark": True})
    )
    assert light == plain and image_meta(dark) == image_meta(light)
    pixels = {name: png_pixels(spec)[..., :3] for name, spec in (("light", light), ("dark", dark))}

    def hexes(name, where):
        return {hex_colour(p) for p in pixels[name][where]}

    diverging_on_dark(hexes("dark", h == 0), hexes("dark", np.abs(h) == 1), style.DARK_BACKGROUND)
    assert all(contrast(c, style.CARD_BACKGROUND) < 1.2 for c in hexes("light", h == 0))
    m = np.tril(np.random.default_rng(0).random((6, 6)))
    for encoding, raw in (
        ("cope", {"gates": m, "positions": 3 * m, "npos_max": 65}),
        ("hybrid", {"maps": [m], "plan": ("rope",)}),
    ):
        assert picture(encoding, raw, dark=True) == picture(encoding, raw)
