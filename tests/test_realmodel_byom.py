"""Bring your own model: posenc.realmodel reads a model from its path. A tiny random Gemma 3 made here (one rope
block per layer type, q/k-norm, sliding window, final soft-capping) and small configs of Qwen3, Llama and GPT-2,
against HF transformers' own classes and values re-typed from HF's config defaults. No network, no model file:
SmolLM2 saved as an HF directory is tested in tests/test_realmodel_byom_smollm2.py."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from posenc import realmodel
from posenc.realmodel.facts import LIBRARIES, check_model_path, read_facts

MISSING = [m for m in LIBRARIES if importlib.util.find_spec(m) is None]
if MISSING:
    pytest.skip(
        f"the libraries {', '.join(MISSING)} are not installed: pip install -r requirements.txt",
        allow_module_level=True,
    )

ROOT = Path(__file__).resolve().parent.parent
torch: Any = None


@pytest.fixture(scope="module", autouse=True)
def _imports():
    global torch
    import torch


#: HF's Gemma3TextConfig defaults (transformers 5.24, models/gemma3/configuration_gemma3.py), re-typed:
#: default_theta {"global": 1_000_000.0, "local": 10_000.0}, sliding_window_pattern 6 (every 6th layer full).
GEMMA_FULL_THETA = 1_000_000.0
GEMMA_LOCAL_THETA = 10_000.0
WORDS = "the a of and to in is it that for on with as was he be by at this from".split()
LAYERS, Q_HEADS, KV_HEADS, HEAD_DIM, MAX_POS = 7, 4, 2, 16, 256


def _tokenizer(folder: Path) -> None:
    """A tiny word-level fast tokenizer (tokenizer.json), saved the way HF saves any tokenizer."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"[UNK]": 0, **{w: i + 1 for i, w in enumerate(WORDS)}}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]").save_pretrained(folder)


def _gemma(folder: Path, **config: Any) -> Any:
    """A tiny random Gemma 3 saved to ``folder`` with a word-level tokenizer (also used by the page's tests)."""
    import torch
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    torch.manual_seed(0)
    cfg = Gemma3TextConfig(
        vocab_size=64,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=LAYERS,
        num_attention_heads=Q_HEADS,
        num_key_value_heads=KV_HEADS,
        head_dim=HEAD_DIM,
        max_position_embeddings=MAX_POS,
        sliding_window=8,
        final_logit_softcapping=30.0,
        **config,
    )
    model = Gemma3ForCausalLM(cfg).eval()
    with torch.no_grad():  # q_norm/k_norm start at weight 0 (scale 1): make them matter
        for layer in model.model.layers:
            layer.self_attn.q_norm.weight.normal_(0.0, 1.0)
            layer.self_attn.k_norm.weight.normal_(0.0, 1.0)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    _tokenizer(folder)
    return model


@pytest.fixture(scope="module")
def gemma_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("gemma3")
    _gemma(folder, rope_scaling={"rope_type": "linear", "factor": 8.0})
    return folder


@pytest.fixture(scope="module")
def gemma(gemma_dir):
    return realmodel.load(gemma_dir)


@pytest.fixture(scope="module")
def hf(gemma_dir):
    """HF's own loading path of the same directory: the independent reference."""
    from transformers import AutoModelForCausalLM

    return AutoModelForCausalLM.from_pretrained(str(gemma_dir), dtype=torch.float32).eval()


TEXT = " ".join(np.random.default_rng(1).choice(WORDS, 48))


# --------------------------------------------------------------------------------------------------
# facts from the config
# --------------------------------------------------------------------------------------------------
def test_gemma3_facts_per_layer_type(gemma_dir):
    f = read_facts(gemma_dir)
    # every 6th layer (1-based) is full attention, the others sliding (HF's sliding_window_pattern 6)
    assert f.layer_types == tuple("full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(7))
    assert f.types == ("sliding_attention", "full_attention") and f.main_type == "full_attention"
    assert f.layers_of("full_attention") == [5]
    assert (f.layers, f.q_heads, f.kv_heads, f.head_dim, f.pairs) == (7, 4, 2, 16, 8)
    assert dict(f.rope["sliding_attention"]) == {"rope_type": "default", "rope_theta": GEMMA_LOCAL_THETA}
    assert dict(f.rope["full_attention"]) == {"rope_type": "linear", "factor": 8.0, "rope_theta": GEMMA_FULL_THETA}
    assert dict(f.trained_lengths) == {"sliding_attention": MAX_POS, "full_attention": MAX_POS}
    assert (f.rope_theta, f.trained_length, f.sliding_window) == (GEMMA_FULL_THETA, MAX_POS, 8)
    assert f.architecture == "Gemma3ForCausalLM" and f.source == str(gemma_dir) and not f.is_default
    # wavelengths by hand: 2π·θ^(2j/d), linear scaling divides every frequency by its factor
    j = np.arange(8)
    np.testing.assert_allclose(f.wavelengths("sliding_attention"), 2 * np.pi * GEMMA_LOCAL_THETA ** (2 * j / 16))
    np.testing.assert_allclose(f.wavelengths("full_attention"), 8.0 * 2 * np.pi * GEMMA_FULL_THETA ** (2 * j / 16))
    np.testing.assert_allclose(f.turns_in_training(), MAX_POS / f.wavelengths("full_attention"))


def test_gemma3_hub_style_config_is_read_as_hf_reads_it(tmp_path):
    """A config.json as Gemma 3's Hub repositories write it (rope_theta, rope_local_base_freq, rope_scaling,
    sliding_window_pattern), typed by hand: HF's config class maps it to one block per layer type."""
    cfg = {
        "model_type": "gemma3_text",
        "architectures": ["Gemma3ForCausalLM"],
        "vocab_size": 64,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_hidden_layers": 8,
        "num_attention_heads": 4,
        "num_key_value_heads": 1,
        "head_dim": 16,
        "max_position_embeddings": 131072,
        "rope_theta": 500000.0,
        "rope_local_base_freq": 20000.0,
        "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
        "sliding_window": 512,
        "sliding_window_pattern": 4,
    }
    (tmp_path / "config.json").write_text(json.dumps(cfg))
    _tokenizer(tmp_path)
    f = read_facts(tmp_path)
    assert f.layer_types == ("sliding_attention",) * 3 + ("full_attention",) + ("sliding_attention",) * 3 + (
        "full_attention",
    )
    assert (
        f.rope["sliding_attention"]["rope_theta"] == 20000.0 and f.rope["sliding_attention"]["rope_type"] == "default"
    )
    assert f.rope["full_attention"]["rope_theta"] == 500000.0 and f.rope["full_attention"]["rope_type"] == "yarn"
    assert f.rope["full_attention"]["factor"] == 4.0
    # HF's rule: the block's original_max_position_embeddings where it has one, else max_position_embeddings
    assert dict(f.trained_lengths) == {"sliding_attention": 131072, "full_attention": 32768}
    assert (f.trained_length, f.kv_heads, f.sliding_window) == (32768, 1, 512)


@pytest.mark.parametrize(
    ("config", "want"),
    [
        (  # Qwen3: one block for every layer, head_dim declared apart from hidden_size / heads
            {
                "model_type": "qwen3",
                "num_hidden_layers": 3,
                "num_attention_heads": 4,
                "num_key_value_heads": 2,
                "hidden_size": 32,
                "head_dim": 24,
                "max_position_embeddings": 40960,
                "rope_theta": 1000000.0,
            },
            ((3, 4, 2, 24), {"rope_type": "default", "rope_theta": 1000000.0}, 40960),
        ),
        (  # Llama 3.2: llama3 scaling; its trained length is the block's original_max_position_embeddings
            {
                "model_type": "llama",
                "num_hidden_layers": 2,
                "num_attention_heads": 4,
                "num_key_value_heads": 4,
                "hidden_size": 64,
                "max_position_embeddings": 131072,
                "rope_theta": 500000.0,
                "rope_scaling": {
                    "rope_type": "llama3",
                    "factor": 32.0,
                    "low_freq_factor": 1.0,
                    "high_freq_factor": 4.0,
                    "original_max_position_embeddings": 8192,
                },
            },
            (
                (2, 4, 4, 16),
                {
                    "rope_type": "llama3",
                    "rope_theta": 500000.0,
                    "factor": 32.0,
                    "low_freq_factor": 1.0,
                    "high_freq_factor": 4.0,
                    "original_max_position_embeddings": 8192,
                },
                8192,
            ),
        ),
    ],
    ids=["qwen3", "llama3.2"],
)
def test_other_architectures_facts(tmp_path, config, want):
    (tmp_path / "config.json").write_text(json.dumps(config))
    _tokenizer(tmp_path)
    f = read_facts(tmp_path)
    shape, block, trained = want
    assert (f.layers, f.q_heads, f.kv_heads, f.head_dim) == shape
    assert f.types == ("full_attention",)
    assert dict(f.rope["full_attention"]) == block
    assert f.trained_length == trained


# --------------------------------------------------------------------------------------------------
# bad input: the path, the model, the tokenizer
# --------------------------------------------------------------------------------------------------
def _bad_dirs(root: Path) -> dict[str, tuple[Path, str]]:
    """name -> (path, words the message must contain)."""
    from transformers import GPT2Config

    empty = root / "empty"
    empty.mkdir()
    gpt2 = root / "gpt2"
    GPT2Config(n_layer=2, n_embd=16, n_head=2, vocab_size=64, bos_token_id=0, eos_token_id=0).save_pretrained(gpt2)
    _tokenizer(gpt2)
    no_tok = root / "no_tokenizer"
    no_tok.mkdir()
    text = root / "notes.txt"
    text.write_text("not a model")
    return {
        "not a model": (empty, "config.json"),
        "no rotary embedding": (gpt2, "rotary"),
        "no tokenizer": (no_tok, "tokenizer"),
        "missing": (root / "nowhere", "no such file"),
        "not gguf": (text, ".gguf"),
    }


@pytest.fixture(scope="module")
def bad(tmp_path_factory, gemma_dir):
    root = tmp_path_factory.mktemp("bad")
    out = _bad_dirs(root)
    no_tok = out["no tokenizer"][0]
    (no_tok / "config.json").write_text((gemma_dir / "config.json").read_text())
    return out


@pytest.mark.parametrize("case", ["not a model", "no rotary embedding", "no tokenizer", "missing", "not gguf"])
def test_bad_paths_raise_naming_the_rule(bad, case):
    path, words = bad[case]
    with pytest.raises(ValueError, match=r"^model: ") as err:
        read_facts(path)
    assert words in str(err.value) and str(path.name) in str(err.value)
    with pytest.raises(ValueError, match=words):
        realmodel.load(path)


def test_empty_path_is_refused():
    with pytest.raises(ValueError, match="model: a path is needed"):
        check_model_path("  ")


# --------------------------------------------------------------------------------------------------
# computations against HF
# --------------------------------------------------------------------------------------------------
def test_gemma3_perplexity_equals_hf_loss(gemma, hf):
    ids = gemma.tokenize(TEXT)
    assert ids.size == 48 and ids.min() >= 1  # every word is in the vocabulary
    nll = gemma.nll(ids, head_chunk=5)
    x = torch.from_numpy(ids)[None]
    with torch.no_grad():
        out = hf(x, labels=x)
    want = -torch.log_softmax(out.logits[0, :-1].double(), -1).gather(1, x[0, 1:, None])[:, 0].numpy()
    np.testing.assert_allclose(nll, want, rtol=1e-5, atol=1e-6)
    assert nll.mean() == pytest.approx(out.loss.item(), rel=1e-6)


def test_gemma3_norms_are_after_q_norm_and_before_rotation(gemma, hf):
    from transformers.models.gemma3 import modeling_gemma3

    original = modeling_gemma3.apply_rotary_pos_emb
    ids = gemma.tokenize(TEXT)
    got = gemma.pair_norms(ids)
    assert modeling_gemma3.apply_rotary_pos_emb is original  # HF's function is put back
    assert got["q"].shape == (LAYERS, Q_HEADS, HEAD_DIM // 2) and got["k"].shape == (LAYERS, KV_HEADS, HEAD_DIM // 2)
    assert gemma.qk_norm
    x = torch.from_numpy(ids)[None]
    with torch.no_grad():
        hidden = hf(x, output_hidden_states=True).hidden_states  # the input of layer l is hidden[l]
    half = HEAD_DIM // 2
    for layer in range(LAYERS):
        block = hf.model.layers[layer]
        attn = block.self_attn
        with torch.no_grad():
            h = block.input_layernorm(hidden[layer])[0]  # (T, hidden)
            for which, proj, norm, heads in (
                ("q", attn.q_proj, attn.q_norm, Q_HEADS),
                ("k", attn.k_proj, attn.k_norm, KV_HEADS),
            ):
                raw = proj(h).view(-1, heads, HEAD_DIM)  # (T, heads, d) before the norm
                normed = norm(raw).double().numpy()
                want = np.sqrt(normed[..., :half] ** 2 + normed[..., half:] ** 2).mean(axis=0)  # (heads, pairs)
                np.testing.assert_allclose(got[which][layer], want, rtol=1e-5)
                raw = raw.double().numpy()
                before = np.sqrt(raw[..., :half] ** 2 + raw[..., half:] ** 2).mean(axis=0)
                assert not np.allclose(got[which][layer], before, rtol=1e-3)  # the norm is not skipped


def test_gemma3_runs_only_its_own_rope(gemma):
    ids = gemma.tokenize(TEXT)
    with pytest.raises(ValueError, match=r"method: .*one rope per layer type.*'linear:factor=2'"):
        gemma.nll(ids, "linear:factor=2")
    gemma.nll(ids, "default")  # the lock is released after the refusal


# --------------------------------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------------------------------
def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "posenc.realmodel", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_cli_ppl_and_norms_with_model(gemma_dir, hf, tmp_path):
    text = tmp_path / "t.txt"
    text.write_text(TEXT)
    done = _cli("ppl", "--model", str(gemma_dir), "--text", str(text), "--lengths", "32,48", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["model"] == gemma_dir.name and data["source"] == str(gemma_dir)
    x = torch.from_numpy(realmodel.load(gemma_dir).tokenize(TEXT))[None]
    for n in (32, 48):
        with torch.no_grad():
            loss = hf(x[:, :n], labels=x[:, :n]).loss.item()
        assert data["results"]["default"][str(n)]["ppl"] == pytest.approx(float(np.exp(loss)), rel=1e-5)
    assert set(data["rope"]["default"]["by_layer_type"]) == {"sliding_attention", "full_attention"}
    done = _cli("norms", "--model", str(gemma_dir), "--text", str(text), "--tokens", "40", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert np.array(data["q"]).shape == (LAYERS, Q_HEADS, 8) and np.array(data["k"]).shape == (LAYERS, KV_HEADS, 8)
    assert data["qk_norm"] is True and data["layer_types"][5] == "full_attention"
    done = _cli("facts", "--model", str(gemma_dir), cwd=tmp_path)
    assert done.returncode == 0 and json.loads(done.stdout)["rope"]["sliding_attention"]["rope_theta"] == 10000.0


@pytest.mark.parametrize("case", ["not a model", "no rotary embedding", "no tokenizer", "missing"])
def test_cli_exits_2_naming_what_is_wrong(bad, case, tmp_path):
    path, words = bad[case]
    done = _cli("norms", "--model", str(path), "--tokens", "8", cwd=tmp_path)
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]  # transformers may log above it
    assert last.startswith("error: model: ") and words in last


def test_cli_refuses_a_scaled_rope_on_a_model_with_rope_per_layer_type(gemma_dir, tmp_path):
    done = _cli("ppl", "--model", str(gemma_dir), "--lengths", "16", "--methods", "yarn:factor=2", cwd=tmp_path)
    assert done.returncode == 2 and "one rope per layer type" in done.stderr


def test_models_read_from_paths_are_bounded_in_memory(tmp_path):
    """No sequence of paths makes the process keep more than MAX_PATH_MODELS of them: the oldest goes."""
    from posenc.realmodel import model as rm

    dirs = []
    for i in range(rm.MAX_PATH_MODELS + 1):
        folder = tmp_path / f"g{i}"
        _gemma(folder, rope_scaling=None)
        dirs.append(folder)
    first = realmodel.load(dirs[0])
    assert realmodel.load(dirs[0]) is first  # kept while within the bound
    for folder in dirs[1:]:
        realmodel.load(folder)
    held = [k for k in rm._LOADED if k[0].startswith(str(tmp_path))]
    assert len(held) == rm.MAX_PATH_MODELS
    assert str(dirs[0].resolve()) not in {k[0] for k in held}  # the oldest was let go
    assert realmodel.load(dirs[0]) is not first  # and is read again when asked for
