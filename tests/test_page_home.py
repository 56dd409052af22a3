"""The home page (app.py, "Why position matters") through Streamlit's AppTest: defaults, every
position signal, every control at its minimum and maximum, garbage in every URL parameter, an empty
and a 500-word sentence; the gaps shown are checked against a hand-written attention head."""

from pathlib import Path

import numpy as np
import pytest
from _apptest import run_page
from _attention_reference import ref_gap_both, ref_gap_rows, ref_head
from _chartspec import proto_spec
from _posenc_reference_impl import ref_sinusoidal_row
from streamlit.dataframe_util import convert_arrow_bytes_to_pandas_df

from explorer.widgets import get
from posenc import attention as att
from posenc import learned_table

ROOT = Path(__file__).resolve().parent.parent
PAGE = str(ROOT / "app.py")
PES = ("none", "sinusoidal", "learned", "rope")
DEFAULT_WORDS = ["the", "cat", "sat", "on", "the", "mat"]
KEYS = ("sentence", "shuffle_seed", "seed", "d_model", "home_pe")
N_CHARTS = 2  # shuffle diagram; the head's chart (scatter and three heatmaps, every d: explorer.charts.home)
GARBAGE = {
    "sentence": "x" * 301,  # longer than the parameter allows
    "shuffle_seed": "abc",
    "seed": "-3",
    "d_model": "1e99",
    "home_pe": "t5",
}


def run(at=None, **query):
    return run_page(PAGE, at, **query)


def url_notice_about(at, key):
    """Whether the page's "link could not be used" warning names `key` (markdown escapes removed)."""
    return any("could not be used" in w.value and key in w.value.replace("\\", "") for w in at.warning)


def gaps(at):
    shown = {m.label: m.value for m in at.metric}
    return float(shown["Output difference"]), float(shown["Attention difference"])


def chart_data(at, index, layer=0, view=None):
    """The rows of one layer of chart `index` (the page's order); `view`: the path to a view of a compound chart
    (("vconcat", 1, "hconcat", 0): the first heatmap)."""
    proto = at.get("vega_lite_chart")[index].proto
    spec = proto_spec(proto)
    for step in view or ():
        spec = spec[step]
    name = spec["layer"][layer].get("data", spec.get("data"))["name"]
    (dataset,) = [d for d in proto.datasets if d.name == name]
    return convert_arrow_bytes_to_pandas_df(dataset.data.data)


#: The head's chart (explorer.charts.home.experiment_chart): the scatter on top, then the heatmaps side by side.
SCATTER = ("vconcat", 0)
HEATMAP_VIEWS = {name: ("vconcat", 1, "hconcat", i) for i, name in enumerate(("A(X)", "A(PX)", "P·A(X)·Pᵀ"))}


def start_d(at) -> int:
    """Where the head chart's own d slider starts (its selection's value)."""
    (param,) = [p for p in specs(at)[1]["params"] if p["name"] == "d_model"]
    return param["value"]


def heat(at, name="A(X)", d=None):
    """The heatmap `name`'s weights at d (the page's d by default) as an (n, n) array, rows and columns in the
    heatmap's order."""
    rows = chart_data(at, 1, layer=1, view=HEATMAP_VIEWS[name])
    rows = rows[rows["d"] == (start_d(at) if d is None else d)]
    n = int(round(len(rows) ** 0.5))
    grid = np.full((n, n), np.nan)
    grid[rows["row"].to_numpy(), rows["col"].to_numpy()] = rows["weight"].to_numpy()
    return grid


def specs(at):
    return [proto_spec(c.proto) for c in at.get("vega_lite_chart")]


def diagram_words(at):
    """(the top row's words, the bottom row's words): layer 1 draws the sentence, layer 2 its shuffle."""
    return chart_data(at, 0, layer=1)["word"].tolist(), chart_data(at, 0, layer=2)["word"].tolist()


def independent_gaps(words, *, pe, dim=16, seed=0, shuffle_seed=0):
    """The head written out as loops (tests/_attention_reference.py), on the same seeded inputs."""
    perm = att.shuffle_permutation(words, seed=shuffle_seed)
    w_q, w_k, w_v = att.seeded_projections(dim, seed=seed)
    n = len(words)
    pe_rows = {
        "sinusoidal": [ref_sinusoidal_row(p, dim) for p in range(n)],
        "learned": learned_table(24, dim, seed=seed, std=1.0)[:n],
    }.get(pe)
    x = att.token_embeddings(words, dim, seed=seed)
    xs = att.token_embeddings([words[i] for i in perm], dim, seed=seed)
    a, y = ref_head(x, w_q, w_k, w_v, pe=pe_rows, rope=pe == "rope")
    a2, y2 = ref_head(xs, w_q, w_k, w_v, pe=pe_rows, rope=pe == "rope")
    return ref_gap_rows(y, y2, perm), ref_gap_both(a, a2, perm), a


def assert_page_complete(at, pe):
    assert at.title[0].value == "Why position matters"
    assert len(at.get("vega_lite_chart")) == N_CHARTS
    assert len(at.latex) >= 1
    assert any("What to notice" in md.value for md in at.markdown)
    out_gap, attn_gap = gaps(at)
    scatter_title = specs(at)[1]["vconcat"][0]["title"]["text"]
    if pe == "none":
        assert out_gap < 1e-12 and attn_gap < 1e-12
        assert "every dot is on the diagonal" in scatter_title
        assert any("Blind to order" in w.value for w in at.warning)
    else:
        assert out_gap > 1e-6 and attn_gap > 1e-6
        assert "leave the diagonal" in scatter_title
        assert any("Order matters" in s.value for s in at.success)


def assert_matches_independent(at, words, pe, **kw):
    out_gap, attn_gap = gaps(at)
    ref_out, ref_attn, ref_weights = independent_gaps(words, pe=pe, **kw)
    if pe == "none":
        assert ref_out < 1e-12 and ref_attn < 1e-12
    else:
        assert out_gap == pytest.approx(ref_out, abs=1e-3) and attn_gap == pytest.approx(ref_attn, abs=1e-3)
    assert start_d(at) == kw.get("dim", 16)  # the chart opens at the page's d
    np.testing.assert_allclose(heat(at), ref_weights, atol=1e-12)  # the original sentence's weights at that d


# --- defaults ----------------------------------------------------------------------------------
def test_defaults():
    at = run()
    assert_page_complete(at, "none")
    assert at.segmented_control(key="home_pe").value == "none"
    assert at.text_input(key="sentence").value == "the cat sat on the mat"
    original, shuffled = diagram_words(at)
    assert original == DEFAULT_WORDS and sorted(shuffled) == sorted(DEFAULT_WORDS) and shuffled != original
    assert not at.error and not at.info
    assert_matches_independent(at, DEFAULT_WORDS, "none")


# --- each position signal ------------------------------------------------------------------------
@pytest.mark.parametrize("pe", PES)
def test_each_pe_from_the_url(pe):
    at = run(home_pe=pe)
    assert at.segmented_control(key="home_pe").value == pe
    assert_page_complete(at, pe)
    assert_matches_independent(at, DEFAULT_WORDS, pe)


def test_switching_pe_with_the_widget():
    at = run()
    for pe in ("rope", "learned", "sinusoidal", "none"):
        at.segmented_control(key="home_pe").set_value(pe)
        run(at)
        assert_page_complete(at, pe)


# --- controls at their minimum and maximum --------------------------------------------------------
@pytest.mark.parametrize("pe", PES)
@pytest.mark.parametrize("extreme", ["min", "max"])
def test_controls_at_extremes(pe, extreme):
    values = (
        {"d_model": 2, "seed": 0, "shuffle_seed": 0}
        if extreme == "min"
        else {"d_model": 64, "seed": 9999, "shuffle_seed": 9999}
    )
    at = run(home_pe=pe, **values)
    assert not any(url_notice_about(at, key) for key in KEYS)  # every value is allowed
    assert start_d(at) == values["d_model"]
    assert_page_complete(at, pe)
    assert_matches_independent(
        at, DEFAULT_WORDS, pe, dim=values["d_model"], seed=values["seed"], shuffle_seed=values["shuffle_seed"]
    )


def test_d_model_beyond_the_page_cap_is_clamped():
    at = run(d_model=512)  # valid for the registry (shared key), too big for this toy
    assert start_d(at) == 64
    assert url_notice_about(at, "d_model")
    assert_page_complete(at, "none")


# --- garbage in the URL -------------------------------------------------------------------------
@pytest.mark.parametrize("key", KEYS)
def test_garbage_in_one_url_parameter(key):
    at = run(**{key: GARBAGE[key]})
    assert url_notice_about(at, key)
    assert_page_complete(at, "none")
    assert at.segmented_control(key="home_pe").value == "none"
    assert start_d(at) == 16


def test_garbage_in_every_url_parameter_at_once():
    at = run(**GARBAGE)
    assert all(url_notice_about(at, key) for key in KEYS)
    assert_page_complete(at, "none")
    assert diagram_words(at)[0] == DEFAULT_WORDS


@pytest.mark.parametrize("text", ["", "   ", "!!! ??? ...", "the the the", "solo"])
def test_unusable_sentence_in_the_url_falls_back_to_the_default(text):
    at = run(sentence=text)
    assert any("at least two different words" in w.value for w in at.warning)
    assert diagram_words(at)[0] == DEFAULT_WORDS
    assert_page_complete(at, "none")


# --- sentences typed into the widget ----------------------------------------------------------------
def test_empty_sentence():
    at = run()
    at.text_input(key="sentence").set_value("")
    run(at)
    assert any("at least two different words" in w.value for w in at.warning)
    assert diagram_words(at)[0] == DEFAULT_WORDS
    assert_page_complete(at, "none")


@pytest.mark.parametrize("pe", ["none", "rope"])
def test_500_word_sentence(pe):
    words = [f"word{i % 50}" for i in range(500)]
    at = run(home_pe=pe)
    at.text_input(key="sentence").set_value(" ".join(words))
    run(at)
    # the text box keeps its first 300 characters (max_chars); the page uses the first 24 words
    kept = " ".join(words)[:300].split()
    assert at.text_input(key="sentence").value == " ".join(words)[:300]
    assert any(f"first 24 of {len(kept)} words" in i.value for i in at.info)
    assert diagram_words(at)[0] == [w[:6] + "…" if len(w) > 7 else w for w in words[:24]]
    assert_page_complete(at, pe)
    assert heat(at).shape == (24, 24)
    assert_matches_independent(at, words[:24], pe)


def test_own_sentence_with_punctuation():
    at = run(home_pe="sinusoidal", sentence="Dog bites man!")
    original, shuffled = diagram_words(at)
    assert original == ["dog", "bites", "man"] and shuffled != original
    assert_page_complete(at, "sinusoidal")
    assert_matches_independent(at, ["dog", "bites", "man"], "sinusoidal")


def test_sentence_default_matches_registry():
    assert get("sentence").default == " ".join(DEFAULT_WORDS)


def test_long_sentence_from_the_url_uses_the_first_24_words():
    words = [f"w{i}" for i in range(100)]  # 389 characters would be too long; 100 short words fit
    text = " ".join(words)[:300]
    at = run(sentence=text, home_pe="learned")
    kept = text.split()
    assert any(f"first 24 of {len(kept)} words" in i.value for i in at.info)
    assert diagram_words(at)[0] == kept[:24]
    assert_page_complete(at, "learned")
    assert_matches_independent(at, kept[:24], "learned")


# ------------------------------------------------------------------ the stored default view
def test_the_page_never_imports_torch():
    """The home page's head is numpy (posenc.attention.attention_head): a fresh process that draws
    the default view, every position signal and another head size has not loaded torch, so a cold
    server's first pages (the lecture hall's) never pay its import. The probe must be able to fail:
    the same process then imports posenc.torch and sees it loaded."""
    import subprocess
    import sys
    import textwrap

    probe = textwrap.dedent(
        f"""
        import sys
        from streamlit.testing.v1 import AppTest
        for query in ({{}}, {{"home_pe": "rope"}}, {{"home_pe": "learned", "d_model": "18"}}, {{"home_pe": "sinusoidal"}}):
            at = AppTest.from_file({PAGE!r}, default_timeout=60)
            for k, v in query.items():
                at.query_params[k] = v
            at.run()
            assert not at.exception, at.exception
            assert len(at.get("vega_lite_chart")) == 2 and len(at.metric) == 2
        print("before", "torch" in sys.modules)
        import posenc.torch
        print("after", "torch" in sys.modules)
        """
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.split() == ["before", "False", "after", "True"]


# ------------------------------------------------------------------ every d in the chart (issue #36)
@pytest.mark.parametrize("pe", PES)
def test_the_chart_carries_every_d_and_each_is_the_independent_heads(pe):
    """The head's chart holds every d its slider reaches (2 … 64 in steps of 2), so a drag redraws it in the
    browser: at each of them, the three heatmaps are the hand-written head's A(X), A(PX) and P·A(X)·Pᵀ, and the
    scatter's dots are its outputs, re-ordered against the shuffled sentence's; the slider spans exactly those."""
    words = ["a", "dog", "bit", "the", "man"]
    at = run(home_pe=pe, sentence=" ".join(words), shuffle_seed=3, seed=7)
    (bind,) = [p["bind"] for p in specs(at)[1]["params"] if p["name"] == "d_model"]
    assert (bind["min"], bind["max"], bind["step"]) == (2, 64, 2)
    points = chart_data(at, 1, layer=1, view=SCATTER)
    assert sorted(set(points["d"])) == list(range(2, 65, 2))
    perm = att.shuffle_permutation(words, seed=3)
    for d in (2, 6, 30, 64):
        w_q, w_k, w_v = att.seeded_projections(d, seed=7)
        n = len(words)
        pe_rows = {
            "sinusoidal": [ref_sinusoidal_row(p, d) for p in range(n)],
            "learned": learned_table(24, d, seed=7, std=1.0)[:n],
        }.get(pe)
        x = att.token_embeddings(words, d, seed=7)
        xs = att.token_embeddings([words[i] for i in perm], d, seed=7)
        a, y = ref_head(x, w_q, w_k, w_v, pe=pe_rows, rope=pe == "rope")
        a2, y2 = ref_head(xs, w_q, w_k, w_v, pe=pe_rows, rope=pe == "rope")
        np.testing.assert_allclose(heat(at, "A(X)", d), a, atol=1e-12)
        np.testing.assert_allclose(heat(at, "A(PX)", d), a2, atol=1e-12)
        np.testing.assert_allclose(heat(at, "P·A(X)·Pᵀ", d), np.asarray(a)[perm][:, perm], atol=1e-12)
        at_d = points[points["d"] == d]
        np.testing.assert_allclose(at_d["expected"].to_numpy(), np.asarray(y)[perm].ravel(), atol=1e-12)
        np.testing.assert_allclose(at_d["actual"].to_numpy(), np.asarray(y2).ravel(), atol=1e-12)
