"""Label placement for charts drawn in a plane (the RoPE page's rotation plane): each label takes
the first clear place among candidate directions around its point, in pixels, so numbers and
names never sit on a dot, an arrow head or another label. Pure numpy/pandas geometry; the chart
builders read a label's placement (align, baseline, dx, dy) from its row with `placed_text`."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

#: Pixel gap between a label and the point it names: trajectory dots are ≈ 5 px in radius, an
#: arrow head reaches ≈ 6 px beyond its tip.
DOT_LABEL_GAP = 9
TIP_LABEL_GAP = 12
#: Sizes of the things labels must not touch, in pixels: dot radius, arrow-head radius, half
#: a shaft's width; and the text sizes (width per character is an estimate for the app's font).
DOT_RADIUS, HEAD_RADIUS, SHAFT_HALF_WIDTH = 5.0, 8.0, 2.0
NUMBER_FONT, NUMBER_CHAR = 13, 7.2
NAME_FONT, NAME_CHAR = 16, 8.8
#: A label takes the first of its candidate places (outwards first) at least this clear (px),
#: and keeps LABEL_SPACING px more from other labels.
CLEAR = 2.0
LABEL_SPACING = 5.0
#: |cos| or |sin| of a label's direction beyond which the text is aligned to that side (22.5°).
_SIDE = 0.38
#: Candidate directions around a point, as turns from "outwards" (degrees), in order of preference.
_TURNS = np.radians([0, 45, -45, 90, -90, 135, -135, 180])
#: The plot's corners, as (x side, y side); the arc labels go there (see explorer.charts.rope.plane_chart).
_CORNERS = ((1, 1), (-1, 1), (-1, -1), (1, -1))


def placed_labels(df: pd.DataFrame, ux, uy, gap: float) -> pd.DataFrame:
    """Place text labels `gap` pixels from their anchors (x, y) in the direction (ux, uy).

    Adds dx, dy (the pixel offset; dy grows downwards) and align, baseline chosen so that the
    text's edge nearest the anchor faces it: a label to the right of its point starts there
    (align "left"), one above it sits on it (baseline "bottom"), and so on round the compass.
    The text therefore never covers the dot or arrow head at its anchor."""
    ux = np.asarray(ux, dtype=float)
    uy = np.asarray(uy, dtype=float)
    return df.assign(
        dx=np.round(gap * ux, 2),
        dy=np.round(-gap * uy, 2),
        align=np.where(ux > _SIDE, "left", np.where(ux < -_SIDE, "right", "center")),
        baseline=np.where(uy > _SIDE, "bottom", np.where(uy < -_SIDE, "top", "middle")),
    )


def label_box(anchor, u, gap: float, width: float, height: float) -> np.ndarray:
    """[x0, y0, x1, y1] (pixels, y up) of a label placed like `placed_labels` does."""
    ox, oy = anchor[0] + gap * u[0], anchor[1] + gap * u[1]
    x0 = ox if u[0] > _SIDE else (ox - width if u[0] < -_SIDE else ox - width / 2)
    y0 = oy if u[1] > _SIDE else (oy - height if u[1] < -_SIDE else oy - height / 2)
    return np.array([x0, y0, x0 + width, y0 + height])


def _to_box(points: np.ndarray, box: np.ndarray) -> np.ndarray:
    """Distance from each point (n, 2) to a box [x0, y0, x1, y1] (0 inside)."""
    dx = np.maximum.reduce([box[0] - points[:, 0], points[:, 0] - box[2], np.zeros(len(points))])
    dy = np.maximum.reduce([box[1] - points[:, 1], points[:, 1] - box[3], np.zeros(len(points))])
    return np.hypot(dx, dy)


def clearance(
    box: np.ndarray, *, dots: np.ndarray, tips: np.ndarray, boxes: list, dot_room: float = DOT_RADIUS
) -> float:
    """How far (px) a label box stays from the dots (`dot_room` px around each centre), the
    arrows (shaft from the origin to each tip, head at the tip) and the boxes of labels already
    placed; negative when it touches one."""
    room = [np.inf]
    if len(dots):
        room.append(_to_box(dots, box).min() - dot_room)
    if len(tips):
        room.append(_to_box(tips, box).min() - HEAD_RADIUS)
        t = np.linspace(0.0, 1.0, 25)[:, None]
        shafts = (t[None] * tips[:, None, :]).reshape(-1, 2)  # points along every shaft
        room.append(_to_box(shafts, box).min() - SHAFT_HALF_WIDTH)
    for other in boxes:
        gap_x = max(other[0] - box[2], box[0] - other[2])  # negative where they overlap
        gap_y = max(other[1] - box[3], box[1] - other[3])
        apart = max(gap_x, gap_y) if gap_x < 0 and gap_y < 0 else np.hypot(max(gap_x, 0.0), max(gap_y, 0.0))
        room.append(apart - LABEL_SPACING)  # two labels side by side would read as one
    return float(min(room))


def place_labels(
    anchors: np.ndarray,
    widths,
    *,
    height: float,
    gap: float,
    dots: np.ndarray,
    tips: np.ndarray,
    boxes: list,
    drop_crowded: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Greedy label placement (all in pixels, y up): each label in turn takes the first of eight
    directions around its anchor (outwards from the origin first) whose box stays `CLEAR` px
    clear of every dot, arrow and label already placed (`boxes`, extended in place), else the
    clearest one.

    With `drop_crowded` (the position numbers), a label must also be nearer its own dot than any
    other dot, and a label that cannot be placed so without touching something is left out
    (bunched dots would otherwise get numbers printed over each other, or read as another's).

    Returns (ux, uy, kept): the chosen directions and which labels are drawn."""
    n = len(anchors)
    ux, uy, kept = np.zeros(n), np.zeros(n), np.zeros(n, dtype=bool)
    other_room = gap + 1.0 if drop_crowded else DOT_RADIUS  # own dot: `gap` px from the box
    for i in range(n):
        out = np.arctan2(anchors[i][1], anchors[i][0]) if np.any(anchors[i]) else 0.0
        own = np.all(dots == anchors[i], axis=1) if len(dots) else np.zeros(0, dtype=bool)
        best, best_room, best_box = None, -np.inf, None
        for turn in _TURNS:
            u = (np.cos(out + turn), np.sin(out + turn))
            box = label_box(anchors[i], u, gap, widths[i], height)
            room = min(
                clearance(box, dots=dots[~own], tips=tips, boxes=boxes, dot_room=other_room),
                clearance(box, dots=dots[own], tips=np.zeros((0, 2)), boxes=[]),
            )
            if room > best_room:
                best, best_room, best_box = u, room, box
            if room >= CLEAR:
                best, best_box = u, box
                break
        if drop_crowded and best_room < 0:
            continue
        assert best is not None  # every direction's clearance is > -inf, so one was taken
        ux[i], uy[i], kept[i] = best[0], best[1], True
        boxes.append(best_box)
    return ux, uy, kept


def _radial(df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors from the origin towards each row's (x, y); (1, 0) at the origin."""
    x, y = df["x"].to_numpy(float), df["y"].to_numpy(float)
    r = np.hypot(x, y)
    safe = np.where(r > 0, r, 1.0)
    return np.where(r > 0, x / safe, 1.0), np.where(r > 0, y / safe, 0.0)


def corner_labels(df: pd.DataFrame, lim: float, *, inset: float = 6) -> pd.DataFrame:
    """Put each row's label in a corner of the square plot [−lim, lim]², inset by `inset` px: the
    free corner nearest the direction of the row's (x, y). The corners lie outside every circle
    and normally beyond the arrows' labels (which `place_labels` keeps clear of them)."""
    ux, uy = _radial(df)
    free = list(_CORNERS)
    chosen = []
    for a, b in zip(ux, uy):
        best = max(free or _CORNERS, key=lambda c: a * c[0] + b * c[1])
        if best in free:
            free.remove(best)
        chosen.append(best)
    sx, sy = np.array(chosen, dtype=float).reshape(-1, 2).T
    return df.assign(
        x=sx * lim,
        y=sy * lim,
        dx=-sx * inset,
        dy=sy * inset,
        align=np.where(sx > 0, "right", "left"),
        baseline=np.where(sy > 0, "top", "bottom"),
    )


def corner_boxes(rows: pd.DataFrame, px: float, *, char: float = NAME_CHAR, height: float = NAME_FONT) -> list:
    """The [x0, y0, x1, y1] pixel boxes (y up) of `corner_labels` rows, for `place_labels`."""
    boxes = []
    for row in rows.itertuples(index=False):
        x, y, w = row.x * px + row.dx, row.y * px - row.dy, char * len(str(row.label))
        x0 = x - w if row.align == "right" else x
        y0 = y - height if row.baseline == "top" else y
        boxes.append(np.array([x0, y0, x0 + w, y0 + height]))
    return boxes


def placed_text(**mark) -> dict:
    """Mark properties that read a label's placement from its row (see `placed_labels`)."""
    return dict(
        align=alt.expr("datum.align"),
        baseline=alt.expr("datum.baseline"),
        dx=alt.expr("datum.dx"),
        dy=alt.expr("datum.dy"),
        **mark,
    )
