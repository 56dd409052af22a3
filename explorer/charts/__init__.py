"""Pure chart builders, one module per page: data -> alt.Chart (no Streamlit calls)."""

from explorer.altair_speedup import install as _install_altair_speedup

_install_altair_speedup()
