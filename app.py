"""Home page and entry script: "Why position matters".

One attention head (numpy, seeded weights) reads a sentence and a shuffle of it. Without a position
signal the shuffled sentence's outputs are exactly the original outputs re-ordered; with any
position signal they are not. Served by ``streamlit run serve.py`` (serve.py: app.py behind an st.App that imports
this page's modules first; ``streamlit run app.py`` works too); pages live in pages/.
"""

import streamlit as st

from explorer.layout import formula, intro, notice_list, page_setup

page_setup("home")  # before the imports below: see explorer.layout

from explorer import mode
from explorer.charts import home as charts
from explorer.compute import home as compute
from explorer.exports import labelled_matrices, page_footer
from explorer.liveparam import LiveChart
from explorer.manifest import PAGES
from explorer.render import Keyed, shared, show_chart
from explorer.text import home as text
from explorer.widgets import ensure_notice_slot, escape_markdown, get, widget
from posenc import attention as att

with intro():
    st.write(text.INTRO)
    formula(  # one short formula per line: each fits a phone's screen
        r"\begin{gathered}\underbrace{\mathrm{Attn}(PX)}_{\text{shuffled sentence}} \;=\; "
        r"\underbrace{P\,\mathrm{Attn}(X)}_{\text{original outputs, shuffled}}"
        r"\\ \text{and}\quad A(PX) = P\,A(X)\,P^{\top}\end{gathered}",
    )
    formula(
        r"\begin{gathered}\text{where}\quad \mathrm{Attn}(X) = A(X)\,XW_v,\\ "
        r"A(X) = \mathrm{softmax}\!\Big(\frac{XW_q\,(XW_k)^{\top}}{\sqrt d}\Big)\end{gathered}",
        caption=text.FORMULA_CAPTION,
    )


# ---------------------------------------------------------------------------------- the view
# Everything between the formulas and "Explore" is one fragment: a control change reruns only
# this part, so the browser does not rebuild the page's frame on every change.
@st.fragment
def view() -> None:
    ensure_notice_slot()
    c_text, c_shuffle, c_seed = st.columns([4, 1, 1])
    sentence = widget("sentence", container=c_text)
    shuffle_seed = int(widget("shuffle_seed", container=c_shuffle))
    seed = int(widget("seed", container=c_seed, label="Weights seed"))
    # d is the head chart's own slider (issue #36): the chart holds every d and redraws while it is dragged; the
    # metrics, sentences and link follow on release (explorer.liveparam)
    live = LiveChart("home_live", charts.LIVE_PARAMS, limits=compute.LIMITS)
    dim = int(live.values[charts.LIVE_KEY])

    try:
        words, n_found = att.tokenize(sentence, max_tokens=compute.MAX_TOKENS)
    except (TypeError, ValueError):
        st.warning(text.NO_SENTENCE)
        words, n_found = att.tokenize(get("sentence").default, max_tokens=compute.MAX_TOKENS)
    if n_found > compute.MAX_TOKENS:
        st.info(text.words_used(compute.MAX_TOKENS, n_found))

    pe = widget("home_pe")
    result = compute.experiment(tuple(words), dim, seed, shuffle_seed, pe)
    gap = result["output_gap"]

    show_chart(shared(charts.shuffle_diagram)(words, result["perm"]), width="stretch", save_as="home_shuffle")

    m_out, m_attn, m_verdict = st.columns([1, 1, 2])
    m_out.metric(
        "Output difference",
        text.fmt_gap(gap),
        help="Largest |output of the shuffled sentence − original output shuffled the same way| "
        "over all words and coordinates.",
    )
    m_attn.metric(
        "Attention difference",
        text.fmt_gap(result["weight_gap"]),
        help="Largest |A(shuffled) − P·A(original)·Pᵀ| over all pairs of words.",
    )
    blind, verdict = text.verdict(pe, gap)
    if blind:
        m_verdict.warning(verdict, icon=":material/visibility_off:")
    else:
        m_verdict.success(verdict, icon=":material/visibility:")

    st.subheader("Outputs and attention weights for both orders")
    made_from = (tuple(words), seed, shuffle_seed, pe)  # what every_dim's tables depend on: their cache key too
    every = compute.every_dim(*made_from)
    starts = live.starts(made_from)
    live.show(
        shared(charts.experiment_chart)(
            Keyed(("every_dim", *made_from), every),  # hashed by its key, not its rows
            pe=pe,
            start=starts[charts.LIVE_KEY],
            dims=compute.dim_range(),
            phone=mode.on_a_phone(),
        ),
        save_as="home_experiment",
        width="content",
    )
    shuffled = result["shuffled"]
    weights = {name: result[f"weights_{which}"] for name, which, _ in compute.HEATMAPS}
    st.caption(text.setup_caption(dim, seed, compute.MAX_TOKENS))
    notice_list(text.notices(pe, gap, [escape_markdown(w) for w in words]))

    page_footer(
        "home",
        dict(words=words, dim=dim, seed=seed, shuffle_seed=shuffle_seed, pe=pe),
        data=lambda: labelled_matrices(
            {name: (weights[name], shuffled if moved else words) for name, _, moved in compute.HEATMAPS},
            row="query",
            column="key",
        ),
        file_name=f"attention_weights_{pe}_d{dim}_seed{seed}.csv",
        data_label="Download the attention weights as CSV",
    )


view()

st.subheader("Explore")
for page in PAGES[1:]:
    st.page_link(page.script, label=page.title, icon=page.icon)
