"""The patch heatmaps on the Images and video page show no grid of seams between their cells (explorer.charts.style
.CELL_OVERLAP): drawn in Chromium from each chart's own file at the largest grids, no pixel inside a heatmap is lighter
than both its neighbours in its row or its column, as the white background showing through two anti-aliased cell edges
made it every cell or so (a faint white grid over a projected heatmap). A blend of two cells' colours lies between
them; only the background can make a pixel lighter than both sides."""

from __future__ import annotations

import _browser_fixtures
import pytest
from test_e2e_chartfile import open_offline

from explorer import chartfile, compat
from explorer.charts import vision as charts
from explorer.charts.style import CELL_OVERLAP, CELL_OVERLAP_PX, FONT_SCALE, style_spec
from explorer.compute import vision as compute
from explorer.render import stable_dataset_names
from explorer.text import vision as text
from explorer.vocabulary import NEW_GRIDS, TRAINED_GRIDS

chromium = _browser_fixtures.chromium

#: Lighter by more than this (in 0 … 255 luminance) than both neighbours: a seam.
LIGHTER = 8

#: Each named cells mark's box on the canvas (canvas pixels) and the canvas's luminance inside it, a row of pixels each.
PANELS_JS = """(pattern) => {
  const view = window.posencView, canvas = document.querySelector('canvas');
  const ratio = canvas.width / canvas.clientWidth, [ox, oy] = view.origin(), boxes = [];
  const walk = (node, x, y) => {
    for (const it of node.items || []) {
      if (node.marktype === 'group') { walk1(it, x + (it.x || 0), y + (it.y || 0)); continue; }
      if (!new RegExp(pattern).test(node.name || '') || !it.width) continue;
      const b = boxes.find((b) => b.name === node.name) || (boxes.push({name: node.name, x0: 1e9, y0: 1e9, x1: -1e9,
        y1: -1e9}), boxes[boxes.length - 1]);
      b.x0 = Math.min(b.x0, x + it.x); b.y0 = Math.min(b.y0, y + it.y);
      b.x1 = Math.max(b.x1, x + it.x + it.width); b.y1 = Math.max(b.y1, y + it.y + it.height);
    } };
  const walk1 = (group, x, y) => { for (const child of group.items || []) walk(child, x, y); };
  walk(view.scenegraph().root, 0, 0);
  const ctx = canvas.getContext('2d');
  return boxes.map((b) => {
    // inside the plot (the last cells reach past it and are clipped), two pixels in from each side
    const x0 = Math.ceil((b.x0 + ox) * ratio) + 2, y0 = Math.ceil((b.y0 + oy) * ratio) + 2;
    const w = Math.floor((b.x1 - b.x0) * ratio) - 8, h = Math.floor((b.y1 - b.y0) * ratio) - 8;
    const px = ctx.getImageData(x0, y0, w, h).data, rows = [];
    for (let r = 0; r < h; r++) { const row = [];
      for (let c = 0; c < w; c++) { const i = 4 * (r * w + c);
        row.push(0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2]); }
      rows.push(row); }
    return {name: b.name, w, h, rows};
  }); }"""


def seams(rows: list[list[float]]) -> int:
    """Pixels lighter by more than LIGHTER than both neighbours along their row or their column."""
    count = 0
    for r, row in enumerate(rows):
        for c, v in enumerate(row):
            across = 0 < c < len(row) - 1 and v > max(row[c - 1], row[c + 1]) + LIGHTER
            down = 0 < r < len(rows) - 1 and v > max(rows[r - 1][c], rows[r + 1][c]) + LIGHTER
            count += across or down
    return count


def _query_chart(grid: tuple[int, int] = (64, 64)):
    m = compute.Model.of(None, 64, 10000.0)
    tables = {text.scheme_title(name, m): t for name, t in compute.grid_tables(m).items()}
    return charts.query_heatmaps(
        tables, grid=grid, query=(5, 7), frame=0, frames=1, domain=None, columns=2, panel_width=280,
        **text.heatmap_words(m),
    )  # fmt: skip


def _open(chromium, tmp_path, chart, *, presenting: bool = False):
    """The chart's own file (as "Save this chart" writes it; in presentation mode's sizes when `presenting`), offline."""
    spec = stable_dataset_names(compat.vega_lite_spec(chart))
    path = tmp_path / "chart.html"
    path.write_text(chartfile.html_file(style_spec(spec, presenting=presenting), title="t", footer="f"))
    return open_offline(chromium, path)


def _resolution_chart():
    m = compute.Model.of(None, 64, 100.0)
    axis = compute.resolution_axis(m)
    return charts.live_resolution_chart(
        axis, trained=TRAINED_GRIDS, new=NEW_GRIDS, train=32, new_side=64, domain=None, description="d"
    )


@pytest.mark.parametrize(
    ("build", "pattern", "panels"),
    [(_query_chart, r"^vis_cells_\d_marks$", 4), (_resolution_chart, r"^res_cells_\d_marks$", 3)],
    ids=["query heatmaps 64 × 64", "resolution 32 → 64"],
)
def test_no_background_shows_between_the_cells(chromium, tmp_path, build, pattern, panels):
    tab, tried = _open(chromium, tmp_path, build())
    try:
        assert tab.evaluate("() => window.posencError || null") is None
        tab.evaluate("() => window.posencView.runAsync().then(() => null)")
        got = tab.evaluate(PANELS_JS, pattern)
        assert len(got) == panels, [p["name"] for p in got]
        for panel in got:
            assert panel["w"] > 100 and panel["h"] > 100, panel["name"]  # the plot found, and big enough to judge
            found = seams(panel["rows"])
            assert found < 0.002 * panel["w"] * panel["h"], f"{panel['name']}: {found} seam pixels"
        assert tried == []
    finally:
        tab.context.close()


#: Each resolution heatmap cell's patch and its box: (panel's mark name, row, column, x, y, width, height).
CELLS_JS = """() => { const out = [];
  const walk = (node) => { for (const it of node.items || []) {
    if (/^res_cells_\\d_marks$/.test(node.name || '')) out.push([node.name, it.datum.r, it.datum.c, it.x, it.y,
      it.width, it.height]);
    walk(it); } };
  walk(window.posencView.scenegraph().root); return out; }"""


@pytest.mark.parametrize("presenting", [False, True], ids=["app", "presentation mode"])
def test_each_resolution_cell_starts_where_its_patch_does(chromium, tmp_path, presenting):
    """The overlap grows each cell to the right and down only: a cell drawn centred on its band (Vega-Lite's way with a
    rect of a given size) would have shown every patch a quarter of a patch to the left, the centre patch beside the
    ring that marks it. Each cell starts at its patch's own place (a panel's side over the grid's side per patch) and
    reaches past it by the overlap, in presentation mode too (and so in the projector PNG), where each panel is drawn
    larger by the font scale."""
    tab, _ = _open(chromium, tmp_path, _resolution_chart(), presenting=presenting)
    try:
        cells = tab.evaluate(CELLS_JS)
        sides = {"res_cells_0_marks": 32, "res_cells_1_marks": 64, "res_cells_2_marks": 64}  # trained 32, new 64
        assert {name for name, *_ in cells} == set(sides)
        panel = round(charts.RES_PANEL["desktop"] * (FONT_SCALE if presenting else 1))  # a whole number of pixels
        for name, r, c, x, y, w, h in cells:
            step = panel / sides[name]
            assert (x, y) == pytest.approx((c * step, r * step), abs=1e-6), (name, r, c)
            assert (w, h) == pytest.approx((step + CELL_OVERLAP_PX, step + CELL_OVERLAP_PX), abs=1e-6), (name, r, c)
    finally:
        tab.context.close()


#: Each query heatmap cell's patch and its box: (row, column, x, y, width, height).
QUERY_CELLS_JS = """() => { const out = [];
  const walk = (node) => { for (const it of node.items || []) {
    if (node.name === 'vis_cells_0_marks') out.push([it.datum.vis_qrow, it.datum.vis_qcol, it.x, it.y, it.width,
      it.height]);
    walk(it); } };
  walk(window.posencView.scenegraph().root); return out; }"""


@pytest.mark.parametrize("grid", [(8, 8), (8, 32), (32, 8)], ids=lambda g: f"{g[0]}x{g[1]}")
def test_the_query_cells_overlap_each_other_but_end_at_the_grids_edge(chromium, tmp_path, grid):
    """The grid sits centred in its panel, which it fills along one side at most: the overlap that covers the seams
    must not draw the last column or row past the grid (where it spread over the axis and answered a click beside the
    grid). Every cell starts at its patch, reaches CELL_OVERLAP of a patch past it, and the last column and row end at
    their own edge."""
    rows, cols = grid
    tab, _ = _open(chromium, tmp_path, _query_chart(grid))
    try:
        cells = tab.evaluate(QUERY_CELLS_JS)
        assert len(cells) == rows * cols
        at = {(r, c): (x, y, w, h) for r, c, x, y, w, h in cells}
        step_x, step_y = at[(0, 1)][0] - at[(0, 0)][0], at[(1, 0)][1] - at[(0, 0)][1]
        assert step_x > 5 and step_y > 5
        for (r, c), (x, y, w, h) in at.items():
            assert (x, y) == pytest.approx((at[(0, 0)][0] + c * step_x, at[(0, 0)][1] + r * step_y), abs=1e-6)
            grow_x = CELL_OVERLAP if c < cols - 1 else 0
            grow_y = CELL_OVERLAP if r < rows - 1 else 0
            assert (w, h) == pytest.approx((step_x * (1 + grow_x), step_y * (1 + grow_y)), abs=1e-6), (r, c)
    finally:
        tab.context.close()
