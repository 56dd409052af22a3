"""What the Relative-position invariance page (pages/4_Relative_invariance.py) computes: q and k, the
shift test at the page's t, its chart's rows (every t it reaches, and every N, d and base of windows around the
page's), the sinusoid's own shift matrix and RoFormer's decay bound. Every number is posenc's; the page draws it
and explorer.text.invariance says it.
The learned table's entries have posenc's default std 1/√2, the RMS of a sinusoidal entry, so the two
additive encodings are equally strong and only their structure differs.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict

import numpy as np
import pandas as pd

import posenc
from explorer.charts import invariance as charts
from explorer.layout import cached
from explorer.widgets import get

#: Largest N here: the score matrices are N × N and are recomputed when a control moves.
MAX_POSITIONS = 256
#: N on this page by default (the registry's seq_len default is the sinusoidal table's length).
DEFAULT_POSITIONS = 64
#: The chart's t and d sliders span their registry ranges (t 1 … T_CAP; d as (least, most, step)).
T_CAP = int(get(charts.LIVE_KEY).max or 0)
D_SPAN = tuple(int(getattr(get(charts.D_KEY), end) or 0) for end in ("min", "max", "step"))
#: The learned table's rows: the chart's slider spans the registry's range (least, most).
TABLE_SPAN: tuple[int, int] = (int(get(charts.L_KEY).min or 0), int(get(charts.L_KEY).max or 0))
#: The base's options (its slider runs over them).
B_OPTIONS = tuple(float(b) for b in get(charts.B_KEY).options or ())
#: The head dim of the seeded vectors shown when the typed ones cannot be used.
FALLBACK_DIM = 8
#: The smallest and largest size a typed entry may have (0 aside): the scores of d ≤ 256 such entries, and their
#: pass marks (machine epsilon times the scores' scale), stay normal numbers in float32 as in float64; 1e-160 would
#: square to 0 and 1e20 overflow float32.
TYPED_MAGNITUDE = (1e-6, 1e6)


def typed_vectors(q_text: str, k_text: str) -> tuple[np.ndarray, np.ndarray]:
    """q and k from the text boxes; ValueError with a message for the user otherwise."""
    q = posenc.parse_vector(q_text, name="q", max_len=MAX_POSITIONS)
    k = posenc.parse_vector(k_text, name="k", max_len=MAX_POSITIONS)
    if q.size != k.size:
        raise ValueError(f"q and k must have the same number of entries, got {q.size} and {k.size}")
    if q.size % 2:
        raise ValueError(f"q and k need an even number of entries (coordinates rotate in pairs), got {q.size}")
    least, most = TYPED_MAGNITUDE
    for name, vec in (("q", q), ("k", k)):
        if not np.any(vec):
            raise ValueError(f"{name} must not be all zeros (every score would be 0), got {vec.size} zeros")
        size = np.abs(vec)
        outside = np.flatnonzero((size > most) | ((size > 0) & (size < least)))
        if outside.size:
            i = int(outside[0])
            raise ValueError(
                f"{name}: item {i + 1} must be 0 or between 1e{math.log10(least):.0f} and 1e{math.log10(most):.0f} "
                f"in size, got {float(vec[i])!r}"  # repr: never rounded onto a bound it breaks
            )
    return q, k


def query_and_key(source: str, q_text: str | None, k_text: str | None, head_dim: int | None, seed: int):
    """(q, k, None) for the chosen source; typed text that cannot be used gives seeded vectors of
    FALLBACK_DIM entries and the reason: (q, k, message)."""
    if source != "typed":  # not cached: microseconds, less than a cache lookup
        return (*posenc.seeded_normal((2, head_dim), seed=seed), None)
    try:
        return (*typed_vectors(q_text or "", k_text or ""), None)
    except ValueError as err:
        return (*posenc.seeded_normal((2, FALLBACK_DIM), seed=seed), str(err))


def reach_of(n_pos: int, d: int) -> int:
    """The largest t the chart carries at N = n_pos and head dim d (charts.shift_reach with the registry's cap): the
    page's limit of t there, and the t an arm's point at that N or d is computed at when the slider's is beyond it."""
    return charts.shift_reach(n_pos, d, T_CAP)


def posenc_settings(dtype, base, layout_sin, table_len, seed) -> dict:
    """The page's settings as posenc's shift test takes them."""
    return dict(dtype=dtype, base=base, layout=layout_sin, table_len=table_len, seed=seed)


def live_limits(values: dict, *, typed_d: int | None) -> dict:
    """The chart's parameters' ranges on this page (explorer.liveparam.LiveChart's ``limits``, read in order):
    N at most MAX_POSITIONS (DEFAULT_POSITIONS by default); t at most what the chart reaches for N and d (d is the
    slider's, or `typed_d` for typed vectors)."""
    if charts.N_KEY not in values:
        return {charts.N_KEY: {"max": MAX_POSITIONS, "default": DEFAULT_POSITIONS}}
    if typed_d is None and charts.D_KEY not in values:
        return {}
    d = int(values[charts.D_KEY]) if typed_d is None else typed_d
    return {charts.LIVE_KEY: {"max": reach_of(int(values[charts.N_KEY]), d)}}


def spans(n_pos: int, d: int, base: float, d_slider: bool) -> dict[str, tuple[float, float]]:
    """Where the chart's sliders reach at N = n_pos, head dim d and base b, by parameter: N, d (seeded vectors only)
    and b over their arms' windows (charts.arm_window: a bounded amount of work each), t over 1 … its reach
    (charts.shift_reach), the learned table's rows over all of TABLE_SPAN."""
    out: dict[str, tuple[float, float]] = {
        charts.N_KEY: charts.arm_window(n_pos, range(1, MAX_POSITIONS + 1), lambda n: charts.point_cost(int(n), d))
    }
    if d_slider:
        lo, hi, step = D_SPAN
        out[charts.D_KEY] = charts.arm_window(
            d, range(lo, hi + 1, step), lambda e: charts.point_cost(n_pos, int(e), own_vectors=True)
        )
    out[charts.B_KEY] = charts.arm_window(float(base), B_OPTIONS, lambda _: charts.point_cost(n_pos, d))
    out[charts.LIVE_KEY] = (1, reach_of(n_pos, d))
    out[charts.L_KEY] = TABLE_SPAN  # every length: the rows do not depend on it (`chart_rows`)
    return out


#: The most N, d and b could reach (`spans` gives less where a window is bounded by its work).
FULL_SPANS = {
    charts.N_KEY: (1, MAX_POSITIONS),
    charts.D_KEY: D_SPAN[:2],
    charts.B_KEY: (B_OPTIONS[0], B_OPTIONS[-1]),
    charts.L_KEY: TABLE_SPAN,
}


def chart_rows(q, k, n_pos: int, shift_t: int, reach: dict, dtype: str, base: float, layout_sin: str, seed: int):
    """The shift test chart's rows (charts.live_rows) for the slider windows `reach` (`spans`): every t at this N,
    d and b, every N of its window at this t, where `reach` has d every d of its window, and every base option of its
    window; and the row saying which points they hold (charts.home_frame). Put together once (`_chart_tables`,
    cached): a rerun of the page, or another session at the same values, takes them from the cache.

    Each point's learned test uses a table as long as that point needs (N + t rows, `_rows_for`): the rows of a seeded
    table do not depend on its length (posenc.learned_table), so this is the page's number at every table length
    that has a row for N − 1 + t, and the chart hides it at the others (charts.deviation_chart). So the rows do not
    depend on the page's table length, and moving it costs the server no new rows."""
    return _chart_tables(q, k, n_pos, shift_t, tuple(reach.items()), (dtype, base, layout_sin, seed))


def _rows_for(n_positions, offsets) -> int:
    """The learned table's length the shift test at each (N, t) needs: positions up to N − 1 + t."""
    return int(np.max(np.asarray(n_positions) + np.asarray(offsets)))


@cached(max_entries=16)
def _chart_tables(q, k, n_pos: int, shift_t: int, reach_items: tuple, settings: tuple):
    reach = dict(reach_items)
    dtype, base, layout_sin, seed = settings
    arms = [n_arm(q, k, *reach[charts.N_KEY], shift_t, *settings)]
    if charts.D_KEY in reach:
        arms.append(d_arm(n_pos, *reach[charts.D_KEY], D_SPAN[2], shift_t, *settings))
    arms.append(b_arm(q, k, n_pos, *reach[charts.B_KEY], shift_t, dtype, layout_sin, seed))
    sweep = shift_sweep(q, k, n_pos, reach[charts.LIVE_KEY][1], *settings)
    home = charts.home_frame(n_pos, q.size, float(base), shift_t, reach)
    return charts.live_rows(sweep, n_pos=n_pos, d=q.size, b=float(base), arms=arms), home


@cached(max_entries=16)
def shift_sweep(q, k, n_pos, t_reach, dtype, base, layout_sin, seed) -> pd.DataFrame:
    """The shift test at every t in 1 … t_reach: one row per t (the live chart's data), the learned table as long as
    the largest t needs (`chart_rows`)."""
    settings = posenc_settings(dtype, base, layout_sin, _rows_for(n_pos, t_reach), seed)
    sweep = posenc.shift_test_sweep(q, k, n_positions=n_pos, offsets=np.arange(1, t_reach + 1), **settings)
    return charts.sweep_frame(sweep)


@cached(max_entries=16)
def n_arm(q, k, n_lo, n_hi, shift_t, dtype, base, layout_sin, seed) -> pd.DataFrame:
    """The chart's N arm: the shift test at every N in n_lo … n_hi, at the slider's t (at most each N's reach,
    `reach_of`, as the page would clamp it there) and the page's base."""
    ns = np.arange(n_lo, n_hi + 1)
    ts = [min(shift_t, reach_of(int(n), q.size)) for n in ns]
    points = shift_points(q, k, ns, ts, (dtype, base, layout_sin, seed))
    return charts.points_frame(points, d=q.size, b=base, hand=shift_t)


@cached(max_entries=16)
def d_arm(n_pos, d_lo, d_hi, d_step, shift_t, dtype, base, layout_sin, seed) -> pd.DataFrame:
    """The chart's d arm (seeded vectors): the shift test at every head dim d in d_lo … d_hi (step d_step), each with
    its own seeded q and k (`query_and_key`), at N = n_pos and the slider's t (at most that d's reach)."""
    points = []
    for d in range(d_lo, d_hi + 1, d_step):
        q, k, _ = query_and_key("random", None, None, d, seed)
        t = min(shift_t, reach_of(n_pos, d))
        points.append((d, base, shift_points(q, k, [n_pos], [t], (dtype, base, layout_sin, seed))))
    return charts.points_frames(points, hand=shift_t)


@cached(max_entries=16)
def b_arm(q, k, n_pos, b_lo, b_hi, shift_t, dtype, layout_sin, seed) -> pd.DataFrame:
    """The chart's b arm: the shift test at every base option in b_lo … b_hi, at N = n_pos and the slider's t (the
    reach does not depend on the base). The learned table's test does not involve the base (its rows, projections and
    products are the same at every b): it is computed at the first base only and is that number at every other, bit
    for bit; the others ask posenc for RoPE's and the sinusoid's alone (`shift_points` with learned=False)."""
    points = []
    learned = None
    for b in (b for b in B_OPTIONS if b_lo <= b <= b_hi):
        point = shift_points(q, k, [n_pos], [shift_t], (dtype, b, layout_sin, seed), learned=learned is None)
        if learned is None:
            learned = point["learned_dev"]
        points.append((q.size, b, {**point, "learned_dev": learned}))
    return charts.points_frames(points, hand=shift_t)


#: How many rows of shift-test curves (`shift_points`) the server keeps, across sessions: a curve is the test at one t
#: for every N up to its length, four numbers a row (each curve its own array), keyed by a 16-byte digest of q and k,
#: the settings and t; so at most about 13 MB of numbers (a curve of 256 rows is 8 kB), and the curves of the call that
#: went past it until the next call.
CURVE_ROWS_KEPT = 400_000
#: A curve is computed up to the next multiple of this past the N asked for (at most MAX_POSITIONS), so that a hand
#: that drags N a little further finds it there: the work grows with the length squared.
CURVE_STEP = 32
_curves_kept: OrderedDict[tuple, np.ndarray] = OrderedDict()  # (length, 4): rope, sinusoid, learned, pass mark
_curves_lock = threading.Lock()
_curve_rows = [0]  # how many rows _curves_kept holds
_DEVIATIONS = ("rope_dev", "sinusoidal_dev", "learned_dev", "tolerance")


def curve_length(n: int) -> int:
    """How far a curve asked for at N = `n` reaches: the next multiple of CURVE_STEP, at most MAX_POSITIONS (and at
    least `n`)."""
    return max(n, min(MAX_POSITIONS, -(-n // CURVE_STEP) * CURVE_STEP))


def shift_points(q, k, ns, ts, settings: tuple, *, learned: bool = True) -> dict:
    """`posenc.shift_test_points` at the pairs (ns[i], ts[i]) with the page's `settings` (dtype, base, layout_sin,
    seed), each with a learned table as long as its point needs (`_rows_for`; with learned=False, a table of one row:
    the learned number is NaN wherever a point needs a second row, and the base arm puts its own in).

    posenc computes the test at one t for every N up to a length at once, each N's numbers its own report's
    (`posenc.shift_test_curves`): so each t's curve is kept (CURVE_ROWS_KEPT rows, the least recently used dropped
    first), computed up to `curve_length` of the largest N asked, and asked for again only when a point lies past its
    end: a hand that drags N, or a slider's window that moves, finds its points there."""
    ns, ts = np.asarray(ns, dtype=np.int64), np.asarray(ts, dtype=np.int64)
    if ns.shape != ts.shape or ns.ndim != 1 or ns.size == 0:
        raise ValueError(f"ns and ts must be two lists of the same 1 or more points, got {ns.shape} and {ts.shape}")
    if ns.min() < 1 or ts.min() < 0:
        raise ValueError(f"ns must be >= 1 and ts >= 0, got {int(ns.min())} and {int(ts.min())}")
    q64, k64 = np.asarray(q, dtype=np.float64), np.asarray(k, dtype=np.float64)
    shape = np.array([q64.size, k64.size], dtype=np.int64).tobytes()  # q's end in the digested bytes
    digest = hashlib.blake2b(shape + q64.tobytes() + k64.tobytes(), digest_size=16).digest()  # one per call, shared
    need = {t: int(ns[ts == t].max()) for t in np.unique(ts).tolist()}
    keys = {t: (digest, learned, *settings, t) for t in need}
    with _curves_lock:
        curves = {t: _curves_kept.get(key) for t, key in keys.items()}
        for t, curve in curves.items():
            if curve is not None and len(curve) >= need[t]:
                _curves_kept.move_to_end(keys[t])
    missing = [t for t, curve in curves.items() if curve is None or len(curve) < need[t]]
    if missing:
        dtype, base, layout_sin, seed = settings
        length = curve_length(max(need[t] for t in missing))
        rows = _rows_for(length, max(missing)) if learned else 1  # 1 row: no position the test needs
        new = posenc.shift_test_curves(
            q, k, n_positions=length, offsets=missing, **posenc_settings(dtype, base, layout_sin, rows, seed)
        )
        table = np.stack([new[name] for name in _DEVIATIONS], axis=-1)  # (len(missing), length, 4)
        made = {t: table[i].copy() for i, t in enumerate(missing)}  # each its own array: one kept holds no others
        for curve in made.values():
            curve.flags.writeable = False
        _keep({keys[t]: curve for t, curve in made.items()})
        curves.update(made)
    ready = {t: curve for t, curve in curves.items() if curve is not None}  # every t's, by now
    found = np.array([ready[t][n - 1] for n, t in zip(ns.tolist(), ts.tolist())], dtype=np.float64)
    return {"n_positions": ns, "offset": ts, **{name: found[:, i] for i, name in enumerate(_DEVIATIONS)}}


def forget_curves() -> None:
    """Drop every kept curve (tests start from none)."""
    with _curves_lock:
        _curves_kept.clear()
        _curve_rows[0] = 0


def _keep(new: dict[tuple, np.ndarray]) -> None:
    """Keep `new` curves, dropping the least recently used past CURVE_ROWS_KEPT rows (the newest always stay)."""
    with _curves_lock:
        for key, curve in new.items():
            old = _curves_kept.pop(key, None)
            if old is not None and len(old) > len(curve):  # another session's, longer, came in meanwhile
                curve = old
            _curve_rows[0] += len(curve) - (0 if old is None else len(old))
            _curves_kept[key] = curve
        while _curve_rows[0] > CURVE_ROWS_KEPT and len(_curves_kept) > len(new):
            _curve_rows[0] -= len(_curves_kept.popitem(last=False)[1])


@cached(max_entries=16)
def shift_test(q, k, n_pos, shift_t, dtype, base, layout_sin, table_len, seed) -> dict:
    """posenc.shift_test_report at t = shift_t, with ``spreads``: the largest change along one
    diagonal (fixed n − m) of each score matrix, None where the learned table has no row."""
    settings = posenc_settings(dtype, base, layout_sin, table_len, seed)
    report = posenc.shift_test_report(q, k, n_positions=n_pos, offset=shift_t, **settings)
    report["spreads"] = {
        key: None if report[key] is None else posenc.diagonal_spread(report[key]) for key, _ in charts.ENCODINGS
    }
    return report


@cached(max_entries=16)
def shift_numbers(d, k, n_pos, base, layout_sin, dtype) -> dict:
    """The sinusoid's shift matrix R_k and ‖PE(p + k) − R_k·PE(p)‖ at every position p < n_pos."""
    pos = np.arange(n_pos, dtype=np.float64)
    return {
        "r_k": posenc.shift_matrix(k, d, base=base, layout=layout_sin),
        "residual": pd.DataFrame(
            {"p": pos, "residual": posenc.shift_residual(pos, k, d, base=base, layout=layout_sin, dtype=dtype)}
        ),
    }


@cached(max_entries=16)
def decay_numbers(d, base) -> pd.DataFrame:
    """RoFormer's bound on RoPE's score at 400 log-spaced relative distances up to 20,000."""
    r = np.unique(np.round(np.geomspace(1, 20_000, 400)))
    return pd.DataFrame({"distance": r, "bound": posenc.rope_decay_bound(r, d, base=base)})
