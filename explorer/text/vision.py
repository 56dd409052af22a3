"""The Images-and-video page's sentences (pages/7_Images_and_video.py): values in, markdown out.

`Model` (explorer.compute.vision) carries the head: its size, base, M-RoPE sections and axial order.
Chart words come as keyword dicts (title, subtitle, description) that the page hands to the builder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.text.heatmap import ordinal
from posenc.mrope import SCHEMES, VisionPreset

INTRO = (
    "A text token has one position. An image patch has a row and a column, and a video patch also a "
    "time. RoPE still turns each pair of query and key coordinates by the angle $p\\,\\theta_j$ (a position times "
    "the pair's frequency); what changes "
    "is **which** position turns which pair. Read the patches row by row and you get 1D RoPE over the "
    "raster order; **axial 2D RoPE** gives half of the pairs to the row and half to the column; "
    "**M-RoPE** (Qwen2-VL and later) gives each pair to time, height or width, in blocks or interleaved."
)
FORMULA = (  # two lines: one is too wide for a phone
    r"\begin{gathered}\phi_j = p_{a(j)}\,\theta_j,\qquad \theta_j = b^{-2j/d},\\ "
    r"s(q, k) = \tfrac{2}{d}\textstyle\sum_j \cos\big(\phi_j(q) - \phi_j(k)\big)\end{gathered}"
)
FORMULA_CAPTION = (
    "a(j) is the axis that turns pair j: the raster index (1D), the row or the column (axial 2D), "
    "or t, h, w (M-RoPE). The similarity s is the RoPE score for q = k = (1, …, 1), divided by d: 1 at "
    "the query itself. Only differences of positions on each axis enter it."
)


def grid_caption(frames: int) -> str:
    """How to move the query heatmaps (under them), for a video of `frames` frames (1: a still image, whose frame
    slider has nowhere to go until the video is longer)."""
    frame = ", and **frame shown** to score the keys of a later frame" if frames > 1 else ""
    return (
        "Click a patch, or drag **query row** and **query column** above the heatmaps (or focus one and "
        "press ← →); drag **grid rows** and **grid columns** to change the image's size, **video frames** to change "
        f"the video's length{frame}: all four heatmaps follow in your browser at once; when you let go, the link, the "
        "boxes, the **Shift test** and the download follow."
    )


def about(preset: VisionPreset) -> str:
    return f"**{preset.name}**: {preset.notes} Source: {preset.source}."


def scheme_title(name: str, m: Any) -> str:
    if name == "M-RoPE contiguous":
        return f"M-RoPE, contiguous {list(m.section_c)}"
    if name == "M-RoPE interleaved":
        return f"M-RoPE, interleaved {list(m.section_i)}"
    if name == "axial 2D":
        return f"Axial 2D RoPE ({m.axial_first}s first)"
    return "1D RoPE over the raster order"


def heatmap_words(m: Any) -> dict[str, Any]:
    """The query heatmaps' panel subtitles (by panel title) and the chart's description."""
    notes = {
        "raster 1D": ["position = row · columns + column", "frames one after another"],
        "axial 2D": ["half the pairs turn with the row,", "half with the column; no time axis"],
        "M-RoPE contiguous": [
            "pairs in blocks t, h, w",
            "section: " + ("this model's" if m.own_c else "Qwen2-VL's proportions"),
        ],
        "M-RoPE interleaved": [
            "pairs T, H, W, T, H, W, …",
            "section: " + ("this model's" if m.own_i else "Qwen3-VL's proportions"),
        ],
    }
    return {
        "notes": {scheme_title(name, m): notes[name] for name in SCHEMES},
        "description": "Four heatmaps over the patch grid, one per scheme ("
        + ", ".join(scheme_title(name, m) for name in SCHEMES)
        + "): the similarity of the query patch (in frame 0) with every patch of the frame shown. The sliders "
        "above the heatmaps change the grid's rows and columns, the query's row and column (so does a click on a "
        "patch), the video's number of frames and the frame shown.",
    }


def grid_notices(
    rows: int, cols: int, frames: int, frame: int, m: Any, n: Mapping[str, Mapping[str, float]]
) -> list[str]:
    """``n`` (explorer.compute.vision.neighbours): ``below``/``right``, each scheme's score of a query with
    the patch below / to its right (in `frame`); ``across``, the raster and axial scores of a row's last
    patch with the next row's first (frame 0)."""
    items = []
    if rows > 1 and cols > 1:
        sv, sh = n["below"], n["right"]
        items.append(
            f"Raster order puts the patch below a query {cols} positions after it and the patch to its right "
            "1 after it"
            + (f", plus {frame} whole frames of {rows * cols} (the keys are in frame {frame})" if frame else "")
            + f": similarity {sv['raster 1D']:.4f} against {sh['raster 1D']:.4f}, for every query that has them. "
            f"Axial 2D: {sv['axial 2D']:.4f} and {sh['axial 2D']:.4f}; M-RoPE contiguous: "
            f"{sv['M-RoPE contiguous']:.4f} and {sh['M-RoPE contiguous']:.4f}; interleaved: "
            f"{sv['M-RoPE interleaved']:.4f} and {sh['M-RoPE interleaved']:.4f}."
        )
        items.append(
            f"Across a row end: the last patch of a row (column {cols - 1}) and the first of the next (column 0) "
            f"are neighbours in raster order (1 apart), similarity {n['across']['raster 1D']:.4f}; "
            f"for axial 2D they are {cols - 1} columns and 1 row apart, similarity {n['across']['axial 2D']:.4f}."
        )
    if frames > 1:
        items.append(
            "Axial 2D has no time axis: every frame scores exactly like frame 0. M-RoPE turns its "
            f"{m.section_c[0]} (contiguous) or {m.section_i[0]} (interleaved) time pairs by the frame offset; "
            f"raster order counts {rows * cols} positions per frame."
        )
    items.append(
        "Move the query: under every scheme the pattern moves with it (scores depend on position differences "
        "only); the **Shift test** tab measures it, and what raster order does with those differences."
    )
    return items


def strip_words(m: Any, x: str) -> dict[str, Any]:
    """Title, subtitle and description of the pairs' strips along the pair index or the wavelength."""
    n = m.head_dim // 2
    if x == "wavelength":
        return {
            "title": "The same pairs by wavelength: how far each axis can see",
            "subtitle": "a pair's angle repeats every 2π/θ_j positions of its axis",
            "description": "For each scheme and axis, ticks at the wavelengths 2π/θ_j (log scale) of the pairs "
            "that axis turns.",
        }
    return {
        "title": f"Which axis turns each of the {n} pairs",
        "subtitle": [
            f"d = {m.head_dim}, b = {m.base:g} · pair 0 turns fastest · axial: {m.axial_first}s first",
            f"M-RoPE sections: contiguous {list(m.section_c)}, interleaved {list(m.section_i)}",
        ],
        "description": f"Strips of {n} cells, one per pair of a head of dimension {m.head_dim}, one strip "
        "per scheme, coloured by the axis (sequence, time, row or column) whose position turns the pair.",
    }


def pair_notices(m: Any, spans: Mapping[tuple[str, str], Any]) -> list[str]:
    """``spans``: (scheme, axis) -> a row with ``first``, ``last`` (pair), ``shortest``, ``longest``
    (wavelength) of the pairs that axis turns (explorer.compute.vision.pairs_summary)."""

    def span(axis: str) -> str:
        s = spans["M-RoPE contiguous", axis]
        return f"pairs {s.first}–{s.last}, wavelengths {s.shortest:.3g}–{s.longest:.3g}"

    items = []
    if m.section_c[0] and m.section_c[2]:
        items.append(
            f"Contiguous M-RoPE {list(m.section_c)}: time has {span('time (t)')}, width has {span('column (w)')}. "
            "Time gets the fastest pairs and width the slowest: a column offset is measured only with "
            f"wavelengths of at least {spans['M-RoPE contiguous', 'column (w)'].shortest:.3g} positions."
        )
    ranges = [
        f"{label} {s.shortest:.3g}–{s.longest:.3g}"
        for axis, label in (("time (t)", "time"), ("row (h)", "height"), ("column (w)", "width"))
        if (s := spans.get(("M-RoPE interleaved", axis))) is not None
    ]
    items.append(
        f"Interleaved M-RoPE {list(m.section_i)}: the wavelengths of each axis run {', '.join(ranges)} positions: "
        "every axis has fast and slow pairs."
    )
    row = spans["axial 2D", "row (h)"]
    items.append(
        f"Axial 2D uses d/4 = {m.head_dim // 4} frequencies b^(−4i/d) for each axis, from "
        f"{row.shortest:.3g} to {row.longest:.3g} positions: each axis gets the whole range, with half as many pairs."
    )
    return items


def shift_words(
    rows: int, cols: int, q: tuple[int, int], k: tuple[int, int], d: tuple[int, int], changes: Mapping[str, float]
) -> dict[str, Any]:
    """The diagram's words (``chart``) and the ``notices``. ``changes`` (explorer.compute.vision.shift_changes):
    ``by_shift``, the largest change of a score by the shift; ``raster``, the raster score's change on a
    grid one column wider; ``other``, the largest change of the other schemes' there."""
    dr, dc = k[0] - q[0], k[1] - q[1]
    offset = dr * cols + dc
    # the diagram's title names Δ and the offset itself, in the browser (explorer.charts.vision.live_shift_chart)
    chart = {
        "description": f"The {rows} by {cols} patch grid with the query at ({q[0]}, {q[1]}), and a key patch; the "
        "chart's sliders set the key's row and column and the shift that moves both patches.",
    }
    notices = [
        f"Moving both patches by the same (Δrow, Δcolumn) = ({d[0]}, {d[1]}) changes no score by more "
        f"than {changes['by_shift']:.1e} (float64 round-off): every scheme here is relative.",
        f"But relative to what: raster order sees one number, Δrow·columns + Δcolumn = "
        f"{dr}·{cols} + {dc} = {offset}. The same patches on a grid one column wider are {offset + dr} apart, "
        f"and the raster score changes by {changes['raster']:+.4f}; axial 2D and M-RoPE see (Δrow, Δcolumn) "
        f"itself and change by at most {changes['other']:.1e}.",
        "So 1D RoPE over patches ties the score to the image's width: a row's last patch and the next row's "
        "first are neighbours, and the patch below is a whole row away (the **Patch grid** tab).",
    ]
    return {"chart": chart, "notices": notices}


#: The resolution chart's description for screen readers: its sides are its own sliders, so it names none of them.
RESOLUTION_DESCRIPTION = (
    "Ticks at the row positions of the trained patch grid, of the new grid as is and of the new grid with its "
    "positions multiplied by trained side over new side, the part beyond the last trained position shaded; then the "
    "axial 2D RoPE similarity of the centre patch with every patch of each of the three grids. The two sliders above "
    "set the trained and the new grid's sides."
)


#: Under the resolution chart: what every heatmap shows (its titles name the grids).
RESOLUTION_CAPTION = (
    "Each heatmap: the axial 2D RoPE similarity of the centre patch (ringed) with every patch of its grid, with the "
    "page's model. Drag the sliders above the chart: it redraws in your browser, and the notes below follow when you "
    "let go."
)


def resolution_words(train: int, new: int, step_t: float, step_i: float) -> dict[str, Any]:
    """The resolution tab's ``notices`` (its chart names the sides in the browser: `RESOLUTION_DESCRIPTION`).
    ``step_t`` / ``step_i``: the centre patch's score with its right-hand neighbour on the trained grid and on the
    new one interpolated."""
    scale, beyond = train / new, new * new - min(new, train) ** 2
    if new > train:
        notices = [
            f"As is, the {new} × {new} grid has positions up to {new - 1} on each axis; {beyond:,} of its "
            f"{new * new:,} patches ({beyond / (new * new):.0%}) have a row or a column the model never saw "
            f"(beyond {train - 1})."
        ]
    else:
        notices = [f"The new grid is not larger: positions 0 … {new - 1} were all seen in training (0 … {train - 1})."]
    if new == train:
        notices.append("Same grid size: 2D position interpolation would multiply by 1 and change nothing.")
    else:
        past = f", {(new - 1) * scale - (train - 1):.4g} past the last trained one ({train - 1}), less than a step"
        notices.append(
            f"2D position interpolation multiplies rows and columns by {train}/{new} = {scale:.4g}: the largest "
            f"position is {(new - 1) * scale:.4g}{past if new > train else ''}; but neighbours are {scale:.4g} apart "
            f"instead of 1. The centre patch's right-hand neighbour scores {step_i:.4f} (in training: {step_t:.4f})."
        )
    notices.append(
        "Qwen2-VL's M-RoPE interpolates nothing: get_rope_index numbers a larger image's rows and columns "
        "0, 1, 2, … as it comes, so positions grow with the image."
    )
    return {"notices": notices}


def sequence_words(text_before: int, text_after: int, frames: int, rows: int, cols: int, stride: int) -> dict[str, Any]:
    """The sequence chart's words (``chart``), its three ``metrics`` (label, value, help) and the ``notices``."""
    what, n_vis, start = ("image" if frames == 1 else "video"), frames * rows * cols, text_before
    next_pos = start + max(frames, rows, cols)
    # the title around the two text counts, which the chart's sliders move in the browser (charts.live_sequence_chart)
    title_words = ("M-RoPE positions: ", " text,", f"a {frames} × {rows} × {cols} {what}, ")
    chart = {
        "title_words": title_words,
        # "t = h = w" with no-break spaces: kept on one line where a phone's chart wraps the subtitle
        "subtitle": "every token has a t, an h and a w position; text tokens have t\u00a0=\u00a0h\u00a0=\u00a0w"
        + (f" · every {ordinal(stride)} {what} token drawn" if stride > 1 else ""),
        "description": f"Dot chart of the t, h and w positions of every token of a text, {what}, text sequence: the "
        f"text tokens before and after it as many as the two sliders above set, the {n_vis:,} {what} patches "
        f"between, as Qwen2-VL's get_rope_index numbers them.",
    }
    metrics = [
        (f"{what.capitalize()} tokens", f"{n_vis:,}", f"{frames} × {rows} × {cols}"),
        (
            f"{what.capitalize()} starts at",
            f"{start}",
            "t, h and w of its first patch: the next free position after the text before it.",
        ),
        ("Next text token's position", f"{next_pos}", "start + max(frames, rows, columns)"),
    ]
    notices = [
        f"The {what} starts at position {start} on all three axes and spans t {start}–{start + frames - 1}, "
        f"h {start}–{start + rows - 1}, w {start}–{start + cols - 1}.",
        f"{'The text after it continues' if text_after else 'A text token after it would continue'} at "
        f"{next_pos} = {start} + max({frames}, {rows}, {cols}), although it is "
        f"token number {start + n_vis} of the sequence: the whole {what} costs max(frames, rows, columns) "
        f"= {next_pos - start} positions, not {n_vis:,}.",
        "Time advances by 1 per frame here (Qwen2-VL). Qwen2.5-VL scales it to absolute time "
        "(second_per_grid_t × tokens_per_second); Qwen3-VL writes timestamps as text instead.",
    ]
    return {"chart": chart, "metrics": metrics, "notices": notices}


def query_title_expr(q_row: str, q_col: str, frame: str, frames: str) -> str:
    """The patch heatmaps' title as a Vega expression of the query patch the sliders pick (``q_row``,
    ``q_col``: expressions), of the keys' frame ``frame`` (an expression; 0: the query's own) and of the video's
    frames ``frames`` (an expression): two lines, the query and the keys' frame (one line set the chart's width on a
    phone: its canvas does not shrink to fit)."""
    where = (
        f"({frames} === 1 ? 'the same frame (a still image)' : "
        f"({frame} === 0 ? 'the same frame' : 'frame ' + {frame}) + ' (frames 0 … ' + ({frames} - 1) + ')')"
    )
    return f"['Query patch (row ' + {q_row} + ', column ' + {q_col} + ')', 'keys in ' + {where}]"


def ring_label_expr(frame: str) -> str:
    """The query ring's tooltip as a Vega expression of the keys' frame ``frame`` (an expression): the query itself in
    its own frame 0, its place in a later one."""
    return f"{frame} === 0 ? 'the query' : \"the query's place (it is in frame 0)\""
