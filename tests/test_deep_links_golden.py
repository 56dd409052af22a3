"""Deep links still open the same view: every link in tests/golden/deep_links.json, run on the
current tree, shows exactly what it showed when the golden file was written (the code before the
restructure of explorer/ and pages/): the same elements in the same order with the same texts,
controls, values and charts, the same page config, and the same URL afterwards.

What is compared, and what is normalised away, is described in tests/golden_views.py. A failure
names the link, the first element that differs (with the containers around it and the fields that
differ, expected vs got) and a line diff of the page's elements. For a chart whose spec hash
differs, compare ``python tests/golden_views.py --show LINK_ID`` in the old and the new tree.

The golden file is regenerated only on purpose, from the tree whose behaviour is the reference:
``python tests/golden_views.py --write`` (run from that tree's root).
"""

from __future__ import annotations

import pytest
from golden_views import GOLDEN_PATH, LINKS, compare, load_golden, snapshot

GOLDEN = load_golden()
GOLDEN_LINKS = GOLDEN["links"]


def test_the_golden_file_holds_the_frozen_links():
    """The links in the golden file are exactly golden_views.LINKS (same ids, pages, queries)."""
    stored = [(link["id"], link["page"], link["query"]) for link in GOLDEN_LINKS]
    frozen = [(link["id"], link["page"], link["query"]) for link in LINKS]
    assert stored == frozen, f"{GOLDEN_PATH.name} and golden_views.LINKS disagree; regenerate on purpose only"
    assert len(stored) >= 100


@pytest.mark.parametrize("link", GOLDEN_LINKS, ids=[link["id"] for link in GOLDEN_LINKS])
def test_deep_link_shows_the_same_view(link):
    got = snapshot(link["page"], link["query"])
    report = compare(link["snapshot"], got)
    if report:
        query = "&".join(
            f"{key}={v}"
            for key, value in link["query"].items()
            for v in (value if isinstance(value, list) else [value])
        )
        pytest.fail(f"{link['page']}?{query} no longer shows the same view:\n{report}", pytrace=False)
