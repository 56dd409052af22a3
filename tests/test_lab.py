"""posenc.lab: the modules against the numpy core, the scalings against posenc's registry, determinism,
'no rows' past a learned table, the method grammar and a CI-sized run of the command line.
Every training here is a few steps of a tiny model (the whole file runs in seconds)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import posenc
from posenc import lab

torch = pytest.importorskip("torch")
from posenc import torch as pt  # noqa: E402
from posenc.lab import core  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TINY = dict(train_len=16, steps=3, batch=4, d_model=16, warmup=1)


def test_importing_posenc_lab_does_not_import_torch():
    code = "import sys, posenc.lab, posenc.lab.__main__; assert 'torch' not in sys.modules, 'torch'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


# ------------------------------------------------------------------ modules == numpy core (float32, 1e-6)
def test_alibi_module_equals_the_numpy_core():
    bias = pt.ALiBiBias(4)(10).numpy()
    for h, slope in enumerate(posenc.alibi_slopes(4)):
        np.testing.assert_allclose(bias[h], posenc.alibi_bias(10, slope).astype(np.float32), atol=1e-6)


def test_nope_is_zero_and_the_added_encodings_equal_the_core():
    assert not pt.NoPositionalEncoding(8)(np.arange(5)).any()
    np.testing.assert_allclose(
        pt.SinusoidalPositionalEncoding(16)(np.arange(40)).numpy(),
        posenc.sinusoidal_encoding(np.arange(40), 16).astype(np.float32),
        atol=1e-6,
    )
    model = core.TinyTransformer(core.TrainConfig(encoding="learned", **TINY))
    np.testing.assert_allclose(
        model.pe(np.arange(16)).detach().numpy(), posenc.learned_table(16, 16, seed=0).astype(np.float32), atol=1e-6
    )


@pytest.mark.parametrize(
    "method",
    [
        "rope",
        "rope+linear",
        "rope+ntk",
        "rope+dynamic",
        "rope+yarn",
        "rope+yarn:beta_fast=4",
        "rope+yarn:beta_fast=4:attention_factor=1",
        "rope+linear:factor=2",
    ],
)
def test_evaluation_time_scalings_are_posencs_registry(method):
    spec = lab.parse_method(method)
    block = spec.rope_block(256, 64)
    if block is None:
        block = {"rope_type": "default", "rope_theta": 10000.0}
    else:
        assert block["factor"] == spec.params.get("factor", 4.0)
    rope = pt.RotaryEmbedding(16, rope_parameters=block, max_position_embeddings=64)
    inv, af = posenc.rope_inverse_frequencies(block, 16, max_position_embeddings=64, seq_len=256)
    x = np.random.default_rng(0).normal(size=(256, 16))
    got = rope(torch.from_numpy(x).float(), np.arange(256), seq_len=256).numpy()
    want = posenc.apply_rope(x, np.arange(256), inv_freq=inv, attention_factor=af)
    np.testing.assert_allclose(got, want, atol=2e-4, rtol=1e-5)
    if "attention_factor=1" in method:
        assert af == 1.0
    elif spec.rope_type == "yarn":
        assert af == pytest.approx(0.1 * np.log(4) + 1)


# ------------------------------------------------------------------ training and evaluation
def _train(**kw):
    return lab.train(lab.TrainConfig(**{**TINY, **kw}))


def test_same_seed_same_numbers_other_seed_other_numbers():
    a, b, c = (
        _train(task="kback", encoding="rope"),
        _train(task="kback", encoding="rope"),
        _train(task="kback", encoding="rope", seed=1),
    )
    assert a.losses == b.losses and a.losses != c.losses
    ea, eb, ec = (lab.evaluate(r.model, lengths=[16, 32], tokens=128) for r in (a, b, c))
    assert ea == eb and ea != ec


def test_learned_reports_no_rows_past_its_length_and_evaluation_is_stable_per_length():
    r = _train(task="markov", encoding="learned")
    out = lab.evaluate(r.model, lengths=[16, 32], tokens=128)
    assert out[32] is None and isinstance(out[16], float)
    with pytest.raises(ValueError, match="no row"):
        r.model(torch.zeros(1, 17, dtype=torch.long))


@pytest.mark.parametrize("encoding", lab.ENCODINGS)
def test_every_encoding_trains_and_evaluates_per_position(encoding):
    r = _train(task="copy", encoding=encoding, steps=2)
    out = core.evaluate_method(r.model, encoding, [16], tokens=64, per_position=True)
    mean, per_pos = out[16]
    assert 0 <= mean <= 1 and per_pos.shape == (16,) and np.isnan(per_pos[:7]).all()
    w = lab.attention_map(r.model, 16, layer=1, head=3)
    np.testing.assert_allclose(w.sum(axis=1), 1, atol=1e-5)
    assert np.allclose(np.triu(w, 1), 0)


def test_a_callback_returning_false_cancels():
    with pytest.raises(lab.Cancelled):
        lab.train(lab.TrainConfig(**TINY), callback=lambda step, n, loss: step < 2)


def test_references_and_tasks():
    ref = lab.references("markov")
    assert ref["floor"] < ref["previous token only"] < ref["uniform"] == pytest.approx(np.log(8))
    assert lab.references("kback")["uniform"] == 1 / 16
    x, y = lab.make_batch("kback", 2, 10, np.random.default_rng(0))
    assert (y[:, 3:] == x[:, :-3]).all() and (y[:, :3] == -1).all()
    x, y = lab.make_batch("copy", 2, 10, np.random.default_rng(0))
    assert (x[:, 5:] == x[:, :5]).all() and (y[:, 4:9] == x[:, 5:10]).all()


@pytest.mark.parametrize(
    "bad", ["", "rope+nope", "alibi+linear", "rope:factor=2", "rope+yarn:beta_fast=x", "learned@ft128", "bert"]
)
def test_bad_method_names_raise_naming_the_method(bad):
    with pytest.raises(ValueError, match="method"):
        lab.parse_method(bad)


@pytest.mark.parametrize(
    "field,value", [("task", "sort"), ("encoding", "t5"), ("train_len", 3), ("steps", 0), ("d_model", 30)]
)
def test_bad_settings_raise_naming_the_parameter(field, value):
    with pytest.raises(ValueError, match=field):
        lab.TrainConfig(**{field: value})


def test_summarize_and_break_position():
    s = lab.summarize({"a": {"0": {"16": 1.0, "32": None}, "1": {"16": 3.0, "32": None}}})
    assert s["a"][16] == (2.0, pytest.approx(np.sqrt(2)), 2) and s["a"][32] == (None, None, 0)
    curve = [1.0] * 64 + [2.0] * 64
    assert lab.break_position(curve, 64, metric="loss", worse_by=0.1, bins=128) == 64
    assert lab.break_position([1.0] * 128, 64, metric="loss", worse_by=0.1) is None


def test_the_command_line_writes_the_documented_json(tmp_path):
    out = tmp_path / "r.json"
    cmd = [
        sys.executable,
        "-m",
        "posenc.lab",
        "--task",
        "kback",
        "--methods",
        "learned,rope,rope+yarn:beta_fast=4",
        "--train-len",
        "16",
        "--eval-lens",
        "16,32",
        "--steps",
        "2",
        "--tokens",
        "64",
        "--d-model",
        "16",
        "--out",
        str(out),
    ]
    subprocess.run(cmd, cwd=ROOT, check=True, timeout=120)
    doc = json.loads(out.read_text())
    assert doc["task"] == "kback" and doc["metric"] == "accuracy" and doc["train_len"] == 16
    assert set(doc["results"]) == {"learned", "rope", "rope+yarn:beta_fast=4"}
    assert doc["results"]["learned"]["32"] is None and isinstance(doc["results"]["rope"]["32"], float)
    assert doc["references"]["uniform"] == 1 / 16
    bad = subprocess.run(
        [sys.executable, "-m", "posenc.lab", "--methods", "bert"], cwd=ROOT, capture_output=True, text=True
    )
    assert bad.returncode == 2 and "method" in bad.stderr
    bogus = subprocess.run(
        [sys.executable, "-m", "posenc.lab", "--methods", "rope+yarn:bogus_key=3"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert bogus.returncode == 2 and "'bogus_key'" in bogus.stderr and "beta_fast" in bogus.stderr


def test_an_unknown_setting_names_the_key_and_the_allowed_keys():
    # the allowed keys, typed from HF's _compute_yarn_parameters / _compute_linear_scaling_rope_parameters reads
    with pytest.raises(ValueError, match=r"'bogus_key'.*beta_fast.*beta_slow.*mscale") as exc:
        lab.parse_method("rope+yarn:bogus_key=3")
    assert "rope+yarn:bogus_key=3" in str(exc.value)
    with pytest.raises(ValueError, match=r"'beta_fast'.*allowed: factor\)"):
        lab.parse_method("rope+linear:beta_fast=4")
    assert lab.parse_method("rope+yarn:beta_fast=4:beta_slow=2").params == {"beta_fast": 4.0, "beta_slow": 2.0}


def test_the_shipped_results_are_complete_enough_and_small():
    doc = lab.load_shipped()
    assert doc["command"].startswith("python -m posenc.lab ship") and doc["date"]
    for task in ("markov", "kback"):
        runs = doc["tasks"][task]["runs"]
        assert {"nope", "learned", "sinusoidal", "rope", "alibi"} <= set(runs)
        assert all(v["128"] is None for v in runs["learned"].values())
    size = sum(p.stat().st_size for p in (ROOT / "data" / "lab").iterdir())
    assert size < 5_000_000, size


def test_a_real_models_recipe_keeps_its_type_and_scaling_with_the_labs_length():
    # Qwen2.5-7B-Instruct's model card: {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    qwen = lab.preset_method("qwen2.5-7b-instruct")
    assert qwen.rope_block(512, 64) == {
        "rope_type": "yarn",
        "rope_theta": 10000.0,
        "factor": 4.0,
        "original_max_position_embeddings": 64,
    }
    # Gemma 3 4B: full-attention layers (every 6th, index 5) linear ×8, sliding layers plain RoPE
    assert lab.preset_method("gemma3-4b", 5).rope_block(512, 64) == {
        "rope_type": "linear",
        "rope_theta": 10000.0,
        "factor": 8.0,
    }
    assert lab.preset_method("gemma3-4b", 0).rope_block(512, 64) is None
    with pytest.raises(ValueError, match="layer 3 of llama4-scout has no RoPE"):
        lab.preset_method("llama4-scout", 3)  # Llama 4: every 4th layer is NoPE
    with pytest.raises(ValueError, match="layer"):
        lab.preset_method("gemma3-4b", 34)
    with pytest.raises(ValueError, match="longrope"):
        lab.preset_method("phi3-mini-128k-instruct")
    # the generic llama3 choice: Llama 3.1's low/high_freq_factor 1 and 4
    assert lab.parse_method("rope+llama3").rope_block(256, 64) == {
        "rope_type": "llama3",
        "rope_theta": 10000.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "factor": 4.0,
        "original_max_position_embeddings": 64,
    }
    # evaluated: the recipe gives the numbers of the same block written as a method string
    model = lab.shipped_model("markov", "rope")
    a = lab.evaluate_method(model, qwen, [128], tokens=256)
    b = lab.evaluate_method(model, "rope+yarn:factor=4", [128], tokens=256)
    assert a == b
