"""The sentences of the Frequency clock hands page (pages/2_Clock_hands.py): pure, values in, strings out."""

import math

import numpy as np

from explorer.text import count

INTRO = (
    "Think of every (sin, cos) pair of the encoding as the hand of a clock. One token further "
    "turns hand j by the same angle θ_j = b^(−2j/d) wherever you are: the first hand by exactly one "
    "radian, each later hand by less, down to the last hand's b^(−(d−2)/d) radians. The position is "
    "written in the hands the way the time is written on a watch: the fast hands give the fine "
    "detail, the slow hands the big picture."
)
FORMULA_CAPTION = "Hand j turns clockwise by θ_j radians per token and completes a turn every λ_j tokens."
LIVE_CAPTION = (
    "Right above the clocks: drag **position p**, type it or step it by ±1 in the box next to it, or "
    "tick **▶ play** and pick a speed; drag the **head size d**, the **base b** or the number of **clocks**. "
    "The chart follows in your browser, frame by frame, without asking the server; when you let go, or "
    "stop play (p then rests on its whole token), the table below, the sentences and the link follow."
)

#: 44 tokens turn the first hand (1 rad per token) by 7 turns and 1.0°.
NEAR_REPEAT = 44
#: True at every speed and setting: whether a hand looks still depends on its angle per frame.
PLAY_NOTICE = (
    "Press play and raise the speed: a hand that turns by nearly a whole number of turns from one frame to "
    "the next seems to stand still or to turn backwards (the frames sample it too slowly, like a wagon "
    "wheel in a film); a hand moves smoothly only while it turns by a small angle per frame."
)


def animation_explained(frame_ms: int, fps: int) -> str:
    """The expander's text: how the chart animates (a Vega timer every `frame_ms` ms, `fps` frames a second)."""
    return (
        "The chart carries its parameters, the position p, the head size d, the base b and the number of "
        "clocks, bound to the sliders above the clocks. Everything is computed from them inside the chart: "
        "θ_j = b^(−2j/d), which pairs get a clock, and each hand's tip = (sin p·θ_j, cos p·θ_j). Play adds a Vega "
        f"**timer**: every {frame_ms} ms it moves p on by speed ÷ {fps} tokens while "
        "the box is ticked, and the slider follows. Between whole positions the hands move "
        "continuously (the formula works for any real p), so you can watch a hand turn; tokens "
        "sit at the whole numbers.\n\n"
        "Why not Vega-Lite's own animation? Vega-Lite 6 has an experimental one (a `time` "
        "encoding with a selection that listens to the timer). It runs in this Streamlit, but only "
        "for a single plain chart: dials, hands and labels are layers, and a layered chart "
        "refuses to animate. It would also only step through frames prepared on the server. "
        "Instead, Vega-Lite passes any extra key of a parameter on to the Vega signal it "
        "creates, so the parameter p gets a timer event handler directly."
    )


def table_texts(position: int, n_shown: int, n_pairs: int, *, phone: bool = False) -> tuple[str, str]:
    """The table's heading at position p, and its caption: how many of the d/2 pairs have a clock; on a phone, that
    the table (eight columns, wider than the screen) scrolls sideways with its first column in view."""
    which = (
        f"The {n_shown} pairs with a clock (of {n_pairs})." if n_shown > 1 else f"The pair with a clock (of {n_pairs})."
    )
    sin_cos = " sin and cos are the encoding's dimensions 2j and 2j + 1 at this position (interleaved layout)."
    swipe = " Swipe the table sideways for the angles, sin and cos; the pair stays in view." if phone else ""
    return f"The numbers at p = {position}", which + sin_cos + swipe


def notices(theta: np.ndarray, wl: np.ndarray, *, base: float, p_max: int, largest_base: float) -> list[str]:
    """ "What to notice", from the angles θ_j and wavelengths λ_j on screen, the longest text p_max and the
    largest base the page offers."""
    near_repeat = abs(math.remainder(NEAR_REPEAT * theta[0], 2 * math.pi))  # θ_0 = 1 rad: 44 tokens ≈ 7 turns
    first = (
        f"The first hand completes a turn every 2π ≈ {wl[0]:.2f} tokens, so on its own it almost repeats: "
        f"positions p and p + {NEAR_REPEAT} differ on it by only {math.degrees(near_repeat):.1f}°. "
    )
    if theta.size == 1:
        return [
            first + "With d = 2 it is the only hand, so the whole encoding almost repeats: a larger d adds "
            "slower hands that tell such positions apart.",
            "Every token turns the hand by the same angle, one radian, wherever you are: a shift by k tokens "
            "is the same rotation for every position (that is why the encoding makes offsets easy).",
            "With d = 2 the base b changes nothing: the only hand is the first, which turns one radian per token "
            "whatever b is.",
            PLAY_NOTICE,
        ]
    turns = p_max * theta[-1] / (2 * math.pi)  # turns of the last hand from p = 0 to p = p_max
    if turns < 1:
        repeats = ", less than one, so it alone says roughly where in the text you are."
    else:
        slower = ": a larger base b slows it down." if base < largest_base else "."
        repeats = ", so even the slowest hand repeats within the longest text" + slower
    return [
        first + "The slower hands tell such positions apart.",
        f"The last hand needs {wavelength_label(wl[-1])} tokens for one turn "
        f"({math.degrees(theta[-1]):.3g}° per token): from p = 0 to p = {p_max:,} it makes {turns:.3g} turns" + repeats,
        "Every token turns each hand by the same angle, wherever you are: a shift by k tokens "
        "is the same rotation for every position (that is why the encoding makes offsets easy).",
        "A larger base b slows every hand after the first (the first always turns one radian per token), "
        "and the odometer line gets steeper.",
        PLAY_NOTICE,
    ]


def wavelength_label(lam: float) -> str:
    """ "6.28", "19.9", "628", "54,410": three significant digits, whole tokens from 100 on (as the clocks'
    labels in the browser write it)."""
    return f"{lam:.3g}" if lam < 100 else f"{lam:,.0f}"


def clocks_description(position: float, d_model: int, base: float, n_clocks: int) -> str:
    """The clock chart's description, at its starting settings."""
    return (
        f"Clock hands, starting at position p = {position:g}, head size d = {d_model}, base b = {base:g} and "
        f"{count(n_clocks, 'clock')} (the in-chart controls change them): one clock per chosen pair j, spread evenly from "
        "the fastest pair to the slowest, each labelled with j and its wavelength λ_j in tokens. Each hand turns "
        "clockwise by θ_j = b^(−2j/d) radians per token. Below, the odometer: the turns made by every pair at p, "
        "on a log axis, falling from the first pair to the last."
    )


def clocks_title_expr(clocks: str, pairs: str, *, phone: bool) -> str:
    """The clock panel's title as a Vega expression, so the browser writes it at the sliders' values:
    ``clocks`` and ``pairs`` are the expressions for the clocks drawn and for d/2. On a phone's narrow
    panel it is two lines (a Vega array)."""
    which = (
        f"{clocks} == {pairs} ? 'One clock per pair' : "
        f"{clocks} == 1 ? 'One clock, for pair 0 of the ' + {pairs} : "
        f"'One clock for each of ' + {clocks} + ' of the ' + {pairs} + ' pairs'"
    )
    turns = "the hand of pair j turns by θ_j per token"
    return f"[({which}) + ':', '{turns}']" if phone else f"({which}) + ': {turns}'"
