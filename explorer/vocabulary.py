"""The shared vocabulary: parameters that several pages use, declared once.

A URL key means the same thing on every page (``?base=500000`` is the RoPE/sinusoid base
everywhere). Parameters that only one page uses are declared with that page (`explorer.site`).
URL keys are part of the public interface: never rename them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from explorer.paramspec import Param
from explorer.text import methods
from posenc.methods import ROPE_METHODS, MethodKey
from posenc.models import PRESETS
from posenc.scaling import ROPE_SCALING

# 150000 is gpt-oss's rope_theta (posenc.models.PRESETS: every preset's base must be an option).
BASE_OPTIONS = (10, 100, 500, 1000, 10000, 50000, 100000, 150000, 500000, 1000000, 2000000, 5000000)
#: The target length's in-chart slider stops: the powers of two and the halfway 1.5·2^k, 16 … 2^24 (the
#: context lengths models ship with: 4,096, 8,192, 32,768, 131,072, …); the box takes any T.
TARGET_STOPS = tuple(sorted({2**k for k in range(4, 25)} | {3 * 2 ** (k - 1) for k in range(4, 24)}))
#: The vision page's resolution tab: the trained grid's side and the new grid's (its Params' options; the resolution
#: chart's own sliders run over their indices, explorer.charts.vision.RES_PARAMS). 14: RoPE-ViT B/16 at 224 px.
TRAINED_GRIDS = (8, 14, 16, 24, 32)
NEW_GRIDS = (8, 14, 16, 24, 28, 32, 48, 56, 64)
_NICE = (1, 1.25, 1.5, 2, 2.5, 3, 4, 5, 6, 8)
#: The NTK alpha's (or linear factor's) in-chart slider stops on the Model configs page: 1, 1.25, 1.5, 2, 2.5, 3,
#: 4, 5, 6, 8 in every decade from 0.01 to 1,000, where the box's 0.01 steps hold them; the box takes any α.
ALPHA_STOPS = tuple(
    sorted(
        {
            round(m * 10.0**k, 2)
            for k in range(-2, 3)
            for m in _NICE
            if abs(m * 10.0**k * 100 - round(m * 10.0**k * 100)) < 1e-6
        }
        | {1000.0}
    )
)
SCHEMES = ("redblue", "viridis", "magma", "blueorange")
#: Longest tour the `step` parameter can address (the tour has fewer steps).
MAX_TOUR_STEPS = 30

SHARED: tuple[Param, ...] = (
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
    Param(
        "target_len",
        "Target length T",
        "number",
        16384,
        min=16,
        max=16777216,  # 2^24: Llama 4 Scout's max_position_embeddings is 10,485,760
        stops=TARGET_STOPS,
        help="The context length you want to run at. Dynamic NTK and LongRoPE also use it as "
        "the current sequence length.",
    ),
    # Relative invariance; also set by a model preset (explorer.presets_ui).
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
        help="Guided tour: 0 = no tour, 1 … n = the step shown (with its narration); a link may name the "
        "step by its id instead (explorer.tour.step_number).",
    ),
    Param(
        "model",
        "Real model",
        "select",
        "custom",
        options=("custom", *PRESETS),
        labels={"custom": "Custom (your own values)", **{key: preset.name for key, preset in PRESETS.items()}},
        help="Fill this page's settings with a published model's exact RoPE values "
        "(explorer.presets_ui). Changing any of them afterwards switches back to custom.",
    ),
    Param(
        "layer",
        "Decoder layer",
        "number",
        0,
        min=0,
        max=4095,
        step=1,
        help="For a model whose layers differ (per-layer RoPE, NoPE layers): whose rope this page uses. "
        "Counted from 0, as HF's layer_types.",
    ),
)


@dataclass(frozen=True)
class BlockKeyWidget:
    """How the explorer shows one rope-block key. What the key means (its kind, valid range, HF's
    default, a sentence on what it does) is its declaration in posenc.methods (``MethodKey``); this
    is only the widget: its ``label``, the range ``min`` … ``max`` in steps of ``step`` (None for a
    toggle), ``fmt`` (printf format of the number, None: Streamlit's own), ``initial`` (the widget's
    starting value; None: HF's default, else ``unset``), ``unset`` (the widget value that means "leave
    the key out of the rope block", explorer.ropeblock; None: every value is written) and ``note`` (a
    sentence added to the key's ``doc`` in the widget's help)."""

    label: str
    min: float | None = None
    max: float | None = None
    step: float | None = None
    fmt: str | None = None
    initial: Any = None
    unset: Any = None
    note: str = ""


_LEFT_OUT = "0 leaves the key out of the rope block."

#: The widget of each rope-block key the methods declare (list keys aside: the extension page offers
#: generators for them, explorer.ropeblock.LIST_GENERATORS), by key name, whichever methods read it.
BLOCK_KEY_WIDGETS: Mapping[str, BlockKeyWidget] = MappingProxyType(
    {
        "factor": BlockKeyWidget("Scaling factor s", 1.0, 128.0, 0.25, initial=4.0),
        "original_max_position_embeddings": BlockKeyWidget("Trained length L", 16, 262144, initial=4096),
        "beta_fast": BlockKeyWidget("beta_fast (turns)", 0.5, 256.0, 0.5),
        "beta_slow": BlockKeyWidget("beta_slow (turns)", 0.25, 128.0, 0.25),
        "mscale": BlockKeyWidget("mscale (0 = not set)", 0.0, 4.0, 0.001, "%.3f", unset=0.0),
        "mscale_all_dim": BlockKeyWidget(
            "mscale_all_dim (0 = not set)", 0.0, 4.0, 0.001, "%.3f", unset=0.0, note=_LEFT_OUT
        ),
        "attention_factor": BlockKeyWidget(
            "attention_factor (0 = computed)", 0.0, 4.0, 0.01, "%.2f", unset=0.0, note=_LEFT_OUT
        ),
        "truncate": BlockKeyWidget("truncate (round the ramp ends)"),
        "low_freq_factor": BlockKeyWidget("low_freq_factor", 0.25, 64.0, 0.25, initial=1.0),
        "high_freq_factor": BlockKeyWidget("high_freq_factor", 0.25, 64.0, 0.25, initial=4.0),
        "partial_rotary_factor": BlockKeyWidget("partial_rotary_factor p", 0.0, 1.0, 0.05, "%.2f", initial=0.25),
    }
)


def block_key_widget(key: MethodKey) -> BlockKeyWidget:
    """The widget of a declared rope-block key (KeyError naming the table when it has none)."""
    try:
        return BLOCK_KEY_WIDGETS[key.name]
    except KeyError:
        raise KeyError(
            f"rope-block key {key.name!r} (declared in posenc.methods) has no widget: add it to "
            "explorer.vocabulary.BLOCK_KEY_WIDGETS"
        ) from None


def _block_key_param(key: MethodKey, url_key: str | None = None) -> Param:
    """The widget of a rope-block key: its label, range and starting value from `BLOCK_KEY_WIDGETS`,
    its help from the key's declaration in posenc.methods (``doc``), its kind from the key's kind."""
    widget = block_key_widget(key)
    initial = widget.initial
    if initial is None:
        initial = key.default if key.default is not None else widget.unset
    help_text = f"{key.doc} {widget.note}" if widget.note else key.doc
    if key.kind == "bool":
        return Param(url_key or key.name, widget.label, "toggle", initial, help=help_text)
    numeric: dict[str, Any] = dict(min=widget.min, max=widget.max, step=widget.step, fmt=widget.fmt)
    return Param(url_key or key.name, widget.label, "number", initial, help=help_text, **numeric)


def _declared_keys() -> dict[str, MethodKey]:
    """Every rope-block key the methods declare, first declaration first (its ``doc`` is the widget's
    help; lists excluded: a URL cannot hold d/2 numbers, the extension page offers generators for them)."""
    keys: dict[str, MethodKey] = {}
    for method in ROPE_METHODS.values():
        for key in method.keys:
            if key.kind != "float_list":
                keys.setdefault(key.name, key)
    return keys


_KEYS = _declared_keys()
#: ``original_max_position_embeddings`` is the trained length L, shared by several pages as ``train_len``.
#: Its stops are the target length's: the Compare methods chart's own L slider runs over them (issue #36).
TRAIN_LEN = replace(_block_key_param(_KEYS.pop("original_max_position_embeddings"), "train_len"), stops=TARGET_STOPS)
SHARED += (TRAIN_LEN,)
#: The head dimension d's declaration: the charts whose own slider it is read its range here.
HEAD_DIM = next(p for p in SHARED if p.key == "head_dim")


#: The rope-block keys of the context-extension methods (HF config.json names), and the method
#: itself: the extension page, the presets and the rope-block builder (explorer.ropeblock) share them.
METHOD_PARAMS: tuple[Param, ...] = (
    *(_block_key_param(key) for key in _KEYS.values()),
    Param(
        "rope_type",
        "Method (rope_type)",
        "radio",
        "yarn",
        options=tuple(ROPE_SCALING),
        # one line per option (the options fit one row of a projector: the charts move up the screen)
        labels={name: f"{name} · {methods.label(name)}" for name in ROPE_SCALING},
        help="How the RoPE frequencies are rescaled: HF transformers' rope_type names, and **ntk** (static "
        "NTK-aware scaling, which a config.json writes as rope_type default with a larger rope_theta).",
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
)

SHARED += METHOD_PARAMS
