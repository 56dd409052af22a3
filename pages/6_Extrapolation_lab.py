"""Extrapolation lab: tiny transformers, one per positional encoding, trained on 64 tokens and run longer.

URL parameters (registry: explorer/site/lab.py):

    lab_task    markov | kback | copy: the shipped task shown
    lab_view    Length | Per position | Extension | Attention | Train (only the open tab is computed)
    lab_ext, lab_factor, lab_beta, lab_af   the RoPE model's scaling at evaluation (Extension)
    lab_model, lab_layer                    or a real model's recipe (posenc.lab.preset_method) and its layer
    lab_enc, lab_len, lab_head              one head's attention pattern (Attention)
    lab_ttask, lab_encs, lab_steps, lab_tlen, lab_width, lab_seed   train it yourself (Train)

The shipped results (data/lab/results.json, `python -m posenc.lab ship`) open at once; torch is
imported only by the Extension, Attention and Train tabs; training runs only when asked, in the
process's one training thread (explorer/jobs.py). A session's job lives as long as the session: every
run of this page is a heartbeat, a status fragment beats every second on every tab while the job is
unfinished, and the queue asks Streamlit's runtime whether the session is still connected (on any page).
"""

import uuid

import numpy as np
import pandas as pd
import streamlit as st

import posenc
from explorer import compat, jobs, presets_ui
from explorer.charts import lab as charts
from explorer.exports import page_footer
from explorer.layout import cached, intro, notice_list, page_setup, shared, show_chart
from explorer.params import escape_markdown, widget
from explorer.site import lab as site
from posenc import lab
from posenc.models import PRESETS, preset_config

page_setup("lab")
st.title("Extrapolation lab")
with intro():
    st.markdown(
        "Claims about length are claims about models. Here tiny transformers (2 layers, d = 64, 4 heads, "
        "≈100k parameters), one per positional encoding, learn a synthetic task on sequences of L = 64 tokens "
        "and are then run on 128, 256 and 512. The same models and numbers come from `posenc.lab` "
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
    task = widget("lab_task", captions=["next token, Markov chain", "token 3 back", "copy (induction)"])
entry = data["tasks"].get(task)
if entry is None:
    st.warning(f"No shipped results for the task {task!r} yet; showing markov.")
    task, entry = "markov", data["tasks"]["markov"]
metric, refs = entry["metric"], entry["references"]
summary = lab.summarize(entry["runs"])
train_len = int(data["settings"]["train_len"])
lengths = [int(n) for n in data["settings"]["eval_lens"]]
n_seeds = max(len(s) for s in entry["runs"].values())
st.caption(
    # plain text, not `code`: code in a caption fails the contrast check (axe-core, color-contrast)
    f"Shipped results of {data['date']}, made by: {data['command']} · {entry['steps']} training steps · "
    f"up to {n_seeds} seed(s) per model · ≈{data['settings']['tokens']:,} scored tokens per length."
)

rows = [
    {"method": m, "length": n, "value": mean, "sd": sd, "seeds": k}
    for m, per in summary.items()
    for n, (mean, sd, k) in per.items()
]
table = pd.DataFrame(rows)
better = min if metric == "loss" else max
fmt = "{:.3f}"

if "lab_session" not in st.session_state:
    st.session_state["lab_session"] = uuid.uuid4().hex
SESSION = st.session_state["lab_session"]
jobs.QUEUE.touch(SESSION)  # every run of the page, whatever the tab or settings: the session is alive
job_slot = st.container()  # the session's training job, when the Train tab is closed
(t_len, t_pos, t_ext, t_att, t_train) = widget("lab_view")

# ------------------------------------------------------------------------------ loss vs length
if t_len.open:
    with t_len:
        live = ["nope", "learned", "sinusoidal", "rope", "alibi"]
        shown = table  # every shipped row: the five, the scalings, both fine-tunes, the long-trained NoPE
        show_chart(
            shared(charts.curve_chart)(
                shown,
                x="length",
                x_title="evaluation length (tokens, log scale)",
                metric=metric,
                train_len=train_len,
                references=refs,
                log_x=True,
                band=True,
                title=f"{lab.TASKS[task].label}: {metric} against length",
                subtitle=[
                    f"mean ± sd over seeds, trained on L = {train_len}",
                    "no point = no value (a learned table has no rows past L)",
                ],
                description=f"{metric} of each encoding's model at lengths {lengths}; dashed rule at the training length.",
            ),
            width="stretch",
        )
        longest = max(lengths)
        at_long = {m: summary[m][longest][0] for m in live if m in summary}
        valued = {m: v for m, v in at_long.items() if v is not None}
        items = []
        if valued:
            best = better(valued, key=valued.__getitem__)
            worst = (max if metric == "loss" else min)(valued, key=valued.__getitem__)
            items.append(
                f"At {longest} tokens ({longest // train_len}·L) the best of the five is **{best}** "
                f"({fmt.format(valued[best])}), the worst **{worst}** ({fmt.format(valued[worst])})."
            )
            uni = refs["uniform"]
            bad = [m for m, v in valued.items() if (v > uni if metric == "loss" else v < uni)]
            if bad:
                items.append(f"Worse than uniform guessing ({fmt.format(uni)}) at {longest}: {', '.join(bad)}.")
        if "learned" in at_long and at_long["learned"] is None:
            items.append(f"The learned table has {train_len} rows: past L it has no value at all, not a bad one.")
        rope_row = summary.get("rope", {})
        if rope_row.get(2 * train_len, (None,))[0] is not None and rope_row[train_len][0] is not None:
            items.append(
                f"Plain RoPE: {fmt.format(rope_row[train_len][0])} at L, {fmt.format(rope_row[2 * train_len][0])} "
                f"at 2L, {fmt.format(rope_row[longest][0])} at {longest}."
            )
        notice_list(items)

# ------------------------------------------------------------------------------ per position
if t_pos.open:
    with t_pos:
        pp = entry.get("per_position", {})
        n_bins = 64
        n_pos = max((len(c) for c in pp.values() if c is not None), default=0)
        prow = []
        for m, curve in pp.items():
            if curve is None:
                continue
            centres, means = lab.bin_positions(curve, n_bins)
            prow += [
                {"method": m, "position": float(c), "value": float(v)} for c, v in zip(centres, means) if np.isfinite(v)
            ]
        pframe = pd.DataFrame(prow, columns=["method", "position", "value"])
        show_chart(
            shared(charts.curve_chart)(
                pframe,
                x="position",
                x_title=f"position in one {n_pos}-token evaluation (mean of {n_pos / max(1, min(n_bins, n_pos)):g}-token bins)",
                metric=metric,
                train_len=train_len,
                references=refs,
                title=f"Where each encoding breaks: {metric} per position",
                subtitle="seed-0 models; averaged over the evaluation sequences at each position",
                description=f"{metric} per position for each encoding; the dashed rule marks the training length.",
            ),
            width="stretch",
        )
        worse_by = 0.05  # nats for the loss, accuracy points for accuracy
        items = []
        for m, curve in pp.items():
            if curve is None or m not in ("nope", "sinusoidal", "rope", "alibi"):
                continue
            pos = lab.break_position(curve, train_len, metric=metric, worse_by=worse_by)
            items.append(
                f"**{m}**: "
                + (
                    f"worse by more than {worse_by} from about position {pos} ({pos / train_len:.1f}·L)."
                    if pos is not None
                    else f"never worse by more than {worse_by} than inside L."
                )
            )
        notice_list(items)

# ------------------------------------------------------------------------------ extension panel
EXT_TOKENS = 2048  # scored tokens per length in this panel: fast enough to follow a slider
with t_ext:
    c1, c2, c3, c4 = st.columns(4)
    ext = widget("lab_ext", container=c1)
    factor = widget("lab_factor", container=c2)
    beta = widget("lab_beta", container=c3)
    use_af = widget("lab_af", container=c4)
    m1, m2 = st.columns([2, 1])
    recipe = widget("lab_model", container=m1)
    recipe_layer = widget("lab_layer", container=m2)


@cached(max_entries=32)
def extension_curve(task: str, method: str) -> dict:
    model = lab.shipped_model(task, "rope")
    return lab.evaluate_method(model, method, lengths, tokens=EXT_TOKENS)


@cached(max_entries=16)
def recipe_curve(task: str, preset: str, layer: int | None) -> dict:
    model = lab.shipped_model(task, "rope")
    return lab.evaluate_method(model, lab.preset_method(preset, layer), lengths, tokens=EXT_TOKENS)


def recipe_text(preset_key: str, layer: int | None, spec, head_dim: int) -> str:
    """What applying a real model's recipe does, in plain words, from the preset and the block used."""
    preset = PRESETS[preset_key]
    name = escape_markdown(preset.name)
    where = f"{name}'s layer {layer}" if layer is not None else name
    block = spec.rope_block(train_len, train_len)
    if block is None:
        return (
            f"{where} uses no scaling (rope_type default), so its recipe leaves the tiny model as it is: "
            "the two curves are the same."
        )
    shown = ", ".join(f"{k} = {v}" for k, v in spec.params.items())
    original = preset.rope_parameters.get("original_max_position_embeddings")
    return (
        f"Applied: the recipe of {where}, rope_type {spec.rope_type} with its own {shown}, on the tiny RoPE model: "
        + (
            f"original_max_position_embeddings = {block['original_max_position_embeddings']} (this lab's training "
            f"length, not the model's {original:,}), "
            if "original_max_position_embeddings" in block and original
            else f"the trained length L = {train_len} where the method reads one, "
        )
        + f"head_dim = {head_dim} (not {preset.head_dim}) and base {lab.TrainConfig().rope_theta:,.0f} (the tiny model's, "
        f"not {float(preset.rope_parameters.get('rope_theta', preset.rope_theta)):,.0f}). The factor is the model's "
        "own at every length, not length / L."
    )


layer_used: int | None = None  # the recipe's layer, for a model whose layers differ
spec = None
recipe_notes: list[tuple[str, str]] = []  # (warning | caption, text), shown in the Extension tab
if recipe != "none":
    parsed = preset_config(PRESETS[recipe])
    n_layers = len(parsed.layer_plans) if parsed is not None else 0
    if parsed is not None and n_layers and presets_ui.layers_differ(PRESETS[recipe]):
        layer_used = min(recipe_layer, n_layers - 1)
        if layer_used != recipe_layer:
            recipe_notes.append(
                ("warning", f"{PRESETS[recipe].name} has {n_layers} layers: showing layer {layer_used}.")
            )
    elif recipe_layer:
        recipe_notes.append(
            ("caption", f"Every layer of {PRESETS[recipe].name} uses the same rope: the layer does not matter.")
        )
    try:
        spec = lab.preset_method(recipe, layer_used)
    except ValueError as exc:
        recipe_notes.append(("warning", f"{exc}. Showing the settings above instead."))
        recipe, layer_used = "none", None
if t_ext.open:
    with t_ext:
        for kind, note in recipe_notes:
            (st.warning if kind == "warning" else st.caption)(escape_markdown(note))
        head_dim = lab.shipped_model(task, "rope").head_dim
        method = (
            lab.method_name(ext, factor=factor or None, beta_fast=beta, attention_factor=use_af)
            if recipe == "none"
            else f"{PRESETS[recipe].name}'s recipe" + (f" (layer {layer_used})" if layer_used is not None else "")
        )
        try:
            with st.spinner("Evaluating the RoPE model (no training)…"):
                base_curve = extension_curve(task, "rope")
                curve = extension_curve(task, method) if recipe == "none" else recipe_curve(task, recipe, layer_used)
        except (OSError, ValueError) as exc:
            st.error(f"This scaling could not be evaluated: {escape_markdown(str(exc))}")
            curve = base_curve = {}
        same_as_base = method == "rope" or (spec is not None and spec.rope_type is None)
        eframe = pd.DataFrame(
            [{"method": "rope (no scaling)", "length": n, "value": v} for n, v in base_curve.items()]
            + ([{"method": method, "length": n, "value": v} for n, v in curve.items()] if not same_as_base else [])
        )
        show_chart(
            shared(charts.curve_chart)(
                eframe,
                x="length",
                x_title="evaluation length (tokens, log scale)",
                metric=metric,
                train_len=train_len,
                references=refs,
                log_x=True,
                title=f"The trained RoPE model with {method}",
                subtitle="seed 0, evaluated only (no retraining); "
                + ("factor = length / L unless set" if recipe == "none" else "the model's own factor")
                + f"; {EXT_TOKENS:,} scored tokens per length",
                description="RoPE model evaluated with a context-extension scaling at several lengths.",
            ),
            width="stretch",
        )
        rope_seeds = len(entry["runs"].get("rope", {}))
        st.caption(
            f"This panel evaluates the seed-0 RoPE model on {EXT_TOKENS:,} scored tokens per length so that it "
            f"follows the controls in seconds; the Length tab shows the mean over {rope_seeds} seed(s) with "
            f"≈{data['settings']['tokens']:,} tokens per length, so its plain-RoPE values differ from this "
            "panel's by the seeds and the sample."
        )
        if spec is not None:
            st.caption(recipe_text(recipe, layer_used, spec, head_dim))
        if curve and base_curve:
            longest = max(lengths)
            d = curve[longest] - base_curve[longest]
            good = d < 0 if metric == "loss" else d > 0
            notice_list(
                [
                    f"At {longest} tokens: {fmt.format(curve[longest])} with {method}, {fmt.format(base_curve[longest])} "
                    f"without: {'better' if good else 'worse' if d else 'the same'} by {abs(d):.3f}.",
                    f"At L = {train_len}: {fmt.format(curve[train_len])} against {fmt.format(base_curve[train_len])} "
                    + (
                        "(a scaling that changes the angles inside L changes what the model was trained on)."
                        if abs(curve[train_len] - base_curve[train_len]) > 1e-9
                        else "(unchanged inside L)."
                    ),
                ]
            )
        if recipe == "none" and ext == "llama3":
            block = lab.parse_method("rope+llama3").rope_block(train_len, train_len)
            st.caption(
                f"llama3 here uses low_freq_factor = {block['low_freq_factor']:g} and high_freq_factor = "
                f"{block['high_freq_factor']:g} (posenc's declared defaults, Llama 3.1's values) with L = {train_len}."
            )
        if recipe != "none":
            st.caption(
                "The method, factor, β_fast and attention-factor controls above are not used while a model's recipe is chosen."
            )
        elif ext != "yarn":
            st.caption("β_fast and the attention factor apply to YaRN only (the other methods' attention factor is 1).")
        else:
            ramp = posenc.yarn_correction_range(
                head_dim, base=10000.0, original_max_position_embeddings=train_len, beta_fast=beta
            )
            paper = posenc.yarn_correction_range(head_dim, base=10000.0, original_max_position_embeddings=train_len)
            text = (
                f"With this model's head_dim = {head_dim} ({head_dim // 2} pairs) and L = {train_len}, β_fast = {beta:g} "
                f"puts YaRN's ramp at pairs {ramp[0]:g}–{ramp[1]:g}: pairs below it keep their frequency, pairs above "
                "it are divided by s. "
            )
            if ramp == paper and beta != site.BETA_FAST_DEFAULT:
                text += (
                    f"The paper's β_fast = {site.BETA_FAST_DEFAULT:g} gives the same ramp (the ends are rounded to whole pairs, and at so "
                    "short an L no pair turns that often), so the two curves are the same."
                )
            elif beta != site.BETA_FAST_DEFAULT:
                text += f"The paper's β_fast = {site.BETA_FAST_DEFAULT:g} would give pairs {paper[0]:g}–{paper[1]:g}."
            st.caption(text)

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
            rows_max = w.max(axis=1)
            inside, outside = (
                float(rows_max[:train_len].mean()),
                float(rows_max[train_len:].mean()) if att_len > train_len else None,
            )
            notice_list(
                [
                    f"Mean largest weight per query: {inside:.3f} at positions < L"
                    + (
                        f", {outside:.3f} at positions ≥ L (lower = attention spread thinner: dilution)."
                        if outside is not None
                        else "."
                    )
                ]
            )

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


def settings_text(k: tuple) -> str:
    """A job's own settings, from its key (ttask, encodings, L, steps, d, seed)."""
    k_task, k_encs, k_len, k_steps, k_width, k_seed = k
    return f"{k_task}, {', '.join(k_encs)}: {k_steps} steps at L = {k_len}, d = {k_width}, seed {k_seed}"


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
    p, k_encs = job.progress, job.key[1]
    index = p.get("index", -1) if job.state == "running" else -1
    for i, enc in enumerate(k_encs):
        if i < index:
            st.progress(1.0, text=f"{enc}: trained (last training loss {p['last'][enc]:.3f}), evaluated")
        elif i == index:
            frac = p["step"] / p["steps"]
            what = "evaluating" if p["step"] >= p["steps"] else f"step {p['step']} of {p['steps']}"
            st.progress(min(1.0, frac), text=f"{enc}: {what}, training loss {p['loss']:.3f}")
        else:
            st.progress(0.0, text=f"{enc}: waiting")


def job_view(full: bool) -> None:
    """The session's job (whatever the sliders show now); also its heartbeat while it runs."""
    job = jobs.QUEUE.touch(SESSION)
    if job is None:
        return
    if not job.finished:
        head = f"Your training job ({settings_text(job.key)})"
        if job.state == "queued":
            st.info(f"{head} waits: {jobs.QUEUE.position(job)} job(s) ahead of it.")
        else:
            st.info(f"{head} is running" + ("." if full else "; the Train tab shows its progress."))
        if full:
            model_bars(job)
            if st.button("Cancel", icon=":material/stop:", key="lab_cancel"):
                jobs.QUEUE.cancel(job)
    elif full and job.state in ("cancelled", "failed"):
        st.warning(f"Training {job.state} ({settings_text(job.key)}): {escape_markdown(job.error)}")
    if job.finished and st.session_state.get("lab_shown") != job.id:
        st.session_state["lab_shown"] = job.id  # one full run to draw the result and stop the timer
        st.rerun()


job_now = jobs.QUEUE.job_of(SESSION)
active = job_now is not None and not job_now.finished
if t_train.open:
    with t_train:
        n_models = len(encodings)
        st.caption(
            f"{n_models} model(s) × {steps} steps at L = {tlen}, d = {width}, evaluated at "
            f"{', '.join(str(m * tlen) for m in (1, 2, 4, 8))}. One training job runs per server at a time, on one "
            "core; results are cached for everyone. Your job keeps running while you look at other tabs or pages "
            "or move these sliders, and stops when you close the browser tab."
        )
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
                    f"Showing your last run ({settings_text(shown_key)}); the settings above "
                    "differ and have no result yet."
                )
            s_task, _, s_len, s_steps, s_width, s_seed = shown_key
            res = result["results"]
            tframe = pd.DataFrame(
                [{"method": m, "length": int(n), "value": v} for m, per in res.items() for n, v in per.items()]
            )
            show_chart(
                shared(charts.curve_chart)(
                    tframe,
                    x="length",
                    x_title="evaluation length (tokens, log scale)",
                    metric=lab.TASKS[s_task].metric,
                    train_len=s_len,
                    references=lab.references(s_task),
                    log_x=True,
                    title=f"Your run: {s_task}, {s_steps} steps, L = {s_len}, d = {s_width}, seed {s_seed}",
                    description="metric against evaluation length for the models you trained",
                ),
                width="stretch",
            )
elif active:
    with job_slot:
        st.fragment(run_every=1.0)(job_view)(False)


# ------------------------------------------------------------------------------ honest section
CLOSE = 0.05  # nats for the loss, accuracy points for accuracy: "flat", "the same", "recovered"


def _v(row: dict, n: int) -> float | None:
    return row.get(n, (None,))[0]


def _flat(row: dict, n0: int, n1: int) -> bool:
    """Within CLOSE (nats, or accuracy points) of its value at L."""
    a, b = _v(row, n0), _v(row, n1)
    return a is not None and b is not None and abs(b - a) <= CLOSE


def _beats(a: float, b: float) -> bool:
    """a better than b by more than CLOSE in the task's metric."""
    return (b - a if metric == "loss" else a - b) > CLOSE


def _at(row: dict, n: int) -> str:
    v = _v(row, n)
    return "—" if v is None else fmt.format(v)


def _by_length(a: dict, b: dict, ns: list[int]) -> tuple[list[int], list[int]]:
    """The lengths where a is better than b by more than CLOSE, and those where it is worse."""
    pairs = [(n, _v(a, n), _v(b, n)) for n in ns]
    valued = [(n, x, y) for n, x, y in pairs if x is not None and y is not None]
    return [n for n, x, y in valued if _beats(x, y)], [n for n, x, y in valued if _beats(y, x)]


def _lens(ns: list[int]) -> str:
    return ", ".join(
        "L" if n == train_len else f"{n // train_len}L" if n % train_len == 0 else f"{n} tokens" for n in ns
    )


def _yarn_line(n1: int) -> str:
    """YaRN's β_fast, as the shipped runs show it (the default against the shipped low value)."""
    paper = summary.get("rope+yarn", {})
    low_name = next((m for m in summary if m.startswith("rope+yarn:beta_fast=")), None)
    if not paper or low_name is None:
        return ""
    low_beta = lab.parse_method(low_name).params["beta_fast"]
    low = summary[low_name]
    a, b = _v(paper, n1), _v(low, n1)
    if a is None or b is None:
        return ""
    same = abs(a - b) < 1e-9
    d = site.BETA_FAST_DEFAULT
    return (
        f"* **YaRN's β_fast** (Peng et al. 2023 use {d:g}, tuned for L in the thousands): at {n1} tokens, "
        f"{_at(paper, n1)} with β_fast = {d:g} and {_at(low, n1)} with β_fast = {low_beta:g}"
        + (f" — the same: at L = {train_len} both ramps start at the fastest pair." if same else ".")
        + "\n"
    )


def _pi_line(beyond: list[int]) -> str:
    rope_r, pi = summary.get("rope", {}), summary.get("rope+linear", {})
    if not rope_r or not pi:
        return ""
    better, worse = _by_length(pi, rope_r, beyond)
    text = (
        "* **Position Interpolation 'works because the model has seen all the angles'**: applied at evaluation with "
        f"no fine-tune (factor = length / L), PI gives {', '.join(f'{_at(pi, n)} at {_lens([n])}' for n in beyond)}, "
        f"plain RoPE {', '.join(_at(rope_r, n) for n in beyond)}: "
    )
    if worse and not better:
        text += (
            f"worse than no scaling at {_lens(worse)}"
            + ("" if len(worse) == len(beyond) else " (within 0.05 at the other lengths)")
            + ". "
        )
    elif better and not worse:
        text += (
            f"better than no scaling at {_lens(better)}"
            + ("" if len(better) == len(beyond) else " (within 0.05 at the other lengths)")
            + ". "
        )
    else:
        text += (
            f"better at {_lens(better) or 'no length'}, worse at {_lens(worse) or 'no length'}, within 0.05 elsewhere. "
        )
    text += "Chen et al. (2023) interpolate and then fine-tune (about 1,000 steps): the model must learn the new, finer angles.\n"
    return text


def _finetune_line(beyond: list[int]) -> str:
    plain_name = next((m for m in summary if m.startswith("rope@ft")), None)
    pi_name = next((m for m in summary if m.startswith("rope+linear@ft")), None)
    if plain_name is None or pi_name is None:
        return ""
    plain, pi = summary[plain_name], summary[pi_name]
    ft_len = lab.parse_method(pi_name).finetune_len or train_len
    steps_ft = data["settings"].get("ft_steps")
    how = f"{steps_ft} steps" if steps_ft else "a short fine-tune"
    text = (
        f"* **Fine-tuning at {ft_len} tokens ({how})**: without scaling (`{plain_name}`) "
        f"{', '.join(f'{_at(plain, n)} at {_lens([n])}' for n in [train_len, *beyond])}; with PI (`{pi_name}`, "
        f"s = {ft_len / train_len:g}) {', '.join(_at(pi, n) for n in [train_len, *beyond])}. "
    )
    pi_better, pi_worse = _by_length(pi, plain, [train_len, *beyond])
    if pi_worse and not pi_better:
        text += (
            f"The plain fine-tune is better at {_lens(pi_worse)}"
            + ("" if len(pi_worse) == len(beyond) + 1 else " (within 0.05 at the other lengths)")
            + ": this disagrees with Chen et al. (2023), where "
            "fine-tuning with PI beat fine-tuning without it (which extended the context only slowly). "
        )
        if metric == "accuracy" and _beats(_v(plain, train_len) or 0.0, _v(pi, train_len) or 0.0):
            text += (
                f"Here PI fails even at L: dividing every position by s = {ft_len / train_len:g} turns the offsets the "
                f"task needs into fractions of a position, and {how} did not relearn them.\n"
            )
        else:
            text += "\n"
    elif pi_better and not pi_worse:
        text += (
            f"PI's fine-tune is better at {_lens(pi_better)}"
            + ("" if len(pi_better) == len(beyond) + 1 else " (within 0.05 at the other lengths)")
            + ", as Chen et al. (2023) found.\n"
        )
    else:
        text += (
            f"PI's fine-tune is better at {_lens(pi_better) or 'no length'} and worse at "
            f"{_lens(pi_worse) or 'no length'} (within 0.05 elsewhere): no clear winner, unlike Chen et al. (2023), "
            "where PI's fine-tune won.\n"
        )
    return text


def _ntk_line(beyond: list[int]) -> str:
    rope_r, ntk = summary.get("rope", {}), summary.get("rope+ntk", {})
    if not rope_r or not ntk:
        return ""
    better, worse = _by_length(ntk, rope_r, beyond)
    held = [n for n in beyond if _flat(ntk, train_len, n)]
    text = (
        "* **NTK-aware scaling** (bloc97 2023: extend a model with no fine-tune by raising the base): "
        f"{', '.join(f'{_at(ntk, n)} at {_lens([n])}' for n in beyond)} against plain RoPE's "
        f"{', '.join(_at(rope_r, n) for n in beyond)}; better at {_lens(better) or 'no length'}"
        + (f", worse at {_lens(worse)}" if worse else "")
        + "; within 0.05 of its value at L "
        + (f"at {_lens(held)}" if held else "at no length past L")
        + (
            ": it repairs part of the range without fine-tuning, as bloc97 reported, not all of it.\n"
            if better and len(held) < len(beyond)
            else ": as bloc97 reported, it extends the model without fine-tuning.\n"
            if better
            else ": here it does not help.\n"
        )
    )
    return text


def _alibi_line(longest: int) -> str:
    alibi = summary.get("alibi", {})
    if not alibi:
        return ""
    inside = {m: _v(summary[m], train_len) for m in ("nope", "learned", "sinusoidal", "rope", "alibi") if m in summary}
    valued = {m: v for m, v in inside.items() if v is not None}
    best = better(valued, key=valued.__getitem__)
    text = f"* **ALiBi**: {_at(alibi, train_len)} at L, {_at(alibi, longest)} at {longest}" + (
        ": flat, as in Press et al. (2022)"
        if _flat(alibi, train_len, longest)
        else ": not flat on this task, unlike Press et al.'s (2022) language models"
    )
    if best != "alibi" and _beats(valued[best], valued["alibi"]):
        text += (
            f"; but even at L it is behind {best} ({fmt.format(valued[best])}): its bias only lowers the score of "
            "far keys in proportion to distance and names no exact offset, so a task that needs the tokens at "
            "exact offsets is learned only partly.\n"
        )
    else:
        text += f"; at L it is as good as the best of the five ({best}, {fmt.format(valued[best])}).\n"
    return text


def _nope_line(longest: int) -> str:
    long_name = next((m for m in summary if m.startswith("nope (")), None)
    nope, long = summary.get("nope", {}), summary.get(long_name, {}) if long_name else {}
    if not nope or not long:
        return ""
    steps_long = data["settings"].get("long_nope_steps")
    text = (
        f"* **NoPE trained longer** (`{long_name}` against {entry['steps']} steps): {_at(long, train_len)} at L "
        f"(against {_at(nope, train_len)}), {_at(long, longest)} at {longest} (against {_at(nope, longest)}). "
    )
    gained = _beats(_v(long, train_len) or 0.0, _v(nope, train_len) or 0.0)
    text += (
        f"{'Longer training helps inside L' if gained else 'Longer training changes little inside L'}"
        + (
            f" {'and' if gained else 'but'} the curve still moves by more than 0.05 past L"
            if not _flat(long, train_len, longest)
            else f"{'' if gained else ','} and it stays within 0.05 past L"
        )
        + "; Kazemnejad et al. (2023) found NoPE generalising to longer inputs better than explicit encodings on "
        "their synthetic tasks, and the causal mask alone lets a model count positions (Haviv et al. 2022)"
        + (
            f" — with {steps_long} steps and 2 layers this one does not."
            if not _flat(long, train_len, longest)
            else "."
        )
        + "\n"
    )
    return text


with st.expander("What tiny synthetic models can and cannot say", icon=":material/balance:"):
    rope_row, sin_row = summary.get("rope", {}), summary.get("sinusoidal", {})
    longest = max(lengths)
    beyond = [n for n in lengths if n >= 2 * train_len]
    st.markdown(
        f"* **Sinusoidal 'can extrapolate'** (Vaswani et al. 2017, a hope, not a measurement): here the added sinusoid "
        f"gives {_at(sin_row, train_len)} at L and {_at(sin_row, longest)} at {longest} on this task"
        + (
            "; Press et al. (2022, Fig. 1) saw it break on language models, where perplexity explodes just past L.\n"
            if _flat(sin_row, train_len, longest)
            else ". Press et al. (2022, Fig. 1) found the same on language models: perplexity explodes just past L.\n"
        )
        + "* **Learned tables 'can't extrapolate'**: true by construction; there is no row to look up.\n"
        f"* **RoPE has 'no length limit'**: the formula has none; the trained model: {_at(rope_row, train_len)} at L, "
        f"{_at(rope_row, 2 * train_len)} at 2L, {_at(rope_row, longest)} at {longest}"
        + (
            " — it held on this task, though Press et al. and Chen et al. (2023) report RoPE degrading past L.\n"
            if _flat(rope_row, train_len, longest)
            else " — a limit after all, as Press et al. and Chen et al. (2023) report for RoPE past L.\n"
        )
        + _alibi_line(longest)
        + _pi_line(beyond)
        + _finetune_line(beyond)
        + _ntk_line(beyond)
        + _yarn_line(longest)
        + _nope_line(longest)
        + "\nWhat they cannot say: these are 2-layer models with ≈100k parameters, a few hundred steps and synthetic "
        "tasks whose answer lies a fixed few tokens back. Real language needs long-range retrieval, and large models "
        "learn position partly from the causal mask (NoPE); numbers here show the mechanisms, not the sizes of effects "
        "in LLMs."
    )

page_footer(
    "lab",
    {"task": task, "beta_fast": beta, "model": recipe, "layer": layer_used},
    data=table,
    file_name=f"lab_{task}.csv",
)
