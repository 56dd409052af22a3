"""The sentences of the home page, "Why position matters" (app.py), and of its charts' titles and
descriptions (explorer/charts/home.py): values in, strings out.

The page's gaps are the largest differences between the shuffled sentence's numbers and the
original's re-ordered (posenc.attention.shuffle_experiment): zero, up to rounding, exactly when
the head is blind to order.
"""

from __future__ import annotations

from collections.abc import Sequence

#: A gap below this is rounding error: the two orders give the same numbers.
EQUIVARIANT_TOL = 1e-9

PE_LABELS = {
    "none": "no position signal",
    "sinusoidal": "sinusoidal PE (added)",
    "learned": "learned PE (added)",
    "rope": "RoPE (q, k rotated)",
}

INTRO = (
    "An attention head compares every word with every other word, but nothing in that comparison "
    "says *where* a word stands (this head has no causal mask: every word sees every other). Shuffle the "
    "sentence and the head computes the very same numbers, merely listed in the new order: to the head, the "
    "two sentences are the same bag of words. A position signal is what breaks this tie. Type a sentence, "
    "then switch the position signal on."
)
FORMULA_CAPTION = (
    "P is the shuffle as a permutation matrix. The identity holds for any weights when the "
    "head gets no positions; adding PE(p) to the inputs or rotating q, k by position breaks it."
)
NO_SENTENCE = (
    "The sentence needs at least two different words (letters or digits). Showing the default sentence instead."
)


def fmt_gap(gap: float) -> str:
    """A gap as a metric shows it: rounding-level gaps in e-notation, others with three decimals."""
    return f"{gap:.1e}" if gap < 1e-3 else f"{gap:.3f}"


def words_used(used: int, found: int) -> str:
    return f"Using the first {used} of {found} words."


def verdict(pe: str, gap: float) -> tuple[bool, str]:
    """(blind, what the verdict card says): blind to order when the output gap is rounding error."""
    if gap < EQUIVARIANT_TOL:
        return True, (
            "**Blind to order.** The shuffled sentence gives exactly the original outputs, re-ordered "
            "(the difference is floating-point rounding). The head cannot tell the two sentences apart."
        )
    return False, (
        f"**Order matters.** With {PE_LABELS[pe]}, the shuffled sentence gets genuinely different outputs: "
        "the head now knows where each word stands."
    )


def setup_caption(dim: int, seed: int, table_rows: int) -> str:
    """Under the heatmaps: the head's size and seed, and the learned table's rows."""
    return (
        f"One head, d = {dim}, seeded W_q, W_k, W_v (seed {seed}); each word's vector is drawn from a "
        "seed made from the word itself, so it is the same in both orders. The learned table is a "
        f"seeded stand-in for trained weights ({table_rows} rows, same scale as the word vectors)."
    )


def notices(pe: str, gap: float, words: Sequence[str]) -> list[str]:
    """The "What to notice" list, from the output gap on screen; `words` already escaped for markdown (a word
    is the user's text: explorer.notices.escape_markdown)."""
    tail = "The same word now gets a different vector (or a differently rotated query/key) at a different place."
    if pe == "none":
        second = f"Switch to **sinusoidal**, **learned** or **RoPE**: the difference stops being rounding error. {tail}"
    elif gap >= EQUIVARIANT_TOL:
        second = f"With {PE_LABELS[pe]} the largest difference is {gap:.3g}, far above rounding error. {tail}"
    else:
        second = (
            f"With {PE_LABELS[pe]} the difference is only {gap:.1e} here: this shuffle leaves every word where it was."
        )
    repeated = sorted({w for w in words if list(words).count(w) > 1})
    return [
        f"With **none**, the middle and right heatmaps are identical and every dot sits on the diagonal: "
        f"the difference is rounding error (below {EQUIVARIANT_TOL:.0e})."
        + (f" Here it is {gap:.1e}." if pe == "none" else ""),
        second,
        (
            f'A repeated word (here "{repeated[0]}") gets identical rows with **none**: '
            "the head cannot even tell the copies apart."
            if repeated
            else "Type a sentence with a repeated word: with **none** its copies get identical rows, so the "
            "head cannot even tell them apart."
        ),
        "RoPE changes the weights but adds nothing to the word vectors: it acts only inside the query–key comparison.",
    ]


def shuffle_description(words: Sequence[str], shuffled: Sequence[str], moved: int) -> str:
    """The shuffle diagram's description for screen readers: both orders and how many words moved."""
    n = len(words)
    return (
        f"Shuffle diagram: the {n} words of the sentence in a row on top ({' '.join(words)}), the shuffled "
        f"sentence in a row below ({' '.join(shuffled)}), and a line from each word's place in the sentence to "
        f"its place in the shuffle; {moved} of the {n} words change place."
    )


def scatter_titles_any_d(pe: str) -> tuple[str, str]:
    """The scatter's title and subtitle where the head is blind to order at some d of its slider and not at others
    (true at every d)."""
    return (
        f"With {PE_LABELS.get(pe, pe)}: the outputs of both orders",
        "On the diagonal: the old outputs, re-ordered; off it: new outputs",
    )


def experiment_description(n: int, pe: str) -> str:
    """The head's chart (explorer.charts.home.experiment_chart), for screen readers."""
    return (
        f"With {PE_LABELS.get(pe, pe)}, at the vector size d of the chart's slider: a scatter of the shuffled "
        f"sentence's outputs against the original outputs re-ordered like the words, then three {n} × {n} heatmaps "
        "of attention weights: the original sentence's, the shuffled sentence's, and the original's re-ordered."
    )


def scatter_titles(pe: str, gap: float) -> tuple[str, str]:
    """The equivariance scatter's title and subtitle: on the diagonal exactly when the gap is rounding error."""
    label = PE_LABELS.get(pe, pe)
    if gap < EQUIVARIANT_TOL:
        return (
            f"With {label}: every dot is on the diagonal",
            "Shuffling the words only shuffles the outputs (the differences are rounding error)",
        )
    return (
        f"With {label}: the dots leave the diagonal",
        "The shuffled sentence gets new outputs, not the old ones re-ordered",
    )
