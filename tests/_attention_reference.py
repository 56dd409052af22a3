"""Hand-written references for the attention experiments (loops over plain floats, math only).

Used by tests/test_posenc_attention.py and the page tests; shares no code with posenc.attention.
"""

from __future__ import annotations

import math

import numpy as np
from _posenc_reference_impl import ref_inverse_frequencies, ref_rope_vector, ref_sinusoidal_row


def ref_softmax_rows(logits):
    out = []
    for row in logits:
        top = max(row)
        e = [math.exp(v - top) for v in row]
        s = sum(e)
        out.append([v / s for v in e])
    return out


def ref_head(x, w_q, w_k, w_v, pe=None, rope=False):
    """One attention head with explicit loops: (weights, outputs)."""
    n, d = len(x), len(x[0])
    dh = len(w_q[0])
    xin = [[x[i][c] + (pe[i][c] if pe is not None else 0.0) for c in range(d)] for i in range(n)]

    def proj(w):
        return [[sum(xin[i][c] * w[c][o] for c in range(d)) for o in range(len(w[0]))] for i in range(n)]

    q, k, v = proj(w_q), proj(w_k), proj(w_v)
    if rope:
        inv = ref_inverse_frequencies(dh)
        q = [ref_rope_vector(q[i], i, inv, "half") for i in range(n)]
        k = [ref_rope_vector(k[i], i, inv, "half") for i in range(n)]
    logits = [[sum(q[i][c] * k[j][c] for c in range(dh)) / math.sqrt(dh) for j in range(n)] for i in range(n)]
    a = ref_softmax_rows(logits)
    out = [[sum(a[i][j] * v[j][c] for j in range(n)) for c in range(len(v[0]))] for i in range(n)]
    return np.array(a), np.array(out)


def ref_gap_rows(original, shuffled, perm):
    worst = 0.0
    for i in range(len(perm)):
        for c in range(len(original[0])):
            worst = max(worst, abs(shuffled[i][c] - original[perm[i]][c]))
    return worst


def ref_gap_both(original, shuffled, perm):
    worst = 0.0
    for i in range(len(perm)):
        for j in range(len(perm)):
            worst = max(worst, abs(shuffled[i][j] - original[perm[i]][perm[j]]))
    return worst


def ref_score(method, x_q, x_k, m, n, w_q, w_k, *, table=None, slope=None, base=10000.0):
    d, dh = len(x_q), len(w_q[0])
    if method == "sinusoidal":
        pm, pn = ref_sinusoidal_row(m, d, base), ref_sinusoidal_row(n, d, base)
    elif method == "learned":
        pm, pn = list(table[m]), list(table[n])
    else:
        pm = pn = [0.0] * d
    q = [sum((x_q[c] + pm[c]) * w_q[c][o] for c in range(d)) for o in range(dh)]
    k = [sum((x_k[c] + pn[c]) * w_k[c][o] for c in range(d)) for o in range(dh)]
    if method == "rope":
        inv = ref_inverse_frequencies(dh, base)
        q, k = ref_rope_vector(q, m, inv, "half"), ref_rope_vector(k, n, inv, "half")
    s = sum(a * b for a, b in zip(q, k)) / math.sqrt(dh)
    if method == "alibi":
        s -= slope * abs(m - n)
    return s
