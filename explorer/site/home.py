"""The Why position matters page (app.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.paramspec import Param
from explorer.snippets import fill, ints

#: The most words the head reads, and the learned table's length: the toy model was "trained" on
#: this many positions.
MAX_TOKENS = 24


def snippet(v: Mapping[str, Any]) -> str:
    return fill(
        """from posenc import attention as att

words = $words
dim, seed, shuffle_seed = $dim, $seed, $shuffle_seed
# the head on the sentence and on its shuffle: seeded W_q, W_k, W_v, one vector per word, position signal $pe
result = att.shuffle_experiment(words, dim, seed=seed, shuffle_seed=shuffle_seed, pe=$pe, max_tokens=$max_tokens)
output_gap, weight_gap = result["output_gap"], result["weight_gap"]  # |Y(PX) - P Y(X)|, |A(PX) - P A(X) P^T|
print(f"output difference {output_gap:.3g}, attention difference {weight_gap:.3g}")
""",
        words=list(v["words"]),
        **ints(v, "dim", "seed", "shuffle_seed"),
        pe=v["pe"],
        max_tokens=MAX_TOKENS,
    )


PAGE = Page(
    script="app.py",
    slug="home",
    title="Why position matters",
    icon=":material/home:",
    params=(
        Param(
            "sentence",
            "Your sentence",
            "text",
            "the cat sat on the mat",
            max=300,
            help=f"Words separated by spaces (at most {MAX_TOKENS} are used). Each word gets a fixed random "
            "vector, the same wherever it stands.",
        ),
        Param(
            "shuffle_seed",
            "Shuffle seed",
            "number",
            0,
            min=0,
            max=9999,
            help="Which random shuffle of the words to compare against.",
        ),
        Param(
            "home_pe",
            "Position signal",
            "segmented",
            "none",
            options=("none", "sinusoidal", "learned", "rope"),
            help="**none**: the head sees only the words. **sinusoidal** / **learned**: a position "
            "vector is added to each word's vector. **rope**: queries and keys are rotated by position.",
        ),
    ),
    snippet=snippet,
    tour=(
        Step(
            {"home_pe": "none"},
            "Attention without a causal mask cannot see word order: shuffle the sentence and every word gets exactly the output it had before, merely listed in a new place.",
        ),
        Step(
            {"home_pe": "sinusoidal"},
            "Add a position signal to the word vectors and the shuffled sentence now gets different outputs: the head finally knows where each word stands.",
        ),
    ),
    deep_link=DeepLink(
        {"sentence": "a dog bit the man", "shuffle_seed": 3, "seed": 7, "d_model": 32, "home_pe": "rope"},
        slider="d_model",
        chart=1,
    ),
    bench=BenchSettings(
        max_query={
            "sentence": "word0 word1 word2 word3 word4 word5 word6 word7 word8 word9 word10 word11 word12 word13 word14 word15 word16 word17 word18 word19 word20 word21 word22 word23 word24 word25 word26 word27 word28 word29 word30 word31 word32 word33 word34 word35 word36 word37 word38 word39",
            "d_model": "64",
            "home_pe": "rope",
            "seed": "9999",
            "shuffle_seed": "9999",
        },
        slider="d_model",
        slider_chart=1,
    ),
)
