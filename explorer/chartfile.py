"""A chart as a file that leaves the app: one self-contained interactive HTML page, an SVG, or a
PNG at projector size (issue #36).

The input is the Vega-Lite dict a page sends (`explorer.render.show_chart`: Streamlit's form, its
datasets as Arrow bytes). `standalone_spec` turns it into plain Vega-Lite (every dataset as JSON
rows, a fixed width where the page let the chart fill its column), styled as the light card
(`charts.style.style_spec`). The conversions are `vl-convert-python`'s, a maintained library that
bundles Vega, Vega-Lite and vega-embed:

* `html_file`: the spec and those three libraries inlined in one page (about 0.9 MB), so it works
  from disk with no network (a slide, an e-mail, a hall without Wi-Fi). A chart's own controls
  (the live charts' sliders, the clocks' play control) are Vega bindings, so they come along and
  move the chart there as they do in the app.
* `svg_file`, `png_file`: a static picture; the PNG is drawn with presentation mode's text sizes at
  twice the pixel density (projector size).

Nothing here imports Streamlit; `explorer.render` draws the buttons and calls these only when one
is clicked. Text in a spec may come from a user (the home page's sentence): it goes into the HTML
only as JSON inside a script with every ``<`` escaped, and into the title element escaped.
"""

from __future__ import annotations

import copy
import functools
import html
import json
import math
import re
from collections.abc import Mapping
from typing import Any

import pyarrow as pa

from explorer.assets import OPTION_LABELS
from explorer.charts.style import style_spec

#: The Vega-Lite version the specs are written for (Altair 6.3's schema, as Streamlit 1.67 sends
#: them) and the one vl-convert bundles and renders with.
VEGA_LITE_VERSION = "6.4"
#: The width (CSS px) of a chart that fills its column in the app: a file has no column.
FILE_WIDTH = 900
#: The PNG's pixel density: a 900-px chart becomes 1800 px wide, sharp on a 1080p projector.
PNG_SCALE = 2.0
#: What a file name may hold (the name is built from a page's slug and a chart's name).
_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")


def file_name(name: str, suffix: str) -> str:
    """``posenc_<name>.<suffix>``; `name` must be lower-case letters, digits, ``_`` and ``-``."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise ValueError(f"name must be lower-case letters, digits, '_' and '-', got {name!r}")
    if suffix not in ("html", "svg", "png"):
        raise ValueError(f"suffix must be 'html', 'svg' or 'png', got {suffix!r}")
    return f"posenc_{name}.{suffix}"


def narrow_sliders(spec: dict, ranges: Mapping[str, Mapping[str, float]]) -> dict:
    """`spec` with the range input of each slider named in `ranges` ({name: {"min": …, "max": …}}, either end
    optional) narrowed to it, and a start outside moved inside: a chart whose sliders span a wider range than its data
    (the page narrows them in the browser: explorer.liveparam.ranges_html) keeps to its data in a file too. The
    datasets are shared, not copied; `spec` itself is unchanged (the same dict back when `ranges` is empty)."""
    if not ranges:
        return spec
    body = copy.deepcopy({key: value for key, value in spec.items() if key != "datasets"})

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            bind = node.get("bind")
            if isinstance(bind, dict) and bind.get("input") == "range" and node.get("name") in ranges:
                ends = ranges[node["name"]]
                bind.update({end: ends[end] for end in ("min", "max") if end in ends})
                if isinstance(node.get("value"), (int, float)) and not isinstance(node["value"], bool):
                    node["value"] = min(
                        max(node["value"], bind.get("min", node["value"])), bind.get("max", node["value"])
                    )
            for value in node.values():
                walk(value)

    walk(body)
    return {**body, **({"datasets": spec["datasets"]} if "datasets" in spec else {})}


def dataset_rows(data: Any) -> list[dict[str, Any]]:
    """One dataset of Streamlit's spec as JSON rows: Arrow IPC bytes are read with pyarrow; rows
    already in JSON form pass through. Floats keep every bit (JSON writes Python's shortest repr)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        table = pa.ipc.open_stream(pa.BufferReader(bytes(data))).read_all()
        # pandas' index travels as a column named __index_level_0__ (Vega never reads it)
        data = table.select([c for c in table.column_names if not c.startswith("__index_level_")]).to_pylist()
    elif not isinstance(data, list):
        raise ValueError(f"a dataset must be Arrow bytes or a list of rows, got {type(data).__name__}")
    # non-finite floats become null (JSON cannot hold them; Vega reads null as a missing value)
    return [
        {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in dict(row).items()} for row in data
    ]


def _fills_its_column(spec: dict) -> bool:
    """Whether the app lets this chart take its column's width: a single or layered view without a
    numeric width (Streamlit then sizes it to the column)."""
    if any(k in spec for k in ("hconcat", "vconcat", "concat", "facet", "repeat")):
        return False
    return not isinstance(spec.get("width"), (int, float))


def standalone_spec(spec: dict, *, presenting: bool = False) -> dict:
    """A page's Vega-Lite dict as one plain Vega-Lite spec: datasets as JSON rows, a chart that
    fills its column in the app given `FILE_WIDTH`, styled as the light card (`style_spec`; with
    presentation mode's text sizes when `presenting`). Pure: `spec` is not modified."""
    if not isinstance(spec, dict) or not spec:
        raise ValueError(f"spec must be a non-empty Vega-Lite dict, got {type(spec).__name__}")
    out = dict(spec)
    datasets = out.get("datasets")
    if isinstance(datasets, dict):
        out["datasets"] = {name: dataset_rows(rows) for name, rows in datasets.items()}
    if _fills_its_column(out):
        out["width"] = FILE_WIDTH
        out.setdefault("autosize", {"type": "fit-x", "contains": "padding"})
    out.setdefault("$schema", f"https://vega.github.io/schema/vega-lite/v{VEGA_LITE_VERSION}.json")
    return style_spec(out, presenting=presenting, dark=False)


#: What the bundle runs: the three libraries made global for the page's own script.
BUNDLE_SNIPPET = "window.vegaEmbed = vegaEmbed; window.vega = vega; window.vegaLite = vegaLite;"


@functools.lru_cache(maxsize=1)
def _bundle() -> str:
    """Vega, Vega-Lite and vega-embed in one script (vl-convert; ≈0.9 MB, a few seconds the first
    time in a process, then kept)."""
    import vl_convert as vlc

    script = vlc.javascript_bundle(BUNDLE_SNIPPET, vl_version=VEGA_LITE_VERSION)
    if "</script" in script.lower():  # it would end the script element early
        raise RuntimeError("the Vega bundle contains '</script': it cannot be inlined")
    return script


_SCRIPT_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def _script_json(value: Any) -> str:
    """JSON safe inside a ``<script>`` element: no ``<``, ``>`` or ``&`` left for the HTML parser,
    and the line and paragraph separators JavaScript strings once refused, escaped too."""
    return json.dumps(value, allow_nan=False, separators=(",", ":")).translate(_SCRIPT_ESCAPES)


#: The file's page: the chart, what it is and where it came from; ``window.posencView`` is the
#: Vega view once drawn (tests read values from it), ``window.posencError`` any error.
_HTML = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5rem; color: #0F172A; background: #FFFFFF; }}
.vega-bindings {{ margin-top: 0.75rem; }}
.vega-bind {{ margin: 0.25rem 0; }}
.vega-bind-name {{ display: inline-block; min-width: 5rem; }}
/* a slider over option indices (b, T): the chart writes the value itself (explorer.charts.live.option_position) */
{index_readouts} {{ display: none; }}
footer {{ margin-top: 1rem; font-size: 0.85rem; color: #475569; }}
</style>
<script>{bundle}</script>
</head>
<body>
<main><div id="chart" role="figure" aria-label="{label}"></div></main>
<footer>{footer}</footer>
<script>
vegaEmbed("#chart", {spec}, {{"renderer": "{renderer}", "actions": {{"export": true, "source": false, "compiled": false, "editor": false}}}})
  // once more laid out: a title read from the chart's data is measured only when the data is in
  .then(function (result) {{ return result.view.resize().runAsync(); }})
  .then(function (view) {{ window.posencView = view; }})
  .catch(function (error) {{ window.posencError = String(error); console.error(error); }});
</script>
</body>
</html>
"""


def html_file(spec: dict, *, title: str, footer: str) -> str:
    """One self-contained HTML page drawing `spec` (a page's Vega-Lite dict) with its controls:
    the Vega libraries inlined, no request to any server. `title` and `footer` are plain text."""
    plain = standalone_spec(spec)
    description = plain.get("description") if isinstance(plain.get("description"), str) else title
    # the renderer the chart asks the app for (explorer.charts.style.on_canvas), else SVG
    renderer = "canvas" if (plain.get("usermeta") or {}).get("embedOptions", {}).get("renderer") == "canvas" else "svg"
    return _HTML.format(
        renderer=renderer,
        title=html.escape(title),
        label=html.escape(str(description)),
        footer=html.escape(footer),
        bundle=_bundle(),
        spec=_script_json(plain),
        index_readouts=", ".join(f'.vega-bind input[name="{name}"] + span' for name in OPTION_LABELS),
    )


def svg_file(spec: dict) -> str:
    """The chart as SVG (the light card, the app's text sizes)."""
    import vl_convert as vlc

    return vlc.vegalite_to_svg(standalone_spec(spec), vl_version=VEGA_LITE_VERSION)


def png_file(spec: dict) -> bytes:
    """The chart as a PNG for a projector: presentation mode's text sizes, `PNG_SCALE` pixels per
    CSS pixel."""
    import vl_convert as vlc

    return vlc.vegalite_to_png(standalone_spec(spec, presenting=True), vl_version=VEGA_LITE_VERSION, scale=PNG_SCALE)
