"""explorer.imagechart: reduction, colour mapping, PNG encoding and the Altair spec."""

import base64
import io
import json

import numpy as np
import pytest
from _chartspec import channels_apart, hex_colour, legend_stops
from PIL import Image

from explorer.imagechart import (
    SCHEMES,
    coarse_hover_cells,
    colorize,
    colormap_lut,
    default_domain,
    image_heatmap,
    reduce_matrix,
)
from explorer.imagechart import meta as image_meta
from explorer.render import stable_dataset_names


# ------------------------------------------------------------------------------ helpers
def _spec(chart):
    return chart.to_dict()


def _layer_data(spec, i):
    data = spec["layer"][i]["data"]
    return data["values"] if "values" in data else spec["datasets"][data["name"]]


def _png(spec) -> Image.Image:
    image = next(i for i, layer in enumerate(spec["layer"]) if layer["mark"]["type"] == "image")
    url = _layer_data(spec, image)[0]["url"]
    assert url.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))


# -------------------------------------------------------------------------- reduce_matrix
def test_reduce_matrix_no_reduction_returns_input_and_empty_note():
    m = np.arange(12.0).reshape(3, 4)
    reduced, rows, cols, note = reduce_matrix(m, 3, 4)
    assert reduced.shape == (3, 4)
    np.testing.assert_array_equal(reduced, m)
    np.testing.assert_array_equal(rows, [0, 1, 2])
    np.testing.assert_array_equal(cols, [0, 1, 2, 3])
    assert note == ""


@pytest.mark.parametrize("how", ["stride", "mean", "maxabs"])
@pytest.mark.parametrize(
    "shape, limits, expected",
    [
        ((1000, 64), (256, 64), (250, 64)),  # factor 4 along rows only
        ((1001, 64), (256, 64), (251, 64)),  # partial last block
        ((10, 10), (3, 10), (3, 10)),  # factor 4: blocks 0-3, 4-7, 8-9
        ((4096, 1024), (1024, 1024), (1024, 1024)),
        ((7, 300), (7, 100), (7, 100)),  # columns only
    ],
)
def test_reduce_matrix_shapes_fit_the_limits(how, shape, limits, expected):
    m = np.random.default_rng(0).normal(size=shape)
    reduced, rows, cols, note = reduce_matrix(m, *limits, how)
    assert reduced.shape == expected
    assert reduced.shape[0] <= limits[0] and reduced.shape[1] <= limits[1]
    assert len(rows) == reduced.shape[0] and len(cols) == reduced.shape[1]
    assert rows[0] == 0 and cols[0] == 0
    assert note != ""


def test_reduce_matrix_stride_keeps_exact_rows_and_says_so():
    m = np.arange(20.0)[:, None] * 10 + np.arange(6.0)[None, :]
    reduced, rows, _, note = reduce_matrix(m, 5, 6, "stride", row_name="position")
    np.testing.assert_array_equal(rows, [0, 4, 8, 12, 16])
    np.testing.assert_array_equal(reduced, m[rows])
    assert note == "shown at every 4th position"
    _, _, _, note2 = reduce_matrix(m, 10, 3, "stride", row_name="position", col_name="dimension")
    assert note2 == "shown at every 2nd position and every 2nd dimension"


def test_reduce_matrix_mean_averages_blocks_including_partial_last_block():
    m = np.arange(10.0)[:, None] * np.ones((1, 2))
    reduced, rows, _, note = reduce_matrix(m, 3, 2, "mean")
    np.testing.assert_allclose(reduced[:, 0], [1.5, 5.5, 8.5])  # (0..3), (4..7), (8, 9)
    np.testing.assert_array_equal(rows, [0, 4, 8])
    assert "averages" in note and "blurs" in note


def test_reduce_matrix_mean_blurs_a_fast_sinusoid_but_maxabs_keeps_its_envelope():
    p = np.arange(1024)
    fast = np.sin(p * np.pi / 2 + 0.3)[:, None]  # period 4 positions
    mean, _, _, _ = reduce_matrix(fast, 256, 1, "mean")
    maxabs, _, _, note = reduce_matrix(fast, 256, 1, "maxabs")
    assert np.max(np.abs(mean)) < 1e-9  # averages to zero: looks flat
    assert np.min(np.abs(maxabs)) > 0.9  # the envelope survives
    assert "largest-magnitude" in note


def test_reduce_matrix_maxabs_keeps_the_sign_and_ignores_nan():
    m = np.array([[1.0, -5.0, 2.0, np.nan], [0.5, 4.0, np.nan, np.nan]])
    reduced, _, _, _ = reduce_matrix(m, 1, 2, "maxabs")
    np.testing.assert_array_equal(reduced, [[-5.0, 2.0]])


def test_reduce_matrix_rejects_bad_arguments():
    with pytest.raises(ValueError, match="how"):
        reduce_matrix(np.zeros((4, 4)), 2, 2, "median")
    with pytest.raises(ValueError, match="2-D"):
        reduce_matrix(np.zeros(4), 2, 2)
    with pytest.raises(ValueError, match="max_rows"):
        reduce_matrix(np.zeros((4, 4)), 0, 2)


# ------------------------------------------------------------------------------- colours
def test_lut_endpoints_are_the_vega_scheme_anchors():
    # First/middle/last anchors of Vega's redblue, viridis and magma palettes.
    lut = colormap_lut("redblue")
    assert lut.shape == (256, 3) and lut.dtype == np.uint8
    assert hex_colour(lut[0]) == "#8c0d25" and hex_colour(lut[-1]) == "#134b85"
    assert hex_colour(colormap_lut("viridis")[0]) == "#440154"
    assert hex_colour(colormap_lut("viridis")[-1]) == "#fde725"
    assert hex_colour(colormap_lut("magma")[-1]) == "#fcfdbf"
    assert hex_colour(colormap_lut("redblue", 11)[5]) == "#f2efee"  # the diverging midpoint


def test_every_scheme_has_a_lut():
    for scheme in SCHEMES:
        assert colormap_lut(scheme).shape == (256, 3)
    with pytest.raises(ValueError, match="scheme"):
        colormap_lut("jet")


def test_colorize_maps_domain_ends_and_nan():
    m = np.array([[-1.0, 0.0, 1.0, np.nan, 5.0]])
    rgba = colorize(m, scheme="redblue", domain=(-1, 1))
    lut = colormap_lut("redblue")
    assert tuple(rgba[0, 0, :3]) == tuple(lut[0])
    assert tuple(rgba[0, 2, :3]) == tuple(lut[-1])
    assert tuple(rgba[0, 4, :3]) == tuple(lut[-1])  # saturates above the domain
    assert rgba[0, 3, 3] == 0  # NaN is transparent
    assert rgba[0, 0, 3] == 255


def test_default_domain_is_symmetric_for_diverging_schemes():
    m = np.array([[-0.2, 0.7]])
    assert default_domain(m, "redblue") == (-0.7, 0.7)
    assert default_domain(m, "viridis") == (-0.2, 0.7)
    assert default_domain(np.zeros((2, 2)), "redblue") == (-1.0, 1.0)
    assert default_domain(np.full((2, 2), 3.0), "viridis") == (2.5, 3.5)


# ---------------------------------------------------------------------------- the chart
def test_chart_spec_has_one_image_mark_axes_legend_and_tooltips():
    m = np.random.default_rng(1).normal(size=(40, 16))
    chart = image_heatmap(m, x_title="dimension", y_title="position", value_title="PE", title="Encoding")
    spec = _spec(chart)
    image, hover, legend = spec["layer"]
    assert image["mark"]["type"] == "image"
    assert image["mark"]["aspect"] is False and image["mark"]["smooth"] is False
    assert image["encoding"]["url"]["field"] == "url"
    assert image["encoding"]["x"]["title"] == "dimension"
    assert image["encoding"]["y"]["title"] == "position"
    assert {"x2", "y2"} <= set(image["encoding"])
    assert len(_layer_data(spec, 0)) == 1
    assert hover["mark"]["type"] == "rect" and hover["mark"]["opacity"] == 0
    assert [t["title"] for t in hover["encoding"]["tooltip"]] == ["position", "dimension", "PE"]
    # The legend: two invisible rects, the colour range's ends, on the scheme's scale.
    lo, hi = default_domain(m, "redblue")
    assert legend["mark"] == {"type": "rect", "opacity": 0}
    assert legend["encoding"]["color"]["scale"]["scheme"] == "redblue"
    assert legend["encoding"]["color"]["legend"]["title"] == "PE"
    assert sorted(r["value"] for r in _layer_data(spec, 2)) == [lo, hi]
    assert spec["title"]["text"] == "Encoding"
    assert image_meta(spec)["reduce"] == "none" and image_meta(spec)["domain"] == [lo, hi]
    assert image_meta(chart) == image_meta(spec)  # the Altair chart and its spec say the same


def test_axis_domains_are_cell_edges_and_y_points_down():
    """Unreduced: no domain in the spec (the marks give it; the image spans exactly the cells' outer
    edges and every other mark lies inside); reduced: the cells' edges, explicitly."""
    m = np.zeros((5, 4))
    spec = _spec(image_heatmap(m, x_values=np.arange(10, 14), y_values=np.arange(0, 50, 10)))
    for layer in spec["layer"]:
        assert "domain" not in layer["encoding"]["x"]["scale"] and "domain" not in layer["encoding"]["y"]["scale"]
    assert layer["encoding"]["y"]["scale"]["reverse"] is True
    image = _layer_data(spec, 0)[0]
    assert [image["x0"], image["x1"], image["y0"], image["y1"]] == [9.5, 13.5, -5.0, 45.0]
    for i in (1, 2):  # hover rects and the legend's corner: inside
        xs = [r[k] for r in _layer_data(spec, i) for k in ("x0", "x1") if k in r]
        ys = [r[k] for r in _layer_data(spec, i) for k in ("y0", "y1") if k in r]
        assert 9.5 <= min(xs) <= max(xs) <= 13.5 and -5.0 <= min(ys) <= max(ys) <= 45.0
    big = _spec(image_heatmap(np.zeros((50, 7)), y_values=np.arange(0, 500, 10), max_pixels=(7, 20)))
    assert big["layer"][0]["encoding"]["x"]["scale"]["domain"] == [-0.5, 6.5]
    assert big["layer"][0]["encoding"]["y"]["scale"]["domain"] == [-5.0, 495.0]
    assert big["layer"][0]["encoding"]["y"]["scale"]["reverse"] is True


def test_a_new_matrix_of_another_size_changes_only_the_data():
    """The browser redraws such a chart in place (explorer.render.stable_dataset_names)."""
    one, two = (
        stable_dataset_names(image_heatmap(np.random.default_rng(n).normal(size=(n, n)), title="T").to_dict())
        for n in (5, 9)
    )
    assert one["datasets"] != two["datasets"]
    assert {k: v for k, v in one.items() if k != "datasets"} == {k: v for k, v in two.items() if k != "datasets"}


def test_png_has_the_matrix_size_and_known_pixel_colours():
    m = np.zeros((6, 9))
    m[0, 0] = 1.0  # top-left: the top of the domain
    m[5, 8] = -1.0  # bottom-right: the bottom
    m[2, 3] = np.nan
    spec = _spec(image_heatmap(m, scheme="redblue", domain=(-1, 1)))
    img = _png(spec).convert("RGBA")
    assert img.size == (9, 6)  # (width = columns, height = rows)
    lut = colormap_lut("redblue")
    assert img.getpixel((0, 0))[:3] == tuple(int(c) for c in lut[-1])
    assert img.getpixel((8, 5))[:3] == tuple(int(c) for c in lut[0])
    assert img.getpixel((3, 2))[3] == 0  # NaN -> transparent
    # y_down=False puts row 0 at the bottom of the image.
    flipped = _png(_spec(image_heatmap(m, domain=(-1, 1), y_down=False))).convert("RGBA")
    assert flipped.getpixel((0, 5))[:3] == tuple(int(c) for c in lut[-1])


@pytest.mark.parametrize("y_down", [True, False])
def test_finite_matrix_is_a_paletted_png_with_the_same_pixels_as_colorize(y_down):
    m = np.random.default_rng(5).normal(size=(17, 23))
    img = _png(_spec(image_heatmap(m, scheme="viridis", y_down=y_down)))
    assert img.mode == "P"  # one byte per pixel
    expected = colorize(m, scheme="viridis", domain=default_domain(m, "viridis"))
    if not y_down:
        expected = expected[::-1]
    np.testing.assert_array_equal(np.asarray(img.convert("RGBA")), expected)
    # A NaN needs transparency: then the image is RGBA.
    m[3, 4] = np.nan
    assert _png(_spec(image_heatmap(m, scheme="viridis"))).mode == "RGBA"


def test_large_matrix_is_reduced_and_the_subtitle_says_how():
    m = np.random.default_rng(2).normal(size=(4096, 1024))
    chart = image_heatmap(
        m,
        x_title="dimension",
        y_title="position",
        value_title="PE",
        title="Big",
        max_pixels=(512, 1024),
    )
    spec = _spec(chart)
    img = _png(spec)
    assert img.size == (512, 1024)
    meta = image_meta(spec)
    assert meta["shape"] == [4096, 1024] and meta["shown"] == [1024, 512]
    assert meta["factor"] == [4, 2] and meta["reduce"] == "stride"
    assert spec["title"]["subtitle"] == "shown at every 4th position and every 2nd dimension"
    # The hover grid stays coarse, and the whole spec stays small enough to ship.
    assert len(_layer_data(spec, 1)) <= 2500
    assert len(json.dumps(spec)) < 5_000_000


def test_note_without_title_becomes_the_title():
    spec = _spec(image_heatmap(np.zeros((300, 4)), max_pixels=(4, 100), reduce="mean"))
    assert "averages" in spec["title"]["text"]


def test_hover_values_are_exact_samples_of_the_original_matrix():
    m = np.arange(200.0).reshape(100, 2)
    spec = _spec(image_heatmap(m, hover_cells=50))
    rows = _layer_data(spec, 1)
    assert len(rows) <= 50
    for row in rows:
        assert row["value"] == m[int(row["yv"]), int(row["xv"])]


def test_bad_inputs_raise_value_errors():
    with pytest.raises(ValueError, match="x_values"):
        image_heatmap(np.zeros((2, 3)), x_values=[0, 1, 5])
    with pytest.raises(ValueError, match="y_values"):
        image_heatmap(np.zeros((2, 3)), y_values=[0, 1, 2])
    with pytest.raises(ValueError, match="scheme"):
        image_heatmap(np.zeros((2, 3)), scheme="rainbow")
    with pytest.raises(ValueError, match="domain"):
        image_heatmap(np.zeros((2, 3)), domain=(1, 1))
    with pytest.raises(ValueError, match="2-D"):
        image_heatmap(np.zeros(3))


def test_coarse_hover_cells_is_one_cell_per_20_pixels_square():
    # 330 × 420 px = 138,600 px² = 346.5 cells of 20 × 20 px; 480 × 420 = 504; a tiny plot keeps 64
    assert coarse_hover_cells(330, 420) == 346
    assert coarse_hover_cells(480, 420) == 504
    assert coarse_hover_cells(40, 40) == 64
    with pytest.raises(ValueError, match="width and height"):
        coarse_hover_cells(0, 420)


def _contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two '#RRGGBB' colours (re-typed here from the WCAG 2 definition)."""

    def lum(c):
        lin = [
            (v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4)
            for v in (int(c[i : i + 2], 16) / 255 for i in (1, 3, 5))
        ]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("scheme", ["viridis", "magma"])
def test_cells_without_a_value_lie_on_a_slate_on_the_dark_card(scheme):
    """A causal mask's upper triangle (NaN: transparent pixels) showed the card. On the dark card, viridis's and
    magma's lowest colours (a gate or a count of 0) all but matched it, and the mask's edge faded; now a layer under
    the image fills the plot with the card's colour, a slate on the dark card, which the lowest colour stands off."""
    from explorer.charts import style

    m = np.tril(np.arange(1.0, 26.0).reshape(5, 5))
    m[np.triu_indices(5, 1)] = np.nan
    lowest = hex_colour(colormap_lut(scheme)[0])
    assert _contrast(lowest, style.DARK_BACKGROUND) < 1.5  # why: on the card itself the edge fades
    light = _spec(image_heatmap(m, scheme=scheme))
    mask = light["layer"][0]
    assert mask["mark"]["type"] == "rect" and light["layer"][1]["mark"]["type"] == "image"  # drawn first: under it
    assert mask["mark"]["fill"] == style.CARD_BACKGROUND  # the light card: unchanged
    assert _layer_data(light, 0) == [{"x0": -0.5, "x1": 4.5, "y0": -0.5, "y1": 4.5}]  # the cells' outer edges
    dark = style.style_spec(light, dark=True)["layer"][0]["mark"]["fill"]
    assert dark != style.DARK_BACKGROUND and _contrast(lowest, dark) >= 2.0
    # a matrix with a value in every cell has no such layer
    assert _spec(image_heatmap(np.ones((3, 3))))["layer"][0]["mark"]["type"] == "image"


def test_a_diverging_image_on_the_dark_card_is_dark_at_zero_and_its_legend_shows_its_colours():
    """redblue's middle is near-white: on the dark card a matrix of mostly zeros (R_m) was a glaring white square. Built
    for the dark card, a zero is close to the card, −1 and 1 stand clearly off it (red below, blue above, as on the
    light card), and the legend Vega draws, once the dark theme has styled the chart, shows the image's own colours;
    the light card's image and spec are as they were."""
    from _chartspec import contrast

    from explorer.charts import style

    values = np.linspace(-1.0, 1.0, 21)  # one pixel per legend stop Vega draws (every 0.05 of the range)
    m = values[None, :]
    plain = _spec(image_heatmap(m, domain=(-1, 1)))
    light = _spec(image_heatmap(m, domain=(-1, 1), dark=False))
    assert light == plain  # the light card: the same chart, pixel for pixel
    dark = _spec(image_heatmap(m, domain=(-1, 1), dark=True))
    pixels = {
        name: [hex_colour(p) for p in np.asarray(_png(spec).convert("RGB"))[0]]
        for name, spec in (("light", light), ("dark", dark))
    }
    zero, low, high = pixels["dark"][10], pixels["dark"][0], pixels["dark"][-1]
    assert contrast(zero, style.DARK_BACKGROUND) < 1.3  # a zero sits just off the dark card, not a glare on it
    assert contrast(pixels["light"][10], style.DARK_BACKGROUND) > 10  # (what it was: redblue's near-white)
    for end in (low, high):
        assert contrast(end, style.DARK_BACKGROUND) >= 3  # ±1 read on the card
    assert int(low[1:3], 16) > int(low[5:7], 16) and int(high[5:7], 16) > int(high[1:3], 16)  # red low, blue high
    # the light card keeps Vega's redblue: its dark red and dark blue ends and near-white middle
    assert (pixels["light"][0], pixels["light"][-1]) == ("#8c0d25", "#134b85")
    assert contrast(pixels["light"][10], style.CARD_BACKGROUND) < 1.2
    # the legend Vega draws on each card is the image's colours (within the 256-entry table's rounding)
    for name, spec in (("light", light), ("dark", dark)):
        stops = legend_stops(style.style_spec(spec, dark=name == "dark"))
        assert [round(at, 6) for at, _ in stops] == [round(v, 6) for v in (values + 1) / 2], name
        for (_, drawn), pixel in zip(stops, pixels[name], strict=True):
            assert channels_apart(drawn, pixel) <= 2, (name, drawn, pixel)
