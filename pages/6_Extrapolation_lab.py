"""Extrapolation lab: tiny transformers, one per positional encoding, trained on 64 tokens and run longer.

URL parameters: explorer/site/lab.py. Sentences: explorer/text/lab.py. Computations: explorer/compute/lab.py.
The shipped results (data/lab/results.json, `python -m posenc.lab ship`) open at once; torch is imported only
by the Extension, Attention and Train tabs; training runs only when asked, in the process's one training
thread (explorer/jobs.py). A session's job lives as long as the session: every run of this page is a
heartbeat, and a status fragment beats every second on every tab while the job is unfinished.
"""

import streamlit as st

from explorer.layout import intro, notice_list, page_setup

page_setup("lab")  # before the imports below: see explorer.layout

import uuid

from explorer import jobs, jobs_ui
from explorer.charts import lab as charts
from explorer.compute import lab as compute
from explorer.exports import page_footer
from explorer.render import shared, show_chart
from explorer.text import lab as text
from explorer.widgets import escape_markdown, widget
from posenc import lab

with intro(formulas=False):
    st.markdown(text.INTRO)

try:
    data = compute.shipped()
except (OSError, ValueError) as exc:
    st.error(text.unreadable(exc))
    st.stop()

with st.container(border=True, key="lab_controls"):
    task = widget("lab_task", captions=list(text.TASK_CAPTIONS))
if task not in data["tasks"]:
    st.warning(text.missing_task(task))
    task = "markov"
nums = text.shown(data, task)
st.caption(text.shipped_caption(data, task))
table = charts.rows_frame(text.summary_rows(nums))

SESSION = st.session_state.setdefault("lab_session", uuid.uuid4().hex)
jobs.QUEUE.touch(SESSION)  # every run of the page, whatever the tab or settings: the session is alive
job_slot = st.container()  # the session's training job, when the Train tab is closed
(t_len, t_pos, t_ext, t_att, t_train) = widget("lab_view")
curve = shared(charts.curve_chart)

if t_len.open:
    with t_len:
        for past in (False, True):  # the all-positions mean, then the same with positions past L only
            rows = table if not past else charts.rows_frame(text.summary_rows(nums, past=True))
            show_chart(curve(rows, **text.length_chart(nums, past=past)), width="stretch")
        notice_list(text.length_notes(nums))

if t_pos.open:
    with t_pos:
        if prows := text.position_rows(nums):
            show_chart(curve(charts.rows_frame(prows, x="position"), **text.position_chart(nums)), width="stretch")
        else:
            st.info(text.no_position_curve(task))
        notice_list(text.position_notes(nums))

with t_ext:
    c1, c2, c3, c4 = st.columns(4)
    ext, factor = widget("lab_ext", container=c1), widget("lab_factor", container=c2)
    beta, use_af = widget("lab_beta", container=c3), widget("lab_af", container=c4)
    m1, m2 = st.columns([2, 1])
    recipe_key = widget("lab_model", container=m1)
    n_layers = text.recipe_layers(recipe_key)  # 0: no recipe, or one rope in every layer: no layer to pick
    recipe_layer = widget("lab_layer", container=m2, max=n_layers - 1) if n_layers else None
recipe = text.recipe(recipe_key, recipe_layer)
stale = text.stale_models(nums)  # shipped models of an earlier version of the task: not run on today's
for tab in (t_ext, t_att):
    if stale and tab.open:
        tab.warning(stale)
if t_ext.open and not stale:
    with t_ext:
        for kind, note in recipe.notes:
            (st.warning if kind == "warning" else st.caption)(escape_markdown(note))
        head_dim, theta = compute.rope_model_facts(task)
        method = text.extension_method(recipe, ext, factor=factor, beta=beta, use_af=use_af)
        lengths = tuple(nums.lengths)
        try:
            with st.spinner("Evaluating the RoPE model (no training)…"):
                base_curve, ext_scored = compute.extension_curve(task, "rope", lengths)
                scaled, _ = (
                    compute.extension_curve(task, method, lengths)
                    if recipe.spec is None
                    else compute.recipe_curve(task, recipe.key, recipe.layer, lengths)
                )
        except (OSError, ValueError) as exc:
            st.error(text.not_evaluated(exc))
            scaled, base_curve, ext_scored = {}, {}, [0]
        curves = text.extension_curves(base_curve, scaled, method=method, r=recipe)
        words = text.extension_chart(nums, method=method, ext=ext, r=recipe, ext_scored=ext_scored)
        if scaled and base_curve:  # else the error above says why there is no curve
            show_chart(curve(charts.curves_frame(curves), **words), width="stretch")
        before, after = text.extension_captions(
            nums, recipe, ext=ext, beta=beta, ext_scored=ext_scored, head_dim=head_dim, theta=theta
        )
        for line in before:
            st.caption(line)
        if scaled and base_curve:
            notice_list(text.extension_notes(scaled, base_curve, method=method, nums=nums))
        for line in after:
            st.caption(line)

with t_att:
    a1, a2, a3 = st.columns(3)
    enc = widget("lab_enc", container=a1)
    att_len, head = widget("lab_len", container=a2), widget("lab_head", container=a3)
if t_att.open and not stale:
    with t_att:
        if not lab.has_shipped_model(task, enc):
            st.warning(text.rope_only(task, enc))
            enc = "rope"
        if enc == "learned" and att_len > nums.train_len:
            st.warning(text.no_rows_past_l(nums.train_len))
            att_len = nums.train_len
        try:
            w = compute.attention(task, enc, att_len, head)
        except (OSError, ValueError) as exc:
            st.error(text.no_pattern(exc))
        else:
            show_chart(shared(charts.attention_chart)(w, **text.attention_chart(enc, head, att_len)), width="stretch")
            gate = text.attention_gate(nums, enc)
            notice_list([text.attention_note(w, train_len=nums.train_len, length=att_len, gate=gate)])

with t_train:
    r1, r2 = st.columns(2)
    ttask, encs = widget("lab_ttask", container=r1), widget("lab_encs", container=r2)
    r3, r4, r5, r6 = st.columns(4)
    steps, tlen = widget("lab_steps", container=r3), widget("lab_tlen", container=r4)
    width, seed = widget("lab_width", container=r5), widget("lab_seed", container=r6)
key = (ttask, text.encoding_set(encs), tlen, steps, width, seed)


WORDS = jobs_ui.JobWords(
    bars=lambda job: text.model_bars(job.key[1], job.progress, job.state == "running"),
    status=lambda job, ahead, full: text.job_status(job.key, job.state, ahead=ahead, full=full),
    stopped=lambda job: text.job_stopped(job.key, job.state, job.error),
)
if t_train.open:
    with t_train:
        st.caption(text.train_caption(key, timeout=jobs.QUEUE.timeout, shipped=nums))
        job_now = jobs.QUEUE.job_of(SESSION)
        if job_now is not None and not job_now.finished and job_now.key != key and jobs.QUEUE.cached(key) is None:
            st.caption(text.REPLACES_JOB)
        shown_key, result = jobs_ui.job_panel(SESSION, key, compute.train_work(key), WORDS, prefix="lab", label="Train")
        if result is not None and shown_key is not None:
            if shown_key != key:
                st.caption(text.last_run_caption(shown_key))
            frame = charts.curves_frame(result["results"], learned=result.get("learned"))
            show_chart(curve(frame, **text.run_chart(shown_key)), width="stretch")
            notice_list(text.run_notes(result, shown_key[2]))
elif (job_now := jobs.QUEUE.job_of(SESSION)) is not None and not job_now.finished:
    with job_slot:
        jobs_ui.job_status(SESSION, WORDS, prefix="lab", full=False)

with st.expander("What tiny synthetic models can and cannot say", icon=":material/balance:"):
    st.markdown(text.honest_section(nums, sweep=compute.finetune_sweep()))

page_footer(
    "lab",
    {"task": task, "beta_fast": beta, "model": recipe.key, "layer": recipe.layer},
    data=table,
    file_name=f"lab_{task}.csv",
)
