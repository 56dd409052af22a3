"""explorer.layout.freeze_long_lived_objects: once per stage (before / after torch), and every
page run goes through it (page_setup)."""

from __future__ import annotations

import gc
import sys
import types

from _apptest import page_path, run_page

from explorer import layout


def test_freezes_once_per_stage(monkeypatch):
    monkeypatch.setattr(layout, "_FROZEN", set())
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert layout.freeze_long_lived_objects() is True
    assert gc.get_freeze_count() > 0
    assert layout.freeze_long_lived_objects() is False  # nothing new to do before torch
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))
    assert layout.freeze_long_lived_objects() is True  # torch's objects join once
    assert layout.freeze_long_lived_objects() is False
    assert layout._FROZEN == {"base", "torch"}


def test_a_page_run_freezes(monkeypatch):
    monkeypatch.setattr(layout, "_FROZEN", set())
    run_page(page_path("pages/7_Model_configs.py"))
    assert layout._FROZEN  # page_setup called it
