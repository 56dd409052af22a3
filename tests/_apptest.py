"""Shared AppTest helpers for the page tests."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent


def page_path(relative: str) -> str:
    """Absolute path of a page script, e.g. page_path("pages/3_RoPE_rotation.py")."""
    return str(ROOT / relative)


def run_page(page: str, at: AppTest | None = None, *, timeout: float = 60, **query) -> AppTest:
    """Run `page` (a fresh session seeded from `query` unless `at` is given); assert no exception."""
    if at is None:
        at = AppTest.from_file(page, default_timeout=timeout)
        for key, value in query.items():
            at.query_params[key] = str(value)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def metrics(at: AppTest) -> dict[str, str]:
    """{label: shown value} of every st.metric on the page."""
    return {m.label: m.value for m in at.metric}
