"""Streamlit-side infrastructure shared by every page of the Positional-encoding explorer.

- `explorer.params`     the parameter registry and `widget()` (URL-bound widgets with validation)
- `explorer.layout`     `page_setup()`, the ordered page list, small rendering helpers
- `explorer.imagechart` dense matrix -> colour-mapped PNG drawn as one Altair image mark

Nothing here is imported by `posenc` (the maths stays free of Streamlit).
"""

from explorer.altair_speedup import install as _install_altair_speedup

_install_altair_speedup()  # once, for every chart built through explorer (see the module)
