"""Module-scoped browser fixtures shared by the Chromium tests that need one app server and one
browser for the whole module: import them into a test module (``from _browser_fixtures import
chromium, server``) and pytest uses them there."""

from __future__ import annotations

import pytest
from e2e_support import StreamlitServer, launch_chromium, require_browser


@pytest.fixture(scope="module")
def server():
    require_browser()
    with StreamlitServer() as s:
        yield s


@pytest.fixture(scope="module")
def chromium():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        yield browser
        browser.close()
