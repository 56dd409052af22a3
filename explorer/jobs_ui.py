"""The server's one-job queue (:mod:`explorer.jobs`) on a page: a Run button, the job's place in the queue or its
progress with a Cancel button (a fragment that redraws every second while the job is unfinished), and its result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from explorer import compat, jobs
from explorer.notices import escape_markdown


def job_panel(
    session: str, key: tuple, work: Callable[[jobs.Job], Any], *, running: Callable[[jobs.Job], str], prefix: str
) -> Any:
    """Draw the panel for the job ``key`` of ``session`` (``work`` runs it) and return its result: the queue's cached
    one, else this session's finished job's, else None. ``running(job)`` says what a running job does; ``prefix``
    names the panel's widget keys (``<prefix>_go``, ``<prefix>_cancel``, ``<prefix>_shown``)."""
    done, job_now = jobs.QUEUE.cached(key), jobs.QUEUE.job_of(session)
    if st.button("Run", icon=":material/play_arrow:", disabled=done is not None, key=f"{prefix}_go"):
        try:
            jobs.QUEUE.submit(session, key, work, runtime_id=compat.session_id())
        except RuntimeError as exc:
            st.warning(str(exc))
        job_now = jobs.QUEUE.job_of(session)

    def view() -> None:
        job = jobs.QUEUE.touch(session)
        if job is None:
            return
        if not job.finished:
            if job.state == "queued":
                st.info(f"Your run waits: {jobs.QUEUE.position(job)} job(s) ahead of it (one at a time per server).")
            else:
                st.progress(float(job.progress.get("fraction", 0.0)), text=running(job))
            if st.button("Cancel", icon=":material/stop:", key=f"{prefix}_cancel"):
                jobs.QUEUE.cancel(job)
        elif job.state in ("cancelled", "failed"):
            st.warning(f"The run {job.state}: {escape_markdown(job.error)}")
        if job.finished and st.session_state.get(f"{prefix}_shown") != job.id:
            st.session_state[f"{prefix}_shown"] = job.id
            st.rerun()

    st.fragment(run_every=1.0 if job_now is not None and not job_now.finished else None)(view)()
    if done is not None:
        return done
    return job_now.result if job_now is not None and job_now.state == "done" and job_now.key == key else None
