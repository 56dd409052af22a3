"""The training queue of the extrapolation lab: one worker thread per server process, one job at a time.

Pure Python (threading), no Streamlit: the page drives it.

* ``QUEUE.submit(session, key, work)`` queues a job (a session has at most one; a finished result for
  the same settings ``key`` is returned at once from a bounded cache shared by every session);
  ``work(job)`` runs in the worker thread and reports with ``job.report(...)``, which raises
  :class:`JobCancelled` once the job is cancelled or its session has gone quiet.
* At most one job runs per process; the others wait in order (``position``), at most ``max_waiting``.
* **Sessions that close.** A job belongs to its session, not to a tab or to the settings on screen:
  it lives as long as the session does. Two signals say a session is alive: ``alive(runtime_id)``
  (given to the queue; the module's ``QUEUE`` is built with explorer.compat.session_is_connected: True while the
  browser's websocket is connected, on whatever page or tab it is, None where there is no server,
  as under AppTest) and heartbeats (``touch(session)``, which the page calls on every run, and
  from an ``st.fragment(run_every=…)`` while the job is unfinished). A job (running or waiting)
  whose session has been neither connected nor heard from for ``timeout`` seconds is cancelled by
  the worker at its next step. A cancelled or finished job frees the slot at once.
* **No runaway threads.** The worker is started on the first submit and exits when the queue is
  empty; at most one is alive (``worker_alive``).
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from explorer import compat

__all__ = ["Job", "JobCancelled", "JobQueue"]


class JobCancelled(Exception):
    """Raised inside a job's work when it was cancelled or its session stopped sending heartbeats."""


@dataclass(eq=False)
class Job:
    id: int
    session: str
    key: Hashable
    work: Callable[[Job], Any]
    queue: JobQueue
    state: str = "queued"  # queued | running | done | cancelled | failed
    progress: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    error: str = ""
    last_seen: float = field(default_factory=lambda: time.monotonic())  # the module's clock, read at creation
    runtime_id: str | None = None  # the Streamlit session id that ``queue.alive`` is asked about
    _cancel: threading.Event = field(default_factory=threading.Event)

    @property
    def finished(self) -> bool:
        return self.state in ("done", "cancelled", "failed")

    def report(self, **progress: Any) -> None:
        """Record progress; raises JobCancelled if the job must stop (called from the worker)."""
        self.progress = {**self.progress, **progress}
        if self._cancel.is_set():
            raise JobCancelled("cancelled")
        if self.queue._stale(self, time.monotonic()):
            raise JobCancelled("its session closed")


#: Seconds a job outlives its session's last sign of life (connection or heartbeat), by default.
DEFAULT_TIMEOUT = 15.0


class JobQueue:
    def __init__(
        self,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_waiting: int = 8,
        max_results: int = 8,
        alive: Callable[[str], bool | None] | None = None,
    ):
        self.timeout, self.max_waiting, self.max_results = timeout, max_waiting, max_results
        #: alive(runtime_id) -> True (connected), False (gone) or None (unknown: heartbeats decide)
        self.alive = alive
        self._lock = threading.Lock()
        self._jobs: list[Job] = []  # queued and running, in order
        self._by_session: dict[str, Job] = {}
        self._results: OrderedDict[Hashable, Any] = OrderedDict()
        self._ids = itertools.count(1)
        self._worker: threading.Thread | None = None

    # ------------------------------------------------------------------ the sessions' side
    def cached(self, key: Hashable) -> Any:
        with self._lock:
            if key in self._results:
                self._results.move_to_end(key)
                return self._results[key]
        return None

    def submit(self, session: str, key: Hashable, work: Callable[[Job], Any], *, runtime_id: str | None = None) -> Job:
        """Queue ``work`` for ``session`` (its previous unfinished job is cancelled). ``runtime_id``:
        the id ``alive`` is asked about. Raises RuntimeError when ``max_waiting`` jobs already wait."""
        with self._lock:
            old = self._by_session.get(session)
            cached = key in self._results
            waiting = sum(j.state == "queued" and j is not old for j in self._jobs)
            if not cached and waiting >= self.max_waiting:
                raise RuntimeError(f"the training queue is full ({self.max_waiting} waiting): try again later")
            if old is not None and not old.finished:
                self._cancel_locked(old)
            job = Job(next(self._ids), session, key, work, self, runtime_id=runtime_id)
            self._by_session[session] = job
            if cached:
                job.state, job.result = "done", self._results[key]
                return job
            self._jobs.append(job)
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(target=self._run, name="lab-training", daemon=True)
                self._worker.start()
        return job

    def job_of(self, session: str) -> Job | None:
        with self._lock:
            return self._by_session.get(session)

    def heartbeat(self, job: Job) -> None:
        job.last_seen = time.monotonic()

    def touch(self, session: str) -> Job | None:
        """A heartbeat for ``session``'s job, whatever its key (the page calls it on every run); returns the job."""
        job = self.job_of(session)
        if job is not None:
            self.heartbeat(job)
        return job

    def position(self, job: Job) -> int:
        """0 while running, n ≥ 1 when n − 1 jobs run or wait before it, −1 when finished."""
        with self._lock:
            if job in self._jobs and job.state == "queued":
                return self._jobs.index(job)
            return 0 if job.state == "running" else -1

    def cancel(self, job: Job) -> None:
        with self._lock:
            self._cancel_locked(job)

    def forget(self, session: str) -> None:
        with self._lock:
            job = self._by_session.pop(session, None)
            if job is not None and not job.finished:
                self._cancel_locked(job)

    @property
    def worker_alive(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def snapshot(self) -> list[tuple[int, str]]:
        with self._lock:
            return [(j.id, j.state) for j in self._jobs]

    # ------------------------------------------------------------------ internals
    def _stale(self, job: Job, now: float) -> bool:
        """Neither connected (``alive``) nor heard from (heartbeats) for ``timeout`` seconds."""
        if job.runtime_id is not None and self.alive is not None:
            try:
                connected = self.alive(job.runtime_id)
            except Exception:  # a broken probe must not kill the job: fall back to heartbeats
                connected = None
            if connected:
                job.last_seen = now
        return now - job.last_seen > self.timeout

    def _cancel_locked(self, job: Job) -> None:
        job._cancel.set()
        if job.state == "queued":
            job.state = "cancelled"
            if job in self._jobs:
                self._jobs.remove(job)

    def _next(self) -> Job | None:
        with self._lock:
            now = time.monotonic()
            for job in list(self._jobs):
                if job.state == "queued" and self._stale(job, now):  # its session is gone
                    job.state, job.error = "cancelled", "its session closed"
                    self._jobs.remove(job)
            for job in self._jobs:
                if job.state == "queued":
                    job.state = "running"
                    return job
            self._worker = None  # exits: the next submit starts a new one
            return None

    def _run(self) -> None:
        while (job := self._next()) is not None:
            try:
                result = job.work(job)
            except JobCancelled as exc:
                job.state, job.error = "cancelled", str(exc)
            except Exception as exc:
                job.state, job.error = "failed", f"{type(exc).__name__}: {exc}"
            else:
                with self._lock:
                    self._results[job.key] = result
                    self._results.move_to_end(job.key)
                    while len(self._results) > self.max_results:
                        self._results.popitem(last=False)
                job.result, job.state = result, "done"
            finally:
                with self._lock:
                    if job in self._jobs:
                        self._jobs.remove(job)


#: The environment variable that sets the process queue's ``timeout`` (`session_timeout`).
SESSION_TIMEOUT_ENV = "POSENC_LAB_SESSION_TIMEOUT"


def session_timeout(environ: Mapping[str, str] = os.environ, default: float = DEFAULT_TIMEOUT) -> float:
    """Seconds a job outlives its session's last sign of life: $POSENC_LAB_SESSION_TIMEOUT when it is a
    number from 1 to 600, else `default` (a value outside that is reported on stderr, naming the
    variable, the rule and the value)."""
    raw = environ.get(SESSION_TIMEOUT_ENV)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not 1 <= value <= 600:  # NaN fails too
        print(
            f"{SESSION_TIMEOUT_ENV} must be a number of seconds from 1 to 600, got {raw!r}; using {default:g}",
            file=sys.stderr,
        )
        return default
    return value


#: The process's queue (module state lives as long as the server process).
QUEUE = JobQueue(alive=compat.session_is_connected, timeout=session_timeout())
