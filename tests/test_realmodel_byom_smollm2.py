"""Bring your own model with a real one: SmolLM2-135M-Instruct (the default model, from its GGUF file) saved as an
HF model directory and read back through ``--model``/``load(path)``; its facts read from the GGUF file itself.

Skipped where the model is not installed, except under ``REQUIRE_MODEL=1`` (CI), where a missing model fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from posenc import realmodel
from posenc.realmodel import MODEL

OK, WHY = realmodel.available()
if not OK:
    if os.environ.get("REQUIRE_MODEL") == "1":
        raise RuntimeError(f"REQUIRE_MODEL=1 but {WHY}")
    pytest.skip(WHY, allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
torch: Any = None
N = 96


@pytest.fixture(scope="module", autouse=True)
def _imports():
    global torch
    import torch


SHAPE = ("layers", "q_heads", "kv_heads", "head_dim", "rope_theta", "trained_length", "architecture")


def _shape(f):
    return (*(getattr(f, k) for k in SHAPE), f.layer_types, dict(f.rope), dict(f.trained_lengths), f.sliding_window)


def test_model_facts_equal_what_the_gguf_file_says():
    f = realmodel.read_facts(realmodel.gguf_path())
    assert _shape(f) == _shape(MODEL)
    assert f.types == ("full_attention",) and dict(f.rope["full_attention"]) == {
        "rope_type": "default",
        "rope_theta": 100_000.0,
    }


@pytest.fixture(scope="module")
def ours():
    return realmodel.load()


@pytest.fixture(scope="module")
def smol_dir(ours, tmp_path_factory) -> Path:
    """The default model's float32 weights and tokenizer, saved the way HF saves any model."""
    from transformers import PreTrainedTokenizerFast

    folder = tmp_path_factory.mktemp("smollm2")
    ours.model.save_pretrained(folder)
    PreTrainedTokenizerFast(tokenizer_object=ours.tokenizer).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def mine(smol_dir):
    return realmodel.load(smol_dir)


@pytest.fixture(scope="module")
def ids(ours):
    return ours.tokenize(realmodel.default_text())[:N]


def test_the_directory_says_the_same_facts(smol_dir, mine):
    assert _shape(mine.facts) == _shape(MODEL)
    assert mine.facts.source == str(smol_dir) and not mine.facts.is_default and not mine.qk_norm


def test_its_perplexity_equals_hf_loss_and_the_default_model(mine, ours, ids, smol_dir):
    from transformers import AutoModelForCausalLM

    assert np.array_equal(mine.tokenize(realmodel.default_text())[:N], ids)
    hf = AutoModelForCausalLM.from_pretrained(str(smol_dir), dtype=torch.float32).eval()
    x = torch.from_numpy(ids)[None]
    with torch.no_grad():
        loss = hf(x, labels=x).loss.item()
    nll = mine.nll(ids)
    assert nll.mean() == pytest.approx(loss, rel=1e-6)
    np.testing.assert_allclose(nll, ours.nll(ids), rtol=1e-5, atol=1e-6)  # the same weights, the same numbers
    # a scaled rope runs on a one-block model read from a path, as on the default one
    np.testing.assert_allclose(mine.nll(ids, "yarn:factor=2"), ours.nll(ids, "yarn:factor=2"), rtol=1e-5, atol=1e-6)


def test_its_norms_equal_the_projections_of_the_default_model(mine, ours, ids):
    """SmolLM2 has no q/k-norm: what its attention hands the rotary function is q_proj/k_proj's output, read here
    with forward hooks on the default model (an independent path)."""
    got = mine.pair_norms(ids)
    assert got["q"].shape == (30, 9, 32) and got["k"].shape == (30, 3, 32)
    seen: dict[str, list[np.ndarray]] = {"q": [], "k": []}

    def hook(which, heads):
        def fn(_m, _i, out):
            h = out[0].reshape(-1, heads, 64).double().numpy()
            seen[which].append(np.sqrt(h[..., :32] ** 2 + h[..., 32:] ** 2).mean(axis=0))

        return fn

    handles = []
    for layer in ours.model.model.layers:
        handles.append(layer.self_attn.q_proj.register_forward_hook(hook("q", 9)))
        handles.append(layer.self_attn.k_proj.register_forward_hook(hook("k", 3)))
    try:
        with torch.no_grad():
            ours.model.model(input_ids=torch.from_numpy(ids)[None], use_cache=False)
    finally:
        for h in handles:
            h.remove()
    np.testing.assert_allclose(got["q"], np.stack(seen["q"]), rtol=1e-5)
    np.testing.assert_allclose(got["k"], np.stack(seen["k"]), rtol=1e-5)


def test_cli_ppl_with_model_dir(smol_dir, mine, ids, tmp_path):
    text = tmp_path / "t.txt"
    text.write_text(realmodel.default_text(), encoding="utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "posenc.realmodel",
            "ppl",
            "--model",
            str(smol_dir),
            "--text",
            str(text),
            "--lengths",
            "64",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["model"] == smol_dir.name and data["source"] == str(smol_dir)
    assert data["results"]["default"]["64"]["ppl"] == pytest.approx(float(np.exp(mine.nll(ids[:64]).mean())), rel=1e-6)
