"""The real-model page's words about a model of the visitor's own (a .gguf file or an HF model directory): pure
functions from the facts its config declares and the numbers computed live to sentences and tables, each tested
against those values (tests/test_text_ownmodel.py). Paths and names from the visitor are escaped for markdown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from explorer.notices import escape_markdown
from explorer.text import count
from explorer.text.lab import _spans
from posenc import realmodel
from posenc.realmodel import ModelFacts


def _num(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.6g}"


def _layers(layers: list[int]) -> str:
    """[0, 1, 2, 4] -> '0–2, 4': runs of consecutive numbers merged as the lab merges adjacent bins."""
    return ", ".join(f"{a}" if b == a + 1 else f"{a}–{b - 1}" for a, b in _spans([(i, i + 1) for i in layers]))


def block_text(block: Mapping[str, Any]) -> str:
    """A rope block in words: 'default, rope_theta 10,000' / 'linear, factor 8, rope_theta 1,000,000'."""
    kind = str(block.get("rope_type", "default"))
    keys = [
        f"{k} {_num(v) if isinstance(v, int | float) and not isinstance(v, bool) else v}"
        for k, v in block.items()
        if k not in ("rope_type", "rope_theta") and not isinstance(v, list | tuple)
    ]
    lists = [f"{k} ({len(v)} values)" for k, v in block.items() if isinstance(v, list | tuple)]
    return ", ".join([kind, *keys, *lists, f"rope_theta {_num(block.get('rope_theta', 0.0))}"])


def trained_source(block: Mapping[str, Any]) -> str:
    """Where the trained length comes from (HF's rule in modeling_rope_utils)."""
    if block.get("original_max_position_embeddings"):
        return "rope block: original_max_position_embeddings"
    return "config: max_position_embeddings"


def facts_markdown(facts: ModelFacts, *, qk_norm: bool | None = None) -> str:
    """What the page reads from the model's config, in one paragraph."""
    lines = [
        f"**{escape_markdown(facts.name)}**, read from {escape_markdown(facts.source)}: HF transformers' "
        f"`{escape_markdown(facts.architecture)}`, {facts.layers} layers, {facts.q_heads} query heads sharing "
        f"{facts.kv_heads} key/value heads, head size {facts.head_dim}, so {facts.pairs} rotary pairs."
    ]
    if len(facts.types) == 1:
        lines.append(f"Every layer runs one rope: {escape_markdown(block_text(facts.rope[facts.types[0]]))}.")
    else:
        lines.append(
            f"Its layers have {len(facts.types)} types ({', '.join(escape_markdown(t) for t in facts.types)}), each "
            "with its own rope block (table below)."
        )
    if facts.sliding_window:
        lines.append(f"Its config sets sliding_window {facts.sliding_window:,} for its sliding-attention layers.")
    if qk_norm is True:
        lines.append("Its attention normalises q and k (q_norm, k_norm) before rotating them.")
    elif qk_norm is False:
        lines.append("Its attention rotates q and k as they come out of their projections (no q/k-norm).")
    return " ".join(lines)


def layer_type_table(facts: ModelFacts) -> pd.DataFrame:
    """One column per layer type (a model has one to three: the table stays phone-wide), one row per fact:
    its layers, its rope block, its trained length and where that comes from, and how many pairs complete a
    turn within it. The first column names the fact."""
    columns: dict[str, list[str]] = {
        "": ["layers", "rope", "trained length", "trained length from", "pairs turning in it"]
    }
    for t in facts.types:
        layers = facts.layers_of(t)
        turns = facts.turns_in_training(t)
        columns[t] = [
            f"{len(layers)}: {_layers(layers)}",
            block_text(facts.rope[t]),
            f"{facts.trained_lengths[t]:,}",
            trained_source(facts.rope[t]),
            f"{int((turns >= 1).sum())} of {facts.pairs}",
        ]
    return pd.DataFrame(columns)


def table_row(table: pd.DataFrame, fact: str) -> list[str]:
    """The row of `layer_type_table` for one fact, one value per layer type (in the model's order)."""
    return list(table.loc[table[""] == fact].iloc[0, 1:])


def perplexity_note(name: str, nll: np.ndarray, *, tokens: int, text: str) -> str:
    """The live perplexity of the text's first ``tokens`` tokens."""
    mean = float(np.mean(nll))
    return (
        f"With its own rope, {escape_markdown(name)} predicts tokens 2–{tokens:,} of {escape_markdown(text)} at "
        f"**{mean:.3f} nats per token** (perplexity **{np.exp(mean):.2f}**), computed on this server in HF's own "
        "class from these weights."
    )


def slow_note(facts: ModelFacts, layer_type: str, products: np.ndarray, *, tokens: int) -> str:
    """The share of the q·k norm product in the pairs that do not complete a turn within ``layer_type``'s trained
    length, over its layers and heads (a point estimate on these tokens)."""
    turns = facts.turns_in_training(layer_type)
    slow = turns < 1
    n = len(facts.layers_of(layer_type))
    trained = facts.trained_lengths[layer_type]
    head = f"In its {count(n, escape_markdown(layer_type) + ' layer')}"
    if not slow.any():
        return f"{head} every pair completes a turn within the {trained:,} trained tokens."
    share = realmodel.share(products, slow)
    even = slow.sum() / slow.size
    return (
        f"{head}, the {int(slow.sum())} pairs j = {_layers(list(np.flatnonzero(slow)))} do not complete a turn within the "
        f"{trained:,} trained tokens; over these {tokens:,} tokens they carry **{100 * share:.1f} %** of the q·k norm "
        f"product (an even spread over the {facts.pairs} pairs would give {100 * even:.1f} %)."
    )


def norms_note(qk_norm: bool) -> str:
    """Where the pair norms below are read."""
    where = "after its q_norm and k_norm" if qk_norm else "as its projections give them (it has no q/k-norm)"
    return (
        "The charts read q and k where its attention hands them to its rotary function (HF's apply_rotary_pos_emb): "
        f"{where}, before rotation; pair j is dims j and j + d/2 (HF's half layout)."
    )


def default_views_note(default: str) -> str:
    return (
        f"The Frequencies, Heads, Change the rope and Long context views, and the results computed in advance, are "
        f"{default}'s: clear the model path above to see them."
    )


def too_short(tokens: int) -> str:
    return f"The text has {count(tokens, 'token')} for this model's tokenizer; at least 2 are needed."
