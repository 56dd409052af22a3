"""Vega writes a calculate transform's result into the datum itself and, when a signal changes, re-runs only the
transforms downstream of it: a calculate that reads the field it writes would then read its own earlier result
(session 38: Llama 3's band factor and YaRN's ramp end kept stale numbers after one slider moved alone). The
Python evaluation of the transforms (tests/_chartspec.py) starts afresh each time and cannot see it, so every
page's charts, as drawn at the defaults, are checked here for such a calculate."""

from __future__ import annotations

from pathlib import Path

import _chartspec as cs
import pytest
from streamlit.testing.v1 import AppTest

from explorer.manifest import PAGES

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.slug)
def test_no_chart_has_a_calculate_that_reads_the_field_it_writes(page):
    at = AppTest.from_file(str(ROOT / page.script), default_timeout=300)
    at.run()
    assert not at.exception
    elements = [*at.get("arrow_vega_lite_chart"), *at.get("vega_lite_chart")]
    specs = [cs.element_spec(e) for e in elements]
    assert specs, f"{page.slug}: no chart drawn"
    assert [f for spec in specs for f in cs.self_reading_calculates(spec)] == []


def test_the_check_finds_one():
    spec = {"layer": [{"transform": [{"calculate": "datum.inv * 2", "as": "inv"}]}]}
    assert cs.self_reading_calculates(spec) == [("inv", "datum.inv * 2")]
    assert cs.self_reading_calculates({"calculate": "datum['x'] + 1", "as": "x"}) == [("x", "datum['x'] + 1")]
    assert cs.self_reading_calculates({"calculate": "datum.inv_band", "as": "inv"}) == []
