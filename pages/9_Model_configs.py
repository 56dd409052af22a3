"""Model configs: read a real config.json (or its rope block), the published presets, and a converter
between the knobs people mix up (NTK alpha, a new rope_theta, a linear factor).

URL keys: conv_from, ntk_alpha (over its stops), new_theta, head_dim, base (the converter; α, d and b are its chart's
own sliders where α is on a stop); cfg (the pasted text,
compressed: explorer.site.configs.encode_text, at most MAX_LINK_CHARS characters), cfg_example
(the example choice), cfg_head_dim and cfg_max_pos (the sizes used when the text does not give
them) and layer (for a config whose layers differ: whose rope "Open in …" carries). The "Open in …"
buttons carry the parsed values to the other pages.
"""

from __future__ import annotations

import streamlit as st

from explorer.layout import formula, intro, notice_list, page_setup

page_setup("configs")  # before the imports below: see explorer.layout

from explorer import configbox, manifest, mode, presets_ui, tour
from explorer.charts import configs as charts
from explorer.compute import configs as compute
from explorer.exports import page_footer
from explorer.links import view_query, view_url
from explorer.liveparam import LiveChart
from explorer.render import shared, show_chart
from explorer.text import configs as text
from explorer.widgets import escape_markdown, widget
from posenc.models import PRESETS

TEXT_HEIGHT, TEXT_HEIGHT_PRESENTING = 300, 160  # the text box, in pixels


def metrics(rows: list, container=st) -> None:
    for row in rows:
        for col, (label, value, help_) in zip(container.columns(len(row)), row):
            col.metric(label, value, help=help_)


with intro(formulas=False):
    st.markdown(text.INTRO)

# ----------------------------------------------------------------------------------- paste
st.subheader("Paste a config.json (or just its rope block)")
configbox.start()
left, right = st.columns([3, 1.3])
with right:
    widget("cfg_example", container=right, on_change=configbox.load_example)
    sizes = right.expander("Sizes for a rope block on its own")
    fallback_head_dim = int(widget("cfg_head_dim", container=sizes))
    fallback_max_pos = int(widget("cfg_max_pos", container=sizes))
    sizes.caption("Used only when the pasted text does not give them.")
# on a projector (presentation mode) shorter, so that the reading below is in the first screen
pasted = configbox.box(left, height=TEXT_HEIGHT_PRESENTING if mode.is_on() else TEXT_HEIGHT)

parsed = compute.parse(pasted, fallback_head_dim, fallback_max_pos) if pasted.strip() else None
reading = st.container(key="cfg_reading")  # the verdict, every problem, the numbers read: the page's main output
open_block: dict = {}  # the rope block the "Open in …" buttons (and the snippet) carry
open_layer: int | None = None  # whose, when the config's layers differ
if parsed is None:
    reading.info("Paste a config above, or pick an example.", icon=":material/content_paste:")
else:
    fine, verdict = text.verdict(parsed)
    if fine:
        reading.success(verdict, icon=":material/check_circle:")
    else:
        reading.markdown(verdict)
    for is_error, body in text.problems(parsed):  # every problem next to its key
        if is_error:
            reading.error(body, icon=":material/error:")
        else:
            reading.warning(body, icon=":material/warning:")
    if parsed.kind:
        metrics(text.reading_metrics(parsed), reading)
        if parsed.rope_parameters:
            st.markdown("**The rope block as posenc reads it** (normalised: rope_type, rope_theta moved in)")
            st.json(parsed.rope_parameters, expanded=1)
        if parsed.notes:
            st.markdown(text.notes(parsed.notes))

    # ------------------------------------------------------------------ per layer (issue #14)
    if parsed.ok and parsed.layer_plans:
        st.subheader("Layer by layer")
        layer_table = charts.layer_frame(parsed)
        show_chart(shared(charts.layer_strip_chart)(layer_table), width="stretch")
        st.markdown(
            text.layer_groups(layer_table.groupby(["rope", "attention"], sort=False)["layer"].apply(list).items())
        )
        if parsed.temperature:
            st.caption(text.temperature(parsed.temperature))

    # -------------------------------------------------------------------- open it elsewhere
    if parsed.ok and parsed.head_dim is not None:
        st.subheader("Open it on the other pages")
        open_block = dict(parsed.rope_parameters or {})
        if presets_ui.config_layers_differ(parsed):  # per-layer RoPE or NoPE layers: whose rope to open
            first = presets_ui.config_first_layer(parsed)
            layers = dict(max=len(parsed.layer_plans) - 1, default=first, help=text.LAYER_HELP)
            open_layer = int(widget("layer", label="Open the rope of decoder layer", **layers))
            open_block = presets_ui.config_layer_block(parsed, open_layer)[0] or open_block
            st.caption(escape_markdown(presets_ui.layer_sentence(parsed, open_layer, page="each page")))
        settings = compute.open_settings(parsed, open_block, fallback_max_pos)
        for col, target in zip(st.columns(3), [manifest.page(slug) for slug in ("extension", "rope", "invariance")]):
            with col:
                values, adjustments = presets_ui.page_values(target.slug, **settings)
                key = f"open_{target.slug}"
                if st.button(f"Open in {target.title}", key=key, icon=":material/open_in_new:", width="stretch"):
                    tour.open_view(target.script, values)
                for note in adjustments:
                    st.caption(escape_markdown(note))
                if target.slug == "extension" and parsed.rope_type == "longrope":
                    st.caption(text.LONGROPE)
                st.code(view_url(target.script, view_query(values), st.context.url), language=None, wrap_lines=True)

# ----------------------------------------------------------------------------------- presets
st.subheader("Published models")
st.dataframe(
    compute.presets_table(),
    hide_index=True,
    width="stretch",
    column_config={
        # wide enough for the longest name ("Qwen2.5 7B Instruct (YaRN ×4, per the model card)"); on a phone narrower
        # and pinned, so the next column shows beside it and the names stay while the numbers scroll past
        "model": st.column_config.TextColumn(width="medium", pinned=True)
        if mode.on_a_phone()
        else st.column_config.TextColumn(width="large"),
        "rope_theta": st.column_config.NumberColumn(format="%.0f"),
    },
)
st.caption(text.PRESETS_CAPTION)
with st.expander("Where each number comes from"):
    for line in text.sources(PRESETS.values()):
        st.markdown(line)

# --------------------------------------------------------------------------------- converter
st.subheader("NTK alpha, rope_theta and linear factor: the same knob?")
st.markdown(text.CONVERTER)
formula(text.CONVERTER_FORMULA)
c1, c2 = st.columns([2.4, 1.4])
source = widget("conv_from", container=c1)
if source == "rope_theta":
    given = float(widget("new_theta", container=c2))
else:
    given = float(widget("ntk_alpha", container=c2, label="Linear factor s" if source == "linear_factor" else None))
# α, d and b are the chart's own sliders where α is one of its stops (issue #36): the lines move in the browser, the
# rest follows on release; a new rope_theta, or an α typed between two stops, draws the chart for that one value,
# with d and b as sliders here.
live = LiveChart("conv_live", charts.LIVE_PARAMS, limits=charts.LIVE_LIMITS)
head_dim, base = int(live.values["head_dim"]), float(live.values["base"])
window = compute.chart_alpha_window(source, given, head_dim, base)
if window is None:
    c3, c4 = st.columns(2)
    head_dim = widget("head_dim", container=c3, min=4)
    base = float(widget("base", container=c4, label="Trained base b"))
alpha, new_theta = compute.convert(source, given, head_dim, base)
if not new_theta > 1:  # a small alpha on a small base: b' = b·α^(d/(d−2)) is no base at all
    st.warning(text.not_a_base(source, alpha, base, new_theta))
    alpha, new_theta = 1.0, base
theta, theta_ntk, slowest, fastest = compute.wavelength_ratios(head_dim, base, new_theta)
metrics([text.converter_metrics(alpha, new_theta, slowest, fastest)])
frame = charts.wavelength_frame(theta, theta_ntk, alpha)
height = charts.PHONE_HEIGHT if mode.on_a_phone() else charts.HEIGHT  # a phone's title and legend take more
if window is not None:
    live.narrow(charts.ALPHA_KEY, *window)  # in the browser: the α that make a base at this d and b
    chart = shared(charts.wavelength_live_chart)(
        theta, head_dim=head_dim, base=base, starts=live.starts(()), height=height, **text.WAVELENGTH_LIVE_WORDS
    )
    live.show(chart, width="stretch", save_as="config_wavelengths")
else:
    chart = shared(charts.wavelength_compare_chart)(frame, height=height, **text.wavelength_words(alpha))
    show_chart(chart, width="stretch", save_as="config_wavelengths")
e1, e2, e3 = st.columns(3)
e1.markdown("**NTK alpha in a config.json**")
e1.markdown(text.ntk_in_config(alpha, new_theta))
e2.markdown("**…the rope block that does it**")
e2.json({"rope_type": "default", "rope_theta": round(new_theta, 4)})
e3.markdown("**Linear: not the same**")
e3.json({"rope_type": "linear", "factor": round(alpha, 6), "rope_theta": base})
notice_list(text.converter_notices(alpha))

snippet_values = dict(head_dim=head_dim, base=base, alpha=alpha)
if parsed is not None and parsed.ok and parsed.head_dim is not None and parsed.rope_parameters:
    snippet_values.update(
        block=open_block or parsed.rope_parameters,
        layer=open_layer,
        config_head_dim=parsed.head_dim,
        max_position_embeddings=compute.max_positions(parsed, fallback_max_pos),
    )
page_footer(
    "configs",
    snippet_values,
    data=lambda: frame.pivot(index="j", columns="scheme", values="wavelength").reset_index(),
    file_name=f"wavelengths_d{head_dim}_b{base:g}_alpha{alpha:g}.csv",
    data_label="Download the wavelengths as CSV",
)
