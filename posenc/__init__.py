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

if TYPE_CHECKING:  # THE list of the package's names, each written once: type checkers import them here,
    # and at run time `_where()` reads these lines and `__getattr__` loads each name on first use.
    from . import config, layers, learned, methods, mrope, precision, relative, rope, scaling, sinusoidal
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
        offset_scores,
        qwen2vl_position_ids,
        raster_rope_angles,
        scheme_angles,
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
        shift_test_curves,
        shift_test_points,
        shift_test_report,
        shift_test_sweep,
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
        spread_pairs,
        toeplitz_deviation,
        wavelengths,
    )


_WHERE: dict[str, tuple[str, str | None]] = {}


def _where() -> dict[str, tuple[str, str | None]]:
    """name -> (submodule, attribute; None for the submodule itself), read from the TYPE_CHECKING
    imports above (parsed once, on the first name asked for, so ``import posenc`` stays cheap)."""
    if not _WHERE:
        import ast
        from pathlib import Path

        tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
        (block,) = [n for n in tree.body if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
        found: dict[str, tuple[str, str | None]] = {}
        for node in block.body:
            assert isinstance(node, ast.ImportFrom) and node.level == 1, ast.unparse(node)
            for alias in node.names:
                found[alias.name] = (alias.name, None) if node.module is None else (node.module, alias.name)
        _WHERE.update(found)
    return _WHERE


def __getattr__(name: str) -> Any:
    if name == "__all__":
        value: Any = sorted(_where())
    elif name in _where():
        module, attribute = _where()[name]
        value = importlib.import_module(f".{module}", __name__)
        if attribute is not None:
            value = getattr(value, attribute)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # next time without __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_where()})
