r"""What each decoder layer does with positions: per-layer RoPE, NoPE layers, attention windows.

Models shipped since 2025 do not use one rope for every layer. HF transformers 5.x lets
``rope_parameters`` be keyed by layer type (``{"sliding_attention": {...}, "full_attention": {...}}``)
with ``layer_types`` naming each layer's type, and some models leave RoPE out of some layers
(NoPE). This module turns a config's fields into one :class:`LayerPlan` per decoder layer, with the
rules of each model class as HF transformers 5.23 writes them (``models/<name>/configuration_*.py``
and ``modeling_*.py``):

* **Gemma 3** (``gemma3``, ``gemma3_text``): ``layer_types[i] = "sliding_attention" if (i + 1) %
  sliding_window_pattern else "full_attention"`` (pattern 6: one full layer in six); sliding layers
  use base ``rope_local_base_freq`` (default 10 000) with no scaling, full layers ``rope_theta``
  (class default 1 000 000) with the config's ``rope_scaling``.
* **Llama 4** (``llama4``, ``llama4_text``; iRoPE): ``no_rope_layers[i] = int((i + 1) %
  no_rope_layer_interval != 0)`` (interval 4; an empty list means this default); 1 = RoPE with
  chunked attention of ``attention_chunk_size`` tokens, 0 = NoPE with full attention, where q is
  multiplied by :func:`attention_temperature` when ``attn_temperature_tuning``; class default
  rope_theta 500 000; pairs are interleaved.
* **SmolLM3** (``smollm3``): the same ``no_rope_layers`` / ``no_rope_layer_interval`` rule (interval 4);
  class default rope_theta 2 000 000.
* **Cohere2** (``cohere2``): ``layer_types`` from ``sliding_window_pattern`` (4); only the sliding
  layers apply RoPE, the full-attention layers are NoPE.
* **gpt-oss** (``gpt_oss``): ``layer_types`` alternate sliding (even i) / full; one rope for all.
* Any other model: an explicit ``layer_types`` is read as given; every layer uses the one rope block.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import _validate as v

FULL, SLIDING, CHUNKED = "full_attention", "sliding_attention", "chunked_attention"

#: model_type -> the class's ``default_theta`` (rope_theta when a config leaves it out); a mapping
#: gives one per layer type. Read in transformers 5.23 (src/transformers/…): the base
#: ``RotaryEmbeddingConfigMixin.default_theta = 10_000.0`` (modeling_rope_utils.py:760) unless the class
#: overrides it — models/gpt_oss/configuration_gpt_oss.py:36 GptOssConfig 150000.0;
#: llama4/configuration_llama4.py:111 Llama4TextConfig 500000.0; smollm3/configuration_smollm3.py:55
#: SmolLM3Config 2000000.0; gemma3/configuration_gemma3.py:99 Gemma3TextConfig {"global": 1e6, "local": 1e4};
#: qwen2_5_vl/configuration_qwen2_5_vl.py:91 Qwen2_5_VLTextConfig 1000000.0; qwen2_vl/configuration_qwen2_vl.py:68
#: Qwen2VLTextConfig 1000000.0; qwen3_vl/configuration_qwen3_vl.py:81 Qwen3VLTextConfig 500000.0;
#: olmo3/configuration_olmo3.py:84 Olmo3Config 500000.0. No override (10000.0) in the configuration_*.py of
#: llama, mistral, qwen2, qwen3, deepseek_v2, deepseek_v3, deepseek_v32, gptj, codegen, gpt_neox (rope_theta
#: from rotary_emb_base, else default_theta), phi3, cohere2 and glm4v. A multimodal wrapper (``llama4``,
#: ``gemma3``, ``qwen2_5_vl``, …) builds its text config class, so it maps to the text class's value.
DEFAULT_THETA: Mapping[str, float | Mapping[str, float]] = {
    "gpt_oss": 150_000.0,
    "llama4": 500_000.0,
    "llama4_text": 500_000.0,
    "smollm3": 2_000_000.0,
    "gemma3": {FULL: 1_000_000.0, SLIDING: 10_000.0},
    "gemma3_text": {FULL: 1_000_000.0, SLIDING: 10_000.0},
    "qwen2_5_vl": 1_000_000.0,
    "qwen2_5_vl_text": 1_000_000.0,
    "qwen2_vl": 1_000_000.0,
    "qwen2_vl_text": 1_000_000.0,
    "qwen3_vl": 500_000.0,
    "qwen3_vl_text": 500_000.0,
    "olmo3": 500_000.0,
    **dict.fromkeys(
        (
            "llama",
            "mistral",
            "qwen2",
            "qwen3",
            "deepseek_v2",
            "deepseek_v3",
            "deepseek_v32",
            "gptj",
            "codegen",
            "gpt_neox",
            "phi3",
            "cohere2",
            "glm4v",
            "glm4v_text",
        ),
        10_000.0,
    ),
}
BASE_DEFAULT_THETA = 10_000.0

#: Gemma 3 and its text-only config build their rope blocks the same way (below).
_GEMMA3 = {
    "class": "Gemma3TextConfig",
    "name": "Gemma 3",
    "theta_key": {FULL: "rope_theta", SLIDING: "rope_local_base_freq"},
}
#: Config classes that build their per-layer-type rope blocks themselves (HF 5.23
#: ``convert_rope_params_to_dict``: models/gemma3/configuration_gemma3.py lines 133-161,
#: models/olmo3/configuration_olmo3.py lines 101-126): ``rope_scaling`` merged into the full-attention
#: block, a missing type's block is ``{"rope_type": "default"}``, each type's rope_theta from
#: ``theta_key[type]`` at the top level of the config, else the class's :data:`DEFAULT_THETA`.
FILLED_TYPE_BLOCKS: Mapping[str, Mapping[str, Any]] = {
    "gemma3": _GEMMA3,
    "gemma3_text": _GEMMA3,
    "olmo3": {"class": "Olmo3Config", "name": "OLMo 3", "theta_key": {FULL: "rope_theta", SLIDING: "rope_theta"}},
}

#: Config classes that supply a rope block of their own when a config gives none (neither
#: ``rope_scaling`` nor ``rope_parameters``, or both null): HF 5.23
#: models/gpt_oss/configuration_gpt_oss.py, ``GptOssConfig.__post_init__`` (``if self.rope_parameters is
#: None: self.rope_parameters = {...}``, lines 88-96).
CLASS_ROPE_BLOCKS: Mapping[str, Mapping[str, Any]] = {
    "gpt_oss": {
        "rope_type": "yarn",
        "factor": 32.0,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "truncate": False,
        "original_max_position_embeddings": 4096,
    },
}

#: model types whose NoPE layers come from no_rope_layers / no_rope_layer_interval (HF default 4).
NO_ROPE_INTERVAL_MODELS = {"llama4": 4, "llama4_text": 4, "smollm3": 4}
#: model types whose layer_types come from sliding_window_pattern (HF default per class).
SLIDING_PATTERN_MODELS = {"gemma3": 6, "gemma3_text": 6, "cohere2": 4}


def default_theta(model_type: str | None, layer_type: str | None = None) -> float:
    """The rope_theta HF uses when a config of ``model_type`` leaves it out (per layer type for Gemma 3)."""
    value = DEFAULT_THETA.get(model_type or "", BASE_DEFAULT_THETA)
    if isinstance(value, Mapping):
        return float(value.get(layer_type or FULL, value[FULL]))
    return float(value)


def attention_temperature(positions, *, floor_scale, attn_scale) -> np.ndarray:
    r"""Llama 4's q multiplier on NoPE layers: :math:`1 + \text{attn\_scale}\cdot\ln(\lfloor (p+1)/
    \text{floor\_scale}\rfloor + 1)`.

    HF transformers ``Llama4TextAttention.forward``: ``attn_scales = log(floor((cache_position + 1) /
    floor_scale) + 1) * attn_scale + 1`` (Nakanishi 2025, "Scalable-Softmax", arXiv:2501.19399). It is
    1 for positions below floor_scale − 1 and grows by attn_scale·ln 2 at the first step.
    """
    pos = v.positions_array("positions", positions)
    if np.any(pos < 0):
        raise ValueError(f"positions must be >= 0, got {float(pos.min())}")
    floor_scale = v.positive_float("floor_scale", floor_scale)
    attn_scale = v.finite_float("attn_scale", attn_scale)
    return 1.0 + attn_scale * np.log(np.floor((pos + 1.0) / floor_scale) + 1.0)


@dataclass(frozen=True)
class LayerPlan:
    """One decoder layer: its type, whether it rotates, and its attention span."""

    index: int
    layer_type: str | None  # "full_attention", "sliding_attention", "chunked_attention", … or None
    rope: bool  # False: a NoPE layer (no rotation at all)
    attention: str  # "full" | "sliding" | "chunked"
    window: int | None  # tokens a query sees (sliding window / chunk size); None: all earlier tokens
    temperature: bool  # Llama 4: q scaled by attention_temperature on this (NoPE) layer


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None
    return int(value) if value > 0 else None


def _model_type(cfg: Mapping[str, Any]) -> str:
    value = cfg.get("model_type")
    return value if isinstance(value, str) else ""


def derived_layer_types(cfg: Mapping[str, Any], n_layers: int) -> list[str] | None:
    """The layer_types HF derives when a config does not list them (None: this class has none)."""
    model_type = _model_type(cfg)
    if model_type in SLIDING_PATTERN_MODELS:
        pattern = _int_or_none(cfg.get("sliding_window_pattern")) or SLIDING_PATTERN_MODELS[model_type]
        return [SLIDING if (i + 1) % pattern else FULL for i in range(n_layers)]
    if model_type == "gpt_oss":
        return [SLIDING if (i + 1) % 2 else FULL for i in range(n_layers)]
    if model_type in NO_ROPE_INTERVAL_MODELS and model_type.startswith("llama4"):
        rope = rope_layers(cfg, n_layers)
        return [CHUNKED if r else FULL for r in rope]
    return None


def rope_layers(cfg: Mapping[str, Any], n_layers: int) -> list[bool]:
    """True for a layer that rotates q and k, False for a NoPE layer."""
    model_type = _model_type(cfg)
    given = cfg.get("no_rope_layers")
    if isinstance(given, Sequence) and not isinstance(given, str) and len(given) > 0:
        return [bool(x) for x in list(given)[:n_layers]] + [True] * max(0, n_layers - len(given))
    if model_type in NO_ROPE_INTERVAL_MODELS:
        interval = _int_or_none(cfg.get("no_rope_layer_interval")) or NO_ROPE_INTERVAL_MODELS[model_type]
        return [(i + 1) % interval != 0 for i in range(n_layers)]
    if model_type == "cohere2":
        given_types = cfg.get("layer_types")
        types = given_types if isinstance(given_types, list) else derived_layer_types(cfg, n_layers) or []
        return [t == SLIDING for t in types] + [True] * max(0, n_layers - len(types))
    return [True] * n_layers


def hybrid_layer_plan(n_layers: int, *, nope_interval: int = 4) -> list[str]:
    """``"rope"`` or ``"nope"`` for each of ``n_layers`` layers under Llama 4's and SmolLM3's rule
    (:func:`rope_layers` with ``no_rope_layer_interval``): layer i (from 0) is NoPE when
    (i + 1) % nope_interval == 0, so every nope_interval-th layer drops RoPE (1: every layer is NoPE).
    A hybrid RoPE/NoPE model needs n_layers >= nope_interval to have a NoPE layer at all."""
    n_layers = v.integer("n_layers", n_layers, minimum=1, maximum=100_000)
    nope_interval = v.integer("nope_interval", nope_interval, minimum=1, maximum=100_000)
    rope = rope_layers({"model_type": "llama4_text", "no_rope_layer_interval": nope_interval}, n_layers)
    return ["rope" if r else "nope" for r in rope]


def layer_plans(cfg: Mapping[str, Any], n_layers: int, layer_types: Sequence[str] | None) -> list[LayerPlan]:
    """One :class:`LayerPlan` per decoder layer of a (text) config."""
    model_type = _model_type(cfg)
    rope = rope_layers(cfg, n_layers)
    sliding_window = _int_or_none(cfg.get("sliding_window"))
    chunk = _int_or_none(cfg.get("attention_chunk_size"))
    tuning = bool(cfg.get("attn_temperature_tuning", model_type in ("llama4", "llama4_text")))
    plans = []
    for i in range(n_layers):
        layer_type = layer_types[i] if layer_types is not None else None
        attention, window = "full", None
        if layer_type == SLIDING and sliding_window:
            attention, window = "sliding", sliding_window
        elif layer_type == CHUNKED or (model_type in ("llama4", "llama4_text") and rope[i] and chunk):
            attention, window = ("chunked", chunk) if chunk else ("full", None)
        elif (
            layer_type is None
            and sliding_window
            and cfg.get("use_sliding_window", True) is not False
            and model_type not in ("llama4", "llama4_text")
        ):
            # a config without layer_types and a sliding_window (Mistral v0.1): every layer slides
            attention, window = "sliding", sliding_window
        temperature = model_type in ("llama4", "llama4_text") and tuning and not rope[i]
        plans.append(LayerPlan(i, layer_type, rope[i], attention, window, temperature))
    return plans
