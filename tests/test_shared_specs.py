"""explorer.render.shared: chart specs cached across sessions (issue #12: do not pay twice for the same view)."""

from __future__ import annotations

import altair as alt
import pandas as pd
from _apptest import page_path, run_page

from explorer import render

CALLS: list[tuple] = []


def counted_builder(n: int, title: str) -> alt.Chart:
    CALLS.append((n, title))
    return (
        alt.Chart(pd.DataFrame({"x": range(n), "y": range(n)})).mark_line().encode(x="x", y="y").properties(title=title)
    )


def test_equal_arguments_build_once_and_share_one_spec():
    render._shared_spec.clear()
    CALLS.clear()
    first = render.shared(counted_builder)(3, title="t").spec()
    again = render.shared(counted_builder)(3, title="t").spec()
    other = render.shared(counted_builder)(4, title="t").spec()
    assert CALLS == [(3, "t"), (4, "t")]  # the second equal call was served from the cache
    assert again is first and other is not first
    assert first["title"] == "t"


def test_a_shared_chart_still_behaves_as_the_altair_chart_it_builds():
    chart = render.shared(counted_builder)(2, title="u")
    assert chart.to_dict()["title"] == "u"  # attribute access builds the chart


def test_styling_never_modifies_the_shared_spec():
    render._shared_spec.clear()
    spec = render.shared(counted_builder)(3, title="v").spec()
    before = repr(spec)
    from explorer.charts.style import style_spec

    style_spec(spec, presenting=True, dark=True)
    assert repr(spec) == before


def test_a_second_session_on_the_same_link_converts_no_chart(monkeypatch):
    # AppTest runs the page in this process, so counting explorer.compat's conversions counts the
    # chart specs a page run builds.
    from explorer import compat

    converted = []
    original = compat.vega_lite_spec
    monkeypatch.setattr(compat, "vega_lite_spec", lambda chart: converted.append(1) or original(chart))
    render._shared_spec.clear()
    first = run_page(page_path("app.py"))
    n_first = len(converted)
    assert n_first >= 2 and len(first.get("vega_lite_chart")) == n_first
    second = run_page(page_path("app.py"))  # a new session, same URL
    assert not second.exception
    assert len(converted) == n_first  # every chart of the home page came from the shared cache
    assert [c.proto.spec for c in second.get("vega_lite_chart")] == [c.proto.spec for c in first.get("vega_lite_chart")]


def test_dataset_names_do_not_depend_on_the_numbers():
    """New numbers with an unchanged chart give an unchanged spec: the browser then replaces the
    rows and keeps the chart (Streamlit compares the spec) instead of building it anew."""
    import altair as alt
    import pandas as pd

    from explorer import compat
    from explorer.render import stable_dataset_names

    def spec(values: list[float]) -> dict:
        df = pd.DataFrame({"x": [0, 1, 2], "y": values})
        line = alt.Chart(df).mark_line().encode(x="x:Q", y="y:Q")
        dots = alt.Chart(df.assign(y=df["y"] * 2)).mark_point().encode(x="x:Q", y="y:Q")
        return stable_dataset_names(compat.vega_lite_spec(alt.layer(line, dots)))

    a, b = spec([0.0, 1.0, 2.0]), spec([0.0, 3.0, 2.0])
    assert list(a["datasets"]) == list(b["datasets"]) == ["data-0", "data-1"]
    assert [layer["data"] for layer in a["layer"]] == [{"name": "data-0"}, {"name": "data-1"}]
    assert {k: v for k, v in a.items() if k != "datasets"} == {k: v for k, v in b.items() if k != "datasets"}
    assert a["datasets"]["data-0"] != b["datasets"]["data-0"]  # the numbers themselves did change


def test_a_keyed_argument_is_hashed_by_its_key_and_passed_as_its_value():
    """`render.Keyed(key, value)`: the shared cache tells calls apart by the key alone (the home chart's tables of
    every d are not hashed on every run) and the builder gets the value."""
    render._shared_spec.clear()
    CALLS.clear()
    first = render.shared(counted_builder)(render.Keyed(("n", 3), 3), title="k").spec()
    same_key = render.shared(counted_builder)(render.Keyed(("n", 3), 3), title="k").spec()
    other_key = render.shared(counted_builder)(render.Keyed(("n", 4), 4), title="k").spec()
    assert CALLS == [(3, "k"), (4, "k")]  # built with the values; the second call found the first's spec
    assert same_key is first and other_key is not first

    class Unhashable:  # a value the cache must not look at: its key says what it is
        def __reduce__(self):
            raise AssertionError("the value was hashed")

    assert render.shared(counted_builder)(render.Keyed(("n", 3), Unhashable()), title="k").spec() is first
    assert render.shared(counted_builder)(render.Keyed(("n", 5), 5), title="k").to_dict()["title"] == "k"
