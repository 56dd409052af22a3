"""The home page's default view, computed once and stored, so a cold server draws its first page
without importing torch.

The home page's numbers come from one attention head in torch (`posenc.attention.shuffle_experiment`);
importing torch takes ≈1.7 s of a cold start that had to stay under 2.5 s. The experiment at the
page's defaults is stored in ``data/home/default_experiment.npz`` with the arguments it was computed
from; `load` returns it only for exactly those arguments (tests/test_page_home.py recomputes it with
torch and compares every number). Torch is imported by the first view that is not the stored one,
in that run: nothing is imported in the background, so a freshly started server serving a lecture
hall spends its cores on the hall (issue #36 bisected a background import as one cause of a slow
first minute).

Regenerate after a change to the experiment or the page's defaults:
``python -m explorer.homedata sentence words... --dim 16 --seed 0 --shuffle-seed 0 --pe none``
(the test's failure message prints the command with the page's current defaults).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from posenc import attention as att

STORED = Path(__file__).resolve().parent.parent / "data" / "home" / "default_experiment.npz"
_ARRAYS = ("perm", "weights_original", "outputs_original", "weights_shuffled", "outputs_shuffled")


def key(words: Any, dim: int, seed: int, shuffle_seed: int, pe: str) -> str:
    return json.dumps(
        {"words": list(words), "dim": int(dim), "seed": int(seed), "shuffle_seed": int(shuffle_seed), "pe": pe}
    )


def load(words: Any, dim: int, seed: int, shuffle_seed: int, pe: str, path: Path = STORED) -> dict | None:
    """The stored experiment if it was computed from exactly these arguments, else None."""
    try:
        with np.load(path, allow_pickle=False) as f:
            if str(f["key"]) != key(words, dim, seed, shuffle_seed, pe):
                return None
            out: dict[str, Any] = {name: f[name] for name in _ARRAYS}
    except (OSError, KeyError, ValueError):
        return None
    perm = out["perm"]
    words = list(words)
    out["shuffled"] = [words[i] for i in perm]
    out["outputs_expected"] = out["outputs_original"][perm]
    out["weights_expected"] = out["weights_original"][perm][:, perm]
    out["output_gap"] = att.permutation_equivariance_gap(out["outputs_original"], out["outputs_shuffled"], perm)
    out["weight_gap"] = att.permutation_equivariance_gap(
        out["weights_original"], out["weights_shuffled"], perm, axes=(0, 1)
    )
    return out


def write(words: Any, dim: int, seed: int, shuffle_seed: int, pe: str, path: Path = STORED) -> Path:
    result = att.shuffle_experiment(words, dim, seed=seed, shuffle_seed=shuffle_seed, pe=pe)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, key=np.array(key(words, dim, seed, shuffle_seed, pe)), **{n: result[n] for n in _ARRAYS})
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Store the home page's default experiment (data/home/).")
    ap.add_argument("words", nargs="+")
    ap.add_argument("--dim", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--shuffle-seed", type=int, required=True)
    ap.add_argument("--pe", required=True)
    a = ap.parse_args(argv)
    print(write(a.words, a.dim, a.seed, a.shuffle_seed, a.pe))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
