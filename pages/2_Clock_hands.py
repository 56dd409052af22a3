"""Frequency clock hands: every (sin, cos) pair of the sinusoidal encoding as the hand of a clock,
animated in the browser, with the odometer of total turns and the numbers behind it.

URL keys: d_model, base, m (the position p; shared with the RoPE pages), n_clocks.
All four are the chart's own sliders (explorer.liveparam; issue #36 for d, b and the clocks): the chart
moves in the browser and the page and the link follow when a drag ends or play stops. The play
checkbox and speed menu live in the browser only.
"""

import streamlit as st

from explorer.layout import cached, formula, intro, notice_list, page_setup

page_setup("clocks")  # before the imports below: see explorer.layout

import math

import posenc
from explorer import mode
from explorer.charts import clocks as charts
from explorer.exports import page_footer
from explorer.liveparam import LiveChart
from explorer.params import PARAMS, escape_markdown
from explorer.render import shared

with intro():
    st.markdown(
        "Think of every (sin, cos) pair of the encoding as the hand of a clock. One token further "
        "turns hand j by the same angle θ_j = b^(−2j/d) wherever you are: the first hand by exactly one "
        "radian, each later hand by less, down to the last hand's b^(−(d−2)/d) radians. The position is "
        "written in the hands the way the time is written on a watch: the fast hands give the fine "
        "detail, the slow hands the big picture."
    )
    formula(
        r"\begin{gathered}\varphi_j(p) = p\,\theta_j,\qquad \theta_j = b^{-2j/d},\qquad"
        r" \lambda_j = \frac{2\pi}{\theta_j}\\ (x_j, y_j) = \big(\sin p\theta_j,\ \cos p\theta_j\big)"
        r" = \big(PE(p, 2j),\ PE(p, 2j+1)\big)\end{gathered}",
        caption="Hand j turns clockwise by θ_j radians per token and completes a turn every λ_j tokens.",
    )

P_MAX = PARAMS[charts.LIVE_KEY].max  # the in-chart slider is the URL's p
#: The slowest hand the sliders can reach (the largest d and base): the odometer's axis spans it.
SLOWEST_THETA = float(posenc.inverse_frequencies(PARAMS["d_model"].max, base=float(max(PARAMS["base"].options)))[-1])
NEAR_REPEAT = 44  # 44 tokens turn the first hand (1 rad per token) by 7 turns and 1.0°


def clock_notices(theta, wl, *, base: float, p_max: int) -> list[str]:
    """ "What to notice", computed from the settings on screen."""
    n_pairs = theta.size
    near_repeat = abs(math.remainder(NEAR_REPEAT * theta[0], 2 * math.pi))  # θ_0 = 1 rad: 44 tokens ≈ 7 turns
    first = (
        f"The first hand completes a turn every 2π ≈ {wl[0]:.2f} tokens, so on its own it almost repeats: "
        f"positions p and p + {NEAR_REPEAT} differ on it by only {math.degrees(near_repeat):.1f}°. "
    )
    if n_pairs == 1:
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
    return [
        first + "The slower hands tell such positions apart.",
        f"The last hand needs {charts.wavelength_label(wl[-1])} tokens for one turn "
        f"({math.degrees(theta[-1]):.3g}° per token): from p = 0 to p = {p_max:,} it makes {turns:.3g} turns"
        + (
            ", less than one, so it alone says roughly where in the text you are."
            if turns < 1
            else ", so even the slowest hand repeats within the longest text"
            + (": a larger base b slows it down." if base < PARAMS["base"].options[-1] else ".")
        ),
        "Every token turns each hand by the same angle, wherever you are: a shift by k tokens "
        "is the same rotation for every position (that is why the encoding makes offsets easy).",
        "A larger base b slows every hand after the first (the first always turns one radian per token), "
        "and the odometer line gets steeper.",
        PLAY_NOTICE,
    ]


#: True at every speed and setting: whether a hand looks still depends on its angle per frame.
PLAY_NOTICE = (
    "Press play and raise the speed: a hand that turns by nearly a whole number of turns from one frame to "
    "the next seems to stand still or to turn backwards (the frames sample it too slowly, like a wagon "
    "wheel in a film); a hand moves smoothly only while it turns by a small angle per frame."
)

# The position p, the head size d, the base b and the number of clocks are the chart's own sliders
# (issue #36): the chart follows them in the browser, and the table, the sentences and the link when a
# drag ends. n_clocks is read after d_model: at most d/2 clocks (charts.live_limits).
live = LiveChart("clocks_live", charts.LIVE_PARAMS, limits=charts.live_limits)
position, d_model, base, n_clocks = (live.values[key] for key in charts.LIVE_PARAMS)
base = float(base)


@cached(max_entries=16)
def frequencies(d_model: int, base: float):
    """(θ_j, λ_j) for every pair."""
    return posenc.inverse_frequencies(d_model, base=base), posenc.wavelengths(d_model, base=base)


@cached(max_entries=32)
def hands_at(p: int, d_model: int, base: float):
    """Angle p·θ_j, sin and cos of every pair at position p."""
    theta = posenc.inverse_frequencies(d_model, base=base)
    angle = posenc.rope_angles([p], theta)[0]  # (d/2,)
    row = posenc.sinusoidal_encoding([p], d_model, base=base, layout="interleaved")[0]  # (d,)
    return angle, row[0::2], row[1::2]


try:
    theta, wl = frequencies(d_model, base)
    angle, sin, cos = hands_at(position, d_model, base)
except ValueError as err:  # unreachable within the params' ranges; never crash on it
    st.error(f"Could not compute with these settings ({escape_markdown(str(err))}); showing the defaults.")
    d_model, base, position = PARAMS["d_model"].default, float(PARAMS["base"].default), PARAMS["m"].default
    n_clocks = min(n_clocks, d_model // 2)
    theta, wl = frequencies(d_model, base)
    angle, sin, cos = hands_at(position, d_model, base)

pairs = charts.clock_pairs(d_model // 2, n_clocks)
starts = live.starts(None)  # the spec depends on nothing but the sliders' starts
live.show(
    save_as="clock_hands",
    chart=shared(charts.clock_chart)(
        position=starts[charts.LIVE_KEY],
        d_model=starts["d_model"],
        base=float(starts["base"]),
        n_clocks=starts["n_clocks"],
        p_max=P_MAX,
        d_range=(PARAMS["d_model"].min, PARAMS["d_model"].max),
        n_max=PARAMS["n_clocks"].max,
        base_options=PARAMS["base"].options,
        slowest_theta=SLOWEST_THETA,
        phone=mode.on_a_phone(),  # a narrow panel, shown near its own size
    ),
    width="content",
    container=st.container(key="clock_chart"),  # explorer/assets.py puts its controls above the clocks
)
st.caption(
    "Right above the clocks: drag **position p**, type it or step it by ±1 in the box next to it, or "
    "tick **▶ play** and pick a speed; drag the **head size d**, the **base b** or the number of **clocks**. "
    "The chart follows in your browser, frame by frame, without asking the server; when you let go, or "
    "stop play (p then rests on its whole token), the table below, the sentences and the link follow."
)
with st.expander("How the animation works, and why this way"):
    st.markdown(
        "The chart carries its parameters, the position p, the head size d, the base b and the number of "
        "clocks, bound to the sliders above the clocks. Everything is computed from them inside the chart: "
        "θ_j = b^(−2j/d), which pairs get a clock, and each hand's tip = (sin p·θ_j, cos p·θ_j). Play adds a Vega "
        f"**timer**: every {charts.FRAME_MS} ms it moves p on by speed ÷ {charts.FPS} tokens while "
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

st.subheader(f"The numbers at p = {position}")
table = charts.pair_table(pairs, theta[pairs], wl[pairs], angle[pairs], sin[pairs], cos[pairs])
st.dataframe(
    table,
    hide_index=True,
    column_config={
        "θ_j (rad/token)": st.column_config.NumberColumn(format="%.6g"),
        "λ_j (tokens)": st.column_config.NumberColumn(format="%.6g"),
        "angle p·θ_j (rad)": st.column_config.NumberColumn(format="%.6g"),
        "turns": st.column_config.NumberColumn(format="%.6g"),
        "hand angle (° clockwise from 12)": st.column_config.NumberColumn(format="%.2f"),
        "sin = x": st.column_config.NumberColumn(format="%.5f"),
        "cos = y": st.column_config.NumberColumn(format="%.5f"),
    },
)
n_pairs = d_model // 2
st.caption(
    (
        f"The {len(pairs)} pairs with a clock (of {n_pairs})."
        if len(pairs) > 1
        else f"The pair with a clock (of {n_pairs})."
    )
    + " sin and cos are the encoding's dimensions 2j and 2j + 1 at this position (interleaved layout)."
)

notice_list(clock_notices(theta, wl, base=base, p_max=P_MAX))

page_footer(
    "clocks",
    dict(d_model=d_model, base=base, p=position, n_clocks=n_clocks),
    data=table,
    file_name=f"clock_hands_d{d_model}_b{base:g}_p{position}.csv",
    data_label="Download the table as CSV",
)
