"""posenc.grammar: the one method grammar of the lab and the real model (issue #38)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc import grammar

WORD = st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True)
VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
)


@pytest.mark.parametrize(
    "text, head, rope_type, params, stopped, ft",
    [
        ("rope", "rope", None, {}, None, None),
        ("rope+yarn:beta_fast=2@ft256", "rope", "yarn", {"beta_fast": 2.0}, None, 256),
        ("alibi:heads=8", "alibi", None, {"heads": 8.0}, None, None),
        ("yarn:factor=2/stop=20-31", "yarn", None, {"factor": 2.0}, (20, 31), None),
        ("default/stop=0-0", "default", None, {}, (0, 0), None),
        ("  Rope+LLAMA3:High_Freq_Factor=8  ", "rope", "llama3", {"high_freq_factor": 8.0}, None, None),
        ("yarn:truncate=false:mscale=null", "yarn", None, {"truncate": False, "mscale": None}, None, None),
        ("rope+linear:factor=1e1", "rope", "linear", {"factor": 10.0}, None, None),
        ("rope@ft128", "rope", None, {}, None, 128),
    ],
)
def test_parse_reads_every_part(text, head, rope_type, params, stopped, ft):
    got = grammar.parse(text)
    assert (got.head, got.rope_type, dict(got.params), got.stopped, got.finetune_len) == (
        head,
        rope_type,
        params,
        stopped,
        ft,
    )
    assert got.text == text.strip().lower()


@pytest.mark.parametrize(
    "bad, words",
    [
        ("", "shape"),
        ("+yarn", "shape"),
        ("rope+", "shape"),
        ("rope+yarn:factor", "key=value"),
        ("rope+yarn:=2", "key=value"),
        ("rope+yarn:factor=two", "factor must be a number"),
        ("rope+yarn:factor=2:factor=3", "factor is given twice"),
        ("rope/stop=3", "shape"),
        ("rope@ft", "shape"),
        ("rope@ft64/stop=1-2", "shape"),  # the order is fixed: stop before the fine-tune
        ("2rope", "shape"),
    ],
)
def test_parse_names_what_is_wrong(bad, words):
    with pytest.raises(ValueError, match=words) as info:
        grammar.parse(bad)
    assert repr(bad) in str(info.value) or repr(bad.split(":")[-1].partition("=")[2]) in str(info.value)


@settings(max_examples=200, deadline=None)
@given(
    head=WORD,
    rope_type=st.one_of(st.none(), WORD),
    params=st.dictionaries(WORD, VALUE, max_size=4),
    stopped=st.one_of(st.none(), st.tuples(st.integers(0, 99), st.integers(0, 99))),
    ft=st.one_of(st.none(), st.integers(1, 10**6)),
)
def test_compose_then_parse_gives_the_parts_back(head, rope_type, params, stopped, ft):
    text = grammar.compose(head, rope_type, params, stopped=stopped, finetune_len=ft)
    got = grammar.parse(text)
    assert got.head == head and got.rope_type == rope_type and got.stopped == stopped and got.finetune_len == ft
    assert set(got.params) == set(params)
    for key, value in params.items():
        if value is None or isinstance(value, bool):
            assert got.params[key] is value
        else:
            assert got.params[key] == float(value)  # exact: numbers are written so they read back exactly


def test_compose_writes_short_numbers():
    assert grammar.compose("rope", "yarn", {"beta_fast": 4}) == "rope+yarn:beta_fast=4"
    assert grammar.compose("yarn", None, {"factor": 2.0}, stopped=(20, 31)) == "yarn:factor=2/stop=20-31"
    assert grammar.compose("rope", "linear", {"factor": 0.1}) == "rope+linear:factor=0.1"
    assert grammar.compose("rope", finetune_len=256) == "rope@ft256"


def test_required_values_are_llama_3_1s_published_ones():
    # meta-llama/Llama-3.1-8B config.json, rope_scaling: low_freq_factor 1.0, high_freq_factor 4.0
    assert dict(grammar.REQUIRED_VALUES["llama3"]) == {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
    assert set(grammar.REQUIRED_VALUES) == {"llama3"}
