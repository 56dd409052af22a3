"""Chart builders of the home page (explorer/charts/home.py), checked through chart.to_dict()."""

from __future__ import annotations

import _chartspec as cs
import numpy as np
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


# ---------------------------------------------------------------------------- attention heatmap
def _legend_values(spec: dict, vmax: float) -> list[float]:
    """The legend's labels as Vega computes them, given that the colour scale runs from 0 to vmax."""
    legend = layers(spec)[1]["encoding"]["color"]["legend"]
    expr = legend["values"]["expr"]
    return eval(expr, {"domain": lambda name: [0.0, vmax] if name == home.COLOR_SCALE else None})


def _scale_reach(spec: dict) -> set[float]:
    """The values the invisible layer puts on the colour scale (max of the rows' vmax, per chart)."""
    reach = layers(spec)[0]
    assert reach["mark"]["opacity"] == 0 and reach["encoding"]["color"]["field"] == "vmax"
    assert reach["transform"] == [{"aggregate": [{"op": "max", "field": "vmax", "as": "vmax"}]}]
    return {r["vmax"] for r in rows(spec, reach)}


def test_attention_heatmap_small_has_values_and_fixed_scale():
    w = np.array([[0.7, 0.3], [0.25, 0.75]])
    spec = home.attention_heatmap(w, ["dog", "bites"], title="Original sentence", subtitle="A(X)", vmax=0.9).to_dict()
    assert marks(spec) == ["rect", "rect", "text"]
    _, rect, text = layers(spec)
    assert rect["encoding"]["x"]["field"] == "key" and rect["encoding"]["y"]["field"] == "query"
    assert rect["encoding"]["x"]["sort"] == ["0 dog", "1 bites"]
    # The colour scale starts at 0 and reaches vmax (the invisible layer maps vmax onto it), not the
    # chart's own largest weight 0.75: several heatmaps share one scale.
    for layer in layers(spec)[:2]:
        scale = layer["encoding"]["color"]["scale"]
        assert scale["domainMin"] == 0 and scale["nice"] is False and "domain" not in scale
    assert _scale_reach(spec) == {0.9}
    assert text["encoding"]["text"]["format"] == ".2f"
    # White figures on the dark cells (above 55 % of vmax), near-black on the pale ones, on both themes: the dark
    # theme's recolouring lightens literal dark colours, and the cells' blues stay as they are
    for layer in (text, layers(_walk_dark(spec))[2]):
        assert "color" not in layer["encoding"]
        for weight, want in ((0.0, "#0F172A"), (0.495, "#0F172A"), (0.5, "#FFFFFF"), (0.9, "#FFFFFF")):
            row = cs._Row({"weight": weight, "vmax": 0.9})
            assert eval(cs.py_expr(layer["mark"]["color"]["expr"]), {"__builtins__": {}}, {"datum": row}) == want
    # The values hide (in the browser) where a cell is too narrow to hold them: 2 cells per row.
    assert text["mark"]["opacity"] == {"expr": f"width / 2 >= {home.MIN_CELL_PX_FOR_VALUES} ? 1 : 0"}
    data = {(r["query"], r["key"]): (r["weight"], r["vmax"]) for r in rows(spec, rect)}
    assert data == {
        ("0 dog", "0 dog"): (0.7, 0.9),
        ("0 dog", "1 bites"): (0.3, 0.9),
        ("1 bites", "0 dog"): (0.25, 0.9),
        ("1 bites", "1 bites"): (0.75, 0.9),
    }
    assert spec["title"]["text"] == "Original sentence" and spec["title"]["subtitle"] == "A(X)"
    assert spec["config"]["axis"]["labelFontSize"] >= 13


def test_attention_heatmap_large_drops_values_and_shows_positions():
    n = 20
    w = np.full((n, n), 1 / n)
    spec = home.attention_heatmap(w, [f"w{i}" for i in range(n)], title="t").to_dict()
    assert marks(spec) == ["rect", "rect"]
    assert len(rows(spec, layers(spec)[1])) == n * n
    axis = layers(spec)[1]["encoding"]["x"]["axis"]
    assert "split(datum.label" in axis["labelExpr"]
    assert spec["height"] >= 17 * n  # room for every row label at >= 13 px
    assert _scale_reach(spec) == {max(w.ravel())}  # no vmax given: the largest weight


def test_new_weights_for_the_same_sentence_change_only_the_data():
    """The spec (all but the rows) depends on the words and titles only: the browser redraws in place."""
    words = ["a", "dog", "bit", "the", "man"]
    one, two = (  # as the app sends them (explorer.render: datasets named by their order)
        stable_dataset_names(
            home.attention_heatmap(
                np.random.default_rng(s).dirichlet(np.ones(5), 5), words, title="t", vmax=v
            ).to_dict()
        )
        for s, v in ((0, 0.6), (1, 0.8))
    )
    assert one["datasets"] != two["datasets"]
    assert {k: v for k, v in one.items() if k != "datasets"} == {k: v for k, v in two.items() if k != "datasets"}


@pytest.mark.parametrize("vmax", [0.53, 0.9, 1.0])
def test_attention_heatmap_legend_labels_stay_inside_the_gradient(vmax):
    """The legend's labels are 0, vmax/2 and vmax (the end labels sit flush with the gradient's
    ends, so none hangs past it), every one printed in full, on a gradient short enough to fit
    under the plot of a narrow column."""
    w = np.array([[0.47, 0.53], [0.2, 0.8]]) * min(vmax, 0.9)
    spec = home.attention_heatmap(w, ["dog", "bites"], title="t", vmax=vmax).to_dict()
    legend = layers(spec)[1]["encoding"]["color"]["legend"]
    assert _legend_values(spec, vmax) == pytest.approx([0.0, vmax / 2, vmax])
    assert _scale_reach(spec) == {vmax}
    assert legend["format"] == ".2f" and legend["labelOverlap"] is False  # "0.53", never "0."
    assert legend["gradientLength"] <= 160 and legend["direction"] == "horizontal"
    assert layers(spec)[0]["encoding"]["color"]["legend"] == legend  # one legend for both layers


def test_attention_heatmap_shape_mismatch():
    with pytest.raises(ValueError, match="weights must have shape"):
        home.attention_heatmap(np.zeros((2, 3)), ["a", "b"], title="t")


# ------------------------------------------------------------------------- equivariance scatter
def test_scatter_on_the_diagonal_when_blind():
    y = np.array([[0.5, -1.0], [2.0, 0.0]])
    spec = home.equivariance_scatter(y, y + 1e-17, pe="none", gap=1e-16).to_dict()
    assert marks(spec) == ["line", "circle"]
    assert "every dot is on the diagonal" in spec["title"]["text"]
    assert "no position signal" in spec["title"]["text"]
    line, dots = layers(spec)
    pts = rows(spec, dots)
    assert [r["expected"] for r in pts] == [0.5, -1.0, 2.0, 0.0]
    diag = rows(spec, line)
    assert [(r["expected"], r["actual"]) for r in diag] == [(d["expected"], d["expected"]) for d in diag]
    assert diag[0]["expected"] < -1.0 and diag[1]["expected"] > 2.0  # covers every point
    assert dots["encoding"]["x"]["title"] == "original outputs, re-ordered like the words"
    assert dots["encoding"]["y"]["title"] == "outputs for the shuffled sentence"
    # No fixed domain: both scales take it from the marks, so the diagonal's ends (the padded range)
    # set it, on both axes alike.
    for layer in (line, dots):
        for channel in ("x", "y"):
            assert layer["encoding"][channel]["scale"] == {"zero": False, "nice": False}


@pytest.mark.parametrize("pe", ["sinusoidal", "learned", "rope"])
def test_scatter_leaves_the_diagonal_with_a_position_signal(pe):
    e = np.array([0.0, 1.0, 2.0])
    a = np.array([0.5, 1.0, 1.0])
    spec = home.equivariance_scatter(e, a, pe=pe, gap=1.0).to_dict()
    assert "leave the diagonal" in spec["title"]["text"]
    assert PE_LABELS[pe] in spec["title"]["text"]
    assert "new outputs" in spec["title"]["subtitle"]
    diffs = [r["difference"] for r in rows(spec, layers(spec)[1])]
    assert diffs == [0.5, 0.0, -1.0]


def test_attention_heatmap_refuses_a_vmax_below_its_largest_weight():
    """The scale reaches every weight drawn: a smaller vmax would not be the top of the legend."""
    with pytest.raises(ValueError, match=r"vmax must be at least the largest weight 0\.75"):
        home.attention_heatmap(np.array([[0.75, 0.25], [0.5, 0.5]]), ["a", "b"], title="t", vmax=0.6)
