"""Adding a page is four files (docs/ARCHITECTURE.md, "Recipes"), and everything else is
derived from its declaration. In a copy of the repository, a toy page is added as its declaration
(one parameter, one tour step), its script (one slider, one chart), its chart builder and its test,
and nothing else is edited; then, in that copy: the manifest lists it, the home page's navigation
links to it, its tour step opens by its id with its value and narration, its deep link and share
link hold its parameter, the widget fuzz, the end-to-end and the layout tests are parametrized over
it (``pytest --collect-only``), and the page renders in AppTest without an exception.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The four files of the toy page (paths relative to the repository).
TOY = {
    "explorer/site/toy.py": '''
        """The toy page (pages/11_Toy_page.py)."""

        from explorer.pagespec import BenchSettings, DeepLink, Page, Step
        from explorer.paramspec import Param
        from explorer.snippets import HEADER, fill


        def snippet(v):
            return HEADER + fill("print(posenc.wavelengths(2 * $n))\\n", n=int(v["toy_n"]))


        PAGE = Page(
            script="pages/11_Toy_page.py",
            slug="toy",
            title="Toy page",
            icon=":material/toys:",
            params=(Param("toy_n", "Toy pairs", "int_slider", 4, min=1, max=16),),
            snippet=snippet,
            tour=(Step({"toy_n": 7}, "Seven toy pairs, each slower than the last."),),
            deep_link=DeepLink({"toy_n": 9}, slider="toy_n", chart=0),
            bench=BenchSettings(max_query={"toy_n": "16"}, slider="toy_n"),
        )
    ''',
    "explorer/charts/toy.py": """
        import altair as alt
        import pandas as pd

        from explorer.charts.style import chart_config


        def wavelengths(wl):
            data = pd.DataFrame({"pair": range(len(wl)), "wavelength": wl})
            return alt.Chart(data, title="Toy wavelengths", config=chart_config()).mark_line().encode(
                x="pair:Q", y="wavelength:Q"
            )
    """,
    "pages/11_Toy_page.py": """
        from explorer.layout import page_setup

        page_setup("toy")  # draws the declared title, "Toy page"

        import posenc
        from explorer.charts import toy as charts
        from explorer.exports import page_footer
        from explorer.widgets import widget
        from explorer.render import show_chart

        n = widget("toy_n")
        show_chart(charts.wavelengths(posenc.wavelengths(2 * n)))
        page_footer("toy", {"toy_n": n})
    """,
    "tests/test_page_toy.py": """
        from _apptest import page_path, run_page


        def test_the_toy_page_draws_its_slider_and_chart():
            at = run_page(page_path("pages/11_Toy_page.py"), toy_n=3)
            assert at.slider(key="toy_n").value == 3 and at.title[0].value == "Toy page"
    """,
}

#: Run inside the copy: what the derived machinery makes of the toy page.
PROBE = r"""
import json, subprocess, sys
from streamlit.testing.v1 import AppTest
from explorer import manifest, tour

def run(script, **query):
    at = AppTest.from_file(script, default_timeout=60)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at

def shown(at):
    return {
        "exception": [e.value for e in at.exception],
        "title": [t.value for t in at.title],
        "markdown": [m.value for m in at.markdown],
        "navigation": [[e.proto.label, e.proto.page] for e in at.sidebar.get("page_link")],
        "toy_n": at.session_state["toy_n"] if "toy_n" in at.session_state else None,
        "charts": [c.proto.spec for c in at.get("arrow_vega_lite_chart") + at.get("vega_lite_chart")],
    }

collecting = subprocess.Popen(  # runs beside the AppTests below
    [sys.executable, "-m", "pytest", "--collect-only", "tests/test_widget_fuzz.py", "tests/test_e2e.py",
     "tests/test_e2e_layout.py", "tests/test_tour.py", "tests/test_page_toy.py"],
    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
)
print(json.dumps({
    "pages": [p.slug for p in manifest.PAGES],
    "problems": manifest.problems(),
    "step": tour.step_number("toy-1"),
    "steps": len(tour.TOUR),
    "home": shown(run("app.py")),
    "tour": shown(run("app.py", step="toy-1")),
    "deep_link": shown(run("pages/11_Toy_page.py", toy_n="9")),
    "collected": collecting.communicate()[0].splitlines(),
}))
"""


def test_a_toy_page_in_four_files_appears_everywhere(tmp_path):
    copy = tmp_path / "repo"
    skip = shutil.ignore_patterns(".git", "docs", "bench", "deploy", "__pycache__", ".*_cache", ".hypothesis")
    shutil.copytree(ROOT, copy, ignore=skip)
    for path, text in TOY.items():
        assert not (copy / path).exists(), path
        (copy / path).write_text(textwrap.dedent(text).lstrip())
    out = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=copy, capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr[-3000:]
    seen = json.loads(out.stdout.splitlines()[-1])

    assert seen["pages"][-1] == "toy" and seen["problems"] == []
    home = seen["home"]
    assert not home["exception"] and home["navigation"][-1] == ["Toy page", "Toy_page"]  # Streamlit's own path

    tour_step = seen["tour"]
    assert seen["step"] == seen["steps"]  # the last page's step is the tour's last
    assert not tour_step["exception"] and tour_step["title"] == ["Toy page"] and tour_step["toy_n"] == 7
    assert "Seven toy pairs, each slower than the last." in tour_step["markdown"]
    assert any(
        m.startswith("**Link to this view**") and "Toy_page?toy_n=7&step=toy-1" in m for m in tour_step["markdown"]
    )

    page = seen["deep_link"]
    assert not page["exception"] and page["title"] == ["Toy page"] and page["toy_n"] == 9
    assert len(page["charts"]) == 1 and "Toy wavelengths" in page["charts"][0]
    assert any(m.startswith("**Link to this view**") and "Toy_page?toy_n=9" in m for m in page["markdown"])

    collected = "\n".join(seen["collected"])
    for test in (
        "test_widget_fuzz.py::test_random_allowed_settings_never_crash_and_the_claims_hold[toy-None]",
        "test_e2e.py::test_cold_deep_link[Toy_page]",
        "test_e2e_layout.py::test_every_page_and_tab_fits_and_no_chart_text_is_cut[projectors-toy]",
        "test_tour.py::test_a_step_opens_by_its_id_and_by_its_number_with_its_values_and_narration[toy-1]",
        "test_page_toy.py::test_the_toy_page_draws_its_slider_and_chart",
    ):
        assert test in collected, (test, collected[-2000:])
