"""The Why position matters page (app.py): its parameters, snippet, tour steps, deep link and bench settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from explorer.pagespec import BenchSettings, DeepLink, Page, Step
from explorer.param import Param
from explorer.snippets import fill


def snippet(v: Mapping[str, Any]) -> str:
    pe = v["pe"]
    lines = [
        "import posenc",
        "from posenc import attention as att",
        "",
        fill("words = $words", words=list(v["words"])),
        fill(
            "dim, seed, shuffle_seed = $dim, $seed, $shuffle_seed",
            dim=int(v["dim"]),
            seed=int(v["seed"]),
            shuffle_seed=int(v["shuffle_seed"]),
        ),
        "perm = att.shuffle_permutation(words, seed=shuffle_seed)",
        "shuffled = [words[i] for i in perm]",
        "w_q, w_k, w_v = att.seeded_projections(dim, seed=seed)",
    ]
    pe_arg, rope_arg = "None", "None"
    if pe == "sinusoidal":
        lines.append("pe = att.additive_positions('sinusoidal', len(words), dim)  # added to each word vector")
        pe_arg = "pe"
    elif pe == "learned":
        lines += [
            "table = posenc.learned_table(24, dim, seed=seed, std=1.0)  # 24 rows: the toy model's max length",
            "pe = att.additive_positions('learned', len(words), dim, table=table)",
        ]
        pe_arg = "pe"
    elif pe == "rope":
        lines.append("inv_freq = posenc.inverse_frequencies(dim)  # RoPE rotates q and k")
        rope_arg = "inv_freq"
    lines += [
        "weights, outputs = {}, {}",
        "for name, sentence in (('original', words), ('shuffled', shuffled)):",
        "    x = att.token_embeddings(sentence, dim, seed=seed)  # the same vector for the same word",
        f"    weights[name], outputs[name] = att.attention_head(x, w_q, w_k, w_v, pe={pe_arg}, rope_inv_freq={rope_arg})",
        "output_gap = att.permutation_equivariance_gap(outputs['original'], outputs['shuffled'], perm)",
        "weight_gap = att.permutation_equivariance_gap(weights['original'], weights['shuffled'], perm, axes=(0, 1))",
        "print(f'output difference {output_gap:.3g}, attention difference {weight_gap:.3g}')",
    ]
    return "\n".join(lines) + "\n"


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
            help="Words separated by spaces (at most 24 are used). Each word gets a fixed random "
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
