"""explorer.text.count: a number and its noun agree ("1 job", not "1 job(s)")."""

import pytest

from explorer.text import count


@pytest.mark.parametrize(
    ("n", "noun", "plural", "out"),
    [
        (1, "job", None, "1 job"),
        (0, "job", None, "0 jobs"),
        (2, "seed", None, "2 seeds"),
        (1024, "token", None, "1,024 tokens"),
    ]
    + [(1, "query", "queries", "1 query"), (3, "query", "queries", "3 queries")],
)
def test_count(n, noun, plural, out):
    assert count(n, noun, plural) == out
