"""The Newer encodings page (pages/11_Newer_encodings.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.snippets import fill
from explorer.text.newer import ARENA_ORDER, VIEWS
from posenc.lab import NEWER


def snippet(v: Mapping[str, Any]) -> str:
    return fill(
        """
from posenc import lab
from posenc.lab import model

shipped = lab.load_shipped()  # data/lab/results.json, made by `python -m posenc.lab ship`
past = $past  # True: positions past L only
for task in $tasks:
    entry = shipped["tasks"][task]
    runs = entry["beyond"] if past else entry["runs"]  # {method: {seed: {length: value}}}
    for method in ("rope", "nope", "alibi", *lab.NEWER):
        if method not in runs:
            continue
        seeds = runs[method]
        scored = None if past else [[entry["scored"][method][s][n] for s in seeds] for n in seeds["0"]]
        cis = {n: lab.seed_interval(entry["metric"], [seeds[s].get(n) for s in seeds], scored and scored[i])
               for i, n in enumerate(seeds["0"])}
        print(task, f"{method:>7}", "learned" if entry["learned"][method] else "DID NOT LEARN",
              {n: c and c.text() for n, c in cis.items() if c})

# The picture: the shipped seed-0 model of $encoding on $task (weights in data/lab/weights.npz)
tiny = model.shipped_model($task, $encoding)
print(tiny)
# Train one again from a shell (seeded; the shipped settings):
# python -m posenc.lab --task $task --methods rope,$encoding --until-learned --steps 3000 --out run.json
""",
        past=v.get("newer_view") == VIEWS[1],
        tasks=list(ARENA_ORDER),
        encoding=str(v["newer_enc"]),
        task=str(v["newer_task"]),
    )


PAGE = Page(
    script="pages/11_Newer_encodings.py",
    slug="newer",
    title="Newer encodings",
    icon=":material/new_releases:",
    params=(
        Param(
            "newer_view",
            "Numbers over",
            "radio",
            VIEWS[0],
            options=VIEWS,
            help="Every scored token of a sequence, or only the positions past the training length L (where a "
            "model meets positions it never saw).",
        ),
        Param("newer_enc", "Encoding", "select", NEWER[0], options=NEWER),
        Param("newer_task", "Task", "radio", ARENA_ORDER[0], options=ARENA_ORDER),
        Param(
            "newer_len",
            "Sequence length",
            "int_slider",
            32,
            min=8,
            max=128,
            step=8,
            help="The one evaluation sequence the picture runs the shipped seed-0 model on (CoPE, PaTH, hybrid).",
        ),
        Param("newer_head", "Head (layer·4 + head)", "int_slider", 0, min=0, max=7),
    ),
    snippet=snippet,
    tour=(
        Step(
            {"newer_view": VIEWS[1], "newer_enc": "path"},
            "Six designs from 2024–26 trained beside RoPE on 64 tokens and run on up to 512: each cell a mean over "
            "seeds with its 95 % interval, greyed where the model did not learn. Under the grid, one design's own "
            "mechanism, drawn from its trained model.",
        ),
    ),
    # the first picture chart: after one grid per arena task
    deep_link=DeepLink(
        {"newer_enc": "hybrid", "newer_task": "kback", "newer_head": 1, "newer_len": 40},
        slider="newer_len",
        chart=len(ARENA_ORDER),
    ),
    bench=BenchSettings(
        max_query={"newer_enc": "cope", "newer_len": "128", "newer_head": "7", "newer_view": VIEWS[1]},
        slider="newer_len",
        slider_chart=len(ARENA_ORDER),
    ),
)
