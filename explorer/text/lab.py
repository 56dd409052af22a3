"""The Extrapolation lab's words (pages/6_Extrapolation_lab.py): results -> markdown, no Streamlit calls.

Every sentence the page shows lives here, chart titles and captions included.

Every sentence is computed from the numbers it is given (the shipped results, an evaluated curve, a
job's progress), so it stays true whatever the controls or the data say: the "what to notice" lists of
each tab, the captions of the Extension and Train tabs, the progress-bar texts, and the section on what
tiny synthetic models can and cannot say (each published claim against the shipped numbers).

Rules: a row that did not learn the task inside L (``posenc.lab.learned``) gets no extrapolation claim,
only "<method> did not learn the task inside L (…)"; every number is a mean over seeds with its 95 %
interval (each seed on its own evaluation sample); "better", "worse", "breaks" are said only where the
seed-paired interval says so; "within CLOSE" (nats, or accuracy points) only where the whole interval is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from explorer.notices import escape_markdown
from explorer.presets_ui import layers_differ, parsed_preset
from explorer.text import count, join_names
from posenc.lab import (
    COPY_PART,
    DYNAMIC_FACTOR,
    ENCODINGS,
    LEARNED_ACCURACY,
    LEARNED_MARGIN,
    NEWER,
    PEAK_SHARE,
    TASKS,
    MethodSpec,
    break_test,
    checks_before_decay,
    learned_rule,
    method_name,
    parse_method,
    preset_method,
    references,
    seed_interval,
)
from posenc.methods import ROPE_METHODS
from posenc.models import PRESETS
from posenc.scaling import yarn_correction_range
from posenc.stats import Interval, bonferroni_level, paired_interval, sign_test

CLOSE = 0.05  # nats for the loss, accuracy points for accuracy: "within", "breaks"
FMT = "{:.3f}"
#: YaRN's β_fast when a rope block leaves it out (HF's value, declared once in posenc.methods).
BETA_FAST_DEFAULT = float(ROPE_METHODS["yarn"].key("beta_fast").default)
#: The trained models the "what to notice" lists compare and whose break position the per-position view names
#: (the scaled and fine-tuned rows aside).
BREAKING = (*ENCODINGS, "alibi:heads=8")

Seeds = Mapping[str, Mapping[str, float | None]]  # {seed: {"<len>": value}}


def _excess(values: Mapping[str, Seeds], optimum: Mapping[str, Seeds]) -> dict[str, dict[str, dict[str, float | None]]]:
    """Per seed and length: value − the exact optimum on the same tokens."""
    out: dict[str, dict[str, dict[str, float | None]]] = {}
    for m, seeds in values.items():
        out[m] = {}
        for k, per in seeds.items():
            opt = optimum.get(m, {}).get(k, {})
            out[m][k] = {n: None if v is None or opt.get(n) is None else v - opt[n] for n, v in per.items()}  # type: ignore[operator]
    return out


@dataclass(frozen=True)
class Shown:
    """One task's shipped numbers as the page shows them: per method and seed the plotted quantity
    (accuracy; for markov the loss above the exact optimum on the same tokens) over all positions
    (``runs``) and past L only (``beyond``), whether each row learned, the references on the same scale,
    the training length, the evaluation lengths and the run settings."""

    task: str
    metric: str
    runs: Mapping[str, Seeds]
    beyond: Mapping[str, Seeds]
    learned: Mapping[str, bool]
    references: Mapping[str, float]
    train_len: int
    lengths: tuple[int, ...]
    steps: int
    settings: Mapping[str, Any]
    entry: Mapping[str, Any]
    #: `ci`'s intervals as computed (an object shared by sessions computes each once)
    _intervals: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def longest(self) -> int:
        return max(self.lengths)

    @property
    def task_label(self) -> str:
        return TASKS[self.task].label if self.task in TASKS else self.task

    @property
    def quantity(self) -> str:
        return "loss above the optimum" if self.metric == "loss" else "accuracy"

    @property
    def shown_metric(self) -> str:
        """The plotted metric: "excess" (markov: the loss above the exact optimum) or the task's metric."""
        return "excess" if self.metric == "loss" else self.metric

    @property
    def lower_is_better(self) -> bool:
        return self.metric == "loss"

    def ci(self, m: str, n: int, *, past: bool = False) -> Interval | None:
        key = (m, int(n), bool(past))
        if key not in self._intervals:
            self._intervals[key] = self._ci(m, n, past=past)
        return self._intervals[key]

    def _ci(self, m: str, n: int, *, past: bool) -> Interval | None:
        values = self._by_seed(m, n, past=past)
        scored = self.entry.get("scored", {}).get(m, {})
        counts = [scored.get(seed, {}).get(str(n)) for seed in values]
        # the scored counts are those of all positions: for past-L figures they are not the trials
        trials = None if past or any(c is None for c in counts) else counts
        return seed_interval(self.metric, list(values.values()), trials)

    def at(self, m: str, n: int, *, past: bool = False) -> str:
        c = self.ci(m, n, past=past)
        return "—" if c is None else c.text()

    def _by_seed(self, m: str, n: int, *, past: bool = False) -> dict[str, float | None]:
        return {k: v.get(str(n)) for k, v in (self.beyond if past else self.runs).get(m, {}).items()}

    def diff(self, a: str, b: str, n: int, *, past: bool = False) -> Interval | None:
        """a − b at length n, paired by seed (one seed's models share its evaluation sample)."""
        return paired_interval(self._by_seed(a, n, past=past), self._by_seed(b, n, past=past))

    def change(self, m: str, n0: int, n1: int) -> Interval | None:
        """The value at n1 minus the value at n0, paired by seed."""
        return paired_interval(self._by_seed(m, n1), self._by_seed(m, n0))

    def _good(self, d: Interval | None) -> tuple[float, float] | None:
        """The interval of ``d`` turned so that positive is better (a loss's sign flipped), or None without one."""
        if d is None or d.lo is None or d.hi is None:
            return None
        return (-d.hi, -d.lo) if self.lower_is_better else (d.lo, d.hi)

    def verdict(self, d: Interval | None) -> str:
        """'better' / 'worse' (the first against the second, whole interval on one side of 0) or 'not separable'."""
        good = self._good(d)
        if good is None:
            return "not separable"
        return "better" if good[0] > 0 else "worse" if good[1] < 0 else "not separable"

    def size(self, d: Interval | None) -> str:
        """A difference (first − second) by size: 'better' or 'worse' by more than CLOSE (whole interval),
        'within' (whole interval within ±CLOSE) or 'unclear'."""
        good = self._good(d)
        if good is None:
            return "unclear"
        good_lo, good_hi = good
        if good_lo > CLOSE:
            return "better"
        if good_hi < -CLOSE:
            return "worse"
        return "within" if good_lo > -CLOSE and good_hi < CLOSE else "unclear"

    def trained_len(self, m: str) -> int:
        return parse_method(m.split(" (")[0]).trained_len(self.train_len)

    def not_learned(self, m: str, *, by_task: bool = False) -> str:
        """'<method> did not learn the task inside L (…)' with its value and the rule; `by_task`: 'it did not learn
        the <task> task …' without the rule, for a paragraph about one method that goes through the tasks (the page
        states the rule once: explorer.text.newer.learned_line)."""
        n = self.trained_len(m)
        where = "inside L" if n == self.train_len else f"at its fine-tune length {n}"
        c = self.ci(m, n)
        value = self.at(m, n)
        bound = LEARNED_ACCURACY if self.metric == "accuracy" else LEARNED_MARGIN
        if c is not None and FMT.format(c.mean) == FMT.format(bound):  # 0.9497 would read "0.950", the bound
            value = c.text("{:.4f}")
        return (
            f"{f'it did not learn the {self.task} task' if by_task else f'**{m}** did not learn the task'} {where} "
            f"({self.quantity} {value} at {n} tokens"
            f"{'' if by_task else f'; learned means {learned_rule(self.metric)}'}), "
            "so its curve says nothing about extrapolation"
        )

    def lens(self, ns: Sequence[int]) -> str:
        """Lengths as multiples of L ("L, 2L, 8L"), or in tokens when not a multiple."""
        L = self.train_len
        return ", ".join("L" if n == L else f"{n // L}L" if n % L == 0 else f"{n} tokens" for n in ns)

    def seeds(self, m: str) -> int:
        return len(self.runs.get(m, {}))


def references_shown(task_refs: Mapping[str, float], metric: str) -> dict[str, float]:
    """The references on the plotted scale: for a loss, each minus the floor (the exact optimum's
    expected value), so the optimum is 0."""
    if metric != "loss":
        return dict(task_refs)
    floor = task_refs["floor"]
    return {"optimum": 0.0, **{k: v - floor for k, v in task_refs.items() if k != "floor"}}


def _by_row(table: Any, runs: Mapping[str, Any]) -> bool:
    """Whether a shipped task's table is keyed by row (method), as runs is."""
    return isinstance(table, Mapping) and bool(table) and set(table) <= set(runs)


def shown(data: Mapping[str, Any], task: str, *, newer: bool = False) -> Shown:
    """The shipped results file's task ``task`` (a key of data["tasks"]) as :class:`Shown`; without ``newer`` the
    rows of the newer encodings (posenc.lab.NEWER: the Newer encodings page's) are left out of every table by row."""
    entry = data["tasks"][task]
    if not newer:
        runs_of = set(entry["runs"]) - set(NEWER)
        entry = {
            k: ({m: v for m, v in rows.items() if m in runs_of} if _by_row(rows, entry["runs"]) else rows)
            for k, rows in entry.items()
        }
    loss = entry["metric"] == "loss"
    runs = _excess(entry["runs"], entry["optimum"]) if loss else entry["runs"]
    beyond = _excess(entry["beyond"], entry["beyond_optimum"]) if loss else entry["beyond"]
    return Shown(
        task=task,
        metric=entry["metric"],
        runs=runs,
        beyond=beyond,
        learned=entry["learned"],
        references=references_shown(entry["references"], entry["metric"]),
        train_len=int(data["settings"]["train_len"]),
        lengths=tuple(int(n) for n in data["settings"]["eval_lens"]),
        steps=int(entry["steps"]),
        settings=data["settings"],
        entry=entry,
    )


def summary_rows(s: Shown, *, past: bool = False, methods: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """One row per method (every row, or ``methods``) and length: mean, 95 % interval, seeds, learned (past:
    positions > L only)."""
    rows = []
    for m in s.runs if methods is None else methods:
        for n in s.lengths:
            if past and n <= s.train_len:
                continue
            c = s.ci(m, n, past=past)
            rows.append(
                {
                    "method": m,
                    "length": n,
                    "value": None if c is None else c.mean,
                    "lo": None if c is None else c.lo,
                    "hi": None if c is None else c.hi,
                    "seeds": 0 if c is None else c.n,
                    "learned": bool(s.learned.get(m, False)),
                }
            )
    return rows


def scored_text(s: Shown) -> str:
    """The scored tokens per length and seed, as shipped (the smallest and largest over rows)."""
    counts = [v for seeds in s.entry.get("scored", {}).values() for per in seeds.values() for v in per.values() if v]
    if not counts:
        return ""
    return f"{count_text(counts)} scored tokens per length and seed"


def training_text(s: Shown) -> str:
    """What training took, from the shipped record: a fixed number of steps, or (trained to the target) the
    steps at whose held-out check each model had learned, per row and over seeds, and the caps."""
    trained = s.entry.get("trained") or {}
    if not s.entry.get("until_learned") or not trained:
        return f"{s.steps:,} training steps"
    parts, missed, caps = [], [], set()
    unchecked: dict[int, list[str]] = {}
    every = int(s.settings.get("check_every") or 0)
    for m, seeds in trained.items():
        if m not in s.runs or (parse_method(m.split(" (")[0]).rope_type is not None and "@ft" not in m):
            continue  # a scaling at evaluation: the RoPE model's own steps
        reached = [v["reached"] for v in seeds.values() if v.get("reached")]
        cap = max(int(v.get("cap") or s.steps) for v in seeds.values())
        if "@ft" not in m:
            caps.add(cap)
        if every and checks_before_decay(cap, every) == 0:
            unchecked.setdefault(cap, []).append(f"**{m}**")  # no check could say learned: no steps to learn
            continue
        if reached:
            parts.append(f"**{m}** {count_text(reached)}")
        if len(reached) < len(seeds):
            missed.append(f"**{m}** in {len(seeds) - len(reached)} of {len(seeds)} seeds (cap {cap:,})")
    none_ran = [
        f"{', '.join(names)} (cap {cap:,}: the decay starts at step {int(PEAK_SHARE * cap):,}, before the first check "
        f"at {every:,})"
        for cap, names in unchecked.items()
    ]
    ft = s.entry.get("finetune") or {}
    cap_text = "cap " + " or ".join(f"{c:,}" for c in sorted(caps)) + " steps"
    cap_text += f", fine-tunes {ft['steps']:,}" if ft and any("@ft" in m for m in trained) else ""
    return (
        f"each model trained until it learned (a held-out sample checked every {s.settings.get('check_every')} "
        f"steps, {cap_text}; then the rate decays over a quarter of the steps so far); steps to learn over seeds: "
        + (", ".join(parts) or "none")
        + (f"; no check said learned by the cap: {', '.join(missed)}" if missed else "")
        + (f"; no check ran for {'; '.join(none_ran)}" if none_ran else "")
    )


def shipped_caption(data: Mapping[str, Any], task: str) -> str:
    """Where the shipped numbers come from: date, command, what training took, seeds, scored tokens."""
    s = shown(data, task)
    seeds = f"{count_text([s.seeds(m) for m in s.runs])} seeds per row"
    entry = data["tasks"][task]
    complete = entry.get("complete", data.get("complete"))
    done = "" if complete else " (the run was cut short: fewer seeds than planned)"
    # plain text, not `code`: code in a caption fails the contrast check (axe-core, color-contrast)
    return (
        f"Shipped results of {entry.get('date', data['date'])}, made by: {entry.get('command', data['command'])}{done} · "
        f"{training_text(s)} · {seeds}, each seed scored on its own evaluation sample · {scored_text(s)} · bands and "
        "brackets: 95 % intervals over seeds."
    )


# ------------------------------------------------------------------------------ the page's frame

INTRO = (
    "Claims about length are claims about models. The results this page opens on come from tiny "
    "transformers (2 layers, d = 64, 4 heads, ≈100k parameters), one per positional encoding, trained on a "
    "synthetic task with sequences of L = 64 tokens and then run on 128, 256 and 512 (the Train tab trains "
    "others). The same models and numbers come from `posenc.lab` "
    "(`python -m posenc.lab`); the encodings are `posenc.torch`'s modules and the scalings posenc's "
    "`rope_inverse_frequencies`, the registry the Context-extension page draws."
)
#: The task radio's captions, in the order of its options (explorer/site/lab.py)
TASK_CAPTIONS = ("next token, Markov chain", "token 3 back", "copy (induction)", "passkey retrieval")
LOG_LENGTH = "evaluation length (tokens, log scale)"


def unreadable(exc: BaseException) -> str:
    return f"The shipped results could not be read: {escape_markdown(str(exc))}"


def missing_task(task: str) -> str:
    return f"No shipped results for the task {escape_markdown(repr(task))} yet; showing markov."


def length_chart(s: Shown, *, past: bool) -> dict[str, Any]:
    """The Length tab's curve chart: its values and words (all positions, or past L only)."""
    return {
        "x": "length",
        "x_title": LOG_LENGTH,
        "metric": s.shown_metric,
        "train_len": s.train_len,
        "references": s.references,
        "log_x": True,
        "band": True,
        "title": f"{s.task_label}: " + ("positions past L only" if past else "all positions"),
        "subtitle": [
            f"mean over seeds, 95 % interval band, trained on L = {s.train_len}",
            "dashed, faint: did not learn the task inside L; no point: no value",
        ],
        "description": f"{s.quantity} of each model at lengths {list(s.lengths)}"
        + (", scored on positions past L only" if past else "")
        + "; dashed rule at the training length.",
    }


def position_chart(s: Shown) -> dict[str, Any]:
    """The Per-position tab's curve chart: its values and words."""
    width = int(s.settings.get("bin_width", 1))
    along, bins = f"position in one {s.longest}-token evaluation", f"({width}-token bins)"
    return {
        "x": "position",
        "x_title": [along, bins],  # two lines: as one, wider than a phone's plot
        "metric": s.shown_metric,
        "train_len": s.train_len,
        "references": s.references,
        "band": True,
        "title": f"Where each model breaks: {s.quantity} per position",
        "subtitle": [
            f"mean over seeds, 95 % band; bins with ≥ {int(s.settings.get('min_bin_tokens', 0)):,} "
            "scored tokens in every seed",
            "dashed, faint: did not learn the task inside L",
        ],
        "description": f"{s.quantity} per {along} {bins} for each model; the dashed rule marks the training length.",
    }


def no_position_curve(task: str) -> str:
    return f"No per-position curve for {task}: " + (
        "it scores one token per sequence (the answer at the end), so there is nothing along the sequence."
        if task == "passkey"
        else "no bin has enough scored tokens in every seed."
    )


# ------------------------------------------------------------------------------ Length and Per position


def length_notes(s: Shown) -> list[str]:
    """What to notice under the length charts: the rows that did not learn, then, among the trained
    encodings that did, the best at the longest length and which others it beats (paired intervals)."""
    longest, L = s.longest, s.train_len
    items = [s.not_learned(m) + "." for m in s.runs if not s.learned.get(m, False)]
    ok = [m for m in BREAKING if m in s.runs and s.learned.get(m) and s.ci(m, longest) is not None]
    if len(ok) > 1:
        pick = (min if s.lower_is_better else max)(ok, key=lambda m: s.ci(m, longest).mean)  # type: ignore[union-attr]
        beaten = [m for m in ok if m != pick and s.verdict(s.diff(pick, m, longest)) == "better"]
        tied = [m for m in ok if m != pick and m not in beaten]
        text = f"At {longest} tokens ({longest // L}·L), of the encodings that learned, **{pick}** has the best mean ({s.at(pick, longest)})"
        text += f"; better than {', '.join(beaten)} (seed-paired interval)" if beaten else ""
        text += f"; not separable from {', '.join(tied)}" if tied else ""
        items.append(text + ".")
    if "learned" in s.runs and s.ci("learned", longest) is None:
        items.append(f"The learned table has {L} rows: past L it has no value at all, not a bad one.")
    if s.learned.get("rope") and s.ci("rope", 2 * L) is not None:
        items.append(
            f"Plain RoPE: {s.at('rope', L)} at L, {s.at('rope', 2 * L)} at 2L, {s.at('rope', longest)} at {longest}; "
            f"past L only: {s.at('rope', longest, past=True)} at {longest}."
        )
    return items


def position_rows(s: Shown) -> list[dict[str, Any]]:
    """Per-position bins at the longest length: (method, position, value, lo, hi, learned), mean over seeds
    of bins with at least min_bin_tokens scored tokens in every seed."""
    per, counts, bins = s.entry.get("per_position", {}), s.entry.get("bin_counts", {}), s.entry.get("bins", [])
    need = int(s.settings.get("min_bin_tokens", 1))
    rows = []
    for m, seeds in per.items():
        if m not in s.runs or not seeds or any(v is None for v in seeds.values()):
            continue
        for i, (a, b) in enumerate(bins):
            if any(counts[m][k][i] < need for k in seeds):
                continue
            c = seed_interval(s.metric, [seeds[k][i] for k in seeds])
            if c is None:
                continue
            rows.append(
                {
                    "method": m,
                    "position": (a + b - 1) / 2,
                    "value": c.mean,
                    "lo": c.lo,
                    "hi": c.hi,
                    "learned": bool(s.learned.get(m, False)),
                }
            )
    return rows


def _spans(bins: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Adjacent [start, end) bins merged: [(64, 96), (96, 128), (480, 512)] -> [(64, 128), (480, 512)]."""
    out: list[tuple[int, int]] = []
    for a, b in bins:
        if out and out[-1][1] == a:
            out[-1] = (out[-1][0], b)
        else:
            out.append((a, b))
    return out


def spans_text(bins: Sequence[tuple[int, int]]) -> str:
    """'positions 64–159 and 480–511' (inclusive ends) for [start, end) bins."""
    return "positions " + join_names([f"{a}–{b - 1}" for a, b in _spans(bins)])


def copy_distance_clause(s: Shown) -> str:
    """The copy task's distance: the same at every length (posenc.lab.COPY_PART, recorded in the shipped entry as
    "copy_part"); results without that record come from the earlier task, whose distance grew with the length."""
    if s.task != "copy":
        return ""
    if "copy_part" not in s.entry:
        return (
            "These copy results come from the earlier copy task, whose first part was a quarter to half the length "
            "long, so the distance to copy grew with the length: a bin past L also asked for a distance never "
            "trained on, and these bins cannot separate length from distance."
        )
    lo, hi = (int(x) for x in s.entry["copy_part"])
    return (
        f"In the copy task the distance to copy is the same at every length ({lo + 1}–{hi + 1} places back: parts "
        f"of {lo}–{hi} tokens, each followed by a separator and its repeat, one after another along the sequence), "
        "so a bin past L asks about position, not about a distance never trained on."
    )


def position_notes(s: Shown) -> list[str]:
    """Where each trained model's curve breaks past L, by the interval test (posenc.lab.break_test): the bins
    the test could not use are named, and a break in the first bin it could use reads "at or before" when
    untested bins lie between L and it."""
    per, counts, bins = s.entry.get("per_position", {}), s.entry.get("bin_counts", {}), s.entry.get("bins", [])
    need = int(s.settings.get("min_bin_tokens", 1))
    L = s.train_len
    items = []
    for m in BREAKING:
        seeds = per.get(m)
        if m not in s.runs or not seeds or any(v is None for v in seeds.values()):
            continue
        if not s.learned.get(m):
            items.append(s.not_learned(m) + ".")
            continue
        if len(seeds) < 2:
            items.append(f"**{m}**: one seed, so no interval and no verdict on where it breaks.")
            continue
        at_l = {k: v.get(str(L)) for k, v in s.runs[m].items()}
        b = break_test(
            [tuple(x) for x in bins], seeds, counts[m], at_l, L, metric=s.metric, worse_by=CLOSE, min_tokens=need
        )
        # the bins past L the test skips: fewer than `need` scored tokens in some seed (at 512 tokens the copy task
        # scores no token before position 128, so its first bins past L are never tested)
        skipped = [
            (int(a), int(b)) for i, (a, b) in enumerate(bins) if a >= L and any(counts[m][k][i] < need for k in seeds)
        ]
        untested = (
            f" Not tested ({spans_text(skipped)}): fewer than {need:,} scored tokens in some seed."
            if skipped and b.verdict != "no data"
            else ""
        )
        head = f"**{m}**: "
        if b.verdict == "breaks" and b.position is not None:
            # the bin just before the break untested: the curve may have broken there already
            hidden = any(end == b.position for _, end in skipped)
            where = "at or before" if hidden else "from"
            gap = (
                ", the first bin past L that could be tested"
                if hidden and b.tested == 1
                else ", the first tested bin after untested ones"
                if hidden
                else ""
            )
            items.append(
                head + f"worse than at L by more than {CLOSE} (whole interval) {where} the bin starting at position "
                f"{b.position} ({b.position / L:.1f}·L){gap}." + untested
            )
        elif b.verdict == "holds":
            items.append(
                head
                + f"within {CLOSE} of its value at L in all {b.tested} tested bins past L (whole intervals)."
                + untested
            )
        elif b.verdict == "unclear":
            items.append(
                head + f"no bin past L is worse by more than {CLOSE} with its whole interval, but not every one is "
                f"within {CLOSE} either: undecided at this number of seeds and tokens." + untested
            )
        else:
            items.append(head + f"no bin past L has {need:,} scored tokens in every seed: nothing to compare there.")
    if any(m in s.runs and s.learned.get(m) for m in BREAKING) and (clause := copy_distance_clause(s)):
        items.append(clause)
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


def factor_rule(rope_type: str) -> str:
    """How the Extension panel sets the factor when the slider leaves it at 0."""
    if rope_type == "dynamic":
        return f"one config factor s = {DYNAMIC_FACTOR:g} unless set, the base growing with the length past L"
    return "factor = length / L unless set"


def count_text(counts: Sequence[int]) -> str:
    """The smallest and largest of ``counts``: '2,048' or '1,984–2,144'."""
    lo, hi = min(counts), max(counts)
    return f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"


def extension_caption(*, ext_scored: Sequence[int], rope_seeds: int, shipped_scored: str) -> str:
    """Why the panel's plain-RoPE curve differs from the Length tab's (``ext_scored``: the panel's scored
    tokens per length; ``shipped_scored``: :func:`scored_text` of the shipped task)."""
    return (
        f"This panel evaluates the seed-0 RoPE model on {count_text(ext_scored)} scored tokens per length so that "
        f"it follows the controls in seconds: one model on one sample, no interval. The Length tab shows the "
        f"mean over {count(rope_seeds, 'seed')} with {shipped_scored}, so its plain-RoPE values differ from this "
        "panel's by the seeds and the sample."
    )


def extension_notes(curve: Mapping[int, float], base: Mapping[int, float], *, method: str, nums: Shown) -> list[str]:
    """The scaled curve against plain RoPE at the longest length and at L, as differences of one model
    on one sample (no verdict: no interval); only that it did not learn when the shipped RoPE row did not."""
    if not nums.learned.get("rope"):
        return [nums.not_learned("rope") + "; the scalings applied to it say nothing about extrapolation either."]
    train_len, metric = nums.train_len, nums.metric
    longest = max(curve)
    d = curve[longest] - base[longest]
    return [
        f"At {longest} tokens: {FMT.format(curve[longest])} with {method}, {FMT.format(base[longest])} "
        f"without ({metric} difference {d:+.3f}; one seed on one sample, so no verdict: the Length tab's "
        "shipped rows carry the intervals).",
        f"At L = {train_len}: {FMT.format(curve[train_len])} against {FMT.format(base[train_len])} "
        + (
            "(a scaling that changes the angles inside L changes what the model was trained on)."
            if abs(curve[train_len] - base[train_len]) > 1e-9
            else "(unchanged inside L)."
        ),
    ]


def extension_method(r: Recipe, ext: str, *, factor: float, beta: float, use_af: bool) -> str:
    """The method the Extension panel evaluates: the controls' (posenc.lab.method_name) or the recipe's label."""
    if r.spec is not None:
        return recipe_label(r)
    return method_name(ext, factor=factor or None, beta_fast=beta, attention_factor=use_af)


def not_evaluated(exc: BaseException) -> str:
    return f"This scaling could not be evaluated: {escape_markdown(str(exc))}"


def extension_curves(
    base: Mapping[int, float | None], scaled: Mapping[int, float | None], *, method: str, r: Recipe | None = None
) -> dict[str, Mapping[int, float | None]]:
    """The panel's curves by their legend names: plain RoPE, and the scaled one unless it is the same."""
    same = method == "rope" or (r is not None and r.spec is not None and r.spec.rope_type is None)
    return {"rope (no scaling)": base} | ({} if same else {method: scaled})


def extension_chart(s: Shown, *, method: str, ext: str, r: Recipe, ext_scored: Sequence[int]) -> dict[str, Any]:
    """The Extension tab's chart: the raw metric (loss, not above the optimum) against length."""
    return {
        "x": "length",
        "x_title": LOG_LENGTH,
        "metric": s.metric,
        "train_len": s.train_len,
        "references": s.entry["references"],
        "log_x": True,
        "title": f"The trained RoPE model with {method}",
        "subtitle": "seed 0, evaluated only (no retraining); "
        + (factor_rule(ext) if r.spec is None else "the model's own factor")
        + f"; {count_text(ext_scored)} scored tokens per length",
        "description": "RoPE model evaluated with a context-extension scaling at several lengths.",
    }


def extension_captions(
    s: Shown, r: Recipe, *, ext: str, beta: float, ext_scored: Sequence[int], head_dim: int, theta: float
) -> tuple[list[str], list[str]]:
    """The captions under the Extension chart: (before the notes, after them)."""
    before = [extension_caption(ext_scored=ext_scored, rope_seeds=s.seeds("rope"), shipped_scored=scored_text(s))]
    if r.spec is not None:
        before.append(recipe_text(r, head_dim=head_dim, train_len=s.train_len, theta=theta))
        return before, [
            "The method, factor, β_fast and attention-factor controls above are not used while a model's recipe is chosen."
        ]
    after = [llama3_caption(s.train_len)] if ext == "llama3" else []
    if ext != "yarn":
        after.append("β_fast and the attention factor apply to YaRN only (the other methods' attention factor is 1).")
    else:
        after.append(yarn_ramp_caption(head_dim=head_dim, train_len=s.train_len, beta=beta, base=theta))
    return before, after


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


def stale_models(s: Shown) -> str | None:
    """Why the shipped models of the task on screen cannot be run on the task as posenc.lab generates it now (the
    copy task before its fixed distance: no "copy_part" recorded), or None."""
    if s.task != "copy" or "copy_part" in s.entry:
        return None
    lo, hi = COPY_PART
    return (
        "The shipped copy models were trained on the earlier copy task (one first part, a quarter to half the "
        f"length long); posenc.lab now generates parts of {lo}–{hi} tokens along the whole sequence, so these "
        "models are not run here until the shipped copy results are rebuilt (python -m posenc.lab ship --tasks "
        "copy --update). The Length and Per-position tabs show the shipped numbers of the earlier task."
    )


def rope_only(task: str, enc: str) -> str:
    return f"The {task} task ships only the RoPE model's weights: showing rope instead of {enc}."


def no_rows_past_l(train_len: int) -> str:
    return f"A learned table has {train_len} rows: no attention pattern past L. Showing L = {train_len}."


def no_pattern(exc: BaseException) -> str:
    return f"No attention pattern: {escape_markdown(str(exc))}"


def attention_chart(enc: str, head: int, length: int) -> dict[str, str]:
    """The attention chart's title (head = layer·4 + head) and subtitle."""
    return {
        "title": f"{enc}: layer {head // 4}, head {head % 4} at {length} tokens",
        "subtitle": "attention weights of one evaluation sequence",
    }


def attention_gate(s: Shown, enc: str) -> str | None:
    """None when ``enc`` learned the shown task inside L; otherwise the words saying it did not (the Attention
    tab then makes no claim about its pattern)."""
    if enc in s.runs and s.learned.get(enc):
        return None
    if enc not in s.runs:
        return f"**{enc}** has no shipped row for the {s.task} task, so no claim about its attention"
    return s.not_learned(enc)


def attention_note(weights: np.ndarray, *, train_len: int, length: int, gate: str | None = None) -> str:
    """How many keys each query spreads its attention over, inside L and past it: the effective number of keys,
    e^(entropy of the query's weights), which is 1 on one key and k on k keys evenly whatever the number of keys
    it could see, so the two ranges compare like with like (beside it, what an even spread over all the keys a
    query sees would give). ``gate`` (:func:`attention_gate`): the model did not learn, no claim."""
    if gate is not None:
        return gate + "; its attention pattern is shown, not read."
    w = np.clip(np.asarray(weights, dtype=np.float64), 1e-300, None)
    effective = np.exp(-(w * np.log(w)).sum(axis=1))  # per query
    keys = np.arange(1, w.shape[0] + 1)  # a causal query at position i sees i + 1 keys
    inside = slice(0, min(train_len, length))
    text = (
        "Effective number of keys per query (e^entropy of its weights: 1 on one key, k on k keys evenly, whatever "
        f"the number it sees), one sequence and one head: {effective[inside].mean():.2f} at positions < L "
        f"(an even spread over every key would give {keys[inside].mean():.1f})"
    )
    if length <= train_len:
        return text + "."
    past = slice(train_len, length)
    ratio = effective[past].mean() / effective[inside].mean()
    return text + (
        f", {effective[past].mean():.2f} at positions ≥ L (even: {keys[past].mean():.1f}). Past L a query spreads over "
        f"{ratio:.2f}× as many keys as inside: a head that keeps its focus gives 1×, one that spreads evenly "
        f"{keys[past].mean() / keys[inside].mean():.2f}× (the count of keys alone)."
    )


# ------------------------------------------------------------------------------ Train


#: The Train tab's caption when the settings on screen differ from the session's unfinished job
REPLACES_JOB = "Training these settings replaces your unfinished job."


def encoding_set(choice: str) -> tuple[str, ...]:
    """The encodings an option of the Train tab's set names ("all five", "rope, alibi", …)."""
    return tuple(ENCODINGS) if choice == "all five" else tuple(e.strip() for e in choice.split(","))


def job_status(k: tuple, state: str, *, ahead: int, full: bool) -> str:
    """An unfinished job's line: waiting (``ahead`` jobs before it) or running."""
    head = f"Your training job ({settings_text(k)})"
    if state == "queued":
        return f"{head} waits: {count(ahead, 'job')} ahead of it."
    return f"{head} is running" + ("." if full else "; the Train tab shows its progress.")


def job_stopped(k: tuple, state: str, error: str) -> str:
    return f"Training {state} ({settings_text(k)}): {escape_markdown(error)}"


def last_run_caption(k: tuple) -> str:
    return f"Showing your last run ({settings_text(k)}); the settings above differ and have no result yet."


def run_chart(k: tuple) -> dict[str, Any]:
    """A finished run's chart: the task's metric against length, one seed."""
    return {
        "x": "length",
        "x_title": LOG_LENGTH,
        "metric": TASKS[k[0]].metric,
        "train_len": k[2],
        "references": references(k[0]),
        "log_x": True,
        "title": run_title(k),
        "subtitle": "one seed; dashed, faint: did not learn the task inside L",
        "description": "metric against evaluation length for the models you trained",
    }


def settings_text(k: tuple) -> str:
    """A job's own settings, from its key (ttask, encodings, L, steps, d, seed)."""
    k_task, k_encs, k_len, k_steps, k_width, k_seed = k
    return f"{k_task}, {', '.join(k_encs)}: {k_steps} steps at L = {k_len}, d = {k_width}, seed {k_seed}"


def train_caption(k: tuple, *, timeout: float, shipped: Shown | None = None) -> str:
    """What the Train button would do with the settings ``k``, and the queue's rules (`timeout`: seconds
    without a connection or a page run after which a job stops); ``shipped``: the task on screen, whose
    models trained until they learned, which the quick live ones do not."""
    _, k_encs, k_len, k_steps, k_width, _ = k
    quick = ""
    if shipped is not None and shipped.entry.get("until_learned"):
        quick = (
            f"These are quick versions of the shipped models: {k_steps} steps whatever they learn, on one seed, "
            f"where the shipped ones trained until they learned (cap {shipped.steps:,} steps), on every seed; "
            "a row that did not learn here may learn with more steps. "
        )
    return quick + (
        f"{count(len(k_encs), 'model')} × {k_steps} steps at L = {k_len}, d = {k_width}, evaluated at "
        f"{', '.join(str(m * k_len) for m in (1, 2, 4, 8))}. One training job runs per server at a time, on one "
        "core; results are cached for everyone. Your job keeps running while you look at other tabs or pages "
        f"or move these sliders, and stops within {timeout:g} s of closing the browser tab."
    )


def run_notes(result: Mapping[str, Any], train_len: int) -> list[str]:
    """A live run's rows that did not learn the task inside L = ``train_len`` (its "learned" flags,
    posenc.lab.learned), named with their value at L."""
    L = int(train_len)
    out = []
    for m, ok in result.get("learned", {}).items():
        if ok:
            continue
        v = result["results"][m].get(str(L))
        opt = result.get("optimum", {}).get(m, {}).get(str(L))
        shown = (
            "—"
            if v is None
            else f"loss {v:.3f}, {v - opt:.3f} above the optimum"
            if opt is not None
            else f"accuracy {v:.3f}"
        )
        out.append(
            f"**{m}** did not learn the task inside L ({shown} at {L} tokens; learned means "
            f"{learned_rule(str(result.get('metric')))}): its curve says nothing about extrapolation."
        )
    return out


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


def _verdicts(s: Shown, a: str, b: str, ns: Sequence[int], *, past: bool = False) -> str:
    """'better at 2L (+0.12 [0.05, 0.19]), not separable at 4L (…)': a against b, paired by seed."""
    diffs = [(n, s.diff(a, b, n, past=past)) for n in ns]
    return "; ".join(
        f"{s.verdict(d)} at {s.lens([n])} ({'+' if d.mean >= 0 else ''}{d.text()})" for n, d in diffs if d is not None
    )


def _first_unlearned(s: Shown, *methods: str) -> str | None:
    return next((m for m in methods if m in s.runs and not s.learned.get(m, False)), None)


def _values(s: Shown, m: str, ns: Sequence[int]) -> str:
    return ", ".join(f"{s.at(m, n)} at {s.lens([n])}" for n in ns)


#: The claims :func:`_held_line` reads, per row: the claim, what precedes the values (shown at these multiples of L
#: and at the longest length), and what follows them when the change from L to the longest length is 'worse',
#: 'within', or neither.
_HELD_CLAIMS = {
    "sinusoidal": (
        "* **Sinusoidal 'can extrapolate'** (Vaswani et al. 2017, a hope, not a measurement): ",
        "",
        (1,),
        ": worse by more than {close} (whole interval). Press et al. (2022, Fig. 1) measured language-model "
        "perplexity and saw it explode just past L: the same direction, measured here as the task's {quantity}.",
        ": within {close} (whole interval) on this task's {quantity}; Press et al. (2022, Fig. 1) saw "
        "language-model perplexity explode just past L.",
        ": no verdict at this number of seeds (the interval of the change is too wide).",
    ),
    "rope": (
        "* **RoPE has 'no length limit'**: the formula has none; ",
        "the trained model: ",
        (1, 2),
        ": worse at {longest} than at L by more than {close} (whole interval), a limit after all. Press et al. (2022) "
        "and Chen et al. (2023) report one for RoPE language models as perplexity rising past L with no "
        "fine-tune; here the measure is the task's {quantity}.",
        ": within {close} of its value at L at {longest} (whole interval) on this task's {quantity}, though "
        "Press et al. (2022) and Chen et al. (2023) report the perplexity of RoPE language models rising past L "
        "with no fine-tune.",
        ": the interval of the change from L to {longest} reaches both sides of {close}, so no verdict at this "
        "number of seeds.",
    ),
}


def _held_line(s: Shown, m: str) -> str:
    """A published claim that row ``m`` holds past L (:data:`_HELD_CLAIMS`): its values at L and beyond, and
    whether its change from L to the longest length is worse, within CLOSE, or undecided."""
    if m not in s.runs:
        return ""
    head, before, mults, worse, within, unclear = _HELD_CLAIMS[m]
    if not s.learned.get(m):
        return head + s.not_learned(m) + ".\n"
    L, longest = s.train_len, s.longest
    said = {"worse": worse, "within": within}.get(s.size(s.change(m, L, longest)), unclear)
    values = _values(s, m, [*(k * L for k in mults), longest])
    return head + before + values + said.format(close=CLOSE, longest=longest, quantity=s.quantity) + "\n"


def _alibi_line(s: Shown) -> str:
    rows = [m for m in ("alibi", "alibi:heads=8") if m in s.runs]
    if not rows:
        return ""
    L, longest = s.train_len, s.longest
    parts = []
    for m in rows:
        if not s.learned.get(m):
            parts.append(s.not_learned(m))
            continue
        held = s.size(s.change(m, L, longest))
        parts.append(
            f"**{m}** {_values(s, m, [L, longest])}: "
            + {
                "within": f"within {CLOSE} of its value at L (whole interval)",
                "worse": f"worse by more than {CLOSE} at {longest} (whole interval)",
                "better": f"better by more than {CLOSE} at {longest} (whole interval)",
                "unclear": "no verdict on flatness at this number of seeds",
            }[held]
        )
    heads = (
        " (4 heads: slopes 1/4 … 1/256; 8 heads: 1/2 … 1/256, Press et al.'s geometric set)" if len(rows) == 2 else ""
    )
    return "* **ALiBi**" + heads + ": " + "; ".join(parts) + ". " + _press_alibi(s) + "\n"


def _press_alibi(s: Shown) -> str:
    """What Press et al. (2022) measured for ALiBi, against what this task measures (like with like or not)."""
    paper = (
        "Press et al. (2022) measured language-model perplexity (WikiText-103 among others, no fine-tune) and found ALiBi's "
        "perplexity staying flat past L"
    )
    if s.metric == "loss":
        return paper + "; this task's loss is the same kind of measure (cross-entropy on next tokens)."
    return (
        paper + f"; this task ({s.task_label}) measures {s.quantity}, not perplexity, so their result says "
        "nothing either way about it."
    )


def _scaling_line(s: Shown, method: str, title: str, paper: str) -> str:
    """A scaling applied at evaluation (no fine-tune) against plain RoPE past L, paired by seed."""
    if method not in s.runs or "rope" not in s.runs:
        return ""
    head = f"* **{title}** (`{method}`, no fine-tune): "
    bad = _first_unlearned(s, "rope", method)
    if bad:
        return head + s.not_learned(bad) + ".\n"
    beyond = [n for n in s.lengths if n >= 2 * s.train_len]
    others = ""
    if method == "rope+yarn":  # Peng et al.'s claim is against PI and NTK-aware scaling
        for other, name in (("rope+linear", "PI"), ("rope+ntk", "NTK-aware")):
            if other in s.runs and s.learned.get(other):
                others += f"; against {name}: {_verdicts(s, method, other, beyond)}"
    return (
        head
        + f"{_values(s, method, beyond)}; against plain RoPE: {_verdicts(s, method, 'rope', beyond)}{others}. {paper}\n"
    )


#: What Chen et al. (2023) compared, and how they measured it (their claim is about steps to learn).
CHEN = (
    "Chen et al. (2023) compared how fast each fine-tune extends the window (LLaMA 7B–65B fine-tuned at the "
    "longer length; the effective window by passkey retrieval, and perplexity on long documents): with PI the "
    "target window within 1,000 steps, without it only slowly"
)


def sweep_note(sweep: Mapping[str, Any], task: str, methods: Sequence[str]) -> str:
    """The fine-tune budget sweep (bench/bench_lab_finetune.py) for ``task``: per fine-tune, the budgets it was
    tried at, its accuracy at the fine-tune length there (mean over the sweep's seeds) and at how many budgets it
    learned; no verdict on which learns faster unless the sweep could give one (it needs several seeds)."""
    rows = [r for r in (sweep.get("tasks", {}).get(task, {}).get("rows") or []) if r["method"] in methods]
    if not rows:
        return ""
    n = str(sweep["finetune_len"])
    bar = float(sweep["learned_accuracy"])
    seeds = sorted({int(r["seed"]) for r in rows})
    parts = []
    for m in methods:
        budgets: dict[tuple, list[float]] = {}
        for r in rows:
            if r["method"] == m:
                budgets.setdefault((r["steps"], r["batch"], float(r["lr_ratio"])), []).append(float(r["accuracy"][n]))
        if not budgets:
            continue
        learned = [k for k, v in budgets.items() if all(x >= bar for x in v)]
        cells = "; ".join(
            f"{steps} × {batch} at {lr_ratio:.2g}× peak: {np.mean(v):.3f}"
            for (steps, batch, lr_ratio), v in budgets.items()
        )
        every = " (every seed)" if len(seeds) > 1 else ""
        parts.append(f"`{m}` learned{every} at {len(learned)} of {count(len(budgets), 'budget')} ({cells})")
    shapes = {(r["batch"], float(r["lr_ratio"])) for r in rows}
    seeds_text = f"seed {seeds[0]} only" if len(seeds) == 1 else f"seeds {', '.join(map(str, seeds))}"
    why = []
    if len(seeds) == 1:
        why.append("one seed per budget, so no interval")
    if len(shapes) > 1:
        why.append("the budgets differ in batch and peak rate as well as steps, so they have no single order")
    return (
        f"The budget sweep that chose the shipped budget ({sweep.get('date', '')}, {seeds_text}; accuracy at {n} "
        f"tokens{' (mean over seeds)' if len(seeds) > 1 else ''} after each budget of steps × sequences at a fraction of the pretraining peak rate, learned = at "
        f"least {bar:g}): "
        + "; ".join(parts)
        + ". "
        + (f"Steps to learn from it, no verdict: {'; '.join(why)}. " if why else "")
    )


def finetune_steps(s: Shown) -> dict[str, dict[str, int | None]]:
    """{fine-tune row: {seed: steps at whose held-out check it had learned, None: not by the cap}} when the shipped
    fine-tunes trained until they learned; {} otherwise (a fixed budget gives no steps to learn)."""
    if not s.entry.get("until_learned"):
        return {}
    trained = s.entry.get("trained") or {}
    return {m: {k: v.get("reached") for k, v in trained[m].items()} for m in s.runs if "@ft" in m and m in trained}


def _steps_to_learn(s: Shown, steps: Mapping[str, Mapping[str, int | None]], plain: str, pi: str, n: int) -> str:
    """Chen et al.'s claim (PI reaches the longer window in fewer fine-tuning steps) against the shipped steps to
    learn, paired by seed, where every seed of both learned by the cap: PI's steps minus the plain fine-tune's, seed
    by seed, and the exact sign test of which needed more (the steps are whole checks: few distinct values)."""
    ft = s.entry.get("finetune") or {}
    every = s.settings.get("check_every")
    cap = int(ft.get("steps") or 0)
    if every and cap and checks_before_decay(cap, int(every)) == 0:
        return (
            f"{CHEN}. These fine-tunes cannot show steps to learn: their cap of {cap:,} steps starts the decay at step "
            f"{int(PEAK_SHARE * cap):,}, before the first held-out check at {int(every):,}, so no check ran and they "
            "give no verdict on that claim. "
        )
    cells = []
    for m in (plain, pi):
        got = [v for v in steps[m].values() if v is not None]
        miss = len(steps[m]) - len(got)
        cells.append(
            f"`{m}` {count_text(got) if got else 'none'}"
            + (f" ({miss} of {len(steps[m])} seeds not by the cap)" if miss else "")
        )
    head = (
        f"{CHEN}. Steps to learn at {n} tokens here (each fine-tune ran until a held-out check every {every} steps "
        f"said learned, cap {ft.get('steps', '?')} steps of {ft.get('batch', '?')} sequences at "
        f"{float(ft.get('lr_ratio', 1)):.2g}× the pretraining peak rate), over seeds: {'; '.join(cells)}. "
    )
    both = [k for k in steps[plain] if k in steps[pi] and steps[plain][k] is not None and steps[pi][k] is not None]
    if len(both) < len(steps[plain]) or len(both) < 2:
        return head + "Not every seed learned by the cap, so no interval of the difference and no verdict. "
    # steps to learn come in whole checks, so the seed-paired differences take a few values: an exact test of their
    # signs (which of the two needed more, seed by seed), not a t interval
    diffs = [int(steps[pi][k] or 0) - int(steps[plain][k] or 0) for k in both]  # (none is None in `both`)
    more, fewer = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    p = sign_test(more, more + fewer)
    n = len(diffs)
    if p < 0.05:
        verdict = (
            "PI's fine-tune needed more steps, the opposite of Chen et al.'s finding, at this scale"
            if more > fewer
            else "PI's fine-tune needed fewer steps, as Chen et al. report"
        )
    elif sign_test(n, n) >= 0.05:
        verdict = f"no verdict: with {n} seeds even all {n} one way would give p = {sign_test(n, n):.3g}"
    else:
        verdict = "no verdict at 5 %"
    return head + (
        f"PI minus plain, paired by seed: {float(np.mean(diffs)):+.0f} steps on average; PI needed more steps in "
        f"{more} of {n} seeds, fewer in {fewer}, as many in {n - more - fewer} (steps are counted in checks of "
        f"{every}, so each seed's figure is rounded up to one). Exact sign test over the {more + fewer} seeds that "
        f"differ: p = {p:.3g} ({verdict}). "
    )


def _finetune_line(s: Shown, sweep: Mapping[str, Any] | None = None) -> str:
    fts = [m for m in s.runs if "@ft" in m]
    if not fts:
        return ""
    L = s.train_len
    ft_len = parse_method(fts[0]).finetune_len or L
    ft = s.entry.get("finetune") or {}
    budget = (
        f"{'until learned, at most ' if s.entry.get('until_learned') else ''}{ft['steps']} steps of {ft['batch']} "
        f"sequences at {ft_len} tokens, peak rate "
        f"{float(ft['lr_ratio']):.2g}× the pretraining peak, from each seed's pretrained model"
        if ft
        else "a short fine-tune"
    )
    beyond = [n for n in s.lengths if n >= 2 * L]
    text = f"* **Fine-tuning at {ft_len} tokens** ({budget}): "
    parts = [f"`{m}` {_values(s, m, [L, *beyond])}" if s.learned.get(m) else s.not_learned(m) for m in fts]
    text += "; ".join(parts) + ". "
    bases = {m: m.split("@ft")[0] for m in fts}
    with_without = [
        f"`{m}` against `{base}` (no fine-tune): {_verdicts(s, m, base, beyond)}"
        for m, base in bases.items()
        if s.learned.get(m) and s.learned.get(base) and base in s.runs
    ]
    if with_without:
        text += "With a fine-tune against without: " + "; ".join(with_without) + ". "
    plain = next((m for m in fts if m.startswith("rope@ft")), None)
    pi = next((m for m in fts if m.startswith("rope+linear@ft")), None)
    if plain and pi and (steps := finetune_steps(s)):
        text += _steps_to_learn(s, steps, plain, pi, ft_len)
    elif plain and pi and s.learned.get(plain) and s.learned.get(pi):
        past = [n for n in s.lengths if n > ft_len]
        text += f"PI's fine-tune against the plain one at the fine-tune length: {_verdicts(s, pi, plain, [ft_len])}"
        text += f"; past it: {_verdicts(s, pi, plain, past)}. " if past else ". "
        text += (
            f"{CHEN}. That is a claim about steps to learn, and at the one shipped budget both fine-tunes learned "
            f"({s.at(plain, ft_len)} plain, {s.at(pi, ft_len)} with PI at {ft_len} tokens), so "
            "these rows give no verdict on it. "
        )
    elif plain and pi:
        text += (
            f"{CHEN}. At the one shipped budget one of the two fine-tunes did not learn; one budget does not give "
            "steps to learn, so no verdict on that claim. "
        )
    if plain and pi and sweep:  # the budget sweep beside the shipped steps to learn (issue #37)
        text += sweep_note(sweep, s.task, [plain, pi, *(m for m in fts if m not in (plain, pi))])
    return text.rstrip() + "\n"


def _yarn_line(s: Shown, n1: int) -> str:
    """YaRN's β_fast, as the shipped runs show it (the default against the shipped low value)."""
    low_name = next((m for m in s.runs if m.startswith("rope+yarn:beta_fast=")), None)
    if "rope+yarn" not in s.runs or low_name is None:
        return ""
    head = "* **YaRN's β_fast** "
    bad = _first_unlearned(s, "rope+yarn", low_name)
    if bad:
        return head + ": " + s.not_learned(bad) + ".\n"
    low_beta = parse_method(low_name).params["beta_fast"]
    d = BETA_FAST_DEFAULT
    ci_a, ci_b = s.ci("rope+yarn", n1), s.ci(low_name, n1)
    same = ci_a is not None and ci_b is not None and abs(ci_a.mean - ci_b.mean) < 1e-9
    return (
        head + f"(Peng et al. 2023 use {d:g}, tuned for L in the thousands): at {n1} tokens, "
        f"{s.at('rope+yarn', n1)} with β_fast = {d:g} and {s.at(low_name, n1)} with β_fast = {low_beta:g}"
        + (
            f" — the same: at L = {s.train_len} both ramps start at the fastest pair."
            if same
            else f"; β_fast = {low_beta:g} against {d:g}: {_verdicts(s, low_name, 'rope+yarn', [n1])}."
        )
        + "\n"
    )


_SCALINGS = (
    (
        "rope+linear",
        "Position Interpolation 'works because the model has seen all the angles'",
        "Chen et al. (2023) interpolate and then fine-tune (about 1,000 steps) before they measure perplexity and "
        "passkey retrieval, so this row without a fine-tune is not their method: the model must still learn the "
        "new, finer angles.",
    ),
    (
        "rope+ntk",
        "NTK-aware scaling",
        "bloc97 (2023) proposed it to extend a model with no fine-tune by raising the base, and showed LLaMA's "
        "perplexity on long text; here the measure is the task's.",
    ),
    (
        "rope+dynamic",
        "Dynamic NTK",
        "One config factor, as a model config has it (s = 2 unless the name sets one): the base grows with the "
        "sequence only past L (HF's formula), so the slowest pair is stretched by s·T/L − (s − 1). Each length is "
        "one pass at T, so every position, those inside L too, gets the base for T; generating token by token "
        "would keep the original rope up to L. emozilla (2023) proposed it for LLaMA with no fine-tune and showed "
        "perplexity.",
    ),
    (
        "rope+yarn",
        "YaRN",
        "Peng et al. (2023) report lower perplexity on long documents than PI and NTK-aware scaling after a short "
        "fine-tune, passkey retrieval after it, and without fine-tuning perplexity only (dynamic YaRN against "
        "dynamic PI); this row has no fine-tune and the task's own measure.",
    ),
)


#: One printed seed-paired comparison: "<verdict> at <length> (<difference> [<interval>])" (:func:`_verdicts`).
_COMPARISON = re.compile(r"\b(?:better|worse|not separable) at \w+ \(")


def multiplicity_note(text: str) -> str:
    """How many seed-paired comparisons ``text`` prints, and what that number means (issue #37: a view that
    makes many comparisons at 95 % each says so): the expected count of chance verdicts were nothing to
    differ, and the per-comparison level at which all would hold together (Bonferroni)."""
    n = len(_COMPARISON.findall(text))
    if n < 2:
        return ""
    return (
        f"\nThis section prints {n} seed-paired comparisons, each at 95 % and not adjusted for their number: were "
        f"nothing to differ, about {0.05 * n:.1f} of them would still read 'better' or 'worse' by chance; for all {n} "
        f"to hold together, each would need the {100 * bonferroni_level(0.95, n):.2f} % level (Bonferroni).\n"
    )


def honest_section(s: Shown, sweep: Mapping[str, Any] | None = None) -> str:
    """What tiny synthetic models can and cannot say: each published claim against the shipped numbers,
    made only for rows that learned the task, with 95 % intervals over seeds; ``sweep`` is the fine-tune budget
    sweep (posenc.lab.load_finetune_sweep), read by the fine-tune line."""
    L, longest = s.train_len, s.longest
    head = (
        f"Each number: mean over {count_text([s.seeds(m) for m in s.runs])} seeds "
        f"[95 % interval], each seed scored on its own evaluation sample; "
        f"{'loss above the exact optimum on the same tokens (nats)' if s.metric == 'loss' else 'accuracy'}. "
        "A comparison is 'better' or 'worse' only where the seed-paired interval of the difference excludes 0; "
        "a row that did not learn the task gets no claim.\n\n"
    )
    body = (
        _held_line(s, "sinusoidal")
        + (
            "* **Learned tables 'can't extrapolate'**: true by construction; there is no row to look up.\n"
            if "learned" in s.runs
            else ""
        )
        + _held_line(s, "rope")
        + _alibi_line(s)
        + "".join(_scaling_line(s, m, title, paper) for m, title, paper in _SCALINGS)
        + _finetune_line(s, sweep)
        + _yarn_line(s, longest)
    )
    return (
        head
        + body
        + multiplicity_note(body)
        + "\nWhat they cannot say: these are 2-layer models with ≈100k parameters, a few hundred to a few thousand "
        "steps and synthetic tasks (a Markov chain, the token a fixed few places back, a copy of a random-length "
        "first part, one passkey in random filler). Large models learn position partly from the causal mask (NoPE) "
        f"and are trained on lengths far above L = {L}; numbers here show the mechanisms, not the sizes of effects in LLMs."
    )
