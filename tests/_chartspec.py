"""Helpers for reading Altair / Vega-Lite specs in tests: from `chart.to_dict()` or from the
spec and Arrow datasets of a chart element that AppTest captured."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pandas as pd
import pyarrow as pa
from PIL import Image


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
        assert layer["mark"]["fontSize"] >= 13


def png_pixels(spec: dict) -> np.ndarray:
    (image,) = find(spec, "image")
    url = frame(spec, image)["url"].iloc[0]
    return np.asarray(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGBA"))


def wide_text(value):
    """A title or subtitle as a wide screen shows it: the chart style turns a long one into a Vega
    expression choosing between wrapped and unwrapped lines by the chart's width
    (`width >= N ? [as given] : (width >= W ? [wrapped to W] : …)`); this returns the lines as given
    (one string for one line)."""
    if isinstance(value, dict) and "expr" in value:
        expr = value["expr"]
        lines, _ = json.JSONDecoder().raw_decode(expr, expr.index("? ") + 2)
        return lines[0] if len(lines) == 1 else lines
    return value


def readable_titles(spec: dict) -> dict:
    """`spec` with its title and subtitle in their wide form (see `wide_text`)."""
    title = spec.get("title")
    if isinstance(title, dict):
        spec["title"] = {**title, **{k: wide_text(v) for k, v in title.items() if k in ("text", "subtitle")}}
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
    return spec
