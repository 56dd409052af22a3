"""The real-model page pointed at a model of one's own: a tiny random Gemma 3 made in the test (through
$POSENC_MODEL and through the page's own control), and paths that hold no usable model. After every run: no
exception, and what the page says checked against the facts and numbers recomputed here."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import numpy as np
import pytest
from _apptest import run_page
from test_realmodel_byom import _bad_dirs, _gemma

from explorer.text import ownmodel
from posenc import realmodel
from posenc.realmodel import MODEL
from posenc.realmodel.facts import LIBRARIES

MISSING = [m for m in LIBRARIES if importlib.util.find_spec(m) is None]
if MISSING:
    pytest.skip(
        f"the libraries {', '.join(MISSING)} are not installed: pip install -r requirements.txt",
        allow_module_level=True,
    )

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "10_Inside_a_real_model.py")


@pytest.fixture(scope="module")
def gemma_dir(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("gemma3page")
    _gemma(folder)  # HF's defaults: sliding θ 10,000, full θ 1,000,000, both default rope
    return folder


def _text(at) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_env_var_points_the_page_at_a_tiny_gemma3(gemma_dir, monkeypatch):
    monkeypatch.setenv("POSENC_MODEL", str(gemma_dir))
    monkeypatch.delenv("POSENC_MODEL_CONTROL", raising=False)
    at = run_page(PAGE, timeout=300)
    assert not at.exception and not at.error
    words = _text(at)
    assert f"**{gemma_dir.name}**" in words
    # no path box on this server: the intro names what chose the model, and no box to clear
    assert "the model $POSENC_MODEL names" in words and "path below" not in words
    assert "7 layers, 4 query heads sharing 2 key/value heads, head size 16, so 8 rotary pairs" in words
    assert "sliding_window 8" in words and "after its q_norm and k_norm" in words
    table = at.dataframe[0].value
    assert list(table.columns)[1:] == ["sliding_attention", "full_attention"]
    assert ownmodel.table_row(table, "layers") == ["6: 0–4, 6", "1: 5"]
    assert ownmodel.table_row(table, "rope") == ["default, rope_theta 10,000", "default, rope_theta 1,000,000"]
    assert ownmodel.table_row(table, "trained length") == ["256", "256"]
    # the perplexity it shows is HF's loss on the same tokens (argparse.py's first 256, the default text and count)
    import torch
    from transformers import AutoModelForCausalLM

    ids = realmodel.load(gemma_dir).tokenize(realmodel.default_text("argparse.py"))[:256]
    hf = AutoModelForCausalLM.from_pretrained(str(gemma_dir), dtype=torch.float32).eval()
    x = torch.from_numpy(ids)[None]
    with torch.no_grad():
        loss = hf(x, labels=x).loss.item()
    shown = re.search(r"at \*\*([\d.]+) nats per token\*\* \(perplexity \*\*([\d.]+)\*\*\)", words)
    assert float(shown.group(1)) == pytest.approx(loss, abs=5e-4)
    assert float(shown.group(2)) == pytest.approx(np.exp(loss), abs=5e-3)
    # one pair chart per layer type, and none of SmolLM2's views or shipped results
    titles = [c.spec for c in at.get("vega_lite_chart")]
    assert len(titles) == 2
    assert any(f"{MODEL.name}'s" in i.value for i in at.info)
    assert "Long context" not in [t.label for t in at.tabs]


def test_without_posenc_model_control_the_page_offers_no_path(gemma_dir, monkeypatch):
    """A public server (no $POSENC_MODEL_CONTROL) draws no path control, and a path a session somehow
    holds is not read: only the server's own $POSENC_MODEL chooses the model."""
    monkeypatch.delenv("POSENC_MODEL", raising=False)
    monkeypatch.delenv("POSENC_MODEL_CONTROL", raising=False)
    at = run_page(PAGE, timeout=300)
    assert not [t for t in at.text_input if t.key == "rm_model"]
    at.session_state["rm_model"] = str(gemma_dir)
    run_page(PAGE, at)
    assert not at.exception and f"The model is **{MODEL.name}**" in _text(at)
    assert "7 layers, 4 query heads" not in _text(at)


def test_the_control_reads_a_path_and_refuses_bad_ones(gemma_dir, tmp_path, monkeypatch):
    monkeypatch.delenv("POSENC_MODEL", raising=False)
    monkeypatch.setenv("POSENC_MODEL_CONTROL", "1")
    bad = _bad_dirs(tmp_path)
    at = run_page(PAGE, timeout=300)
    assert f"The model is **{MODEL.name}**" in _text(at)
    at.text_input(key="rm_model").input(str(gemma_dir))
    run_page(PAGE, at)
    assert "7 layers, 4 query heads" in _text(at) and not at.error
    assert "the model at the path below" in _text(at) and "Clear the path" in _text(at)
    for case, (path, words) in bad.items():
        at.text_input(key="rm_model").input(str(path))
        run_page(PAGE, at)
        assert len(at.error) == 1, case
        message = at.error[0].value.replace("\\", "")
        assert words in message and f"The views below are {MODEL.name}'s" in message, case
        assert f"The model is **{MODEL.name}**" in _text(at)  # the intro speaks of the model shown
    at.text_input(key="rm_model").input("")
    run_page(PAGE, at)
    assert not at.error and f"The model is **{MODEL.name}**" in _text(at)
