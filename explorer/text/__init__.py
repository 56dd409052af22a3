"""The sentences each page shows, one module per page (explorer/text/<page>.py).

Every module here is pure: it takes the values a page computed and returns strings. Nothing here
imports Streamlit, and no page script or chart builder builds a sentence of its own.
"""


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and its noun in the right number: "1 job", "2 jobs", "1,024 tokens"."""
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"


def join_names(names: list[str], last: str = "and") -> str:
    """ "a", "a and b", "a, b and c" (``last`` joins the last two)."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {last} " + names[-1]
