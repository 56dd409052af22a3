"""Chart builders for the real-model page (SmolLM2-135M): data -> alt.Chart, no Streamlit calls.

`pair_chart` the share of the q·k norm product per RoPE pair (coloured by whether the pair turns
within the trained length); `grid_chart` a layer × head grid (a number or a label per head);
`profile_chart` one head's attention against distance; `loss_chart` loss per position, one line per
rope, with the trained length marked; `passkey_chart` the passkey grid.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from explorer.charts.style import (
    GRID_VIEW,
    INK,
    LEGENDS_STACKED_BELOW,
    chart_config,
    font_scale_param,
    grid_inks,
    legend_columns,
    marked_rules,
    seamless_cells,
    titled_layers,
)
from explorer.text import realmodel as realtext
from posenc import stats
from posenc.realmodel.analysis import chunk_means

HEIGHT = 380
#: Legends under the plot, each legend's entries in as many columns as the plot's width holds (`legend_columns`), two
#: legends one under the other (side by side, the second ran past a phone's right edge)
CONFIG = chart_config(
    title={"offset": 10},
    axis={"grid": True, "gridColor": "#e2e8f0"},
    legend={
        "orient": "bottom",
        "labelLimit": 400,
        "layout": LEGENDS_STACKED_BELOW,
    },
)
TURNS = {True: "turns in training", False: "never turns in training"}
TURN_COLORS = ("#2563eb", "#ea580c")  # blue: turns; orange: never does
#: One colour per rope, the same in every chart of the page (the shipped long-context curves, the content control, a
#: live run, the changed rope): keyed by posenc's method name, found from a legend's name (`method_of`). The model's
#: own (slate), then hues far apart; all mid-tones, legible on the light and the dark card.
METHOD_COLORS = {
    "default": "#64748b",
    "linear": "#2563eb",
    "ntk": "#ea580c",
    "dynamic": "#16a34a",
    "yarn": "#9333ea",
    "llama3": "#db2777",
    "longrope": "#ca8a04",
    "proportional": "#0891b2",
    "norope": "#92400e",
}
#: `change_figure`'s name for the model's own rope
OWN_ROPE = "its own rope"
#: a name no method's: a neutral grey
OTHER_COLOR = "#94a3b8"
LABEL_COLORS = {"sink": "#7c3aed", "previous": "#059669", "local": "#2563eb", "spread": "#94a3b8"}


#: a tick as a legend symbol (an SVG path in Vega's symbol units, ±1 the symbol's size): 15 × 3 px at size 225
TICK_SYMBOL = "M-1,-0.2H1V0.2H-1Z"
#: the ticks' legend entry (what softmax compares; short, to fit a phone's plot: the subtitle says more)
SPREAD = "share of the variance across keys"


def _finish(layers: Sequence[Any], title: str, subtitle: str | Sequence[str], height: int) -> alt.TopLevelMixin:
    """The layers as one chart with its title (also its description), height and CONFIG; it declares the presentation
    font scale, which its legends' columns read (`legend_columns`)."""
    return titled_layers(layers, title, subtitle or "", height, CONFIG).properties(params=[font_scale_param().param])


def method_of(name: str) -> str | None:
    """The posenc method a legend's name shows (`OWN_ROPE`, or a name that starts with the method's
    `realtext.short_label`, the longest that does: "dynamic NTK ×2 in one pass = NTK ×3" is dynamic, not NTK), or
    None."""
    if name == OWN_ROPE:
        return "default"
    shown = {m: realtext.short_label(m) for m in METHOD_COLORS}
    fits = [m for m, short in shown.items() if name == short or name.startswith(short + " ")]
    return max(fits, key=lambda m: len(shown[m]), default=None)


def line_colors(names: Sequence[str]) -> alt.Scale:
    """The colour scale of a chart whose series are `names` (legend names): each its method's `METHOD_COLORS`."""
    return alt.Scale(domain=list(names), range=[METHOD_COLORS.get(method_of(n) or "", OTHER_COLOR) for n in names])


def pair_frame(
    shares: np.ndarray, wavelengths: np.ndarray, trained: int, spread: np.ndarray | None = None
) -> pd.DataFrame:
    """(pairs,) shares -> rows (pair, share %, wavelength, turns, group[, spread %: each pair's share of the
    variance across keys, drawn as ticks])."""
    lam = np.asarray(wavelengths, dtype=float)
    cols = {
        "pair": np.arange(len(lam)),
        "share": 100 * np.asarray(shares, dtype=float),
        "wavelength": lam.round(1),
        "turns": (trained / lam).round(3),
        "group": [TURNS[bool(t)] for t in trained / lam >= 1],
    }
    if spread is not None:
        cols["spread"] = 100 * np.asarray(spread, dtype=float)
        cols["measure"] = SPREAD
    return pd.DataFrame(cols)


def pair_chart(
    frame: pd.DataFrame, *, title: str, subtitle: str | Sequence[str] = "", y_title: str
) -> alt.TopLevelMixin:
    """Bars of each pair's share, coloured by whether it turns within the trained length."""
    color = alt.Color(
        "group:N",
        title=None,
        sort=list(TURNS.values()),
        scale=alt.Scale(domain=list(TURNS.values()), range=list(TURN_COLORS)),
        legend=alt.Legend(columns=legend_columns(list(TURNS.values()), most=2)),
    )
    bars = (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X(
                "pair:O",
                title="RoPE pair j (fast → slow)",
                axis=alt.Axis(labelAngle=0, values=list(range(0, len(frame), 4))),
            ),
            y=alt.Y("share:Q", title=y_title),
            color=color,
            tooltip=[
                alt.Tooltip("pair:O", title="pair j"),
                alt.Tooltip("share:Q", format=".2f", title="share (%)"),
                alt.Tooltip("wavelength:Q", format=",.1f", title="wavelength (tokens)"),
                alt.Tooltip("turns:Q", format=",.3f", title="turns in the trained length"),
            ],
        )
    )
    layers: list[Any] = [bars]
    if "spread" in frame:
        layers.append(  # a tick 3/4 of a band wide (Vega-Lite's bandSize): inside the plot on a phone
            alt.Chart(frame)
            .mark_tick(thickness=3)
            .encode(
                x="pair:O",
                y="spread:Q",
                # its legend entry through colour, the one colour of a scale of its own (Vega-Lite drops a shape on a
                # tick mark, and its legend with it); its symbol a tick filled with the scale's colour, which the dark
                # theme lightens (a stroke symbol needs a fixed colour, which stayed near-black on the dark card)
                color=alt.Color(
                    "measure:N",
                    title=None,
                    scale=alt.Scale(range=["#111827"]),
                    legend=alt.Legend(symbolType=TICK_SYMBOL, symbolSize=225),
                ),
                tooltip=[
                    alt.Tooltip("pair:O", title="pair j"),
                    alt.Tooltip("spread:Q", format=".2f", title="share of the variance across keys (%)"),
                ],
            )
        )
    return _finish(layers, title, subtitle, HEIGHT).resolve_scale(color="independent")


def frequency_chart(
    products: np.ndarray, spread: np.ndarray | None, wavelengths: np.ndarray, trained: int, *, tokens: int, title: str
) -> alt.TopLevelMixin:
    """Each pair's share of the q·k norm product (bars) over every layer and head in ``products`` (…, pairs), and
    with ``spread`` (…, pairs) its share of the variance across keys (ticks)."""
    per_pair = np.asarray(products, dtype=float).reshape(-1, np.shape(products)[-1]).sum(axis=0)
    var = None if spread is None else np.asarray(spread, dtype=float).reshape(-1, per_pair.size).sum(axis=0)
    return pair_chart(
        pair_frame(per_pair / per_pair.sum(), wavelengths, trained, None if var is None else var / var.sum()),
        title=title,
        subtitle=realtext.frequency_subtitle(tokens, trained, var is not None),
        y_title="share (%)",
    )


def norm_frame(q: np.ndarray, k: np.ndarray) -> pd.DataFrame:
    """One layer's (q_heads, pairs) and (kv_heads, pairs) mean pair norms -> rows (pair, series, kind, norm)."""
    rows = []
    for kind, arr in (("query", np.asarray(q, dtype=float)), ("key", np.asarray(k, dtype=float))):
        for h, norms in enumerate(arr):
            rows += [
                {"pair": j, "series": f"{kind} head {h}", "kind": kind, "norm": float(v)} for j, v in enumerate(norms)
            ]
    return pd.DataFrame(rows, columns=["pair", "series", "kind", "norm"])


def norm_chart(
    frame: pd.DataFrame, *, first_slow: int, title: str, subtitle: str | Sequence[str] = ""
) -> alt.TopLevelMixin:
    """Mean |q_j| and |k_j| per pair, one line per head (queries blue, keys orange); the pairs from
    ``first_slow`` on (never a full turn in training) shaded."""
    n = int(frame["pair"].max())
    x = alt.X("pair:Q", title="RoPE pair j (fast → slow)").scale(domain=[0, n], nice=False)
    shade = pd.DataFrame({"start": [first_slow - 0.5], "end": [n + 0.5], "label": ["never turns in training"]})
    layers: list[Any] = [
        alt.Chart(shade).mark_rect(opacity=0.12, color=TURN_COLORS[1]).encode(x="start:Q", x2="end:Q"),
        alt.Chart(shade)
        .mark_text(align="left", baseline="top", dx=4, y=4, fontSize=13, color=TURN_COLORS[1])
        .encode(x="start:Q", text="label:N"),
        alt.Chart(frame)
        .mark_line(point=False, strokeWidth=2)
        .encode(
            x=x,
            y=alt.Y("norm:Q", title="mean pair norm before rotation"),
            color=alt.Color(
                "kind:N",
                title=None,
                sort=["query", "key"],
                scale=alt.Scale(domain=["query", "key"], range=["#2563eb", "#ea580c"]),
            ),
            detail="series:N",
            tooltip=[alt.Tooltip("series:N"), alt.Tooltip("pair:Q"), alt.Tooltip("norm:Q", format=".3f")],
        ),
    ]
    return _finish(layers, title, subtitle, HEIGHT)


def grid_frame(values: np.ndarray, labels: np.ndarray | None = None) -> pd.DataFrame:
    """(layers, heads) -> rows (layer, head, value[, label])."""
    v = np.asarray(values, dtype=float)
    rows = {
        "layer": np.repeat(np.arange(v.shape[0]), v.shape[1]),
        "head": np.tile(np.arange(v.shape[1]), v.shape[0]),
        "value": v.ravel(),
    }
    if labels is not None:
        rows["label"] = np.asarray(labels, dtype=object).ravel()
    return pd.DataFrame(rows)


def grid_chart(
    frame: pd.DataFrame,
    *,
    title: str,
    subtitle: str | Sequence[str] = "",
    value_title: str,
    by_label: bool = False,
    selected: tuple[int, int] | None = None,
) -> alt.TopLevelMixin:
    """A layer × head grid (layers down, heads across): coloured by ``value`` or, with ``by_label``, by label."""
    if by_label:
        present = [k for k in LABEL_COLORS if k in set(frame["label"])]
        color = alt.Color(
            "label:N",
            title="head",
            sort=present,
            scale=alt.Scale(domain=present, range=[LABEL_COLORS[k] for k in present]),
            legend=alt.Legend(columns=legend_columns(present, most=len(present))),
        )
    else:
        color = alt.Color("value:Q", title=value_title, scale=alt.Scale(scheme="viridis", zero=True))
    tooltip = [alt.Tooltip("layer:O"), alt.Tooltip("head:O"), alt.Tooltip("value:Q", format=".3f", title=value_title)]
    if "label" in frame:
        tooltip.append(alt.Tooltip("label:N"))
    x = alt.X("head:O", title="query head", axis=alt.Axis(labelAngle=0))
    y = alt.Y("layer:O", title="layer (0 = first)")
    # the rows come layer by layer, head by head (`grid_frame`): each cell covers the seam to the next (seamless_cells)
    heads, rows = int(frame["head"].nunique()), int(frame["layer"].nunique())
    cells = alt.Chart(frame).mark_rect(**seamless_cells(f"width / {heads}", f"height / {rows}"))
    layers: list[Any] = [cells.encode(x=x, y=y, color=color, tooltip=tooltip)]
    if selected is not None:
        pick = pd.DataFrame({"layer": [selected[0]], "head": [selected[1]]})
        layers.append(alt.Chart(pick).mark_rect(fill=None, stroke="#dc2626", strokeWidth=3).encode(x=x, y=y))
    return _finish(layers, title, subtitle, 560)


def profile_frame(profile: np.ndarray) -> pd.DataFrame:
    """(T,) mean attention at distance δ -> rows (distance, weight) for δ ≥ 0, distance plotted as δ + 1."""
    p = np.asarray(profile, dtype=float)
    return pd.DataFrame({"distance": np.arange(len(p)), "weight": p, "x": np.arange(len(p)) + 1})


def profile_chart(frame: pd.DataFrame, *, title: str, subtitle: str | Sequence[str] = "") -> alt.TopLevelMixin:
    """Mean attention weight against distance i − j (log axis, δ + 1 so the token itself sits at 1)."""
    line = (
        alt.Chart(frame)
        .mark_line(point=True, color="#2563eb")
        .encode(
            x=alt.X("x:Q", title="tokens back + 1 (log scale)").scale(type="log", base=2),
            y=alt.Y("weight:Q", title="mean attention weight"),
            tooltip=[alt.Tooltip("distance:Q", title="tokens back"), alt.Tooltip("weight:Q", format=".4f")],
        )
    )
    return _finish([line], title, subtitle, HEIGHT)


def loss_frame(curves: Mapping[str, Sequence[float]], chunk: int) -> pd.DataFrame:
    """{rope: mean NLL per chunk} -> rows (rope, position = the chunk's last token, value)."""
    return pd.DataFrame(
        [
            {"rope": name, "position": (i + 1) * chunk, "value": float(v)}
            for name, values in curves.items()
            for i, v in enumerate(values)
        ],
        columns=["rope", "position", "value"],
    )


def loss_chart(
    frame: pd.DataFrame, *, trained: int | None, title: str, subtitle: str | Sequence[str] = "", chunk: int
) -> alt.TopLevelMixin:
    """Mean NLL per chunk of tokens against position, one line per rope; a dashed rule at the trained length
    (when it lies inside the plotted positions)."""
    names = list(dict.fromkeys(frame["rope"]))
    legend = alt.Legend(columns=legend_columns(names, most=3))
    color = alt.Color("rope:N", title=None, sort=names, scale=line_colors(names), legend=legend)
    x = alt.X("position:Q", title=f"position (tokens; a point = {chunk:,}-token mean)")
    layers: list[Any] = [
        alt.Chart(frame)
        .mark_line(point=True, strokeWidth=2.5)
        .encode(
            x=x,
            y=alt.Y("value:Q", title="loss (nats per token, lower is better)").scale(zero=False),
            color=color,
            tooltip=[
                alt.Tooltip("rope:N"),
                alt.Tooltip("position:Q", format=","),
                alt.Tooltip("value:Q", format=".3f", title="mean NLL"),
            ],
        )
    ]
    if trained is not None and len(frame) and frame["position"].max() > trained:
        layers += marked_rules("position", [(trained, f"trained length {trained:,}")])
    return _finish(layers, title, subtitle, HEIGHT)


def passkey_frame(summary: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> pd.DataFrame:
    """{rope: {length: {found, trials}}} -> rows (rope, length, found, trials, rate, low, high, text); low-high is
    the 95 % Wilson interval of the rate, computed here from the counts."""
    rows = []
    for name, per in summary.items():
        for n, cell in per.items():
            found, trials = cell["found"], cell["trials"]
            lo, hi = stats.wilson_interval(int(found), int(trials))
            rows.append((name, int(n), int(found), int(trials), found / max(1, trials), lo, hi, f"{found} of {trials}"))
    return pd.DataFrame(rows, columns=["rope", "length", "found", "trials", "rate", "low", "high", "text"])


def passkey_chart(
    frame: pd.DataFrame, *, trained: int, title: str, subtitle: str | Sequence[str] = ""
) -> alt.TopLevelMixin:
    """Keys found per rope (rows) and prompt length (columns), the count written in each cell."""
    x = alt.X("length:O", title=f"prompt length (tokens; trained to {trained:,})", axis=alt.Axis(labelAngle=0))
    y = alt.Y("rope:N", title=None, sort=list(dict.fromkeys(frame["rope"])))
    tooltip = [
        alt.Tooltip("rope:N"),
        alt.Tooltip("length:O"),
        alt.Tooltip("text:N", title="keys found"),
        alt.Tooltip("low:Q", format=".2f", title="95 % interval, low"),
        alt.Tooltip("high:Q", format=".2f", title="95 % interval, high"),
    ]
    # each count in the ink that reads on its cell, on the light card's blues and on the dark card's (style.GRID_VIEW:
    # blues' near-white, a rope that found no key, glared there)
    base = alt.Chart(frame.assign(**grid_inks(pd.to_numeric(frame["rate"], errors="coerce").fillna(0.0).tolist())))
    rect = base.mark_rect().encode(
        x=x,
        y=y,
        color=alt.Color("rate:Q", title="share found", scale=alt.Scale(domain=[0, 1], scheme="blues")),
        tooltip=tooltip,
    )
    text = base.mark_text(fontSize=16).encode(x=x, y=y, text="text:N", color=alt.Color(f"{INK}:N", scale=None))
    chart = _finish([rect, text], title, subtitle, max(120, 60 * frame["rope"].nunique()))
    return chart.resolve_scale(color="independent").properties(name=GRID_VIEW + "passkey")


def control_frame(estimates: Mapping[str, Mapping[str, Sequence[float]]]) -> pd.DataFrame:
    """{rope: {text: (estimate, low, high)}} -> rows (rope, text, value, low, high)."""
    return pd.DataFrame(
        [
            {"rope": m, "text": t, "value": float(e[0]), "low": float(e[1]), "high": float(e[2])}
            for m, per in estimates.items()
            for t, e in per.items()
        ],
        columns=["rope", "text", "value", "low", "high"],
    )


def control_chart(frame: pd.DataFrame, *, title: str, subtitle: str | Sequence[str] = "") -> alt.TopLevelMixin:
    """The content control: past minus inside for the same tokens, a point and its 95 % interval per rope and text,
    with a rule at 0 (no change)."""
    names = list(dict.fromkeys(frame["rope"]))
    legend = alt.Legend(columns=legend_columns(names, most=3))
    color = alt.Color("rope:N", title=None, sort=names, scale=line_colors(names), legend=legend)
    y = alt.Y("text:N", title=None, axis=alt.Axis(labelLimit=240))
    offset = alt.YOffset("rope:N", sort=names)
    x_title = "past − inside (nats per token)"
    layers: list[Any] = [
        alt.Chart(pd.DataFrame({"zero": [0.0]})).mark_rule(strokeDash=[6, 4], color="#111827").encode(x="zero:Q"),
        alt.Chart(frame)
        .mark_rule(strokeWidth=3)
        .encode(x=alt.X("low:Q", title=x_title), x2="high:Q", y=y, yOffset=offset, color=color),
        alt.Chart(frame)
        .mark_point(filled=True, size=90)
        .encode(
            x="value:Q",
            y=y,
            yOffset=offset,
            color=color,
            tooltip=[
                alt.Tooltip("rope:N"),
                alt.Tooltip("text:N"),
                alt.Tooltip("value:Q", format="+.3f", title="past − inside"),
                alt.Tooltip("low:Q", format="+.3f", title="95 % interval, low"),
                alt.Tooltip("high:Q", format="+.3f", title="95 % interval, high"),
            ],
        ),
    ]
    return _finish(layers, title, subtitle, max(140, 70 * frame["text"].nunique()))


# ------------------------------------------------------------------------------ the page's figures: values -> chart
def head_grid_figure(sink: np.ndarray, labels: np.ndarray, selected: tuple[int, int], tokens: int) -> alt.TopLevelMixin:
    """What each head does, by rule; the chosen head outlined."""
    return grid_chart(
        grid_frame(sink, labels),
        title="What each head does, by rule",
        subtitle=realtext.head_grid_subtitle(tokens),
        value_title="weight on the first token",
        by_label=True,
        selected=selected,
    )


def slow_grid_figure(shares: np.ndarray) -> alt.TopLevelMixin:
    """(layers, heads) share of each head's q·k norm product in the slow pairs."""
    return grid_chart(
        grid_frame(100 * np.asarray(shares, dtype=float)),
        title="Each head's share in the slow pairs",
        subtitle="per layer and query head: % of its q·k norm product in pairs that never turn in training",
        value_title="slow-pair share (%)",
    )


def norm_figure(q: np.ndarray, k: np.ndarray, layer: int, first_slow: int, kv_heads: int) -> alt.TopLevelMixin:
    """One layer's mean pair norms, every query and key head."""
    title, subtitle = realtext.norm_titles(layer, len(q[layer]), kv_heads)
    return norm_chart(norm_frame(q[layer], k[layer]), first_slow=first_slow, title=title, subtitle=subtitle)


def profile_figure(profile: np.ndarray, layer: int, head: int, min_query: int) -> alt.TopLevelMixin:
    title, subtitle = realtext.profile_titles(layer, head, min_query)
    return profile_chart(profile_frame(profile), title=title, subtitle=subtitle)


def change_figure(own: np.ndarray, new: np.ndarray, label: str, short: str) -> alt.TopLevelMixin:
    """The model's own rope against the chosen one along the text: per-token losses -> 32 chunk means each."""
    chunk = max(16, len(own) // 32)
    curves = {OWN_ROPE: chunk_means(own, chunk), short: chunk_means(new, chunk)}
    title, subtitle = realtext.change_titles(
        label, float(np.exp(np.mean(own))), float(np.exp(np.mean(new))), len(own) + 1
    )
    return loss_chart(loss_frame(curves, chunk), trained=None, title=title, subtitle=subtitle, chunk=chunk)


def long_figure(curves: Mapping[str, Sequence[float]], entry: Mapping[str, Any], name: str, trained: int):
    """The shipped long-context curves of one text (``entry``: posenc.realmodel.long_by_text's)."""
    title, subtitle = realtext.long_titles(int(entry["length"]), name, entry.get("date", ""))
    chunk = int(entry["chunk"])
    return loss_chart(loss_frame(curves, chunk), trained=trained, title=title, subtitle=subtitle, chunk=chunk)


def live_figure(curves: Mapping[str, Sequence[float]], chunk: int, label: str, length: int, trained: int):
    return loss_chart(
        loss_frame(curves, chunk),
        trained=trained,
        title=realtext.live_title(label, length),
        subtitle="computed on this server just now",
        chunk=chunk,
    )


def passkey_figure(summary: Mapping[str, Mapping[str, Mapping[str, Any]]], trained: int, min_keys: int):
    return passkey_chart(
        passkey_frame(summary),
        trained=trained,
        title="Passkey retrieval: a 5-digit key hidden in filler, asked for at the end",
        subtitle=realtext.passkey_subtitle(min_keys),
    )


def control_figure(estimates: Mapping[str, Mapping[str, Sequence[float]]]):
    """The content control per rope and text (:func:`posenc.realmodel.control_estimates`, keyed by legend name)."""
    return control_chart(
        control_frame(estimates),
        title="Content control: the same tokens inside and past the trained length",
        subtitle=[
            "loss past the trained length minus inside it, on the same tokens; 95 % intervals",
            *realtext.control_gaps(estimates),
        ],
    )


def model_pairs_figure(
    products: np.ndarray,
    spread: np.ndarray | None,
    wavelengths: np.ndarray,
    trained: int,
    tokens: int,
    head: tuple[int, int] | None = None,
) -> alt.TopLevelMixin:
    """:func:`frequency_chart` for the default model, over every layer and head or for one (layer, head)."""
    return frequency_chart(products, spread, wavelengths, trained, tokens=tokens, title=realtext.pairs_title(head))


def own_pairs_figure(
    products: np.ndarray, name: str, layer_type: str, wavelengths: np.ndarray, trained: int, tokens: int
) -> alt.TopLevelMixin:
    """:func:`frequency_chart` for one layer type of a model of one's own."""
    title = realtext.pairs_title(name=name, layer_type=layer_type)
    return frequency_chart(products, None, wavelengths, trained, tokens=tokens, title=title)
