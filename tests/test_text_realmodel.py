"""The real-model page's sentences (explorer/text/realmodel.py) and chart builders (explorer/charts/realmodel.py),
each claim checked against numbers recomputed here, and each verdict shown to flip with its interval."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from _chartspec import by_field, frame
from statsmodels.stats.proportion import proportion_confint

from explorer.charts import realmodel as charts
from explorer.text import realmodel as realtext
from posenc import realmodel
from posenc.realmodel import MODEL, HeadRules


def _products(slow_weight: float) -> np.ndarray:
    p = np.ones((MODEL.layers, MODEL.q_heads, MODEL.pairs))
    p[..., 20:] = slow_weight
    return p


def test_frequency_notes_name_the_slow_pairs_and_their_share():
    p = _products(5.0)
    share = realmodel.share(p, realtext.slow_pairs(MODEL))
    notes = realtext.frequency_notes(p, (share, share - 0.01, share + 0.01), MODEL, tokens=256, block=16)
    lam = 2 * np.pi * 1e5 ** (np.arange(32) * 2 / 64)
    assert f"wavelengths {lam[20]:,.0f}–{lam[31]:,.0f} tokens" in notes[0]
    assert f"**{100 * share:.1f} %**" in notes[0]
    assert "more than the 37.5 %" in notes[0] and "Barbero" in notes[0]
    # issue #37: |q|·|k| bounds a pair's term; the sentence says so and claims no use by the model
    assert "upper bound" in notes[0] and "not what softmax sees" in notes[0] and "leans on" not in notes[0]


@pytest.mark.parametrize(
    ("interval", "word"),
    [((0.3, 0.2, 0.36), "less than"), ((0.37, 0.3, 0.45), "not distinguishable"), ((0.5, 0.4, 0.6), "more than")],
)
def test_the_verdict_follows_the_interval(interval, word):
    note = realtext.frequency_notes(_products(1.0), interval, MODEL, tokens=256, block=16)[0]
    assert word in note
    assert ("Barbero" in note) == (word == "more than")


def test_layer_and_head_notes():
    p = _products(1.0)
    p[3, 4, 20:] = 9.0
    assert "In layer 3, head 4 puts the most" in realtext.layer_note(p, 3, MODEL)
    att = {
        "label": np.full((30, 9), "spread", dtype=object),
        "sink": np.full((30, 9), 0.1),
        "previous": np.full((30, 9), 0.2),
        "local": np.full((30, 9), 0.3),
    }
    att["label"][3, 4] = "local"
    note = realtext.head_note(att, p, 3, 4, MODEL)
    assert "Layer 3, head 4 is **local**: first token 10.0 %, previous token 20.0 %, nearest tokens 30.0 %" in note
    top = re.search(r"pairs (\d+) \(", note).group(1)
    assert int(top) >= 20  # the head's product is largest in a slow pair
    assert realtext.head_counts(att["label"]) == "Of the 270 heads: 0 sink, 0 previous, 1 local, 269 spread."


def test_rules_caption_states_the_rules():
    text = realtext.rules_caption(HeadRules(sink=0.4, window=5, min_query=10))
    assert "at least 40% of its weight on the first token" in text
    assert "5 nearest tokens" in text and "positions ≥ 10" in text


@pytest.mark.parametrize(
    ("diff", "word"), [((0.2, 0.1, 0.3), "worse"), ((-0.2, -0.3, -0.1), "better"), ((0.01, -0.02, 0.04), "cannot tell")]
)
def test_change_note_compares_only_where_the_interval_says(diff, word):
    note = realtext.change_note("YaRN, factor 2", diff, tokens=511, block=32)
    assert word in note and f"{diff[0]:+.3f} nats per token" in note and "511 predicted tokens" in note


def test_long_notes_recompute():
    rng = np.random.default_rng(0)
    base = np.r_[rng.normal(1.5, 0.2, 16), rng.normal(4.0, 0.3, 16)]  # breaks past 8,192 (chunks of 512)
    good = np.r_[base[:16] + 0.05, rng.normal(1.6, 0.2, 16)]
    res = {"default": {"nll_by_chunk": list(base)}, "yarn:factor=2": {"nll_by_chunk": list(good)}}
    labels = {m: realtext.method_label(m) for m in res}
    notes = realtext.long_notes(res, chunk=512, trained=8192, labels=labels)
    est = base[16:].mean() - base[:16].mean()
    assert f"{est:+.3f} nats per token from its mean inside" in notes[0] and notes[0].endswith("higher.")
    past = (good[16:] - base[16:]).mean()
    assert f"{past:+.3f} nats per token against no scaling" in notes[1] and "lower than no scaling" in notes[1]
    assert "it costs +0.050" in notes[1]
    # issue #37: the 16 chunks past L trend, so runs of ⌈16^(1/3)⌉ = 3 neighbouring chunks are resampled
    # together (Künsch's moving blocks, by hand here: numpy's generator, seed 0, 1000 resamples)
    d = good[16:] - base[16:]
    starts = np.random.default_rng(0).integers(0, 16 - 3 + 1, size=(1000, 6))
    means = d[(starts[:, :, None] + np.arange(3)).reshape(1000, -1)[:, :16]].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    assert f"(95 % interval {lo:+.3f} to {hi:+.3f}, resampling runs of 3 neighbouring 512-token chunks)" in notes[1]


def test_passkey_notes_and_labels():
    summary = {
        "default": {
            "6144": {"found": 2, "trials": 2, "ci95": [0.34, 1.0]},
            "12288": {"found": 0, "trials": 2, "ci95": [0.0, 0.66]},
        }
    }
    note = realtext.passkey_notes(summary, {"default": "no scaling"}, 8192)[1]
    assert "2 of 2 at 6,144 tokens (inside" in note and "0 of 2 at 12,288 tokens (past" in note
    for k, n in ((2, 2), (0, 2)):  # Wilson's interval from the counts (statsmodels), not the file's ci95
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
        assert f"{k} of {n} at" in note and f"95 % interval {lo:.2f}–{hi:.2f})" in note
    assert realtext.method_label("yarn:factor=2") == "YaRN, factor 2"
    assert realtext.method_label("default") == "no scaling (its own rope)"
    assert realtext.method_label("proportional:partial_rotary_factor=0.25:factor=1.0").startswith(
        "Proportional (p-RoPE), partial rotary factor 0.25"
    )


# ------------------------------------------------------------------------------ charts, by what they draw
def test_pair_chart_colours_pairs_by_turns():
    shares = np.full(32, 1 / 32)
    spec = charts.pair_chart(charts.pair_frame(shares, MODEL.wavelengths(), 8192), title="t", y_title="y").to_dict()
    bars = frame(spec, by_field(spec, "bar", "y", "share")[0])
    assert list(bars["pair"]) == list(range(32))
    assert bars["share"].tolist() == pytest.approx([100 / 32] * 32)
    assert (bars["turns"] >= 1).tolist() == [True] * 20 + [False] * 12


def test_loss_chart_marks_the_trained_length_only_inside_the_range():
    f = charts.loss_frame({"a": [1.0, 2.0, 3.0], "b": [1.0, 1.0, 1.0]}, 4096)
    spec = charts.loss_chart(f, trained=8192, title="t", chunk=4096).to_dict()
    assert frame(spec, by_field(spec, "rule", "x", "position")[0])["position"].tolist() == [8192]
    lines = frame(spec, by_field(spec, "line", "y", "value")[0])
    assert lines[lines["rope"] == "a"]["position"].tolist() == [4096, 8192, 12288]
    spec = charts.loss_chart(charts.loss_frame({"a": [1.0]}, 512), trained=8192, title="t", chunk=512).to_dict()
    assert not by_field(spec, "rule", "x", "position")


def test_grid_and_passkey_frames():
    g = charts.grid_frame(np.arange(6).reshape(2, 3), np.array([["sink"] * 3, ["local"] * 3], dtype=object))
    assert g[(g["layer"] == 1) & (g["head"] == 2)]["value"].item() == 5 and set(g["label"]) == {"sink", "local"}
    pk = charts.passkey_frame({"x": {"6144": {"found": 1, "trials": 2, "ci95": [0.1, 0.9]}}})
    low, high = proportion_confint(1, 2, alpha=0.05, method="wilson")  # from the counts, not the file's ci95
    assert pk.iloc[0].to_dict() | {} == {
        "rope": "x",
        "length": 6144,
        "found": 1,
        "trials": 2,
        "rate": 0.5,
        "low": pytest.approx(low),
        "high": pytest.approx(high),
        "text": "1 of 2",
    }


def test_paper_notes_agree_or_disagree_by_the_interval():
    rng = np.random.default_rng(1)
    base = np.r_[rng.normal(1.5, 0.2, 16), rng.normal(4.0, 0.3, 16)]
    res = {
        "default": {"nll_by_chunk": list(base)},
        "linear:factor=2": {"nll_by_chunk": list(base + 1.0)},  # costs inside
        "yarn:factor=2": {"nll_by_chunk": list(np.r_[base[:16], base[16:] - 2.0])},  # better past
        "ntk:factor=2": {"nll_by_chunk": list(np.r_[base[:16], base[16:] + 1.0])},  # worse past
    }
    labels = {m: realtext.method_label(m) for m in res}
    notes = realtext.paper_notes(res, chunk=512, trained=8192, labels=labels)
    assert notes[0].startswith("Linear (Position Interpolation), factor 2 costs +1.000") and "Chen et al." in notes[0]
    assert "below no scaling's" in notes[1] and "Peng et al." in notes[1]
    assert "does worse than no scaling" in notes[2] and "bloc97" in notes[2]


def test_short_labels():
    assert realtext.short_label("default") == "no scaling"
    assert realtext.short_label("yarn:factor=2") == "YaRN ×2"
    assert realtext.short_label("proportional:partial_rotary_factor=0.25:factor=1.0") == "p-RoPE p=0.25 ×1"
    assert realtext.short_label("longrope:factor=4.0") == "LongRoPE ×4"


def test_passkey_notes_say_when_the_model_is_too_small():
    fails = {"default": {"6144": {"found": 1, "trials": 5, "ci95": [0.04, 0.62]}}}
    assert "misses keys inside its trained length" in realtext.passkey_notes(fails, {}, 8192)[-1]
    fine = {"default": {"6144": {"found": 5, "trials": 5, "ci95": [0.57, 1.0]}}}
    assert not any("misses keys" in n for n in realtext.passkey_notes(fine, {}, 8192))


# ------------------------------------------------------------------------------ issue #37, round 2
SHIPPED = realmodel.load_shipped()


def test_the_learned_note_makes_no_causal_claim_about_position_and_gives_the_spread_inside():
    inside = [2.36, 1.66, 0.85, 1.38]
    note = realtext.learned_note(inside, MODEL)
    assert "so what changes past that length is about position" not in note
    assert "not only position" in note and "the same tokens at two positions were not measured" in note
    assert f"({min(inside):.2f}–{max(inside):.2f} nats per token)" in note
    assert f"{sum(inside) / len(inside):.2f} nats per token" in note


def _hf_dynamic_base(base, s, T, L, d):
    """HF's dynamic NTK base for a sequence of T tokens: b·(s·T/L − (s − 1))^(d/(d − 2)), by hand."""
    return base * (s * T / L - (s - 1)) ** (d / (d - 2))


def test_dynamic_ntk_in_one_pass_is_named_as_the_static_rope_it_is():
    """Issue #37, item 4: one 16,384-token pass gives every position the base for T = 16,384. The label's static
    factor k is checked against the shipped inverse frequencies: NTK-aware with factor k has base b·k^(d/(d−2))."""
    long = SHIPPED["long"]
    T, L, d, theta = int(long["length"]), MODEL.trained_length, 64, 100_000.0
    k = 2 * T / L - 1
    inv = np.asarray(long["rope"]["dynamic:factor=2"]["inv_freq"])
    static = (theta * k ** (d / (d - 2))) ** (-np.arange(0, d, 2) / d)
    assert np.allclose(inv, static, rtol=1e-6)
    assert np.isclose(theta * k ** (d / (d - 2)), _hf_dynamic_base(theta, 2, T, L, d))
    assert realtext.dynamic_stretch("dynamic:factor=2", length=T, trained=L) == pytest.approx(k)
    assert realtext.dynamic_stretch("dynamic:factor=2", length=4096, trained=L) is None  # the original rope
    assert realtext.dynamic_stretch("ntk:factor=2", length=T, trained=L) is None
    assert realtext.short_label("dynamic:factor=2", length=T, trained=L) == f"dynamic NTK ×2 in one pass = NTK ×{k:g}"
    assert realtext.short_label("dynamic:factor=2") == "dynamic NTK ×2"


def test_no_inside_cost_is_claimed_for_dynamic_ntk_and_the_legend_says_what_it_is():
    long = SHIPPED["long"]
    flat = {m: next(iter(r.values())) for m, r in long["results"].items()}
    labels = {m: realtext.method_label(m) for m in flat}
    T, L = int(long["length"]), MODEL.trained_length
    k = 2 * T / L - 1
    notes = realtext.long_notes(flat, chunk=int(long["chunk"]), trained=L, labels=labels, length=T)
    (dyn,) = [n for n in notes if n.startswith("**Dynamic NTK")]
    assert f"as one pass at T = {T:,}: the same as static NTK with factor {k:g} at every position" in dyn
    assert "inside, it" not in dyn and "no figure for dynamic NTK" in dyn
    others = [n for n in notes if not n.startswith("**Dynamic NTK") and "against no scaling" in n]
    assert others and all("; inside, it " in n for n in others)
    papers = realtext.paper_notes(flat, chunk=int(long["chunk"]), trained=L, labels=labels, length=T)
    (dp,) = [n for n in papers if n.startswith("Dynamic NTK")]
    assert "no comparison with their claim" in dp and "below no scaling" not in dp
    assert f"dynamic NTK ×2 in one pass = NTK ×{k:g}" in realtext.shipped_curves(flat, length=T, trained=L)


def test_every_paper_note_names_what_the_paper_measured():
    long = SHIPPED["long"]
    flat = {m: next(iter(r.values())) for m, r in long["results"].items()}
    labels = {m: realtext.method_label(m) for m in flat}
    papers = realtext.paper_notes(
        flat, chunk=int(long["chunk"]), trained=MODEL.trained_length, labels=labels, length=int(long["length"])
    )
    assert len(papers) >= 3
    for note in papers:
        assert any(w in note for w in ("perplexity", "passkey", "pre-training")), note


def _mcnemar_by_hand(a, b):
    """Exact McNemar: the two-sided binomial test (scipy) of the discordant pairs at 1/2."""
    from scipy.stats import binomtest

    x = sum(p and not q for p, q in zip(a, b))
    y = sum(q and not p for p, q in zip(a, b))
    return 1.0 if x + y == 0 else binomtest(x, x + y, 0.5).pvalue


def test_the_passkey_grid_says_what_one_cell_can_show_with_the_exact_test():
    pk = SHIPPED["passkey"]
    n = max(int(c["trials"]) for per in pk["summary"].values() for c in per.values())
    p = _mcnemar_by_hand([True] * n, [False] * n)
    note = realtext.passkey_cell_note(pk["summary"])
    assert f"even {n} of {n} against 0 of {n} on the same keys gives an exact McNemar p of {p:.3g}" in note
    assert ("no single cell can separate two ropes at the 5 % level" in note) == (p > 0.05)
    assert realtext.passkey_notes(pk["summary"], {}, MODEL.trained_length)[0] == note
    big = {"x": {"1": {"found": 20, "trials": 20}}}
    note = realtext.passkey_cell_note(big)
    assert "no single cell" not in note  # 20 of 20 against 0 of 20 would separate
    # two-sided exact binomial: 5 discordant keys one way give 2/32 = 0.0625, 6 give 2/64 = 0.03125
    assert (_mcnemar_by_hand([True] * 5, [False] * 5), _mcnemar_by_hand([True] * 6, [False] * 6)) == (0.0625, 0.03125)
    assert "once at least 6 keys are found by one and not the other with none the other way round (p = 0.0312)" in note


def test_two_ropes_passkey_cells_are_compared_only_with_the_paired_exact_test():
    pk = SHIPPED["passkey"]
    L = MODEL.trained_length
    notes = realtext.passkey_comparisons(pk["trials"], {"yarn:factor=2": "YaRN, factor 2"}, L)
    base = {(t["length"], t["depth"], t["key"]): t["correct"] for t in pk["trials"]["default"]}
    ps = []
    for m, rows in pk["trials"].items():
        if m == "default":
            continue
        other = {(t["length"], t["depth"], t["key"]): t["correct"] for t in rows}
        keys = [key for key in other if key in base and key[0] > L]
        note = next(x for x in notes if x.startswith(f"**{'YaRN, factor 2' if m == 'yarn:factor=2' else m}**"))
        lengths = sorted({key[0] for key in keys})
        groups = [[key for key in keys if key[0] == n] for n in lengths] + ([keys] if len(lengths) > 1 else [])
        for g in groups:
            a, b = [other[key] for key in g], [base[key] for key in g]
            p = _mcnemar_by_hand(a, b)
            ps.append(p)
            only = sum(x and not y for x, y in zip(a, b))
            assert f"{only} keys found only with it" in note and f"exact McNemar p = {p:.3g}" in note
            word = "separates them" if p < 0.05 else "cannot separate them"
            assert f"p = {p:.3g}: {word} at 5 %" in note
    from statsmodels.stats.multitest import multipletests

    holm = multipletests(ps, method="holm")[1]
    assert notes[-1].endswith(", ".join(f"{q:.3g}" for q in holm) + ".")
    assert f"These are {len(ps)} tests" in notes[-1]


# ---------------------------------------------------------------------------------------------- issue #37
@pytest.mark.parametrize(
    ("spread", "word"),
    [
        ((0.40, 0.35, 0.45), "less than"),
        ((0.62, 0.55, 0.69), "with an interval that overlaps"),
        ((0.9, 0.8, 0.95), "more than"),
    ],
)
def test_the_frequency_view_says_what_softmax_sees_beside_the_norm_bound(spread, word):
    bound = (0.70, 0.66, 0.74)
    notes = realtext.frequency_notes(_products(5.0), bound, MODEL, tokens=256, block=16, spread=spread, min_query=16)
    note = notes[1]
    assert "variance across the keys" in note and "covariances between pairs left out" in note
    assert f"**{100 * spread[0]:.1f} %**" in note and f"{100 * bound[0]:.1f} % of the norm bound" in note
    assert f"95 % interval {100 * spread[1]:.1f} % to {100 * spread[2]:.1f} %" in note
    assert word in note and "12 slow pairs" in note and "positions ≥ 16" in note
    assert "next sentence measures what softmax sees" in notes[0]
    assert len(realtext.frequency_notes(_products(5.0), bound, MODEL, tokens=256, block=16)) == 2  # no spread: no claim


def _rec(chunks):
    return {"nll_by_chunk": list(chunks)}


def test_across_texts_gives_each_texts_difference_and_the_spread_and_counts_the_comparisons():
    k = MODEL.trained_length // 512
    rng = np.random.default_rng(0)
    base = {t: rng.normal(2.0, 0.2, 2 * k) for t in ("a.py", "b.txt")}
    for t in base:
        base[t][k:] += 3.0  # no scaling breaks past L
    yarn = {
        "a.py": base["a.py"] - np.r_[np.zeros(k), np.full(k, 2.5)],
        "b.txt": base["b.txt"] - np.r_[np.zeros(k), np.full(k, 1.0)],
    }
    by_text = {
        t: {"length": 2 * k * 512, "chunk": 512, "results": {"default": _rec(base[t]), "yarn:factor=2": _rec(yarn[t])}}
        for t in base
    }
    by_text["b.txt"]["results"]["ntk:factor=2"] = _rec(base["b.txt"])
    notes = realtext.across_notes(by_text, MODEL)
    (y,) = [n for n in notes if n.startswith("**YaRN")]
    assert "a.py -2.500" in y and "b.txt -1.000" in y  # the mean of past-L chunk differences, per text
    assert "lower on 2 of the 2 texts" in y and "from -2.500 to -1.000" in y
    (n,) = [n for n in notes if n.startswith("Computed on one text only")]
    assert "(b.txt)" in n and "NTK-aware" in n and not any(x.startswith("**NTK") for x in notes)
    (own,) = [n for n in notes if n.startswith("**no scaling")]
    for t in base:
        d = base[t][k:].mean() - base[t][:k].mean()
        assert f"{t} {d:+.3f}" in own
    assert "higher on 2 of the 2 texts" in own and "content is mixed in" in own
    (c,) = [n for n in notes if n.startswith("That is")]
    assert "That is 4 comparisons" in c and f"{100 * (1 - 0.05 / 4):.2f} % intervals" in c
    assert realtext.across_notes({"a.py": by_text["a.py"]}, MODEL) == []  # one text: no spread to give


def test_the_content_control_measures_position_on_the_same_tokens():
    rng = np.random.default_rng(2)
    inside = {t: rng.normal(1.5, 0.3, 256) for t in ("a.py", "b.txt")}
    up = {"a.py": 2.0, "b.txt": 1.2}
    part = {
        "length": 16384,
        "tail": 4096,
        "block": 16,
        "inside": [4096, 8192],
        "past": [12288, 16384],
        "texts": {
            t: {
                "control": {
                    "default": {"inside": list(inside[t]), "past": list(inside[t] + up[t] + rng.normal(0, 0.05, 256))},
                    "yarn:factor=2": {"inside": list(inside[t]), "past": list(inside[t] + rng.normal(0, 0.05, 256))},
                }
            }
            for t in inside
        },
    }
    notes = realtext.control_notes(part, MODEL)
    assert "positions 4,096–8,191" in notes[0] and "12,288–16,383" in notes[0] and "after 8,192 more tokens" in notes[0]
    (own,) = [n for n in notes if n.startswith("**no scaling")]
    for t in inside:
        d = np.mean(np.asarray(part["texts"][t]["control"]["default"]["past"]) - inside[t])
        assert f"{t} {d:+.3f}" in own
    assert "higher past on 2 of the 2 texts" in own
    assert any("the rise is not content" in n for n in notes)
    assert any(n.startswith("YaRN, factor 2 reads the same longer prefix") for n in notes)
    # a rope whose rise is no smaller than no scaling's: no sentence says the prefix is ruled out
    for t in inside:
        part["texts"][t]["control"]["yarn:factor=2"] = part["texts"][t]["control"]["default"]
    assert not any("reads the same longer prefix" in n for n in realtext.control_notes(part, MODEL))
    assert realtext.control_notes({}, MODEL) == []


def test_passkey_cells_with_fewer_than_twenty_keys_are_not_shown_and_the_page_says_so():
    keys = range(10_000, 10_010)
    trials = {
        "default": [
            {"length": n, "depth": 0.5, "key": k, "correct": n < 8192} for n in (6144, 12288) for k in keys[:5]
        ],
        "yarn:factor=2": [
            {"length": n, "depth": 0.5, "key": k, "correct": True} for n in (6144, 12288) for k in keys[:5]
        ],
    }
    summary = {
        m: {str(n): {"found": sum(r["correct"] for r in rows if r["length"] == n), "trials": 5} for n in (6144, 12288)}
        for m, rows in trials.items()
    }
    shown = realtext.passkey_shown({"summary": summary, "trials": trials}, MODEL)
    assert shown["summary"] == {}
    (left,) = [n for n in shown["notes"] if n.startswith("Not shown as cells")]
    assert "6,144 tokens (5 keys)" in left and "12,288 tokens (5 keys)" in left and "0.0625" in left
    (pooled,) = [n for n in shown["notes"] if n.startswith("**YaRN")]
    assert "5 keys found only with it and 0 only without" in pooled and "p = 0.0625" in pooled
    summary["default"]["6144"] = {"found": 19, "trials": 20}
    shown = realtext.passkey_shown({"summary": summary}, MODEL)
    assert shown["summary"] == {"default": {"6144": {"found": 19, "trials": 20}}}
    assert any("19 of 20 at 6,144 tokens" in n for n in shown["notes"])


def test_a_control_from_the_long_parts_chunks_says_where_its_tokens_sit_and_how_few_pairs_it_has():
    part = {
        "texts": {
            "argparse.py": {
                "control_from_long": {"block": 512, "past": [12289, 16383], "inside": [4097, 8191]},
                "control": {"default": {"past": [3.0 + i for i in range(8)], "inside": [1.0] * 8}},
            }
        }
    }
    notes = realtext.control_notes(part, MODEL)
    assert "tokens 12,289–16,383 of its long pass" in notes[0] and "positions 4,097–8,191" in notes[0]
    assert "the same 4,096 tokens before them" in notes[0] and "only 8 pairs" in notes[0]
    (own,) = [n for n in notes if n.startswith("**no scaling")]
    assert f"argparse.py {np.mean([2.0 + i for i in range(8)]):+.3f}" in own


def test_the_page_status_lines_name_their_values_and_escape_what_they_quote():
    from explorer.text import realmodel as rt

    assert "12,345 tokens, fewer than 16,384" in rt.short_text_note(12345, 16384)
    assert rt.scoring_note(4096, "YaRN ×2").startswith("Scoring 4,096 tokens") and "YaRN ×2" in rt.scoring_note(
        4096, "YaRN ×2"
    )
    assert "SmolLM2" in rt.loading_note("SmolLM2")
    hostile = "no *such* file [x](http://e)"
    for line in (
        rt.load_error(hostile),
        rt.shipped_error(hostile),
        rt.not_installed_note(hostile),
        rt.own_model_error(hostile, "SmolLM2"),
    ):
        assert "*such*" not in line and "[x](" not in line  # markdown in a message is shown, not rendered
    assert rt.own_model_error("bad", "SmolLM2").endswith("The views below are SmolLM2's.")


# --- the charts' titles and subtitles (explorer.charts.realmodel) ----------------------------------------------
def test_the_pair_charts_key_and_title_follow_what_is_drawn():
    bars, ticks, orange = realtext.frequency_subtitle(256, 8192, True)
    assert "first 256 tokens" in bars and ticks.startswith("ticks:") and "than the 8,192 trained tokens" in orange
    assert len(realtext.frequency_subtitle(256, 8192, False)) == 2  # no ticks drawn, no line for them
    assert realtext.pairs_title() == "Which rotary pairs the model's queries and keys use"
    assert realtext.pairs_title((3, 7)) == "Layer 3, head 7: the pairs it can use"
    assert realtext.pairs_title(name="Qwen3", layer_type="full_attention").startswith("Qwen3, full_attention layers:")


def test_the_head_charts_quote_layer_head_and_counts():
    assert realtext.head_grid_subtitle(512).startswith("512 tokens; red square")
    assert realtext.norm_titles(5, 9, 3) == (
        "Layer 5: mean pair norms of every query and key head",
        "9 query heads share 3 key heads; before rotation",
    )
    assert realtext.profile_titles(2, 4, 64) == (
        "Layer 2, head 4: attention against distance",
        "mean weight at each distance, over queries at positions ≥ 64",
    )


def test_the_loss_charts_quote_perplexities_lengths_and_texts():
    own, new = np.full(1023, 2.0), np.full(1023, 2.5)  # mean loss 2 and 2.5 nats: perplexity e² and e^2.5
    title, subtitle = realtext.change_titles("YaRN s = 2", math.exp(own.mean()), math.exp(new.mean()), own.size + 1)
    assert title == "Loss along the text: its own rope and YaRN s = 2"
    assert subtitle == "perplexity 7.39 → 12.18 over 1,024 tokens"
    assert realtext.long_titles(16384, "argparse.py", "2025-01-02") == (
        "Past the trained length: loss along 16,384 tokens of argparse.py",
        "every rope at factor 2, no fine-tuning; computed in advance (2025-01-02)",
    )
    assert realtext.live_title("NTK s = 2", 12000) == "Live: NTK s = 2 on 12,000 tokens of argparse.py"
    assert "cells with at least 20 keys" in " ".join(realtext.passkey_subtitle(20))


def test_the_content_control_names_the_ropes_a_text_has_when_it_lacks_some():
    estimates = {"no scaling": {"a.py": 1, "b.py": 2}, "YaRN ×2": {"a.py": 1, "b.py": 2}, "PI ×2": {"b.py": 2}}
    assert realtext.control_gaps(estimates) == [
        "a.py: only no scaling and YaRN ×2 (the results file holds no other rope's control for it)"
    ]
    assert realtext.control_gaps({"no scaling": {"a.py": 1}, "PI ×2": {"a.py": 2}}) == []
