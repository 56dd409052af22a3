"""What the Model configs page computes (pages/9_Model_configs.py): a pasted config read by posenc, the
settings its "Open in …" buttons carry, the published models' table and the NTK-alpha converter."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

import posenc
from explorer.layout import cached
from explorer.vocabulary import ALPHA_STOPS
from posenc.config import ParsedConfig, parse_model_config
from posenc.models import PRESETS


@cached(max_entries=32)
def parse(text: str, head_dim: int, max_pos: int) -> ParsedConfig:
    """The pasted text read key by key; ``head_dim`` and ``max_pos`` where the text does not give them."""
    return parse_model_config(text, fallback_head_dim=head_dim, fallback_max_position_embeddings=max_pos)


def max_positions(parsed: ParsedConfig, fallback: int) -> int:
    return parsed.max_position_embeddings or parsed.original_max_position_embeddings or fallback


def open_settings(parsed: ParsedConfig, block: dict[str, Any], fallback_max_pos: int) -> dict[str, Any]:
    """The settings the "Open in …" buttons carry (explorer.presets_ui.page_values): the config's sizes
    with ``block``, the rope opened (a chosen layer's, for a config whose layers differ)."""
    return dict(
        head_dim=parsed.head_dim,
        rope_theta=block.get("rope_theta") or parsed.rope_theta or 10000.0,
        layout=parsed.layout,
        partial_rotary_factor=block.get("partial_rotary_factor", parsed.partial_rotary_factor),
        rope_parameters=block,
        max_position_embeddings=max_positions(parsed, fallback_max_pos),
    )


#: The published models' table: column -> the preset's field.
PRESET_COLUMNS = {
    "model": "name",
    "head dim": "head_dim",
    "rotated dims": "rotary_dim",
    "rope_theta": "rope_theta",
    "max positions": "max_position_embeddings",
    "layout": "layout",
    "rope_type": "rope_type",
}


def presets_table() -> pd.DataFrame:
    """One row per published model: its sizes, base, layout and method."""
    return pd.DataFrame([{col: getattr(p, field) for col, field in PRESET_COLUMNS.items()} for p in PRESETS.values()])


def convert(source: str, value: float, head_dim: int, base: float) -> tuple[float, float]:
    """(α, b′) from what the converter is given: a new base (``source`` "rope_theta"; α 0 for a b′ not
    above 1), or an NTK alpha or a linear factor α (b′ = b·α^(d/(d−2)))."""
    if source == "rope_theta":
        return (posenc.base_to_ntk_alpha(value, head_dim, base=base) if value > 1 else 0.0), value
    return value, posenc.ntk_alpha_to_base(value, head_dim, base=base)


def alpha_window(head_dim: int, base: float) -> tuple[float, float] | None:
    """(first, last) of the α stops whose new base b′ = b·α^(d/(d−2)) (posenc.ntk_alpha_to_base) is a base (> 1) at
    this d and b: the converter chart's own slider runs over them; None when fewer than two are (a base of 10 at
    d = 4 and α = 0.01 is not), or d ≤ 2 (no NTK exponent)."""
    if head_dim <= 2:
        return None
    ok = [a for a in ALPHA_STOPS if posenc.ntk_alpha_to_base(a, head_dim, base=base) > 1]
    return (ok[0], ok[-1]) if len(ok) > 1 else None


def chart_alpha_window(source: str, given: float, head_dim: int, base: float) -> tuple[float, float] | None:
    """The α window of the converter chart's own slider (`alpha_window`) where the chart carries α, d and b: the
    converter is given α (or a linear factor) on one of the stops, inside the window; else None (a new rope_theta, an
    α typed between two stops: the page draws the chart for that one value)."""
    if source == "rope_theta" or given not in ALPHA_STOPS:
        return None
    window = alpha_window(head_dim, base)
    return window if window is not None and window[0] <= given <= window[1] else None


def wavelength_ratios(head_dim: int, base: float, new_theta: float) -> tuple[np.ndarray, np.ndarray, float, float]:
    """θ_j at b and at b′, and λ′/λ of the slowest pair and of the fastest."""
    theta = posenc.inverse_frequencies(head_dim, base=base)
    theta_ntk = posenc.inverse_frequencies(head_dim, base=new_theta)
    return theta, theta_ntk, float(theta[-1] / theta_ntk[-1]), float(theta[0] / theta_ntk[0])
