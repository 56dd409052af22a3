"""The server's one-job queue (:mod:`explorer.jobs`) on a page: a Run button, the job's place in the queue or its
progress (one bar per part) with a Cancel button, in a fragment that redraws every second while the job is
unfinished, and its result. The lab and the real-model page both use it; their words come in a `JobWords`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import streamlit as st

from explorer import compat, jobs
from explorer.notices import escape_markdown
from explorer.text import count


def _waits(job: jobs.Job, ahead: int, full: bool) -> str | None:
    if job.state == "queued":
        return f"Your run waits: {count(ahead, 'job')} ahead of it (one at a time per server)."
    return None if full else "Your run is running; its tab shows its progress."


@dataclass(frozen=True)
class JobWords:
    """What a page says about its job. ``bars(job)``: an unfinished job's progress bars, (fraction, text) each;
    ``status(job, ahead, full)``: an unfinished job's line (None: none), ``full`` False where only the heartbeat
    shows (another tab is open); ``stopped(job)``: a cancelled or failed job's line."""

    bars: Callable[[jobs.Job], list[tuple[float, str]]]
    status: Callable[[jobs.Job, int, bool], str | None] = _waits
    stopped: Callable[[jobs.Job], str] = lambda job: f"The run {job.state}: {escape_markdown(job.error)}"


def job_status(session: str, words: JobWords, *, prefix: str, full: bool = True) -> None:
    """The session's job in a fragment that redraws every second while it is unfinished (so it is also the
    session's heartbeat), and one full page run when it finishes. ``full``: bars and Cancel, or only the status."""

    def view() -> None:
        job = jobs.QUEUE.touch(session)
        if job is None:
            return
        if not job.finished:
            if line := words.status(job, jobs.QUEUE.position(job), full):
                st.info(line)
            if full:
                for frac, label in words.bars(job):
                    st.progress(min(1.0, max(0.0, frac)), text=label)
                if st.button("Cancel", icon=":material/stop:", key=f"{prefix}_cancel"):
                    jobs.QUEUE.cancel(job)
        elif full and job.state in ("cancelled", "failed"):
            st.warning(words.stopped(job))
        if job.finished and st.session_state.get(f"{prefix}_shown") != job.id:
            st.session_state[f"{prefix}_shown"] = job.id  # one full run to draw the result and stop the timer
            st.rerun()

    job_now = jobs.QUEUE.job_of(session)
    st.fragment(run_every=1.0 if job_now is not None and not job_now.finished else None)(view)()


def job_panel(
    session: str,
    key: tuple,
    work: Callable[[jobs.Job], Any],
    words: JobWords,
    *,
    prefix: str,
    label: str = "Run",
) -> tuple[Any, Any]:
    """Draw the panel for the job ``key`` of ``session`` (``work`` runs it) and return (its key, its result): the
    queue's cached result for ``key``, else this session's last finished job's (whose key may differ from
    ``key``), else (None, None). ``prefix`` names the widget keys (``<prefix>_go``, ``_cancel``, ``_shown``)."""
    done = jobs.QUEUE.cached(key)
    if st.button(label, icon=":material/play_arrow:", disabled=done is not None, key=f"{prefix}_go"):
        try:
            jobs.QUEUE.submit(session, key, work, runtime_id=compat.session_id())
        except RuntimeError as exc:
            st.warning(str(exc))
    job_status(session, words, prefix=prefix)
    if done is not None:
        return key, done
    job_now = jobs.QUEUE.job_of(session)
    if job_now is not None and job_now.state == "done":
        return job_now.key, job_now.result
    return None, None
