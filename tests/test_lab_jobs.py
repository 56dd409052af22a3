"""explorer.jobs: one job runs, the others wait in order; cancel, session timeout, cache, no runaway thread.
No training: the work functions wait on events."""

from __future__ import annotations

import threading
import time

import pytest

from explorer import jobs
from explorer.jobs import JobQueue


def wait_for(predicate, timeout=5.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        time.sleep(0.01)
    return False


def blocking_work(release: threading.Event, started: list):
    def work(job):
        started.append(job.session)
        while not release.wait(0.01):
            job.report(step=1)  # raises once cancelled or stale
        return {"by": job.session}

    return work


def test_two_sessions_one_runs_one_waits_then_runs():
    q = JobQueue(timeout=5)
    release, started = threading.Event(), []
    a = q.submit("A", "k1", blocking_work(release, started))
    b = q.submit("B", "k2", blocking_work(release, started))
    assert wait_for(lambda: a.state == "running")
    assert b.state == "queued" and q.position(a) == 0 and q.position(b) == 1 and started == ["A"]
    release.set()
    assert wait_for(lambda: b.state == "done")
    assert a.result == {"by": "A"} and b.result == {"by": "B"}
    assert wait_for(lambda: not q.worker_alive)  # the worker exits when the queue is empty


def test_cancel_a_running_job_frees_the_slot_and_a_waiting_one_leaves_the_queue():
    q = JobQueue(timeout=5)
    release, started = threading.Event(), []
    a = q.submit("A", "k1", blocking_work(release, started))
    b = q.submit("B", "k2", blocking_work(release, started))
    c = q.submit("C", "k3", blocking_work(release, started))
    assert wait_for(lambda: a.state == "running")
    q.cancel(b)
    assert b.state == "cancelled" and q.position(c) == 1
    q.cancel(a)
    assert wait_for(lambda: c.state == "running") and a.state == "cancelled"
    assert started == ["A", "C"]
    release.set()
    assert wait_for(lambda: c.state == "done")


def test_a_session_that_stops_sending_heartbeats_loses_its_job():
    q = JobQueue(timeout=0.2)
    release, started = threading.Event(), []
    a = q.submit("A", "k1", blocking_work(release, started))
    assert wait_for(lambda: a.state == "cancelled", timeout=3)  # no heartbeat -> cancelled
    assert "session" in a.error
    b = q.submit("B", "k2", blocking_work(release, started))
    for _ in range(30):  # a live session keeps its job
        q.heartbeat(b)
        time.sleep(0.02)
    assert b.state == "running"
    release.set()
    assert wait_for(lambda: b.state == "done")


def test_results_are_cached_per_key_and_bounded():
    q = JobQueue(max_results=2)
    for i in range(3):
        job = q.submit("A", f"k{i}", lambda job, i=i: i)
        assert wait_for(lambda job=job: job.state == "done")
    assert q.cached("k0") is None and q.cached("k1") == 1 and q.cached("k2") == 2
    again = q.submit("B", "k2", lambda job: pytest.fail("not run again"))
    assert again.state == "done" and again.result == 2


def test_a_new_submit_replaces_the_sessions_job_and_the_queue_is_bounded():
    q = JobQueue(max_waiting=1, timeout=5)
    release, started = threading.Event(), []
    a = q.submit("A", "k1", blocking_work(release, started))
    assert wait_for(lambda: a.state == "running")
    q.submit("B", "k2", blocking_work(release, started))
    with pytest.raises(RuntimeError, match="full"):
        q.submit("C", "k3", blocking_work(release, started))
    q.cancel(q.job_of("B"))
    a2 = q.submit("A", "k4", blocking_work(release, started))  # A's first job is cancelled
    assert wait_for(lambda: a.state == "cancelled")
    release.set()
    assert wait_for(lambda: a2.state == "done")
    assert threading.active_count() < 10


def test_a_failing_job_reports_its_error():
    q = JobQueue()
    job = q.submit("A", "k", lambda job: 1 / 0)
    assert wait_for(lambda: job.state == "failed") and "ZeroDivisionError" in job.error


def test_a_connected_session_keeps_its_job_without_heartbeats_and_a_closed_one_loses_it():
    connected = {"A": True}
    q = JobQueue(timeout=0.2, alive=lambda rid: connected.get(rid))
    release, started = threading.Event(), []
    a = q.submit("A", "k1", blocking_work(release, started), runtime_id="A")
    time.sleep(0.6)  # three timeouts without a heartbeat: still running, the browser is connected
    assert a.state == "running"
    connected["A"] = False  # the browser closed
    assert wait_for(lambda: a.state == "cancelled", timeout=3) and "session" in a.error
    assert wait_for(lambda: not q.worker_alive)


def test_unknown_liveness_and_a_broken_probe_fall_back_to_heartbeats():
    def broken(rid):
        raise RuntimeError("no runtime")

    for alive in (lambda rid: None, broken):
        q = JobQueue(timeout=0.5, alive=alive)
        release, started = threading.Event(), []
        a = q.submit("A", "k1", blocking_work(release, started), runtime_id="A")
        for _ in range(12):  # touch(session): a heartbeat for the session's job, whatever its key (1.2 s > timeout)
            assert q.touch("A") is a
            time.sleep(0.1)
        assert a.state == "running"
        assert wait_for(lambda a=a: a.state == "cancelled", timeout=3)  # heartbeats stop -> cancelled
    assert q.touch("nobody") is None


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        (None, 15.0),
        ("3", 3.0),
        ("2.5", 2.5),
        ("1", 1.0),
        ("600", 600.0),
        ("0", 15.0),
        ("601", 15.0),
        ("nan", 15.0),
        ("abc", 15.0),
    ],
)
def test_the_session_timeout_from_the_environment(raw, want, capsys):
    environ = {} if raw is None else {jobs.SESSION_TIMEOUT_ENV: raw}
    assert jobs.session_timeout(environ) == want
    said = capsys.readouterr().err
    assert (jobs.SESSION_TIMEOUT_ENV in said and repr(raw) in said) == (raw is not None and want == 15.0)
