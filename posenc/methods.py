r"""The RoPE scaling methods, each declared once: its rope-block keys, its rule and its computation.

A :class:`RopeMethod` is what a config's ``rope_type`` names. It declares the keys its rope block
may hold (:class:`MethodKey`: its kind and valid range, HF's value when the key is absent, whether
HF needs it, what null and 0 mean, one sentence on what it does), the frequency rule in LaTeX,
where the formula comes from, and the function that computes
``(inv_freq, attention_factor)`` exactly as HF transformers does
(``src/transformers/modeling_rope_utils.py``, ``_compute_*_parameters``). Everything else is derived
from :data:`ROPE_METHODS`: ``posenc.scaling.ROPE_SCALING``, the config parser's key lists
(``posenc.config``), the lab's method names (``posenc.lab``). The declarations describe the maths
only; how an application presents a method or a key (its name on screen, a summary for readers, its
controls, their ranges and starting values) is that application's own (the explorer's:
``explorer.text.methods`` and ``explorer.vocabulary``).

Every compute function has one signature, ``fn(params, dim, *, max_position_embeddings, seq_len)``,
and returns ``(inv_freq, attention_factor)``. The model multiplies cos and sin by the attention
factor, so attention logits scale by its square. A bad or missing key raises
:class:`RopeParameterError` (a ``ValueError``; :class:`RopeParameterTypeError` is also a
``TypeError``) whose ``key`` is the block key at fault and whose message names the key, the rule
and the value: ``rope_parameters['factor'] must be a finite number > 0, got -1.0``.

Symbols of the formulas: b = ``rope_theta``, d = the rotary dim (head_dim · partial_rotary_factor),
θ_j = b^(−2j/d) for pair j = 0 … d/2 − 1, s = ``factor``, L = the trained length
(``original_max_position_embeddings``; ``max_position_embeddings`` where the block does not give it,
and always for dynamic NTK), T = the current sequence length ``seq_len`` (T = L when not given),
a = the attention factor.

Deliberate differences from HF, all in the direction of "raise, do not guess":

* HF only warns about some bad values; here they raise, naming the key.

HF's reading rules that posenc follows (transformers 5.23, ``src/transformers/modeling_rope_utils.py``:
``_compute_yarn_parameters``, ``_compute_longrope_parameters``, ``_compute_proportional_rope_parameters``
and ``RotaryEmbeddingConfigMixin.standardize_rope_params``), each declared on its :class:`MethodKey`:
``beta_fast`` / ``beta_slow`` are read with ``or`` (0 or null means 32 / 1), so are ``mscale`` /
``mscale_all_dim`` (``if mscale and mscale_all_dim``); an ``attention_factor`` of null is "not set"
(computed) but 0 is used as 0 (HF tests ``is None``); yarn with ``factor`` null uses
max_position_embeddings / original_max_position_embeddings (no factor key at all: KeyError); longrope
without ``factor`` likewise; proportional with ``factor`` null fails (``inv_freq /= None``); llama3,
yarn and longrope without ``original_max_position_embeddings`` use max_position_embeddings; yarn with
``beta_fast <= beta_slow`` is computed (HF only warns), the ramp then runs backwards.
* ``ntk`` (static NTK-aware scaling) is computed here but is not a rope_type of HF transformers
  (``ROPE_INIT_FUNCTIONS['ntk']`` raises KeyError): a real config writes it as rope_type
  ``"default"`` with the larger base b·s^(d/(d−2)) as ``rope_theta``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any, TypeVar

import numpy as np

from . import _validate as v
from .sinusoidal import inverse_frequencies

_T = TypeVar("_T")
#: ``fn(params, dim, *, max_position_embeddings, seq_len) -> (inv_freq, attention_factor)``.
RopeFunction = Callable[..., tuple[np.ndarray, float]]


# --------------------------------------------------------------------------------------------------
# the declarations' types
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MethodKey:
    """One key of a rope block, e.g. ``beta_fast``.

    What HF transformers does with the key (everything a reader of a config needs; the config
    parser checks a block with these fields alone): ``kind`` ("float", "int", "bool" or
    "float_list", one number per rotated pair); ``above``: a number must be greater than this (None:
    any finite number), because HF's computation fails or is meaningless otherwise; ``default``: the
    value HF uses when the key is absent (None: HF has no fixed value, ``unset_means`` says in words
    what it does instead); ``required``: HF cannot compute the method without the key;
    ``zero_means_unset``: HF reads 0 as "absent" (it tests the value's truth, ``value or default``);
    ``null_means``: for a required key, what HF computes instead when the value is null ("": null
    is refused like a missing key); ``null_refused``: an optional key whose null HF does not replace
    by its default (it computes with None and fails); ``caution(value)``: a sentence explaining a
    valid but odd value (None: nothing to say), shown as a warning; ``sets_attention_factor``: the key
    gives the attention factor itself; ``hf_reads_top_level``: HF reads the key from the top level of
    ``rope_parameters`` only. ``doc``: one sentence saying what the key does (for documentation).
    """

    name: str
    kind: str  # "float" | "int" | "bool" | "float_list"
    default: Any = None
    required: bool = False
    doc: str = ""
    zero_means_unset: bool = False
    above: float | None = None
    unset_means: str = ""
    null_means: str = ""
    null_refused: bool = False
    caution: Callable[[Any], str | None] | None = None
    sets_attention_factor: bool = False  # the key gives the attention factor itself (not computed)
    #: HF reads the key from the top level of ``config.rope_parameters``, not from a layer type's block, so in
    #: a per-layer-type config its value is never read and ``default`` is used.
    hf_reads_top_level: bool = False

    @property
    def absent_means(self) -> str:
        """What HF uses when the key is absent (or read as absent), in words: ``"32"``, ``"computed from s"``."""
        if self.unset_means:
            return self.unset_means
        if isinstance(self.default, bool):
            return str(self.default).lower()
        return f"{self.default:g}" if isinstance(self.default, (int, float)) else "nothing"


@dataclass(frozen=True)
class RopeMethod:
    """One context-extension method: everything posenc knows about it."""

    name: str  # the rope_type, e.g. "yarn" (its display name and one-sentence summary: explorer.text.methods)
    hf_rope_type: bool  # is ``name`` a rope_type HF transformers accepts?
    keys: tuple[MethodKey, ...]  # the block keys it reads, in reading order (not rope_type / rope_theta)
    latex: str  # the frequency rule (and attention factor) in LaTeX
    compute: RopeFunction
    source: str  # where the formula comes from
    #: True: ``compute`` gets the whole head_dim and reads partial_rotary_factor itself (proportional
    #: RoPE returns head_dim/2 frequencies, the unrotated ones 0); False: it gets the rotary dim.
    full_head_dim: bool = False
    #: ``advise(block, max_position_embeddings) -> [Advice, …]``: what HF does with this method's keys
    #: together (a relation between two keys, a value HF derives), for the config parser. ``block``
    #: holds the declared keys whose own checks passed (a null value as None); None: nothing to add.
    advise: Callable[[Mapping[str, Any], int | None], list[Advice]] | None = None
    #: True: θ' depends on the current sequence length T (``seq_len``); False: T only says how far the
    #: same θ' are used (the angles T·θ'_j), so a chart may vary T without asking posenc again.
    reads_seq_len: bool = False
    #: True: θ' depends on the trained length L (``original_max_position_embeddings``, or dynamic NTK's
    #: ``max_position_embeddings``); False: L only says how far training turned each pair (L·θ_j).
    reads_train_len: bool = False

    @property
    def key_names(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keys)

    @property
    def required_keys(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.keys if k.required)

    def key(self, name: str) -> MethodKey:
        """The declared key ``name`` (KeyError when this method does not read it)."""
        for k in self.keys:
            if k.name == name:
                return k
        raise KeyError(f"rope_type {self.name!r} has no key {name!r}; its keys: {', '.join(self.key_names) or 'none'}")


@dataclass(frozen=True)
class Advice:
    """One finding about a rope block: ``key`` (a block key), ``severity`` ("error", "warning" or
    "note") and ``message`` (a sentence starting after the key's name; a note is a whole sentence)."""

    key: str
    severity: str
    message: str


class RopeParameterError(ValueError):
    """A rope-block key is missing or has a bad value.

    ``key`` is the block key at fault (``"beta_fast"``); ``problem`` is the rule and the value
    alone (``"must be a finite number > 0, got -1.0"``); the message is
    ``rope_parameters['<key>'] <problem>``.
    """

    def __init__(self, key: str, problem: str):
        super().__init__(f"rope_parameters['{key}'] {problem}")
        self.key = key
        self.problem = problem

    def __reduce__(self):
        return (type(self), (self.key, self.problem))


class RopeParameterTypeError(RopeParameterError, TypeError):
    """A rope-block value of the wrong kind (text for a number, a number for a list); also a TypeError."""


# --------------------------------------------------------------------------------------------------
# the keys (defaults, ranges and the meaning of null and 0 are HF's)
# --------------------------------------------------------------------------------------------------
ROPE_THETA = MethodKey(
    "rope_theta",
    "float",
    default=10000.0,
    doc="The RoPE base b: θ_j = b^(−2j/d).",
)
PARTIAL_ROTARY_FACTOR = MethodKey(
    "partial_rotary_factor",
    "float",
    default=1.0,
    doc="The fraction of each head that rotates: the rotary dim is int(head_dim · partial_rotary_factor).",
)
#: Keys every method's block may hold (besides ``rope_type`` and the older ``type``).
COMMON_KEYS: tuple[MethodKey, ...] = (ROPE_THETA, PARTIAL_ROTARY_FACTOR)

#: A factor above this is reported as unusual (a reading aid, not HF's rule).
LARGE_FACTOR = 1024


def _factor_caution(f: float) -> str | None:
    # HF's _validate_*_rope_parameters warn "factor field must be a float or int >= 1" and compute.
    if f < 1:
        return f"is {f:g}, below 1: this shrinks the usable context instead of extending it"
    if f > LARGE_FACTOR:
        return f"is {f:g}: an unusually large extension factor"
    return None


FACTOR = MethodKey(
    "factor",
    "float",
    required=True,
    above=0.0,
    caution=_factor_caution,
    doc="`factor`: how many times longer than L the model should cope with (usually T / L).",
)
ORIGINAL_MAX_POSITION_EMBEDDINGS = MethodKey(
    "original_max_position_embeddings",
    "int",
    above=0.0,
    unset_means="max_position_embeddings",
    doc="`original_max_position_embeddings`: the longest sequence the model saw in training.",
)
BETA_FAST = MethodKey(
    "beta_fast",
    "float",
    default=32.0,
    above=0.0,
    doc="YaRN: pairs that turn more than beta_fast times over L keep their frequency.",
    zero_means_unset=True,
)
BETA_SLOW = MethodKey(
    "beta_slow",
    "float",
    default=1.0,
    above=0.0,
    doc="YaRN: pairs that turn fewer than beta_slow times over L are divided by s. Normally smaller than "
    "beta_fast; when it is not, HF computes the ramp reversed (fast pairs divided, slow pairs kept).",
    zero_means_unset=True,
)
MSCALE = MethodKey(
    "mscale",
    "float",
    doc="YaRN (DeepSeek): used only together with mscale_all_dim; the attention factor is "
    "then g(s, mscale) / g(s, mscale_all_dim).",
    zero_means_unset=True,
    unset_means="mscale and mscale_all_dim are used only when both are set",
)
MSCALE_ALL_DIM = MethodKey(
    "mscale_all_dim",
    "float",
    doc="YaRN (DeepSeek): see mscale.",
    zero_means_unset=True,
    unset_means="mscale and mscale_all_dim are used only when both are set",
)


def _attention_factor_caution(a: float) -> str | None:
    if a == 0:
        return (
            "is 0: HF transformers 5.23 tests it with `is None`, so 0 is used as it is — cos and sin are "
            "multiplied by 0, every rotated q and k becomes 0 and every attention logit is 0 (leave the key "
            "out to have it computed)"
        )
    if a < 0:
        return (
            f"is {a:g}, negative: HF transformers warns and uses it — cos and sin are multiplied by it, so the "
            f"logits scale by its square ({a * a:.4g}), as for {-a:g}"
        )
    return None


# Null or absent: computed. 0 is NOT "not set" for HF 5.23 (modeling_rope_utils.py: `attention_factor =
# rope_parameters_dict.get("attention_factor")` then `if attention_factor is None:`, lines 419/436 for yarn,
# 554/564 for longrope): a config's 0 is used as 0 (caution explains what it does).
ATTENTION_FACTOR = MethodKey(
    "attention_factor",
    "float",
    unset_means="computed",
    caution=_attention_factor_caution,
    sets_attention_factor=True,
    doc="YaRN: fixes the attention factor instead of computing it from s.",
)
TRUNCATE = MethodKey(
    "truncate",
    "bool",
    default=True,
    # HF 5.23 _compute_yarn_parameters (modeling_rope_utils.py:473): `truncate =
    # config.rope_parameters.get("truncate", True)`, the whole rope_parameters, not the layer type's block
    hf_reads_top_level=True,
    doc="YaRN: floor/ceil the correction range to whole pairs (HF's default, true).",
)
LOW_FREQ_FACTOR = MethodKey(
    "low_freq_factor",
    "float",
    required=True,
    above=0.0,
    doc="Llama 3: pairs with wavelength above L / low_freq_factor are divided by s.",
)
HIGH_FREQ_FACTOR = MethodKey(
    "high_freq_factor",
    "float",
    required=True,
    above=0.0,
    doc="Llama 3: pairs with wavelength below L / high_freq_factor keep their frequency. "
    "Must be larger than low_freq_factor.",
)
SHORT_FACTOR = MethodKey(
    "short_factor",
    "float_list",
    required=True,
    above=0.0,
    doc="LongRoPE: one divisor per rotated pair (d/2 numbers), used while the sequence is at most L.",
)
LONG_FACTOR = MethodKey(
    "long_factor",
    "float_list",
    required=True,
    above=0.0,
    doc="LongRoPE: one divisor per rotated pair (d/2 numbers), used once the sequence is longer than L.",
)


# --------------------------------------------------------------------------------------------------
# reading a block
# --------------------------------------------------------------------------------------------------
def _checked(key: str, check: Callable[..., _T], value: Any, **kwargs: Any) -> _T:
    """``check(name, value, **kwargs)`` (a posenc._validate check), its error tagged with ``key``."""
    name = f"rope_parameters['{key}']"
    try:
        return check(name, value, **kwargs)
    except TypeError as exc:
        raise RopeParameterTypeError(key, str(exc).removeprefix(name).lstrip()) from None
    except ValueError as exc:
        raise RopeParameterError(key, str(exc).removeprefix(name).lstrip()) from None


def _require_keys(params: Mapping[str, Any], rope_type: str) -> None:
    """Raise for the first declared required key of ``rope_type`` that the block lacks, or sets to null
    when the key declares no ``null_means`` (HF computes with None and fails)."""
    for key in ROPE_METHODS[rope_type].keys:
        if not key.required:
            continue
        if key.name not in params or (params[key.name] is None and not key.null_means):
            null = f" (null means {key.null_means})" if key.null_means else ""
            raise RopeParameterError(key.name, f"is required for rope_type '{rope_type}'{null}, got it missing")


def _number(key: MethodKey, value: Any) -> float:
    """``value`` checked against the key's declaration: a finite number, greater than ``key.above``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise RopeParameterTypeError(key.name, f"must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or (key.above is not None and not x > key.above):
        rule = "a finite number" + (f" > {key.above:g}" if key.above is not None else "")
        raise RopeParameterError(key.name, f"must be {rule}, got {x}")
    return x


def _factor(params: Mapping[str, Any]) -> float:
    return _number(FACTOR, params.get(FACTOR.name))


def _theta(params: Mapping[str, Any]) -> float:
    return _checked(ROPE_THETA.name, v.base_value, params.get(ROPE_THETA.name, ROPE_THETA.default))


def _length(params: Mapping[str, Any], max_position_embeddings: int, *, minimum: int) -> int:
    """``original_max_position_embeddings``, else max_position_embeddings (0 is invalid, not "missing")."""
    value = params.get(ORIGINAL_MAX_POSITION_EMBEDDINGS.name)
    if value is None:
        value = max_position_embeddings
    return _checked(ORIGINAL_MAX_POSITION_EMBEDDINGS.name, v.integer, value, minimum=minimum)


def _opt_float(params: Mapping[str, Any], key: MethodKey) -> float | None:
    """The key's value checked by its declaration, or its default when absent, null or (``zero_means_unset``)
    0; None when it has no default."""
    value = params.get(key.name)
    if value is None or (key.zero_means_unset and _is_zero(value)):
        value = key.default
    return None if value is None else _number(key, value)


def _is_zero(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0


# --------------------------------------------------------------------------------------------------
# the computations
# --------------------------------------------------------------------------------------------------
def _default(params, dim, *, max_position_embeddings, seq_len) -> tuple[np.ndarray, float]:
    r""":math:`\theta_j = b^{-2j/d}`, attention factor 1."""
    return inverse_frequencies(dim, base=_theta(params)), 1.0


def _linear(params, dim, *, max_position_embeddings, seq_len) -> tuple[np.ndarray, float]:
    r""":math:`\theta'_j = \theta_j / s`, the same as dividing every position by s."""
    _require_keys(params, "linear")
    s = _factor(params)
    return inverse_frequencies(dim, base=_theta(params)) / s, 1.0


def _proportional(params, dim, *, max_position_embeddings, seq_len) -> tuple[np.ndarray, float]:
    r"""Keep the first :math:`\lfloor p\,d/2 \rfloor` of :math:`\theta_j = b^{-2j/d}` (full d), zero the rest,
    divide by s (default 1). ``dim`` is the whole head_dim here (``full_head_dim``).

    HF transformers 5.23 ``_compute_proportional_rope_parameters``:
    ``rope_angles = int(rope_proportion * head_dim // 2)``, exponent ``arange(0, 2·rope_angles, 2) / head_dim``,
    ``head_dim // 2 - rope_angles`` zeros appended, then ``inv_freq /= factor``; attention factor 1.
    """
    p = params.get(PARTIAL_ROTARY_FACTOR.name)
    p = PARTIAL_ROTARY_FACTOR.default if p is None else _checked(PARTIAL_ROTARY_FACTOR.name, v.finite_float, p)
    if not 0 <= p <= 1:
        raise RopeParameterError(PARTIAL_ROTARY_FACTOR.name, f"must be in [0, 1], got {p}")
    if FACTOR.name in params and params[FACTOR.name] is None:
        # HF: factor = rope_parameters_dict.get("factor", 1.0) gives None, then `inv_freq /= None` (TypeError)
        raise RopeParameterTypeError(
            FACTOR.name, "must be a number (HF divides by it: null raises TypeError; leave it out for 1), got None"
        )
    s = _opt_float(params, ROPE_METHODS["proportional"].key(FACTOR.name))
    base = _theta(params)
    rope_angles = int(p * dim // 2)
    # θ_j = b^(−2j/d) for j < rope_angles (d = the whole head), 0 for the rest
    rotated = 1.0 / base ** (np.arange(0, 2 * rope_angles, 2, dtype=np.float64) / dim)
    inv = np.concatenate([rotated, np.zeros(dim // 2 - rope_angles)])
    return inv / s, 1.0


def _ntk(params, dim, *, max_position_embeddings, seq_len) -> tuple[np.ndarray, float]:
    r""":math:`b' = b\,s^{d/(d-2)}`: the slowest pair is stretched by s, the fastest
    is unchanged (θ_0 = b′⁰ = 1 for every base)."""
    _require_keys(params, "ntk")
    s = _factor(params)
    new_base = _theta(params) * s ** (dim / (dim - 2)) if dim > 2 else _theta(params) * s
    return inverse_frequencies(dim, base=new_base), 1.0


def dynamic_base(base: float, dim: int, factor: float, seq_len: int | None, max_position_embeddings: int) -> float:
    r""":math:`b' = b\,(sT/L_{max} - (s-1))^{d/(d-2)}` with :math:`T = \max(\text{seq\_len}, L_{max})`."""
    t = max_position_embeddings if seq_len is None or seq_len <= max_position_embeddings else seq_len
    return base * ((factor * t / max_position_embeddings) - (factor - 1)) ** (dim / (dim - 2))


def _dynamic(params, dim, *, max_position_embeddings, seq_len) -> tuple[np.ndarray, float]:
    _require_keys(params, "dynamic")
    s = _factor(params)
    if dim <= 2:
        raise ValueError(f"dim must be > 2 for rope_type 'dynamic' (exponent d/(d-2)), got {dim}")
    new_base = dynamic_base(_theta(params), dim, s, seq_len, max_position_embeddings)
    return inverse_frequencies(dim, base=new_base), 1.0


def yarn_get_mscale(scale, mscale=1.0) -> float:
    r""":math:`g(s, m) = 0.1\,m\ln s + 1` for s > 1, else 1."""
    scale = v.finite_float("scale", scale)
    mscale = v.finite_float("mscale", mscale)
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn_correction_dim(num_rotations: float, dim: int, base: float, original_max_position_embeddings: int) -> float:
    r"""Pair-dimension at which a wave turns ``num_rotations`` times over L tokens:
    :math:`cd(r) = d\,\ln(L/(2\pi r)) / (2\ln b)`."""
    return (dim * math.log(original_max_position_embeddings / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_correction_range(
    dim,
    *,
    base,
    original_max_position_embeddings,
    beta_fast=BETA_FAST.default,
    beta_slow=BETA_SLOW.default,
    truncate=TRUNCATE.default,
) -> tuple[float, float]:
    """(low, high) pair indices of YaRN's ramp; floor/ceil when truncate; clamped to [0, dim−1]."""
    dim = v.dimension("dim", dim, even=True)
    base = v.base_value("base", base)
    length = v.integer("original_max_position_embeddings", original_max_position_embeddings, minimum=1)
    beta_fast = v.positive_float("beta_fast", beta_fast)
    beta_slow = v.positive_float("beta_slow", beta_slow)
    # beta_fast <= beta_slow: HF warns (only for <) and computes; low >= high then (see yarn_ramp)
    low = yarn_correction_dim(beta_fast, dim, base, length)
    high = yarn_correction_dim(beta_slow, dim, base, length)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    return max(low, 0), min(high, dim - 1)


def yarn_ramp(low: float, high: float, n_pairs: int) -> np.ndarray:
    r"""ramp_j = clip((j − low)/(high − low), 0, 1): 0 keeps θ_j (fast pairs), 1 divides by s.

    With low > high (beta_fast < beta_slow) the same formula, as HF computes it, reverses the ramp: pairs
    j ≤ high get 1 (divided), pairs j ≥ low get 0 (kept)."""
    if low == high:
        high += 0.001  # HF: prevent a division by zero
    return np.clip((np.arange(n_pairs, dtype=np.float64) - low) / (high - low), 0.0, 1.0)


def _yarn(params, dim, *, max_position_embeddings, seq_len) -> tuple[np.ndarray, float]:
    base = _theta(params)
    length = _length(params, max_position_embeddings, minimum=1)
    # HF: factor null -> max_position_embeddings / original_max_position_embeddings (its null_means); no
    # factor key at all is refused (HF's validation requires the key: KeyError)
    _require_keys(params, "yarn")
    s = _factor(params) if params[FACTOR.name] is not None else max_position_embeddings / length
    beta_fast = _opt_float(params, BETA_FAST)  # HF: `.get("beta_fast") or 32`
    beta_slow = _opt_float(params, BETA_SLOW)  # HF: `.get("beta_slow") or 1`
    truncate = params.get(TRUNCATE.name, TRUNCATE.default)
    if not isinstance(truncate, bool):
        raise RopeParameterTypeError(TRUNCATE.name, f"must be true or false, got {truncate!r}")
    # beta_fast <= beta_slow: HF 5.23 only warns (for <) and computes, so does posenc (the ramp reverses)
    low, high = yarn_correction_range(
        dim,
        base=base,
        original_max_position_embeddings=length,
        beta_fast=beta_fast,
        beta_slow=beta_slow,
        truncate=truncate,
    )
    theta = inverse_frequencies(dim, base=base)
    ramp = yarn_ramp(low, high, dim // 2)
    # θ'_j = (θ_j/s)·ramp_j + θ_j·(1 − ramp_j)
    inv = (theta / s) * ramp + theta * (1.0 - ramp)

    af = _opt_float(params, ATTENTION_FACTOR)
    if af is None:
        mscale = _opt_float(params, MSCALE)
        mscale_all_dim = _opt_float(params, MSCALE_ALL_DIM)
        if mscale and mscale_all_dim:  # HF: 0 or absent means "not set"
            af = yarn_get_mscale(s, mscale) / yarn_get_mscale(s, mscale_all_dim)
        else:
            af = yarn_get_mscale(s)
    return inv, float(af)


def _llama3_params(
    params: Mapping[str, Any], max_position_embeddings: int | None = None
) -> tuple[float, float, float, int]:
    _require_keys(params, "llama3")
    s = _factor(params)
    lo = _number(LOW_FREQ_FACTOR, params[LOW_FREQ_FACTOR.name])
    hi = _number(HIGH_FREQ_FACTOR, params[HIGH_FREQ_FACTOR.name])
    # hi <= lo: HF only warns and computes (no pair is "medium" then): Llama 4 Scout ships hi = lo = 1
    # HF (standardize_rope_params): no original_max_position_embeddings -> max_position_embeddings
    length = _length(params, max_position_embeddings, minimum=1)  # type: ignore[arg-type]
    return s, lo, hi, length


def llama3_bands(inv_freq, *, factor, low_freq_factor, high_freq_factor, original_max_position_embeddings):
    """Which Llama 3 band each pair falls in: "divided" (λ > L/low), else "kept" (λ < L/high), else
    "smoothed" — HF's order, which matters only when high_freq_factor <= low_freq_factor."""
    _, lo, hi, length = _llama3_params(
        {
            "factor": factor,
            "low_freq_factor": low_freq_factor,
            "high_freq_factor": high_freq_factor,
            "original_max_position_embeddings": original_max_position_embeddings,
        },
        original_max_position_embeddings,
    )
    wavelen = 2 * np.pi / v.float_array("inv_freq", inv_freq, ndim=1)
    return np.where(wavelen > length / lo, "divided", np.where(wavelen < length / hi, "kept", "smoothed"))


def _llama3(params, dim, *, max_position_embeddings, seq_len) -> tuple[np.ndarray, float]:
    s, lo, hi, length = _llama3_params(params, max_position_embeddings)
    theta = inverse_frequencies(dim, base=_theta(params))
    wavelen = 2 * np.pi / theta
    # λ_j > L/low: θ_j/s;  λ_j < L/high: θ_j;  between: (1 − sm)·θ_j/s + sm·θ_j
    inv = np.where(wavelen > length / lo, theta / s, theta)
    medium = ~(wavelen < length / hi) & ~(wavelen > length / lo)
    if hi == lo:  # HF's smooth factor divides by 0 there, but only for pairs torch.where does not pick
        return inv, 1.0
    smooth = (length / wavelen - lo) / (hi - lo)
    smoothed = (1 - smooth) * theta / s + smooth * theta
    return np.where(medium, smoothed, inv), 1.0


def _longrope(params, dim, *, max_position_embeddings, seq_len) -> tuple[np.ndarray, float]:
    _require_keys(params, "longrope")
    base = _theta(params)
    n = dim // 2
    factors = {}
    for key in (SHORT_FACTOR.name, LONG_FACTOR.name):
        raw = params[key]
        if not isinstance(raw, (list, tuple, np.ndarray)):
            raise RopeParameterTypeError(key, f"must be a list of {n} numbers, got {type(raw).__name__}")
        if len(raw) != n:
            raise RopeParameterError(key, f"must have head_dim/2 = {n} entries, got {len(raw)}")
        arr = _checked(key, v.float_array, raw, ndim=1)
        if np.any(arr <= 0):
            raise RopeParameterError(key, f"entries must be > 0, got {arr[arr <= 0][0]}")
        factors[key] = arr
    length = _length(params, max_position_embeddings, minimum=2)
    s = _factor(params) if params.get(FACTOR.name) is not None else max_position_embeddings / length
    af = _opt_float(params, ATTENTION_FACTOR)
    if af is None:
        # af = √(1 + ln s / ln L) for s > 1
        af = 1.0 if s <= 1 else math.sqrt(1 + math.log(s) / math.log(length))
    ext = factors[LONG_FACTOR.name] if seq_len is not None and seq_len > length else factors[SHORT_FACTOR.name]
    # θ'_j = 1 / (ext_j · b^(2j/d))
    return inverse_frequencies(dim, base=base) / ext, float(af)


# --------------------------------------------------------------------------------------------------
# what HF does with a method's keys together (RopeMethod.advise, read by the config parser)
# --------------------------------------------------------------------------------------------------
def _trained(block: Mapping[str, Any], max_position_embeddings: int | None) -> str:
    given = block.get(ORIGINAL_MAX_POSITION_EMBEDDINGS.name)
    if given is not None:
        return str(given)
    return (
        f"max_position_embeddings ({max_position_embeddings})" if max_position_embeddings else "max_position_embeddings"
    )


def _without_original(block: Mapping[str, Any], severity: str, message: str) -> list[Advice]:
    """The advice on original_max_position_embeddings when the block does not give it (else none)."""
    name = ORIGINAL_MAX_POSITION_EMBEDDINGS.name
    return [] if name in block else [Advice(name, severity, message)]


def _yarn_advice(block: Mapping[str, Any], max_position_embeddings: int | None) -> list[Advice]:
    out = []
    # HF 5.23 _compute_yarn_parameters: `beta_fast = ….get("beta_fast") or 32`, `beta_slow = … or 1`
    fast = block.get(BETA_FAST.name) or BETA_FAST.default
    slow = block.get(BETA_SLOW.name) or BETA_SLOW.default
    if fast < slow:
        # HF's _validate_yarn_rope_parameters: `if (beta_fast or 32) < (beta_slow or 1): logger.warning(...)`
        ramp = (
            f"is smaller than beta_slow ({slow!r}), got {fast!r}: HF transformers warns and computes it all "
            "the same, and the ramp runs backwards — pairs that turn more than beta_slow times over L are "
            "divided by the factor, pairs that turn fewer than beta_fast times keep their frequency, and "
            "the pairs between are blended the other way round"
        )
        out.append(Advice(BETA_FAST.name, "warning", ramp))
    elif fast == slow:
        ramp = (
            f"equals beta_slow ({slow!r}): HF transformers computes it (without a warning) and the ramp "
            "shrinks to a step — pairs that turn more than that many times over L keep their frequency, "
            "slower pairs are divided by the factor"
        )
        out.append(Advice(BETA_FAST.name, "warning", ramp))
    if FACTOR.name in block and block[FACTOR.name] is None:
        length = block.get(ORIGINAL_MAX_POSITION_EMBEDDINGS.name) or max_position_embeddings
        implied = (
            f" = {max_position_embeddings} / {length} = {max_position_embeddings / length:g}"
            if max_position_embeddings and length
            else ""
        )
        null = f"is null: HF transformers then uses max_position_embeddings / original_max_position_embeddings{implied}"
        out.append(Advice(FACTOR.name, "warning", null))
    return out + _without_original(
        block,
        "note",
        f"original_max_position_embeddings is not given: YaRN uses {_trained(block, max_position_embeddings)} "
        "as the trained length.",
    )


def _llama3_advice(block: Mapping[str, Any], max_position_embeddings: int | None) -> list[Advice]:
    out = []
    lo, hi = block.get(LOW_FREQ_FACTOR.name), block.get(HIGH_FREQ_FACTOR.name)
    if lo is not None and hi is not None and hi <= lo:
        # HF's _validate_llama3_rope_parameters only warns; the computation runs (no pair is "medium")
        bands = (
            f"is not greater than low_freq_factor ({lo!r}), got {hi!r}: HF transformers warns and computes it "
            "all the same — no pair is smoothed; pairs whose wavelength exceeds L / low_freq_factor are "
            "divided by the factor, the rest keep theirs"
        )
        out.append(Advice(HIGH_FREQ_FACTOR.name, "warning", bands))
    return out + _without_original(
        block,
        "warning",
        f"missing: HF transformers then uses {_trained(block, max_position_embeddings)} as the trained "
        "length L, so the bands are placed relative to the extended length, not the trained one",
    )


def _longrope_advice(block: Mapping[str, Any], max_position_embeddings: int | None) -> list[Advice]:
    out = []
    short, long_ = block.get(SHORT_FACTOR.name), block.get(LONG_FACTOR.name)
    if short is not None and long_ is not None and len(short) != len(long_):
        out.append(Advice(LONG_FACTOR.name, "error", f"has {len(long_)} entries but short_factor has {len(short)}"))
    return out + _without_original(
        block,
        "warning",
        f"missing: LongRoPE then uses {_trained(block, max_position_embeddings)} as the trained length, "
        "so the scale is 1, the attention factor is 1 and long_factor is only used beyond it",
    )


# --------------------------------------------------------------------------------------------------
# the declarations
# --------------------------------------------------------------------------------------------------
_HF = "HF transformers src/transformers/modeling_rope_utils.py"

ROPE_METHODS: Mapping[str, RopeMethod] = MappingProxyType(
    {
        m.name: m
        for m in (
            RopeMethod(
                name="default",
                hf_rope_type=True,
                keys=(),
                latex=r"\theta'_j = \theta_j = b^{-2j/d},\qquad a = 1",
                compute=_default,
                source=f"{_HF}, _compute_default_rope_parameters; Su et al. 2021, RoFormer (arXiv:2104.09864)",
            ),
            RopeMethod(
                name="linear",
                hf_rope_type=True,
                keys=(FACTOR,),
                latex=r"\theta'_j = \frac{\theta_j}{s}\quad\Longleftrightarrow\quad m \mapsto \frac{m}{s},\qquad a = 1",
                compute=_linear,
                source=f"{_HF}, _compute_linear_scaling_rope_parameters; Chen et al. 2023, Position "
                "Interpolation (arXiv:2306.15595); kaiokendev (SuperHOT)",
            ),
            RopeMethod(
                name="ntk",
                hf_rope_type=False,
                keys=(FACTOR,),
                latex=r"b' = b\, s^{\,d/(d-2)}\ \ (b' = b\,s \text{ if } d = 2),\qquad "
                r"\theta'_j = b'^{\,-2j/d},\qquad a = 1",
                compute=_ntk,
                source="bloc97, 'NTK-Aware Scaled RoPE' (r/LocalLLaMA, June 2023); not in HF's "
                "ROPE_INIT_FUNCTIONS, where it is rope_type 'default' with a larger rope_theta",
            ),
            RopeMethod(
                name="dynamic",
                reads_train_len=True,
                hf_rope_type=True,
                reads_seq_len=True,
                keys=(FACTOR,),
                latex=r"b' = b\left(\frac{s\,T}{L} - (s-1)\right)^{d/(d-2)},\quad T = \max(\text{seq\_len}, L),"
                r"\qquad \theta'_j = b'^{\,-2j/d},\qquad a = 1",
                compute=_dynamic,
                source=f"{_HF}, _compute_dynamic_ntk_parameters; emozilla, 'Dynamically Scaled RoPE' "
                "(r/LocalLLaMA, 2023)",
            ),
            RopeMethod(
                name="yarn",
                reads_train_len=True,
                hf_rope_type=True,
                keys=(
                    # the key is required (HF's validation); null means max/original (_compute_yarn_parameters)
                    replace(FACTOR, null_means="max_position_embeddings / original_max_position_embeddings"),
                    ORIGINAL_MAX_POSITION_EMBEDDINGS,
                    BETA_FAST,
                    BETA_SLOW,
                    MSCALE,
                    MSCALE_ALL_DIM,
                    ATTENTION_FACTOR,
                    TRUNCATE,
                ),
                latex=r"\begin{gathered}\theta'_j = (1-\gamma_j)\,\theta_j + \gamma_j\,\frac{\theta_j}{s},\qquad "
                r"\gamma_j = \operatorname{clip}\!\left(\frac{j-\text{low}}{\text{high}-\text{low}},0,1\right)\\"
                r"\text{low} = \max\!\big(0, \lfloor c(\beta_\text{fast})\rfloor\big),\quad"
                r"\text{high} = \min\!\big(d-1, \lceil c(\beta_\text{slow})\rceil\big),\quad "
                r"c(\beta) = \frac{d\,\ln\!\big(L/(2\pi\beta)\big)}{2\ln b}"
                r"\quad(\lfloor\cdot\rfloor, \lceil\cdot\rceil \text{ only if truncate})\\"
                r"a = \begin{cases}\text{attention\_factor} & \text{if set}\\"
                r"g(s, \text{mscale})\,/\,g(s, \text{mscale\_all\_dim}) & \text{if both are set and} \ne 0\\"
                r"g(s, 1) & \text{otherwise}\end{cases},\qquad "
                r"g(s, m) = \begin{cases}0.1\,m\ln s + 1 & s > 1\\ 1 & s \le 1\end{cases}\end{gathered}",
                compute=_yarn,
                advise=_yarn_advice,
                source=f"{_HF}, _compute_yarn_parameters; Peng et al. 2023, YaRN (arXiv:2309.00071); "
                "mscale / mscale_all_dim from DeepSeek-V2",
            ),
            RopeMethod(
                name="llama3",
                reads_train_len=True,
                hf_rope_type=True,
                keys=(
                    FACTOR,
                    LOW_FREQ_FACTOR,
                    HIGH_FREQ_FACTOR,
                    ORIGINAL_MAX_POSITION_EMBEDDINGS,
                ),
                latex=r"\theta'_j = \begin{cases}\theta_j & \lambda_j < L/h\\[2pt] \theta_j/s & \lambda_j > L/l\\[2pt]"
                r"(1-\mu_j)\,\theta_j/s + \mu_j\,\theta_j & \text{otherwise}\end{cases},\quad "
                r"\mu_j = \frac{L/\lambda_j - l}{h-l},\quad \lambda_j = \frac{2\pi}{\theta_j},\quad "
                r"l = \text{low\_freq\_factor},\ h = \text{high\_freq\_factor},\qquad a = 1",
                compute=_llama3,
                advise=_llama3_advice,
                source=f"{_HF}, _compute_llama3_parameters; Meta's Llama 3.1 reference code (apply_scaling)",
            ),
            RopeMethod(
                name="longrope",
                reads_train_len=True,
                hf_rope_type=True,
                reads_seq_len=True,
                keys=(
                    replace(
                        FACTOR, required=False, unset_means="max_position_embeddings / original_max_position_embeddings"
                    ),
                    ORIGINAL_MAX_POSITION_EMBEDDINGS,
                    SHORT_FACTOR,
                    LONG_FACTOR,
                    replace(
                        ATTENTION_FACTOR,
                        doc="LongRoPE: fixes the attention factor instead of computing it from s.",
                    ),
                ),
                latex=r"\theta'_j = \frac{\theta_j}{e_j},\quad e = \begin{cases}\text{long\_factor} & T > L\\"
                r"\text{short\_factor} & T \le L\end{cases},\qquad "
                r"a = \begin{cases}\text{attention\_factor} & \text{if set}\\"
                r"\sqrt{1 + \ln s/\ln L} & s > 1\\ 1 & s \le 1\end{cases},\quad "
                r"s = \text{factor, else } \text{max\_position\_embeddings}/L",
                compute=_longrope,
                advise=_longrope_advice,
                source=f"{_HF}, _compute_longrope_parameters; Ding et al. 2024, LongRoPE (arXiv:2402.13753), "
                "as used by Phi-3",
            ),
            RopeMethod(
                name="proportional",
                hf_rope_type=True,
                keys=(
                    replace(
                        FACTOR,
                        required=False,
                        default=1.0,
                        # HF: `factor = rope_parameters_dict.get("factor", 1.0)`, then `inv_freq /= factor`: a
                        # null factor is None there and the division raises TypeError
                        null_refused=True,
                        doc="`factor`: every kept frequency is divided by s (HF's default 1).",
                    ),
                    replace(
                        PARTIAL_ROTARY_FACTOR,
                        doc="Proportional RoPE: the fraction p of the head's pairs that carry position; "
                        "the rest get frequency 0 (they never rotate).",
                    ),
                ),
                latex=r"\theta'_j = \begin{cases}b^{-2j/d}/s & j < \lfloor p\,d/2\rfloor\\ 0 & \text{otherwise}"
                r"\end{cases},\quad d = \text{head\_dim},\ p = \text{partial\_rotary\_factor},\qquad a = 1",
                compute=_proportional,
                source=f"{_HF}, _compute_proportional_rope_parameters (transformers 5.23; Gemma 4's "
                "full-attention layers); Barbero et al. 2024, 'Round and Round We Go' (p-RoPE, arXiv:2410.06205)",
                full_head_dim=True,
            ),
        )
    }
)
