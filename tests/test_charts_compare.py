"""Builders of "Compare methods" (explorer/charts/compare.py): the table's colours and the chart."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from explorer.charts import compare
from explorer.text.compare import METHOD_LABELS, summary_table
from posenc import attention as att

D, L, T = 8, 16, 40


@pytest.fixture(scope="module")
def checks():
    return [att.method_checks(m, dim=D, trained_len=L, test_len=T, seed=2, alibi_slope=0.25) for m in att.METHODS]


@pytest.fixture(scope="module")
def table(checks):
    return summary_table(checks, trained_len=L, test_len=T, dim=D).set_index("Method")


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
    assert set(df["method"]) == set(METHOD_LABELS.values())
    assert (df["method"] == "Learned absolute").sum() == L  # stops at L: no rows beyond
    assert (df["method"] == "RoPE").sum() == T
    rope = next(c for c in checks if c["method"] == "rope")
    np.testing.assert_array_equal(df.loc[df["method"] == "RoPE", "score"].to_numpy(), rope["scores"])


def test_score_by_distance_spec(checks):
    spec = compare.score_by_distance(compare.score_curves(checks), trained_len=L, test_len=T).to_dict()
    assert spec["facet"]["row"]["field"] == "method"
    assert spec["facet"]["row"]["sort"] == list(METHOD_LABELS.values())
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
