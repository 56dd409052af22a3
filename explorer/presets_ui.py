"""Real models on the pages: a preset (or a parsed config.json) -> one page's widget values.

Pure part (tested in tests/test_presets_ui.py): one function per page that maps RoPE settings to
that page's parameters (registry keys of `explorer.widgets`), with the exact values of the model:

    rope_values(...)        RoPE rotation        head_dim, base, layout_rope
    invariance_values(...)  Relative invariance  qk_source, head_dim, base
    extension_values(...)   Context extension    head_dim, base, train_len, target_len, rope_type
                                                 and the method's own parameters

Each takes the settings as plain keywords (so a preset and a parsed config go through the same
code) and returns ``(values, adjustments)``: ``adjustments`` lists, in plain words, every value
that had to be changed to fit the explorer's ranges (always empty for `posenc.models.PRESETS`;
tests check that). `preset_values(page, preset)` is the preset shortcut.

Partial rotary: these pages have no partial-rotary control, so ``head_dim`` is set to the rotated
part, ``int(head_dim · partial_rotary_factor)``: the frequencies θ_j = b^(−2j/r) are the model's
exactly (HF computes them over the rotated dims only).

Streamlit part: `model_picker(page)` draws the "Real model" select (URL key ``model``). Picking a
model fills the page's widgets through an ``on_change`` callback (it writes the values into
``st.session_state`` before the rerun, so the widgets and the URL show them). The select goes back
to "custom" as soon as any of the page's values differs from the model's, so a link never claims a
model whose numbers it does not show. A link ``?model=llama3.1-8b`` alone fills every value the
link does not give itself.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import streamlit as st

from explorer import compat, widgets
from explorer.notices import record_notice
from explorer.ropeblock import LIST_GENERATORS
from explorer.ropeblock import METHOD_PARAMS as _METHOD_PARAMS
from explorer.vocabulary import BLOCK_KEY_WIDGETS
from posenc.config import ParsedConfig
from posenc.methods import ROPE_METHODS
from posenc.models import PRESETS, ModelPreset, preset_config

CUSTOM = "custom"


def _absent_value(rope_type: str, name: str) -> Any:
    """The page's value for a key the rope block leaves out: HF's default (posenc.methods: beta_fast
    32, beta_slow 1, truncate true), else the widget's "not set" value (explorer.vocabulary's
    BLOCK_KEY_WIDGETS: 0 for mscale, mscale_all_dim, attention_factor, which explorer.ropeblock
    leaves out of its block), else None (the widget keeps its own default)."""
    method = ROPE_METHODS[rope_type]
    if name not in method.key_names:
        return None
    key = method.key(name)
    if key.default is not None:
        return key.default
    widget = BLOCK_KEY_WIDGETS.get(name)
    return widget.unset if widget is not None else None


# ------------------------------------------------------------------------------- pure mapping
def _fit(key: str, value: Any, adjustments: list[str], *, what: str | None = None) -> Any:
    """`value` if the registry allows it for `key`, else the nearest allowed value (noted)."""
    param, what = widgets.get(key), what or key
    if key == "base":
        if isinstance(value, (int, float)) and value > 0 and math.isfinite(value):
            options = param.options or ()  # a select: it always has options
            for option in options:
                if float(option) == float(value):
                    return option
            near = min(options, key=lambda b: abs(math.log(b) - math.log(value)))
            adjustments.append(f"{what} {value:g} is not one of the explorer's bases; the nearest, {near:g}, is used")
            return near
        adjustments.append(f"{what} is unknown; the default {param.default:g} is used")
        return param.default
    if param.problem(value) is None:
        return value
    fitted = param.clamp(value)
    shown = param.to_url(value) if isinstance(value, (int, float)) else repr(value)
    adjustments.append(
        f"{what} {shown} is outside the explorer's range "
        f"({param.to_url(param.min)}–{param.to_url(param.max)}); "
        f"{param.to_url(fitted)} is used"
    )
    return fitted


def _head_and_base(head_dim: int, rope_theta: float, partial_rotary_factor: float, adj: list[str]) -> dict[str, Any]:
    """The rotated head size and the base, fitted to the explorer's ranges (changes noted in `adj`)."""
    return {
        "head_dim": _fit("head_dim", int(head_dim * (partial_rotary_factor or 1.0)), adj, what="rotary dim"),
        "base": _fit("base", rope_theta, adj, what="rope_theta"),
    }


def rope_values(
    *, head_dim: int, rope_theta: float, layout: str = "half", partial_rotary_factor: float = 1.0, **_: Any
) -> tuple[dict[str, Any], list[str]]:
    """RoPE rotation page: the rotated head size, the base and the pair layout."""
    adj: list[str] = []
    values = {
        **_head_and_base(head_dim, rope_theta, partial_rotary_factor, adj),
        "layout_rope": _fit("layout_rope", layout, adj, what="layout"),
    }
    return values, adj


def invariance_values(
    *, head_dim: int, rope_theta: float, partial_rotary_factor: float = 1.0, **_: Any
) -> tuple[dict[str, Any], list[str]]:
    """Relative-invariance page: random q, k of the rotated head size, and the base."""
    adj: list[str] = []
    return {"qk_source": "random", **_head_and_base(head_dim, rope_theta, partial_rotary_factor, adj)}, adj


def trained_and_target(rope_parameters: Mapping[str, Any], max_position_embeddings: int) -> tuple[int, int]:
    """(L, T) for the context-extension page.

    L = ``original_max_position_embeddings`` if the block has it, else ``max_position_embeddings``.
    T = the context the model claims: ``max_position_embeddings``, or L·factor if that is longer
    (Qwen2.5's YaRN block: 32768 · 4 = 131072 while the shipped max_position_embeddings is 32768).
    """
    original = rope_parameters.get("original_max_position_embeddings")
    trained = int(original) if original else int(max_position_embeddings)
    target = int(max_position_embeddings)
    factor = rope_parameters.get("factor")
    if isinstance(factor, (int, float)) and not isinstance(factor, bool) and factor > 0:
        target = max(target, round(trained * float(factor)))
    return trained, target


def extension_values(
    *,
    head_dim: int,
    rope_theta: float,
    rope_parameters: Mapping[str, Any],
    max_position_embeddings: int,
    partial_rotary_factor: float = 1.0,
    **_: Any,
) -> tuple[dict[str, Any], list[str]]:
    """Context-extension page: sizes, lengths, the method and every parameter it reads.

    Keys the block leaves out get HF's default (posenc.methods: beta_fast 32, beta_slow 1, truncate true) or the
    page's "not set" value 0 (mscale, mscale_all_dim, attention_factor), so the page's rope block
    equals the model's. LongRoPE's factor lists cannot be URL values: the generators keep their
    defaults and `preset_block` puts the preset's real lists into the page's block.
    """
    adj: list[str] = []
    rope_type = rope_parameters.get("rope_type", "default")
    if rope_type not in _METHOD_PARAMS:
        adj.append(f"rope_type {rope_type!r} is not one of the explorer's methods; default is used")
        rope_type = "default"
    trained, target = trained_and_target(rope_parameters, max_position_embeddings)
    values: dict[str, Any] = {
        **_head_and_base(head_dim, rope_theta, partial_rotary_factor, adj),
        "train_len": _fit("train_len", trained, adj, what="trained length L"),
        "target_len": _fit("target_len", target, adj, what="target length T"),
        "rope_type": rope_type,
    }
    for name in _METHOD_PARAMS[rope_type]:
        if name in LIST_GENERATORS.values():
            raw = None  # the generators keep their defaults
        elif name == "factor" and rope_parameters.get("factor") is None:
            raw = max(target / trained, 1.0)  # LongRoPE without a factor: HF uses max_pos / L
        else:
            raw = rope_parameters.get(name, _absent_value(rope_type, name))
        if name == "truncate":
            values[name] = bool(raw)
        elif raw is None:
            values[name] = widgets.get(name).default
        else:
            values[name] = _fit(name, float(raw), adj)
    return values, adj


_PAGE_FUNCTIONS = {"rope": rope_values, "invariance": invariance_values, "extension": extension_values}
#: The slugs of the pages a preset maps to (their declarations in explorer/site/ say ``presets=True``;
#: tests/test_presets_ui.py checks that the two agree). Derived from the mapping functions above:
#: this module cannot import explorer.manifest (the extension page's declaration imports it for its
#: Llama 3.1 tour step), and the page scripts are the manifest's (``manifest.page(slug).script``).
PAGES: tuple[str, ...] = tuple(_PAGE_FUNCTIONS)


_PARSED: dict[str, ParsedConfig] = {}


def parsed_preset(preset: ModelPreset) -> ParsedConfig:
    """The preset's published config, parsed (per layer). Cached."""
    if preset.key not in _PARSED:
        _PARSED[preset.key] = preset_config(preset)
    return _PARSED[preset.key]


def config_layers_differ(parsed: ParsedConfig | None) -> bool:
    """True when a parsed config's layers do not all use the same rope (per-layer RoPE or NoPE layers)."""
    if parsed is None or not parsed.layer_plans:
        return False
    return bool(parsed.layer_blocks) or any(not p.rope for p in parsed.layer_plans)


def config_first_layer(parsed: ParsedConfig | None) -> int:
    """The layer a per-layer config opens on: its first full-attention layer that rotates (Gemma 3's
    first global layer, whose rope is the config's top-level one), else its first layer that rotates,
    else 0."""
    plans = parsed.layer_plans if parsed is not None else ()
    for wanted in ("full", None):
        for plan in plans:
            if plan.rope and (wanted is None or plan.attention == wanted):
                return plan.index
    return 0


def config_layer_block(parsed: ParsedConfig | None, layer: int | None) -> tuple[dict[str, Any] | None, int | None]:
    """(rope block, the layer it is from) for `layer` of a parsed config (None: `config_first_layer`);
    a NoPE layer has none, so the nearest RoPE layer's is returned with its index. (None, None) when
    the config's layers do not differ (its one block is the headline one) or no layer rotates."""
    if parsed is None or not config_layers_differ(parsed):
        return None, None
    if layer is None:
        layer = config_first_layer(parsed)
    n = len(parsed.layer_plans)
    layer = min(max(int(layer), 0), n - 1)
    for distance in range(n):
        for candidate in (layer - distance, layer + distance):
            if 0 <= candidate < n and parsed.layer_plans[candidate].rope:
                block = parsed.layer_block(candidate)
                if block is not None:
                    return dict(block), candidate
    return None, None


def layer_sentence(parsed: ParsedConfig, layer: int, *, page: str = "this page") -> str:
    """What decoder `layer` of a per-layer config does with positions, and whose rope `page` uses."""
    n = len(parsed.layer_plans)
    plan = parsed.layer_plans[min(max(int(layer), 0), n - 1)]
    span = "all earlier tokens" if plan.attention == "full" else f"a {plan.attention} window of {plan.window:,} tokens"
    if plan.rope:
        block = parsed.layer_block(plan.index) or {}
        what = (
            f"rotates with rope_type {block.get('rope_type', 'default')}, base {float(block.get('rope_theta', 0)):,.0f}"
        )
        return f"Layer {plan.index} of {n} ({plan.layer_type or 'one type'}): {what}; it attends to {span}."
    _, used = config_layer_block(parsed, plan.index)
    return (
        f"Layer {plan.index} of {n} has no RoPE (NoPE; it attends to {span}): nothing rotates there, so {page} "
        f"shows layer {used}'s rope, the nearest layer that has one."
    )


def layers_differ(preset: ModelPreset) -> bool:
    """True when the preset's layers do not all use the same rope (per-layer RoPE or NoPE layers)."""
    return config_layers_differ(parsed_preset(preset))


def preset_settings(preset: ModelPreset, layer: int | None = None) -> dict[str, Any]:
    """A preset's fields as the keywords the page functions take (the rope of `layer`, if its layers differ:
    `config_layer_block`, a NoPE layer's nearest RoPE layer's; else the preset's one rope block)."""
    block, _ = config_layer_block(parsed_preset(preset), layer)
    if block is None:
        block = dict(preset.rope_parameters)
    return dict(
        head_dim=preset.head_dim,
        rope_theta=float(block.get("rope_theta", preset.rope_theta)),
        layout=preset.layout,
        partial_rotary_factor=preset.partial_rotary_factor,
        rope_parameters=block,
        max_position_embeddings=preset.max_position_embeddings,
    )


def page_values(page: str, **settings: Any) -> tuple[dict[str, Any], list[str]]:
    """(values, adjustments) of `page` ("rope" | "invariance" | "extension") for these settings."""
    try:
        function = _PAGE_FUNCTIONS[page]
    except KeyError:
        raise ValueError(f"page must be one of {', '.join(PAGES)}, got {page!r}") from None
    return function(**settings)


def preset_values(page: str, preset: ModelPreset | str, layer: int | None = None) -> dict[str, Any]:
    """The values of `page` for a preset (or its key) and, for a per-layer model, one of its layers;
    presets always fit exactly."""
    if isinstance(preset, str):
        preset = PRESETS[preset]
    values, _ = page_values(page, **preset_settings(preset, layer))
    return values


def preset_block(block: dict[str, Any], preset: ModelPreset | None) -> dict[str, Any]:
    """The context-extension page's rope block with a LongRoPE preset's real factor lists.

    The page builds short/long factor lists from generators (a URL cannot hold 2·d/2 numbers);
    while a LongRoPE preset is selected (and so the page's values are the preset's) its published
    lists replace them. Any other block is returned unchanged.
    """
    if preset is None or preset.rope_type != "longrope" or block.get("rope_type") != "longrope":
        return block
    short, long_ = preset.rope_parameters["short_factor"], preset.rope_parameters["long_factor"]
    if len(block.get("short_factor", ())) != len(short):
        return block
    return {**block, "short_factor": list(short), "long_factor": list(long_)}


def same_value(a: Any, b: Any) -> bool:
    """Widget value equality (8 == 8.0, but True != 1)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


# ---------------------------------------------------------------------------- the widget
def _selected_layer() -> int | None:
    value = st.session_state.get("layer")
    if value is None:
        value = widgets.url_value("layer")
    return None if value is None else int(value)


def _apply_model(page: str) -> None:
    """on_change of the model select: open a per-layer model on its `config_first_layer`, then fill the page."""
    key = st.session_state.get("model", CUSTOM)
    if key in PRESETS and layers_differ(PRESETS[key]):
        widgets.write("layer", config_first_layer(parsed_preset(PRESETS[key])))
    _apply_selected(page)


def _apply_selected(page: str) -> None:
    """on_change of the layer select (and, through `_apply_model`, of the model select): write the
    preset's values into the page's widget keys."""
    key = st.session_state.get("model", CUSTOM)
    if key == CUSTOM or key not in PRESETS:
        return
    for name, value in preset_values(page, key, _selected_layer()).items():
        # Into the session and the address bar: a widget drawn for the first time on the next run (e.g.
        # llama3's keys after a switch from "linear") does not put a value from the session there.
        widgets.write(name, value)


def _sync(page: str) -> None:
    """Before the select is drawn: keep `model` honest (see the module docstring)."""
    state = st.session_state
    if "model" in state:
        selected = state["model"]
        if selected in PRESETS:
            for name, value in preset_values(page, selected, _selected_layer()).items():
                if name in state and not same_value(state[name], value):
                    widgets.write("model", CUSTOM)  # the default: the URL loses its ``model``
                    break
        return
    selected = widgets.url_value("model")
    if selected is None or selected == CUSTOM:
        return
    # A link's values that cannot be used leave the URL (with a notice) before the model's take their
    # place: Streamlit would otherwise seed the widget from the URL's text.
    preset = PRESETS[selected]
    if layers_differ(preset):
        if "layer" not in state:
            parsed = parsed_preset(preset)
            first = config_first_layer(parsed)
            chosen = widgets.url_choice(
                "layer", max=len(parsed.layer_plans) - 1, fallback=f"used {preset.name}'s first layer, {first}"
            )
            state["layer"] = first if chosen is None else chosen  # where the values come from
            widgets.write("layer", state["layer"])
    elif raw_layer := widgets.url_values("layer"):  # no layer picker for this model: the link's layer has no say
        compat.set_url_param("layer", None)
        record_notice("layer", raw_layer, f"is not used: every layer of {preset.name} has the same rope", "ignored it")
    mismatch = False
    for name, value in preset_values(page, selected, _selected_layer()).items():
        param = widgets.get(name)
        if name in state:
            given = widgets.url_value(name)
        else:
            given = widgets.url_choice(name, fallback=f"used {preset.name}'s value, {param.to_url(value)}")
        if given is not None:
            mismatch = mismatch or not same_value(given, value)
        elif name not in state:
            state[name] = value
            compat.set_url_param(name, None if value == param.default else param.to_url(value))
    if mismatch:
        widgets.write("model", CUSTOM)


def model_picker(page: str, *, container: Any = None) -> ModelPreset | None:
    """Draw the "Real model" select for `page`; returns the selected preset (None for custom)."""
    container = st.sidebar if container is None else container
    _sync(page)
    key = widgets.widget("model", container=container, on_change=_apply_model, args=(page,))
    if key not in PRESETS:
        container.caption("Pick a published model to load its exact RoPE settings.")
        return None
    preset = PRESETS[key]
    if layers_differ(preset):
        _layer_picker(preset, page, container)
    extra = ""
    if preset.partial_rotary_factor < 1:
        extra = (
            f" Only {preset.rotary_dim} of its {preset.head_dim} head dimensions rotate, so "
            f"d = {preset.rotary_dim} here."
        )
    container.caption(f"**{widgets.escape_markdown(preset.name)}** — {widgets.escape_markdown(preset.notes + extra)}")
    return preset


def _layer_picker(preset: ModelPreset, page: str, container: Any) -> None:
    """The "Decoder layer" number for a model whose layers differ, and what that layer does."""
    parsed = parsed_preset(preset)
    if parsed is None:
        return
    n = len(parsed.layer_plans)
    layer = int(widgets.widget("layer", container=container, max=n - 1, on_change=_apply_selected, args=(page,)))
    container.caption(layer_sentence(parsed, layer))
