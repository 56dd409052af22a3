"""explorer.charts.lab: the lab's builders, read through chart.to_dict() by what each layer shows."""

from __future__ import annotations

import json
from pathlib import Path

import _chartspec as cs
import numpy as np
import pandas as pd
import pytest

from explorer.charts import lab as charts
from explorer.charts import style
from explorer.charts.style import style_spec
from explorer.imagechart import meta as image_meta
from explorer.render import stable_dataset_names
from explorer.text import lab as text

REFS = {"floor": 1.2, "uniform": 2.0794}


def curve(**kw):
    data = pd.DataFrame(
        [
            {"method": "rope", "length": 64, "value": 1.4, "lo": 1.39, "hi": 1.41, "learned": True},
            {"method": "rope", "length": 128, "value": 1.5, "lo": 1.48, "hi": 1.52, "learned": True},
            {"method": "learned", "length": 64, "value": 1.45, "lo": 1.45, "hi": 1.45, "learned": True},
            {"method": "learned", "length": 128, "value": None, "lo": None, "hi": None, "learned": True},  # no rows
            {"method": "alibi", "length": 64, "value": 1.9, "lo": 1.8, "hi": 2.0, "learned": False},
            {"method": "alibi", "length": 128, "value": 1.9, "lo": 1.8, "hi": 2.0, "learned": False},
        ]
    )
    args = dict(x="length", x_title="length", metric="loss", train_len=64, references=REFS, title="t", log_x=True)
    return charts.curve_chart(data, **(args | kw)).to_dict()


def test_lines_leave_out_values_that_do_not_exist():
    spec = curve()
    (line,) = cs.find(spec, "line")
    rows = cs.frame(spec, line)
    assert len(rows) == 5 and not rows["value"].isna().any()  # learned at 128: no point, not a 0
    assert set(rows[rows["method"] == "learned"]["length"]) == {64}


def test_references_and_the_training_length_are_marked():
    spec = curve()
    rules = cs.find(spec, "rule")
    values = {tuple(cs.frame(spec, r).get("value", pd.Series(dtype=float)).round(4)) for r in rules}
    assert (1.2, 2.0794) in values  # one dotted rule per reference, at its value
    texts = [cs.frame(spec, t) for t in cs.find(spec, "text")]
    labels = {str(v) for t in texts for col in ("reference", "label") if col in t for v in t[col]}
    assert {"floor", "uniform", "L = 64"} <= labels
    # each reference's name is drawn last over a halo in the card's colour: a curve passing behind it does not cross it
    order = [i for i, layer in enumerate(spec["layer"]) if cs.mark_type(layer) in ("line", "text")]
    named = [i for i in order if "reference" in cs.frame(spec, spec["layer"][i])]
    assert len(named) == 2 and min(named) > max(i for i in order if cs.mark_type(spec["layer"][i]) == "line")
    halo, label = (spec["layer"][i]["mark"] for i in named)
    assert halo["stroke"] == halo["color"] == style.HALO and label["color"] != style.HALO and "stroke" not in label
    l_rule = [cs.frame(spec, r) for r in rules if "length" in cs.frame(spec, r)]
    assert [list(f["length"]) for f in l_rule] == [[64]]


def test_the_95_percent_band_is_drawn_only_when_asked_from_lo_to_hi():
    assert not cs.find(curve(), "area")
    (area,) = cs.find(curve(band=True), "area")
    band = cs.frame(curve(band=True), area)
    rope128 = band[(band["method"] == "rope") & (band["length"] == 128)].iloc[0]
    assert np.isclose(rope128["lo"], 1.48) and np.isclose(rope128["hi"], 1.52)
    assert area["encoding"]["color"]["legend"]["symbolOpacity"] == 1  # the shared legend is drawn opaque


def test_rows_that_did_not_learn_are_drawn_dashed_and_faint():
    spec = curve()
    (line,) = cs.find(spec, "line")
    rows = cs.frame(spec, line)
    assert set(rows[rows["method"] == "alibi"]["row"]) == {"did not learn the task"}
    assert set(rows[rows["method"] == "rope"]["row"]) == {"learned the task"}
    enc = line["encoding"]
    assert enc["strokeDash"]["field"] == "row" and enc["strokeDash"]["scale"]["range"] == [[1, 0], [3, 3]]
    assert enc["opacity"]["condition"]["field"] == "row"  # (while no method is picked: `curve_chart`'s PICK)
    assert enc["opacity"]["condition"]["scale"]["range"] == [1.0, 0.45]


@pytest.mark.parametrize("band", [False, True])
def test_a_tap_on_a_legend_entry_picks_that_method_and_fades_the_others(band):
    """Twelve lines are hard to tell apart on a phone: a point selection on the method, bound to the legend (and a tap
    on a line), keeps the picked method's line and band as they are and fades every other one well below the faint
    rows' 0.45; with nothing picked every line is as before (Vega-Lite's empty selection selects all)."""
    spec = curve(band=band)
    (line,) = cs.find(spec, "line")
    (pick,) = [p for p in [*spec.get("params", []), *line.get("params", [])] if p["name"] == charts.PICK]
    assert pick["select"]["type"] == "point" and pick["select"]["fields"] == ["method"] and pick["bind"] == "legend"
    assert pick["select"]["toggle"] == "true"  # a second tap puts a method back: no double tap needed on a phone
    assert spec["title"]["subtitle"][-1] == charts.PICK_HINT  # and the chart says how
    faded = line["encoding"]["opacity"]
    assert faded["condition"]["param"] == charts.PICK and faded["condition"].get("empty", True) is True
    assert faded["value"] < 0.45 / 2
    for area in cs.find(spec, "area"):
        shade = area["encoding"]["opacity"]
        assert shade["condition"] == {"param": charts.PICK, "value": charts.BAND_OPACITY}
        assert shade["value"] < charts.BAND_OPACITY / 2
    assert len(cs.find(spec, "area")) == int(band)


def test_the_metric_names_its_direction():
    assert "lower is better" in charts.metric_title("loss")
    assert "higher is better" in charts.metric_title("accuracy")
    assert "above the optimum" in charts.metric_title("excess")


def test_the_attention_chart_is_one_image_of_the_weights():
    w = np.tril(np.ones((8, 8)))
    w /= w.sum(axis=1, keepdims=True)
    spec = charts.attention_chart(w, title="rope: layer 0, head 1").to_dict()
    assert image_meta(spec)["shape"] == [8, 8]
    assert cs.facts_text(spec, spec["title"]["text"]) == "rope: layer 0, head 1"  # as the browser shows it


def test_the_attention_charts_hover_grid_is_coarse_but_exact():
    """At 64 tokens the hover rects are about 20 px each on the 480 × 420 plot (at most 504, fewer than
    the 4,096 weights); they cover every (query, key) once, each with the exact weight of its centre cell."""
    rng = np.random.default_rng(0)
    w = np.tril(rng.random((64, 64)))
    w /= w.sum(axis=1, keepdims=True)
    spec = charts.attention_chart(w, title="rope: layer 0, head 1").to_dict()
    hover = [layer for layer in cs.layers(spec) if "tooltip" in layer.get("encoding", {})]
    cells = cs.frame(spec, hover[0])
    assert 64 <= len(cells) <= 504
    covered = np.zeros((64, 64), dtype=int)
    for row in cells.itertuples():  # a rect spans cell edges: position ± 0.5
        q0, q1, k0, k1 = (int(round(v + 0.5)) for v in (row.y0, row.y1, row.x0, row.x1))
        covered[q0:q1, k0:k1] += 1
        assert q0 <= row.yv < q1 and k0 <= row.xv < k1
        assert row.value == w[int(row.yv), int(row.xv)]
    assert np.all(covered == 1)


def test_another_head_changes_only_the_attention_charts_rows():
    """The title travels in the facts row, so the browser redraws the chart in place for another head
    (explorer.render.stable_dataset_names names the datasets as the page sends them)."""
    w = np.tril(np.ones((8, 8)))
    w /= w.sum(axis=1, keepdims=True)
    a, b = (
        stable_dataset_names(charts.attention_chart(weights, title=title, subtitle="one sequence").to_dict())
        for weights, title in ((w, "rope: layer 0, head 1"), (w**2, "rope: layer 1, head 3 at 512 tokens"))
    )
    assert {k: v for k, v in a.items() if k != "datasets"} == {k: v for k, v in b.items() if k != "datasets"}
    assert a["datasets"] != b["datasets"]
    assert "head" not in a["description"] and "one sequence" in a["description"]


def test_a_live_runs_flags_reach_the_frame():
    frame = charts.curves_frame({"rope": {"16": 1.0}, "alibi": {"16": 0.4}}, learned={"rope": True, "alibi": False})
    assert dict(zip(frame["method"], frame["learned"])) == {"rope": True, "alibi": False}
    assert "learned" not in charts.curves_frame({"rope": {"16": 1.0}})


# ------------------------------------------------------------------------------ on a phone and a projector
SHOWN = text.shown(
    json.loads((Path(__file__).resolve().parent.parent / "data" / "lab" / "results.json").read_text()), "markov"
)


def position_spec() -> dict:
    """The Per position tab's chart as the page builds it from the shipped results."""
    rows = charts.rows_frame(text.position_rows(SHOWN), x="position")
    return charts.curve_chart(rows, **text.position_chart(SHOWN)).to_dict()


def extension_spec() -> dict:
    """The Extension tab's chart: plain RoPE and a scaled one whose name is long."""
    base, scaled = {64: 1.45, 128: 1.45, 256: 1.86, 512: 2.13}, {64: 1.45, 128: 1.41, 256: 1.48, 512: 1.7}
    curves = text.extension_curves(base, scaled, method="rope+yarn:beta_fast=32")
    args = dict(x="length", x_title="evaluation length", metric="loss", train_len=64, references=REFS, title="t")
    return charts.curve_chart(charts.curves_frame(curves), **args, log_x=True).to_dict()


@pytest.mark.parametrize(
    ("plot", "presenting"), [(cs.PHONE_PLOT, False), (cs.PROJECTOR_PLOT, True)], ids=["phone", "present"]
)
@pytest.mark.parametrize("build", [position_spec, extension_spec], ids=["per position", "extension"])
def test_every_legend_fits_the_plot(build, plot, presenting):
    """Eleven shipped models, and "rope+yarn:beta_fast=32" beside plain RoPE: two fixed columns on a phone put the
    second entry past its right edge."""
    spec = build()
    assert not cs.legend_overflow(spec, plot, presenting=presenting)


def test_the_per_position_x_titles_lines_each_fit_a_phones_plot():
    """ "position in one 512-token evaluation (32-token bins)" on one line was wider than a phone's plot; every line of
    the title fits it, and together they still say both numbers."""
    spec = style_spec(position_spec())
    size = spec["config"]["axis"]["titleFontSize"]
    (line,) = cs.find(spec, "line")
    title = line["encoding"]["x"]["title"]
    lines = [title] if isinstance(title, str) else title
    assert all(cs.label_px(t, size) <= cs.PHONE_PLOT for t in lines), [(t, cs.label_px(t, size)) for t in lines]
    assert f"{SHOWN.longest}-token evaluation" in " ".join(lines) and "-token bins" in " ".join(lines)
