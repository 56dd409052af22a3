"""explorer.text.sinusoidal: each sentence against the values it describes, computed here from the
formula θ_j = b^(−2j/d), λ_j = 2π/θ_j, PE(p) = (sin pθ_j, cos pθ_j) (never copied from the code under test)."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from explorer.text import sinusoidal as text


def wavelengths(d: int, b: float) -> np.ndarray:
    return 2 * math.pi * b ** (2.0 * np.arange(d // 2) / d)


def block_amplitude(k: int, theta: np.ndarray) -> np.ndarray:
    """|mean of e^(i·p·θ_j) over k consecutive positions|: what averaging k rows leaves of pair j."""
    return np.abs(np.exp(1j * np.outer(np.arange(k), theta)).mean(axis=0))


def test_reduction_note_says_what_a_pixel_is():
    assert text.reduction_note(128, 128, 128, 1) == ""
    note = text.reduction_note(8192, 2048, 480, 2)  # 8192 / 480 = 17.07: blocks of 17 or 18
    assert note.startswith("8192 × 2048 values do not fit on screen")
    assert "the mean over 17 or 18 consecutive positions" in note and "over 2 neighbouring pairs" in note
    assert "mean over 2 consecutive" in text.reduction_note(960, 64, 480, 1)  # exactly 2 per block


def test_averaging_effect_when_pairs_turn_within_a_block():
    """8192 positions in 480 rows at d = 2048, b = 10^6: pairs with λ ≤ 17 fade, at most this much is left."""
    wl = wavelengths(2048, 1e6)
    theta = 2 * math.pi / wl
    fading = wl <= 17
    most = np.max(np.maximum(block_amplitude(17, theta), block_amplitude(18, theta))[fading])
    effect = text.averaging_effect(8192, 480, wl)
    assert f"{int(fading.sum())} of 1024 pairs turn at least once within a block" in effect
    assert f"at most {most:.0%} of its amplitude" in effect


def test_averaging_effect_when_no_pair_turns_within_a_block():
    """1000 positions in 480 rows: blocks of 2 or 3; the fastest pair (θ = 1) keeps |mean of 3 turns| = 69%."""
    effect = text.averaging_effect(1000, 480, wavelengths(128, 1e4))
    assert (
        f"shrinks the fastest pair to {block_amplitude(3, np.array([1.0]))[0]:.0%}" in effect and "grey" not in effect
    )
    assert text.averaging_effect(100, 100, wavelengths(4096, 1e4)).startswith("Positions are not averaged")


def test_overview_subtitle():
    wl = wavelengths(128, 1e4)
    assert (
        text.overview_subtitle(128, 128, wl, "")[0]
        == "Every value is drawn (nothing averaged). Hover for exact values."
    )
    assert text.overview_subtitle(1000, 480, wl, "N.")[:2] == ["N.", text.averaging_effect(1000, 480, wl)]


def test_averaging_explained_states_the_factor_between_pairs():
    """b^(2/d) at d = 128, b = 10,000: 10^(1/16) ≈ 1.155."""
    explained = text.averaging_explained(128, 1e4, "")
    assert f"b^(2/d) = {10 ** (1 / 16):.4g} here" in explained and explained.endswith("Now: nothing is averaged.")
    assert "at most 1024 × 480 are sent" in explained
    assert text.averaging_explained(128, 1e4, "N.").endswith("Now: N.")


def test_controls_line_and_captions():
    assert "**d = 2048**, base **b = 1,000,000**" in text.controls_line(2048, 1e6)
    assert text.no_dims(64) == "Type one or more dimension indices between 0 and 63, e.g. 0, 1, 20."
    assert text.dims_warning(["a", "b"]) == "Dimensions: a; b"
    assert "among the 300 positions" in text.metric_helps(300)[0]
    assert text.numbers_caption(10, 49, 4, 27, cut_to=None) == "The window, positions 10 … 49 × dimensions 4 … 27."
    assert "(the first 64 rows and columns are shown" in text.numbers_caption(0, 255, 0, 255, cut_to=64)


def test_matrix_subtitles():
    closest, farthest = 2 * abs(math.sin(0.5)), 2.0  # d = 2: positions 1 apart, and the far side of the circle
    similarity, distance = text.matrix_subtitles(50, 64, closest, farthest)
    assert similarity[1].endswith("the main diagonal is d/2 = 32.")
    assert distance[1] == f"are {closest:.4g} apart, the farthest two 2."


@pytest.mark.parametrize("layout", ["interleaved", "concatenated"])
def test_notices_at_the_default_settings(layout):
    """d = 128, b = 10,000, 128 positions: λ runs to 2π·10^(4·126/128) ≈ 54,410; the pairs with λ > 128
    never turn; positions 1 apart are the closest, 2·√(Σ sin²(θ_j/2)) apart."""
    wl = wavelengths(128, 1e4)
    theta = 2 * math.pi / wl
    k1 = 2 * math.sqrt(np.sum(np.sin(theta / 2) ** 2))
    items = text.notices(128, 128, layout, wl, (1, k1))
    joined = " ".join(items)
    assert f"to {2 * math.pi * 1e4 ** (126 / 128):,.0f} tokens: a straight line on the log axis." in joined
    assert f"{int(np.sum(wl > 128))} of 64 pairs have a wavelength longer than the 128 positions shown" in joined
    assert f"the closest two are k = 1 apart and differ by {k1:.3g}" in joined and "√(d/2) = 8" in joined
    if layout == "interleaved":
        assert "down to columns 126 and 127" in items[0]
    else:
        assert "columns 0 and 64 change fastest, columns 63 and 127 slowest" in items[0]


def test_notices_with_one_pair_and_one_position():
    items = text.notices(1, 2, "interleaved", wavelengths(2, 10.0), None)
    assert items[0].startswith("With d = 2 there is a single pair") and len(items) == 3
    assert not any("closest" in item for item in items)


# --- the charts' titles and subtitles (explorer.charts.sinusoidal) -------------------------------------------
def test_the_skipped_dimensions_are_named_with_the_limit_and_the_count():
    said = text.dims_problems(["abc", "1.5"], ["70"], 64, 8, 3)
    assert said == [
        "not whole numbers, skipped: abc, 1.5",
        "outside 0 … 63, skipped: 70",
        "only the first 8 dimensions are drawn (3 more skipped)",
    ]
    assert text.dims_problems([], [], 64, 8, 0) == []


def test_the_curves_title_names_the_fastest_and_the_slowest_dimension():
    wl = wavelengths(128, 1e4)  # λ_0 = 2π ≈ 6.283, λ_10 = 2π·10^(80/128) ≈ 26.50 (interleaved: dim 20 is pair 10)
    assert text.curves_title([0, 1, 20], [0, 0, 10], wl) == (
        f"Dimension 0 turns once every 6.283 tokens, dimension 20 once every {2 * math.pi * 10 ** (80 / 128):.4g}"
    )
    assert text.curves_title([20, 21], [10, 10], wl) == "Pair 10: one turn every 26.5 tokens"
    # λ_63 = 2π·10^(504/128) ≈ 54,239: from 1,000 tokens on the wavelength is written as a whole number
    assert (
        text.curves_title([127], [63], wl) == f"Pair 63: one turn every {2 * math.pi * 1e4 ** (126 / 128):,.0f} tokens"
    )
    assert (
        text.curves_subtitle(5, 36)[0]
        == "Each curve is one column of the table over positions 5 … 36 (the zoom window)."
    )


def test_the_wavelength_subtitle_counts_the_pairs_longer_than_the_sequence():
    wl = wavelengths(8, 1e4)  # 2π·10^j: 6.28, 62.8, 628.3, 6,283
    first, second = text.wavelength_subtitle(wl, 100, 1e4, 8)
    assert first == "λ_j = 2π·b^(2j/d), from 2π ≈ 6.28 to 6,283 tokens (b = 10,000, d = 8)."
    assert second == "2 of 4 pairs (above the dashed line) do not finish one turn within 100 positions."


def test_the_distance_subtitle_quotes_its_number_and_the_zoom_description_names_its_sliders():
    assert text.distance_subtitle(64).endswith("here every k from 1 to 63.")
    said = text.zoom_description("concatenated")
    assert said.startswith("The zoom window of the sinusoidal encoding table (concatenated layout): the positions")
    # the window's size is a pair of the chart's sliders: named, never quoted as a number a drag would make stale
    assert "positions-shown and dimensions-shown sliders" in said and not re.search(r"[0-9]", said)
