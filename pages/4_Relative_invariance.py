"""Relative-position invariance: RoPE scores depend only on n − m; additive encodings' do not.

URL keys: qk_source, seed, head_dim, q_text, k_text (the vectors), seq_len (N, max 256 here),
shift_t (the shift test chart's own slider, explorer.liveparam: the bars move in the browser and the
link follows when a drag ends; its reach depends on N and d), score_dtype, base, layout_sin,
table_len; inv_view (the open tab: Scores, Sinusoid shift, Decay; only the open tab is computed and
drawn).
"""

from __future__ import annotations

import streamlit as st

from explorer.layout import cached, formula, intro, notice_list, page_setup

page_setup("invariance")  # before the imports below: see explorer.layout

import numpy as np
import pandas as pd

import posenc
from explorer import presets_ui
from explorer.charts import invariance as charts
from explorer.exports import long_matrices, page_footer
from explorer.liveparam import LiveChart
from explorer.params import PARAMS, escape_markdown, widget
from explorer.render import shared, show_chart

#: Largest N here: the score matrices are N × N and are recomputed when a control moves.
MAX_POSITIONS = 256
#: Standard deviation of the learned table: the RMS of a sinusoidal entry (1/√2), so the two
#: additive encodings are equally strong and only their structure differs.
LEARNED_STD = 0.5**0.5

with intro():
    st.markdown(
        "A score that only cares about *how far apart* two tokens are must not change when both move "
        "by the same amount. RoPE has this built in: rotating q by m and k by n leaves exactly the "
        "rotation by n − m between them. Adding a position vector to the input instead mixes absolute "
        "positions into the score, and shifting both tokens changes it. Below, the same q and k go "
        "through all three encodings and the shift test measures the difference."
    )
    formula(
        r"s(m,n) = \langle R_m q,\ R_n k\rangle = q^\top R_m^\top R_n\, k = \langle q,\ R_{n-m}\,k\rangle"
        r"\quad\Rightarrow\quad s(m+t,\,n+t) = s(m,n)",
        caption="R_mᵀR_n = R_(n−m) because rotations by the same frequencies compose by adding angles.",
    )

# ------------------------------------------------------------------------------ controls
# The test's own controls in the main area, next to its result (the sidebar starts collapsed on
# phones and in presentation mode); the vectors, the precision and the encodings' settings stay
# in the sidebar. The shift t is the shift test chart's own slider (explorer.liveparam), right above
# the chart: the bars move in the browser while it is dragged; the rest of the page and the link
# follow when the drag ends.
with st.container(border=True, key="inv_controls"):
    c_n, c_t = st.columns(2)
    n_pos = widget("seq_len", container=c_n, max=MAX_POSITIONS, default=64, label="Positions N (0 … N − 1)")
    c_t.caption(
        "The shift **t** is the slider right above the shift test's chart: drag it and the bars move at once. "
        "q and k, the precision, the base and the additive encodings are in the sidebar (› at the top left)."
    )

with st.sidebar:
    presets_ui.model_picker("invariance")
    st.markdown("**q and k**")
    source = widget("qk_source", container=st.sidebar)
    seed = widget("seed", container=st.sidebar)
    if source == "random":
        head_dim = widget("head_dim", container=st.sidebar)
        q_text = k_text = None
    else:
        q_text = widget("q_text", container=st.sidebar)
        k_text = widget("k_text", container=st.sidebar)
        head_dim = None
    st.markdown("**The test**")
    dtype = widget("score_dtype", container=st.sidebar)
    base = widget("base", container=st.sidebar)
    st.markdown("**The additive encodings**")
    layout_sin = widget("layout_sin", container=st.sidebar)
    table_len = widget("table_len", container=st.sidebar)


# ------------------------------------------------------------------------------ q and k
def typed_vectors(q_text: str, k_text: str) -> tuple[np.ndarray, np.ndarray]:
    """q and k from the text boxes; ValueError with a message for the user otherwise."""
    q = posenc.parse_vector(q_text, name="q", max_len=MAX_POSITIONS)
    k = posenc.parse_vector(k_text, name="k", max_len=MAX_POSITIONS)
    if q.size != k.size:
        raise ValueError(f"q and k must have the same number of entries, got {q.size} and {k.size}")
    if q.size % 2:
        raise ValueError(f"q and k need an even number of entries (coordinates rotate in pairs), got {q.size}")
    for name, vec in (("q", q), ("k", k)):
        if not np.any(vec):
            raise ValueError(f"{name} must not be all zeros (every score would be 0), got {vec.size} zeros")
    return q, k


@cached(max_entries=32)
def seeded_vectors(dim: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    q, k = posenc.seeded_normal((2, dim), seed=seed)
    return q, k


if source == "typed":
    try:
        q, k = typed_vectors(q_text, k_text)
        st.sidebar.caption(f"head dim d = {q.size}, from the typed vectors")
    except ValueError as err:
        # The message quotes the offending text: escape it so it shows literally (never as markup).
        st.error(
            f"Could not use the typed vectors: {escape_markdown(str(err))}. "
            "Showing seeded random vectors (d = 8) instead.",
            icon=":material/error:",
        )
        q, k = seeded_vectors(8, seed)
else:
    q, k = seeded_vectors(head_dim, seed)
d = q.size


# ------------------------------------------------------------------------------ the shift t
# The chart carries the shift test at every t it reaches (explorer.charts.invariance.shift_reach: as
# far as a bounded amount of work allows for this N and d); a t beyond it is clamped, with a notice.
t_reach = charts.shift_reach(n_pos, d, PARAMS[charts.LIVE_KEY].max)
live = LiveChart("inv_live", charts.LIVE_PARAMS, limits={charts.LIVE_KEY: {"max": t_reach}})
shift_t = live.values[charts.LIVE_KEY]


# ------------------------------------------------------------------------------ numbers
@cached(max_entries=16)
def shift_sweep(q, k, n_pos, t_reach, dtype, base, layout_sin, table_len, seed) -> pd.DataFrame:
    """The shift test at every t in 1 … t_reach: one row per t (the live chart's data)."""
    sweep = posenc.shift_test_sweep(
        q,
        k,
        n_positions=n_pos,
        offsets=np.arange(1, t_reach + 1),
        dtype=dtype,
        base=base,
        layout=layout_sin,
        table_len=table_len,
        seed=seed,
        learned_std=LEARNED_STD,
    )
    return charts.sweep_frame(sweep)


@cached(max_entries=16)
def invariance_numbers(q, k, n_pos, shift_t, dtype, base, layout_sin, table_len, seed) -> dict:
    return posenc.shift_test_report(
        q,
        k,
        n_positions=n_pos,
        offset=shift_t,
        dtype=dtype,
        base=base,
        layout=layout_sin,
        table_len=table_len,
        seed=seed,
        learned_std=LEARNED_STD,
    )


@cached(max_entries=16)
def shift_numbers(d, k, n_pos, base, layout_sin, dtype) -> dict:
    pos = np.arange(n_pos, dtype=np.float64)
    return {
        "r_k": posenc.shift_matrix(k, d, base=base, layout=layout_sin),
        "residual": posenc.shift_residual(pos, k, d, base=base, layout=layout_sin, dtype=dtype),
    }


@cached(max_entries=16)
def decay_numbers(d, base) -> pd.DataFrame:
    r = np.unique(np.round(np.geomspace(1, 20_000, 400)))  # relative distances, log-spaced
    return pd.DataFrame({"distance": r, "bound": posenc.rope_decay_bound(r, d, base=base)})


nums = invariance_numbers(q, k, n_pos, shift_t, dtype, base, layout_sin, table_len, seed)
tol = nums["tolerance"]
decay = decay_numbers(d, base)
#: Largest change along one diagonal (fixed n − m) of each score matrix; None: the learned table has no row.
spreads = {
    name: None if nums[key] is None else posenc.diagonal_spread(nums[key])
    for name, key in (("RoPE", "rope"), ("the added sinusoid", "sinusoidal"), ("the added learned table", "learned"))
}
decay_title, decay_sentence = charts.decay_summary(decay["distance"], decay["bound"])


# ------------------------------------------------------------------------------ the test
st.subheader("The shift test: move both tokens by t")
st.markdown(
    f"For every pair of positions m, n < {n_pos}, compare the score with the score at m + t, n + t, and "
    f"keep the largest difference. The dashed pass mark is what {dtype} round-off can explain for these q, k "
    "and positions up to P = N − 1 + t: ε·‖q‖‖k‖·(4P + 2d + 8)."
)
# the chart first, then its numbers: the chart is in a projector's first screen
sweep = shift_sweep(q, k, n_pos, t_reach, dtype, base, layout_sin, table_len, seed)
starts = live.starts((tuple(q), tuple(k), n_pos, t_reach, dtype, base, layout_sin, table_len, seed))
live.show(
    save_as="shift_test",
    chart=shared(charts.deviation_chart)(sweep, start=starts[charts.LIVE_KEY], dtype=dtype, d=d),
    width="stretch",
)
st.caption(
    f"Drag **shift t** above the chart (1 … {t_reach}; or focus it and press ← →): the bars, the pass mark "
    "and the headline move in your browser at once; when you let go, the numbers below, the tabs and the "
    "link follow."
)
st.markdown(f"**At t = {shift_t}** (these numbers follow the slider when you let go):")
c1, c2, c3, c4 = st.columns(4)
c1.metric(f"RoPE ({dtype})", f"{nums['rope_dev']:.2e}", help="max |s(m, n) − s(m+t, n+t)|, RoPE scores.")
c1.markdown(charts.verdict_badge(nums["rope_dev"], tol))
c2.metric("sinusoidal, added", f"{nums['sinusoidal_dev']:.2e}", help="((q + PE_m) W_q)·((k + PE_n) W_k), float64.")
c2.markdown(charts.verdict_badge(nums["sinusoidal_dev"], tol))
if nums["learned_dev"] is not None:
    c3.metric(
        "learned table, added",
        f"{nums['learned_dev']:.2e}",
        help="((q + P[m]) W_q)·((k + P[n]) W_k) with a seeded table P, float64.",
    )
else:
    c3.metric("learned table, added", "no row", help="The table ends before position N − 1 + t.")
c3.markdown(charts.verdict_badge(nums["learned_dev"], tol))
c4.metric("pass mark", f"{tol:.1e}", help=f"ε({dtype}) · ‖q‖ · ‖k‖ · (4P + 2d + 8), P = N − 1 + t.")

if nums["learned_dev_error"]:
    st.info(f"Learned table at t = {shift_t}: {nums['learned_dev_error']}.", icon=":material/block:")

# ------------------------------------------------------------------------------ look closer
st.subheader("Look closer")
st.caption(
    "Behind the test: the score matrices themselves (Scores), the sinusoid's own shift matrix "
    "(Sinusoid shift), and how the bound on RoPE's scores changes with distance (Decay)."
)

# Only the open tab is computed and drawn (the choice is in the URL: ?inv_view=Decay).
tab_scores, tab_shift, tab_decay = widget("inv_view")

with tab_scores:
    if tab_scores.open:
        st.markdown("**Scores over all (m, n)**")
        cols = st.columns(3)
        heat_specs = [
            (title, nums[key], charts.diagonal_words(spreads[name], tol, n_pos))
            for title, key, name in (
                ("RoPE", "rope", "RoPE"),
                ("sinusoidal PE added", "sinusoidal", "the added sinusoid"),
                ("learned table added", "learned", "the added learned table"),
            )
        ]
        for col, (name, scores, sub) in zip(cols, heat_specs):
            with col:
                if scores is None:
                    st.info(f"Learned table: {nums['learned_error']}.", icon=":material/block:")
                    continue
                show_chart(
                    shared(charts.score_heatmap)(scores, nums["positions"], title=name, subtitle=sub),
                    width="stretch",
                )

        st.markdown(
            "**Why the additive encodings fail.** Expand the score with the encoding added before the projections:"
        )
        st.latex(
            r"s(m,n) = \underbrace{x_q W_q W_k^\top x_k^\top}_{\text{content}}"
            r" + \underbrace{x_q W_q W_k^\top PE_n^\top}_{\text{depends on } n \text{ alone}}"
            r" + \underbrace{PE_m W_q W_k^\top x_k^\top}_{\text{depends on } m \text{ alone}}"
            r" + \underbrace{PE_m W_q W_k^\top PE_n^\top}_{\text{not a function of } n-m \text{ in general}}"
        )
        st.markdown(
            "The two cross terms see one absolute position each: moving n to n + t changes x·W·PE_n "
            "whatever m is. Even the last term is a function of n − m only if W_q W_kᵀ commutes with "
            "every shift R_k — random (or trained) projections do not. The learned table has the same "
            f"four terms, and worse: it has rows 0 … {table_len - 1} only, so a shifted position past "
            "the end is an error, not a guess."
        )

with tab_shift:
    if tab_shift.open:
        st.markdown("**The sinusoid's own shift is exact — but linear, not invariant**")
        sh = shift_numbers(d, shift_t, n_pos, base, layout_sin, dtype)
        left, right = st.columns(2)
        with left:
            show_chart(shared(charts.shift_matrix_heatmap)(sh["r_k"], k=shift_t, layout=layout_sin), width="stretch")
        with right:
            resid = pd.DataFrame({"p": nums["positions"], "residual": sh["residual"]})
            show_chart(
                shared(charts.curve_chart)(
                    resid,
                    x="p",
                    y="residual",
                    x_title="position p",
                    y_title="‖PE(p+k) − R_k·PE(p)‖",
                    title=f"PE(p + {shift_t}) = R_k·PE(p) for every p",
                    subtitle=f"what is left is {dtype} round-off (max {sh['residual'].max():.1e})",
                    y_format=".0e",
                ),
                width="stretch",
            )
        st.caption(
            f"Here k is the shift t, {shift_t} (it follows the slider when you let go). "
            "A fixed matrix R_k moves every sinusoidal encoding k steps along, so a model *could* learn "
            "relative offsets from it. But in the shift test the encoding is added to the content and "
            "projected by W_q, W_k, and nothing forces the network to use R_k: absolute position stays "
            "in the numbers."
        )

with tab_decay:
    if tab_decay.open:
        st.markdown("**Long-term decay**")
        show_chart(
            shared(charts.curve_chart)(
                decay,
                x="distance",
                y="bound",
                x_title="relative distance |n − m| (log scale)",
                y_title="score bound",
                title=decay_title,
                subtitle=f"RoFormer §3.4.3: (1/(d/2))·Σ_j |Σ_(i<j) e^(i·r·θ_i)|, d = {d}, base = {base:g}",
                log_x=True,
                mark_x=max(n_pos - 1, 1),
                mark_label=f"largest offset in the test ({max(n_pos - 1, 1)})",
                width=700,
            ),
            width="stretch",
        )

notice_list(
    [
        charts.diagonal_sentence(spreads, tol, n_pos),
        f"At t = {shift_t}, "
        + (
            f"RoPE's shift deviation ({nums['rope_dev']:.1e} in {dtype}) is round-off, under the pass mark "
            f"{tol:.1e} that scales with {dtype}'s machine epsilon"
            if nums["rope_dev"] <= tol
            else f"RoPE's shift deviation ({nums['rope_dev']:.1e} in {dtype}) is above the pass mark {tol:.1e}: "
            f"{dtype}'s round-off at these positions is larger than the bound allows for"
        )
        + f"; the added sinusoid's is {nums['sinusoidal_dev']:.1e}.",
        charts.learned_sentence(
            nums["learned_dev"] is not None, n_pos=n_pos, t=shift_t, t_reach=t_reach, table_len=table_len
        ),
        "The sinusoidal shift matrix R_k (tab **Sinusoid shift**) is exact to round-off for every p, "
        + (
            f"yet at t = {shift_t} the added sinusoid's score changes by {nums['sinusoidal_dev']:.1e} under the "
            "shift: being linearly shiftable is not the same as being relative."
            if nums["sinusoidal_dev"] > tol
            else f"and at t = {shift_t} the added sinusoid's score also stays within the pass mark "
            f"({nums['sinusoidal_dev']:.1e})."
        ),
        "The decay bound (tab **Decay**) bounds RoPE's score at each distance, up to a constant set by q and k; "
        f"here (d = {d}, base {base:g}) {decay_sentence}.",
    ]
)

page_footer(
    "invariance",
    dict(
        q=q,
        k=k,
        seed=seed,
        n_pos=n_pos,
        shift_t=shift_t,
        dtype=dtype,
        base=base,
        layout_sin=layout_sin,
        table_len=table_len,
    ),
    data=lambda: long_matrices(
        {"RoPE": nums["rope"], "sinusoidal added": nums["sinusoidal"], "learned added": nums["learned"]},
        row="m",
        column="n",
    ),
    file_name=f"scores_d{d}_N{n_pos}_seed{seed}.csv",
    data_label="Download the score matrices as CSV",
)
