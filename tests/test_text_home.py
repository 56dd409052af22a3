"""The home page's sentences (explorer/text/home.py) against the values they describe: the gaps,
the head's settings, the sentence's words and its shuffle."""

from __future__ import annotations

import pytest

from explorer.text import home as text


@pytest.mark.parametrize(
    "gap, shown", [(0.0, "0.0e+00"), (3.3e-17, "3.3e-17"), (9.99e-4, "1.0e-03"), (1e-3, "0.001"), (0.4567, "0.457")]
)
def test_fmt_gap(gap, shown):
    assert text.fmt_gap(gap) == shown


def test_words_used():
    assert text.words_used(24, 60) == "Using the first 24 of 60 words."


@pytest.mark.parametrize("gap, blind", [(0.0, True), (9e-10, True), (1e-9, False), (0.25, False)])
def test_verdict_follows_the_gap(gap, blind):
    got, said = text.verdict("rope", gap)
    assert got is blind
    if blind:
        assert said.startswith("**Blind to order.**")
    else:
        assert said.startswith("**Order matters.** With RoPE (q, k rotated),")


def test_setup_caption_gives_the_settings():
    said = text.setup_caption(32, 7, 24)
    assert said.startswith("One head, d = 32, seeded W_q, W_k, W_v (seed 7);")
    assert "(24 rows, same scale as the word vectors)" in said


def test_notices_without_a_position_signal_quote_the_gap():
    said = text.notices("none", 2.2e-16, ["the", "cat", "sat", "on", "the", "mat"])
    assert said[0].endswith("(below 1e-09). Here it is 2.2e-16.")
    assert said[1].startswith("Switch to **sinusoidal**")
    assert 'A repeated word (here "the")' in said[2]
    assert len(said) == 4


def test_notices_with_a_position_signal():
    said = text.notices("sinusoidal", 0.123456, ["dog", "bites", "man"])
    assert "Here it is" not in said[0]
    assert said[1].startswith("With sinusoidal PE (added) the largest difference is 0.123, far above rounding")
    assert said[2].startswith("Type a sentence with a repeated word")
    # a shuffle that moves no word leaves a position signal nothing to change
    unmoved = text.notices("learned", 0.0, ["a", "b"])[1]
    assert (
        unmoved
        == "With learned PE (added) the difference is only 0.0e+00 here: this shuffle leaves every word where it was."
    )


def test_notices_name_the_first_repeated_word_in_order():
    said = text.notices("none", 0.0, ["b", "a", "b", "a", "c"])[2]
    assert '(here "a")' in said


def test_shuffle_description_counts_the_moved_words():
    words, perm = ["the", "cat", "sat", "on"], [2, 0, 3, 1]
    shuffled = [words[i] for i in perm]
    moved = sum(i != p for i, p in enumerate(perm))
    said = text.shuffle_description(words, shuffled, moved)
    assert "(the cat sat on)" in said and "(sat the on cat)" in said
    assert said.endswith("4 of the 4 words change place.")


@pytest.mark.parametrize("pe", ["none", "sinusoidal", "learned", "rope"])
def test_scatter_titles(pe):
    on, _ = text.scatter_titles(pe, 0.0)
    off, sub = text.scatter_titles(pe, 0.5)
    assert on == f"With {text.PE_LABELS[pe]}: every dot is on the diagonal"
    assert off == f"With {text.PE_LABELS[pe]}: the dots leave the diagonal" and "new outputs" in sub
