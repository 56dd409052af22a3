"""Home page and entry script: "Why position matters".

One attention head (numpy, seeded weights) reads a sentence and a shuffle of it. Without a position
signal the shuffled sentence's outputs are exactly the original outputs re-ordered; with any
position signal they are not. Run with ``streamlit run app.py``; pages live in pages/.
"""

import streamlit as st

from explorer.layout import cached, formula, intro, notice_list, page_setup

page_setup("home")  # before the imports below: see explorer.layout

from explorer.charts import home as charts
from explorer.exports import labelled_matrices, page_footer
from explorer.manifest import PAGES
from explorer.params import ensure_notice_slot, escape_markdown, get, widget
from explorer.render import shared, show_chart
from posenc import attention as att

MAX_TOKENS = 24  # also the learned table's length: the toy model was "trained" on 24 positions


def second_notice(pe: str, label: str, gap: float) -> str:
    """What a position signal does to the difference, from the numbers on screen."""
    tail = "The same word now gets a different vector (or a differently rotated query/key) at a different place."
    if pe == "none":
        return f"Switch to **sinusoidal**, **learned** or **RoPE**: the difference stops being rounding error. {tail}"
    if gap >= charts.EQUIVARIANT_TOL:
        return f"With {label} the largest difference is {gap:.3g}, far above rounding error. {tail}"
    return f"With {label} the difference is only {gap:.1e} here: this shuffle leaves every word where it was."


@cached(max_entries=64)
def experiment(words: tuple[str, ...], dim: int, seed: int, shuffle_seed: int, pe: str) -> dict:
    """Run the head on the sentence and on its shuffle (numpy float64: no torch on this page)."""
    return att.shuffle_experiment(words, dim, seed=seed, shuffle_seed=shuffle_seed, pe=pe, max_tokens=MAX_TOKENS)


def fmt_gap(gap: float) -> str:
    return f"{gap:.1e}" if gap < 1e-3 else f"{gap:.3f}"


with intro():
    st.write(
        "An attention head compares every word with every other word, but nothing in that comparison "
        "says *where* a word stands (this head has no causal mask: every word sees every other). Shuffle the sentence and the head computes the very same numbers, "
        "merely listed in the new order: to the head, the two sentences are the same bag of words. "
        "A position signal is what breaks this tie. Type a sentence, then switch the position signal on."
    )
    formula(  # one short formula per line: each fits a phone's screen
        r"\begin{gathered}\underbrace{\mathrm{Attn}(PX)}_{\text{shuffled sentence}} \;=\; "
        r"\underbrace{P\,\mathrm{Attn}(X)}_{\text{original outputs, shuffled}}"
        r"\\ \text{and}\quad A(PX) = P\,A(X)\,P^{\top}\end{gathered}",
    )
    formula(
        r"\begin{gathered}\text{where}\quad \mathrm{Attn}(X) = A(X)\,XW_v,\\ "
        r"A(X) = \mathrm{softmax}\!\Big(\frac{XW_q\,(XW_k)^{\top}}{\sqrt d}\Big)\end{gathered}",
        caption="P is the shuffle as a permutation matrix. The identity holds for any weights when the "
        "head gets no positions; adding PE(p) to the inputs or rotating q, k by position breaks it.",
    )


# ---------------------------------------------------------------------------------- the view
# Everything between the formulas and "Explore" is one fragment: a control change reruns only
# this part, so the browser does not rebuild the page's frame on every change.
@st.fragment
def view() -> None:
    ensure_notice_slot()
    c_text, c_shuffle, c_seed, c_dim = st.columns([4, 1, 1, 1.4])
    sentence = widget("sentence", container=c_text)
    shuffle_seed = int(widget("shuffle_seed", container=c_shuffle))
    seed = int(widget("seed", container=c_seed, label="Weights seed"))
    dim = int(widget("d_model", container=c_dim, label="Vector size d", max=64, default=16))

    try:
        words, n_found = att.tokenize(sentence, max_tokens=MAX_TOKENS)
    except (TypeError, ValueError):
        st.warning(
            "The sentence needs at least two different words (letters or digits). Showing the default sentence instead."
        )
        words, n_found = att.tokenize(get("sentence").default, max_tokens=MAX_TOKENS)
    if n_found > MAX_TOKENS:
        st.info(f"Using the first {MAX_TOKENS} of {n_found} words.")

    pe = widget("home_pe")
    result = experiment(tuple(words), dim, seed, shuffle_seed, pe)
    label = charts.PE_LABELS[pe]

    show_chart(shared(charts.shuffle_diagram)(words, result["perm"]), width="stretch", save_as="home_shuffle")

    m_out, m_attn, m_verdict = st.columns([1, 1, 2])
    m_out.metric(
        "Output difference",
        fmt_gap(result["output_gap"]),
        help="Largest |output of the shuffled sentence − original output shuffled the same way| "
        "over all words and coordinates.",
    )
    m_attn.metric(
        "Attention difference",
        fmt_gap(result["weight_gap"]),
        help="Largest |A(shuffled) − P·A(original)·Pᵀ| over all pairs of words.",
    )
    if result["output_gap"] < charts.EQUIVARIANT_TOL:
        m_verdict.warning(
            "**Blind to order.** The shuffled sentence gives exactly the original outputs, re-ordered "
            "(the difference is floating-point rounding). The head cannot tell the two sentences apart.",
            icon=":material/visibility_off:",
        )
    else:
        m_verdict.success(
            f"**Order matters.** With {label}, the shuffled sentence gets genuinely different outputs: "
            "the head now knows where each word stands.",
            icon=":material/visibility:",
        )

    show_chart(
        shared(charts.equivariance_scatter)(
            result["outputs_expected"], result["outputs_shuffled"], pe=pe, gap=result["output_gap"]
        ),
        width="stretch",
    )

    st.subheader("Attention weights for both orders")
    vmax = max(float(result["weights_original"].max()), float(result["weights_shuffled"].max()))
    h1, h2, h3 = st.columns(3)
    show_chart(
        container=h1,
        chart=shared(charts.attention_heatmap)(
            result["weights_original"], words, title="Original sentence", subtitle="A(X)", vmax=vmax
        ),
        width="stretch",
    )
    show_chart(
        container=h2,
        chart=shared(charts.attention_heatmap)(
            result["weights_shuffled"],
            result["shuffled"],
            title="Shuffled sentence",
            subtitle="A(PX): computed afresh",
            vmax=vmax,
        ),
        width="stretch",
    )
    show_chart(
        container=h3,
        chart=shared(charts.attention_heatmap)(
            result["weights_expected"],
            result["shuffled"],
            title="Original, re-ordered",
            subtitle="P·A(X)·Pᵀ: old rows & columns moved",
            vmax=vmax,
        ),
        width="stretch",
    )
    st.caption(
        f"One head, d = {dim}, seeded W_q, W_k, W_v (seed {seed}); each word's vector is drawn from a "
        "seed made from the word itself, so it is the same in both orders. The learned table is a "
        f"seeded stand-in for trained weights ({MAX_TOKENS} rows, same scale as the word vectors)."
    )

    gap = result["output_gap"]
    repeated = sorted({w for w in words if words.count(w) > 1})
    notice_list(
        [
            f"With **none**, the middle and right heatmaps are identical and every dot sits on the diagonal: "
            f"the difference is rounding error (below {charts.EQUIVARIANT_TOL:.0e})."
            + (f" Here it is {gap:.1e}." if pe == "none" else ""),
            second_notice(pe, label, gap),
            (
                f'A repeated word (here "{escape_markdown(repeated[0])}") gets identical rows with **none**: '
                "the head cannot even tell the copies apart."
                if repeated
                else "Type a sentence with a repeated word: with **none** its copies get identical rows, so the "
                "head cannot even tell them apart."
            ),
            "RoPE changes the weights but adds nothing to the word vectors: it acts only inside the "
            "query–key comparison.",
        ]
    )

    page_footer(
        "home",
        dict(words=words, dim=dim, seed=seed, shuffle_seed=shuffle_seed, pe=pe),
        data=lambda: labelled_matrices(
            {
                "A(X)": (result["weights_original"], words),
                "A(PX)": (result["weights_shuffled"], result["shuffled"]),
                "P·A(X)·Pᵀ": (result["weights_expected"], result["shuffled"]),
            },
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
