"""Facts from the data (explorer.charts.style: `facts_layer`, `fact`, `title_facts`, `title_expr`):
a chart's title and scale ends read from one row of its data, so new numbers leave its spec as it
was. The title expression is evaluated by node (JavaScript, as in the browser) with Vega's `data`
and `split`; what it shows is checked against the words given, not against the wrapping code."""

from __future__ import annotations

import json
import shutil
import subprocess

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from _chartspec import rope_vector_sliders

from explorer import compat
from explorer.charts import extension, lab, rope, style
from explorer.render import stable_dataset_names

NODE = shutil.which("node")
TITLE = "Scaling stretches 21 of 32 wavelengths; 9 pairs are longer than L and never complete a turn in training"


def shown(row: dict, width: float, font_scale: float = 1) -> list[str]:
    """The title lines the browser shows for the facts row `row` at plot width `width`."""
    script = (
        f"const row = {json.dumps(row)};"
        "const data = (name) => { if (name !== 'data-0') throw new Error(name); return [row]; };"
        "const split = (s, sep) => s.split(sep);"
        f"const width = {width}, font_scale = {font_scale};"
        f"console.log(JSON.stringify({style.title_expr()}));"
    )
    out = subprocess.run([NODE, "-e", script], capture_output=True, text=True, check=True, timeout=30)
    return json.loads(out.stdout)


@pytest.mark.skipif(NODE is None, reason="node evaluates the title expression")
@pytest.mark.parametrize("font_scale", [1, 1.5])
@pytest.mark.parametrize("width", [180, 300, 400, 620, 700, 900, 1200, 2000])
def test_a_data_title_shows_every_word_and_wraps_only_as_far_as_the_width_needs(width, font_scale):
    size = 19
    row = style.title_facts(TITLE, size)
    lines = shown(row, width, font_scale)
    assert " ".join(lines).split() == TITLE.split()  # every word, in order
    px = size * font_scale * style.CHAR_EM  # a character's average width at this size
    if len(TITLE) * px <= width:
        assert lines == [TITLE]  # room enough: one line
    elif width >= min(style.WRAP_WIDTHS) * font_scale:
        assert len(lines) > 1 and all(len(line) * px <= width for line in lines)


@pytest.mark.skipif(NODE is None, reason="node evaluates the title expression")
def test_a_data_title_keeps_the_lines_it_was_given():
    row = style.title_facts(["First line", "second line"], 19)
    assert shown(row, 2000) == ["First line", "second line"]


def _wavelengths():
    inv = 10000.0 ** (-np.arange(16) / 16)
    return extension.wavelength_chart(inv, inv / 4, train_len=4096, target_len=16384)


def _live_plane():
    return rope.live_pair_chart(
        np.array([1.0, 0.5]),
        np.array([-0.4, 1.2]),
        **rope_vector_sliders((1.0, 0.5), (-0.4, 1.2)),
        base=10000.0,
        base_options=(10.0, 10000.0),
        head_dim=16,
        j=2,
        m=3,
        n=5,
        p_max=100,
    )


def _plane():
    arrows = pd.DataFrame(
        {"vector": ["q", "k"], "state": ["before"] * 2, "label": ["q", "k"], "x": [1.0, 0.0], "y": [0.0, 2.0]}
    )
    return rope.plane_chart(arrows, title="Pair j = 4: θ_j = 0.25 rad")


def _attention():
    return lab.attention_chart(np.full((4, 4), 0.25), title="rope: layer 1, head 2 at 64 tokens")


@pytest.mark.parametrize(
    "build, expected",
    [
        (_wavelengths, {"last_pair": 15}),
        (_attention, {"title": "rope: layer 1, head 2 at 64 tokens"}),
        (_live_plane, {"lim": 1.35 * float(np.hypot(-0.4, 1.2))}),
        (_plane, {"title": "Pair j = 4: θ_j = 0.25 rad", "lim": 1.45 * 2.0}),
    ],
)
def test_the_facts_row_is_the_first_dataset_under_its_stable_name(build, expected):
    """`fact(name)` reads data('data-0'): after `stable_dataset_names`, the one the browser gets, that
    is the facts layer's row, in a layered chart and in a concatenation's first view."""
    spec = stable_dataset_names(compat.vega_lite_spec(build()))
    first = spec["vconcat"][0] if "vconcat" in spec else spec
    assert first["layer"][0]["data"] == {"name": style.FACTS_DATA}
    title = first.get("title") or spec.get("title") or {}
    if isinstance(title, dict) and title.get("text") == {"expr": style.title_expr()}:  # a title from the facts
        assert style.FONT_SCALE_PARAM in {param["name"] for param in spec["params"]}  # which its expression reads
    (row,) = pa.ipc.open_stream(spec["datasets"][style.FACTS_DATA]).read_pandas().to_dict("records")
    for key, value in expected.items():
        assert row[key] == (pytest.approx(value) if isinstance(value, float) else value), key


def test_the_wavelength_axis_ends_at_the_last_pair_read_from_the_facts():
    spec = stable_dataset_names(compat.vega_lite_spec(_wavelengths()))
    x = [layer["encoding"]["x"] for layer in spec["layer"][1:] if "x" in layer.get("encoding", {})]
    scales = [enc["scale"] for enc in x if enc.get("field") == "pair"]
    assert scales and all(scale["domain"] == {"expr": f"[0, {style.fact('last_pair')}]"} for scale in scales)


def test_bad_facts_are_refused_by_name():
    with pytest.raises(ValueError, match="identifier"):
        style.fact("x; alert(1)")
    with pytest.raises(ValueError, match="'ticks' must be a string or a number"):
        style.facts_layer({"ticks": [1, 2]})
    with pytest.raises(ValueError, match="non-empty lines"):
        style.title_facts("", 19)
    with pytest.raises(ValueError, match="'lim' must be finite"):
        style.facts_layer({"lim": float("nan")})
    with pytest.raises(ValueError, match="identifier"):
        style.facts_layer({"a b": 1})
    with pytest.raises(ValueError, match="the title's own fields"):
        style.facts_titled([], title="t", font_size=16, facts={"title_px": 3})


def test_a_plane_describes_only_the_arrows_it_draws():
    text = _plane().to_dict()["description"]
    assert "q and k (before rotation)" in text and "after" not in text
