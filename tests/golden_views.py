"""Golden snapshots of deep links: what every page shows for a fixed set of links.

The safety net for restructuring `explorer/` and `pages/`: every page, chart, text and control a
user sees, and every URL parameter, must stay as it is, and links made before must open the same
view. `LINKS` is a frozen list of deep links (page + query string); `snapshot(page, query)` runs
the page with `AppTest` and returns a JSON-serialisable, normalised description of what it shows.
`tests/golden/deep_links.json` holds the snapshots of the code as it was before the restructure
(generated from that commit); `tests/test_deep_links_golden.py` compares the current tree with it.

    python tests/golden_views.py --write           # (re)generate tests/golden/deep_links.json
    python tests/golden_views.py --check           # compare, like the test, without pytest
    python tests/golden_views.py --show LINK_ID    # one link's snapshot, charts' specs in full

Run from the repository root (the tree this file is in is the tree that is run). Regenerate only
on purpose: the golden file is the "before" of a behaviour-preserving change.

What a snapshot holds (in page order, depth-first: main area, sidebar, then Streamlit's "event"
container where style-only `st.html` goes):

* every element and block with its type and what it shows: the element's protobuf message as
  Streamlit sends it to the browser (texts, labels, help, icons, options, ranges, formats,
  width/height, column weights, tab labels, expander labels …), and for widgets the value
  AppTest reads back (the open tab for bound tabs; open/closed for keyed expanders);
* charts (Vega-Lite): title text, mark types, the element's own fields, and the sha256 of the
  normalised spec (see `normalise_spec`; `--show` prints the spec itself);
* dataframes / tables: shape, columns, sha256 of the values (floats rounded to 8 significant
  digits), the Styler's CSS and the displayed cells (tables);
* `st.html` bodies as sha256 (the page's constant CSS / JS);
* the page config (browser-tab title, favicon, layout, sidebar state), the navigation (page names
  and URL paths, when the entry script is run) and the query parameters after the run (the URL
  the page leaves in the address bar).

What is normalised away, and why (each is an incidental difference, not something a user sees):

* widget / block ids (``$$ID-<hash>-<key>``): the hash depends on the script's absolute path;
  the user key (which is the URL parameter for bound widgets) is kept;
* ``page_script_hash`` of page links: an md5 of the page's absolute path -> the page's URL path;
* ``deferred_file_id`` of download buttons: a fresh uuid every run (the CSV itself is built only
  on click and is not part of the snapshot);
* ``set_value`` / proto ``value`` / ``has_one_shot_effect``: how the server pushed a value, not
  the value (the value AppTest reads back is recorded instead);
* pandas Styler uuid (``#T_<uuid>_row0_col0``, the st.table on Compare methods): random per run;
* chart specs: Altair's generated names (``param_12``, ``view_3``, ``selector001``; in Altair 5+
  ``param_<hash>``, ``view_<hash>_0``; ``data-<hash>``) depend on what ran before in the process
  or on incidental content -> renumbered ``<param1>``, ``<view1>`` … by first appearance;
  dataset names (hashes) are replaced by the datasets' content (inline ``datasets``/``values`` or
  the element's Arrow datasets), floats rounded to 8 significant digits; dict key order, and
  column order within chart datasets, do not count;
* floats everywhere rounded to 8 significant digits, -0.0 -> 0.0;
* floating-point round-off: a float below ROUNDOFF (1e-12) counts as 0, and a number written
  at that size in any text ("largest difference 6.1e-16") as ``<round-off>``. Its digits change
  from machine to machine and from run to run (BLAS kernels, numpy's alignment-dependent sums);
  that it is round-off is what the page says, and the page tests check that.
* `st.empty()` placeholders that stay empty (nothing on screen) are left out.
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import hashlib
import json
import math
import re
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GOLDEN_PATH = ROOT / "tests" / "golden" / "deep_links.json"
FORMAT = 2
SIG_DIGITS = 8
#: Below this magnitude a float is floating-point round-off (a difference of two equal
#: quantities, a shift deviation, a float64 residual), not a value the page chose to show: its
#: digits depend on the machine, the BLAS kernel and even the memory alignment of an array
#: (numpy's pairwise sums), so the same tree shows 2.84e-14 on one run and 3.02e-14 on another.
ROUNDOFF = 1e-12
#: Such numbers written in text ("6.1e-16", "2.84e-14"): exponent -12 or smaller.
_ROUNDOFF_TEXT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][-−](?:1[2-9]|[2-9]\d|\d{3})(?!\d)")

# ============================================================================ the deep links
HOME = "app.py"
SIN = "pages/1_Sinusoidal_heatmap.py"
CLOCKS = "pages/2_Clock_hands.py"
ROPE = "pages/3_RoPE_rotation.py"
INV = "pages/4_Relative_invariance.py"
EXT = "pages/5_Context_extension.py"
CMP = "pages/8_Compare_methods.py"
CFG = "pages/9_Model_configs.py"
PAGES = (HOME, SIN, CLOCKS, ROPE, INV, EXT, CMP, CFG)
VIS = "pages/7_Images_and_video.py"
LAB = "pages/6_Extrapolation_lab.py"  # its tour steps only (its views depend on the shipped results, data/lab/)
#: Not snapshotted at all: its numbers come from a real model's forward pass, whose last float32 digits
#: depend on the machine's kernels; tests/test_page_realmodel.py checks what it shows by meaning.
RM = "pages/10_Inside_a_real_model.py"
SHORT = {
    HOME: "home",
    SIN: "sin",
    CLOCKS: "clocks",
    ROPE: "rope",
    INV: "inv",
    EXT: "ext",
    VIS: "vis",
    LAB: "lab",
    CMP: "cmp",
    CFG: "cfg",
    RM: "rm",
}

#: bench/run_all.py's MAX_SETTINGS at the pre-restructure commit (copied, so that the links stay
#: fixed whatever happens to the bench).
MAX_SETTINGS: dict[str, dict[str, str]] = {
    HOME: {
        "sentence": " ".join(f"word{i}" for i in range(40)),
        "d_model": "64",
        "home_pe": "rope",
        "seed": "9999",
        "shuffle_seed": "9999",
    },
    SIN: {
        "seq_len": "8192",
        "d_model": "2048",
        "base": "1000000",
        "zoom_p0": "7936",
        "zoom_np": "256",
        "zoom_d0": "1792",
        "zoom_nd": "256",
        "sim_n": "512",
        "sin_view": "Similarity",
        "curve_dims": ", ".join(str(i) for i in range(0, 2048, 100)),
    },
    CLOCKS: {"d_model": "2048", "base": "1000000", "n_clocks": "64", "m": "8192"},
    ROPE: {
        "m": "8192",
        "n": "8192",
        "head_dim": "256",
        "j": "127",
        "base": "1000000",
        "traj_m": "256",
        "rope_view": "Whole head",
    },
    INV: {
        "head_dim": "256",
        "seq_len": "256",
        "shift_t": "4096",
        "table_len": "4096",
        "base": "1000000",
        "seed": "9999",
    },
    EXT: {
        "head_dim": "256",
        "base": "1000000",
        "train_len": "262144",
        "target_len": "1048576",
        "rope_type": "yarn",
        "factor": "128",
        "beta_fast": "256",
        "beta_slow": "128",
        "ext_view": "Precision",
    },
    CMP: {
        "head_dim": "256",
        "train_len": "2048",
        "target_len": "4096",
        "base": "1000000",
        "seed": "9999",
        "alibi_head": "8",
    },
    CFG: {"head_dim": "256", "base": "1000000", "conv_from": "rope_theta", "new_theta": "1000000000000"},
}

#: A moderate set of non-default values per page (every value differs from its default).
MODERATE_SETTINGS: dict[str, dict[str, str]] = {
    HOME: {
        "sentence": "the dog chased the cat around the garden",
        "d_model": "32",
        "home_pe": "learned",
        "seed": "7",
        "shuffle_seed": "3",
    },
    SIN: {
        "seq_len": "300",
        "d_model": "64",
        "base": "1000",
        "layout_sin": "concatenated",
        "scheme": "viridis",
        "zoom_p0": "40",
        "zoom_np": "50",
        "zoom_d0": "8",
        "zoom_nd": "24",
        "curve_dims": "0, 3, 17",
        "sim_n": "64",
        "sin_view": "Curves",
    },
    CLOCKS: {"d_model": "32", "base": "100", "n_clocks": "4", "m": "42"},
    ROPE: {
        "head_dim": "16",
        "j": "3",
        "m": "40",
        "n": "7",
        "base": "500",
        "layout_rope": "interleaved",
        "vec_input": "polar",
        "q_angle": "45",
        "q_len": "2",
        "k_angle": "-60",
        "k_len": "0.5",
        "traj_m": "32",
    },
    INV: {
        "seq_len": "32",
        "head_dim": "16",
        "shift_t": "50",
        "base": "100",
        "layout_sin": "concatenated",
        "seed": "3",
        "score_dtype": "float32",
        "table_len": "64",
        "inv_view": "Decay",
    },
    EXT: {
        "head_dim": "64",
        "base": "500000",
        "train_len": "8192",
        "target_len": "32768",
        "rope_type": "llama3",
        "factor": "8",
        "low_freq_factor": "2",
        "high_freq_factor": "8",
        "ext_view": "Interpolation",
    },
    CMP: {"head_dim": "32", "train_len": "64", "target_len": "256", "base": "1000", "seed": "5", "alibi_head": "2"},
    CFG: {"head_dim": "128", "base": "500000", "conv_from": "linear_factor", "ntk_alpha": "8"},
}

#: The tab parameter (explorer.params kind "tabs") of each page that has one, with its options.
TABS: dict[str, tuple[str, tuple[str, ...]]] = {
    SIN: ("sin_view", ("Zoom", "Curves", "Wavelengths", "Similarity", "Numbers")),
    ROPE: ("rope_view", ("One pair", "Whole head")),
    INV: ("inv_view", ("Scores", "Sinusoid shift", "Decay")),
    EXT: ("ext_view", ("Wavelengths", "Rescaling", "Attention", "Interpolation", "Precision")),
}

#: Model presets (posenc.models.PRESETS keys) opened with ?model= on the preset-aware pages:
#: llama3 scaling, YaRN with DeepSeek's mscale, LongRoPE.
MODEL_PRESETS = ("llama3.1-8b", "deepseek-v3", "phi3-mini-128k-instruct")
PRESET_PAGES = (ROPE, INV, EXT)

#: explorer.tour.TOUR at the pre-restructure commit: (page, the step's values as URL values).
#: `tour_consistency_problems()` checks it against explorer.tour when the golden file is written.
TOUR_STEPS: tuple[tuple[str, dict[str, str]], ...] = (
    ("app.py", {"home_pe": "none"}),
    ("app.py", {"home_pe": "sinusoidal"}),
    ("pages/1_Sinusoidal_heatmap.py", {"seq_len": "512", "d_model": "128"}),
    ("pages/2_Clock_hands.py", {"d_model": "64", "n_clocks": "8", "m": "100"}),
    ("pages/3_RoPE_rotation.py", {"head_dim": "64", "j": "0", "m": "5", "n": "12"}),
    ("pages/3_RoPE_rotation.py", {"head_dim": "64", "base": "10000", "j": "31", "m": "500", "n": "512"}),
    ("pages/4_Relative_invariance.py", {"seq_len": "64", "shift_t": "100", "table_len": "256"}),
    (
        "pages/5_Context_extension.py",
        {"head_dim": "128", "base": "10000", "train_len": "4096", "target_len": "16384", "rope_type": "default"},
    ),
    (
        "pages/5_Context_extension.py",
        {
            "head_dim": "128",
            "base": "10000",
            "train_len": "4096",
            "target_len": "16384",
            "rope_type": "linear",
            "factor": "4",
            "ext_view": "Rescaling",
        },
    ),
    (
        "pages/5_Context_extension.py",
        {
            "head_dim": "128",
            "base": "10000",
            "train_len": "4096",
            "target_len": "16384",
            "rope_type": "yarn",
            "factor": "4",
            "ext_view": "Attention",
        },
    ),
    (
        "pages/5_Context_extension.py",
        {
            "head_dim": "128",
            "base": "500000",
            "train_len": "8192",
            "target_len": "131072",
            "rope_type": "llama3",
            "factor": "8",
            "low_freq_factor": "1",
            "high_freq_factor": "4",
            "model": "Llama 3.1 8B",
            "ext_view": "Rescaling",
        },
    ),
    ("pages/6_Extrapolation_lab.py", {"lab_task": "markov", "lab_view": "Length"}),
    ("pages/6_Extrapolation_lab.py", {"lab_task": "markov", "lab_view": "Per position"}),
    (
        "pages/6_Extrapolation_lab.py",
        {"lab_task": "markov", "lab_view": "Extension", "lab_ext": "yarn", "lab_beta": "2"},
    ),
    ("pages/7_Images_and_video.py", {"vis_model": "Qwen2.5-VL 7B (language model)", "vis_view": "Patch grid"}),
    ("pages/7_Images_and_video.py", {"vis_model": "Qwen2.5-VL 7B (language model)", "vis_view": "Pairs and axes"}),
    ("pages/8_Compare_methods.py", {}),
    (RM, {"rm_view": "Frequencies"}),
    (RM, {"rm_view": "Long context"}),
)

GARBAGE = {"seq_len": "abc", "base": "7", "d_model": "3"}


def _links() -> list[dict[str, Any]]:
    links: list[dict[str, Any]] = []

    def add(page: str, name: str, query: Mapping[str, str | list[str]]) -> None:
        links.append({"id": f"{SHORT[page]}/{name}", "page": page, "query": dict(query)})

    for page in PAGES:
        add(page, "defaults", {})
        add(page, "max", MAX_SETTINGS[page])
        add(page, "moderate", MODERATE_SETTINGS[page])
        if page in TABS:
            key, options = TABS[page]
            for option in options:
                add(page, f"{key}={option}", {key: option})
        add(page, "garbage", GARBAGE)
        add(page, "present=garbage", {"present": "garbage"})
        add(page, "present=1", {"present": "1"})
        if page in PRESET_PAGES:
            for preset in MODEL_PRESETS:
                add(page, f"model={preset}", {"model": preset})
    for number, (page, values) in enumerate(TOUR_STEPS, start=1):
        if page == RM:
            continue
        add(HOME, f"step={number}", {"step": str(number)})
        add(page, f"step={number}+values", {**values, "step": str(number)})

    # A few more links that old URLs may hold: clamping, canonical forms, repeated keys, bad
    # steps, the method-specific controls of each rope_type, typed vectors, presets + overrides.
    add(HOME, "step=99", {"step": "99"})
    add(HOME, "step=abc", {"step": "abc"})
    add(HOME, "step=0", {"step": "0"})
    add(HOME, "one-word-sentence", {"sentence": "hello", "home_pe": "rope"})
    add(HOME, "present=1+step=7", {"present": "1", "step": "7"})
    add(SIN, "non-canonical", {"seq_len": "300.0", "base": "1e4", "d_model": "64.0"})
    add(SIN, "zoom-clamped", {"seq_len": "100", "d_model": "16", "zoom_p0": "500", "zoom_d0": "40", "sim_n": "300"})
    add(SIN, "repeated-key", {"seq_len": ["10", "20"]})
    add(SIN, "bad-curve-dims", {"curve_dims": "x, 5000, -1", "sin_view": "Curves"})
    add(ROPE, "j-clamped", {"head_dim": "8", "j": "60"})
    add(ROPE, "model=gpt-j-6b", {"model": "gpt-j-6b"})
    add(ROPE, "present=1+Whole head", {"present": "true", "rope_view": "Whole head", "head_dim": "32"})
    add(INV, "typed", {"qk_source": "typed", "q_text": "1, 2, 3, 4", "k_text": "4, 3, 2, 1", "inv_view": "Decay"})
    add(INV, "typed-odd", {"qk_source": "typed", "q_text": "1, 2, 3", "k_text": "1, 2"})
    add(INV, "table-too-short", {"table_len": "8", "shift_t": "200", "seq_len": "64"})
    for rope_type in ("linear", "ntk", "dynamic", "yarn", "longrope"):
        add(EXT, f"rope_type={rope_type}+Rescaling", {"rope_type": rope_type, "ext_view": "Rescaling"})
    add(
        EXT,
        "yarn-all-keys",
        {
            "rope_type": "yarn",
            "factor": "40",
            "beta_fast": "16",
            "beta_slow": "2",
            "mscale": "1",
            "mscale_all_dim": "0.707",
            "attention_factor": "1.25",
            "truncate": "false",
            "ext_view": "Attention",
        },
    )
    add(EXT, "longrope-gens", {"rope_type": "longrope", "short_gen": "ramp", "long_gen": "constant", "factor": "16"})
    add(EXT, "model+override", {"model": "llama3.1-8b", "head_dim": "64"})
    add(CMP, "lengths-clamped", {"train_len": "100000", "target_len": "50"})
    add(CFG, "conv_from=rope_theta", {"conv_from": "rope_theta", "new_theta": "2000000"})
    return links


LINKS: list[dict[str, Any]] = _links()
assert len({link["id"] for link in LINKS}) == len(LINKS), "link ids must be unique"


# ============================================================================ normalisation
def _sig(x: float) -> float | str:
    """A float rounded to SIG_DIGITS significant digits (-0.0 -> 0.0; NaN/inf as text)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if abs(x) < ROUNDOFF:
        return 0.0
    return float(f"{x:.{SIG_DIGITS}g}") + 0.0


#: RoPE's shift deviation in float16/bfloat16/float32 is that dtype's round-off (it passes the
#: test; its digits follow the BLAS kernel like any round-off): written "(9.5e-06 in float32)"
#: in text, shown as the metric "RoPE (float32)" and as the bar of the row "RoPE (float32)".
_DTYPE_ROUNDOFF_TEXT = re.compile(r"\d+(?:\.\d+)?[eE][-−+]\d+(?= in (?:float16|bfloat16|float32)\))")
_ROPE_DEVIATION = re.compile(r"^RoPE \((?:float16|bfloat16|float32|float64)\)$")


def mask_roundoff(text: str) -> str:
    """`text` with every number written as round-off (see ROUNDOFF) replaced by a marker."""
    return _DTYPE_ROUNDOFF_TEXT.sub("<round-off>", _ROUNDOFF_TEXT.sub("<round-off>", text))


def _mask_rope_deviation(frame: Any) -> Any:
    """The shift test's dataset (columns method, deviation, verdict …) with the passing RoPE
    row's numbers (its round-off) blanked; any other frame unchanged."""
    if not {"method", "deviation", "verdict"} <= set(frame.columns):
        return frame
    frame = frame.copy()
    rows = frame["method"].astype(str).str.match(_ROPE_DEVIATION.pattern) & (frame["verdict"] == "pass")
    for column in frame.columns:
        if column in ("method", "verdict", "note"):
            continue
        frame[column] = frame[column].astype(object)
        frame.loc[rows, column] = "<round-off>"
    return frame


def norm(value: Any) -> Any:
    """A JSON-ready copy: floats rounded (`_sig`), numpy scalars/arrays as Python, tuples as
    lists, dict keys as strings, bytes as their sha256."""
    import numpy as np

    if isinstance(value, str):
        return mask_roundoff(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, np.generic):
        return norm(value.item())
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return _sig(value)
    if isinstance(value, Mapping):
        return {str(k): norm(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [norm(v) for v in value]
    if isinstance(value, np.ndarray):
        return norm(value.tolist())
    if isinstance(value, (bytes, bytearray)):
        return {"sha256": hashlib.sha256(bytes(value)).hexdigest()}
    return str(value)


def _sha(text: str | bytes) -> str:
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _round_array(a: Any) -> Any:
    """Float array rounded to SIG_DIGITS significant digits, vectorised (-0.0 -> 0.0, one NaN)."""
    import numpy as np

    a = np.asarray(a, dtype=np.float64)
    out = a.copy()
    out[np.abs(a) < ROUNDOFF] = 0.0
    ok = np.isfinite(a) & (np.abs(a) >= ROUNDOFF)
    mag = np.abs(a[ok])
    exponent = np.floor(np.log10(mag))
    extreme = (exponent < -280) | (exponent > 280)
    scale = 10.0 ** (SIG_DIGITS - 1 - np.where(extreme, 0, exponent))
    rounded = np.round(a[ok] * scale) / scale
    if extreme.any():  # 10**±300 overflows: round those few through text
        idx = np.flatnonzero(extreme)
        rounded[idx] = [float(f"{v:.{SIG_DIGITS}g}") for v in a[ok][idx]]
    out[ok] = rounded
    out = out + 0.0
    out[np.isnan(out)] = np.nan
    return out


def frame_digest(frame: Any, *, sort_columns: bool = False, with_index: bool = True) -> dict[str, Any]:
    """shape, columns and a sha256 of a DataFrame's values (floats rounded to SIG_DIGITS
    significant digits; int and float columns holding the same numbers hash alike)."""
    import numpy as np
    import pandas as pd

    frame = pd.DataFrame(frame)
    columns = [str(c) for c in frame.columns]
    order = sorted(range(len(columns)), key=lambda i: columns[i]) if sort_columns else range(len(columns))
    h = hashlib.sha256()
    h.update(f"{frame.shape}".encode())

    def feed(name: str, series: Any) -> None:
        h.update(b"\x1ecol\x1f" + name.encode())
        values = series.to_numpy()
        kind = values.dtype.kind
        if kind == "b":
            h.update(b"bool" + values.astype(np.uint8).tobytes())
        elif kind in "iuf":
            h.update(b"num" + _round_array(values).tobytes())
        else:
            h.update(b"obj" + "\x1f".join(_canonical_json(norm(v)) for v in values.tolist()).encode())

    if with_index and not isinstance(frame.index, pd.RangeIndex):
        feed("(index)", frame.index.to_series())
    elif with_index:
        h.update(f"range{frame.index.start},{frame.index.stop},{frame.index.step}".encode())
    for i in order:
        feed(columns[i], frame.iloc[:, i])
    return {"shape": list(frame.shape), "columns": columns, "values_sha256": h.hexdigest()}


def _arrow_frame(data: bytes) -> Any:
    import pyarrow as pa

    return pa.ipc.open_stream(data).read_pandas()


#: Altair / Vega-Lite names that come from process-wide counters or hashes.
_GENERATED = re.compile(
    r"(?<![A-Za-z0-9])(param_[0-9a-f]+|view_[0-9a-f]+|selector\d+|data-[0-9a-f]{16,})(?![0-9A-Za-z])"
)


def _walk_strings(node: Any, found: list[str]) -> None:
    if isinstance(node, dict):
        for key in sorted(node):
            for match in _GENERATED.finditer(key):
                found.append(match.group(1))
            _walk_strings(node[key], found)
    elif isinstance(node, list):
        for item in node:
            _walk_strings(item, found)
    elif isinstance(node, str):
        found.extend(m.group(1) for m in _GENERATED.finditer(node))


def _rename(node: Any, mapping: Mapping[str, str]) -> Any:
    def sub(text: str) -> str:
        return _GENERATED.sub(lambda m: mapping.get(m.group(1), m.group(1)), text)

    if isinstance(node, dict):
        return {sub(k): _rename(v, mapping) for k, v in node.items()}
    if isinstance(node, list):
        return [_rename(v, mapping) for v in node]
    if isinstance(node, str):
        return sub(node)
    return node


def _replace_exact(node: Any, mapping: Mapping[str, str]) -> Any:
    if isinstance(node, dict):
        return {mapping.get(k, k): _replace_exact(v, mapping) for k, v in node.items()}
    if isinstance(node, list):
        return [_replace_exact(v, mapping) for v in node]
    if isinstance(node, str):
        return mapping.get(node, node)
    return node


def normalise_spec(spec: dict, datasets: Mapping[str, Any]) -> dict:
    """A Vega-Lite spec with incidental differences removed (see the module docstring).

    `datasets`: name -> rows (list of dicts) or DataFrame, from the spec's own ``datasets`` and
    the chart element's Arrow datasets. Each dataset name, wherever the spec mentions it, becomes
    ``dataset:<sha256 of its content>``; then Altair's counter-based names are renumbered by
    order of first appearance (dict keys sorted, so key order does not matter)."""
    import pandas as pd

    spec = dict(spec)
    datasets = {**dict(spec.pop("datasets", None) or {}), **dict(datasets)}
    names = {}
    for name, rows in datasets.items():
        frame = _mask_rope_deviation(rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows)))
        names[name] = "dataset:" + frame_digest(frame, sort_columns=True, with_index=False)["values_sha256"]
    spec = _hash_inline_values(_replace_exact(spec, names))
    found: list[str] = []
    _walk_strings(spec, found)
    mapping: dict[str, str] = {}
    counters: dict[str, int] = {}
    for name in found:
        if name in mapping:
            continue
        kind = re.match(r"[a-z]+", name).group(0)
        counters[kind] = counters.get(kind, 0) + 1
        mapping[name] = f"<{kind}{counters[kind]}>"
    spec = _rename(spec, mapping)
    return norm(spec)


def _hash_inline_values(node: Any) -> Any:
    """``{"values": [rows…]}`` data (inline) -> ``{"values": "dataset:<sha>"}``."""
    import pandas as pd

    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "values" and isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
                out[key] = (
                    "dataset:" + frame_digest(pd.DataFrame(value), sort_columns=True, with_index=False)["values_sha256"]
                )
            else:
                out[key] = _hash_inline_values(value)
        return out
    if isinstance(node, list):
        return [_hash_inline_values(v) for v in node]
    return node


_VIEW_KEYS = ("layer", "hconcat", "vconcat", "concat")


def _titles_and_marks(spec: Any, titles: list, marks: list) -> None:
    if not isinstance(spec, dict):
        return
    if "title" in spec:
        title = spec["title"]
        if isinstance(title, dict):
            title = {k: title[k] for k in ("text", "subtitle") if k in title}
        titles.append(title)
    if "mark" in spec:
        mark = spec["mark"]
        marks.append(mark if isinstance(mark, str) else mark.get("type"))
    for key in _VIEW_KEYS:
        for sub in spec.get(key) or []:
            _titles_and_marks(sub, titles, marks)
    if isinstance(spec.get("spec"), dict):
        _titles_and_marks(spec["spec"], titles, marks)


def _chart_record(proto: Any, *, full_specs: bool) -> dict[str, Any]:
    spec = json.loads(proto.spec) if proto.spec else {}
    datasets = {d.name: _arrow_frame(d.data.data) for d in proto.datasets}
    if proto.HasField("data") and proto.data.data:
        datasets["(element data)"] = _arrow_frame(proto.data.data)
        spec = {**spec, "data": {"name": "(element data)"}}
    normal = normalise_spec(spec, datasets)
    titles: list = []
    marks: list = []
    _titles_and_marks(normal, titles, marks)
    record = {"titles": titles, "marks": marks, "spec_sha256": _sha(_canonical_json(normal))}
    if full_specs:
        record["spec"] = normal
    return record


def _styler_record(styler: Any) -> dict[str, Any]:
    uuid = styler.uuid
    record: dict[str, Any] = {}
    if styler.caption:
        record["caption"] = styler.caption
    if styler.styles:
        record["styles"] = styler.styles.replace(uuid, "<uuid>") if uuid else styler.styles
    if styler.display_values:
        display = _arrow_frame(styler.display_values)
        record["display"] = norm(display.astype(str).values.tolist())
    return record


def _arrow_data_record(arrow: Any) -> dict[str, Any]:
    record = frame_digest(_arrow_frame(arrow.data)) if arrow.data else {}
    if arrow.HasField("styler"):
        record["styler"] = _styler_record(arrow.styler)
    return record


# ============================================================================ the walk
_DROP_FIELDS = frozenset({"set_value", "value", "deferred_file_id", "has_one_shot_effect", "fragment_id"})


def _scrub(node: Any, nav: Mapping[str, str]) -> Any:
    """Proto dict without incidental fields (ids -> user key; page hashes -> URL paths)."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key in _DROP_FIELDS:
                continue
            if key == "id" and isinstance(value, str):
                user_key = _user_key(value)
                if user_key is not None:
                    out["key"] = user_key
                continue
            if key == "page_script_hash" and isinstance(value, str):
                out["page_url_path"] = nav.get(value, "(unknown page)")
                continue
            out[key] = _scrub(value, nav)
        return out
    if isinstance(node, list):
        return [_scrub(v, nav) for v in node]
    return node


def _user_key(element_id: str) -> str | None:
    if not element_id.startswith("$$ID-"):
        return element_id or None
    key = element_id.split("-", maxsplit=2)[-1]
    return None if key == "None" else key


def _proto_dict(message: Any) -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict

    return MessageToDict(message, preserving_proto_field_name=True)


def _widget_value(node: Any, at: Any) -> tuple[bool, Any]:
    """(has a value, the value AppTest reads back)."""
    from streamlit.testing.v1 import element_tree as et

    if isinstance(node, et.Widget):
        try:
            return True, norm(node.value)
        except Exception as err:
            return True, f"<unreadable: {type(err).__name__}>"
    block_id = getattr(node, "_block_id", "") or ""
    key = _user_key(block_id) if block_id else None
    if key is not None:
        try:
            return True, norm(at.session_state[key])
        except Exception:
            return False, None
    return False, None


def _describe(node: Any, full: Any, at: Any, nav: Mapping[str, str], *, full_specs: bool) -> dict[str, Any] | None:
    """One element or block as a dict (None: leave it out). ``element`` is AppTest's name for
    it (title, caption, slider, tab …); the other keys are the proto's fields."""
    from streamlit.testing.v1 import element_tree as et

    element = getattr(node, "type", type(node).__name__)
    if full is None:  # a placeholder block AppTest made up for a path it never saw
        return {"element": element}
    which = full.WhichOneof("type")
    inner = getattr(full, which) if which else None
    if which == "empty":
        return None
    outer = _proto_dict(full)
    content = outer.pop(which, {}) if which else {}
    if not isinstance(content, dict):
        content = {which: content}
    extra: dict[str, Any] = {}
    if which == "vega_lite_chart":
        for key in ("spec", "datasets", "data"):
            content.pop(key, None)
        extra = _chart_record(inner, full_specs=full_specs)
    elif which in ("dataframe", "table", "arrow_data_frame", "arrow_table"):
        content.pop("arrow_data", None)
        content.pop("data", None)
        arrow = getattr(inner, "arrow_data", None)
        if arrow is not None and (arrow.data or arrow.HasField("styler")):
            extra = _arrow_data_record(arrow)
        elif getattr(inner, "data", None):
            extra = frame_digest(_arrow_frame(inner.data))
    elif which == "html":
        body = content.pop("body", "")
        extra = {"body_sha256": _sha(body), "body_start": body[:40]}
    record = {**_scrub({**outer, **content}, nav), **extra}
    if which == "metric" and _ROPE_DEVIATION.match(str(record.get("label", ""))):
        record["body"] = "<round-off>"  # RoPE's shift deviation: round-off (see _DTYPE_ROUNDOFF_TEXT)
    if isinstance(node, et.Widget) or getattr(node, "_block_id", ""):
        has, value = _widget_value(node, at)
        if has:
            record["value"] = value
    return norm({"element": element, **record})


def _walk(node: Any, path: tuple[int, ...], depth: int, protos: Mapping, at: Any, nav, out: list, full_specs: bool):
    from streamlit.testing.v1 import element_tree as et

    record = _describe(node, protos.get(path), at, nav, full_specs=full_specs)
    if record is not None:
        record["depth"] = depth
        out.append(norm(record))
    if isinstance(node, et.Block):
        for index in sorted(node.children):
            _walk(node.children[index], (*path, index), depth + 1, protos, at, nav, out, full_specs)


@contextlib.contextmanager
def _capture_messages() -> Iterator[list]:
    """Collect the ForwardMsgs AppTest parses into its element tree (the element tree keeps only
    each element's inner message; layout fields, the page config and navigation are in the
    messages)."""
    import streamlit.testing.v1.local_script_runner as lsr

    original = lsr.parse_tree_from_messages
    captured: list = []

    def capture(messages):
        captured.append(list(messages))
        return original(messages)

    lsr.parse_tree_from_messages = capture
    try:
        yield captured
    finally:
        lsr.parse_tree_from_messages = original


def _protos_by_path(messages: list) -> tuple[dict, dict[str, Any], dict[str, str], list]:
    """{delta path: the Element/Block proto last sent there}, page config, nav {hash: url path},
    nav pages (name, url path, default)."""
    protos: dict[tuple[int, ...], Any] = {}
    page_config: dict[str, Any] = {}
    nav: dict[str, str] = {}
    nav_pages: list = []
    for msg in messages:
        kind = msg.WhichOneof("type")
        if kind == "delta":
            delta = msg.delta
            which = delta.WhichOneof("type")
            if which in ("new_element", "add_block"):
                protos[tuple(msg.metadata.delta_path)] = getattr(delta, which)
        elif kind == "page_config_changed":
            page_config = _proto_dict(msg.page_config_changed)
        elif kind == "navigation":
            nav_pages = []
            for page in msg.navigation.app_pages:
                nav[page.page_script_hash] = page.url_pathname
                nav_pages.append({"name": page.page_name, "url_path": page.url_pathname, "default": page.is_default})
    return protos, page_config, nav, nav_pages


_COMPONENTS: Any = None  # the component registry of the first AppTest (see snapshot)


def _resolve(page_path: str | Path) -> Path:
    path = Path(page_path)
    return path if path.is_absolute() else ROOT / path


def snapshot(page_path: str | Path, query: Mapping[str, str | list[str]], *, full_specs: bool = False) -> dict:
    """Run `page_path` (relative to the repo root, or absolute) with the URL query `query`
    (a fresh session, as a pasted link) and describe what it shows (see the module docstring).
    `full_specs`: also include every chart's normalised spec (for --show; not stored)."""
    import logging

    from streamlit import logger as st_logger
    from streamlit.testing.v1 import AppTest

    global _COMPONENTS
    at = AppTest.from_file(str(_resolve(page_path)), default_timeout=60)
    # Every new AppTest scans the metadata of every installed package for Streamlit components
    # (~2 s here); the result is the same for all of them, so scan once per process.
    if _COMPONENTS is not None and getattr(at, "_bidi_component_manager", "absent") is None:
        at._bidi_component_manager = _COMPONENTS
    for key, value in query.items():
        at.query_params[key] = list(value) if isinstance(value, (list, tuple)) else str(value)
    st_logger.set_log_level(logging.ERROR)
    with _capture_messages() as captured:
        at.run()
    _COMPONENTS = getattr(at, "_bidi_component_manager", None)
    assert not at.exception, [e.message for e in at.exception]
    assert captured, "AppTest did not parse any messages (Streamlit internals changed?)"
    protos, page_config, nav, nav_pages = _protos_by_path(captured[-1])
    elements: list = []
    tree = at._tree
    for index, name in ((0, "main"), (1, "sidebar"), (2, "event")):
        root = tree.children.get(index)
        if root is None:
            continue
        elements.append({"element": name, "depth": 0})
        for child in sorted(root.children):
            _walk(root.children[child], (index, child), 1, protos, at, nav, elements, full_specs)
    shown = nav.get(at._finished_page_script_hash) if nav else None
    result = {
        "page_config": norm(page_config),
        "navigation": nav_pages,
        "shown_page_url_path": shown,
        "query_params_after": norm(dict(at.query_params)),
        "elements": elements,
    }
    # Round-trip through JSON so the result compares equal to what the golden file holds.
    return json.loads(json.dumps(result, ensure_ascii=False, allow_nan=False))


# ============================================================================ comparison
def element_line(record: Mapping[str, Any]) -> str:
    """One element as an indented, compact line (for diffs)."""
    body = {k: v for k, v in record.items() if k not in ("depth", "element")}
    return "  " * int(record.get("depth", 0)) + f"{record.get('element')} " + _canonical_json(body)


def _field_diff(expected: Mapping, got: Mapping) -> list[str]:
    lines = []
    for key in sorted(set(expected) | set(got)):
        if key == "depth" or expected.get(key, "<absent>") == got.get(key, "<absent>"):
            continue
        lines.append(f"    {key}: expected {expected.get(key, '<absent>')!r}")
        lines.append(f"    {' ' * len(key)}  got      {got.get(key, '<absent>')!r}")
    return lines


def _ancestors(elements: list, index: int) -> list[str]:
    """Short descriptions of the containers around element `index`."""
    chain = []
    depth = elements[index].get("depth", 0)
    for i in range(index - 1, -1, -1):
        d = elements[i].get("depth", 0)
        if d < depth:
            e = elements[i]
            label = e.get("label") or e.get("key") or ""
            chain.append(f"{e.get('element')}" + (f" {label!r}" if label else "") + f" (element #{i})")
            depth = d
    return list(reversed(chain))


def compare(expected: Mapping, got: Mapping, *, max_lines: int = 120) -> str | None:
    """None when equal, else a readable report: which part, which element, expected vs got."""
    if expected == got:
        return None
    out: list[str] = []
    for key in ("page_config", "navigation", "shown_page_url_path", "query_params_after"):
        if expected.get(key) != got.get(key):
            out.append(f"{key} differs:\n  expected {expected.get(key)!r}\n  got      {got.get(key)!r}")
    exp_el, got_el = expected.get("elements", []), got.get("elements", [])
    if exp_el != got_el:
        first = next(
            (i for i, (a, b) in enumerate(zip(exp_el, got_el)) if a != b),
            min(len(exp_el), len(got_el)),
        )
        out.append(f"elements differ ({len(exp_el)} expected, {len(got_el)} shown); first difference at #{first}:")
        where = _ancestors(exp_el if first < len(exp_el) else got_el, first) if (exp_el or got_el) else []
        if where:
            out.append("  inside: " + " > ".join(where))
        if first < len(exp_el) and first < len(got_el):
            a, b = exp_el[first], got_el[first]
            out.append(f"  expected: {element_line(a).strip()[:400]}")
            out.append(f"  got:      {element_line(b).strip()[:400]}")
            if a.get("element") == b.get("element"):
                out.append(f"  fields of this {a.get('element')} that differ:")
                out.extend(_field_diff(a, b))
        elif first < len(exp_el):
            out.append(f"  missing: {element_line(exp_el[first]).strip()[:400]}")
        else:
            out.append(f"  extra:   {element_line(got_el[first]).strip()[:400]}")
        diff = list(
            difflib.unified_diff(
                [element_line(e)[:300] for e in exp_el],
                [element_line(e)[:300] for e in got_el],
                "expected (golden)",
                "shown now",
                n=2,
                lineterm="",
            )
        )
        if len(diff) > max_lines:
            diff = [*diff[:max_lines], f"… {len(diff) - max_lines} more diff lines"]
        out.append("unified diff of the elements (one line each):")
        out.extend(diff)
    return "\n".join(out)


# ============================================================================ the golden file
def tour_consistency_problems() -> list[str]:
    """Differences between TOUR_STEPS and explorer.tour.TOUR of the tree being run."""
    from explorer import params, tour

    problems = []
    if len(tour.TOUR) != len(TOUR_STEPS):
        problems.append(f"TOUR has {len(tour.TOUR)} steps, TOUR_STEPS {len(TOUR_STEPS)}")
    for number, (step, (page, values)) in enumerate(zip(tour.TOUR, TOUR_STEPS), start=1):
        # Compared as values, not URL texts: a select or radio whose options gained labels writes
        # the label into the URL ("yarn · YaRN"), and the old text ("yarn") still means the same.
        given = {k: params.get(k).to_url(v) for k, v in step.params.items()}
        same = given.keys() == values.keys() and all(params.get(k).parse(values[k]) == step.params[k] for k in values)
        script = getattr(step.page, "script", step.page)  # a declared Page (or, before, its path)
        if script != page or not same:
            problems.append(f"step {number}: TOUR {script} {given} != TOUR_STEPS {page} {values}")
    return problems


def load_golden(path: Path = GOLDEN_PATH) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def dumps_golden(data: Mapping[str, Any]) -> str:
    """The golden file's text: stable key order, one element per line."""
    lines = ["{"]
    header = {k: v for k, v in data.items() if k != "links"}
    for key in sorted(header):
        lines.append(f"{json.dumps(key)}: {_canonical_json(header[key])},")
    lines.append('"links": [')
    for i, link in enumerate(data["links"]):
        snap = link["snapshot"]
        lines.append("{")
        lines.append(f'"id": {json.dumps(link["id"], ensure_ascii=False)},')
        lines.append(f'"page": {json.dumps(link["page"])},')
        lines.append(f'"query": {_canonical_json(link["query"])},')
        lines.append('"snapshot": {')
        for key in ("page_config", "navigation", "shown_page_url_path", "query_params_after"):
            lines.append(f"{json.dumps(key)}: {_canonical_json(snap[key])},")
        lines.append('"elements": [')
        elements = snap["elements"]
        for j, element in enumerate(elements):
            lines.append(_canonical_json(element) + ("," if j < len(elements) - 1 else ""))
        lines.append("]}")
        lines.append("}" + ("," if i < len(data["links"]) - 1 else ""))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
    except Exception:
        return "unknown"


def generate(links: list[dict[str, Any]] = LINKS, *, verbose: bool = True) -> dict[str, Any]:
    import streamlit

    out_links = []
    start = time.perf_counter()
    for link in links:
        t0 = time.perf_counter()
        snap = snapshot(link["page"], link["query"])
        out_links.append({**link, "snapshot": snap})
        if verbose:
            print(f"{time.perf_counter() - t0:6.2f} s  {link['id']}", flush=True)
    if verbose:
        print(f"{len(links)} links in {time.perf_counter() - start:.1f} s", flush=True)
    return {
        "format": FORMAT,
        "generated_from_commit": _commit(),
        "streamlit_version": streamlit.__version__,
        "significant_digits": SIG_DIGITS,
        "links": out_links,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", action="store_true", help=f"write {GOLDEN_PATH.relative_to(ROOT)}")
    group.add_argument("--check", action="store_true", help="compare this tree with the golden file")
    group.add_argument("--show", metavar="LINK_ID", help="print one link's snapshot with full chart specs")
    parser.add_argument("--out", type=Path, default=None, help="--write: another output path")
    args = parser.parse_args(argv)

    if args.show:
        link = next((x for x in LINKS if x["id"] == args.show), None)
        if link is None:
            print(f"unknown link id {args.show!r}; known: {', '.join(x['id'] for x in LINKS)}")
            return 2
        snap = snapshot(link["page"], link["query"], full_specs=True)
        print(json.dumps({**link, "snapshot": snap}, indent=1, sort_keys=True, ensure_ascii=False))
        return 0
    if args.write:
        problems = tour_consistency_problems()
        if problems:
            print("TOUR_STEPS does not match explorer.tour.TOUR:\n  " + "\n  ".join(problems))
            return 1
        data = generate()
        path = args.out or GOLDEN_PATH
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps_golden(data), encoding="utf-8")
        print(f"wrote {path} ({path.stat().st_size} bytes)")
        return 0
    golden = load_golden()
    failures = 0
    for link in golden["links"]:
        report = compare(link["snapshot"], snapshot(link["page"], link["query"]))
        if report:
            failures += 1
            print(f"--- {link['id']}  ({link['page']} ?{link['query']})\n{report}\n")
    print(f"{len(golden['links']) - failures} of {len(golden['links'])} links unchanged")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
