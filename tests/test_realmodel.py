"""posenc.realmodel against HF transformers: a tiny random Llama (fast), HF's own rope functions and
hand-written loops as the references. The real GGUF file is tested in tests/test_realmodel_file.py."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from posenc import realmodel, stats
from posenc.methods import ROPE_METHODS
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


def test_passkey_keys_extend_the_earlier_rounds_and_pair_the_ropes():
    """Round 0 of the keys is the single round of earlier runs (seed 0, lengths × depths), so its trials are kept;
    every rope gets the same keys (paired), and the summary's counts and Wilson intervals come from the rows."""
    from posenc.realmodel.__main__ import passkey, passkey_cells

    one = passkey_cells([200, 400], [0.2, 0.8], 0, 1)
    four = passkey_cells([200, 400], [0.2, 0.8], 0, 4)
    rng = np.random.default_rng(0)
    assert [k for *_, k in one] == [int(rng.integers(10_000, 100_000)) for _ in range(4)]
    assert set(one) <= set(four) and len(four) == 16 and len({k for *_, k in four}) == 16
    assert [(n, d) for n, d, _ in four[:8]] == [(200, 0.2), (200, 0.8)] * 4  # length by length

    class Fake:
        def tokenize(self, text):
            return np.arange(len(text.split()))

        def passkey(self, prompt, answer, method):
            return method == "a" or len(prompt) % 2 == 0, -0.5

    out = passkey(Fake(), ["a", "b"], [200], [0.2, 0.8], seed=0, keys_per_depth=3)
    assert [r["key"] for r in out["trials"]["a"]] == [r["key"] for r in out["trials"]["b"]]
    hits = sum(r["correct"] for r in out["trials"]["b"])
    assert out["summary"]["b"]["200"] == {"found": hits, "trials": 6, "ci95": list(stats.wilson_interval(hits, 6))}


def test_share_by_head_and_is_own_rope():
    p = np.ones((2, 3, 4))
    p[1, 2] = [1.0, 1.0, 1.0, 5.0]
    got = realmodel.share_by_head(p, [False, False, False, True])
    assert got[0, 0] == pytest.approx(0.25) and got[1, 2] == pytest.approx(5 / 8)
    assert parse_method("dynamic:factor=2").is_own_rope(4096)
    assert not parse_method("dynamic:factor=2").is_own_rope(16384)
    assert not parse_method("yarn:factor=2").is_own_rope(512)  # YaRN's attention factor is 1.069


# ---------------------------------------------------------------------------------------------- issue #37/#38
def _rot(a: float) -> np.ndarray:
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def test_contribution_spread_is_the_variance_across_keys_of_each_pairs_rotated_term():
    """Against a hand loop: rotate each pair (dims j and j + d/2) by its own 2×2 matrix at its position, take the
    2-d dot product with every key t ≤ i, and the population variance over those keys; mean over queries ≥ 5."""
    rng = np.random.default_rng(3)
    L, H, KV, T, d, q0 = 2, 4, 2, 24, 8, 5
    q, k = rng.normal(size=(L, H, T, d)), rng.normal(size=(L, KV, T, d))
    theta = rng.uniform(0, 1.5, d // 2)
    per_query = np.zeros((L, H, T - q0, d // 2))
    for layer in range(L):
        for h in range(H):
            g = h // (H // KV)
            for j in range(d // 2):
                for i in range(q0, T):
                    qi = _rot(i * theta[j]) @ q[layer, h, i, [j, j + d // 2]]
                    c = [qi @ (_rot(t * theta[j]) @ k[layer, g, t, [j, j + d // 2]]) for t in range(i + 1)]
                    per_query[layer, h, i - q0, j] = np.var(c)
    got = realmodel.contribution_spread(q, k, theta, min_query=q0)
    np.testing.assert_allclose(got, per_query.mean(axis=2), rtol=1e-10, atol=1e-12)
    blocks = realmodel.contribution_spread(q, k, theta, min_query=q0, block=6)  # 19 queries: 3 blocks, 1 dropped
    np.testing.assert_allclose(blocks[1], per_query[:, :, 6:12].mean(axis=2), rtol=1e-10, atol=1e-12)
    assert blocks.shape == (3, L, H, d // 2)
    # a pair that does not rotate and a key that never changes: every key gets the same term, no variance
    k_const = np.broadcast_to(k[:, :, :1], k.shape).copy()
    flat = realmodel.contribution_spread(q, k_const, np.zeros(d // 2), min_query=q0)
    np.testing.assert_allclose(flat, 0.0, atol=1e-12)
    with pytest.raises(ValueError, match="min_query"):
        realmodel.contribution_spread(q, k, theta, min_query=T)


def test_spread_share_is_the_slow_pairs_fraction_of_the_summed_variance():
    rng = np.random.default_rng(0)
    v = rng.uniform(0.5, 1.5, size=(12, 3, 2, 4))
    slow = np.array([False, False, True, True])
    est, lo, hi = realmodel.spread_share(v, slow)
    m = v.mean(axis=0)
    assert est == pytest.approx(m[..., 2:].sum() / m.sum())
    assert lo <= est <= hi and 0 < lo and hi < 1


def test_each_realmodel_module_imports_only_the_ones_above_it():
    """#38: no import loop, hidden or not. No submodule imports the package itself (its __init__), model.py only
    facts, methods and analysis, and __init__ never imports model at import time (only inside load())."""
    import ast

    root = Path(realmodel.__file__).parent
    allowed = {
        "facts": set(),
        "methods": {"facts"},
        "texts": set(),
        "analysis": set(),
        "shipped": set(),
        "model": {"facts", "methods", "analysis"},
        "__main__": {"facts", "methods", "analysis", "shipped", "texts", "model"},
    }
    for name, ok in allowed.items():
        tree = ast.parse((root / f"{name}.py").read_text(encoding="utf-8"))
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                assert node.module, f"{name}.py imports the package's __init__ (from . import …)"
                found.add(node.module.split(".")[0])
            if (
                isinstance(node, ast.ImportFrom)
                and node.level == 0
                and (node.module or "").startswith("posenc.realmodel")
            ):
                raise AssertionError(f"{name}.py imports {node.module} absolutely")
        assert found <= ok, (name, found - ok)
    init = ast.parse((root / "__init__.py").read_text(encoding="utf-8"))
    top = {n.module for n in init.body if isinstance(n, ast.ImportFrom) and n.level == 1}
    assert "model" not in top and top == {"analysis", "facts", "methods", "shipped", "texts"}


def test_long_by_text_keeps_one_run_per_text_where_it_can():
    rec = lambda v: {"ppl": v, "mean_nll": v, "nll_by_chunk": [v, v], "scored": 3}  # noqa: E731
    data = {
        "text": "argparse.py",
        "tokens": 100,
        "long": {
            "length": 16,
            "chunk": 8,
            "date": "d1",
            "results": {"default": {"16": rec(1.0)}, "ntk": {"16": rec(2.0)}},
        },
        "texts": {
            "length": 16,
            "chunk": 8,
            "date": "d2",
            "texts": {
                "argparse.py": {"tokens": 100, "results": {"default": {"16": rec(9.0)}, "yarn": {"16": rec(3.0)}}},
                "pydoc_data.topics": {"tokens": 50, "results": {"default": {"16": rec(4.0)}}},
                "typing.py": {"tokens": 70, "results": {}},
            },
        },
    }
    got = realmodel.long_by_text(data)
    assert list(got) == ["argparse.py", "pydoc_data.topics"]  # a text with no results yet is left out
    a = got["argparse.py"]
    assert a["results"]["default"]["ppl"] == 1.0  # the long part's run, not the second one
    assert a["results"]["yarn"]["ppl"] == 3.0 and a["results"]["ntk"]["ppl"] == 2.0 and a["date"] == "d1"
    assert got["pydoc_data.topics"]["tokens"] == 50 and got["pydoc_data.topics"]["date"] == "d2"
    assert realmodel.long_by_text({}) == {}


def test_control_differences_pair_the_same_tokens_and_the_estimate_brackets_their_mean():
    rng = np.random.default_rng(1)
    inside = rng.normal(1.0, 0.3, 64)
    past = inside + 0.5 + rng.normal(0, 0.1, 64) + np.linspace(0, 0.4, 64)  # a trend past L
    part = {"texts": {"a.py": {"control": {"default": {"inside": list(inside), "past": list(past)}}}}}
    diffs = realmodel.control_differences(part)
    np.testing.assert_allclose(diffs["default"]["a.py"], past - inside)
    est, lo, hi = realmodel.control_estimates(part)["default"]["a.py"]
    assert est == pytest.approx(np.mean(past - inside)) and lo < est < hi
    iid = stats.bootstrap(np.mean, past - inside)  # a moving-block interval is wider than the iid one on a trend
    assert hi - lo > iid[2] - iid[1]


def test_read_text_reads_the_reference_manuals_topics():
    from pydoc_data.topics import topics

    text = realmodel.read_text("pydoc_data.topics")
    assert text.startswith(topics[sorted(topics)[0]]) and all(topics[k] in text for k in list(topics)[:5])
    assert realmodel.read_text("argparse.py") == realmodel.default_text("argparse.py")
    with pytest.raises(ValueError, match="name"):
        realmodel.read_text("no such text")


def test_the_control_scores_the_last_tokens_of_the_long_pass_inside_a_pass_of_the_trained_length():
    """The control's two slices hold the same tokens: with a fake model whose loss at a token is its id, the past
    and inside means agree exactly, and the long record is the full pass's."""
    import types

    from posenc.realmodel.__main__ import control

    class Fake:
        facts = types.SimpleNamespace(trained_length=256)

        def nll(self, ids, method):
            return np.asarray(ids)[1:].astype(float)

    ids = np.arange(1000)
    record, pair = control(Fake(), ids, "default", n=512, tail=128, block=16)
    assert pair["past"] == pair["inside"] == [float(np.mean(np.arange(384 + 16 * b, 400 + 16 * b))) for b in range(8)]
    assert record["scored"] == 511 and record["mean_nll"] == pytest.approx(np.mean(np.arange(1, 512)))


def test_ship_texts_keeps_the_shipped_pairs_and_computes_the_rest_rope_by_rope():
    import types

    from posenc.realmodel import __main__ as cli

    calls: list[int] = []

    class Fake:
        facts = types.SimpleNamespace(trained_length=8192)

        def tokenize(self, text):
            return np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int64)

        def nll(self, ids, method):
            calls.append(len(ids))
            return np.asarray(ids)[1:] / 100.0

    kept = {"results": {"default": {"16384": {"ppl": -1.0}}}, "control": {"default": {"past": [0.0], "inside": [0.0]}}}
    data = {"texts": {"texts": {"pydoc_data.topics": kept}, "runs": [{"date": "earlier"}]}}
    cli.ship_texts(Fake(), data, {"date": "now"}, lambda: None, None)
    part = data["texts"]
    first = next(iter(cli.SHIP_TEXTS.values()))
    assert part["texts"]["pydoc_data.topics"]["results"]["default"] == {"16384": {"ppl": -1.0}}  # kept, not redone
    assert set(part["texts"]["typing.py"]["results"]) == set(first) and part["runs"][-1] == {"date": "now"}
    n_pairs = sum(len(m) for m in cli.SHIP_TEXTS.values()) - 1
    assert calls == [16384, 8192] * n_pairs and part["complete"]


@pytest.mark.parametrize("method", ["norope", *ROPE_METHODS])
def test_the_scores_cache_key_drops_only_the_values_a_method_does_not_read(method):
    """explorer.compute.realmodel.method_key: a link moving an unread slider reuses the cached scores; the
    rope block the model then runs with must be the same one (blocks compared, not names)."""
    from explorer.compute.realmodel import method_key

    for factor, keep in [(2.0, 0.25), (4.5, 0.875), (8.0, 0.0)]:
        given = realmodel.method_for(method, factor=factor, keep=keep)
        name, kept_factor, kept_keep = method_key(method, factor, keep)
        keyed = realmodel.method_for(name, factor=kept_factor, keep=kept_keep)
        assert given.block() == keyed.block() and given.stopped == keyed.stopped
    # and what it keeps does matter: p-RoPE's fraction, every scaling method's factor
    if method == "proportional":
        assert method_key(method, 2.0, 0.25) != method_key(method, 2.0, 0.5)
    if method not in ("norope", "default"):
        assert method_key(method, 2.0, 0.25) != method_key(method, 4.0, 0.25)
