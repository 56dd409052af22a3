"""Real-model presets on the pages (explorer/presets_ui.py).

Pure part: every preset maps onto every preset-aware page with its exact values (no adjustment),
every value is one the registry accepts, and the context-extension page's rope block built from
those values gives exactly the preset's frequencies and attention factor.
AppTest part: picking a model in the "Real model" select fills the page's widgets with those
values, the URL shows them, and changing any of them switches the select back to "custom";
a link with ?model=… alone fills the values it does not give itself.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer import manifest, presets_ui, ropeblock, widgets
from posenc.models import PRESETS, preset_inverse_frequencies
from posenc.scaling import rope_inverse_frequencies

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILES = {page: str(ROOT / manifest.page(page).script) for page in presets_ui.PAGES}


def test_the_preset_pages_are_the_ones_the_manifest_declares():
    """presets_ui maps presets onto exactly the pages whose declaration says presets=True."""
    declared = [p.slug for p in manifest.PAGES if p.presets]
    assert sorted(presets_ui.PAGES) == sorted(declared) and len(declared) == 3
    assert {manifest.page(slug).title for slug in presets_ui.PAGES} == {
        "RoPE rotation",
        "Relative-position invariance",
        "Context extension",
    }


# ------------------------------------------------------------------------------------ pure
@pytest.mark.parametrize("key", list(PRESETS))
@pytest.mark.parametrize("page", presets_ui.PAGES)
def test_every_preset_fits_every_page_exactly(key, page):
    values, adjustments = presets_ui.page_values(page, **presets_ui.preset_settings(PRESETS[key]))
    assert adjustments == []
    for name, value in values.items():
        assert widgets.get(name).problem(value) is None, (name, value)


@pytest.mark.parametrize("key", list(PRESETS))
def test_rope_and_invariance_values_are_the_models(key):
    preset = PRESETS[key]
    rope = presets_ui.preset_values("rope", preset)
    assert rope == {"head_dim": preset.rotary_dim, "base": preset.rope_theta, "layout_rope": preset.layout}
    inv = presets_ui.preset_values("invariance", key)
    assert inv == {"qk_source": "random", "head_dim": preset.rotary_dim, "base": preset.rope_theta}
    # The pages compute θ_j = b^(−2j/d) over the rotated dims: the preset's default frequencies.
    theta = rope["base"] ** (-2.0 * np.arange(rope["head_dim"] // 2) / rope["head_dim"])
    unscaled = {
        "rope_type": "default",
        "rope_theta": preset.rope_theta,
        "partial_rotary_factor": preset.partial_rotary_factor,
    }
    ref, _ = rope_inverse_frequencies(unscaled, preset.head_dim, max_position_embeddings=4096)
    np.testing.assert_allclose(theta, ref, rtol=1e-13)


@pytest.mark.parametrize("key", list(PRESETS))
def test_extension_block_reproduces_the_preset(key):
    preset = PRESETS[key]
    values = presets_ui.preset_values("extension", preset)
    assert values["rope_type"] == preset.rope_type
    assert values["head_dim"] == preset.rotary_dim and values["base"] == preset.rope_theta
    method = {name: values[name] for name in ropeblock.METHOD_PARAMS[values["rope_type"]]}
    block = ropeblock.build_rope_block(
        values["rope_type"], method, base=values["base"], train_len=values["train_len"], head_dim=values["head_dim"]
    )
    block = presets_ui.preset_block(block, preset)
    # Every key the preset's block states has the same value in the page's block.
    for name, value in preset.rope_parameters.items():
        if name == "partial_rotary_factor":
            continue  # the page's head_dim already is the rotated part
        expected = list(value) if isinstance(value, tuple) else value
        assert block[name] == expected, name
    # …and the page's numbers are the model's: same frequencies, same attention factor.
    target = values["target_len"]
    got_inv, got_af = rope_inverse_frequencies(
        block, values["head_dim"], max_position_embeddings=values["train_len"], seq_len=target
    )
    ref_inv, ref_af = preset_inverse_frequencies(preset, seq_len=target)
    np.testing.assert_allclose(got_inv, ref_inv, rtol=1e-13)
    assert got_af == pytest.approx(ref_af, rel=1e-13)


def test_trained_and_target_lengths():
    assert presets_ui.trained_and_target({"factor": 4.0, "original_max_position_embeddings": 32768}, 32768) == (
        32768,
        131072,
    )
    assert presets_ui.trained_and_target({"factor": 8.0, "original_max_position_embeddings": 8192}, 131072) == (
        8192,
        131072,
    )
    assert presets_ui.trained_and_target({}, 4096) == (4096, 4096)


def test_parsed_configs_outside_the_ranges_are_adjusted_with_a_note():
    values, notes = presets_ui.page_values(
        "extension",
        head_dim=2048,
        rope_theta=3_000_000.0,  # between the options 2,000,000 and 5,000,000
        layout="half",
        rope_parameters={"rope_type": "linear", "factor": 10000.0},
        max_position_embeddings=4096,
    )
    assert values["head_dim"] == 256 and values["base"] == 2000000 and values["factor"] == 128.0
    assert values["target_len"] == widgets.get("target_len").max  # L·s = 40,960,000 is beyond the explorer's range
    assert len(notes) == 4
    assert any("rope_theta 3e+06" in n and "2e+06" in n for n in notes)
    assert "factor 10000 is outside the explorer's range (1–128); 128 is used" in notes
    assert all(widgets.get(k).problem(v) is None for k, v in values.items())


def test_preset_block_only_touches_longrope_presets():
    block = {"rope_type": "yarn", "factor": 4.0}
    assert presets_ui.preset_block(block, PRESETS["llama3.1-8b"]) is block
    assert presets_ui.preset_block(block, None) is block
    phi = PRESETS["phi3-mini-128k-instruct"]
    page_block = {"rope_type": "longrope", "short_factor": [1.0] * 48, "long_factor": [2.0] * 48}
    out = presets_ui.preset_block(page_block, phi)
    assert out["long_factor"] == list(phi.rope_parameters["long_factor"])
    assert page_block["long_factor"] == [2.0] * 48  # not modified
    assert presets_ui.preset_block({**page_block, "short_factor": [1.0] * 32}, phi)["short_factor"] == [1.0] * 32


def test_same_value():
    assert presets_ui.same_value(8, 8.0) and not presets_ui.same_value(True, 1)
    assert presets_ui.same_value("half", "half") and not presets_ui.same_value(1.0, 1.5)


# ---------------------------------------------------------------------------------- AppTest
def run(page: str, query: dict | None = None) -> AppTest:
    at = AppTest.from_file(PAGE_FILES[page], default_timeout=120)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def widget_value(at: AppTest, key: str):
    return at.session_state[key]


def assert_page_shows(at: AppTest, values: dict) -> None:
    for key, value in values.items():
        assert presets_ui.same_value(widget_value(at, key), value), (key, widget_value(at, key), value)
        param = widgets.get(key)
        if value == param.default:
            assert key not in at.query_params
        else:
            assert presets_ui.same_value(param.parse(at.query_params[key]), value), key


@pytest.mark.parametrize("page", presets_ui.PAGES)
@pytest.mark.parametrize("key", list(PRESETS))
def test_picking_a_model_fills_the_page(page, key):
    at = run(page)
    at.selectbox(key="model").set_value(key).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="model").value == key
    # (The select's own URL entry is written by the browser when the user picks; AppTest has no
    # browser. The values the callback writes are the server's to put into the URL.)
    assert_page_shows(at, presets_ui.preset_values(page, key))
    at.run()  # the values stick on the next run
    assert at.selectbox(key="model").value == key
    assert_page_shows(at, presets_ui.preset_values(page, key))


def test_the_extension_page_uses_a_longrope_presets_real_lists():
    at = run("extension")
    at.selectbox(key="model").set_value("phi3-mini-128k-instruct").run()
    assert not at.exception
    block = at.json[0].value  # "The rope block these charts use"
    block = block if isinstance(block, dict) else __import__("json").loads(block)
    assert block["long_factor"] == list(PRESETS["phi3-mini-128k-instruct"].rope_parameters["long_factor"])
    assert block["short_factor"] == list(PRESETS["phi3-mini-128k-instruct"].rope_parameters["short_factor"])


def test_changing_a_value_switches_back_to_custom():
    at = run("extension")
    at.selectbox(key="model").set_value("llama3.1-8b").run()
    at.select_slider(key="base").set_value(10000).run()
    assert not at.exception
    assert at.selectbox(key="model").value == "custom"
    assert "model" not in at.query_params
    assert widget_value(at, "base") == 10000 and widget_value(at, "head_dim") == 128  # the rest stays


def test_a_link_with_only_the_model_fills_its_values():
    at = run("extension", {"model": "deepseek-v3"})
    assert at.selectbox(key="model").value == "deepseek-v3"
    assert_page_shows(at, presets_ui.preset_values("extension", "deepseek-v3"))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Attention factor a"] == "1.0000"  # mscale == mscale_all_dim


def test_a_link_whose_values_contradict_the_model_is_custom():
    at = run("rope", {"model": "llama3.1-8b", "head_dim": "64"})
    assert at.selectbox(key="model").value == "custom"
    assert widget_value(at, "head_dim") == 64


def test_garbage_model_in_the_url_falls_back_to_custom_with_a_notice():
    at = run("invariance", {"model": "<b>llama</b>"})
    assert at.selectbox(key="model").value == "custom"
    assert any("model" in w.value for w in at.warning)


def test_a_link_with_a_models_slug_opens_it_and_the_link_then_holds_its_name():
    # Links made before the select showed names hold the slug; the select shows (and Streamlit's
    # bound select writes) the name, so the link is rewritten to it.
    at = run("rope", {"model": "llama3.1-8b"})
    assert at.selectbox(key="model").value == "llama3.1-8b"
    assert at.query_params["model"] == "Llama 3.1 8B"
    assert widget_value(at, "base") == 500000 and widget_value(at, "head_dim") == 128


def test_a_link_with_a_models_name_opens_it():
    at = run("rope", {"model": "Gemma 3 4B"})
    assert at.selectbox(key="model").value == "gemma3-4b"
    assert "Gemma 3 4B" in at.selectbox(key="model").options  # names, not slugs, in the select
    assert "gemma3-4b" not in at.selectbox(key="model").options


@pytest.mark.parametrize(
    ("page", "query", "key", "expected"),
    [
        # Llama 2 7B was trained on 4,096 tokens; gpt-oss-20b's head is 64 wide and its beta_fast is 32
        # (its published config.json); Qwen2.5's card gives YaRN ×4.
        ("extension", {"model": "llama2-7b", "train_len": "1e309"}, "train_len", 4096),
        ("extension", {"model": "llama2-7b", "train_len": "-Infinity"}, "train_len", 4096),
        ("extension", {"model": "gpt-oss-20b", "head_dim": "63"}, "head_dim", 64),
        ("extension", {"model": "gpt-oss-20b", "beta_fast": "32.3"}, "beta_fast", 32),
        ("extension", {"model": "qwen2.5-7b-instruct", "factor": "4.1"}, "factor", 4),
    ],
)
def test_a_models_link_with_a_value_it_cannot_use_keeps_the_model_and_says_so(page, query, key, expected):
    at = run(page, query)
    assert at.selectbox(key="model").value == query["model"]
    assert widget_value(at, key) == expected
    assert at.query_params.get(key) != query[key]  # the junk left the link
    notice = " ".join(w.value for w in at.warning).replace("\\", "")
    assert key in notice and f"value, {expected}" in notice, notice
