"""The sinusoidal overview image's size: explorer.charts.sinusoidal draws at most this many pixels and
explorer.text.sinusoidal quotes it. Rows = the chart height (one image row per screen pixel row, so the
browser never drops rows), columns = a typical wide chart."""

OVERVIEW_MAX_ROWS = 480
OVERVIEW_MAX_COLS = 1024
