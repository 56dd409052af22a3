"""explorer.compat.freeze_long_lived_objects: once per stage (Altair, torch, transformers as they
arrive), in the page run itself (page_setup), with no timer; and Streamlit's collection after every
run is off (issue #36: both made a freshly started server slow until a timer had fired)."""

from __future__ import annotations

import gc
import sys
import threading
import tomllib
import types
from pathlib import Path

from _apptest import page_path, run_page

from explorer import compat

ROOT = Path(__file__).resolve().parent.parent


def test_freezes_once_per_stage(monkeypatch):
    monkeypatch.setattr(compat, "_FROZEN", set())
    for name in compat.STAGE_MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)  # an earlier test may have loaded them
    assert compat.freeze_long_lived_objects() is True
    assert gc.get_freeze_count() > 0
    assert compat.freeze_long_lived_objects() is False  # nothing new to do before Altair
    monkeypatch.setitem(sys.modules, "altair", types.ModuleType("altair"))
    assert compat.freeze_long_lived_objects() is True  # Altair's objects join once
    assert compat.freeze_long_lived_objects() is False
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))
    assert compat.freeze_long_lived_objects() is True  # torch's objects join once
    assert compat.freeze_long_lived_objects() is False
    assert compat._FROZEN == {"base", "altair", "torch"}
    monkeypatch.setitem(sys.modules, "transformers", types.ModuleType("transformers"))
    assert compat.freeze_long_lived_objects() is True  # and the real model's libraries once
    assert compat.freeze_long_lived_objects() is False
    assert compat._FROZEN == {"base", "altair", "torch", "transformers"}


def test_a_page_run_freezes_in_the_run_itself_with_no_thread_and_no_collect(monkeypatch):
    import altair  # noqa: F401  (the stage a warm server is in; in a fresh process run alone, the
    # page's own chart imports would load Altair after its page_setup froze "base")

    monkeypatch.setattr(compat, "_FROZEN", set())
    collects = []
    monkeypatch.setattr(compat.gc, "collect", lambda *a: collects.append(a) or 0)
    threads_before = {t.name for t in threading.enumerate()}
    at = run_page(page_path("pages/9_Model_configs.py"))
    assert not at.exception
    assert compat._stage() in compat._FROZEN  # frozen by the run, not later
    assert collects == []  # no full collection first
    new_threads = {t.name for t in threading.enumerate()} - threads_before
    assert not [n for n in new_threads if "freeze" in n]


def test_the_server_does_not_collect_after_every_run():
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False
