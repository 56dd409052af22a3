"""AppTest of pages/9_Model_configs.py: pasted configs, the problems next to their keys, the presets
list, the "Open in …" buttons, and the NTK alpha / rope_theta / linear-factor converter."""

from __future__ import annotations

import json
import re
from pathlib import Path

import _chartspec as cs
import numpy as np
import pyarrow as pa
import pytest
from _chartspec import proto_spec
from streamlit.testing.v1 import AppTest

import posenc
from explorer.manifest import PAGES
from explorer.site import configs as site
from explorer.text import configs as text_configs
from explorer.vocabulary import ALPHA_STOPS, BASE_OPTIONS
from posenc.models import PRESETS

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "pages" / "9_Model_configs.py")


def run(query: dict | None = None, text: str | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    if text is not None:
        at.text_area(key="cfg_text").input(text).run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def alerts(at: AppTest) -> list[tuple[str, str]]:
    return [("error", e.value) for e in at.error] + [("warning", w.value) for w in at.warning]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def test_page_is_listed_and_runs_at_defaults():
    assert "pages/9_Model_configs.py" in [p.script for p in PAGES]
    at = run()
    assert at.title[0].value == "Model configs"
    assert any("Paste a config" in i.value for i in at.info)
    assert not alerts(at)
    presets = at.dataframe[0].value
    assert presets["model"].tolist() == [p.name for p in PRESETS.values()]  # names, not slugs
    assert presets["rotated dims"].tolist() == [p.rotary_dim for p in PRESETS.values()]


@pytest.mark.parametrize("key", list(PRESETS))
def test_each_preset_example_is_a_valid_config(key):
    at = run()
    at.selectbox(key="cfg_example").set_value(key).run()
    assert not at.exception
    preset = PRESETS[key]
    if key == "llama4-scout":  # its published block has high_freq_factor = low_freq_factor: HF warns too
        assert [a[0] for a in alerts(at)] == ["warning"] and "high\\_freq\\_factor" in alerts(at)[0][1]
    else:
        assert not alerts(at), alerts(at)
        assert any("No problems" in s.value for s in at.success)
    shown = metrics(at)
    assert shown["Method (rope_type)"] == preset.rope_type
    assert shown["Layout (a guess)"] == preset.layout
    assert shown["rope_theta (base)"] == f"{preset.rope_theta:,.6g}"
    assert shown["max_position_embeddings"] == f"{preset.max_position_embeddings:,}"
    rotary = preset.rotary_dim
    assert shown["Head dim (rotated)"] == (
        f"{rotary} of {preset.head_dim}" if rotary != preset.head_dim else str(preset.head_dim)
    )
    assert [b.label for b in at.button if b.label.startswith("Open in")] == [
        "Open in Context extension",
        "Open in RoPE rotation",
        "Open in Relative-position invariance",
    ]


def test_a_real_config_json_has_no_problems():
    text = json.dumps(
        {
            "architectures": ["LlamaForCausalLM"],
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "max_position_embeddings": 131072,
            "rope_theta": 500000.0,
            "vocab_size": 128256,
            "rope_scaling": {
                "factor": 8.0,
                "high_freq_factor": 4.0,
                "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
        }
    )
    at = run(text=text)
    assert not alerts(at)
    assert metrics(at)["Head dim (rotated)"] == "128" and metrics(at)["Trained length L"] == "8,192"


def test_bad_inputs_are_named_next_to_their_keys():
    at = run()
    at.selectbox(key="cfg_example").set_value("broken").run()
    found = alerts(at)
    errors = [text for kind, text in found if kind == "error"]
    warnings = [text for kind, text in found if kind == "warning"]
    # beta_fast 1 < beta_slow 32: HF 5.23 warns and computes (a reversed ramp), so a warning, not an error
    assert len(errors) == 2 and len(warnings) == 2
    by_key = {text.split("**")[1]: text for text in errors + warnings}
    assert "write it without quotes" in by_key["rope\\_theta"]
    assert "must be greater than 0" in by_key["rope\\_scaling\\.factor"]
    assert "smaller than beta\\_slow" in by_key["rope\\_scaling\\.beta\\_fast"]
    assert ("warning", by_key["rope\\_scaling\\.beta\\_fast"]) in found
    assert "is not used by rope\\_type" in by_key["rope\\_scaling\\.low\\_freq\\_factor"]
    assert not [b for b in at.button if b.label.startswith("Open in")]  # nothing to open


@pytest.mark.parametrize(
    "text, key, words",
    [
        ("{not json", "(json)", "JSON"),
        ("[1, 2, 3]", "(json)", "top level is a list"),
        ('{"rope_type": "yarn", "factor": "4"}', "factor", "without quotes"),
        ('{"rope_type": "warp", "factor": 4}', "rope_type", "unknown rope type"),
        ('{"head_dim": 129, "rope_theta": 10000}', "head_dim", ""),
        ('{"rope_type": "longrope", "short_factor": [1, 1], "long_factor": [1, 2, 3]}', "long_factor", "entries"),
    ],
)
def test_typical_mistakes(text, key, words):
    at = run(text=text)
    found = alerts(at)
    assert found, text
    escaped_key = key.replace("(", "\\(").replace(")", "\\)").replace("_", "\\_")
    assert any(f"**{escaped_key}**" in body and words in body for _, body in found), found


def test_hostile_text_is_shown_literally():
    key = "<img src=x onerror=alert(1)>**[link](javascript:x)**"
    at = run(text=json.dumps({"rope_type": "yarn", "factor": 4.0, key: 1}))
    bodies = [body for _, body in alerts(at)]
    assert bodies, "the unknown key is reported"
    for body in bodies:  # apart from our own bold key, every markup character arrives escaped
        assert body.startswith("**")
        key_part, message = body[2:].split("** — ", 1)
        for text in (key_part, message):
            assert re.search(r"(?<!\\)[<>\[\]()*`]", text) is None, text
    assert any("\\<img" in body for body in bodies)
    assert not at.exception


def test_open_in_context_extension_carries_the_parsed_values():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/9_Model_configs.py").run()
    at.selectbox(key="cfg_example").set_value("qwen2.5-7b-instruct").run()
    at.button(key="open_extension").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Context extension"
    state = at.session_state
    assert (state["rope_type"], state["head_dim"], state["base"]) == ("yarn", 128, 1000000)
    assert (state["train_len"], state["target_len"], state["factor"]) == (32768, 131072, 4.0)
    assert metrics(at)["Attention factor a"] == f"{0.1 * np.log(4.0) + 1:.4f}"


def test_converter_alpha_to_base_and_back():
    at = run({"head_dim": "128", "base": "10000", "ntk_alpha": "4"})
    shown = metrics(at)
    new_base = 10000 * 4 ** (128 / 126)
    assert shown["rope_theta b′"] == f"{new_base:,.2f}"
    assert shown["Slowest pair's wavelength"] == "× 4" and shown["Fastest pair's wavelength"] == "× 1"
    at = run({"head_dim": "128", "base": "10000", "conv_from": "rope_theta", "new_theta": "40000"})
    assert metrics(at)["NTK alpha α"] == f"{4 ** (126 / 128):.6g}"
    at = run({"conv_from": "linear_factor", "ntk_alpha": "8"})
    assert metrics(at)["NTK alpha α"] == "8"
    data = converter_rows(at)
    trained = data[data.scheme == "as trained"].sort_values("j")["wavelength"].to_numpy()
    linear = data[data.scheme == "linear (positions ÷ s)"].sort_values("j")["wavelength"].to_numpy()
    np.testing.assert_allclose(trained, posenc.wavelengths(64), rtol=1e-15)
    np.testing.assert_allclose(linear, 8 * trained, rtol=1e-15)


def test_converter_garbage_in_the_url():
    at = run({"ntk_alpha": "abc", "new_theta": "-5", "conv_from": "<script>", "head_dim": "2"})
    assert not at.exception
    notice = " ".join(w.value for w in at.warning)
    assert "ntk\\_alpha" in notice and "conv\\_from" in notice and "head\\_dim" in notice


def test_the_pasted_text_survives_a_trip_to_another_page():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/9_Model_configs.py").run()
    at.selectbox(key="cfg_example").set_value("gpt-j-6b").run()
    at.switch_page("pages/1_Sinusoidal_heatmap.py").run()
    at.switch_page("pages/9_Model_configs.py").run()
    assert not at.exception
    assert '"model_type": "gptj"' in at.text_area(key="cfg_text").value


def converter_rows(at: AppTest):
    """The converter chart's drawn rows: its data, or (α its own slider) its transforms run here at the start."""
    (element,) = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    spec = cs.element_spec(element)
    if any("bind" in p for p in spec.get("params", [])):
        return cs.view_rows(spec)
    return pa.ipc.open_stream(element.proto.datasets[0].data.data).read_all().to_pandas()


# ------------------------------------------------------------- sentences true at every setting
def converter_chart_title(at: AppTest) -> dict:
    (element,) = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    title = proto_spec(element.proto)["title"]
    subtitle = title.get("subtitle", "")
    return {"text": str(title["text"]), "subtitle": " ".join(subtitle) if isinstance(subtitle, list) else subtitle}


def test_converter_sentences_with_alpha_below_one():
    """α = 0.5 shortens the slowest wavelength: no sentence may say it stretches it or that the base grows."""
    at = run({"head_dim": "128", "base": "10000", "ntk_alpha": "0.5"})
    shown = metrics(at)
    assert shown["Slowest pair's wavelength"] == "× 0.5" and shown["Fastest pair's wavelength"] == "× 1"
    title = converter_chart_title(at)  # α = 0.5 is a stop: the chart's words hold for every α its slider reaches
    words = text_configs.WAVELENGTH_LIVE_WORDS
    assert title == {"text": words["title"], "subtitle": words["subtitle"]}
    assert "stretch" not in title["text"] + title["subtitle"] and "raises" not in title["subtitle"]
    at = run({"head_dim": "128", "base": "10000", "ntk_alpha": "0.51"})  # off the stops: words for this α
    title = converter_chart_title(at)
    assert "stretches the slowest" not in title["text"] and "shrinks the slowest" in title["text"]
    assert "NTK lowers the base" in title["subtitle"] and "raises" not in title["subtitle"]
    at = run({"head_dim": "128", "base": "10000", "ntk_alpha": "0.5"})
    new_base = 10000 * 0.5 ** (128 / 126)  # b·α^(d/(d−2)) = 4,965.9
    text = " ".join(m.value for m in at.main.markdown)
    assert "larger base" not in text and "raises the base" not in text
    assert f"with the base b·α^(d/(d−2)) = {new_base:,.2f}" in text


def test_converter_sentences_with_alpha_one_and_a_tiny_new_base():
    at = run({"head_dim": "128", "base": "10000", "conv_from": "rope_theta", "new_theta": "10000"})
    assert converter_chart_title(at)["text"].startswith("NTK α = 1 changes nothing")
    at = run({"head_dim": "4", "base": "10", "conv_from": "rope_theta", "new_theta": "1"})
    (warning,) = [w.value for w in at.warning]
    assert warning.startswith("The new base b′ = 1 is not above 1") and "α = 0" not in warning
    at = run({"head_dim": "4", "base": "10", "ntk_alpha": "0.51"})  # b′ = 10·0.51² = 2.601, off the stops
    assert "NTK lowers the base" in converter_chart_title(at)["subtitle"]
    assert metrics(at)["rope_theta b′"] == "2.60"
    at = run({"head_dim": "4", "base": "10", "ntk_alpha": "0.5"})  # b′ = 10·0.5² = 2.5
    assert metrics(at)["rope_theta b′"] == "2.50"  # b′ itself: in the metric above the chart


def notice_text(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown if m.value.startswith("**What to notice**"))


def test_linear_and_ntk_sentence_at_alpha_one_and_below():
    """At α = 1 linear keeps the neighbours too: the page must not say that only NTK does."""
    at = run({"head_dim": "64", "base": "10000", "ntk_alpha": "1"})
    assert "only NTK keeps" not in notice_text(at) and "At α = 1 the three lines coincide" in notice_text(at)
    at = run({"head_dim": "64", "base": "10000", "ntk_alpha": "4"})
    assert "only NTK keeps neighbouring tokens" in notice_text(at) and "slows pair 0 too, to 1/4 rad" in notice_text(at)
    at = run({"head_dim": "64", "base": "10000", "ntk_alpha": "0.5"})
    assert "speeds pair 0 up too, to 2 rad per token" in notice_text(at)


@pytest.mark.parametrize("base", ["100", "10"])
@pytest.mark.parametrize("source", [{"ntk_alpha": "0.01"}, {"conv_from": "rope_theta", "new_theta": "1"}])
def test_reported_crash_huge_sizes_and_a_small_converter_base_show_a_message(base, source):
    """Regression (issue #13): head_dim 988 and max_position_embeddings 10,000,000 in the sizes box,
    a rope block that needs them, and the converter's base at 100 or 10 with a new base ≤ 1 used to
    raise "ValueError: base must be a finite number > 1". Now: a warning naming the base, α = 1."""
    at = run({"base": base, "cfg_example": "rope-block", **source})
    at.number_input(key="cfg_head_dim").set_value(988)
    at.number_input(key="cfg_max_pos").set_value(10_000_000)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="cfg_head_dim").value == 988
    assert at.number_input(key="cfg_max_pos").value == 10_000_000
    (warning,) = [w.value for w in at.warning if "is not above 1" in w.value]
    assert "so it defines no frequencies; showing α = 1 (b′ = b) instead" in warning
    shown = metrics(at)
    assert shown["NTK alpha α"] == "1" and float(shown["rope_theta b′"].replace(",", "")) == float(base)
    # the rope block on its own is read with the sizes typed in the box
    assert shown["Head dim (rotated)"] == "988" and shown["max_position_embeddings"] == "10,000,000"


# ----------------------------------------------------------------- the fallback sizes, in the link
DYNAMIC_BLOCK = '{"rope_type": "dynamic", "factor": 2.0}'  # a rope block alone: no head size, no length


def open_links(at: AppTest) -> dict[str, dict[str, str]]:
    """{page URL path: its query} of the "Open in …" links shown under the buttons."""
    out = {}
    for code in at.code:
        path, _, query = code.value.partition("?")
        out[path.rsplit("/", 1)[-1]] = dict(part.split("=", 1) for part in query.split("&") if part)
    return out


def share_link(at: AppTest) -> str:
    (link,) = [m.value for m in at.markdown if m.value.startswith("**Link to this view**")]
    return link


def test_a_link_sets_the_fallback_sizes_and_the_block_is_read_with_them():
    """?cfg_head_dim=96&cfg_max_pos=32768 with a rope block alone: the sizes box shows them, the
    reading uses them (a dynamic NTK block's trained length is max_position_embeddings, and the
    "Open in Context extension" view runs at factor × that length), and the share link keeps them."""
    cfg = site.encode_text(DYNAMIC_BLOCK)
    at = run({"cfg": cfg, "cfg_head_dim": "96", "cfg_max_pos": "32768"})
    assert not at.warning, [w.value for w in at.warning]
    assert at.number_input(key="cfg_head_dim").value == 96
    assert at.number_input(key="cfg_max_pos").value == 32768
    shown = metrics(at)
    assert shown["Read as"] == "rope block" and shown["Method (rope_type)"] == "dynamic"
    assert shown["Head dim (rotated)"] == "96" and shown["max_position_embeddings"] == "32,768"
    notes = " ".join(m.value for m in at.markdown if m.value.startswith("**Notes**")).replace("\\", "")
    assert "head_dim 96 is the explorer's setting" in notes
    assert "max_position_embeddings 32768 is the explorer's setting" in notes
    links = open_links(at)
    assert links["Context_extension"]["head_dim"] == "96"
    assert links["Context_extension"]["train_len"] == "32768"
    assert links["Context_extension"]["target_len"] == str(2 * 32768)
    assert links["RoPE_rotation"]["head_dim"] == "96"
    assert "cfg_head_dim=96" in share_link(at) and "cfg_max_pos=32768" in share_link(at)

    # the same block without the sizes in the link: the defaults (head_dim 128, 4,096 positions)
    at = run({"cfg": cfg})
    assert at.number_input(key="cfg_head_dim").value == 128
    assert at.number_input(key="cfg_max_pos").value == 4096
    shown = metrics(at)
    assert shown["Head dim (rotated)"] == "128" and shown["max_position_embeddings"] == "4,096"
    assert open_links(at)["Context_extension"]["target_len"] == str(2 * 4096)
    assert "cfg_head_dim" not in share_link(at) and "cfg_max_pos" not in share_link(at)


def test_the_fallback_sizes_do_not_replace_the_sizes_a_config_gives():
    """The caption's promise: the sizes are used only when the pasted text does not give them."""
    text = json.dumps({"model_type": "llama", "head_dim": 64, "rope_theta": 10000.0, "max_position_embeddings": 2048})
    at = run({"cfg": site.encode_text(text), "cfg_head_dim": "96", "cfg_max_pos": "32768"})
    assert at.number_input(key="cfg_head_dim").value == 96
    shown = metrics(at)
    assert shown["Head dim (rotated)"] == "64" and shown["max_position_embeddings"] == "2,048"


@pytest.mark.parametrize(
    "key, raw, reason, default",
    [
        ("cfg_head_dim", "abc", "is not a number", "128"),
        ("cfg_head_dim", "7", "is not on the 2-step grid starting at 2", "128"),
        ("cfg_head_dim", "2048", "is outside the allowed range 2–1024", "128"),
        ("cfg_max_pos", "0", "is outside the allowed range 1–10000000", "4096"),
        ("cfg_max_pos", "1.5", "is not a whole number", "4096"),
        ("cfg_max_pos", "<b>9</b>", "is not a number", "4096"),
    ],
)
def test_a_garbage_fallback_size_is_named_and_falls_back(key, raw, reason, default):
    at = run({"cfg_example": "rope-block", key: raw})
    (warning,) = [w.value.replace("\\", "") for w in at.warning]
    assert warning.startswith("Some values in the link could not be used:")
    assert f'**{key}** = "{raw}" {reason} — used the default, {default}' in warning
    assert at.number_input(key=key).value == int(default)
    assert key not in at.query_params
    shown = metrics(at)  # the rope block is read with the default size
    if key == "cfg_head_dim":
        assert shown["Head dim (rotated)"] == "128"
    else:
        assert shown["max_position_embeddings"] == "4,096"


# ------------------------------------------------------------- α in the chart (issue #36)
def live_alpha(at):
    (element,) = at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart")
    found = [p for p in cs.element_spec(element).get("params", []) if "bind" in p and p["name"] == "ntk_alpha"]
    return found[0] if found else None


@pytest.mark.parametrize("source", ["ntk_alpha", "linear_factor"])
def test_the_converter_chart_carries_its_alpha_slider_beside_the_box(source):
    at = run({"conv_from": source, "ntk_alpha": "8", "head_dim": "128"})
    param = live_alpha(at)
    assert param is not None and ALPHA_STOPS[param["value"]] == 8.0
    assert (ALPHA_STOPS[param["bind"]["min"]], ALPHA_STOPS[param["bind"]["max"]]) == (0.01, 1000.0)
    assert at.number_input(key="ntk_alpha").value == 8.0


@pytest.mark.parametrize("query", [{"conv_from": "rope_theta", "new_theta": "40000"}, {"ntk_alpha": "4.1"}])
def test_a_new_base_or_an_alpha_between_stops_draws_the_chart_of_one_value(query):
    assert live_alpha(run(query)) is None


def test_the_alpha_slider_stops_where_the_new_base_would_not_be_one():
    """At d = 4 and b = 10, b·α² > 1 needs α > 0.316…: the page narrows the slider (which spans every stop, so that
    the spec does not depend on d and b) to start at the stop 0.4, in the browser (explorer.liveparam.ranges_html)."""
    at = run({"head_dim": "4", "base": "10", "ntk_alpha": "2"})
    assert ALPHA_STOPS[live_alpha(at)["bind"]["min"]] == 0.01
    ranges = [h.proto.body for h in at.get("html") if "data-min-ntk_alpha_ntk_alpha" in h.proto.body]
    assert len(ranges) == 1
    lo = int(re.search(r'data-min-ntk_alpha_ntk_alpha="(\d+)"', ranges[0]).group(1))
    hi = int(re.search(r'data-max-ntk_alpha_ntk_alpha="(\d+)"', ranges[0]).group(1))
    assert (ALPHA_STOPS[lo], ALPHA_STOPS[hi]) == (0.4, 1000.0)


def _page_after_a_report():
    import runpy

    import streamlit as st

    from explorer import liveparam

    report = st.session_state.pop("test_report", None)
    if report is not None:
        from explorer.charts import configs as config_charts

        liveparam.report("conv_live", config_charts.LIVE_PARAMS, report, config_charts.LIVE_LIMITS)
    runpy.run_path(st.session_state["test_page"], run_name="__main__")


def test_a_drag_of_the_charts_alpha_reaches_the_box_the_link_and_the_page():
    at = AppTest.from_function(_page_after_a_report, default_timeout=120)
    at.session_state["test_page"] = PAGE
    at.query_params["head_dim"] = "128"
    at.run()
    assert not at.exception
    key = (at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"))[0].key
    at.session_state["test_report"] = {"ntk_alpha": [{"ntk_alpha": ALPHA_STOPS.index(20.0)}]}
    at.run()
    assert not at.exception
    assert at.query_params["ntk_alpha"] == "20"
    assert at.number_input(key="ntk_alpha").value == 20.0
    assert (at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"))[0].key == key  # the chart is kept
    assert metrics(at)["rope_theta b′"] == f"{10000 * 20 ** (128 / 126):,.2f}"  # the page followed


def test_a_drag_of_the_charts_d_and_b_reaches_the_link_and_the_page_and_keeps_the_chart():
    """d and b are the converter chart's own sliders where it carries α (no Streamlit slider for them then): d dragged
    to 128 and b to 500,000 (b's slider reports the option's index) reach the link and the metrics (b′ typed here),
    and the chart is kept; with a new rope_theta typed instead, d and b are sliders on the page again."""
    at = AppTest.from_function(_page_after_a_report, default_timeout=120)
    at.session_state["test_page"] = PAGE
    at.run()
    assert not at.exception
    assert not [s for s in at.slider if s.key == "head_dim"] and not [s for s in at.select_slider if s.key == "base"]
    chart = (at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"))[0]
    key, spec = chart.key, chart.proto.spec
    b_index = list(BASE_OPTIONS).index(500000)
    at.session_state["test_report"] = {"head_dim": [{"head_dim": 128}], "base": [{"base": b_index}]}
    at.run()
    assert not at.exception
    assert (at.query_params["head_dim"], at.query_params["base"]) == ("128", "500000")
    chart = (at.get("arrow_vega_lite_chart") or at.get("vega_lite_chart"))[0]
    assert chart.key == key and chart.proto.spec == spec  # kept: the browser shows the hand's d and b already
    alpha = float(at.number_input(key="ntk_alpha").value)
    assert metrics(at)["rope_theta b′"] == f"{500000 * alpha ** (128 / 126):,.2f}"
    typed = run({"conv_from": "rope_theta", "new_theta": "1000000", "head_dim": "96"})
    assert typed.slider(key="head_dim").value == 96 and typed.select_slider(key="base").value == 10000


@pytest.mark.parametrize("phone", [False, True])
def test_the_published_models_table_keeps_the_names_in_view_on_a_phone(monkeypatch, phone):
    """At 390 px the names' large column filled the screen and hid every number; on a phone it is narrower and pinned,
    so the next column shows beside it and the names stay while the rest scrolls."""
    from explorer import mode

    monkeypatch.setattr(mode, "on_a_phone", lambda: phone)
    at = AppTest.from_file(str(Path(__file__).resolve().parent.parent / "pages/9_Model_configs.py"), default_timeout=60)
    at.run()
    assert not at.exception
    table = at.dataframe[0]
    assert table.value.columns[0] == "model" and "Llama 3.1 8B" in set(table.value["model"])
    model = json.loads(table.proto.columns)["model"]
    assert (model.get("width"), bool(model.get("pinned"))) == (("medium", True) if phone else ("large", False))
