"""posenc.config.parse_model_config: real configs from each family read right; bad input gets a
plain-words problem on the right key; hostile input never raises, never hangs."""

from __future__ import annotations

import json
import math
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import posenc
from posenc.config import MAX_DEPTH, MAX_TEXT_BYTES, ParsedConfig, Problem, parse_model_config
from posenc.models import PRESETS, preset_inverse_frequencies

# ------------------------------------------------------------------------------------------------
# Realistic config.json texts, as published (sources in tests/test_models.py and posenc/models.py)
# ------------------------------------------------------------------------------------------------
LLAMA31_8B = """{
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "bos_token_id": 128000,
  "eos_token_id": 128001,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 131072,
  "mlp_bias": false,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {
    "factor": 8.0,
    "low_freq_factor": 1.0,
    "high_freq_factor": 4.0,
    "original_max_position_embeddings": 8192,
    "rope_type": "llama3"
  },
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.0.dev0",
  "use_cache": true,
  "vocab_size": 128256
}"""

# Qwen2.5-7B-Instruct's config.json with the model card's YaRN block added, as the card instructs.
QWEN25_7B_YARN = """{
  "architectures": ["Qwen2ForCausalLM"],
  "attention_dropout": 0.0,
  "bos_token_id": 151643,
  "eos_token_id": 151645,
  "hidden_act": "silu",
  "hidden_size": 3584,
  "initializer_range": 0.02,
  "intermediate_size": 18944,
  "max_position_embeddings": 32768,
  "max_window_layers": 28,
  "model_type": "qwen2",
  "num_attention_heads": 28,
  "num_hidden_layers": 28,
  "num_key_value_heads": 4,
  "rms_norm_eps": 1e-06,
  "rope_theta": 1000000.0,
  "sliding_window": 131072,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.1",
  "use_cache": true,
  "use_sliding_window": false,
  "vocab_size": 152064,
  "rope_scaling": {
    "factor": 4.0,
    "original_max_position_embeddings": 32768,
    "type": "yarn"
  }
}"""

GPT_OSS_20B = """{
  "architectures": ["GptOssForCausalLM"],
  "attention_bias": true,
  "attention_dropout": 0.0,
  "eos_token_id": 200002,
  "experts_per_token": 4,
  "head_dim": 64,
  "hidden_act": "silu",
  "hidden_size": 2880,
  "initial_context_length": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 2880,
  "layer_types": ["sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention"],
  "max_position_embeddings": 131072,
  "model_type": "gpt_oss",
  "num_attention_heads": 64,
  "num_experts_per_tok": 4,
  "num_hidden_layers": 24,
  "num_key_value_heads": 8,
  "num_local_experts": 32,
  "output_router_logits": false,
  "pad_token_id": 199999,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "factor": 32.0,
    "original_max_position_embeddings": 4096,
    "rope_type": "yarn",
    "truncate": false
  },
  "rope_theta": 150000,
  "router_aux_loss_coef": 0.9,
  "sliding_window": 128,
  "swiglu_limit": 7.0,
  "tie_word_embeddings": false,
  "transformers_version": "4.55.0.dev0",
  "use_cache": true,
  "vocab_size": 201088
}"""

DEEPSEEK_V3 = """{
  "architectures": ["DeepseekV3ForCausalLM"],
  "attention_bias": false,
  "attention_dropout": 0.0,
  "auto_map": {
    "AutoConfig": "configuration_deepseek.DeepseekV3Config",
    "AutoModel": "modeling_deepseek.DeepseekV3Model",
    "AutoModelForCausalLM": "modeling_deepseek.DeepseekV3ForCausalLM"
  },
  "aux_loss_alpha": 0.001,
  "bos_token_id": 0,
  "eos_token_id": 1,
  "ep_size": 1,
  "first_k_dense_replace": 3,
  "hidden_act": "silu",
  "hidden_size": 7168,
  "initializer_range": 0.02,
  "intermediate_size": 18432,
  "kv_lora_rank": 512,
  "max_position_embeddings": 163840,
  "model_type": "deepseek_v3",
  "moe_intermediate_size": 2048,
  "moe_layer_freq": 1,
  "n_group": 8,
  "n_routed_experts": 256,
  "n_shared_experts": 1,
  "norm_topk_prob": true,
  "num_attention_heads": 128,
  "num_experts_per_tok": 8,
  "num_hidden_layers": 61,
  "num_key_value_heads": 128,
  "num_nextn_predict_layers": 1,
  "q_lora_rank": 1536,
  "qk_nope_head_dim": 128,
  "qk_rope_head_dim": 64,
  "quantization_config": {
    "activation_scheme": "dynamic",
    "fmt": "e4m3",
    "quant_method": "fp8",
    "weight_block_size": [128, 128]
  },
  "rms_norm_eps": 1e-06,
  "rope_scaling": {
    "beta_fast": 32,
    "beta_slow": 1,
    "factor": 40,
    "mscale": 1.0,
    "mscale_all_dim": 1.0,
    "original_max_position_embeddings": 4096,
    "type": "yarn"
  },
  "rope_theta": 10000,
  "routed_scaling_factor": 2.5,
  "scoring_func": "sigmoid",
  "tie_word_embeddings": false,
  "topk_group": 4,
  "topk_method": "noaux_tc",
  "torch_dtype": "bfloat16",
  "transformers_version": "4.33.1",
  "use_cache": true,
  "v_head_dim": 128,
  "vocab_size": 129280
}"""

GPT_J_6B = """{
  "activation_function": "gelu_new",
  "architectures": ["GPTJForCausalLM"],
  "attn_pdrop": 0.0,
  "bos_token_id": 50256,
  "embd_pdrop": 0.0,
  "eos_token_id": 50256,
  "gradient_checkpointing": false,
  "initializer_range": 0.02,
  "layer_norm_epsilon": 1e-05,
  "model_type": "gptj",
  "n_embd": 4096,
  "n_head": 16,
  "n_inner": null,
  "n_layer": 28,
  "n_positions": 2048,
  "resid_pdrop": 0.0,
  "rotary": true,
  "rotary_dim": 64,
  "scale_attn_weights": true,
  "summary_activation": null,
  "summary_first_dropout": 0.1,
  "summary_proj_to_labels": true,
  "summary_type": "cls_index",
  "summary_use_proj": true,
  "task_specific_params": {"text-generation": {"do_sample": true, "max_length": 50, "temperature": 1.0}},
  "tie_word_embeddings": false,
  "tokenizer_class": "GPT2Tokenizer",
  "torch_dtype": "float32",
  "transformers_version": "4.18.0.dev0",
  "use_cache": true,
  "vocab_size": 50400
}"""

GPT_NEOX_20B = """{
  "architectures": ["GPTNeoXForCausalLM"],
  "attention_probs_dropout_prob": 0,
  "bos_token_id": 0,
  "eos_token_id": 0,
  "hidden_act": "gelu_fast",
  "hidden_dropout_prob": 0,
  "hidden_size": 6144,
  "initializer_range": 0.02,
  "intermediate_size": 24576,
  "layer_norm_eps": 1e-05,
  "max_position_embeddings": 2048,
  "model_type": "gpt_neox",
  "num_attention_heads": 64,
  "num_hidden_layers": 44,
  "rotary_emb_base": 10000,
  "rotary_pct": 0.25,
  "tie_word_embeddings": false,
  "torch_dtype": "float16",
  "transformers_version": "4.24.0.dev0",
  "use_cache": true,
  "use_parallel_residual": true,
  "vocab_size": 50432
}"""

MISTRAL_7B = """{
  "architectures": ["MistralForCausalLM"],
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 32768,
  "model_type": "mistral",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05,
  "rope_theta": 10000.0,
  "sliding_window": 4096,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.34.0.dev0",
  "use_cache": true,
  "vocab_size": 32000
}"""

LLAMA2_7B = """{
  "_name_or_path": "meta-llama/Llama-2-7b-hf",
  "architectures": ["LlamaForCausalLM"],
  "bos_token_id": 1,
  "eos_token_id": 2,
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 11008,
  "max_position_embeddings": 4096,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 32,
  "pretraining_tp": 1,
  "rms_norm_eps": 1e-05,
  "rope_scaling": null,
  "tie_word_embeddings": false,
  "torch_dtype": "float16",
  "transformers_version": "4.31.0.dev0",
  "use_cache": true,
  "vocab_size": 32000
}"""


def _phi3_text() -> str:
    """Phi-3-mini-128k-instruct's config.json (the two 48-entry lists written by json, one per line)."""
    block = PRESETS["phi3-mini-128k-instruct"].rope_parameters
    config = {
        "_name_or_path": "Phi-3-mini-128k-instruct",
        "architectures": ["Phi3ForCausalLM"],
        "attention_dropout": 0.0,
        "auto_map": {
            "AutoConfig": "configuration_phi3.Phi3Config",
            "AutoModelForCausalLM": "modeling_phi3.Phi3ForCausalLM",
        },
        "bos_token_id": 1,
        "embd_pdrop": 0.0,
        "eos_token_id": 32000,
        "hidden_act": "silu",
        "hidden_size": 3072,
        "initializer_range": 0.02,
        "intermediate_size": 8192,
        "max_position_embeddings": 131072,
        "model_type": "phi3",
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "num_key_value_heads": 32,
        "original_max_position_embeddings": 4096,
        "pad_token_id": 32000,
        "resid_pdrop": 0.0,
        "rms_norm_eps": 1e-05,
        "rope_scaling": {
            "long_factor": list(block["long_factor"]),
            "short_factor": list(block["short_factor"]),
            "type": "longrope",
        },
        "rope_theta": 10000.0,
        "sliding_window": 262144,
        "tie_word_embeddings": False,
        "torch_dtype": "bfloat16",
        "transformers_version": "4.40.2",
        "use_cache": True,
        "vocab_size": 32064,
    }
    return json.dumps(config, indent=2)


PHI3_MINI_128K = _phi3_text()

# text, preset it must reproduce, expected fields
FAMILIES = {
    "llama3.1": (
        LLAMA31_8B,
        "llama3.1-8b",
        dict(
            head_dim=128,
            rope_theta=500000.0,
            rope_type="llama3",
            layout="half",
            max_position_embeddings=131072,
            original_max_position_embeddings=8192,
        ),
    ),
    "qwen2.5-yarn": (
        QWEN25_7B_YARN,
        "qwen2.5-7b-instruct",
        dict(
            head_dim=128,
            rope_theta=1e6,
            rope_type="yarn",
            layout="half",
            max_position_embeddings=32768,
            original_max_position_embeddings=32768,
        ),
    ),
    "gpt-oss": (
        GPT_OSS_20B,
        "gpt-oss-20b",
        dict(
            head_dim=64,
            rope_theta=150000.0,
            rope_type="yarn",
            layout="half",
            max_position_embeddings=131072,
            original_max_position_embeddings=4096,
        ),
    ),
    "deepseek-v3": (
        DEEPSEEK_V3,
        "deepseek-v3",
        dict(
            head_dim=64,
            rope_theta=10000.0,
            rope_type="yarn",
            layout="interleaved",
            max_position_embeddings=163840,
            original_max_position_embeddings=4096,
        ),
    ),
    "phi3": (
        PHI3_MINI_128K,
        "phi3-mini-128k-instruct",
        dict(
            head_dim=96,
            rope_theta=10000.0,
            rope_type="longrope",
            layout="half",
            max_position_embeddings=131072,
            original_max_position_embeddings=4096,
        ),
    ),
    "gpt-j": (
        GPT_J_6B,
        "gpt-j-6b",
        dict(
            head_dim=256,
            rope_theta=10000.0,
            rope_type="default",
            layout="interleaved",
            max_position_embeddings=2048,
            partial_rotary_factor=0.25,
        ),
    ),
    "gpt-neox": (
        GPT_NEOX_20B,
        "gpt-neox-20b",
        dict(
            head_dim=96,
            rope_theta=10000.0,
            rope_type="default",
            layout="half",
            max_position_embeddings=2048,
            partial_rotary_factor=0.25,
        ),
    ),
    "mistral": (
        MISTRAL_7B,
        "mistral-7b-v0.1",
        dict(head_dim=128, rope_theta=10000.0, rope_type="default", layout="half", max_position_embeddings=32768),
    ),
    "llama2": (
        LLAMA2_7B,
        "llama2-7b",
        dict(head_dim=128, rope_theta=10000.0, rope_type="default", layout="half", max_position_embeddings=4096),
    ),
}


# ------------------------------------------------------------------------------------------------
# 1. valid configs from each family
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("family", list(FAMILIES))
def test_real_configs_parse_without_errors(family):
    text, _preset_key, expected = FAMILIES[family]
    parsed = parse_model_config(text)
    assert isinstance(parsed, ParsedConfig)
    assert parsed.ok, parsed.errors
    assert not parsed.warnings, parsed.warnings
    assert parsed.kind == "config"
    for name, value in expected.items():
        assert getattr(parsed, name) == value, (family, name)
    assert parsed.rope_parameters["rope_type"] == expected["rope_type"]
    assert parsed.rope_parameters["rope_theta"] == expected["rope_theta"]  # moved into the block
    assert "type" not in parsed.rope_parameters


@pytest.mark.parametrize("family", list(FAMILIES))
@pytest.mark.parametrize("seq_len", [None, 1000, 300_000])
def test_real_configs_give_the_presets_frequencies(family, seq_len):
    text, preset_key, _ = FAMILIES[family]
    inv, af = parse_model_config(text).inverse_frequencies(seq_len)
    ref_inv, ref_af = preset_inverse_frequencies(PRESETS[preset_key], seq_len=seq_len)
    np.testing.assert_allclose(inv, ref_inv, rtol=1e-15)
    assert af == ref_af


def test_notes_explain_the_defaults_and_guesses():
    gptj = parse_model_config(GPT_J_6B)
    assert any("default base 10000" in n for n in gptj.notes)
    assert any("rotary_dim 64 of head_dim 256" in n for n in gptj.notes)
    assert any("interleaved" in n and "GPT-J" in n for n in gptj.notes)
    deepseek = parse_model_config(DEEPSEEK_V3)
    assert any("qk_rope_head_dim 64" in n for n in deepseek.notes)
    llama = parse_model_config(LLAMA31_8B)
    assert any("half pairs" in n and "converted" in n for n in llama.notes)
    phi = parse_model_config(PHI3_MINI_128K)
    assert any("original_max_position_embeddings is taken from the top level" in n for n in phi.notes)
    assert phi.rope_parameters["original_max_position_embeddings"] == 4096
    assert any("rope_scaling is null" in n for n in parse_model_config(LLAMA2_7B).notes)


def test_a_rope_block_alone_is_accepted():
    block = json.dumps(json.loads(GPT_OSS_20B)["rope_scaling"])
    alone = parse_model_config(block)
    assert alone.kind == "rope block" and alone.ok
    assert alone.head_dim is None
    assert [p.key for p in alone.warnings] == ["head_dim"]
    assert "head size" in alone.warnings[0].message
    with_sizes = parse_model_config(block, fallback_head_dim=64, fallback_max_position_embeddings=131072)
    assert with_sizes.ok and not with_sizes.warnings
    with_sizes_theta = dict(with_sizes.rope_parameters, rope_theta=150000.0)
    inv, af = posenc.rope_inverse_frequencies(with_sizes_theta, 64, max_position_embeddings=131072)
    ref_inv, ref_af = preset_inverse_frequencies("gpt-oss-20b")
    np.testing.assert_allclose(inv, ref_inv)
    assert af == ref_af
    assert with_sizes.rope_theta == 10000.0  # the block alone does not say: the default, with a note
    assert any("default base" in n for n in with_sizes.notes)


def test_newer_rope_parameters_name_and_per_layer_type_blocks():
    v5 = parse_model_config(
        '{"head_dim": 64, "max_position_embeddings": 131072, "rope_parameters": '
        '{"rope_type": "yarn", "factor": 32.0, "rope_theta": 150000.0, "truncate": false, '
        '"original_max_position_embeddings": 4096}}'
    )
    assert v5.ok and v5.rope_theta == 150000.0 and v5.rope_parameters["truncate"] is False
    per_layer = parse_model_config(
        '{"head_dim": 256, "rope_parameters": {"sliding_attention": {"rope_type": '
        '"default", "rope_theta": 10000.0}, "full_attention": {"rope_type": "linear", '
        '"factor": 8.0, "rope_theta": 1000000.0}}}'
    )
    assert per_layer.ok and per_layer.rope_type == "linear" and per_layer.rope_theta == 1e6
    assert any("per layer type" in n for n in per_layer.notes)


def test_older_names_su_and_text_config():
    su = parse_model_config(
        '{"head_dim": 4, "max_position_embeddings": 131072, '
        '"original_max_position_embeddings": 4096, "rope_scaling": {"type": "su", '
        '"short_factor": [1.0, 1.0], "long_factor": [2.0, 4.0]}}'
    )
    assert su.ok and su.rope_type == "longrope"
    nested = parse_model_config(
        '{"model_type": "llava", "text_config": {"hidden_size": 4096, '
        '"num_attention_heads": 32, "rope_theta": 500000.0}}'
    )
    assert nested.ok and nested.head_dim == 128 and nested.rope_theta == 500000.0


def test_the_parser_does_not_touch_strings_that_look_like_brackets():
    parsed = parse_model_config('{"rope_type": "' + "[" * 500 + '", "factor": 2}')
    assert [p.key for p in parsed.errors] == ["rope_type"]
    assert "unknown rope type" in parsed.errors[0].message
    escaped = parse_model_config('{"a": "\\\\\\"[[[[[[[[[[[[[[[[[[[[[[[[[[", "head_dim": 64}')
    assert escaped.ok, escaped.problems


# ------------------------------------------------------------------------------------------------
# 2. bad input: the message each must produce, on the right key
# ------------------------------------------------------------------------------------------------
LONG_32 = json.dumps([1.0] * 32)
LONG_64 = json.dumps([1.0] * 64)
BAD = [
    # (id, text, kwargs, key, severity, message substrings)
    (
        "unknown rope_type",
        '{"head_dim": 64, "rope_scaling": {"rope_type": "ntk-by-parts", "factor": 2}}',
        {},
        "rope_scaling.rope_type",
        "error",
        ["unknown rope type 'ntk-by-parts'", "yarn", "llama3", "longrope"],
    ),
    (
        "missing key",
        '{"head_dim": 128, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, '
        '"low_freq_factor": 1.0, "original_max_position_embeddings": 8192}}',
        {},
        "rope_scaling.high_freq_factor",
        "error",
        ["required by rope_type 'llama3'", "missing"],
    ),
    (
        "yarn without factor",
        '{"rope_type": "yarn"}',
        {"fallback_head_dim": 64},
        "factor",
        "error",
        ["required by rope_type 'yarn'"],
    ),
    (
        "wrong-length list",
        '{"hidden_size": 3072, "num_attention_heads": 32, "original_max_position_embeddings": '
        f'4096, "rope_scaling": {{"type": "longrope", "short_factor": {LONG_32}, '
        f'"long_factor": {json.dumps([1.0] * 48)}}}}}',
        {},
        "rope_scaling.short_factor",
        "error",
        ["has 32 entries", "d/2 = 48", "head_dim 96"],
    ),
    (
        "wrong length, partial rotary",
        f'{{"rope_type": "longrope", "short_factor": {LONG_64}, "long_factor": '
        f'{LONG_64}, "partial_rotary_factor": 0.5}}',
        {"fallback_head_dim": 128},
        "short_factor",
        "error",
        ["has 64 entries", "d/2 = 32", "rotary dim 64 = int(head_dim 128 · 0.5)"],
    ),
    (
        "factor 0.5",
        '{"rope_type": "linear", "factor": 0.5}',
        {"fallback_head_dim": 64},
        "factor",
        "warning",
        ["below 1", "shrinks"],
    ),
    (
        "factor -1",
        '{"rope_scaling": {"rope_type": "linear", "factor": -1}, "head_dim": 64}',
        {},
        "rope_scaling.factor",
        "error",
        ["must be greater than 0", "got -1"],
    ),
    ("factor 0", '{"rope_type": "dynamic", "factor": 0}', {}, "factor", "error", ["greater than 0"]),
    (
        "factor two",
        '{"rope_type": "linear", "factor": "two"}',
        {},
        "factor",
        "error",
        ["must be a number", "got the text 'two'"],
    ),
    (
        "factor in quotes",
        '{"rope_type": "linear", "factor": "8.0"}',
        {},
        "factor",
        "error",
        ["write it without quotes: 8.0"],
    ),
    (
        "factor true",
        '{"rope_type": "linear", "factor": true}',
        {},
        "factor",
        "error",
        ["must be a number", "true (a true/false value)"],
    ),
    (
        "NaN literal",
        '{"rope_type": "linear",\n "factor": NaN}',
        {},
        "(json)",
        "error",
        ["NaN is not a JSON number", "line 2, column 12"],
    ),
    ("Infinity literal", '{"rope_theta": -Infinity}', {}, "(json)", "error", ["Infinity is not a JSON number"]),
    ("non-JSON", "rope_type: yarn\nfactor: 4", {}, "(json)", "error", ["not valid JSON", "line 1, column 1"]),
    (
        "missing comma",
        '{\n  "factor": 8.0\n  "rope_type": "linear"\n}',
        {},
        "(json)",
        "error",
        ["not valid JSON", "line 3, column 3"],
    ),
    ("python dict", "{'factor': 2.0, 'finetuned': True}", {}, "(json)", "error", ["double quotes", "true, false"]),
    ("trailing comma", '{"factor": 2.0,}', {}, "(json)", "error", ["comma before a closing"]),
    ("JSON array", '[{"rope_type": "yarn"}]', {}, "(json)", "error", ["top level is a list"]),
    ("JSON null", "null", {}, "(json)", "error", ["top level is null"]),
    ("1 MB of text", "{" + " " * (1 << 20) + "}", {}, "(input)", "error", ["limit is 262,144 bytes"]),
    ("nesting 10000", "[" * 10000 + "]" * 10000, {}, "(json)", "error", [f"more than {MAX_DEPTH} levels"]),
    (
        "nesting inside an object",
        '{"a": ' + '{"b": ' * 30 + "1" + "}" * 31,
        {},
        "(json)",
        "error",
        ["nested more than 20 levels", "line 1, column"],
    ),
    ("empty", "  \n ", {}, "(input)", "error", ["empty"]),
    ("not text", None, {}, "(input)", "error", ["expected the text"]),
    ("1e999", '{"rope_type": "yarn", "factor": 1e999}', {}, "factor", "error", ["too large to represent"]),
    (
        "huge int factor",
        '{"rope_type": "linear", "factor": ' + "9" * 400 + "}",
        {"fallback_head_dim": 64},
        "factor",
        "error",
        ["an integer with 400 digits", "too large for a 64-bit float"],
    ),
    ("5000-digit int", '{"head_dim": ' + "7" * 5000 + "}", {}, "head_dim", "error", ["too large to represent"]),
    ("head_dim 10**9", '{"head_dim": 1000000000}', {}, "head_dim", "error", ["at most 1,024", "1000000000"]),
    ("head_dim 10**400", '{"head_dim": 1' + "0" * 400 + "}", {}, "head_dim", "error", ["at most 1,024"]),
    ("head_dim odd", '{"head_dim": 65}', {}, "head_dim", "error", ["must be even", "pairs"]),
    # a computed head size out of range is reported as the computed size, with its sum (hidden_size itself is fine)
    (
        "computed head too big",
        '{"hidden_size": 4096, "num_attention_heads": 1}',
        {},
        "hidden_size",
        "error",
        ["the head size hidden_size // num_attention_heads is 4096 // 1 = 4096", "between 2 and 1,024"],
    ),
    (
        "mrope entry named",
        '{"head_dim": 128, "rope_scaling": {"rope_type": "default", "mrope_section": [16, -3, 8]}}',
        {},
        "rope_scaling.mrope_section",
        "error",
        ["got -3 for h"],
    ),
    (
        "rope_type null",
        '{"head_dim": 64, "rope_scaling": {"rope_type": null}}',
        {},
        "rope_scaling.rope_type",
        "warning",
        ['is null; read as "default"'],
    ),
    (
        "text_config a number",
        '{"head_dim": 64, "text_config": 5}',
        {},
        "text_config",
        "warning",
        ["should be an object", "got 5; ignored"],
    ),
    (
        "mrope one entry",
        '{"head_dim": 128, "rope_scaling": {"rope_type": "default", "mrope_section": [16]}}',
        {},
        "rope_scaling.mrope_section",
        "error",
        ["got a list of 1 item"],
    ),
    ("head_dim fraction", '{"head_dim": 64.5}', {}, "head_dim", "error", ["whole number"]),
    ("head_dim string", '{"head_dim": "64"}', {}, "head_dim", "error", ["without quotes"]),
    (
        "max positions",
        '{"head_dim": 64, "max_position_embeddings": 100000000}',
        {},
        "max_position_embeddings",
        "error",
        ["at most 16,777,216"],
    ),
    (
        "head size unknown",
        '{"model_type": "llama", "rope_theta": 10000.0}',
        {},
        "head_dim",
        "warning",
        ["head size is unknown", "hidden_size and num_attention_heads"],
    ),
    ("heads missing", '{"hidden_size": 4096}', {}, "head_dim", "warning", ["num_attention_heads is not"]),
    (
        "head via odd division",
        '{"hidden_size": 4096, "num_attention_heads": 3}',
        {},
        "num_attention_heads",
        "warning",
        ["not divisible", "4096 // 3 = 1365"],
    ),
    (
        # HF 5.23 computes it (no warning for ==): the parser explains it as a warning
        "beta_fast == beta_slow",
        '{"rope_type": "yarn", "factor": 4, "beta_fast": 1, "beta_slow": 1}',
        {},
        "beta_fast",
        "warning",
        ["equals beta_slow (1)", "step"],
    ),
    (
        "beta_fast < beta_slow",
        '{"rope_type": "yarn", "factor": 4, "beta_fast": 1, "beta_slow": 32}',
        {},
        "beta_fast",
        "warning",
        ["smaller than beta_slow (32)", "HF transformers warns", "backwards"],
    ),
    (
        "proportional factor null",
        '{"rope_type": "proportional", "factor": null}',
        {},
        "factor",
        "error",
        ["is null", "leave the key out for 1"],
    ),
    (
        "high <= low",
        '{"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 4, '
        '"original_max_position_embeddings": 8192}',
        {},
        "high_freq_factor",
        "warning",
        ["not greater than low_freq_factor", "HF transformers warns and computes"],
    ),
    ("rope_theta 1", '{"head_dim": 64, "rope_theta": 1}', {}, "rope_theta", "error", ["greater than 1", "got 1"]),
    ("rope_theta huge", '{"head_dim": 64, "rope_theta": 1e30}', {}, "rope_theta", "error", ["at most"]),
    (
        "rope_scaling a string",
        '{"head_dim": 64, "rope_scaling": "yarn"}',
        {},
        "rope_scaling",
        "error",
        ["must be an object", "the text 'yarn'"],
    ),
    ("rope_type a number", '{"rope_type": 3}', {}, "rope_type", "error", ["name of a method", "got 3"]),
    (
        "truncate not a bool",
        '{"rope_type": "yarn", "factor": 4, "truncate": "no"}',
        {},
        "truncate",
        "error",
        ["true or false"],
    ),
    (
        "negative list entry",
        '{"rope_type": "longrope", "short_factor": [1, 1, -2, 1], "long_factor": [1, 1, 1, 1]}',
        {"fallback_head_dim": 8},
        "short_factor",
        "error",
        ["entry 2 must be a positive number", "got -2"],
    ),
    (
        "partial factor 1.5",
        '{"head_dim": 64, "partial_rotary_factor": 1.5}',
        {},
        "partial_rotary_factor",
        "error",
        ["at most 1"],
    ),
    (
        "partial factor too small",
        '{"head_dim": 64, "partial_rotary_factor": 0.01}',
        {},
        "partial_rotary_factor",
        "error",
        ["must be even and at least 2"],
    ),
    (
        "rotary_dim > head_dim",
        '{"n_embd": 256, "n_head": 4, "rotary_dim": 128}',
        {},
        "rotary_dim",
        "error",
        ["larger than the head size 64"],
    ),
    (
        "unused key",
        '{"rope_type": "yarn", "factor": 16.0, "finetuned": true}',
        {},
        "finetuned",
        "warning",
        ["not a parameter of rope_type 'yarn'", "ignored"],
    ),
    (
        "key of another type",
        '{"rope_type": "linear", "factor": 2.0, "beta_fast": 32}',
        {},
        "beta_fast",
        "warning",
        ["not used by rope_type 'linear'"],
    ),
    (
        "type and rope_type differ",
        '{"rope_type": "yarn", "type": "linear", "factor": 2.0}',
        {},
        "type",
        "warning",
        ["rope_type is used"],
    ),
    ("duplicate key", '{"head_dim": 64, "head_dim": 128}', {}, "head_dim", "warning", ["more than once"]),
    (
        "theta disagreement",
        '{"head_dim": 64, "rope_theta": 10000.0, "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}}',
        {},
        "rope_theta",
        "warning",
        ["differs from"],
    ),
    (
        "longrope without original",
        '{"rope_type": "longrope", "short_factor": [1, 1], "long_factor": [1, 2]}',
        {"fallback_head_dim": 4, "fallback_max_position_embeddings": 8192},
        "original_max_position_embeddings",
        "warning",
        ["attention factor is 1"],
    ),
    (
        "tiny factor",
        '{"rope_type": "linear", "factor": 5e-324}',
        {"fallback_head_dim": 64},
        "factor",
        "error",
        ["rejected by the RoPE computation", "non-finite"],
    ),
    (
        "bad fallback head",
        '{"rope_type": "linear", "factor": 2}',
        {"fallback_head_dim": 10**9},
        "head_dim",
        "error",
        ["at most 1,024"],
    ),
]


@pytest.mark.parametrize("text,kwargs,key,severity,substrings", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_gets_a_clear_problem_on_the_right_key(text, kwargs, key, severity, substrings):
    start = time.perf_counter()
    parsed = parse_model_config(text, **kwargs)
    assert time.perf_counter() - start < 1.0
    matching = [p for p in parsed.problems if p.key == key and p.severity == severity]
    assert matching, f"no {severity} on {key!r}; got {parsed.problems}"
    message = " | ".join(p.message for p in matching)
    for sub in substrings:
        assert sub in message, f"{sub!r} not in {message!r}"
    assert parsed.ok == (not parsed.errors)
    if severity == "error":
        assert not parsed.ok
        with pytest.raises(ValueError, match="the config has errors"):
            parsed.inverse_frequencies(head_dim=64, max_position_embeddings=4096)
    assert not parsed.problems_for("(internal)")


def test_a_warning_alone_leaves_the_config_usable():
    parsed = parse_model_config('{"rope_type": "linear", "factor": 0.5}', fallback_head_dim=64)
    assert parsed.ok and [p.severity for p in parsed.problems] == ["warning"]
    inv, _af = parsed.inverse_frequencies(max_position_embeddings=2048)
    np.testing.assert_allclose(inv, posenc.inverse_frequencies(64) / 0.5)


def test_inverse_frequencies_needs_the_sizes_the_text_lacks():
    parsed = parse_model_config('{"rope_type": "linear", "factor": 2.0}')
    with pytest.raises(ValueError, match="head_dim is unknown"):
        parsed.inverse_frequencies()
    with pytest.raises(ValueError, match="max_position_embeddings is unknown"):
        parsed.inverse_frequencies(head_dim=64)
    inv, _ = parsed.inverse_frequencies(head_dim=64, max_position_embeddings=4096)
    assert inv.shape == (32,)


def test_deep_nesting_and_big_text_return_fast():
    for text in (
        "[" * 10000 + "]" * 10000,
        "{" * 100_000,
        '{"a":' * 50_000,
        "x" * (5 << 20),
        '"' + "\\" * 200_000 + '"',
        '["' + '\\"[' * 80_000 + '"]',
    ):
        start = time.perf_counter()
        parsed = parse_model_config(text)
        assert time.perf_counter() - start < 1.0
        assert not parsed.ok


def test_bytes_are_accepted_as_utf8():
    assert parse_model_config(MISTRAL_7B.encode()).ok
    assert not parse_model_config(b"\xff\xfe{").ok
    assert parse_model_config("\ufeff" + MISTRAL_7B).ok


def test_problem_messages_do_not_echo_long_values():
    parsed = parse_model_config('{"rope_type": "' + "A" * 5000 + '", "' + "k" * 5000 + '": 1}')
    assert parsed.problems and all(len(p.message) < 400 and len(p.key) < 100 for p in parsed.problems)


def test_problem_is_a_plain_value():
    p = Problem("factor", "error", "must be a number")
    assert p == Problem("factor", "error", "must be a number") and hash(p)


# ------------------------------------------------------------------------------------------------
# 3. properties: random text and random JSON never raise; an ok result always computes
# ------------------------------------------------------------------------------------------------
INTERESTING_KEYS = [
    "rope_type",
    "type",
    "factor",
    "rope_theta",
    "head_dim",
    "hidden_size",
    "num_attention_heads",
    "max_position_embeddings",
    "original_max_position_embeddings",
    "beta_fast",
    "beta_slow",
    "mscale",
    "mscale_all_dim",
    "attention_factor",
    "truncate",
    "low_freq_factor",
    "high_freq_factor",
    "short_factor",
    "long_factor",
    "partial_rotary_factor",
    "rotary_pct",
    "rotary_dim",
    "qk_rope_head_dim",
    "rope_scaling",
    "rope_parameters",
    "model_type",
    "n_embd",
    "n_head",
    "rope_interleave",
    "text_config",
    "full_attention",
    "rotary_emb_base",
]
ROPE_TYPE_NAMES = [*posenc.ROPE_SCALING, "su", "mrope", "Yarn", ""]

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-3, max_value=300)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.floats(min_value=0.01, max_value=1e6)
    | st.text(max_size=12)
    | st.sampled_from(ROPE_TYPE_NAMES)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=6)
        | st.dictionaries(st.sampled_from(INTERESTING_KEYS) | st.text(max_size=8), children, max_size=7)
    ),
    max_leaves=40,
)

FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _assert_well_behaved(parsed):
    assert isinstance(parsed, ParsedConfig)
    assert not parsed.problems_for("(internal)"), parsed.problems
    assert all(p.severity in ("error", "warning") for p in parsed.problems)
    assert parsed.ok == (not any(p.severity == "error" for p in parsed.problems))
    if parsed.ok and parsed.rope_type is not None and parsed.head_dim is not None:
        inv, af = parsed.inverse_frequencies(max_position_embeddings=4096)
        assert np.all(np.isfinite(inv)) and math.isfinite(af) and af > 0
        assert inv.shape == (parsed.rotary_dim // 2,)


@FUZZ
@given(st.text(max_size=3000))
def test_random_text_never_raises(text):
    _assert_well_behaved(parse_model_config(text))


@FUZZ
@given(json_values)
def test_random_json_never_raises(value):
    _assert_well_behaved(parse_model_config(json.dumps(value)))
    _assert_well_behaved(
        parse_model_config(json.dumps(value), fallback_head_dim=64, fallback_max_position_embeddings=4096)
    )


@FUZZ
@given(st.sampled_from(list(FAMILIES)), st.sampled_from(INTERESTING_KEYS), json_values, st.booleans())
def test_mutated_real_configs_never_raise(family, key, value, into_block):
    config = json.loads(FAMILIES[family][0])
    target = config
    if into_block and isinstance(config.get("rope_scaling"), dict):
        target = config["rope_scaling"]
    target[key] = value
    _assert_well_behaved(parse_model_config(json.dumps(config)))


@FUZZ
@given(st.sampled_from(list(FAMILIES)), st.integers(min_value=0, max_value=4000), st.text(max_size=3))
def test_truncated_or_spliced_real_configs_never_raise(family, cut, junk):
    text = FAMILIES[family][0]
    _assert_well_behaved(parse_model_config(text[:cut] + junk + text[cut:]))
    _assert_well_behaved(parse_model_config(text[:cut]))


def test_size_limit_constant():
    assert MAX_TEXT_BYTES == 256 * 1024
    exactly = '{"head_dim": 64}' + " " * (MAX_TEXT_BYTES - 16)
    assert parse_model_config(exactly).ok
    assert not parse_model_config(exactly + " ").ok
