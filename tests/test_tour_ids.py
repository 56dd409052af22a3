"""Tour links that keep working (issue #9 leftover): every step has a stable id (``?step=rope-1``),
the tour writes ids into links, and numbers (``?step=5``) still open the step they open on main.

The ids below are published (links hold them): the list is frozen here on purpose, so that a
change to it is a visible decision. The pre-#9 tour (12 steps, `git show 183788e^:explorer/tour.py`)
is re-typed below: its steps 1-11 still open the same page with the same values.
"""

from __future__ import annotations

import dataclasses

import pytest
from _apptest import page_path
from streamlit.testing.v1 import AppTest

from explorer import manifest, tour
from explorer.pagespec import Step

PUBLISHED_IDS = (
    "home-1",
    "home-2",
    "sinusoidal-1",
    "clocks-1",
    "rope-1",
    "rope-2",
    "invariance-1",
    "extension-1",
    "extension-2",
    "extension-3",
    "extension-4",
    "lab-1",
    "lab-2",
    "lab-3",
    "vision-1",
    "vision-2",
    "compare-1",
    "realmodel-frequencies",
    "realmodel-long",
)

_EXT = {"head_dim": 128, "base": 10000, "train_len": 4096, "target_len": 16384}
#: The tour before #9 (page script, values), re-typed from 183788e^:explorer/tour.py.
OLD_TOUR = (
    ("app.py", {"home_pe": "none"}),
    ("app.py", {"home_pe": "sinusoidal"}),
    ("pages/1_Sinusoidal_heatmap.py", {"seq_len": 512, "d_model": 128}),
    ("pages/2_Clock_hands.py", {"d_model": 64, "n_clocks": 8, "m": 100}),
    ("pages/3_RoPE_rotation.py", {"head_dim": 64, "j": 0, "m": 5, "n": 12}),
    ("pages/3_RoPE_rotation.py", {"head_dim": 64, "j": 31, "m": 500, "n": 512}),
    ("pages/4_Relative_invariance.py", {"seq_len": 64, "shift_t": 100}),
    ("pages/5_Context_extension.py", {**_EXT, "rope_type": "default"}),
    ("pages/5_Context_extension.py", {**_EXT, "rope_type": "linear", "factor": 4.0, "ext_view": "Rescaling"}),
    ("pages/5_Context_extension.py", {**_EXT, "rope_type": "yarn", "factor": 4.0, "ext_view": "Attention"}),
    (
        "pages/5_Context_extension.py",
        {
            "head_dim": 128,
            "base": 500000,
            "train_len": 8192,
            "target_len": 131072,
            "rope_type": "llama3",
            "factor": 8.0,
            "low_freq_factor": 1.0,
            "high_freq_factor": 4.0,
            "model": "llama3.1-8b",
            "ext_view": "Rescaling",
        },
    ),
    ("pages/6_Compare_methods.py", {}),  # now pages/8_Compare_methods.py (same URL path), step compare-1
)


def run(query: dict) -> AppTest:
    at = AppTest.from_file(page_path("app.py"), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_step(at: AppTest) -> str:
    (caption,) = [c.value for c in at.caption if c.value.startswith("Guided tour · step")]
    return caption


def test_the_published_ids_do_not_move():
    assert tuple(step.id for step in tour.TOUR) == PUBLISHED_IDS
    assert not manifest.problems()


def test_old_step_numbers_1_to_11_open_the_same_step():
    for number, (script, values) in enumerate(OLD_TOUR[:11], start=1):
        step = tour.get_step(number)
        assert step.page.script == script, number
        assert values.items() <= step.params.items(), number  # later issues only added values
    # the old step 12 (Compare methods) is compare-1 now; the number 12 is the lab's first step on main
    compare = tour.step_number("compare-1")
    assert compare is not None and tour.get_step(compare).page.url_path == "Compare_methods"
    assert tour.get_step(12).id == "lab-1"


@pytest.mark.parametrize("number", range(1, len(PUBLISHED_IDS) + 1))
def test_a_step_opens_by_its_id_and_by_its_number(number):
    step = tour.get_step(number)
    by_id, by_number = run({"step": step.id}), run({"step": str(number)})
    for at in (by_id, by_number):
        assert shown_step(at).startswith(f"Guided tour · step {number} of {len(PUBLISHED_IDS)} · {step.page.title}")
        assert any(m.value == step.narration for m in at.markdown)
        assert at.query_params["step"] == step.id  # the address bar names it by id
        for key, value in step.params.items():
            assert at.session_state[key] == value, key


def test_next_writes_the_next_id_and_the_share_link_holds_it():
    at = run({"step": "rope-1"})
    at.button(key="tour_next").click().run()
    assert not at.exception
    assert at.query_params["step"] == "rope-2"
    assert shown_step(at).startswith("Guided tour · step 6 of")
    (share,) = [m.value for m in at.markdown if m.value.startswith("**Link to this view**")]
    assert "step=rope-2" in share and "step=6" not in share


@pytest.mark.parametrize("raw", ["ROPE-1", " rope-1 "])
def test_an_id_in_other_case_or_with_spaces_opens_the_step(raw):
    assert tour.step_number(raw) == 5


@pytest.mark.parametrize("raw", ["rope-9", "rope", "compare-0", "1e400", "", "<b>x</b>"])
def test_an_unknown_id_is_a_warning_not_a_crash(raw):
    assert tour.step_number(raw) is None
    at = run({"step": raw}) if raw else None
    if at is not None:
        assert any("tour step that does not exist" in w.value for w in at.warning)
        assert at.title[0].value == "Why position matters" and "<b>" not in " ".join(w.value for w in at.warning)


def test_step_number_reads_numbers_and_ids():
    assert tour.step_number("0") == 0
    n = len(tour.TOUR)
    assert tour.step_number(str(n)) == n and tour.step_number(str(n + 1)) is None
    assert tour.step_number(["compare-1"]) == 17 and tour.step_number(["1", "2"]) is None
    assert tour.step_number(["realmodel-long"]) == PUBLISHED_IDS.index("realmodel-long") + 1


def test_a_step_with_its_own_id_keeps_the_others_ids():
    rope = manifest.page("rope")
    first, second = rope.tour
    inserted = Step({"head_dim": 32}, "A new step inserted first.", id="rope-small-head")
    changed = dataclasses.replace(rope, tour=(inserted, first, second))
    assert manifest.step_ids(changed) == ("rope-small-head", "rope-1", "rope-2")
    appended = dataclasses.replace(rope, tour=(first, second, Step({}, "A third one.")))
    assert manifest.step_ids(appended) == ("rope-1", "rope-2", "rope-3")
