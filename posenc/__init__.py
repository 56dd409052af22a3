"""posenc: exact, tested positional-encoding maths (numpy; torch only in ``posenc.torch``).

>>> import posenc
>>> posenc.sinusoidal_encoding([2], 4).round(3).tolist()
[[0.909, -0.416, 0.02, 1.0]]

See docs/POSENC_API.md for the full contract.
"""

# The names below load on first use (PEP 562), not when the package is imported. Streamlit runs each
# session's script in its own thread, so on a freshly started server several threads import posenc
# at once; with an __init__ that imports its submodules, CPython 3.11's per-module import locks let
# a thread that imports a submodule by name (``from posenc.methods import …``) meet another that is
# initialising the package, and hand one of them a half-made module ("cannot import name … from
# partially initialized module"). An __init__ that imports nothing cannot take part in such a
# cycle (tests/test_concurrent_imports.py).

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: submodule -> the public names it gives the package (one declaration; __all__ and the lazy
#: loader derive from it)
_EXPORTS: dict[str, tuple[str, ...]] = {
    "_validate": ("parse_vector",),
    "config": (
        "ParsedConfig",
        "parse_model_config",
    ),
    "layers": (
        "LayerPlan",
        "attention_temperature",
        "default_theta",
    ),
    "learned": (
        "learned_lookup",
        "learned_table",
    ),
    "methods": (
        "ROPE_METHODS",
        "MethodKey",
        "RopeMethod",
        "RopeParameterError",
        "RopeParameterTypeError",
    ),
    "mrope": (
        "VISION_PRESETS",
        "VisionPreset",
        "angle_scores",
        "axial_axis_of_pairs",
        "axial_inverse_frequencies",
        "axial_rope_angles",
        "default_mrope_section",
        "grid_positions",
        "mrope_angles",
        "mrope_axis_of_pairs",
        "qwen2vl_position_ids",
        "raster_rope_angles",
    ),
    "precision": (
        "DTYPES",
        "cos_sin",
        "phase_error",
    ),
    "relative": (
        "additive_score_matrix",
        "alibi_bias",
        "alibi_slopes",
        "attention_weights",
        "diagonal_spread",
        "rope_decay_bound",
        "rope_mean_cos",
        "rope_score_matrix",
        "rope_shift_tolerance",
        "seeded_normal",
        "shift_deviation",
        "shift_test_report",
        "softmax",
    ),
    "rope": (
        "apply_rope",
        "layout_permutation",
        "pair_angles",
        "pair_indices",
        "partial_rotary_dim",
        "polar_to_xy",
        "rope_angles",
        "rope_matrix",
        "rotate_half",
        "rotation_2x2",
        "signed_angle",
        "wrap_angle",
    ),
    "scaling": (
        "ROPE_SCALING",
        "base_to_ntk_alpha",
        "dynamic_base",
        "interpolate_positions",
        "llama3_bands",
        "ntk_alpha_to_base",
        "out_of_distribution_pairs",
        "rope_inverse_frequencies",
        "rope_type_of",
        "yarn_correction_range",
        "yarn_get_mscale",
        "yarn_ramp",
    ),
    "sinusoidal": (
        "block_mean_encoding",
        "distance_by_offset",
        "distance_matrix",
        "encoding_dot_by_offset",
        "inverse_frequencies",
        "min_distinct_distance",
        "shift_matrix",
        "shift_residual",
        "similarity_matrix",
        "sinusoidal_encoding",
        "toeplitz_deviation",
        "wavelengths",
    ),
}
#: submodules reachable as attributes (``posenc.config``), as when __init__ imported them
_SUBMODULES = (
    "config",
    "layers",
    "learned",
    "methods",
    "mrope",
    "precision",
    "relative",
    "rope",
    "scaling",
    "sinusoidal",
)
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted([*_WHERE, *_SUBMODULES])


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is not None:
        value = getattr(importlib.import_module(f".{module}", __name__), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # next time without __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:  # what type checkers see (the same names, imported eagerly)
    from ._validate import parse_vector
    from .config import ParsedConfig, parse_model_config
    from .layers import LayerPlan, attention_temperature, default_theta
    from .learned import learned_lookup, learned_table
    from .methods import ROPE_METHODS, MethodKey, RopeMethod, RopeParameterError, RopeParameterTypeError
    from .mrope import (
        VISION_PRESETS,
        VisionPreset,
        angle_scores,
        axial_axis_of_pairs,
        axial_inverse_frequencies,
        axial_rope_angles,
        default_mrope_section,
        grid_positions,
        mrope_angles,
        mrope_axis_of_pairs,
        qwen2vl_position_ids,
        raster_rope_angles,
    )
    from .precision import DTYPES, cos_sin, phase_error
    from .relative import (
        additive_score_matrix,
        alibi_bias,
        alibi_slopes,
        attention_weights,
        diagonal_spread,
        rope_decay_bound,
        rope_mean_cos,
        rope_score_matrix,
        rope_shift_tolerance,
        seeded_normal,
        shift_deviation,
        shift_test_report,
        softmax,
    )
    from .rope import (
        apply_rope,
        layout_permutation,
        pair_angles,
        pair_indices,
        partial_rotary_dim,
        polar_to_xy,
        rope_angles,
        rope_matrix,
        rotate_half,
        rotation_2x2,
        signed_angle,
        wrap_angle,
    )
    from .scaling import (
        ROPE_SCALING,
        base_to_ntk_alpha,
        dynamic_base,
        interpolate_positions,
        llama3_bands,
        ntk_alpha_to_base,
        out_of_distribution_pairs,
        rope_inverse_frequencies,
        rope_type_of,
        yarn_correction_range,
        yarn_get_mscale,
        yarn_ramp,
    )
    from .sinusoidal import (
        block_mean_encoding,
        distance_by_offset,
        distance_matrix,
        encoding_dot_by_offset,
        inverse_frequencies,
        min_distinct_distance,
        shift_matrix,
        shift_residual,
        similarity_matrix,
        sinusoidal_encoding,
        toeplitz_deviation,
        wavelengths,
    )
