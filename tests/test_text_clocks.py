"""explorer.text.clocks: each sentence against the values it describes, computed here from the formula
θ_j = b^(−2j/d), λ_j = 2π/θ_j (never copied from the code under test)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from explorer.text import clocks as text

P_MAX, LARGEST = 8192, 1_000_000.0


def angles(d: int, b: float) -> tuple[np.ndarray, np.ndarray]:
    theta = b ** (-2.0 * np.arange(d // 2) / d)
    return theta, 2 * math.pi / theta


def test_a_small_base_and_d():
    """b = 10, d = 8: the last hand turns 10.2° per token (not "barely"), 232 turns by p = 8192."""
    items = text.notices(*angles(8, 10.0), base=10.0, p_max=P_MAX, largest_base=LARGEST)
    joined = " ".join(items)
    theta_last = 10.0 ** (-6 / 8)
    assert f"{2 * math.pi / theta_last:.3g} tokens for one turn" in joined  # 35.3
    assert f"({math.degrees(theta_last):.3g}° per token)" in joined  # 10.2°
    assert f"it makes {8192 * theta_last / (2 * math.pi):.3g} turns" in joined  # 232
    assert "a larger base b slows it down" in joined and "creep" not in joined and "barely" not in joined
    assert items[0].startswith("The first hand completes a turn every 2π ≈ 6.28 tokens")
    assert len(items) == 5 and items[-1] == text.PLAY_NOTICE


def test_the_largest_base_has_no_larger_one_to_offer():
    """d = 4 at the largest base: the last hand (θ = 10^−3) makes 8192·10^−3/2π ≈ 1.30 turns: it repeats,
    and no larger base is offered."""
    joined = " ".join(text.notices(*angles(4, LARGEST), base=LARGEST, p_max=P_MAX, largest_base=LARGEST))
    assert (
        f"it makes {8192e-3 / (2 * math.pi):.3g} turns, so even the slowest hand repeats within the longest text."
        in joined
    )
    assert "slows it down" not in joined


def test_a_slow_last_hand_says_where_you_are():
    """d = 128, b = 10,000: the last hand needs 2π·10000^(126/128) ≈ 54,410 tokens, 0.151 turns by 8192."""
    joined = " ".join(text.notices(*angles(128, 1e4), base=1e4, p_max=P_MAX, largest_base=LARGEST))
    wl_last = 2 * math.pi * 1e4 ** (126 / 128)
    assert f"needs {wl_last:,.0f} tokens for one turn" in joined
    assert f"it makes {8192 / wl_last:.3g} turns, less than one, so it alone says roughly where" in joined


def test_a_single_pair():
    """d = 2: one hand, θ = 1 whatever b is; 44 tokens turn it 44 rad = 7 turns + 1.0°."""
    items = text.notices(*angles(2, LARGEST), base=LARGEST, p_max=P_MAX, largest_base=LARGEST)
    joined = " ".join(items)
    assert "slower hands tell" not in joined and "slows" not in joined
    assert "With d = 2 it is the only hand" in joined
    assert f"differ on it by only {math.degrees(abs(44 - 14 * math.pi)):.1f}°" in joined  # 1.0°
    assert "the same angle, one radian" in joined and items[-1] == text.PLAY_NOTICE


@pytest.mark.parametrize(
    "shown, pairs, start", [(1, 1, "The pair with a clock (of 1)."), (8, 64, "The 8 pairs with a clock (of 64).")]
)
def test_table_caption(shown, pairs, start):
    heading, caption = text.table_texts(7, shown, pairs)
    assert heading == "The numbers at p = 7"
    assert caption.startswith(start) and "dimensions 2j and 2j + 1" in caption


def test_the_animation_text_carries_its_numbers():
    assert "every 40 ms it moves p on by speed ÷ 25 tokens" in text.animation_explained(40, 25)


def test_the_clock_charts_description_quotes_its_starting_settings():
    said = text.clocks_description(7.0, 16, 10000.0, 4)
    assert said.startswith("Clock hands, starting at position p = 7, head size d = 16, base b = 10000 and 4 clocks")
    assert "θ_j = b^(−2j/d)" in said
    assert text.clocks_description(2.5, 64, 500000.0, 1).startswith(
        "Clock hands, starting at position p = 2.5, head size d = 64, base b = 500000 and 1 clock (the"
    )


@pytest.mark.parametrize(
    ("clocks", "pairs", "wide", "phone"),
    [
        (8, 8, "One clock per pair: the hand of pair j turns by θ_j per token", ["One clock per pair:"]),
        (1, 8, "One clock, for pair 0 of the 8: the hand of pair j turns by θ_j per token", None),
        (3, 64, "One clock for each of 3 of the 64 pairs: the hand of pair j turns by θ_j per token", None),
        (1, 1, "One clock per pair: the hand of pair j turns by θ_j per token", None),
    ],
)
def test_the_clock_titles_expression_reads_at_the_sliders_values(clocks, pairs, wide, phone):
    """The Vega expression evaluated as the browser does (tests/_chartspec), with the counts as literals."""
    from _chartspec import spec_value

    assert spec_value({}, text.clocks_title_expr(str(clocks), str(pairs), phone=False)) == wide
    lines = spec_value({}, text.clocks_title_expr(str(clocks), str(pairs), phone=True))
    assert lines == [wide.split(": ")[0] + ":", "the hand of pair j turns by θ_j per token"]
    if phone:
        assert lines[0] == phone[0]
