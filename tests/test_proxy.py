"""Two replicas of the app behind nginx (deploy/nginx.conf.template via deploy/replicas.py),
the load client through the proxy: no error, no exception, and every session served by one
replica throughout.

How it is proven: nginx logs, per request, the routing key (the browser's "strt" cookie, or the
id its first request is given) and the replica that answered ($upstream_addr). Every simulated
student makes at least three requests: the page GET, the websocket, and a second websocket after
dropping the first, which asks Streamlit for the same session; Streamlit hands the session back
only in the process that holds it (elsewhere it would create a new one with a new id). The test
checks both: one replica per cookie in the log, one session id per student. And that the proxy
balances at all: cookie-less requests reach both replicas.

Needs nginx (Debian's package): skipped without it, a failure in CI (CI=true or REQUIRE_BROWSER=1).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for sub in ("bench", "deploy"):
    sys.path.insert(0, str(ROOT / sub))

import load  # noqa: E402
import replicas  # noqa: E402

REQUIRED = os.environ.get("REQUIRE_BROWSER") == "1" or os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="module")
def proxy():
    missing = replicas.nginx_missing_message()
    if missing:
        if REQUIRED:
            pytest.fail(missing)
        pytest.skip(missing)
    with replicas.Replicas(2) as reps:
        yield reps


def test_the_config_renders_for_other_machines():
    conf = replicas.render("80", ["10.0.0.11:8501", "10.0.0.12:8501"], "/var/lib/explorer-nginx")
    assert "@@" not in conf
    assert "server 10.0.0.11:8501" in conf and "server 10.0.0.12:8501" in conf
    assert "hash $strt_key consistent;" in conf
    assert "proxy_set_header Upgrade $http_upgrade;" in conf


def test_sessions_through_the_proxy_stay_on_one_replica(proxy):
    targets = load.explorer_targets()
    n = max(10, len(targets))
    result = asyncio.run(load.hall(proxy.url, targets, sessions=n, ramp=1.0, reconnect=True, label="proxy"))
    assert not result.errors, "\n".join(result.errors[:10])
    assert not result.exceptions, "\n".join(result.exceptions[:10])
    assert len(result.runs) == 4 * n
    if result.retried:  # see tests/test_load_small.py
        warnings.warn("\n".join(result.retried), stacklevel=1)
    # Streamlit gave every student's resumed websocket its own session back
    assert all(len(ids) == 1 for ids in result.session_ids), result.session_ids

    keys = [c.get("strt") for c in result.cookies]
    assert all(keys), f"nginx set no affinity cookie: {result.cookies}"
    replica_addrs = {f"127.0.0.1:{p}" for p in proxy.replica_ports}
    deadline = time.monotonic() + 10  # nginx logs a websocket when it closes
    while True:
        lines = proxy.log_lines()
        per_key = {k: [row for row in lines if row[1] == k] for k in keys}
        if all(sum(row[3] == "101" for row in rows) >= 2 for rows in per_key.values()) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    for key, rows in per_key.items():
        upstreams = {row[2] for row in rows}
        assert len(rows) >= 3 and sum(row[3] == "101" for row in rows) >= 2, (key, rows)
        assert len(upstreams) == 1 and upstreams <= replica_addrs, f"session {key[:8]} served by {upstreams}"


def test_the_proxy_spreads_new_browsers_over_both_replicas(proxy):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    for _ in range(40):  # no cookie: each request is a new browser
        with opener.open(f"{proxy.url}/_stcore/health", timeout=10) as response:
            assert response.read().strip() == b"ok"
    health = [row for row in proxy.log_lines() if "/_stcore/health" in row[4]]
    assert {row[2] for row in health} >= {f"127.0.0.1:{p}" for p in proxy.replica_ports}
