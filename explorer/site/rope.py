"""The RoPE rotation page (pages/3_RoPE_rotation.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.snippets import HEADER, fill, ints


def snippet(v: Mapping[str, Any]) -> str:
    return HEADER + fill(
        """
head_dim, base, layout = $head_dim, $base, $layout
m, n, j = $m, $n, $j
q = $q  # pair j of the query
k = $k  # pair j of the key
theta = posenc.inverse_frequencies(head_dim, base=base)[j]  # radians per position for pair j
q_rot = posenc.apply_rope(q[None, :], [m], inv_freq=[theta])[0]
k_rot = posenc.apply_rope(k[None, :], [n], inv_freq=[theta])[0]
angles = posenc.pair_angles(q, k, m, n, theta)  # before, offset (m - n)*theta, predicted, measured
score = posenc.rope_score_matrix(q, k, [m], [n], inv_freq=[theta])[0, 0]          # <R_m q, R_n k>
score_rel = posenc.rope_score_matrix(q, k, [0], [n - m], inv_freq=[theta])[0, 0]  # <q, R_(n-m) k>
R = posenc.rope_matrix(m, head_dim, base=base, layout=layout)  # the whole head's d x d rotation
print(f"theta_j = {theta:.6g}, score {score:.6f} = {score_rel:.6f}")
print(f"angle before {np.degrees(angles.before):.2f} deg, measured after {np.degrees(angles.measured):.2f} deg")
""",
        **ints(v, "head_dim", "m", "n", "j"),
        base=float(v["base"]),
        layout=v["layout"],
        q=np.asarray(v["q"], dtype=np.float64),
        k=np.asarray(v["k"], dtype=np.float64),
    )


def _coordinates(name: str, whole: str, x: float, y: float) -> tuple[Param, ...]:
    """Pair j of q or k (`name`) as its x and y (the sidebar's "cartesian" mode)."""
    return tuple(
        Param(f"{name}{axis}", f"{name}: {axis}", "float_slider", value, min=-3.0, max=3.0, step=0.1, help=help_text)
        for axis, value, help_text in (
            ("x", x, f"First coordinate of pair j of the {whole} {name}."),
            ("y", y, f"Second coordinate of pair j of the {whole} {name}."),
        )
    )


def _polar(name: str, angle: int, length: float) -> tuple[Param, ...]:
    """Pair j of q or k (`name`) as its direction and length (the sidebar's "polar" mode)."""
    direction = f"Direction of pair j of {name}, in degrees counter-clockwise from the x axis."
    size = f"Length of pair j of {name} (rotation never changes it)."
    return (
        Param(f"{name}_angle", f"{name}: angle (°)", "int_slider", angle, min=-180, max=180, help=direction),
        Param(f"{name}_len", f"{name}: length", "float_slider", length, min=0.1, max=3.0, step=0.1, help=size),
    )


PAGE = Page(
    script="pages/3_RoPE_rotation.py",
    slug="rope",
    title="RoPE rotation",
    icon=":material/rotate_right:",
    params=(
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
        *_coordinates("q", "query", 1.0, 0.5),
        *_coordinates("k", "key", -0.4, 1.2),
        *_polar("q", 30, 1.0),
        *_polar("k", 110, 1.5),
        Param(
            "traj_m",
            "Trajectory: positions 0 … M",
            "int_slider",
            16,
            min=0,
            max=256,
            help="Draw where pair j of q lands at every position 0, 1, …, M: it walks round the circle in steps of θ_j.",
        ),
    ),
    snippet=snippet,
    tour=(
        Step(
            {"head_dim": 64, "j": 0, "m": 5, "n": 12},
            "RoPE adds nothing: it turns each pair of query and key coordinates by an angle that grows with position. The angle between q and k changes by exactly (m − n)·θ_j, so the score sees only the offset.",
        ),
        Step(
            {"head_dim": 64, "base": 10000, "j": 31, "m": 500, "n": 512},
            "With base 10,000 the slowest pair hardly turns: 500 tokens in, it has moved only about four degrees. Pairs like this one carry the long-range part of the position.",
        ),
    ),
    deep_link=DeepLink(
        {
            "vec_input": "polar",
            "q_angle": 45,
            "q_len": 2,
            "k_angle": -60,
            "k_len": 1.2,
            "m": 7,
            "n": 3,
            "head_dim": 32,
            "j": 2,
            "base": 1000,
            "traj_m": 20,
            "layout_rope": "interleaved",
        },
        slider="traj_m",
        chart=1,  # the rotation plane, whose own slider M is (chart 0 is the live plane: m, n, d, b, j, q and k)
    ),
    bench=BenchSettings(
        max_query={
            "m": "8192",
            "n": "8192",
            "head_dim": "256",
            "j": "127",
            "base": "1000000",
            "traj_m": "256",
            "rope_view": "Whole head",
        },
        slider="traj_m",  # the rotation plane's own slider: bench/load.py reports its end as the chart does
        slider_chart=1,
    ),
    presets=True,
)
