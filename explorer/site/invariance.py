"""The Relative-position invariance page (pages/4_Relative_invariance.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

import posenc
from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.snippets import HEADER, fill, ints


def snippet(v: Mapping[str, Any]) -> str:
    q = np.asarray(v["q"], dtype=np.float64)
    k = np.asarray(v["k"], dtype=np.float64)
    seed = int(v["seed"])
    seeded_q, seeded_k = posenc.seeded_normal((2, q.size), seed=seed)  # as explorer.compute.invariance
    if np.array_equal(q, seeded_q) and np.array_equal(k, seeded_k):
        vectors = fill("q, k = posenc.seeded_normal((2, $d), seed=seed)  # random q and k", d=int(q.size))
    else:
        vectors = fill("q = $q\nk = $k", q=q, k=k)
    return (
        HEADER
        + fill(
            """
seed, n_pos, t = $seed, $n_pos, $t
dtype, base, layout_sin, table_len = $dtype, $base, $layout_sin, $table_len
""",
            seed=seed,
            **ints(v, "n_pos", "table_len"),
            t=int(v["shift_t"]),
            dtype=v["dtype"],
            base=float(v["base"]),
            layout_sin=v["layout_sin"],
        )
        + vectors
        + """
# RoPE's scores, and those of a sinusoid and a seeded learned table added before seeded projections,
# at positions 0 … n_pos - 1 and shifted by t (explorer.compute.invariance.shift_test)
report = posenc.shift_test_report(
    q, k, n_positions=n_pos, offset=t, dtype=dtype, base=base, layout=layout_sin, table_len=table_len, seed=seed
)
rope_dev, sinusoidal_dev, tolerance = report["rope_dev"], report["sinusoidal_dev"], report["tolerance"]
learned_dev = report["learned_dev"]  # None: the table has no row for a shifted position
if learned_dev is None:
    print("learned table:", report["learned_dev_error"])
print(f"RoPE {rope_dev:.2e}, sinusoidal {sinusoidal_dev:.2e}, learned {learned_dev}, pass mark {tolerance:.1e}")
"""
    )


PAGE = Page(
    script="pages/4_Relative_invariance.py",
    slug="invariance",
    title="Relative-position invariance",
    icon=":material/compare_arrows:",
    params=(
        Param(
            "q_text",
            "q (comma-separated)",
            "text",
            "1, 0, 0.5, -0.5, 0.25, 2, -1, 0.75",
            max=3000,
            help="The query vector, e.g. 1, 0, 0.5, -0.5. An even count: coordinates rotate in pairs.",
        ),
        Param(
            "k_text",
            "k (comma-separated)",
            "text",
            "0.5, 1, -1, 0.25, 2, 0, 0.5, -0.75",
            max=3000,
            help="The key vector; the same number of entries as q.",
        ),
        Param(
            "shift_t",
            "Shift offset t",
            "int_slider",
            16,
            min=1,
            # The shift test chart's own slider (explorer.liveparam), which carries the test at every t
            # it reaches: at most this many, fewer for large N and d (explorer.charts.invariance.shift_reach).
            max=1000,
            help="The test compares the score at positions (m, n) with the score at (m + t, n + t).",
        ),
        Param(
            "score_dtype",
            "Precision of the RoPE scores",
            "radio",
            "float64",
            options=("float64", "float32"),
            help="The RoPE scores are computed entirely in this dtype; the pass mark scales with "
            "its machine epsilon (about 2e-16 for float64, 1e-7 for float32).",
        ),
        Param(
            "table_len",
            "Learned table rows (max_len)",
            "int_slider",
            128,
            min=8,
            # The shift test chart's own slider (explorer.liveparam): the chart's learned bars are computed with a
            # table as long as they need (its rows do not depend on its length) and hidden where N − 1 + t is past
            # this many rows, so the slider spans the whole range with no data of its own.
            max=4096,
            help="How many positions the learned table has rows for. The shift test needs rows up "
            "to N − 1 + t; a position past the table is an error, not a guess.",
        ),
        Param("inv_view", "View", "tabs", "Scores", options=("Scores", "Sinusoid shift", "Decay")),
    ),
    snippet=snippet,
    tour=(
        Step(
            {"seq_len": 64, "shift_t": 100, "table_len": 256},  # the table has rows up to 63 + 100
            "Move both tokens 100 places further on: RoPE's scores stay the same to the last digits, while adding sinusoidal or learned vectors to the input changes them.",
        ),
    ),
    deep_link=DeepLink(
        {
            "qk_source": "typed",
            "q_text": "1, 2, 3, 4",
            "k_text": "0.5, -1, 2, 0",
            "seed": 5,
            "seq_len": 48,
            "shift_t": 20,
            "score_dtype": "float32",
            "base": 1000,
            "layout_sin": "concatenated",
            "table_len": 60,
            "inv_view": "Sinusoid shift",
        },
        slider="seq_len",  # the shift test chart's own slider N (a key press moves the chart in the browser)
        chart=0,
    ),
    bench=BenchSettings(
        max_query={
            "head_dim": "256",
            "seq_len": "256",
            "shift_t": "20",  # the farthest the shift test's chart reaches at N = d = 256 (shift_reach)
            "table_len": "4096",
            "base": "1000000",
            "seed": "9999",
        },
        slider="seq_len",
    ),
    presets=True,
)
