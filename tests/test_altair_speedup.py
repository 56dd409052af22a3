"""explorer.altair_speedup: Altair's shorthand -> channel conversion shares one class table.

The patch must change nothing but the cost: charts serialise to the same specs with and without
it, the table is built once, and `to_dict()` still validates (the chart tests rely on it)."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd
import pytest
from altair.utils import schemapi

from explorer import altair_speedup


def _charts() -> list[alt.TopLevelMixin]:
    df = pd.DataFrame({"p": np.arange(5), "v": np.linspace(-1, 1, 5), "k": list("aabbc")})
    line = (
        alt.Chart(df)
        .mark_line()
        .encode(
            x="p:Q",
            y=alt.Y("v:Q", title="value"),
            color="k:N",
            tooltip=["p:Q", "v:Q", {"field": "k", "type": "nominal"}],
        )
    )
    rule = alt.Chart(df).mark_rule().encode(y=alt.datum(0.5), strokeDash=alt.value([4, 2]))
    text = alt.Chart(df).mark_text(dx=4).encode(x="p:Q", y="v:Q", text=alt.Text("v:Q", format=".2f"))
    bars = alt.Chart(df).mark_bar().encode(x="k:N", y="sum(v):Q", opacity=alt.value(0.5))
    return [line, alt.layer(line, rule, text).properties(width=300), bars]


def _specs() -> list[dict]:
    return [chart.to_dict() for chart in _charts()]


def test_install_is_active_and_idempotent():
    assert altair_speedup.install() is True
    assert altair_speedup.install() is True
    assert hasattr(schemapi._FromDict.__init__, "__wrapped__")


def test_specs_are_identical_with_and_without_the_patch(monkeypatch):
    altair_speedup.install()
    patched = _specs()
    monkeypatch.setattr(schemapi._FromDict, "__init__", schemapi._FromDict.__init__.__wrapped__)
    original = _specs()
    assert patched == original
    assert patched[0]["encoding"]["x"] == {"field": "p", "type": "quantitative"}


def test_the_class_table_is_built_once(monkeypatch):
    altair_speedup.install()
    alt.X.from_dict({"shorthand": "p:Q"}, validate=False)  # the table exists now
    calls = {"n": 0}
    original_hash = schemapi._FromDict.hash_schema.__func__

    def counting(cls, schema, use_json=True):
        calls["n"] += 1
        return original_hash(cls, schema, use_json)

    monkeypatch.setattr(schemapi._FromDict, "hash_schema", classmethod(counting))
    _specs()
    # Without the shared table every shorthand hashed all ~900 schemas again (thousands of calls);
    # with it, only the schemas being converted are hashed.
    assert 0 < calls["n"] < 200, calls["n"]


def test_to_dict_still_validates():
    altair_speedup.install()
    chart = alt.Chart(pd.DataFrame({"a": [1]}), width="not a width").mark_point().encode(x="a:Q")
    with pytest.raises(schemapi.SchemaValidationError):
        chart.to_dict()
