"""posenc: exact, tested positional-encoding maths (numpy; torch only in ``posenc.torch``).

>>> import posenc
>>> posenc.sinusoidal_encoding([2], 4).round(3).tolist()
[[0.909, -0.416, 0.02, 1.0]]

See docs/POSENC_API.md for the full contract.
"""

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

__all__ = [name for name in dir() if not name.startswith("_")]
