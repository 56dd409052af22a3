"""Real models' RoPE settings, each declared once: its published ``config.json`` and what a config cannot say.

A preset is ``ModelPreset(name, key, source, layout, notes, config)``. ``config`` holds the
position-related fields of the model's published ``config.json``, with the file's own keys and values
(``n_embd``, ``rotary_pct``, ``"type": "yarn"``, a top-level ``original_max_position_embeddings``, a
``text_config``, …). The numbers the rest of posenc uses (``head_dim``, ``rope_theta``,
``max_position_embeddings``, ``partial_rotary_factor``, ``rope_parameters``) are derived from it by
:func:`posenc.parse_model_config`, which normalises it as HF transformers does (``rope_type`` instead of
the older ``type``; ``rope_theta``, ``original_max_position_embeddings`` and ``partial_rotary_factor``
moved into the block). Where a model card tells users to add a rope block the shipped file lacks
(Qwen2.5 7B Instruct, Qwen3 8B), the config carries the card's block and the name, source and notes say so.

``source`` names the file the numbers were checked against and says how: "verbatim" means the file's
text was read; otherwise it says which copies or code were read instead. Gated repositories (Meta's
Llama) were checked against copies re-uploaded with ``"_name_or_path"`` pointing at the original.

Pairing convention (``layout``): "half" pairs (x_j, x_{j+r/2}) as HF's converted checkpoints and
GPT-NeoX do; "interleaved" pairs (x_{2j}, x_{2j+1}) as GPT-J, Meta's original LLaMA code and
DeepSeek's original code do. The layout is a property of how the checkpoint's q/k weights are laid
out, not of the config: the same numbers with the wrong layout rotate the wrong coordinate pairs.

To add a preset: one ``ModelPreset(...)`` in ``_PRESETS`` (config, provenance, layout, notes), and its
published numbers re-typed in ``tests/test_models.py``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

import numpy as np

from .config import ParsedConfig, parse_model_config
from .scaling import rope_inverse_frequencies

LAYOUTS = ("half", "interleaved")


class FrozenDict(dict):
    """A read-only ``dict`` (lists stored as tuples): JSON-serialisable, picklable, hashable.

    ``dict(preset.rope_parameters)`` gives an ordinary mutable copy.
    """

    def _readonly(self, *args, **kwargs):
        raise TypeError("a preset's rope_parameters are read-only; use dict(preset.rope_parameters) for a copy")

    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _readonly
    __ior__ = _readonly

    def __hash__(self):
        return hash(tuple(sorted((k, v) for k, v in self.items())))

    def __reduce__(self):
        return (FrozenDict, (dict(self),))

    def copy(self) -> dict:
        return dict(self)


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return FrozenDict({k: _freeze(v) for k, v in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


@dataclass(frozen=True)
class ModelPreset:
    """One real model: its published config plus what a config cannot say (name, provenance, layout, notes).

    The other attributes are derived from ``config`` by :func:`posenc.parse_model_config`; ``rope_parameters``
    is the rope block as HF normalises it (for a model whose layers differ, the full-attention layers';
    :func:`preset_config` gives every layer's).
    """

    name: str
    key: str
    source: str
    layout: str  # "half" | "interleaved"
    notes: str
    #: The published config.json's position-related fields (multimodal models: with their text_config).
    config: Mapping[str, Any]
    head_dim: int = field(init=False)  # rotary head size; for DeepSeek's MLA the RoPE part only (qk_rope_head_dim)
    rope_theta: float = field(init=False)
    max_position_embeddings: int = field(init=False)
    partial_rotary_factor: float = field(init=False)  # fraction of head_dim that rotates (1.0 = all of it)
    rope_parameters: Mapping[str, Any] = field(init=False)

    def __post_init__(self):
        if self.layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, got {self.layout!r}")
        object.__setattr__(self, "config", _freeze(self.config))
        parsed = preset_config(self)
        if not parsed.ok or parsed.head_dim is None or parsed.max_position_embeddings is None:
            found = (
                f"{parsed.errors[0].key}: {parsed.errors[0].message}"
                if parsed.errors
                else "no head size or no max_position_embeddings"
            )
            raise ValueError(f"config must be a config.json posenc can compute with, got one with {found}")
        derived = {
            "head_dim": parsed.head_dim,
            "rope_theta": float(parsed.rope_theta or 0),
            "max_position_embeddings": parsed.max_position_embeddings,
            "partial_rotary_factor": parsed.partial_rotary_factor,
            "rope_parameters": _freeze(parsed.rope_parameters),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @property
    def rope_type(self) -> str:
        return self.rope_parameters.get("rope_type", "default")

    @property
    def rotary_dim(self) -> int:
        """Number of coordinates that rotate: int(head_dim · partial_rotary_factor), as HF computes it."""
        return int(self.head_dim * self.partial_rotary_factor)


def preset_config(preset) -> ParsedConfig:
    """The preset's (or its key's) published config parsed by :func:`posenc.parse_model_config`: the
    numbers the preset's attributes come from, plus layer types, NoPE layers and each layer's rope."""
    if isinstance(preset, str):
        preset = get_preset(preset)
    return parse_model_config(json.dumps(preset.config))  # JSON writes a FrozenDict as an object, a tuple as a list


# --- Phi-3 mini 128k instruct: LongRoPE rescale factors, one per rotated pair (head_dim 96 → 48) -----
# microsoft/Phi-3-mini-128k-instruct config.json (current main, "type": "longrope"; the April 2024
# release had "type": "su" and different lists). The first 30 long_factor entries were read on the
# HF page of that file; the full 48 + 48 entries were read in Microsoft's LONGROPE_PARAMS copy of the
# block (an evaluation script whose first 30 long entries match the page), and the lists' heads and
# tails match a third-party quotation of the same config.json.
# fmt: off
_PHI3_MINI_128K_LONG_FACTOR = (
    1.0700000524520874, 1.1200000047683716, 1.149999976158142, 1.4199999570846558, 1.5699999332427979,
    1.7999999523162842, 2.129999876022339, 2.129999876022339, 3.009999990463257, 5.910000324249268,
    6.950000286102295, 9.070000648498535, 9.930000305175781, 10.710000038146973, 11.130000114440918,
    14.609999656677246, 15.409998893737793, 19.809999465942383, 37.279998779296875, 38.279998779296875,
    38.599998474121094, 40.12000274658203, 46.20000457763672, 50.940006256103516, 53.66000747680664,
    54.9373893737793, 56.89738845825195, 57.28738784790039, 59.98738479614258, 60.86738586425781,
    60.887386322021484, 61.71739196777344, 62.91739273071289, 62.957393646240234, 63.41739273071289,
    63.8173942565918, 63.83739471435547, 63.897396087646484, 63.93739700317383, 64.06739807128906,
    64.11434936523438, 64.12435150146484, 64.15435028076172, 64.19435119628906, 64.24435424804688,
    64.57435607910156, 64.69000244140625, 64.76000213623047,
)
_PHI3_MINI_128K_SHORT_FACTOR = (
    1.1, 1.1, 1.1, 1.3000000000000003,
    1.3500000000000003, 1.3500000000000003, 1.4000000000000004, 1.5500000000000005,
    *([2.000000000000001] * 17), *([2.0500000000000007] * 6),
    2.1000000000000005, 2.1000000000000005, 2.1500000000000004, 2.25, 2.25, 2.25,
    2.25, 2.25, 2.3999999999999995, 2.4499999999999993, 2.499999999999999, 2.6999999999999984,
    2.6999999999999984, 2.7499999999999982, 2.799999999999998, 2.8999999999999977, 3.049999999999997,
)
# fmt: on

#: The rope block both gpt-oss config.json files (20b, 120b) write.
_GPT_OSS_ROPE_SCALING = {
    "beta_fast": 32.0,
    "beta_slow": 1.0,
    "factor": 32.0,
    "original_max_position_embeddings": 4096,
    "rope_type": "yarn",
    "truncate": False,
}
_HALF_NOTE = (
    "HF's converted checkpoint uses the half layout: the conversion script permutes the q/k "
    "projection rows so that half-split pairs on the converted weights equal the interleaved "
    "pairs of Meta's original code."
)

_PRESETS = (
    ModelPreset(
        name="Llama 2 7B",
        key="llama2-7b",
        source=(
            "meta-llama/Llama-2-7b-hf config.json (gated; values read in re-uploads whose config "
            'names "_name_or_path": "meta-llama/Llama-2-7b-hf", e.g. philschmid/Llama-2-7b-hf): '
            "hidden_size 4096, num_attention_heads 32, max_position_embeddings 4096, "
            "rope_scaling null, rope_theta 10000.0 (older copies omit rope_theta; 10000 is the default)"
        ),
        layout="half",
        notes="Plain RoPE, no scaling (rope_scaling: null). " + _HALF_NOTE,
        config={
            "model_type": "llama",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 4096,
            "rope_scaling": None,
            "rope_theta": 10000.0,
        },
    ),
    ModelPreset(
        name="Llama 3.1 8B",
        key="llama3.1-8b",
        source=(
            "meta-llama/Llama-3.1-8B config.json (gated; values read in re-uploads whose config names "
            '"_name_or_path": "meta-llama/Llama-3.1-8B", e.g. NbAiLab/nb-llama-3.1-8B, and in '
            "mlx-community/Meta-Llama-3.1-8B-bf16): head_dim 128, max_position_embeddings 131072, "
            "rope_scaling {factor 8.0, high_freq_factor 4.0, low_freq_factor 1.0, "
            "original_max_position_embeddings 8192, rope_type llama3}, rope_theta 500000.0"
        ),
        layout="half",
        notes=(
            "llama3 scaling: pairs whose wavelength is under 8192/4 tokens are kept, over 8192/1 are "
            "divided by 8, in between they are blended. " + _HALF_NOTE
        ),
        config={
            "model_type": "llama",
            "head_dim": 128,
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "rope_scaling": {
                "factor": 8.0,
                "high_freq_factor": 4.0,
                "low_freq_factor": 1.0,
                "original_max_position_embeddings": 8192,
                "rope_type": "llama3",
            },
            "rope_theta": 500000.0,
        },
    ),
    ModelPreset(
        name="Mistral 7B v0.1",
        key="mistral-7b-v0.1",
        source=(
            "mistralai/Mistral-7B-v0.1 config.json (values read in copies naming it as "
            '"_name_or_path", and in a "Duplicate from mistralai/Mistral-7B-Instruct-v0.1" copy): '
            "hidden_size 4096, num_attention_heads 32, max_position_embeddings 32768, "
            "rope_theta 10000.0, sliding_window 4096, no rope_scaling"
        ),
        layout="half",
        notes=(
            "Plain RoPE; the 32768 max_position_embeddings is not a scaling method: attention uses a "
            "4096-token sliding window."
        ),
        config={
            "model_type": "mistral",
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "max_position_embeddings": 32768,
            "rope_theta": 10000.0,
            "sliding_window": 4096,
        },
    ),
    ModelPreset(
        name="Qwen2.5 7B Instruct (YaRN ×4, per the model card)",
        key="qwen2.5-7b-instruct",
        source=(
            'Qwen/Qwen2.5-7B-Instruct config.json (values read in copies naming it as "_name_or_path"): '
            "hidden_size 3584, num_attention_heads 28, max_position_embeddings 32768, "
            'rope_theta 1000000.0, no rope_scaling. The YaRN block {"factor": 4.0, '
            '"original_max_position_embeddings": 32768, "type": "yarn"} is from the model card '
            '(README, "Processing Long Texts"), which tells users to add it to config.json; '
            "the shipped config.json does not contain it"
        ),
        layout="half",
        notes=(
            "The YaRN block is the model card's opt-in instruction for inputs over 32,768 tokens "
            "(up to 131,072); without it the model runs plain RoPE with base 1e6. max_position_embeddings "
            "is the shipped 32768."
        ),
        config={
            "model_type": "qwen2",
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "max_position_embeddings": 32768,
            "rope_theta": 1000000.0,
            # not in the shipped file: the model card's block for inputs over 32,768 tokens
            "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"},
        },
    ),
    ModelPreset(
        name="gpt-oss-20b",
        key="gpt-oss-20b",
        source=(
            "openai/gpt-oss-20b config.json (the file itself was not found in the corpus; its rope block "
            "{beta_fast 32.0, beta_slow 1.0, factor 32.0, original_max_position_embeddings 4096, "
            "rope_type yarn, truncate false}, rope_theta 150000 and max_position_embeddings 131072 were "
            "read in a report generated from the hub config, and agree with HF transformers' GptOssConfig "
            "defaults and with openai/gpt-oss gpt_oss/torch/model.py ModelConfig: head_dim 64, "
            "rope_theta 150000.0, rope_scaling_factor 32.0, ntk_alpha 1.0, ntk_beta 32.0, "
            "initial_context_length 4096)"
        ),
        layout="half",
        notes=(
            "YaRN without rounding the ramp ends (truncate: false), as OpenAI's reference code computes it "
            "(torch.chunk halves: half layout). Attention factor 0.1·ln 32 + 1 ≈ 1.3466 multiplies cos "
            "and sin."
        ),
        config={
            "model_type": "gpt_oss",
            "head_dim": 64,
            "max_position_embeddings": 131072,
            "initial_context_length": 4096,
            "rope_theta": 150000,
            "rope_scaling": _GPT_OSS_ROPE_SCALING,
        },
    ),
    ModelPreset(
        name="DeepSeek-V3",
        key="deepseek-v3",
        source=(
            "deepseek-ai/DeepSeek-V3 config.json (values read in verbatim copies of the file, e.g. one "
            "with the fp8 quantization_config and num_nextn_predict_layers 1): qk_rope_head_dim 64, "
            "qk_nope_head_dim 128, max_position_embeddings 163840, rope_scaling {beta_fast 32, "
            "beta_slow 1, factor 40, mscale 1.0, mscale_all_dim 1.0, original_max_position_embeddings "
            "4096, type yarn}, rope_theta 10000. Layout: deepseek-ai/DeepSeek-V3 inference/model.py "
            "apply_rotary_emb (torch.view_as_complex on consecutive pairs)"
        ),
        layout="interleaved",
        notes=(
            "Multi-head latent attention: RoPE acts on a separate 64-dim part of each head "
            "(qk_rope_head_dim), the other 128 dims are not rotated. With mscale == mscale_all_dim the "
            "YaRN factor on cos/sin is 1.0; the model instead multiplies the softmax scale by "
            "(0.1·ln 40 + 1)². DeepSeek's own code pairs consecutive coordinates (interleaved) and, like HF, "
            "floors the ramp's low end and ceils its high end."
        ),
        config={
            "model_type": "deepseek_v3",
            "qk_nope_head_dim": 128,
            "qk_rope_head_dim": 64,  # only these 64 of the 192 q/k dims are rotated (MLA)
            "max_position_embeddings": 163840,
            "rope_theta": 10000,
            "rope_scaling": {
                "beta_fast": 32,
                "beta_slow": 1,
                "factor": 40,
                "mscale": 1.0,
                "mscale_all_dim": 1.0,
                "original_max_position_embeddings": 4096,
                "type": "yarn",
            },
        },
    ),
    ModelPreset(
        name="GPT-J 6B",
        key="gpt-j-6b",
        source=(
            'EleutherAI/gpt-j-6b config.json (values read in copies naming it as "_name_or_path", '
            "e.g. hivemind/gpt-j-6B-8bit): n_embd 4096, n_head 16, n_positions 2048, rotary_dim 64, "
            "no rope base (GPT-J's code uses 10000)"
        ),
        layout="interleaved",
        notes=(
            "Partial rotary: only the first 64 of 256 head dims rotate (32 pairs), the other 192 carry no "
            "position. Interleaved pairs (HF's GPT-J uses rotate_every_two)."
        ),
        config={"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_positions": 2048, "rotary_dim": 64},
    ),
    ModelPreset(
        name="GPT-NeoX 20B",
        key="gpt-neox-20b",
        source=(
            'EleutherAI/gpt-neox-20b config.json (values read in copies naming it as "_name_or_path", '
            "e.g. ybelkada/gpt-neo-x-20b-sharded-bf16): hidden_size 6144, num_attention_heads 64, "
            "max_position_embeddings 2048, rotary_emb_base 10000, rotary_pct 0.25"
        ),
        layout="half",
        notes=(
            "Partial rotary: int(96 · 0.25) = 24 of 96 head dims rotate (12 pairs), half layout within "
            "those 24 (GPT-NeoX is where rotate_half comes from)."
        ),
        config={
            "model_type": "gpt_neox",
            "hidden_size": 6144,
            "num_attention_heads": 64,
            "max_position_embeddings": 2048,
            "rotary_emb_base": 10000,
            "rotary_pct": 0.25,
        },
    ),
    ModelPreset(
        name="Phi-3 mini 128k instruct",
        key="phi3-mini-128k-instruct",
        source=(
            "microsoft/Phi-3-mini-128k-instruct config.json (HF page of the file read for the header and "
            "the first 30 long_factor entries: hidden_size 3072, num_attention_heads 32, "
            "max_position_embeddings 131072, original_max_position_embeddings 4096, rope_theta 10000.0; "
            'the full lists from a Microsoft script\'s verbatim copy of the block, "type": "longrope")'
        ),
        layout="half",
        notes=(
            "LongRoPE: one searched rescale factor per pair; short_factor while the sequence fits in "
            "4096 tokens, long_factor once it is longer. Attention factor √(1 + ln 32 / ln 4096) ≈ 1.1902 "
            "(32 = 131072 / 4096). original_max_position_embeddings sits at the top level of the "
            "config; it is moved into the block here."
        ),
        config={
            "model_type": "phi3",
            "hidden_size": 3072,
            "num_attention_heads": 32,
            "max_position_embeddings": 131072,
            "original_max_position_embeddings": 4096,
            "rope_theta": 10000.0,
            "rope_scaling": {
                "long_factor": _PHI3_MINI_128K_LONG_FACTOR,
                "short_factor": _PHI3_MINI_128K_SHORT_FACTOR,
                "type": "longrope",
            },
        },
    ),
    # 2025/2026 models: per-layer RoPE, NoPE layers, M-RoPE
    ModelPreset(
        name="Llama 4 Scout 17B-16E Instruct",
        key="llama4-scout",
        source=(
            "meta-llama/Llama-4-Scout-17B-16E-Instruct config.json, text_config (gated; values read in "
            "verbatim copies of the text_config used by other projects' tests): head_dim 128, 48 layers, "
            "max_position_embeddings 10485760, rope_theta 500000.0, rope_scaling {factor 16.0, "
            "high_freq_factor 1.0, low_freq_factor 1.0, original_max_position_embeddings 8192, rope_type "
            "llama3}, attention_chunk_size 8192, attn_temperature_tuning 4, attn_scale 0.1, floor_scale 8192, "
            "no_rope_layers [] (HF: every 4th layer NoPE, no_rope_layer_interval 4). Layout: HF's "
            "Llama4TextAttention rotates with torch.view_as_complex on consecutive pairs (interleaved)"
        ),
        layout="interleaved",
        notes=(
            "iRoPE: layers 3, 7, 11, … (every 4th) have no RoPE and attend to every earlier token, with q "
            "scaled by 1 + 0.1·ln(⌊(pos+1)/8192⌋ + 1); the other layers rotate and attend within chunks of "
            "8,192 tokens. high_freq_factor = low_freq_factor = 1: no pair is smoothed, pairs with a "
            "wavelength over 8,192 tokens are divided by 16. Interleaved pairs."
        ),
        config={
            "model_type": "llama4",
            "text_config": {
                "model_type": "llama4_text",
                "head_dim": 128,
                "hidden_size": 5120,
                "num_attention_heads": 40,
                "num_hidden_layers": 48,
                "max_position_embeddings": 10485760,
                "rope_theta": 500000.0,
                "rope_scaling": {
                    "factor": 16.0,
                    "high_freq_factor": 1.0,
                    "low_freq_factor": 1.0,
                    "original_max_position_embeddings": 8192,
                    "rope_type": "llama3",
                },
                "attention_chunk_size": 8192,
                "attn_temperature_tuning": 4,
                "attn_scale": 0.1,
                "floor_scale": 8192,
                "no_rope_layers": [],
            },
        },
    ),
    ModelPreset(
        name="Gemma 3 4B",
        key="gemma3-4b",
        source=(
            "google/gemma-3-4b-it config.json, text_config (values read in verbatim copies): head_dim 256, "
            "34 layers, max_position_embeddings 131072, rope_theta 1000000.0, rope_local_base_freq 10000.0, "
            "rope_scaling {factor 8.0, rope_type linear}, sliding_window 1024, sliding_window_pattern 6 "
            "(HF Gemma3TextConfig: layer i is full attention when (i + 1) % 6 == 0)"
        ),
        layout="half",
        notes=(
            "Per-layer RoPE: 5 of every 6 layers use a sliding window of 1,024 tokens with base 10,000 and "
            "no scaling; every 6th layer (5, 11, …, 29) attends globally with base 1,000,000 and linear "
            "scaling ×8. The values here are the global layers'; pick a layer to see a local one."
        ),
        config={
            "model_type": "gemma3",
            "text_config": {
                "model_type": "gemma3_text",
                "head_dim": 256,
                "hidden_size": 2560,
                "num_attention_heads": 8,
                "num_hidden_layers": 34,
                "max_position_embeddings": 131072,
                "rope_theta": 1000000.0,
                "rope_local_base_freq": 10000.0,
                "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                "sliding_window": 1024,
                "sliding_window_pattern": 6,
            },
        },
    ),
    ModelPreset(
        name="Qwen3 8B (YaRN ×4, per the model card)",
        key="qwen3-8b",
        source=(
            "Qwen/Qwen3-8B config.json (values read in verbatim copies): head_dim 128, 36 layers, "
            "max_position_embeddings 40960, rope_theta 1000000, rope_scaling null. The YaRN block "
            '{"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768} is the model '
            "card's instruction for texts over 32,768 tokens (up to 131,072)"
        ),
        layout="half",
        notes=(
            "YaRN ×4 over the 32,768 trained tokens, as the model card tells users to add for long inputs; the "
            "shipped config.json has rope_scaling null (plain RoPE, base 1e6). The config here is the shipped one "
            "with the card's block as rope_scaling; max_position_embeddings is the shipped 40960."
        ),
        config={
            "model_type": "qwen3",
            "head_dim": 128,
            "hidden_size": 4096,
            "num_attention_heads": 32,
            "num_hidden_layers": 36,
            "max_position_embeddings": 40960,
            "rope_theta": 1000000,
            # the shipped file has "rope_scaling": null (plain RoPE up to 40,960 positions); this is the block the
            # model card ("Processing Long Texts") tells users to add for inputs over 32,768 tokens
            "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
            "sliding_window": None,
            "use_sliding_window": False,
        },
    ),
    ModelPreset(
        name="Qwen2.5-VL 7B Instruct",
        key="qwen2.5-vl-7b",
        source=(
            "Qwen/Qwen2.5-VL-7B-Instruct config.json (values read in verbatim copies): hidden_size 3584, "
            "num_attention_heads 28, 28 layers, max_position_embeddings 128000, rope_theta 1000000.0, "
            'rope_scaling {"type": "mrope", "mrope_section": [16, 24, 24]}'
        ),
        layout="half",
        notes=(
            "M-RoPE: a position is a (t, h, w) triple; pairs 0–15 turn with t, 16–39 with h, 40–63 with w "
            "(mrope_section [16, 24, 24]). For text t = h = w, so text tokens get plain RoPE with base 1e6, "
            "which is what these pages show."
        ),
        config={
            "model_type": "qwen2_5_vl",
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "num_hidden_layers": 28,
            "max_position_embeddings": 128000,
            "rope_theta": 1000000.0,
            "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
            "sliding_window": 32768,
            "use_sliding_window": False,
        },
    ),
    ModelPreset(
        name="SmolLM3 3B",
        key="smollm3-3b",
        source=(
            "HuggingFaceTB/SmolLM3-3B config.json (values read in verbatim copies and the model's README): "
            "hidden_size 2048, num_attention_heads 16, 36 layers, max_position_embeddings 65536, rope_theta "
            "5000000.0, rope_scaling null, no_rope_layer_interval 4 with no_rope_layers listing every 4th "
            "layer as 0"
        ),
        layout="half",
        notes=(
            "NoPE layers: layers 3, 7, 11, … (every 4th, 9 of 36) rotate nothing; the others use plain RoPE "
            "with base 5,000,000. (HF's SmolLM3Config default_theta is 2,000,000; the shipped file sets 5e6.)"
        ),
        config={
            "model_type": "smollm3",
            "hidden_size": 2048,
            "num_attention_heads": 16,
            "num_hidden_layers": 36,
            "max_position_embeddings": 65536,
            "rope_theta": 5000000.0,
            "rope_scaling": None,
            "no_rope_layer_interval": 4,
            "no_rope_layers": [0 if (i + 1) % 4 == 0 else 1 for i in range(36)],
            "use_sliding_window": False,
        },
    ),
    ModelPreset(
        name="gpt-oss-120b",
        key="gpt-oss-120b",
        source=(
            "openai/gpt-oss-120b config.json (values read in verbatim copies): head_dim 64, 36 layers, "
            "layer_types alternating sliding_attention / full_attention, sliding_window 128, "
            "max_position_embeddings 131072, rope_theta 150000, rope_scaling {beta_fast 32.0, beta_slow 1.0, "
            "factor 32.0, original_max_position_embeddings 4096, rope_type yarn, truncate false}"
        ),
        layout="half",
        notes=(
            "The same YaRN rope as gpt-oss-20b in all 36 layers; even layers attend within a sliding window "
            "of 128 tokens, odd layers to everything."
        ),
        config={
            "model_type": "gpt_oss",
            "head_dim": 64,
            "hidden_size": 2880,
            "num_attention_heads": 64,
            "num_hidden_layers": 36,
            "max_position_embeddings": 131072,
            "initial_context_length": 4096,
            "rope_theta": 150000,
            "rope_scaling": _GPT_OSS_ROPE_SCALING,
            "sliding_window": 128,
            "layer_types": ["sliding_attention", "full_attention"] * 18,
        },
    ),
    ModelPreset(
        name="Qwen2.5 7B (base)",
        key="qwen2.5-7b",
        source=(
            "Qwen/Qwen2.5-7B config.json (values read in verbatim copies): hidden_size 3584, "
            "num_attention_heads 28, 28 layers, max_position_embeddings 131072, rope_theta 1000000.0, "
            "rope_scaling null, use_sliding_window false"
        ),
        layout="half",
        notes=(
            "The base model's config declares 131,072 positions with plain RoPE (base 1e6, no scaling); the "
            "Instruct model's declares 32,768 and its card adds YaRN ×4 for longer inputs."
        ),
        config={
            "model_type": "qwen2",
            "hidden_size": 3584,
            "num_attention_heads": 28,
            "num_hidden_layers": 28,
            "max_position_embeddings": 131072,
            "rope_theta": 1000000.0,
            "rope_scaling": None,
            "sliding_window": 131072,
            "use_sliding_window": False,
        },
    ),
)

PRESETS: Mapping[str, ModelPreset] = MappingProxyType({p.key: p for p in _PRESETS})


def get_preset(key: str) -> ModelPreset:
    """The preset with this key; ValueError listing the known keys otherwise."""
    if not isinstance(key, str) or key not in PRESETS:
        raise ValueError(f"preset must be one of {', '.join(map(repr, PRESETS))}, got {key!r}")
    return PRESETS[key]


def preset_inverse_frequencies(preset, seq_len=None) -> tuple[np.ndarray, float]:
    """(inv_freq, attention_factor) for a preset (or its key), via :func:`posenc.rope_inverse_frequencies`.

    inv_freq has rotary_dim/2 entries (partial rotary shrinks it). ``seq_len`` matters for the
    methods that depend on the current length (longrope: long factors when seq_len > L; dynamic).
    """
    if isinstance(preset, str):
        preset = get_preset(preset)
    if not isinstance(preset, ModelPreset):
        raise TypeError(f"preset must be a ModelPreset or a preset key, got {type(preset).__name__}")
    return rope_inverse_frequencies(
        dict(preset.rope_parameters),
        preset.head_dim,
        max_position_embeddings=preset.max_position_embeddings,
        seq_len=seq_len,
    )
