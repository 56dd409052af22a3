"""Random allowed settings on every page (hypothesis): no exception, and the sentences the pages
compute ("What to notice", captions, chart titles) say what posenc computes for the same settings.

A page's *mode* (the method on Context extension, the input form on RoPE rotation, the source of q
and k on Relative invariance, what the converter starts from on Model configs, the model on Images
and video) decides which other widgets it draws, so the mode is drawn first: every (page, mode) is
opened once to learn which registered parameters it draws, and hypothesis then draws a value for
each from the parameter's own declaration (range and step grid, options, text including junk and
valid vectors) and opens the page with them in the URL, exactly as a link would. Model configs also
gets encoded configs in its link (the shipped examples and junk). The Extrapolation lab is opened
at its views only: a test never starts a training job. CI runs a fixed (derandomised) number of
examples per page; ``HYPOTHESIS_PROFILE=dev`` explores at random.
"""

from __future__ import annotations

import json
import math
import os
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import posenc
from explorer import jobs, manifest, widgets
from explorer.charts import compare as compare_charts
from explorer.paramspec import NUMERIC_KINDS, OPTION_KINDS, Param
from explorer.site import configs as configs_site
from posenc import attention as att
from posenc.models import PRESETS

ROOT = Path(__file__).resolve().parent.parent
FRAME_KEYS = {"present", "step"}  # the frame's own parameters (tested in test_presentation.py)
#: Examples per page in CI, shared out over the page's modes (at least MIN_PER_MODE each).
PER_PAGE, MIN_PER_MODE = 8, 3

settings.register_profile(
    "ci", max_examples=PER_PAGE, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
settings.register_profile("dev", max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: The parameter that decides which other widgets a page draws (each of its options is a mode).
MODES = {
    "extension": "rope_type",
    "rope": "vec_input",
    "invariance": "qk_source",
    "configs": "conv_from",
    "vision": "vis_model",
}

#: Text a user or a link may put into a text parameter: numbers, junk, markup, huge values.
TEXTS = st.one_of(
    st.sampled_from(["", " ", "1, 2, 3, 4", "1,,2", "nan, inf", "1e308, -1e308", "<b>x</b>", "$x$", "a b c"]),
    st.text(alphabet="0123456789,.-+eE abc()[]*_`$<>", max_size=40),
)
#: Typed q, k vectors: valid ones of a few sizes (two of one size meet often), and junk.
VECTORS = st.one_of(
    st.sampled_from(["1, 0, 0.5, -2", "[0, 1, 2, 0.25]", "3, -1", "1, 2, 3, 4, 5, 6, 7, 8", "0, 0, 0, 0"]),
    st.lists(st.floats(-1e3, 1e3, allow_nan=False).map(lambda x: round(x, 3)), min_size=2, max_size=8).map(
        lambda xs: ", ".join(f"{x:g}" for x in xs)
    ),
    TEXTS,
)


#: Model configs' ``cfg`` link value: every preset's config encoded, small encoded JSON, and junk.
CFG_TEXTS = st.one_of(
    st.sampled_from(sorted(PRESETS)).map(lambda key: configs_site.encode_text(json.dumps(PRESETS[key].config))),
    st.sampled_from(['{"rope_type": "ntk", "factor": 4}', '{"head_dim": 988, "rope_theta": 100}', "{"]).map(
        configs_site.encode_text
    ),
    TEXTS,
)
#: Strategies for parameters whose declaration (plain text) does not say what valid values look like.
OVERRIDES = {"q_text": VECTORS, "k_text": VECTORS}
#: Parameters a page reads without drawing a widget for them, with their strategies.
EXTRA = {"configs": {"cfg": CFG_TEXTS}}


def value_strategy(param: Param) -> st.SearchStrategy:
    """Every value the parameter's declaration allows (a link may carry any of them)."""
    if param.key in OVERRIDES:
        return OVERRIDES[param.key].map(lambda text: text[: param.text_max_len])
    if param.kind in NUMERIC_KINDS:
        assert param.min is not None and param.max is not None and param.step is not None
        steps = int(math.floor((param.max - param.min) / param.step + 1e-9))
        grid = st.integers(0, steps).map(lambda k: param.clamp(param.min + k * param.step))
        return st.one_of(st.just(param.min), st.just(param.max), grid)
    if param.kind in OPTION_KINDS:
        return st.sampled_from(list(param.options or ()))
    if param.kind == "toggle":
        return st.booleans()
    return TEXTS.map(lambda text: text[: param.text_max_len])


def run(script: str, query: dict[str, str]) -> AppTest:
    """The page opened with `query` in the URL."""
    at = AppTest.from_file(str(ROOT / script), default_timeout=180)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at


_KEYS: dict[tuple[str, str | None], list[str]] = {}


def drawn_keys(page, mode: str | None) -> list[str]:
    """The registered parameters the page draws in `mode` (tabs' own widgets included), the mode's
    own parameter left out (it is fixed)."""
    if (page.slug, mode) not in _KEYS:
        query = {MODES[page.slug]: widgets.get(MODES[page.slug]).to_url(mode)} if mode is not None else {}
        at = run(page.script, query)
        assert not at.exception, [e.message for e in at.exception]
        skip = FRAME_KEYS | set(query)
        keys = [k for k in widgets.PARAMS if k not in skip and k in at.session_state]
        _KEYS[(page.slug, mode)] = sorted(keys)
    return _KEYS[(page.slug, mode)]


def page_modes() -> list[tuple[object, str | None]]:
    cases = []
    for page in manifest.PAGES:
        key = MODES.get(page.slug)
        cases += [(page, mode) for mode in widgets.get(key).options] if key else [(page, None)]
    return cases


def examples_for(page) -> int:
    key = MODES.get(page.slug)
    n_modes = len(widgets.get(key).options) if key else 1
    return max(MIN_PER_MODE, math.ceil(PER_PAGE / n_modes))


def notices(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown if m.value.startswith("**What to notice**"))


def number(text: str) -> float:
    return float(text.replace(",", ""))


# ------------------------------------------------------------------------- claims, per page
def claims_sinusoidal(at: AppTest, text: str) -> None:
    d, base, seq_len = at.session_state["d_model"], float(at.session_state["base"]), at.session_state["seq_len"]
    wl = posenc.wavelengths(d, base=base)
    if d > 2:
        shown = re.search(r"run from 2π ≈ 6\.28 to ([\d,.]+) tokens", text)
        # printed with 4 significant digits below 1,000 tokens, whole tokens above
        assert shown and number(shown.group(1)) == pytest.approx(wl.max(), rel=5e-4, abs=0.5)
        never = re.search(r"(\d+) of (\d+) pairs have a wavelength longer", text)
        assert never and int(never.group(1)) == int(np.sum(wl > seq_len)) and int(never.group(2)) == d // 2
    if seq_len >= 2:
        k = np.arange(1, seq_len)
        dist = posenc.distance_by_offset(k, d, base=base)
        closest = re.search(r"the closest two are k = (\d+) apart and differ by ([\d.e+-]+)", text)
        assert closest and int(closest.group(1)) == int(k[np.argmin(dist)])
        assert float(closest.group(2)) == pytest.approx(dist.min(), rel=5e-3)


def claims_clocks(at: AppTest, text: str) -> None:
    d, base = at.session_state["d_model"], float(at.session_state["base"])
    slowest = posenc.wavelengths(d, base=base)[-1]
    if d == 2:  # one hand only: the page says so instead of naming a last hand
        assert "it is the only hand" in text and "The last hand" not in text
    else:
        shown = re.search(r"The last hand needs ([\d,.]+) tokens for one turn", text)
        # three significant digits below 100 tokens, whole tokens above
        assert shown and number(shown.group(1)) == pytest.approx(slowest, rel=5e-3, abs=0.5)
    gap = re.search(r"differ on it by only ([\d.]+)°", text)
    assert gap and float(gap.group(1)) == pytest.approx(math.degrees(abs(math.remainder(44.0, 2 * math.pi))), abs=0.05)


def claims_rope(at: AppTest, text: str) -> None:
    d, base = at.session_state["head_dim"], float(at.session_state["base"])
    theta = posenc.inverse_frequencies(d, base=base)
    if d == 2:
        assert "with d = 2 there is only pair 0" in text
        return
    slowest = re.search(r"the slowest pair, j = (\d+), ([\d.e+-]+)°", text)
    assert slowest and int(slowest.group(1)) == d // 2 - 1
    assert float(slowest.group(2)) == pytest.approx(math.degrees(theta[-1]), rel=5e-3)


def claims_extension(at: AppTest, text: str) -> None:
    d, base = at.session_state["head_dim"], float(at.session_state["base"])
    train_len = at.session_state["train_len"]
    theta = posenc.inverse_frequencies(d, base=base)
    full_turns = int(np.sum(train_len * theta >= 2 * np.pi))
    every = re.search(r"Every pair \((\d+) of (\d+)\) completes at least one turn", text)
    turns = every or re.search(r"(\d+) of (\d+) pairs \(the fastest", text)
    assert turns and int(turns.group(2)) == d // 2
    assert int(turns.group(1)) == full_turns and bool(every) == (full_turns == d // 2)


def claims_configs(at: AppTest, text: str) -> None:
    """A rope block on its own read with the link's fallback sizes; the NTK converter's cards against
    b′ = b·α^(d/(d−2)) written out here (the page's fallback to α = 1 when b′ would not be above 1 is
    announced with a warning)."""
    d, base = at.session_state["head_dim"], float(at.session_state["base"])
    cards = {m.label: m.value for m in at.metric}
    if cards.get("Read as") == "rope block":  # no sizes in the text: the link's fallback sizes are used
        assert cards["Head dim (rotated)"].split(" of ")[-1] == str(at.session_state["cfg_head_dim"])
        assert cards["max_position_embeddings"] == f"{at.session_state['cfg_max_pos']:,}"
    if "NTK alpha α" not in cards:
        return
    alpha = float(cards["NTK alpha α"])
    new_base = number(cards["rope_theta b′"])
    fell_back = any("is not above 1" in w.value for w in at.warning)
    if fell_back:
        assert alpha == 1.0 and new_base == pytest.approx(base, abs=0.005)
    elif at.session_state["conv_from"] == "rope_theta":
        asked = float(at.session_state["new_theta"])
        assert new_base == pytest.approx(asked, abs=0.005)
        assert alpha == pytest.approx((asked / base) ** ((d - 2) / d), rel=1e-5)
    else:
        assert new_base == pytest.approx(base * alpha ** (d / (d - 2)), rel=1e-5, abs=0.005)
    # the slowest pair's wavelength is multiplied by α, the fastest by 1 (θ_0 = 1 for every base)
    assert number(cards["Slowest pair's wavelength"].lstrip("× ")) == pytest.approx(alpha, rel=1e-3)
    assert number(cards["Fastest pair's wavelength"].lstrip("× ")) == 1.0


def claims_extension_linear(at: AppTest, text: str) -> None:
    """Linear's sentence: with the block's s, the pairs still out of range at T (none once s·L ≥ T),
    counted here from θ_j and θ_j/s."""
    said = re.search(
        r"with this block's s = ([\d.e+]+), (no pair is out of range|(\d+) pairs are still out of range)", text
    )
    if at.session_state["rope_type"] != "linear" or any(
        e.value.startswith("This rope block is not valid") for e in at.error
    ):
        assert said is None or at.session_state["rope_type"] == "linear"
        return
    assert said, text
    s, d, base = float(said.group(1)), at.session_state["head_dim"], float(at.session_state["base"])
    train_len, target_len = at.session_state["train_len"], at.session_state["target_len"]
    assert s == pytest.approx(float(at.session_state["factor"]), rel=1e-6)
    theta = np.array([base ** (-2 * j / d) for j in range(d // 2)])
    still_out = int(np.sum((target_len * theta / s > train_len * theta * (1 + 1e-9)) & (train_len * theta < 2 * np.pi)))
    assert int(said.group(3) or 0) == still_out
    if s * train_len >= target_len:
        assert still_out == 0


def claims_home(at: AppTest, text: str) -> None:
    """The shuffle: 'leaves every word where it was' only when it does, and the repeated word named
    is one that occurs twice in the tokenised sentence (both from posenc.attention)."""
    sentence, seed = at.session_state["sentence"], int(at.session_state["shuffle_seed"])
    try:
        words, _ = att.tokenize(sentence, max_tokens=24)
    except (TypeError, ValueError):
        words, _ = att.tokenize(widgets.get("sentence").default, max_tokens=24)
    perm = att.shuffle_permutation(words, seed=seed)
    in_place = [words[i] for i in perm] == list(words)
    if "this shuffle leaves every word where it was" in text:
        assert in_place, (words, perm)
    gap = re.search(r"the largest difference is ([\d.e+-]+), far above rounding error", text)
    if gap:
        assert not in_place and float(gap.group(1)) > 0
    repeated = re.search(r'A repeated word \(here "(.+?)"\)', text)
    counts = {w: list(words).count(w) for w in words}
    if repeated:
        assert counts.get(repeated.group(1).replace("\\", ""), 0) >= 2, (repeated.group(1), words)
    else:
        assert all(c == 1 for c in counts.values()), words


def claims_invariance(at: AppTest, text: str) -> None:
    """The decay sentence against posenc.rope_decay_bound, and (random q, k) the pass mark and the
    RoPE verdict against posenc.rope_shift_tolerance for the seeded vectors."""
    said = re.search(r"here \(d = (\d+), base ([\d.e+]+)\) (.+?)\.(\n|$)", text)
    assert said, text
    d, base, body = int(said.group(1)), float(said.group(2)), said.group(3)
    assert base == float(at.session_state["base"])
    if at.session_state["qk_source"] == "random":
        assert d == at.session_state["head_dim"]
    at_one = float(posenc.rope_decay_bound([1], d, base=base)[0])
    if "at every distance and does not fall" in body:
        assert d == 2
        return
    assert d > 2
    falls = re.search(r"falls from ([\d.e+-]+) at distance 1 to at most ([\d.e+-]+) beyond distance ([\d,]+)", body)
    ripples = re.search(r"beyond distance ([\d,]+) it still reaches ([\d.e+-]+) \(([\d.e+-]+) at distance 1\)", body)
    assert falls or ripples, body
    first, far, far_r = (
        (falls.group(1), falls.group(2), falls.group(3))
        if falls
        else (ripples.group(3), ripples.group(2), ripples.group(1))
    )
    assert float(first) == pytest.approx(at_one, rel=5e-3)
    tail = posenc.rope_decay_bound(np.arange(number(far_r), 20_001), d, base=base)
    # the curve is drawn at sampled distances: its tail maximum lies between the tail's first value and its true maximum
    assert float(far) <= tail.max() * (1 + 5e-3) and float(far) >= tail[0] * (1 - 5e-3)
    assert (float(far) <= 0.9 * float(first) * (1 + 1e-2)) == bool(falls)
    if at.session_state["qk_source"] != "random":
        return
    q, k = posenc.seeded_normal((2, d), seed=int(at.session_state["seed"]))
    n_pos, t, dtype = at.session_state["seq_len"], at.session_state["shift_t"], at.session_state["score_dtype"]
    tol = posenc.rope_shift_tolerance(q, k, n_pos - 1 + t, dtype=dtype)
    shown = re.search(r"RoPE's shift deviation \(([\d.e+-]+) in \w+\) is (round-off|above the pass mark)", text)
    assert shown, text
    assert float({m.label: m.value for m in at.metric}["pass mark"]) == pytest.approx(tol, rel=0.06)
    assert (shown.group(2) == "round-off") == (
        float({m.label: m.value for m in at.metric}[f"RoPE ({dtype})"]) <= tol * 1.06
    )


def claims_compare(at: AppTest, text: str) -> None:
    """The shift test's window in the caption (n = min(⌊L/2⌋, 256), t = L − n, written out here) and
    the methods the notice says pass it, against posenc.attention.method_checks' deviations."""
    train_len = at.session_state["train_len"]
    n = min(train_len // 2, 256)
    caption = next(c.value for c in at.caption if c.value.startswith("Relative means"))
    assert f"over m, n < {n} with t = {train_len - n} (= L − {n}," in caption, caption
    clause = re.search(r"Of the methods that carry position, (.+?) pass the shift test", text)
    named = set(re.findall(r"\*\*(.+?)\*\*", clause.group(1))) if clause else set()
    if not clause:
        assert "No method that carries position passes the shift test" in text, text
    slope = float(posenc.alibi_slopes(8)[int(at.session_state["alibi_head"]) - 1])
    passing = set()
    for method in ("sinusoidal", "learned", "rope", "alibi"):
        check = att.method_checks(
            method,
            dim=at.session_state["head_dim"],
            trained_len=train_len,
            test_len=at.session_state["target_len"],
            seed=int(at.session_state["seed"]),
            base=float(at.session_state["base"]),
            alibi_slope=slope,
        )
        if check["shift_deviation"] <= 1e-9 * max(check["score_scale"], 1.0):
            passing.add(compare_charts.METHOD_LABELS[method])
    assert named == passing, (named, passing)


def claims_vision(at: AppTest, text: str) -> None:
    """Raster order's row-end neighbours are 1 apart: their similarity is mean_j cos(θ_j), θ_j = b^(−2j/d)
    written out here with the model's d and b."""
    end = re.search(r"neighbours in raster order \(1 apart\), similarity (-?[\d.]+)", text)
    if not end:
        return
    model = at.session_state["vis_model"]
    preset = posenc.mrope.VISION_PRESETS.get(model)
    d, base = (
        (preset.head_dim, preset.base)
        if preset
        else (int(at.session_state["vis_head_dim"]), float(at.session_state["vis_base"]))
    )
    theta = [base ** (-2 * j / d) for j in range(d // 2)]
    assert float(end.group(1)) == pytest.approx(sum(math.cos(t) for t in theta) / len(theta), abs=6e-5)


CLAIMS = {
    "home": claims_home,
    "invariance": claims_invariance,
    "compare": claims_compare,
    "vision": claims_vision,
    "configs": claims_configs,
    "sinusoidal": claims_sinusoidal,
    "clocks": claims_clocks,
    "rope": claims_rope,
    "extension": claims_extension,
}


# ------------------------------------------------------------------------------------ the test
@pytest.fixture
def no_training(monkeypatch):
    """The lab's training queue refuses work: opening a page must never start a training job."""
    started = []
    monkeypatch.setattr(
        jobs.QUEUE, "submit", lambda *args, **kwargs: started.append(args) or pytest.fail("a job started")
    )
    return started


@pytest.mark.parametrize(("page", "mode"), page_modes(), ids=lambda x: getattr(x, "slug", None) or str(x))
def test_random_allowed_settings_never_crash_and_the_claims_hold(page, mode, no_training):
    keys = drawn_keys(page, mode)
    assert keys, f"{page.slug} draws no registered parameter"
    fixed = {MODES[page.slug]: st.just(mode)} if mode is not None else {}
    drawn = {key: value_strategy(widgets.get(key)) for key in keys}
    extra = EXTRA.get(page.slug, {})
    strategy = st.tuples(
        st.fixed_dictionaries({**fixed, **drawn}),
        st.fixed_dictionaries({key: st.one_of(st.none(), strat) for key, strat in extra.items()}),
    )

    @settings(max_examples=examples_for(page) if settings().max_examples == PER_PAGE else settings().max_examples)
    @given(values=strategy)
    def check(values):
        chosen, raw = values
        query = {key: widgets.get(key).to_url(value) for key, value in chosen.items()}
        query.update({key: value for key, value in raw.items() if value is not None})
        at = run(page.script, query)
        assert not at.exception, (query, [e.message for e in at.exception])
        assert at.title and at.title[0].value == page.title, query
        if page.slug in CLAIMS and (notices(at) or page.slug == "configs"):
            CLAIMS[page.slug](at, notices(at))
        if page.slug == "extension" and notices(at):
            claims_extension_linear(at, notices(at))

    check()
    assert not no_training


def test_the_claim_checks_can_fail():
    """A claim checker must reject a wrong number (here: the clocks' last wavelength doubled)."""
    at = run("pages/2_Clock_hands.py", {"d_model": "16", "base": "1000"})
    assert not at.exception
    text = notices(at)
    wrong = re.sub(r"needs ([\d,]+) tokens", lambda m: f"needs {2 * number(m.group(1)):,.0f} tokens", text)
    claims_clocks(at, text)
    with pytest.raises(AssertionError):
        claims_clocks(at, wrong)


#: (page, query, checker, a wrong number or name put into the sentence it checks)
CORRUPTIONS = [
    ("app.py", {"sentence": "the cat saw the dog"}, claims_home, (r'here "the"', 'here "cat"')),
    ("pages/8_Compare_methods.py", {}, claims_compare, (r"\*\*RoPE\*\* and ", "**Sinusoidal** and **RoPE** and ")),
    (
        "pages/7_Images_and_video.py",
        {},
        claims_vision,
        (r"\(1 apart\), similarity (-?[\d.]+)", "(1 apart), similarity 0.5"),
    ),
    ("pages/4_Relative_invariance.py", {}, claims_invariance, (r"falls from [\d.]+", "falls from 12.3")),
    (
        "pages/5_Context_extension.py",
        {"rope_type": "linear", "factor": "2"},
        claims_extension_linear,
        (r"(\d+) pairs are still out of range", "no pair is out of range"),
    ),
]


@pytest.mark.parametrize(
    ("script", "query", "checker", "corruption"), CORRUPTIONS, ids=lambda x: getattr(x, "__name__", "")
)
def test_the_new_claim_checks_pass_on_the_page_and_fail_on_a_wrong_sentence(script, query, checker, corruption):
    at = run(script, query)
    assert not at.exception, [e.message for e in at.exception]
    text = notices(at)
    checker(at, text)
    wrong = re.sub(corruption[0], corruption[1], text)
    assert wrong != text, corruption
    with pytest.raises(AssertionError):
        checker(at, wrong)
