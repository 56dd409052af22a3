"""The Extrapolation lab page (pages/6_Extrapolation_lab.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.snippets import fill
from explorer.text.lab import BETA_FAST_DEFAULT
from posenc.lab import ENCODINGS, NEWER, PRESET_LEFT_OUT
from posenc.methods import ROPE_METHODS
from posenc.models import PRESETS, preset_config

TASKS = ("markov", "kback", "copy", "passkey")
TRAIN_TASKS = ("markov", "kback", "flipflop")
#: The Train tab's sets: the five, each alone, two classic pairs, and RoPE with the newer six (issue #39), each
#: newer one beside RoPE
ENCODING_SETS = (
    "all five",
    *ENCODINGS,
    "rope, alibi",
    "rope, sinusoidal, learned",
    ", ".join(("rope", *NEWER)),
    *(f"rope, {m}" for m in NEWER),
)
#: rope_types of posenc's registry the panel leaves out for the tiny model, and why (shown in its help).
EXT_LEFT_OUT = {
    "longrope": "LongRoPE needs one searched factor per rotated pair for a given model (Phi-3's lists have 48); "
    "the tiny model has none of its own",
    "proportional": "p-RoPE is chosen at training time (only a fraction of the pairs rotate); applied to a model "
    "trained with every pair rotating it only removes position from most pairs",
}
EXT_TYPES = tuple(name for name in ROPE_METHODS if name not in EXT_LEFT_OUT)
#: Real models whose scaling recipe can be applied to the tiny RoPE model (posenc.lab.preset_method).
RECIPES = tuple(k for k, p in PRESETS.items() if p.rope_type not in PRESET_LEFT_OUT)
RECIPE_LABELS = {"none": "none (the settings above)", **{k: PRESETS[k].name for k in RECIPES}}
MAX_LAYERS = max(
    (len(c.layer_plans) for k in RECIPES if (c := preset_config(PRESETS[k])) is not None and c.layer_plans), default=1
)
LENGTHS = (64, 128, 256, 512)


def snippet(v: Mapping[str, Any]) -> str:
    beta = float(v.get("beta_fast", BETA_FAST_DEFAULT))
    methods = ["rope", "alibi", f"rope+yarn:beta_fast={beta:g}"]
    recipe = v.get("model")
    return fill(
        """
from posenc import lab
from posenc.lab import evaluation, experiment, model

task = $task
# The shipped results this page shows (made by the command below, recorded in the file):
shipped = lab.load_shipped()
entry = shipped["tasks"][task]
print(entry.get("command", shipped["command"]), "·", entry.get("date", shipped["date"]))
runs = entry["runs"]  # {method: {seed: {length: value or None}}}, each seed on its own evaluation sample
scored = entry["scored"]  # {method: {seed: {length: scored tokens}}}: an accuracy's trials


def interval(method, seeds, n):  # mean [95 % interval] over seeds; an accuracy's stays in [0, 1]
    return lab.seed_interval(entry["metric"], [per[n] for per in seeds.values()], [scored[method][s][n] for s in seeds])


for method, seeds in runs.items():
    ci = {n: interval(method, seeds, n) for n in seeds["0"]}
    print(f"{method:>28}", "learned" if entry["learned"][method] else "DID NOT LEARN",
          {n: c and c.text() for n, c in ci.items()})  # mean [95 % interval] over seeds
print("references:", lab.references(task))

# The Extension panel's real-model recipe (None: none chosen) on the shipped seed-0 RoPE model:
recipe, layer = $recipe, $layer
if recipe is not None:
    spec = lab.preset_method(recipe, layer)
    print(spec.rope_block(512, 64))  # the block used at 512 tokens, L = 64
    print(evaluation.evaluate_method(model.shipped_model(task, "rope"), spec, [64, 128, 256, 512], tokens=2048))

# Train and evaluate seed 0 again as shipped (seeded: the shipped seed-0 numbers of every method above that the
# file holds; "until_learned": trained until a held-out check says learned, the steps being a cap; ≈10 s–3 min
# per model on an idle core):
RETRAIN = False
if RETRAIN:
    out = experiment.run_experiment(
        task, $methods, train_len=64, seed=0, steps=entry["steps"], eval_lens=[64, 128, 256, 512],
        until_learned=entry.get("until_learned", False),
    )
    print(out["results"], out["learned"], out["trained"])
    # the same from a shell:
    # python -m posenc.lab --task $task --methods $methods_shell --steps <steps> [--until-learned] --out results.json
""",
        task=str(v["task"]),
        methods=methods,
        methods_shell=",".join(methods),
        recipe=None if recipe in (None, "none") else str(recipe),
        layer=None if v.get("layer") is None else int(v["layer"]),
    )


PAGE = Page(
    script="pages/6_Extrapolation_lab.py",
    slug="lab",
    title="Extrapolation lab",
    icon=":material/science:",
    params=(
        Param(
            "lab_task",
            "Task",
            "radio",
            "markov",
            options=TASKS,
            help="markov: predict the next token of an order-2 Markov chain (loss above the exact optimum, "
            "lower is better). kback: name the token 3 positions back (accuracy). copy: repeat a first part of "
            "random length after a separator (accuracy). passkey: name the key hidden behind a marker in random "
            "filler, asked for at the end (accuracy; the RoPE model and its scalings only).",
        ),
        Param(
            "lab_view", "View", "tabs", "Length", options=("Length", "Per position", "Extension", "Attention", "Train")
        ),
        Param(
            "lab_ext",
            "Scaling at evaluation",
            "select",
            "yarn",
            options=EXT_TYPES,
            help="A key of posenc.ROPE_SCALING, applied to the trained RoPE model (no retraining). Left out: "
            + "; ".join(f"{k} ({why})" for k, why in EXT_LEFT_OUT.items())
            + ". llama3 uses low_freq_factor and high_freq_factor at their declared defaults.",
        ),
        Param(
            "lab_model",
            "Or a real model's recipe",
            "select",
            "none",
            options=("none", *RECIPES),
            labels=RECIPE_LABELS,
            help="Apply a published model's rope_type and scaling parameters (its own factor) to the tiny RoPE "
            "model, with the lab's training length as original_max_position_embeddings, the tiny model's head "
            "dim and its base. Left out: "
            + "; ".join(f"{k} models ({why})" for k, why in PRESET_LEFT_OUT.items())
            + ".",
        ),
        Param(
            "lab_layer",
            "Decoder layer of that model",
            "int_slider",
            0,
            min=0,
            max=MAX_LAYERS - 1,
            help="For a model whose layers use different ropes (Gemma 3, Llama 4, SmolLM3): whose recipe to apply.",
        ),
        Param("lab_factor", "Factor s (0 = length / L)", "float_slider", 0.0, min=0.0, max=16.0, step=0.5),
        Param(
            "lab_beta",
            "YaRN β_fast",
            "float_slider",
            BETA_FAST_DEFAULT,
            min=2.0,
            max=64.0,
            step=1.0,
            help=f"Pairs with more than β_fast turns over L are kept; YaRN's default is {BETA_FAST_DEFAULT:g}.",
        ),
        Param(
            "lab_af",
            "Attention factor",
            "toggle",
            True,
            help="Multiply cos and sin by the method's attention factor (YaRN: 0.1·ln s + 1).",
        ),
        Param("lab_enc", "Encoding", "select", "rope", options=ENCODINGS),
        Param("lab_len", "Length", "select_slider", 256, options=LENGTHS),
        Param("lab_head", "Head (layer·4 + head)", "int_slider", 0, min=0, max=7),
        Param("lab_ttask", "Task", "radio", "markov", options=TRAIN_TASKS),
        Param("lab_encs", "Encodings", "select", "all five", options=ENCODING_SETS),
        Param("lab_steps", "Steps", "int_slider", 300, min=20, max=600, step=10),
        Param("lab_tlen", "Training length L", "select_slider", 64, options=(16, 32, 64, 128)),
        Param("lab_width", "Model width d", "select_slider", 64, options=(32, 64, 96, 128)),
        Param("lab_seed", "Seed", "int_slider", 0, min=0, max=9),
    ),
    snippet=snippet,
    tour=(
        Step(
            {"lab_task": "markov", "lab_view": "Length"},
            "Five tiny models, one per encoding, trained on 64 tokens and run on up to 512: means over seeds with 95 % "
            "bands. The learned table has no rows past 64; a dashed, faint line did not learn the task, so it shows "
            "nothing about length.",
        ),
        Step(
            {"lab_task": "markov", "lab_view": "Per position"},
            "Along one long sequence: each model's loss above the optimum, in bins of positions, with 95 % bands. "
            "Where a band leaves the model's level at L, that encoding stops working.",
        ),
        Step(
            {"lab_task": "markov", "lab_view": "Extension", "lab_ext": "yarn", "lab_beta": 2.0},
            "The RoPE model, re-evaluated with a context-extension method and no retraining: move the method, the "
            "factor and YaRN's β and watch the curve past 64 tokens.",
        ),
    ),
    deep_link=DeepLink(
        # no lab_enc: the default encoding, RoPE, which learned kback (tests/test_text_lab.py)
        {"lab_task": "kback", "lab_view": "Attention", "lab_head": 5},
        slider="lab_head",
        chart=0,
    ),
    # no interaction timing: the lab opens on its shipped results, with no slider on its first view
    bench=BenchSettings(max_query={"lab_task": "markov", "lab_view": "Attention", "lab_len": "512"}, slider=None),
)
