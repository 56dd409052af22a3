"""The "Compare methods" page through Streamlit's AppTest: defaults, every control at its minimum and
maximum, garbage in every URL parameter; the table cells are checked against independent checks
(hand-written score loops in tests/_attention_reference.py)."""

import re
from pathlib import Path

import numpy as np
import pytest
from _apptest import run_page
from _attention_reference import ref_score
from _chartspec import assert_draws_curve, proto_spec
from _compare_chart import drawn, mark_value, panels
from _posenc_reference_impl import ref_alibi_slopes
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df
from streamlit.testing.v1 import AppTest

from explorer.text.compare import COLUMNS, METHOD_LABELS
from explorer.widgets import PARAMS as REGISTRY
from posenc import attention as att
from posenc import learned_table

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "8_Compare_methods.py")
KEYS = ("head_dim", "train_len", "target_len", "base", "seed", "alibi_head")
REL, ORDER, EXTRA, PARAMS, INJECTS = COLUMNS[1:]
MINIMUM = {"head_dim": 2, "train_len": 16, "target_len": 17, "base": 10, "seed": 0, "alibi_head": 1}
MAXIMUM = {"head_dim": 256, "train_len": 2048, "target_len": 4096, "base": 1000000, "seed": 9999, "alibi_head": 8}
GARBAGE = {
    "head_dim": "odd",
    "train_len": "NaN",
    "target_len": "1e400",
    "base": "-1",
    "seed": "3.5",
    "alibi_head": "99",
}


def run(at=None, **query):
    return run_page(PAGE, at, **query)


def table(at):
    (t,) = at.table
    return t.value


def url_notice_about(at, key):
    return any("could not be used" in w.value and key in w.value.replace("\\", "") for w in at.warning)


def number_after(text, label):
    match = re.search(re.escape(label) + r" ([-+0-9.e]+)", text)
    assert match, f"{label!r} not in {text!r}"
    return float(match.group(1))


def chart(at):
    """The score chart's spec (with the datasets the page sent beside it) and the rows its panels draw where its
    sliders start: the page sends posenc's wide table (one row per n, up to the largest T its sliders reach), each
    panel filters it and reads its scores (run here in Python, tests/_compare_chart)."""
    (c,) = at.get("vega_lite_chart")
    spec = proto_spec(c.proto)
    spec["datasets"] = {
        d.name: convert_arrow_bytes_to_pandas_df(d.data.data).to_dict("records") for d in c.proto.datasets
    }
    return spec, drawn(spec, {})


def assert_page_complete(at, *, dim, L, T):
    assert at.title[0].value == "Compare methods"
    assert len(at.latex) >= 1
    assert any("What to notice" in md.value for md in at.markdown)
    t = table(at)
    assert list(t.index) == list(METHOD_LABELS.values())
    assert list(t.columns) == list(COLUMNS[1:])
    # the verdicts every setting must give
    assert t.loc["RoPE", REL].startswith("✓") and t.loc["ALiBi", REL].startswith("✓")
    assert t.loc["Sinusoidal", REL].startswith("✗") and t.loc["Learned absolute", REL].startswith("✗")
    assert t.loc["NoPE (none)", REL].startswith("— no position signal")
    assert number_after(t.loc["RoPE", REL], "max dev") < 1e-9
    assert t.loc["NoPE (none)", ORDER].startswith("✗") and number_after(t.loc["NoPE (none)", ORDER], "gap") < 1e-12
    for label in ("Sinusoidal", "Learned absolute", "RoPE", "ALiBi"):
        assert t.loc[label, ORDER].startswith("✓") and number_after(t.loc[label, ORDER], "gap") > 1e-6
    assert t.loc["Learned absolute", EXTRA] == (
        f"✗ a learned table has no row for positions ≥ L = {L}, so position {T - 1} cannot be scored"
    )
    for label in ("Sinusoidal", "RoPE", "ALiBi", "NoPE (none)"):
        assert t.loc[label, EXTRA].startswith(f"✓ scores finite up to position {T - 1}")
    assert t.loc["Learned absolute", PARAMS] == f"{L * dim:,} = L·d = {L}·{dim}"
    assert all(t.loc[x, PARAMS].startswith("0 ") for x in ("Sinusoidal", "RoPE", "ALiBi", "NoPE (none)"))
    assert t.loc["RoPE", INJECTS].startswith("rotates q and k") and "Δv 0" in t.loc["RoPE", INJECTS]
    assert t.loc["ALiBi", INJECTS].startswith("bias on the attention logits")
    assert t.loc["NoPE (none)", INJECTS].startswith("nowhere")
    # the chart: one curve per method over 0 … T−1, learned only up to L−1, a rule at L
    spec, data = chart(at)
    counts = data.groupby("method").size().to_dict()
    assert counts.pop("Learned absolute") == L and counts.pop("Sinusoidal") == counts.pop("RoPE") == T
    assert 2 <= counts.pop("NoPE (none)") == counts.pop("ALiBi") < T  # straight lines, drawn from their ends
    # ALiBi's curve, which the browser computes at the head slider's slope, is posenc's at the page's head
    state = at.session_state
    slope = ref_alibi_slopes(8)[int(state["alibi_head"]) - 1]
    kw = dict(dim=dim, trained_len=L, test_len=T, seed=int(state["seed"]), base=float(state["base"]))
    for method in ("alibi", "nope"):
        want = att.method_checks(method, **kw, alibi_slope=slope)
        got = data[data["method"] == METHOD_LABELS[method]].sort_values("distance")
        assert_draws_curve(got["distance"], got["score"], want["distances"], want["scores"], method)
    for panel in panels(spec).values():
        rule = panel["layer"][1]
        assert spec["datasets"][rule["data"]["name"]] == [{"at": "L"}]  # one rule a panel, from its own row
        assert mark_value(spec, rule, "x", {}) == L  # each panel's rule stands at L


# --- defaults ----------------------------------------------------------------------------------
def test_defaults():
    at = run()
    assert at.slider(key="head_dim").value == 64
    assert at.number_input(key="train_len").value == 128
    assert at.number_input(key="target_len").value == 512
    assert not at.warning and not at.error
    assert_page_complete(at, dim=64, L=128, T=512)
    t = table(at)
    assert t.loc["Learned absolute", PARAMS] == "8,192 = L·d = 128·64"
    # ALiBi head 4 of 8: slope 1/16; moving a token by t = 64 changes its bias by 4
    assert "bias Δ 4" in t.loc["ALiBi", INJECTS]
    assert "constant along diagonals (dev 0)" in t.loc["ALiBi", REL]


# --- cells against independent checks -----------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 7])
def test_cells_match_independent_checks(seed):
    d, L, T, head = 6, 16, 24, 2
    at = run(head_dim=d, train_len=L, target_len=T, seed=seed, alibi_head=head, base=100)
    assert_page_complete(at, dim=d, L=L, T=T)
    t = table(at)
    slope = ref_alibi_slopes(8)[head - 1]
    x_q, x_k = att.token_embeddings(["query", "key"], d, seed=seed)  # the page's seeded inputs
    w_q, w_k, _ = att.seeded_projections(d, seed=seed)
    tab = learned_table(L, d, seed=seed, std=1.0)
    n, shift = L // 2, L - L // 2

    def s(method, m, k):
        return ref_score(method, x_q, x_k, m, k, w_q, w_k, table=tab, slope=slope, base=100.0)

    for method in ("sinusoidal", "learned", "rope", "alibi"):
        dev = max(abs(s(method, m, k) - s(method, m + shift, k + shift)) for m in range(n) for k in range(n))
        shown = number_after(t.loc[METHOD_LABELS[method], REL], "max dev")
        if dev < 1e-9:
            assert shown < 1e-9 and t.loc[METHOD_LABELS[method], REL].startswith("✓")
        else:
            assert shown == pytest.approx(dev, rel=5e-3) and t.loc[METHOD_LABELS[method], REL].startswith("✗")
        assert f"(shift by {shift})" in t.loc[METHOD_LABELS[method], REL]
    # NoPE: the same score at every (m, n)
    nope = [s("nope", m, k) for m in range(L) for k in range(L)]
    assert max(nope) - min(nope) < 1e-12
    # the chart's curves are the scores of the query at 0 against keys at 0 … T−1
    _, data = chart(at)
    rope = data[data["method"] == "RoPE"].sort_values("distance")
    np.testing.assert_allclose(rope["score"].to_numpy(), [s("rope", 0, k) for k in range(T)], atol=1e-12)
    alibi = data[data["method"] == "ALiBi"].sort_values("distance")
    assert alibi["distance"].iloc[[0, -1]].tolist() == [0, T - 1]  # a straight line, drawn through its ends
    line = np.interp(np.arange(T), alibi["distance"], alibi["score"])
    np.testing.assert_allclose(line, [s("alibi", 0, k) for k in range(T)], atol=1e-12)
    # ALiBi's bias change when a token moves by `shift`
    assert number_after(t.loc["ALiBi", INJECTS], "bias Δ") == pytest.approx(slope * shift, rel=1e-2)


# --- controls at their minimum and maximum --------------------------------------------------------
def test_every_control_at_its_minimum():
    at = run(**MINIMUM)
    assert not any(url_notice_about(at, key) for key in KEYS)
    assert at.slider(key="head_dim").value == 2
    assert_page_complete(at, dim=2, L=16, T=17)


def test_every_control_at_its_maximum():
    at = run(**MAXIMUM)
    assert not any(url_notice_about(at, key) for key in KEYS)
    assert at.number_input(key="target_len").value == 4096
    assert_page_complete(at, dim=256, L=2048, T=4096)


def test_widgets_changed_in_the_session():
    at = run()
    at.slider(key="head_dim").set_value(8)
    at.number_input(key="train_len").set_value(32)
    run(at)
    at.number_input(key="target_len").set_value(40)
    at.session_state["alibi_head"] = 8  # as the chart's own slider reports it (explorer.liveparam)
    run(at)
    assert "ALiBi slope 0.00390625 (head 8 of 8)" in " ".join(c.value for c in at.caption)
    assert_page_complete(at, dim=8, L=32, T=40)


def test_test_length_not_beyond_L_is_clamped():
    at = run(train_len=300, target_len=200)
    assert at.number_input(key="target_len").value == 301
    assert url_notice_about(at, "target_len")
    assert_page_complete(at, dim=64, L=300, T=301)


def test_shared_keys_beyond_this_page_range_are_clamped():
    at = run(train_len=4096, target_len=16384)  # fine on "Context extension", too big here
    assert at.number_input(key="train_len").value == 2048
    assert at.number_input(key="target_len").value == 4096
    assert_page_complete(at, dim=64, L=2048, T=4096)


# --- garbage in the URL -------------------------------------------------------------------------
@pytest.mark.parametrize("key", KEYS)
def test_garbage_in_one_url_parameter(key):
    at = run(**{key: GARBAGE[key]})
    assert url_notice_about(at, key)
    assert_page_complete(at, dim=64, L=128, T=512)


def test_garbage_in_every_url_parameter_at_once():
    at = run(**GARBAGE)
    assert all(url_notice_about(at, key) for key in KEYS)
    assert_page_complete(at, dim=64, L=128, T=512)


def test_alibi_head_help_is_true_at_the_longest_test_length():
    """Head 8 (slope 2^−8) at T = 4096: the farthest key is biased by −4095/256 ≈ −16, a factor
    e^−16 in the weights, so "head 8 looks almost uniformly" would be false; the help names slopes."""
    from explorer.widgets import PARAMS

    at = run(**MAXIMUM)  # head 8 of 8
    assert not at.exception
    help_text = PARAMS["alibi_head"].help
    assert "almost uniformly" not in help_text
    slopes = ref_alibi_slopes(8)
    assert slopes[0] == 1 / 2 and slopes[-1] == 1 / 256
    assert "slope 1/2" in help_text and "slope 1/256" in help_text


# --- L and T as the chart's own sliders (issue #36) ------------------------------------------------
def sliders(spec) -> dict:
    """{key: (first, last) length its slider reaches} of the chart's own sliders."""
    from explorer.vocabulary import TARGET_STOPS

    return {
        p["name"]: (TARGET_STOPS[p["bind"]["min"]], TARGET_STOPS[p["bind"]["max"]])
        for p in spec.get("params", [])
        if "select" in p and p["name"] in ("train_len", "target_len")
    }


@pytest.mark.parametrize(
    "query, want",
    [
        ({}, {"train_len": (16, 2048), "target_len": (24, 4096)}),  # both on their stops
        ({"target_len": 1000}, {"train_len": (16, 768)}),  # T typed off the stops: a server run; L below it
        ({"train_len": 100}, {"target_len": (128, 4096)}),
        ({"train_len": 100, "target_len": 1000}, {}),
    ],
)
def test_lengths_on_their_stops_are_the_charts_sliders(query, want):
    at = run(**query)
    assert not at.exception and not at.warning
    spec, _ = chart(at)
    assert sliders(spec) == want
    (head,) = [p for p in spec["params"] if p["name"] == "alibi_head"]  # h is the chart's at every L and T
    assert (head["bind"]["min"], head["bind"]["max"], head["value"]) == (1, 8, 4)
    (base,) = [p for p in spec["params"] if p["name"] == "base"]  # and b, over the index of its options
    options = list(REGISTRY["base"].options)
    assert (base["bind"]["min"], base["bind"]["max"], base["value"]) == (0, len(options) - 1, options.index(10000))


def _page_after_a_report():
    """The page as Streamlit runs it after the chart reported a slider (explorer.liveparam.report), then the page."""
    import runpy

    import streamlit as st

    from explorer import liveparam

    report = st.session_state.pop("test_report", None)
    if report is not None:
        liveparam.report("cmp_live", tuple(report), report)
    runpy.run_path(st.session_state["test_page"], run_name="__main__")


def test_a_report_of_the_charts_base_reaches_the_select_slider_the_link_and_the_table():
    """b dragged to 500 on the chart (its index among the options): the select slider, the link and the settings
    caption follow, and the table's checks are recomputed at b = 500; the chart is kept (its spec does not
    depend on b: it carries the sinusoidal and RoPE curves at every option)."""
    at = AppTest.from_function(_page_after_a_report, default_timeout=60)
    at.session_state["test_page"] = PAGE
    run_page("", at)
    assert not at.exception
    spec = at.get("vega_lite_chart")[0].proto.spec
    at.session_state["test_report"] = {"base": [{"base": list(REGISTRY["base"].options).index(500)}]}
    run_page("", at)
    assert not at.exception
    assert at.query_params["base"] == "500"
    assert at.select_slider(key="base").value == 500
    assert any("base 500," in c.value for c in at.caption)
    assert at.get("vega_lite_chart")[0].proto.spec == spec


def test_l_passing_t_takes_t_to_the_next_stop():
    """What the chart draws when its L slider passes T (T at the first stop above L), the page does when that
    value arrives; a T typed off the stops is only kept above L, as before."""
    at = run()
    at.session_state["train_len"] = 1024  # as the chart's report writes it (T = 512 stays)
    run(at)
    assert at.number_input(key="target_len").value == 1536
    assert_page_complete(at, dim=64, L=1024, T=1536)
    at.number_input(key="target_len").set_value(1600)
    run(at)
    at.number_input(key="train_len").set_value(2000)
    run(at)
    assert at.number_input(key="target_len").value == 2001
    assert_page_complete(at, dim=64, L=2000, T=2001)
