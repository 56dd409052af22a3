"""The Compare methods page (pages/8_Compare_methods.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.snippets import HEADER, fill, ints

#: ALiBi's heads on this page: head h has the slope 2^(−h) (the parameter alibi_head picks h).
ALIBI_HEADS = 8


def snippet(v: Mapping[str, Any]) -> str:
    return HEADER + fill(
        """from posenc import attention as att

dim, trained_len, test_len, seed, base, alibi_head = $dim, $trained_len, $test_len, $seed, $base, $alibi_head
slope = float(posenc.alibi_slopes($heads)[alibi_head - 1])
checks = {method: att.method_checks(method, dim=dim, trained_len=trained_len, test_len=test_len, seed=seed,
                                    base=base, alibi_slope=slope)
          for method in att.METHODS}
for method, c in checks.items():
    print(f"{method:10s} shift deviation {c['shift_deviation']:.3g}  shuffle gap {c['permutation_gap']:.3g}  "
          f"parameters {c['parameters']}  beyond L: {c['extrapolation_error'] or 'runs'}")
""",
        **ints(v, "dim", "trained_len", "test_len", "seed", "alibi_head"),
        base=float(v["base"]),
        heads=ALIBI_HEADS,
    )


PAGE = Page(
    script="pages/8_Compare_methods.py",
    slug="compare",
    title="Compare methods",
    icon=":material/table_chart:",
    params=(
        Param(
            "alibi_head",
            f"ALiBi head h (of {ALIBI_HEADS})",
            "int_slider",
            4,
            min=1,
            max=ALIBI_HEADS,
            help="ALiBi gives each head its own slope 2^(−h) (8 heads): the bias −slope·|m − n| favours near "
            "keys most in head 1 (slope 1/2) and least in head 8 (slope 1/256).",
        ),
    ),
    snippet=snippet,
    tour=(
        Step(
            {},
            "All five schemes on the same query and key: only RoPE and ALiBi make the score depend on the offset alone, and only the learned table cannot even run past its length.",
        ),
    ),
    deep_link=DeepLink(
        {"head_dim": 32, "train_len": 256, "target_len": 1024, "base": 1000, "seed": 3, "alibi_head": 6},
        slider="alibi_head",
        chart=0,
    ),
    bench=BenchSettings(
        max_query={
            "head_dim": "256",
            "train_len": "2048",
            "target_len": "4096",
            "base": "1000000",
            "seed": "9999",
            "alibi_head": "8",
        },
    ),
)
