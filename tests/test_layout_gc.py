"""explorer.compat.freeze_long_lived_objects: once per stage (before / after torch), and every
page run asks for it (page_setup: compat.freeze_soon, a moment after the run)."""

from __future__ import annotations

import gc
import sys
import types

from _apptest import page_path, run_page

from explorer import compat


def test_freezes_once_per_stage(monkeypatch):
    monkeypatch.setattr(compat, "_FROZEN", set())
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    monkeypatch.delitem(sys.modules, "transformers", raising=False)  # an earlier test may have loaded the model
    assert compat.freeze_long_lived_objects() is True
    assert gc.get_freeze_count() > 0
    assert compat.freeze_long_lived_objects() is False  # nothing new to do before torch
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))
    assert compat.freeze_long_lived_objects() is True  # torch's objects join once
    assert compat.freeze_long_lived_objects() is False
    assert compat._FROZEN == {"base", "torch"}
    monkeypatch.setitem(sys.modules, "transformers", types.ModuleType("transformers"))
    assert compat.freeze_long_lived_objects() is True  # and the real model's libraries once
    assert compat.freeze_long_lived_objects() is False
    assert compat._FROZEN == {"base", "torch", "transformers"}


def test_a_page_run_freezes_soon_after(monkeypatch):
    monkeypatch.setattr(compat, "_FROZEN", set())
    monkeypatch.setattr(compat, "_FREEZE_TIMERS", {})
    run_page(page_path("pages/9_Model_configs.py"))
    timers = list(compat._FREEZE_TIMERS.values())
    assert timers, "page_setup did not ask for a freeze"
    for timer in timers:
        timer.join(10)
    assert compat._FROZEN  # the timer page_setup started froze the stage
