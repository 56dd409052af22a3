"""Issue #14: proportional RoPE, per-layer rope, NoPE layers, Llama 4's temperature, M-RoPE and MLA in the
parser, HF 5.23's reading rules, the new presets and the configs page's shareable text.

Every formula is re-derived here from HF transformers' definitions (typed in, not imported from posenc):
``_compute_proportional_rope_parameters``, ``Llama4TextAttention``'s ``attn_scales``, the config
classes' layer rules, and ``standardize_rope_params``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc
from explorer.site import configs as site
from posenc.config import parse_model_config
from posenc.layers import hybrid_layer_plan
from posenc.models import PRESETS, preset_config


# --------------------------------------------------------------------------------------------------
# independent references (HF's code, re-typed)
# --------------------------------------------------------------------------------------------------
def ref_default(base: float, dim: int) -> np.ndarray:
    return np.array([1.0 / base ** (i / dim) for i in range(0, dim, 2)])


def ref_proportional(base: float, head_dim: int, p: float = 1.0, factor: float = 1.0) -> np.ndarray:
    """HF 5.23: rope_angles = int(p * head_dim // 2); 1/base^(arange(0, 2·rope_angles, 2)/head_dim); zeros; /factor."""
    rope_angles = int(p * head_dim // 2)
    kept = [1.0 / base ** (i / head_dim) for i in range(0, 2 * rope_angles, 2)]
    return np.array(kept + [0.0] * (head_dim // 2 - rope_angles)) / factor


def ref_llama3(base, dim, factor, lo, hi, length):
    out = []
    for th in ref_default(base, dim):
        lam = 2 * math.pi / th
        if lam < length / hi:
            out.append(th)
        elif lam > length / lo:
            out.append(th / factor)
        else:
            sm = (length / lam - lo) / (hi - lo)
            out.append((1 - sm) * th / factor + sm * th)
    return np.array(out)


def ref_temperature(pos, floor_scale, attn_scale):
    return [math.log(math.floor((p + 1.0) / floor_scale) + 1.0) * attn_scale + 1.0 for p in pos]


def ref_no_rope_layers(n, interval):
    return [int((i + 1) % interval != 0) for i in range(n)]


def ref_sliding_pattern(n, pattern):
    return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(n)]


# --------------------------------------------------------------------------------------------------
# 1. proportional
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "head_dim, base, p, factor",
    [(256, 1e6, 0.25, 1.0), (512, 1e6, 0.25, 8.0), (128, 1e4, 0.5, 2.0), (64, 1e4, 1.0, 1.0), (96, 5e5, 0.3, 1.0)],
)
def test_proportional_equals_hfs_function(head_dim, base, p, factor):
    block = {"rope_type": "proportional", "rope_theta": base, "partial_rotary_factor": p, "factor": factor}
    inv, af = posenc.rope_inverse_frequencies(block, head_dim, max_position_embeddings=4096)
    np.testing.assert_allclose(inv, ref_proportional(base, head_dim, p, factor), rtol=1e-13, atol=0)
    assert inv.shape == (head_dim // 2,) and af == 1.0


def test_proportional_gemma4_like_numbers_by_hand():
    # head_dim 256, p 0.25: int(0.25 * 256 // 2) = 32 kept pairs; θ_1 = 1e6^(-2/256)
    inv, _ = posenc.rope_inverse_frequencies(
        {"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 0.25}, 256, max_position_embeddings=1
    )
    assert np.count_nonzero(inv) == 32 and inv[0] == 1.0
    assert inv[1] == pytest.approx(1e6 ** (-2 / 256), rel=1e-15)
    assert inv[31] == pytest.approx(1e6 ** (-62 / 256), rel=1e-15)


@settings(max_examples=40, deadline=None)
@given(half=st.integers(1, 256), base=st.floats(2.0, 1e7))
def test_proportional_with_factor_1_and_p_1_is_default(half, base):
    d = 2 * half
    a, _ = posenc.rope_inverse_frequencies(
        {"rope_type": "proportional", "rope_theta": base}, d, max_position_embeddings=1
    )
    b, _ = posenc.rope_inverse_frequencies({"rope_type": "default", "rope_theta": base}, d, max_position_embeddings=1)
    np.testing.assert_allclose(a, b, rtol=1e-14)


@settings(max_examples=40, deadline=None)
@given(half=st.integers(1, 128), p=st.floats(0.0, 1.0), pos=st.integers(0, 10**6))
def test_proportional_zeroed_pairs_never_rotate(half, p, pos):
    d = 2 * half
    block = {"rope_type": "proportional", "partial_rotary_factor": p}
    inv, _ = posenc.rope_inverse_frequencies(block, d, max_position_embeddings=1)
    kept = int(p * d // 2)
    x = np.arange(1.0, d + 1.0)
    out = posenc.apply_rope(x[None, :], [pos], inv_freq=inv)[0]
    zero_pairs = np.arange(kept, half)
    for j in zero_pairs:  # half layout: pair j is (x_j, x_{j+d/2})
        assert out[j] == x[j] and out[j + half] == x[j + half]


def test_proportional_bad_values_are_named():
    with pytest.raises(ValueError, match=r"partial_rotary_factor"):
        posenc.rope_inverse_frequencies(
            {"rope_type": "proportional", "partial_rotary_factor": 1.5}, 64, max_position_embeddings=1
        )
    with pytest.raises(ValueError, match=r"\['factor'\]"):
        posenc.rope_inverse_frequencies({"rope_type": "proportional", "factor": -1}, 64, max_position_embeddings=1)


def test_proportional_in_the_parser():
    text = json.dumps(
        {
            "model_type": "gemma4_text",
            "head_dim": 256,
            "max_position_embeddings": 131072,
            "rope_parameters": {"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 0.25},
        }
    )
    parsed = parse_model_config(text)
    assert parsed.ok, parsed.errors
    inv, _ = parsed.inverse_frequencies()
    np.testing.assert_allclose(inv, ref_proportional(1e6, 256, 0.25), rtol=1e-13)


# --------------------------------------------------------------------------------------------------
# 2. Llama 4's temperature
# --------------------------------------------------------------------------------------------------
def test_attention_temperature_equals_hfs():
    pos = [0, 1, 8190, 8191, 8192, 16382, 16383, 10**6, 10_485_759]
    got = posenc.attention_temperature(pos, floor_scale=8192, attn_scale=0.1)
    np.testing.assert_allclose(got, ref_temperature(pos, 8192, 0.1), rtol=1e-15)
    assert got[2] == 1.0 and got[3] == pytest.approx(1 + 0.1 * math.log(2))  # the first step is at p + 1 = 8192


def test_attention_temperature_rejects_bad_input_by_name():
    with pytest.raises(ValueError, match="floor_scale"):
        posenc.attention_temperature([1], floor_scale=0, attn_scale=0.1)
    with pytest.raises(ValueError, match="positions"):
        posenc.attention_temperature([-1], floor_scale=8192, attn_scale=0.1)


# --------------------------------------------------------------------------------------------------
# 3. the table of configs: one per family, each layer checked against HF's rules by hand
# --------------------------------------------------------------------------------------------------
def _parsed(key):
    parsed = preset_config(key)
    assert parsed.ok, parsed.errors
    return parsed


def test_gemma3_layers():
    p = _parsed("gemma3-4b")
    assert p.num_hidden_layers == 34 and p.layer_types == ref_sliding_pattern(34, 6)
    full = [i for i, t in enumerate(p.layer_types) if t == "full_attention"]
    assert full == [5, 11, 17, 23, 29]
    for i in range(34):
        inv, af = p.layer_rope(i)
        if i in full:  # base 1e6, linear ×8
            np.testing.assert_allclose(inv, ref_default(1e6, 256) / 8.0, rtol=1e-13)
        else:  # rope_local_base_freq 1e4, no scaling
            np.testing.assert_allclose(inv, ref_default(1e4, 256), rtol=1e-13)
        assert af == 1.0
    assert p.layer_plans[0].attention == "sliding" and p.layer_plans[0].window == 1024
    assert p.layer_plans[5].attention == "full"


def test_gemma3_default_theta_per_layer_type_when_absent():
    cfg = {"model_type": "gemma3_text", "head_dim": 128, "num_hidden_layers": 6, "max_position_embeddings": 8192}
    p = parse_model_config(json.dumps(cfg))
    assert p.ok, p.errors
    np.testing.assert_allclose(p.layer_rope(0)[0], ref_default(1e4, 128), rtol=1e-13)
    np.testing.assert_allclose(p.layer_rope(5)[0], ref_default(1e6, 128), rtol=1e-13)


def test_gemma3_per_type_rope_parameters_hf5_form():
    cfg = {
        "model_type": "gemma3_text",
        "head_dim": 128,
        "num_hidden_layers": 12,
        "max_position_embeddings": 131072,
        "rope_parameters": {
            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
            "full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1000000.0},
        },
    }
    p = parse_model_config(json.dumps(cfg))
    assert p.ok, p.errors
    assert p.rope_type == "linear" and p.rope_theta == 1e6  # the full-attention one is the headline
    np.testing.assert_allclose(p.layer_rope(11)[0], ref_default(1e6, 128) / 8, rtol=1e-13)
    np.testing.assert_allclose(p.layer_rope(0)[0], ref_default(1e4, 128), rtol=1e-13)


def test_llama4_scout_layers():
    p = _parsed("llama4-scout")
    assert p.num_hidden_layers == 48 and p.layout == "interleaved"
    rope = ref_no_rope_layers(48, 4)
    for i in range(48):
        got = p.layer_rope(i)
        if rope[i]:
            np.testing.assert_allclose(got[0], ref_llama3(5e5, 128, 16.0, 1.0, 1.0, 8192), rtol=1e-13)
            assert p.layer_plans[i].attention == "chunked" and p.layer_plans[i].window == 8192
        else:
            assert got is None and p.layer_plans[i].temperature and p.layer_plans[i].attention == "full"
    assert p.temperature == {"floor_scale": 8192.0, "attn_scale": 0.1}


def test_llama4_default_theta_and_interval():
    cfg = {"model_type": "llama4_text", "head_dim": 64, "num_hidden_layers": 6, "no_rope_layer_interval": 2}
    p = parse_model_config(json.dumps(cfg), fallback_max_position_embeddings=4096)
    assert p.ok and p.rope_theta == 500000.0
    assert [p.layer_rope(i) is None for i in range(6)] == [False, True] * 3


def test_smollm3_layers_and_default_theta():
    p = _parsed("smollm3-3b")
    assert [p.layer_rope(i) is None for i in range(36)] == [not r for r in map(bool, ref_no_rope_layers(36, 4))]
    np.testing.assert_allclose(p.layer_rope(0)[0], ref_default(5e6, 128), rtol=1e-13)
    bare = parse_model_config(
        json.dumps({"model_type": "smollm3", "head_dim": 128, "num_hidden_layers": 8, "max_position_embeddings": 4096})
    )
    assert bare.rope_theta == 2_000_000.0 and bare.layer_rope(3) is None and bare.layer_rope(2) is not None


def test_cohere2_full_layers_are_nope():
    cfg = {"model_type": "cohere2", "head_dim": 128, "num_hidden_layers": 8, "sliding_window": 4096}
    p = parse_model_config(json.dumps(cfg), fallback_max_position_embeddings=8192)
    assert p.ok and p.layer_types == ref_sliding_pattern(8, 4)
    assert [p.layer_rope(i) is None for i in range(8)] == [False, False, False, True] * 2


def test_gpt_oss_120b_layers():
    p = _parsed("gpt-oss-120b")
    assert p.layer_types == ["sliding_attention", "full_attention"] * 18
    assert p.layer_plans[0].window == 128 and p.layer_plans[1].attention == "full"
    inv0, af0 = p.layer_rope(0)
    inv1, af1 = p.layer_rope(1)
    np.testing.assert_array_equal(inv0, inv1)
    assert af0 == af1 == pytest.approx(0.1 * math.log(32) + 1)


def test_qwen25_vl_mrope_section_and_text_positions():
    p = _parsed("qwen2.5-vl-7b")
    assert p.mrope_section == [16, 24, 24] and not p.mrope_interleaved and p.head_dim == 128
    np.testing.assert_allclose(p.layer_rope(0)[0], ref_default(1e6, 128), rtol=1e-13)


def test_mrope_with_equal_thw_is_plain_rope():
    inv = ref_default(1e6, 128)
    pos = np.arange(50.0)
    for interleaved, section in ((False, [16, 24, 24]), (True, [24, 20, 20])):
        got = posenc.mrope_angles(np.stack([pos, pos, pos]), inv, section, interleaved=interleaved)
        np.testing.assert_allclose(got, np.outer(pos, inv), rtol=1e-15)


@pytest.mark.parametrize(
    "section, interleaved, ok",
    [([16, 24, 24], False, True), ([16, 24, 20], False, False), ([24, 20, 20], True, True), ([1, 2], False, False)],
)
def test_mrope_section_is_validated(section, interleaved, ok):
    cfg = {
        "model_type": "qwen2_5_vl",
        "head_dim": 128,
        "rope_scaling": {"rope_type": "default", "mrope_section": section, "mrope_interleaved": interleaved},
    }
    p = parse_model_config(json.dumps(cfg), fallback_max_position_embeddings=4096)
    assert p.ok == ok, p.problems
    if not ok:
        assert any(e.key.endswith("mrope_section") for e in p.errors)


def test_deepseek_mla_rotates_the_rope_part_only():
    cfg = {"model_type": "deepseek_v3", "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "head_dim": 192}
    p = parse_model_config(json.dumps(cfg), fallback_max_position_embeddings=4096)
    assert p.ok and p.head_dim == 64 and p.layout == "interleaved"
    assert p.layer_rope(0)[0].shape == (32,)


def test_qwen_base_and_instruct_presets():
    assert PRESETS["qwen2.5-7b"].max_position_embeddings == 131072
    assert PRESETS["qwen2.5-7b-instruct"].max_position_embeddings == 32768
    p = _parsed("qwen3-8b")
    assert p.rope_type == "yarn" and p.original_max_position_embeddings == 32768


def test_layer_rope_contract():
    p = _parsed("gemma3-4b")
    with pytest.raises(ValueError, match=r"layer must be in \[0, num_hidden_layers - 1 = 33\], got 34"):
        p.layer_rope(34)
    with pytest.raises(TypeError, match="layer must be an integer"):
        p.layer_rope(1.5)  # type: ignore[arg-type]
    single = parse_model_config('{"head_dim": 64, "max_position_embeddings": 4096}')
    assert single.num_hidden_layers is None and single.layer_types is None
    np.testing.assert_allclose(single.layer_rope(0)[0], ref_default(1e4, 64), rtol=1e-13)


def test_layer_types_of_the_wrong_length_is_an_error():
    cfg = {"head_dim": 64, "num_hidden_layers": 4, "layer_types": ["full_attention"] * 3}
    p = parse_model_config(json.dumps(cfg))
    assert any(e.key == "layer_types" and "4 entries, got 3" in e.message for e in p.errors)


# --------------------------------------------------------------------------------------------------
# 4. HF's reading rules, one by one
# --------------------------------------------------------------------------------------------------
def test_rule_rope_scaling_wins_over_rope_parameters():
    cfg = {
        "head_dim": 64,
        "max_position_embeddings": 4096,
        "rope_scaling": {"rope_type": "linear", "factor": 2.0},
        "rope_parameters": {"rope_type": "linear", "factor": 4.0},
    }
    p = parse_model_config(json.dumps(cfg))
    assert p.rope_parameters["factor"] == 2.0
    assert any(w.key == "rope_parameters" and "HF transformers uses rope_scaling" in w.message for w in p.warnings)


def test_rule_phi3_top_level_original_wins():
    cfg = {
        "model_type": "phi3",
        "head_dim": 64,
        "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096,
        "rope_scaling": {
            "type": "longrope",
            "short_factor": [1.0] * 32,
            "long_factor": [2.0] * 32,
            "original_max_position_embeddings": 8192,
        },
    }
    p = parse_model_config(json.dumps(cfg))
    assert p.rope_parameters["original_max_position_embeddings"] == 4096
    assert any("uses the top-level one" in w.message for w in p.warnings)
    _, af = p.inverse_frequencies()
    assert af == pytest.approx(math.sqrt(1 + math.log(131072 / 4096) / math.log(4096)))


def test_rule_gpt_neox_without_rotary_pct_rotates_a_quarter():
    p = parse_model_config('{"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64}')
    assert p.partial_rotary_factor == 0.25 and p.rotary_dim == 24
    assert any(w.key == "rotary_pct" and "0.25" in w.message for w in p.warnings)


def test_rule_yarn_factor_null_is_max_over_original():
    cfg = {
        "head_dim": 128,
        "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "yarn", "factor": None, "original_max_position_embeddings": 32768},
    }
    p = parse_model_config(json.dumps(cfg))
    assert p.ok and any(w.key == "rope_scaling.factor" and "= 4" in w.message for w in p.warnings)
    inv, af = p.inverse_frequencies()
    want, _ = posenc.rope_inverse_frequencies(
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}, 128, max_position_embeddings=1
    )
    np.testing.assert_allclose(inv, want, rtol=1e-14)
    assert af == pytest.approx(0.1 * math.log(4) + 1)


def test_rule_llama3_without_original_uses_max_position_embeddings():
    cfg = {
        "head_dim": 128,
        "rope_theta": 500000.0,
        "max_position_embeddings": 8192,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0},
    }
    p = parse_model_config(json.dumps(cfg))
    assert p.ok and p.rope_parameters["original_max_position_embeddings"] == 8192
    assert any(w.key.endswith("original_max_position_embeddings") for w in p.warnings)
    np.testing.assert_allclose(p.inverse_frequencies()[0], ref_llama3(5e5, 128, 8.0, 1.0, 4.0, 8192), rtol=1e-13)


# HF 5.23 reads beta_fast / beta_slow with `or 32` / `or 1` (0 -> the default) but attention_factor with
# `if attention_factor is None` (modeling_rope_utils.py lines 436, 444-445): 0 is used as 0 (see below).
@pytest.mark.parametrize("key, value", [("beta_fast", 0), ("beta_slow", 0)])
def test_rule_zero_means_not_set(key, value):
    block = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096, key: value}
    plain = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}
    a = posenc.rope_inverse_frequencies(block, 128, max_position_embeddings=16384)
    b = posenc.rope_inverse_frequencies(plain, 128, max_position_embeddings=16384)
    np.testing.assert_array_equal(a[0], b[0])
    assert a[1] == b[1]
    p = parse_model_config(json.dumps({"head_dim": 128, "max_position_embeddings": 16384, "rope_scaling": block}))
    assert p.ok and any(w.key == f"rope_scaling.{key}" and "not set" in w.message for w in p.warnings)


def test_rule_llama3_high_equal_low_is_computed_not_refused():
    inv, _ = posenc.rope_inverse_frequencies(
        {
            "rope_type": "llama3",
            "factor": 16.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
            "rope_theta": 5e5,
        },
        128,
        max_position_embeddings=1,
    )
    np.testing.assert_allclose(inv, ref_llama3(5e5, 128, 16.0, 1.0, 1.0, 8192), rtol=1e-13)


def test_rule_torch_dynamic_and_longrope_take_seq_len_from_positions():
    torch = pytest.importorskip("torch")
    from posenc.torch import RotaryEmbedding

    x = torch.ones(1, 200, 64, dtype=torch.float64)
    pos = np.arange(200)
    for block in (
        {"rope_type": "dynamic", "factor": 2.0},
        {
            "rope_type": "longrope",
            "short_factor": [1.0] * 32,
            "long_factor": [4.0] * 32,
            "original_max_position_embeddings": 100,
            "factor": 4.0,
        },
    ):
        m = RotaryEmbedding(64, rope_parameters=block, max_position_embeddings=100)
        implicit, explicit = m(x, pos), m(x, pos, seq_len=200)
        assert torch.equal(implicit, explicit), block["rope_type"]
        assert not torch.equal(implicit, m(x, pos, seq_len=50)), block["rope_type"]


# --------------------------------------------------------------------------------------------------
# 5. the configs page's link text
# --------------------------------------------------------------------------------------------------
@settings(max_examples=50, deadline=None)
@given(text=st.text(max_size=2000))
def test_link_text_round_trips(text):
    encoded = site.encode_text(text)
    assert encoded.startswith("z") and all(c.isalnum() or c in "-_" for c in encoded[1:])
    if len(encoded) <= site.MAX_LINK_CHARS:
        assert site.decode_text(encoded) == text


@pytest.mark.parametrize("bad", ["", "x", "z$$$", "z" + "A" * 9, "z" + "A" * (site.MAX_LINK_CHARS + 1)])
def test_link_text_garbage_is_a_clear_error(bad):
    with pytest.raises(site.LinkTextError):
        site.decode_text(bad)


def test_link_text_zip_bomb_is_refused():
    import base64
    import zlib

    bomb = "z" + base64.urlsafe_b64encode(zlib.compress(b" " * (site.MAX_DECODED_BYTES + 10), 9)).decode().rstrip("=")
    assert len(bomb) < site.MAX_LINK_CHARS
    with pytest.raises(site.LinkTextError, match="more than"):
        site.decode_text(bomb)


# --------------------------------------------------------------------------------------------------
# HF 5.23 reading rules, second round (each re-derived from HF's code, re-typed)
# --------------------------------------------------------------------------------------------------
def ref_yarn(base, dim, factor, length, beta_fast=32, beta_slow=1, truncate=True):
    """transformers 5.23 modeling_rope_utils.py _compute_yarn_parameters (lines 444-483), in plain Python."""
    beta_fast = beta_fast or 32
    beta_slow = beta_slow or 1

    def correction_dim(rot):
        return (dim * math.log(length / (rot * 2 * math.pi))) / (2 * math.log(base))

    low, high = correction_dim(beta_fast), correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    out = []
    for j, i in enumerate(range(0, dim, 2)):
        pos_freq = base ** (i / dim)
        ramp = min(max((j - low) / (high - low), 0.0), 1.0)
        extrapolation_factor = 1 - ramp
        out.append((1.0 / (factor * pos_freq)) * (1 - extrapolation_factor) + (1.0 / pos_freq) * extrapolation_factor)
    return np.array(out)


@pytest.mark.parametrize("truncate", [True, False])
@pytest.mark.parametrize("beta_fast, beta_slow", [(1.0, 32.0), (4.0, 4.0), (2.0, 3.0)])
def test_rule_yarn_beta_fast_not_above_beta_slow_is_computed_as_hf(beta_fast, beta_slow, truncate):
    # HF's validation: `if (beta_fast or 32) < (beta_slow or 1): logger.warning(...)` and nothing else
    block = {
        "rope_type": "yarn",
        "factor": 8.0,
        "original_max_position_embeddings": 4096,
        "beta_fast": beta_fast,
        "beta_slow": beta_slow,
        "truncate": truncate,
    }
    expected = ref_yarn(1e4, 128, 8.0, 4096, beta_fast, beta_slow, truncate)
    inv, af = posenc.rope_inverse_frequencies(block, 128, max_position_embeddings=32768)
    np.testing.assert_allclose(inv, expected, rtol=1e-13)
    assert af == pytest.approx(0.1 * math.log(8.0) + 1.0, rel=1e-15)
    p = parse_model_config(json.dumps({"head_dim": 128, "max_position_embeddings": 32768, "rope_scaling": block}))
    assert p.ok, p.errors
    warning = [w for w in p.warnings if w.key == "rope_scaling.beta_fast"]
    assert len(warning) == 1
    words = ["smaller than beta_slow", "warns", "backwards"] if beta_fast < beta_slow else ["equals beta_slow", "step"]
    assert all(w in warning[0].message for w in words), warning[0].message
    np.testing.assert_allclose(p.inverse_frequencies()[0], expected, rtol=1e-13)


def test_rule_yarn_reversed_ramp_divides_the_fast_pairs():
    # beta_fast 1 < beta_slow 32: the fastest pair (θ_0 = 1) is divided by s, the slowest kept (HF's numbers)
    inv, _ = posenc.rope_inverse_frequencies(
        {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 4096, "beta_fast": 1, "beta_slow": 32},
        128,
        max_position_embeddings=32768,
    )
    assert inv[0] == pytest.approx(1.0 / 8.0, rel=1e-15)
    assert inv[-1] == pytest.approx(1.0 / 1e4 ** (126 / 128), rel=1e-13)


@pytest.mark.parametrize("rope_type", ["yarn", "longrope"])
def test_rule_attention_factor_zero_is_used_as_zero(rope_type):
    # HF 5.23: `attention_factor = rope_parameters_dict.get("attention_factor")`; computed only `if ... is None`
    block = {"rope_type": rope_type, "factor": 4.0, "original_max_position_embeddings": 4096, "attention_factor": 0}
    if rope_type == "longrope":
        block |= {"short_factor": [1.0] * 32, "long_factor": [2.0] * 32}
    assert posenc.rope_inverse_frequencies(block, 64, max_position_embeddings=16384)[1] == 0.0
    p = parse_model_config(json.dumps({"head_dim": 64, "max_position_embeddings": 16384, "rope_scaling": block}))
    assert p.ok, p.errors
    assert any(w.key == "rope_scaling.attention_factor" and "used as it is" in w.message for w in p.warnings)
    assert p.inverse_frequencies()[1] == 0.0


def test_rule_attention_factor_null_is_computed():
    block = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096, "attention_factor": None}
    assert posenc.rope_inverse_frequencies(block, 64, max_position_embeddings=16384)[1] == pytest.approx(
        0.1 * math.log(4.0) + 1.0, rel=1e-15
    )


def test_rule_proportional_factor_null_is_refused_absent_is_one():
    # HF 5.23 _compute_proportional_rope_parameters: factor = .get("factor", 1.0); ...; inv_freq /= factor
    with pytest.raises(TypeError, match=r"\['factor'\]") as info:
        posenc.rope_inverse_frequencies(
            {"rope_type": "proportional", "factor": None, "partial_rotary_factor": 0.25}, 256, max_position_embeddings=1
        )
    assert info.value.key == "factor"
    inv, _ = posenc.rope_inverse_frequencies(
        {"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 0.25}, 256, max_position_embeddings=1
    )
    np.testing.assert_allclose(inv, ref_proportional(1e6, 256, 0.25, 1.0), rtol=1e-13)
    cfg = {
        "head_dim": 256,
        "max_position_embeddings": 8192,
        "rope_parameters": {"rope_type": "proportional", "factor": None},
    }
    p = parse_model_config(json.dumps(cfg))
    assert not p.ok and [e.key for e in p.errors] == ["rope_parameters.factor"]


def test_rule_per_type_block_missing_a_layer_type_is_an_error():
    # HF 5.23 per-type rotary embeddings: `rope_params = self.config.rope_parameters[layer_type]` (KeyError)
    cfg = {
        "model_type": "gemma4_text",
        "head_dim": 64,
        "num_hidden_layers": 4,
        "max_position_embeddings": 8192,
        "layer_types": ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"],
        "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1e6}},
    }
    p = parse_model_config(json.dumps(cfg))
    assert not p.ok
    (error,) = p.errors
    assert error.key == "rope_parameters.sliding_attention"
    assert "layers 0, 1, 2" in error.message and "KeyError: 'sliding_attention'" in error.message
    with pytest.raises(ValueError, match="errors"):
        p.layer_rope(0)


def test_rule_gemma3_fills_a_missing_type_with_plain_rope():
    # Gemma3TextConfig.convert_rope_params_to_dict: a missing type gets {"rope_type": "default"} and the
    # sliding one's rope_theta from rope_local_base_freq (default_theta["local"] = 10000 without it)
    cfg = {
        "model_type": "gemma3_text",
        "head_dim": 128,
        "num_hidden_layers": 6,
        "max_position_embeddings": 8192,
        "rope_local_base_freq": 20000.0,
        "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 4.0, "rope_theta": 1e6}},
    }
    p = parse_model_config(json.dumps(cfg))
    assert p.ok, p.errors
    np.testing.assert_allclose(p.layer_rope(0)[0], ref_default(20000.0, 128), rtol=1e-13)
    np.testing.assert_allclose(p.layer_rope(5)[0], ref_default(1e6, 128) / 4, rtol=1e-13)


def test_rule_gemma3_rope_scaling_is_merged_into_full_attention():
    # Gemma3TextConfig: `self.rope_parameters["full_attention"].update(rope_scaling)`; the sliding block is kept
    full = {"rope_type": "linear", "factor": 2.0, "rope_theta": 1e6}
    scaling = {"rope_type": "linear", "factor": 8.0}
    merged = {**full, **scaling}  # dict.update: rope_scaling's keys win
    cfg = {
        "model_type": "gemma3_text",
        "head_dim": 128,
        "num_hidden_layers": 12,
        "max_position_embeddings": 131072,
        "rope_scaling": scaling,
        "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 5e4}, "full_attention": full},
    }
    p = parse_model_config(json.dumps(cfg))
    assert p.ok, p.errors
    assert not [w for w in p.warnings if "ignored" in w.message], p.warnings
    np.testing.assert_allclose(
        p.layer_rope(11)[0], ref_default(merged["rope_theta"], 128) / merged["factor"], rtol=1e-13
    )
    np.testing.assert_allclose(p.layer_rope(0)[0], ref_default(5e4, 128), rtol=1e-13)


def test_rule_gemma3_rope_scaling_without_a_full_block_is_refused():
    # `self.rope_parameters["full_attention"].update(rope_scaling)` on a dict without that key: KeyError
    cfg = {
        "model_type": "gemma3_text",
        "head_dim": 128,
        "num_hidden_layers": 6,
        "max_position_embeddings": 8192,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0},
        "rope_parameters": {"sliding_attention": {"rope_type": "default"}},
    }
    p = parse_model_config(json.dumps(cfg))
    assert [e.key for e in p.errors] == ["rope_scaling"] and "KeyError" in p.errors[0].message


# transformers 5.23, src/transformers/models/<name>/configuration_<name>.py: `default_theta = …` (class
# attribute), else RotaryEmbeddingConfigMixin.default_theta = 10_000.0 (modeling_rope_utils.py:760).
HF_DEFAULT_THETA = {
    "gpt_oss": 150000.0,  # configuration_gpt_oss.py:36
    "llama4_text": 500000.0,  # configuration_llama4.py:111
    "smollm3": 2000000.0,  # configuration_smollm3.py:55
    "qwen2_5_vl": 1000000.0,  # configuration_qwen2_5_vl.py:91 (Qwen2_5_VLTextConfig)
    "qwen2_vl": 1000000.0,  # configuration_qwen2_vl.py:68
    "qwen3_vl": 500000.0,  # configuration_qwen3_vl.py:81
    "olmo3": 500000.0,  # configuration_olmo3.py:84
    "llama": 10000.0,
    "mistral": 10000.0,
    "qwen2": 10000.0,
    "qwen3": 10000.0,
    "deepseek_v3": 10000.0,
    "phi3": 10000.0,
    "cohere2": 10000.0,
    "glm4v": 10000.0,
}


@pytest.mark.parametrize("model_type, theta", sorted(HF_DEFAULT_THETA.items()))
def test_rule_default_theta_per_model_class(model_type, theta):
    cfg = {"model_type": model_type, "head_dim": 64, "max_position_embeddings": 4096}
    if model_type == "gpt_oss":  # without a block GptOssConfig supplies a YaRN one (test below)
        cfg["rope_parameters"] = {"rope_type": "default"}
    p = parse_model_config(json.dumps(cfg))
    assert p.ok, p.errors
    assert p.rope_theta == theta
    np.testing.assert_allclose(p.inverse_frequencies()[0], ref_default(theta, 64), rtol=1e-13)


def test_rule_truncate_in_a_layer_types_block_is_not_read():
    # HF 5.23 _compute_yarn_parameters: `truncate = config.rope_parameters.get("truncate", True)` reads the
    # whole (per-type) rope_parameters, where "truncate" is no key: the ramp ends are rounded (True)
    yarn = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 4096, "truncate": False}
    cfg = {
        "model_type": "gemma4_text",
        "head_dim": 64,
        "num_hidden_layers": 2,
        "max_position_embeddings": 32768,
        "layer_types": ["sliding_attention", "full_attention"],
        "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 1e4}, "full_attention": yarn},
    }
    p = parse_model_config(json.dumps(cfg))
    assert p.ok, p.errors
    assert any(w.key == "rope_parameters.full_attention.truncate" for w in p.warnings)
    np.testing.assert_allclose(p.layer_rope(1)[0], ref_yarn(1e4, 64, 8.0, 4096, truncate=True), rtol=1e-13)
    # a flat block keeps its truncate (gpt-oss)
    flat = parse_model_config(json.dumps({"head_dim": 64, "max_position_embeddings": 32768, "rope_scaling": yarn}))
    np.testing.assert_allclose(flat.inverse_frequencies()[0], ref_yarn(1e4, 64, 8.0, 4096, truncate=False), rtol=1e-13)


def test_rule_gemma3_flat_rope_parameters_are_not_read():
    # Gemma3TextConfig: with a flat rope_parameters and no rope_scaling, the missing "full_attention" and
    # "sliding_attention" entries are added as {"rope_type": "default"}; standardize_rope_params then reads only
    # the layer-type entries, so the flat keys are never used (full layers: rope_theta, sliding: 10000)
    cfg = {
        "model_type": "gemma3_text",
        "head_dim": 128,
        "num_hidden_layers": 6,
        "max_position_embeddings": 8192,
        "rope_theta": 1e6,
        "rope_parameters": {"rope_type": "linear", "factor": 8.0},
    }
    p = parse_model_config(json.dumps(cfg))
    assert p.ok, p.errors
    assert any(w.key == "rope_parameters" and "not layer types" in w.message for w in p.warnings)
    np.testing.assert_allclose(p.layer_rope(5)[0], ref_default(1e6, 128), rtol=1e-13)
    np.testing.assert_allclose(p.layer_rope(0)[0], ref_default(1e4, 128), rtol=1e-13)


@pytest.mark.parametrize("block", [{}, {"rope_scaling": None}, {"rope_parameters": None}])
def test_gpt_oss_without_a_rope_block_gets_its_class_block(block):
    """HF 5.23 GptOssConfig: no rope block -> its own YaRN block (factor 32, β 32/1, truncate false,
    original 4096) with default_theta 150,000. Expected numbers re-derived here from REFERENCE.md's yarn."""
    cfg = {
        "model_type": "gpt_oss",
        "head_dim": 64,
        "hidden_size": 2880,
        "num_attention_heads": 64,
        "num_hidden_layers": 4,
        "max_position_embeddings": 131072,
        **block,
    }
    p = posenc.parse_model_config(json.dumps(cfg))
    assert p.ok and p.rope_type == "yarn" and p.rope_theta == 150_000.0
    inv, af = p.layer_rope(1)
    d, b, s, L = 64, 150_000.0, 32.0, 4096
    theta = np.array([b ** (-2 * j / d) for j in range(d // 2)])

    def cd(r):
        return d * math.log(L / (2 * math.pi * r)) / (2 * math.log(b))

    low, high = max(cd(32.0), 0.0), min(cd(1.0), d - 1.0)  # truncate false: no floor/ceil
    ramp = np.clip((np.arange(d // 2) - low) / (high - low), 0, 1)
    np.testing.assert_allclose(inv, theta / s * ramp + theta * (1 - ramp), rtol=1e-12)
    assert af == pytest.approx(0.1 * math.log(s) + 1)
    assert any("supplies its own" in n for n in p.notes)


# ------------------------------------------------------------------ the lab's hybrid RoPE/NoPE plan (issue #39)
@given(n=st.integers(1, 64), interval=st.integers(1, 12))
@settings(max_examples=60, deadline=None)
def test_hybrid_layer_plan_is_hfs_no_rope_layers_rule(n, interval):
    want = ["rope" if r else "nope" for r in ref_no_rope_layers(n, interval)]  # HF: 1 = RoPE, 0 = NoPE
    assert hybrid_layer_plan(n, nope_interval=interval) == want


def test_hybrid_layer_plan_examples_and_errors():
    assert hybrid_layer_plan(8) == ["rope", "rope", "rope", "nope"] * 2  # Llama 4 / SmolLM3: interval 4
    assert hybrid_layer_plan(2, nope_interval=2) == ["rope", "nope"]  # the lab's two layers
    assert hybrid_layer_plan(2) == ["rope", "rope"]  # fewer layers than the interval: no NoPE layer
    with pytest.raises(ValueError, match="nope_interval must be >= 1, got 0"):
        hybrid_layer_plan(4, nope_interval=0)
    with pytest.raises(ValueError, match="n_layers must be >= 1, got 0"):
        hybrid_layer_plan(0)
