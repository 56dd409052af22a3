"""1. Input sanity (HF's test order): every bad parameter raises ValueError (or TypeError) whose
message names the parameter.  Written against docs/POSENC_API.md only.

Each case is its own parametrised test id so that a failure points at exactly one bad input.
`pytest.raises(..., match=param)` checks the parameter name; a few extra tests check the rest of
the contract's message shape ("names the parameter, the rule and the value it got").
"""

from __future__ import annotations

import copy
import math
from types import MappingProxyType

import numpy as np
import pytest
from _posenc_reference_impl import ref_llama3

import posenc  # parse_vector lives on the package itself
from posenc import learned, precision, relative, rope, scaling, sinusoidal

NAN = float("nan")
INF = float("inf")
BAD_BASES = [1.0, 0.999, 0.0, -10.0, NAN, INF, -INF]

X8 = np.ones((2, 8))  # (seq=2, dim=8)
Q8 = np.arange(8.0)
MAXPOS = 8192
HEAD_DIM = 64


def raises(param: str, exc=ValueError):
    """pytest.raises(exc) whose message must contain `param` (a regex)."""
    return pytest.raises(exc, match=param)


def raises_any(param: str):
    """ValueError or TypeError, message naming `param` (used where either is a fair reading)."""
    return pytest.raises((ValueError, TypeError), match=param)


# ----------------------------------------------------------------------------------------------
# base ≤ 1, NaN, ±inf — every public entry point that takes `base`
# ----------------------------------------------------------------------------------------------

BASE_CALLS = {
    "sinusoidal.inverse_frequencies": lambda b: sinusoidal.inverse_frequencies(8, base=b),
    "sinusoidal.wavelengths": lambda b: sinusoidal.wavelengths(8, base=b),
    "sinusoidal.sinusoidal_encoding": lambda b: sinusoidal.sinusoidal_encoding([0, 1], 8, base=b),
    "sinusoidal.shift_matrix": lambda b: sinusoidal.shift_matrix(1, 8, base=b),
    "sinusoidal.encoding_dot_by_offset": lambda b: sinusoidal.encoding_dot_by_offset([0, 1], 8, base=b),
    "rope.apply_rope": lambda b: rope.apply_rope(X8, [0, 1], base=b),
    "rope.rope_matrix": lambda b: rope.rope_matrix(1, 8, base=b),
    "relative.rope_score_matrix": lambda b: relative.rope_score_matrix(Q8, Q8, [0, 1], [0, 1], base=b),
    "relative.rope_decay_bound": lambda b: relative.rope_decay_bound([0, 1], 8, base=b),
    "scaling.yarn_correction_range": lambda b: scaling.yarn_correction_range(
        64, base=b, original_max_position_embeddings=4096
    ),
    "scaling.ntk_alpha_to_base": lambda b: scaling.ntk_alpha_to_base(2.0, 64, base=b),
}


@pytest.mark.parametrize("bad", BAD_BASES, ids=repr)
@pytest.mark.parametrize("call", BASE_CALLS.values(), ids=BASE_CALLS.keys())
def test_bad_base_is_rejected_and_named(call, bad):
    with raises("base"):
        call(bad)


@pytest.mark.parametrize("bad", BAD_BASES, ids=repr)
def test_bad_rope_theta_in_config_is_rejected_and_named(bad):
    # In a pasted config.json the user's name for the base is `rope_theta`: the message should use it.
    with raises("rope_theta"):
        scaling.rope_inverse_frequencies(
            {"rope_type": "default", "rope_theta": bad}, HEAD_DIM, max_position_embeddings=MAXPOS
        )


# ----------------------------------------------------------------------------------------------
# The message names the rule and the value it got (contract: "base must be a finite number > 1, got 1.0")
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, param, shown",
    [
        (lambda: sinusoidal.inverse_frequencies(8, base=1.0), "base", "1.0"),
        (lambda: sinusoidal.inverse_frequencies(8, base=NAN), "base", "nan"),
        (lambda: sinusoidal.inverse_frequencies(1), "dim", "1"),
        (lambda: rope.apply_rope(X8, [0, 1], rotary_dim=5), "rotary_dim", "5"),
        (
            lambda: scaling.rope_inverse_frequencies(
                {"rope_type": "linear", "factor": -3.5}, HEAD_DIM, max_position_embeddings=MAXPOS
            ),
            "factor",
            "-3.5",
        ),
        (
            lambda: scaling.rope_inverse_frequencies({"rope_type": "bogus"}, HEAD_DIM, max_position_embeddings=MAXPOS),
            "rope_type",
            "bogus",
        ),
    ],
    ids=["base=1.0", "base=nan", "dim=1", "rotary_dim=5", "factor=-3.5", "rope_type=bogus"],
)
def test_message_names_parameter_and_value(call, param, shown):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    message = str(info.value)
    assert param in message, message
    assert shown in message.lower(), f"message does not show the offending value {shown!r}: {message}"


# ----------------------------------------------------------------------------------------------
# d < 2 (and non-integer dims)
# ----------------------------------------------------------------------------------------------

SMALL_DIM_CALLS = {
    "inverse_frequencies(1)": (lambda: sinusoidal.inverse_frequencies(1), "dim"),
    "inverse_frequencies(0)": (lambda: sinusoidal.inverse_frequencies(0), "dim"),
    "inverse_frequencies(-4)": (lambda: sinusoidal.inverse_frequencies(-4), "dim"),
    "wavelengths(1)": (lambda: sinusoidal.wavelengths(1), "dim"),
    "sinusoidal_encoding(d_model=1)": (lambda: sinusoidal.sinusoidal_encoding([0, 1], 1), "d_model"),
    "sinusoidal_encoding(d_model=0)": (lambda: sinusoidal.sinusoidal_encoding([0, 1], 0), "d_model"),
    "shift_matrix(d_model=0)": (lambda: sinusoidal.shift_matrix(1, 0), "d_model"),
    "encoding_dot_by_offset(d_model=0)": (lambda: sinusoidal.encoding_dot_by_offset([1], 0), "d_model"),
    "rope_matrix(dim=0)": (lambda: rope.rope_matrix(1, 0), "dim"),
    "layout_permutation(0)": (lambda: rope.layout_permutation(0), "dim"),
    "pair_indices(0)": (lambda: rope.pair_indices(0), "dim"),
    "rope_decay_bound(dim=0)": (lambda: relative.rope_decay_bound([1], 0), "dim"),
    "learned_table(d_model=0)": (lambda: learned.learned_table(4, 0), "d_model"),
    "rope_inverse_frequencies(head_dim=1)": (
        lambda: scaling.rope_inverse_frequencies({"rope_type": "default"}, 1, max_position_embeddings=MAXPOS),
        "dim",
    ),
}


@pytest.mark.parametrize("call, param", SMALL_DIM_CALLS.values(), ids=SMALL_DIM_CALLS.keys())
def test_dim_below_two_is_rejected_and_named(call, param):
    with raises(param):
        call()


@pytest.mark.parametrize(
    "call, param",
    [
        (lambda: sinusoidal.inverse_frequencies(8.5), "dim"),
        (lambda: sinusoidal.sinusoidal_encoding([0, 1], 7.5), "d_model"),
        (lambda: rope.rope_matrix(1, 6.5), "dim"),
    ],
    ids=["inverse_frequencies(8.5)", "sinusoidal_encoding(d_model=7.5)", "rope_matrix(dim=6.5)"],
)
def test_non_integer_dim_is_rejected_and_named(call, param):
    with raises_any(param):
        call()


# ----------------------------------------------------------------------------------------------
# Odd dims where pairs are required (RoPE, shift matrix, dot-by-offset)
# ----------------------------------------------------------------------------------------------

ODD_DIM_CALLS = {
    "apply_rope(x with dim 7)": (lambda: rope.apply_rope(np.ones((2, 7)), [0, 1]), "dim"),
    "apply_rope(x with dim 7, interleaved)": (
        lambda: rope.apply_rope(np.ones((2, 7)), [0, 1], layout="interleaved"),
        "dim",
    ),
    "apply_rope(x with dim 0)": (lambda: rope.apply_rope(np.ones((2, 0)), [0, 1]), "dim"),
    "rope_matrix(dim=7)": (lambda: rope.rope_matrix(1, 7), "dim"),
    "layout_permutation(7)": (lambda: rope.layout_permutation(7), "dim"),
    "pair_indices(7)": (lambda: rope.pair_indices(7), "dim"),
    "rope_score_matrix(q, k of dim 7)": (
        lambda: relative.rope_score_matrix(np.ones(7), np.ones(7), [0], [0]),
        "dim",
    ),
    "shift_matrix(d_model=7)": (lambda: sinusoidal.shift_matrix(1, 7), "d_model"),
    "encoding_dot_by_offset(d_model=7)": (lambda: sinusoidal.encoding_dot_by_offset([1], 7), "d_model"),
}


@pytest.mark.parametrize("call, param", ODD_DIM_CALLS.values(), ids=ODD_DIM_CALLS.keys())
def test_odd_dim_is_rejected_where_pairs_are_needed(call, param):
    with raises(param):
        call()


# ----------------------------------------------------------------------------------------------
# rotary_dim, inv_freq, partial_rotary_factor
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [5, 10, -2, 7.0], ids=["odd", "greater-than-dim", "negative", "odd-float"])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_bad_rotary_dim_is_rejected_and_named(bad, layout):
    with raises_any("rotary_dim"):
        rope.apply_rope(X8, [0, 1], rotary_dim=bad, layout=layout)


@pytest.mark.parametrize(
    "kwargs",
    [{"inv_freq": np.ones(3)}, {"inv_freq": np.ones(4), "rotary_dim": 4}],
    ids=["3-for-dim-8", "4-for-rotary-dim-4"],
)
def test_inv_freq_of_wrong_length_is_rejected_and_named(kwargs):
    with raises("inv_freq"):
        rope.apply_rope(X8, [0, 1], **kwargs)


def test_inv_freq_with_nan_is_rejected_and_named():
    with raises("inv_freq"):
        rope.apply_rope(X8, [0, 1], inv_freq=np.array([1.0, NAN, 0.1, 0.01]))


@pytest.mark.parametrize("factor", [0.3, 0.01, 0.0, -0.5], ids=["odd-dim-19", "dim-0", "zero", "negative"])
def test_bad_partial_rotary_dim_is_rejected_and_named(factor):
    with raises("partial_rotary_factor|head_dim"):
        rope.partial_rotary_dim(64, factor)


@pytest.mark.parametrize("prf", [0.0, -0.5, 1.5, 0.3, NAN], ids=["zero", "negative", "above-1", "odd-dim", "nan"])
def test_bad_partial_rotary_factor_in_config_is_rejected_and_named(prf):
    with raises("partial_rotary_factor"):
        scaling.rope_inverse_frequencies(
            {"rope_type": "default", "partial_rotary_factor": prf}, HEAD_DIM, max_position_embeddings=MAXPOS
        )


# ----------------------------------------------------------------------------------------------
# Scaling configs: factor, rope_type, required keys, lists, betas, llama3 factors
# ----------------------------------------------------------------------------------------------


def valid_params(rope_type: str) -> dict:
    """A complete, valid config block for each registry method (head_dim 64, max_pos 8192)."""
    return {
        "default": {"rope_type": "default"},
        "linear": {"rope_type": "linear", "factor": 2.0},
        "ntk": {"rope_type": "ntk", "factor": 2.0},
        "dynamic": {"rope_type": "dynamic", "factor": 2.0},
        "yarn": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048},
        "llama3": {
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "original_max_position_embeddings": 1024,
        },
        "longrope": {
            "rope_type": "longrope",
            "factor": 4.0,
            "original_max_position_embeddings": 2048,
            "short_factor": [1.0 + 0.01 * j for j in range(HEAD_DIM // 2)],
            "long_factor": [1.0 + 0.5 * j for j in range(HEAD_DIM // 2)],
        },
    }[rope_type]


def call_config(params, head_dim=HEAD_DIM, seq_len=None):
    return scaling.rope_inverse_frequencies(params, head_dim, max_position_embeddings=MAXPOS, seq_len=seq_len)


ALL_TYPES = ["default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope"]
FACTOR_TYPES = ["linear", "ntk", "dynamic", "yarn", "llama3", "longrope"]


@pytest.mark.parametrize("rope_type", ALL_TYPES)
def test_valid_configs_are_accepted(rope_type):
    # Guard for the negative tests below: each starts from one of these and breaks exactly one field.
    inv, af = call_config(valid_params(rope_type))
    assert np.shape(inv) == (HEAD_DIM // 2,)
    assert np.all(np.isfinite(inv)) and np.isfinite(af)


@pytest.mark.parametrize("bad", [0.0, -1.0, NAN], ids=["zero", "negative", "nan"])
@pytest.mark.parametrize("rope_type", FACTOR_TYPES)
def test_bad_factor_is_rejected_and_named(rope_type, bad):
    params = valid_params(rope_type)
    params["factor"] = bad
    with raises("factor"):
        call_config(params)


@pytest.mark.parametrize("bad", ["bogus", "Linear", "", "su"])
def test_unknown_rope_type_is_rejected_and_named(bad):
    with raises("rope_type"):
        call_config({"rope_type": bad, "factor": 2.0})


def test_unknown_legacy_type_key_is_rejected_and_named():
    with raises("type"):
        call_config({"type": "bogus", "factor": 2.0})


MISSING_KEYS = [
    ("linear", "factor"),
    ("ntk", "factor"),
    ("dynamic", "factor"),
    ("yarn", "factor"),
    ("llama3", "factor"),
    ("llama3", "low_freq_factor"),
    ("llama3", "high_freq_factor"),
    ("longrope", "short_factor"),
    ("longrope", "long_factor"),
]


@pytest.mark.parametrize("rope_type, key", MISSING_KEYS, ids=[f"{t}-without-{k}" for t, k in MISSING_KEYS])
def test_missing_required_key_is_rejected_and_named(rope_type, key):
    params = valid_params(rope_type)
    del params[key]
    # A KeyError would not do: the contract asks for ValueError/TypeError naming the key.
    with raises_any(key):
        call_config(params)


@pytest.mark.parametrize("which", ["short_factor", "long_factor"])
@pytest.mark.parametrize("length", [HEAD_DIM // 2 - 1, HEAD_DIM // 2 + 1, 0])
def test_longrope_factor_list_of_wrong_length_is_rejected_and_named(which, length):
    params = valid_params("longrope")
    params[which] = [1.0] * length
    with raises(which):
        call_config(params, seq_len=MAXPOS)


def test_longrope_lists_must_match_partial_rotary_dim():
    # partial_rotary_factor 0.5 → rotary dim 32 → 16 pairs; lists of 32 entries are wrong.
    params = valid_params("longrope")
    params["partial_rotary_factor"] = 0.5
    with raises("short_factor|long_factor"):
        call_config(params)


# HF transformers 5.23 only warns when beta_fast < beta_slow (_validate_yarn_rope_parameters) and computes:
# find_correction_range(beta_fast, beta_slow, ...) = (max(floor(cd(fast)), 0), min(ceil(cd(slow)), dim - 1)),
# cd(r) = dim·ln(L/(2πr)) / (2 ln base). The numbers are tested in tests/test_layers.py (ref_yarn).
@pytest.mark.parametrize("fast, slow", [(1.0, 32.0), (4.0, 4.0)], ids=["fast<slow", "fast==slow"])
def test_yarn_beta_fast_not_above_beta_slow_is_computed(fast, slow):
    params = valid_params("yarn") | {"beta_fast": fast, "beta_slow": slow}
    inv, _ = call_config(params)
    assert np.all(np.isfinite(inv))


@pytest.mark.parametrize("fast, slow", [(1.0, 32.0), (4.0, 4.0)], ids=["fast<slow", "fast==slow"])
def test_yarn_correction_range_beta_fast_not_above_beta_slow_is_hfs(fast, slow):
    def cd(r):
        return 64 * math.log(4096 / (r * 2 * math.pi)) / (2 * math.log(1e4))

    expected = (max(math.floor(cd(fast)), 0), min(math.ceil(cd(slow)), 63))
    got = scaling.yarn_correction_range(
        64, base=1e4, original_max_position_embeddings=4096, beta_fast=fast, beta_slow=slow
    )
    assert got == expected


@pytest.mark.parametrize("low, high", [(4.0, 1.0), (1.0, 1.0)], ids=["high<low", "high==low"])
def test_llama3_high_freq_factor_not_above_low_computes_as_hf_does(low, high):
    # HF only logs a warning when high_freq_factor <= low_freq_factor and computes on; Llama 4 Scout
    # ships low = high = 1 (meta-llama/Llama-4-Scout-17B-16E config.json)
    params = valid_params("llama3") | {"low_freq_factor": low, "high_freq_factor": high}
    inv, af = call_config(params)
    ref, ref_af, _ = ref_llama3(
        HEAD_DIM, 10000.0, params["factor"], low, high, params["original_max_position_embeddings"]
    )
    np.testing.assert_allclose(inv, ref, rtol=1e-12)
    assert af == ref_af


@pytest.mark.parametrize("low, high", [(4.0, 1.0), (1.0, 1.0)], ids=["high<low", "high==low"])
def test_llama3_bands_with_high_freq_factor_not_above_low_follow_hf(low, high):
    inv = sinusoidal.inverse_frequencies(64, base=5e5)
    bands = scaling.llama3_bands(
        inv, factor=8.0, low_freq_factor=low, high_freq_factor=high, original_max_position_embeddings=8192
    )
    _, _, ref = ref_llama3(64, 5e5, 8.0, low, high, 8192)
    assert list(bands) == ref
    assert "smoothed" not in ref  # no pair lies between the two wavelengths when high <= low


@pytest.mark.parametrize("rope_type", ["yarn", "llama3", "longrope"])
@pytest.mark.parametrize("bad", [0, -4096], ids=["zero", "negative"])
def test_bad_original_max_position_embeddings_is_rejected_and_named(rope_type, bad):
    params = valid_params(rope_type) | {"original_max_position_embeddings": bad}
    with raises("original_max_position_embeddings"):
        call_config(params)


@pytest.mark.parametrize("bad", [0, -1])
def test_bad_max_position_embeddings_is_rejected_and_named(bad):
    with raises("max_position_embeddings"):
        scaling.rope_inverse_frequencies(valid_params("dynamic"), HEAD_DIM, max_position_embeddings=bad)


def test_ntk_alpha_must_be_positive():
    with raises("alpha"):
        scaling.ntk_alpha_to_base(0.0, 64, base=1e4)


# ----------------------------------------------------------------------------------------------
# rope_inverse_frequencies: no mutation, legacy `type`, rope_theta default
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rope_type", ALL_TYPES)
def test_rope_inverse_frequencies_does_not_mutate_its_input(rope_type):
    params = valid_params(rope_type) | {"partial_rotary_factor": 1.0}
    before = copy.deepcopy(params)
    call_config(params, seq_len=2 * MAXPOS)
    call_config(params)
    assert params == before
    # ... and it works on a read-only mapping, which it could not mutate anyway.
    frozen = MappingProxyType(copy.deepcopy(before))
    inv_frozen, af_frozen = call_config(frozen)
    inv, af = call_config(before)
    np.testing.assert_array_equal(inv_frozen, inv)
    assert af_frozen == af


def test_legacy_type_key_is_not_rewritten_in_place():
    params = {"type": "linear", "factor": 4.0}
    call_config(params)
    assert params == {"type": "linear", "factor": 4.0}  # HF once rewrote `type` → `rope_type` in place


@pytest.mark.parametrize("rope_type", ALL_TYPES)
def test_older_type_key_is_accepted(rope_type):
    new = valid_params(rope_type)
    old = {("type" if k == "rope_type" else k): v for k, v in new.items()}
    inv_new, af_new = call_config(new, seq_len=3 * MAXPOS)
    inv_old, af_old = call_config(old, seq_len=3 * MAXPOS)
    np.testing.assert_array_equal(inv_old, inv_new)
    assert af_old == af_new


@pytest.mark.parametrize("rope_type", ["default", "linear", "ntk", "yarn"])
def test_rope_theta_defaults_to_10000(rope_type):
    params = valid_params(rope_type)
    assert "rope_theta" not in params
    inv_default, af_default = call_config(params)
    inv_explicit, af_explicit = call_config(params | {"rope_theta": 10000.0})
    np.testing.assert_allclose(inv_default, inv_explicit, rtol=0, atol=0)
    assert af_default == af_explicit
    if rope_type == "default":
        theta = [10000.0 ** (-2 * j / HEAD_DIM) for j in range(HEAD_DIM // 2)]
        np.testing.assert_allclose(inv_default, theta, rtol=1e-13)


# ----------------------------------------------------------------------------------------------
# Positions: NaN / inf; shape mismatch
# ----------------------------------------------------------------------------------------------

INV4 = np.array([1.0, 0.1, 0.01, 0.001])

POSITION_CALLS = {
    "sinusoidal_encoding": (lambda p: sinusoidal.sinusoidal_encoding([0.0, p], 8), "positions"),
    "apply_rope": (lambda p: rope.apply_rope(X8, [0.0, p]), "positions"),
    "apply_rope(interleaved)": (lambda p: rope.apply_rope(X8, [p, 1.0], layout="interleaved"), "positions"),
    "rope_angles": (lambda p: rope.rope_angles([0.0, p], INV4), "positions"),
    "rope_matrix": (lambda p: rope.rope_matrix(p, 8), "position"),
    "rope_score_matrix(positions_q)": (lambda p: relative.rope_score_matrix(Q8, Q8, [0.0, p], [0.0]), "positions_q"),
    "rope_score_matrix(positions_k)": (lambda p: relative.rope_score_matrix(Q8, Q8, [0.0], [p, 1.0]), "positions_k"),
    "shift_matrix(k)": (lambda p: sinusoidal.shift_matrix(p, 8), r"\bk\b"),
    "encoding_dot_by_offset": (lambda p: sinusoidal.encoding_dot_by_offset([0.0, p], 8), "offsets"),
    "rope_decay_bound": (lambda p: relative.rope_decay_bound([0.0, p], 8), "distances"),
    "learned_lookup": (lambda p: learned.learned_lookup(learned.learned_table(16, 4), [0, p]), "position"),
    "precision.cos_sin": (lambda p: precision.cos_sin([0.0, p], INV4, dtype="float32"), "positions"),
    "precision.phase_error": (lambda p: precision.phase_error([0.0, p], INV4, dtype="float16"), "positions"),
}


@pytest.mark.parametrize("bad", [NAN, INF, -INF], ids=repr)
@pytest.mark.parametrize("call, param", POSITION_CALLS.values(), ids=POSITION_CALLS.keys())
def test_non_finite_positions_are_rejected_and_named(call, param, bad):
    with raises(param):
        call(bad)


def test_positions_length_must_match_sequence_axis():
    with raises("positions"):
        rope.apply_rope(np.ones((3, 8)), [0, 1])


def test_positions_must_be_one_dimensional():
    with raises("positions"):
        sinusoidal.sinusoidal_encoding(np.zeros((2, 2)), 8)


# ----------------------------------------------------------------------------------------------
# Learned table: no row for positions ≥ max_len (no extrapolation), negatives, fractions
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("positions", [[16], [0, 3, 16], [100], [15, 17]], ids=str)
def test_learned_lookup_beyond_table_says_it_cannot_extrapolate(positions):
    table = learned.learned_table(16, 4)
    with raises("extrapolat"):
        learned.learned_lookup(table, positions)


def test_learned_lookup_last_row_is_fine():
    table = learned.learned_table(16, 4)
    np.testing.assert_array_equal(learned.learned_lookup(table, [15]), table[[15]])


def test_learned_lookup_negative_position_is_rejected():
    # Python's table[-1] would silently return the last row: that must not happen.
    with raises("position"):
        learned.learned_lookup(learned.learned_table(16, 4), [-1])


def test_learned_lookup_fractional_position_is_rejected():
    with raises_any("position"):
        learned.learned_lookup(learned.learned_table(16, 4), [1.5])


@pytest.mark.parametrize("bad", [0, -3])
def test_learned_table_bad_max_len_is_rejected_and_named(bad):
    with raises("max_len"):
        learned.learned_table(bad, 4)


def test_learned_table_negative_std_is_rejected_and_named():
    with raises("std"):
        learned.learned_table(4, 4, std=-0.02)


# ----------------------------------------------------------------------------------------------
# Layout names
# ----------------------------------------------------------------------------------------------

LAYOUT_CALLS = {
    "sinusoidal_encoding": lambda lay: sinusoidal.sinusoidal_encoding([0, 1], 8, layout=lay),
    "shift_matrix": lambda lay: sinusoidal.shift_matrix(1, 8, layout=lay),
    "apply_rope": lambda lay: rope.apply_rope(X8, [0, 1], layout=lay),
    "rope_matrix": lambda lay: rope.rope_matrix(1, 8, layout=lay),
    "pair_indices": lambda lay: rope.pair_indices(8, layout=lay),
    "rope_score_matrix": lambda lay: relative.rope_score_matrix(Q8, Q8, [0], [1], layout=lay),
}


@pytest.mark.parametrize("bad", ["bogus", "neox", ""])
@pytest.mark.parametrize("call", LAYOUT_CALLS.values(), ids=LAYOUT_CALLS.keys())
def test_unknown_layout_is_rejected_and_named(call, bad):
    with raises("layout"):
        call(bad)


def test_rope_layout_name_of_sinusoidal_is_rejected_by_rope():
    # "concatenated" is a sinusoidal layout; RoPE's are "half" and "interleaved".
    with raises("layout"):
        rope.apply_rope(X8, [0, 1], layout="concatenated")


def test_sinusoidal_layout_name_of_rope_is_rejected_by_sinusoidal():
    with raises("layout"):
        sinusoidal.sinusoidal_encoding([0, 1], 8, layout="half")


# ----------------------------------------------------------------------------------------------
# Precision dtypes, ALiBi heads
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["float8", "int32", "fp16", "complex64"])
def test_unknown_precision_dtype_is_rejected_and_named(bad):
    with raises("dtype"):
        precision.cos_sin([0, 1], INV4, dtype=bad)
    with raises("dtype"):
        precision.phase_error([0, 1], INV4, dtype=bad)


def test_precision_dtypes_are_the_documented_four():
    assert tuple(precision.DTYPES) == ("float64", "float32", "float16", "bfloat16")


@pytest.mark.parametrize("bad", [0, -2])
def test_alibi_bad_head_count_is_rejected_and_named(bad):
    with raises("n_heads"):
        relative.alibi_slopes(bad)


# ----------------------------------------------------------------------------------------------
# Other config fields users paste from config.json: each bad value named in the message
# ----------------------------------------------------------------------------------------------

BAD_FIELDS = [
    # (rope_type, field, bad value)
    ("linear", "factor", INF),
    ("linear", "factor", "2"),
    ("default", "rope_theta", "10000"),
    ("llama3", "low_freq_factor", 0.0),
    ("llama3", "low_freq_factor", -1.0),
    ("llama3", "high_freq_factor", NAN),
    ("yarn", "beta_fast", NAN),
    ("yarn", "beta_slow", -1.0),  # 0 means "not set" (HF reads it with `or 1`)
    ("yarn", "attention_factor", NAN),  # a negative one is HF's (it warns and multiplies cos, sin by it)
    ("yarn", "mscale", NAN),
    ("yarn", "truncate", "false"),
    ("longrope", "attention_factor", NAN),
    ("longrope", "short_factor", [0.0] * (HEAD_DIM // 2)),
    ("longrope", "short_factor", [NAN] * (HEAD_DIM // 2)),
    ("longrope", "long_factor", [-1.0] * (HEAD_DIM // 2)),
]


@pytest.mark.parametrize("rope_type, field, bad", BAD_FIELDS, ids=[f"{t}-{f}={b!r}"[:60] for t, f, b in BAD_FIELDS])
def test_bad_config_field_is_rejected_and_named(rope_type, field, bad):
    params = valid_params(rope_type) | {field: bad}
    if field == "mscale":
        params["mscale_all_dim"] = 1.0
    with raises_any(field):
        call_config(params, seq_len=2 * MAXPOS)


@pytest.mark.parametrize("bad", [NAN, -5, 8192.5], ids=["nan", "negative", "fractional"])
def test_bad_seq_len_is_rejected_and_named(bad):
    with raises("seq_len"):
        call_config(valid_params("dynamic"), seq_len=bad)


@pytest.mark.parametrize("bad", [[("rope_type", "linear")], "linear", 3])
def test_rope_parameters_must_be_a_mapping(bad):
    with raises_any("rope_parameters"):
        call_config(bad)


# ----------------------------------------------------------------------------------------------
# posenc.torch constructors validate too (skipped when torch is unavailable)
# ----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def posenc_torch():
    try:
        import torch  # noqa: F401
    except Exception as exc:  # pragma: no cover - depends on the environment
        pytest.skip(f"torch could not be imported ({exc!r}); posenc.torch needs it")
    import posenc.torch as module

    return module


def test_torch_rotary_embedding_rejects_odd_head_dim(posenc_torch):
    with raises("dim"):
        posenc_torch.RotaryEmbedding(63)


def test_torch_rotary_embedding_rejects_unknown_layout(posenc_torch):
    with raises("layout"):
        posenc_torch.RotaryEmbedding(64, layout="bogus")


def test_torch_rotary_embedding_rejects_bad_config(posenc_torch):
    with raises("factor"):
        posenc_torch.RotaryEmbedding(64, rope_parameters={"rope_type": "linear", "factor": 0.0})


def test_torch_sinusoidal_rejects_bad_base_and_layout(posenc_torch):
    with raises("base"):
        posenc_torch.SinusoidalPositionalEncoding(8, base=1.0)
    with raises("layout"):
        posenc_torch.SinusoidalPositionalEncoding(8, layout="half")


# ----------------------------------------------------------------------------------------------
# Later contract additions: parse_vector, angles, residuals, tolerances, OOD pairs
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, item",
    [("1, x, 3", "x"), ("1 2 3", "1 2 3"), ("1;2", "1;2"), ("nan, 1", "nan"), ("1, inf", "inf"), ("0x10", "0x10")],
)
def test_parse_vector_names_the_vector_and_the_offending_item(text, item):
    with pytest.raises(ValueError) as info:
        posenc.parse_vector(text, name="query_vector")
    assert "query_vector" in str(info.value)
    assert item in str(info.value)


def test_parse_vector_cuts_a_long_item_short_in_its_message():
    # a number of 400 digits is finite in text but not as a float: the message quotes it cut to 20 characters
    with pytest.raises(ValueError) as info:
        posenc.parse_vector("1, " + "9" * 400, name="q")
    assert "item 2 must be a finite number, got '9999999999999999999…'" in str(info.value)
    assert len(str(info.value)) < 100


@pytest.mark.parametrize(
    "text",
    ["", "   ", "[]", "()", "1,,2", "[1, 2", "[[1, 2]]"],
    ids=["empty", "blank", "empty-brackets", "empty-parens", "empty-item", "unbalanced", "nested"],
)
def test_parse_vector_rejects_malformed_text(text):
    with raises("key_vector"):
        posenc.parse_vector(text, name="key_vector")


def test_parse_vector_rejects_too_many_numbers():
    with raises("key_vector"):
        posenc.parse_vector("1, 2, 3", name="key_vector", max_len=2)
    np.testing.assert_array_equal(posenc.parse_vector("1, 2", name="key_vector", max_len=2), [1, 2])


def test_signed_angle_rejects_zero_vectors():
    with raises(r"\ba\b"):
        rope.signed_angle([0.0, 0.0], [1.0, 0.0])
    with raises(r"\bb\b"):
        rope.signed_angle([1.0, 0.0], [0.0, 0.0])


@pytest.mark.parametrize("bad", [NAN, INF])
def test_wrap_angle_rejects_non_finite(bad):
    with raises("angle"):
        rope.wrap_angle(bad)


def test_shift_residual_validates():
    with raises("d_model"):
        sinusoidal.shift_residual([0, 1], 1, 7)
    with raises("dtype"):
        sinusoidal.shift_residual([0, 1], 1, 8, dtype="int8")
    with raises("positions"):
        sinusoidal.shift_residual([0, NAN], 1, 8)
    with raises("layout"):
        sinusoidal.shift_residual([0, 1], 1, 8, layout="half")


def test_rope_score_matrix_rejects_unknown_dtype():
    with raises("dtype"):
        relative.rope_score_matrix(Q8, Q8, [0], [1], dtype="float16-ish")


@pytest.mark.parametrize("bad", [0.0, -2.0, NAN])
def test_interpolate_positions_rejects_bad_factor(bad):
    with raises("factor"):
        scaling.interpolate_positions([0, 1, 2], factor=bad)


def test_out_of_distribution_pairs_validates():
    theta = sinusoidal.inverse_frequencies(16)
    with raises("inv_freq"):
        scaling.out_of_distribution_pairs(theta, theta[:-1], trained_length=10, target_length=20)
    with raises("trained_length"):
        scaling.out_of_distribution_pairs(theta, theta, trained_length=0, target_length=20)
    with raises("target_length"):
        scaling.out_of_distribution_pairs(theta, theta, trained_length=10, target_length=-1)
