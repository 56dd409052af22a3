"""Helpers for the end-to-end browser tests (tests/test_e2e.py) and the benchmarks (bench/run_all.py).

Playwright (python) drives Debian's Chromium at /usr/bin/chromium; we never download a browser.
A `StreamlitServer` runs ``python -m streamlit run <script>`` on a free port from the repository
root and is stopped afterwards (terminate, then kill). The page helpers wait for Streamlit to
finish a script run and for every Altair chart to be drawn, and read what the widgets show.

No pytest import at module level: bench/run_all.py uses this module too.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORT = {"width": 1400, "height": 1000}

#: Streamlit 1.67 test ids (checked against the served DOM).
APP_IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
CHART = "[data-testid=stVegaLiteChart]"  # st.altair_chart / st.vega_lite_chart (vega-embed)
EXCEPTION = "[data-testid=stException]"
NAV_LINK = "[data-testid=stSidebar] [data-testid=stPageLink-NavLink]"


# ----------------------------------------------------------------------------- browser
def browser_missing_message() -> str | None:
    """Why the e2e tests cannot run here, or None if Chromium is available."""
    if os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK):
        return None
    return (
        f"Chromium not found at {CHROMIUM}: the end-to-end browser tests need Debian's chromium "
        "(`sudo apt-get install chromium`); Playwright's own browser download is not used. "
        "Set REQUIRE_BROWSER=1 to make this a failure (CI does)."
    )


def require_browser() -> None:
    """pytest: skip when Chromium is missing, or fail when REQUIRE_BROWSER=1 (CI)."""
    import pytest

    message = browser_missing_message()
    if message is None:
        return
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def launch_chromium(playwright: Any) -> Any:
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)


# ------------------------------------------------------------------------------ server
def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: The explorer's server entry, as the README runs it: serve.py (app.py's pages behind an st.App that imports them first).
SERVE = "serve.py"


def entry(cwd: Path = ROOT) -> str:
    """The entry script to serve the explorer in the checkout `cwd` with: `SERVE`, or app.py in a checkout older
    than serve.py (a benchmark's baseline)."""
    return SERVE if (Path(cwd) / SERVE).exists() else "app.py"


class StreamlitServer:
    """``python -m streamlit run <script>`` (the explorer's `SERVE` unless told) on a free port, cwd = repository root.

    Use as a context manager, or call `start()` / `stop()`. `env`: variables added to the server's
    environment. The server's output goes to a
    temporary log file; `log_tail()` returns its end for error messages; `stop()` deletes it
    (unless E2E_KEEP_LOGS is set).
    """

    def __init__(
        self, script: str = SERVE, *, port: int | None = None, cwd: Path = ROOT, env: dict[str, str] | None = None
    ):
        self.script = script
        self.env = env or {}
        self.port = port or free_port()
        self.cwd = Path(cwd)
        self.proc: subprocess.Popen | None = None
        self._log = tempfile.NamedTemporaryFile(prefix=f"streamlit-{self.port}-", suffix=".log", delete=False)
        self.log_path = Path(self._log.name)
        self.started_at: float | None = None

    # lifecycle
    def start(self) -> StreamlitServer:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **self.env}
        self.started_at = time.perf_counter()
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                self.script,
                "--server.port",
                str(self.port),
                "--server.headless",
                "true",
                "--browser.gatherUsageStats",
                "false",
            ],
            cwd=self.cwd,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        return self

    def wait_healthy(self, timeout: float = 60.0) -> float:
        """Poll /_stcore/health until it answers "ok". Returns seconds since `start()`."""
        assert self.proc is not None and self.started_at is not None, "start() first"
        deadline = time.perf_counter() + timeout
        url = f"{self.base_url}/_stcore/health"
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"streamlit exited with code {self.proc.returncode} before it was healthy:\n" + self.log_tail()
                )
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200 and response.read().strip() == b"ok":
                        return time.perf_counter() - self.started_at
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.perf_counter() > deadline:
                raise TimeoutError(
                    f"streamlit on port {self.port} not healthy after {timeout:.0f} s:\n" + self.log_tail()
                )
            time.sleep(0.1)

    def stop(self) -> None:
        proc, self.proc = self.proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        self._log.close()
        if not os.environ.get("E2E_KEEP_LOGS"):  # E2E_KEEP_LOGS=1 keeps them for debugging
            self.log_path.unlink(missing_ok=True)

    def __enter__(self) -> StreamlitServer:
        self.start()
        try:
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # information
    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, page_path: str = "app.py", query: dict[str, Any] | None = None) -> str:
        """Absolute URL of a page (a declared script path) with optional query parameters."""
        from explorer.compat import page_url_path

        path = page_url_path(page_path) if page_path.endswith(".py") else page_path
        url = f"{self.base_url}/{path}"
        if query:
            url += "?" + urlencode({k: str(v) for k, v in query.items()})
        return url

    def log_tail(self, n: int = 40) -> str:
        try:
            self._log.flush()
        except ValueError:
            pass
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return "\n".join(lines[-n:])

    def memory(self) -> dict[str, int]:
        """Resident memory of the server process in bytes: {"rss": …, "peak": …} (peak = VmHWM,
        the kernel's high-water mark, when /proc has it). psutil when installed, else /proc."""
        return process_memory(self.pid)


def process_memory(pid: int) -> dict[str, int]:
    out: dict[str, int] = {}
    try:
        import psutil  # a streamlit dependency on most installs

        out["rss"] = int(psutil.Process(pid).memory_info().rss)
    except ImportError:
        pass
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(("VmRSS:", "VmHWM:")):
                    kib = int(line.split()[1]) * 1024
                    out.setdefault("rss" if line.startswith("VmRSS") else "peak", kib)
    except OSError:
        pass
    return out


# ------------------------------------------------------------------------ page helpers
_CHARTS_DRAWN_JS = """
() => {
  const charts = [...document.querySelectorAll('[data-testid=stVegaLiteChart]')];
  const drawn = (c) => {
    const canvas = c.querySelector('canvas');
    if (canvas) {
      if (!(canvas.width > 0 && canvas.height > 0)) return false;
      const r = canvas.getBoundingClientRect();
      if (!(r.width > 0 && r.height > 0)) return false;
      // Not blank: scale the canvas down and look for one painted pixel.
      const probe = document.createElement('canvas');
      probe.width = 48; probe.height = 48;
      const ctx = probe.getContext('2d');
      ctx.drawImage(canvas, 0, 0, 48, 48);
      const px = ctx.getImageData(0, 0, 48, 48).data;
      for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) return true;
      return false;
    }
    const svg = c.querySelector('svg');
    if (!svg) return false;
    const r = svg.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && svg.querySelector('path, rect, line, text, image') !== null;
  };
  return charts.every(drawn);
}
"""

_CHART_INFO_JS = """
() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].map((c) => {
  const el = c.querySelector('canvas') || c.querySelector('svg');
  const r = el ? el.getBoundingClientRect() : {width: 0, height: 0};
  return {renderer: el ? el.tagName.toLowerCase() : null, width: r.width, height: r.height,
          images: c.querySelectorAll('svg image').length};
})
"""

#: Every <img> in the app and every <image> inside an SVG chart, with its natural size.
_IMAGES_JS = """
async () => {
  const out = [];
  for (const im of document.querySelectorAll('[data-testid=stApp] img')) {
    if (!im.complete) { try { await im.decode(); } catch (e) {} }
    out.push({kind: 'img', src: (im.currentSrc || im.src).slice(0, 60),
              width: im.naturalWidth, height: im.naturalHeight});
  }
  for (const node of document.querySelectorAll('[data-testid=stVegaLiteChart] svg image')) {
    const href = node.getAttribute('href') || node.getAttribute('xlink:href') || '';
    const im = new Image();
    im.src = href;
    try { await im.decode(); } catch (e) {}
    out.push({kind: 'svg-image', src: href.slice(0, 60), width: im.naturalWidth, height: im.naturalHeight});
  }
  return out;
}
"""

#: A fingerprint per chart: FNV-1a of the SVG markup, or of every pixel of the canvas.
_CHART_FINGERPRINTS_JS = """
() => [...document.querySelectorAll('[data-testid=stVegaLiteChart]')].map((c) => {
  let h = 2166136261 >>> 0;
  const mix = (v) => { h ^= v; h = Math.imul(h, 16777619) >>> 0; };
  const canvas = c.querySelector('canvas');
  if (canvas) {
    if (!canvas.width || !canvas.height) return 'empty';
    const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 0; i < px.length; i++) mix(px[i]);
    return 'c' + canvas.width + 'x' + canvas.height + ':' + h;
  }
  const svg = c.querySelector('svg');
  if (!svg) return 'none';
  const s = svg.outerHTML;
  for (let i = 0; i < s.length; i++) mix(s.charCodeAt(i));
  return 's' + s.length + ':' + h;
})
"""

_READ_WIDGET_JS = """
(key) => {
  const OPTION_INPUTS = OPTION_INPUTS_JSON;
  const c = document.querySelector('.st-key-' + key);
  if (!c) {
    // a chart's own slider (explorer.liveparam): the in-chart binding labelled with the key
    const bind = [...document.querySelectorAll('[data-testid=stVegaLiteChart] .vega-bind')].find(
      (b) => (b.querySelector('.vega-bind-name')?.textContent || '').trim() === key
        || b.querySelector('input')?.name === key + '_' + key);  /* explorer.charts.live.input_signal */
    if (!bind) return null;
    // a slider over a parameter's option indices (the base b) shows the option beside it
    // (explorer.assets.OPTION_LABELS): that is what it displays (without thousands commas), not its index
    const input = bind.querySelector('input'), shown = input.nextElementSibling;
    return OPTION_INPUTS.includes(input.name) && shown ? shown.textContent.replace(/,/g, '') : input.value;
  }
  // st.tabs: the open tab (checked first: the tabs' container also holds the open tab's widgets).
  const tab = c.querySelector('[role=tablist] [role=tab][aria-selected=true]');
  if (tab) return tab.innerText.trim();
  const thumbs = c.querySelectorAll('[data-testid=stSliderThumbValue]');
  if (thumbs.length) return [...thumbs].map((t) => t.innerText.trim()).join(',');
  const radios = [...c.querySelectorAll('input[type=radio]')];
  if (radios.length) {
    const on = radios.find((r) => r.checked);
    return on ? on.closest('label').innerText.trim() : '';
  }
  const seg = c.querySelector('[role=radio][aria-checked=true]');
  if (seg) return seg.innerText.trim();
  if (c.querySelector('[role=radiogroup]')) return '';
  const box = c.querySelector('input[type=checkbox]');
  if (box) return box.checked ? 'true' : 'false';
  const input = c.querySelector('input, textarea');
  if (input) return input.value;
  return c.innerText.trim();
}
"""

_NAV_NAMES_JS = """
() => [...document.querySelectorAll('[data-testid=stSidebar] [data-testid=stPageLink-NavLink]')].map((a) => {
  const copy = a.cloneNode(true);
  copy.querySelectorAll('[data-testid=stIconMaterial]').forEach((i) => i.remove());
  return copy.innerText.trim();
})
"""

#: Nothing left from an earlier run (stale) and no lazily loaded element still a placeholder:
#: Streamlit shows an stSkeleton while it downloads the code for a chart, a table or KaTeX, which
#: can take seconds after the script run has ended (each browser context downloads it afresh).
_SETTLED_JS = """
() => document.querySelectorAll('[data-stale=true]').length === 0
   && document.querySelectorAll('[data-testid=stApp] [data-testid=stSkeleton]').length === 0
"""


#: Performance clock (ms since the navigation started) at the moment the page is ready: the run
#: is over, the page's h1 contains `title`, nothing stale or loading, and every chart (at least
#: one) is drawn. False until then. For `page.wait_for_function(..., polling="raf")`.
_READY_JS = (
    "(title) => {"
    " const app = document.querySelector('[data-testid=stApp]');"
    " if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;"
    " if (![...document.querySelectorAll('[data-testid=stMain] h1')]"
    "      .some((h) => h.innerText.includes(title))) return false;"
    " if (!(" + _SETTLED_JS.strip() + ")()) return false;"
    " if (!document.querySelector('[data-testid=stVegaLiteChart]')) return false;"
    " if (!(" + _CHARTS_DRAWN_JS.strip() + ")()) return false;"
    " return performance.now(); }"
)

#: A quick fingerprint of chart `i` (an SVG's markup, or the canvas scaled to 32 × 32).
#: `slider_latency_ms` evaluates it only on frames where the page is ready (the run over, every chart
#: drawn), until the chart has changed, and takes the time before it: it runs on the page's own main
#: thread, so it is kept out of the frames of the run itself. (An earlier probe hashed on every frame
#: of the run, kept a document-wide MutationObserver for a cache, and took the time after the last
#: hash; measured side by side on the same tabs, it read 4–17 ms more a press on the pages and
#: 6–10 ms more on the one-chart app, bench/RESULTS.md section 13, 2026-11-26.)
_QUICK_FINGERPRINT_JS = """
(i) => {
  const c = document.querySelectorAll('[data-testid=stVegaLiteChart]')[i];
  if (!c) return 'missing';
  let h = 2166136261 >>> 0;
  const mix = (v) => { h ^= v; h = Math.imul(h, 16777619) >>> 0; };
  const canvas = c.querySelector('canvas');
  if (canvas) {
    if (!canvas.width || !canvas.height) return 'empty';
    const probe = document.createElement('canvas');
    probe.width = 32; probe.height = 32;  /* small: it runs on every frame, beside the app */
    const ctx = probe.getContext('2d');
    ctx.drawImage(canvas, 0, 0, 32, 32);
    const px = ctx.getImageData(0, 0, 32, 32).data;
    for (let k = 0; k < px.length; k++) mix(px[k]);
    return 'c' + canvas.width + 'x' + canvas.height + ':' + h;
  }
  const svg = c.querySelector('svg');
  if (!svg) return 'none';
  const s = svg.outerHTML;
  for (let k = 0; k < s.length; k++) mix(s.charCodeAt(k));
  return 's' + s.length + ':' + h;
}
"""


def ready_time_ms(page: Any, title: str, timeout: float = 120.0, polling: Any = "raf") -> float:
    """Wait until the page is ready (see `_READY_JS`); return the page's clock then: milliseconds
    since the navigation started."""
    handle = page.wait_for_function(_READY_JS, arg=title, timeout=timeout * 1000, polling=polling)
    return float(handle.json_value())


def quick_fingerprint(page: Any, index: int) -> str:
    return page.evaluate(_QUICK_FINGERPRINT_JS, index)


def settled_fingerprint(page: Any, index: int, *, interval_ms: int = 150, timeout: float = 10.0) -> str:
    """Chart `index`'s fingerprint once it stops changing (two equal readings `interval_ms`
    apart): an image mark can finish drawing after the page reports ready, and a change that
    is not caused by the measured interaction must not end the measurement."""
    deadline = time.monotonic() + timeout
    last = quick_fingerprint(page, index)
    while True:
        page.wait_for_timeout(interval_ms)
        now = quick_fingerprint(page, index)
        if now == last or time.monotonic() > deadline:
            return now
        last = now


#: Logs the script-state changes (page clock) from the next keydown on, in window.__benchStates.
_STATE_LOG_JS = """
() => {
  if (!window.__benchClock) {
    window.__benchClock = true;
    document.addEventListener('keydown', () => {
      window.__benchKeyAt = performance.now(); window.__benchStates = []; }, {capture: true});
    // Observe the whole document: survives React re-mounting the stApp element.
    new MutationObserver((records) => {
      if (!window.__benchStates) return;
      for (const r of records) window.__benchStates.push(
        [performance.now(), r.target.getAttribute('data-test-script-state')]);
    }).observe(document, {attributes: true, subtree: true, attributeFilter: ['data-test-script-state']});
  }
  window.__benchKeyAt = null; window.__benchStates = null;
}
"""


def press_slider(page: Any, key: str) -> None:
    """Focus slider `key`'s thumb and press ArrowRight, or ArrowLeft at the end of its range, where
    ArrowRight would change nothing (state changes are logged from here). A Streamlit slider, or a chart's own
    (explorer.liveparam: its range input, named after Vega's signal)."""
    page.evaluate(_STATE_LOG_JS)
    thumb = page.locator(f".st-key-{key} input[type=range]")
    if thumb.count() == 0:
        thumb = page.locator(f'input[name="{key}_{key}"]').first
    thumb.focus()
    at_end = thumb.evaluate("(el) => Number(el.value) >= Number(el.max)")
    page.keyboard.press("ArrowLeft" if at_end else "ArrowRight")


def wait_rerun_done(page: Any, title: str, timeout: float = 60.0) -> None:
    """After `press_slider`: wait until the rerun it caused has started and finished."""
    page.wait_for_function(
        "() => { const s = window.__benchStates; if (!s) return false;"
        " const app = document.querySelector('[data-testid=stApp]');"
        " return s.some(([t, v]) => v === 'running')"
        "   && app.getAttribute('data-test-script-state') === 'notRunning'; }",
        timeout=timeout * 1000,
        polling=50,
    )
    wait_idle(page, title=title, timeout=timeout)


def slider_latency_ms(page: Any, key: str, chart_index: int, title: str, timeout: float = 60.0) -> dict:
    """Press slider `key` (`press_slider`) and time it on the page's clock, from the keydown until
    chart `chart_index` shows something different and the page is ready again.

    Returns {"total": ms, "to_run": keydown → script state "running" (the widget's debounce and the
    round trip), "run": running → notRunning (the script), "draw": notRunning → chart drawn}."""
    ready_time_ms(page, title, timeout=timeout)  # the last run drawn: `before` is not read mid-draw
    before = settled_fingerprint(page, chart_index)
    press_slider(page, key)
    handle = page.wait_for_function(
        "([i, before, title]) => {"
        " if (!window.__benchKeyAt) return false;"
        " const t = (" + _READY_JS + ")(title);"  # first: nothing else runs while the page is busy
        " if (t === false) return false;"
        " if ((" + _QUICK_FINGERPRINT_JS.strip() + ")(i) === before) return false;"
        " const k = window.__benchKeyAt;"
        " return {total: t - k, states: window.__benchStates.map(([s, v]) => [s - k, v])}; }",
        arg=[chart_index, before, title],
        timeout=timeout * 1000,
        polling="raf",
    )
    value = handle.json_value()
    states = value["states"]
    running = [t for t, v in states if v == "running"]
    done = [t for t, v in states if v == "notRunning"]
    to_run = running[0] if running else float("nan")
    end_run = done[-1] if done else float("nan")
    return {"total": value["total"], "to_run": to_run, "run": end_run - to_run, "draw": value["total"] - end_run}


#: Streamlit reports a chart's selection this long after its last change (explorer.charts.live)
REPORT_DEBOUNCE_MS = 150


def no_run_before_the_change(took: float, runs: int) -> bool:
    """Whether a chart that changed `took` ms after a press, with `runs` script runs counted by then, changed in
    the browser: no run, or the change came inside the report's debounce, sooner than any run could have drawn
    it (under load a run already pending, such as a slider narrowed to the page's range, can start there)."""
    return runs == 0 or took < REPORT_DEBOUNCE_MS


def wait_idle(page: Any, *, title: str | None = None, timeout: float = 60.0) -> None:
    """Wait until the script run is over and its output is on screen: stApp says notRunning, the
    main area has content (and an h1 with `title`, if given), no element is still stale from an
    earlier run or a loading placeholder (stSkeleton)."""
    ms = timeout * 1000
    page.wait_for_selector(APP_IDLE, timeout=ms)
    if title is not None:
        page.locator("[data-testid=stMain] h1", has_text=title).first.wait_for(timeout=ms)
    else:
        page.wait_for_selector("[data-testid=stMain] [data-testid=stElementContainer]", timeout=ms)
    page.wait_for_selector(APP_IDLE, timeout=ms)
    page.wait_for_function(_SETTLED_JS, timeout=ms, polling=100)
    page.wait_for_selector(APP_IDLE, timeout=ms)


def wait_charts_drawn(page: Any, timeout: float = 60.0, polling: Any = 100) -> None:
    """Wait until every Altair chart holds a canvas (with painted pixels) or an SVG (with marks),
    both of non-zero size."""
    page.wait_for_function(_CHARTS_DRAWN_JS, timeout=timeout * 1000, polling=polling)


def chart_info(page: Any) -> list[dict[str, Any]]:
    return page.evaluate(_CHART_INFO_JS)


def image_sizes(page: Any) -> list[dict[str, Any]]:
    return page.evaluate(_IMAGES_JS)


def chart_fingerprints(page: Any) -> list[str]:
    return page.evaluate(_CHART_FINGERPRINTS_JS)


def wait_charts_changed(page: Any, before: list[str], timeout: float = 60.0, polling: Any = 100) -> None:
    """Wait until the charts' fingerprints differ from `before` (a rerun redrew something)."""
    page.wait_for_function(
        "(before) => JSON.stringify((" + _CHART_FINGERPRINTS_JS.strip() + ")()) !== JSON.stringify(before)",
        arg=before,
        timeout=timeout * 1000,
        polling=polling,
    )


def read_widget(page: Any, key: str) -> str | None:
    """What the widget with key `key` displays (None if there is no such widget on the page; for a
    chart's own slider, explorer.liveparam, the value of the in-chart input labelled `key`):
    slider/select-slider thumb text, selected radio/segmented option, "true"/"false" for a
    toggle, an input's value (number, text, selectbox)."""
    from explorer.assets import OPTION_LABELS  # the option-index sliders' inputs

    return page.evaluate(_READ_WIDGET_JS.replace("OPTION_INPUTS_JSON", json.dumps(sorted(OPTION_LABELS))), key)


def nav_names(page: Any) -> list[str]:
    """The page names in the sidebar navigation, in order (icons stripped)."""
    return page.evaluate(_NAV_NAMES_JS)


def exceptions(page: Any) -> list[str]:
    return [e.inner_text()[:500] for e in page.query_selector_all(EXCEPTION)]


def shown_matches(shown: str | None, expected: str) -> bool:
    """A widget's displayed text equals the URL value (numbers compared as numbers)."""
    if shown is None:
        return False
    shown = shown.strip()
    try:
        return abs(float(shown.replace(",", "")) - float(expected)) <= 1e-9 * max(1.0, abs(float(expected)))
    except ValueError:
        return shown == expected


def query_of(url: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}


def content_height(page: Any) -> int:
    """Height of the scrolling main area (Streamlit scrolls stMain, not the document)."""
    return int(
        page.evaluate(
            "() => { const m = document.querySelector('[data-testid=stMain]');"
            " const b = document.querySelector('[data-testid=stMainBlockContainer]');"
            " return Math.max(m ? m.scrollHeight : 0, b ? b.getBoundingClientRect().height : 0,"
            " document.documentElement.scrollHeight); }"
        )
    )


def full_page_screenshot(page: Any, path: Path, *, max_height: int = 16000, colors: int = 256) -> Path:
    """Screenshot the whole page. Streamlit's main area scrolls inside a fixed-height view, so
    Playwright's full_page sees one viewport: grow the viewport to the content height first.
    The PNG is then palette-quantised (`colors`) to keep the file small."""
    from io import BytesIO

    from PIL import Image

    original = page.viewport_size
    height = min(content_height(page) + 20, max_height)
    page.set_viewport_size({"width": original["width"], "height": max(height, original["height"])})
    try:
        page.wait_for_timeout(300)
        wait_charts_drawn(page)
        height = min(content_height(page) + 20, max_height)  # layout may settle at the new size
        page.set_viewport_size({"width": original["width"], "height": max(height, original["height"])})
        page.wait_for_timeout(300)
        wait_charts_drawn(page)
        png = page.screenshot(full_page=True, animations="disabled", caret="hide")
    finally:
        page.set_viewport_size(original)
    image = Image.open(BytesIO(png)).convert("RGB")
    if colors:
        image = image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, optimize=True)
    return path


def chart_svg_js(container: str) -> str:
    """A page function returning the markup of the Vega SVG inside the element `container` (a CSS selector),
    without what differs between two drawings of the same chart: the page's address in references to gradients
    (it changes with the query string) and the numbers of clip paths and gradients."""
    return (
        f"() => {{ const svg = document.querySelector('{container} .vega-embed svg.marks');\n"
        "  return svg ? svg.outerHTML.replace(/url[(][^)#]*#/g, 'url(#').replace(/(clip|gradient_?)[0-9]+/g, '$1') "
        ": ''; }"
    )


def chart_canvas_js(container: str) -> str:
    """A page function returning a fingerprint of the Vega canvas inside the element `container` (a CSS selector):
    its size and an FNV-1a hash of every pixel; '' when there is no canvas."""
    return (
        f"() => {{ const c = document.querySelector('{container} .vega-embed canvas');\n"
        "  if (!c || !c.width || !c.height) return '';\n"
        "  const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; let h = 2166136261 >>> 0;\n"
        "  for (let i = 0; i < px.length; i++) { h ^= px[i]; h = Math.imul(h, 16777619) >>> 0; }\n"
        "  return c.width + 'x' + c.height + ':' + h; }"
    )


#: A page function (el) -> the Vega view drawing the app's chart element `el` (a stVegaLiteChart). Streamlit does
#: not expose its charts' views; its chart component keeps the view in a React hook (as `ref.current`). This walks
#: React's tree up from the element's DOM node to find it: a Streamlit internal, used by tests only, to read what
#: a canvas chart draws (it has no DOM to read). It throws, saying Streamlit no longer keeps the view there, when it
#: is not found, so a test that needs it fails loudly rather than reading nothing.
APP_VIEW_JS = """(el) => {
  const isView = (v) => v && typeof v.scenegraph === 'function' && typeof v.signal === 'function';
  const key = Object.keys(el).find((k) => k.startsWith('__reactFiber'));
  for (let fiber = key && el[key], up = 0; fiber && up < 40; fiber = fiber.return, up++)
    for (let hook = fiber.memoizedState, i = 0; hook && i < 100; hook = hook.next, i++)
      for (const v of [hook.memoizedState, hook.memoizedState && hook.memoizedState.current])
        if (isView(v)) return v;
  throw new Error('no Vega view in the React tree above this chart: Streamlit no longer keeps it in a hook');
}"""


def app_view_js(body: str) -> str:
    """A page function (el) -> `body` (a function of the Vega view, JS source) applied to the view of the app's
    chart element `el` (`APP_VIEW_JS`), once the view has run."""
    return f"(el) => ({APP_VIEW_JS})(el).runAsync().then({body})"


#: A function of a Vega view -> the texts its text marks draw (a title's lines among them), in scene order.
VIEW_TEXTS_JS = """(view) => { const out = [];
  const walk = (node) => { if (!node) return;
    if (node.items) for (const it of node.items) {
      if (node.marktype === 'text' && it.text !== undefined) out.push(...[].concat(it.text).map(String));
      walk(it); } };
  walk(view.scenegraph().root); return out; }"""


#: Resolves to [ms until READ_JS's result differs from `before`, script runs by then (window.__runs, the DOM's
#: count: test_e2e_drag.COUNT_RUNS_JS)]; [null, runs] when nothing changed in 3 s. READ_JS is a page function
#: returning what a chart draws (chart_svg_js, or a canvas's pixels): `changed_js(read_js)` fills it in.
#: An SVG chart's change is also caught by a MutationObserver, at the mutation itself: a loaded machine starves the
#: animation frames, and a change read at a late frame was once counted after the release's run had begun (176 ms).
_CHANGED_JS = """(before) => new Promise((done) => { const t0 = performance.now(); let over = false;
  const finish = (result) => { if (over) return; over = true; seen.disconnect(); done(result); };
  const check = () => { if ((READ_JS)() !== before) finish([performance.now() - t0, window.__runs]); };
  const seen = new MutationObserver(check);
  seen.observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
  const tick = () => { if (over) return; check();
    if (!over && performance.now() - t0 > 3000) { finish([null, window.__runs]); return; }
    requestAnimationFrame(tick); }; requestAnimationFrame(tick); })"""


def changed_js(read_js: str) -> str:
    """The page function _CHANGED_JS for the chart `read_js` reads."""
    return _CHANGED_JS.replace("READ_JS", read_js)


def track_reruns(page: Any) -> Any:
    """Count the script runs `page` asks the server for: the websocket frames it sends that are a BackMsg
    with ``rerun_script`` (Streamlit's proto, parsed in Python). Unlike the DOM's script-state attribute,
    which a run shorter than one React commit never changes (a loaded CI run once counted 0 runs for a
    press whose value reached the link), every request counts. Call before the page loads; read with
    reruns_sent, zero with reset_reruns. Returns the page."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    sent = {"n": 0}

    def on_frame(payload: Any) -> None:
        if isinstance(payload, (bytes, bytearray)) and BackMsg.FromString(bytes(payload)).WhichOneof("type") == (
            "rerun_script"
        ):
            sent["n"] += 1

    page.on("websocket", lambda ws: ws.on("framesent", on_frame))
    _RERUNS[id(page)] = sent
    return page


_RERUNS: dict[int, dict[str, int]] = {}


def reruns_sent(page: Any) -> int:
    """Script runs `page` has asked for since track_reruns (or the last reset_reruns). The frames' events reach
    Python before the answer to any later call on the page (Playwright keeps the driver's order), so after
    wait_idle the run that made the page idle is counted."""
    return _RERUNS[id(page)]["n"]


def reset_reruns(page: Any) -> None:
    _RERUNS[id(page)]["n"] = 0


def press_once(
    page: Any,
    slider: Any,
    read_js: str,
    *,
    key: str,
    want: str,
    title: str,
    changes: bool = True,
    press: str = "ArrowRight",
) -> float | None:
    """A press on a chart's own slider, as a hand makes it (issue #36): the chart `read_js` reads changes before any
    script runs (unless `changes` is False: a press that moves nothing drawn), the value `want` of parameter `key`
    then reaches the link, and the page asks for exactly one script run. Returns the ms until the chart changed."""
    took, runs = press_and_time(page, slider, read_js, press)
    if changes:
        assert took is not None, f"{key}: the chart did not change"
        assert no_run_before_the_change(took, runs), f"{key}: a script ran before the chart changed ({took:.0f} ms)"
    page.wait_for_function(
        "([k, v]) => new URLSearchParams(location.search).get(k) === v", arg=[key, want], timeout=15_000
    )
    wait_idle(page, title=title)
    assert reruns_sent(page) == 1, f"{key}: not one run for one press"
    return took


def press_and_time(page: Any, slider: Any, read_js: str, key: str = "ArrowRight") -> tuple[float | None, int]:
    """Focus `slider` (a Playwright locator of a chart's range input) and press `key`: (ms from the press until what
    `read_js` reads from the chart changed, or None; script runs by then, from window.__runs, which COUNT_RUNS_JS
    installs). The run counts (the page's and the websocket's, `reruns_sent`) start at 0 with the press."""
    before = page.evaluate(read_js)
    page.evaluate("() => { window.__runs = 0; }")
    reset_reruns(page)
    slider.focus()
    page.keyboard.press(key)
    return page.evaluate(changed_js(read_js), before)


def new_app_page(browser: Any) -> Any:
    """A blank 1280 × 1000 tab with 60 s timeouts whose script runs are counted (track_reruns)."""
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.set_default_timeout(60_000)
    return track_reruns(page)


def open_app_page(browser: Any, server: StreamlitServer, path: str, title: str, query: str = "") -> Any:
    """A 1280 × 1000 page of the app at ``path`` + ``query``, idle with its charts drawn (60 s timeouts), its
    script runs counted (track_reruns)."""
    page = new_app_page(browser)
    page.goto(f"{server.base_url}/{path}{query}")
    wait_idle(page, title=title)
    wait_charts_drawn(page)
    return page
