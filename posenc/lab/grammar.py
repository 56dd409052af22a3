"""The lab's method grammar: ``nope``, ``learned``, ``sinusoidal``, ``rope``, ``alibi`` (``alibi:heads=8``: 8 heads),
and ``rope+<rope_type>[:key=value…][@ft<N>]`` (numpy only).

``rope+<rope_type>`` is the RoPE model evaluated with a scaling method of :data:`posenc.ROPE_SCALING` (the same
registry the context-extension page draws), ``factor`` = evaluation length / training length unless given;
``dynamic`` has ONE config factor (:data:`DYNAMIC_FACTOR` unless given) and grows its base with the sequence
past L, as HF does; a required key the name does not give takes the lab's value (:data:`REQUIRED_VALUES`:
llama3's low/high_freq_factor, Llama 3.1's 1 and 4). A suffix ``@ft<N>`` fine-tunes the RoPE model at length N
first (with that scaling, factor N/L) and then evaluates it with that fixed factor. A real model's recipe
becomes a method through :func:`preset_method`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import grammar
from ..methods import FACTOR, ORIGINAL_MAX_POSITION_EMBEDDINGS, ROPE_METHODS
from ..scaling import ROPE_SCALING
from .tasks import _length

ENCODINGS = ("nope", "learned", "sinusoidal", "rope", "alibi")
#: The encodings of 2024–26 (issue #39), each a posenc.torch module or a schedule of the lab's RoPE model:
#: ``cope`` Contextual Position Encoding, ``fope`` Fourier Position Embedding, ``path`` PaTH attention, ``drope``
#: RoPE dropped after training and recalibrated without positions, ``hybrid`` RoPE in some layers and no position
#: in the others, ``ssmax`` RoPE with Scalable-Softmax (:mod:`posenc.lab.model` says where each acts).
NEWER = ("cope", "fope", "path", "drope", "hybrid", "ssmax")
#: Every encoding the lab trains
ALL_ENCODINGS = (*ENCODINGS, *NEWER)
#: rope+dynamic's config factor when none is given (HF's documented example {"rope_type": "dynamic", "factor": 2.0})
DYNAMIC_FACTOR = 2.0
#: The values of a method's required keys that a method name does not give and the lab does not derive
#: (``factor`` and ``original_max_position_embeddings`` follow the lengths): :data:`posenc.grammar.REQUIRED_VALUES`,
#: read from the Llama 3.1 preset. data/lab/results.json was computed with them.
REQUIRED_VALUES = grammar.REQUIRED_VALUES


@dataclass(frozen=True)
class MethodSpec:
    """A parsed method name: the trained encoding, the scaling applied at evaluation (a rope block
    without its factor when the factor follows the evaluation length), and an optional fine-tune."""

    name: str
    encoding: str
    rope_type: str | None = None
    params: Mapping[str, float] = field(default_factory=dict)
    finetune_len: int | None = None
    n_heads: int | None = None  # alibi:heads=8 (None: the model's default)

    @property
    def model(self) -> str:
        """The trained model this method evaluates: its encoding, with a head count if given."""
        return self.encoding if self.n_heads is None else f"{self.encoding}:heads={self.n_heads}"

    def trained_len(self, train_len: int) -> int:
        """The length this method's model was last trained at: the fine-tune length, else L."""
        return self.finetune_len or train_len

    def rope_block(self, eval_len: int, train_len: int, *, theta: float = 10000.0) -> dict[str, Any] | None:
        """The rope block used at ``eval_len`` (None: plain RoPE, no scaling). ``factor`` = eval_len / L
        (at least 1) unless given, or finetune_len / L for a fine-tuned model; dynamic NTK keeps ONE config
        factor (DYNAMIC_FACTOR unless given) and follows the length through seq_len, as HF does; a
        required key not given takes the lab's value for it (:data:`REQUIRED_VALUES`: llama3's
        low/high_freq_factor); ``original_max_position_embeddings`` is L. Which keys a method takes is
        its declaration's (:data:`posenc.ROPE_METHODS`), so a method added there needs no edit here."""
        if self.rope_type is None:
            return None
        block: dict[str, Any] = {"rope_type": self.rope_type, "rope_theta": theta, **self.params}
        declared = ROPE_METHODS[self.rope_type].key_names
        for name, value in REQUIRED_VALUES.get(self.rope_type, {}).items():
            block.setdefault(name, value)
        if self.rope_type == "dynamic" and FACTOR.name not in self.params:
            block[FACTOR.name] = DYNAMIC_FACTOR
        elif FACTOR.name in declared and FACTOR.name not in self.params:  # every method but default
            block[FACTOR.name] = max(1.0, (self.finetune_len or eval_len) / train_len)
        # every method whose declaration reads the trained length (yarn, llama3, longrope: the types HF's
        # standardize_rope_params gives it to; dynamic NTK reads max_position_embeddings instead)
        if ORIGINAL_MAX_POSITION_EMBEDDINGS.name in declared:
            block.setdefault(ORIGINAL_MAX_POSITION_EMBEDDINGS.name, train_len)
        return block


def parse_method(name: str) -> MethodSpec:
    """``"rope+yarn:beta_fast=4@ft256"`` -> MethodSpec: the parts :func:`posenc.grammar.parse` reads, in the
    lab's vocabulary (an encoding as the head, a rope_type of ROPE_SCALING after ``rope+``, numbers as
    values, no ``/stop``). Raises ValueError naming the method."""
    shape = (
        f"method must be one of {', '.join(ALL_ENCODINGS)}, alibi:heads=<n> or "
        f"rope+<rope_type>[:key=value…][@ft<length>], got {name!r}"
    )
    parts = grammar.parse(name, shape)
    if parts.head not in ALL_ENCODINGS or parts.stopped is not None:
        raise ValueError(shape)
    rope_type, ft = parts.rope_type, parts.finetune_len
    params: dict[str, float] = {}
    for key, value in parts.params.items():
        if isinstance(value, bool) or not isinstance(value, float) or not math.isfinite(value):
            raise ValueError(f"method: {key} must be a finite number, got {value!r} in {name!r}")
        params[key] = value
    if parts.head == "alibi" and not rope_type and ft is None and params:
        heads = params.get("heads", 0.5)
        if set(params) != {"heads"} or not heads.is_integer() or not 1 <= heads <= 64:
            raise ValueError(f"method: alibi takes one setting, heads = an integer in [1, 64], got {name!r}")
        return MethodSpec(parts.text, "alibi", n_heads=int(heads))
    if (rope_type or ft is not None) and parts.head != "rope":
        raise ValueError(f"method: a scaling or fine-tune applies to rope only, got {name!r}")
    if rope_type is not None and rope_type not in ROPE_SCALING:
        raise ValueError(f"method: rope_type must be one of {', '.join(ROPE_SCALING)}, got {rope_type!r} in {name!r}")
    if params and rope_type is None:
        raise ValueError(f"method: key=value settings need a rope_type (rope+<type>:…), got {name!r}")
    if rope_type is not None:
        allowed = ROPE_METHODS[rope_type].key_names
        for key in params:
            if key not in allowed:
                raise ValueError(
                    f"method: rope_type {rope_type!r} has no setting {key!r} (allowed: {', '.join(allowed) or 'none'}), "
                    f"got {name!r}"
                )
    if ft is not None and rope_type is None:
        rope_type = "default"
    return MethodSpec(
        parts.text, parts.head, rope_type, params, _length("fine-tune length", ft) if ft is not None else None
    )


#: rope_types of a real model's recipe that cannot be moved to the tiny model, and why.
PRESET_LEFT_OUT = {
    "longrope": "LongRoPE's factors are one per rotated pair, searched for its own model's head size; the tiny "
    "model's head has a different number of pairs, so the lists cannot be carried over",
}


def preset_method(preset: Any, layer: int | None = None) -> MethodSpec:
    """A real model's scaling recipe (a :data:`posenc.models.PRESETS` key or preset; for a model whose
    layers differ, ``layer``'s rope) as a method for the lab's RoPE model: the same rope_type and
    scaling parameters (factor, β, mscale, low/high_freq_factor, truncate, …). Left out: ``rope_theta``
    (the tiny model keeps the base it was trained with) and ``original_max_position_embeddings``
    (:meth:`MethodSpec.rope_block` puts the lab's training length there); the head dim is the tiny
    model's. Raises ValueError for a layer without RoPE, a layer out of range, or a rope_type of
    :data:`PRESET_LEFT_OUT`."""
    from ..models import get_preset, preset_config

    preset = get_preset(preset) if isinstance(preset, str) else preset
    block: Mapping[str, Any] = preset.rope_parameters
    where = preset.key
    parsed = preset_config(preset)
    if parsed is not None and parsed.layer_plans and layer is not None:
        n = len(parsed.layer_plans)
        if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= int(layer) < n:
            raise ValueError(f"layer must be an integer in [0, {n - 1}] for {preset.key}, got {layer!r}")
        layer_block = parsed.layer_block(int(layer))
        if layer_block is None:
            raise ValueError(f"layer: layer {layer} of {preset.key} has no RoPE (a NoPE layer), so no recipe")
        block, where = layer_block, f"{preset.key}@layer{int(layer)}"
    rope_type = str(block.get("rope_type", "default"))
    if rope_type in PRESET_LEFT_OUT:
        raise ValueError(f"preset: {preset.key} uses rope_type {rope_type!r}: {PRESET_LEFT_OUT[rope_type]}")
    params = {
        k: v
        for k, v in block.items()
        if k not in ("rope_type", "rope_theta", "original_max_position_embeddings") and v is not None
    }
    return MethodSpec(where, "rope", None if rope_type == "default" and not params else rope_type, params)


def method_name(
    rope_type: str, *, factor: float | None = None, beta_fast: float | None = None, attention_factor: bool = True
) -> str:
    """The method string of a scaling choice: method_name("yarn", beta_fast=4) -> "rope+yarn:beta_fast=4"."""
    if rope_type == "default":
        return "rope"
    params: dict[str, float] = {"factor": factor} if factor else {}
    if rope_type == "yarn" and beta_fast is not None:
        params["beta_fast"] = beta_fast
    if rope_type == "yarn" and not attention_factor:
        params["attention_factor"] = 1
    return grammar.compose("rope", rope_type, params)
