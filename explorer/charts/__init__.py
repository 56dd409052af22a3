"""Pure chart builders, one module per page: data -> alt.Chart (no Streamlit calls)."""
