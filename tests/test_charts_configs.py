"""Chart builders of the Model configs page (explorer/charts/configs.py), via `chart.to_dict()`:
the wavelengths against λ_j = 2π/θ_j computed here with `math`, the encodings, and the sizes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import posenc
from explorer.charts import configs as charts
from explorer.compute import configs as config_compute
from explorer.render import stable_dataset_names
from explorer.text import configs as text


def theta_loop(d: int, base: float) -> np.ndarray:
    return np.array([base ** (-2.0 * j / d) for j in range(d // 2)])


def build(d=64, base=10000.0, alpha=4.0):
    new_base = base * alpha ** (d / (d - 2))  # NTK-aware: the slowest pair stretched by α
    theta, theta_ntk = theta_loop(d, base), theta_loop(d, new_base)
    frame = charts.wavelength_frame(theta, theta_ntk, alpha)
    chart = charts.wavelength_compare_chart(frame, **text.wavelength_words(alpha))
    return frame, chart.to_dict(), new_base


def test_wavelength_frame_matches_the_formula():
    d, base, alpha = 16, 500.0, 2.0
    frame, _, new_base = build(d, base, alpha)
    assert list(frame["scheme"].unique()) == list(charts.COLORS)
    for scheme, b, stretch in [
        ("as trained", base, 1.0),
        ("NTK-aware (new base)", new_base, 1.0),
        ("linear (positions ÷ s)", base, alpha),
    ]:
        rows = frame[frame["scheme"] == scheme]
        assert rows["j"].tolist() == list(range(d // 2))
        expected = [stretch * 2 * math.pi / b ** (-2.0 * j / d) for j in range(d // 2)]
        assert rows["wavelength"].to_numpy() == pytest.approx(expected, rel=1e-12)
    ntk = frame[frame["scheme"] == "NTK-aware (new base)"]["wavelength"].to_numpy()
    trained = frame[frame["scheme"] == "as trained"]["wavelength"].to_numpy()
    assert ntk[0] == pytest.approx(trained[0]) and ntk[-1] == pytest.approx(alpha * trained[-1])


def test_wavelength_frame_rejects_mismatched_thetas():
    with pytest.raises(ValueError, match="same length"):
        charts.wavelength_frame(np.ones(4), np.ones(3), 2.0)


def test_chart_encodings_and_titles():
    _, spec, new_base = build(d=64, base=10000.0, alpha=4.0)
    enc = spec["encoding"]
    assert enc["x"]["field"] == "j" and enc["y"]["field"] == "wavelength"
    assert enc["y"]["scale"]["type"] == "log"
    assert enc["color"]["scale"]["domain"] == list(charts.COLORS)
    assert enc["color"]["scale"]["range"] == list(charts.COLORS.values())
    assert "NTK α = 4" in spec["title"]["text"]
    subtitle = spec["title"]["subtitle"]
    assert "NTK raises the base" in subtitle and "s = 4 multiplies" in subtitle and f"{new_base:,.0f}" not in subtitle
    rows = pd.DataFrame(spec["datasets"][spec["data"]["name"]])
    assert len(rows) == 3 * 32
    assert spec["config"]["axis"]["labelFontSize"] >= 13 and spec["config"]["title"]["fontSize"] >= 13


def test_chart_is_tall_enough_for_its_plot_and_ends_at_the_last_pair():
    """Streamlit fits title, legend and axes (≈ 170 px) into the height: 300 px left a plot of
    ≈ 100 px where three lines decades apart crowded together."""
    _, spec, _ = build(d=64)
    assert spec["height"] - 170 >= 260
    # not a "nice" 34: the rows' own range, 0 … 31 (no domain in the spec: another d changes only rows)
    assert spec["encoding"]["x"]["scale"] == {"nice": False, "zero": True}
    assert pd.DataFrame(spec["datasets"][spec["data"]["name"]])["j"].agg(["min", "max"]).tolist() == [0, 31]
    single = charts.wavelength_frame(theta_loop(2, 1e4), theta_loop(2, 4e4), 4.0)
    one = charts.wavelength_compare_chart(
        single, **text.wavelength_words(4.0)
    ).to_dict()  # one pair: 0 … 1, not a zero-width range
    assert one["encoding"]["x"]["scale"]["domain"] == [0, 1]


def test_another_head_dim_changes_only_the_rows():
    specs = [stable_dataset_names(build(d=d)[1]) for d in (64, 66)]
    assert specs[0]["datasets"] != specs[1]["datasets"]
    assert {k: v for k, v in specs[0].items() if k != "datasets"} == {
        k: v for k, v in specs[1].items() if k != "datasets"
    }


# ------------------------------------------------------------- α as the chart's own slider (issue #36)
@pytest.mark.parametrize("d, base", [(64, 10000.0), (128, 500000.0), (4, 10.0), (6, 100.0)])
def test_the_live_chart_draws_the_frames_wavelengths_at_every_alpha_its_slider_reaches(d, base):
    """With the slider at each stop of its window (the transforms run here, Python's pow = C's), the three lines
    are the frame's numbers at that α (θ from the loop above, b′ = b·α^(d/(d−2)))."""
    import _chartspec as cs

    from explorer.vocabulary import ALPHA_STOPS

    window = config_compute.alpha_window(d, base)
    theta = theta_loop(d, base)
    spec = cs.sent_spec(
        charts.wavelength_live_chart(
            theta,
            head_dim=d,
            base=base,
            starts={"ntk_alpha": 1.0, "head_dim": d, "base": base},
            **text.WAVELENGTH_LIVE_WORDS,
        )
    )
    reached = [a for a in ALPHA_STOPS if window[0] <= a <= window[1]]
    assert all(base * a ** (d / (d - 2)) > 1 for a in reached) and reached[-1] == 1000.0
    for a in reached:
        rows = cs.view_rows(spec, ntk_alpha=ALPHA_STOPS.index(a))
        want = charts.wavelength_frame(theta, theta_loop(d, base * a ** (d / (d - 2))), a)
        for scheme in charts.COLORS:
            got = rows[rows.scheme == scheme].sort_values("j")["wavelength"].tolist()
            assert got == pytest.approx(want[want.scheme == scheme].sort_values("j")["wavelength"].tolist(), rel=1e-14)
        ntk = rows[rows.scheme == "NTK-aware (new base)"].sort_values("j")["wavelength"].to_numpy()
        # the words hold at this α: the fastest pair keeps its wavelength, the slowest is multiplied by α
        assert ntk[0] == pytest.approx(2 * math.pi) and ntk[-1] == pytest.approx(a * 2 * math.pi / theta[-1], rel=1e-12)


def test_the_alpha_window_and_bad_input():
    assert config_compute.alpha_window(64, 10000.0) == (0.01, 1000.0)
    assert config_compute.alpha_window(4, 10.0) == (0.4, 1000.0)  # 10·α² > 1 from α = 0.316…
    assert config_compute.alpha_window(2, 10.0) is None
    # the chart carries α, d and b only for an α (or s) on a stop inside the window
    assert config_compute.chart_alpha_window("ntk_alpha", 4.0, 64, 10000.0) == (0.01, 1000.0)
    assert config_compute.chart_alpha_window("linear_factor", 0.01, 64, 10000.0) == (0.01, 1000.0)
    assert config_compute.chart_alpha_window("rope_theta", 4.0, 64, 10000.0) is None
    assert config_compute.chart_alpha_window("ntk_alpha", 4.1, 64, 10000.0) is None  # typed between two stops
    assert config_compute.chart_alpha_window("ntk_alpha", 0.1, 4, 10.0) is None  # below the window: 10·0.1² ≤ 1
    with pytest.raises(ValueError, match="theta must hold the 32 pairs"):
        charts.wavelength_live_chart(np.ones(5), head_dim=64, base=1e4, starts={}, title="t", subtitle="s")


def test_the_live_chart_draws_the_frames_wavelengths_at_random_d_and_b_of_its_sliders():
    """d and b are the chart's sliders too (the browser computes θ_j = b^(−2j/d)): at 40 random (α, d, b) (the
    transforms run here with numpy's pow), the lines are the frame's numbers at that d and b (θ from the loop above,
    Python's pow) to 1e-14; where b′ is no base (a small α, d and b) the NTK line is left out; the pair axis ends at
    d/2 − 1."""
    import _chartspec as cs

    from explorer.vocabulary import ALPHA_STOPS

    theta = posenc.inverse_frequencies(64, base=10000.0)
    window = config_compute.alpha_window(64, 10000.0)
    starts = {"ntk_alpha": 1.0, "head_dim": 64, "base": 10000.0}
    spec = cs.sent_spec(
        charts.wavelength_live_chart(theta, head_dim=64, base=10000.0, starts=starts, **text.WAVELENGTH_LIVE_WORDS)
    )
    bound = {p["name"]: p["bind"] for p in spec["params"] if "bind" in p}
    assert (bound["ntk_alpha"]["min"], bound["ntk_alpha"]["max"]) == (0, len(ALPHA_STOPS) - 1)  # every stop
    assert (bound["head_dim"]["min"], bound["head_dim"]["max"], bound["head_dim"]["step"]) == (4, 256, 2)
    assert (bound["base"]["min"], bound["base"]["max"]) == (0, len(charts.BASE_OPTIONS) - 1)
    rng = np.random.default_rng(9)
    no_base = 0
    for i in range(40):
        a = ALPHA_STOPS[int(rng.integers(ALPHA_STOPS.index(window[0]), ALPHA_STOPS.index(window[1]) + 1))]
        d = 64 if i == 0 else 2 * int(rng.integers(2, 129))
        b = 10000.0 if i == 0 else charts.BASE_OPTIONS[int(rng.integers(0, len(charts.BASE_OPTIONS)))]
        if i == 1:  # b′ = 10·0.01² is no base
            a, d, b = 0.01, 4, 10.0
        sliders = {"ntk_alpha": ALPHA_STOPS.index(a), "head_dim": d, "base": charts.BASE_OPTIONS.index(b)}
        rows = cs.view_rows(spec, **sliders)
        new_base = posenc.ntk_alpha_to_base(a, d, base=b)
        want = charts.wavelength_frame(theta_loop(d, b), theta_loop(d, max(new_base, 2.0)), a)
        for scheme in charts.COLORS:
            got = rows[rows.scheme == scheme].sort_values("j")
            expect = want[want.scheme == scheme].sort_values("j")
            if scheme == "NTK-aware (new base)" and not new_base > 1:
                assert got.empty, (a, d, b)
                no_base += 1
                continue
            assert got["j"].tolist() == list(range(d // 2))
            assert got["wavelength"].tolist() == pytest.approx(expect["wavelength"].tolist(), rel=1e-14), (a, d, b)
        domain_max = spec["encoding"]["x"]["scale"]["domainMax"]["expr"]
        assert cs.js_eval(domain_max, cs.spec_names(spec, **sliders)) == max(d // 2 - 1, 1)
    assert no_base >= 1
