"""AppTest of the Model configs page's per-model views (issue #14): the "Layer by layer" strip for
Gemma 3, Llama 4 Scout and SmolLM3, which layer's rope "Open in …" carries, the pasted config in
the link (``cfg``) and example links by model name (``cfg_example``).

Expected layers are written from each model's published config.json and HF transformers 5.23's
rules, re-typed here (not read from posenc.layers): Gemma 3 ``(i + 1) % 6 == 0`` is a full
layer (base 1e6, linear ×8), the others slide over 1,024 tokens with base 1e4; Llama 4 Scout
``(i + 1) % 4 == 0`` is NoPE with full attention, the others rotate (llama3 ×16, base 5e5) over
chunks of 8,192; SmolLM3 ``no_rope_layers`` = [1, 1, 1, 0] × 9, base 5e6, full attention.
"""

from __future__ import annotations

import json
import random
import re

import _chartspec as cs
import pytest
from _apptest import page_path, run_page
from streamlit.testing.v1 import AppTest

from explorer import widgets
from explorer.site import configs as site
from posenc.models import PRESETS


def method(raw: str) -> str:
    """The rope_type a link's ``rope_type`` value means (the URL holds the option's label, e.g.
    "linear · Linear (Position Interpolation)", percent-encoded)."""
    from urllib.parse import unquote_plus

    return widgets.get("rope_type").parse(unquote_plus(raw))


PAGE = page_path("pages/9_Model_configs.py")

GEMMA_LOCAL, GEMMA_GLOBAL = "RoPE, base 10,000", "RoPE linear ×8, base 1,000,000"
LLAMA4_ROPE, NOPE = "RoPE llama3 ×16, base 500,000", "NoPE (no rotation)"


def unescape(text: str) -> str:
    """Markdown text as the reader sees it (escape_markdown puts a backslash before punctuation)."""
    return re.sub(r"\\(.)", r"\1", text)


def strip_rows(at) -> tuple[dict, list[dict]]:
    """(title, one row per decoder layer) of the "Layer by layer" chart: {layer: {"rope", "attention"}}."""
    (spec,) = [
        cs.element_spec(c)
        for c in at.get("vega_lite_chart")
        if str(cs.element_spec(c)["title"]["text"]).startswith("What each of the")
    ]
    rows = cs.frame(spec, cs.layers(spec)[0])
    rope = rows[rows.strip == "RoPE"].set_index("layer")["value"].to_dict()
    span = rows[rows.strip == "attention"].set_index("layer")["value"].to_dict()
    assert sorted(rope) == sorted(span) == list(range(len(rope)))
    return spec["title"], [{"rope": rope[i], "attention": span[i]} for i in range(len(rope))]


def group_lines(at) -> list[str]:
    """The "N layers (…): rope; span" lines under the strip, unescaped."""
    return [
        unescape(line)
        for m in at.markdown
        for line in m.value.splitlines()
        if line.startswith("- **") and re.search(r"\*\*\d+ layers?\*\*", line)
    ]


def example(key: str, **query):
    return run_page(PAGE, timeout=120, cfg_example=key, **query)


# ------------------------------------------------------------------------------- the layer strip
def test_gemma3_strip_one_global_layer_in_six():
    at = example("gemma3-4b")
    title, rows = strip_rows(at)
    assert title["text"] == "What each of the 34 layers does with positions"
    for i, row in enumerate(rows):
        if (i + 1) % 6 == 0:
            assert row == {"rope": GEMMA_GLOBAL, "attention": "full attention"}, i
        else:
            assert row == {"rope": GEMMA_LOCAL, "attention": "sliding (1,024 tokens)"}, i
    lines = group_lines(at)
    assert lines[0] == f"- **29 layers** (0, 1, 2, 3, 4, 6, 7, 8, 9, 10, …): {GEMMA_LOCAL}; sliding (1,024 tokens)"
    assert lines[1] == f"- **5 layers** (5, 11, 17, 23, 29): {GEMMA_GLOBAL}; full attention"
    assert len(lines) == 2


def test_llama4_scout_strip_every_fourth_layer_is_nope():
    at = example("llama4-scout")
    title, rows = strip_rows(at)
    assert title["text"] == "What each of the 48 layers does with positions"
    nope = [i for i, row in enumerate(rows) if row["rope"] == NOPE]
    assert nope == [i for i in range(48) if (i + 1) % 4 == 0]
    for i, row in enumerate(rows):
        expected = (
            {"rope": NOPE, "attention": "full attention"}
            if i in nope
            else {"rope": LLAMA4_ROPE, "attention": "chunked (8,192 tokens)"}
        )
        assert row == expected, i
    lines = group_lines(at)
    assert lines[1].startswith("- **12 layers** (3, 7, 11, 15, 19, 23, 27, 31, 35, 39, …): NoPE")
    # the NoPE layers' attention temperature, with the published floor_scale and attn_scale
    assert any("1 + 0.1·ln(⌊(pos+1)/8192⌋ + 1)" in c.value for c in at.caption)


def test_smollm3_strip_nope_layers_from_its_list():
    at = example("smollm3-3b")
    _, rows = strip_rows(at)
    published = [1, 1, 1, 0] * 9  # SmolLM3-3B's no_rope_layers: 1 = RoPE, 0 = NoPE
    assert len(rows) == 36
    for i, (row, rotates) in enumerate(zip(rows, published)):
        assert row == {"rope": "RoPE, base 5,000,000" if rotates else NOPE, "attention": "full attention"}, i
    assert not any("attention temperature" in c.value for c in at.caption)  # no temperature in SmolLM3


def test_a_model_whose_layers_agree_has_no_layer_picker():
    at = example("llama3.1-8b")
    assert not [n for n in at.number_input if n.key == "layer"]


# ---------------------------------------------------------------- "Open in …" carries one layer's rope
def open_links(at) -> dict[str, dict[str, str]]:
    """{page URL path: its query} of the "Open in …" links shown under the buttons."""
    out = {}
    for code in at.code:
        path, _, query = code.value.partition("?")
        out[path.rsplit("/", 1)[-1]] = dict(part.split("=", 1) for part in query.split("&") if part)
    return out


def test_open_in_defaults_to_the_first_full_attention_rope_layer():
    at = example("gemma3-4b")
    (picker,) = [n for n in at.number_input if n.key == "layer"]
    assert picker.value == 5  # layers 0-4 slide; 5 is the first global layer
    assert any(
        unescape(c.value).startswith("Layer 5 of 34 (full_attention): rotates with rope_type linear")
        for c in at.caption
    )
    links = open_links(at)
    assert links["Context_extension"]["base"] == "1000000"
    assert (method(links["Context_extension"]["rope_type"]), links["Context_extension"]["factor"]) == ("linear", "8")
    assert links["RoPE_rotation"] == {"head_dim": "256", "base": "1000000"}


def test_open_in_a_sliding_layer_carries_its_own_base():
    at = example("gemma3-4b")
    at.number_input(key="layer").set_value(0).run()
    assert not at.exception, [e.value for e in at.exception]
    links = open_links(at)
    ext = links["Context_extension"]
    assert (
        "base" not in ext and method(ext["rope_type"]) == "default" and "factor" not in ext
    )  # base 10,000 is the default
    assert links["RoPE_rotation"] == {"head_dim": "256"}
    assert any(
        unescape(c.value).startswith("Layer 0 of 34 (sliding_attention): rotates with rope_type default, base 10,000")
        for c in at.caption
    )


def test_open_in_a_nope_layer_carries_the_nearest_rope_layer():
    at = example("llama4-scout", layer=3)
    assert not at.exception
    (caption,) = [unescape(c.value) for c in at.caption if "has no RoPE" in c.value]
    assert caption.startswith("Layer 3 of 48 has no RoPE") and "shows layer 2's rope" in caption
    ext = open_links(at)["Context_extension"]
    assert (ext["base"], method(ext["rope_type"]), ext["factor"]) == ("500000", "llama3", "16")


def test_open_in_sends_the_chosen_layer_to_the_extension_page():
    at = AppTest.from_file(page_path("app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/9_Model_configs.py").run()
    at.selectbox(key="cfg_example").set_value("gemma3-4b").run()
    at.number_input(key="layer").set_value(0).run()
    at.button(key="open_extension").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Context extension"
    assert (at.session_state["rope_type"], at.session_state["base"]) == ("default", 10000)


# ------------------------------------------------------------------------- the pasted config in the link
PASTED = json.dumps({"model_type": "llama", "head_dim": 64, "rope_theta": 123456.0, "max_position_embeddings": 2048})


def test_a_cfg_link_restores_the_pasted_text():
    at = run_page(PAGE, timeout=120, cfg=site.encode_text(PASTED))
    assert at.text_area(key="cfg_text").value == PASTED
    assert not at.warning
    shown = {m.label: m.value for m in at.metric}
    assert shown["rope_theta (base)"] == "123,456" and shown["Head dim (rotated)"] == "64"


def test_typing_a_config_puts_it_into_the_link():
    at = run_page(PAGE, timeout=120)
    at.text_area(key="cfg_text").input(PASTED).run()
    assert not at.exception
    assert site.decode_text(at.query_params["cfg"]) == PASTED
    again = run_page(PAGE, timeout=120, cfg=at.query_params["cfg"])  # the link opens the same text
    assert again.text_area(key="cfg_text").value == PASTED


def test_a_text_too_long_for_a_link_is_named_and_left_out():
    rng = random.Random(0)  # incompressible: every key a random token
    text = json.dumps({f"k{rng.getrandbits(64):x}": rng.getrandbits(64) for _ in range(1200)})
    assert len(site.encode_text(text)) > site.MAX_LINK_CHARS
    at = run_page(PAGE, timeout=120)
    at.text_area(key="cfg_text").input(text).run()
    assert not at.exception
    assert "cfg" not in at.query_params
    (warning,) = [w.value for w in at.warning if "too long for a link" in w.value]
    assert f"the limit is {site.MAX_LINK_CHARS:,}" in warning
    at.text_area(key="cfg_text").input(PASTED).run()  # a short text again: back in the link, no warning
    assert site.decode_text(at.query_params["cfg"]) == PASTED
    assert not [w for w in at.warning if "too long for a link" in w.value]


@pytest.mark.parametrize(
    "garbage, words",
    [
        ("hello", "is not a config encoded by this page"),
        ("z!!!not-base64", "could not be decoded"),
        ("z" + "A" * 40, "could not be decoded"),
        ("z" + "A" * (site.MAX_LINK_CHARS + 10), "is longer than"),
    ],
)
def test_a_garbage_cfg_is_a_clear_warning(garbage, words):
    at = run_page(PAGE, timeout=120, cfg=garbage)
    (warning,) = [unescape(w.value) for w in at.warning]
    assert warning.startswith("The config in this link could not be read: the cfg value") and words in warning
    assert at.text_area(key="cfg_text").value == ""
    assert "cfg" not in at.query_params


# ------------------------------------------------------------------------- examples by model name
@pytest.mark.parametrize("key", ["gemma3-4b", "llama4-scout", "qwen2.5-7b"])
def test_cfg_example_takes_the_model_name(key):
    name = PRESETS[key].name
    for given in (name, name.upper(), key):
        at = example(given)
        assert at.selectbox(key="cfg_example").value == key, given
        assert not [w for w in at.warning if "cfg\\_example" in w.value], given  # the link's value was used
        assert at.text_area(key="cfg_text").value.strip().startswith("{")
        shown = {m.label: m.value for m in at.metric}
        assert shown["rope_theta (base)"] == f"{PRESETS[key].rope_theta:,.6g}"


def test_an_unknown_example_name_is_named_and_falls_back():
    at = example("Llama 9 Ultra")
    (warning,) = [w.value for w in at.warning]
    assert '**cfg\\_example** = "Llama 9 Ultra" is not one of' in warning
    assert at.selectbox(key="cfg_example").value == "none" and at.text_area(key="cfg_text").value == ""
