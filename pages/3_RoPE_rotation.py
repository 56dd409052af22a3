"""RoPE rotation: one pair of a query and a key, rotated by position, and the d×d matrix behind it.

URL keys: vec_input, qx, qy, kx, ky, q_angle, q_len, k_angle, k_len (the two 2-D vectors), m, n
(positions), j (pair; max head_dim/2 − 1, clamped), base, head_dim, layout_rope, traj_m.
"""

from __future__ import annotations

import streamlit as st

from explorer.layout import cached, formula, intro, notice_list, page_setup

page_setup("rope")  # before the imports below: see explorer.layout

import numpy as np
import pandas as pd

import posenc
from explorer import presets_ui
from explorer.charts import rope as charts
from explorer.exports import matrix_frame, page_footer
from explorer.liveparam import LiveChart
from explorer.params import PARAMS, widget
from explorer.render import shared, show_chart

with intro():
    st.markdown(
        "RoPE does not add anything to a query or key. It splits the vector into pairs of coordinates "
        "and turns each pair, like a clock hand, by an angle proportional to the token's position; pair "
        "j turns θ_j radians per position. Turning never changes a length, and when a query and a key "
        "are compared only the *difference* of their turns survives — that is how relative position "
        "gets into the attention score."
    )
    formula(  # two lines: one is too wide for presentation mode with the sidebar open
        r"\begin{gathered}\begin{pmatrix}x'_a\\ x'_b\end{pmatrix} = \begin{pmatrix}\cos m\theta_j & -\sin m\theta_j\\ "
        r"\sin m\theta_j & \cos m\theta_j\end{pmatrix}\begin{pmatrix}x_a\\ x_b\end{pmatrix},\qquad "
        r"\theta_j = b^{-2j/d},\\ \langle R_m q,\ R_n k\rangle = \langle q,\ R_{n-m}\,k\rangle\end{gathered}",
        caption="(a, b) are the two coordinates of pair j: (j, j + d/2) in the half layout, (2j, 2j + 1) "
        "in the interleaved one. Angles below are measured counter-clockwise.",
    )
    st.caption(
        "A slip met in tutorials: “R(m)·R(n) = R(m − n)”. Two rotations add their angles, R(m)·R(n) = "
        "R(m + n); the score compares a rotated query with a rotated key, and R(m)ᵀ·R(n) = R(n − m) is "
        "what leaves only the offset in it."
    )

# ------------------------------------------------------------------------------ controls
# The positions and the pair are the page's main controls: in the main area (the sidebar starts
# collapsed on phones and in presentation mode); the rest stays in the sidebar. m and n are the live
# plane's own sliders (explorer.liveparam): the plane turns in the browser while they are dragged, and
# the rest of the page and the link follow when the drag ends.
# The real-model select first: it fills the widgets below before they are drawn.
presets_ui.model_picker("rope", container=st.sidebar)
live = LiveChart("rope_live", charts.LIVE_PARAMS, limits=charts.live_limits)
m, n, head_dim, base, j = (live.values[key] for key in charts.LIVE_PARAMS)
live_slot = st.container(border=True, key="rope_controls")

with st.sidebar:
    st.markdown("**The pair j of q and k**")
    mode = widget("vec_input", container=st.sidebar)
    if mode == "cartesian":
        c1, c2 = st.sidebar.columns(2)
        q_in = ("xy", widget("qx", container=c1), widget("qy", container=c2))
        c1, c2 = st.sidebar.columns(2)
        k_in = ("xy", widget("kx", container=c1), widget("ky", container=c2))
    else:
        c1, c2 = st.sidebar.columns(2)
        q_in = ("polar", widget("q_angle", container=c1), widget("q_len", container=c2))
        c1, c2 = st.sidebar.columns(2)
        k_in = ("polar", widget("k_angle", container=c1), widget("k_len", container=c2))
    st.markdown("**Frequency and trajectory**")
    traj_m = widget("traj_m", container=st.sidebar)
    layout = widget("layout_rope", container=st.sidebar)


# ------------------------------------------------------------------------------ numbers
def as_vector(spec: tuple) -> np.ndarray:
    kind, a, b = spec
    return np.array([a, b], dtype=np.float64) if kind == "xy" else posenc.polar_to_xy(a, b, degrees=True)


@cached(max_entries=64)
def plane_numbers(q: np.ndarray, k: np.ndarray, m: int, n: int, theta: float, traj_m: int) -> dict:
    pos_traj = np.arange(traj_m + 1, dtype=np.float64)
    return {
        "q_rot": posenc.apply_rope(q[None, :], [m], inv_freq=[theta])[0],
        "k_rot": posenc.apply_rope(k[None, :], [n], inv_freq=[theta])[0],
        "trajectory": posenc.apply_rope(np.tile(q, (pos_traj.size, 1)), pos_traj, inv_freq=[theta]),
        "angles": posenc.pair_angles(q, k, m, n, theta),
        "score": float(posenc.rope_score_matrix(q, k, [m], [n], inv_freq=[theta])[0, 0]),
        "score_rel": float(posenc.rope_score_matrix(q, k, [0], [n - m], inv_freq=[theta])[0, 0]),
        "rotation": posenc.rotation_2x2(m * theta),
    }


@cached(max_entries=16)
def full_matrix(m: int, head_dim: int, base: float, layout: str) -> tuple[np.ndarray, np.ndarray]:
    return posenc.rope_matrix(m, head_dim, base=base, layout=layout), posenc.pair_indices(head_dim, layout=layout)


q, k = as_vector(q_in), as_vector(k_in)
defaults = {"q": np.array([1.0, 0.5]), "k": np.array([-0.4, 1.2])}
for name, vec in (("q", q), ("k", k)):
    if not np.any(vec):
        st.warning(
            f"{name} is the zero vector: it has no direction, so there is no angle to rotate. "
            f"Showing the default {name} = ({defaults[name][0]:g}, {defaults[name][1]:g}) instead."
        )
q = q if np.any(q) else defaults["q"]
k = k if np.any(k) else defaults["k"]

theta = float(posenc.inverse_frequencies(head_dim, base=base)[j])
nums = plane_numbers(q, k, m, n, theta, traj_m)
ang = nums["angles"]
deg = np.degrees  # display only

starts = live.starts((tuple(q), tuple(k)))
live.show(
    save_as="rope_plane",
    chart=shared(charts.live_pair_chart)(
        q,
        k,
        base_options=PARAMS["base"].options,
        p_max=PARAMS["m"].max,
        d_range=(PARAMS["head_dim"].min, PARAMS["head_dim"].max),
        **{key: starts[key] for key in charts.LIVE_PARAMS},
    ),
    container=live_slot,
    width="content",
)
live_slot.caption(
    "Drag **m**, **n**, the head size **d**, the base **b** or the pair **j** above the plane (or focus one and "
    "press ← →): q and k turn and θ_j follows in your browser at once; when you let go, the rest of the page and "
    "the link follow. The vectors q and k, the layout and a real model's settings are in the sidebar "
    "(› at the top left)."
)

# -------------------------------------------------------------- one pair | the whole head
# Only the open tab is computed and drawn (the choice is in the URL: ?rope_view=Whole+head).
tab_pair, tab_head = widget("rope_view")
with tab_pair:
    if tab_pair.open:
        # A wrapping row, not st.columns: the plane keeps its size (equal units on both axes) and
        # the metric cards sit beside it where there is room, below it where there is not (a
        # narrow window, or presentation mode's larger chart with the sidebar open).
        row = st.container(horizontal=True, gap="medium", key="rope_pair_row")
        with row:
            arrows = pd.DataFrame(
                {
                    "vector": ["q", "k", "q", "k"],
                    "state": ["before", "before", "after", "after"],
                    "label": ["q", "k", f"q at m={m}", f"k at n={n}"],
                    "x": [q[0], k[0], nums["q_rot"][0], nums["k_rot"][0]],
                    "y": [q[1], k[1], nums["q_rot"][1], nums["k_rot"][1]],
                }
            )
            small = 0.45 * min(np.hypot(*q), np.hypot(*k))
            turn_q = float(posenc.wrap_angle(m * theta))  # the rotation of q, modulo full turns
            arcs = pd.DataFrame(
                {
                    "vector": ["q", "k"],
                    "label": [f"mθ ≡ {deg(turn_q):.1f}°", f"{deg(ang.measured):.1f}°"],
                    "from_x": [q[0], nums["k_rot"][0]],
                    "from_y": [q[1], nums["k_rot"][1]],
                    "sweep": [turn_q, ang.measured],
                    "radius": [0.3 * np.hypot(*q), small],
                }
            )
            traj = nums["trajectory"]
            trajectory = pd.DataFrame({"position": np.arange(traj_m + 1), "x": traj[:, 0], "y": traj[:, 1]})
            show_chart(
                shared(charts.plane_chart)(
                    arrows,
                    trajectory=trajectory,
                    arcs=arcs,
                    title=f"Pair j = {j}: θ_j = {theta:.4g} rad ({deg(theta):.3g}°) per position",
                    subtitle=f"dashed: before · solid: after rotation · dots: q at positions 0 … {traj_m}",
                ),
                width="content",
            )

        with row.container(width="stretch", key="rope_pair_metrics"):
            st.markdown("**The angle between them moves by (m − n)·θ_j**")
            c1, c2 = st.columns(2)
            c1.metric("∠(k → q) before", f"{deg(ang.before):.2f}°", help="φ_q − φ_k, wrapped into (−180°, 180°].")
            c2.metric(
                "(m − n)·θ_j",
                f"{deg(ang.offset):.2f}°",
                help=f"({m} − {n}) × {theta:.6g} rad = {(m - n) * theta:.6g} rad, wrapped into (−180°, 180°].",
            )
            c1.metric("predicted ∠ after", f"{deg(ang.predicted):.2f}°", help="∠(k → q) + (m − n)·θ_j, wrapped.")
            c2.metric(
                "measured ∠ after",
                f"{deg(ang.measured):.2f}°",
                help="∠(k at n → q at m), measured on the two rotated vectors (atan2), independently of the "
                "prediction.",
            )
            st.markdown("**Lengths do not change; the score sees only n − m**")
            c1, c2 = st.columns(2)
            c1.metric("‖q‖ before", f"{np.hypot(*q):.6f}")
            c2.metric(f"‖q‖ after (m = {m})", f"{np.hypot(*nums['q_rot']):.6f}")
            c1.metric("⟨R_m q, R_n k⟩", f"{nums['score']:.6f}", help="Both vectors rotated by their own positions.")
            c2.metric(
                "⟨q, R_(n−m) k⟩",
                f"{nums['score_rel']:.6f}",
                help=f"Only k rotated, by the offset n − m = {n - m}: the same number.",
            )
        st.latex(charts.rotation_latex(m, theta, nums["rotation"], q, nums["q_rot"]))

with tab_head:
    if tab_head.open:
        st.subheader(f"{head_dim} coordinates, {head_dim // 2} planes, one rotation matrix")
        r_full, pairs = full_matrix(m, head_dim, base, layout)
        # Wrapping row as on the first tab: the matrix at its own size, the pair map beside it where
        # there is room for its title, else below it at full width.
        row = st.container(horizontal=True, gap="medium", key="rope_head_row")
        show_chart(
            shared(charts.rope_matrix_heatmap)(r_full, position=m, pair=tuple(int(c) for c in pairs[j]), layout=layout),
            container=row,
            width="content",
        )
        with row.container(width="stretch", key="rope_head_pairs"):
            show_chart(shared(charts.pair_map_chart)(pairs, highlight=j, layout=layout), width="stretch")
            st.caption(
                "Each dot is one coordinate of q or k; its height is the pair it rotates with. "
                "Switch **RoPE pair layout** in the sidebar to see the other convention: the same rotations, "
                "the coordinates merely numbered differently."
            )

thetas = posenc.inverse_frequencies(head_dim, base=base)
notice_list(
    [
        "The arrow keeps its length at every position: the dots of the trajectory all sit on one circle.",
        "The measured angle between the rotated vectors equals the old angle plus (m − n)·θ_j: move m and n "
        "by the same amount and the numbers in the metric cards stay the same; only the arrows turn.",
        (f"Pair {j} turns θ_{j} = {np.degrees(thetas[j]):.4g}° per position; " if j else "")
        + (
            f"pair 0 turns exactly one radian ({np.degrees(1.0):.4g}°) per position and the slowest pair, "
            f"j = {thetas.size - 1}, {np.degrees(thetas[-1]):.3g}° (base {base:,.0f}, d = {head_dim})."
            if thetas.size > 1
            else f"with d = 2 there is only pair 0, which turns exactly one radian ({np.degrees(1.0):.4g}°) per "
            "position whatever the base."
        ),
        "The d×d matrix (tab **Whole head**) is zero except for one 2×2 rotation per pair. In the half layout a "
        "pair's four cells lie on three diagonals (the main one, and d/2 above and below it); in the interleaved "
        "layout they touch (2×2 blocks on the diagonal).",
    ]
)

page_footer(
    "rope",
    dict(q=q, k=k, m=m, n=n, j=j, head_dim=head_dim, base=base, layout=layout),
    data=lambda: matrix_frame(full_matrix(m, head_dim, base, layout)[0]),
    file_name=f"rope_matrix_m{m}_d{head_dim}_b{base:g}_{layout}.csv",
    data_label="Download the rotation matrix R_m as CSV",
)
