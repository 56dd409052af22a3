"""The real-model page's computations: the model (loaded once per server process, shared by every session,
one computation at a time under its lock) and the cached calls into :mod:`posenc.realmodel`.

torch and transformers are imported on the first call that needs the model (:func:`model`), never when
this module is imported: the Long context view and the other pages run without them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import streamlit as st

from explorer.layout import cached
from explorer.site.realmodel import MAX_SCORED
from explorer.text import realmodel as text
from posenc import realmodel
from posenc.realmodel import MODEL, HeadRules

ENV = "POSENC_MODEL"  # the environment variable that points the page at a model
#: The environment variable that offers the page's model-path control ("1"). Off by default: on a public
#: server a visitor's path would load any model file the server can read (memory, minutes of CPU).
#: The README's local command turns it on; a deployment leaves it off (or sets POSENC_MODEL itself).
CONTROL_ENV = "POSENC_MODEL_CONTROL"
RULES = HeadRules()
BLOCK = 16  # tokens per resampled block of the intervals


def control_offered() -> bool:
    """Whether the page offers its path control (``$POSENC_MODEL_CONTROL`` is "1")."""
    return os.environ.get(CONTROL_ENV, "").strip() == "1"


def env_path() -> str:
    """The model path the server was started with (``$POSENC_MODEL``), "" for the default model."""
    return os.environ.get(ENV, "").strip()


# ------------------------------------------------------------------------------ the default model
@st.cache_resource(show_spinner=False)
def model() -> Any:
    from posenc.realmodel.model import set_threads  # torch: on the first computation only

    set_threads(1)  # one core at most: a computation never takes the core the other sessions run on
    return realmodel.load()


@cached(max_entries=8)
def token_ids(text_: str) -> np.ndarray:
    return model().tokenize(text_)


@cached(max_entries=8)
def norms(ids: tuple) -> dict:
    """Mean pair norms of q and k before rotation, per block of :data:`BLOCK` tokens."""
    return model().pair_norms(np.asarray(ids), block=BLOCK)


@cached(max_entries=8)
def slow_share(ids: tuple) -> tuple[float, float, float]:
    nb = norms(ids)
    return realmodel.slow_share(nb["q"], nb["k"], text.slow_pairs(MODEL))


@cached(max_entries=8)
def spread(ids: tuple) -> np.ndarray:
    """(blocks, layers, heads, pairs): each pair's variance across keys of its rotated contribution to the scores."""
    m = model()
    qk = m.rotary_qk(np.asarray(ids))
    return realmodel.contribution_spread(qk["q"], qk["k"], m.inv_freq(), min_query=RULES.min_query, block=BLOCK)


@cached(max_entries=8)
def spread_share(ids: tuple) -> tuple[float, float, float]:
    return realmodel.spread_share(spread(ids), text.slow_pairs(MODEL))


@cached(max_entries=8)
def heads(ids: tuple) -> dict:
    return model().attention(np.asarray(ids), rules=RULES)


def method_key(method: str, factor: float, keep: float) -> tuple[str, float, float]:
    """(method, factor, keep) with the values `posenc.realmodel.method_for` does not read set to fixed ones: the
    model's own rope and NoPE read neither, only p-RoPE reads ``keep``. A link that moves an unread slider then
    finds the scores already cached instead of running the model again (up to half a minute at 2,048 tokens)."""
    if method in ("default", "norope"):
        return method, 1.0, 0.0
    return method, float(factor), float(keep) if method == "proportional" else 0.0


def nll(ids: tuple, method: str, factor: float, keep: float) -> np.ndarray:
    """Each token's loss under the rope `method_for` makes of these (cached per `method_key`)."""
    return _nll(ids, *method_key(method, factor, keep))


@cached(max_entries=16)
def _nll(ids: tuple, method: str, factor: float, keep: float) -> np.ndarray:
    return model().nll(np.asarray(ids), realmodel.method_for(method, factor=factor, keep=keep))


def difference(ids: tuple, method: str, factor: float, keep: float, block: int) -> tuple[float, float, float]:
    """The mean loss difference from the model's own rope, with its interval (cached per `method_key`)."""
    return _difference(ids, *method_key(method, factor, keep), block)


@cached(max_entries=16)
def _difference(ids: tuple, method: str, factor: float, keep: float, block: int) -> tuple[float, float, float]:
    return realmodel.mean_difference(nll(ids, method, factor, keep), nll(ids, "default", 1.0, 0.0), block=block)


def live_work(live: str, length: int) -> Callable[[Any], dict]:
    """The queue's job for a live long-context run: ``length`` tokens of argparse.py with the model's own rope
    and with ``live``, reporting the fraction done."""

    def work(job: Any) -> dict:
        mdl = model()
        ids = mdl.tokenize(realmodel.default_text())[:length]
        todo = ["default"] if live == "default" else ["default", live]
        return {
            name: mdl.nll(ids, name, progress=lambda f, i=i: job.report(fraction=(i + f) / len(todo))).tolist()
            for i, name in enumerate(todo)
        }

    return work


# ------------------------------------------------------------------------------ results computed in advance
shipped = cached(max_entries=2)(realmodel.load_shipped)


@cached(max_entries=8)
def long_sentences(name: str) -> tuple[list[str], list[str]]:
    """The shipped long-context sentences of one text (their bootstraps run once per process, not per rerun)."""
    data = shipped()
    controlled = bool(((data.get("texts") or {}).get("texts") or {}).get(name, {}).get("control"))
    return text.long_sentences(realmodel.long_by_text(data).get(name, {}), MODEL, control=controlled)


@cached(max_entries=2)
def across_sentences() -> list[str]:
    """The spread across the shipped texts, and the content control."""
    data = shipped()
    return text.across_notes(realmodel.long_by_text(data), MODEL) + text.control_notes(data.get("texts") or {}, MODEL)


# ------------------------------------------------------------------------------ a model of your own
own_facts = st.cache_resource(show_spinner=False, max_entries=4)(realmodel.read_facts)
own_model = st.cache_resource(show_spinner=False, max_entries=2)(realmodel.load)


@cached(max_entries=8)
def own_numbers(path: str, ids: tuple) -> tuple[np.ndarray, dict]:
    m = own_model(path)
    return m.nll(np.asarray(ids)), m.pair_norms(np.asarray(ids))


def products_by_type(facts: realmodel.ModelFacts, q: np.ndarray, k: np.ndarray) -> dict[str, np.ndarray]:
    """{layer type: (its layers, q_heads, pairs) mean |q_j|·mean |k_j|} from pair norms (layers, heads, pairs)."""
    products = realmodel.pair_products(q, k)
    return {t: products[facts.layers_of(t)] for t in facts.types}


def loaded(loader: Callable[..., Any], *args: Any) -> tuple[Any, str]:
    """(``loader(*args)``, "") or (None, why it failed): a model that cannot be loaded is a message, not a crash."""
    try:
        return loader(*args), ""
    except (OSError, ValueError, RuntimeError) as exc:
        return None, str(exc)


def shipped_or_error() -> tuple[dict, str]:
    """The shipped results ({} and the reason when the file cannot be read)."""
    try:
        return shipped(), ""
    except (OSError, ValueError) as exc:
        return {}, str(exc)


def read_ids(text_: str, *, pasted: bool, asked: int) -> tuple[tuple[int, ...], list[str]]:
    """The tokens the views read (a tuple: a cache key) and the warnings about a pasted text; a pasted text too
    short for the views is replaced by argparse.py (:func:`explorer.text.realmodel.text_warnings`)."""
    ids = token_ids(text_)
    warnings, fallback = text.text_warnings(pasted, ids.size, asked, minimum=2 * RULES.min_query, most=MAX_SCORED)
    ids = token_ids(realmodel.default_text()) if fallback else ids
    return tuple(int(i) for i in ids), warnings
