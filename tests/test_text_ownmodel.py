"""explorer.text.ownmodel: the real-model page's words about a model of one's own, against the values they describe
(a ModelFacts typed here, as a Gemma-3-like config would declare it; no transformers needed)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from explorer.text import ownmodel
from posenc.realmodel import ModelFacts

FACTS = ModelFacts(
    name="mine",
    package="",
    version="",
    gguf="",
    parameters="",
    weights="read as float32",
    layers=4,
    q_heads=2,
    kv_heads=1,
    head_dim=8,
    rope_theta=1_000_000.0,
    trained_length=64,
    source="/m/mine",
    architecture="Gemma3ForCausalLM",
    layer_types=("sliding_attention", "sliding_attention", "full_attention", "sliding_attention"),
    rope={
        "sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
        "full_attention": {
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 64,
            "rope_theta": 1_000_000.0,
        },
    },
    trained_lengths={"sliding_attention": 256, "full_attention": 64},
    sliding_window=16,
)


def test_table_says_what_the_facts_hold():
    t = ownmodel.layer_type_table(FACTS)
    assert list(t.columns) == ["", "sliding_attention", "full_attention"]  # a column per layer type
    row = lambda fact: ownmodel.table_row(t, fact)  # noqa: E731
    assert row("layers") == ["3: 0–1, 3", "1: 2"]
    assert row("trained length") == ["256", "64"]
    assert row("trained length from") == [
        "config: max_position_embeddings",
        "rope block: original_max_position_embeddings",
    ]
    # sliding: wavelengths 2π·10000^(2j/8) = 6.3, 63, 628, 6283 tokens: 2 of 4 turn within 256
    assert row("pairs turning in it")[0] == "2 of 4"
    assert row("rope")[1] == "yarn, factor 4, original_max_position_embeddings 64, rope_theta 1,000,000"


def test_slow_note_share_is_the_products_share():
    rng = np.random.default_rng(0)
    products = rng.random((3, 2, 4))
    note = ownmodel.slow_note(FACTS, "sliding_attention", products, tokens=100)
    want = products[..., 2:].sum() / products.sum()  # pairs 2 and 3 do not turn in 256 tokens (by hand above)
    assert "the 2 pairs j = 2–3" in note and "256 trained tokens" in note and "3 sliding\\_attention layers" in note
    assert float(re.search(r"\*\*([\d.]+) %\*\*", note).group(1)) == pytest.approx(100 * want, abs=0.05)
    assert "would give 50.0 %" in note


def test_facts_markdown_and_escaping():
    text = ownmodel.facts_markdown(FACTS, qk_norm=True)
    assert "4 layers, 2 query heads sharing 1 key/value heads, head size 8, so 4 rotary pairs" in text
    assert "sliding_window 16" in text and "q_norm, k_norm" in text and "\\/m\\/mine" in text
    odd = ModelFacts(**{**FACTS.__dict__, "name": "<b>x</b>", "source": "[a](http://e)"})
    shown = ownmodel.facts_markdown(odd)
    assert "<b>" not in shown and "](" not in shown


def test_perplexity_note():
    nll = np.array([1.0, 2.0, 3.0])
    note = ownmodel.perplexity_note("m", nll, tokens=4, text="t.py")
    assert "tokens 2–4" in note and "**2.000 nats per token**" in note and f"**{np.exp(2.0):.2f}**" in note
