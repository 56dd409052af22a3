"""The guided tour (explorer/tour.py; each page declares its steps, `Page.tour`, and
`explorer.manifest.TOUR` is their concatenation): the one home of its tests outside the browser.

Every step opens by its id (``?step=rope-1``) and by its number with its values and its narration;
Next/Back/End, the clicker's keys, bad steps. Elsewhere, once each: the steps' values are valid
and their ids unique and well-formed (`manifest.problems()`, tests/test_manifest.py); in Chromium,
each step's narration and point in the first screen and PageDown (tests/test_e2e_layout.py).

The ids below are published (links hold them): each must keep opening a step of the same page, so
that removing or moving one is a visible decision; a new page's steps need no entry here. The
pre-#9 tour (12 steps, `git show 183788e^:explorer/tour.py`) is re-typed below: its steps 1-11
still open the same page with the same values.
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


TITLES = {p.script: p.title for p in manifest.PAGES}


def run(query: dict, script: str = "app.py") -> AppTest:
    at = AppTest.from_file(page_path(script), default_timeout=180)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def shown_step(at: AppTest) -> str:
    (caption,) = [c.value for c in at.caption if c.value.startswith("Guided tour · step")]
    return caption


def test_the_published_ids_still_open_a_step_of_their_page_in_their_order():
    numbers = [tour.step_number(step_id) for step_id in PUBLISHED_IDS]
    assert None not in numbers, dict(zip(PUBLISHED_IDS, numbers))
    assert numbers == sorted(numbers)
    for step_id, number in zip(PUBLISHED_IDS, numbers):
        assert tour.get_step(number).page.slug == step_id.split("-")[0], step_id


def test_the_tour_is_well_formed():
    assert len({s.narration for s in tour.TOUR}) == len(tour.TOUR)  # no step says the same twice
    with pytest.raises(ValueError):
        tour.get_step(0)
    with pytest.raises(ValueError):
        tour.get_step(len(tour.TOUR) + 1)


def test_old_step_numbers_1_to_11_open_the_same_step():
    for number, (script, values) in enumerate(OLD_TOUR[:11], start=1):
        step = tour.get_step(number)
        assert step.page.script == script, number
        assert values.items() <= step.params.items(), number  # later issues only added values
    # the old step 12 (Compare methods) is compare-1 now; the number 12 is the lab's first step on main
    compare = tour.step_number("compare-1")
    assert compare is not None and tour.get_step(compare).page.url_path == "Compare_methods"
    assert tour.get_step(12).id == "lab-1"


@pytest.mark.parametrize("number", range(1, len(tour.TOUR) + 1), ids=[s.id for s in tour.TOUR])
def test_a_step_opens_by_its_id_and_by_its_number_with_its_values_and_narration(number):
    step = tour.get_step(number)
    for at in (run({"step": step.id}), run({"step": str(number)})):
        assert at.title[0].value == TITLES[step.page.script]
        assert shown_step(at).startswith(f"Guided tour · step {number} of {len(tour.TOUR)} · {step.page.title}")
        assert any(m.value == step.narration for m in at.markdown)
        assert at.query_params["step"] == step.id  # the address bar names it by id
        for key, value in step.params.items():
            assert at.session_state[key] == value, key
    at.run()  # the step stays applied (no re-entering)
    assert not at.exception and any(m.value == step.narration for m in at.markdown)


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


@pytest.mark.parametrize("raw", ["rope-9", "rope", "compare-0", "1e400", "", "<b>x</b>", "99", "abc", "-1"])
def test_an_unknown_step_is_a_warning_not_a_crash(raw):
    assert tour.step_number(raw) is None
    at = run({"step": raw}) if raw else None
    if at is not None:
        assert any("tour step that does not exist" in w.value for w in at.warning)
        assert at.title[0].value == "Why position matters" and "<b>" not in " ".join(w.value for w in at.warning)


def test_step_number_reads_numbers_and_ids():
    assert tour.step_number("0") == 0
    n = len(tour.TOUR)
    assert tour.step_number(str(n)) == n and tour.step_number(str(n + 1)) is None
    ids = [step.id for step in tour.TOUR]
    assert tour.step_number(["compare-1"]) == ids.index("compare-1") + 1 and tour.step_number(["1", "2"]) is None


def test_a_step_with_its_own_id_keeps_the_others_ids():
    rope = manifest.page("rope")
    first, second = rope.tour
    inserted = Step({"head_dim": 32}, "A new step inserted first.", id="rope-small-head")
    changed = dataclasses.replace(rope, tour=(inserted, first, second))
    assert manifest.step_ids(changed) == ("rope-small-head", "rope-1", "rope-2")
    appended = dataclasses.replace(rope, tour=(first, second, Step({}, "A third one.")))
    assert manifest.step_ids(appended) == ("rope-1", "rope-2", "rope-3")


def test_next_back_and_end():
    at = run({"step": "4"})
    at.button(key="tour_next").click().run()
    assert not at.exception
    assert any(m.value == tour.get_step(5).narration for m in at.markdown)
    at.button(key="tour_prev").click().run()
    at.button(key="tour_prev").click().run()
    assert any(m.value == tour.get_step(3).narration for m in at.markdown)
    assert at.title[0].value == TITLES[tour.get_step(3).page.script]
    at.button(key="tour_end").click().run()
    assert not at.exception
    assert "step" not in at.query_params
    assert not any(m.value == tour.get_step(3).narration for m in at.markdown)
    assert at.button(key="tour_resume").label == "Resume tour at step 3"
    at.button(key="tour_resume").click().run()
    assert any(m.value == tour.get_step(3).narration for m in at.markdown)


def test_the_buttons_answer_a_clicker():
    at = run({"step": "1"})
    assert at.button(key="tour_next").proto.shortcut.lower() == "pagedown"
    assert at.button(key="tour_prev").proto.shortcut.lower() == "pageup"
    assert at.button(key="tour_prev").disabled
    last = run({"step": str(len(tour.TOUR))})
    assert last.button(key="tour_next").disabled


def test_a_step_link_with_its_own_values_keeps_them():
    at = run({"step": "5", "m": "77"}, "pages/3_RoPE_rotation.py")
    assert at.session_state["m"] == 77 and at.session_state["head_dim"] == 64


def test_start_the_tour_from_the_sidebar():
    at = run({})
    at.switch_page("pages/8_Compare_methods.py").run()
    at.button(key="tour_start").click().run()
    assert not at.exception
    assert any(m.value == tour.get_step(1).narration for m in at.markdown)
