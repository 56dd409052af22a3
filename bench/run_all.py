"""All app benchmarks in one run, side by side: ``python bench/run_all.py``

1. Server-side script run of every page (AppTest, time.perf_counter around ``at.run()``), at the
   defaults and with every control at its maximum: one warm-up run, then the median of 3 runs,
   each after ``st.cache_data.clear()`` and clearing the chart specs shared across sessions
   (explorer.render), so the figure is a real computation, not a cache hit.
2. Browser: navigation → last chart drawn, for every page at its defaults and for the sinusoidal
   heatmap at maximum size (seq_len=8192, d_model=2048), each divided by the same figure for
   bench/small_chart_app.py (one 3-point line chart) served by a second Streamlit server.
   Measurements alternate A B A B … between the two servers so machine noise hits both alike.
3. Interaction: slider ArrowRight → chart redrawn and run over (median of several presses).
4. Cold start: ``streamlit run`` → first page drawn; peak server RSS while visiting every page.
   The heatmap at max is also measured alone (bench/heatmap_only_app.py: the page's whole-table
   chart and nothing else, third server, A B C A B C …).
5. Memory under use: 200 reruns with distinct parameters across all pages (40 page loads with
   distinct URL parameters, each followed by 4 slider presses) → server RSS growth (every page
   cache is bounded, so it must level off).

Prints one table with the targets next to the figures and writes it, with the date and the
machine, to bench/RESULTS.md (``--no-write`` to skip). Takes about 6–9 minutes on 2 cores.
Needs Playwright (python) and /usr/bin/chromium, like tests/test_e2e.py.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from e2e_support import (  # noqa: E402
    VIEWPORT,
    StreamlitServer,
    browser_missing_message,
    exceptions,
    launch_chromium,
    press_slider,
    ready_time_ms,
    slider_latency_ms,
    wait_idle,
    wait_rerun_done,
)

from explorer import render as shared_specs  # noqa: E402
from explorer.manifest import PAGES  # noqa: E402

MB = 1024 * 1024
SMALL_APP = "bench/small_chart_app.py"
SMALL_TITLE = "Small chart"
HEATMAP_ONLY_APP = "bench/heatmap_only_app.py"
HEATMAP_ONLY_TITLE = "Heatmap only"

#: Every control at its maximum (the params' ranges, or the page's own cap): declared with each
#: page (explorer/site/<page>.py, `Page.bench.max_query`).
MAX_SETTINGS: dict[str, dict[str, str]] = {p.script: dict(p.bench.max_query) for p in PAGES}
HEATMAP_MAX = {"seq_len": "8192", "d_model": "2048"}

#: Interaction: (page, slider key, index of a chart that changes with it), from each page's
#: declaration (`Page.bench.slider`).
INTERACTIONS = [(p, p.bench.slider, p.bench.slider_chart) for p in PAGES if p.bench.slider]

TARGETS = {
    "run_default": 0.150,  # s
    "run_max": 1.0,  # s
    "heatmap_ratio": 1.5,
    "interaction": 300.0,  # ms
    "rss_growth": 100 * MB,
}


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISS"


def short(path: str) -> str:
    return "home (app.py)" if path == "app.py" else Path(path).stem


# ---------------------------------------------------------------------------- 1. AppTest
def bench_script_runs(pages: list, repeats: int) -> list[dict]:
    import logging

    import streamlit as st
    from streamlit import logger as st_logger
    from streamlit.testing.v1 import AppTest

    st_logger.set_log_level(logging.ERROR)  # "missing ScriptRunContext", "No runtime found" …
    rows = []
    scripts = [(short(p.script), p.script, MAX_SETTINGS.get(p.script, {})) for p in pages]
    scripts.append(("(floor: small_chart_app.py)", SMALL_APP, None))
    for name, path, max_query in scripts:
        row = {"page": name}
        for label, query in (("default", {}), ("max", max_query)):
            if query is None:
                row[label], row[f"{label}_error"] = None, None
                continue
            st_logger.set_log_level(logging.ERROR)  # AppTest runs reset it from the config
            at = AppTest.from_file(str(ROOT / path), default_timeout=300)
            for k, v in query.items():
                at.query_params[k] = v
            at.run()  # warm-up: imports, first-call costs
            times, error = [], None
            if at.exception:
                error = at.exception[0].message.splitlines()[0][:80]
            for _ in range(repeats):
                st_logger.set_log_level(logging.ERROR)
                st.cache_data.clear()
                shared_specs._shared_spec.clear()  # the charts are built and converted every run
                t0 = time.perf_counter()
                at.run()
                times.append(time.perf_counter() - t0)
                if at.exception and error is None:
                    error = at.exception[0].message.splitlines()[0][:80]
            row[label] = statistics.median(times)
            row[f"{label}_error"] = error
        rows.append(row)
        shown_max = f"{row['max'] * 1e3:7.1f} ms" if row["max"] is not None else "      —"
        print(f"  run {row['page']:<28} default {row['default'] * 1e3:7.1f} ms   max {shown_max}", flush=True)
    return rows


def replace_own_sections(text: str, table: str) -> str:
    """RESULTS.md with this script's part (from the top to the first section it does not write,
    "## 6.") replaced by `table`; the sections other benchmarks write are kept as they are."""
    marker = "\n## 6."
    rest = text[text.index(marker) :] if marker in text else ""
    return table.rstrip("\n") + "\n" + rest


# ------------------------------------------------------------------------- RSS sampling
class RssSampler:
    """Samples a process's RSS every `interval` s in a thread; `.peak` is the largest seen."""

    def __init__(self, server: StreamlitServer, interval: float = 0.05):
        self.server, self.interval = server, interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self.server.memory().get("rss", 0))
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def navigate(page, url: str, title: str) -> float:
    """Full page load; ms from navigation start until every chart is drawn (page clock)."""
    page.goto(url, wait_until="commit")
    return ready_time_ms(page, title)


# ------------------------------------------------------------------------ distinct params
def _distinct_query(path: str, i: int, k: int) -> dict | None:
    """URL parameters for the i-th load (the k-th of this page), distinct for every i."""
    methods = ("default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
    return {
        "app.py": {"shuffle_seed": i, "seed": k, "d_model": 8 + 2 * (k % 20)},
        "pages/1_Sinusoidal_heatmap.py": {
            "seq_len": 128 + 137 * k,
            "d_model": 32 + 2 * (29 * k % 400),
            "zoom_p0": k,
            "sim_n": 64 + k,
        },
        "pages/2_Clock_hands.py": {"d_model": 16 + 2 * (k % 300), "m": 37 * i, "n_clocks": 1 + k % 8},
        "pages/3_RoPE_rotation.py": {"m": 7 * i, "n": 3 * i + 1, "head_dim": 4 + 2 * (k % 120), "traj_m": k, "j": 1},
        "pages/4_Relative_invariance.py": {
            "seed": i,
            "head_dim": 8 + 2 * (k % 60),
            "seq_len": 32 + 7 * k,
            "shift_t": 1 + 13 * k % 200,  # within the shift test chart's reach at these N and d
        },
        "pages/5_Context_extension.py": {
            "head_dim": 32 + 2 * (k % 48),
            "train_len": 1024 + 16 * i,
            "target_len": 8192 + i,
            "rope_type": methods[k % len(methods)],
            "factor": 2 + 0.25 * (k % 20),
        },
        "pages/8_Compare_methods.py": {
            "head_dim": 16 + 2 * (k % 40),
            "train_len": 64 + i,
            "target_len": 300 + 2 * i,
            "seed": i,
            "alibi_head": 1 + k % 8,
        },
        "pages/9_Model_configs.py": {"head_dim": 4 + 2 * (k % 100), "ntk_alpha": round(1 + 0.01 * i, 2)},
    }.get(path)


#: The slider pressed (ArrowRight) after each memory-run page load; `_distinct_query` leaves it
#: room to move.
MEMORY_SLIDERS = {
    "app.py": "d_model",
    "pages/1_Sinusoidal_heatmap.py": "seq_len",
    "pages/2_Clock_hands.py": "m",
    "pages/3_RoPE_rotation.py": "m",
    "pages/4_Relative_invariance.py": "seq_len",  # shift_t is the chart's own slider (explorer.liveparam)
    "pages/5_Context_extension.py": "head_dim",
    "pages/8_Compare_methods.py": "head_dim",
    "pages/9_Model_configs.py": "head_dim",
}


def distinct_params(i: int, pages: list) -> tuple[object, dict[str, str]]:
    """The i-th of the memory run's page loads: (PageInfo, URL parameters), all distinct."""
    info = pages[i % len(pages)]
    q = _distinct_query(info.script, i, i // len(pages))
    return info, {key: (f"{v:g}" if isinstance(v, float) else str(v)) for key, v in q.items()}


# -------------------------------------------------------------------------------- main
def machine() -> dict[str, str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    except OSError:
        nproc = str(os.cpu_count())
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return {"nproc": nproc, "cpu": cpu, "python": platform.python_version(), "load": load}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    parser.add_argument("--reruns", type=int, default=200, help="reruns in the memory run")
    parser.add_argument(
        "--per-load", type=int, default=5, help="memory run: reruns per page load (1 load + slider presses)"
    )
    parser.add_argument("--pairs", type=int, default=3, help="A/B pairs per page (navigation)")
    parser.add_argument("--heatmap-pairs", type=int, default=5, help="A/B pairs, heatmap at max")
    parser.add_argument("--presses", type=int, default=7, help="slider presses per interaction")
    parser.add_argument("--repeats", type=int, default=3, help="AppTest runs per setting (median)")
    args = parser.parse_args()

    missing = browser_missing_message()
    if missing:
        print(missing, file=sys.stderr)
        return 2
    started = time.perf_counter()
    info = machine()
    missing_pages = [p.script for p in PAGES if not (ROOT / p.script).exists()]
    pages = [p for p in PAGES if (ROOT / p.script).exists()]
    for path in missing_pages:
        print(f"PAGES lists {path}, but the file does not exist: left out", flush=True)
    when = dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    print(f"{when} · {info['nproc']} CPUs · {info['cpu']} · load {info['load']}", flush=True)

    print("1/5 server-side script runs (AppTest)…", flush=True)
    runs = bench_script_runs(pages, args.repeats)

    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    results: dict = {
        "runs": runs,
        "missing_pages": missing_pages,
        "no_max": [p.script for p in pages if p.script not in MAX_SETTINGS],
    }
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        context = browser.new_context(viewport=VIEWPORT)
        context.set_default_timeout(120_000)
        page = context.new_page()

        print("4/5 cold start…", flush=True)
        app = StreamlitServer()
        app.start()
        try:
            healthy = app.wait_healthy(120)
            with RssSampler(app) as sampler:
                first = navigate(page, app.url("app.py"), PAGES[0].title)
                cold_total = time.perf_counter() - app.started_at
                for p in pages[1:]:
                    navigate(page, app.url(p.script), p.title)
            mem = app.memory()
            results["cold"] = {
                "healthy": healthy,
                "first_drawn": cold_total,
                "first_nav_ms": first,
                "peak_sampled": sampler.peak,
                "peak_hwm": mem.get("peak", 0),
                "rss_after": mem.get("rss", 0),
            }
            print(
                f"  healthy {healthy:.2f} s, first page drawn {cold_total:.2f} s, peak RSS {sampler.peak / MB:.0f} MB",
                flush=True,
            )

            print("2/5 navigation → last chart drawn, alternating with the small-chart page…", flush=True)
            with StreamlitServer(SMALL_APP) as small, StreamlitServer(HEATMAP_ONLY_APP) as heat_only:
                small_url, heat_only_url = small.url(""), heat_only.url("")
                navigate(page, small_url, SMALL_TITLE)  # warm-up (browser cache, imports)
                nav = []
                targets = [(app.url(p.script), p.title, args.pairs, short(p.script), False) for p in pages]
                targets.append(
                    (
                        app.url(PAGES[1].script, HEATMAP_MAX),
                        PAGES[1].title,
                        args.heatmap_pairs,
                        "Sinusoidal heatmap page at 8192×2048",
                        True,
                    )
                )
                for url, title, pairs, label, heat in targets:
                    first_ms = navigate(page, url, title)  # warm-up; cold cache for this URL
                    a, b, c = [], [], []
                    if heat:
                        navigate(page, heat_only_url, HEATMAP_ONLY_TITLE)  # warm-up
                    for _ in range(pairs):  # A B A B … (A B C A B C … for the heatmap)
                        a.append(navigate(page, url, title))
                        b.append(navigate(page, small_url, SMALL_TITLE))
                        if heat:
                            c.append(navigate(page, heat_only_url, HEATMAP_ONLY_TITLE))
                    row = {
                        "label": label,
                        "page_ms": statistics.median(a),
                        "small_ms": statistics.median(b),
                        "first_ms": first_ms,
                        "heat": heat,
                    }
                    row["ratio"] = row["page_ms"] / row["small_ms"]
                    print(
                        f"  nav {label:<38} {row['page_ms']:7.0f} ms / {row['small_ms']:5.0f} ms = "
                        f"{row['ratio']:.2f}×  (first {first_ms:.0f} ms)",
                        flush=True,
                    )
                    nav.append(row)
                    if heat:
                        only = {
                            "label": "heatmap chart alone at 8192×2048 (bench/heatmap_only_app.py)",
                            "page_ms": statistics.median(c),
                            "small_ms": row["small_ms"],
                            "first_ms": float("nan"),
                            "heat": True,
                        }
                        only["ratio"] = only["page_ms"] / only["small_ms"]
                        print(
                            f"  nav {'heatmap chart alone':<38} {only['page_ms']:7.0f} ms / "
                            f"{only['small_ms']:5.0f} ms = {only['ratio']:.2f}×",
                            flush=True,
                        )
                        nav.append(only)
                results["nav"] = nav

            print("3/5 interaction latency…", flush=True)
            inter = []
            for p, key, chart in INTERACTIONS:
                # A fresh tab per page, as a user opening it (the navigation tab above has been
                # through dozens of full page loads).
                tab = context.new_page()
                navigate(tab, app.url(p.script), p.title)
                lat = [slider_latency_ms(tab, key, chart, p.title) for _ in range(args.presses)]
                tab.close()
                row = {"label": f"{p.title}: {key}"}
                for part in ("total", "to_run", "run", "draw"):
                    row[part] = statistics.median(x[part] for x in lat)
                row["min"], row["max"] = min(x["total"] for x in lat), max(x["total"] for x in lat)
                inter.append(row)
                print(
                    f"  {row['label']}  median {row['total']:.0f} ms (min {row['min']:.0f}, max "
                    f"{row['max']:.0f}) = {row['to_run']:.0f} to run + {row['run']:.0f} run + "
                    f"{row['draw']:.0f} draw",
                    flush=True,
                )
            results["interaction"] = inter

            print(f"5/5 memory: {args.reruns} reruns with distinct parameters…", flush=True)
            mem_pages = [p for p in pages if _distinct_query(p.script, 0, 0) is not None and p.script in MEMORY_SLIDERS]
            before = app.memory()["rss"]
            checkpoints, done, group = {}, 0, 0
            problems = results.setdefault("memory_errors", [])
            t_mem = time.perf_counter()
            with RssSampler(app, interval=0.1) as sampler:
                while done < args.reruns:
                    # one page load with distinct URL parameters, then slider presses (each a rerun
                    # with yet other values): `per_load` reruns per load
                    p, query = distinct_params(group, mem_pages)
                    group += 1
                    page.goto(app.url(p.script, query), wait_until="commit")
                    wait_idle(page, title=p.title, timeout=120)
                    n_here = 1  # the load itself
                    for _ in range(min(args.per_load, args.reruns - done) - 1):
                        try:
                            press_slider(page, MEMORY_SLIDERS[p.script])
                            wait_rerun_done(page, p.title, timeout=60)
                            n_here += 1
                        except PlaywrightTimeout:
                            problems.append((page.url, f"no rerun after pressing {MEMORY_SLIDERS[p.script]}"))
                            break
                    if len(problems) > 10:
                        raise RuntimeError(f"memory run: too many problems: {problems}")
                    errors = exceptions(page)
                    if errors:
                        problems.append((page.url, errors[0][:200]))
                    for _ in range(n_here):
                        done += 1
                        if done % 50 == 0:
                            checkpoints[done] = app.memory()["rss"]
                            print(f"  after {done}: RSS {checkpoints[done] / MB:.0f} MB", flush=True)
                page.goto("about:blank")
                time.sleep(2)
            after = app.memory()["rss"]
            results["memory"] = {
                "before": before,
                "after": after,
                "growth": after - before,
                "peak": sampler.peak,
                "checkpoints": checkpoints,
                "loads": group,
                "seconds": time.perf_counter() - t_mem,
            }
        finally:
            app.stop()
            context.close()
            browser.close()

    results["seconds"] = time.perf_counter() - started
    table = render(results, info, when, args)
    print()
    print(table)
    if not args.no_write:
        path = ROOT / "bench" / "RESULTS.md"
        path.write_text(replace_own_sections(path.read_text() if path.exists() else "", table))
        print(f"\nwritten to {path} (sections 1-5; the other benchmarks' sections kept)")
    return 0


def render(r: dict, info: dict, when: str, args) -> str:
    busy = float(info["load"].split()[0]) > float(info["nproc"] or 1)
    out = [
        "# Benchmark results",
        "",
        f"`python bench/run_all.py` · {when} · {info['nproc']} CPUs ({info['cpu']}) · Python {info['python']} "
        f"· load average at start {info['load']} · whole run {r['seconds'] / 60:.1f} min",
        "",
        *(
            [
                "**The machine was busy** (load average above the CPU count: other processes were running), "
                "so absolute times are inflated; the navigation ratios, measured alternately with the "
                "reference page, are less affected.",
                "",
            ]
            if busy
            else []
        ),
        *(
            [f"Left out (listed in PAGES, file missing): {', '.join(r['missing_pages'])}", ""]
            if r["missing_pages"]
            else []
        ),
        "## 1. Server-side script run (AppTest, median of "
        f"{args.repeats} after a warm-up, `st.cache_data` and the shared chart specs cleared before each run)",
        "",
        "| page | defaults | target ≤ 150 ms | every control at max | target ≤ 1 s |",
        "|---|---:|:--:|---:|:--:|",
    ]
    for row in r["runs"]:
        d, m = row["default"], row["max"]
        if m is None:  # the AppTest floor: a script with one small chart
            out.append(f"| {row['page']} | {d * 1e3:.0f} ms | | | |")
            continue
        d_note = verdict(d <= TARGETS["run_default"]) + (
            f" (error: {row['default_error']})" if row["default_error"] else ""
        )
        m_note = verdict(m <= TARGETS["run_max"]) + (f" (error: {row['max_error']})" if row["max_error"] else "")
        out.append(f"| {row['page']} | {d * 1e3:.0f} ms | {d_note} | {m * 1e3:.0f} ms | {m_note} |")
    if r["no_max"]:
        out += [
            "",
            "No maximum settings defined in bench/run_all.py (MAX_SETTINGS) for: "
            + ", ".join(r["no_max"])
            + ' — its "max" column repeats the defaults.',
        ]
    out += [
        "",
        "## 2. Navigation → last chart drawn (browser), against a page with one 3-point chart",
        "",
        f"Full page load in headless Chromium until every chart is drawn; medians of {args.pairs} "
        f"({args.heatmap_pairs} for the heatmap at max) measurements alternating with "
        'bench/small_chart_app.py on a second server; "first" is the first load of that URL '
        "(cold cache).",
        "",
        "| page | page | small chart | ratio | first load | target |",
        "|---|---:|---:|---:|---:|:--:|",
    ]
    for row in r["nav"]:
        # The target compares like with like: a page with the heatmap at 8192×2048 against a page
        # with one small chart. The whole Sinusoidal page at max is shown too (no target: its
        # frame, controls and second chart cost the same at any size, see the note below).
        alone = row["label"].startswith("heatmap chart alone")
        target = f"≤ 1.5× {verdict(row['ratio'] <= TARGETS['heatmap_ratio'])}" if alone else ""
        first = "" if row["first_ms"] != row["first_ms"] else f"{row['first_ms']:.0f} ms"  # NaN: none
        out.append(
            f"| {row['label']} | {row['page_ms']:.0f} ms | {row['small_ms']:.0f} ms | "
            f"{row['ratio']:.2f}× | {first} | {target} |"
        )
    by_label = {row["label"]: row for row in r["nav"]}
    default_page = by_label.get(short(PAGES[1].script))
    max_page = by_label.get("Sinusoidal heatmap page at 8192×2048")
    if default_page and max_page:
        out += [
            "",
            f"The Sinusoidal heatmap page at 8192×2048 against the same page at its defaults "
            f"(128×128): {max_page['ratio'] / default_page['ratio']:.2f}× (ratio of the two "
            "ratios): the size of the table costs little. The whole page is slower than the "
            "one-chart page at any size because of what every page carries (sidebar navigation, "
            'formula, controls, the open tab\'s chart); "heatmap chart alone" is its whole-table '
            "chart at 8192×2048 with nothing else on the page, the like-for-like comparison "
            "with the one-chart page.",
        ]
    out += [
        "",
        f"## 3. Interaction: slider ArrowRight → chart redrawn and run over ({args.presses} presses, page at defaults)",
        "",
        "Measured on the page's clock: keydown → the app's script state turns \"running\" (widget "
        'debounce, websocket) → "notRunning" (the server runs the script while the browser applies '
        "its output, charts included) → the changed chart is drawn (the rest).",
        "",
        "| slider | median | to run start | run + apply | rest | min | max | target ≤ 300 ms |",
        "|---|---:|---:|---:|---:|---:|---:|:--:|",
    ]
    for row in r["interaction"]:
        out.append(
            f"| {row['label']} | {row['total']:.0f} ms | {row['to_run']:.0f} ms | {row['run']:.0f} ms | "
            f"{row['draw']:.0f} ms | {row['min']:.0f} ms | {row['max']:.0f} ms | "
            f"{verdict(row['total'] <= TARGETS['interaction'])} |"
        )
    c, m = r["cold"], r["memory"]
    checkpoints = ", ".join(f"{k}: {v / MB:.0f} MB" for k, v in m["checkpoints"].items())
    out += [
        "",
        "## 4. Cold start and peak memory",
        "",
        "| figure | value |",
        "|---|---:|",
        f"| `streamlit run` → /_stcore/health ok | {c['healthy']:.2f} s |",
        f"| `streamlit run` → first page (home) drawn | {c['first_drawn']:.2f} s |",
        f"| of which the browser navigation | {c['first_nav_ms'] / 1e3:.2f} s |",
        f"| peak server RSS while visiting every page (sampled every 50 ms) | {c['peak_sampled'] / MB:.0f} MB |",
        f"| kernel high-water mark (VmHWM) after the visits | {c['peak_hwm'] / MB:.0f} MB |",
        f"| RSS after the visits | {c['rss_after'] / MB:.0f} MB |",
        "",
        f"## 5. Memory under use: {args.reruns} reruns with distinct parameters across all pages",
        "",
        f"{m['loads']} page loads with distinct URL parameters (cycling through the pages), each followed "
        f"by {args.per_load - 1} slider presses (ArrowRight: each a rerun with new values), one browser tab.",
        "",
        "| figure | value | target |",
        "|---|---:|:--:|",
        f"| RSS before | {m['before'] / MB:.0f} MB | |",
        f"| RSS after (2 s after the last load) | {m['after'] / MB:.0f} MB | |",
        f"| growth | {m['growth'] / MB:+.0f} MB | ≤ 100 MB {verdict(m['growth'] <= TARGETS['rss_growth'])} |",
        f"| peak RSS during the run | {m['peak'] / MB:.0f} MB | |",
        f"| RSS after n reruns | {checkpoints} | |",
        f"| duration | {m['seconds']:.0f} s | |",
    ]
    if r.get("memory_errors"):
        out += ["", "Problems during the memory run (exceptions shown, presses without a rerun):", ""]
        out += [f"- {url}: {err}" for url, err in r["memory_errors"]]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
