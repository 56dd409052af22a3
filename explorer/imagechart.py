"""Dense matrix -> colour-mapped PNG drawn as ONE Altair image mark (with axes, legend and hover).

Why: one Vega `rect` per cell does not scale (512×512 cells = a 23 MB spec and ~8 s to draw,
measured when this module was written). Here the colour mapping happens in numpy, the pixels travel as one PNG data
URL, and the browser draws a single image; axes, legend and a coarse hover grid are ordinary
Vega-Lite layers on top, so the chart still reads and behaves like a normal Altair chart.

Pure: no Streamlit. `image_heatmap(...)` returns an Altair chart; the page calls
``st.altair_chart(chart)``.

Colours: the lookup tables interpolate Vega's own scheme anchors linearly in RGB, exactly as Vega
builds its continuous schemes (`d3.piecewise(interpolateRgb, anchors)`), so the image and the
legend (which uses the Vega scheme of the same name) show the same colours. On the dark card
(``dark=True``) a scheme in `DIVERGING` takes its dark anchors (`style.DARK_DIVERGING`), and the
legend the same anchors as its range, interpolated in RGB.

Reduction (matrix larger than `max_pixels`): there are more cells than pixels, so something has to
give. `reduce_matrix` offers three honest options, and the chart subtitle says which was used:

* ``"stride"`` (default) keeps every k-th row/column: every pixel is an exact value at a real
  position, but oscillations faster than the stride alias (moiré / false slow waves).
* ``"mean"`` averages k×l blocks. Smooth data is fine, but **mean-pooling blurs fast sinusoids**:
  a dimension that oscillates within a block averages to ≈ 0 and looks flat/grey, which is
  exactly the wrong impression for the high-frequency dimensions of a positional encoding.
* ``"maxabs"`` keeps, per block, the value with the largest magnitude (with its sign): it shows
  the envelope (where values are large), not the phase.
"""

from __future__ import annotations

import base64
import io
import math
import warnings

import altair as alt
import numpy as np
import pandas as pd
from PIL import Image

from explorer.charts.style import CARD_BACKGROUND, DARK_DIVERGING, IMAGE_LEGEND_VIEW, MASK_VIEW
from explorer.text.heatmap import reduction_note

__all__ = [
    "DIVERGING",
    "HOVER_CELL_PX",
    "SCHEMES",
    "coarse_hover_cells",
    "colorize",
    "colormap_lut",
    "default_domain",
    "encode_png",
    "image_heatmap",
    "meta",
    "reduce_matrix",
]

# Vega's continuous scheme anchors (vega-scale palettes), hex RGB, low -> high.
_SCHEME_ANCHORS = {
    "redblue": "8c0d25bf363adf745ef4ae91fbdbc9f2efeed2e5ef9dcae15da2cb2f78b3134b85",
    "blueorange": "134b852f78b35da2cb9dcae1d2e5eff2f0ebfce0bafbbf74e8932fc5690d994a07",
    "viridis": (
        "440154470e61481a6c482575472f7d443a834144873d4e8a39568c35608d31688e2d708e2a788e"
        "27818e23888e21918d1f988b1fa08822a8842ab07f35b77943bf7154c56866cc5d7ad1518fd744"
        "a5db36bcdf27d2e21be9e51afde725"
    ),
    "magma": (
        "0000040404130b0924150e3720114b2c11603b0f704a107957157e651a80721f817f24828c2981"
        "9a2e80a8327db6377ac43c75d1426fde4968e95462f1605df76f5cfa7f5efc8f65fe9f6dfeaf78"
        "febf84fece91fddea0fcedaffcfdbf"
    ),
}
SCHEMES = tuple(_SCHEME_ANCHORS)
#: Schemes whose middle colour means "zero": their default domain is symmetric about 0, and on the dark card they take
#: colours of their own (`style.DARK_DIVERGING`, low -> high: their near-white middle glared there; the sequential
#: ones run dark to bright and read as they are on either card).
DIVERGING = frozenset(DARK_DIVERGING)
_LUT_SIZE = 256
_REDUCE_MODES = ("stride", "mean", "maxabs")


# ------------------------------------------------------------------------------ colours
def _anchors(scheme: str, dark: bool = False) -> np.ndarray:
    try:
        hexes = _SCHEME_ANCHORS[scheme]
    except KeyError:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}") from None
    if dark and scheme in DARK_DIVERGING:
        hexes = "".join(colour.lstrip("#") for colour in DARK_DIVERGING[scheme])
    return np.array(
        [[int(hexes[i + k : i + k + 2], 16) for k in (0, 2, 4)] for i in range(0, len(hexes), 6)],
        dtype=np.float64,
    )


def colormap_lut(scheme: str, n: int = _LUT_SIZE, *, dark: bool = False) -> np.ndarray:
    """(n, 3) uint8 lookup table: entry i is the scheme's colour at t = i / (n − 1); `dark`: its dark card's
    colours, for a scheme in `DIVERGING` (any other is the same on either card)."""
    anchors = _anchors(scheme, dark)
    t = np.linspace(0.0, 1.0, n)
    pos = np.linspace(0.0, 1.0, len(anchors))
    lut = np.stack([np.interp(t, pos, anchors[:, c]) for c in range(3)], axis=1)
    return np.rint(lut).astype(np.uint8)


def default_domain(matrix: np.ndarray, scheme: str) -> tuple[float, float]:
    """Colour domain: symmetric [−m, m] for diverging schemes, [min, max] otherwise."""
    finite = np.asarray(matrix, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return (-1.0, 1.0) if scheme in DIVERGING else (0.0, 1.0)
    if scheme in DIVERGING:
        m = float(np.max(np.abs(finite)))
        return (-m, m) if m > 0 else (-1.0, 1.0)
    lo, hi = float(finite.min()), float(finite.max())
    return (lo, hi) if hi > lo else (lo - 0.5, hi + 0.5)


def colour_indices(
    matrix: np.ndarray, *, scheme: str = "redblue", domain: tuple[float, float] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(indices, finite): each value's entry in the scheme's lookup table (uint8, values outside
    `domain` saturate) and where the value is finite (NaN/inf -> False)."""
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"matrix must be 2-D, got shape {values.shape}")
    lo, hi = domain if domain is not None else default_domain(values, scheme)
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise ValueError(f"domain must be two finite numbers lo < hi, got {domain!r}")
    finite = np.isfinite(values)
    t = np.where(finite, (values - lo) / (hi - lo), 0.0)
    idx = np.clip(np.rint(t * (_LUT_SIZE - 1)), 0, _LUT_SIZE - 1).astype(np.uint8)
    return idx, finite


def colorize(
    matrix: np.ndarray, *, scheme: str = "redblue", domain: tuple[float, float] | None = None, dark: bool = False
) -> np.ndarray:
    """(rows, cols, 4) uint8 RGBA image. Values outside `domain` saturate; NaN/inf -> transparent; `dark`: the
    scheme's colours on the dark card (`colormap_lut`)."""
    idx, finite = colour_indices(matrix, scheme=scheme, domain=domain)
    rgba = np.empty(idx.shape + (4,), dtype=np.uint8)
    rgba[..., :3] = colormap_lut(scheme, dark=dark)[idx]
    rgba[..., 3] = np.where(finite, 255, 0)
    return rgba


def encode_png(rgba: np.ndarray) -> bytes:
    """PNG bytes of an (h, w, 4) or (h, w, 3) uint8 array (row 0 is the top row)."""
    mode = "RGBA" if rgba.shape[-1] == 4 else "RGB"
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgba), mode=mode).save(buffer, format="PNG")
    return buffer.getvalue()


def encode_indexed_png(indices: np.ndarray, palette: np.ndarray) -> bytes:
    """PNG bytes of a paletted image: `indices` (h, w) uint8 into `palette` (≤ 256, 3) uint8.

    One byte per pixel: at 480 × 1024 it encodes about 10× faster than RGBA and is about a third
    of the size (bench: 13 ms / 295 KB against 160 ms / 986 KB), and decodes to the same colours."""
    image = Image.frombytes(
        "P", (indices.shape[1], indices.shape[0]), np.ascontiguousarray(indices, dtype=np.uint8).tobytes()
    )
    image.putpalette(np.asarray(palette, dtype=np.uint8).ravel().tolist())
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def _data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


# ---------------------------------------------------------------------------- reduction
def _block_reduce_axis(values: np.ndarray, factor: int, axis: int, how: str) -> np.ndarray:
    """Reduce blocks of `factor` along `axis` (the last block may be partial)."""
    if factor == 1:
        return values
    n = values.shape[axis]
    blocks = -(-n // factor)
    pad = blocks * factor - n
    moved = np.moveaxis(values, axis, -1)
    if pad:
        moved = np.concatenate([moved, np.full(moved.shape[:-1] + (pad,), np.nan, dtype=moved.dtype)], axis=-1)
    grouped = moved.reshape(moved.shape[:-1] + (blocks, factor))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN blocks -> NaN, quietly
        if how == "mean":
            out = np.nanmean(grouped, axis=-1)
        else:  # maxabs: the signed value with the largest magnitude
            magnitude = np.where(np.isnan(grouped), -1.0, np.abs(grouped))
            pick = np.argmax(magnitude, axis=-1)[..., None]
            out = np.take_along_axis(grouped, pick, axis=-1)[..., 0]
    return np.moveaxis(out, -1, axis)


def reduce_matrix(
    matrix: np.ndarray,
    max_rows: int,
    max_cols: int,
    how: str = "stride",
    *,
    row_name: str = "row",
    col_name: str = "column",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """Shrink `matrix` to at most max_rows × max_cols.

    Returns (reduced, row_idx, col_idx, note): row_idx/col_idx are the original indices of the
    first row/column each output row/column stands for (for "stride", exactly the rows kept);
    every output pixel covers the same number of input cells (the last block may be partial).
    `note` is a short human sentence (explorer.text.heatmap.reduction_note; "" when nothing was
    reduced). See the module docstring for what each mode hides; mean-pooling blurs fast sinusoids.
    """
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"matrix must be 2-D, got shape {values.shape}")
    if how not in _REDUCE_MODES:
        raise ValueError(f"how must be one of {_REDUCE_MODES}, got {how!r}")
    if int(max_rows) < 1 or int(max_cols) < 1:
        raise ValueError(f"max_rows and max_cols must be >= 1, got {max_rows}, {max_cols}")
    rows, cols = values.shape
    fr = max(1, -(-rows // int(max_rows)))
    fc = max(1, -(-cols // int(max_cols)))
    row_idx = np.arange(0, rows, fr)
    col_idx = np.arange(0, cols, fc)
    note = reduction_note(how, fr, fc, row_name, col_name)
    if not note:
        return values, row_idx, col_idx, note
    reduced = (
        values[::fr, ::fc]
        if how == "stride"
        else _block_reduce_axis(_block_reduce_axis(values, fr, 0, how), fc, 1, how)
    )
    return reduced, row_idx, col_idx, note


# -------------------------------------------------------------------------------- chart
def _axis_geometry(values: np.ndarray | None, n: int, name: str) -> tuple[np.ndarray, float]:
    """Centres and (uniform) spacing of the cells along one axis."""
    if values is None:
        return np.arange(n, dtype=np.float64), 1.0
    centres = np.asarray(values, dtype=np.float64)
    if centres.shape != (n,):
        raise ValueError(f"{name} must have {n} entries (one per cell), got shape {centres.shape}")
    if not np.all(np.isfinite(centres)):
        raise ValueError(f"{name} must be finite")
    if n == 1:
        return centres, 1.0
    steps = np.diff(centres)
    step = float(steps[0])
    if step <= 0 or not np.allclose(steps, step, rtol=1e-6, atol=1e-12 * abs(step)):
        raise ValueError(f"{name} must be evenly spaced and increasing")
    return centres, step


#: Side, in pixels of the chart's nominal size, of a hover cell in `coarse_hover_cells`: finer than a
#: pointer needs is data the browser takes in and marks it builds at every redraw, for nothing.
HOVER_CELL_PX = 20


def coarse_hover_cells(width: int, height: int) -> int:
    """`hover_cells` for a plot of width × height pixels (its nominal size): one hover cell per
    HOVER_CELL_PX × HOVER_CELL_PX, at least 64. For a heatmap redrawn at every control, where each
    hover cell costs the browser (bench/RESULTS.md section 13, 2026-11-26, session 16); not for a grid
    whose every cell must answer a pointer on its own."""
    if width < 1 or height < 1:
        raise ValueError(f"width and height must be >= 1 pixel, got {width} and {height}")
    return max(64, (width * height) // HOVER_CELL_PX**2)


def _hover_frame(
    values: np.ndarray,
    xc: np.ndarray,
    dx: float,
    yc: np.ndarray,
    dy: float,
    max_cells: int,
    aspect: float,
) -> tuple[pd.DataFrame, tuple[int, int]]:
    """A coarse grid over the ORIGINAL matrix: one rect per block (at most `max_cells`, blocks
    roughly square on screen for a plot of width/height = `aspect`), each carrying the exact
    value at the block's centre cell (a tooltip never shows an averaged number)."""
    rows, cols = values.shape
    max_cells = max(1, int(max_cells))
    n_cols = min(cols, max(1, round(math.sqrt(max_cells * aspect))))
    n_rows = min(rows, max(1, max_cells // n_cols))
    bc = -(-cols // n_cols)
    br = -(-rows // n_rows)
    r0 = np.arange(0, rows, br)
    c0 = np.arange(0, cols, bc)
    r1 = np.minimum(r0 + br, rows)
    c1 = np.minimum(c0 + bc, cols)
    rc = (r0 + r1 - 1) // 2
    cc = (c0 + c1 - 1) // 2
    R0, C0 = np.meshgrid(r0, c0, indexing="ij")
    R1, C1 = np.meshgrid(r1, c1, indexing="ij")
    RC, CC = np.meshgrid(rc, cc, indexing="ij")
    frame = pd.DataFrame(
        {
            "x0": (xc[0] + (C0.ravel() - 0.5) * dx),
            "x1": (xc[0] + (C1.ravel() - 0.5) * dx),
            "y0": (yc[0] + (R0.ravel() - 0.5) * dy),
            "y1": (yc[0] + (R1.ravel() - 0.5) * dy),
            "xv": xc[CC.ravel()],
            "yv": yc[RC.ravel()],
            "value": values[RC.ravel(), CC.ravel()],
        }
    )
    return frame, (br, bc)


def image_heatmap(
    matrix: np.ndarray,
    *,
    x_values: np.ndarray | None = None,
    y_values: np.ndarray | None = None,
    x_title: str = "x",
    y_title: str = "y",
    value_title: str = "value",
    scheme: str = "redblue",
    domain: tuple[float, float] | None = None,
    width: int = 640,
    height: int = 360,
    max_pixels: tuple[int, int] = (1024, 1024),
    reduce: str = "stride",
    title: str | None = None,
    y_down: bool = True,
    hover_cells: int = 2500,
    dark: bool = False,
) -> alt.LayerChart:
    """Draw a 2-D array as one colour-mapped image with real axes, a legend and hover readout.

    matrix        (rows, cols) array: rows run along y, columns along x. NaN -> transparent.
    x_values      centre of each column in data units (evenly spaced; default 0 … cols−1),
                  e.g. dimension indices. y_values likewise for rows (e.g. positions).
    *_title       axis / legend / tooltip titles.
    scheme        one of SCHEMES (Vega scheme names; the legend uses the same scheme).
    domain        (lo, hi) colour range; default symmetric about 0 for diverging schemes.
    max_pixels    (W, H): larger matrices are reduced with `reduce` ("stride" | "mean" |
                  "maxabs", see `reduce_matrix`); the subtitle says how.
    y_down        row 0 at the top (matrix convention) with the y axis increasing downwards.
    hover_cells   at most this many invisible hover rects; each reports the exact value at its
                  centre cell.
    dark          drawn for the dark card (the page's `explorer.render.dark_theme()`): a scheme in
                  `DIVERGING` takes its dark colours, image and legend alike (on either card the
                  legend's view is a `style.IMAGE_LEGEND_VIEW`, which the dark styling leaves as it is);
                  the numbers, hover and axes are the same on either card.

    Returns an `alt.LayerChart` of three layers: the image, the hover rects, the legend's two
    invisible ends; a matrix with NaN cells has a fourth under them, the plot in the card's colour
    (`style.MASK_VIEW`: a slate on the dark card, where viridis's and magma's dark ends met the card).
    `meta(chart)` reads back the shape, the reduction and the note.
    """
    values = np.asarray(matrix, dtype=np.float64)
    if values.ndim != 2 or values.shape[0] < 1 or values.shape[1] < 1:
        raise ValueError(f"matrix must be a non-empty 2-D array, got shape {values.shape}")
    if scheme not in _SCHEME_ANCHORS:
        raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
    rows, cols = values.shape
    xc, dx = _axis_geometry(x_values, cols, "x_values")
    yc, dy = _axis_geometry(y_values, rows, "y_values")
    lo, hi = domain if domain is not None else default_domain(values, scheme)
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise ValueError(f"domain must be two finite numbers lo < hi, got {domain!r}")

    max_w, max_h = max_pixels
    reduced, row_idx, col_idx, note = reduce_matrix(values, max_h, max_w, reduce, row_name=y_title, col_name=x_title)
    fr = int(row_idx[1] - row_idx[0]) if len(row_idx) > 1 else 1
    fc = int(col_idx[1] - col_idx[0]) if len(col_idx) > 1 else 1

    dark = dark and scheme in DIVERGING  # a scheme of its own on the dark card, or the same on either
    idx, finite = colour_indices(reduced, scheme=scheme, domain=(lo, hi))
    if finite.all():  # the usual case: a paletted PNG (see encode_indexed_png)
        png = encode_indexed_png(idx if y_down else idx[::-1], colormap_lut(scheme, dark=dark))
    else:  # NaN cells are transparent: RGBA
        rgba = colorize(reduced, scheme=scheme, domain=(lo, hi), dark=dark)
        png = encode_png(rgba if y_down else rgba[::-1])
    url = _data_url(png)

    # Data-space extent. Axis domain = the cells' outer edges; the image covers whole blocks
    # (the last block may stick out past the edge and is clipped), so every pixel sits exactly
    # over the cells it stands for.
    x_lo, x_hi = xc[0] - dx / 2, xc[-1] + dx / 2
    y_lo, y_hi = yc[0] - dy / 2, yc[-1] + dy / 2
    img_x_hi = x_lo + reduced.shape[1] * fc * dx
    img_y_hi = y_lo + reduced.shape[0] * fr * dy

    # A chart whose image is not reduced takes its axes' domains from its marks (the image spans
    # exactly the cells' outer edges), and its colour legend's from a two-row layer (lo and hi):
    # the spec then holds no number of the matrix, so a new matrix of any size redraws the chart in
    # place (Streamlit replaces the rows) instead of building it anew. A reduced image can stick out
    # past the last cell, so its domains stay explicit.
    reduced_any = fr > 1 or fc > 1
    x_domain = [x_lo, x_hi] if reduced_any else alt.Undefined
    y_domain = [y_lo, y_hi] if reduced_any else alt.Undefined
    x_enc = alt.X("x0:Q", title=x_title, scale=alt.Scale(domain=x_domain, nice=False, zero=False))
    y_enc = alt.Y("y0:Q", title=y_title, scale=alt.Scale(domain=y_domain, nice=False, zero=False, reverse=y_down))

    hover_df, (br, bc) = _hover_frame(values, xc, dx, yc, dy, hover_cells, width / height)
    # The image's row also says what the chart shows (`meta` reads it back).
    image_df = pd.DataFrame(
        {
            "url": [url],
            "x0": [x_lo],
            "x1": [img_x_hi],
            "y0": [y_lo],
            "y1": [img_y_hi],
            "rows": [rows],
            "cols": [cols],
            "shown_rows": [int(reduced.shape[0])],
            "shown_cols": [int(reduced.shape[1])],
            "reduce": [reduce if note else "none"],
            "factor_rows": [fr],
            "factor_cols": [fc],
            "hover_rows": [br],
            "hover_cols": [bc],
            "lo": [float(lo)],
            "hi": [float(hi)],
            "scheme": [scheme],
            "note": [note],
        }
    )
    image = (
        alt.Chart(image_df)
        .mark_image(aspect=False, smooth=False, clip=True)
        .encode(x=x_enc, x2=alt.X2("x1"), y=y_enc, y2=alt.Y2("y1"), url=alt.Url("url:N"))
    )

    tooltip = [
        alt.Tooltip("yv:Q", title=y_title, format="~g"),
        alt.Tooltip("xv:Q", title=x_title, format="~g"),
        alt.Tooltip("value:Q", title=value_title, format=".4~g"),
    ]
    hover = (
        alt.Chart(hover_df)
        .mark_rect(opacity=0)
        .encode(x=x_enc, x2=alt.X2("x1"), y=y_enc, y2=alt.Y2("y1"), tooltip=tooltip)
    )
    # The legend: an invisible zero-size rect for each end of the colour range, at the first cell's corner.
    legend_df = pd.DataFrame({"value": [float(lo), float(hi)], "x0": [x_lo, x_lo], "y0": [y_lo, y_lo]})
    # dark: the image's dark anchors, interpolated in RGB as its lookup table is (Vega spreads a longer range evenly)
    if dark:
        colours = alt.Scale(range=list(DARK_DIVERGING[scheme]), interpolate="rgb", nice=False, zero=False, clamp=True)
    else:  # ignore: the stub takes only a Literal of Vega's scheme names; scheme is one (checked above)
        colours = alt.Scale(scheme=scheme, nice=False, zero=False, clamp=True)  # type: ignore[arg-type]
    legend = (
        alt.Chart(legend_df)
        .mark_rect(opacity=0)
        .encode(
            x=x_enc,
            x2=alt.X2("x0"),
            y=y_enc,
            y2=alt.Y2("y0"),
            color=alt.Color(
                "value:Q",
                title=value_title,
                scale=colours,
                legend=alt.Legend(title=value_title, gradientLength=max(50, int(height * 0.55))),
            ),
        )
    )
    # its colours are the image's, for the card it was built for: the dark styling leaves them (a light image shown on
    # the dark card keeps a light legend, not one of the dark card's colours over a light image)
    legend = legend.properties(name=IMAGE_LEGEND_VIEW + "legend")

    layers = [image, hover, legend]
    if not finite.all():  # under the image, the cells that hold no value: the card, and a slate on the dark card
        extent = pd.DataFrame({"x0": [x_lo], "x1": [x_hi], "y0": [y_lo], "y1": [y_hi]})
        mask = alt.Chart(extent).mark_rect(fill=CARD_BACKGROUND, stroke=None)
        layers.insert(
            0, mask.encode(x=x_enc, x2=alt.X2("x1"), y=y_enc, y2=alt.Y2("y1")).properties(name=MASK_VIEW + "cells")
        )
    chart = alt.LayerChart(layer=layers).properties(width=width, height=height)
    if title:
        return chart.properties(title=alt.TitleParams(title, subtitle=note or alt.Undefined, anchor="start"))
    if note:
        return chart.properties(
            title=alt.TitleParams(note, anchor="start", fontSize=12, fontWeight="normal", color="#475569")
        )
    return chart


def meta(chart: alt.TopLevelMixin | dict) -> dict:
    """What an `image_heatmap` shows, read from its image's row: ``shape`` (rows, cols of the
    matrix), ``shown`` (of the image), ``reduce`` ("none" or the mode), ``factor`` (cells per pixel),
    ``hover_block`` (cells per hover rect), ``domain`` (the colour range), ``scheme`` and ``note``
    (the reduction's sentence, "" if none). `chart`: the Altair chart, or a spec dict with its
    datasets (``chart.to_dict()``, or a page's chart with its Arrow rows decoded); the first image
    mark found (depth first) is read."""
    row = _image_row(chart)
    if row is None:
        raise ValueError("chart has no image_heatmap image (or a spec without its datasets)")
    return {
        "shape": [int(row["rows"]), int(row["cols"])],
        "shown": [int(row["shown_rows"]), int(row["shown_cols"])],
        "reduce": str(row["reduce"]),
        "factor": [int(row["factor_rows"]), int(row["factor_cols"])],
        "hover_block": [int(row["hover_rows"]), int(row["hover_cols"])],
        "domain": [float(row["lo"]), float(row["hi"])],
        "scheme": str(row["scheme"]),
        "note": str(row["note"]) if row["note"] is not None else "",
    }


def _image_row(chart: alt.TopLevelMixin | dict) -> dict | None:
    if not isinstance(chart, dict):
        for layer in getattr(chart, "layer", None) or []:
            data = getattr(layer, "data", None)
            if isinstance(data, pd.DataFrame) and "url" in data.columns and "rows" in data.columns:
                return data.iloc[0].to_dict()
        for part in ("concat", "hconcat", "vconcat"):
            for sub in getattr(chart, part, None) or []:
                found = _image_row(sub)
                if found is not None:
                    return found
        return None
    datasets = chart.get("datasets") or {}

    def walk(node: dict) -> dict | None:
        mark = node.get("mark")
        if (mark == "image" or (isinstance(mark, dict) and mark.get("type") == "image")) and "data" in node:
            rows = datasets.get(node["data"].get("name"))
            return rows[0] if rows else None
        for part in ("layer", "concat", "hconcat", "vconcat"):
            for sub in node.get(part) or []:
                found = walk(sub)
                if found is not None:
                    return found
        return None

    return walk(chart)


def fit_heatmap_legend(chart: alt.LayerChart, length: int, *, orient: str = "right") -> alt.LayerChart:
    """Shorten the colour legend of an `image_heatmap` chart to `length` px (and place it at
    `orient`: "right", or "bottom" to leave a narrow column's width to the image).

    image_heatmap sizes its legend to the chart height; Streamlit's "fit" autosize then squeezes the
    plot (title and axes included in the height), so the legend would overhang the image.
    """
    for layer in chart.layer:
        encoding = getattr(layer, "encoding", alt.Undefined)
        if alt.utils.is_undefined(encoding):
            continue
        colour = encoding.color
        if alt.utils.is_undefined(colour):
            continue
        legend = colour.to_dict(validate=False).get("legend")  # the chart tests validate every spec
        if legend:  # method syntax returns a copy with the legend replaced
            encoding.color = colour.legend(
                title=legend.get("title"),
                gradientLength=max(60, int(length)),
                orient=orient,
                direction="horizontal" if orient in ("top", "bottom") else "vertical",
            )
    return chart
