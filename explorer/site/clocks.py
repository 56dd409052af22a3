"""The Frequency clock hands page (pages/2_Clock_hands.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.snippets import HEADER, fill, ints


def snippet(v: Mapping[str, Any]) -> str:
    return HEADER + fill(
        """
d_model, base, p, n_clocks = $d_model, $base, $p, $n_clocks
theta = posenc.inverse_frequencies(d_model, base=base)  # radians per token, one per pair j
wavelengths = posenc.wavelengths(d_model, base=base)    # tokens per turn
angle = posenc.rope_angles([p], theta)[0]                # p * theta_j
row = posenc.sinusoidal_encoding([p], d_model, base=base, layout="interleaved")[0]
sin, cos = row[0::2], row[1::2]                          # each hand's tip (x, y)
pairs = posenc.spread_pairs(d_model // 2, n_clocks)      # the pairs that get a clock
for j in pairs:
    print(f"j={j:3d}  theta={theta[j]:.6g}  lambda={wavelengths[j]:.6g}  angle={angle[j]:.6g}  "
          f"sin={sin[j]:+.5f}  cos={cos[j]:+.5f}")
""",
        **ints(v, "d_model", "p", "n_clocks"),
        base=float(v["base"]),
    )


PAGE = Page(
    script="pages/2_Clock_hands.py",
    slug="clocks",
    title="Frequency clock hands",
    icon=":material/schedule:",
    params=(
        Param(
            "n_clocks",
            "Number of clocks",
            "int_slider",
            8,
            min=1,
            max=64,
            help="How many pairs get a clock, spread evenly from the fastest pair (j = 0) to the slowest (j = d/2 − 1); "
            "a single clock shows pair 0.",
        ),
    ),
    snippet=snippet,
    tour=(
        Step(
            {"d_model": 64, "n_clocks": 8, "m": 100},
            "The same numbers as clock hands. One more token turns every hand by its own fixed angle — the first by exactly one radian, each later hand by less — wherever you are in the text.",
        ),
    ),
    deep_link=DeepLink(
        {"d_model": 64, "base": 1000, "n_clocks": 6, "m": 40},
        slider="n_clocks",  # the chart's own slider (issue #36): tests/test_e2e.py presses its range input
        chart=0,
    ),
    bench=BenchSettings(
        max_query={"d_model": "2048", "base": "1000000", "n_clocks": "64", "m": "8192"},
        # no Streamlit slider left: d, b, the clocks and p are the chart's own (bench/press_in_browser.py)
        slider=None,
    ),
)
