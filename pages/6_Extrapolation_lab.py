"""Extrapolation lab: tiny transformers, one per positional encoding, trained on 64 tokens and run longer.

URL parameters (registry: explorer/site/lab.py):

    lab_task    markov | kback | copy: the shipped task shown
    lab_view    Length | Per position | Extension | Attention | Train (only the open tab is computed)
    lab_ext, lab_factor, lab_beta, lab_af   the RoPE model's scaling at evaluation (Extension)
    lab_model, lab_layer                    or a real model's recipe (posenc.lab.preset_method) and its layer
                                            (the layer only for a model whose layers differ, in its range)
    lab_enc, lab_len, lab_head              one head's attention pattern (Attention)
    lab_ttask, lab_encs, lab_steps, lab_tlen, lab_width, lab_seed   train it yourself (Train)

The shipped results (data/lab/results.json, `python -m posenc.lab ship`) open at once; torch is
imported only by the Extension, Attention and Train tabs; training runs only when asked, in the
process's one training thread (explorer/jobs.py). A session's job lives as long as the session: every
run of this page is a heartbeat, a status fragment beats every second on every tab while the job is
unfinished, and the queue asks Streamlit's runtime whether the session is still connected (on any page).
"""

import streamlit as st

from explorer.layout import cached, intro, notice_list, page_setup

page_setup("lab")  # before the imports below: see explorer.layout

import uuid

import numpy as np

from explorer import compat, jobs, labtext
from explorer.charts import lab as charts
from explorer.exports import page_footer
from explorer.params import escape_markdown, widget
from explorer.render import shared, show_chart
from posenc import lab

with intro():
    st.markdown(
        "Claims about length are claims about models. The results this page opens on come from tiny "
        "transformers (2 layers, d = 64, 4 heads, ≈100k parameters), one per positional encoding, trained on a "
        "synthetic task with sequences of L = 64 tokens and then run on 128, 256 and 512 (the Train tab trains "
        "others). The same models and numbers come from `posenc.lab` "
        "(`python -m posenc.lab`); the encodings are `posenc.torch`'s modules and the scalings posenc's "
        "`rope_inverse_frequencies`, the registry the Context-extension page draws."
    )


@cached(max_entries=2)
def shipped() -> dict:
    return lab.load_shipped()


try:
    data = shipped()
except (OSError, ValueError) as exc:
    st.error(f"The shipped results could not be read: {escape_markdown(str(exc))}")
    st.stop()

with st.container(border=True, key="lab_controls"):
    task = widget(
        "lab_task", captions=["next token, Markov chain", "token 3 back", "copy (induction)", "passkey retrieval"]
    )
if task not in data["tasks"]:
    st.warning(f"No shipped results for the task {task!r} yet; showing markov.")
    task = "markov"
entry = data["tasks"][task]
nums = labtext.shown(data, task)
metric, refs, train_len, lengths = nums.metric, nums.references, nums.train_len, list(nums.lengths)
shown_metric = "excess" if metric == "loss" else metric  # markov: the loss above the exact optimum
st.caption(labtext.shipped_caption(data, task))
table = charts.rows_frame(labtext.summary_rows(nums))

if "lab_session" not in st.session_state:
    st.session_state["lab_session"] = uuid.uuid4().hex
SESSION = st.session_state["lab_session"]
jobs.QUEUE.touch(SESSION)  # every run of the page, whatever the tab or settings: the session is alive
job_slot = st.container()  # the session's training job, when the Train tab is closed
(t_len, t_pos, t_ext, t_att, t_train) = widget("lab_view")

# ------------------------------------------------------------------------------ loss vs length
if t_len.open:
    with t_len:
        for past in (False, True):  # the all-positions mean, then the same with positions past L only
            show_chart(
                shared(charts.curve_chart)(
                    table if not past else charts.rows_frame(labtext.summary_rows(nums, past=True)),
                    x="length",
                    x_title="evaluation length (tokens, log scale)",
                    metric=shown_metric,
                    train_len=train_len,
                    references=refs,
                    log_x=True,
                    band=True,
                    title=f"{lab.TASKS[task].label}: " + ("positions past L only" if past else "all positions"),
                    subtitle=[
                        f"mean over seeds, 95 % interval band, trained on L = {train_len}",
                        "dashed, faint: did not learn the task inside L; no point: no value",
                    ],
                    description=f"{nums.quantity} of each model at lengths {lengths}"
                    + (", scored on positions past L only" if past else "")
                    + "; dashed rule at the training length.",
                ),
                width="stretch",
            )
        notice_list(labtext.length_notes(nums))

# ------------------------------------------------------------------------------ per position
if t_pos.open:
    with t_pos:
        prows = labtext.position_rows(nums)
        if not prows:
            st.info(
                f"No per-position curve for {task}: "
                + (
                    "it scores one token per sequence (the answer at the end), so there is nothing along the sequence."
                    if task == "passkey"
                    else "no bin has enough scored tokens in every seed."
                )
            )
        else:
            width = int(data["settings"].get("bin_width", 1))
            show_chart(
                shared(charts.curve_chart)(
                    charts.rows_frame(prows, x="position"),
                    x="position",
                    x_title=labtext.position_title(max(lengths), width),
                    metric=shown_metric,
                    train_len=train_len,
                    references=refs,
                    band=True,
                    title=f"Where each model breaks: {nums.quantity} per position",
                    subtitle=[
                        f"mean over seeds, 95 % band; bins with ≥ {int(data['settings'].get('min_bin_tokens', 0)):,} "
                        "scored tokens in every seed",
                        "dashed, faint: did not learn the task inside L",
                    ],
                    description=f"{nums.quantity} per position for each model; the dashed rule marks the training length.",
                ),
                width="stretch",
            )
        notice_list(labtext.position_notes(nums))

# ------------------------------------------------------------------------------ extension panel
EXT_TOKENS = 2048  # this panel's token budget per length (the task sets the sequences): fast enough for a slider
with t_ext:
    c1, c2, c3, c4 = st.columns(4)
    ext = widget("lab_ext", container=c1)
    factor = widget("lab_factor", container=c2)
    beta = widget("lab_beta", container=c3)
    use_af = widget("lab_af", container=c4)
    m1, m2 = st.columns([2, 1])
    recipe_key = widget("lab_model", container=m1)
    n_layers = labtext.recipe_layers(recipe_key)  # 0: no recipe, or one rope in every layer: no layer to pick
    recipe_layer = widget("lab_layer", container=m2, max=n_layers - 1) if n_layers else None


@cached(max_entries=32)
def extension_curve(task: str, method: str) -> tuple[dict, list]:
    """({length: value}, [scored tokens per length]) of the seed-0 RoPE model with ``method``."""
    ev = lab.evaluate_detail(lab.shipped_model(task, "rope"), method, lengths, tokens=EXT_TOKENS)
    return {n: e.value for n, e in ev.items()}, [e.scored for e in ev.values()]


@cached(max_entries=16)
def recipe_curve(task: str, preset: str, layer: int | None) -> tuple[dict, list]:
    ev = lab.evaluate_detail(
        lab.shipped_model(task, "rope"), lab.preset_method(preset, layer), lengths, tokens=EXT_TOKENS
    )
    return {n: e.value for n, e in ev.items()}, [e.scored for e in ev.values()]


recipe = labtext.recipe(recipe_key, recipe_layer)
if t_ext.open:
    with t_ext:
        for kind, note in recipe.notes:
            (st.warning if kind == "warning" else st.caption)(escape_markdown(note))
        head_dim = lab.shipped_model(task, "rope").head_dim
        method = (
            lab.method_name(ext, factor=factor or None, beta_fast=beta, attention_factor=use_af)
            if recipe.spec is None
            else labtext.recipe_label(recipe)
        )
        try:
            with st.spinner("Evaluating the RoPE model (no training)…"):
                base_curve, ext_scored = extension_curve(task, "rope")
                curve, _ = (
                    extension_curve(task, method)
                    if recipe.spec is None
                    else recipe_curve(task, recipe.key, recipe.layer)
                )
        except (OSError, ValueError) as exc:
            st.error(f"This scaling could not be evaluated: {escape_markdown(str(exc))}")
            curve, base_curve, ext_scored = {}, {}, [0]
        same_as_base = method == "rope" or (recipe.spec is not None and recipe.spec.rope_type is None)
        show_chart(
            shared(charts.curve_chart)(
                charts.curves_frame({"rope (no scaling)": base_curve} | ({} if same_as_base else {method: curve})),
                x="length",
                x_title="evaluation length (tokens, log scale)",
                metric=metric,
                train_len=train_len,
                references=entry["references"],  # this panel shows the raw metric (loss, not above the optimum)
                log_x=True,
                title=f"The trained RoPE model with {method}",
                subtitle="seed 0, evaluated only (no retraining); "
                + (labtext.factor_rule(ext) if recipe.spec is None else "the model's own factor")
                + f"; {labtext.count_text(ext_scored)} scored tokens per length",
                description="RoPE model evaluated with a context-extension scaling at several lengths.",
            ),
            width="stretch",
        )
        st.caption(
            labtext.extension_caption(
                ext_scored=ext_scored,
                rope_seeds=len(entry["runs"].get("rope", {})),
                shipped_scored=labtext.scored_text(nums),
            )
        )
        theta = lab.TrainConfig().rope_theta  # the tiny RoPE model's base
        if recipe.spec is not None:
            st.caption(labtext.recipe_text(recipe, head_dim=head_dim, train_len=train_len, theta=theta))
        if curve and base_curve:
            notice_list(
                labtext.extension_notes(
                    curve,
                    base_curve,
                    method=method,
                    train_len=train_len,
                    metric=metric,
                    not_learned=None if nums.learned.get("rope") else nums.not_learned("rope"),
                )
            )
        if recipe.spec is None and ext == "llama3":
            st.caption(labtext.llama3_caption(train_len))
        if recipe.spec is not None:
            st.caption(
                "The method, factor, β_fast and attention-factor controls above are not used while a model's recipe is chosen."
            )
        elif ext != "yarn":
            st.caption("β_fast and the attention factor apply to YaRN only (the other methods' attention factor is 1).")
        else:
            st.caption(labtext.yarn_ramp_caption(head_dim=head_dim, train_len=train_len, beta=beta, base=theta))

# ------------------------------------------------------------------------------ attention
with t_att:
    a1, a2, a3 = st.columns(3)
    enc = widget("lab_enc", container=a1)
    att_len = widget("lab_len", container=a2)
    head = widget("lab_head", container=a3)


@cached(max_entries=16)
def attention(task: str, enc: str, length: int, head: int) -> np.ndarray:
    model = lab.shipped_model(task, enc)
    return lab.attention_map(model, length, layer=head // 4, head=head % 4)


if t_att.open:
    with t_att:
        if not lab.has_shipped_model(task, enc):
            st.warning(f"The {task} task ships only the RoPE model's weights: showing rope instead of {enc}.")
            enc = "rope"
        if enc == "learned" and att_len > train_len:
            st.warning(f"A learned table has {train_len} rows: no attention pattern past L. Showing L = {train_len}.")
            att_len = train_len
        try:
            w = attention(task, enc, att_len, head)
        except (OSError, ValueError) as exc:
            st.error(f"No attention pattern: {escape_markdown(str(exc))}")
        else:
            show_chart(
                shared(charts.attention_chart)(
                    w,
                    title=f"{enc}: layer {head // 4}, head {head % 4} at {att_len} tokens",
                    subtitle="attention weights of one evaluation sequence",
                ),
                width="stretch",
            )
            gate = labtext.attention_gate(nums, enc)
            notice_list([labtext.attention_note(w, train_len=train_len, length=att_len, gate=gate)])

# ------------------------------------------------------------------------------ train it yourself
with t_train:
    r1, r2 = st.columns(2)
    ttask = widget("lab_ttask", container=r1)
    encs = widget("lab_encs", container=r2)
    r3, r4, r5, r6 = st.columns(4)
    steps = widget("lab_steps", container=r3)
    tlen = widget("lab_tlen", container=r4)
    width = widget("lab_width", container=r5)
    seed = widget("lab_seed", container=r6)

encodings = tuple(lab.ENCODINGS) if encs == "all five" else tuple(e.strip() for e in encs.split(","))
key = (ttask, encodings, tlen, steps, width, seed)


def work_for(k: tuple):
    """The training job of settings ``k`` (runs in the queue's worker thread)."""
    k_task, k_encs, k_len, k_steps, k_width, k_seed = k

    def work(job: jobs.Job) -> dict:
        lab.set_threads(1)  # one core at most: a training job never starves other users
        last: dict[str, float] = {}

        def report(encoding, step, n, loss):
            last[encoding] = float(loss)
            job.report(
                model=encoding, index=k_encs.index(encoding), step=step, steps=n, loss=float(loss), last=dict(last)
            )

        return lab.run_experiment(
            k_task,
            list(k_encs),
            train_len=k_len,
            eval_lens=(k_len, 2 * k_len, 4 * k_len, 8 * k_len),
            seed=k_seed,
            steps=k_steps,
            d_model=k_width,
            tokens=4096,
            per_position=False,
            callback=report,
        )

    return work


def model_bars(job: jobs.Job) -> None:
    """One progress bar per model of the job: done, running (step, loss) or waiting."""
    for frac, text in labtext.model_bars(job.key[1], job.progress, job.state == "running"):
        st.progress(frac, text=text)


def job_view(full: bool) -> None:
    """The session's job (whatever the sliders show now); also its heartbeat while it runs."""
    job = jobs.QUEUE.touch(SESSION)
    if job is None:
        return
    if not job.finished:
        head = f"Your training job ({labtext.settings_text(job.key)})"
        if job.state == "queued":
            st.info(f"{head} waits: {jobs.QUEUE.position(job)} job(s) ahead of it.")
        else:
            st.info(f"{head} is running" + ("." if full else "; the Train tab shows its progress."))
        if full:
            model_bars(job)
            if st.button("Cancel", icon=":material/stop:", key="lab_cancel"):
                jobs.QUEUE.cancel(job)
    elif full and job.state in ("cancelled", "failed"):
        st.warning(f"Training {job.state} ({labtext.settings_text(job.key)}): {escape_markdown(job.error)}")
    if job.finished and st.session_state.get("lab_shown") != job.id:
        st.session_state["lab_shown"] = job.id  # one full run to draw the result and stop the timer
        st.rerun()


job_now = jobs.QUEUE.job_of(SESSION)
active = job_now is not None and not job_now.finished
if t_train.open:
    with t_train:
        st.caption(labtext.train_caption(key, timeout=jobs.QUEUE.timeout))
        done = jobs.QUEUE.cached(key)
        if active and job_now is not None and job_now.key != key and done is None:
            st.caption("Training these settings replaces your unfinished job.")
        if st.button("Train", icon=":material/play_arrow:", disabled=done is not None, key="lab_go"):
            try:
                jobs.QUEUE.submit(SESSION, key, work_for(key), runtime_id=compat.session_id())
            except RuntimeError as exc:
                st.warning(str(exc))
            job_now = jobs.QUEUE.job_of(SESSION)
            active = job_now is not None and not job_now.finished
        st.fragment(run_every=1.0 if active else None)(job_view)(True)
        shown_key, result = (key, done) if done is not None else (None, None)
        if result is None and job_now is not None and job_now.state == "done":
            shown_key, result = job_now.key, job_now.result
        if result is not None and shown_key is not None:
            if shown_key != key:
                st.caption(
                    f"Showing your last run ({labtext.settings_text(shown_key)}); the settings above "
                    "differ and have no result yet."
                )
            show_chart(
                shared(charts.curve_chart)(
                    charts.curves_frame(result["results"], learned=result.get("learned")),
                    x="length",
                    x_title="evaluation length (tokens, log scale)",
                    metric=lab.TASKS[shown_key[0]].metric,
                    train_len=shown_key[2],
                    references=lab.references(shown_key[0]),
                    log_x=True,
                    title=labtext.run_title(shown_key),
                    subtitle="one seed; dashed, faint: did not learn the task inside L",
                    description="metric against evaluation length for the models you trained",
                ),
                width="stretch",
            )
            notice_list(labtext.run_notes(result, shown_key[2]))
elif active:
    with job_slot:
        st.fragment(run_every=1.0)(job_view)(False)


# ------------------------------------------------------------------------------ honest section
with st.expander("What tiny synthetic models can and cannot say", icon=":material/balance:"):
    st.markdown(labtext.honest_section(nums, sweep=lab.load_finetune_sweep()))

page_footer(
    "lab",
    {"task": task, "beta_fast": beta, "model": recipe.key, "layer": recipe.layer},
    data=table,
    file_name=f"lab_{task}.csv",
)
