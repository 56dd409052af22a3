"""The end of every page: "Reproduce in Python", the page's main data as CSV, the share link.

    page_footer("rope", values={...}, data=lambda: pd.DataFrame(...), file_name="rope_matrix.csv")

`values` are the numbers the page computed with (explorer.snippets documents the keys per page);
`data` is the page's own main data (a DataFrame, or a function returning one: it is then built
only when the button is clicked). Charts themselves: PNG from Streamlit's chart toolbar, SVG from
the button explorer.assets adds next to it, and each chart's data table from the toolbar's
"Show data".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from explorer import links, manifest


def csv_text(frame: pd.DataFrame) -> str:
    """CSV with every float written exactly (17 significant digits)."""
    return frame.to_csv(index=False, float_format="%.17g")


def page_footer(
    page: str,
    values: Mapping[str, Any],
    *,
    data: pd.DataFrame | Callable[[], pd.DataFrame] | None = None,
    file_name: str = "data.csv",
    data_label: str = "Download the data as CSV",
    link_values: Mapping[str, Any] | None = None,
) -> str:
    """Draw the footer; returns the snippet shown.

    `link_values` (optional) are parameter values the share link must use instead of the
    session's (e.g. a value the page clamped); by default the link is rebuilt from the session.
    """
    code = manifest.page(page).snippet(values)
    # Drawn only while open (on_change="rerun" makes the expander lazy): the highlighted code
    # block costs the browser ~140 ms on every run, for a panel most visits never open.
    reproduce = st.expander("Reproduce in Python", icon=":material/code:", key=f"code_{page}", on_change="rerun")
    if reproduce.open:
        reproduce.caption(
            "These lines compute the numbers on this page with the settings above, "
            "using the `posenc` package of this repository "
            "(pip install -r requirements.txt)."
        )
        reproduce.code(code, language="python")
    if data is not None:

        def build() -> str:
            return csv_text(data() if callable(data) else data)

        st.download_button(
            data_label, data=build, file_name=file_name, mime="text/csv", icon=":material/download:", key=f"csv_{page}"
        )
    links.render_share_link(dict(link_values or {}))
    return code


# ------------------------------------------------------------------ tables for page data
def matrix_frame(matrix: Any, *, row: str = "row", column: str = "column") -> pd.DataFrame:
    """A matrix as a table: one line per row index, one column per column index."""
    matrix = np.asarray(matrix)
    table = pd.DataFrame(matrix, columns=[f"{column} {c}" for c in range(matrix.shape[1])])
    table.insert(0, row, np.arange(matrix.shape[0]))
    return table


def long_matrices(
    matrices: Mapping[str, Any], *, rows: Any = None, columns: Any = None, row: str = "row", column: str = "column"
) -> pd.DataFrame:
    """Several same-shape matrices in long form: row, column, then one value column each
    (a matrix given as None is left out). `rows`/`columns` label the indices (default 0 … n−1)."""
    present = {name: np.asarray(m) for name, m in matrices.items() if m is not None}
    if not present:
        return pd.DataFrame()
    shape = next(iter(present.values())).shape
    r = np.arange(shape[0]) if rows is None else np.asarray(rows)
    c = np.arange(shape[1]) if columns is None else np.asarray(columns)
    table = pd.DataFrame({row: np.repeat(r, shape[1]), column: np.tile(c, shape[0])})
    for name, m in present.items():
        if m.shape != shape:
            raise ValueError(f"{name} has shape {m.shape}, expected {shape}")
        table[name] = m.ravel()
    return table


def extension_frame(ext: Any) -> pd.DataFrame:
    """Context extension's per-pair numbers (an `explorer.ropeblock.Extension`)."""
    return pd.DataFrame(
        {
            "pair j": np.arange(ext.inv_freq.size),
            "theta_j (rad/token, trained)": ext.inv_freq,
            "theta'_j (rad/token, scaled)": ext.scaled_inv_freq,
            "wavelength_j (tokens)": 2 * np.pi / ext.inv_freq,
            "wavelength'_j (tokens)": 2 * np.pi / ext.scaled_inv_freq,
            "largest angle in training L*theta_j": ext.train_angle,
            "largest angle at T T*theta'_j": ext.target_angle,
            "out of distribution": ext.out_of_distribution,
        }
    )


def labelled_matrices(
    matrices: Mapping[str, tuple[Any, Any]], *, row: str = "row", column: str = "column"
) -> pd.DataFrame:
    """Square matrices with their own labels (e.g. the words in the order the matrix uses), in
    long form: matrix, row index, row label, column index, column label, value."""
    parts = []
    for name, (matrix, labels) in matrices.items():
        matrix = np.asarray(matrix)
        n_rows, n_cols = matrix.shape
        labels = list(labels)
        parts.append(
            pd.DataFrame(
                {
                    "matrix": name,
                    row: np.repeat(np.arange(n_rows), n_cols),
                    f"{row} label": np.repeat(labels[:n_rows], n_cols),
                    column: np.tile(np.arange(n_cols), n_rows),
                    f"{column} label": np.tile(labels[:n_cols], n_rows),
                    "value": matrix.ravel(),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)
