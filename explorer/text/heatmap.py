"""What an image heatmap (explorer.imagechart) says under its title about a reduced matrix: values in
(the mode, the rows and columns per pixel, the axes' names), one sentence out ("" when nothing was
reduced). See explorer.imagechart's docstring for what each mode hides."""

from __future__ import annotations


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def reduction_note(how: str, rows_per_pixel: int, cols_per_pixel: int, row_name: str, col_name: str) -> str:
    """``how``: "stride" (every k-th row and column kept), "mean" or "maxabs" (a block per pixel)."""
    fr, fc = rows_per_pixel, cols_per_pixel
    if fr == 1 and fc == 1:
        return ""
    if how == "stride":
        return "shown at " + " and ".join(
            f"every {ordinal(f)} {n}" for f, n in ((fr, row_name), (fc, col_name)) if f > 1
        )
    block = f"a block of {fr} × {fc} cells ({row_name} × {col_name})"
    if how == "mean":
        return f"each pixel averages {block}; averaging blurs fast oscillations"
    return f"each pixel shows the largest-magnitude value in {block}"
