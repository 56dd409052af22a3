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


SHIPPED = Path(__file__).resolve().parent.parent / "data" / "lab" / "results.json"


def _mean(runs: dict, length: int) -> float:
    values = [per[str(length)] for per in runs.values()]
    return sum(values) / len(values)


@pytest.mark.parametrize("task", ["markov", "kback"])
def test_the_honest_section_quotes_the_shipped_numbers_and_says_what_they_show(task):
    """Every claim recomputed here from results.json (means over seeds), never from the page's helpers."""
    import json

    doc = json.loads(SHIPPED.read_text())
    entry = doc["tasks"][task]
    runs, loss = entry["runs"], entry["metric"] == "loss"
    at = run(lab_task=task)
    text = " ".join(m.value for m in at.markdown)

    def m(name, n):
        return _mean(runs[name], n)

    def better(a, b):  # a better than b by more than 0.05 in the task's metric
        return (b - a if loss else a - b) > 0.05

    beyond = [128, 256, 512]  # 2L, 4L, 8L of L = 64
    names = {64: "L", 128: "2L", 256: "4L", 512: "8L"}
    paper, low = m("rope+yarn", 512), m("rope+yarn:beta_fast=2", 512)
    assert f"{paper:.3f} with β_fast = 32 and {low:.3f} with β_fast = 2" in text
    # ALiBi: flat or not, and behind the best at L; the unsupported "helps where the answer is near" is gone
    alibi_flat = abs(m("alibi", 512) - m("alibi", 64)) <= 0.05
    assert f"**ALiBi**: {m('alibi', 64):.3f} at L, {m('alibi', 512):.3f} at 512" in text
    assert ("flat, as in Press" in text) == alibi_flat and ("not flat on this task" in text) == (not alibi_flat)
    assert "where the answer is near" not in text
    at_l = {e: m(e, 64) for e in ("nope", "learned", "sinusoidal", "rope", "alibi")}
    best = (min if loss else max)(at_l, key=at_l.__getitem__)
    assert (f"even at L it is behind {best}" in text) == better(at_l[best], at_l["alibi"])
    if task == "kback":  # the audit's figure: ≈0.46 at every length
        assert all(abs(m("alibi", n) - 0.46) < 0.02 for n in (64, *beyond))
    rope_flat = abs(m("rope", 512) - m("rope", 64)) <= 0.05
    assert ("a limit after all" in text) == (not rope_flat)
    # PI at evaluation, no fine-tune, against plain RoPE at 2L and beyond
    assert "PI gives " + ", ".join(f"{m('rope+linear', n):.3f} at {names[n]}" for n in beyond) in text
    assert "plain RoPE " + ", ".join(f"{m('rope', n):.3f}" for n in beyond) in text
    pi_worse = [n for n in beyond if better(m("rope", n), m("rope+linear", n))]
    assert pi_worse == beyond  # the shipped numbers: PI without fine-tuning loses everywhere past L
    assert "worse than no scaling at 2L, 4L, 8L." in text
    # both fine-tunes at 256 (seed 0 only)
    plain, pift = runs["rope@ft256"]["0"], runs["rope+linear@ft256"]["0"]
    lens = [64, *beyond]
    assert "(`rope@ft256`) " + ", ".join(f"{plain[str(n)]:.3f} at {names[n]}" for n in lens) in text
    assert "s = 4) " + ", ".join(f"{pift[str(n)]:.3f}" for n in lens) in text
    plain_wins = [n for n in lens if better(plain[str(n)], pift[str(n)])]
    pi_wins = [n for n in lens if better(pift[str(n)], plain[str(n)])]
    assert ("disagrees with Chen et al." in text) == (bool(plain_wins) and not pi_wins)
    if task == "kback":  # the PI fine-tune fails: ≈0.22 against 1.00
        assert abs(pift["256"] - 0.22) < 0.02 and plain["256"] == pytest.approx(1.0, abs=1e-3)
        assert "plain fine-tune is better at L, 2L, 4L, 8L: this disagrees" in text
        assert "Here PI fails even at L" in text
    # NTK-aware (bloc97)
    assert "NTK-aware scaling** (bloc97" in text
    assert ", ".join(f"{m('rope+ntk', n):.3f} at {names[n]}" for n in beyond) in text
    ntk_better = [names[n] for n in beyond if better(m("rope+ntk", n), m("rope", n))]
    assert f"better at {', '.join(ntk_better) or 'no length'}" in text
    # NoPE trained 900 steps, against 300
    long = runs["nope (900 steps)"]["0"]
    assert f"`nope (900 steps)` against 300 steps): {long['64']:.3f} at L (against {m('nope', 64):.3f})" in text
    assert f"{long['512']:.3f} at 512 (against {m('nope', 512):.3f})" in text
    assert ("Longer training helps inside L" in text) == better(long["64"], m("nope", 64))


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
        start = time.monotonic()
        for query in [{"lab_view": "Length"}, {"lab_view": "Per position"}, {"lab_task": "kback"}] * 2:
            at = _session_run("S1", **query)
            time.sleep(1.5)
            assert job.state == "running", job.error
            info = " ".join(i.value for i in at.info)
            assert "Your training job (kback, rope, alibi: 40 steps at L = 32, d = 32, seed 3) is running" in info
        assert time.monotonic() - start > 2 * jobs.QUEUE.timeout
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
    curves = [c for c in entry["per_position"].values() if c is not None]
    n = len(curves[0])
    spec = chart_specs(run(lab_view="Per position"))[0]
    assert f"position in one {n}-token evaluation (mean of {n / 64:g}-token bins)" in spec
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
    assert "2,048 scored tokens per length" in captions and "mean over 3 seed(s)" in captions
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
