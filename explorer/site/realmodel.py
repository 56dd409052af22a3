"""The real-model page (pages/10_Inside_a_real_model.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.snippets import fill, ints
from explorer.text import methods
from posenc.methods import ROPE_METHODS
from posenc.realmodel import MODEL

TEXT_LABELS = {
    "argparse.py": "argparse.py (Python's source)",
    "textwrap.py": "textwrap.py (Python's source)",
    "pasted": "your own text",
}
#: the rope of the "Change the rope" tab: no rotation, or a rope_type of posenc's registry
METHODS = ("norope", *ROPE_METHODS)
METHOD_LABELS = {"norope": "No rotation at all (NoPE)", **{k: methods.label(k) for k in ROPE_METHODS}}
#: the live long-context run (the shipped comparison's methods, at factor 2)
LIVE_LABELS = {
    "default": "no scaling (its own rope)",
    "linear:factor=2": "Linear (PI), factor 2",
    "ntk:factor=2": "NTK-aware, factor 2",
    "dynamic:factor=2": "Dynamic NTK, factor 2",
    "yarn:factor=2": "YaRN, factor 2",
    "llama3:factor=2": "Llama 3.1, factor 2",
}
#: the texts of the shipped long-context results (posenc.realmodel.__main__.SHIP_TEXTS)
LONG_TEXT_LABELS = {
    "argparse.py": "argparse.py (Python source)",
    "pydoc_data.topics": "pydoc_data.topics (English prose: the reference manual)",
    "typing.py": "typing.py (Python source)",
}
SCORED = (256, 512, 1024, 2048)  # tokens the Change-the-rope view may score
MAX_SCORED = max(SCORED)
MAX_PASTE = 60_000  # characters of a pasted text (≈ 15k tokens; the page uses at most 2,048 of them)
#: the pasted text's box (a link does not carry it: not a Param)
PASTE = {
    "label": "Paste a text (a link does not carry it)",
    "key": "rm_paste",
    "max_chars": MAX_PASTE,
    "height": 120,
    "placeholder": "Any text: prose, code, a list…",
}
#: the model-path box (only where the server offers it: explorer.compute.realmodel.control_offered)
MODEL_PATH = {
    "label": f"Model: a .gguf file or an HF model directory on this server (empty: {MODEL.name})",
    "key": "rm_model",
    "placeholder": "/path/to/model",
    "help": "A directory with config.json, *.safetensors and tokenizer files, or a .gguf file; $POSENC_MODEL sets it "
    "when the server starts. Nothing is downloaded.",
}


def snippet(v: Mapping[str, Any]) -> str:
    return fill(
        """
import numpy as np
from posenc import realmodel

model = realmodel.load()  # $name, HF transformers' LlamaForCausalLM (≈ 3 s once cached on disk)
ids = model.tokenize(realmodel.default_text($text))
norms = model.pair_norms(ids[:$tokens])  # {"q": (layers, 9, 32), "k": (layers, 3, 32)}, before rotation
products = realmodel.pair_products(norms["q"], norms["k"])
slow = realmodel.MODEL.turns_in_training() < 1  # pairs that never turn in the trained length
print(f"slow pairs carry {realmodel.share(products, slow):.1%} of the q·k norm product")

heads = model.attention(ids[:$tokens])  # sink / previous / local shares and a label per head
print(heads["label"][$layer])

method = realmodel.method_for($method, factor=$factor, keep=$keep)
own, changed = model.nll(ids[:$length]), model.nll(ids[:$length], method)
print("mean NLL", own.mean(), "->", changed.mean(), realmodel.mean_difference(changed, own, block=32))
# the same from a shell: python -m posenc.realmodel ppl --lengths $length --methods default,yarn:factor=2
""",
        name=MODEL.name,
        text=str(v["text"]) if v["text"] != "pasted" else "argparse.py",
        **ints(v, "tokens", "layer", "length"),
        method=str(v["method"]),
        factor=float(v["factor"]),
        keep=float(v["keep"]),
    )


PAGE = Page(
    script="pages/10_Inside_a_real_model.py",
    slug="realmodel",
    title="Inside a real model",
    icon=":material/memory:",
    params=(
        Param(
            "rm_view",
            "View",
            "tabs",
            "Frequencies",
            options=("Frequencies", "Heads", "Change the rope", "Long context"),
        ),
        Param(
            "rm_text",
            "Text",
            "select",
            "argparse.py",
            options=tuple(TEXT_LABELS),
            labels=TEXT_LABELS,
            help="A module of Python's standard library (on every machine with Python), or a text you paste "
            "(a link does not carry a pasted text).",
        ),
        Param(
            "rm_tokens",
            "Tokens read",
            "select_slider",
            256,
            options=(64, 128, 256, 512),
            help="How many tokens of the text the Frequencies and Heads views read (from its start).",
        ),
        Param(
            "rm_layer",
            "Layer",
            "int_slider",
            0,
            min=0,
            max=MODEL.layers - 1,
            help="The layer the Frequencies and Heads views single out (0 = first).",
        ),
        Param(
            "rm_head",
            "Query head",
            "int_slider",
            0,
            min=0,
            max=MODEL.q_heads - 1,
            help="The query head the Heads view singles out.",
        ),
        Param(
            "rm_method",
            "Rope",
            "select",
            "yarn",
            options=METHODS,
            labels=METHOD_LABELS,
            help="Run the model with this rope instead of its own (rope_theta 100,000, no scaling): a rope_type "
            "of posenc's registry with the factor below and HF's defaults for its other keys, or none at all.",
        ),
        Param(
            "rm_factor",
            "Factor s",
            "float_slider",
            2.0,
            min=1.0,
            max=8.0,
            step=0.5,
            help="The method's `factor` (for p-RoPE: what the kept frequencies are divided by).",
        ),
        Param(
            "rm_keep",
            "p-RoPE: fraction of pairs that rotate",
            "float_slider",
            0.25,
            min=0.0,
            max=1.0,
            step=0.125,
            help="Proportional (p-RoPE) only: the fastest ⌊p·32⌋ pairs keep rotating, the others stop.",
        ),
        Param(
            "rm_length",
            "Tokens scored",
            "select_slider",
            512,
            options=SCORED,
            help="How many tokens of the text the two ropes are scored on (longer takes longer: ≈ 2 s at 512).",
        ),
        Param(
            "rm_live",
            "Rope for a live run",
            "select",
            "yarn:factor=2",
            options=tuple(LIVE_LABELS),
            labels=LIVE_LABELS,
            help="Run the model with this rope on up to 4,096 tokens of argparse.py, in the server's one-job queue.",
        ),
        Param("rm_llen", "Live run length", "select_slider", 2048, options=(1024, 2048, 3072, 4096)),
        Param(
            "rm_ltext",
            "Text of the results computed in advance",
            "select",
            "argparse.py",
            options=tuple(LONG_TEXT_LABELS),
            labels=LONG_TEXT_LABELS,
            help="Every Python install has these texts: two modules of the standard library and the reference "
            "manual's topics (pydoc_data.topics).",
        ),
    ),
    snippet=snippet,
    tour=(
        Step(
            {"rm_view": "Frequencies"},
            "A real model, SmolLM2-135M, reading Python source. Which rotary frequencies do its queries and keys "
            "use? Orange pairs never complete a turn in its 8,192 training tokens.",
            id="realmodel-frequencies",
        ),
        Step(
            {"rm_view": "Long context"},
            "Past the length it was trained on, the model with its own rope breaks; each scaling method is a "
            "different answer, measured on the same 16,384 tokens.",
            id="realmodel-long",
        ),
    ),
    deep_link=DeepLink({"rm_view": "Heads", "rm_layer": 5, "rm_head": 2}, slider="rm_head", chart=1),
    bench=BenchSettings(max_query={"rm_view": "Change the rope", "rm_length": "2048"}, slider=None),
)
