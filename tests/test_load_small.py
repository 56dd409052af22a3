"""The lecture-hall load client in CI's small mode against one server (bench/load.py --small).

Ten sessions spread over every page speak Streamlit's websocket protocol (no browser): each opens
its page, drags the page's slider twice, drops its websocket and resumes its session; any error
(connection, timeout, lost session, page not found) or exception element fails the test.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import load  # noqa: E402


def test_every_page_under_small_load_has_no_error_and_no_exception():
    result = load.small(None, sessions=10, reconnect=True)
    pages = {t.label for t in load.explorer_targets()}
    assert result.sessions >= max(10, len(pages))
    assert not result.errors, "\n".join(result.errors[:10]) + "\nserver log:\n" + result.server_log
    assert not result.exceptions, "\n".join(result.exceptions[:10])
    # every session: open, two drags, a resumed reconnect; one Streamlit session throughout
    assert len(result.runs) == 4 * result.sessions
    assert all(len(ids) == 1 for ids in result.session_ids), result.session_ids
