"""Issue #36's press test: does a control's key press redraw its chart in the browser?

Each chart-driving control a chart carries itself (explorer.liveparam: home's d, RoPE's m, n, d, j, q and k, the
clock's p, d, b and number of clocks, the shift t, the vision query row, grid columns and rows, video frames and frame shown, the sequence's text before and after, the sinusoidal zoom start and size,
Context extension's factor, lengths, head dim and base (dynamic NTK's and LongRoPE's too, and LongRoPE's factor), YaRN's and Llama 3's knobs and YaRN's mscale, the
configs converter's α, d and b, Compare methods' L and T) is
focused and pressed (ArrowRight; ArrowLeft at the top of its range and for `DOWNWARD`) `--presses` times, each press once the app is idle. A press
counts as "in the browser" when its chart changed within 100 ms of the keydown while no script was
running. Its time is the keydown to the chart's first changed frame. Beside them, in the same run:
the one-chart app (bench/slider_chart_app.py: a Streamlit slider and one chart, redrawn by a server
run), pressed the same way, end to end (`e2e_support.slider_latency_ms`). Prints the date, the load,
one line per control (in-browser presses, median and range of the time, the ratio to the one-chart
app's median) and the one-chart app's line.

    python bench/press_in_browser.py [--presses 25] [--only TEXT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from e2e_support import (  # noqa: E402
    _QUICK_FINGERPRINT_JS,
    StreamlitServer,
    launch_chromium,
    quick_fingerprint,
    ready_time_ms,
    slider_latency_ms,
    wait_charts_drawn,
    wait_idle,
)
from load import REFERENCE_ENV  # noqa: E402  (the one-chart app with Streamlit's defaults)

#: (what, URL path and query, page title, the in-chart input's name: Vega's signal `<key>_<key>`)
CONTROLS = [
    ("Home vector size d", "?home_pe=rope", "Why position matters", "d_model_d_model"),
    ("RoPE m", "RoPE_rotation", "RoPE rotation", "m_m"),
    ("RoPE head size d", "RoPE_rotation", "RoPE rotation", "head_dim_head_dim"),
    ("RoPE pair j", "RoPE_rotation", "RoPE rotation", "j_j"),
    ("RoPE base b", "RoPE_rotation", "RoPE rotation", "base_base"),
    ("RoPE q x", "RoPE_rotation", "RoPE rotation", "qx_qx"),
    ("RoPE k y", "RoPE_rotation", "RoPE rotation", "ky_ky"),
    ("RoPE q angle (polar)", "RoPE_rotation?vec_input=polar", "RoPE rotation", "q_angle_q_angle"),
    ("RoPE k length (polar)", "RoPE_rotation?vec_input=polar", "RoPE rotation", "k_len_k_len"),
    ("RoPE trajectory M", "RoPE_rotation", "RoPE rotation", "traj_m_traj_m"),
    ("Clock position p", "Clock_hands", "Frequency clock hands", "m_m"),
    ("Clock head size d", "Clock_hands", "Frequency clock hands", "d_model_d_model"),
    ("Clock base b", "Clock_hands", "Frequency clock hands", "base_base"),
    ("Clock number of clocks", "Clock_hands", "Frequency clock hands", "n_clocks_n_clocks"),
    ("Invariance shift t", "Relative_invariance", "Relative-position invariance", "shift_t_shift_t"),
    ("Invariance positions N", "Relative_invariance", "Relative-position invariance", "seq_len_seq_len"),
    ("Invariance head dim d", "Relative_invariance", "Relative-position invariance", "head_dim_head_dim"),
    ("Invariance base b", "Relative_invariance", "Relative-position invariance", "base_base"),
    ("Invariance learned table rows", "Relative_invariance", "Relative-position invariance", "table_len_table_len"),
    ("Vision query row", "Images_and_video", "Images and video", "vis_qrow_vis_qrow"),
    ("Vision grid columns", "Images_and_video", "Images and video", "vis_cols_vis_cols"),
    ("Vision grid rows", "Images_and_video", "Images and video", "vis_rows_vis_rows"),
    ("Vision frame shown", "Images_and_video?vis_frames=16", "Images and video", "vis_frame_vis_frame"),
    # at the last frame of the longest video: each shorter video shows its own last frame (at frame 0, only the
    # title's count would change, too small for the quick fingerprint)
    ("Vision video frames", "Images_and_video?vis_frames=16&vis_frame=15", "Images and video", "vis_frames_vis_frames"),
    ("Vision shift key column", "Images_and_video?vis_view=Shift+test", "Images and video", "vis_kcol_vis_kcol"),
    ("Vision shift Δrow", "Images_and_video?vis_view=Shift+test", "Images and video", "vis_drow_vis_drow"),
    ("Vision trained grid", "Images_and_video?vis_view=Resolution", "Images and video", "vis_train_vis_train"),
    ("Vision new grid", "Images_and_video?vis_view=Resolution", "Images and video", "vis_new_vis_new"),
    ("Vision text before", "Images_and_video?vis_view=Sequence", "Images and video", "vis_text_before_vis_text_before"),
    ("Vision text after", "Images_and_video?vis_view=Sequence", "Images and video", "vis_text_after_vis_text_after"),
    ("Sinusoidal zoom p0", "Sinusoidal_heatmap", "Sinusoidal heatmap", "zoom_p0_zoom_p0"),
    ("Sinusoidal zoom positions shown", "Sinusoidal_heatmap", "Sinusoidal heatmap", "zoom_np_zoom_np"),
    ("Sinusoidal zoom dimensions shown", "Sinusoidal_heatmap", "Sinusoidal heatmap", "zoom_nd_zoom_nd"),
    # the largest window: 256 × 256 cells, each added or removed by a press (in a table large enough to hold it)
    (
        "Sinusoidal zoom positions at 256 × 256",
        "Sinusoidal_heatmap?seq_len=512&d_model=512&zoom_np=256&zoom_nd=256",
        "Sinusoidal heatmap",
        "zoom_np_zoom_np",
    ),
    (
        "Sinusoidal zoom p0 at 256 × 256",
        "Sinusoidal_heatmap?seq_len=512&d_model=512&zoom_np=256&zoom_nd=256",
        "Sinusoidal heatmap",
        "zoom_p0_zoom_p0",
    ),
    ("Sinusoidal zoom d", "Sinusoidal_heatmap", "Sinusoidal heatmap", "d_model_d_model"),
    ("Sinusoidal zoom b", "Sinusoidal_heatmap", "Sinusoidal heatmap", "base_base"),
    ("Extension factor s", "Context_extension?rope_type=yarn", "Context extension", "factor_factor"),
    ("Extension target length T", "Context_extension?rope_type=yarn", "Context extension", "target_len_target_len"),
    ("Extension trained length L", "Context_extension?rope_type=linear", "Context extension", "train_len_train_len"),
    ("Extension YaRN L", "Context_extension?rope_type=yarn", "Context extension", "train_len_train_len"),
    ("Extension head dim d", "Context_extension?rope_type=yarn", "Context extension", "head_dim_head_dim"),
    ("Extension base b", "Context_extension?rope_type=yarn", "Context extension", "base_base"),
    ("Extension linear d", "Context_extension?rope_type=linear", "Context extension", "head_dim_head_dim"),
    ("Extension YaRN β_fast", "Context_extension?rope_type=yarn", "Context extension", "beta_fast_beta_fast"),
    ("Extension YaRN β_slow", "Context_extension?rope_type=yarn", "Context extension", "beta_slow_beta_slow"),
    (
        "Extension Llama 3 low_freq_factor",
        "Context_extension?rope_type=llama3",
        "Context extension",
        "low_freq_factor_low_freq_factor",
    ),
    ("Extension dynamic NTK T", "Context_extension?rope_type=dynamic", "Context extension", "target_len_target_len"),
    ("Extension LongRoPE T", "Context_extension?rope_type=longrope", "Context extension", "target_len_target_len"),
    ("Extension LongRoPE s", "Context_extension?rope_type=longrope", "Context extension", "factor_factor"),
    (
        "Extension YaRN mscale",
        "Context_extension?rope_type=yarn&ext_view=Attention&mscale=1&mscale_all_dim=0.5",  # a press on mscale moves a
        "Context extension",
        "mscale_mscale",
    ),
    ("Configs converter α", "Model_configs", "Model configs", "ntk_alpha_ntk_alpha"),
    ("Configs converter d", "Model_configs", "Model configs", "head_dim_head_dim"),
    ("Configs converter b", "Model_configs", "Model configs", "base_base"),
    ("Compare trained length L", "Compare_methods", "Compare methods", "train_len_train_len"),
    ("Compare base b", "Compare_methods", "Compare methods", "base_base"),
    ("Compare test length T", "Compare_methods", "Compare methods", "target_len_target_len"),
    ("Compare ALiBi head", "Compare_methods", "Compare methods", "alibi_head_alibi_head"),
    # the same two at the largest T (4,096 distances a curve; the page's default is 512): every point is redrawn
    ("Compare base b at T = 4096", "Compare_methods?target_len=4096", "Compare methods", "base_base"),
    ("Compare ALiBi head at T = 4096", "Compare_methods?target_len=4096", "Compare methods", "alibi_head_alibi_head"),
]


def controls(only: str = "") -> list[tuple[str, str, str, str]]:
    """`CONTROLS` whose name contains `only` (every one for "": the benchmarks' ``--only``)."""
    return [c for c in CONTROLS if only in c[0]]


#: Records, from the next keydown: its time, every script-state change, and the first animation frame
#: on which the chart `index` looks different (window.__press).
_ARM_JS = """
([index, before, fingerprint]) => {
  const fp = new Function('i', 'return (' + fingerprint + ')(i);');
  window.__press = {key: null, states: [], changed: null};
  const obs = new MutationObserver((records) => { for (const r of records)
    window.__press.states.push([performance.now(), r.target.getAttribute('data-test-script-state')]); });
  obs.observe(document, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
  document.addEventListener('keydown', () => {
    window.__press.key = performance.now();
    const tick = () => {
      if (fp(index) !== before) { window.__press.changed = performance.now(); return; }
      if (performance.now() - window.__press.key < 3000) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, {capture: true, once: true});
}
"""


def chart_index(tab, name: str) -> int:
    return tab.evaluate(
        "(name) => { const el = document.querySelector(`input[name='${name}']`);"
        " const charts = [...document.querySelectorAll('[data-testid=stVegaLiteChart]')];"
        " return charts.indexOf(el.closest('[data-testid=stVegaLiteChart]')); }",
        name,
    )


#: Controls pressed leftwards, their values going down (but rightwards at the bottom of their range; the rest
#: rightwards, but leftwards at the top): the video's length, whose picture changes as it passes below the frame shown.
DOWNWARD = {"vis_frames_vis_frames"}


def press_in_chart(tab, name: str, title: str) -> tuple[bool, float]:
    """One press of the in-chart input `name`; (in the browser?, keydown → chart changed in ms)."""
    index = chart_index(tab, name)
    ready_time_ms(tab, title)
    before = quick_fingerprint(tab, index)
    tab.evaluate(_ARM_JS, [index, before, _QUICK_FINGERPRINT_JS.strip()])
    box = tab.locator(f"input[name='{name}']").first
    box.focus()
    at_end = box.evaluate("(el) => Number(el.value) >= Number(el.max)")
    at_start = box.evaluate("(el) => Number(el.value) <= Number(el.min)")
    downward = name in DOWNWARD and not at_start
    tab.keyboard.press("ArrowLeft" if at_end or downward else "ArrowRight")
    tab.wait_for_function("() => window.__press.changed !== null || performance.now() - window.__press.key > 3000")
    press = tab.evaluate("() => window.__press")
    took = (press["changed"] - press["key"]) if press["changed"] is not None else float("inf")
    ran = [t for t, state in press["states"] if state == "running" and t <= press["key"] + took]
    tab.wait_for_timeout(400)  # the release report (150 ms after the last change) and its run
    wait_idle(tab, title=title)
    return took <= 100 and not ran, took


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--presses", type=int, default=25)
    ap.add_argument("--only", default="", help="only the controls whose name contains this text")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{when} · {os.cpu_count()} CPUs · load {os.getloadavg()[0]:.2f} · {args.presses} presses each", flush=True)
    with (
        StreamlitServer() as app,
        StreamlitServer("bench/slider_chart_app.py", env=REFERENCE_ENV) as ref,
        sync_playwright() as pw,
    ):
        browser = launch_chromium(pw)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(60_000)
        ref_tab = context.new_page()
        ref_tab.goto(ref.base_url)
        wait_idle(ref_tab, title="One chart")
        ref_times = [slider_latency_ms(ref_tab, "point", 0, "One chart")["total"] for _ in range(args.presses)]
        ref_median = statistics.median(ref_times)
        rows = []
        for what, path, title, name in controls(args.only):
            tab = context.new_page()
            tab.goto(f"{app.base_url}/{path}")
            wait_idle(tab, title=title)
            wait_charts_drawn(tab)
            results = [press_in_chart(tab, name, title) for _ in range(args.presses)]
            times = [t for _, t in results]
            rows.append((what, sum(ok for ok, _ in results), statistics.median(times), min(times), max(times)))
            tab.close()
        browser.close()
    for what, ok, med, lo, hi in rows:
        print(
            f"  {what:<22} in the browser {ok:>2}/{args.presses} · {med:6.1f} ms median ({lo:.1f}–{hi:.1f})"
            f" · {med / ref_median:.2f}x the one-chart app",
            flush=True,
        )
    print(
        f"  {'one-chart app':<22} (a server run each) · {ref_median:6.1f} ms median "
        f"({min(ref_times):.1f}–{max(ref_times):.1f})",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
