"""Context extension: how RoPE scaling methods let a model run past the length it was trained on.

URL keys (registry: explorer/widgets.py; names follow a config.json rope block where one exists): head_dim,
base, train_len (original_max_position_embeddings L), target_len (T, also the current seq_len of dynamic and
longrope; s, L, T, head_dim and base are also the main chart's own sliders, explorer.liveparam), rope_type (a key of
posenc.ROPE_SCALING), the method's own keys (explorer.ropeblock.METHOD_PARAMS, read only while it is selected;
LongRoPE's lists come from the generators short_gen and long_gen), ext_view (the open tab, the only one drawn).
Example, Llama 3.1 8B: ?rope_type=llama3&head_dim=128&base=500000&train_len=8192&target_len=131072&factor=8
Numbers: explorer.compute.extension; sentences: explorer.text.extension.
"""

import streamlit as st

from explorer.layout import exact_entry, formula, intro, notice_list, page_setup, picture_first

page_setup("extension")  # before the imports below: see explorer.layout

import posenc
from explorer import presets_ui, ropeblock
from explorer.charts import extension as charts
from explorer.compute import extension as compute
from explorer.exports import extension_frame, page_footer
from explorer.liveparam import LiveChart
from explorer.render import shared, show_chart
from explorer.text import extension as text
from explorer.text import methods
from explorer.widgets import escape_markdown, widget

with intro(formulas=False):
    st.markdown(text.INTRO)

# ------------------------------------------------------------------------------------- controls
# The method, the lengths and the factor are the page's main controls: in the main area, next to the charts they
# move (the sidebar starts collapsed on phones and in presentation mode); the sizes and finer knobs in the sidebar.
# The real-model select first: it fills the widgets below before they are drawn.
preset = presets_ui.model_picker("extension", container=st.sidebar)
controls, main = picture_first()  # on a projector, the main chart above these controls
with controls.container(border=True, key="ext_controls"):
    rope_type = widget("rope_type")  # one line per option, "yarn · YaRN" (the Param's labels)
    own = ropeblock.METHOD_PARAMS.get(rope_type, ())
    names = "L, T and s" if "factor" in own else "L and T"
    c_l, c_t, c_s = exact_entry(names=names).columns(3)  # the main chart has sliders for them
    train_len = widget("train_len", container=c_l)
    target_len = widget("target_len", container=c_t)
    values = {"factor": widget("factor", container=c_s)} if "factor" in own else {}
    st.caption(text.controls_caption(rope_type, values.get("factor"), train_len, target_len))

with st.sidebar:
    st.subheader("Model")
    head_dim = widget("head_dim")
    base = widget("base")
    st.subheader("Method settings")
    values.update({name: widget(name) for name in own if name != "factor"})
    if len(values) == len([n for n in own if n == "factor"]):
        st.caption(text.NO_OTHER_SETTINGS)
    values = {name: values[name] for name in own}  # the declared order

block = ropeblock.build_rope_block(rope_type, values, base=base, train_len=train_len, head_dim=head_dim)
block = presets_ui.preset_block(block, preset)  # a LongRoPE preset's published lists
ext = compute.extension(block, head_dim, train_len=train_len, target_len=target_len)
used_type = posenc.rope_type_of(ext.block)
if ext.error:
    main.error(text.invalid_block(escape_markdown(ext.error)), icon=":material/error:")
factor = ext.block.get("factor")
lengths = dict(train_len=train_len, target_len=target_len)
s_or_fit = compute.extension_factor(factor, train_len, target_len)  # s, or max(T/L, 1) without one

# ------------------------------------------------------ the main chart, right under its controls
main.subheader("Which pairs leave the training range")
# The browser computes θ′ at every s, d and b its sliders reach (with a method's knobs), and L and T move over their
# stops (issue #36): it redraws the chart while they are dragged and the page follows on release; the boxes stay.
kinds = {key: values[gen] for key, gen in ropeblock.LIST_GENERATORS.items() if gen in values}  # LongRoPE's lists'
plan = compute.live_plan(ext, head_dim, kinds)
if plan is not None:
    live = LiveChart("ext_live", plan.keys)
    starts = live.starts(plan.context)
    chart = shared(charts.angle_reach_live_chart)(
        ext.inv_freq,
        shape_starts={k: starts[k] for k in plan.shape},
        factors=plan.factors,
        start=starts.get("factor"),
        t_window=plan.t_window,
        l_window=plan.l_window,
        train_len=starts.get("train_len", train_len),
        target_len=starts.get("target_len", target_len),
        browser_block=plan.browser_block,
        knob_starts={k: starts[k] for k in charts.KNOB_KEYS if k in starts},
        columns=plan.columns,
        list_kinds=plan.list_kinds,
    )
    live.show(save_as="context_extension", chart=chart, width="stretch", container=main)
else:
    chart = shared(charts.angle_reach_chart)(ext.train_angle, ext.target_angle, ext.out_of_distribution, **lengths)
    show_chart(save_as="context_extension", chart=chart, width="stretch", container=main)

# ------------------------------------------------------------------------------------- formula
st.subheader(methods.label(used_type))
formula(posenc.ROPE_METHODS[used_type].latex, caption=methods.summary(used_type))  # the method's rule, in words
formula(text.OOD_LATEX, caption=text.OOD_CAPTION)

# ------------------------------------------------------------------------------------- metrics
for col, metric in zip(st.columns(4), text.metrics(ext, used_type)):
    col.metric(**metric)

if posenc.ROPE_METHODS[used_type].hf_rope_type:
    with st.expander(text.BLOCK_EXPANDER):
        st.json(ext.block, expanded=1)
else:
    with st.expander(text.NOT_HF_EXPANDER):
        st.markdown(text.not_in_hf(used_type))
        c_ours, c_hf = st.columns(2)
        c_ours.caption("posenc's shorthand")
        c_ours.json(ext.block, expanded=1)
        c_hf.caption("in a config.json")
        c_hf.json({"rope_type": "default", "rope_theta": compute.ntk_config_base(ext.block, head_dim)}, expanded=1)

# Only the open tab is computed and drawn (the choice is in the URL: ?ext_view=Attention).
tab_wavelengths, tab_rescaling, tab_attention, tab_pi, tab_precision = widget("ext_view")

with tab_wavelengths:
    if tab_wavelengths.open:
        show_chart(shared(charts.wavelength_chart)(ext.inv_freq, ext.scaled_inv_freq, **lengths), width="stretch")

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
        score = shared(charts.score_chart)(
            ext.distances, ext.score_before, ext.score_after, attention_factor=ext.attention_factor,
            n_pairs=ext.inv_freq.size, **lengths,
        )  # fmt: skip
        show_chart(score, width="stretch")
        # this block's attention factor against s, beside YaRN's with defaults; YaRN's own keys are the chart's sliders
        if (af_plan := compute.attention_factor_plan(ext)) is not None:
            live_af = LiveChart("ext_af_live", af_plan.keys)
            af_starts = live_af.starts(af_plan.context)
            chart = shared(charts.attention_factor_live_chart)(
                ext.af_factors, ropeblock.yarn_reference_curve(), factor=af_plan.factor,
                knob_starts={k: af_starts[k] for k in af_plan.keys}, fixed=af_plan.fixed,
            )  # fmt: skip
            live_af.show(save_as="attention_factor", chart=chart, width="stretch")
        else:
            curves, a = compute.attention_factor_curves(ext, methods.label(used_type), s_or_fit)
            show_chart(
                shared(charts.attention_factor_chart)(
                    ext.af_factors, curves, factor=s_or_fit, attention_factor=a, reference=text.YARN_REFERENCE
                ),
                width="stretch",
            )
        temperature = compute.temperature_curves(train_len, target_len)  # positions, Llama 4's τ, YaRN's a²
        show_chart(
            shared(charts.temperature_chart)(
                *temperature, floor_scale=compute.FLOOR_SCALE, attn_scale=compute.ATTN_SCALE, train_len=train_len
            ),
            width="stretch",
        )

with tab_pi:
    if tab_pi.open:
        moved, last = compute.interpolation(s_or_fit, target_len)
        show_chart(
            shared(charts.interpolation_strip_chart)(
                list(compute.PI_POSITIONS), moved, factor=s_or_fit, train_len=train_len
            ),
            width="stretch",
        )
        st.caption(text.interpolation_caption(s_or_fit, target_len, last, train_len))

with tab_precision:
    if tab_precision.open:
        with st.spinner("Computing the float16 / bfloat16 angles (the first time loads PyTorch)…"):
            positions, errors = compute.phase_errors(ext.scaled_inv_freq, target_len)
        show_chart(shared(charts.phase_error_chart)(positions, errors), width="stretch")
        if target_len > ropeblock.FLOAT16_MAX_POSITION:
            st.caption(text.precision_stop(ropeblock.FLOAT16_MAX_POSITION))

notice_list(text.notices(ext, used_type))

page_footer(
    "extension",
    dict(block=ext.block, head_dim=head_dim, **lengths),
    data=lambda: extension_frame(ext),
    file_name=f"rope_{used_type}_d{head_dim}_L{train_len}_T{target_len}.csv",
    data_label="Download the per-pair numbers as CSV",
)
