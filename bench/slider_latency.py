"""Slider → charts redrawn, every page against the one-chart app, side by side: ``python bench/slider_latency.py``

Issue #23's probe. Two Streamlit servers in one run: the explorer and bench/slider_chart_app.py (a
title, a slider and one 3-point Altair line chart: the one-chart app). Each page is opened in a
fresh Chromium tab at its defaults; then, alternately on the page and on the one-chart app, a
slider's thumb is focused and ArrowRight pressed, and the time is taken on the page's clock from
the keydown until the chart that slider changes shows something different and the app is idle
again (tests/e2e_support.py `slider_latency_ms`: no script running, nothing stale, every chart
drawn). One warm-up press each, then the median of ``--presses`` (5).

The page's slider is the one its declaration names (``Page.deep_link.slider`` and the chart that
changes with it, ``deep_link.chart``). Positions are in-chart controls (issue #23's other half: RoPE's
m and n, the invariance shift, the clock's p, the vision query patch), so no declared slider moves
one; where a page has a second slider worth timing, it is measured too (``EXTRA``).

Prints the table (page | slider | ms | one-chart ms | ratio), with the date and the load average
(``uptime``) at the start and at the end. ``--write`` appends it to bench/RESULTS.md's section 13.
The real-model page is left out unless ``--all`` (it loads a 135M-parameter model first).

``--frame``: also the explorer's own frame around the one-chart app's chart: a page added to a
temporary copy of this checkout (`FRAME_FILES`: declared, set up and closed like every page, its
navigation, sidebar, heading and footer included, with one slider and the one-chart app's chart),
served by a server of its own and measured first. Every page pays what it costs beyond the
one-chart app, so its ratio is the floor any page of the explorer starts from.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import re
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from e2e_support import (  # noqa: E402
    VIEWPORT,
    StreamlitServer,
    browser_missing_message,
    entry,
    exceptions,
    launch_chromium,
    ready_time_ms,
    slider_latency_ms,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402

from explorer.manifest import PAGES  # noqa: E402

REFERENCE_APP = "bench/slider_chart_app.py"
REFERENCE_TITLE = "One chart"
REFERENCE_SLIDER = "point"

#: `--frame`: the files of the frame page, added to a copy of the checkout (see the docstring). Its
#: chart is bench/slider_chart_app.py's, drawn the explorer's way (`show_chart`).
FRAME_FILES = {
    "explorer/site/zz_frame.py": """
        from explorer.pagespec import BenchSettings, DeepLink, Page
        from explorer.paramspec import Param
        from explorer.snippets import HEADER

        PAGE = Page(
            script="pages/99_Frame.py",
            slug="frame",
            title="Frame",
            icon=":material/crop_free:",
            params=(Param("frame_point", "Middle point", "int_slider", 50, min=0, max=100),),
            snippet=lambda v: HEADER,
            deep_link=DeepLink({"frame_point": 60}, slider="frame_point", chart=0),
            bench=BenchSettings(max_query={"frame_point": "100"}, slider="frame_point"),
        )
    """,
    "pages/99_Frame.py": """
        from explorer.layout import page_setup

        page_setup("frame")

        import altair as alt
        import pandas as pd

        from explorer.exports import page_footer
        from explorer.widgets import widget
        from explorer.render import show_chart

        point = widget("frame_point")
        data = pd.DataFrame({"x": [0, 1, 2], "y": [0.0, point / 100, 0.5]})
        show_chart(alt.Chart(data).mark_line(point=True).encode(x="x:Q", y="y:Q"), width="stretch")
        page_footer("frame", {"frame_point": point})
    """,
}
FRAME_TITLE, FRAME_SLIDER = "Frame", "frame_point"


def frame_copy(where: Path) -> Path:
    """A copy of this checkout with the frame page added (`FRAME_FILES`)."""
    copy = where / "explorer-frame"
    skip = shutil.ignore_patterns(".git", "docs", "bench", "deploy", "tests", "__pycache__", ".*_cache", ".hypothesis")
    shutil.copytree(ROOT, copy, ignore=skip)
    for path, text in FRAME_FILES.items():
        (copy / path).write_text(textwrap.dedent(text).lstrip())
    return copy


#: A page whose declared slider changes no chart visibly at the defaults: its first slider instead
#: (Compare methods: the ALiBi panel has its own y scale, so another head's slope redraws the same line).
INSTEAD: dict[str, tuple[str, int]] = {"compare": ("head_dim", 0)}

#: A page's second slider measured (key, chart index), if it has one (the vision page's grid is the heatmaps' own
#: since issue #36: bench/press_in_browser.py presses it).
EXTRA: dict[str, tuple[str, int]] = {}


#: A page whose slider sits in a tab that is not open by default: the tab (a URL parameter).
OPEN_TAB: dict[str, dict[str, str]] = {
    "lab": {"lab_view": "Attention"},
    "realmodel": {"rm_view": "Heads"},
}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def targets(include_all: bool, frame: bool = False) -> list[tuple[str, object, str, int]]:
    out = []
    if frame:  # the frame page: a stand-in with the fields measure_page reads
        stand_in = type("FramePage", (), {"slug": "frame", "script": "pages/99_Frame.py"})()
        out.append((FRAME_TITLE, stand_in, FRAME_SLIDER, 0))
    for p in PAGES:
        if p.slug == "realmodel" and not include_all:
            continue
        key, chart = INSTEAD.get(p.slug, (p.deep_link.slider, p.deep_link.chart))
        out.append((p.title, p, key, chart))
        if p.slug in EXTRA:
            key, chart = EXTRA[p.slug]
            out.append((p.title, p, key, chart))
    return out


def press(tab, key: str, chart: int, title: str) -> float:
    """One measured press; the tab is brought to the front first (a background tab's animation
    frames are throttled, which the measurement polls on)."""
    tab.bring_to_front()
    return slider_latency_ms(tab, key, chart, title)


def measure(args) -> tuple[list[dict], str, str]:
    from playwright.sync_api import sync_playwright

    rows: list[dict] = []
    load_start = load()
    scratch = tempfile.TemporaryDirectory(prefix="slider-latency-")
    with (
        scratch,
        StreamlitServer() as app,
        # the frame page's own server, on the copy; every other page is served from this checkout
        StreamlitServer("app.py", cwd=frame_copy(Path(scratch.name)))
        if args.frame
        else contextlib.nullcontext() as frame,
        StreamlitServer(REFERENCE_APP) as ref,
        # no server started for nothing: it would load the 2-core machine the figures are taken on
        StreamlitServer(entry(args.baseline), cwd=Path(args.baseline))
        if args.baseline
        else contextlib.nullcontext() as base,
        sync_playwright() as pw,
    ):
        browser = launch_chromium(pw)
        context = browser.new_context(viewport=VIEWPORT)
        try:
            ref_tab = context.new_page()
            ref_tab.goto(ref.url(""), wait_until="commit")
            ready_time_ms(ref_tab, REFERENCE_TITLE)
            for title, page, key, chart in targets(args.all, args.frame):
                if args.only and page.slug not in args.only and page.slug != "frame":
                    continue
                try:
                    server = frame if page.slug == "frame" else app
                    row = measure_page(context, server, base, ref_tab, title, page, key, chart, args)
                except PlaywrightTimeout as exc:  # recorded, and the other pages still measured
                    print(f"  {title:<30} {key:<10} TIMEOUT {str(exc).splitlines()[0][:80]}", flush=True)
                    for t in [*context.pages, ref_tab]:  # what each tab shows: which one stalled, and how
                        print(f"    {t.url}: {timeout_state(t, key)}", flush=True)
                    for t in context.pages:
                        if t is not ref_tab:
                            t.close()
                    # A fresh one-chart tab: a timeout there (its run state stuck) failed every later page.
                    ref_tab.goto(ref.url(""), wait_until="commit")
                    ready_time_ms(ref_tab, REFERENCE_TITLE)
                    continue
                rows.append(row)

        finally:
            context.close()
            browser.close()
    return rows, load_start, load()


def measure_page(context, app, base, ref_tab, title, page, key, chart, args) -> dict:
    """One page: a fresh tab (and one on the baseline), a warm-up press, then the presses."""
    tab = context.new_page()
    tab.goto(app.url(page.script, OPEN_TAB.get(page.slug)), wait_until="commit")
    ready_time_ms(tab, title)
    base_tab = None
    if args.baseline and page.slug != "frame":  # the baseline has no frame page
        base_tab = context.new_page()
        base_tab.goto(base.url(page.script, OPEN_TAB.get(page.slug)), wait_until="commit")
        ready_time_ms(base_tab, title)
        press(base_tab, key, chart, title)
    # warm-up press on both (first-press costs: lazy code, caches)
    press(tab, key, chart, title)
    press(ref_tab, REFERENCE_SLIDER, 0, REFERENCE_TITLE)
    a, b, c = [], [], []
    # A B A B …; with a baseline A C B C A B A C B …: the two checkouts take turns at going first, so
    # neither always follows the one-chart app's press. (On a busy machine two identical checkouts
    # still differed by 6-50 %, in either order: bench/RESULTS.md section 13, 2026-11-26.)
    for i in range(args.presses):
        if base_tab is not None and i % 2:
            c.append(press(base_tab, key, chart, title))
            a.append(press(tab, key, chart, title))
        else:
            a.append(press(tab, key, chart, title))
            if base_tab is not None:
                c.append(press(base_tab, key, chart, title))
        b.append(press(ref_tab, REFERENCE_SLIDER, 0, REFERENCE_TITLE))
    errors = exceptions(tab)
    tab.close()
    if base_tab is not None:
        base_tab.close()
    row = {
        "page": title,
        "slider": key,
        "ms": statistics.median(x["total"] for x in a),
        "ref_ms": statistics.median(x["total"] for x in b),
        # where the page's time goes: keydown → run starts → run over → chart drawn
        **{part: statistics.median(x[part] for x in a) for part in ("to_run", "run", "draw")},
        **{"ref_" + part: statistics.median(x[part] for x in b) for part in ("to_run", "run", "draw")},
        "error": errors[0][:100] if errors else "",
    }
    row["ratio"] = row["ms"] / row["ref_ms"]
    if c:
        row["base_ms"] = statistics.median(x["total"] for x in c)
        row["base_ratio"] = row["base_ms"] / row["ref_ms"]
    print(
        f"  {title:<30} {key:<10} {row['ms']:6.0f} ms / {row['ref_ms']:5.0f} ms = {row['ratio']:.2f}×"
        f"  ({row['to_run']:.0f} to run + {row['run']:.0f} run + {row['draw']:.0f} draw;"
        f" one-chart app {row['ref_to_run']:.0f} + {row['ref_run']:.0f} + {row['ref_draw']:.0f})"
        + (f"  baseline {row['base_ms']:.0f} ms = {row['base_ratio']:.2f}×" if c else "")
        + (f"  EXCEPTION {row['error']}" if row["error"] else ""),
        flush=True,
    )
    return row


def timeout_state(tab, key: str) -> str:
    """A tab's state after a timed-out press: its script state, the slider's value and range, and
    the script states logged since the keydown (ms after it)."""
    try:
        return tab.evaluate(
            """(key) => {
              const app = document.querySelector('[data-testid=stApp]');
              const el = document.querySelector(`.st-key-${key} input[type=range]`)
                || document.querySelector('input[type=range]');
              const at = window.__benchKeyAt;
              return JSON.stringify({state: app && app.getAttribute('data-test-script-state'),
                slider: el ? [el.value, el.min, el.max] : null,
                log: (window.__benchStates || []).map(([t, v]) => [Math.round(t - at), v])});
            }""",
            key,
        )
    except Exception as exc:  # the tab itself may be gone
        return f"unreadable: {type(exc).__name__}"


def cold_start_s(cwd: Path, browser) -> float:
    """`streamlit run app.py` → the home page drawn in a fresh browser context (s), as
    bench/run_all.py section 4 measures it."""
    server = StreamlitServer("app.py", cwd=cwd)
    server.start()
    try:
        server.wait_healthy()
        context = browser.new_context(viewport=VIEWPORT)
        tab = context.new_page()
        tab.goto(server.url(""), wait_until="commit")
        ready_time_ms(tab, PAGES[0].title)
        elapsed = time.perf_counter() - server.started_at
        context.close()
        return elapsed
    finally:
        server.stop()


def measure_cold(args) -> list[dict]:
    """Cold start of this checkout and of the baseline, taking turns (A B A B …)."""
    from playwright.sync_api import sync_playwright

    checkouts = [("this branch", ROOT)] + ([("baseline", Path(args.baseline))] if args.baseline else [])
    times: dict[str, list[float]] = {name: [] for name, _ in checkouts}
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for _ in range(args.cold):
                for name, cwd in checkouts:
                    times[name].append(cold_start_s(cwd, browser))
                    print(f"  cold start {name}: {times[name][-1]:.2f} s", flush=True)
        finally:
            browser.close()
    return [{"name": n, "median": statistics.median(t), "all": t} for n, t in times.items()]


def render(rows: list[dict], when: str, load_start: str, load_end: str, args, label: str) -> str:
    if args.baseline:
        return render_ab(rows, when, load_start, load_end, args, label)
    out = [
        f"### {when}{' · ' + label if label else ''}",
        "",
        f"`python bench/slider_latency.py` · {os.cpu_count()} CPUs · load average (1, 5, 15 min) "
        f"{load_start} at the start, {load_end} at the end · median of {args.presses} presses "
        "after one warm-up, alternating with the one-chart app",
        "",
        "| page | slider | slider → charts redrawn | one-chart app | ÷ one-chart | target ≤ 1.2× "
        "| to run start · run + apply · rest |",
        "|---|---|---:|---:|---:|:--:|---|",
    ]
    for r in rows:
        verdict = "ok" if r["ratio"] <= 1.2 else "MISS"
        out.append(
            f"| {r['page']} | {r['slider']} | {r['ms']:.0f} ms | {r['ref_ms']:.0f} ms | {r['ratio']:.2f}× | {verdict}"
            + (f" (exception: {r['error']})" if r["error"] else "")
            + f" | {r['to_run']:.0f} · {r['run']:.0f} · {r['draw']:.0f} ms |"
        )
    return "\n".join(out)


def render_ab(rows: list[dict], when: str, load_start: str, load_end: str, args, label: str) -> str:
    out = [
        f"### {when}{' · ' + label if label else ''}",
        "",
        f"`python bench/slider_latency.py --baseline …` · {os.cpu_count()} CPUs · load average (1, 5, 15 min) "
        f"{load_start} at the start, {load_end} at the end · median of {args.presses} presses after one "
        "warm-up; three servers in one run, taking turns press by press: this branch, the baseline "
        "checkout, the one-chart app",
        "",
        "| page | slider | before | ÷ one-chart | after | ÷ one-chart | one-chart app | target ≤ 1.2× |",
        "|---|---|---:|---:|---:|---:|---:|:--:|",
    ]
    for r in rows:
        verdict = "ok" if r["ratio"] <= 1.2 else "MISS"
        if "base_ms" not in r:  # the frame page (--frame): the baseline has none
            r = {**r, "base_ms": float("nan"), "base_ratio": float("nan")}
        out.append(
            f"| {r['page']} | {r['slider']} | {r['base_ms']:.0f} ms | {r['base_ratio']:.2f}× | {r['ms']:.0f} ms "
            f"| {r['ratio']:.2f}× | {r['ref_ms']:.0f} ms | {verdict}"
            + (f" (exception: {r['error']})" if r["error"] else "")
            + " |"
        )
    return "\n".join(out)


SECTION = "## 13. Slider → charts redrawn, against the one-chart app (bench/slider_latency.py, issue #23)"


def write(table: str) -> Path:
    """Add `table` at the end of section 13 of bench/RESULTS.md (its entries are in the order they were
    measured), creating the section."""
    path = ROOT / "bench" / "RESULTS.md"
    text = path.read_text()
    found = re.search(r"^## 13\.[^\n]*$", text, flags=re.MULTILINE)  # by number: a reworded heading is still it
    if found is None:
        text = text.rstrip("\n") + "\n\n" + SECTION + "\n\nIssue #23's probe (see the script's docstring).\n"
        found = re.search(r"^## 13\.[^\n]*$", text, flags=re.MULTILINE)
        assert found is not None
    head, tail = text[: found.end()], text[found.end() :]
    body, heading, after = tail.partition("\n## ")  # the next section, if any
    path.write_text(
        head + body.rstrip("\n") + "\n\n" + table + "\n" + ("\n" + heading.lstrip("\n") + after if heading else "")
    )
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=5)
    ap.add_argument("--only", nargs="*", help="page slugs")
    ap.add_argument("--all", action="store_true", help="include the real-model page")
    ap.add_argument(
        "--baseline",
        help="another checkout of the app (e.g. `git archive` of an earlier commit): served by a third "
        "server and measured in the same run, A C B A C B …",
    )
    ap.add_argument(
        "--cold", type=int, default=0, help="also measure cold start N times (with the baseline: alternating)"
    )
    ap.add_argument(
        "--frame", action="store_true", help="also the explorer's frame around the one-chart app's chart (a floor)"
    )
    ap.add_argument("--label", default="", help="a note for the heading (e.g. the commit)")
    ap.add_argument("--write", action="store_true", help="record the table in bench/RESULTS.md")
    args = ap.parse_args()
    missing = browser_missing_message()
    if missing:
        print(missing)
        return 1
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    t0 = time.perf_counter()
    rows, load_start, load_end = measure(args) if args.presses else ([], load(), load())
    table = render(rows, when, load_start, load_end, args, args.label) if rows else f"### {when}"
    if args.cold:
        cold = measure_cold(args)
        table += (
            f"\n\nCold start, `streamlit run app.py` → home page drawn (median of {args.cold}, taking turns; "
            f"load {load()} at the end): "
            + ", ".join(f"{c['name']} {c['median']:.2f} s ({', '.join(f'{x:.2f}' for x in c['all'])})" for c in cold)
        )
    print()
    print(table)
    print(f"\n({(time.perf_counter() - t0) / 60:.1f} min)")
    if args.write:
        print(f"written to {write(table)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
