"""posenc.lab: the modules against the numpy core, the scalings against posenc's registry, determinism,
'no rows' past a learned table, the method grammar and a CI-sized run of the command line.
Every training here is a few steps of a tiny model (the whole file runs in seconds)."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import posenc
from posenc import lab, methods
from posenc.methods import ROPE_METHODS
from posenc.models import PRESETS

torch = pytest.importorskip("torch")
from posenc import torch as pt  # noqa: E402
from posenc.lab import evaluation, experiment, grammar, training  # noqa: E402
from posenc.lab import model as tiny  # noqa: E402

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
    model = tiny.TinyTransformer(tiny.TrainConfig(encoding="learned", **TINY))
    np.testing.assert_allclose(
        model.pe(np.arange(16)).detach().numpy(),
        posenc.learned_table(16, 16, seed=0, std=1.0).astype(np.float32),
        atol=1e-6,
    )
    # the table starts on the token embeddings' scale (nn.Embedding: N(0, 1)), not 50× below it
    big = tiny.TinyTransformer(tiny.TrainConfig(encoding="learned", train_len=512, d_model=64))
    assert 0.9 < float(big.pe(np.arange(512)).detach().std()) < 1.1
    assert 0.9 < float(big.embed.weight.detach().std()) < 1.1


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
        assert block["factor"] == spec.params.get("factor", 2.0 if spec.rope_type == "dynamic" else 4.0)
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
    return training.train(tiny.TrainConfig(**{**TINY, **kw}))


def test_same_seed_same_numbers_other_seed_other_numbers():
    a, b, c = (
        _train(task="kback", encoding="rope"),
        _train(task="kback", encoding="rope"),
        _train(task="kback", encoding="rope", seed=1),
    )
    assert a.losses == b.losses and a.losses != c.losses
    ea, eb, ec = (evaluation.evaluate_method(r.model, r.config.encoding, [16, 32], tokens=128) for r in (a, b, c))
    assert ea == eb and ea != ec


def test_learned_reports_no_rows_past_its_length_and_evaluation_is_stable_per_length():
    r = _train(task="markov", encoding="learned")
    out = evaluation.evaluate_method(r.model, r.config.encoding, [16, 32], tokens=128)
    assert out[32] is None and isinstance(out[16], float)
    with pytest.raises(ValueError, match="no row"):
        r.model(torch.zeros(1, 17, dtype=torch.long))


@pytest.mark.parametrize("encoding", lab.ENCODINGS)
def test_every_encoding_trains_and_evaluates_per_position(encoding):
    r = _train(task="copy", encoding=encoding, steps=2)
    out = evaluation.evaluate_method(r.model, encoding, [16], tokens=64, per_position=True)
    mean, per_pos = out[16]
    assert 0 <= mean <= 1 and per_pos.shape == (16,) and np.isnan(per_pos[:4]).all()  # h >= 16 // 4
    w = evaluation.attention_map(r.model, 16, layer=1, head=3)
    np.testing.assert_allclose(w.sum(axis=1), 1, atol=1e-5)
    assert np.allclose(np.triu(w, 1), 0)


def test_a_callback_returning_false_cancels():
    with pytest.raises(training.Cancelled):
        training.train(tiny.TrainConfig(**TINY), callback=lambda step, n, loss: step < 2)


def test_references_and_tasks():
    ref = lab.references("markov")
    assert ref["floor"] < ref["previous token only"] < ref["uniform"] == pytest.approx(np.log(8))
    assert lab.references("kback")["uniform"] == 1 / 16
    x, y = lab.make_batch("kback", 2, 10, np.random.default_rng(0))
    assert (y[:, 3:] == x[:, :-3]).all() and (y[:, :3] == -1).all()


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
        tiny.TrainConfig(**{field: value})


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
    assert doc["command"].startswith(("python -m posenc.lab ship", "python -m posenc.lab merge")) and doc["date"]
    assert set(doc["tasks"]) == {"markov", "kback", "copy", "passkey", "flipflop"}
    for task, entry in doc["tasks"].items():  # a task shipped apart records its own command (--update, merge)
        assert entry.get("command", doc["command"]).startswith("python -m posenc.lab ship")
        complete = entry.get("complete", doc["complete"])
        runs = entry["runs"]
        # the lab page's tasks have the five encodings; flip-flop (the Newer encodings page) NoPE, RoPE and ALiBi
        assert ({"nope", "rope", "alibi"} if task == "flipflop" else set(lab.ENCODINGS)) <= set(runs)
        assert all(v["128"] is None for v in runs.get("learned", {}).values())
        assert set(entry["learned"]) == set(runs)
        for name, seeds in runs.items():  # >= 5 seeds for every shipped row, fine-tunes included
            assert len(seeds) >= 5 or not complete, (task, name, len(seeds))
        for name in runs:  # the rope actually used, for every rope method and length
            if name.startswith("rope"):
                assert set(entry["rope"][name]) == {"64", "128", "256", "512"}
                assert len(entry["rope"][name]["512"]["inv_freq"]) == 8  # head_dim 16
    assert "alibi:heads=8" in doc["tasks"]["kback"]["runs"]
    size = sum(p.stat().st_size for p in (ROOT / "data" / "lab").iterdir())
    assert size < 10_000_000, size  # the seed-0 models: five encodings on four tasks, the newer six (issue #39)


def test_the_shipped_dynamic_row_follows_one_factor():
    """The recorded rope of rope+dynamic: slowest pair stretched by 2·T/L − 1 (HF, factor 2), not T/L·T/L …"""
    rope = lab.load_shipped()["tasks"]["markov"]["rope"]
    for n in (64, 128, 256, 512):
        plain = rope["rope"][str(n)]["inv_freq"]
        dyn = rope["rope+dynamic"][str(n)]["inv_freq"]
        np.testing.assert_allclose(dyn, _hf_dynamic_inv_freq(10000.0, 16, 2.0, n, 64), rtol=1e-9)
        assert plain[-1] / dyn[-1] == pytest.approx(max(1.0, 2 * n / 64 - 1), rel=1e-6)


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
    model = tiny.shipped_model("markov", "rope")
    a = evaluation.evaluate_method(model, qwen, [128], tokens=256)
    b = evaluation.evaluate_method(model, "rope+yarn:factor=4", [128], tokens=256)
    assert a == b


def test_the_labs_values_for_required_keys_are_llama31s_and_read_no_ui_default():
    # issue #22: the lab declares its own values (Llama 3.1's config), it reads nothing of the explorer's
    llama31 = PRESETS["llama3.1-8b"].rope_parameters
    assert dict(lab.REQUIRED_VALUES["llama3"]) == {"low_freq_factor": 1.0, "high_freq_factor": 4.0}
    assert all(llama31[k] == v for k, v in lab.REQUIRED_VALUES["llama3"].items())
    assert set(lab.REQUIRED_VALUES) <= set(ROPE_METHODS)
    # a value in the method name wins over the lab's
    block = lab.parse_method("rope+llama3:high_freq_factor=8").rope_block(256, 64)
    assert (block["low_freq_factor"], block["high_freq_factor"]) == (1.0, 8.0)
    # every required key is given: factor and L from the lengths, the rest by the lab, longrope's lists aside
    # (a method name cannot carry d/2 numbers)
    for name, method in ROPE_METHODS.items():
        block = lab.parse_method(f"rope+{name}").rope_block(256, 64) or {}
        missing = set(method.required_keys) - set(block)
        assert missing == ({"short_factor", "long_factor"} if name == "longrope" else set()), name


def test_the_trained_length_goes_to_every_method_whose_declaration_reads_it(monkeypatch):
    given = {
        name
        for name in ROPE_METHODS
        if "original_max_position_embeddings" in lab.parse_method(f"rope+{name}").rope_block(256, 64)
    }
    # the same three HF's standardize_rope_params gives it to (dynamic NTK reads max_position_embeddings)
    assert given == {"yarn", "llama3", "longrope"}
    assert (
        lab.parse_method("rope+yarn:original_max_position_embeddings=32").rope_block(256, 64)[
            "original_max_position_embeddings"
        ]
        == 32
    )
    # a method added to the registry gets it with no edit of the lab
    toy = dataclasses.replace(
        ROPE_METHODS["linear"], name="toy", keys=(methods.FACTOR, methods.ORIGINAL_MAX_POSITION_EMBEDDINGS)
    )
    monkeypatch.setattr(grammar, "ROPE_METHODS", {**ROPE_METHODS, "toy": toy})
    assert lab.MethodSpec("rope+toy", "rope", "toy").rope_block(256, 64) == {
        "rope_type": "toy",
        "rope_theta": 10000.0,
        "factor": 4.0,
        "original_max_position_embeddings": 64,
    }


# ------------------------------------------------------------------ issue #21: the lab tells the truth
def _hf_dynamic_inv_freq(base, dim, factor, seq_len, max_pos):
    """HF's _compute_dynamic_ntk_parameters, re-typed: seq_len = max(seq_len, max_pos);
    base' = base·((factor·seq_len/max_pos) − (factor − 1))^(dim/(dim−2)); inv_j = 1/base'^(2j/dim)."""
    seq_len = max(seq_len, max_pos)
    b = base * ((factor * seq_len / max_pos) - (factor - 1)) ** (dim / (dim - 2))
    return np.array([1.0 / b ** (2 * j / dim) for j in range(dim // 2)])


@pytest.mark.parametrize("length", [32, 64, 128, 256, 512])
def test_dynamic_ntk_has_one_config_factor_and_grows_only_past_L(length):
    """rope+dynamic: factor 2 (one config factor, not length / L); the slowest pair's stretch is
    2·T/L − 1 past L (3, 7, 15 at 2L, 4L, 8L; the old double scaling gave 3, 13, 57) and 1 inside L."""
    model = tiny.TinyTransformer(tiny.TrainConfig(d_model=64, n_heads=4))
    block = lab.parse_method("rope+dynamic").rope_block(length, 64)
    assert block == {"rope_type": "dynamic", "rope_theta": 10000.0, "factor": 2.0}
    inv, af = model.rope_used(block, length)
    want = _hf_dynamic_inv_freq(10000.0, 16, 2.0, length, 64)
    np.testing.assert_allclose(inv, want, rtol=1e-12)
    plain = 1.0 / 10000.0 ** (np.arange(8) * 2 / 16)
    stretch = plain[-1] / inv[-1]
    assert stretch == pytest.approx(max(1.0, 2 * length / 64 - 1), rel=1e-9) and af == 1.0
    # a given factor is kept as the one config factor
    assert lab.parse_method("rope+dynamic:factor=4").rope_block(512, 64)["factor"] == 4.0


def test_the_rope_actually_used_is_recorded_and_is_what_the_forward_pass_applies():
    r = _train(task="kback", encoding="rope")
    out = experiment.run_experiment(
        "kback", ["rope", "rope+dynamic", "rope+yarn"], train_len=16, eval_lens=[16, 64], steps=2, tokens=64, d_model=16
    )
    assert set(out["rope"]) == {"rope", "rope+dynamic", "rope+yarn"}
    rec = out["rope"]["rope"]["64"]  # d_model 16, 4 heads: head_dim 4, two pairs θ_j = 10000^(−2j/4)
    np.testing.assert_allclose(rec["inv_freq"], [1.0, 10000.0**-0.5])
    assert rec["attention_factor"] == 1.0
    np.testing.assert_allclose(
        out["rope"]["rope+dynamic"]["64"]["inv_freq"], _hf_dynamic_inv_freq(10000.0, 4, 2.0, 64, 16), rtol=1e-12
    )
    assert out["rope"]["rope+yarn"]["64"]["attention_factor"] == pytest.approx(0.1 * np.log(4) + 1)
    # the recorded frequencies are the ones the forward pass rotates with: a rotary module built from them
    model = r.model
    x = torch.randn(1, 3, 32, 4)
    for method in ("rope+dynamic", "rope+yarn"):
        block = lab.parse_method(method).rope_block(64, 16)
        inv, af = model.rope_used(block, 64)
        rope, seq_len = model.rope(block, 64)
        got = rope(x, np.arange(32), seq_len=seq_len).numpy()
        want = posenc.apply_rope(x.numpy()[0, 0].astype(np.float64), np.arange(32), inv_freq=inv, attention_factor=af)
        np.testing.assert_allclose(got[0, 0], want, atol=1e-5)


def test_markov_optimum_is_minus_log_of_the_true_transition_on_the_same_tokens():
    rng = np.random.default_rng(3)
    x, y = lab.make_batch("markov", 4, 20, rng)
    opt = lab.optimum("markov", x, y)
    table = lab.markov_table()
    for b in range(4):
        assert np.isnan(opt[b, 0])
        for t in range(1, 20):  # a hand loop: the target at t follows x[t−1], x[t]
            assert opt[b, t] == pytest.approx(-np.log(table[x[b, t - 1], x[b, t], y[b, t]]))
    assert lab.optimum("kback", *lab.make_batch("kback", 2, 10, rng)) is None
    # on a long sample its mean is the entropy rate (the "floor" reference)
    x, y = lab.make_batch("markov", 64, 512, np.random.default_rng(4))
    assert np.nanmean(lab.optimum("markov", x, y)) == pytest.approx(lab.references("markov")["floor"], abs=0.02)


def test_learned_gate():
    assert lab.learned("accuracy", 0.95) and not lab.learned("accuracy", 0.949) and not lab.learned("accuracy", None)
    assert lab.learned("loss", 1.44, 1.40) and not lab.learned("loss", 1.46, 1.40)
    with pytest.raises(ValueError, match="optimum_value"):
        lab.learned("loss", 1.4)


def test_break_test_needs_tokens_and_an_interval():
    bins = [(0, 32), (32, 64), (64, 96), (96, 128)]
    at_l = {"0": 0.9, "1": 0.92, "2": 0.88}
    enough = {k: [300] * 4 for k in at_l}
    # accuracy falls by ≈0.3 in the last bin, consistently over seeds: breaks there
    per = {"0": [0.9, 0.9, 0.89, 0.6], "1": [0.92, 0.9, 0.9, 0.61], "2": [0.88, 0.9, 0.87, 0.58]}
    b = lab.break_test(bins, per, enough, at_l, 64, metric="accuracy", worse_by=0.05)
    assert (b.verdict, b.position) == ("breaks", 96)
    # the same curves with too few tokens per bin: nothing is tested
    few = {k: [100] * 4 for k in at_l}
    assert lab.break_test(bins, per, few, at_l, 64, metric="accuracy", worse_by=0.05).verdict == "no data"
    # flat within noise: holds; one noisy seed: unclear
    flat = {k: [v] * 4 for k, v in at_l.items()}
    assert lab.break_test(bins, flat, enough, at_l, 64, metric="accuracy", worse_by=0.05).verdict == "holds"
    noisy = {"0": [0.9] * 4, "1": [0.92, 0.92, 0.5, 0.92], "2": [0.88] * 4}
    assert lab.break_test(bins, noisy, enough, at_l, 64, metric="accuracy", worse_by=0.05).verdict == "unclear"


def test_copy_tiles_segments_whose_distance_does_not_grow_with_the_length():
    """Segments one after another: h tokens, the separator, the same h tokens (the last may be cut by the end);
    every scored target is the token h + 1 places back, h in [8, 16] at 64 and at 512 tokens alike."""
    for length in (64, 512):
        x, y = lab.make_batch("copy", 100, length, np.random.default_rng(length))
        parts, scored = set(), 0
        for b in range(100):
            start, expect = 0, np.full(length, -1)
            for sep in np.flatnonzero(x[b] == lab.COPY_SEP):  # tokens are 0..15: a 16 is a separator
                h = int(sep - start)
                parts.add(h)
                assert 8 <= h <= 16
                end = min(sep + 1 + h, length)
                np.testing.assert_array_equal(x[b, sep + 1 : end], x[b, start : start + end - sep - 1])
                n = min(h, length - sep)
                expect[sep : sep + n] = x[b, start : start + n]  # the target at t is the token h + 1 back
                start = sep + 1 + h
            known = expect >= 0
            np.testing.assert_array_equal(y[b][known], expect[known])
            assert ((y[b] >= 0) == known).all()
            scored += int(known.sum())
        assert parts == set(range(8, 17))  # no fixed offset, and the same range at every length
        assert lab.copy_distances(length) == (9, 17)
        assert abs(scored / 100 - lab.TASKS["copy"].cost(length)) < 0.1 * lab.TASKS["copy"].cost(length)


def test_passkey_hides_one_key():
    x, y = lab.make_batch("passkey", 300, 40, np.random.default_rng(1))
    depths = set()
    for b in range(300):
        (mark,) = np.flatnonzero(x[b, :-1] == lab.PASSKEY_MARK)
        depths.add(int(mark))
        assert x[b, -1] == lab.PASSKEY_QUERY and y[b, -1] == x[b, mark + 1] < 16
        assert (y[b, :-1] == -1).all() and (x[b, :-1] != lab.PASSKEY_QUERY).all()
    assert len(depths) > 30
    with pytest.raises(ValueError, match="length"):
        lab.make_batch("passkey", 1, 8, np.random.default_rng(0)) and lab.make_batch("passkey", 1, 3, None)


def test_alibi_with_8_heads_and_its_method_name():
    spec = lab.parse_method("alibi:heads=8")
    assert (spec.encoding, spec.n_heads, spec.model) == ("alibi", 8, "alibi:heads=8")
    out = experiment.run_experiment(
        "kback",
        ["alibi", "alibi:heads=8"],
        train_len=16,
        eval_lens=[16],
        steps=2,
        tokens=64,
        d_model=16,
        keep_models=True,
    )
    assert out["models"]["alibi:heads=8"].alibi.n_heads == 8 and out["models"]["alibi"].alibi.n_heads == 4
    for bad in ("alibi:heads=x", "alibi:heads=0", "alibi:slope=2", "rope:heads=8"):
        with pytest.raises(ValueError, match="method"):
            lab.parse_method(bad)


def test_each_seed_is_scored_on_its_own_sample_and_learned_is_reported():
    r = _train(task="kback", encoding="rope")
    a = evaluation.evaluate_detail(r.model, "rope", [16], tokens=128)[16]
    b = evaluation.evaluate_detail(r.model, "rope", [16], tokens=128, sample=0)[16]
    c = evaluation.evaluate_detail(r.model, "rope", [16], tokens=128, sample=1)[16]
    assert a.value == b.value and a.value != c.value
    d = evaluation.evaluate_detail(r.model, "rope", [16, 32], tokens=128)
    assert d[16].beyond is None and d[32].beyond is not None and d[32].scored_beyond < d[32].scored
    vals = np.array(d[32].per_position)
    counts = np.array(d[32].counts)
    assert d[32].beyond == pytest.approx(np.nansum(vals[16:] * counts[16:]) / counts[16:].sum())
    out = experiment.run_experiment(
        "markov", ["rope", "rope@ft32"], train_len=16, eval_lens=[16, 32], steps=2, tokens=64, d_model=16
    )
    assert set(out["learned"]) == {"rope", "rope@ft32"} and out["learned"]["rope"] is False
    assert set(out["optimum"]["rope"]) == {"16", "32"} and set(out["beyond"]["rope"]) == {"32"}


# ------------------------------------------------------------------ training to the learned target (issue #37)
def test_training_to_the_target_stops_after_a_decay_once_the_held_out_check_says_learned(monkeypatch):
    """TrainConfig.until_learned: steps is a cap; the first check (every check_every steps) that says learned
    starts a straight decay over a quarter of the steps so far (at least check_every), then training stops."""
    calls = []

    def check_at(k):
        def check(model, held, best, rope_block):
            calls.append(len(calls))
            return len(calls) * 2 >= k  # check_every = 2: the check after step k says learned

        return check

    cfg = dict(TINY, steps=200, check_every=2, until_learned=True)
    for k, expected in ((8, 8 + 2), (40, 40 + 10), (200, 200)):
        calls.clear()
        monkeypatch.setattr(training, "_check", check_at(k))
        r = training.train(tiny.TrainConfig(**cfg))
        assert (r.steps, r.reached, len(r.losses)) == (min(expected, 200), k if k < 200 else None, r.steps)
    monkeypatch.setattr(training, "_check", lambda *a: False)  # never learned: the whole cap, decay from 80 %
    r = training.train(tiny.TrainConfig(**cfg))
    assert (r.steps, r.reached) == (200, None)


@pytest.mark.parametrize(("cap", "every"), [(100, 100), (10, 2), (12, 5), (7, 2), (40, 7), (5, 5)])
def test_checks_before_decay_counts_the_checks_a_capped_run_makes(monkeypatch, cap, every):
    """posenc.lab.checks_before_decay (what the page says a run could check) against the held-out checks the
    training loop makes when none says learned: counted here."""
    calls = []
    monkeypatch.setattr(training, "_check", lambda *a: calls.append(1) and False)
    training.train(tiny.TrainConfig(**dict(TINY, steps=cap, check_every=every, until_learned=True)))
    assert lab.checks_before_decay(cap, every) == len(calls)


def test_the_learning_rate_by_hand():
    """Warm-up, then a cosine to 0 (fixed steps) or the peak until the decay, then a straight line to 0."""
    rate = training._rate
    assert rate(0, peak=1.0, warm=4, decay_from=4, end=20, cosine=True) == 0.25
    for step in (4, 9, 12, 19):
        assert math.isclose(
            rate(step, peak=2.0, warm=4, decay_from=4, end=20, cosine=True),
            2.0 * 0.5 * (1 + math.cos(math.pi * (step - 4) / 16)),
        )
        assert rate(step, peak=2.0, warm=4, decay_from=None, end=20, cosine=False) == 2.0
    assert math.isclose(rate(15, peak=2.0, warm=4, decay_from=10, end=20, cosine=False), 2.0 * (20 - 15) / 10)


def test_a_fine_tune_to_the_target_records_its_own_run():
    base = _train(task="kback", encoding="rope", steps=2)
    tuned = training.finetune(base, "rope+linear@ft32", steps=3, until_learned=True)
    assert (tuned.config.steps, tuned.config.until_learned, tuned.steps) == (3, True, 3)
    assert tuned.config.batch == max(1, base.config.batch * 16 // 32) and tuned.model is not base.model
    out = experiment.run_experiment(
        "kback", ["rope", "rope@ft32"], train_len=16, eval_lens=[16], steps=2, tokens=32, d_model=16, ft_steps=2
    )
    assert out["trained"]["rope"] == {"steps": 2, "cap": None, "reached": None}
    assert out["trained"]["rope@ft32"] == {"steps": 2, "cap": None, "reached": None}


def _shipped_copies(tmp_path, *names: str) -> dict:
    """{name: a directory under tmp_path holding a copy of data/lab/results.json and weights.npz}."""
    import shutil

    src, dirs = ROOT / "data" / "lab", {}
    for name in names:
        d = dirs[name] = tmp_path / name
        d.mkdir()
        shutil.copy(src / "results.json", d / "results.json")
        shutil.copy(src / "weights.npz", d / "weights.npz")
    return dirs


def test_merge_with_tasks_joins_those_tasks_and_keeps_the_others(tmp_path):
    """`python -m posenc.lab merge --tasks copy OUT IN…` (runs that started from an older shipped file): the
    listed task comes from the inputs (a row in several: the later file's), every other task and its weights
    as OUT has them, even where an input holds an older version of it."""
    import json

    from posenc.lab.__main__ import main

    src = ROOT / "data" / "lab"
    dirs = _shipped_copies(tmp_path, "out", "old", "new")
    old = json.loads((dirs["old"] / "results.json").read_text())  # an input whose markov is stale
    old["tasks"]["markov"]["runs"]["rope"]["0"]["64"] = 99.0
    (dirs["old"] / "results.json").write_text(json.dumps(old))
    new = json.loads((dirs["new"] / "results.json").read_text())  # the input with the rebuilt copy row
    new["tasks"]["copy"]["runs"]["rope"]["0"]["64"] = 0.5
    (dirs["new"] / "results.json").write_text(json.dumps(new))
    out = dirs["out"] / "results.json"
    main(["merge", "--tasks", "copy", str(out), str(dirs["old"] / "results.json"), str(dirs["new"] / "results.json")])
    doc = json.loads(out.read_text())
    shipped = lab.load_shipped()
    assert doc["tasks"]["copy"]["runs"]["rope"]["0"]["64"] == 0.5  # from the later input
    assert doc["tasks"]["markov"]["runs"] == shipped["tasks"]["markov"]["runs"]  # kept, not the stale input's
    assert set(doc["tasks"]) == set(shipped["tasks"])
    with np.load(dirs["out"] / "weights.npz") as got, np.load(src / "weights.npz") as want:
        assert set(got.files) == set(want.files)


def test_merge_joins_a_rows_seeds_from_runs_of_other_seeds(tmp_path):
    """`ship --first-seed 4` trains only seed 4; `merge` adds it to the rows' seeds 0–3 (a seed in several
    files: the later one's) and calls the task complete only when every planned row has every seed."""
    import json

    from posenc.lab.__main__ import SHIP_METHODS, main

    dirs = _shipped_copies(tmp_path, "out", "four", "fifth")
    four = json.loads((dirs["four"] / "results.json").read_text())
    entry = four["tasks"]["markov"]
    for rows in (entry["runs"], entry["learned_seeds"]):
        for per_seed in rows.values():
            per_seed.pop("4")
    (dirs["four"] / "results.json").write_text(json.dumps(four))
    fifth = json.loads((dirs["fifth"] / "results.json").read_text())
    only = fifth["tasks"]["markov"]
    only["runs"] = {"rope": {"4": {**only["runs"]["rope"]["4"], "64": 0.25}}}
    only["learned_seeds"] = {"rope": {"4": True}}
    only["date"] = "2099-01-02 03:04 UTC"  # the seed run came later: the joined task carries its date
    (dirs["fifth"] / "results.json").write_text(json.dumps(fifth))
    out = dirs["out"] / "results.json"
    args = ["merge", "--tasks", "markov", str(out), str(dirs["four"] / "results.json")]
    main([*args, str(dirs["fifth"] / "results.json")])
    doc = json.loads(out.read_text())["tasks"]["markov"]
    shipped = lab.load_shipped()["tasks"]["markov"]
    assert set(doc["runs"]["rope"]) == {"0", "1", "2", "3", "4"}
    assert doc["runs"]["rope"]["4"]["64"] == 0.25  # the later file's seed 4
    assert doc["date"] == "2099-01-02 03:04 UTC"
    assert doc["runs"]["rope"]["0"] == shipped["runs"]["rope"]["0"]  # the earlier file's seeds kept
    assert set(doc["runs"]["nope"]) == {"0", "1", "2", "3"}  # no fifth seed for NoPE
    assert not doc["complete"]
    main([*args, str(ROOT / "data" / "lab" / "results.json")])  # every planned row with every seed again
    doc = json.loads(out.read_text())["tasks"]["markov"]
    assert doc["complete"] and all(set(doc["runs"][m]) == {"0", "1", "2", "3", "4"} for m in SHIP_METHODS["markov"])


def test_ship_rejects_a_first_seed_outside_the_seeds(capsys):
    from posenc.lab.__main__ import main

    with pytest.raises(SystemExit) as exc:
        main(["ship", "--seeds", "5", "--first-seed", "5", "--tasks", "copy", "--out", "/nonexistent/x.json"])
    assert exc.value.code == 2
    assert "--first-seed must be in 0 … 4 (--seeds 5), got 5" in capsys.readouterr().err


def test_merge_takes_the_fine_tune_plan_from_the_file_whose_fine_tune_rows_it_keeps(tmp_path):
    """A fine-tune pass re-run with another budget: the merged task's plan is the re-run's (the file holding the
    @ft rows, later in the list), not the first file's, and a file without @ft rows does not change it."""
    import json

    from posenc.lab.__main__ import main

    dirs = _shipped_copies(tmp_path, "out", "base", "ft", "nope")
    plan = {"steps": 777, "batch": 5, "lr_ratio": 0.125}  # a plan no shipped task has
    ft = json.loads((dirs["ft"] / "results.json").read_text())
    entry = ft["tasks"]["passkey"]
    for key, rows in list(entry.items()):
        if isinstance(rows, dict) and set(rows) <= set(entry["runs"]) and rows:
            entry[key] = {m: v for m, v in rows.items() if "@ft" in m}
    entry["finetune"] = plan
    (dirs["ft"] / "results.json").write_text(json.dumps(ft))
    nope = json.loads((dirs["nope"] / "results.json").read_text())
    entry = nope["tasks"]["passkey"]
    for key, rows in list(entry.items()):
        if isinstance(rows, dict) and set(rows) <= set(entry["runs"]) and rows:
            entry[key] = {m: v for m, v in rows.items() if m == "nope"}
    entry["finetune"] = None
    (dirs["nope"] / "results.json").write_text(json.dumps(nope))
    out = dirs["out"] / "results.json"
    files = [str(dirs[n] / "results.json") for n in ("base", "ft", "nope")]
    main(["merge", "--tasks", "passkey", str(out), *files])
    doc = json.loads(out.read_text())["tasks"]["passkey"]
    assert doc["finetune"] == plan
    assert doc["finetune"] != lab.load_shipped()["tasks"]["passkey"]["finetune"]  # the test can tell them apart
