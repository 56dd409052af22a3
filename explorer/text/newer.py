"""The Newer encodings page's sentences (pages/11_Newer_encodings.py): pure functions of the shipped numbers.

Every finding is computed from data/lab/results.json through the lab's :class:`~explorer.text.lab.Shown` (means over
seeds with 95 % intervals, each seed on its own evaluation sample; comparisons paired by seed) and made only for a
row that learned its task inside L. What each paper reported is typed here once, with its source, in
:data:`PAPERS`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from explorer.text.lab import Shown, _verdicts, count_text, multiplicity_note, shown, summary_rows
from posenc.lab import NEWER, learned_rule

INTRO = (
    "Six position designs from 2024–26, each trained here from scratch beside RoPE in the lab's tiny model "
    "(2 layers, 4 heads, 64 wide), on 64 tokens, and run on up to 8 times as many. Each cell is a mean over seeds "
    "with its 95 % interval; a row that did not learn its task inside 64 tokens is greyed and gets no claim. "
    "Under the grid, each design's paper says what it measured at its own scale, and the lab says what it finds "
    "at this one."
)

#: The rows of the grid besides the newer encodings: the baselines they are compared with, where shipped
BASELINES = ("rope", "nope", "alibi")
#: The views of the numbers: every scored token, or the positions past L only
VIEWS = ("all positions", "past L only")


@dataclass(frozen=True)
class Paper:
    """A newer encoding's paper: who, what the encoding does in a line, and what the paper measured and reported
    (its measure, the scale, the numbers), with the place in the paper they come from."""

    title: str
    cite: str
    idea: str
    reported: str
    #: which of the lab's numbers measure the same thing as the paper's, and where they differ
    like: str = ""


#: What each paper reported, read from the paper (the place is named in each entry).
PAPERS: Mapping[str, Paper] = {
    "cope": Paper(
        "CoPE",
        "Golovneva et al. 2024, arXiv 2405.18719",
        "a gate σ(q·k) per key, and a key's position is the sum of the gates between it and the query, so the "
        "model counts what it chooses to count",
        "flip-flop test error (its table 2; a small model, the out-of-distribution set a sparser or denser mix of "
        "instructions at the training length): CoPE 0.0 % in distribution and 4.9 % out of it, RoPE 1.8 % and 20.3 %",
        "like for like: its in-distribution error is 1 minus the lab's flip-flop accuracy at L; its "
        "out-of-distribution sets change the instruction mix, not the length, which the lab does not test, and the "
        "lab's columns past L ask about longer sequences instead",
    ),
    "fope": Paper(
        "FoPE",
        "Hua et al. 2024, arXiv 2412.17739",
        "each rotated pair becomes a learned Fourier series over several frequencies, and the frequencies too low "
        "to finish a period inside the training length are set to zero",
        "passkey retrieval of 1.2B models trained on 512 tokens out to 8,192 (its figure 1, a plot with no table): "
        "RoPE's accuracy falls to zero by twice the training length while FoPE's stays level",
        "like for like: retrieval past the training length is the lab's passkey at 2L–8L",
    ),
    "path": Paper(
        "PaTH",
        "Yang et al. 2025, arXiv 2505.16381",
        "RoPE's fixed rotation between two tokens becomes the product of data-dependent Householder reflections of "
        "the tokens between them",
        "flip-flop error (its table 1; one layer, two heads, width 64): PaTH 0 % in distribution and 0.0001 % on "
        "the sparse out-of-distribution set, RoPE 6.9 % and 40.3 %; and for 760M models trained on 4,096 tokens a "
        "RULER average at 16K of 18.7 against RoPE's 0.0 (its table 3)",
        "like for like: its in-distribution error is 1 minus the lab's flip-flop accuracy at L; its "
        "out-of-distribution sets change the instruction mix, not the length, and its RULER figures are 4 times "
        "the training length at 760M parameters, so the lab's flip-flop and kback columns at 2L–8L are the nearest "
        "it has",
    ),
    "drope": Paper(
        "DroPE",
        "Gelberg et al. 2025, arXiv 2512.12167",
        "train with RoPE, then remove it and recalibrate briefly without any position",
        "zero-shot needle-in-a-haystack success at twice the training context (its table 1; 494M models trained on "
        "1,024 tokens, recalibrated on 2B of their 16B tokens): 28.0, 41.6 and 23.3 % on its three needle tasks, "
        "against 0, 0 and 0 % for RoPE and 17.8, 0.5 and 14.6 % for RoPE with YaRN",
        "like for like: retrieval past the training length is the lab's passkey at 2L–8L, where the paper's "
        "needle is at 2×",
    ),
    "hybrid": Paper(
        "RoPE/NoPE hybrid",
        "Yang et al. 2025, arXiv 2501.18795; the design of Llama 4 and SmolLM3",
        "RoPE in most layers and no position at all in every few (here: layer 0 RoPE, layer 1 none)",
        "needle success at twice the training context for the paper's RNoPE-SWA hybrid, as DroPE's table 1 "
        "measured it (494M models trained on 1,024 tokens): 5.2, 25.6 and 20.6 % on three needle tasks, against "
        "RoPE's 0, 0 and 0 %",
        "like for like: the nearest in the lab is the hybrid's kback and flip-flop columns past L (it is not "
        "shipped on passkey); the paper's needles sit in text at 2× a 1,024-token training length",
    ),
    "ssmax": Paper(
        "SSMax",
        "Nakanishi 2025, arXiv 2501.19399",
        "RoPE, with each query's logits multiplied by s·log n for its n keys (s learned per head): with s > 0 a "
        "query with more keys gets sharper logits, against the flattening of attention as n grows",
        "key retrieval of 12-layer models trained on 1,024 tokens (its figure 6, a heatmap with no table): plain "
        "softmax fails beyond short contexts while SSMax keeps high accuracy to about 10 times the training length",
        "like for like: retrieval past the training length is the lab's passkey at 2L–8L (the paper goes to about 10×)",
    ),
}


#: The tasks the newer encodings are shipped on, in the page's order: flip-flop (the task their papers measure,
#: with all six), kback (all six), passkey (FoPE, DroPE, SSMax): `python -m posenc.lab ship`'s plan
ARENA_ORDER = ("flipflop", "kback", "passkey")


def arena_tasks(data: Mapping[str, Any]) -> tuple[str, ...]:
    """The shipped tasks that hold rows of the newer encodings: ARENA_ORDER's first, then any other in the file's."""
    found = [t for t, e in data["tasks"].items() if any(m in e.get("runs", {}) for m in NEWER)]
    rank = {t: i for i, t in enumerate(ARENA_ORDER)}
    return tuple(sorted(found, key=lambda t: rank.get(t, len(rank))))


def rows_of(s: Shown) -> tuple[str, ...]:
    """The grid's rows for one task: the baselines shipped on it, then the newer encodings shipped on it."""
    return tuple(m for m in (*BASELINES, *NEWER) if m in s.runs)


def grid_rows(s: Shown, *, past: bool) -> list[dict[str, Any]]:
    """One row per encoding and length (past L only: the lengths past L): mean, interval, seeds, learned, and
    the cell's two lines of text."""
    return [
        {
            "task": s.task,
            "encoding": r["method"],
            "length": r["length"],
            "mean": r["value"],
            "lo": r["lo"],
            "hi": r["hi"],
            "seeds": r["seeds"],
            "learned": r["learned"],
            "value_text": "—" if r["value"] is None else f"{r['value']:.2f}",
            "interval_text": "" if r["lo"] is None or r["hi"] is None else f"[{r['lo']:.2f}, {r['hi']:.2f}]",
        }
        for r in summary_rows(s, past=past, methods=rows_of(s))
    ]


def grid_chart(s: Shown, *, past: bool, rows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The grid's words: title, subtitle, the colour scale's floor (the task's uniform guess) and description.
    ``rows``: `grid_rows(s, past=past)` where the caller has them already (each of its intervals costs)."""
    seeds = [c["seeds"] for c in (grid_rows(s, past=past) if rows is None else rows) if c["seeds"]]
    seed_text = count_text(seeds) if seeds else "no"
    where = "positions past L only" if past else "every scored token"
    unlearned = [m for m in rows_of(s) if not s.learned.get(m, False)]
    name, _, what = s.task_label.partition(": ")  # two lines: flip-flop's in one was cut in a laptop's column
    return {
        "title": [f"{name}:", what] if what else name,
        "subtitle": [
            f"{s.quantity} by length ({where}), L = {s.train_len}: mean over {seed_text} seeds [95 % interval]",
            f"greyed: did not learn the task inside L ({', '.join(unlearned)})"
            if unlearned
            else "every row learned the task inside L",
        ],
        "floor": float(s.references.get("uniform", 0.0)),
        "description": (
            f"A grid of {len(rows_of(s))} encodings by {len([n for n in s.lengths if not past or n > s.train_len])} "
            f"lengths on the {s.task} task: each cell the {s.quantity} with its 95 % interval over seeds."
        ),
    }


def _finding(s: Shown, m: str, *, past: bool) -> str:
    """What the lab finds for ``m`` on one task: did it learn; its value at the longest length; against RoPE,
    paired by seed, at 2L and the longest length (each a separate comparison)."""
    if m not in s.runs:
        return ""
    if not s.learned.get(m, False):
        text = s.not_learned(m, by_task=True)
        drops = s.entry.get("drop", {}).get(m, {})
        if drops:  # DroPE: whether the RoPE model it started from had learned, before the drop
            before = sum(1 for r in drops.values() if r.get("reached_before_drop") is not None)
            text += f"; before the drop its RoPE model had learned it on {before} of {len(drops)} seeds"
        return text
    L, longest = s.train_len, s.longest
    value = f"{s.at(m, longest, past=past)} at {s.lens([longest])}"
    # all positions: the value at L first, in distribution, as the papers' first column
    text = f"on {s.task} it reaches " + (f"{value} past L" if past else f"{s.at(m, L)} at L and {value}")
    if m != "rope" and "rope" in s.runs:
        if not s.learned.get("rope", False):
            text += "; RoPE did not learn this task, so there is no comparison with it"
        else:
            ns = [n for n in (2 * L, longest) if n in s.lengths]
            text += f"; against RoPE, paired by seed: {_verdicts(s, m, 'rope', ns, past=past)}"
    return text


def sentence(m: str, by_task: Mapping[str, Shown], *, past: bool) -> str:
    """One encoding's paragraph: what it is, what its paper reported, and what the lab finds on each task."""
    paper = PAPERS[m]
    found = [f for s in by_task.values() if (f := _finding(s, m, past=past))]
    here = "; ".join(found) if found else "not shipped on these tasks"
    reported = f" Reported: {paper.reported}." if paper.reported else ""
    like = f" ({paper.like[0].upper()}{paper.like[1:]}.)" if paper.like else ""
    return f"**{paper.title}** ({paper.cite}): {paper.idea}.{reported}{like} Here, {here}."


def sentences(by_task: Mapping[str, Shown], *, past: bool) -> list[str]:
    """Every newer encoding's paragraph, then how many comparisons they print (:func:`multiplicity_note`)."""
    out = [sentence(m, by_task, past=past) for m in NEWER]
    note = multiplicity_note("\n".join(out)).strip()
    return [*out, note] if note else out


def shown_tasks(data: Mapping[str, Any]) -> dict[str, Shown]:
    """The arena's tasks as the lab page reads them."""
    return {t: shown(data, t, newer=True) for t in arena_tasks(data)}


def learned_line(by_task: Mapping[str, Shown]) -> str:
    """The learned rule, once per metric shown."""
    metrics = sorted({s.metric for s in by_task.values()})
    return "Learned means " + "; ".join(learned_rule(m) for m in metrics) + "."


# ------------------------------------------------------------------ each encoding's own picture


def head_name(head: int, heads: int = 4) -> str:
    layer, h = divmod(int(head), heads)
    return f"layer {layer}, head {h}"


def cope_caption(p: Mapping[str, Any], head: int) -> str:
    """What CoPE's positions on this sequence say: how far the last query counts back to the first token,
    against the tokens in between, and the gates' mean."""
    pos, gates = p["positions"], p["gates"]
    n = pos.shape[0]
    far = float(pos[-1, 0])
    mean_gate = float(np.nanmean(gates[-1]))
    capped = " (the cap: positions stop at npos_max − 1)" if far >= p["npos_max"] - 1 else ""
    return (
        f"{head_name(head)}, one sequence of {n} tokens: the last query counts the first token {far:.1f} positions "
        f"back{capped}, where a token index would say {n - 1}; its gates average {mean_gate:.2f}, so it counts "
        f"about that share of the tokens it passes."
    )


def path_caption(p: Mapping[str, Any], head: int) -> str:
    """PaTH's transform from the first key to the last query: how far from the identity (NoPE) and from
    orthogonal (a rotation or reflection, as RoPE's always is)."""
    a = p["matrix"]
    d = a.shape[0]
    eye = np.eye(d)
    off_identity = float(np.linalg.norm(a - eye) / np.sqrt(d))
    off_orthogonal = float(np.linalg.norm(a.T @ a - eye) / np.sqrt(d))
    beta = p["beta"]
    return (
        f"{head_name(head)}: the product of {len(beta) - 1} transforms between the first and the last token. Its "
        f"distance from the identity is {off_identity:.2f} and from an orthogonal matrix {off_orthogonal:.2f} "
        f"(root mean square per entry); the tokens' β run from {float(beta.min()):.2f} to {float(beta.max()):.2f} "
        "(β = 2 everywhere would make it orthogonal, β = 0 the identity)."
    )


def hybrid_caption(maps: list[np.ndarray], head: int, plan: tuple[str, ...]) -> str:
    """How much of the last query's weight each layer puts on its nearest keys: the nearest 8, or a quarter of a
    shorter sequence (at 8 tokens, "the nearest 8" would be every key)."""
    near = max(1, min(8, maps[0].shape[0] // 4))
    parts = [
        f"layer {i} ({'RoPE' if kind == 'rope' else 'no position'}) puts {100 * float(w[-1][-near:].sum()):.0f} %"
        for i, (w, kind) in enumerate(zip(maps, plan, strict=True))
    ]
    return (
        f"Head {head % 4}, the last query of {maps[0].shape[0]} tokens: "
        + "; ".join(parts)
        + (f" of its weight on the nearest {near} keys.")
    )


def fope_caption(p: Mapping[str, Any], head: int) -> str:
    """How many of the grid's frequencies FoPE clipped, and the strongest off-diagonal coefficient."""
    clipped, waves = p["clipped"], p["wavelengths"]
    k = int(clipped.sum())
    first = float(waves[clipped].min()) if k else None
    mag = p["magnitude"]
    kept = mag.shape[1]
    clip_text = (
        f"{k} of its {len(clipped)} frequencies have a wavelength over L = {p['train_len']} (from {first:.0f} "
        f"tokens up) and are clipped to zero, so {p['pairs'] - mag.shape[0]} of the {p['pairs']} pairs do not rotate"
        if k
        else f"none of its {len(clipped)} frequencies is clipped"
    )
    return (
        f"{head_name(head)}: {clip_text}. Each of the {mag.shape[0]} rotating pairs mixes the {kept} kept frequencies "
        f"with the learned weights shown (its own frequency started at 1, the others at noise)."
    )


def drope_caption(drops: Mapping[str, Mapping[str, Any]], budget: int | None = None) -> str:
    """What the drop did to the training loss, seed by seed: the last ten-step mean before it against the first
    after it, and how many recalibrated runs learned the task again."""
    if not drops:
        return "No DroPE run is shipped on this task."
    jumps = []
    for rec in drops.values():
        k = int(rec["first_after_drop"])
        if 0 < k < len(rec["losses"]):
            jumps.append(rec["losses"][k] - rec["losses"][k - 1])
    relearned = sum(1 for rec in drops.values() if rec.get("reached") is not None)
    head = f"RoPE is dropped once the RoPE model has learned the task, or at its step cap. Over {len(drops)} seeds"
    jump = (
        f", the training loss changed by {min(jumps):+.2f} to {max(jumps):+.2f} nats across the drop (ten-step means)"
        if jumps
        else ""
    )
    within = f"within {budget:,} steps" if budget else "within their budget"
    return (
        f"{head}{jump}; {relearned} of {len(drops)} recalibrated models learned the task again without positions "
        f"{within}."
    )


def ssmax_caption(p: Mapping[str, Any], train_len: int) -> str:
    """The learned s per head, and what it multiplies the logits by at L and at the longest length."""
    s, n = p["s"], p["n"]
    longest = int(n[-1])
    at_l, at_end = s * np.log(train_len), s * np.log(longest)
    if (s > 0).all():
        effect = "every head sharpens its logits as its keys grow in number, so attention does not flatten with n"
    elif (s < 0).all():
        effect = "every head flattens its logits as its keys grow in number"
    else:
        effect = f"{int((s > 0).sum())} heads sharpen with n and {int((s <= 0).sum())} do not"
    return (
        f"The learned s runs from {float(s.min()):.2f} to {float(s.max()):.2f} over the {s.size} heads; at n = "
        f"{train_len} keys the logits are multiplied by {float(at_l.min()):.2f} to {float(at_l.max()):.2f}, at n = "
        f"{longest} by {float(at_end.min()):.2f} to {float(at_end.max()):.2f}: {effect}."
    )


NOT_SHIPPED = (
    "The shipped results hold no rows of the newer encodings: rebuild them with `python -m posenc.lab ship` "
    "(README, 'Shipped lab results')."
)
PICTURE_HEADING = "Each design's own mechanism, in its trained model"


def no_picture(encoding: str, task: str, tasks: tuple[str, ...]) -> str:
    return f"No shipped {encoding} model on {task}; the newer encodings are shipped on {', '.join(tasks)}."


def no_pattern(exc: Exception) -> str:
    return f"The picture could not be computed: {exc}"


def picture_words(encoding: str, raw: Mapping[str, Any], *, task: str, head: int, train_len: int) -> dict[str, Any]:
    """The picture's title and subtitle, and the caption computed from the same data."""
    where = f"the shipped seed-0 {encoding} model on {task}"
    if encoding == "cope":
        n = raw["positions"].shape[0]
        title = f"CoPE: what each query counts ({head_name(head)})"
        subtitle = f"{where}, one sequence of {n} tokens: the gates and the positions they add up to"
        caption = cope_caption(raw, head)
    elif encoding == "path":
        title = f"PaTH: the transform between the first and the last token ({head_name(head)})"
        subtitle = f"{where}: the product of the tokens' Householder transforms, head_dim × head_dim"
        caption = path_caption(raw, head)
    elif encoding == "hybrid":
        title = f"Hybrid: the same head in a RoPE layer and a layer with no position (head {head % 4})"
        subtitle = f"{where}, one sequence of {raw['maps'][0].shape[0]} tokens: attention weights"
        caption = hybrid_caption(raw["maps"], head, tuple(raw["plan"]))
    elif encoding == "fope":
        title = f"FoPE: each pair's Fourier weights ({head_name(head)})"
        subtitle = f"{where}: weight √((cos² + sin²)/2) of each kept frequency in each rotating pair"
        caption = fope_caption(raw, head)
    elif encoding == "ssmax":
        title = "SSMax: the factor on each query's logits against its number of keys"
        subtitle = f"{where}: s·log n for each layer and head, n on a log scale"
        caption = ssmax_caption(raw, train_len)
    elif encoding == "drope":
        title = "DroPE: the training loss before and after RoPE is dropped"
        subtitle = f"shipped runs on {task}, every seed: means of ten steps, step 0 = the drop"
        caption = drope_caption(raw["drops"], raw.get("budget"))
    else:
        raise ValueError(f"encoding: no picture for {encoding!r}")
    return {"title": title, "subtitle": [subtitle], "caption": caption}
