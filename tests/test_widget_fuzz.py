"""Random allowed settings on every page (hypothesis): no exception, and the sentences the pages
compute ("What to notice") say what posenc computes for the same settings.

Every page in the manifest is opened once at its defaults to learn which registered parameters it
draws; hypothesis then draws a value for each from the parameter's own declaration (range and step
grid, options, text including junk) and opens the page with them in the URL, exactly as a link would.
CI runs a fixed (derandomised) set of examples; ``HYPOTHESIS_PROFILE=dev`` explores at random.
"""

from __future__ import annotations

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
from explorer import manifest, params
from explorer.param import NUMERIC_KINDS, OPTION_KINDS, Param

ROOT = Path(__file__).resolve().parent.parent
FRAME_KEYS = {"present", "step"}  # the frame's own parameters (tested in test_presentation.py)
#: Pages that train or load models keep their own tests of random inputs.
SKIP = {"lab"}

settings.register_profile(
    "ci", max_examples=8, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)
settings.register_profile("dev", max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: Text a user or a link may put into a text parameter: numbers, junk, markup, huge values.
TEXTS = st.one_of(
    st.sampled_from(["", " ", "1, 2, 3, 4", "1,,2", "nan, inf", "1e308, -1e308", "<b>x</b>", "$x$", "a b c"]),
    st.text(alphabet="0123456789,.-+eE abc()[]*_`$<>", max_size=40),
)


def value_strategy(param: Param) -> st.SearchStrategy:
    """Every value the parameter's declaration allows (a link may carry any of them)."""
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
    at = AppTest.from_file(str(ROOT / script), default_timeout=180)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at


_KEYS: dict[str, list[str]] = {}


def drawn_keys(page) -> list[str]:
    """The registered parameters the page draws at its defaults (tabs' own widgets included)."""
    if page.slug not in _KEYS:
        at = run(page.script, {})
        assert not at.exception, [e.message for e in at.exception]
        keys = [k for k in params.PARAMS if k not in FRAME_KEYS and k in at.session_state]
        _KEYS[page.slug] = sorted(keys)
    return _KEYS[page.slug]


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
    turns = re.search(r"(\d+) of (\d+) pairs \(the fastest", text)
    assert turns and int(turns.group(2)) == d // 2
    assert int(turns.group(1)) == int(np.sum(train_len * theta >= 2 * np.pi))


def claims_configs(at: AppTest, text: str) -> None:
    """The NTK converter's cards against b′ = b·α^(d/(d−2)) written out here (the page's fallback to
    α = 1 when b′ would not be above 1 is announced with a warning)."""
    d, base = at.session_state["head_dim"], float(at.session_state["base"])
    cards = {m.label: m.value for m in at.metric}
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


CLAIMS = {
    "configs": claims_configs,
    "sinusoidal": claims_sinusoidal,
    "clocks": claims_clocks,
    "rope": claims_rope,
    "extension": claims_extension,
}


# ------------------------------------------------------------------------------------ the test
@pytest.mark.parametrize("page", [p for p in manifest.PAGES if p.slug not in SKIP], ids=lambda p: p.slug)
def test_random_allowed_settings_never_crash_and_the_claims_hold(page):
    keys = drawn_keys(page)
    assert keys, f"{page.slug} draws no registered parameter"
    strategy = st.fixed_dictionaries({key: value_strategy(params.get(key)) for key in keys})

    @given(values=strategy)
    def check(values):
        query = {key: params.get(key).to_url(value) for key, value in values.items()}
        at = run(page.script, query)
        assert not at.exception, (query, [e.message for e in at.exception])
        assert at.title and at.title[0].value == page.title, query
        if page.slug in CLAIMS and (notices(at) or page.slug == "configs"):
            CLAIMS[page.slug](at, notices(at))

    check()


def test_the_claim_checks_can_fail():
    """A claim checker must reject a wrong number (here: the clocks' last wavelength doubled)."""
    at = run("pages/2_Clock_hands.py", {"d_model": "16", "base": "1000"})
    assert not at.exception
    text = notices(at)
    wrong = re.sub(r"needs ([\d,]+) tokens", lambda m: f"needs {2 * number(m.group(1)):,.0f} tokens", text)
    claims_clocks(at, text)
    with pytest.raises(AssertionError):
        claims_clocks(at, wrong)
