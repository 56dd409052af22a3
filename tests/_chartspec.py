"""Helpers for reading Altair / Vega-Lite specs in tests: from `chart.to_dict()` or from the
spec and Arrow datasets of a chart element that AppTest captured."""

from __future__ import annotations

import ast
import base64
import io
import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit
from PIL import Image, ImageFont


def layers(spec: dict) -> list[dict]:
    """Every leaf layer of a (possibly nested) layer spec; a single-view spec is its own layer."""
    if "layer" not in spec:
        return [spec]
    out = []
    for layer in spec.get("layer", []):
        out.extend(layers(layer) if "layer" in layer else [layer])
    return out


def mark_type(layer: dict) -> str:
    mark = layer["mark"]
    return mark if isinstance(mark, str) else mark["type"]


def frame(spec: dict, layer: dict) -> pd.DataFrame:
    """The rows a layer draws (its own data, or the top-level data Altair hoisted)."""
    data = layer.get("data", spec.get("data"))
    return pd.DataFrame(spec["datasets"][data["name"]])


def find(spec: dict, mark: str, **props) -> list[dict]:
    found = [layer for layer in layers(spec) if mark_type(layer) == mark]
    for key, value in props.items():
        found = [layer for layer in found if isinstance(layer["mark"], dict) and layer["mark"].get(key) == value]
    return found


def by_field(spec: dict, mark: str, channel: str, field: str) -> list[dict]:
    """The layers of `mark` whose `channel` encodes `field`: a layer found by what it shows
    (e.g. the text layer that writes "position"), not by how it looks."""
    return [
        layer
        for layer in layers(spec)
        if mark_type(layer) == mark and layer.get("encoding", {}).get(channel, {}).get("field") == field
    ]


def legible(spec: dict) -> None:
    cfg = spec["config"]
    assert cfg["axis"]["labelFontSize"] >= 13 and cfg["axis"]["titleFontSize"] >= 13
    assert cfg["title"]["fontSize"] >= 13 and cfg["legend"]["labelFontSize"] >= 13
    for layer in find(spec, "text"):
        if not is_facts(layer):  # a facts layer draws no text
            assert layer["mark"]["fontSize"] >= 13


def png_pixels(spec: dict) -> np.ndarray:
    (image,) = find(spec, "image")
    url = frame(spec, image)["url"].iloc[0]
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGBA"))


def wide_text(value):
    """A title or subtitle as a wide screen shows it: the chart style turns a long one into a Vega
    expression choosing between wrapped and unwrapped lines by the chart's width
    (`width >= N ? [as given] : (width >= W ? [wrapped to W] : …)`); this returns the lines as given
    (one string for one line). Any other expression (a title computed from an in-chart slider,
    explorer.liveparam) is returned as it is."""
    if isinstance(value, dict) and "expr" in value and value["expr"].startswith("width >= "):
        expr = value["expr"]
        try:
            lines, _ = json.JSONDecoder().raw_decode(expr, expr.index("? ") + 2)
        except (ValueError, json.JSONDecodeError):  # a title computed from a chart's own sliders
            return value
        return lines[0] if len(lines) == 1 else lines
    return value  # as given, or a chart's own expression (text computed in the browser)


def is_facts(layer: dict) -> bool:
    """Whether `layer` is a facts layer (explorer.charts.style.facts_layer): an invisible text mark
    with no encoding."""
    mark = layer.get("mark")
    return (
        "layer" not in layer
        and isinstance(mark, dict)
        and mark.get("type") == "text"
        and mark.get("opacity") == 0
        and not layer.get("encoding")
    )


def drawn(spec: dict) -> list[dict]:
    """The leaf layers that draw something: every one but a facts layer (`is_facts`), in order."""
    return [layer for layer in layers(spec) if not is_facts(layer)]


def facts(spec: dict) -> dict:
    """The chart's facts row (explorer.charts.style.facts_layer): the one row of its first layer (of
    its first view, in a concatenation), which must be the facts layer (an invisible text mark with
    no encoding)."""
    first = spec
    while "layer" not in first and any(key in first for key in ("vconcat", "hconcat", "concat")):
        first = next(first[key] for key in ("vconcat", "hconcat", "concat") if key in first)[0]  # its first view
    first = layers(first)[0]
    assert is_facts(first), "the first layer is not a facts layer"
    if all(re.fullmatch(r"data-\d+", name) for name in spec["datasets"]):  # the names the browser gets
        assert first["data"]["name"] == "data-0", "the facts row is not data-0, which fact() reads"
    rows = frame(spec, first)
    assert len(rows) == 1, f"a facts layer holds one row, got {len(rows)}"
    return rows.iloc[0].to_dict()


def facts_text(spec: dict, value: Any) -> Any:
    """A title text that the browser reads from the facts row (explorer.charts.style.title_expr), as
    a wide screen shows it: its lines as given (one string for one line); any other value as it is."""
    if isinstance(value, dict) and value.get("expr", "").startswith("width >= data("):
        lines = facts(spec)["title"].split("\n")
        return lines[0] if len(lines) == 1 else lines
    return value


def readable_titles(spec: dict) -> dict:
    """`spec` with its title and subtitle in their wide form (see `wide_text`; a title read from the
    chart's facts row, `facts_text`, when the spec holds its datasets)."""
    title = spec.get("title")
    if isinstance(title, dict):
        spec["title"] = {**title, **{k: wide_text(v) for k, v in title.items() if k in ("text", "subtitle")}}
        if "datasets" in spec:
            spec["title"]["text"] = facts_text(spec, spec["title"].get("text"))
    return spec


def proto_spec(proto) -> dict:
    """The Vega-Lite spec of a captured chart proto (without datasets), titles in their wide form."""
    return readable_titles(json.loads(proto.spec))


def element_spec(element) -> dict:
    """The spec of an AppTest vega_lite_chart element with its Arrow datasets decoded into
    ``spec["datasets"]`` (as `chart.to_dict()` would hold them), so `find`/`frame` work on it;
    titles in their wide form."""
    spec = proto_spec(element.proto)
    spec["datasets"] = {
        d.name: pa.ipc.open_stream(d.data.data).read_pandas().to_dict("records") for d in element.proto.datasets
    }
    return readable_titles(spec)


def sent_spec(chart) -> dict:
    """`chart`'s spec as a page sends it (`explorer.render.show_chart`: Streamlit's conversion, the
    datasets named in order), its Arrow datasets decoded into rows."""
    from explorer import compat
    from explorer.render import stable_dataset_names

    spec = stable_dataset_names(compat.vega_lite_spec(chart))
    spec["datasets"] = {
        name: pa.ipc.open_stream(rows).read_all().to_pylist() if isinstance(rows, bytes) else rows
        for name, rows in spec["datasets"].items()
    }
    return spec


# ------------------------------------------------------- a chart's transforms, evaluated in Python
def _top_level(expr: str, start: int, targets: str) -> int:
    """The index of the first of `targets` at bracket depth 0 and outside quotes, from `start` (-1: none)."""
    depth, quote = 0, ""
    for i in range(start, len(expr)):
        ch = expr[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif depth == 0 and ch in targets:
            return i
    return -1


def _has_unquoted(expr: str, ch: str) -> bool:
    """Whether `ch` occurs in `expr` outside quotes (at any bracket depth): a "?" in a quoted regexp is no ternary."""
    quote = ""
    for c in expr:
        if quote:
            quote = "" if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == ch:
            return True
    return False


def _js_replace(text: str, pattern: Any, replacement: str) -> str:
    """JavaScript's String.replace: the first match of a `regexp(…)` (every one with the g flag) or of a plain string;
    ``$&`` in the replacement is the match."""
    if isinstance(pattern, tuple):
        source, flags = pattern
        return re.sub(
            source, replacement.replace("\\", "\\\\").replace("$&", r"\g<0>"), text, count=0 if "g" in flags else 1
        )
    return text.replace(pattern, str(replacement), 1)


def py_expr(expr: str) -> str:
    """A Vega expression as Python source: ``a ? b : c`` (nested too), ``&&``, ``||``, ``===``, ``!==``;
    names (datum.x, a selection's sel.field, sin, cos, min, sequence …) come from the eval's namespace."""
    q = _top_level(expr, 0, "?")
    if q < 0 and _has_unquoted(expr, "?"):  # a ternary inside brackets: translate each bracketed group on its own
        out, i, depth, quote, start = [], 0, 0, "", 0
        for k, ch in enumerate(expr):
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch in "([":
                if depth == 0:
                    out.append(py_expr(expr[i:k]) + ch) if expr[i:k].strip() else out.append(expr[i:k] + ch)
                    start = k + 1
                depth += 1
            elif ch in ")]":
                depth -= 1
                if depth == 0:
                    out.append(py_expr(expr[start:k]) + ch)
                    i = k + 1
        return "".join(out) + (py_expr(expr[i:]) if expr[i:].strip() else expr[i:])
    if q < 0:
        py = expr.replace("===", "==").replace("!==", "!=").replace("&&", " and ").replace("||", " or ")
        return re.sub(r"!(?!=)", " not ", py).strip()
    depth, i = 1, q + 1
    while True:  # the ':' that closes this '?'
        i = _top_level(expr, i, "?:")
        if i < 0:
            raise ValueError(f"no ':' for the '?' in {expr!r}")
        depth += 1 if expr[i] == "?" else -1
        if depth == 0:
            break
        i += 1
    cond, then, other = expr[:q], expr[q + 1 : i], expr[i + 1 :]
    return f"(({py_expr(then)}) if ({py_expr(cond)}) else ({py_expr(other)}))"


class _Row(dict):
    """A datum: fields read as attributes (datum.x)."""

    __getattr__ = dict.__getitem__


def _d3_format(x: float, spec: str) -> str:
    """Vega's format(x, spec) (d3-format) for the specs the charts use: ",d", ".Nf" / ".N~f", ".N~g" (no exponent)
    and ".Ne" (x ≥ 0)."""
    if spec == ",d":
        return f"{round(x):,}"
    g = re.fullmatch(r"\.(\d+)~g", spec)  # toPrecision(N), trailing zeros trimmed: Python's "g" where neither
    if g and (x == 0 or 1e-4 <= abs(x) < 10 ** int(g[1])):  # writes an exponent (JavaScript from 1e-7, Python 1e-5)
        return f"{x:.{g[1]}g}"
    e = re.fullmatch(r"\.(\d+)e", spec)  # toExponential(N): JavaScript writes the exponent without padding (e-5, e+0)
    if e and x >= 0:  # (a negative number would take d3's minus sign, U+2212: not simulated)
        mantissa, exponent = f"{x:.{e[1]}e}".split("e")
        return f"{mantissa}e{exponent[0]}{int(exponent[1:])}"
    m = re.fullmatch(r"\.(\d+)(~?)f", spec)
    if not m:
        raise ValueError(f"format spec not simulated: {spec!r} (for {x!r})")
    text = f"{x:.{m[1]}f}"
    return text.rstrip("0").rstrip(".") if m[2] and "." in text else text


def vega_names(**selections: dict) -> dict:
    """The names a chart's expressions use, for `run_transforms`: Vega's functions and, for each
    in-chart selection `name=value`, ``name.name`` (explorer.charts.live.value)."""
    names = {
        "sin": math.sin,
        "cos": math.cos,
        "min": min,
        "max": max,
        "floor": math.floor,
        "ceil": math.ceil,
        "log": math.log,  # the C library's, as numpy's (JavaScript's Math.log: read back in Chromium)
        "clamp": lambda x, lo, hi: max(lo, min(hi, x)),  # Vega's clamp
        # numpy's pow, which posenc's numbers come from (on CPUs with AVX-512 it differs from the C library's
        # math.pow in the last bit now and then; JavaScript's Math.pow is read back in Chromium)
        "pow": lambda x, y: float(np.power(np.float64(x), np.float64(y))),
        "round": lambda x: math.floor(x + 0.5),  # JavaScript's Math.round: halves go up
        "split": lambda text, sep: text.split(sep),
        "indexof": lambda seq, part: (  # JavaScript's String and Array indexOf: −1 when absent
            seq.find(part) if isinstance(seq, str) else seq.index(part) if part in seq else -1
        ),
        "slice": lambda text, start, end=None: text[int(start) : None if end is None else int(end)],
        "PI": math.pi,
        "null": None,  # Vega's null literal
        "NaN": math.nan,
        "LN10": math.log(10),
        "sequence": lambda start, stop, step=1: list(range(int(start), int(stop), int(step))),
        "toNumber": lambda x: int(x) if float(x).is_integer() else float(x),  # an index stays an index
        "format": _d3_format,
        "replace": _js_replace,
        "regexp": lambda source, flags="": (source, flags),
        "isValid": lambda x: x is not None and x == x,  # Vega's: neither null/undefined nor NaN
        "isFinite": lambda x: isinstance(x, (int, float)) and math.isfinite(x),  # JavaScript's, on a number
    }
    names.update({name: _Row({name: value}) for name, value in selections.items()})
    return names


def run_transforms(rows: list[dict], transforms: list[dict], names: dict, datasets: dict | None = None) -> list[dict]:
    """A Vega-Lite view's calculate, fold, filter, flatten and lookup (from `datasets`, by name)
    transforms over `rows`, in Python (`py_expr`): what the browser computes, with Python's float64
    arithmetic and libm."""
    out = [dict(r) for r in rows]
    for t in transforms:
        if "lookup" in t:
            source = t["from"]
            table = {row[source["key"]]: row for row in (datasets or {})[source["data"]["name"]]}
            fields = source.get("fields") or []
            renamed = t.get("as") or fields  # Vega-Lite's ``as``: the looked-up fields' new names, in order
            renamed = [renamed] if isinstance(renamed, str) else renamed
            out = [
                {**row, **{a: table.get(row[t["lookup"]], {}).get(f) for f, a in zip(fields, renamed, strict=True)}}
                for row in out
            ]
            continue
        if "calculate" in t:
            tree = _JsPlus().visit(ast.parse(py_expr(t["calculate"]), mode="eval"))
            code = compile(ast.fix_missing_locations(tree), t["calculate"], "eval")
            for row in out:
                row[t["as"]] = eval(code, {"__builtins__": {}}, {**names, "_js_plus": _js_plus, "datum": _Row(row)})
        elif "filter" in t:
            code = compile(py_expr(t["filter"]), t["filter"], "eval")
            out = [row for row in out if eval(code, {"__builtins__": {}}, {**names, "datum": _Row(row)})]
        elif "fold" in t:
            key, value = t.get("as", ["key", "value"])
            out = [
                {**row, key: field, value: row.get(field)} for row in out for field in t["fold"]
            ]  # absent: undefined
        elif "aggregate" in t and not t.get("groupby"):
            ops = {"sum": sum, "count": len, "min": min, "max": max}
            out = [{a["as"]: ops[a["op"]]([row[a["field"]] for row in out]) for a in t["aggregate"]}]
        elif "flatten" in t:
            (field,) = t["flatten"]
            out = [{**row, field: item} for row in out for item in row[field]]
        else:
            raise ValueError(f"transform not simulated: {t}")
    return out


def spec_names(spec: dict, view: dict | None = None, **selections) -> dict:
    """The names the expressions of `spec` (and of its unit `view`) see in the browser, with the
    in-chart selections at `selections` (name=value; the others at their spec's value; `width` the spec's, a plain
    parameter its value, unless given): Vega's functions (`vega_names`), ``data(name)``
    over the spec's datasets (a facts row: `explorer.charts.style.fact`), and the spec's parameters
    computed from them, top-level ones first, in the spec's order."""
    datasets = {name: list(values) for name, values in spec.get("datasets", {}).items()}
    params = [*spec.get("params", []), *(view.get("params", []) if view is not None and view is not spec else [])]
    starts = {p["name"]: p["value"] for p in params if "select" in p and isinstance(p.get("value"), (int, float))}
    # a plain parameter's value (the presentation font scale) and the chart's width, as the browser's signals
    plain = {p["name"]: p["value"] for p in params if "select" not in p and isinstance(p.get("value"), (int, float))}
    if isinstance(spec.get("width"), (int, float)):
        plain["width"] = spec["width"]
    signals = {k: selections.get(k, v) for k, v in plain.items()}
    chosen = {k: v for k, v in selections.items() if k not in plain}
    names = vega_names(**{**starts, **chosen})  # a selection not given is where the spec starts it
    names.update(signals)
    names["data"] = lambda name: [_Row(row) for row in datasets[name]]
    for param in params:  # signals computed from the selections (in the spec's order)
        if "expr" in param:
            names[param["name"]] = _js_arrays(js_eval(param["expr"], names))
    return names


class _JsArray(list):
    """A signal's array as JavaScript indexes it: an index past either end (−1: `indexof` found nothing) reads as
    undefined (None), where a Python list would wrap around or raise."""

    def __getitem__(self, index):
        if isinstance(index, (int, float)) and not isinstance(index, bool):
            k = int(index)
            return super().__getitem__(k) if 0 <= k < len(self) and k == index else None
        return super().__getitem__(index)


def _js_arrays(value: Any) -> Any:
    """`value` with every list in it a `_JsArray`."""
    return _JsArray(_js_arrays(v) for v in value) if isinstance(value, list) else value


def js_eval(expr: str, names: dict) -> Any:
    """The Vega expression `expr` evaluated over `names` (`py_expr`; ``+`` as JavaScript's: text joined with a number
    shows a whole number without ".0")."""
    tree = _JsPlus().visit(ast.parse(py_expr(expr), mode="eval"))
    code = compile(ast.fix_missing_locations(tree), expr, "eval")
    return eval(code, {"__builtins__": {}}, {**names, "_js_plus": _js_plus})


def _js_plus(a: Any, b: Any) -> Any:
    """JavaScript's +: a string with anything is a string (a whole number written without ".0")."""
    if isinstance(a, str) or isinstance(b, str):
        return "".join(str(int(v)) if isinstance(v, float) and v.is_integer() else str(v) for v in (a, b))
    return a + b


class _JsPlus(ast.NodeTransformer):
    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Add):
            return ast.Call(func=ast.Name(id="_js_plus", ctx=ast.Load()), args=[node.left, node.right], keywords=[])
        return node


def spec_value(spec: dict, expr: str, **selections) -> Any:
    """A Vega expression of `spec` (a title's, an axis's) as the browser computes it (`spec_names`;
    ``+`` as JavaScript's: text joined with a number shows a whole number without ".0")."""
    return js_eval(expr, spec_names(spec, **selections))


def unit_rows(spec: dict, view: dict, **selections) -> pd.DataFrame:
    """The rows the unit `view` of `spec` (one panel's layer in a concatenation, say) draws once its
    transforms ran (`run_transforms`), with the in-chart selections at `selections` (name=value)."""
    data = view.get("data", spec.get("data"))
    if "sequence" in data:  # a data generator: start … stop − 1, as one field
        seq = data["sequence"]
        rows = [{seq.get("as", "data"): k} for k in range(seq["start"], seq["stop"], seq.get("step", 1))]
    else:
        rows = frame(spec, view).to_dict("records")
    datasets = {name: list(values) for name, values in spec.get("datasets", {}).items()}
    names = spec_names(spec, view, **selections)
    return pd.DataFrame(run_transforms(rows, view.get("transform", []), names, datasets))


def view_rows(spec: dict, **selections) -> pd.DataFrame:
    """The rows a single-view chart draws once its transforms ran (`unit_rows`). A layer chart of a
    facts row and one drawn layer counts as a single view: its parameters may read the facts row
    (``data('data-0')[0].field``, `explorer.charts.style.fact`)."""
    view = spec
    if "layer" in spec:
        (view,) = drawn(spec)
    return unit_rows(spec, view, **selections)


def assert_draws_curve(distances, scores, want_distances, want_scores, what: Any = "") -> None:
    """A chart's line through (`distances`, `scores`) draws the curve (`want_distances`, `want_scores`): it starts and
    ends where the curve does, every point drawn is one of the curve's, bit for bit, and every point it leaves out
    lies on the straight segment between the drawn points beside it (a line drawn from a run's ends: NoPE's flat
    score, ALiBi's straight one), to float rounding."""
    d, s = np.asarray(distances, dtype=float), np.asarray(scores, dtype=float)
    wd, ws = np.asarray(want_distances, dtype=float), np.asarray(want_scores, dtype=float)
    assert d.size >= min(2, wd.size) and np.all(np.diff(d) > 0), what
    assert (d[0], d[-1]) == (wd[0], wd[-1]), what
    at = np.searchsorted(wd, d)
    assert np.array_equal(wd[at], d) and np.array_equal(ws[at], s), what  # drawn points: the curve's own
    between = np.interp(wd, d, s)  # the drawn line at every point of the curve
    np.testing.assert_allclose(between, ws, rtol=0, atol=1e-12 * max(1.0, float(np.abs(ws).max())), err_msg=str(what))


def luminance(hex_colour: str) -> float:
    """WCAG 2's relative luminance of a #RRGGBB colour, re-typed from its definition."""
    rgb = [int(hex_colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """WCAG 2's contrast ratio of two #RRGGBB colours."""
    hi, lo = sorted([luminance(a), luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def self_reading_calculates(spec: Any) -> list[tuple[str, str]]:
    """Every calculate transform in `spec` (nested anywhere) whose expression reads the field it writes, as (field,
    expression). Vega writes a calculate's result into the datum itself: on a later pass, where only an input of a
    later transform changed, such a calculate would read its own earlier result."""
    found: list[tuple[str, str]] = []
    if isinstance(spec, dict):
        field, expr = spec.get("as"), spec.get("calculate")
        if isinstance(field, str) and isinstance(expr, str):
            if re.search(rf"datum\.{re.escape(field)}\b|datum\[['\"]{re.escape(field)}['\"]\]", expr):
                found.append((field, expr))
        for value in spec.values():
            found += self_reading_calculates(value)
    elif isinstance(spec, list):
        for value in spec:
            found += self_reading_calculates(value)
    return found


def rope_vector_sliders(q: Any, k: Any, vector_input: str = "cartesian") -> dict[str, Any]:
    """The RoPE live plane's vector sliders (`explorer.charts.rope.live_pair_chart`'s ``vector_input``, ``vectors``
    and ``vector_ranges``) starting at q and k, given as x and y (or, "polar", as angle in degrees and length), each
    over its range in the page's declaration (explorer.site.rope)."""
    from explorer.charts.rope import VECTOR_PARAMS
    from explorer.site.rope import PAGE

    keys = VECTOR_PARAMS[vector_input]
    declared = {p.key: p for p in PAGE.params}
    starts = dict(zip(keys, (*q, *k), strict=True))
    ranges = {key: (declared[key].min, declared[key].max, declared[key].step, declared[key].label) for key in keys}
    return {"vector_input": vector_input, "vectors": starts, "vector_ranges": ranges}


# ------------------------------------------------------------------------------ legends: measured, not guessed (the real model's and the lab's charts)
#: Streamlit's own chart font (Source Sans), which the browser draws the legends' labels in.
FONT = next((Path(streamlit.__file__).parent / "static" / "static" / "media").glob("SourceSansVF-Upright*"))
#: The plot's width (px): on a 390-px phone (its column, less the card's padding and a y axis), and on a 1280 × 720
#: projector in presentation mode (the sidebar closed).
PHONE_PLOT, PROJECTOR_PLOT = 260, 1050
#: A legend entry's room besides its label: Vega's label offset (4 px) and column padding (10 px), and the symbol.
ENTRY_PAD = 14


def label_px(label: str, size: float) -> float:
    return ImageFont.truetype(str(FONT), round(size)).getlength(label)


def legend_channels(spec: dict) -> list[tuple[list[str], dict]]:
    """(its labels, its legend's properties with the chart's legend config under them) of every channel that draws a
    legend, once per field."""
    config = spec.get("config", {}).get("legend", {})
    out, seen = [], set()
    for layer in layers(spec):
        for channel in ("color", "fill", "stroke", "strokeDash"):
            enc = layer.get("encoding", {}).get(channel)
            if not isinstance(enc, dict) or "field" not in enc or enc.get("legend", {}) is None:
                continue
            if enc["field"] in seen:
                continue
            seen.add(enc["field"])
            domain = enc.get("scale", {}).get("domain")
            labels = domain if isinstance(domain, list) else list(dict.fromkeys(frame(spec, layer)[enc["field"]]))
            out.append(([str(v) for v in labels], {**config, **enc.get("legend", {})}))
    return out


def legend_overflow(spec: dict, plot: float, *, presenting: bool = False) -> list[str]:
    """What of the chart's legends runs past a plot `plot` px wide (legends start at its left edge) or is cut short,
    drawn as the page draws it (`style_spec`, presentation mode's font scale too)."""
    from explorer.charts.style import style_spec

    spec = style_spec(spec, presenting=presenting)
    scale = next((p["value"] for p in spec.get("params", []) if p.get("name") == "font_scale"), 1)
    names = {**vega_names(), "width": plot, "font_scale": scale}
    problems, widths = [], []
    for labels, legend in legend_channels(spec):
        size = legend.get("labelFontSize", 12)
        longest = max(label_px(label, size) for label in labels)
        if longest > legend.get("labelLimit", 160):
            problems.append(f"{labels}: cut at labelLimit {legend.get('labelLimit', 160)} px")
        columns = legend.get("columns", 0)
        columns = js_eval(columns["expr"], names) if isinstance(columns, dict) else columns
        columns = len(labels) if columns <= 0 else min(columns, len(labels))
        symbol = np.sqrt(legend.get("symbolSize", 100))
        width = columns * (symbol + longest + ENTRY_PAD) - 10  # no column padding after the last
        widths.append(width)
        if width > plot:
            problems.append(f"{labels}: {columns} columns, {width:.0f} px in a {plot}-px plot")
    layout = str(spec.get("config", {}).get("legend", {}).get("layout", ""))
    if len(widths) > 1 and "direction: 'vertical'" not in layout and sum(widths) > plot:  # side by side
        problems.append(f"legends side by side: {sum(widths):.0f} px in a {plot}-px plot")
    return problems


def vega_fills(spec: dict) -> list[str]:
    """The fill of every mark Vega draws for `spec` (vl-convert's SVG), '#rrggbb', in the order drawn (a legend's
    gradient, a url, left out)."""
    import vl_convert

    svg = vl_convert.vegalite_to_svg(json.dumps(spec))
    fills = re.findall(r'<path[^>]*fill="rgb\((\d+), (\d+), (\d+)\)"', svg)
    return [hex_colour(rgb) for rgb in fills]


def legend_stops(spec: dict) -> list[tuple[float, str]]:
    """The colour legend's gradient as Vega draws it (vl-convert's SVG): (offset 0 … 1, '#rrggbb'), low to high."""
    import vl_convert

    svg = vl_convert.vegalite_to_svg(json.dumps(spec))
    stops = re.findall(r'<stop offset="([^"]+)" stop-color="rgb\(([^)]+)\)"', svg)
    return [(float(at), hex_colour(rgb.split(","))) for at, rgb in stops]


def hex_colour(rgb) -> str:
    """'#rrggbb' of a pixel or colour's first three channels (0 … 255 each, numbers or their text)."""
    return "#" + bytes(int(c) for c in list(rgb)[:3]).hex()


def channels_apart(a: str, b: str) -> int:
    """The most two '#rrggbb' colours differ by in one channel (0 … 255)."""
    return max(abs(int(a[i : i + 2], 16) - int(b[i : i + 2], 16)) for i in (1, 3, 5))


def diverging_on_dark(zero: list[str] | set[str], ends: list[str] | set[str], card: str) -> None:
    """A diverging map reads on the dark `card`: every zero colour sits just off it (under 1.3:1), every ±1 colour
    stands clearly off it (3:1 or more, WCAG's figure for graphics)."""
    assert zero and ends
    assert all(contrast(c, card) < 1.3 for c in zero), sorted(zero)
    assert all(contrast(c, card) >= 3 for c in ends), sorted(ends)
