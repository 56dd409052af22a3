"""Shape checks for posenc.torch's attention modules: each raises ValueError naming the argument,
the rule and the value it got (like posenc._validate for numbers)."""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .. import _validate as v


def tensor_shape(
    name: str,
    value,
    *,
    min_ndim: int = 1,
    last: int | None = None,
    tail: Sequence[int] | None = None,
    floating: bool = True,
) -> torch.Tensor:
    """``value`` is a tensor with at least ``min_ndim`` dimensions, its last one ``last`` and its
    trailing ones ``tail`` when given, and a floating dtype unless ``floating`` is False."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    shape = tuple(value.shape)
    if value.ndim < min_ndim:
        raise ValueError(f"{name} must have at least {min_ndim} dimensions, got shape {shape}")
    if last is not None and shape[-1] != last:
        raise ValueError(f"{name} must have last dimension {last}, got shape {shape}")
    if tail is not None and shape[-len(tail) :] != tuple(tail):
        want = ", ".join(map(str, tail))
        raise ValueError(f"{name} must end with dimensions ({want}), got shape {shape}")
    if floating and not value.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor, got dtype {value.dtype}")
    return value


def same_shape(name: str, value, other_name: str, other: torch.Tensor) -> torch.Tensor:
    tensor_shape(name, value)
    if value.shape != other.shape:
        raise ValueError(
            f"{name} must have the same shape as {other_name} {tuple(other.shape)}, got shape {tuple(value.shape)}"
        )
    return value


def positions_tensor(positions) -> torch.Tensor:
    """positions (a sequence, array or tensor) -> a float64 tensor, checked by posenc._validate."""
    if isinstance(positions, torch.Tensor):
        positions = positions.detach().cpu().numpy()
    return torch.from_numpy(v.positions_array("positions", positions))
