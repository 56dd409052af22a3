"""The lab's tasks: synthetic sequences generated in code (deterministic in their seed), their metric, their
reference lines and exact optimum, and the rule for "learned inside L" (numpy only).

* ``markov``  an order-2 Markov chain over 8 tokens, one fixed random transition table; metric: the
  cross-entropy of the next token (nats); the exact optimum on the same tokens (−log of the true
  transition probability) is computed alongside, so a loss can be reported above it.
* ``kback``   16 uniform tokens; at position t predict the token at t − 3; metric: accuracy.
* ``copy``    segments one after another: a random first part (its length h uniform in :data:`COPY_PART`,
  drawn per segment), a separator, then the same tokens again; predict the repeat; metric: accuracy (no
  fixed offset works; the distance h + 1 is the same at every sequence length).
* ``flipflop`` flip-flop language modelling (Liu et al. 2023, "Exposing Attention Glitches with Flip-Flop
  Language Modeling", arXiv 2306.00946): instruction–bit pairs, write / ignore / read with probabilities
  :data:`FLIPFLOP_P` (their FFL(0.8)), the first a write and the last a read; after each read predict the bit
  last written; metric: accuracy of the read bits (CoPE's and PaTH's papers measure it too).
* ``passkey`` random filler tokens with one key (a token like the filler's) hidden at a random depth right
  after a marker, asked for by a query token at the end (Mohtashami & Jaggi 2023; Chen et al. 2023 test PI
  with it); metric: accuracy of the one answer token.

"Learned inside L" (:func:`learned`): accuracy ≥ :data:`LEARNED_ACCURACY`, or a loss within
:data:`LEARNED_MARGIN` nats of the exact optimum on the same tokens, at the length the model was
trained at (the fine-tune length for ``@ft``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

_TABLE_SEED = 20240601  # the Markov chain's transition table: fixed, independent of every model seed


@dataclass(frozen=True)
class TaskSpec:
    name: str
    vocab: int
    metric: str  # "loss" (lower is better) or "accuracy"
    label: str
    #: evaluation sequences per length = ceil(tokens / cost): the expected scored tokens per sequence
    #: (passkey scores one token per sequence and is charged 32, so 8,192 tokens buy 256 sequences)
    cost: Any = None


#: copy: the range of a first part's length h (uniform, drawn per segment); the same at every sequence length
COPY_PART = (8, 16)


def copy_distances(length: int | None = None) -> tuple[int, int]:
    """The copy task: the fewest and most places back a repeated token's original sits (h + 1 for a first part
    of h tokens and the separator). Segments are tiled along the sequence, so the distance is the same at every
    length (``length`` is accepted and ignored): a position past L asks about position, not a new distance."""
    lo, hi = COPY_PART
    return lo + 1, hi + 1


#: flip-flop's tokens: the bits 0 and 1, then the instructions write, ignore, read
FLIPFLOP_WRITE, FLIPFLOP_IGNORE, FLIPFLOP_READ = 2, 3, 4
#: flip-flop: the probabilities of (ignore, write, read) for every instruction but the first (a write) and the last
#: (a read): Liu et al.'s FFL(p_i = 0.8), write and read sharing the rest
FLIPFLOP_P = (0.8, 0.1, 0.1)


TASKS: Mapping[str, TaskSpec] = {
    "markov": TaskSpec("markov", 8, "loss", "order-2 Markov chain over 8 tokens", lambda n: n - 1),
    "kback": TaskSpec("kback", 16, "accuracy", "the token 3 positions back, 16 tokens", lambda n: n - 3),
    "copy": TaskSpec(
        "copy",
        17,
        "accuracy",
        "copy random-length parts after a separator (induction), 16 tokens",
        lambda n: n * sum(COPY_PART) / 2 / (sum(COPY_PART) + 1),
    ),
    "passkey": TaskSpec(
        "passkey", 18, "accuracy", "passkey: one key hidden in filler, asked for at the end", lambda n: 32
    ),
    "flipflop": TaskSpec(
        "flipflop",
        5,
        "accuracy",
        "flip-flop: after each read, the bit last written (ignores in between)",
        lambda n: 1 + max(0, -(-n // 2) - 2) * FLIPFLOP_P[2],  # the last read, and a share of the others
    ),
}
KBACK = 3
COPY_SEP = 16  # copy: the separator between the first part and its repeat
PASSKEY_KEYS = (0, 16)  # passkey: the key is one of 0..15, the same tokens as the filler (found by its marker)
PASSKEY_MARK, PASSKEY_QUERY = 16, 17
#: "learned inside L": accuracy at least this, …
LEARNED_ACCURACY = 0.95
#: … or a loss at most this many nats above the exact optimum on the same tokens
LEARNED_MARGIN = 0.05
MIN_LEN, MAX_LEN = 8, 4096  # flip-flop and passkey need 4 tokens at least
#: Trained until learned, a run holds its peak rate (and checks a held-out sample) only for this share of its
#: step cap; then the rate decays to 0 (posenc.lab.training)
PEAK_SHARE = 0.8


def checks_before_decay(cap: int, check_every: int) -> int:
    """How many held-out checks a run trained until learned can make before its cap forces the decay: one every
    ``check_every`` steps up to PEAK_SHARE of ``cap``. 0 means the run cannot report steps to learn at all."""
    return int(PEAK_SHARE * cap) // check_every


def _task(name: str) -> TaskSpec:
    if name not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {name!r}")
    return TASKS[name]


def _length(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not MIN_LEN <= int(value) <= MAX_LEN:
        raise ValueError(f"{name} must be an integer in [{MIN_LEN}, {MAX_LEN}], got {value!r}")
    return int(value)


def markov_table() -> np.ndarray:
    """(8, 8, 8) P[a, b, c] = P(next = c | two back = a, previous = b): Dirichlet(0.5), fixed seed."""
    rng = np.random.default_rng(_TABLE_SEED)
    return rng.dirichlet(np.full(8, 0.5), size=(8, 8))


def _markov_stationary(table: np.ndarray) -> np.ndarray:
    """Stationary distribution of the pair chain (a, b) -> (b, c): (8, 8)."""
    n = table.shape[0]
    pi = np.full((n, n), 1.0 / n**2)
    for _ in range(2000):
        pi = np.einsum("ab,abc->bc", pi, table)
    return pi / pi.sum()


def references(task: str) -> dict[str, float]:
    """The task's reference lines: for ``markov`` (nats) the chain's entropy rate ("floor"), the best
    model that sees only the previous token ("previous token only") and uniform guessing; for the
    accuracy tasks perfect (1), uniform guessing, and the previous-token-only model (= uniform)."""
    spec = _task(task)
    if spec.metric == "loss":
        table = markov_table()
        pi = _markov_stationary(table)
        h = -np.sum(table * np.log(table), axis=-1)  # (a, b)
        floor = float(np.sum(pi * h))
        p_prev = pi.sum(axis=0)  # P(b)
        cond = np.einsum("ab,abc->bc", pi, table) / p_prev[:, None]  # P(c | b)
        prev_only = float(-np.sum(p_prev[:, None] * cond * np.log(cond)))
        return {"floor": floor, "previous token only": prev_only, "uniform": math.log(spec.vocab)}
    if spec.name == "flipflop":
        return {"perfect": 1.0, "uniform": 0.5}
    if spec.name == "passkey":
        n_keys = PASSKEY_KEYS[1] - PASSKEY_KEYS[0]
        return {"perfect": 1.0, "uniform": 1.0 / n_keys}
    return {"perfect": 1.0, "previous token only": 1.0 / 16, "uniform": 1.0 / 16}


def optimum(task: str, inputs: np.ndarray, targets: np.ndarray) -> np.ndarray | None:
    """The exact optimum per token of the same batch: for ``markov`` −log P(target | the two tokens
    before it) under the true chain, (batch, length), NaN where not scored; None for the accuracy tasks
    (their optimum is 1 on every token)."""
    if _task(task).metric != "loss":
        return None
    table = markov_table()
    x, y = np.asarray(inputs), np.asarray(targets)
    out = np.full(y.shape, np.nan)
    prev2, prev1 = x[:, :-1], x[:, 1:]  # context of the target at t >= 1: x[t-1], x[t]
    tgt = y[:, 1:]
    ok = tgt >= 0
    p = table[prev2, prev1, np.where(ok, tgt, 0)]
    out[:, 1:] = np.where(ok, -np.log(p), np.nan)
    return out


def learned(metric: str, value: float | None, optimum_value: float | None = None) -> bool:
    """ "Learned inside L": accuracy >= LEARNED_ACCURACY, or loss <= optimum + LEARNED_MARGIN (nats)."""
    if value is None or not math.isfinite(value):
        return False
    if metric == "accuracy":
        return value >= LEARNED_ACCURACY
    if optimum_value is None:
        raise ValueError(f"optimum_value: a loss needs the optimum on the same tokens, got {optimum_value!r}")
    return value - optimum_value <= LEARNED_MARGIN


def learned_rule(metric: str) -> str:
    """The learning criterion in words."""
    if metric == "accuracy":
        return f"accuracy at least {LEARNED_ACCURACY:g} at the length it was trained at"
    return f"loss at most {LEARNED_MARGIN:g} nats above the exact optimum on the same tokens, at the length it was trained at"


def make_batch(task: str, batch: int, length: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(inputs, targets), each (batch, length) int64; a target of −1 is not scored.

    markov: targets are the inputs shifted by one (scored from position 1: two tokens of context);
    kback: target at t = input at t − 3; copy: the repeat's tokens (from the separator on); passkey:
    the key, at the last position (the query).
    """
    spec = _task(task)
    length = _length("length", length)
    if spec.name == "markov":
        table = markov_table()
        cum = np.cumsum(table, axis=-1)
        seq = np.empty((batch, length + 1), dtype=np.int64)
        seq[:, :2] = rng.integers(0, 8, size=(batch, 2))
        u = rng.random((batch, length + 1))
        for t in range(2, length + 1):
            c = cum[seq[:, t - 2], seq[:, t - 1]]  # (batch, 8)
            seq[:, t] = np.minimum((u[:, t, None] > c).sum(axis=-1), 7)
        x, y = seq[:, :-1], seq[:, 1:].copy()
        y[:, :1] = -1
        return x, y
    if spec.name == "kback":
        x = rng.integers(0, spec.vocab, size=(batch, length))
        y = np.full_like(x, -1)
        y[:, KBACK:] = x[:, :-KBACK]
        return x, y
    if spec.name == "copy":  # segments along the sequence: a first part of h tokens, the separator, the part again
        lo, hi = COPY_PART
        seq = rng.integers(0, 16, size=(batch, length + 1))
        y = np.full((batch, length), -1, dtype=np.int64)
        for i in range(batch):
            start = 0
            while (sep := start + int(rng.integers(lo, hi + 1))) <= length:
                h = sep - start
                end = min(sep + 1 + h, length + 1)  # the last repeat may be cut short by the end
                seq[i, sep] = COPY_SEP
                seq[i, sep + 1 : end] = seq[i, start : start + end - sep - 1]
                y[i, sep : end - 1] = seq[i, sep + 1 : end]  # scored: the repeat, from the separator on
                start = end
        return seq[:, :-1].astype(np.int64), y
    if spec.name == "flipflop":  # instruction at even positions, its bit after it; a read's bit is scored
        pairs = length // 2 + 1  # length + 1 tokens or more: the input and the targets shifted by one
        instr = rng.choice(
            np.array([FLIPFLOP_IGNORE, FLIPFLOP_WRITE, FLIPFLOP_READ]), size=(batch, pairs), p=FLIPFLOP_P
        )
        last_read = (length - 1) // 2  # the last instruction inside the input: a read, its bit the last target
        instr[:, 0], instr[:, last_read] = FLIPFLOP_WRITE, FLIPFLOP_READ
        bits = rng.integers(0, 2, size=(batch, pairs))
        written = np.where(instr == FLIPFLOP_WRITE, bits, -1)
        memory = np.maximum.accumulate(np.where(written >= 0, np.arange(pairs), 0), axis=1)  # the last write's pair
        bits = np.where(instr == FLIPFLOP_READ, np.take_along_axis(bits, memory, axis=1), bits)  # a read's bit
        seq = np.stack([instr, bits], axis=-1).reshape(batch, 2 * pairs)[:, : length + 1]
        x, nxt = seq[:, :-1], seq[:, 1:]
        y = np.where(x == FLIPFLOP_READ, nxt, -1)
        return x.astype(np.int64), y.astype(np.int64)
    # passkey: filler 0..15, MARK key at a uniform depth, QUERY last; the answer (the key) is scored
    x = rng.integers(0, 16, size=(batch, length))
    where = rng.integers(0, length - 2, size=batch)  # MARK at where, key at where + 1 <= length − 2
    keys = rng.integers(*PASSKEY_KEYS, size=batch)
    rows = np.arange(batch)
    x[rows, where], x[rows, where + 1], x[:, -1] = PASSKEY_MARK, keys, PASSKEY_QUERY
    y = np.full_like(x, -1)
    y[:, -1] = keys
    return x.astype(np.int64), y


def eval_sequences(task: str, length: int, tokens: int) -> int:
    """Evaluation sequences per length: ceil(tokens / the task's expected scored tokens per sequence)."""
    return max(1, math.ceil(tokens / _task(task).cost(length)))


def scored_mean(values: np.ndarray) -> float | None:
    """The mean over the scored (finite) entries, None when none is scored."""
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else None
