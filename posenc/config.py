"""Read a model's ``config.json`` (or just its rope block) and explain, in plain words, what is wrong.

``parse_model_config(text)`` never raises and never hangs, whatever the text: every finding is a
:class:`Problem` attached to the key it is about (``"rope_scaling.factor"``, ``"head_dim"``; for a
pasted rope block alone, the bare key ``"factor"``; ``"(input)"`` / ``"(json)"`` for the text
itself). ``ParsedConfig.ok`` is True when there is no error (warnings allowed); its
``rope_parameters`` can then be passed straight to :func:`posenc.rope_inverse_frequencies`.

What is read, and from where (first match wins):

* rope block: ``rope_scaling`` if it is given and not empty, else ``rope_parameters`` (HF 5.23's
  ``rope_scaling or rope_parameters``); ``null`` means plain RoPE. A per-layer-type block
  (``{"full_attention": {...}, "sliding_attention": {...}}``) is read type by type; ``rope_parameters``
  (and ``rope_type``, ``rope_theta``, …) then describe ``full_attention`` (else the first type), and
  :meth:`ParsedConfig.layer_rope` gives any layer's. A layer type without a block is an error (HF
  raises KeyError), except for Gemma 3 / OLMo 3, whose config classes build the blocks themselves
  (``rope_scaling`` merged into ``full_attention``, a missing type plain RoPE; posenc.layers
  ``FILLED_TYPE_BLOCKS``). Every block key is checked by its ``MethodKey`` declaration and each method's
  ``advise`` (posenc.methods); the parser names no method's key. Method name from ``rope_type``, else the older
  ``type`` ("su" = longrope, "mrope" = default frequencies with ``mrope_section``). ``rope_theta`` is
  moved into the block; without one, the model class's ``default_theta`` (posenc.layers).
* layers (posenc.layers): ``num_hidden_layers``, ``layer_types`` (given, or derived as HF's config
  class derives it), NoPE layers (``no_rope_layers``, ``no_rope_layer_interval``, Cohere2's full
  layers), windows (``sliding_window``, ``attention_chunk_size``) and Llama 4's attention temperature.
* head size: ``qk_rope_head_dim`` (DeepSeek-V2/V3 multi-head latent attention: only that part of the
  head rotates), else ``head_dim``, else ``hidden_size // num_attention_heads`` (GPT-J: ``n_embd //
  n_head``).
* base: block ``rope_theta``, top-level ``rope_theta``, ``rotary_emb_base`` (GPT-NeoX); else the
  class default (10000 for most).
* ``original_max_position_embeddings``: the top level's wins over the block's (HF's
  standardize_rope_params, for Phi-3); llama3 / yarn / longrope without it use max_position_embeddings.
* partial rotary: ``partial_rotary_factor`` (the top level's wins, as in HF), ``rotary_pct`` (GPT-NeoX;
  absent means 0.25, HF's GPTNeoXConfig default) or ``rotary_dim / head_dim`` (GPT-J).
* layout hint — the pairing convention is a property of the checkpoint's weights, which a config
  does not state, so this is a best guess from ``model_type``: "interleaved" (pairs (x_{2j}, x_{2j+1}))
  for GPT-J / CodeGen (HF's rotate_every_two) and DeepSeek-V2/V3 (original code pairs consecutive
  coordinates; HF follows it with ``rope_interleave``, default true); an explicit ``rope_interleave``
  wins. Everything else "half" (pairs (x_j, x_{j+d/2})): HF's converted LLaMA-family checkpoints
  had their q/k rows permuted so that half-split pairing is right for them, even though Meta's
  original code was interleaved.

Hostile input: text over 256 KB is rejected before parsing; nesting deeper than 20 is found by a
bracket scan (no recursion) before ``json.loads``; NaN/Infinity literals (which Python's json module
accepts) are rejected; integers with more than 1000 digits and floats like 1e999 become infinity
and are reported as too large; sizes must be within sane limits (head_dim ≤ 1024, positions ≤ 10⁷).
"""

from __future__ import annotations

import json
import math
import numbers
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import layers as _layers
from ._validate import _is_real
from .methods import (
    COMMON_KEYS,
    ORIGINAL_MAX_POSITION_EMBEDDINGS,
    ROPE_METHODS,
    MethodKey,
    RopeParameterError,
)
from .scaling import DEFAULT_ROPE_THETA, ntk_alpha_to_base, rope_inverse_frequencies

MAX_TEXT_BYTES = 256 * 1024
MAX_DEPTH = 20
MAX_HEAD_DIM = 1024
MAX_POSITIONS = 16_777_216  # 2^24 (Llama 4 Scout: 10,485,760)
MAX_ROPE_THETA = 1e12
MAX_HIDDEN_SIZE = 10_000_000
MAX_HEADS = 65_536
_MAX_INT_DIGITS = 1000

ERROR = "error"
WARNING = "warning"

KNOWN_ROPE_TYPES = tuple(ROPE_METHODS)
_ROPE_TYPE_ALIASES = {"su": "longrope", "mrope": "default"}

# Which block keys each method reads, and which it cannot do without: declared in posenc.methods.
_TYPE_KEYS = {name: frozenset(method.key_names) for name, method in ROPE_METHODS.items()}
_ALWAYS_ALLOWED = {"rope_type", "type"} | {key.name for key in COMMON_KEYS}
_ALL_BLOCK_KEYS = set().union(*_TYPE_KEYS.values()) | _ALWAYS_ALLOWED
_COMMON_KEY_NAMES = frozenset(key.name for key in COMMON_KEYS)
_ORIGINAL = ORIGINAL_MAX_POSITION_EMBEDDINGS.name
_UNSET = object()  # a block value HF reads as absent (0 for a zero_means_unset key)
# Top-level keys that say "this is a whole config, not a rope block".
_CONFIG_KEYS = {
    "rope_scaling",
    "rope_parameters",
    "hidden_size",
    "num_attention_heads",
    "head_dim",
    "model_type",
    "architectures",
    "max_position_embeddings",
    "n_embd",
    "n_head",
    "n_positions",
    "qk_rope_head_dim",
    "rotary_pct",
    "rotary_dim",
    "rotary_emb_base",
    "num_hidden_layers",
    "vocab_size",
    "layer_types",
    "text_config",
}
MAX_LAYERS = 4096
#: Block keys that describe multimodal positions (M-RoPE), not frequencies: read, not passed on.
_MROPE_KEYS = ("mrope_section", "mrope_interleaved")
_INTERLEAVED_MODEL_TYPES = {
    "gptj": "GPT-J",
    "codegen": "CodeGen",
    "deepseek_v2": "DeepSeek-V2",
    "deepseek_v3": "DeepSeek-V3",
    "deepseek_v32": "DeepSeek-V3.2",
    "llama4": "Llama 4",
    "llama4_text": "Llama 4",
}


@dataclass(frozen=True)
class Problem:
    """One finding: ``key`` is where it is in the pasted text, ``severity`` "error" or "warning"."""

    key: str
    severity: str
    message: str


@dataclass
class ParsedConfig:
    """What :func:`parse_model_config` read. ``None`` where the text did not say (and no default applies)."""

    kind: str = ""  # "config", "rope block", or "" when nothing could be read
    model_type: str | None = None
    head_dim: int | None = None
    rope_theta: float | None = None
    max_position_embeddings: int | None = None
    original_max_position_embeddings: int | None = None
    layout: str = "half"
    partial_rotary_factor: float = 1.0
    rope_type: str | None = None
    rope_parameters: dict = field(default_factory=dict)  # normalised block, ready for rope_inverse_frequencies
    notes: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    num_hidden_layers: int | None = None
    layer_types: list[str] | None = None  # one per layer, or None (the config has no layer types)
    layer_plans: list[_layers.LayerPlan] = field(default_factory=list)  # one per layer (num_hidden_layers known)
    layer_blocks: dict[str, dict] = field(default_factory=dict)  # layer type -> normalised block (per-type configs)
    mrope_section: list[int] | None = None  # M-RoPE: pairs per axis (t, h, w)
    mrope_interleaved: bool = False
    temperature: dict | None = None  # Llama 4: {"floor_scale": …, "attn_scale": …} for the NoPE layers

    def layer_block(self, layer: int) -> dict | None:
        """The normalised rope block decoder layer ``layer`` uses, or None for a NoPE layer."""
        n = self.num_hidden_layers
        if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)):
            raise TypeError(f"layer must be an integer, got {type(layer).__name__}")
        if n is None:
            if layer != 0:
                raise ValueError(f"layer must be 0 when the config does not give num_hidden_layers, got {layer}")
            return self.rope_parameters
        if not 0 <= layer < n:
            raise ValueError(f"layer must be in [0, num_hidden_layers - 1 = {n - 1}], got {layer}")
        if self.layer_plans and not self.layer_plans[layer].rope:
            return None
        if self.layer_blocks and self.layer_types is not None:
            return self.layer_blocks.get(self.layer_types[layer], self.rope_parameters)
        return self.rope_parameters

    def layer_rope(self, layer: int, seq_len=None):
        """(inv_freq, attention_factor) of the rope decoder layer ``layer`` uses, or None for a NoPE layer.

        Raises ValueError when the config has errors, a size is unknown or ``layer`` is out of range.
        """
        block = self.layer_block(layer)
        if block is None:
            return None
        return self.inverse_frequencies(seq_len, rope_parameters=block)

    @property
    def ok(self) -> bool:
        return not any(p.severity == ERROR for p in self.problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]

    def problems_for(self, key: str) -> list[Problem]:
        return [p for p in self.problems if p.key == key]

    @property
    def rotary_dim(self) -> int | None:
        return None if self.head_dim is None else int(self.head_dim * self.partial_rotary_factor)

    def inverse_frequencies(self, seq_len=None, *, head_dim=None, max_position_embeddings=None, rope_parameters=None):
        """(inv_freq, attention_factor) of this config; ``head_dim`` / ``max_position_embeddings`` fill gaps.

        Raises ValueError when the config has errors or a needed size is unknown.
        """
        if not self.ok:
            raise ValueError(f"the config has errors: {self.errors[0].key}: {self.errors[0].message}")
        head_dim = self.head_dim if self.head_dim is not None else head_dim
        max_pos = self.max_position_embeddings if self.max_position_embeddings is not None else max_position_embeddings
        if head_dim is None:
            raise ValueError("head_dim is unknown: the config does not give it, pass head_dim=")
        if max_pos is None:
            max_pos = self.original_max_position_embeddings
        if max_pos is None:
            raise ValueError(
                "max_position_embeddings is unknown: the config does not give it, pass max_position_embeddings="
            )
        block = self.rope_parameters if rope_parameters is None else rope_parameters
        return rope_inverse_frequencies(block, head_dim, max_position_embeddings=max_pos, seq_len=seq_len)


# --------------------------------------------------------------------------------------------------
# describing values without echoing large or hostile text
# --------------------------------------------------------------------------------------------------
def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a true/false value)"
    if isinstance(value, numbers.Integral):
        value = int(value)
        bits = value.bit_length()
        if bits > 64:
            digits = len(str(abs(value))) if bits < 14_000 else int(bits * 0.30103) + 1  # str() caps at 4300 digits
            return f"an integer with {'about ' if bits >= 14_000 else ''}{digits} digits"
        return str(value)
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return (
                "a number too large to represent (it overflows to infinity)"
                if value > 0
                else "a negative number too large to represent (it overflows to -infinity)"
            )
        return repr(value)
    if isinstance(value, str):
        return f"the text {_short(value)!r}"
    if isinstance(value, list):
        return f"a list of {len(value)} item{'' if len(value) == 1 else 's'}"
    if isinstance(value, dict):
        return f"an object with {len(value)} key{'' if len(value) == 1 else 's'}"
    return type(value).__name__


def _limit(x) -> str:
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e15:
        x = int(x)
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


def _short(text: str) -> str:
    """``text`` cut to 40 characters (a key or value of the pasted text, quoted back in a message)."""
    return text if len(text) <= 40 else text[:37] + "..."


def _line_col(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


_BRACKET_TOKENS = re.compile(r'[\[\]{}"\\]')


def _first_too_deep(text: str, limit: int) -> int | None:
    """Index of the first bracket that opens level ``limit + 1`` (strings skipped), or None. No recursion."""
    depth = 0
    in_string = False
    escaped_at = -1
    for match in _BRACKET_TOKENS.finditer(text):
        i = match.start()
        if i == escaped_at:
            continue
        char = match.group()
        if in_string:
            if char == "\\":
                escaped_at = i + 1
            elif char == '"':
                in_string = False
            continue
        if char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > limit:
                return i
        elif char in "]}":
            depth -= 1
    return None


_UNREADABLE = object()  # load() could not produce a JSON value (JSON null is a value: None)


class _NonStandardConstant(ValueError):
    def __init__(self, name: str):
        super().__init__(name)
        self.name = name


def _reject_constant(name: str):
    raise _NonStandardConstant(name)


def _parse_int(digits: str):
    # Python refuses int() of more than 4300 digits; far below that, a number is already absurd here.
    if len(digits.lstrip("-")) > _MAX_INT_DIGITS:
        return -math.inf if digits.startswith("-") else math.inf
    return int(digits)


def _json_hints(text: str) -> str:
    hints = []
    if re.search(r"\b(True|False|None)\b", text):
        hints.append("JSON writes true, false and null in lower case (True/False/None are Python)")
    if "'" in text and '"' not in text:
        hints.append("JSON needs double quotes around keys and strings")
    if re.search(r",\s*[}\]]", text):
        hints.append("JSON does not allow a comma before a closing } or ]")
    if re.search(r"(^|\s)//|/\*", text):
        hints.append("JSON has no comments")
    return f". Hint: {'; '.join(hints)}." if hints else ""


# --------------------------------------------------------------------------------------------------
# the parser
# --------------------------------------------------------------------------------------------------
class _Reader:
    def __init__(self, fallback_head_dim, fallback_max_position_embeddings):
        self.result = ParsedConfig()
        self.fallback_head_dim = fallback_head_dim
        self.fallback_max_pos = fallback_max_position_embeddings
        self.block_path = ""  # where the rope block sits in the pasted text, e.g. "rope_scaling."
        self.block_paths: dict[str, str] = {}  # layer type -> where its block sits
        self.config_prf = 1.0

    # --- recording ---
    def error(self, key: str, message: str):
        self.result.problems.append(Problem(key, ERROR, message))

    def warn(self, key: str, message: str):
        self.result.problems.append(Problem(key, WARNING, message))

    def note(self, message: str):
        self.result.notes.append(message)

    # --- typed reads: return the checked value, or None after recording an error ---
    def number(
        self,
        key: str,
        value: Any,
        *,
        what: str = "a number",
        integer: bool = False,
        minimum: float | None = None,
        maximum: float | None = None,
        above: float | None = None,
    ):
        if not _is_real(value):
            hint = ""
            if isinstance(value, str):
                try:
                    float(value)
                    hint = f"; write it without quotes: {value.strip()}" if len(value) < 40 else ""
                except ValueError:
                    pass
            self.error(key, f"must be {what}, got {_show(value)}{hint}")
            return None
        if isinstance(value, numbers.Integral):
            value = int(value)
        if isinstance(value, float) and not math.isfinite(value):
            self.error(key, f"must be a finite number, got {_show(value)}")
            return None
        if integer and isinstance(value, float):
            if not value.is_integer():
                self.error(key, f"must be a whole number, got {value!r}")
                return None
            value = int(value)
        if above is not None and not value > above:
            self.error(key, f"must be greater than {_limit(above)}, got {_show(value)}")
            return None
        if minimum is not None and value < minimum:
            self.error(key, f"must be at least {_limit(minimum)}, got {_show(value)}")
            return None
        if maximum is not None and value > maximum:
            self.error(key, f"must be at most {_limit(maximum)} (a sane limit for this explorer), got {_show(value)}")
            return None
        if isinstance(value, int):
            try:
                float(value)
            except OverflowError:
                self.error(key, f"must be a finite number, got {_show(value)} (too large for a 64-bit float)")
                return None
        return value

    def whole(self, key: str, value: Any, *, maximum: int, minimum: int = 1, what: str = "a whole number"):
        """:meth:`number` for a whole number in [minimum, maximum]."""
        return self.number(key, value, what=what, integer=True, minimum=minimum, maximum=maximum)

    def head_dim_value(self, key: str, value: Any, *, source: str, derived: str | None = None):
        """The head size `value` read at `key`; `derived`: how it was computed (``"4096 // 32"``), when the config
        does not give it, so a size out of range is reported as the computed head size, not as `key`'s value."""
        if derived is not None and not 2 <= value <= MAX_HEAD_DIM:
            self.error(
                key,
                f"{source} is {derived} = {value}; a head size must be between 2 and {MAX_HEAD_DIM:,} "
                "(a sane limit for this explorer)",
            )
            return None
        v = self.whole(
            key, value, what="a whole number (the size of one attention head)", minimum=2, maximum=MAX_HEAD_DIM
        )
        if v is not None and v % 2:
            self.error(key, f"{source} must be even — RoPE rotates coordinates in pairs — got {v}")
            return None
        return v

    # --- entry point ---
    def read(self, text: Any) -> ParsedConfig:
        data = self.load(text)
        if data is _UNREADABLE:
            return self.result
        if not isinstance(data, dict):
            kinds = {list: "a list [...]", str: "a string", bool: "true/false", type(None): "null"}
            kind = kinds.get(type(data), "a number")
            self.error(
                "(json)",
                f"the top level is {kind}; paste a config.json object {{...}} or its rope "
                'block (the object inside "rope_scaling")',
            )
            return self.result
        if not data:
            self.warn("(json)", "the object is empty: nothing to read, so plain RoPE with base 10000 is assumed")
        self.read_object(data)
        return self.result

    def load(self, text: Any):
        if isinstance(text, (bytes, bytearray)):
            size = len(text)
        elif isinstance(text, str):  # a long text is over the limit whatever its encoding: not encoded
            size = len(text) if len(text) > MAX_TEXT_BYTES else len(text.encode("utf-8", "surrogatepass"))
        else:
            self.error("(input)", f"expected the text of a config.json, got {type(text).__name__}")
            return _UNREADABLE
        if size > MAX_TEXT_BYTES:
            over = "over " if isinstance(text, str) and size == len(text) else ""
            self.error(
                "(input)",
                f"the text is {over}{size:,} bytes; a config.json is a few kB — the limit is {MAX_TEXT_BYTES:,} bytes",
            )
            return _UNREADABLE
        if not isinstance(text, str):
            try:
                text = bytes(text).decode("utf-8")
            except UnicodeDecodeError as exc:
                self.error("(input)", f"the bytes are not UTF-8 text (byte {exc.start})")
                return _UNREADABLE
        if text.startswith("\ufeff"):
            text = text[1:]
            self.note("A byte-order mark at the start of the text was ignored.")
        if not text.strip():
            self.error("(input)", "the text is empty: paste a config.json or its rope block")
            return _UNREADABLE
        too_deep = _first_too_deep(text, MAX_DEPTH)
        if too_deep is not None:
            line, col = _line_col(text, too_deep)
            self.error(
                "(json)",
                f"nested more than {MAX_DEPTH} levels deep (line {line}, column {col}); "
                "a config.json is at most a few levels deep",
            )
            return _UNREADABLE
        duplicates: list[str] = []

        def pairs_hook(pairs):
            obj = {}
            for k, v in pairs:
                if k in obj and len(duplicates) < 5 and k not in duplicates:
                    duplicates.append(k)
                obj[k] = v
            return obj

        try:
            data = json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int, object_pairs_hook=pairs_hook)
        except _NonStandardConstant as exc:
            where = text.find(exc.name)
            line, col = _line_col(text, max(where, 0))
            self.error(
                "(json)",
                f"{exc.name} is not a JSON number (Python's json module accepts it, this parser "
                f"does not): line {line}, column {col}; write a real number",
            )
            return _UNREADABLE
        except json.JSONDecodeError as exc:
            self.error(
                "(json)", f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}{_json_hints(text)}"
            )
            return _UNREADABLE
        except RecursionError:
            self.error("(json)", f"nested too deeply to read (the limit is {MAX_DEPTH} levels)")
            return _UNREADABLE
        except (ValueError, MemoryError) as exc:  # e.g. a number Python refuses to convert
            self.error("(json)", f"could not be read as JSON: {type(exc).__name__}")
            return _UNREADABLE
        for k in duplicates:
            self.warn(
                _short(k),
                "this key appears more than once in an object; JSON keeps the last value",
            )
        return data

    # --- the object ---
    def read_object(self, data: dict):
        r = self.result
        config_like = any(k in data for k in _CONFIG_KEYS)
        block_like = any(k in data for k in _ALL_BLOCK_KEYS - {"rope_theta", "partial_rotary_factor"})
        if not config_like and block_like:
            r.kind = "rope block"
            self.read_block_only(data)
        else:
            r.kind = "config"
            if (
                "text_config" in data
                and isinstance(data["text_config"], dict)
                and not any(k in data for k in ("hidden_size", "head_dim", "rope_scaling", "rope_parameters"))
            ):
                self.note('A multimodal config: the language model\'s settings are read from "text_config".')
                self.read_full_config(data["text_config"], prefix="text_config.")
            else:
                if "text_config" in data and not isinstance(data["text_config"], dict):
                    self.warn("text_config", f"should be an object {{...}}, got {_show(data['text_config'])}; ignored")
                self.read_full_config(data, prefix="")
        self.check_with_posenc()

    def read_block_only(self, block: dict):
        r = self.result
        self.note(
            "This is a rope block on its own (no model sizes): head size and max_position_embeddings "
            "come from the explorer's settings."
        )
        r.max_position_embeddings = self.positions("max_position_embeddings", self.fallback_max_pos, fallback=True)
        r.head_dim = self.fallback_head(
            "a rope block alone does not give the head size; the explorer's own head-size setting is used"
        )
        self.note("Layout: unknown for a rope block alone; half pairs (HF's convention) are assumed.")
        theta = self.theta_from(block, {}, "")
        if "partial_rotary_factor" in block:
            r.partial_rotary_factor = (
                self.partial_factor("partial_rotary_factor", block["partial_rotary_factor"]) or 1.0
            )
        self.read_block(block, prefix="", theta=theta, top_level_original=None)

    def read_full_config(self, cfg: dict, prefix: str):
        r = self.result
        model_type = cfg.get("model_type")
        if model_type is not None and not isinstance(model_type, str):
            self.warn(prefix + "model_type", f'should be a name such as "llama", got {_show(model_type)}')
            model_type = None
        r.model_type = model_type
        r.head_dim = self.head_size(cfg, prefix)
        r.max_position_embeddings = self.max_positions(cfg, prefix)
        top_original = self.positions(prefix + _ORIGINAL, cfg.get(_ORIGINAL))  # None when the top level has none
        r.partial_rotary_factor = self.partial_from_config(cfg, prefix, r.head_dim)
        self.config_prf = r.partial_rotary_factor
        r.layout = self.layout(cfg, prefix, model_type)

        self.read_layers(cfg, prefix)
        top_prf = r.partial_rotary_factor if cfg.get("partial_rotary_factor") is not None else None

        if r.model_type in _layers.FILLED_TYPE_BLOCKS and r.layer_types:
            # Gemma 3 / OLMo 3: the config class builds the per-type blocks itself (rope_scaling merged in)
            filled = self.filled_type_blocks(cfg, prefix)
            if filled is not None:
                self.read_per_type(filled, cfg, prefix, top_original, top_prf)
            return

        # HF 5.23 (convert_rope_params_to_dict): rope_parameters = rope_scaling or rope_parameters
        block_key = None
        scaling, parameters = cfg.get("rope_scaling"), cfg.get("rope_parameters")
        if scaling and "rope_parameters" in cfg:
            block_key = "rope_scaling"
            if parameters is not None and parameters != scaling:
                self.warn(
                    prefix + "rope_parameters",
                    "ignored: rope_scaling is given too and HF transformers uses rope_scaling when both are "
                    "(rope_scaling or rope_parameters)",
                )
        elif "rope_parameters" in cfg:
            block_key = "rope_parameters"
        elif "rope_scaling" in cfg:
            block_key = "rope_scaling"
        raw = cfg.get(block_key) if block_key else None
        block_prefix = f"{prefix}{block_key}." if block_key else prefix + "rope_scaling."
        if block_key is not None and raw is not None and not isinstance(raw, dict):
            self.error(prefix + block_key, f"must be an object {{...}} (or null for plain RoPE), got {_show(raw)}")
            raw = {}
        class_block = _layers.CLASS_ROPE_BLOCKS.get(r.model_type or "")
        if raw is None and class_block is not None and not scaling and parameters is None:
            raw = dict(class_block)  # e.g. GptOssConfig: no rope block given -> the class's own
            shown = ", ".join(f"{k} {v}" for k, v in class_block.items())
            self.note(f"No rope block given: the {r.model_type} config class supplies its own ({shown}), as HF does.")
        if raw is None:
            raw = {}
            if block_key:
                self.note(f"{block_key} is null: plain RoPE, no scaling.")
        per_type = self.per_type_blocks(raw, block_prefix)
        if per_type is None:
            self.read_one_block(raw, cfg, prefix, block_prefix, top_original, top_prf, layer_type=None)
            return
        self.read_per_type(per_type, cfg, prefix, top_original, top_prf)

    def read_per_type(self, per_type: dict, cfg: dict, prefix: str, top_original, top_prf):
        """Read each layer type's block (the chosen one last, so that the main fields are its)."""
        r = self.result
        chosen = _layers.FULL if _layers.FULL in per_type else next(iter(per_type))
        for name in [n for n in per_type if n != chosen] + [chosen]:
            block, path = per_type[name]
            self.read_one_block(block, cfg, prefix, path, top_original, top_prf, layer_type=name)
            self.top_level_keys(path)
            r.layer_blocks[name] = dict(r.rope_parameters)
            self.block_paths[name] = path
        shown = ", ".join(repr(n) for n in list(per_type)[:4] if len(n) <= 40)
        self.note(
            f"The rope block is given per layer type ({shown}); rope_type, rope_theta and the block above "
            f"are the {chosen!r} one's, the layer strip shows every layer's."
        )

    def top_level_keys(self, path: str):
        """A layer type's block: keys HF reads from the top level of rope_parameters get their default."""
        r = self.result
        method = ROPE_METHODS.get(r.rope_parameters.get("rope_type", ""))
        for spec in method.keys if method is not None else ():
            value = r.rope_parameters.get(spec.name)
            if spec.hf_reads_top_level and value is not None and value != spec.default:
                self.warn(
                    path + spec.name,
                    f"is not read per layer type: HF transformers reads {spec.name} from the top level of "
                    f"rope_parameters, which holds the layer types' blocks, so {spec.absent_means} is used for these "
                    "layers, and here too",
                )
                r.rope_parameters = {k: v for k, v in r.rope_parameters.items() if k != spec.name}

    def read_one_block(self, raw, cfg, prefix, block_prefix, top_original, top_prf, *, layer_type):
        r = self.result
        raw = self.read_mrope(raw, cfg, prefix, block_prefix)
        r.partial_rotary_factor = self.config_prf
        if isinstance(raw, dict) and raw.get("partial_rotary_factor") is not None:
            prf = self.partial_factor(block_prefix + "partial_rotary_factor", raw["partial_rotary_factor"])
            if prf is not None and top_prf is not None and prf != top_prf:
                self.warn(
                    block_prefix + "partial_rotary_factor",
                    f"differs from the top-level partial_rotary_factor ({top_prf:g}); HF transformers uses the "
                    "top-level one (standardize_rope_params)",
                )
            elif prf is not None:
                r.partial_rotary_factor = prf
        default = _layers.default_theta(r.model_type, layer_type)
        theta = self.theta_from(raw, cfg, prefix, block_prefix=block_prefix, default=default, layer_type=layer_type)
        self.read_block(raw, prefix=block_prefix, theta=theta, top_level_original=top_original)

    def per_type_blocks(self, raw: dict, block_prefix: str):
        """{layer type: (block, path)} when the block's keys are layer types (HF 5.x: ``{"sliding_attention":
        {...}, "full_attention": {...}}``), else None.

        HF 5.23 builds one rotary embedding per layer type and reads ``config.rope_parameters[layer_type]``
        for each type in ``layer_types`` (e.g. models/gemma4/modeling_gemma4.py; models/gemma3/modeling_gemma3.py
        line 164): a type without a block raises ``KeyError``, so it is an error here. (Gemma 3 and OLMo 3 fill a
        missing type themselves: :meth:`filled_type_blocks`.)
        """
        r = self.result
        if not (
            raw and "rope_type" not in raw and "type" not in raw and all(isinstance(v, dict) for v in raw.values())
        ):
            return None
        types = list(dict.fromkeys(r.layer_types or ()))
        for name in [n for n in raw if types and n not in types][:3]:
            self.warn(block_prefix + _short(name), "is not one of the config's layer_types; no layer uses it")
        for name in [t for t in types if t not in raw][:3]:
            layers = [i for i, t in enumerate(r.layer_types or ()) if t == name]
            shown = _short(name)
            self.error(
                block_prefix + shown,
                f"is missing: layer_types gives layers {_index_list(layers)} the type {shown!r}, but the rope block "
                f"has no entry for it; HF transformers' per-layer-type rotary embeddings read a block for every layer "
                f"type and raise KeyError: {shown!r}",
            )
        return {name: (block, f"{block_prefix}{name}.") for name, block in raw.items()}

    def filled_type_blocks(self, cfg: dict, prefix: str):
        """Gemma 3 / OLMo 3: the per-type blocks exactly as the config class builds them, or None after an error.

        HF 5.23 Gemma3TextConfig.convert_rope_params_to_dict (models/gemma3/configuration_gemma3.py lines 133-161;
        Olmo3Config's, olmo3/configuration_olmo3.py 101-126, is the same): ``rope_parameters`` (default: a
        ``{"rope_type": "default"}`` block per type); a ``rope_scaling`` that is not null is merged into the
        ``full_attention`` block with ``dict.update`` (its keys win); a type without a block gets
        ``{"rope_type": "default"}``; rope_theta is filled per type by :meth:`theta_from`. Keys of a flat
        ``rope_parameters`` are then not read (the blocks are nested by layer type).
        """
        r = self.result
        model_type = r.model_type or ""
        owner = _layers.FILLED_TYPE_BLOCKS[model_type]["class"]
        params, scaling = cfg.get("rope_parameters"), cfg.get("rope_scaling")
        for key, value in (("rope_parameters", params), ("rope_scaling", scaling)):
            if value is not None and not isinstance(value, dict):
                self.error(prefix + key, f"must be an object {{...}} (or null), got {_show(value)}")
                return None
        types = set(r.layer_types or ()) | {_layers.FULL, _layers.SLIDING}
        paths = {t: f"{prefix}rope_parameters.{t}." for t in types}
        if params is None:
            blocks: dict[str, Any] = {_layers.FULL: {"rope_type": "default"}, _layers.SLIDING: {"rope_type": "default"}}
        else:
            blocks = {k: dict(v) if isinstance(v, dict) else v for k, v in params.items()}
        if scaling is not None:
            full = blocks.get(_layers.FULL)
            if not isinstance(full, dict):
                missing = _layers.FULL not in blocks
                self.error(
                    prefix + "rope_scaling",
                    f"cannot be used: HF's {owner} merges rope_scaling into rope_parameters['full_attention'], "
                    f"which is {'missing' if missing else _show(full)} here (HF raises "
                    f"{'KeyError' if missing else 'an error'})",
                )
                return None
            full.update(scaling)
            if params is None:
                paths[_layers.FULL] = prefix + "rope_scaling."
                keys = _layers.FILLED_TYPE_BLOCKS[model_type]["theta_key"]
                self.note(
                    f"{_layers.FILLED_TYPE_BLOCKS[model_type]['name']}: the full-attention layers use "
                    f"{keys[_layers.FULL]} and the rope block; the sliding ones use {keys[_layers.SLIDING]} with no "
                    f"scaling (as HF's {owner} converts them)."
                )
            elif scaling:
                self.note(
                    f"rope_scaling is merged into rope_parameters['full_attention'] (its keys win), as HF's {owner} "
                    "does; the sliding layers keep their own block."
                )
        for name in (_layers.FULL, _layers.SLIDING):
            if blocks.get(name) is None:
                if params is not None:
                    self.note(f"No rope block for {name!r}: HF's {owner} then uses plain RoPE for those layers.")
                blocks[name] = {"rope_type": "default"}
        flat = [k for k in blocks if k not in types]
        if flat:
            shown = ", ".join(k for k in flat[:4] if len(k) <= 40)
            self.warn(
                prefix + "rope_parameters",
                f"holds keys that are not layer types ({shown}); HF's {owner} reads rope_parameters per layer type "
                "and does not use them, and neither does this page",
            )
        result = {}
        for name, block in blocks.items():
            if name not in types:
                continue
            if not isinstance(block, dict):
                self.error(paths[name].rstrip("."), f"must be an object {{...}} (or null), got {_show(block)}")
                return None
            result[name] = (block, paths[name])
        return result

    def read_mrope(self, raw: dict, cfg: dict, prefix: str, block_prefix: str) -> dict:
        """Take M-RoPE's mrope_section / mrope_interleaved out of the block (checked once the sizes are known)."""
        if not isinstance(raw, dict) or not any(k in raw for k in _MROPE_KEYS):
            return raw
        r = self.result
        section = raw.get("mrope_section")
        interleaved = raw.get("mrope_interleaved", False)
        if not isinstance(interleaved, bool):
            self.warn(block_prefix + "mrope_interleaved", f"should be true or false, got {_show(interleaved)}; ignored")
            interleaved = False
        if section is not None:
            bad = None
            if not isinstance(section, list) or len(section) != 3:
                bad = _show(section)
            else:
                for axis, x in zip("thw", section):
                    if not (isinstance(x, int) and not isinstance(x, bool) and x >= 0):
                        bad = f"{_show(x)} for {axis}"
                        break
            if bad is not None:
                self.error(
                    block_prefix + "mrope_section",
                    f"must be a list of 3 whole numbers >= 0 (pairs for t, h, w), got {bad}",
                )
            else:
                r.mrope_section, r.mrope_interleaved = list(section), interleaved
                self.mrope_path = block_prefix + "mrope_section"
                self.note(
                    f"M-RoPE: positions are (t, h, w) triples; mrope_section {section} gives "
                    + (
                        "the pairs to the axes interleaved (t, h, w, t, h, w, …)"
                        if interleaved
                        else "the first pairs to t, the next to h, the last to w"
                    )
                    + ". For text tokens t = h = w, so the angles are plain RoPE's."
                )
        return {k: v for k, v in raw.items() if k not in _MROPE_KEYS}

    def check_mrope(self):
        r = self.result
        if r.mrope_section is None or r.rotary_dim is None:
            return
        pairs = r.rotary_dim // 2
        total = sum(r.mrope_section)
        key = getattr(self, "mrope_path", "mrope_section")
        if not r.mrope_interleaved and total != pairs:
            # HF: cos.split(mrope_section * 2, dim=-1) raises unless the sections cover every pair
            self.error(key, f"must add up to the rotary dim / 2 = {pairs} (one entry per pair), got {total}")
        elif r.mrope_interleaved and 3 * max(r.mrope_section[1:]) > 3 * pairs:
            self.error(key, f"its h and w sections must fit in the {pairs} pairs, got {r.mrope_section}")

    def read_layers(self, cfg: dict, prefix: str):
        """num_hidden_layers, layer_types, NoPE layers, windows and Llama 4's temperature (posenc.layers)."""
        r = self.result
        n = None
        if cfg.get("num_hidden_layers") is not None:
            n = self.whole(
                prefix + "num_hidden_layers",
                cfg["num_hidden_layers"],
                what="a whole number of layers",
                maximum=MAX_LAYERS,
            )
        r.num_hidden_layers = n
        given = cfg.get("layer_types")
        types = None
        if given is not None:
            if not isinstance(given, list) or not all(isinstance(t, str) for t in given):
                self.error(prefix + "layer_types", f"must be a list of layer-type names, got {_show(given)}")
            elif n is not None and len(given) != n:
                # HF: layer_type_validation raises when the lengths differ
                self.error(prefix + "layer_types", f"must have num_hidden_layers = {n} entries, got {len(given)}")
            else:
                types = list(given)
        if types is None and n is not None and given is None:
            types = _layers.derived_layer_types(cfg, n)
            if types is not None:
                self.note(f"layer_types is not given; derived from the {r.model_type} rules (as HF does).")
        r.layer_types = types
        nrl = cfg.get("no_rope_layers")
        if nrl is not None and not (isinstance(nrl, list) and all(x in (0, 1) for x in nrl)):
            self.error(prefix + "no_rope_layers", f"must be a list of 0/1 (1 = RoPE), got {_show(nrl)}")
            return
        if nrl and n is not None and len(nrl) != n:
            self.warn(prefix + "no_rope_layers", f"has {len(nrl)} entries for {n} layers")
        if n is None:
            return
        r.layer_plans = _layers.layer_plans(cfg, n, types)
        nope = [p.index for p in r.layer_plans if not p.rope]
        if nope:
            self.note(
                f"{len(nope)} of {n} layers have no RoPE (NoPE): layers {_index_list(nope)}. They see "
                "positions only through the causal mask."
            )
        if any(p.temperature for p in r.layer_plans):
            floor_scale = cfg.get("floor_scale", 8192)
            attn_scale = cfg.get("attn_scale", 0.1)
            if _is_real(floor_scale) and floor_scale > 0 and _is_real(attn_scale):
                r.temperature = {"floor_scale": float(floor_scale), "attn_scale": float(attn_scale)}

    # --- sizes ---
    def fallback_head(self, missing_message: str | None):
        if self.fallback_head_dim is not None:
            v = self.head_dim_value("head_dim", self.fallback_head_dim, source="the head size")
            if v is not None:
                self.note(f"head_dim {v} is the explorer's setting (the text does not give it).")
            return v
        if missing_message:
            self.warn("head_dim", missing_message)
        return None

    def head_size(self, cfg: dict, prefix: str):
        if cfg.get("qk_rope_head_dim") is not None:
            v = self.head_dim_value(prefix + "qk_rope_head_dim", cfg["qk_rope_head_dim"], source="qk_rope_head_dim")
            if v is not None:
                self.note(
                    f"qk_rope_head_dim {v}: in multi-head latent attention (DeepSeek) only this part of each "
                    "query/key head is rotated, so it is the RoPE head size."
                )
            return v
        if cfg.get("head_dim") is not None:
            return self.head_dim_value(prefix + "head_dim", cfg["head_dim"], source="head_dim")
        hidden_key = next((k for k in ("hidden_size", "n_embd", "d_model") if cfg.get(k) is not None), None)
        heads_key = next((k for k in ("num_attention_heads", "n_head", "n_heads") if cfg.get(k) is not None), None)
        if hidden_key and heads_key:
            hidden = self.whole(prefix + hidden_key, cfg[hidden_key], maximum=MAX_HIDDEN_SIZE)
            heads = self.whole(prefix + heads_key, cfg[heads_key], maximum=MAX_HEADS)
            if hidden is None or heads is None:
                return None
            if hidden % heads:
                self.warn(
                    prefix + heads_key,
                    f"{hidden_key} {hidden} is not divisible by {heads_key} {heads}; "
                    f"the head size is taken as {hidden} // {heads} = {hidden // heads}",
                )
            v = self.head_dim_value(
                prefix + hidden_key,
                hidden // heads,
                source=f"the head size {hidden_key} // {heads_key}",
                derived=f"{hidden} // {heads}",
            )
            if v is not None:
                self.note(f"head_dim {v} = {hidden_key} {hidden} // {heads_key} {heads}.")
            return v
        if hidden_key or heads_key:
            missing = "num_attention_heads" if hidden_key else "hidden_size"
            message = f"the head size is unknown: {hidden_key or heads_key} is given but {missing} is not"
        else:
            message = (
                "the head size is unknown: give head_dim, or hidden_size and num_attention_heads; "
                "the explorer's own head-size setting is used"
            )
        return self.fallback_head(message)

    def positions(self, key: str, value: Any, *, fallback: bool = False):
        if value is None:
            return None
        v = self.whole(key, value, what="a whole number of positions", maximum=MAX_POSITIONS)
        if v is not None and fallback:
            self.note(f"max_position_embeddings {v} is the explorer's setting.")
        return v

    def max_positions(self, cfg: dict, prefix: str):
        key = next((k for k in ("max_position_embeddings", "n_positions") if cfg.get(k) is not None), None)
        if key is None:
            if self.fallback_max_pos is not None:
                return self.positions("max_position_embeddings", self.fallback_max_pos, fallback=True)
            return None
        return self.positions(prefix + key, cfg[key])

    def partial_factor(self, key: str, value: Any):
        v = self.number(key, value, what="a fraction in (0, 1]", above=0.0, maximum=1.0)
        return None if v is None else float(v)

    def partial_from_config(self, cfg: dict, prefix: str, head_dim):
        if cfg.get("partial_rotary_factor") is not None:
            return self.partial_factor(prefix + "partial_rotary_factor", cfg["partial_rotary_factor"]) or 1.0
        if cfg.get("model_type") == "gpt_neox" and cfg.get("rotary_pct") is None:
            self.warn(
                prefix + "rotary_pct",
                "missing: HF's GPTNeoXConfig then uses its default 0.25, so only a quarter of each head rotates",
            )
            return 0.25
        if cfg.get("rotary_pct") is not None:
            v = self.partial_factor(prefix + "rotary_pct", cfg["rotary_pct"])
            if v is not None and v < 1:
                self.note(f"rotary_pct {v:g}: only that fraction of each head rotates (partial rotary).")
            return v or 1.0
        if cfg.get("rotary_dim") is not None:
            rd = self.whole(prefix + "rotary_dim", cfg["rotary_dim"], minimum=2, maximum=MAX_HEAD_DIM)
            if rd is None or head_dim is None:
                return 1.0
            if rd > head_dim:
                self.error(prefix + "rotary_dim", f"rotary_dim {rd} is larger than the head size {head_dim}")
                return 1.0
            self.note(f"rotary_dim {rd} of head_dim {head_dim}: partial rotary, factor {rd / head_dim:g}.")
            return rd / head_dim
        return 1.0

    def layout(self, cfg: dict, prefix: str, model_type):
        interleave = cfg.get("rope_interleave")
        if interleave is not None:
            if isinstance(interleave, bool):
                self.note(
                    f"rope_interleave {str(interleave).lower()}: {'interleaved' if interleave else 'half'} pairing."
                )
                return "interleaved" if interleave else "half"
            self.warn(prefix + "rope_interleave", f"should be true or false, got {_show(interleave)}; ignored")
        if model_type in _INTERLEAVED_MODEL_TYPES:
            self.note(
                f"Layout guess: interleaved pairs (x_2j, x_2j+1), as {_INTERLEAVED_MODEL_TYPES[model_type]}'s "
                "code rotates them. A config does not record the pairing; it belongs to the weights."
            )
            return "interleaved"
        self.note(
            "Layout guess: half pairs (x_j, x_j+d/2), HF's convention (converted LLaMA-family weights are "
            "permuted for it). A config does not record the pairing; it belongs to the weights."
        )
        return "half"

    def theta_from(
        self,
        block: dict,
        cfg: dict,
        prefix: str,
        *,
        block_prefix: str = "",
        default: float = DEFAULT_ROPE_THETA,
        layer_type: str | None = None,
    ):
        filled = _layers.FILLED_TYPE_BLOCKS.get(self.result.model_type or "")
        if filled and layer_type in filled["theta_key"]:
            top = filled["theta_key"][layer_type]  # Gemma 3's sliding layers: rope_local_base_freq
            sources = [(block_prefix + "rope_theta", block.get("rope_theta")), (prefix + top, cfg.get(top))]
        else:
            sources = [
                (block_prefix + "rope_theta", block.get("rope_theta")),
                (prefix + "rope_theta", cfg.get("rope_theta")),
                (prefix + "rotary_emb_base", cfg.get("rotary_emb_base")),
            ]
        given = [(k, v) for k, v in sources if v is not None]
        if not given:
            whose = (
                f"the {self.result.model_type} class's default_theta"
                if default != DEFAULT_ROPE_THETA
                else "the default base"
            )
            where = f" ({layer_type})" if layer_type else ""
            self.note(f"No rope_theta given{where}: {whose} {default:g} is used (as HF does).")
            self.result.rope_theta = default
            return default
        key, value = given[0]
        theta = self.number(
            key, value, what="a number greater than 1 (the RoPE base)", above=1.0, maximum=MAX_ROPE_THETA
        )
        for other_key, other in given[1:]:
            if _is_real(other) and theta is not None and float(other) != float(theta):
                self.warn(other_key, f"differs from {key} ({_show(theta)}); {key} is used")
        self.result.rope_theta = None if theta is None else float(theta)
        return theta

    # --- the rope block ---
    def read_block(self, block: dict, *, prefix: str, theta, top_level_original):
        r = self.result
        self.block_path = prefix
        normalised: dict[str, Any] = {}
        raw_type = block.get("rope_type", block.get("type"))
        type_key = prefix + ("rope_type" if "rope_type" in block else "type")
        if "rope_type" in block and "type" in block and block["rope_type"] != block["type"]:
            self.warn(prefix + "type", f"differs from rope_type ({_show(block['rope_type'])}); rope_type is used")
        if raw_type is None:
            rope_type = "default"
            if "rope_type" in block or "type" in block:  # given, as null
                self.warn(type_key, 'is null; read as "default" (no scaling)')
        elif not isinstance(raw_type, str):
            self.error(
                type_key, f"must be the name of a method, one of {', '.join(KNOWN_ROPE_TYPES)}; got {_show(raw_type)}"
            )
            return
        elif raw_type in _ROPE_TYPE_ALIASES:
            rope_type = _ROPE_TYPE_ALIASES[raw_type]
            self.note(
                f"rope type {raw_type!r} is the older name handled as {rope_type!r}"
                + (" (multimodal position sections are not modelled)" if raw_type == "mrope" else "")
                + "."
            )
        elif raw_type in ROPE_METHODS:
            rope_type = raw_type
        else:
            self.error(
                type_key,
                f"unknown rope type {_short(raw_type)!r}; known: {', '.join(KNOWN_ROPE_TYPES)} "
                "(older configs: 'su' = longrope)",
            )
            return
        r.rope_type = rope_type
        normalised["rope_type"] = rope_type
        if theta is not None:
            normalised["rope_theta"] = theta
        if r.partial_rotary_factor < 1.0:
            normalised["partial_rotary_factor"] = r.partial_rotary_factor

        method = ROPE_METHODS[rope_type]
        allowed = _TYPE_KEYS[rope_type]
        for key in block:
            if key in _ALWAYS_ALLOWED or key in allowed:
                continue
            why = (
                f"is not used by rope_type {rope_type!r}"
                if key in _ALL_BLOCK_KEYS
                else f"is not a parameter of rope_type {rope_type!r}"
            )
            self.warn(prefix + _short(key), f"{why}; it is ignored")

        # Every key's own checks come from its declaration (posenc.methods.MethodKey): required, what null
        # means, kind, range, what 0 means, and a caution for an odd but valid value.
        # original_max_position_embeddings: the top level's wins over the block's (HF's standardize_rope_params,
        # for Phi-3, which keeps it there).
        checked: dict[str, Any] = {}
        for spec in sorted(method.keys, key=lambda k: k.name):
            name = spec.name
            if name in _COMMON_KEY_NAMES:
                continue  # rope_theta and partial_rotary_factor are read with the config's sizes
            from_top = name == _ORIGINAL and top_level_original is not None
            if name not in block or (block[name] is None and not spec.null_means and not spec.null_refused):
                if spec.required and not from_top:
                    self.error(prefix + name, f"is required by rope_type {rope_type!r} but missing")
                continue
            value = block[name]
            if value is None:
                if spec.null_refused:
                    self.error(
                        prefix + name,
                        f"is null, which HF transformers cannot compute with for rope_type {rope_type!r}; "
                        f"leave the key out for {spec.absent_means}",
                    )
                else:  # null_means: HF derives the value (the method's advice says how much it is)
                    checked[name] = None
                    normalised[name] = None
                continue
            result = self.block_value(prefix, spec, value)
            if result is not _UNSET and result is not None:
                checked[name] = result
                normalised[name] = value

        original = checked.get(_ORIGINAL)
        if top_level_original is not None and _ORIGINAL in allowed:
            if original is not None and original != top_level_original:
                self.warn(
                    prefix + _ORIGINAL,
                    f"differs from the top-level value {top_level_original}; HF transformers uses the top-level "
                    "one (standardize_rope_params), and so does this page",
                )
            elif original is None:
                self.note("original_max_position_embeddings is taken from the top level of the config.")
            original = checked[_ORIGINAL] = normalised[_ORIGINAL] = top_level_original

        # What HF does with the keys together (a relation, a derived value): declared with the method.
        if method.advise is not None:
            for advice in method.advise(checked, r.max_position_embeddings):
                if advice.severity == "note":
                    self.note(advice.message)
                else:
                    self.result.problems.append(Problem(prefix + advice.key, advice.severity, advice.message))
        # HF's standardize_rope_params: a method that reads original_max_position_embeddings and is not
        # given one uses max_position_embeddings (llama3, yarn, longrope).
        if original is None and _ORIGINAL in allowed and r.max_position_embeddings:
            original = normalised[_ORIGINAL] = r.max_position_embeddings
        if original is None and r.original_max_position_embeddings is None:
            original = top_level_original
        r.original_max_position_embeddings = original

        if not method.hf_rope_type:
            self.warn(type_key, self.not_in_hf(rope_type, checked.get("factor"), theta))
        r.rope_parameters = normalised

    def not_in_hf(self, rope_type: str, factor, theta) -> str:
        """Why a rope_type posenc computes would not load in HF transformers, and what to write instead."""
        message = (
            f"HF transformers has no rope_type {rope_type!r} (building the model raises KeyError: "
            f"{rope_type!r}); it is computed here all the same"
        )
        if rope_type != "ntk":
            return message
        message += (
            ". A real config writes static NTK-aware scaling as rope_type 'default' with the larger base "
            "rope_theta = b·s^(d/(d−2))"
        )
        rot = self.result.rotary_dim
        if factor is None or theta is None or rot is None or rot <= 2:
            return message
        try:
            new_theta = ntk_alpha_to_base(factor, rot, base=theta)
        except (ValueError, TypeError, ArithmeticError):
            return message
        if not math.isfinite(new_theta):
            return message
        shown = f"{new_theta:,.1f}" if new_theta < 1e15 else f"{new_theta:.6g}"
        return message + f" = {float(theta):g}·{float(factor):g}^({rot}/{rot - 2}) ≈ {shown} (d = {rot} rotated dims)"

    def block_value(self, prefix: str, spec: MethodKey, value: Any):
        """``value`` checked against its declaration: the checked value, ``_UNSET`` when HF reads it as
        absent (``zero_means_unset``), or None after recording an error."""
        path = prefix + spec.name
        if spec.kind == "bool":
            if not isinstance(value, bool):
                self.error(path, f"must be true or false, got {_show(value)}")
                return None
            return value
        if spec.kind == "float_list":
            return self.factor_list(path, value)
        if spec.zero_means_unset and _is_real(value) and value == 0:
            used = f": {spec.absent_means} is used" if spec.default is not None else f" ({spec.absent_means})"
            self.warn(path, f"is 0, which HF transformers reads as 'not set'{used}")
            return _UNSET
        if spec.kind == "int":
            return self.positions(path, value)
        x = self.number(path, value, what="a number", above=spec.above)
        if x is not None and spec.caution is not None:
            caution = spec.caution(x)
            if caution:
                self.warn(path, caution)
        return x

    def factor_list(self, path: str, value: Any):
        if not isinstance(value, list):
            self.error(path, f"must be a list of numbers (one per rotated pair), got {_show(value)}")
            return None
        for i, item in enumerate(value):
            if not _is_real(item) or not math.isfinite(float(item)) or float(item) <= 0:
                self.error(path, f"entry {i} must be a positive number, got {_show(item)}")
                return None
        r = self.result
        rot = r.rotary_dim
        if rot is not None and len(value) != rot // 2:
            detail = (
                f"head_dim {r.head_dim}"
                if rot == r.head_dim
                else f"rotary dim {rot} = int(head_dim {r.head_dim} · {r.partial_rotary_factor:g})"
            )
            self.error(path, f"has {len(value)} entries; it needs one per rotated pair: d/2 = {rot // 2} ({detail})")
            return None
        return value

    # --- final cross-check: the block must run through posenc ---
    def check_with_posenc(self):
        r = self.result
        self.check_mrope()
        if r.layer_blocks:
            main = r.rope_parameters
            for name, block in r.layer_blocks.items():
                r.rope_parameters, self.block_path = block, self.block_paths.get(name, self.block_path)
                self.check_block()
            r.rope_parameters = main
        else:
            self.check_block()

    def check_block(self):
        r = self.result
        if not r.ok or r.rope_type is None or r.head_dim is None:
            return
        rot = r.rotary_dim
        if ROPE_METHODS[r.rope_parameters.get("rope_type", "default")].full_head_dim:
            rot = r.head_dim  # e.g. proportional reads partial_rotary_factor itself (zero frequencies beyond it)
        if rot < 2 or rot % 2:
            self.error(
                "partial_rotary_factor",
                f"int(head_dim {r.head_dim} · {r.partial_rotary_factor:g}) = {rot} "
                "rotated dims: it must be even and at least 2",
            )
            return
        max_pos = r.max_position_embeddings or r.original_max_position_embeddings or 4096
        if r.max_position_embeddings is None:
            self.note(f"max_position_embeddings is not given; {max_pos} is assumed to check the block.")
        trained = r.original_max_position_embeddings or max_pos
        prefix = self.block_path
        for seq_len in (None, 2 * max(trained, max_pos)):
            try:
                with np.errstate(all="ignore"):
                    inv, af = rope_inverse_frequencies(
                        r.rope_parameters, r.head_dim, max_position_embeddings=max_pos, seq_len=seq_len
                    )
            except RopeParameterError as exc:  # a block key's value: the error names it
                self.rejected(prefix + exc.key, f"{prefix}{exc.key} {exc.problem}")
                return
            except (ValueError, TypeError) as exc:  # not one key's fault, e.g. the rotary dim for dynamic NTK
                self.rejected(prefix + "rope_type", str(exc))
                return
            except ArithmeticError as exc:  # e.g. mscale_all_dim making YaRN's divisor 0
                self.error(prefix + "rope_type", f"the settings cannot be computed ({type(exc).__name__})")
                return
            if not (np.all(np.isfinite(inv)) and math.isfinite(af)):
                self.error(prefix + "rope_type", "the settings give non-finite frequencies")
                return
            method = ROPE_METHODS[r.rope_parameters.get("rope_type", "default")]
            given = any(k.sets_attention_factor and r.rope_parameters.get(k.name) is not None for k in method.keys)
            if af <= 0 and not given:  # a given attention factor has its own caution
                # HF computes it all the same (no check of the result): cos and sin are multiplied by it
                self.warn(
                    prefix + "rope_type",
                    f"these settings give an attention factor of {af:.4g}: HF transformers multiplies cos and sin "
                    + (
                        "by it all the same, so every rotated q and k becomes 0"
                        if af == 0
                        else "by it all the same (the logits scale by its square)"
                    ),
                )
                return

    def rejected(self, key: str, message: str):
        if len(message) > 300:
            message = message[:297] + "..."
        self.error(key, f"rejected by the RoPE computation: {message}")


def _index_list(indices: list[int]) -> str:
    shown = ", ".join(str(i) for i in indices[:12])
    return shown + (f", … ({len(indices)} in all)" if len(indices) > 12 else "")


def parse_model_config(text, *, fallback_head_dim=None, fallback_max_position_embeddings=None) -> ParsedConfig:
    """Read a whole ``config.json`` or just its rope block; never raises.

    ``fallback_head_dim`` / ``fallback_max_position_embeddings`` (the explorer's own settings) are used
    when the text does not give them, e.g. for a pasted rope block alone.
    """
    reader = _Reader(fallback_head_dim, fallback_max_position_embeddings)
    try:
        return reader.read(text)
    except Exception as exc:  # a last safety net: a bug here must not take the page down
        reader.error("(internal)", f"the config could not be read ({type(exc).__name__}); please report this")
        return reader.result
