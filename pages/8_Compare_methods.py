"""Compare methods: sinusoidal, learned, RoPE, ALiBi and NoPE side by side.

Every table cell is a check computed now, with the settings above the table
(posenc.attention.method_checks), not a claim typed into the page.
"""

import streamlit as st

from explorer.layout import cached, formula, intro, notice_list, page_setup

page_setup("compare")  # before the imports below: see explorer.layout

from explorer.charts import compare as charts
from explorer.exports import page_footer
from explorer.params import widget
from explorer.render import shared, show_chart
from posenc import alibi_slopes
from posenc import attention as att

ALIBI_HEADS = 8


@cached(max_entries=16)
def all_checks(dim: int, trained_len: int, test_len: int, seed: int, base: float, alibi_head: int) -> list[dict]:
    slope = float(alibi_slopes(ALIBI_HEADS)[alibi_head - 1])
    return [
        att.method_checks(
            method, dim=dim, trained_len=trained_len, test_len=test_len, seed=seed, base=base, alibi_slope=slope
        )
        for method in att.METHODS
    ]


with intro():
    st.write(
        "Five ways to tell attention where tokens are, tested on the same seeded query and key. "
        "Each cell below is a check run just now with these settings: the tick or cross comes with "
        "the number that decided it. Change d, L or the seed and the checks run again."
    )
    formula(
        r"\begin{aligned}"
        r"\text{sinusoidal, learned:}\;& s(m,n) = \big((x_q + p_m)W_q\big)\cdot\big((x_k + p_n)W_k\big)/\sqrt d"
        r"\\ \text{RoPE:}\;& s(m,n) = \langle R_m\, x_qW_q,\; R_n\, x_kW_k\rangle/\sqrt d"
        r" = \langle x_qW_q,\; R_{n-m}\, x_kW_k\rangle/\sqrt d"
        r"\\ \text{ALiBi:}\;& s(m,n) = (x_qW_q)\cdot(x_kW_k)/\sqrt d \;-\; \text{slope}\cdot|m-n|"
        r"\\ \text{NoPE:}\;& s(m,n) = (x_qW_q)\cdot(x_kW_k)/\sqrt d"
        r"\end{aligned}",
    )
c1, c2, c3, c4, c5, c6 = st.columns(6)
dim = int(widget("head_dim", container=c1))
trained_len = int(widget("train_len", container=c2, max=2048, default=128))
test_len = int(
    widget(
        "target_len",
        container=c3,
        label="Test length T (> L)",
        min=trained_len + 1,
        max=4096,
        default=max(512, trained_len + 1),
    )
)
base = float(widget("base", container=c4))
seed = int(widget("seed", container=c5))
alibi_head = int(widget("alibi_head", container=c6))

checks = all_checks(dim, trained_len, test_len, seed, base, alibi_head)
n_shift = checks[0]["shift_positions"]
slope = float(alibi_slopes(ALIBI_HEADS)[alibi_head - 1])

table = charts.summary_table(checks, trained_len=trained_len, test_len=test_len, dim=dim)
st.table(charts.style_summary(table))
st.caption(  # under the table whose first column it explains: the table starts in the first screen
    f"Relative means s(m + t, n + t) = s(m, n) for every m, n, t. The shift test measures the largest "
    f"violation over m, n < {n_shift} with t = {checks[0]['shift_offset']} (= L − {n_shift}, so the learned "
    "table still has rows)."
)
st.caption(
    f"d = {dim}, L = {trained_len}, T = {test_len}, base {base:,.0f}, seed {seed}, ALiBi slope "
    f"{slope:g} (head {alibi_head} of {ALIBI_HEADS}). Tolerance: {charts.RELATIVE_TOL:g} × the "
    "score scale. Shuffle gap = max |A(PX) − P·A(X)·Pᵀ| for 8 seeded tokens. “Runs” means the "
    "numbers can be computed; whether a model trained at L still works there is another question."
)

show_chart(
    save_as="compare_methods",
    chart=shared(charts.score_by_distance)(charts.score_curves(checks), trained_len=trained_len, test_len=test_len),
    width="content",
)

passing = [
    charts.METHOD_LABELS[c["method"]]
    for c in checks
    if c["method"] != "nope" and charts.relative_cell(c).startswith("✓")
]
notice_list(
    [
        (
            f"Of the methods that carry position, {' and '.join(f'**{p}**' for p in passing)} pass the shift test "
            "here: their score depends on m − n alone (deviation at rounding level). "
            if passing
            else "No method that carries position passes the shift test with these settings. "
        )
        + "Added encodings also mix position with content (x·p cross terms), so their score depends on where "
        "the pair sits.",
        "**Learned** is the only method with parameters (L·d) and the only one that cannot even be "
        "evaluated past L: the table has no row there.",
        "**NoPE** passes the shift test for the wrong reason: its scores never change, and the shuffle gap is "
        "rounding error. That holds without a causal mask, as in this test; a decoder's causal mask already breaks "
        "the symmetry (a token sees how many came before it), which is how trained NoPE decoders can still use order.",
        "Computing beyond L is not the same as working beyond L: RoPE models usually need "
        "frequency scaling to stretch (see *Context extension*); ALiBi was designed to extrapolate.",
        "A test met in tutorials: the cosine similarity of PE(p + k) − PE(p) across p. It cannot tell a "
        "relative encoding from one that is not; the shift test above compares the scores themselves.",
    ]
)

page_footer(
    "compare",
    dict(dim=dim, trained_len=trained_len, test_len=test_len, seed=seed, base=base, alibi_head=alibi_head),
    data=table,
    file_name=f"compare_methods_d{dim}_L{trained_len}_T{test_len}_seed{seed}.csv",
    data_label="Download the table as CSV",
)
