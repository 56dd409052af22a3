"""explorer.widgets: the registry, URL-value validation, links, and widget() inside a real script."""

import math
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import explorer.manifest  # noqa: F401  (registers every page's parameters)
from explorer import vocabulary, widgets
from explorer.vocabulary import BLOCK_KEY_WIDGETS
from explorer.widgets import PARAMS, Param, ParamError
from posenc.methods import ROPE_METHODS, MethodKey

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------ registry
def test_shared_vocabulary_is_registered_with_the_agreed_ranges():
    assert (PARAMS["seq_len"].min, PARAMS["seq_len"].max, PARAMS["seq_len"].default) == (1, 8192, 128)
    assert (PARAMS["d_model"].min, PARAMS["d_model"].max, PARAMS["d_model"].step) == (2, 2048, 2)
    assert PARAMS["base"].default == 10000 and 500000 in PARAMS["base"].options
    assert PARAMS["layout_sin"].options == ("interleaved", "concatenated")
    assert PARAMS["layout_rope"].options == ("half", "interleaved")
    assert (PARAMS["head_dim"].min, PARAMS["head_dim"].max, PARAMS["head_dim"].default) == (2, 256, 64)
    assert PARAMS["m"].default == 5 and PARAMS["j"].min == 0
    assert {"redblue", "viridis"} <= set(PARAMS["scheme"].options)
    assert (PARAMS["seed"].min, PARAMS["seed"].max) == (0, 9999)


def test_every_registered_param_is_consistent():
    for key, p in PARAMS.items():
        assert key == p.key
        assert p.problem(p.default) is None, key
        assert p.parse(p.to_url(p.default)) == p.default, key  # default round-trips


# ------------------------------------------------------------------------------ rope-block keys
def _declared_block_keys():
    """(method, key) for every rope-block key a method declares, list keys aside (they have generators)."""
    return [(m, k) for m in ROPE_METHODS.values() for k in m.keys if k.kind != "float_list"]


def test_every_declared_rope_block_key_has_exactly_one_widget():
    # one row per key name, whichever methods read it; none for a key no method declares
    assert set(BLOCK_KEY_WIDGETS) == {k.name for _, k in _declared_block_keys()}
    with pytest.raises(KeyError, match=r"gain.*BLOCK_KEY_WIDGETS"):
        vocabulary.block_key_widget(MethodKey("gain", "float", required=True, above=1.0))


def test_rope_block_widgets_agree_with_the_declarations():
    first = {}
    for _, k in _declared_block_keys():
        first.setdefault(k.name, k)
    for m, k in _declared_block_keys():
        widget = BLOCK_KEY_WIDGETS[k.name]
        param = PARAMS["train_len" if k.name == "original_max_position_embeddings" else k.name]
        assert param.label == widget.label, k.name
        # the help is what the key does (its first declaration's doc), plus the widget's own note
        assert param.help == " ".join(filter(None, (first[k.name].doc, widget.note))), k.name
        if k.kind == "bool":
            assert param.kind == "toggle" and param.default == k.default, k.name
            assert widget.min is widget.max is widget.step is widget.unset is None, k.name
            continue
        assert param.kind == "number" and widget.min < widget.max, k.name
        assert (k.kind == "int") == param.is_int, k.name
        # the range holds only values HF computes with, the widget's "not set" value aside
        assert k.above is None or widget.min > k.above or widget.min == widget.unset, k.name
        if isinstance(k.default, (int, float)):
            assert param.problem(k.default) is None, k.name  # HF's default can be set on the widget
        if widget.initial is None:  # the widget starts at HF's default, else at "not set"
            assert param.default == (k.default if k.default is not None else widget.unset), k.name
        if widget.unset is not None:  # "leave the key out" only for an optional key HF computes without
            assert param.problem(widget.unset) is None and not k.required and k.default is None, (m.name, k.name)


def test_the_widget_values_that_leave_a_key_out():
    assert {name for name, w in BLOCK_KEY_WIDGETS.items() if w.unset is not None} == {
        "mscale",
        "mscale_all_dim",
        "attention_factor",
    }


def test_register_is_idempotent_but_rejects_a_different_definition():
    p = Param("zz_test", "Test", "int_slider", 3, min=0, max=9)
    try:
        assert widgets.register(p) is p
        widgets.register(Param("zz_test", "Test", "int_slider", 3, min=0, max=9))  # same: fine
        with pytest.raises(ValueError, match="zz_test"):
            widgets.register(Param("zz_test", "Test", "int_slider", 4, min=0, max=9))
    finally:
        PARAMS.pop("zz_test", None)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(key="Bad Key", label="x", kind="toggle", default=False), "key"),
        (dict(key="k", label="x", kind="dial", default=1), "kind"),
        (dict(key="k", label="x", kind="int_slider", default=20, min=0, max=9), "default"),
        (dict(key="k", label="x", kind="int_slider", default=1), "min and max"),
        (dict(key="k", label="x", kind="float_slider", default=0.5, min=0.0, max=1.0), "step"),
        (dict(key="k", label="x", kind="radio", default="c", options=("a", "b")), "default"),
        (dict(key="k", label="x", kind="select", default=1, options=(1, "1")), "distinct"),
        (
            dict(key="k", label="x", kind="select", default="a", options=("a", "b"), labels={"a": "A", "b": "A"}),
            "labels",
        ),
        (dict(key="k", label="x", kind="tabs", default="a", options=("a", "b"), labels={"a": "A", "b": "B"}), "labels"),
    ],
)
def test_invalid_definitions_are_rejected(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Param(**kwargs)


def test_labels_are_the_url_form_and_the_option_itself_still_parses():
    p = Param("k", "x", "select", "a-1", options=("a-1", "b-2"), labels={"a-1": "Alpha one", "b-2": "Beta two"})
    assert p.to_url("b-2") == "Beta two"  # what Streamlit's bound select writes (its format_func text)
    assert p.parse("Beta two") == "b-2" and p.parse("beta TWO") == "b-2"
    assert p.parse("b-2") == "b-2"  # an older link holding the option
    with pytest.raises(ParamError, match="Alpha one, Beta two"):
        p.parse("gamma")
    assert p.display("a-1") == "Alpha one"


# ---------------------------------------------------------------------- URL value parsing
@pytest.mark.parametrize(
    "key, raw, expected",
    [
        ("seq_len", "300", 300),
        ("seq_len", " 300 ", 300),
        ("seq_len", "300.0", 300),
        ("seq_len", "1e3", 1000),
        ("seq_len", "+8192", 8192),
        ("d_model", "2048", 2048),
        ("base", "500000", 500000),
        ("base", "1e4", 10000),
        ("layout_rope", "interleaved", "interleaved"),
        ("layout_rope", "HALF", "half"),
        ("scheme", "viridis", "viridis"),
        ("seed", "0", 0),
        ("seq_len", ["42"], 42),
    ],
)
def test_valid_url_values_parse(key, raw, expected):
    value = PARAMS[key].parse(raw)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize(
    "key, raw, reason",
    [
        ("seq_len", "abc", "not a number"),
        ("seq_len", "", "empty"),
        ("seq_len", "   ", "empty"),
        ("seq_len", "nan", "not a number"),
        ("seq_len", "NaN", "not a number"),
        ("seq_len", "inf", "not a number"),
        ("seq_len", "-Infinity", "not a number"),
        ("seq_len", "1e400", "not a finite number"),
        ("seq_len", "9" * 40, "outside the allowed range"),
        ("seq_len", "9" * 80, "too long"),
        ("seq_len", "0", "outside the allowed range"),
        ("seq_len", "8193", "outside the allowed range"),
        ("seq_len", "-5", "outside the allowed range"),
        ("seq_len", "3.5", "not a whole number"),
        ("seq_len", "0x10", "not a number"),
        ("seq_len", "1_000", "not a number"),
        ("seq_len", "12abc", "not a number"),
        ("seq_len", ["1", "2"], "more than once"),
        ("d_model", "127", "not on the 2-step grid"),
        ("head_dim", "0", "outside the allowed range"),
        ("base", "12345", "not one of"),
        ("base", "-1e4", "not one of"),
        ("layout_sin", "zigzag", "not one of"),
        ("scheme", "<script>", "not one of"),
        ("j", "-1", "outside the allowed range"),
        ("m", "1e10", "outside the allowed range"),
    ],
)
def test_invalid_url_values_are_rejected_with_a_message_naming_the_key(key, raw, reason):
    with pytest.raises(ParamError) as info:
        PARAMS[key].parse(raw)
    assert info.value.key == key
    assert str(info.value).startswith(f"{key}:")
    assert reason in info.value.reason
    assert isinstance(info.value, ValueError)


def test_toggle_text_and_float_kinds():
    toggle = Param("zz_flag", "Flag", "toggle", False)
    assert toggle.parse("TRUE") is True and toggle.parse("false") is False
    for raw in ("1", "yes", ""):
        with pytest.raises(ParamError, match="zz_flag"):
            toggle.parse(raw)
    text = Param("zz_text", "Text", "text", "hi", max=5)
    assert text.parse("") == "" and text.parse("hello") == "hello"
    with pytest.raises(ParamError, match="longer than 5"):
        text.parse("toolong")
    ratio = Param("zz_ratio", "Ratio", "float_slider", 0.5, min=0.0, max=1.0, step=0.05)
    assert ratio.parse("0.35") == pytest.approx(0.35)
    for raw in ("0.33", "1.5", "nan", "-inf"):
        with pytest.raises(ParamError, match="zz_ratio"):
            ratio.parse(raw)
    assert ratio.clamp(0.33) == pytest.approx(0.35) and ratio.clamp(7.0) == 1.0
    assert ratio.clamp(math.nan) == 0.5


def test_to_url_matches_what_streamlit_writes():
    assert PARAMS["seq_len"].to_url(300) == "300"
    assert PARAMS["seq_len"].to_url(300.0) == "300"
    assert PARAMS["base"].to_url(10000) == "10000"
    assert Param("zz_b", "B", "toggle", False).to_url(True) == "true"


def test_overrides_clamp_the_default_and_allow_a_single_value():
    j = PARAMS["j"].with_overrides(max=3)
    assert (j.min, j.max, j.default) == (0, 3, 0)
    assert j.clamp(60) == 3 and j.clamp(-4) == 0
    m = PARAMS["m"].with_overrides(max=3)
    assert m.default == 3  # registry default 5 does not fit: clamped
    single = PARAMS["j"].with_overrides(max=0)
    assert (single.min, single.max, single.default) == (0, 0, 0)
    with pytest.raises(TypeError, match="cannot override"):
        PARAMS["j"].with_overrides(key="k")
    assert PARAMS["layout_rope"].with_overrides(options=("interleaved",)).default == "interleaved"
    # an infinite default is clamped to the nearer end, as a finite one is (clamp() alone would give the default)
    assert PARAMS["j"].with_overrides(max=3, default=math.inf).default == 3
    assert PARAMS["j"].with_overrides(max=3, default=-math.inf).default == 0


# ----------------------------------------------------------------------------- links
def test_escape_markdown_neutralises_markup_and_autolinks():
    assert widgets.escape_markdown("a_b*[c](d)") == r"a\_b\*\[c\]\(d\)"
    assert widgets.escape_markdown("<b>x</b>") == r"\<b\>x\<\/b\>"
    assert widgets.escape_markdown(":red[x] $y$") == r"\:red\[x\] \$y\$"
    escaped = widgets.escape_markdown("http://evil.example www.evil.example a@b.co")
    assert "://" not in escaped.replace("\\", "") and "www." not in escaped.replace("\\", "")
    assert "\u200b" in escaped  # GFM autolinks broken by a zero-width space
    assert "\x00" not in widgets.escape_markdown("x\x00y\u202e")


# ------------------------------------------------------------- widget() in a real script
SCRIPT = """
import streamlit as st
from explorer.layout import page_setup
from explorer.widgets import widget

page_setup("rope")  # a declared page's frame
seq_len = widget("seq_len")
head_dim = widget("head_dim")
j = widget("j", max=head_dim // 2 - 1)
base = widget("base")
st.markdown(f"RESULT seq_len={seq_len} head_dim={head_dim} j={j} base={base}")
"""


def _run(query=None, at=None):
    at = at or AppTest.from_string(SCRIPT, default_timeout=30)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def _result(at):
    line = next(m.value for m in at.markdown if m.value.startswith("RESULT"))
    return dict(part.split("=") for part in line.split()[1:])


def _warnings(at):
    return [w.value for w in at.warning]


def test_widget_defaults_and_a_valid_deep_link():
    at = _run()
    assert _result(at) == {"seq_len": "128", "head_dim": "64", "j": "0", "base": "10000"}
    assert not _warnings(at)
    at = _run({"seq_len": "300", "base": "500000"})
    assert _result(at)["seq_len"] == "300" and _result(at)["base"] == "500000"
    assert not _warnings(at)


@pytest.mark.parametrize("raw", ["abc", "nan", "1e400", "99999999999999999999", "0", "-3", "3.5"])
def test_widget_garbage_falls_back_to_default_with_one_warning(raw):
    at = _run({"seq_len": raw, "head_dim": "7"})
    assert _result(at)["seq_len"] == "128" and _result(at)["head_dim"] == "64"
    warnings = _warnings(at)
    assert len(warnings) == 1
    assert "**seq\\_len**" in warnings[0] and "**head\\_dim**" in warnings[0]
    assert "used the default\\, 128" in warnings[0]
    assert "seq_len" not in at.query_params and "head_dim" not in at.query_params


def test_widget_warning_escapes_untrusted_text():
    at = _run({"seq_len": "<img src=x onerror=alert(1)>"})
    (warning,) = _warnings(at)
    assert r"\<img src\=x onerror\=alert\(1\)\>" in warning
    assert re.search(r"(?<!\\)[<>\[\]()]", warning.split("=", 1)[1]) is None  # all escaped
    at = _run({"seq_len": "[a](http://evil.example/" + "x" * 80 + ")"})
    (warning,) = _warnings(at)
    assert "too long" in warning and "](" not in warning and "://" not in warning
    assert "x" * 15 + "…" in warning and "x" * 16 not in warning  # shortened to 40 characters


def test_widget_clamps_a_value_outside_the_dynamic_range():
    at = _run({"head_dim": "8", "j": "60"})
    assert _result(at)["j"] == "3"
    (warning,) = _warnings(at)
    assert "**j**" in warning and "used 3 instead" in warning
    assert at.query_params["j"] == "3"


def test_widget_canonicalises_the_url_value():
    at = _run({"seq_len": "300.0", "base": "1e4"})
    assert _result(at)["seq_len"] == "300" and _result(at)["base"] == "10000"
    assert at.query_params["seq_len"] == "300"
    assert "base" not in at.query_params  # the default is not kept in the URL
    assert not _warnings(at)


def test_widget_keeps_the_pair_index_when_head_dim_changes():
    at = _run()
    at.slider(key="j").set_value(20)
    _run(at=at)
    at.slider(key="head_dim").set_value(128)
    _run(at=at)
    assert _result(at)["j"] == "20"  # carried over although the slider was re-created
    at.slider(key="head_dim").set_value(16)
    _run(at=at)
    assert _result(at)["j"] == "7"  # clamped into 0..7
    at.slider(key="head_dim").set_value(2)
    _run(at=at)
    assert _result(at)["j"] == "0"  # single possible value: shown as text, no crash
    assert not _warnings(at)


def test_widget_without_page_setup_reports_through_show_url_notices():
    script = """
import streamlit as st
from explorer.widgets import show_url_notices, widget
widget("seq_len")
widget("scheme", container=st.sidebar)
shown = show_url_notices()
st.markdown(f"SHOWN {shown is not None}")
"""
    at = AppTest.from_string(script, default_timeout=30)
    at.query_params["seq_len"] = "many"
    at.query_params["scheme"] = "rainbow"
    at.run()
    assert not at.exception
    (warning,) = _warnings(at)
    assert "**seq\\_len**" in warning and "**scheme**" in warning
    at.run()  # a rerun without bad values shows nothing stale
    assert not at.exception and not _warnings(at)
    assert any(m.value == "SHOWN False" for m in at.markdown)


def test_aliases_are_other_texts_for_an_option():
    """A select's aliases (e.g. a model's name where the label says more) parse to their option;
    the canonical URL form stays the label."""
    p = Param(
        "zz_pick",
        "Pick",
        "select",
        "a",
        options=("a", "b"),
        labels={"a": "Alpha (x)", "b": "Beta (y)"},
        aliases={"b": ("Beta",)},
    )
    assert p.parse("Beta") == p.parse("beta") == p.parse("b") == p.parse("Beta (y)") == "b"
    assert p.to_url("b") == "Beta (y)"
    with pytest.raises(ParamError):
        p.parse("Gamma")
    with pytest.raises(ValueError, match="aliases must name options"):
        Param("zz_pick2", "Pick", "select", "a", options=("a",), aliases={"c": ("C",)})
    with pytest.raises(ValueError, match="aliases are for select and radio"):
        Param("zz_pick3", "Pick", "segmented", "a", options=("a",), aliases={"a": ("A",)})


def test_options_with_commas_are_quoted_in_a_notice():
    # the lab's encoding sets are named by their members ("rope, hybrid"): joined bare, no reader could tell them apart
    param = Param("sets_t", "Sets", "select", "all", options=("all", "nope, rope", "rope"))
    assert param.options_phrase() == "“all”, “nope, rope”, “rope”"
    assert Param("plain_t", "Plain", "select", "a", options=("a", "b")).options_phrase() == "a, b"
