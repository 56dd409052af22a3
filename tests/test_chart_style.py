"""Small builders of explorer.charts.style, checked against what Altair itself builds."""

from __future__ import annotations

import altair as alt
import pandas as pd
import pytest

from explorer.charts import style


@pytest.mark.parametrize(
    ("test", "then", "otherwise", "channel"),
    [
        ("datum.weight > datum.vmax * 0.55", "white", "#0F172A", "ColorValue"),
        ("datum.selected", 220, 12, "SizeValue"),
    ],
)
def test_when_is_altairs_condition_built_directly(test, then, otherwise, channel):
    """`style.when` gives an encoding the dict Altair's own `alt.condition` gives it (the reference)."""
    df = pd.DataFrame({"weight": [0.1], "vmax": [1.0], "selected": [True]})
    field = "color" if channel == "ColorValue" else "size"
    ours = (
        alt.Chart(df).mark_point().encode(**{field: style.when(test, then, otherwise, channel=getattr(alt, channel))})
    )
    theirs = alt.Chart(df).mark_point().encode(**{field: alt.condition(test, alt.value(then), alt.value(otherwise))})
    assert ours.to_dict()["encoding"] == theirs.to_dict()["encoding"]
    assert ours.to_dict()["encoding"][field] == {"condition": {"test": test, "value": then}, "value": otherwise}
