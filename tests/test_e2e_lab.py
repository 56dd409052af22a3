"""The extrapolation lab's "Train it yourself" in Chromium: a real (tiny) training run shows its
progress bar while it runs and its result chart when it is done, and a second identical request is
served from the shared cache (the Train button is disabled: nothing trains twice)."""

from __future__ import annotations

import pytest
from e2e_support import StreamlitServer, launch_chromium, require_browser, wait_idle

from explorer.jobs import SESSION_TIMEOUT_ENV

TIMEOUT = 3
QUERY = "lab_view=Train&lab_encs=rope&lab_steps=150&lab_tlen=16&lab_width=32&lab_seed=1"


@pytest.fixture(scope="module")
def server():
    require_browser()
    # a closed tab's job is cancelled after 3 s here (the default is 15 s: explorer.jobs.session_timeout)
    with StreamlitServer(env={SESSION_TIMEOUT_ENV: str(TIMEOUT)}) as s:
        yield s


def test_a_live_training_run_shows_progress_then_its_result(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server.base_url}/Extrapolation_lab?{QUERY}")
        wait_idle(page, title="Extrapolation lab")
        assert page.get_by_text("1 model × 150 steps at L = 16, d = 32").is_visible()
        page.get_by_role("button", name="Train").click()
        # a progress bar per model while the job runs, naming the model and the step (refreshed every second)
        page.locator("[data-testid=stProgress]").first.wait_for(timeout=60_000)
        page.get_by_text("rope: step").first.wait_for(timeout=120_000)
        # then the run's own chart appears
        page.get_by_text("Your run: markov, 150 steps, L = 16, d = 32, seed 1").first.wait_for(timeout=180_000)
        assert page.locator("[data-testid=stException]").count() == 0

        # another session asking for the same run gets it from the shared cache, no second training
        other = browser.new_page(viewport={"width": 1280, "height": 900})
        other.goto(f"{server.base_url}/Extrapolation_lab?{QUERY}")
        wait_idle(other, title="Extrapolation lab")
        other.get_by_text("Your run: markov, 150 steps, L = 16, d = 32, seed 1").first.wait_for(timeout=60_000)
        assert other.get_by_role("button", name="Train").is_disabled()
        browser.close()


def test_a_closed_session_frees_the_slot_and_a_waiting_one_runs(server):
    """A (long job) closes its browser tab mid-training: the runtime stops reporting its session as
    connected, so after the queue's timeout (TIMEOUT) its job is cancelled and B's waiting job runs; B's
    page says how long a closed tab keeps its job."""
    from playwright.sync_api import sync_playwright

    long_query = "lab_view=Train&lab_encs=all%20five&lab_steps=600&lab_tlen=128&lab_width=128&lab_seed=9"
    short_query = "lab_view=Train&lab_encs=rope&lab_steps=20&lab_tlen=16&lab_width=32&lab_seed=8"
    with sync_playwright() as pw:
        browser = launch_chromium(pw)
        a = browser.new_page(viewport={"width": 1280, "height": 900})
        a.goto(f"{server.base_url}/Extrapolation_lab?{long_query}")
        wait_idle(a, title="Extrapolation lab")
        a.get_by_role("button", name="Train").click()
        a.get_by_text("nope: step").first.wait_for(timeout=120_000)
        b = browser.new_page(viewport={"width": 1280, "height": 900})
        b.goto(f"{server.base_url}/Extrapolation_lab?{short_query}")
        wait_idle(b, title="Extrapolation lab")
        assert b.get_by_text(f"stops within {TIMEOUT} s of closing the browser tab").first.is_visible()
        b.get_by_role("button", name="Train").click()
        b.get_by_text("1 job ahead of it").first.wait_for(timeout=60_000)  # A's job holds the slot
        a.close()  # the session ends: no heartbeat, no connection
        b.get_by_text("Your run: markov, 20 steps, L = 16, d = 32, seed 8").first.wait_for(timeout=180_000)
        assert b.locator("[data-testid=stException]").count() == 0
        browser.close()
