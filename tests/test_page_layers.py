"""AppTest of the decoder-layer picker on the RoPE, invariance and extension pages (issue #14), and
of the extension page's Llama 4 temperature chart.

Expected values re-typed from the published configs and HF transformers 5.23: Gemma 3 4B's layer 0
slides with base 10,000 and no scaling, its layer 5 (every 6th) is global with base 1,000,000 and
linear ×8; Llama 4 Scout's layer 3 (every 4th) has no RoPE, its layer 2 rotates with llama3 ×16,
base 500,000. Llama 4's q multiplier: HF ``Llama4TextAttention.forward``,
``log(floor((cache_position + 1) / floor_scale) + 1) * attn_scale + 1``.
"""

from __future__ import annotations

import json
import math

import _chartspec as cs
import pytest
from _apptest import metrics, page_path, run_page
from streamlit.testing.v1 import AppTest

from explorer.widgets import get

ROPE, INV, EXT = (
    page_path("pages/3_RoPE_rotation.py"),
    page_path("pages/4_Relative_invariance.py"),
    page_path("pages/5_Context_extension.py"),
)
GEMMA_LOCAL = "Layer 0 of 34 (sliding_attention): rotates with rope_type default, base 10,000; it attends to a sliding window of 1,024 tokens."
GEMMA_GLOBAL = (
    "Layer 5 of 34 (full_attention): rotates with rope_type linear, base 1,000,000; it attends to all earlier tokens."
)


def sidebar_captions(at) -> list[str]:
    return [c.value for c in at.sidebar.caption]


def value(at, key):
    """The widget `key`'s value, or where the key is a chart's own slider (explorer.liveparam: RoPE's
    head_dim), the value that slider starts at (for a slider over option indices, the base, that option)."""
    found = [
        w.value for w in [*at.selectbox, *at.select_slider, *at.number_input, *at.slider, *at.radio] if w.key == key
    ]
    if not found:
        options = get(key).options  # an in-chart slider over option indices (explorer.liveparam.option_index)
        found = [
            p["value"] if options is None else options[p["value"]]
            for chart in at.get("vega_lite_chart")
            for p in json.loads(chart.proto.spec).get("params", [])
            if p.get("name") == key and "bind" in p
        ]
    (one,) = found
    return one


@pytest.mark.parametrize("page", [ROPE, INV, EXT])
def test_gemma3_layer_0_and_layer_5_from_the_link(page):
    local = run_page(page, timeout=120, model="gemma3-4b", layer=0)
    assert value(local, "layer") == 0 and value(local, "base") == 10000 and value(local, "head_dim") == 256
    assert GEMMA_LOCAL in sidebar_captions(local)
    glob = run_page(page, timeout=120, model="gemma3-4b", layer=5)
    assert value(glob, "layer") == 5 and value(glob, "base") == 1000000
    assert GEMMA_GLOBAL in sidebar_captions(glob)
    assert value(local, "model") == value(glob, "model") == "gemma3-4b"  # the values are the model's
    if page == EXT:
        assert value(local, "rope_type") == "default"
        assert metrics(local)["Slowest pair slowed down by"] == "× 1"
        assert (value(glob, "rope_type"), value(glob, "factor")) == ("linear", 8.0)
        assert metrics(glob)["Slowest pair slowed down by"] == "× 8"  # linear: every pair ÷ 8


def test_picking_gemma3_opens_its_first_global_layer_and_the_number_moves_it():
    at = run_page(EXT, timeout=120)
    at.selectbox(key="model").set_value("gemma3-4b").run()
    assert not at.exception, [e.value for e in at.exception]
    assert value(at, "layer") == 5 and (value(at, "base"), value(at, "rope_type")) == (1000000, "linear")
    at.number_input(key="layer").set_value(0).run()
    assert not at.exception, [e.value for e in at.exception]
    assert (value(at, "base"), value(at, "rope_type")) == (10000, "default")
    assert value(at, "model") == "gemma3-4b" and GEMMA_LOCAL in sidebar_captions(at)


@pytest.mark.parametrize("page", [ROPE, INV, EXT])
def test_a_nope_layer_shows_the_nearest_rope_layer_and_says_so(page):
    at = run_page(page, timeout=120, model="llama4-scout", layer=3)
    (caption,) = [c for c in sidebar_captions(at) if "has no RoPE" in c]
    assert caption.startswith("Layer 3 of 48 has no RoPE (NoPE; it attends to all earlier tokens)")
    assert "shows layer 2's rope" in caption
    assert value(at, "base") == 500000 and value(at, "model") == "llama4-scout"
    if page == ROPE:
        assert value(at, "layout_rope") == "interleaved"  # Llama 4 rotates adjacent pairs
    if page == EXT:
        assert (value(at, "rope_type"), value(at, "factor")) == ("llama3", 16.0)


# --------------------------------------------------------------------- Llama 4's attention temperature
def temperature(position: float, *, floor_scale: float = 8192, attn_scale: float = 0.1) -> float:
    """HF Llama4TextAttention: log(floor((cache_position + 1) / floor_scale) + 1) * attn_scale + 1."""
    return math.log(math.floor((position + 1) / floor_scale) + 1) * attn_scale + 1


def yarn_a_squared(s: float) -> float:
    """YaRN's attention factor squared, HF get_mscale: 0.1·ln(s) + 1 for s > 1, else 1."""
    return (0.1 * math.log(s) + 1) ** 2 if s > 1 else 1.0


@pytest.mark.parametrize("query", [{}, {"train_len": "8192", "target_len": "131072"}])
def test_the_llama4_temperature_chart_draws_hf_numbers(query):
    at = run_page(EXT, timeout=120, ext_view="Attention", **query)
    (spec,) = [
        s
        for s in (cs.element_spec(c) for c in at.get("vega_lite_chart"))
        if "Llama 4's temperature" in str(s["title"]["text"])
    ]
    rows = cs.frame(spec, cs.drawn(spec)[0])
    llama4 = rows[rows.curve.str.startswith("Llama 4 NoPE layers")]
    yarn = rows[rows.curve.str.startswith("YaRN: a²")]
    assert len(llama4) > 100 and len(yarn) == len(llama4)
    for p, y in zip(llama4.x, llama4.y):
        assert y == pytest.approx(temperature(p), rel=1e-12, abs=1e-12), p
    train_len = int(query.get("train_len", 4096))
    for p, y in zip(yarn.x, yarn.y):
        assert y == pytest.approx(yarn_a_squared((p + 1) / train_len), rel=1e-12), p
    # the step: 1 below position floor_scale − 1, then 1 + 0.1·ln 2
    steps = dict(zip(llama4.x, llama4.y))
    assert all(y == 1.0 for p, y in steps.items() if p < 8191)
    assert max(steps.values()) > 1 + 0.1 * math.log(2) - 1e-12
    target_len = int(query.get("target_len", 16384))
    assert max(llama4.x) >= max(target_len, 4 * 8192)  # the curve reaches the page's target length


def test_llama4_scout_extension_view_opens_on_a_rope_layer():
    """Picking Llama 4 Scout opens its first full-attention RoPE layer or, none being full, its first RoPE layer (0)."""
    at = AppTest.from_file(EXT, default_timeout=120)
    at.run()
    at.selectbox(key="model").set_value("llama4-scout").run()
    assert not at.exception, [e.value for e in at.exception]
    assert value(at, "layer") == 0 and value(at, "rope_type") == "llama3"


@pytest.mark.parametrize(
    ("page", "model", "raw", "expected", "why"),
    [
        # Gemma 3 4B: 34 layers, the first global one is layer 5; Llama 4 Scout opens on layer 0 (above).
        (ROPE, "gemma3-4b", "1e309", 5, "not a finite number"),
        (INV, "llama4-scout", "1e309", 0, "not a finite number"),
        (EXT, "gemma3-4b", "2.5", 5, "not a whole number"),
        (ROPE, "gemma3-4b", "abc", 5, "not a number"),
        (INV, "gemma3-4b", "-1", 5, "outside"),
        (ROPE, "gemma3-4b", "40", 33, "0–33"),
    ],
)
def test_a_layer_the_link_cannot_use_is_replaced_with_a_notice(page, model, raw, expected, why):
    at = run_page(page, timeout=120, model=model, layer=raw)
    assert value(at, "layer") == expected
    notice = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "layer" in notice and why in notice, notice
    assert at.query_params.get("layer") == (None if expected == 0 else str(expected))


@pytest.mark.parametrize("page", [ROPE, INV, EXT])
def test_a_layer_in_a_link_to_a_model_whose_layers_agree_is_dropped_with_a_notice(page):
    at = run_page(page, timeout=120, model="llama2-7b", layer="abc")
    notice = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "layer" in notice and "is not used: every layer of Llama 2 7B has the same rope" in notice, notice
    assert "layer" not in at.query_params and at.selectbox(key="model").value == "llama2-7b"


def test_a_valid_layer_with_a_layer_already_in_the_session_is_not_called_unused():
    # browser back/forward to a Gemma link after a page that drew its own layer (Model configs) in the same session
    at = AppTest.from_file(ROPE, default_timeout=120)
    at.session_state["layer"] = 7
    at.query_params["model"], at.query_params["layer"] = "gemma3-4b", "7"
    at.run()
    assert not at.exception
    assert not any("is not used" in w.value for w in at.warning)
    assert value(at, "layer") == 7
