"""Inside a real model: SmolLM2-135M-Instruct's own RoPE, live (URL keys: explorer/site/realmodel.py).
Computations in explorer.compute.realmodel, sentences in explorer.text.realmodel and .ownmodel; the Long
context view opens on results computed in advance (data/realmodel/results.json)."""

import streamlit as st

from explorer.layout import intro, notice_list, page_setup

page_setup("realmodel")  # before the imports below: see explorer.layout

import uuid

import numpy as np

from explorer import jobs
from explorer.charts import realmodel as charts
from explorer.compute import realmodel as rc
from explorer.exports import page_footer
from explorer.jobs_ui import JobWords, job_panel
from explorer.render import shared, show_chart
from explorer.site import realmodel as site
from explorer.text import ownmodel as owntext
from explorer.text import realmodel as text
from explorer.widgets import widget
from posenc import realmodel
from posenc.realmodel import MODEL


def draw(builder, *args, **kwargs) -> None:
    show_chart(shared(builder)(*args, **kwargs), width="stretch")


OFFERED = rc.control_offered()  # the path control (drawn below, only where the server offers it) or $POSENC_MODEL
OWN_PATH = str(st.session_state.get("rm_model", rc.env_path())).strip() if OFFERED else rc.env_path()
own, own_error = rc.loaded(rc.own_facts, OWN_PATH) if OWN_PATH else (None, "")  # its facts, or why they cannot be read
with intro(formulas=False):
    st.markdown(text.intro(MODEL, own, offered=OFFERED, env=rc.ENV))

OK, WHY = realmodel.available()
SESSION = st.session_state.setdefault("rm_session", uuid.uuid4().hex)
jobs.QUEUE.touch(SESSION)


def get_model(loader, *args, name: str = MODEL.name):
    with st.spinner(text.loading_note(name)):
        model, error = rc.loaded(loader, *args)
    if error:
        st.error(text.load_error(error))
    return model


def busy_note(m) -> None:
    if m is not None and m.lock.locked():
        st.info("Another computation is using the model (one at a time per server); yours starts when it ends.")


# ------------------------------------------------------------------------------ the model and the text
if OFFERED:
    st.text_input(**site.MODEL_PATH, value=rc.env_path())
if own_error:
    st.error(text.own_model_error(own_error, MODEL.name))
with st.container(border=True, key="rm_controls"):
    cols = st.columns([5, 3, 3, 3] if own is None else [5, 3])  # one row: the chart stays on the first screen
    text_key, n_tokens = widget("rm_text", container=cols[0]), widget("rm_tokens", container=cols[1])
    if own is None:
        layer, head = widget("rm_layer", container=cols[2]), widget("rm_head", container=cols[3])
    src = (st.text_area(**site.PASTE) or "") if text_key == "pasted" else realmodel.default_text(text_key)

# ------------------------------------------------------------------------------ a model of your own
if own is not None:
    st.markdown(owntext.facts_markdown(own))
    st.dataframe(owntext.layer_type_table(own), hide_index=True, width="stretch")
    mine = get_model(rc.own_model, OWN_PATH, name=own.name)
    own_ids = tuple(int(i) for i in mine.tokenize(src)[:n_tokens]) if mine is not None else ()
    if mine is not None and len(own_ids) < 2:
        st.warning(owntext.too_short(len(own_ids)))
    elif mine is not None:
        with st.spinner(f"Running {own.name} on {len(own_ids):,} tokens…"):
            own_nll, own_norms = rc.own_numbers(OWN_PATH, own_ids)
        name = "your text" if text_key == "pasted" else text_key
        notice_list([owntext.perplexity_note(own.name, own_nll, tokens=len(own_ids), text=name)])
        notice_list([owntext.norms_note(mine.qk_norm)])
        for lt, products in rc.products_by_type(own, own_norms["q"], own_norms["k"]).items():
            lam_t, trained_t = own.wavelengths(lt), own.trained_lengths[lt]
            draw(charts.own_pairs_figure, products, own.name, lt, lam_t, trained_t, len(own_ids))
            notice_list([owntext.slow_note(own, lt, products, tokens=len(own_ids))], title=lt)
    st.info(owntext.default_views_note(MODEL.name))
    st.stop()

(t_freq, t_heads, t_change, t_long) = widget("rm_view")
live_tab = t_freq.open or t_heads.open or t_change.open
m = get_model(rc.model) if live_tab and OK else None
if not OK and live_tab:
    st.warning(text.not_installed(WHY))
ids, warnings = rc.read_ids(src, pasted=text_key == "pasted", asked=n_tokens) if m is not None else ((), [])
for w in warnings:
    st.warning(w)
read, lam = ids[:n_tokens], MODEL.wavelengths()

# ------------------------------------------------------------------------------ frequencies
if t_freq.open and m is not None:
    with t_freq:
        busy_note(m)
        with st.spinner("Reading the queries and keys before rotation…"):
            nb, spread = rc.norms(read), rc.spread(read)
        q, k = nb["q"].mean(axis=0), nb["k"].mean(axis=0)
        products = realmodel.pair_products(q, k)
        draw(charts.model_pairs_figure, products, spread.mean(axis=0), lam, MODEL.trained_length, len(read))
        bound, seen = rc.slow_share(read), rc.spread_share(read)
        notice_list(text.frequency_notes(products, bound, MODEL, tokens=len(read), block=rc.BLOCK, spread=seen))
        slow = text.slow_pairs(MODEL)
        draw(charts.slow_grid_figure, realmodel.share_by_head(products, slow))
        draw(charts.norm_figure, q, k, layer, int(np.argmax(slow)), MODEL.kv_heads)
        notice_list([text.layer_note(products, layer, MODEL)], title=f"Layer {layer}")
        st.caption(text.BOUND_CAPTION)

# ------------------------------------------------------------------------------ heads
if t_heads.open and m is not None:
    with t_heads:
        busy_note(m)
        with st.spinner("Running the model with attention weights kept…"):
            att, nb = rc.heads(read), rc.norms(read)
        products = realmodel.pair_products(nb["q"].mean(axis=0), nb["k"].mean(axis=0))
        draw(charts.head_grid_figure, att["sink"], att["label"], (layer, head), len(read))
        st.caption(text.rules_caption(rc.RULES))
        draw(charts.profile_figure, att["profile"][layer, head], layer, head, rc.RULES.min_query)
        draw(
            charts.model_pairs_figure, products[layer, head], None, lam, MODEL.trained_length, len(read), (layer, head)
        )
        notice_list([text.head_counts(att["label"]), text.head_note(att, products, layer, head, MODEL)])

# ------------------------------------------------------------------------------ change the rope
with t_change:
    r1, r2, r3, r4 = st.columns(4)
    method, factor = widget("rm_method", container=r1), widget("rm_factor", container=r2)
    keep, length = widget("rm_keep", container=r3), widget("rm_length", container=r4)
if t_change.open and m is not None:
    with t_change:
        if len(scored := ids[:length]) < length:
            st.warning(text.short_text_note(len(scored), length))
        chosen = realmodel.method_for(method, factor=factor, keep=keep)
        label = text.method_label(chosen.name)
        busy_note(m)
        with st.spinner(text.scoring_note(len(scored), label)):
            mine, new = rc.nll(scored, "default", 1.0, 0.0), rc.nll(scored, method, factor, keep)
        draw(charts.change_figure, mine, new, label, text.short_label(chosen.name))
        if chosen.is_own_rope(len(scored)):
            notice_list([text.same_rope_note(label, len(scored), MODEL.trained_length)])
        elif len(mine) >= 4 * rc.BLOCK:  # two blocks of 2·BLOCK tokens at least, for the interval
            diff = rc.difference(scored, method, factor, keep, 2 * rc.BLOCK)
            notice_list([text.change_note(label, diff, tokens=len(mine), block=2 * rc.BLOCK)])
        for caption in text.change_captions(method):
            st.caption(caption)

# ------------------------------------------------------------------------------ long context
with t_long:
    data, error = rc.shipped_or_error()
    by_text = realmodel.long_by_text(data)
    ltext = widget("rm_ltext") if len(by_text) > 1 else data.get("text", "argparse.py")  # a choice where there is one
    shipped_slot = st.container()  # the shipped results, drawn above the live run's controls
    st.subheader("Run it live", anchor=False)
    l1, l2 = st.columns(2)
    live, llen = widget("rm_live", container=l1), widget("rm_llen", container=l2)
if t_long.open:
    with shipped_slot:
        if error:
            st.error(text.shipped_error(error))
        entry = by_text.get(ltext) or {}
        if entry.get("results"):
            curves = text.shipped_curves(entry["results"], length=entry["length"], trained=MODEL.trained_length)
            draw(charts.long_figure, curves, entry, ltext, MODEL.trained_length)
            notes, papers = rc.long_sentences(ltext)
            notice_list(notes)
            notice_list(papers, title="Against the papers")
        else:
            st.info(text.no_results_note(ltext))
        control = realmodel.control_estimates(data.get("texts") or {})
        if control:
            draw(charts.control_figure, text.legend_keys(control))
        notice_list(rc.across_sentences(), title="Across texts")
        pk = text.passkey_shown(data.get("passkey") or {}, MODEL)
        if pk["summary"]:
            draw(charts.passkey_figure, text.legend_keys(pk["summary"]), MODEL.trained_length, text.MIN_KEYS)
        notice_list(pk["notes"], title="Passkey")
        st.caption(text.long_caption(MODEL, len(by_text)))
    with t_long:
        if not OK:
            st.info(text.not_installed_note(WHY))
        else:
            job_key, words = ("realmodel", live, llen), JobWords(bars=text.running_bars)
            shown_key, result = job_panel(SESSION, job_key, rc.live_work(live, llen), words, prefix="rm")
            if result is not None and shown_key == job_key:
                lcurves = {text.short_label(k2): realmodel.chunk_means(v, 128) for k2, v in result.items()}
                draw(charts.live_figure, lcurves, 128, text.method_label(live), llen, MODEL.trained_length)
            else:
                st.caption(text.live_caption(llen))

shown = dict(text=text_key, tokens=n_tokens, layer=layer, method=method, factor=factor, keep=keep, length=length)
page_footer("realmodel", shown)
