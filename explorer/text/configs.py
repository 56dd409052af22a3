"""The Model configs page's sentences (pages/9_Model_configs.py): values in, markdown out.

Text from a pasted config (its keys, the parser's messages about them, a link's reason) is escaped
here (`escape_markdown`), so the page shows it literally.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from explorer.notices import escape_markdown
from explorer.text import count
from posenc.config import ERROR, ParsedConfig

INTRO = (
    "A model's `config.json` says how its RoPE is set up: the base, the head size, how long it was "
    "trained, and a rope block naming a scaling method and its parameters. The names differ between "
    "model families and a single typo silently changes the numbers, so here a pasted config is read "
    "key by key, every problem is named next to its key, and the result opens on the other pages."
)
LAYER_HELP = (
    "Whose rope the “Open in …” buttons carry, counted from 0 as HF's layer_types "
    "(the strip above shows every layer's). It starts on the first full-attention layer that rotates."
)
LONGROPE = (
    "LongRoPE's per-pair lists cannot travel in a link: the page uses its "
    "list generators (ones / ramp / constant) instead."
)
PRESETS_CAPTION = (
    "Pick one in the “Real model” box on the RoPE rotation, Relative-position invariance and "
    "Context extension pages to load its exact values, or as an example above."
)
CONVERTER = (
    "Three numbers get mixed up when people stretch a RoPE model. A **linear** factor s divides every "
    "frequency by s. An **NTK alpha** α instead changes the base, b′ = b·α^(d/(d−2)): the fastest pair "
    "keeps its speed and the slowest pair's wavelength is multiplied by exactly α. Many models were instead "
    "*trained* with a larger "
    "**rope_theta** (Llama 3: 500,000; Qwen2.5: 1,000,000): nothing is scaled there, the base is simply theirs. "
    "The converter says which NTK alpha would turn a model trained with b into one with b′, and back."
)
CONVERTER_FORMULA = (
    r"b' = b\,\alpha^{d/(d-2)}\quad\Longleftrightarrow\quad \alpha = (b'/b)^{(d-2)/d},\qquad"
    r"\lambda'_j = 2\pi\,b'^{\,2j/d}:\ \ \lambda'_0 = \lambda_0,\ \ \lambda'_{d/2-1} = \alpha\,\lambda_{d/2-1}"
)


def link_problem(reason: str) -> str:
    return f"The config in this link could not be read: the cfg value {escape_markdown(reason)}. The text box starts empty."


def too_long(chars: int, limit: int) -> str:
    return (
        f"This text is too long for a link ({chars:,} characters compressed; the limit is {limit:,}): the link "
        "to this view does not include it. Paste only the position-related keys (sizes, rope block, layer "
        "settings) to share it."
    )


def verdict(parsed: ParsedConfig) -> tuple[bool, str]:
    """(whether the config has no problem at all, the line that says so or counts them)."""
    errors, warnings = len(parsed.errors), len(parsed.warnings)
    if errors:
        return False, f"**{count(errors, 'error')} and {count(warnings, 'warning')}**, each next to its key:"
    if warnings:
        return False, f"**Readable, with {count(warnings, 'warning')}**, each next to its key:"
    return True, f"No problems: read as a {parsed.kind}."


def problems(parsed: ParsedConfig) -> list[tuple[bool, str]]:
    """(is an error, "**key** — message") for every problem, errors first; both escaped (they quote the text)."""
    ordered = sorted(parsed.problems, key=lambda p: p.severity != ERROR)
    return [(p.severity == ERROR, f"**{escape_markdown(p.key)}** — {escape_markdown(p.message)}") for p in ordered]


def _number(value: float | None, form: str = ",") -> str:
    return "—" if value is None else format(value, form)


def reading_metrics(parsed: ParsedConfig) -> list[list[tuple[str, str, str | None]]]:
    """Two rows of four metrics (label, value, help): the numbers and the method read."""
    rotary, head_dim = parsed.rotary_dim, parsed.head_dim
    return [
        [
            (
                "Head dim (rotated)",
                "—" if head_dim is None else f"{rotary} of {head_dim}" if rotary != head_dim else f"{head_dim}",
                None,
            ),
            ("rope_theta (base)", _number(parsed.rope_theta, ",.6g"), None),
            ("max_position_embeddings", _number(parsed.max_position_embeddings), None),
            (
                "Trained length L",
                _number(parsed.original_max_position_embeddings),
                "original_max_position_embeddings (in the block or at the top level).",
            ),
        ],
        [
            ("Method (rope_type)", parsed.rope_type or "—", None),
            (
                "Layout (a guess)",
                parsed.layout,
                "A config does not record the pairing; it belongs to the weights. Guessed from "
                "model_type and rope_interleave.",
            ),
            ("Partial rotary factor", f"{parsed.partial_rotary_factor:g}", None),
            ("Read as", parsed.kind, None),
        ],
    ]


def notes(items: Iterable[str]) -> str:
    return "**Notes**\n\n" + "\n".join(f"- {escape_markdown(n)}" for n in items)


def layer_groups(groups: Iterable[tuple[tuple[str, str], list[int]]]) -> str:
    """One line per group of layers with the same rope and attention span: how many, which (the first ten)."""
    lines = []
    for (rope, span), layers in groups:
        shown = ", ".join(str(i) for i in layers[:10]) + (", …" if len(layers) > 10 else "")
        lines.append(f"- **{count(len(layers), 'layer')}** ({shown}): {escape_markdown(rope)}; {escape_markdown(span)}")
    return "\n".join(lines)


def temperature(t: Mapping[str, float]) -> str:
    """Llama 4's attention temperature on the NoPE layers (``attn_scale``, ``floor_scale``)."""
    return (
        "On the NoPE layers q is multiplied by 1 + "
        f"{t['attn_scale']:g}·ln(⌊(pos+1)/{t['floor_scale']:g}⌋ + 1) (Llama 4's attention temperature; "
        "the Context extension page's Attention tab draws it)."
    )


def sources(presets: Iterable[Any]) -> list[str]:
    return [f"**{escape_markdown(p.name)}** — {escape_markdown(p.source)}" for p in presets]


def not_a_base(source: str, alpha: float, base: float, new_theta: float) -> str:
    """The converter's warning when b′ (given, or b·α^(d/(d−2))) is not above 1."""
    asked = (
        f"The new base b′ = {new_theta:g}"
        if source == "rope_theta"
        else f"With α = {alpha:g} on base {base:g} the new base b′ = {new_theta:.3g}"
    )
    return f"{asked} is not above 1, so it defines no frequencies; showing α = 1 (b′ = b) instead."


def converter_metrics(
    alpha: float, new_theta: float, slowest: float, fastest: float
) -> list[tuple[str, str, str | None]]:
    """``slowest`` / ``fastest``: λ′/λ of the slowest pair (d/2 − 1) and of pair 0."""
    return [
        ("NTK alpha α", f"{alpha:.6g}", None),
        ("rope_theta b′", f"{new_theta:,.2f}", None),
        ("Slowest pair's wavelength", f"× {slowest:.4g}", "λ′/λ of pair d/2 − 1."),
        ("Fastest pair's wavelength", f"× {fastest:.4g}", "λ′/λ of pair 0."),
    ]


#: The converter chart's words when α, d and b are its own sliders: true for every α, d and b (b′ = b·α^(d/(d−2))
#: keeps λ_0 and multiplies λ_{d/2−1} by exactly α).
WAVELENGTH_LIVE_WORDS = {
    "title": "Drag α, d or b: NTK keeps the fastest pair's wavelength and multiplies the slowest pair's by α",
    "subtitle": "linear scaling with s = α multiplies every pair's wavelength by s",
}


def wavelength_words(alpha: float) -> dict[str, str]:
    """The converter chart's title and subtitle, true for every α (α < 1 shortens the slow wavelengths).
    No base in them: a number that d changes would make a new spec at every step of d."""
    if alpha > 1:
        title = f"NTK α = {alpha:g} keeps the fastest pair and stretches the slowest by α"
    elif alpha < 1:
        title = f"NTK α = {alpha:g} keeps the fastest pair and shrinks the slowest to α times its wavelength"
    else:
        title = "NTK α = 1 changes nothing: every pair keeps its wavelength"
    verb = "raises" if alpha > 1 else "lowers" if alpha < 1 else "keeps"  # b′ = b·α^(d/(d−2)): up when α > 1
    return {
        "title": title,
        "subtitle": f"NTK {verb} the base b; linear s = {alpha:g} multiplies every pair's wavelength by s",
    }


def ntk_in_config(alpha: float, new_theta: float) -> str:
    return (
        f"HF transformers has no rope_type for static NTK-aware scaling: a config states α = {alpha:.6g} as "
        f"rope_type `default` with the base b·α^(d/(d−2)) = {new_theta:,.2f} (the block beside this)."
    )


def converter_notices(alpha: float) -> list[str]:
    if alpha == 1:
        linear = "At α = 1 the three lines coincide: neither a linear factor nor an NTK alpha of 1 changes anything."
    else:
        linear = (
            "So a linear factor s and an NTK alpha s reach the same longest wavelength, but only NTK keeps "
            "neighbouring tokens as easy to tell apart as in training: linear "
            + (
                f"slows pair 0 too, to 1/{alpha:g} rad per token."
                if alpha > 1
                else f"speeds pair 0 up too, to {1 / alpha:.4g} rad per token."
            )
        )
    return [
        "The NTK line starts where the trained line starts (pair 0 keeps its wavelength) and ends at α times "
        f"the trained one (α = {alpha:g}); the linear line is α times the trained one everywhere, fast pairs "
        "included.",
        linear,
        "A larger rope_theta in a config is not by itself scaling: Llama 3 and Qwen2.5 were trained with theirs. "
        "It is NTK-aware scaling only when a model trained with b is run with b′, and then α = (b′/b)^((d−2)/d).",
        "Problems in a pasted config are reported against the key they concern, with the value described "
        "rather than echoed, and an error never stops the page.",
    ]


def layers_title(n_layers: int) -> str:
    """The layer chart's title (explorer.charts.configs.layer_chart)."""
    return f"What each of the {n_layers} layers does with positions"
