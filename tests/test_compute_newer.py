"""The Newer encodings page's pictures (explorer/compute/newer.py) against their definitions written out here, on
the shipped seed-0 models of kback: CoPE's positions are the reverse running sums of its gates, clamped; PaTH's
transform is the product of the tokens' Householder matrices taken one by one; the hybrid's maps are causal
attention rows in a RoPE layer then one without; FoPE clips exactly the frequencies whose wavelength exceeds L;
SSMax's factor is s·log n with s read from the weights file; DroPE's curve puts the drop at step 0."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posenc import lab

torch = pytest.importorskip("torch")
from explorer.compute import newer as compute  # noqa: E402

TASK = "kback"


def test_cope_positions_are_the_reverse_running_sums_of_the_gates():
    p = compute.cope_positions(TASK, 24, 5)
    gates, pos = p["gates"], p["positions"]
    assert gates.shape == pos.shape == (24, 24) and len(p["tokens"]) == 24
    cap = p["npos_max"] - 1
    for i in range(24):
        for j in range(i + 1):
            expected = min(cap, sum(gates[i, t] for t in range(j, i + 1)))
            assert pos[i, j] == pytest.approx(expected, abs=1e-5), (i, j)
        assert np.isnan(pos[i, i + 1 :]).all() and np.isnan(gates[i, i + 1 :]).all()
    assert ((gates[np.tril_indices(24)] > 0) & (gates[np.tril_indices(24)] < 1)).all()


def test_path_transform_is_the_product_of_the_householder_matrices():
    from posenc.lab import model

    length, head = 12, 6
    p = compute.path_transform(TASK, length, head)
    tiny = model.shipped_model(TASK, "path")
    layer, h = divmod(head, 4)
    x = compute._layer_inputs(tiny, compute._sequence(TASK, length))[layer]
    with torch.no_grad():
        w, beta = tiny.blocks[layer].pos.householder(tiny.blocks[layer].ln1(x))
    w, beta = w[0, h].double().numpy(), beta[0, h].double().numpy()
    product = np.eye(w.shape[1])
    for t in range(1, length):  # H_(T−1) ⋯ H_1: the first token's key carried to the last query
        product = (np.eye(w.shape[1]) - beta[t] * np.outer(w[t], w[t])) @ product
    np.testing.assert_allclose(p["matrix"], product, atol=1e-4)
    np.testing.assert_allclose(p["beta"], beta, atol=1e-6)
    assert ((p["beta"] > 0) & (p["beta"] < 2)).all()


def test_hybrid_maps_are_causal_attention_in_a_rope_layer_then_one_without():
    maps = compute.hybrid_attention(TASK, 20, 3)["maps"]
    assert len(maps) == 2
    for w in maps:
        assert w.shape == (20, 20)
        np.testing.assert_allclose(w.sum(axis=1), 1.0, atol=1e-5)
        assert np.abs(np.triu(w, 1)).max() == 0
    raw = compute.picture("hybrid", TASK, length=20, head=3, longest=512, entry={})
    assert tuple(raw["plan"]) == ("rope", "nope")


def test_fope_clips_the_frequencies_whose_wavelength_exceeds_l():
    p = compute.fope_spectrum(TASK, 1)
    freqs, L = p["frequencies"], p["train_len"]
    d = len(freqs) * 2
    np.testing.assert_allclose(freqs, 10000.0 ** (-np.arange(0, d, 2) / d), rtol=1e-6)  # RoPE's grid at D = head_dim
    np.testing.assert_array_equal(p["clipped"], 2 * math.pi / freqs > L)
    kept = int((~p["clipped"]).sum())
    assert p["magnitude"].shape == (kept, kept) and (p["magnitude"] >= 0).all()
    grid = p["grid"]  # every pair by every frequency: the clipped columns and the pairs that do not rotate blank
    assert grid.shape == (d // 2, d // 2) and np.isnan(grid[:, p["clipped"]]).all() and np.isnan(grid[kept:]).all()
    np.testing.assert_array_equal(grid[:kept, :kept], p["magnitude"])


def test_ssmax_factor_is_s_log_n_with_s_from_the_weights_file():
    p = compute.ssmax_scales(TASK, 512)
    with np.load(lab.WEIGHTS) as data:
        s = np.array([data[f"{TASK}/ssmax/blocks.{i}.pos.s"].astype(float) for i in range(2)])
    np.testing.assert_allclose(p["s"], s, rtol=1e-6)
    np.testing.assert_allclose(p["scale"][1, 2, 63], s[1, 2] * math.log(64), rtol=1e-6)
    assert p["scale"][:, :, 0].tolist() == [[0.0] * 4] * 2  # one key: log 1 = 0


def test_drope_curve_puts_the_drop_at_step_zero():
    entry = lab.load_shipped()["tasks"][TASK]
    raw = compute.drope_losses(entry)
    records = entry["drop"]["drope"]
    assert set(raw["drops"]) == set(records) == {"0", "1", "2", "3", "4"}
    seed0 = [r for r in raw["rows"] if r["seed"] == "seed 0"]
    rec = records["0"]
    assert seed0[0]["steps from the drop"] == -rec["dropped_at"]
    after = [r for r in seed0 if r["steps from the drop"] >= 0]
    assert after[0]["steps from the drop"] == 0 and after[0]["training loss"] == rec["losses"][rec["first_after_drop"]]
    assert len(seed0) == len(rec["losses"])
