"""The Streamlit side of the Positional-encoding explorer (posenc never imports it).

Pages are declared in `explorer/site/` (one module each) and collected by `explorer.manifest`;
`explorer.layout.page_setup` draws the frame; `explorer.widgets.widget` draws URL-bound widgets;
chart builders live in `explorer/charts/`. See docs/ARCHITECTURE.md.
"""
