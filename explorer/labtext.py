"""The Extrapolation lab's words (pages/6_Extrapolation_lab.py): results -> markdown, no Streamlit calls.

Every sentence is computed from the numbers it is given (the shipped results, an evaluated curve, a
job's progress), so it stays true whatever the controls or the data say: the "what to notice" lists of
each tab, the captions of the Extension and Train tabs, the progress-bar texts, and the section on what
tiny synthetic models can and cannot say (each published claim against the shipped numbers).

"Flat", "the same", "better" and "recovered" mean: by more (or not more) than ``CLOSE`` in the task's
metric (nats for the loss, accuracy points for accuracy).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.notices import escape_markdown
from explorer.presets_ui import layers_differ, parsed_preset
from posenc.lab import ENCODINGS, MethodSpec, break_position, parse_method, preset_method, summarize
from posenc.methods import ROPE_METHODS
from posenc.models import PRESETS
from posenc.scaling import yarn_correction_range

CLOSE = 0.05  # nats for the loss, accuracy points for accuracy: "flat", "the same", "recovered"
FMT = "{:.3f}"
#: YaRN's β_fast when a rope block leaves it out (HF's value, declared once in posenc.methods).
BETA_FAST_DEFAULT = float(ROPE_METHODS["yarn"].key("beta_fast").default)
#: The five trained encodings the "what to notice" lists compare (the scaled and fine-tuned rows aside).
LIVE = ENCODINGS
#: The encodings whose break position the per-position view names.
BREAKING = ("nope", "sinusoidal", "rope", "alibi")

Row = Mapping[int, tuple[float | None, float | None, int]]  # length -> (mean, sd, seeds), lab.summarize's


@dataclass(frozen=True)
class Shown:
    """One task's shipped numbers as the page shows them: means over seeds (``lab.summarize``), the
    task's metric and references, the training length, the evaluation lengths and the run settings."""

    summary: Mapping[str, Row]
    metric: str
    references: Mapping[str, float]
    train_len: int
    lengths: tuple[int, ...]
    steps: int
    settings: Mapping[str, Any]

    @property
    def longest(self) -> int:
        return max(self.lengths)

    def v(self, row: Row, n: int) -> float | None:
        return row.get(n, (None,))[0]

    def at(self, row: Row, n: int) -> str:
        v = self.v(row, n)
        return "—" if v is None else FMT.format(v)

    def flat(self, row: Row, n0: int, n1: int) -> bool:
        """Within CLOSE (nats, or accuracy points) of its value at n0."""
        a, b = self.v(row, n0), self.v(row, n1)
        return a is not None and b is not None and abs(b - a) <= CLOSE

    def beats(self, a: float, b: float) -> bool:
        """a better than b by more than CLOSE in the task's metric."""
        return (b - a if self.metric == "loss" else a - b) > CLOSE

    def best(self, values: Mapping[str, float]) -> str:
        return (min if self.metric == "loss" else max)(values, key=values.__getitem__)

    def worst(self, values: Mapping[str, float]) -> str:
        return (max if self.metric == "loss" else min)(values, key=values.__getitem__)

    def by_length(self, a: Row, b: Row, ns: Sequence[int]) -> tuple[list[int], list[int]]:
        """The lengths where a is better than b by more than CLOSE, and those where it is worse."""
        pairs = [(n, self.v(a, n), self.v(b, n)) for n in ns]
        valued = [(n, x, y) for n, x, y in pairs if x is not None and y is not None]
        return [n for n, x, y in valued if self.beats(x, y)], [n for n, x, y in valued if self.beats(y, x)]

    def lens(self, ns: Sequence[int]) -> str:
        """Lengths as multiples of L ("L, 2L, 8L"), or in tokens when not a multiple."""
        L = self.train_len
        return ", ".join("L" if n == L else f"{n // L}L" if n % L == 0 else f"{n} tokens" for n in ns)


def shown(data: Mapping[str, Any], task: str) -> Shown:
    """The shipped results file's task ``task`` (a key of data["tasks"]) as :class:`Shown`."""
    entry = data["tasks"][task]
    return Shown(
        summary=summarize(entry["runs"]),
        metric=entry["metric"],
        references=entry["references"],
        train_len=int(data["settings"]["train_len"]),
        lengths=tuple(int(n) for n in data["settings"]["eval_lens"]),
        steps=int(entry["steps"]),
        settings=data["settings"],
    )


def shipped_caption(data: Mapping[str, Any], task: str) -> str:
    """Where the shipped numbers come from: date, command, steps, seeds, scored tokens."""
    entry = data["tasks"][task]
    n_seeds = max(len(s) for s in entry["runs"].values())
    # plain text, not `code`: code in a caption fails the contrast check (axe-core, color-contrast)
    return (
        f"Shipped results of {data['date']}, made by: {data['command']} · {entry['steps']} training steps · "
        f"up to {n_seeds} seed(s) per model · ≈{data['settings']['tokens']:,} scored tokens per length."
    )


# ------------------------------------------------------------------------------ Length and Per position


def length_notes(s: Shown) -> list[str]:
    """What to notice under the loss/accuracy-against-length chart (the five encodings at the longest length)."""
    longest, L = s.longest, s.train_len
    at_long = {m: s.summary[m][longest][0] for m in LIVE if m in s.summary}
    valued = {m: v for m, v in at_long.items() if v is not None}
    items = []
    if valued:
        best, worst = s.best(valued), s.worst(valued)
        items.append(
            f"At {longest} tokens ({longest // L}·L) the best of the five is **{best}** "
            f"({FMT.format(valued[best])}), the worst **{worst}** ({FMT.format(valued[worst])})."
        )
        uni = s.references["uniform"]
        bad = [m for m, v in valued.items() if (v > uni if s.metric == "loss" else v < uni)]
        if bad:
            items.append(f"Worse than uniform guessing ({FMT.format(uni)}) at {longest}: {', '.join(bad)}.")
    if "learned" in at_long and at_long["learned"] is None:
        items.append(f"The learned table has {L} rows: past L it has no value at all, not a bad one.")
    rope_row = s.summary.get("rope", {})
    if s.v(rope_row, 2 * L) is not None and s.v(rope_row, L) is not None:
        items.append(
            f"Plain RoPE: {s.at(rope_row, L)} at L, {s.at(rope_row, 2 * L)} at 2L, {s.at(rope_row, longest)} at {longest}."
        )
    return items


def position_title(n_pos: int, n_bins: int) -> str:
    """The per-position chart's x title: one evaluation's length and the bin width."""
    return f"position in one {n_pos}-token evaluation (mean of {n_pos / max(1, min(n_bins, n_pos)):g}-token bins)"


def position_notes(per_position: Mapping[str, Sequence[float | None] | None], train_len: int, metric: str) -> list[str]:
    """Where each encoding's per-position curve leaves its level inside L by more than CLOSE."""
    items = []
    for m, curve in per_position.items():
        if curve is None or m not in BREAKING:
            continue
        pos = break_position(curve, train_len, metric=metric, worse_by=CLOSE)
        items.append(
            f"**{m}**: "
            + (
                f"worse by more than {CLOSE} from about position {pos} ({pos / train_len:.1f}·L)."
                if pos is not None
                else f"never worse by more than {CLOSE} than inside L."
            )
        )
    return items


# ------------------------------------------------------------------------------ Extension


@dataclass(frozen=True)
class Recipe:
    """A real model's recipe as the Extension panel uses it: the preset key ("none": the method
    controls), the layer whose rope is applied (None: the model's layers share one), the method, and
    the notes to show ("warning" or "caption", text)."""

    key: str
    layer: int | None
    spec: MethodSpec | None
    notes: tuple[tuple[str, str], ...]


def recipe_layers(preset_key: str) -> int:
    """The number of decoder layers whose ropes differ for ``preset_key`` (0: none chosen, or its layers
    all use the same rope, so no layer is asked for)."""
    if preset_key not in PRESETS or not layers_differ(PRESETS[preset_key]):
        return 0
    parsed = parsed_preset(PRESETS[preset_key])
    return len(parsed.layer_plans) if parsed is not None else 0


def recipe(preset_key: str, layer: int | None) -> Recipe:
    """The recipe of ``preset_key`` at ``layer`` (clamped to the model's layers with a warning; ignored,
    with a caption, for a model whose layers share one rope), or no recipe with a warning when it cannot
    be applied (a NoPE layer, a left-out rope_type)."""
    if preset_key == "none":
        return Recipe("none", None, None, ())
    n_layers = recipe_layers(preset_key)
    name = PRESETS[preset_key].name
    used = None if not n_layers or layer is None else min(max(0, int(layer)), n_layers - 1)
    notes: list[tuple[str, str]] = []
    if used is not None and used != layer:
        notes.append(("warning", f"{name} has {n_layers} layers: showing layer {used}."))
    elif not n_layers and layer:
        notes.append(("caption", f"Every layer of {name} uses the same rope: the layer does not matter."))
    try:
        spec = preset_method(preset_key, used)
    except ValueError as exc:
        notes.append(("warning", f"{exc}. Showing the settings above instead."))
        return Recipe("none", None, None, tuple(notes))
    return Recipe(preset_key, used, spec, tuple(notes))


def recipe_label(r: Recipe) -> str:
    """The recipe's name in the chart: "Gemma 3 4B's recipe (layer 5)"."""
    return f"{PRESETS[r.key].name}'s recipe" + (f" (layer {r.layer})" if r.layer is not None else "")


def recipe_text(r: Recipe, *, head_dim: int, train_len: int, theta: float) -> str:
    """What applying a real model's recipe does, in plain words, from the preset and the block used;
    ``head_dim`` and ``theta`` are the tiny model's."""
    if r.spec is None:
        raise ValueError(f"recipe: {r.key!r} could not be applied, so it has no text")
    preset = PRESETS[r.key]
    name = escape_markdown(preset.name)
    where = f"{name}'s layer {r.layer}" if r.layer is not None else name
    block = r.spec.rope_block(train_len, train_len)
    if block is None:
        return (
            f"{where} uses no scaling (rope_type default), so its recipe leaves the tiny model as it is: "
            "the two curves are the same."
        )
    params = ", ".join(f"{k} = {v}" for k, v in r.spec.params.items())
    original = preset.rope_parameters.get("original_max_position_embeddings")
    return (
        f"Applied: the recipe of {where}, rope_type {r.spec.rope_type} with its own {params}, on the tiny RoPE model: "
        + (
            f"original_max_position_embeddings = {block['original_max_position_embeddings']} (this lab's training "
            f"length, not the model's {original:,}), "
            if "original_max_position_embeddings" in block and original
            else f"the trained length L = {train_len} where the method reads one, "
        )
        + f"head_dim = {head_dim} (not {preset.head_dim}) and base {theta:,.0f} (the tiny model's, "
        f"not {float(preset.rope_parameters.get('rope_theta', preset.rope_theta)):,.0f}). The factor is the model's "
        "own at every length, not length / L."
    )


def extension_caption(*, ext_tokens: int, rope_seeds: int, tokens: int) -> str:
    """Why the panel's plain-RoPE curve differs from the Length tab's."""
    return (
        f"This panel evaluates the seed-0 RoPE model on {ext_tokens:,} scored tokens per length so that it "
        f"follows the controls in seconds; the Length tab shows the mean over {rope_seeds} seed(s) with "
        f"≈{tokens:,} tokens per length, so its plain-RoPE values differ from this "
        "panel's by the seeds and the sample."
    )


def extension_notes(
    curve: Mapping[int, float], base: Mapping[int, float], *, method: str, train_len: int, metric: str
) -> list[str]:
    """The scaled curve against plain RoPE at the longest length and at L."""
    longest = max(curve)
    d = curve[longest] - base[longest]
    good = d < 0 if metric == "loss" else d > 0
    return [
        f"At {longest} tokens: {FMT.format(curve[longest])} with {method}, {FMT.format(base[longest])} "
        f"without: {'better' if good else 'worse' if d else 'the same'} by {abs(d):.3f}.",
        f"At L = {train_len}: {FMT.format(curve[train_len])} against {FMT.format(base[train_len])} "
        + (
            "(a scaling that changes the angles inside L changes what the model was trained on)."
            if abs(curve[train_len] - base[train_len]) > 1e-9
            else "(unchanged inside L)."
        ),
    ]


def llama3_caption(train_len: int) -> str:
    """The llama3 keys the panel does not offer, at the values it uses."""
    block = parse_method("rope+llama3").rope_block(train_len, train_len) or {}
    return (
        f"llama3 here uses low_freq_factor = {block['low_freq_factor']:g} and high_freq_factor = "
        f"{block['high_freq_factor']:g} (posenc's declared defaults, Llama 3.1's values) with L = {train_len}."
    )


def yarn_ramp_caption(*, head_dim: int, train_len: int, beta: float, base: float) -> str:
    """Which pairs YaRN's ramp covers at this β_fast, against the paper's β_fast."""
    ramp = yarn_correction_range(head_dim, base=base, original_max_position_embeddings=train_len, beta_fast=beta)
    paper = yarn_correction_range(head_dim, base=base, original_max_position_embeddings=train_len)
    text = (
        f"With this model's head_dim = {head_dim} ({head_dim // 2} pairs) and L = {train_len}, β_fast = {beta:g} "
        f"puts YaRN's ramp at pairs {ramp[0]:g}–{ramp[1]:g}: pairs below it keep their frequency, pairs above "
        "it are divided by s. "
    )
    if ramp == paper and beta != BETA_FAST_DEFAULT:
        text += (
            f"The paper's β_fast = {BETA_FAST_DEFAULT:g} gives the same ramp (the ends are rounded to whole pairs, and at so "
            "short an L no pair turns that often), so this β_fast gives the same numbers as the paper's."
        )
    elif beta != BETA_FAST_DEFAULT:
        text += f"The paper's β_fast = {BETA_FAST_DEFAULT:g} would give pairs {paper[0]:g}–{paper[1]:g}."
    return text


# ------------------------------------------------------------------------------ Attention


def attention_note(weights: np.ndarray, *, train_len: int, length: int) -> str:
    """The mean largest weight per query inside L and past it (dilution)."""
    rows_max = weights.max(axis=1)
    inside = float(rows_max[:train_len].mean())
    outside = float(rows_max[train_len:].mean()) if length > train_len else None
    return f"Mean largest weight per query: {inside:.3f} at positions < L" + (
        f", {outside:.3f} at positions ≥ L (lower = attention spread thinner: dilution)."
        if outside is not None
        else "."
    )


# ------------------------------------------------------------------------------ Train


def settings_text(k: tuple) -> str:
    """A job's own settings, from its key (ttask, encodings, L, steps, d, seed)."""
    k_task, k_encs, k_len, k_steps, k_width, k_seed = k
    return f"{k_task}, {', '.join(k_encs)}: {k_steps} steps at L = {k_len}, d = {k_width}, seed {k_seed}"


def train_caption(k: tuple, *, timeout: float) -> str:
    """What the Train button would do with the settings ``k``, and the queue's rules (`timeout`: seconds
    without a connection or a page run after which a job stops)."""
    _, k_encs, k_len, k_steps, k_width, _ = k
    return (
        f"{len(k_encs)} model(s) × {k_steps} steps at L = {k_len}, d = {k_width}, evaluated at "
        f"{', '.join(str(m * k_len) for m in (1, 2, 4, 8))}. One training job runs per server at a time, on one "
        "core; results are cached for everyone. Your job keeps running while you look at other tabs or pages "
        f"or move these sliders, and stops within {timeout:g} s of closing the browser tab."
    )


def run_title(k: tuple) -> str:
    """The title of a finished run's chart."""
    s_task, _, s_len, s_steps, s_width, s_seed = k
    return f"Your run: {s_task}, {s_steps} steps, L = {s_len}, d = {s_width}, seed {s_seed}"


def model_bars(encodings: Sequence[str], progress: Mapping[str, Any], running: bool) -> list[tuple[float, str]]:
    """One progress bar per model of a job, (fraction, text): trained, running (step, loss) or waiting.
    ``progress`` is the job's last report (index, step, steps, loss, last: {model: last loss})."""
    index = progress.get("index", -1) if running else -1
    bars = []
    for i, enc in enumerate(encodings):
        if i < index:
            bars.append((1.0, f"{enc}: trained (last training loss {progress['last'][enc]:.3f}), evaluated"))
        elif i == index:
            frac = progress["step"] / progress["steps"]
            what = (
                "evaluating"
                if progress["step"] >= progress["steps"]
                else f"step {progress['step']} of {progress['steps']}"
            )
            bars.append((min(1.0, frac), f"{enc}: {what}, training loss {progress['loss']:.3f}"))
        else:
            bars.append((0.0, f"{enc}: waiting"))
    return bars


# ------------------------------------------------------------------------------ what tiny models can say


def _yarn_line(s: Shown, n1: int) -> str:
    """YaRN's β_fast, as the shipped runs show it (the default against the shipped low value)."""
    paper = s.summary.get("rope+yarn", {})
    low_name = next((m for m in s.summary if m.startswith("rope+yarn:beta_fast=")), None)
    if not paper or low_name is None:
        return ""
    low_beta = parse_method(low_name).params["beta_fast"]
    low = s.summary[low_name]
    a, b = s.v(paper, n1), s.v(low, n1)
    if a is None or b is None:
        return ""
    same = abs(a - b) < 1e-9
    d = BETA_FAST_DEFAULT
    return (
        f"* **YaRN's β_fast** (Peng et al. 2023 use {d:g}, tuned for L in the thousands): at {n1} tokens, "
        f"{s.at(paper, n1)} with β_fast = {d:g} and {s.at(low, n1)} with β_fast = {low_beta:g}"
        + (f" — the same: at L = {s.train_len} both ramps start at the fastest pair." if same else ".")
        + "\n"
    )


def _pi_line(s: Shown, beyond: list[int]) -> str:
    rope_r, pi = s.summary.get("rope", {}), s.summary.get("rope+linear", {})
    if not rope_r or not pi:
        return ""
    better, worse = s.by_length(pi, rope_r, beyond)
    text = (
        "* **Position Interpolation 'works because the model has seen all the angles'**: applied at evaluation with "
        f"no fine-tune (factor = length / L), PI gives {', '.join(f'{s.at(pi, n)} at {s.lens([n])}' for n in beyond)}, "
        f"plain RoPE {', '.join(s.at(rope_r, n) for n in beyond)}: "
    )
    if worse and not better:
        text += (
            f"worse than no scaling at {s.lens(worse)}"
            + ("" if len(worse) == len(beyond) else f" (within {CLOSE} at the other lengths)")
            + ". "
        )
    elif better and not worse:
        text += (
            f"better than no scaling at {s.lens(better)}"
            + ("" if len(better) == len(beyond) else f" (within {CLOSE} at the other lengths)")
            + ". "
        )
    else:
        text += (
            f"better at {s.lens(better) or 'no length'}, worse at {s.lens(worse) or 'no length'}, "
            f"within {CLOSE} elsewhere. "
        )
    text += "Chen et al. (2023) interpolate and then fine-tune (about 1,000 steps): the model must learn the new, finer angles.\n"
    return text


def _finetune_line(s: Shown, beyond: list[int]) -> str:
    plain_name = next((m for m in s.summary if m.startswith("rope@ft")), None)
    pi_name = next((m for m in s.summary if m.startswith("rope+linear@ft")), None)
    if plain_name is None or pi_name is None:
        return ""
    L = s.train_len
    plain, pi = s.summary[plain_name], s.summary[pi_name]
    ft_len = parse_method(pi_name).finetune_len or L
    steps_ft = s.settings.get("ft_steps")
    how = f"{steps_ft} steps" if steps_ft else "a short fine-tune"
    text = (
        f"* **Fine-tuning at {ft_len} tokens ({how})**: without scaling (`{plain_name}`) "
        f"{', '.join(f'{s.at(plain, n)} at {s.lens([n])}' for n in [L, *beyond])}; with PI (`{pi_name}`, "
        f"s = {ft_len / L:g}) {', '.join(s.at(pi, n) for n in [L, *beyond])}. "
    )
    pi_better, pi_worse = s.by_length(pi, plain, [L, *beyond])
    if pi_worse and not pi_better:
        text += (
            f"The plain fine-tune is better at {s.lens(pi_worse)}"
            + ("" if len(pi_worse) == len(beyond) + 1 else f" (within {CLOSE} at the other lengths)")
            + ": this disagrees with Chen et al. (2023), where "
            "fine-tuning with PI beat fine-tuning without it (which extended the context only slowly). "
        )
        if s.metric == "accuracy" and s.beats(s.v(plain, L) or 0.0, s.v(pi, L) or 0.0):
            text += (
                f"Here PI fails even at L: dividing every position by s = {ft_len / L:g} turns the offsets the "
                f"task needs into fractions of a position, and {how} did not relearn them.\n"
            )
        else:
            text += "\n"
    elif pi_better and not pi_worse:
        text += (
            f"PI's fine-tune is better at {s.lens(pi_better)}"
            + ("" if len(pi_better) == len(beyond) + 1 else f" (within {CLOSE} at the other lengths)")
            + ", as Chen et al. (2023) found.\n"
        )
    else:
        text += (
            f"PI's fine-tune is better at {s.lens(pi_better) or 'no length'} and worse at "
            f"{s.lens(pi_worse) or 'no length'} (within {CLOSE} elsewhere): no clear winner, unlike Chen et al. "
            "(2023), where PI's fine-tune won.\n"
        )
    return text


def _ntk_line(s: Shown, beyond: list[int]) -> str:
    rope_r, ntk = s.summary.get("rope", {}), s.summary.get("rope+ntk", {})
    if not rope_r or not ntk:
        return ""
    better, worse = s.by_length(ntk, rope_r, beyond)
    held = [n for n in beyond if s.flat(ntk, s.train_len, n)]
    return (
        "* **NTK-aware scaling** (bloc97 2023: extend a model with no fine-tune by raising the base): "
        f"{', '.join(f'{s.at(ntk, n)} at {s.lens([n])}' for n in beyond)} against plain RoPE's "
        f"{', '.join(s.at(rope_r, n) for n in beyond)}; better at {s.lens(better) or 'no length'}"
        + (f", worse at {s.lens(worse)}" if worse else "")
        + f"; within {CLOSE} of its value at L "
        + (f"at {s.lens(held)}" if held else "at no length past L")
        + (
            ": it repairs part of the range without fine-tuning, as bloc97 reported, not all of it.\n"
            if better and len(held) < len(beyond)
            else ": as bloc97 reported, it extends the model without fine-tuning.\n"
            if better
            else ": here it does not help.\n"
        )
    )


def _alibi_line(s: Shown) -> str:
    alibi = s.summary.get("alibi", {})
    if not alibi:
        return ""
    L, longest = s.train_len, s.longest
    inside = {m: s.v(s.summary[m], L) for m in LIVE if m in s.summary}
    valued = {m: v for m, v in inside.items() if v is not None}
    best = s.best(valued)
    text = f"* **ALiBi**: {s.at(alibi, L)} at L, {s.at(alibi, longest)} at {longest}" + (
        ": flat, as in Press et al. (2022)"
        if s.flat(alibi, L, longest)
        else ": not flat on this task, unlike Press et al.'s (2022) language models"
    )
    if best != "alibi" and s.beats(valued[best], valued["alibi"]):
        text += (
            f"; but even at L it is behind {best} ({FMT.format(valued[best])}): its bias only lowers the score of "
            "far keys in proportion to distance and names no exact offset, so a task that needs the tokens at "
            "exact offsets is learned only partly.\n"
        )
    else:
        text += f"; at L it is as good as the best of the five ({best}, {FMT.format(valued[best])}).\n"
    return text


def _nope_line(s: Shown) -> str:
    long_name = next((m for m in s.summary if m.startswith("nope (")), None)
    nope, long = s.summary.get("nope", {}), s.summary.get(long_name, {}) if long_name else {}
    if not nope or not long:
        return ""
    L, longest = s.train_len, s.longest
    steps_long = s.settings.get("long_nope_steps")
    flat = s.flat(long, L, longest)
    gained = s.beats(s.v(long, L) or 0.0, s.v(nope, L) or 0.0)
    return (
        f"* **NoPE trained longer** (`{long_name}` against {s.steps} steps): {s.at(long, L)} at L "
        f"(against {s.at(nope, L)}), {s.at(long, longest)} at {longest} (against {s.at(nope, longest)}). "
        f"{'Longer training helps inside L' if gained else 'Longer training changes little inside L'}"
        + (
            f" {'and' if gained else 'but'} the curve still moves by more than {CLOSE} past L"
            if not flat
            else f"{'' if gained else ','} and it stays within {CLOSE} past L"
        )
        + "; Kazemnejad et al. (2023) found NoPE generalising to longer inputs better than explicit encodings on "
        "their synthetic tasks, and the causal mask alone lets a model count positions (Haviv et al. 2022)"
        + (f" — with {steps_long} steps and 2 layers this one does not." if not flat else ".")
        + "\n"
    )


def honest_section(s: Shown) -> str:
    """What tiny synthetic models can and cannot say: each published claim against the shipped numbers."""
    rope_row, sin_row = s.summary.get("rope", {}), s.summary.get("sinusoidal", {})
    L, longest = s.train_len, s.longest
    beyond = [n for n in s.lengths if n >= 2 * L]
    return (
        f"* **Sinusoidal 'can extrapolate'** (Vaswani et al. 2017, a hope, not a measurement): here the added sinusoid "
        f"gives {s.at(sin_row, L)} at L and {s.at(sin_row, longest)} at {longest} on this task"
        + (
            "; Press et al. (2022, Fig. 1) saw it break on language models, where perplexity explodes just past L.\n"
            if s.flat(sin_row, L, longest)
            else ". Press et al. (2022, Fig. 1) found the same on language models: perplexity explodes just past L.\n"
        )
        + "* **Learned tables 'can't extrapolate'**: true by construction; there is no row to look up.\n"
        f"* **RoPE has 'no length limit'**: the formula has none; the trained model: {s.at(rope_row, L)} at L, "
        f"{s.at(rope_row, 2 * L)} at 2L, {s.at(rope_row, longest)} at {longest}"
        + (
            " — it held on this task, though Press et al. and Chen et al. (2023) report RoPE degrading past L.\n"
            if s.flat(rope_row, L, longest)
            else " — a limit after all, as Press et al. and Chen et al. (2023) report for RoPE past L.\n"
        )
        + _alibi_line(s)
        + _pi_line(s, beyond)
        + _finetune_line(s, beyond)
        + _ntk_line(s, beyond)
        + _yarn_line(s, longest)
        + _nope_line(s)
        + "\nWhat they cannot say: these are 2-layer models with ≈100k parameters, a few hundred steps and synthetic "
        "tasks (a Markov chain, the token a fixed few places back, a copy of the first half). Real language needs long-range retrieval, and large models "
        "learn position partly from the causal mask (NoPE); numbers here show the mechanisms, not the sizes of effects "
        "in LLMs."
    )
