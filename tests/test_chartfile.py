"""explorer.chartfile (issue #36, "leave the app as a file"): a page's Vega-Lite dict as plain
Vega-Lite, as a self-contained HTML page, an SVG and a projector-size PNG. The files themselves are
opened in Chromium from disk with every request refused in tests/test_e2e_chartfile.py."""

from __future__ import annotations

import copy
import json
import math
import re
import struct

import altair as alt
import numpy as np
import pandas as pd
import pytest

from explorer import chartfile, compat
from explorer.render import stable_dataset_names


def page_spec(chart) -> dict:
    """A chart's dict as `show_chart` has it before styling (Streamlit's form: Arrow datasets)."""
    return stable_dataset_names(compat.vega_lite_spec(chart))


def line_chart(frame: pd.DataFrame) -> alt.Chart:
    return alt.Chart(frame).mark_line().encode(x="x:Q", y="y:Q").properties(title="A line")


def test_a_dataset_comes_back_with_every_bit_of_every_float():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": np.arange(50), "y": rng.normal(size=50) * 1e-7, "name": [f"w{i}" for i in range(50)]})
    spec = page_spec(line_chart(frame))
    (data,) = spec["datasets"].values()
    assert isinstance(data, bytes)  # Streamlit's form: Arrow
    rows = chartfile.dataset_rows(data)
    assert [r["x"] for r in rows] == list(range(50))
    assert [r["y"] for r in rows] == frame["y"].tolist()  # equal floats, not close ones
    assert [r["name"] for r in rows] == frame["name"].tolist()
    assert all(not k.startswith("__index") for r in rows for k in r)
    back = json.loads(json.dumps(rows))
    assert [r["y"] for r in back] == frame["y"].tolist()  # and through JSON text


def test_non_finite_values_become_null_as_vega_reads_a_missing_value():
    spec = page_spec(line_chart(pd.DataFrame({"x": [0.0, 1.0, 2.0], "y": [1.0, math.nan, math.inf]})))
    rows = chartfile.dataset_rows(next(iter(spec["datasets"].values())))
    assert [r["y"] for r in rows] == [1.0, None, None]
    json.dumps(rows, allow_nan=False)  # valid JSON


def test_a_dataset_of_another_kind_is_refused_with_its_type():
    with pytest.raises(ValueError, match="Arrow bytes or a list of rows, got dict"):
        chartfile.dataset_rows({"x": 1})


def test_the_standalone_spec_has_json_rows_a_width_and_the_light_card_and_leaves_its_input_alone():
    spec = page_spec(line_chart(pd.DataFrame({"x": [0, 1], "y": [2.0, 3.0]})))
    before = copy.deepcopy(spec)
    out = chartfile.standalone_spec(spec)
    assert spec == before
    assert out["datasets"]["data-0"] == [{"x": 0, "y": 2.0}, {"x": 1, "y": 3.0}]
    assert out["width"] == chartfile.FILE_WIDTH  # the app let it fill its column; a file has none
    assert out["config"]["background"].upper() in ("WHITE", "#FFFFFF")  # the light card
    assert out["description"] == "Chart: A line"
    presented = chartfile.standalone_spec(spec, presenting=True)
    # presentation mode's sizes: larger than Vega-Lite's own defaults (13 px titles, 10 px labels)
    assert presented["config"]["title"]["fontSize"] > 13 and presented["config"]["axis"]["labelFontSize"] > 10
    assert "fontSize" not in out["config"].get("title", {})


def test_a_chart_with_its_own_width_or_a_concatenation_keeps_its_layout():
    frame = pd.DataFrame({"x": [0, 1], "y": [2.0, 3.0]})
    fixed = chartfile.standalone_spec(page_spec(line_chart(frame).properties(width=333)))
    assert fixed["width"] == 333
    both = chartfile.standalone_spec(page_spec(alt.hconcat(line_chart(frame), line_chart(frame))))
    assert "width" not in both


def test_a_spec_that_is_not_a_dict_is_refused():
    with pytest.raises(ValueError, match="spec must be a non-empty Vega-Lite dict, got list"):
        chartfile.standalone_spec([])


@pytest.mark.parametrize("name", ["", "Rope", "../etc", "a b", "x/y", None])
def test_a_file_name_takes_only_safe_names(name):
    with pytest.raises(ValueError, match="name must be lower-case"):
        chartfile.file_name(name, "html")


def test_a_file_name_takes_only_the_three_kinds():
    assert chartfile.file_name("rope_plane", "png") == "posenc_rope_plane.png"
    with pytest.raises(ValueError, match="suffix must be 'html', 'svg' or 'png', got 'exe'"):
        chartfile.file_name("rope_plane", "exe")


HOSTILE = "</script><script>window.pwned=1</script><!-- & \u2028"


def hostile_chart() -> alt.Chart:
    """A chart whose data and title hold text that would end a script element (the home page's
    sentence is a user's text)."""
    frame = pd.DataFrame({"x": [0, 1], "y": [1.0, 2.0], "word": [HOSTILE, "ok"]})
    return alt.Chart(frame).mark_text().encode(x="x:Q", y="y:Q", text="word:N").properties(title=HOSTILE)


def test_the_html_file_is_one_page_with_the_libraries_inlined_and_no_address_to_fetch():
    page = chartfile.html_file(page_spec(hostile_chart()), title="Title <b>", footer="From <here>")
    assert page.startswith("<!DOCTYPE html>")
    assert page.lower().count("<script") == 2  # the bundle and the embedding, nothing injected
    assert page.lower().count("</script>") == 2
    assert "<title>Title &lt;b&gt;</title>" in page
    assert "From &lt;here&gt;" in page
    assert "window.pwned" in page and "<script>window.pwned" not in page  # the text is there, escaped
    assert not re.search(r"""(src|href)\s*=\s*["']https?:""", page)  # nothing loaded from a server
    assert len(page) < 2_000_000
    embedded = page[page.rindex('vegaEmbed("#chart", ') + len('vegaEmbed("#chart", ') :]
    spec = json.JSONDecoder().raw_decode(embedded)[0]
    assert spec["datasets"]["data-0"][0]["word"] == HOSTILE  # the JSON decodes back to the text


def test_the_html_file_draws_on_the_renderer_the_chart_asks_the_app_for():
    from explorer.charts.style import on_canvas

    frame = pd.DataFrame({"x": [0.0, 1.0], "y": [1.0, 2.0]})
    plain = chartfile.html_file(page_spec(line_chart(frame)), title="t", footer="f")
    canvas = chartfile.html_file(page_spec(line_chart(frame).properties(usermeta=on_canvas())), title="t", footer="f")
    assert '"renderer": "svg"' in plain and '"renderer": "canvas"' not in plain
    assert '"renderer": "canvas"' in canvas and '"renderer": "svg"' not in canvas


def test_the_svg_and_the_png_are_pictures_of_the_chart_at_projector_size():
    spec = page_spec(line_chart(pd.DataFrame({"x": [0, 1, 2], "y": [2.0, 3.0, 1.0]})))
    svg = chartfile.svg_file(spec)
    assert svg.lstrip().startswith("<svg") and "A line" in svg
    png = chartfile.png_file(spec)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert width >= chartfile.FILE_WIDTH * chartfile.PNG_SCALE  # at least 1800 px across
    assert height > 200


def test_a_files_sliders_are_narrowed_to_the_pages_ranges():
    """narrow_sliders: the named range inputs take the page's ends (one end or both) and a start outside moves inside;
    other sliders and the data are untouched, the input spec is unchanged, and no ranges give the spec itself."""
    from explorer.charts import live

    frame = pd.DataFrame({"x": [1, 2, 3], "y": [4.0, 5.0, 6.0]})
    n = live.position("seq_len", start=200, lo=1, hi=256, label="positions N ")
    t = live.position("shift_t", start=16, lo=1, hi=1000, label="shift t ")
    m = live.position("m", start=5, lo=0, hi=50, label="m ")
    spec = page_spec(alt.layer(line_chart(frame).add_params(n, t, m), line_chart(frame)))
    before = copy.deepcopy(spec)
    narrowed = chartfile.narrow_sliders(spec, {"seq_len": {"min": 3, "max": 120}, "shift_t": {"max": 500}})
    assert spec == before and narrowed["datasets"] is spec["datasets"]
    params = {p["name"]: p for p in narrowed["params"] if "bind" in p}
    assert (params["seq_len"]["bind"]["min"], params["seq_len"]["bind"]["max"], params["seq_len"]["value"]) == (
        3,
        120,
        120,
    )
    assert (params["shift_t"]["bind"]["min"], params["shift_t"]["bind"]["max"], params["shift_t"]["value"]) == (
        1,
        500,
        16,
    )
    assert params["m"] == {p["name"]: p for p in spec["params"] if "bind" in p}["m"]
    assert chartfile.narrow_sliders(spec, {}) is spec
