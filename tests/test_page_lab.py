"""The extrapolation lab page through AppTest: the shipped results at once (no training at page load,
no training thread), every tab, garbage URL values, the snippet."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from _apptest import run_page

from explorer import jobs, manifest

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "6_Extrapolation_lab.py")


def run(**query):
    at = run_page(PAGE, timeout=120, **query)
    assert not at.exception, at.exception
    return at


def chart_specs(at):
    return [c.proto.spec for c in at.get("vega_lite_chart")]


def test_defaults_show_the_shipped_results_without_training():
    at = run()
    assert not jobs.QUEUE.worker_alive and not jobs.QUEUE.snapshot()
    specs = chart_specs(at)
    assert len(specs) == 1 and "against length" in specs[0] and "description" in specs[0]
    assert any("python -m posenc.lab ship" in c.value for c in at.caption)
    text = " ".join(m.value for m in at.markdown)
    assert "What to notice" in text and "learned table" in text


@pytest.mark.parametrize("view", ["Per position", "Extension", "Attention", "Train"])
def test_every_tab(view):
    at = run(lab_view=view)
    assert not jobs.QUEUE.worker_alive
    if view != "Train":
        assert len(chart_specs(at)) == 1
    else:
        assert any(b.label == "Train" for b in at.button)


def test_the_extension_panel_moves_the_curve():
    at = run(lab_view="Extension", lab_ext="linear", lab_factor="2")
    assert "rope+linear:factor=2" in chart_specs(at)[0]


def test_garbage_url_values_fall_back_with_a_notice():
    at = run(
        lab_task="<b>x</b>",
        lab_view="nope",
        lab_factor="1e9",
        lab_len="7",
        lab_head="-3",
        lab_steps="99999",
        lab_encs="rm -rf",
        lab_tlen="0",
    )
    assert at.warning
    assert len(chart_specs(at)) == 1
    assert not jobs.QUEUE.worker_alive


def test_a_learned_model_past_its_rows_shows_a_warning_not_a_pattern():
    at = run(lab_view="Attention", lab_enc="learned", lab_len="512")
    assert any("no attention pattern past L" in w.value for w in at.warning)


def test_the_snippet_runs_and_prints_the_shipped_numbers():
    code = manifest.page("lab").snippet({"task": "markov", "beta_fast": 32})
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<snippet>", "exec"), {"__name__": "__snippet__"})
    assert "python -m posenc.lab ship" in out.getvalue() and "rope" in out.getvalue()
