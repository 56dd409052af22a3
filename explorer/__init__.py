"""The Streamlit side of the Positional-encoding explorer (posenc never imports it).

Pages are declared in `explorer/site/` (one module each) and collected by `explorer.manifest`;
`explorer.layout.page_setup` draws the frame; `explorer.params.widget` draws URL-bound widgets;
chart builders live in `explorer/charts/`. See docs/ARCHITECTURE.md.
"""

# The whole posenc package, before any explorer module imports a part of it. Streamlit runs each
# session's script in its own thread, so on a freshly started server several sessions import these
# packages at once. CPython 3.11's per-module import locks then deadlock when one thread imports a
# submodule (`from posenc.methods import …`: it holds posenc.methods' lock and waits for the package)
# while another initialises the package (posenc/__init__ imports posenc.methods); the deadlock
# detector hands one of them the half-made module: "cannot import name … from partially initialized
# module" (tests/test_proxy.py saw it with ten sessions opening every page). Every page imports
# explorer first, so this line finishes posenc in whichever thread gets here first while the others
# wait for the explorer package holding no posenc lock. tests/test_manifest.py checks it.
import posenc
