"""The real-model page's sentences, each computed from the numbers it is about (pure: no Streamlit).

Every function takes the numbers as arguments and returns markdown; tests/test_text_realmodel.py checks each
claim against numbers recomputed with posenc. A comparison ("lower", "worse") is made only where its
95 % interval excludes zero; otherwise the sentence says the interval cannot tell.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from explorer.notices import escape_markdown
from explorer.text import count, join_names, methods
from posenc import realmodel, stats
from posenc.realmodel import HeadRules, ModelFacts

UNIFORM_NATS = math.log(49_152)  # a uniform guess over SmolLM2's vocabulary


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _nats(x: float) -> str:
    return f"{x:+.3f}"


def _interval(lo: float, hi: float, fmt: Any = _nats) -> str:
    return f"95 % interval {fmt(lo)} to {fmt(hi)}"


def _chunks(d: np.ndarray) -> stats.Estimate:
    """The mean of per-chunk values and its 95 % interval from a moving-block bootstrap: the chunks of a text
    trend (past the trained length the loss climbs), so runs of neighbouring chunks are resampled together
    (:func:`posenc.stats.block_length` of them), not single chunks as if they were independent."""
    return stats.bootstrap(np.mean, d, block=stats.block_length(d.size))


def _runs(n: int, chunk: int) -> str:
    b = stats.block_length(n)
    return f"resampling runs of {b} neighbouring {chunk}-token chunks" if b > 1 else f"over {chunk}-token chunks"


def slow_pairs(facts: ModelFacts) -> np.ndarray:
    """Pairs that never complete a turn within the trained length (wavelength > L)."""
    return facts.turns_in_training() < 1


def frequency_notes(
    products: np.ndarray,
    interval: tuple[float, float, float],
    facts: ModelFacts,
    *,
    tokens: int,
    block: int,
    spread: tuple[float, float, float] | None = None,
    min_query: int = 16,
) -> list[str]:
    """What the per-pair q·k norm products (layers, heads, pairs) say, over the whole model; with ``spread`` (the
    slow pairs' share of the variance across keys, :func:`posenc.realmodel.spread_share`), what softmax sees."""
    slow = slow_pairs(facts)
    lam = facts.wavelengths()
    idx = np.flatnonzero(slow)
    span = f"{idx[0]}" if idx.size == 1 else f"{idx[0]}–{idx[-1]}"
    est, lo, hi = interval
    uniform = slow.mean()
    per_pair = np.asarray(products).sum(axis=(0, 1))
    per_pair = per_pair / per_pair.sum()
    top = np.argsort(per_pair)[::-1][:2]
    if lo > uniform:
        verdict = (
            f"more than the {_pct(uniform)} an even spread over the {facts.pairs} pairs would give: the norms of q "
            "and k concentrate in frequencies that never turn in training, the kind of concentration Barbero et al. "
            "(2024) report for Gemma 7B's q and k norms"
        )
    elif hi < uniform:
        verdict = f"less than the {_pct(uniform)} an even spread over the {facts.pairs} pairs would give"
    else:
        verdict = f"not distinguishable from the {_pct(uniform)} of an even spread over the {facts.pairs} pairs"
    notes = [
        f"The {idx.size} slowest pairs (j = {span}, wavelengths {lam[idx[0]]:,.0f}–{lam[idx[-1]]:,.0f} tokens) never "
        f"complete a turn in the {facts.trained_length:,} trained tokens. Over all {facts.layers} layers and "
        f"{facts.layers * facts.q_heads} query heads they carry **{_pct(est)}** of the q·k norm product "
        f"({_interval(lo, hi, _pct)}, resampling blocks of {block} of the {tokens} tokens): {verdict}. The product "
        "|q|·|k| per pair is an upper bound on what that pair can add to a score, not what softmax sees"
        + ("; the next sentence measures what softmax sees." if spread else "."),
        f"The largest shares: pair {top[0]} ({_pct(per_pair[top[0]])}, wavelength {lam[top[0]]:,.0f} tokens) and "
        f"pair {top[1]} ({_pct(per_pair[top[1]])}, {lam[top[1]]:,.0f} tokens).",
    ]
    if spread is not None:
        notes.insert(1, spread_note(spread, interval, facts, tokens=tokens, block=block, min_query=min_query))
    return notes


def spread_note(
    spread: tuple[float, float, float],
    bound: tuple[float, float, float],
    facts: ModelFacts,
    *,
    tokens: int,
    block: int,
    min_query: int,
) -> str:
    """The slow pairs' share of what softmax sees, beside their share of the norm bound (both with intervals;
    "less" or "more" only where the two intervals do not overlap)."""
    est, lo, hi = spread
    b_est, b_lo, b_hi = bound
    word = "less than" if hi < b_lo else "more than" if lo > b_hi else "with an interval that overlaps that of"
    return (
        f"What softmax sees: it compares a query's scores across its keys, so what a pair adds to that choice is how "
        f"much its rotated term q̃_j·k̃_j varies across the keys. Measured as each pair's own variance across the keys "
        f"(the covariances between pairs left out; queries at positions ≥ {min_query}, every layer and head), the "
        f"{int(slow_pairs(facts).sum())} slow pairs carry **{_pct(est)}** of it ({_interval(lo, hi, _pct)}, resampling "
        f"blocks of {block} queries of the {tokens}): {word} their {_pct(b_est)} of the norm bound."
    )


def layer_note(products: np.ndarray, layer: int, facts: ModelFacts) -> str:
    """The head of ``layer`` that puts the largest share of its q·k product in the slow pairs."""
    shares = realmodel.share_by_head(np.asarray(products)[layer], slow_pairs(facts))  # (heads,)
    h = int(np.argmax(shares))
    return (
        f"In layer {layer}, head {h} puts the most of its q·k norm product in the slow pairs ({_pct(shares[h])}); "
        f"head {int(np.argmin(shares))} the least ({_pct(shares.min())})."
    )


RULE_TEXT = {
    "sink": "at least {sink:.0%} of its weight on the first token",
    "previous": "at least {previous:.0%} on the token just before",
    "local": "at least {local:.0%} on the {window} nearest tokens (itself included)",
    "spread": "none of these",
}


def rules_caption(rules: HeadRules) -> str:
    parts = [f"**{name}**: " + text.format(**rules.__dict__) for name, text in RULE_TEXT.items()]
    return (
        f"Each head is named by the first rule that holds for its mean attention over queries at positions ≥ "
        f"{rules.min_query}: " + "; ".join(parts) + "."
    )


def head_counts(labels: np.ndarray) -> str:
    labels = np.asarray(labels)
    counts = {name: int((labels == name).sum()) for name in RULE_TEXT}
    return f"Of the {labels.size} heads: " + ", ".join(f"{n} {name}" for name, n in counts.items()) + "."


def head_note(att: Mapping[str, np.ndarray], products: np.ndarray, layer: int, head: int, facts: ModelFacts) -> str:
    """One head: its label, the numbers behind it, and the pairs its q·k product uses most."""
    lam = facts.wavelengths()
    p = np.asarray(products)[layer, head]
    p = p / p.sum()
    top = np.argsort(p)[::-1][:3]
    pairs = ", ".join(f"{j} ({_pct(p[j])}, λ {lam[j]:,.0f})" for j in top)
    return (
        f"Layer {layer}, head {head} is **{att['label'][layer, head]}**: first token {_pct(att['sink'][layer, head])}, "
        f"previous token {_pct(att['previous'][layer, head])}, nearest tokens {_pct(att['local'][layer, head])}. "
        f"Its q·k norm product is largest in pairs {pairs}."
    )


def change_note(label: str, diff: tuple[float, float, float], *, tokens: int, block: int) -> str:
    """The chosen rope against the model's own on the same tokens."""
    est, lo, hi = diff
    if lo > 0:
        verdict = "worse than the model's own rope"
    elif hi < 0:
        verdict = "better than the model's own rope"
    else:
        verdict = "a difference the interval cannot tell from zero"
    return (
        f"With {label}, the mean loss over these {tokens:,} predicted tokens changes by **{_nats(est)} nats per token** "
        f"({_interval(lo, hi)}, resampling blocks of {block} tokens): {verdict}."
    )


def learned_note(inside: Sequence[float], facts: ModelFacts, *, control: bool = False) -> str:
    """The gate for every long-context claim: the model predicts this text inside its trained length (far below a
    uniform guess). The tokens past that length are other tokens of the text: with ``control`` the page also
    shows the same tokens at two positions (:func:`control_notes`), else it says they were not measured."""
    d = np.asarray(inside, dtype=float)
    m = float(d.mean())
    tail = (
        "the content control below scores the same tokens at both positions."
        if control
        else "so position and content are mixed in the comparisons below (the same tokens at two positions were not "
        "measured for this text)."
    )
    return (
        f"Inside its {facts.trained_length:,} trained tokens the model predicts this text at {m:.2f} nats per token "
        f"with its own rope, against {UNIFORM_NATS:.2f} for a uniform guess over its vocabulary. What changes past "
        f"that length is not only position: those are other tokens of the text, and the loss already varies from "
        f"chunk to chunk inside ({d.min():.2f}–{d.max():.2f} nats per token); " + tail
    )


def long_sentences(
    entry: Mapping[str, Any], facts: ModelFacts, *, control: bool = False
) -> tuple[list[str], list[str]]:
    """One text's long-context sentences (:func:`long_by_text`'s entry): the gate, each rope against no scaling,
    and against the papers."""
    res = entry.get("results") or {}
    if "default" not in res:
        return [], []
    ch, n, trained = int(entry["chunk"]), int(entry["length"]), facts.trained_length
    labels = {m: method_label(m) for m in res}
    notes = [learned_note(res["default"]["nll_by_chunk"][: trained // ch], facts, control=control)]
    notes += long_notes(res, chunk=ch, trained=trained, labels=labels, length=n)
    return notes, paper_notes(res, chunk=ch, trained=trained, labels=labels, length=n)


def _range(values: Sequence[float]) -> str:
    return f"from {_nats(min(values))} to {_nats(max(values))}" if len(values) > 1 else _nats(values[0])


def _verdicts(by_text: Sequence[tuple[str, tuple[float, float, float]]], up: str, down: str) -> str:
    """Each text's estimate with its interval, then on how many texts it is ``up``, ``down`` or neither."""
    n = len(by_text)
    counts = {up: sum(e[1] > 0 for _, e in by_text), down: sum(e[2] < 0 for _, e in by_text)}
    counts["not distinguishable"] = n - counts[up] - counts[down]
    each = "; ".join(f"{t} {_nats(e[0])} ({_interval(e[1], e[2])})" for t, e in by_text)
    return f"{each}: " + ", ".join(f"{word} on {k}" for word, k in counts.items() if k) + f" of the {n} texts"


def across_notes(by_text: Mapping[str, Mapping[str, Any]], facts: ModelFacts) -> list[str]:
    """Each rope against no scaling past the trained length on every shipped text that has both (paired by chunk,
    moving-block bootstrap), the spread across texts, and how many comparisons that makes."""
    trained = facts.trained_length
    names = [t for t, e in by_text.items() if "default" in e.get("results", {})]
    if len(names) < 2:
        return []
    methods = list(dict.fromkeys(m for t in names for m in by_text[t]["results"] if m != "default"))
    notes = [
        f"On {len(names)} texts ({', '.join(names)}), past {trained:,} tokens: no scaling against itself inside, and each "
        "rope against no scaling on the same chunks (95 % intervals resampling runs of neighbouring chunks; the texts "
        "are these texts, not a sample of all texts):"
    ]
    count = 0
    own = []
    single: list[tuple[str, str]] = []
    for t in names:
        base, ch = np.asarray(by_text[t]["results"]["default"]["nll_by_chunk"], dtype=float), int(by_text[t]["chunk"])
        k = trained // ch
        if base.size > k + 1:
            block = stats.block_length(min(k, base.size - k))
            own.append((t, stats.difference_of_means(base[k:], base[:k], block=block)))
    if own:
        count += len(own)
        notes.append(
            f"**{method_label('default')}**, past {trained:,} against its own mean inside (other tokens of the text, so "
            f"content is mixed in): {_verdicts(own, 'higher', 'lower')}, "
            f"{_range([e[0] for _, e in own])} nats per token."
        )
    for m in methods:
        rows = []
        for t in names:
            res, ch = by_text[t]["results"], int(by_text[t]["chunk"])
            if m not in res:
                continue
            c, base = (np.asarray(res[x]["nll_by_chunk"], dtype=float) for x in (m, "default"))
            k = trained // ch
            if c.size != base.size or c.size <= k + 1:
                continue
            rows.append((t, _chunks(c[k:] - base[k:])))
        if len(rows) < 2:  # one text: its own view says it; no spread to give
            if rows:
                single.append((method_label(m), rows[0][0]))
            continue
        count += len(rows)
        label = dynamic_label(m, length=int(by_text[rows[0][0]]["length"]), trained=trained, label=method_label(m))
        missing = [t for t in names if t not in {r[0] for r in rows}]
        notes.append(
            f"**{label}**: {_verdicts(rows, 'higher', 'lower')}, {_range([e[0] for _, e in rows])} nats per token"
            + (f" (not computed on {', '.join(missing)})" if missing else "")
            + "."
        )
    if single:
        where = sorted({t for _, t in single})
        notes.append(
            f"Computed on one text only ({', '.join(where)}), so no spread across texts: "
            + "; ".join(lab for lab, _ in single)
            + "."
        )
    if count > 1:
        notes.append(
            f"That is {count} comparisons, each at 95 % and not adjusted for their number: with Bonferroni, each "
            f"would need {100 * stats.bonferroni_level(0.95, count):.2f} % intervals."
        )
    return notes


def control_notes(part: Mapping[str, Any], facts: ModelFacts) -> list[str]:
    """The content control (the ``texts`` part of the shipped file): the same tokens scored inside the trained
    length and past it, with the same tokens before them; the difference per rope and text with a moving-block
    bootstrap over the paired 16-token means (paired by position in the text: the trend is in both)."""
    entries = {t: e for t, e in (part.get("texts") or {}).items() if e.get("control")}
    if not entries:
        return []
    trained = facts.trained_length
    own_pass = [t for t, e in entries.items() if "control_from_long" not in e]
    notes = []
    if own_pass and {"inside", "past", "tail", "block"} <= set(part):
        tail, block = int(part["tail"]), int(part["block"])
        (a, b), (c, d) = part["inside"], part["past"]
        notes.append(
            f"**Content control** ({', '.join(own_pass)}): the last {tail:,} of the {int(part['length']):,} tokens, "
            f"scored twice with the same {trained - tail:,} tokens of the text before them: at positions {a:,}–{b - 1:,} "
            f"(a pass over the last {trained:,} tokens alone, inside the trained length) and at {c:,}–{d - 1:,} (the "
            f"long pass, after {c - (trained - tail):,} more tokens of the text), in means of {block} tokens."
        )
    for t, e in entries.items():
        if "control_from_long" in e:
            info = e["control_from_long"]
            (c, d), (a, b), block = info["past"], info["inside"], int(info["block"])
            notes.append(
                f"**Content control** ({t}): tokens {c:,}–{d:,} of its long pass (past the trained length), against the "
                f"same tokens at positions {a:,}–{b:,} of a pass over its last {trained:,} tokens alone (inside it), with "
                f"the same {a - 1:,} tokens before them; in means of {block} tokens (the shipped chunks), so only "
                f"{-(-(d - c + 1) // block)} pairs."
            )
    notes.append(
        "Same tokens, so content is held fixed; what differs is their position and the longer prefix before them. "
        "Past minus inside, in nats per token (95 % intervals resampling runs of neighbouring means, paired by position):"
    )
    diffs = realmodel.control_differences(part)
    est = realmodel.control_estimates(part)
    for m, per in est.items():
        notes.append(f"**{method_label(m)}**: {_verdicts(list(per.items()), 'higher past', 'lower past')}.")
    own = est.get("default")
    if own and all(e[1] > 0 for e in own.values()):
        notes.append(
            f"With its own rope the same tokens cost more past {trained:,} on every text measured: the rise is not "
            "content. It is position, or the longer prefix."
        )
    for m, by_text in diffs.items():
        if m == "default" or "default" not in diffs:
            continue
        both = [t for t in by_text if t in diffs["default"]]
        gaps = {
            t: stats.bootstrap(np.mean, diffs["default"][t] - by_text[t], block=stats.block_length(by_text[t].size))
            for t in both
        }
        if gaps and all(g[1] > 0 for g in gaps.values()):
            notes.append(
                f"{method_label(m)} reads the same longer prefix, and its rise is smaller than no scaling's on "
                + ("every text measured with both" if len(gaps) > 1 else ", ".join(gaps))
                + f" (a gap {_range([g[0] for g in gaps.values()])} nats per token, 95 % interval above 0"
                + (" on each" if len(gaps) > 1 else "")
                + "): the longer prefix alone does not explain no scaling's rise; what remains is its positions past "
                "the trained length."
            )
    return notes


def dynamic_stretch(method: str, *, length: int, trained: int) -> float | None:
    """For ``dynamic`` scored in one pass of ``length`` tokens: the static NTK factor every position gets, HF's
    s·T/L − (s − 1) (b' = b·that^(d/(d−2)), the same base as NTK-aware scaling with that factor); None for
    other methods, or when the pass is not longer than the trained length (then the rope is the original)."""
    name, _, rest = method.partition(":")
    if name != "dynamic" or length <= trained:
        return None
    keys = dict(item.partition("=")[::2] for item in rest.split(":") if item)
    s = float(keys.get("factor", 1.0))
    return s * length / trained - (s - 1)


def dynamic_label(method: str, *, length: int, trained: int, label: str) -> str:
    """A method's label, with what one pass makes of dynamic NTK: "dynamic NTK, factor 2 as one pass at
    T = 16,384: the same as static NTK with factor 3 at every position"."""
    k = dynamic_stretch(method, length=length, trained=trained)
    if k is None:
        return label
    return f"{label} as one pass at T = {length:,}: the same as static NTK with factor {k:g} at every position"


def long_notes(
    results: Mapping[str, Any], *, chunk: int, trained: int, labels: Mapping[str, str], length: int | None = None
) -> list[str]:
    """Past the trained length: no scaling against itself inside, and every other rope against no scaling.
    ``length``: the one pass's length T, which makes dynamic NTK the static rope :func:`dynamic_label` names
    (no inside figure is given for it: scored as it is used, positions up to L keep the original rope)."""
    curves = {m: np.asarray(r["nll_by_chunk"], dtype=float) for m, r in results.items()}
    length = length if length is not None else max(c.size for c in curves.values()) * chunk
    base = curves.get("default")
    if base is None:
        return []
    k = trained // chunk  # chunks inside the trained length
    notes = []
    if base.size > k + 1:
        block = stats.block_length(min(k, base.size - k))
        est, lo, hi = stats.difference_of_means(base[k:], base[:k], block=block)
        word = "higher" if lo > 0 else "lower" if hi < 0 else "not distinguishable"
        notes.append(
            f"**{labels['default']}**: past {trained:,} tokens the loss is {_nats(est)} nats per token from its mean "
            f"inside ({_interval(lo, hi)}, {_runs(min(k, base.size - k), chunk)}): {word}."
        )
    for m, c in curves.items():
        if m == "default" or c.size != base.size or c.size <= k + 1:
            continue
        past, inside = _chunks(c[k:] - base[k:]), _chunks(c[:k] - base[:k])
        past_word = "lower than" if past[2] < 0 else "higher than" if past[1] > 0 else "not distinguishable from"
        in_word = "costs" if inside[1] > 0 else "saves" if inside[2] < 0 else "changes by"
        label = dynamic_label(m, length=length, trained=trained, label=labels.get(m, m))
        head = (
            f"**{label}**: past {trained:,} tokens {_nats(past[0])} nats per token against no scaling "
            f"({_interval(past[1], past[2])}, {_runs(c.size - k, chunk)}): {past_word} no scaling"
        )
        if dynamic_stretch(m, length=length, trained=trained) is not None:
            notes.append(
                head + f"; inside {trained:,} no figure for dynamic NTK: used as it is meant, token by token, it "
                "keeps the original rope there, which this one pass does not."
            )
            continue
        notes.append(head + f"; inside, it {in_word} {_nats(inside[0])} ({_interval(inside[1], inside[2])}).")
    return notes


def passkey_cell_note(summary: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """What one cell of the passkey grid can show: with n keys per cell, the most uneven split two ropes can have
    on the same keys (n of n against 0 of n) gives the exact McNemar p computed here; above 0.05, no single cell
    separates two ropes, and the grid is not read cell by cell."""
    sizes = sorted({int(c["trials"]) for per in summary.values() for c in per.values()})
    if not sizes:
        return ""
    n = sizes[-1]
    p = stats.mcnemar_exact([True] * n, [False] * n)
    keys = f"{n} keys" if len(sizes) == 1 else f"at most {n} keys"
    if p > 0.05:
        verdict = (
            "so no single cell can separate two ropes at the 5 % level: compare ropes over several cells of the same "
            "keys together (below), not cell by cell"
        )
    else:  # the fewest keys found by one rope only, none the other way round, that reach 5 %
        k = next(k for k in range(1, n + 1) if stats.mcnemar_exact([True] * k, [False] * k) <= 0.05)
        p_k = stats.mcnemar_exact([True] * k, [False] * k)
        verdict = (
            f"and one cell separates two ropes at the 5 % level once at least {k} keys are found by one and not the "
            f"other with none the other way round (p = {p_k:.3g})"
        )
    return (
        f"Each cell holds {keys}: even {n} of {n} against 0 of {n} on the same keys gives an exact McNemar p of "
        f"{p:.3g}, {verdict}."
    )


def _paired(trials: Sequence[Mapping[str, Any]]) -> dict[tuple, bool]:
    return {(int(t["length"]), float(t["depth"]), int(t["key"])): bool(t["correct"]) for t in trials}


def passkey_comparisons(
    trials: Mapping[str, Sequence[Mapping[str, Any]]], labels: Mapping[str, str], trained: int
) -> list[str]:
    """Each rope against no scaling on the same keys (paired by length, depth and key), at each length past the
    trained length and over all of them together: the exact McNemar test (discordant keys only), and how many
    tests the list makes."""
    base = _paired(trials.get("default", []))
    if not base:
        return []
    notes: list[str] = []
    pvalues: list[float] = []
    for m, rows in trials.items():
        if m == "default":
            continue
        other = _paired(rows)
        shared = sorted(k for k in other if k in base and k[0] > trained)
        groups = [(f"at {n:,} tokens", [k for k in shared if k[0] == n]) for n in sorted({k[0] for k in shared})]
        if len(groups) > 1:
            groups.append((f"over all {len(shared)} keys past {trained:,}", shared))
        parts = []
        for where, ks in groups:
            a, b = [other[k] for k in ks], [base[k] for k in ks]
            only_m, only_base = sum(x and not y for x, y in zip(a, b)), sum(y and not x for x, y in zip(a, b))
            p = stats.mcnemar_exact(a, b)
            pvalues.append(p)
            word = "separates them" if p < 0.05 else "cannot separate them"
            parts.append(
                f"{where}, {only_m} keys found only with it and {only_base} only without (exact McNemar p = {p:.3g}: "
                f"{word} at 5 %)"
            )
        if parts:
            notes.append(f"**{labels.get(m, m)}** against no scaling on the same keys: " + "; ".join(parts) + ".")
    if len(pvalues) > 1:
        held = ", ".join(f"{q:.3g}" for q in stats.adjust_pvalues(pvalues, "holm"))
        notes.append(
            f"These are {len(pvalues)} tests, each at 5 % and not adjusted for their number; adjusted together "
            f"(Holm), their p-values in the order above are {held}."
        )
    return notes


def passkey_notes(
    summary: Mapping[str, Mapping[str, Mapping[str, Any]]], labels: Mapping[str, str], trained: int
) -> list[str]:
    """The cells with their Wilson intervals, and what one cell can show (:func:`passkey_cell_note`)."""
    notes = [passkey_cell_note(summary)] if summary else []
    for m, per in summary.items():
        cells = []
        for n, cell in sorted(per.items(), key=lambda kv: int(kv[0])):
            lo, hi = stats.wilson_interval(int(cell["found"]), int(cell["trials"]))  # from the counts, not the file
            where = "inside" if int(n) <= trained else "past"
            cells.append(
                f"{cell['found']} of {cell['trials']} at {int(n):,} tokens ({where} the trained length; "
                f"95 % interval {lo:.2f}–{hi:.2f})"
            )
        notes.append(f"**{labels.get(m, m)}** finds the key " + "; ".join(cells) + ".")
    own = summary.get("default", {})
    inside = [c for n, c in own.items() if int(n) <= trained]
    if inside and sum(c["found"] for c in inside) < sum(c["trials"] for c in inside):
        notes.append(
            "With its own rope the model already misses keys inside its trained length: a model this small does "
            "not retrieve reliably, so a miss past that length is not only about position."
        )
    return notes


def method_label(method: str) -> str:
    """ "yarn:factor=2" -> "YaRN, factor 2"; "default" -> "no scaling (its own rope)"."""
    name, _, rest = method.partition(":")
    if name == "default" and not rest:
        return "no scaling (its own rope)"
    if name == "norope":
        return "no rotation at all"
    label = methods.label(name)
    keys = [item.partition("=") for item in rest.split(":") if item]
    return label + "".join(f", {k.replace('_', ' ')} {float(v):g}" for k, _, v in keys)


#: What each method's authors report for extension, what they measured, and whom to cite.
_PAPERS = {
    "linear": "Chen et al. (2023) fine-tune after interpolating positions, and measure perplexity and passkey "
    "retrieval after that fine-tune; interpolation alone is not their method",
    "ntk": "bloc97 (2023) proposed NTK-aware scaling to extend a model without fine-tuning, showing LLaMA's "
    "perplexity on long text",
    "dynamic": "emozilla (2023) proposed dynamic NTK to extend a model without fine-tuning, showing LLaMA's "
    "perplexity, with the base growing only as the sequence passes the trained length",
    "yarn": "Peng et al. (2023) report lower perplexity on long documents than PI and NTK-aware scaling after a "
    "short fine-tune, and without fine-tuning show perplexity for dynamic YaRN",
    "llama3": "Meta's Llama 3.1 applies this rescaling and then continues pre-training at the longer length (its "
    "long-context results are after that training)",
}


def paper_notes(
    results: Mapping[str, Any], *, chunk: int, trained: int, labels: Mapping[str, str], length: int | None = None
) -> list[str]:
    """For each scaled rope, whether the shipped numbers agree with what its paper reports (a claim only where
    the 95 % interval of the comparison with no scaling excludes zero). The measure here is the loss per token
    (log-perplexity) with no fine-tune, the papers' own where they report perplexity without one; dynamic NTK
    in one pass is labelled as the static rope it is and compared as such."""
    curves = {m: np.asarray(r["nll_by_chunk"], dtype=float) for m, r in results.items()}
    base = curves.get("default")
    if base is None:
        return []
    length = length if length is not None else max(c.size for c in curves.values()) * chunk
    k = trained // chunk
    notes = []
    for m, c in curves.items():
        kind = m.partition(":")[0]
        if kind not in _PAPERS or c.size != base.size or c.size <= k + 1:
            continue
        past, inside = _chunks(c[k:] - base[k:]), _chunks(c[:k] - base[:k])
        label = dynamic_label(m, length=length, trained=trained, label=labels.get(m, m))
        if kind == "linear":
            cost = f"{_nats(inside[0])} nats per token" if inside[1] > 0 else "nothing the interval can resolve"
            notes.append(
                f"{label} costs {cost} inside the trained length with no fine-tune{':' if inside[1] > 0 else ';'} "
                f"{_PAPERS[kind]}."
            )
        elif dynamic_stretch(m, length=length, trained=trained) is not None:
            notes.append(f"{label}. {_PAPERS[kind]}; this one pass is not that, so no comparison with their claim.")
        elif past[2] < 0:
            notes.append(
                f"{label} keeps the loss past {trained:,} tokens below no scaling's without fine-tuning; {_PAPERS[kind]}."
            )
        elif past[1] > 0:
            notes.append(f"{label} does worse than no scaling past {trained:,} tokens here, although {_PAPERS[kind]}.")
    return notes


_SHORT = {
    "default": "no scaling",
    "norope": "no rotation",
    "linear": "PI",
    "ntk": "NTK",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3.1",
    "longrope": "LongRoPE",
    "proportional": "p-RoPE",
}


def short_label(method: str, *, length: int | None = None, trained: int | None = None) -> str:
    """A legend's name for a method: "yarn:factor=2" -> "YaRN ×2", "proportional:partial_rotary_factor=0.25:
    factor=1.0" -> "p-RoPE p=0.25 ×1"; every key but factor and partial_rotary_factor is left to the long label.
    With a one-pass ``length`` past ``trained``, dynamic NTK reads as the static rope it is: "dynamic NTK ×2 in
    one pass = NTK ×3"."""
    name, _, rest = method.partition(":")
    keys = dict(item.partition("=")[::2] for item in rest.split(":") if item)
    out = _SHORT.get(name, name)
    if "partial_rotary_factor" in keys:
        out += f" p={float(keys['partial_rotary_factor']):g}"
    if "factor" in keys:
        out += f" ×{float(keys['factor']):g}"
    k = None if length is None or trained is None else dynamic_stretch(method, length=length, trained=trained)
    return out if k is None else f"{out} in one pass = NTK ×{k:g}"


def shipped_curves(results: Mapping[str, Mapping[str, Any]], *, length: int, trained: int) -> dict[str, Any]:
    """The shipped long-context curves by legend name ({method: {"nll_by_chunk": …}}, as
    :func:`posenc.realmodel.long_by_text` gives them -> {label: per chunk}), dynamic NTK named as the static rope
    one pass of ``length`` tokens makes it (:func:`short_label`)."""
    return {short_label(m, length=length, trained=trained): r["nll_by_chunk"] for m, r in results.items()}


# ------------------------------------------------------------------------------ the page's other sentences
def intro(facts: ModelFacts, own: ModelFacts | None = None, *, offered: bool = False, env: str = "") -> str:
    """The page's opening paragraph: the default model's facts, or what the page reads of a model of one's own."""
    head = (
        "Every other page computes what a positional encoding *is*; this one asks what a trained model *does* with it. "
    )
    if own is not None:
        where = "the model at the path below" if offered else f"the model ${env} names"
        back = (
            f"Clear the path for {facts.name}, the default model, and its views."
            if offered
            else f"Without ${env} the page shows {facts.name}, the default model, and its views."
        )
        return (
            head
            + f"It reads **{escape_markdown(own.name)}**, {where}: what its config declares (layers, heads, the rope "
            "of each layer type, the trained length) and what it computes live on this server in HF transformers' own "
            f"class (`posenc.realmodel`; `python -m posenc.realmodel ppl --model PATH`). {back}"
        )
    return (
        head + f"The model is **{facts.name}**: {facts.parameters} parameters, instruction-tuned, {facts.weights}, "
        f"trained on sequences of up to **{facts.trained_length:,} tokens**. It is a Llama: {facts.layers} layers, "
        f"{facts.q_heads} query heads sharing {facts.kv_heads} key/value heads, head size {facts.head_dim}, so "
        f"{facts.pairs} rotary pairs with base {facts.rope_theta:,.0f}. It runs live on this server in HF transformers' "
        "own `LlamaForCausalLM`, with posenc's frequencies swapped into its rotary embedding (`posenc.realmodel`; "
        "`python -m posenc.realmodel`)."
    )


def text_warnings(pasted: bool, found: int, asked: int, *, minimum: int, most: int) -> tuple[list[str], bool]:
    """(warnings about a pasted text of ``found`` tokens, whether the page falls back to argparse.py)."""
    if not pasted:
        return [], False
    out: list[str] = []
    if found < asked and found < minimum:
        return [
            f"The pasted text has {count(found, 'token')}; the views need at least {minimum}. Showing argparse.py instead."
        ], True
    if found < asked:
        out.append(f"The pasted text has {count(found, 'token')}, fewer than the {asked} asked for: all are read.")
    if found > most:
        out.append(
            f"The pasted text has {found:,} tokens; the views read at most its first {most:,} (Frequencies and Heads "
            f"the first {asked}, Change the rope up to {most:,})."
        )
    return out, False


def same_rope_note(label: str, tokens: int, trained: int) -> str:
    return (
        f"At {tokens:,} tokens {label} gives exactly the model's own frequencies and attention factor (it changes "
        f"nothing below {trained:,} tokens), so the two curves are the same."
    )


def change_captions(method: str) -> list[str]:
    out = []
    if method == "longrope":
        out.append(
            "LongRoPE's per-pair factors are searched for each model and SmolLM2 has none: this uses short factors 1 "
            "and long factors rising from 1 to s, and below the trained length LongRoPE uses the short ones."
        )
    if method != "proportional":
        out.append("The p-RoPE fraction applies to Proportional (p-RoPE) only.")
    return out


def long_caption(facts: ModelFacts, texts: int) -> str:
    return (
        f"Numbers from {count(texts, 'text')} and one small model: each interval covers where in its "
        f"text the tokens fall, not other texts or models. The papers' scaled models (Chen et al. 2023, Peng et al. "
        f"2023) were fine-tuned at the longer length; these are not, and a {facts.parameters} model may miss things a "
        "larger one finds."
    )


def live_caption(length: int) -> str:
    return (
        f"One run scores {length:,} tokens with the model's own rope and with the chosen one, on one core (≈ 10 s per "
        "1,000 tokens per rope here); runs from every session take turns with the lab's training."
    )


BOUND_CAPTION = (
    "|q_j|·|k_j| bounds what pair j can add to a score q·k (Cauchy–Schwarz), so a large product marks a pair the head "
    "can use; the ticks measure what it adds to softmax's choice of keys, and the Heads view shows where the heads look."
)
MIN_KEYS = 20  #: keys a passkey cell needs before the page shows it


def no_results_note(name: str) -> str:
    return f"No long-context results for {name} in this copy of the shipped file (python -m posenc.realmodel ship)."


def control_gaps(estimates: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """For the content control's chart ({rope: {text: estimate}}, legend names): one line per text that lacks some of
    the ropes the others have, naming the ropes it has, so a short row does not read as ropes that drew on 0."""
    ropes = list(estimates)
    texts = list(dict.fromkeys(t for per in estimates.values() for t in per))
    lines = []
    for t in texts:
        has = [m for m in ropes if t in estimates[m]]
        if len(has) < len(ropes):
            lines.append(f"{t}: only {join_names(has)} (the results file holds no other rope's control for it)")
    return lines


def legend_keys(per_method: Mapping[str, Any]) -> dict[str, Any]:
    """{method: anything} keyed by legend name instead ("yarn:factor=2" -> "YaRN ×2")."""
    return {short_label(m): v for m, v in per_method.items()}


def passkey_shown(part: Mapping[str, Any], facts: ModelFacts, min_keys: int = MIN_KEYS) -> dict[str, Any]:
    """What the passkey section shows: the cells with at least ``min_keys`` keys ({rope: {length: cell}}, a rope
    only with all its cells at that size), and its sentences: the shown cells' counts and intervals, every paired
    comparison of ropes on the same keys, and which cells are left out for having too few keys."""
    summary = part.get("summary") or {}
    trials = part.get("trials") or {}
    shown = {m: {n: c for n, c in per.items() if int(c["trials"]) >= min_keys} for m, per in summary.items()}
    shown = {m: per for m, per in shown.items() if per}
    left = sorted(
        {(int(n), int(c["trials"])) for per in summary.values() for n, c in per.items() if int(c["trials"]) < min_keys}
    )
    trained = facts.trained_length
    labels = {m: method_label(m) for m in summary}
    notes = passkey_notes(shown, labels, trained) if shown else []
    if trials:
        notes += passkey_comparisons(trials, labels, trained)
    if left:
        cells = ", ".join(f"{n:,} tokens ({k} keys)" for n, k in left)
        p = stats.mcnemar_exact([True] * left[0][1], [False] * left[0][1])
        notes.append(
            f"Not shown as cells: {cells}. A cell needs at least {min_keys} keys per rope to be read on its own (with "
            f"{left[0][1]}, even {left[0][1]} of {left[0][1]} against 0 gives an exact McNemar p of {p:.3g}); those keys "
            "count only in the paired comparisons above, which pool them."
        )
    return {"summary": shown, "notes": notes}


def running_bars(job: Any) -> list[tuple[float, str]]:
    """A live run's progress bar, (fraction, text), none while it waits; ``job.key`` = ("realmodel", method,
    length)."""
    if job.state == "queued":
        return []
    return [(float(job.progress.get("fraction", 0.0)), f"Running {method_label(job.key[1])} on {job.key[2]:,} tokens…")]


def not_installed(why: str) -> str:
    return (
        f"The model is not installed on this server, so the live views are off: {why}. The Long context view shows "
        "the shipped results."
    )


# ------------------------------------------------------------------------------ the page's status lines
def loading_note(name: str) -> str:
    return f"Loading {name} (once per server; the default model ≈ 3 s from its disk cache)…"


def load_error(error: str) -> str:
    return f"The model could not be loaded: {escape_markdown(error)}"


def own_model_error(error: str, fallback: str) -> str:
    """A model path that could not be read: what is wrong, and whose views the page shows instead."""
    return f"{escape_markdown(error)}. The views below are {fallback}'s."


def short_text_note(tokens: int, length: int) -> str:
    return f"The text has {tokens:,} tokens, fewer than {length:,}: all of them are scored."


def scoring_note(tokens: int, label: str) -> str:
    return f"Scoring {tokens:,} tokens with the model's own rope and with {label}…"


def shipped_error(error: str) -> str:
    return f"The shipped results could not be read: {escape_markdown(error)}"


def not_installed_note(why: str) -> str:
    return f"The model is not installed on this server: {escape_markdown(why)}"


# --- the charts' titles and subtitles (explorer.charts.realmodel) ------------------------------------------
def frequency_subtitle(tokens: int, trained: int, spread: bool) -> list[str]:
    """The pair chart's key: bars (over the first `tokens` tokens), ticks if `spread` is drawn, orange pairs."""
    return [
        f"bars: share of mean |q_j|·mean |k_j| (the bound), first {tokens} tokens, before rotation",
        *["ticks: share of the variance across keys of the rotated term q̃_j·k̃_j"] * spread,
        f"orange: wavelength longer than the {trained:,} trained tokens",
    ]


def pairs_title(head: tuple[int, int] | None = None, name: str = "", layer_type: str = "") -> str:
    """The pair chart's title: the default model over every head, one (layer, head), or a model of one's own
    (`name`) over its `layer_type` layers."""
    if name:
        return f"{name}, {layer_type} layers: which rotary pairs its queries and keys use"
    if head is None:
        return "Which rotary pairs the model's queries and keys use"
    return f"Layer {head[0]}, head {head[1]}: the pairs it can use"


def head_grid_subtitle(tokens: int) -> str:
    return f"{tokens} tokens; red square: the layer and head chosen above"


def norm_titles(layer: int, q_heads: int, kv_heads: int) -> tuple[str, str]:
    return (
        f"Layer {layer}: mean pair norms of every query and key head",
        f"{q_heads} query heads share {kv_heads} key heads; before rotation",
    )


def profile_titles(layer: int, head: int, min_query: int) -> tuple[str, str]:
    return (
        f"Layer {layer}, head {head}: attention against distance",
        f"mean weight at each distance, over queries at positions ≥ {min_query}",
    )


def change_titles(label: str, own_ppl: float, new_ppl: float, tokens: int) -> tuple[str, str]:
    """The change chart's: the chosen rope `label`, and the perplexities before and after over `tokens`."""
    return (
        f"Loss along the text: its own rope and {label}",
        f"perplexity {own_ppl:.2f} → {new_ppl:.2f} over {tokens:,} tokens",
    )


def long_titles(length: int, name: str, date: str) -> tuple[str, str]:
    """The shipped long-context chart's: `length` tokens of the text `name`, computed on `date`."""
    return (
        f"Past the trained length: loss along {length:,} tokens of {name}",
        f"every rope at factor 2, no fine-tuning; computed in advance ({date})",
    )


def live_title(label: str, length: int) -> str:
    return f"Live: {label} on {length:,} tokens of argparse.py"


def passkey_subtitle(min_keys: int) -> list[str]:
    """Two lines: as one, a laptop's column (1280 px with the sidebar open) cut it."""
    return ["found = greedy decoding writes the key", f"cells with at least {min_keys} keys; computed in advance"]
