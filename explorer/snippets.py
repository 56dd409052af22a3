"""Reproduce a page's numbers in Python: one pure function per page, values -> a script using posenc.

Every snippet is complete (imports included), uses only numpy, posenc (and posenc.torch on the
home page), and prints the numbers the page shows. Values are written with ``repr`` (floats
round-trip exactly); the only text that can come from a user are the home page's words, which
``posenc.attention.tokenize`` has reduced to letters, digits, ``'`` and ``-``, written as Python
string literals. tests/test_snippets.py runs every snippet and compares its variables with the
numbers the page shows.

    SNIPPETS[page](values) -> str

Pages and the values they pass (explorer.exports.page_footer):

    home        words, dim, seed, shuffle_seed, pe
    sinusoidal  seq_len, d_model, base, layout, zoom_p0, zoom_np, zoom_d0, zoom_nd
    clocks      d_model, base, p, n_clocks
    rope        q, k (the 2-D pair), m, n, j, head_dim, base, layout
    invariance  q, k, seed, n_pos, shift_t, dtype, base, layout_sin, table_len
    extension   block (the rope block used), head_dim, train_len, target_len
    compare     dim, trained_len, test_len, seed, base, alibi_head
    configs     head_dim, base, alpha; optional block and max_position_embeddings (parsed config)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from string import Template
from typing import Any

import numpy as np

HEADER = "import numpy as np\nimport posenc\n"


def lit(value: Any) -> str:
    """A Python literal for a value: numbers exactly (repr), arrays as np.array([...])."""
    if isinstance(value, np.ndarray):
        return "np.array([" + ", ".join(lit(v) for v in value.tolist()) + "])"
    if isinstance(value, (np.floating, float)):
        return repr(float(value))
    if isinstance(value, (np.integer,)):
        return repr(int(value))
    if isinstance(value, (list, tuple)):
        inner = ", ".join(lit(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner}{',' if len(value) == 1 else ''})"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{lit(k)}: {lit(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (bool, int, str)) or value is None:
        return repr(value)
    raise TypeError(f"no literal for {type(value).__name__}")


def _fill(template: str, **values: Any) -> str:
    return Template(template).substitute({k: lit(v) for k, v in values.items()})


# ------------------------------------------------------------------------------------ pages
def home_snippet(v: Mapping[str, Any]) -> str:
    pe = v["pe"]
    lines = [
        "import posenc",
        "import posenc.torch as pt  # needs torch",
        "from posenc import attention as att",
        "",
        _fill("words = $words", words=list(v["words"])),
        _fill(
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
        f"    weights[name], outputs[name] = pt.attention_head(x, w_q, w_k, w_v, pe={pe_arg}, rope_inv_freq={rope_arg})",
        "output_gap = att.permutation_equivariance_gap(outputs['original'], outputs['shuffled'], perm)",
        "weight_gap = att.permutation_equivariance_gap(weights['original'], weights['shuffled'], perm, axes=(0, 1))",
        "print(f'output difference {output_gap:.3g}, attention difference {weight_gap:.3g}')",
    ]
    return "\n".join(lines) + "\n"


def sinusoidal_snippet(v: Mapping[str, Any]) -> str:
    return HEADER + _fill(
        """
seq_len, d_model, base, layout = $seq_len, $d_model, $base, $layout
wavelengths = posenc.wavelengths(d_model, base=base)  # tokens per turn of each (sin, cos) pair
# The zoom window: exact values PE(p, i) for p0 <= p < p_end, d0 <= i < d_end
p0, p_end, d0, d_end = $p0, $p_end, $d0, $d_end
window = posenc.sinusoidal_encoding(np.arange(p0, p_end), d_model, base=base, layout=layout)[:, d0:d_end]
# ||PE(p) - PE(p + k)|| depends only on the offset k: the closest two distinct positions
k = np.arange(1, seq_len)
if k.size:
    distance = posenc.distance_by_offset(k, d_model, base=base)
    print(f"closest two distinct positions: {distance.min():.4g} apart, k = {k[distance.argmin()]}")
print(f"wavelengths {wavelengths[0]:.4g} ... {wavelengths[-1]:,.0f} tokens; window {window.shape}")
""",
        seq_len=int(v["seq_len"]),
        d_model=int(v["d_model"]),
        base=float(v["base"]),
        layout=v["layout"],
        p0=int(v["zoom_p0"]),
        p_end=int(min(v["zoom_p0"] + v["zoom_np"], v["seq_len"])),
        d0=int(v["zoom_d0"]),
        d_end=int(min(v["zoom_d0"] + v["zoom_nd"], v["d_model"])),
    )


def clocks_snippet(v: Mapping[str, Any]) -> str:
    return HEADER + _fill(
        """
d_model, base, p, n_clocks = $d_model, $base, $p, $n_clocks
theta = posenc.inverse_frequencies(d_model, base=base)  # radians per token, one per pair j
wavelengths = posenc.wavelengths(d_model, base=base)    # tokens per turn
angle = posenc.rope_angles([p], theta)[0]                # p * theta_j
row = posenc.sinusoidal_encoding([p], d_model, base=base, layout="interleaved")[0]
sin, cos = row[0::2], row[1::2]                          # each hand's tip (x, y)
n_pairs = d_model // 2
pairs = (np.arange(n_pairs) if n_clocks >= n_pairs else np.array([0]) if n_clocks == 1
         else np.unique(np.rint(np.linspace(0, n_pairs - 1, n_clocks)).astype(int)))
for j in pairs:
    print(f"j={j:3d}  theta={theta[j]:.6g}  lambda={wavelengths[j]:.6g}  angle={angle[j]:.6g}  "
          f"sin={sin[j]:+.5f}  cos={cos[j]:+.5f}")
""",
        d_model=int(v["d_model"]),
        base=float(v["base"]),
        p=int(v["p"]),
        n_clocks=int(v["n_clocks"]),
    )


def rope_snippet(v: Mapping[str, Any]) -> str:
    return HEADER + _fill(
        """
head_dim, base, layout = $head_dim, $base, $layout
m, n, j = $m, $n, $j
q = $q  # pair j of the query
k = $k  # pair j of the key
theta = posenc.inverse_frequencies(head_dim, base=base)[j]  # radians per position for pair j
q_rot = posenc.apply_rope(q[None, :], [m], inv_freq=[theta])[0]
k_rot = posenc.apply_rope(k[None, :], [n], inv_freq=[theta])[0]
angles = posenc.pair_angles(q, k, m, n, theta)  # before, offset (m - n)*theta, predicted, measured
score = posenc.rope_score_matrix(q, k, [m], [n], inv_freq=[theta])[0, 0]          # <R_m q, R_n k>
score_rel = posenc.rope_score_matrix(q, k, [0], [n - m], inv_freq=[theta])[0, 0]  # <q, R_(n-m) k>
R = posenc.rope_matrix(m, head_dim, base=base, layout=layout)  # the whole head's d x d rotation
print(f"theta_j = {theta:.6g}, score {score:.6f} = {score_rel:.6f}")
print(f"angle before {np.degrees(angles.before):.2f} deg, measured after {np.degrees(angles.measured):.2f} deg")
""",
        head_dim=int(v["head_dim"]),
        base=float(v["base"]),
        layout=v["layout"],
        m=int(v["m"]),
        n=int(v["n"]),
        j=int(v["j"]),
        q=np.asarray(v["q"], dtype=np.float64),
        k=np.asarray(v["k"], dtype=np.float64),
    )


def invariance_snippet(v: Mapping[str, Any]) -> str:
    q = np.asarray(v["q"], dtype=np.float64)
    k = np.asarray(v["k"], dtype=np.float64)
    seed = int(v["seed"])
    seeded_q, seeded_k = np.random.default_rng(seed).normal(0.0, 1.0, size=(2, q.size))
    if np.array_equal(q, seeded_q) and np.array_equal(k, seeded_k):
        vectors = _fill("q, k = posenc.seeded_normal((2, $d), seed=seed)  # random q and k", d=int(q.size))
    else:
        vectors = _fill("q = $q\nk = $k", q=q, k=k)
    return (
        HEADER
        + _fill(
            """
seed, n_pos, t = $seed, $n_pos, $t
dtype, base, layout_sin, table_len = $dtype, $base, $layout_sin, $table_len
""",
            seed=seed,
            n_pos=int(v["n_pos"]),
            t=int(v["shift_t"]),
            dtype=v["dtype"],
            base=float(v["base"]),
            layout_sin=v["layout_sin"],
            table_len=int(v["table_len"]),
        )
        + vectors
        + """
d = q.size
w_q, w_k = posenc.seeded_normal((2, d, d), seed=seed + 1, std=d ** -0.5)  # seeded projections
table = posenc.learned_table(table_len, d, seed=seed + 2, std=0.5 ** 0.5)


def rope(p):
    return posenc.rope_score_matrix(q, k, p, p, base=base, dtype=dtype)


def sinusoidal(p):
    pe = posenc.sinusoidal_encoding(p, d, base=base, layout=layout_sin)
    return posenc.additive_score_matrix(q, k, pe, w_q, w_k)


def learned(p):
    return posenc.additive_score_matrix(q, k, posenc.learned_lookup(table, p), w_q, w_k)


tolerance = posenc.rope_shift_tolerance(q, k, n_pos - 1 + t, dtype=dtype)
rope_dev = posenc.shift_deviation(rope, n_pos, t)  # max |s(m, n) - s(m + t, n + t)|
sinusoidal_dev = posenc.shift_deviation(sinusoidal, n_pos, t)
try:
    learned_dev = posenc.shift_deviation(learned, n_pos, t)
except ValueError as err:  # the table has no row for a shifted position
    learned_dev = None
    print("learned table:", err)
print(f"RoPE {rope_dev:.2e}, sinusoidal {sinusoidal_dev:.2e}, learned {learned_dev}, pass mark {tolerance:.1e}")
"""
    )


def extension_snippet(v: Mapping[str, Any]) -> str:
    return HEADER + _fill(
        """
block = $block  # the rope block, as in a config.json
head_dim, trained, target = $head_dim, $train_len, $target_len  # d, L, T
theta, _ = posenc.rope_inverse_frequencies({"rope_type": "default", "rope_theta": block["rope_theta"]},
                                           head_dim, max_position_embeddings=trained)
scaled, attention_factor = posenc.rope_inverse_frequencies(block, head_dim, max_position_embeddings=trained,
                                                           seq_len=target)
ood = posenc.out_of_distribution_pairs(theta, scaled, trained_length=trained, target_length=target)
print(f"attention factor {attention_factor:.4f} (logits x {attention_factor ** 2:.4f}); "
      f"{int(ood.sum())} of {ood.size} pairs out of distribution at T = {target:,}")
print("wavelengths before:", np.round(2 * np.pi / theta, 1))
print("wavelengths after: ", np.round(2 * np.pi / scaled, 1))
""",
        block=dict(v["block"]),
        head_dim=int(v["head_dim"]),
        train_len=int(v["train_len"]),
        target_len=int(v["target_len"]),
    )


def compare_snippet(v: Mapping[str, Any]) -> str:
    return HEADER + _fill(
        """from posenc import attention as att

dim, trained_len, test_len, seed, base, alibi_head = $dim, $trained_len, $test_len, $seed, $base, $alibi_head
slope = float(posenc.alibi_slopes(8)[alibi_head - 1])
checks = {method: att.method_checks(method, dim=dim, trained_len=trained_len, test_len=test_len, seed=seed,
                                    base=base, alibi_slope=slope)
          for method in att.METHODS}
for method, c in checks.items():
    print(f"{method:10s} shift deviation {c['shift_deviation']:.3g}  shuffle gap {c['permutation_gap']:.3g}  "
          f"parameters {c['parameters']}  beyond L: {c['extrapolation_error'] or 'runs'}")
""",
        dim=int(v["dim"]),
        trained_len=int(v["trained_len"]),
        test_len=int(v["test_len"]),
        seed=int(v["seed"]),
        base=float(v["base"]),
        alibi_head=int(v["alibi_head"]),
    )


def configs_snippet(v: Mapping[str, Any]) -> str:
    text = HEADER + _fill(
        """
head_dim, base, alpha = $head_dim, $base, $alpha
new_base = posenc.ntk_alpha_to_base(alpha, head_dim, base=base)  # b' = b * alpha^(d / (d - 2))
assert np.isclose(posenc.base_to_ntk_alpha(new_base, head_dim, base=base), alpha)
theta = posenc.inverse_frequencies(head_dim, base=base)
wavelength = 2 * np.pi / theta                                            # as trained
wavelength_ntk = 2 * np.pi / posenc.inverse_frequencies(head_dim, base=new_base)  # NTK-aware
wavelength_linear = wavelength * alpha                                    # linear (PI), factor alpha
print(f"NTK alpha {alpha:g} = rope_theta {new_base:,.2f}")
print(f"slowest pair: {wavelength[-1]:,.0f} -> NTK {wavelength_ntk[-1]:,.0f}, linear {wavelength_linear[-1]:,.0f} tokens")
print(f"fastest pair: {wavelength[0]:.3f} -> NTK {wavelength_ntk[0]:.3f}, linear {wavelength_linear[0]:.3f} tokens")
""",
        head_dim=int(v["head_dim"]),
        base=float(v["base"]),
        alpha=float(v["alpha"]),
    )
    if v.get("block") is not None:
        text += _fill(
            """
# The pasted config's rope block (as posenc.parse_model_config normalised it)
block = $block
inv_freq, attention_factor = posenc.rope_inverse_frequencies(block, $config_head_dim,
                                                             max_position_embeddings=$max_pos)
print(f"config: {inv_freq.size} pairs, attention factor {attention_factor:.4f}")
""",
            block=dict(v["block"]),
            config_head_dim=int(v["config_head_dim"]),
            max_pos=int(v["max_position_embeddings"]),
        )
    return text


SNIPPETS: Mapping[str, Callable[[Mapping[str, Any]], str]] = {
    "home": home_snippet,
    "sinusoidal": sinusoidal_snippet,
    "clocks": clocks_snippet,
    "rope": rope_snippet,
    "invariance": invariance_snippet,
    "extension": extension_snippet,
    "compare": compare_snippet,
    "configs": configs_snippet,
}


def snippet(page: str, values: Mapping[str, Any]) -> str:
    """The snippet of `page` (a key of `SNIPPETS`) for these values."""
    try:
        build = SNIPPETS[page]
    except KeyError:
        raise ValueError(f"page must be one of {', '.join(SNIPPETS)}, got {page!r}") from None
    return build(values)
