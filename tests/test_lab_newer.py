"""The lab's newer encodings (issue #39) inside the tiny model, and the flip-flop task.

* flip-flop: the generator against a token-by-token reading of Liu et al.'s definition (a read's bit is the
  bit of the last write, whatever was ignored in between), its instruction frequencies against FFL(0.8)
  with a binomial bound, and the evaluation budget against the mean scored count.
* each encoding in the model: the forward pass against a reference forward re-typed here layer by layer
  (where each module acts: FoPE rotates q, k; CoPE adds to the logits; PaTH gives them; SSMax scales rows;
  the hybrid has RoPE in the layers HF's no_rope_layer_interval rule keeps), causality end to end;
* DroPE: after the drop the model computes what a NoPE model with the same weights computes, and the
  dropped state travels with the weights;
* the grammar and the command line take the six names.

The posenc.torch modules themselves are tested against their papers in tests/test_torch_*.py.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from posenc import lab
from posenc.lab import tasks

torch = pytest.importorskip("torch")
from posenc.lab import evaluation, training  # noqa: E402
from posenc.lab import model as tiny  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TINY = dict(train_len=16, steps=4, batch=4, d_model=16, warmup=1, n_heads=2)
NEWER = ("cope", "fope", "path", "drope", "hybrid", "ssmax")


# ------------------------------------------------------------------ flip-flop
def _reference_targets(x: np.ndarray) -> np.ndarray:
    """Liu et al.'s flip-flop read token by token: instructions at even places, their bits after them;
    after a read (r) the next token must be the bit of the last write (w); ignores (i) change nothing."""
    w, i, r = tasks.FLIPFLOP_WRITE, tasks.FLIPFLOP_IGNORE, tasks.FLIPFLOP_READ
    y = np.full(x.shape, -1)
    for row in range(x.shape[0]):
        memory = None
        for t in range(0, x.shape[1] - 1, 2):
            instr, bit = x[row, t], x[row, t + 1]
            assert instr in (w, i, r) and bit in (0, 1)
            if instr == w:
                memory = bit
            elif instr == r:
                assert memory is not None, "a read before any write"
                y[row, t] = memory
    return y


@pytest.mark.parametrize("length", [8, 9, 16, 64, 131])
def test_flipflop_reads_return_the_last_written_bit(length):
    x, y = tasks.make_batch("flipflop", 64, length, np.random.default_rng(length))
    assert x.shape == y.shape == (64, length) and x.dtype == y.dtype == np.int64
    assert (x[:, 0] == tasks.FLIPFLOP_WRITE).all()  # the first instruction writes
    last = 2 * ((length - 1) // 2)
    assert (x[:, last] == tasks.FLIPFLOP_READ).all()  # the last instruction inside the input reads
    assert (y[:, last] >= 0).all()  # and its bit is scored, also when the bit is past the input (odd length)
    expected = _reference_targets(x)
    if length % 2 == 0:  # the bit of the last read is the input's last token: the reference sees it
        np.testing.assert_array_equal(y, expected)
    else:  # the last read's bit is the target only: the reference scores every read before it
        np.testing.assert_array_equal(y[:, :last], expected[:, :last])


def test_flipflop_instruction_frequencies_are_ffl_0_8_and_the_budget_is_the_mean_scored_count():
    n, length = 4000, 64
    x, y = tasks.make_batch("flipflop", n, length, np.random.default_rng(7))
    middle = x[:, 2 : 2 * ((length - 1) // 2) : 2]  # every instruction but the forced first and last
    k = middle.size
    for token, p in zip(
        (tasks.FLIPFLOP_IGNORE, tasks.FLIPFLOP_WRITE, tasks.FLIPFLOP_READ), (0.8, 0.1, 0.1), strict=True
    ):
        share = float((middle == token).mean())
        assert abs(share - p) < 5 * math.sqrt(p * (1 - p) / k), (token, share)
    scored = (y >= 0).sum(axis=1)
    expected = 1 + (length // 2 - 2) * 0.1  # the last read, and one in ten of the 30 instructions between
    assert lab.TASKS["flipflop"].cost(length) == pytest.approx(expected)
    assert abs(scored.mean() - expected) < 5 * scored.std() / math.sqrt(n)


def test_flipflop_is_deterministic_in_its_seed_and_refuses_short_sequences():
    a = tasks.make_batch("flipflop", 5, 32, np.random.default_rng(3))
    b = tasks.make_batch("flipflop", 5, 32, np.random.default_rng(3))
    np.testing.assert_array_equal(a[0], b[0])
    with pytest.raises(ValueError, match="length must be"):
        tasks.make_batch("flipflop", 2, 2, np.random.default_rng(0))
    assert tasks.references("flipflop") == {"perfect": 1.0, "uniform": 0.5}


# ------------------------------------------------------------------ the newer encodings in the model
def _rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat([-x[..., half:], x[..., :half]], dim=-1)


def _rope(x, theta: float):
    """Plain RoPE (half layout), re-typed: pair i turns by position · θ^(−2i/d)."""
    t, d = x.shape[-2], x.shape[-1]
    inv = theta ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    ang = torch.outer(torch.arange(t, dtype=torch.float64), inv)
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1).to(x.dtype), torch.cat([ang.sin(), ang.sin()], -1).to(x.dtype)
    return x * cos + _rotate_half(x) * sin


def _reference_forward(model, tokens):
    """The tiny model's forward written out here, one layer at a time."""
    cfg = model.cfg
    b, t = tokens.shape
    x = model.embed(tokens)
    positions = np.arange(t)
    nope_every = tiny.HYBRID_INTERVAL
    dropped = cfg.encoding == "drope" and bool(model.rope_dropped)
    for i, block in enumerate(model.blocks):
        h = block.ln1(x)
        q, k, v = block.qkv(h).view(b, t, 3, cfg.n_heads, -1).permute(2, 0, 3, 1, 4)
        rotates = cfg.encoding in ("rope", "ssmax") or (cfg.encoding == "drope" and not dropped)
        if cfg.encoding == "hybrid":  # HF's rule for Llama 4 / SmolLM3: layer i has no RoPE when (i+1) % n == 0
            rotates = (i + 1) % nope_every != 0
        if rotates:
            q, k = _rope(q, cfg.rope_theta), _rope(k, cfg.rope_theta)
        if cfg.encoding == "fope":
            q, k = block.pos(q, positions), block.pos(k, positions)
        if cfg.encoding == "path":
            logits = block.pos(h, q, k)
        else:
            logits = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        if cfg.encoding == "cope":
            logits = logits + block.pos.position_logits(q, k) / math.sqrt(q.shape[-1])
        if cfg.encoding == "ssmax":  # row i (i + 1 keys) times s_h · log(i + 1)
            n = torch.arange(1, t + 1, dtype=logits.dtype)
            logits = logits * (block.pos.s[:, None, None] * torch.log(n)[None, :, None])
        logits = logits.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
        y = torch.softmax(logits, -1) @ v
        x = x + block.proj(y.transpose(1, 2).reshape(b, t, -1))
        x = x + block.mlp(block.ln2(x))
    return model.out(model.ln(x))


def _model(encoding: str, seed: int = 0):
    torch.manual_seed(seed)
    model = tiny.TinyTransformer(tiny.TrainConfig(task="flipflop", encoding=encoding, **TINY)).double()
    with torch.no_grad():  # off the modules' start values (CoPE's zeros, SSMax's 0.43), so every term counts
        for name, p in model.named_parameters():
            if ".pos." in name:
                p.add_(0.3 * torch.randn_like(p))
    return model.eval()


@pytest.mark.parametrize("encoding", [*NEWER, "rope"])
def test_the_model_computes_the_reference_forward(encoding):
    model = _model(encoding)
    tokens = torch.from_numpy(tasks.make_batch("flipflop", 3, 24, np.random.default_rng(1))[0])
    with torch.no_grad():
        got = model(tokens)
        torch.testing.assert_close(got, _reference_forward(model, tokens), rtol=1e-9, atol=1e-9)
        keep: list = []
        torch.testing.assert_close(model(tokens, keep=keep), got, rtol=1e-9, atol=1e-9)  # the written-out path
    assert len(keep) == model.cfg.n_layers


@pytest.mark.parametrize("encoding", NEWER)
def test_every_newer_model_is_causal_end_to_end(encoding):
    model = _model(encoding, seed=3)
    tokens = torch.from_numpy(tasks.make_batch("flipflop", 2, 20, np.random.default_rng(2))[0])
    changed = tokens.clone()
    changed[:, 12:] = (changed[:, 12:] + 1) % 5
    with torch.no_grad():
        a, b = model(tokens), model(changed)
    torch.testing.assert_close(a[:, :12], b[:, :12], rtol=0, atol=1e-12)
    assert not torch.allclose(a[:, 12:], b[:, 12:])


def test_the_hybrid_plan_is_rope_then_nope_and_rope_models_rotate_everywhere():
    assert tiny.TinyTransformer(tiny.TrainConfig(encoding="hybrid", **TINY)).rotary_layers() == (True, False)
    four = tiny.TinyTransformer(tiny.TrainConfig(encoding="hybrid", **{**TINY, "n_layers": 4}))
    assert four.rotary_layers() == (True, False, True, False)
    for enc in ("rope", "ssmax", "drope"):
        assert tiny.TinyTransformer(tiny.TrainConfig(encoding=enc, **TINY)).rotary_layers() == (True, True)
    for enc in ("cope", "fope", "path", "nope"):
        assert tiny.TinyTransformer(tiny.TrainConfig(encoding=enc, **TINY)).rotary_layers() == (False, False)


def test_drope_after_the_drop_is_a_nope_model_with_the_same_weights_and_the_drop_is_saved():
    model = _model("drope", seed=5)
    tokens = torch.from_numpy(tasks.make_batch("flipflop", 2, 24, np.random.default_rng(4))[0])
    with torch.no_grad():
        with_rope = model(tokens)
        model.drop_rope()
        dropped = model(tokens)
    assert not torch.allclose(with_rope, dropped)
    nope = tiny.TinyTransformer(tiny.TrainConfig(task="flipflop", encoding="nope", **TINY)).double().eval()
    state = {k: v for k, v in model.state_dict().items() if k != "rope_dropped"}
    nope.load_state_dict(state)
    with torch.no_grad():
        torch.testing.assert_close(dropped, nope(tokens), rtol=0, atol=0)
    again = tiny.model_from_state(model.cfg, tiny.model_state(model))
    assert again.rotary_layers() == (False, False)
    with pytest.raises(ValueError, match="only a drope model"):
        nope.drop_rope()


def test_drope_training_drops_rope_then_recalibrates():
    cfg = tiny.TrainConfig(task="flipflop", encoding="drope", **{**TINY, "steps": 8})
    seen: list[int] = []
    r = training.train(cfg, callback=lambda step, steps, loss: seen.append(step))
    recal = int(8 * training.DROPE_RECALIBRATION)
    assert r.dropped_at == 8 and r.steps == len(r.losses) == 8 + recal
    assert seen == list(range(1, 8 + recal + 1))
    assert r.model.rotary_layers() == (False, False)
    assert r.reached is None and r.reached_before_drop is None  # not trained to a target
    rope = training.train(dataclasses_replace(cfg, encoding="rope"))
    assert rope.dropped_at is None
    # the RoPE phase is the RoPE model's training, step for step (same seed, same data)
    np.testing.assert_allclose(r.losses[:8], rope.losses, rtol=1e-6)


def dataclasses_replace(cfg, **kw):
    import dataclasses

    return dataclasses.replace(cfg, **kw)


# ------------------------------------------------------------------ grammar and command line
@pytest.mark.parametrize("name", NEWER)
def test_the_grammar_takes_the_six_names_alone(name):
    spec = lab.parse_method(name)
    assert spec.encoding == name and spec.model == name and spec.rope_block(256, 64) is None
    for bad in (f"{name}+yarn", f"{name}@ft256", f"{name}:heads=2"):
        with pytest.raises(ValueError, match="method"):
            lab.parse_method(bad)
    assert lab.ALL_ENCODINGS[-len(NEWER) :] == NEWER


def test_evaluation_of_a_newer_model_at_lengths_past_l():
    r = training.train(tiny.TrainConfig(task="flipflop", encoding="cope", **TINY))
    ev = evaluation.evaluate_method(r.model, "cope", [16, 48], tokens=64)
    assert set(ev) == {16, 48} and all(0 <= v <= 1 for v in ev.values())


def test_the_command_line_trains_the_newer_encodings(tmp_path):
    out = tmp_path / "r.json"
    cmd = [sys.executable, "-m", "posenc.lab", "--task", "flipflop", "--methods", "path,drope", "--steps", "3"]
    cmd += ["--train-len", "16", "--eval-lens", "16,32", "--tokens", "32", "--d-model", "16", "--out", str(out)]
    subprocess.run(cmd, cwd=ROOT, check=True, capture_output=True, timeout=120)
    doc = json.loads(out.read_text())
    assert doc["task"] == "flipflop" and set(doc["results"]) == {"path", "drope"}
    assert set(doc["learned"]) == {"path", "drope"} and all(isinstance(v, bool) for v in doc["learned"].values())
    assert set(doc["results"]["drope"]) == {"16", "32"}


def test_a_drop_record_keeps_ten_step_means_that_never_straddle_the_drop():
    from posenc.lab.__main__ import DROP_LOSS_EVERY, _drop_record

    losses = [float(i) for i in range(23)] + [100.0 + i for i in range(12)]  # 23 steps with RoPE, 12 after
    run = training.TrainResult(None, None, losses, 0.0, len(losses), 30, dropped_at=23, reached_before_drop=20)  # type: ignore[arg-type]
    rec = _drop_record(run)
    assert DROP_LOSS_EVERY == 10 and rec["every"] == 10
    assert rec["first_after_drop"] == 3  # means of steps 0–9, 10–19, 20–22, then after the drop
    assert rec["losses"] == [4.5, 14.5, 21.0, 104.5, 110.5]
    assert (rec["dropped_at"], rec["reached_before_drop"], rec["reached"]) == (23, 20, 30)


def test_merge_keeps_a_table_by_row_that_only_the_later_file_has(tmp_path):
    """DroPE's "drop" records come from a run of the newer pass; merging it into a file without them keeps them."""
    from posenc.lab.__main__ import merge

    settings = {
        "train_len": 64,
        "eval_lens": [64],
        "d_model": 64,
        "tokens": 8,
        "seeds": 1,
        "bin_width": 32,
        "min_bin_tokens": 256,
    }
    row = {"0": {"64": 1.0}}
    old = {"settings": settings, "tasks": {"kback": {"metric": "accuracy", "runs": {"rope": row}, "learned": {}}}}
    new = {
        "settings": settings,
        "tasks": {
            "kback": {
                "metric": "accuracy",
                "runs": {"drope": row},
                "learned": {},
                "drop": {"drope": {"0": {"dropped_at": 5}}},
                "recalibration": 1.0,
            }
        },
    }
    for name, doc in (("old", old), ("new", new)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "results.json").write_text(json.dumps(doc))
        np.savez_compressed(tmp_path / name / "weights.npz")
    out = tmp_path / "out" / "results.json"
    out.parent.mkdir()
    merge([str(out), str(tmp_path / "old" / "results.json"), str(tmp_path / "new" / "results.json")])
    entry = json.loads(out.read_text())["tasks"]["kback"]
    assert set(entry["runs"]) == {"rope", "drope"} and entry["drop"] == {"drope": {"0": {"dropped_at": 5}}}
    assert entry["recalibration"] == 1.0  # DroPE's budget: the file whose DroPE rows are kept


def test_a_run_sets_its_own_recalibration_budget():
    cfg = tiny.TrainConfig(task="flipflop", encoding="drope", recalibration=1.0, **{**TINY, "steps": 6})
    r = training.train(cfg)
    assert r.dropped_at == 6 and r.steps == 12
    for bad in (0, -1, 5, True, "1"):
        with pytest.raises(ValueError, match="recalibration must be"):
            tiny.TrainConfig(encoding="drope", recalibration=bad)
