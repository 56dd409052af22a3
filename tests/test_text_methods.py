"""explorer.text.methods: every declared RoPE method has its page text, and the text says what the
method's maths does (checked against posenc's numbers, not against the text itself)."""

from __future__ import annotations

import numpy as np
import pytest

import posenc
from explorer.text import methods

#: The names as the pages have shown them since issue #7, re-typed.
LABELS = {
    "default": "Extrapolation (no scaling)",
    "linear": "Linear (Position Interpolation)",
    "ntk": "NTK-aware (static)",
    "dynamic": "Dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
    "longrope": "LongRoPE (Phi-3)",
    "proportional": "Proportional (p-RoPE)",
}


def test_every_declared_method_has_a_name_and_one_sentence():
    assert set(methods.TEXT) == set(posenc.ROPE_METHODS)
    assert {name: methods.label(name) for name in posenc.ROPE_METHODS} == LABELS
    for name in posenc.ROPE_METHODS:
        text = methods.summary(name)
        assert text and text.endswith(".") and text.count(". ") == 0, name  # one sentence


def test_a_method_without_text_is_shown_by_its_rope_type():
    assert methods.label("toy") == "toy" and methods.summary("toy") is None


@pytest.mark.parametrize("s", [2.0, 8.0])
def test_the_linear_and_ntk_sentences_hold_at_any_factor(s):
    """'divided by s' (linear) and 'keeps the fastest pair and divides the slowest by exactly s' (ntk)."""
    d = 64
    theta = posenc.inverse_frequencies(d, base=10000.0)
    lin, _ = posenc.rope_inverse_frequencies(
        {"rope_type": "linear", "factor": s, "rope_theta": 10000.0}, d, max_position_embeddings=4096
    )
    ntk, _ = posenc.rope_inverse_frequencies(
        {"rope_type": "ntk", "factor": s, "rope_theta": 10000.0}, d, max_position_embeddings=4096
    )
    assert "divided by s" in methods.summary("linear")
    np.testing.assert_allclose(lin, theta / s, rtol=1e-15)
    assert "keeps the fastest pair" in methods.summary("ntk")
    assert ntk[0] == theta[0] and ntk[-1] == pytest.approx(theta[-1] / s, rel=1e-12)
