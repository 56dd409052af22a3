"""Model presets (posenc.models): the raw numbers match the published configs, and the frequencies
posenc computes from them match an independent, hand-written computation per rope type.

The expected raw numbers below are written from the sources, not from posenc.models:
  [L2]  meta-llama/Llama-2-7b-hf config.json (gated; read in re-uploads naming it as _name_or_path)
  [L31] meta-llama/Llama-3.1-8B config.json (gated; read in re-uploads naming it as _name_or_path)
  [M]   mistralai/Mistral-7B-v0.1 config.json (read in copies naming it as _name_or_path)
  [Q]   Qwen/Qwen2.5-7B-Instruct config.json + its model card's "Processing Long Texts" YaRN block
  [G]   openai/gpt-oss-20b config.json rope block as reported from the hub, = HF GptOssConfig defaults,
        = openai/gpt-oss gpt_oss/torch/model.py ModelConfig
  [D]   deepseek-ai/DeepSeek-V3 config.json (verbatim copies) and inference/model.py
  [J]   EleutherAI/gpt-j-6b config.json (copies naming it as _name_or_path)
  [N]   EleutherAI/gpt-neox-20b config.json (copies naming it as _name_or_path)
  [P]   microsoft/Phi-3-mini-128k-instruct config.json (HF page; full lists in Microsoft's copy)
  [L4]  meta-llama/Llama-4-Scout-17B-16E-Instruct config.json text_config (gated; verbatim copies)
  [G3]  google/gemma-3-4b-it config.json text_config (verbatim copies)
  [Q3]  Qwen/Qwen3-8B config.json + its model card's "Processing Long Texts" YaRN block
  [VL]  Qwen/Qwen2.5-VL-7B-Instruct config.json (verbatim copies)
  [S3]  HuggingFaceTB/SmolLM3-3B config.json (verbatim copies, README)
  [G120] openai/gpt-oss-120b config.json (verbatim copies)
  [Q25] Qwen/Qwen2.5-7B config.json (verbatim copies)
Each preset is declared as its config.json; the numbers below check what posenc derives from it.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import pickle

import numpy as np
import pytest

import posenc
from posenc.models import LAYOUTS, PRESETS, ModelPreset, get_preset, preset_config, preset_inverse_frequencies

EXPECTED_KEYS = [
    "llama2-7b",
    "llama3.1-8b",
    "mistral-7b-v0.1",
    "qwen2.5-7b-instruct",
    "gpt-oss-20b",
    "deepseek-v3",
    "gpt-j-6b",
    "gpt-neox-20b",
    "phi3-mini-128k-instruct",
]

# head_dim, rope_theta, max_position_embeddings, layout, partial factor, the rope block's raw numbers
EXPECTED_RAW = {
    # [L2] hidden_size 4096 / num_attention_heads 32; max_position_embeddings 4096; rope_scaling null
    "llama2-7b": (4096 // 32, 10000.0, 4096, "half", 1.0, {"rope_type": "default"}),
    # [L31] head_dim 128; rope_theta 500000.0; rope_scaling {factor 8.0, high_freq_factor 4.0,
    # low_freq_factor 1.0, original_max_position_embeddings 8192, rope_type llama3}
    "llama3.1-8b": (
        128,
        500000.0,
        131072,
        "half",
        1.0,
        {
            "rope_type": "llama3",
            "factor": 8.0,
            "high_freq_factor": 4.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
        },
    ),
    # [M] hidden_size 4096 / 32 heads; max_position_embeddings 32768; rope_theta 10000.0
    "mistral-7b-v0.1": (4096 // 32, 10000.0, 32768, "half", 1.0, {"rope_type": "default"}),
    # [Q] hidden_size 3584 / 28 heads; rope_theta 1000000.0; max_position_embeddings 32768;
    # card: {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}
    "qwen2.5-7b-instruct": (
        3584 // 28,
        1000000.0,
        32768,
        "half",
        1.0,
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
    ),
    # [G] head_dim 64; rope_theta 150000; max_position_embeddings 131072; {beta_fast 32.0, beta_slow 1.0,
    # factor 32.0, original_max_position_embeddings 4096, rope_type yarn, truncate false}
    "gpt-oss-20b": (
        64,
        150000.0,
        131072,
        "half",
        1.0,
        {
            "rope_type": "yarn",
            "beta_fast": 32.0,
            "beta_slow": 1.0,
            "factor": 32.0,
            "original_max_position_embeddings": 4096,
            "truncate": False,
        },
    ),
    # [D] qk_rope_head_dim 64; rope_theta 10000; max_position_embeddings 163840; {beta_fast 32, beta_slow 1,
    # factor 40, mscale 1.0, mscale_all_dim 1.0, original_max_position_embeddings 4096, type yarn}
    "deepseek-v3": (
        64,
        10000.0,
        163840,
        "interleaved",
        1.0,
        {
            "rope_type": "yarn",
            "beta_fast": 32,
            "beta_slow": 1,
            "factor": 40,
            "mscale": 1.0,
            "mscale_all_dim": 1.0,
            "original_max_position_embeddings": 4096,
        },
    ),
    # [J] n_embd 4096 / n_head 16 = 256; rotary_dim 64; n_positions 2048
    "gpt-j-6b": (4096 // 16, 10000.0, 2048, "interleaved", 64 / 256, {"rope_type": "default"}),
    # [N] hidden_size 6144 / 64 heads = 96; rotary_pct 0.25; rotary_emb_base 10000; max_position_embeddings 2048
    "gpt-neox-20b": (6144 // 64, 10000.0, 2048, "half", 0.25, {"rope_type": "default"}),
    # [P] hidden_size 3072 / 32 heads = 96; max_position_embeddings 131072; original 4096; rope_theta 10000.0
    "phi3-mini-128k-instruct": (
        3072 // 32,
        10000.0,
        131072,
        "half",
        1.0,
        {"rope_type": "longrope", "original_max_position_embeddings": 4096},
    ),
}

# Per-layer RoPE, NoPE layers, M-RoPE (their layers are tested in tests/test_layers.py). The headline
# block is the full-attention layers'.
NEW_KEYS = ["llama4-scout", "gemma3-4b", "qwen3-8b", "qwen2.5-vl-7b", "smollm3-3b", "gpt-oss-120b", "qwen2.5-7b"]
EXPECTED_RAW |= {
    # [L4] head_dim 128; max_position_embeddings 10485760; rope_theta 500000.0; rope_scaling {factor 16.0,
    # high_freq_factor 1.0, low_freq_factor 1.0, original_max_position_embeddings 8192, rope_type llama3}
    "llama4-scout": (
        128,
        500000.0,
        10485760,
        "interleaved",
        1.0,
        {
            "rope_type": "llama3",
            "factor": 16.0,
            "high_freq_factor": 1.0,
            "low_freq_factor": 1.0,
            "original_max_position_embeddings": 8192,
        },
    ),
    # [G3] head_dim 256; rope_theta 1000000.0 (global layers); rope_scaling {factor 8.0, rope_type linear}
    "gemma3-4b": (256, 1000000.0, 131072, "half", 1.0, {"rope_type": "linear", "factor": 8.0}),
    # [Q3] head_dim 128; max_position_embeddings 40960; rope_theta 1000000; card: yarn ×4 over 32768
    "qwen3-8b": (
        128,
        1000000.0,
        40960,
        "half",
        1.0,
        {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
    ),
    # [VL] hidden_size 3584 / 28 heads; max_position_embeddings 128000; rope_theta 1000000.0; mrope (text: default)
    "qwen2.5-vl-7b": (3584 // 28, 1000000.0, 128000, "half", 1.0, {"rope_type": "default"}),
    # [S3] hidden_size 2048 / 16 heads; max_position_embeddings 65536; rope_theta 5000000.0; rope_scaling null
    "smollm3-3b": (2048 // 16, 5000000.0, 65536, "half", 1.0, {"rope_type": "default"}),
    "gpt-oss-120b": EXPECTED_RAW["gpt-oss-20b"],  # [G120]: the same rope block, base and lengths as [G]
    # [Q25] hidden_size 3584 / 28 heads; max_position_embeddings 131072; rope_theta 1000000.0; rope_scaling null
    "qwen2.5-7b": (3584 // 28, 1000000.0, 131072, "half", 1.0, {"rope_type": "default"}),
}

# [P] spot values of the LongRoPE lists (index: value), read in the source
PHI3_LONG_SPOTS = {
    0: 1.0700000524520874,
    1: 1.1200000047683716,
    8: 3.009999990463257,
    17: 19.809999465942383,
    18: 37.279998779296875,
    25: 54.9373893737793,
    29: 60.86738586425781,
    40: 64.11434936523438,
    47: 64.76000213623047,
}
PHI3_SHORT_SPOTS = {
    0: 1.1,
    3: 1.3000000000000003,
    7: 1.5500000000000005,
    8: 2.000000000000001,
    24: 2.000000000000001,
    25: 2.0500000000000007,
    33: 2.1500000000000004,
    34: 2.25,
    39: 2.3999999999999995,
    46: 2.8999999999999977,
    47: 3.049999999999997,
}


# ------------------------------------------------------------------------------------------------
# independent reference computations (plain loops over pairs, written from shared/REFERENCE.md)
# ------------------------------------------------------------------------------------------------
def ref_theta(d, base):
    return [base ** (-2.0 * j / d) for j in range(d // 2)]


def ref_llama3(d, base, s, lo, hi, L):
    out, bands = [], []
    for t in ref_theta(d, base):
        wavelength = 2 * math.pi / t
        if wavelength < L / hi:
            out.append(t)
            bands.append("kept")
        elif wavelength > L / lo:
            out.append(t / s)
            bands.append("divided")
        else:
            sm = (L / wavelength - lo) / (hi - lo)
            out.append((1 - sm) * t / s + sm * t)
            bands.append("smoothed")
    return out, bands


def ref_yarn_dims(d, base, L, beta_fast, beta_slow):
    def cd(r):
        return d * math.log(L / (2 * math.pi * r)) / (2 * math.log(base))

    return cd(beta_fast), cd(beta_slow)


def ref_yarn(d, base, s, L, beta_fast=32, beta_slow=1, truncate=True, mscale=None, mscale_all_dim=None):
    low, high = ref_yarn_dims(d, base, L, beta_fast, beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, d - 1)
    if low == high:
        high += 0.001
    out = []
    for j, t in enumerate(ref_theta(d, base)):
        ramp = min(max((j - low) / (high - low), 0.0), 1.0)
        out.append((t / s) * ramp + t * (1 - ramp))

    def g(scale, m=1.0):
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    af = g(s, mscale) / g(s, mscale_all_dim) if (mscale and mscale_all_dim) else g(s)
    return out, af


def ref_longrope(d, base, short, long, L, max_pos, seq_len):
    ext = long if (seq_len is not None and seq_len > L) else short
    s = max_pos / L
    af = 1.0 if s <= 1 else math.sqrt(1 + math.log(s) / math.log(L))
    return [1.0 / (ext[j] * base ** (2.0 * j / d)) for j in range(d // 2)], af


def reference_for(key, seq_len=None):
    """The preset's (inv_freq, af) written out per model, without going through posenc."""
    if key in ("llama2-7b", "mistral-7b-v0.1"):
        return ref_theta(128, 10000.0), 1.0
    if key == "gpt-j-6b":
        return ref_theta(64, 10000.0), 1.0  # rotary_dim 64 of head_dim 256
    if key == "gpt-neox-20b":
        return ref_theta(24, 10000.0), 1.0  # int(96 * 0.25) = 24 rotated dims
    if key == "llama3.1-8b":
        return ref_llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192)[0], 1.0
    if key == "qwen2.5-7b-instruct":
        return ref_yarn(128, 1e6, 4.0, 32768)
    if key == "gpt-oss-20b":
        return ref_yarn(64, 150000.0, 32.0, 4096, 32.0, 1.0, truncate=False)
    if key == "deepseek-v3":
        return ref_yarn(64, 10000.0, 40.0, 4096, 32, 1, mscale=1.0, mscale_all_dim=1.0)
    if key == "phi3-mini-128k-instruct":
        p = PRESETS[key].rope_parameters
        return ref_longrope(96, 10000.0, p["short_factor"], p["long_factor"], 4096, 131072, seq_len)
    if key in ("qwen2.5-vl-7b", "qwen2.5-7b"):
        return ref_theta(128, 1e6), 1.0
    if key == "smollm3-3b":
        return ref_theta(128, 5e6), 1.0
    if key == "gemma3-4b":
        return [t / 8.0 for t in ref_theta(256, 1e6)], 1.0
    if key == "llama4-scout":
        return ref_llama3(128, 500000.0, 16.0, 1.0, 1.0, 8192)[0], 1.0
    if key == "qwen3-8b":
        return ref_yarn(128, 1e6, 4.0, 32768)
    if key == "gpt-oss-120b":
        return ref_yarn(64, 150000.0, 32.0, 4096, 32.0, 1.0, truncate=False)
    raise AssertionError(key)


# ------------------------------------------------------------------------------------------------
# 1. the registry and its input checks
# ------------------------------------------------------------------------------------------------
def test_registry_has_the_required_models_with_stable_keys():
    assert list(PRESETS) == EXPECTED_KEYS + NEW_KEYS
    for key, preset in PRESETS.items():
        assert preset.key == key
        assert preset.layout in LAYOUTS
        assert preset.name and preset.notes
        assert "config.json" in preset.source, f"{key}: the source must name the config file"


def test_presets_are_frozen_and_their_blocks_read_only():
    preset = PRESETS["llama3.1-8b"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        preset.head_dim = 64
    with pytest.raises(TypeError, match="read-only"):
        preset.rope_parameters["factor"] = 2.0
    with pytest.raises(TypeError, match="read-only"):
        preset.rope_parameters.update(factor=2.0)
    mutable = dict(preset.rope_parameters)
    mutable["factor"] = 2.0
    assert preset.rope_parameters["factor"] == 8.0


def test_presets_survive_pickle_deepcopy_and_json():
    for preset in PRESETS.values():
        assert pickle.loads(pickle.dumps(preset)) == preset
        assert copy.deepcopy(preset) == preset
        assert hash(preset) == hash(pickle.loads(pickle.dumps(preset)))
        assert json.loads(json.dumps(preset.rope_parameters))["rope_type"] == preset.rope_type


def test_preset_inverse_frequencies_accepts_a_key_and_rejects_unknown_ones():
    inv_by_key, af_by_key = preset_inverse_frequencies("gpt-oss-20b")
    inv, af = preset_inverse_frequencies(PRESETS["gpt-oss-20b"])
    np.testing.assert_array_equal(inv_by_key, inv)
    assert af_by_key == af
    with pytest.raises(ValueError, match=r"preset must be one of .*got 'llama-9'"):
        preset_inverse_frequencies("llama-9")
    with pytest.raises(TypeError, match="preset must be a ModelPreset"):
        preset_inverse_frequencies(3)
    with pytest.raises(ValueError, match="preset must be one of"):
        get_preset(None)
    config = {"head_dim": 64, "max_position_embeddings": 2048}
    assert ModelPreset("x", "x", "x config.json", "half", "", config).rotary_dim == 64
    with pytest.raises(ValueError, match=r"layout must be one of .*got 'diagonal'"):
        ModelPreset("x", "x", "x config.json", "diagonal", "", config)
    with pytest.raises(
        ValueError, match=r"config must be .* got one with rope_scaling\.factor: must be greater than 0, got -2"
    ):
        ModelPreset("x", "x", "x config.json", "half", "", {**config, "rope_scaling": {"type": "linear", "factor": -2}})
    with pytest.raises(ValueError, match=r"config must be .*no max_position_embeddings"):
        ModelPreset("x", "x", "x config.json", "half", "", {"head_dim": 64})


def test_preset_does_not_mutate_its_block_when_used():
    preset = PRESETS["phi3-mini-128k-instruct"]
    before = dict(preset.rope_parameters)
    preset_inverse_frequencies(preset, seq_len=10**5)
    assert dict(preset.rope_parameters) == before


# ------------------------------------------------------------------------------------------------
# 2. the raw numbers are the published ones
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", EXPECTED_KEYS + NEW_KEYS)
def test_preset_numbers_match_the_published_config(key):
    head_dim, theta, max_pos, layout, partial, block = EXPECTED_RAW[key]
    preset = PRESETS[key]
    assert preset.head_dim == head_dim
    assert preset.rope_theta == theta
    assert preset.max_position_embeddings == max_pos
    assert preset.layout == layout
    assert preset.partial_rotary_factor == partial
    assert preset.rope_parameters["rope_theta"] == theta  # rope_theta is moved into the block
    for name, value in block.items():
        assert preset.rope_parameters[name] == value, (key, name)
        assert type(preset.rope_parameters[name]) is type(value), (key, name)  # 40 stays 40, 8.0 stays 8.0
    if partial < 1:
        assert preset.rope_parameters["partial_rotary_factor"] == partial
    extra = (
        set(preset.rope_parameters)
        - set(block)
        - {"rope_theta", "partial_rotary_factor", "short_factor", "long_factor"}
    )
    assert not extra, f"{key}: block keys not in the source: {extra}"


def test_phi3_longrope_lists_are_the_published_ones():
    p = PRESETS["phi3-mini-128k-instruct"].rope_parameters
    assert len(p["long_factor"]) == 48 and len(p["short_factor"]) == 48  # one per pair, head_dim 96
    for i, v in PHI3_LONG_SPOTS.items():
        assert p["long_factor"][i] == v, i
    for i, v in PHI3_SHORT_SPOTS.items():
        assert p["short_factor"][i] == v, i
    assert p["short_factor"].count(2.000000000000001) == 17
    assert list(p["long_factor"]) == sorted(p["long_factor"])  # the searched factors grow with the wavelength
    assert list(p["short_factor"]) == sorted(p["short_factor"])


def test_qwen_preset_says_the_yarn_block_is_from_the_model_card():
    preset = PRESETS["qwen2.5-7b-instruct"]
    assert "model card" in preset.source and "does not contain it" in preset.source


def test_deepseek_preset_says_which_head_part_rotates():
    preset = PRESETS["deepseek-v3"]
    assert "qk_rope_head_dim" in preset.source and "interleaved" in preset.notes


# ------------------------------------------------------------------------------------------------
# 3. posenc's frequencies equal the independent computation, per preset
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("key", EXPECTED_KEYS + NEW_KEYS)
@pytest.mark.parametrize("seq_len", [None, 1000, 300_000])
def test_preset_frequencies_match_an_independent_computation(key, seq_len):
    inv, af = preset_inverse_frequencies(PRESETS[key], seq_len=seq_len)
    ref_inv, ref_af = reference_for(key, seq_len)
    assert inv.shape == (PRESETS[key].rotary_dim // 2,)
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-12, atol=0)
    assert af == pytest.approx(ref_af, rel=1e-12)


def test_llama31_has_29_kept_6_smoothed_29_divided_pairs():
    _, bands = ref_llama3(128, 500000.0, 8.0, 1.0, 4.0, 8192)
    assert (bands.count("kept"), bands.count("smoothed"), bands.count("divided")) == (29, 6, 29)
    inv, _ = preset_inverse_frequencies("llama3.1-8b")
    theta = posenc.inverse_frequencies(128, base=500000.0)
    posenc_bands = posenc.llama3_bands(
        theta, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0, original_max_position_embeddings=8192
    )
    assert list(posenc_bands) == bands
    np.testing.assert_array_equal(inv[:29], theta[:29])
    np.testing.assert_allclose(inv[-29:], theta[-29:] / 8.0, rtol=1e-15)


def test_gpt_oss_yarn_range_is_not_rounded_and_its_attention_factor_is_1_3466():
    low, high = ref_yarn_dims(64, 150000.0, 4096, 32.0, 1.0)
    assert (low, high) == (pytest.approx(8.0928, abs=1e-4), pytest.approx(17.398, abs=1e-3))
    assert posenc.yarn_correction_range(64, base=150000.0, original_max_position_embeddings=4096, truncate=False) == (
        pytest.approx(low),
        pytest.approx(high),
    )
    _, af = preset_inverse_frequencies("gpt-oss-20b")
    assert af == pytest.approx(0.1 * math.log(32) + 1, rel=1e-15)
    assert af == pytest.approx(1.3466, abs=5e-5)


def test_qwen_yarn_attention_factor():
    _, af = preset_inverse_frequencies("qwen2.5-7b-instruct")
    assert af == pytest.approx(0.1 * math.log(4) + 1, rel=1e-15)
    assert af == pytest.approx(1.13863, abs=5e-6)


def test_deepseek_attention_factor_is_one_when_mscale_equals_mscale_all_dim():
    inv, af = preset_inverse_frequencies("deepseek-v3")
    assert af == 1.0
    assert inv.shape == (32,)
    low, high = ref_yarn_dims(64, 10000.0, 4096, 32, 1)
    assert (math.floor(low), math.ceil(high)) == (10, 23)  # DeepSeek's own round() gives the same here
    assert (round(low), round(high)) == (10, 23)


def test_phi3_uses_long_factors_only_past_4096_tokens():
    preset = PRESETS["phi3-mini-128k-instruct"]
    theta = np.array(ref_theta(96, 10000.0))
    short = np.array(preset.rope_parameters["short_factor"])
    long = np.array(preset.rope_parameters["long_factor"])
    for seq_len in (None, 1, 4096):
        inv, af = preset_inverse_frequencies(preset, seq_len=seq_len)
        np.testing.assert_allclose(inv, theta / short, rtol=1e-14)
    for seq_len in (4097, 131072):
        inv, af = preset_inverse_frequencies(preset, seq_len=seq_len)
        np.testing.assert_allclose(inv, theta / long, rtol=1e-14)
    assert af == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)), rel=1e-15)
    assert af == pytest.approx(1.19024, abs=5e-6)


def test_partial_rotary_presets_rotate_a_quarter_of_the_head():
    assert PRESETS["gpt-j-6b"].rotary_dim == 64
    assert PRESETS["gpt-neox-20b"].rotary_dim == 24
    inv, _ = preset_inverse_frequencies("gpt-neox-20b")
    assert inv.shape == (12,)
    assert inv[1] == pytest.approx(10000.0 ** (-2 / 24))  # exponent uses the rotated dim, not the head dim


def test_qwen3_8b_config_is_the_shipped_file_plus_the_cards_yarn_block():
    # Qwen/Qwen3-8B config.json ships "rope_scaling": null; the model card ("Processing Long Texts") tells
    # users to add {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}.
    preset = PRESETS["qwen3-8b"]
    card = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}
    assert dict(preset.config["rope_scaling"]) == card
    assert preset.config["max_position_embeddings"] == 40960 and preset.config["rope_theta"] == 1000000
    assert "model card" in preset.name and "rope_scaling null" in preset.notes


def test_configs_keep_the_published_keys_and_posenc_normalises_them():
    """Each config is written as its file writes it; the normalised view is derived (HF's rules)."""
    phi3 = PRESETS["phi3-mini-128k-instruct"]
    assert phi3.config["rope_scaling"]["type"] == "longrope"  # the older key, as in the file
    assert phi3.config["original_max_position_embeddings"] == 4096  # top level in the file ...
    assert "original_max_position_embeddings" not in phi3.config["rope_scaling"]
    assert phi3.rope_parameters["original_max_position_embeddings"] == 4096  # ... moved into the block
    gptj = PRESETS["gpt-j-6b"]
    assert "head_dim" not in gptj.config and gptj.config["rotary_dim"] == 64  # n_embd / n_head, rotary_dim
    assert (gptj.head_dim, gptj.partial_rotary_factor, gptj.max_position_embeddings) == (256, 0.25, 2048)
    neox = PRESETS["gpt-neox-20b"]
    assert neox.config["rotary_pct"] == 0.25 and neox.config["rotary_emb_base"] == 10000
    assert (neox.rope_theta, neox.partial_rotary_factor) == (10000.0, 0.25)
    deepseek = PRESETS["deepseek-v3"]
    assert deepseek.config["rope_scaling"]["type"] == "yarn" and deepseek.rope_type == "yarn"
    assert deepseek.head_dim == 64  # qk_rope_head_dim, not qk_nope_head_dim (128)
    llama4 = PRESETS["llama4-scout"]
    assert llama4.config["model_type"] == "llama4" and llama4.head_dim == 128  # read from text_config


@pytest.mark.parametrize("key", EXPECTED_KEYS + NEW_KEYS)
def test_declared_layout_agrees_with_the_parsers_guess_from_model_type(key):
    """The layout is the preset's own declaration (a config does not state it); posenc's guess from
    model_type must not contradict it for any shipped preset."""
    assert preset_config(key).layout == PRESETS[key].layout
