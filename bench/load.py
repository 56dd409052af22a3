"""Lecture-hall load over Streamlit's own websocket protocol: ``python bench/load.py``

No browser: each simulated student does what the browser does on the wire. An HTTP GET of the
page (through a proxy this is where the sticky cookie is set), then the websocket
``/_stcore/stream`` with the cookie and an Origin header, a ``rerun_script`` BackMsg carrying the
page name and the query string (the first run), then slider drags: a ``rerun_script`` with the
slider's new value in ``widget_states`` (and the fragment id when the slider lives in a
fragment, as the browser sends it). Each run is timed from the BackMsg sent to the
``script_finished`` ForwardMsg received. Counted: errors (connection failures, timeouts, a
compile error, page not found, a lost session) and exceptions (an exception element in a delta).

Scenarios (the full run, ``python bench/load.py``; about 10 minutes on 2 busy cores):

1. Server CPU per run, one session at a time, every page and the one-chart app
   (bench/slider_chart_app.py): a new session's first run (while another session of the same link
   is connected, and on an idle server), a rerun at the defaults, a slider drag.
   CPU = the server process's user + system time (/proc/<pid>/stat) over the runs / runs.
2. The lecture hall: N sessions (default 100) open the same link within ``--ramp`` seconds, then
   each drags the page's slider twice: 3 runs per session. p50 / p95 of every run, errors,
   exceptions, server RSS with every session connected; the one-chart app the same way, in the
   same run; the explorer scenario twice (RSS growth over a repeat).
3. Mixed pages: 40 sessions spread over every page, 3 runs each.
4. Two replicas behind nginx (deploy/nginx.conf.template, via deploy/replicas.py) on this
   machine: the lecture hall through the proxy; p95 against one replica's. Skipped without nginx.

``--fresh K``: only the lecture hall on freshly started servers (no warm-up), K rounds, each the
one-chart app and then the explorer: p95 and server CPU a run, side by side.

``--memory N``: only the server's RSS over N runs on one fresh server (one session at a time over
every page, a new session every ``--renew`` runs), read every 100 runs after one warm-up round.

``--cpu``: only scenario 1 (the server CPU table), printed; nothing written.

``--small`` (CI; tests/test_load_small.py): one server, 10 sessions spread over every page,
3 runs each; exit status 1 on any error or exception. ``--url http://host:port`` runs the small
scenario against a running server or proxy instead of starting one.

Writes its table into bench/RESULTS.md (section "Lecture hall") unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import os
import re
import shutil
import signal
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
for _p in (ROOT, ROOT / "tests", ROOT / "deploy"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from e2e_support import SERVE  # noqa: E402

MB = 1024 * 1024
REFERENCE_APP = "bench/slider_chart_app.py"
#: The one-chart app runs with Streamlit's defaults where the explorer's config departs from them for
#: speed (.streamlit/config.toml, which the app's server reads too): it is a first Streamlit app, and
#: the issues' targets were set against it so. `postScriptGC = false` (issue #36) made it ~4x cheaper
#: as well; `--fresh` prints the ratio against it under the explorer's config too.
REFERENCE_ENV = {"STREAMLIT_RUNNER_POST_SCRIPT_GC": "true"}
REFERENCE_SLIDER = "point"
RESULTS = ROOT / "bench" / "RESULTS.md"
SECTION = "## 6. Lecture hall: many sessions over the websocket (bench/load.py)"

TARGETS = {"cpu_ratio": 1.2, "p95_ratio": 1.2, "replica_ratio": 0.65, "rss": 700 * MB}

# Loopback only, never through an HTTP proxy from the environment.
_HTTP = urllib.request.build_opener(urllib.request.ProxyHandler({}))


# ------------------------------------------------------------------------------ targets
@dataclass(frozen=True)
class Target:
    """One link: a page's URL path ("" for the entry script), its query string, and the slider
    a student drags there (a widget key; None: a plain rerun instead)."""

    label: str
    path: str = ""
    slider: str | None = None
    query: str = ""


def explorer_targets() -> list[Target]:
    """Every page of the explorer, at its defaults, with the slider its deep link moves."""
    from explorer.manifest import PAGES

    return [
        Target(label=p.slug, path=p.url_path, slider=p.bench.slider or p.deep_link.slider)
        for p in PAGES
        if (ROOT / p.script).exists()
    ]


REFERENCE = Target(label="one-chart app", path="", slider=REFERENCE_SLIDER)


# ------------------------------------------------------------------------------ process
def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (/proc/<pid>/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int, field: str = "VmRSS") -> int:
    """A process's resident memory (/proc/<pid>/status): all of it (``VmRSS``), or the part backed
    by files (``RssFile``: memory-mapped files such as the real model's weights, read-only pages the
    kernel shares between processes and can drop), or the process's own (``RssAnon``)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) * 1024
    return 0


def load_average() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


# ------------------------------------------------------------------------------ protocol
@dataclass
class Run:
    kind: str  # "open", "drag", "rerun", "reconnect"
    seconds: float
    exceptions: list[str] = field(default_factory=list)
    error: str | None = None
    received: int = 0  # bytes of ForwardMsgs (after the websocket's decompression)
    messages: int = 0
    kinds: dict[str, int] = field(default_factory=dict)  # ForwardMsg type -> how many
    retried: str | None = None  # a reconnect whose first rerun had no answer: what it had received


class ProtocolError(RuntimeError):
    pass


class Session:
    """One simulated browser tab: cookies, one websocket, Streamlit's session id."""

    def __init__(self, base_url: str, target: Target, *, timeout: float = 300.0):
        self.base_url = base_url.rstrip("/")
        self.target = target
        self.timeout = timeout
        self.cookies: dict[str, str] = {}
        self.ws: Any = None
        self.session_id: str | None = None
        self.session_ids: list[str] = []
        self.page_script_hash = ""
        self.query_string = target.query
        self.slider: dict[str, Any] | None = None  # id, min, max, step, fragment_id
        self.runs: list[Run] = []
        self.diagnose: Callable[[], str] | None = None  # the server's state, when a rerun goes unanswered
        self.diagnostics: list[str] = []

    # transport
    def _get_page(self) -> int:
        """GET the page like a browser's navigation (keeps the cookies a proxy sets)."""
        url = f"{self.base_url}/{self.target.path}" + (f"?{self.query_string}" if self.query_string else "")
        request = urllib.request.Request(url, headers=self._headers())
        with _HTTP.open(request, timeout=self.timeout) as response:
            response.read()
            for header in response.headers.get_all("Set-Cookie") or []:
                name, _, rest = header.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0].strip()
            return response.status

    def _headers(self) -> dict[str, str]:
        headers = {"Origin": self.base_url, "User-Agent": "bench/load.py"}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        return headers

    async def connect(self, *, resume: bool = False) -> None:
        """Open the websocket (after the page GET, the first time). `resume`: ask Streamlit for
        the session this tab had (the browser does so after a dropped connection)."""
        from websockets.asyncio.client import connect

        if self.ws is None and not resume:
            await asyncio.to_thread(self._get_page)
        parts = urlsplit(self.base_url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        # Sec-WebSocket-Protocol as the browser sends it: "streamlit", an XSRF token slot, the
        # session to resume (Streamlit reads the 2nd and 3rd entries, selects the 1st).
        protocols = ["streamlit", "xsrf"] + ([self.session_id] if resume and self.session_id else [])
        self.ws = await connect(
            f"{scheme}://{parts.netloc}{parts.path}/_stcore/stream",
            subprotocols=protocols,  # type: ignore[arg-type]
            additional_headers=self._headers(),
            proxy=None,
            max_size=None,
            ping_interval=None,
            open_timeout=self.timeout,
            close_timeout=5,
        )

    async def close(self) -> None:
        if self.ws is not None:
            ws, self.ws = self.ws, None
            await ws.close()

    # runs
    async def _run(self, kind: str, state: Any, *, timeout: float | None = None, record: bool = True) -> Run:
        from streamlit.proto.BackMsg_pb2 import BackMsg
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        back = BackMsg()
        back.rerun_script.CopyFrom(state)
        run = Run(kind=kind, seconds=float("nan"))
        started = time.perf_counter()
        try:
            await self.ws.send(back.SerializeToString())
            deadline = started + (self.timeout if timeout is None else timeout)
            while True:
                data = await asyncio.wait_for(self.ws.recv(), timeout=max(0.1, deadline - time.perf_counter()))
                run.received += len(data)
                run.messages += 1
                msg = ForwardMsg.FromString(data)
                what = msg.WhichOneof("type")
                run.kinds[what] = run.kinds.get(what, 0) + 1
                if what == "delta":
                    self._read_delta(msg.delta, run)
                elif what == "new_session":
                    self.page_script_hash = msg.new_session.page_script_hash
                    sid = msg.new_session.initialize.session_id
                    if sid and sid != self.session_id:
                        self.session_id = sid
                        self.session_ids.append(sid)
                elif what == "navigation" and msg.navigation.page_script_hash:
                    # the page that ran (new_session's hash can be the entry script's on a cold
                    # deep link in legacy pages/ mode); the browser reruns with this one
                    self.page_script_hash = msg.navigation.page_script_hash
                elif what == "page_info_changed":
                    self.query_string = msg.page_info_changed.query_string
                elif what == "page_not_found":
                    raise ProtocolError(f"page not found: {msg.page_not_found.page_name!r}")
                elif what == "session_event" and msg.session_event.WhichOneof("type") == "script_compilation_exception":
                    run.exceptions.append("compile: " + msg.session_event.script_compilation_exception.message[:200])
                elif what == "script_finished":
                    status = msg.script_finished
                    if status == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                        continue  # st.rerun() in the script: the next run follows by itself
                    if status == ForwardMsg.FINISHED_WITH_COMPILE_ERROR:
                        raise ProtocolError("script finished with a compile error")
                    break
            run.seconds = time.perf_counter() - started
        except Exception as exc:  # every failure is counted, never fatal for the others
            run.error = f"{type(exc).__name__}: {exc}"[:300]
        if record:
            self.runs.append(run)
        return run

    def _read_delta(self, delta: Any, run: Run) -> None:
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            run.exceptions.append(f"{element.exception.type}: {element.exception.message}"[:300])
        elif kind == "vega_lite_chart" and self.target.slider and element.vega_lite_chart.id:
            self._read_chart_slider(element.vega_lite_chart, delta.fragment_id)
        elif kind == "slider" and self.target.slider and element.slider.id.endswith("-" + self.target.slider):
            s = element.slider
            sent = self.slider["value"] if self.slider and self.slider["id"] == s.id else None
            self.slider = {
                "id": s.id,
                "min": s.min,
                "max": s.max,
                "step": s.step or 1.0,
                "value": sent or list(s.value) or list(s.default),
                "fragment_id": delta.fragment_id,
            }

    def _read_chart_slider(self, chart: Any, fragment_id: str) -> None:
        """A chart whose own slider is the target's (explorer.liveparam: a selection named after the parameter,
        bound to a range input): its drag is the chart's selection state reported at the drag's end, as
        Streamlit's front end sends it (``{"selection": {key: [{key: value}]}}``, the chart's widget id)."""
        import json

        if self.slider and self.slider["id"] == chart.id:
            return  # known: the client parses a chart's spec once (its own CPU shares the machine with the server)
        key = self.target.slider
        for param in json.loads(chart.spec).get("params", []):
            bind = param.get("bind")
            if param.get("name") != key or not isinstance(bind, dict) or bind.get("input") != "range":
                continue
            self.slider = {
                "id": chart.id,
                "min": float(bind["min"]),
                "max": float(bind["max"]),
                "step": float(bind.get("step", 1)),
                "value": [param.get("value")],
                "fragment_id": fragment_id,
                "chart": key,
            }

    def _state(self, *, first: bool = False) -> Any:
        from streamlit.proto.ClientState_pb2 import ClientState

        state = ClientState()
        state.query_string = self.query_string
        if first:
            state.page_name = self.target.path
        else:
            state.page_script_hash = self.page_script_hash
        state.context_info.url = f"{self.base_url}/{self.target.path}"
        state.context_info.timezone = "UTC"
        state.context_info.locale = "en-US"
        return state

    async def open(self) -> Run:
        """The first run of the page (what the browser sends once the websocket is up)."""
        if self.ws is None:
            await self.connect()
        return await self._run("open", self._state(first=True))

    async def rerun(self) -> Run:
        """A rerun with nothing changed (the "R" key)."""
        return await self._run("rerun", self._state())

    async def drag(self, fraction: float) -> Run:
        """Move the slider to `fraction` of its range (0..1) and rerun (its fragment only, when
        it lives in one, as the browser does): a Streamlit slider's new value, or a chart's own slider's
        (`_read_chart_slider`). A plain rerun where the page has no such slider."""
        if self.slider is None:
            return await self.rerun()
        s = self.slider
        steps = max(1, round((s["max"] - s["min"]) / s["step"]))
        value = s["min"] + round(fraction * steps) * s["step"]
        if value == (s["value"] or [None])[0]:
            value = s["min"] + ((round(fraction * steps) + 1) % (steps + 1)) * s["step"]
        s["value"] = [value]
        state = self._state()
        widget = state.widget_states.widgets.add()
        widget.id = s["id"]
        if s.get("chart"):  # the chart's own slider: its selection, as the browser reports a drag's end
            import json

            number = int(value) if float(value).is_integer() else value
            widget.string_value = json.dumps({"selection": {s["chart"]: [{s["chart"]: number}]}})
        else:
            widget.double_array_value.data.append(value)
        if s["fragment_id"]:
            state.fragment_id = s["fragment_id"]
        return await self._run("drag", state)

    async def reconnect(self) -> Run:
        """Drop the websocket and reconnect asking for the same session (as the browser does);
        then rerun. An error if the server hands out a different session: the reconnect reached
        a process that does not hold this tab's session.

        A rerun with no answer in `RECONNECT_ANSWER_S` is tried once more on a new resumed
        websocket (after `diagnose`, when set, has recorded the server's state in `diagnostics`).
        Seen in CI only (2026-11-24: 2 of 10 reconnects; 2026-11-26: 1 of 11, on the compare page),
        never here (30 runs against one warm server beside three busy processes, 14 against fresh
        servers beside five): the rerun sent on a resumed websocket had no answer at all. A student
        would reload or press a key; this client reconnects once more. The run it keeps counts the
        whole wait, both attempts' exceptions, and says what the first one received (`retried`);
        a second silence is an error."""
        before = self.session_id
        started = time.perf_counter()
        run = await self._resume_and_rerun(timeout=RECONNECT_ANSWER_S)
        if run.error and run.error.startswith("TimeoutError"):
            got = ", ".join(f"{n} {k}" for k, n in run.kinds.items()) or "no message"
            note = (
                f"the rerun after the reconnect had no answer in {RECONNECT_ANSWER_S:.0f} s ({got}); reconnected again"
            )
            if self.diagnose is not None:
                self.diagnostics.append(f"{self.target.label}: {note}\n{await asyncio.to_thread(self.diagnose)}")
            first = run
            run = await self._resume_and_rerun()
            run.retried = note
            run.exceptions = first.exceptions + run.exceptions
            if run.error:
                run.error = f"{note}; then {run.error}"
            run.seconds = time.perf_counter() - started
        self.runs.append(run)
        if run.error is None and before and self.session_id != before:
            run.error = f"session lost on reconnect: {before[:8]} -> {(self.session_id or '?')[:8]}"
        return run

    async def _resume_and_rerun(self, timeout: float | None = None) -> Run:
        await self.close()
        # A browser does not reconnect in the same instant: Streamlit's frontend waits before it
        # retries. Without a pause, 2 of 10 reconnects in one CI-mode run (2026-11-24, machine at
        # load 8 with other test jobs) got no answer to their rerun within 300 s. The pause makes
        # the client behave like a browser here too (it did not end those silences: see reconnect).
        await asyncio.sleep(RECONNECT_PAUSE)
        await self.connect(resume=True)
        return await self._run("reconnect", self._state(), timeout=timeout, record=False)


#: Seconds between dropping a websocket and resuming the session (see Session.reconnect).
RECONNECT_PAUSE = 0.5
#: Seconds a reconnect's rerun may go unanswered before it is sent again (see Session.reconnect);
#: a run takes under 10 s here even with 100 sessions at once.
RECONNECT_ANSWER_S = 60.0


# ------------------------------------------------------------------------------ scenarios
@dataclass
class HallResult:
    label: str
    sessions: int
    runs: list[Run]
    errors: list[str]
    exceptions: list[str]
    wall: float
    rss_connected: dict[int, int] = field(default_factory=dict)  # pid -> RSS with all connected
    session_ids: list[list[str]] = field(default_factory=list)
    cookies: list[dict[str, str]] = field(default_factory=list)
    server_log: str = ""  # small(): the end of the server's log when a run failed
    retried: list[str] = field(default_factory=list)  # reconnects whose first rerun went unanswered
    diagnostics: list[str] = field(default_factory=list)  # the server's threads at each such silence

    def seconds(self, kinds: Sequence[str] | None = None) -> list[float]:
        return [r.seconds for r in self.runs if r.error is None and (kinds is None or r.kind in kinds)]

    def pct(self, q: float, kinds: Sequence[str] | None = None) -> float:
        xs = sorted(self.seconds(kinds))
        if not xs:
            return float("nan")
        return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


async def hall(
    base_url: str,
    targets: Sequence[Target],
    *,
    sessions: int,
    drags: int = 2,
    ramp: float = 2.0,
    think: float = 0.0,
    reconnect: bool = False,
    pids: Sequence[int] = (),
    label: str = "",
    timeout: float = 300.0,
    diagnose: Callable[[], str] | None = None,
) -> HallResult:
    """`sessions` students; student i opens targets[i % len(targets)] at i/sessions·`ramp` s,
    then drags its slider `drags` times (`think` s apart); with `reconnect`, drops and resumes
    its websocket once more and reruns. Every session stays connected until all are done; the
    RSS of `pids` is read then."""
    all_done = asyncio.Event()
    remaining = [sessions]
    students = [Session(base_url, targets[i % len(targets)], timeout=timeout) for i in range(sessions)]
    for s in students:
        s.diagnose = diagnose
    errors: list[str] = []

    async def student(i: int, s: Session) -> None:
        try:
            await asyncio.sleep(ramp * i / max(1, sessions))
            try:
                await s.connect()
            except Exception as exc:
                s.runs.append(Run("open", float("nan"), error=f"connect: {type(exc).__name__}: {exc}"[:300]))
                return
            if (await s.open()).error is None:
                for j in range(drags):
                    await asyncio.sleep(think)
                    # spread over the range; students differ (golden-ratio sequence)
                    if (await s.drag(((i + 1) * 0.618034 + j * 0.381966) % 1.0)).error:
                        break
                else:
                    if reconnect:
                        await s.reconnect()
        finally:
            remaining[0] -= 1
            if remaining[0] == 0:
                all_done.set()
            await all_done.wait()

    t0 = time.perf_counter()
    tasks = [asyncio.create_task(student(i, s)) for i, s in enumerate(students)]
    await all_done.wait()
    rss = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            rss[pid] = rss_bytes(pid)
    await asyncio.gather(*tasks)
    wall = time.perf_counter() - t0
    await asyncio.gather(*(s.close() for s in students), return_exceptions=True)
    runs = [r for s in students for r in s.runs]
    errors += [f"{s.target.label}: {r.kind}: {r.error}" for s in students for r in s.runs if r.error]
    exceptions = [f"{s.target.label}: {r.kind}: {e}" for s in students for r in s.runs for e in r.exceptions]
    return HallResult(
        label=label,
        sessions=sessions,
        runs=runs,
        errors=errors,
        exceptions=exceptions,
        wall=wall,
        rss_connected=rss,
        session_ids=[s.session_ids for s in students],
        retried=[f"{s.target.label}: {r.retried}" for s in students for r in s.runs if r.retried],
        diagnostics=[d for s in students for d in s.diagnostics],
        cookies=[dict(s.cookies) for s in students],
    )


async def cpu_per_run(base_url: str, target: Target, pid: int, *, repeats: int = 8) -> dict[str, Any]:
    """Server CPU (ms) per run, one session at a time: a new session's first run (connect and
    open) while another session that opened the same link is still connected (the lecture hall:
    "first"), the same with no other session connected ("first_idle"), a rerun at the defaults,
    a slider drag.

    The two first runs differ by what Streamlit keeps: it forgets its compiled scripts whenever no
    session is connected (streamlit/runtime/websocket_session_manager.py), so a first run on an
    otherwise idle server compiles the entry script and the page again; with any session connected
    the compiled code is shared."""
    out: dict[str, Any] = {"label": target.label, "exceptions": [], "errors": []}

    def keep(run: Run) -> None:
        out["exceptions"] += run.exceptions
        if run.error:
            out["errors"].append(run.error)

    async def first_runs() -> float:
        cpu = []
        for _ in range(repeats):
            s = Session(base_url, target)
            c0 = cpu_seconds(pid)
            keep(await s.open())
            cpu.append(cpu_seconds(pid) - c0)
            await s.close()
            await asyncio.sleep(0.2)
        return statistics.fmean(cpu)

    warm = Session(base_url, target)
    keep(await warm.open())
    keep(await warm.drag(0.3))
    await asyncio.sleep(0.3)
    out["first"] = await first_runs()  # `warm` stays connected
    await warm.close()
    await asyncio.sleep(0.3)
    out["first_idle"] = await first_runs()

    s = Session(base_url, target)
    keep(await s.open())
    c0 = cpu_seconds(pid)
    for _ in range(repeats):
        keep(await s.rerun())
    out["rerun"] = (cpu_seconds(pid) - c0) / repeats
    c0 = cpu_seconds(pid)
    for k in range(repeats):
        keep(await s.drag((k * 0.618034) % 1.0))
    out["drag"] = (cpu_seconds(pid) - c0) / repeats
    await s.close()
    out["has_slider"] = s.slider is not None
    return out


# ------------------------------------------------------------------------------ servers
def start_server(script: str = SERVE, *, env: dict[str, str] | None = None) -> Any:
    """A `tests/e2e_support.StreamlitServer` on a free loopback port, healthy."""
    from e2e_support import StreamlitServer

    old = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        server = StreamlitServer(script)
        server.start()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    try:
        server.wait_healthy(120)
    except BaseException:
        server.stop()
        raise
    return server


def warm_up(base_url: str, targets: Sequence[Target]) -> None:
    """Open every target once (imports, first-call costs, caches at defaults)."""

    async def go() -> None:
        for t in targets:
            s = Session(base_url, t)
            await s.open()
            await s.close()

    asyncio.run(go())


# ------------------------------------------------------------------------------ reports
def fmt_s(x: float) -> str:
    return f"{x:.2f} s" if x == x else "—"


def hall_line(r: HallResult) -> str:
    rss = ", ".join(f"{v / MB:.0f} MB" for v in r.rss_connected.values()) or "—"
    return (
        f"{r.label}: {r.sessions} sessions, {len(r.runs)} runs in {r.wall:.1f} s · p50 {fmt_s(r.pct(0.5))} "
        f"p95 {fmt_s(r.pct(0.95))} · first run p95 {fmt_s(r.pct(0.95, ['open']))} · errors {len(r.errors)} "
        f"· exceptions {len(r.exceptions)} · RSS all connected {rss}"
    )


def problems(results: Sequence[HallResult]) -> list[str]:
    out = []
    for r in results:
        out += [f"[{r.label}] error: {e}" for e in r.errors]
        out += [f"[{r.label}] exception: {e}" for e in r.exceptions]
    return out


#: Debug lines of the Streamlit runtime that say nothing about sessions (cache bookkeeping).
_LOG_NOISE = ("Cache key", "cache HIT", "cache MISS", "Not hashing", "Removing orphaned", "Files: ")


def runtime_log(text: str, lines: int = 120) -> str:
    """The last `lines` lines of a server log, without the cache bookkeeping."""
    kept = [line for line in text.splitlines() if not any(n in line for n in _LOG_NOISE)]
    return "\n".join(kept[-lines:])


#: A `sitecustomize` for servers started by `small`: SIGUSR1 makes faulthandler print every thread's
#: stack into the server's log, and the server goes on (`thread_dump`).
_DUMP_ON_SIGUSR1 = "import faulthandler, signal\nfaulthandler.register(signal.SIGUSR1, all_threads=True)\n"


def thread_dump(server: Any, lines: int = 300) -> str:
    """The stacks of a `small` server's threads now (SIGUSR1, see `_DUMP_ON_SIGUSR1`), script
    threads first: where a script run waits, if one hangs."""
    before = len(server.log_path.read_bytes())
    try:
        os.kill(server.pid, signal.SIGUSR1)
    except OSError as exc:
        return f"(no thread dump: {exc})"
    time.sleep(1.0)
    text = server.log_path.read_bytes()[before:].decode(errors="replace")
    blocks = re.split(r"\n(?=Thread 0x|Current thread 0x)", text.strip())
    blocks.sort(key=lambda b: "scriptrunner" not in b and "exec_code" not in b)  # stable: script threads first
    return "\n".join("\n\n".join(blocks).splitlines()[:lines])


def small(base_url: str | None, *, sessions: int = 10, reconnect: bool = False) -> HallResult:
    """CI: `sessions` sessions spread over every page, open + 2 drags each (+ a resumed
    reconnect); against `base_url`, or a server started here."""
    targets = explorer_targets()
    sessions = max(sessions, len(targets))  # every page at least once
    server = None
    if base_url is None:
        # the runtime's debug lines (e.g. "Discarding BackMsg for disconnected session") explain
        # a failed run; they go to the server's log, whose end a failure reports
        # and a silence or a failed run reports the server's threads (thread_dump)
        site = tempfile.mkdtemp(prefix="load-site-")
        Path(site, "sitecustomize.py").write_text(_DUMP_ON_SIGUSR1)
        path = os.pathsep.join(p for p in (site, os.environ.get("PYTHONPATH", "")) if p)
        server = start_server(env={"STREAMLIT_LOGGER_LEVEL": "debug", "PYTHONPATH": path})
        base_url = server.base_url
    try:
        pids = [server.pid] if server else []
        result = asyncio.run(
            hall(
                base_url,
                targets,
                sessions=sessions,
                ramp=1.0,
                reconnect=reconnect,
                pids=pids,
                label="small",
                diagnose=(lambda: thread_dump(server)) if server else None,
            )
        )
        if server and (result.errors or result.retried):
            result.server_log = "\n\n".join(
                [runtime_log(server.log_path.read_text(errors="replace")), *result.diagnostics]
                + (["--- the server's threads at the end ---\n" + thread_dump(server)] if result.errors else [])
            )
        return result
    finally:
        if server:
            server.stop()
            shutil.rmtree(site, ignore_errors=True)


def full(args: argparse.Namespace) -> int:
    from replicas import Replicas, nginx_missing_message

    started = time.perf_counter()
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{os.cpu_count()} CPUs · {_cpu_model()} · Python {sys.version.split()[0]}"
    print(f"{when} · {machine} · load {load_average()}", flush=True)
    targets = explorer_targets()
    report: dict[str, Any] = {"when": when, "machine": machine, "loads": {}}
    halls: list[HallResult] = []

    app = start_server()
    ref = start_server(REFERENCE_APP, env=REFERENCE_ENV)
    try:
        warm_up(app.base_url, targets)
        warm_up(ref.base_url, [REFERENCE])

        print("1/4 server CPU per run, one session at a time…", flush=True)
        report["loads"]["cpu"] = load_average()
        report["cpu"] = cpu_rows = cpu_table(app, ref, targets, args.repeats)
        if args.cpu:
            return 1 if any(row["errors"] or row["exceptions"] for row in cpu_rows) else 0

        link = next((t for t in targets if t.label == args.link), targets[0])
        n = args.sessions
        print(f"2/4 lecture hall: {n} sessions on one link ({link.label}), 3 runs each…", flush=True)
        report["loads"]["hall_ref"] = load_average()
        h_ref = asyncio.run(hall(ref.base_url, [REFERENCE], sessions=n, ramp=args.ramp, pids=[ref.pid], label="ref"))
        print("  " + hall_line(h_ref), flush=True)
        report["loads"]["hall"] = load_average()
        rss_before = rss_bytes(app.pid)
        rss_file = rss_bytes(app.pid, "RssFile")
        h_app = asyncio.run(hall(app.base_url, [link], sessions=n, ramp=args.ramp, pids=[app.pid], label="explorer"))
        print("  " + hall_line(h_app), flush=True)
        time.sleep(2)
        rss_after1 = rss_bytes(app.pid)
        report["loads"]["hall_repeat"] = load_average()
        h_app2 = asyncio.run(
            hall(app.base_url, [link], sessions=n, ramp=args.ramp, pids=[app.pid], label="explorer, repeat")
        )
        print("  " + hall_line(h_app2), flush=True)
        time.sleep(2)
        rss_after2 = rss_bytes(app.pid)
        report.update(hall_ref=h_ref, hall=h_app, hall_repeat=h_app2, link=link.label)
        report["rss"] = {"before": rss_before, "after1": rss_after1, "after2": rss_after2, "file": rss_file}
        halls += [h_ref, h_app, h_app2]

        print(f"3/4 mixed pages: {args.mixed} sessions over every page, 3 runs each…", flush=True)
        report["loads"]["mixed"] = load_average()
        h_mixed = asyncio.run(
            hall(app.base_url, targets, sessions=args.mixed, ramp=args.ramp, pids=[app.pid], label="mixed")
        )
        print("  " + hall_line(h_mixed), flush=True)
        report["mixed"] = h_mixed
        halls.append(h_mixed)
    finally:
        app.stop()
        ref.stop()

    print("4/4 two replicas behind nginx…", flush=True)
    missing = nginx_missing_message()
    if missing:
        print("  skipped: " + missing, flush=True)
        report["proxy"] = None
    else:
        with Replicas(2) as reps:
            # Each replica warmed directly, as the one-replica server above was (every page once),
            # then through the proxy. A warm-up only through the proxy reached the replicas by the
            # luck of the cookie hash: a replica that had served only the home page's stored default
            # view met the hall's drags with torch still importing (p95 7–10 s instead of ~2 s).
            for port in reps.replica_ports:
                warm_up(f"http://127.0.0.1:{port}", targets)
            warm_up(reps.url, [link])
            report["loads"]["proxy"] = load_average()
            h_proxy = asyncio.run(
                hall(reps.url, [link], sessions=n, ramp=args.ramp, pids=reps.pids, label="2 replicas + nginx")
            )
            print("  " + hall_line(h_proxy), flush=True)
            report["proxy"] = h_proxy
            report["proxy_split"] = reps.split()
            halls.append(h_proxy)
    report["duration"] = time.perf_counter() - started
    table = results_markdown(report)
    print(table)
    if not args.no_write:
        write_results(table)
        print(f"written to {RESULTS.relative_to(ROOT)}")
    trouble = problems(halls)
    for row in report["cpu"]:
        trouble += [f"[cpu {row['label']}] {e}" for e in row["errors"] + row["exceptions"]]
    for line in trouble[:20]:
        print(line, file=sys.stderr)
    return 1 if trouble else 0


def cpu_table(app: Any, ref: Any, targets: Sequence[Target], repeats: int) -> list[dict[str, Any]]:
    """Scenario 1 (`cpu_per_run`): the one-chart app, then every page; each row printed as it is measured, with its
    drag's CPU over the one-chart app's."""
    rows = [asyncio.run(cpu_per_run(ref.base_url, REFERENCE, ref.pid, repeats=repeats))]
    for t in (None, *targets):
        if t is not None:
            rows.append(asyncio.run(cpu_per_run(app.base_url, t, app.pid, repeats=repeats)))
        row = rows[-1]
        print(
            f"  {row['label']:<16} first {row['first'] * 1e3:6.0f} ms  idle first {row['first_idle'] * 1e3:6.0f} ms  "
            f"rerun {row['rerun'] * 1e3:6.0f} ms  drag {row['drag'] * 1e3:6.0f} ms "
            f"({row['drag'] / max(rows[0]['drag'], 1e-9):.2f}x)  errors {len(row['errors'])} "
            f"exceptions {len(row['exceptions'])}",
            flush=True,
        )
    return rows


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISS"


def results_markdown(r: dict[str, Any]) -> str:
    loads = r["loads"]
    ref_row = r["cpu"][0]
    lines = [
        SECTION,
        "",
        f"`python bench/load.py` · {r['when']} · {r['machine']} · whole run {r['duration'] / 60:.1f} min. "
        "No browser: each session speaks Streamlit's websocket protocol (page GET, `/_stcore/stream`, "
        "`rerun_script` BackMsgs; a run is timed from the BackMsg to `script_finished`). The one-chart app is "
        "bench/slider_chart_app.py (title, slider, one 3-point `st.altair_chart`), served by a second process "
        "in the same run. Load average (1, 5, 15 min) at the start of each part in brackets.",
        "",
        f"### Server CPU per run, one session at a time (user + system time of the server process) [{loads['cpu']}]",
        "",
        "A new session's first run is measured twice: while another session that opened the same link is "
        "still connected (the lecture hall), and on an otherwise idle server, where Streamlit compiles the "
        "entry script and the page again (it forgets its compiled scripts whenever no session is connected). "
        "The target applies to every column: the largest of the three ratios is compared with 1.2.",
        "",
        "| page | new session, first run | first run, idle server | rerun at defaults | slider drag "
        "| first run ÷ one-chart | idle first run ÷ one-chart | rerun ÷ one-chart | target ≤ 1.2× |",
        "|---|---:|---:|---:|---:|---:|---:|---:|:--:|",
    ]
    for row in r["cpu"]:
        f_ratio, i_ratio = row["first"] / ref_row["first"], row["first_idle"] / ref_row["first_idle"]
        r_ratio = row["rerun"] / ref_row["rerun"]
        ok = "" if row is ref_row else verdict(max(f_ratio, i_ratio, r_ratio) <= TARGETS["cpu_ratio"])
        drag = f"{row['drag'] * 1e3:.0f} ms" + ("" if row["has_slider"] else " (no slider: rerun)")
        lines.append(
            f"| {row['label']} | {row['first'] * 1e3:.0f} ms | {row['first_idle'] * 1e3:.0f} ms | "
            f"{row['rerun'] * 1e3:.0f} ms | {drag} | {f_ratio:.2f}× | {i_ratio:.2f}× | {r_ratio:.2f}× | {ok} |"
        )
    h_ref, h, h2 = r["hall_ref"], r["hall"], r["hall_repeat"]

    def hall_row(name: str, x: HallResult, load: str, target: str = "") -> str:
        rss = " + ".join(f"{v / MB:.0f}" for v in x.rss_connected.values())
        return (
            f"| {name} [{load}] | {x.sessions} | {len(x.runs)} | {fmt_s(x.pct(0.5))} | {fmt_s(x.pct(0.95))} | "
            f"{fmt_s(x.pct(0.95, ['open']))} | {len(x.errors)} | {len(x.exceptions)} | {rss} MB | {x.wall:.1f} s | {target} |"
        )

    ratio = h.pct(0.95) / h_ref.pct(0.95)
    lines += [
        "",
        f"### The lecture hall: {h.sessions} sessions open the same link within the ramp, then drag a slider twice",
        "",
        f"The explorer's link: the {r['link']} page at its defaults. Every session stays connected until all are done; "
        "RSS is read then.",
        "",
        "| scenario [load] | sessions | runs | p50 | p95 | first run p95 | errors | exceptions | RSS, all connected | wall | target |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|:--:|",
        hall_row("one-chart app, one process", h_ref, loads["hall_ref"]),
        hall_row(
            "explorer, one process",
            h,
            loads["hall"],
            f"p95 {ratio:.2f}× one-chart (≤ 1.2×) {verdict(ratio <= TARGETS['p95_ratio'])}",
        ),
        hall_row("explorer, one process, repeat", h2, loads["hall_repeat"]),
        hall_row("explorer, mixed pages", r["mixed"], loads["mixed"]),
    ]
    p = r.get("proxy")
    if p is not None:
        pr = p.pct(0.95) / h.pct(0.95)
        split = r.get("proxy_split") or {}
        lines.append(
            hall_row(
                "explorer, 2 replicas behind nginx",
                p,
                loads["proxy"],
                f"p95 {pr:.2f}× one replica (≤ 0.65×) {verdict(pr <= TARGETS['replica_ratio'])}",
            )
        )
        lines += [
            "",
            "Requests per replica through the proxy (nginx log): " + ", ".join(f"{k}: {v}" for k, v in split.items()),
        ]
    else:
        lines += ["", "Two replicas behind nginx: skipped (nginx not installed)."]
    rss = r["rss"]
    worst = max([*h.rss_connected.values(), *h2.rss_connected.values()] or [0])
    growth = rss["after2"] - rss["after1"]
    lines += [
        "",
        "| memory | value | target |",
        "|---|---:|:--:|",
        f"| server RSS, 100 sessions connected (largest of the two runs) | {worst / MB:.0f} MB | ≤ 700 MB {verdict(worst <= TARGETS['rss'])} |",
        f"| RSS before the hall / after it / after the repeat (idle, 2 s later) | {rss['before'] / MB:.0f} / {rss['after1'] / MB:.0f} / {rss['after2'] / MB:.0f} MB | |",
        f"| growth over the repeat | {growth / MB:+.0f} MB | none |",
        f"| of the RSS before the hall: backed by files (memory-mapped: the real model's weights, which the "
        f"warm-up's visit to every page loaded; shared by the page cache, not per process) | "
        f"{rss.get('file', 0) / MB:.0f} MB | |",
    ]
    return "\n".join(lines) + "\n"


def write_results(table: str) -> None:
    """Replace (or append) the section in bench/RESULTS.md, leaving the rest of the file alone."""
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    pattern = re.compile(re.escape(SECTION) + r".*?(?=\n## |\Z)", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: table.rstrip("\n"), text)
    else:
        text = text.rstrip("\n") + "\n\n" + table
    RESULTS.write_text(text.rstrip("\n") + "\n")


def fresh(args: argparse.Namespace) -> int:
    """The lecture hall on freshly started servers (issue #36): `--fresh` rounds, each a new
    one-chart app and then a new explorer server, each met by `--sessions` students the moment it
    answers its health check (no warm-up). Prints each hall and, per round, the explorer's p95
    over the one-chart app's; the explorer's server CPU per run over the hall."""
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{when} · {os.cpu_count()} CPUs · {_cpu_model()} · load {load_average()}", flush=True)
    link = next((t for t in explorer_targets() if t.label == args.link), explorer_targets()[0])
    trouble: list[str] = []
    runs = (
        ("one-chart app (Streamlit's defaults)", REFERENCE_APP, REFERENCE, REFERENCE_ENV),
        ("one-chart app (the explorer's config)", REFERENCE_APP, REFERENCE, {}),
        ("explorer", SERVE, link, {}),
    )
    for k in range(args.fresh):
        results = []
        for label, script, target, env in runs:
            server = start_server(script, env=env)
            try:
                cpu0 = cpu_seconds(server.pid)
                r = asyncio.run(
                    hall(
                        server.base_url,
                        [target],
                        sessions=args.sessions,
                        ramp=args.ramp,
                        pids=[server.pid],
                        label=label,
                    )
                )
                cpu = (cpu_seconds(server.pid) - cpu0) / max(1, len(r.runs))
            finally:
                server.stop()
            print(f"  round {k + 1}: {hall_line(r)} · server CPU {cpu * 1e3:.0f} ms a run", flush=True)
            results.append(r)
            trouble += problems([r])
        app_p95 = results[-1].pct(0.95)
        for ref in results[:-1]:
            print(
                f"  round {k + 1}: p95 {app_p95:.2f} s / {ref.pct(0.95):.2f} s = {app_p95 / ref.pct(0.95):.2f}x the {ref.label}",
                flush=True,
            )
    for line in trouble[:20]:
        print(line, file=sys.stderr)
    return 1 if trouble else 0


def memory(args: argparse.Namespace) -> int:
    """Memory over `--memory` runs on one freshly started server (issue #36: flat over 1,000 runs,
    whatever the garbage collector does). One session at a time, over every page in turn: each opens
    its page and drags its slider (or reruns) until it has made `--renew` runs, then closes (its
    session ends, as a closed tab's does) and the next page's session starts. First one such round
    over every page, not counted: it loads what a page loads once per process (torch, the real
    model's memory-mapped weights) and fills the caches at the values the drags reach. Then the
    counted runs, the same way on; the server's RSS is read after every 100. Printed: RSS after the
    warm-up and at each hundred, its range, and its change between readings one round apart (RSS
    follows the page being run, so only readings at the same page compare)."""
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"{when} · {os.cpu_count()} CPUs · {_cpu_model()} · load {load_average()}", flush=True)
    targets = explorer_targets()
    server = start_server()
    rss: dict[int, float] = {}
    errors: list[str] = []
    kinds: dict[str, int] = {}
    warm = args.renew * len(targets)

    async def go() -> None:
        done, page = 0, 0
        while done < warm + args.memory:
            session = Session(server.base_url, targets[page % len(targets)])
            page += 1
            try:
                for k in range(min(args.renew, warm + args.memory - done)):
                    run = await (session.open() if k == 0 else session.drag((k * 0.37) % 1.0))
                    if run.error:
                        errors.append(f"{session.target.label} {run.kind}: {run.error}")
                    done += 1
                    counted = done - warm
                    if counted > 0:
                        kinds[run.kind] = kinds.get(run.kind, 0) + 1
                    if counted >= 0 and counted % 100 == 0:
                        rss[counted] = rss_bytes(server.pid) / 2**20
                        what = "after the warm-up" if counted == 0 else f"run {counted:5,}"
                        print(f"  {what}: RSS {rss[counted]:7.1f} MB", flush=True)
            finally:
                await session.close()

    try:
        asyncio.run(go())
    finally:
        server.stop()
    # RSS follows the page being run (its arrays, its charts): readings one round apart (`warm` runs,
    # the same page at the same step) compare like with like
    pairs = [(m, m + warm) for m in sorted(rss) if m + warm in rss]
    print(
        f"  warm-up: {warm} runs ({len(targets)} pages × {args.renew}); counted: "
        f"{', '.join(f'{n} {k}s' for k, n in sorted(kinds.items()))}, a new session every {args.renew} runs",
        flush=True,
    )
    print(
        f"  RSS after the warm-up and the counted runs: {min(rss.values()):.1f}–{max(rss.values()):.1f} MB", flush=True
    )
    if not pairs:
        print(
            f"  no two readings one round ({warm} runs) apart: use --renew so that pages × renew is a multiple of 100"
        )
    else:
        growth = [rss[b] - rss[a] for a, b in pairs]
        print(
            f"  one round later (the same page, {warm} runs on), at {len(pairs)} readings: "
            + ", ".join(f"run {a:,} → {b:,} {g:+.1f} MB" for (a, b), g in zip(pairs, growth, strict=True))
            + f" · mean {statistics.mean(growth):+.1f} MB",
            flush=True,
        )
    for line in errors[:20]:
        print(line, file=sys.stderr)
    return 1 if errors else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--small", action="store_true", help="CI: 10 sessions over every page; exit 1 on a problem")
    parser.add_argument("--url", help="with --small: a running server or proxy (default: start one)")
    parser.add_argument("--sessions", type=int, default=100, help="sessions in the lecture hall")
    parser.add_argument("--mixed", type=int, default=40, help="sessions in the mixed-pages scenario")
    parser.add_argument("--ramp", type=float, default=2.0, help="seconds over which the sessions arrive")
    parser.add_argument("--repeats", type=int, default=8, help="runs per figure in the CPU table")
    parser.add_argument("--link", default="home", help="the page (slug) of the lecture-hall link")
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    parser.add_argument(
        "--fresh", type=int, default=0, help="only the hall on freshly started servers, this many rounds"
    )
    parser.add_argument("--memory", type=int, default=0, help="only the server's memory over this many runs")
    parser.add_argument("--cpu", action="store_true", help="only scenario 1, the server CPU table (nothing written)")
    parser.add_argument("--renew", type=int, default=50, help="with --memory: runs per session")
    args = parser.parse_args(argv)
    if args.renew < 1:
        parser.error(f"--renew must be at least 1, got {args.renew}")
    if args.memory:
        return memory(args)
    if args.fresh:
        return fresh(args)
    if args.small:
        n = 10 if args.sessions == 100 else args.sessions
        result = small(args.url, sessions=n, reconnect=True)
        print(hall_line(result))
        trouble = problems([result])
        for line in trouble:
            print(line, file=sys.stderr)
        return 1 if trouble else 0
    return full(args)


#: For tests: the helpers a caller needs without argparse.
__all__: list[str] = ["REFERENCE", "HallResult", "Session", "Target", "explorer_targets", "hall", "main", "small"]

if __name__ == "__main__":
    sys.exit(main())
