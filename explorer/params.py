"""THE parameter registry: one definition per user-facing parameter, and `widget()`.

Every widget in the app is created through `widget(key)`. The registry entry (`Param`) holds the
label, kind, default, range, help text and the URL key (`Param.key` is both the Streamlit widget key
and the query-parameter name, bound with ``bind="query-params"``), so the same parameter looks and
behaves the same on every page and every value a page can show can be shared as a link.

Pages add their own parameters with `register(Param(...))` in a page-specific module (registering
the same key twice is fine only if the definitions are identical).

URL semantics (Streamlit 1.67, measured; see `docs/ARCHITECTURE.md`)
---------------------------------------------------------------------
* A bound widget writes its value to the URL when the user changes it and **removes** the parameter
  when the value equals the widget's default. A link without ``?seq_len=`` therefore means
  "the default" - changing a registry default later changes what old links show.
* On a page load, Streamlit seeds the widget from the URL. Streamlit on its own silently drops
  values it cannot use (garbage, out of range) and *accepts* some values we do not want (an odd
  ``d_model``, a value that is only valid under a page's dynamic maximum). So `widget()` validates
  the raw URL value first, against the registry definition:

  - unparseable / NaN / infinite / out of the registry range / off the step grid / not an option
    -> the parameter is removed from the URL (and from session state); the widget shows the
    default; a notice is recorded;
  - valid for the registry but outside a page's *dynamic* range (e.g. ``j=60`` while
    ``head_dim=8`` allows j <= 3) -> **clamped** to the nearest allowed value (URL rewritten);
    a notice is recorded;
  - valid but not in canonical form (``300.0``, ``1e3``, ``TRUE``) -> URL rewritten to the
    canonical form, no notice.

  Notices are shown as one `st.warning` (plain text, markdown-escaped) by `show_url_notices()`;
  `explorer.layout.page_setup()` reserves a slot at the top of the page and fills it automatically.
  The URL is only consulted when the widget has no value in the session yet (page load, page
  navigation) or on browser back/forward, exactly when Streamlit seeds from it; during
  interaction the URL may lag a rerun behind and is ignored. Widget changes rewrite the URL with
  `history.replaceState`: they add no browser-history entries.
* During a session, a page may change a widget's range (``max=`` override). Streamlit then treats
  it as a *new* widget and resets it to its default (documented: changing min/max/step resets a
  keyed slider). `widget()` carries the previous value over, clamped into the new range, so
  changing ``head_dim`` does not throw the pair index back to 0.
* A slider whose range collapses to a single value (min == max) would make Streamlit raise; `widget()`
  then shows the value as text and returns it.

Implementation note: removing or rewriting a *bound* query parameter is not possible through the
public `st.query_params` API (it raises for bound keys), and Streamlit seeds widgets from its own
snapshot of the URL taken at page load. `_set_url_param()` therefore uses two internals of
`streamlit.runtime.state.query_params.QueryParams` (`remove_param`/`set_corrected_value`, the same
calls Streamlit uses for its own URL corrections, and `_initial_query_params`, the seeding
snapshot). `tests/test_params.py` runs a real script through `AppTest` so an upgrade that breaks
this fails loudly.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlencode

import streamlit as st

__all__ = [
    "KINDS",
    "PARAMS",
    "Param",
    "ParamError",
    "escape_markdown",
    "get",
    "page_url_path",
    "query_params_for",
    "register",
    "show_url_notices",
    "url_for",
    "url_notices",
    "widget",
]

KINDS = frozenset(
    {
        "int_slider",
        "float_slider",
        "select_slider",
        "select",
        "radio",
        "toggle",
        "number",
        "text",
        "segmented",
        "tabs",
    }
)
NUMERIC_KINDS = frozenset({"int_slider", "float_slider", "number"})
OPTION_KINDS = frozenset({"select_slider", "select", "radio", "segmented", "tabs"})

#: Param fields a page may override per call of `widget()` (everything else goes to Streamlit).
OVERRIDABLE_FIELDS = frozenset({"default", "min", "max", "step", "options", "help", "fmt", "log"})

_KEY_RE = re.compile(r"[a-z][a-z0-9_]{0,23}")
_NUMBER_RE = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_MAX_RAW_LEN = 64  # longest non-text URL value we even try to parse
_TEXT_DEFAULT_MAX_LEN = 200

_NOTICES_STATE_KEY = "_explorer_url_notices"  # {"run": marker, "notices": [...], "slot": DG}
_SIGNATURES_STATE_KEY = "_explorer_widget_signatures"


class ParamError(ValueError):
    """A value is not valid for a parameter. The message always starts with the parameter key."""

    def __init__(self, key: str, reason: str, value: Any = None):
        shown = f' "{_short(str(value))}"' if value is not None else ""
        super().__init__(f"{key}:{shown} {reason}")
        self.key = key
        self.reason = reason  # a phrase that never contains the raw value (safe to display)
        self.value = value


def _short(raw: str, limit: int = 24) -> str:
    """A raw URL value shortened for messages (never trusted as markup; escape before display)."""
    return raw if len(raw) <= limit else raw[: limit - 1] + "…"


def _fmt_number(v: float | int) -> str:
    """Number as Streamlit writes it into the URL: 5.0 -> "5", 0.5 -> "0.5"."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and math.isfinite(v) and v == int(v):
        return str(int(v))
    return str(v)


@dataclass(frozen=True)
class Param:
    """One user-facing parameter.

    key      URL query-parameter name and Streamlit widget key: short, lowercase, stable forever.
    label    widget label shown to the user.
    kind     one of `KINDS` (which Streamlit widget is drawn).
    default  value used when the URL does not say otherwise (Streamlit drops it from the URL).
    min/max  numeric range (inclusive) for int_slider/float_slider/number; for "text", `max` is the
             maximum length (default 200). Unused for option kinds.
    step     numeric step; values must lie on the grid min + k*step (ints default to 1).
    options  allowed values for select_slider/select/radio/segmented/tabs. The URL stores `str(option)`,
             so options should be short stable tokens or numbers (no `format_func`: Streamlit would
             put the formatted label into the URL).
    help     tooltip (markdown); not shown for "tabs".
    log      the parameter is naturally log-scaled (charts should use a log axis for it).
    fmt      printf-style display format for sliders/number inputs (e.g. "%.2f"); display only.
    """

    key: str
    label: str
    kind: str
    default: Any
    min: float | int | None = None
    max: float | int | None = None
    step: float | int | None = None
    options: tuple | None = None
    help: str = ""
    log: bool = False
    fmt: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.key, str) or not _KEY_RE.fullmatch(self.key):
            raise ValueError(f"Param key must match {_KEY_RE.pattern} (short, lowercase, URL-safe), got {self.key!r}")
        if self.kind not in KINDS:
            raise ValueError(f"{self.key}: kind must be one of {sorted(KINDS)}, got {self.kind!r}")
        if self.options is not None and not isinstance(self.options, tuple):
            object.__setattr__(self, "options", tuple(self.options))
        if self.kind in NUMERIC_KINDS:
            if self.min is None or self.max is None:
                raise ValueError(f"{self.key}: a {self.kind} needs min and max")
            if not self.min <= self.max:  # == only via a page's override; widget() handles it
                raise ValueError(f"{self.key}: min must be <= max, got {self.min} and {self.max}")
            if self.is_int:
                if self.step is None:
                    object.__setattr__(self, "step", 1)
            elif self.step is None:
                raise ValueError(f"{self.key}: a float parameter needs a step")
            if not self.step > 0:
                raise ValueError(f"{self.key}: step must be > 0, got {self.step}")
        if self.kind in OPTION_KINDS:
            if not self.options:
                raise ValueError(f"{self.key}: a {self.kind} needs options")
            tokens = [str(o) for o in self.options]
            if len(set(tokens)) != len(tokens):
                raise ValueError(f"{self.key}: options must have distinct str() forms")
        problem = self.problem(self.default)
        if problem:
            raise ValueError(f"{self.key}: default {self.default!r} {problem}")

    # ----------------------------------------------------------------- value semantics (pure)
    @property
    def is_int(self) -> bool:
        """Whether a numeric parameter takes integer values."""
        if self.kind == "int_slider":
            return True
        if self.kind == "number":
            return all(
                isinstance(v, int) and not isinstance(v, bool)
                for v in (self.default, self.min, self.max)
                if v is not None
            ) and (self.step is None or isinstance(self.step, int))
        return False

    @property
    def text_max_len(self) -> int:
        return int(self.max) if self.max is not None else _TEXT_DEFAULT_MAX_LEN

    def problem(self, value: Any) -> str | None:
        """Why `value` is not allowed for this parameter (a phrase), or None if it is fine."""
        kind = self.kind
        if kind in NUMERIC_KINDS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return "is not a number"
            if not math.isfinite(value):
                return "is not a finite number"
            if self.is_int and value != int(value):
                return "is not a whole number"
            if value < self.min or value > self.max:
                return f"is outside the allowed range {_fmt_number(self.min)}–{_fmt_number(self.max)}"
            k = (value - self.min) / self.step
            if abs(k - round(k)) > 1e-9 * max(1.0, abs(k)):
                return f"is not on the {_fmt_number(self.step)}-step grid starting at {_fmt_number(self.min)}"
            return None
        if kind in OPTION_KINDS:
            if value not in self.options:
                return f"is not one of {self._options_phrase()}"
            return None
        if kind == "toggle":
            return None if isinstance(value, bool) else 'is not "true" or "false"'
        if kind == "text":
            if not isinstance(value, str):
                return "is not text"
            if len(value) > self.text_max_len:
                return f"is longer than {self.text_max_len} characters"
            return None
        return "has an unknown kind"  # pragma: no cover - kind validated in __post_init__

    def _options_phrase(self) -> str:
        tokens = [str(o) for o in self.options or ()]
        if len(tokens) > 8:
            tokens = tokens[:4] + ["…"] + tokens[-2:]
        return ", ".join(tokens)

    def parse(self, raw: str | list[str] | tuple[str, ...]) -> Any:
        """Parse and validate a raw URL value (as `st.query_params.get_all` returns it).

        Returns the typed value; raises `ParamError` (message names the key) if it is not
        allowed. Pure: no Streamlit calls.
        """
        if isinstance(raw, (list, tuple)):
            if len(raw) != 1:
                raise ParamError(self.key, "was given more than once")
            raw = raw[0]
        if not isinstance(raw, str):
            raise ParamError(self.key, f"must be text, got {type(raw).__name__}")
        kind = self.kind
        if kind == "text":
            value: Any = raw
        else:
            text = raw.strip()
            if text == "":
                raise ParamError(self.key, "is empty")
            if len(text) > _MAX_RAW_LEN:
                raise ParamError(self.key, f"is too long ({len(text)} characters)")
            if kind in NUMERIC_KINDS:
                if not _NUMBER_RE.fullmatch(text):
                    raise ParamError(self.key, "is not a number", raw)
                number = float(text)
                if not math.isfinite(number):
                    raise ParamError(self.key, "is not a finite number", raw)
                if self.is_int:
                    if number != int(number):
                        raise ParamError(self.key, "is not a whole number", raw)
                    value = int(number)
                else:
                    value = number
            elif kind in OPTION_KINDS:
                value = self._match_option(text)
                if value is _NO_MATCH:
                    raise ParamError(self.key, f"is not one of {self._options_phrase()}", raw)
            elif kind == "toggle":
                low = text.lower()
                if low not in ("true", "false"):
                    raise ParamError(self.key, 'is not "true" or "false"', raw)
                value = low == "true"
            else:  # pragma: no cover
                raise ParamError(self.key, "has an unknown kind")
        problem = self.problem(value)
        if problem:
            raise ParamError(self.key, problem, raw)
        return value

    def _match_option(self, text: str) -> Any:
        options = self.options or ()
        for option in options:
            if str(option) == text:
                return option
        low = text.lower()
        for option in options:
            if str(option).lower() == low:
                return option
        if _NUMBER_RE.fullmatch(text):  # "1e4" for a numeric option 10000
            number = float(text)
            for option in options:
                if isinstance(option, (int, float)) and not isinstance(option, bool) and option == number:
                    return option
        return _NO_MATCH

    def to_url(self, value: Any) -> str:
        """The canonical URL form of a value (what Streamlit itself writes)."""
        if self.kind == "toggle":
            return "true" if value else "false"
        if self.kind in OPTION_KINDS or self.kind == "text":
            return str(value)
        if self.is_int and isinstance(value, float) and math.isfinite(value):
            value = int(value)
        return _fmt_number(value)

    def clamp(self, value: Any) -> Any:
        """The nearest allowed value (numbers: clipped to the range and snapped to the step grid;
        options: the value if allowed, else the default; text: truncated)."""
        kind = self.kind
        if kind in NUMERIC_KINDS:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                return self.default
            if not math.isfinite(value):
                return self.default
            v = min(max(value, self.min), self.max)
            k = round((v - self.min) / self.step)
            v = self.min + k * self.step
            if v > self.max:
                v -= self.step
            if self.is_int:
                return int(round(v))
            # Keep a clean float (0.30000000000000004 -> 0.3) without changing grid values.
            return float(round(v, 12))
        if kind in OPTION_KINDS:
            return value if value in (self.options or ()) else self.default
        if kind == "toggle":
            return bool(value)
        if kind == "text":
            return str(value)[: self.text_max_len]
        return value  # pragma: no cover

    def with_overrides(self, **changes: Any) -> Param:
        """A copy with some fields replaced (for a page's dynamic range/options).

        The default is clamped into the new range (or replaced by the first option) so the
        result is always a valid definition.
        """
        unknown = set(changes) - OVERRIDABLE_FIELDS
        if unknown:
            raise TypeError(f"{self.key}: cannot override {sorted(unknown)}")
        if not changes:
            return self
        fields = dataclasses.asdict(self)
        fields.update(changes)
        if fields.get("options") is not None:
            fields["options"] = tuple(fields["options"])
        kind = fields["kind"]
        default = fields["default"]
        if kind in NUMERIC_KINDS and fields["min"] is not None and fields["max"] is not None:
            lo, hi = fields["min"], fields["max"]
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                default = min(max(default, lo), hi)
                fields["default"] = default
            # Snap via a provisional copy (the default may be off the new step grid).
            if lo <= hi:
                provisional = dataclasses.replace(self, **{**fields, "default": lo})
                fields["default"] = provisional.clamp(default)
        elif kind in OPTION_KINDS and fields["options"]:
            if default not in fields["options"]:
                fields["default"] = fields["options"][0]
        return Param(**fields)


_NO_MATCH = object()

# ---------------------------------------------------------------------------------- registry
PARAMS: dict[str, Param] = {}


def register(param: Param) -> Param:
    """Add a parameter to the registry (idempotent for an identical definition).

    Raises ValueError if the key is already registered with a different definition.
    """
    existing = PARAMS.get(param.key)
    if existing is not None and existing != param:
        raise ValueError(
            f"parameter {param.key!r} is already registered with a different definition:\n"
            f"  existing: {existing}\n  new:      {param}"
        )
    PARAMS[param.key] = param
    return param


def get(key: str) -> Param:
    """The registered parameter `key` (KeyError with a helpful message otherwise)."""
    try:
        return PARAMS[key]
    except KeyError:
        raise KeyError(
            f"unknown parameter {key!r}; register it first with explorer.params.register(Param(...)). "
            f"Known: {', '.join(sorted(PARAMS))}"
        ) from None


# The shared vocabulary. URL keys are part of the public interface: never rename them.
# 150000 is gpt-oss's rope_theta (posenc.models.PRESETS: every preset's base must be an option).
BASE_OPTIONS = (10, 100, 500, 1000, 10000, 50000, 100000, 150000, 500000, 1000000)
SCHEMES = ("redblue", "viridis", "magma", "blueorange")

for _p in (
    Param(
        "seq_len",
        "Sequence length (positions)",
        "int_slider",
        128,
        min=1,
        max=8192,
        help="How many positions (tokens) are encoded: positions 0 … seq_len − 1.",
    ),
    Param(
        "d_model",
        "Model dimension d",
        "int_slider",
        128,
        min=2,
        max=2048,
        step=2,
        help="Width of the encoding vector. Always even: dimensions come in (sin, cos) pairs.",
    ),
    Param(
        "base",
        "Base b",
        "select_slider",
        10000,
        options=BASE_OPTIONS,
        log=True,
        help="Sets the slowest frequency: θ_j = b^(−2j/d). The paper uses 10000; Llama 3 uses 500000 for long context.",
    ),
    Param(
        "layout_sin",
        "Sinusoidal layout",
        "radio",
        "interleaved",
        options=("interleaved", "concatenated"),
        help="**interleaved** (the paper): sin on even dimensions, cos on odd. "
        "**concatenated** (tensor2tensor): all sines, then all cosines. Both are correct.",
    ),
    Param(
        "layout_rope",
        "RoPE pair layout",
        "radio",
        "half",
        options=("half", "interleaved"),
        help="**half** (GPT-NeoX, HF LLaMA): pairs (x_j, x_{j+d/2}). "
        "**interleaved** (GPT-J, RoFormer, Meta LLaMA): pairs (x_2j, x_2j+1).",
    ),
    Param(
        "head_dim",
        "Head dimension d",
        "int_slider",
        64,
        min=2,
        max=256,
        step=2,
        help="Per-head query/key width that RoPE rotates, in pairs of coordinates.",
    ),
    Param(
        "m",
        "Position m",
        "int_slider",
        5,
        min=0,
        max=8192,
        help="A token position (the query's position where two are compared).",
    ),
    Param(
        "n",
        "Position n",
        "int_slider",
        12,
        min=0,
        max=8192,
        help="A second token position (the key's position where two are compared).",
    ),
    Param(
        "j",
        "Pair index j",
        "int_slider",
        0,
        min=0,
        max=1023,
        help="Which (sin, cos) pair / rotation plane: j = 0 is the fastest frequency, j = d/2 − 1 the slowest.",
    ),
    Param(
        "scheme",
        "Colour scheme",
        "select",
        "redblue",
        options=SCHEMES,
        help="Colour map for heatmaps. redblue and blueorange are diverging (centred on 0).",
    ),
    Param(
        "seed",
        "Random seed",
        "number",
        0,
        min=0,
        max=9999,
        help="Seed for the random vectors/tables, so a shared link shows the same numbers.",
    ),
):
    register(_p)
del _p


# --- Context extension ---
# URL keys documented in pages/5_Context_extension.py; names follow HF config.json where they fit.
from posenc.scaling import ROPE_SCALING as _ROPE_SCALING  # noqa: E402

for _p in (
    Param(
        "train_len",
        "Trained length L",
        "number",
        4096,
        min=16,
        max=262144,
        help="`original_max_position_embeddings`: the longest sequence the model saw in training.",
    ),
    Param(
        "target_len",
        "Target length T",
        "number",
        16384,
        min=16,
        max=1048576,
        help="The context length you want to run at. Dynamic NTK and LongRoPE also use it as "
        "the current sequence length.",
    ),
    Param(
        "rope_type",
        "Method (rope_type)",
        "radio",
        "yarn",
        options=tuple(_ROPE_SCALING),
        help="How the RoPE frequencies are rescaled, with the names HF transformers uses in a config's rope block.",
    ),
    Param(
        "factor",
        "Scaling factor s",
        "number",
        4.0,
        min=1.0,
        max=128.0,
        step=0.25,
        help="`factor`: how many times longer than L the model should cope with (usually T / L).",
    ),
    Param(
        "beta_fast",
        "beta_fast (turns)",
        "number",
        32.0,
        min=0.5,
        max=256.0,
        step=0.5,
        help="YaRN: pairs that turn more than beta_fast times over L keep their frequency.",
    ),
    Param(
        "beta_slow",
        "beta_slow (turns)",
        "number",
        1.0,
        min=0.25,
        max=128.0,
        step=0.25,
        help="YaRN: pairs that turn fewer than beta_slow times over L are divided by s. "
        "Must be smaller than beta_fast.",
    ),
    Param(
        "mscale",
        "mscale (0 = not set)",
        "number",
        0.0,
        min=0.0,
        max=4.0,
        step=0.001,
        fmt="%.3f",
        help="YaRN (DeepSeek): used only together with mscale_all_dim; the attention factor is "
        "then g(s, mscale) / g(s, mscale_all_dim).",
    ),
    Param(
        "mscale_all_dim",
        "mscale_all_dim (0 = not set)",
        "number",
        0.0,
        min=0.0,
        max=4.0,
        step=0.001,
        fmt="%.3f",
        help="YaRN (DeepSeek): see mscale. 0 leaves the key out of the rope block.",
    ),
    Param(
        "attention_factor",
        "attention_factor (0 = computed)",
        "number",
        0.0,
        min=0.0,
        max=4.0,
        step=0.01,
        fmt="%.2f",
        help="YaRN: fixes the attention factor instead of computing it from s. 0 leaves the key out of the rope block.",
    ),
    Param(
        "truncate",
        "truncate (round the ramp ends)",
        "toggle",
        True,
        help="YaRN: floor/ceil the correction range to whole pairs (HF's default, true).",
    ),
    Param(
        "low_freq_factor",
        "low_freq_factor",
        "number",
        1.0,
        min=0.25,
        max=64.0,
        step=0.25,
        help="Llama 3: pairs with wavelength above L / low_freq_factor are divided by s.",
    ),
    Param(
        "high_freq_factor",
        "high_freq_factor",
        "number",
        4.0,
        min=0.25,
        max=64.0,
        step=0.25,
        help="Llama 3: pairs with wavelength below L / high_freq_factor keep their frequency. "
        "Must be larger than low_freq_factor.",
    ),
    Param(
        "short_gen",
        "short_factor list",
        "select",
        "ones",
        options=("ones", "ramp", "constant"),
        help="LongRoPE, used while the sequence is ≤ L. **ones**: all 1.0; **ramp**: 1 → s "
        "from the fastest to the slowest pair; **constant**: all s (plain interpolation).",
    ),
    Param(
        "long_gen",
        "long_factor list",
        "select",
        "ramp",
        options=("ones", "ramp", "constant"),
        help="LongRoPE, used once the sequence is longer than L. **ones**: all 1.0; **ramp**: "
        "1 → s from the fastest to the slowest pair; **constant**: all s.",
    ),
    Param(
        "ext_view",
        "View",
        "tabs",
        "Wavelengths",
        options=("Wavelengths", "Rescaling", "Attention", "Interpolation", "Precision"),
    ),
):
    register(_p)
del _p


# --- Why position matters ---
# Home page (app.py). Also uses the shared d_model (capped at 64 there), seed.
for _p in (
    Param(
        "sentence",
        "Your sentence",
        "text",
        "the cat sat on the mat",
        max=300,
        help="Words separated by spaces (at most 24 are used). Each word gets a fixed random "
        "vector, the same wherever it stands.",
    ),
    Param(
        "shuffle_seed",
        "Shuffle seed",
        "number",
        0,
        min=0,
        max=9999,
        help="Which random shuffle of the words to compare against.",
    ),
    Param(
        "home_pe",
        "Position signal",
        "segmented",
        "none",
        options=("none", "sinusoidal", "learned", "rope"),
        help="**none**: the head sees only the words. **sinusoidal** / **learned**: a position "
        "vector is added to each word's vector. **rope**: queries and keys are rotated by position.",
    ),
):
    register(_p)
del _p


# --- Compare methods ---
# pages/6_Compare_methods.py. Also uses head_dim, base, seed, train_len, target_len (capped there).
register(
    Param(
        "alibi_head",
        "ALiBi head h (of 8)",
        "int_slider",
        4,
        min=1,
        max=8,
        help="ALiBi gives each head its own slope 2^(−h) (8 heads): head 1 looks very locally, "
        "head 8 almost uniformly.",
    )
)


# --- RoPE rotation ---
# pages/3_RoPE_rotation.py. Also uses head_dim, base, m, n, j (max head_dim/2 − 1), layout_rope.
for _p in (
    Param("rope_view", "View", "tabs", "One pair", options=("One pair", "Whole head")),
    Param(
        "vec_input",
        "Give q and k as",
        "radio",
        "cartesian",
        options=("cartesian", "polar"),
        help="**cartesian**: the (x, y) coordinates of the pair. **polar**: its angle (degrees, "
        "counter-clockwise from the x axis) and its length.",
    ),
    Param(
        "qx",
        "q: x",
        "float_slider",
        1.0,
        min=-3.0,
        max=3.0,
        step=0.1,
        help="First coordinate of pair j of the query q.",
    ),
    Param(
        "qy",
        "q: y",
        "float_slider",
        0.5,
        min=-3.0,
        max=3.0,
        step=0.1,
        help="Second coordinate of pair j of the query q.",
    ),
    Param(
        "kx", "k: x", "float_slider", -0.4, min=-3.0, max=3.0, step=0.1, help="First coordinate of pair j of the key k."
    ),
    Param(
        "ky", "k: y", "float_slider", 1.2, min=-3.0, max=3.0, step=0.1, help="Second coordinate of pair j of the key k."
    ),
    Param(
        "q_angle",
        "q: angle (°)",
        "int_slider",
        30,
        min=-180,
        max=180,
        help="Direction of pair j of q, in degrees counter-clockwise from the x axis.",
    ),
    Param(
        "q_len",
        "q: length",
        "float_slider",
        1.0,
        min=0.1,
        max=3.0,
        step=0.1,
        help="Length of pair j of q (rotation never changes it).",
    ),
    Param(
        "k_angle",
        "k: angle (°)",
        "int_slider",
        110,
        min=-180,
        max=180,
        help="Direction of pair j of k, in degrees counter-clockwise from the x axis.",
    ),
    Param(
        "k_len",
        "k: length",
        "float_slider",
        1.5,
        min=0.1,
        max=3.0,
        step=0.1,
        help="Length of pair j of k (rotation never changes it).",
    ),
    Param(
        "traj_m",
        "Trajectory: positions 0 … M",
        "int_slider",
        16,
        min=0,
        max=256,
        help="Draw where pair j of q lands at every position 0, 1, …, M: it walks round the circle in steps of θ_j.",
    ),
):
    register(_p)
del _p


# --- Relative-position invariance ---
# pages/4_Relative_invariance.py. Also uses seed, head_dim, base, layout_sin, seq_len (max 256).
for _p in (
    Param(
        "qk_source",
        "q and k",
        "radio",
        "random",
        options=("random", "typed"),
        help="**random**: seeded normal vectors of length head dim. **typed**: your own "
        "comma-separated numbers (their count sets the head dim).",
    ),
    Param(
        "q_text",
        "q (comma-separated)",
        "text",
        "1, 0, 0.5, -0.5, 0.25, 2, -1, 0.75",
        max=3000,
        help="The query vector, e.g. 1, 0, 0.5, -0.5. An even count: coordinates rotate in pairs.",
    ),
    Param(
        "k_text",
        "k (comma-separated)",
        "text",
        "0.5, 1, -1, 0.25, 2, 0, 0.5, -0.75",
        max=3000,
        help="The key vector; the same number of entries as q.",
    ),
    Param(
        "shift_t",
        "Shift offset t",
        "int_slider",
        16,
        min=1,
        max=4096,
        help="The test compares the score at positions (m, n) with the score at (m + t, n + t).",
    ),
    Param(
        "score_dtype",
        "Precision of the RoPE scores",
        "radio",
        "float64",
        options=("float64", "float32"),
        help="The RoPE scores are computed entirely in this dtype; the pass mark scales with "
        "its machine epsilon (about 2e-16 for float64, 1e-7 for float32).",
    ),
    Param(
        "table_len",
        "Learned table rows (max_len)",
        "number",
        128,
        min=8,
        max=4096,
        help="How many positions the learned table has rows for. The shift test needs rows up "
        "to N − 1 + t; a position past the table is an error, not a guess.",
    ),
    Param("inv_view", "View", "tabs", "Scores", options=("Scores", "Sinusoid shift", "Decay")),
):
    register(_p)
del _p


# --- Sinusoidal heatmap ---
# pages/1_Sinusoidal_heatmap.py. Also uses seq_len, d_model, base, layout_sin, scheme.
# The zoom window and N are clamped by the page to the current seq_len / d_model.
for _p in (
    Param(
        "zoom_p0",
        "Zoom: first position",
        "int_slider",
        0,
        min=0,
        max=8191,
        help="The zoom window starts at this position (exact values, no averaging).",
    ),
    Param(
        "zoom_np",
        "Zoom: number of positions",
        "int_slider",
        128,
        min=1,
        max=256,
        help="How many consecutive positions the zoom window, the curves and the table show.",
    ),
    Param(
        "zoom_d0",
        "Zoom: first dimension",
        "int_slider",
        0,
        min=0,
        max=2047,
        help="The zoom window starts at this dimension i.",
    ),
    Param(
        "zoom_nd",
        "Zoom: number of dimensions",
        "int_slider",
        64,
        min=1,
        max=256,
        help="How many consecutive dimensions the zoom window and the table show.",
    ),
    Param(
        "curve_dims",
        "Dimensions to draw as curves",
        "text",
        "0, 1, 20, 21, 100",
        max=120,
        help="Dimension indices i separated by commas, e.g. 0, 1, 20 (at most 8 are drawn).",
    ),
    Param(
        "sim_n",
        "Similarity and distance: first N positions",
        "int_slider",
        128,
        min=2,
        max=512,
        help="The N × N matrices compare positions 0 … N − 1 with each other.",
    ),
    Param(
        "sin_view",
        "View",
        "tabs",
        "Zoom",
        options=("Zoom", "Curves", "Wavelengths", "Similarity", "Numbers"),
    ),
):
    register(_p)
del _p


# --- Frequency clock hands ---
# pages/2_Clock_hands.py. Also uses d_model, base and m (shown there as "position p").
register(
    Param(
        "n_clocks",
        "Number of clocks",
        "int_slider",
        8,
        min=1,
        max=64,
        help="How many pairs get a clock, spread evenly from the fastest pair (j = 0) to the slowest (j = d/2 − 1).",
    )
)


# --- Presentation, tour and model presets ---
# explorer/presentation.py (page_setup), explorer/tour.py, explorer/presets_ui.py.
from posenc.models import PRESETS as _PRESETS  # noqa: E402

#: Longest tour the `step` parameter can address (explorer.tour.TOUR has fewer steps).
MAX_TOUR_STEPS = 30
for _p in (
    Param(
        "present",
        "Presentation mode",
        "toggle",
        False,
        help="Large text and charts for a projector; the sidebar starts collapsed and Streamlit's "
        "menu is hidden. A link can switch it on with ?present=1.",
    ),
    Param(
        "step",
        "Tour step",
        "number",
        0,
        min=0,
        max=MAX_TOUR_STEPS,
        help="Guided tour: 0 = no tour, 1 … n = the step shown (with its narration).",
    ),
    Param(
        "model",
        "Real model",
        "select",
        "custom",
        options=("custom", *_PRESETS),
        help="Fill this page's settings with a published model's exact RoPE values "
        "(explorer.presets_ui). Changing any of them afterwards switches back to custom.",
    ),
):
    register(_p)
del _p


# --- Model configs ---
# pages/7_Model_configs.py (the knob converter). Also uses head_dim and base. The pasted
# config.json itself is session-only (too big for a link).
for _p in (
    Param(
        "conv_from",
        "I have",
        "radio",
        "ntk_alpha",
        options=("ntk_alpha", "rope_theta", "linear_factor"),
        help="**ntk_alpha**: an NTK-aware alpha (HF rope_type ntk's factor). **rope_theta**: a new, "
        "larger base. **linear_factor**: a Position Interpolation factor s (rope_type linear).",
    ),
    Param(
        "ntk_alpha",
        "Alpha α (or linear factor s)",
        "number",
        4.0,
        min=0.01,
        max=1000.0,
        step=0.01,
        fmt="%.2f",
        help="NTK alpha α, or the linear factor s when converting from a linear factor.",
    ),
    Param(
        "new_theta",
        "New rope_theta b′",
        "number",
        40000.0,
        min=1.0,
        max=1e12,
        step=1.0,
        fmt="%.0f",
        help="The enlarged base a model (or a recipe) uses instead of the trained one.",
    ),
):
    register(_p)
del _p


# -------------------------------------------------------------------------------- links
def page_url_path(page_path: str) -> str:
    """URL path of a legacy-`pages/` page: "pages/1_Sinusoidal_heatmap.py" -> "Sinusoidal_heatmap",
    the entry script ("app.py") -> "". Mirrors Streamlit's `source_util.page_icon_and_name`."""
    path = PurePosixPath(page_path.replace("\\", "/"))
    if len(path.parts) == 1:  # the entry script is served at the root
        return ""
    match = re.search(r"([0-9]*)[_ -]*(.*)\.py", path.name)
    if match is None:
        raise ValueError(f"not a page script: {page_path!r}")
    return re.sub(r"[_ ]+", "_", match.group(2)).strip() or match.group(1)


def query_params_for(**values: Any) -> dict[str, str]:
    """Validated query parameters for `values` (registry keys), defaults omitted.

    Suitable for ``st.page_link(..., query_params=query_params_for(seq_len=300))``.
    Raises `ParamError` for a value the registry does not allow.
    """
    query: dict[str, str] = {}
    for key, value in values.items():
        param = get(key)
        problem = param.problem(value)
        if problem:
            raise ParamError(key, problem, value)
        if value == param.default:
            continue  # Streamlit drops defaults from the URL; a link never needs them
        query[key] = param.to_url(value)
    return query


def url_for(page_path: str, **values: Any) -> str:
    """Relative link to a page with its parameters, e.g.
    ``url_for("pages/1_Sinusoidal_heatmap.py", seq_len=300)`` -> ``"Sinusoidal_heatmap?seq_len=300"``.

    Relative (no leading slash), so it works under any `server.baseUrlPath`. The home page is
    ``"./"``. Values equal to the registry default are omitted (the page falls back to the default
    anyway). Opening such a link is a full page load: a new session seeded from the URL.
    """
    path = page_url_path(page_path) or "./"
    query = query_params_for(**values)
    return f"{path}?{urlencode(query)}" if query else path


# ------------------------------------------------------------------------------ notices
def _printable(text: str) -> str:
    return "".join(ch if ch.isprintable() else "\N{REPLACEMENT CHARACTER}" for ch in text)


def escape_markdown(text: str) -> str:
    """Escape text so Streamlit's markdown shows it literally: every markdown/HTML/LaTeX/directive
    character is backslash-escaped (so no emphasis, links, HTML, `$…$`, `:red[…]`,
    `:material/…:`), control characters are replaced, and GFM's automatic links ("http://…",
    "www.…", e-mail addresses), which backslashes do not stop, are broken with an invisible
    zero-width space. Safe for untrusted text such as a raw URL value."""
    text = _printable(text)
    text = re.sub(r":(?=//)", ":\u200b", text)  # scheme://
    text = re.sub(r"(?i)(www)\.", "\\1\u200b.", text)  # www.
    text = text.replace("@", "@\u200b")  # e-mail addresses
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~$:=&\"'%@^,;/?])", r"\\\1", text)


def _run_marker() -> Any:
    """An object that is new for every script run (Streamlit replaces `ctx.cursors` on each
    run), so notices and the slot from an earlier run are never reused."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return getattr(ctx, "cursors", None)


def _notice_state() -> dict[str, Any]:
    marker = _run_marker()
    state = st.session_state.get(_NOTICES_STATE_KEY)
    if state is None or state["run"] is not marker:
        state = {"run": marker, "notices": [], "slot": None}
        st.session_state[_NOTICES_STATE_KEY] = state
    return state


def _notices() -> list[dict[str, str]]:
    return _notice_state()["notices"]


def reset_url_notices(slot: Any = None) -> None:
    """Give this script run's notices their slot (called by `page_setup`).

    The list itself is fresh for every run (`_notice_state`); notices recorded earlier in this
    run (the sidebar's presentation toggle is drawn before the slot exists) are kept and shown.
    `slot` (an `st.empty()`) is where `show_url_notices()` renders the warning; it is updated
    automatically whenever `widget()` records a notice during this run.
    """
    state = _notice_state()
    state["slot"] = slot
    if slot is not None and state["notices"]:
        show_url_notices()


def ensure_notice_slot() -> None:
    """Call first in a fragment (`@st.fragment`): a fragment rerun does not run `page_setup`, so
    it gets a slot of its own, at its top, for a notice recorded while it runs (e.g. a widget
    drawn for the first time, inside a tab just opened, finds a bad value in the link)."""
    if _notice_state()["slot"] is None:
        reset_url_notices(st.empty())


def url_notices() -> list[dict[str, str]]:
    """The notices recorded in this run: dicts with key, value, reason, outcome (plain text)."""
    return list(_notices())


def _notice_markdown(notices: list[dict[str, str]]) -> str:
    lines = ["Some values in the link could not be used:"]
    for n in notices:
        lines.append(
            f'- **{escape_markdown(n["key"])}** = "{escape_markdown(n["value"])}" '
            f"{escape_markdown(n['reason'])} — {escape_markdown(n['outcome'])}"
        )
    return "\n".join(lines)


def show_url_notices(container: Any = None) -> str | None:
    """Render the recorded URL notices as ONE `st.warning` (text only, never HTML).

    Renders into the slot reserved by `page_setup` if there is one, else into `container`
    (default: the main area). Returns the markdown shown, or None if there was nothing to show.
    """
    notices = _notices()
    if not notices:
        return None
    body = _notice_markdown(notices)
    slot = _notice_state()["slot"] if container is None else None
    target = slot if slot is not None else (container if container is not None else st)
    target.warning(body, icon=":material/link_off:")
    return body


def _record_notice(key: str, raw: str | list[str], reason: str, outcome: str) -> None:
    if isinstance(raw, (list, tuple)):
        raw = "&".join(raw)
    _notices().append({"key": key, "value": _short(str(raw), 40), "reason": reason, "outcome": outcome})
    if _notice_state()["slot"] is not None:
        show_url_notices()


# ------------------------------------------------------------------------- URL internals
def _set_url_param(key: str, raw: str | None) -> None:
    """Set (raw is a str) or remove (raw is None) a query parameter, bound or not, both in the
    browser URL and in the snapshot Streamlit seeds widgets from. See the module docstring."""
    from streamlit.runtime.state.session_state_proxy import get_session_state

    with get_session_state().query_params() as qp:
        if raw is None:
            qp._initial_query_params.pop(key, None)
            qp.remove_param(key)
        else:
            qp._initial_query_params[key] = [raw]
            qp.set_corrected_value(key, raw, "string_value")


def _url_values(key: str) -> list[str]:
    try:
        return list(st.query_params.get_all(key))
    except Exception:
        return []


def _signature(param: Param) -> tuple:
    return (param.kind, param.min, param.max, param.step, param.options, param.default)


def _page_id() -> str:
    """The running page's script hash (widget keys are per page; so are our signatures)."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.page_script_hash if ctx is not None else ""


def _is_history_navigation() -> bool:
    """Whether this run was triggered by the browser's back/forward buttons (Streamlit internal)."""
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    ctx = get_script_run_ctx()
    return bool(getattr(ctx, "is_history_navigation", False))


def _reconcile(registered: Param, param: Param) -> None:
    """Make the URL value / carried-over session value valid for `param` before the widget is
    created. `registered` is the registry definition (what a link may contain); `param` the
    effective definition for this call (a page's dynamic range)."""
    key = param.key
    signatures = st.session_state.setdefault(_SIGNATURES_STATE_KEY, {})
    slot = (_page_id(), key)
    previous_signature = signatures.get(slot)
    signatures[slot] = _signature(param)

    raw = _url_values(key)
    in_state = key in st.session_state
    state_value = st.session_state[key] if in_state else None

    url_matches_state = False
    if raw and in_state and len(raw) == 1:
        try:
            url_matches_state = raw[0] == param.to_url(state_value)
        except (TypeError, ValueError):
            url_matches_state = False

    # Like Streamlit, let the URL decide only when the widget has no value in this session yet
    # (page load, link navigation) or on browser back/forward. During interaction the URL can lag
    # one rerun behind the session value, so it must not override it (nor raise a notice).
    if raw and not url_matches_state and (not in_state or _is_history_navigation()):
        try:
            value = registered.parse(raw)
        except ParamError as err:
            _set_url_param(key, None)
            if in_state:
                del st.session_state[key]
            _record_notice(key, raw, err.reason, f"used the default, {param.to_url(param.default)}")
            return
        clamped = param.clamp(value)
        if clamped != value:
            _record_notice(
                key,
                raw,
                f"is not available with the other settings here (allowed: {_range_phrase(param)})",
                f"used {param.to_url(clamped)} instead",
            )
        canonical = param.to_url(clamped)
        if clamped == param.default:
            if clamped != value or raw != [canonical]:
                _set_url_param(key, None)
        elif raw != [canonical]:
            _set_url_param(key, canonical)
        return

    if not in_state:
        return
    # The value comes from this session (the user's last choice). Keep it valid, and carry it
    # over when the widget identity changes (a changed min/max/step/options resets a widget).
    clamped = param.clamp(state_value)
    signature_changed = previous_signature is not None and previous_signature != signatures[slot]
    if clamped != state_value or signature_changed:
        st.session_state[key] = clamped
    if clamped != state_value:
        _set_url_param(key, None if clamped == param.default else param.to_url(clamped))


def _range_phrase(param: Param) -> str:
    if param.kind in NUMERIC_KINDS:
        return f"{_fmt_number(param.min)}–{_fmt_number(param.max)}"
    if param.kind in OPTION_KINDS:
        return param._options_phrase()
    return "see the widget"


# ------------------------------------------------------------------------------- widget
def widget(key: str, *, container: Any = st, label: str | None = None, **overrides: Any) -> Any:
    """Create the registered widget `key`, bound to the URL parameter of the same name.

    container  where to draw it: `st` (default), `st.sidebar`, a column, an expander …
    label      replaces the registry label for this call.
    overrides  Param fields for this call only (`default`, `min`, `max`, `step`, `options`,
               `help`, `fmt`, `log`) - e.g. ``widget("j", max=head_dim // 2 - 1)`` - and any
               other keyword is passed to the Streamlit widget (`disabled`, `horizontal`,
               `label_visibility`, `on_change`, `width`, …).

    Returns the widget's value, always valid for the effective definition (a URL value outside a
    dynamic range is clamped; garbage falls back to the default with a notice).

    Kind "tabs" returns the tab containers instead (`st.tabs`, one per option, the open one
    bound to the URL). They run lazily: draw a tab's content only ``if tab.open``, so a page
    computes and sends only what is on screen. A widget used by one tab only belongs inside it,
    drawn on every run (outside the ``if tab.open``: Streamlit drops a bound widget's URL
    parameter while it is not drawn); a widget that several tabs use belongs above the tabs.
    """
    registered = get(key)
    field_changes = {k: overrides.pop(k) for k in list(overrides) if k in OVERRIDABLE_FIELDS}
    param = registered.with_overrides(**field_changes) if field_changes else registered
    label = param.label if label is None else label

    _reconcile(registered, param)

    kind = param.kind
    common: dict[str, Any] = {"key": key, "bind": "query-params", "help": param.help or None}
    common.update(overrides)

    if kind in ("int_slider", "float_slider"):
        if param.min == param.max:  # Streamlit raises for an empty slider range
            container.markdown(f"{label}: **{param.to_url(param.min)}** (the only possible value)")
            return param.min
        kwargs = dict(min_value=param.min, max_value=param.max, value=param.default, step=param.step)
        if kind == "float_slider":
            kwargs = {k: float(v) for k, v in kwargs.items()}
        if param.fmt:
            kwargs["format"] = param.fmt
        return container.slider(label, **kwargs, **common)
    if kind == "number":
        kwargs = dict(min_value=param.min, max_value=param.max, value=param.default, step=param.step)
        if not param.is_int:
            kwargs = {k: float(v) for k, v in kwargs.items()}
        if param.fmt:
            kwargs["format"] = param.fmt
        return container.number_input(label, **kwargs, **common)
    if kind == "select_slider":
        return container.select_slider(label, options=list(param.options), value=param.default, **common)
    if kind == "select":
        return container.selectbox(label, list(param.options), index=param.options.index(param.default), **common)
    if kind == "radio":
        common.setdefault("horizontal", True)
        return container.radio(label, list(param.options), index=param.options.index(param.default), **common)
    if kind == "segmented":
        return container.segmented_control(label, list(param.options), default=param.default, required=True, **common)
    if kind == "tabs":
        common.pop("help", None)
        common.setdefault("on_change", "rerun")  # what makes the tabs lazy (see above)
        return container.tabs([str(o) for o in param.options], default=str(param.default), **common)
    if kind == "toggle":
        return container.toggle(label, value=bool(param.default), **common)
    if kind == "text":
        return container.text_input(label, value=param.default, max_chars=param.text_max_len, **common)
    raise AssertionError(f"unhandled kind {kind!r}")  # pragma: no cover
