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


ROW_CALLS: list[int] = []


def rows_builder(frame: pd.DataFrame, *, title: str) -> alt.Chart:
    ROW_CALLS.append(len(frame))
    return alt.Chart(frame).mark_line().encode(x="x:Q", y="y:Q").properties(title=title)


def copying_builder(frame: pd.DataFrame, *, title: str) -> alt.Chart:
    ROW_CALLS.append(len(frame))
    doubled = frame.assign(y=frame["y"] * 2)  # the table is not sent as given
    return alt.Chart(doubled).mark_line().encode(x="x:Q", y="y:Q").properties(title=title)


def test_rows_build_the_spec_once_per_columns_and_each_call_sends_its_own_rows():
    """`render.Rows(frame)`: calls whose tables have the same columns share one spec, built from the first table;
    each call's spec is the one a build from its own table gives (the same dict), with its rows as Streamlit sends
    them. New columns (or types) build anew; a builder that does not send the table as given is built every call."""
    render._shared_template.clear()
    ROW_CALLS.clear()

    def own(builder, frame, title="r"):
        return render.stable_dataset_names(render.compat.vega_lite_spec(builder(frame, title=title)))

    frames = [pd.DataFrame({"x": range(n), "y": [v * 0.5 for v in range(n)]}) for n in (3, 7, 5)]
    specs = [render.shared(rows_builder)(render.Rows(f), title="r").spec() for f in frames]
    assert ROW_CALLS == [3]  # the first table only
    for frame, spec in zip(frames, specs, strict=True):
        ROW_CALLS.clear()
        assert spec == own(rows_builder, frame)
    assert specs[1]["datasets"] != specs[2]["datasets"]
    ROW_CALLS.clear()
    floats = pd.DataFrame({"x": [0.5, 1.5], "y": [1.0, 2.0]})  # x as floats: other columns' types, a new spec
    assert render.shared(rows_builder)(render.Rows(floats), title="r").spec() == own(rows_builder, floats)
    assert ROW_CALLS == [2, 2]  # built for the cache, and here
    ROW_CALLS.clear()
    for frame in frames:
        assert render.shared(copying_builder)(render.Rows(frame), title="c").spec() == own(copying_builder, frame, "c")
    assert len(ROW_CALLS) == 1 + 3 + 3  # no template: each call builds (the first one for the cache too), and `own`


def test_rows_put_into_a_shared_spec_are_checked_by_the_builders_check():
    """The builder runs on the first table only; `Rows(check=…)` checks every call's table before it goes in."""
    render._shared_template.clear()

    def positive(frame: pd.DataFrame) -> None:
        if (frame["y"] < 0).any():
            raise ValueError("y must be >= 0")

    good = pd.DataFrame({"x": [0, 1], "y": [0.5, 1.0]})
    render.shared(rows_builder)(render.Rows(good, check=positive), title="v").spec()
    bad = pd.DataFrame({"x": [0, 1], "y": [0.5, -1.0]})
    try:
        render.shared(rows_builder)(render.Rows(bad, check=positive), title="v").spec()
    except ValueError as err:
        assert "y must be >= 0" in str(err)
    else:
        raise AssertionError("a bad table went into the shared spec unchecked")


def test_a_chart_built_for_the_dark_card_is_saved_as_built_for_the_light_one(monkeypatch):
    """The saved files are drawn on the light card (explorer.chartfile): a chart that paints its own colours for the
    dark card (`render.themed`: an image on a diverging map) is saved as the same call built with dark=False, made only
    when the popover asks for it; the dark one is what the page shows."""
    import numpy as np

    import posenc
    from explorer import render
    from explorer.charts import sinusoidal as sin_charts

    got: dict = {}
    monkeypatch.setattr(render, "chart_files", lambda spec, name, **kw: got.update(saved=spec, name=name))
    monkeypatch.setattr(render, "dark_theme", lambda: True)

    class Box:  # a container: what the page shows
        def vega_lite_chart(self, spec, **kwargs):
            got["shown"] = spec

    pe = posenc.sinusoidal_encoding(np.arange(12), 8)
    args = dict(kind="similarity", scheme="redblue", d_model=8)
    render.show_chart(render.themed(sin_charts.matrix_heatmap)(pe @ pe.T, **args), container=Box(), save_as="sim")
    assert callable(got["saved"]) and got["name"] == "sim"  # not built until the popover is open
    light = render.shared(sin_charts.matrix_heatmap)(pe @ pe.T, **args, dark=False).spec()
    dark = render.shared(sin_charts.matrix_heatmap)(pe @ pe.T, **args, dark=True).spec()
    assert light != dark  # the two cards' images differ
    assert got["saved"]() == light
    # a chart that draws the same on either card is saved as shown
    render.show_chart(render.shared(sin_charts.matrix_heatmap)(pe @ pe.T, **args), container=Box(), save_as="sim")
    assert got["saved"] == light
