"""explorer.mode.on_a_phone: "Mobi" in the browser's User-Agent (MDN's test), nothing else."""

from __future__ import annotations

import pytest

from explorer import mode


class _Context:
    def __init__(self, headers):
        self.headers = headers


@pytest.mark.parametrize(
    "agent, phone",
    [
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148 Safari/604.1",
            True,
        ),
        ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 Chrome/126.0 Mobile Safari/537.36", True),
        ("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36", False),
        ("Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 Version/17.5 Safari/604.1", False),
        (None, False),
    ],
)
def test_a_phone_is_a_browser_that_says_mobi(monkeypatch, agent, phone):
    monkeypatch.setattr(mode.st, "context", _Context({} if agent is None else {"User-Agent": agent}))
    assert mode.on_a_phone() is phone


def test_no_browser_is_not_a_phone(monkeypatch):
    class Broken:
        @property
        def headers(self):
            raise RuntimeError("no script run context")

    monkeypatch.setattr(mode.st, "context", Broken())
    assert mode.on_a_phone() is False
