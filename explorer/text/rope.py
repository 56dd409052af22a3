"""The sentences of the RoPE rotation page (pages/3_RoPE_rotation.py) and of its charts' titles and
descriptions (explorer/charts/rope.py): values in, strings out. Angles are in radians in, degrees out."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

INTRO = (
    "RoPE does not add anything to a query or key. It splits the vector into pairs of coordinates "
    "and turns each pair, like a clock hand, by an angle proportional to the token's position; pair "
    "j turns θ_j radians per position. Turning never changes a length, and when a query and a key "
    "are compared only the *difference* of their turns survives — that is how relative position "
    "gets into the attention score."
)
FORMULA_CAPTION = (
    "(a, b) are the two coordinates of pair j: (j, j + d/2) in the half layout, (2j, 2j + 1) "
    "in the interleaved one. Angles below are measured counter-clockwise."
)
SLIP = (
    "A slip met in tutorials: “R(m)·R(n) = R(m − n)”. Two rotations add their angles, R(m)·R(n) = "
    "R(m + n); the score compares a rotated query with a rotated key, and R(m)ᵀ·R(n) = R(n − m) is "
    "what leaves only the offset in it."
)
LIVE_CAPTION = (
    "Drag **m**, **n**, the head size **d**, the base **b**, the pair **j** or q's and k's own numbers above the "
    "plane (or focus one and press ← →): q and k turn and θ_j follows in your browser at once; when you let go, "
    "the rest of the page and the link follow. How q and k are given (x and y, or angle and length), the layout "
    "and a real model's settings are in the sidebar (› at the top left)."
)
MEASURED_HELP = "∠(k at n → q at m), measured on the two rotated vectors (atan2), independently of the prediction."
PAIR_MAP_CAPTION = (
    "Each dot is one coordinate of q or k; its height is the pair it rotates with. "
    "Switch **RoPE pair layout** in the sidebar to see the other convention: the same rotations, "
    "the coordinates merely numbered differently."
)


def zero_vector_warning(name: str, default: Sequence[float]) -> str:
    """`name` ("q" or "k") was given as (0, 0); the page's numbers and pictures below the live plane use `default`
    instead (the plane draws what its sliders say)."""
    return (
        f"{name} is the zero vector: it has no direction, so there is no angle to rotate. The live plane draws it "
        f"as it is (every score with it is 0); the numbers and pictures below use the default "
        f"{name} = ({default[0]:g}, {default[1]:g}) instead."
    )


def plane_title(j: int, theta: float) -> tuple[str, str]:
    """The rotation plane's title (pair j and its θ_j per position) and subtitle (M is the chart's own slider)."""
    return (
        f"Pair j = {j}: θ_j = {theta:.4g} rad ({np.degrees(theta):.3g}°) per position",
        "dashed: before · solid: after rotation · dots: q at 0 … M",
    )


def plane_description(vectors: Sequence[str], states: Sequence[str], subtitle: str | None) -> str:
    """The rotation plane's description for screen readers: which vectors it draws, in which states."""
    names = " and ".join(dict.fromkeys(vectors))
    shown = f"{names} ({' and '.join(states)} rotation)" if names else "no vector"
    return f"Chart: one rotation plane, {shown} as arrows" + (f"; {subtitle}" if subtitle else "")


def live_plane_description(p_max: int) -> str:
    """The live plane's description; no number of the pair's (a new pair changes its rows only)."""
    return (
        "RoPE live plane: one pair's query q rotated to position m and key k rotated to position n, drawn "
        f"as two arrows in the plane; the sliders m and n (from 0 to {p_max}) above it turn them, the "
        "sliders head size d, base b and pair j set the pair's frequency, and the last four sliders set q and k "
        "before any rotation. The text under the plane gives the frequency, m − n, the change of the angle "
        "between them and the two equal scores."
    )


def pair_map_subtitle(j: int, a: int, b: int, head_dim: int) -> str:
    return f"red: pair {j}, which rotates coordinates {a} and {b} (d = {head_dim})"


def head_heading(head_dim: int) -> str:
    planes = head_dim // 2
    return f"{head_dim} coordinates, {planes} plane{'s' if planes > 1 else ''}, one rotation matrix"


def metric_groups(q, q_rot, m: int, n: int, theta: float, angles, score: float, score_rel: float) -> list:
    """The metric cards beside the plane, as [(heading, [(label, value, help or None), …]), …]: two
    groups of four, two columns each. angles: posenc.PairAngles (before, offset, predicted, measured)."""
    wrapped = "wrapped into (−180°, 180°]."
    angle_cards = [
        ("∠(k → q) before", angles.before, f"φ_q − φ_k, {wrapped}"),
        ("(m − n)·θ_j", angles.offset, f"({m} − {n}) × {theta:.6g} rad = {(m - n) * theta:.6g} rad, {wrapped}"),
        ("predicted ∠ after", angles.predicted, "∠(k → q) + (m − n)·θ_j, wrapped."),
        ("measured ∠ after", angles.measured, MEASURED_HELP),
    ]
    norm_cards = [
        ("‖q‖ before", f"{np.hypot(*q):.6f}", None),
        (f"‖q‖ after (m = {m})", f"{np.hypot(*q_rot):.6f}", None),
        ("⟨R_m q, R_n k⟩", f"{score:.6f}", "Both vectors rotated by their own positions."),
        ("⟨q, R_(n−m) k⟩", f"{score_rel:.6f}", f"Only k rotated, by the offset n − m = {n - m}: the same number."),
    ]
    return [
        (
            "**The angle between them moves by (m − n)·θ_j**",
            [(a, f"{np.degrees(v):.2f}°", h) for a, v, h in angle_cards],
        ),
        ("**Lengths do not change; the score sees only n − m**", norm_cards),
    ]


def notices(j: int, thetas: np.ndarray, base: float, head_dim: int) -> list[str]:
    """The "What to notice" list under the page; `thetas` are the head's θ_0 … θ_(d/2−1) (radians per position)."""
    slowest = (
        f"pair 0 turns exactly one radian ({np.degrees(1.0):.4g}°) per position and the slowest pair, "
        f"j = {thetas.size - 1}, {np.degrees(thetas[-1]):.3g}° (base {base:,.0f}, d = {head_dim})."
        if thetas.size > 1
        else f"with d = 2 there is only pair 0, which turns exactly one radian ({np.degrees(1.0):.4g}°) per "
        "position whatever the base."
    )
    return [
        "The arrow keeps its length at every position: the dots of the trajectory all sit on one circle.",
        "The measured angle between the rotated vectors equals the old angle plus (m − n)·θ_j: move m and n "
        "by the same amount and the numbers in the metric cards stay the same; only the arrows turn.",
        (f"Pair {j} turns θ_{j} = {np.degrees(thetas[j]):.4g}° per position; " if j else "") + slowest,
        "The d×d matrix (tab **Whole head**) is zero except for one 2×2 rotation per pair. In the half layout a "
        "pair's four cells lie on three diagonals (the main one, and d/2 above and below it); in the interleaved "
        "layout they touch (2×2 blocks on the diagonal).",
    ]
