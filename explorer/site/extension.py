"""The Context extension page (pages/5_Context_extension.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.presets_ui import preset_values
from explorer.snippets import HEADER, fill, ints

_BASE = {"head_dim": 128, "base": 10000, "train_len": 4096, "target_len": 16384}


def snippet(v: Mapping[str, Any]) -> str:
    return HEADER + fill(
        """
block = $block  # the rope block, as in a config.json
head_dim, trained, target = $head_dim, $train_len, $target_len  # d, L, T
theta, _ = posenc.rope_inverse_frequencies({"rope_type": "default", "rope_theta": block["rope_theta"]},
                                           head_dim, max_position_embeddings=trained)
scaled, attention_factor = posenc.rope_inverse_frequencies(block, head_dim, max_position_embeddings=trained,
                                                           seq_len=target)
ood = posenc.out_of_distribution_pairs(theta, scaled, trained_length=trained, target_length=target)
print(f"attention factor {attention_factor:.4f} (logits x {attention_factor ** 2:.4f}); "
      f"{int(ood.sum())} of {ood.size} pairs out of distribution at T = {target:,}")
print("wavelengths before:", np.round(2 * np.pi / theta, 1))
print("wavelengths after: ", np.round(2 * np.pi / scaled, 1))
""",
        block=dict(v["block"]),
        **ints(v, "head_dim", "train_len", "target_len"),
    )


PAGE = Page(
    script="pages/5_Context_extension.py",
    slug="extension",
    title="Context extension",
    icon=":material/open_in_full:",
    params=(
        Param(
            "ext_view",
            "View",
            "tabs",
            "Wavelengths",
            options=("Wavelengths", "Rescaling", "Attention", "Interpolation", "Precision"),
        ),
    ),
    snippet=snippet,
    tour=(
        Step(
            {**_BASE, "rope_type": "default"},
            "A model trained on 4,096 tokens, run on 16,384 without any scaling: its slow pairs now reach angles it never met in training. Drag T on the chart: the red rings appear as soon as T passes 4,096.",
        ),
        Step(
            {**_BASE, "rope_type": "linear", "factor": 4.0, "ext_view": "Rescaling"},
            "Position Interpolation divides every position by 4. All pairs are back in the trained range, but the fastest pairs now step four times slower, so neighbouring tokens blur together.",
        ),
        Step(
            {**_BASE, "rope_type": "yarn", "factor": 4.0, "ext_view": "Attention"},
            "YaRN leaves the fast pairs alone, slows only the slow ones, and multiplies cos and sin by a small factor above 1 so attention stays sharp over the longer context.",
        ),
        Step(
            {**preset_values("extension", "llama3.1-8b"), "model": "llama3.1-8b", "ext_view": "Rescaling"},
            "Llama 3.1's published settings: base 500,000, trained on 8,192 tokens, and three bands of pairs — kept, smoothly blended, or divided by 8 — chosen by wavelength.",
        ),
    ),
    deep_link=DeepLink(
        {
            "rope_type": "llama3",
            "head_dim": 128,
            "base": 500000,
            "train_len": 8192,
            "target_len": 131072,
            "factor": 8,
            "low_freq_factor": 2,
            "high_freq_factor": 8,
            "ext_view": "Rescaling",
        },
        slider="head_dim",
        chart=1,
    ),
    bench=BenchSettings(
        max_query={
            "head_dim": "256",
            "base": "1000000",
            "train_len": "262144",
            "target_len": "1048576",
            "rope_type": "yarn",
            "factor": "128",
            "beta_fast": "256",
            "beta_slow": "128",
            "ext_view": "Precision",
        },
        slider="head_dim",
    ),
    presets=True,
)
