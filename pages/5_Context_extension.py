"""Context extension: how RoPE scaling methods let a model run past the length it was trained on.

URL parameters (stable: links and model presets fill them; registry in explorer/params.py,
section "Context extension"). Names follow a config.json rope block where one exists.

    head_dim          head dimension d (shared key), 2 … 256, even
    base              rope_theta b (shared key), one of 10 … 1000000
    train_len         original_max_position_embeddings L, 16 … 262144
    target_len        target length T, 16 … 1048576; also the current seq_len of dynamic / longrope
    rope_type         the method: a key of posenc.ROPE_SCALING
                      (default, linear, ntk, dynamic, yarn, llama3, longrope)
    factor            scaling factor s, 1 … 128 (step 0.25)                   all but default
    beta_fast         1/2 … 256 (step 0.5)                                    yarn
    beta_slow         1/4 … 128 (step 0.25)                                   yarn
    mscale            0 … 4 (step 0.001), 0 = key absent                      yarn
    mscale_all_dim    0 … 4 (step 0.001), 0 = key absent                      yarn
    attention_factor  0 … 4 (step 0.01), 0 = key absent (computed)            yarn
    truncate          true / false                                            yarn
    low_freq_factor   1/4 … 64 (step 0.25)                                    llama3
    high_freq_factor  1/4 … 64 (step 0.25)                                    llama3
    short_gen         short_factor list: ones | ramp | constant               longrope
    long_gen          long_factor list:  ones | ramp | constant               longrope
    ext_view          the open tab: Wavelengths | Rescaling | Attention | Interpolation | Precision
                      (only the open tab is computed and drawn)

A method's own parameters are read (and their widgets shown) only while that method is selected.
LongRoPE's real per-pair lists cannot be given in the URL; the generators stand in for them.
Example, Llama 3.1 8B: ?rope_type=llama3&head_dim=128&base=500000&train_len=8192&target_len=131072&factor=8
"""

import streamlit as st

from explorer.layout import cached, formula, intro, notice_list, page_setup

page_setup("extension")  # before the imports below: see explorer.layout

import math

import numpy as np

import posenc
from explorer import presets_ui, ropeblock
from explorer.charts import extension as charts
from explorer.exports import extension_frame, page_footer
from explorer.liveparam import LiveChart
from explorer.params import PARAMS, escape_markdown, widget
from explorer.render import shared, show_chart
from explorer.text import methods

with intro():
    st.markdown(
        "A RoPE model trained on L tokens has only ever seen the angles m·θ_j for m < L. Run it on a "
        "longer text and its slow pairs — those that never completed a full turn in training — reach "
        "angles it has never met. Every context-extension method answers the same question differently: "
        "which pairs to slow down, by how much, and whether to sharpen attention to compensate."
    )

# ------------------------------------------------------------------------------------- controls
# The method, the lengths and the factor are the page's main controls: in the main area, next to
# the charts they move (the sidebar starts collapsed on phones and in presentation mode); the
# model's sizes and each method's finer knobs stay in the sidebar.
# The real-model select first: it fills the widgets below before they are drawn.
preset = presets_ui.model_picker("extension", container=st.sidebar)
with st.container(border=True, key="ext_controls"):
    rope_type = widget("rope_type")  # one line per option, "yarn · YaRN" (the Param's labels)
    c_l, c_t, c_s = st.columns(3)
    train_len = widget("train_len", container=c_l)
    target_len = widget("target_len", container=c_t)
    own = ropeblock.METHOD_PARAMS.get(rope_type, ())
    values = {"factor": widget("factor", container=c_s)} if "factor" in own else {}
    # one caption line under the three boxes (a caption under one box alone would add a row)
    notes = [f"s·L = {values['factor'] * train_len:,.0f} tokens: the length this factor is made for."] if values else []
    if rope_type in ("dynamic", "longrope"):
        notes.append(f"The current sequence length is the target length T = {target_len:,}.")
    notes.append(
        "The head size, the base, a real model's settings and the method's other knobs are in the sidebar (›)."
    )
    st.caption(" ".join(notes))

with st.sidebar:
    st.subheader("Model")
    head_dim = widget("head_dim")
    base = widget("base")
    st.subheader("Method settings")
    values.update({name: widget(name) for name in own if name != "factor"})
    if len(values) == len([n for n in own if n == "factor"]):
        st.caption("This method has no other settings.")
    values = {name: values[name] for name in own}  # the declared order


@cached(max_entries=64)
def extension(block: dict, head_dim: int, train_len: int, target_len: int) -> ropeblock.Extension:
    return ropeblock.extension_data(block, head_dim, train_len=train_len, target_len=target_len)


@cached(max_entries=16)
def factor_sweep(block: dict, head_dim: int, train_len: int, target_len: int) -> ropeblock.FactorSweep | None:
    grid = ropeblock.factor_grid(PARAMS["factor"].min, PARAMS["factor"].max, PARAMS["factor"].step)
    return ropeblock.factor_sweep(block, head_dim, train_len=train_len, target_len=target_len, factors=grid)


@cached(max_entries=16)
def phase_errors(scaled_inv_freq, target_len: int):
    # bfloat16 imports torch (lazily, inside posenc.precision) — only here, only for this chart.
    return ropeblock.phase_error_curves(scaled_inv_freq, target_len)


block = ropeblock.build_rope_block(rope_type, values, base=base, train_len=train_len, head_dim=head_dim)
block = presets_ui.preset_block(block, preset)  # a LongRoPE preset's published lists
ext = extension(block, head_dim, train_len, target_len)
used_type = posenc.rope_type_of(ext.block)
if ext.error:
    st.error(
        f"This rope block is not valid, so the charts show no scaling instead: {escape_markdown(ext.error)}",
        icon=":material/error:",
    )
factor = ext.block.get("factor")

# ------------------------------------------------------ the main chart, right under its controls
st.subheader("Which pairs leave the training range")
# The chart carries every factor its own slider s can reach (issue #36): s moves it in the browser and
# the page follows on release; the box above stays for exact entry.
# The sweep replaces the factor, so it is cached on the rest of the block: a release of s reuses it.
others = {k: v for k, v in ext.block.items() if k != "factor"}
sweep = factor_sweep(others, head_dim, train_len, target_len) if factor is not None and not ext.error else None
if sweep is not None and ropeblock.on_grid(factor, sweep.factors):
    live = LiveChart("ext_live", charts.LIVE_PARAMS)
    starts = live.starts((tuple(sorted((k, repr(v)) for k, v in others.items())), head_dim, train_len, target_len))
    live.show(
        save_as="context_extension",
        chart=shared(charts.angle_reach_live_chart)(
            ext.train_angle,
            sweep.target_angle,
            sweep.out_of_distribution,
            factors=sweep.factors,
            start=starts["factor"],
            train_len=train_len,
            target_len=target_len,
        ),
        width="stretch",
    )
else:
    show_chart(
        save_as="context_extension",
        chart=shared(charts.angle_reach_chart)(
            ext.train_angle, ext.target_angle, ext.out_of_distribution, train_len=train_len, target_len=target_len
        ),
        width="stretch",
    )

# ------------------------------------------------------------------------------------- formula
st.subheader(methods.label(used_type))
formula(  # the method's declared rule (posenc.methods) and what it does, in words (explorer.text.methods)
    posenc.ROPE_METHODS[used_type].latex, caption=methods.summary(used_type)
)
formula(
    r"\text{pair } j \text{ is out of distribution at } T \iff T\,\theta'_j > L\,\theta_j"
    r"\ \text{ and }\ L\,\theta_j < 2\pi",
    caption="θ_j = b^(−2j/d) as trained, θ′_j after scaling, a = attention factor (multiplies cos "
    "and sin, so logits scale by a²).",
)

# ------------------------------------------------------------------------------------- metrics
n_pairs = ext.inv_freq.size
n_ood = int(ext.out_of_distribution.sum())
cols = st.columns(4)
cols[0].metric("Attention factor a", f"{ext.attention_factor:.4f}")
cols[1].metric("Logit multiplier a²", f"{ext.logit_multiplier:.4f}")
change = n_ood - ext.out_of_distribution_unscaled
cols[2].metric(
    "Pairs out of distribution",
    f"{n_ood} of {n_pairs}",
    delta=None
    if used_type == "default"
    else f"{abs(change)} {'fewer' if change < 0 else 'more'} than unscaled"
    if change
    else "as many as unscaled",
    delta_arrow="down" if change < 0 else "up" if change > 0 else "off",
    delta_color="normal" if change < 0 else "inverse" if change > 0 else "off",  # fewer is good: green
    help="Pairs whose angle at T exceeds the largest angle of training and that never completed a "
    "full turn in training.",
)
if ext.yarn_range is not None:
    low, high = ext.yarn_range
    cols[3].metric(
        "YaRN ramp: pairs",
        f"{low:g} – {high:g}",
        help="Below low: θ kept (≥ beta_fast turns over L). Above high: θ/s (< beta_slow turns)."
        if low <= high
        else "beta_fast < beta_slow: HF computes the ramp reversed. Up to high: θ/s; from low on: θ kept.",
    )
elif ext.bands is not None:
    counts = [int((ext.bands == b).sum()) for b in ("kept", "smoothed", "divided")]
    cols[3].metric("Pairs kept / smoothed / divided", " / ".join(map(str, counts)))
else:
    cols[3].metric(
        "Slowest pair slowed down by",
        f"× {ext.slowest_division:.4g}" if math.isfinite(ext.slowest_division) else "stopped",
        help="θ_last / θ′_last: how many times more tokens the slowest pair needs per turn.",
    )

if posenc.ROPE_METHODS[used_type].hf_rope_type:
    with st.expander("The rope block these charts use (as in a model's config.json)"):
        st.json(ext.block, expanded=1)
else:
    with st.expander("The rope block these charts use, and how a config.json writes it"):
        st.markdown(
            f"HF transformers has no rope_type **{used_type}** (a config with it fails to load). Static "
            "NTK-aware scaling is written as the plain rope_type with the enlarged base b′ = b·s^(d/(d−2)) "
            "as rope_theta; both blocks below give the same frequencies."
        )
        c_ours, c_hf = st.columns(2)
        c_ours.caption("posenc's shorthand")
        c_ours.json(ext.block, expanded=1)
        c_hf.caption("in a config.json")
        new_base = (
            posenc.ntk_alpha_to_base(float(ext.block["factor"]), head_dim, base=float(ext.block["rope_theta"]))
            if head_dim > 2
            else float(ext.block["rope_theta"]) * float(ext.block["factor"])
        )
        c_hf.json({"rope_type": "default", "rope_theta": new_base}, expanded=1)

# Only the open tab is computed and drawn (the choice is in the URL: ?ext_view=Attention).
tab_wavelengths, tab_rescaling, tab_attention, tab_pi, tab_precision = widget("ext_view")

with tab_wavelengths:
    if tab_wavelengths.open:
        show_chart(
            shared(charts.wavelength_chart)(
                ext.inv_freq, ext.scaled_inv_freq, train_len=train_len, target_len=target_len
            ),
            width="stretch",
        )

with tab_rescaling:
    if tab_rescaling.open:
        show_chart(
            shared(charts.frequency_ratio_chart)(
                ext.inv_freq,
                ext.scaled_inv_freq,
                rope_type=used_type,
                factor=factor,
                bands=ext.bands,
                yarn_range=ext.yarn_range,
                target_len=target_len,
            ),
            width="stretch",
        )
        show_chart(shared(charts.angle_step_chart)(ext.inv_freq, ext.scaled_inv_freq), width="stretch")

with tab_attention:
    if tab_attention.open:
        show_chart(
            shared(charts.score_chart)(
                ext.distances,
                ext.score_before,
                ext.score_after,
                train_len=train_len,
                target_len=target_len,
                attention_factor=ext.attention_factor,
                n_pairs=ext.inv_freq.size,
            ),
            width="stretch",
        )
        yarn_reference = "YaRN with defaults: 0.1·ln s + 1"
        if ext.af_curve is not None:
            af_curves = {methods.label(used_type): ext.af_curve}
            if used_type != "yarn":
                af_curves[yarn_reference] = ropeblock.yarn_reference_curve()
            current, af_factor, af_value = methods.label(used_type), factor, ext.attention_factor
        else:  # no scaling: show what YaRN would do at s = T/L
            af_curves = {yarn_reference: ropeblock.yarn_reference_curve()}
            af_factor = max(target_len / train_len, 1.0)
            current, af_value = yarn_reference, posenc.yarn_get_mscale(af_factor)
        show_chart(
            shared(charts.attention_factor_chart)(
                ext.af_factors,
                af_curves,
                current=current,
                factor=af_factor,
                attention_factor=af_value,
                colors={
                    name: (charts.BEFORE if name == yarn_reference and len(af_curves) > 1 else charts.AFTER)
                    for name in af_curves
                },
                dashed=(yarn_reference,) if len(af_curves) > 1 else (),
            ),
            width="stretch",
        )
        # Llama 4's attention temperature (HF Llama4TextConfig defaults floor_scale 8192, attn_scale 0.1)
        temp_positions = np.unique(np.round(np.geomspace(1, max(target_len, 4 * 8192), 400)))
        show_chart(
            shared(charts.temperature_chart)(
                temp_positions,
                posenc.attention_temperature(temp_positions, floor_scale=8192, attn_scale=0.1),
                np.array([posenc.yarn_get_mscale(max((p + 1) / train_len, 1.0)) ** 2 for p in temp_positions]),
                floor_scale=8192,
                attn_scale=0.1,
                train_len=train_len,
            ),
            width="stretch",
        )

with tab_pi:
    if tab_pi.open:
        pi_factor = factor if factor else max(target_len / train_len, 1.0)
        pi_positions = list(range(9))
        show_chart(
            shared(charts.interpolation_strip_chart)(
                pi_positions,
                posenc.interpolate_positions(pi_positions, factor=pi_factor),
                factor=pi_factor,
                train_len=train_len,
            ),
            width="stretch",
        )
        last = float(posenc.interpolate_positions([target_len - 1], factor=pi_factor)[0])
        st.caption(
            f"With rope_type linear and s = {pi_factor:g}, the last token of T (m = {target_len - 1:,}) "
            f"is rotated as position {f'{last:,.2f}'.rstrip('0').rstrip('.')}"
            + (" — inside the trained range." if last < train_len else f" — still beyond L = {train_len:,}.")
        )

with tab_precision:
    if tab_precision.open:
        with st.spinner("Computing the float16 / bfloat16 angles (the first time loads PyTorch)…"):
            positions, errors = phase_errors(ext.scaled_inv_freq, target_len)
        show_chart(shared(charts.phase_error_chart)(positions, errors), width="stretch")
        if target_len > ropeblock.FLOAT16_MAX_POSITION:
            st.caption(f"Positions stop at {ropeblock.FLOAT16_MAX_POSITION:,}, the largest number a float16 holds.")

n_full_turn = int(np.sum(train_len * ext.inv_freq >= 2 * np.pi))  # pairs that finish a turn within L
af = ext.attention_factor
notice_list(
    [
        (
            f"Every pair ({n_pairs} of {n_pairs}) completes at least one turn within L = {train_len:,}: any angle "
            "it meets later repeats one seen in training, so no pair can leave the trained range."
            if n_full_turn == n_pairs
            else f"{n_full_turn} of {n_pairs} pairs (the fastest, on the left of the charts) complete at least one "
            f"turn within L = {train_len:,}: any angle they meet later repeats one seen in training. The other "
            f"{n_pairs - n_full_turn} never finished a turn; at T = {target_len:,}, {n_ood} of them reach angles "
            "never seen with this block."
        ),
        "**Linear** (Position Interpolation) divides every pair by s: it brings every pair back in range once "
        f"s·L ≥ T (here T/L = {target_len / train_len:,.4g}"
        + (
            f"; with this block's s = {factor:g}, "
            + ("no pair is out of range" if n_ood == 0 else f"{n_ood} pairs are still out of range")
            if used_type == "linear"
            else ""
        )
        + "), and it divides the fastest pair's step per token by s too, so for s > 1 neighbouring tokens become "
        "harder to tell apart.",
        "For s > 1, **NTK-aware** keeps pair 0 exactly and slows every later pair a little more, the slowest s-fold "
        "(for d > 2); **YaRN** "
        "keeps the pairs that turn more than beta_fast times over L, divides those turning fewer than beta_slow "
        "times by s and blends in between; **Llama 3** does the same by wavelength bands (tab **Rescaling**).",
        (
            f"This block multiplies cos and sin by a = {af:.4f}, so every logit is scaled by a² = {af**2:.4f}: "
            + ("attention gets sharper." if af > 1 else "attention gets flatter.")
            if not np.isclose(af, 1.0)
            else "This block's attention factor is 1: logits are not rescaled. YaRN and LongRoPE multiply cos and "
            "sin by a factor a (tab **Attention**), above 1 by default once s > 1."
        ),
        "**Dynamic NTK** recomputes the base from the current length: with T ≤ L it changes nothing.",
        "Tab **Precision**: float16 holds every whole number up to 2,048 and bfloat16 up to 256, so the unscaled pair 0's angle "
        "m·θ_0 = m is exact up to there; beyond, and for every other pair (θ_j and the product m·θ_j are rounded), "
        "the angle's error grows with m. Compute the angles in float32 and cast afterwards.",
        "A claim met in tutorials: RoPE has “no length limit”. The formula runs at any m, but a model meets "
        "angles past L it never saw in training (the pairs counted above): that is what these methods repair.",
    ]
)

page_footer(
    "extension",
    dict(block=ext.block, head_dim=head_dim, train_len=train_len, target_len=target_len),
    data=lambda: extension_frame(ext),
    file_name=f"rope_{used_type}_d{head_dim}_L{train_len}_T{target_len}.csv",
    data_label="Download the per-pair numbers as CSV",
)
