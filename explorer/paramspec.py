"""One user-facing parameter (`Param`): its widget kind, default, range and help, and its URL form.

Pure: no Streamlit. `Param.parse` turns a raw URL value into a typed, validated value (or raises
`ParamError`, whose message starts with the key); `Param.to_url` writes the canonical URL form;
`Param.clamp` gives the nearest allowed value; `Param.with_overrides` a page's dynamic range.
The registry of every declared parameter and the widgets bound to the URL are in
`explorer.widgets`; the parameters themselves are declared in `explorer.vocabulary` (shared by
several pages) and in each page's declaration (`explorer.site`).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["KINDS", "NUMERIC_KINDS", "OPTION_KINDS", "OVERRIDABLE_FIELDS", "Param", "ParamError", "fmt_number", "short"]

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


class ParamError(ValueError):
    """A value is not valid for a parameter. The message always starts with the parameter key."""

    def __init__(self, key: str, reason: str, value: Any = None):
        shown = f' "{short(str(value))}"' if value is not None else ""
        super().__init__(f"{key}:{shown} {reason}")
        self.key = key
        self.reason = reason  # a phrase that never contains the raw value (safe to display)
        self.value = value


def short(raw: str, limit: int = 24) -> str:
    """A raw URL value shortened for messages (never trusted as markup; escape before display)."""
    return raw if len(raw) <= limit else raw[: limit - 1] + "…"


def fmt_number(v: float | int) -> str:
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
    labels   select/radio only: option -> the text shown for it (e.g. a model's name for its slug).
             Streamlit's bound select writes the shown text into the URL, so that text is the
             canonical URL form (`to_url`); `parse` takes the text or the option itself, so links
             that hold the option keep working (the widget rewrites them to the text).
    aliases  select/radio only: option -> other texts a link may use for it (e.g. a model's name
             where the label says more); `parse` accepts them, case-insensitively, and the widget
             rewrites them to the label like an option given by itself.
    stops    numeric only: the values an in-chart slider runs over, by index, where the range is too
             wide for even steps (the target length T, 16 … 2^24: explorer.charts.live.option_position);
             ascending (a page that narrows the range keeps its slider inside). The box takes any allowed value.
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
    labels: Any = None
    aliases: Any = None
    stops: tuple | None = None

    def __post_init__(self) -> None:
        if self.aliases is not None:
            pairs = tuple(
                (option, tuple(texts))
                for option, texts in (self.aliases.items() if hasattr(self.aliases, "items") else self.aliases)
            )
            object.__setattr__(self, "aliases", pairs)
            if self.kind not in ("select", "radio"):
                raise ValueError(f"{self.key}: aliases are for select and radio, not {self.kind}")
            if not all(option in (self.options or ()) for option, _ in pairs):
                raise ValueError(f"{self.key}: aliases must name options")
        if self.labels is not None:
            pairs = tuple(self.labels.items()) if hasattr(self.labels, "items") else tuple(self.labels)
            object.__setattr__(self, "labels", pairs)
            if self.kind not in ("select", "radio"):
                raise ValueError(f"{self.key}: labels are for select and radio, not {self.kind}")
            texts = [text for _, text in pairs]
            if len(set(texts)) != len(texts) or not all(isinstance(t, str) and t.strip() for t in texts):
                raise ValueError(f"{self.key}: labels must be distinct, non-empty texts")
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
            step = self.step
            if self.is_int:
                if step is None:
                    step = 1
                    object.__setattr__(self, "step", step)
            elif step is None:
                raise ValueError(f"{self.key}: a float parameter needs a step")
            if not step > 0:
                raise ValueError(f"{self.key}: step must be > 0, got {step}")
        if self.kind in OPTION_KINDS:
            if not self.options:
                raise ValueError(f"{self.key}: a {self.kind} needs options")
            tokens = [str(o) for o in self.options]
            if len(set(tokens)) != len(tokens):
                raise ValueError(f"{self.key}: options must have distinct str() forms")
        problem = self.problem(self.default)
        if problem:
            raise ValueError(f"{self.key}: default {self.default!r} {problem}")
        if self.stops is not None:
            object.__setattr__(self, "stops", tuple(self.stops))
            if self.kind not in NUMERIC_KINDS or len(self.stops) < 2:
                raise ValueError(f"{self.key}: stops are for numbers, two or more of them")
            # (not checked against min and max: a page may narrow the range, and its slider its stops)
            if list(self.stops) != sorted(set(self.stops)) or (self.is_int and any(v != int(v) for v in self.stops)):
                raise ValueError(
                    f"{self.key}: stops must be ascending, distinct, and whole numbers for a whole-number parameter"
                )

    @property
    def slider_values(self) -> tuple | None:
        """The values an in-chart slider over indices stands for: the options, else the stops (else None)."""
        return self.options if self.options is not None else self.stops

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

    def _numeric_range(self) -> tuple[float | int, float | int, float | int]:
        """(min, max, step) of a numeric parameter: `__post_init__` makes sure all three are set."""
        lo, hi, step = self.min, self.max, self.step
        if lo is None or hi is None or step is None:  # pragma: no cover - not a numeric kind
            raise ValueError(f"{self.key}: a {self.kind} has no numeric range")
        return lo, hi, step

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
            lo, hi, step = self._numeric_range()
            if value < lo or value > hi:
                return f"is outside the allowed range {fmt_number(lo)}–{fmt_number(hi)}"
            k = (value - lo) / step
            if abs(k - round(k)) > 1e-9 * max(1.0, abs(k)):
                return f"is not on the {fmt_number(step)}-step grid starting at {fmt_number(lo)}"
            return None
        if kind in OPTION_KINDS:
            return None if value in (self.options or ()) else f"is not one of {self.options_phrase()}"
        if kind == "toggle":
            return None if isinstance(value, bool) else 'is not "true" or "false"'
        if kind == "text":
            if not isinstance(value, str):
                return "is not text"
            if len(value) > self.text_max_len:
                return f"is longer than {self.text_max_len} characters"
            return None
        return "has an unknown kind"  # pragma: no cover - kind validated in __post_init__

    def display(self, option: Any) -> str:
        """The text shown for an option (its label, else ``str(option)``)."""
        for value, text in self.labels or ():
            if value == option:
                return text
        return str(option)

    def options_phrase(self) -> str:
        """The options as a reader sees them, the middle elided past 8; quoted when an option has a comma in it."""
        tokens = [self.display(o) for o in self.options or ()]
        if any("," in t for t in tokens):
            tokens = [f"“{t}”" for t in tokens]
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
                    raise ParamError(self.key, f"is not one of {self.options_phrase()}", raw)
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
        for option, shown in self.labels or ():
            if shown == text or shown.lower() == text.lower():
                return option
        for option in options:
            if str(option) == text:
                return option
        low = text.lower()
        for option in options:
            if str(option).lower() == low:
                return option
        for option, texts in self.aliases or ():
            if any(alias.lower() == low for alias in texts):
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
            return self.display(value)
        if self.is_int and isinstance(value, float) and math.isfinite(value):
            value = int(value)
        return fmt_number(value)

    def clamp(self, value: Any) -> Any:
        """The nearest allowed value (numbers: clipped to the range and snapped to the step grid;
        options: the value if allowed, else the default; text: truncated)."""
        kind = self.kind
        if kind in NUMERIC_KINDS:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                return self.default
            lo, hi, step = self._numeric_range()
            v = lo + round((min(max(value, lo), hi) - lo) / step) * step
            if v > hi:
                v -= step
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
        lo, hi, default = fields["min"], fields["max"], fields["default"]
        if self.kind in NUMERIC_KINDS and lo is not None and hi is not None and lo <= hi:  # (lo > hi: Param raises)
            if isinstance(default, (int, float)) and not isinstance(default, bool):
                default = min(max(default, lo), hi)  # first: clamp() would take an infinite default for a typo
            # Snap via a provisional copy (the default may be off the new step grid).
            fields["default"] = dataclasses.replace(self, **{**fields, "default": lo}).clamp(default)
        elif self.kind in OPTION_KINDS and fields["options"] and default not in fields["options"]:
            fields["default"] = fields["options"][0]
        return Param(**fields)


_NO_MATCH = object()
