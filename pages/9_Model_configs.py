"""Model configs: read a real config.json (or its rope block), the published presets, and a converter
between the knobs people mix up (NTK alpha, a new rope_theta, a linear factor).

URL keys: conv_from, ntk_alpha, new_theta, head_dim, base (the converter); cfg (the pasted text,
compressed: explorer.site.configs.encode_text, at most MAX_LINK_CHARS characters), cfg_example
(the example choice), cfg_head_dim and cfg_max_pos (the sizes used when the text does not give
them) and layer (for a config whose layers differ: whose rope "Open in …" carries). The "Open in …"
buttons carry the parsed values to the other pages.
"""

from __future__ import annotations

import streamlit as st

from explorer.layout import cached, formula, intro, notice_list, page_setup

page_setup("configs")  # before the imports below: see explorer.layout

import json

import pandas as pd

import posenc
from explorer import manifest, mode, params, presets_ui, tour
from explorer.charts import configs as charts
from explorer.exports import page_footer
from explorer.links import view_query, view_url
from explorer.params import escape_markdown, widget
from explorer.render import shared, show_chart
from explorer.site import configs as site
from posenc.config import ERROR, parse_model_config
from posenc.models import PRESETS

TEXT_KEY, TEXT_MIRROR = "cfg_text", "_explorer_cfg_text"  # session-only; the mirror survives page changes
TEXT_HEIGHT, TEXT_HEIGHT_PRESENTING = 300, 160  # the text box, in pixels
BROKEN_EXAMPLE = """{
  "model_type": "llama",
  "head_dim": 128,
  "max_position_embeddings": 131072,
  "rope_theta": "500000",
  "rope_scaling": {
    "rope_type": "yarn",
    "factor": 0,
    "beta_fast": 1,
    "beta_slow": 32,
    "low_freq_factor": 1.0
  }
}"""
ROPE_BLOCK_EXAMPLE = """{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
 "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}"""


def example_config(key: str) -> str:
    """A preset's published config (its position-related fields), as the file writes them."""
    return json.dumps(PRESETS[key].config, indent=2)


def example_text(choice: str) -> str | None:
    text = {"broken": BROKEN_EXAMPLE, "rope-block": ROPE_BLOCK_EXAMPLE}.get(choice)
    if text is None and choice in PRESETS:
        text = example_config(choice)
    return text


def _set_text(text: str) -> None:
    st.session_state[TEXT_KEY] = text
    st.session_state[TEXT_MIRROR] = text
    _put_text_in_url(text)


def _put_text_in_url(text: str) -> None:
    """The text into the link (``cfg``), unless it is an example unchanged (``cfg_example`` says it) or too long."""
    example = example_text(st.session_state.get("cfg_example", "none") or "none")
    if not text.strip() or text == example:
        params.set_url_param("cfg", None)
        return
    encoded = site.encode_text(text)
    if len(encoded) > site.MAX_LINK_CHARS:
        params.set_url_param("cfg", None)
        st.session_state["_cfg_too_long"] = len(encoded)
        return
    st.session_state.pop("_cfg_too_long", None)
    params.set_url_param("cfg", encoded)


def _load_example() -> None:
    text = example_text(st.session_state.get("cfg_example", "none") or "none")
    if text is not None:
        _set_text(text)


def _keep_text() -> None:
    text = st.session_state.get(TEXT_KEY, "")
    st.session_state[TEXT_MIRROR] = text
    _put_text_in_url(text)


def _text_from_link() -> None:
    """A link's ``cfg`` (else its ``cfg_example``) fills the text box on the first run of a session."""
    if st.session_state.get("_cfg_link_read"):
        return
    st.session_state["_cfg_link_read"] = True
    raw = st.query_params.get_all("cfg")
    if raw:
        try:
            text = site.decode_text(params.get("cfg").parse(raw))
        except (params.ParamError, site.LinkTextError) as exc:
            reason = exc.reason if isinstance(exc, params.ParamError) else str(exc)
            st.session_state["_cfg_link_problem"] = reason
            params.set_url_param("cfg", None)
            return
        st.session_state[TEXT_KEY] = text
        st.session_state[TEXT_MIRROR] = text
        return
    choice = st.session_state.get("cfg_example") or presets_ui.url_value("cfg_example")
    text = example_text(choice or "none")
    if text is not None:
        st.session_state[TEXT_KEY] = text
        st.session_state[TEXT_MIRROR] = text


@cached(max_entries=32)
def parse(text: str, head_dim: int, max_pos: int) -> posenc.config.ParsedConfig:
    return parse_model_config(text, fallback_head_dim=head_dim, fallback_max_position_embeddings=max_pos)


with intro():
    st.markdown(
        "A model's `config.json` says how its RoPE is set up: the base, the head size, how long it was "
        "trained, and a rope block naming a scaling method and its parameters. The names differ between "
        "model families and a single typo silently changes the numbers, so here a pasted config is read "
        "key by key, every problem is named next to its key, and the result opens on the other pages."
    )

# ----------------------------------------------------------------------------------- paste
st.subheader("Paste a config.json (or just its rope block)")
_text_from_link()
if TEXT_KEY not in st.session_state:
    st.session_state[TEXT_KEY] = st.session_state.get(TEXT_MIRROR, "")
if st.session_state.get("_cfg_link_problem"):
    st.warning(
        "The config in this link could not be read: the cfg value "
        + escape_markdown(st.session_state.pop("_cfg_link_problem"))
        + ". The text box starts empty.",
        icon=":material/link_off:",
    )
left, right = st.columns([3, 1.3])
with right:
    widget("cfg_example", container=right, on_change=_load_example)
    sizes = right.expander("Sizes for a rope block on its own")
    fallback_head_dim = int(widget("cfg_head_dim", container=sizes))
    fallback_max_pos = int(widget("cfg_max_pos", container=sizes))
    sizes.caption("Used only when the pasted text does not give them.")
with left:
    text = st.text_area(
        "config.json",
        key=TEXT_KEY,
        # on a projector (presentation mode) shorter, so that the reading below is in the first screen
        height=TEXT_HEIGHT_PRESENTING if mode.is_on() else TEXT_HEIGHT,
        on_change=_keep_text,
        placeholder='{"head_dim": 128, "rope_theta": 500000.0, "rope_scaling": {...}}',
        help="Put in the link (compressed) so the view can be shared; nothing is stored on the server.",
    )
st.session_state[TEXT_MIRROR] = text
if st.session_state.get("_cfg_too_long"):
    st.warning(
        f"This text is too long for a link ({st.session_state['_cfg_too_long']:,} characters compressed; the "
        f"limit is {site.MAX_LINK_CHARS:,}): the link to this view does not include it. Paste only the "
        "position-related keys (sizes, rope block, layer settings) to share it.",
        icon=":material/link_off:",
    )

parsed = parse(text, fallback_head_dim, fallback_max_pos) if text.strip() else None
reading = st.container(key="cfg_reading")  # the verdict, every problem, the numbers read: the page's main output
open_block: dict = {}  # the rope block the "Open in …" buttons (and the snippet) carry
open_layer: int | None = None  # whose, when the config's layers differ
if parsed is None:
    reading.info("Paste a config above, or pick an example.", icon=":material/content_paste:")
else:
    errors, warnings = parsed.errors, parsed.warnings
    if errors:
        reading.markdown(f"**{len(errors)} error(s) and {len(warnings)} warning(s)**, each next to its key:")
    elif warnings:
        reading.markdown(f"**Readable, with {len(warnings)} warning(s)**, each next to its key:")
    else:
        reading.success(f"No problems: read as a {parsed.kind}.", icon=":material/check_circle:")

    # Every problem next to its key, as escaped text (keys and messages quote the pasted text).
    for problem in sorted(parsed.problems, key=lambda p: p.severity != ERROR):
        body = f"**{escape_markdown(problem.key)}** — {escape_markdown(problem.message)}"
        if problem.severity == ERROR:
            reading.error(body, icon=":material/error:")
        else:
            reading.warning(body, icon=":material/warning:")

    if parsed.kind:
        rotary = parsed.rotary_dim
        c = reading.columns(4)
        c[0].metric(
            "Head dim (rotated)",
            "—"
            if parsed.head_dim is None
            else (f"{rotary} of {parsed.head_dim}" if rotary != parsed.head_dim else f"{parsed.head_dim}"),
        )
        c[1].metric("rope_theta (base)", "—" if parsed.rope_theta is None else f"{parsed.rope_theta:,.6g}")
        c[2].metric(
            "max_position_embeddings",
            "—" if parsed.max_position_embeddings is None else f"{parsed.max_position_embeddings:,}",
        )
        c[3].metric(
            "Trained length L",
            "—" if parsed.original_max_position_embeddings is None else f"{parsed.original_max_position_embeddings:,}",
            help="original_max_position_embeddings (in the block or at the top level).",
        )
        c = reading.columns(4)
        c[0].metric("Method (rope_type)", parsed.rope_type or "—")
        c[1].metric(
            "Layout (a guess)",
            parsed.layout,
            help="A config does not record the pairing; it belongs to the weights. Guessed from "
            "model_type and rope_interleave.",
        )
        c[2].metric("Partial rotary factor", f"{parsed.partial_rotary_factor:g}")
        c[3].metric("Read as", parsed.kind)
        if parsed.rope_parameters:
            st.markdown("**The rope block as posenc reads it** (normalised: rope_type, rope_theta moved in)")
            st.json(parsed.rope_parameters, expanded=1)
        if parsed.notes:
            st.markdown("**Notes**\n\n" + "\n".join(f"- {escape_markdown(n)}" for n in parsed.notes))

    # ------------------------------------------------------------------ per layer (issue #14)
    if parsed.ok and parsed.layer_plans:
        st.subheader("Layer by layer")
        blocks = [parsed.layer_block(i) for i in range(len(parsed.layer_plans))]
        layer_table = charts.layer_frame(parsed.layer_plans, blocks)
        show_chart(shared(charts.layer_strip_chart)(layer_table), width="stretch")
        groups = layer_table.groupby(["rope", "attention"], sort=False)["layer"].apply(list)
        lines = []
        for (rope, span), layers_ in groups.items():
            shown = ", ".join(str(i) for i in layers_[:10]) + (", …" if len(layers_) > 10 else "")
            lines.append(f"- **{len(layers_)} layer(s)** ({shown}): {escape_markdown(rope)}; {escape_markdown(span)}")
        st.markdown("\n".join(lines))
        if parsed.temperature:
            t = parsed.temperature
            st.caption(
                "On the NoPE layers q is multiplied by 1 + "
                f"{t['attn_scale']:g}·ln(⌊(pos+1)/{t['floor_scale']:g}⌋ + 1) (Llama 4's attention temperature; "
                "the Context extension page's Attention tab draws it)."
            )

    # -------------------------------------------------------------------- open it elsewhere
    if parsed.ok and parsed.head_dim is not None:
        st.subheader("Open it on the other pages")
        open_block = dict(parsed.rope_parameters or {})
        if presets_ui.config_layers_differ(parsed):  # per-layer RoPE or NoPE layers: whose rope to open
            open_layer = int(
                widget(
                    "layer",
                    label="Open the rope of decoder layer",
                    max=len(parsed.layer_plans) - 1,
                    default=presets_ui.config_first_layer(parsed),
                    help="Whose rope the “Open in …” buttons carry, counted from 0 as HF's layer_types "
                    "(the strip above shows every layer's). It starts on the first full-attention layer that rotates.",
                )
            )
            open_block = presets_ui.config_layer_block(parsed, open_layer)[0] or open_block
            st.caption(escape_markdown(presets_ui.layer_sentence(parsed, open_layer, page="each page")))
        settings = dict(
            head_dim=parsed.head_dim,
            rope_theta=open_block.get("rope_theta") or parsed.rope_theta or 10000.0,
            layout=parsed.layout,
            partial_rotary_factor=open_block.get("partial_rotary_factor", parsed.partial_rotary_factor),
            rope_parameters=open_block,
            max_position_embeddings=parsed.max_position_embeddings
            or parsed.original_max_position_embeddings
            or fallback_max_pos,
        )
        targets = [manifest.page(slug) for slug in ("extension", "rope", "invariance")]
        for col, target in zip(st.columns(3), targets):
            page, title = target.slug, target.title
            with col:
                values, adjustments = presets_ui.page_values(page, **settings)
                if st.button(f"Open in {title}", key=f"open_{page}", icon=":material/open_in_new:", width="stretch"):
                    tour.open_view(target.script, values)
                for note in adjustments:
                    st.caption(escape_markdown(note))
                if page == "extension" and parsed.rope_type == "longrope":
                    st.caption(
                        "LongRoPE's per-pair lists cannot travel in a link: the page uses its "
                        "list generators (ones / ramp / constant) instead."
                    )
                st.code(
                    view_url(target.script, view_query(values), st.context.url),
                    language=None,
                    wrap_lines=True,
                )

# ----------------------------------------------------------------------------------- presets
st.subheader("Published models")
rows = [
    {
        "model": p.name,
        "head dim": p.head_dim,
        "rotated dims": p.rotary_dim,
        "rope_theta": p.rope_theta,
        "max positions": p.max_position_embeddings,
        "layout": p.layout,
        "rope_type": p.rope_type,
    }
    for p in PRESETS.values()
]
st.dataframe(
    pd.DataFrame(rows),
    hide_index=True,
    width="stretch",
    column_config={
        # wide enough for the longest name ("Qwen2.5 7B Instruct (YaRN ×4, per the model card)")
        "model": st.column_config.TextColumn(width="large"),
        "rope_theta": st.column_config.NumberColumn(format="%.0f"),
    },
)
st.caption(
    "Pick one in the “Real model” box on the RoPE rotation, Relative-position invariance and "
    "Context extension pages to load its exact values, or as an example above."
)
with st.expander("Where each number comes from"):
    for p in PRESETS.values():
        st.markdown(f"**{escape_markdown(p.name)}** — {escape_markdown(p.source)}")

# --------------------------------------------------------------------------------- converter
st.subheader("NTK alpha, rope_theta and linear factor: the same knob?")
st.markdown(
    "Three numbers get mixed up when people stretch a RoPE model. A **linear** factor s divides every "
    "frequency by s. An **NTK alpha** α instead changes the base, b′ = b·α^(d/(d−2)): the fastest pair "
    "keeps its speed and the slowest pair's wavelength is multiplied by exactly α. Many models were instead *trained* with a larger "
    "**rope_theta** (Llama 3: 500,000; Qwen2.5: 1,000,000): nothing is scaled there, the base is simply theirs. "
    "The converter says which NTK alpha would turn a model trained with b into one with b′, and back."
)
formula(
    r"b' = b\,\alpha^{d/(d-2)}\quad\Longleftrightarrow\quad \alpha = (b'/b)^{(d-2)/d},\qquad"
    r"\lambda'_j = 2\pi\,b'^{\,2j/d}:\ \ \lambda'_0 = \lambda_0,\ \ \lambda'_{d/2-1} = \alpha\,\lambda_{d/2-1}"
)
c1, c2, c3, c4 = st.columns([1.2, 1.3, 1.6, 1.4])
with c1:
    head_dim = widget("head_dim", container=c1, min=4)
with c2:
    base = float(widget("base", container=c2, label="Trained base b"))
with c3:
    source = widget("conv_from", container=c3)
with c4:
    if source == "rope_theta":
        new_theta = float(widget("new_theta", container=c4))
        alpha = posenc.base_to_ntk_alpha(new_theta, head_dim, base=base) if new_theta > 1 else 0.0
    else:
        alpha = float(widget("ntk_alpha", container=c4, label="Linear factor s" if source == "linear_factor" else None))
        new_theta = posenc.ntk_alpha_to_base(alpha, head_dim, base=base)
if not new_theta > 1:  # a small alpha on a small base: b' = b·α^(d/(d−2)) is no base at all
    asked = (
        f"The new base b′ = {new_theta:g}"
        if source == "rope_theta"
        else f"With α = {alpha:g} on base {base:g} the new base b′ = {new_theta:.3g}"
    )
    st.warning(f"{asked} is not above 1, so it defines no frequencies; showing α = 1 (b′ = b) instead.")
    alpha, new_theta = 1.0, base

theta = posenc.inverse_frequencies(head_dim, base=base)
theta_ntk = posenc.inverse_frequencies(head_dim, base=new_theta)
m = st.columns(4)
m[0].metric("NTK alpha α", f"{alpha:.6g}")
m[1].metric("rope_theta b′", f"{new_theta:,.2f}")
m[2].metric("Slowest pair's wavelength", f"× {theta[-1] / theta_ntk[-1]:.4g}", help="λ′/λ of pair d/2 − 1.")
m[3].metric("Fastest pair's wavelength", f"× {theta[0] / theta_ntk[0]:.4g}", help="λ′/λ of pair 0.")
frame = charts.wavelength_frame(theta, theta_ntk, alpha)
show_chart(shared(charts.wavelength_compare_chart)(frame, alpha=alpha), width="stretch", save_as="config_wavelengths")
e1, e2, e3 = st.columns(3)
e1.markdown("**NTK alpha in a config.json**")
e1.markdown(
    f"HF transformers has no rope_type for static NTK-aware scaling: a config states α = {alpha:.6g} as "
    f"rope_type `default` with the base b·α^(d/(d−2)) = {new_theta:,.2f} (the block beside this)."
)
e2.markdown("**…the rope block that does it**")
e2.json({"rope_type": "default", "rope_theta": round(new_theta, 4)})
e3.markdown("**Linear: not the same**")
e3.json({"rope_type": "linear", "factor": round(alpha, 6), "rope_theta": base})

notice_list(
    [
        "The NTK line starts where the trained line starts (pair 0 keeps its wavelength) and ends at α times "
        f"the trained one (α = {alpha:g}); the linear line is α times the trained one everywhere, fast pairs "
        "included.",
        (
            "At α = 1 the three lines coincide: neither a linear factor nor an NTK alpha of 1 changes anything."
            if alpha == 1
            else "So a linear factor s and an NTK alpha s reach the same longest wavelength, but only NTK keeps "
            "neighbouring tokens as easy to tell apart as in training: linear "
            + (
                f"slows pair 0 too, to 1/{alpha:g} rad per token."
                if alpha > 1
                else f"speeds pair 0 up too, to {1 / alpha:.4g} rad per token."
            )
        ),
        "A larger rope_theta in a config is not by itself scaling: Llama 3 and Qwen2.5 were trained with theirs. "
        "It is NTK-aware scaling only when a model trained with b is run with b′, and then α = (b′/b)^((d−2)/d).",
        "Problems in a pasted config are reported against the key they concern, with the value described "
        "rather than echoed, and an error never stops the page.",
    ]
)

snippet_values = dict(head_dim=head_dim, base=base, alpha=alpha)
if parsed is not None and parsed.ok and parsed.head_dim is not None and parsed.rope_parameters:
    snippet_values.update(
        block=open_block or parsed.rope_parameters,
        layer=open_layer,
        config_head_dim=parsed.head_dim,
        max_position_embeddings=parsed.max_position_embeddings
        or parsed.original_max_position_embeddings
        or fallback_max_pos,
    )
page_footer(
    "configs",
    snippet_values,
    data=lambda: frame.pivot(index="j", columns="scheme", values="wavelength").reset_index(),
    file_name=f"wavelengths_d{head_dim}_b{base:g}_alpha{alpha:g}.csv",
    data_label="Download the wavelengths as CSV",
)
