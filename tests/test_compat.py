"""explorer.compat: one test per Streamlit/Altair internal, each failing loudly when an upgrade
removes or changes it (see the module's docstring for what each buys and what breaks without it).

The Altair patch must change nothing but the cost: charts serialise to the same specs with and
without it, the table is built once, and `to_dict()` still validates (the chart tests rely on it)."""

from __future__ import annotations

from pathlib import Path

import altair as alt
import jsonschema
import numpy as np
import pandas as pd
import pytest
from altair.utils import schemapi

from explorer import assets, compat

ROOT = Path(__file__).resolve().parent.parent


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
    assert compat.install_altair_speedup() is True
    assert compat.install_altair_speedup() is True
    assert hasattr(schemapi._FromDict.__init__, "__wrapped__")


def _patched_and_original(monkeypatch, build, *undo: tuple[object, str, object]) -> tuple[list, list]:
    """`build()` with the app's patches, then again with each (owner, name, original) put back."""
    patched = build()
    for owner, name, original in undo:
        monkeypatch.setattr(owner, name, original)
    return patched, build()


def test_specs_are_identical_with_and_without_the_patch(monkeypatch):
    compat.install_altair_speedup()
    patched, original = _patched_and_original(
        monkeypatch, _specs, (schemapi._FromDict, "__init__", schemapi._FromDict.__init__.__wrapped__)
    )
    assert patched == original
    assert patched[0]["encoding"]["x"] == {"field": "p", "type": "quantitative"}


def _layered_with_params() -> list[alt.TopLevelMixin]:
    """Compound charts the way the builders make them: params on a layer, then `.properties()`
    and ``configure_*`` on the whole (each a copy of the compound chart)."""
    df = pd.DataFrame({"x": np.arange(6), "y": np.arange(6) ** 2})
    hover = alt.selection_point(on="pointerover", fields=["x"], name="hover")
    points = alt.Chart(df).mark_point().encode(x="x:Q", y="y:Q").add_params(hover)
    line = alt.Chart(df).mark_line().encode(x="x:Q", y="y:Q")
    text = alt.Chart(df).mark_text().encode(x="x:Q", y="y:Q", text="y:Q").transform_filter(hover)
    layered = alt.layer(points, line, text).properties(width=200, title="t").configure_axis(labelFontSize=14)
    stacked = alt.vconcat(line.properties(height=50), points).properties(title="s")
    return [layered, stacked, alt.layer(line, text.properties(width=120)).properties(height=80)]


def test_compound_copies_and_unvalidated_properties_give_identical_specs(monkeypatch):
    compat.install_altair_speedup()
    patched, original = _patched_and_original(
        monkeypatch,
        lambda: [c.to_dict() for c in _layered_with_params()],
        (schemapi.SchemaBase, "copy", schemapi.SchemaBase.copy.__wrapped__),
        (schemapi.SchemaBase, "validate_property", classmethod(schemapi.SchemaBase.validate_property.__wrapped__)),
    )
    assert patched == original
    assert patched[0]["params"][0]["name"] == "hover"  # the layer's param, moved to the top


def test_lifting_params_without_validating_each_gives_identical_specs(monkeypatch):
    """A layer chart's params are lifted without validating each one again (`_viewless_dict`): the same specs, and
    no jsonschema validation while the chart is put together (the finished chart's `to_dict` still validates)."""
    from altair.vegalite.v6 import api

    compat.install_altair_speedup()
    assert hasattr(api._viewless_dict, "__wrapped__") and hasattr(api._prepare_to_lift, "__wrapped__")
    validated = []
    original_validate = schemapi.SchemaBase.validate.__func__

    def counting(cls, instance, schema=None):
        validated.append(cls.__name__)
        return original_validate(cls, instance, schema)

    monkeypatch.setattr(schemapi.SchemaBase, "validate", classmethod(counting))
    _layered_with_params()
    assert validated == []  # building: nothing validated
    patched, original = _patched_and_original(
        monkeypatch,
        lambda: [c.to_dict() for c in _layered_with_params()],
        (api, "_viewless_dict", api._viewless_dict.__wrapped__),
        (api, "_prepare_to_lift", api._prepare_to_lift.__wrapped__),
    )
    assert patched == original
    assert validated  # the finished charts' to_dict validates them


def test_a_deep_copy_is_the_same_chart_and_independent_of_it(monkeypatch):
    compat.install_altair_speedup()
    charts = [*_layered_with_params(), alt.vconcat(_layered_with_params()[2], _layered_with_params()[2])]
    patched, original = _patched_and_original(
        monkeypatch,
        lambda: [c.copy().to_dict() for c in charts],
        (schemapi, "_deep_copy", schemapi._deep_copy.__wrapped__),
    )
    assert patched == original == [c.to_dict() for c in charts]


def test_a_deep_copy_shares_nothing_that_can_change():
    compat.install_altair_speedup()
    layered = _layered_with_params()[0]
    copy = layered.copy()
    assert copy is not layered and copy.layer is not layered.layer
    assert copy.layer[0] is not layered.layer[0] and copy.layer[0].encoding is not layered.layer[0].encoding
    copy.layer[0].mark = "bar"
    copy.layer[1].encoding.x = alt.X("y:Q")
    assert layered.to_dict()["layer"][0]["mark"] == {"type": "point"}
    assert layered.to_dict()["layer"][1]["encoding"]["x"]["field"] == "x"


def test_a_deep_copy_does_not_rerun_a_compound_charts_constructor(monkeypatch):
    compat.install_altair_speedup()
    stacked = _layered_with_params()[1]  # a vconcat whose sub-charts carry a param
    calls = {"n": 0}
    original_init = alt.VConcatChart.__init__

    def counting(self, *args, **kwargs):
        calls["n"] += 1
        original_init(self, *args, **kwargs)

    monkeypatch.setattr(alt.VConcatChart, "__init__", counting)
    stacked.copy()
    # Altair's own deep copy built the chart again (and its constructor deep-copied every sub-chart).
    assert calls["n"] == 0


def test_a_shallow_copy_of_a_layer_does_not_rebuild_it():
    compat.install_altair_speedup()
    df = pd.DataFrame({"x": [1, 2]})
    layered = alt.layer(alt.Chart(df).mark_point().encode(x="x:Q"), alt.Chart(df).mark_rule().encode(x="x:Q"))
    copy = layered.properties(width=100)
    # Without the patch LayerChart's constructor ran again and deep-copied every layer.
    assert copy.layer[0] is layered.layer[0]
    assert copy.width == 100 and layered.width is alt.Undefined  # the original is unchanged
    assert copy.to_dict()["width"] == 100


def test_properties_are_checked_only_by_to_dict():
    compat.install_altair_speedup()
    chart = alt.Chart(pd.DataFrame({"a": [1]})).mark_point().encode(x="a:Q").properties(width="not a width")
    with pytest.raises(schemapi.SchemaValidationError):
        chart.to_dict()
    with schemapi.debug_mode(True), pytest.raises(jsonschema.ValidationError):  # Altair's own check, kept there
        alt.Chart(pd.DataFrame({"a": [1]})).mark_point().properties(width="not a width")


def _method_api_specs() -> list[dict]:
    df = pd.DataFrame({"p": [0, 1, 2], "v": [0.5, -1.0, 2.0]})
    chart = (
        alt.Chart(df)
        .mark_line()
        .encode(
            x=alt.X("p:Q").axis(title="position", grid=False).scale(zero=False),
            y=alt.Y("v:Q").title("value").scale(domain=[-2, 2]),
            color=alt.Color("v:Q").legend(orient="top").scale(scheme="viridis"),
        )
    )
    return [chart.to_dict(), alt.layer(chart, chart.mark_point()).to_dict()]


def test_the_method_api_gives_identical_specs_with_and_without_the_bound_setters(monkeypatch):
    compat.bind_altair_property_setters()
    patched, original = _patched_and_original(
        monkeypatch,
        _method_api_specs,
        (schemapi._PropertySetter, "__get__", schemapi._PropertySetter.__get__.__wrapped__),
    )
    assert patched == original
    assert patched[0]["encoding"]["x"]["axis"] == {"title": "position", "grid": False}


def test_a_property_setter_stays_with_the_chart_it_came_from():
    """Altair kept the chart on one setter shared by all: taking `b.axis` between `a.axis` and its call
    (another session's script, on another thread) made the call set b's axis."""
    compat.bind_altair_property_setters()
    a, b = alt.X("a:Q"), alt.X("b:Q")
    set_a = a.axis
    set_b = b.axis
    assert set_a(title="A").to_dict() == {"field": "a", "type": "quantitative", "axis": {"title": "A"}}
    assert set_b(title="B").to_dict() == {"field": "b", "type": "quantitative", "axis": {"title": "B"}}
    assert a.to_dict() == {"field": "a", "type": "quantitative"}  # a copy was changed, not a itself


def test_the_setters_are_bound_even_with_the_public_alternatives(monkeypatch):
    """EXPLORER_PUBLIC_ONLY switches the speed internals off, never this correctness fix."""
    import explorer.render  # noqa: F401  (installs what the app installs)

    monkeypatch.setattr(
        compat,
        "PUBLIC",
        frozenset(
            {
                "chart_conversion",
                "altair_speedup",
                "gc_freeze",
                "chunk_preload",
                "component_scan",
            }
        ),
    )
    compat.bind_altair_property_setters()
    assert hasattr(schemapi._PropertySetter.__get__, "__wrapped__")
    a = alt.X("a:Q")
    assert type(a.axis).__name__ == "_BoundSetter" and a.axis.obj is a


def test_the_setters_keep_their_documentation_on_the_class():
    compat.bind_altair_property_setters()
    assert "Parameters" in (alt.X.axis.__doc__ or "")  # help(alt.X.axis) as Altair wrote it


def test_the_class_table_is_built_once(monkeypatch):
    compat.install_altair_speedup()
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
    compat.install_altair_speedup()
    chart = alt.Chart(pd.DataFrame({"a": [1]}), width="not a width").mark_point().encode(x="a:Q")
    with pytest.raises(schemapi.SchemaValidationError):
        chart.to_dict()


# ----------------------------------------------------------------------------- page paths
#: Streamlit's rule for a legacy pages/ file, typed here: the number orders, "_" and " " runs
#: become one "_", a leading emoji is the icon; the entry script is the root.
PATHS = {
    "app.py": ("", (-1.0, "")),
    "pages/1_Sinusoidal_heatmap.py": ("Sinusoidal_heatmap", (1.0, "sinusoidal_heatmap")),
    "pages/10_Inside_a_real_model.py": ("Inside_a_real_model", (10.0, "inside_a_real_model")),
    "pages/3_🎉_Party  time.py": ("Party_time", (3.0, "🎉_party  time")),
    "pages/Toy page.py": ("Toy_page", (float("inf"), "toy page")),
}


@pytest.mark.parametrize("script", PATHS)
def test_page_url_path_and_order_follow_streamlits_rule(script):
    assert (compat.page_url_path(script), compat.page_order(script)) == PATHS[script]


def test_every_page_is_served_where_streamlit_says():
    """Inside a script run, Streamlit's public ``st.Page(path).url_path`` agrees for every page."""
    from streamlit.testing.v1 import AppTest

    from explorer.manifest import PAGES

    def script(root: str) -> None:
        from pathlib import Path

        import streamlit as st

        from explorer.manifest import PAGES

        for page in PAGES[1:]:
            st.text(f"{page.script} {st.Page(Path(root) / page.script).url_path}")

    at = AppTest.from_function(script, args=(str(ROOT),), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert [t.value for t in at.text] == [f"{p.script} {p.url_path}" for p in PAGES[1:]]
    assert all((ROOT / p.script).is_file() for p in PAGES) and PAGES[1].url_path == "Sinusoidal_heatmap"


# ------------------------------------------------------------------------------- versions
def test_the_versions_the_internals_were_checked_on():
    """An upgrade must be a decision: re-check every internal below, then update CHECKED_VERSIONS."""
    import streamlit

    assert streamlit.__version__ == compat.CHECKED_VERSIONS["streamlit"], (
        f"Streamlit {streamlit.__version__} is not the version explorer.compat was checked on; "
        "re-run tests/test_compat.py and bench/bench_compat.py and update CHECKED_VERSIONS"
    )
    assert alt.__version__ == compat.CHECKED_VERSIONS["altair"]


# ------------------------------------------------------------------------ Streamlit internals
def test_query_params_internals_exist():
    from streamlit.runtime.state.query_params import QueryParams

    for name in ("remove_param", "set_corrected_value"):
        assert callable(getattr(QueryParams, name, None)), f"QueryParams.{name} is gone"
    assert "_initial_query_params" in QueryParams.__dataclass_fields__ or hasattr(
        QueryParams(), "_initial_query_params"
    )


def test_script_run_context_fields_exist():
    import dataclasses

    from streamlit.runtime.scriptrunner_utils.script_run_context import ScriptRunContext

    fields = {f.name for f in dataclasses.fields(ScriptRunContext)}
    assert {"cursors", "is_history_navigation", "session_id"} <= fields, fields


def test_session_liveness_internals_exist():
    """The lab's job queue asks the runtime whether a session is connected (explorer.jobs)."""
    from streamlit import runtime
    from streamlit.runtime import Runtime
    from streamlit.runtime.websocket_session_manager import WebsocketSessionManager

    assert callable(Runtime.is_active_session) and callable(WebsocketSessionManager.is_active_session)
    assert callable(runtime.exists) and callable(runtime.get_instance)
    # no server runtime in a test process: "unknown", so the queue falls back to heartbeats
    assert not runtime.exists() and compat.session_is_connected("nobody") is None
    assert compat.session_id() is None


def test_set_url_param_and_run_marker_work_in_a_real_run():
    """A script that removes a bound parameter, rewrites another, and records the run marker twice
    (the same object within a run, a new one in the next run)."""
    from streamlit.testing.v1 import AppTest

    def script():
        import streamlit as st

        from explorer import compat

        st.slider("a", 0, 10, 1, key="a", bind="query-params")
        st.slider("b", 0, 10, 1, key="b", bind="query-params")
        compat.set_url_param("a", None)
        compat.set_url_param("b", "7")
        marker = compat.run_marker()
        assert marker is compat.run_marker()
        seen = st.session_state.setdefault("markers", [])
        seen.append(id(marker))
        st.write(len(set(seen)), len(seen))
        st.write(compat.is_history_navigation())

    at = AppTest.from_function(script)
    at.query_params["a"] = "3"
    at.query_params["b"] = "2"
    at.run()
    assert not at.exception, at.exception
    assert "a" not in at.query_params and at.query_params["b"] == "7"
    at.run()
    assert not at.exception
    assert at.session_state["markers"][0] != at.session_state["markers"][1]


def test_vega_lite_spec_is_streamlits_conversion_without_validation():
    chart = _charts()[1]
    spec = compat.vega_lite_spec(chart)
    assert spec["layer"] and spec["width"] == 300
    # Data travels as Arrow bytes (Streamlit's own transformer), not as inline rows.
    assert spec["datasets"] and all(isinstance(v, bytes) for v in spec["datasets"].values())


def test_public_only_names_each_speed_internal_or_all_of_them():
    """EXPLORER_PUBLIC_ONLY: "" / "0" none, "1" all three, a list of names just those; an unknown
    name is refused with the allowed names (a typo must not silently measure the app as it runs)."""
    assert compat._public_only("") == frozenset() == compat._public_only("0")
    assert compat._public_only("1") == {
        "chart_conversion",
        "altair_speedup",
        "gc_freeze",
        "chunk_preload",
        "component_scan",
    }
    assert compat._public_only("gc_freeze") == {"gc_freeze"}
    assert compat._public_only(" chart_conversion , altair_speedup") == {"chart_conversion", "altair_speedup"}
    with pytest.raises(ValueError, match="gc_frezee"):
        compat._public_only("gc_frezee")


def test_the_preloaded_front_end_modules_exist_in_the_pinned_streamlit():
    """If an upgrade renames or splits them, the preload silently stops helping: fail here instead."""
    found = compat.chart_code_chunks()
    assert [name.split(".")[0] for name in found] == list(compat.CHUNK_PREFIXES), found
    folder = compat._static_js_dir()
    for name in found:
        assert (folder / name).stat().st_size > 10_000, name  # the modules themselves, not stubs
    # vega-embed is what the chart module brings with it (the largest download of a first chart)
    assert "embed." in (folder / found[0]).read_text()


def test_chunks_found_once_each_or_left_out(tmp_path):
    for name in ("ArrowVegaLiteChart.abc123.js", "rehype-katex.X1.js", "rehype-katex.X2.js", "other.Y.js"):
        (tmp_path / name).write_text("//")
    assert compat._chunks_in(tmp_path) == ("ArrowVegaLiteChart.abc123.js",)  # katex twice: ambiguous
    assert compat._chunks_in(tmp_path / "missing") == ()


def test_no_preload_when_its_public_alternative_is_chosen(monkeypatch):
    monkeypatch.setattr(compat, "PUBLIC", frozenset({"chunk_preload"}))
    assert compat.chart_code_chunks() == ()


def test_the_preload_script_takes_only_chunk_names_and_is_empty_without_them():
    """Nothing but file names of the strict pattern ever goes into the script (it runs as JavaScript)."""
    assert assets.preload_js(()) == ""
    for bad in ("x.js'", "a.b.js</script>", "../a.b.js", "a.b.js\n", "a.js"):
        with pytest.raises(ValueError, match="chunks must be file names"):
            assets.preload_js(("ArrowVegaLiteChart.C1.js", bad))
    script = assets.preload_js(("ArrowVegaLiteChart.C1.js", "rehype-katex.Y2.js"))
    assert "['ArrowVegaLiteChart.C1.js', 'rehype-katex.Y2.js']" in script
    assert script.startswith("<script>") and script.count("<") == 2  # its own tags, nothing else


# ------------------------------------------------------------------ the quick component scan (server start)
class _Dist:
    """A stand-in for an importlib.metadata distribution: its metadata files' texts (None: absent)."""

    def __init__(self, metadata: str | None = None, pkg_info: str | None = None, broken: bool = False):
        self.files = {"METADATA": metadata, "PKG-INFO": pkg_info}
        self.broken = broken

    def read_text(self, name: str) -> str | None:
        if self.broken:
            raise OSError("unreadable")
        return self.files.get(name)


def _stock_filter():
    from streamlit.components.v2 import manifest_scanner

    return (
        compat._SCAN_INSTALLED[0] if compat._SCAN_INSTALLED else manifest_scanner._is_likely_streamlit_component_package
    )


def test_the_quick_component_filter_agrees_with_streamlits_on_every_installed_distribution():
    """The same answer for each of this environment's distributions (torch, transformers, streamlit itself, …): the
    components Streamlit finds at start are the same with and without it."""
    import importlib.metadata

    stock = _stock_filter()
    dists = list(importlib.metadata.distributions())
    assert len(dists) > 50  # the environment, not an empty path
    answers = {d.metadata["Name"]: (compat.quick_component_filter(d, stock), stock(d)) for d in dists}
    assert all(quick == slow for quick, slow in answers.values()), {k: v for k, v in answers.items() if v[0] != v[1]}
    assert answers["streamlit"] == (True, True)  # one it must hand on (the name)
    assert answers["numpy"] == (False, False)


@pytest.mark.parametrize(
    ("dist", "streamlits"),
    [
        (_Dist("Metadata-Version: 2.1\nName: st-clock\nSummary: a clock\n"), True),  # the name alone
        (_Dist("Metadata-Version: 2.1\nName: St_Clock\n"), True),
        (_Dist("Metadata-Version: 2.1\nName: plots\nSummary: Charts for STREAMLIT\n"), True),
        (_Dist("Metadata-Version: 2.1\nName: plots\nRequires-Dist: streamlit>=1.40\n"), True),
        (_Dist(None, "Metadata-Version: 1.0\nName: plots\nSummary: a Streamlit widget\n"), True),  # egg-info
        (_Dist("Metadata-Version: 2.1\nName: plots\nSummary: charts\n\nstreamlit is not a word here\n"), False),
        (_Dist("Metadata-Version: 2.1\nName: stats\nSummary: statistics\n"), False),
        (_Dist("Metadata-Version: 2.1\nName: plots\nSummary: charts\n"), False),
    ],
)
def test_the_quick_component_filter_asks_streamlit_wherever_it_could_say_yes(dist, streamlits):
    """Streamlit's filter is consulted for every text it could accept (and returns `streamlits`); a text it cannot
    accept is answered False without it."""
    asked = []

    def stock(d):
        asked.append(d)
        return streamlits

    answer = compat.quick_component_filter(dist, stock)
    text = (dist.files["METADATA"] or dist.files["PKG-INFO"]).lower()
    could = "streamlit" in text or "name: st-" in text or "name: st_" in text
    assert asked == ([dist] if could else [])
    assert answer is (streamlits if could else False)


def test_an_unreadable_distribution_is_left_to_streamlit():
    for dist in (_Dist(broken=True), _Dist(None, None)):
        assert compat.quick_component_filter(dist, lambda d: True) is True


def test_serve_installs_the_quick_filter_before_the_runtime_starts(tmp_path):
    """serve.py, run as Streamlit loads it: afterwards Streamlit's scan goes through the quick filter, and the scan
    finds what it found before (none here; the same list either way)."""
    import subprocess
    import sys

    probe = (
        "import runpy, sys; sys.path.insert(0, '.');"
        "from streamlit.components.v2 import manifest_scanner as m; before = m._is_likely_streamlit_component_package;"
        "found = m.scan_component_manifests();"
        "runpy.run_path('serve.py', run_name='serve');"
        "after = m._is_likely_streamlit_component_package;"
        "print(after is not before, after.__qualname__, m.scan_component_manifests() == found)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert out.strip().splitlines()[-1] == "True install_quick_component_scan.<locals>.quick True", out
