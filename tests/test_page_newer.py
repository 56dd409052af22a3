"""The Newer encodings page through AppTest: the shipped grid per task, one paragraph per encoding whose claims
follow the shipped learned flags, each encoding's picture, the past-L view and bad URL values."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _apptest import run_page

from explorer.text import newer as text
from posenc import lab

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "11_Newer_encodings.py")
SHIPPED = json.loads(lab.SHIPPED.read_text())
ARENA = list(text.arena_tasks(SHIPPED))


def run(**query):
    at = run_page(PAGE, timeout=180, **query)
    assert not at.exception, at.exception
    return at


def specs(at):
    return [c.proto.spec for c in at.get("vega_lite_chart")]


def test_the_shipped_arena_has_every_newer_encoding_on_two_tasks_with_five_seeds():
    assert ARENA == ["flipflop", "kback", "passkey"]  # the task their papers measure first
    for m in lab.NEWER:
        on = [t for t in ARENA if m in SHIPPED["tasks"][t]["runs"]]
        assert len(on) >= 2, m
        for t in on:
            assert set(SHIPPED["tasks"][t]["runs"][m]) == {"0", "1", "2", "3", "4"}, (t, m)
            assert isinstance(SHIPPED["tasks"][t]["learned"][m], bool)


def test_defaults_draw_a_grid_per_task_and_a_paragraph_per_encoding():
    at = run()
    shown = specs(at)
    assert len(shown) == len(ARENA) + 2  # the grids, then CoPE's picture: its gates and its positions
    for task, spec in zip(ARENA, shown, strict=False):
        name, _, what = lab.TASKS[task].label.partition(": ")  # the title's two lines, where it has a name and a gloss
        assert all(part in spec for part in ([f"{name}:", what] if what else [name])) and "every scored token" in spec
    body = " ".join(m.value for m in at.markdown)
    for m, paper in text.PAPERS.items():
        assert f"**{paper.title}** ({paper.cite})" in body, m
    for m in lab.NEWER:  # an encoding is said not to have learned exactly where a task's row did not
        unlearned = [t for t in ARENA if SHIPPED["tasks"][t]["learned"].get(m) is False]
        (paragraph,) = [p.value for p in at.markdown if p.value.startswith(f"**{text.PAPERS[m].title}**")]
        said = [t for t in ARENA if f"did not learn the {t} task" in paragraph]
        assert said == unlearned and paragraph.count("did not learn the") == len(unlearned), (m, unlearned)
    n = len(re.findall(r"\b(?:better|worse|not separable) at \w+ \(", body))
    assert f"prints {n} seed-paired comparisons" in body
    assert any("Learned means accuracy at least 0.95" in c.value for c in at.caption)


def test_past_l_only_leaves_out_the_training_length():
    at = run(newer_view="past L only")
    grid = specs(at)[0]
    assert "positions past L only" in grid and '"64"' not in grid.split('"datasets"')[-1].split("]")[0]


@pytest.mark.parametrize("encoding", lab.NEWER)
def test_every_encoding_has_its_picture(encoding):
    at = run(newer_enc=encoding, newer_task="flipflop", newer_len="24", newer_head="5")
    pictures = specs(at)[len(ARENA) :]
    assert len(pictures) == (2 if encoding in ("cope", "hybrid") else 1)
    for picture in pictures:
        assert text.PAPERS[encoding].title.split("/")[0].split()[0] in picture
    notes = " ".join(m.value for m in at.markdown if "What to notice" in m.value)
    assert notes, "no caption under the picture"


def test_bad_url_values_fall_back():
    at = run(newer_enc="bogus", newer_task="nope", newer_len="100000", newer_head="-3", newer_view="x")
    assert len(specs(at)) == len(ARENA) + 2  # CoPE, the default


def _page_whose_shipped_results(outcome: str):
    """The page, run as Streamlit runs it, with the shipped results unreadable ("broken": the file cannot be read or
    parsed) or holding no arena task ("empty")."""
    import runpy
    from pathlib import Path

    import explorer
    from explorer.compute import newer

    page = Path(explorer.__file__).parent.parent / "pages" / "11_Newer_encodings.py"

    def broken():
        raise OSError("[Errno 2] No such file or directory: 'data/lab/results.json' <b>bold</b>")

    original = newer.shown_tasks
    newer.shown_tasks = broken if outcome == "broken" else dict
    try:
        runpy.run_path(str(page), run_name="__main__")
    finally:
        newer.shown_tasks = original


@pytest.mark.parametrize("outcome", ["broken", "empty"])
def test_unreadable_or_empty_shipped_results_say_so_and_draw_nothing(outcome):
    """The shipped file unreadable: an error naming why (its text as text, never markup); no arena task in it: a
    warning that none is shipped. Either way the page stops there: no chart, no exception."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_page_whose_shipped_results, args=(outcome,), default_timeout=120)
    run_page("", at)
    assert not at.exception and not at.get("vega_lite_chart")
    if outcome == "broken":
        (error,) = at.error
        # the reason as text: every markdown character escaped (explorer.widgets.escape_markdown)
        assert error.value.startswith(r"The shipped results could not be read: \[Errno 2\] No such file or directory")
        assert r"\<b\>bold\<\/b\>" in error.value
        assert not at.warning
    else:
        assert [w.value for w in at.warning] == [text.NOT_SHIPPED] and not at.error


def test_on_the_dark_theme_paths_transform_is_its_own_image(monkeypatch):
    """PaTH's transform (redblue) is drawn for the theme the browser shows (explorer.render.dark_theme): on the dark
    theme its image and legend are the dark card's (tests/test_text_newer.py checks their colours); a light session
    and a dark one never get each other's picture from the charts every session shares."""
    from explorer import render
    from explorer.charts import style

    query = dict(newer_enc="path", newer_task="flipflop", newer_len="24", newer_head="5")

    def picture() -> str:
        (shown,) = specs(run(**query))[len(ARENA) :]
        return shown

    light = picture()
    assert style.DARK_REDBLUE[0] not in light and '"redblue"' in light
    monkeypatch.setattr(render, "dark_theme", lambda: True)
    assert style.DARK_REDBLUE[0] in picture()  # the legend built for the dark card (the styling leaves it as built)
    monkeypatch.setattr(render, "dark_theme", lambda: False)
    assert picture() == light
