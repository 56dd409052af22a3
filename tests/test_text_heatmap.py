"""The sentence an image heatmap says about its reduction (explorer/text/heatmap.py), against the
reduction it describes: `explorer.imagechart.reduce_matrix` on a matrix whose every entry is its own
(row, column), so the rows and columns kept or pooled can be read back from the pixels."""

from __future__ import annotations

import re

import numpy as np
import pytest

from explorer.imagechart import reduce_matrix
from explorer.text.heatmap import ordinal, reduction_note


def test_ordinals():
    by_hand = {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 22: "22nd"}
    assert {n: ordinal(n) for n in by_hand} == by_hand
    assert [ordinal(n) for n in (101, 111, 112, 123)] == ["101st", "111th", "112th", "123rd"]


@pytest.mark.parametrize(("shape", "limits"), [((100, 10), (25, 10)), ((30, 64), (10, 8)), ((9, 9), (9, 9))])
def test_the_stride_note_says_which_rows_and_columns_are_shown(shape, limits):
    index = np.arange(shape[0])[:, None] * 1000 + np.arange(shape[1])[None, :]  # entry = row · 1000 + column
    reduced, _, _, note = reduce_matrix(index, *limits, "stride", row_name="position", col_name="dimension")
    steps = {"position": int(reduced[1, 0] // 1000) if reduced.shape[0] > 1 else 1}
    steps["dimension"] = int(reduced[0, 1] % 1000) if reduced.shape[1] > 1 else 1
    said = dict((name, int(k)) for k, name in re.findall(r"every (\d+)(?:st|nd|rd|th) (\w+)", note))
    assert said == {name: k for name, k in steps.items() if k > 1}
    assert (note == "") == (steps == {"position": 1, "dimension": 1})


@pytest.mark.parametrize("how", ["mean", "maxabs"])
def test_the_block_notes_give_the_block(how):
    reduced, _, _, note = reduce_matrix(np.ones((12, 20)), 4, 5, how)
    rows, cols = 12 // reduced.shape[0], 20 // reduced.shape[1]  # 3 × 4 cells per pixel
    assert f"a block of {rows} × {cols} cells (row × column)" in note
    assert ("blurs" in note) == (how == "mean") and ("largest-magnitude" in note) == (how == "maxabs")
    assert reduction_note(how, 1, 1, "row", "column") == ""
