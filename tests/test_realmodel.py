"""posenc.realmodel against HF transformers: a tiny random Llama (fast), HF's own rope functions and
hand-written loops as the references. The real GGUF file is tested in tests/test_realmodel_file.py."""

from __future__ import annotations

import importlib.util
import math
from typing import Any, ClassVar

import numpy as np
import pytest

from posenc import realmodel, stats
from posenc.realmodel import MODEL, HeadRules, ModelFacts, head_labels, parse_method

if importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None:
    pytest.skip("torch and transformers are not installed", allow_module_level=True)

# torch, transformers and posenc.realmodel.model (which imports torch) are imported when this module's
# first test runs, not when pytest collects it: each worker collects every module, and these imports
# take about 3 s.
torch: Any = None
LlamaConfig: Any = None
LlamaForCausalLM: Any = None
LlamaRotaryEmbedding: Any = None
RealModel: Any = None


@pytest.fixture(scope="module", autouse=True)
def _imports():
    global torch, LlamaConfig, LlamaForCausalLM, LlamaRotaryEmbedding, RealModel
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding

    from posenc.realmodel.model import RealModel


# --------------------------------------------------------------------------------------------------
# input sanity
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("foo", "'foo'"),
        ("yarn:fctor=2", "'fctor'"),
        ("linear:factor=abc", "factor"),
        ("linear:factor=-1", "factor"),
        ("default/stop=5-40", "5-40"),
        ("default/stop=9-3", "9-3"),
        ("linear", "factor"),  # required by HF
        ("ntk:beta_fast=3", "'beta_fast'"),
        ("", "method"),
    ],
)
def test_bad_methods_are_refused_naming_the_fault(text, named):
    with pytest.raises(ValueError, match=None) as info:
        parse_method(text)
    assert named in str(info.value)


def test_passkey_prompt_and_interval_inputs():
    with pytest.raises(ValueError, match="depth"):
        realmodel.passkey_prompt(12345, 10, 1.5)
    with pytest.raises(ValueError, match="key"):
        realmodel.passkey_prompt(123456, 10, 0.5)
    with pytest.raises(ValueError, match="name"):
        realmodel.default_text("../etc/passwd")
    with pytest.raises(ValueError, match="chunk"):
        realmodel.chunk_means([1.0], 0)


# --------------------------------------------------------------------------------------------------
# the frequencies: posenc's equal HF's rotary_emb for the same block (float32, rtol 1e-6)
# --------------------------------------------------------------------------------------------------
def _hf_rope(block: dict, seq_len: int, facts: ModelFacts = MODEL) -> tuple[np.ndarray, float]:
    """What HF's LlamaRotaryEmbedding runs with for ``block`` on a sequence of ``seq_len`` tokens."""
    config = LlamaConfig(
        hidden_size=facts.head_dim * facts.q_heads,
        num_attention_heads=facts.q_heads,
        num_key_value_heads=facts.kv_heads,
        head_dim=facts.head_dim,
        num_hidden_layers=1,
        max_position_embeddings=facts.trained_length,
        rope_parameters=dict(block),
    )
    rot = LlamaRotaryEmbedding(config)
    x = torch.zeros(1, seq_len, 8)
    rot(x, torch.arange(seq_len)[None])  # dynamic NTK updates inv_freq here (HF's dynamic_rope_update)
    return rot.inv_freq.double().numpy(), float(rot.attention_scaling)


CASES = [
    ("default", {"rope_type": "default", "rope_theta": 1e5}, 512),
    ("linear:factor=2", {"rope_type": "linear", "rope_theta": 1e5, "factor": 2.0}, 512),
    (  # no 'ntk' rope_type in HF: a default block with the larger base b·s^(d/(d−2))
        "ntk:factor=2",
        {"rope_type": "default", "rope_theta": 1e5 * 2.0 ** (64 / 62)},
        512,
    ),
    ("dynamic:factor=2", {"rope_type": "dynamic", "rope_theta": 1e5, "factor": 2.0}, 4096),
    ("dynamic:factor=2", {"rope_type": "dynamic", "rope_theta": 1e5, "factor": 2.0}, 16384),
    (
        "yarn:factor=2",
        {"rope_type": "yarn", "rope_theta": 1e5, "factor": 2.0, "original_max_position_embeddings": 8192},
        512,
    ),
    (
        "yarn:factor=4:beta_fast=16:truncate=false",
        {
            "rope_type": "yarn",
            "rope_theta": 1e5,
            "factor": 4.0,
            "beta_fast": 16.0,
            "truncate": False,
            "original_max_position_embeddings": 8192,
        },
        512,
    ),
    (
        "llama3:factor=2",
        {
            "rope_type": "llama3",
            "rope_theta": 1e5,
            "factor": 2.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 8192,
        },
        512,
    ),
    (
        "proportional:partial_rotary_factor=0.25",
        {"rope_type": "proportional", "rope_theta": 1e5, "partial_rotary_factor": 0.25},
        512,
    ),
]


@pytest.mark.parametrize(("method", "block", "seq_len"), CASES, ids=[f"{c[0]}@{c[2]}" for c in CASES])
def test_frequencies_equal_hf_rotary_emb(method, block, seq_len):
    inv, af = parse_method(method).rope(seq_len)
    hf_inv, hf_af = _hf_rope(block, seq_len)
    np.testing.assert_allclose(np.float32(inv), np.float32(hf_inv), rtol=1e-6)
    assert af == pytest.approx(hf_af, rel=1e-6)


def test_dynamic_follows_one_config_factor():
    """HF's dynamic NTK: nothing changes up to the trained length; past it the base grows with T."""
    d, b, s, L = 64, 1e5, 2.0, 8192
    for T in (512, 8192):
        np.testing.assert_allclose(parse_method("dynamic:factor=2").rope(T)[0], parse_method("default").rope(T)[0])
    T = 16384
    base = b * (s * T / L - (s - 1)) ** (d / (d - 2))  # REFERENCE.md
    want = base ** (-np.arange(0, d, 2) / d)
    np.testing.assert_allclose(parse_method("dynamic:factor=2").rope(T)[0], want, rtol=1e-12)


def test_norope_and_stopped_pairs_by_hand():
    theta = 1e5 ** (-np.arange(0, 64, 2) / 64)
    assert np.all(parse_method("norope").rope(512)[0] == 0)
    inv, af = parse_method("default/stop=20-31").rope(512)
    np.testing.assert_allclose(inv[:20], theta[:20], rtol=1e-12)
    assert np.all(inv[20:] == 0) and af == 1.0
    inv, _ = parse_method("linear:factor=4/stop=0-0").rope(512)
    assert inv[0] == 0 and inv[1] == pytest.approx(theta[1] / 4)


def test_wavelengths_and_turns():
    lam = MODEL.wavelengths()
    assert lam[0] == pytest.approx(2 * math.pi)
    assert lam[31] == pytest.approx(2 * math.pi * 1e5 ** (62 / 64))
    turns = MODEL.turns_in_training()
    # REFERENCE.md: pairs 0–19 complete a turn within 8,192 tokens, 20–31 do not
    assert np.all(turns[:20] >= 1) and np.all(turns[20:] < 1)


# --------------------------------------------------------------------------------------------------
# a tiny random Llama: our computations equal HF's forward
# --------------------------------------------------------------------------------------------------
TINY = ModelFacts(
    name="tiny",
    package="",
    version="",
    gguf="",
    parameters="",
    weights="",
    layers=2,
    q_heads=4,
    kv_heads=2,
    head_dim=16,
    rope_theta=1e5,
    trained_length=64,
)


def _tiny(block: dict | None = None) -> LlamaForCausalLM:
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=97,
        hidden_size=48,
        intermediate_size=96,
        num_hidden_layers=TINY.layers,
        num_attention_heads=TINY.q_heads,
        num_key_value_heads=TINY.kv_heads,
        head_dim=TINY.head_dim,
        max_position_embeddings=TINY.trained_length,
        rope_parameters=block or {"rope_type": "default", "rope_theta": TINY.rope_theta},
        attn_implementation="eager",
    )
    model = LlamaForCausalLM(config).eval()
    with torch.no_grad():  # larger weights than the init's 0.02, so attention is not uniform
        for p in model.parameters():
            p.mul_(8.0)
    return model


@pytest.fixture(scope="module")
def tiny() -> RealModel:
    return RealModel(TINY, _tiny(), tokenizer=None)


IDS = np.random.default_rng(3).integers(0, 97, size=40)


@pytest.mark.parametrize(
    ("method", "block"),
    [
        ("default", None),
        ("linear:factor=2", {"rope_type": "linear", "rope_theta": 1e5, "factor": 2.0}),
        (
            "yarn:factor=4",
            {"rope_type": "yarn", "rope_theta": 1e5, "factor": 4.0, "original_max_position_embeddings": 64},
        ),
    ],
)
def test_nll_equals_hf_loss(tiny, method, block):
    nll = tiny.nll(IDS, method, head_chunk=7)  # chunks that do not divide the length
    hf = _tiny(block)
    x = torch.from_numpy(IDS)[None]
    with torch.no_grad():
        logits = hf(x).logits[0, :-1].double()
        loss = hf(x, labels=x).loss.item()
    want = -torch.log_softmax(logits, -1).gather(1, x[0, 1:, None])[:, 0].numpy()
    np.testing.assert_allclose(nll, want, rtol=1e-5, atol=1e-6)
    assert nll.mean() == pytest.approx(loss, rel=1e-5)
    assert np.all(tiny.inv_freq() == _tiny().model.rotary_emb.inv_freq.double().numpy())  # put back


def test_a_scaled_rope_changes_the_loss(tiny):
    assert not np.allclose(tiny.nll(IDS, "default"), tiny.nll(IDS, "linear:factor=8"))
    # a stopped pair equals HF running with that pair's frequency set to 0 by hand
    hf = _tiny()
    hf.model.rotary_emb.inv_freq[3:5] = 0.0
    x = torch.from_numpy(IDS)[None]
    with torch.no_grad():
        loss = hf(x, labels=x).loss.item()
    assert tiny.nll(IDS, "default/stop=3-4").mean() == pytest.approx(loss, rel=1e-5)


def test_pair_norms_equal_a_loop_over_hf_projections(tiny):
    got = tiny.pair_norms(IDS)
    hf = _tiny()
    x = torch.from_numpy(IDS)[None]
    with torch.no_grad():
        hidden = hf(x, output_hidden_states=True).hidden_states  # input of layer l = hidden[l]
    d = TINY.head_dim
    for layer in range(TINY.layers):
        attn = hf.model.layers[layer].self_attn
        h = hf.model.layers[layer].input_layernorm(hidden[layer])[0]
        for which, proj, heads in (("q", attn.q_proj, TINY.q_heads), ("k", attn.k_proj, TINY.kv_heads)):
            out = proj(h).detach().double().numpy()  # (T, heads·d)
            for head in range(heads):
                for j in range(d // 2):
                    a, b = out[:, head * d + j], out[:, head * d + j + d // 2]
                    want = np.mean(np.sqrt(a * a + b * b))
                    assert got[which][layer, head, j] == pytest.approx(want, rel=1e-5)


def test_attention_summaries_equal_a_loop_over_hf_weights(tiny):
    rules = HeadRules(min_query=4, window=3)
    got = tiny.attention(IDS, rules=rules)
    hf = _tiny()
    with torch.no_grad():
        att = hf(torch.from_numpy(IDS)[None], output_attentions=True).attentions
    T = len(IDS)
    for layer in range(TINY.layers):
        w = att[layer][0].double().numpy()  # (heads, T, T)
        for head in range(TINY.q_heads):
            qs = range(rules.min_query, T)
            assert got["sink"][layer, head] == pytest.approx(np.mean([w[head, i, 0] for i in qs]), rel=1e-5, abs=1e-7)
            assert got["previous"][layer, head] == pytest.approx(
                np.mean([w[head, i, i - 1] for i in qs]), rel=1e-5, abs=1e-7
            )
            local = np.mean([sum(w[head, i, j] for j in range(max(0, i - 2), i + 1)) for i in qs])
            assert got["local"][layer, head] == pytest.approx(local, rel=1e-5, abs=1e-7)
            for delta in (0, 1, 5, T - 1):
                vals = [w[head, i, i - delta] for i in qs if i - delta >= 0]
                assert got["profile"][layer, head, delta] == pytest.approx(np.mean(vals), rel=1e-5, abs=1e-7)
    assert got["label"].shape == (TINY.layers, TINY.q_heads)


def test_bad_token_counts(tiny):
    with pytest.raises(ValueError, match="tokens"):
        tiny.nll(IDS[:1])
    with pytest.raises(ValueError, match="tokens"):
        tiny.nll(np.zeros(realmodel.MAX_TOKENS + 1, dtype=int))


# --------------------------------------------------------------------------------------------------
# rules, intervals
# --------------------------------------------------------------------------------------------------
def test_head_labels_first_rule_wins():
    labels = head_labels(np.array([0.6, 0.1, 0.1, 0.1]), np.array([0.6, 0.6, 0.1, 0.1]), np.array([0.9, 0.9, 0.9, 0.2]))
    assert labels.tolist() == ["sink", "previous", "local", "spread"]


def test_passkey_prompt_places_the_key():
    p0, a = realmodel.passkey_prompt(12345, 10, 0.0)
    p1, _ = realmodel.passkey_prompt(12345, 10, 1.0)
    assert a == " 12345"
    assert p0.index("12345") < p0.index("grass") and p1.index("12345") > p1.rindex("grass")
    assert p0.endswith("The pass key is")


def test_block_norms_average_to_the_whole(tiny):
    whole = tiny.pair_norms(IDS)
    per = tiny.pair_norms(IDS, block=8)  # 40 tokens = 5 blocks of 8
    assert per["q"].shape == (5, TINY.layers, TINY.q_heads, TINY.head_dim // 2)
    np.testing.assert_allclose(per["q"].mean(axis=0), whole["q"], rtol=1e-5)
    np.testing.assert_allclose(per["k"].mean(axis=0), whole["k"], rtol=1e-5)


def test_pair_products_follow_the_kv_groups():
    q = np.arange(1, 1 + 2 * 4 * 3, dtype=float).reshape(2, 4, 3)  # layers 2, q heads 4, pairs 3
    k = np.array([[[1.0, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]]])  # kv heads 2: q heads 0,1 -> 0; 2,3 -> 1
    p = realmodel.pair_products(q, k)
    for layer in range(2):
        for h in range(4):
            assert p[layer, h].tolist() == (q[layer, h] * k[layer, h // 2]).tolist()
    assert realmodel.share(p, [False, False, True]) == pytest.approx(p[..., 2].sum() / p.sum())


def test_mean_difference_is_paired():
    a = np.random.default_rng(2).normal(size=512)
    est, lo, hi = realmodel.mean_difference(a + 0.3, a, block=64)
    assert est == pytest.approx(0.3) and lo == pytest.approx(0.3) and hi == pytest.approx(0.3)
    with pytest.raises(ValueError, match="block must be <= 256, got 1000"):
        realmodel.mean_difference(a, a, block=1000)


def test_other_pages_never_import_the_model_or_its_libraries():
    """Every page but the real model's runs without torch, transformers or the model (AppTest in a subprocess)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    code = (
        "import sys\n"
        "from streamlit.testing.v1 import AppTest\n"
        "for script in ['app.py', 'pages/1_Sinusoidal_heatmap.py', 'pages/5_Context_extension.py', "
        "'pages/9_Model_configs.py', 'pages/10_Inside_a_real_model.py']:\n"
        "    at = AppTest.from_file(script, default_timeout=120)\n"
        "    if script.startswith('pages/10'):\n"
        "        at.query_params['rm_view'] = 'Long context'\n"
        "    at.run()\n"
        "    assert not at.exception, (script, at.exception)\n"
        "    bad = [m for m in ('transformers', 'gguf', 'accelerate', 'posenc.realmodel.model') if m in sys.modules]\n"
        "    assert not bad, (script, bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]


def test_passkey_grid_keeps_earlier_trials_and_computes_the_rest():
    from posenc.realmodel.__main__ import passkey

    class Fake:
        calls: ClassVar[list[int]] = []

        def tokenize(self, text):
            return np.arange(len(text.split()))

        def passkey(self, prompt, answer, method):
            self.calls.append(len(prompt))
            return True, -0.5

    first = passkey(Fake(), ["default"], [200], [0.2, 0.8], seed=0)
    assert len(Fake.calls) == 2 and first["summary"]["default"]["200"]["found"] == 2
    Fake.calls.clear()
    again = passkey(Fake(), ["default"], [200, 400], [0.2, 0.8], seed=0, reuse=first["trials"])
    assert len(Fake.calls) == 2  # only the two new cells at 400 words
    assert again["trials"]["default"][:2] == first["trials"]["default"]
    assert again["summary"]["default"]["400"] == {
        "found": 2,
        "trials": 2,
        "ci95": list(stats.wilson_interval(2, 2)),
    }


def test_share_by_head_and_is_own_rope():
    p = np.ones((2, 3, 4))
    p[1, 2] = [1.0, 1.0, 1.0, 5.0]
    got = realmodel.share_by_head(p, [False, False, False, True])
    assert got[0, 0] == pytest.approx(0.25) and got[1, 2] == pytest.approx(5 / 8)
    assert parse_method("dynamic:factor=2").is_own_rope(4096)
    assert not parse_method("dynamic:factor=2").is_own_rope(16384)
    assert not parse_method("yarn:factor=2").is_own_rope(512)  # YaRN's attention factor is 1.069
