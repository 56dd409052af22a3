"""The Sinusoidal heatmap page (pages/1_Sinusoidal_heatmap.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.snippets import HEADER, fill, ints


def snippet(v: Mapping[str, Any]) -> str:
    return HEADER + fill(
        """
seq_len, d_model, base, layout = $seq_len, $d_model, $base, $layout
wavelengths = posenc.wavelengths(d_model, base=base)  # tokens per turn of each (sin, cos) pair
# The zoom window: exact values PE(p, i) for p0 <= p < p_end, d0 <= i < d_end
p0, p_end, d0, d_end = $p0, $p_end, $d0, $d_end
window = posenc.sinusoidal_encoding(np.arange(p0, p_end), d_model, base=base, layout=layout)[:, d0:d_end]
# ||PE(p) - PE(p + k)|| depends only on the offset k: the closest two distinct positions
k = np.arange(1, seq_len)
if k.size:
    distance = posenc.distance_by_offset(k, d_model, base=base)
    print(f"closest two distinct positions: {distance.min():.4g} apart, k = {k[distance.argmin()]}")
print(f"wavelengths {wavelengths[0]:.4g} ... {wavelengths[-1]:,.0f} tokens; window {window.shape}")
""",
        **ints(v, "seq_len", "d_model"),
        base=float(v["base"]),
        layout=v["layout"],
        p0=int(v["zoom_p0"]),
        p_end=int(min(v["zoom_p0"] + v["zoom_np"], v["seq_len"])),
        d0=int(v["zoom_d0"]),
        d_end=int(min(v["zoom_d0"] + v["zoom_nd"], v["d_model"])),
    )


PAGE = Page(
    script="pages/1_Sinusoidal_heatmap.py",
    slug="sinusoidal",
    title="Sinusoidal heatmap",
    icon=":material/grid_on:",
    params=(
        Param(
            "zoom_p0",
            "Zoom: first position",
            "int_slider",
            0,
            min=0,
            max=8191,
            help="The zoom window starts at this position (exact values, no averaging): the first slider "
            "above the zoom chart, up to seq_len − 1.",
        ),
        Param(
            "zoom_np",
            "Zoom: number of positions",
            "int_slider",
            64,
            min=1,
            max=256,
            help="How many consecutive positions the zoom window, the curves and the table show: the second slider "
            "above the zoom chart, at most the table's length.",
        ),
        Param(
            "zoom_d0",
            "Zoom: first dimension",
            "int_slider",
            0,
            min=0,
            max=2047,
            help="The zoom window starts at this dimension i: the third slider above the zoom chart, up to d − 1.",
        ),
        Param(
            "zoom_nd",
            "Zoom: number of dimensions",
            "int_slider",
            32,
            min=1,
            max=256,
            help="How many consecutive dimensions the zoom window and the table show: the fourth slider above the "
            "zoom chart, at most d.",
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
            "Curves",
            options=("Curves", "Wavelengths", "Similarity", "Numbers"),
        ),
    ),
    snippet=snippet,
    tour=(
        Step(
            {"seq_len": 512, "d_model": 128},
            "Each row is one position's fingerprint. Pair 0 turns one radian per token, so its two columns flicker from row to row; each later pair turns more slowly, by the factor b^(2/d) per pair: fine detail and coarse location in one vector.",
        ),
    ),
    deep_link=DeepLink(
        {
            "seq_len": 300,
            "d_model": 64,
            "base": 1000,
            "layout_sin": "concatenated",
            "scheme": "viridis",
            "zoom_np": 40,
            "zoom_nd": 24,
            "sim_n": 50,
        },
        # d and b are the zoom chart's own sliders (issue #36), above the tabs; tests/test_e2e.py reads them
        # there. seq_len is the page's Streamlit slider.
        slider="seq_len",
        chart=0,
    ),
    bench=BenchSettings(
        max_query={
            "seq_len": "8192",
            "d_model": "2048",
            "base": "1000000",
            "zoom_p0": "7936",
            "zoom_np": "256",
            "zoom_d0": "1792",
            "zoom_nd": "256",
            "sim_n": "512",
            "sin_view": "Similarity",
            "curve_dims": "0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900, 2000",
        },
        slider="seq_len",
    ),
)
