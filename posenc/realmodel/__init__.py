r"""A real pretrained RoPE model (default SmolLM2-135M-Instruct) and what its positional encoding does.

One module per job, each importing only the ones above it (never this package's ``__init__``):

* :mod:`~posenc.realmodel.facts`: what a model declares (shape, rope per layer type, trained length);
* :mod:`~posenc.realmodel.methods`: the method grammar, the model's own rope block changed;
* :mod:`~posenc.realmodel.texts`: the texts it reads and the passkey prompt;
* :mod:`~posenc.realmodel.analysis`: head labels, pair shares and intervals (numpy);
* :mod:`~posenc.realmodel.shipped`: the results computed in advance;
* :mod:`~posenc.realmodel.model`: the model itself (torch and HF transformers), which uses the ones above.

This package re-exports their public names and, as :func:`load`, the model's loader (torch is imported
on the first call, not when the package is)::

    from posenc import realmodel
    m = realmodel.load()                                  # once per process; cached on disk
    ids = m.tokenize(realmodel.default_text())[:512]
    m.nll(ids, "yarn:factor=2")                           # per-token NLL, tokens 2…L given their prefixes
    m.pair_norms(ids[:256])                               # {"q": (30, 9, 32), "k": (30, 3, 32)}
"""

from __future__ import annotations

import os
from typing import Any

from .analysis import (
    HeadRules,
    chunk_means,
    contribution_spread,
    control_differences,
    control_estimates,
    head_labels,
    mean_difference,
    pair_products,
    share,
    share_by_head,
    slow_share,
    spread_share,
)
from .facts import MAX_TOKENS, MODEL, ModelFacts, available, cache_dir, check_model_path, gguf_path, read_facts
from .methods import RealMethod, method_for, parse_method
from .shipped import SHIPPED, load_shipped, long_by_text
from .texts import DEFAULT_TEXT, PYDOC_TOPICS, default_text, passkey_prompt, read_text

__all__ = [
    "DEFAULT_TEXT",
    "MAX_TOKENS",
    "MODEL",
    "PYDOC_TOPICS",
    "SHIPPED",
    "HeadRules",
    "ModelFacts",
    "RealMethod",
    "available",
    "cache_dir",
    "check_model_path",
    "chunk_means",
    "contribution_spread",
    "control_differences",
    "control_estimates",
    "default_text",
    "gguf_path",
    "head_labels",
    "load",
    "load_shipped",
    "long_by_text",
    "mean_difference",
    "method_for",
    "pair_products",
    "parse_method",
    "passkey_prompt",
    "read_facts",
    "read_text",
    "share",
    "share_by_head",
    "slow_share",
    "spread_share",
]


def load(model: str | os.PathLike[str] | None = None, **kwargs: Any) -> Any:
    """:func:`posenc.realmodel.model.load`: the model (default :data:`MODEL`; else a .gguf file or an HF model
    directory), loaded once per process. torch and transformers are imported here, on the first call."""
    from .model import load as _load

    return _load(model, **kwargs)
