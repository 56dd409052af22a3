"""The results computed in advance by ``python -m posenc.realmodel ship`` (data/realmodel/results.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["SHIPPED", "load_shipped", "long_by_text"]

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "realmodel" / "results.json"


def load_shipped(path: str | Path | None = None) -> dict[str, Any]:
    """The results computed in advance by ``python -m posenc.realmodel ship`` (data/realmodel/results.json)."""
    return json.loads(Path(path or SHIPPED).read_text(encoding="utf-8"))


def long_by_text(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The long-context results of every shipped text: {text: {"length", "chunk", "tokens", "date", "results":
    {method: {"ppl", "mean_nll", "nll_by_chunk", "scored"}}}}, the ``long`` part's text (argparse.py, every rope)
    first, then the ``texts`` part's; a rope the ``long`` part has for a text is taken from it (one run per
    text where it can be), the others from ``texts``."""
    out: dict[str, dict[str, Any]] = {}
    long, texts = data.get("long") or {}, data.get("texts") or {}
    parts = [
        (long, {data.get("text", ""): {"tokens": data.get("tokens"), "results": long.get("results", {})}}),
        (texts, texts.get("texts") or {}),
    ]
    for part, entries in parts:
        for name, entry in entries.items():
            if not name or not entry.get("results"):
                continue
            n = str(part.get("length"))
            rec = out.setdefault(
                name,
                {
                    "length": int(part["length"]),
                    "chunk": int(part["chunk"]),
                    "tokens": entry.get("tokens"),
                    "date": part.get("date", ""),
                    "results": {},
                },
            )
            if rec["length"] != int(part["length"]) or rec["chunk"] != int(part["chunk"]):
                continue  # a run at another length or chunk size: not mixed in
            for method, by_len in entry["results"].items():
                if n in by_len:
                    rec["results"].setdefault(method, by_len[n])
    return out
