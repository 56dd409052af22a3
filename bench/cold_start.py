"""Cold start side by side: ``python bench/cold_start.py [--repeats 5]``

Issue #23 asks for "cold start to the first page drawn ≤ 2.5 s". What a cold start costs beyond
Streamlit's own (its server start, its JavaScript bundle, its websocket) is shown by timing the
explorer's home page and the one-chart app (bench/slider_chart_app.py: a title, a slider and one
Altair chart) the same way, alternately, in one run: from ``streamlit run`` to the page drawn in
Chromium (the title shown, the run over, every chart drawn: tests/e2e_support.ready_time_ms), in a
fresh browser context each time (nothing cached). Prints the medians, their ratio, the date and the
load average at the start and the end.

``--baseline DIR``: a second checkout of the explorer (``git worktree add DIR <rev>``), measured in
the same turns, for a before/after. ``--compiled``: compile the app's bytecode first
(``python -m compileall`` in each checkout, as the Dockerfile does); without it, whatever the
environment gives (with PYTHONDONTWRITEBYTECODE set and no ``__pycache__``, every server start
compiles the app afresh). The header says which.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _p in (ROOT, ROOT / "tests"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from e2e_support import SERVE, StreamlitServer, entry, launch_chromium, ready_time_ms, require_browser  # noqa: E402

from explorer.manifest import PAGES  # noqa: E402

APPS = {"explorer (home)": (SERVE, PAGES[0].title), "one-chart app": ("bench/slider_chart_app.py", "One chart")}


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


#: What `--compiled` compiles in a checkout (the Dockerfile's list: the page scripts Streamlit compiles itself).
APP_CODE = ("explorer", "posenc")


def compile_bytecode(root: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *APP_CODE], cwd=root, check=True, stdout=subprocess.DEVNULL
    )


def bytecode_state(root: Path) -> str:
    cached = any((root / "explorer" / "__pycache__").glob("*.pyc"))
    return "compiled" if cached else "not compiled (each start compiles it)"


def cold_start(browser, script: str, title: str, root: Path = ROOT) -> tuple[float, float]:
    """(seconds from `streamlit run` to /_stcore/health ok, seconds to the first page drawn)."""
    server = StreamlitServer(script, cwd=root)
    server.start()
    try:
        healthy = server.wait_healthy(120)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            page = context.new_page()
            page.goto(server.url(script), wait_until="commit")
            ready_time_ms(page, title)
            drawn = time.perf_counter() - server.started_at
        finally:
            context.close()
    finally:
        server.stop()
    return healthy, drawn


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--baseline", type=Path, help="a second checkout of the explorer, measured in the same turns")
    ap.add_argument("--compiled", action="store_true", help="compile the app's bytecode first (as the Dockerfile)")
    args = ap.parse_args(argv)
    require_browser()
    from playwright.sync_api import sync_playwright

    apps = {name: (script, title, ROOT) for name, (script, title) in APPS.items()}
    if args.baseline:
        _, title = APPS["explorer (home)"]
        apps = {
            "explorer (home)": apps["explorer (home)"],
            "baseline (home)": (entry(args.baseline), title, args.baseline.resolve()),
        }
        apps["one-chart app"] = (*APPS["one-chart app"], ROOT)
    roots = sorted({root for _, _, root in apps.values()})
    if args.compiled:
        for root in roots:
            compile_bytecode(root)
    print(f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC · {os.cpu_count()} CPUs · load {load()}", flush=True)
    print(f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')!r}", flush=True)
    for root in roots:
        print(f"  {root}: bytecode {bytecode_state(root)}", flush=True)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in apps}
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for _ in range(args.repeats):
                for name, (script, title, root) in apps.items():
                    times[name].append(cold_start(browser, script, title, root))
                    print(
                        f"  {name:<16} healthy {times[name][-1][0]:.2f} s  drawn {times[name][-1][1]:.2f} s", flush=True
                    )
        finally:
            browser.close()
    med = {
        name: (statistics.median(h for h, _ in xs), statistics.median(d for _, d in xs)) for name, xs in times.items()
    }
    ref = med["one-chart app"][1]
    print("\n| app | `streamlit run` → health ok | → first page drawn | ÷ one-chart app |")
    print("|---|---:|---:|---:|")
    for name, (h, d) in med.items():
        print(f"| {name} | {h:.2f} s | {d:.2f} s | {d / ref:.2f}× |")
    print(f"\nmedians of {args.repeats}; load at the end {load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
