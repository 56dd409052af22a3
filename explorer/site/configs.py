"""The Model configs page (pages/9_Model_configs.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page
from explorer.param import Param
from explorer.snippets import HEADER, fill


def snippet(v: Mapping[str, Any]) -> str:
    text = HEADER + fill(
        """
head_dim, base, alpha = $head_dim, $base, $alpha
new_base = posenc.ntk_alpha_to_base(alpha, head_dim, base=base)  # b' = b * alpha^(d / (d - 2))
assert np.isclose(posenc.base_to_ntk_alpha(new_base, head_dim, base=base), alpha)
theta = posenc.inverse_frequencies(head_dim, base=base)
wavelength = 2 * np.pi / theta                                            # as trained
wavelength_ntk = 2 * np.pi / posenc.inverse_frequencies(head_dim, base=new_base)  # NTK-aware
wavelength_linear = wavelength * alpha                                    # linear (PI), factor alpha
print(f"NTK alpha {alpha:g} = rope_theta {new_base:,.2f}")
print(f"slowest pair: {wavelength[-1]:,.0f} -> NTK {wavelength_ntk[-1]:,.0f}, linear {wavelength_linear[-1]:,.0f} tokens")
print(f"fastest pair: {wavelength[0]:.3f} -> NTK {wavelength_ntk[0]:.3f}, linear {wavelength_linear[0]:.3f} tokens")
""",
        head_dim=int(v["head_dim"]),
        base=float(v["base"]),
        alpha=float(v["alpha"]),
    )
    if v.get("block") is not None:
        text += fill(
            """
# The pasted config's rope block (as posenc.parse_model_config normalised it)
block = $block
inv_freq, attention_factor = posenc.rope_inverse_frequencies(block, $config_head_dim,
                                                             max_position_embeddings=$max_pos)
print(f"config: {inv_freq.size} pairs, attention factor {attention_factor:.4f}")
""",
            block=dict(v["block"]),
            config_head_dim=int(v["config_head_dim"]),
            max_pos=int(v["max_position_embeddings"]),
        )
    return text


PAGE = Page(
    script="pages/9_Model_configs.py",
    slug="configs",
    title="Model configs",
    icon=":material/settings_suggest:",
    params=(
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
    ),
    snippet=snippet,
    deep_link=DeepLink(
        {"head_dim": 96, "base": 500000, "conv_from": "rope_theta", "new_theta": 2000000},
        slider="head_dim",
        chart=0,
    ),
    bench=BenchSettings(
        max_query={"head_dim": "256", "base": "1000000", "conv_from": "rope_theta", "new_theta": "1000000000000"},
    ),
)
