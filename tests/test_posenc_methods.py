"""posenc.methods: each rope method declared once, checked against references typed in here.

The references are HF transformers' own (src/transformers/modeling_rope_utils.py: the
``_compute_*_parameters`` functions, ``ROPE_INIT_FUNCTIONS`` and the ``_validate_*_rope_parameters``
required / optional key sets), re-typed below rather than read from the declarations, so a wrong
declaration fails here instead of being copied into the computation, the parser and the explorer.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import posenc
from posenc import config, methods, scaling
from posenc.config import parse_model_config
from posenc.methods import ROPE_METHODS, MethodKey, RopeMethod, RopeParameterError, RopeParameterTypeError

HEAD_DIM = 64
MAXPOS = 8192

# --- HF transformers, re-typed ---------------------------------------------------------------------
# ROPE_INIT_FUNCTIONS (5.23) = {"linear", "dynamic", "yarn", "longrope", "llama3", "proportional"};
# "default" is computed by the rotary-embedding class itself. There is no "ntk":
# ROPE_INIT_FUNCTIONS["ntk"] raises KeyError.
HF_ROPE_TYPES = {"default", "linear", "dynamic", "yarn", "longrope", "llama3", "proportional"}

# _validate_*_rope_parameters: required keys (besides rope_type) and optional keys (besides
# rope_theta). HF ≥ 5 also lists original_max_position_embeddings as required for yarn, but
# standardize_rope_params fills it from max_position_embeddings first: for a config, it is optional
# (the same for llama3). Proportional reads factor with .get("factor", 1.0).
HF_REQUIRED = {
    "default": set(),
    "linear": {"factor"},
    "ntk": {"factor"},  # posenc's own method: the factor is its only parameter
    "dynamic": {"factor"},
    "yarn": {"factor"},
    "llama3": {"factor", "low_freq_factor", "high_freq_factor"},
    "longrope": {"short_factor", "long_factor"},
    "proportional": set(),
}
HF_OPTIONAL = {
    "default": set(),
    "linear": set(),
    "ntk": set(),
    "dynamic": set(),
    "yarn": {
        "original_max_position_embeddings",
        "attention_factor",
        "beta_fast",
        "beta_slow",
        "mscale",
        "mscale_all_dim",
        "truncate",
    },
    "llama3": {"original_max_position_embeddings"},
    "longrope": {"factor", "original_max_position_embeddings", "attention_factor"},
    "proportional": {"factor", "partial_rotary_factor"},
}

# What HF uses when an optional key is absent. None: no constant (attention_factor is computed;
# original_max_position_embeddings falls back to max_position_embeddings; longrope's factor to
# max_position_embeddings / original_max_position_embeddings; mscale(_all_dim) are then not used).
#   beta_fast = config.rope_parameters.get("beta_fast") or 32
#   beta_slow = config.rope_parameters.get("beta_slow") or 1
#   truncate = config.rope_parameters.get("truncate", True)
HF_DEFAULTS = {
    "yarn": {
        "original_max_position_embeddings": None,
        "attention_factor": None,
        "beta_fast": 32,
        "beta_slow": 1,
        "mscale": None,
        "mscale_all_dim": None,
        "truncate": True,
    },
    "longrope": {"factor": None, "original_max_position_embeddings": None, "attention_factor": None},
    "llama3": {"original_max_position_embeddings": None},
    # factor = rope_parameters_dict.get("factor", 1.0); rope_proportion = .get("partial_rotary_factor", 1.0)
    "proportional": {"factor": 1.0, "partial_rotary_factor": 1.0},
}
# RotaryEmbeddingConfigMixin.default_theta = 10_000.0; partial_rotary_factor defaults to 1.0.
HF_COMMON_DEFAULTS = {"rope_theta": 10_000.0, "partial_rotary_factor": 1.0}
# Keys HF reads by their truth value, so 0 means "not set": `or 32`, `or 1`, `if mscale and mscale_all_dim`.
# attention_factor is NOT one of them: transformers 5.23 modeling_rope_utils.py reads
# `attention_factor = rope_parameters_dict.get("attention_factor")` and computes it only
# `if attention_factor is None:` (yarn lines 419/436, longrope 554/564), so 0 is used as 0.
HF_ZERO_MEANS_UNSET = {"beta_fast", "beta_slow", "mscale", "mscale_all_dim"}


def valid_block(rope_type: str) -> dict:
    """A complete block with every key its method reads (head_dim 64 → 32 pairs)."""
    return {
        "default": {"rope_type": "default"},
        "linear": {"rope_type": "linear", "factor": 2.0},
        "ntk": {"rope_type": "ntk", "factor": 2.0},
        "dynamic": {"rope_type": "dynamic", "factor": 2.0},
        "yarn": {
            "rope_type": "yarn",
            "factor": 4.0,
            "original_max_position_embeddings": 2048,
            "beta_fast": 16.0,
            "beta_slow": 2.0,
            "mscale": 0.707,
            "mscale_all_dim": 1.0,
            "attention_factor": 1.2,
            "truncate": False,
        },
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
            "attention_factor": 1.1,
        },
        "proportional": {"rope_type": "proportional", "factor": 2.0, "partial_rotary_factor": 0.5},
    }[rope_type]


def compute(block, seq_len=None):
    return posenc.rope_inverse_frequencies(block, HEAD_DIM, max_position_embeddings=MAXPOS, seq_len=seq_len)


# --------------------------------------------------------------------------------------------------
# the registry
# --------------------------------------------------------------------------------------------------
def test_rope_scaling_keys_and_order_are_unchanged():
    order = ["default", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope", "proportional"]
    assert list(scaling.ROPE_SCALING) == order
    assert list(ROPE_METHODS) == order
    assert list(posenc.ROPE_SCALING) == order
    for name, method in ROPE_METHODS.items():
        assert method.name == name
        assert scaling.ROPE_SCALING[name] is method.compute


def test_exports_and_immutability():
    assert posenc.ROPE_METHODS is methods.ROPE_METHODS
    assert posenc.MethodKey is MethodKey and posenc.RopeMethod is RopeMethod
    assert posenc.RopeParameterError is RopeParameterError
    with pytest.raises(TypeError):
        ROPE_METHODS["mine"] = ROPE_METHODS["linear"]  # type: ignore[index]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ROPE_METHODS["yarn"].key("beta_fast").default = 16.0  # type: ignore[misc]


def test_hf_rope_type_flags_match_hf():
    assert {name for name, m in ROPE_METHODS.items() if m.hf_rope_type} == HF_ROPE_TYPES
    assert not ROPE_METHODS["ntk"].hf_rope_type


def test_declarations_carry_formula_and_source():
    for m in ROPE_METHODS.values():
        assert m.latex and m.source, m.name
        assert r"\theta" in m.latex or "b'" in m.latex, m.name


# --------------------------------------------------------------------------------------------------
# keys, required keys and defaults against HF
# --------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("rope_type", list(HF_REQUIRED))
def test_declared_keys_are_hfs(rope_type):
    method = ROPE_METHODS[rope_type]
    assert set(method.key_names) == HF_REQUIRED[rope_type] | HF_OPTIONAL[rope_type]
    assert set(method.required_keys) == HF_REQUIRED[rope_type]
    assert len(set(method.key_names)) == len(method.key_names)  # no key twice


@pytest.mark.parametrize("rope_type", list(HF_REQUIRED))
def test_declared_defaults_are_hfs(rope_type):
    method = ROPE_METHODS[rope_type]
    for key in method.keys:
        expected = None if key.required else HF_DEFAULTS[rope_type][key.name]
        assert key.default == expected, (rope_type, key.name)


def test_common_keys_and_zero_means_unset_are_hfs():
    assert {k.name: k.default for k in methods.COMMON_KEYS} == HF_COMMON_DEFAULTS
    assert scaling.DEFAULT_ROPE_THETA == 10_000.0
    declared = {k.name for m in ROPE_METHODS.values() for k in m.keys if k.zero_means_unset}
    assert declared == HF_ZERO_MEANS_UNSET


@pytest.mark.parametrize(
    "key, value",
    [("beta_fast", 32), ("beta_slow", 1), ("truncate", True), ("original_max_position_embeddings", MAXPOS)],
)
def test_an_absent_yarn_key_computes_as_hfs_default(key, value):
    # The computation, not just the declaration, must use HF's value.
    block = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 1024}
    block.pop(key, None)
    inv_absent, af_absent = compute(block)
    inv_given, af_given = compute(block | {key: value})
    np.testing.assert_array_equal(inv_absent, inv_given)
    assert af_absent == af_given


def test_yarn_mscale_zero_is_not_set_like_hf():
    block = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 1024}
    _, af = compute(block)
    assert af == pytest.approx(0.1 * math.log(8.0) + 1)
    for extra in ({"mscale": 0.0, "mscale_all_dim": 1.0}, {"mscale": 1.0, "mscale_all_dim": 0.0}):
        assert compute(block | extra)[1] == af
    _, af_both = compute(block | {"mscale": 1.0, "mscale_all_dim": 0.5})
    assert af_both == pytest.approx((0.1 * math.log(8.0) + 1) / (0.05 * math.log(8.0) + 1))


def test_yarn_correction_range_defaults_are_hfs():
    kwargs = {"base": 10000.0, "original_max_position_embeddings": 4096}
    assert scaling.yarn_correction_range(64, **kwargs) == scaling.yarn_correction_range(
        64, **kwargs, beta_fast=32, beta_slow=1, truncate=True
    )


# HF 5.23: yarn's factor null is no error, it means max_position_embeddings / original
# (tests/test_layers.py, test_rule_yarn_factor_null_is_max_over_original): not a case here.
@pytest.mark.parametrize(
    "rope_type, key, how",
    [
        (t, k, how)
        for t, keys in HF_REQUIRED.items()
        for k in sorted(keys)
        for how in ("missing", "null")
        if (t, k, how) != ("yarn", "factor", "null")
    ],
    ids=lambda x: str(x),
)
def test_a_missing_required_key_raises_naming_it(rope_type, key, how):
    block = valid_block(rope_type)
    if how == "missing":
        del block[key]
    else:
        block[key] = None
    with pytest.raises(ValueError, match=rf"\['{key}'\] is required for rope_type '{rope_type}'") as info:
        compute(block, seq_len=2 * MAXPOS)
    assert isinstance(info.value, RopeParameterError) and info.value.key == key


@pytest.mark.parametrize(
    "rope_type, key", [(t, k) for t, keys in HF_OPTIONAL.items() for k in sorted(keys)], ids=lambda x: str(x)
)
def test_an_optional_key_may_be_left_out(rope_type, key):
    block = valid_block(rope_type)
    del block[key]
    inv, af = compute(block, seq_len=2 * MAXPOS)
    assert inv.shape == (HEAD_DIM // 2,) and np.all(np.isfinite(inv)) and math.isfinite(af)


# --------------------------------------------------------------------------------------------------
# the declarations describe the maths only (the explorer's widgets are explorer.vocabulary's)
# --------------------------------------------------------------------------------------------------
#: What only a user interface needs; MethodKey must hold none of it (issue #22).
UI_FIELDS = {"label", "help", "min", "max", "step", "fmt", "widget_default", "widget_unset"}
#: What a page shows a reader about a whole method (explorer.text.methods), not its maths (issue #38).
PAGE_TEXT_FIELDS = {"label", "summary", "title", "caption", "description", "icon", "tooltip", "name_on_screen"}


def test_every_key_is_described_by_its_maths_only():
    assert not UI_FIELDS & {f.name for f in dataclasses.fields(MethodKey)}


def test_posenc_declarations_hold_no_page_text():
    """The method declarations hold no page text (a display name, a summary, a caption): a check of
    what every declaration's fields mean, not a search for one word. Their page text is
    explorer.text.methods's. Every other dataclass in posenc is held to the same, except that a lab task
    or a preset may keep a short ``label``/``name`` (they are data names, as a rope_type is)."""
    import importlib
    import pkgutil

    assert not PAGE_TEXT_FIELDS & {f.name for f in dataclasses.fields(methods.RopeMethod)}
    assert not PAGE_TEXT_FIELDS & {f.name for f in dataclasses.fields(MethodKey)}
    torch_modules = {
        "posenc.torch",
        "posenc.lab.model",
        "posenc.lab.training",
        "posenc.lab.evaluation",
        "posenc.lab.experiment",
        "posenc.realmodel.model",
    }  # nn.Modules, no declarations
    root = Path(posenc.__file__).resolve().parent
    found = []
    for info in pkgutil.walk_packages([str(root)], prefix="posenc."):
        if info.name in torch_modules or info.name.endswith("__main__"):
            continue
        for obj in vars(importlib.import_module(info.name)).values():
            if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj.__module__ == info.name:
                found += [
                    f"{obj.__name__}.{f.name}"
                    for f in dataclasses.fields(obj)
                    if f.name in PAGE_TEXT_FIELDS - {"label"}
                ]
    assert not found, found
    for m in ROPE_METHODS.values():
        for k in (*m.keys, *methods.COMMON_KEYS):
            assert k.kind in ("float", "int", "bool", "float_list"), k
            assert k.doc and k.doc.endswith(".") and "\n" not in k.doc, k  # a description for the docs
            if k.kind == "bool":
                assert isinstance(k.default, bool) and k.above is None, k
            if k.above is not None and isinstance(k.default, (int, float)):
                assert k.default > k.above, k  # HF's default is a valid value


def test_posenc_speaks_no_widget_words():
    """No file under posenc/ mentions widgets: how a key is shown is the explorer's (explorer.vocabulary)."""
    root = Path(posenc.__file__).resolve().parent
    found = [
        f"{path.relative_to(root.parent)}:{number}: {line.strip()}"
        for path in sorted(root.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if "widget" in line.lower()
    ]
    assert not found, "posenc speaks of widgets:\n" + "\n".join(found)


def test_key_lookup():
    yarn = ROPE_METHODS["yarn"]
    assert yarn.key("beta_fast").default == 32
    with pytest.raises(KeyError, match="low_freq_factor"):
        yarn.key("low_freq_factor")


# --------------------------------------------------------------------------------------------------
# RopeParameterError: the key at fault, and the message naming key, rule and value
# --------------------------------------------------------------------------------------------------
BAD_BLOCKS = [
    ({"rope_type": "linear", "factor": -1.0}, "factor", ValueError, "must be a finite number > 0, got -1.0"),
    ({"rope_type": "linear", "factor": "4"}, "factor", TypeError, "must be a number, got '4'"),
    ({"rope_type": "bogus"}, "rope_type", ValueError, "must be one of"),
    ({"type": "bogus"}, "type", ValueError, "got 'bogus'"),
    ({"rope_type": "default", "rope_theta": 1.0}, "rope_theta", ValueError, "must be a finite number > 1, got 1.0"),
    ({"rope_type": "default", "partial_rotary_factor": 2.0}, "partial_rotary_factor", ValueError, "(0, 1], got 2.0"),
    (valid_block("yarn") | {"beta_slow": -1}, "beta_slow", ValueError, "> 0, got -1"),
    (valid_block("yarn") | {"truncate": "yes"}, "truncate", TypeError, "true or false, got 'yes'"),
    (valid_block("yarn") | {"attention_factor": "x"}, "attention_factor", TypeError, "must be a number, got 'x'"),
    # mscale is read only when attention_factor is not given
    ({"rope_type": "yarn", "factor": 4.0, "mscale": "x", "mscale_all_dim": 1.0}, "mscale", TypeError, "got 'x'"),
    (
        valid_block("yarn") | {"original_max_position_embeddings": 0},
        "original_max_position_embeddings",
        ValueError,
        ">= 1, got 0",
    ),
    (valid_block("llama3") | {"high_freq_factor": -0.5}, "high_freq_factor", ValueError, "> 0, got -0.5"),
    (valid_block("longrope") | {"short_factor": [1.0] * 3}, "short_factor", ValueError, "= 32 entries, got 3"),
    (valid_block("longrope") | {"long_factor": "abc"}, "long_factor", TypeError, "a list of 32 numbers, got str"),
    (valid_block("longrope") | {"long_factor": [1.0] * 31 + [-2.0]}, "long_factor", ValueError, "> 0, got -2.0"),
    ({"rope_type": "linear", "factor": 5e-324}, "factor", ValueError, "non-finite frequencies"),
]


@pytest.mark.parametrize(
    "block, key, kind, fragment", BAD_BLOCKS, ids=[f"{b[1]}-{i}" for i, b in enumerate(BAD_BLOCKS)]
)
def test_rope_parameter_error_names_the_key(block, key, kind, fragment):
    with pytest.raises(kind) as info, np.errstate(all="ignore"):  # 5e-324: the overflow is the point
        compute(block, seq_len=2 * MAXPOS)
    exc = info.value
    assert isinstance(exc, RopeParameterError) and isinstance(exc, ValueError)
    assert isinstance(exc, RopeParameterTypeError) == (kind is TypeError)
    assert exc.key == key
    assert str(exc) == f"rope_parameters['{key}'] {exc.problem}"
    assert fragment in exc.problem


def test_rope_parameter_error_pickles():
    exc = RopeParameterTypeError("factor", "must be a number, got '4'")
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is RopeParameterTypeError and back.key == "factor" and str(back) == str(exc)


def test_llama3_bands_names_the_key_too():
    with pytest.raises(RopeParameterError) as info:
        scaling.llama3_bands(
            posenc.inverse_frequencies(64),
            factor=8.0,
            low_freq_factor=1.0,
            high_freq_factor=-4.0,
            original_max_position_embeddings=8192,
        )
    assert info.value.key == "high_freq_factor"


# --------------------------------------------------------------------------------------------------
# the config parser derives its key lists from the declarations
# --------------------------------------------------------------------------------------------------
def test_parser_key_lists_are_the_declared_ones():
    assert config.KNOWN_ROPE_TYPES == tuple(ROPE_METHODS)
    for name in ROPE_METHODS:
        assert set(config._TYPE_KEYS[name]) == HF_REQUIRED[name] | HF_OPTIONAL[name]
        assert set(ROPE_METHODS[name].required_keys) == HF_REQUIRED[name]
    union = set().union(*HF_REQUIRED.values(), *HF_OPTIONAL.values())
    assert config._ALL_BLOCK_KEYS == union | {"rope_type", "type", "rope_theta", "partial_rotary_factor"}


@pytest.mark.parametrize("rope_type", list(ROPE_METHODS))
def test_parser_accepts_every_declared_key_and_flags_the_others(rope_type):
    import json

    block = valid_block(rope_type)
    parsed = parse_model_config(json.dumps(block), fallback_head_dim=HEAD_DIM, fallback_max_position_embeddings=MAXPOS)
    assert parsed.ok, parsed.problems
    assert not [p for p in parsed.problems if "ignored" in p.message], parsed.problems
    foreign = sorted(config._ALL_BLOCK_KEYS - set(block) - {"type", "rope_theta", "partial_rotary_factor"})
    for key in foreign:
        parsed = parse_model_config(json.dumps(block | {key: 1.0}), fallback_head_dim=HEAD_DIM)
        assert any("not used by rope_type" in p.message for p in parsed.problems_for(key)), (key, parsed.problems)


def test_parser_attaches_a_posenc_error_to_its_key():
    # The parser's own checks let original_max_position_embeddings = 1 through; LongRoPE needs ≥ 2.
    text = '{"rope_type": "longrope", "short_factor": [1, 1], "long_factor": [1, 2], "original_max_position_embeddings": 1}'
    parsed = parse_model_config(text, fallback_head_dim=4, fallback_max_position_embeddings=8192)
    (problem,) = parsed.problems_for("original_max_position_embeddings")
    assert problem.severity == "error"
    assert problem.message == "rejected by the RoPE computation: original_max_position_embeddings must be >= 2, got 1"
    nested = parse_model_config(
        '{"head_dim": 4, "max_position_embeddings": 8192, "rope_scaling": ' + text + "}",
    )
    assert [p.message for p in nested.problems_for("rope_scaling.original_max_position_embeddings")] == [
        "rejected by the RoPE computation: rope_scaling.original_max_position_embeddings must be >= 2, got 1"
    ]


# --------------------------------------------------------------------------------------------------
# rope_type "ntk": computed, but HF has no such rope_type
# --------------------------------------------------------------------------------------------------
def test_ntk_block_gets_a_warning_with_the_hf_equivalent():
    parsed = parse_model_config('{"rope_type": "ntk", "factor": 4}', fallback_head_dim=64)
    assert parsed.ok and parsed.rope_type == "ntk"
    (warning,) = parsed.problems_for("rope_type")
    assert warning.severity == "warning"
    for fragment in ("no rope_type 'ntk'", "KeyError", "'default'", "rope_theta", "b·s^(d/(d−2))"):
        assert fragment in warning.message, fragment
    expected = 10000.0 * 4.0 ** (64 / 62)  # bloc97's b' = b·s^(d/(d−2)) with d = 64
    assert f"{expected:,.1f}" in warning.message
    # ... and that base as a plain default block gives the same frequencies.
    inv_ntk, _ = parsed.inverse_frequencies(max_position_embeddings=4096)
    inv_default, _ = posenc.rope_inverse_frequencies(
        {"rope_type": "default", "rope_theta": expected}, 64, max_position_embeddings=4096
    )
    np.testing.assert_allclose(inv_ntk, inv_default, rtol=1e-12)


def test_ntk_warning_in_a_config_uses_the_rotary_dim_and_the_configs_base():
    text = (
        '{"head_dim": 128, "partial_rotary_factor": 0.5, "rope_theta": 500000, '
        '"rope_scaling": {"type": "ntk", "factor": 2}}'
    )
    parsed = parse_model_config(text)
    (warning,) = parsed.problems_for("rope_scaling.type")
    assert f"{500000 * 2 ** (64 / 62):,.1f}" in warning.message and "KeyError" in warning.message


def test_ntk_warning_without_a_head_size_has_no_number():
    parsed = parse_model_config('{"rope_type": "ntk", "factor": 4}')
    (warning,) = parsed.problems_for("rope_type")
    assert "KeyError" in warning.message and "≈" not in warning.message


@pytest.mark.parametrize("rope_type", sorted(HF_ROPE_TYPES))
def test_hf_rope_types_get_no_such_warning(rope_type):
    import json

    parsed = parse_model_config(json.dumps(valid_block(rope_type)), fallback_head_dim=HEAD_DIM)
    assert not [p for p in parsed.problems if "KeyError" in p.message], parsed.problems


# --------------------------------------------------------------------------------------------------
# #9: the config parser checks every block key by its MethodKey declaration alone
# --------------------------------------------------------------------------------------------------
_COMMON = {k.name for k in methods.COMMON_KEYS}
_DECLARED = [(m.name, k) for m in ROPE_METHODS.values() for k in m.keys if k.name not in _COMMON]


def _parse_block(block: dict):
    return parse_model_config(json.dumps(block), fallback_head_dim=HEAD_DIM, fallback_max_position_embeddings=MAXPOS)


def _on(parsed, key: str, severity: str):
    return [p for p in parsed.problems if p.key == key and p.severity == severity]


@pytest.mark.parametrize("rope_type, key", _DECLARED, ids=lambda x: x if isinstance(x, str) else x.name)
def test_the_parser_follows_each_key_declaration(rope_type, key):
    block = valid_block(rope_type)
    assert _parse_block(block).ok
    # the wrong kind of value
    wrong = {"float": "x", "int": "x", "bool": "yes", "float_list": 3.0}[key.kind]
    assert _on(_parse_block(block | {key.name: wrong}), key.name, "error")
    # the declared range: a value at (or below) `above` is refused, unless HF reads 0 as "not set"
    if key.above is not None:
        bad = key.above - 1 if key.kind != "float_list" else [1.0] * (HEAD_DIM // 2 - 1) + [key.above]
        assert _on(_parse_block(block | {key.name: bad}), key.name, "error")
    if key.zero_means_unset:
        parsed = _parse_block(block | {key.name: 0})
        assert parsed.ok and any(
            "not set" in p.message and key.absent_means in p.message for p in _on(parsed, key.name, "warning")
        )
    # null: a required key is missing unless HF derives it; an optional one is absent unless HF refuses null
    parsed = _parse_block(block | {key.name: None})
    if (key.required and not key.null_means) or key.null_refused:
        assert _on(parsed, key.name, "error")
    else:
        assert parsed.ok, parsed.errors


def test_the_parser_names_no_method_key():
    # Every per-key rule comes from posenc.methods: the parser's source names no method's key (the common
    # keys and original_max_position_embeddings, read with the config's sizes, and the ntk hint's factor aside)
    source = inspect.getsource(config)
    names = {k.name for _, k in _DECLARED} - {"original_max_position_embeddings", "factor"}
    assert not [n for n in sorted(names) if f'"{n}"' in source or f"'{n}'" in source]


_TOY_METHOD = """
import json, types
import numpy as np
import posenc.methods as m
from posenc.methods import MethodKey, RopeMethod, RopeParameterError
GAIN = MethodKey("gain", "float", required=True, above=1.0, doc="The toy's divisor.")
def _toy(params, dim, *, max_position_embeddings, seq_len):
    m._require_keys(params, "toy")
    g = m._number(GAIN, params["gain"])
    return 1.0 / (10000.0 ** (np.arange(0, dim, 2) / dim)) / g, 1.0
toy = RopeMethod(name="toy", hf_rope_type=True, keys=(GAIN,), latex="", compute=_toy, source="")
m.ROPE_METHODS = types.MappingProxyType({**m.ROPE_METHODS, "toy": toy})
import importlib, posenc.scaling, posenc.config
importlib.reload(posenc.scaling); importlib.reload(posenc.config)
parse = lambda b: posenc.config.parse_model_config(json.dumps(b), fallback_head_dim=8, fallback_max_position_embeddings=64)
ok = parse({"rope_type": "toy", "gain": 2.0})
print(json.dumps({
    "ok": ok.ok, "inv": ok.inverse_frequencies()[0].tolist(),
    "missing": [p.key for p in parse({"rope_type": "toy"}).errors],
    "range": [p.message for p in parse({"rope_type": "toy", "gain": 0.5}).errors],
    "unknown": [p.key for p in parse({"rope_type": "toy", "gain": 2.0, "beta_fast": 4}).warnings],
}))
"""


def test_a_new_method_is_its_declaration_and_its_function():
    # ARCHITECTURE.md "Recipes": add a rope method: declared (in a subprocess, so the registry here is untouched),
    # the parser knows its type, its required key and its range, and computes its numbers, with no parser edit
    out = subprocess.run([sys.executable, "-c", _TOY_METHOD], capture_output=True, text=True, timeout=120, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["ok"]
    np.testing.assert_allclose(got["inv"], [1.0 / 10000.0 ** (i / 8) / 2.0 for i in (0, 2, 4, 6)], rtol=1e-13)
    assert got["missing"] == ["gain"]
    assert got["range"] and "greater than 1" in got["range"][0]
    assert got["unknown"] == ["beta_fast"]


# --- which methods read the current sequence length (issue #36: a chart may vary T only for the others) -----
SEQ_BLOCKS = {
    "default": {"rope_type": "default"},
    "linear": {"rope_type": "linear", "factor": 4.0},
    "ntk": {"rope_type": "ntk", "factor": 4.0},
    "dynamic": {"rope_type": "dynamic", "factor": 4.0},
    "yarn": {"rope_type": "yarn", "factor": 4.0},
    "llama3": {
        "rope_type": "llama3",
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 2048,
    },
    "longrope": {
        "rope_type": "longrope",
        "factor": 4.0,
        "original_max_position_embeddings": 2048,
        "short_factor": [1.0] * (HEAD_DIM // 2),
        "long_factor": [2.0] * (HEAD_DIM // 2),
    },
    "proportional": {"rope_type": "proportional", "factor": 2.0, "partial_rotary_factor": 0.5},
}


def test_the_seq_len_blocks_cover_every_method():
    assert set(SEQ_BLOCKS) == set(ROPE_METHODS)


@pytest.mark.parametrize("rope_type", sorted(SEQ_BLOCKS))
def test_reads_seq_len_says_whether_the_frequencies_change_with_T(rope_type):
    """A method marked ``reads_seq_len=False`` gives the same θ' (bit for bit) at every T, below and past
    L; one marked True gives other θ' at some T past L (what HF does: dynamic NTK grows its base with T,
    LongRoPE switches to its long factors)."""
    block = SEQ_BLOCKS[rope_type]

    def inv(seq_len):
        return scaling.rope_inverse_frequencies(block, HEAD_DIM, max_position_embeddings=MAXPOS, seq_len=seq_len)[0]

    lengths = [None, 16, MAXPOS - 1, MAXPOS, MAXPOS + 1, 3 * MAXPOS, 2**24]
    same = all(np.array_equal(inv(t), inv(None)) for t in lengths)
    assert same is not ROPE_METHODS[rope_type].reads_seq_len, rope_type


@pytest.mark.parametrize("rope_type", sorted(SEQ_BLOCKS))
def test_reads_train_len_says_whether_the_frequencies_change_with_L(rope_type):
    """A method marked ``reads_train_len=False`` gives the same θ' (bit for bit) at every trained length L (the
    block's ``original_max_position_embeddings`` where it has one, and ``max_position_embeddings``), at a fixed
    T; one marked True gives other θ' at some L (YaRN's ramp and Llama 3's bands sit at L's wavelengths, dynamic
    NTK's base grows with T/L, LongRoPE picks its factors by T against L). The Context extension chart moves L
    in the browser only for the first kind."""
    block = SEQ_BLOCKS[rope_type]

    def inv(train_len):
        b = dict(block)
        if "original_max_position_embeddings" in b:
            b["original_max_position_embeddings"] = train_len
        return scaling.rope_inverse_frequencies(b, HEAD_DIM, max_position_embeddings=train_len, seq_len=3 * MAXPOS)[0]

    lengths = [16, MAXPOS // 2, MAXPOS, 2 * MAXPOS, 3 * MAXPOS, 8 * MAXPOS, 2**24]
    same = all(np.array_equal(inv(n), inv(MAXPOS)) for n in lengths)
    assert same is not ROPE_METHODS[rope_type].reads_train_len, rope_type
