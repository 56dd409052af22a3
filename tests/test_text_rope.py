"""The RoPE rotation page's sentences (explorer/text/rope.py) against the values they describe,
computed here by hand with math (rotations, angles, θ_j = b^(−2j/d))."""

from __future__ import annotations

import math

import numpy as np
import pytest

import posenc
from explorer.text import rope as text


def wrap(a: float) -> float:
    while a > math.pi:
        a -= 2 * math.pi
    while a <= -math.pi:
        a += 2 * math.pi
    return a


def rotate(v, angle):
    c, s = math.cos(angle), math.sin(angle)
    return (v[0] * c - v[1] * s, v[0] * s + v[1] * c)


def test_zero_vector_warning_names_the_vector_and_its_replacement():
    said = text.zero_vector_warning("k", (-0.4, 1.2))
    assert said.startswith("k is the zero vector") and "default k = (-0.4, 1.2) instead" in said


@pytest.mark.parametrize("j, d, b", [(0, 64, 10000.0), (3, 16, 100.0), (127, 256, 1e6)])
def test_plane_title_gives_theta_in_radians_and_degrees(j, d, b):
    theta = b ** (-2 * j / d)
    title, subtitle = text.plane_title(j, theta)
    assert title == f"Pair j = {j}: θ_j = {theta:.4g} rad ({theta * 180 / math.pi:.3g}°) per position"
    # M is the chart's own slider: the subtitle names it, not a number a drag would leave behind
    assert subtitle.endswith("dots: q at 0 … M")
    assert not any(c.isdigit() for c in subtitle.removesuffix("0 … M"))


def test_plane_description_names_what_is_drawn():
    assert text.plane_description(["q", "k", "q", "k"], ["before", "after"], "sub") == (
        "Chart: one rotation plane, q and k (before and after rotation) as arrows; sub"
    )
    assert text.plane_description(["q"], ["after"], None) == "Chart: one rotation plane, q (after rotation) as arrows"
    assert text.plane_description([], [], None) == "Chart: one rotation plane, no vector as arrows"


def test_live_plane_description_gives_the_sliders_range_and_no_pair_number():
    said = text.live_plane_description(8192)
    assert "from 0 to 8192" in said
    assert not any(ch.isdigit() for ch in said.replace("from 0 to 8192", ""))


def test_pair_map_subtitle_and_head_heading():
    # half layout, d = 16: pair 5 is coordinates 5 and 5 + 16/2
    assert text.pair_map_subtitle(5, 5, 13, 16) == "red: pair 5, which rotates coordinates 5 and 13 (d = 16)"
    assert text.head_heading(64) == "64 coordinates, 32 planes, one rotation matrix"
    assert text.head_heading(2) == "2 coordinates, 1 plane, one rotation matrix"


@pytest.mark.parametrize(
    "q, k, m, n, theta", [((1.0, 0.5), (-0.4, 1.2), 5, 12, 1.0), ((3.0, -1.0), (0.2, 2.5), 300, 7, 0.0123)]
)
def test_metric_cards_hold_the_angles_norms_and_scores(q, k, m, n, theta):
    qm, kn = rotate(q, m * theta), rotate(k, n * theta)
    kd = rotate(k, (n - m) * theta)
    before = wrap(math.atan2(q[1], q[0]) - math.atan2(k[1], k[0]))
    groups = text.metric_groups(
        q,
        qm,
        m,
        n,
        theta,
        posenc.pair_angles(q, k, m, n, theta),
        qm[0] * kn[0] + qm[1] * kn[1],
        q[0] * kd[0] + q[1] * kd[1],
    )
    cards = {label: (value, help_text) for _, group in groups for label, value, help_text in group}
    deg = 180 / math.pi
    assert cards["∠(k → q) before"][0] == f"{before * deg:.2f}°"
    assert cards["(m − n)·θ_j"][0] == f"{wrap((m - n) * theta) * deg:.2f}°"
    assert cards["(m − n)·θ_j"][1].startswith(f"({m} − {n}) × {theta:.6g} rad = {(m - n) * theta:.6g} rad")
    assert cards["predicted ∠ after"][0] == f"{wrap(before + (m - n) * theta) * deg:.2f}°"
    measured = wrap(math.atan2(qm[1], qm[0]) - math.atan2(kn[1], kn[0]))
    assert cards["measured ∠ after"][0] == f"{measured * deg:.2f}°"
    assert cards["‖q‖ before"][0] == f"{math.hypot(*q):.6f}" == cards[f"‖q‖ after (m = {m})"][0]
    assert cards["⟨R_m q, R_n k⟩"][0] == f"{qm[0] * kn[0] + qm[1] * kn[1]:.6f}"
    assert cards["⟨q, R_(n−m) k⟩"][0] == f"{q[0] * kd[0] + q[1] * kd[1]:.6f}"
    assert f"n − m = {n - m}" in cards["⟨q, R_(n−m) k⟩"][1]
    assert [len(group) for _, group in groups] == [4, 4]


def thetas(d: int, b: float):
    return np.array([b ** (-2 * j / d) for j in range(d // 2)])


def test_notices_name_the_chosen_and_the_slowest_pair():
    said = text.notices(2, thetas(8, 10.0), 10.0, 8)
    assert f"Pair 2 turns θ_2 = {10 ** (-4 / 8) * 180 / math.pi:.4g}° per position" in said[2]
    assert f"the slowest pair, j = 3, {10 ** (-6 / 8) * 180 / math.pi:.3g}° (base 10, d = 8)" in said[2]
    assert f"pair 0 turns exactly one radian ({180 / math.pi:.4g}°)" in said[2]
    assert len(said) == 4


def test_notices_for_pair_0_and_for_a_single_pair():
    said = text.notices(0, thetas(64, 10000.0), 10000.0, 64)[2]
    assert said.startswith("pair 0 turns exactly one radian") and "(base 10,000, d = 64)" in said
    single = text.notices(0, thetas(2, 10.0), 10.0, 2)[2]
    assert "only pair 0" in single and "slowest" not in single
