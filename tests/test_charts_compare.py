"""Builders of "Compare methods" (explorer/charts/compare.py): the table cells and the chart."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from explorer.charts import compare
from posenc import attention as att

D, L, T = 8, 16, 40


@pytest.fixture(scope="module")
def checks():
    return [att.method_checks(m, dim=D, trained_len=L, test_len=T, seed=2, alibi_slope=0.25) for m in att.METHODS]


@pytest.fixture(scope="module")
def table(checks):
    return compare.summary_table(checks, trained_len=L, test_len=T, dim=D).set_index("Method")


def number_after(text: str, label: str) -> float:
    match = re.search(re.escape(label) + r" ([-+0-9.e]+)", text)
    assert match, f"{label!r} not in {text!r}"
    return float(match.group(1))


def fake_check(**changes):
    base = {
        "method": "rope",
        "shift_n": 8,
        "shift_offset": 8,
        "shift_deviation": 0.0,
        "score_spread": 1.0,
        "score_scale": 1.0,
        "permutation_gap": 0.5,
        "extrapolation_error": None,
        "distances": np.arange(T, dtype=float),
        "scores": np.linspace(-2, 1, T),
        "parameters": 0,
        "footprint": {"input": 0.0, "query": 1.0, "key": 1.0, "value": 0.0, "bias": 0.0},
        "bias_toeplitz_deviation": None,
    }
    base.update(changes)
    return base


def test_table_shape(table):
    assert list(table.columns) == list(compare.COLUMNS[1:])
    assert list(table.index) == ["Sinusoidal", "Learned absolute", "RoPE", "ALiBi", "NoPE (none)"]


def test_relative_column_matches_the_checks(table, checks):
    col = table[compare.COLUMNS[1]]
    by = {c["method"]: c for c in checks}
    for method, label in compare.METHOD_LABELS.items():
        cell = col[label]
        if method == "nope":
            assert cell.startswith("— no position signal")
            continue
        dev = by[method]["shift_deviation"]
        assert cell.startswith("✓" if dev < 1e-9 * max(1, by[method]["score_scale"]) else "✗")
        shown = number_after(cell, "max dev")
        assert shown == pytest.approx(dev, rel=1e-2, abs=1e-15)
    assert col["RoPE"].startswith("✓") and col["ALiBi"].startswith("✓")
    assert col["Sinusoidal"].startswith("✗") and col["Learned absolute"].startswith("✗")
    assert "constant along diagonals (dev 0)" in col["ALiBi"]


def test_order_column(table, checks):
    col = table[compare.COLUMNS[2]]
    assert col["NoPE (none)"].startswith("✗") and "blind to word order" in col["NoPE (none)"]
    for c in checks:
        shown = number_after(col[compare.METHOD_LABELS[c["method"]]], "gap")
        assert shown == pytest.approx(c["permutation_gap"], rel=1e-2, abs=1e-15)


def test_extrapolation_column(table, checks):
    col = table[compare.COLUMNS[3]]
    learned = next(c for c in checks if c["method"] == "learned")
    assert learned["extrapolation_error"] is not None  # the live check did fail …
    # … and the cell says why in plain words, not as a Python exception
    assert col["Learned absolute"] == (
        f"✗ a learned table has no row for positions ≥ L = {L}, so position {T - 1} cannot be scored"
    )
    assert "ValueError" not in col["Learned absolute"] and "max_len" not in col["Learned absolute"]
    for label in ("Sinusoidal", "RoPE", "ALiBi", "NoPE (none)"):
        assert col[label].startswith(f"✓ scores finite up to position {T - 1}")


def test_parameters_and_injects_columns(table):
    params = table[compare.COLUMNS[4]]
    assert params["Learned absolute"] == f"{L * D:,} = L·d = {L}·{D}"
    assert params["ALiBi"] == "0 (fixed slopes)"
    assert all(params[x].startswith("0 ") for x in ("Sinusoidal", "RoPE", "NoPE (none)"))
    inj = table[compare.COLUMNS[5]]
    assert inj["Sinusoidal"].startswith("added to the input vector")
    assert inj["Learned absolute"].startswith("added to the input vector")
    assert inj["RoPE"].startswith("rotates q and k") and "Δv 0" in inj["RoPE"]
    assert inj["ALiBi"].startswith("bias on the attention logits") and "bias Δ 2" in inj["ALiBi"]  # 0.25·8
    assert inj["NoPE (none)"].startswith("nowhere")


def test_verdicts_follow_the_tolerance():
    ok = fake_check(shift_deviation=5e-10)
    bad = fake_check(shift_deviation=5e-9)
    assert compare.relative_cell(ok).startswith("✓ max dev 5e-10")
    assert compare.relative_cell(bad).startswith("✗ max dev 5e-09")
    # tolerance scales with the score size
    assert compare.relative_cell(fake_check(shift_deviation=5e-9, score_scale=100.0)).startswith("✓")
    assert compare.order_cell(fake_check(permutation_gap=1e-17)).startswith("✗ gap 1e-17")
    # the verdict follows the check, not the method's name
    assert compare.extrapolation_cell(fake_check(extrapolation_error="boom"), test_len=T, trained_len=L) == (
        f"✗ could not score positions up to {T - 1}"
    )
    assert compare.extrapolation_cell(fake_check(method="learned"), test_len=T, trained_len=L).startswith("✓")


def test_fmt():
    assert compare.fmt(0) == "0"
    assert compare.fmt(3.2e-16) == "3e-16"
    assert compare.fmt(4.104) == "4.1"
    assert compare.fmt(0.0853) == "0.0853"


def luminance(hex_colour: str) -> float:
    rgb = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted([luminance(a), luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def css(text: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, v in (part.split(":") for part in text.split(";") if part.strip())}


def test_style_colours_verdicts(table):
    green, red = css(compare.verdict_color("✓ x")), css(compare.verdict_color("✗ x"))
    assert compare.verdict_color("— x") == ""  # the theme's own text colour
    html = compare.style_summary(table.reset_index()).to_html()
    for style in (green, red):
        assert style["color"] in html and style["background-color"] in html
    assert luminance(green["background-color"]) > luminance(green["color"])  # pale green, dark text
    assert red["color"] != green["color"]


def test_verdict_cells_are_legible_on_both_themes():
    """A ✓/✗ cell sets its text and its background together, so the theme behind the table (white
    or navy, .streamlit/config.toml) does not matter: the text contrasts ≥ 7:1 with its cell. A
    text colour alone (the old #B91C1C) had 2.9:1 on the dark theme's #0B1220."""
    for mark in ("✓", "✗"):
        style = css(compare.verdict_color(f"{mark} x"))
        assert set(style) == {"color", "background-color"}
        assert contrast(style["color"], style["background-color"]) >= 7
    # the method names carry no fixed colour (dark text on the dark theme was unreadable)
    styler = compare.style_summary(pd.DataFrame({"Method": ["RoPE"], "x": ["✓ y"]}))
    styler._compute()
    index_css = [rule for rules in styler.ctx_index.values() for rule in rules]
    assert ("font-weight", "bold") in index_css and not any(k == "color" for k, _ in index_css)


# ------------------------------------------------------------------------------------- chart
def test_score_curves_long_form(checks):
    df = compare.score_curves(checks)
    assert set(df["method"]) == set(compare.METHOD_LABELS.values())
    assert (df["method"] == "Learned absolute").sum() == L  # stops at L: no rows beyond
    assert (df["method"] == "RoPE").sum() == T
    rope = next(c for c in checks if c["method"] == "rope")
    np.testing.assert_array_equal(df.loc[df["method"] == "RoPE", "score"].to_numpy(), rope["scores"])


def test_score_by_distance_spec(checks):
    spec = compare.score_by_distance(compare.score_curves(checks), trained_len=L, test_len=T).to_dict()
    assert spec["facet"]["row"]["field"] == "method"
    assert spec["facet"]["row"]["sort"] == list(compare.METHOD_LABELS.values())
    assert spec["resolve"]["scale"]["y"] == "independent"
    line, rule, note = spec["spec"]["layer"]
    assert line["mark"]["type"] == "line"
    assert line["encoding"]["x"]["field"] == "distance" and line["encoding"]["y"]["field"] == "score"
    assert line["encoding"]["x"]["scale"]["domain"] == [0, T - 1]
    assert rule["mark"]["type"] == "rule" and rule["encoding"]["x"]["datum"] == L
    assert note["encoding"]["text"]["value"] == f"trained length L = {L}"
    assert "distance" in spec["title"]["text"]
    assert spec["config"]["axis"]["labelFontSize"] >= 13
    rows = spec["datasets"][spec["data"]["name"]]
    assert len(rows) == L + 4 * T
