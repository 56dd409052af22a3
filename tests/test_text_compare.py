"""The sentences of "Compare methods" (explorer/text/compare.py): every table cell against the
check it reports (posenc.attention.method_checks, run here), the captions and the notices."""

from __future__ import annotations

import re

import numpy as np
import pytest

from explorer.text import compare
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
        "shift_positions": 8,
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


def test_shift_caption_states_the_tested_range(checks):
    n, t = L // 2, L - L // 2  # positions 0 … ⌊L/2⌋ − 1 shifted by the rest of L (the learned table's rows)
    said = compare.shift_caption(checks[0])
    assert f"over m, n < {n} with t = {t} (= L − {n}," in said


def test_settings_caption_repeats_the_settings():
    said = compare.settings_caption(
        dim=16, trained_len=64, test_len=200, base=10000.0, seed=4, alibi_head=2, slope=2**-2, heads=8
    )
    assert said.startswith("d = 16, L = 64, T = 200, base 10,000, seed 4, ALiBi slope 0.25 (head 2 of 8).")
    assert "Tolerance: 1e-09 × the score scale" in said


def test_notices_name_exactly_the_methods_that_pass(checks):
    by = {c["method"]: c for c in checks}
    # RoPE and ALiBi are relative (score a function of m − n); sinusoidal and learned are not (D, L here)
    for method in ("rope", "alibi"):
        assert by[method]["shift_deviation"] < 1e-9 * max(1.0, by[method]["score_scale"])
    for method in ("sinusoidal", "learned"):
        assert by[method]["shift_deviation"] > 1e-6
    first = compare.notices(checks)[0]
    assert first.startswith("Of the methods that carry position, **RoPE** and **ALiBi** pass the shift test")
    failing = [fake_check(method=m, shift_deviation=1.0) for m in ("sinusoidal", "rope")]
    assert compare.notices(failing)[0].startswith("No method that carries position passes")
    # NoPE's trivial pass is not counted
    assert compare.notices([fake_check(method="nope")])[0].startswith("No method")


@pytest.mark.parametrize("length", [16, 128, 999, 2048, 16384])
def test_the_rule_label_names_l_at_every_slider_value(length):
    """The label beside the chart's rule at L, a Vega expression evaluated as the browser does
    (tests/_chartspec), with L as a literal: the digits of L grouped by thousands."""
    from _chartspec import spec_value

    want = str(length) if length < 1000 else f"{length // 1000},{length % 1000:03d}"
    assert spec_value({}, compare.trained_label_expr(str(length))) == f"trained length L = {want}"
