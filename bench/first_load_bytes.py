"""First-load transfer, side by side: ``python bench/first_load_bytes.py --baseline DIR [--repeats 2]``

Issue #36 asks that "a page's first load transfers at most 2 MB more than today" (today: the commit
that filed it, 8b7b230; ``git worktree add DIR 8b7b230``). For every page of the manifest, in a fresh
browser context (nothing cached), this opens the page on a server of each checkout, waits until the
run is over and every chart is drawn, and counts what reached the browser: every HTTP response body
(Playwright's ``request.sizes()``: bytes on the wire) and every websocket frame the server sent (the
page's elements and chart specs travel there). Bytes do not depend on the machine's load. Prints one
table (each page: baseline, now, difference in MB) with the date.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for _p in (ROOT, ROOT / "tests"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from e2e_support import APP_IDLE, StreamlitServer, entry, launch_chromium, require_browser, wait_charts_drawn  # noqa: E402

from explorer.manifest import PAGES  # noqa: E402

#: the budget the issue gives, bytes more than the baseline
BUDGET = 2 * 1024 * 1024


def first_load(browser, server: StreamlitServer, path: str) -> tuple[int, int]:
    """(HTTP bytes, websocket bytes) of opening ``path`` once in a fresh context."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    http: list[object] = []
    ws_bytes = [0]
    try:
        page = context.new_page()
        page.on("requestfinished", lambda request: http.append(request))

        def on_ws(ws) -> None:
            ws.on("framereceived", lambda payload: ws_bytes.__setitem__(0, ws_bytes[0] + len(payload)))

        page.on("websocket", on_ws)
        page.goto(f"{server.base_url}/{path}", wait_until="commit")
        page.wait_for_selector("[data-testid=stMain] h1", timeout=180_000)  # the page's own title
        page.wait_for_selector(APP_IDLE, timeout=180_000)
        wait_charts_drawn(page, timeout=180)
        page.wait_for_selector(APP_IDLE, timeout=180_000)
        page.wait_for_timeout(1500)  # late chunks (fonts, lazily loaded Vega) finish
        total = 0
        for request in http:
            sizes = request.sizes()  # type: ignore[attr-defined]
            total += max(0, sizes.get("responseBodySize", 0)) + max(0, sizes.get("responseHeadersSize", 0))
        return total, ws_bytes[0]
    finally:
        context.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--baseline", type=Path, required=True, help="a checkout of the commit to compare with")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args(argv)
    require_browser()
    from playwright.sync_api import sync_playwright

    print(f"{dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC · {os.cpu_count()} CPUs · load {os.getloadavg()[0]:.2f}")
    trees = {"baseline": args.baseline.resolve(), "now": ROOT}
    got: dict[str, dict[str, list[int]]] = {name: {} for name in trees}
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        try:
            for name, root in trees.items():
                with StreamlitServer(entry(root), cwd=root) as server:
                    server.wait_healthy(120)
                    for page in PAGES:
                        path = "" if page is PAGES[0] else page.url_path
                        for _ in range(args.repeats):
                            http, ws = first_load(browser, server, path)
                            got[name].setdefault(page.title, []).append(http + ws)
                            print(f"  {name:<8} {page.title:<28} http {http / 1e6:6.2f} MB  ws {ws / 1e6:6.2f} MB")
        finally:
            browser.close()
    print("\n| page | baseline | now | now − baseline | within +2 MB |")
    print("|---|---:|---:|---:|:--:|")
    for page in PAGES:
        base, now = min(got["baseline"][page.title]), min(got["now"][page.title])
        ok = "ok" if now - base <= BUDGET else "**over**"
        print(
            f"| {page.title} | {base / 2**20:.2f} MB | {now / 2**20:.2f} MB | {(now - base) / 2**20:+.2f} MB | {ok} |"
        )
    print(f"\nsmallest of {args.repeats} loads each; MB = 2^20 bytes; load at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
