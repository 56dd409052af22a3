"""What the home page (app.py) computes, cached: one attention head on the sentence and on its
shuffle (posenc.attention, numpy float64: the home page never imports torch)."""

from __future__ import annotations

from explorer.layout import cached
from explorer.site.home import MAX_TOKENS
from posenc import attention as att


@cached(max_entries=64)
def experiment(words: tuple[str, ...], dim: int, seed: int, shuffle_seed: int, pe: str) -> dict:
    """Run the head on the sentence and on its shuffle (`att.shuffle_experiment`)."""
    return att.shuffle_experiment(words, dim, seed=seed, shuffle_seed=shuffle_seed, pe=pe, max_tokens=MAX_TOKENS)
