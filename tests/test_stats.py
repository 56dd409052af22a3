"""posenc.stats against independent references: scipy (t and normal quantiles, t intervals, binomtest,
the bootstrap's resampling by hand) and statsmodels (Wilson's interval, multipletests), with hypothesis
for the invariants (a share's interval inside [0, 1], lo <= estimate <= hi)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as ss
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from posenc import stats

SHARES = st.lists(st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 1.0, 0.5])), min_size=1, max_size=12)


# ------------------------------------------------------------------------------------------- quantiles
def test_t_quantile_against_scipy_for_every_df_to_1000():
    worst = 0.0
    for df in range(1, 1001):
        for p in (0.975, 0.995, 0.9, 0.6, 0.025):
            ref = ss.t.ppf(p, df)
            worst = max(worst, abs(stats.t_quantile(p, df) - ref) / abs(ref))
    assert worst <= 1e-6


@pytest.mark.parametrize("df", [1.5, 2.5, 3.7, 1e4, 1e6, 1e9])
@pytest.mark.parametrize("p", [1e-9, 0.01, 0.3, 0.7, 0.999, 1 - 1e-9])
def test_t_quantile_real_df_and_far_tails(df, p):
    assert stats.t_quantile(p, df) == pytest.approx(ss.t.ppf(p, df), rel=1e-6)


@pytest.mark.parametrize("p", [1e-12, 1e-6, 0.001, 0.02425, 0.2, 0.5, 0.975, 1 - 1e-10])
def test_normal_quantile_against_scipy(p):
    assert stats.normal_quantile(p) == pytest.approx(ss.norm.ppf(p), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: stats.t_quantile(0.975, 0), "df must be a number >= 1, got 0"),
        (lambda: stats.t_quantile(1.0, 4), "p must be strictly between 0 and 1, got 1.0"),
        (lambda: stats.normal_quantile(0.0), "p must be strictly between 0 and 1"),
        (lambda: stats.mean_interval([1.0, 2.0], level=95), "level must be strictly between 0 and 1, got 95"),
        (lambda: stats.wilson_interval(5, 4), "successes must be <= 4, got 5"),
        (lambda: stats.wilson_interval(1, -1), "trials must be >= 0, got -1"),
        (lambda: stats.share_interval([0.5, 1.2]), r"values must be shares in \[0, 1\], got 1.2"),
        (lambda: stats.mcnemar_exact([1, 0], [1]), "same length"),
        (lambda: stats.mcnemar_exact([1, 2], [1, 0]), "a must hold yes/no outcomes"),
        (lambda: stats.adjust_pvalues([0.1], "fdr"), "method must be one of 'holm', 'bonferroni', got 'fdr'"),
        (lambda: stats.adjust_pvalues([1.5]), r"pvalues must be probabilities in \[0, 1\], got 1.5"),
        (lambda: stats.bootstrap(np.mean, np.ones(1)), "samples must have at least 2 rows"),
        (lambda: stats.bootstrap(np.mean, np.ones(5), block=3), "block must be <= 2, got 3"),
        (lambda: stats.bootstrap(np.mean, np.ones(5), scheme="circular"), "scheme must be one of"),
        (lambda: stats.paired_interval([1.0, 2.0], [1.0]), "a and b must have the same length"),
        (lambda: stats.difference_of_means([1.0], [1.0, 2.0]), "a and b must have at least 2 values each"),
    ],
)
def test_bad_input_names_the_parameter_the_rule_and_the_value(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ------------------------------------------------------------------------------------ mean intervals
@pytest.mark.parametrize("vals", [[0.41, 0.54, 0.47, 0.33, 0.52], [1.0, 3.0], [2.5, 2.4, 2.7, 2.6, 2.2, 2.9, 3.1, 2.0]])
@pytest.mark.parametrize("level", [0.95, 0.9, 0.99])
def test_mean_interval_is_scipys_t_interval(vals, level):
    ci = stats.mean_interval(vals, level)
    lo, hi = ss.t.interval(level, len(vals) - 1, loc=np.mean(vals), scale=ss.sem(vals))
    assert ci.n == len(vals) and ci.mean == pytest.approx(np.mean(vals))
    assert ci.lo == pytest.approx(lo, rel=1e-9) and ci.hi == pytest.approx(hi, rel=1e-9)


def test_mean_interval_leaves_out_missing_values():
    assert stats.mean_interval([None, 2.0]) == stats.Interval(2.0, None, None, 1)
    assert stats.mean_interval([None, float("nan")]) is None
    assert stats.mean_interval([None, 2.0]).text() == "2.000 (one seed)"
    assert stats.mean_interval([1.0, 2.0, 3.0]).text("{:.1f}") == "2.0 [-0.5, 4.5]"


def test_paired_interval_pairs_by_key_or_position_and_is_scipys_one_sample_t():
    a = {"0": 1.0, "1": 2.0, "2": 3.0, "4": None}
    b = {"0": 0.5, "1": 1.0, "2": 2.5, "3": 9.0, "4": 1.0}
    d = stats.paired_interval(a, b)
    diffs = [0.5, 1.0, 0.5]
    lo, hi = ss.ttest_1samp(diffs, 0.0).confidence_interval(0.95)
    assert d.n == 3 and d.mean == pytest.approx(2.0 / 3) and (d.lo, d.hi) == pytest.approx((lo, hi))
    assert stats.paired_interval([1.0, None, 3.0], [0.5, 2.0, 2.5]).n == 2
    assert stats.paired_interval({"0": 1.0}, {"1": 1.0}) is None


@given(st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=20))
@settings(max_examples=100, deadline=None)
def test_a_mean_interval_holds_its_mean(vals):
    ci = stats.mean_interval(vals)
    assert ci.lo <= ci.mean + 1e-9 * (1 + abs(ci.mean)) and ci.mean <= ci.hi + 1e-9 * (1 + abs(ci.mean))


# ---------------------------------------------------------------------------------------- shares
@pytest.mark.parametrize(("k", "n"), [(81, 263), (0, 10), (10, 10), (1, 2), (15, 148), (4, 5), (0, 1), (37, 1000)])
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_wilson_interval_is_statsmodels(k, n, level):
    lo, hi = proportion_confint(k, n, alpha=1 - level, method="wilson")
    assert stats.wilson_interval(k, n, level) == pytest.approx((lo, hi), rel=1e-9, abs=1e-12)


def test_wilson_interval_with_no_trials_is_every_rate():
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)


@given(st.integers(0, 500), st.integers(1, 500))
@settings(max_examples=150, deadline=None)
def test_a_wilson_interval_is_inside_zero_one_and_holds_the_rate(k, n):
    k = min(k, n)
    lo, hi = stats.wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_share_interval_is_wilson_at_the_seeds_effective_sample_size():
    """Wilson at n_eff = p(1 - p) / (s²/k), t for z: statsmodels' Wilson at n_eff·(z/t)² (the interval depends
    on n through z/√n only), and the t interval itself where the mean is far from 0 and 1."""
    vals = [0.94, 0.97, 0.88, 0.95, 0.96]
    k, p, var = len(vals), np.mean(vals), np.var(vals, ddof=1)
    n_eff = p * (1 - p) / (var / k)
    z, t = ss.norm.ppf(0.975), ss.t.ppf(0.975, k - 1)
    nobs = n_eff * (z / t) ** 2
    lo, hi = proportion_confint(p * nobs, nobs, alpha=0.05, method="wilson")
    ci = stats.share_interval(vals)
    assert ci.mean == pytest.approx(p) and (ci.lo, ci.hi) == pytest.approx((lo, hi), rel=1e-9)
    assert ci.hi < 1.0  # the t interval of these seeds would reach past 1
    assert ss.t.interval(0.95, k - 1, loc=p, scale=ss.sem(vals))[1] > ci.hi

    mid = [0.48, 0.52, 0.50, 0.47, 0.53]
    sm, tt = stats.share_interval(mid), ss.t.interval(0.95, 4, loc=np.mean(mid), scale=ss.sem(mid))
    assert sm.hi - sm.lo == pytest.approx(tt[1] - tt[0], rel=0.02)


def test_the_issues_example_stays_inside_zero_one():
    """Issue #37: "0.940 [0.866, 1.014]" on kback: a t interval of accuracies over 5 seeds."""
    vals = [0.98, 0.99, 0.85, 0.90, 0.98]
    _t_lo, t_hi = ss.t.interval(0.95, 4, loc=np.mean(vals), scale=ss.sem(vals))
    assert t_hi > 1.0
    ci = stats.share_interval(vals)
    assert 0.0 <= ci.lo <= ci.mean <= ci.hi <= 1.0


@given(SHARES)
@settings(max_examples=300, deadline=None)
def test_a_share_interval_is_inside_zero_one_and_holds_the_mean(vals):
    ci = stats.share_interval(vals)
    if len(vals) == 1:
        assert ci.lo is None and ci.hi is None
        return
    assert 0.0 <= ci.lo <= ci.mean <= ci.hi <= 1.0


def test_seeds_that_agree_exactly_give_a_point():
    assert stats.share_interval([1.0, 1.0, 1.0]) == stats.Interval(1.0, 1.0, 1.0, 3)
    assert stats.share_interval([0.25, 0.25]) == stats.Interval(0.25, 0.25, 0.25, 2)
    assert stats.share_interval([None]) is None


# -------------------------------------------------------------------------------------- exact tests
@given(st.integers(0, 300), st.integers(0, 300))
@settings(max_examples=150, deadline=None)
def test_sign_test_is_scipys_binomtest(k, n):
    assume(k <= n)
    ref = 1.0 if n == 0 else ss.binomtest(k, n, 0.5).pvalue
    assert stats.sign_test(k, n) == pytest.approx(ref, rel=1e-9, abs=1e-300)


def test_mcnemar_uses_the_discordant_pairs_only():
    """Issue #37: 4 of 5 keys against 0 of 5 on the same keys: exact p = 0.125."""
    a, b = [1, 1, 1, 1, 0], [0, 0, 0, 0, 0]
    assert stats.mcnemar_exact(a, b) == pytest.approx(0.125) == pytest.approx(ss.binomtest(4, 4, 0.5).pvalue)
    rng = np.random.default_rng(3)
    x, y = rng.random(60) < 0.7, rng.random(60) < 0.4
    only_x, only_y = int((x & ~y).sum()), int((~x & y).sum())
    ref = ss.binomtest(only_x, only_x + only_y, 0.5).pvalue
    assert stats.mcnemar_exact(x, y) == pytest.approx(ref) == pytest.approx(stats.mcnemar_exact(y, x))
    assert stats.mcnemar_exact([True, False], [True, False]) == 1.0  # no discordant pair: no evidence


# ------------------------------------------------------------------------------------ multiplicity
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30), st.sampled_from(["holm", "bonferroni"]))
@settings(max_examples=150, deadline=None)
def test_adjusted_pvalues_are_statsmodels(p, method):
    np.testing.assert_allclose(stats.adjust_pvalues(p, method), multipletests(p, method=method)[1], rtol=1e-12, atol=0)


def test_bonferroni_level():
    assert stats.bonferroni_level(0.95, 27) == pytest.approx(1 - 0.05 / 27)
    assert stats.bonferroni_level(0.95, 1) == pytest.approx(0.95)
    with pytest.raises(ValueError, match="comparisons must be >= 1, got 0"):
        stats.bonferroni_level(0.95, 0)


# --------------------------------------------------------------------------------------- bootstrap
def test_block_length_one_is_the_plain_bootstrap_with_the_same_seed():
    """By hand: the plain bootstrap draws every row uniformly (numpy's generator, the same seed)."""
    x = np.random.default_rng(1).normal(1.0, 1.0, size=200)
    rng = np.random.default_rng(7)
    means = x[rng.integers(0, x.size, size=(500, x.size))].mean(axis=1)
    ref = np.quantile(means, [0.025, 0.975])
    for scheme in ("moving", "blocks"):
        est, lo, hi = stats.bootstrap(np.mean, x, n=500, seed=7, block=1, scheme=scheme)
        assert est == pytest.approx(x.mean()) and (lo, hi) == pytest.approx(tuple(ref), rel=1e-12)


def test_the_plain_bootstrap_interval_is_about_the_normal_one():
    x = np.random.default_rng(1).normal(1.0, 1.0, size=400)
    _est, lo, hi = stats.bootstrap(np.mean, x, n=2000)
    assert lo < 1.0 < hi and hi - lo == pytest.approx(2 * ss.norm.ppf(0.975) * ss.sem(x), rel=0.1)


def test_non_overlapping_blocks_resample_whole_blocks_by_hand():
    x = np.arange(10.0)  # blocks of 3: [0,1,2], [3,4,5], [6,7,8]; 9 dropped from the estimate too
    rng = np.random.default_rng(5)
    chosen = rng.integers(0, 3, size=(300, 3))
    ref = np.quantile(x[:9].reshape(3, 3).mean(axis=1)[chosen].mean(axis=1), [0.025, 0.975])
    est, lo, hi = stats.bootstrap(np.mean, x, n=300, seed=5, block=3, scheme="blocks")
    assert est == pytest.approx(4.0) and (lo, hi) == pytest.approx(tuple(ref))


def test_the_bootstrap_pairs_its_samples_and_is_deterministic():
    a = np.random.default_rng(2).normal(size=512)
    assert tuple(stats.bootstrap(lambda u, v: np.mean(u - v), a + 0.3, a, block=8)) == pytest.approx((0.3, 0.3, 0.3))
    assert stats.bootstrap(np.mean, a, seed=3, block=16) == stats.bootstrap(np.mean, a, seed=3, block=16)
    assert stats.bootstrap(np.mean, a, seed=3, block=16) != stats.bootstrap(np.mean, a, seed=4, block=16)


@given(
    st.lists(st.floats(-100, 100), min_size=4, max_size=40), st.integers(1, 4), st.sampled_from(["moving", "blocks"])
)
@settings(max_examples=60, deadline=None)
def test_a_block_bootstrap_interval_of_the_mean_holds_the_mean(vals, block, scheme):
    x = np.array(vals)
    est, lo, hi = stats.bootstrap(np.mean, x, n=200, block=min(block, x.size // 2), scheme=scheme)
    tol = 1e-9 * (1 + np.abs(x).max())
    assert lo - tol <= est <= hi + tol


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=10, deadline=None)
def test_blocks_widen_the_interval_of_a_strongly_autocorrelated_series(seed):
    """AR(1) with φ = 0.9: the mean's true standard error is √((1 + φ)/(1 − φ)) ≈ 4.4 times the iid one; the
    plain bootstrap misses it, blocks of 20 recover most of it."""
    rng = np.random.default_rng(seed)
    e = rng.normal(size=400)
    x = np.empty(400)
    x[0] = e[0] / math.sqrt(1 - 0.81)
    for i in range(1, 400):
        x[i] = 0.9 * x[i - 1] + e[i]
    _, lo1, hi1 = stats.bootstrap(np.mean, x, n=400, seed=1)
    _, lo20, hi20 = stats.bootstrap(np.mean, x, n=400, seed=1, block=20)
    assert hi20 - lo20 > 1.8 * (hi1 - lo1)


def test_difference_of_means_resamples_each_sample_alone():
    rng = np.random.default_rng(4)
    a, b = rng.normal(2.0, 1.0, 900), rng.normal(1.0, 1.0, 900)
    est, lo, hi = stats.difference_of_means(a, b, n=2000)
    assert est == pytest.approx(a.mean() - b.mean()) and lo < 1.0 < hi
    se = math.sqrt(ss.sem(a) ** 2 + ss.sem(b) ** 2)
    assert hi - lo == pytest.approx(2 * ss.norm.ppf(0.975) * se, rel=0.1)
    trend = np.linspace(0.0, 1.0, 16)  # a trending series: blocks keep the trend inside a resample
    assert np.ptp(stats.difference_of_means(trend + 1, trend, block=4)[1:]) > np.ptp(
        stats.difference_of_means(trend + 1, trend, block=1)[1:]
    )


@pytest.mark.parametrize(("n", "block"), [(1, 1), (2, 1), (3, 1), (8, 2), (16, 3), (27, 3), (28, 4), (1000, 10)])
def test_block_length_grows_as_the_cube_root(n, block):
    assert stats.block_length(n) == block


def test_share_interval_with_trials_never_claims_certainty():
    """Seeds that agree exactly: Wilson's interval at all their trials pooled (t(k − 1) for z, as
    statsmodels' Wilson at n·(z/t)² trials), not a zero-width bracket."""
    from scipy import stats as sps
    from statsmodels.stats import proportion

    k, per_seed = 5, 8192
    got = stats.share_interval([1.0] * k, trials=[per_seed] * k)
    nobs = k * per_seed * (sps.norm.ppf(0.975) / sps.t.ppf(0.975, k - 1)) ** 2
    lo, _ = proportion.proportion_confint(nobs, nobs, alpha=0.05, method="wilson")
    assert got.mean == 1.0 and got.hi == 1.0 and 0.999 < got.lo < 1.0
    assert got.lo == pytest.approx(lo, rel=1e-9)
    assert stats.share_interval([1.0] * k).lo == 1.0  # without trials: what the spread alone says


def test_share_interval_trials_cap_the_effective_size():
    vals = [0.9990, 0.9991, 0.9990, 0.9991, 0.9990]  # agree far better than 100 trials each could show
    capped = stats.share_interval(vals, trials=[100] * 5)
    free = stats.share_interval(vals)
    assert capped.hi - capped.lo > free.hi - free.lo
    with pytest.raises(ValueError, match="one count per value"):
        stats.share_interval(vals, trials=[100] * 4)


def test_the_labs_seed_interval_is_t_for_a_loss_and_wilson_for_an_accuracy():
    """posenc.lab.seed_interval, what the lab page and its snippet state: a loss's mean over seeds with
    scipy's t interval; an accuracy's stays inside [0, 1] even at a share of 1 over five seeds."""
    from posenc.lab import seed_interval

    losses = [0.021, 0.018, 0.025, 0.016, 0.022]
    lo, hi = ss.t.interval(0.95, len(losses) - 1, loc=np.mean(losses), scale=ss.sem(losses))
    got = seed_interval("loss", losses)
    assert got.mean == pytest.approx(np.mean(losses)) and (got.lo, got.hi) == (pytest.approx(lo), pytest.approx(hi))
    acc = seed_interval("accuracy", [1.0, 1.0, 0.98, 1.0, 0.99], trials=[200] * 5)
    assert 0.0 <= acc.lo <= acc.mean <= acc.hi <= 1.0
    assert seed_interval("accuracy", [1.0] * 5, trials=[200] * 5).hi == 1.0
