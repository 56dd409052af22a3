"""Chart builders of the home page (explorer/charts/home.py), checked through chart.to_dict()."""

from __future__ import annotations

import json

import _chartspec as cs
import numpy as np
import pandas as pd
import pytest

from explorer.charts import home
from explorer.charts.style import _walk_dark
from explorer.render import stable_dataset_names
from explorer.text.home import PE_LABELS


def layers(spec: dict) -> list[dict]:
    return spec["layer"]


def rows(spec: dict, layer: dict) -> list[dict]:
    """The data rows a layer draws (its own named dataset, else the chart's)."""
    name = (layer.get("data") or spec["data"])["name"]
    return spec["datasets"][name]


def marks(spec: dict) -> list[str]:
    return [ly["mark"]["type"] if isinstance(ly["mark"], dict) else ly["mark"] for ly in layers(spec)]


def test_token_labels_unique_for_repeated_words():
    assert home.token_labels(["the", "cat", "the"]) == ["0 the", "1 cat", "2 the"]


# ------------------------------------------------------------------------------- shuffle diagram
def test_shuffle_diagram_draws_both_rows_and_the_moves():
    words = ["the", "cat", "sat", "on"]
    perm = np.array([2, 0, 3, 1])  # shuffled = sat the on cat
    spec = home.shuffle_diagram(words, perm).to_dict()
    assert marks(spec) == ["rule", "text", "text"]
    link, top, bottom = layers(spec)
    assert [r["word"] for r in rows(spec, top)] == words
    assert [r["word"] for r in rows(spec, bottom)] == ["sat", "the", "on", "cat"]
    moves = sorted((r["x"], r["x2"]) for r in rows(spec, link))
    assert moves == sorted((float(perm[i]), float(i)) for i in range(4))  # old place -> new place
    # the description names every word in both orders and counts the words that moved
    assert "the cat sat on" in spec["description"] and "sat the on cat" in spec["description"]
    assert "4 of the 4 words change place" in spec["description"]


def _signals(spec: dict, width: float, font_scale: float = 1.0) -> dict:
    """The diagram's browser-side parameters evaluated at a chart width (Vega's expressions are
    plain arithmetic here: ?:, <=, clamp, floor)."""
    env = {"width": width, "clamp": lambda v, lo, hi: min(max(v, lo), hi), "floor": int}
    for param in spec["params"]:
        if param["name"] == "font_scale":
            env["font_scale"] = font_scale
            continue
        expr = param["expr"].replace("&&", " and ")
        while "?" in expr:  # a ? b : c  ->  (b if a else c), innermost first from the right
            head, _, rest = expr.rpartition("?")
            cond_start = max(head.rfind("("), head.rfind(":")) + 1
            cond = head[cond_start:]
            yes, _, no = rest.partition(":")
            expr = f"{head[:cond_start]}(({yes}) if ({cond}) else ({no}))"
        env[param["name"]] = eval(expr, {}, env)  # our own spec's arithmetic
    return env


@pytest.mark.parametrize("width", [320, 390, 760, 1180, 1800])
@pytest.mark.parametrize(
    "sentence",
    [
        "the cat sat on the mat",
        "transformers understand positional information through carefully engineered sinusoidal rotations everywhere today",
        " ".join(["abcdefghijklmnop"] * 24),
    ],
)
def test_shuffle_diagram_words_never_share_space(sentence, width):
    """At any width, each word fits its slot: upright in one line, upright in two staggered lines
    (each word then has two slots), or turned (then the slot must hold the font's height); the
    rows' words never reach the other row. Word widths from the generous average character."""
    words = sentence.split()
    spec = home.shuffle_diagram(words, np.roll(np.arange(len(words)), 1)).to_dict()
    s = _signals(spec, width)
    longest_px = max(len(w) for w in words) * home.WORD_CHAR_EM * s["word_size"]
    if s["levels"]:
        assert longest_px + 10 <= s["levels"] * s["slot"]
    else:
        assert s["word_size"] <= s["slot"] * 0.8 + 1e-9 or s["word_size"] == home.MIN_WORD_FONT
        assert s["word_size"] >= home.MIN_WORD_FONT
    assert 2 * s["reach"] < spec["height"]  # the two rows never meet; the lines run between them
    if width >= 390 and len(words) <= 10:
        assert s["word_size"] >= 13


def test_shuffle_diagram_scales_with_presentation_fonts():
    words = "the cat sat on the mat".split()
    spec = home.shuffle_diagram(words, np.arange(6)).to_dict()
    assert _signals(spec, 1200, font_scale=1.35)["word_size"] == pytest.approx(home.WORD_FONT * 1.35)


def test_shuffle_diagram_rejects_a_bad_perm():
    with pytest.raises(ValueError, match="perm"):
        home.shuffle_diagram(["a", "b"], [0, 0])


# ------------------------------------------------------------- the head's chart: every d, one slider
NAMES = ("A(X)", "A(PX)", "P·A(X)·Pᵀ")


def tables(n: int, dims=(2, 4, 6), seed=0, gaps=None) -> dict[str, pd.DataFrame]:
    """Hand-made tables in explorer.compute.home.every_dim's shape: n words, the given d's, random numbers (the
    chart must draw whatever it is given)."""
    rng = np.random.default_rng(seed)
    words, shuffled = [f"w{i}" for i in range(n)], [f"w{i}" for i in reversed(range(n))]
    points, weights, tops = [], [], []
    for d in dims:
        e = rng.normal(size=n * d)
        points += [{"d": d, "expected": x, "actual": y} for x, y in zip(e, e + rng.normal(size=n * d), strict=True)]
        grids = {name: rng.dirichlet(np.ones(n), n) for name in NAMES}
        tops.append(max(float(grid.max()) for grid in grids.values()) + 0.01)  # any top at least the largest
        weights += [
            {"d": d, "heatmap": name, "row": r, "col": c, "weight": grid[r, c]}
            for name, grid in grids.items()
            for r in range(n)
            for c in range(n)
        ]
    labels = [
        {"heatmap": name, "place": i, "label": label}
        for name in NAMES
        for i, label in enumerate(home.token_labels(words if name == "A(X)" else shuffled))
    ]
    gaps = (0.0,) * len(dims) if gaps is None else gaps
    return {
        "points": pd.DataFrame(points),
        "weights": pd.DataFrame(weights),
        "labels": pd.DataFrame(labels),
        "gaps": pd.DataFrame({"d": dims, "output_gap": gaps, "vmax": tops}),
    }


def chart(n=2, *, dims=(2, 4, 6), gaps=None, pe="none", start=4, phone=False, seed=0) -> dict:
    return home.experiment_chart(
        tables(n, dims, seed, gaps), pe=pe, start=start, dims=(dims[0], dims[-1], dims[1] - dims[0]), phone=phone
    ).to_dict()


def unit(view: dict, layer: dict) -> dict:
    """A layer of `view` with the data it draws (Altair moves data its layers share up to the layer chart)."""
    return {**layer, "data": layer.get("data", view.get("data"))}


def heatmap_views(spec: dict) -> list[dict]:
    row = spec["vconcat"][1]
    return row.get("hconcat") or row["vconcat"]


def test_the_slider_is_d_over_the_chart_s_range_and_starts_at_the_page_s_d():
    spec = chart(start=4)
    (param,) = [p for p in spec["params"] if p["name"] == home.LIVE_KEY]
    assert param["name"] == home.LIVE_KEY == "d_model" and param["value"] == 4
    assert (param["bind"]["min"], param["bind"]["max"], param["bind"]["step"]) == (2, 6, 2)


@pytest.mark.parametrize("d", [2, 4, 6])
def test_every_view_draws_the_rows_of_the_slider_s_d_only(d):
    """The filters run as the browser runs them (tests/_chartspec.py): each heatmap shows its own n × n weights
    of that d, the scatter that d's points and a diagonal spanning them, padded by 5 %."""
    n = 3
    spec = chart(n, seed=d)
    made = tables(n, seed=d)
    points, weights = made["points"], made["weights"]
    words = {
        name: home.token_labels([f"w{i}" for i in (range(n) if name == "A(X)" else reversed(range(n)))])
        for name in NAMES
    }
    for name, view in zip(NAMES, heatmap_views(spec), strict=True):
        reach, cells, *_ = view["layer"]
        got = cs.unit_rows(spec, unit(view, cells), d_model=d)
        want = weights[(weights["heatmap"] == name) & (weights["d"] == d)]
        assert len(got) == n * n
        for r in got.itertuples():  # each cell: its weight, its words looked up by place, the d's top
            (w,) = want[(want["row"] == r.row) & (want["col"] == r.col)]["weight"]
            assert (r.weight, r.query, r.key) == (w, words[name][r.row], words[name][r.col])
            assert r.vmax == made["gaps"].set_index("d").loc[d, "vmax"]
        (top,) = cs.unit_rows(spec, unit(view, reach), d_model=d).to_dict("records")
        assert top["vmax"] == made["gaps"].set_index("d").loc[d, "vmax"]  # the colour scale reaches the d's top
    line, dots = spec["vconcat"][0]["layer"]
    shown = cs.unit_rows(spec, dots, d_model=d)
    at_d = points[points["d"] == d]
    assert sorted(zip(shown["expected"], shown["actual"])) == sorted(zip(at_d["expected"], at_d["actual"]))
    assert (shown["difference"] == shown["actual"] - shown["expected"]).all()
    diag = cs.unit_rows(spec, line, d_model=d)
    lo = min(at_d["expected"].min(), at_d["actual"].min())
    hi = max(at_d["expected"].max(), at_d["actual"].max())
    pad = 0.05 * (hi - lo)
    assert sorted(diag["expected"]) == pytest.approx([lo - pad, hi + pad])
    assert list(diag["expected"]) == list(diag["actual"])  # y = x


def test_the_figures_on_a_heatmap_take_the_ink_that_reads_on_their_cell():
    """A weight's figures are white from some share of the top weight on, near-black below: on every cell of Vega's
    blues (style.BLUES, checked against Vega itself in tests/test_chart_style.py) the ink chosen contrasts at least
    4:1, and no worse than 0.1 below the other ink (white from 0.55 of the top was 3.1:1)."""
    import re

    from _chartspec import contrast

    from explorer.charts.style import BLUES

    (text,) = {json.dumps(view["layer"][2]["mark"]["color"]) for view in heatmap_views(chart(2))}
    white_from = float(re.search(r"datum\.vmax \* ([0-9.]+)", text).group(1))
    for share in np.linspace(0, 1, 201):
        x = share * (len(BLUES) - 1)
        i = min(int(x), len(BLUES) - 2)
        a, b = ([int(h[k : k + 2], 16) for k in (1, 3, 5)] for h in BLUES[i : i + 2])
        cell = "#" + "".join(f"{int(u + (x - i) * (v - u) + 0.5):02x}" for u, v in zip(a, b, strict=True))
        ink, other = ("#FFFFFF", "#0F172A") if share >= white_from else ("#0F172A", "#FFFFFF")
        assert contrast(ink, cell) >= max(4.0, contrast(other, cell) - 0.1), (share, cell, ink)


def test_heatmaps_sort_by_place_and_share_one_colour_scale_and_legend():
    spec = chart(2)
    assert spec["resolve"]["scale"]["color"] == "shared"
    legends = []
    for view in heatmap_views(spec):
        reach, cells, text = view["layer"]
        assert cells["encoding"]["x"]["sort"] == {"field": "col", "op": "min"}
        assert cells["encoding"]["y"]["sort"] == {"field": "row", "op": "min"}
        for layer in (reach, cells):
            scale = layer["encoding"]["color"]["scale"]
            assert scale["domainMin"] == 0 and scale["nice"] is False and "domain" not in scale
            legends.append(layer["encoding"]["color"]["legend"])
        assert text["encoding"]["text"]["format"] == ".2f"
    assert all(legend == legends[0] for legend in legends)
    for top in (0.53, 0.9, 1.0):  # the legend's labels: 0, vmax/2, vmax, as Vega computes them

        def domain(name, top=top):
            return [0.0, top] if name == "color" else None

        assert eval(legends[0]["values"]["expr"], {"domain": domain}) == pytest.approx([0.0, top / 2, top])
    assert legends[0]["format"] == ".2f" and legends[0]["labelOverlap"] is False
    assert legends[0]["gradientLength"] <= 160 and legends[0]["direction"] == "horizontal"


def test_values_printed_in_the_cells_in_white_on_dark_cells_on_both_themes():
    spec = chart(2)
    text = heatmap_views(spec)[0]["layer"][2]
    dark_text = heatmap_views(_walk_dark(spec))[0]["layer"][2]
    for layer in (text, dark_text):
        assert "color" not in layer["encoding"]
        # pale cells (a third of the top weight, or none) near-black, dark ones (from 0.78 of it) white; where between
        # the two the ink turns is test_the_figures_on_a_heatmap_take_the_ink_that_reads_on_their_cell's
        for weight, want in ((0.0, "#0f172a"), (0.3, "#0f172a"), (0.7, "#ffffff"), (0.9, "#ffffff")):
            row = cs._Row({"weight": weight, "vmax": 0.9})
            got = eval(cs.py_expr(layer["mark"]["color"]["expr"]), {"__builtins__": {}}, {"datum": row})
            assert got.lower() == want, (weight, got)


def test_many_words_drop_the_values_and_show_positions_only():
    n = 20
    spec = chart(n, dims=(2, 4))
    for view in heatmap_views(spec):
        assert [cs.mark_type(layer) for layer in view["layer"]] == ["rect", "rect"]  # no printed values
        assert "split(datum.label" in view["layer"][1]["encoding"]["x"]["axis"]["labelExpr"]
        assert view["height"] >= 17 * n  # room for every row label at >= 13 px


@pytest.mark.parametrize(("n", "phone", "plain", "presenting"), [(6, False, 1, 1), (8, False, 1, 0), (8, True, 1, 0)])
def test_values_print_where_the_cell_holds_them_at_the_text_s_size(n, phone, plain, presenting):
    """Up to 8 words the cells carry their values, shown (opacity 1) where a cell is at least 28 px wide at the
    normal text size and 28 × 1.35 px at presentation size (explorer.charts.style's font scale, set in the browser)."""
    spec = chart(n, dims=(2, 4), phone=phone)
    (scale,) = [p for p in spec["params"] if p["name"] == "font_scale"]
    assert scale["value"] == 1
    text = heatmap_views(spec)[0]["layer"][2]
    expr = text["mark"]["opacity"]["expr"]
    for font_scale, want in ((1, plain), (1.35, presenting)):
        assert eval(cs.py_expr(expr), {"__builtins__": {}}, {"font_scale": font_scale}) == want


def test_on_a_phone_the_heatmaps_stand_one_under_another():
    assert "vconcat" in chart(phone=True)["vconcat"][1] and "hconcat" in chart()["vconcat"][1]


@pytest.mark.parametrize("pe", ["none", "sinusoidal", "learned", "rope"])
def test_the_scatter_s_title_is_true_at_every_d(pe):
    """Blind at every d: on the diagonal; blind at none: off it; blind at some d only: a title true at each."""
    title = chart(pe=pe, gaps=(0.0, 0.0, 0.0))["vconcat"][0]["title"]
    assert "every dot is on the diagonal" in title["text"] and PE_LABELS[pe] in title["text"]
    title = chart(pe=pe, gaps=(0.5, 1.0, 2.0))["vconcat"][0]["title"]
    assert "leave the diagonal" in title["text"] and "new outputs" in title["subtitle"]
    title = chart(pe=pe, gaps=(0.0, 1.0, 2.0))["vconcat"][0]["title"]
    assert "every dot" not in title["text"] and "leave" not in title["text"] and PE_LABELS[pe] in title["text"]


def test_new_numbers_for_the_same_sentence_change_only_the_data():
    """The spec (all but the rows) depends on the words, the position signal and the slider's start: new
    numbers (another seed) redraw the chart in place."""
    one, two = (stable_dataset_names(chart(5, seed=s)) for s in (0, 1))
    assert one["datasets"] != two["datasets"]
    assert {k: v for k, v in one.items() if k != "datasets"} == {k: v for k, v in two.items() if k != "datasets"}
