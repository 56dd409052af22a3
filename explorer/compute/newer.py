"""The Newer encodings page's computations (pages/11_Newer_encodings.py): each encoding's own picture, read from
its shipped seed-0 model (data/lab/weights.npz) run on one evaluation sequence, or from the shipped file.

torch is imported inside the functions that run a model, so the grid opens without it.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import streamlit as st

from explorer.compute import lab as lab_compute
from explorer.layout import cached
from explorer.text import newer as newer_text
from posenc import lab

#: The picture's sequence: one evaluation sequence of this sample (the lab's evaluation stream)
PICTURE_SAMPLE = 0
#: Which of the layer's heads a picture shows: layer·HEADS + head
HEADS = 4


@st.cache_resource(show_spinner=False, max_entries=12)
def _model(task: str, encoding: str) -> Any:
    """The shipped seed-0 model, read once for every session (a new length or head read it again: 25 ms of a run).
    Shared: a forward pass with hooks on it holds `_FORWARD`."""
    from posenc.lab import model

    return model.shipped_model(task, encoding)


@st.cache_resource(show_spinner=False, max_entries=2)
def shown_tasks() -> dict[str, Any]:
    """The arena's tasks as the page shows them (`explorer.text.newer.shown_tasks` of the shipped file), made once for
    every session: the shipped file is read once (explorer.compute.lab.shipped), and each task keeps the intervals
    it has computed (`explorer.text.lab.Shown.ci`): the page's grid and sentences ask for 126 of them a run."""
    return newer_text.shown_tasks(lab_compute.shipped())


#: One forward pass at a time on a shared model (`_layer_inputs` hooks its blocks: another session's hooks would
#: add to this one's list). Every forward on the models it hooks (CoPE's and PaTH's) goes through it; the hybrid's
#: (`evaluation.attention_map`) hands its own list to the forward and hooks nothing.
_FORWARD = threading.Lock()


def _sequence(task: str, length: int) -> np.ndarray:
    x, _ = lab.make_batch(task, 1, length, np.random.default_rng([PICTURE_SAMPLE, length]))
    return x


def _layer_inputs(tiny: Any, tokens: np.ndarray) -> list[Any]:
    """The residual stream entering each layer (one forward pass)."""
    import torch

    seen: list[Any] = []
    with _FORWARD:
        hooks = [b.register_forward_pre_hook(lambda _m, args: seen.append(args[0].detach())) for b in tiny.blocks]
        try:
            with torch.no_grad():
                tiny(torch.from_numpy(tokens))
        finally:
            for h in hooks:
                h.remove()
    return seen


def _layer_of(task: str, encoding: str, length: int, head: int) -> tuple[Any, Any, Any, np.ndarray, int]:
    """(model, the layer's block, the residual stream entering it, the tokens, the head within the layer) for head
    ``head`` (layer·4 + head) of the shipped seed-0 model on one evaluation sequence of ``length`` tokens."""
    tiny = _model(task, encoding)
    tokens = _sequence(task, length)
    layer, h_i = divmod(head, HEADS)
    return tiny, tiny.blocks[layer], _layer_inputs(tiny, tokens)[layer], tokens, h_i


def _qk(block: Any, x: Any, n_heads: int) -> tuple[Any, Any]:
    b, t, d = x.shape
    q, k, _ = block.qkv(block.ln1(x)).view(b, t, 3, n_heads, d // n_heads).permute(2, 0, 3, 1, 4)
    return q, k


@cached(max_entries=16)
def cope_positions(task: str, length: int, head: int) -> dict[str, Any]:
    """CoPE's gates and contextual positions (length × length, query by key) of head ``head`` (layer·4 + head)
    of the shipped seed-0 model on one evaluation sequence, with the tokens."""
    import torch

    tiny, block, x, tokens, h_i = _layer_of(task, "cope", length, head)
    with torch.no_grad():
        q, k = _qk(block, x, tiny.cfg.n_heads)
        gates = block.pos.gates(q, k)[0, h_i].numpy().astype(float)
        positions = block.pos.positions(q, k)[0, h_i].numpy().astype(float)
    mask = np.triu(np.ones_like(gates, dtype=bool), 1)
    gates[mask], positions[mask] = np.nan, np.nan
    return {"gates": gates, "positions": positions, "tokens": tokens[0], "npos_max": int(block.pos.npos_max)}


@cached(max_entries=16)
def path_transform(task: str, length: int, head: int) -> dict[str, Any]:
    """PaTH's accumulated transform H_(T−1) ⋯ H_1 (head_dim × head_dim) from the first token's key to the last
    query, of head ``head`` of the shipped seed-0 model on one evaluation sequence, and its β per token."""
    import torch

    _, block, x, _, h_i = _layer_of(task, "path", length, head)
    with torch.no_grad():
        h = block.ln1(x)
        matrix = block.pos.transform(h, 0, length - 1)[0, h_i].numpy().astype(float)
        _, beta = block.pos.householder(h)
    return {"matrix": matrix, "beta": beta[0, h_i].numpy().astype(float)}


@cached(max_entries=16)
def hybrid_attention(task: str, length: int, head: int) -> dict[str, Any]:
    """The hybrid's attention weights of head ``head % 4`` in every layer, one sequence (``maps``), and each layer's
    plan (``plan``: RoPE, then none)."""
    from posenc.lab import evaluation

    tiny = _model(task, "hybrid")
    maps = [
        evaluation.attention_map(tiny, length, layer=layer, head=head % HEADS, seed=PICTURE_SAMPLE)
        for layer in range(tiny.cfg.n_layers)
    ]
    return {"maps": maps, "plan": tiny.layer_plan}


@cached(max_entries=8)
def fope_spectrum(task: str, head: int) -> dict[str, Any]:
    """FoPE's learned coefficients in layer ``head // 4``, head ``head % 4``: the magnitude
    √(cos² + sin²)/√2 of each kept frequency (column) in each rotating pair (row); the same on the whole grid
    (``grid``: every pair by every frequency, NaN where a frequency is clipped or a pair does not rotate); the
    grid's frequencies and wavelengths, and which are clipped (wavelength > L)."""
    tiny = _model(task, "fope")
    layer, h_i = divmod(head, HEADS)
    pos = tiny.blocks[layer].pos
    cos = pos.cos_coef.detach()[min(h_i, pos.n_heads - 1)].numpy().astype(float)
    sin = pos.sin_coef.detach()[min(h_i, pos.n_heads - 1)].numpy().astype(float)
    freqs = pos.frequencies.numpy().astype(float)
    kept = np.sqrt((cos**2 + sin**2) / 2).T  # (rotating pairs, kept frequencies)
    full = np.full((pos.head_dim // 2, len(freqs)), np.nan)  # every pair by every frequency: clipped ones blank
    full[: kept.shape[0], : kept.shape[1]] = kept
    return {
        "magnitude": kept,
        "grid": full,
        "frequencies": freqs,
        "wavelengths": 2 * np.pi / freqs,
        "clipped": pos.clipped.numpy().astype(bool),
        "pairs": pos.head_dim // 2,
        "train_len": int(pos.train_len),
    }


@cached(max_entries=8)
def ssmax_scales(task: str, longest: int) -> dict[str, Any]:
    """SSMax's learned s per layer and head of the shipped seed-0 model, and s·log n for n = 1 … longest."""
    tiny = _model(task, "ssmax")
    s = np.array([b.pos.s.detach().numpy().astype(float) for b in tiny.blocks])  # (layers, heads)
    n = np.arange(1, longest + 1)
    return {"s": s, "n": n, "scale": s[..., None] * np.log(n)[None, None, :]}


def drope_losses(entry: dict[str, Any]) -> dict[str, Any]:
    """DroPE's shipped training loss per seed against the steps from the drop ({seed, step, loss} rows; the
    means of ten steps, none straddling the drop), and each seed's drop step and steps to learn."""
    rows, drops = [], {}
    for seed, rec in sorted(entry.get("drop", {}).get("drope", {}).items(), key=lambda kv: int(kv[0])):
        every, at, first_after = int(rec["every"]), int(rec["dropped_at"]), int(rec["first_after_drop"])
        drops[seed] = rec
        for i, loss in enumerate(rec["losses"]):
            step = i * every if i < first_after else at + (i - first_after) * every
            rows.append({"seed": f"seed {seed}", "steps from the drop": step - at, "training loss": loss})
    recal = entry.get("recalibration")
    budget = None if recal is None or entry.get("steps") is None else int(int(entry["steps"]) * float(recal))
    return {"rows": rows, "drops": drops, "budget": budget}


def picture(encoding: str, task: str, *, length: int, head: int, longest: int, entry: dict[str, Any]) -> dict[str, Any]:
    """The data of ``encoding``'s own picture on ``task`` (see each function above)."""
    if encoding == "cope":
        return cope_positions(task, length, head)
    if encoding == "path":
        return path_transform(task, length, head)
    if encoding == "hybrid":
        return hybrid_attention(task, length, head)  # cached: no model load on a rerun
    if encoding == "fope":
        return fope_spectrum(task, head)
    if encoding == "ssmax":
        return ssmax_scales(task, longest)
    if encoding == "drope":
        return drope_losses(entry)
    raise ValueError(f"encoding must be one of {', '.join(lab.NEWER)}, got {encoding!r}")
