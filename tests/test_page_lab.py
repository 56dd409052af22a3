"""The extrapolation lab page through AppTest: the shipped results at once (no training at page load,
no training thread), every tab, garbage URL values, the snippet."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest
from _apptest import run_page
from _chartspec import element_spec, facts

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
    assert len(specs) == 2 and "all positions" in specs[0] and "positions past L only" in specs[1]
    assert all("95 % interval band" in s and "did not learn the task" in s for s in specs)
    assert any("python -m posenc.lab ship" in c.value and "95 % intervals" in c.value for c in at.caption)
    text = " ".join(m.value for m in at.markdown)
    assert "What to notice" in text and "learned table" in text
    import json

    doc = json.loads(SHIPPED.read_text())
    for m, ok in doc["tasks"]["markov"]["learned"].items():  # every row that did not learn is named as such
        assert (f"**{m}** did not learn the task" in text) == (not ok), m


@pytest.mark.parametrize("view", ["Per position", "Extension", "Attention", "Train"])
def test_every_tab(view):
    at = run(lab_view=view)
    assert not jobs.QUEUE.worker_alive
    if view != "Train":
        assert len(chart_specs(at)) == 1
    else:
        assert any(b.label == "Train" for b in at.button)
    if view == "Per position":
        assert "95 % band" in chart_specs(at)[0]


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
    assert len(chart_specs(at)) == 2  # the Length tab's two charts
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


SHIPPED = Path(__file__).resolve().parent.parent / "data" / "lab" / "results.json"


def test_passkey_has_no_curve_along_the_sequence_and_ships_every_base_model():
    at = run(lab_task="passkey", lab_view="Per position")
    assert not chart_specs(at) and any("one token per sequence" in i.value for i in at.info)
    at = run(lab_task="passkey", lab_view="Attention", lab_enc="alibi")
    assert not any("ships only the RoPE model" in w.value for w in at.warning)
    (chart,) = at.get("vega_lite_chart")
    assert facts(element_spec(chart))["title"].startswith("alibi: layer")  # the title, from the chart's facts row


@pytest.mark.parametrize("task", ["markov", "kback", "copy", "passkey"])
def test_the_honest_section_is_shown_for_the_task_on_screen(task):
    """Its claims are checked against results.json in tests/test_text_lab.py; here: the page shows them."""
    import json

    from explorer.text import lab as labtext

    doc = json.loads(SHIPPED.read_text())
    if task not in doc["tasks"]:
        pytest.skip(f"no {task} results shipped")
    from posenc.lab import load_finetune_sweep

    expected = labtext.honest_section(labtext.shown(doc, task), sweep=load_finetune_sweep())
    at = run(lab_task=task)
    (section,) = [e for e in at.expander if e.label == "What tiny synthetic models can and cannot say"]
    assert [m.value for m in section.markdown] == [expected]
    assert "95 % interval" in expected and "RoPE has 'no length limit'" in expected


def test_the_yarn_ramp_caption_is_computed_for_the_models_head_dim():
    # the shipped models: d_model 64, 4 heads -> head_dim 16; L = 64. YaRN's ramp ends, by hand:
    # low = floor(d·ln(L/(2π·β_fast)) / (2 ln b)), clamped at 0; high = ceil(d·ln(L/(2π·β_slow)) / (2 ln b))
    import math

    def end(beta, rounding):
        return rounding(16 * math.log(64 / (2 * math.pi * beta)) / (2 * math.log(10000.0)))

    at = run(lab_view="Extension", lab_ext="yarn", lab_beta="2")
    caption = " ".join(c.value for c in at.caption)
    assert f"pairs {max(end(2, math.floor), 0)}–{end(1, math.ceil)}" in caption
    assert f"would give pairs {max(end(32, math.floor), 0)}–{end(1, math.ceil)}" in caption
    same = run(lab_view="Extension", lab_ext="yarn", lab_beta="4")
    assert "gives the same ramp" in " ".join(c.value for c in same.caption)


def _session_run(session: str, **query):
    """One run of the page by the session ``session`` (its lab_session id), with these URL settings."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(PAGE, default_timeout=120)
    at.session_state["lab_session"] = session
    for k, v in query.items():
        at.query_params[k] = str(v)
    return run_page(PAGE, at)


def test_a_sessions_job_survives_tabs_and_settings_and_shows_its_own_settings(monkeypatch):
    """No training: the job's work waits on an event and reports as the page's work would."""
    import threading
    import time
    from types import SimpleNamespace

    # The queue's clock is a fake one that moves only when the test says (3 s between page runs,
    # against a 4 s timeout), so a slow run on a busy machine cannot make the job look abandoned.
    clock = SimpleNamespace(now=time.monotonic())
    monkeypatch.setattr(jobs, "time", SimpleNamespace(monotonic=lambda: clock.now))
    monkeypatch.setattr(jobs.QUEUE, "timeout", 4.0)  # seconds without a heartbeat; every page run is one
    release = threading.Event()
    key = ("kback", ("rope", "alibi"), 32, 40, 32, 3)  # unlike every slider default

    def work(job):
        job.report(model="rope", index=0, step=40, steps=40, loss=0.5, last={"rope": 0.5})
        job.report(model="alibi", index=1, step=7, steps=40, loss=1.25, last={"rope": 0.5, "alibi": 1.25})
        while not release.wait(0.02):
            job.report()  # raises once cancelled or stale
        return {"results": {"rope": {"32": 0.9, "64": 0.5}, "alibi": {"32": 0.6, "64": 0.55}}}

    job = jobs.QUEUE.submit("S1", key, work)
    try:
        # more than two timeouts of other tabs and other settings: each run is a heartbeat
        start = clock.now
        for query in [{"lab_view": "Length"}, {"lab_view": "Per position"}, {"lab_task": "kback"}] * 2:
            at = _session_run("S1", **query)
            clock.now += 3.0  # the next heartbeat comes 3 s later: two gaps without one would be stale
            time.sleep(0.3)  # the worker checks its staleness on every report (every 0.02 s)
            assert job.state == "running", job.error
            info = " ".join(i.value for i in at.info)
            assert "Your training job (kback, rope, alibi: 40 steps at L = 32, d = 32, seed 3) is running" in info
        assert clock.now - start > 2 * jobs.QUEUE.timeout
        # the Train tab at other settings shows the job's own settings and one bar per model
        at = _session_run("S1", lab_view="Train", lab_ttask="markov", lab_steps="300")
        bars = [b.proto.text for b in at.get("progress")]
        assert bars == [
            "rope: trained (last training loss 0.500), evaluated",
            "alibi: step 7 of 40, training loss 1.250",
        ]
        release.set()
        deadline = time.monotonic() + 10
        while job.state != "done" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert job.state == "done"
        at = _session_run("S1", lab_view="Train")
        assert any("Showing your last run (kback, rope, alibi" in c.value for c in at.caption)
        assert any("Your run: kback, 40 steps, L = 32, d = 32, seed 3" in spec for spec in chart_specs(at))
        # a session that stops running the page (closed: no connection, no heartbeat) loses its job
        gone = jobs.QUEUE.submit(
            "S1", ("kback", ("rope",), 32, 41, 32, 3), lambda j: [j.report() for _ in iter(int, 1)]
        )
        time.sleep(0.3)
        assert gone.state == "running"
        clock.now += 2 * jobs.QUEUE.timeout  # no page run (no heartbeat) for two timeouts
        deadline = time.monotonic() + 10
        while gone.state != "cancelled" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone.state == "cancelled" and "session" in gone.error
        at = _session_run("S1", lab_view="Train")
        assert any("Training cancelled" in w.value for w in at.warning)
    finally:
        release.set()
        jobs.QUEUE.forget("S1")


def test_the_length_and_position_views_show_every_shipped_row_and_the_datas_sizes():
    import json

    entry = json.loads(SHIPPED.read_text())["tasks"]["markov"]
    spec = chart_specs(run())[0]
    for name in entry["runs"]:  # rope@ft256 beside rope+linear@ft256, the long-trained NoPE, …
        assert f'"{name}"' in spec, name
    bins = entry["bins"]
    n, width = bins[-1][1], bins[0][1] - bins[0][0]
    spec = chart_specs(run(lab_view="Per position"))[0]
    assert f"position in one {n}-token evaluation ({width}-token bins)" in spec
    if len(entry["runs"].get("rope@ft256", {})) > 1:  # a band needs two seeds
        assert '"rope@ft256"' in spec


def test_the_extension_panel_offers_the_registry_and_a_real_models_recipe():
    from explorer.site import lab as site
    from posenc import ROPE_METHODS

    assert set(site.EXT_TYPES) | set(site.EXT_LEFT_OUT) == set(ROPE_METHODS)
    help_text = next(p.help for p in site.PAGE.params if p.key == "lab_ext")
    assert all(k in help_text for k in site.EXT_LEFT_OUT)
    at = run(lab_view="Extension", lab_model="qwen2.5-7b-instruct")
    captions = " ".join(c.value for c in at.caption)
    assert "original_max_position_embeddings = 64 (this lab's training length, not the model's 32,768)" in captions
    assert "head_dim = 16 (not 128)" in captions and "factor = 4.0" in captions
    import re

    assert re.search(r"on [\d,–]+ scored tokens per length", captions) and "mean over 5 seeds" in captions
    assert "recipe" in chart_specs(at)[0]
    at = run(lab_view="Extension", lab_model="llama4-scout", lab_layer="3")
    assert any("NoPE layer" in w.value for w in at.warning)
    at = run(lab_view="Extension", lab_model="gemma3-4b", lab_layer="5")
    assert "layer 5" in " ".join(c.value for c in at.caption) and "factor = 8.0" in " ".join(
        c.value for c in at.caption
    )


@pytest.mark.parametrize(
    "values", [{}, {"model": "gemma3-4b", "layer": 5}, {"model": "qwen2.5-7b-instruct", "layer": None}]
)
def test_the_snippet_reproduces_the_extension_panels_recipe(values):
    code = manifest.page("lab").snippet({"task": "markov", "beta_fast": 4.0, **values})
    assert "'rope+yarn:beta_fast=4'" in code  # one literal, not a quoted number inside a string
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<snippet>", "exec"), {"__name__": "__snippet__"})
    if values:
        assert (
            "'factor': 8.0" in out.getvalue() if values["model"] == "gemma3-4b" else "'factor': 4.0" in out.getvalue()
        )


def _layer_sliders(at):
    return [s for s in at.slider if s.key == "lab_layer"]


def test_the_layer_slider_is_shown_only_for_a_model_whose_layers_differ_with_its_own_layers():
    for query in ({}, {"lab_view": "Extension"}, {"lab_view": "Extension", "lab_model": "qwen2.5-7b-instruct"}):
        assert not _layer_sliders(run(**query)), query
    # Gemma 3 4B has 34 decoder layers, Llama 4 Scout 48 (every 4th without RoPE)
    for model, last in (("gemma3-4b", 33), ("llama4-scout", 47)):
        at = run(lab_view="Extension", lab_model=model)
        (slider,) = _layer_sliders(at)
        assert (slider.min, slider.max, slider.value) == (0, last, 0)
        assert "layer 0" in chart_specs(at)[0] or "no scaling" in " ".join(c.value for c in at.caption)
    # a layer past the model's last one is clamped to it, with a notice naming the parameter
    at = run(lab_view="Extension", lab_model="gemma3-4b", lab_layer="40")
    (slider,) = _layer_sliders(at)
    assert slider.value == 33 and any("lab\\_layer" in w.value and "used 33 instead" in w.value for w in at.warning)
    assert "Gemma 3 4B's layer 33" in " ".join(c.value for c in at.caption)
    # a layer in the URL means nothing for a model whose layers share one rope: no slider, the model's recipe
    at = run(lab_view="Extension", lab_model="qwen2.5-7b-instruct", lab_layer="5")
    captions = " ".join(c.value for c in at.caption)
    assert not _layer_sliders(at) and "Applied: the recipe of Qwen2" in captions and "rope_type yarn" in captions
    assert "layer" not in chart_specs(at)[0].split('"title"')[1][:200]


def test_the_attention_tab_reads_a_pattern_only_for_a_model_that_learned():
    """Issue #37: the Attention tab's sentence is gated on the model having learned the task, and the page's deep
    link opens on one that did (the flags recomputed from the shipped numbers in tests/test_text_lab.py)."""
    import json

    from explorer import manifest

    doc = json.loads(SHIPPED.read_text())
    link = {k: str(v) for k, v in manifest.page("lab").deep_link.query.items()}
    at = run(**link)
    text = " ".join(m.value for m in at.markdown)
    assert "Effective number of keys per query" in text and "the count of keys alone" in text
    unlearned = [m for m, ok in doc["tasks"]["kback"]["learned"].items() if not ok and m in ("nope", "alibi")]
    for enc in unlearned:
        at = run(lab_task="kback", lab_view="Attention", lab_enc=enc)
        text = " ".join(m.value for m in at.markdown)
        assert f"**{enc}** did not learn the task" in text and "its attention pattern is shown, not read" in text
        assert "Effective number of keys" not in text
        assert len(chart_specs(at)) == 1


def test_shipped_models_of_an_earlier_copy_task_are_not_run_on_todays():
    """The copy task now tiles parts of a fixed length range (posenc.lab.COPY_PART); shipped copy results made
    before it record no "copy_part", and their models are not run on today's sequences (Extension, Attention)."""
    import json

    entry = json.loads(SHIPPED.read_text())["tasks"].get("copy")
    if entry is None:
        pytest.skip("no copy results shipped")
    for view in ("Extension", "Attention"):
        at = run(lab_task="copy", lab_view=view)
        stale = [w.value for w in at.warning if "earlier copy task" in w.value]
        assert bool(stale) == ("copy_part" not in entry), view
        assert bool(chart_specs(at)) == ("copy_part" in entry), view
    at = run(lab_task="markov", lab_view="Extension")
    assert not any("earlier copy task" in w.value for w in at.warning) and chart_specs(at)


def test_the_train_tab_offers_flipflop_and_the_newer_encodings_beside_rope():
    at = run(lab_view="Train", lab_ttask="flipflop", lab_encs="rope, cope, fope, path, drope, hybrid, ssmax")
    assert not jobs.QUEUE.worker_alive  # nothing trains until asked
    assert at.radio(key="lab_ttask").value == "flipflop"
    assert at.selectbox(key="lab_encs").value == "rope, cope, fope, path, drope, hybrid, ssmax"
    assert any(b.label == "Train" for b in at.button)


def test_an_extension_that_cannot_be_evaluated_says_so_and_draws_no_chart(monkeypatch):
    """When the shipped model cannot be evaluated (a missing file, a bad setting: OSError or ValueError), the tab shows
    the error and no chart; it drew an empty one and crashed (KeyError 'method' in curves_frame's frame)."""
    from explorer.compute import lab as compute

    def fails(*args, **kwargs):
        raise ValueError("no such model file")

    monkeypatch.setattr(compute, "extension_curve", fails)
    at = run(lab_view="Extension", lab_ext="linear", lab_factor="2")
    assert any("no such model file" in e.value for e in at.error)
    assert not [s for s in chart_specs(at) if "evaluation length" in s]
